// Test helper: a model compiled from text or a file and a simulation of it, with failures
// reported through the harness (ENSURE). Include after harness.h.
#ifndef DIRAC_TEST_SIM_RUN_H
#define DIRAC_TEST_SIM_RUN_H

#include <dirac/dirac.h>

#include <math.h>
#include <stdlib.h>

// The methods with implicit steps (Newton on every step), for the loops over them.
#define IMPLICIT_METHODS "midpoint", "dirac1", "dirac2", "dgrad", "lobatto3", "lobatto4"

typedef struct run {
    dirac_spec *spec;
    dirac_model *model;
    dirac_sim *sim;
} run;

static inline void run_close(run *r)
{
    dirac_sim_destroy(r->sim);
    dirac_model_destroy(r->model);
    dirac_spec_destroy(r->spec);
    memset(r, 0, sizeof *r);
}

// Applies the `n_overrides` -p assignments to r->spec, the result `status` of its parse or load
// of `name`, and compiles it into r->model. On failure: reports, closes r and returns 0.
static inline int run_compile(run *r, dirac_status status, const char *name,
                              const char *const *overrides, int n_overrides)
{
    for (int k = 0; status == DIRAC_OK && k < n_overrides; k++)
        status = dirac_spec_set_parameter(r->spec, overrides[k]);
    if (status == DIRAC_OK)
        status = dirac_model_compile(r->spec, &r->model);
    if (status != DIRAC_OK) {
        fprintf(stderr, "  %s: %s\n", name, r->spec ? dirac_spec_errmsg(r->spec) : "out of memory");
        ENSURE(status == DIRAC_OK);
        run_close(r);
        return 0;
    }
    return 1;
}

// Creates r->sim of r->model. On failure: reports, closes r and returns 0.
static inline int run_create(run *r, const char *name, const dirac_sim_options *options)
{
    dirac_error err;
    if (dirac_sim_create(r->model, options, &r->sim, &err) != DIRAC_OK) {
        fprintf(stderr, "  %s (%s): %s\n", name, options->method, err.message);
        ENSURE(!"simulation created");
        run_close(r);
        return 0;
    }
    return 1;
}

// Parses `text`, applies the `n_overrides` -p assignments, compiles and creates the simulation.
static inline int run_open_with(run *r, const char *text, const char *const *overrides,
                                int n_overrides, const dirac_sim_options *options)
{
    memset(r, 0, sizeof *r);
    dirac_status status = dirac_spec_parse("test.dirac", text, strlen(text), &r->spec);
    return run_compile(r, status, "test.dirac", overrides, n_overrides) &&
           run_create(r, "test.dirac", options);
}

// As run_open_with, without overrides, with `method` and the step `dt` (other options default).
static inline int run_open_method(run *r, const char *text, const char *method, double dt)
{
    dirac_sim_options options = { .method = method, .dt = dt };
    return run_open_with(r, text, NULL, 0, &options);
}

// As run_open_with, for the model file at `path`.
static inline int run_open_file(run *r, const char *path, const char *const *overrides,
                                int n_overrides, const dirac_sim_options *options)
{
    memset(r, 0, sizeof *r);
    dirac_status status = dirac_spec_load(path, &r->spec);
    return run_compile(r, status, path, overrides, n_overrides) && run_create(r, path, options);
}

// The compiled model of `text` (or, with `text` NULL, of the file at `path`) after the -p
// assignments; NULL after a reported failure. The caller destroys it.
static inline dirac_model *model_compile(const char *path, const char *text,
                                         const char *const *overrides, int n_overrides)
{
    run r = { 0 };
    const char *name = text ? "test.dirac" : path;
    dirac_status status = text ? dirac_spec_parse(name, text, strlen(text), &r.spec)
                               : dirac_spec_load(path, &r.spec);
    dirac_model *model = NULL;
    if (run_compile(&r, status, name, overrides, n_overrides)) {
        model = r.model;
        r.model = NULL;
    }
    run_close(&r);
    return model;
}

// One step; a failure is reported and returns 0.
static inline int run_step(run *r)
{
    if (dirac_sim_step(r->sim) == DIRAC_OK)
        return 1;
    fprintf(stderr, "  %s\n", dirac_sim_errmsg(r->sim));
    ENSURE(!"step failed");
    return 0;
}

static inline int run_steps(run *r, long steps)
{
    for (long k = 0; k < steps; k++)
        if (!run_step(r))
            return 0;
    return 1;
}

// The Euclidean distance |q − reference| of the simulation's positions from `reference`.
static inline double run_position_distance(const run *r, const double *reference)
{
    int n = dirac_model_coordinate_count(r->model);
    double sum = 0.0;
    for (int i = 0; i < n; i++)
        sum += pow(dirac_sim_q(r->sim)[i] - reference[i], 2);
    return sqrt(sum);
}

// Steps until a step fails, at most `max_steps` times; the status of the last step.
static inline dirac_status run_until_failure(run *r, int max_steps)
{
    dirac_status status = DIRAC_OK;
    for (int k = 0; k < max_steps && status == DIRAC_OK; k++)
        status = dirac_sim_step(r->sim);
    return status;
}

/// A generic operating point near the model's start, for derivative checks (no derivative
/// vanishes there by symmetry): its initial state with q_i += 0.01 (i + 1) and
/// v_i += 0.3 − 0.17 i, and μ_a = 0.7 − 0.4 a.
static inline void model_offset_point(const dirac_model *m, double *q, double *v, double *s,
                                      double *mu)
{
    dirac_model_initial_state(m, q, v, s);
    for (int i = 0; i < dirac_model_coordinate_count(m); i++) {
        q[i] += 0.01 * (i + 1);
        v[i] += 0.3 - 0.17 * i;
    }
    for (int a = 0; a < dirac_model_constraint_count(m); a++)
        mu[a] = 0.7 - 0.4 * a;
}

/// The first coordinate after 200 `midpoint` steps of dt = 1e-3 from the model's start (NaN
/// if the model is NULL or the simulation cannot be created; the steps stop at a failure).
static inline double model_final_x(const dirac_model *m)
{
    dirac_sim_options o = { .method = "midpoint", .dt = 1e-3 };
    dirac_sim *sim = NULL;
    dirac_error err;
    if (!m || dirac_sim_create(m, &o, &sim, &err) != DIRAC_OK)
        return NAN;
    for (int s = 0; s < 200; s++)
        if (dirac_sim_step(sim) != DIRAC_OK)
            break;
    double x = dirac_sim_q(sim)[0];
    dirac_sim_destroy(sim);
    return x;
}

#endif
