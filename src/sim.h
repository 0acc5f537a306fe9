// Internal: the simulation object shared by the integrators (src/integ_*.c), its evaluation
// buffers, and the method table.
#ifndef DIRAC_SRC_SIM_H
#define DIRAC_SRC_SIM_H

#include <dirac/simulate.h>

#include "model.h"
#include "newton.h"
#include "predictor.h"
#include "run_quality.h"

#include <stdbool.h>

/// Values of the model's compiled groups at one input point x = [q | v | S | t | mu].
typedef struct sim_eval {
    double *x;                  // the point (n_inputs)
    double lagrangian;
    double *gradient;           // ∂L/∂(q, v, S, t)
    double *hessian;            // values of model->hessian
    double *values;             // constraint values c_a
    double *forms;              // values of model->constraint_forms (ω)
    double *rates;              // b_a
    double *constraint_jac;     // values of model->constraint_jacobian (∂g/∂(q, v, S, t))
    double *curvature;          // values of model->form_curvature (∂(μ·ω)/∂q)
    double *forces;             // F
    double *force_jac;          // values of model->force_jacobian
} sim_eval;

/// What to evaluate (bit flags).
enum {
    EVAL_LAGRANGIAN = 1 << 0,
    EVAL_GRADIENT = 1 << 1,
    EVAL_HESSIAN = 1 << 2,
    EVAL_CONSTRAINTS = 1 << 3,      // values, forms, rates
    EVAL_CONSTRAINT_JAC = 1 << 4,
    EVAL_CURVATURE = 1 << 5,
    EVAL_FORCES = 1 << 6,           // forces and their Jacobian
    EVAL_ALL = (1 << 7) - 1,
};

typedef struct sim_method sim_method;

/// Linear systems a method solves each step (each keeps its own sparse pattern).
enum { SIM_SOLVER_STAGE1, SIM_SOLVER_STAGE2, SIM_SOLVER_KKT, SIM_SOLVER_EXTRA, SIM_SOLVER_NODE,
       SIM_SOLVER_SLOTS };

/// Workspace of the node velocities of degenerate Lagrangians (src/sim_degenerate.c): allocated
/// at creation for models with velocity-free coordinates (rows of ∂²L/∂v² structurally zero).
typedef struct sim_degenerate {
    bool available;               // workspace allocated
    bool active;                  // the last node needed it (try it first)
    int dim;                      // dim K of the last basis
    double *matrix;               // [∂²L/∂v²; ω], (n + m) x n
    double *singular_values, *vt, *work;
    int work_size;
    double *basis;                // Z: n x dim, orthonormal basis of K
    double *coupling;             // Zᵀ ∂G/∂v: dim x n
    double *balance;              // G (n) | Zᵀ-components (n)
} sim_degenerate;

struct dirac_sim {
    const dirac_model *model;
    const sim_method *method;
    const char *method_requested;   // "auto" or the method's name
    const char *auto_reason;        // auto: the model class that decided (static), else NULL
    int n, ns, mc;
    double h, t0, t;
    long steps;
    double rtol;
    int max_iterations;
    // the current node
    double *q, *v, *p, *mu, *s, *temperature;
    double energy, energy0, work;
    double constraint_residual, velocity_residual;
    int newton_iterations;
    double projection_distance;
    char errmsg[1024];
    // workspace (allocated at creation)
    double *tape_work;            // tape scratch
    sim_eval eval[3];             // evaluation points the methods use
    newton nw;
    double *z;                    // Newton unknowns
    size_t z_size, scratch_size;  // their lengths and the scratch's (sim_state.c copies them)
    int *block;                   // their blocks
    double *scratch;              // O(n + m + ns) doubles for the methods
    int linear_solver;            // dirac_linear_solver
    linsolve solver[SIM_SOLVER_SLOTS];   // one per kind of linear system a method solves
    double *q_old, *q_older;      // earlier positions (two-step methods)
    double *p_half;               // dirac2: p_{k-1/2}
    double *dq_last;              // dirac2: q_old − q, kept exactly (increments)
    double *wedge_values;         // two-form coefficients (interaction reports)
    double *thermal_values;       // friction forces, conductances, heat inputs
    double *avf_forms, *avf_rates;   // dgrad: averaged constraint forms and rates
    double *backup, backup_work;     // the last good node (restored when a step fails)
    // adaptive step size (embedded estimate or step doubling; docs/methods.md)
    bool adaptive;
    double adaptive_rtol, adaptive_atol, h_next, h_last;
    long rejected;
    double *trial;                   // [q | v | p | S]: the full trial step, or the embedded
                                     // error estimate of the step just taken
    double *trial_start;             // [q | v | p | S] at the start of the step
    double block_scale[4];           // largest |q|, |v|, |p|, |S| so far (default atol)
    unsigned char *constrained;      // per coordinate: appears in some constraint's form
    bool started;                 // dirac2: first step done
    sim_degenerate degenerate;    // node velocities of degenerate Lagrangians
    double stage_guess_t, stage_guess_h;   // lobatto: start and size of the kept stages' step
    run_quality quality;          // the run's errors against the model's scales (warnings)
    predictor predict[SIM_SOLVER_SLOTS];   // Newton's starting values, one per linear system
    double *predict_memory;       // their histories (part of the snapshot, sim_state.c)
    size_t predict_memory_size;
};

struct sim_method {
    dirac_method_info info;
    bool explicit_ode;            // needs the index-reduced ODE (regular KKT matrix)
    bool implicit_workspace;      // needs the Newton solver
    bool thermodynamic;           // integrates entropy variables (friction, heat)
    dirac_status (*step)(dirac_sim *sim);
    /// Adaptive mode: > 0 when `step` also writes an embedded error estimate of the q and v it
    /// produced into sim->trial (the order of the estimate, so the controller's exponent is
    /// 1/(estimate_order + 1)); 0: the controller uses step doubling at the method's order.
    int estimate_order;
    /// Node velocities that are not a state of the method, so not an error signal for the
    /// controller: dirac1's v_{k+1} is the last interval's mean velocity (its momenta are
    /// compared instead, lagged_velocity, except those of constrained coordinates: tangent at
    /// q_k instead of q_{k+1}, an O(h) error that does not accumulate); with constraints,
    /// dgrad's node velocities carry an undamped alternating component (v_{k+1} = 2 v̄ − v_k)
    /// normal to the constraints and, through the mass matrix, in the velocities coupled to
    /// them (unconstrained_node_velocity). The positions carry the estimate.
    bool lagged_velocity, unconstrained_node_velocity;
    /// Optional: can the method run this model from its initial state? (message in errmsg)
    dirac_status (*check)(dirac_sim *sim);
};

/// The increment Δq = q_{k+1} − q_k of the last midpoint step (valid right after the step).
const double *sim_midpoint_increment(const dirac_sim *sim);

extern const sim_method sim_method_midpoint, sim_method_dirac1, sim_method_dirac2,
    sim_method_euler, sim_method_rk4, sim_method_dgrad, sim_method_lobatto3, sim_method_lobatto4;

/// The stage Jacobians of every implicit method are constant for this model (its expressions
/// say so: src/sim_linear.c); Newton then factorizes each system once per step size.
bool sim_jacobian_constant(const dirac_model *m);

/// dirac_sim_create without the suggestion of its refusals (src/method_support.c recomputes
/// "; use ..." from the methods this function accepts the model with).
dirac_status sim_create(const dirac_model *model, const dirac_sim_options *options,
                        dirac_sim **out, dirac_error *err);

/// Acceleration a and multipliers mu of the index-reduced ODE at (q, v, t) from the KKT system
/// [∂²L/∂v², −ωᵀ; ω, 0] (src/integ_explicit.c); *power gets the power of forces, explicit time
/// dependence and driven constraints. DIRAC_ERR_SINGULAR when no ODE exists there.
dirac_status sim_acceleration(dirac_sim *sim, const double *q, const double *v, double t,
                              double *a, double *mu, double *power);

/// Evaluates the requested groups at (q, v, s, t, mu) into e (mu may be NULL: zero).
void sim_evaluate(dirac_sim *sim, sim_eval *e, const double *q, const double *v, const double *s,
                  double t, const double *mu, int what);

/// Adds `scale` times the block of the Hessian of L in y = (q, v, S, t) at e with rows
/// [row_first, row_first + rows) and columns [col_first, col_first + cols) into the Jacobian
/// `jac` at row offset r0 and column offset c0 (every structural entry, zero or not).
void sim_add_hessian_block(const dirac_sim *sim, const sim_eval *e, int row_first, int rows,
                           int col_first, int cols, double scale, linsolve *jac, int r0, int c0);

/// Same for a generic compiled sparse matrix with values `values`.
void sim_add_sparse_block(const model_sparse *sp, const double *values, int row_first, int rows,
                          int col_first, int cols, double scale, linsolve *jac, int r0, int c0);

/// The linear solver of `slot` for systems of `size` unknowns, created at its first use (the
/// first step) dense or sparse as the options say; NULL when out of memory.
linsolve *sim_solver(dirac_sim *sim, int slot, int size);

/// A dense solver for `slot` (created at its first use, like sim_solver).
linsolve *sim_dense_solver(dirac_sim *sim, int slot, int size);

/// Allocates sim->degenerate when the model has velocity-free coordinates (creation only).
dirac_status sim_degenerate_init(dirac_sim *sim);
void sim_degenerate_free(sim_degenerate *dg);
/// Orthonormal basis Z of K = ker ∂²L/∂v² ∩ ker ω at e (Hessian and forms evaluated) into
/// sim->degenerate; returns dim K (0 when K is trivial or no workspace exists).
int sim_degenerate_basis(dirac_sim *sim, const sim_eval *e);
/// Replaces the K-components of the Legendre rows r (n) by `scale` times the momentum balance
/// along K, Zᵀ (H_vq v + H_vt − ∂L/∂q − F), at e (gradient, Hessian and forces evaluated).
void sim_degenerate_residual(dirac_sim *sim, const sim_eval *e, const double *v, double scale,
                             double *r);
/// Adds `scale` Z Zᵀ ∂G/∂v to the Legendre rows of a dense Jacobian.
void sim_degenerate_jacobian(dirac_sim *sim, const sim_eval *e, double scale, linsolve *jac);

/// The velocity-level constraint g_a = ⟨ω_a, v⟩ + b_a at e with velocity v, into g (mc).
void sim_velocity_constraint(const dirac_sim *sim, const sim_eval *e, const double *v, double *g);

/// r_i += scale Σ_a mu_a ω_a,i at e.
void sim_add_forms_transposed(const dirac_sim *sim, const sim_eval *e, const double *mu,
                              double scale, double *r);

/// out_a += scale Σ_i |ω_a,i(e)| |q_i| for the holonomic constraints a (others: nothing): the
/// magnitude of φ_a's terms at the absolute positions q, which Newton's rounding floor needs
/// when the unknowns are increments of q (newton.h, hidden_magnitude).
void sim_add_position_magnitude(const dirac_sim *sim, const sim_eval *e, const double *q,
                                double scale, double *out);

/// Residual of the discrete entropy balance (second law by construction when T > 0):
///   r_j = T_j (s1_j − S_j) − h (−Σ_{friction → j} F^fr·v̄ + Σ κ (T_i − T_j) + P_j)
/// with the friction forces, conductances and heat inputs in `thermal` (model->thermal).
void sim_entropy_residual(const dirac_sim *sim, const double *temperature,
                          const double *thermal, const double *vbar, const double *s1,
                          double h, double *r);

/// The part of a step's work that friction and heat inputs contribute to the energy balance:
/// friction work stays inside (it becomes heat), so −F^fr·Δq is subtracted from F·Δq, and the
/// heat input h ΣP enters.
double sim_thermal_work(const dirac_sim *sim, const double *thermal, const double *dq, double h);

/// Records the node's diagnostics (energy, residuals, temperatures) from q, v, p, s, t.
void sim_update_diagnostics(dirac_sim *sim);

/// Formats a failed Newton solve into sim->errmsg and returns status. `name` names unknown or
/// equation i (the equation for singular Jacobians' columns) into buf.
typedef void (*sim_name_fn)(const dirac_sim *sim, int index, char *buf, size_t size);
dirac_status sim_fail_newton(dirac_sim *sim, dirac_status status, const char *stage,
                             sim_name_fn name);

/// A coordinate whose velocity ∂²L/∂v² does not determine at the initial state (no pivot in
/// its LU with a relative threshold of 1e-12): its index, −1 when L is regular there, −2 when
/// out of memory. Creation only (allocates).
int sim_degenerate_coordinate(dirac_sim *sim);

/// Names the unknowns/equations of the common layout [n coordinate rows | m constraint rows].
void sim_name_coordinate_rows(const dirac_sim *sim, int index, char *buf, size_t size);

#endif
