/// @file model.h
/// Models: `.dirac` files parsed into an editable spec, compiled into an immutable model
/// (symbolic derivatives, evaluation tapes, sparsity patterns), and analysed at their initial
/// state (`dirac check`). The language is described in docs/model-language.md.
///
/// Lifetime: dirac_spec_load → [dirac_spec_set_parameter]... → dirac_model_compile →
/// dirac_model_destroy, dirac_spec_destroy (the model does not refer to the spec afterwards).
/// A spec may take further dirac_spec_set_parameter calls after a successful compilation and
/// be compiled again, one model per parameter set (a sweep parses the file once): the new
/// model is the model of a fresh spec with those values, and the earlier models are untouched.
/// Not after a failed compilation (the spec keeps its error), nor once the compilation expanded
/// indexed families (`coordinate x[N]`: dirac_spec_set_parameter then fails with
/// DIRAC_ERR_ARGUMENT): load the file again.
/// Messages of failed loads, overrides and compilations are kept in the spec
/// (dirac_spec_errmsg), formatted `FILE:LINE:COL: error: MESSAGE` + source line + caret.
#ifndef DIRAC_MODEL_H
#define DIRAC_MODEL_H

#include <dirac/status.h>

#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

/// A parsed model file and its components, with the parameter overrides applied so far.
typedef struct dirac_spec dirac_spec;

/// Reads, parses and checks the model file `path` (and the component files it names).
/// *out receives the spec even on failure (so its message can be read), NULL only when out of
/// memory. Returns DIRAC_OK, DIRAC_ERR_PARSE, DIRAC_ERR_IO or DIRAC_ERR_NOMEM.
dirac_status dirac_spec_load(const char *path, dirac_spec **out);

/// Reads one file for dirac_spec_load_with: sets *text and *size to the file's contents, which
/// must stay valid until dirac_spec_load_with returns, and returns 0; or returns an errno value
/// (ENOENT, EACCES, ...) that the message of the failed load names.
typedef int (*dirac_file_reader)(void *context, const char *path, const char **text,
                                 size_t *size);

/// As dirac_spec_load, but every file (the model's and its components') is read through
/// `reader`, called with `context` and the path: the including file's directory joined with
/// the name in `from "FILE"`, with empty and "." parts removed and "NAME/.." parts cancelled
/// (that normalised path is also what tells files apart). For models kept elsewhere than in
/// files (an archive, a database, a fuzzer's input). DIRAC_ERR_ARGUMENT for a NULL `out` or
/// `reader` (then *out is NULL when `out` is not).
dirac_status dirac_spec_load_with(const char *path, dirac_file_reader reader, void *context,
                                  dirac_spec **out);

/// The files a load read: the model file first, then each component file once, as opened
/// (joined with the including file's directory: relative to the working directory, or
/// absolute). Index 0 .. dirac_spec_file_count()-1; 0 files for dirac_spec_parse, and NULL
/// for an index out of range. A tool that writes files can refuse to overwrite any of these.
int dirac_spec_file_count(const dirac_spec *spec);
const char *dirac_spec_file(const dirac_spec *spec, int index);

/// Parses a model held in memory; `name` is the file name shown in messages.
dirac_status dirac_spec_parse(const char *name, const char *text, size_t size, dirac_spec **out);

/// Overrides a parameter: "NAME=VALUE" (as `-p NAME=VALUE`). DIRAC_ERR_ARGUMENT for an unknown
/// parameter (the message suggests close names) or a VALUE that is not a finite number.
dirac_status dirac_spec_set_parameter(dirac_spec *spec, const char *assignment);

/// The contents of file `index` of dirac_spec_file (not zero-terminated; its length in *size,
/// which may be NULL), valid while the spec lives; NULL for a bad spec or index. For exporters
/// that embed a model with its components (docs/fmi.md).
const char *dirac_spec_file_text(const dirac_spec *spec, int index, size_t *size);

/// Limits the estimated memory of the compiled model (bytes; 0 restores the default of 2 GiB):
/// dirac_model_compile estimates the memory of the expanded families and of every component
/// instance (nested families multiply) before building them, and refuses a model above the
/// limit with the estimate in the message. DIRAC_ERR_ARGUMENT for a NULL spec or a negative or
/// NaN size.
dirac_status dirac_spec_set_memory_limit(dirac_spec *spec, double bytes);

/// How a compiled model evaluates its functions (docs/benchmarks.md, "Generated code").
typedef enum dirac_codegen_mode {
    /// Generated C compiled with the system compiler ($CC, else `cc` on PATH) and cached in
    /// $DIRAC_CACHE_DIR (else $XDG_CACHE_HOME/dirac, else ~/.cache/dirac); the evaluation
    /// tapes when no compiler works or DIRAC_CODEGEN=off is set. The default.
    DIRAC_CODEGEN_AUTO = 0,
    /// The evaluation tapes only (no compiler is run).
    DIRAC_CODEGEN_OFF = 1,
} dirac_codegen_mode;

/// Chooses how dirac_model_compile makes the model's functions evaluable (both give the same
/// numbers). DIRAC_ERR_ARGUMENT for a NULL spec or an unknown mode.
dirac_status dirac_spec_set_codegen(dirac_spec *spec, dirac_codegen_mode mode);

/// Messages of the last failure ("" if none); valid until the next call on the spec.
const char *dirac_spec_errmsg(const dirac_spec *spec);

/// Releases the spec; NULL is a no-op.
void dirac_spec_destroy(dirac_spec *spec);

/// Kinds of constraint: φ(q, t) = 0, or ⟨ω(q, t), v⟩ + b(q, t) = 0.
typedef enum dirac_constraint_kind {
    DIRAC_CONSTRAINT_INVALID = -1,   ///< returned for a NULL model or an index out of range
    DIRAC_CONSTRAINT_HOLONOMIC,
    DIRAC_CONSTRAINT_NONHOLONOMIC,
} dirac_constraint_kind;

/// A compiled model: immutable, shareable between simulations.
typedef struct dirac_model dirac_model;

/// Compiles a successfully loaded spec: parameters folded, all derivatives taken symbolically,
/// every function the integrators need compiled to an evaluation tape. On failure the message
/// is in the spec. *out is NULL on failure.
dirac_status dirac_model_compile(dirac_spec *spec, dirac_model **out);

/// Releases the model; NULL is a no-op.
void dirac_model_destroy(dirac_model *model);

/// How the model's functions are evaluated (dirac_spec_set_codegen), for reports.
typedef struct dirac_model_evaluation {
    int compiled;             ///< 1: generated code; 0: the evaluation tapes
    int cached;               ///< 1: the compiled code came from the cache (no compiler run)
    double compile_seconds;   ///< wall time spent generating, compiling and loading the code
    long statements;          ///< statements of the generated code
    int functions, files;     ///< its functions and source files
    const char *reason;       ///< why the tapes run; when compiled, why the stage kernels'
                              ///< build failed, else "" (also when the model gets no kernels:
                              ///< entropy variables, 64+ unknowns, over 1000 lines, taped
                              ///< groups); valid while the model lives
} dirac_model_evaluation;

/// Fills `out` (a NULL model gives compiled 0 and the reason "no model").
void dirac_model_evaluation_info(const dirac_model *model, dirac_model_evaluation *out);

/// Queries of the model. A NULL model gives NULL (names) or -1 (counts); an index out of range
/// gives NULL (names), DIRAC_CONSTRAINT_INVALID (kind) or -1 (time dependence).
const char *dirac_model_name(const dirac_model *model);
int dirac_model_coordinate_count(const dirac_model *model);
int dirac_model_entropy_count(const dirac_model *model);
int dirac_model_constraint_count(const dirac_model *model);
int dirac_model_component_count(const dirac_model *model);
int dirac_model_output_count(const dirac_model *model);
const char *dirac_model_coordinate_name(const dirac_model *model, int i);
const char *dirac_model_entropy_name(const dirac_model *model, int i);
const char *dirac_model_constraint_name(const dirac_model *model, int a);
const char *dirac_model_output_name(const dirac_model *model, int k);
/// Parameters of the model and of its components, after overrides and component arguments,
/// in declaration order (root model first, then components in pre-order), named as `-p` names
/// them (`l`, `rotor.J`, `k[3]`); index k in 0 .. parameter_count-1 (NULL / NaN outside).
int dirac_model_parameter_count(const dirac_model *model);
const char *dirac_model_parameter_name(const dirac_model *model, int k);
double dirac_model_parameter_value(const dirac_model *model, int k);
/// Inputs (`input NAME = DEFAULT`): signals the host sets between steps (dirac_sim_set_input),
/// held constant over each step; named like parameters (`u`, `motor.V`, `u[2]`), in declaration
/// order (root model first, then components in pre-order); index k in 0 .. input_count-1
/// (NULL / NaN outside; count -1 for a NULL model). They are not among the parameters.
int dirac_model_input_count(const dirac_model *model);
const char *dirac_model_input_name(const dirac_model *model, int k);
double dirac_model_input_default(const dirac_model *model, int k);
/// The index of the input called `name`, or -1.
int dirac_model_input_index(const dirac_model *model, const char *name);
dirac_constraint_kind dirac_model_constraint_kind(const dirac_model *model, int a);
/// 1 if constraint `a` depends explicitly on time.
int dirac_model_constraint_is_time_dependent(const dirac_model *model, int a);

/// Interactions between components (issue: interconnection): the outer model's constraints
/// that relate components' variables (their forces lie in Σ°: Newton's third law, Kirchhoff's
/// laws) and its two-forms that couple components (gyrators, magnetic forces). Interactions do
/// no work. Index k in 0 .. dirac_model_interaction_count()-1.
int dirac_model_interaction_count(const dirac_model *model);
/// Its name (the constraint's or the two-form's).
const char *dirac_model_interaction_name(const dirac_model *model, int k);
/// The coordinates its force can act on: writes a pointer to `*count` coordinate indices
/// (valid while the model lives).
const int *dirac_model_interaction_coordinates(const dirac_model *model, int k, int *count);

/// The model's initial state (unlisted values are 0): q and v have coordinate_count entries,
/// s has entropy_count entries (any may be NULL).
void dirac_model_initial_state(const dirac_model *model, double *q, double *v, double *s);

/// 1 if the initial value of coordinate i (its velocity when `velocity`) is marked `fixed`
/// (`initial th = 0.4 fixed`): the projection of the initial state keeps it; 0 otherwise;
/// -1 for a NULL model or an index out of range.
int dirac_model_initial_is_fixed(const dirac_model *model, int i, int velocity);

/// The model's `simulate` line (each value valid when its has_ flag is set).
typedef struct dirac_simulate_defaults {
    const char *method;   ///< valid while the model lives
    double dt, t_end;
    int every;
    double tol;           ///< Newton relative tolerance
    int max_iter;         ///< Newton iterations
    int has_method, has_dt, has_t_end, has_every, has_tol, has_max_iter;
} dirac_simulate_defaults;

void dirac_model_simulate_defaults(const dirac_model *model, dirac_simulate_defaults *out);

/// What is known about the integrability of a constraint (dirac_model_analysis): whether its
/// one-form ω^a vanishes on the constraint distribution Δ (Frobenius), and how that is known.
typedef enum dirac_integrability {
    DIRAC_INTEGRABLE_HOLONOMIC,          ///< holonomic: integrable by definition
    DIRAC_INTEGRABLE_CLOSED,             ///< dω^a = 0 identically (shown symbolically)
    DIRAC_INTEGRABLE_FROBENIUS,          ///< ω^a ∧ dω^a = 0 identically (shown symbolically)
    DIRAC_NOT_INTEGRABLE,                ///< dω^a ≠ 0 on Δ at the initial state: Δ is not
                                         ///< integrable
    DIRAC_DEFECT_ZERO_AT_INITIAL_STATE,  ///< dω^a = 0 on Δ at the initial state, but not shown
                                         ///< elsewhere (numbers at one point prove nothing more)
} dirac_integrability;

/// Facts about the model at its initial state (t = 0), as printed by `dirac check`.
typedef struct dirac_model_analysis {
    int constraint_rank;              ///< rank of the m x n matrix of constraint one-forms ω
    int velocity_hessian_rank;        ///< rank of ∂²L/∂v² (< n: degenerate Lagrangian)
    int distribution_dim;             ///< dim Δ = n − constraint_rank
    double *integrability_defect;     ///< per constraint: max |dω^a(X_i, X_j)| over an
                                      ///< orthonormal basis X of Δ (0 for holonomic ones)
    int *integrable;                  ///< per constraint: 1 if shown integrable (holonomic,
                                      ///< closed or ω∧dω = 0 identically: see integrability)
    dirac_integrability *integrability;   ///< per constraint: what is known, and how
    double *residual;                 ///< per constraint: |φ(q0, 0)| (holonomic) or
                                      ///< |⟨ω, v0⟩ + b| (nonholonomic)
    double *velocity_residual;        ///< per constraint: |⟨ω(q0), v0⟩ + b| (holonomic: dφ/dt)
    double energy;                    ///< generalized energy ⟨∂L/∂v, v⟩ − L at the initial state
    /// For models with components: the largest principal angle between the interconnected
    /// Dirac structure (⊕ D_i) ⊠ D_int and the one induced by L = Σ L_i on Δ = (⊕ Δ_i) ∩ Σ
    /// (with all two-forms), at the initial state; NaN without components.
    double interconnection_angle;
    int subsystem_count;              ///< parts joined by the interconnection (0: none)
} dirac_model_analysis;

/// Largest model dirac_model_analyze handles (its ranks and null spaces are dense).
#define DIRAC_ANALYSIS_MAX_COORDINATES 2000

/// Fills `out` (arrays owned by it; dirac_model_analysis_free). Fails with the reason in err
/// (DIRAC_ERR_UNSUPPORTED beyond DIRAC_ANALYSIS_MAX_COORDINATES).
dirac_status dirac_model_analyze(const dirac_model *model, dirac_model_analysis *out,
                                 dirac_error *err);

/// Frees the arrays of an analysis; NULL is a no-op.
void dirac_model_analysis_free(dirac_model_analysis *analysis);

/// How to print equations.
typedef enum dirac_equation_style {
    DIRAC_EQUATIONS_TEXT,    ///< readable infix
    DIRAC_EQUATIONS_LATEX,   ///< LaTeX (one align environment)
} dirac_equation_style;

/// Writes the implicit Lagrange–Dirac equations of the model to `out`:
/// p = ∂L/∂v, ṗ = ∂L/∂q + F + Σ μ_a ω^a, the constraints, and the entropy equations.
/// An expression that would print longer than 16 MB is replaced by
/// "(not printed: longer than N characters)"; that is not a failure.
dirac_status dirac_model_write_equations(const dirac_model *model, dirac_equation_style style,
                                         FILE *out, dirac_error *err);

#ifdef __cplusplus
}
#endif

#endif
