// Run-quality warnings (issue 12, item 7) and non-finite outputs (issue 13): the warnings stay
// silent on every example run with its own settings, and fire on runs that are nonsense by
// mathematics that the test checks itself:
// - explicit Euler on a 100-mass spring chain: each normal mode's energy grows by exactly
//   (1 + h² ω_j²) per step (the Euler map of x'' = −ω² x), computed here from the modes;
// - dirac1 with a large step on the double pendulum: the rods' lengths |r| are measured from
//   the final state;
// - rk4 on x² + y² = 1 with y = t: no solution for t > 1;
// - a negative heat conductance: heat flows from cold to hot, the total entropy falls
//   (a second-law violation of the model that the run reproduces faithfully);
// and stays silent on a cooled gas whose entropy falls legitimately (heat input P < 0) and on a
// body under a sinusoidal heater (checked against its analytic entropy).
#define _XOPEN_SOURCE 700   // nftw

#include "harness.h"
#include "sim_run.h"

#include <ftw.h>
#include <math.h>
#include <string.h>

// Runs the model at `path` with its own simulate settings (method, dt, t_end, tolerances).
static int run_file(run *r, const char *path, const char *method, double dt, double t_end)
{
    memset(r, 0, sizeof *r);
    if (!run_compile(r, dirac_spec_load(path, &r->spec), path, NULL, 0))
        return 0;
    dirac_simulate_defaults d;
    memset(&d, 0, sizeof d);
    dirac_model_simulate_defaults(r->model, &d);
    dirac_sim_options o;
    memset(&o, 0, sizeof o);
    o.method = method ? method : d.has_method ? d.method : "midpoint";
    o.dt = dt > 0 ? dt : 0;   // 0: the model's `simulate dt`
    o.newton_rtol = d.has_tol ? d.tol : 0;
    o.newton_max_iterations = d.has_max_iter ? d.max_iter : 0;
    if (!run_create(r, path, &o))
        return 0;
    long steps = (long)ceil((t_end > 0 ? t_end : d.t_end) / o.dt - 1e-9);
    return run_steps(r, steps);
}

// ---- every example, with its own settings: no warnings ------------------------------------

static int examples_run;
static dirac_sim_quality worst;   // the largest of each measure over the examples

static int run_example(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
    (void)st;
    (void)ftw;
    size_t len = strlen(path);
    if (type != FTW_F || len < 6 || strcmp(path + len - 6, ".dirac"))
        return 0;
    run r;
    if (run_file(&r, path, NULL, 0, 0)) {
        examples_run++;
        int count = dirac_sim_warning_count(r.sim);
        for (int k = 0; k < count; k++)
            fprintf(stderr, "  %s: %s\n", path, dirac_sim_warning(r.sim, k));
        ENSURE_EQ_INT(count, 0);
        dirac_sim_quality q;
        dirac_sim_quality_get(r.sim, &q);
        worst.energy_error = fmax(worst.energy_error, q.energy_error);
        worst.constraint_error = fmax(worst.constraint_error, q.constraint_error);
        worst.velocity_constraint_error =
            fmax(worst.velocity_constraint_error, q.velocity_constraint_error);
        worst.entropy_decrease = fmax(worst.entropy_decrease, q.entropy_decrease);
    }
    run_close(&r);
    return 0;
}

static void examples_have_no_warnings(void)
{
    ENSURE(nftw(DIRAC_SOURCE_DIR "/examples", run_example, 16, FTW_PHYS) == 0);
    ENSURE(examples_run >= 40);
    // the thresholds are at least 100 times the worst correct run (docs/cli.md quotes these)
    printf("  %d examples: largest energy error %.2e, constraint %.2e, velocity %.2e, entropy "
           "%.2e (relative)\n",
           examples_run, worst.energy_error, worst.constraint_error,
           worst.velocity_constraint_error, worst.entropy_decrease);
    ENSURE_LE(worst.energy_error, DIRAC_WARN_ENERGY / 100);
    ENSURE_LE(worst.constraint_error, DIRAC_WARN_CONSTRAINT / 100);
    ENSURE_LE(worst.velocity_constraint_error, DIRAC_WARN_VELOCITY_CONSTRAINT / 100);
    ENSURE_LE(worst.entropy_decrease, DIRAC_WARN_ENTROPY / 100);
}

// ---- explicit Euler on a spring chain -----------------------------------------------------

#define CHAIN_N 100
#define PI 3.14159265358979323846

static void euler_on_spring_chain(void)
{
    // N unit masses between fixed walls joined by unit springs; mass 1 starts displaced
    const char *text =
        "model spring_chain\n"
        "parameter N = 100, k = 1, m = 1\n"
        "coordinate u[N]\n"
        "lagrangian sum(i = 1..N, m/2*u[i]'^2) - k/2*u[1]^2 - k/2*u[N]^2 -\n"
        "           sum(i = 1..N-1, k/2*(u[i+1] - u[i])^2)\n"
        "initial u[1] = 0.1\n";
    const double h = 0.05;
    const long steps = 2000;
    dirac_sim_options o = { .method = "euler", .dt = h };
    run r;
    if (!run_open_with(&r, text, NULL, 0, &o) || !run_steps(&r, steps)) {
        run_close(&r);
        return;
    }
    // modes: u_i = Σ_j sqrt(2/(N+1)) sin(i j π/(N+1)) a_j, ω_j = 2 sin(j π/(2(N+1))); Euler
    // multiplies each mode's energy ½(a'² + ω² a²) by 1 + h² ω_j² per step
    double e0 = 0.0, e_final = 0.0;
    for (int j = 1; j <= CHAIN_N; j++) {
        double a = sqrt(2.0 / (CHAIN_N + 1)) * sin(j * PI / (CHAIN_N + 1)) * 0.1;
        double w = 2.0 * sin(j * PI / (2.0 * (CHAIN_N + 1)));
        double ej = 0.5 * w * w * a * a;
        e0 += ej;
        e_final += ej * pow(1.0 + h * h * w * w, (double)steps);
    }
    // the run's energy is the exact Euler energy (to rounding over 2000 steps)
    ENSURE_NEAR(dirac_sim_energy(r.sim) / e_final, 1.0, 1e-9);
    ENSURE_NEAR(dirac_sim_energy(r.sim) / e0, e_final / e0, 1e-9 * e_final / e0);
    // E grows monotonically; the scale max(E0, max <p,v>) is at most 2 E_final, so the measured
    // relative error is at least (E_final − E0) / (2 E_final)
    dirac_sim_quality q;
    dirac_sim_quality_get(r.sim, &q);
    printf("  euler on the spring chain: E %.3g -> %.3g, relative energy error %.3g\n", e0,
           e_final, q.energy_error);
    ENSURE(q.energy_error >= (e_final - e0) / (2 * e_final) * (1 - 1e-9));
    ENSURE(dirac_sim_warning_count(r.sim) == 1);
    ENSURE_CONTAINS(dirac_sim_warning(r.sim, 0), "energy balance error");
    ENSURE(dirac_sim_warning(r.sim, 1) == NULL);
    run_close(&r);
}

// ---- dirac1 with a large step on the double pendulum --------------------------------------

static void dirac1_stretches_the_double_pendulum(void)
{
    run r;
    if (!run_file(&r, DIRAC_SOURCE_DIR "/examples/double_pendulum.dirac", "dirac1", 0.02, 10)) {
        run_close(&r);
        return;
    }
    const double *q = dirac_sim_q(r.sim);   // x1, y1, x2, y2; both rods 1 m long
    double stretch1 = fabs(hypot(q[0], q[1]) - 1.0);
    double stretch2 = fabs(hypot(q[2] - q[0], q[3] - q[1]) - 1.0);
    dirac_sim_quality q_run;
    dirac_sim_quality_get(r.sim, &q_run);
    printf("  dirac1, dt = 0.02: rods stretched by %.3g and %.3g m at t = 10; relative "
           "constraint error %.3g\n", stretch1, stretch2, q_run.constraint_error);
    ENSURE(fmax(stretch1, stretch2) > 0.05);   // the nonsense the warning is about
    ENSURE(q_run.constraint_error > DIRAC_WARN_CONSTRAINT);
    int found = 0;
    for (int k = 0; k < dirac_sim_warning_count(r.sim); k++)
        found |= strstr(dirac_sim_warning(r.sim, k), "constraint 'rod") != NULL;
    ENSURE(found);
    run_close(&r);

    // midpoint at the same step keeps the rods (it solves φ(q_k+1) = 0 at every node) and
    // its energy error stays below the threshold (0.6 %): no warning
    if (run_file(&r, DIRAC_SOURCE_DIR "/examples/double_pendulum.dirac", "midpoint", 0.02, 10))
        ENSURE_EQ_INT(dirac_sim_warning_count(r.sim), 0);
    run_close(&r);
}

// ---- a constraint with no solution for t > 1 ---------------------------------------------

static void rk4_past_the_end_of_a_constraint(void)
{
    const char *text = "model dep2\n"
                       "coordinate x, y\n"
                       "lagrangian (x'^2 + y'^2)/2\n"
                       "constraint circle: x^2 + y^2 = 1\n"
                       "constraint drive: y = t\n"
                       "initial x = 1, y' = 1\n";
    const char *methods[] = { "rk4", "euler", "dirac1", "dirac2" };
    for (size_t k = 0; k < sizeof methods / sizeof methods[0]; k++) {
        dirac_sim_options o = { .method = methods[k], .dt = 0.125 };
        run r;
        if (!run_open_with(&r, text, NULL, 0, &o)) {
            run_close(&r);
            continue;
        }
        dirac_status status = DIRAC_OK;
        for (int s = 0; s < 16 && status == DIRAC_OK; s++)
            status = dirac_sim_step(r.sim);
        if (status == DIRAC_OK) {
            // a run that went past t = 1 is on no solution: it must say so
            ENSURE(dirac_sim_time(r.sim) > 1.0);
            int count = dirac_sim_warning_count(r.sim), found = 0;
            for (int w = 0; w < count; w++)
                found |= strstr(dirac_sim_warning(r.sim, w), "constraint 'circle'") != NULL;
            if (!found)
                fprintf(stderr, "  %s: no warning about the circle\n", methods[k]);
            ENSURE(found);
        }
        run_close(&r);
    }
}

// ---- outputs ------------------------------------------------------------------------------

static void nonfinite_output_fails_the_step(void)
{
    // x = cos t: sqrt(x) is NaN from the first step with t > π/2, step 158 at dt = 0.01
    const char *text = "model o\n"
                       "coordinate x\n"
                       "lagrangian x'^2/2 - x^2/2\n"
                       "initial x = 1\n"
                       "output s = sqrt(x)\n";
    dirac_sim_options o = { .method = "midpoint", .dt = 0.01 };
    run r;
    if (!run_open_with(&r, text, NULL, 0, &o))
        return;
    dirac_status status = DIRAC_OK;
    while (status == DIRAC_OK && dirac_sim_step_count(r.sim) < 400)
        status = dirac_sim_step(r.sim);
    ENSURE(status == DIRAC_ERR_NOT_FINITE);
    ENSURE(dirac_sim_step_count(r.sim) == 157);   // the state stays at the last good step
    ENSURE_NEAR(dirac_sim_time(r.sim), 1.57, 1e-12);
    ENSURE_CONTAINS(dirac_sim_errmsg(r.sim), "step 158 at t = 1.58");
    ENSURE_CONTAINS(dirac_sim_errmsg(r.sim), "output 's' became NaN");
    double s = 0;
    dirac_sim_outputs(r.sim, &s);
    ENSURE(isfinite(s));
    run_close(&r);

    // not finite at the initial state: the simulation does not start
    const char *bad = "model o\ncoordinate x\nlagrangian x'^2/2\ninitial x = -1\n"
                      "output s = log(x)\n";
    dirac_spec *spec = NULL;
    dirac_model *model = NULL;
    dirac_sim *sim = NULL;
    ENSURE(dirac_spec_parse("o.dirac", bad, strlen(bad), &spec) == DIRAC_OK);
    ENSURE(dirac_model_compile(spec, &model) == DIRAC_OK);
    dirac_error err;
    memset(&err, 0, sizeof err);
    ENSURE(dirac_sim_create(model, &o, &sim, &err) == DIRAC_ERR_NOT_FINITE);
    ENSURE(sim == NULL);
    ENSURE_CONTAINS(err.message, "output 's' is NaN at the initial state");
    dirac_model_destroy(model);
    dirac_spec_destroy(spec);
}

// ---- the second law -----------------------------------------------------------------------

static void entropy_decrease(void)
{
    // two bodies of constant heat capacity C: T_i = T0 exp(S_i/C); a negative conductance
    // drives heat from the cold body to the hot one, so S1 + S2 falls (d(S1+S2)/dt =
    // κ (T1 − T2)²/(T1 T2) < 0 for κ < 0)
    const char *text = "model heat_pump\n"
                       "parameter C = 2, T0 = 300, kappa = -0.05\n"
                       "entropy S1, S2\n"
                       "lagrangian -C*T0*exp(S1/C) - C*T0*exp(S2/C)\n"
                       "heat S1, S2: kappa\n"
                       "initial S1 = 0.2, S2 = -0.2\n";
    dirac_sim_options o = { .method = "dgrad", .dt = 0.01 };
    run r;
    if (run_open_with(&r, text, NULL, 0, &o) && run_steps(&r, 200)) {
        const double *s = dirac_sim_s(r.sim);
        ENSURE(s[0] + s[1] < 0.0);   // started at 0
        ENSURE_EQ_INT(dirac_sim_warning_count(r.sim), 1);
        ENSURE_CONTAINS(dirac_sim_warning(r.sim, 0), "second law violated");
    }
    run_close(&r);
    // the same with a positive conductance: the entropy grows, no warning
    const char *positive[] = { "kappa=0.05" };
    if (run_open_with(&r, text, positive, 1, &o) && run_steps(&r, 200))
        ENSURE_EQ_INT(dirac_sim_warning_count(r.sim), 0);
    run_close(&r);
}

static void cooling_is_no_violation(void)
{
    // the gas of the cylinder example cooled by a heater of negative power: its entropy falls
    // by ∫ P/T dt, which is not a violation of the second law
    run r;
    memset(&r, 0, sizeof r);
    dirac_status status =
        dirac_spec_load(DIRAC_SOURCE_DIR "/examples/thermo/cylinder_piston.dirac", &r.spec);
    if (status == DIRAC_OK)
        status = dirac_spec_set_parameter(r.spec, "P_heat=-2");
    if (status == DIRAC_OK)
        status = dirac_model_compile(r.spec, &r.model);
    ENSURE(status == DIRAC_OK);
    dirac_sim_options o = { .method = "dgrad", .dt = 1e-3 };
    dirac_error err;
    if (status == DIRAC_OK && dirac_sim_create(r.model, &o, &r.sim, &err) == DIRAC_OK &&
        run_steps(&r, 10000)) {
        ENSURE(dirac_sim_s(r.sim)[0] < -0.05);   // the entropy did fall
        for (int k = 0; k < dirac_sim_warning_count(r.sim); k++)
            fprintf(stderr, "  %s\n", dirac_sim_warning(r.sim, k));
        ENSURE_EQ_INT(dirac_sim_warning_count(r.sim), 0);
    }
    run_close(&r);
}

static void heater_is_no_violation(void)
{
    // a body heated by P = P0 sin(w t) and nothing else: dS/dt = P/T with T = T0 exp(S/C), so
    // S(t) = C log(1 + P0 (1 − cos w t)/(C T0 w)); its entropy rises and falls with no entropy
    // produced at all, at 21 steps per period (dt = 0.1)
    const char *text = "model heater\n"
                       "parameter C = 2, T0 = 300, P0 = 50, w = 3\n"
                       "entropy S\n"
                       "lagrangian -C*T0*exp(S/C)\n"
                       "heat_input S: P0*sin(w*t)\n";
    const char *methods[] = { "dgrad", "midpoint" };
    for (int k = 0; k < 2; k++) {
        dirac_sim_options o = { .method = methods[k], .dt = 0.1 };
        run r;
        if (run_open_with(&r, text, NULL, 0, &o) && run_steps(&r, 200)) {
            double t = dirac_sim_time(r.sim);
            double exact = 2.0 * log(1.0 + 50.0 * (1.0 - cos(3.0 * t)) / (2.0 * 300.0 * 3.0));
            dirac_sim_quality q;
            dirac_sim_quality_get(r.sim, &q);
            printf("  heater, %s: S(%g) = %.6f (exact %.6f), relative entropy decrease %.2e\n",
                   methods[k], t, dirac_sim_s(r.sim)[0], exact, q.entropy_decrease);
            // a second-order method at w dt = 0.3: error ~ (w dt)^2 / 12 of the amplitude 0.16
            ENSURE_NEAR(dirac_sim_s(r.sim)[0], exact, 2e-3);
            ENSURE_LE(q.entropy_decrease, DIRAC_WARN_ENTROPY / 100);
            ENSURE_EQ_INT(dirac_sim_warning_count(r.sim), 0);
        }
        run_close(&r);
    }
}

TEST_MAIN(TEST(examples_have_no_warnings), TEST(euler_on_spring_chain),
          TEST(dirac1_stretches_the_double_pendulum), TEST(rk4_past_the_end_of_a_constraint),
          TEST(nonfinite_output_fails_the_step), TEST(entropy_decrease),
          TEST(cooling_is_no_violation), TEST(heater_is_no_violation))
