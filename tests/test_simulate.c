// Integrators: observed convergence orders, constraint and energy behaviour of midpoint over
// long runs, the pendulum's period against the elliptic integral, analytic solutions
// (harmonic oscillator, LC circuit, charged particle), discrete energy balance with damping,
// nonholonomic constraints, failures and refusals.
#include "harness.h"
#include "problems.h"
#include "sim_run.h"

#include <dirac/dirac.h>

#include <stdlib.h>

static int run_open(run *r, const char *text, const char *method, double dt,
                    const char *const *overrides, int n_overrides)
{
    dirac_sim_options options = { .method = method, .dt = dt };
    return run_open_with(r, text, overrides, n_overrides, &options);
}

// A knife edge (nonholonomic, non-integrable) turning under a torque and a spring.
static const char knife_edge[] = "model knife\n"
                                 "parameter m = 1, J = 0.2, k = 2\n"
                                 "coordinate x, y, th\n"
                                 "lagrangian m/2*(x'^2 + y'^2) + J/2*th'^2 - k/2*(x^2 + y^2)\n"
                                 "force th: 0.3*cos(t)\n"
                                 "constraint blade: x'*sin(th) - y'*cos(th) = 0\n"
                                 "initial x = 0.2, th' = 1, x' = 1\n";

// Position error |q(T) − q_ref(T)| of `method` with step h.
static double position_error(const char *text, const char *method, double h, double t_end,
                             const double *reference)
{
    run r;
    if (!run_open(&r, text, method, h, NULL, 0))
        return NAN;
    long steps = lround(t_end / h);
    double error = NAN;
    if (run_steps(&r, steps))
        error = run_position_distance(&r, reference);
    run_close(&r);
    return error;
}

// Observed order from h, h/2, h/4 (least squares slope of log error vs log h).
static void check_orders(const char *text, const char *name, double h0, double t_end)
{
    static const struct { const char *method; double order; } expected[] = {
        { "euler", 1 }, { "dirac1", 1 }, { "dirac2", 2 }, { "midpoint", 2 }, { "dgrad", 2 },
        { "rk4", 4 },
    };
    // reference: rk4 with a step 64 times smaller than the smallest tested
    run r;
    double reference[8] = { 0 };
    if (!run_open(&r, text, "rk4", h0 / 256, NULL, 0))
        return;
    run_steps(&r, lround(t_end / (h0 / 256)));
    memcpy(reference, dirac_sim_q(r.sim), (size_t)dirac_model_coordinate_count(r.model) * sizeof(double));
    run_close(&r);
    for (size_t k = 0; k < sizeof expected / sizeof expected[0]; k++) {
        double e[3], h = expected[k].order == 4 ? 4 * h0 : h0;
        for (int j = 0; j < 3; j++)
            e[j] = position_error(text, expected[k].method, h / (1 << j), t_end, reference);
        double order = (log(e[0]) - log(e[2])) / log(4.0);
        printf("       %-8s %-9s errors %.3e %.3e %.3e  order %.3f\n", name, expected[k].method,
               e[0], e[1], e[2], order);
        ENSURE_NEAR(order, expected[k].order, 0.15);
    }
}

static void convergence_orders_pendulum(void)
{
    check_orders(PENDULUM_MODEL, "pendulum", 0.01, 1.0);
}

static void convergence_orders_nonholonomic(void)
{
    check_orders(knife_edge, "knife", 0.01, 1.0);
}

static void midpoint_long_run_pendulum(void)
{
    // 10^5 steps: |φ| ≤ 1e-12 at every step; energy error over [0, 10T] ≤ 1.2 × over [0, T]
    run r;
    double h = 1e-3;
    if (!run_open(&r, PENDULUM_MODEL, "midpoint", h, NULL, 0))
        return;
    double period = pendulum_period(PENDULUM_G, PENDULUM_L, PENDULUM_THETA0);
    double e0 = dirac_sim_energy(r.sim), worst_phi = 0.0, worst_first = 0.0, worst_ten = 0.0;
    for (long k = 1; k <= 100000; k++) {
        if (dirac_sim_step(r.sim) != DIRAC_OK) {
            ENSURE(!"step failed");
            break;
        }
        double t = dirac_sim_time(r.sim), de = fabs(dirac_sim_energy(r.sim) - e0);
        worst_phi = fmax(worst_phi, dirac_sim_constraint_residual(r.sim));
        if (t <= period)
            worst_first = fmax(worst_first, de);
        if (t <= 10 * period)
            worst_ten = fmax(worst_ten, de);
    }
    printf("       max |phi| %.2e, energy error over T %.3e, over 10T %.3e, after 1e5 steps %.3e\n",
           worst_phi, worst_first, worst_ten, fabs(dirac_sim_energy(r.sim) - e0));
    ENSURE_LE(worst_phi, 1e-12);
    ENSURE_LE(worst_ten, 1.2 * worst_first);
    ENSURE_LE(fabs(dirac_sim_energy(r.sim) - e0), 1.2 * worst_first);
    run_close(&r);
}

// Times of upward zero crossings of coordinate i, by cubic Hermite interpolation.
static int crossings(run *r, int i, long steps, double *times, int max)
{
    int count = 0;
    double t0 = dirac_sim_time(r->sim), x0 = dirac_sim_q(r->sim)[i], v0 = dirac_sim_v(r->sim)[i];
    for (long k = 0; k < steps && count < max; k++) {
        if (dirac_sim_step(r->sim) != DIRAC_OK) {
            fprintf(stderr, "  %s\n", dirac_sim_errmsg(r->sim));
            break;
        }
        double t1 = dirac_sim_time(r->sim), x1 = dirac_sim_q(r->sim)[i], v1 = dirac_sim_v(r->sim)[i];
        if (x0 < 0.0 && x1 >= 0.0) {
            // Newton on the Hermite cubic through (t0, x0, v0), (t1, x1, v1)
            double dt = t1 - t0, s = -x0 / (x1 - x0);
            for (int it = 0; it < 20; it++) {
                double h00 = 2 * s * s * s - 3 * s * s + 1, h10 = s * s * s - 2 * s * s + s;
                double h01 = -2 * s * s * s + 3 * s * s, h11 = s * s * s - s * s;
                double f = h00 * x0 + h10 * dt * v0 + h01 * x1 + h11 * dt * v1;
                double df = (6 * s * s - 6 * s) * x0 + (3 * s * s - 4 * s + 1) * dt * v0 +
                            (-6 * s * s + 6 * s) * x1 + (3 * s * s - 2 * s) * dt * v1;
                s -= f / df;
            }
            times[count++] = t0 + s * dt;
        }
        t0 = t1, x0 = x1, v0 = v1;
    }
    return count;
}

static void midpoint_pendulum_period(void)
{
    // T = 4 sqrt(l/g) K(sin(θ0/2)); midpoint's period error is O(h²): at h = 2.5e-4 about 5e-8
    run r;
    double h = 2.5e-4, times[8];
    if (!run_open(&r, PENDULUM_MODEL, "midpoint", h, NULL, 0))
        return;
    double exact = pendulum_period(PENDULUM_G, PENDULUM_L, PENDULUM_THETA0);
    int count = crossings(&r, 0, lround(5 * exact / h), times, 8);
    ENSURE(count >= 3);
    if (count >= 3) {
        double measured = (times[count - 1] - times[0]) / (count - 1);
        printf("       period %.12f, exact %.12f, relative error %.2e\n", measured, exact,
               fabs(measured - exact) / exact);
        ENSURE_LE(fabs(measured - exact) / exact, 1e-6);
    }
    run_close(&r);
}

static void harmonic_oscillator_analytic(void)
{
    // x = x0 cos ωt + (v0/ω) sin ωt; midpoint conserves the quadratic energy exactly
    static const char text[] = "model ho\nparameter m = 2, k = 8\ncoordinate x\n"
                               "lagrangian m/2*x'^2 - k/2*x^2\ninitial x = 1, x' = 0.5\n";
    run r;
    double h = 1e-3, w = 2.0;
    if (!run_open(&r, text, "midpoint", h, NULL, 0))
        return;
    double e0 = dirac_sim_energy(r.sim), worst_x = 0.0, worst_e = 0.0;
    for (long k = 1; k <= 10000; k++) {
        if (dirac_sim_step(r.sim) != DIRAC_OK)
            break;
        double t = dirac_sim_time(r.sim);
        double x = cos(w * t) + 0.5 / w * sin(w * t);
        worst_x = fmax(worst_x, fabs(dirac_sim_q(r.sim)[0] - x));
        worst_e = fmax(worst_e, fabs(dirac_sim_energy(r.sim) - e0));
    }
    // the midpoint rule's phase error is (ωh)²ωt/12 per unit amplitude: 1.1e-5 at t = 10;
    // the quadratic energy is conserved up to rounding accumulated over 10^4 steps (4ε each)
    printf("       max |x - x_exact| %.3e, max |E - E0| %.3e\n", worst_x, worst_e);
    ENSURE_LE(worst_x, 1.2 * pow(w * h, 2) * w * 10 / 12 * sqrt(1 + 0.0625));
    ENSURE_LE(worst_e, 1e4 * 4 * 2.2e-16 * e0);
    run_close(&r);
}

static void damped_oscillator_energy_balance(void)
{
    // E_k − E_0 equals the discrete work of the damping force Σ F(q̄, v̄)·(q_{k+1} − q_k)
    static const char text[] = "model damped\nparameter m = 1, k = 4, c = 0.3\ncoordinate x\n"
                               "lagrangian m/2*x'^2 - k/2*x^2\nforce x: -c*x'\n"
                               "initial x = 1\n";
    run r;
    if (!run_open(&r, text, "midpoint", 1e-2, NULL, 0))
        return;
    double e0 = dirac_sim_energy(r.sim), worst = 0.0;
    for (long k = 1; k <= 2000; k++) {
        if (dirac_sim_step(r.sim) != DIRAC_OK)
            break;
        worst = fmax(worst, fabs(dirac_sim_energy(r.sim) - e0 - dirac_sim_work(r.sim)));
    }
    printf("       energy lost %.6f of %.6f, balance error %.2e\n",
           e0 - dirac_sim_energy(r.sim), e0, worst);
    ENSURE(e0 - dirac_sim_energy(r.sim) > 0.9 * e0);   // the damping really acted
    ENSURE_LE(worst, 1e-10);
    run_close(&r);
}

static const char lc_circuit[] = "model lc\n"
                                 "parameter Lind = 0.5, C = 2e-3\n"
                                 "coordinate qL, qC\n"
                                 "lagrangian Lind/2*qL'^2 - qC^2/(2*C)\n"
                                 "constraint kcl: qL' = qC'\n"
                                 "initial qL = 1e-3, qC = 1e-3\n";

static void lc_circuit_degenerate(void)
{
    // degenerate L (no qC' term): frequency 1/sqrt(LC) = 31.62 rad/s; no period-2 mode: the
    // solution stays on the smooth analytic curve q = q0 cos ωt to O(h²)
    run r;
    double h = 1e-4, w = 1.0 / sqrt(0.5 * 2e-3);
    if (!run_open(&r, lc_circuit, "midpoint", h, NULL, 0))
        return;
    double worst = 0.0, worst_kcl = 0.0, worst_alternation = 0.0, prev2 = 1e-3, prev1 = 1e-3;
    for (long k = 1; k <= 20000; k++) {
        if (dirac_sim_step(r.sim) != DIRAC_OK)
            break;
        double t = dirac_sim_time(r.sim), q = dirac_sim_q(r.sim)[1];
        worst = fmax(worst, fabs(q - 1e-3 * cos(w * t)));
        worst_kcl = fmax(worst_kcl, fabs(dirac_sim_v(r.sim)[0] - dirac_sim_v(r.sim)[1]));
        // period-2 indicator: second difference beyond the smooth h²ω²|q|
        worst_alternation = fmax(worst_alternation, fabs(q - 2 * prev1 + prev2) - h * h * w * w * 1e-3);
        prev2 = prev1, prev1 = q;
    }
    printf("       max |qC - q0 cos wt| %.3e (amplitude 1e-3), KCL residual %.2e, "
           "alternation %.2e\n", worst, worst_kcl, worst_alternation);
    ENSURE_LE(worst, 1e-3 * pow(w * h, 2) * w * 2.0 / 12 * 1.2);
    ENSURE_LE(worst_kcl, 1e-12 * w * 1e-3);
    ENSURE_LE(worst_alternation, 1e-12);
    run_close(&r);
}

static void velocity_linear_lagrangian(void)
{
    // L = x y' − (x² + y²)/2 is linear in the velocities (p = (0, x)): no ODE in the usual
    // sense, the equations are x' = −y, y' = x. Explicit methods refuse; midpoint follows the
    // circle (H = (x² + y²)/2 conserved) with no period-2 mode.
    static const char text[] = "model rotation\ncoordinate x, y\n"
                               "lagrangian x*y' - (x^2 + y^2)/2\ninitial x = 1\n";
    run r;
    double h = 1e-3;
    if (!run_open(&r, text, "midpoint", h, NULL, 0))
        return;
    double worst = 0.0, worst_e = 0.0, e0 = dirac_sim_energy(r.sim);
    for (long k = 1; k <= 10000; k++) {
        if (dirac_sim_step(r.sim) != DIRAC_OK) {
            fprintf(stderr, "  %s\n", dirac_sim_errmsg(r.sim));
            ENSURE(!"step failed");
            break;
        }
        double t = dirac_sim_time(r.sim);
        const double *q = dirac_sim_q(r.sim);
        worst = fmax(worst, hypot(q[0] - cos(t), q[1] - sin(t)));
        worst_e = fmax(worst_e, fabs(dirac_sim_energy(r.sim) - e0));
    }
    printf("       max |q - (cos t, sin t)| %.3e, max |E - E0| %.2e\n", worst, worst_e);
    ENSURE_LE(worst, 1.2 * h * h * 10 / 12);   // phase error (h²/12) t
    ENSURE_LE(worst_e, 1e-12);
    run_close(&r);
    dirac_spec *spec = NULL;
    dirac_model *model = NULL;
    dirac_sim *sim = NULL;
    dirac_error err;
    ENSURE(dirac_spec_parse("rotation.dirac", text, strlen(text), &spec) == DIRAC_OK);
    ENSURE(dirac_model_compile(spec, &model) == DIRAC_OK);
    dirac_sim_options options = { .method = "rk4", .dt = 1e-3 };
    ENSURE_EQ_INT(dirac_sim_create(model, &options, &sim, &err), DIRAC_ERR_UNSUPPORTED);
    ENSURE_CONTAINS(err.message, "needs an ODE");
    ENSURE(sim == NULL);
    dirac_model_destroy(model);
    dirac_spec_destroy(spec);
}

static void nonholonomic_velocity_constraint(void)
{
    run r;
    if (!run_open(&r, knife_edge, "midpoint", 1e-3, NULL, 0))
        return;
    double worst = 0.0;
    for (long k = 1; k <= 20000; k++) {
        if (dirac_sim_step(r.sim) != DIRAC_OK)
            break;
        worst = fmax(worst, dirac_sim_velocity_constraint_residual(r.sim));
    }
    printf("       max |<omega, v>| %.2e\n", worst);
    ENSURE_LE(worst, 1e-12);
    run_close(&r);
}

static void charged_particle(void)
{
    // F = e v × B: speed conserved, radius m v / (e B) = 2 * 1.5 / (0.5 * 3) = 2
    static const char text[] = "model particle\nparameter m = 2, e = 0.5, B = 3\n"
                               "coordinate x, y\nlagrangian m/2*(x'^2 + y'^2)\n"
                               "twoform lorentz: e*B * d(x) ^ d(y)\ninitial x' = 1.5\n";
    run r;
    if (!run_open(&r, text, "midpoint", 1e-3, NULL, 0))
        return;
    double xmin = 0, xmax = 0, ymin = 0, ymax = 0, worst_speed = 0.0;
    for (long k = 1; k <= 20000; k++) {
        if (dirac_sim_step(r.sim) != DIRAC_OK)
            break;
        const double *q = dirac_sim_q(r.sim), *v = dirac_sim_v(r.sim);
        xmin = fmin(xmin, q[0]), xmax = fmax(xmax, q[0]);
        ymin = fmin(ymin, q[1]), ymax = fmax(ymax, q[1]);
        worst_speed = fmax(worst_speed, fabs(hypot(v[0], v[1]) - 1.5));
    }
    printf("       speed error %.2e, diameters %.6f %.6f (expected 4)\n", worst_speed, xmax - xmin,
           ymax - ymin);
    ENSURE_LE(worst_speed, 2e4 * 16 * 2.2e-16 * 1.5);   // rounding over 2·10^4 steps
    ENSURE_NEAR(xmax - xmin, 4.0, 1e-4);
    ENSURE_NEAR(ymax - ymin, 4.0, 1e-4);
    run_close(&r);
}

static void newton_failure_is_reported(void)
{
    // a huge step: the position equations have no nearby solution
    run r;
    if (!run_open(&r, PENDULUM_MODEL, "midpoint", 5.0, NULL, 0))
        return;
    ENSURE(run_until_failure(&r, 20) != DIRAC_OK);
    ENSURE_CONTAINS(dirac_sim_errmsg(r.sim), "from t = ");
    ENSURE(isfinite(dirac_sim_q(r.sim)[0]) && isfinite(dirac_sim_q(r.sim)[1]));
    printf("       %s\n", dirac_sim_errmsg(r.sim));
    run_close(&r);
}

static void inconsistent_initial_state(void)
{
    static const char text[] = "model pendulum\nparameter l = 1\ncoordinate x, y\n"
                               "lagrangian (x'^2 + y'^2)/2 - 9.81*y\n"
                               "constraint rod: x^2 + y^2 = l^2\n"
                               "initial x = 0.5, y = -0.9, x' = 1, y' = 1\n";
    dirac_spec *spec = NULL;
    dirac_model *model = NULL;
    dirac_sim *sim = NULL;
    dirac_error err;
    ENSURE(dirac_spec_parse("p.dirac", text, strlen(text), &spec) == DIRAC_OK);
    ENSURE(dirac_model_compile(spec, &model) == DIRAC_OK);
    dirac_sim_options options = { .method = "midpoint", .dt = 1e-3 };
    ENSURE_EQ_INT(dirac_sim_create(model, &options, &sim, &err), DIRAC_ERR_ARGUMENT);
    ENSURE_CONTAINS(err.message, "violates constraint 'rod' (residual 6.000e-02)");
    options.project_initial = 1;
    ENSURE(dirac_sim_create(model, &options, &sim, &err) == DIRAC_OK);
    if (sim) {
        const double *q = dirac_sim_q(sim), *v = dirac_sim_v(sim);
        ENSURE_NEAR(hypot(q[0], q[1]), 1.0, 1e-14);
        ENSURE_NEAR(q[0] * v[0] + q[1] * v[1], 0.0, 1e-14);
        ENSURE(dirac_sim_projection_distance(sim) > 0.01);
    }
    dirac_sim_destroy(sim);
    dirac_model_destroy(model);
    dirac_spec_destroy(spec);
}

static void sparse_equals_dense(void)
{
    // the KLU and LAPACK paths solve the same Newton systems: trajectories agree to rounding
    char *text = pendulum_chain_model(20, 0.5, 0.3);   // rods 0.5 long, tilted by 0.3 rad
    ENSURE(text != NULL);
    const char *methods[] = { "midpoint", "dgrad", "dirac1", "rk4" };
    for (size_t k = 0; text && k < sizeof methods / sizeof methods[0]; k++) {
        dirac_spec *spec = NULL;
        dirac_model *model = NULL;
        dirac_sim *dense = NULL, *sparse = NULL;
        dirac_error err;
        ENSURE(dirac_spec_parse("chain.dirac", text, strlen(text), &spec) == DIRAC_OK);
        ENSURE(dirac_model_compile(spec, &model) == DIRAC_OK);
        dirac_sim_options options = { .method = methods[k], .dt = 1e-3,
                                      .linear_solver = DIRAC_LINEAR_DENSE };
        ENSURE(model && dirac_sim_create(model, &options, &dense, &err) == DIRAC_OK);
        options.linear_solver = DIRAC_LINEAR_SPARSE;
        ENSURE(model && dirac_sim_create(model, &options, &sparse, &err) == DIRAC_OK);
        double worst = 0.0, scale = 0.0;
        for (int step = 0; dense && sparse && step < 200; step++) {
            if (dirac_sim_step(dense) != DIRAC_OK || dirac_sim_step(sparse) != DIRAC_OK) {
                ENSURE(!"step failed");
                break;
            }
            for (int i = 0; i < 40; i++) {
                worst = fmax(worst, fabs(dirac_sim_q(dense)[i] - dirac_sim_q(sparse)[i]));
                worst = fmax(worst, fabs(dirac_sim_v(dense)[i] - dirac_sim_v(sparse)[i]));
                scale = fmax(scale, fabs(dirac_sim_v(dense)[i]) + fabs(dirac_sim_q(dense)[i]));
            }
        }
        printf("       %-8s max |dense - sparse| %.2e (scale %.2f)\n", methods[k], worst, scale);
        // dgrad's solve stops at the rounding noise of its discrete gradient (updates below
        // 1e-9 relative that no longer shrink, src/newton.h), so its two paths differ by that
        ENSURE_LE(worst, (strcmp(methods[k], "dgrad") ? 1e-12 : 1e-9) * scale);
        dirac_sim_destroy(dense);
        dirac_sim_destroy(sparse);
        dirac_model_destroy(model);
        dirac_spec_destroy(spec);
    }
    free(text);
}

// Adaptive run of `method` to t_end with tolerance tol: the error of q at t_end against the
// reference, and checks along the way (constraints held at every accepted step).
static double adaptive_error(const char *method, double tol, const double *reference,
                             long *steps, long *rejected)
{
    run r;
    memset(&r, 0, sizeof r);
    ENSURE(dirac_spec_parse("p.dirac", PENDULUM_MODEL, strlen(PENDULUM_MODEL), &r.spec) == DIRAC_OK);
    ENSURE(r.spec && dirac_model_compile(r.spec, &r.model) == DIRAC_OK);
    dirac_sim_options options = { .method = method, .dt = 1e-3, .adaptive_rtol = tol,
                                  .adaptive_atol = tol };
    dirac_error err;
    double error = NAN, worst_phi = 0.0;
    *steps = 0;
    if (r.model && dirac_sim_create(r.model, &options, &r.sim, &err) == DIRAC_OK) {
        int ok = 1;
        while (ok && dirac_sim_time(r.sim) < 1.0 - 1e-14) {
            double rest = 1.0 - dirac_sim_time(r.sim);
            if (dirac_sim_next_step_size(r.sim) > rest)
                ENSURE(dirac_sim_set_next_step_size(r.sim, rest) == DIRAC_OK);
            ok = dirac_sim_step(r.sim) == DIRAC_OK;
            worst_phi = fmax(worst_phi, dirac_sim_constraint_residual(r.sim));
            (*steps)++;
        }
        ENSURE(ok);
        ENSURE_NEAR(dirac_sim_time(r.sim), 1.0, 1e-14);
        error = hypot(dirac_sim_q(r.sim)[0] - reference[0], dirac_sim_q(r.sim)[1] - reference[1]);
        *rejected = dirac_sim_rejected_steps(r.sim);
    }
    if (!strcmp(method, "midpoint"))
        ENSURE_LE(worst_phi, 1e-12);   // every accepted step is a step of the method
    run_close(&r);
    return error;
}

static void adaptive_step_size(void)
{
    // step doubling: tighter tolerances give smaller errors (about proportionally, the global
    // error being a sum of controlled local errors), constraints stay exact, the run lands on
    // t_end; two-step methods are refused
    run r;
    double reference[2];
    if (!run_open(&r, PENDULUM_MODEL, "rk4", 1e-4, NULL, 0))
        return;
    run_steps(&r, 10000);
    memcpy(reference, dirac_sim_q(r.sim), sizeof reference);
    run_close(&r);
    const char *methods[] = { "midpoint", "rk4", "lobatto3" };
    for (size_t k = 0; k < sizeof methods / sizeof methods[0]; k++) {
        long steps_loose = 0, steps_tight = 0, rejected = 0;
        double loose = adaptive_error(methods[k], 1e-5, reference, &steps_loose, &rejected);
        double tight = adaptive_error(methods[k], 1e-9, reference, &steps_tight, &rejected);
        printf("       %-8s tol 1e-5: error %.2e in %ld steps; tol 1e-9: error %.2e in %ld steps "
               "(%ld rejected)\n", methods[k], loose, steps_loose, tight, steps_tight, rejected);
        ENSURE(tight < loose / 100.0);
        ENSURE(steps_tight > steps_loose);
        ENSURE_LE(tight, 1e-7);
    }
    dirac_spec *spec = NULL;
    dirac_model *model = NULL;
    dirac_sim *sim = NULL;
    dirac_error err;
    ENSURE(dirac_spec_parse("p.dirac", PENDULUM_MODEL, strlen(PENDULUM_MODEL), &spec) == DIRAC_OK);
    ENSURE(dirac_model_compile(spec, &model) == DIRAC_OK);
    dirac_sim_options options = { .method = "dirac2", .dt = 1e-3, .adaptive_rtol = 1e-6 };
    ENSURE_EQ_INT(dirac_sim_create(model, &options, &sim, &err), DIRAC_ERR_UNSUPPORTED);
    ENSURE_CONTAINS(err.message, "two-step method");
    dirac_model_destroy(model);
    dirac_spec_destroy(spec);
}

TEST_MAIN(TEST(convergence_orders_pendulum), TEST(convergence_orders_nonholonomic),
          TEST(midpoint_long_run_pendulum), TEST(midpoint_pendulum_period),
          TEST(harmonic_oscillator_analytic), TEST(damped_oscillator_energy_balance),
          TEST(lc_circuit_degenerate), TEST(velocity_linear_lagrangian),
          TEST(nonholonomic_velocity_constraint),
          TEST(charged_particle), TEST(newton_failure_is_reported),
          TEST(inconsistent_initial_state), TEST(sparse_equals_dense), TEST(adaptive_step_size))
