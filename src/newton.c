// Newton's method: z ← z − J⁻¹ r(z) until the updates are at the requested relative accuracy
// (house rule: scale-aware, per block of unknowns), with J's factorization kept across
// iterations and steps while the iterates contract fast (simplified Newton; Hairer–Wanner,
// Solving ODEs II, sec. IV.8, the strategy of RADAU5; Brenan–Campbell–Petzold ch. 5, IDA).
#include "newton.h"

#include "error.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

dirac_status newton_init(newton *nw, int capacity, dirac_error *err)
{
    memset(nw, 0, sizeof *nw);
    size_t c = (size_t)(capacity > 0 ? capacity : 1);
    nw->capacity = capacity;
    nw->residual = malloc(c * sizeof *nw->residual);
    nw->delta = malloc(c * sizeof *nw->delta);
    nw->scale = malloc(c * sizeof *nw->scale);
    nw->row_scale = malloc(c * sizeof *nw->row_scale);
    nw->floor = malloc(c * sizeof *nw->floor);
    nw->hidden_magnitude = malloc(c * sizeof *nw->hidden_magnitude);
    nw->guess = malloc(c * sizeof *nw->guess);
    nw->floor_point = malloc(c * sizeof *nw->floor_point);
    nw->alternating = malloc(c * sizeof *nw->alternating);
    if (!nw->residual || !nw->delta || !nw->scale || !nw->row_scale || !nw->floor ||
        !nw->hidden_magnitude || !nw->guess || !nw->floor_point || !nw->alternating) {
        newton_free(nw);
        return error_set(err, DIRAC_ERR_NOMEM, "out of memory for a Newton solver of size %d",
                         capacity);
    }
    return DIRAC_OK;
}

void newton_free(newton *nw)
{
    free(nw->residual);
    free(nw->delta);
    free(nw->scale);
    free(nw->row_scale);
    free(nw->floor);
    free(nw->hidden_magnitude);
    free(nw->guess);
    free(nw->floor_point);
    free(nw->alternating);
    memset(nw, 0, sizeof *nw);
}

// d = s, n doubles: for the small sizes with n a constant, so that the compiler writes the
// moves in place of a library call (most of the cost of copying three values).
static inline void copy_doubles(double *restrict d, const double *restrict s, int n)
{
#define COPY_CASE(k)                                                                              \
    memcpy(d, s, (k) * sizeof *d);                                                                \
    return
    switch (n) {
        LINSOLVE_SMALL_CASES(COPY_CASE);
    default:
        memcpy(d, s, (size_t)n * sizeof *d);
    }
#undef COPY_CASE
}

// fmax without the library call (the NaN rule is the same: a NaN argument loses)
static inline double larger(double a, double b)
{
    return a > b || isnan(b) ? a : b;
}

// No infinity or NaN among the n > 16 values x: a select the compiler vectorizes (|x| <= DBL_MAX
// is false for infinities and NaN). Out of line, so that the short loop below stays small.
static __attribute__((noinline)) bool long_finite(const double *restrict x, int n)
{
    double bad = 0.0;
    for (int i = 0; i < n; i++)
        bad = fabs(x[i]) <= DBL_MAX ? bad : 1.0;
    return bad == 0.0;
}

// 1 when every x_i is finite; else 0 with the first non-finite one in *where.
static inline int all_finite(const double *x, int n, int *where)
{
    if (n > 16 && long_finite(x, n))
        return 1;
    for (int i = 0; i < n; i++)
        if (!isfinite(x[i])) {
            *where = i;
            return 0;
        }
    return 1;
}

// Sizes of the last update relative to what the tolerance allows, per kind of unknown.
typedef struct update_ratios {
    double primary;      // positions, velocities, momenta, entropies: max |δ| / allowed
    double multiplier;   // multipliers: max |δ| / allowed
    double relative;     // primary unknowns: max |δ| / scale
    // max |δ| / its rounding level max(floor, 16 ε scale), primary and multipliers
    double noise_primary, noise_multiplier;
} update_ratios;

// Measures δ against z (already updated): an update δ_i is small when
// |δ_i| <= max(rtol, 16ε) (|z_i| + the block's scale), the block's scale being the largest
// magnitude of its unknowns now or at any earlier solve (so a block passing through zero, like
// the momenta at a pendulum's turning point, keeps its scale: into block_max). The worst
// unknown's index into *worst_index. `relative` only when asked (stagnated reads it from the
// third iteration on).
static inline __attribute__((always_inline)) update_ratios
measure_of_size(int n, const double *restrict block_floor, const double *restrict z,
                const int *restrict block, const double *restrict delta,
                const double *restrict floor, double tolerance, bool relative,
                double *restrict block_max, int *worst_index)
{
    memcpy(block_max, block_floor, NEWTON_MAX_BLOCKS * sizeof *block_max);
    for (int i = 0; i < n; i++)
        if (fabs(z[i]) > block_max[block[i]])
            block_max[block[i]] = fabs(z[i]);
    update_ratios u = { 0.0, 0.0, 0.0, 0.0, 0.0 };
    double worst = -1.0;
    for (int i = 0; i < n; i++) {
        double scale = fabs(z[i]) + block_max[block[i]], size = fabs(delta[i]);
        double allowed = larger(tolerance * scale, floor[i]);
        double ratio = size / (allowed > 0.0 ? allowed : DBL_MIN);
        // rounding level: ε of the unknown's scale (multipliers too: their conditioning
        // limits their accuracy to ε/h², yet full Newton's end point is within ε of a smooth
        // function of the state, and runs that reach a step by different paths must agree)
        double rounding = DBL_EPSILON * scale;
        double noise = size / (rounding > 0.0 ? rounding : DBL_MIN);
        if (block[i] >= NEWTON_MULTIPLIER_BLOCK) {
            if (ratio > u.multiplier)
                u.multiplier = ratio;
            if (noise > u.noise_multiplier)
                u.noise_multiplier = noise;
        } else {
            if (noise > u.noise_primary)
                u.noise_primary = noise;
            if (ratio > u.primary)
                u.primary = ratio;
            if (relative && size / (scale > 0.0 ? scale : DBL_MIN) > u.relative)
                u.relative = size / (scale > 0.0 ? scale : DBL_MIN);
        }
        if (ratio > worst) {   // every ratio is >= 0 > -1: the first one sets the index
            worst = ratio;
            *worst_index = i;
        }
    }
    return u;
}

// How a fresh Jacobian's floors are measured (fresh_jacobian): not at all, at a renewal (each
// equation's magnitude at least the one before: measure_rows), or at the guess of a solve.
enum floors { FLOORS_NONE, FLOORS_RENEWAL, FLOORS_FIRST };

static void finish_floors(newton *nw, linsolve *ls, int size, const int *block);

// measure_of_size on nw->delta with the size a compile-time constant for small systems.
static inline __attribute__((always_inline)) update_ratios
measure_switch(newton *nw, int size, const double *z, const int *block, double tolerance,
               bool relative, int *worst)
{
#define MEASURE_CASE(k)                                                                           \
    return measure_of_size(k, nw->block_floor, z, block, nw->delta, nw->floor, tolerance,        \
                           relative, nw->measured_block_max, worst)
    switch (size) {
        LINSOLVE_SMALL_CASES(MEASURE_CASE);
    default:
        return measure_of_size(size, nw->block_floor, z, block, nw->delta, nw->floor, tolerance,
                               relative, nw->measured_block_max, worst);
    }
#undef MEASURE_CASE
}

// Whether every update is small with every floor at 0 (its ratio as measure_of_size computes
// it, the floors at 0, is <= 1), stopping at the first that is not: the test of the lazy floors
// (measure_pending), cheap where it fails at once. A floor only raises the allowed update, so
// then every ratio with floors is <= 1 too; an unknown whose tolerance is 0 is measured
// against the least positive double here (measure_of_size: DBL_MIN, or a floor that may lie
// below it), so its ratio is <= 1 only for an update of 0 or that double, which every floor
// allows as well. When every update is small, *u holds the largest ratios
// (primary and multiplier; the rest 0: they are not read once an update is accepted), the
// worst unknown is in *worst_index and the blocks' largest magnitudes in block_max, as
// measure_of_size leaves them.
static inline __attribute__((always_inline)) bool
small_of_size(int n, const double *restrict block_floor, const double *restrict z,
              const int *restrict block, const double *restrict delta, double tolerance,
              double *restrict block_max, update_ratios *u, int *worst_index)
{
    memcpy(block_max, block_floor, NEWTON_MAX_BLOCKS * sizeof *block_max);
    for (int i = 0; i < n; i++)
        if (fabs(z[i]) > block_max[block[i]])
            block_max[block[i]] = fabs(z[i]);
    double primary = 0.0, multiplier = 0.0, worst = -1.0;
    for (int i = 0; i < n; i++) {
        double allowed = tolerance * (fabs(z[i]) + block_max[block[i]]);
        double ratio = fabs(delta[i]) / (allowed > 0.0 ? allowed : DBL_TRUE_MIN);
        if (!(ratio <= 1.0))
            return false;
        if (block[i] >= NEWTON_MULTIPLIER_BLOCK) {
            if (ratio > multiplier)
                multiplier = ratio;
        } else if (ratio > primary) {
            primary = ratio;
        }
        if (ratio > worst) {
            worst = ratio;
            *worst_index = i;
        }
    }
    *u = (update_ratios){ primary, multiplier, 0.0, 0.0, 0.0 };
    return true;
}

// small_of_size on nw->delta with the size a compile-time constant for small systems.
static bool small_without_floors(newton *nw, int size, const double *z, const int *block,
                                 double tolerance, update_ratios *u, int *worst)
{
#define SMALL_CASE(k)                                                                             \
    return small_of_size(k, nw->block_floor, z, block, nw->delta, tolerance,                      \
                         nw->measured_block_max, u, worst)
    switch (size) {
        LINSOLVE_SMALL_CASES(SMALL_CASE);
    default:
        return small_of_size(size, nw->block_floor, z, block, nw->delta, tolerance,
                             nw->measured_block_max, u, worst);
    }
#undef SMALL_CASE
}

// All updates small: every decision that reads the ratios accepts (converged, and with it
// accepted after a fresh Jacobian, whose θ is 0).
static inline bool all_small(const update_ratios *u)
{
    return u->primary <= 1.0 && u->multiplier <= 1.0;
}

// The update's ratios (measure_of_size) with the floors; records the worst unknown in
// nw->worst and its residual in nw->worst_value. `iteration` says whether stagnated will read
// the relative updates.
static update_ratios measure(newton *nw, int size, const double *z, const int *block,
                             double rtol, int iteration)
{
    double tolerance = rtol > 16.0 * DBL_EPSILON ? rtol : 16.0 * DBL_EPSILON;
    int worst = 0;
    update_ratios u = measure_switch(nw, size, z, block, tolerance, iteration > 2, &worst);
    nw->worst = worst;
    nw->worst_value = nw->residual[worst];
    nw->measured = true;
    return u;
}

// measure while a fresh Jacobian's floors are pending (lazy floors; out of line, so that the
// eager measure stays as small as it was). The update is first tested with every floor at 0:
// a floor only raises the allowed update, so when every update is small without floors, so it
// is with them, and the solve accepts without them (every measure with pending floors is the
// first after a fresh Jacobian, and accepts exactly when its updates are small: newton_solve).
// Otherwise the floors are measured (from the Jacobian, its LU and the guess's residual, all
// still as fresh_jacobian left them) and the update with them, so every later decision reads
// the same numbers as with eager floors. nw->worst is then the worst unknown without floors
// or with them (unspecified on success, newton.h).
static __attribute__((noinline)) update_ratios
measure_pending(newton *nw, linsolve *ls, int size, const double *z, const int *block,
                double rtol, int iteration)
{
    double tolerance = rtol > 16.0 * DBL_EPSILON ? rtol : 16.0 * DBL_EPSILON;
    int worst = 0;
    update_ratios u;
    if (small_without_floors(nw, size, z, block, tolerance, &u, &worst)) {
        nw->lazy_misses = 0;
    } else {
        nw->lazy_misses++;
        finish_floors(nw, ls, size, block);
        u = measure_switch(nw, size, z, block, tolerance, iteration > 2, &worst);
        if (all_small(&u))
            nw->floors_decided++;
    }
    nw->worst = worst;
    nw->worst_value = nw->residual[worst];
    nw->measured = true;
    return u;
}

// Converged: the state's updates are small and the multipliers' are small or no longer
// shrinking (their accuracy is limited by the conditioning: ε/h²).
static int converged(const update_ratios *u, int iteration, double previous_multiplier)
{
    return u->primary <= 1.0 &&
           (u->multiplier <= 1.0 ||
            (iteration > 1 && u->multiplier > 0.25 * previous_multiplier));
}

// The rounding level of each row: ρ_i = NEWTON_ROUNDING ε R_i, the right-hand sides of
// propagate_rounding (all +, and alternating signs).
#define ROUNDING_FACTOR (NEWTON_ROUNDING * DBL_EPSILON)

// R_i = terms_i + hidden_i, plus |r_i(guess)| (first) or at least the previous R_i, and the
// two right-hand sides ±ρ_i of propagate_rounding: into `plus` and into `terms_alternating`
// (which holds the terms on entry).
static inline __attribute__((always_inline)) void
row_scales(int n, const double *restrict hidden, const double *restrict residual, int first,
           double *restrict row_scale, double *restrict plus, double *terms_alternating)
{
    for (int i = 0; i < n; i++) {
        double r = terms_alternating[i] + hidden[i];
        double scale = first ? r + fabs(residual[i]) : larger(r, row_scale[i]);
        double rounding = ROUNDING_FACTOR * scale;
        row_scale[i] = scale;
        plus[i] = rounding;
        terms_alternating[i] = (i & 1 ? -1.0 : 1.0) * rounding;
    }
}

// measure_rows on a dense column-major matrix, with n a compile-time constant for small
// systems: one pass over the columns for the row sums Σ_j |J_ij| scale_j and each column's
// largest entry (kept in `floor` until its reach replaces it), the rows, then the column
// reach max_i R_i / |J_ij| over the entries of at least LINSOLVE_REACH_COUPLING of the column's
// largest (weaker ones are couplings that say nothing about the unknown's rounding).
static inline __attribute__((always_inline)) void
dense_rows(int n, const double *restrict a, const double *restrict hidden,
           const double *restrict residual, int first, double *restrict scale_plus,
           double *terms_alternating, double *restrict row_scale, double *restrict floor)
{
    for (int i = 0; i < n; i++)
        terms_alternating[i] = 0.0;
    for (int j = 0; j < n; j++) {
        const double *restrict column = a + (size_t)j * (size_t)n;
        double x = scale_plus[j], strongest = 0.0;
        for (int i = 0; i < n; i++) {
            double c = fabs(column[i]);
            terms_alternating[i] += c * x;
            if (c > strongest)   // NaN entries are skipped, as by fmax
                strongest = c;
        }
        floor[j] = strongest;
    }
    row_scales(n, hidden, residual, first, row_scale, scale_plus, terms_alternating);
    for (int j = 0; j < n; j++) {
        const double *restrict column = a + (size_t)j * (size_t)n;
        floor[j] = linsolve_reach(column, NULL, n, row_scale, floor[j]) * ROUNDING_FACTOR;
    }
}

// The magnitudes R_i of the equations' terms at z (from the assembled Jacobian behind ls: before
// its factorization, or one kept beside it): R_i = Σ_j |J_ij| (|z_j| + block scale) +
// |r_i(guess)| (the guess's residual carries the constant terms, e.g. −p_k, that the Jacobian
// does not see) + the hidden magnitude the assembly reported (absolute positions behind
// increments), from them the rounding floor of each unknown (newton.h), and in nw->scale and
// nw->alternating the right-hand sides of propagate_rounding.
static void measure_rows(newton *nw, const linsolve *ls, int size, const double *z,
                         const int *block, int first)
{
    nw->floor_measurements++;
    double block_max[NEWTON_MAX_BLOCKS];
    memcpy(block_max, nw->block_floor, sizeof block_max);
    for (int i = 0; i < size; i++)
        if (fabs(z[i]) > block_max[block[i]])
            block_max[block[i]] = fabs(z[i]);
    for (int j = 0; j < size; j++)
        nw->scale[j] = fabs(z[j]) + block_max[block[j]];
    const double *a = linsolve_dense_matrix(ls);
    if (a) {
#define ROWS_CASE(k)                                                                              \
    dense_rows(k, a, nw->hidden_magnitude, nw->residual, first, nw->scale, nw->alternating,       \
               nw->row_scale, nw->floor);                                                         \
    return
        switch (size) {
            LINSOLVE_SMALL_CASES(ROWS_CASE);
        default:
            dense_rows(size, a, nw->hidden_magnitude, nw->residual, first, nw->scale,
                       nw->alternating, nw->row_scale, nw->floor);
            return;
        }
#undef ROWS_CASE
    }
    // sparse: Σ_j |J_ij| scale_j into `alternating`, the rows, the reach
    linsolve_row_magnitudes(ls, nw->scale, nw->alternating);
    row_scales(size, nw->hidden_magnitude, nw->residual, first, nw->row_scale, nw->scale,
               nw->alternating);
    linsolve_column_reach(ls, nw->row_scale, ROUNDING_FACTOR, nw->floor);
}

// Raises each unknown's floor to the rounding noise the equations pass to it through the
// whole factorized Jacobian: x = J⁻¹ (±NEWTON_ROUNDING ε R) for two sign patterns (all +, and
// alternating: measure_rows left them in nw->scale and nw->alternating), floor_j = max(floor_j,
// |x_j|), an estimate of (|J⁻¹| ρ)_j that, unlike the column reach, is invariant under any
// scaling of rows and unknowns: at tiny steps the momentum rows' entries grow like 1/h and a
// holonomic constraint's stay O(1), yet the constraint alone fixes the normal part of Δq to
// ε |q|. The two patterns are solved in one pass.
static void propagate_rounding(newton *nw, linsolve *ls, int size)
{
    double *restrict all_plus = nw->scale, *restrict alternating = nw->alternating;
    double *restrict floor = nw->floor;
    linsolve_solve_pair(ls, all_plus, alternating);
    for (int j = 0; j < size; j++) {
        double a = fabs(all_plus[j]), b = fabs(alternating[j]), f = floor[j];
        if (isfinite(a) && a > f)
            f = a;
        if (isfinite(b) && b > f)
            f = b;
        floor[j] = f;
    }
}

// ls holds the factorization of a constant Jacobian for this step size, with its matrix (the
// LU of a constant Jacobian is a function of the model and h alone: it is exact at every iterate
// of every solve, and runs stay reproducible).
static bool kept_factorization(const newton *nw, const linsolve *ls)
{
    return nw->constant_jacobian && linsolve_is_factored(ls) &&
           linsolve_kept_step_size(ls) == nw->step_size &&
           (linsolve_is_sparse(ls) || linsolve_dense_matrix(ls));
}

// The floors of the Jacobian assembled at z, measured when a decision needs them (measure):
// measure_rows reads the matrix (a dense one kept beside its LU, a sparse one's values that KLU
// keeps), the hidden magnitudes and, for FLOORS_FIRST, the guess's residual, none of which
// changes before the first measure of the update.
static void defer_floors(newton *nw, int size, const double *z, enum floors floors)
{
    copy_doubles(nw->floor_point, z, size);
    nw->floors_pending = floors;
}

// Lazy floors cost a test and a copy more when the update is not small without them (the
// first update of a large system far from convergence, of a double pendulum in long stretches):
// after LAZY_MISSES such tests in a row the floors are measured eagerly, except at every
// LAZY_PROBE-th Jacobian, which tries again (docs/benchmarks.md, "Lazy rounding floors").
// Either way the decisions are the same (measure_pending): only the cost differs.
#define LAZY_MISSES 32
#define LAZY_PROBE 16
static bool lazy_floors_pay(const newton *nw)
{
    return !nw->eager_floors &&
           (nw->lazy_misses < LAZY_MISSES || nw->jacobians % LAZY_PROBE == 0);
}

// The pending floors (defer_floors), from the state fresh_jacobian left.
static void finish_floors(newton *nw, linsolve *ls, int size, const int *block)
{
    measure_rows(nw, ls, size, nw->floor_point, block, nw->floors_pending == FLOORS_FIRST);
    propagate_rounding(nw, ls, size);
    nw->floors_pending = FLOORS_NONE;
}

// Assembles r and J at z into ls (recording a sparse pattern first) and factorizes J. With
// floors, the equations' magnitudes are measured from the matrix and the floors finished from
// the LU (measure_rows, propagate_rounding): with `defer` lazily (defer_floors: a dense matrix
// is then kept beside its LU), else (or with nw->eager_floors) now, the matrix measured before
// its LU overwrites it; FLOORS_FIRST at the guess of a solve. A constant Jacobian's
// factorization is kept across solves with its matrix and hidden magnitudes (simplified_newton
// measures its floors again at every solve). On failure nw->worst and worst_value say where.
static dirac_status fresh_jacobian(newton *nw, linsolve *ls, int size, const double *z,
                                   const int *block, newton_assemble_fn assemble, void *context,
                                   enum floors floors, bool defer)
{
    if (linsolve_is_sparse(ls) && !linsolve_has_pattern(ls)) {
        // one assembly records the Jacobian's pattern (first solve only)
        linsolve_begin_pattern(ls);
        assemble(context, z, nw->residual, ls);
        if (linsolve_end_pattern(ls, NULL) != DIRAC_OK)
            return DIRAC_ERR_NOMEM;
    }
    nw->floors_pending = FLOORS_NONE;
    linsolve_zero(ls);
    linsolve_zero_doubles(nw->hidden_magnitude, size, false);
    nw->jacobians++;
    int where = 0;
    if (assemble(context, z, nw->residual, ls) != 0 || !all_finite(nw->residual, size, &where)) {
        nw->worst = where;
        nw->worst_value = nw->residual[where];
        return DIRAC_ERR_NOT_FINITE;
    }
    bool lazy = floors != FLOORS_NONE && defer && lazy_floors_pay(nw),
         eager = floors != FLOORS_NONE && !lazy;
    if (eager)
        measure_rows(nw, ls, size, z, block, floors == FLOORS_FIRST);
    int bad = -1;
    dirac_status factored = nw->constant_jacobian || (lazy && !linsolve_is_sparse(ls))
                                ? linsolve_factor_keeping(ls, &bad)
                                : linsolve_factor(ls, &bad);
    if (factored != DIRAC_OK) {
        nw->worst = bad >= 0 ? bad : 0;
        nw->worst_value = 0.0;
        return factored;
    }
    if (nw->constant_jacobian) {
        memcpy(linsolve_kept_hidden(ls), nw->hidden_magnitude, (size_t)size * sizeof(double));
        linsolve_set_kept_step_size(ls, nw->step_size);
    }
    if (eager)
        propagate_rounding(nw, ls, size);
    else if (lazy)
        defer_floors(nw, size, z, floors);
    return DIRAC_OK;
}

// Stagnation a little above the requested level: updates made of rounding noise (e.g. the
// ε|L|/|Δx| of a discrete gradient) that no longer shrink (from the third iteration on).
static int stagnated(const update_ratios *u, int iteration, double previous_primary,
                     double previous_multiplier)
{
    return iteration > 2 && u->relative <= NEWTON_STAGNATION_LEVEL &&
           u->primary > 0.5 * previous_primary &&
           (u->multiplier <= 1.0 || u->multiplier > 0.25 * previous_multiplier);
}

// The residual alone at z; 0 if it is outside the domain or not finite (nw->worst says where).
static int residual_at(newton *nw, int size, const double *z, newton_assemble_fn assemble,
                       void *context)
{
    int where = 0;
    if (assemble(context, z, nw->residual, NULL) != 0 || !all_finite(nw->residual, size, &where)) {
        nw->worst = where;
        nw->worst_value = nw->residual[where];
        return 0;
    }
    return 1;
}

// δ = J⁻¹ r with the factorization in ls, z ← z − δ; 0 if δ is not finite.
static inline __attribute__((always_inline)) int correct(newton *nw, linsolve *ls, int size,
                                                        double *z)
{
    copy_doubles(nw->delta, nw->residual, size);
    linsolve_solve(ls, nw->delta);
    int where = 0;
    if (!all_finite(nw->delta, size, &where)) {
        nw->worst = where;
        nw->worst_value = nw->delta[where];
        return 0;
    }
    for (int i = 0; i < size; i++)
        z[i] -= nw->delta[i];
    nw->measured = false;
    nw->iterations++;
    return 1;
}

// Full Newton: a fresh Jacobian at every iterate, each followed by one look-ahead correction
// with the same factorization.
static dirac_status full_newton(newton *nw, linsolve *ls, int size, double *z, const int *block,
                                newton_assemble_fn assemble, void *context, double rtol,
                                int max_iterations)
{
    double previous_multiplier = HUGE_VAL, previous_primary = HUGE_VAL;
    for (int it = 1; it <= max_iterations; it++) {
        // the first update from the methods' plain guesses is hardly ever small without the
        // floors (they would be measured after all): lazy floors only for later Jacobians
        dirac_status status = fresh_jacobian(nw, ls, size, z, block, assemble, context,
                                             it == 1 ? FLOORS_FIRST : FLOORS_RENEWAL, it > 1);
        if (status != DIRAC_OK)
            return status;
        if (!correct(nw, ls, size, z))
            return DIRAC_ERR_NOT_FINITE;
        update_ratios ratios = nw->floors_pending
                                   ? measure_pending(nw, ls, size, z, block, rtol, it)
                                   : measure(nw, size, z, block, rtol, it);
        if (converged(&ratios, it, previous_multiplier))
            return DIRAC_OK;
        // a cheap look ahead with the same factorization: the residual at the new point and
        // the correction it asks for; near the solution that correction is already small
        if (residual_at(nw, size, z, assemble, context) && correct(nw, ls, size, z)) {
            update_ratios next = measure(nw, size, z, block, rtol, it);
            if (converged(&next, it + 1, ratios.multiplier))
                return DIRAC_OK;
            ratios = next;
        }
        if (stagnated(&ratios, it, previous_primary, previous_multiplier))
            return DIRAC_OK;
        previous_multiplier = ratios.multiplier;
        previous_primary = ratios.primary;
    }
    return DIRAC_ERR_NEWTON;
}

// What the acceptance of a simplified-Newton update looks at besides the update itself.
typedef struct contraction {
    double theta;              // |δ_k| / |δ_{k−1}| (scaled primary updates); 0: a Newton step
                               // (fresh Jacobian at z_{k−1}); < 0: not measured yet
    double previous_theta;     // the same one update earlier (< 0: none)
    double previous_noise;     // max |δ_{k−1}| / rounding level, primary unknowns
    double previous_noise_multiplier;   // the same for the multipliers
    double previous_multiplier;         // δ_{k−1} of the multipliers against their tolerance
} contraction;

// θ of the update u against the one before (previous_primary: its scaled size; 0: it was
// exact, so this is a Newton step; < 0: none yet, θ stays unmeasured).
static inline void contraction_measure(contraction *c, const update_ratios *u,
                                       double previous_primary)
{
    if (previous_primary > 0.0)
        c->theta = u->primary / previous_primary;
    else if (previous_primary == 0.0)
        c->theta = 0.0;
}

// The update u becomes the previous one.
static inline void contraction_advance(contraction *c, const update_ratios *u,
                                       double *previous_primary)
{
    c->previous_theta = c->theta;
    c->previous_multiplier = u->multiplier;
    c->previous_noise = u->noise_primary;
    c->previous_noise_multiplier = u->noise_multiplier;
    *previous_primary = u->primary;
}

// Acceptance of a simplified-Newton update δ_k (newton.h): the test of full Newton, and an
// error left after it at rounding level, as full Newton's quadratic convergence leaves it:
// θ/(1 − θ) |δ_k| within the rounding level (ε |z|, multipliers at least the floor's
// ε R / |J|). A Newton step (θ = 0) is judged like full Newton's. A rounding plateau: once the
// updates contracted at θ_{k−1} < NEWTON_REFACTOR_RATE, an update that does not shrink is made
// of the residual's rounding (full Newton's updates stop there too): accepted when the
// contraction left from step k−1, θ_{k−1}²/(1 − θ_{k−1}) |δ_{k−1}|, is at rounding level.
static int accepted(const update_ratios *u, int iteration, const contraction *c)
{
    if (!converged(u, iteration, c->previous_multiplier))
        return 0;
    if (c->theta == 0.0)
        return 1;
    if (c->theta > NEWTON_REFACTOR_RATE && c->previous_theta >= 0.0 &&
        c->previous_theta < NEWTON_REFACTOR_RATE) {
        double left = c->previous_theta * c->previous_theta / (1.0 - c->previous_theta);
        return left * c->previous_noise <= 1.0 && left * c->previous_noise_multiplier <= 1.0;
    }
    if (!(c->theta > 0.0 && c->theta < 1.0))
        return 0;
    double bound = c->theta / (1.0 - c->theta);
    return bound * u->noise_primary <= 1.0 && bound * u->noise_multiplier <= 1.0;
}

// A constant Jacobian kept from an earlier solve is exact, so the first correction is the
// solution up to rounding (affine equations: accepted as such) and the second one measures
// that rounding: the two corrections and
// the acceptance test of simplified_newton at its first two iterations, with every rounding
// floor at 0 (a stricter test; the floors cost two more solves and a pass over the matrix,
// more than the rest of a linear model's step). DIRAC_ERR_NEWTON when the stricter test
// does not accept: simplified_newton then starts again from the guess with its floors.
static dirac_status kept_linear_newton(newton *nw, linsolve *ls, int size, double *z,
                                       const int *block, newton_assemble_fn assemble,
                                       void *context, double rtol)
{
    memset(nw->floor, 0, (size_t)size * sizeof *nw->floor);
    contraction c = { 0.0, -1.0, HUGE_VAL, HUGE_VAL, HUGE_VAL };
    double previous_primary = -1.0;
    for (int it = 1; it <= 2; it++) {
        if (!residual_at(nw, size, z, assemble, context) || !correct(nw, ls, size, z))
            return DIRAC_ERR_NOT_FINITE;
        // affine equations: the exact Jacobian's correction is the solution up to the
        // rounding of one solve (unless rounding level itself is asked for)
        if (nw->affine && rtol > NEWTON_FULL_RTOL)
            return DIRAC_OK;
        update_ratios u = measure(nw, size, z, block, rtol, it);
        contraction_measure(&c, &u, previous_primary);
        if (accepted(&u, it, &c))
            return DIRAC_OK;
        contraction_advance(&c, &u, &previous_primary);
    }
    return DIRAC_ERR_NEWTON;
}

// Simplified Newton (newton.h): the factorization in ls is kept while the updates contract by
// θ <= NEWTON_REFACTOR_RATE and renewed at the current iterate otherwise; at most two renewals,
// then the caller falls back to full Newton.
static dirac_status simplified_newton(newton *nw, linsolve *ls, int size, double *z,
                                      const int *block, newton_assemble_fn assemble,
                                      void *context, double rtol, int max_iterations)
{
    // a constant Jacobian factorized for this step size is exact and kept across solves
    // (its factors are a function of the model and h alone, so runs stay reproducible);
    // otherwise a solve starts with a Newton step from the guess
    bool kept = kept_factorization(nw, ls);
    int renewals = 0;
    dirac_status status;
    if (kept) {
        if (kept_linear_newton(nw, ls, size, z, block, assemble, context, rtol) == DIRAC_OK)
            return DIRAC_OK;
        memcpy(z, nw->guess, (size_t)size * sizeof *z);
        nw->measured = false;
        nw->iterations = 0;
        if (!residual_at(nw, size, z, assemble, context))
            return DIRAC_ERR_NOT_FINITE;
        memcpy(nw->hidden_magnitude, linsolve_kept_hidden(ls), (size_t)size * sizeof(double));
        if (lazy_floors_pay(nw)) {
            defer_floors(nw, size, z, FLOORS_FIRST);
        } else {
            measure_rows(nw, ls, size, z, block, 1);
            propagate_rounding(nw, ls, size);
        }
    } else {
        // affine equations: one correction, as with a kept factorization (a run split
        // anywhere repeats the whole run's numbers)
        if (nw->constant_jacobian && nw->affine && rtol > NEWTON_FULL_RTOL) {
            if ((status = fresh_jacobian(nw, ls, size, z, block, assemble, context,
                                         FLOORS_NONE, false)) != DIRAC_OK)
                return status;
            return correct(nw, ls, size, z) ? DIRAC_OK : DIRAC_ERR_NOT_FINITE;
        }
        if ((status = fresh_jacobian(nw, ls, size, z, block, assemble, context, FLOORS_FIRST,
                                     true)) != DIRAC_OK)
            return status;
    }
    contraction c = { 0.0, -1.0, HUGE_VAL, HUGE_VAL, HUGE_VAL };
    double previous_primary = -1.0;
    bool have_residual = true, fresh = !kept;
    for (int it = 1; it <= max_iterations; it++) {
        if (!have_residual && !residual_at(nw, size, z, assemble, context))
            return DIRAC_ERR_NOT_FINITE;
        have_residual = false;
        if (!correct(nw, ls, size, z))
            return DIRAC_ERR_NOT_FINITE;
        update_ratios u = nw->floors_pending ? measure_pending(nw, ls, size, z, block, rtol, it)
                                             : measure(nw, size, z, block, rtol, it);
        contraction_measure(&c, &u, previous_primary);
        if (accepted(&u, it, &c))
            return DIRAC_OK;
        // stagnation at rounding level (full_newton), trusted only with a Jacobian assembled
        // in this solve: with a kept one, slow contraction looks the same
        if (fresh && stagnated(&u, it, previous_primary, c.previous_multiplier))
            return DIRAC_OK;
        contraction_advance(&c, &u, &previous_primary);
        // renew the Jacobian when the contraction is slow: θ above the limit, or three more
        // updates at this rate would not bring the error to rounding level
        double theta = c.theta;
        bool measured = theta >= 0.0 && it > 1;
        if (measured && (theta > NEWTON_REFACTOR_RATE ||
                         u.noise_primary * theta * theta * theta / (1.0 - theta) > 1.0)) {
            if (++renewals > 2)
                return DIRAC_ERR_NEWTON;
            if ((status = fresh_jacobian(nw, ls, size, z, block, assemble, context,
                                         FLOORS_RENEWAL, true)) != DIRAC_OK)
                return status;
            have_residual = fresh = true;
            c = (contraction){ 0.0, -1.0, HUGE_VAL, HUGE_VAL, c.previous_multiplier };
            previous_primary = -1.0;
        }
    }
    return DIRAC_ERR_NEWTON;
}

// z ← z − δ (with δ NULL: z as it is), and each block's scale grown to the largest |z_i| of
// the block (the scales of newton_solve), in one pass.
static inline __attribute__((always_inline)) void
grow_block_scales(newton *nw, int size, double *restrict z, const double *restrict delta,
                  const int *restrict block)
{
    double *restrict block_floor = nw->block_floor;
    if (size < 64) {
        for (int i = 0; i < size; i++) {
            double updated = delta ? z[i] - delta[i] : z[i], magnitude = fabs(updated);
            z[i] = updated;
            if (magnitude > block_floor[block[i]])
                block_floor[block[i]] = magnitude;
        }
        return;
    }
    // large systems: a run of unknowns of one block keeps its scale in a register (a chain of
    // maxima through memory costs a store and a load per unknown)
    int current = block[0];
    double top = block_floor[current];
    for (int i = 0; i < size; i++) {
        double updated = delta ? z[i] - delta[i] : z[i], magnitude = fabs(updated);
        z[i] = updated;
        if (block[i] != current) {
            block_floor[current] = top;
            current = block[i];
            top = block_floor[current];
        }
        top = magnitude > top ? magnitude : top;
    }
    block_floor[current] = top;
}

// Affine equations with their exact Jacobian factorized for this step size (kept from an
// earlier solve): the one correction z ← z − J⁻¹ r(z) of kept_linear_newton, in two passes
// over the vectors (the residual, solved in place and checked finite as the solve writes it;
// then the update with the blocks' scales of newton_solve) where the general path makes eight
// (a copy of the guess, the floors zeroed, the residual checked, copied and solved, the
// correction checked, the update, the scales). The same operations on the same numbers, so
// the same solution. 0 when the residual is outside the domain or the correction is not
// finite (a non-finite residual gives a non-finite correction: J⁻¹ has no zero column): z is
// then still the guess, and the general path repeats the solve and reports where it failed.
static int kept_affine_correction(newton *nw, linsolve *ls, int size, double *restrict z,
                                  const int *restrict block, newton_assemble_fn assemble,
                                  void *context)
{
    double *restrict delta = nw->residual;
    if (assemble(context, z, delta, NULL) != 0 || !linsolve_solve_finite(ls, delta))
        return 0;
    grow_block_scales(nw, size, z, delta, block);
    nw->iterations = 1;
    return 1;
}

dirac_status newton_solve(newton *nw, linsolve *ls, int size, double *z, const int *block,
                          newton_assemble_fn assemble, void *context, double rtol,
                          int max_iterations)
{
    nw->size = size;
    nw->iterations = 0;
    nw->max_iterations = max_iterations;
    nw->measured = false;
    nw->worst = -1;
    nw->worst_value = 0.0;
    nw->floors_pending = FLOORS_NONE;
    if (size <= 0)
        return DIRAC_OK;
    if (!ls)
        return DIRAC_ERR_NOMEM;
    if (!nw->full && nw->affine && rtol > NEWTON_FULL_RTOL && kept_factorization(nw, ls) &&
        kept_affine_correction(nw, ls, size, z, block, assemble, context))
        return DIRAC_OK;
    dirac_status status = DIRAC_ERR_NEWTON;
    if (!nw->full && (nw->constant_jacobian || (nw->simplified && rtol > NEWTON_FULL_RTOL))) {
        copy_doubles(nw->guess, z, size);
        status = simplified_newton(nw, ls, size, z, block, assemble, context, rtol,
                                   max_iterations);
        if (status == DIRAC_ERR_NOMEM)
            return status;
        if (status != DIRAC_OK) {
            // retry with full Newton from the guess before declaring failure
            memcpy(z, nw->guess, (size_t)size * sizeof *z);
            nw->measured = false;
            nw->worst = -1;
            nw->worst_value = 0.0;
        }
    }
    if (status != DIRAC_OK)
        status = full_newton(nw, ls, size, z, block, assemble, context, rtol, max_iterations);
    // the blocks' scales grow to the solution's magnitudes (measured with the last update when
    // it was the last change of z: the same maxima)
    if (status == DIRAC_OK && nw->measured)
        memcpy(nw->block_floor, nw->measured_block_max, sizeof nw->block_floor);
    else if (status == DIRAC_OK)
        grow_block_scales(nw, size, z, NULL, block);
    return status;
}
