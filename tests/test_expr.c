// Expression engine: hash-consing, simplification, derivatives against finite differences,
// Hessians, tape against the reference evaluator, printing, errors.
//
// Finite differences: Richardson-extrapolated central differences
//     D(h) = (f(x+h) - f(x-h)) / 2h,   R(h) = (4 D(h/2) - D(h)) / 3   (error O(h^4))
// with h = 1e-3 (1 + |x|). A point counts as reliable when R(h) and R(h/2) agree to
// 1e-7 (1 + |R|); symbolic derivatives must then match to 1e-6 (1 + |d|).
#include "harness.h"

#include "expr.h"

#include <stdlib.h>

#define FD_AGREE 1e-7
#define FD_TOL 1e-6
#define NVARS 3

static expr_pool *new_pool(void)
{
    expr_pool *pool = NULL;
    dirac_error err;
    ENSURE(expr_pool_create(&pool, &err) == DIRAC_OK);
    return pool;
}

// value of one expression by the reference evaluator
static double ref_eval(const expr_pool *pool, expr_id e, const double *x)
{
    double v = NAN;
    dirac_error err;
    if (expr_eval_reference(pool, 1, &e, x, &v, &err) != DIRAC_OK)
        return NAN;
    return v;
}

// values of several expressions through a freshly compiled tape
static int tape_eval(const expr_pool *pool, int n, const expr_id *ids, const double *x,
                     double *out)
{
    expr_tape *tape;
    dirac_error err;
    if (expr_tape_compile(pool, n, ids, &tape, &err) != DIRAC_OK)
        return -1;
    double *work = malloc(((size_t)expr_tape_work_size(tape) + 1) * sizeof *work);
    expr_tape_eval(tape, x, work, out);
    free(work);
    expr_tape_destroy(tape);
    return 0;
}

// d f / d x_j by Richardson-extrapolated central differences with step h
static double richardson(const expr_pool *pool, expr_id f, const double *x, int j, double h)
{
    double y[NVARS];
    memcpy(y, x, sizeof y);
    double d[2];
    for (int k = 0; k < 2; k++) {
        double s = k == 0 ? h : h / 2;
        y[j] = x[j] + s;
        double fp = ref_eval(pool, f, y);
        y[j] = x[j] - s;
        double fm = ref_eval(pool, f, y);
        d[k] = (fp - fm) / (2 * s);
    }
    return (4 * d[1] - d[0]) / 3;
}

// compares d f / d x_j (given) with finite differences; returns 1 if reliable and checked,
// 0 if the differences are unreliable at x (then nothing is asserted)
static int check_fd(const expr_pool *pool, expr_id f, const double *x, int j, double d,
                    int *mismatches)
{
    double h = 1e-3 * (1 + fabs(x[j]));
    double r1 = richardson(pool, f, x, j, h), r2 = richardson(pool, f, x, j, h / 2);
    if (!isfinite(r1) || !isfinite(r2) || fabs(r1 - r2) > FD_AGREE * (1 + fabs(r2)))
        return 0;
    if (!(fabs(d - r2) <= FD_TOL * (1 + fabs(r2)))) {
        char *text = NULL;
        expr_print(pool, f, EXPR_PRINT_INFIX, NULL, NULL, &text, NULL);
        fprintf(stderr, "derivative mismatch d/dx%d of %s at (%g, %g, %g): %.12g vs fd %.12g\n", j,
                text ? text : "?", x[0], x[1], x[2], d, r2);
        free(text);
        (*mismatches)++;
    }
    return 1;
}

// ---------------------------------------------------------------------------------------

static void hash_consing(void)
{
    expr_pool *pool = new_pool();
    expr_id x = expr_var(pool, 0), y = expr_var(pool, 1);
    expr_id e1 = expr_add(pool, expr_mul(pool, expr_fn(pool, EXPR_SIN, x), y),
                          expr_powc(pool, expr_sub(pool, x, y), 3.0));
    int32_t size = expr_pool_size(pool);
    expr_id x2 = expr_var(pool, 0), y2 = expr_var(pool, 1);
    expr_id e2 = expr_add(pool, expr_mul(pool, expr_fn(pool, EXPR_SIN, x2), y2),
                          expr_powc(pool, expr_sub(pool, x2, y2), 3.0));
    ENSURE_EQ_INT(e1, e2);
    ENSURE_EQ_INT(expr_pool_size(pool), size);

    // commutative operators share a node whatever the order
    ENSURE_EQ_INT(expr_add(pool, x, y), expr_add(pool, y, x));
    ENSURE_EQ_INT(expr_mul(pool, x, y), expr_mul(pool, y, x));
    ENSURE_EQ_INT(expr_const(pool, 2.5), expr_const(pool, 2.5));
    ENSURE_EQ_INT(expr_const(pool, -0.0), expr_const(pool, 0.0));
    ENSURE(expr_sub(pool, x, y) != expr_sub(pool, y, x));
    ENSURE_EQ_INT(expr_pool_size(pool), size + 5);   // x+y, x*y, 2.5, 0, y-x

    // differentiating twice adds nothing the second time (memo)
    expr_id d1 = expr_diff(pool, e1, 0);
    size = expr_pool_size(pool);
    ENSURE_EQ_INT(expr_diff(pool, e1, 0), d1);
    ENSURE_EQ_INT(expr_pool_size(pool), size);
    ENSURE_EQ_INT(expr_pool_status(pool), DIRAC_OK);
    expr_pool_destroy(pool);
}

static void simplifications(void)
{
    expr_pool *pool = new_pool();
    expr_id x = expr_var(pool, 0), y = expr_var(pool, 1);
    expr_id zero = expr_const(pool, 0), one = expr_const(pool, 1), two = expr_const(pool, 2);

    ENSURE_EQ_INT(expr_add(pool, x, zero), x);
    ENSURE_EQ_INT(expr_add(pool, zero, x), x);
    ENSURE_EQ_INT(expr_sub(pool, x, zero), x);
    ENSURE_EQ_INT(expr_mul(pool, x, one), x);
    ENSURE_EQ_INT(expr_mul(pool, zero, x), zero);
    ENSURE_EQ_INT(expr_div(pool, x, one), x);
    ENSURE(expr_div(pool, zero, x) != zero);   // 0/x is undefined at x = 0: kept
    ENSURE_EQ_INT(expr_powc(pool, x, 1), x);
    ENSURE_EQ_INT(expr_powc(pool, x, 0), one);
    ENSURE_EQ_INT(expr_neg(pool, expr_neg(pool, x)), x);
    ENSURE_EQ_INT(expr_sub(pool, x, x), zero);
    ENSURE(expr_div(pool, x, x) != one);   // undefined at x = 0: kept
    expr_id ex = expr_fn(pool, EXPR_EXP, x);
    ENSURE_EQ_INT(expr_div(pool, ex, ex), one);   // exp(x) != 0 everywhere

    // simplification never changes definedness: 0/0, 0*(1/0), inf - inf, 0*(1/x), r - r with
    // r = 1/x stay operations (they evaluate to NaN where undefined)
    expr_id zz = expr_div(pool, zero, zero), inf = expr_div(pool, one, zero);
    ENSURE_EQ_INT(expr_kind_of(pool, zz), EXPR_DIV);
    ENSURE_EQ_INT(expr_kind_of(pool, expr_mul(pool, zero, inf)), EXPR_MUL);
    ENSURE_EQ_INT(expr_kind_of(pool, expr_sub(pool, inf, inf)), EXPR_SUB);
    expr_id r = expr_div(pool, one, x);
    ENSURE_EQ_INT(expr_kind_of(pool, expr_mul(pool, zero, r)), EXPR_MUL);
    ENSURE_EQ_INT(expr_kind_of(pool, expr_sub(pool, r, r)), EXPR_SUB);
    ENSURE_EQ_INT(expr_kind_of(pool, expr_mul(pool, zero, expr_fn(pool, EXPR_LOG, x))), EXPR_MUL);
    // built from total operations on variables: simplified
    ENSURE_EQ_INT(expr_mul(pool, zero, expr_fn(pool, EXPR_SIN, expr_mul(pool, x, y))), zero);
    ENSURE_EQ_INT(expr_sub(pool, expr_fn(pool, EXPR_COS, x), expr_fn(pool, EXPR_COS, x)), zero);
    ENSURE_EQ_INT(expr_sub(pool, zero, x), expr_neg(pool, x));

    // constant folding
    expr_id c = expr_add(pool, expr_fn(pool, EXPR_SIN, expr_const(pool, 0.5)), one);
    ENSURE_EQ_INT(expr_kind_of(pool, c), EXPR_CONST);
    ENSURE_NEAR(expr_const_value(pool, c), sin(0.5) + 1, 0);
    ENSURE_EQ_INT(expr_kind_of(pool, expr_fn(pool, EXPR_LOG, zero)), EXPR_LOG);   // -inf: kept

    // c1*(c2*x) = (c1 c2)*x and c1 + (c2 + x) = (c1 + c2) + x
    expr_id m = expr_mul(pool, expr_const(pool, 3), expr_mul(pool, two, x));
    ENSURE_EQ_INT(m, expr_mul(pool, expr_const(pool, 6), x));
    ENSURE_EQ_INT(expr_add(pool, expr_const(pool, 3), expr_add(pool, x, two)),
                  expr_add(pool, expr_const(pool, 5), x));
    ENSURE_EQ_INT(expr_mul(pool, expr_mul(pool, two, x), expr_mul(pool, two, y)),
                  expr_mul(pool, expr_const(pool, 4), expr_mul(pool, x, y)));

    // signs are pulled out and merged
    ENSURE_EQ_INT(expr_mul(pool, expr_neg(pool, x), expr_neg(pool, y)), expr_mul(pool, x, y));
    ENSURE_EQ_INT(expr_add(pool, x, expr_neg(pool, y)), expr_sub(pool, x, y));
    ENSURE_EQ_INT(expr_sub(pool, x, expr_neg(pool, y)), expr_add(pool, x, y));
    ENSURE_EQ_INT(expr_neg(pool, expr_sub(pool, x, y)), expr_sub(pool, y, x));
    ENSURE_EQ_INT(expr_mul(pool, expr_const(pool, -1), x), expr_neg(pool, x));
    ENSURE_EQ_INT(expr_add(pool, x, expr_mul(pool, expr_const(pool, -2), y)),
                  expr_sub(pool, x, expr_mul(pool, two, y)));

    // powers
    ENSURE_EQ_INT(expr_mul(pool, x, x), expr_powc(pool, x, 2));
    ENSURE_EQ_INT(expr_mul(pool, x, expr_powc(pool, x, 2)), expr_powc(pool, x, 3));
    ENSURE_EQ_INT(expr_powc(pool, expr_powc(pool, x, 2), 3), expr_powc(pool, x, 6));
    ENSURE_EQ_INT(expr_powc(pool, x, 0.5), expr_fn(pool, EXPR_SQRT, x));
    ENSURE_EQ_INT(expr_powc(pool, expr_neg(pool, x), 2), expr_powc(pool, x, 2));
    ENSURE_EQ_INT(expr_powc(pool, x, -1), expr_div(pool, one, x));
    ENSURE_EQ_INT(expr_pow(pool, one, x), one);
    expr_id p3 = expr_powc(pool, x, 3);
    ENSURE_EQ_INT(expr_kind_of(pool, p3), EXPR_POW);   // small integer powers stay powers

    // functions
    ENSURE_EQ_INT(expr_fn(pool, EXPR_LOG, expr_fn(pool, EXPR_EXP, x)), x);
    ENSURE_EQ_INT(expr_fn(pool, EXPR_ABS, expr_neg(pool, x)), expr_fn(pool, EXPR_ABS, x));
    ENSURE_EQ_INT(expr_fn(pool, EXPR_SQRT, expr_powc(pool, x, 2)), expr_fn(pool, EXPR_ABS, x));
    ENSURE_EQ_INT(expr_fn(pool, EXPR_COS, expr_neg(pool, x)), expr_fn(pool, EXPR_COS, x));
    ENSURE_EQ_INT(expr_fn(pool, EXPR_SIN, expr_neg(pool, x)),
                  expr_neg(pool, expr_fn(pool, EXPR_SIN, x)));

    // x - c is stored as (-c) + x, x / 2 as 0.5*x (both exact)
    ENSURE_EQ_INT(expr_sub(pool, x, two), expr_add(pool, expr_const(pool, -2), x));
    ENSURE_EQ_INT(expr_div(pool, x, two), expr_mul(pool, expr_const(pool, 0.5), x));
    ENSURE(expr_div(pool, x, expr_const(pool, 3)) != expr_mul(pool, expr_const(pool, 1.0 / 3), x));

    // derivatives simplify as they are built
    ENSURE_EQ_INT(expr_diff(pool, expr_mul(pool, x, y), 0), y);
    ENSURE_EQ_INT(expr_diff(pool, expr_powc(pool, x, 2), 0), expr_mul(pool, two, x));
    ENSURE_EQ_INT(expr_diff(pool, expr_fn(pool, EXPR_SIN, y), 0), zero);
    ENSURE_EQ_INT(expr_diff(pool, expr_fn(pool, EXPR_ABS, x), 0), expr_fn(pool, EXPR_SIGN, x));
    ENSURE_EQ_INT(expr_diff(pool, expr_fn(pool, EXPR_SIGN, x), 0), zero);
    ENSURE_EQ_INT(expr_pool_status(pool), DIRAC_OK);
    expr_pool_destroy(pool);
}

// ---------------------------------------------------------------------------------------
// Hand-written expressions covering every operator and function.

// builds the hand-written expressions in x = x0, y = x1, z = x2; returns their number
static int hand_expressions(expr_pool *p, expr_id *out)
{
    expr_id x = expr_var(p, 0), y = expr_var(p, 1), z = expr_var(p, 2);
    expr_id one = expr_const(p, 1), two = expr_const(p, 2);
#define C(v) expr_const(p, v)
#define ADD(a, b) expr_add(p, a, b)
#define SUB(a, b) expr_sub(p, a, b)
#define MUL(a, b) expr_mul(p, a, b)
#define DIV(a, b) expr_div(p, a, b)
#define POW(a, b) expr_pow(p, a, b)
#define POWC(a, n) expr_powc(p, a, n)
#define F(kind, a) expr_fn(p, EXPR_##kind, a)
    int n = 0;
    out[n++] = ADD(x, y);
    out[n++] = SUB(x, y);
    out[n++] = MUL(x, y);
    out[n++] = DIV(x, y);
    out[n++] = POWC(x, 3);
    out[n++] = POW(x, y);
    out[n++] = POW(two, x);
    out[n++] = POWC(x, -2);
    out[n++] = POWC(x, 0.3);
    out[n++] = expr_neg(p, MUL(x, y));
    out[n++] = F(SIN, MUL(x, y));
    out[n++] = F(COS, ADD(x, z));
    out[n++] = F(TAN, x);
    out[n++] = F(ASIN, x);
    out[n++] = F(ACOS, y);
    out[n++] = F(ATAN, MUL(x, z));
    out[n++] = expr_make(p, EXPR_ATAN2, y, x);
    out[n++] = expr_make(p, EXPR_ATAN2, SUB(x, one), z);
    out[n++] = F(SINH, x);
    out[n++] = F(COSH, MUL(y, z));
    out[n++] = F(TANH, SUB(x, y));
    out[n++] = F(EXP, MUL(x, y));
    out[n++] = F(LOG, z);
    out[n++] = F(SQRT, ADD(MUL(x, x), MUL(y, y)));
    out[n++] = F(ABS, SUB(x, y));
    out[n++] = MUL(F(SIGN, SUB(x, y)), x);
    out[n++] = DIV(MUL(x, F(SIN, y)), ADD(one, POWC(z, 2)));
    out[n++] = MUL(F(EXP, expr_neg(p, POWC(x, 2))), F(COS, MUL(C(3), y)));
    out[n++] = DIV(F(LOG, ADD(ADD(one, POWC(x, 2)), POWC(y, 4))), F(SQRT, z));
    out[n++] = POWC(ADD(ADD(x, y), z), 5);
    out[n++] = POW(z, MUL(x, y));
    out[n++] = MUL(expr_make(p, EXPR_ATAN2, F(SIN, x), F(COS, y)), z);
    out[n++] = F(SQRT, F(ABS, SUB(x, z)));
    out[n++] = DIV(one, MUL(MUL(x, y), z));
    out[n++] = ADD(F(TANH, F(SINH, x)), F(COSH, F(ATAN, y)));
    out[n++] = DIV(SUB(x, y), ADD(x, y));
    out[n++] = POW(ADD(F(SIN, x), two), F(COS, y));
    out[n++] = SUB(MUL(DIV(C(1.5), two), ADD(POWC(x, 2), POWC(y, 2))), MUL(C(1.5 * 9.81), y));
    out[n++] = MUL(F(ACOS, MUL(C(0.5), x)), F(ASIN, SUB(y, C(0.2))));
    out[n++] = SUB(DIV(x, SUB(z, y)), POWC(SUB(z, x), -3));
#undef C
#undef ADD
#undef SUB
#undef MUL
#undef DIV
#undef POW
#undef POWC
#undef F
    return n;
}

// a random point where every hand-written expression is defined
static void hand_point(test_rng *rng, double *x)
{
    x[0] = test_rng_uniform(rng, 0.2, 0.8);
    x[1] = test_rng_uniform(rng, 0.3, 0.9);
    x[2] = test_rng_uniform(rng, 1.1, 2.0);
}

static void hand_derivatives(void)
{
    expr_pool *pool = new_pool();
    expr_id e[64];
    int n = hand_expressions(pool, e);
    ENSURE(n >= 30);
    ENSURE_EQ_INT(expr_pool_status(pool), DIRAC_OK);
    test_rng rng = { 11 };
    int checked = 0, unreliable = 0, mismatches = 0;
    for (int i = 0; i < n; i++) {
        for (int trial = 0; trial < 4; trial++) {
            double x[NVARS];
            hand_point(&rng, x);
            for (int j = 0; j < NVARS; j++) {
                expr_id d = expr_diff(pool, e[i], j);
                double dv = ref_eval(pool, d, x);
                if (check_fd(pool, e[i], x, j, dv, &mismatches))
                    checked++;
                else
                    unreliable++;
            }
        }
    }
    ENSURE_EQ_INT(mismatches, 0);
    ENSURE_EQ_INT(unreliable, 0);
    ENSURE_EQ_INT(checked, n * 4 * NVARS);
    ENSURE_EQ_INT(expr_pool_status(pool), DIRAC_OK);
    expr_pool_destroy(pool);
}

// Jacobian (reverse mode) against expr_diff (forward mode), and absent entries are zero
static void check_jacobian(expr_pool *pool, int n, const expr_id *e, const double *x)
{
    int32_t vars[NVARS] = { 0, 1, 2 };
    expr_sparse jac;
    dirac_error err;
    ENSURE(expr_jacobian(pool, n, e, NVARS, vars, &jac, &err) == DIRAC_OK);
    for (int r = 0; r < n; r++) {
        int k = jac.row_start[r];
        for (int c = 0; c < NVARS; c++) {
            double forward = ref_eval(pool, expr_diff(pool, e[r], c), x);
            double reverse = 0;
            if (k < jac.row_start[r + 1] && jac.col[k] == c)
                reverse = ref_eval(pool, jac.value[k++], x);
            if (isfinite(forward))
                ENSURE_NEAR(reverse, forward, 1e-10 * (1 + fabs(forward)));
        }
        ENSURE_EQ_INT(k, jac.row_start[r + 1]);
    }
    expr_sparse_free(&jac);
}

static void jacobian_matches_forward_mode(void)
{
    expr_pool *pool = new_pool();
    expr_id e[64];
    int n = hand_expressions(pool, e);
    test_rng rng = { 12 };
    double x[NVARS];
    hand_point(&rng, x);
    check_jacobian(pool, n, e, x);

    // structural sparsity: y + z does not depend on x; sin(y) - sin(y) is 0
    expr_id y = expr_var(pool, 1), z = expr_var(pool, 2);
    expr_id f[2] = { expr_add(pool, y, z), expr_sub(pool, expr_fn(pool, EXPR_SIN, y),
                                                     expr_fn(pool, EXPR_SIN, y)) };
    int32_t vars[NVARS] = { 0, 1, 2 };
    expr_sparse jac;
    ENSURE(expr_jacobian(pool, 2, f, NVARS, vars, &jac, NULL) == DIRAC_OK);
    ENSURE_EQ_INT(jac.nnz, 2);
    ENSURE_EQ_INT(jac.row_start[1], 2);
    ENSURE_EQ_INT(jac.col[0], 1);
    ENSURE_EQ_INT(jac.col[1], 2);
    expr_sparse_free(&jac);
    expr_pool_destroy(pool);
}

// ---------------------------------------------------------------------------------------
// Random expression trees.

// a random tree of the given depth in NVARS variables; domain-restricted functions get a
// safe argument half of the time (the rest is left to point rejection)
static expr_id random_tree(expr_pool *p, test_rng *rng, int depth)
{
    if (depth == 0 || test_rng_int(rng, 0, 9) < 2) {
        if (test_rng_int(rng, 0, 3) == 0)
            return expr_const(p, (double)test_rng_int(rng, -20, 20) / 4);
        return expr_var(p, test_rng_int(rng, 0, NVARS - 1));
    }
    expr_id a = random_tree(p, rng, depth - 1);
    int safe = test_rng_int(rng, 0, 1);
    expr_id half = expr_const(p, 0.5);
    expr_id positive = expr_add(p, half, expr_powc(p, a, 2));   // 0.5 + a^2 > 0
    int choice = test_rng_int(rng, 0, 22);
    switch (choice) {
    case 0:
        return expr_add(p, a, random_tree(p, rng, depth - 1));
    case 1:
        return expr_sub(p, a, random_tree(p, rng, depth - 1));
    case 2:
    case 3:
        return expr_mul(p, a, random_tree(p, rng, depth - 1));
    case 4: {
        expr_id b = random_tree(p, rng, depth - 1);
        return expr_div(p, a, safe ? expr_add(p, half, expr_powc(p, b, 2)) : b);
    }
    case 5:
        return expr_powc(p, a, test_rng_int(rng, -3, 4));
    case 6:
        return expr_powc(p, safe ? positive : a, test_rng_uniform(rng, -2, 2));
    case 7:
        return expr_pow(p, safe ? positive : a, random_tree(p, rng, depth - 1));
    case 8:
        return expr_make(p, EXPR_ATAN2, a, random_tree(p, rng, depth - 1));
    case 9:
        return expr_neg(p, a);
    default: {
        static const expr_kind functions[] = { EXPR_SIN,  EXPR_COS,  EXPR_TAN,  EXPR_ASIN,
                                               EXPR_ACOS, EXPR_ATAN, EXPR_SINH, EXPR_COSH,
                                               EXPR_TANH, EXPR_EXP,  EXPR_LOG,  EXPR_SQRT,
                                               EXPR_ABS };
        expr_kind kind = functions[choice - 10];
        if (safe && (kind == EXPR_ASIN || kind == EXPR_ACOS))
            a = expr_mul(p, expr_const(p, 0.9), expr_fn(p, EXPR_SIN, a));
        if (safe && (kind == EXPR_LOG || kind == EXPR_SQRT))
            a = positive;
        if (kind == EXPR_ABS && test_rng_int(rng, 0, 3) == 0)
            kind = EXPR_SIGN;
        return expr_fn(p, kind, a);
    }
    }
}

static void random_point(test_rng *rng, double *x)
{
    for (int j = 0; j < NVARS; j++)
        x[j] = test_rng_uniform(rng, -2, 2);
}

// 1 if e and its first derivatives are finite and moderate at x
static int usable_point(const expr_pool *pool, expr_id e, const expr_id *d, const double *x)
{
    double v = ref_eval(pool, e, x);
    if (!isfinite(v) || fabs(v) > 1e4)
        return 0;
    for (int j = 0; j < NVARS; j++) {
        double dv = ref_eval(pool, d[j], x);
        if (!isfinite(dv) || fabs(dv) > 1e4)
            return 0;
    }
    return 1;
}

static void random_derivatives(void)
{
    expr_pool *pool = new_pool();
    test_rng rng = { 2024 };
    int trees = 0, attempts = 0, checked = 0, unreliable = 0, mismatches = 0;
    while (trees < 1200 && attempts < 20000) {
        attempts++;
        expr_id e = random_tree(pool, &rng, test_rng_int(&rng, 1, 5));
        expr_id d[NVARS];
        for (int j = 0; j < NVARS; j++)
            d[j] = expr_diff(pool, e, j);
        double x[NVARS];
        int found = 0;
        for (int trial = 0; trial < 20 && !found; trial++) {
            random_point(&rng, x);
            found = usable_point(pool, e, d, x);
        }
        if (!found)
            continue;   // no point of the domain found: draw another tree
        trees++;
        for (int j = 0; j < NVARS; j++) {
            if (check_fd(pool, e, x, j, ref_eval(pool, d[j], x), &mismatches))
                checked++;
            else
                unreliable++;
        }
        if (trees % 10 == 0)
            check_jacobian(pool, 1, &e, x);
    }
    printf("random trees: %d of %d drawn usable; %d derivatives checked, %d at unreliable points, "
           "%d mismatches\n", trees, attempts, checked, unreliable, mismatches);
    ENSURE(trees >= 1000);
    ENSURE_EQ_INT(mismatches, 0);
    ENSURE_LE(unreliable, 0.05 * (checked + unreliable));
    ENSURE_EQ_INT(expr_pool_status(pool), DIRAC_OK);
    expr_pool_destroy(pool);
}

// ---------------------------------------------------------------------------------------
// Second derivatives.

// Hessian of e (sparse) against finite differences of its symbolic gradient and against
// expr_diff twice; returns 1 if every entry was checked at a reliable point
static int check_hessian(expr_pool *pool, expr_id e, const double *x, int *mismatches)
{
    int32_t vars[NVARS] = { 0, 1, 2 };
    expr_sparse g, h;
    ENSURE(expr_hessian(pool, e, NVARS, vars, &g, &h, NULL) == DIRAC_OK);
    ENSURE_EQ_INT(h.n_rows, NVARS);
    int reliable = 1;
    for (int i = 0; i < NVARS; i++) {
        expr_id gi = expr_diff(pool, e, i);
        int k = h.row_start[i];
        for (int j = 0; j < NVARS; j++) {
            double hij = 0;
            if (k < h.row_start[i + 1] && h.col[k] == j)
                hij = ref_eval(pool, h.value[k++], x);
            double twice = ref_eval(pool, expr_diff(pool, gi, j), x);
            ENSURE_NEAR(hij, twice, 1e-9 * (1 + fabs(twice)));
            if (!check_fd(pool, gi, x, j, hij, mismatches))
                reliable = 0;
        }
    }
    expr_sparse_free(&g);
    expr_sparse_free(&h);
    return reliable;
}

static void hessians(void)
{
    expr_pool *pool = new_pool();
    expr_id e[64];
    int n = hand_expressions(pool, e);
    test_rng rng = { 13 };
    int mismatches = 0, unreliable = 0, trees = 0;
    for (int i = 0; i < n; i++) {
        double x[NVARS];
        hand_point(&rng, x);
        unreliable += !check_hessian(pool, e[i], x, &mismatches);
    }
    ENSURE_EQ_INT(unreliable, 0);

    // random trees of moderate depth
    for (int attempt = 0; attempt < 5000 && trees < 300; attempt++) {
        expr_id f = random_tree(pool, &rng, test_rng_int(&rng, 1, 4));
        expr_id d[NVARS];
        for (int j = 0; j < NVARS; j++)
            d[j] = expr_diff(pool, f, j);
        double x[NVARS];
        random_point(&rng, x);
        if (!usable_point(pool, f, d, x))
            continue;
        trees++;
        unreliable += !check_hessian(pool, f, x, &mismatches);
    }
    printf("hessians: %d hand-written, %d random; %d at unreliable points\n", n, trees, unreliable);
    ENSURE(trees >= 300);
    ENSURE_LE(unreliable, 0.1 * trees);
    ENSURE_EQ_INT(mismatches, 0);
    expr_pool_destroy(pool);
}

// ---------------------------------------------------------------------------------------
// Tape.

static void tape_matches_reference(void)
{
    expr_pool *pool = new_pool();
    expr_id e[400];
    int n = hand_expressions(pool, e);
    test_rng rng = { 14 };
    while (n < 400)
        e[n++] = random_tree(pool, &rng, test_rng_int(&rng, 0, 6));
    for (int trial = 0; trial < 20; trial++) {
        double x[NVARS], fast[400], slow[400];
        random_point(&rng, x);
        ENSURE(tape_eval(pool, n, e, x, fast) == 0);
        ENSURE(expr_eval_reference(pool, n, e, x, slow, NULL) == DIRAC_OK);
        int differ = 0;
        for (int i = 0; i < n; i++) {
            if (isnan(slow[i]) && isnan(fast[i]))
                continue;
            if (isinf(slow[i]) && fast[i] == slow[i])
                continue;
            // exact except integer powers (repeated multiplication vs pow)
            if (!(fabs(fast[i] - slow[i]) <= 1e-12 * (1 + fabs(slow[i]))))
                differ++;
        }
        ENSURE_EQ_INT(differ, 0);
    }

    // shapes: immediates need no slot, and slots are reused along a chain
    expr_id x = expr_var(pool, 0);
    expr_id affine = expr_add(pool, expr_mul(pool, expr_const(pool, 2), x), expr_const(pool, 3));
    expr_tape *tape;
    ENSURE(expr_tape_compile(pool, 1, &affine, &tape, NULL) == DIRAC_OK);
    ENSURE_EQ_INT(expr_tape_length(tape), 2);   // *2, +3 (x is loaded before)
    ENSURE_EQ_INT(expr_tape_load_count(tape), 1);
    ENSURE_EQ_INT(expr_tape_work_size(tape), 1);
    ENSURE_EQ_INT(expr_tape_input_count(tape), 1);
    double in[1] = { 5 }, work[1], out[1];
    expr_tape_eval(tape, in, work, out);
    ENSURE_NEAR(out[0], 13, 0);
    expr_tape_destroy(tape);

    expr_id chain = x;
    for (int k = 0; k < 1000; k++)
        chain = expr_add(pool, expr_mul(pool, expr_const(pool, 0.5), expr_fn(pool, EXPR_SIN, chain)),
                         x);
    ENSURE(expr_tape_compile(pool, 1, &chain, &tape, NULL) == DIRAC_OK);
    ENSURE_EQ_INT(expr_tape_node_count(tape), 3001);
    ENSURE_LE(expr_tape_work_size(tape), 3);
    expr_tape_destroy(tape);

    // constant and variable outputs, and x^n by multiplication
    expr_id outs[4] = { expr_const(pool, 7), x, expr_powc(pool, x, 5), expr_powc(pool, x, -3) };
    double four[4];
    in[0] = 1.5;
    ENSURE(tape_eval(pool, 4, outs, in, four) == 0);
    ENSURE_NEAR(four[0], 7, 0);
    ENSURE_NEAR(four[1], 1.5, 0);
    ENSURE_NEAR(four[2], pow(1.5, 5), 1e-14);
    ENSURE_NEAR(four[3], pow(1.5, -3), 1e-15);
    ENSURE(expr_tape_compile(pool, 0, NULL, &tape, NULL) == DIRAC_OK);
    ENSURE_EQ_INT(expr_tape_length(tape), 0);
    expr_tape_destroy(tape);
    expr_pool_destroy(pool);
}

// ---------------------------------------------------------------------------------------
// Printing.

static const char *test_name(int32_t index, void *user)
{
    static const char *const infix[] = { "x", "y", "z", "m", "x'" };
    static const char *const latex[] = { "x", "y", "z", "m", "\\dot{x}" };
    const char *const *names = user ? latex : infix;
    return index < 5 ? names[index] : NULL;
}

static void check_print(const expr_pool *pool, expr_id e, expr_print_style style,
                        const char *expected)
{
    char *text = NULL;
    dirac_error err;
    ENSURE(expr_print(pool, e, style, test_name, style == EXPR_PRINT_LATEX ? (void *)1 : NULL,
                      &text, &err) == DIRAC_OK);
    if (!text || strcmp(text, expected) != 0) {
        fprintf(stderr, "printed \"%s\", expected \"%s\"\n", text ? text : "(null)", expected);
        test_failed_checks++;
    }
    free(text);
}

static void printing(void)
{
    expr_pool *pool = new_pool();
    expr_id x = expr_var(pool, 0), y = expr_var(pool, 1), z = expr_var(pool, 2);
    expr_id m = expr_var(pool, 3), xd = expr_var(pool, 4);
    expr_id two = expr_const(pool, 2);
    const expr_print_style I = EXPR_PRINT_INFIX, L = EXPR_PRINT_LATEX;

    check_print(pool, expr_sub(pool, x, expr_add(pool, y, z)), I, "x - (y + z)");
    check_print(pool, expr_sub(pool, expr_add(pool, x, y), z), I, "x + y - z");
    check_print(pool, expr_mul(pool, expr_add(pool, x, y), z), I, "z*(x + y)");
    check_print(pool, expr_neg(pool, expr_powc(pool, x, 2)), I, "-x^2");
    check_print(pool, expr_powc(pool, expr_neg(pool, x), 3), I, "(-x)^3");
    check_print(pool, expr_pow(pool, x, expr_pow(pool, y, z)), I, "x^y^z");
    check_print(pool, expr_pow(pool, expr_pow(pool, x, y), z), I, "(x^y)^z");
    check_print(pool, expr_div(pool, x, expr_mul(pool, y, z)), I, "x/(y*z)");
    check_print(pool, expr_powc(pool, x, -0.5), I, "x^(-0.5)");
    check_print(pool, expr_sub(pool, expr_mul(pool, two, x), expr_const(pool, 3)), I, "-3 + 2*x");
    check_print(pool, expr_powc(pool, expr_fn(pool, EXPR_SIN, x), 2), I, "sin(x)^2");
    check_print(pool, expr_make(pool, EXPR_ATAN2, y, x), I, "atan2(y, x)");
    check_print(pool, expr_mul(pool, expr_const(pool, 1e-5), expr_fn(pool, EXPR_ABS, x)), I,
                "1e-05*abs(x)");
    check_print(pool, expr_neg(pool, expr_add(pool, x, y)), I, "-(x + y)");
    check_print(pool, expr_neg(pool, expr_mul(pool, x, y)), I, "-x*y");
    check_print(pool, expr_const(pool, 0.1), I, "0.1");
    check_print(pool, expr_const(pool, 1.0 / 3), I, "0.33333333333333331");

    // m/2*(x'^2 + y^2) - 9.81*m*y
    expr_id lagrangian = expr_sub(pool, expr_mul(pool, expr_div(pool, m, two),
                                                 expr_add(pool, expr_powc(pool, xd, 2),
                                                          expr_powc(pool, y, 2))),
                                  expr_mul(pool, expr_const(pool, 9.81), expr_mul(pool, m, y)));
    check_print(pool, lagrangian, I, "0.5*m*(y^2 + x'^2) - 9.81*y*m");
    check_print(pool, lagrangian, L, "0.5 m \\left(y^{2} + \\dot{x}^{2}\\right) - 9.81 y m");

    check_print(pool, expr_div(pool, x, y), L, "\\frac{x}{y}");
    check_print(pool, expr_powc(pool, expr_add(pool, x, y), 2), L, "\\left(x + y\\right)^{2}");
    check_print(pool, expr_fn(pool, EXPR_SIN, x), L, "\\sin\\left(x\\right)");
    check_print(pool, expr_fn(pool, EXPR_SQRT, expr_add(pool, x, y)), L, "\\sqrt{x + y}");
    check_print(pool, expr_fn(pool, EXPR_ABS, x), L, "\\left|x\\right|");
    check_print(pool, expr_mul(pool, two, x), L, "2 x");
    check_print(pool, expr_mul(pool, x, expr_pow(pool, two, y)), L, "x \\cdot 2^{y}");
    check_print(pool, expr_mul(pool, expr_const(pool, 1e-5), x), L, "10^{-5} x");
    check_print(pool, expr_make(pool, EXPR_ATAN2, y, x), L,
                "\\operatorname{atan2}\\left(y, x\\right)");
    check_print(pool, expr_var(pool, 7), L, "x_{7}");
    check_print(pool, expr_var(pool, 7), I, "x7");
    check_print(pool, expr_powc(pool, expr_div(pool, x, y), 2), L,
                "\\left(\\frac{x}{y}\\right)^{2}");
    expr_pool_destroy(pool);
}

// ---------------------------------------------------------------------------------------
// Errors, substitution, lookups.

static void errors(void)
{
    expr_pool *pool = new_pool();
    dirac_error err = { DIRAC_OK, "" };
    expr_id x = expr_var(pool, 0);

    ENSURE_EQ_INT(expr_add(pool, x, 99999), EXPR_NONE);
    ENSURE_EQ_INT(expr_pool_error(pool, &err), DIRAC_ERR_ARGUMENT);
    ENSURE_CONTAINS(err.message, "out of range");
    ENSURE_EQ_INT(expr_mul(pool, EXPR_NONE, x), EXPR_NONE);   // propagates
    ENSURE_EQ_INT(expr_fn(pool, EXPR_SIN, EXPR_NONE), EXPR_NONE);
    ENSURE_EQ_INT(expr_diff(pool, EXPR_NONE, 0), EXPR_NONE);
    expr_pool_clear_error(pool);
    ENSURE_EQ_INT(expr_pool_status(pool), DIRAC_OK);

    ENSURE_EQ_INT(expr_var(pool, -1), EXPR_NONE);
    ENSURE_EQ_INT(expr_pool_status(pool), DIRAC_ERR_ARGUMENT);
    expr_pool_clear_error(pool);
    ENSURE_EQ_INT(expr_fn(pool, EXPR_ADD, x), EXPR_NONE);
    expr_pool_clear_error(pool);
    ENSURE_EQ_INT(expr_make(pool, EXPR_CONST, x, x), EXPR_NONE);
    expr_pool_clear_error(pool);
    ENSURE_EQ_INT(expr_diff(pool, x, -2), EXPR_NONE);
    expr_pool_clear_error(pool);

    expr_id bad = 12345;
    expr_tape *tape = NULL;
    ENSURE_EQ_INT(expr_tape_compile(pool, 1, &bad, &tape, &err), DIRAC_ERR_ARGUMENT);
    ENSURE(tape == NULL);
    ENSURE_CONTAINS(err.message, "12345");
    int32_t vars[2] = { 0, 0 };
    expr_sparse jac;
    ENSURE_EQ_INT(expr_jacobian(pool, 1, &x, 2, vars, &jac, &err), DIRAC_ERR_ARGUMENT);
    ENSURE_CONTAINS(err.message, "twice");
    char *text = NULL;
    ENSURE_EQ_INT(expr_print(pool, bad, EXPR_PRINT_INFIX, NULL, NULL, &text, &err),
                  DIRAC_ERR_ARGUMENT);

    // a small DAG whose printed form is exponentially long fails cleanly
    expr_id e = x;
    for (int k = 0; k < 30; k++)
        e = expr_add(pool, expr_fn(pool, EXPR_SIN, e), expr_fn(pool, EXPR_COS, e));
    ENSURE_EQ_INT(expr_print(pool, e, EXPR_PRINT_INFIX, NULL, NULL, &text, &err), DIRAC_ERR_SIZE);
    ENSURE(text == NULL);
    ENSURE_EQ_INT(expr_pool_status(pool), DIRAC_OK);
    expr_pool_destroy(pool);
    expr_pool_destroy(NULL);
    expr_tape_destroy(NULL);
    expr_sparse_free(NULL);
}

static void substitution_and_lookup(void)
{
    expr_pool *pool = new_pool();
    expr_id x = expr_var(pool, 0), m = expr_var(pool, 3), k = expr_var(pool, 4);
    expr_id e = expr_add(pool, expr_mul(pool, m, expr_powc(pool, x, 2)),
                         expr_fn(pool, EXPR_SIN, expr_mul(pool, k, x)));
    int32_t *vars = NULL;
    int n_vars = 0;
    ENSURE(expr_variables(pool, 1, &e, &vars, &n_vars, NULL) == DIRAC_OK);
    ENSURE_EQ_INT(n_vars, 3);
    if (n_vars == 3) {
        ENSURE_EQ_INT(vars[0], 0);
        ENSURE_EQ_INT(vars[1], 3);
        ENSURE_EQ_INT(vars[2], 4);
    }
    free(vars);

    int32_t which[2] = { 3, 4 };
    expr_id with[2] = { expr_const(pool, 2), expr_const(pool, 0) };
    expr_id folded;
    ENSURE(expr_substitute(pool, e, 2, which, with, &folded, NULL) == DIRAC_OK);
    ENSURE_EQ_INT(folded, expr_mul(pool, expr_const(pool, 2), expr_powc(pool, x, 2)));
    int64_t count = 0;
    ENSURE(expr_count_reachable(pool, 1, &folded, &count, NULL) == DIRAC_OK);
    ENSURE_EQ_INT(count, 4);   // 2, x, 2*... x^2 shares the constant 2: {2, x, x^2, 2*x^2}

    expr_kind kind;
    ENSURE_EQ_INT(expr_function_lookup("atan2", 5, &kind), 2);
    ENSURE_EQ_INT(kind, EXPR_ATAN2);
    ENSURE_EQ_INT(expr_function_lookup("sinh(x)", 4, &kind), 1);
    ENSURE_EQ_INT(kind, EXPR_SINH);
    ENSURE_EQ_INT(expr_function_lookup("sign", 4, &kind), 1);
    ENSURE_EQ_INT(expr_function_lookup("foo", 3, &kind), 0);
    ENSURE_EQ_INT(expr_function_lookup("neg", 3, &kind), 0);
    ENSURE_EQ_INT(expr_function_lookup("const", 5, &kind), 0);
    expr_pool_destroy(pool);
}

TEST_MAIN(TEST(hash_consing), TEST(simplifications), TEST(hand_derivatives),
          TEST(jacobian_matches_forward_mode), TEST(random_derivatives), TEST(hessians),
          TEST(tape_matches_reference), TEST(printing), TEST(errors),
          TEST(substitution_and_lookup))
