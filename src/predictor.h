// Internal: the predictor of Newton's unknowns — the polynomial through their values at the
// last steps, extrapolated to the next one (Hairer–Wanner, Solving ODEs II, sec. IV.8: starting
// values from the last steps' solution). A history is used only while it ends at the node the
// next step starts from; a wrong guess costs iterations, never accuracy. The history lives in
// memory the simulation's snapshots hold (src/sim_state.c), so a restored run predicts, and
// continues, exactly like the run it was saved from.
#ifndef DIRAC_SRC_PREDICTOR_H
#define DIRAC_SRC_PREDICTOR_H

#include <stddef.h>

/// Points the extrapolation uses at most (degree 4: at h = 1e-3 on a pendulum the guess is
/// then within 1e-11 of the solution, so a Newton step from it is the last).
#define PREDICTOR_POINTS 5

/// Points lagrange_interpolate takes at most.
#define LAGRANGE_MAX_POINTS 8

/// The polynomial through `count` (<= LAGRANGE_MAX_POINTS) points at `x`, for `size` values at
/// once: out[i] = Σ_j ℓ_j(x) values[j stride + i] with the Lagrange basis
/// ℓ_j(x) = Π_{k≠j} (x − nodes_k) / (nodes_j − nodes_k) (distinct nodes). Always inlined, so
/// that a caller with a constant count gets the products unrolled.
static inline __attribute__((always_inline)) void
lagrange_interpolate(const double *nodes, int count, double x, const double *restrict values,
                     size_t stride, int size, double *restrict out)
{
    double w[LAGRANGE_MAX_POINTS];
    for (int j = 0; j < count; j++) {
        w[j] = 1.0;
        for (int k = 0; k < count; k++)
            if (k != j)
                w[j] *= (x - nodes[k]) / (nodes[j] - nodes[k]);
    }
    for (int i = 0; i < size; i++) {
        double sum = 0.0;
        for (int j = 0; j < count; j++)
            sum += w[j] * values[(size_t)j * stride + (size_t)i];
        out[i] = sum;
    }
}

/// A history of up to PREDICTOR_POINTS points of up to `capacity` values each in caller-owned
/// memory of predictor_memory_size(capacity) doubles, zeroed (empty): a header (the number of
/// points, their size, the row of the newest, the node the history ends at) | the times of the
/// points, newest first | their values, a ring of PREDICTOR_POINTS rows of `capacity` (the
/// newest point's row, then the older points' in the rows after it, cyclically), so that a step
/// stores its values once and moves none.
typedef struct predictor {
    int capacity;
    double *memory;
} predictor;

size_t predictor_memory_size(int capacity);

/// Records the solution `values` (size entries) of the step just taken from the node start_t
/// to node_t, at `time`. A different size, or a history that does not end at start_t, starts
/// the history anew.
void predictor_push(predictor *p, int size, double time, const double *values, double start_t,
                    double node_t);

/// Extrapolates the history to `time` into out (size entries) for a step of size h from the
/// node node_t; returns the number of points used, 0 (out untouched) without a valid history.
int predictor_predict(const predictor *p, int size, double time, double node_t, double h,
                      double *out);

#endif
