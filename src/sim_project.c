// Initial consistency: the initial state is checked against every constraint and, when asked
// (options.project_initial), moved onto them: Gauss–Newton with minimum-norm corrections on the
// holonomic constraints φ(q, t) = 0, then one linear projection of the velocities onto
// ⟨ω, v⟩ + b = 0. Creation only (allocates).
#include "sim.h"

#include "error.h"
#include "linalg_dense.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

// Solves the minimum-norm correction δ = Aᵀ y, (A Aᵀ) y = r for the rows of A, given as
// At = Aᵀ (n x rows, column-major) — used only by the initial projection (allocates).
static dirac_status min_norm_correction(int rows, int n, const double *at, const double *r,
                                        double *delta, dirac_error *err)
{
    double *aat = calloc((size_t)rows * (size_t)rows + 1, sizeof *aat);
    double *y = malloc(((size_t)rows + 1) * sizeof *y);
    dirac_status status = DIRAC_OK;
    if (!aat || !y)
        status = error_set(err, DIRAC_ERR_NOMEM, "out of memory");
    if (status == DIRAC_OK) {
        linalg_matmul_tn(rows, n, rows, at, at, aat);
        memcpy(y, r, (size_t)rows * sizeof *y);
        status = linalg_solve(rows, aat, y,
                              "cannot project the initial state: the constraint forms are "
                              "linearly dependent there", err);
    }
    if (status == DIRAC_OK)
        linalg_matmul(n, rows, 1, at, y, delta);
    free(aat);
    free(y);
    return status;
}

// Dense ω (rows of the selected constraints) at e into a as ωᵀ (n x rows, column-major), with the
// columns of the coordinates whose start value is `fixed` zeroed (they do not move).
static int selected_forms(const dirac_sim *sim, const sim_eval *e, int holonomic_only, double *a,
                          double *r, const double *g)
{
    const unsigned char *fixed = holonomic_only ? sim->model->q0_fixed : sim->model->v0_fixed;
    const model_sparse *f = &sim->model->constraint_forms;
    int rows = 0;
    for (int c = 0; c < sim->mc; c++)
        if (!holonomic_only || sim->model->constraints[c].kind == DIRAC_CONSTRAINT_HOLONOMIC)
            rows++;
    memset(a, 0, (size_t)(rows > 0 ? rows : 1) * (size_t)sim->n * sizeof *a);
    int row = 0;
    for (int c = 0; c < sim->mc; c++) {
        if (holonomic_only && sim->model->constraints[c].kind != DIRAC_CONSTRAINT_HOLONOMIC)
            continue;
        for (int k = f->row_start[c]; k < f->row_start[c + 1]; k++)
            if (!fixed[f->col[k]])
                a[(size_t)row * (size_t)sim->n + (size_t)f->col[k]] = e->forms[k];
        r[row] = holonomic_only ? e->values[c] : g[c];
        row++;
    }
    return rows;
}

// A singular projection with start values marked `fixed` (`which`: "positions" or
// "velocities"): the fixed values leave too few free ones to meet the constraints.
static dirac_status over_determined(const dirac_sim *sim, const unsigned char *fixed,
                                   const char *which, dirac_status status, dirac_error *err)
{
    if (status != DIRAC_ERR_SINGULAR)
        return status;
    for (int i = 0; i < sim->n; i++)
        if (fixed[i])
            return error_set(err, DIRAC_ERR_ARGUMENT,
                             "cannot project the initial %s: the start values marked 'fixed' "
                             "over-determine the constraints (the constraint forms restricted "
                             "to the free coordinates are dependent); free some of them",
                             which);
    return status;
}

// Storage for the dense constraint forms of the projection (models up to 4e6 entries).
static dirac_status dense_forms(const dirac_sim *sim, double **a, dirac_error *err)
{
    if (*a)
        return DIRAC_OK;
    if ((double)sim->n * (double)sim->mc > 4e6)
        return error_set(err, DIRAC_ERR_UNSUPPORTED,
                         "cannot project the initial state of a model this large (%d coordinates, "
                         "%d constraints): give consistent initial values", sim->n, sim->mc);
    *a = calloc((size_t)sim->mc * (size_t)sim->n + 1, sizeof **a);
    return *a ? DIRAC_OK : error_set(err, DIRAC_ERR_NOMEM, "out of memory");
}

dirac_status sim_initial_consistency(dirac_sim *sim, int project, dirac_error *err)
{
    const dirac_model *m = sim->model;
    int n = sim->n, mc = sim->mc;
    if (mc == 0)
        return DIRAC_OK;
    sim_eval *e = &sim->eval[SIM_EVAL_STEP_A];
    double *a = NULL;   // dense forms, only when projecting
    double *r = calloc((size_t)mc + 1, sizeof *r), *g = calloc((size_t)mc + 1, sizeof *g);
    double *delta = calloc((size_t)n + 1, sizeof *delta);
    double *q_start = malloc(((size_t)n + 1) * sizeof *q_start);
    double *v_start = malloc(((size_t)n + 1) * sizeof *v_start);
    dirac_status status = DIRAC_OK;
    if (!r || !g || !delta || !q_start || !v_start)
        status = error_set(err, DIRAC_ERR_NOMEM, "out of memory");
    double q_scale = 1.0, v_scale = 1.0;
    for (int i = 0; status == DIRAC_OK && i < n; i++) {
        q_scale = fmax(q_scale, fabs(sim->q[i]));
        v_scale = fmax(v_scale, fabs(sim->v[i]));
        q_start[i] = sim->q[i];
        v_start[i] = sim->v[i];
    }
    // positions: Gauss–Newton on the holonomic constraints
    for (int it = 0; status == DIRAC_OK && it < 50; it++) {
        sim_evaluate(sim, e, sim->q, sim->v, sim->s, sim->t, NULL, EVAL_CONSTRAINTS);
        int worst = -1;
        double worst_value = 0.0;
        for (int c = 0; c < mc; c++)
            if (m->constraints[c].kind == DIRAC_CONSTRAINT_HOLONOMIC &&
                !(fabs(e->values[c]) <= worst_value))
                worst = c, worst_value = fabs(e->values[c]);
        if (!(worst_value > 1e-14 * q_scale))
            break;
        if (!project) {
            status = error_set(err, DIRAC_ERR_ARGUMENT,
                               "the initial state violates constraint '%s' (residual %.3e); fix "
                               "the initial values or use options.project_initial",
                               m->constraints[worst].name, worst_value);
            if (worst_value <= 1e-9 * q_scale)
                status = DIRAC_OK;   // accepted as consistent within tolerance
            break;
        }
        if (it == 49) {
            status = error_set(err, DIRAC_ERR_ARGUMENT,
                               "cannot project the initial state onto constraint '%s' "
                               "(residual %.3e after 50 iterations)",
                               m->constraints[worst].name, worst_value);
            break;
        }
        status = dense_forms(sim, &a, err);
        if (status == DIRAC_OK) {
            int rows = selected_forms(sim, e, 1, a, r, NULL);
            status = over_determined(sim, m->q0_fixed, "positions",
                                     min_norm_correction(rows, n, a, r, delta, err), err);
        }
        for (int i = 0; status == DIRAC_OK && i < n; i++)
            sim->q[i] -= delta[i];
    }
    // velocities: one linear projection onto ⟨ω, v⟩ + b = 0
    if (status == DIRAC_OK) {
        sim_evaluate(sim, e, sim->q, sim->v, sim->s, sim->t, NULL, EVAL_CONSTRAINTS);
        sim_velocity_constraint(sim, e, sim->v, g);
        int worst = -1;
        double worst_value = 0.0;
        for (int c = 0; c < mc; c++)
            if (!(fabs(g[c]) <= worst_value))
                worst = c, worst_value = fabs(g[c]);
        if (worst_value > 1e-14 * v_scale) {
            if (!project) {
                if (worst_value > 1e-9 * v_scale)
                    status = error_set(err, DIRAC_ERR_ARGUMENT,
                                       "the initial velocities violate constraint '%s' (velocity "
                                       "residual %.3e); fix the initial values or use "
                                       "options.project_initial",
                                       m->constraints[worst].name, worst_value);
            } else {
                status = dense_forms(sim, &a, err);
                int rows = status == DIRAC_OK ? selected_forms(sim, e, 0, a, r, g) : 0;
                if (status == DIRAC_OK)
                    status = over_determined(sim, m->v0_fixed, "velocities",
                                             min_norm_correction(rows, n, a, r, delta, err), err);
                for (int i = 0; status == DIRAC_OK && i < n; i++)
                    sim->v[i] -= delta[i];
            }
        }
    }
    if (status == DIRAC_OK) {
        double sum = 0.0;
        for (int i = 0; i < n; i++)
            sum += (sim->q[i] - q_start[i]) * (sim->q[i] - q_start[i]) +
                   (sim->v[i] - v_start[i]) * (sim->v[i] - v_start[i]);
        sim->projection_distance = sqrt(sum);
    }
    free(a);
    free(r);
    free(g);
    free(delta);
    free(q_start);
    free(v_start);
    return status;
}
