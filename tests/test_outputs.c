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

// The modes need no outputs: a model with an acceleration output still has them. Harmonic
// oscillator m x'' = -k x: one mode, ω² = k/m (rounding of a 1 x 1 pencil).
static void modes_ignore_acceleration_outputs(void)
{
    dirac_model *m = model_compile(NULL, "model osc\nparameter m = 2, k = 8\ncoordinate x\n"
                                   "lagrangian m/2*x'^2 - k/2*x^2\ninitial x = 0.1\n"
                                   "output ax = x''\n", NULL, 0);
    if (!m)
        return;
    dirac_equilibrium eq;
    dirac_modes modes;
    dirac_error err;
    ENSURE_EQ_INT(dirac_model_equilibrium(m, NULL, NULL, 0.0, &eq, &err), DIRAC_OK);
    ENSURE_EQ_INT(dirac_model_modes(m, &eq, 0, 0, &modes, &err), DIRAC_OK);
    ENSURE_EQ_INT(modes.count, 1);
    if (modes.count == 1)
        ENSURE_NEAR(modes.omega2[0], 4.0, 1e-14 * 4.0);
    dirac_modes_free(&modes);
    dirac_equilibrium_free(&eq);
    dirac_model_destroy(m);
}

// With friction heating the entropy changes; a momentum that depends on it makes x'' depend on
// S' too, which the acceleration solve does not have: refused at creation, naming both. With a
// momentum free of S (the same model with a constant mass) the output is accepted.
static void acceleration_with_entropy_dependent_momentum_is_refused(void)
{
    static const char head[] = "model hot\nparameter c = 0.5\ncoordinate x\nentropy S\n";
    static const char tail[] = "friction x -> S: -c*x'\ninitial x = 1, x' = 0, S = 1\n"
                               "output ax = x''\n";
    char text[512];
    snprintf(text, sizeof text, "%slagrangian (1 + S^2)/2*x'^2 - x^2/2 - exp(S)\n%s", head,
             tail);
    dirac_model *m = model_compile(NULL, text, NULL, 0);
    if (m) {
        dirac_sim_options options = { .method = "dgrad", .dt = 0.01 };
        dirac_sim *sim = NULL;
        dirac_error err;
        ENSURE_EQ_INT(dirac_sim_create(m, &options, &sim, &err), DIRAC_ERR_UNSUPPORTED);
        ENSURE(strstr(err.message, "momentum of 'x' depends on the entropy 'S'") != NULL);
        dirac_sim_destroy(sim);
        dirac_model_destroy(m);
    }
    snprintf(text, sizeof text, "%slagrangian x'^2/2 - x^2/2 - exp(S)\n%s", head, tail);
    m = model_compile(NULL, text, NULL, 0);
    if (m) {
        dirac_sim_options options = { .method = "dgrad", .dt = 0.01 };
        dirac_sim *sim = NULL;
        dirac_error err;
        ENSURE_EQ_INT(dirac_sim_create(m, &options, &sim, &err), DIRAC_OK);
        dirac_sim_destroy(sim);
        dirac_model_destroy(m);
    }
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

// A parameter named T or p does not hide T.S and p.x (only a component of that name would):
// with L = x'^2/2 - T exp(S), the temperature -dL/dS is T exp(S) = 2 at S = 0, and p.x = x'.
static void prefixes_that_are_not_components(void)
{
    const char *text = "model w\nparameter T = 2, p = 3\ncoordinate x\nentropy S\n"
                       "lagrangian x'^2/2 - T*exp(S) - x^2/2\ninitial x' = 0.5\n"
                       "output temp = T.S, px = p.x, product = p*T\n";
    run r;
    if (!run_open_method(&r, text, "midpoint", 0.1))
        return;
    double y[3];
    for (int s = 0; s <= 3; s++) {
        if (s > 0 && !run_step(&r))
            break;
        dirac_sim_outputs(r.sim, y);
        ENSURE_NEAR(y[0], 2.0, 1e-15 * 2.0);
        ENSURE_NEAR(y[1], dirac_sim_v(r.sim)[0], 1e-15);
        ENSURE(y[2] == 6.0);
    }
    run_close(&r);
}

// ---- names inside components ------------------------------------------------------------------

static mem_files files = { .dir = "models" };

// The exact multiplier of the pendulum's rod x² + y² = l² for mass m: the tension
// m (g cos θ + l θ'²) pulls the mass towards the pivot, and the rod's force is μ ∇φ = 2 μ (x, y),
// so μ = −m (g cos θ + l θ'²) / (2 l).
static double pendulum_multiplier(double m, double t)
{
    double rate, theta = pendulum_angle(PENDULUM_G, PENDULUM_L, PENDULUM_THETA0, t, &rate);
    return -m * (PENDULUM_G * cos(theta) + PENDULUM_L * rate * rate) / (2.0 * PENDULUM_L);
}

// From the outer model, the quantities of components' symbols by their CSV column names:
// `mu.arm.rod`, `p.arm.x`, `T.tank.S`, `arm.x''`, two levels down `mu.deep.inner.rod`, and the
// force and power of an interaction inside a component (`F.deep.same.deep.inner.x`,
// `P.deep.same`). The pendulums follow the exact pendulum (problems.h; the interaction `same`
// ties two identical pendulums, so its multiplier is 0). rk4 with h = 1e-3: its multipliers
// are the KKT ones at the node, and the state's error is O(h^4) ~ 1e-12 times the solution's
// derivatives, so 1e-8 bounds the errors of μ, p and x'' (of size 1 to 10) with room.
static void component_names(void)
{
    ENSURE(mem_files_write(&files, "pend.dirac",
                           "model pend\nparameter m = 1, g = 9.81, l = 1, theta0 = 0.5\n"
                           "coordinate x, y\nlagrangian m/2*(x'^2 + y'^2) - m*g*y\n"
                           "constraint rod: x^2 + y^2 = l^2\n"
                           "initial x = l*sin(theta0), y = -l*cos(theta0)\n") == 0);
    ENSURE(mem_files_write(&files, "gas.dirac", "model gas\nparameter C = 2, T0 = 300\n"
                           "entropy S\nlagrangian -C*T0*exp(S/C)\n") == 0);
    ENSURE(mem_files_write(&files, "mid.dirac",
                           "model mid\ncomponent inner = pend() from \"pend.dirac\"\n"
                           "component other = pend()  from \"pend.dirac\"\n"
                           "constraint same: inner.x = other.x\n"
                           "output own_push = F.same.inner.x, own_power = P.same\n") == 0);
    ENSURE(mem_files_write(&files, "top.dirac",
                           "model top\ncomponent arm = pend(m = 2)\ncomponent tank = gas()\n"
                           "component deep = mid()\n"
                           "output tension = mu.arm.rod, px = p.arm.x, temp = T.tank.S\n"
                           "output ax = arm.x'', nested = mu.deep.inner.rod\n"
                           "output push = F.deep.same.deep.inner.x, power = P.deep.same\n") == 0);
    run r = { 0 };
    dirac_status status = mem_files_load(&files, "top.dirac", &r.spec);
    dirac_sim_options options = { .method = "rk4", .dt = 1e-3 };
    if (!run_compile(&r, status, "top.dirac", NULL, 0) || !run_create(&r, "top.dirac", &options))
        return;
    // the outer model's outputs, then those of deep (`deep.own_push`: its own interaction)
    ENSURE_EQ_INT(dirac_model_output_count(r.model), 9);
    ENSURE(output_index(r.model, "deep.own_push") == 7);
    double y[9], exact[2], v[2], q[2];
    for (int s = 0; s <= 500; s++) {
        if (s > 0 && !run_step(&r))
            break;
        double t = dirac_sim_time(r.sim);
        dirac_sim_outputs(r.sim, y);
        pendulum_acceleration(t, exact);
        pendulum_exact(PENDULUM_G, PENDULUM_L, PENDULUM_THETA0, t, q, v);
        ENSURE_NEAR(y[0], pendulum_multiplier(2.0, t), 1e-8);
        ENSURE_NEAR(y[1], 2.0 * v[0], 1e-8);
        ENSURE_NEAR(y[2], 300.0, 1e-12 * 300.0);   // T = T0 exp(S/C), S stays 0
        ENSURE_NEAR(y[3], exact[0], 1e-8);
        ENSURE_NEAR(y[4], pendulum_multiplier(1.0, t), 1e-8);
        ENSURE_NEAR(y[5], 0.0, 1e-9);   // μ_same = 0 up to rounding of the KKT solve
        ENSURE_NEAR(y[6], 0.0, 1e-9);
        ENSURE(y[7] == y[5] && y[8] == y[6]);   // the same columns, named from inside
    }
    run_close(&r);
}

// Names through a family of components and into their families: `c[i].q[1]''`,
// `p.c[i].q[2]`, `mu.c[i].tie[1, 2]`. Each cell ties two oscillators of stiffness k and 3k
// (k = i) by q[1] = q[2]: together mass 2 and stiffness 4k, so q = cos(ω t) with ω² = 2k,
// q[1]'' = −2k q, p of q[2] = q' = −ω sin(ω t), and from q[1]'' = −k q[1] + μ, the
// multiplier μ = −k q. rk4 with h = 1e-3 to t = 0.5: errors O(h^4) ~ 1e-12; 1e-9 bounds them.
static void names_in_component_families(void)
{
    ENSURE(mem_files_write(&files, "cell.dirac",
                           "model cell\nparameter k = 1\ncoordinate q[2]\n"
                           "lagrangian q[1]'^2/2 + q[2]'^2/2 - k*q[1]^2/2 - 3*k*q[2]^2/2\n"
                           "constraint tie[i = 1..1, j = i+1..2]: q[i] = q[j]\n"
                           "initial q[j = 1..2] = 1\n") == 0);
    ENSURE(mem_files_write(&files, "cells.dirac",
                           "model cells\nparameter N = 3\ncomponent c[i = 1..N] = cell(k = i)\n"
                           "output a[i = 1..N] = c[i].q[1]'', v[i = 1..N] = p.c[i].q[2]\n"
                           "output f[i = 1..N] = mu.c[i].tie[1, 2]\n") == 0);
    run r = { 0 };
    dirac_status status = mem_files_load(&files, "cells.dirac", &r.spec);
    dirac_sim_options options = { .method = "rk4", .dt = 1e-3 };
    if (!run_compile(&r, status, "cells.dirac", NULL, 0) || !run_create(&r, "cells.dirac", &options))
        return;
    ENSURE_EQ_INT(dirac_model_output_count(r.model), 9);
    ENSURE(output_index(r.model, "f[2]") == 7);
    double y[9];
    for (int s = 0; s <= 500; s++) {
        if (s > 0 && !run_step(&r))
            break;
        double t = dirac_sim_time(r.sim);
        dirac_sim_outputs(r.sim, y);
        for (int i = 1; i <= 3; i++) {
            double w = sqrt(2.0 * i), q = cos(w * t);
            ENSURE_NEAR(y[i - 1], -2.0 * i * q, 1e-9);
            ENSURE_NEAR(y[3 + i - 1], -w * sin(w * t), 1e-9);
            ENSURE_NEAR(y[6 + i - 1], -i * q, 1e-9);
        }
    }
    run_close(&r);
}

// The entropy columns S.NAME name the entropy variables themselves, also elements and inside
// components: `S.S[2]`, `S.tank.S` (values of the state, so equal exactly).
static void entropy_columns(void)
{
    ENSURE(mem_files_write(&files, "gas.dirac", "model gas\nparameter C = 2, T0 = 300\n"
                           "entropy S\nlagrangian -C*T0*exp(S/C)\ninitial S = 0.25\n") == 0);
    ENSURE(mem_files_write(&files, "ent.dirac",
                           "model ent\ncoordinate x\nentropy S[2]\n"
                           "lagrangian x'^2/2 - x^2/2 - sum(i = 1..2, exp(S[i]))\n"
                           "initial x = 1, S[1] = 0.5, S[2] = -0.5\ncomponent tank = gas()\n"
                           "output first = S.S[1], second = S.S[2], gas = S.tank.S\n") == 0);
    run r = { 0 };
    dirac_status status = mem_files_load(&files, "ent.dirac", &r.spec);
    dirac_sim_options options = { .method = "midpoint", .dt = 0.1 };
    if (!run_compile(&r, status, "ent.dirac", NULL, 0) || !run_create(&r, "ent.dirac", &options))
        return;
    double y[3];
    run_steps(&r, 2);
    dirac_sim_outputs(r.sim, y);
    const double *s = dirac_sim_s(r.sim);
    ENSURE(y[0] == s[0] && y[1] == s[1] && y[2] == s[2]);
    ENSURE(y[0] == 0.5 && y[2] == 0.25);
    run_close(&r);
}

// Misspelt names inside components are errors at the name, with a suggestion.
static void component_name_errors(void)
{
    static const struct {
        const char *output, *message;
    } cases[] = {
        { "mu.arm.rdo", "'mu.arm.rdo': model 'pend' has no constraint 'rdo'; did you mean "
                        "'mu.arm.rod'?" },
        { "mu.amr.rod", "'mu.amr.rod': model 'top' has no component 'amr'; did you mean "
                        "'mu.arm.rod'?" },
        { "p.arm.rod", "'p.arm.rod': model 'pend' has no coordinate 'rod'" },
        { "T.tank.Q", "'T.tank.Q': model 'gas' has no entropy variable 'Q'" },
        { "P.deep.sam", "'P.deep.sam' is not a column of the model's interactions; did you "
                        "mean 'P.deep.same'?" },
        { "arm.m''", "'arm.m' is a parameter; only coordinates have accelerations (arm.m'')" },
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        char text[256], expected[256];
        snprintf(text, sizeof text, "model top\ncomponent arm = pend(m = 2)\n"
                 "component tank = gas()\ncomponent deep = mid()\noutput o = %s\n",
                 cases[k].output);
        snprintf(expected, sizeof expected, "models/bad.dirac:5:12: error: %s", cases[k].message);
        ENSURE(mem_files_write(&files, "bad.dirac", text) == 0);
        dirac_spec *spec = NULL;
        dirac_model *model = NULL;
        dirac_status status = mem_files_load(&files, "bad.dirac", &spec);
        if (status == DIRAC_OK)
            status = dirac_model_compile(spec, &model);
        ENSURE_EQ_INT(status, DIRAC_ERR_PARSE);
        const char *msg = spec ? dirac_spec_errmsg(spec) : "";
        if (strncmp(msg, expected, strlen(expected)) != 0) {
            fprintf(stderr, "  got:      %s\n  expected: %s\n", msg, expected);
            ENSURE(!"message");
        }
        dirac_model_destroy(model);
        dirac_spec_destroy(spec);
    }
}

// ---- constraint families of two indices -------------------------------------------------------

// A rigid triangle of three point masses (unit sides, pairwise distance constraints C[i, j],
// j = i+1..3: a triangular family) hanging at rest from its top vertex, pinned at the origin.
// Statics of a lower vertex (mass m, r2 = (−1/2, −√3/2), r3 = (1/2, −√3/2)), with the rod
// forces 2 μ_ij (r_i − r_j): x: −μ12 − 2 μ23 = 0, y: −√3 μ12 − m g = 0, so
// μ12 = μ13 = −m g/√3 (the upper rods pull), μ23 = m g/(2√3) (the lower one is pressed).
// The triangle stays at rest, so every method keeps these values to Newton's tolerance
// (1e-10 relative; 1e-8 of m g = 9.81 leaves room for rounding in the 9-unknown solves).
static void two_index_constraint_family(void)
{
    const char *text =
        "model tri\nparameter m = 1, g = 9.81, s = sqrt(3)/2\ncoordinate x[3], y[3]\n"
        "lagrangian sum(i = 1..3, m/2*(x[i]'^2 + y[i]'^2) - m*g*y[i])\n"
        "constraint pinx: x[1] = 0\nconstraint piny: y[1] = 0\n"
        "constraint C[i = 1..3, j = i+1..3]: (x[i] - x[j])^2 + (y[i] - y[j])^2 = 1\n"
        "initial x[2] = -0.5, y[2] = -s, x[3] = 0.5, y[3] = -s\n"
        "output f[i = 1..2, j = i+1..3] = mu.C[i, j], f23 = mu.C[2][3], f13 = mu.C[1, 3]\n";
    const double mg = 9.81, upper = -mg / sqrt(3.0), lower = mg / (2.0 * sqrt(3.0));
    const char *methods[] = { "midpoint", "dgrad", "rk4", "lobatto3" };
    for (size_t j = 0; j < sizeof methods / sizeof methods[0]; j++) {
        run r;
        if (!run_open_method(&r, text, methods[j], 0.01))
            continue;
        // the output family and the CSV columns of the constraint family have the same names
        static const char *const names[] = { "f[1][2]", "f[1][3]", "f[2][3]", "f23", "f13" };
        ENSURE_EQ_INT(dirac_model_output_count(r.model), 5);
        for (int k = 0; k < 5 && k < dirac_model_output_count(r.model); k++)
            ENSURE(!strcmp(dirac_model_output_name(r.model, k), names[k]));
        char column[32];
        int found = 0;
        for (int k = 0; k < dirac_model_column_count(r.model); k++) {
            dirac_model_column_name(r.model, k, column, sizeof column);
            found += !strcmp(column, "mu.C[1][2]") || !strcmp(column, "mu.C[2][3]");
        }
        ENSURE_EQ_INT(found, 2);
        double y[5];
        for (int s = 0; s <= 10; s++) {
            if (s > 0 && !run_step(&r))
                break;
            dirac_sim_outputs(r.sim, y);
            ENSURE_NEAR(y[0], upper, 1e-8 * mg);
            ENSURE_NEAR(y[1], upper, 1e-8 * mg);
            ENSURE_NEAR(y[2], lower, 1e-8 * mg);
            ENSURE(y[3] == y[2] && y[4] == y[1]);
        }
        run_close(&r);
    }
    // an element the triangular family does not have
    const char *bad = "model tri\ncoordinate x[3]\nlagrangian sum(i = 1..3, x[i]'^2/2)\n"
                      "constraint C[i = 1..3, j = i+1..3]: x[i] = x[j]\noutput o = mu.C[2, 1]\n";
    dirac_spec *spec = NULL;
    dirac_model *model = NULL;   // found when the family is written out (compilation)
    dirac_status status = dirac_spec_parse("test.dirac", bad, strlen(bad), &spec);
    ENSURE_EQ_INT(status, DIRAC_OK);
    if (status == DIRAC_OK)
        ENSURE_EQ_INT(dirac_model_compile(spec, &model), DIRAC_ERR_PARSE);
    const char *expected = "test.dirac:5:12: error: 'mu.C[2][1]': model 'tri' has no "
                           "constraint 'C[2][1]'";
    const char *msg = spec ? dirac_spec_errmsg(spec) : "";
    if (strncmp(msg, expected, strlen(expected)) != 0) {
        fprintf(stderr, "  got:      %s\n  expected: %s\n", msg, expected);
        ENSURE(!"message");
    }
    dirac_model_destroy(model);
    dirac_spec_destroy(spec);
}

TEST_MAIN(TEST(acceleration_of_an_oscillator),
          TEST(acceleration_of_a_pendulum_converges_at_the_method_order),
          TEST(accelerations_of_a_family), TEST(acceleration_after_restore_and_input),
          TEST(acceleration_without_inertia_is_refused),
          TEST(linearize_refuses_acceleration_outputs), TEST(modes_ignore_acceleration_outputs),
          TEST(acceleration_with_entropy_dependent_momentum_is_refused),
          TEST(acceleration_errors),
          TEST(prefixes_that_are_not_components),
          TEST(component_names), TEST(names_in_component_families),
          TEST(entropy_columns), TEST(component_name_errors),
          TEST(two_index_constraint_family))
