// Expansion of indexed families (spec_expand, declared in spec.h): `coordinate x[N]` becomes the
// coordinates x[1] .. x[N], indexed statements are repeated over their ranges, `x[i-1]` becomes
// the name of that element and `sum(i = A..B, E)` the chain E(A) + ... + E(B). The result is a
// new model of ordinary (flat) statements, checked by the resolve pass like a parsed file.
//
// Order of work for one model (and, recursively, for each component instance whose model has
// families):
//   1. parameters and lets, in definition order: their families' ranges (which may use only
//      earlier names), their elements, and the values of parameters and constant lets
//      (overrides first, then component arguments, then their own expressions);
//   2. coordinates, entropy variables and components (ranges may use any parameter); each
//      component instance whose model has families is expanded with its own parameter values;
//   3. every other statement, repeated over its ranges;
//   4. the name table (definition order, families expanded in place) and the resolve passes.
// Names are never rebuilt for references: an element's name is taken from the array of its
// kind (first element + row-major offset), so a reference costs O(1). Expressions are walked
// in postorder without recursion; a sum's body is walked once per index value with an explicit
// stack of the open sums. Everything is linear in the size of the result.
#include "parse.h"

#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

// --- data ----------------------------------------------------------------------------------

// One definition of an original model: where its elements are in the expanded arrays and, for
// a family of values or components, the ranges (rectangular: lo and size per index).
typedef struct xfam {
    int dims;
    int64_t lo[SPEC_INDEX_MAX], size[SPEC_INDEX_MAX];
    int32_t first;   // new index of its first element (a plain definition: its new index)
    int32_t count;   // its elements
} xfam;

// Kept with each expanded model: its original and the families of its definitions, so that
// names of its elements can be found from the model that includes it.
struct spec_expansion {
    const spec_model *orig;
    xfam *fams[SPEC_SYM_KIND_COUNT];   // per kind, per original index (NULL: no array)
};

// State of one spec_expand call.
typedef struct xglobal {
    spec *s;
    long budget;                       // elements + nodes still allowed
    bool over;                         // the budget ran out (reported)
    const spec_model **models;         // s->models as they were, and whether each needs work
    bool *needs;
    int model_count;
    // the expression being written
    spec_expr_node *out;
    int32_t *kids;
    int out_count, out_cap, kid_cap;
    // evaluation of whole constant expressions
    double *val;
    int val_cap;
    char *buf;                         // names being built
    int buf_cap;
} xglobal;

// One model instance being expanded.
typedef struct xctx {
    xglobal *g;
    spec *s;
    const spec_model *om;              // the original
    spec_model *nm;                    // the expansion
    spec_expansion *x;
    const char *prefix;                // "" or "cell[3]." (overrides, messages)
    const spec_component *via;         // the parent's component that makes this instance
    const double *via_values;          // values of its arguments
    spec_loc via_loc;
    double *pval;                      // value of each new parameter (NaN: unknown)
    int pval_cap;
    double *lval;                      // value of each new let (NaN: not constant)
    int lval_cap;
    int64_t env[SPEC_BINDERS_MAX];     // index values by slot
    const char *env_name[SPEC_BINDERS_MAX];
    int env_count;                     // slots in use (for messages)
    bool failed;
} xctx;

// Analysis of one original expression, done once for all its copies.
typedef struct xin {
    const spec_expr *e;
    int32_t *start;    // first node of each subtree
    int32_t *sum_at;   // the sum whose body starts at this node, or -1
    int32_t *map;      // node -> node written
    double *val;       // node -> value (nodes of indices and bounds)
    uint8_t *mark;     // 1: inside an index or a bound (evaluated, not written)
    uint8_t *uses;     // 1: the subtree uses an index
} xin;

static const spec_sym_kind array_kinds[] = {
    SPEC_SYM_PARAMETER, SPEC_SYM_COORDINATE, SPEC_SYM_LET, SPEC_SYM_ENTROPY, SPEC_SYM_COMPONENT,
    SPEC_SYM_CONSTRAINT, SPEC_SYM_TWOFORM, SPEC_SYM_OUTPUT,
};

// --- errors --------------------------------------------------------------------------------

static bool nomem(xctx *c)
{
    spec_out_of_memory(c->s);
    c->failed = true;
    return false;
}

// ", with i = 3, j = 2" for the named indices in scope
static void index_context(const xctx *c, char *buf, size_t size)
{
    size_t len = 0;
    buf[0] = '\0';
    for (int k = 0; k < c->env_count && len + 40 < size; k++) {
        if (!c->env_name[k])
            continue;
        int n = snprintf(buf + len, size - len, "%s%.20s = %lld", len ? ", " : ", with ",
                         c->env_name[k], (long long)c->env[k]);
        if (n > 0)
            len += (size_t)n;
    }
}

#if defined(__GNUC__)
__attribute__((format(printf, 4, 5)))
#endif
static bool xerror(xctx *c, spec_loc loc, bool with_indices, const char *format, ...)
{
    char msg[768], where[256] = "";
    va_list args;
    va_start(args, format);
    vsnprintf(msg, sizeof msg, format, args);
    va_end(args);
    if (with_indices)
        index_context(c, where, sizeof where);
    spec_error(c->s, DIRAC_ERR_PARSE, loc, "%s%s", msg, where);
    if (c->prefix[0])
        spec_note(c->s, c->via_loc, "in component '%.*s'", (int)strlen(c->prefix) - 1,
                  c->prefix);
    c->failed = true;
    return false;
}

// uses n units of the budget; false (reported at loc) when it runs out
static bool spend(xctx *c, long n, spec_loc loc)
{
    if (c->g->over) {
        c->failed = true;
        return false;
    }
    if (n <= c->g->budget) {
        c->g->budget -= n;
        return true;
    }
    c->g->over = true;
    return xerror(c, loc, false, "the expanded model is too large (more than %ld elements, "
                  "expression nodes and model instances: an estimated %.3g GB or more; the "
                  "memory limit is an option, --max-model-memory)", c->s->max_expansion,
                  (double)c->s->max_expansion * SPEC_BYTES_PER_UNIT / 1e9);
}

// --- values --------------------------------------------------------------------------------

static bool to_index(xctx *c, double v, spec_loc loc, const char *what, int64_t *out)
{
    if (!isfinite(v))
        return xerror(c, loc, true, "%s is not a finite number (%g)", what, v);
    if (v != floor(v))
        return xerror(c, loc, true, "%s %.17g is not an integer", what, v);
    if (fabs(v) > SPEC_INDEX_ABS_MAX)
        return xerror(c, loc, true, "%s %.17g is too large (at most %d in magnitude)", what, v,
                      SPEC_INDEX_ABS_MAX);
    *out = (int64_t)v;
    return true;
}

// the value of a name (with its new index) in an expanded expression: parameters and constant
// lets; NaN for anything else
static double name_value(const xctx *c, const spec_expr_node *n)
{
    if (n->kind != SPEC_EXPR_NAME)
        return NAN;
    switch (n->u.sym.ref.kind) {
    case SPEC_SYM_PARAMETER: return c->pval[n->u.sym.ref.index];
    case SPEC_SYM_LET: return c->lval[n->u.sym.ref.index];
    case SPEC_SYM_PI: return 3.14159265358979323846;
    default: return NAN;
    }
}

static bool reserve_val(xctx *c, int count)
{
    if (!mem_reserve(&c->s->mem, &c->g->val, &c->g->val_cap, count > 0 ? count : 1,
                     sizeof *c->g->val))
        return nomem(c);
    return true;
}

// The value of an expanded (flat) expression: parameters, constant lets, numbers, functions
// (NaN when it uses anything else).
static bool eval_flat(xctx *c, const spec_expr *e, double *out)
{
    *out = NAN;
    if (e->count == 0 || !reserve_val(c, e->count))
        return e->count == 0;
    double *val = c->g->val;
    for (int32_t i = 0; i < e->count; i++) {
        const spec_expr_node *n = &e->nodes[i];
        double a = 0, b = 0;
        if (n->kind == SPEC_EXPR_UNARY || n->kind == SPEC_EXPR_BINARY || n->kind == SPEC_EXPR_CALL) {
            a = val[n->u.arg[0] - e->nodes];
            if (n->u.arg[1])
                b = val[n->u.arg[1] - e->nodes];
        }
        switch (n->kind) {
        case SPEC_EXPR_NUMBER: val[i] = n->u.number; break;
        case SPEC_EXPR_UNARY: case SPEC_EXPR_BINARY: val[i] = spec_op_value(n->op, a, b); break;
        case SPEC_EXPR_CALL: val[i] = spec_call_value(e, n, val); break;
        default: val[i] = name_value(c, n); break;
        }
    }
    *out = val[e->count - 1];
    return true;
}

// --- elements ------------------------------------------------------------------------------

static const char *name_of(const spec_model *m, int kind, int32_t index)
{
    switch (kind) {
    case SPEC_SYM_PARAMETER: return m->params[index].name;
    case SPEC_SYM_COORDINATE: return m->coords[index].name;
    case SPEC_SYM_LET: return m->lets[index].name;
    case SPEC_SYM_ENTROPY: return m->entropies[index].name;
    case SPEC_SYM_COMPONENT: return m->components[index].name;
    case SPEC_SYM_CONSTRAINT: return m->constraints[index].name;
    case SPEC_SYM_TWOFORM: return m->twoforms[index].name;
    case SPEC_SYM_OUTPUT: return m->outputs[index].name;
    default: return "?";
    }
}

static spec_loc loc_of(const spec_model *m, int kind, int32_t index)
{
    switch (kind) {
    case SPEC_SYM_PARAMETER: return m->params[index].loc;
    case SPEC_SYM_COORDINATE: return m->coords[index].loc;
    case SPEC_SYM_LET: return m->lets[index].loc;
    case SPEC_SYM_ENTROPY: return m->entropies[index].loc;
    case SPEC_SYM_COMPONENT: return m->components[index].loc;
    case SPEC_SYM_CONSTRAINT: return m->constraints[index].loc;
    case SPEC_SYM_TWOFORM: return m->twoforms[index].loc;
    default: return m->outputs[index].loc;
    }
}

static bool buf_reserve(xctx *c, size_t need)
{
    if (need > (size_t)INT32_MAX ||
        !mem_reserve(&c->s->mem, &c->g->buf, &c->g->buf_cap, (int)need, 1))
        return nomem(c);
    return true;
}

// "base[v1][v2]..." for the `dims` index values v (the form of element_name), in the arena.
static const char *family_element_name(xctx *c, const char *base, size_t len, const int64_t *v,
                                       int dims)
{
    char *name = mem_arena_alloc(&c->s->arena, len + (size_t)dims * 23 + 1);
    if (!name) {
        nomem(c);
        return NULL;
    }
    memcpy(name, base, len);
    for (int d = 0; d < dims; d++)
        len += (size_t)snprintf(name + len, 23, "[%lld]", (long long)v[d]);
    name[len] = '\0';
    return name;
}

// The element of `pattern` ("x[]", "cell[].q") with index values v[0..): its name (an
// existing string for a single segment), its kind, and for the compile step's refs, its index
// in this model (plain) or the component it starts with (qualified). locs[k]: where index k
// was written. False after an error.
static bool element_of(xctx *c, const char *pattern, const int64_t *v, const spec_loc *locs,
                       spec_loc loc, const char **name, spec_ref *ref)
{
    const spec_model *orig = c->om, *now = c->nm;
    const spec_expansion *x = c->x;
    const char *q = pattern, *seg;
    size_t len, blen = 0;
    int dims, k = 0;
    bool single = !strchr(pattern, '.');
    for (bool first = true; spec_pattern_segment(&q, &seg, &len, &dims); first = false) {
        const spec_symbol *sym = orig->names ? spec_names_find(orig->names, seg, len) : NULL;
        if (!sym || (dims > 0 && !x) || sym->dims != dims)
            return xerror(c, loc, false, "'%.*s' has no element here", (int)len, seg);
        int32_t index = sym->index;
        const char *element = NULL;
        if (x && x->fams[sym->kind] && sym->kind == SPEC_SYM_CONSTRAINT && dims > 1) {
            // a constraint family of several indices may be triangular (j = i+1..N), so no
            // offset finds its element: it is named, `C[1][2]` as its CSV column, and the
            // resolve pass binds `mu.C[1][2]` by that name (or reports that it does not exist)
            if (!(element = family_element_name(c, seg, len, v + k, dims)))
                return false;
            k += dims;
            index = -1;
        } else if (x && x->fams[sym->kind]) {
            const xfam *f = &x->fams[sym->kind][sym->index];
            int64_t offset = 0;
            for (int d = 0; d < dims; d++, k++) {
                int64_t hi = f->lo[d] + f->size[d] - 1;
                if (v[k] < f->lo[d] || v[k] > hi) {
                    if (dims == 1)
                        return xerror(c, locs[k], true, "index %lld is out of range for '%.*s' "
                                      "(%lld..%lld)", (long long)v[k], (int)len, seg,
                                      (long long)f->lo[d], (long long)hi);
                    return xerror(c, locs[k], true, "index %lld is out of range for '%.*s' (its "
                                  "index %d runs over %lld..%lld)", (long long)v[k], (int)len,
                                  seg, d + 1, (long long)f->lo[d], (long long)hi);
                }
                offset = offset * f->size[d] + (v[k] - f->lo[d]);
            }
            index = f->first + (int32_t)offset;
        }
        if (!element)
            element = name_of(now, sym->kind, index);
        bool last = *q == '\0';
        if (single) {
            *name = element;
            ref->kind = sym->kind;
            ref->member = SPEC_SYM_NONE;
            ref->index = index;
            return true;
        }
        size_t elen = strlen(element);
        if (!buf_reserve(c, blen + elen + 2))
            return false;
        if (!first)
            c->g->buf[blen++] = '.';
        memcpy(c->g->buf + blen, element, elen);
        blen += elen;
        if (first) {
            ref->kind = SPEC_SYM_QUALIFIED;
            ref->index = index;
        }
        if (last) {
            ref->member = sym->kind;
            *name = mem_arena_strndup(&c->s->arena, c->g->buf, blen);
            return *name ? true : nomem(c);
        }
        if (sym->kind != SPEC_SYM_COMPONENT || !now->components[index].model)
            return xerror(c, loc, false, "'%.*s' is not a loaded component", (int)len, seg);
        now = now->components[index].model;
        x = now->expansion;
        orig = x ? x->orig : now;
    }
    return xerror(c, loc, false, "invalid name '%s'", pattern);
}

// --- expressions ---------------------------------------------------------------------------

static void xin_free(xctx *c, xin *in)
{
    mem_free(&c->s->mem, in->val);   // the block
    memset(in, 0, sizeof *in);
}

// analyses e: subtree starts, sums, the nodes of indices and bounds
static bool xin_init(xctx *c, const spec_expr *e, xin *in)
{
    memset(in, 0, sizeof *in);
    in->e = e;
    size_t n = (size_t)(e->count > 0 ? e->count : 1);
    size_t bytes = n * (3 * sizeof(int32_t) + sizeof(double) + 2);
    char *block = mem_alloc(&c->s->mem, bytes);
    if (!block)
        return nomem(c);
    in->val = (double *)(void *)block;
    in->start = (int32_t *)(void *)(block + n * sizeof(double));
    in->sum_at = in->start + n;
    in->map = in->sum_at + n;
    in->mark = (uint8_t *)(in->map + n);
    in->uses = in->mark + n;
    const spec_expr_node *nodes = e->nodes;
    for (int32_t i = 0; i < e->count; i++) {
        const spec_expr_node *nd = &nodes[i];
        in->sum_at[i] = -1;
        in->mark[i] = 0;
        in->uses[i] = nd->kind == SPEC_EXPR_INDEX;
        switch (nd->kind) {
        case SPEC_EXPR_UNARY: case SPEC_EXPR_BINARY: case SPEC_EXPR_CALL: case SPEC_EXPR_SUM:
            in->start[i] = in->start[nd->u.arg[0] - nodes];
            for (int k = 0; k < 2; k++)
                if (nd->u.arg[k])
                    in->uses[i] |= in->uses[nd->u.arg[k] - nodes];
            break;
        case SPEC_EXPR_SUBSCRIPT:
            in->start[i] = in->start[nd->u.sub.args[0] - nodes];
            for (int k = 0; k < nd->argc; k++)
                in->uses[i] |= in->uses[nd->u.sub.args[k] - nodes];
            break;
        case SPEC_EXPR_RANGE:
            in->start[i] = in->start[nd->u.range.lo];
            in->uses[i] = in->uses[nd->u.range.lo] | in->uses[nd->u.range.hi];
            break;
        default:
            in->start[i] = i;
            break;
        }
    }
    for (int32_t i = e->count - 1; i >= 0; i--) {
        const spec_expr_node *nd = &nodes[i];
        uint8_t m = in->mark[i];
        switch (nd->kind) {
        case SPEC_EXPR_SUBSCRIPT:
            for (int k = 0; k < nd->argc; k++)
                in->mark[nd->u.sub.args[k] - nodes] = 1;
            break;
        case SPEC_EXPR_RANGE:
            in->mark[nd->u.range.lo] = in->mark[nd->u.range.hi] = 1;
            break;
        case SPEC_EXPR_SUM:
            in->mark[nd->u.arg[0] - nodes] = 1;
            in->mark[nd->u.arg[1] - nodes] = m;
            in->sum_at[in->start[nd->u.arg[1] - nodes]] = i;
            break;
        case SPEC_EXPR_UNARY: case SPEC_EXPR_BINARY: case SPEC_EXPR_CALL:
            for (int k = 0; k < 2; k++)
                if (nd->u.arg[k])
                    in->mark[nd->u.arg[k] - nodes] = m;
            break;
        default:
            break;
        }
    }
    return true;
}

// appends a node to the expression being written; its index, or -1
static int32_t out_node(xctx *c, const spec_expr_node *node, int32_t kid0, int32_t kid1)
{
    xglobal *g = c->g;
    if (g->out_count == INT32_MAX - 1 || !spend(c, 1, node->loc))
        return -1;
    if (!mem_reserve(&c->s->mem, &g->out, &g->out_cap, g->out_count + 1, sizeof *g->out) ||
        !mem_reserve(&c->s->mem, &g->kids, &g->kid_cap, 2 * (g->out_count + 1),
                     sizeof *g->kids)) {
        nomem(c);
        return -1;
    }
    int32_t i = g->out_count++;
    g->out[i] = *node;
    g->kids[2 * i] = kid0;
    g->kids[2 * i + 1] = kid1;
    return i;
}

static int32_t remap(const xctx *c, int kind, int32_t index)
{
    if (kind == SPEC_SYM_QUALIFIED)
        kind = SPEC_SYM_COMPONENT;
    if (kind <= SPEC_SYM_NONE || kind >= SPEC_SYM_KIND_COUNT || !c->x->fams[kind])
        return index;
    return c->x->fams[kind][index].first;
}

// the values of the indices of subscript node n (evaluated already)
static bool subscript_values(xctx *c, const xin *in, const spec_expr_node *n, int64_t *v,
                             spec_loc *locs)
{
    const spec_expr_node *nodes = in->e->nodes;
    for (int k = 0; k < n->argc; k++) {
        int32_t a = (int32_t)(n->u.sub.args[k] - nodes);
        locs[k] = nodes[in->start[a]].loc;
        if (!to_index(c, in->val[a], locs[k], "index", &v[k]))
            return false;
    }
    return true;
}

// value of node i of an index or bound (its children are done)
static bool eval_node(xctx *c, xin *in, int32_t i)
{
    const spec_expr_node *nodes = in->e->nodes, *n = &nodes[i];
    double a = 0, b = 0;
    if (n->kind == SPEC_EXPR_UNARY || n->kind == SPEC_EXPR_BINARY || n->kind == SPEC_EXPR_CALL) {
        a = in->val[n->u.arg[0] - nodes];
        if (n->u.arg[1])
            b = in->val[n->u.arg[1] - nodes];
    }
    switch (n->kind) {
    case SPEC_EXPR_NUMBER: in->val[i] = n->u.number; return true;
    case SPEC_EXPR_INDEX: in->val[i] = (double)c->env[n->u.sym.ref.index]; return true;
    case SPEC_EXPR_UNARY: case SPEC_EXPR_BINARY: in->val[i] = spec_op_value(n->op, a, b); return true;
    case SPEC_EXPR_CALL: in->val[i] = spec_call_value(in->e, n, in->val); return true;
    case SPEC_EXPR_RANGE: in->val[i] = 0; return true;
    case SPEC_EXPR_NAME: {
        spec_expr_node tmp = *n;
        tmp.u.sym.ref.index = remap(c, n->u.sym.ref.kind, n->u.sym.ref.index);
        in->val[i] = name_value(c, &tmp);
        return true;
    }
    case SPEC_EXPR_SUBSCRIPT: {
        int64_t v[SPEC_INDEX_MAX];
        spec_loc locs[SPEC_INDEX_MAX];
        const char *name;
        spec_ref ref;
        if (!subscript_values(c, in, n, v, locs) ||
            !element_of(c, n->u.sub.name, v, locs, n->loc, &name, &ref))
            return false;
        spec_expr_node tmp;
        memset(&tmp, 0, sizeof tmp);
        tmp.kind = SPEC_EXPR_NAME;
        tmp.u.sym.ref = ref;
        in->val[i] = name_value(c, &tmp);
        return true;
    }
    default:
        in->val[i] = NAN;
        return true;
    }
}

// The length of the prefix `mu.`, `p.`, `T.` or `S.` of a subscript node that names an element
// of a family's derived quantity (its op holds the derived kind), else 0. `S.S[2]` holds the
// kind of an entropy variable, like `S[2]` and a component S's `S.x[2]`: the prefix is one
// unless the model has a component S (spec_resolve.c, derived_subscript).
static size_t derived_prefix(const xctx *c, const spec_expr_node *n)
{
    int kind = SPEC_SUBSCRIPT_KIND(n->op);
    if (kind == SPEC_SYM_ENTROPY) {
        const spec_symbol *s = c->om->names ? spec_names_find(c->om->names, "S", 1) : NULL;
        return !strncmp(n->u.sub.name, "S.", 2) && !(s && s->kind == SPEC_SYM_COMPONENT) ? 2 : 0;
    }
    if (kind != SPEC_SYM_MULTIPLIER && kind != SPEC_SYM_MOMENTUM && kind != SPEC_SYM_TEMPERATURE)
        return 0;
    return (size_t)(strchr(n->u.sub.name, '.') - n->u.sub.name) + 1;
}

// writes node i (not an index or bound) of the expression; map[i] its new index
static bool emit_node(xctx *c, xin *in, int32_t i)
{
    const spec_expr_node *nodes = in->e->nodes, *n = &nodes[i];
    spec_expr_node node = *n;
    int32_t k0 = -1, k1 = -1;
    switch (n->kind) {
    case SPEC_EXPR_NAME: case SPEC_EXPR_PRIME:
        node.u.sym.ref.index = remap(c, n->u.sym.ref.kind, n->u.sym.ref.index);
        break;
    case SPEC_EXPR_INDEX:
        node.kind = SPEC_EXPR_NUMBER;
        node.op = node.argc = 0;
        node.u.number = (double)c->env[n->u.sym.ref.index];
        break;
    case SPEC_EXPR_UNARY: case SPEC_EXPR_BINARY: case SPEC_EXPR_CALL:
        k0 = in->map[n->u.arg[0] - nodes];
        if (n->u.arg[1])
            k1 = in->map[n->u.arg[1] - nodes];
        break;
    case SPEC_EXPR_SUBSCRIPT: {
        int64_t v[SPEC_INDEX_MAX];
        spec_loc locs[SPEC_INDEX_MAX];
        // `mu.link[i]`, `p.x[i]`, `T.S[i]` in outputs (spec_resolve.c, derived_subscript):
        // the element's name with the prefix, resolved again in the expansion
        size_t prefix = derived_prefix(c, n);
        if (!subscript_values(c, in, n, v, locs) ||
            !element_of(c, n->u.sub.name + prefix, v, locs, n->loc, &node.u.sym.name,
                        &node.u.sym.ref))
            return false;
        if (prefix) {
            size_t len = strlen(node.u.sym.name);
            char *name = mem_arena_alloc(&c->s->arena, prefix + len + 1);
            if (!name) {
                spec_out_of_memory(c->s);
                return false;
            }
            memcpy(name, n->u.sub.name, prefix);
            memcpy(name + prefix, node.u.sym.name, len + 1);
            node.u.sym.name = name;
            node.u.sym.ref.kind = (uint8_t)SPEC_SUBSCRIPT_KIND(n->op);
        }
        int primes = SPEC_SUBSCRIPT_PRIMES(n->op);
        node.kind = primes ? SPEC_EXPR_PRIME : SPEC_EXPR_NAME;
        node.op = primes == 2 ? 2 : 0;   // x[i]'': an acceleration
        node.argc = 0;
        break;
    }
    default:
        break;
    }
    in->map[i] = out_node(c, &node, k0, k1);
    return in->map[i] >= 0;
}

// does e use an index (of an enclosing range)?
static bool uses_index(const spec_expr *e)
{
    for (int32_t i = 0; i < e->count; i++)
        if (e->nodes[i].kind == SPEC_EXPR_INDEX)
            return true;
    return false;
}

// Checks lo..hi: a range has at least one index, except that one which depends on another
// index may be empty (upper bound = lower bound - 1: *empty); reversed ranges are errors.
static bool range_check(xctx *c, int64_t lo, int64_t hi, bool depends, spec_loc loc,
                        bool *empty)
{
    *empty = hi < lo;
    if (hi >= lo || (hi == lo - 1 && depends))
        return true;
    if (hi == lo - 1)
        return xerror(c, loc, true, "empty range %lld..%lld (a range needs at least one index)",
                      (long long)lo, (long long)hi);
    return xerror(c, loc, true, "reversed range %lld..%lld (the upper bound is below the lower "
                  "bound)", (long long)lo, (long long)hi);
}

// One copy of the expression with the current index values: written to *result (arena).
static bool emit_expr(xctx *c, xin *in, spec_expr *result)
{
    const spec_expr *e = in->e;
    result->nodes = NULL;
    result->count = 0;
    if (e->count == 0)
        return true;
    xglobal *g = c->g;
    g->out_count = 0;
    struct {
        int32_t sum;
        int64_t hi;
        int32_t acc;
    } open[SPEC_BINDERS_MAX];
    int top = 0;
    const spec_expr_node *nodes = e->nodes;
    int32_t i = 0;
    while (i < e->count) {
        int32_t s = in->sum_at[i];
        if (s >= 0 && !(top > 0 && open[top - 1].sum == s)) {
            // a sum's body starts: its range was evaluated just before
            const spec_expr_node *range = nodes[s].u.arg[0];
            int lo_at = range->u.range.lo, hi_at = range->u.range.hi;
            int64_t lo, hi;
            if (!to_index(c, in->val[lo_at], nodes[in->start[lo_at]].loc, "range bound", &lo) ||
                !to_index(c, in->val[hi_at], nodes[in->start[hi_at]].loc, "range bound", &hi))
                return false;
            bool empty;
            if (!range_check(c, lo, hi, in->uses[range - nodes], range->loc, &empty))
                return false;
            if (empty) {
                // a sum over an empty range (that depends on another index) is 0
                spec_expr_node zero;
                memset(&zero, 0, sizeof zero);
                zero.kind = SPEC_EXPR_NUMBER;
                zero.loc = nodes[s].loc;
                if ((in->map[s] = out_node(c, &zero, -1, -1)) < 0)
                    return false;
                i = s;
                goto complete;
            }
            if (top == SPEC_BINDERS_MAX)
                return xerror(c, range->loc, false, "sums nested too deeply");
            int slot = nodes[s].op;
            open[top].sum = s;
            open[top].hi = hi;
            open[top].acc = -1;
            top++;
            c->env[slot] = lo;
            c->env_name[slot] = range->u.range.binder;
            c->env_count = slot + 1;
        }
        if (in->mark[i] ? !eval_node(c, in, i) : !emit_node(c, in, i))
            return false;
    complete:;
        bool again = false;
        while (top > 0 && i == nodes[open[top - 1].sum].u.arg[1] - nodes) {
            // one copy of the innermost body is complete
            int32_t sum = open[top - 1].sum, slot = nodes[sum].op;
            int32_t acc = open[top - 1].acc;
            if (acc < 0) {
                acc = in->map[i];
            } else {
                spec_expr_node add;
                memset(&add, 0, sizeof add);
                add.kind = SPEC_EXPR_BINARY;
                add.op = SPEC_OP_ADD;
                add.loc = nodes[sum].loc;
                if ((acc = out_node(c, &add, acc, in->map[i])) < 0)
                    return false;
            }
            open[top - 1].acc = acc;
            if (c->env[slot] < open[top - 1].hi) {
                c->env[slot]++;
                i = in->start[nodes[sum].u.arg[1] - nodes];
                again = true;
                break;
            }
            in->map[sum] = acc;
            top--;
            c->env_count = slot;
            i = sum;
        }
        if (!again)
            i++;
    }
    // into the arena, children as pointers
    int n = g->out_count;
    spec_expr_node *copy = mem_arena_alloc(&c->s->arena, (size_t)n * sizeof *copy);
    if (!copy)
        return nomem(c);
    for (int k = 0; k < n; k++) {
        copy[k] = g->out[k];
        if (copy[k].kind == SPEC_EXPR_UNARY || copy[k].kind == SPEC_EXPR_BINARY ||
            copy[k].kind == SPEC_EXPR_CALL)
            for (int j = 0; j < 2; j++)
                copy[k].u.arg[j] = g->kids[2 * k + j] >= 0 ? &copy[g->kids[2 * k + j]] : NULL;
    }
    result->nodes = copy;
    result->count = n;
    if (g->out_cap > (1 << 16)) {
        // a long sum: do not keep its scratch (the peak memory would hold it twice)
        mem_free(&c->s->mem, g->out);
        mem_free(&c->s->mem, g->kids);
        g->out = NULL;
        g->kids = NULL;
        g->out_cap = g->kid_cap = 0;
    }
    return true;
}

// One copy of an expression that is analysed for this copy only.
static bool emit_once(xctx *c, const spec_expr *e, spec_expr *result)
{
    xin in;
    if (!xin_init(c, e, &in))
        return false;
    bool ok = emit_expr(c, &in, result);
    xin_free(c, &in);
    return ok;
}

// The value of a whole constant expression of the original (an index or a range bound).
static bool eval_expr(xctx *c, const spec_expr *e, double *out)
{
    xin in;
    if (!xin_init(c, e, &in))
        return false;
    bool ok = true;
    for (int32_t i = 0; ok && i < e->count; i++)
        ok = eval_node(c, &in, i);
    *out = ok && e->count > 0 ? in.val[e->count - 1] : (double)NAN;
    xin_free(c, &in);
    return ok;
}

// --- ranges of statements ------------------------------------------------------------------

typedef struct xrange {
    const spec_index *items[2 * SPEC_INDEX_MAX];
    int64_t hi[2 * SPEC_INDEX_MAX];
    int count;
} xrange;

static void range_collect(xrange *r, const spec_index *items, int count)
{
    for (int k = 0; k < count && r->count < 2 * SPEC_INDEX_MAX; k++)
        if (items[k].range)
            r->items[r->count++] = &items[k];
}

// evaluates range `level` with the indices before it and starts it at its lower bound
static bool range_set(xctx *c, xrange *r, int level, bool *empty)
{
    const spec_index *it = r->items[level];
    int64_t lo = 1, hi;
    double v;
    if (it->lo.count > 0 &&
        (!eval_expr(c, &it->lo, &v) || !to_index(c, v, it->lo.nodes[0].loc, "range bound", &lo)))
        return false;
    if (!eval_expr(c, &it->hi, &v) || !to_index(c, v, it->hi_loc, "range bound", &hi))
        return false;
    if (!range_check(c, lo, hi, uses_index(&it->lo) || uses_index(&it->hi), it->loc, empty))
        return false;
    c->env[it->slot] = lo;
    c->env_name[it->slot] = it->binder;
    if (c->env_count < it->slot + 1)
        c->env_count = it->slot + 1;
    r->hi[level] = hi;
    return true;
}

// Sets the ranges from `level` on to their first values; an empty range moves the ranges
// before it on. *more is false when no combination is left.
static bool range_fill(xctx *c, xrange *r, int level, bool *more)
{
    while (level < r->count) {
        bool empty;
        if (!range_set(c, r, level, &empty))
            return false;
        if (!empty) {
            level++;
            continue;
        }
        do
            level--;
        while (level >= 0 && c->env[r->items[level]->slot] >= r->hi[level]);
        if (level < 0) {
            *more = false;
            return true;
        }
        c->env[r->items[level]->slot]++;
        level++;
    }
    *more = true;
    return true;
}

// the first combination of indices of a statement (*more false: there is none)
static bool range_first(xctx *c, xrange *r, bool *more)
{
    c->env_count = 0;
    return range_fill(c, r, 0, more);
}

// the next combination of indices (last one fastest); *more false after the last
static bool range_next(xctx *c, xrange *r, bool *more)
{
    int level = r->count - 1;
    while (level >= 0 && c->env[r->items[level]->slot] >= r->hi[level])
        level--;
    *more = level >= 0;
    if (!*more)
        return true;
    c->env[r->items[level]->slot]++;
    return range_fill(c, r, level + 1, more);
}

// "base[v1][v2]" with the current values of the ranges of a definition (no commas: names are
// CSV columns)
static const char *element_name(xctx *c, const char *base, const spec_index *items, int count)
{
    size_t len = strlen(base);
    if (!buf_reserve(c, len + (size_t)count * 23 + 1))
        return NULL;
    char *b = c->g->buf;
    memcpy(b, base, len);
    for (int k = 0; k < count; k++) {
        b[len++] = '[';
        int64_t v = c->env[items[k].slot];
        uint64_t u = v < 0 ? (uint64_t)-v : (uint64_t)v;
        char digits[24];
        int n = 0;
        do {
            digits[n++] = (char)('0' + u % 10);
            u /= 10;
        } while (u);
        if (v < 0)
            b[len++] = '-';
        while (n)
            b[len++] = digits[--n];
        b[len++] = ']';
    }
    char *name = mem_arena_strndup(&c->s->arena, b, len);
    if (!name)
        nomem(c);
    return name;
}

// Sets up the ranges of a family (rectangular: its sizes are fixed) and checks its size.
static bool family_start(xctx *c, xfam *f, const char *name, spec_loc loc,
                         const spec_index *items, int count, xrange *r)
{
    memset(r, 0, sizeof *r);
    range_collect(r, items, count);
    bool more;
    if (!range_first(c, r, &more))
        return false;
    f->dims = count;
    int64_t total = 1;
    for (int d = 0; d < count; d++) {
        f->lo[d] = c->env[items[d].slot];
        f->size[d] = r->hi[d] - f->lo[d] + 1;
        total = total > INT64_MAX / f->size[d] ? INT64_MAX : total * f->size[d];
    }
    if (total > c->g->budget || total > INT32_MAX / 2) {
        c->g->over = true;
        return xerror(c, loc, false, "'%s' would have %lld elements: the expanded model is too "
                      "large (more than %ld elements and expression nodes)", name,
                      (long long)total, c->s->max_expansion);
    }
    return true;
}

// The element of a statement's target (`x`, `x[i]`, `cell[i].q`) with the current indices.
static bool target(xctx *c, const spec_name_ref *r, spec_name_ref *out)
{
    *out = *r;
    out->index = NULL;
    out->index_count = 0;
    if (r->index_count == 0) {
        out->ref.index = remap(c, r->ref.kind, r->ref.index);
        return true;
    }
    int64_t v[SPEC_INDEX_MAX];
    spec_loc locs[SPEC_INDEX_MAX];
    for (int k = 0; k < r->index_count; k++) {
        const spec_index *it = &r->index[k];
        locs[k] = it->loc;
        if (it->range) {
            v[k] = c->env[it->slot];
        } else {
            double value;
            if (!eval_expr(c, &it->hi, &value) || !to_index(c, value, it->loc, "index", &v[k]))
                return false;
        }
    }
    return element_of(c, r->name, v, locs, r->loc, &out->name, &out->ref);
}

// --- definitions ---------------------------------------------------------------------------

// a -p override of parameter `name` of this instance, or NULL
static const spec_override *override_of(const xctx *c, const char *name)
{
    int count;
    const spec_override *list = spec_overrides(c->s, &count);
    size_t plen = strlen(c->prefix);
    const spec_override *found = NULL;
    for (int k = 0; k < count; k++)
        if (strncmp(list[k].name, c->prefix, plen) == 0 && strcmp(list[k].name + plen, name) == 0)
            found = &list[k];
    return found;
}

static bool add_param(xctx *c, const spec_param *op, const char *name, xin *in)
{
    if (!spend(c, 1, op->loc))
        return false;
    spec_param *np = SPEC_MODEL_PUSH(c->s, c->nm, params, param_count, PARAMS);
    if (!np || !mem_reserve(&c->s->mem, &c->pval, &c->pval_cap, c->nm->param_count,
                            sizeof *c->pval))
        return nomem(c);
    np->name = name;
    np->loc = op->loc;
    np->is_input = op->is_input;
    if (!emit_expr(c, in, &np->value))
        return false;
    double value = NAN;
    const spec_override *o = override_of(c, name);
    if (o) {
        np->overridden = true;
        np->override_value = value = o->value;
    } else {
        bool set = false;
        for (int k = 0; c->via && k < c->via->arg_count; k++)
            if (strcmp(c->via->args[k].name, name) == 0) {
                value = c->via_values[k];
                set = true;
            }
        if (!set && !eval_flat(c, &np->value, &value))
            return false;
    }
    c->pval[c->nm->param_count - 1] = value;
    return true;
}

static bool expand_param(xctx *c, int i)
{
    c->env_count = 0;
    const spec_param *op = &c->om->params[i];
    xfam *f = &c->x->fams[SPEC_SYM_PARAMETER][i];
    f->first = c->nm->param_count;
    xin in;
    if (!xin_init(c, &op->value, &in))
        return false;
    bool ok = true;
    if (op->index_count == 0) {
        ok = add_param(c, op, op->name, &in);
    } else {
        xrange r;
        ok = family_start(c, f, op->name, op->loc, op->index, op->index_count, &r);
        for (bool more = ok; ok && more;) {
            const char *name = element_name(c, op->name, op->index, op->index_count);
            ok = name && add_param(c, op, name, &in) && range_next(c, &r, &more);
        }
    }
    f->count = c->nm->param_count - f->first;
    xin_free(c, &in);
    return ok;
}

// a let's elements; the values of constant lets now, the others in expand_let_values
static bool add_let(xctx *c, const spec_let *ol, const char *name, xin *in)
{
    if (!spend(c, 1, ol->loc))
        return false;
    spec_let *nl = SPEC_MODEL_PUSH(c->s, c->nm, lets, let_count, LETS);
    if (!nl || !mem_reserve(&c->s->mem, &c->lval, &c->lval_cap, c->nm->let_count,
                            sizeof *c->lval))
        return nomem(c);
    nl->name = name;
    nl->loc = ol->loc;
    double value = NAN;
    if (!ol->state_use && (!emit_expr(c, in, &nl->value) || !eval_flat(c, &nl->value, &value)))
        return false;
    c->lval[c->nm->let_count - 1] = value;
    return true;
}

static bool expand_let(xctx *c, int i)
{
    c->env_count = 0;
    const spec_let *ol = &c->om->lets[i];
    xfam *f = &c->x->fams[SPEC_SYM_LET][i];
    f->first = c->nm->let_count;
    xin in;
    if (!xin_init(c, &ol->value, &in))
        return false;
    bool ok = true;
    if (ol->index_count == 0) {
        ok = add_let(c, ol, ol->name, &in);
    } else {
        xrange r;
        ok = family_start(c, f, ol->name, ol->loc, ol->index, ol->index_count, &r);
        for (bool more = ok; ok && more;) {
            const char *name = element_name(c, ol->name, ol->index, ol->index_count);
            ok = name && add_let(c, ol, name, &in) && range_next(c, &r, &more);
        }
    }
    f->count = c->nm->let_count - f->first;
    xin_free(c, &in);
    return ok;
}

// the values of the lets that depend on the state (their elements exist)
static bool expand_let_values(xctx *c, int i)
{
    c->env_count = 0;
    const spec_let *ol = &c->om->lets[i];
    if (!ol->state_use)
        return true;
    const xfam *f = &c->x->fams[SPEC_SYM_LET][i];
    xin in;
    if (!xin_init(c, &ol->value, &in))
        return false;
    bool ok = true;
    int32_t k = f->first;
    if (ol->index_count == 0) {
        ok = emit_expr(c, &in, &c->nm->lets[k].value);
    } else {
        xrange r;
        memset(&r, 0, sizeof r);
        range_collect(&r, ol->index, ol->index_count);
        bool more;
        ok = range_first(c, &r, &more);
        for (; ok && more; k++)
            ok = emit_expr(c, &in, &c->nm->lets[k].value) && range_next(c, &r, &more);
    }
    xin_free(c, &in);
    return ok;
}

// coordinates or entropy variables
static bool expand_vars(xctx *c, int kind)
{
    bool coords = kind == SPEC_SYM_COORDINATE;
    int count = coords ? c->om->coord_count : c->om->entropy_count;
    for (int i = 0; i < count; i++) {
        const spec_var *ov = coords ? &c->om->coords[i] : &c->om->entropies[i];
        c->env_count = 0;
        xfam *f = &c->x->fams[kind][i];
        f->first = coords ? c->nm->coord_count : c->nm->entropy_count;
        xrange r;
        if (ov->index_count > 0 &&
            !family_start(c, f, ov->name, ov->loc, ov->index, ov->index_count, &r))
            return false;
        for (bool more = true; more;) {
            const char *name = ov->index_count == 0
                                   ? ov->name
                                   : element_name(c, ov->name, ov->index, ov->index_count);
            if (!name || !spend(c, 1, ov->loc))
                return false;
            spec_var *nv = coords ? SPEC_MODEL_PUSH(c->s, c->nm, coords, coord_count, COORDS)
                                  : SPEC_MODEL_PUSH(c->s, c->nm, entropies, entropy_count,
                                                    ENTROPIES);
            if (!nv)
                return nomem(c);
            nv->name = name;
            nv->loc = ov->loc;
            more = false;
            if (ov->index_count > 0 && !range_next(c, &r, &more))
                return false;
        }
        f->count = (coords ? c->nm->coord_count : c->nm->entropy_count) - f->first;
    }
    return true;
}

static spec_model *expand_model(xglobal *g, const spec_model *om, const char *prefix,
                                const spec_component *via, const double *via_values,
                                spec_loc via_loc);

static bool model_needs(const xglobal *g, const spec_model *m)
{
    for (int k = 0; k < g->model_count; k++)
        if (g->models[k] == m)
            return g->needs[k];
    return false;
}

// one element of a component family (or a plain component)
static bool add_component(xctx *c, const spec_component *oc, const char *name)
{
    if (!spend(c, 1, oc->loc))
        return false;
    spec_component *nc = SPEC_MODEL_PUSH(c->s, c->nm, components, component_count, COMPONENTS);
    if (!nc)
        return nomem(c);
    *nc = *oc;
    nc->name = name;
    nc->index = NULL;
    nc->index_count = 0;
    nc->args = NULL;
    double *values = NULL;
    if (oc->arg_count > 0) {
        nc->args = mem_arena_alloc(&c->s->arena, (size_t)oc->arg_count * sizeof *nc->args);
        values = mem_alloc(&c->s->mem, (size_t)oc->arg_count * sizeof *values);
        if (!nc->args || !values) {
            mem_free(&c->s->mem, values);
            return nomem(c);
        }
    }
    bool ok = true;
    for (int k = 0; ok && k < oc->arg_count; k++) {
        nc->args[k] = oc->args[k];
        ok = emit_once(c, &oc->args[k].value, &nc->args[k].value) &&
             eval_flat(c, &nc->args[k].value, &values[k]);
    }
    if (ok && oc->model && model_needs(c->g, oc->model)) {
        size_t plen = strlen(c->prefix), nlen = strlen(name);
        char *prefix = mem_arena_alloc(&c->s->arena, plen + nlen + 2);
        if (!prefix) {
            ok = nomem(c);
        } else {
            memcpy(prefix, c->prefix, plen);
            memcpy(prefix + plen, name, nlen);
            memcpy(prefix + plen + nlen, ".", 2);
            int32_t at = c->nm->component_count - 1;
            spec_model *child = expand_model(c->g, oc->model, prefix, nc, values, oc->loc);
            c->nm->components[at].model = child;
            ok = child && !child->failed;
            if (!ok)
                c->failed = true;
        }
    }
    mem_free(&c->s->mem, values);
    return ok;
}

static bool expand_components(xctx *c)
{
    for (int i = 0; i < c->om->component_count; i++) {
        const spec_component *oc = &c->om->components[i];
        xfam *f = &c->x->fams[SPEC_SYM_COMPONENT][i];
        c->env_count = 0;
        f->first = c->nm->component_count;
        bool ok = true;
        if (oc->index_count == 0) {
            ok = add_component(c, oc, oc->name);
        } else {
            xrange r;
            ok = family_start(c, f, oc->name, oc->loc, oc->index, oc->index_count, &r);
            for (bool more = ok; ok && more;) {
                const char *name = element_name(c, oc->name, oc->index, oc->index_count);
                ok = name && add_component(c, oc, name) && range_next(c, &r, &more);
            }
        }
        f->count = c->nm->component_count - f->first;
        if (!ok)
            return false;
    }
    return true;
}

// --- statements ----------------------------------------------------------------------------

static bool expand_constraints(xctx *c)
{
    for (int i = 0; i < c->om->constraint_count; i++) {
        const spec_constraint *oc = &c->om->constraints[i];
        xfam *f = &c->x->fams[SPEC_SYM_CONSTRAINT][i];
        f->first = c->nm->constraint_count;
        xin lhs, rhs;
        if (!xin_init(c, &oc->lhs, &lhs))
            return false;
        if (!xin_init(c, &oc->rhs, &rhs)) {
            xin_free(c, &lhs);
            return false;
        }
        xrange r;
        memset(&r, 0, sizeof r);
        range_collect(&r, oc->index, oc->index_count);
        bool more;
        bool ok = range_first(c, &r, &more);
        // one-index families are addressable by element (`mu.link[3]` in outputs)
        if (ok && more && oc->index_count == 1) {
            f->dims = 1;
            f->lo[0] = c->env[oc->index[0].slot];
        }
        while (ok && more) {
            const char *name = oc->index_count == 0
                                   ? oc->name
                                   : element_name(c, oc->name, oc->index, oc->index_count);
            spec_constraint *nc = name && spend(c, 1, oc->loc)
                                      ? SPEC_MODEL_PUSH(c->s, c->nm, constraints,
                                                        constraint_count, CONSTRAINTS)
                                      : NULL;
            if (!nc) {
                ok = name && !c->failed ? nomem(c) : false;
                break;
            }
            nc->name = name;
            nc->loc = oc->loc;
            nc->has_rhs = oc->has_rhs;
            nc->kind = oc->kind;
            ok = emit_expr(c, &lhs, &nc->lhs) && emit_expr(c, &rhs, &nc->rhs) &&
                 range_next(c, &r, &more);
        }
        f->count = c->nm->constraint_count - f->first;
        if (f->dims == 1)
            f->size[0] = f->count;
        xin_free(c, &lhs);
        xin_free(c, &rhs);
        if (!ok)
            return false;
    }
    return true;
}

static bool expand_outputs(xctx *c)
{
    for (int i = 0; i < c->om->output_count; i++) {
        const spec_output *oo = &c->om->outputs[i];
        xfam *f = &c->x->fams[SPEC_SYM_OUTPUT][i];
        f->first = c->nm->output_count;
        xin in;
        if (!xin_init(c, &oo->value, &in))
            return false;
        xrange r;
        memset(&r, 0, sizeof r);
        range_collect(&r, oo->index, oo->index_count);
        bool more;
        bool ok = range_first(c, &r, &more);
        while (ok && more) {
            const char *name = oo->index_count == 0
                                   ? oo->name
                                   : element_name(c, oo->name, oo->index, oo->index_count);
            spec_output *no = name && spend(c, 1, oo->loc)
                                  ? SPEC_MODEL_PUSH(c->s, c->nm, outputs, output_count, OUTPUTS)
                                  : NULL;
            if (!no) {
                ok = name && !c->failed ? nomem(c) : false;
                break;
            }
            no->name = name;
            no->loc = oo->loc;
            ok = emit_expr(c, &in, &no->value) && range_next(c, &r, &more);
        }
        f->count = c->nm->output_count - f->first;
        xin_free(c, &in);
        if (!ok)
            return false;
    }
    return true;
}

static bool expand_twoforms(xctx *c)
{
    for (int i = 0; i < c->om->twoform_count; i++) {
        const spec_twoform *ot = &c->om->twoforms[i];
        xfam *f = &c->x->fams[SPEC_SYM_TWOFORM][i];
        f->first = c->nm->twoform_count;
        xrange r;
        memset(&r, 0, sizeof r);
        range_collect(&r, ot->index, ot->index_count);
        bool more;
        bool ok = range_first(c, &r, &more);
        while (ok && more) {
            const char *name = ot->index_count == 0
                                   ? ot->name
                                   : element_name(c, ot->name, ot->index, ot->index_count);
            spec_wedge *terms = name && spend(c, ot->term_count + 1, ot->loc)
                                    ? mem_arena_alloc(&c->s->arena, (size_t)ot->term_count *
                                                                         sizeof *terms)
                                    : NULL;
            if (!terms) {
                ok = name && !c->failed ? nomem(c) : false;
                break;
            }
            for (int k = 0; ok && k < ot->term_count; k++) {
                const spec_wedge *ow = &ot->terms[k];
                terms[k].sign = ow->sign;
                ok = emit_once(c, &ow->coefficient, &terms[k].coefficient) &&
                     target(c, &ow->a, &terms[k].a) && target(c, &ow->b, &terms[k].b);
            }
            spec_twoform *nt = ok ? SPEC_MODEL_PUSH(c->s, c->nm, twoforms, twoform_count,
                                                    TWOFORMS)
                                  : NULL;
            if (!nt) {
                ok = ok ? nomem(c) : false;
                break;
            }
            nt->name = name;
            nt->loc = ot->loc;
            nt->terms = terms;
            nt->term_count = ot->term_count;
            ok = range_next(c, &r, &more);
        }
        f->count = c->nm->twoform_count - f->first;
        if (!ok)
            return false;
    }
    return true;
}

// the statements with targets: force, initial, friction, heat, heat_input
enum { ST_FORCE, ST_INITIAL, ST_FRICTION, ST_HEAT, ST_HEAT_INPUT };

static bool expand_targeted(xctx *c, int which)
{
    const spec_model *om = c->om;
    int count = which == ST_FORCE      ? om->force_count
                : which == ST_INITIAL  ? om->initial_count
                : which == ST_FRICTION ? om->friction_count
                : which == ST_HEAT     ? om->heat_count
                                       : om->heat_input_count;
    for (int i = 0; i < count; i++) {
        const spec_name_ref *t1 = NULL, *t2 = NULL;
        const spec_expr *value;
        spec_loc loc;
        switch (which) {
        case ST_FORCE:
            t1 = &om->forces[i].coord, value = &om->forces[i].value, loc = om->forces[i].loc;
            break;
        case ST_INITIAL:
            t1 = &om->initials[i].var, value = &om->initials[i].value, loc = t1->loc;
            break;
        case ST_FRICTION:
            t1 = &om->frictions[i].coord, t2 = &om->frictions[i].entropy;
            value = &om->frictions[i].value, loc = om->frictions[i].loc;
            break;
        case ST_HEAT:
            t1 = &om->heats[i].a, t2 = &om->heats[i].b;
            value = &om->heats[i].value, loc = om->heats[i].loc;
            break;
        default:
            t1 = &om->heat_inputs[i].entropy, value = &om->heat_inputs[i].value;
            loc = om->heat_inputs[i].loc;
            break;
        }
        xin in;
        if (!xin_init(c, value, &in))
            return false;
        xrange r;
        memset(&r, 0, sizeof r);
        range_collect(&r, t1->index, t1->index_count);
        if (t2)
            range_collect(&r, t2->index, t2->index_count);
        bool more;
        bool ok = range_first(c, &r, &more);
        while (ok && more) {
            spec_name_ref a, b;
            spec_expr e;
            ok = spend(c, 1, loc) && target(c, t1, &a) && (!t2 || target(c, t2, &b)) &&
                 emit_expr(c, &in, &e);
            if (!ok)
                break;
            spec_model *nm = c->nm;
            switch (which) {
            case ST_FORCE: {
                spec_force *x = SPEC_MODEL_PUSH(c->s, nm, forces, force_count, FORCES);
                if (x)
                    x->loc = loc, x->coord = a, x->value = e;
                ok = x != NULL;
                break;
            }
            case ST_INITIAL: {
                spec_initial *x = SPEC_MODEL_PUSH(c->s, nm, initials, initial_count, INITIALS);
                if (x)
                    x->var = a, x->velocity = om->initials[i].velocity, x->value = e,
                    x->start = om->initials[i].start;
                ok = x != NULL;
                break;
            }
            case ST_FRICTION: {
                spec_friction *x = SPEC_MODEL_PUSH(c->s, nm, frictions, friction_count,
                                                   FRICTIONS);
                if (x)
                    x->loc = loc, x->coord = a, x->entropy = b, x->value = e;
                ok = x != NULL;
                break;
            }
            case ST_HEAT: {
                spec_heat *x = SPEC_MODEL_PUSH(c->s, nm, heats, heat_count, HEATS);
                if (x)
                    x->loc = loc, x->a = a, x->b = b, x->value = e;
                ok = x != NULL;
                break;
            }
            default: {
                spec_heat_input *x = SPEC_MODEL_PUSH(c->s, nm, heat_inputs, heat_input_count,
                                                     HEAT_INPUTS);
                if (x)
                    x->loc = loc, x->entropy = a, x->value = e;
                ok = x != NULL;
                break;
            }
            }
            if (!ok) {
                nomem(c);
                break;
            }
            ok = range_next(c, &r, &more);
        }
        xin_free(c, &in);
        if (!ok)
            return false;
    }
    return true;
}

static bool expand_rest(xctx *c)
{
    const spec_model *om = c->om;
    for (int i = 0; i < om->let_count; i++)
        if (!expand_let_values(c, i))
            return false;
    for (int i = 0; i < om->lagrangian_count; i++) {
        spec_term *t = SPEC_MODEL_PUSH(c->s, c->nm, lagrangian, lagrangian_count, LAGRANGIAN);
        if (!t)
            return nomem(c);
        t->loc = om->lagrangian[i].loc;
        c->env_count = 0;
        if (!emit_once(c, &om->lagrangian[i].value, &t->value))
            return false;
    }
    if (!expand_constraints(c))
        return false;
    for (int w = ST_FORCE; w <= ST_HEAT_INPUT; w++)
        if (!expand_targeted(c, w))
            return false;
    for (int i = 0; i < om->setting_count; i++) {
        spec_setting *st = SPEC_MODEL_PUSH(c->s, c->nm, settings, setting_count, SETTINGS);
        if (!st)
            return nomem(c);
        *st = om->settings[i];
        c->env_count = 0;
        if (!emit_once(c, &om->settings[i].value, &st->value))
            return false;
    }
    return expand_outputs(c) && expand_twoforms(c);
}

// --- one model -----------------------------------------------------------------------------

// the name table of the expansion: definitions in their original order, families in place
static bool expansion_names(xctx *c)
{
    const spec_names *names = c->om->names;
    int32_t seq = 0;
    for (int i = 0; i < names->count; i++) {
        const spec_symbol *sym = &names->items[i];
        const xfam *f = c->x->fams[sym->kind] ? &c->x->fams[sym->kind][sym->index] : NULL;
        if (!f)
            continue;
        for (int32_t k = f->first; k < f->first + f->count; k++) {
            // no duplicates: plain names are those of the original, elements have brackets
            const char *name = name_of(c->nm, sym->kind, k);
            spec_loc loc = loc_of(c->nm, sym->kind, k);
            spec_symbol item = { name, loc, sym->kind, k, ++seq, 0 };
            if (!spec_names_add(&c->s->mem, c->nm->names, &item))
                return nomem(c);
        }
    }
    return true;
}

static spec_model *new_model(xglobal *g, const spec_model *om)
{
    spec *s = g->s;
    spec_model *m = mem_arena_alloc(&s->arena, sizeof *m);
    spec_expansion *x = mem_arena_alloc(&s->arena, sizeof *x);
    spec_model **slot = m && x ? spec_push(s, &s->models, &s->model_count, &s->model_cap,
                                           sizeof *s->models)
                               : NULL;
    if (!slot) {
        spec_out_of_memory(s);
        return NULL;
    }
    memset(m, 0, sizeof *m);
    memset(x, 0, sizeof *x);
    m->name = om->name;
    m->loc = om->loc;
    m->file = om->file;
    m->dir = om->dir;
    m->expansion = x;
    x->orig = om;
    m->names = spec_names_create(&s->mem);
    if (!m->names) {
        s->model_count--;
        spec_out_of_memory(s);
        return NULL;
    }
    *slot = m;
    const int counts[] = { om->param_count, om->coord_count, om->let_count, om->entropy_count,
                           om->component_count, om->constraint_count, om->twoform_count,
                           om->output_count };
    for (size_t k = 0; k < sizeof array_kinds / sizeof *array_kinds; k++) {
        x->fams[array_kinds[k]] = mem_arena_alloc(&s->arena, ((size_t)counts[k] + 1) *
                                                                  sizeof(xfam));
        if (!x->fams[array_kinds[k]]) {
            spec_out_of_memory(s);
            return NULL;
        }
        memset(x->fams[array_kinds[k]], 0, ((size_t)counts[k] + 1) * sizeof(xfam));
    }
    return m;
}

// Expands one model instance (prefix "" for the root); NULL when out of memory; errors mark
// the result failed.
static spec_model *expand_model(xglobal *g, const spec_model *om, const char *prefix,
                                const spec_component *via, const double *via_values,
                                spec_loc via_loc)
{
    spec_model *nm = new_model(g, om);
    if (!nm)
        return NULL;
    xctx c;
    memset(&c, 0, sizeof c);
    c.g = g;
    c.s = g->s;
    c.om = om;
    c.nm = nm;
    c.x = nm->expansion;
    c.prefix = prefix;
    c.via = via;
    c.via_values = via_values;
    c.via_loc = via_loc;
    // each expanded instance of a model costs its tables, whatever its size: nested component
    // families multiply these (10 per level over 9 levels: 10^9 instances)
    bool ok = spend(&c, SPEC_EXPAND_MODEL_UNITS, via_loc);
    // 1. parameters and lets, in definition order
    for (int i = 0; ok && i < om->names->count; i++) {
        const spec_symbol *sym = &om->names->items[i];
        if (sym->kind == SPEC_SYM_PARAMETER)
            ok = expand_param(&c, sym->index);
        else if (sym->kind == SPEC_SYM_LET)
            ok = expand_let(&c, sym->index);
    }
    // 2. variables and components; 3. the rest; 4. names; 5. checks
    ok = ok && expand_vars(&c, SPEC_SYM_COORDINATE) && expand_vars(&c, SPEC_SYM_ENTROPY) &&
         expand_components(&c) && expand_rest(&c) && expansion_names(&c);
    mem_free(&c.s->mem, c.pval);
    mem_free(&c.s->mem, c.lval);
    if (!ok || c.failed || c.s->mem.failed) {
        nm->failed = true;
        return nm;
    }
    spec_resolve_model(c.s, nm);
    if (!nm->failed && nm->component_count > 0)
        spec_resolve_components(c.s, nm);
    return nm;
}

// --- the spec ------------------------------------------------------------------------------

// Every override naming an element (`k[3]`, `cell[2].C`) must name one that exists; the
// message names the range of the index that is out of it.
static void check_overrides(xglobal *g, const spec_model *root)
{
    spec *s = g->s;
    spec_loc none = { NULL, 0, 0 };
    for (int k = 0; k < s->override_count; k++) {
        const char *name = s->overrides[k].name;
        if (!strchr(name, '['))
            continue;
        const spec_model *owner;
        spec_ref ref;
        if (spec_lookup_qualified(root, name, &owner, &ref) && ref.kind == SPEC_SYM_PARAMETER)
            continue;
        // find the index out of range: walk the segments through the expansions
        const spec_model *m = root;
        const char *q = name, *seg;
        size_t len;
        int dims;
        bool told = false;
        while (!told && m && spec_pattern_segment(&q, &seg, &len, &dims)) {
            const spec_expansion *x = m->expansion;
            const spec_model *orig = x ? x->orig : m;
            const spec_symbol *sym = spec_names_find(orig->names, seg, len);
            if (sym && dims > 0 && x && x->fams[sym->kind]) {
                const xfam *f = &x->fams[sym->kind][sym->index];
                const char *v = seg + len;
                for (int d = 0; d < dims && d < f->dims; d++) {
                    while (*v == '[' || *v == ']' || *v == ',')
                        v++;
                    long long value = strtoll(v, (char **)&v, 10);
                    long long hi = (long long)(f->lo[d] + f->size[d] - 1);
                    if (value < f->lo[d] || value > hi) {
                        spec_error(s, DIRAC_ERR_PARSE, none, "parameter override '%s': index "
                                   "%lld is out of range for '%.*s' (%lld..%lld)", name, value,
                                   (int)len, seg, (long long)f->lo[d], hi);
                        told = true;
                        break;
                    }
                }
            }
            // on to the component the segment names
            size_t seglen = (size_t)(q - seg) - (*q ? 1 : 0);
            if (*q && (seglen == 0 || q[-1] != '.'))
                break;
            const spec_symbol *at = spec_names_find(m->names, seg, *q ? seglen : (size_t)(q - seg));
            m = at && at->kind == SPEC_SYM_COMPONENT && *q ? m->components[at->index].model : NULL;
        }
        if (!told)
            spec_error(s, DIRAC_ERR_PARSE, none, "parameter override '%s': there is no such "
                       "element", name);
    }
}

void spec_set_expansion_limit(spec *s, long limit)
{
    if (s)
        s->max_expansion = limit > 0 ? limit : SPEC_EXPAND_DEFAULT_LIMIT;
}

void spec_set_memory_limit(spec *s, double bytes)
{
    if (!s)
        return;
    if (!(bytes > 0.0))
        bytes = SPEC_MODEL_MEMORY_DEFAULT;
    s->max_model_bytes = bytes;
    double units = bytes / SPEC_BYTES_PER_UNIT;
    s->max_expansion = units >= (double)LONG_MAX ? LONG_MAX : units < 1.0 ? 1 : (long)units;
}

dirac_status spec_expand(spec *s)
{
    if (!s)
        return DIRAC_ERR_ARGUMENT;
    if (s->expand_done || spec_status(s) != DIRAC_OK || !spec_root(s))
        return spec_status(s) != DIRAC_OK || spec_root(s) ? spec_status(s) : DIRAC_ERR_PARSE;
    s->expand_done = true;
    xglobal g;
    memset(&g, 0, sizeof g);
    g.s = s;
    g.budget = s->max_expansion;
    // which models need work: those with families and those that include them (a fixed point
    // over the component graph, whose depth is bounded)
    g.model_count = s->model_count;
    g.models = mem_alloc(&s->mem, ((size_t)g.model_count + 1) * sizeof *g.models);
    g.needs = mem_alloc(&s->mem, ((size_t)g.model_count + 1) * sizeof *g.needs);
    if (!g.models || !g.needs) {
        mem_free(&s->mem, g.models);
        mem_free(&s->mem, g.needs);
        spec_out_of_memory(s);
        return s->status;
    }
    for (int k = 0; k < g.model_count; k++) {
        g.models[k] = s->models[k];
        g.needs[k] = s->models[k]->indexed;
    }
    for (bool changed = true; changed;) {
        changed = false;
        for (int k = 0; k < g.model_count; k++)
            for (int j = 0; !g.needs[k] && j < g.models[k]->component_count; j++)
                if (model_needs(&g, g.models[k]->components[j].model))
                    g.needs[k] = changed = true;
    }
    if (model_needs(&g, s->root)) {
        spec_loc none = { NULL, 0, 0 };
        spec_model *nm = expand_model(&g, s->root, "", NULL, NULL, none);
        if (nm && !nm->failed && s->status == DIRAC_OK)
            check_overrides(&g, nm);
        if (nm && !nm->failed && s->status == DIRAC_OK && !s->mem.failed) {
            s->root = nm;
            s->expanded = true;
        }
    }
    mem_free(&s->mem, g.models);
    mem_free(&s->mem, g.needs);
    mem_free(&s->mem, g.out);
    mem_free(&s->mem, g.kids);
    mem_free(&s->mem, g.val);
    mem_free(&s->mem, g.buf);
    if (s->mem.failed)
        spec_out_of_memory(s);
    diag_finish(&s->diag);
    return s->status;
}
