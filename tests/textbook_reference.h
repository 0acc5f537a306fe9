// Independent references of the textbook suite (tests/textbook/*.dirac): each function returns
// the model's coordinates q, velocities v and entropies s at t in the order the model declares
// them,
// from an analytic solution or from tests/support/reference_ode.c on equations of motion in
// minimal coordinates derived by hand (the physics and the derivation are in each model's
// header comment). Nothing here uses libdirac. *accuracy receives the estimated relative error
// of the reference (0 for analytic solutions).
#ifndef DIRAC_TEST_TEXTBOOK_REFERENCE_H
#define DIRAC_TEST_TEXTBOOK_REFERENCE_H

#include "reference_ode.h"

#include <math.h>
#include <string.h>

// Steps of the reference RK4 per unit time (its Richardson estimate is checked by the caller).
enum { REFERENCE_STEPS_PER_UNIT_TIME = 40000 };

// The state a reference gives at t (unused entries stay 0).
typedef struct reference_state {
    double q[16], v[16], s[4];
} reference_state;

static long reference_steps(double t_end)
{
    return (long)ceil(t_end * REFERENCE_STEPS_PER_UNIT_TIME);
}

// rc_circuit: R q' + q/C = V0 sin(w t), q(0) = 0.
static int reference_rc_circuit(double t, reference_state *r, double *accuracy)
{
    const double R = 1.0, C = 0.5, V0 = 1.0, w = 2.0, tau = R * C;
    double A = (V0 / R) * tau / (1.0 + w * w * tau * tau);
    double B = -(V0 / R) * w * tau * tau / (1.0 + w * w * tau * tau);
    double charge = A * sin(w * t) + B * cos(w * t) - B * exp(-t / tau);
    double current = A * w * cos(w * t) - B * w * sin(w * t) + B / tau * exp(-t / tau);
    r->q[0] = r->q[1] = charge;
    r->v[0] = r->v[1] = current;
    *accuracy = 0.0;
    return 0;
}

// rl_circuit: Lind i' + R i = V0, i(0) = 0.
static int reference_rl_circuit(double t, reference_state *r, double *accuracy)
{
    const double Lind = 0.5, R = 2.0, V0 = 1.0, tau = Lind / R;
    r->q[0] = r->q[1] = (V0 / R) * (t - tau * (1.0 - exp(-t / tau)));
    r->v[0] = r->v[1] = (V0 / R) * (1.0 - exp(-t / tau));
    *accuracy = 0.0;
    return 0;
}

// rlc_series: free decay of Q0 through Lind q'' + R q' + q/C = 0.
static int reference_rlc_series(double t, reference_state *r, double *accuracy)
{
    const double Lind = 0.5, C = 0.5, R = 0.4, Q0 = 1.0;
    double g = R / (2.0 * Lind), wd = sqrt(1.0 / (Lind * C) - g * g);
    double charge = Q0 * exp(-g * t) * (cos(wd * t) + g / wd * sin(wd * t));
    double current = -Q0 * exp(-g * t) * (g * g / wd + wd) * sin(wd * t);
    r->q[0] = charge - Q0;
    r->q[1] = charge;
    r->q[2] = charge - Q0;
    r->v[0] = r->v[1] = r->v[2] = current;
    *accuracy = 0.0;
    return 0;
}

// rlc_network: y = (q1, qC1, qL, iL, qC2, qR2), nodal equations.
static void rhs_rlc_network(double t, const double *y, double *f, const void *user)
{
    (void)user;
    const double R1 = 1.0, C1 = 0.5, Lind = 0.5, C2 = 1.0, R2 = 2.0, V0 = 1.0, w = 3.0;
    double e1 = y[1] / C1, e2 = y[4] / C2, iL = y[3];
    double i1 = (V0 * sin(w * t) - e1) / R1;
    f[0] = i1;
    f[1] = i1 - iL;
    f[2] = iL;
    f[3] = (e1 - e2) / Lind;
    f[4] = iL - e2 / R2;
    f[5] = e2 / R2;
}

// The network's state y = (q1, qC1, qL, iL, qC2, qR2) at t, from rest.
static int rlc_network_state(double t, double *y, double *accuracy)
{
    memset(y, 0, 6 * sizeof *y);
    return reference_ode_solve(rhs_rlc_network, NULL, 6, 0.0, t, reference_steps(t), y, accuracy);
}

static int reference_rlc_network(double t, reference_state *r, double *accuracy)
{
    double y[6], f[6];
    if (rlc_network_state(t, y, accuracy))
        return -1;
    rhs_rlc_network(t, y, f, NULL);
    static const int index[5] = { 0, 1, 2, 4, 5 };   // (q1, qC1, qL, qC2, qR2)
    for (int i = 0; i < 5; i++)
        r->q[i] = y[index[i]], r->v[i] = f[index[i]];
    return 0;
}

// rc_ladder: y = (q1, qC1, qR2, qC2), nodal equations.
static void rhs_rc_ladder(double t, const double *y, double *f, const void *user)
{
    (void)user;
    const double R1 = 1.0, C1 = 0.5, R2 = 2.0, C2 = 1.0, V0 = 1.0, w = 2.0;
    double e1 = y[1] / C1, e2 = y[3] / C2;
    double i1 = (V0 * sin(w * t) - e1) / R1, i2 = (e1 - e2) / R2;
    f[0] = i1;
    f[1] = i1 - i2;
    f[2] = i2;
    f[3] = i2;
}

static int reference_rc_ladder(double t, reference_state *r, double *accuracy)
{
    double y[4] = { 0 }, f[4];
    if (reference_ode_solve(rhs_rc_ladder, NULL, 4, 0.0, t, reference_steps(t), y, accuracy))
        return -1;
    rhs_rc_ladder(t, y, f, NULL);
    for (int i = 0; i < 4; i++)
        r->q[i] = y[i], r->v[i] = f[i];
    return 0;
}

// knife_edge: spinning at w0 from rest at the origin.
static int reference_knife_edge(double t, reference_state *r, double *accuracy)
{
    const double G = 9.81 * sin(0.2), w0 = 2.0;
    r->q[0] = G / (2.0 * w0 * w0) * pow(sin(w0 * t), 2);
    r->q[1] = G / (2.0 * w0 * w0) * (w0 * t - sin(2.0 * w0 * t) / 2.0);
    r->q[2] = w0 * t;
    r->v[0] = G / (2.0 * w0) * sin(2.0 * w0 * t);
    r->v[1] = G / (2.0 * w0) * (1.0 - cos(2.0 * w0 * t));
    r->v[2] = w0;
    *accuracy = 0.0;
    return 0;
}

// chaplygin_sleigh: y = (x, y, th, u, w).
static void rhs_chaplygin_sleigh(double t, const double *y, double *f, const void *user)
{
    (void)t, (void)user;
    const double m = 1.0, I = 0.2, a = 0.5;
    f[0] = y[3] * cos(y[2]);
    f[1] = y[3] * sin(y[2]);
    f[2] = y[4];
    f[3] = a * y[4] * y[4];
    f[4] = -m * a * y[3] * y[4] / (I + m * a * a);
}

static int reference_chaplygin_sleigh(double t, reference_state *r, double *accuracy)
{
    double y[5] = { 0.0, 0.0, 0.0, 1.0, 1.0 };
    if (reference_ode_solve(rhs_chaplygin_sleigh, NULL, 5, 0.0, t, reference_steps(t), y,
                            accuracy))
        return -1;
    double f[5];
    rhs_chaplygin_sleigh(t, y, f, NULL);
    for (int i = 0; i < 3; i++)
        r->q[i] = y[i], r->v[i] = f[i];
    return 0;
}

// rolling_disk: y = (x, y, th, ph, th', ph').
static void rhs_rolling_disk(double t, const double *y, double *f, const void *user)
{
    (void)t, (void)user;
    const double m = 1.0, R = 0.5, I = 0.125, J = 0.0625, g = 9.81, al = 0.1, k = 0.25;
    f[0] = R * cos(y[3]) * y[4];
    f[1] = R * sin(y[3]) * y[4];
    f[2] = y[4];
    f[3] = y[5];
    f[4] = m * g * sin(al) * R * cos(y[3]) / (I + m * R * R);
    f[5] = -k * y[3] / J;
}

static int reference_rolling_disk(double t, reference_state *r, double *accuracy)
{
    double y[6] = { 0.0, 0.0, 0.0, 0.5, 2.0, 0.0 };
    if (reference_ode_solve(rhs_rolling_disk, NULL, 6, 0.0, t, reference_steps(t), y, accuracy))
        return -1;
    double f[6];
    rhs_rolling_disk(t, y, f, NULL);
    for (int i = 0; i < 4; i++)
        r->q[i] = y[i], r->v[i] = f[i];
    return 0;
}

// One-degree-of-freedom mechanisms: positions of the point masses as functions of the crank
// angle th with their first and second derivatives (2 points, x and y each).
typedef struct mechanism_kinematics {
    double r[2][2], r_th[2][2], r_thth[2][2];
} mechanism_kinematics;

// Solves [a b; c d] z = (e, f).
static void solve2(double a, double b, double c, double d, double e, double f, double *z)
{
    double det = a * d - b * c;
    z[0] = (e * d - b * f) / det;
    z[1] = (a * f - e * c) / det;
}

// four_bar: B on the crank circle, C = circle(B, l2) ∩ circle(D, l3), upper branch; C_th and
// C_thth from the constraints differentiated once and twice:
//   (C − B)·(C_th − B_th) = 0,  (C − D)·C_th = 0,
//   |C_th − B_th|² + (C − B)·(C_thth − B_thth) = 0,  |C_th|² + (C − D)·C_thth = 0.
static void four_bar_kinematics(double th, mechanism_kinematics *k)
{
    const double l1 = 0.5, l2 = 2.0, l3 = 1.5, d = 2.0;
    double bx = l1 * cos(th), by = l1 * sin(th);
    double ex = d - bx, ey = -by, dd = sqrt(ex * ex + ey * ey);
    double aa = (l2 * l2 - l3 * l3 + dd * dd) / (2.0 * dd), hh = sqrt(l2 * l2 - aa * aa);
    double cx = bx + aa * ex / dd - hh * ey / dd, cy = by + aa * ey / dd + hh * ex / dd;
    double bx_t = -by, by_t = bx, bx_tt = -bx, by_tt = -by;
    double c_t[2], c_tt[2];
    solve2(cx - bx, cy - by, cx - d, cy, (cx - bx) * bx_t + (cy - by) * by_t, 0.0, c_t);
    double ux = c_t[0] - bx_t, uy = c_t[1] - by_t;
    solve2(cx - bx, cy - by, cx - d, cy,
           -(ux * ux + uy * uy) + (cx - bx) * bx_tt + (cy - by) * by_tt,
           -(c_t[0] * c_t[0] + c_t[1] * c_t[1]), c_tt);
    k->r[0][0] = bx, k->r[0][1] = by, k->r[1][0] = cx, k->r[1][1] = cy;
    k->r_th[0][0] = bx_t, k->r_th[0][1] = by_t, k->r_th[1][0] = c_t[0], k->r_th[1][1] = c_t[1];
    k->r_thth[0][0] = bx_tt, k->r_thth[0][1] = by_tt;
    k->r_thth[1][0] = c_tt[0], k->r_thth[1][1] = c_tt[1];
}

// slider_crank: B = r (cos th, sin th), C = (r cos th + sqrt(l² − r² sin² th), 0).
static void slider_crank_kinematics(double th, mechanism_kinematics *k)
{
    const double r = 0.5, l = 1.5;
    double sn = sin(th), cs = cos(th), w = l * l - r * r * sn * sn, sw = sqrt(w);
    // d/dth sqrt(w) = −r² sn cs / sw;  d²/dth² = −r² (cs² − sn²)/sw − r⁴ sn² cs²/sw³
    double s_t = -r * r * sn * cs / sw;
    double s_tt = -r * r * (cs * cs - sn * sn) / sw - pow(r * r * sn * cs, 2) / (w * sw);
    k->r[0][0] = r * cs, k->r[0][1] = r * sn, k->r[1][0] = r * cs + sw, k->r[1][1] = 0.0;
    k->r_th[0][0] = -r * sn, k->r_th[0][1] = r * cs, k->r_th[1][0] = -r * sn + s_t;
    k->r_th[1][1] = 0.0;
    k->r_thth[0][0] = -r * cs, k->r_thth[0][1] = -r * sn, k->r_thth[1][0] = -r * cs + s_tt;
    k->r_thth[1][1] = 0.0;
}

// Lagrange's equation of a one-degree-of-freedom mechanism of point masses m_i at r_i(th):
//   (Σ m |r_th|²) th'' + (Σ m r_th·r_thth) th'² + dV/dth = 0.
typedef struct mechanism {
    void (*kinematics)(double th, mechanism_kinematics *k);
    double mass[2], g;
    double spring_k, spring_rest;   // spring k/2 (x_C − rest)² on the second point (slider)
} mechanism;

static void rhs_mechanism(double t, const double *y, double *f, const void *user)
{
    (void)t;
    const mechanism *mech = user;
    mechanism_kinematics k;
    mech->kinematics(y[0], &k);
    double inertia = 0.0, coriolis = 0.0, dV = 0.0;
    for (int i = 0; i < 2; i++) {
        inertia += mech->mass[i] * (k.r_th[i][0] * k.r_th[i][0] + k.r_th[i][1] * k.r_th[i][1]);
        coriolis += mech->mass[i] * (k.r_th[i][0] * k.r_thth[i][0] + k.r_th[i][1] * k.r_thth[i][1]);
        dV += mech->mass[i] * mech->g * k.r_th[i][1];
    }
    dV += mech->spring_k * (k.r[1][0] - mech->spring_rest) * k.r_th[1][0];
    f[0] = y[1];
    f[1] = -(coriolis * y[1] * y[1] + dV) / inertia;
}

static int reference_mechanism(const mechanism *mech, double th0, double w0, double t,
                               reference_state *r, double *accuracy)
{
    double y[2] = { th0, w0 };
    if (reference_ode_solve(rhs_mechanism, mech, 2, 0.0, t, reference_steps(t), y, accuracy))
        return -1;
    mechanism_kinematics k;
    mech->kinematics(y[0], &k);
    for (int i = 0; i < 4; i++)
        r->q[i] = k.r[i / 2][i % 2], r->v[i] = k.r_th[i / 2][i % 2] * y[1];
    return 0;
}

static int reference_four_bar(double t, reference_state *r, double *accuracy)
{
    const mechanism mech = { four_bar_kinematics, { 1.0, 1.0 }, 9.81, 0.0, 0.0 };
    return reference_mechanism(&mech, 0.3, 0.0, t, r, accuracy);
}

static int reference_slider_crank(double t, reference_state *r, double *accuracy)
{
    const mechanism mech = { slider_crank_kinematics, { 1.0, 2.0 }, 9.81, 20.0, 1.5 };
    return reference_mechanism(&mech, 0.5, 3.0, t, r, accuracy);
}

// bead_on_hoop: y = (th, th').
static void rhs_bead_on_hoop(double t, const double *y, double *f, const void *user)
{
    (void)t, (void)user;
    const double R = 1.0, g = 9.81, W = 4.0;
    f[0] = y[1];
    f[1] = sin(y[0]) * (W * W * cos(y[0]) - g / R);
}

static int reference_bead_on_hoop(double t, reference_state *r, double *accuracy)
{
    const double R = 1.0, W = 4.0;
    double y[2] = { 1.0, 0.0 };
    if (reference_ode_solve(rhs_bead_on_hoop, NULL, 2, 0.0, t, reference_steps(t), y, accuracy))
        return -1;
    double sn = sin(y[0]), cs = cos(y[0]);
    r->q[0] = R * sn * cos(W * t);
    r->q[1] = R * sn * sin(W * t);
    r->q[2] = -R * cs;
    r->v[0] = R * cs * y[1] * cos(W * t) - R * sn * W * sin(W * t);
    r->v[1] = R * cs * y[1] * sin(W * t) + R * sn * W * cos(W * t);
    r->v[2] = R * sn * y[1];
    return 0;
}

// rotating_rod: r(t) along the rod, analytic.
static int reference_rotating_rod(double t, reference_state *r, double *accuracy)
{
    const double g = 9.81, w = 2.0, r0 = 1.0, c = g / (2.0 * w * w);
    double rho = r0 * cosh(w * t) - c * sinh(w * t) + c * sin(w * t);
    double rho_t = r0 * w * sinh(w * t) - c * w * cosh(w * t) + c * w * cos(w * t);
    r->q[0] = rho * cos(w * t);
    r->q[1] = rho * sin(w * t);
    r->v[0] = rho_t * cos(w * t) - rho * w * sin(w * t);
    r->v[1] = rho_t * sin(w * t) + rho * w * cos(w * t);
    *accuracy = 0.0;
    return 0;
}

// moving_pivot: y = (th, th').
static void rhs_moving_pivot(double t, const double *y, double *f, const void *user)
{
    (void)user;
    const double l = 1.0, g = 9.81, a = 0.1, W = 10.0;
    f[0] = y[1];
    f[1] = -(g - a * W * W * cos(W * t)) / l * sin(y[0]);
}

static int reference_moving_pivot(double t, reference_state *r, double *accuracy)
{
    const double l = 1.0, a = 0.1, W = 10.0;
    double y[2] = { 0.8, 0.0 };
    if (reference_ode_solve(rhs_moving_pivot, NULL, 2, 0.0, t, reference_steps(t), y, accuracy))
        return -1;
    r->q[0] = l * sin(y[0]);
    r->q[1] = a * cos(W * t) - l * cos(y[0]);
    r->v[0] = l * cos(y[0]) * y[1];
    r->v[1] = -a * W * sin(W * t) + l * sin(y[0]) * y[1];
    return 0;
}

// stiff_spring_pendulum: y = (r, th, r', th').
static void rhs_stiff_spring_pendulum(double t, const double *y, double *f, const void *user)
{
    (void)t, (void)user;
    const double m = 1.0, k = 2500.0, l = 1.0, g = 9.81;
    f[0] = y[2];
    f[1] = y[3];
    f[2] = y[0] * y[3] * y[3] - k / m * (y[0] - l) + g * cos(y[1]);
    f[3] = (-2.0 * y[2] * y[3] - g * sin(y[1])) / y[0];
}

static int reference_stiff_spring_pendulum(double t, reference_state *r, double *accuracy)
{
    double y[4] = { 1.0, 0.8, 0.0, 0.0 };
    if (reference_ode_solve(rhs_stiff_spring_pendulum, NULL, 4, 0.0, t, 4 * reference_steps(t),
                            y, accuracy))
        return -1;
    r->q[0] = y[0] * sin(y[1]);
    r->q[1] = -y[0] * cos(y[1]);
    r->v[0] = y[2] * sin(y[1]) + y[0] * cos(y[1]) * y[3];
    r->v[1] = -y[2] * cos(y[1]) + y[0] * sin(y[1]) * y[3];
    return 0;
}

// charged_particle: E x B drift plus gyration.
static int reference_charged_particle(double t, reference_state *r, double *accuracy)
{
    const double m = 1.0, e = 1.0, Bz = 2.0, E = 1.0, vx0 = 1.0, vy0 = 0.5;
    double wc = e * Bz / m, vd = E / Bz, wx0 = vx0 - vd, wy0 = vy0;
    r->q[0] = vd * t + (wx0 * sin(wc * t) + wy0 * (1.0 - cos(wc * t))) / wc;
    r->q[1] = (wx0 * (cos(wc * t) - 1.0) + wy0 * sin(wc * t)) / wc;
    r->v[0] = vd + wx0 * cos(wc * t) + wy0 * sin(wc * t);
    r->v[1] = -wx0 * sin(wc * t) + wy0 * cos(wc * t);
    *accuracy = 0.0;
    return 0;
}

// dc_motor: y = (q, th, i, w).
static void rhs_dc_motor(double t, const double *y, double *f, const void *user)
{
    (void)t, (void)user;
    const double Lind = 0.5, R = 1.0, V = 12.0, K = 0.1, J = 0.01, b = 0.001;
    f[0] = y[2];
    f[1] = y[3];
    f[2] = (V - R * y[2] - K * y[3]) / Lind;
    f[3] = (K * y[2] - b * y[3]) / J;
}

static int reference_dc_motor(double t, reference_state *r, double *accuracy)
{
    double y[4] = { 0 };
    if (reference_ode_solve(rhs_dc_motor, NULL, 4, 0.0, t, reference_steps(t), y, accuracy))
        return -1;
    r->q[0] = y[0], r->q[1] = y[1], r->v[0] = y[2], r->v[1] = y[3];
    return 0;
}

// forced_damped_oscillator: transient plus steady state.
static int reference_forced_damped_oscillator(double t, reference_state *r, double *accuracy)
{
    const double m = 1.0, k = 4.0, c = 0.4, f = 1.0, W = 1.5, x0 = 1.0, v0 = 0.0;
    double g = c / (2.0 * m), w02 = k / m, wd = sqrt(w02 - g * g);
    double D = (w02 - W * W) * (w02 - W * W) + (2.0 * g * W) * (2.0 * g * W);
    double A = (f / m) * (w02 - W * W) / D, B = (f / m) * 2.0 * g * W / D;
    double c1 = x0 - A, c2 = (v0 - B * W + g * c1) / wd;
    double decay = exp(-g * t), cs = cos(wd * t), sn = sin(wd * t);
    r->q[0] = A * cos(W * t) + B * sin(W * t) + decay * (c1 * cs + c2 * sn);
    r->v[0] = -A * W * sin(W * t) + B * W * cos(W * t) +
              decay * (-g * (c1 * cs + c2 * sn) + wd * (-c1 * sn + c2 * cs));
    *accuracy = 0.0;
    return 0;
}

// duffing: y = (x, x').
static void rhs_duffing(double t, const double *y, double *f, const void *user)
{
    (void)user;
    const double m = 1.0, c = 0.2, k = 1.0, b = 1.0, fa = 0.5, W = 1.2;
    f[0] = y[1];
    f[1] = (-c * y[1] - k * y[0] - b * y[0] * y[0] * y[0] + fa * cos(W * t)) / m;
}

static int reference_duffing(double t, reference_state *r, double *accuracy)
{
    double y[2] = { 1.0, 0.0 };
    if (reference_ode_solve(rhs_duffing, NULL, 2, 0.0, t, reference_steps(t), y, accuracy))
        return -1;
    r->q[0] = y[0], r->v[0] = y[1];
    return 0;
}

// spring_heating: y = (x, x', S).
static void rhs_spring_heating(double t, const double *y, double *f, const void *user)
{
    (void)t, (void)user;
    const double m = 1.0, k = 4.0, c = 0.5, C = 0.5, T0 = 300.0;
    f[0] = y[1];
    f[1] = (-k * y[0] - c * y[1]) / m;
    f[2] = c * y[1] * y[1] / (T0 * exp(y[2] / C));
}

static int reference_spring_heating(double t, reference_state *r, double *accuracy)
{
    double y[3] = { 1.0, 0.0, 0.0 };
    if (reference_ode_solve(rhs_spring_heating, NULL, 3, 0.0, t, reference_steps(t), y,
                            accuracy))
        return -1;
    r->q[0] = y[0], r->v[0] = y[1], r->s[0] = y[2];
    return 0;
}

// adiabatic_piston: y = (x, x', S1, S2).
static void rhs_adiabatic_piston(double t, const double *y, double *f, const void *user)
{
    (void)t, (void)user;
    const double m = 6.0, A = 1e-3, l = 1.0, lambda = 30.0, kappa = 0.5, R = 8.314462618;
    const double N1 = 0.02, N2 = 0.02, c1 = 1.5, c2 = 2.5, T0 = 300.0, Vh = A * l / 2.0;
    double V1 = A * y[0], V2 = A * (l - y[0]);
    double U1 = c1 * N1 * R * T0 * exp(y[2] / (c1 * N1 * R)) * pow(Vh / V1, 1.0 / c1);
    double U2 = c2 * N2 * R * T0 * exp(y[3] / (c2 * N2 * R)) * pow(Vh / V2, 1.0 / c2);
    double T1 = U1 / (c1 * N1 * R), T2 = U2 / (c2 * N2 * R);
    double p1 = U1 / (c1 * V1), p2 = U2 / (c2 * V2);
    f[0] = y[1];
    f[1] = ((p1 - p2) * A - lambda * y[1]) / m;
    f[2] = (lambda / 2.0 * y[1] * y[1] + kappa * (T2 - T1)) / T1;
    f[3] = (lambda / 2.0 * y[1] * y[1] + kappa * (T1 - T2)) / T2;
}

static int reference_adiabatic_piston(double t, reference_state *r, double *accuracy)
{
    const double R = 8.314462618;
    double y[4] = { 0.5, 0.0, 1.5 * 0.02 * R * log(400.0 / 300.0), 0.0 };
    if (reference_ode_solve(rhs_adiabatic_piston, NULL, 4, 0.0, t, reference_steps(t), y,
                            accuracy))
        return -1;
    r->q[0] = y[0], r->v[0] = y[1], r->s[0] = y[2], r->s[1] = y[3];
    return 0;
}

// two_bodies: y = (S1, S2).
static void rhs_two_bodies(double t, const double *y, double *f, const void *user)
{
    (void)t, (void)user;
    const double C1 = 2.0, g2 = 0.01, kappa = 0.5, T0 = 300.0;
    double T1 = T0 * exp(y[0] / C1), T2 = y[1] / g2;
    f[0] = kappa * (T2 - T1) / T1;
    f[1] = kappa * (T1 - T2) / T2;
}

static int reference_two_bodies(double t, reference_state *r, double *accuracy)
{
    double y[2] = { 2.0 * log(400.0 / 300.0), 0.01 * 250.0 };
    if (reference_ode_solve(rhs_two_bodies, NULL, 2, 0.0, t, reference_steps(t), y, accuracy))
        return -1;
    r->s[0] = y[0], r->s[1] = y[1];
    return 0;
}

// lcr_heating: y = (q, q', S_R).
static void rhs_lcr_heating(double t, const double *y, double *f, const void *user)
{
    (void)t, (void)user;
    const double Lind = 0.5, C = 0.5, R = 0.4, C_R = 0.01, T0 = 300.0;
    f[0] = y[1];
    f[1] = (-y[0] / C - R * y[1]) / Lind;
    f[2] = R * y[1] * y[1] / (T0 * exp(y[2] / C_R));
}

static int reference_lcr_heating(double t, reference_state *r, double *accuracy)
{
    const double Q0 = 1.0;
    double y[3] = { Q0, 0.0, 0.0 };
    if (reference_ode_solve(rhs_lcr_heating, NULL, 3, 0.0, t, reference_steps(t), y, accuracy))
        return -1;
    r->q[0] = y[0] - Q0, r->q[1] = y[0], r->q[2] = y[0] - Q0;
    r->v[0] = r->v[1] = r->v[2] = y[1];
    r->s[0] = y[2];
    return 0;
}

#endif
