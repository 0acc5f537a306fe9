/// @file simulate.h
/// Simulations of compiled models with structure-preserving integrators (docs/methods.md).
///
/// A dirac_sim owns the state (q, v, p, multipliers, entropies) and every workspace; after
/// dirac_sim_create, dirac_sim_step allocates nothing. Values returned by the accessors are
/// valid until the next step. Messages of failed steps are kept in the simulation
/// (dirac_sim_errmsg): they say when (time and step), why (Newton failure, singular matrix,
/// non-finite value) and which equation.
#ifndef DIRAC_SIMULATE_H
#define DIRAC_SIMULATE_H

#include <dirac/model.h>
#include <dirac/status.h>

#ifdef __cplusplus
extern "C" {
#endif

/// One integrator of the method table (`dirac methods`).
typedef struct dirac_method_info {
    const char *name;          ///< "midpoint", "dirac1", ...
    int order;                 ///< nominal order of the global error
    const char *preserves;     ///< what structure it preserves, one line
    const char *summary;       ///< what it is, one line
} dirac_method_info;

/// Number of integrators; dirac_method(i) for i in 0 .. count-1 describes each.
int dirac_method_count(void);
const dirac_method_info *dirac_method(int i);

/// Linear solver of the implicit methods' Newton iterations.
typedef enum dirac_linear_solver {
    DIRAC_LINEAR_AUTO,     ///< dense LU below 64 unknowns, sparse (KLU) from there
    DIRAC_LINEAR_DENSE,    ///< dense LU: in-house up to 32 unknowns, LAPACK dgetrf/dgetrs above
    DIRAC_LINEAR_SPARSE,   ///< SuiteSparse KLU, pattern fixed at the first step
} dirac_linear_solver;

/// Options of a simulation; zero-initialise, then set what you need.
typedef struct dirac_sim_options {
    /// NULL or "auto": chosen per model class at creation (dirac_sim_method says which):
    /// dgrad for models with entropy variables or a degenerate Lagrangian (∂²L/∂v² singular at
    /// the initial state), midpoint otherwise (docs/methods.md, "Choosing a method").
    const char *method;
    double dt;                 ///< step size h > 0; 0: the model's `simulate dt` (refused if none)
    double t0;                 ///< initial time (default 0)
    int project_initial;       ///< move an inconsistent initial state onto the constraints
    double newton_rtol;        ///< relative tolerance of Newton's updates (0: 1e-10)
    int newton_max_iterations; ///< 0: 25
    dirac_linear_solver linear_solver;   ///< default DIRAC_LINEAR_AUTO
    /// Adaptive step size (when either is > 0): a step is accepted when its error estimate δ
    /// (embedded for rk4 and euler, step doubling at the method's order for the others)
    /// satisfies max_i |δ_i| / (atol + rtol |x_i|) <= 1 over the variables that are states of
    /// the method (atol 0: rtol times each block's largest magnitude); dt is then only the
    /// first step's size (docs/methods.md, "Adaptive step size"). One-step methods only (not
    /// dirac2); rtol >= 1e-13. Adaptivity keeps the constraints (each step is a step of the
    /// method) but gives up symplecticity and the long-time energy behaviour of fixed steps.
    double adaptive_rtol, adaptive_atol;
} dirac_sim_options;

/// A running simulation.
typedef struct dirac_sim dirac_sim;

/// Creates a simulation of `model` from its initial state. Fails (with the reason in err) for
/// an unknown method, a bad step, a method that cannot handle the model (explicit methods need
/// a regular, index-reducible system), or an initial state that violates a constraint by more
/// than 1e-9 (relative) unless project_initial is set, in which case the state is moved to the
/// nearest consistent one (dirac_sim_projection_distance says how far).
dirac_status dirac_sim_create(const dirac_model *model, const dirac_sim_options *options,
                              dirac_sim **out, dirac_error *err);

/// Releases the simulation; NULL is a no-op.
void dirac_sim_destroy(dirac_sim *sim);

/// Advances one step. On failure the state (q, v, p, multipliers, entropies, work) is restored
/// to the last good step and the reason is in dirac_sim_errmsg; returns DIRAC_ERR_NEWTON,
/// DIRAC_ERR_SINGULAR or DIRAC_ERR_NOT_FINITE, DIRAC_ERR_DOMAIN when the step would leave the
/// model's domain (a temperature −∂L/∂S that is not positive), and in adaptive mode
/// DIRAC_ERR_STEP_SIZE when the step size falls below the resolution of t or 30 trials in a row
/// are rejected. Messages name the options that may help (options.dt, ...).
dirac_status dirac_sim_step(dirac_sim *sim);

/// Size of the next step (adaptive mode: the controller's proposal; fixed mode: dt). Setting it
/// (e.g. to land exactly on a final time) changes only the next step in adaptive mode, and
/// fails with DIRAC_ERR_ARGUMENT in fixed mode or for a non-positive size.
double dirac_sim_next_step_size(const dirac_sim *sim);
dirac_status dirac_sim_set_next_step_size(dirac_sim *sim, double h);
/// Size of the last accepted step, and the number of rejected trial steps so far (adaptive).
double dirac_sim_last_step_size(const dirac_sim *sim);
long dirac_sim_rejected_steps(const dirac_sim *sim);

/// The method that runs (the one `auto` chose, or the one requested), the method requested
/// ("auto" or a method name), and for `auto` the model class that decided ("entropy variables",
/// "degenerate Lagrangian", "regular Lagrangian, holonomic constraints", ...; NULL otherwise).
/// Static strings.
const char *dirac_sim_method(const dirac_sim *sim);
const char *dirac_sim_method_requested(const dirac_sim *sim);
const char *dirac_sim_method_reason(const dirac_sim *sim);

/// Message of the last failure ("" if none).
const char *dirac_sim_errmsg(const dirac_sim *sim);

/// Queries of a NULL simulation return NaN (real values), -1 (counts) or NULL (arrays); its
/// message is a fixed sentence saying so.
/// The state at the current node: time, step count, q, v, p (coordinate_count each),
/// multipliers mu (constraint_count), entropies s and temperatures (entropy_count).
double dirac_sim_time(const dirac_sim *sim);
long dirac_sim_step_count(const dirac_sim *sim);
const double *dirac_sim_q(const dirac_sim *sim);
const double *dirac_sim_v(const dirac_sim *sim);
const double *dirac_sim_p(const dirac_sim *sim);
const double *dirac_sim_mu(const dirac_sim *sim);
const double *dirac_sim_s(const dirac_sim *sim);
const double *dirac_sim_temperature(const dirac_sim *sim);

/// Generalized energy E = ⟨p, v⟩ − L (plus internal energy for thermodynamic models).
double dirac_sim_energy(const dirac_sim *sim);
/// Work done on the system since the start by forces, driven constraints, explicit time
/// dependence and heat input (discrete, as the method accounts for it): E − E0 − work is the
/// energy-balance error.
double dirac_sim_work(const dirac_sim *sim);
/// Max over holonomic constraints of |φ(q, t)| at the current node (0 if none).
double dirac_sim_constraint_residual(const dirac_sim *sim);
/// Max over all constraints of |⟨ω(q, t), v⟩ + b| at the current node (0 if none).
double dirac_sim_velocity_constraint_residual(const dirac_sim *sim);
/// Newton iterations of the last step (0 for explicit methods).
int dirac_sim_newton_iterations(const dirac_sim *sim);
/// Distance |Δ(q, v)| the initial state was moved by projection (0 if not projected).
double dirac_sim_projection_distance(const dirac_sim *sim);
/// Force of interaction k (dirac_model_interaction_count) on every coordinate (coordinate_count
/// values) at the current node, and its power ⟨F, v⟩ (zero up to rounding: interactions do no
/// work). Constraint interactions: F = μ_a ω^a; two-forms: F = B(v, ·), from the forms and
/// two-form coefficients evaluated when the node was accepted.
void dirac_sim_interaction_force(const dirac_sim *sim, int k, double *force, double *power);

/// Sets input `k` (dirac_model_input_count) to `value`: every evaluation from now on sees it, so
/// the next step holds it constant over the step (a zero-order hold per step), and the outputs
/// of the current node are evaluated with it. Allocates nothing. DIRAC_ERR_ARGUMENT (with the
/// reason in dirac_sim_errmsg) for a bad index or a value that is not finite; the input is then
/// unchanged (a NULL sim: DIRAC_ERR_ARGUMENT). A simulation starts with the inputs' defaults.
dirac_status dirac_sim_set_input(dirac_sim *sim, int k, double value);
/// The current value of input k (NaN for a bad index).
double dirac_sim_input(const dirac_sim *sim, int k);

/// Snapshots of a simulation (for hosts that roll back, e.g. FMI's fmi2GetFMUstate): everything
/// the next steps depend on (node, multipliers, inputs, earlier positions of two-step methods,
/// Newton's starting guesses, the adaptive controller), as bytes that
/// may be stored and restored into the same simulation or into another one of the same model
/// and options: continuing from a restored snapshot gives bit-identical results.
/// dirac_sim_state_size is the byte count; save fails with DIRAC_ERR_SIZE when `size` is too
/// small, restore with DIRAC_ERR_ARGUMENT for bytes that are not a snapshot of a simulation of
/// this shape (the simulation is then unchanged); a NULL sim: size 0, DIRAC_ERR_ARGUMENT.
/// Neither allocates. The quality measures behind
/// the warnings (dirac_sim_quality_get) keep their maxima over everything run, rolled back or not.
size_t dirac_sim_state_size(const dirac_sim *sim);
dirac_status dirac_sim_state_save(const dirac_sim *sim, void *buffer, size_t size);
dirac_status dirac_sim_state_restore(dirac_sim *sim, const void *buffer, size_t size);

/// Values of the model's `output` expressions at the current node (output_count values),
/// computed when the node was accepted (and again when an input changes): reading them changes
/// nothing, like every query of a simulation.
/// A step after which an output is not finite fails with DIRAC_ERR_NOT_FINITE (naming the
/// output and the time), like a non-finite state.
void dirac_sim_outputs(const dirac_sim *sim, double *values);

/// Quality of the run so far, measured against the model's own scales after every step
/// (docs/cli.md, "Warnings"): each number is an error divided by its scale, and a warning is
/// due when it exceeds its threshold (DIRAC_WARN_*).
typedef struct dirac_sim_quality {
    /// max_t |E − E0 − W| / E_scale, E_scale = max(|E0|, max_t |⟨p, v⟩|, Σ_steps |ΔW|)
    double energy_error;
    double energy_error_time;           ///< when the largest error occurred
    /// max over holonomic constraints a and nodes of (|φ_a| / |∇φ_a|) / ℓ_a: the distance to
    /// the constraint set (first order) relative to the constraint's length scale ℓ_a, the
    /// largest |q_i| of its coordinates over the run
    double constraint_error;
    double constraint_error_time;
    int constraint_error_index;         ///< the constraint (−1: none)
    /// the same for the velocity level: (|⟨ω_a, v⟩ + b_a| / |ω_a|) / ν_a, ν_a the largest
    /// |v_i| of its coordinates (and |b_a| / |ω_a|) over the run; all constraints
    double velocity_constraint_error;
    double velocity_constraint_error_time;
    int velocity_constraint_error_index;
    /// largest decrease of the entropy produced, Π = Σ_steps (ΔS − h P/T) with the heat input P
    /// and T = −∂L/∂S at each step's midpoint, below its earlier maximum, relative to the
    /// entropy variables' total range over the run; 0 without entropy variables
    double entropy_decrease;
    double entropy_decrease_time;
} dirac_sim_quality;

/// Thresholds of the warnings (relative errors as in dirac_sim_quality).
#define DIRAC_WARN_ENERGY 1e-2
#define DIRAC_WARN_CONSTRAINT 1e-3
#define DIRAC_WARN_VELOCITY_CONSTRAINT 1e-2
#define DIRAC_WARN_ENTROPY 1e-3

/// The quality measures of the run so far.
void dirac_sim_quality_get(const dirac_sim *sim, dirac_sim_quality *out);

/// Warnings about the run so far: one per measure of dirac_sim_quality beyond its threshold
/// (a NaN measure counts as beyond), each a sentence naming the quantity, its value, the time,
/// its scale and the threshold ("energy balance error |E - E0 - W| = 4e+12 at t = 2 is 0.5 of
/// the model's energy scale 8e+12 (threshold 0.01): ..."). The count is 0 for a trustworthy
/// run. The messages are formatted by dirac_sim_warning_count (the steps only update maxima,
/// without allocating) and stay valid until the next step or call.
int dirac_sim_warning_count(const dirac_sim *sim);
/// Warning i (0 .. count-1) of the last dirac_sim_warning_count; NULL for a bad index.
const char *dirac_sim_warning(const dirac_sim *sim, int i);

#ifdef __cplusplus
}
#endif

#endif
