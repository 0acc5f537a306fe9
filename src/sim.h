// Internal: the simulation object, its evaluation slots, and the method type the integrators
// (src/integ_*.c) implement. Rooms: sim.c (create, step, accessors), sim_methods.c (the method
// table and workspace layouts), sim_eval.c (evaluation and Jacobian-block helpers), sim_kkt.c
// (the index-reduced ODE), sim_project.c (initial consistency), sim_adapt.c (step-size
// control), sim_node.c (diagnostics and derived quantities of the accepted node).
#ifndef DIRAC_SRC_SIM_H
#define DIRAC_SRC_SIM_H

#include <dirac/simulate.h>

#include "mem.h"
#include "model.h"
#include "newton.h"
#include "run_quality.h"

#include <stdbool.h>
#include <stddef.h>

/// Values of the model's compiled groups at one input point x = [q | v | S | t | mu | u].
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
    double *out[CODEGEN_MAX_GROUPS];   // the arrays above by the generated code's group index
    bool mu_zero;               // x's μ block holds zeros (sim_evaluate without μ wrote them)
} sim_eval;

/// What to evaluate: bit flags that are the generated code's group bits (1 << MODEL_CG_*), so
/// sim_evaluate hands them on as they are.
enum {
    EVAL_LAGRANGIAN = 1 << MODEL_CG_LAGRANGIAN,
    EVAL_GRADIENT = 1 << MODEL_CG_GRADIENT,
    EVAL_HESSIAN = 1 << MODEL_CG_HESSIAN,
    EVAL_CONSTRAINTS = 1 << MODEL_CG_CONSTRAINT_VALUES | 1 << MODEL_CG_CONSTRAINT_FORMS |
                       1 << MODEL_CG_CONSTRAINT_RATES,      // values, forms, rates
    EVAL_CONSTRAINT_JAC = 1 << MODEL_CG_CONSTRAINT_JACOBIAN,
    EVAL_CURVATURE = 1 << MODEL_CG_CURVATURE,
    EVAL_FORCES = 1 << MODEL_CG_FORCES | 1 << MODEL_CG_FORCE_JACOBIAN,   // and their Jacobian
    EVAL_ALL = EVAL_LAGRANGIAN | EVAL_GRADIENT | EVAL_HESSIAN | EVAL_CONSTRAINTS |
               EVAL_CONSTRAINT_JAC | EVAL_CURVATURE | EVAL_FORCES,
};

/// The evaluation slots of a simulation, each with one owner. The three step slots belong to
/// the running method (each names them after its points: start, midpoint, end; stages) and,
/// outside a step, to creation and the quality measures; sim_acceleration has its own; the node
/// slot holds the accepted node (sim_update_diagnostics) and is read by the accessors. The
/// node's q, v, S and μ live in the node slot's point x (so its evaluation copies nothing), the
/// next node's in the spare node slot's, which the two exchange when a step is taken (sim.c);
/// the spare slot has only its point and is never evaluated.
enum {
    SIM_EVAL_STEP_A,
    SIM_EVAL_STEP_B,
    SIM_EVAL_STEP_C,
    SIM_EVAL_KKT,
    SIM_EVAL_NODE,
    SIM_EVAL_NODE_NEXT,
    SIM_EVAL_SLOTS
};

typedef struct sim_method sim_method;

/// The arrays of one node: q, v, p (n each), μ (m), S (ns).
typedef struct sim_node {
    double *q, *v, *p, *mu, *s;
} sim_node;

/// What one pass over the accepted node's q, v, p yields besides its energy (sim_node.c):
/// ⟨p, v⟩, the largest |q_i| and |v_i|, and a probe that is NaN when some q_i, v_i or p_i is
/// not finite (and when ⟨p, v⟩ overflows), 0 otherwise.
typedef struct node_sums {
    double pv, q_max, v_max, nonfinite_probe;
} node_sums;

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

/// Workspace of sim_acceleration (the KKT system of the index-reduced ODE).
typedef struct sim_kkt {
    double *rhs;                  // right-hand side, then solution [a | μ] (n + m)
    double *acceleration;         // a for callers that keep only μ (n)
    double *node_multiplier;      // μ of the node's accelerations, unused (m; sim_node.c)
    dirac_status node_status;     // of the node's accelerations (outputs x''): DIRAC_OK, or
                                  // why they are NaN (singular; out of memory at creation)
} sim_kkt;

/// The adaptive step-size controller (src/sim_adapt.c; docs/methods.md, "Adaptive step size").
typedef struct sim_adaptive {
    bool on;
    double rtol, atol, h_next, h_last;
    long rejected;
    double *trial;                   // [q | v | p | S]: the full trial step, or the embedded
                                     // error estimate of the step just taken
    double *trial_start;             // [q | v | p | S] at the start of the step
    double block_scale[4];           // largest |q|, |v|, |p|, |S| so far (default atol)
} sim_adaptive;

/// What a method keeps from one step to the next: arrays the failed-step backup and the
/// snapshots (dirac_sim_state_save) copy with the node.
#define SIM_HISTORY_MAX 4
typedef struct sim_history {
    int count;
    double *data[SIM_HISTORY_MAX];
    size_t size[SIM_HISTORY_MAX];
} sim_history;

struct dirac_sim {
    const dirac_model *model;
    mem_counter mem;                // every block below (continues the model's counter)
    void *block;                    // the arrays every method shares, in one block
    const sim_method *method;
    void *method_state;             // the method's state struct and workspace (one block)
    const char *method_requested;   // "auto" or the method's name
    const char *auto_reason;        // auto: the model class that decided (static), else NULL
    int n, ns, mc;
    double h, t0, t;                // h: the size of the step being taken
    double t_next;                  // the time the step being taken ends at (sim_raw_step)
    long steps;
    double rtol;
    int max_iterations;
    // the current node (q, v, S, μ: in eval[SIM_EVAL_NODE].x; p its own)
    double *q, *v, *p, *mu, *s, *temperature;
    sim_node next;                  // where a method that writes next puts the new node
                                    // (in eval[SIM_EVAL_NODE_NEXT].x, and p)
    double energy, energy0, work;
    double constraint_residual, velocity_residual;
    // sums over the node's q, v, p from the pass that computes the energy (sim_node.c), read
    // by the finiteness check and the run's quality measures instead of passes of their own
    node_sums node_sums;
    int newton_iterations;
    long stage_kernel_calls;   // calls of midpoint's generated stage kernels (tests read it)
    double projection_distance;
    // quantities derived at the node (sim_node.c): read by the const accessors
    double *node_velocity_constraint;   // ⟨ω, v⟩ + b (m)
    double *outputs;                    // the model's outputs
    double *wedge_values;               // two-form coefficients (interaction forces)
    char errmsg[1024];
    // evaluation
    double *tape_work;            // tape scratch (one tape run)
    sim_eval eval[SIM_EVAL_SLOTS];
    int evaluated_groups;         // the EVAL_ bits sim_evaluate computes: all but the forces
                                  // when F ≡ 0 (no force, friction or two-form), whose arrays
                                  // keep the zeros of their allocation
    double *thermal_values;       // friction forces, conductances, heat inputs (one evaluation)
    sim_kkt kkt;
    newton nw;
    int linear_solver;            // dirac_linear_solver
    linsolve *solver[SIM_SOLVER_SLOTS];  // one per kind of linear system a method solves
    sim_degenerate degenerate;    // node velocities of degenerate Lagrangians
    // the last good node, restored when a step fails: [q | v | p | μ | S | method history]
    // (copied before the steps of methods that update in place, and of adaptive steps)
    double *backup, backup_work;
    size_t backup_size;
    sim_adaptive adapt;
    unsigned char *constrained;   // per coordinate: appears in some constraint's form
    run_quality quality;          // the run's errors against the model's scales (warnings)
};

/// A method's workspace is named by one layout function: run on a sizing plan (the sizes add
/// up, the pointers stay NULL) and then on the allocated block (mem.h, mem_plan), so every
/// buffer has one name and one size (sim_methods.c).
typedef struct sim_layout {
    mem_plan plan;
    int unknowns;                 // largest Newton system the method solves
    int solver_size[SIM_SOLVER_SLOTS];   // the linear systems it solves (0: slot unused)
} sim_layout;

/// `count` doubles (ints) of the workspace; NULL while sizing.
double *sim_layout_doubles(sim_layout *l, size_t count);
int *sim_layout_ints(sim_layout *l, size_t count);
/// Records a Newton system of `size` unknowns (the Newton solver is sized for the largest).
void sim_layout_newton(sim_layout *l, int size);
/// Records the linear system of solver `slot` (SIM_SOLVER_...) with `size` unknowns: its solver
/// is created with the method (sim_solver then finds it, so the first step allocates nothing).
void sim_layout_solver(sim_layout *l, int slot, int size);

/// A method type (GSL's gsl_odeiv2_step_type): what it is, its state struct and workspace
/// layout, and its functions; each gets the simulation and its own state.
struct sim_method {
    dirac_method_info info;
    bool thermodynamic;           // integrates entropy variables (friction, heat)
    /// Adaptive mode: > 0 when `step` also writes an embedded error estimate of the q and v it
    /// produced into sim->adapt.trial (the order of the estimate, so the controller's exponent
    /// is 1/(estimate_order + 1)); 0: the controller uses step doubling at the method's order.
    int estimate_order;
    /// Node velocities that are not a state of the method, so not an error signal for the
    /// controller: dirac1's v_{k+1} is the last interval's mean velocity (its momenta are
    /// compared instead, lagged_velocity, except those of constrained coordinates: tangent at
    /// q_k instead of q_{k+1}, an O(h) error that does not accumulate); with constraints,
    /// dgrad's node velocities carry an undamped alternating component (v_{k+1} = 2 v̄ − v_k)
    /// normal to the constraints and, through the mass matrix, in the velocities coupled to
    /// them (unconstrained_node_velocity). The positions carry the estimate.
    bool lagged_velocity, unconstrained_node_velocity;
    bool two_step;                /// needs the previous step (no adaptive step sizes)
    size_t state_size;            /// sizeof the method's state struct
    /// Names the workspace buffers in the state (see sim_layout).
    void (*layout)(const dirac_sim *sim, void *state, sim_layout *l);
    /// Optional: resources beyond the workspace (creation only; may allocate).
    dirac_status (*init)(dirac_sim *sim, void *state);
    /// One step of size sim->h from sim->t; allocates nothing.
    dirac_status (*step)(dirac_sim *sim, void *state);
    /// Optional: can the method run this model from its initial state? (message in errmsg)
    dirac_status (*check)(dirac_sim *sim, void *state);
    /// Optional: what the method keeps between steps (see sim_history).
    void (*history)(const dirac_sim *sim, void *state, sim_history *out);
    /// The step writes the new node into sim->next (every entry of q, v, p, μ, S) and leaves
    /// the node it starts from as it was, whether it succeeds or fails; sim_raw_step swaps the
    /// two once the step succeeded, so a fixed-size step keeps no copy of the node to restore
    /// (double buffering). Methods without it update the node in place after a copy of it.
    bool writes_next;
    /// Optional (methods that write next): records the step just taken in the method's
    /// history, once the new node has passed the step's checks (sim_raw_step); a step that
    /// fails its checks leaves the history as it was.
    void (*accept)(dirac_sim *sim, void *state);
};

/// The stage Jacobians of every implicit method are constant for this model (its expressions
/// say so: src/sim_linear.c); Newton then factorizes each system once per step size.
bool sim_jacobian_constant(const dirac_model *m);
/// The stage equations are affine in the unknowns: constant Jacobians and no jump (a
/// comparison, selection, abs or sign) in ∂L/∂y, the forces or the constraints (sim_linear.c).
/// DIRAC_ERR_NOMEM when out of memory.
dirac_status sim_equations_affine(const dirac_model *m, bool *affine);

/// ∇L (its Hessian in (q, v, S, t) is constant) and the constraint forms and rates (their
/// expressions are of degree <= 1) are affine in the point: their average along a segment is
/// their value at its midpoint (dgrad's discrete gradient needs no quadrature). Creation only
/// (allocates): DIRAC_ERR_NOMEM when out of memory, never a silent "no" (the answer changes
/// the numbers at rounding level).
dirac_status sim_gradients_affine(const dirac_model *m, bool *affine);

extern const sim_method sim_method_midpoint, sim_method_dirac1, sim_method_dirac2,
    sim_method_euler, sim_method_rk4, sim_method_dgrad, sim_method_lobatto3, sim_method_lobatto4;

/// The method named `name` (NULL if none).
const sim_method *sim_method_find(const char *name);
/// "midpoint, dirac1, ..." into buf.
void sim_method_list(char *buf, size_t size);

/// Allocates sim->method_state for sim->method (state struct, workspace and the backup of the
/// last good node, which includes the method's history, in one block),
/// names its buffers, sizes Newton's solver and runs the method's init. The block starts
/// zeroed: a method's history starts empty (the methods read 0 as "nothing kept yet").
dirac_status sim_method_start(dirac_sim *sim, dirac_error *err);
void sim_method_free(dirac_sim *sim);
/// The method's history (count 0 for methods that keep none).
void sim_method_history(const dirac_sim *sim, sim_history *out);

/// dirac_sim_create without the suggestion of its refusals (src/method_support.c recomputes
/// "; use ..." from the methods this function accepts the model with).
dirac_status sim_create(const dirac_model *model, const dirac_sim_options *options,
                        dirac_sim **out, dirac_error *err);

/// Acceleration a and multipliers mu of the index-reduced ODE at (q, v, t) from the KKT system
/// [∂²L/∂v², −ωᵀ; ω, 0] (src/sim_kkt.c), evaluated in the slot SIM_EVAL_KKT (its gradient is
/// valid afterwards); *power gets the power of forces, explicit time dependence and driven
/// constraints. DIRAC_ERR_SINGULAR when no ODE exists there.
dirac_status sim_acceleration(dirac_sim *sim, const double *q, const double *v, double t,
                              double *a, double *mu, double *power);

/// A coordinate whose velocity ∂²L/∂v² does not determine at the initial state (no pivot in
/// its LU under linalg_dense.h's rank rule): its index, −1 when L is regular there, −2 when
/// out of memory. Creation only (allocates).
int sim_degenerate_coordinate(dirac_sim *sim);

/// Checks the initial state against every constraint; projects it when `project` is set
/// (src/sim_project.c; creation only, allocates).
dirac_status sim_initial_consistency(dirac_sim *sim, int project, dirac_error *err);

/// Whether the model's forces are the constant +0 with an empty Jacobian
/// (sim->evaluated_groups).
bool sim_forces_vanish(const dirac_model *m);

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

/// The linear solver of `slot` for systems of `size` unknowns, dense or sparse as the options
/// say: created with the method for the slots its layout records (sim_layout_solver), else at
/// its first use; NULL when out of memory.
linsolve *sim_solver(dirac_sim *sim, int slot, int size);

/// A dense solver for `slot` (created at its first use, like sim_solver).
linsolve *sim_dense_solver(dirac_sim *sim, int slot, int size);

/// Allocates sim->degenerate when the model has velocity-free coordinates (creation only).
dirac_status sim_degenerate_init(dirac_sim *sim);
void sim_degenerate_free(dirac_sim *sim);
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

/// Whether the model has a holonomic constraint.
bool sim_has_holonomic(const dirac_sim *sim);

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

/// Records the node's diagnostics (energy, residuals, temperatures) from q, v, p, s, t and the
/// quantities derived there (outputs, two-form coefficients) in the node slot (sim_node.c).
void sim_update_diagnostics(dirac_sim *sim);
/// Re-evaluates the derived quantities of the node after its inputs changed (the diagnostics
/// keep their values).
void sim_node_refresh(dirac_sim *sim);

/// Checks the state after a step; formats the message and returns DIRAC_ERR_NOT_FINITE if some
/// value is not finite (sim_node.c).
dirac_status sim_check_finite(dirac_sim *sim, double t_before, double t_after);

/// Formats a failed Newton solve into sim->errmsg and returns status. `name` names unknown or
/// equation i (the equation for singular Jacobians' columns) into buf.
typedef void (*sim_name_fn)(const dirac_sim *sim, int index, char *buf, size_t size);
dirac_status sim_fail_newton(dirac_sim *sim, dirac_status status, const char *stage,
                             sim_name_fn name);

/// A solution that Newton accepted but whose residual in row `row` still breaks an exact
/// balance the method keeps (dgrad's first law) after `solves` solves: formats the message
/// and returns DIRAC_ERR_NEWTON.
dirac_status sim_fail_balance(dirac_sim *sim, const char *stage, sim_name_fn name, int solves,
                              int row);

/// A temperature −∂L/∂S that is not positive at time t of the step: formats the message and
/// returns DIRAC_ERR_DOMAIN.
dirac_status sim_fail_temperature(dirac_sim *sim, int j, double temperature);

/// Names the unknowns/equations of the common layout [n coordinate rows | m constraint rows].
void sim_name_coordinate_rows(const dirac_sim *sim, int index, char *buf, size_t size);

/// The last good node: save before a step, restore after a failed one (sim.c) with its
/// diagnostics and derived quantities; sim_restore_node restores only the state, for a step
/// that is taken again from there at once (the adaptive controller's trials: their own raw
/// step brings the diagnostics up to date, and the last good node's derived quantities were
/// never overwritten).
void sim_save_state(dirac_sim *sim);
void sim_restore_state(dirac_sim *sim);
void sim_restore_node(dirac_sim *sim);

/// One step of size sim->h from sim->t (the caller saved the state, or the method writes
/// next); on success the time is t_after, the node's diagnostics are up to date and the method
/// has recorded the step (accept), on failure the time is unchanged and the node of a method
/// that writes next is the one the step started from.
dirac_status sim_raw_step(dirac_sim *sim, double t_after);

/// One accepted step of the error-controlled size (src/sim_adapt.c).
dirac_status sim_adaptive_step(dirac_sim *sim);
/// Records the largest magnitudes of the node's blocks (default absolute tolerances).
void sim_adaptive_observe(dirac_sim *sim);

#endif
