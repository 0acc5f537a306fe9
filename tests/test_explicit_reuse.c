// euler and rk4 reuse the acceleration the previous step computed at the node (first same as
// last, src/integ_explicit.c) only at exactly that point: an input set between two steps must
// reach the next step. A unit mass pushed by the input force u, x'' = u, from rest with u = 0
// for one step and u = 1 after it: the second step is exact for both methods (constant
// acceleration: euler's velocity update is exact, rk4 is exact for quadratics), so after it
// v = h and x = 0 (euler: x moves with the old v = 0) or x = h²/2 (rk4), to rounding. A stale
// acceleration (u = 0) would leave v = 0.
#include "harness.h"
#include "sim_run.h"

#include <float.h>
#include <math.h>

static const char pushed_mass[] = "model pushed\n"
                                  "coordinate x\n"
                                  "input u = 0\n"
                                  "lagrangian x'^2/2\n"
                                  "force x: u\n";

static void input_reaches_next_step(const char *method, double x_expected)
{
    const double h = 0.1;
    run r;
    if (!run_open_method(&r, pushed_mass, method, h))
        return;
    ENSURE(dirac_sim_step(r.sim) == DIRAC_OK);
    ENSURE_EQ_INT(dirac_sim_set_input(r.sim, 0, 1.0), DIRAC_OK);
    ENSURE(dirac_sim_step(r.sim) == DIRAC_OK);
    double v = dirac_sim_v(r.sim)[0], x = dirac_sim_q(r.sim)[0];
    printf("  %s: v = %.17g (expected %g), x = %.17g (expected %g)\n", method, v, h, x,
           x_expected);
    ENSURE_LE(fabs(v - h), 4 * DBL_EPSILON * h);
    ENSURE_LE(fabs(x - x_expected), 4 * DBL_EPSILON * h * h);
    run_close(&r);
}

static void euler_sees_input(void)
{
    input_reaches_next_step("euler", 0.0);
}

static void rk4_sees_input(void)
{
    input_reaches_next_step("rk4", 0.5 * 0.1 * 0.1);
}

TEST_MAIN(TEST(euler_sees_input), TEST(rk4_sees_input))
