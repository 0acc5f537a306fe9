// Fixed-step classical Runge–Kutta 4 (Kutta 1901; Hairer, Nørsett & Wanner, Solving ODEs I,
// II.1) with a Richardson check: the global error of RK4 is C h⁴ + O(h⁵), so with y_N, y_2N
// from N and 2N steps, (y_2N − y_N)·16/15 estimates the error of y_2N and
// (16 y_2N − y_N)/15 removes its leading term.
#include "reference_ode.h"

#include <math.h>
#include <string.h>

enum { REFERENCE_MAX_DIM = 32 };

static int rk4_integrate(reference_rhs_fn f, const void *user, int n, double t0, double t_end,
                         long steps, double *y)
{
    double k1[REFERENCE_MAX_DIM], k2[REFERENCE_MAX_DIM], k3[REFERENCE_MAX_DIM],
        k4[REFERENCE_MAX_DIM], tmp[REFERENCE_MAX_DIM], carry[REFERENCE_MAX_DIM] = { 0 };
    double h = (t_end - t0) / (double)steps;
    for (long k = 0; k < steps; k++) {
        double t = t0 + (double)k * h;
        f(t, y, k1, user);
        for (int i = 0; i < n; i++)
            tmp[i] = y[i] + 0.5 * h * k1[i];
        f(t + 0.5 * h, tmp, k2, user);
        for (int i = 0; i < n; i++)
            tmp[i] = y[i] + 0.5 * h * k2[i];
        f(t + 0.5 * h, tmp, k3, user);
        for (int i = 0; i < n; i++)
            tmp[i] = y[i] + h * k3[i];
        f(t + h, tmp, k4, user);
        // compensated (Kahan) summation: the increments are ~1e-5 of y over 1e5 steps
        for (int i = 0; i < n; i++) {
            double increment = h / 6.0 * (k1[i] + 2.0 * k2[i] + 2.0 * k3[i] + k4[i]) - carry[i];
            double sum = y[i] + increment;
            carry[i] = (sum - y[i]) - increment;
            y[i] = sum;
        }
    }
    for (int i = 0; i < n; i++)
        if (!isfinite(y[i]))
            return -1;
    return 0;
}

int reference_ode_solve(reference_rhs_fn f, const void *user, int n, double t0, double t_end,
                        long steps, double *y, double *error_estimate)
{
    if (n < 0 || n > REFERENCE_MAX_DIM || steps < 1 || !(t_end >= t0))
        return -1;
    double coarse[REFERENCE_MAX_DIM], fine[REFERENCE_MAX_DIM];
    memcpy(coarse, y, (size_t)n * sizeof *y);
    memcpy(fine, y, (size_t)n * sizeof *y);
    if (rk4_integrate(f, user, n, t0, t_end, steps, coarse) != 0 ||
        rk4_integrate(f, user, n, t0, t_end, 2 * steps, fine) != 0)
        return -1;
    double worst = 0.0;
    for (int i = 0; i < n; i++) {
        double difference = (fine[i] - coarse[i]) * 16.0 / 15.0;
        worst = fmax(worst, fabs(difference) / (1.0 + fabs(fine[i])));
        y[i] = fine[i] + difference / 16.0;
    }
    *error_estimate = worst;
    return 0;
}
