// Accessors of a compiled model (sizes, names, initial state) and its analysis at the initial
// state: ranks of ω and ∂²L/∂v², Frobenius integrability, residuals, energy (`dirac check`).
#include "model.h"

#include "error.h"
#include "linalg_dense.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

const char *dirac_model_name(const dirac_model *m) { return m->name; }
int dirac_model_coordinate_count(const dirac_model *m) { return m->n; }
int dirac_model_entropy_count(const dirac_model *m) { return m->ns; }
int dirac_model_constraint_count(const dirac_model *m) { return m->m; }
int dirac_model_component_count(const dirac_model *m) { return m->component_count; }
int dirac_model_output_count(const dirac_model *m) { return m->output_count; }

const char *dirac_model_coordinate_name(const dirac_model *m, int i)
{
    return i >= 0 && i < m->n ? m->coord_names[i] : NULL;
}

const char *dirac_model_entropy_name(const dirac_model *m, int i)
{
    return i >= 0 && i < m->ns ? m->entropy_names[i] : NULL;
}

const char *dirac_model_constraint_name(const dirac_model *m, int a)
{
    return a >= 0 && a < m->m ? m->constraints[a].name : NULL;
}

const char *dirac_model_output_name(const dirac_model *m, int k)
{
    return k >= 0 && k < m->output_count ? m->output_names[k] : NULL;
}

dirac_constraint_kind dirac_model_constraint_kind(const dirac_model *m, int a)
{
    return m->constraints[a].kind;
}

int dirac_model_constraint_is_time_dependent(const dirac_model *m, int a)
{
    return m->constraints[a].time_dependent;
}

void dirac_model_simulate_defaults(const dirac_model *m, dirac_simulate_defaults *out)
{
    out->method = m->has_method ? m->method : NULL;
    out->dt = m->dt;
    out->t_end = m->t_end;
    out->every = m->every;
    out->has_method = m->has_method;
    out->has_dt = m->has_dt;
    out->has_t_end = m->has_t_end;
    out->has_every = m->has_every;
}

void dirac_model_initial_state(const dirac_model *m, double *q, double *v, double *s)
{
    if (q)
        memcpy(q, m->q0, (size_t)m->n * sizeof *q);
    if (v)
        memcpy(v, m->v0, (size_t)m->n * sizeof *v);
    if (s)
        memcpy(s, m->s0, (size_t)m->ns * sizeof *s);
}

// Scatters the values of a sparse matrix into a dense column-major rows x cols array.
static void sparse_to_dense(const model_sparse *sp, const double *values, int first_row,
                            int first_col, int rows, int cols, double *dense)
{
    memset(dense, 0, (size_t)rows * (size_t)cols * sizeof *dense);
    for (int r = 0; r < rows; r++)
        for (int k = sp->row_start[first_row + r]; k < sp->row_start[first_row + r + 1]; k++) {
            int c = sp->col[k] - first_col;
            if (c >= 0 && c < cols)
                dense[(size_t)c * (size_t)rows + (size_t)r] = values[k];
        }
}

static int rank_of(int rows, int cols, const double *a, dirac_error *err, dirac_status *status)
{
    double *range = NULL;
    int rank = 0;
    *status = linalg_range(rows, cols, a, &range, &rank, NULL, err);
    free(range);
    return rank;
}

void dirac_model_analysis_free(dirac_model_analysis *a)
{
    if (!a)
        return;
    free(a->integrability_defect);
    free(a->integrable);
    free(a->residual);
    free(a->velocity_residual);
    memset(a, 0, sizeof *a);
}

dirac_status dirac_model_analyze(const dirac_model *m, dirac_model_analysis *out,
                                 dirac_error *err)
{
    memset(out, 0, sizeof *out);
    int n = m->n, mc = m->m;
    size_t nn = (size_t)n * (size_t)n + 1, mn = (size_t)mc * (size_t)n + 1;
    size_t nvals = (size_t)(m->hessian.nnz + m->constraint_forms.nnz + m->form_curvature.nnz) +
                   (size_t)(2 * n + m->ns + 1) + 4 * (size_t)mc + 1;
    double *x = calloc((size_t)m->n_inputs + 1, sizeof *x);
    double *work = calloc((size_t)m->work_size + 1, sizeof *work);
    double *vals = calloc(nvals, sizeof *vals);
    double *dense = calloc(nn > mn ? nn : mn, sizeof *dense);
    double *curv = calloc(nn, sizeof *curv);
    out->integrability_defect = calloc((size_t)mc + 1, sizeof *out->integrability_defect);
    out->integrable = calloc((size_t)mc + 1, sizeof *out->integrable);
    out->residual = calloc((size_t)mc + 1, sizeof *out->residual);
    out->velocity_residual = calloc((size_t)mc + 1, sizeof *out->velocity_residual);
    dirac_status status = DIRAC_OK;
    if (!x || !work || !vals || !dense || !curv || !out->integrability_defect ||
        !out->integrable || !out->residual || !out->velocity_residual)
        status = error_set(err, DIRAC_ERR_NOMEM, "out of memory");
    double *hess = vals, *forms = hess + m->hessian.nnz, *curvature = forms + m->constraint_forms.nnz;
    double *gradient = curvature + m->form_curvature.nnz, *values = gradient + 2 * n + m->ns + 1;
    double *rates = values + mc, *lagrangian = rates + mc;
    double *null = NULL;
    int nullity = 0;
    if (status == DIRAC_OK) {
        memcpy(x, m->q0, (size_t)n * sizeof *x);
        memcpy(x + m->first_v, m->v0, (size_t)n * sizeof *x);
        memcpy(x + m->first_s, m->s0, (size_t)m->ns * sizeof *x);
        model_group_eval(&m->hessian.values, x, work, hess);
        model_group_eval(&m->constraint_forms.values, x, work, forms);
        model_group_eval(&m->gradient, x, work, gradient);
        model_group_eval(&m->constraint_values, x, work, values);
        model_group_eval(&m->constraint_rates, x, work, rates);
        model_group_eval(&m->lagrangian_value, x, work, lagrangian);
        // energy E = <∂L/∂v, v> − L
        out->energy = -lagrangian[0];
        for (int i = 0; i < n; i++)
            out->energy += gradient[n + i] * m->v0[i];
        // rank of ∂²L/∂v² (rows and columns n .. 2n-1 of the Hessian in (q, v, S))
        sparse_to_dense(&m->hessian, hess, n, n, n, n, dense);
        out->velocity_hessian_rank = n > 0 ? rank_of(n, n, dense, err, &status) : 0;
    }
    if (status == DIRAC_OK) {
        // ω (m x n), its rank, Δ = ker ω
        sparse_to_dense(&m->constraint_forms, forms, 0, 0, mc, n, dense);
        out->constraint_rank = mc > 0 ? rank_of(mc, n, dense, err, &status) : 0;
        out->distribution_dim = n - out->constraint_rank;
        if (status == DIRAC_OK)
            status = linalg_null_space(mc, n, dense, &null, &nullity, err);
    }
    for (int a = 0; status == DIRAC_OK && a < mc; a++) {
        // residuals: the constraint itself, and its velocity level <ω, v0> + b
        double g = rates[a];
        for (int k = m->constraint_forms.row_start[a]; k < m->constraint_forms.row_start[a + 1]; k++)
            g += forms[k] * m->v0[m->constraint_forms.col[k]];
        out->residual[a] = fabs(values[a]);
        out->velocity_residual[a] = fabs(g);
        out->integrable[a] = 1;
        if (m->constraints[a].kind == DIRAC_CONSTRAINT_HOLONOMIC)
            continue;
        // Frobenius: dω^a(X, Y) = Y^T (C − C^T) X with C_ij = ∂ω_a,i/∂q_j, for X, Y ∈ Δ;
        // C is the q-Jacobian of Σ_b μ_b ω_b at μ = e_a
        x[m->first_mu + a] = 1.0;
        model_group_eval(&m->form_curvature.values, x, work, curvature);
        x[m->first_mu + a] = 0.0;
        sparse_to_dense(&m->form_curvature, curvature, 0, 0, n, n, curv);
        double scale = linalg_max_abs(curv, (size_t)n * (size_t)n), defect = 0.0;
        for (int i = 0; i < nullity; i++)
            for (int j = i + 1; j < nullity; j++) {
                const double *xi = null + (size_t)i * (size_t)n, *xj = null + (size_t)j * (size_t)n;
                double value = 0.0;
                for (int r = 0; r < n; r++)
                    for (int s = 0; s < n; s++)
                        value += xj[r] * (curv[(size_t)s * (size_t)n + (size_t)r] -
                                          curv[(size_t)r * (size_t)n + (size_t)s]) * xi[s];
                defect = fabs(value) > defect ? fabs(value) : defect;
            }
        out->integrability_defect[a] = defect;
        out->integrable[a] = defect <= 1e-10 * (1.0 + scale);
    }
    free(null);
    free(x);
    free(work);
    free(vals);
    free(dense);
    free(curv);
    if (status != DIRAC_OK)
        dirac_model_analysis_free(out);
    return status;
}
