// Internal: the linear solvers of Newton's method behind one opaque handle — dense LU (LAPACK
// dgetrf/dgetrs) for small systems, sparse LU (SuiteSparse KLU) for large ones. A sparse
// matrix learns its pattern from one assembly in recording mode (every structurally possible
// entry is added, whatever its value), then KLU analyses it once; later factorizations reuse
// the analysis and, after the first, the pivot order (klu_refactor), so they do not allocate.
#ifndef DIRAC_SRC_LINSOLVE_H
#define DIRAC_SRC_LINSOLVE_H

#include <dirac/status.h>

#include <stdbool.h>

/// A linear solver (opaque: the dense LU and KLU live in linsolve.c).
typedef struct linsolve linsolve;

/// A solver for size x size systems, dense or sparse (dense storage is allocated now; sparse
/// structures when the pattern is recorded); DIRAC_ERR_NOMEM with *out NULL when out of memory.
dirac_status linsolve_create(int size, bool sparse, linsolve **out, dirac_error *err);
/// Releases the solver; NULL is a no-op.
void linsolve_destroy(linsolve *ls);

/// The size of its systems, whether it is sparse, and whether a sparse solver has recorded
/// its pattern (false for dense ones: they need none).
int linsolve_size(const linsolve *ls);
bool linsolve_is_sparse(const linsolve *ls);
bool linsolve_has_pattern(const linsolve *ls);

/// Sets every stored value to zero (before an assembly).
void linsolve_zero(linsolve *ls);

/// A[row][col] += value.
void linsolve_add(linsolve *ls, int row, int col, double value);

/// A dense solver's column-major size x size matrix (A[row][col] at col * size + row), for
/// assemblies that add precomputed targets; NULL for a sparse one.
double *linsolve_dense_values(linsolve *ls);

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

/// Solves A x = b and A y = c in place: the same operations as two linsolve_solve calls (so
/// the same numbers), with one dispatch and one pass over a small dense LU.
void linsolve_solve_pair(linsolve *ls, double *b, double *c);

/// Newton's reuse of a factorization (newton.c): the hidden magnitudes of the assembly behind
/// it (size entries, newton.h), the step size it was assembled for, whether the solver holds
/// the LU of the last assembled matrix (linsolve_zero forgets it), and the number of
/// factorizations so far (0 for NULL).
double *linsolve_kept_hidden(linsolve *ls);
double linsolve_kept_step_size(const linsolve *ls);
void linsolve_set_kept_step_size(linsolve *ls, double h);
bool linsolve_is_factored(const linsolve *ls);
long linsolve_factorizations(const linsolve *ls);

#endif
