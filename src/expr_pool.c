// Expression pool: node storage, hash-consing and the constructors, which fold constants and
// apply cheap local simplifications before a node is stored.
#include "expr_pool.h"

#include "error.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define POOL_INITIAL_CAPACITY 256

// largest |n| an integer exponent may have to take part in integer-power rewrites
#define POOL_POWI_LIMIT 1024.0

expr_id expr_pool_fail(expr_pool *pool, dirac_status status, const char *format, ...)
{
    if (pool->error.status == DIRAC_OK) {
        va_list args;
        va_start(args, format);
        pool->error.status = status;
        vsnprintf(pool->error.message, sizeof pool->error.message, format, args);
        va_end(args);
    }
    return EXPR_NONE;
}

dirac_status expr_pool_create(expr_pool **out, dirac_error *err)
{
    *out = NULL;
    expr_pool *pool = calloc(1, sizeof *pool);
    if (!pool)
        return error_set(err, DIRAC_ERR_NOMEM, "out of memory for an expression pool");
    pool->nodes = malloc(POOL_INITIAL_CAPACITY * sizeof *pool->nodes);
    pool->table = malloc(2 * POOL_INITIAL_CAPACITY * sizeof *pool->table);
    if (!pool->nodes || !pool->table) {
        expr_pool_destroy(pool);
        return error_set(err, DIRAC_ERR_NOMEM, "out of memory for an expression pool");
    }
    pool->capacity = POOL_INITIAL_CAPACITY;
    pool->table_mask = 2 * POOL_INITIAL_CAPACITY - 1;
    memset(pool->table, 0xff, 2 * POOL_INITIAL_CAPACITY * sizeof *pool->table);
    pool->error.status = DIRAC_OK;
    pool->error.message[0] = '\0';
    *out = pool;
    return DIRAC_OK;
}

void expr_pool_destroy(expr_pool *pool)
{
    if (!pool)
        return;
    free(pool->nodes);
    free(pool->table);
    free(pool->memo);
    free(pool);
}

int32_t expr_pool_size(const expr_pool *pool)
{
    return pool->count;
}

dirac_status expr_pool_status(const expr_pool *pool)
{
    return pool->error.status;
}

dirac_status expr_pool_error(const expr_pool *pool, dirac_error *err)
{
    if (pool->error.status != DIRAC_OK && err)
        *err = pool->error;
    return pool->error.status;
}

void expr_pool_clear_error(expr_pool *pool)
{
    pool->error.status = DIRAC_OK;
    pool->error.message[0] = '\0';
}

// ---------------------------------------------------------------------------------------
// Hash-consing.

static uint64_t mix64(uint64_t h)
{
    h ^= h >> 33;
    h *= 0xff51afd7ed558ccdull;
    h ^= h >> 33;
    h *= 0xc4ceb9fe1a85ec53ull;
    h ^= h >> 33;
    return h;
}

static uint64_t double_bits(double x)
{
    uint64_t bits;
    memcpy(&bits, &x, sizeof bits);
    return bits;
}

static uint32_t node_hash(int32_t kind, expr_id a, expr_id b, uint64_t bits)
{
    uint64_t h = ((uint64_t)(uint32_t)a << 32) | (uint32_t)b;
    h = mix64(h ^ mix64(bits + (uint64_t)kind));
    return (uint32_t)h;
}

static int node_equals(const expr_node *n, int32_t kind, expr_id a, expr_id b, uint64_t bits)
{
    return n->kind == kind && n->a == a && n->b == b && double_bits(n->value) == bits;
}

// doubles the hash table and reinserts every node (the stored hashes make this cheap)
static int table_grow(expr_pool *pool)
{
    uint32_t size = (pool->table_mask + 1u) * 2u;
    if (size == 0 || size > (1u << 31))
        return -1;
    expr_slot *table = malloc((size_t)size * sizeof *table);
    if (!table)
        return -1;
    memset(table, 0xff, (size_t)size * sizeof *table);
    uint32_t mask = size - 1u;
    for (uint32_t old = 0; old <= pool->table_mask; old++) {
        expr_slot entry = pool->table[old];
        if (entry.id == EXPR_NONE)
            continue;
        uint32_t slot = entry.hash & mask;
        while (table[slot].id != EXPR_NONE)
            slot = (slot + 1u) & mask;
        table[slot] = entry;
    }
    free(pool->table);
    pool->table = table;
    pool->table_mask = mask;
    return 0;
}

static int nodes_grow(expr_pool *pool)
{
    if (pool->capacity > INT32_MAX / 2)
        return -1;
    int32_t capacity = pool->capacity * 2;
    expr_node *nodes = realloc(pool->nodes, (size_t)capacity * sizeof *nodes);
    if (!nodes)
        return -1;
    pool->nodes = nodes;
    pool->capacity = capacity;
    return 0;
}

// Operations defined and finite (in exact arithmetic) for all finite arguments. The simplifier
// drops a subexpression (0*x = 0, x - x = 0) only when it is built from these, finite constants
// and variables (the state is finite; sim.c checks it), so that simplification never turns an
// undefined value (0/0, log(0), 1/0) into a defined one. Division and powers are undefined
// somewhere; functions say it in their `domain` (builtin_functions.h).
#define DOMAIN_TOTAL 1
#define DOMAIN_PARTIAL 0
static const unsigned char kind_total[EXPR_KIND_COUNT] = {
    [EXPR_ADD] = 1, [EXPR_SUB] = 1, [EXPR_MUL] = 1, [EXPR_NEG] = 1,
#define FUNCTION_DOMAIN(id, name, arity, c_call, latex, symmetry, domain, ...) \
    [EXPR_##id] = DOMAIN_##domain,
    BUILTIN_MATH_LIST(FUNCTION_DOMAIN)
#undef FUNCTION_DOMAIN
};

static int kind_is_total(expr_kind kind)
{
    return kind_total[kind];
}

// the id of the node (kind, a, b, value), created if it does not exist yet
static expr_id intern(expr_pool *pool, expr_kind kind, expr_id a, expr_id b, double value)
{
    uint64_t bits = double_bits(value);
    uint32_t hash = node_hash((int32_t)kind, a, b, bits);
    uint32_t slot = hash & pool->table_mask;
    for (;;) {
        expr_slot entry = pool->table[slot];
        if (entry.id == EXPR_NONE)
            break;
        if (entry.hash == hash && node_equals(&pool->nodes[entry.id], (int32_t)kind, a, b, bits))
            return entry.id;
        slot = (slot + 1u) & pool->table_mask;
    }

    // new node: keep the table at most half full
    if (pool->count == pool->capacity && nodes_grow(pool) != 0)
        return expr_pool_fail(pool, DIRAC_ERR_NOMEM, "out of memory for %d expression nodes",
                              pool->count + 1);
    if (2u * ((uint32_t)pool->count + 1u) > pool->table_mask + 1u) {
        if (table_grow(pool) != 0)
            return expr_pool_fail(pool, DIRAC_ERR_NOMEM,
                                  "out of memory for the table of %d expression nodes",
                                  pool->count + 1);
        slot = hash & pool->table_mask;
        while (pool->table[slot].id != EXPR_NONE)
            slot = (slot + 1u) & pool->table_mask;
    }
    expr_id id = pool->count++;
    expr_node *n = &pool->nodes[id];
    n->kind = (int32_t)kind;
    n->a = a;
    n->b = b;
    n->value = value;
    n->total = kind == EXPR_CONST ? isfinite(value) : kind == EXPR_VAR ? 1 : kind_is_total(kind);
    for (int k = 0; k < 2 && n->total && kind != EXPR_VAR && kind != EXPR_CONST; k++) {
        expr_id c = k == 0 ? a : b;
        if (c != EXPR_NONE && !pool->nodes[c].total)
            n->total = 0;
    }
    if (kind == EXPR_VAR) {
        n->lo = n->hi = a;
    } else {
        n->lo = INT32_MAX;
        n->hi = -1;
        for (int k = 0; k < 2; k++) {
            expr_id c = k == 0 ? a : b;
            if (c == EXPR_NONE)
                continue;
            if (pool->nodes[c].lo < n->lo)
                n->lo = pool->nodes[c].lo;
            if (pool->nodes[c].hi > n->hi)
                n->hi = pool->nodes[c].hi;
        }
    }
    pool->table[slot] = (expr_slot){ id, hash };
    return id;
}

// ---------------------------------------------------------------------------------------
// Kinds.

static const char *const kind_names[EXPR_KIND_COUNT] = {
#define OPERATOR_NAME(kind, name, arity) [kind] = name,
    EXPR_OPERATOR_LIST(OPERATOR_NAME)
#undef OPERATOR_NAME
#define FUNCTION_NAME(id, name, ...) [EXPR_##id] = name,
    BUILTIN_MATH_LIST(FUNCTION_NAME)
#undef FUNCTION_NAME
};

static const signed char kind_arity[EXPR_KIND_COUNT] = {
#define OPERATOR_ARITY(kind, name, arity) [kind] = arity,
    EXPR_OPERATOR_LIST(OPERATOR_ARITY)
#undef OPERATOR_ARITY
#define FUNCTION_ARITY(id, name, arity, ...) [EXPR_##id] = arity,
    BUILTIN_MATH_LIST(FUNCTION_ARITY)
#undef FUNCTION_ARITY
};

const char *expr_kind_name(expr_kind kind)
{
    if ((int)kind < 0 || kind >= EXPR_KIND_COUNT)
        return "?";
    return kind_names[kind];
}

int expr_kind_arity(expr_kind kind)
{
    if ((int)kind < 0 || kind >= EXPR_KIND_COUNT)
        return -1;
    return kind_arity[kind];
}

int expr_function_lookup(const char *name, size_t length, expr_kind *kind)
{
    for (int k = EXPR_FIRST_FUNCTION; k < EXPR_KIND_COUNT; k++) {
        const char *candidate = kind_names[k];
        if (strlen(candidate) == length && memcmp(candidate, name, length) == 0) {
            *kind = (expr_kind)k;
            return kind_arity[k];
        }
    }
    return 0;
}

// ---------------------------------------------------------------------------------------
// Accessors.

expr_kind expr_kind_of(const expr_pool *pool, expr_id id)
{
    return (expr_kind)pool->nodes[id].kind;
}

expr_id expr_child(const expr_pool *pool, expr_id id, int which)
{
    const expr_node *n = &pool->nodes[id];
    if (n->kind == EXPR_CONST || n->kind == EXPR_VAR)
        return EXPR_NONE;
    return which == 0 ? n->a : which == 1 ? n->b : EXPR_NONE;
}

double expr_const_value(const expr_pool *pool, expr_id id)
{
    const expr_node *n = &pool->nodes[id];
    return n->kind == EXPR_CONST ? n->value : (double)NAN;
}

int32_t expr_var_index(const expr_pool *pool, expr_id id)
{
    const expr_node *n = &pool->nodes[id];
    return n->kind == EXPR_VAR ? n->a : -1;
}

int expr_is_const(const expr_pool *pool, expr_id id, double value)
{
    const expr_node *n = &pool->nodes[id];
    return n->kind == EXPR_CONST && n->value == value;
}

void expr_var_range(const expr_pool *pool, expr_id id, int32_t *lo, int32_t *hi)
{
    *lo = pool->nodes[id].lo;
    *hi = pool->nodes[id].hi;
}

// ---------------------------------------------------------------------------------------
// Constructors with folding and simplification. Each rule looks at most two levels down and
// builds strictly smaller terms, so the mutual calls below are bounded in depth.

expr_id expr_const(expr_pool *pool, double value)
{
    if (value == 0.0)
        value = 0.0;   // one zero: -0.0 and 0.0 share a node
    return intern(pool, EXPR_CONST, EXPR_NONE, EXPR_NONE, value);
}

expr_id expr_var(expr_pool *pool, int32_t index)
{
    if (index < 0)
        return expr_pool_fail(pool, DIRAC_ERR_ARGUMENT, "variable index %d is negative",
                              (int)index);
    return intern(pool, EXPR_VAR, index, EXPR_NONE, 0.0);
}

static int is_const(const expr_pool *pool, expr_id id)
{
    return pool->nodes[id].kind == EXPR_CONST;
}

static double value_of(const expr_pool *pool, expr_id id)
{
    return pool->nodes[id].value;
}

static int kind_is(const expr_pool *pool, expr_id id, expr_kind kind)
{
    return pool->nodes[id].kind == (int32_t)kind;
}

// c*y with a constant c: writes c and y
static int is_scaled(const expr_pool *pool, expr_id id, double *c, expr_id *y)
{
    const expr_node *n = &pool->nodes[id];
    if (n->kind != EXPR_MUL || !is_const(pool, n->a))
        return 0;
    *c = value_of(pool, n->a);
    *y = n->b;
    return 1;
}

static int is_small_integer(double x)
{
    return x == floor(x) && fabs(x) <= POOL_POWI_LIMIT;
}

// folds kind(a, b) of constants when the result is finite; EXPR_NONE otherwise
static expr_id fold(expr_pool *pool, expr_kind kind, expr_id a, expr_id b)
{
    double x = value_of(pool, a), y = b == EXPR_NONE ? 0.0 : value_of(pool, b);
    double r = expr_apply(kind, x, y);
    if (!isfinite(r))
        return EXPR_NONE;
    return expr_const(pool, r);
}

static expr_id make_neg(expr_pool *pool, expr_id a);
static expr_id make_add(expr_pool *pool, expr_id a, expr_id b);
static expr_id make_sub(expr_pool *pool, expr_id a, expr_id b);
static expr_id make_mul(expr_pool *pool, expr_id a, expr_id b);
static expr_id make_div(expr_pool *pool, expr_id a, expr_id b);
static expr_id make_pow(expr_pool *pool, expr_id a, expr_id b);

// -a
static expr_id make_neg(expr_pool *pool, expr_id a)
{
    if (a == EXPR_NONE)   // an inner constructor failed (out of memory), already recorded
        return EXPR_NONE;
    const expr_node n = pool->nodes[a];   // copies: constructors below may move the nodes
    double c;
    expr_id y;
    if (n.kind == EXPR_CONST)
        return expr_const(pool, -n.value);
    if (n.kind == EXPR_NEG)   // --x = x
        return n.a;
    if (n.kind == EXPR_SUB)   // -(x - y) = y - x
        return make_sub(pool, n.b, n.a);
    if (is_scaled(pool, a, &c, &y))   // -(c*y) = (-c)*y
        return make_mul(pool, expr_const(pool, -c), y);
    return intern(pool, EXPR_NEG, a, EXPR_NONE, 0.0);
}

// a + b
static expr_id make_add(expr_pool *pool, expr_id a, expr_id b)
{
    if (a == EXPR_NONE || b == EXPR_NONE)
        return EXPR_NONE;
    double c;
    expr_id y;
    if (is_const(pool, a) && is_const(pool, b)) {
        expr_id r = fold(pool, EXPR_ADD, a, b);
        if (r != EXPR_NONE)
            return r;
    }
    if (is_const(pool, b) && !is_const(pool, a)) {   // constant first
        expr_id t = a;
        a = b;
        b = t;
    }
    if (a == b)   // x + x = 2*x
        return make_mul(pool, expr_const(pool, 2.0), a);
    if (expr_is_const(pool, a, 0.0))
        return b;
    if (kind_is(pool, b, EXPR_NEG))   // a + (-y) = a - y
        return make_sub(pool, a, pool->nodes[b].a);
    if (kind_is(pool, a, EXPR_NEG))   // (-x) + b = b - x
        return make_sub(pool, b, pool->nodes[a].a);
    if (is_scaled(pool, b, &c, &y) && c < 0.0)   // a + (-c)*y = a - c*y
        return make_sub(pool, a, make_mul(pool, expr_const(pool, -c), y));
    if (is_scaled(pool, a, &c, &y) && c < 0.0 && !is_const(pool, b))
        return make_sub(pool, b, make_mul(pool, expr_const(pool, -c), y));
    if (is_const(pool, a)) {
        const expr_node m = pool->nodes[b];
        if (m.kind == EXPR_ADD && is_const(pool, m.a))   // c1 + (c2 + y) = (c1+c2) + y
            return make_add(pool, expr_const(pool, value_of(pool, a) + value_of(pool, m.a)), m.b);
        if (m.kind == EXPR_SUB && is_const(pool, m.a))   // c1 + (c2 - y) = (c1+c2) - y
            return make_sub(pool, expr_const(pool, value_of(pool, a) + value_of(pool, m.a)), m.b);
    } else if (a > b) {   // canonical order of non-constant terms
        expr_id t = a;
        a = b;
        b = t;
    }
    return intern(pool, EXPR_ADD, a, b, 0.0);
}

// a - b
static expr_id make_sub(expr_pool *pool, expr_id a, expr_id b)
{
    if (a == EXPR_NONE || b == EXPR_NONE)
        return EXPR_NONE;
    double c;
    expr_id y;
    if (is_const(pool, a) && is_const(pool, b)) {
        expr_id r = fold(pool, EXPR_SUB, a, b);
        if (r != EXPR_NONE)
            return r;
    }
    if (a == b && pool->nodes[a].total)   // x - x = 0 unless x may be infinite or NaN
        return expr_const(pool, 0.0);
    if (is_const(pool, b))   // x - c = (-c) + x, exactly
        return make_add(pool, expr_const(pool, -value_of(pool, b)), a);
    if (expr_is_const(pool, a, 0.0))
        return make_neg(pool, b);
    if (kind_is(pool, b, EXPR_NEG))   // a - (-y) = a + y
        return make_add(pool, a, pool->nodes[b].a);
    if (is_scaled(pool, b, &c, &y) && c < 0.0)   // a - (-c)*y = a + c*y
        return make_add(pool, a, make_mul(pool, expr_const(pool, -c), y));
    if (is_const(pool, a)) {
        const expr_node m = pool->nodes[b];
        if (m.kind == EXPR_ADD && is_const(pool, m.a))   // c1 - (c2 + y) = (c1-c2) - y
            return make_sub(pool, expr_const(pool, value_of(pool, a) - value_of(pool, m.a)), m.b);
        if (m.kind == EXPR_SUB && is_const(pool, m.a))   // c1 - (c2 - y) = (c1-c2) + y
            return make_add(pool, expr_const(pool, value_of(pool, a) - value_of(pool, m.a)), m.b);
    }
    return intern(pool, EXPR_SUB, a, b, 0.0);
}

// x^n as (x, n) when n is a small integer constant (x^1 counts, with n = 1)
static int integer_power(const expr_pool *pool, expr_id id, expr_id *x, double *n)
{
    const expr_node *p = &pool->nodes[id];
    if (p->kind == EXPR_POW && is_const(pool, p->b) && is_small_integer(value_of(pool, p->b))) {
        *x = p->a;
        *n = value_of(pool, p->b);
        return 1;
    }
    if (p->kind != EXPR_CONST) {
        *x = id;
        *n = 1.0;
        return 1;
    }
    return 0;
}

// a * b
static expr_id make_mul(expr_pool *pool, expr_id a, expr_id b)
{
    if (a == EXPR_NONE || b == EXPR_NONE)
        return EXPR_NONE;
    double c, na, nb;
    expr_id y, xa, xb;
    if (is_const(pool, a) && is_const(pool, b)) {
        expr_id r = fold(pool, EXPR_MUL, a, b);
        if (r != EXPR_NONE)
            return r;
    }
    if (is_const(pool, b) && !is_const(pool, a)) {   // constant first
        expr_id t = a;
        a = b;
        b = t;
    }
    const expr_node ma = pool->nodes[a], mb = pool->nodes[b];
    if (ma.kind == EXPR_CONST && mb.kind != EXPR_CONST) {
        double ca = ma.value;
        if (ca == 0.0 && mb.total)   // 0*x = 0 unless x may be infinite or NaN
            return a;
        if (ca == 0.0)
            return intern(pool, EXPR_MUL, a, b, 0.0);
        if (ca == 1.0)
            return b;
        if (ca == -1.0)
            return make_neg(pool, b);
        if (mb.kind == EXPR_NEG)   // c*(-y) = (-c)*y
            return make_mul(pool, expr_const(pool, -ca), mb.a);
        if (is_scaled(pool, b, &c, &y))   // c1*(c2*y) = (c1*c2)*y
            return make_mul(pool, expr_const(pool, ca * c), y);
        if (mb.kind == EXPR_DIV && is_const(pool, mb.a))   // c1*(c2/y) = (c1*c2)/y
            return make_div(pool, expr_const(pool, ca * value_of(pool, mb.a)), mb.b);
        return intern(pool, EXPR_MUL, a, b, 0.0);
    }
    if (ma.kind == EXPR_NEG)   // (-x)*b = -(x*b)
        return make_neg(pool, make_mul(pool, ma.a, b));
    if (mb.kind == EXPR_NEG)
        return make_neg(pool, make_mul(pool, a, mb.a));
    if (is_scaled(pool, a, &c, &y))   // (c*y)*b = c*(y*b)
        return make_mul(pool, ma.a, make_mul(pool, y, b));
    if (is_scaled(pool, b, &c, &y))
        return make_mul(pool, mb.a, make_mul(pool, a, y));
    if (integer_power(pool, a, &xa, &na) && integer_power(pool, b, &xb, &nb) && xa == xb)
        return make_pow(pool, xa, expr_const(pool, na + nb));   // x^n * x^m = x^(n+m)
    if (a > b) {
        expr_id t = a;
        a = b;
        b = t;
    }
    return intern(pool, EXPR_MUL, a, b, 0.0);
}

// 1 if x is a power of two (so 1/x is exact)
static int is_power_of_two(double x)
{
    int e;
    return isfinite(x) && x != 0.0 && fabs(frexp(x, &e)) == 0.5;
}

// x that cannot be zero for any value of the variables: exp of anything, cosh
static int is_nonzero_everywhere(const expr_pool *pool, expr_id id)
{
    int32_t kind = pool->nodes[id].kind;
    return kind == EXPR_EXP || kind == EXPR_COSH;
}

// a / b
static expr_id make_div(expr_pool *pool, expr_id a, expr_id b)
{
    if (a == EXPR_NONE || b == EXPR_NONE)
        return EXPR_NONE;
    if (is_const(pool, a) && is_const(pool, b)) {
        expr_id r = fold(pool, EXPR_DIV, a, b);
        if (r != EXPR_NONE)
            return r;
    }
    // x/x = 1 and 0/x = 0 would hide x = 0: kept (constants were folded above when defined)
    if (a == b && !is_const(pool, a) && pool->nodes[a].total && is_nonzero_everywhere(pool, a))
        return expr_const(pool, 1.0);
    if (kind_is(pool, b, EXPR_NEG))   // a/(-y) = -(a/y)
        return make_neg(pool, make_div(pool, a, pool->nodes[b].a));
    if (kind_is(pool, a, EXPR_NEG))   // (-x)/b = -(x/b)
        return make_neg(pool, make_div(pool, pool->nodes[a].a, b));
    if (is_const(pool, b) && is_power_of_two(value_of(pool, b)))   // x/2^k = 2^-k * x exactly
        return make_mul(pool, expr_const(pool, 1.0 / value_of(pool, b)), a);
    return intern(pool, EXPR_DIV, a, b, 0.0);
}

// a ^ b
static expr_id make_pow(expr_pool *pool, expr_id a, expr_id b)
{
    if (a == EXPR_NONE || b == EXPR_NONE)
        return EXPR_NONE;
    if (is_const(pool, a) && is_const(pool, b)) {
        expr_id r = fold(pool, EXPR_POW, a, b);
        if (r != EXPR_NONE)
            return r;
    }
    if (is_const(pool, b)) {
        double n = value_of(pool, b);
        const expr_node base = pool->nodes[a];
        if (n == 0.0)   // x^0 = 1 (as pow(x, 0) for every x)
            return expr_const(pool, 1.0);
        if (n == 1.0)
            return a;
        if (n == 0.5)
            return expr_fn(pool, EXPR_SQRT, a);
        if (n == -1.0)
            return make_div(pool, expr_const(pool, 1.0), a);
        if (is_small_integer(n) && base.kind == EXPR_POW && is_const(pool, base.b)
            && is_small_integer(value_of(pool, base.b))) {   // (x^m)^n = x^(m*n), integers
            return make_pow(pool, base.a, expr_const(pool, n * value_of(pool, base.b)));
        }
        if (is_small_integer(n) && ((int64_t)n) % 2 == 0 && base.kind == EXPR_NEG)
            return make_pow(pool, base.a, b);   // (-x)^(2k) = x^(2k)
    }
    if (expr_is_const(pool, a, 1.0))
        return a;
    return intern(pool, EXPR_POW, a, b, 0.0);
}

// f(-x) = f(x) for an even function, -f(x) for an odd one (builtin_functions.h)
enum { SYMMETRY_NONE, SYMMETRY_EVEN, SYMMETRY_ODD };
static const unsigned char kind_symmetry[EXPR_KIND_COUNT] = {
#define FUNCTION_SYMMETRY(id, name, arity, c_call, latex, symmetry, ...) \
    [EXPR_##id] = SYMMETRY_##symmetry,
    BUILTIN_MATH_LIST(FUNCTION_SYMMETRY)
#undef FUNCTION_SYMMETRY
};

// kind(a) for a unary function
static expr_id make_function(expr_pool *pool, expr_kind kind, expr_id a)
{
    if (a == EXPR_NONE)
        return EXPR_NONE;
    const expr_node node = pool->nodes[a], *n = &node;
    if (n->kind == EXPR_CONST) {
        expr_id r = fold(pool, kind, a, EXPR_NONE);
        if (r != EXPR_NONE)
            return r;
    }
    if (n->kind == EXPR_NEG && kind_symmetry[kind] == SYMMETRY_EVEN)   // f(-x) = f(x)
        return make_function(pool, kind, n->a);
    if (n->kind == EXPR_NEG && kind_symmetry[kind] == SYMMETRY_ODD)   // f(-x) = -f(x)
        return make_neg(pool, make_function(pool, kind, n->a));
    switch (kind) {
    case EXPR_NEG:
        return make_neg(pool, a);
    case EXPR_ABS:
        if (n->kind == EXPR_ABS)   // ||x|| = |x|
            return a;
        break;
    case EXPR_LOG:
        if (n->kind == EXPR_EXP)   // log(exp(x)) = x
            return n->a;
        break;
    case EXPR_SQRT:
        if (n->kind == EXPR_POW && expr_is_const(pool, n->b, 2.0))   // sqrt(x^2) = |x|
            return make_function(pool, EXPR_ABS, n->a);
        break;
    default:
        break;
    }
    return intern(pool, kind, a, EXPR_NONE, 0.0);
}

expr_id expr_make(expr_pool *pool, expr_kind kind, expr_id a, expr_id b)
{
    int arity = expr_kind_arity(kind);
    if (arity < 1)
        return expr_pool_fail(pool, DIRAC_ERR_ARGUMENT,
                              "expr_make: kind %d is not an operator or function", (int)kind);
    if (a == EXPR_NONE || (arity == 2 && b == EXPR_NONE))
        return EXPR_NONE;   // an earlier failure, already recorded
    if (!expr_valid(pool, a) || (arity == 2 && !expr_valid(pool, b)))
        return expr_pool_fail(pool, DIRAC_ERR_ARGUMENT, "expr_make(%s): child id %d out of range",
                              expr_kind_name(kind), (int)(expr_valid(pool, a) ? b : a));
    // a selected factor selects the product: WHEN(c, a)*b = WHEN(c, a*b), and likewise for
    // a/b and -a; equal where c holds, and 0 (not 0*inf) where it does not, so a derivative
    // chained through the branch not taken stays 0 (reverse mode multiplies the masked
    // adjoint by that branch's partials)
    if ((kind == EXPR_MUL || kind == EXPR_DIV || kind == EXPR_NEG) &&
        pool->nodes[a].kind == EXPR_WHEN) {
        expr_id c = pool->nodes[a].a, inner = pool->nodes[a].b;
        return expr_make(pool, EXPR_WHEN, c, expr_make(pool, kind, inner, b));
    }
    if (kind == EXPR_MUL && pool->nodes[b].kind == EXPR_WHEN) {
        expr_id c = pool->nodes[b].a, inner = pool->nodes[b].b;
        return expr_make(pool, EXPR_WHEN, c, expr_make(pool, kind, a, inner));
    }
    switch (kind) {
    case EXPR_ADD:
        return make_add(pool, a, b);
    case EXPR_SUB:
        return make_sub(pool, a, b);
    case EXPR_MUL:
        return make_mul(pool, a, b);
    case EXPR_DIV:
        return make_div(pool, a, b);
    case EXPR_POW:
        return make_pow(pool, a, b);
    case EXPR_WHEN:
        // a known condition picks its branch; nothing is taken from a zero branch
        if (is_const(pool, a) && value_of(pool, a) == value_of(pool, a))
            return value_of(pool, a) != 0.0 ? b : expr_const(pool, 0.0);
        if (expr_is_const(pool, b, 0.0))
            return b;
        return intern(pool, kind, a, b, 0.0);
    default:   // comparisons, functions
        if (arity == 1)
            return make_function(pool, kind, a);
        if (is_const(pool, a) && is_const(pool, b)) {
            expr_id r = fold(pool, kind, a, b);
            if (r != EXPR_NONE)
                return r;
        }
        return intern(pool, kind, a, b, 0.0);
    }
}

expr_id expr_add(expr_pool *pool, expr_id a, expr_id b)
{
    return expr_make(pool, EXPR_ADD, a, b);
}

expr_id expr_sub(expr_pool *pool, expr_id a, expr_id b)
{
    return expr_make(pool, EXPR_SUB, a, b);
}

expr_id expr_mul(expr_pool *pool, expr_id a, expr_id b)
{
    return expr_make(pool, EXPR_MUL, a, b);
}

expr_id expr_div(expr_pool *pool, expr_id a, expr_id b)
{
    return expr_make(pool, EXPR_DIV, a, b);
}

expr_id expr_pow(expr_pool *pool, expr_id a, expr_id b)
{
    return expr_make(pool, EXPR_POW, a, b);
}

expr_id expr_neg(expr_pool *pool, expr_id a)
{
    return expr_make(pool, EXPR_NEG, a, EXPR_NONE);
}

expr_id expr_powc(expr_pool *pool, expr_id a, double n)
{
    if (a == EXPR_NONE)
        return EXPR_NONE;
    return expr_make(pool, EXPR_POW, a, expr_const(pool, n));
}

expr_id expr_fn(expr_pool *pool, expr_kind kind, expr_id a)
{
    if (expr_kind_arity(kind) != 1)
        return expr_pool_fail(pool, DIRAC_ERR_ARGUMENT, "expr_fn: %s is not a unary function",
                              expr_kind_name(kind));
    return expr_make(pool, kind, a, EXPR_NONE);
}

// ---------------------------------------------------------------------------------------
// Whole-expression traversals.

int expr_idmap_init(expr_idmap *map, uint32_t expected)
{
    uint32_t size = 16;
    while (size < 2u * expected && size < (1u << 30))
        size *= 2;
    map->keys = malloc((size_t)size * sizeof *map->keys);
    map->values = malloc((size_t)size * sizeof *map->values);
    map->mask = size - 1u;
    map->count = 0;
    map->dense = NULL;
    map->dense_size = 0;
    if (!map->keys || !map->values) {
        expr_idmap_free(map);
        return -1;
    }
    memset(map->keys, 0xff, (size_t)size * sizeof *map->keys);
    return 0;
}

void expr_idmap_free(expr_idmap *map)
{
    free(map->keys);
    free(map->values);
    free(map->dense);
    map->keys = NULL;
    map->values = NULL;
    map->dense = NULL;
    map->count = 0;
}

static uint32_t idmap_hash(int32_t key)
{
    uint32_t h = (uint32_t)key * 0x9e3779b1u;
    return h ^ (h >> 15);
}

int32_t *expr_idmap_find(const expr_idmap *map, int32_t key)
{
    if (map->dense)
        return key >= 0 && key < map->dense_size && map->dense[key] >= 0 ? &map->dense[key] : NULL;
    uint32_t slot = idmap_hash(key) & map->mask;
    for (;;) {
        if (map->keys[slot] == key)
            return &map->values[slot];
        if (map->keys[slot] == EXPR_NONE)
            return NULL;
        slot = (slot + 1u) & map->mask;
    }
}

// doubles the map
static int idmap_grow(expr_idmap *map)
{
    expr_idmap bigger;
    if (map->mask >= (1u << 30) || expr_idmap_init(&bigger, map->mask + 1u) != 0)
        return -1;
    for (uint32_t i = 0; i <= map->mask; i++)
        if (map->keys[i] != EXPR_NONE)
            expr_idmap_insert(&bigger, map->keys[i], map->values[i]);
    expr_idmap_free(map);
    *map = bigger;
    return 0;
}

int expr_idmap_densify(expr_idmap *map, int32_t size)
{
    int32_t *dense = malloc(((size_t)size + 1) * sizeof *dense);
    if (!dense)
        return -1;
    memset(dense, 0xff, ((size_t)size + 1) * sizeof *dense);
    for (uint32_t i = 0; i <= map->mask; i++)
        if (map->keys[i] != EXPR_NONE)
            dense[map->keys[i]] = map->values[i];
    free(map->keys);
    free(map->values);
    map->keys = NULL;
    map->values = NULL;
    map->dense = dense;
    map->dense_size = size;
    return 0;
}

int expr_idmap_insert(expr_idmap *map, int32_t key, int32_t value)
{
    if (map->dense) {
        if (map->dense[key] >= 0)
            return 0;
        map->dense[key] = value;
        map->count++;
        return 1;
    }
    if (2u * (map->count + 1u) > map->mask + 1u && idmap_grow(map) != 0)
        return -1;
    uint32_t slot = idmap_hash(key) & map->mask;
    while (map->keys[slot] != EXPR_NONE) {
        if (map->keys[slot] == key)
            return 0;
        slot = (slot + 1u) & map->mask;
    }
    map->keys[slot] = key;
    map->values[slot] = value;
    map->count++;
    return 1;
}

static int compare_ids(const void *pa, const void *pb)
{
    expr_id a = *(const expr_id *)pa, b = *(const expr_id *)pb;
    return (a > b) - (a < b);
}

// appends id to a growable array; 0 or -1 when out of memory
static int append_id(expr_id **items, size_t *length, size_t *capacity, expr_id id)
{
    if (*length == *capacity) {
        size_t grown = *capacity ? 2 * *capacity : 64;
        expr_id *bigger = realloc(*items, grown * sizeof *bigger);
        if (!bigger)
            return -1;
        *items = bigger;
        *capacity = grown;
    }
    (*items)[(*length)++] = id;
    return 0;
}

dirac_status expr_collect(const expr_pool *pool, int count, const expr_id *ids, expr_id **list,
                          int32_t *length, expr_idmap *position, dirac_error *err)
{
    *list = NULL;
    *length = 0;
    for (int k = 0; k < count; k++)
        if (!expr_valid(pool, ids[k]))
            return error_set(err, DIRAC_ERR_ARGUMENT, "expression id %d out of range (pool has %d)",
                             (int)ids[k], (int)pool->count);

    // depth-first marking with an explicit stack; each node enters the stack once. The set
    // of seen ids turns into a plain array over [0, top] once it holds a sixteenth of them.
    expr_idmap seen;
    expr_id *found = NULL, *stack = NULL;
    size_t n_found = 0, found_capacity = 0, depth = 0, stack_capacity = 0;
    expr_id top = -1;
    for (int k = 0; k < count; k++)
        if (ids[k] > top)
            top = ids[k];
    if (expr_idmap_init(&seen, 64) != 0)
        goto out_of_memory;
    for (int k = 0; k < count; k++) {
        int fresh = expr_idmap_insert(&seen, ids[k], 0);
        if (fresh < 0 || (fresh && append_id(&stack, &depth, &stack_capacity, ids[k]) != 0))
            goto out_of_memory;
        while (depth > 0) {
            expr_id id = stack[--depth];
            if (append_id(&found, &n_found, &found_capacity, id) != 0)
                goto out_of_memory;
            if (!seen.dense && seen.count > (uint32_t)top / 16u + 64u
                && expr_idmap_densify(&seen, top + 1) != 0)
                goto out_of_memory;
            const expr_node *n = &pool->nodes[id];
            if (n->kind == EXPR_CONST || n->kind == EXPR_VAR)
                continue;
            for (int c = 0; c < 2; c++) {
                expr_id child = c == 0 ? n->a : n->b;
                if (child == EXPR_NONE)
                    continue;
                fresh = expr_idmap_insert(&seen, child, 0);
                if (fresh < 0 || (fresh && append_id(&stack, &depth, &stack_capacity, child) != 0))
                    goto out_of_memory;
            }
        }
    }
    free(stack);

    // increasing id order is a topological order
    if (seen.dense) {   // a scan of the array gives the order
        size_t at = 0;
        for (expr_id id = 0; id <= top; id++)
            if (seen.dense[id] >= 0)
                found[at++] = id;
    } else if (n_found > 1) {
        qsort(found, n_found, sizeof *found, compare_ids);
    }
    if (position) {
        for (size_t k = 0; k < n_found; k++)
            *expr_idmap_find(&seen, found[k]) = (int32_t)k;
        *position = seen;
    } else {
        expr_idmap_free(&seen);
    }
    if (!found && !(found = malloc(sizeof *found))) {   // an empty list is still an allocation
        if (position)
            expr_idmap_free(position);
        return error_set(err, DIRAC_ERR_NOMEM, "out of memory walking an expression");
    }
    *list = found;
    *length = (int32_t)n_found;
    return DIRAC_OK;

out_of_memory:
    expr_idmap_free(&seen);
    free(found);
    free(stack);
    return error_set(err, DIRAC_ERR_NOMEM, "out of memory walking %zu expression nodes", n_found);
}

dirac_status expr_count_reachable(const expr_pool *pool, int count, const expr_id *ids,
                                  int64_t *nodes, dirac_error *err)
{
    expr_id *list;
    int32_t length;
    *nodes = 0;
    dirac_status status = expr_collect(pool, count, ids, &list, &length, NULL, err);
    if (status != DIRAC_OK)
        return status;
    free(list);
    *nodes = length;
    return DIRAC_OK;
}

dirac_status expr_variables(const expr_pool *pool, int count, const expr_id *ids,
                            int32_t **vars, int *n_vars, dirac_error *err)
{
    expr_id *list;
    int32_t length;
    *vars = NULL;
    *n_vars = 0;
    dirac_status status = expr_collect(pool, count, ids, &list, &length, NULL, err);
    if (status != DIRAC_OK)
        return status;

    // variables by increasing index (variable nodes are unique per index)
    int found = 0;
    for (int32_t k = 0; k < length; k++)
        if (pool->nodes[list[k]].kind == EXPR_VAR)
            list[found++] = pool->nodes[list[k]].a;
    if (found > 1)
        qsort(list, (size_t)found, sizeof *list, compare_ids);
    if (found == 0) {
        free(list);
        return DIRAC_OK;
    }
    *vars = list;
    *n_vars = found;
    return DIRAC_OK;
}

dirac_status expr_substitute(expr_pool *pool, expr_id e, int count, const int32_t *vars,
                             const expr_id *with, expr_id *out, dirac_error *err)
{
    *out = EXPR_NONE;
    for (int k = 0; k < count; k++) {
        if (vars[k] < 0)
            return error_set(err, DIRAC_ERR_ARGUMENT, "substitution variable index %d is negative",
                             (int)vars[k]);
        if (!expr_valid(pool, with[k]))
            return error_set(err, DIRAC_ERR_ARGUMENT, "substitution %d: expression id %d out of range",
                             k, (int)with[k]);
    }
    expr_id *list;
    int32_t length;
    expr_idmap position, replace;
    dirac_status status = expr_collect(pool, 1, &e, &list, &length, &position, err);
    if (status != DIRAC_OK)
        return status;

    // replacement of each variable index, and the new id of each old node (by position)
    expr_id *image = malloc(((size_t)length + 1) * sizeof *image);
    int replace_ok = expr_idmap_init(&replace, (uint32_t)count) == 0;
    for (int k = 0; replace_ok && k < count; k++)
        if (expr_idmap_insert(&replace, vars[k], with[k]) < 0)
            replace_ok = 0;
    if (!image || !replace_ok) {
        free(list);
        free(image);
        expr_idmap_free(&position);
        if (replace_ok)
            expr_idmap_free(&replace);
        return error_set(err, DIRAC_ERR_NOMEM, "out of memory substituting in %d nodes",
                         (int)length);
    }

    expr_id result = EXPR_NONE;
    for (int32_t k = 0; k < length; k++) {
        expr_id id = list[k];
        expr_node n = pool->nodes[id];   // copy: the pool may grow below
        if (n.kind == EXPR_CONST) {
            image[k] = id;
        } else if (n.kind == EXPR_VAR) {
            const int32_t *w = expr_idmap_find(&replace, n.a);
            image[k] = w ? *w : id;
        } else {
            expr_id a = image[*expr_idmap_find(&position, n.a)];
            expr_id b = n.b == EXPR_NONE ? EXPR_NONE : image[*expr_idmap_find(&position, n.b)];
            image[k] = expr_make(pool, (expr_kind)n.kind, a, b);
        }
        if (image[k] == EXPR_NONE)
            break;
        if (id == e)
            result = image[k];
    }
    free(list);
    free(image);
    expr_idmap_free(&position);
    expr_idmap_free(&replace);
    if (result == EXPR_NONE)
        return expr_pool_error(pool, err);
    *out = result;
    return DIRAC_OK;
}
