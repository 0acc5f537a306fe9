// The function table (src/builtin_functions.h), row by row: each function's derivative rule
// against finite differences of its value, its symmetry, its tape instruction against its
// scalar value, its name through the parser's lookup and the printer. A new row is checked
// without touching this file.
//
// Finite differences: Richardson-extrapolated central differences
//     D(h) = (f(x+h) - f(x-h)) / 2h,   R(h) = (4 D(h/2) - D(h)) / 3   (error O(h^4))
// with h = 1e-3 (1 + |x|), halved until R(h) and R(h/2) agree to 1e-7 (1 + |R|) (near a pole,
// tan at 1.6, the O(h^4) truncation needs a smaller h; after at most 8 halvings h >= 4e-6, so
// the rounding error of R, ~ 1e-16 |f| / h <= 3e-11 |f|, stays far below the tolerances); the
// rule must then match to 1e-6 (1 + |d|).
// Every point is checked, except where the function is not finite: outside the domain of a
// PARTIAL row (asin, acos at 1.6 and -2.2; log, sqrt at negative points), which the test
// asserts. The points avoid the kinks of abs and sign at 0.
#include "harness.h"

#include "expr.h"
#include "model_lower.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define FD_AGREE 1e-7
#define FD_TOL 1e-6

typedef struct function_row {
    expr_kind kind;
    const char *name;
    int arity;
    int symmetry;   // 0 none, 1 even, -1 odd
    int partial;    // undefined somewhere (domain PARTIAL)
} function_row;

#define EVEN 1
#define ODD (-1)
#define NONE 0
static const function_row rows[] = {
#define TOTAL 0
#define PARTIAL 1
#define ROW(id, name, arity, c_call, latex, symmetry, domain, ...) \
    { EXPR_##id, name, arity, symmetry, domain },
    BUILTIN_MATH_LIST(ROW)
#undef ROW
};
#undef EVEN
#undef ODD
#undef NONE
#undef TOTAL
#undef PARTIAL

static const int n_rows = (int)(sizeof rows / sizeof rows[0]);

// points inside the domains of most functions, away from kinks (abs, sign at 0)
static const double points[] = { 0.3, 0.7, -0.45, 1.6, -2.2 };
static const double y_point = 0.8;   // second argument of binary functions

// f of row r with argument `which` moved to v
static double value_at(const function_row *r, int which, double x, double y, double v)
{
    return which == 0 ? expr_apply(r->kind, v, y) : expr_apply(r->kind, x, v);
}

static double richardson(const function_row *r, int which, double x, double y, double h)
{
    double at = which == 0 ? x : y;
    double d1 = (value_at(r, which, x, y, at + h) - value_at(r, which, x, y, at - h)) / (2 * h);
    double h2 = h / 2;
    double d2 = (value_at(r, which, x, y, at + h2) - value_at(r, which, x, y, at - h2)) / (2 * h2);
    return (4 * d2 - d1) / 3;
}

static expr_id make_row(expr_pool *pool, const function_row *r, expr_id x, expr_id y)
{
    return r->arity == 1 ? expr_fn(pool, r->kind, x) : expr_make(pool, r->kind, x, y);
}

static void derivatives(void)
{
    for (int i = 0; i < n_rows; i++) {
        const function_row *r = &rows[i];
        expr_pool *pool = NULL;
        ENSURE(expr_pool_create(&pool, NULL) == DIRAC_OK);
        expr_id x = expr_var(pool, 0), y = expr_var(pool, 1), f = make_row(pool, r, x, y);
        int checked = 0;
        for (int which = 0; which < r->arity; which++) {
            expr_id d = expr_diff(pool, f, which);
            ENSURE(d != EXPR_NONE);
            for (size_t k = 0; k < sizeof points / sizeof points[0]; k++) {
                double in[2] = { points[k], y_point }, at = in[which];
                if (!isfinite(expr_apply(r->kind, in[0], in[1]))) {
                    ENSURE(r->partial);   // outside the domain: only a PARTIAL row has one
                    continue;
                }
                double h = 1e-3 * (1 + fabs(at));
                double fd = richardson(r, which, in[0], in[1], h);
                double fd2 = richardson(r, which, in[0], in[1], h / 2);
                for (int halving = 0; halving < 8 && !(fabs(fd - fd2) <= FD_AGREE * (1 + fabs(fd)));
                     halving++) {
                    h /= 2;
                    fd = fd2;
                    fd2 = richardson(r, which, in[0], in[1], h / 2);
                }
                if (!(fabs(fd - fd2) <= FD_AGREE * (1 + fabs(fd))))
                    fprintf(stderr, "d %s / d arg %d at %g: the differences do not settle "
                            "(%.17g, %.17g)\n", r->name, which, at, fd, fd2);
                ENSURE(fabs(fd - fd2) <= FD_AGREE * (1 + fabs(fd)));
                double dv = NAN;
                ENSURE(expr_eval_reference(pool, 1, &d, in, &dv, NULL) == DIRAC_OK);
                if (!(fabs(dv - fd2) <= FD_TOL * (1 + fabs(dv))))
                    fprintf(stderr, "d %s / d arg %d at %g: rule %.17g, differences %.17g\n",
                            r->name, which, at, dv, fd2);
                ENSURE_NEAR(dv, fd2, FD_TOL * (1 + fabs(dv)));
                checked++;
            }
        }
        // every row has at least two points in its domain among `points`, and a TOTAL row all
        ENSURE(checked >= 2 * r->arity);
        ENSURE(r->partial || checked == r->arity * (int)(sizeof points / sizeof points[0]));
        expr_pool_destroy(pool);
    }
}

// f(-x) = f(x) or -f(x), as the simplifier assumes; libm keeps these exactly, but allow one
// rounding (2^-52 relative) in case an implementation reduces -x differently
static void symmetry(void)
{
    for (int i = 0; i < n_rows; i++) {
        const function_row *r = &rows[i];
        if (r->symmetry == 0)
            continue;
        ENSURE_EQ_INT(r->arity, 1);
        for (size_t k = 0; k < sizeof points / sizeof points[0]; k++) {
            double x = points[k], f = expr_apply(r->kind, x, 0), g = expr_apply(r->kind, -x, 0);
            if (isnan(f))
                continue;
            ENSURE_NEAR(g, r->symmetry * f, 0x1p-52 * (1 + fabs(f)));
        }
    }
}

// the tape computes each function exactly as expr_apply (the same C call)
static void tape_and_names(void)
{
    for (int i = 0; i < n_rows; i++) {
        const function_row *r = &rows[i];
        expr_pool *pool = NULL;
        ENSURE(expr_pool_create(&pool, NULL) == DIRAC_OK);
        expr_id f = make_row(pool, r, expr_var(pool, 0), expr_var(pool, 1));
        expr_tape *tape = NULL;
        ENSURE(expr_tape_compile(pool, 1, &f, &tape, NULL) == DIRAC_OK);
        double work[8];
        ENSURE(expr_tape_work_size(tape) <= 8);
        for (size_t k = 0; k < sizeof points / sizeof points[0]; k++) {
            double in[2] = { points[k], y_point }, out = 0;
            expr_tape_eval(tape, in, work, &out);
            double want = expr_apply(r->kind, in[0], in[1]);
            ENSURE(out == want || (isnan(out) && isnan(want)));
        }
        expr_tape_destroy(tape);

        // the parser's name lowers to this kind, and the printer writes name(x0[, x1])
        int func = spec_func_lookup(r->name, strlen(r->name));
        ENSURE(func >= 0 && spec_func_kind((spec_func)func) == r->kind);
        ENSURE_EQ_INT(spec_func_arity((spec_func)func), r->arity);
        char *text = NULL, want[64];
        snprintf(want, sizeof want, "%s(x0%s)", r->name, r->arity == 2 ? ", x1" : "");
        ENSURE(expr_print(pool, f, EXPR_PRINT_INFIX, NULL, NULL, &text, NULL) == DIRAC_OK);
        ENSURE(text && strcmp(text, want) == 0);
        free(text);
        expr_pool_destroy(pool);
    }
}

TEST_MAIN(TEST(derivatives), TEST(symmetry), TEST(tape_and_names))
