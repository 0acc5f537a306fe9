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
    if (!nw->residual || !nw->delta) {
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

dirac_status newton_solve(newton *nw, linsolve *ls, int size, double *z, const int *block,
                          newton_assemble_fn assemble, void *context, double rtol,
                          int max_iterations)
{
    double block_max[NEWTON_MAX_BLOCKS], previous_multiplier = HUGE_VAL,
           previous_primary = HUGE_VAL;
    nw->size = size;
    nw->iterations = 0;
    nw->worst = -1;
    nw->worst_value = 0.0;
    if (size <= 0)
        return DIRAC_OK;
    if (!ls)
        return DIRAC_ERR_NOMEM;
    for (int it = 1; it <= max_iterations; it++) {
        nw->iterations = it;
        if (ls->sparse && !ls->has_pattern) {
            // one assembly records the Jacobian's pattern (first solve only)
            linsolve_begin_pattern(ls);
            assemble(context, z, nw->residual, ls);
            if (linsolve_end_pattern(ls, NULL) != DIRAC_OK)
                return DIRAC_ERR_NOMEM;
        }
        linsolve_zero(ls);
        int where = 0;
        if (assemble(context, z, nw->residual, ls) != 0 ||
            !all_finite(nw->residual, size, &where)) {
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
        memcpy(nw->delta, nw->residual, (size_t)size * sizeof *nw->delta);
        linsolve_solve(ls, nw->delta);
        if (!all_finite(nw->delta, size, &where)) {
            nw->worst = where;
            nw->worst_value = nw->delta[where];
            return DIRAC_ERR_NOT_FINITE;
        }
        for (int b = 0; b < NEWTON_MAX_BLOCKS; b++)
            block_max[b] = 0.0;
        for (int i = 0; i < size; i++) {
            z[i] -= nw->delta[i];
            double a = fabs(z[i]);
            if (a > block_max[block[i]])
                block_max[block[i]] = a;
        }
        // small update: below rtol relative, or at rounding level, of the block's scale
        double primary = 0.0, multiplier = 0.0, worst = -1.0, relative = 0.0;
        for (int i = 0; i < size; i++) {
            double scale = fabs(z[i]) + block_max[block[i]];
            double allowed = fmax(rtol * scale, 16.0 * DBL_EPSILON * scale);
            double ratio = fabs(nw->delta[i]) / (allowed > 0.0 ? allowed : DBL_MIN);
            if (block[i] >= NEWTON_MULTIPLIER_BLOCK) {
                multiplier = fmax(multiplier, ratio);
            } else {
                primary = fmax(primary, ratio);
                relative = fmax(relative, fabs(nw->delta[i]) / (scale > 0.0 ? scale : DBL_MIN));
            }
            if (ratio > worst) {
                worst = ratio;
                nw->worst = i;
                nw->worst_value = nw->residual[i];
            }
        }
        // multipliers are only as accurate as the conditioning allows (a rounding-level
        // constraint residual moves them by ε/h²): once the state has converged, accept them
        // when their updates are small or have stopped shrinking
        if (primary <= 1.0 &&
            (multiplier <= 1.0 || (it > 1 && multiplier > 0.25 * previous_multiplier)))
            return DIRAC_OK;
        // stagnation a little above the requested level: updates made of rounding noise (e.g.
        // the ε|L|/|Δx| of a discrete gradient) that no longer shrink
        if (it > 2 && relative <= NEWTON_STAGNATION_LEVEL && primary > 0.5 * previous_primary &&
            (multiplier <= 1.0 || multiplier > 0.25 * previous_multiplier))
            return DIRAC_OK;
        previous_multiplier = multiplier;
        previous_primary = primary;
    }
    return DIRAC_ERR_NEWTON;
}
