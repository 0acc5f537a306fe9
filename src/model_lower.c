// Lowering of the parser's expression trees (spec_expr, postorder arrays) into the expression
// DAG, with parameters folded to constants and lets shared. Iterative: trees may be deep.
#include "model_lower.h"

#include "parse.h"

#include <math.h>
#include <stdlib.h>

static expr_kind function_kind(spec_func func)
{
    switch (func) {
    case SPEC_FUNC_SIN: return EXPR_SIN;
    case SPEC_FUNC_COS: return EXPR_COS;
    case SPEC_FUNC_TAN: return EXPR_TAN;
    case SPEC_FUNC_ASIN: return EXPR_ASIN;
    case SPEC_FUNC_ACOS: return EXPR_ACOS;
    case SPEC_FUNC_ATAN: return EXPR_ATAN;
    case SPEC_FUNC_ATAN2: return EXPR_ATAN2;
    case SPEC_FUNC_SINH: return EXPR_SINH;
    case SPEC_FUNC_COSH: return EXPR_COSH;
    case SPEC_FUNC_TANH: return EXPR_TANH;
    case SPEC_FUNC_EXP: return EXPR_EXP;
    case SPEC_FUNC_LOG: return EXPR_LOG;
    case SPEC_FUNC_SQRT: return EXPR_SQRT;
    case SPEC_FUNC_ABS: return EXPR_ABS;
    case SPEC_FUNC_COUNT: break;
    }
    return EXPR_KIND_COUNT;
}

static expr_kind operator_kind(spec_op op)
{
    switch (op) {
    case SPEC_OP_ADD: return EXPR_ADD;
    case SPEC_OP_SUB: return EXPR_SUB;
    case SPEC_OP_MUL: return EXPR_MUL;
    case SPEC_OP_DIV: return EXPR_DIV;
    case SPEC_OP_POW: return EXPR_POW;
    case SPEC_OP_NEG: return EXPR_NEG;
    }
    return EXPR_KIND_COUNT;
}

// The DAG node a name stands for, or EXPR_NONE after reporting why.
static expr_id lower_name(const lower_scope *scope, const spec_expr_node *node)
{
    const spec_ref *ref = &node->u.sym.ref;
    expr_pool *pool = scope->pool;
    if (ref->kind == SPEC_SYM_QUALIFIED && scope->qualified)
        return scope->qualified(scope, node);
    if (node->kind == SPEC_EXPR_PRIME) {
        if (ref->kind == SPEC_SYM_COORDINATE)
            return expr_var(pool, scope->first_v + ref->index);
    } else {
        switch ((spec_sym_kind)ref->kind) {
        case SPEC_SYM_PARAMETER:
            if (scope->input_index && scope->input_index[ref->index] >= 0)
                return expr_var(pool, scope->first_u + scope->input_index[ref->index]);
            return expr_const(pool, scope->param_values[ref->index]);
        case SPEC_SYM_COORDINATE: return expr_var(pool, scope->first_q + ref->index);
        case SPEC_SYM_ENTROPY: return expr_var(pool, scope->first_s + ref->index);
        case SPEC_SYM_LET: return scope->let_ids[ref->index];
        case SPEC_SYM_TIME: return expr_var(pool, scope->index_t);
        case SPEC_SYM_PI: return expr_const(pool, 3.14159265358979323846);
        default: break;
        }
    }
    spec_error(scope->spec, DIRAC_ERR_PARSE, node->loc,
               "'%s' cannot be used in an expression here", node->u.sym.name);
    return EXPR_NONE;
}

expr_id lower_expr(const lower_scope *scope, const spec_expr *e)
{
    if (e->count <= 0)
        return EXPR_NONE;
    expr_id *value = malloc((size_t)e->count * sizeof *value);
    if (!value) {
        spec_out_of_memory(scope->spec);
        return EXPR_NONE;
    }
    expr_pool *pool = scope->pool;
    expr_id result = EXPR_NONE;
    int ok = 1;
    for (int32_t i = 0; ok && i < e->count; i++) {
        const spec_expr_node *node = &e->nodes[i];
        expr_id a = EXPR_NONE, b = EXPR_NONE;
        if (node->kind == SPEC_EXPR_UNARY || node->kind == SPEC_EXPR_BINARY ||
            node->kind == SPEC_EXPR_CALL) {
            a = value[node->u.arg[0] - e->nodes];
            int arity = node->kind == SPEC_EXPR_UNARY ? 1 : node->kind == SPEC_EXPR_BINARY ? 2
                                                                                        : node->argc;
            if (arity == 2)
                b = value[node->u.arg[1] - e->nodes];
        }
        switch ((spec_expr_kind)node->kind) {
        case SPEC_EXPR_NUMBER: value[i] = expr_const(pool, node->u.number); break;
        case SPEC_EXPR_NAME:
        case SPEC_EXPR_PRIME: value[i] = lower_name(scope, node); break;
        case SPEC_EXPR_UNARY:
        case SPEC_EXPR_BINARY: value[i] = expr_make(pool, operator_kind(node->op), a, b); break;
        case SPEC_EXPR_CALL: value[i] = expr_make(pool, function_kind(node->op), a, b); break;
        }
        if (value[i] == EXPR_NONE) {
            if (expr_pool_status(pool) != DIRAC_OK) {
                dirac_error err;
                expr_pool_error(pool, &err);
                spec_error(scope->spec, err.status, node->loc, "%s", err.message);
            }
            ok = 0;
        }
    }
    if (ok)
        result = value[e->count - 1];
    free(value);
    return result;
}

int lower_constant(const lower_scope *scope, const spec_expr *e, spec_loc loc, const char *what,
                   double *out)
{
    expr_id id = lower_expr(scope, e);
    if (id == EXPR_NONE)
        return 0;
    // the engine leaves non-finite folds (1/0, log(-1)) unfolded: evaluate what has no variables
    int32_t *vars = NULL;
    int n_vars = 0;
    dirac_error err;
    if (expr_variables(scope->pool, 1, &id, &vars, &n_vars, &err) != DIRAC_OK) {
        spec_error(scope->spec, err.status, loc, "%s", err.message);
        return 0;
    }
    free(vars);
    if (n_vars > 0) {
        spec_error(scope->spec, DIRAC_ERR_PARSE, loc,
                   "%s must be a constant (it depends on the state, on time or on an input)", what);
        return 0;
    }
    if (expr_eval_reference(scope->pool, 1, &id, NULL, out, &err) != DIRAC_OK) {
        spec_error(scope->spec, err.status, loc, "%s", err.message);
        return 0;
    }
    if (!isfinite(*out)) {
        spec_error(scope->spec, DIRAC_ERR_PARSE, loc, "%s evaluates to %s", what,
                   isnan(*out) ? "NaN" : "an infinite value");
        return 0;
    }
    return 1;
}
