// Allocation failure anywhere in the pipeline is a clean error: for n = 1, 2, ... the n-th
// allocation of load + compile + sim create + 100 steps fails, and each run must end in
// DIRAC_ERR_NOMEM with a message, leak nothing and not crash, until n passes the number of
// allocations a whole run makes. The program is linked with --wrap for malloc, calloc,
// realloc and free (tests/CMakeLists.txt); every allocation libdirac makes goes through
// these (those inside LAPACK and KLU do not: shared libraries are not wrapped). Leaks are
// counted here (allocations minus frees) and, in the sanitizer build, by LeakSanitizer.
// The library's own failure injection (src/mem.h: a spec's counter, continued by the model
// compiled from it) is swept the same way.
#include "harness.h"

#include "model.h"
#include "spec_api.h"

#include <dirac/dirac.h>

#include <stdalign.h>
#include <stdint.h>
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

// The stages of a run, in order.
typedef enum { STAGE_LOAD, STAGE_COMPILE, STAGE_CREATE, STAGE_STEP, STAGE_DONE } stage;

// Which allocation a run fails: the n-th one the linker's wrappers see, or the n-th one the
// library counts (spec_options.fail_alloc_after).
typedef enum { FAIL_WRAPPED, FAIL_COUNTED } fail_route;

typedef struct pipeline_result {
    dirac_status status;
    stage reached;        // the stage that failed (STAGE_DONE: none)
    int has_message;      // a failed stage left a non-empty message
    long allocations;     // allocation calls the run made
    long counted;         // of those, the ones the spec's and the model's counters booked
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

// Loads the model file at `path`: through the public call, or (FAIL_COUNTED) through the
// parser with the failure injection option, wrapped in the caller's handle.
static dirac_status load(const char *path, long fail, fail_route route, dirac_spec *handle,
                         dirac_spec **loaded)
{
    if (route == FAIL_WRAPPED)
        return dirac_spec_load(path, loaded);
    spec_options options = { 0, fail > 0 ? fail : 0 };
    dirac_status status = spec_load_file(path, &options, &handle->parsed);
    *loaded = handle->parsed ? handle : NULL;
    return status;
}

// sim create + STEPS steps into r (the model compiled)
static void simulate(const oom_model *om, const dirac_model *model, dirac_sim **sim,
                     pipeline_result *r)
{
    dirac_error err = { 0 };
    dirac_sim_options options = { .method = om->method, .dt = 1e-3 };
    r->reached = STAGE_CREATE;
    r->status = dirac_sim_create(model, &options, sim, &err);
    if (r->status != DIRAC_OK) {
        r->has_message = err.message[0] != '\0' && err.status == r->status;
        return;
    }
    r->reached = STAGE_STEP;
    for (r->steps = 0; r->steps < STEPS; r->steps++) {
        r->status = dirac_sim_step(*sim);
        if (r->status != DIRAC_OK) {
            r->has_message = dirac_sim_errmsg(*sim)[0] != '\0';
            return;
        }
    }
    r->reached = STAGE_DONE;
    int n = dirac_model_coordinate_count(model);
    memcpy(r->final_q, dirac_sim_q(*sim), (size_t)(n < 256 ? n : 256) * sizeof(double));
}

// load + compile + create + STEPS steps + destroy, failing allocation `fail` (-1: none)
static pipeline_result run_pipeline(const oom_model *om, long fail, fail_route route)
{
    pipeline_result r;
    memset(&r, 0, sizeof r);
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", DIRAC_SOURCE_DIR, om->path);
    long live0 = live;
    calls = 0;
    fail_at = route == FAIL_WRAPPED ? fail : -1;
    dirac_spec handle = { NULL }, *loaded = NULL;
    dirac_model *model = NULL;
    dirac_sim *sim = NULL;
    r.reached = STAGE_LOAD;
    r.status = load(path, fail, route, &handle, &loaded);
    if (r.status == DIRAC_OK && om->override)
        r.status = dirac_spec_set_parameter(loaded, om->override);
    if (r.status == DIRAC_OK) {
        r.reached = STAGE_COMPILE;
        r.status = dirac_model_compile(loaded, &model);
    }
    if (r.status != DIRAC_OK)   // a load that cannot even allocate the spec returns NULL (model.h)
        r.has_message = loaded ? dirac_spec_errmsg(loaded)[0] != '\0' : r.status == DIRAC_ERR_NOMEM;
    else
        simulate(om, model, &sim, &r);
    r.counted = (loaded ? spec_allocations(loaded->parsed)->calls : 0) + (model ? model->mem.calls : 0);
    dirac_sim_destroy(sim);
    dirac_model_destroy(model);
    if (route == FAIL_WRAPPED)
        dirac_spec_destroy(loaded);
    else
        spec_destroy(handle.parsed);
    r.allocations = calls;
    fail_at = -1;
    r.leaked = live - live0;
    return r;
}

static void sweep(const oom_model *om)
{
    pipeline_result full = run_pipeline(om, -1, FAIL_WRAPPED);
    ENSURE_EQ_INT(full.status, DIRAC_OK);
    ENSURE_EQ_INT(full.steps, STEPS);
    ENSURE_EQ_INT(full.leaked, 0);
    ENSURE(full.allocations > 10);
    long bad = 0;
    long tolerated = 0;
    for (long n = 1; n <= full.allocations; n++) {
        pipeline_result r = run_pipeline(om, n, FAIL_WRAPPED);
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

// The same sweep through the library's own counters: the k-th allocation the spec, then the
// model (which continues the spec's count) and any object that continues the model's count
// book fails, for k = 1, 2, ... until a run goes through, which must be bit for bit the run
// without injection, and only after every allocation the spec and the model count was failed
// once. Some of the failures must land in model compilation, and some in dirac_sim_create
// (the simulation continues the model's count).
static void sweep_counted(const oom_model *om)
{
    pipeline_result full = run_pipeline(om, -1, FAIL_COUNTED);
    ENSURE_EQ_INT(full.status, DIRAC_OK);
    ENSURE_EQ_INT(full.reached, STAGE_DONE);
    ENSURE(full.counted > 10);
    ENSURE_EQ_INT((int)full.leaked, 0);
    long in_compile = 0, in_create = 0, bad = 0, k = 1;
    for (; k <= full.allocations; k++) {
        pipeline_result r = run_pipeline(om, k, FAIL_COUNTED);
        int same = r.status == DIRAC_OK && r.reached == STAGE_DONE &&
                   !memcmp(r.final_q, full.final_q, sizeof r.final_q);
        int ok = ((r.status == DIRAC_ERR_NOMEM && r.has_message) || same) && r.leaked == 0;
        in_compile += r.status == DIRAC_ERR_NOMEM && r.reached == STAGE_COMPILE;
        in_create += r.status == DIRAC_ERR_NOMEM && r.reached == STAGE_CREATE;
        if (!ok && bad++ < 5)
            fprintf(stderr, "  %s: counted allocation %ld failed: status %s, stage %d, "
                    "message %s, %ld blocks leaked\n", om->path, k,
                    dirac_status_string(r.status), (int)r.reached, r.has_message ? "yes" : "no",
                    r.leaked);
        ENSURE(ok);
        if (same)
            break;
    }
    ENSURE(k > full.counted && k <= full.allocations);
    ENSURE(in_compile > 0);
    ENSURE(in_create > 0);
    printf("  %s (%s): %ld counted allocation points (%ld of spec and model), %ld in compile, "
           "%ld in create, %ld bad\n", om->path, om->method, k - 1, full.counted, in_compile,
           in_create, bad);
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

static void oom_compile_stages(void)
{
    // inputs, a two-form and outputs; a nonholonomic constraint (its rate by substitution);
    // breakpoints in time; accelerations in outputs
    const oom_model models[] = {
        { "examples/fmi/dc_motor.dirac", NULL, "midpoint" },
        { "examples/knife_edge.dirac", NULL, "midpoint" },
        { "tests/data/switched_oscillator.dirac", NULL, "midpoint" },
        { "tests/data/acceleration_outputs.dirac", NULL, "midpoint" },   // outputs x''
    };
    for (size_t k = 0; k < sizeof models / sizeof models[0]; k++)
        sweep(&models[k]);
}

static void oom_counted(void)
{
    sweep_counted(&(oom_model){ "examples/pendulum.dirac", NULL, "midpoint" });
    sweep_counted(&(oom_model){ "examples/interconnect/dc_motor/dc_motor.dirac", NULL, "midpoint" });
    sweep_counted(&(oom_model){ "examples/thermo/cylinder_piston.dirac", NULL, "midpoint" });
    sweep_counted(&(oom_model){ "examples/scale/chain.dirac", "N=25", "midpoint" });
}

// The allocator's own rules (src/mem.h): a counter fails exactly after fail_after successful
// allocations, an inherited one continues the parent's count, and a plan lays arrays out
// disjoint, aligned for any object and inside one block of the size the sizing pass found.
static void mem_rules(void)
{
    mem_counter parent = mem_counter_make(5);
    void *blocks[5];
    for (int k = 0; k < 3; k++)
        ENSURE((blocks[k] = mem_alloc(&parent, 8)) != NULL);
    mem_counter child = mem_counter_inherit(&parent);   // 2 left of the parent's 5
    ENSURE((blocks[3] = mem_alloc(&child, 8)) != NULL);
    ENSURE((blocks[4] = mem_calloc(&child, 2, 4)) != NULL);
    ENSURE(mem_alloc(&child, 8) == NULL && child.failed);
    void *more = mem_alloc(&parent, 8);   // the parent keeps its own count: 4 of 5
    ENSURE(more != NULL && parent.calls == 4);
    free(more);
    for (int k = 0; k < 5; k++)
        free(blocks[k]);
    mem_counter never = mem_counter_inherit(NULL);
    ENSURE_EQ_INT(never.fail_after, -1);

    struct { double *a; char *b; int *c; long double *d; } t;
    size_t count[4] = { 3, 5, 0, 2 };
    mem_plan plan = { 0 };
    for (int pass = 0; pass < 2; pass++) {
        t.a = mem_plan_take(&plan, count[0], sizeof *t.a);
        t.b = mem_plan_take(&plan, count[1], sizeof *t.b);
        t.c = mem_plan_take(&plan, count[2], sizeof *t.c);
        t.d = mem_plan_take(&plan, count[3], sizeof *t.d);
        if (pass == 0) {
            ENSURE(t.a == NULL && t.d == NULL);
            ENSURE(mem_plan_alloc(&plan, NULL));
        }
    }
    unsigned char *base = plan.block, *end = base + plan.size;
    unsigned char *start[4] = { (unsigned char *)t.a, (unsigned char *)t.b,
                                (unsigned char *)t.c, (unsigned char *)t.d };
    size_t bytes[4] = { 3 * sizeof(double), 5, 0, 2 * sizeof(long double) };
    for (int k = 0; k < 4; k++) {
        ENSURE(start[k] >= base && start[k] + bytes[k] <= end);
        ENSURE((uintptr_t)start[k] % alignof(max_align_t) == 0);
        if (k > 0)
            ENSURE(start[k] >= start[k - 1] + bytes[k - 1]);   // disjoint, in order
    }
    for (size_t k = 0; k < plan.size; k++)
        ENSURE(base[k] == 0);   // zeroed
    mem_free(NULL, plan.block);
    mem_plan huge = { 0 };
    mem_plan_take(&huge, SIZE_MAX / 2, 4);
    ENSURE(huge.overflow && !mem_plan_alloc(&huge, NULL));
}

TEST_MAIN(TEST(mem_rules), TEST(oom_pendulum), TEST(oom_pendulum_methods), TEST(oom_components),
          TEST(oom_thermo), TEST(oom_sparse), TEST(oom_compile_stages), TEST(oom_counted))
