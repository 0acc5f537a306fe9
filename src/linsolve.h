// Internal: the linear solvers of Newton's method behind one opaque handle — dense LU (LAPACK
// dgetrf/dgetrs) for small systems, sparse LU (SuiteSparse KLU) for large ones. A sparse
// matrix learns its pattern from one assembly in recording mode (every structurally possible
// entry is added, whatever its value), then KLU analyses it once; later factorizations reuse
// the analysis and, after the first, the pivot order (klu_refactor), so they do not allocate.
// The exception, in any step: when the kept pivot order turns unstable (klu_refactor fails, or
// its reciprocal condition estimate is at most 1e-14), klu_factor chooses a new one and
// allocates new factors, and the compressed copy of a kept factorization
// (linsolve_factor_keeping) grows if the new order has more entries. Reserving a worst case
// in advance would not avoid it: KLU's own factors are allocated anew either way, and the fill
// of a new pivot order is not bounded by the analysis's estimate.
#ifndef DIRAC_SRC_LINSOLVE_H
#define DIRAC_SRC_LINSOLVE_H

#include <dirac/status.h>

#include <float.h>
#include <math.h>
#include <stdbool.h>
#include <string.h>

/// The sizes 1 to 16 get their own copy of a loop with n a constant (unrolled by the compiler:
/// the loop overhead is most of the work of a 3 x 3 solve; dgrad's 14 x 14 system of the
/// double pendulum runs 10 % faster): `switch (n) { LINSOLVE_SMALL_CASES(CALL); default: ... }`
/// with CALL(k) the code for size k (ending in return or break).
#define LINSOLVE_SMALL_CASES(call)                                                                \
    case 1: call(1); case 2: call(2); case 3: call(3); case 4: call(4);                           \
    case 5: call(5); case 6: call(6); case 7: call(7); case 8: call(8);                           \
    case 9: call(9); case 10: call(10); case 11: call(11); case 12: call(12);                     \
    case 13: call(13); case 14: call(14); case 15: call(15); case 16: call(16)

/// d = 0 for n doubles (square: n x n doubles), with n from 1 to 16 a compile-time constant in
/// its own case, so that the compiler writes the stores in place of a library call (most of
/// the cost of clearing three values).
static inline void linsolve_zero_doubles(double *d, int n, bool square)
{
#define LINSOLVE_ZERO_CASE(k)                                                                     \
    memset(d, 0, (square ? (k) * (k) : (k)) * sizeof *d);                                         \
    return
    switch (n) {
        LINSOLVE_SMALL_CASES(LINSOLVE_ZERO_CASE);
    default:
        memset(d, 0, (size_t)n * (square ? (size_t)n : 1) * sizeof *d);
    }
#undef LINSOLVE_ZERO_CASE
}

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

/// Sparse only: out_i = Σ_j |A_ij| x_j of the assembled matrix (also after its factorization:
/// KLU keeps the values). Dense matrices are read through linsolve_dense_matrix (newton.c
/// measures them with the size a compile-time constant).
void linsolve_row_magnitudes(const linsolve *ls, const double *x, double *out);

/// Entries below this fraction of their column's largest are weak couplings: their reach
/// r / |a| says nothing about the unknown's rounding level (linsolve_column_reach).
#define LINSOLVE_REACH_COUPLING 1e-8

/// A column's reach max_i row_scale_i / |a_i| over its `count` entries a (of the rows row[i],
/// or i when row is NULL) of at least LINSOLVE_REACH_COUPLING of its largest magnitude
/// `strongest`; 0 when none is, or when the reach is not finite. a > 0 and a >= the coupling
/// limit are one test: the limit itself, or the least positive double when the limit is 0
/// (an empty column, or an underflow). NaN entries fail it.
static inline __attribute__((always_inline)) double
linsolve_reach(const double *restrict a, const int *restrict row, int count,
               const double *restrict row_scale, double strongest)
{
    double weakest = LINSOLVE_REACH_COUPLING * strongest, reach = 0.0;
    double least = weakest > 0.0 ? weakest : DBL_TRUE_MIN;
    for (int i = 0; i < count; i++) {
        double magnitude = fabs(a[i]), q = row_scale[row ? row[i] : i] / magnitude;
        if (magnitude >= least && q > reach)
            reach = q;
    }
    return isfinite(reach) ? reach : 0.0;
}

/// Sparse only: out_j = factor · max_i row_scale_i / |A_ij| over the entries of column j of at
/// least LINSOLVE_REACH_COUPLING of the column's largest (0 for an empty column): the change of
/// unknown j that is at the scale of some equation it enters. Of the assembled matrix (also
/// after its factorization).
void linsolve_column_reach(const linsolve *ls, const double *row_scale, double factor,
                           double *out);

/// A dense solver's assembled matrix (column-major, A[row][col] at col * size + row) for
/// reading: before its factorization, or after linsolve_factor_keeping; NULL for a sparse
/// solver and after linsolve_factor (the LU has overwritten it).
const double *linsolve_dense_matrix(const linsolve *ls);

/// Factorizes the assembled matrix in place (a dense one is overwritten by its LU).
/// DIRAC_ERR_SINGULAR with *bad_column (0-based) on a zero pivot; DIRAC_ERR_NOMEM if KLU could
/// not allocate. Sets `factored` on success and counts `factorizations`.
dirac_status linsolve_factor(linsolve *ls, int *bad_column);

/// linsolve_factor, keeping the matrix readable beside its LU (a dense one is copied first):
/// for a factorization reused with its magnitudes later (Newton's constant Jacobians). A sparse
/// one's factors are also copied into compressed columns (klu_extract; allocated at the first
/// such factorization), from which linsolve_solve then substitutes in klu_solve's order of
/// operations (the same numbers) without KLU's packed-storage dispatch; the factors of an
/// irreducible matrix (one diagonal block) in sweep form (linsolve_sweep.h), which streams
/// for banded matrices.
dirac_status linsolve_factor_keeping(linsolve *ls, int *bad_column);

/// Solves A x = b in place (after a successful factorization).
void linsolve_solve(linsolve *ls, double *b);

/// linsolve_solve, and whether every entry of x is finite: the diagonal solver and a kept
/// sparse factorization of one block check the entries as they write them (no pass of its
/// own), the others scan x.
bool linsolve_solve_finite(linsolve *ls, double *b);

/// Whether the solves read a kept factorization in sweep form (linsolve_sweep.h; for tests).
bool linsolve_is_swept(const linsolve *ls);

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
