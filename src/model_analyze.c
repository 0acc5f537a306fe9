// The analysis of a compiled model at its initial state (`dirac check`): ranks of ω and
// ∂²L/∂v², Frobenius integrability, residuals, energy, and the interconnection angle.
#include "model.h"

#include "error.h"
#include "linalg_dense.h"

#include <dirac/structure.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

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

// ---- the interconnection check ----------------------------------------------------------
// D_i = D(Ω_can + π*B_i, Δ_i × Rⁿⁱ) per subsystem, D_int = D(π*B_0, Σ × Rⁿ) from the outer
// model's constraints Σ and two-forms B_0, and D_full = D(Ω_can + π*B, Δ × Rⁿ) of the whole
// flattened system; the angle between (⊕ D_i) ⊠ D_int and D_full (Jacobs & Yoshimura 2014).

// Two-form matrix on T*R^count (2count x 2count, row-major, coordinates (q, p)): the wedges of
// the selected two-forms (subsystem `which`; -2: all) on coordinates [first, first+count), plus
// the canonical dq ∧ dp when `canonical`.
static void cotangent_two_form(const dirac_model *m, const double *coefficients, int which,
                               int first, int count, int canonical, double *omega)
{
    int dim = 2 * count;
    memset(omega, 0, (size_t)dim * (size_t)dim * sizeof *omega);
    for (int w = 0; w < m->wedge_count; w++) {
        int owner = m->twoform_subsystem[m->wedges[w].twoform];
        if (which != -2 && owner != which)
            continue;
        int a = m->wedges[w].a - first, b = m->wedges[w].b - first;
        if (a < 0 || a >= count || b < 0 || b >= count)
            continue;
        omega[a * dim + b] += coefficients[w];
        omega[b * dim + a] -= coefficients[w];
    }
    if (canonical)
        for (int i = 0; i < count; i++) {
            omega[i * dim + count + i] += 1.0;
            omega[(count + i) * dim + i] -= 1.0;
        }
}

// Δ × R^count from the one-forms of the constraints selected (subsystem `which`; -2: all)
// restricted to coordinates [first, first+count).
static dirac_status lifted_distribution(const dirac_model *m, const double *forms, int which,
                                        int first, int count, dirac_subspace **out,
                                        dirac_error *err)
{
    int rows = 0, dim = 2 * count;
    for (int a = 0; a < m->m; a++)
        rows += which == -2 || m->constraints[a].subsystem == which;
    double *annihilator = calloc((size_t)rows * (size_t)dim + 1, sizeof *annihilator);
    if (!annihilator)
        return error_set(err, DIRAC_ERR_NOMEM, "out of memory");
    const model_sparse *f = &m->constraint_forms;
    int r = 0;
    for (int a = 0; a < m->m; a++) {
        if (which != -2 && m->constraints[a].subsystem != which)
            continue;
        for (int k = f->row_start[a]; k < f->row_start[a + 1]; k++) {
            int i = f->col[k] - first;
            if (i >= 0 && i < count)
                annihilator[(size_t)r * (size_t)dim + (size_t)i] = forms[k];
        }
        r++;
    }
    dirac_status status = dirac_subspace_from_annihilator(dim, rows, annihilator, out, err);
    free(annihilator);
    return status;
}

static dirac_status structure_of(const dirac_model *m, const double *forms,
                                 const double *coefficients, int which, int first, int count,
                                 int canonical, dirac_structure **out, dirac_error *err)
{
    int dim = 2 * count;
    double *omega = malloc((size_t)dim * (size_t)dim * sizeof *omega);
    dirac_subspace *delta = NULL;
    *out = NULL;
    if (!omega)
        return error_set(err, DIRAC_ERR_NOMEM, "out of memory");
    cotangent_two_form(m, coefficients, which, first, count, canonical, omega);
    dirac_status status = lifted_distribution(m, forms, which, first, count, &delta, err);
    if (status == DIRAC_OK)
        status = dirac_structure_from_two_form(dim, omega, delta, out, err);
    free(omega);
    dirac_subspace_destroy(delta);
    return status;
}

static dirac_status interconnection_angle(const dirac_model *m, const double *forms,
                                          const double *coefficients, double *angle,
                                          dirac_error *err)
{
    int n = m->n;
    dirac_structure *sum = NULL, *part = NULL, *next = NULL, *ordered = NULL, *dint = NULL,
                    *connected = NULL, *full = NULL;
    int *perm = malloc((2 * (size_t)n + 1) * sizeof *perm);
    dirac_status status = perm ? DIRAC_OK : error_set(err, DIRAC_ERR_NOMEM, "out of memory");
    // ⊕ over the subsystems; the outer model's own coordinates are subsystem -1
    int placed = 0;
    for (int k = 0; status == DIRAC_OK && k < m->subsystem_count; k++) {
        const model_subsystem *sub = &m->subsystems[k];
        // a component's own constraints and two-forms; the outer model's own coordinates
        // carry none (the outer model's constraints and two-forms form D_int)
        int which = sub->component >= 0 ? sub->component : -4;
        status = structure_of(m, forms, coefficients, which, sub->first, sub->count, 1, &part, err);
        if (status == DIRAC_OK && sum) {
            status = dirac_structure_direct_sum(sum, part, &next, err);
            dirac_structure_destroy(sum);
            dirac_structure_destroy(part);
            sum = next;
        } else if (status == DIRAC_OK) {
            sum = part;
        }
        part = next = NULL;
        // coordinates of this block in the direct sum: (q_k, p_k) after the earlier blocks
        for (int i = 0; i < sub->count; i++) {
            perm[sub->first + i] = 2 * placed + i;
            perm[n + sub->first + i] = 2 * placed + sub->count + i;
        }
        placed += sub->count;
    }
    if (status == DIRAC_OK)
        status = dirac_structure_permute(sum, perm, &ordered, err);
    if (status == DIRAC_OK)
        status = structure_of(m, forms, coefficients, -1, 0, n, 0, &dint, err);
    if (status == DIRAC_OK)
        status = dirac_structure_tensor(ordered, dint, &connected, err);
    if (status == DIRAC_OK)
        status = structure_of(m, forms, coefficients, -2, 0, n, 1, &full, err);
    if (status == DIRAC_OK)
        status = dirac_structure_largest_angle(connected, full, angle, err);
    free(perm);
    dirac_structure_destroy(sum);
    dirac_structure_destroy(ordered);
    dirac_structure_destroy(dint);
    dirac_structure_destroy(connected);
    dirac_structure_destroy(full);
    return status;
}

void dirac_model_analysis_free(dirac_model_analysis *a)
{
    if (!a)
        return;
    free(a->integrability_defect);
    free(a->integrable);
    free(a->integrability);
    free(a->residual);
    free(a->velocity_residual);
    memset(a, 0, sizeof *a);
}

dirac_status dirac_model_analyze(const dirac_model *m, dirac_model_analysis *out,
                                 dirac_error *err)
{
    if (!out)
        return error_set(err, DIRAC_ERR_ARGUMENT, "dirac_model_analyze: out is NULL");
    memset(out, 0, sizeof *out);
    if (!m)
        return error_set(err, DIRAC_ERR_ARGUMENT, "dirac_model_analyze: the model is NULL");
    if (m->n > DIRAC_ANALYSIS_MAX_COORDINATES)
        return error_set(err, DIRAC_ERR_UNSUPPORTED,
                         "the dense analysis at the initial state is limited to %d coordinates "
                         "(this model has %d)", DIRAC_ANALYSIS_MAX_COORDINATES, m->n);
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
    out->integrability = calloc((size_t)mc + 1, sizeof *out->integrability);
    out->residual = calloc((size_t)mc + 1, sizeof *out->residual);
    out->velocity_residual = calloc((size_t)mc + 1, sizeof *out->velocity_residual);
    dirac_status status = DIRAC_OK;
    if (!x || !work || !vals || !dense || !curv || !out->integrability_defect ||
        !out->integrable || !out->integrability || !out->residual || !out->velocity_residual)
        status = error_set(err, DIRAC_ERR_NOMEM, "out of memory");
    else
        model_set_default_inputs(m, x);
    if (status == DIRAC_OK)
        status = model_frobenius_symbolic(m, out->integrability, err);
    double *hess = vals, *forms = hess + m->hessian.nnz, *curvature = forms + m->constraint_forms.nnz;
    double *gradient = curvature + m->form_curvature.nnz, *values = gradient + 2 * n + m->ns + 1;
    double *rates = values + mc, *lagrangian = rates + mc;
    double *null = NULL;
    int nullity = 0;
    if (status == DIRAC_OK) {
        memcpy(x, m->q0, (size_t)n * sizeof *x);
        memcpy(x + m->first_v, m->v0, (size_t)n * sizeof *x);
        memcpy(x + m->first_s, m->s0, (size_t)m->ns * sizeof *x);
        dirac_error undefined;
        status = model_check_defined(m, x, &undefined);
        if (status != DIRAC_OK)
            status = error_set(err, status, "the model is not defined at its initial state: %s",
                               undefined.message);
    }
    if (status == DIRAC_OK) {
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
        dirac_integrability *verdict = &out->integrability[a];
        out->integrable[a] = *verdict == DIRAC_INTEGRABLE_HOLONOMIC ||
                             *verdict == DIRAC_INTEGRABLE_CLOSED ||
                             *verdict == DIRAC_INTEGRABLE_FROBENIUS;
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
        // a defect at rounding level at one point shows nothing beyond that point; one above
        // it shows that Δ is not integrable
        if (!out->integrable[a])
            *verdict = defect <= 1e-10 * (1.0 + scale) ? DIRAC_DEFECT_ZERO_AT_INITIAL_STATE
                                                       : DIRAC_NOT_INTEGRABLE;
    }
    out->interconnection_angle = NAN;
    out->subsystem_count = m->subsystem_count;
    if (status == DIRAC_OK && m->subsystem_count > 0) {
        double *coefficients = calloc((size_t)m->wedge_count + 1, sizeof *coefficients);
        if (!coefficients)
            status = error_set(err, DIRAC_ERR_NOMEM, "out of memory");
        else {
            model_group_eval(&m->wedge_coefficients, x, work, coefficients);
            status = interconnection_angle(m, forms, coefficients, &out->interconnection_angle, err);
            free(coefficients);
        }
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
