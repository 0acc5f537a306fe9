// Internal: a kept sparse LU of one diagonal block (KLU's factors of an irreducible matrix,
// from klu_extract) stored for its solve as two sweeps over the pivots, with each column's
// entry next to the diagonal (L's just below it, U's just above it) carried from one pivot to
// the next in a register, and the rest of the factors' entries in short lists by column.
// Banded matrices (a spring chain's M/h + h/4 K) have almost every entry next to the
// diagonal, so their solve streams: one pass forward, one back, no dependency through memory
// and no index arrays of L and U. klu_solve's substitutions in its order (x = diag(Rs)⁻¹ b(P),
// L x = x forward, U x = x backward, b(Q) = x), with two changes that move the solution by
// rounding only: the divisions by Rs_k and U_kk are multiplications by reciprocals made once
// per factorization, and the back sweep's step is x_k = x_k / U_kk − (U_k,k+1 / U_kk) x_{k+1}.
// On a banded matrix the back sweep is a chain through x_{k+1}: a division on that chain
// (13 cycles or more) and the multiply-then-divide made it twice as slow as the forward sweep.
// Triangular substitution stays backward stable with reciprocals (Higham, Accuracy and
// Stability of Numerical Algorithms, 2nd ed., sec. 8.1: the bound's constant grows by one
// rounding per row).
#ifndef DIRAC_SRC_LINSOLVE_SWEEP_H
#define DIRAC_SRC_LINSOLVE_SWEEP_H

#include <stdbool.h>

/// The factors of one block in sweep form (all arrays NULL and counts 0 when empty).
typedef struct linsolve_sweep {
    int n;
    double *below;           // L[k+1][k] (0 when not in the pattern: `links` says)
    double *above;           // U[k-1][k] / U[k-1][k-1] (0 when U[k-1][k] is not an entry)
    double *pivot;           // 1 / U[k][k]
    double *scale;           // 1 / Rs[k], the row scale factors' reciprocals in pivot order
    unsigned char *links;    // bit 0: L[k+1][k] is an entry; bit 1: U[k-1][k] is
    // the other entries of L (rows > k + 1) and U (rows < k − 1), by column in pivot order
    int *l_col, *l_row, *u_col, *u_row;
    double *l_value, *u_value;
    int l_count, u_count, l_capacity, u_capacity, n_capacity;
} linsolve_sweep;

/// Builds the sweep form of the compressed columns of L (unit diagonal first in each column)
/// and U (diagonal last) of one n x n block, as klu_extract writes them, with the row scale
/// factors Rs (in pivot order); reuses the arrays it holds when they are large enough. 0 when
/// out of memory (then it holds nothing valid).
int linsolve_sweep_build(linsolve_sweep *s, int n, const int *Lp, const int *Li,
                         const double *Lx, const int *Up, const int *Ui, const double *Ux,
                         const double *Rs);

/// Releases the arrays.
void linsolve_sweep_free(linsolve_sweep *s);

/// b ← A⁻¹ b with the row permutation P and the column permutation Q of the factorization;
/// x is n doubles of workspace. Returns whether every entry of the solution is finite
/// (checked as it is written).
bool linsolve_sweep_solve(const linsolve_sweep *s, const int *P, const int *Q, double *x,
                          double *b);

#endif
