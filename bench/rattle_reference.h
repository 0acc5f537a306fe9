// A hand-written, specialised RATTLE for planar chains of point masses on rigid rods in uniform
// gravity (the Cartesian pendulum for links = 1, the double pendulum for links = 2, ...): the
// baseline of bench_simulate. Not part of libdirac.
//
// Coordinates q_i = (x_i, y_i), i = 1..N, with q_0 = 0 the hinge; constraints
//     φ_i(q) = |q_i − q_{i−1}|² − l_i² = 0,
// forces F_i = (0, −m_i g), momenta p_i = m_i v_i, and the equations ṗ = F + Σ λ_i ∇φ_i, as in
// the .dirac models (so the multipliers have the same meaning as libdirac's mu.rod_i). One
// step of RATTLE (Andersen 1983; Hairer–Lubich–Wanner, GNI ch. VII.1.4), with G = ∇φ:
//     p_{k+1/2} = p_k + h/2 F + h/2 G(q_k)ᵀ λ
//     q_{k+1}   = q_k + h M⁻¹ p_{k+1/2},        φ(q_{k+1}) = 0     (Newton on λ)
//     p_{k+1}   = p_{k+1/2} + h/2 F + h/2 G(q_{k+1})ᵀ μ,  G(q_{k+1}) M⁻¹ p_{k+1} = 0  (linear in μ)
// Newton's Jacobian ∂φ(q_{k+1}(λ))/∂λ = h²/2 G(q_{k+1}) M⁻¹ G(q_k)ᵀ is tridiagonal for a chain
// and is solved by the Thomas algorithm; nothing allocates.
#ifndef DIRAC_BENCH_RATTLE_REFERENCE_H
#define DIRAC_BENCH_RATTLE_REFERENCE_H

#define RATTLE_MAX_LINKS 16

typedef struct rattle_chain {
    int links;                          // N (1 .. RATTLE_MAX_LINKS)
    double m[RATTLE_MAX_LINKS];         // masses (kg)
    double l[RATTLE_MAX_LINKS];         // rod lengths (m)
    double g;                           // gravitational acceleration (m/s^2)
    double h;                           // step (s)
    double rtol;                        // Newton: last position update relative to max |q|
    int max_iterations;
    double t;                           // time of the current node
    double q[2 * RATTLE_MAX_LINKS];     // x1, y1, x2, y2, ...
    double p[2 * RATTLE_MAX_LINKS];     // momenta, same layout
    double mu[RATTLE_MAX_LINKS];        // multipliers of the last velocity stage
    int iterations;                     // Newton iterations of the last step
} rattle_chain;

/// Sets up a chain from positions and velocities (same layout as q); rtol 0 means 1e-10.
/// Returns 0, or −1 for a bad size.
int rattle_chain_init(rattle_chain *c, int links, const double *m, const double *l, double g,
                      double h, double rtol, const double *q0, const double *v0);

/// One RATTLE step; 0 on success, −1 if Newton did not converge (the state is then unchanged).
/// One and two links take specialised straight-line code (scalar and closed-form 2x2 solves,
/// the tight baseline of bench_simulate); longer chains the general tridiagonal code.
int rattle_chain_step(rattle_chain *c);

/// The general code for any number of links (tests the specialised ones in bench_simulate).
int rattle_chain_step_general(rattle_chain *c);

/// Total energy Σ |p_i|²/(2 m_i) + m_i g y_i.
double rattle_chain_energy(const rattle_chain *c);

/// Max over rods of |φ_i| / l_i².
double rattle_chain_constraint_error(const rattle_chain *c);

#endif
