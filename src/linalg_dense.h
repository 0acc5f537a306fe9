// Internal: small dense linear algebra on column-major matrices, on top of LAPACKE.
//
// Rank decisions use one rule everywhere: a singular value σ_i counts as zero when
// σ_i <= LINALG_RANK_RTOL * σ_max (σ_max >= 1 is assumed for inputs that are zero).
// These routines allocate their LAPACK workspace; they are for set-up work, never for
// code inside a time step.
#ifndef DIRAC_SRC_LINALG_DENSE_H
#define DIRAC_SRC_LINALG_DENSE_H

#include <dirac/status.h>

#include <stdbool.h>
#include <stddef.h>

/// Relative singular-value threshold below which directions are treated as dependent.
#define LINALG_RANK_RTOL 1e-10

/// Singular values and, on request, full U (m x m) and V^T (k x k) of the column-major
/// m x k matrix `a` (leading dimension m, not modified). `s` has min(m, k) entries, descending.
/// `u` / `vt` may be NULL when not wanted. Returns DIRAC_ERR_LINALG if LAPACK fails.
dirac_status linalg_svd(int m, int k, const double *a, double *s, double *u, double *vt,
                        dirac_error *err);

/// Numerical rank of the singular values `s` (count min_mk) under LINALG_RANK_RTOL.
int linalg_rank_of_singular_values(const double *s, int min_mk);

/// Rank of the column-major m x k matrix `a` (not modified) by QR with column pivoting,
/// A P = Q R (LAPACK dgeqp3; Golub & Van Loan, Matrix Computations, 4th ed., §5.4.2), under
/// the rank rule in its QR form: r_ii counts as zero when |r_ii| <= LINALG_RANK_RTOL |r_11|
/// (|r_11| is σ_max to within a factor √k). When the rank r < k it also gives the first column
/// the pivoting left out, `*dependent`, and its combination of the independent columns:
/// a_dependent = Σ_{i<r} y[i] a_independent[i] (R11 y = R12's first column). `independent`
/// and `y` are caller arrays of k entries; `*dependent` is -1 when r = k.
dirac_status linalg_rank_qr(int m, int k, const double *a, int *rank, int *dependent,
                            int *independent, double *y, dirac_error *err);

/// Minimum-norm least-squares solution of the square system A x = b (LAPACK dgelsd; singular
/// values under the rank rule count as zero): A (n x n, column-major) is overwritten, b is
/// replaced by x. DIRAC_ERR_LINALG (naming `what`) if LAPACK fails.
dirac_status linalg_least_squares(int n, double *a, double *b, const char *what,
                                  dirac_error *err);

/// Solves the square system A x = b by LU with partial pivoting (LAPACK dgesv): A (n x n,
/// column-major) is overwritten by its factors, b by x. DIRAC_ERR_SINGULAR (naming `what`)
/// for an exactly zero pivot, DIRAC_ERR_NOMEM when out of memory.
dirac_status linalg_solve(int n, double *a, double *b, const char *what, dirac_error *err);

/// The first column of the column-major n x n matrix `a` that LU with partial pivoting (LAPACK
/// dgetrf) finds dependent under the rank rule in its LU form: a pivot counts as zero when
/// |u_jj| <= LINALG_RANK_RTOL max_ij |a_ij| (every column of a zero matrix is dependent: 0).
/// Returns that column, -1 when there is none, -2 when out of memory; `a` is overwritten.
int linalg_lu_dependent_column(int n, double *a);

/// Doubles of workspace linalg_svd_right needs for an m x k matrix (-1 if LAPACK fails).
int linalg_svd_right_work_size(int m, int k);

/// Singular values `s` (min(m, k), descending) and the full V^T (k x k) of the column-major
/// m x k matrix `a`, which is overwritten, with the caller's workspace `work` (work_size >=
/// linalg_svd_right_work_size(m, k)): allocates nothing, so it may run inside a time step.
/// DIRAC_ERR_LINALG if LAPACK fails.
dirac_status linalg_svd_right(int m, int k, double *a, double *s, double *vt, double *work,
                              int work_size);

/// Generalized symmetric eigenproblem K x = λ M x with M positive definite (LAPACK dsygv):
/// the eigenvalues ascending into `lambda` (n), the M-orthonormal eigenvectors into the columns
/// of `k` (n x n, column-major); `m` is overwritten. DIRAC_ERR_UNSUPPORTED when M is not
/// positive definite, DIRAC_ERR_LINALG when LAPACK fails otherwise.
dirac_status linalg_generalized_eigen(int n, double *k, double *m, double *lambda,
                                      dirac_error *err);

/// Orthonormal basis of the column range of the m x k matrix `a`: writes `*range` (m x r,
/// malloc'ed; NULL when r = 0) and `*rank` = r. If `complement` is non-NULL it also receives
/// an m x (m - r) orthonormal basis of the range's orthogonal complement (NULL when r = m).
dirac_status linalg_range(int m, int k, const double *a, double **range, int *rank,
                          double **complement, dirac_error *err);

/// Orthonormal basis of the null space of the m x k matrix `a`: `*null` (k x d, malloc'ed,
/// NULL when d = 0) and `*nullity` = d.
dirac_status linalg_null_space(int m, int k, const double *a, double **null, int *nullity,
                               dirac_error *err);

/// Largest singular value of the m x k matrix `a`.
dirac_status linalg_norm2(int m, int k, const double *a, double *norm, dirac_error *err);

/// C (m x n) = A (m x p) * B (p x n), all column-major with leading dimensions m, m, p.
void linalg_matmul(int m, int p, int n, const double *a, const double *b, double *c);

/// C (m x n) = A^T * B with A (p x m) and B (p x n).
void linalg_matmul_tn(int m, int p, int n, const double *a, const double *b, double *c);

/// True when every one of the `count` entries is finite.
bool linalg_all_finite(const double *x, size_t count);

/// Largest absolute entry of the `count` values (0 for count 0).
double linalg_max_abs(const double *x, size_t count);

/// Euclidean norm of the `count` values.
double linalg_norm(const double *x, size_t count);

#endif
