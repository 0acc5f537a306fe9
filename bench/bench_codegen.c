// Generated code against the evaluation tapes (src/codegen*.c), on every model of examples/
// (and examples/*/): for each, the first compilation's extra time (an empty cache: emission,
// the C compiler, loading), the same with the object cached, and ns per step of the model's
// own method and dt with each path, in the same run.
//
// Times per step are CPU time of the process (CLOCK_PROCESS_CPUTIME_ID, not wall time: the
// benchmark machine is shared), the minimum over R = 7 runs of S steps (S: about 0.05 s), the
// two paths interleaved. Compile times are wall times (the compiler is another process).
//
// Usage: bench_codegen [EXAMPLES_DIR]   (default: the source tree's examples/)
#define _GNU_SOURCE   // mkdtemp, setenv
#include <dirac/dirac.h>

#include <glob.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#ifndef DIRAC_SOURCE_DIR
#define DIRAC_SOURCE_DIR "."
#endif

enum { REPETITIONS = 7 };

static double cpu_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static double wall_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static dirac_model *compile(const char *path, dirac_codegen_mode mode, double *seconds)
{
    dirac_spec *spec = NULL;
    dirac_model *model = NULL;
    double start = wall_now();
    if (dirac_spec_load(path, &spec) == DIRAC_OK && dirac_spec_set_codegen(spec, mode) == DIRAC_OK)
        dirac_model_compile(spec, &model);
    *seconds = wall_now() - start;
    dirac_spec_destroy(spec);
    return model;
}

// CPU seconds per step of `steps` steps from the initial state; NaN if a step fails
static double run(const dirac_model *m, long steps)
{
    dirac_simulate_defaults d;
    dirac_model_simulate_defaults(m, &d);
    dirac_sim_options o = { .method = d.has_method ? d.method : NULL,
                            .dt = d.has_dt ? d.dt : 1e-3, .project_initial = 1 };
    dirac_sim *sim = NULL;
    dirac_error err;
    if (dirac_sim_create(m, &o, &sim, &err) != DIRAC_OK)
        return NAN;
    double start = cpu_now();
    for (long k = 0; k < steps; k++)
        if (dirac_sim_step(sim) != DIRAC_OK) {
            dirac_sim_destroy(sim);
            return NAN;
        }
    double seconds = cpu_now() - start;
    dirac_sim_destroy(sim);
    return seconds / (double)steps;
}

int main(int argc, char **argv)
{
    const char *examples = argc > 1 ? argv[1] : DIRAC_SOURCE_DIR "/examples";
    char cache[] = "/tmp/dirac-bench-codegen-XXXXXX";
    if (!mkdtemp(cache)) {
        perror("bench_codegen: mkdtemp");
        return 1;
    }
    setenv("DIRAC_CACHE_DIR", cache, 1);
    printf("| model | statements | first compile extra (s) | cached extra (s) | tape ns/step | "
           "generated ns/step | tape/generated |\n|---|---|---|---|---|---|---|\n");
    double worst_first = 0.0, worst_cached = 0.0;
    for (int level = 0; level < 2; level++) {
        char pattern[1024];
        snprintf(pattern, sizeof pattern, level ? "%s/*/*.dirac" : "%s/*.dirac", examples);
        glob_t g;
        if (glob(pattern, 0, NULL, &g) != 0)
            continue;
        for (size_t f = 0; f < g.gl_pathc; f++) {
            const char *path = g.gl_pathv[f];
            double off_seconds, first_seconds, cached_seconds;
            dirac_model *taped = compile(path, DIRAC_CODEGEN_OFF, &off_seconds);
            if (!taped)
                continue;   // a component file
            dirac_model *first = compile(path, DIRAC_CODEGEN_AUTO, &first_seconds);
            dirac_model *cached = compile(path, DIRAC_CODEGEN_AUTO, &cached_seconds);
            dirac_model_evaluation e1, e2;
            dirac_model_evaluation_info(first, &e1);
            dirac_model_evaluation_info(cached, &e2);
            // steps per run: about 0.05 s of the tape path
            double probe = run(taped, 200);
            long steps = isfinite(probe) && probe > 0 ? (long)(0.05 / probe) : 0;
            if (steps < 100)
                steps = 100;
            double best_tape = INFINITY, best_generated = INFINITY;
            for (int r = 0; r < REPETITIONS; r++) {
                double a = run(taped, steps), b = run(cached, steps);
                best_tape = a < best_tape ? a : best_tape;
                best_generated = b < best_generated ? b : best_generated;
            }
            const char *name = strstr(path, "examples/") ? strstr(path, "examples/") + 9 : path;
            double extra_first = first_seconds - off_seconds;
            double extra_cached = cached_seconds - off_seconds;
            worst_first = extra_first > worst_first ? extra_first : worst_first;
            worst_cached = extra_cached > worst_cached ? extra_cached : worst_cached;
            printf("| %s | %ld | %.3f%s | %.4f%s | %.0f | %.0f | %.2f |\n", name, e1.statements,
                   extra_first, e1.compiled && !e1.cached ? "" : " (not compiled)", extra_cached,
                   e2.compiled && e2.cached ? "" : " (not cached)", 1e9 * best_tape,
                   1e9 * best_generated, best_tape / best_generated);
            dirac_model_destroy(taped);
            dirac_model_destroy(first);
            dirac_model_destroy(cached);
        }
        globfree(&g);
    }
    printf("\nlargest extra time of a first compilation: %.3f s; of a cached one: %.4f s\n",
           worst_first, worst_cached);
    char command[128];
    snprintf(command, sizeof command, "rm -rf '%s'", cache);
    return system(command) == 0 ? 0 : 1;
}
