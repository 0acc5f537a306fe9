// Test helper: a model compiled from text and a simulation of it, with failures reported
// through the harness (ENSURE). Include after harness.h.
#ifndef DIRAC_TEST_SIM_RUN_H
#define DIRAC_TEST_SIM_RUN_H

#include <dirac/dirac.h>

#include <stdlib.h>

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

// Parses `text`, applies the `n_overrides` -p assignments, compiles and creates the simulation.
static inline int run_open_with(run *r, const char *text, const char *const *overrides,
                                int n_overrides, const dirac_sim_options *options)
{
    memset(r, 0, sizeof *r);
    dirac_status status = dirac_spec_parse("test.dirac", text, strlen(text), &r->spec);
    for (int k = 0; status == DIRAC_OK && k < n_overrides; k++)
        status = dirac_spec_set_parameter(r->spec, overrides[k]);
    if (status == DIRAC_OK)
        status = dirac_model_compile(r->spec, &r->model);
    if (status != DIRAC_OK) {
        fprintf(stderr, "  %s\n", r->spec ? dirac_spec_errmsg(r->spec) : "out of memory");
        ENSURE(status == DIRAC_OK);
        run_close(r);
        return 0;
    }
    dirac_error err;
    if (dirac_sim_create(r->model, options, &r->sim, &err) != DIRAC_OK) {
        fprintf(stderr, "  %s: %s\n", options->method, err.message);
        ENSURE(!"simulation created");
        run_close(r);
        return 0;
    }
    return 1;
}

static inline int run_steps(run *r, long steps)
{
    for (long k = 0; k < steps; k++)
        if (dirac_sim_step(r->sim) != DIRAC_OK) {
            fprintf(stderr, "  %s\n", dirac_sim_errmsg(r->sim));
            ENSURE(!"step failed");
            return 0;
        }
    return 1;
}

#endif
