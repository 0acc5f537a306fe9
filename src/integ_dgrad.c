// `dgrad`: a discrete-gradient Lagrange–Dirac scheme with an exact discrete energy balance
// (first law) and entropy production ≥ 0 by construction (second law), for mechanical and
// thermodynamic models (docs/methods.md, "dgrad"). With x = (q, v, S, t), x̄ = (x_k + x_{k+1})/2
// and the averaged-vector-field discrete gradient D̄L = ∫₀¹ ∇L(x_k + s Δx) ds (4-point
// Gauss–Legendre: D̄L·Δx = ΔL up to a quadrature error of order |Δx|⁹, far below rounding at
// practical steps, and no cancellation near rest), the unknowns (q_{k+1}, v_{k+1}, p_{k+1},
// S_{k+1}, λ) solve
//   q_{k+1} − q_k = h v̄,                      v̄ = (v_k + v_{k+1})/2
//   p̄ = D̄L_v,                                 p̄ = (p_k + p_{k+1})/2
//   p_{k+1} − p_k = h (D̄L_q + F̄ + Σ_a λ_a ω̄_a)
//   T̄_j (S_{k+1} − S_k)_j = h (−Σ_{friction → j} F̄^fr·v̄ + Σ κ̄ (T̄_i − T̄_j) + P̄_j),  T̄ = −D̄L_S
//   φ_a(q_{k+1}, t_{k+1}) = 0 (holonomic; ω̄_a = D̄φ_a, the same average of ∇φ_a),
//   ⟨ω_a, v̄⟩ + b_a = 0 at x̄ (nonholonomic)
// Then E_{k+1} − E_k = h F̄^ext·v̄ + h ΣP̄ − h D̄L_t − h Σ λ_a (driving terms), with E = ⟨p, v⟩ − L.
#include "sim.h"

#include <float.h>
#include <math.h>
#include <string.h>

// evaluation points: the new node (temperatures); the midpoint x̄; quadrature points, then the
// new node's constraints
enum { START = SIM_EVAL_STEP_A, MID = SIM_EVAL_STEP_B, END = SIM_EVAL_STEP_C };

// Offsets of the blocks of the unknowns.
typedef struct dgrad_layout {
    int n, ns, m, d;            // d = 2n + ns + 1: the dimension of x = (q, v, S, t)
    int zq, zv, zp, zs, zl, size;
} dgrad_layout;

// Workspace of one step.
typedef struct dgrad_state {
    double *z;                        // Newton unknowns [q | v | p | S | λ] at t_{k+1}
    int *block;                       // their blocks
    double *x0, *x1, *xbar, *dx;      // x_k, x_{k+1}, x̄, Δx (d each)
    double *dg;                       // the discrete gradient D̄L (d)
    double *xs;                       // a quadrature point (d)
    double *vbar, *temperature;       // v̄ (n), T̄ = −D̄L_S (ns)
    double *avf_forms, *avf_rates;    // averaged constraint forms and rates (D̄φ)
    bool midpoint_rule;               // the averaged fields are affine: D̄L = ∇L(x̄), D̄φ = ∇φ(x̄)
} dgrad_state;

// The assembly callback's context.
typedef struct dgrad_ctx {
    dirac_sim *sim;
    dgrad_state *st;
} dgrad_ctx;

static dgrad_layout layout_of(const dirac_sim *sim)
{
    dgrad_layout l;
    l.n = sim->n;
    l.ns = sim->ns;
    l.m = sim->mc;
    l.d = 2 * l.n + l.ns + 1;
    l.zq = 0;
    l.zv = l.n;
    l.zp = 2 * l.n;
    l.zs = 3 * l.n;
    l.zl = 3 * l.n + l.ns;
    l.size = l.zl + l.m;
    return l;
}

static void dgrad_state_layout(const dirac_sim *sim, void *state, sim_layout *l)
{
    dgrad_state *st = state;
    dgrad_layout d = layout_of(sim);
    st->z = sim_layout_doubles(l, (size_t)d.size);
    st->block = sim_layout_ints(l, (size_t)d.size);
    double **points[] = { &st->x0, &st->x1, &st->xbar, &st->dx, &st->dg, &st->xs };
    for (size_t k = 0; k < sizeof points / sizeof points[0]; k++)
        *points[k] = sim_layout_doubles(l, (size_t)d.d);
    st->vbar = sim_layout_doubles(l, (size_t)d.n);
    st->temperature = sim_layout_doubles(l, (size_t)d.ns);
    st->avf_forms = sim_layout_doubles(l, (size_t)sim->model->constraint_forms.nnz);
    st->avf_rates = sim_layout_doubles(l, (size_t)d.m);
    sim_layout_newton(l, d.size);
    sim_layout_solver(l, SIM_SOLVER_STAGE1, d.size);
}

static void pack(const dgrad_layout *l, const double *q, const double *v, const double *s,
                 double t, double *x)
{
    memcpy(x, q, (size_t)l->n * sizeof *x);
    memcpy(x + l->n, v, (size_t)l->n * sizeof *x);
    if (l->ns)
        memcpy(x + 2 * l->n, s, (size_t)l->ns * sizeof *x);
    x[l->d - 1] = t;
}

// The averages need no quadrature when ∇L, the forms and the rates are affine in the point
// (quadratic Lagrangians of masses, springs, inductors and capacitors under uniform fields, with
// quadratic constraints such as rods): the midpoint value is then exact, so D̄L·Δx = ΔL still
// holds to rounding (sim_linear.c decides it from the expressions).
static dirac_status dgrad_init(dirac_sim *sim, void *state)
{
    dgrad_state *st = state;
    return sim_gradients_affine(sim->model, &st->midpoint_rule);   // NOMEM: creation fails
}

// 4-point Gauss–Legendre rule on [0, 1] (exact for polynomials of degree 7).
static const double gauss_s[4] = { 0.0694318442029737, 0.3300094782075719, 0.6699905217924281,
                                   0.9305681557970263 };
static const double gauss_w[4] = { 0.1739274225687269, 0.3260725774312731, 0.3260725774312731,
                                   0.1739274225687269 };

// Everything the residual and the Jacobian need at z: the midpoint evaluation (forces,
// nonholonomic constraints, Hessian for the Jacobian, thermal values), the discrete gradient of
// L into st->dg (d entries), and the averaged forms and rates of the constraints
// (st->avf_forms, st->avf_rates), and the constraints at the new node (eval[END]).
static void evaluate_step(dirac_sim *sim, dgrad_state *st, const dgrad_layout *l, const double *z,
                          int jacobian)
{
    const dirac_model *m = sim->model;
    double *x0 = st->x0, *x1 = st->x1, *xbar = st->xbar, *dx = st->dx, *dg = st->dg, *xs = st->xs;
    pack(l, z + l->zq, z + l->zv, z + l->zs, sim->t + sim->h, x1);
    for (int i = 0; i < l->d; i++) {
        xbar[i] = 0.5 * (x0[i] + x1[i]);
        dx[i] = x1[i] - x0[i];
        dg[i] = 0.0;
    }
    sim_eval *mid = &sim->eval[MID], *end = &sim->eval[END];
    const double *lambda = z + l->zl;
    sim_evaluate(sim, mid, xbar, xbar + l->n, xbar + 2 * l->n, xbar[l->d - 1], lambda,
                 EVAL_GRADIENT | EVAL_FORCES | EVAL_CONSTRAINTS |
                     (jacobian ? EVAL_HESSIAN | EVAL_CONSTRAINT_JAC | EVAL_CURVATURE : 0));
    model_group_eval(&m->thermal, mid->x, sim->tape_work, sim->thermal_values);
    const model_sparse *f = &m->constraint_forms;
    if (st->midpoint_rule) {   // affine fields: their averages are the midpoint values
        memcpy(dg, mid->gradient, (size_t)l->d * sizeof *dg);
        memcpy(st->avf_forms, mid->forms, (size_t)f->nnz * sizeof *st->avf_forms);
        memcpy(st->avf_rates, mid->rates, (size_t)l->m * sizeof *st->avf_rates);
        sim_evaluate(sim, end, x1, x1 + l->n, x1 + 2 * l->n, x1[l->d - 1], NULL,
                     EVAL_CONSTRAINTS);
        return;
    }
    // averaged vector field: D̄L and D̄φ by quadrature along the segment x_k → x_{k+1}
    memset(st->avf_forms, 0, (size_t)f->nnz * sizeof *st->avf_forms);
    memset(st->avf_rates, 0, (size_t)l->m * sizeof *st->avf_rates);
    for (int k = 0; k < 4; k++) {
        for (int i = 0; i < l->d; i++)
            xs[i] = x0[i] + gauss_s[k] * dx[i];
        sim_evaluate(sim, end, xs, xs + l->n, xs + 2 * l->n, xs[l->d - 1], NULL,
                     EVAL_GRADIENT | (l->m > 0 ? EVAL_CONSTRAINTS : 0));
        for (int i = 0; i < l->d; i++)
            dg[i] += gauss_w[k] * end->gradient[i];
        for (int j = 0; j < f->nnz; j++)
            st->avf_forms[j] += gauss_w[k] * end->forms[j];
        for (int a = 0; a < l->m; a++)
            st->avf_rates[a] += gauss_w[k] * end->rates[a];
    }
    sim_evaluate(sim, end, x1, x1 + l->n, x1 + 2 * l->n, x1[l->d - 1], NULL, EVAL_CONSTRAINTS);
}

static int assemble_dgrad(void *context, const double *z, double *r, linsolve *jac)
{
    dgrad_ctx *cx = context;
    dirac_sim *sim = cx->sim;
    dgrad_state *st = cx->st;
    const dirac_model *m = sim->model;
    dgrad_layout l = layout_of(sim);
    evaluate_step(sim, st, &l, z, jac != NULL);
    const double *dg = st->dg;
    const double *thermal = sim->thermal_values, *lambda = z + l.zl, h = sim->h;
    const sim_eval *mid = &sim->eval[MID], *end = &sim->eval[END];
    const model_sparse *f = &m->constraint_forms;
    int n = l.n;
    double *vbar = st->vbar, *temp = st->temperature;
    for (int i = 0; i < n; i++)
        vbar[i] = 0.5 * (sim->v[i] + z[l.zv + i]);
    for (int j = 0; j < l.ns; j++)
        temp[j] = -dg[2 * n + j];
    for (int i = 0; i < n; i++) {
        r[l.zq + i] = z[l.zq + i] - sim->q[i] - h * vbar[i];
        r[l.zv + i] = 0.5 * (sim->p[i] + z[l.zp + i]) - dg[n + i];
        r[l.zp + i] = z[l.zp + i] - sim->p[i] - h * (dg[i] + mid->forces[i]);
    }
    // constraint forces h Σ λ_a ω̄_a (ω̄_a = D̄φ_a for holonomic ones) and the constraints
    for (int a = 0; a < l.m; a++) {
        int holonomic = m->constraints[a].kind == DIRAC_CONSTRAINT_HOLONOMIC;
        const double *forms = holonomic ? st->avf_forms : mid->forms;
        for (int k = f->row_start[a]; k < f->row_start[a + 1]; k++)
            r[l.zp + f->col[k]] -= h * lambda[a] * forms[k];
        if (holonomic) {
            r[l.zl + a] = end->values[a];
        } else {
            double g = mid->rates[a];
            for (int k = f->row_start[a]; k < f->row_start[a + 1]; k++)
                g += mid->forms[k] * vbar[f->col[k]];
            r[l.zl + a] = g;
        }
    }
    // entropy: T̄ ΔS = h (−F̄^fr·v̄ + Σ κ̄ ΔT + P̄)
    sim_entropy_residual(sim, temp, thermal, vbar, z + l.zs, h, r + l.zs);
    if (!jac)
        return 0;
    // approximate Jacobian: derivatives at the midpoint, discrete-gradient corrections ignored
    int yS = 2 * n;   // column offset of S in the Hessian's y = (q, v, S, t)
    for (int i = 0; i < n; i++) {
        linsolve_add(jac, (l.zq + i), (l.zq + i), 1.0);
        linsolve_add(jac, (l.zq + i), (l.zv + i), -0.5 * h);
        linsolve_add(jac, (l.zv + i), (l.zp + i), 0.5);
        linsolve_add(jac, (l.zp + i), (l.zp + i), 1.0);
    }
    // E2 = p̄ − L_v: −½ (H_vq, H_vv, H_vS)
    sim_add_hessian_block(sim, mid, n, n, 0, n, -0.5, jac, l.zv, l.zq);
    sim_add_hessian_block(sim, mid, n, n, n, n, -0.5, jac, l.zv, l.zv);
    sim_add_hessian_block(sim, mid, n, n, yS, l.ns, -0.5, jac, l.zv, l.zs);
    // E3 = Δp − h (L_q + F + ωᵀλ): −h/2 (H_qq + F_q + C_λ, H_qv + F_v, H_qS + F_S), −h ωᵀ
    sim_add_hessian_block(sim, mid, 0, n, 0, n, -0.5 * h, jac, l.zp, l.zq);
    sim_add_hessian_block(sim, mid, 0, n, n, n, -0.5 * h, jac, l.zp, l.zv);
    sim_add_hessian_block(sim, mid, 0, n, yS, l.ns, -0.5 * h, jac, l.zp, l.zs);
    sim_add_sparse_block(&m->force_jacobian, mid->force_jac, 0, n, 0, n, -0.5 * h, jac, l.zp, l.zq);
    sim_add_sparse_block(&m->force_jacobian, mid->force_jac, 0, n, n, n, -0.5 * h, jac, l.zp, l.zv);
    sim_add_sparse_block(&m->force_jacobian, mid->force_jac, 0, n, yS, l.ns, -0.5 * h, jac, l.zp, l.zs);
    sim_add_sparse_block(&m->form_curvature, mid->curvature, 0, n, 0, n, -0.5 * h, jac, l.zp, l.zq);
    for (int a = 0; a < l.m; a++) {
        const double *forms =
            m->constraints[a].kind == DIRAC_CONSTRAINT_HOLONOMIC ? st->avf_forms : mid->forms;
        for (int k = f->row_start[a]; k < f->row_start[a + 1]; k++)
            linsolve_add(jac, l.zp + f->col[k], l.zl + a, -h * forms[k]);
        if (m->constraints[a].kind == DIRAC_CONSTRAINT_HOLONOMIC) {
            sim_add_sparse_block(f, end->forms, a, 1, 0, n, 1.0, jac, l.zl + a, l.zq);
        } else {
            sim_add_sparse_block(&m->constraint_jacobian, mid->constraint_jac, a, 1, 0, n, 0.5,
                                 jac, l.zl + a, l.zq);
            sim_add_sparse_block(f, mid->forms, a, 1, 0, n, 0.5, jac, l.zl + a, l.zv);
        }
    }
    // E4: T̄_j on the diagonal, −½ H_SS ΔS_j, and the friction power's dependence on v
    for (int j = 0; j < l.ns; j++)
        linsolve_add(jac, (l.zs + j), (l.zs + j), temp[j]);
    for (int j = 0; j < l.ns; j++)
        for (int k = m->hessian.row_start[yS + j]; k < m->hessian.row_start[yS + j + 1]; k++) {
            int col = m->hessian.col[k] - yS;
            if (col >= 0 && col < l.ns)
                linsolve_add(jac, (l.zs + j), (l.zs + col), -0.5 * mid->hessian[k] * (z[l.zs + j] - sim->s[j]));
        }
    for (int k = 0; k < m->friction_count; k++)
        linsolve_add(jac, l.zs + m->friction_entropy[k], l.zv + m->friction_coord[k],
                     0.5 * h * thermal[k]);
    return 0;
}

static void name_dgrad_rows(const dirac_sim *sim, int index, char *buf, size_t size)
{
    dgrad_layout l = layout_of(sim);
    const dirac_model *m = sim->model;
    if (index < l.zv)
        snprintf(buf, size, "the velocity of %s", m->coord_names[index]);
    else if (index < l.zp)
        snprintf(buf, size, "the Legendre map p.%s", m->coord_names[index - l.zv]);
    else if (index < l.zs)
        snprintf(buf, size, "the momentum balance of %s", m->coord_names[index - l.zp]);
    else if (index < l.zl)
        snprintf(buf, size, "the entropy balance of %s", m->entropy_names[index - l.zs]);
    else
        snprintf(buf, size, "constraint %s", m->constraints[index - l.zl].name);
}

static dirac_status dgrad_step(dirac_sim *sim, void *state)
{
    dgrad_state *st = state;
    dgrad_ctx cx = { sim, st };
    const dirac_model *m = sim->model;
    dgrad_layout l = layout_of(sim);
    double h = sim->h, *z = st->z;
    int *block = st->block;
    // the fixed start point x_k
    pack(&l, sim->q, sim->v, sim->s, sim->t, st->x0);
    for (int i = 0; i < l.n; i++) {
        z[l.zq + i] = sim->q[i] + h * sim->v[i];
        z[l.zv + i] = sim->v[i];
        z[l.zp + i] = sim->p[i];
        block[l.zq + i] = 0;
        block[l.zv + i] = 1;
        block[l.zp + i] = 2;
    }
    for (int j = 0; j < l.ns; j++) {
        z[l.zs + j] = sim->s[j];
        block[l.zs + j] = 3;
    }
    for (int a = 0; a < l.m; a++) {
        z[l.zl + a] = sim->mu[a];
        block[l.zl + a] = 4;
    }
    // the first law holds only as far as the equations do: solve to rounding level
    dirac_status status =
        newton_solve(&sim->nw, sim_solver(sim, SIM_SOLVER_STAGE1, l.size), l.size, z, block,
                     assemble_dgrad, &cx, fmin(sim->rtol, 1e-14), 2 * sim->max_iterations);
    if (status != DIRAC_OK)
        return sim_fail_newton(sim, status, "implicit step", name_dgrad_rows);
    sim->newton_iterations = sim->nw.iterations;
    evaluate_step(sim, st, &l, z, 0);
    const double *dx = st->dx, *dg = st->dg;
    // temperatures must stay positive: the discrete ones and those at the new node (its own
    // slot: the step's evaluation in MID and END stays valid for the work below)
    if (l.ns > 0) {
        sim_evaluate(sim, &sim->eval[START], z + l.zq, z + l.zv, z + l.zs, sim->t + h, NULL,
                     EVAL_GRADIENT);
        for (int j = 0; j < l.ns; j++) {
            double discrete = -dg[2 * l.n + j], node = -sim->eval[START].gradient[2 * l.n + j];
            if (!(discrete > 0.0) || !(node > 0.0))
                return sim_fail_temperature(sim, j, discrete > 0.0 ? node : discrete);
        }
    }
    // discrete work: external forces, heat input, explicit time dependence, driven constraints
    const sim_eval *mid = &sim->eval[MID];
    const double *thermal = sim->thermal_values, *lambda = z + l.zl;
    double work = -h * dg[l.d - 1];
    for (int i = 0; i < l.n; i++)
        work += mid->forces[i] * dx[i];
    work += sim_thermal_work(sim, thermal, dx, h);
    for (int a = 0; a < l.m; a++) {
        if (!m->constraints[a].time_dependent)
            continue;
        double driving = m->constraints[a].kind == DIRAC_CONSTRAINT_HOLONOMIC
                             ? st->avf_rates[a]
                             : mid->rates[a];
        work -= h * lambda[a] * driving;
    }
    sim_node *next = &sim->next;   // the new node (writes_next)
    for (int i = 0; i < l.n; i++) {
        next->q[i] = z[l.zq + i];
        next->v[i] = z[l.zv + i];
        next->p[i] = z[l.zp + i];
    }
    memcpy(next->s, z + l.zs, (size_t)l.ns * sizeof *next->s);
    memcpy(next->mu, lambda, (size_t)l.m * sizeof *next->mu);
    sim->work += work;
    return DIRAC_OK;
}

const sim_method sim_method_dgrad = {
    .info = { "dgrad", 2,
              "exact discrete energy balance (first law) and entropy production >= 0 at every "
              "step (second law); holonomic constraints at position level; symmetric",
              "discrete-gradient Lagrange-Dirac scheme for mechanical and thermodynamic models" },
    .thermodynamic = true,
    .state_size = sizeof(dgrad_state),
    .layout = dgrad_state_layout,
    .init = dgrad_init,
    .step = dgrad_step,
    .writes_next = true,
    .unconstrained_node_velocity = true,
};
