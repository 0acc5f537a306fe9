// Test models shared by test_newton_scales.c and test_tiny_steps.c: the list of implicit
// methods, a Cartesian double pendulum with its independent minimal-coordinate reference
// (classical RK4, shares no code with libdirac), and a DC motor started at its analytic steady
// state far from the origin.
#ifndef DIRAC_TEST_MECHANISMS_H
#define DIRAC_TEST_MECHANISMS_H

#include <math.h>

// The methods with implicit steps (Newton on every step), for the loops over them.
#define IMPLICIT_METHODS "midpoint", "dirac1", "dirac2", "dgrad", "lobatto3", "lobatto4"

// Double pendulum, point masses m1, m2 on massless rods l1, l2, angles a1, a2 from the
// downward vertical (start a1 = 0.9, a2 = -0.4 unless overridden with -p a1=…, a2=…).
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

// The minimal-coordinate equations (e.g. Goldstein; with Δ = a1 − a2)
//   (m1 + m2) l1 a1'' + m2 l2 (a2'' cos Δ + a2'^2 sin Δ) + (m1 + m2) g sin a1 = 0
//   l2 a2'' + l1 (a1'' cos Δ − a1'^2 sin Δ) + g sin a2 = 0
// as y' = f(y) on y = (a1, a2, a1', a2').
static inline void double_pendulum_rhs(const double *y, double *dy)
{
    const double m1 = DOUBLE_PENDULUM_M1, m2 = DOUBLE_PENDULUM_M2, l1 = DOUBLE_PENDULUM_L1,
                 l2 = DOUBLE_PENDULUM_L2, g = DOUBLE_PENDULUM_G;
    double a1 = y[0], a2 = y[1], w1 = y[2], w2 = y[3], d = a1 - a2;
    // [A B; C D] [a1''; a2''] = [e; f]
    double A = (m1 + m2) * l1, B = m2 * l2 * cos(d), C = l1 * cos(d), D = l2;
    double e = -m2 * l2 * w2 * w2 * sin(d) - (m1 + m2) * g * sin(a1);
    double f = l1 * w1 * w1 * sin(d) - g * sin(a2);
    double det = A * D - B * C;
    dy[0] = w1;
    dy[1] = w2;
    dy[2] = (e * D - B * f) / det;
    dy[3] = (A * f - C * e) / det;
}

// Classical RK4 (Kutta 1901) from rest at angles (a1, a2) to t_end in `steps` equal steps;
// y receives (a1, a2, a1', a2') at t_end.
static inline void double_pendulum_reference(double a1, double a2, double t_end, long steps,
                                             double *y)
{
    y[0] = a1, y[1] = a2, y[2] = 0.0, y[3] = 0.0;
    double h = t_end / (double)steps, k1[4], k2[4], k3[4], k4[4], tmp[4];
    for (long s = 0; s < steps; s++) {
        double_pendulum_rhs(y, k1);
        for (int i = 0; i < 4; i++) tmp[i] = y[i] + 0.5 * h * k1[i];
        double_pendulum_rhs(tmp, k2);
        for (int i = 0; i < 4; i++) tmp[i] = y[i] + 0.5 * h * k2[i];
        double_pendulum_rhs(tmp, k3);
        for (int i = 0; i < 4; i++) tmp[i] = y[i] + h * k3[i];
        double_pendulum_rhs(tmp, k4);
        for (int i = 0; i < 4; i++) y[i] += h / 6.0 * (k1[i] + 2 * k2[i] + 2 * k3[i] + k4[i]);
    }
}

// max(|a1 − y[0]|, |a2 − y[1]|) with the angles a1, a2 of the Cartesian positions q.
static inline double double_pendulum_angle_error(const double *q, const double *y)
{
    double a1 = atan2(q[0], -q[1]), a2 = atan2(q[2] - q[0], -(q[3] - q[1]));
    return fmax(fabs(a1 - y[0]), fabs(a2 - y[1]));
}

// DC motor: armature and rotor joined by the gyrator two-form K dq ∧ dθ, started at its
// analytic steady state ω = V0 K / (R b + K²) = 150 rad/s far from the origin (θ0 = 1e4).
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

#endif
