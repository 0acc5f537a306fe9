// Internal: the linear solvers of Newton's method behind one interface — dense LU (LAPACK
// dgetrf/dgetrs) for small systems, sparse LU (SuiteSparse KLU) for large ones. A sparse
// matrix learns its pattern from one assembly in recording mode (every structurally possible
// entry is added, whatever its value), then KLU analyses it once; later factorizations reuse
// the analysis and, after the first, the pivot order (klu_refactor), so they do not allocate.
#ifndef DIRAC_SRC_LINSOLVE_H
#define DIRAC_SRC_LINSOLVE_H

#include <dirac/status.h>

#include <klu.h>
#include <lapacke.h>
#include <stdbool.h>

typedef struct linsolve {
    int size;
    bool sparse;
    // dense: column-major size x size
    double *dense;
    lapack_int *pivots;
    // sparse: compressed columns
    bool recording, has_pattern;
    int *trip_row, *trip_col;
    long trip_count, trip_cap;
    int nnz;
    int *col_start, *row_index;
    double *values;
    long pattern_misses;        // entries added outside the recorded pattern (a bug if > 0)
    klu_common common;
    klu_symbolic *symbolic;
    klu_numeric *numeric;
    // the matrix behind the factorization, kept for Newton's reuse of it (newton.c):
    double *assembled;          // dense: its values (the LU overwrites `dense`); sparse: NULL
                                // (KLU keeps `values`)
    double *hidden;             // the assembly's hidden magnitudes (newton.h), size entries
    bool factored;              // holds the LU of the last assembled matrix
    double step_size;           // newton.c: the step size it was assembled for
    long factorizations;        // LU factorizations so far (counter for tests and benchmarks)
} linsolve;

/// Prepares a solver for size x size systems (dense storage is allocated now; sparse
/// structures when the pattern is recorded).
dirac_status linsolve_init(linsolve *ls, int size, bool sparse, dirac_error *err);
void linsolve_free(linsolve *ls);

/// Sets every stored value to zero (before an assembly).
void linsolve_zero(linsolve *ls);

/// A[row][col] += value.
void linsolve_add(linsolve *ls, int row, int col, double value);

/// Sparse: starts/ends recording the pattern (linsolve_add then records positions).
void linsolve_begin_pattern(linsolve *ls);
dirac_status linsolve_end_pattern(linsolve *ls, dirac_error *err);

/// out_i = Σ_j |A_ij| x_j of the assembled matrix (also after its factorization: the dense
/// values are kept).
void linsolve_row_magnitudes(const linsolve *ls, const double *x, double *out);

/// out_j = max_i row_scale_i / |A_ij| over the entries of column j of at least 1e-8 of the
/// column's largest (0 for an empty column): the change of unknown j that is at the scale of
/// some equation it enters. Of the assembled matrix (also after its factorization).
void linsolve_column_reach(const linsolve *ls, const double *row_scale, double *out);

/// Factorizes the assembled matrix (a dense one is copied first, so that its magnitudes stay
/// readable). DIRAC_ERR_SINGULAR with *bad_column (0-based) on a zero pivot; DIRAC_ERR_NOMEM
/// if KLU could not allocate. Sets `factored` on success and counts `factorizations`.
dirac_status linsolve_factor(linsolve *ls, int *bad_column);

/// Solves A x = b in place (after a successful factorization).
void linsolve_solve(linsolve *ls, double *b);

#endif
