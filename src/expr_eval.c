// Scalar semantics of every node kind, and the slow reference evaluator (node by node in id
// order) that constant folding and the tests compare against.
#include "expr_pool.h"

#include "error.h"

#include <math.h>
#include <stdlib.h>

// sign(x) = -1, 0, 1 (NaN stays NaN)
static double sign_of(double x)
{
    if (x > 0.0)
        return 1.0;
    if (x < 0.0)
        return -1.0;
    return x;   // 0 or NaN
}

double expr_apply(expr_kind kind, double a, double b)
{
    switch (kind) {
    case EXPR_ADD:
        return a + b;
    case EXPR_SUB:
        return a - b;
    case EXPR_MUL:
        return a * b;
    case EXPR_DIV:
        return a / b;
    case EXPR_POW:
        return pow(a, b);
    case EXPR_LT:
    case EXPR_LE:
    case EXPR_EQ:
    case EXPR_NE:
        return expr_compare(kind, a, b);
    case EXPR_WHEN:
        return expr_when(a, b);
    case EXPR_ATAN2:
        return atan2(a, b);
    case EXPR_NEG:
        return -a;
    case EXPR_SIN:
        return sin(a);
    case EXPR_COS:
        return cos(a);
    case EXPR_TAN:
        return tan(a);
    case EXPR_ASIN:
        return asin(a);
    case EXPR_ACOS:
        return acos(a);
    case EXPR_ATAN:
        return atan(a);
    case EXPR_SINH:
        return sinh(a);
    case EXPR_COSH:
        return cosh(a);
    case EXPR_TANH:
        return tanh(a);
    case EXPR_EXP:
        return exp(a);
    case EXPR_LOG:
        return log(a);
    case EXPR_SQRT:
        return sqrt(a);
    case EXPR_ABS:
        return fabs(a);
    case EXPR_SIGN:
        return sign_of(a);
    default:
        return NAN;
    }
}

dirac_status expr_eval_reference(const expr_pool *pool, int count, const expr_id *ids,
                                 const double *inputs, double *values, dirac_error *err)
{
    expr_id *list;
    int32_t length;
    expr_idmap position;
    dirac_status status = expr_collect(pool, count, ids, &list, &length, &position, err);
    if (status != DIRAC_OK)
        return status;
    double *value = malloc(((size_t)length + 1) * sizeof *value);
    if (!value) {
        free(list);
        expr_idmap_free(&position);
        return error_set(err, DIRAC_ERR_NOMEM, "out of memory evaluating %d nodes", (int)length);
    }

    // children precede parents in id order
    for (int32_t k = 0; k < length; k++) {
        const expr_node *n = &pool->nodes[list[k]];
        if (n->kind == EXPR_CONST) {
            value[k] = n->value;
        } else if (n->kind == EXPR_VAR) {
            value[k] = inputs[n->a];
        } else {
            double a = value[*expr_idmap_find(&position, n->a)];
            double b = n->b == EXPR_NONE ? 0.0 : value[*expr_idmap_find(&position, n->b)];
            value[k] = expr_apply((expr_kind)n->kind, a, b);
        }
    }
    for (int k = 0; k < count; k++)
        values[k] = value[*expr_idmap_find(&position, ids[k])];
    free(value);
    free(list);
    expr_idmap_free(&position);
    return DIRAC_OK;
}
