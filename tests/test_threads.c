// The thread-safety contract (include/dirac/dirac.h): simulations running concurrently in
// separate threads, each with its own model or all sharing one compiled (const) model, give
// results bit-for-bit equal to the same simulations run one after another. scripts/test.sh
// also builds this program with ThreadSanitizer, which reports any data race between them.
#include "harness.h"
#include "problems.h"

#include <dirac/dirac.h>

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

enum { THREADS = 4, STEPS = 300, MAX_COORDS = 8 };

static const char *const models[] = {
    PENDULUM_OUTPUT_MODEL,
    KNIFE_EDGE_MODEL,
};
static const char *const methods[THREADS] = { "midpoint", "dirac1", "rk4", "dgrad" };

typedef struct job {
    const dirac_model *shared;   // NULL: compile a model of its own from `text`
    const char *text, *method;
    double q[MAX_COORDS], energy, output;
    dirac_status status;
} job;

static void *run_job(void *arg)
{
    job *j = arg;
    dirac_spec *spec = NULL;
    dirac_model *own = NULL;
    const dirac_model *model = j->shared;
    j->status = DIRAC_OK;
    if (!model) {
        j->status = dirac_spec_parse("m.dirac", j->text, strlen(j->text), &spec);
        if (j->status == DIRAC_OK)
            j->status = dirac_model_compile(spec, &own);
        model = own;
    }
    dirac_sim *sim = NULL;
    dirac_error err;
    dirac_sim_options o = { .method = j->method, .dt = 1e-3 };
    if (j->status == DIRAC_OK)
        j->status = dirac_sim_create(model, &o, &sim, &err);
    for (int s = 0; j->status == DIRAC_OK && s < STEPS; s++)
        j->status = dirac_sim_step(sim);
    if (j->status == DIRAC_OK) {
        memcpy(j->q, dirac_sim_q(sim), (size_t)dirac_model_coordinate_count(model) * sizeof(double));
        j->energy = dirac_sim_energy(sim);
        j->output = 0.0;
        if (dirac_model_output_count(model) > 0)
            dirac_sim_outputs(sim, &j->output);
    }
    dirac_sim_destroy(sim);
    dirac_model_destroy(own);
    dirac_spec_destroy(spec);
    return NULL;
}

static int same_bits(const job *a, const job *b)
{
    return !memcmp(a->q, b->q, sizeof a->q) && !memcmp(&a->energy, &b->energy, sizeof a->energy) &&
           !memcmp(&a->output, &b->output, sizeof a->output);
}

// THREADS jobs concurrently, then the same jobs serially; every pair must agree bit for bit
static void compare_concurrent_with_serial(job *concurrent, job *serial)
{
    pthread_t threads[THREADS];
    for (int k = 0; k < THREADS; k++)
        ENSURE(pthread_create(&threads[k], NULL, run_job, &concurrent[k]) == 0);
    for (int k = 0; k < THREADS; k++)
        pthread_join(threads[k], NULL);
    for (int k = 0; k < THREADS; k++) {
        run_job(&serial[k]);
        ENSURE_EQ_INT(concurrent[k].status, DIRAC_OK);
        ENSURE_EQ_INT(serial[k].status, DIRAC_OK);
        ENSURE(same_bits(&concurrent[k], &serial[k]));
    }
}

static void separate_models_per_thread(void)
{
    for (size_t mk = 0; mk < sizeof models / sizeof models[0]; mk++) {
        job concurrent[THREADS], serial[THREADS];
        memset(concurrent, 0, sizeof concurrent);
        for (int k = 0; k < THREADS; k++)
            concurrent[k] = (job){ .text = models[mk], .method = methods[k] };
        memcpy(serial, concurrent, sizeof serial);
        compare_concurrent_with_serial(concurrent, serial);
    }
}

// A sweep's threads: models of one structure with different parameter values, compiled and
// destroyed at once, share one loaded object of generated code (src/codegen_build.c); each
// thread's model must still run with its own constants.
static void parameter_values_per_thread(void)
{
    static const char *const g[THREADS] = { "9.81", "7.5", "3.25", "12" };
    char texts[THREADS][256];
    job concurrent[THREADS], serial[THREADS];
    memset(concurrent, 0, sizeof concurrent);
    for (int k = 0; k < THREADS; k++) {
        snprintf(texts[k], sizeof texts[k],
                 "model pendulum\nparameter m = 2, g = %s, l = 1\ncoordinate x, y\n"
                 "lagrangian m/2*(x'^2 + y'^2) - m*g*y\nconstraint rod: x^2 + y^2 = l^2\n"
                 "initial x = 0.6, y = -0.8\noutput angle = atan2(x, -y)\n", g[k]);
        concurrent[k] = (job){ .text = texts[k], .method = "midpoint" };
    }
    memcpy(serial, concurrent, sizeof serial);
    compare_concurrent_with_serial(concurrent, serial);
    for (int k = 1; k < THREADS; k++)   // another g, another motion
        ENSURE(concurrent[k].q[0] != concurrent[0].q[0]);
}

static void one_model_shared_by_threads(void)
{
    for (size_t mk = 0; mk < sizeof models / sizeof models[0]; mk++) {
        dirac_spec *spec = NULL;
        dirac_model *model = NULL;
        ENSURE(dirac_spec_parse("m.dirac", models[mk], strlen(models[mk]), &spec) == DIRAC_OK);
        ENSURE(dirac_model_compile(spec, &model) == DIRAC_OK);
        job concurrent[THREADS], serial[THREADS];
        memset(concurrent, 0, sizeof concurrent);
        for (int k = 0; k < THREADS; k++)   // the same method twice: identical runs at once
            concurrent[k] = (job){ .shared = model, .method = methods[k / 2] };
        memcpy(serial, concurrent, sizeof serial);
        if (model)
            compare_concurrent_with_serial(concurrent, serial);
        dirac_model_destroy(model);
        dirac_spec_destroy(spec);
    }
}

TEST_MAIN(TEST(separate_models_per_thread), TEST(parameter_values_per_thread),
          TEST(one_model_shared_by_threads))
