// libdirac's `lobatto4` and `dgrad` against separately written codes of the same schemes
// (bench/fixedpoint_reference.c: straight-line C for planar chains on rods, with their own
// iterations: simplified Newton on the stage multipliers alone for lobatto4, Newton on λ with
// q_{k+1} explicit for dgrad). On the Cartesian pendulum (1 rad) and double pendulum (unequal
// masses and rods) both sides solve the same equations, to 1e-13 relative (dgrad: 1e-14), so
// their trajectories may differ only by that tolerance per step, carried along the run: over
// at most 100 steps (t = 1), |Δq| ≤ 100 · 1e-13 · |q| (|q| ≤ 1.7) < 2e-11 and |Δp| ≤ 1e-10
// (the multipliers are resolved to ε/h² only, so p carries ~ε/h per step, 1e-14 at h = 0.01:
// 100× margin for the chaotic double pendulum's growth). The check has teeth: it also asserts
// that each scheme's global error at that h (against the same hand code at h/8) is far above
// the bound, and that the two schemes differ from each other by more.
// dgrad's first law on these models (no forces, no driven constraints): E conserved to
// rounding, |E_k − E_0| ≤ steps · 16 ε · max |⟨p, v⟩| (rounding of each step, added up).
#include "harness.h"
#include "problems.h"
#include "sim_run.h"

#include "../bench/fixedpoint_reference.h"

#include <float.h>
#include <math.h>

static const char pendulum_text[] = PENDULUM_ONE_RADIAN_MODEL;
static const char double_pendulum_text[] = DOUBLE_PENDULUM_TEXT;

typedef struct chain_problem {
    const char *text;
    int links;
    double m[2], l[2], g;
} chain_problem;

static const chain_problem problems[2] = {
    { pendulum_text, 1, { 1.0 }, { 1.0 }, 9.81 },
    { double_pendulum_text, 2, { DOUBLE_PENDULUM_M1, DOUBLE_PENDULUM_M2 },
      { DOUBLE_PENDULUM_L1, DOUBLE_PENDULUM_L2 }, DOUBLE_PENDULUM_G },
};

static int hand_step(const char *method, fixedpoint_chain *c)
{
    return strcmp(method, "lobatto4") == 0 ? fixedpoint_lobatto4_step(c)
                                           : fixedpoint_dgrad_step(c);
}

// Runs libdirac's `method` and the hand code in lockstep for t = 1 at step h; returns the
// largest differences in q and p, the hand code's global error (against itself at h/8) and
// its final q (for the comparison of the schemes).
static void compare(const chain_problem *pb, const char *method, double h, double *dq,
                    double *dp, double *global, double *q_end)
{
    const double rtol = strcmp(method, "dgrad") == 0 ? 1e-14 : 1e-13;
    dirac_sim_options options = { .method = method, .dt = h, .newton_rtol = rtol };
    run r;
    *dq = *dp = *global = HUGE_VAL;
    if (!run_open_with(&r, pb->text, NULL, 0, &options))
        return;
    int n = 2 * pb->links;
    double q0[4], v0[4];
    dirac_model_initial_state(r.model, q0, v0, NULL);
    fixedpoint_chain c, fine;
    ENSURE(fixedpoint_chain_init(&c, pb->links, pb->m, pb->l, pb->g, h, rtol, q0, v0) == 0);
    ENSURE(fixedpoint_chain_init(&fine, pb->links, pb->m, pb->l, pb->g, h / 8, rtol, q0, v0) ==
           0);
    long steps = lround(1.0 / h);
    double e0 = dirac_sim_energy(r.sim), energy_drift = 0.0, energy_scale = 0.0;
    *dq = *dp = 0.0;
    for (long k = 0; k < steps; k++) {
        if (!run_step(&r) || hand_step(method, &c) != 0) {
            ENSURE(!"both codes step");
            *dq = HUGE_VAL;
            break;
        }
        const double *q = dirac_sim_q(r.sim), *p = dirac_sim_p(r.sim), *v = dirac_sim_v(r.sim);
        double pv = 0.0;
        for (int i = 0; i < n; i++) {
            *dq = fmax(*dq, fabs(q[i] - c.chain.q[i]));
            *dp = fmax(*dp, fabs(p[i] - c.chain.p[i]));
            pv += fabs(p[i] * v[i]);
        }
        energy_scale = fmax(energy_scale, pv);
        energy_drift = fmax(energy_drift, fabs(dirac_sim_energy(r.sim) - e0));
    }
    for (long k = 0; k < 8 * steps; k++)
        ENSURE(hand_step(method, &fine) == 0);
    *global = 0.0;
    for (int i = 0; i < n; i++) {
        *global = fmax(*global, fabs(c.chain.q[i] - fine.chain.q[i]));
        q_end[i] = c.chain.q[i];
    }
    if (strcmp(method, "dgrad") == 0)
        ENSURE_LE(energy_drift, (double)steps * 16.0 * DBL_EPSILON * energy_scale);
    printf("  %s, %d link(s), h = %g: max |dq| %.2e, max |dp| %.2e, global error %.2e\n",
           method, pb->links, h, *dq, *dp, *global);
    run_close(&r);
}

static void test_same_trajectories(void)
{
    for (int p = 0; p < 2; p++) {
        double q_end[2][4], dq, dp, global;
        const char *methods[2] = { "lobatto4", "dgrad" };
        // lobatto4 (order 6) at a step where its global error stands above the tolerance
        const double hs[2] = { p == 0 ? 0.1 : 0.04, 0.01 };
        for (int k = 0; k < 2; k++) {
            compare(&problems[p], methods[k], hs[k], &dq, &dp, &global, q_end[k]);
            ENSURE_LE(dq, 2e-11);
            ENSURE_LE(dp, 1e-10);
            ENSURE_LE(100.0 * 2e-11, global);   // the bound is far below the scheme's error
        }
        // the two schemes are distinguishable at this accuracy (both ends at t = 1)
        double apart = 0.0;
        for (int i = 0; i < 2 * problems[p].links; i++)
            apart = fmax(apart, fabs(q_end[0][i] - q_end[1][i]));
        ENSURE_LE(100.0 * 2e-11, apart);
    }
}

TEST_MAIN(TEST(test_same_trajectories))
