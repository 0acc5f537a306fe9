// A spring chain large enough for the sparse solver (N = 300 unit masses between walls,
// springs k = 100, `midpoint`, h = 1e-2: the linear, kept-factorization path of the 10^5-mass
// benchmark, with its stage 1 solved by the sweeps of linsolve_sweep.c and the node's energy
// summed in lanes, sim_node.c) against the mathematics of the chain:
// - Normal modes. K e_j = λ_j e_j with (e_j)_i = sin(i j π / (N + 1)) and
//   λ_j = 4 k sin²(j π / (2 (N + 1))) (the discrete sine transform diagonalizes the chain
//   between walls). For a quadratic Lagrangian the midpoint variational integrator is the
//   implicit midpoint rule on (q, p) (tests/test_linear_step.c), which maps each mode's
//   (q, p/(m ω)) by the rotation of angle θ_j = 2 atan(ω_j h / 2), ω_j = sqrt(λ_j / m)
//   (the Cayley transform of the oscillator's generator). From q(0) = a e_j + b e_l, v = 0:
//   q(s) = a cos(s θ_j) e_j + b cos(s θ_l) e_l and v(s) = −a ω_j sin(s θ_j) e_j − b ω_l …;
//   each step's rounding is some ε of the state and a rotation adds such differences at most
//   linearly: |q − q_exact| <= s · 64 ε max |q_exact| (likewise v), as in test_linear_step.
// - Energy. The implicit midpoint rule conserves quadratic invariants exactly, so the node's
//   energy ⟨p, v⟩ − L = T + V keeps its first value up to the trajectory's rounding (the
//   bound above, 2 s · 64 ε relative, since E is quadratic) and the rounding of its sums
//   (N terms each, magnitudes up to 3 E, so 6 N ε E).
// Both with the sparse solver (auto at this size) and with dense LU.
#include "harness.h"
#include "sim_run.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

enum { MASSES = 300, STEPS = 200, MODE_LOW = 3, MODE_HIGH = MASSES - 1 };
#define PI 3.14159265358979323846
#define STIFFNESS 100.0
#define STEP 1e-2
#define AMPLITUDE_LOW 0.01
#define AMPLITUDE_HIGH 0.002

// (e_mode)_{i+1}, with the angle reduced by whole turns in integers first (sin of the angle
// itself, up to 936 rad, would carry its rounding of some 1e-13, which is not a mode and
// which K amplifies)
static double mode_shape(int mode, int i)   // i from 0: the mass i + 1
{
    int turns = ((i + 1) * mode) % (2 * (MASSES + 1));
    return sin((double)turns * PI / (MASSES + 1));
}

static double mode_frequency(int mode)   // unit masses
{
    return 2.0 * sqrt(STIFFNESS) * sin(mode * PI / (2.0 * (MASSES + 1)));
}

// The model with q(0) = AMPLITUDE_LOW e_MODE_LOW + AMPLITUDE_HIGH e_MODE_HIGH, at rest.
static char *chain_text(void)
{
    size_t size = 512 + 48 * (size_t)MASSES;
    char *text = malloc(size);
    if (!text)
        return NULL;
    int used = snprintf(text, size,
                        "model chain\nparameter m = 1, k = %g\ncoordinate x[%d]\n"
                        "lagrangian sum(i = 1..%d, m/2*x[i]'^2) - k/2*x[1]^2"
                        " - sum(i = 2..%d, k/2*(x[i] - x[i-1])^2) - k/2*x[%d]^2\ninitial",
                        STIFFNESS, MASSES, MASSES, MASSES, MASSES);
    for (int i = 0; i < MASSES; i++)
        used += snprintf(text + used, size - (size_t)used, "%s x[%d] = %.17g", i ? "," : "",
                         i + 1,
                         AMPLITUDE_LOW * mode_shape(MODE_LOW, i) +
                             AMPLITUDE_HIGH * mode_shape(MODE_HIGH, i));
    snprintf(text + used, size - (size_t)used, "\n");
    return text;
}

static void modes_rotate_and_energy_stays(void)
{
    char *text = chain_text();
    ENSURE(text != NULL);
    if (!text)
        return;
    const double theta_low = 2.0 * atan(mode_frequency(MODE_LOW) * STEP / 2.0);
    const double theta_high = 2.0 * atan(mode_frequency(MODE_HIGH) * STEP / 2.0);
    for (int sparse = 1; sparse >= 0; sparse--) {
        run r;
        dirac_sim_options options = { .method = "midpoint", .dt = STEP,
                                      .linear_solver = sparse ? DIRAC_LINEAR_AUTO
                                                              : DIRAC_LINEAR_DENSE };
        if (!run_open_with(&r, text, NULL, 0, &options))
            continue;
        double energy0 = dirac_sim_energy(r.sim), worst_energy = 0.0;
        double worst_q = 0.0, worst_v = 0.0, scale_q = 0.0, scale_v = 0.0;
        for (int step = 1; step <= STEPS; step++) {
            ENSURE_EQ_INT(dirac_sim_step(r.sim), DIRAC_OK);
            const double *q = dirac_sim_q(r.sim), *v = dirac_sim_v(r.sim);
            double cl = cos(step * theta_low), ch = cos(step * theta_high);
            double sl = sin(step * theta_low), sh = sin(step * theta_high);
            for (int i = 0; i < MASSES; i++) {
                double el = mode_shape(MODE_LOW, i), eh = mode_shape(MODE_HIGH, i);
                double q_exact = AMPLITUDE_LOW * cl * el + AMPLITUDE_HIGH * ch * eh;
                double v_exact = -AMPLITUDE_LOW * mode_frequency(MODE_LOW) * sl * el -
                                 AMPLITUDE_HIGH * mode_frequency(MODE_HIGH) * sh * eh;
                worst_q = fmax(worst_q, fabs(q[i] - q_exact) / step);
                worst_v = fmax(worst_v, fabs(v[i] - v_exact) / step);
                scale_q = fmax(scale_q, fabs(q_exact));
                scale_v = fmax(scale_v, fabs(v_exact));
            }
            worst_energy = fmax(worst_energy, fabs(dirac_sim_energy(r.sim) - energy0) /
                                                  (2.0 * step * 64.0 + 6.0 * MASSES));
        }
        fprintf(stderr, "  %s: max |q - q_exact| / step = %.3g, |v - v_exact| / step = %.3g, "
                        "energy drift / bound's factor = %.3g (E = %.6g)\n",
                sparse ? "sparse" : "dense", worst_q, worst_v, worst_energy, energy0);
        ENSURE_LE(worst_q, 64.0 * DBL_EPSILON * scale_q);
        ENSURE_LE(worst_v, 64.0 * DBL_EPSILON * scale_v);
        ENSURE_LE(worst_energy, DBL_EPSILON * energy0);
        ENSURE(energy0 > 0.0);
        run_close(&r);
    }
    free(text);
}

TEST_MAIN(TEST(modes_rotate_and_energy_stays))
