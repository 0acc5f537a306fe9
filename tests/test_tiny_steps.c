// Newton's stopping rule at tiny steps (issue 12, item 3: "smaller dt must never make a result
// worse"). Every implicit method runs 2000 steps at h = 1e-3, 1e-5, 1e-7, 1e-9 and 1e-10 on a
// pendulum in Cartesian coordinates (holonomic rod); the angle at t = 2000 h is compared with
// the exact solution of θ'' = −(g/l) sin θ (Jacobi elliptic functions, problems.h; independent
// of dirac). The bound is truncation plus rounding accumulation,
//   |θ − θ_ref| ≤ C h^p t + n_steps ε_acc,
// with p the method's order, C from the measured h = 1e-3 error (times a margin) and ε_acc =
// 8 ε l (each step rounds q_{k+1} = q_k + Δq at ε |q| and the constraint fixes Δq's normal
// part only to the rounding of φ, ~ε l²/|∇φ|; 8 covers the few such roundings per step;
// measured at most 2.9e-14 = 0.07 ε per step, at h = 1e-10).
// Before the rounding floor was made invariant under the 1/h scaling of the momentum rows,
// midpoint, dirac2, dgrad and lobatto3/4 stopped at h <= 1e-5 ("did not converge").
// Also a Cartesian double pendulum and a DC motor (gyrator two-form, far from the origin) at
// h = 1e-9: they must complete, within the same kind of bound.
#include "harness.h"
#include "problems.h"
#include "sim_run.h"

#include <float.h>

#define G 9.81
#define L 1.0
#define THETA0 0.5
#define STEPS 2000L

static void pendulum_every_step_size(void)
{
    static const struct { const char *name; int order; double c; } methods[] = {
        // c: measured error / (h^p t) at h = 1e-3 (1e-5 for dirac1), times ~10 (margin):
        // midpoint 0.098, dirac1 2.4, dirac2 0.098, dgrad 0.15, lobatto3 0.014; lobatto4 is at
        // rounding already at h = 1e-3 (1.1e-16)
        { "midpoint", 2, 1.0 }, { "dirac1", 1, 25.0 }, { "dirac2", 2, 1.0 },
        { "dgrad", 2, 2.0 },    { "lobatto3", 4, 0.2 }, { "lobatto4", 6, 1.0 },
    };
    static const double steps_sizes[] = { 1e-3, 1e-5, 1e-7, 1e-9, 1e-10 };
    for (size_t k = 0; k < sizeof methods / sizeof methods[0]; k++)
        for (size_t j = 0; j < sizeof steps_sizes / sizeof steps_sizes[0]; j++) {
            double h = steps_sizes[j];
            run r;
            if (!run_open_method(&r, PENDULUM_MODEL, methods[k].name, h))
                continue;
            if (run_steps(&r, STEPS)) {
                double t = dirac_sim_time(r.sim);
                double theta_ref = pendulum_angle(G, L, THETA0, t, NULL);   // exact
                const double *q = dirac_sim_q(r.sim);
                double error = fabs(atan2(q[0], -q[1]) - theta_ref);
                double bound = methods[k].c * pow(h, methods[k].order) * t +
                               (double)STEPS * 8.0 * DBL_EPSILON * L;
                printf("  %-8s h = %-6g t = %-8g angle error %.2e (bound %.1e) C %.3g\n",
                       methods[k].name, h, t, error, bound, error / (pow(h, methods[k].order) * t));
                ENSURE_LE(error, bound);
            }
            run_close(&r);
        }
}

static const char *const implicit_methods[] = { IMPLICIT_METHODS };

// At h = 1e-9 the truncation error (≤ C h t = 2.5e-14 for dirac1, less for the others) is below
// the rounding bound 2000 · 8 ε (|l1| + |l2|).
static void double_pendulum_tiny_step(void)
{
    const char *text = DOUBLE_PENDULUM_TEXT;
    double_pendulum pendulum2 = double_pendulum_default();
    for (size_t k = 0; k < sizeof implicit_methods / sizeof implicit_methods[0]; k++) {
        run r;
        if (!run_open_method(&r, text, implicit_methods[k], 1e-9))
            continue;
        if (run_steps(&r, STEPS)) {
            double y[4];
            double_pendulum_reference(&pendulum2, 0.9, -0.4, dirac_sim_time(r.sim), 2000, y);
            double error = double_pendulum_angle_error(dirac_sim_q(r.sim), y);
            double bound = 25.0 * 1e-9 * dirac_sim_time(r.sim) +
                           (double)STEPS * 8.0 * DBL_EPSILON *
                               (DOUBLE_PENDULUM_L1 + DOUBLE_PENDULUM_L2) / DOUBLE_PENDULUM_L2;
            printf("  %-8s double pendulum h = 1e-9: angle error %.2e (bound %.1e)\n",
                   implicit_methods[k], error, bound);
            ENSURE_LE(error, bound);
        }
        run_close(&r);
    }
}

// A DC motor (armature and rotor joined by the gyrator two-form K dq ∧ dθ) at its analytic
// steady state ω = V0 K / (R b + K²) = 150 rad/s, far from the origin (θ0 = 1e4), at h = 1e-9:
// a fixed point of every scheme (linear forces), so the speed must stay at ω to rounding
// (bound 1e-12 ω = 4500 ε ω, as at the larger steps of test_newton_scales).
static void motor_tiny_step(void)
{
    const char *text = DC_MOTOR_TEXT;
    const double omega = DC_MOTOR_OMEGA_SS;
    for (size_t k = 0; k < sizeof implicit_methods / sizeof implicit_methods[0]; k++) {
        run r;
        if (!run_open_method(&r, text, implicit_methods[k], 1e-9))
            continue;
        if (run_steps(&r, STEPS)) {
            double error = fabs(dirac_sim_v(r.sim)[1] - omega);
            printf("  %-8s motor h = 1e-9: |omega - omega_ss| %.2e\n", implicit_methods[k], error);
            ENSURE_LE(error, 1e-12 * omega);
        }
        run_close(&r);
    }
}

TEST_MAIN(TEST(pendulum_every_step_size), TEST(double_pendulum_tiny_step), TEST(motor_tiny_step))
