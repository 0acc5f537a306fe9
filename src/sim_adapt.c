// Adaptive step size (docs/methods.md, "Adaptive step size"): an embedded error estimate or
// step doubling at the method's order, an elementary controller, breakpoints in time landed on.
#include "sim.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

// Blocks of the state the controller compares: [q | v | p | S] (trial, trial_start).
enum { BLOCK_Q, BLOCK_V, BLOCK_P, BLOCK_S };

static int block_size(const dirac_sim *sim, int block)
{
    return block == BLOCK_S ? sim->ns : sim->n;
}

static double *state_block(dirac_sim *sim, int block)
{
    double *blocks[] = { sim->q, sim->v, sim->p, sim->s };
    return blocks[block];
}

// Whether component i of `block` is a state of the method that its error estimate covers.
static bool estimated(const dirac_sim *sim, int block, int i)
{
    const sim_method *m = sim->method;
    switch (block) {
    case BLOCK_V:   // dgrad: the alternating mode reaches every velocity the mass matrix
                    // couples to a constrained one, so with constraints none is compared
        return !m->lagged_velocity && !(m->unconstrained_node_velocity && sim->mc > 0);
    case BLOCK_P:   // dirac1: (q, p) is its state (symplectic Euler without constraints); the
                    // constraint impulses enter only the constrained coordinates' momenta
        return m->lagged_velocity && !sim->constrained[i];
    default:
        return true;
    }
}

// Copies [q | v | p | S] into dst.
static void copy_state(dirac_sim *sim, double *dst)
{
    for (int b = 0, offset = 0; b < 4; offset += block_size(sim, b), b++)
        memcpy(dst + offset, state_block(sim, b), (size_t)block_size(sim, b) * sizeof *dst);
}

// The error of the step just taken in units of the tolerance:
//   max_i |δ_i| / (atol + rtol max(|x_i|, |x_i^start|)),
// with δ the embedded estimate (in sim->adapt.trial) or, for step doubling, the difference of the
// two half steps and the full step divided by 2^p − 1 (Richardson: the error of the half
// steps). Without --atol, atol is rtol times the largest magnitude of that block (at the start,
// at the end, or at any earlier node), so components passing through zero keep a scale.
static double step_error(dirac_sim *sim, bool doubling)
{
    int order = sim->method->info.order;
    double richardson = doubling ? 1.0 / (double)((1 << order) - 1) : 1.0, error = 0.0;
    for (int b = 0, offset = 0; b < 4; offset += block_size(sim, b), b++) {
        if (!doubling && b >= BLOCK_P)
            break;   // embedded estimates cover q and v (explicit methods: no p, S of their own)
        const double *x = state_block(sim, b), *x0 = sim->adapt.trial_start + offset;
        double size = sim->adapt.block_scale[b];
        for (int i = 0; i < block_size(sim, b); i++)
            size = fmax(size, fmax(fabs(x[i]), fabs(x0[i])));
        double atol = sim->adapt.atol > 0.0 ? sim->adapt.atol : sim->adapt.rtol * size;
        for (int i = 0; i < block_size(sim, b); i++) {
            if (!estimated(sim, b, i))
                continue;
            double trial = sim->adapt.trial[offset + i];
            double delta = doubling ? x[i] - trial : trial;
            double scale = atol + sim->adapt.rtol * fmax(fabs(x[i]), fabs(x0[i]));
            double e = fabs(delta) * richardson / (scale > 0.0 ? scale : DBL_MIN);
            if (!(e <= error))
                error = e;   // NaN propagates
        }
    }
    return error;
}

void sim_adaptive_observe(dirac_sim *sim)
{
    for (int b = 0; b < 4; b++) {
        const double *x = state_block(sim, b);
        for (int i = 0; i < block_size(sim, b); i++)
            sim->adapt.block_scale[b] = fmax(sim->adapt.block_scale[b], fabs(x[i]));
    }
}

static dirac_status step_size_failure(dirac_sim *sim, double t, double h, const char *why)
{
    char last[sizeof sim->errmsg];
    memcpy(last, sim->errmsg, sizeof last);
    int written = snprintf(sim->errmsg, sizeof sim->errmsg,
                           "step %ld at t = %.17g (%s): %s (step size %.3e, rtol %g, atol %g); "
                           "the solution may be singular there, or the tolerances too tight "
                           "for this method",
                           sim->steps + 1, t, sim->method->info.name, why, h, sim->adapt.rtol,
                           sim->adapt.atol);
    if (!(sim->adapt.atol > 0.0) && written > 0 && (size_t)written < sizeof sim->errmsg)
        written += snprintf(sim->errmsg + written, sizeof sim->errmsg - (size_t)written,
                            "; with rtol alone a quantity that starts at zero has no scale: "
                            "give an absolute tolerance (options.adaptive_atol)");
    if (last[0] && written > 0 && (size_t)written < sizeof sim->errmsg)
        snprintf(sim->errmsg + written, sizeof sim->errmsg - (size_t)written,
                 "; the last trial step failed: %.600s", last);
    return DIRAC_ERR_STEP_SIZE;
}

// One accepted step of the error-controlled size (docs/methods.md, "Adaptive step size"):
// methods with an embedded estimate take one step and check it; the others take a step of h
// and two of h/2 and keep the half steps. Rejected trials restore the start and retry with
// h·clamp(0.9 err^(−1/(k+1)), 0.2, 4) (k: the order of the estimate); a step size below
// 8 ε max(|t|, |t_0| + h_last) or 30 rejections in a row stop with DIRAC_ERR_STEP_SIZE.
dirac_status sim_adaptive_step(dirac_sim *sim)
{
    const sim_method *m = sim->method;
    bool doubling = m->estimate_order == 0;
    int order = doubling ? m->info.order : m->estimate_order;
    double t_start = sim->t, h = sim->adapt.h_next, wanted = h;
    double h_floor = 8.0 * DBL_EPSILON * fmax(fabs(t_start), fabs(sim->t0) + sim->h);
    // land on the next breakpoint in time rather than step over it (model_breakpoints.c)
    double next = model_next_breakpoint(sim->model, t_start + 1e-12 * (1.0 + fabs(t_start)));
    bool clipped = false;
    copy_state(sim, sim->adapt.trial_start);
    for (int attempt = 0; attempt < 30; attempt++) {
        if (t_start + h > next) {
            h = next - t_start;
            clipped = true;
        }
        if (!(h > h_floor))
            return step_size_failure(sim, t_start, h,
                                     "the adaptive step size fell below the resolution of t");
        sim->errmsg[0] = '\0';
        sim->h = h;
        dirac_status status = sim_raw_step(sim, t_start + h);
        if (status == DIRAC_OK && doubling) {
            copy_state(sim, sim->adapt.trial);
            sim->t = t_start;
            sim_restore_node(sim);   // the half steps follow at once
            sim->h = 0.5 * h;
            status = sim_raw_step(sim, t_start + 0.5 * h);
            if (status == DIRAC_OK)
                status = sim_raw_step(sim, t_start + h);
        }
        double error = status == DIRAC_OK ? step_error(sim, doubling) : HUGE_VAL;
        // h_new = h · clamp(0.9 error^(−1/(k+1)), 0.2, 4)
        double factor = error > 0.0 ? 0.9 * pow(error, -1.0 / (order + 1)) : 4.0;
        factor = !(factor >= 0.2) ? 0.2 : factor > 4.0 ? 4.0 : factor;
        if (status == DIRAC_OK && error <= 1.0) {
            sim->adapt.h_last = h;
            sim->adapt.h_next = h * factor;
            if (clipped && sim->adapt.h_next < wanted)
                sim->adapt.h_next = wanted;   // the breakpoint, not the error, shortened this step
            sim->h = h;
            sim->errmsg[0] = '\0';
            sim_adaptive_observe(sim);
            return DIRAC_OK;
        }
        sim->t = t_start;
        sim_restore_node(sim);   // a retry follows, or the caller restores the node in full
        sim->adapt.rejected++;
        h *= status == DIRAC_OK ? factor : 0.25;
    }
    return step_size_failure(sim, t_start, h, "30 trial steps in a row were rejected");
}
