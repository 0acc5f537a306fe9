// dgrad's averages without quadrature (src/integ_dgrad.c, src/sim_linear.c): when ∇L, the
// constraint forms and the rates are affine in the point, the average of each along a segment
// is its value at the segment's midpoint (the midpoint rule is exact for polynomials of degree
// one), so dgrad takes the midpoint values instead of its 4-point Gauss–Legendre rule.
// - the classification, from the expressions: quadratic Lagrangians with quadratic (rod) and
//   linear (Kirchhoff) constraints are affine; an angle pendulum (cos θ), an anharmonic spring
//   (x⁴), a driven pivot (sin 3t in the rate) and a rod written as a square root are not;
// - the same scheme: the Cartesian pendulum (affine: midpoint values) against the same
//   pendulum with a term 1e-30 x⁴ added to L (not affine: quadrature), which changes the
//   motion by about 1e-30 relative, far below rounding; both solve the same equations to
//   rounding level (dgrad's Newton tolerance 1e-14 relative), so after 1000 steps of a stable
//   (non-chaotic) motion they differ by at most 1000 · 1e-14 · l;
// - the discrete first law with the midpoint values on the (chaotic) Cartesian double pendulum:
//   without forces or driven constraints E_{k+1} = E_k holds to rounding at every step, so
//   |E_k − E_0| stays within 2000 steps · 16 ε of the energy scale max |⟨p, v⟩| (rounding of
//   each step's balance, added up at most linearly).
#include "harness.h"
#include "problems.h"
#include "sim_run.h"

#include "sim.h"

#include <float.h>
#include <math.h>

static const char pendulum_text[] = PENDULUM_ONE_RADIAN_MODEL;

// the same motion to 1e-30 relative, with a gradient that is not affine
static const char pendulum_quartic_text[] = "model pendulum\n"
                                            "parameter m = 1, g = 9.81, l = 1\n"
                                            "coordinate x, y\n"
                                            "lagrangian m/2*(x'^2 + y'^2) - m*g*y - 1e-30*x^4\n"
                                            "constraint rod: x^2 + y^2 = l^2\n"
                                            "initial x = l*sin(1), y = -l*cos(1)\n";

static const char double_pendulum_text[] =
    "model double_pendulum\n"
    "coordinate x1, y1, x2, y2\n"
    "lagrangian (x1'^2 + y1'^2 + x2'^2 + y2'^2)/2 - 9.81*(y1 + y2)\n"
    "constraint rod1: x1^2 + y1^2 = 1\n"
    "constraint rod2: (x2 - x1)^2 + (y2 - y1)^2 = 1\n"
    "initial x1 = 1, x2 = 2\n";

static const char lc_ladder_text[] = LC_LADDER_MODEL;

static const char angle_pendulum_text[] = "model angle\n"
                                          "coordinate th\n"
                                          "lagrangian th'^2/2 + 9.81*cos(th)\n"
                                          "initial th = 1\n";

static const char driven_pivot_text[] = "model driven\n"
                                        "coordinate x, y\n"
                                        "lagrangian (x'^2 + y'^2)/2 - 9.81*y\n"
                                        "constraint pivot: (x - 0.1*sin(3*t))^2 + y^2 = 1\n"
                                        "initial y = -1\n";

static const char sqrt_rod_text[] = "model sqrt_rod\n"
                                    "coordinate x, y\n"
                                    "lagrangian (x'^2 + y'^2)/2 - 9.81*y\n"
                                    "constraint rod: sqrt(x^2 + y^2) = 1\n"
                                    "initial x = 0.5, y = -0.8660254037844386\n";

static int affine(const char *text)
{
    dirac_model *m = model_compile(NULL, text, NULL, 0);
    ENSURE(m != NULL);
    bool result = false;
    if (m)
        ENSURE_EQ_INT(sim_gradients_affine(m, &result), DIRAC_OK);
    dirac_model_destroy(m);
    return result;
}

static void classification(void)
{
    ENSURE(affine(pendulum_text));
    ENSURE(affine(double_pendulum_text));
    ENSURE(affine(lc_ladder_text));
    ENSURE(!affine(pendulum_quartic_text));
    ENSURE(!affine(angle_pendulum_text));
    ENSURE(!affine(driven_pivot_text));
    ENSURE(!affine(sqrt_rod_text));
}

static void same_scheme(void)
{
    run a, b;
    if (!run_open_method(&a, pendulum_text, "dgrad", 1e-2))
        return;
    if (!run_open_method(&b, pendulum_quartic_text, "dgrad", 1e-2)) {
        run_close(&a);
        return;
    }
    double worst = 0.0;
    for (int k = 0; k < 1000; k++) {
        ENSURE(dirac_sim_step(a.sim) == DIRAC_OK);
        ENSURE(dirac_sim_step(b.sim) == DIRAC_OK);
        for (int i = 0; i < 2; i++)
            worst = fmax(worst, fabs(dirac_sim_q(a.sim)[i] - dirac_sim_q(b.sim)[i]));
    }
    printf("  pendulum, dgrad, 1000 steps of 1e-2: max |q_midpoint_values - q_quadrature| = %.2e\n",
           worst);
    ENSURE_LE(worst, 1000 * 1e-14);
    run_close(&a);
    run_close(&b);
}

static void first_law(void)
{
    run r;
    if (!run_open_method(&r, double_pendulum_text, "dgrad", 1e-2))
        return;
    double e0 = dirac_sim_energy(r.sim), drift = 0.0, scale = fabs(e0);
    for (int k = 0; k < 2000; k++) {
        ENSURE(dirac_sim_step(r.sim) == DIRAC_OK);
        const double *p = dirac_sim_p(r.sim), *v = dirac_sim_v(r.sim);
        double pv = 0.0;
        for (int i = 0; i < 4; i++)
            pv += p[i] * v[i];
        scale = fmax(scale, fabs(pv));
        drift = fmax(drift, fabs(dirac_sim_energy(r.sim) - e0));
    }
    printf("  double pendulum, dgrad, 2000 steps of 1e-2: max |E - E0| = %.2e (scale %.3g)\n",
           drift, scale);
    ENSURE_LE(drift, 2000 * 16 * DBL_EPSILON * scale);
    run_close(&r);
}

TEST_MAIN(TEST(classification), TEST(same_scheme), TEST(first_law))
