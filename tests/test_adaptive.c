// Adaptive step size (issue 12, item 5): for every method that accepts a tolerance, on a
// pendulum in its angle (regular, unconstrained) and in Cartesian coordinates (holonomic), the
// global error against the exact solution (Jacobi sn, support/problems.h) falls with the tolerance
// at the rate the controller's order predicts, the step count grows like tol^(−1/(k+1)) (k the
// order of the error estimate), and every run finishes. Runaways and collapses stop with
// DIRAC_ERR_STEP_SIZE; two-step methods refuse at creation.
#include "harness.h"
#include "problems.h"
#include "sim_run.h"

#include <math.h>

static const double theta0 = 0.5, gravity = 9.81, t_end = 10.0;

static const char angle_pendulum[] =
    "model pendulum_angle\n"
    "coordinate th\n"
    "lagrangian th'^2/2 + 9.81*cos(th)\n"
    "initial th = 0.5\n";

static const char cartesian_pendulum[] =
    "model pendulum\n"
    "coordinate x, y\n"
    "lagrangian (x'^2 + y'^2)/2 - 9.81*y\n"
    "constraint rod: x^2 + y^2 = 1\n"
    "initial x = 0.479425538604203, y = -0.8775825618903728\n";

// The pendulum released at rest from θ0 (l = 1): θ(t) = 2 asin(k sn(K − ω t | k²)),
// k = sin(θ0/2) (problems.h).
static double exact_angle(double t)
{
    return pendulum_angle(gravity, 1.0, theta0, t, NULL);
}

typedef struct outcome {
    double error;   // position error at t_end (angle, or distance in the plane)
    long steps;
    double phi_max; // largest |φ| over the accepted steps
} outcome;

static outcome adaptive_run(const char *text, const char *method, double rtol)
{
    outcome o = { INFINITY, 0, 0 };
    dirac_sim_options options = { .method = method, .dt = 1e-3, .adaptive_rtol = rtol };
    run r;
    if (!run_open_with(&r, text, NULL, 0, &options))
        return o;
    while (dirac_sim_time(r.sim) < t_end * (1 - 1e-12)) {
        double rest = t_end - dirac_sim_time(r.sim);
        if (dirac_sim_next_step_size(r.sim) > rest)
            dirac_sim_set_next_step_size(r.sim, rest);
        if (!run_steps(&r, 1) || o.steps > 2000000)
            break;
        o.steps++;
        o.phi_max = fmax(o.phi_max, dirac_sim_constraint_residual(r.sim));
    }
    double th = exact_angle(dirac_sim_time(r.sim));
    const double *q = dirac_sim_q(r.sim);
    if (dirac_model_coordinate_count(r.model) == 1)
        o.error = fabs(q[0] - th);
    else
        o.error = hypot(q[0] - sin(th), q[1] + cos(th));
    run_close(&r);
    return o;
}

// The controller's exponents: step counts grow like tol^(−1/(k+1)) with k the order of the
// error estimate (step doubling: the method's order p; embedded: the lower order of the pair,
// rk4 3, euler's Heun estimate 1 = p), and the global error, a sum of N local errors, falls
// like tol^(p/(k+1)) (rk4: tol^1 because it advances with the higher order).
typedef struct method_case {
    const char *name;
    int order, estimate_order;
    double tols[3];   // loose to tight, spaced by 100 (10 for the high orders)
} method_case;

static const method_case method_cases[] = {
    { "midpoint", 2, 2, { 1e-4, 1e-6, 1e-8 } },
    { "dgrad", 2, 2, { 1e-4, 1e-6, 1e-8 } },
    { "dirac1", 1, 1, { 1e-3, 1e-5, 1e-7 } },
    { "euler", 1, 1, { 1e-3, 1e-5, 1e-7 } },
    { "rk4", 4, 3, { 1e-5, 1e-7, 1e-9 } },
    { "lobatto3", 4, 4, { 1e-6, 1e-8, 1e-10 } },
    { "lobatto4", 6, 6, { 1e-6, 1e-8, 1e-10 } },
};

static void check_method(const method_case *c, const char *model, const char *text)
{
    outcome o[3];
    for (int j = 0; j < 3; j++)
        o[j] = adaptive_run(text, c->name, c->tols[j]);
    double decades = log10(c->tols[0] / c->tols[2]);
    double step_slope = log10((double)o[2].steps / (double)o[0].steps) / decades;
    double error_slope = log10(o[0].error / o[2].error) / decades;
    double want_steps = 1.0 / (c->estimate_order + 1);
    double want_error = (double)c->order / (c->estimate_order + 1);
    printf("  %-9s %-9s steps %6ld %6ld %6ld (slope %.3f, expected %.3f); error %.2e %.2e %.2e "
           "(slope %.3f, expected %.3f)\n", c->name, model, o[0].steps, o[1].steps, o[2].steps,
           step_slope, want_steps, o[0].error, o[1].error, o[2].error, error_slope, want_error);
    // each tighter tolerance gives a smaller error and more steps
    ENSURE(o[1].error < o[0].error && o[2].error < o[1].error);
    ENSURE(o[1].steps > o[0].steps && o[2].steps > o[1].steps);
    // the rates: the asymptotic exponents within 0.1 (step counts) and 0.2 (errors, which carry
    // the sign changes of the error along the orbit); high orders take few steps, so the
    // integer step counts and the first step's size set the tolerance
    ENSURE_NEAR(step_slope, want_steps, 0.1);
    ENSURE_NEAR(error_slope, want_error, 0.2);
    // "tracks the tolerance": the error per unit of tol^(p/(k+1)) stays within a factor 10
    for (int j = 0; j < 3; j++) {
        double ratio = o[j].error / pow(c->tols[j], want_error);
        double ratio0 = o[0].error / pow(c->tols[0], want_error);
        ENSURE(ratio < 10 * ratio0 && ratio > ratio0 / 10);
    }
    // constraints hold to Newton tolerance at every accepted step where the method keeps them
    if (strcmp(c->name, "dirac1") && strcmp(c->name, "euler") && strcmp(c->name, "rk4"))
        ENSURE_LE(o[2].phi_max, 1e-11);
}

static void test_error_tracks_tolerance_unconstrained(void)
{
    for (size_t k = 0; k < sizeof method_cases / sizeof method_cases[0]; k++)
        check_method(&method_cases[k], "angle", angle_pendulum);
}

static void test_error_tracks_tolerance_holonomic(void)
{
    for (size_t k = 0; k < sizeof method_cases / sizeof method_cases[0]; k++)
        check_method(&method_cases[k], "cartesian", cartesian_pendulum);
}

static void test_refusals_and_limits(void)
{
    dirac_spec *spec = NULL;
    dirac_model *model = NULL;
    dirac_sim *sim = NULL;
    dirac_error err;
    ENSURE(dirac_spec_parse("p.dirac", cartesian_pendulum, strlen(cartesian_pendulum), &spec) ==
           DIRAC_OK);
    ENSURE(dirac_model_compile(spec, &model) == DIRAC_OK);
    // the two-step method refuses before step 1
    dirac_sim_options o = { .method = "dirac2", .dt = 1e-3, .adaptive_rtol = 1e-6 };
    ENSURE_EQ_INT(dirac_sim_create(model, &o, &sim, &err), DIRAC_ERR_UNSUPPORTED);
    ENSURE(strstr(err.message, "two-step method") != NULL);
    // tolerances that cannot be met in double precision, or are not numbers, are refused
    o.method = "midpoint";
    o.adaptive_rtol = 1e-15;
    ENSURE_EQ_INT(dirac_sim_create(model, &o, &sim, &err), DIRAC_ERR_ARGUMENT);
    o.adaptive_rtol = NAN;
    ENSURE_EQ_INT(dirac_sim_create(model, &o, &sim, &err), DIRAC_ERR_ARGUMENT);
    o.adaptive_rtol = -1;
    ENSURE_EQ_INT(dirac_sim_create(model, &o, &sim, &err), DIRAC_ERR_ARGUMENT);
    dirac_model_destroy(model);
    dirac_spec_destroy(spec);

    // a state that is zero at the start has no scale for a purely relative tolerance: the step
    // size collapses, and the run stops at step 1 with DIRAC_ERR_STEP_SIZE (not a Newton or
    // non-finite failure) and a message naming the remedy; with --atol it runs
    static const char at_rest[] =
        "model driven\n"
        "coordinate q\n"
        "lagrangian q'^2/2 - q^2/2\n"
        "force q: sin(t)\n";
    run r;
    dirac_sim_options rel = { .method = "midpoint", .dt = 1e-3, .adaptive_rtol = 1e-6 };
    if (run_open_with(&r, at_rest, NULL, 0, &rel)) {
        ENSURE_EQ_INT(dirac_sim_step(r.sim), DIRAC_ERR_STEP_SIZE);
        ENSURE(strstr(dirac_sim_errmsg(r.sim), "options.adaptive_atol") != NULL);   // the CLI shows --atol
        ENSURE_EQ_INT(dirac_sim_step_count(r.sim), 0);
        run_close(&r);
    }
    rel.adaptive_atol = 1e-9;
    if (run_open_with(&r, at_rest, NULL, 0, &rel)) {
        // q = (sin t − t cos t)/2 exactly (resonant forcing from rest)
        while (dirac_sim_time(r.sim) < 1.0 - 1e-14) {
            double rest = 1.0 - dirac_sim_time(r.sim);
            if (dirac_sim_next_step_size(r.sim) > rest)
                dirac_sim_set_next_step_size(r.sim, rest);
            if (!run_steps(&r, 1))
                break;
        }
        double exact = 0.5 * (sin(1.0) - cos(1.0));
        printf("  driven from rest, rtol 1e-6, atol 1e-9: %ld steps, error %.2e\n",
               dirac_sim_step_count(r.sim), fabs(dirac_sim_q(r.sim)[0] - exact));
        // the global error is at most the sum of the accepted local errors, steps × (atol +
        // rtol |q|) ≈ 135 × 1.5e-7 = 2e-5 (measured 1.3e-6)
        ENSURE_LE(fabs(dirac_sim_q(r.sim)[0] - exact), 2e-5);
        run_close(&r);
    }
}

TEST_MAIN(TEST(test_error_tracks_tolerance_unconstrained),
          TEST(test_error_tracks_tolerance_holonomic), TEST(test_refusals_and_limits))
