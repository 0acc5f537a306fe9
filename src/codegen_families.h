// Internal: outputs of the same shape, for generated code that loops over an indexed family
// (src/codegen_emit.c) instead of writing one statement per element.
//
// An expanded family `coordinate x[N]` gives groups whose outputs repeat one expression with
// other indices: ∂L/∂x[i] of a spring chain is the same tree for every inner i, on x[i-1],
// x[i], x[i+1]. Two outputs of a group are of one shape when the canonical walk of their
// expression DAGs (depth first, children in order, each node once, numbered in post-order)
// gives the same operations on the same local operands; they may differ in the inputs and
// constants at the leaves. A family is a shape with at least FAMILY_MIN_MEMBERS outputs; the
// generated code evaluates it as one loop whose body is the shape, member by member:
//     for (i = 0; i < members; i++) { u0 = x[3 + i] - x[2 + i]; ...; o[g][1 + i] = u7; }
// each leaf column (the input index, or the constant, of one leaf over the members) fixed,
// affine in i, or read from an index table (irregular orderings: a 2-D lattice's interior).
// The body is the operations of the DAG, so a member's value is exactly the tape's; what is
// lost is sharing across outputs (a subexpression of two members is computed twice).
#ifndef DIRAC_SRC_CODEGEN_FAMILIES_H
#define DIRAC_SRC_CODEGEN_FAMILIES_H

#include "expr.h"

#include <stdint.h>

/// Models whose straight-line code has at most this many statements are emitted as such
/// (compiled in well under 0.5 s; their shared subexpressions run faster than loops).
#define FAMILY_MIN_STATEMENTS 300L
/// Families are used when they make the code at least this many times smaller than
/// straight-line code (or when that is above CODEGEN_MAX_STATEMENTS).
#define FAMILY_MIN_SHRINK 2
/// With families, a group whose outputs outside them still need more statements than this
/// is left to its tape (a sum over a family: the Lagrangian's value).
#define FAMILY_GROUP_STATEMENTS 1000L
/// Fewest outputs of one shape worth a loop.
#define FAMILY_MIN_MEMBERS 4
/// Largest shape (nodes of one output's DAG, leaves included) looked at; larger outputs are
/// emitted as straight-line code.
#define FAMILY_MAX_NODES 256

typedef enum family_column_form {
    COLUMN_FIXED,    // the same for every member: `base`
    COLUMN_AFFINE,   // base + stride i
    COLUMN_TABLE,    // ix[row + column] of member i's row (irregular)
    COLUMN_VALUES,   // constants: a value per member, `values` (k[...] consecutive)
} family_column_form;

typedef struct family_column {
    family_column_form form;
    long base, stride;   // input index (or output index); constants: FIXED's pool id
    int column;          // COLUMN_TABLE: the position in a member's row
    long values;         // COLUMN_VALUES: first of `members` values in codegen_families.values
} family_column;

typedef struct codegen_family {
    int group;
    int members;
    expr_id root;            // member 0's output node: its DAG is the loop's body
    family_column output;    // the index in the group's outputs written by member i
    int slot_count;          // leaves of the shape, in walk order
    expr_id *slot_leaf;      // member 0's leaf per slot (its kind: VAR or CONST)
    family_column *slot;
    int width;               // ints per member row of the index table (0: none)
    long table;              // first int of the family's rows in codegen_families.index
} codegen_family;

typedef struct codegen_families {
    int count;
    codegen_family *family;
    uint8_t *looped;   // per output, numbered group by group: 1 when a family writes it
    int *index;        // index table (all families' rows)
    long index_count, index_capacity;
    double *values;    // per-member constants of COLUMN_VALUES slots
    long value_count, value_capacity;
    long nodes;        // nodes of all family bodies (statements they emit)
} codegen_families;

/// Sums over a family: an output whose spine of + and − (the child with the longer spine,
/// link by link) has at least CHAIN_MIN_LINKS links is evaluated as an accumulator, acc =
/// acc ± term, with the runs of consecutive terms of one shape as loops, each link the
/// tape's operation in the tape's operand order. At most CHAIN_MAX_SINGLES links may fall
/// outside runs (straight-line code), else the output is left to the other paths.
#define CHAIN_MIN_LINKS 32
#define CHAIN_MAX_SINGLES 64

typedef struct chain_run {
    expr_kind op;            // EXPR_ADD or EXPR_SUB
    int accumulator_right;   // 1: acc = term op acc; 0: acc = acc op term
    // the terms: a loop over loop.members >= FAMILY_MIN_MEMBERS terms of one shape (its
    // output column unused), or one term, loop.root (members 1, no columns)
    codegen_family loop;
} chain_run;

typedef struct codegen_chain {
    expr_id bottom;   // the spine's first value
    int run_count;
    chain_run *run;   // bottom up
    int singles;      // runs of one term
    long walked;      // nodes the decomposition walked (the caller's budget)
} codegen_chain;

/// Scratch of the walks over a pool's nodes, reused by every codegen_chain_runs (so that
/// many sums cost their own size, not the pool's each). NULL when out of memory.
typedef struct walk codegen_walk;
codegen_walk *codegen_walk_create(const expr_pool *pool);
void codegen_walk_free(codegen_walk *w);

/// Per pool node: links of its longest spine of + and − (0 for other kinds). NULL: no memory.
int32_t *codegen_chain_lengths(const expr_pool *pool);

/// The runs of the chain below root; index rows and per-member constants go to f (NULL: the
/// runs are found, their columns not: out->singles for a decision).
dirac_status codegen_chain_runs(const expr_pool *pool, const int32_t *length, expr_id root,
                                codegen_families *f, codegen_walk *w, codegen_chain *out,
                                dirac_error *err);

void codegen_chain_free(codegen_chain *c);

/// Finds the families of the groups' outputs. DIRAC_ERR_NOMEM only.
dirac_status codegen_find_families(const expr_pool *pool, int n_groups,
                                   const expr_id *const *ids, const int *counts,
                                   codegen_families *out, dirac_error *err);

void codegen_families_free(codegen_families *f);

/// The nodes of member 0's shape in walk order (post-order: children first), leaves
/// included; returns their number (<= FAMILY_MAX_NODES). `nodes` holds FAMILY_MAX_NODES.
int codegen_family_body(const expr_pool *pool, const codegen_family *family, expr_id *nodes);

#endif
