// Internal: the instance tree of a model with components (component NAME = MODEL(...)), the
// global layout of their variables, and the evaluation of every instance's parameters and lets
// in dependency order (iterative, with cycle detection).
#ifndef DIRAC_SRC_MODEL_INSTANCE_H
#define DIRAC_SRC_MODEL_INSTANCE_H

#include "expr.h"
#include "mem.h"
#include "model_lower.h"
#include "spec.h"

typedef struct instance instance;

struct instance {
    const spec_model *sm;
    instance *parent;
    int component;              // index of this instance among the parent's components (-1: root)
    char *prefix;               // "" for the root, "a." / "a.b." for components
    int depth;
    int first_q, first_s;       // global indices of its own coordinates / entropy variables
    instance **children;        // one per component of sm
    double *param_values;
    int *input_index;           // per parameter: its global input number, -1 if not an input
    expr_id *let_ids;
    unsigned char *param_state, *let_state;   // 0 pending, 1 in progress, 2 done
    lower_scope scope;          // lowering of this instance's expressions
};

/// All instances in pre-order (root first) and the totals of the global layout.
typedef struct instance_tree {
    mem_counter *mem;           // the account of the model being compiled
    mem_arena arena;            // the instances and their arrays
    instance **items;
    int count;
    int n, ns;                  // coordinates and entropy variables of the whole system
    int nu;                     // inputs of the whole system (pre-order, declaration order)
} instance_tree;

/// Builds the tree of `root` (components must be loaded), allocating through `mem`, and
/// assigns the global layout: each instance's coordinates, then its components' (pre-order).
/// Returns 0 after reporting the error in the spec; instance_tree_free frees it either way.
int instance_tree_build(instance_tree *tree, spec *s, const spec_model *root, mem_counter *mem);

/// Sets up every instance's lowering scope (pool, input indices of v, S, t) and evaluates all
/// parameters (overrides, then component arguments, then their own expressions) and lets, in
/// dependency order. Returns 0 after reporting an error (cycle, non-constant parameter...).
int instance_tree_evaluate(instance_tree *tree, spec *s, expr_pool *pool, int first_v,
                           int first_s, int index_t, int first_u);

void instance_tree_free(instance_tree *tree);

/// The instance and symbol a (maybe qualified) name denotes from `from`; 0 if undefined.
int instance_resolve(const instance *from, const char *name, const instance **owner,
                     spec_ref *ref);

#endif
