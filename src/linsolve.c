// Dense (LAPACK) and sparse (KLU) LU behind one interface for Newton's method.
#include "linsolve.h"

#include "error.h"
#include "linsolve_sweep.h"

#include <float.h>
#include <klu.h>
#include <lapacke.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

// A sparse LU in compressed columns (klu_extract), for factorizations that are solved many
// times (a constant Jacobian's): L with its unit diagonal first in each column, U with its
// diagonal last, the entries F of the off-diagonal blocks, the row permutation P with the row
// scale factors Rs (in pivot order), the column permutation Q and the boundaries R of the
// diagonal blocks; X is the solve's workspace. (L U + F) = diag(Rs)⁻¹ A(P, Q).
typedef struct compressed_lu {
    bool valid;                 // holds the factorization in `numeric`
    int nblocks;
    int *Lp, *Li, *Up, *Ui, *Fp, *Fi, *P, *Q, *R;
    double *Lx, *Ux, *Fx, *Rs, *X;
    int lnz, unz, fnz;          // allocated entries of L, U and F
    // one diagonal block (an irreducible matrix): the factors in sweep form, which the
    // solves read in place of L and U (linsolve_sweep.h)
    linsolve_sweep sweep;
    bool swept;
} compressed_lu;

struct linsolve {
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
    // the recording's sequence of additions and their positions in `values`: assemblies add
    // the same entries in the same order every time, so the k-th addition after
    // linsolve_zero finds its position here (a binary search when it differs)
    int *add_row, *add_col, *add_position;
    long add_count, add_next;
    bool diagonal;              // the pattern is the diagonal alone (a mass matrix): no KLU
    klu_common common;
    klu_symbolic *symbolic;
    klu_numeric *numeric;
    double *pair;               // 2 size: the two right-hand sides of klu_solve's pair solve
    compressed_lu lu;           // a kept factorization's copy (linsolve_factor_keeping)
    // the matrix behind the factorization, kept for Newton's reuse of it (newton.c):
    double *assembled;          // dense: its values when kept (linsolve_factor_keeping; the LU
                                // overwrites `dense`); sparse: NULL (KLU keeps `values`)
    bool kept;                  // dense: `assembled` holds the factorized matrix
    bool overwritten;           // dense: a factorization (even a failed one) has overwritten
                                // `dense` since the last linsolve_zero
    double *hidden;             // the assembly's hidden magnitudes (newton.h), size entries
    bool factored;              // holds the LU of the last assembled matrix
    double step_size;           // the step size it was assembled for (newton.c)
    long factorizations;        // LU factorizations so far (counter for tests and benchmarks)
};


static void linsolve_free(linsolve *ls);

static dirac_status linsolve_init(linsolve *ls, int size, bool sparse, dirac_error *err)
{
    memset(ls, 0, sizeof *ls);
    ls->size = size;
    ls->sparse = sparse;
    size_t n = (size_t)(size > 0 ? size : 1);
    if (!sparse) {
        ls->dense = calloc(n * n, sizeof *ls->dense);
        ls->assembled = calloc(n * n, sizeof *ls->assembled);
        ls->pivots = calloc(n, sizeof *ls->pivots);
        if (!ls->dense || !ls->assembled || !ls->pivots) {
            linsolve_free(ls);
            return error_set(err, DIRAC_ERR_NOMEM,
                             "out of memory for a dense %d x %d Jacobian (use the sparse solver)",
                             size, size);
        }
    } else {
        klu_defaults(&ls->common);
    }
    ls->hidden = calloc(n, sizeof *ls->hidden);
    if (!ls->hidden) {
        linsolve_free(ls);
        return error_set(err, DIRAC_ERR_NOMEM, "out of memory for a %d x %d Jacobian", size, size);
    }
    return DIRAC_OK;
}

static void compressed_free(compressed_lu *f)
{
    free(f->Lp); free(f->Li); free(f->Lx);
    free(f->Up); free(f->Ui); free(f->Ux);
    free(f->Fp); free(f->Fi); free(f->Fx);
    free(f->P); free(f->Q); free(f->R); free(f->Rs); free(f->X);
    linsolve_sweep_free(&f->sweep);
    memset(f, 0, sizeof *f);
}

// Releases what a recorded sparse pattern built (the compressed matrix, KLU's analysis and
// factors, the sequence of additions) and forgets the pattern.
static void release_pattern(linsolve *ls)
{
    compressed_free(&ls->lu);
    if (ls->numeric)
        klu_free_numeric(&ls->numeric, &ls->common);
    if (ls->symbolic)
        klu_free_symbolic(&ls->symbolic, &ls->common);
    free(ls->col_start);
    free(ls->row_index);
    free(ls->values);
    free(ls->pair);
    free(ls->add_row);
    free(ls->add_col);
    free(ls->add_position);
    ls->col_start = ls->row_index = NULL;
    ls->values = ls->pair = NULL;
    ls->add_row = ls->add_col = ls->add_position = NULL;
    ls->add_count = ls->add_next = 0;
    ls->nnz = 0;
}

static void linsolve_free(linsolve *ls)
{
    release_pattern(ls);
    free(ls->dense);
    free(ls->assembled);
    free(ls->hidden);
    free(ls->pivots);
    free(ls->trip_row);
    free(ls->trip_col);
    memset(ls, 0, sizeof *ls);
}

const double *linsolve_dense_matrix(const linsolve *ls)
{
    if (ls->sparse)
        return NULL;
    return !ls->overwritten ? ls->dense : ls->kept ? ls->assembled : NULL;
}

void linsolve_zero(linsolve *ls)
{
    ls->factored = ls->kept = ls->overwritten = ls->lu.valid = false;
    if (ls->sparse) {
        ls->add_next = 0;
        if (ls->values)
            memset(ls->values, 0, (size_t)ls->nnz * sizeof *ls->values);
        return;
    }
    linsolve_zero_doubles(ls->dense, ls->size, true);
}

static void record(linsolve *ls, int row, int col)
{
    if (ls->trip_count == ls->trip_cap) {
        long grown = ls->trip_cap ? 2 * ls->trip_cap : 1024;
        int *rows = realloc(ls->trip_row, (size_t)grown * sizeof *rows);
        if (rows)
            ls->trip_row = rows;
        int *cols = realloc(ls->trip_col, (size_t)grown * sizeof *cols);
        if (cols)
            ls->trip_col = cols;
        if (!rows || !cols) {
            ls->pattern_misses++;   // reported by linsolve_end_pattern as out of memory
            return;
        }
        ls->trip_cap = grown;
    }
    ls->trip_row[ls->trip_count] = row;
    ls->trip_col[ls->trip_count] = col;
    ls->trip_count++;
}

double *linsolve_dense_values(linsolve *ls)
{
    return ls->sparse ? NULL : ls->dense;
}

// The position of A[row][col] in the compressed columns (binary search of the row in the
// column), -1 when it is not in the pattern.
static int position_of(const linsolve *ls, int row, int col)
{
    int lo = ls->col_start[col], hi = ls->col_start[col + 1] - 1;
    while (lo <= hi) {
        int mid = (lo + hi) / 2;
        if (ls->row_index[mid] == row)
            return mid;
        if (ls->row_index[mid] < row)
            lo = mid + 1;
        else
            hi = mid - 1;
    }
    return -1;
}

void linsolve_add(linsolve *ls, int row, int col, double value)
{
    if (!ls->sparse) {
        ls->dense[(size_t)col * (size_t)ls->size + (size_t)row] += value;
        return;
    }
    if (ls->recording) {
        record(ls, row, col);
        return;
    }
    long k = ls->add_next++;
    if (k < ls->add_count && ls->add_row[k] == row && ls->add_col[k] == col) {
        ls->values[ls->add_position[k]] += value;
        return;
    }
    int position = position_of(ls, row, col);
    if (position >= 0)
        ls->values[position] += value;
    else
        ls->pattern_misses++;
}

void linsolve_row_magnitudes(const linsolve *ls, const double *x, double *out)
{
    int n = ls->size;
    const double *a = ls->values;
    for (int i = 0; i < n; i++)
        out[i] = 0.0;
    for (int j = 0; j < n; j++)
        for (int k = ls->col_start[j]; k < ls->col_start[j + 1]; k++)
            out[ls->row_index[k]] += fabs(a[k]) * x[j];
}

void linsolve_column_reach(const linsolve *ls, const double *row_scale, double factor,
                           double *out)
{
    const double *restrict column = ls->values;
    const int *restrict row = ls->row_index;
    for (int j = 0; j < ls->size; j++) {
        int begin = ls->col_start[j], end = ls->col_start[j + 1];
        double strongest = 0.0;
        for (int k = begin; k < end; k++)
            if (fabs(column[k]) > strongest)   // NaN entries are skipped, as by fmax
                strongest = fabs(column[k]);
        out[j] = linsolve_reach(column + begin, row + begin, end - begin, row_scale, strongest) *
                 factor;
    }
}

void linsolve_begin_pattern(linsolve *ls)
{
    // a pattern recorded again (after linsolve_end_pattern failed) starts from nothing: the
    // structures of an earlier recording are released and its sequence of additions forgotten
    release_pattern(ls);
    ls->has_pattern = ls->diagonal = ls->factored = false;
    ls->recording = true;
    ls->trip_count = 0;
    ls->pattern_misses = 0;
}

dirac_status linsolve_end_pattern(linsolve *ls, dirac_error *err)
{
    ls->recording = false;
    int n = ls->size;
    long calls = ls->trip_count;   // the assembly's additions (the diagonal is appended below)
    if (ls->pattern_misses)
        return error_set(err, DIRAC_ERR_NOMEM, "out of memory recording a sparse Jacobian");
    // every diagonal entry is kept, so that a structurally zero pivot shows as a numerical one
    for (int i = 0; i < n; i++)
        record(ls, i, i);
    // counting sort by column, then sort rows within columns and drop duplicates
    ls->col_start = calloc((size_t)n + 2, sizeof *ls->col_start);
    int *rows = malloc((size_t)(ls->trip_count + 1) * sizeof *rows);
    if (!ls->col_start || !rows || ls->pattern_misses) {
        free(rows);
        return error_set(err, DIRAC_ERR_NOMEM, "out of memory building a sparse Jacobian");
    }
    for (long k = 0; k < ls->trip_count; k++)
        ls->col_start[ls->trip_col[k] + 2]++;
    for (int c = 0; c < n; c++)
        ls->col_start[c + 2] += ls->col_start[c + 1];
    for (long k = 0; k < ls->trip_count; k++)
        rows[ls->col_start[ls->trip_col[k] + 1]++] = ls->trip_row[k];
    // now col_start[c] .. col_start[c+1] holds column c (shifted by one)
    int nnz = 0;
    for (int c = 0; c < n; c++) {
        int begin = ls->col_start[c], end = ls->col_start[c + 1];
        // insertion sort: columns are short
        for (int i = begin + 1; i < end; i++) {
            int r = rows[i], j = i - 1;
            while (j >= begin && rows[j] > r) {
                rows[j + 1] = rows[j];
                j--;
            }
            rows[j + 1] = r;
        }
        ls->col_start[c] = nnz;
        for (int i = begin; i < end; i++)
            if (i == begin || rows[i] != rows[i - 1])
                rows[nnz++] = rows[i];
    }
    ls->col_start[n] = nnz;
    ls->nnz = nnz;
    int *shrunk = realloc(rows, (size_t)(nnz > 0 ? nnz : 1) * sizeof *rows);
    ls->row_index = shrunk ? shrunk : rows;
    ls->values = calloc((size_t)(nnz > 0 ? nnz : 1), sizeof *ls->values);
    // the recorded additions become the sequence linsolve_add expects (without it, every
    // addition searches)
    // (shrunk from their grown capacity to the count; kept as they are if that fails)
    size_t kept_calls = (size_t)(calls > 0 ? calls : 1);
    int *add_rows = realloc(ls->trip_row, kept_calls * sizeof *add_rows);
    int *add_cols = realloc(ls->trip_col, kept_calls * sizeof *add_cols);
    ls->add_row = add_rows ? add_rows : ls->trip_row;
    ls->add_col = add_cols ? add_cols : ls->trip_col;
    ls->add_position = malloc((size_t)(calls > 0 ? calls : 1) * sizeof *ls->add_position);
    ls->trip_row = ls->trip_col = NULL;
    ls->trip_cap = ls->trip_count = 0;
    if (ls->add_position) {
        ls->add_count = calls;
        for (long k = 0; k < calls; k++)
            ls->add_position[k] = position_of(ls, ls->add_row[k], ls->add_col[k]);
    }
    if (!ls->values)
        return error_set(err, DIRAC_ERR_NOMEM, "out of memory building a sparse Jacobian");
    // a diagonal matrix (the velocities' stage of a model with a diagonal mass matrix) is
    // solved by one division per unknown, without KLU's permutations, scaling and passes
    ls->diagonal = nnz == n;
    for (int c = 0; c < n && ls->diagonal; c++)
        ls->diagonal = ls->col_start[c] == c && ls->row_index[c] == c;
    if (ls->diagonal) {
        ls->has_pattern = true;
        return DIRAC_OK;
    }
    ls->pair = malloc(2 * (size_t)(n > 0 ? n : 1) * sizeof *ls->pair);   // NULL: two solves
    ls->symbolic = klu_analyze(n, ls->col_start, ls->row_index, &ls->common);
    if (!ls->symbolic)
        return error_set(err, DIRAC_ERR_NOMEM, "KLU could not analyse the %d x %d Jacobian "
                         "(status %d)", n, n, ls->common.status);
    ls->has_pattern = true;
    return DIRAC_OK;
}

// Systems up to this size use the in-house LU below: LAPACK's call overhead (and OpenBLAS's
// threading) dominates there (bench/bench_simulate.c).
#define LINSOLVE_SMALL 32

// LU with partial pivoting of the column-major n x n matrix a, in place; pivots[k] is the row
// swapped with k. Returns the first zero pivot's column, or -1.
static inline __attribute__((always_inline)) int lu_of_size(int n, double *restrict a,
                                                            lapack_int *restrict pivots)
{
    for (int k = 0; k < n; k++) {
        double *ak = a + (size_t)k * (size_t)n;   // column k (the row swap writes it via aj)
        int p = k;
        double best = fabs(ak[k]);
        for (int i = k + 1; i < n; i++)
            if (fabs(ak[i]) > best) {
                best = fabs(ak[i]);
                p = i;
            }
        pivots[k] = p;
        if (best == 0.0)
            return k;
        if (p != k)
            for (int j = 0; j < n; j++) {   // the rows k and p in every column
                double *aj = a + (size_t)j * (size_t)n, t = aj[k];
                aj[k] = aj[p];
                aj[p] = t;
            }
        double inverse = 1.0 / ak[k];
        for (int i = k + 1; i < n; i++)
            ak[i] *= inverse;
        for (int j = k + 1; j < n; j++) {
            double *restrict aj = a + (size_t)j * (size_t)n;
            double f = aj[k];
            if (f != 0.0)
                for (int i = k + 1; i < n; i++)
                    aj[i] -= ak[i] * f;
        }
    }
    return -1;
}

static inline __attribute__((always_inline)) void solve_of_size(int n, const double *restrict a,
                                                               const lapack_int *restrict pivots,
                                                               double *restrict b)
{
    for (int k = 0; k < n; k++)
        if (pivots[k] != k) {
            double t = b[k];
            b[k] = b[pivots[k]];
            b[pivots[k]] = t;
        }
    for (int j = 0; j < n; j++) {
        const double *aj = a + (size_t)j * (size_t)n;
        double bj = b[j];
        for (int i = j + 1; i < n; i++)
            b[i] -= aj[i] * bj;
    }
    for (int j = n - 1; j >= 0; j--) {
        const double *aj = a + (size_t)j * (size_t)n;
        double bj = b[j] / aj[j];
        b[j] = bj;
        for (int i = 0; i < j; i++)
            b[i] -= aj[i] * bj;
    }
}

static int small_lu(int n, double *a, lapack_int *pivots)
{
#define LU_CASE(k) return lu_of_size(k, a, pivots)
    switch (n) {
        LINSOLVE_SMALL_CASES(LU_CASE);
    default:
        return lu_of_size(n, a, pivots);
    }
#undef LU_CASE
}

static inline __attribute__((always_inline)) void small_solve(int n, const double *a,
                                                              const lapack_int *pivots, double *b)
{
#define SOLVE_CASE(k) solve_of_size(k, a, pivots, b); return
    switch (n) {
        LINSOLVE_SMALL_CASES(SOLVE_CASE);
    default:
        solve_of_size(n, a, pivots, b);
    }
#undef SOLVE_CASE
}

// Both right-hand sides with n a constant (sizes up to 16): the compiler interleaves the two
// independent substitutions (each keeps its own order of operations).
static void small_solve_pair(int n, const double *a, const lapack_int *pivots, double *b,
                             double *c)
{
#define PAIR_CASE(k)                                                                              \
    solve_of_size(k, a, pivots, b);                                                               \
    solve_of_size(k, a, pivots, c);                                                               \
    return
    switch (n) {
        LINSOLVE_SMALL_CASES(PAIR_CASE);
    }
#undef PAIR_CASE
}

static dirac_status factor(linsolve *ls, int *bad_column);

// Makes room for `count` entries, and at least 1, in the index and value arrays of one factor
// (klu_extract fills a factor's column pointers only when all three arrays exist: a factor
// without entries, such as F of a block-diagonal matrix, still needs them); 0 when out of
// memory.
static int reserve(int **index, double **value, int *capacity, int count)
{
    if (count <= *capacity && *index && *value)
        return 1;
    int wanted = count > *capacity ? count : *capacity;
    size_t c = (size_t)(wanted > 0 ? wanted : 1);
    int *i = realloc(*index, c * sizeof *i);
    if (i)
        *index = i;
    double *v = realloc(*value, c * sizeof *v);
    if (v)
        *value = v;
    if (!i || !v)
        return 0;
    *capacity = (int)c;
    return 1;
}

// Copies KLU's factorization into ls->lu (the arrays allocated at the first copy, grown when a
// fresh pivot order needs more entries); on failure the solves stay with klu_solve.
static void compressed_extract(linsolve *ls)
{
    compressed_lu *f = &ls->lu;
    const klu_numeric *num = ls->numeric;
    size_t n = (size_t)ls->size;
    f->valid = false;
    if (!f->X) {
        f->Lp = malloc((n + 1) * sizeof *f->Lp);
        f->Up = malloc((n + 1) * sizeof *f->Up);
        f->Fp = malloc((n + 1) * sizeof *f->Fp);
        f->R = malloc((n + 1) * sizeof *f->R);
        f->P = malloc((n + 1) * sizeof *f->P);
        f->Q = malloc((n + 1) * sizeof *f->Q);
        f->Rs = malloc((n + 1) * sizeof *f->Rs);
        f->X = malloc((n + 1) * sizeof *f->X);
        if (!f->Lp || !f->Up || !f->Fp || !f->R || !f->P || !f->Q || !f->Rs || !f->X) {
            compressed_free(f);
            return;
        }
    }
    if (!reserve(&f->Li, &f->Lx, &f->lnz, num->lnz) ||
        !reserve(&f->Ui, &f->Ux, &f->unz, num->unz) ||
        !reserve(&f->Fi, &f->Fx, &f->fnz, num->Offp[n]))
        return;
    f->nblocks = ls->symbolic->nblocks;
    f->valid = klu_extract(ls->numeric, ls->symbolic, f->Lp, f->Li, f->Lx, f->Up, f->Ui, f->Ux,
                           f->Fp, f->Fi, f->Fx, f->P, f->Q, f->Rs, f->R, &ls->common) != 0;
    // one block (no F): the sweeps; out of memory for them, the compressed solve
    f->swept = f->valid && f->nblocks == 1 &&
               linsolve_sweep_build(&f->sweep, ls->size, f->Lp, f->Li, f->Lx, f->Up, f->Ui,
                                    f->Ux, f->Rs);
}

// x = A⁻¹ b from the compressed factors, in the order of operations of klu_solve (SuiteSparse
// KLU, one right-hand side), so the same numbers: X = diag(Rs)⁻¹ b(P); the diagonal blocks
// from the last to the first, each by forward (unit L) and back (U) substitution, followed by
// the off-diagonal entries of its columns; b(Q) = X. Without KLU's dispatch on the number of
// right-hand sides and its packed storage of the factors.
static __attribute__((noinline)) void compressed_solve(const compressed_lu *f, int n,
                                                      double *restrict b)
{
    const int *restrict Lp = f->Lp, *restrict Li = f->Li, *restrict Up = f->Up,
              *restrict Ui = f->Ui, *restrict Fp = f->Fp, *restrict Fi = f->Fi;
    const double *restrict Lx = f->Lx, *restrict Ux = f->Ux, *restrict Fx = f->Fx,
                 *restrict Rs = f->Rs;
    double *restrict x = f->X;
    for (int k = 0; k < n; k++)
        x[k] = b[f->P[k]] / Rs[k];
    for (int block = f->nblocks - 1; block >= 0; block--) {
        int k1 = f->R[block], k2 = f->R[block + 1];
        if (k2 - k1 == 1) {
            x[k1] = x[k1] / Ux[Up[k1]];
        } else {
            for (int k = k1; k < k2; k++) {
                double xk = x[k];
                for (int p = Lp[k] + 1; p < Lp[k + 1]; p++)   // after the unit diagonal
                    x[Li[p]] -= Lx[p] * xk;
            }
            for (int k = k2 - 1; k >= k1; k--) {
                int diagonal = Up[k + 1] - 1;
                double xk = x[k] / Ux[diagonal];
                x[k] = xk;
                for (int p = Up[k]; p < diagonal; p++)
                    x[Ui[p]] -= Ux[p] * xk;
            }
        }
        if (block > 0)
            for (int k = k1; k < k2; k++) {
                double xk = x[k];
                for (int p = Fp[k]; p < Fp[k + 1]; p++)
                    x[Fi[p]] -= Fx[p] * xk;
            }
    }
    for (int k = 0; k < n; k++)
        b[f->Q[k]] = x[k];
}

dirac_status linsolve_factor(linsolve *ls, int *bad_column)
{
    ls->factored = ls->kept = ls->lu.valid = false;
    dirac_status status = factor(ls, bad_column);
    if (status == DIRAC_OK) {
        ls->factored = true;
        ls->factorizations++;
    }
    return status;
}

// d = s for an n x n matrix, with n from 1 to 16 a compile-time constant (the compiler then
// writes the moves in place of a library call: most of the cost of copying a 3 x 3 matrix).
static void copy_square(double *restrict d, const double *restrict s, int n)
{
#define COPY_SQUARE_CASE(k)                                                                       \
    memcpy(d, s, (k) * (k) * sizeof *d);                                                          \
    return
    switch (n) {
        LINSOLVE_SMALL_CASES(COPY_SQUARE_CASE);
    default:
        memcpy(d, s, (size_t)n * (size_t)n * sizeof *d);
    }
#undef COPY_SQUARE_CASE
}

dirac_status linsolve_factor_keeping(linsolve *ls, int *bad_column)
{
    if (!ls->sparse)
        copy_square(ls->assembled, ls->dense, ls->size);
    dirac_status status = linsolve_factor(ls, bad_column);
    ls->kept = status == DIRAC_OK && !ls->sparse;
    if (status == DIRAC_OK && ls->sparse && !ls->diagonal)
        compressed_extract(ls);
    return status;
}

static dirac_status factor(linsolve *ls, int *bad_column)
{
    *bad_column = -1;
    ls->overwritten = !ls->sparse;   // dense: the LU overwrites the matrix, also when it fails
    if (!ls->sparse && ls->size <= LINSOLVE_SMALL) {
        *bad_column = small_lu(ls->size, ls->dense, ls->pivots);
        return *bad_column >= 0 ? DIRAC_ERR_SINGULAR : DIRAC_OK;
    }
    if (!ls->sparse) {
        lapack_int info = LAPACKE_dgetrf_work(LAPACK_COL_MAJOR, ls->size, ls->size, ls->dense,
                                              ls->size, ls->pivots);
        if (info > 0) {
            *bad_column = (int)info - 1;
            return DIRAC_ERR_SINGULAR;
        }
        return DIRAC_OK;
    }
    if (ls->diagonal) {
        for (int c = 0; c < ls->size; c++)
            if (ls->values[c] == 0.0) {
                *bad_column = c;
                return DIRAC_ERR_SINGULAR;
            }
        return DIRAC_OK;
    }
    // refactor with the previous pivot order when it stays stable, else factor anew
    if (ls->numeric &&
        klu_refactor(ls->col_start, ls->row_index, ls->values, ls->symbolic, ls->numeric,
                     &ls->common) &&
        klu_rcond(ls->symbolic, ls->numeric, &ls->common) && ls->common.rcond > 1e-14)
        return DIRAC_OK;
    if (ls->numeric)
        klu_free_numeric(&ls->numeric, &ls->common);
    ls->numeric = klu_factor(ls->col_start, ls->row_index, ls->values, ls->symbolic, &ls->common);
    if (!ls->numeric) {
        if (ls->common.status == KLU_SINGULAR) {
            *bad_column = ls->common.singular_col >= 0 ? (int)ls->common.singular_col : 0;
            return DIRAC_ERR_SINGULAR;
        }
        return DIRAC_ERR_NOMEM;
    }
    return DIRAC_OK;
}

void linsolve_solve(linsolve *ls, double *b)
{
    if (!ls->sparse && ls->size <= LINSOLVE_SMALL)
        small_solve(ls->size, ls->dense, ls->pivots, b);
    else if (!ls->sparse)
        LAPACKE_dgetrs_work(LAPACK_COL_MAJOR, 'N', ls->size, 1, ls->dense, ls->size, ls->pivots,
                            b, ls->size);
    else if (ls->diagonal)
        for (int i = 0; i < ls->size; i++)
            b[i] /= ls->values[i];
    else if (ls->lu.valid && ls->lu.swept)
        linsolve_sweep_solve(&ls->lu.sweep, ls->lu.P, ls->lu.Q, ls->lu.X, b);
    else if (ls->lu.valid)
        compressed_solve(&ls->lu, ls->size, b);
    else
        klu_solve(ls->symbolic, ls->numeric, ls->size, 1, b, &ls->common);
}

// No infinity or NaN among x[0 .. n) (|x| <= DBL_MAX is false for both): a select the
// compiler vectorizes.
static bool all_finite(const double *restrict x, int n)
{
    double bad = 0.0;
    for (int i = 0; i < n; i++)
        bad = fabs(x[i]) <= DBL_MAX ? bad : 1.0;
    return bad == 0.0;
}

bool linsolve_is_swept(const linsolve *ls)
{
    return ls->sparse && ls->lu.valid && ls->lu.swept;
}

bool linsolve_solve_finite(linsolve *ls, double *b)
{
    int n = ls->size;
    if (ls->sparse && ls->diagonal) {
        const double *restrict d = ls->values;
        double bad = 0.0;
        for (int i = 0; i < n; i++) {
            double x = b[i] / d[i];
            b[i] = x;
            bad = fabs(x) <= DBL_MAX ? bad : 1.0;
        }
        return bad == 0.0;
    }
    if (ls->sparse && ls->lu.valid && ls->lu.swept)
        return linsolve_sweep_solve(&ls->lu.sweep, ls->lu.P, ls->lu.Q, ls->lu.X, b);
    linsolve_solve(ls, b);
    return all_finite(b, n);
}

void linsolve_solve_pair(linsolve *ls, double *b, double *c)
{
    if (!ls->sparse && ls->size <= 16) {
        small_solve_pair(ls->size, ls->dense, ls->pivots, b, c);
    } else if (ls->sparse && !ls->diagonal && !ls->lu.valid && ls->pair) {
        // KLU's solve with two right-hand sides makes one pass over the factors and does, for
        // each, the operations of a solve with one (klu_solve, its cases for 1 and 2
        // columns), so the numbers are the same
        size_t n = (size_t)ls->size;
        memcpy(ls->pair, b, n * sizeof *b);
        memcpy(ls->pair + n, c, n * sizeof *c);
        klu_solve(ls->symbolic, ls->numeric, ls->size, 2, ls->pair, &ls->common);
        memcpy(b, ls->pair, n * sizeof *b);
        memcpy(c, ls->pair + n, n * sizeof *c);
    } else {
        linsolve_solve(ls, b);
        linsolve_solve(ls, c);
    }
}

dirac_status linsolve_create(int size, bool sparse, linsolve **out, dirac_error *err)
{
    *out = calloc(1, sizeof **out);
    if (!*out)
        return error_set(err, DIRAC_ERR_NOMEM, "out of memory");
    dirac_status status = linsolve_init(*out, size, sparse, err);
    if (status != DIRAC_OK) {
        free(*out);
        *out = NULL;
    }
    return status;
}

void linsolve_destroy(linsolve *ls)
{
    if (!ls)
        return;
    linsolve_free(ls);
    free(ls);
}

int linsolve_size(const linsolve *ls)
{
    return ls->size;
}

bool linsolve_is_sparse(const linsolve *ls)
{
    return ls->sparse;
}

bool linsolve_has_pattern(const linsolve *ls)
{
    return ls->has_pattern;
}

double *linsolve_kept_hidden(linsolve *ls) { return ls->hidden; }
double linsolve_kept_step_size(const linsolve *ls) { return ls->step_size; }
void linsolve_set_kept_step_size(linsolve *ls, double h) { ls->step_size = h; }
bool linsolve_is_factored(const linsolve *ls) { return ls->factored; }
long linsolve_factorizations(const linsolve *ls) { return ls ? ls->factorizations : 0; }
