// Internal: the built-in functions of the model language, in one X-macro list read by the
// parser (names, argument counts), the lowering into the expression DAG (model_lower.c) and
// the scalar evaluator of spec_expand (builtin_call_value). The node kinds of the DAG, with
// their differentiation, tape instructions and printing, are listed in expr.h.
//
// X(ID, name, min_args, max_args, expr_kind): SPEC_FUNC_<ID> is the function; expr_kind is the
// DAG node kind of a plain function (same arguments), or EXPR_KIND_COUNT for a function that
// lowering builds from comparisons and selections (docs/model-language.md, "Piecewise
// functions"). max_args -1: any number (pwl). A call with more than two arguments keeps its
// first argument as arg[0] and chains the others through LIST nodes in arg[1]:
// f(a, b, c, d) is CALL f(a, LIST(b, LIST(c, d))), so every node has at most two children.
#ifndef DIRAC_SRC_BUILTIN_FUNCTIONS_H
#define DIRAC_SRC_BUILTIN_FUNCTIONS_H

#include "expr.h"

#define BUILTIN_FUNCTION_LIST(X)                  \
    X(SIN, "sin", 1, 1, EXPR_SIN)                 \
    X(COS, "cos", 1, 1, EXPR_COS)                 \
    X(TAN, "tan", 1, 1, EXPR_TAN)                 \
    X(ASIN, "asin", 1, 1, EXPR_ASIN)              \
    X(ACOS, "acos", 1, 1, EXPR_ACOS)              \
    X(ATAN, "atan", 1, 1, EXPR_ATAN)              \
    X(ATAN2, "atan2", 2, 2, EXPR_ATAN2)           \
    X(SINH, "sinh", 1, 1, EXPR_SINH)              \
    X(COSH, "cosh", 1, 1, EXPR_COSH)              \
    X(TANH, "tanh", 1, 1, EXPR_TANH)              \
    X(EXP, "exp", 1, 1, EXPR_EXP)                 \
    X(LOG, "log", 1, 1, EXPR_LOG)                 \
    X(SQRT, "sqrt", 1, 1, EXPR_SQRT)              \
    X(ABS, "abs", 1, 1, EXPR_ABS)                 \
    X(SIGN, "sign", 1, 1, EXPR_SIGN)              \
    X(STEP, "step", 1, 1, EXPR_KIND_COUNT)        \
    X(MIN, "min", 2, 2, EXPR_KIND_COUNT)          \
    X(MAX, "max", 2, 2, EXPR_KIND_COUNT)          \
    X(IF, "if", 3, 3, EXPR_KIND_COUNT)            \
    X(CLAMP, "clamp", 3, 3, EXPR_KIND_COUNT)      \
    X(PWL, "pwl", 3, -1, EXPR_KIND_COUNT)         \
    X(TABLE, "table", 3, 3, EXPR_KIND_COUNT)      \
    X(LIST, "", 2, 2, EXPR_KIND_COUNT)

#endif
