// The index-reduced ODE: acceleration and multipliers from the KKT system
//     H_vv a − ωᵀ μ = ∂L/∂q + F − H_vq v − H_vt
//     ω a          = −(∂g/∂q v + ∂g/∂t),      g = ⟨ω, v⟩ + b  (the velocity-level constraint),
// which needs a regular H_vv on the constraint distribution (docs/methods.md); and the test of
// ∂²L/∂v² for a coordinate whose velocity it does not determine.
#include "sim.h"

#include <math.h>
#include <string.h>

// Acceleration and multipliers at (q, v, t); returns DIRAC_ERR_SINGULAR if the KKT matrix is.
// Also returns the power F·v − ∂L/∂t − Σ_{driven} μ b at that point in *power.
dirac_status sim_acceleration(dirac_sim *sim, const double *q, const double *v, double t,
                              double *a, double *mu, double *power)
{
    const dirac_model *m = sim->model;
    int n = sim->n, mc = sim->mc, size = n + mc;
    sim_eval *e = &sim->eval[SIM_EVAL_KKT];
    sim_evaluate(sim, e, q, v, sim->s, t, NULL,
                 EVAL_GRADIENT | EVAL_HESSIAN | EVAL_CONSTRAINTS | EVAL_CONSTRAINT_JAC |
                     EVAL_FORCES);
    double *rhs = sim->kkt.rhs;
    linsolve *kkt = sim_solver(sim, SIM_SOLVER_KKT, size);
    if (!kkt)
        return DIRAC_ERR_NOMEM;
    // [H_vv, −ωᵀ; ω, 0]: the pattern is recorded at the first use, then values are added
    for (int pass = kkt->sparse && !kkt->has_pattern ? 0 : 1; pass < 2; pass++) {
        if (pass == 0)
            linsolve_begin_pattern(kkt);
        else
            linsolve_zero(kkt);
        sim_add_hessian_block(sim, e, n, n, n, n, 1.0, kkt, 0, 0);
        const model_sparse *f = &m->constraint_forms;
        for (int c = 0; c < mc; c++)
            for (int k = f->row_start[c]; k < f->row_start[c + 1]; k++) {
                linsolve_add(kkt, f->col[k], n + c, -e->forms[k]);
                linsolve_add(kkt, n + c, f->col[k], e->forms[k]);
            }
        if (pass == 0 && linsolve_end_pattern(kkt, NULL) != DIRAC_OK)
            return DIRAC_ERR_NOMEM;
    }
    // right-hand side
    for (int i = 0; i < n; i++)
        rhs[i] = e->gradient[i] + e->forces[i];
    for (int c = 0; c < mc; c++)
        rhs[n + c] = 0.0;
    const model_sparse *hs = &m->hessian;
    for (int i = 0; i < n; i++)
        for (int k = hs->row_start[n + i]; k < hs->row_start[n + i + 1]; k++) {
            int col = hs->col[k];
            if (col < n)
                rhs[i] -= e->hessian[k] * v[col];
            else if (col == m->index_t)
                rhs[i] -= e->hessian[k];
        }
    const model_sparse *cj = &m->constraint_jacobian;
    for (int c = 0; c < mc; c++)
        for (int k = cj->row_start[c]; k < cj->row_start[c + 1]; k++) {
            int col = cj->col[k];
            if (col < n)
                rhs[n + c] -= e->constraint_jac[k] * v[col];
            else if (col == m->index_t)
                rhs[n + c] -= e->constraint_jac[k];
        }
    int bad = -1;
    if (linsolve_factor(kkt, &bad) != DIRAC_OK)
        return DIRAC_ERR_SINGULAR;
    linsolve_solve(kkt, rhs);
    memcpy(a, rhs, (size_t)n * sizeof *a);
    memcpy(mu, rhs + n, (size_t)mc * sizeof *mu);
    double p = -e->gradient[m->index_t];
    for (int i = 0; i < n; i++)
        p += e->forces[i] * v[i];
    for (int c = 0; c < mc; c++)
        if (m->constraints[c].time_dependent)
            p -= mu[c] * e->rates[c];
    *power = p;
    return DIRAC_OK;
}

int sim_degenerate_coordinate(dirac_sim *sim)
{
    int n = sim->n;
    if (n == 0)
        return -1;
    sim_eval *e = &sim->eval[SIM_EVAL_STEP_A];
    sim_evaluate(sim, e, sim->q, sim->v, sim->s, sim->t, NULL, EVAL_HESSIAN);
    linsolve hvv;
    if (linsolve_init(&hvv, n, false, NULL) != DIRAC_OK)
        return -2;
    sim_add_hessian_block(sim, e, n, n, n, n, 1.0, &hvv, 0, 0);
    double scale = 0.0;
    for (int k = 0; k < n * n; k++)
        scale = fmax(scale, fabs(hvv.dense[k]));
    int degenerate = -1;
    if (!(scale > 0.0)) {
        degenerate = 0;   // L does not depend on the velocities at all
    } else {
        lapack_int info = LAPACKE_dgetrf_work(LAPACK_COL_MAJOR, n, n, hvv.dense, n, hvv.pivots);
        if (info > 0)
            degenerate = (int)info - 1;
        for (int i = 0; degenerate < 0 && i < n; i++)
            if (!(fabs(hvv.dense[(size_t)i * (size_t)n + (size_t)i]) > 1e-12 * scale))
                degenerate = i;
    }
    linsolve_free(&hvv);
    return degenerate;
}
