// Newton's lazy rounding floors (src/newton.c, measure): a fresh Jacobian's floors are measured
// only when its first update is not small with every floor at 0. A floor can only raise what an
// update may be, so the solves must take exactly the decisions of the eager floors: the
// reference here is the same solver with nw.eager_floors (every Jacobian's floors measured when
// it is assembled, the order of the code before the floors were lazy). Every method (the
// implicit ones and the explicit rk4 and euler) runs each model with fixed steps (h = 1e-3 and
// the tiny 1e-7 and 1e-9, where the floors decide whether an update is rounding) and adaptive
// steps, with the dense and the sparse solver, both ways; after every step the status, the
// time, q, v, p and the entropies must be bit-identical (memcmp: a lazy decision that differs
// from the eager one takes another number of corrections, which changes the last bits), and so
// must the number of corrections. Models: a pendulum and a double pendulum (holonomic), a
// knife edge (nonholonomic), a stiff nonlinear spring pair, a thermal spring (entropy), a DC
// motor (gyrator, far from the origin) and an LC ladder (linear, Kirchhoff constraints).
// The test would miss a wrong lazy decision only if the lazy path never ran or the floors never
// mattered: it counts the floors measured lazily and the solves whose floors accepted an update
// that was not small without them, and requires both to happen (they do at the tiny steps), and
// that lazy floors measure fewer floors than eager ones (the point of them).
#include "harness.h"
#include "problems.h"
#include "sim_run.h"

#include "sim.h"

#include <string.h>

static const char stiff_text[] = "model stiff\n"
                                 "coordinate x, y\n"
                                 "lagrangian (x'^2 + y'^2)/2 - 1e6/2*(x - y)^2 - x^4/4 - y^2/2\n"
                                 "initial x = 1, y = 0.5\n";

static const char thermal_text[] = "model spring_heating\n"
                                   "parameter m = 1, k = 100, c = 2, C = 0.5, T0 = 300\n"
                                   "coordinate x\nentropy S\n"
                                   "lagrangian m/2*x'^2 - k/2*x^2 - C*T0*exp(S/C)\n"
                                   "friction x -> S: -c*x'\n"
                                   "initial x = 0.5, S = 0\n";

static const struct {
    const char *name, *text;
} models[] = {
    { "pendulum", PENDULUM_MODEL },     { "double pendulum", DOUBLE_PENDULUM_TEXT },
    { "knife edge", KNIFE_EDGE_MODEL }, { "stiff springs", stiff_text },
    { "thermal spring", thermal_text }, { "dc motor", DC_MOTOR_TEXT },
    { "lc ladder", LC_LADDER_MODEL },
};

static const char *const methods[] = { IMPLICIT_METHODS, "rk4", "euler" };

enum { STEPS = 120 };

typedef struct totals {
    long runs, lazy_measured, eager_measured, decided, tiny_lazy_measured, tiny_decided;
} totals;

static int same_values(const double *a, const double *b, int n)
{
    return n == 0 || memcmp(a, b, (size_t)n * sizeof *a) == 0;
}

// One configuration both ways, step by step (nothing when the method refuses the model).
static void compare(const dirac_model *model, const char *name, const dirac_sim_options *options,
                    totals *t)
{
    dirac_sim *lazy = NULL, *eager = NULL;
    dirac_error err;
    if (dirac_sim_create(model, options, &lazy, &err) != DIRAC_OK)
        return;
    if (dirac_sim_create(model, options, &eager, &err) != DIRAC_OK) {
        ENSURE(!"the second simulation is created like the first");
        dirac_sim_destroy(lazy);
        return;
    }
    eager->nw.eager_floors = true;
    int n = dirac_model_coordinate_count(model), ns = dirac_model_entropy_count(model);
    bool same = true;
    for (int k = 0; k < STEPS && same; k++) {
        dirac_status a = dirac_sim_step(lazy), b = dirac_sim_step(eager);
        same = a == b && dirac_sim_time(lazy) == dirac_sim_time(eager) &&
               dirac_sim_newton_iterations(lazy) == dirac_sim_newton_iterations(eager) &&
               same_values(dirac_sim_q(lazy), dirac_sim_q(eager), n) &&
               same_values(dirac_sim_v(lazy), dirac_sim_v(eager), n) &&
               same_values(dirac_sim_p(lazy), dirac_sim_p(eager), n) &&
               same_values(dirac_sim_s(lazy), dirac_sim_s(eager), ns);
        if (!same)
            fprintf(stderr, "  %s, %s, h = %g%s, %s: parted at step %d\n", name, options->method,
                    options->dt, options->adaptive_rtol > 0.0 ? " (adaptive)" : "",
                    options->linear_solver == DIRAC_LINEAR_SPARSE ? "sparse" : "dense", k);
        if (a != DIRAC_OK)
            break;
    }
    ENSURE(same);
    t->runs++;
    t->lazy_measured += lazy->nw.floor_measurements;
    t->eager_measured += eager->nw.floor_measurements;
    t->decided += lazy->nw.floors_decided;
    if (options->dt < 1e-6 && options->adaptive_rtol == 0.0) {
        t->tiny_lazy_measured += lazy->nw.floor_measurements;
        t->tiny_decided += lazy->nw.floors_decided;
    }
    dirac_sim_destroy(lazy);
    dirac_sim_destroy(eager);
}

static void every_method_and_model(void)
{
    static const double steps[] = { 1e-3, 1e-7, 1e-9 };
    static const dirac_linear_solver solvers[] = { DIRAC_LINEAR_DENSE, DIRAC_LINEAR_SPARSE };
    totals t = { 0 };
    for (size_t m = 0; m < sizeof models / sizeof models[0]; m++) {
        run r;
        memset(&r, 0, sizeof r);
        dirac_status status =
            dirac_spec_parse("test.dirac", models[m].text, strlen(models[m].text), &r.spec);
        if (!run_compile(&r, status, models[m].name, NULL, 0))
            continue;
        for (size_t k = 0; k < sizeof methods / sizeof methods[0]; k++)
            for (size_t s = 0; s < 2; s++) {
                dirac_sim_options o = { .method = methods[k], .linear_solver = solvers[s] };
                for (size_t j = 0; j < sizeof steps / sizeof steps[0]; j++) {
                    o.dt = steps[j];
                    compare(r.model, models[m].name, &o, &t);
                }
                // adaptive steps from 1e-3 (the controller's rejections and retries)
                o.dt = 1e-3;
                o.adaptive_rtol = 1e-6;
                compare(r.model, models[m].name, &o, &t);
            }
        run_close(&r);
    }
    printf("  %ld runs: floors measured %ld lazily, %ld eagerly; decided by the floors %ld; at "
           "the tiny steps %ld measured lazily, %ld decided\n",
           t.runs, t.lazy_measured, t.eager_measured, t.decided, t.tiny_lazy_measured,
           t.tiny_decided);
    // every model runs with the implicit methods at least (lobatto: holonomic ones only)
    ENSURE(t.runs >= (long)(sizeof models / sizeof models[0]) * 4 * 2 * 4);
    ENSURE(t.tiny_lazy_measured > 0);
    ENSURE(t.tiny_decided > 0);
    ENSURE(t.lazy_measured < t.eager_measured);
}

TEST_MAIN(TEST(every_method_and_model))
