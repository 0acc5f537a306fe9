// Scalar values of the built-in functions for the evaluators of the syntax tree (spec_expand
// evaluates index bounds and constant expressions before any DAG exists). The same rules as
// the lowering in model_lower.c: if() reads only the branch taken, min/max keep the first
// argument at a tie, clamp keeps x on [lo, hi], pwl takes the piece right of a breakpoint.
#include "builtin_functions.h"

#include "spec.h"

#include <math.h>

static const expr_kind plain_kind[SPEC_FUNC_COUNT] = {
#define FUNC_KIND(id, name, min_args, max_args, kind) [SPEC_FUNC_##id] = kind,
    BUILTIN_FUNCTION_LIST(FUNC_KIND)
#undef FUNC_KIND
};

double spec_compare_value(int op, double a, double b)
{
    if (isnan(a) || isnan(b))
        return a + b;
    switch ((spec_op)op) {
    case SPEC_OP_LT: return a < b;
    case SPEC_OP_LE: return a <= b;
    case SPEC_OP_GT: return a > b;
    case SPEC_OP_GE: return a >= b;
    case SPEC_OP_EQ: return a == b;
    case SPEC_OP_NE: return a != b;
    default: return NAN;
    }
}

static double choose(double c, double a, double b)
{
    if (isnan(c))
        return c;
    return c != 0.0 ? a : b;
}

double spec_call_value(const spec_expr *e, const spec_expr_node *call, const double *val)
{
    if ((unsigned)call->op >= SPEC_FUNC_COUNT)
        return NAN;
    double a = val[call->u.arg[0] - e->nodes];
    double b = call->argc > 1 ? val[call->u.arg[1] - e->nodes] : 0.0;
    if (plain_kind[call->op] != EXPR_KIND_COUNT)
        return expr_apply(plain_kind[call->op], a, b);
    const spec_expr_node *cursor = NULL;
    bool started = false;
    double arg[3] = { 0, 0, 0 };
    switch ((spec_func)call->op) {
    case SPEC_FUNC_STEP: return isnan(a) ? a : a >= 0.0;
    case SPEC_FUNC_MIN: return choose(spec_compare_value(SPEC_OP_LE, a, b), a, b);
    case SPEC_FUNC_MAX: return choose(spec_compare_value(SPEC_OP_GE, a, b), a, b);
    case SPEC_FUNC_IF:
    case SPEC_FUNC_CLAMP:
        for (int k = 0; k < 3; k++)
            arg[k] = val[spec_call_next_arg(call, &cursor, &started) - e->nodes];
        if (call->op == SPEC_FUNC_IF)
            return choose(arg[0], arg[1], arg[2]);
        return choose(spec_compare_value(SPEC_OP_LT, arg[0], arg[1]), arg[1],
                      choose(spec_compare_value(SPEC_OP_LT, arg[2], arg[0]), arg[2], arg[0]));
    case SPEC_FUNC_PWL:
    case SPEC_FUNC_TABLE: {
        double x = val[spec_call_next_arg(call, &cursor, &started) - e->nodes];
        if (isnan(x))
            return x;
        const spec_expr_node *p;
        double x0 = NAN, y0 = NAN;
        for (int k = 0; (p = spec_call_next_arg(call, &cursor, &started)) != NULL; k++) {
            double x1 = val[p - e->nodes];
            p = spec_call_next_arg(call, &cursor, &started);
            if (!p)
                return NAN;
            double y1 = val[p - e->nodes];
            if (x < x1)
                return k == 0 ? y1 : x0 == x1 ? y1 : y0 + (y1 - y0) / (x1 - x0) * (x - x0);
            x0 = x1;
            y0 = y1;
        }
        return y0;
    }
    default:
        return NAN;   // LIST: read by its call
    }
}
