// Breakpoints in time of a compiled model: the times t* at which a comparison of time alone
// changes value (step(t - 1), if(t > t1, ...), the corners of pwl(t, ...)). An adaptive run
// lands on them instead of stepping over them: a one-step method samples the right-hand side
// only at its stages, so a step across t* can miss a jump entirely (docs/methods.md,
// "Discontinuities in time").
#include "model.h"

#include "expr.h"

#include <math.h>
#include <stdlib.h>

static int compare_doubles(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y ? 1 : 0;
}

// The root of f(t) = 0 when f is affine in t and depends on nothing else: 1 and *root, or 0
// (no such root), or -1 when memory ran out on the way.
static int affine_root(dirac_model *m, expr_id f, double *root)
{
    expr_pool *pool = m->pool;
    int32_t index_t = m->index_t;
    int32_t *vars = NULL;
    int n_vars = 0;
    dirac_error err;
    if (expr_variables(pool, 1, &f, &vars, &n_vars, &err) != DIRAC_OK)
        return err.status == DIRAC_ERR_NOMEM ? -1 : 0;
    int time_only = n_vars == 1 && vars[0] == index_t;
    mem_free(&m->mem, vars);
    if (!time_only)
        return 0;
    expr_id slope = expr_diff(pool, f, index_t);
    if (slope == EXPR_NONE || expr_kind_of(pool, slope) != EXPR_CONST)
        return 0;   // not affine (or the pool failed: the caller looks at its status)
    double s = expr_const_value(pool, slope), f0;
    double *inputs = mem_calloc(&m->mem, (size_t)index_t + 1, sizeof *inputs);
    if (!inputs)
        return -1;
    dirac_status status = s != 0.0 ? expr_eval_reference(pool, 1, &f, inputs, &f0, &err)
                                   : DIRAC_ERR_ARGUMENT;
    mem_free(&m->mem, inputs);
    if (status == DIRAC_ERR_NOMEM)
        return -1;
    if (status != DIRAC_OK || !isfinite(f0))
        return 0;
    *root = -f0 / s;
    return isfinite(*root);
}

dirac_status model_find_breakpoints(dirac_model *m)
{
    expr_pool *pool = m->pool;
    int32_t count = expr_pool_size(pool);
    int found = 0, cap = 0, nomem = 0;
    double *times = NULL;
    for (int32_t id = 0; id < count && !nomem; id++) {
        expr_kind kind = expr_kind_of(pool, id);
        if (kind != EXPR_LT && kind != EXPR_LE && kind != EXPR_EQ && kind != EXPR_NE)
            continue;
        int32_t lo, hi;
        expr_var_range(pool, id, &lo, &hi);
        if (lo != m->index_t || hi != m->index_t)
            continue;   // depends on more than time (or not on time)
        expr_id f = expr_sub(pool, expr_child(pool, id, 0), expr_child(pool, id, 1));
        double root;
        int found_root = f == EXPR_NONE ? 0 : affine_root(m, f, &root);
        nomem = found_root < 0 || expr_pool_status(pool) == DIRAC_ERR_NOMEM ||
                (found_root > 0 && !mem_reserve(&m->mem, &times, &cap, found + 1, sizeof *times));
        if (found_root > 0 && !nomem)
            times[found++] = root;
    }
    expr_pool_clear_error(pool);
    if (nomem) {
        mem_free(&m->mem, times);
        return DIRAC_ERR_NOMEM;
    }
    if (found > 1)
        qsort(times, (size_t)found, sizeof *times, compare_doubles);
    int unique = 0;
    for (int k = 0; k < found; k++)
        if (unique == 0 || times[k] != times[unique - 1])
            times[unique++] = times[k];
    m->breakpoints = times;
    m->breakpoint_count = unique;
    return DIRAC_OK;
}

double model_next_breakpoint(const dirac_model *m, double t)
{
    int lo = 0, hi = m->breakpoint_count;   // first breakpoint > t
    while (lo < hi) {
        int mid = lo + (hi - lo) / 2;
        if (m->breakpoints[mid] > t)
            hi = mid;
        else
            lo = mid + 1;
    }
    return lo < m->breakpoint_count ? m->breakpoints[lo] : (double)INFINITY;
}
