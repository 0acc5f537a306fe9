// Newton's stopping rule across magnitudes (issue 12, items 2 and 3):
// - far from the origin: a free mass at x0 = 1e6 with velocity 150 (exact solution x0 + v t)
//   for h = 1e-3 … 1e-6 with every method; the error may only be rounding accumulation,
//   |x − x_exact| ≤ 4 n_steps ε |x| and |v − v0| ≤ 4 n_steps ε |v|·… (no 1/h growth);
// - a DC motor (armature and rotor joined by the gyrator two-form K dq ∧ dθ) started at its
//   analytic steady state ω = V0 K / (R b + K²) = 150 rad/s far from the origin (θ0 = 1e4):
//   the steady state is a fixed point of every scheme (linear forces), so after 2000 steps at
//   every h = 1e-3 … 1e-6 the speed must equal it to rounding (bound 1e-12 ω: 4500 ε ω; before
//   increments, midpoint/dirac1/dirac2 were off by 3.6e-10, 3.1e-8 and 1.5e-7 at 1e-3, 1e-5, 1e-6);
// - blocks of zero magnitude: a Cartesian double pendulum started at rest (every velocity and
//   momentum exactly zero at step 1) with every implicit method, against the minimal-coordinate
//   ODE in the two angles integrated here by classical RK4 at h = 1e-5 (independent of dirac).
#include "harness.h"
#include "problems.h"
#include "sim_run.h"

#include <float.h>

static const char *const every_method[] = { "midpoint", "dirac1", "dirac2", "dgrad",
                                            "lobatto3", "lobatto4", "rk4", "euler" };

static void far_from_origin(void)
{
    const char *text = "model far\n"
                       "parameter m = 2, x0 = 1e6, v0 = 150\n"
                       "coordinate x\n"
                       "lagrangian m/2*x'^2\n"
                       "initial x = x0, x' = v0\n";
    for (size_t k = 0; k < sizeof every_method / sizeof every_method[0]; k++)
        for (double h = 1e-3; h >= 0.99e-6; h /= 10.0) {
            run r;
            if (!run_open_method(&r, text, every_method[k], h))
                continue;
            long steps = 2000;   // t = 2000 h; the exact solution is x0 + v0 t
            run_steps(&r, steps);
            double t = dirac_sim_time(r.sim), x = dirac_sim_q(r.sim)[0], v = dirac_sim_v(r.sim)[0];
            double x_error = fabs(x - (1e6 + 150.0 * t)), v_error = fabs(v - 150.0);
            // bound: rounding of q_{k+1} = q_k + Δq (ε |x| per step) and of t itself
            double x_bound = 4.0 * (double)steps * DBL_EPSILON * 1e6;
            // the velocity is Δq / h with Δq exact to ε |Δq|: ε |v| per step at most
            double v_bound = 4.0 * (double)steps * DBL_EPSILON * 150.0;
            printf("  %-8s h = %-6g |x - exact| %.2e (bound %.1e)  |v - v0| %.2e (bound %.1e)\n",
                   every_method[k], h, x_error, x_bound, v_error, v_bound);
            ENSURE_LE(x_error, x_bound);
            ENSURE_LE(v_error, v_bound);
            run_close(&r);
        }
}

static void motor_steady_speed(void)
{
    const char *text = DC_MOTOR_TEXT;
    const double omega = DC_MOTOR_OMEGA_SS;
    static const char *const methods[] = { "midpoint", "dirac1", "dirac2", "dgrad",
                                           "lobatto3", "lobatto4", "rk4" };
    for (size_t k = 0; k < sizeof methods / sizeof methods[0]; k++)
        for (double h = 1e-3; h >= 0.99e-6; h /= 10.0) {
            run r;
            if (!run_open_method(&r, text, methods[k], h))
                continue;
            run_steps(&r, 2000);
            double error = fabs(dirac_sim_v(r.sim)[1] - omega);
            printf("  %-8s h = %-6g |omega - omega_ss| %.2e\n", methods[k], h, error);
            ENSURE_LE(error, 1e-12 * omega);
            run_close(&r);
        }
}

static const char pendulum_text[] = DOUBLE_PENDULUM_TEXT;

static const char *const implicit_methods[] = { IMPLICIT_METHODS };

// Hanging at rest (a1 = a2 = 0): an equilibrium, so every velocity and momentum stays exactly
// zero while the multipliers carry the weights; the exact solution is q(t) = q0. Before the
// rounding floor, lobatto3, lobatto4 and dgrad stopped at step 1 (updates of 1e-34 against an
// allowed 0).
static void mechanism_in_equilibrium(void)
{
    const char *overrides[] = { "a1=0", "a2=0" };
    for (size_t k = 0; k < sizeof implicit_methods / sizeof implicit_methods[0]; k++) {
        dirac_sim_options options = { 0 };
        options.method = implicit_methods[k];
        options.dt = 1e-3;
        run r;
        if (!run_open_with(&r, pendulum_text, overrides, 2, &options))
            continue;
        if (run_steps(&r, 500)) {
            const double *q = dirac_sim_q(r.sim), *v = dirac_sim_v(r.sim);
            double drift = fmax(fmax(fabs(q[0]), fabs(q[2])),
                                fmax(fabs(q[1] + 1.0), fabs(q[3] + 1.7)));
            double speed = fmax(fmax(fabs(v[0]), fabs(v[1])), fmax(fabs(v[2]), fabs(v[3])));
            printf("  %-8s at rest: |q - q0| %.1e, |v| %.1e after 500 steps\n",
                   implicit_methods[k], drift, speed);
            ENSURE_LE(drift, 1e-13);   // rounding of the equilibrium: a few ε per step
            ENSURE_LE(speed, 1e-12);
        }
        run_close(&r);
    }
}

static void mechanism_at_rest(void)
{
    const char *text = pendulum_text;
    double t_end = 0.5, y[4];
    double_pendulum pendulum2 = double_pendulum_default();
    double_pendulum_reference(&pendulum2, 0.9, -0.4, t_end, lround(t_end / 1e-5), y);   // RK4 at h = 1e-5
    // every method that handles holonomic constraints with a regular Lagrangian, implicit
    static const struct { const char *name; double h, tol; } cases[] = {
        // tolerances: C h^p with the method's order p and C ≈ 30 (measured errors 0.1–0.5 of it)
        { "midpoint", 1e-3, 3e-5 }, { "dirac2", 1e-3, 3e-5 }, { "dgrad", 1e-3, 3e-5 },
        { "dirac1", 1e-4, 1e-3 },   { "lobatto3", 1e-2, 3e-7 }, { "lobatto4", 2e-2, 3e-8 },
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        run r;
        if (!run_open_method(&r, text, cases[k].name, cases[k].h))
            continue;
        if (!run_steps(&r, lround(t_end / cases[k].h))) {
            run_close(&r);
            continue;
        }
        const double *q = dirac_sim_q(r.sim);
        double error = double_pendulum_angle_error(q, y);
        printf("  %-8s h = %-6g angle error %.2e (tolerance %.0e)\n", cases[k].name, cases[k].h,
               error, cases[k].tol);
        ENSURE_LE(error, cases[k].tol);
        run_close(&r);
    }
}

TEST_MAIN(TEST(far_from_origin), TEST(motor_steady_speed), TEST(mechanism_in_equilibrium),
          TEST(mechanism_at_rest))
