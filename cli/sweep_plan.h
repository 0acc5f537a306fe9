// The runs of `dirac sweep`: the values of the varied parameters for every run, from --vary
// specifications (a grid of ranges and lists, or distributions sampled by Latin hypercube).
//
//   NAME=A:B:N        N values from A to B, equally spaced, both ends included
//   NAME=A:B:N:log    N values from A to B (both > 0), equally spaced in log
//   NAME=V1,V2,...    a list
//   NAME=uniform(A,B), NAME=loguniform(A,B), NAME=normal(MEAN,SD)   (with --samples N)
//
// Grids: several --vary form the full product; run index i enumerates it with the last --vary
// varying fastest. Samples: N runs; every distribution gets its own Latin-hypercube column,
// drawn in the order of the --vary options from one generator seeded with the seed.
#ifndef DIRAC_CLI_SWEEP_PLAN_H
#define DIRAC_CLI_SWEEP_PLAN_H

#include <stddef.h>
#include <stdint.h>

#define SWEEP_MAX_VARIED 64
#define SWEEP_MAX_RUNS 100000000L

typedef enum sweep_kind {
    SWEEP_LIST,          // values[] given or computed (ranges)
    SWEEP_UNIFORM,
    SWEEP_LOGUNIFORM,
    SWEEP_NORMAL,
} sweep_kind;

typedef struct sweep_varied {
    char *name;          // the parameter, as -p names it
    sweep_kind kind;
    long count;          // SWEEP_LIST: number of values
    double *values;      // SWEEP_LIST
    double a, b;         // distributions: bounds, or mean and standard deviation
} sweep_varied;

typedef struct sweep_plan {
    int varied_count;
    sweep_varied varied[SWEEP_MAX_VARIED];
    long runs;
    double *values;      // runs x varied_count, row by row: run i's values
} sweep_plan;

/// Adds one --vary specification. Returns 0, or -1 with the reason in msg.
int sweep_plan_add(sweep_plan *plan, const char *spec, char *msg, size_t size);

/// Computes the runs: the grid (samples == 0) or `samples` Latin-hypercube draws with `seed`.
/// Returns 0, or -1 with the reason in msg.
int sweep_plan_finish(sweep_plan *plan, long samples, uint64_t seed, char *msg, size_t size);

/// Value of varied parameter k in run i.
double sweep_plan_value(const sweep_plan *plan, long i, int k);

void sweep_plan_free(sweep_plan *plan);

#endif
