// A simulation starts only where the model is defined, and a failed step names its own
// interval: "step N from t = t_n to t_n + h", t_n being the last good node the state is
// restored to.
#include "harness.h"
#include "sim_run.h"

#include <dirac/dirac.h>

#include <stdlib.h>

// sqrt(x) at x = -1: the momentum of y is NaN at the initial state
static const char nan_momentum[] = "model s\ncoordinate x, y\n"
                                   "lagrangian (x'^2 + y'^2)/2 + sqrt(x)*y'^2\ninitial x = -1\n";
// the constraint is NaN at the initial state (the consistency check must not pass NaN)
static const char nan_constraint[] = "model s\ncoordinate x, y\nlagrangian (x'^2 + y'^2)/2\n"
                                     "constraint c: sqrt(x) + y = 0\ninitial x = -1\n";

static void refused_where_undefined(const char *text, const char *cause)
{
    dirac_spec *spec = NULL;
    dirac_model *model = NULL;
    ENSURE(dirac_spec_parse("d.dirac", text, strlen(text), &spec) == DIRAC_OK);
    ENSURE(dirac_model_compile(spec, &model) == DIRAC_OK);
    const char *methods[] = { "midpoint", "dirac1", "dgrad", "rk4" };
    for (size_t k = 0; model && k < sizeof methods / sizeof methods[0]; k++)
        for (int project = 0; project < 2; project++) {
            dirac_sim_options o = { .method = methods[k], .dt = 0.01, .project_initial = project };
            dirac_sim *sim = NULL;
            dirac_error err = { 0 };
            ENSURE_EQ_INT(dirac_sim_create(model, &o, &sim, &err), DIRAC_ERR_NOT_FINITE);
            ENSURE(sim == NULL);
            ENSURE_CONTAINS(err.message, "the model is not defined at its initial state (t = 0)");
            ENSURE_CONTAINS(err.message, cause);
            dirac_sim_destroy(sim);
        }
    // the analysis names the same cause instead of a LAPACK failure on NaN input
    dirac_model_analysis a;
    dirac_error err = { 0 };
    if (model) {
        ENSURE_EQ_INT(dirac_model_analyze(model, &a, &err), DIRAC_ERR_NOT_FINITE);
        ENSURE_CONTAINS(err.message, "the model is not defined at its initial state");
        ENSURE_CONTAINS(err.message, cause);
        dirac_model_analysis_free(&a);
    }
    dirac_model_destroy(model);
    dirac_spec_destroy(spec);
}

static void undefined_initial_state_is_refused(void)
{
    refused_where_undefined(nan_momentum, "is NaN there");
    refused_where_undefined(nan_constraint, "constraint 'c'");
}

// the numbers after "from t = " and " to " in msg
static int failure_interval(const char *msg, double *from, double *to)
{
    const char *a = strstr(msg, "from t = "), *b = a ? strstr(a, " to ") : NULL;
    if (!a || !b)
        return 0;
    *from = strtod(a + 9, NULL);
    *to = strtod(b + 4, NULL);
    return 1;
}

// x'^2/2 - x - log(x) from x = 1, x' = -5 reaches x <= 0 near t = 0.19: log(x) turns NaN in
// the step that crosses it (every method sees it as a non-finite state or a failed solve).
static void failing_step_names_its_interval(void)
{
    const char *text = "model l\ncoordinate x\nlagrangian x'^2/2 - x - log(x)\n"
                       "initial x = 1, x' = -5\n";
    const char *methods[] = { "midpoint", "dirac1", "dgrad", "euler", "rk4" };
    for (size_t k = 0; k < sizeof methods / sizeof methods[0]; k++) {
        run r;
        dirac_sim_options o = { .method = methods[k], .dt = 0.01 };
        if (!run_open_with(&r, text, NULL, 0, &o))
            continue;
        dirac_status status = DIRAC_OK;
        long steps = 0;
        while (steps < 1000 && (status = dirac_sim_step(r.sim)) == DIRAC_OK)
            steps++;
        ENSURE(status != DIRAC_OK);
        const char *msg = dirac_sim_errmsg(r.sim);
        double from = NAN, to = NAN, t = dirac_sim_time(r.sim);
        char step[32];
        snprintf(step, sizeof step, "step %ld from t = ", steps + 1);
        ENSURE_CONTAINS(msg, step);
        ENSURE(failure_interval(msg, &from, &to));
        // the state is at the last good node t_n = t0 + steps*h; the message names t_n and
        // the attempted end t_n + h (printed with %.17g: exact round trip)
        ENSURE_EQ_INT(dirac_sim_step_count(r.sim), steps);
        ENSURE(from == t);
        ENSURE(to == t + 0.01);
        ENSURE_NEAR(t, 0.01 * (double)steps, 1e-12);
        run_close(&r);
    }
}

TEST_MAIN(TEST(undefined_initial_state_is_refused), TEST(failing_step_names_its_interval))
