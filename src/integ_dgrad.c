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
// The first two equations give q_{k+1} = q_k + h v̄ and p_{k+1} = 2 D̄L_v − p_k explicitly, so
// Newton solves for (v_{k+1}, S_{k+1}, λ) alone (the Schur complement of the full system on
// its q and p rows, a block-triangular block of determinant 2⁻ⁿ: nonsingular exactly when the
// full one is); the accepted step takes p_{k+1} from the third equation (dgrad_step).
#include "sim.h"
#include "sim_dense_plan.h"

#include <float.h>
#include <math.h>
#include <string.h>

// evaluation points: the new node (temperatures); the midpoint x̄; quadrature points, then the
// new node's constraints
enum { START = SIM_EVAL_STEP_A, MID = SIM_EVAL_STEP_B, END = SIM_EVAL_STEP_C };

// Offsets of the blocks of the unknowns (and of the equations: momentum balances, entropy
// balances, constraints).
typedef struct dgrad_layout {
    int n, ns, m, d;            // d = 2n + ns + 1: the dimension of x = (q, v, S, t)
    int zv, zs, zl, size;
} dgrad_layout;

// Workspace of one step.
typedef struct dgrad_state {
    double *z;                        // Newton unknowns [v | S | λ] at t_{k+1}
    int *block;                       // their blocks
    double *q1, *p1;                  // q_{k+1} = q_k + h v̄, p_{k+1} (n each; dgrad_step)
    // history: the velocity at the node before and the step from it (0: none kept yet)
    double *previous_v, *previous_h;
    double *x0, *x1, *xbar, *dx;      // x_k, x_{k+1}, x̄, Δx (d each)
    double *dg;                       // the discrete gradient D̄L (d)
    double *xs;                       // a quadrature point (d)
    double *vbar, *temperature;       // v̄ (n), T̄ = −D̄L_S (ns)
    double *avf_forms, *avf_rates;    // averaged constraint forms and rates (D̄φ)
    bool midpoint_rule;               // the averaged fields are affine: D̄L = ∇L(x̄), D̄φ = ∇φ(x̄)
    // dense Jacobians (small systems): the additions of the sparse blocks, unrolled once per
    // step size (plan_h; 0: none), in the order of the block-by-block assembly
    sim_dense_plan plan;
    double plan_h;
} dgrad_state;

#define DGRAD_PLAN_MAX_SIZE 64

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
    l.zv = 0;
    l.zs = l.n;
    l.zl = l.n + l.ns;
    l.size = l.zl + l.m;
    return l;
}

static void dgrad_state_layout(const dirac_sim *sim, void *state, sim_layout *l)
{
    dgrad_state *st = state;
    dgrad_layout d = layout_of(sim);
    st->z = sim_layout_doubles(l, (size_t)d.size);
    st->block = sim_layout_ints(l, (size_t)d.size);
    st->q1 = sim_layout_doubles(l, (size_t)d.n);
    st->p1 = sim_layout_doubles(l, (size_t)d.n);
    st->previous_v = sim_layout_doubles(l, (size_t)d.n);
    st->previous_h = sim_layout_doubles(l, 1);
    double **points[] = { &st->x0, &st->x1, &st->xbar, &st->dx, &st->dg, &st->xs };
    for (size_t k = 0; k < sizeof points / sizeof points[0]; k++)
        *points[k] = sim_layout_doubles(l, (size_t)d.d);
    st->vbar = sim_layout_doubles(l, (size_t)d.n);
    st->temperature = sim_layout_doubles(l, (size_t)d.ns);
    st->avf_forms = sim_layout_doubles(l, (size_t)sim->model->constraint_forms.nnz);
    st->avf_rates = sim_layout_doubles(l, (size_t)d.m);
    sim_layout_newton(l, d.size);
    sim_layout_solver(l, SIM_SOLVER_STAGE1, d.size);
    if (d.size <= DGRAD_PLAN_MAX_SIZE) {
        // each entry of a sparse matrix lies in at most one block; ω enters thrice (Λ's columns,
        // holonomic or nonholonomic rows)
        const dirac_model *m = sim->model;
        size_t capacity = (size_t)m->hessian.nnz + (size_t)m->force_jacobian.nnz +
                          (size_t)m->form_curvature.nnz + (size_t)m->constraint_jacobian.nnz +
                          3 * (size_t)m->constraint_forms.nnz;
        sim_dense_plan_layout(l, &st->plan, capacity);
    }
}

static void dgrad_history(const dirac_sim *sim, void *state, sim_history *out)
{
    dgrad_state *st = state;
    *out = (sim_history){ 2, { st->previous_v, st->previous_h }, { (size_t)sim->n, 1 } };
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

// Everything the residual and the Jacobian need at z (with q_{k+1} = q_k + h v̄ into st->q1):
// the midpoint evaluation (forces,
// nonholonomic constraints, Hessian for the Jacobian, thermal values), the discrete gradient of
// L into st->dg (d entries), and the averaged forms and rates of the constraints
// (st->avf_forms, st->avf_rates), and the constraints at the new node (eval[END]).
static void evaluate_step(dirac_sim *sim, dgrad_state *st, const dgrad_layout *l, const double *z,
                          int jacobian)
{
    const dirac_model *m = sim->model;
    double *x0 = st->x0, *x1 = st->x1, *xbar = st->xbar, *dx = st->dx, *dg = st->dg, *xs = st->xs;
    for (int i = 0; i < l->n; i++)
        st->q1[i] = sim->q[i] + sim->h * (0.5 * (sim->v[i] + z[l->zv + i]));
    pack(l, st->q1, z + l->zv, z + l->zs, sim->t + sim->h, x1);
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

// Adds scale × the block (rows row_first.., columns col_first..) of the sparse matrix sp with
// values `values` at (r0, c0): into jac, or (jac NULL) as entries of the dense plan.
static void add_block(dgrad_state *st, int size, const model_sparse *sp, const double *values,
                      int row_first, int rows, int col_first, int cols, double scale,
                      linsolve *jac, int r0, int c0)
{
    if (jac) {
        sim_add_sparse_block(sp, values, row_first, rows, col_first, cols, scale, jac, r0, c0);
        return;
    }
    sim_dense_plan_block(&st->plan, sp, values, row_first, rows, col_first, cols, size, 1, &r0,
                         &c0, &scale);
}

// The Jacobian's blocks that are fixed multiples of evaluated values, into jac or (jac NULL)
// the dense plan. Approximate Jacobian: derivatives at the midpoint, discrete-gradient
// corrections ignored; ∂x̄/∂v_{k+1} = (h/4 in q, 1/2 in v), ∂x̄/∂S_{k+1} = 1/2 in S.
static void jacobian_blocks(const dirac_sim *sim, dgrad_state *st, const dgrad_layout *l,
                            linsolve *jac)
{
    const dirac_model *m = sim->model;
    const model_sparse *f = &m->constraint_forms, *hs = &m->hessian, *fj = &m->force_jacobian;
    const sim_eval *mid = &sim->eval[MID], *end = &sim->eval[END];
    int n = l->n, ns = l->ns, size = l->size, zv = l->zv, zs = l->zs, zl = l->zl;
    int yS = 2 * n;   // column offset of S in the Hessian's y = (q, v, S, t)
    double h = sim->h, h2 = 0.5 * h, h4 = 0.25 * h * h;
    // 2 L_v: H_vv + h/2 H_vq, H_vS; −h (L_q + F): −h/2 (H_qv + F_v) − h²/4 (H_qq + F_q + C_λ),
    // −h/2 (H_qS + F_S); −h ω̄ᵀ
    add_block(st, size, hs, mid->hessian, n, n, n, n, 1.0, jac, zv, zv);
    add_block(st, size, hs, mid->hessian, n, n, 0, n, h2, jac, zv, zv);
    add_block(st, size, hs, mid->hessian, n, n, yS, ns, 1.0, jac, zv, zs);
    add_block(st, size, hs, mid->hessian, 0, n, n, n, -h2, jac, zv, zv);
    add_block(st, size, hs, mid->hessian, 0, n, 0, n, -h4, jac, zv, zv);
    add_block(st, size, hs, mid->hessian, 0, n, yS, ns, -h2, jac, zv, zs);
    add_block(st, size, fj, mid->force_jac, 0, n, n, n, -h2, jac, zv, zv);
    add_block(st, size, fj, mid->force_jac, 0, n, 0, n, -h4, jac, zv, zv);
    add_block(st, size, fj, mid->force_jac, 0, n, yS, ns, -h2, jac, zv, zs);
    add_block(st, size, &m->form_curvature, mid->curvature, 0, n, 0, n, -h4, jac, zv, zv);
    for (int a = 0; a < l->m; a++) {
        bool holonomic = m->constraints[a].kind == DIRAC_CONSTRAINT_HOLONOMIC;
        const double *forms = holonomic ? st->avf_forms : mid->forms;
        // Λ's column: −h ω̄_a (one row of the forms, transposed)
        for (int k = f->row_start[a]; k < f->row_start[a + 1]; k++) {
            if (jac) {
                linsolve_add(jac, zv + f->col[k], zl + a, -h * forms[k]);
                continue;
            }
            sim_dense_plan_entry(&st->plan, forms + k, (zl + a) * size + zv + f->col[k], -h);
        }
        if (holonomic) {   // ∂(φ(q_{k+1})/h)/∂v_{k+1} = ω(q_{k+1})/2
            add_block(st, size, f, end->forms, a, 1, 0, n, 0.5, jac, zl + a, zv);
        } else {
            add_block(st, size, &m->constraint_jacobian, mid->constraint_jac, a, 1, 0, n,
                      0.25 * h, jac, zl + a, zv);
            add_block(st, size, f, mid->forms, a, 1, 0, n, 0.5, jac, zl + a, zv);
        }
    }
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
    // momentum balance with p_{k+1} = 2 D̄L_v − p_k: 2 D̄L_v − 2 p_k − h (D̄L_q + F̄ + ω̄ᵀλ)
    for (int i = 0; i < n; i++) {
        st->p1[i] = 2.0 * dg[n + i] - sim->p[i];
        r[l.zv + i] = st->p1[i] - sim->p[i] - h * (dg[i] + mid->forces[i]);
    }
    // constraint forces h Σ λ_a ω̄_a (ω̄_a = D̄φ_a for holonomic ones) and the constraints:
    // holonomic ones as φ(q_{k+1})/h (its derivative in v_{k+1} is ω/2, as the momentum rows'
    // are O(1)), rounded at the scale of the absolute positions q_{k+1} (newton.h)
    for (int a = 0; a < l.m; a++) {
        int holonomic = m->constraints[a].kind == DIRAC_CONSTRAINT_HOLONOMIC;
        const double *forms = holonomic ? st->avf_forms : mid->forms;
        for (int k = f->row_start[a]; k < f->row_start[a + 1]; k++)
            r[l.zv + f->col[k]] -= h * lambda[a] * forms[k];
        if (holonomic) {
            r[l.zl + a] = end->values[a] / h;
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
    if (st->plan.capacity > 0 && linsolve_dense_values(jac)) {
        if (st->plan_h != h) {
            st->plan.count = 0;
            jacobian_blocks(sim, st, &l, NULL);
            st->plan_h = h;
        }
        sim_dense_plan_add(&st->plan, 0, st->plan.count, linsolve_dense_values(jac));
    } else {
        jacobian_blocks(sim, st, &l, jac);
    }
    // the magnitudes of the momentum rows' terms that J |v| does not show (p_k; D̄L_v of
    // Lagrangians linear in v)
    double *hidden = sim->nw.hidden_magnitude;
    for (int i = 0; i < n; i++)
        hidden[l.zv + i] += 2.0 * fabs(dg[n + i]) + 2.0 * fabs(sim->p[i]) +
                            h * (fabs(dg[i]) + fabs(mid->forces[i]));
    sim_add_position_magnitude(sim, end, st->q1, 1.0 / h, hidden + l.zl);
    // E4: T̄_j on the diagonal, −½ H_SS ΔS_j, and the friction power's dependence on v
    int yS = 2 * n;   // column offset of S in the Hessian's y = (q, v, S, t)
    for (int j = 0; j < l.ns; j++)
        linsolve_add(jac, (l.zs + j), (l.zs + j), temp[j]);
    for (int j = 0; j < l.ns; j++)
        for (int k = m->hessian.row_start[yS + j]; k < m->hessian.row_start[yS + j + 1]; k++) {
            int col = m->hessian.col[k] - yS;
            if (col >= 0 && col < l.ns)
                linsolve_add(jac, l.zs + j, l.zs + col,
                             -0.5 * mid->hessian[k] * (z[l.zs + j] - sim->s[j]));
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
    if (index < l.zs)
        snprintf(buf, size, "the momentum balance of %s", m->coord_names[index - l.zv]);
    else if (index < l.zl)
        snprintf(buf, size, "the entropy balance of %s", m->entropy_names[index - l.zs]);
    else
        snprintf(buf, size, "constraint %s", m->constraints[index - l.zl].name);
}

// The guess extrapolates over at most this many times the last step.
#define DGRAD_EXTRAPOLATION_MAX_RATIO 4.0
// Newton solves in a row before a step whose momentum balances do not hold fails.
#define DGRAD_BALANCE_SOLVES 3
// The equations hold to rounding when the first law's error their residuals leave is within
// this many ε of the same sum over their terms' magnitudes: each residual is a sum of a few
// such terms, each rounded at ε (D̄L's quadrature adds four evaluations).
#define DGRAD_BALANCE_ROUNDING 8.0

// The residuals of the momentum balances and the constraints at z (evaluated: the step's
// values for the work), into sim->nw.residual, and whether the first law's error they leave,
// Σ_i |r_i| |v̄_i| + h Σ_a |λ_a| |r_a|, is within DGRAD_BALANCE_ROUNDING ε of the same sum over
// the magnitudes of the rows' terms (rounding); returns −1 then, else the row with the largest
// share. Magnitudes: momentum rows 2|D̄L_v| + 2|p_k| + h (|D̄L_q| + |F̄| + Σ_a |λ_a ω̄_a|) plus
// the terms inside L_v, L_q and F (inner_magnitude: a stiff spring's force against gravity, a
// resistor's current); nonholonomic rows |b| + Σ |ω_j v̄_j|;
// holonomic rows (|φ| + Σ |ω_j q_j|)/h. Not
// Newton's row scales: those include the residual at the guess, which a far guess (long steps)
// makes large.
// Σ_j |A_rj| |y_j| over the (q, v) columns of row r of the sparse derivative A (values at
// the last Jacobian's point), with vmax added to |v_j|: the magnitude of the terms inside a
// gradient or force entry, which its value alone does not show.
static double inner_magnitude(const model_sparse *a, const double *values, int r,
                              const double *y, int n, double vmax)
{
    double sum = 0.0;
    for (int k = a->row_start[r]; k < a->row_start[r + 1]; k++) {
        int c = a->col[k];
        if (c < 2 * n)
            sum += fabs(values[k]) * (fabs(y[c]) + (c < n ? 0.0 : vmax));
    }
    return sum;
}

static int unbalanced_row(dirac_sim *sim, dgrad_state *st, const dgrad_layout *l,
                             const double *z)
{
    dgrad_ctx cx = { sim, st };
    double *r = sim->nw.residual;
    assemble_dgrad(&cx, z, r, NULL);
    const dirac_model *m = sim->model;
    const model_sparse *f = &m->constraint_forms, *hs = &m->hessian;
    const sim_eval *mid = &sim->eval[MID], *end = &sim->eval[END];
    const double *dg = st->dg, *lambda = z + l->zl, *vbar = st->vbar, h = sim->h;
    int n = l->n;
    double *terms = sim->nw.delta;   // scratch: the magnitudes
    // the largest |v̄| stands in for zero entries (a coordinate at rest), as the blocks'
    // scales do in Newton's test (newton.h); not for positions (far-travelled coordinates
    // that the Lagrangian does not contain would swamp the others)
    double vmax = 0.0;
    for (int i = 0; i < n; i++)
        vmax = fmax(vmax, fabs(vbar[i]));
    for (int i = 0; i < n; i++) {
        terms[i] = 2.0 * (fabs(dg[n + i]) + fabs(sim->p[i])) +
                   h * (fabs(dg[i]) + fabs(mid->forces[i])) +
                   2.0 * inner_magnitude(hs, mid->hessian, n + i, st->xbar, n, vmax) +
                   h * inner_magnitude(hs, mid->hessian, i, st->xbar, n, vmax) +
                   h * inner_magnitude(&m->force_jacobian, mid->force_jac, i, st->xbar, n, vmax);
    }
    for (int a = 0; a < l->m; a++) {
        bool holonomic = m->constraints[a].kind == DIRAC_CONSTRAINT_HOLONOMIC;
        const double *forms = holonomic ? st->avf_forms : mid->forms;
        double *row = &terms[l->zl + a];
        *row = holonomic ? fabs(end->values[a]) / h : fabs(mid->rates[a]);
        for (int k = f->row_start[a]; k < f->row_start[a + 1]; k++) {
            terms[f->col[k]] += h * fabs(lambda[a] * forms[k]);
            *row += holonomic ? fabs(end->forms[k] * st->q1[f->col[k]]) / h
                              : fabs(mid->forms[k]) * (fabs(vbar[f->col[k]]) + vmax);
        }
    }
    // each row's share of ΔE − W: |r_i| |v̄_i| (momentum), h |λ_a| |r_a| (constraints)
    int worst = -1;
    double miss = 0.0, allowed = 0.0, largest = 0.0;
    for (int i = 0; i < l->size; i++) {
        if (i >= l->zs && i < l->zl)
            continue;   // entropy rows: T̄ ΔS enters the balance as it is
        double weight = i < n ? fabs(vbar[i]) + vmax : h * fabs(lambda[i - l->zl]);
        double share = fabs(r[i]) * weight;
        miss += share;
        allowed += terms[i] * weight;
        if (share > largest) {
            largest = share;
            worst = i;
        }
    }
    if (miss <= DGRAD_BALANCE_ROUNDING * DBL_EPSILON * allowed)
        worst = -1;
    return worst;
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
    // the guess: v_{k+1} extrapolated linearly from the last two nodes (error O(h²) where v is
    // smooth, where v_k's O(h) cost a second factorization per step), v_k at the first step
    double ratio = *st->previous_h > 0.0 && !sim->nw.full ? h / *st->previous_h : 0.0;
    if (ratio > DGRAD_EXTRAPOLATION_MAX_RATIO)
        ratio = 0.0;   // far beyond the last step the line says little: v_k
    for (int i = 0; i < l.n; i++) {
        z[l.zv + i] = sim->v[i] + ratio * (sim->v[i] - st->previous_v[i]);
        block[l.zv + i] = 1;
    }
    for (int j = 0; j < l.ns; j++) {
        z[l.zs + j] = sim->s[j];
        block[l.zs + j] = 3;
    }
    for (int a = 0; a < l.m; a++) {
        z[l.zl + a] = sim->mu[a];
        block[l.zl + a] = 4;
    }
    // the first law holds only as far as the equations do: solve to rounding level, and accept
    // only a solution whose residuals leave the first law at rounding (unbalanced_row): Newton's
    // updates alone do not show it (its approximate Jacobian may not contract while the
    // close guess makes the first update small)
    linsolve *solver = sim_solver(sim, SIM_SOLVER_STAGE1, l.size);
    int iterations = 0;
    for (int solve = 0;; solve++) {
        dirac_status status = newton_solve(&sim->nw, solver, l.size, z, block, assemble_dgrad,
                                           &cx, fmin(sim->rtol, 1e-14), 2 * sim->max_iterations);
        iterations += sim->nw.iterations;
        sim->nw.iterations = iterations;
        if (status != DIRAC_OK)
            return sim_fail_newton(sim, status, "implicit step", name_dgrad_rows);
        int unbalanced = unbalanced_row(sim, st, &l, z);
        if (unbalanced < 0)
            break;
        if (solve + 1 >= DGRAD_BALANCE_SOLVES)
            return sim_fail_balance(sim, "implicit step", name_dgrad_rows, solve + 1,
                                    unbalanced);
    }
    sim->newton_iterations = iterations;
    const double *dx = st->dx, *dg = st->dg;
    // the new momentum from the balance, p_{k+1} = p_k + h (D̄L_q + F̄ + Σ_a λ_a ω̄_a), not as
    // 2 D̄L_v − p_k: what Newton leaves in the momentum rows (r, at rounding level) then enters
    // the first law as (p̄ − D̄L_v)·Δv = −r·Δv/2, not as (Δp − h(…))·v̄ = r·v̄, a factor O(h)
    // smaller; r is correlated from step to step, so r·v̄ added up over a run (the
    // sleigh's energy: 120 ε·E after 2000 steps at h = 0.01, now 17 ε·E)
    const sim_eval *mid = &sim->eval[MID];
    const model_sparse *f = &m->constraint_forms;
    const double *lambda = z + l.zl;
    for (int i = 0; i < l.n; i++)
        st->p1[i] = h * (dg[i] + mid->forces[i]);
    for (int a = 0; a < l.m; a++) {
        bool holonomic = m->constraints[a].kind == DIRAC_CONSTRAINT_HOLONOMIC;
        const double *forms = holonomic ? st->avf_forms : mid->forms;
        for (int k = f->row_start[a]; k < f->row_start[a + 1]; k++)
            st->p1[f->col[k]] += h * lambda[a] * forms[k];
    }
    for (int i = 0; i < l.n; i++)
        st->p1[i] += sim->p[i];
    // temperatures must stay positive: the discrete ones and those at the new node (its own
    // slot: the step's evaluation in MID and END stays valid for the work below)
    if (l.ns > 0) {
        sim_evaluate(sim, &sim->eval[START], st->q1, z + l.zv, z + l.zs, sim->t + h, NULL,
                     EVAL_GRADIENT);
        for (int j = 0; j < l.ns; j++) {
            double discrete = -dg[2 * l.n + j], node = -sim->eval[START].gradient[2 * l.n + j];
            if (!(discrete > 0.0) || !(node > 0.0))
                return sim_fail_temperature(sim, j, discrete > 0.0 ? node : discrete);
        }
    }
    // discrete work: external forces, heat input, explicit time dependence, driven constraints
    const double *thermal = sim->thermal_values;
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
    sim_node *next = &sim->next;   // the new node (writes_next; dgrad_accept records v_k, h)
    for (int i = 0; i < l.n; i++) {
        next->q[i] = st->q1[i];
        next->v[i] = z[l.zv + i];
        next->p[i] = st->p1[i];
    }
    memcpy(next->s, z + l.zs, (size_t)l.ns * sizeof *next->s);
    memcpy(next->mu, lambda, (size_t)l.m * sizeof *next->mu);
    sim->work += work;
    return DIRAC_OK;
}

// The step just taken becomes the velocity guess's history (v_k and h) once its node passed its
// checks (sim_raw_step): the node it started from is the spare one now (sim.h, writes_next).
static void dgrad_accept(dirac_sim *sim, void *state)
{
    dgrad_state *st = state;
    memcpy(st->previous_v, sim->next.v, (size_t)sim->n * sizeof *st->previous_v);
    *st->previous_h = sim->h;
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
    .history = dgrad_history,
    .writes_next = true,
    .accept = dgrad_accept,
    .unconstrained_node_velocity = true,
};
