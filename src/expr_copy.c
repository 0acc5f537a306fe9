// Copying expressions from one pool into another (see expr.h: expr_copy), so that work which
// adds nodes (derivatives, proofs) can happen in a private pool and leave a compiled model's
// pool untouched and shareable between threads.
#include "expr.h"

#include "error.h"

#include <stdlib.h>

dirac_status expr_copy(const expr_pool *from, int count, const expr_id *roots, expr_pool *to,
                       expr_id *map, dirac_error *err)
{
    int32_t size = expr_pool_size(from);
    char *needed = calloc((size_t)size + 1, 1);
    if (!needed)
        return error_set(err, DIRAC_ERR_NOMEM, "out of memory");
    for (int k = 0; k < count; k++)
        needed[roots[k]] = 1;
    // children have smaller ids than their parents: one descending pass marks, one ascending
    // pass rebuilds
    for (int32_t id = size - 1; id >= 0; id--) {
        map[id] = EXPR_NONE;
        if (!needed[id])
            continue;
        for (int c = 0; c < 2; c++) {
            expr_id child = expr_child(from, id, c);
            if (child != EXPR_NONE)
                needed[child] = 1;
        }
    }
    for (int32_t id = 0; id < size; id++) {
        if (!needed[id])
            continue;
        expr_kind kind = expr_kind_of(from, id);
        if (kind == EXPR_CONST)
            map[id] = expr_const(to, expr_const_value(from, id));
        else if (kind == EXPR_VAR)
            map[id] = expr_var(to, expr_var_index(from, id));
        else {
            expr_id a = expr_child(from, id, 0), b = expr_child(from, id, 1);
            map[id] = expr_make(to, kind, map[a], b == EXPR_NONE ? EXPR_NONE : map[b]);
        }
    }
    free(needed);
    return expr_pool_error(to, err);
}
