// The predictor of Newton's unknowns (src/predictor.c): the polynomial through the last
// PREDICTOR_POINTS steps' values, extrapolated to the next step.
// - Polynomials of degree < count are reproduced to rounding, for uneven and changing step
//   sizes and every count from 1 to the full history, before and after the ring of rows wraps:
//   the error bound is 64 ε Σ_j |ℓ_j(x)| |v_j| (ℓ_j: the Lagrange basis at x, formed here in
//   long double): each weight is 4 quotients and 3 products of rounded differences (about
//   15 ε relative) and the sum of the count terms adds count ε: about 20 ε in all, and 64 ε
//   leaves a margin of 3 (the largest error measured is 1.6 ε Σ_j |ℓ_j(x)| |v_j|).
// - A full history's prediction equals lagrange_interpolate (src/predictor.h: the weights
//   Π_{k≠j} (x − t_k)/(t_j − t_k) and the sum in the order of the points, newest first) over the
//   same points to the bit, for random times at any offset: the predictor writes the weights
//   out but forms the same quotients and products.
// - A history restarts on a change of size, a step that does not start where it ends, or a
//   time that does not increase; a prediction from another node uses no points and leaves
//   `out` alone; a damaged header (memory no push wrote) uses at most the points the memory
//   holds and reads nothing outside it (the sanitizer build checks the reads).
// - A copy of the memory (what snapshots and the failed-step backup hold) predicts and
//   continues exactly like the original.
#include "harness.h"

#include "predictor.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

enum { SIZE = 7, CAPACITY = 9, STEPS = 13 };   // rows wider than the values: the ring's stride

// A vector polynomial of degree `degree`: component i is Σ_d c[i][d] ((t − center)/scale)^d,
// in long double (its rounding far below the predictor's).
typedef struct polynomial {
    int degree;
    double c[SIZE][PREDICTOR_POINTS], center, scale;
} polynomial;

static long double poly_at(const polynomial *p, int i, double t)
{
    long double s = ((long double)t - p->center) / p->scale, value = 0.0L;
    for (int d = p->degree; d >= 0; d--)
        value = value * s + p->c[i][d];
    return value;
}

static void poly_values(const polynomial *p, double t, double *out)
{
    for (int i = 0; i < SIZE; i++)
        out[i] = (double)poly_at(p, i, t);
}

// The newest `count` points pushed, newest first, as the test keeps them.
typedef struct mirror {
    int count;
    double times[PREDICTOR_POINTS], values[PREDICTOR_POINTS][SIZE];
} mirror;

static void mirror_push(mirror *m, double time, const double *values)
{
    int keep = m->count < PREDICTOR_POINTS ? m->count : PREDICTOR_POINTS - 1;
    memmove(m->times + 1, m->times, (size_t)keep * sizeof m->times[0]);
    memmove(m->values + 1, m->values, (size_t)keep * sizeof m->values[0]);
    m->times[0] = time;
    memcpy(m->values[0], values, sizeof m->values[0]);
    m->count = keep + 1;
}

// Σ_j |ℓ_j(x)| |v_j[i]| over the `count` newest points of m, in long double.
static long double error_scale(const mirror *m, int count, double x, int i)
{
    long double sum = 0.0L;
    for (int j = 0; j < count; j++) {
        long double l = 1.0L;
        for (int k = 0; k < count; k++)
            if (k != j)
                l *= ((long double)x - m->times[k]) / ((long double)m->times[j] - m->times[k]);
        sum += fabsl(l) * fabs(m->values[j][i]);
    }
    return sum;
}

static predictor new_predictor(void)
{
    predictor p = { CAPACITY, calloc(predictor_memory_size(CAPACITY), sizeof(double)) };
    ENSURE(p.memory != NULL);
    return p;
}

// Steps of random sizes in [h/2, 2h] from t0; after each, the polynomial's values at the
// step's end join the history, and the predictions for the next step (of a random size again)
// at its midpoint and its end must reproduce the polynomial once the history holds more points
// than its degree (and use all of them).
static void check_reproduction(test_rng *rng, int degree, double t0, double h)
{
    polynomial poly = { degree, { { 0 } }, t0, 8.0 * h };
    for (int i = 0; i < SIZE; i++)
        for (int d = 0; d <= degree; d++)
            poly.c[i][d] = test_rng_uniform(rng, -1.0, 1.0);
    predictor p = new_predictor();
    if (!p.memory)
        return;
    mirror seen = { 0 };
    double t = t0, values[SIZE];
    for (int step = 0; step < STEPS; step++) {
        double step_h = test_rng_uniform(rng, 0.5 * h, 2.0 * h);
        poly_values(&poly, t + step_h, values);
        predictor_push(&p, SIZE, t + step_h, values, t, t + step_h);
        mirror_push(&seen, t + step_h, values);
        t += step_h;
        double next_h = test_rng_uniform(rng, 0.5 * h, 2.0 * h);
        for (int at = 1; at <= 2; at++) {
            double x = t + 0.5 * at * next_h, out[SIZE];
            int used = predictor_predict(&p, SIZE, x, t, next_h, out);
            ENSURE_EQ_INT(used, seen.count);
            if (used <= degree)
                continue;
            for (int i = 0; i < SIZE; i++) {
                long double bound =
                    64.0L * DBL_EPSILON * error_scale(&seen, used, x, i);
                ENSURE_LE(fabsl(out[i] - poly_at(&poly, i, x)), bound);
            }
        }
    }
    free(p.memory);
}

static void polynomials_reproduced(void)
{
    test_rng rng = { 15 };
    for (int degree = 0; degree < PREDICTOR_POINTS; degree++)
        for (int trial = 0; trial < 20; trial++) {
            check_reproduction(&rng, degree, 0.0, 1e-3);
            check_reproduction(&rng, degree, test_rng_uniform(&rng, -1e3, 1e3), 1e-2);
            check_reproduction(&rng, degree, 1e5, 0.5);
        }
}

// The full history's prediction against lagrange_interpolate over the same points laid out
// newest first, compared as bytes.
static void full_history_is_lagrange_interpolate(void)
{
    test_rng rng = { 4 };
    for (int trial = 0; trial < 400; trial++) {
        predictor p = new_predictor();
        if (!p.memory)
            return;
        mirror seen = { 0 };
        double h = pow(10.0, test_rng_uniform(&rng, -6.0, 0.0));
        double t = test_rng_uniform(&rng, -1e4, 1e4), values[SIZE];
        int steps = PREDICTOR_POINTS + test_rng_int(&rng, 0, 2 * PREDICTOR_POINTS);
        for (int step = 0; step < steps; step++) {
            double step_h = h * test_rng_uniform(&rng, 0.25, 4.0);
            for (int i = 0; i < SIZE; i++)
                values[i] = test_rng_normal(&rng) * pow(10.0, test_rng_uniform(&rng, -3, 3));
            predictor_push(&p, SIZE, t + step_h, values, t, t + step_h);
            mirror_push(&seen, t + step_h, values);
            t += step_h;
        }
        double next_h = h * test_rng_uniform(&rng, 0.25, 4.0);
        double x = t + next_h * (trial % 2 ? 0.5 : 1.0), out[SIZE], expected[SIZE];
        ENSURE_EQ_INT(predictor_predict(&p, SIZE, x, t, next_h, out), PREDICTOR_POINTS);
        lagrange_interpolate(seen.times, PREDICTOR_POINTS, x, &seen.values[0][0], SIZE, SIZE,
                             expected);
        ENSURE(memcmp(out, expected, sizeof out) == 0);
        free(p.memory);
    }
}

// Pushes `count` points of constant values one step h apart from t = 0 (the history then
// ends at node count h).
static void push_steps(predictor *p, int size, int count, double h)
{
    double values[SIZE] = { 1, 2, 3, 4, 5, 6, 7 };
    for (int k = 0; k < count; k++)
        predictor_push(p, size, (k + 1) * h, values, k * h, (k + 1) * h);
}

static void history_restarts(void)
{
    double h = 0.1, out[SIZE], values[SIZE] = { 0 };
    predictor p = new_predictor();
    if (!p.memory)
        return;
    ENSURE_EQ_INT(predictor_predict(&p, SIZE, 0.05, 0.0, h, out), 0);   // zeroed: empty
    push_steps(&p, SIZE, 3, h);
    ENSURE_EQ_INT(predictor_predict(&p, SIZE, 0.35, 0.3, h, out), 3);
    // a step from elsewhere, or of another size: no points
    for (int i = 0; i < SIZE; i++)
        out[i] = -1.0;
    ENSURE_EQ_INT(predictor_predict(&p, SIZE, 0.45, 0.4, h, out), 0);
    ENSURE_EQ_INT(predictor_predict(&p, SIZE - 1, 0.35, 0.3, h, out), 0);
    for (int i = 0; i < SIZE; i++)
        ENSURE(out[i] == -1.0);   // untouched
    // a step that does not start where the history ends starts it anew
    predictor_push(&p, SIZE, 0.6, values, 0.5, 0.6);
    ENSURE_EQ_INT(predictor_predict(&p, SIZE, 0.65, 0.6, h, out), 1);
    // so does a time that does not increase (the same step pushed twice)
    push_steps(&p, SIZE, 4, h);
    ENSURE_EQ_INT(predictor_predict(&p, SIZE, 0.45, 0.4, h, out), 4);
    predictor_push(&p, SIZE, 0.4, values, 0.4, 0.4 + h);
    ENSURE_EQ_INT(predictor_predict(&p, SIZE, 0.55, 0.5, h, out), 1);
    // and a change of size
    push_steps(&p, SIZE, 6, h);
    ENSURE_EQ_INT(predictor_predict(&p, SIZE, 0.65, 0.6, h, out), PREDICTOR_POINTS);
    predictor_push(&p, SIZE - 2, 0.7, values, 0.6, 0.7);
    ENSURE_EQ_INT(predictor_predict(&p, SIZE - 2, 0.75, 0.7, h, out), 1);
    ENSURE_EQ_INT(predictor_predict(&p, SIZE, 0.75, 0.7, h, out), 0);
    // more values than the memory holds: nothing recorded, not a byte written
    size_t small_bytes = predictor_memory_size(2) * sizeof(double);
    predictor small = { 2, calloc(1, small_bytes) };
    unsigned char *zeros = calloc(1, small_bytes);
    if (small.memory && zeros) {
        predictor_push(&small, 3, 0.1, values, 0.0, 0.1);
        ENSURE(memcmp(small.memory, zeros, small_bytes) == 0);
        ENSURE_EQ_INT(predictor_predict(&small, 3, 0.15, 0.1, h, out), 0);
    }
    free(small.memory);
    free(zeros);
    free(p.memory);
}

// Memory no push wrote (a damaged snapshot): whatever its header says, a prediction uses at
// most the points it has and reads nothing outside the memory, a push from it too, and a
// header whose count, size or newest row is out of range gives no points (the sanitizer
// build checks the reads).
static void damaged_header_stays_inside(void)
{
    double h = 0.1;
    predictor p = new_predictor();
    if (!p.memory)
        return;
    push_steps(&p, SIZE, 7, h);
    size_t bytes_in_all = predictor_memory_size(CAPACITY) * sizeof(double);
    unsigned char *saved = malloc(bytes_in_all);
    if (!saved) {
        free(p.memory);
        return;
    }
    memcpy(saved, p.memory, bytes_in_all);
    test_rng rng = { 9 };
    int accepted = 0;
    for (int trial = 0; trial < 400; trial++) {
        memcpy(p.memory, saved, bytes_in_all);
        unsigned char *bytes = (unsigned char *)p.memory;
        bytes[test_rng_int(&rng, 0, 23)] ^= (unsigned char)(1u << test_rng_int(&rng, 0, 7));
        int count, size, newest;   // the header: three ints, then the node's time
        memcpy(&count, bytes, sizeof count);
        memcpy(&size, bytes + sizeof count, sizeof size);
        memcpy(&newest, bytes + 2 * sizeof count, sizeof newest);
        double out[SIZE] = { 0 };
        int used = predictor_predict(&p, SIZE, 0.75, 0.7, h, out);
        ENSURE(used >= 0 && used <= PREDICTOR_POINTS);
        if (count < 1 || count > PREDICTOR_POINTS || size != SIZE || newest < 0 ||
            newest >= PREDICTOR_POINTS)
            ENSURE_EQ_INT(used, 0);
        else
            accepted++;
        predictor_push(&p, SIZE, 0.8, out, 0.7, 0.8);   // a push from it stays inside too
        ENSURE_EQ_INT(predictor_predict(&p, SIZE, 0.85, 0.8, h, out) > 0, 1);
    }
    ENSURE(accepted > 0);   // flips of the time or of high bits leave some headers valid
    free(saved);
    free(p.memory);
}

// A copy of the memory predicts, and after more pushes goes on predicting, to the bit as the
// original does.
static void copied_memory_continues_alike(void)
{
    test_rng rng = { 21 };
    predictor a = new_predictor(), b = new_predictor();
    if (!a.memory || !b.memory)
        return;
    double t = 0.0, values[SIZE];
    for (int step = 0; step < 3 * PREDICTOR_POINTS; step++) {
        if (step == 7)
            memcpy(b.memory, a.memory, predictor_memory_size(CAPACITY) * sizeof(double));
        double h = test_rng_uniform(&rng, 0.01, 0.02);
        for (int i = 0; i < SIZE; i++)
            values[i] = test_rng_normal(&rng);
        predictor_push(&a, SIZE, t + h, values, t, t + h);
        if (step >= 7)
            predictor_push(&b, SIZE, t + h, values, t, t + h);
        t += h;
        if (step >= 7) {
            double out_a[SIZE], out_b[SIZE];
            ENSURE_EQ_INT(predictor_predict(&a, SIZE, t + 0.005, t, 0.01, out_a),
                          predictor_predict(&b, SIZE, t + 0.005, t, 0.01, out_b));
            ENSURE(memcmp(out_a, out_b, sizeof out_a) == 0);
        }
    }
    free(a.memory);
    free(b.memory);
}

TEST_MAIN(TEST(polynomials_reproduced), TEST(full_history_is_lagrange_interpolate),
          TEST(history_restarts), TEST(damaged_header_stays_inside),
          TEST(copied_memory_continues_alike))
