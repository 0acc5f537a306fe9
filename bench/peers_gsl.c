// Peers of the work-precision benchmark: GSL odeiv2 on minimal coordinates (bench/workprec.h).
//
//   pendulum         y = (theta, theta')                 theta from the downward vertical
//   double pendulum  y = (th1, th2, th1', th2')          absolute rod angles
//   RLC circuit      y = (q, i)                          capacitor charge, loop current
//   slider-crank     y = (theta, theta', x3, x3')        crank angle, piston position; the
//                                                        slider follows from the loop closure
//                                                        x2 = r cos(theta) + sqrt(l^2 - r^2 sin^2(theta))
//
// The equations are hand-written C (Euler-Lagrange equations of the same Lagrangians as the
// .dirac models in bench/models/). The implicit stepper (rk4imp) needs the Jacobian: it is
// formed by forward differences of the right-hand side (n extra evaluations per call).
// Tolerances are applied component-wise with absolute scales (typical magnitudes of each
// component: angles 1, angular velocities sqrt(g/l), charges Q0, currents Q0 w0, ...).
#include "problems.h"
#include "workprec.h"

#include <gsl/gsl_errno.h>
#include <gsl/gsl_math.h>
#include <gsl/gsl_odeiv2.h>
#include <gsl/gsl_version.h>

#include <math.h>
#include <stdio.h>
#include <string.h>

typedef struct gsl_problem {
    const wp_params *par;
    int problem;
    size_t dim;
    int (*rhs)(double t, const double y[], double f[], void *params);
} gsl_problem;

// ---------------------------------------------------------------------------------------
// Right-hand sides.

static int pendulum_rhs(double t, const double y[], double f[], void *params)
{
    (void)t;
    const wp_params *p = ((const gsl_problem *)params)->par;
    f[0] = y[1];
    f[1] = -p->g / p->l * sin(y[0]);
    return GSL_SUCCESS;
}

// The double pendulum's equations in absolute angles (tests/support/problems.h).
static int double_pendulum_gsl_rhs(double t, const double y[], double f[], void *params)
{
    (void)t;
    const wp_params *p = ((const gsl_problem *)params)->par;
    double_pendulum dp = { p->m1, p->m2, p->l1, p->l2, p->g };
    double_pendulum_rhs(&dp, y, f);
    return GSL_SUCCESS;
}

// Lind q'' + R q' + q/C = 0
static int rlc_rhs(double t, const double y[], double f[], void *params)
{
    (void)t;
    const wp_params *p = ((const gsl_problem *)params)->par;
    f[0] = y[1];
    f[1] = -(p->R * y[1] + y[0] / p->C) / p->Lind;
    return GSL_SUCCESS;
}

// Slider position s(theta) and its first two derivatives.
static void slider_kinematics(const wp_params *p, double theta, double *s, double *s1, double *s2)
{
    double sn = sin(theta), cs = cos(theta), r = p->r;
    double w = sqrt(p->rl * p->rl - r * r * sn * sn);
    *s = r * cs + w;
    *s1 = -r * sn - r * r * sn * cs / w;
    *s2 = -r * cs - r * r * (cs * cs - sn * sn) / w - r * r * r * r * sn * sn * cs * cs / (w * w * w);
}

// T = m1 r^2 theta'^2 / 2 + m2 (s'(theta) theta')^2 / 2 + m3 x3'^2 / 2,
// V = k (x3 - s(theta))^2 / 2, damper force c (x3' - s' theta') on the slider (and its opposite
// on the piston):
//   (m1 r^2 + m2 s'^2) theta'' = F s' - m2 s' s'' theta'^2,   m3 x3'' = -F,
//   F = k (x3 - s) + c (x3' - s' theta').
static int slider_crank_rhs(double t, const double y[], double f[], void *params)
{
    (void)t;
    const wp_params *p = ((const gsl_problem *)params)->par;
    double s, s1, s2;
    slider_kinematics(p, y[0], &s, &s1, &s2);
    double force = p->k * (y[2] - s) + p->c * (y[3] - s1 * y[1]);
    double inertia = p->sm1 * p->r * p->r + p->sm2 * s1 * s1;
    f[0] = y[1];
    f[1] = (force * s1 - p->sm2 * s1 * s2 * y[1] * y[1]) / inertia;
    f[2] = y[3];
    f[3] = -force / p->sm3;
    return GSL_SUCCESS;
}

// Forward-difference Jacobian (all problems are autonomous: df/dt = 0).
static int fd_jacobian(double t, const double y[], double *dfdy, double dfdt[], void *params)
{
    const gsl_problem *pb = params;
    size_t n = pb->dim;
    double f0[8], f1[8], yy[8];
    pb->rhs(t, y, f0, params);
    memcpy(yy, y, n * sizeof *yy);
    for (size_t j = 0; j < n; j++) {
        double delta = 1.4901161193847656e-08 * fmax(fabs(y[j]), 1e-3);
        yy[j] = y[j] + delta;
        delta = yy[j] - y[j];
        pb->rhs(t, yy, f1, params);
        for (size_t i = 0; i < n; i++)
            dfdy[i * n + j] = (f1[i] - f0[i]) / delta;
        yy[j] = y[j];
    }
    for (size_t i = 0; i < n; i++)
        dfdt[i] = 0.0;
    return GSL_SUCCESS;
}

// ---------------------------------------------------------------------------------------
// Set-up and results per problem.

static void setup(int problem, const wp_params *p, gsl_problem *pb, double y[], double scale[])
{
    pb->par = p;
    pb->problem = problem;
    switch (problem) {
    case WP_PENDULUM:
        pb->dim = 2;
        pb->rhs = pendulum_rhs;
        y[0] = p->theta0;
        y[1] = 0.0;
        scale[0] = 1.0;
        scale[1] = sqrt(p->g / p->l);
        break;
    case WP_DOUBLE_PENDULUM:
        pb->dim = 4;
        pb->rhs = double_pendulum_gsl_rhs;
        y[0] = p->th1;
        y[1] = p->th2;
        y[2] = y[3] = 0.0;
        scale[0] = scale[1] = 1.0;
        scale[2] = scale[3] = sqrt(p->g / p->l1);
        break;
    case WP_RLC:
        pb->dim = 2;
        pb->rhs = rlc_rhs;
        y[0] = p->Q0;
        y[1] = 0.0;
        scale[0] = p->Q0;
        scale[1] = p->Q0 / sqrt(p->Lind * p->C);
        break;
    default:   // WP_SLIDER_CRANK
        pb->dim = 4;
        pb->rhs = slider_crank_rhs;
        y[0] = 0.0;
        y[1] = p->w0;
        y[2] = p->r + p->rl;
        y[3] = 0.0;
        scale[0] = 1.0;
        scale[1] = p->w0;
        scale[2] = p->r;
        scale[3] = p->r * p->w0;
        break;
    }
}

// Cartesian positions (the .dirac model's coordinates), energy and constraint residual.
static void finish(const gsl_problem *pb, const double y[], wp_result *out)
{
    const wp_params *p = pb->par;
    out->constraint = 0.0;   // minimal coordinates satisfy the constraints exactly
    out->energy = 0.0;
    switch (pb->problem) {
    case WP_PENDULUM:
        out->q[0] = p->l * sin(y[0]);
        out->q[1] = -p->l * cos(y[0]);
        out->energy = 0.5 * p->m * p->l * p->l * y[1] * y[1] - p->m * p->g * p->l * cos(y[0]);
        break;
    case WP_DOUBLE_PENDULUM: {
        out->q[0] = p->l1 * sin(y[0]);
        out->q[1] = -p->l1 * cos(y[0]);
        out->q[2] = out->q[0] + p->l2 * sin(y[1]);
        out->q[3] = out->q[1] - p->l2 * cos(y[1]);
        double v1 = p->l1 * y[2], v2 = p->l2 * y[3];
        double kinetic = 0.5 * p->m1 * v1 * v1 +
                         0.5 * p->m2 * (v1 * v1 + v2 * v2 + 2.0 * v1 * v2 * cos(y[0] - y[1]));
        out->energy = kinetic + p->m1 * p->g * out->q[1] + p->m2 * p->g * out->q[3];
        break;
    }
    case WP_RLC:
        out->q[0] = y[0] - p->Q0;   // qL - qC is constant (Kirchhoff), qL(0) = 0
        out->q[1] = y[0];
        break;
    default: {
        double s, s1, s2;
        slider_kinematics(p, y[0], &s, &s1, &s2);
        out->q[0] = p->r * cos(y[0]);
        out->q[1] = p->r * sin(y[0]);
        out->q[2] = s;
        out->q[3] = 0.0;
        out->q[4] = y[2];
        break;
    }
    }
}

void wp_gsl_run(int problem, const wp_params *par, wp_gsl_stepper stepper, double setting,
                double t_end, wp_result *out)
{
    memset(out, 0, sizeof *out);
    gsl_problem pb;
    double y[8], scale[8];
    setup(problem, par, &pb, y, scale);
    gsl_odeiv2_system sys = { pb.rhs, fd_jacobian, pb.dim, &pb };
    double t = 0.0;
    int status;
    gsl_odeiv2_driver *d;
    if (stepper == WP_GSL_RK4IMP) {
        // Fixed step: `setting` steps. The control object only sets the tolerance of the
        // stepper's internal modified Newton iteration: 1e-10 (relative and scaled absolute),
        // as libdirac's default Newton tolerance. GSL's iteration starts from y_n and stops
        // after 7 iterations; a step whose iteration has not converged fails the whole run.
        unsigned long n = (unsigned long)setting;
        double h = t_end / (double)n;
        d = gsl_odeiv2_driver_alloc_scaled_new(&sys, gsl_odeiv2_step_rk4imp, h, 1e-10, 1e-10,
                                               1.0, 0.0, scale);
        status = gsl_odeiv2_driver_apply_fixed_step(d, &t, h, n, y);
    } else {
        d = gsl_odeiv2_driver_alloc_scaled_new(&sys, gsl_odeiv2_step_rk8pd, 1e-3 * t_end,
                                               setting, setting, 1.0, 0.0, scale);
        gsl_odeiv2_driver_set_nmax(d, 100000000UL);
        status = gsl_odeiv2_driver_apply(d, &t, t_end, y);
    }
    out->steps = (long)d->e->count;
    out->rejected = (long)d->e->failed_steps;
    gsl_odeiv2_driver_free(d);
    out->t = t;
    if (status != GSL_SUCCESS) {
        snprintf(out->message, sizeof out->message, "GSL status %d (%s) at t = %g", status,
                 gsl_strerror(status), t);
        return;
    }
    for (size_t i = 0; i < pb.dim; i++)
        if (!isfinite(y[i])) {
            snprintf(out->message, sizeof out->message, "non-finite state at t = %g", t);
            return;
        }
    finish(&pb, y, out);
    out->ok = 1;
}

const char *wp_gsl_version(void)
{
    return GSL_VERSION;
}
