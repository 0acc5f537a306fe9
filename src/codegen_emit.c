// C source for a model's groups of expressions (src/codegen.h).
//
// Every node reachable from an output gets the set of groups that need it (a bit mask: a
// node's mask is the union of its parents', so a child's mask contains its parent's). The
// nodes are emitted sorted by (number of groups descending, mask, id): children come before
// parents (a child has at least its parent's groups, and the same mask sorts by id), and
// nodes of one mask form one block `if (what & MASK) { ... }`, so a subset of the groups
// computes exactly the nodes it needs and the groups asked for together share every common
// subexpression.
//
// Size: the statements are cut into functions of CHUNK_STATEMENTS and files of
// FILE_CHUNKS functions, so the compiler's time stays linear in the model's size; a value read
// by a later function than its own is kept in w[] (a "spill"), every other one in a local.
//
// Each statement is the operation the tape performs (src/expr_tape.c: x - c as x - c, x^2 as
// x*x, x^n by the same binary powering, the same comparisons and selections), so the compiled
// code (without contraction into fused multiply-adds) gives the tape's numbers. Constants
// are read from the table k, except the integer exponents that pick the powering.
#include "codegen.h"
#include "codegen_families.h"

#include "error.h"
#include "text.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define CHUNK_STATEMENTS 250   // statements per function
#define FILE_CHUNKS 64          // functions per file
#define POWI_LIMIT 1024.0       // the tape's limit of integer powers by multiplication

static void put(text_buffer *b, const char *s)
{
    text_buffer_append(b, s, strlen(s));
}

static void put_long(text_buffer *b, long v)
{
    char digits[24];
    int n = 0;
    unsigned long u = v < 0 ? (unsigned long)(-(v + 1)) + 1u : (unsigned long)v;
    do {
        digits[sizeof digits - 1 - (size_t)n++] = (char)('0' + (int)(u % 10u));
        u /= 10u;
    } while (u);
    if (v < 0)
        digits[sizeof digits - 1 - (size_t)n++] = '-';
    text_buffer_append(b, digits + sizeof digits - (size_t)n, (size_t)n);
}

static void put_mask(text_buffer *b, uint32_t mask)
{
    static const char hex[] = "0123456789abcdef";
    char s[16];
    int n = 0;
    s[n++] = '0';
    s[n++] = 'x';
    for (int shift = 28; shift >= 0; shift -= 4)
        s[n++] = hex[(mask >> shift) & 15u];
    s[n++] = 'u';
    text_buffer_append(b, s, (size_t)n);
}

// ---- the emitter's state ------------------------------------------------------------------

typedef struct emit_node {
    uint32_t mask;
    int32_t groups;    // bits set in mask
    expr_id id;
} emit_node;

typedef struct emitter {
    const expr_pool *pool;
    uint32_t *mask;         // per pool id: groups needing the node
    int32_t *order;         // per pool id: statement number, -1 for leaves and unused nodes
    int32_t *spill;         // per pool id: slot in w, -1 when kept in a local
    int32_t *constant;      // per pool id: index in k, -1 before its first use
    int32_t *first_output, *next_output;   // per pool id / per output: outputs of a node
    int32_t *output_group, *output_index;  // per output
    emit_node *nodes;       // the statements in emission order
    int32_t count;
    int32_t spill_count;    // doubles of w before the sink
    int32_t leaf_count;     // outputs that are inputs or constants
    int32_t *leaf_group, *leaf_index;
    expr_id *leaf_id;
    double *constants;
    int constant_count, constant_capacity;
    int failed;
    // a family's loop body being emitted (codegen_families.h): per pool id, the node's local
    // u<n> (-1: none) or the leaf's slot (-1: none), and the family
    int32_t *body_local, *body_slot;
    const codegen_family *family;
    codegen_families *families;               // index rows and per-member constants
    int slot_base[FAMILY_MAX_NODES];          // per slot of per-member constants: k[] index
    // a function of sums (codegen_families.h, chains): per pool id, the node's local v<n>
    // (-1: none), the ids set (to reset them), the chains' lengths
    int32_t *fn_local;
    expr_id *fn_ids;
    long fn_count, fn_capacity;
    int32_t fn_next;
    const int32_t *chain_length;
    codegen_walk *walk;      // scratch of the sums' decompositions
    long chain_statements;   // statements of the sums' functions
} emitter;

static int by_groups_mask_id(const void *pa, const void *pb)
{
    const emit_node *a = pa, *b = pb;
    if (a->groups != b->groups)
        return a->groups > b->groups ? -1 : 1;
    if (a->mask != b->mask)
        return a->mask < b->mask ? -1 : 1;
    return a->id < b->id ? -1 : a->id > b->id;
}

static int is_leaf(expr_kind kind)
{
    return kind == EXPR_CONST || kind == EXPR_VAR;
}

static int chunk_of(int32_t statement)
{
    return statement / CHUNK_STATEMENTS;
}

// the exponent of x^e when the tape multiplies (x*x or binary powering); 0 otherwise
static int integer_exponent(const expr_pool *pool, expr_id node, long *exponent)
{
    if (expr_kind_of(pool, node) != EXPR_POW)
        return 0;
    expr_id b = expr_child(pool, node, 1);
    if (expr_kind_of(pool, b) != EXPR_CONST)
        return 0;
    double e = expr_const_value(pool, b);
    if (!(e == floor(e) && fabs(e) <= POWI_LIMIT))
        return 0;
    *exponent = (long)e;
    return 1;
}

// appends a value to the constant table k; its index
static int append_constant(emitter *em, double value)
{
    if (em->constant_count == em->constant_capacity) {
        int capacity = em->constant_capacity ? 2 * em->constant_capacity : 64;
        double *grown = realloc(em->constants, (size_t)capacity * sizeof *grown);
        if (!grown) {
            em->failed = 1;
            return 0;
        }
        em->constants = grown;
        em->constant_capacity = capacity;
    }
    em->constants[em->constant_count] = value;
    return em->constant_count++;
}

static int constant_index(emitter *em, expr_id id)
{
    if (em->constant[id] < 0)
        em->constant[id] = append_constant(em, expr_const_value(em->pool, id));
    return em->constant[id];
}

// "B + S * i", or B alone when S is 0
static void put_affine(text_buffer *b, long base, long stride)
{
    put_long(b, base);
    if (stride) {
        put(b, " + ");
        put_long(b, stride);
        put(b, " * i");
    }
}

// the C text of leaf slot j of the family being emitted, in the loop over its members i
static void put_slot(emitter *em, text_buffer *b, int j)
{
    const codegen_family *f = em->family;
    const family_column *c = &f->slot[j];
    if (expr_kind_of(em->pool, f->slot_leaf[j]) == EXPR_CONST) {
        put(b, "k[");
        if (c->form == COLUMN_VALUES)
            put_affine(b, em->slot_base[j], 1);
        else
            put_long(b, constant_index(em, f->slot_leaf[j]));
        put(b, "]");
        return;
    }
    put(b, "x[");
    if (c->form == COLUMN_TABLE) {
        put(b, "row[");
        put_long(b, c->column);
        put(b, "]");
    } else {
        put_affine(b, c->base, c->stride);
    }
    put(b, "]");
}

// the C text of operand `id` read by a statement of chunk `chunk`
static void put_operand(emitter *em, text_buffer *b, expr_id id, int chunk)
{
    if (em->family) {   // inside a family's loop: the body's locals and the leaf columns
        if (em->body_slot[id] >= 0) {
            put_slot(em, b, em->body_slot[id]);
        } else {
            put(b, "u");
            put_long(b, em->body_local[id]);
        }
        return;
    }
    expr_kind kind = expr_kind_of(em->pool, id);
    if (em->fn_local && !is_leaf(kind) && em->fn_local[id] >= 0) {   // in a function of sums
        put(b, "v");
        put_long(b, em->fn_local[id]);
        return;
    }
    if (kind == EXPR_CONST) {
        put(b, "k[");
        put_long(b, constant_index(em, id));
        put(b, "]");
    } else if (kind == EXPR_VAR) {
        put(b, "x[");
        put_long(b, expr_var_index(em->pool, id));
        put(b, "]");
    } else if (em->spill[id] >= 0 && chunk_of(em->order[id]) != chunk) {
        put(b, "w[");
        put_long(b, em->spill[id]);
        put(b, "]");
    } else {
        put(b, "t");
        put_long(b, em->order[id]);
    }
}

// the C function of a built-in function's node kind: the c_call column of its row in
// builtin_functions.h (the call the tape and expr_apply make), NULL for other kinds
static const char *builtin_c_call(expr_kind kind)
{
    switch (kind) {
#define C_CALL(id, name, arity, c_call, ...) \
    case EXPR_##id: return #c_call;
        BUILTIN_MATH_LIST(C_CALL)
#undef C_CALL
    default: return NULL;
    }
}

// the right-hand side of node id's statement
static void put_expression(emitter *em, text_buffer *b, expr_id id, int chunk)
{
    const expr_pool *pool = em->pool;
    expr_kind kind = expr_kind_of(pool, id);
    expr_id a = expr_child(pool, id, 0), c = expr_child(pool, id, 1);
    const char *infix = NULL, *call = NULL;
    switch (kind) {
    case EXPR_ADD: infix = " + "; break;
    case EXPR_SUB: infix = " - "; break;
    case EXPR_MUL: infix = " * "; break;
    case EXPR_DIV: infix = " / "; break;
    case EXPR_POW: {
        long e;
        if (integer_exponent(pool, id, &e)) {
            if (e == 2) {   // the tape's x*x
                put_operand(em, b, a, chunk);
                put(b, " * ");
                put_operand(em, b, a, chunk);
            } else {
                put(b, "dg_powi(");
                put_operand(em, b, a, chunk);
                put(b, ", ");
                put_long(b, e);
                put(b, ")");
            }
            return;
        }
        call = "pow";
        break;
    }
    case EXPR_LT: call = "dg_lt"; break;
    case EXPR_LE: call = "dg_le"; break;
    case EXPR_EQ: call = "dg_eq"; break;
    case EXPR_NE: call = "dg_ne"; break;
    case EXPR_WHEN: call = "dg_when"; break;
    default:
        call = kind == EXPR_NEG ? "-" : builtin_c_call(kind);
        if (expr_kind_arity(kind) == 1) {
            put(b, call);
            put(b, "(");
            put_operand(em, b, a, chunk);
            put(b, ")");
            return;
        }
    }
    if (infix) {
        put_operand(em, b, a, chunk);
        put(b, infix);
        put_operand(em, b, c, chunk);
        return;
    }
    put(b, call);
    put(b, "(");
    put_operand(em, b, a, chunk);
    put(b, ", ");
    put_operand(em, b, c, chunk);
    put(b, ")");
}

// oG[i] = VALUE; for every output of node id. Unconditional: the output array of a group not
// asked for is the sink in w (a branch per output makes the compiler's time quadratic).
static void put_outputs(emitter *em, text_buffer *b, expr_id id, int chunk)
{
    for (int32_t r = em->first_output[id]; r >= 0; r = em->next_output[r]) {
        put(b, "    o");
        put_long(b, em->output_group[r]);
        put(b, "[");
        put_long(b, em->output_index[r]);
        put(b, "] = ");
        put_operand(em, b, id, chunk);
        put(b, ";\n");
    }
}

// the output arrays of the groups in `written`, as restrict locals (the sink when not asked for)
static void put_output_arrays(emitter *em, text_buffer *b, uint32_t written)
{
    for (int g = 0; g < CODEGEN_MAX_GROUPS; g++)
        if (written & (1u << g)) {
            put(b, "    double *restrict o");
            put_long(b, g);
            put(b, " = what & ");
            put_mask(b, 1u << g);
            put(b, " ? o[");
            put_long(b, g);
            put(b, "] : w + ");
            put_long(b, em->spill_count);
            put(b, ";\n");
        }
}

// Sources of more statements are compiled at -Og: 40 % of -O2's time on this straight-line
// code, the same instructions per step (examples/scale/lattice, ziegler8, chain: within
// 0.1 %); the pragma repeats the options that keep the tape's rounding, since it resets what
// it names. Small sources keep -O2.
#define CODEGEN_LARGE_STATEMENTS 300
static const char large_prelude[] =
    "#pragma GCC optimize (\"Og\", \"fp-contract=off\", \"no-math-errno\", "
    "\"no-tree-vectorize\", \"no-tree-slp-vectorize\")\n";

static const char prelude[] =
    "/* generated by dirac: the model's groups of expressions (src/codegen_emit.c) */\n"
    "#include <math.h>\n"
    "static inline double dg_powi(double x, int n)\n"
    "{\n"
    "    unsigned m = n < 0 ? (unsigned)(-(long long)n) : (unsigned)n;\n"
    "    double r = 1.0;\n"
    "    while (m) {\n"
    "        if (m & 1u)\n"
    "            r *= x;\n"
    "        x *= x;\n"
    "        m >>= 1;\n"
    "    }\n"
    "    return n < 0 ? 1.0 / r : r;\n"
    "}\n"
    "static inline double builtin_sign(double x) { return "
    BUILTIN_STRING(BUILTIN_SIGN_BODY(x)) "; }\n"
    "static inline double dg_nan(double a, double b) { return a != a || b != b; }\n"
    "static inline double dg_lt(double a, double b) { return dg_nan(a, b) ? a + b : a < b ? 1.0 : 0.0; }\n"
    "static inline double dg_le(double a, double b) { return dg_nan(a, b) ? a + b : a <= b ? 1.0 : 0.0; }\n"
    "static inline double dg_eq(double a, double b) { return dg_nan(a, b) ? a + b : a == b ? 1.0 : 0.0; }\n"
    "static inline double dg_ne(double a, double b) { return dg_nan(a, b) ? a + b : a != b ? 1.0 : 0.0; }\n"
    "static inline double dg_when(double c, double a) { return c == 0.0 ? 0.0 : c != c ? c : a; }\n"
    "#define DG_ARGS const double *restrict x, const double *restrict k, unsigned what, "
    "double *const *restrict o, double *restrict w, const int *restrict ix\n";

// How a function is declared: called from another file (hidden), kept out of line (static
// noinline) or, in a small source (INLINE_STATEMENTS, no loops), inlinable into the entry
// dg_eval and the stage kernels (codegen_stage.h), which then compute only the groups of their
// constant `what` (larger sources stay out of line, so the compiler's time stays linear).
enum { LINKAGE_STATIC, LINKAGE_EXPORTED, LINKAGE_INLINE };
#define INLINE_STATEMENTS 400

static void put_function_head(text_buffer *b, int function, int linkage)
{
    put(b, linkage == LINKAGE_EXPORTED
               ? "__attribute__((noinline, visibility(\"hidden\"))) void dg_f"
           : linkage == LINKAGE_INLINE ? "static inline void dg_f"
                                        : "__attribute__((noinline)) static void dg_f");
    put_long(b, function);
    put(b, "(DG_ARGS)\n{\n    (void)x, (void)k, (void)what, (void)o, (void)w, (void)ix;\n");
}

// one function: statements first .. last-1
static void emit_chunk(emitter *em, text_buffer *b, int chunk, int32_t first, int32_t last,
                       int linkage)
{
    put_function_head(b, chunk, linkage);
    uint32_t written = 0;
    for (int32_t s = first; s < last; s++)
        for (int32_t r = em->first_output[em->nodes[s].id]; r >= 0; r = em->next_output[r])
            written |= 1u << em->output_group[r];
    put_output_arrays(em, b, written);
    for (int32_t s = first; s < last; s += 16) {
        put(b, "    double ");
        for (int32_t j = s; j < last && j < s + 16; j++) {
            put(b, j > s ? ", t" : "t");
            put_long(b, j);
        }
        put(b, ";\n");
    }
    uint32_t open = 0;
    for (int32_t s = first; s < last; s++) {
        const emit_node *node = &em->nodes[s];
        if (node->mask != open) {
            if (open)
                put(b, "    }\n");
            put(b, "    if (what & ");
            put_mask(b, node->mask);
            put(b, ") {\n");
            open = node->mask;
        }
        put(b, "    t");
        put_long(b, s);
        put(b, " = ");
        put_expression(em, b, node->id, chunk);
        put(b, ";\n");
        if (em->spill[node->id] >= 0) {
            put(b, "    w[");
            put_long(b, em->spill[node->id]);
            put(b, "] = t");
            put_long(b, s);
            put(b, ";\n");
        }
        put_outputs(em, b, node->id, chunk);
    }
    if (open)
        put(b, "    }\n");
    put(b, "}\n");
}

// one function writing the outputs first .. last-1 that are inputs or constants
static void emit_leaf_chunk(emitter *em, text_buffer *b, int function, int32_t first,
                            int32_t last, int linkage)
{
    put_function_head(b, function, linkage);
    uint32_t written = 0;
    for (int32_t r = first; r < last; r++)
        written |= 1u << em->leaf_group[r];
    put_output_arrays(em, b, written);
    for (int32_t r = first; r < last; r++) {
        put(b, "    o");
        put_long(b, em->leaf_group[r]);
        put(b, "[");
        put_long(b, em->leaf_index[r]);
        put(b, "] = ");
        put_operand(em, b, em->leaf_id[r], -1);
        put(b, ";\n");
    }
    put(b, "}\n");
}

// one function: the loop over the members of a family, its body the shape's operations
// for (i ...) { the body's statements; out[...] = body } for a family's loop, or with a
// chain run (`accumulate`), v<acc> = v<acc> op body (or body op v<acc>: the tape's order)
static int put_loop(emitter *em, text_buffer *b, const codegen_family *f,
                    const chain_run *accumulate, int32_t acc)
{
    expr_id body[FAMILY_MAX_NODES];
    int count = codegen_family_body(em->pool, f, body);
    for (int j = 0; j < f->slot_count; j++)
        em->body_slot[f->slot_leaf[j]] = j;
    for (int n = 0; n < count; n++)
        if (em->body_slot[body[n]] < 0)
            em->body_local[body[n]] = n;
    for (int j = 0; j < f->slot_count; j++)
        if (f->slot[j].form == COLUMN_VALUES) {   // k[base + i]: member i's constant
            em->slot_base[j] = em->constant_count;
            for (int i = 0; i < f->members; i++)
                append_constant(em, em->families->values[f->slot[j].values + i]);
        }
    put(b, "    for (long i = 0; i < ");
    put_long(b, f->members);
    put(b, "; i++) {\n");
    if (f->width > 0) {
        put(b, "        const int *restrict row = ix + ");
        put_long(b, f->table);
        put(b, " + ");
        put_long(b, f->width);
        put(b, " * i;\n");
    }
    em->family = f;
    for (int n = 0; n < count; n++) {
        if (em->body_slot[body[n]] >= 0)
            continue;
        put(b, "        const double u");
        put_long(b, n);
        put(b, " = ");
        put_expression(em, b, body[n], -1);
        put(b, ";\n");
    }
    if (accumulate) {
        put(b, "        v");
        put_long(b, acc);
        put(b, " = ");
        if (accumulate->accumulator_right) {
            put_operand(em, b, f->root, -1);
            put(b, accumulate->op == EXPR_ADD ? " + v" : " - v");
            put_long(b, acc);
        } else {
            put(b, "v");
            put_long(b, acc);
            put(b, accumulate->op == EXPR_ADD ? " + " : " - ");
            put_operand(em, b, f->root, -1);
        }
        put(b, ";\n");
    } else {
        put(b, "        out[");
        if (f->output.form == COLUMN_TABLE)
            put(b, "row[0]");
        else
            put_affine(b, f->output.base, f->output.stride);
        put(b, "] = ");
        put_operand(em, b, f->root, -1);
        put(b, ";\n");
    }
    put(b, "    }\n");
    em->family = NULL;
    for (int n = 0; n < count; n++)
        em->body_local[body[n]] = em->body_slot[body[n]] = -1;
    return count;
}

// one function: the loop over the members of a family, its body the shape's operations
static void emit_family(emitter *em, text_buffer *b, int function, const codegen_family *f,
                        int linkage)
{
    put_function_head(b, function, linkage);
    put(b, "    if (!(what & ");
    put_mask(b, 1u << f->group);
    put(b, "))\n        return;\n    double *restrict out = o[");
    put_long(b, f->group);
    put(b, "];\n");
    (void)put_loop(em, b, f, NULL, -1);
    put(b, "}\n");
}

// ---- functions of sums (codegen_families.h, chains) ----------------------------------------

// node id's value is local v<n> of the function being emitted
static void set_local(emitter *em, expr_id id, int32_t n)
{
    if (em->fn_count == em->fn_capacity) {
        long capacity = 2 * em->fn_capacity + 64;
        expr_id *grown = realloc(em->fn_ids, (size_t)capacity * sizeof *grown);
        if (!grown) {
            em->failed = 1;
            return;
        }
        em->fn_ids = grown;
        em->fn_capacity = capacity;
    }
    em->fn_ids[em->fn_count++] = id;
    em->fn_local[id] = n;
}

static void put_value(emitter *em, text_buffer *b, expr_id id);

// v<n> = the chain below id: its bottom, then link by link, runs of one shape as loops
static void put_chain(emitter *em, text_buffer *b, expr_id id)
{
    codegen_chain chain;
    dirac_error err;
    if (codegen_chain_runs(em->pool, em->chain_length, id, em->families, em->walk, &chain,
                           &err) != DIRAC_OK) {
        em->failed = 1;
        return;
    }
    put_value(em, b, chain.bottom);
    for (int k = 0; k < chain.run_count; k++)   // the single terms' values first
        if (chain.run[k].loop.members == 1)
            put_value(em, b, chain.run[k].loop.root);
    int32_t acc = em->fn_next++;
    put(b, "    double v");
    put_long(b, acc);
    put(b, " = ");
    put_operand(em, b, chain.bottom, -1);
    put(b, ";\n");
    em->chain_statements++;
    for (int k = 0; k < chain.run_count; k++) {
        const chain_run *r = &chain.run[k];
        if (r->loop.members > 1) {
            em->chain_statements += put_loop(em, b, &r->loop, r, acc);
            continue;
        }
        put(b, "    v");
        put_long(b, acc);
        put(b, " = ");
        if (r->accumulator_right) {
            put_operand(em, b, r->loop.root, -1);
            put(b, r->op == EXPR_ADD ? " + v" : " - v");
            put_long(b, acc);
        } else {
            put(b, "v");
            put_long(b, acc);
            put(b, r->op == EXPR_ADD ? " + " : " - ");
            put_operand(em, b, r->loop.root, -1);
        }
        put(b, ";\n");
        em->chain_statements++;
    }
    set_local(em, id, acc);   // the node's value is the accumulator
    codegen_chain_free(&chain);
}

// the statements computing node id (and what it needs that is not computed yet) in the
// function being emitted: straight-line code, long sums as chains
static void put_value(emitter *em, text_buffer *b, expr_id id)
{
    const expr_pool *pool = em->pool;
    if (is_leaf(expr_kind_of(pool, id)) || em->fn_local[id] >= 0)
        return;
    struct { expr_id id; int expanded; } *stack = malloc(64 * sizeof *stack);
    long sp = 0, capacity = 64;
    if (!stack) {
        em->failed = 1;
        return;
    }
    stack[sp].id = id;
    stack[sp++].expanded = 0;
    while (sp > 0 && !em->failed) {
        expr_id top = stack[sp - 1].id;
        if (em->fn_local[top] >= 0) {
            sp--;
            continue;
        }
        int chain = em->chain_length[top] >= CHAIN_MIN_LINKS;
        if (!chain && !stack[sp - 1].expanded) {
            stack[sp - 1].expanded = 1;
            if (sp + 2 > capacity) {
                capacity *= 2;
                void *grown = realloc(stack, (size_t)capacity * sizeof *stack);
                if (!grown) {
                    em->failed = 1;
                    break;
                }
                stack = grown;
            }
            for (int which = 1; which >= 0; which--) {
                expr_id child = expr_child(pool, top, which);
                if (child != EXPR_NONE && !is_leaf(expr_kind_of(pool, child)) &&
                    em->fn_local[child] < 0) {
                    stack[sp].id = child;
                    stack[sp++].expanded = 0;
                }
            }
            continue;
        }
        sp--;
        if (chain) {
            put_chain(em, b, top);
            continue;
        }
        put(b, "    const double v");
        put_long(b, em->fn_next);
        put(b, " = ");
        put_expression(em, b, top, -1);
        put(b, ";\n");
        set_local(em, top, em->fn_next++);
        em->chain_statements++;
    }
    free(stack);
}

// one function: output `index` of group g, a long sum (its chain)
static void emit_sum_output(emitter *em, text_buffer *b, int function, int g, int index,
                            expr_id root, int linkage)
{
    put_function_head(b, function, linkage);
    put(b, "    if (!(what & ");
    put_mask(b, 1u << g);
    put(b, "))\n        return;\n");
    put_value(em, b, root);
    put(b, "    o[");
    put_long(b, g);
    put(b, "][");
    put_long(b, index);
    put(b, "] = ");
    put_operand(em, b, root, -1);
    put(b, ";\n}\n");
    for (long k = 0; k < em->fn_count; k++)
        em->fn_local[em->fn_ids[k]] = -1;
    em->fn_count = 0;
    em->fn_next = 0;
}

// marks the groups needing each node, lists the statements in emission order, and decides
// which values are kept in w
static dirac_status plan(emitter *em, int n_groups, const expr_id *const *ids,
                         const int *counts, const uint8_t *looped, dirac_error *err)
{
    const expr_pool *pool = em->pool;
    int32_t size = expr_pool_size(pool), top = -1;
    for (int g = 0, o = 0; g < n_groups; g++)
        for (int r = 0; r < counts[g]; r++, o++) {
            if (looped && looped[o])
                continue;
            em->mask[ids[g][r]] |= 1u << g;
            if (ids[g][r] > top)
                top = ids[g][r];
        }
    int32_t count = 0;
    for (int32_t id = top; id >= 0; id--) {   // parents before children
        if (!em->mask[id] || is_leaf(expr_kind_of(pool, id)))
            continue;
        if (++count > CODEGEN_MAX_STATEMENTS)   // stop early: the tapes will evaluate it
            return error_set(err, DIRAC_ERR_SIZE, "the model is too large for generated code "
                             "(more than %ld statements)", CODEGEN_MAX_STATEMENTS);
        for (int which = 0; which < 2; which++) {
            expr_id child = expr_child(pool, id, which);
            if (child != EXPR_NONE)
                em->mask[child] |= em->mask[id];
        }
    }
    em->nodes = malloc(((size_t)count + 1) * sizeof *em->nodes);
    if (!em->nodes)
        return error_set(err, DIRAC_ERR_NOMEM, "out of memory");
    for (int32_t id = 0; id <= top && id < size; id++) {
        if (!em->mask[id] || is_leaf(expr_kind_of(pool, id)))
            continue;
        emit_node *node = &em->nodes[em->count++];
        node->mask = em->mask[id];
        node->groups = 0;
        for (uint32_t m = node->mask; m; m &= m - 1u)
            node->groups++;
        node->id = id;
    }
    qsort(em->nodes, (size_t)em->count, sizeof *em->nodes, by_groups_mask_id);
    for (int32_t s = 0; s < em->count; s++)
        em->order[em->nodes[s].id] = s;
    // a value read by a later function than its own lives in w
    for (int32_t s = 0; s < em->count; s++) {
        expr_id id = em->nodes[s].id;
        for (int which = 0; which < 2; which++) {
            expr_id child = expr_child(pool, id, which);
            if (child == EXPR_NONE || is_leaf(expr_kind_of(pool, child)))
                continue;
            if (chunk_of(em->order[child]) != chunk_of(s) && em->spill[child] < 0)
                em->spill[child] = em->spill_count++;
        }
    }
    return DIRAC_OK;
}

// Statements of straight-line code for the outputs of group `only` (-1: all) that no loop
// writes (operations reachable from them), counting no further than `stop`; 0 when out of
// memory.
static long straight_line_statements(const expr_pool *pool, int n_groups,
                                     const expr_id *const *ids, const int *counts,
                                     const uint8_t *looped, int only, long stop)
{
    int32_t size = expr_pool_size(pool), top = -1;
    uint8_t *needed = calloc((size_t)size + 1, 1);
    if (!needed)
        return 0;
    for (int g = 0, o = 0; g < n_groups; g++)
        for (int r = 0; r < counts[g]; r++, o++) {
            if ((only >= 0 && g != only) || (looped && looped[o]))
                continue;
            needed[ids[g][r]] = 1;
            top = ids[g][r] > top ? ids[g][r] : top;
        }
    long count = 0;
    for (int32_t id = top; id >= 0 && count <= stop; id--) {   // parents before children
        if (!needed[id] || is_leaf(expr_kind_of(pool, id)))
            continue;
        count++;
        for (int which = 0; which < 2; which++) {
            expr_id child = expr_child(pool, id, which);
            if (child != EXPR_NONE)
                needed[child] = 1;
        }
    }
    free(needed);
    return count;
}

void codegen_source_free(codegen_source *src)
{
    for (int f = 0; f < src->file_count; f++)
        free(src->files[f]);
    free(src->files);
    free(src->constants);
    free(src->index);
    memset(src, 0, sizeof *src);
}

dirac_status codegen_emit(const expr_pool *pool, int n_groups, const expr_id *const *ids,
                          const int *counts, codegen_source *out, dirac_error *err)
{
    memset(out, 0, sizeof *out);
    if (n_groups < 0 || n_groups > CODEGEN_MAX_GROUPS)
        return error_set(err, DIRAC_ERR_ARGUMENT, "codegen_emit: %d groups", n_groups);
    size_t size = (size_t)expr_pool_size(pool) + 1;
    int total_outputs = 0;
    for (int g = 0; g < n_groups; g++)
        total_outputs += counts[g];
    emitter em = { .pool = pool };
    em.mask = calloc(size, sizeof *em.mask);
    em.order = malloc(size * sizeof *em.order);
    em.spill = malloc(size * sizeof *em.spill);
    em.constant = malloc(size * sizeof *em.constant);
    em.first_output = malloc(size * sizeof *em.first_output);
    size_t outputs = (size_t)total_outputs + 1;
    em.next_output = malloc(outputs * sizeof *em.next_output);
    em.output_group = malloc(outputs * sizeof *em.output_group);
    em.output_index = malloc(outputs * sizeof *em.output_index);
    em.body_local = malloc(size * sizeof *em.body_local);
    em.body_slot = malloc(size * sizeof *em.body_slot);
    em.fn_local = malloc(size * sizeof *em.fn_local);
    codegen_families families = { 0 };
    int32_t *chain_length = NULL;
    int sum_count = 0, *sum_output = NULL;   // outputs evaluated as sums (numbering r)
    dirac_status status = DIRAC_OK;
    text_buffer *files = NULL;
    int file_count = 0;
    if (!em.mask || !em.order || !em.spill || !em.constant || !em.first_output ||
        !em.next_output || !em.output_group || !em.output_index || !em.body_local ||
        !em.body_slot || !em.fn_local) {
        status = error_set(err, DIRAC_ERR_NOMEM, "out of memory");
        goto done;
    }
    for (size_t i = 0; i < size; i++)
        em.order[i] = em.spill[i] = em.constant[i] = em.first_output[i] = em.body_local[i] =
            em.body_slot[i] = em.fn_local[i] = -1;
    // large models: the outputs of one shape as loops (codegen_families.h); small ones stay
    // straight-line code, whose shared subexpressions cost less
    long straight = straight_line_statements(pool, n_groups, ids, counts, NULL, -1,
                                             CODEGEN_MAX_STATEMENTS + 1);
    if (straight > FAMILY_MIN_STATEMENTS) {
        status = codegen_find_families(pool, n_groups, ids, counts, &families, err);
        if (status != DIRAC_OK)
            goto done;
        em.families = &families;
        // long sums over families: outputs of their own, accumulated in loops
        chain_length = codegen_chain_lengths(pool);
        sum_output = malloc(((size_t)total_outputs + 1) * sizeof *sum_output);
        em.walk = codegen_walk_create(pool);
        if (!chain_length || !sum_output || !em.walk) {
            status = error_set(err, DIRAC_ERR_NOMEM, "out of memory");
            goto done;
        }
        em.chain_length = chain_length;
        // sums that share their terms (outputs S + x[i] of one long S) would be walked once
        // per output: a budget of walked nodes keeps the work linear in the pool
        long budget = 4L * (long)size;
        for (int g = 0, r = 0; g < n_groups; g++)
            for (int i = 0; i < counts[g]; i++, r++) {
                if (families.looped[r] || chain_length[ids[g][i]] < CHAIN_MIN_LINKS ||
                    budget < 0)
                    continue;
                codegen_chain chain;
                status = codegen_chain_runs(pool, chain_length, ids[g][i], NULL, em.walk, &chain,
                                            err);
                if (status != DIRAC_OK)
                    goto done;
                budget -= 2 * chain.walked;   // now and at emission
                if (chain.singles <= CHAIN_MAX_SINGLES && budget >= 0) {
                    families.looped[r] = 1;
                    sum_output[sum_count++] = r;
                }
                codegen_chain_free(&chain);
            }
        // a group whose outputs are still long straight-line code (a sum over a family, like
        // the Lagrangian's value) stays on its tape: compile time independent of the size
        for (int g = 0, o = 0; g < n_groups && (families.count > 0 || sum_count > 0);
             o += counts[g++])
            if (straight_line_statements(pool, n_groups, ids, counts, families.looped, g,
                                         FAMILY_GROUP_STATEMENTS) > FAMILY_GROUP_STATEMENTS) {
                out->tape_groups |= 1u << g;
                memset(families.looped + o, 1, (size_t)counts[g]);
            }
        // loops recompute what straight-line code shares between outputs: worth it only when
        // they make the code much smaller (or when straight-line code is too large)
        long rest = straight_line_statements(pool, n_groups, ids, counts, families.looped, -1,
                                             straight);
        if (straight <= CODEGEN_MAX_STATEMENTS &&
            rest + families.nodes > straight / FAMILY_MIN_SHRINK) {
            codegen_families_free(&families);
            em.families = NULL;
            sum_count = 0;
            out->tape_groups = 0;
        }
    }
    const uint8_t *looped = families.count > 0 || sum_count > 0 ? families.looped : NULL;
    // outputs of each node, listed so that each node's outputs come in (group, index) order
    for (int g = n_groups - 1, r = total_outputs; g >= 0; g--)
        for (int i = counts[g] - 1; i >= 0; i--) {
            expr_id id = ids[g][i];
            r--;
            if (looped && looped[r])
                continue;
            em.output_group[r] = g;
            em.output_index[r] = i;
            em.next_output[r] = em.first_output[id];
            em.first_output[id] = r;
        }
    status = plan(&em, n_groups, ids, counts, looped, err);
    if (status != DIRAC_OK)
        goto done;

    // outputs that are inputs or constants: written by functions of their own
    for (int g = 0, r = 0; g < n_groups; g++)
        for (int i = 0; i < counts[g]; i++, r++)
            if (is_leaf(expr_kind_of(pool, ids[g][i])) && !(looped && looped[r]))
                em.leaf_count++;
    em.leaf_group = malloc(((size_t)em.leaf_count + 1) * sizeof *em.leaf_group);
    em.leaf_index = malloc(((size_t)em.leaf_count + 1) * sizeof *em.leaf_index);
    em.leaf_id = malloc(((size_t)em.leaf_count + 1) * sizeof *em.leaf_id);
    if (!em.leaf_group || !em.leaf_index || !em.leaf_id) {
        status = error_set(err, DIRAC_ERR_NOMEM, "out of memory");
        goto done;
    }
    for (int g = 0, r = 0, o = 0; g < n_groups; g++)
        for (int i = 0; i < counts[g]; i++, o++)
            if (is_leaf(expr_kind_of(pool, ids[g][i])) && !(looped && looped[o])) {
                em.leaf_group[r] = g;
                em.leaf_index[r] = i;
                em.leaf_id[r++] = ids[g][i];
            }
    int chunks = (em.count + CHUNK_STATEMENTS - 1) / CHUNK_STATEMENTS;
    int leaf_chunks = (em.leaf_count + CHUNK_STATEMENTS - 1) / CHUNK_STATEMENTS;
    int functions = chunks + leaf_chunks + families.count + sum_count;
    file_count = (functions + FILE_CHUNKS - 1) / FILE_CHUNKS;
    if (file_count == 0)
        file_count = 1;
    files = calloc((size_t)file_count, sizeof *files);
    if (!files) {
        status = error_set(err, DIRAC_ERR_NOMEM, "out of memory");
        goto done;
    }
    int large = em.count + em.leaf_count + families.nodes > CODEGEN_LARGE_STATEMENTS;
    int linkage = file_count > 1 ? LINKAGE_EXPORTED   // functions called from the last file
                   : em.count + em.leaf_count <= INLINE_STATEMENTS && !looped
                       ? LINKAGE_INLINE
                       : LINKAGE_STATIC;
    for (int f = 0; f < functions; f++) {
        text_buffer *b = &files[f / FILE_CHUNKS];
        if (f % FILE_CHUNKS == 0) {
            if (large)
                put(b, large_prelude);
            put(b, prelude);
        }
        if (f < chunks) {
            int32_t first = f * CHUNK_STATEMENTS;
            int32_t last = first + CHUNK_STATEMENTS < em.count ? first + CHUNK_STATEMENTS : em.count;
            emit_chunk(&em, b, f, first, last, linkage);
        } else if (f >= chunks + leaf_chunks + families.count) {
            int g = 0, i = sum_output[f - chunks - leaf_chunks - families.count];
            while (i >= counts[g])
                i -= counts[g++];
            emit_sum_output(&em, b, f, g, i, ids[g][i], linkage);
        } else if (f >= chunks + leaf_chunks) {
            emit_family(&em, b, f, &families.family[f - chunks - leaf_chunks], linkage);
        } else {
            int32_t first = (f - chunks) * CHUNK_STATEMENTS;
            int32_t last = first + CHUNK_STATEMENTS < em.leaf_count ? first + CHUNK_STATEMENTS
                                                                    : em.leaf_count;
            emit_leaf_chunk(&em, b, f, first, last, linkage);
        }
    }
    // the entry: the functions in order
    text_buffer *b = &files[file_count - 1];
    if (b->length == 0)   // no statements at all
        put(b, prelude);
    for (int f = 0; linkage == LINKAGE_EXPORTED && f < functions; f++) {
        put(b, "__attribute__((visibility(\"hidden\"))) void dg_f");
        put_long(b, f);
        put(b, "(DG_ARGS);\n");
    }
    put(b, "static inline void dg_eval(DG_ARGS)\n{\n");
    for (int f = 0; f < functions; f++) {
        put(b, "    dg_f");
        put_long(b, f);
        put(b, "(x, k, what, o, w, ix);\n");
    }
    put(b, "}\n__attribute__((visibility(\"default\"))) void dirac_generated_eval(DG_ARGS)\n{\n"
           "    dg_eval(x, k, what, o, w, ix);\n}\n");

    int failed = em.failed;
    for (int f = 0; f < file_count; f++)
        failed |= files[f].status != DIRAC_OK;
    if (failed) {
        status = error_set(err, DIRAC_ERR_NOMEM, "out of memory emitting the generated code");
        goto done;
    }
    out->files = malloc((size_t)file_count * sizeof *out->files);
    if (!out->files) {
        status = error_set(err, DIRAC_ERR_NOMEM, "out of memory");
        goto done;
    }
    for (int f = 0; f < file_count; f++) {
        out->files[f] = files[f].data;
        files[f].data = NULL;
    }
    out->file_count = file_count;
    out->constants = em.constants;
    em.constants = NULL;
    out->constant_count = em.constant_count;
    int largest = 0;
    for (int g = 0; g < n_groups; g++)
        largest = counts[g] > largest ? counts[g] : largest;
    out->work_size = em.spill_count + largest;   // spills, then the sink
    out->statements = em.count + em.leaf_count + families.nodes + em.chain_statements;
    out->index = families.index;
    families.index = NULL;
    out->index_count = families.index_count;
    out->functions = functions + 1;

done:
    for (int f = 0; files && f < file_count; f++)
        free(files[f].data);
    free(files);
    free(em.mask);
    free(em.order);
    free(em.spill);
    free(em.constant);
    free(em.first_output);
    free(em.next_output);
    free(em.output_group);
    free(em.output_index);
    free(em.nodes);
    free(em.leaf_group);
    free(em.leaf_index);
    free(em.leaf_id);
    free(em.constants);
    free(em.body_local);
    free(em.body_slot);
    free(em.fn_local);
    free(em.fn_ids);
    free(chain_length);
    free(sum_output);
    codegen_walk_free(em.walk);
    codegen_families_free(&families);
    return status;
}
