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

// The scratch of an analysis, in one block (mem.h: mem_plan), and the values at the initial
// state: x, the Hessian, ω, the curvature of Σ μ ω, ∇L, c, b and L.
typedef struct analysis_work {
    double *x, *work, *dense, *curv;
    double *hess, *forms, *curvature, *gradient, *values, *rates, *lagrangian, *coefficients;
    void *block;
} analysis_work;

static void analysis_layout(mem_plan *p, const dirac_model *m, analysis_work *w)
{
    size_t n = (size_t)m->n, mc = (size_t)m->m;
    w->x = mem_plan_take(p, (size_t)m->n_inputs, sizeof *w->x);
    w->work = mem_plan_take(p, (size_t)m->work_size, sizeof *w->work);
    w->dense = mem_plan_take(p, n * (n > mc ? n : mc), sizeof *w->dense);
    w->curv = mem_plan_take(p, n * n, sizeof *w->curv);
    w->hess = mem_plan_take(p, (size_t)m->hessian.nnz, sizeof *w->hess);
    w->forms = mem_plan_take(p, (size_t)m->constraint_forms.nnz, sizeof *w->forms);
    w->curvature = mem_plan_take(p, (size_t)m->form_curvature.nnz, sizeof *w->curvature);
    w->gradient = mem_plan_take(p, (size_t)m->gradient.count, sizeof *w->gradient);
    w->values = mem_plan_take(p, mc, sizeof *w->values);
    w->rates = mem_plan_take(p, mc, sizeof *w->rates);
    w->lagrangian = mem_plan_take(p, 1, sizeof *w->lagrangian);
    w->coefficients = mem_plan_take(p, (size_t)m->wedge_count, sizeof *w->coefficients);
}

// The per-constraint arrays of the analysis (owned by it, freed by dirac_model_analysis_free).
static dirac_status analysis_alloc(const dirac_model *m, dirac_model_analysis *out,
                                   dirac_error *err)
{
    size_t mc = (size_t)m->m + 1;
    out->integrability_defect = calloc(mc, sizeof *out->integrability_defect);
    out->integrable = calloc(mc, sizeof *out->integrable);
    out->integrability = calloc(mc, sizeof *out->integrability);
    out->residual = calloc(mc, sizeof *out->residual);
    out->velocity_residual = calloc(mc, sizeof *out->velocity_residual);
    if (!out->integrability_defect || !out->integrable || !out->integrability || !out->residual ||
        !out->velocity_residual)
        return error_set(err, DIRAC_ERR_NOMEM, "out of memory");
    return DIRAC_OK;
}

// Evaluates the model at its initial state into w, once, and checks that it is defined there
// (model_check_defined_values); the energy
// E = <∂L/∂v, v> − L.
static dirac_status evaluate_initial_state(const dirac_model *m, analysis_work *w,
                                           dirac_model_analysis *out, dirac_error *err)
{
    int n = m->n;
    model_set_default_inputs(m, w->x);
    memcpy(w->x, m->q0, (size_t)n * sizeof *w->x);
    memcpy(w->x + m->first_v, m->v0, (size_t)n * sizeof *w->x);
    memcpy(w->x + m->first_s, m->s0, (size_t)m->ns * sizeof *w->x);
    model_group_eval(&m->hessian.values, w->x, w->work, w->hess);
    model_group_eval(&m->constraint_forms.values, w->x, w->work, w->forms);
    model_group_eval(&m->gradient, w->x, w->work, w->gradient);
    model_group_eval(&m->constraint_values, w->x, w->work, w->values);
    model_group_eval(&m->constraint_rates, w->x, w->work, w->rates);
    model_group_eval(&m->lagrangian_value, w->x, w->work, w->lagrangian);
    dirac_error undefined;
    dirac_status status = model_check_defined_values(m, w->x, w->lagrangian[0], w->gradient,
                                                     w->values, w->forms, &undefined);
    if (status != DIRAC_OK)
        return error_set(err, status, "the model is not defined at its initial state: %s",
                         undefined.message);
    out->energy = -w->lagrangian[0];
    for (int i = 0; i < n; i++)
        out->energy += w->gradient[n + i] * m->v0[i];
    return DIRAC_OK;
}

// Frobenius at the initial state for nonholonomic constraint a: dω^a(X, Y) = Y^T (C − C^T) X
// with C_ij = ∂ω_a,i/∂q_j, over the orthonormal basis `null` (n x nullity) of Δ; C is the
// q-Jacobian of Σ_b μ_b ω_b at μ = e_a. The largest |dω^a(X_i, X_j)|, and its scale max |C|.
static double integrability_defect(const dirac_model *m, int a, analysis_work *w,
                                   const double *null, int nullity, double *scale)
{
    size_t n = (size_t)m->n;
    w->x[m->first_mu + a] = 1.0;
    model_group_eval(&m->form_curvature.values, w->x, w->work, w->curvature);
    w->x[m->first_mu + a] = 0.0;
    sparse_to_dense(&m->form_curvature, w->curvature, 0, 0, m->n, m->n, w->curv);
    *scale = linalg_max_abs(w->curv, n * n);
    double defect = 0.0;
    for (int i = 0; i < nullity; i++)
        for (int j = i + 1; j < nullity; j++) {
            const double *xi = null + (size_t)i * n, *xj = null + (size_t)j * n;
            double value = 0.0;
            for (size_t r = 0; r < n; r++)
                for (size_t s = 0; s < n; s++)
                    value += xj[r] * (w->curv[s * n + r] - w->curv[r * n + s]) * xi[s];
            defect = fabs(value) > defect ? fabs(value) : defect;
        }
    return defect;
}

// Residuals and integrability of every constraint (Δ = ker ω has the basis `null`).
static void analyze_constraints(const dirac_model *m, analysis_work *w, const double *null,
                                int nullity, dirac_model_analysis *out)
{
    const model_sparse *f = &m->constraint_forms;
    for (int a = 0; a < m->m; a++) {
        // residuals: the constraint itself, and its velocity level <ω, v0> + b
        double g = w->rates[a];
        for (int k = f->row_start[a]; k < f->row_start[a + 1]; k++)
            g += w->forms[k] * m->v0[f->col[k]];
        out->residual[a] = fabs(w->values[a]);
        out->velocity_residual[a] = fabs(g);
        dirac_integrability *verdict = &out->integrability[a];
        out->integrable[a] = *verdict == DIRAC_INTEGRABLE_HOLONOMIC ||
                             *verdict == DIRAC_INTEGRABLE_CLOSED ||
                             *verdict == DIRAC_INTEGRABLE_FROBENIUS;
        if (m->constraints[a].kind == DIRAC_CONSTRAINT_HOLONOMIC)
            continue;
        double scale;
        double defect = integrability_defect(m, a, w, null, nullity, &scale);
        out->integrability_defect[a] = defect;
        // a defect at rounding level at one point shows nothing beyond that point; one above
        // it shows that Δ is not integrable
        if (!out->integrable[a])
            *verdict = defect <= 1e-10 * (1.0 + scale) ? DIRAC_DEFECT_ZERO_AT_INITIAL_STATE
                                                       : DIRAC_NOT_INTEGRABLE;
    }
}

// Ranks of ∂²L/∂v² and ω, dim Δ, then the constraints (residuals, integrability).
static dirac_status analyze_ranks_and_constraints(const dirac_model *m, analysis_work *w,
                                                  dirac_model_analysis *out, dirac_error *err)
{
    int n = m->n, mc = m->m;
    dirac_status status = DIRAC_OK;
    // rank of ∂²L/∂v² (rows and columns n .. 2n-1 of the Hessian in (q, v, S))
    sparse_to_dense(&m->hessian, w->hess, n, n, n, n, w->dense);
    out->velocity_hessian_rank = n > 0 ? rank_of(n, n, w->dense, err, &status) : 0;
    if (status != DIRAC_OK)
        return status;
    // ω (m x n), its rank, Δ = ker ω
    sparse_to_dense(&m->constraint_forms, w->forms, 0, 0, mc, n, w->dense);
    out->constraint_rank = mc > 0 ? rank_of(mc, n, w->dense, err, &status) : 0;
    out->distribution_dim = n - out->constraint_rank;
    double *null = NULL;
    int nullity = 0;
    if (status == DIRAC_OK)
        status = linalg_null_space(mc, n, w->dense, &null, &nullity, err);
    if (status == DIRAC_OK)
        analyze_constraints(m, w, null, nullity, out);
    free(null);
    return status;
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
    out->interconnection_angle = NAN;
    out->subsystem_count = m->subsystem_count;
    analysis_work w;
    mem_plan plan = { 0 };
    analysis_layout(&plan, m, &w);
    dirac_status status = mem_plan_alloc(&plan, NULL)
                              ? analysis_alloc(m, out, err)
                              : error_set(err, DIRAC_ERR_NOMEM, "out of memory");
    if (status == DIRAC_OK) {
        analysis_layout(&plan, m, &w);
        status = model_frobenius_symbolic(m, out->integrability, err);
    }
    if (status == DIRAC_OK)
        status = evaluate_initial_state(m, &w, out, err);
    if (status == DIRAC_OK)
        status = analyze_ranks_and_constraints(m, &w, out, err);
    if (status == DIRAC_OK && m->subsystem_count > 0) {
        model_group_eval(&m->wedge_coefficients, w.x, w.work, w.coefficients);
        status = interconnection_angle(m, w.forms, w.coefficients, &out->interconnection_angle,
                                       err);
    }
    mem_free(NULL, plan.block);
    if (status != DIRAC_OK)
        dirac_model_analysis_free(out);
    return status;
}
