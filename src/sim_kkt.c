// The index-reduced ODE: acceleration and multipliers from the KKT system
//     H_vv a − ωᵀ μ = ∂L/∂q + F − H_vq v − H_vt
//     ω a          = −(∂g/∂q v + ∂g/∂t),      g = ⟨ω, v⟩ + b  (the velocity-level constraint),
// which needs a regular H_vv on the constraint distribution (docs/methods.md); and the test of
// ∂²L/∂v² for a coordinate whose velocity it does not determine (linalg_dense.h's rank rule).
#include "sim.h"

#include "linalg_dense.h"

#include <math.h>
#include <stdlib.h>
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
    for (int pass = linsolve_is_sparse(kkt) && !linsolve_has_pattern(kkt) ? 0 : 1; pass < 2;
         pass++) {
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
    const dirac_model *m = sim->model;
    int n = sim->n;
    if (n == 0)
        return -1;
    sim_eval *e = &sim->eval[SIM_EVAL_STEP_A];
    sim_evaluate(sim, e, sim->q, sim->v, sim->s, sim->t, NULL, EVAL_HESSIAN);
    double *hvv = calloc((size_t)n * (size_t)n, sizeof *hvv);
    if (!hvv)
        return -2;
    // ∂²L/∂v², column-major (rows and columns of the velocities in the Hessian)
    const model_sparse *hs = &m->hessian;
    for (int i = 0; i < n; i++)
        for (int k = hs->row_start[m->first_v + i]; k < hs->row_start[m->first_v + i + 1]; k++) {
            int j = hs->col[k] - m->first_v;
            if (j >= 0 && j < n)
                hvv[(size_t)j * (size_t)n + (size_t)i] += e->hessian[k];
        }
    int degenerate = linalg_lu_dependent_column(n, hvv);   // 0 for an L without velocities
    free(hvv);
    return degenerate;
}
