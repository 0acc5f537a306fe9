// Work-precision benchmark (bench/workprec.c): the problems' physical parameters and the
// interface of the peer solvers (bench/peers_gsl.c: GSL odeiv2 on minimal coordinates;
// bench/peers_ida.c: SUNDIALS IDA on the stabilized index-2 formulation of the Cartesian
// problem). Every solver reports the Cartesian positions of the dirac model's coordinates at
// the final time, so all errors are measured the same way.
#ifndef DIRAC_BENCH_WORKPREC_H
#define DIRAC_BENCH_WORKPREC_H

enum { WP_PENDULUM, WP_DOUBLE_PENDULUM, WP_RLC, WP_SLIDER_CRANK, WP_PROBLEM_COUNT };

#define WP_MAX_Q 8

/// Parameters of the four problems (the .dirac models in bench/models/ are overridden with
/// these values, so the peers' hand-written equations and the models agree).
typedef struct wp_params {
    // pendulum: mass m, length l, gravity g, released from rest at angle theta0
    double m, l, g, theta0;
    // double pendulum: masses, lengths, released from rest at angles th1, th2
    double m1, m2, l1, l2, th1, th2;
    // series RLC circuit: inductance, capacitance, resistance, initial charge
    double Lind, C, R, Q0;
    // slider-crank: crank-pin, slider and piston masses, crank and rod lengths, spring,
    // damper, initial crank speed
    double sm1, sm2, sm3, r, rl, k, c, w0;
} wp_params;

/// Result of one peer run at the final time: the positions in the dirac model's coordinate
/// order (pendulum x, y; double pendulum x1, y1, x2, y2; RLC qL, qC; slider-crank x1, y1, x2,
/// y2, x3), the energy, and the solver's counters.
typedef struct wp_result {
    int ok;                   ///< 1 on success; else message says why
    double t;                 ///< time reached
    double q[WP_MAX_Q];
    double energy;            ///< mechanical energy (pendulum problems); 0 otherwise
    double constraint;        ///< max |phi| of the Cartesian constraints at the end
    long steps;               ///< steps taken (accepted)
    long rejected;            ///< rejected steps (error test or Newton failures)
    char message[200];
} wp_result;

/// GSL odeiv2 steppers used as peers.
typedef enum wp_gsl_stepper {
    WP_GSL_RK4IMP,   ///< implicit Gauss-Legendre 2-stage (order 4), fixed step
    WP_GSL_RK8PD,    ///< explicit Prince-Dormand 8(9), adaptive (rtol = atol = tol)
} wp_gsl_stepper;

/// Integrates problem `problem` on [0, t_end] on minimal coordinates (angles; the RLC circuit
/// in its loop charge; the slider-crank in crank angle and piston position). `setting` is the
/// number of steps (RK4IMP) or the tolerance (RK8PD).
void wp_gsl_run(int problem, const wp_params *par, wp_gsl_stepper stepper, double setting,
                double t_end, wp_result *out);

/// Integrates problem `problem` on [0, t_end] with IDA (variable-order BDF) on the GGL
/// (stabilized index-2) formulation of the Cartesian constrained equations, rtol = atol = tol
/// on the differential variables (the algebraic ones are excluded from the error test). The
/// RLC circuit has no holonomic constraint: its DAE (Kirchhoff's law on the currents) is
/// index 1 and solved as such.
void wp_ida_run(int problem, const wp_params *par, double tol, double t_end, wp_result *out);

/// Library versions ("2.7.1", "6.4.1").
const char *wp_gsl_version(void);
const char *wp_ida_version(void);

#endif
