// The linear solvers behind Newton's method (src/linsolve.c):
// - a kept sparse factorization (linsolve_factor_keeping: Newton's constant Jacobians) is
//   solved from its compressed-column copy (klu_extract) by linsolve.c's own substitution;
//   on reducible matrices (several diagonal blocks of KLU's block triangular form, singletons,
//   off-diagonal blocks, rows scaled over 12 decades) its solutions must equal KLU's own
//   klu_solve of the same factorization bit for bit (the same operations in the same order;
//   checked to run that solve, not the sweeps of one block),
//   through a refactorization with new values too (assembled in another order than the
//   recorded one), and solve A x = b to backward rounding (ensure_backward_stable);
// - block-diagonal matrices (no entries between KLU's diagonal blocks) as well;
// - irreducible matrices (one diagonal block: the factors in sweep form, linsolve_sweep.h):
//   tridiagonal ones (a spring chain's M/h + h/4 K, and scaled and permuted ones), tridiagonal
//   ones with entries far from the diagonal (fill in L and U away from the neighbours), and
//   random sparse ones: backward stable, within 8 ε of klu_solve's solution for the chain,
//   and the solve's finiteness check (linsolve_solve_finite) true exactly when every entry is
//   finite;
// - a dense solver's assembled matrix stays readable until a plain factorization (which
//   overwrites it with the LU, also when it fails) and beside a kept one (Newton measures its
//   magnitudes there).
#include "harness.h"

#include "linsolve.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define N 40

// A reducible N x N matrix: diagonal blocks of the sizes below (dense within, diagonally
// dominant), entries above them in block order with probability `coupling` each (the
// off-diagonal blocks of the block triangular form; none at 0: decoupled subsystems), rows
// scaled by 10^-6 … 10^6, then rows and columns permuted at random (one permutation).
// Column-major dense copy in a (for the reference check); `present` marks the pattern.
static void random_reducible(test_rng *rng, double coupling, double *a, bool *present)
{
    static const int sizes[] = { 1, 5, 1, 10, 3, 1, 19 };
    int block_of[N], count = (int)(sizeof sizes / sizeof sizes[0]), k = 0;
    for (int b = 0; b < count; b++)
        for (int i = 0; i < sizes[b]; i++)
            block_of[k++] = b;
    double t[N * N];
    memset(t, 0, sizeof t);
    for (int j = 0; j < N; j++)
        for (int i = 0; i < N; i++) {
            bool same = block_of[i] == block_of[j];
            bool above = block_of[i] < block_of[j] && test_rng_uniform(rng, 0.0, 1.0) < coupling;
            if (i == j)
                t[j * N + i] = 8.0 + test_rng_uniform(rng, 0.0, 4.0);
            else if (same && test_rng_uniform(rng, 0.0, 1.0) < 0.6)
                t[j * N + i] = test_rng_uniform(rng, -1.0, 1.0);
            else if (above)
                t[j * N + i] = test_rng_uniform(rng, -3.0, 3.0);
        }
    // one permutation of rows and columns: the diagonal stays the diagonal, which the sparse
    // pattern always holds (linsolve_end_pattern), so the blocks stay blocks
    int perm[N];
    for (int i = 0; i < N; i++)
        perm[i] = i;
    for (int i = N - 1; i > 0; i--) {
        int r = test_rng_int(rng, 0, i), s = perm[i];
        perm[i] = perm[r];
        perm[r] = s;
    }
    const int *row_perm = perm, *col_perm = perm;
    double row_scale[N];
    for (int i = 0; i < N; i++)
        row_scale[i] = pow(10.0, test_rng_int(rng, -6, 6));
    for (int j = 0; j < N; j++)
        for (int i = 0; i < N; i++) {
            double v = t[col_perm[j] * N + row_perm[i]] * row_scale[i];
            a[j * N + i] = v;
            present[j * N + i] = v != 0.0;
        }
}

// Records the pattern of `present` (first call) and assembles a into ls, column by column, or
// in the reverse order (not the recorded sequence: every addition searches its position).
static void assemble_ordered(linsolve *ls, const double *a, const bool *present, bool reversed)
{
    if (!linsolve_has_pattern(ls)) {
        linsolve_begin_pattern(ls);
        for (int j = 0; j < N; j++)
            for (int i = 0; i < N; i++)
                if (present[j * N + i])
                    linsolve_add(ls, i, j, 0.0);
        ENSURE(linsolve_end_pattern(ls, NULL) == DIRAC_OK);
    }
    linsolve_zero(ls);
    for (int k = 0; k < N * N; k++) {
        int at = reversed ? N * N - 1 - k : k, i = at % N, j = at / N;
        if (present[at])
            linsolve_add(ls, i, j, a[at]);
    }
}

static void assemble(linsolve *ls, const double *a, const bool *present)
{
    assemble_ordered(ls, a, present, false);
}

// Backward rounding of LU with pivoting, normwise on the rows scaled to their largest entry
// (KLU scales them so; s_i = max_j |a_ij|): max_i |A x − b|_i / s_i <= c ε ρ (max_i Σ_j |a_ij|
// / s_i ‖x‖∞ + max_i |b_i| / s_i) (Higham, Accuracy and Stability of Numerical Algorithms,
// 2nd ed., Thm 9.4), with ρ the growth of the factors: KLU's threshold pivoting (tol 0.001)
// lets multipliers reach 1000, so 1e-10 (4.5e5 ε) stands for c ε ρ. The numbers themselves
// are tested against klu_solve, bit for bit; this says they solve the system.
static void ensure_backward_stable(const double *a, const double *x, const double *b)
{
    double residual = 0.0, rows = 0.0, rhs = 0.0, x_max = 0.0;
    for (int j = 0; j < N; j++)
        x_max = fmax(x_max, fabs(x[j]));
    for (int i = 0; i < N; i++) {
        long double r = -(long double)b[i];
        double largest = 0.0, sum = 0.0;
        for (int j = 0; j < N; j++) {
            r += (long double)a[j * N + i] * x[j];
            largest = fmax(largest, fabs(a[j * N + i]));
            sum += fabs(a[j * N + i]);
        }
        residual = fmax(residual, (double)fabsl(r) / largest);
        rows = fmax(rows, sum / largest);
        rhs = fmax(rhs, fabs(b[i]) / largest);
    }
    ENSURE_LE(residual, 1e-10 * (rows * x_max + rhs));
}

static void kept_sparse_solve_equals_klu(void)
{
    test_rng rng = { 15 };
    // 20 instances with off-diagonal blocks, then 5 block-diagonal ones (KLU's factor F of the
    // entries between the blocks is empty)
    for (int instance = 0; instance < 25; instance++) {
        double a[N * N], x_klu[N], x_kept[N], b[N];
        bool present[N * N];
        random_reducible(&rng, instance < 20 ? 0.1 : 0.0, a, present);
        linsolve *plain = NULL, *kept = NULL;
        ENSURE(linsolve_create(N, true, &plain, NULL) == DIRAC_OK);
        ENSURE(linsolve_create(N, true, &kept, NULL) == DIRAC_OK);
        if (!plain || !kept) {
            linsolve_destroy(plain);
            linsolve_destroy(kept);
            return;
        }
        // twice: the first factorization, then new values on the same pattern (refactor)
        for (int round = 0; round < 2; round++) {
            if (round == 1)
                for (int k = 0; k < N * N; k++)
                    a[k] *= present[k] ? test_rng_uniform(&rng, 0.5, 1.5) : 1.0;
            int bad = -1;
            assemble_ordered(plain, a, present, round == 1);
            ENSURE(linsolve_factor(plain, &bad) == DIRAC_OK);
            assemble(kept, a, present);
            ENSURE(linsolve_factor_keeping(kept, &bad) == DIRAC_OK);
            for (int i = 0; i < N; i++)
                b[i] = x_klu[i] = x_kept[i] = test_rng_normal(&rng) * pow(10.0, i % 7 - 3);
            linsolve_solve(plain, x_klu);
            linsolve_solve(kept, x_kept);
            ENSURE(!linsolve_is_swept(kept));   // several blocks: the compressed solve
            ENSURE(memcmp(x_klu, x_kept, sizeof x_klu) == 0);
            ensure_backward_stable(a, x_kept, b);
            // the pair solve is two solves (klu_solve with two right-hand sides, and the
            // compressed solve twice)
            for (int k = 0; k < 2; k++) {
                double y[N], z[N], w[N];
                for (int i = 0; i < N; i++) {
                    y[i] = w[i] = b[i];
                    z[i] = x_klu[i];   // a second, different right-hand side
                }
                linsolve_solve_pair(k ? kept : plain, y, z);
                linsolve_solve(plain, w);
                ENSURE(memcmp(y, x_klu, sizeof y) == 0);
                linsolve_solve(plain, x_klu);   // x_klu ← A⁻¹ x_klu, compared to z
                ENSURE(memcmp(z, x_klu, sizeof z) == 0);
                memcpy(x_klu, w, sizeof w);   // back to A⁻¹ b
            }
        }
        linsolve_destroy(plain);
        linsolve_destroy(kept);
    }
}

// An irreducible N x N matrix of kind 0: the spring chain's stage-1 Jacobian M/h + h/4 K
// (h = 0.01, k = 100, unit masses: diagonal 100.5, neighbours −0.25); 1: tridiagonal with
// random entries, rows scaled by 10^-6 … 10^6 and rows and columns permuted; 2: kind 1 with
// 30 entries anywhere; 3: a cycle i → i + 1 (mod N) with 120 random entries and a dominant
// diagonal. Column-major dense copy in a, pattern in present.
static void random_irreducible(test_rng *rng, int kind, double *a, bool *present)
{
    double t[N * N];
    memset(t, 0, sizeof t);
    for (int i = 0; i < N; i++) {
        int up = i + 1 < N ? i + 1 : (kind == 3 ? 0 : -1);
        t[i * N + i] = kind == 0 ? 100.5 : 8.0 + test_rng_uniform(rng, 0.0, 4.0);
        if (up >= 0) {
            t[up * N + i] = kind == 0 ? -0.25 : test_rng_uniform(rng, -1.0, 1.0);
            if (kind != 3)
                t[i * N + up] = kind == 0 ? -0.25 : test_rng_uniform(rng, -1.0, 1.0);
        }
    }
    for (int e = 0; e < (kind == 2 ? 30 : kind == 3 ? 120 : 0); e++)
        t[test_rng_int(rng, 0, N - 1) * N + test_rng_int(rng, 0, N - 1)] +=
            test_rng_uniform(rng, -1.0, 1.0);
    int row_perm[N], col_perm[N];
    double row_scale[N];
    for (int i = 0; i < N; i++) {
        row_perm[i] = col_perm[i] = i;
        row_scale[i] = kind == 0 ? 1.0 : pow(10.0, test_rng_int(rng, -6, 6));
    }
    for (int i = N - 1; kind != 0 && i > 0; i--) {
        int r = test_rng_int(rng, 0, i), c = test_rng_int(rng, 0, i), s = row_perm[i];
        row_perm[i] = row_perm[r];
        row_perm[r] = s;
        s = col_perm[i];
        col_perm[i] = col_perm[c];
        col_perm[c] = s;
    }
    for (int j = 0; j < N; j++)
        for (int i = 0; i < N; i++) {
            double v = t[col_perm[j] * N + row_perm[i]] * row_scale[i];
            a[j * N + i] = v;
            present[j * N + i] = v != 0.0;
        }
}

static void swept_solve_equals_klu(void)
{
    test_rng rng = { 27 };
    for (int instance = 0; instance < 24; instance++) {
        double a[N * N], x_klu[N], x_kept[N], b[N];
        bool present[N * N];
        random_irreducible(&rng, instance % 4, a, present);
        linsolve *plain = NULL, *kept = NULL;
        ENSURE(linsolve_create(N, true, &plain, NULL) == DIRAC_OK);
        ENSURE(linsolve_create(N, true, &kept, NULL) == DIRAC_OK);
        if (!plain || !kept) {
            linsolve_destroy(plain);
            linsolve_destroy(kept);
            return;
        }
        for (int round = 0; round < 2; round++) {   // a refactorization with new values
            if (round == 1)
                for (int k = 0; k < N * N; k++)
                    a[k] *= present[k] ? test_rng_uniform(&rng, 0.5, 1.5) : 1.0;
            int bad = -1;
            assemble(plain, a, present);
            ENSURE(linsolve_factor(plain, &bad) == DIRAC_OK);
            assemble(kept, a, present);
            ENSURE(linsolve_factor_keeping(kept, &bad) == DIRAC_OK);
            ENSURE(linsolve_is_swept(kept));
            for (int i = 0; i < N; i++)
                b[i] = x_klu[i] = x_kept[i] = test_rng_normal(&rng) * pow(10.0, i % 7 - 3);
            linsolve_solve(plain, x_klu);
            ENSURE(linsolve_solve_finite(kept, x_kept));
            ensure_backward_stable(a, x_kept, b);
            double difference = 0.0, size = 0.0;
            for (int i = 0; i < N; i++) {
                difference = fmax(difference, fabs(x_kept[i] - x_klu[i]));
                size = fmax(size, fabs(x_klu[i]));
            }
            // the spring chain's matrix is diagonally dominant (κ∞ < 1.01) with factors whose
            // multipliers are about 0.0025: both solutions are within a few roundings of the
            // exact one, 8 ε |x|∞ apart at most (the others' agreement depends on their
            // condition: backward stability above is what holds for them)
            if (instance % 4 == 0)
                ENSURE_LE(difference, 8.0 * DBL_EPSILON * size);
            double again[N];
            memcpy(again, b, sizeof b);
            linsolve_solve(kept, again);   // the plain solve gives the same numbers
            ENSURE(memcmp(again, x_kept, sizeof again) == 0);
            // an infinite or NaN right-hand side entry spoils the solution (A⁻¹ has no zero
            // column): the check must see it, wherever it is
            for (int k = 0; k < 3; k++) {
                memcpy(x_kept, b, sizeof b);
                const double spoiler[3] = { (double)INFINITY, -(double)INFINITY, (double)NAN };
                x_kept[test_rng_int(&rng, 0, N - 1)] = spoiler[k];
                ENSURE(!linsolve_solve_finite(kept, x_kept));
            }
        }
        linsolve_destroy(plain);
        linsolve_destroy(kept);
    }
}

// The diagonal solver's finiteness check (a mass matrix): x_i = b_i / d_i.
static void diagonal_solve_checks_finite(void)
{
    linsolve *ls = NULL;
    ENSURE(linsolve_create(N, true, &ls, NULL) == DIRAC_OK);
    if (!ls)
        return;
    linsolve_begin_pattern(ls);
    for (int i = 0; i < N; i++)
        linsolve_add(ls, i, i, 0.0);
    ENSURE(linsolve_end_pattern(ls, NULL) == DIRAC_OK);
    linsolve_zero(ls);
    for (int i = 0; i < N; i++)
        linsolve_add(ls, i, i, 0.5 + i);
    int bad = -1;
    ENSURE(linsolve_factor_keeping(ls, &bad) == DIRAC_OK);
    double x[N];
    for (int i = 0; i < N; i++)
        x[i] = 1.0 + 2.0 * i;   // (0.5 + i) · 2 = 1 + 2i: x = 2 exactly
    ENSURE(linsolve_solve_finite(ls, x));
    for (int i = 0; i < N; i++)
        ENSURE(x[i] == 2.0);
    x[N - 1] = DBL_MAX;   // DBL_MAX / 39.5 is finite; DBL_MAX / 0.5 overflows
    ENSURE(linsolve_solve_finite(ls, x));
    x[0] = DBL_MAX;
    ENSURE(!linsolve_solve_finite(ls, x));
    linsolve_destroy(ls);
}

static void dense_matrix_readable_until_factorized(void)
{
    const int n = 3;
    const double values[9] = { 4, 1, 0, 2, 5, 1, 0, 3, 6 };   // column-major, nonsingular
    for (int keep = 0; keep < 2; keep++) {
        linsolve *ls = NULL;
        ENSURE(linsolve_create(n, false, &ls, NULL) == DIRAC_OK);
        if (!ls)
            return;
        linsolve_zero(ls);
        for (int j = 0; j < n; j++)
            for (int i = 0; i < n; i++)
                linsolve_add(ls, i, j, values[j * n + i]);
        const double *a = linsolve_dense_matrix(ls);
        ENSURE(a && memcmp(a, values, sizeof values) == 0);
        int bad = -1;
        ENSURE((keep ? linsolve_factor_keeping(ls, &bad) : linsolve_factor(ls, &bad)) ==
               DIRAC_OK);
        a = linsolve_dense_matrix(ls);
        if (keep)
            ENSURE(a && memcmp(a, values, sizeof values) == 0);
        else
            ENSURE(a == NULL);
        // the solve is right either way: A (1, 2, 3) = (8, 20, 20); A is diagonally dominant
        // (condition number below 4), so x is exact to a few n ε |x|: 64 ε |x|_max allowed
        double x[3] = { 8, 20, 20 };
        linsolve_solve(ls, x);
        for (int i = 0; i < n; i++)
            ENSURE_NEAR(x[i], i + 1.0, 64.0 * DBL_EPSILON * 3.0);
        linsolve_zero(ls);   // a new assembly makes the matrix readable again
        ENSURE(linsolve_dense_matrix(ls) != NULL);
        // a factorization that fails (a zero column) has overwritten part of the matrix too
        for (int j = 0; j < n; j++)
            for (int i = 0; i < n; i++)
                linsolve_add(ls, i, j, j == 1 ? 0.0 : values[j * n + i]);
        ENSURE((keep ? linsolve_factor_keeping(ls, &bad) : linsolve_factor(ls, &bad)) ==
               DIRAC_ERR_SINGULAR);
        ENSURE_EQ_INT(bad, 1);
        ENSURE(linsolve_dense_matrix(ls) == NULL);
        linsolve_zero(ls);
        ENSURE(linsolve_dense_matrix(ls) != NULL);
        linsolve_destroy(ls);
    }
}

TEST_MAIN(TEST(kept_sparse_solve_equals_klu), TEST(swept_solve_equals_klu),
          TEST(diagonal_solve_checks_finite), TEST(dense_matrix_readable_until_factorized))
