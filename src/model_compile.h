// Internal: what the stages of model compilation share. dirac_model_compile (model_compile.c)
// builds the instance tree, lays the model's arrays out in one block and runs the stages:
// declarations (names, parameters, initial state, settings, interactions: model_compile.c),
// equations (the Lagrangian and its derivatives, constraints, forces, heat, outputs:
// model_equations.c) and the independence check of the constraints (model_rank_check.c).
// A stage returns 1, or 0 after reporting its error in the spec.
#ifndef DIRAC_SRC_MODEL_COMPILE_H
#define DIRAC_SRC_MODEL_COMPILE_H

#include "model.h"
#include "model_instance.h"

typedef struct compile_state {
    dirac_model *m;
    spec *spec;
    instance_tree tree;
    // constraints of all instances, in the model's order
    const spec_constraint **constraint_spec;
    const instance **constraint_owner;
} compile_state;

/// Reports out of memory, or a library error (no source location), in the spec; return 0.
int compile_fail_nomem(compile_state *c);
int compile_fail_status(compile_state *c, const dirac_error *err);

/// 1 when the expression pool has not failed; else reports its error and returns 0.
int compile_pool_ok(compile_state *c);

/// Global index of the coordinate or entropy variable `name` seen from `in` (-1 if it is not one).
int compile_resolve_variable(const instance *in, const char *name, spec_sym_kind kind);

/// Compiles the tape of a group whose ids are set (nothing for an empty group) and widens the
/// model's work size to it.
dirac_status model_group_compile(dirac_model *m, model_group *g, dirac_error *err);

/// The Jacobian of `count` expressions with respect to the input indices first .. first+cols-1,
/// compiled into `out`.
dirac_status model_sparse_jacobian(dirac_model *m, model_sparse *out, int count,
                                   const expr_id *ids, int first, int cols, dirac_error *err);

/// Moves the arrays of an expr_sparse Jacobian into `out` and compiles its values.
dirac_status model_sparse_from_jacobian(dirac_model *m, model_sparse *out, expr_sparse *jac,
                                        dirac_error *err);

// the stages of model_equations.c, in the order they run
int compile_lagrangian(compile_state *c);
int compile_constraints(compile_state *c);
int compile_forces(compile_state *c);
int compile_heat(compile_state *c);
int compile_thermal(compile_state *c);
int compile_outputs(compile_state *c);

/// Refuses linearly dependent constraints at the initial state, naming the combination
/// (model_rank_check.c).
int compile_check_constraint_rank(compile_state *c);

#endif
