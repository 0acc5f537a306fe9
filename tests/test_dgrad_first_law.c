// dgrad's discrete first law step by step (src/integ_dgrad.c, docs/methods.md "dgrad"): the
// scheme's equations imply E_{k+1} − E_k = W_{k+1} − W_k exactly (W: the work of forces, heat
// input, explicit time dependence and driven constraints), so each step's balance may miss
// only by what Newton leaves in the equations plus the rounding of E and W themselves. Newton
// solves dgrad's equations to rounding level, so every step must satisfy
//   |ΔE − ΔW| <= FIRST_LAW_ROUNDING · ε · scale,  scale = max over both nodes of Σ_i |p_i v_i| + |E|
// (E = ⟨p, v⟩ − L: the sums behind E are bounded by ⟨|p|, |v|⟩ and |L| <= |⟨p, v⟩| + |E|).
// Checked per step, not over the run: one step that stops Newton early on an update below a
// too generous rounding floor hides in a run's accumulated error, not in its own step.
// - stiff_spring_pendulum (∇L not affine: the averages by quadrature) at h = 0.01;
// - the nonholonomic chaplygin_sleigh and rolling_disk, the closed-loop slider_crank and
//   four_bar at h = 0.01;
// - chaplygin_sleigh with adaptive steps (rtol 1e-6) over 400 steps: the steps grow by orders
//   of magnitude (to h ≈ 1e3 and more), where Newton's approximate Jacobian stops contracting;
//   a step whose Newton iteration gives no evidence of convergence must fail and be shortened,
//   never be accepted with its first update.
#include "harness.h"
#include "sim_run.h"

#include <dirac/dirac.h>

#include <float.h>
#include <math.h>
#include <stdio.h>

// Each step's balance combines a few dozen terms of the size of `scale` (E at two nodes, the
// work's sums, the equations' residuals, which dgrad accepts only within 8 ε of their terms'
// magnitudes), each rounded at ε and adding up at random: 16 ε·scale. Measured worst steps are
// 1.8–3.7 ε·scale on these models; a Newton iteration stopped early leaves hundreds of ε·scale
// (stiff spring pendulum: 160) up to 1e9 (the sleigh's long steps).
#define FIRST_LAW_ROUNDING 16.0

static double energy_scale(const dirac_sim *sim, int n)
{
    const double *p = dirac_sim_p(sim), *v = dirac_sim_v(sim);
    double s = fabs(dirac_sim_energy(sim));
    for (int i = 0; i < n; i++)
        s += fabs(p[i] * v[i]);
    return s;
}

// Runs `steps` steps of dgrad and checks every step's balance; returns the worst ratio
// |ΔE − ΔW| / (ε scale).
static double worst_step(const char *name, double h, double adaptive_rtol, int steps)
{
    char path[512];
    snprintf(path, sizeof path, "%s/tests/textbook/%s.dirac", DIRAC_SOURCE_DIR, name);
    dirac_model *model = model_compile(path, NULL, NULL, 0);
    ENSURE(model != NULL);
    if (!model)
        return HUGE_VAL;
    dirac_sim_options options = { .method = "dgrad", .dt = h, .adaptive_rtol = adaptive_rtol };
    dirac_sim *sim = NULL;
    dirac_error err;
    ENSURE(dirac_sim_create(model, &options, &sim, &err) == DIRAC_OK);
    double worst = 0.0;
    int n = dirac_model_coordinate_count(model);
    for (int k = 0; sim && k < steps; k++) {
        double e0 = dirac_sim_energy(sim), w0 = dirac_sim_work(sim);
        double scale0 = energy_scale(sim, n);
        if (dirac_sim_step(sim) != DIRAC_OK) {
            fprintf(stderr, "  %s step %d at t = %g: %s\n", name, k, dirac_sim_time(sim),
                    dirac_sim_errmsg(sim));
            ENSURE(!"step failed");
            break;
        }
        double scale = fmax(scale0, energy_scale(sim, n));
        double miss = fabs((dirac_sim_energy(sim) - e0) - (dirac_sim_work(sim) - w0));
        double ratio = miss / (DBL_EPSILON * scale);
        if (ratio > worst)
            worst = ratio;
        if (!(ratio <= FIRST_LAW_ROUNDING)) {
            fprintf(stderr, "  %s step %d (t = %g, h = %g): |dE - dW| = %g = %g eps scale\n", name,
                    k, dirac_sim_time(sim), dirac_sim_last_step_size(sim), miss, ratio);
            ENSURE_LE(ratio, FIRST_LAW_ROUNDING);
            break;
        }
    }
    printf("  %-22s worst step |dE - dW| = %.1f eps scale (%s)\n", name, worst,
           adaptive_rtol > 0.0 ? "adaptive" : "fixed steps");
    dirac_sim_destroy(sim);
    dirac_model_destroy(model);
    return worst;
}

// Over a run the steps' rounding errors add up at random: after k steps |E_k − E_0 − W_k| stays
// within (DRIFT_OFFSET + DRIFT_WALK √k) ε·scale (scale as above, its largest value so far). Each
// step leaves about one rounding of the new momentum (at most ε/2 relative in each p_i,
// entering the balance as p_i v_i: a standard deviation of at most ≈ 0.29 ε·scale per step) and
// of E itself; the offset covers a few single steps' roundings (the sleigh's worst single step:
// 0.9 ε·scale), the walk term is 1.7 of those standard deviations. Measured on the sleigh:
// 0.5 ε·scale after 2 steps, 5.1 after 2000 (bound 24). Booking the momentum balances'
// residual into Δp (weight v̄ instead of Δv/2) leaves an error correlated from step to step
// that grows linearly: 10.1 at k = 20 (bound 4.2), 38 at k = 2000.
#define DRIFT_OFFSET 2.0
#define DRIFT_WALK 0.5

static void accumulated_drift(void)
{
    char path[512];
    snprintf(path, sizeof path, "%s/tests/textbook/chaplygin_sleigh.dirac", DIRAC_SOURCE_DIR);
    dirac_model *model = model_compile(path, NULL, NULL, 0);
    ENSURE(model != NULL);
    if (!model)
        return;
    dirac_sim_options options = { .method = "dgrad", .dt = 0.01 };
    dirac_sim *sim = NULL;
    dirac_error err;
    ENSURE(dirac_sim_create(model, &options, &sim, &err) == DIRAC_OK);
    int n = dirac_model_coordinate_count(model);
    double e0 = sim ? dirac_sim_energy(sim) : 0.0, w0 = sim ? dirac_sim_work(sim) : 0.0;
    double scale = sim ? energy_scale(sim, n) : 0.0, worst = 0.0;
    for (int k = 1; sim && k <= 2000; k++) {
        if (dirac_sim_step(sim) != DIRAC_OK) {
            ENSURE(!"step failed");
            break;
        }
        scale = fmax(scale, energy_scale(sim, n));
        double drift = fabs((dirac_sim_energy(sim) - e0) - (dirac_sim_work(sim) - w0));
        double bound = (DRIFT_OFFSET + DRIFT_WALK * sqrt((double)k)) * DBL_EPSILON * scale;
        worst = fmax(worst, drift / bound);
    }
    printf("  chaplygin_sleigh 2000 steps: worst |E_k - E_0 - W_k| = %.2f of its bound\n", worst);
    ENSURE_LE(worst, 1.0);
    dirac_sim_destroy(sim);
    dirac_model_destroy(model);
}

static void non_affine_gradient(void)
{
    worst_step("stiff_spring_pendulum", 0.01, 0.0, 300);
}

static void nonholonomic(void)
{
    worst_step("chaplygin_sleigh", 0.01, 0.0, 300);
    worst_step("rolling_disk", 0.01, 0.0, 300);
}

static void closed_loops(void)
{
    worst_step("slider_crank", 0.01, 0.0, 300);
    worst_step("four_bar", 0.01, 0.0, 300);
}

static void adaptive_long_steps(void)
{
    worst_step("chaplygin_sleigh", 0.01, 1e-6, 400);
}

TEST_MAIN(TEST(non_affine_gradient), TEST(nonholonomic), TEST(closed_loops),
          TEST(adaptive_long_steps), TEST(accumulated_drift))
