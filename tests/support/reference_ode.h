// An independent reference solver for the textbook suite (tests/test_textbook.c): classical
// Runge–Kutta 4 with a fixed step on equations of motion written by hand in the test (minimal
// coordinates), checked by Richardson extrapolation. It shares no code with libdirac.
#ifndef DIRAC_TEST_REFERENCE_ODE_H
#define DIRAC_TEST_REFERENCE_ODE_H

/// Right-hand side y' = f(t, y) of an ODE of dimension n; `user` is passed through.
typedef void (*reference_rhs_fn)(double t, const double *y, double *dydt, const void *user);

/// Integrates y' = f(t, y) from (t0, y) to t_end with N and 2N RK4 steps and returns in y the
/// Richardson extrapolation (16 y_2N − y_N)/15 (order 5). *error_estimate receives
/// max_i |y_2N − y_N|·16/15 / (1 + |y_i|), the estimated relative error of y_2N, an upper bound
/// for that of the returned value. n ≤ 32. Returns 0, or −1 on a bad argument or a non-finite
/// value.
int reference_ode_solve(reference_rhs_fn f, const void *user, int n, double t0, double t_end,
                        long steps, double *y, double *error_estimate);

#endif
