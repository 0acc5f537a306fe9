// Internal: generated C for the model's groups of expressions (issue 15, "Generated code").
//
// The groups a model evaluates (Lagrangian, gradient, Hessian values, constraints, ...) are
// emitted as one C function that computes any subset of them in one pass, sharing every
// common subexpression between the groups asked for together:
//     void eval(const double *x, const double *k, unsigned what, double *const *out, double *w,
//               const int *ix)
// writes group g's values to out[g] when bit g of `what` is set (out[g] is not read otherwise).
// x is the model's input vector, k the table of the model's constants (kept out of the source,
// so a parameter sweep reuses one compiled object), w scratch of codegen_work_size() doubles,
// ix the index table of loops over irregularly ordered family members (codegen_families.h).
//
// The source is compiled with the system C compiler ($CC, else `cc` on PATH) into a shared
// object cached in $DIRAC_CACHE_DIR (else $XDG_CACHE_HOME/dirac, else ~/.cache/dirac) under a
// hash of the source and of the compiler, and loaded with dlopen. Every operation is the one
// the tape performs, in the same order, so both give the same numbers (docs/benchmarks.md).
//
// A loaded object is shared in the process by the modules of the same source (built with the
// same environment: $CC, $PATH and the cache directory's variables) and unloaded with the last
// of them: a model compiled while another of its structure lives (a sweep's next run) takes
// it without the compiler's lookup, the file system or dlopen, and keeps its own constants.
//
// Threads: building is thread-safe (distinct temporary files, atomic rename into the cache,
// the list of loaded objects under a lock); a module is immutable and may be evaluated by
// several threads, each with its own w.
#ifndef DIRAC_SRC_CODEGEN_H
#define DIRAC_SRC_CODEGEN_H

#include "expr.h"

#include <stddef.h>

/// Largest number of groups one module evaluates (bits of `what`).
#define CODEGEN_MAX_GROUPS 32

typedef struct codegen_module codegen_module;

/// The generated evaluation function (see above).
typedef void (*codegen_fn)(const double *x, const double *k, unsigned what, double *const *out,
                           double *w, const int *ix);

/// What a build did, for `dirac check` and the run summary.
typedef struct codegen_report {
    int compiled;          // 1: generated code is loaded; 0: the tapes evaluate the model
    int cached;            // 1: the shared object was found in the cache (no compiler run)
    double seconds;        // wall time of the build (emission, compiler, loading)
    long statements;       // statements emitted
    int functions, files;  // functions and source files of the generated code
    unsigned tape_groups;  // groups the generated code leaves to the tapes (bit g)
    char reason[256];      // why the tapes evaluate the model; when compiled, why the stage
                           // kernels' build failed ("" otherwise, also for models that get
                           // no kernels)
} codegen_report;

/// A source in memory: the generated files, each a zero-terminated string.
typedef struct codegen_source {
    char **files;
    int file_count;
    double *constants;     // the constant table k (owned)
    int constant_count;
    int *index;            // the index table ix of the families' loops (owned; may be NULL)
    long index_count;
    int work_size;         // doubles of w
    long statements;
    int functions;
    unsigned tape_groups;  // groups left to the tapes (too long even with loops): bit g
} codegen_source;

/// Emits the source evaluating `n_groups` groups (group g: counts[g] expressions ids[g]).
/// DIRAC_ERR_SIZE when the model exceeds CODEGEN_MAX_STATEMENTS (the tapes are then used).
dirac_status codegen_emit(const expr_pool *pool, int n_groups, const expr_id *const *ids,
                          const int *counts, codegen_source *out, dirac_error *err);

/// Frees the files and constants of a source and zeroes it.
void codegen_source_free(codegen_source *src);

/// Largest number of statements generated code is emitted for, counted after indexed
/// families became loops (codegen_families.h). GCC 12 at -O2 takes about 0.5 ms (idle) to
/// 3 ms (loaded machine) per statement of this code (docs/benchmarks.md), so this bounds a
/// first run's compilation to seconds; larger models (whose outputs do not repeat) are
/// evaluated by the tapes, which cost the same per node at any size.
#define CODEGEN_MAX_STATEMENTS 10000L

/// Emits, compiles (or finds in the cache) and loads the code for the groups. Never fails:
/// *out is NULL when the tapes must be used, with the reason in report->reason. `appendix`
/// (NULL: none) is more C appended to the source, which may call the source's static
/// evaluation function dg_eval(DG_ARGS) (the stage kernels of codegen_stage.h); it is left out
/// when some group stays on its tape.
void codegen_build(const expr_pool *pool, int n_groups, const expr_id *const *ids,
                   const int *counts, const char *appendix, codegen_module **out,
                   codegen_report *report);

/// Evaluates the groups of `what` at x (see the function above); work: codegen_work_size().
void codegen_eval(const codegen_module *module, unsigned what, const double *x,
                  double *const *out, double *work);

/// Doubles of scratch codegen_eval needs.
int codegen_work_size(const codegen_module *module);

/// Unloads the code and frees the module; NULL is a no-op.
void codegen_destroy(codegen_module *module);

/// 0 when DIRAC_CODEGEN is "off" (or "0", "no", "tape"): the environment's veto, read at each
/// model compilation.
int codegen_enabled_by_environment(void);

#endif
