// Newton's method with a dense LU: z ← z − J(z)⁻¹ r(z) until the updates are at the requested
// relative accuracy (house rule: scale-aware, per block of unknowns).
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
    if (!nw->residual || !nw->delta || !nw->scale || !nw->row_scale || !nw->floor ||
        !nw->hidden_magnitude) {
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
    memset(nw, 0, sizeof *nw);
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
    update_ratios u = { 0.0, 0.0, 0.0 };
    double worst = -1.0;
    for (int i = 0; i < size; i++) {
        double scale = fabs(z[i]) + block_max[block[i]];
        double allowed = fmax((rtol > 16.0 * DBL_EPSILON ? rtol : 16.0 * DBL_EPSILON) * scale,
                              nw->floor[i]);
        double ratio = fabs(nw->delta[i]) / (allowed > 0.0 ? allowed : DBL_MIN);
        if (block[i] >= NEWTON_MULTIPLIER_BLOCK) {
            if (ratio > u.multiplier)
                u.multiplier = ratio;
        } else {
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
           (u->multiplier <= 1.0 || (iteration > 1 && u->multiplier > 0.25 * previous_multiplier));
}

// The magnitudes R_i of the equations' terms at z (Jacobian assembled, not yet factorized):
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
    // the previous magnitudes (or |r(guess)|) wait in delta, which is free until the solve
    for (int i = 0; i < size; i++)
        nw->delta[i] = first ? fabs(nw->residual[i]) : nw->row_scale[i];
    linsolve_row_magnitudes(ls, nw->scale, nw->row_scale);
    for (int i = 0; i < size; i++)
        nw->row_scale[i] += nw->hidden_magnitude[i];
    for (int i = 0; i < size; i++)
        nw->row_scale[i] = first ? nw->row_scale[i] + nw->delta[i]
                                 : fmax(nw->row_scale[i], nw->delta[i]);
    linsolve_column_reach(ls, nw->row_scale, nw->floor);
    for (int j = 0; j < size; j++)
        nw->floor[j] *= NEWTON_ROUNDING * DBL_EPSILON;
}

// Raises each unknown's floor to the rounding noise the equations pass to it through the
// whole factorized Jacobian: x = J⁻¹ (±NEWTON_ROUNDING ε R) for two sign patterns (all +, and
// alternating), floor_j = max(floor_j, |x_j|), an estimate of (|J⁻¹| ρ)_j that, unlike the
// column reach, is invariant under any scaling of rows and unknowns: at tiny steps the
// momentum rows' entries grow like 1/h and a holonomic constraint's stay O(1), yet the
// constraint alone fixes the normal part of Δq to ε |q|. Uses nw->scale as its buffer (free
// after measure_rows).
static void propagate_rounding(newton *nw, linsolve *ls, int size)
{
    for (int pattern = 0; pattern < 2; pattern++) {
        for (int i = 0; i < size; i++)
            nw->scale[i] = (pattern == 1 && (i & 1) ? -1.0 : 1.0) * NEWTON_ROUNDING *
                           DBL_EPSILON * nw->row_scale[i];
        linsolve_solve(ls, nw->scale);
        for (int j = 0; j < size; j++)
            if (isfinite(nw->scale[j]) && fabs(nw->scale[j]) > nw->floor[j])
                nw->floor[j] = fabs(nw->scale[j]);
    }
}

dirac_status newton_solve(newton *nw, linsolve *ls, int size, double *z, const int *block,
                          newton_assemble_fn assemble, void *context, double rtol,
                          int max_iterations)
{
    double previous_multiplier = HUGE_VAL, previous_primary = HUGE_VAL;
    nw->size = size;
    nw->iterations = 0;
    nw->worst = -1;
    nw->worst_value = 0.0;
    if (size <= 0)
        return DIRAC_OK;
    if (!ls)
        return DIRAC_ERR_NOMEM;
    dirac_status status = DIRAC_ERR_NEWTON;
    for (int it = 1; it <= max_iterations && status == DIRAC_ERR_NEWTON; it++) {
        nw->iterations = it;
        if (linsolve_is_sparse(ls) && !linsolve_has_pattern(ls)) {
            // one assembly records the Jacobian's pattern (first solve only)
            linsolve_begin_pattern(ls);
            assemble(context, z, nw->residual, ls);
            if (linsolve_end_pattern(ls, NULL) != DIRAC_OK)
                return DIRAC_ERR_NOMEM;
        }
        linsolve_zero(ls);
        memset(nw->hidden_magnitude, 0, (size_t)size * sizeof *nw->hidden_magnitude);
        int where = 0;
        if (assemble(context, z, nw->residual, ls) != 0 ||
            !all_finite(nw->residual, size, &where)) {
            nw->worst = where;
            nw->worst_value = nw->residual[where];
            return DIRAC_ERR_NOT_FINITE;
        }
        measure_rows(nw, ls, size, z, block, it == 1);
        int bad = -1;
        dirac_status factored = linsolve_factor(ls, &bad);
        if (factored != DIRAC_OK) {
            nw->worst = bad >= 0 ? bad : 0;
            nw->worst_value = 0.0;
            return factored;
        }
        propagate_rounding(nw, ls, size);
        memcpy(nw->delta, nw->residual, (size_t)size * sizeof *nw->delta);
        linsolve_solve(ls, nw->delta);
        if (!all_finite(nw->delta, size, &where)) {
            nw->worst = where;
            nw->worst_value = nw->delta[where];
            return DIRAC_ERR_NOT_FINITE;
        }
        for (int i = 0; i < size; i++)
            z[i] -= nw->delta[i];
        update_ratios ratios = measure(nw, size, z, block, rtol);
        if (converged(&ratios, it, previous_multiplier)) {
            status = DIRAC_OK;
            break;
        }
        // a cheap look ahead with the same factorization: the residual at the new point and
        // the correction it asks for; near the solution that correction is already small
        if (assemble(context, z, nw->residual, NULL) == 0 &&
            all_finite(nw->residual, size, &where)) {
            memcpy(nw->delta, nw->residual, (size_t)size * sizeof *nw->delta);
            linsolve_solve(ls, nw->delta);
            if (all_finite(nw->delta, size, &where)) {
                for (int i = 0; i < size; i++)
                    z[i] -= nw->delta[i];
                update_ratios next = measure(nw, size, z, block, rtol);
                if (converged(&next, it + 1, ratios.multiplier)) {
                    status = DIRAC_OK;
                    break;
                }
                ratios = next;
            }
        }
        // stagnation a little above the requested level: updates made of rounding noise (e.g.
        // the ε|L|/|Δx| of a discrete gradient) that no longer shrink
        if (it > 2 && ratios.relative <= NEWTON_STAGNATION_LEVEL &&
            ratios.primary > 0.5 * previous_primary &&
            (ratios.multiplier <= 1.0 || ratios.multiplier > 0.25 * previous_multiplier)) {
            status = DIRAC_OK;
            break;
        }
        previous_multiplier = ratios.multiplier;
        previous_primary = ratios.primary;
    }
    if (status == DIRAC_OK)
        for (int i = 0; i < size; i++)
            if (fabs(z[i]) > nw->block_floor[block[i]])
                nw->block_floor[block[i]] = fabs(z[i]);
    return status;
}
