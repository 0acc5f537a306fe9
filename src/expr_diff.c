// Symbolic differentiation on the DAG: forward mode with a per-(node, variable) memo for
// single derivatives, and reverse mode (one adjoint sweep per output) for sparse Jacobians
// and Hessians. Both use the same local rule, s * d node / d child (the functions' rules are
// in builtin_functions.h), and neither recurses.
#include "expr_pool.h"

#include "error.h"

#include <stdlib.h>
#include <string.h>

// ---------------------------------------------------------------------------------------
// Local rule.

// the vocabulary of the derivative rules of builtin_functions.h
#define MUL(a, b) expr_mul(pool, a, b)
#define DIV(a, b) expr_div(pool, a, b)
#define ADD(a, b) expr_add(pool, a, b)
#define SUB(a, b) expr_sub(pool, a, b)
#define NEG(a) expr_neg(pool, a)
#define SQR(a) expr_powc(pool, a, 2.0)
#define FN(id, a) expr_fn(pool, EXPR_##id, a)
#define ONE one
#define TWO expr_const(pool, 2.0)
#define ZERO expr_const(pool, 0.0)
#define PARTIAL_1(d_x, d_y) (d_x)
#define PARTIAL_2(d_x, d_y) (k == 0 ? (d_x) : (d_y))

// s * (d e / d child k) for the node e = f, with its children x = a, y = b
static expr_id scaled_partial(expr_pool *pool, expr_id e, int k, expr_id s)
{
    const expr_node n = pool->nodes[e];
    expr_id x = n.a, y = n.b, f = e, one = expr_const(pool, 1.0);
    switch ((expr_kind)n.kind) {
    case EXPR_ADD:   // d(x + y) = dx + dy
        return s;
    case EXPR_SUB:   // d(x - y) = dx - dy
        return k == 0 ? s : expr_neg(pool, s);
    case EXPR_MUL:   // d(x y) = y dx + x dy
        return expr_mul(pool, s, k == 0 ? y : x);
    case EXPR_DIV:   // d(x / y) = dx / y - (x/y) dy / y
        if (k == 0)
            return expr_div(pool, s, y);
        return expr_neg(pool, expr_div(pool, expr_mul(pool, s, e), y));
    case EXPR_POW:
        if (pool->nodes[y].kind == EXPR_CONST) {   // d(x^c) = c x^(c-1) dx
            double c = pool->nodes[y].value;
            return expr_mul(pool, s, expr_mul(pool, y, expr_powc(pool, x, c - 1.0)));
        }
        if (k == 0)   // d(x^y)/dx = y x^(y-1)
            return expr_mul(pool, s, expr_mul(pool, y, expr_pow(pool, x, expr_sub(pool, y, one))));
        // d(x^y)/dy = x^y log x   (from x^y = exp(y log x); only built when y varies)
        return expr_mul(pool, s, expr_mul(pool, e, expr_fn(pool, EXPR_LOG, x)));
    case EXPR_NEG:
        return expr_neg(pool, s);
#define FUNCTION_PARTIAL(id, name, arity, c_call, latex, symmetry, domain, d_x, d_y) \
    case EXPR_##id:                                                                 \
        return PARTIAL_##arity(d_x, d_y);
        BUILTIN_MATH_LIST(FUNCTION_PARTIAL)
#undef FUNCTION_PARTIAL
    case EXPR_LT:
    case EXPR_LE:
    case EXPR_EQ:
    case EXPR_NE:
        return expr_const(pool, 0.0);
    case EXPR_WHEN:   // d WHEN(c, a) = WHEN(c, da): the derivative of the branch taken
        return k == 0 ? expr_const(pool, 0.0) : expr_make(pool, EXPR_WHEN, x, s);
    default:
        return expr_pool_fail(pool, DIRAC_ERR_ARGUMENT, "cannot differentiate node %d of kind %s",
                              (int)e, expr_kind_name((expr_kind)n.kind));
    }
}

#undef MUL
#undef DIV
#undef ADD
#undef SUB
#undef NEG
#undef SQR
#undef FN
#undef ONE
#undef TWO
#undef ZERO
#undef PARTIAL_1
#undef PARTIAL_2

// ---------------------------------------------------------------------------------------
// Memo of d node / d var, open addressing in the pool.

static uint32_t memo_hash(expr_id node, int32_t var)
{
    uint64_t h = ((uint64_t)(uint32_t)node << 32) | (uint32_t)var;
    h ^= h >> 33;
    h *= 0xff51afd7ed558ccdull;
    h ^= h >> 33;
    h *= 0xc4ceb9fe1a85ec53ull;
    h ^= h >> 33;
    return (uint32_t)h;
}

static expr_id memo_get(const expr_pool *pool, expr_id node, int32_t var)
{
    if (!pool->memo)
        return EXPR_NONE;
    uint32_t slot = memo_hash(node, var) & pool->memo_mask;
    for (;;) {
        const expr_memo_entry *m = &pool->memo[slot];
        if (m->node == EXPR_NONE)
            return EXPR_NONE;
        if (m->node == node && m->var == var)
            return m->result;
        slot = (slot + 1u) & pool->memo_mask;
    }
}

static void memo_insert(expr_memo_entry *table, uint32_t mask, expr_memo_entry entry)
{
    uint32_t slot = memo_hash(entry.node, entry.var) & mask;
    while (table[slot].node != EXPR_NONE)
        slot = (slot + 1u) & mask;
    table[slot] = entry;
}

// records d node / d var = result; -1 when out of memory (the pool error is set)
static int memo_put(expr_pool *pool, expr_id node, int32_t var, expr_id result)
{
    uint32_t size = pool->memo ? pool->memo_mask + 1u : 0u;
    if (2u * (pool->memo_count + 1u) > size) {   // keep at most half full
        uint32_t grown = size ? 2u * size : 1024u;
        expr_memo_entry *table = grown <= (1u << 30) ? malloc((size_t)grown * sizeof *table) : NULL;
        if (!table) {
            expr_pool_fail(pool, DIRAC_ERR_NOMEM, "out of memory for %u derivative memo entries",
                           pool->memo_count + 1u);
            return -1;
        }
        for (uint32_t i = 0; i < grown; i++)
            table[i].node = EXPR_NONE;
        for (uint32_t i = 0; i < size; i++)
            if (pool->memo[i].node != EXPR_NONE)
                memo_insert(table, grown - 1u, pool->memo[i]);
        free(pool->memo);
        pool->memo = table;
        pool->memo_mask = grown - 1u;
    }
    memo_insert(pool->memo, pool->memo_mask, (expr_memo_entry){ node, var, result });
    pool->memo_count++;
    return 0;
}

// ---------------------------------------------------------------------------------------
// Forward mode.

// growable stack of ids
typedef struct id_stack {
    expr_id *items;
    size_t depth, capacity;
} id_stack;

static int stack_push(id_stack *s, expr_id id)
{
    if (s->depth == s->capacity) {
        size_t capacity = s->capacity ? 2 * s->capacity : 64;
        expr_id *items = realloc(s->items, capacity * sizeof *items);
        if (!items)
            return -1;
        s->items = items;
        s->capacity = capacity;
    }
    s->items[s->depth++] = id;
    return 0;
}

// d child / d var of an already differentiated (or independent) child
static expr_id child_derivative(expr_pool *pool, expr_id child, int32_t var)
{
    if (!expr_may_depend(pool, child, var))
        return expr_const(pool, 0.0);
    return memo_get(pool, child, var);
}

// d e / d var from the derivatives of e's children (both known)
static expr_id combine(expr_pool *pool, expr_id e, int32_t var)
{
    const expr_node n = pool->nodes[e];
    expr_id sum = EXPR_NONE;
    for (int k = 0; k < 2; k++) {
        expr_id child = k == 0 ? n.a : n.b;
        if (child == EXPR_NONE)
            continue;
        expr_id d = child_derivative(pool, child, var);
        if (d == EXPR_NONE)
            return EXPR_NONE;
        if (expr_is_const(pool, d, 0.0))
            continue;
        expr_id term = scaled_partial(pool, e, k, d);
        sum = sum == EXPR_NONE ? term : expr_add(pool, sum, term);
        if (sum == EXPR_NONE)
            return EXPR_NONE;
    }
    return sum == EXPR_NONE ? expr_const(pool, 0.0) : sum;
}

expr_id expr_diff(expr_pool *pool, expr_id e, int32_t var)
{
    if (e == EXPR_NONE)
        return EXPR_NONE;
    if (!expr_valid(pool, e))
        return expr_pool_fail(pool, DIRAC_ERR_ARGUMENT, "expr_diff: expression id %d out of range",
                              (int)e);
    if (var < 0)
        return expr_pool_fail(pool, DIRAC_ERR_ARGUMENT, "expr_diff: variable index %d is negative",
                              (int)var);
    if (!expr_may_depend(pool, e, var))
        return expr_const(pool, 0.0);
    expr_id known = memo_get(pool, e, var);
    if (known != EXPR_NONE)
        return known;

    // post-order with an explicit stack: a node is finished once its children are
    id_stack stack = { NULL, 0, 0 };
    expr_id result = EXPR_NONE;
    if (stack_push(&stack, e) != 0)
        goto out_of_memory;
    while (stack.depth > 0) {
        expr_id id = stack.items[stack.depth - 1];
        if (memo_get(pool, id, var) != EXPR_NONE) {
            stack.depth--;
            continue;
        }
        const expr_node n = pool->nodes[id];
        expr_id d;
        if (n.kind == EXPR_VAR) {
            d = expr_const(pool, n.a == var ? 1.0 : 0.0);
        } else {
            int pending = 0;
            for (int k = 0; k < 2; k++) {
                expr_id child = k == 0 ? n.a : n.b;
                if (child != EXPR_NONE && expr_may_depend(pool, child, var)
                    && memo_get(pool, child, var) == EXPR_NONE) {
                    if (stack_push(&stack, child) != 0)
                        goto out_of_memory;
                    pending = 1;
                }
            }
            if (pending)
                continue;
            d = combine(pool, id, var);
        }
        if (d == EXPR_NONE || memo_put(pool, id, var, d) != 0)
            goto done;
        stack.depth--;
    }
    result = memo_get(pool, e, var);
    goto done;

out_of_memory:
    expr_pool_fail(pool, DIRAC_ERR_NOMEM, "out of memory differentiating node %d", (int)e);
done:
    free(stack.items);
    return result;
}

// ---------------------------------------------------------------------------------------
// Reverse mode: sparse Jacobians.

void expr_sparse_free(expr_sparse *m)
{
    if (!m)
        return;
    free(m->row_start);
    free(m->col);
    free(m->value);
    memset(m, 0, sizeof *m);
}

// scratch shared by the sweeps of one Jacobian
typedef struct jacobian_work {
    expr_idmap column;   // variable index -> column
    // entries found so far, row by row
    int *col;
    expr_id *value;
    int nnz, capacity;
} jacobian_work;

static int add_entry(jacobian_work *w, int col, expr_id value)
{
    if (w->nnz == w->capacity) {
        int capacity = w->capacity ? 2 * w->capacity : 64;
        int *cols = realloc(w->col, (size_t)capacity * sizeof *cols);
        if (cols)
            w->col = cols;
        expr_id *values = cols ? realloc(w->value, (size_t)capacity * sizeof *values) : NULL;
        if (!values)
            return -1;
        w->value = values;
        w->capacity = capacity;
    }
    w->col[w->nnz] = col;
    w->value[w->nnz] = value;
    w->nnz++;
    return 0;
}

typedef struct column_entry {
    int col;
    expr_id value;
} column_entry;

static int compare_columns(const void *pa, const void *pb)
{
    int a = ((const column_entry *)pa)->col, b = ((const column_entry *)pb)->col;
    return (a > b) - (a < b);
}

// sorts the entries row_first .. nnz-1 by column; 0 ok, -1 out of memory
static int sort_row(jacobian_work *w, int row_first)
{
    int count = w->nnz - row_first;
    if (count <= 16) {   // short rows: insertion sort
        for (int i = row_first + 1; i < w->nnz; i++) {
            int c = w->col[i];
            expr_id v = w->value[i];
            int j = i;
            for (; j > row_first && w->col[j - 1] > c; j--) {
                w->col[j] = w->col[j - 1];
                w->value[j] = w->value[j - 1];
            }
            w->col[j] = c;
            w->value[j] = v;
        }
        return 0;
    }
    column_entry *pairs = malloc((size_t)count * sizeof *pairs);
    if (!pairs)
        return -1;
    for (int i = 0; i < count; i++)
        pairs[i] = (column_entry){ w->col[row_first + i], w->value[row_first + i] };
    qsort(pairs, (size_t)count, sizeof *pairs, compare_columns);
    for (int i = 0; i < count; i++) {
        w->col[row_first + i] = pairs[i].col;
        w->value[row_first + i] = pairs[i].value;
    }
    free(pairs);
    return 0;
}

// one reverse sweep over the nodes output o depends on (its cone), appending the row's
// entries: 0 ok, -1 out of memory (err set) or pool failure (pool error set)
static int jacobian_row(expr_pool *pool, jacobian_work *w, expr_id o, dirac_error *err)
{
    expr_id *cone;
    int32_t length;
    expr_idmap position;
    if (expr_collect(pool, 1, &o, &cone, &length, &position, err) != DIRAC_OK)
        return -1;
    unsigned char *flag = malloc((size_t)length + 1);
    expr_id *adjoint = malloc(((size_t)length + 1) * sizeof *adjoint);
    int result = -1;
    if (!flag || !adjoint) {
        error_set(err, DIRAC_ERR_NOMEM, "out of memory for the adjoints of %d nodes", (int)length);
        goto done;
    }

    // which nodes depend on a requested variable (children come first)
    for (int32_t i = 0; i < length; i++) {
        const expr_node *n = &pool->nodes[cone[i]];
        unsigned char f = 0;
        if (n->kind == EXPR_VAR)
            f = expr_idmap_find(&w->column, n->a) != NULL;
        else if (n->kind != EXPR_CONST)
            f = flag[*expr_idmap_find(&position, n->a)]
                || (n->b != EXPR_NONE && flag[*expr_idmap_find(&position, n->b)]);
        flag[i] = f;
        adjoint[i] = EXPR_NONE;
    }
    result = 0;
    if (!flag[length - 1])   // o is the last node of its own cone
        goto done;

    // adjoints from the output down: adj(child) += adj(node) * d node / d child
    int row_first = w->nnz;
    adjoint[length - 1] = expr_const(pool, 1.0);
    for (int32_t i = length; i-- > 0;) {
        expr_id adj = adjoint[i];
        if (adj == EXPR_NONE || !flag[i] || expr_is_const(pool, adj, 0.0))
            continue;
        const expr_node n = pool->nodes[cone[i]];
        if (n.kind == EXPR_VAR) {
            if (add_entry(w, *expr_idmap_find(&w->column, n.a), adj) != 0)
                goto out_of_memory;
            continue;
        }
        for (int k = 0; k < 2; k++) {
            expr_id child = k == 0 ? n.a : n.b;
            if (child == EXPR_NONE)
                continue;
            int32_t c = *expr_idmap_find(&position, child);
            if (!flag[c])
                continue;
            expr_id term = scaled_partial(pool, cone[i], k, adj);
            expr_id sum = adjoint[c] == EXPR_NONE ? term : expr_add(pool, adjoint[c], term);
            if (sum == EXPR_NONE) {
                result = -1;   // the pool holds the error
                goto done;
            }
            adjoint[c] = sum;
        }
    }
    if (sort_row(w, row_first) != 0)
        goto out_of_memory;
    goto done;

out_of_memory:
    result = -1;
    error_set(err, DIRAC_ERR_NOMEM, "out of memory for the Jacobian row of node %d", (int)o);
done:
    free(flag);
    free(adjoint);
    free(cone);
    expr_idmap_free(&position);
    return result;
}

dirac_status expr_jacobian(expr_pool *pool, int n_outputs, const expr_id *outputs, int n_vars,
                           const int32_t *vars, expr_sparse *jac, dirac_error *err)
{
    memset(jac, 0, sizeof *jac);
    if (n_outputs < 0 || n_vars < 0)
        return error_set(err, DIRAC_ERR_ARGUMENT, "expr_jacobian: negative size (%d outputs, %d variables)",
                         n_outputs, n_vars);
    for (int r = 0; r < n_outputs; r++)
        if (!expr_valid(pool, outputs[r]))
            return error_set(err, DIRAC_ERR_ARGUMENT, "expr_jacobian: output %d has invalid id %d", r,
                             (int)outputs[r]);
    for (int c = 0; c < n_vars; c++)
        if (vars[c] < 0)
            return error_set(err, DIRAC_ERR_ARGUMENT, "expr_jacobian: variable %d has negative index %d",
                             c, (int)vars[c]);

    jacobian_work w;
    memset(&w, 0, sizeof w);
    jac->row_start = malloc(((size_t)n_outputs + 1) * sizeof *jac->row_start);
    if (!jac->row_start || expr_idmap_init(&w.column, (uint32_t)n_vars) != 0) {
        free(jac->row_start);
        jac->row_start = NULL;
        return error_set(err, DIRAC_ERR_NOMEM, "out of memory for a %d x %d Jacobian", n_outputs,
                         n_vars);
    }
    dirac_status status = DIRAC_OK;
    for (int c = 0; c < n_vars && status == DIRAC_OK; c++) {
        int inserted = expr_idmap_insert(&w.column, vars[c], c);
        if (inserted == 0)
            status = error_set(err, DIRAC_ERR_ARGUMENT, "expr_jacobian: variable index %d listed twice",
                               (int)vars[c]);
        else if (inserted < 0)
            status = error_set(err, DIRAC_ERR_NOMEM, "out of memory for a %d x %d Jacobian",
                               n_outputs, n_vars);
    }

    // one reverse sweep per output
    for (int r = 0; r < n_outputs && status == DIRAC_OK; r++) {
        jac->row_start[r] = w.nnz;
        if (jacobian_row(pool, &w, outputs[r], err) != 0)
            status = expr_pool_status(pool) != DIRAC_OK ? expr_pool_error(pool, err)
                                                        : (err ? err->status : DIRAC_ERR_NOMEM);
    }
    expr_idmap_free(&w.column);
    if (status != DIRAC_OK) {
        free(w.col);
        free(w.value);
        expr_sparse_free(jac);
        return status;
    }
    jac->row_start[n_outputs] = w.nnz;
    jac->n_rows = n_outputs;
    jac->n_cols = n_vars;
    jac->nnz = w.nnz;
    jac->col = w.col;
    jac->value = w.value;
    return DIRAC_OK;
}

dirac_status expr_hessian(expr_pool *pool, expr_id e, int n_vars, const int32_t *vars,
                          expr_sparse *gradient, expr_sparse *hessian, dirac_error *err)
{
    expr_sparse g, h;
    if (gradient)
        memset(gradient, 0, sizeof *gradient);
    if (hessian)
        memset(hessian, 0, sizeof *hessian);
    dirac_status status = expr_jacobian(pool, 1, &e, n_vars, vars, &g, err);
    if (status != DIRAC_OK)
        return status;
    if (!hessian) {
        *gradient = g;
        return DIRAC_OK;
    }

    // rows of the Hessian: the Jacobians of the nonzero gradient entries
    status = expr_jacobian(pool, g.nnz, g.value, n_vars, vars, &h, err);
    int *row_start = status == DIRAC_OK ? malloc(((size_t)n_vars + 1) * sizeof *row_start) : NULL;
    if (status == DIRAC_OK && !row_start) {
        expr_sparse_free(&h);
        status = error_set(err, DIRAC_ERR_NOMEM, "out of memory for a %d x %d Hessian", n_vars, n_vars);
    }
    if (status != DIRAC_OK) {
        expr_sparse_free(&g);
        return status;
    }
    int k = 0;
    for (int i = 0; i < n_vars; i++) {
        row_start[i] = h.row_start[k];
        if (k < g.nnz && g.col[k] == i)
            k++;
    }
    row_start[n_vars] = h.nnz;
    free(h.row_start);
    h.row_start = row_start;
    h.n_rows = n_vars;
    *hessian = h;
    if (gradient)
        *gradient = g;
    else
        expr_sparse_free(&g);
    return DIRAC_OK;
}
