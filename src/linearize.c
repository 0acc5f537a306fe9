// The linearised Lagrange–Dirac system in descriptor form (dirac_model_linearize; the
// conventions are in include/dirac/analysis.h and docs/analysis.md). With the momentum p as a
// state variable the implicit Lagrangian system (Yoshimura & Marsden 2006)
//     q̇ = v,   ṗ = ∂L/∂q + F + Σ μ_a ω^a,   0 = ∂L/∂v − p,   0 = c(q, v, t, u)
// has a constant E, so A is exactly ∂f/∂x from the model's second derivatives, and B = ∂f/∂u
// the derivative in the `input` signals u (linearize_inputs.c).
#include <dirac/analysis.h>

#include "analysis_point.h"
#include "error.h"
#include "linalg_dense.h"
#include "linearize.h"
#include "text.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

// ---- coordinate-form matrices ------------------------------------------------------------

typedef struct builder {
    dirac_matrix *mat;
    int cap;
    int failed;
    int row0, col0, row_limit;   // offsets of the block being added; rows >= limit dropped
    double sign;
} builder;

static void builder_start(builder *b, dirac_matrix *mat, int rows, int cols)
{
    memset(b, 0, sizeof *b);
    memset(mat, 0, sizeof *mat);
    mat->rows = rows;
    mat->cols = cols;
    b->mat = mat;
    b->sign = 1.0;
    b->row_limit = rows;
}

static void builder_block(builder *b, int row0, int col0, int row_limit, double sign)
{
    b->row0 = row0;
    b->col0 = col0;
    b->row_limit = row_limit;
    b->sign = sign;
}

static void builder_add(void *ctx, int row, int col, double value)
{
    builder *b = ctx;
    if (b->failed || row >= b->row_limit)
        return;
    dirac_matrix *a = b->mat;
    if (a->nnz == b->cap) {
        int cap = b->cap ? 2 * b->cap : 64;
        int *rows = realloc(a->row, (size_t)cap * sizeof *rows);
        if (rows)
            a->row = rows;
        int *cols = realloc(a->col, (size_t)cap * sizeof *cols);
        if (cols)
            a->col = cols;
        double *values = realloc(a->value, (size_t)cap * sizeof *values);
        if (values)
            a->value = values;
        if (!rows || !cols || !values) {
            b->failed = 1;
            return;
        }
        b->cap = cap;
    }
    a->row[a->nnz] = b->row0 + row;
    a->col[a->nnz] = b->col0 + col;
    a->value[a->nnz] = b->sign * value;
    a->nnz++;
}

typedef struct entry {
    int row, col, seq;   // seq: the order of addition (a deterministic order of summation)
    double value;
} entry;

static int by_position(const void *x, const void *y)
{
    const entry *a = x, *b = y;
    if (a->row != b->row)
        return a->row < b->row ? -1 : 1;
    if (a->col != b->col)
        return a->col < b->col ? -1 : 1;
    return (a->seq > b->seq) - (a->seq < b->seq);
}

// Sorts by (row, col), sums duplicates in the order they were added and drops exact zeros.
// Returns 0 when out of memory.
static int builder_finish(builder *b)
{
    dirac_matrix *a = b->mat;
    if (b->failed)
        return 0;
    if (a->nnz == 0)
        return 1;
    entry *e = malloc((size_t)a->nnz * sizeof *e);
    if (!e)
        return 0;
    for (int k = 0; k < a->nnz; k++)
        e[k] = (entry){ a->row[k], a->col[k], k, a->value[k] };
    qsort(e, (size_t)a->nnz, sizeof *e, by_position);
    int count = 0;
    for (int k = 0; k < a->nnz; k++) {
        if (count > 0 && e[count - 1].row == e[k].row && e[count - 1].col == e[k].col)
            e[count - 1].value += e[k].value;
        else
            e[count++] = e[k];
    }
    int kept = 0;
    for (int k = 0; k < count; k++)
        if (e[k].value != 0.0) {
            a->row[kept] = e[k].row;
            a->col[kept] = e[k].col;
            a->value[kept] = e[k].value;
            kept++;
        }
    a->nnz = kept;
    free(e);
    return 1;
}

static void matrix_free(dirac_matrix *a)
{
    free(a->row), free(a->col), free(a->value);
    memset(a, 0, sizeof *a);
}

// ---- the descriptor right-hand side ----------------------------------------------------

// f(x) at the evaluated point: rows (q̇, ṗ, 0 = ∂L/∂v − p, 0 = c).
static void descriptor_rhs(const analysis_point *pt, const double *x, double *f)
{
    const dirac_model *m = pt->m;
    int n = m->n;
    const double *v = x + n, *p = x + 2 * n, *mu = x + 3 * n;
    for (int i = 0; i < n; i++) {
        f[i] = v[i];
        f[n + i] = pt->gradient[i] + pt->forces[i];
        f[2 * n + i] = pt->gradient[n + i] - p[i];
    }
    const model_sparse *fo = &m->constraint_forms;
    for (int a = 0; a < m->m; a++) {
        for (int k = fo->row_start[a]; k < fo->row_start[a + 1]; k++)
            f[n + fo->col[k]] += mu[a] * pt->forms[k];
        f[3 * n + a] = pt->values[a];
    }
}

// An output that depends on an acceleration q'' (inputs first_a..), which is no function of
// the descriptor state x = (q, v, p, μ) alone (it solves the KKT system there): its index, or
// -1. Such outputs have no row C x + D u.
static int acceleration_output(const dirac_model *m)
{
    const model_sparse *oj = &m->output_jacobian;
    for (int r = 0; m->na > 0 && r < m->output_count; r++)
        for (int k = oj->row_start[r]; k < oj->row_start[r + 1]; k++)
            if (oj->col[k] >= m->first_a)
                return r;
    return -1;
}

static dirac_status refuse_acceleration(const dirac_model *m, const char *what,
                                        const char *remedy, dirac_error *err)
{
    return error_set(err, DIRAC_ERR_UNSUPPORTED, "%s: output '%s' uses an acceleration (x''), "
                     "which is not a function of the state (q, v, p, mu) alone; %s", what,
                     m->output_names[acceleration_output(m)], remedy);
}

dirac_status dirac_model_descriptor_rhs(const dirac_model *m, const double *x, const double *u,
                                        const double *s, double t, double *f, double *y,
                                        dirac_error *err)
{
    if (!m || !x || !f)
        return error_set(err, DIRAC_ERR_ARGUMENT, "descriptor_rhs: NULL argument");
    if (y && acceleration_output(m) >= 0)
        return refuse_acceleration(m, "descriptor_rhs", "pass y = NULL", err);
    analysis_point pt;
    dirac_status status = analysis_point_init(&pt, m, err);
    if (status != DIRAC_OK)
        return status;
    if (u)
        memcpy(pt.x + m->first_u, u, (size_t)m->nu * sizeof *u);
    analysis_point_eval(&pt, x, x + m->n, s ? s : m->s0, t, x + 3 * m->n);
    descriptor_rhs(&pt, x, f);
    if (y)
        memcpy(y, pt.outputs, (size_t)m->output_count * sizeof *y);
    analysis_point_free(&pt);
    return DIRAC_OK;
}

// ---- the linearisation -----------------------------------------------------------------

void dirac_linearization_free(dirac_linearization *lin)
{
    if (!lin)
        return;
    for (int k = 0; lin->state_names && k < lin->state_count; k++)
        free(lin->state_names[k]);
    free(lin->state_names);
    free(lin->x0), free(lin->f0), free(lin->y0), free(lin->u0);
    dirac_matrix *mats[] = { &lin->E, &lin->A, &lin->B, &lin->C, &lin->D,
                             &lin->M, &lin->K, &lin->G };
    for (size_t k = 0; k < sizeof mats / sizeof mats[0]; k++)
        matrix_free(mats[k]);
    free(lin->T), free(lin->M_r), free(lin->K_r);
    memset(lin, 0, sizeof *lin);
}

static int name_states(dirac_linearization *lin, const dirac_model *m)
{
    int n = m->n;
    lin->state_names = calloc((size_t)lin->state_count + 1, sizeof *lin->state_names);
    if (!lin->state_names)
        return 0;
    static const char *const prefix[] = { "q.", "v.", "p." };
    for (int b = 0; b < 3; b++)
        for (int i = 0; i < n; i++)
            if (!(lin->state_names[b * n + i] = text_concat(prefix[b], m->coord_names[i], NULL)))
                return 0;
    for (int a = 0; a < m->m; a++)
        if (!(lin->state_names[3 * n + a] = text_concat("mu.", m->constraints[a].name, NULL)))
            return 0;
    return 1;
}

// E and A (and C, D) at the evaluated point.
static int build_descriptor(dirac_linearization *lin, const analysis_point *pt)
{
    const dirac_model *m = pt->m;
    int n = m->n, N = lin->state_count;
    builder e, a;
    builder_start(&e, &lin->E, N, N);
    for (int i = 0; i < n; i++) {
        builder_add(&e, i, i, 1.0);              // q̇
        builder_add(&e, n + i, 2 * n + i, 1.0);  // ṗ
    }
    builder_start(&a, &lin->A, N, N);
    for (int i = 0; i < n; i++) {
        builder_add(&a, i, n + i, 1.0);              // q̇ = v
        builder_add(&a, 2 * n + i, 2 * n + i, -1.0); // 0 = ∂L/∂v − p
    }
    // ṗ rows: ∂²L/∂q∂(q, v), ∂F/∂(q, v), Σ μ ∂ω/∂q, ω^a in the μ columns
    builder_block(&a, n, 0, n, 1.0);
    analysis_sparse_each(&m->hessian, pt->hessian, 0, 2 * n, builder_add, &a);
    analysis_sparse_each(&m->force_jacobian, pt->force_jac, 0, 2 * n, builder_add, &a);
    analysis_sparse_each(&m->form_curvature, pt->curvature, 0, n, builder_add, &a);
    // ∂L/∂v rows: the Hessian's v rows
    builder_block(&a, 0, 0, N, 1.0);
    const model_sparse *h = &m->hessian;
    for (int r = n; r < 2 * n; r++)
        for (int k = h->row_start[r]; k < h->row_start[r + 1]; k++)
            if (h->col[k] < 2 * n)
                builder_add(&a, 2 * n + (r - n), h->col[k], pt->hessian[k]);
    const model_sparse *fo = &m->constraint_forms, *cj = &m->constraint_jacobian;
    for (int k2 = 0; k2 < m->m; k2++) {
        int holonomic = m->constraints[k2].kind == DIRAC_CONSTRAINT_HOLONOMIC;
        for (int k = fo->row_start[k2]; k < fo->row_start[k2 + 1]; k++) {
            builder_add(&a, n + fo->col[k], 3 * n + k2, pt->forms[k]);
            // constraint rows: φ_q = ω (holonomic) or ∂c/∂v = ω (nonholonomic)
            builder_add(&a, 3 * n + k2, (holonomic ? 0 : n) + fo->col[k], pt->forms[k]);
        }
        if (!holonomic)
            for (int k = cj->row_start[k2]; k < cj->row_start[k2 + 1]; k++)
                if (cj->col[k] < n)
                    builder_add(&a, 3 * n + k2, cj->col[k], pt->constraint_jac[k]);
    }
    // outputs: ∂y/∂q, ∂y/∂v and ∂y/∂μ (S and t are held fixed) into C, ∂y/∂u into D
    builder c, d;
    builder_start(&c, &lin->C, lin->output_count, N);
    builder_start(&d, &lin->D, lin->output_count, m->nu);
    const model_sparse *oj = &m->output_jacobian;
    for (int r = 0; r < lin->output_count; r++)
        for (int k = oj->row_start[r]; k < oj->row_start[r + 1]; k++) {
            int col = oj->col[k];
            if (col < 2 * n)
                builder_add(&c, r, col, pt->output_jac[k]);
            else if (col >= m->first_mu && col < m->first_mu + m->m)
                builder_add(&c, r, 3 * n + (col - m->first_mu), pt->output_jac[k]);
            else if (col >= m->first_u && col < m->first_u + m->nu)
                builder_add(&d, r, col - m->first_u, pt->output_jac[k]);
        }
    return builder_finish(&e) & builder_finish(&a) & builder_finish(&c) & builder_finish(&d);
}

// M = ∂²L/∂v², K = −(∂²L/∂q² + ∂F/∂q + Σ μ ∂ω/∂q), G = ∂φ/∂q at the point (v = 0).
static int build_mechanical(dirac_linearization *lin, const analysis_point *pt)
{
    const dirac_model *m = pt->m;
    int n = m->n;
    builder mb, kb, gb;
    builder_start(&mb, &lin->M, n, n);
    builder_start(&kb, &lin->K, n, n);
    builder_start(&gb, &lin->G, m->m, n);
    const model_sparse *h = &m->hessian;
    for (int r = 0; r < 2 * n; r++)
        for (int k = h->row_start[r]; k < h->row_start[r + 1]; k++) {
            int col = h->col[k];
            if (r < n && col < n)
                builder_add(&kb, r, col, -pt->hessian[k]);
            else if (r >= n && col >= n && col < 2 * n)
                builder_add(&mb, r - n, col - n, pt->hessian[k]);
        }
    builder_block(&kb, 0, 0, n, -1.0);
    analysis_sparse_each(&m->force_jacobian, pt->force_jac, 0, n, builder_add, &kb);
    analysis_sparse_each(&m->form_curvature, pt->curvature, 0, n, builder_add, &kb);
    analysis_sparse_each(&m->constraint_forms, pt->forms, 0, n, builder_add, &gb);
    return builder_finish(&mb) & builder_finish(&kb) & builder_finish(&gb);
}

// max |a_ij − a_ji| / max |a_ij| of a square matrix whose entries are sorted by (row, col).
static double matrix_asymmetry(const dirac_matrix *a)
{
    double largest = linalg_max_abs(a->value, (size_t)a->nnz), worst = 0.0;
    for (int k = 0; k < a->nnz; k++) {
        int lo = 0, hi = a->nnz - 1, i = a->row[k], j = a->col[k];
        double mirror = 0.0;   // a_ji (0 when not stored)
        while (lo <= hi) {
            int mid = (lo + hi) / 2;
            if (a->row[mid] == j && a->col[mid] == i) {
                mirror = a->value[mid];
                break;
            }
            if (a->row[mid] < j || (a->row[mid] == j && a->col[mid] < i))
                lo = mid + 1;
            else
                hi = mid - 1;
        }
        worst = fmax(worst, fabs(a->value[k] - mirror));
    }
    return largest > 0.0 ? worst / largest : 0.0;
}

static void to_dense(const dirac_matrix *a, double *dense)
{
    memset(dense, 0, (size_t)a->rows * (size_t)a->cols * sizeof *dense);
    for (int k = 0; k < a->nnz; k++)
        dense[(size_t)a->col[k] * (size_t)a->rows + (size_t)a->row[k]] += a->value[k];
}

// T, M_r = Tᵀ M T, K_r = Tᵀ K T (dense).
static dirac_status build_reduced(dirac_linearization *lin, const dirac_model *m,
                                  dirac_error *err)
{
    int n = m->n;
    for (int a = 0; a < m->m; a++)
        if (m->constraints[a].kind != DIRAC_CONSTRAINT_HOLONOMIC) {
            snprintf(lin->reduced_note, sizeof lin->reduced_note,
                     "not computed: constraint '%s' is nonholonomic", m->constraints[a].name);
            return DIRAC_OK;
        }
    if (n > DIRAC_ANALYSIS_MAX_COORDINATES) {
        snprintf(lin->reduced_note, sizeof lin->reduced_note,
                 "not computed: %d coordinates (dense reduction up to %d; use M, K, G)", n,
                 DIRAC_ANALYSIS_MAX_COORDINATES);
        return DIRAC_OK;
    }
    double *g = calloc((size_t)m->m * (size_t)n + 1, sizeof *g);
    double *full = calloc((size_t)n * (size_t)n + 1, sizeof *full);
    double *tmp = calloc((size_t)n * (size_t)n + 1, sizeof *tmp);
    dirac_status status = DIRAC_OK;
    int r = 0;
    if (!g || !full || !tmp) {
        status = error_set(err, DIRAC_ERR_NOMEM, "out of memory");
        goto done;
    }
    if (m->m > 0) {
        to_dense(&lin->G, g);
        if ((status = linalg_null_space(m->m, n, g, &lin->T, &r, err)) != DIRAC_OK)
            goto done;
    } else {
        r = n;
        if (!(lin->T = calloc((size_t)n * (size_t)n + 1, sizeof *lin->T))) {
            status = error_set(err, DIRAC_ERR_NOMEM, "out of memory");
            goto done;
        }
        for (int i = 0; i < n; i++)
            lin->T[(size_t)i * (size_t)n + (size_t)i] = 1.0;
    }
    lin->reduced_dim = r;
    lin->M_r = calloc((size_t)r * (size_t)r + 1, sizeof *lin->M_r);
    lin->K_r = calloc((size_t)r * (size_t)r + 1, sizeof *lin->K_r);
    if (!lin->M_r || !lin->K_r) {
        status = error_set(err, DIRAC_ERR_NOMEM, "out of memory");
        goto done;
    }
    if (r > 0) {
        const dirac_matrix *src[2] = { &lin->M, &lin->K };
        double *dst[2] = { lin->M_r, lin->K_r };
        for (int k = 0; k < 2; k++) {
            to_dense(src[k], full);
            linalg_matmul(n, n, r, full, lin->T, tmp);        // X T (n x r)
            linalg_matmul_tn(r, n, r, lin->T, tmp, dst[k]);   // Tᵀ X T
            for (int i = 0; i < r && lin->stiffness_asymmetry <= DIRAC_SYMMETRY_RTOL; i++)
                for (int j = 0; j < i; j++) {   // symmetric to rounding: make it exactly so
                    double mean = 0.5 * (dst[k][(size_t)i * (size_t)r + (size_t)j] +
                                         dst[k][(size_t)j * (size_t)r + (size_t)i]);
                    dst[k][(size_t)i * (size_t)r + (size_t)j] = mean;
                    dst[k][(size_t)j * (size_t)r + (size_t)i] = mean;
                }
        }
    }
    lin->has_reduced = 1;
    snprintf(lin->reduced_note, sizeof lin->reduced_note, "%s%s",
             m->friction_count || m->wedge_count
                 ? "velocity-dependent forces (friction, two-forms) are not in M_r, K_r; "
                 : "",
             lin->stiffness_asymmetry > DIRAC_SYMMETRY_RTOL
                 ? "K_r is not symmetric: nonconservative position forces (follower loads)"
                 : "");
done:
    free(g), free(full), free(tmp);
    return status;
}

// The linearisation at (q, v, s, μ, t); with_outputs = 0 leaves the outputs out (no C, D
// rows, no y0): the mechanical matrices and the state part do not depend on them.
static dirac_status linearize(const dirac_model *m, const double *q, const double *v,
                              const double *s, const double *mu, double t, int with_outputs,
                              dirac_linearization *out, dirac_error *err)
{
    if (!out)
        return error_set(err, DIRAC_ERR_ARGUMENT, "linearize: NULL result");
    memset(out, 0, sizeof *out);
    if (!m)
        return error_set(err, DIRAC_ERR_ARGUMENT, "linearize: NULL model");
    if (with_outputs && acceleration_output(m) >= 0)
        return refuse_acceleration(m, "linearize", "remove the output to linearize the model",
                                   err);
    int n = m->n, N = 3 * n + m->m;
    out->n = n;
    out->m = m->m;
    out->state_count = N;
    out->output_count = with_outputs ? m->output_count : 0;
    out->input_count = m->nu;
    out->t = t;
    q = q ? q : m->q0;
    v = v ? v : m->v0;
    s = s ? s : m->s0;
    analysis_point pt;
    dirac_status status = analysis_point_init(&pt, m, err);
    if (status != DIRAC_OK)
        return status;
    out->x0 = calloc((size_t)N + 1, sizeof *out->x0);
    out->f0 = calloc((size_t)N + 1, sizeof *out->f0);
    out->y0 = calloc((size_t)out->output_count + 1, sizeof *out->y0);
    out->u0 = calloc((size_t)m->nu + 1, sizeof *out->u0);
    if (!out->x0 || !out->f0 || !out->y0 || !out->u0 || !name_states(out, m)) {
        status = error_set(err, DIRAC_ERR_NOMEM, "out of memory");
        goto done;
    }
    memcpy(out->x0, q, (size_t)n * sizeof *q);
    memcpy(out->x0 + n, v, (size_t)n * sizeof *v);
    if (mu)
        memcpy(out->x0 + 3 * n, mu, (size_t)m->m * sizeof *mu);
    if (!linalg_all_finite(out->x0, (size_t)N) || !linalg_all_finite(s, (size_t)m->ns) ||
        !isfinite(t)) {
        status = error_set(err, DIRAC_ERR_NOT_FINITE, "linearize: the operating point is not "
                           "finite");
        goto done;
    }
    analysis_point_eval(&pt, q, v, s, t, out->x0 + 3 * n);
    memcpy(out->x0 + 2 * n, pt.gradient + n, (size_t)n * sizeof *q);   // p = ∂L/∂v
    descriptor_rhs(&pt, out->x0, out->f0);
    memcpy(out->y0, pt.outputs, (size_t)out->output_count * sizeof *out->y0);
    memcpy(out->u0, pt.x + m->first_u, (size_t)m->nu * sizeof *out->u0);
    if (!build_descriptor(out, &pt)) {
        status = error_set(err, DIRAC_ERR_NOMEM, "out of memory");
        goto done;
    }
    builder b;
    builder_start(&b, &out->B, N, m->nu);
    if (with_outputs)   // B is read with C and D; the state analyses (modes) skip its algebra
        status = linearize_input_matrix(&pt, builder_add, &b, err);
    if (status != DIRAC_OK || !builder_finish(&b)) {
        status = status != DIRAC_OK ? status : error_set(err, DIRAC_ERR_NOMEM, "out of memory");
        goto done;
    }
    analysis_point_eval(&pt, q, NULL, s, t, out->x0 + 3 * n);
    if (!build_mechanical(out, &pt)) {
        status = error_set(err, DIRAC_ERR_NOMEM, "out of memory");
        goto done;
    }
    out->stiffness_asymmetry = matrix_asymmetry(&out->K);
    status = build_reduced(out, m, err);
done:
    analysis_point_free(&pt);
    if (status != DIRAC_OK)
        dirac_linearization_free(out);
    return status;
}

dirac_status dirac_model_linearize(const dirac_model *m, const double *q, const double *v,
                                   const double *s, const double *mu, double t,
                                   dirac_linearization *out, dirac_error *err)
{
    return linearize(m, q, v, s, mu, t, 1, out, err);
}

dirac_status model_linearize_states(const dirac_model *m, const double *q, const double *v,
                                    const double *s, const double *mu, double t,
                                    dirac_linearization *out, dirac_error *err)
{
    return linearize(m, q, v, s, mu, t, 0, out, err);
}
