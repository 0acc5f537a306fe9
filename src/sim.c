// Simulations: creation (method lookup, workspace, initial consistency and projection),
// evaluation helpers shared by the integrators, node diagnostics and accessors.
#include "sim.h"

#include "error.h"

#include <float.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const sim_method *const methods[] = {
    &sim_method_midpoint, &sim_method_dirac1, &sim_method_dirac2, &sim_method_dgrad,
    &sim_method_euler, &sim_method_rk4, &sim_method_lobatto3, &sim_method_lobatto4,
};
#define METHOD_COUNT ((int)(sizeof methods / sizeof methods[0]))

int dirac_method_count(void)
{
    return METHOD_COUNT;
}

const dirac_method_info *dirac_method(int i)
{
    return i >= 0 && i < METHOD_COUNT ? &methods[i]->info : NULL;
}

// ---- evaluation helpers ------------------------------------------------------------------

void sim_evaluate(dirac_sim *sim, sim_eval *e, const double *q, const double *v, const double *s,
                  double t, const double *mu, int what)
{
    const dirac_model *m = sim->model;
    int n = sim->n;
    memcpy(e->x, q, (size_t)n * sizeof *e->x);
    memcpy(e->x + m->first_v, v, (size_t)n * sizeof *e->x);
    if (sim->ns)
        memcpy(e->x + m->first_s, s, (size_t)sim->ns * sizeof *e->x);
    e->x[m->index_t] = t;
    for (int a = 0; a < sim->mc; a++)
        e->x[m->first_mu + a] = mu ? mu[a] : 0.0;
    if (m->codegen) {   // the groups of this point in one call, sharing subexpressions
        double *out[CODEGEN_MAX_GROUPS];
        unsigned groups = 0;
        if (what & EVAL_LAGRANGIAN) {
            out[MODEL_CG_LAGRANGIAN] = &e->lagrangian;
            groups |= 1u << MODEL_CG_LAGRANGIAN;
        }
        if (what & EVAL_GRADIENT) {
            out[MODEL_CG_GRADIENT] = e->gradient;
            groups |= 1u << MODEL_CG_GRADIENT;
        }
        if (what & EVAL_HESSIAN) {
            out[MODEL_CG_HESSIAN] = e->hessian;
            groups |= 1u << MODEL_CG_HESSIAN;
        }
        if (what & EVAL_CONSTRAINTS) {
            out[MODEL_CG_CONSTRAINT_VALUES] = e->values;
            out[MODEL_CG_CONSTRAINT_FORMS] = e->forms;
            out[MODEL_CG_CONSTRAINT_RATES] = e->rates;
            groups |= 1u << MODEL_CG_CONSTRAINT_VALUES | 1u << MODEL_CG_CONSTRAINT_FORMS |
                      1u << MODEL_CG_CONSTRAINT_RATES;
        }
        if (what & EVAL_CONSTRAINT_JAC) {
            out[MODEL_CG_CONSTRAINT_JACOBIAN] = e->constraint_jac;
            groups |= 1u << MODEL_CG_CONSTRAINT_JACOBIAN;
        }
        if (what & EVAL_CURVATURE) {
            out[MODEL_CG_CURVATURE] = e->curvature;
            groups |= 1u << MODEL_CG_CURVATURE;
        }
        if (what & EVAL_FORCES) {
            out[MODEL_CG_FORCES] = e->forces;
            out[MODEL_CG_FORCE_JACOBIAN] = e->force_jac;
            groups |= 1u << MODEL_CG_FORCES | 1u << MODEL_CG_FORCE_JACOBIAN;
        }
        codegen_eval(m->codegen, groups, e->x, out, sim->tape_work);
        return;
    }
    if (what & EVAL_LAGRANGIAN)
        model_group_eval(&m->lagrangian_value, e->x, sim->tape_work, &e->lagrangian);
    if (what & EVAL_GRADIENT)
        model_group_eval(&m->gradient, e->x, sim->tape_work, e->gradient);
    if (what & EVAL_HESSIAN)
        model_group_eval(&m->hessian.values, e->x, sim->tape_work, e->hessian);
    if (what & EVAL_CONSTRAINTS) {
        model_group_eval(&m->constraint_values, e->x, sim->tape_work, e->values);
        model_group_eval(&m->constraint_forms.values, e->x, sim->tape_work, e->forms);
        model_group_eval(&m->constraint_rates, e->x, sim->tape_work, e->rates);
    }
    if (what & EVAL_CONSTRAINT_JAC)
        model_group_eval(&m->constraint_jacobian.values, e->x, sim->tape_work, e->constraint_jac);
    if (what & EVAL_CURVATURE)
        model_group_eval(&m->form_curvature.values, e->x, sim->tape_work, e->curvature);
    if (what & EVAL_FORCES) {
        model_group_eval(&m->forces, e->x, sim->tape_work, e->forces);
        model_group_eval(&m->force_jacobian.values, e->x, sim->tape_work, e->force_jac);
    }
}

void sim_add_sparse_block(const model_sparse *sp, const double *values, int row_first, int rows,
                          int col_first, int cols, double scale, linsolve *jac, int r0, int c0)
{
    for (int r = 0; r < rows; r++)
        for (int k = sp->row_start[row_first + r]; k < sp->row_start[row_first + r + 1]; k++) {
            int c = sp->col[k] - col_first;
            if (c >= 0 && c < cols)
                linsolve_add(jac, r0 + r, c0 + c, scale * values[k]);
        }
}

void sim_add_hessian_block(const dirac_sim *sim, const sim_eval *e, int row_first, int rows,
                           int col_first, int cols, double scale, linsolve *jac, int r0, int c0)
{
    sim_add_sparse_block(&sim->model->hessian, e->hessian, row_first, rows, col_first, cols,
                         scale, jac, r0, c0);
}

// Sparse LU pays off from about this many unknowns (bench/: dense LAPACK wins below).
#define SIM_SPARSE_THRESHOLD 64

linsolve *sim_solver(dirac_sim *sim, int slot, int size)
{
    linsolve *ls = &sim->solver[slot];
    if (ls->size == size && (ls->dense || ls->sparse))
        return ls;
    linsolve_free(ls);
    bool sparse = sim->linear_solver == DIRAC_LINEAR_SPARSE ||
                  (sim->linear_solver == DIRAC_LINEAR_AUTO && size >= SIM_SPARSE_THRESHOLD);
    if (linsolve_init(ls, size, sparse, NULL) != DIRAC_OK)
        return NULL;
    return ls;
}

linsolve *sim_dense_solver(dirac_sim *sim, int slot, int size)
{
    linsolve *ls = &sim->solver[slot];
    if (ls->size == size && ls->dense)
        return ls;
    linsolve_free(ls);
    if (linsolve_init(ls, size, false, NULL) != DIRAC_OK)
        return NULL;
    return ls;
}

void sim_velocity_constraint(const dirac_sim *sim, const sim_eval *e, const double *v, double *g)
{
    const model_sparse *f = &sim->model->constraint_forms;
    for (int a = 0; a < sim->mc; a++) {
        double sum = e->rates[a];
        for (int k = f->row_start[a]; k < f->row_start[a + 1]; k++)
            sum += e->forms[k] * v[f->col[k]];
        g[a] = sum;
    }
}

void sim_add_forms_transposed(const dirac_sim *sim, const sim_eval *e, const double *mu,
                              double scale, double *r)
{
    const model_sparse *f = &sim->model->constraint_forms;
    for (int a = 0; a < sim->mc; a++)
        for (int k = f->row_start[a]; k < f->row_start[a + 1]; k++)
            r[f->col[k]] += scale * mu[a] * e->forms[k];
}

void sim_add_position_magnitude(const dirac_sim *sim, const sim_eval *e, const double *q,
                                double scale, double *out)
{
    const model_sparse *f = &sim->model->constraint_forms;
    for (int a = 0; a < sim->mc; a++)
        if (sim->model->constraints[a].kind == DIRAC_CONSTRAINT_HOLONOMIC)
            for (int k = f->row_start[a]; k < f->row_start[a + 1]; k++)
                out[a] += fabs(scale * e->forms[k] * q[f->col[k]]);
}

void sim_entropy_residual(const dirac_sim *sim, const double *temperature,
                          const double *thermal, const double *vbar, const double *s1,
                          double h, double *r)
{
    const dirac_model *m = sim->model;
    const double *conductance = thermal + m->friction_count, *heat_in = conductance + m->heat_count;
    for (int j = 0; j < sim->ns; j++)
        r[j] = temperature[j] * (s1[j] - sim->s[j]) - h * heat_in[j];
    for (int k = 0; k < m->friction_count; k++)
        r[m->friction_entropy[k]] += h * thermal[k] * vbar[m->friction_coord[k]];
    for (int k = 0; k < m->heat_count; k++) {
        int a = m->heat_pair[2 * k], b = m->heat_pair[2 * k + 1];
        r[a] -= h * conductance[k] * (temperature[b] - temperature[a]);
        r[b] -= h * conductance[k] * (temperature[a] - temperature[b]);
    }
}

double sim_thermal_work(const dirac_sim *sim, const double *thermal, const double *dq, double h)
{
    const dirac_model *m = sim->model;
    double work = 0.0;
    for (int k = 0; k < m->friction_count; k++)
        work -= thermal[k] * dq[m->friction_coord[k]];
    for (int j = 0; j < sim->ns; j++)
        work += h * thermal[m->friction_count + m->heat_count + j];
    return work;
}

void sim_update_diagnostics(dirac_sim *sim)
{
    const dirac_model *m = sim->model;
    sim_eval *e = &sim->eval[2];
    sim_evaluate(sim, e, sim->q, sim->v, sim->s, sim->t, sim->mu,
                 EVAL_LAGRANGIAN | EVAL_GRADIENT | EVAL_CONSTRAINTS);
    double energy = -e->lagrangian;
    for (int i = 0; i < sim->n; i++)
        energy += sim->p[i] * sim->v[i];
    sim->energy = energy;
    for (int j = 0; j < sim->ns; j++)
        sim->temperature[j] = -e->gradient[m->first_s + j];
    double position = 0.0, velocity = 0.0;
    double *g = sim->scratch;
    sim_velocity_constraint(sim, e, sim->v, g);
    for (int a = 0; a < sim->mc; a++) {
        if (m->constraints[a].kind == DIRAC_CONSTRAINT_HOLONOMIC && fabs(e->values[a]) > position)
            position = fabs(e->values[a]);
        if (!(fabs(g[a]) <= velocity))
            velocity = fabs(g[a]);
    }
    sim->constraint_residual = position;
    sim->velocity_residual = velocity;
}

void sim_name_coordinate_rows(const dirac_sim *sim, int index, char *buf, size_t size)
{
    const dirac_model *m = sim->model;
    if (index < sim->n)
        snprintf(buf, size, "the momentum balance of %s", m->coord_names[index]);
    else if (index - sim->n < sim->mc)
        snprintf(buf, size, "constraint %s", m->constraints[index - sim->n].name);
    else
        snprintf(buf, size, "equation %d", index + 1);
}

dirac_status sim_fail_newton(dirac_sim *sim, dirac_status status, const char *stage,
                             sim_name_fn name)
{
    char what[160] = "an unknown equation";
    if (sim->nw.worst >= 0)   // -1 when the failure happened before an unknown was singled out
        name(sim, sim->nw.worst, what, sizeof what);
    double t_next = sim->t + sim->h;
    switch (status) {
    case DIRAC_ERR_NEWTON:
        snprintf(sim->errmsg, sizeof sim->errmsg,
                 "step %ld from t = %.17g to %.17g (%s, %s): Newton's method did not converge in "
                 "%d iterations; the largest remaining update is in %s (residual %.3e); try a "
                 "smaller --dt",
                 sim->steps + 1, sim->t, t_next, sim->method->info.name, stage,
                 sim->nw.iterations, what, sim->nw.worst_value);
        break;
    case DIRAC_ERR_SINGULAR:
        snprintf(sim->errmsg, sizeof sim->errmsg,
                 "step %ld from t = %.17g to %.17g (%s, %s): singular Jacobian (no pivot for the "
                 "unknown of %s): the equations do not determine the state (degenerate "
                 "Lagrangian or dependent constraints?)",
                 sim->steps + 1, sim->t, t_next, sim->method->info.name, stage, what);
        break;
    case DIRAC_ERR_NOT_FINITE:
        snprintf(sim->errmsg, sizeof sim->errmsg,
                 "step %ld from t = %.17g to %.17g (%s, %s): non-finite value in %s",
                 sim->steps + 1, sim->t, t_next, sim->method->info.name, stage, what);
        break;
    default:   // out of memory (the sparse solver's first factorization), LAPACK failures
        snprintf(sim->errmsg, sizeof sim->errmsg, "step %ld from t = %.17g to %.17g (%s, %s): %s",
                 sim->steps + 1, sim->t, t_next, sim->method->info.name, stage,
                 dirac_status_string(status));
        break;
    }
    return status;
}

int sim_degenerate_coordinate(dirac_sim *sim)
{
    int n = sim->n;
    if (n == 0)
        return -1;
    sim_eval *e = &sim->eval[0];
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

// The method `auto` runs (docs/methods.md, "Choosing a method"): dgrad for thermodynamic models
// (exact discrete first law, entropy production >= 0 at every step) and for degenerate
// Lagrangians (circuits in branch charges, L linear in velocities: it needs no Legendre map at
// the nodes); midpoint for everything else (regular L, with holonomic or nonholonomic
// constraints: both levels kept, symplectic, no parasitic modes). *reason says why.
static const sim_method *auto_method(dirac_sim *sim, const char **reason, dirac_error *err,
                                     dirac_status *status)
{
    *status = DIRAC_OK;
    if (sim->ns > 0) {
        *reason = "entropy variables";
        return &sim_method_dgrad;
    }
    int degenerate = sim_degenerate_coordinate(sim);
    if (degenerate == -2) {
        *status = error_set(err, DIRAC_ERR_NOMEM, "out of memory");
        return NULL;
    }
    if (degenerate >= 0) {
        *reason = "degenerate Lagrangian";
        return &sim_method_dgrad;
    }
    int nonholonomic = 0, holonomic = 0;
    for (int a = 0; a < sim->mc; a++) {
        if (sim->model->constraints[a].kind == DIRAC_CONSTRAINT_HOLONOMIC)
            holonomic = 1;
        else
            nonholonomic = 1;
    }
    *reason = nonholonomic ? "regular Lagrangian, nonholonomic constraints"
              : holonomic  ? "regular Lagrangian, holonomic constraints"
                           : "regular Lagrangian";
    return &sim_method_midpoint;
}

// ---- creation ----------------------------------------------------------------------------

static dirac_status eval_alloc(sim_eval *e, const dirac_model *m)
{
    size_t sizes[] = { (size_t)m->n_inputs, (size_t)m->gradient.count,
                       (size_t)m->hessian.nnz, (size_t)m->m,
                       (size_t)m->constraint_forms.nnz, (size_t)m->m,
                       (size_t)m->constraint_jacobian.nnz, (size_t)m->form_curvature.nnz,
                       (size_t)m->n, (size_t)m->force_jacobian.nnz };
    double **fields[] = { &e->x, &e->gradient, &e->hessian, &e->values, &e->forms, &e->rates,
                          &e->constraint_jac, &e->curvature, &e->forces, &e->force_jac };
    for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++)
        if (!(*fields[k] = calloc(sizes[k] + 1, sizeof(double))))
            return DIRAC_ERR_NOMEM;
    return DIRAC_OK;
}

static void eval_free(sim_eval *e)
{
    free(e->x);
    free(e->gradient);
    free(e->hessian);
    free(e->values);
    free(e->forms);
    free(e->rates);
    free(e->constraint_jac);
    free(e->curvature);
    free(e->forces);
    free(e->force_jac);
}

void dirac_sim_destroy(dirac_sim *sim)
{
    if (!sim)
        return;
    double *arrays[] = { sim->q, sim->v, sim->p, sim->mu, sim->s, sim->temperature, sim->tape_work,
                         sim->z, sim->scratch, sim->q_old, sim->q_older, sim->p_half, sim->dq_last,
                         sim->wedge_values, sim->thermal_values, sim->avf_forms,
                         sim->avf_rates, sim->backup, sim->trial,
                         sim->trial_start };
    for (size_t k = 0; k < sizeof arrays / sizeof arrays[0]; k++)
        free(arrays[k]);
    free(sim->block);
    free(sim->constrained);
    for (int k = 0; k < SIM_SOLVER_SLOTS; k++)
        linsolve_free(&sim->solver[k]);
    for (int k = 0; k < 3; k++)
        eval_free(&sim->eval[k]);
    newton_free(&sim->nw);
    sim_degenerate_free(&sim->degenerate);
    run_quality_free(&sim->quality);
    free(sim);
}

// Solves the minimum-norm correction δ = Aᵀ y, (A Aᵀ) y = r for the rows of A (dense,
// rows x n, column-major) — used only by the initial projection (allocates).
static dirac_status min_norm_correction(int rows, int n, const double *a, const double *r,
                                        double *delta, dirac_error *err)
{
    double *aat = calloc((size_t)rows * (size_t)rows + 1, sizeof *aat);
    double *y = malloc(((size_t)rows + 1) * sizeof *y);
    lapack_int *piv = malloc(((size_t)rows + 1) * sizeof *piv);
    dirac_status status = DIRAC_OK;
    if (!aat || !y || !piv)
        status = error_set(err, DIRAC_ERR_NOMEM, "out of memory");
    if (status == DIRAC_OK) {
        for (int i = 0; i < rows; i++)
            for (int j = 0; j < rows; j++)
                for (int k = 0; k < n; k++)
                    aat[(size_t)j * (size_t)rows + (size_t)i] +=
                        a[(size_t)k * (size_t)rows + (size_t)i] * a[(size_t)k * (size_t)rows + (size_t)j];
        memcpy(y, r, (size_t)rows * sizeof *y);
        if (LAPACKE_dgesv(LAPACK_COL_MAJOR, rows, 1, aat, rows, piv, y, rows) != 0)
            status = error_set(err, DIRAC_ERR_SINGULAR,
                               "cannot project the initial state: the constraint forms are "
                               "linearly dependent there");
    }
    if (status == DIRAC_OK)
        for (int k = 0; k < n; k++) {
            delta[k] = 0.0;
            for (int i = 0; i < rows; i++)
                delta[k] += a[(size_t)k * (size_t)rows + (size_t)i] * y[i];
        }
    free(aat);
    free(y);
    free(piv);
    return status;
}

// Dense ω (rows of the selected constraints) at e into a (rows x n, column-major), with the
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
                a[(size_t)f->col[k] * (size_t)rows + (size_t)row] = e->forms[k];
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

// Checks the initial state against every constraint; projects it when asked.
static dirac_status initial_consistency(dirac_sim *sim, int project, dirac_error *err)
{
    const dirac_model *m = sim->model;
    int n = sim->n, mc = sim->mc;
    if (mc == 0)
        return DIRAC_OK;
    sim_eval *e = &sim->eval[0];
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
                               "the initial values or use --project-initial",
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
                                       "--project-initial",
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

// DIRAC_ERR_NOT_FINITE when the model is not defined at the current state (a NaN momentum
// from sqrt(x) at x < 0, a NaN constraint): refused before the first step.
static dirac_status check_defined(dirac_sim *sim, const char *which, dirac_error *err)
{
    const dirac_model *m = sim->model;
    double *x = sim->eval[0].x;
    memset(x, 0, (size_t)m->n_inputs * sizeof *x);
    memcpy(x, sim->q, (size_t)sim->n * sizeof *x);
    memcpy(x + m->first_v, sim->v, (size_t)sim->n * sizeof *x);
    memcpy(x + m->first_s, sim->s, (size_t)sim->ns * sizeof *x);
    x[m->index_t] = sim->t;
    dirac_error undefined;
    dirac_status status = model_check_defined(m, x, &undefined);
    if (status != DIRAC_OK)
        return error_set(err, status, "the model is not defined at its %s (t = %g): %s", which,
                         sim->t, undefined.message);
    return DIRAC_OK;
}

// Every option is checked before use: non-finite or negative values are refused, not replaced.
static dirac_status check_options(const dirac_sim_options *o, dirac_error *err)
{
    if (!o)
        return error_set(err, DIRAC_ERR_ARGUMENT, "the simulation options are NULL (the step dt "
                         "is required)");
    if (!(o->dt > 0.0) || !isfinite(o->dt))
        return error_set(err, DIRAC_ERR_ARGUMENT, "the step dt must be a positive number (got %g)",
                         o->dt);
    if (!isfinite(o->t0))
        return error_set(err, DIRAC_ERR_ARGUMENT, "the initial time t0 must be finite (got %g)",
                         o->t0);
    if (!(o->newton_rtol >= 0.0) || !isfinite(o->newton_rtol))
        return error_set(err, DIRAC_ERR_ARGUMENT, "the Newton tolerance must be a positive "
                         "number or 0 for the default (got %g)", o->newton_rtol);
    if (o->newton_max_iterations < 0)
        return error_set(err, DIRAC_ERR_ARGUMENT, "the Newton iteration limit must be positive "
                         "or 0 for the default (got %d)", o->newton_max_iterations);
    if (o->linear_solver != DIRAC_LINEAR_AUTO && o->linear_solver != DIRAC_LINEAR_DENSE &&
        o->linear_solver != DIRAC_LINEAR_SPARSE)
        return error_set(err, DIRAC_ERR_ARGUMENT, "unknown linear solver %d",
                         (int)o->linear_solver);
    if (!(o->adaptive_rtol >= 0.0) || !isfinite(o->adaptive_rtol) || !(o->adaptive_atol >= 0.0) ||
        !isfinite(o->adaptive_atol))
        return error_set(err, DIRAC_ERR_ARGUMENT, "the adaptive tolerances must be non-negative "
                         "numbers (got rtol %g, atol %g)", o->adaptive_rtol, o->adaptive_atol);
    return DIRAC_OK;
}

static void update_block_scales(dirac_sim *sim);

dirac_status sim_create(const dirac_model *model, const dirac_sim_options *options,
                        dirac_sim **out, dirac_error *err)
{
    if (!out)
        return error_set(err, DIRAC_ERR_ARGUMENT, "dirac_sim_create: out is NULL");
    *out = NULL;
    if (!model)
        return error_set(err, DIRAC_ERR_ARGUMENT, "dirac_sim_create: the model is NULL");
    dirac_status valid = check_options(options, err);
    if (valid != DIRAC_OK)
        return valid;
    const char *name = options->method ? options->method : "auto";
    bool automatic = !strcmp(name, "auto");
    const sim_method *method = automatic ? &sim_method_midpoint : NULL;   // chosen below
    for (int i = 0; i < METHOD_COUNT; i++)
        if (!strcmp(methods[i]->info.name, name))
            method = methods[i];
    if (!method) {
        char list[256] = "";
        for (int i = 0; i < METHOD_COUNT; i++)
            snprintf(list + strlen(list), sizeof list - strlen(list), "%s%s", i ? ", " : "",
                     methods[i]->info.name);
        return error_set(err, DIRAC_ERR_ARGUMENT, "unknown method '%s' (methods: auto, %s)", name,
                         list);
    }
    double h = options->dt;
    double rtol = options->adaptive_rtol;
    if (rtol > 0.0 && rtol < 1e-13)
        return error_set(err, DIRAC_ERR_ARGUMENT,
                         "rtol = %g is below what double precision resolves in an error "
                         "estimate (at least 1e-13)", rtol);
    dirac_sim *sim = calloc(1, sizeof *sim);
    if (!sim)
        return error_set(err, DIRAC_ERR_NOMEM, "out of memory");
    sim->model = model;
    sim->method = method;
    sim->n = model->n;
    sim->ns = model->ns;
    sim->mc = model->m;
    sim->h = h;
    sim->t0 = sim->t = options->t0;
    sim->rtol = options->newton_rtol > 0.0 ? options->newton_rtol : 1e-10;
    sim->max_iterations = options->newton_max_iterations > 0 ? options->newton_max_iterations : 25;
    sim->linear_solver = options->linear_solver;
    sim->adaptive = options->adaptive_rtol > 0.0 || options->adaptive_atol > 0.0;
    sim->adaptive_rtol = options->adaptive_rtol > 0.0 ? options->adaptive_rtol : 0.0;
    sim->adaptive_atol = options->adaptive_atol > 0.0 ? options->adaptive_atol : 0.0;
    sim->h_next = sim->h_last = h;
    // the error estimates must not see Newton's stopping error: unless --tol was given, solve
    // three digits below the step tolerance (at most 1e-10, at least 1e-14)
    if (sim->adaptive && !(options->newton_rtol > 0.0) && rtol > 0.0)
        sim->rtol = fmax(1e-14, fmin(sim->rtol, 1e-3 * rtol));
    sim->method_requested = automatic ? "auto" : method->info.name;
    if (automatic && model->ns > 0)
        method = sim->method = &sim_method_dgrad;   // thermodynamic: settled before the checks
    if (sim->adaptive && method == &sim_method_dirac2) {
        free(sim);
        return error_set(err, DIRAC_ERR_UNSUPPORTED,
                         "method 'dirac2' is a two-step method: adaptive step sizes need a "
                         "one-step method (midpoint, dgrad, dirac1, lobatto3, lobatto4, rk4, "
                         "euler)");
    }
    size_t n = (size_t)sim->n, nm = (size_t)(sim->n + sim->mc), ns = (size_t)sim->ns;
    size_t unknowns = 3 * n + ns + 2 * (size_t)sim->mc + 1;
    // lobatto4: 4 stages (4 n + 3 m unknowns), the end system (n + m) and the last stages
    // kept for the next step's guess (1 + 4 n + 3 m)
    if (unknowns < 9 * n + 7 * (size_t)sim->mc + 2)
        unknowns = 9 * n + 7 * (size_t)sim->mc + 2;
    sim->q = calloc(n + 1, sizeof(double));
    sim->v = calloc(n + 1, sizeof(double));
    sim->p = calloc(n + 1, sizeof(double));
    sim->mu = calloc((size_t)sim->mc + 1, sizeof(double));
    sim->s = calloc(ns + 1, sizeof(double));
    sim->temperature = calloc(ns + 1, sizeof(double));
    sim->tape_work = calloc((size_t)model->work_size + 1, sizeof(double));
    sim->z = calloc(unknowns, sizeof(double));
    sim->z_size = unknowns;
    sim->block = calloc(unknowns, sizeof(int));
    size_t d = 2 * n + ns + 1;
    sim->scratch_size = 8 * nm + 6 * d + 2 * ((size_t)sim->mc + n + ns) + 8;
    sim->scratch = calloc(sim->scratch_size, sizeof(double));
    sim->q_old = calloc(n + 1, sizeof(double));
    sim->q_older = calloc(n + 1, sizeof(double));
    sim->p_half = calloc(n + 1, sizeof(double));
    sim->dq_last = calloc(n + 1, sizeof(double));
    sim->wedge_values = calloc((size_t)model->wedge_count + 1, sizeof(double));
    sim->thermal_values = calloc((size_t)model->thermal.count + 1, sizeof(double));
    sim->avf_forms = calloc((size_t)model->constraint_forms.nnz + 1, sizeof(double));
    sim->avf_rates = calloc((size_t)model->m + 1, sizeof(double));
    sim->backup = calloc(5 * n + (size_t)model->m + ns + 1, sizeof(double));
    sim->trial = calloc(3 * n + ns + 1, sizeof(double));
    sim->trial_start = calloc(3 * n + ns + 1, sizeof(double));
    sim->constrained = calloc(n + 1, 1);
    dirac_status status = DIRAC_OK;
    if (!sim->q || !sim->v || !sim->p || !sim->mu || !sim->s || !sim->temperature || !sim->tape_work ||
        !sim->z || !sim->block || !sim->scratch || !sim->q_old ||
        !sim->q_older || !sim->p_half || !sim->dq_last || !sim->wedge_values ||
        !sim->thermal_values || !sim->avf_forms || !sim->avf_rates || !sim->backup ||
        !sim->trial || !sim->trial_start || !sim->constrained)
        status = error_set(err, DIRAC_ERR_NOMEM, "out of memory");
    for (int k = 0; status == DIRAC_OK && k < 3; k++)
        if (eval_alloc(&sim->eval[k], model) != DIRAC_OK)
            status = error_set(err, DIRAC_ERR_NOMEM, "out of memory");
        else   // the inputs live in every evaluation point's x (sim_input.c)
            model_set_default_inputs(model, sim->eval[k].x);
    if (status == DIRAC_OK)
        status = newton_init(&sim->nw, (int)unknowns, err);
    if (status == DIRAC_OK && (method == &sim_method_midpoint || method == &sim_method_dirac2) &&
        sim_degenerate_init(sim) != DIRAC_OK)
        status = error_set(err, DIRAC_ERR_NOMEM, "out of memory");
    int thermal = model->friction_count > 0 || model->heat_count > 0;
    for (int j = 0; j < model->ns; j++)
        if (expr_kind_of(model->pool, model->heat_input[j]) != EXPR_CONST ||
            expr_const_value(model->pool, model->heat_input[j]) != 0.0)
            thermal = 1;
    if (status == DIRAC_OK && thermal && !method->thermodynamic)
        status = error_set(err, DIRAC_ERR_UNSUPPORTED,
                           "model '%s' has friction heating or heat exchange: method '%s' does not "
                           "integrate entropy; use dgrad", model->name, method->info.name);
    if (status == DIRAC_OK) {
        dirac_model_initial_state(model, sim->q, sim->v, sim->s);
        status = check_defined(sim, "initial state", err);
    }
    if (status == DIRAC_OK)
        status = initial_consistency(sim, options->project_initial, err);
    if (status == DIRAC_OK && options->project_initial)
        status = check_defined(sim, "projected initial state", err);
    if (status == DIRAC_OK) {
        // p0 = ∂L/∂v(q0, v0)
        sim_eval *e = &sim->eval[0];
        sim_evaluate(sim, e, sim->q, sim->v, sim->s, sim->t, NULL, EVAL_GRADIENT);
        memcpy(sim->p, e->gradient + model->first_v, n * sizeof(double));
        // initial multipliers from the index-reduced equations, where they exist
        double *a = sim->scratch, *mu = a + n, power;
        dirac_status solved = sim->mc > 0 ? sim_acceleration(sim, sim->q, sim->v, sim->t, a, mu,
                                                             &power)
                                           : DIRAC_ERR_UNSUPPORTED;
        if (solved == DIRAC_OK)
            memcpy(sim->mu, mu, (size_t)sim->mc * sizeof *sim->mu);
        else if (solved == DIRAC_ERR_NOMEM)   // a singular system only leaves μ0 = 0
            status = error_set(err, DIRAC_ERR_NOMEM, "out of memory creating the simulation");
        const model_sparse *forms = &model->constraint_forms;
        for (int k = 0; k < forms->nnz; k++)
            sim->constrained[forms->col[k]] = 1;
        update_block_scales(sim);
        if (automatic && status == DIRAC_OK) {
            const sim_method *chosen = auto_method(sim, &sim->auto_reason, err, &status);
            if (chosen)
                method = sim->method = chosen;
        }
        sim_update_diagnostics(sim);
        sim->energy0 = sim->energy;
        for (int j = 0; j < sim->ns; j++)
            if (!(sim->temperature[j] > 0.0))
                status = error_set(err, DIRAC_ERR_ARGUMENT,
                                   "the initial temperature of entropy variable '%s' is %g: "
                                   "temperatures -dL/dS must be positive",
                                   model->entropy_names[j], sim->temperature[j]);
    }
    if (status == DIRAC_OK)
        status = run_quality_start(sim, err);
    if (status == DIRAC_OK && method->check) {
        dirac_status checked = method->check(sim);
        if (checked != DIRAC_OK)
            status = error_set(err, checked == DIRAC_ERR_NOMEM ? checked : DIRAC_ERR_UNSUPPORTED,
                               "%s", checked == DIRAC_ERR_NOMEM && !sim->errmsg[0]
                                         ? "out of memory creating the simulation"
                                         : sim->errmsg);
    }
    if (status != DIRAC_OK) {
        dirac_sim_destroy(sim);
        return status;
    }
    *out = sim;
    return DIRAC_OK;
}

// The state a failed step returns to: the last good node.
static void save_state(dirac_sim *sim)
{
    size_t n = (size_t)sim->n;
    double *b = sim->backup;
    memcpy(b, sim->q, n * sizeof *b);
    memcpy(b + n, sim->v, n * sizeof *b);
    memcpy(b + 2 * n, sim->p, n * sizeof *b);
    memcpy(b + 3 * n, sim->mu, (size_t)sim->mc * sizeof *b);
    memcpy(b + 3 * n + (size_t)sim->mc, sim->s, (size_t)sim->ns * sizeof *b);
    memcpy(b + 3 * n + (size_t)(sim->mc + sim->ns), sim->q_old, n * sizeof *b);
    memcpy(b + 4 * n + (size_t)(sim->mc + sim->ns), sim->dq_last, n * sizeof *b);
    sim->backup_work = sim->work;
}

static void restore_state(dirac_sim *sim)
{
    size_t n = (size_t)sim->n;
    const double *b = sim->backup;
    memcpy(sim->q, b, n * sizeof *b);
    memcpy(sim->v, b + n, n * sizeof *b);
    memcpy(sim->p, b + 2 * n, n * sizeof *b);
    memcpy(sim->mu, b + 3 * n, (size_t)sim->mc * sizeof *b);
    memcpy(sim->s, b + 3 * n + (size_t)sim->mc, (size_t)sim->ns * sizeof *b);
    memcpy(sim->q_old, b + 3 * n + (size_t)(sim->mc + sim->ns), n * sizeof *b);
    memcpy(sim->dq_last, b + 4 * n + (size_t)(sim->mc + sim->ns), n * sizeof *b);
    sim->work = sim->backup_work;
    sim_update_diagnostics(sim);
}

static int state_finite(const dirac_sim *sim, const char **what, int *index)
{
    const double *arrays[] = { sim->q, sim->v, sim->p, sim->mu, sim->s };
    const int counts[] = { sim->n, sim->n, sim->n, sim->mc, sim->ns };
    static const char *const names[] = { "coordinate", "velocity", "momentum", "multiplier",
                                         "entropy" };
    for (int k = 0; k < 5; k++)
        for (int i = 0; i < counts[k]; i++)
            if (!isfinite(arrays[k][i])) {
                *what = names[k];
                *index = i;
                return 0;
            }
    *what = "energy";
    *index = 0;
    return isfinite(sim->energy);
}

// Checks the state after a step; formats the message and returns DIRAC_ERR_NOT_FINITE if some
// value is not finite.
static dirac_status check_finite(dirac_sim *sim, double t_before, double t_after)
{
    const char *what = NULL;
    int index = 0;
    if (state_finite(sim, &what, &index))
        return DIRAC_OK;
    const dirac_model *m = sim->model;
    const char *name = !strcmp(what, "multiplier") ? m->constraints[index].name
                       : !strcmp(what, "entropy")  ? m->entropy_names[index]
                       : !strcmp(what, "energy")   ? "E"
                                                   : m->coord_names[index];
    snprintf(sim->errmsg, sizeof sim->errmsg,
             "step %ld from t = %.17g to %.17g (%s): the state became non-finite (%s of %s); "
             "the state stays at the last good step (t = %.17g)",
             sim->steps + 1, t_before, t_after, sim->method->info.name, what, name, t_before);
    return DIRAC_ERR_NOT_FINITE;
}

// One step of size sim->h from sim->t (the caller saved the state); on success the time is
// t_after and the node's diagnostics are up to date, on failure the time is unchanged.
static dirac_status raw_step(dirac_sim *sim, double t_after)
{
    double t_before = sim->t;
    dirac_status status = sim->method->step(sim);
    if (status == DIRAC_OK) {
        sim->t = t_after;
        sim_update_diagnostics(sim);
        status = check_finite(sim, t_before, t_after);
        if (status == DIRAC_OK)
            status = run_quality_check_outputs(sim);
        if (status != DIRAC_OK)
            sim->t = t_before;
    }
    return status;
}

// ---- adaptive step size ------------------------------------------------------------------
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
// with δ the embedded estimate (in sim->trial) or, for step doubling, the difference of the
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
        const double *x = state_block(sim, b), *x0 = sim->trial_start + offset;
        double size = sim->block_scale[b];
        for (int i = 0; i < block_size(sim, b); i++)
            size = fmax(size, fmax(fabs(x[i]), fabs(x0[i])));
        double atol = sim->adaptive_atol > 0.0 ? sim->adaptive_atol : sim->adaptive_rtol * size;
        for (int i = 0; i < block_size(sim, b); i++) {
            if (!estimated(sim, b, i))
                continue;
            double delta = doubling ? x[i] - sim->trial[offset + i] : sim->trial[offset + i];
            double scale = atol + sim->adaptive_rtol * fmax(fabs(x[i]), fabs(x0[i]));
            double e = fabs(delta) * richardson / (scale > 0.0 ? scale : DBL_MIN);
            if (!(e <= error))
                error = e;   // NaN propagates
        }
    }
    return error;
}

static void update_block_scales(dirac_sim *sim)
{
    for (int b = 0; b < 4; b++) {
        const double *x = state_block(sim, b);
        for (int i = 0; i < block_size(sim, b); i++)
            sim->block_scale[b] = fmax(sim->block_scale[b], fabs(x[i]));
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
                           sim->steps + 1, t, sim->method->info.name, why, h, sim->adaptive_rtol,
                           sim->adaptive_atol);
    if (!(sim->adaptive_atol > 0.0) && written > 0 && (size_t)written < sizeof sim->errmsg)
        written += snprintf(sim->errmsg + written, sizeof sim->errmsg - (size_t)written,
                            "; with rtol alone a quantity that starts at zero has no scale: "
                            "give an absolute tolerance (--atol)");
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
static dirac_status adaptive_step(dirac_sim *sim)
{
    const sim_method *m = sim->method;
    bool doubling = m->estimate_order == 0;
    int order = doubling ? m->info.order : m->estimate_order;
    double t_start = sim->t, h = sim->h_next, wanted = h;
    double h_floor = 8.0 * DBL_EPSILON * fmax(fabs(t_start), fabs(sim->t0) + sim->h);
    // land on the next breakpoint in time rather than step over it (model_breakpoints.c)
    double next = model_next_breakpoint(sim->model, t_start + 1e-12 * (1.0 + fabs(t_start)));
    bool clipped = false;
    copy_state(sim, sim->trial_start);
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
        dirac_status status = raw_step(sim, t_start + h);
        if (status == DIRAC_OK && doubling) {
            copy_state(sim, sim->trial);
            sim->t = t_start;
            restore_state(sim);
            sim->h = 0.5 * h;
            status = raw_step(sim, t_start + 0.5 * h);
            if (status == DIRAC_OK)
                status = raw_step(sim, t_start + h);
        }
        double error = status == DIRAC_OK ? step_error(sim, doubling) : HUGE_VAL;
        // h_new = h · clamp(0.9 error^(−1/(k+1)), 0.2, 4)
        double factor = error > 0.0 ? 0.9 * pow(error, -1.0 / (order + 1)) : 4.0;
        factor = !(factor >= 0.2) ? 0.2 : factor > 4.0 ? 4.0 : factor;
        if (status == DIRAC_OK && error <= 1.0) {
            sim->h_last = h;
            sim->h_next = h * factor;
            if (clipped && sim->h_next < wanted)
                sim->h_next = wanted;   // the breakpoint, not the error, shortened this step
            sim->h = h;
            sim->errmsg[0] = '\0';
            update_block_scales(sim);
            return DIRAC_OK;
        }
        sim->t = t_start;
        restore_state(sim);
        sim->rejected++;
        h *= status == DIRAC_OK ? factor : 0.25;
    }
    return step_size_failure(sim, t_start, h, "30 trial steps in a row were rejected");
}

dirac_status dirac_sim_step(dirac_sim *sim)
{
    if (!sim)
        return DIRAC_ERR_ARGUMENT;
    sim->errmsg[0] = '\0';
    save_state(sim);
    dirac_status status;
    if (sim->adaptive) {
        status = adaptive_step(sim);
    } else {
        status = raw_step(sim, sim->t0 + (double)(sim->steps + 1) * sim->h);
    }
    if (status != DIRAC_OK) {
        restore_state(sim);
        return status;
    }
    sim->steps++;
    run_quality_observe(sim);
    return DIRAC_OK;
}

// Queries of a NULL simulation return NaN (values), -1 (counts), NULL (arrays), and a message.
double dirac_sim_next_step_size(const dirac_sim *sim)
{
    return !sim ? (double)NAN : sim->adaptive ? sim->h_next : sim->h;
}
double dirac_sim_last_step_size(const dirac_sim *sim) { return sim ? sim->h_last : (double)NAN; }
long dirac_sim_rejected_steps(const dirac_sim *sim) { return sim ? sim->rejected : -1; }

dirac_status dirac_sim_set_next_step_size(dirac_sim *sim, double h)
{
    if (!sim || !sim->adaptive || !(h > 0.0) || !isfinite(h))
        return DIRAC_ERR_ARGUMENT;
    sim->h_next = h;
    return DIRAC_OK;
}

const char *dirac_sim_errmsg(const dirac_sim *sim)
{
    return sim ? sim->errmsg : "invalid argument: the simulation is NULL";
}
double dirac_sim_time(const dirac_sim *sim) { return sim ? sim->t : (double)NAN; }
long dirac_sim_step_count(const dirac_sim *sim) { return sim ? sim->steps : -1; }
const double *dirac_sim_q(const dirac_sim *sim) { return sim ? sim->q : NULL; }
const double *dirac_sim_v(const dirac_sim *sim) { return sim ? sim->v : NULL; }
const double *dirac_sim_p(const dirac_sim *sim) { return sim ? sim->p : NULL; }
const double *dirac_sim_mu(const dirac_sim *sim) { return sim ? sim->mu : NULL; }
const double *dirac_sim_s(const dirac_sim *sim) { return sim ? sim->s : NULL; }
const double *dirac_sim_temperature(const dirac_sim *sim) { return sim ? sim->temperature : NULL; }
double dirac_sim_energy(const dirac_sim *sim) { return sim ? sim->energy : (double)NAN; }
double dirac_sim_work(const dirac_sim *sim) { return sim ? sim->work : (double)NAN; }
double dirac_sim_constraint_residual(const dirac_sim *sim)
{
    return sim ? sim->constraint_residual : (double)NAN;
}
double dirac_sim_velocity_constraint_residual(const dirac_sim *sim)
{
    return sim ? sim->velocity_residual : (double)NAN;
}
int dirac_sim_newton_iterations(const dirac_sim *sim) { return sim ? sim->newton_iterations : -1; }
double dirac_sim_projection_distance(const dirac_sim *sim)
{
    return sim ? sim->projection_distance : (double)NAN;
}
const char *dirac_sim_method(const dirac_sim *sim) { return sim ? sim->method->info.name : NULL; }
const char *dirac_sim_method_requested(const dirac_sim *sim)
{
    return sim ? sim->method_requested : NULL;
}
const char *dirac_sim_method_reason(const dirac_sim *sim) { return sim ? sim->auto_reason : NULL; }

void dirac_sim_interaction_force(const dirac_sim *sim, int k, double *force, double *power)
{
    if (!sim || !force || !power) {   // fill what can be filled
        if (power)
            *power = NAN;
        return;
    }
    const dirac_model *m = sim->model;
    int n = sim->n;
    memset(force, 0, (size_t)n * sizeof *force);
    *power = 0.0;
    if (k < 0 || k >= m->interaction_count)
        return;
    dirac_sim *mutable_sim = (dirac_sim *)sim;   // scratch buffers only; the state is unchanged
    sim_eval *e = &mutable_sim->eval[2];
    sim_evaluate(mutable_sim, e, sim->q, sim->v, sim->s, sim->t, sim->mu, EVAL_CONSTRAINTS);
    int index = m->interaction_index[k];
    if (m->interaction_kind[k] == 0) {
        // F = μ_a ω^a
        const model_sparse *f = &m->constraint_forms;
        for (int j = f->row_start[index]; j < f->row_start[index + 1]; j++)
            force[f->col[j]] += sim->mu[index] * e->forms[j];
    } else {
        // F = B(v, ·): F_b += c v_a, F_a −= c v_b for the wedges of two-form `index`
        double *c = mutable_sim->wedge_values;
        model_group_eval(&m->wedge_coefficients, e->x, mutable_sim->tape_work, c);
        for (int w = 0; w < m->wedge_count; w++) {
            if (m->wedges[w].twoform != index)
                continue;
            int a = m->wedges[w].a, b = m->wedges[w].b;
            force[b] += c[w] * sim->v[a];
            force[a] -= c[w] * sim->v[b];
        }
    }
    for (int i = 0; i < n; i++)
        *power += force[i] * sim->v[i];
}

void dirac_sim_outputs(const dirac_sim *sim, double *values)
{
    if (!sim || !values)
        return;
    const dirac_model *m = sim->model;
    if (m->output_count == 0)
        return;
    dirac_sim *mutable_sim = (dirac_sim *)sim;   // scratch buffers only; the state is unchanged
    sim_eval *e = &mutable_sim->eval[2];
    sim_evaluate(mutable_sim, e, sim->q, sim->v, sim->s, sim->t, sim->mu, 0);
    model_group_eval(&m->outputs, e->x, mutable_sim->tape_work, values);
}
