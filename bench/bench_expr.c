// Benchmark of the expression engine on N-link pendulum chains.
//
// (a) Cartesian chain, inputs x_i, y_i, x_i', y_i' (i = 1..N):
//         L = sum_i m/2 (x_i'^2 + y_i'^2) - m g y_i
//         phi_i = (x_i - x_{i-1})^2 + (y_i - y_{i-1})^2 - l^2
//     For N = 10, 100, 1000, 10000: build, differentiation and compile times, tape length and
//     work size, and evaluation time per link of L, dL/dq, dL/dv, phi, dphi/dq, and all of them
//     in one tape.
// (b) The same expressions and first derivatives with GNU libmatheval (evaluator_create,
//     evaluator_derivative, evaluator_evaluate) in the same run, and the time ratio
//     libmatheval / tape. Each libmatheval evaluator is given only its own variables.
// (c) Joint-angle chain (positions and velocities accumulated along the chain: shared
//     subexpressions), L and its gradient: tape vs libmatheval, which sees the expanded tree.
//
// (d) The "all" outputs of (a) as generated C (src/codegen*.c): build time (emission, compiler,
//     loading; "cached" when the object was in the cache) and evaluation time against the tape.
//
// Times are per evaluation, best of 5 rounds. Usage: bench_expr [--quick]   (--quick: N up
// to 1000, shorter timing runs)
#include "codegen.h"
#include "expr.h"
#include "problems_expr.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#ifdef DIRAC_HAVE_MATHEVAL
#include <matheval.h>
#endif

static double min_seconds = 0.25;  // per timing measurement
static volatile double sink;       // keeps results alive

static double now(void)
{
    struct timespec ts;
    timespec_get(&ts, TIME_UTC);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

// seconds per call of fn(ctx): the best of 5 rounds of min_seconds/5 each (at least one call
// per round), which filters out interference from other processes
static double time_per_call(void (*fn)(void *), void *ctx)
{
    fn(ctx);   // warm up
    double best = INFINITY;
    for (int round = 0; round < 5; round++) {
        long calls = 0;
        double start = now(), elapsed;
        do {
            fn(ctx);
            calls++;
            elapsed = now() - start;
        } while (elapsed < min_seconds / 5);
        if (elapsed / (double)calls < best)
            best = elapsed / (double)calls;
    }
    return best;
}

static void die(const char *what, const dirac_error *err)
{
    fprintf(stderr, "bench_expr: %s failed: %s\n", what, err ? err->message : "");
    exit(1);
}

// ---------------------------------------------------------------------------------------
// Models.

#ifdef DIRAC_HAVE_MATHEVAL   // the printed names feed libmatheval only
// names of inputs 4i .. 4i+3 of the Cartesian chain: x<i+1>, y<i+1>, vx<i+1>, vy<i+1>
static const char *cartesian_name(int32_t index, void *user)
{
    static char buf[32];
    static const char *const prefix[4] = { "x", "y", "vx", "vy" };
    (void)user;
    snprintf(buf, sizeof buf, "%s%d", prefix[index % 4], (int)(index / 4 + 1));
    return buf;
}

// names of inputs 2i, 2i+1 of the angle chain: th<i+1>, w<i+1>
static const char *angle_name(int32_t index, void *user)
{
    static char buf[32];
    (void)user;
    snprintf(buf, sizeof buf, "%s%d", index % 2 ? "w" : "th", (int)(index / 2 + 1));
    return buf;
}

// input index of a printed name (inverse of the two functions above); -1 if unknown
static int32_t index_of_name(const char *name)
{
    int i;
    if (sscanf(name, "vx%d", &i) == 1)
        return 4 * (i - 1) + 2;
    if (sscanf(name, "vy%d", &i) == 1)
        return 4 * (i - 1) + 3;
    if (sscanf(name, "x%d", &i) == 1)
        return 4 * (i - 1);
    if (sscanf(name, "y%d", &i) == 1)
        return 4 * (i - 1) + 1;
    if (sscanf(name, "th%d", &i) == 1)
        return 2 * (i - 1);
    if (sscanf(name, "w%d", &i) == 1)
        return 2 * (i - 1) + 1;
    return -1;
}
#endif

// X_i = X_{i-1} + l sin th_i, Y_i = Y_{i-1} - l cos th_i, U_i, V_i their time derivatives,
// L = sum_i m/2 (U_i^2 + V_i^2) - m g Y_i
static expr_id angle_chain(expr_pool *p, int n)
{
    expr_id l = expr_const(p, 0.5), half_m = expr_const(p, 0.5), mg = expr_const(p, 9.81);
    expr_id Y = expr_const(p, 0), U = Y, V = Y, L = Y;
    for (int i = 0; i < n; i++) {
        expr_id th = expr_var(p, 2 * i), w = expr_var(p, 2 * i + 1);
        expr_id s = expr_fn(p, EXPR_SIN, th), c = expr_fn(p, EXPR_COS, th);
        Y = expr_sub(p, Y, expr_mul(p, l, c));
        U = expr_add(p, U, expr_mul(p, expr_mul(p, l, c), w));
        V = expr_add(p, V, expr_mul(p, expr_mul(p, l, s), w));
        expr_id kinetic = expr_mul(p, half_m, expr_add(p, expr_powc(p, U, 2), expr_powc(p, V, 2)));
        L = expr_add(p, L, expr_sub(p, kinetic, expr_mul(p, mg, Y)));
    }
    return L;
}

// ---------------------------------------------------------------------------------------
// Output groups and their tapes.

#define MAX_GROUPS 6

typedef struct group {
    const char *name;
    int count;
    expr_id *ids;            // outputs
    // which expression each output derives from, for libmatheval: base[k] is an index
    // into the model's base expressions, var[k] the variable (-1: the base itself)
    int *base;
    int32_t *var;
    expr_tape *tape;
    double *work, *out;
    const double *inputs;
    double compile_seconds, eval_seconds;
} group;

static void group_init(group *g, const char *name, int count)
{
    memset(g, 0, sizeof *g);
    g->name = name;
    g->count = count;
    g->ids = malloc(((size_t)count + 1) * sizeof *g->ids);
    g->base = malloc(((size_t)count + 1) * sizeof *g->base);
    g->var = malloc(((size_t)count + 1) * sizeof *g->var);
}

static void group_free(group *g)
{
    free(g->ids);
    free(g->base);
    free(g->var);
    free(g->work);
    free(g->out);
    expr_tape_destroy(g->tape);
}

static void tape_run(void *ctx)
{
    group *g = ctx;
    expr_tape_eval(g->tape, g->inputs, g->work, g->out);
    sink = g->out[0];
}

typedef struct generated_run {
    const codegen_module *module;
    const double *inputs;
    double *work, *out;
} generated_run;

static void generated_eval(void *ctx)
{
    generated_run *r = ctx;
    double *out[1] = { r->out };
    codegen_eval(r->module, 1u, r->inputs, out, r->work);
    sink = r->out[0];
}

// (d): the group as generated C against its tape
static void bench_generated(const expr_pool *pool, const group *g, int n)
{
    const expr_id *ids[1] = { g->ids };
    int counts[1] = { g->count };
    codegen_module *module = NULL;
    codegen_report report;
    codegen_build(pool, 1, ids, counts, NULL, &module, &report);
    if (!module) {
        printf("  generated C (%s): not built: %s\n", g->name, report.reason);
        return;
    }
    generated_run r = { module, g->inputs, NULL, NULL };
    r.work = malloc(((size_t)codegen_work_size(module) + 1) * sizeof *r.work);
    r.out = malloc(((size_t)g->count + 1) * sizeof *r.out);
    double seconds = time_per_call(generated_eval, &r);
    printf("  generated C (%s): %ld statements, built in %.3f s (%s); eval %.3f us, %.2f ns per "
           "link, tape/generated %.2f\n", g->name, report.statements, report.seconds,
           report.cached ? "cached" : "compiled", 1e6 * seconds, 1e9 * seconds / n,
           g->eval_seconds / seconds);
    free(r.work);
    free(r.out);
    codegen_destroy(module);
}

static void group_compile_and_time(const expr_pool *pool, group *g, const double *inputs)
{
    dirac_error err;
    double start = now();
    if (expr_tape_compile(pool, g->count, g->ids, &g->tape, &err) != DIRAC_OK)
        die("expr_tape_compile", &err);
    g->compile_seconds = now() - start;
    g->work = malloc(((size_t)expr_tape_work_size(g->tape) + 1) * sizeof *g->work);
    g->out = malloc(((size_t)g->count + 1) * sizeof *g->out);
    g->inputs = inputs;
    g->eval_seconds = time_per_call(tape_run, g);
}

// ---------------------------------------------------------------------------------------
// libmatheval side.

#ifdef DIRAC_HAVE_MATHEVAL
typedef struct mev {
    void *f;
    int count;
    char **names;
    int32_t *index;
    double *values;
} mev;

typedef struct mev_set {
    int count;
    mev *items;
    const double *inputs;
    double *out;
} mev_set;

static void mev_bind(mev *e)
{
    evaluator_get_variables(e->f, &e->names, &e->count);
    e->index = malloc(((size_t)e->count + 1) * sizeof *e->index);
    e->values = malloc(((size_t)e->count + 1) * sizeof *e->values);
    for (int k = 0; k < e->count; k++)
        e->index[k] = index_of_name(e->names[k]);
}

static void mev_run(void *ctx)
{
    mev_set *s = ctx;
    for (int i = 0; i < s->count; i++) {
        mev *e = &s->items[i];
        for (int k = 0; k < e->count; k++)
            e->values[k] = s->inputs[e->index[k]];
        s->out[i] = evaluator_evaluate(e->f, e->count, e->names, e->values);
    }
    sink = s->out[0];
}

static void mev_set_free(mev_set *s)
{
    for (int i = 0; i < s->count; i++) {
        if (s->items[i].f)
            evaluator_destroy(s->items[i].f);
        free(s->items[i].index);
        free(s->items[i].values);
    }
    free(s->items);
    free(s->out);
}

// a libmatheval evaluator parsed from our printed text (NULL if it cannot parse it)
static void *mev_parse(const expr_pool *pool, expr_id e, expr_name_fn namer)
{
    char *text = NULL;
    dirac_error err;
    if (expr_print(pool, e, EXPR_PRINT_INFIX, namer, NULL, &text, &err) != DIRAC_OK)
        die("expr_print", &err);
    void *f = evaluator_create(text);
    free(text);
    return f;
}

// libmatheval evaluators of a group's outputs: base expressions are parsed from our printed
// text, derivatives come from evaluator_derivative of the parsed base (cached in base_f).
// Returns 0, or -1 if libmatheval fails.
static int mev_build(const expr_pool *pool, expr_name_fn namer, const expr_id *bases,
                     void **base_f, const group *g, mev_set *s, double *create_seconds)
{
    double start = now();
    s->count = g->count;
    s->items = calloc((size_t)g->count + 1, sizeof *s->items);
    s->out = malloc(((size_t)g->count + 1) * sizeof *s->out);
    for (int k = 0; k < g->count; k++) {
        int b = g->base[k];
        if (g->var[k] < 0) {
            s->items[k].f = mev_parse(pool, bases[b], namer);
        } else {
            if (!base_f[b])
                base_f[b] = mev_parse(pool, bases[b], namer);
            if (!base_f[b])
                return -1;
            char name[32];
            snprintf(name, sizeof name, "%s", namer(g->var[k], NULL));
            s->items[k].f = evaluator_derivative(base_f[b], name);
        }
        if (!s->items[k].f)
            return -1;
        mev_bind(&s->items[k]);
    }
    *create_seconds = now() - start;
    return 0;
}
#endif

// ---------------------------------------------------------------------------------------
// (a) + (b): the Cartesian chain.

static void fill_inputs(double *x, int n)
{
    unsigned long long state = 12345;
    for (int i = 0; i < n; i++) {
        state = state * 6364136223846793005ull + 1442695040888963407ull;
        x[i] = (double)(state >> 11) * 0x1.0p-53 * 2.0 - 1.0;
    }
}

static void bench_cartesian(int n, int run_matheval)
{
    dirac_error err;
    expr_pool *pool;
    if (expr_pool_create(&pool, &err) != DIRAC_OK)
        die("expr_pool_create", &err);

    // model: bases are L (index 0) and phi_i (index 1 + i)
    double start = now();
    expr_id *bases = malloc(((size_t)n + 1) * sizeof *bases);
    bases[0] = cartesian_chain_expr(pool, n, bases + 1);
    double build_seconds = now() - start;
    int32_t model_nodes = expr_pool_size(pool);

    // symbolic derivatives: dL/dq, dL/dv (1 x 2n each) and dphi/dq (n x 2n)
    int32_t *q = malloc(2 * (size_t)n * sizeof *q), *v = malloc(2 * (size_t)n * sizeof *v);
    for (int i = 0; i < n; i++) {
        q[2 * i] = 4 * i;
        q[2 * i + 1] = 4 * i + 1;
        v[2 * i] = 4 * i + 2;
        v[2 * i + 1] = 4 * i + 3;
    }
    expr_sparse dq, dv, jac;
    start = now();
    if (expr_jacobian(pool, 1, bases, 2 * n, q, &dq, &err) != DIRAC_OK
        || expr_jacobian(pool, 1, bases, 2 * n, v, &dv, &err) != DIRAC_OK
        || expr_jacobian(pool, n, bases + 1, 2 * n, q, &jac, &err) != DIRAC_OK)
        die("expr_jacobian", &err);
    double diff_seconds = now() - start;
    int32_t derivative_nodes = expr_pool_size(pool) - model_nodes;

    // output groups
    group groups[MAX_GROUPS];
    group_init(&groups[0], "L", 1);
    groups[0].ids[0] = bases[0];
    groups[0].base[0] = 0;
    groups[0].var[0] = -1;
    const expr_sparse *first[2] = { &dq, &dv };
    const int32_t *first_vars[2] = { q, v };
    for (int s = 0; s < 2; s++) {
        group *g = &groups[1 + s];
        group_init(g, s == 0 ? "dL/dq" : "dL/dv", first[s]->nnz);
        for (int k = 0; k < first[s]->nnz; k++) {
            g->ids[k] = first[s]->value[k];
            g->base[k] = 0;
            g->var[k] = first_vars[s][first[s]->col[k]];
        }
    }
    group_init(&groups[3], "phi", n);
    for (int i = 0; i < n; i++) {
        groups[3].ids[i] = bases[1 + i];
        groups[3].base[i] = 1 + i;
        groups[3].var[i] = -1;
    }
    group_init(&groups[4], "dphi/dq", jac.nnz);
    for (int r = 0; r < n; r++)
        for (int k = jac.row_start[r]; k < jac.row_start[r + 1]; k++) {
            groups[4].ids[k] = jac.value[k];
            groups[4].base[k] = 1 + r;
            groups[4].var[k] = q[jac.col[k]];
        }
    int total = 0;
    for (int k = 0; k < 5; k++)
        total += groups[k].count;
    group_init(&groups[5], "all", total);
    total = 0;
    for (int k = 0; k < 5; k++) {
        memcpy(groups[5].ids + total, groups[k].ids, (size_t)groups[k].count * sizeof(expr_id));
        memcpy(groups[5].base + total, groups[k].base, (size_t)groups[k].count * sizeof(int));
        memcpy(groups[5].var + total, groups[k].var, (size_t)groups[k].count * sizeof(int32_t));
        total += groups[k].count;
    }

    double *inputs = malloc(4 * (size_t)n * sizeof *inputs);
    fill_inputs(inputs, 4 * n);
    for (int k = 0; k < MAX_GROUPS; k++)
        group_compile_and_time(pool, &groups[k], inputs);

    printf("\nCartesian chain N = %d: model %d nodes built in %.3f ms; derivatives %d new nodes "
           "in %.3f ms\n", n, (int)model_nodes, 1e3 * build_seconds, (int)derivative_nodes,
           1e3 * diff_seconds);
    printf("  %-8s %8s %10s %9s %8s %12s %14s\n", "outputs", "count", "compile_ms", "tape_len",
           "work", "eval_us", "ns_per_link");
    for (int k = 0; k < MAX_GROUPS; k++) {
        const group *g = &groups[k];
        printf("  %-8s %8d %10.3f %9d %8d %12.3f %14.2f\n", g->name, g->count,
               1e3 * g->compile_seconds, expr_tape_length(g->tape), expr_tape_work_size(g->tape),
               1e6 * g->eval_seconds, 1e9 * g->eval_seconds / n);
    }
    bench_generated(pool, &groups[5], n);

#ifdef DIRAC_HAVE_MATHEVAL
    if (run_matheval) {
        void **base_f = calloc((size_t)n + 1, sizeof *base_f);
        printf("  libmatheval, same outputs (ratio = libmatheval time / tape time):\n");
        printf("  %-8s %10s %12s %12s %10s %12s\n", "outputs", "create_ms", "eval_us",
               "tape_eval_us", "ratio", "max_rel_diff");
        for (int k = 0; k < MAX_GROUPS; k++) {
            group *g = &groups[k];
            int derivative_of_l = (k == 1 || k == 2 || k == 5);
            if (derivative_of_l && n > 1000) {   // 2n derivatives of an O(n) tree: O(n^2)
                printf("  %-8s skipped: creating %d libmatheval derivatives of L costs O(N^2)\n",
                       g->name, g->count);
                continue;
            }
            mev_set s;
            double create_seconds;
            if (mev_build(pool, cartesian_name, bases, base_f, g, &s, &create_seconds) != 0) {
                printf("  %-8s libmatheval could not parse or differentiate\n", g->name);
                mev_set_free(&s);
                continue;
            }
            s.inputs = inputs;
            double seconds = time_per_call(mev_run, &s);
            double diff = 0;
            for (int i = 0; i < g->count; i++) {
                double d = fabs(s.out[i] - g->out[i]) / (1 + fabs(g->out[i]));
                if (!(d <= diff))
                    diff = d;
            }
            printf("  %-8s %10.3f %12.3f %12.3f %10.1f %12.2g\n", g->name, 1e3 * create_seconds,
                   1e6 * seconds, 1e6 * g->eval_seconds, seconds / g->eval_seconds, diff);
            mev_set_free(&s);
        }
        for (int b = 0; b <= n; b++)
            if (base_f[b])
                evaluator_destroy(base_f[b]);
        free(base_f);
    }
#else
    (void)run_matheval;
#endif

    for (int k = 0; k < MAX_GROUPS; k++)
        group_free(&groups[k]);
    expr_sparse_free(&dq);
    expr_sparse_free(&dv);
    expr_sparse_free(&jac);
    free(inputs);
    free(q);
    free(v);
    free(bases);
    expr_pool_destroy(pool);
}

// ---------------------------------------------------------------------------------------
// (c): the angle chain (shared subexpressions).

static void bench_angle(int n, int run_matheval)
{
    dirac_error err;
    expr_pool *pool;
    if (expr_pool_create(&pool, &err) != DIRAC_OK)
        die("expr_pool_create", &err);
    double start = now();
    expr_id L = angle_chain(pool, n);
    double build_seconds = now() - start;
    int32_t model_nodes = expr_pool_size(pool);
    int32_t *vars = malloc(2 * (size_t)n * sizeof *vars);
    for (int i = 0; i < 2 * n; i++)
        vars[i] = i;
    expr_sparse grad;
    start = now();
    if (expr_jacobian(pool, 1, &L, 2 * n, vars, &grad, &err) != DIRAC_OK)
        die("expr_jacobian", &err);
    double diff_seconds = now() - start;

    group g;
    group_init(&g, "L+grad", 1 + grad.nnz);
    g.ids[0] = L;
    g.base[0] = 0;
    g.var[0] = -1;
    for (int k = 0; k < grad.nnz; k++) {
        g.ids[1 + k] = grad.value[k];
        g.base[1 + k] = 0;
        g.var[1 + k] = vars[grad.col[k]];
    }
    double *inputs = malloc(2 * (size_t)n * sizeof *inputs);
    fill_inputs(inputs, 2 * n);
    group_compile_and_time(pool, &g, inputs);
    printf("\nAngle chain N = %d: L has %d nodes (built in %.3f ms), gradient %d new nodes in "
           "%.3f ms; tape of L and gradient: %d instructions, %d slots, compile %.3f ms, "
           "eval %.3f us = %.2f ns per link\n", n, (int)model_nodes, 1e3 * build_seconds,
           (int)(expr_pool_size(pool) - model_nodes), 1e3 * diff_seconds, expr_tape_length(g.tape),
           expr_tape_work_size(g.tape), 1e3 * g.compile_seconds, 1e6 * g.eval_seconds,
           1e9 * g.eval_seconds / n);

#ifdef DIRAC_HAVE_MATHEVAL
    if (run_matheval) {
        void *base_f[1] = { NULL };
        mev_set s;
        double create_seconds;
        if (mev_build(pool, angle_name, &L, base_f, &g, &s, &create_seconds) == 0) {
            s.inputs = inputs;
            double seconds = time_per_call(mev_run, &s);
            double diff = 0;
            for (int i = 0; i < g.count; i++) {
                double d = fabs(s.out[i] - g.out[i]) / (1 + fabs(g.out[i]));
                if (!(d <= diff))
                    diff = d;
            }
            printf("  libmatheval (expanded tree): create %.3f ms, eval %.3f us, ratio %.1f, "
                   "max_rel_diff %.2g\n", 1e3 * create_seconds, 1e6 * seconds,
                   seconds / g.eval_seconds, diff);
            mev_set_free(&s);
        } else {
            printf("  libmatheval could not parse or differentiate\n");
            mev_set_free(&s);
        }
        if (base_f[0])
            evaluator_destroy(base_f[0]);
    }
#else
    (void)run_matheval;
#endif
    group_free(&g);
    expr_sparse_free(&grad);
    free(inputs);
    free(vars);
    expr_pool_destroy(pool);
}

int main(int argc, char **argv)
{
    int quick = argc > 1 && strcmp(argv[1], "--quick") == 0;
    if (quick)
        min_seconds = 0.05;
#ifdef DIRAC_HAVE_MATHEVAL
    int have_matheval = 1;
#else
    int have_matheval = 0;
    printf("libmatheval not found at build time: comparison skipped "
           "(install libmatheval-dev and reconfigure)\n");
#endif
    printf("expression engine benchmark (times per evaluation; ns_per_link = time / N)\n");
    static const int sizes[] = { 10, 100, 1000, 10000 };
    for (int k = 0; k < 4; k++) {
        if (quick && sizes[k] > 1000)
            break;
        bench_cartesian(sizes[k], have_matheval);
    }
    static const int angle_sizes[] = { 10, 100, 1000, 10000 };
    for (int k = 0; k < 4; k++) {
        if (quick && angle_sizes[k] > 1000)
            break;
        bench_angle(angle_sizes[k], have_matheval && angle_sizes[k] <= 100);
    }
    return 0;
}
