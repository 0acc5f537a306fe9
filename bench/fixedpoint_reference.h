// Hand-written, specialised implementations of libdirac's `lobatto4` and `dgrad` schemes for
// planar chains of point masses on rigid rods in uniform gravity (the Cartesian pendulum and
// double pendulum of bench_simulate): the baselines that libdirac's step of the same scheme is
// compared with. Not part of libdirac. The chain, its state and its energy are those of
// rattle_reference.h (L = Σ m_i |v_i|²/2 − m_i g y_i, φ_i(q) = |q_i − q_{i−1}|² − l_i²,
// G = ∂φ/∂q, M = diag(m)).
//
// lobatto4: the 4-stage partitioned Lobatto IIIA–IIIB pair (Jay 1996) as docs/methods.md and
// src/integ_lobatto.c state it, with a_ij (IIIA), â_ij (IIIB), b_j, c_j and f_j = F + G(Q_j)ᵀ Λ_j:
//     M V_i = p_k + h Σ_j â_ij f_j          (i = 1..4; â_i4 = 0)
//     Q_i   = q_k + h Σ_j a_ij V_j,   φ(Q_i) = 0   (i = 2..4)
// then, with p* = p_k + h Σ_j b_j f_j (f_4 = F), the end velocity and Λ_4 solve the linear
//     M v_{k+1} = p* + h b_4 G(q_{k+1})ᵀ Λ_4,   G(q_{k+1}) v_{k+1} = 0.
// Solved by simplified Newton on the three stage multipliers Λ_1..Λ_3 alone: each sweep
// evaluates G(Q_j) at the last stage positions, the stage velocities and positions, and φ(Q_i);
// the correction uses the Jacobian frozen at q_k, ∂φ(Q_i)/∂Λ_j ≈ h² (AÂ)_ij G(q_k) M⁻¹ G(q_k)ᵀ,
// a Kronecker product whose inverse is (AÂ)⁻¹ ⊗ (G M⁻¹ Gᵀ)⁻¹ (a 3 × 3 constant and one
// tridiagonal factorization per step). Contraction O(h); warm start from the last step's Λ.
// The frozen Jacobian limits the step: on bench_simulate's double pendulum (released
// horizontally) it converges up to h = 0.04 and fails at 0.05, where libdirac's full Newton
// still converges.
//
// dgrad: the discrete-gradient scheme of docs/methods.md and src/integ_dgrad.c. For this model
// class ∇L and ∇φ are affine, so the averaged vector field is the midpoint value (as libdirac
// takes it): with q̄ = (q_k + q_{k+1})/2,
//     q_{k+1} − q_k = h v̄,   M v̄ = p̄,   p_{k+1} − p_k = h (F + G(q̄)ᵀ λ),   φ(q_{k+1}) = 0,
// i.e. q_{k+1} = q_k + h M⁻¹ p_k + h²/2 M⁻¹ (F + G(q̄)ᵀ λ). Newton on λ with the Jacobian
// h²/2 G(q_{k+1}) M⁻¹ G(q̄)ᵀ (the dependence of q̄ on λ left out: contraction O(h² |λ|)),
// tridiagonal (Thomas). Energy E = ⟨p, v⟩ − L is conserved to the Newton tolerance.
#ifndef DIRAC_BENCH_FIXEDPOINT_REFERENCE_H
#define DIRAC_BENCH_FIXEDPOINT_REFERENCE_H

#include "rattle_reference.h"

typedef struct fixedpoint_chain {
    rattle_chain chain;                           // the state (q, p, t, mu) and parameters
    double stage_lambda[3][RATTLE_MAX_LINKS];     // lobatto4: Λ_1..Λ_3 of the last step
    int started;                                  // lobatto4: stage_lambda holds a step's
} fixedpoint_chain;

/// Sets up the chain as rattle_chain_init does (rtol: Newton's position-update tolerance
/// relative to max |q|, 0 means 1e-10). Returns 0, or −1 for a bad size.
int fixedpoint_chain_init(fixedpoint_chain *c, int links, const double *m, const double *l,
                          double g, double h, double rtol, const double *q0, const double *v0);

/// One step of lobatto4; 0 on success, −1 if the iteration did not converge (state unchanged).
/// c->chain.mu is Λ_4, c->chain.iterations the number of multiplier corrections.
int fixedpoint_lobatto4_step(fixedpoint_chain *c);

/// One step of dgrad; same conventions (c->chain.mu is λ).
int fixedpoint_dgrad_step(fixedpoint_chain *c);

#endif
