// Internal: the compiled model (spec -> dirac_model). Immutable after compilation; everything
// an integrator evaluates is a tape over one input vector
//     x = [ q (n) | v (n) | S (ns) | t | mu (m) | u (nu) | a (na) ]
// (u: the `input` signals, set by the host between steps and held constant over a step; a: the
// accelerations q'', which only outputs read, so na = n when an output names one, else 0)
// and every Jacobian has its sparsity pattern fixed here.
#ifndef DIRAC_SRC_MODEL_H
#define DIRAC_SRC_MODEL_H

#include <dirac/model.h>

#include "codegen.h"
#include "expr.h"
#include "mem.h"

/// A compiled group of expressions: values[k] = outputs[k](x).
typedef struct model_group {
    expr_id *ids;      // the expressions (in the model's pool); in the model's block, except
                       // for a sparse matrix's values (owned by the matrix)
    int count;
    expr_tape *tape;   // NULL when count == 0
    const codegen_module *module;   // generated code evaluating the group, or NULL (tape)
    int bit;                        // the group's index in the module
} model_group;

/// A sparse matrix of expressions in compressed rows, over columns that are input indices.
/// It owns its arrays (their sizes are known only after differentiation).
typedef struct model_sparse {
    int rows, cols;
    int nnz;
    int *row_start;    // rows + 1
    int *col;          // nnz, column index (0-based within the block's own column range)
    model_group values;
} model_sparse;

/// Per-constraint facts.
typedef struct model_constraint {
    char *name;                 // qualified for components' constraints ("arm.rod")
    dirac_constraint_kind kind;
    int time_dependent;         // depends on t
    int subsystem;              // top-level component it belongs to; -1: the outer model
    int interaction;            // declared in a model with components, relating their variables
    int line, col;              // where it is declared (in its own model file)
} model_constraint;

/// One term c(q, t) d(A) ∧ d(B) of a `twoform`.
typedef struct model_wedge {
    int a, b;                   // coordinates
    int twoform;                // index into twoform_names
} model_wedge;

/// A top-level part of the system for the interconnection check: a component of the outer
/// model (with everything below it) or the outer model's own coordinates.
typedef struct model_subsystem {
    char *name;
    int component;              // index among the outer model's components; -1: its own coordinates
    int first, count;           // its coordinates
} model_subsystem;

struct dirac_model {
    // memory: every allocation of the model is counted in `mem`, which continues the failure
    // injection of its spec; a simulation of the model starts from mem_counter_inherit(&mem).
    // The arrays whose sizes the instance tree fixes share one block (model_compile.c:
    // model_layout); names and the interactions' coordinate lists live in the arena `text`.
    mem_counter mem;
    void *block;
    mem_arena text;
    char *name;
    char *file;
    // parameters of every instance after overrides (qualified names), for dirac_model_parameter
    int param_count;
    char **param_names;
    double *param_values;
    int n, ns, m;                     // coordinates, entropy variables, constraints
    int n_inputs;                     // 2n + ns + 1 + m + nu + na
    int first_v, first_s, index_t, first_mu, first_u, first_a;
    int na;                           // accelerations in x: n when an output uses one, else 0
    int nu;                           // `input` signals (not in param_names)
    char **input_names;
    double *input_defaults;
    char **coord_names, **entropy_names, **output_names;
    model_constraint *constraints;
    int output_count;
    int component_count;              // component instances, at every depth
    model_subsystem *subsystems;      // for the interconnection check (when components exist)
    int subsystem_count;
    // two-forms: names, terms, coefficients (group), and which are interactions
    char **twoform_names;
    int *twoform_subsystem;           // -1: declared in the outer model
    int *twoform_interaction;
    int twoform_count;
    model_wedge *wedges;
    int wedge_count;
    model_group wedge_coefficients;   // c of each wedge
    // interactions: constraints (kind 0) and two-forms (kind 1) joining components
    int interaction_count;
    int *interaction_kind, *interaction_index;
    int **interaction_coords, *interaction_coord_count;

    expr_pool *pool;
    // symbolic pieces (ids in pool)
    expr_id lagrangian;
    int friction_count;               // `friction COORD -> S: EXPR` statements
    int *friction_coord, *friction_entropy;
    expr_id *friction;                // friction_count forces
    expr_id *heat_input;              // ns: external heat power
    int heat_count;
    int *heat_pair;                   // 2 * heat_count entropy indices
    expr_id *heat_conductance;        // heat_count

    // compiled groups
    model_group lagrangian_value;     // [L]
    model_group gradient;             // [∂L/∂q (n), ∂L/∂v (n), ∂L/∂S (ns), ∂L/∂t]
    model_sparse hessian;             // ∂²L/∂y∂y, y = (q, v, S, t): (2n+ns+1) square
    model_group constraint_values;    // [c_a]
    model_sparse constraint_forms;    // ω_a,i = ∂c_a/∂v_i (nonholonomic) or ∂φ_a/∂q_i
    model_group constraint_rates;     // b_a: ∂φ_a/∂t (holonomic) or c_a(v = 0)
    model_sparse constraint_jacobian; // ∂c_a/∂(q, v, S, t) (m x (2n+ns+1))
    model_sparse form_curvature;      // ∂(Σ_a μ_a ω_a,i)/∂q_j (n x n): the Newton term of μ·ω
    model_group forces;               // [F_i + F^fr_i]
    model_sparse force_jacobian;      // ∂F_i/∂(q, v, S) (n x (2n+ns))
    model_group outputs;              // [output_k]
    model_sparse output_jacobian;     // ∂output_k/∂x over all inputs (linearisation's C)
    model_group thermal;              // [friction forces (friction_count) | conductances
                                      //  (heat_count) | heat inputs (ns)]
    int thermodynamic;                // friction, heat exchange or a heat input that is not
                                      // identically 0: only thermodynamic methods integrate it
    int work_size;                    // doubles of scratch the largest tape needs
    // generated code (src/codegen_model.c): NULL when the tapes evaluate the model
    codegen_module *codegen;
    codegen_report codegen_report;

    // initial state and simulate defaults
    double *q0, *v0, *s0;
    unsigned char *q0_fixed, *v0_fixed;   // `initial ... fixed`: kept by the projection
    char method[32];
    double dt, t_end, tol;
    int every, max_iter;
    double *breakpoints;              // sorted times where a comparison of t alone switches
    int breakpoint_count;
    int has_method, has_dt, has_t_end, has_every, has_tol, has_max_iter;
};

/// Writes the inputs' defaults into x[first_u ..] (evaluations at the initial state).
void model_set_default_inputs(const dirac_model *m, double *x);
/// Collects the model's breakpoints in time (model_breakpoints.c): after compilation.
dirac_status model_find_breakpoints(dirac_model *m);
/// The first breakpoint after t, or +infinity.
double model_next_breakpoint(const dirac_model *m, double t);

/// Evaluates a group at x into values (work: model->work_size doubles).
void model_group_eval(const model_group *g, const double *x, double *work, double *values);

/// The groups the generated code evaluates, in the order of its bits (codegen_model.c).
typedef enum model_codegen_group {
    MODEL_CG_LAGRANGIAN, MODEL_CG_GRADIENT, MODEL_CG_HESSIAN, MODEL_CG_CONSTRAINT_VALUES,
    MODEL_CG_CONSTRAINT_FORMS, MODEL_CG_CONSTRAINT_RATES, MODEL_CG_CONSTRAINT_JACOBIAN,
    MODEL_CG_CURVATURE, MODEL_CG_FORCES, MODEL_CG_FORCE_JACOBIAN, MODEL_CG_OUTPUTS,
    MODEL_CG_OUTPUT_JACOBIAN, MODEL_CG_THERMAL, MODEL_CG_WEDGES, MODEL_CG_COUNT
} model_codegen_group;

/// Generates, compiles (or finds in the cache) and loads C code for every group of the model,
/// unless `enabled` is 0 or DIRAC_CODEGEN=off; on any failure the tapes stay, with the reason
/// in m->codegen_report (never fails the compilation).
void model_codegen_attach(dirac_model *m, int enabled);
/// The group of bit g of the generated code (MODEL_CG_*); NULL for an unknown bit.
const model_group *model_codegen_group_of(const dirac_model *m, model_codegen_group g);

/// Unloads the generated code (at model destruction).
void model_codegen_release(dirac_model *m);

/// DIRAC_ERR_NOT_FINITE (naming the value) when the point x (model->n_inputs values: q, v, S,
/// t, ...) or the Lagrangian, its gradient, a constraint or a one-form there is NaN or infinite:
/// the model is not defined at x. Allocates its scratch (not for use inside a step).
dirac_status model_check_defined(const dirac_model *m, const double *x, dirac_error *err);

/// model_check_defined with the values at x already evaluated: the Lagrangian (one value), its
/// gradient (m->gradient), the constraints (m->constraint_values) and their one-forms
/// (m->constraint_forms.values). Allocates nothing.
dirac_status model_check_defined_values(const dirac_model *m, const double *x,
                                        double lagrangian, const double *gradient,
                                        const double *constraint, const double *forms,
                                        dirac_error *err);

/// The symbolic Frobenius test of every constraint (src/model_frobenius.c): verdict[a] is
/// DIRAC_INTEGRABLE_HOLONOMIC, _CLOSED or _FROBENIUS where shown, else
/// DIRAC_DEFECT_ZERO_AT_INITIAL_STATE (not shown; the numerical test decides the rest).
dirac_status model_frobenius_symbolic(const dirac_model *m, dirac_integrability *verdict,
                                      dirac_error *err);

#endif
