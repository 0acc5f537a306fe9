// Scalar semantics of every node kind: the value of a node from the values of its children.
// Constant folding, the reference evaluator and the scalar evaluator of the syntax tree
// (spec_call_value) use it; the tape computes the same values instruction by instruction.
#include "expr_pool.h"

#include <math.h>

double expr_apply(expr_kind kind, double a, double b)
{
    switch (kind) {
    case EXPR_ADD: return a + b;
    case EXPR_SUB: return a - b;
    case EXPR_MUL: return a * b;
    case EXPR_DIV: return a / b;
    case EXPR_POW: return pow(a, b);
    case EXPR_LT:
    case EXPR_LE:
    case EXPR_EQ:
    case EXPR_NE: return expr_compare(kind, a, b);
    case EXPR_WHEN: return expr_when(a, b);
    case EXPR_NEG: return -a;
#define FUNCTION_VALUE(id, name, arity, c_call, ...) \
    case EXPR_##id: return BUILTIN_CALL(arity, c_call, a, b);
        BUILTIN_MATH_LIST(FUNCTION_VALUE)
#undef FUNCTION_VALUE
    default: return NAN;
    }
}
