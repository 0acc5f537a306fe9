// Extrapolation of Newton's unknowns from the last steps (predictor.h).
#include "predictor.h"

#include <float.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

// The history's bookkeeping at the start of its memory (copied in and out with memcpy, so it
// travels with the snapshots as bytes): the points it holds (0: empty), their size, the row of
// the newest point, and the node the history ends at.
typedef struct history_header {
    int32_t count, size, newest, unused;
    double node_t;
} history_header;

enum { HEADER = 3, TIMES = HEADER, VALUES = TIMES + PREDICTOR_POINTS };
_Static_assert(sizeof(history_header) == HEADER * sizeof(double), "the header's doubles");
_Static_assert(PREDICTOR_POINTS <= LAGRANGE_MAX_POINTS, "the predictor interpolates its points");

size_t predictor_memory_size(int capacity)
{
    return VALUES + (size_t)PREDICTOR_POINTS * (size_t)(capacity > 0 ? capacity : 0);
}

// The history ends at node a and the step starts at b (node times are sums of steps: equal
// up to rounding).
static int same_node(double a, double b, double h)
{
    double larger = fabs(a) > fabs(b) ? fabs(a) : fabs(b);   // finite times: fmax, inlined
    return fabs(a - b) <= 1e-6 * fabs(h) + 4.0 * DBL_EPSILON * larger;
}

// The number of points of the history if it holds `size` values each and ends at the node
// node_t (steps of size h), else 0 (also for memory no push wrote: a snapshot's bytes are the
// caller's); *newest: the row of its newest point.
static int points_to(const predictor *p, int size, double node_t, double h, int *newest)
{
    history_header hd;
    memcpy(&hd, p->memory, sizeof hd);
    *newest = hd.newest;
    if ((uint32_t)hd.count - 1u >= PREDICTOR_POINTS || (uint32_t)hd.newest >= PREDICTOR_POINTS ||
        hd.size != size || size > p->capacity || !same_node(hd.node_t, node_t, h))
        return 0;
    return hd.count;
}

void predictor_push(predictor *p, int size, double time, const double *values, double start_t,
                    double node_t)
{
    double *m = p->memory;
    if (!m || size < 0 || size > p->capacity)
        return;
    int newest, count = points_to(p, size, start_t, node_t - start_t, &newest);
    if (!(time > m[TIMES]))
        count = 0;
    // the times move up one place (those past the history's end are never read); the values
    // go to the row before the newest (cyclically): the oldest point's, when the ring is full
    for (int j = PREDICTOR_POINTS - 1; j > 0; j--)
        m[TIMES + j] = m[TIMES + j - 1];
    m[TIMES] = time;
    newest = count > 0 && newest > 0 ? newest - 1 : PREDICTOR_POINTS - 1;
    double *row = m + VALUES + (size_t)newest * (size_t)p->capacity;
    for (int i = 0; i < size; i++)
        row[i] = values[i];
    history_header hd = { count < PREDICTOR_POINTS ? count + 1 : PREDICTOR_POINTS, size, newest,
                          0, node_t };
    memcpy(m, &hd, sizeof hd);
}

// The weights of lagrange_interpolate (predictor.h), formed the same way:
// w[j] = ℓ_j(x) = Π_{k≠j} (x − nodes_k) / (nodes_j − nodes_k), the factors in the order of k.
static void lagrange_weights(const double *nodes, int count, double x, double *w)
{
    for (int j = 0; j < count; j++) {
        w[j] = 1.0;
        for (int k = 0; k < count; k++)
            if (k != j)
                w[j] *= (x - nodes[k]) / (nodes[j] - nodes[k]);
    }
}

// lagrange_weights of five nodes, written out: the same quotients and products in the same
// order, with n_k − n_j = −(n_j − n_k) and a/(−b) = −(a/b) exactly (rounding is symmetric), so
// each difference of nodes is formed once and the weights w_1, w_3 (odd counts of such
// factors) come out negated: the caller subtracts their terms. Equal to the bit
// (test_predictor compares them).
_Static_assert(PREDICTOR_POINTS == 5, "five_point_weights has five nodes");

static inline __attribute__((always_inline)) void five_point_weights(const double *n, double x,
                                                                     double *w)
{
    double d0 = x - n[0], d1 = x - n[1], d2 = x - n[2], d3 = x - n[3], d4 = x - n[4];
    double n01 = n[0] - n[1], n02 = n[0] - n[2], n03 = n[0] - n[3], n04 = n[0] - n[4];
    double n12 = n[1] - n[2], n13 = n[1] - n[3], n14 = n[1] - n[4];
    double n23 = n[2] - n[3], n24 = n[2] - n[4], n34 = n[3] - n[4];
    w[0] = d1 / n01 * (d2 / n02) * (d3 / n03) * (d4 / n04);
    w[1] = d0 / n01 * (d2 / n12) * (d3 / n13) * (d4 / n14);   // −w_1
    w[2] = d0 / n02 * (d1 / n12) * (d3 / n23) * (d4 / n24);
    w[3] = d0 / n03 * (d1 / n13) * (d2 / n23) * (d4 / n34);   // −w_3
    w[4] = d0 / n04 * (d1 / n14) * (d2 / n24) * (d3 / n34);
}

// The rows of the `count` points of the ring from row `newest` on (newest first).
static inline __attribute__((always_inline)) void rows_of(const predictor *p, int newest,
                                                         int count, const double **row)
{
    size_t width = (size_t)p->capacity, end = PREDICTOR_POINTS * width;
    size_t offset = (size_t)newest * width;
    for (int j = 0; j < count; j++) {
        row[j] = p->memory + VALUES + offset;
        offset = offset + width < end ? offset + width : 0;
    }
}

int predictor_predict(const predictor *p, int size, double time, double node_t, double h,
                      double *restrict out)
{
    if (!p->memory)
        return 0;
    int newest, count = points_to(p, size, node_t, h, &newest);
    // lagrange_interpolate over the rows; a full history (every step after the first few)
    // with the weights written out, w[1] and w[3] negated
    double w[PREDICTOR_POINTS];
    if (count == PREDICTOR_POINTS) {
        five_point_weights(p->memory + TIMES, time, w);
        const double *row[PREDICTOR_POINTS];
        rows_of(p, newest, PREDICTOR_POINTS, row);
        for (int i = 0; i < size; i++)
            out[i] = 0.0 + w[0] * row[0][i] - w[1] * row[1][i] + w[2] * row[2][i] -
                     w[3] * row[3][i] + w[4] * row[4][i];
    } else if (count > 0) {
        lagrange_weights(p->memory + TIMES, count, time, w);
        const double *row[PREDICTOR_POINTS];
        rows_of(p, newest, count, row);
        for (int i = 0; i < size; i++) {
            double sum = 0.0;
            for (int j = 0; j < count; j++)
                sum += w[j] * row[j][i];
            out[i] = sum;
        }
    }
    return count;
}
