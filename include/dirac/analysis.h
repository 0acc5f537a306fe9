/// @file analysis.h
/// Static equilibria, linearisation and undamped natural modes of a compiled model
/// (`dirac equilibrium`, `dirac linearize`, `dirac modes`; docs/analysis.md).
///
/// Conventions. The model's equations are ṗ = ∂L/∂q + F(q, v, S, t, u) + Σ_a μ_a ω^a(q, u),
/// p = ∂L/∂v, with φ_a(q, t, u) = 0 (holonomic) or ⟨ω^a(q), v⟩ + b_a(q, t, u) = 0
/// (nonholonomic); u are the model's `input` signals (the lagrangian never depends on them).
/// The entropy variables S and the time t are held at their values at the operating point:
/// the linearisation is that of the mechanical (port-Lagrangian) part at frozen S and t.
#ifndef DIRAC_ANALYSIS_H
#define DIRAC_ANALYSIS_H

#include <dirac/model.h>
#include <dirac/status.h>

#ifdef __cplusplus
extern "C" {
#endif

/// A static equilibrium: v = 0, ∂L/∂q + F + Σ μ_a ω^a = 0 and every constraint satisfied.
typedef struct dirac_equilibrium {
    double t;              ///< the time at which forces and constraints were evaluated
    double *q;             ///< coordinate_count
    double *s;             ///< entropy_count (held at the guess's values)
    double *mu;            ///< constraint_count: the multipliers (constraint forces μ_a ω^a)
    double residual;       ///< max-norm of the equations at the solution
    double scale;          ///< the force scale the residual was judged against
    int iterations;        ///< Newton iterations taken
} dirac_equilibrium;

/// Largest number of unknowns (coordinates + constraints) solved with dense least squares;
/// larger systems use sparse LU (KLU) and must have a nonsingular Jacobian.
#define DIRAC_EQUILIBRIUM_DENSE_MAX 2000

/// Solves for a static equilibrium at time t by damped Newton from the guess (q, s) (NULL:
/// the model's initial state), with the model's symbolic second derivatives. Dense systems
/// take minimum-norm least-squares steps, so families of equilibria (free multipliers of
/// velocity constraints, neutral directions) are handled. DIRAC_ERR_NEWTON when the residual
/// does not fall below 1e-10 times the force scale in 100 iterations. `out` arrays are owned by
/// it (dirac_equilibrium_free).
dirac_status dirac_model_equilibrium(const dirac_model *model, const double *q_guess,
                                     const double *s_guess, double t, dirac_equilibrium *out,
                                     dirac_error *err);

void dirac_equilibrium_free(dirac_equilibrium *eq);

/// A sparse matrix in coordinate form (0-based row, col; duplicates do not occur).
typedef struct dirac_matrix {
    int rows, cols, nnz;
    int *row, *col;
    double *value;
} dirac_matrix;

/// The linearised Lagrange–Dirac system about an operating point x0, in descriptor form
///     E ẋ = f0 + A (x − x0) + B u,      y = y0 + C (x − x0) + D u,
/// with the state x = (q (n), v (n), p (n), μ (m)) in this order (names in state_names:
/// "q.NAME", "v.NAME", "p.NAME", "mu.NAME"), and the rows (equations)
///     n: q̇ = v,   n: ṗ = ∂L/∂q + F + Σ μ_a ω^a,   n: 0 = ∂L/∂v − p,   m: 0 = c_a
/// (c_a = φ_a for holonomic constraints, ⟨ω^a, v⟩ + b_a for nonholonomic ones). E is constant
/// (identity on the q̇ and ṗ rows), so A, f0 are exact first-order terms at any operating point;
/// f0 = 0 at an equilibrium. B = ∂f/∂u and D = ∂y/∂u have one column per `input` of the model
/// (input_count, in the order of dirac_model_input_name), about the inputs u0 (their
/// defaults: `-p NAME=VALUE` changes one); u − u0 is the input deviation. They are exact
/// symbolic derivatives: B has entries in the ṗ rows (forces, two-forms and frictions in u, and
/// μ_a ∂ω^a/∂u) and in the constraint rows (driven constraints φ(q, u) = 0).
/// C has one row per `output` of the model (derivatives in q, v and μ).
typedef struct dirac_linearization {
    int n, m, state_count, output_count, input_count;
    double t;
    char **state_names;      ///< state_count names
    double *x0;              ///< the operating point (state_count)
    double *f0;              ///< the right-hand side at x0 (state_count)
    double *y0;              ///< outputs at x0 (output_count)
    double *u0;              ///< the inputs at the operating point (input_count)
    dirac_matrix E, A, B, C, D;
    /// Mechanical matrices at the operating point, v = 0 (n x n, sparse): mass M = ∂²L/∂v²,
    /// stiffness K = −(∂²L/∂q² + ∂F/∂q + Σ μ_a ∂ω^a/∂q), and G = ∂φ/∂q (m x n).
    dirac_matrix M, K, G;
    /// max |K_ij − K_ji| / max |K_ij|: nonzero beyond rounding for nonconservative position
    /// forces (follower loads, circulatory forces), which have no undamped normal modes.
    double stiffness_asymmetry;
    /// Reduced matrices on the constraint manifold (conservative holonomic models with
    /// n <= DIRAC_ANALYSIS_MAX_COORDINATES): T (n x r, column-major) an orthonormal basis of
    /// ker G, M_r = Tᵀ M T and K_r = Tᵀ K T (r x r, column-major). has_reduced = 0 otherwise,
    /// with the reason in reduced_note.
    int has_reduced, reduced_dim;
    double *T, *M_r, *K_r;
    char reduced_note[160];
} dirac_linearization;

/// Linearises about the state (q, v, s, mu) at time t (any of q, v, s NULL: the initial
/// state's; mu NULL: zero multipliers). p is set to ∂L/∂v there. About an equilibrium pass its
/// q, s, mu and zero velocities.
dirac_status dirac_model_linearize(const dirac_model *model, const double *q, const double *v,
                                   const double *s, const double *mu, double t,
                                   dirac_linearization *out, dirac_error *err);

void dirac_linearization_free(dirac_linearization *lin);

/// The nonlinear descriptor right-hand side f(x, u) of E ẋ = f(x, u) (state_count entries,
/// the ordering of dirac_linearization) at state x (3n + m entries), inputs u (input_count
/// entries; NULL: their defaults), entropies s (NULL: the initial ones) and time t; and the
/// model's outputs y (output_count entries; NULL: not wanted). For checks and for users who
/// want to evaluate the system the linearisation approximates.
dirac_status dirac_model_descriptor_rhs(const dirac_model *model, const double *x,
                                        const double *u, const double *s, double t, double *f,
                                        double *y, dirac_error *err);

/// Undamped natural modes about an equilibrium: the generalized eigenproblem K_r z = ω² M_r z
/// on the constraint manifold, with the velocity-dependent terms (damping, gyroscopic forces)
/// dropped. Eigenvalues ascending; a negative ω² means the equilibrium is unstable in that mode.
typedef struct dirac_modes {
    int count;               ///< modes computed
    int n;                   ///< coordinate_count
    double *omega2;          ///< count eigenvalues ω² (rad²/s²), ascending
    double *shapes;          ///< n x count, column-major: δq of each mode, largest |entry| = 1
    int sparse;              ///< 1 if the sparse (ARPACK) path computed them
} dirac_modes;

/// Relative asymmetry of K up to which it counts as symmetric (rounding of its derivatives).
#define DIRAC_SYMMETRY_RTOL 1e-10

/// Largest coordinate count solved densely (LAPACK dsygv) by dirac_model_modes; larger models
/// use the sparse path (ARPACK, shift-invert about 0 with KLU), which computes the `count`
/// lowest modes.
#define DIRAC_MODES_DENSE_MAX 2000

/// Computes the `count` lowest modes (count <= 0: all for the dense path; the sparse path
/// needs 0 < count < n − m) about the equilibrium `eq` (holonomic constraints only:
/// DIRAC_ERR_UNSUPPORTED with nonholonomic ones). `force_sparse` selects the sparse path
/// whatever the size.
dirac_status dirac_model_modes(const dirac_model *model, const dirac_equilibrium *eq, int count,
                               int force_sparse, dirac_modes *out, dirac_error *err);

void dirac_modes_free(dirac_modes *modes);

#ifdef __cplusplus
}
#endif

#endif
