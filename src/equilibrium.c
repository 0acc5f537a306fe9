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

// The state of a solve: z = (q, μ), the trial point, the residual r, the step dz, the dense
// Jacobian (one block), or the sparse solver.
typedef struct equilibrium_solve {
    const dirac_model *m;
    double t;
    const double *s;          // entropy variables (held)
    int size, dense;
    double *z, *trial, *r, *dz, *jd;
    void *block;
    analysis_point pt;
    linsolve *ls;             // sparse solves (NULL when dense)
} equilibrium_solve;

static void solve_layout(mem_plan *p, equilibrium_solve *e)
{
    size_t size = (size_t)e->size;
    e->z = mem_plan_take(p, size, sizeof *e->z);
    e->trial = mem_plan_take(p, size, sizeof *e->trial);
    e->r = mem_plan_take(p, size, sizeof *e->r);
    e->dz = mem_plan_take(p, size, sizeof *e->dz);
    e->jd = mem_plan_take(p, e->dense ? size * size : 0, sizeof *e->jd);
}

static dirac_status solve_init(equilibrium_solve *e, dirac_error *err)
{
    mem_plan plan = { 0 };
    solve_layout(&plan, e);
    if (!mem_plan_alloc(&plan, NULL))
        return error_set(err, DIRAC_ERR_NOMEM, "out of memory");
    solve_layout(&plan, e);
    e->block = plan.block;
    dirac_status status = analysis_point_init(&e->pt, e->m, err);
    if (status == DIRAC_OK && !e->dense) {
        status = linsolve_create(e->size, true, &e->ls, err);
    }
    return status;
}

static void solve_free(equilibrium_solve *e)
{
    linsolve_destroy(e->ls);
    analysis_point_free(&e->pt);
    mem_free(NULL, e->block);
}

// The sparse Newton direction dz = −J⁻¹ r (KLU; the pattern recorded at the first call).
static dirac_status sparse_direction(equilibrium_solve *e, dirac_error *err)
{
    const dirac_model *m = e->m;
    int n = m->n;
    jacobian_sink sink = { .ls = e->ls, .size = e->size, .sign = 1.0 };
    if (!linsolve_has_pattern(e->ls)) {
        linsolve_begin_pattern(e->ls);
        jacobian(&e->pt, &sink);
        dirac_status status = linsolve_end_pattern(e->ls, err);
        if (status != DIRAC_OK)
            return status;
    }
    linsolve_zero(e->ls);
    jacobian(&e->pt, &sink);
    int bad = -1;
    if (linsolve_factor(e->ls, &bad) != DIRAC_OK) {
        const char *what = bad >= 0 && bad < n ? m->coord_names[bad]
                           : bad >= n && bad < e->size ? m->constraints[bad - n].name : "?";
        return error_set(err, DIRAC_ERR_SINGULAR,
                         "equilibrium: the Jacobian is singular (at '%s'): the equilibrium is "
                         "not isolated or the constraints are dependent; models with more "
                         "than %d unknowns need an isolated equilibrium", what,
                         DIRAC_EQUILIBRIUM_DENSE_MAX);
    }
    for (int i = 0; i < e->size; i++)
        e->dz[i] = -e->r[i];
    linsolve_solve(e->ls, e->dz);
    return DIRAC_OK;
}

// The Newton direction: dense systems take the minimum-norm least-squares step, which also
// settles undetermined multipliers; large ones solve with KLU.
static dirac_status newton_direction(equilibrium_solve *e, dirac_error *err)
{
    if (!e->dense)
        return sparse_direction(e, err);
    size_t size = (size_t)e->size;
    memset(e->jd, 0, size * size * sizeof *e->jd);
    jacobian_sink sink = { .dense = e->jd, .size = e->size, .sign = 1.0 };
    jacobian(&e->pt, &sink);
    for (size_t i = 0; i < size; i++)
        e->dz[i] = -e->r[i];
    return linalg_least_squares(e->size, e->jd, e->dz, "equilibrium: the least-squares step",
                                err);
}

// Backtracking on |r|: halves the step until the residual decreases (20 halvings), then
// moves z there; the new |r| (not finite: the equations are not finite along the step).
static double backtrack(equilibrium_solve *e, double norm)
{
    int n = e->m->n;
    double step = 1.0, trial_norm = INFINITY;
    for (int h = 0; h < 20; h++, step *= 0.5) {
        for (int i = 0; i < e->size; i++)
            e->trial[i] = e->z[i] + step * e->dz[i];
        analysis_point_eval(&e->pt, e->trial, NULL, e->s, e->t, e->trial + n);
        residual(&e->pt, e->trial + n, e->r);
        trial_norm = linalg_norm(e->r, (size_t)e->size);
        if (trial_norm < norm || !(norm > 0.0))
            break;
    }
    memcpy(e->z, e->trial, (size_t)e->size * sizeof *e->z);
    return trial_norm;
}

// Damped Newton from z (the point evaluated there) until max |r| <= EQUILIBRIUM_RTOL * scale;
// the iterations into out.
static dirac_status newton(equilibrium_solve *e, double scale, dirac_equilibrium *out,
                           dirac_error *err)
{
    residual(&e->pt, e->z + e->m->n, e->r);
    double norm = linalg_norm(e->r, (size_t)e->size);
    int iter = 0;
    for (; iter < EQUILIBRIUM_MAX_ITER && !(max_abs(e->r, e->size) <= EQUILIBRIUM_RTOL * scale);
         iter++) {
        dirac_status status = newton_direction(e, err);
        if (status != DIRAC_OK)
            return status;
        norm = backtrack(e, norm);
        if (!isfinite(norm))
            return error_set(err, DIRAC_ERR_NOT_FINITE, "equilibrium: the equations are not "
                             "finite along the Newton step (iteration %d)", iter + 1);
    }
    out->iterations = iter;
    return DIRAC_OK;
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
    int n = m->n;
    out->t = t;
    out->q = calloc((size_t)n + 1, sizeof *out->q);
    out->s = calloc((size_t)m->ns + 1, sizeof *out->s);
    out->mu = calloc((size_t)m->m + 1, sizeof *out->mu);
    equilibrium_solve e = { .m = m, .t = t, .s = out->s, .size = n + m->m,
                            .dense = n + m->m <= DIRAC_EQUILIBRIUM_DENSE_MAX };
    dirac_status status = out->q && out->s && out->mu
                              ? solve_init(&e, err)
                              : error_set(err, DIRAC_ERR_NOMEM, "out of memory");
    if (status == DIRAC_OK) {
        memcpy(e.z, q_guess ? q_guess : m->q0, (size_t)n * sizeof *e.z);
        memcpy(out->s, s_guess ? s_guess : m->s0, (size_t)m->ns * sizeof *out->s);
        if (!linalg_all_finite(e.z, (size_t)n) || !linalg_all_finite(out->s, (size_t)m->ns))
            status = error_set(err, DIRAC_ERR_NOT_FINITE, "equilibrium: the guess is not finite");
    }
    if (status == DIRAC_OK) {
        // The force scale: the largest single term at the guess (gravity, springs, ...), so
        // that the tolerance is relative to the forces at play; 1 when everything vanishes.
        analysis_point_eval(&e.pt, e.z, NULL, out->s, t, e.z + n);
        out->scale = fmax(1.0, fmax(max_abs(e.pt.gradient, n), max_abs(e.pt.forces, n)));
        status = newton(&e, out->scale, out, err);
    }
    if (status == DIRAC_OK) {
        out->residual = max_abs(e.r, e.size);
        memcpy(out->q, e.z, (size_t)n * sizeof *e.z);
        memcpy(out->mu, e.z + n, (size_t)m->m * sizeof *e.z);
        if (!(out->residual <= EQUILIBRIUM_RTOL * out->scale))
            status = error_set(err, DIRAC_ERR_NEWTON, "equilibrium: no static equilibrium "
                               "found from the initial state in %d Newton iterations "
                               "(residual %.3g, force scale %.3g); try other initial values",
                               out->iterations, out->residual, out->scale);
    }
    solve_free(&e);
    if (status != DIRAC_OK && status != DIRAC_ERR_NEWTON)
        dirac_equilibrium_free(out);
    return status;
}
