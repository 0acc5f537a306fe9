// Node velocities of degenerate Lagrangians (docs/methods.md, "Degenerate Lagrangians").
//
// At a node (q, v, t) the Legendre map p = ∂L/∂v and the velocity constraints ⟨ω, v⟩ + b = 0
// leave the velocities in K = ker ∂²L/∂v² ∩ ker ω undetermined: along k ∈ K, p does not depend
// on v and ω k = 0, so neither the Legendre rows nor the constraints contain v·k (resistor
// branches of a circuit in branch charges, Lagrangians linear in velocities). The equation that
// fixes them is the momentum balance along K, where no multiplier enters (kᵀωᵀμ = 0) and the
// rate of change of p has no acceleration term (H_vv k = 0):
//   kᵀ G(q, v, t) = 0,   G = ∂²L/∂v∂q v + ∂²L/∂v∂t − ∂L/∂q − F(q, v, t).
// Along K the Legendre rows are redundant (0 = 0 up to rounding for a consistent momentum), so
// a node solve replaces their K-component by this balance:
//   r ← r − Z Zᵀ r + c Z Zᵀ G,   Z an orthonormal basis of K, c a scale (h/2),
// and its Jacobian gains c Z Zᵀ ∂G/∂v (Zᵀ ∂²L/∂v² = 0 and Zᵀ ωᵀ = 0 leave the rest unchanged).
// For index-one models (forces through every direction of K, ZᵀG_v Z regular) the modified
// system is regular.
#include "sim.h"

#include "linalg_dense.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

// Largest model whose null-space workspace (about 3 n² doubles, 6 MB at 500) is allocated.
#define DEGENERATE_MAX_COORDINATES 500

static int velocity_free_coordinate(const dirac_model *m, int i)
{
    const model_sparse *hs = &m->hessian;
    int row = m->first_v + i;
    for (int k = hs->row_start[row]; k < hs->row_start[row + 1]; k++)
        if (hs->col[k] >= m->first_v && hs->col[k] < m->first_v + m->n)
            return 0;
    return 1;
}

// The workspace's arrays (one block, mem.h's mem_plan).
static void degenerate_layout(mem_plan *p, sim_degenerate *dg, int n, int rows)
{
    size_t nn = (size_t)n * (size_t)n;
    dg->matrix = mem_plan_take(p, (size_t)rows * (size_t)n, sizeof(double));
    dg->singular_values = mem_plan_take(p, (size_t)n, sizeof(double));
    dg->vt = mem_plan_take(p, nn, sizeof(double));
    dg->basis = mem_plan_take(p, nn, sizeof(double));
    dg->coupling = mem_plan_take(p, nn, sizeof(double));
    dg->balance = mem_plan_take(p, 2 * (size_t)n, sizeof(double));
    dg->work = mem_plan_take(p, (size_t)dg->work_size, sizeof(double));
}

dirac_status sim_degenerate_init(dirac_sim *sim)
{
    const dirac_model *m = sim->model;
    int n = sim->n, rows = sim->n + sim->mc, any = 0;
    for (int i = 0; i < n && !any; i++)
        any = velocity_free_coordinate(m, i);
    if (!any || n > DEGENERATE_MAX_COORDINATES)
        return DIRAC_OK;
    sim_degenerate *dg = &sim->degenerate;
    dg->work_size = linalg_svd_right_work_size(rows, n);
    if (dg->work_size < 0)
        return DIRAC_ERR_NOMEM;
    mem_plan plan = { 0 };
    degenerate_layout(&plan, dg, n, rows);
    if (!mem_plan_alloc(&plan, &sim->mem))
        return DIRAC_ERR_NOMEM;
    degenerate_layout(&plan, dg, n, rows);
    dg->available = true;
    return DIRAC_OK;
}

void sim_degenerate_free(dirac_sim *sim)
{
    mem_free(&sim->mem, sim->degenerate.matrix);   // the block starts with the matrix
    memset(&sim->degenerate, 0, sizeof sim->degenerate);
}

int sim_degenerate_basis(dirac_sim *sim, const sim_eval *e)
{
    sim_degenerate *dg = &sim->degenerate;
    if (!dg->available)
        return 0;
    const dirac_model *m = sim->model;
    const model_sparse *hs = &m->hessian, *f = &m->constraint_forms;
    int n = sim->n, mc = sim->mc, rows = n + mc, v0 = m->first_v;
    double *a = dg->matrix;
    memset(a, 0, (size_t)rows * (size_t)n * sizeof *a);
    // M = [∂²L/∂v²; ω], column-major, each row scaled to unit max norm
    for (int i = 0; i < n; i++)
        for (int k = hs->row_start[v0 + i]; k < hs->row_start[v0 + i + 1]; k++)
            if (hs->col[k] >= v0 && hs->col[k] < v0 + n)
                a[(size_t)(hs->col[k] - v0) * (size_t)rows + (size_t)i] += e->hessian[k];
    for (int c = 0; c < mc; c++)
        for (int k = f->row_start[c]; k < f->row_start[c + 1]; k++)
            a[(size_t)f->col[k] * (size_t)rows + (size_t)(n + c)] += e->forms[k];
    for (int r = 0; r < rows; r++) {
        double big = 0.0;
        for (int j = 0; j < n; j++)
            big = fmax(big, fabs(a[(size_t)j * (size_t)rows + (size_t)r]));
        if (big > 0.0)
            for (int j = 0; j < n; j++)
                a[(size_t)j * (size_t)rows + (size_t)r] /= big;
    }
    if (linalg_svd_right(rows, n, a, dg->singular_values, dg->vt, dg->work, dg->work_size) !=
        DIRAC_OK)
        return 0;
    // singular values: min(rows, n) of them, descending; rows < n leaves n − rows zeros; the
    // degenerate directions are structural (exact zeros), regular ones far above the rank rule
    int rank = linalg_rank_of_singular_values(dg->singular_values, rows < n ? rows : n);
    int dim = n - rank;
    // Z: the last `dim` rows of Vᵀ, as columns (n x dim, column-major)
    for (int k = 0; k < dim; k++)
        for (int i = 0; i < n; i++)
            dg->basis[(size_t)k * (size_t)n + (size_t)i] =
                dg->vt[(size_t)i * (size_t)n + (size_t)(rank + k)];
    dg->dim = dim;
    return dim;
}

// G = H_vq v + H_vt − ∂L/∂q − F at e (gradient, Hessian and forces evaluated), into g (n).
static void node_balance(const dirac_sim *sim, const sim_eval *e, const double *v, double *g)
{
    const dirac_model *m = sim->model;
    const model_sparse *hs = &m->hessian;
    int n = sim->n, v0 = m->first_v;
    for (int i = 0; i < n; i++) {
        double sum = -e->gradient[i] - e->forces[i];
        for (int k = hs->row_start[v0 + i]; k < hs->row_start[v0 + i + 1]; k++) {
            int c = hs->col[k];
            if (c < n)
                sum += e->hessian[k] * v[c];
            else if (c == m->index_t)
                sum += e->hessian[k];
        }
        g[i] = sum;
    }
}

void sim_degenerate_residual(dirac_sim *sim, const sim_eval *e, const double *v, double scale,
                             double *r)
{
    sim_degenerate *dg = &sim->degenerate;
    int n = sim->n, dim = dg->dim;
    double *g = dg->balance, *zr = g + n;
    node_balance(sim, e, v, g);
    // r ← r + Z (c Zᵀ G − Zᵀ r)
    for (int k = 0; k < dim; k++) {
        const double *zk = dg->basis + (size_t)k * (size_t)n;
        double along_r = 0.0, along_g = 0.0;
        for (int i = 0; i < n; i++) {
            along_r += zk[i] * r[i];
            along_g += zk[i] * g[i];
        }
        zr[k] = scale * along_g - along_r;
    }
    for (int k = 0; k < dim; k++) {
        const double *zk = dg->basis + (size_t)k * (size_t)n;
        for (int i = 0; i < n; i++)
            r[i] += zk[i] * zr[k];
    }
}

void sim_degenerate_jacobian(dirac_sim *sim, const sim_eval *e, double scale, linsolve *jac)
{
    sim_degenerate *dg = &sim->degenerate;
    const dirac_model *m = sim->model;
    const model_sparse *hs = &m->hessian, *fj = &m->force_jacobian;
    int n = sim->n, dim = dg->dim, v0 = m->first_v;
    // W = Zᵀ ∂G/∂v (dim x n), ∂G/∂v ≈ H_vq − H_qv − F_v (L affine along K: exact)
    double *w = dg->coupling;
    memset(w, 0, (size_t)dim * (size_t)n * sizeof *w);
    for (int i = 0; i < n; i++) {
        for (int k = hs->row_start[v0 + i]; k < hs->row_start[v0 + i + 1]; k++)
            if (hs->col[k] < n)   // H_vq: row v_i, column q_j → ∂G_i/∂v_j
                for (int d = 0; d < dim; d++)
                    w[(size_t)hs->col[k] * (size_t)dim + (size_t)d] +=
                        dg->basis[(size_t)d * (size_t)n + (size_t)i] * e->hessian[k];
        for (int k = hs->row_start[i]; k < hs->row_start[i + 1]; k++)
            if (hs->col[k] >= v0 && hs->col[k] < v0 + n)   // −H_qv
                for (int d = 0; d < dim; d++)
                    w[(size_t)(hs->col[k] - v0) * (size_t)dim + (size_t)d] -=
                        dg->basis[(size_t)d * (size_t)n + (size_t)i] * e->hessian[k];
        for (int k = fj->row_start[i]; k < fj->row_start[i + 1]; k++)
            if (fj->col[k] >= v0 && fj->col[k] < v0 + n)   // −F_v
                for (int d = 0; d < dim; d++)
                    w[(size_t)(fj->col[k] - v0) * (size_t)dim + (size_t)d] -=
                        dg->basis[(size_t)d * (size_t)n + (size_t)i] * e->force_jac[k];
    }
    // + c Z W, every entry (the node solver is dense)
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++) {
            double sum = 0.0;
            for (int d = 0; d < dim; d++)
                sum += dg->basis[(size_t)d * (size_t)n + (size_t)i] *
                       w[(size_t)j * (size_t)dim + (size_t)d];
            linsolve_add(jac, i, j, scale * sum);
        }
}
