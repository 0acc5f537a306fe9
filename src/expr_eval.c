// The slow reference evaluator (node by node in id order, with expr_apply): what the tests
// compare the tape against, and one-off values (constant parameters, breakpoints).
#include "expr_pool.h"

#include "error.h"

#include <stdlib.h>

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
