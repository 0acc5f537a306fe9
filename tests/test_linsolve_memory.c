// The sparse solver's memory (src/linsolve.c). The program is linked with --wrap for malloc,
// calloc and realloc (tests/CMakeLists.txt): every fresh malloc block is filled with rising
// garbage (word w holds 1000003 w), so that code which reads memory it never wrote walks far
// out of its arrays and crashes in every build, where an uninitialised read would otherwise
// pass unnoticed whenever the heap happens to hold zeros or a uniform fill; and the n-th
// allocation can be made to fail.
// - a block-diagonal matrix (decoupled subsystems: KLU's block triangular form has no entries
//   between its diagonal blocks) is solved from the kept factorization's compressed copy, and
//   the solution is exact to rounding;
// - through the public API, two decoupled oscillators x'' = −x, y'' = −4y with the sparse
//   solver follow x = x0 cos t, y = y0 cos 2t to the methods' error bound (dgrad, lobatto3);
// - a pattern recorded again after a failed linsolve_end_pattern (any allocation failing, in
//   the first and in the second recording) gives a working solver, and nothing leaks
//   (LeakSanitizer in the sanitizer build).
#include "harness.h"
#include "sim_run.h"

#include "linsolve.h"

#include <dirac/dirac.h>

#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#include "malloc_wrap.h"

static long calls;     // allocation calls since the counter was reset
static long fail_at;   // the call that fails (0: none)

static int fails(void)
{
    return ++calls == fail_at;
}

void *__wrap_malloc(size_t size)
{
    if (fails())
        return NULL;
    uint32_t *p = __real_malloc(size);
    if (p)
        for (size_t w = 0; w < size / sizeof *p; w++)
            p[w] = (uint32_t)(w * 1000003u);
    return p;
}

void *__wrap_calloc(size_t count, size_t size)
{
    return fails() ? NULL : __real_calloc(count, size);
}

void *__wrap_realloc(void *p, size_t size)
{
    return fails() ? NULL : __real_realloc(p, size);
}

// A 4 x 4 matrix of two decoupled 2 x 2 blocks, rows and columns interleaved (0 and 2, 1 and
// 3), column-major; A (1, 2, 3, 4) = b below.
static const double block_matrix[16] = { 4, 0, 1, 0, 0, 5, 0, 2, 1, 0, 3, 0, 0, -2, 0, 6 };
static const double block_rhs[4] = { 7, 2, 10, 28 };

static void record(linsolve *ls)
{
    linsolve_begin_pattern(ls);
    for (int k = 0; k < 16; k++)
        if (block_matrix[k] != 0.0)
            linsolve_add(ls, k % 4, k / 4, 0.0);
}

// Assembles, factorizes (keeping the factorization: the compressed copy) and solves; the
// matrix is diagonally dominant (condition number below 10), so x is exact to a few ε |x|:
// 16 ε |x|_max allowed.
static void ensure_solves(linsolve *ls)
{
    for (int round = 0; round < 2; round++) {   // the first factorization, then a refactor
        linsolve_zero(ls);
        for (int k = 0; k < 16; k++)
            if (block_matrix[k] != 0.0)
                linsolve_add(ls, k % 4, k / 4, block_matrix[k]);
        int bad = -1;
        ENSURE(linsolve_factor_keeping(ls, &bad) == DIRAC_OK);
        double x[4], y[4], z[4];
        memcpy(x, block_rhs, sizeof x);
        memcpy(y, block_rhs, sizeof y);
        memcpy(z, block_rhs, sizeof z);
        linsolve_solve(ls, x);
        linsolve_solve_pair(ls, y, z);
        for (int i = 0; i < 4; i++) {
            ENSURE_NEAR(x[i], i + 1.0, 16.0 * DBL_EPSILON * 4.0);
            ENSURE(y[i] == x[i] && z[i] == x[i]);
        }
    }
}

static void block_diagonal_kept_solve(void)
{
    linsolve *ls = NULL;
    ENSURE(linsolve_create(4, true, &ls, NULL) == DIRAC_OK);
    if (!ls)
        return;
    record(ls);
    ENSURE(linsolve_end_pattern(ls, NULL) == DIRAC_OK);
    ensure_solves(ls);
    linsolve_destroy(ls);
}

// For every pair (first, second) of allocations up to the count one recording makes: the
// first recording fails at allocation `first`; if it failed, a second one fails at `second`;
// if that failed too, a third has none failing. Whichever succeeds must solve.
static void pattern_recorded_again(void)
{
    for (long first = 1; first <= 12; first++)
        for (long second = 1; second <= 12; second++) {
            linsolve *ls = NULL;
            ENSURE(linsolve_create(4, true, &ls, NULL) == DIRAC_OK);
            if (!ls)
                return;
            bool recorded = false;
            for (int attempt = 0; attempt < 3 && !recorded; attempt++) {
                calls = 0;
                fail_at = attempt == 0 ? first : attempt == 1 ? second : 0;
                record(ls);
                recorded = linsolve_end_pattern(ls, NULL) == DIRAC_OK;
                fail_at = 0;
                ENSURE(recorded == linsolve_has_pattern(ls));
            }
            ENSURE(recorded);
            if (recorded)
                ensure_solves(ls);
            linsolve_destroy(ls);
        }
}

// x'' = −x and y'' = −4 y from (x0, y0) at rest: x = x0 cos t, y = y0 cos 2t. The sparse
// solver's matrices are block diagonal after KLU's permutation (the two oscillators are
// decoupled). Bound: a method of order p on an oscillator of frequency ω has a phase error
// of C (ω h)^p ω T at time T with C well below 1 (1/12 for the midpoint rule, p = 2; the
// three-stage Lobatto IIIA–IIIB pair, p = 4, 1/2880 for its leading term, Hairer–Lubich–Wanner,
// Geometric Numerical Integration, sec. II.1), so C = 1 bounds the position error
// amplitude (ω h)^p ω T, plus the Newton tolerance.
static void decoupled_oscillators_sparse(void)
{
    static const char *const text = "model decoupled\ncoordinate x, y\n"
                                    "lagrangian (x'^2 + y'^2)/2 - x^2/2 - 2*y^2\n"
                                    "initial x = 0.7, y = -0.4\n";
    const char *methods[] = { "dgrad", "lobatto3" };
    const int orders[] = { 2, 4 };
    const double h = 0.01, end = 2.0, x0 = 0.7, y0 = -0.4;
    for (int m = 0; m < 2; m++) {
        dirac_sim_options options = { .method = methods[m], .dt = h,
                                      .linear_solver = DIRAC_LINEAR_SPARSE };
        run r;
        if (!run_open_with(&r, text, NULL, 0, &options))
            continue;
        if (run_steps(&r, (long)lround(end / h))) {
            double t = dirac_sim_time(r.sim);
            const double *q = dirac_sim_q(r.sim);
            ENSURE_NEAR(t, end, 1e-12);
            double ex = fabs(x0) * pow(h, orders[m]) * t + 1e-9;
            double ey = fabs(y0) * pow(2.0 * h, orders[m]) * 2.0 * t + 1e-9;
            ENSURE_NEAR(q[0], x0 * cos(t), ex);
            ENSURE_NEAR(q[1], y0 * cos(2.0 * t), ey);
            // and the method is not exact: the bound is not empty (errors above 1e-4 of it)
            ENSURE(fabs(q[1] - y0 * cos(2.0 * t)) > 1e-4 * ey);
        }
        run_close(&r);
    }
}

TEST_MAIN(TEST(block_diagonal_kept_solve), TEST(pattern_recorded_again),
          TEST(decoupled_oscillators_sparse))
