// Internal to the expression engine: the pool's representation, shared by expr_pool.c,
// expr_diff.c, expr_tape.c, expr_eval.c and expr_print.c. Other modules use expr.h only.
#ifndef DIRAC_SRC_EXPR_POOL_H
#define DIRAC_SRC_EXPR_POOL_H

#include "expr.h"

#include <stdint.h>

/// One node. Leaves: CONST keeps `value`; VAR keeps its input index in `a`. Unary nodes use
/// `a`, binary nodes `a` and `b` (both < the node's own id); unused children are EXPR_NONE.
typedef struct expr_node {
    int32_t kind;    // expr_kind
    expr_id a, b;    // children, or the input index of a VAR in a
    int32_t lo, hi;  // range of variable indices below this node (lo > hi: none)
    int32_t total;   // 1: finite for every finite value of the variables (see expr_pool.c)
    double value;    // CONST only; 0 otherwise
} expr_node;

/// Derivative memo entry: d node / d var = result (node == EXPR_NONE: empty slot).
typedef struct expr_memo_entry {
    expr_id node;
    int32_t var;
    expr_id result;
} expr_memo_entry;

/// Hash-consing table slot: a node id (EXPR_NONE: empty) and its hash, compared before the
/// node itself is read (saves a cache miss per probe).
typedef struct expr_slot {
    expr_id id;
    uint32_t hash;
} expr_slot;

struct expr_pool {
    expr_node *nodes;         // count nodes, in id order
    int32_t count, capacity;
    expr_slot *table;         // hash-consing table, open addressing, power of 2
    uint32_t table_mask;      // table size - 1
    expr_memo_entry *memo;    // derivative memo (open addressing), power of 2 or NULL
    uint32_t memo_mask;
    uint32_t memo_count;
    dirac_error error;        // sticky: first failure since the last clear
};

/// Records a failure in the pool's sticky error (the first one is kept); returns EXPR_NONE.
#if defined(__GNUC__)
__attribute__((format(printf, 3, 4)))
#endif
expr_id expr_pool_fail(expr_pool *pool, dirac_status status, const char *format, ...);

/// Scalar semantics of the comparisons and of WHEN (expr.h), shared by expr_apply and the tape.
static inline double expr_compare(expr_kind kind, double a, double b)
{
    if (a != a || b != b)
        return a + b;   // NaN
    switch (kind) {
    case EXPR_LT: return a < b ? 1.0 : 0.0;
    case EXPR_LE: return a <= b ? 1.0 : 0.0;
    case EXPR_EQ: return a == b ? 1.0 : 0.0;
    default: return a != b ? 1.0 : 0.0;
    }
}

static inline double expr_when(double c, double a)
{
    if (c == 0.0)
        return 0.0;
    return c != c ? c : a;
}

/// 1 if id names an existing node.
static inline int expr_valid(const expr_pool *pool, expr_id id)
{
    return id >= 0 && id < pool->count;
}

/// 1 if the node may depend on variable `var` (its variable range contains var).
static inline int expr_may_depend(const expr_pool *pool, expr_id id, int32_t var)
{
    const expr_node *n = &pool->nodes[id];
    return n->lo <= var && var <= n->hi;
}

/// Map from node ids (or variable indices) to non-negative ints, used for the nodes of one
/// traversal so that its cost follows the nodes visited and not the size of the pool: open
/// addressing while sparse; a plain array (dense, -1 = absent) once expr_idmap_densify has
/// been called because the keys fill a good part of [0, dense_size).
typedef struct expr_idmap {
    int32_t *keys;     // EXPR_NONE: empty
    int32_t *values;
    uint32_t mask;     // size - 1, size a power of 2
    uint32_t count;
    int32_t *dense;    // NULL, or values of keys 0 .. dense_size-1
    int32_t dense_size;
} expr_idmap;

/// Empty map for about `expected` keys; 0, or -1 when out of memory.
int expr_idmap_init(expr_idmap *map, uint32_t expected);
/// Inserts key -> value if key is absent: 1 inserted, 0 already present, -1 out of memory.
int expr_idmap_insert(expr_idmap *map, int32_t key, int32_t value);
/// Address of the value of key, or NULL if absent.
int32_t *expr_idmap_find(const expr_idmap *map, int32_t key);
/// Switches to the array form for keys 0 .. size-1 (all present keys must be below size);
/// 0, or -1 when out of memory (the map is unchanged).
int expr_idmap_densify(expr_idmap *map, int32_t size);
void expr_idmap_free(expr_idmap *map);

/// All nodes reachable from the `count` ids, in increasing id order: *list (malloc'ed) and
/// *length; if `position` is not NULL it receives a map id -> index in *list (the caller
/// frees it with expr_idmap_free). The ids must be valid. Iterative (explicit stack); the
/// cost is O(k log k) for k nodes reached, whatever the size of the pool.
dirac_status expr_collect(const expr_pool *pool, int count, const expr_id *ids, expr_id **list,
                          int32_t *length, expr_idmap *position, dirac_error *err);

#endif
