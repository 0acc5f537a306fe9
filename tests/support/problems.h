// The problem zoo shared by tests/ and bench/ (after GSL's ode-initval2 test problems): models
// that several programs use, written once, with their exact solutions where one is known.
//   - the planar pendulum and its exact solution (Jacobi elliptic functions);
//   - the LC transmission line (a ladder of N cells; sparse Newton with KLU);
//   - the Cartesian pendulum chain (N point masses on rods).
// Generated model texts are malloc'ed; the caller frees them (NULL when out of memory).
#ifndef DIRAC_TEST_PROBLEMS_H
#define DIRAC_TEST_PROBLEMS_H

// ---- the planar pendulum ------------------------------------------------------------------

// Point mass m on a rod of length l in Cartesian coordinates x, y, released from rest at the
// angle theta0 from the downward vertical; one holonomic constraint.
#define PENDULUM_M 1.0
#define PENDULUM_G 9.81
#define PENDULUM_L 1.0
#define PENDULUM_THETA0 0.5
#define PENDULUM_MODEL                                                                      \
    "model pendulum\n"                                                                      \
    "parameter m = 1, g = 9.81, l = 1, theta0 = 0.5\n"                                      \
    "coordinate x, y\n"                                                                     \
    "lagrangian m/2*(x'^2 + y'^2) - m*g*y\n"                                                \
    "constraint rod: x^2 + y^2 = l^2\n"                                                     \
    "initial x = l*sin(theta0), y = -l*cos(theta0)\n"

/// Complete elliptic integral of the first kind K(k) = π / (2 AGM(1, √(1 − k²)))
/// (Abramowitz & Stegun 17.6.1), 0 ≤ k < 1.
double elliptic_k(double k);

/// Jacobi elliptic functions sn, cn, dn of (u | m = k²) by the arithmetic-geometric mean and
/// the descending Landen transformation (Abramowitz & Stegun 16.4): a_{n+1} = (a_n + b_n)/2,
/// b_{n+1} = √(a_n b_n), c_{n+1} = (a_n − b_n)/2; φ_N = 2^N a_N u,
/// φ_{n−1} = (φ_n + asin(c_n sin φ_n / a_n))/2; sn = sin φ_0, cn = cos φ_0,
/// dn = cos φ_0 / cos(φ_1 − φ_0). 0 ≤ k < 1; any of the outputs may be NULL.
void jacobi_elliptic(double u, double k, double *sn, double *cn, double *dn);

/// Period of the pendulum of length l under gravity g released from rest at theta0:
/// T = 4 √(l/g) K(sin(θ0/2)).
double pendulum_period(double g, double l, double theta0);

/// Exact angle of that pendulum at time t: sin(θ/2) = k sn(K − ωt | k²), k = sin(θ0/2),
/// ω = √(g/l); *rate (if not NULL) receives θ' = −2kω cn(K − ωt | k²).
double pendulum_angle(double g, double l, double theta0, double t, double *rate);

/// Exact Cartesian position q = l (sin θ, −cos θ) and velocity v (may be NULL) at time t.
void pendulum_exact(double g, double l, double theta0, double t, double q[2], double v[2]);

// ---- one small model of each constraint class ----------------------------------------------

// For the tests that run every method on a few models (allocations, threads): a pendulum with
// an output (holonomic constraint) and a knife edge turned by a periodic torque (nonholonomic).
#define PENDULUM_OUTPUT_MODEL                                                               \
    "model pendulum\nparameter m = 1, g = 9.81, l = 1\ncoordinate x, y\n"                  \
    "lagrangian m/2*(x'^2 + y'^2) - m*g*y\nconstraint rod: x^2 + y^2 = l^2\n"              \
    "initial x = 0.6, y = -0.8\noutput angle = atan2(x, -y)\n"
#define KNIFE_EDGE_MODEL                                                                    \
    "model knife\ncoordinate x, y, th\n"                                                    \
    "lagrangian (x'^2 + y'^2)/2 + th'^2/10 - (x^2 + y^2)\nforce th: 0.3*cos(t)\n"           \
    "constraint blade: x'*sin(th) - y'*cos(th) = 0\ninitial x = 0.2, th' = 1, x' = 1\n"

// ---- the LC transmission line -------------------------------------------------------------

/// A ladder of `cells` cells with inductance Lc and capacitance C each: inductor charges q_i,
/// capacitor charges c_i (coordinates q1, c1, q2, c2, ... interleaved), Lagrangian
/// Σ Lc/2 q_i'² − c_i²/(2C), Kirchhoff's current law c_i' = q_i' − q_{i+1}' (c_N' = q_N').
/// `charge` (NULL: none) holds the initial capacitor charges c_i(0) of cells 1..N; zero
/// entries are left out of the text.
char *lc_line_model(int cells, double inductance, double capacitance, const double *charge);

// ---- the Cartesian pendulum chain ---------------------------------------------------------

/// `links` point masses m = 1 on rods of length l under gravity g = 9.81, in Cartesian
/// coordinates x1, y1, x2, y2, ...; rod i joins mass i − 1 to mass i (mass 0 the pivot at the
/// origin). Released from rest straight, tilted by `tilt` from the downward vertical.
char *pendulum_chain_model(int links, double length, double tilt);

#endif
