// Allocation failure anywhere in the pipeline is a clean error: for n = 1, 2, ... the n-th
// allocation of load + compile + sim create + 100 steps fails, and each run must end in
// DIRAC_ERR_NOMEM with a message, leak nothing and not crash, until n passes the number of
// allocations a whole run makes. The program is linked with --wrap for malloc, calloc,
// realloc and free (tests/CMakeLists.txt); every allocation libdirac makes goes through
// these (those inside LAPACK and KLU do not: shared libraries are not wrapped). Leaks are
// counted here (allocations minus frees) and, in the sanitizer build, by LeakSanitizer.
#include "harness.h"

#include <dirac/dirac.h>

#include <stdlib.h>

void *__real_malloc(size_t size);
void *__real_calloc(size_t count, size_t size);
void *__real_realloc(void *p, size_t size);
void __real_free(void *p);
void *__wrap_malloc(size_t size);
void *__wrap_calloc(size_t count, size_t size);
void *__wrap_realloc(void *p, size_t size);
void __wrap_free(void *p);

static long calls;        // allocation calls since the counter was reset
static long fail_at = -1; // the call that fails (1-based), -1: none
static long live;         // blocks allocated here and not yet freed

// The blocks allocated through the wrappers (open addressing, linear probing, tombstones), so
// that frees of memory the C library allocated itself (realpath) are not counted.
enum { LIVE_SLOTS = 1 << 20 };
#define TOMBSTONE ((void *)1)
static void *live_set[LIVE_SLOTS];

static size_t slot_of(const void *p)
{
    return (size_t)(((uintptr_t)p >> 4) * 0x9E3779B97F4A7C15ull) & (LIVE_SLOTS - 1);
}

static void live_add(void *p)
{
    if (!p)
        return;
    size_t k = slot_of(p);
    while (live_set[k] && live_set[k] != TOMBSTONE)
        k = (k + 1) & (LIVE_SLOTS - 1);
    live_set[k] = p;
    live++;
}

static void live_remove(void *p)
{
    if (!p)
        return;
    for (size_t k = slot_of(p); live_set[k]; k = (k + 1) & (LIVE_SLOTS - 1))
        if (live_set[k] == p) {
            live_set[k] = TOMBSTONE;
            live--;
            return;
        }
}

static int injected_failure(void)
{
    return ++calls == fail_at;
}

void *__wrap_malloc(size_t size)
{
    if (injected_failure())
        return NULL;
    void *p = __real_malloc(size);
    live_add(p);
    return p;
}

void *__wrap_calloc(size_t count, size_t size)
{
    if (injected_failure())
        return NULL;
    void *p = __real_calloc(count, size);
    live_add(p);
    return p;
}

void *__wrap_realloc(void *p, size_t size)
{
    if (injected_failure())
        return NULL;
    void *q = __real_realloc(p, size);
    if (q) {
        live_remove(p);
        live_add(q);
    }
    return q;
}

void __wrap_free(void *p)
{
    live_remove(p);
    __real_free(p);
}

typedef struct pipeline_result {
    dirac_status status;
    int has_message;      // a failed stage left a non-empty message
    long allocations;     // allocation calls the run made
    long leaked;          // blocks still allocated after every destroy
    int steps;
    double final_q[256];  // the first coordinates after the last step
} pipeline_result;

typedef struct oom_model {
    const char *path;        // under DIRAC_SOURCE_DIR
    const char *override;    // -p, or NULL
    const char *method;
} oom_model;

enum { STEPS = 100 };

// load + compile + create + STEPS steps + destroy, failing allocation `fail` (-1: none)
static pipeline_result run_pipeline(const oom_model *om, long fail)
{
    pipeline_result r;
    memset(&r, 0, sizeof r);
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", DIRAC_SOURCE_DIR, om->path);
    long live0 = live;
    calls = 0;
    fail_at = fail;
    dirac_spec *spec = NULL;
    dirac_model *model = NULL;
    dirac_sim *sim = NULL;
    dirac_error err = { 0 };
    r.status = dirac_spec_load(path, &spec);
    if (r.status == DIRAC_OK && om->override)
        r.status = dirac_spec_set_parameter(spec, om->override);
    if (r.status == DIRAC_OK)
        r.status = dirac_model_compile(spec, &model);
    if (r.status != DIRAC_OK) {
        // a load that cannot even allocate the spec returns NULL (model.h)
        r.has_message = spec ? dirac_spec_errmsg(spec)[0] != '\0' : r.status == DIRAC_ERR_NOMEM;
    } else {
        dirac_sim_options options = { .method = om->method, .dt = 1e-3 };
        r.status = dirac_sim_create(model, &options, &sim, &err);
        if (r.status != DIRAC_OK) {
            r.has_message = err.message[0] != '\0' && err.status == r.status;
        } else {
            for (r.steps = 0; r.steps < STEPS; r.steps++) {
                r.status = dirac_sim_step(sim);
                if (r.status != DIRAC_OK) {
                    r.has_message = dirac_sim_errmsg(sim)[0] != '\0';
                    break;
                }
            }
            int n = dirac_model_coordinate_count(model);
            memcpy(r.final_q, dirac_sim_q(sim), (size_t)(n < 256 ? n : 256) * sizeof(double));
        }
    }
    dirac_sim_destroy(sim);
    dirac_model_destroy(model);
    dirac_spec_destroy(spec);
    r.allocations = calls;
    fail_at = -1;
    r.leaked = live - live0;
    return r;
}

static void sweep(const oom_model *om)
{
    pipeline_result full = run_pipeline(om, -1);
    ENSURE_EQ_INT(full.status, DIRAC_OK);
    ENSURE_EQ_INT(full.steps, STEPS);
    ENSURE_EQ_INT(full.leaked, 0);
    ENSURE(full.allocations > 10);
    long bad = 0;
    long tolerated = 0;
    for (long n = 1; n <= full.allocations; n++) {
        pipeline_result r = run_pipeline(om, n);
        // a failure may only be absorbed where the code does not need the memory (a shrinking
        // realloc keeps the old block): then the run must be the unfailed one, bit for bit
        int same = r.status == DIRAC_OK && r.steps == STEPS &&
                   !memcmp(r.final_q, full.final_q, sizeof r.final_q);
        tolerated += same;
        int ok = ((r.status == DIRAC_ERR_NOMEM && r.has_message) || same) && r.leaked == 0;
        if (!ok && bad++ < 5)
            fprintf(stderr, "  %s: allocation %ld of %ld failed: status %s (%d), message %s, "
                    "%ld blocks leaked, %d steps\n", om->path, n, full.allocations,
                    dirac_status_string(r.status), (int)r.status, r.has_message ? "yes" : "no",
                    r.leaked, r.steps);
        ENSURE(ok);
    }
    printf("  %s (%s): %ld allocation points, %ld absorbed, %ld bad\n", om->path, om->method,
           full.allocations, tolerated, bad);
}

static void oom_pendulum(void)
{
    sweep(&(oom_model){ "examples/pendulum.dirac", NULL, "midpoint" });
}

static void oom_pendulum_methods(void)
{
    const char *methods[] = { "dirac1", "dirac2", "dgrad", "euler", "rk4", "lobatto3" };
    for (size_t k = 0; k < sizeof methods / sizeof methods[0]; k++)
        sweep(&(oom_model){ "examples/pendulum.dirac", NULL, methods[k] });
}

static void oom_components(void)
{
    sweep(&(oom_model){ "examples/interconnect/dc_motor/dc_motor.dirac", NULL, "midpoint" });
}

static void oom_thermo(void)
{
    sweep(&(oom_model){ "examples/thermo/cylinder_piston.dirac", NULL, "midpoint" });
}

static void oom_sparse(void)
{
    // 2N = 50 coordinates + N = 25 multipliers: 75 unknowns, above the 64 where the automatic
    // choice takes the sparse solver (KLU)
    sweep(&(oom_model){ "examples/scale/chain.dirac", "N=25", "midpoint" });
}

TEST_MAIN(TEST(oom_pendulum), TEST(oom_pendulum_methods), TEST(oom_components),
          TEST(oom_thermo), TEST(oom_sparse))
