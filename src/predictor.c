// Extrapolation of Newton's unknowns from the last steps (predictor.h).
#include "predictor.h"

#include <float.h>
#include <math.h>
#include <string.h>

enum { COUNT, SIZE, NODE, TIMES, VALUES = TIMES + PREDICTOR_POINTS };
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

void predictor_push(predictor *p, int size, double time, const double *values, double start_t,
                    double node_t)
{
    double *m = p->memory;
    if (!m || size > p->capacity)
        return;
    int count = (int)m[COUNT];
    if (count > 0 && ((int)m[SIZE] != size || !same_node(m[NODE], start_t, node_t - start_t) ||
                      !(time > m[TIMES])))
        count = 0;
    int keep = count < PREDICTOR_POINTS ? count : PREDICTOR_POINTS - 1;
    size_t width = (size_t)p->capacity;
    memmove(m + VALUES + width, m + VALUES, (size_t)keep * width * sizeof *m);
    memmove(m + TIMES + 1, m + TIMES, (size_t)keep * sizeof *m);
    memcpy(m + VALUES, values, (size_t)size * sizeof *values);
    m[TIMES] = time;
    m[COUNT] = keep + 1;
    m[SIZE] = size;
    m[NODE] = node_t;
}

int predictor_predict(const predictor *p, int size, double time, double node_t, double h,
                      double *out)
{
    const double *m = p->memory;
    int count = m ? (int)m[COUNT] : 0;
    if (count == 0 || (int)m[SIZE] != size || !same_node(m[NODE], node_t, h))
        return 0;
    // a constant count for a full history (every step after the first few): the compiler
    // unrolls the weights' products of the inlined interpolation
    size_t width = (size_t)p->capacity;
    if (count == PREDICTOR_POINTS)
        lagrange_interpolate(m + TIMES, PREDICTOR_POINTS, time, m + VALUES, width, size, out);
    else
        lagrange_interpolate(m + TIMES, count, time, m + VALUES, width, size, out);
    return count;
}
