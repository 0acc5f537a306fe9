// Outputs of quantities of the solution (docs/model-language.md, "output"): accelerations x''
// (the index-reduced ODE's KKT solution at each node), names inside components
// (`p.rotor.theta`, `mu.arm.rod`) and elements of constraint families of two indices, each
// against an analytic value.
#include "harness.h"
#include "mem_files.h"
#include "problems.h"
#include "sim_run.h"

#include <dirac/dirac.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

static const char *const all_methods[] = { "midpoint", "dirac1", "dirac2", "dgrad", "euler",
                                           "rk4",      "lobatto3", "lobatto4" };

static int method_order(const char *name)
{
    for (int i = 0; i < dirac_method_count(); i++)
        if (!strcmp(dirac_method(i)->name, name))
            return dirac_method(i)->order;
    return 0;
}

// The index of output `name` (-1 if none).
static int output_index(const dirac_model *m, const char *name)
{
    for (int k = 0; k < dirac_model_output_count(m); k++)
        if (!strcmp(dirac_model_output_name(m, k), name))
            return k;
    return -1;
}

// ---- accelerations --------------------------------------------------------------------------

// A harmonic oscillator m x'' = -k x: at every node of every method the output x'' is the
// acceleration of the equations of motion at that node's state, -(k/m) x, whatever the
// method's error in x. Tolerance: the KKT solve of a 1x1 system, rounding only (1e-13 of
// the acceleration's scale k/m = 4).
static void acceleration_of_an_oscillator(void)
{
    const char *text = "model osc\nparameter m = 2, k = 8\ncoordinate x\n"
                       "lagrangian m/2*x'^2 - k/2*x^2\ninitial x = 1\n"
                       "output a = x'', twice = 2*x'' + x\n";
    for (size_t j = 0; j < sizeof all_methods / sizeof all_methods[0]; j++) {
        run r;
        if (!run_open_method(&r, text, all_methods[j], 0.05))
            continue;
        double y[2];
        for (int s = 0; s <= 40; s++) {
            if (s > 0 && !run_step(&r))
                break;
            double x = dirac_sim_q(r.sim)[0];
            dirac_sim_outputs(r.sim, y);
            ENSURE_NEAR(y[0], -4.0 * x, 1e-13 * 4.0);
            ENSURE_NEAR(y[1], -7.0 * x, 1e-13 * 8.0);
        }
        run_close(&r);
    }
}

// The exact accelerations of the Cartesian pendulum x = l sin θ, y = −l cos θ (problems.h):
// x'' = l (cos θ θ'' − sin θ θ'²), y'' = l (sin θ θ'' + cos θ θ'²), θ'' = −(g/l) sin θ.
static void pendulum_acceleration(double t, double a[2])
{
    double rate, theta = pendulum_angle(PENDULUM_G, PENDULUM_L, PENDULUM_THETA0, t, &rate);
    double accel = -PENDULUM_G / PENDULUM_L * sin(theta);
    a[0] = PENDULUM_L * (cos(theta) * accel - sin(theta) * rate * rate);
    a[1] = PENDULUM_L * (sin(theta) * accel + cos(theta) * rate * rate);
}

// Largest error of the outputs x'', y'' over the nodes of a run to t = 1 with step h.
static double pendulum_acceleration_error(const char *method, double h)
{
    const char *text = PENDULUM_MODEL "output ax = x'', ay = y''\n";
    run r;
    if (!run_open_method(&r, text, method, h))
        return (double)NAN;
    double worst = 0.0, y[2], exact[2];
    long steps = lround(1.0 / h);
    for (long s = 0; s <= steps; s++) {
        if (s > 0 && !run_step(&r)) {
            worst = (double)NAN;
            break;
        }
        dirac_sim_outputs(r.sim, y);
        pendulum_acceleration(dirac_sim_time(r.sim), exact);
        worst = fmax(worst, fmax(fabs(y[0] - exact[0]), fabs(y[1] - exact[1])));
    }
    run_close(&r);
    return worst;
}

// x'' and y'' of the pendulum (a constrained system: the accelerations include the rod's
// force 2 μ (x, y)/m) converge to the exact ones at each method's order: the KKT solution is a
// smooth function of the node's (q, v), whose error is O(h^p). The observed order
// log2(e(h)/e(h/2)) must reach the nominal one within 0.3 (the asymptotic range starts late
// for the first-order methods; steps are chosen so the errors stay far above Newton's
// tolerance).
static void acceleration_of_a_pendulum_converges_at_the_method_order(void)
{
    for (size_t j = 0; j < sizeof all_methods / sizeof all_methods[0]; j++) {
        const char *method = all_methods[j];
        int order = method_order(method);
        double h = order <= 1 ? 0.005 : order == 2 ? 0.02 : order == 4 ? 0.1 : 0.2;
        double e1 = pendulum_acceleration_error(method, h);
        double e2 = pendulum_acceleration_error(method, h / 2);
        double observed = log2(e1 / e2);
        printf("       %-9s h = %-6g errors %.3e %.3e  order %.2f (nominal %d)\n", method, h,
               e1, e2, observed, order);
        ENSURE(observed >= order - 0.3);
        ENSURE(e2 < 0.05);   // and small: |a| is about 5 here
    }
}

// The elements of a family: x[i]'' of N uncoupled oscillators with k_i = i (m = 1) is -i x[i]
// at every node (rounding, as above).
static void accelerations_of_a_family(void)
{
    const char *text = "model family\nparameter N = 4\ncoordinate x[N]\n"
                       "lagrangian sum(i = 1..N, x[i]'^2/2 - i*x[i]^2/2)\n"
                       "initial x[i = 1..N] = 1/i\n"
                       "output a[i = 1..N] = x[i]'', last = x[N]''\n";
    run r;
    if (!run_open_method(&r, text, "midpoint", 0.01))
        return;
    ENSURE_EQ_INT(dirac_model_output_count(r.model), 5);
    ENSURE(output_index(r.model, "a[3]") == 2);
    double y[5];
    for (int s = 0; s <= 20; s++) {
        if (s > 0 && !run_step(&r))
            break;
        dirac_sim_outputs(r.sim, y);
        for (int i = 1; i <= 4; i++)
            ENSURE_NEAR(y[i - 1], -i * dirac_sim_q(r.sim)[i - 1], 1e-13 * 4);
        ENSURE(y[4] == y[3]);
    }
    run_close(&r);
}

// The acceleration after a snapshot is restored, and after an input changed, is the one of
// the node's state (computed there, not left over from the last step).
static void acceleration_after_restore_and_input(void)
{
    const char *text = "model driven\ninput F = 0\ncoordinate x\nlagrangian x'^2/2 - x^2/2\n"
                       "force x: F\ninitial x = 1\noutput a = x''\n";
    run r;
    if (!run_open_method(&r, text, "midpoint", 0.1))
        return;
    size_t size = dirac_sim_state_size(r.sim);
    void *saved = malloc(size);
    double a0 = 0.0, a = 0.0;
    dirac_sim_outputs(r.sim, &a0);
    ENSURE_NEAR(a0, -1.0, 1e-15);
    ENSURE(saved && dirac_sim_state_save(r.sim, saved, size) == DIRAC_OK);
    run_steps(&r, 5);
    ENSURE(saved && dirac_sim_state_restore(r.sim, saved, size) == DIRAC_OK);
    dirac_sim_outputs(r.sim, &a);
    ENSURE(a == a0);
    // x'' = F − x with the new input at the same node
    ENSURE(dirac_sim_set_input(r.sim, 0, 3.0) == DIRAC_OK);
    dirac_sim_outputs(r.sim, &a);
    ENSURE_NEAR(a, 3.0 - 1.0, 1e-15);
    free(saved);
    run_close(&r);
}

// Where no acceleration exists: a coordinate without inertia (∂²L/∂v² singular) makes the
// KKT system singular; the output is refused at the start with the reason, not written as NaN.
static void acceleration_without_inertia_is_refused(void)
{
    const char *text = "model lossy\ncoordinate x, y\n"
                       "lagrangian x'^2/2 + x'*y - y^2/2 - x^2/2\ninitial x = 1\n"
                       "output a = y''\n";
    dirac_model *m = model_compile(NULL, text, NULL, 0);
    if (!m)
        return;
    dirac_sim_options options = { .method = "midpoint", .dt = 0.01 };
    dirac_sim *sim = NULL;
    dirac_error err;
    dirac_status status = dirac_sim_create(m, &options, &sim, &err);
    ENSURE(status != DIRAC_OK);
    if (status != DIRAC_OK) {
        ENSURE(strstr(err.message, "output 'a' is NaN at the initial state") != NULL);
        ENSURE(strstr(err.message, "accelerations x'' that outputs use are undefined") != NULL);
    }
    dirac_sim_destroy(sim);
    dirac_model_destroy(m);
}

// linearize writes outputs as C x + D u of the state (q, v, p, mu): an output that uses an
// acceleration has no such row and is refused by name.
static void linearize_refuses_acceleration_outputs(void)
{
    dirac_model *m = model_compile(NULL, PENDULUM_MODEL "output angle = atan2(x, -y), ax = x''\n",
                                   NULL, 0);
    if (!m)
        return;
    dirac_linearization lin;
    dirac_error err;
    ENSURE_EQ_INT(dirac_model_linearize(m, NULL, NULL, NULL, NULL, 0.0, &lin, &err),
                  DIRAC_ERR_UNSUPPORTED);
    ENSURE(strstr(err.message, "output 'ax' uses an acceleration") != NULL);
    dirac_linearization_free(&lin);
    double x[7] = { 0.6, -0.8, 0, 0, 0, 0, 0 }, f[7], y[2];
    ENSURE_EQ_INT(dirac_model_descriptor_rhs(m, x, NULL, 0.0, f, y, &err), DIRAC_ERR_UNSUPPORTED);
    ENSURE_EQ_INT(dirac_model_descriptor_rhs(m, x, NULL, 0.0, f, NULL, &err), DIRAC_OK);
    dirac_model_destroy(m);
}

// Accelerations are results of the simulation: only outputs may name them.
static void acceleration_errors(void)
{
    static const struct {
        const char *text, *message;
    } cases[] = {
        { "model e\ncoordinate x\nlagrangian x'^2/2 - x''\n",
          "test.dirac:3:21: error: the acceleration x'' can be used only in outputs" },
        { "model e\ncoordinate x\nlagrangian x'^2/2\nforce x: -x''\n",
          "test.dirac:4:11: error: the acceleration x'' can be used only in outputs" },
        { "model e\nparameter k = 1\ncoordinate x\nlagrangian x'^2/2\noutput a = k''\n",
          "test.dirac:5:12: error: 'k' is a parameter; only coordinates have accelerations (k'')" },
        { "model e\ncoordinate x\nlagrangian x'^2/2\noutput a = x'''\n",
          "test.dirac:4:12: error: only first and second time derivatives (x', x'') can be "
          "written" },
        { "model e\ncoordinate x[2]\nlagrangian x[1]'^2/2 + x[2]'^2/2\nlet w = x[1]''\n",
          "test.dirac:4:9: error: the acceleration x[...]'' can be used only in outputs" },
        { "model e\ncoordinate x\nlagrangian x'^2/2\noutput a = xx''\n",
          "test.dirac:4:12: error: unknown name 'xx'; did you mean 'x'?" },
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        dirac_spec *spec = NULL;
        dirac_status status = dirac_spec_parse("test.dirac", cases[k].text,
                                               strlen(cases[k].text), &spec);
        ENSURE_EQ_INT(status, DIRAC_ERR_PARSE);
        const char *msg = spec ? dirac_spec_errmsg(spec) : "";
        if (strncmp(msg, cases[k].message, strlen(cases[k].message)) != 0) {
            fprintf(stderr, "  got:      %s\n  expected: %s\n", msg, cases[k].message);
            ENSURE(!"message");
        }
        dirac_spec_destroy(spec);
    }
}

TEST_MAIN(TEST(acceleration_of_an_oscillator),
          TEST(acceleration_of_a_pendulum_converges_at_the_method_order),
          TEST(accelerations_of_a_family), TEST(acceleration_after_restore_and_input),
          TEST(acceleration_without_inertia_is_refused),
          TEST(linearize_refuses_acceleration_outputs), TEST(acceleration_errors))
