// Outputs of the same shape: the families the generated code loops over, and the runs of
// terms of one shape in long sums (codegen_families.h).
//
// Each output's DAG is walked once (capped at FAMILY_MAX_NODES nodes) into a canonical
// signature, hashed; outputs of one group with equal hashes are checked word by word against
// the first output of that hash (the walk is repeated rather than stored, so memory stays
// proportional to the outputs) and join its shape. The leaves of each member are kept in
// walk order, and each leaf position becomes a column: fixed, affine in the member number,
// a constant per member, or a row of the index table. A sum's spine is followed down the
// child with the longer chain of + and −; consecutive terms of one signature and operation
// form a run.
#include "codegen_families.h"

#include "error.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define SIGNATURE_WORDS (4 * FAMILY_MAX_NODES + 4)

// One walk: nodes numbered in post-order, the signature's words, the leaves in order.
typedef struct walk {
    int32_t *stamp, *number;   // per pool id (stamp == current: numbered in this walk)
    int32_t current;
    int count;                 // nodes numbered
    int leaf_count;
    expr_id leaf[FAMILY_MAX_NODES];
    int64_t word[SIGNATURE_WORDS];
    int words;
} walk;

static int leaf_kind(expr_kind kind)
{
    return kind == EXPR_CONST || kind == EXPR_VAR;
}

// Walks the DAG below root; 0 when it has more than FAMILY_MAX_NODES nodes.
static int walk_output(const expr_pool *pool, expr_id root, walk *w)
{
    struct { expr_id id; int expanded; } stack[2 * FAMILY_MAX_NODES + 4];
    int sp = 0, expanded = 0;
    w->current++;
    w->count = w->leaf_count = w->words = 0;
    stack[sp++].id = root;
    stack[0].expanded = 0;
    while (sp > 0) {
        expr_id id = stack[sp - 1].id;
        if (w->stamp[id] == w->current) {
            sp--;
            continue;
        }
        expr_kind kind = expr_kind_of(pool, id);
        if (!leaf_kind(kind) && !stack[sp - 1].expanded) {
            if (++expanded > FAMILY_MAX_NODES)
                return 0;
            stack[sp - 1].expanded = 1;
            for (int which = 1; which >= 0; which--) {
                expr_id child = expr_child(pool, id, which);
                if (child != EXPR_NONE && w->stamp[child] != w->current) {
                    stack[sp].id = child;
                    stack[sp++].expanded = 0;
                }
            }
            continue;
        }
        sp--;
        if (w->count == FAMILY_MAX_NODES)
            return 0;
        w->stamp[id] = w->current;
        w->number[id] = w->count++;
        w->word[w->words++] = kind;
        if (leaf_kind(kind)) {
            w->leaf[w->leaf_count++] = id;
            continue;
        }
        for (int which = 0; which < 2; which++) {
            expr_id child = expr_child(pool, id, which);
            w->word[w->words++] = child == EXPR_NONE ? -1 : w->number[child];
        }
        // a constant exponent picks the powering (codegen_emit.c): part of the shape
        expr_id exponent = expr_child(pool, id, 1);
        if (kind == EXPR_POW && expr_kind_of(pool, exponent) == EXPR_CONST) {
            double e = expr_const_value(pool, exponent);
            int64_t bits;
            memcpy(&bits, &e, sizeof bits);
            w->word[w->words++] = bits;
        }
    }
    return 1;
}

static uint64_t hash_words(const int64_t *word, int words, int group)
{
    uint64_t h = UINT64_C(0xcbf29ce484222325) ^ (uint64_t)group;
    for (int i = 0; i < words; i++) {
        h ^= (uint64_t)word[i];
        h *= UINT64_C(0x100000001b3);
        h ^= h >> 29;
    }
    return h;
}

// The column of `members` values v[i * stride_v]: fixed, affine, or else a table column.
static family_column column_of(const long *v, int members)
{
    family_column c = { COLUMN_FIXED, v[0], 0, -1, -1 };
    long step = v[1] - v[0];
    int fixed = 1, affine = 1;
    for (int i = 1; i < members; i++) {
        fixed &= v[i] == v[0];
        affine &= v[i] == v[0] + step * i;
    }
    if (!fixed)
        c.form = affine ? COLUMN_AFFINE : COLUMN_TABLE;
    c.stride = affine ? step : 0;
    return c;
}

void codegen_families_free(codegen_families *f)
{
    for (int k = 0; k < f->count; k++) {
        free(f->family[k].slot_leaf);
        free(f->family[k].slot);
    }
    free(f->family);
    free(f->looped);
    free(f->index);
    free(f->values);
    memset(f, 0, sizeof *f);
}

// the shapes of the outputs (a shape is named by its first output; -1: none)
typedef struct shapes {
    int32_t *shape;        // per output
    int32_t *first_slot;   // per output: its leaves in `leaves`
    int32_t *slots;        // per output: how many
    int32_t *members;      // per output: outputs of the shape it is the first of
    expr_id *leaves;
    long leaf_count;
} shapes;

// the group of output number r (outputs numbered group by group) and its index there
static int group_of_output(const int *counts, int n_groups, int32_t r, int32_t *index)
{
    int g = 0;
    while (g < n_groups - 1 && r >= counts[g])
        r -= counts[g++];
    *index = r;
    return g;
}

// *p grown to hold `needed` items; 0 when out of memory (*p is kept)
static int grow(void **p, long *capacity, long needed, size_t item)
{
    if (needed <= *capacity)
        return 1;
    long c = 2 * *capacity + needed;
    void *q = realloc(*p, (size_t)c * item);
    if (!q)
        return 0;
    *p = q;
    *capacity = c;
    return 1;
}

static dirac_status find_shapes(const expr_pool *pool, int n_groups, const expr_id *const *ids,
                                const int *counts, int32_t total, shapes *s, walk *w, walk *w2,
                                dirac_error *err)
{
    size_t capacity = 16;
    while (capacity < 2 * (size_t)total)
        capacity *= 2;
    int32_t *table = malloc(capacity * sizeof *table);   // open addressing: first outputs
    uint64_t *hashes = malloc(((size_t)total + 1) * sizeof *hashes);
    long leaf_capacity = 1024;
    s->leaves = malloc((size_t)leaf_capacity * sizeof *s->leaves);
    dirac_status status = DIRAC_OK;
    if (!table || !hashes || !s->leaves) {
        status = error_set(err, DIRAC_ERR_NOMEM, "out of memory");
        goto done;
    }
    for (size_t i = 0; i < capacity; i++)
        table[i] = -1;
    int32_t r = 0;
    for (int g = 0; g < n_groups; g++)
        for (int i = 0; i < counts[g]; i++, r++) {
            s->shape[r] = -1;
            s->members[r] = 0;
            s->first_slot[r] = -1;
            s->slots[r] = 0;
            if (!walk_output(pool, ids[g][i], w) || s->leaf_count > INT32_MAX - FAMILY_MAX_NODES)
                continue;
            void *block = s->leaves;   // through a void * (no aliasing of expr_id **)
            int grown = grow(&block, &leaf_capacity, s->leaf_count + w->leaf_count,
                             sizeof *s->leaves);
            s->leaves = block;
            if (!grown) {
                status = error_set(err, DIRAC_ERR_NOMEM, "out of memory");
                goto done;
            }
            s->first_slot[r] = (int32_t)s->leaf_count;
            s->slots[r] = w->leaf_count;
            memcpy(s->leaves + s->leaf_count, w->leaf, (size_t)w->leaf_count * sizeof *w->leaf);
            s->leaf_count += w->leaf_count;
            uint64_t h = hash_words(w->word, w->words, g);
            hashes[r] = h;
            for (size_t slot = (size_t)h & (capacity - 1);; slot = (slot + 1) & (capacity - 1)) {
                int32_t first = table[slot];
                if (first < 0) {
                    table[slot] = r;
                    s->shape[r] = r;
                    s->members[r] = 1;
                    break;
                }
                if (hashes[first] != h)
                    continue;
                // the same hash: the same shape only if the words agree (the group is hashed)
                int32_t fi;
                int fg = group_of_output(counts, n_groups, first, &fi);
                if (fg == g && walk_output(pool, ids[fg][fi], w2) && w2->words == w->words &&
                    !memcmp(w2->word, w->word, (size_t)w->words * sizeof *w->word)) {
                    s->shape[r] = first;
                    s->members[first]++;
                }
                break;   // a collision keeps the output out of every family
            }
        }
done:
    free(table);
    free(hashes);
    return status;
}

// The leaf columns of a loop over `members` outputs of one shape (member i's leaves at
// leaves[first[i] ...], in walk order) and, when fam->output is a table column, its values
// `output`: slot columns, per-member constants, the index table's rows.
static dirac_status fill_columns(const expr_pool *pool, codegen_families *f,
                                 codegen_family *fam, const expr_id *leaves, const long *first,
                                 const long *output, long *column, dirac_error *err)
{
    int members = fam->members, slots = fam->slot_count;
    fam->slot_leaf = malloc(((size_t)slots + 1) * sizeof *fam->slot_leaf);
    fam->slot = malloc(((size_t)slots + 1) * sizeof *fam->slot);
    if (!fam->slot_leaf || !fam->slot)
        return error_set(err, DIRAC_ERR_NOMEM, "out of memory");
    int width = fam->output.form == COLUMN_TABLE;
    for (int j = 0; j < slots; j++) {
        expr_id leaf = leaves[first[0] + j];
        fam->slot_leaf[j] = leaf;
        int is_var = expr_kind_of(pool, leaf) == EXPR_VAR;
        for (int i = 0; i < members; i++) {
            expr_id id = leaves[first[i] + j];
            column[i] = is_var ? (long)expr_var_index(pool, id) : (long)id;
        }
        family_column c = column_of(column, members);
        if (!is_var && c.form != COLUMN_FIXED) {
            // constants that differ: one value per member, consecutive in k
            void *values = f->values;
            if (!grow(&values, &f->value_capacity, f->value_count + members, sizeof *f->values))
                return error_set(err, DIRAC_ERR_NOMEM, "out of memory");
            f->values = values;
            c = (family_column){ COLUMN_VALUES, 0, 0, -1, f->value_count };
            for (int i = 0; i < members; i++)
                f->values[f->value_count++] = expr_const_value(pool, leaves[first[i] + j]);
        }
        if (c.form == COLUMN_TABLE)
            c.column = width++;
        fam->slot[j] = c;
    }
    if (fam->output.form == COLUMN_TABLE)
        fam->output.column = 0;
    fam->width = width;
    fam->table = f->index_count;
    if (width == 0)
        return DIRAC_OK;
    void *index = f->index;
    if (!grow(&index, &f->index_capacity, f->index_count + (long)width * members,
              sizeof *f->index))
        return error_set(err, DIRAC_ERR_NOMEM, "out of memory");
    f->index = index;
    for (int i = 0; i < members; i++) {
        int *row = f->index + f->index_count + (long)i * width;
        if (fam->output.form == COLUMN_TABLE)
            row[0] = (int)output[i];
        for (int j = 0; j < slots; j++)
            if (fam->slot[j].form == COLUMN_TABLE)
                row[fam->slot[j].column] = expr_var_index(pool, leaves[first[i] + j]);
    }
    f->index_count += (long)width * members;
    return DIRAC_OK;
}

// family k from its members (output numbers in order): output and leaf columns, table rows
static dirac_status make_family(const expr_pool *pool, codegen_families *f, const shapes *s,
                                const expr_id *const *ids, const int *counts, int n_groups,
                                const int32_t *member, int members, long *column,
                                long *first, long *output, dirac_error *err)
{
    codegen_family *fam = &f->family[f->count++];
    int32_t index;
    fam->group = group_of_output(counts, n_groups, member[0], &index);
    fam->members = members;
    fam->root = ids[fam->group][index];
    int32_t group_start = member[0] - index;
    fam->slot_count = s->slots[member[0]];
    for (int i = 0; i < members; i++) {
        output[i] = member[i] - group_start;
        first[i] = s->first_slot[member[i]];
    }
    fam->output = column_of(output, members);
    return fill_columns(pool, f, fam, s->leaves, first, output, column, err);
}

dirac_status codegen_find_families(const expr_pool *pool, int n_groups,
                                   const expr_id *const *ids, const int *counts,
                                   codegen_families *out, dirac_error *err)
{
    memset(out, 0, sizeof *out);
    int32_t total = 0;
    for (int g = 0; g < n_groups; g++)
        total += counts[g];
    size_t size = (size_t)expr_pool_size(pool) + 1, outputs = (size_t)total + 1;
    walk *w = calloc(2, sizeof *w);
    shapes s = { 0 };
    s.shape = malloc(outputs * sizeof *s.shape);
    s.first_slot = malloc(outputs * sizeof *s.first_slot);
    s.slots = malloc(outputs * sizeof *s.slots);
    s.members = malloc(outputs * sizeof *s.members);
    out->looped = calloc(outputs, 1);
    int32_t *order = malloc(outputs * sizeof *order);
    int32_t *family_of = malloc(outputs * sizeof *family_of);
    long *column = malloc(outputs * sizeof *column), *first = malloc(outputs * sizeof *first);
    long *output = malloc(outputs * sizeof *output);
    int32_t *start = NULL;
    dirac_status status = DIRAC_OK;
    if (w) {
        for (int k = 0; k < 2; k++) {
            w[k].stamp = calloc(size, sizeof *w[k].stamp);
            w[k].number = malloc(size * sizeof *w[k].number);
        }
    }
    if (!w || !w[0].stamp || !w[0].number || !w[1].stamp || !w[1].number || !s.shape ||
        !s.first_slot || !s.slots || !s.members || !out->looped || !order || !family_of ||
        !column || !first || !output) {
        status = error_set(err, DIRAC_ERR_NOMEM, "out of memory");
        goto done;
    }
    status = find_shapes(pool, n_groups, ids, counts, total, &s, &w[0], &w[1], err);
    if (status != DIRAC_OK)
        goto done;
    // families: the shapes with enough members, numbered by their first output
    int families = 0;
    for (int32_t r = 0; r < total; r++)
        family_of[r] = s.shape[r] == r && s.members[r] >= FAMILY_MIN_MEMBERS ? families++ : -1;
    out->family = calloc((size_t)families + 1, sizeof *out->family);
    start = calloc((size_t)families + 1, sizeof *start);
    if (!out->family || !start) {
        status = error_set(err, DIRAC_ERR_NOMEM, "out of memory");
        goto done;
    }
    // members in output order, family by family (a counting sort)
    for (int32_t r = 0, at = 0; r < total; r++)
        if (family_of[r] >= 0) {
            start[family_of[r]] = at;
            at += s.members[r];
        }
    start[families] = 0;
    for (int32_t r = 0; r < total; r++) {
        int32_t k = s.shape[r] >= 0 ? family_of[s.shape[r]] : -1;
        if (k >= 0) {
            order[start[k]++] = r;
            out->looped[r] = 1;
        }
    }
    for (int32_t r = 0, at = 0; r < total && status == DIRAC_OK; r++)
        if (family_of[r] >= 0) {
            status = make_family(pool, out, &s, ids, counts, n_groups, order + at, s.members[r],
                                 column, first, output, err);
            at += s.members[r];
            int32_t index;
            int g = group_of_output(counts, n_groups, r, &index);
            if (walk_output(pool, ids[g][index], &w[0]))
                out->nodes += w[0].count;
        }
done:
    free(order);
    free(family_of);
    free(column);
    free(first);
    free(output);
    free(start);
    free(s.shape);
    free(s.first_slot);
    free(s.slots);
    free(s.leaves);
    free(s.members);
    if (w) {
        for (int k = 0; k < 2; k++) {
            free(w[k].stamp);
            free(w[k].number);
        }
        free(w);
    }
    if (status != DIRAC_OK)
        codegen_families_free(out);
    return status;
}

int32_t *codegen_chain_lengths(const expr_pool *pool)
{
    int32_t size = expr_pool_size(pool);
    int32_t *length = malloc(((size_t)size + 1) * sizeof *length);
    if (!length)
        return NULL;
    for (int32_t id = 0; id < size; id++) {   // children before parents
        expr_kind kind = expr_kind_of(pool, id);
        length[id] = 0;
        if (kind == EXPR_ADD || kind == EXPR_SUB) {
            int32_t a = length[expr_child(pool, id, 0)], b = length[expr_child(pool, id, 1)];
            length[id] = 1 + (a > b ? a : b);
        }
    }
    return length;
}

void codegen_chain_free(codegen_chain *c)
{
    for (int k = 0; k < c->run_count; k++) {
        free(c->run[k].loop.slot_leaf);
        free(c->run[k].loop.slot);
    }
    free(c->run);
    memset(c, 0, sizeof *c);
}

// closes the run of links first .. first+members-1 (terms term[], their leaves at
// leaves[start[k]...]): one loop, or one run per link when too few
static dirac_status close_run(const expr_pool *pool, codegen_families *f, codegen_chain *c,
                              const expr_kind *op, const int *right, const expr_id *term,
                              int first, int members, int slots, const expr_id *leaves,
                              const long *start, long *column, dirac_error *err)
{
    if (members < FAMILY_MIN_MEMBERS) {
        for (int k = first; k < first + members; k++) {
            chain_run *r = &c->run[c->run_count++];
            memset(r, 0, sizeof *r);
            r->op = op[k];
            r->accumulator_right = right[k];
            r->loop.members = 1;
            r->loop.root = term[k];
            c->singles++;
        }
        return DIRAC_OK;
    }
    chain_run *r = &c->run[c->run_count++];
    memset(r, 0, sizeof *r);
    r->op = op[first];
    r->accumulator_right = right[first];
    r->loop.members = members;
    r->loop.root = term[first];
    r->loop.slot_count = slots;
    r->loop.output = (family_column){ COLUMN_FIXED, 0, 0, -1, -1 };
    if (!f)   // a count only
        return DIRAC_OK;
    return fill_columns(pool, f, &r->loop, leaves, start + first, NULL, column, err);
}

codegen_walk *codegen_walk_create(const expr_pool *pool)
{
    size_t size = (size_t)expr_pool_size(pool) + 1;
    walk *w = calloc(1, sizeof *w);
    if (!w)
        return NULL;
    w->stamp = calloc(size, sizeof *w->stamp);
    w->number = malloc(size * sizeof *w->number);
    if (!w->stamp || !w->number) {
        codegen_walk_free(w);
        return NULL;
    }
    return w;
}

void codegen_walk_free(codegen_walk *w)
{
    if (!w)
        return;
    free(w->stamp);
    free(w->number);
    free(w);
}

dirac_status codegen_chain_runs(const expr_pool *pool, const int32_t *length, expr_id root,
                                codegen_families *f, codegen_walk *w, codegen_chain *out,
                                dirac_error *err)
{
    memset(out, 0, sizeof *out);
    int links = length[root];
    size_t n = (size_t)links + 1;
    expr_kind *op = malloc(n * sizeof *op);
    int *right = malloc(n * sizeof *right);
    expr_id *term = malloc(n * sizeof *term);
    long *start = malloc(n * sizeof *start), *column = malloc(n * sizeof *column);
    int64_t *run_words = malloc(SIGNATURE_WORDS * sizeof *run_words);
    out->run = calloc(n, sizeof *out->run);
    long leaf_capacity = 1024, leaf_count = 0;
    expr_id *leaves = malloc((size_t)leaf_capacity * sizeof *leaves);
    dirac_status status = DIRAC_OK;
    if (!op || !right || !term || !start || !column || !run_words || !out->run || !leaves) {
        status = error_set(err, DIRAC_ERR_NOMEM, "out of memory");
        goto done;
    }
    // the spine, top down, stored bottom up
    expr_id node = root;
    for (int k = links - 1; k >= 0; k--) {
        expr_id a = expr_child(pool, node, 0), b = expr_child(pool, node, 1);
        int spine_right = length[b] > length[a];
        op[k] = expr_kind_of(pool, node);
        right[k] = spine_right;
        term[k] = spine_right ? a : b;
        node = spine_right ? b : a;
    }
    out->bottom = node;
    // runs of consecutive terms of one shape and one operation
    int run_first = 0, run_slots = 0, run_words_count = -1;
    for (int k = 0; k < links && status == DIRAC_OK; k++) {
        int walked = walk_output(pool, term[k], w);
        out->walked += walked ? w->count : FAMILY_MAX_NODES;
        int joins = walked && k > run_first && run_words_count == w->words &&
                    op[k] == op[run_first] && right[k] == right[run_first] &&
                    !memcmp(run_words, w->words ? w->word : run_words,
                            (size_t)w->words * sizeof *w->word);
        if (k > 0 && !joins) {
            status = close_run(pool, f, out, op, right, term, run_first, k - run_first,
                               run_slots, leaves, start, column, err);
            run_first = k;
            leaf_count = 0;
        }
        if (!joins) {
            run_words_count = walked ? w->words : -1;
            if (walked)
                memcpy(run_words, w->word, (size_t)w->words * sizeof *w->word);
            run_slots = walked ? w->leaf_count : 0;
        }
        start[k] = leaf_count;
        if (walked) {
            void *block = leaves;   // through a void * (no aliasing of expr_id **)
            int grown = grow(&block, &leaf_capacity, leaf_count + w->leaf_count, sizeof *leaves);
            leaves = block;
            if (!grown) {
                status = error_set(err, DIRAC_ERR_NOMEM, "out of memory");
                break;
            }
            memcpy(leaves + leaf_count, w->leaf, (size_t)w->leaf_count * sizeof *w->leaf);
            leaf_count += w->leaf_count;
        }
        // a term too large for a walk is a run of its own
        if (!walked)
            run_words_count = -2;
    }
    if (status == DIRAC_OK && links > 0)
        status = close_run(pool, f, out, op, right, term, run_first, links - run_first,
                           run_slots, leaves, start, column, err);
done:
    free(op);
    free(right);
    free(term);
    free(start);
    free(column);
    free(run_words);
    free(leaves);
    if (status != DIRAC_OK)
        codegen_chain_free(out);
    return status;
}

int codegen_family_body(const expr_pool *pool, const codegen_family *family, expr_id *nodes)
{
    // the walk again, with a visited list instead of per-pool stamps (a body is small)
    struct { expr_id id; int expanded; } stack[2 * FAMILY_MAX_NODES + 4];
    int sp = 0, count = 0;
    stack[sp].id = family->root;
    stack[sp++].expanded = 0;
    while (sp > 0 && count < FAMILY_MAX_NODES) {
        expr_id id = stack[sp - 1].id;
        int seen = 0;
        for (int k = 0; k < count && !seen; k++)
            seen = nodes[k] == id;
        if (seen) {
            sp--;
            continue;
        }
        if (!leaf_kind(expr_kind_of(pool, id)) && !stack[sp - 1].expanded) {
            stack[sp - 1].expanded = 1;
            for (int which = 1; which >= 0; which--) {
                expr_id child = expr_child(pool, id, which);
                if (child != EXPR_NONE && sp < 2 * FAMILY_MAX_NODES + 4) {
                    stack[sp].id = child;
                    stack[sp++].expanded = 0;
                }
            }
            continue;
        }
        sp--;
        nodes[count++] = id;
    }
    return count;
}
