// Expression engine at scale: very deep expressions (no recursion anywhere) and linear
// growth of derivatives of chain models (no derivative swell).
#include "harness.h"

#include "expr.h"
#include "problems_expr.h"

#include <stdlib.h>

#define DEEP 100000
#define SUM_VARS 50

static expr_pool *new_pool(void)
{
    expr_pool *pool = NULL;
    ENSURE(expr_pool_create(&pool, NULL) == DIRAC_OK);
    return pool;
}

// evaluates n expressions through a tape
static void tape_values(const expr_pool *pool, int n, const expr_id *ids, const double *x,
                        double *out)
{
    expr_tape *tape = NULL;
    dirac_error err;
    ENSURE(expr_tape_compile(pool, n, ids, &tape, &err) == DIRAC_OK);
    if (!tape)
        return;
    double *work = malloc(((size_t)expr_tape_work_size(tape) + 1) * sizeof *work);
    expr_tape_eval(tape, x, work, out);
    free(work);
    expr_tape_destroy(tape);
}

// ---------------------------------------------------------------------------------------
// Deep expressions.

// s = sum_i sin(c_i x_{i mod 50}) with c_i = 1 + i 1e-5: a left spine 10^5 additions deep
static void deep_sum(void)
{
    expr_pool *pool = new_pool();
    expr_id s = expr_const(pool, 0);
    for (int i = 0; i < DEEP; i++) {
        expr_id t = expr_fn(pool, EXPR_SIN, expr_mul(pool, expr_const(pool, 1 + i * 1e-5),
                                                     expr_var(pool, i % SUM_VARS)));
        s = expr_add(pool, s, t);
    }
    ENSURE_EQ_INT(expr_pool_status(pool), DIRAC_OK);
    double x[SUM_VARS];
    test_rng rng = { 21 };
    for (int j = 0; j < SUM_VARS; j++)
        x[j] = test_rng_uniform(&rng, -1, 1);

    // value and d/dx_0 by hand, same order of operations
    double sum = 0, d0 = 0, h00 = 0;
    for (int i = 0; i < DEEP; i++) {
        double c = 1 + i * 1e-5;
        sum += sin(c * x[i % SUM_VARS]);
        if (i % SUM_VARS == 0) {
            d0 += c * cos(c * x[0]);
            h00 -= c * c * sin(c * x[0]);
        }
    }

    // forward mode, reverse mode (gradient and Hessian), tape and reference evaluation
    expr_id d = expr_diff(pool, s, 0);
    ENSURE(d != EXPR_NONE);
    int32_t vars[SUM_VARS];
    for (int j = 0; j < SUM_VARS; j++)
        vars[j] = j;
    expr_sparse g, h;
    ENSURE(expr_hessian(pool, s, SUM_VARS, vars, &g, &h, NULL) == DIRAC_OK);
    ENSURE_EQ_INT(g.nnz, SUM_VARS);
    ENSURE_EQ_INT(h.nnz, SUM_VARS);   // diagonal
    expr_id outs[4] = { s, d, g.value[0], h.value[0] };
    double v[4], ref[4];
    tape_values(pool, 4, outs, x, v);
    ENSURE(expr_eval_reference(pool, 4, outs, x, ref, NULL) == DIRAC_OK);
    ENSURE_NEAR(v[0], sum, 1e-9 * fabs(sum));
    ENSURE_NEAR(v[1], d0, 1e-9 * fabs(d0));
    ENSURE_NEAR(v[2], d0, 1e-9 * fabs(d0));
    ENSURE_NEAR(v[3], h00, 1e-9 * (1 + fabs(h00)));
    for (int k = 0; k < 4; k++)
        ENSURE_NEAR(ref[k], v[k], 1e-12 * (1 + fabs(v[k])));

    // printing, substitution and traversals walk the whole depth too
    char *text = NULL;
    ENSURE(expr_print(pool, s, EXPR_PRINT_INFIX, NULL, NULL, &text, NULL) == DIRAC_OK);
    ENSURE(text && strlen(text) > (size_t)DEEP * 10);
    free(text);
    int32_t which = 1;
    expr_id zero = expr_const(pool, 0), replaced;
    ENSURE(expr_substitute(pool, s, 1, &which, &zero, &replaced, NULL) == DIRAC_OK);
    int64_t count = 0;
    ENSURE(expr_count_reachable(pool, 1, &replaced, &count, NULL) == DIRAC_OK);
    ENSURE(count > 2 * DEEP);
    expr_sparse_free(&g);
    expr_sparse_free(&h);
    ENSURE_EQ_INT(expr_pool_status(pool), DIRAC_OK);
    expr_pool_destroy(pool);
}

// e_{k+1} = 0.999 sin(e_k) + 0.001 x_1, e_0 = x_0: nested 10^5 deep
static void deep_nesting(void)
{
    expr_pool *pool = new_pool();
    expr_id x0 = expr_var(pool, 0), x1 = expr_var(pool, 1);
    expr_id e = x0;
    expr_id a = expr_const(pool, 0.999), b = expr_mul(pool, expr_const(pool, 0.001), x1);
    for (int k = 0; k < DEEP; k++)
        e = expr_add(pool, expr_mul(pool, a, expr_fn(pool, EXPR_SIN, e)), b);
    ENSURE_EQ_INT(expr_pool_status(pool), DIRAC_OK);

    // value and both derivatives by forward recursion in C
    double x[2] = { 0.7, -0.4 };
    double v = x[0], dv0 = 1, dv1 = 0;
    for (int k = 0; k < DEEP; k++) {
        double c = 0.999 * cos(v);
        dv0 = c * dv0;
        dv1 = c * dv1 + 0.001;
        v = 0.999 * sin(v) + 0.001 * x[1];
    }

    expr_id d0 = expr_diff(pool, e, 0), d1 = expr_diff(pool, e, 1);
    int32_t vars[2] = { 0, 1 };
    expr_sparse jac;
    ENSURE(expr_jacobian(pool, 1, &e, 2, vars, &jac, NULL) == DIRAC_OK);
    ENSURE_EQ_INT(jac.nnz, 2);
    expr_id outs[5] = { e, d0, d1, jac.value[0], jac.value[1] };
    double out[5];
    tape_values(pool, 5, outs, x, out);
    ENSURE_NEAR(out[0], v, 1e-12);
    ENSURE_NEAR(out[1], dv0, 1e-12 * (1 + fabs(dv0)));
    ENSURE_NEAR(out[2], dv1, 1e-12 * (1 + fabs(dv1)));
    ENSURE_NEAR(out[3], dv0, 1e-12 * (1 + fabs(dv0)));
    ENSURE_NEAR(out[4], dv1, 1e-12 * (1 + fabs(dv1)));

    // the second derivative along the chain also builds and evaluates
    expr_id d00 = expr_diff(pool, d0, 0);
    ENSURE(d00 != EXPR_NONE);
    double second;
    tape_values(pool, 1, &d00, x, &second);
    ENSURE(isfinite(second));

    char *text = NULL;
    ENSURE(expr_print(pool, e, EXPR_PRINT_LATEX, NULL, NULL, &text, NULL) == DIRAC_OK);
    ENSURE(text && strlen(text) > (size_t)DEEP * 10);
    free(text);
    expr_sparse_free(&jac);
    ENSURE_EQ_INT(expr_pool_status(pool), DIRAC_OK);
    expr_pool_destroy(pool);
}

// ---------------------------------------------------------------------------------------
// Chain models.

// nodes created and nodes reachable from all first and second derivatives of the chain
typedef struct growth {
    int64_t created, reachable;
} growth;

static void collect_outputs(expr_id **all, int *count, const expr_sparse *m)
{
    *all = realloc(*all, ((size_t)*count + (size_t)m->nnz + 1) * sizeof **all);
    memcpy(*all + *count, m->value, (size_t)m->nnz * sizeof **all);
    *count += m->nnz;
}

// reverse mode: gradient and Hessian of L, constraint Jacobian and its derivatives
static growth chain_growth_reverse(int n)
{
    expr_pool *p = new_pool();
    expr_id *phi = malloc((size_t)n * sizeof *phi);
    expr_id lagrangian = cartesian_chain_expr(p, n, phi);
    int32_t base = expr_pool_size(p);
    int32_t *all_vars = malloc(4 * (size_t)n * sizeof *all_vars);
    int32_t *q_vars = malloc(2 * (size_t)n * sizeof *q_vars);
    for (int i = 0; i < 4 * n; i++)
        all_vars[i] = i;
    for (int i = 0; i < n; i++) {
        q_vars[2 * i] = 4 * i;
        q_vars[2 * i + 1] = 4 * i + 1;
    }
    expr_sparse grad, hess, jac, jac2;
    ENSURE(expr_hessian(p, lagrangian, 4 * n, all_vars, &grad, &hess, NULL) == DIRAC_OK);
    ENSURE(expr_jacobian(p, n, phi, 2 * n, q_vars, &jac, NULL) == DIRAC_OK);
    ENSURE(expr_jacobian(p, jac.nnz, jac.value, 2 * n, q_vars, &jac2, NULL) == DIRAC_OK);
    ENSURE_EQ_INT(grad.nnz, 3 * n);         // dL/dy_i, dL/dx_i', dL/dy_i'
    ENSURE_EQ_INT(hess.nnz, 2 * n);         // m on the velocity diagonal
    ENSURE_EQ_INT(jac.nnz, 4 * n - 2);      // phi_1 involves x_1, y_1 only
    ENSURE_EQ_INT(jac2.nnz, 8 * n - 6);     // 2 per entry, 1 for the two of phi_1

    growth result = { expr_pool_size(p) - base, 0 };
    expr_id *all = NULL;
    int count = 0;
    collect_outputs(&all, &count, &grad);
    collect_outputs(&all, &count, &hess);
    collect_outputs(&all, &count, &jac);
    collect_outputs(&all, &count, &jac2);
    ENSURE(expr_count_reachable(p, count, all, &result.reachable, NULL) == DIRAC_OK);
    free(all);
    expr_sparse_free(&grad);
    expr_sparse_free(&hess);
    expr_sparse_free(&jac);
    expr_sparse_free(&jac2);
    free(all_vars);
    free(q_vars);
    free(phi);
    ENSURE_EQ_INT(expr_pool_status(p), DIRAC_OK);
    expr_pool_destroy(p);
    return result;
}

// forward mode: expr_diff on every (output, variable) pair that occurs, then again on each
// first derivative (second derivatives)
static growth chain_growth_forward(int n)
{
    expr_pool *p = new_pool();
    expr_id *outputs = malloc(((size_t)n + 1) * sizeof *outputs);
    outputs[n] = cartesian_chain_expr(p, n, outputs);
    int32_t base = expr_pool_size(p);
    expr_id *firsts = NULL, *all = NULL;
    int n_first = 0, count = 0;
    for (int r = 0; r <= n; r++) {
        int32_t *vars = NULL;
        int n_vars = 0;
        ENSURE(expr_variables(p, 1, &outputs[r], &vars, &n_vars, NULL) == DIRAC_OK);
        firsts = realloc(firsts, ((size_t)n_first + (size_t)n_vars + 1) * sizeof *firsts);
        for (int k = 0; k < n_vars; k++)
            firsts[n_first++] = expr_diff(p, outputs[r], vars[k]);
        free(vars);
    }
    all = malloc(((size_t)n_first + 1) * sizeof *all);
    memcpy(all, firsts, (size_t)n_first * sizeof *all);
    count = n_first;
    for (int f = 0; f < n_first; f++) {
        int32_t *vars = NULL;
        int n_vars = 0;
        ENSURE(expr_variables(p, 1, &firsts[f], &vars, &n_vars, NULL) == DIRAC_OK);
        all = realloc(all, ((size_t)count + (size_t)n_vars + 1) * sizeof *all);
        for (int k = 0; k < n_vars; k++)
            all[count++] = expr_diff(p, firsts[f], vars[k]);
        free(vars);
    }
    growth result = { expr_pool_size(p) - base, 0 };
    ENSURE(expr_count_reachable(p, count, all, &result.reachable, NULL) == DIRAC_OK);
    free(all);
    free(firsts);
    free(outputs);
    ENSURE_EQ_INT(expr_pool_status(p), DIRAC_OK);
    expr_pool_destroy(p);
    return result;
}

static void check_linear(const char *what, growth small, growth large)
{
    double created = (double)large.created / (double)small.created;
    double reachable = (double)large.reachable / (double)small.reachable;
    printf("%s: N=100 created %lld reachable %lld; N=1000 created %lld reachable %lld; "
           "ratios %.3f %.3f\n", what, (long long)small.created, (long long)small.reachable,
           (long long)large.created, (long long)large.reachable, created, reachable);
    ENSURE_LE(created, 12.0);
    ENSURE_LE(reachable, 12.0);
    ENSURE(small.created > 0 && small.reachable > 0);
}

static void chain_linear_growth(void)
{
    check_linear("reverse mode", chain_growth_reverse(100), chain_growth_reverse(1000));
    check_linear("forward mode", chain_growth_forward(100), chain_growth_forward(1000));
}

// N-link pendulum in joint angles th_i (input 2i) and rates w_i (input 2i+1), positions
// and velocities accumulated along the chain (shared subexpressions):
//     X_i = X_{i-1} + l sin th_i,  Y_i = Y_{i-1} - l cos th_i
//     U_i = U_{i-1} + l cos th_i w_i,  V_i = V_{i-1} + l sin th_i w_i
//     L = sum_i m/2 (U_i^2 + V_i^2) - m g Y_i
static expr_id angle_chain(expr_pool *p, int n)
{
    expr_id l = expr_const(p, 0.5), half_m = expr_const(p, 0.5), mg = expr_const(p, 9.81);
    expr_id X = expr_const(p, 0), Y = X, U = X, V = X, L = X;
    for (int i = 0; i < n; i++) {
        expr_id th = expr_var(p, 2 * i), w = expr_var(p, 2 * i + 1);
        expr_id s = expr_fn(p, EXPR_SIN, th), c = expr_fn(p, EXPR_COS, th);
        X = expr_add(p, X, expr_mul(p, l, s));
        Y = expr_sub(p, Y, expr_mul(p, l, c));
        U = expr_add(p, U, expr_mul(p, expr_mul(p, l, c), w));
        V = expr_add(p, V, expr_mul(p, expr_mul(p, l, s), w));
        expr_id kinetic = expr_mul(p, half_m, expr_add(p, expr_powc(p, U, 2), expr_powc(p, V, 2)));
        L = expr_add(p, L, expr_sub(p, kinetic, expr_mul(p, mg, Y)));
    }
    (void)X;
    return L;
}

static growth angle_growth(int n, int check)
{
    expr_pool *p = new_pool();
    expr_id L = angle_chain(p, n);
    int32_t base = expr_pool_size(p);
    int32_t *vars = malloc(2 * (size_t)n * sizeof *vars);
    for (int i = 0; i < 2 * n; i++)
        vars[i] = i;
    expr_sparse grad;
    ENSURE(expr_jacobian(p, 1, &L, 2 * n, vars, &grad, NULL) == DIRAC_OK);
    ENSURE_EQ_INT(grad.nnz, 2 * n);
    growth result = { expr_pool_size(p) - base, 0 };
    ENSURE(expr_count_reachable(p, grad.nnz, grad.value, &result.reachable, NULL) == DIRAC_OK);

    if (check) {   // gradient against Richardson-extrapolated central differences, h = 1e-3
        double *x = malloc(2 * (size_t)n * sizeof *x), *gv = malloc(2 * (size_t)n * sizeof *gv);
        test_rng rng = { 31 };
        for (int i = 0; i < 2 * n; i++)
            x[i] = test_rng_uniform(&rng, -1, 1);
        tape_values(p, grad.nnz, grad.value, x, gv);
        for (int k = 0; k < 2 * n; k++) {
            double keep = x[k], d[2];
            for (int s = 0; s < 2; s++) {   // D(h), D(h/2)
                double h = s == 0 ? 1e-3 : 5e-4, fp, fm;
                x[k] = keep + h;
                ENSURE(expr_eval_reference(p, 1, &L, x, &fp, NULL) == DIRAC_OK);
                x[k] = keep - h;
                ENSURE(expr_eval_reference(p, 1, &L, x, &fm, NULL) == DIRAC_OK);
                d[s] = (fp - fm) / (2 * h);
            }
            x[k] = keep;
            double fd = (4 * d[1] - d[0]) / 3;
            ENSURE_NEAR(gv[k], fd, 1e-6 * (1 + fabs(fd)));
        }
        free(x);
        free(gv);
    }
    expr_sparse_free(&grad);
    free(vars);
    expr_pool_destroy(p);
    return result;
}

static void angle_chain_gradient_linear(void)
{
    check_linear("angle chain gradient", angle_growth(100, 1), angle_growth(1000, 0));
}

// per-row work in a large pool costs in proportion to the row, not to the pool: 20000
// constraint rows, each differentiated, listed, compiled and evaluated on its own (with
// scratch proportional to the pool this would take minutes)
static void per_row_calls_in_large_pool(void)
{
    enum { N = 20000 };
    expr_pool *p = new_pool();
    expr_id *phi = malloc(N * sizeof *phi);
    cartesian_chain_expr(p, N, phi);
    double *x = malloc(4 * (size_t)N * sizeof *x);
    for (int i = 0; i < 4 * N; i++)
        x[i] = 0.01 * (i % 97);
    int bad = 0;
    for (int r = 0; r < N; r++) {
        int32_t q[4] = { 4 * r, 4 * r + 1, 4 * (r > 0 ? r - 1 : N - 1), 4 * (r > 0 ? r - 1 : N - 1) + 1 };
        expr_sparse jac;
        int32_t *vars = NULL;
        int n_vars = 0;
        expr_tape *tape = NULL;
        double value = 0, reference = 1, work[16];
        if (expr_jacobian(p, 1, &phi[r], 4, q, &jac, NULL) != DIRAC_OK
            || expr_variables(p, 1, &phi[r], &vars, &n_vars, NULL) != DIRAC_OK
            || expr_tape_compile(p, 1, &phi[r], &tape, NULL) != DIRAC_OK
            || expr_tape_work_size(tape) > 16
            || expr_eval_reference(p, 1, &phi[r], x, &reference, NULL) != DIRAC_OK) {
            bad++;
        } else {
            expr_tape_eval(tape, x, work, &value);
            bad += jac.nnz != (r > 0 ? 4 : 2) || n_vars != jac.nnz || value != reference;
        }
        expr_sparse_free(&jac);
        free(vars);
        expr_tape_destroy(tape);
    }
    ENSURE_EQ_INT(bad, 0);
    free(x);
    free(phi);
    expr_pool_destroy(p);
}

TEST_MAIN(TEST(deep_sum), TEST(deep_nesting), TEST(chain_linear_growth),
          TEST(angle_chain_gradient_linear), TEST(per_row_calls_in_large_pool))
