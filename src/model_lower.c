// Lowering of the parser's expression trees (spec_expr, postorder arrays) into the expression
// DAG, with parameters folded to constants and lets shared. Iterative: trees may be deep.
#include "model_lower.h"

#include "parse.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

// if(c, a, b) = WHEN(c, a) + WHEN(c == 0, b): each branch is read only where it is taken
static expr_id make_if(expr_pool *pool, expr_id c, expr_id a, expr_id b)
{
    expr_id not_c = expr_make(pool, EXPR_EQ, c, expr_const(pool, 0.0));
    return expr_add(pool, expr_make(pool, EXPR_WHEN, c, a), expr_make(pool, EXPR_WHEN, not_c, b));
}

// pwl(x, x1, y1, ..., xn, yn) over the n points pts[0..2n): y1 left of x1, yn from xn on, and
// on [xk, xk+1) the line through the two points. The intervals partition the real line, so
// exactly one term is taken: at a breakpoint the value and derivative are those of the piece
// on its right; an empty interval (xk = xk+1) is a jump and never taken.
static expr_id make_pwl(const lower_scope *scope, const spec_expr_node *node, expr_id x,
                        const expr_id *pts, int n)
{
    expr_pool *pool = scope->pool;
    for (int k = 1; k < n; k++) {
        expr_id x0 = pts[2 * k - 2], x1 = pts[2 * k];
        if (expr_kind_of(pool, x0) == EXPR_CONST && expr_kind_of(pool, x1) == EXPR_CONST &&
            expr_const_value(pool, x1) < expr_const_value(pool, x0)) {
            spec_error(scope->spec, DIRAC_ERR_PARSE, node->loc, "pwl(): the breakpoints must "
                       "not decrease (point %d at %.17g comes after %.17g)", k + 1,
                       expr_const_value(pool, x1), expr_const_value(pool, x0));
            return EXPR_NONE;
        }
    }
    expr_id sum = expr_make(pool, EXPR_WHEN, expr_make(pool, EXPR_LT, x, pts[0]), pts[1]);
    for (int k = 0; k + 1 < n; k++) {
        expr_id x0 = pts[2 * k], y0 = pts[2 * k + 1], x1 = pts[2 * k + 2], y1 = pts[2 * k + 3];
        if (x0 == x1)
            continue;   // a jump: nothing between
        expr_id inside = expr_make(pool, EXPR_WHEN, expr_make(pool, EXPR_LE, x0, x),
                                   expr_make(pool, EXPR_LT, x, x1));
        expr_id slope = expr_div(pool, expr_sub(pool, y1, y0), expr_sub(pool, x1, x0));
        expr_id line = expr_add(pool, y0, expr_mul(pool, slope, expr_sub(pool, x, x0)));
        sum = expr_add(pool, sum, expr_make(pool, EXPR_WHEN, inside, line));
    }
    expr_id last = expr_make(pool, EXPR_WHEN, expr_make(pool, EXPR_LE, pts[2 * n - 2], x),
                             pts[2 * n - 1]);
    return expr_add(pool, sum, last);
}

// a call of a function that lowering builds (spec_func_kind EXPR_KIND_COUNT); value[] holds the
// ids of the nodes before it
static expr_id lower_piecewise(const lower_scope *scope, const spec_expr *e,
                               const spec_expr_node *node, const expr_id *value)
{
    expr_pool *pool = scope->pool;
    int argc = 0;
    const spec_expr_node *cursor = NULL;
    bool started = false;
    while (spec_call_next_arg(node, &cursor, &started))
        argc++;
    expr_id small[8] = { 0 }, *arg = argc <= 8 ? small : malloc((size_t)argc * sizeof *arg);
    if (!arg) {
        spec_out_of_memory(scope->spec);
        return EXPR_NONE;
    }
    cursor = NULL;
    started = false;
    for (int k = 0; k < argc; k++)
        arg[k] = value[spec_call_next_arg(node, &cursor, &started) - e->nodes];
    expr_id r = EXPR_NONE;
    switch ((spec_func)node->op) {
    case SPEC_FUNC_STEP:   // 1 for x >= 0, else 0
        r = expr_make(pool, EXPR_LE, expr_const(pool, 0.0), arg[0]);
        break;
    case SPEC_FUNC_MIN:   // the first argument at a tie
        r = make_if(pool, expr_make(pool, EXPR_LE, arg[0], arg[1]), arg[0], arg[1]);
        break;
    case SPEC_FUNC_MAX:
        r = make_if(pool, expr_make(pool, EXPR_LE, arg[1], arg[0]), arg[0], arg[1]);
        break;
    case SPEC_FUNC_IF:
        r = make_if(pool, arg[0], arg[1], arg[2]);
        break;
    case SPEC_FUNC_CLAMP:   // x itself on [lo, hi]
        r = make_if(pool, expr_make(pool, EXPR_LT, arg[0], arg[1]), arg[1],
                    make_if(pool, expr_make(pool, EXPR_LT, arg[2], arg[0]), arg[2], arg[0]));
        break;
    case SPEC_FUNC_PWL:
    case SPEC_FUNC_TABLE:
        r = make_pwl(scope, node, arg[0], arg + 1, (argc - 1) / 2);
        break;
    default:
        r = arg[0];   // LIST: a link of the argument chain, read by its call
        break;
    }
    if (arg != small)
        free(arg);
    return r;
}

// Does column `col` (F.NAME.COORD or P.NAME, global names) read `name` in the outputs of an
// instance with names prefixed by `prefix`? A component's outputs name its own interactions
// (`F.same.inner.x` in component `deep`), whose columns carry the prefix before NAME and COORD
// (`F.deep.same.deep.inner.x`).
static bool column_matches(const char *col, const char *prefix, const char *name)
{
    size_t p = strlen(prefix);
    if (strncmp(col, name, 2) != 0 || strncmp(col + 2, prefix, p) != 0)
        return false;
    const char *c = col + 2 + p, *n = name + 2;
    if (col[0] == 'P' || p == 0)
        return strcmp(c, n) == 0;
    for (; *c && *c == *n; c++, n++)   // NAME . PREFIX COORD against NAME . COORD
        if (*c == '.' && !strncmp(c + 1, prefix, p) && !strcmp(c + 1 + p, n + 1))
            return true;
    return false;
}

// The index of the interaction column an output names (spec_resolve.c: derived_name), or -1.
static int interaction_column(const lower_scope *scope, const char *name)
{
    for (int k = 0; k < scope->interaction_column_count; k++)
        if (column_matches(scope->interaction_names[k], scope->prefix ? scope->prefix : "", name))
            return k;
    return -1;
}

// Column `col` as the outputs of the scope's instance spell it (its prefix dropped before
// NAME and COORD), into a new string; NULL when it is not one of the instance's interactions.
static char *local_column(const char *col, const char *prefix)
{
    size_t p = strlen(prefix);
    if (strncmp(col + 2, prefix, p) != 0)
        return NULL;
    char *local = malloc(strlen(col) + 1);
    if (!local)
        return NULL;
    memcpy(local, col, 2);
    strcpy(local + 2, col + 2 + p);
    char *coord = local[0] == 'F' && p > 0 ? strchr(local + 2, '.') : NULL;
    while (coord && strncmp(coord + 1, prefix, p) != 0)
        coord = strchr(coord + 1, '.');
    if (coord)
        memmove(coord + 1, coord + 1 + p, strlen(coord + 1 + p) + 1);
    return local;
}

// An F. or P. name that is no column: the closest column of the instance's interactions.
static void interaction_error(const lower_scope *scope, const spec_expr_node *node)
{
    int count = scope->interaction_column_count, local_count = 0;
    char **local = calloc((size_t)count + 1, sizeof *local);
    if (!local) {
        spec_out_of_memory(scope->spec);
        return;
    }
    diag_suggest sg;
    diag_suggest_init(&sg, node->u.sym.name);
    for (int k = 0; k < count; k++)
        if ((local[local_count] = local_column(scope->interaction_names[k],
                                               scope->prefix ? scope->prefix : "")))
            diag_suggest_add(&sg, local[local_count++]);
    if (local_count == 0)
        spec_error(scope->spec, DIRAC_ERR_PARSE, node->loc,
                   "'%s': the model has no interactions (constraints or two-forms that join "
                   "components), so no F. or P. columns", node->u.sym.name);
    else if (sg.best)
        spec_error(scope->spec, DIRAC_ERR_PARSE, node->loc, "'%s' is not a column of the "
                   "model's interactions; did you mean '%s'?", node->u.sym.name, sg.best);
    else
        spec_error(scope->spec, DIRAC_ERR_PARSE, node->loc, "'%s' is not a column of the "
                   "model's interactions (the first is '%s'; the CSV header lists them all)",
                   node->u.sym.name, local[0]);
    for (int k = 0; k < local_count; k++)
        free(local[k]);
    free(local);
}

// The DAG node a name stands for, or EXPR_NONE after reporting why.
static expr_id lower_name(const lower_scope *scope, const spec_expr_node *node)
{
    const spec_ref *ref = &node->u.sym.ref;
    expr_pool *pool = scope->pool;
    if (ref->kind == SPEC_SYM_QUALIFIED && scope->qualified)
        return scope->qualified(scope, node);
    if (node->kind == SPEC_EXPR_PRIME) {
        if (ref->kind == SPEC_SYM_COORDINATE && node->op == 2 && scope->first_a > 0)
            return expr_var(pool, scope->first_a + ref->index);
        if (ref->kind == SPEC_SYM_COORDINATE && node->op != 2)
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
        case SPEC_SYM_MULTIPLIER:
            if (scope->momentum)
                return expr_var(pool, scope->first_mu + ref->index);
            break;
        case SPEC_SYM_MOMENTUM:
            if (scope->momentum)
                return scope->momentum[scope->first_q + ref->index];
            break;
        case SPEC_SYM_TEMPERATURE:
            if (scope->temperature)
                return scope->temperature[scope->first_s + ref->index];
            break;
        case SPEC_SYM_ENERGY:
            if (scope->momentum)
                return scope->energy;
            break;
        case SPEC_SYM_INTERACTION: {
            int column = interaction_column(scope, node->u.sym.name);
            if (column >= 0)
                return scope->interaction_columns[column];
            interaction_error(scope, node);
            return EXPR_NONE;
        }
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
        case SPEC_EXPR_BINARY:
        {
            bool swapped;
            expr_kind kind = spec_op_kind((spec_op)node->op, &swapped);
            value[i] = swapped ? expr_make(pool, kind, b, a) : expr_make(pool, kind, a, b);
            break;
        }
        case SPEC_EXPR_CALL:
            if (spec_func_kind((spec_func)node->op) == EXPR_KIND_COUNT)
                value[i] = lower_piecewise(scope, e, node, value);
            else
                value[i] = expr_make(pool, spec_func_kind((spec_func)node->op), a, b);
            break;
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
