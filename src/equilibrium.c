// Static equilibria of a model (dirac_model_equilibrium): v = 0 and
//     r_q = ∂L/∂q(q, 0, S, t) + F(q, 0, S, t) + Σ_a μ_a ω^a(q) = 0,    r_a = c_a(q, 0, t) = 0,
// solved for z = (q, μ) by damped Newton with the symbolic Jacobian
//     [ ∂²L/∂q² + ∂F/∂q + Σ μ_a ∂ω^a/∂q   ωᵀ ]
//     [ ∂c/∂q                               0  ]
// (∂c/∂q = ω for holonomic constraints). Dense systems take the minimum-norm least-squares
// step (LAPACK dgelsd), which also settles undetermined multipliers; large ones use KLU.
#include <dirac/analysis.h>

#include "analysis_point.h"
#include "error.h"
#include "linalg_dense.h"
#include "linsolve.h"

#include <lapacke.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define EQUILIBRIUM_MAX_ITER 100
#define EQUILIBRIUM_RTOL 1e-10

typedef struct jacobian_sink {
    linsolve *ls;            // sparse target, or
    double *dense;           // column-major size x size
    int size, row0, col0;    // block offset of the entries being added
    double sign;
} jacobian_sink;

static void sink_add(void *ctx, int row, int col, double value)
{
    jacobian_sink *s = ctx;
    int r = s->row0 + row, c = s->col0 + col;
    if (s->ls)
        linsolve_add(s->ls, r, c, s->sign * value);
    else
        s->dense[(size_t)c * (size_t)s->size + (size_t)r] += s->sign * value;
}

// Residual (n + m) at the evaluated point.
static void residual(const analysis_point *pt, const double *mu, double *r)
{
    const dirac_model *m = pt->m;
    for (int i = 0; i < m->n; i++)
        r[i] = pt->gradient[i] + pt->forces[i];
    const model_sparse *f = &m->constraint_forms;
    for (int a = 0; a < m->m; a++) {
        for (int k = f->row_start[a]; k < f->row_start[a + 1]; k++)
            r[f->col[k]] += mu[a] * pt->forms[k];
        r[m->n + a] = pt->values[a];
    }
}

// The sink restricted to rows < limit (the Hessian has 2n + ns + 1 rows; only the q rows count).
typedef struct row_limit {
    jacobian_sink *inner;
    int limit;
} row_limit;

static void limited_add(void *ctx, int row, int col, double value)
{
    row_limit *w = ctx;
    if (row < w->limit)
        sink_add(w->inner, row, col, value);
}

// The Jacobian of `residual` into the sink (values added to a zeroed target).
static void jacobian(const analysis_point *pt, jacobian_sink *s)
{
    const dirac_model *m = pt->m;
    int n = m->n;
    row_limit q_rows = { s, n };
    s->sign = 1.0;
    analysis_sparse_each(&m->hessian, pt->hessian, 0, n, limited_add, &q_rows);
    analysis_sparse_each(&m->force_jacobian, pt->force_jac, 0, n, sink_add, s);
    analysis_sparse_each(&m->form_curvature, pt->curvature, 0, n, sink_add, s);
    const model_sparse *f = &m->constraint_forms;
    const model_sparse *cj = &m->constraint_jacobian;
    for (int a = 0; a < m->m; a++) {
        int holonomic = m->constraints[a].kind == DIRAC_CONSTRAINT_HOLONOMIC;
        for (int k = f->row_start[a]; k < f->row_start[a + 1]; k++) {
            sink_add(s, f->col[k], n + a, pt->forms[k]);
            if (holonomic)
                sink_add(s, n + a, f->col[k], pt->forms[k]);
        }
        if (!holonomic)   // c = ⟨ω, v⟩ + b at v = 0: ∂c/∂q = ∂b/∂q
            for (int k = cj->row_start[a]; k < cj->row_start[a + 1]; k++)
                if (cj->col[k] < n)
                    sink_add(s, n + a, cj->col[k], pt->constraint_jac[k]);
    }
}

// Minimum-norm least-squares solution of J dz = r (J column-major size x size, overwritten).
static dirac_status dense_step(int size, double *j, double *r, dirac_error *err)
{
    double *sv = malloc((size_t)size * sizeof *sv);
    if (!sv)
        return error_set(err, DIRAC_ERR_NOMEM, "out of memory");
    lapack_int rank = 0;
    lapack_int info = LAPACKE_dgelsd(LAPACK_COL_MAJOR, size, size, 1, j, size, r, size, sv,
                                     LINALG_RANK_RTOL, &rank);
    free(sv);
    if (info != 0)
        return error_set(err, DIRAC_ERR_LINALG, "equilibrium: least-squares step failed "
                         "(LAPACK dgelsd info %d)", (int)info);
    return DIRAC_OK;
}

static double max_abs(const double *x, int count)
{
    return linalg_max_abs(x, (size_t)count);
}

void dirac_equilibrium_free(dirac_equilibrium *eq)
{
    if (!eq)
        return;
    free(eq->q);
    free(eq->s);
    free(eq->mu);
    memset(eq, 0, sizeof *eq);
}

dirac_status dirac_model_equilibrium(const dirac_model *m, const double *q_guess,
                                     const double *s_guess, double t, dirac_equilibrium *out,
                                     dirac_error *err)
{
    if (!out)
        return error_set(err, DIRAC_ERR_ARGUMENT, "equilibrium: NULL result");
    memset(out, 0, sizeof *out);
    if (!m)
        return error_set(err, DIRAC_ERR_ARGUMENT, "equilibrium: NULL model");
    if (!isfinite(t))
        return error_set(err, DIRAC_ERR_NOT_FINITE, "equilibrium: time is not finite");
    int n = m->n, size = m->n + m->m;
    int dense = size <= DIRAC_EQUILIBRIUM_DENSE_MAX;
    out->t = t;
    out->q = calloc((size_t)n + 1, sizeof *out->q);
    out->s = calloc((size_t)m->ns + 1, sizeof *out->s);
    out->mu = calloc((size_t)m->m + 1, sizeof *out->mu);
    double *z = calloc((size_t)size + 1, sizeof *z);       // (q, μ)
    double *trial = calloc((size_t)size + 1, sizeof *trial);
    double *r = calloc((size_t)size + 1, sizeof *r);
    double *dz = calloc((size_t)size + 1, sizeof *dz);
    double *jd = dense ? calloc((size_t)size * (size_t)size + 1, sizeof *jd) : NULL;
    analysis_point pt = { 0 };
    linsolve ls = { 0 };
    int have_ls = 0;
    dirac_status status = DIRAC_OK;
    if (!out->q || !out->s || !out->mu || !z || !trial || !r || !dz || (dense && !jd)) {
        status = error_set(err, DIRAC_ERR_NOMEM, "out of memory");
        goto done;
    }
    if ((status = analysis_point_init(&pt, m, err)) != DIRAC_OK)
        goto done;
    if (q_guess)
        memcpy(z, q_guess, (size_t)n * sizeof *z);
    else
        memcpy(z, m->q0, (size_t)n * sizeof *z);
    if (s_guess)
        memcpy(out->s, s_guess, (size_t)m->ns * sizeof *out->s);
    else
        memcpy(out->s, m->s0, (size_t)m->ns * sizeof *out->s);
    if (!linalg_all_finite(z, (size_t)n) || !linalg_all_finite(out->s, (size_t)m->ns)) {
        status = error_set(err, DIRAC_ERR_NOT_FINITE, "equilibrium: the guess is not finite");
        goto done;
    }
    if (!dense) {
        if ((status = linsolve_init(&ls, size, true, err)) != DIRAC_OK)
            goto done;
        have_ls = 1;
    }
    // The force scale: the largest single term at the guess (gravity, springs, ...), so that
    // the tolerance is relative to the forces at play; 1 when everything vanishes there.
    analysis_point_eval(&pt, z, NULL, out->s, t, z + n);
    double scale = fmax(1.0, fmax(max_abs(pt.gradient, n), max_abs(pt.forces, n)));
    out->scale = scale;
    residual(&pt, z + n, r);
    double norm = linalg_norm(r, (size_t)size);
    int iter = 0;
    for (; iter < EQUILIBRIUM_MAX_ITER && !(max_abs(r, size) <= EQUILIBRIUM_RTOL * scale); iter++) {
        jacobian_sink sink = { .size = size, .sign = 1.0 };
        if (dense) {
            memset(jd, 0, (size_t)size * (size_t)size * sizeof *jd);
            sink.dense = jd;
            jacobian(&pt, &sink);
            for (int i = 0; i < size; i++)
                dz[i] = -r[i];
            if ((status = dense_step(size, jd, dz, err)) != DIRAC_OK)
                goto done;
        } else {
            sink.ls = &ls;
            if (!ls.has_pattern) {
                linsolve_begin_pattern(&ls);
                jacobian(&pt, &sink);
                if ((status = linsolve_end_pattern(&ls, err)) != DIRAC_OK)
                    goto done;
            }
            linsolve_zero(&ls);
            jacobian(&pt, &sink);
            int bad = -1;
            if (linsolve_factor(&ls, &bad) != DIRAC_OK) {
                const char *what = bad >= 0 && bad < n ? m->coord_names[bad]
                                   : bad >= n && bad < size ? m->constraints[bad - n].name : "?";
                status = error_set(err, DIRAC_ERR_SINGULAR,
                                   "equilibrium: the Jacobian is singular (at '%s'): the "
                                   "equilibrium is not isolated or the constraints are "
                                   "dependent; models with more than %d unknowns need an "
                                   "isolated equilibrium", what, DIRAC_EQUILIBRIUM_DENSE_MAX);
                goto done;
            }
            for (int i = 0; i < size; i++)
                dz[i] = -r[i];
            linsolve_solve(&ls, dz);
        }
        // backtracking on |r|: halve the step until the residual decreases (20 halvings)
        double step = 1.0, trial_norm = INFINITY;
        for (int h = 0; h < 20; h++, step *= 0.5) {
            for (int i = 0; i < size; i++)
                trial[i] = z[i] + step * dz[i];
            analysis_point_eval(&pt, trial, NULL, out->s, t, trial + n);
            residual(&pt, trial + n, r);
            trial_norm = linalg_norm(r, (size_t)size);
            if (trial_norm < norm || !(norm > 0.0))
                break;
        }
        if (!isfinite(trial_norm)) {
            status = error_set(err, DIRAC_ERR_NOT_FINITE, "equilibrium: the equations are not "
                               "finite along the Newton step (iteration %d)", iter + 1);
            goto done;
        }
        memcpy(z, trial, (size_t)size * sizeof *z);
        norm = trial_norm;
    }
    out->iterations = iter;
    out->residual = max_abs(r, size);
    memcpy(out->q, z, (size_t)n * sizeof *z);
    memcpy(out->mu, z + n, (size_t)m->m * sizeof *z);
    if (!(out->residual <= EQUILIBRIUM_RTOL * scale))
        status = error_set(err, DIRAC_ERR_NEWTON, "equilibrium: no static equilibrium found "
                           "from the initial state in %d Newton iterations (residual %.3g, "
                           "force scale %.3g); try other initial values", iter, out->residual,
                           scale);
done:
    if (have_ls)
        linsolve_free(&ls);
    analysis_point_free(&pt);
    free(z);
    free(trial);
    free(r);
    free(dz);
    free(jd);
    if (status != DIRAC_OK && status != DIRAC_ERR_NEWTON)
        dirac_equilibrium_free(out);
    return status;
}
