// The problem zoo shared by tests/ and bench/ (after GSL's ode-initval2 test problems): models
// that several programs use, written once, with their exact solutions where one is known.
//   - the planar pendulum and its exact solution (Jacobi elliptic functions);
//   - the Cartesian double pendulum and its minimal-coordinate equations with an RK4 reference;
//   - a DC motor at its analytic steady state;
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

// ---- the double pendulum ------------------------------------------------------------------

/// Point masses m1, m2 on massless rods l1, l2 under gravity g, angles a1, a2 from the downward
/// vertical.
typedef struct double_pendulum {
    double m1, m2, l1, l2, g;
} double_pendulum;

// The Cartesian model with m1 = 1, m2 = 0.5, l1 = 1, l2 = 0.7, g = 9.81, started from rest at
// a1 = 0.9, a2 = -0.4 unless overridden with -p a1=…, a2=…
#define DOUBLE_PENDULUM_M1 1.0
#define DOUBLE_PENDULUM_M2 0.5
#define DOUBLE_PENDULUM_L1 1.0
#define DOUBLE_PENDULUM_L2 0.7
#define DOUBLE_PENDULUM_G 9.81
#define DOUBLE_PENDULUM_TEXT                                                                \
    "model double_pendulum\n"                                                               \
    "parameter m1 = 1, m2 = 0.5, l1 = 1, l2 = 0.7, g = 9.81, a1 = 0.9, a2 = -0.4\n"         \
    "coordinate x1, y1, x2, y2\n"                                                           \
    "lagrangian m1/2*(x1'^2 + y1'^2) + m2/2*(x2'^2 + y2'^2) - m1*g*y1 - m2*g*y2\n"          \
    "constraint rod1: x1^2 + y1^2 = l1^2\n"                                                 \
    "constraint rod2: (x2 - x1)^2 + (y2 - y1)^2 = l2^2\n"                                   \
    "initial x1 = l1*sin(a1), y1 = -l1*cos(a1), x2 = l1*sin(a1) + l2*sin(a2),\n"            \
    "        y2 = -l1*cos(a1) - l2*cos(a2)\n"

/// The parameters of DOUBLE_PENDULUM_TEXT.
double_pendulum double_pendulum_default(void);

/// The minimal-coordinate equations (e.g. Goldstein; with Δ = a1 − a2)
///   (m1 + m2) l1 a1'' + m2 l2 (a2'' cos Δ + a2'^2 sin Δ) + (m1 + m2) g sin a1 = 0
///   l2 a2'' + l1 (a1'' cos Δ − a1'^2 sin Δ) + g sin a2 = 0
/// as y' = f(y) on y = (a1, a2, a1', a2').
void double_pendulum_rhs(const double_pendulum *p, const double *y, double *dy);

/// Classical RK4 (Kutta 1901) from rest at angles (a1, a2) to t_end in `steps` equal steps;
/// y receives (a1, a2, a1', a2') at t_end.
void double_pendulum_reference(const double_pendulum *p, double a1, double a2, double t_end,
                               long steps, double *y);

/// max(|a1 − y[0]|, |a2 − y[1]|) with the angles a1, a2 of the Cartesian positions q.
double double_pendulum_angle_error(const double *q, const double *y);

// ---- the DC motor -------------------------------------------------------------------------

// Armature and rotor joined by the gyrator two-form K dq ∧ dθ, started at its analytic steady
// state ω = V0 K / (R b + K²) = 150 rad/s far from the origin (θ0 = 1e4).
#define DC_MOTOR_TEXT                                                                       \
    "model motor\n"                                                                         \
    "parameter K = 0.05, La = 0.01, R = 2, V0 = 8.1, J = 1e-3, b = 1e-4\n"                  \
    "parameter w_ss = V0*K/(R*b + K^2), i_ss = b*w_ss/K\n"                                  \
    "coordinate q, theta\n"                                                                 \
    "lagrangian La/2*q'^2 + J/2*theta'^2\n"                                                 \
    "force q: V0 - R*q'\n"                                                                  \
    "force theta: -b*theta'\n"                                                              \
    "twoform motor: K * d(q) ^ d(theta)\n"                                                  \
    "initial q = 1e3, theta = 1e4, q' = i_ss, theta' = w_ss\n"
#define DC_MOTOR_OMEGA_SS (8.1 * 0.05 / (2.0 * 1e-4 + 0.05 * 0.05))

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

// The Cartesian pendulum (m = 1, l = 1, g = 9.81) released from rest at one radian.
#define PENDULUM_ONE_RADIAN_MODEL                                                           \
    "model pendulum\nparameter m = 1, g = 9.81, l = 1\ncoordinate x, y\n"                  \
    "lagrangian m/2*(x'^2 + y'^2) - m*g*y\nconstraint rod: x^2 + y^2 = l^2\n"              \
    "initial x = l*sin(1), y = -l*cos(1)\n"

// A two-cell LC ladder (degenerate Lagrangian, Kirchhoff constraints on velocities): linear,
// so every implicit method's Jacobians are constant.
#define LC_LADDER_MODEL                                                                     \
    "model ladder\nparameter L = 1e-3, C = 1e-3\ncoordinate q1, c1, q2, c2\n"             \
    "lagrangian L/2*q1'^2 + L/2*q2'^2 - c1^2/(2*C) - c2^2/(2*C)\n"                        \
    "constraint kcl1: c1' = q1' - q2'\nconstraint kcl2: c2' = q2'\ninitial c1 = 1e-3\n"

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
