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
    if (!nw->residual || !nw->delta || !nw->scale || !nw->row_scale || !nw->floor ||
        !nw->hidden_magnitude || !nw->guess) {
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
    memset(nw, 0, sizeof *nw);
}

// fmax without the library call (the NaN rule is the same: a NaN argument loses)
static inline double larger(double a, double b)
{
    return a > b || isnan(b) ? a : b;
}

static int all_finite(const double *x, int n, int *where)
{
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

// Measures nw->delta against z (already updated): an update δ_i is small when
// |δ_i| <= max(rtol, 16ε) (|z_i| + the block's scale), the block's scale being the largest
// magnitude of its unknowns now or at any earlier solve (so a block passing through zero, like
// the momenta at a pendulum's turning point, keeps its scale). Records the worst unknown.
static update_ratios measure(newton *nw, int size, const double *z, const int *block, double rtol)
{
    double block_max[NEWTON_MAX_BLOCKS];
    memcpy(block_max, nw->block_floor, sizeof block_max);
    for (int i = 0; i < size; i++)
        if (fabs(z[i]) > block_max[block[i]])
            block_max[block[i]] = fabs(z[i]);
    update_ratios u = { 0.0, 0.0, 0.0, 0.0, 0.0 };
    double worst = -1.0, tolerance = rtol > 16.0 * DBL_EPSILON ? rtol : 16.0 * DBL_EPSILON;
    for (int i = 0; i < size; i++) {
        double scale = fabs(z[i]) + block_max[block[i]];
        double allowed = larger(tolerance * scale, nw->floor[i]);
        double ratio = fabs(nw->delta[i]) / (allowed > 0.0 ? allowed : DBL_MIN);
        // rounding level: ε of the unknown's scale (multipliers too: their conditioning
        // limits their accuracy to ε/h², yet full Newton's end point is within ε of a smooth
        // function of the state, and runs that reach a step by different paths must agree)
        double rounding = DBL_EPSILON * scale;
        double noise = fabs(nw->delta[i]) / (rounding > 0.0 ? rounding : DBL_MIN);
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
            double relative = fabs(nw->delta[i]) / (scale > 0.0 ? scale : DBL_MIN);
            if (relative > u.relative)
                u.relative = relative;
        }
        if (ratio > worst) {
            worst = ratio;
            nw->worst = i;
            nw->worst_value = nw->residual[i];
        }
    }
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

// The magnitudes R_i of the equations' terms at z (from the assembled Jacobian behind ls):
// R_i = Σ_j |J_ij| (|z_j| + block scale) + |r_i(guess)| (the guess's residual carries the
// constant terms, e.g. −p_k, that the Jacobian does not see) + the hidden magnitude the
// assembly reported (absolute positions behind increments), and from them the rounding
// floor of each unknown (newton.h).
static void measure_rows(newton *nw, const linsolve *ls, int size, const double *z,
                         const int *block, int first)
{
    double block_max[NEWTON_MAX_BLOCKS];
    memcpy(block_max, nw->block_floor, sizeof block_max);
    for (int i = 0; i < size; i++)
        if (fabs(z[i]) > block_max[block[i]])
            block_max[block[i]] = fabs(z[i]);
    for (int j = 0; j < size; j++)
        nw->scale[j] = fabs(z[j]) + block_max[block[j]];
    // Σ_j |J_ij| scale_j into delta (free until the solve), then R_i with the hidden magnitude
    // and |r_i(guess)| (first) or the larger of it and the previous R_i
    double *terms = nw->delta;
    linsolve_row_magnitudes(ls, nw->scale, terms);
    for (int i = 0; i < size; i++) {
        double r = terms[i] + nw->hidden_magnitude[i];
        nw->row_scale[i] = first ? r + fabs(nw->residual[i]) : larger(r, nw->row_scale[i]);
    }
    linsolve_column_reach(ls, nw->row_scale, nw->floor);
    for (int j = 0; j < size; j++)
        nw->floor[j] *= NEWTON_ROUNDING * DBL_EPSILON;
}

// Raises each unknown's floor to the rounding noise the equations pass to it through the
// whole factorized Jacobian: x = J⁻¹ (±NEWTON_ROUNDING ε R) for two sign patterns (all +, and
// alternating), floor_j = max(floor_j, |x_j|), an estimate of (|J⁻¹| ρ)_j that, unlike the
// column reach, is invariant under any scaling of rows and unknowns: at tiny steps the
// momentum rows' entries grow like 1/h and a holonomic constraint's stay O(1), yet the
// constraint alone fixes the normal part of Δq to ε |q|. Uses nw->scale and nw->delta as its
// buffers (free after measure_rows; the two patterns are solved in one pass).
static void propagate_rounding(newton *nw, linsolve *ls, int size)
{
    double *all_plus = nw->scale, *alternating = nw->delta;
    for (int i = 0; i < size; i++) {
        double rounding = NEWTON_ROUNDING * DBL_EPSILON * nw->row_scale[i];
        all_plus[i] = rounding;
        alternating[i] = (i & 1 ? -1.0 : 1.0) * rounding;
    }
    linsolve_solve_pair(ls, all_plus, alternating);
    for (int j = 0; j < size; j++) {
        double a = fabs(all_plus[j]), b = fabs(alternating[j]), f = nw->floor[j];
        if (isfinite(a) && a > f)
            f = a;
        if (isfinite(b) && b > f)
            f = b;
        nw->floor[j] = f;
    }
}

// Assembles r and J at z into ls (recording a sparse pattern first), factorizes J and keeps
// the assembly's hidden magnitudes beside it. On failure nw->worst and worst_value say where.
static dirac_status assemble_and_factor(newton *nw, linsolve *ls, int size, const double *z,
                                        newton_assemble_fn assemble, void *context)
{
    if (linsolve_is_sparse(ls) && !linsolve_has_pattern(ls)) {
        // one assembly records the Jacobian's pattern (first solve only)
        linsolve_begin_pattern(ls);
        assemble(context, z, nw->residual, ls);
        if (linsolve_end_pattern(ls, NULL) != DIRAC_OK)
            return DIRAC_ERR_NOMEM;
    }
    linsolve_zero(ls);
    memset(nw->hidden_magnitude, 0, (size_t)size * sizeof *nw->hidden_magnitude);
    nw->jacobians++;
    int where = 0;
    if (assemble(context, z, nw->residual, ls) != 0 || !all_finite(nw->residual, size, &where)) {
        nw->worst = where;
        nw->worst_value = nw->residual[where];
        return DIRAC_ERR_NOT_FINITE;
    }
    int bad = -1;
    dirac_status factored = linsolve_factor(ls, &bad);
    if (factored != DIRAC_OK) {
        nw->worst = bad >= 0 ? bad : 0;
        nw->worst_value = 0.0;
        return factored;
    }
    memcpy(linsolve_kept_hidden(ls), nw->hidden_magnitude, (size_t)size * sizeof(double));
    linsolve_set_kept_step_size(ls, nw->step_size);
    return DIRAC_OK;
}

// The equations' magnitudes and the unknowns' rounding floors from the factorization in ls
// (measure_rows, then propagate_rounding); `first` at the guess of a solve.
static void measure_floors(newton *nw, linsolve *ls, int size, const double *z, const int *block,
                           int first)
{
    measure_rows(nw, ls, size, z, block, first);
    propagate_rounding(nw, ls, size);
}

// A fresh Jacobian at z: assembled, factorized, and the floors measured from it.
static dirac_status fresh_jacobian(newton *nw, linsolve *ls, int size, const double *z,
                                   const int *block, newton_assemble_fn assemble, void *context,
                                   int first)
{
    dirac_status status = assemble_and_factor(nw, ls, size, z, assemble, context);
    if (status == DIRAC_OK)
        measure_floors(nw, ls, size, z, block, first);
    return status;
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
static int correct(newton *nw, linsolve *ls, int size, double *z)
{
    memcpy(nw->delta, nw->residual, (size_t)size * sizeof *nw->delta);
    linsolve_solve(ls, nw->delta);
    int where = 0;
    if (!all_finite(nw->delta, size, &where)) {
        nw->worst = where;
        nw->worst_value = nw->delta[where];
        return 0;
    }
    for (int i = 0; i < size; i++)
        z[i] -= nw->delta[i];
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
        dirac_status status = fresh_jacobian(nw, ls, size, z, block, assemble, context, it == 1);
        if (status != DIRAC_OK)
            return status;
        if (!correct(nw, ls, size, z))
            return DIRAC_ERR_NOT_FINITE;
        update_ratios ratios = measure(nw, size, z, block, rtol);
        if (converged(&ratios, it, previous_multiplier))
            return DIRAC_OK;
        // a cheap look ahead with the same factorization: the residual at the new point and
        // the correction it asks for; near the solution that correction is already small
        if (residual_at(nw, size, z, assemble, context) && correct(nw, ls, size, z)) {
            update_ratios next = measure(nw, size, z, block, rtol);
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
        update_ratios u = measure(nw, size, z, block, rtol);
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
    bool kept = linsolve_is_factored(ls) && nw->constant_jacobian &&
                linsolve_kept_step_size(ls) == nw->step_size;
    int renewals = 0;
    dirac_status status;
    if (kept) {
        if (kept_linear_newton(nw, ls, size, z, block, assemble, context, rtol) == DIRAC_OK)
            return DIRAC_OK;
        memcpy(z, nw->guess, (size_t)size * sizeof *z);
        nw->iterations = 0;
        if (!residual_at(nw, size, z, assemble, context))
            return DIRAC_ERR_NOT_FINITE;
        memcpy(nw->hidden_magnitude, linsolve_kept_hidden(ls), (size_t)size * sizeof(double));
        measure_floors(nw, ls, size, z, block, 1);
    } else {
        // affine equations: one correction, as with a kept factorization (a run split
        // anywhere repeats the whole run's numbers)
        if (nw->constant_jacobian && nw->affine && rtol > NEWTON_FULL_RTOL) {
            if ((status = assemble_and_factor(nw, ls, size, z, assemble, context)) != DIRAC_OK)
                return status;
            return correct(nw, ls, size, z) ? DIRAC_OK : DIRAC_ERR_NOT_FINITE;
        }
        if ((status = fresh_jacobian(nw, ls, size, z, block, assemble, context, 1)) != DIRAC_OK)
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
        update_ratios u = measure(nw, size, z, block, rtol);
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
            if ((status = fresh_jacobian(nw, ls, size, z, block, assemble, context, 0)) !=
                DIRAC_OK)
                return status;
            have_residual = fresh = true;
            c = (contraction){ 0.0, -1.0, HUGE_VAL, HUGE_VAL, c.previous_multiplier };
            previous_primary = -1.0;
        }
    }
    return DIRAC_ERR_NEWTON;
}

// Affine equations with their exact Jacobian factorized for this step size (kept from an
// earlier solve): the one correction z ← z − J⁻¹ r(z) of kept_linear_newton, in three passes
// over the vectors (the residual, solved in place, checked finite, then the update with the
// blocks' scales of newton_solve) where the general path makes eight (a copy of the guess,
// the floors zeroed, the residual checked, copied and solved, the correction checked, the
// update, the scales). The same operations on the same numbers, so the same solution. 0 when
// the residual is outside the domain or the correction is not finite (a non-finite residual
// gives a non-finite correction: J⁻¹ has no zero column): z is then still the guess, and the
// general path repeats the solve and reports where it failed.
static int kept_affine_correction(newton *nw, linsolve *ls, int size, double *restrict z,
                                  const int *restrict block, newton_assemble_fn assemble,
                                  void *context)
{
    double *restrict delta = nw->residual;
    if (assemble(context, z, delta, NULL) != 0)
        return 0;
    linsolve_solve(ls, delta);
    int where = 0;
    if (!all_finite(delta, size, &where))
        return 0;
    double *restrict block_floor = nw->block_floor;
    for (int i = 0; i < size; i++) {
        double updated = z[i] - delta[i], magnitude = fabs(updated);
        z[i] = updated;
        if (magnitude > block_floor[block[i]])
            block_floor[block[i]] = magnitude;
    }
    nw->iterations = 1;
    return 1;
}

dirac_status newton_solve(newton *nw, linsolve *ls, int size, double *z, const int *block,
                          newton_assemble_fn assemble, void *context, double rtol,
                          int max_iterations)
{
    nw->size = size;
    nw->iterations = 0;
    nw->worst = -1;
    nw->worst_value = 0.0;
    if (size <= 0)
        return DIRAC_OK;
    if (!ls)
        return DIRAC_ERR_NOMEM;
    if (!nw->full && nw->constant_jacobian && nw->affine && rtol > NEWTON_FULL_RTOL &&
        linsolve_is_factored(ls) && linsolve_kept_step_size(ls) == nw->step_size &&
        kept_affine_correction(nw, ls, size, z, block, assemble, context))
        return DIRAC_OK;
    dirac_status status = DIRAC_ERR_NEWTON;
    if (!nw->full && (nw->constant_jacobian || (nw->simplified && rtol > NEWTON_FULL_RTOL))) {
        memcpy(nw->guess, z, (size_t)size * sizeof *z);
        status = simplified_newton(nw, ls, size, z, block, assemble, context, rtol,
                                   max_iterations);
        if (status == DIRAC_ERR_NOMEM)
            return status;
        if (status != DIRAC_OK) {
            // retry with full Newton from the guess before declaring failure
            memcpy(z, nw->guess, (size_t)size * sizeof *z);
            nw->worst = -1;
            nw->worst_value = 0.0;
        }
    }
    if (status != DIRAC_OK)
        status = full_newton(nw, ls, size, z, block, assemble, context, rtol, max_iterations);
    if (status == DIRAC_OK)
        for (int i = 0; i < size; i++)
            if (fabs(z[i]) > nw->block_floor[block[i]])
                nw->block_floor[block[i]] = fabs(z[i]);
    return status;
}
