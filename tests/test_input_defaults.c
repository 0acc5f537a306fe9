// A model's inputs hold their declared defaults until the host sets them, in every evaluation
// the methods make, from the creation checks on. A unit mass pushed by the input force u,
// x'' = u with `input u = 1` and never set, from rest: every method must move it. The exact
// motion is x = t²/2, v = t; the first-order methods (euler, dirac1) are off by O(h) = 1e-3
// at t = 1 (euler: x_n = h² n(n−1)/2, 0.4995), the others are exact for constant acceleration
// up to rounding; 2e-3 separates both from a run that saw u = 0 (x = 0).
// And a velocity constraint driven by an input, x' = u with `input u = 0.5`: the initial
// velocity 0.5 satisfies it, so creation must accept it (a zero input would refuse it with a
// velocity residual) and every method for velocity constraints (all but the Lobatto ones)
// keeps x' = 0.5, x = 0.5 t.
#include "harness.h"
#include "sim_run.h"

#include <math.h>
#include <string.h>

static const char *const methods[] = { "midpoint", "dirac1", "dirac2", "dgrad",
                                       "euler",    "rk4",    "lobatto3", "lobatto4" };
enum { METHOD_COUNT = sizeof methods / sizeof methods[0] };

// runs `text` with `method` to t = 1 at h = 1e-3 and checks x(1) and x'(1)
static void run_to_one(const char *text, const char *method, double x_exact, double v_exact)
{
    run r;
    if (!run_open_method(&r, text, method, 1e-3))
        return;
    ENSURE(run_steps(&r, 1000));
    double x = dirac_sim_q(r.sim)[0], v = dirac_sim_v(r.sim)[0];
    printf("  %-8s x(1) = %.15f (exact %g), x'(1) = %.15f (exact %g)\n", method, x, x_exact,
           v, v_exact);
    ENSURE_NEAR(x, x_exact, 2e-3);
    ENSURE_NEAR(v, v_exact, 2e-3);
    run_close(&r);
}

static void default_input_force(void)
{
    static const char text[] = "model push\ninput u = 1\ncoordinate x\nlagrangian x'^2/2\n"
                               "force x: u\n";
    for (int k = 0; k < METHOD_COUNT; k++)
        run_to_one(text, methods[k], 0.5, 1.0);
}

static void default_input_in_a_constraint(void)
{
    static const char text[] = "model roll\ninput u = 0.5\ncoordinate x, y\n"
                               "lagrangian x'^2/2 + y'^2/2 - y^2/2\nconstraint roll: x' = u\n"
                               "initial x' = 0.5, y = 0.1\n";
    for (int k = 0; k < METHOD_COUNT; k++)
        if (strncmp(methods[k], "lobatto", 7) != 0)
            run_to_one(text, methods[k], 0.5, 0.5);
}

TEST_MAIN(TEST(default_input_force), TEST(default_input_in_a_constraint))
