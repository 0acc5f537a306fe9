// The built-in functions and operators as the syntax tree sees them (builtin_functions.h):
// names and argument counts for the parser, the DAG kinds lowering builds, and scalar values
// for the evaluators of the syntax tree (spec_expand evaluates index bounds and constant
// expressions before any DAG exists). Scalar values come from expr_apply, the one scalar
// evaluator; the piecewise functions follow the same rules as their lowering in
// model_lower.c: if() reads only the branch taken, min/max keep the first argument at a tie,
// clamp keeps x on [lo, hi], pwl takes the piece right of a breakpoint.
#include "model_lower.h"

#include <math.h>
#include <string.h>

static const struct {
    const char *name;
    int min_args, max_args;
    expr_kind kind;   // EXPR_KIND_COUNT for a piecewise function
} func_table[SPEC_FUNC_COUNT] = {
#define MATH_ROW(id, name, arity, ...) [SPEC_FUNC_##id] = { name, arity, arity, EXPR_##id },
    BUILTIN_MATH_LIST(MATH_ROW)
#undef MATH_ROW
#define PIECEWISE_ROW(id, name, min_args, max_args) \
    [SPEC_FUNC_##id] = { name, min_args, max_args, EXPR_KIND_COUNT },
    BUILTIN_PIECEWISE_LIST(PIECEWISE_ROW)
#undef PIECEWISE_ROW
};

const char *spec_func_name(spec_func func)
{
    return (unsigned)func < SPEC_FUNC_COUNT ? func_table[func].name : "?";
}

int spec_func_arity(spec_func func)
{
    return (unsigned)func < SPEC_FUNC_COUNT ? func_table[func].min_args : 0;
}

int spec_func_max_args(spec_func func)
{
    return (unsigned)func < SPEC_FUNC_COUNT ? func_table[func].max_args : 0;
}

int spec_func_lookup(const char *name, size_t len)
{
    for (int f = 0; f < SPEC_FUNC_COUNT; f++)
        if (len > 0 && strlen(func_table[f].name) == len &&
            memcmp(func_table[f].name, name, len) == 0)
            return f;
    return -1;
}

expr_kind spec_func_kind(spec_func func)
{
    return (unsigned)func < SPEC_FUNC_COUNT ? func_table[func].kind : EXPR_KIND_COUNT;
}

expr_kind spec_op_kind(spec_op op, bool *swapped)
{
    *swapped = op == SPEC_OP_GT || op == SPEC_OP_GE;   // a > b is b < a
    switch (op) {
    case SPEC_OP_ADD: return EXPR_ADD;
    case SPEC_OP_SUB: return EXPR_SUB;
    case SPEC_OP_MUL: return EXPR_MUL;
    case SPEC_OP_DIV: return EXPR_DIV;
    case SPEC_OP_POW: return EXPR_POW;
    case SPEC_OP_NEG: return EXPR_NEG;
    case SPEC_OP_LT: case SPEC_OP_GT: return EXPR_LT;
    case SPEC_OP_LE: case SPEC_OP_GE: return EXPR_LE;
    case SPEC_OP_EQ: return EXPR_EQ;
    case SPEC_OP_NE: return EXPR_NE;
    }
    return EXPR_KIND_COUNT;
}

double spec_op_value(int op, double a, double b)
{
    bool swapped;
    expr_kind kind = spec_op_kind((spec_op)op, &swapped);
    return swapped ? expr_apply(kind, b, a) : expr_apply(kind, a, b);
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
    if (func_table[call->op].kind != EXPR_KIND_COUNT)
        return expr_apply(func_table[call->op].kind, a, b);
    const spec_expr_node *cursor = NULL;
    bool started = false;
    double arg[3] = { 0, 0, 0 };
    switch ((spec_func)call->op) {
    case SPEC_FUNC_STEP: return isnan(a) ? a : a >= 0.0;
    case SPEC_FUNC_MIN: return choose(expr_apply(EXPR_LE, a, b), a, b);
    case SPEC_FUNC_MAX: return choose(expr_apply(EXPR_LE, b, a), a, b);
    case SPEC_FUNC_IF:
    case SPEC_FUNC_CLAMP:
        for (int k = 0; k < 3; k++)
            arg[k] = val[spec_call_next_arg(call, &cursor, &started) - e->nodes];
        if (call->op == SPEC_FUNC_IF)
            return choose(arg[0], arg[1], arg[2]);
        return choose(expr_apply(EXPR_LT, arg[0], arg[1]), arg[1],
                      choose(expr_apply(EXPR_LT, arg[2], arg[0]), arg[2], arg[0]));
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
