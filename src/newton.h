// Internal: the one Newton solver of the implicit integrators, with a dense LU (LAPACK
// dgetrf/dgetrs) and all memory allocated once (newton_init), so a solve allocates nothing.
// Simplified Newton (as in IDA and RADAU5): a linear solver's factorization is kept across
// iterations while the iterates contract fast, and renewed only when they do not; a constant
// Jacobian (linear models) is factorized once (newton_solve).
#ifndef DIRAC_SRC_NEWTON_H
#define DIRAC_SRC_NEWTON_H

#include <dirac/status.h>

#include "linsolve.h"

#define NEWTON_MAX_BLOCKS 8

/// Fills the residual r(z) (size entries) and, when jac is non-NULL, adds the Jacobian dr/dz
/// with linsolve_add (zeroed by the caller). Every structurally possible entry must be added
/// whatever its value (sparse solvers learn their pattern from one call). Returns 0, or
/// non-zero if z is outside the model's domain (the solve then fails as non-finite).
typedef int (*newton_assemble_fn)(void *context, const double *z, double *r, linsolve *jac);

typedef struct newton {
    int size, capacity;
    double *residual, *delta;
    double *scale;          // per unknown: |z_j| + its block's scale (row magnitudes' weights)
    double *row_scale;      // per equation: Σ_j |J_ij| scale_j + |r_i at the guess|
    double *floor;          // per unknown: NEWTON_ROUNDING ε max_i row_scale_i / |J_ij|, at
                            // least |J⁻¹ (±NEWTON_ROUNDING ε row_scale)|_j
    // per equation: magnitude of terms the Jacobian times |z| cannot see, added by the
    // assembly (zeroed before each Jacobian assembly); see newton_solve
    double *hidden_magnitude;
    double block_floor[NEWTON_MAX_BLOCKS];   // largest magnitude seen per block (scales)
    // the blocks' largest magnitudes at the last measured update, and whether z is still
    // that update (the solve's end then takes them as its new block_floor)
    double measured_block_max[NEWTON_MAX_BLOCKS];
    bool measured;
    double *guess;          // the start of the solve (the full-Newton retry starts there again)
    // lazy floors (newton.c): a fresh Jacobian's floors are measured only when a decision
    // needs them, i.e. when its first update is not small with every floor at 0 (a floor only
    // raises what an update may be); until then they are pending
    int floors_pending;     // 0, or how the pending floors are measured (newton.c)
    double *floor_point;    // z at the Jacobian whose floors are pending
    double *alternating;    // scratch: the alternating right-hand side of the floors' solve
    bool eager_floors;      // tests: measure the floors with every Jacobian (the reference)
    int lazy_misses;        // lazy tests in a row that needed the floors (newton.c)
    long floor_measurements;   // counters: floors measured, and lazy floors that accepted an
    long floors_decided;       // update the floors at 0 did not (tests)
    // reuse of factorizations (simplified Newton; newton_solve)
    bool full;              // full Newton only: a fresh Jacobian every iteration, and the
                            // methods' plain guesses, no predictor (the path tests compare to)
    bool simplified;        // simplified Newton for Jacobians that depend on the unknowns:
                            // methods whose predictor makes the first Newton step the last
                            // (midpoint); without one, full Newton's look-ahead costs less
    bool constant_jacobian; // the stage Jacobians do not depend on the unknowns (linear
                            // models): a factorization for the same step size is exact
    bool affine;            // and the equations are affine (no jumps): with a kept exact
                            // Jacobian one correction solves them (kept_linear_newton)
    double step_size;       // the step the next solves are for (the Jacobians depend on it)
    // counters over the solver's life (tests and benchmarks)
    long jacobians;         // Jacobian assemblies
    // outcome of the last solve
    int iterations;         // corrections z ← z − δ (each one residual and one linear solve)
    int max_iterations;     // the limit it was given
    int worst;            // index of the largest scaled update (or residual) at failure
    double worst_value;   // that value (both are set on success too, but then unspecified:
                          // with lazy floors the largest ratio may be measured without them)
} newton;

/// Allocates the vectors for systems of up to `capacity` unknowns (the matrices live in the
/// linsolve objects passed to newton_solve).
dirac_status newton_init(newton *nw, int capacity, dirac_error *err);
void newton_free(newton *nw);

/// Solves r(z) = 0 from the guess z (size unknowns, updated in place). Unknowns come in
/// blocks (block[i] in 0 .. NEWTON_MAX_BLOCKS-1, e.g. positions, multipliers); an update δ_i
/// is small when |δ_i| <= rtol (|z_i| + max_block |z|) or below the rounding floor
/// NEWTON_ROUNDING ε max_j R_j / |J_ji| over the equations j that contain z_i with a coefficient
/// of at least 1e-8 of its largest, R_j the magnitude of equation j's terms: rounding in
/// equation j alone makes z_i uncertain by about ε R_j / |J_ji|, so smaller updates are noise.
/// The floor is then raised to |J⁻¹ (±NEWTON_ROUNDING ε R)| (two sign patterns): the noise the
/// equations' rounding passes to each unknown through the whole system, invariant under any
/// scaling of rows and unknowns (at small h the momentum rows scale like 1/h, a constraint's
/// like 1, and the per-equation reach drops the constraint as a weak coupling).
/// The floors are measured only when a decision needs them: a floor only raises what an
/// update may be, so a first update after a fresh Jacobian that is small with every floor at 0
/// is accepted without them (lazy floors: the same decisions and numbers as floors measured
/// with every Jacobian, which nw->eager_floors forces for tests).
/// This absolute floor comes from the model's own magnitudes and keeps exact zeros and
/// all-zero blocks (a mechanism at rest, momenta of a Lagrangian without velocities)
/// convergent. Converged when
/// every update of an iteration is small, except that multipliers (blocks >=
/// NEWTON_MULTIPLIER_BLOCK) whose updates no longer shrink (by 4x) are accepted once the other
/// unknowns have converged: their accuracy is limited by the conditioning (ε/h²); updates
/// that stagnate below NEWTON_STAGNATION_LEVEL (relative) are accepted as rounding noise. R_j
/// = Σ_k |J_jk| (|z_k| + block scale) + |r_j(guess)| (the guess's residual carries constant
/// terms) + nw->hidden_magnitude[j]. The last is for unknowns that are increments (Δq = q_{k+1}
/// − q_k, stage velocities): an equation evaluated at the absolute positions q_k + Δq, such as
/// a holonomic constraint φ(q_{k+1}) = 0, is rounded at ε Σ |∂φ/∂q| |q|, which |J| |Δq| misses
/// (the assembly adds it, sim_add_position_magnitude); without it the floor of Δq would be
/// ε |Δq| where rounding allows only ε |q|, and tiny steps could not converge. Returns DIRAC_OK, DIRAC_ERR_NEWTON (no convergence
/// within max_iterations), DIRAC_ERR_SINGULAR (LU found a zero pivot: nw->worst is its column)
/// or DIRAC_ERR_NOT_FINITE (nw->worst is the equation). `ls` must have been initialised for
/// `size` unknowns; a sparse one records its pattern at its first solve.
///
/// Simplified Newton (nw->simplified; not with nw->full or rtol <= NEWTON_FULL_RTOL): each
/// solve starts with a Newton step from the guess (fresh Jacobian, judged by the test above),
/// then keeps that factorization while the contraction rate θ = |δ_k| / |δ_{k−1}| (scaled
/// primary updates) stays <= NEWTON_REFACTOR_RATE and three more updates at rate θ would bring the error to
/// rounding level; otherwise the Jacobian is assembled and factorized again at the current
/// iterate. Such an update is accepted under the test above only once its error bound
/// θ/(1 − θ) |δ_k| is at rounding level (ε |z|) for every unknown, multipliers included, as
/// full Newton's quadratic convergence leaves it (the first law of dgrad, the constraints of
/// lobatto and runs that reach a step by different paths need that, not just rtol), or when
/// the updates stop shrinking at the residual's rounding after contracting fast. A constant
/// Jacobian (constant_jacobian, factorized for the same step size) is exact: it is kept across
/// solves and its updates are Newton steps, so each linear system is factorized once per step
/// size. If the simplified iteration fails in any way, the solve restarts from the guess with
/// full Newton, so it fails only where full Newton fails.
dirac_status newton_solve(newton *nw, linsolve *ls, int size, double *z, const int *block,
                          newton_assemble_fn assemble, void *context, double rtol,
                          int max_iterations);

/// Solves asking for this relative accuracy or less (dgrad: 1e-14, "to rounding level") use
/// full Newton: only its quadratic convergence leaves a residual at rounding level.
#define NEWTON_FULL_RTOL 1e-13

/// Simplified Newton renews the Jacobian when the updates shrink by less than this factor.
#define NEWTON_REFACTOR_RATE 0.5

/// Updates below this many ε of their equations' magnitudes are rounding (see newton_solve).
#define NEWTON_ROUNDING 64.0
/// Blocks from this index on hold multipliers (see newton_solve).
#define NEWTON_MULTIPLIER_BLOCK 4
/// Updates below this relative size that stop shrinking (by 2x per iteration) are rounding
/// noise: the solve is accepted as converged.
#define NEWTON_STAGNATION_LEVEL 1e-9

#endif
