// `lobatto3` (s = 3, order 4) and `lobatto4` (s = 4, order 6): the partitioned Lobatto IIIA–IIIB
// pair of Jay (SIAM J. Numer. Anal. 33, 1996) for holonomically constrained Lagrangian systems in
// the implicit (q, v, p) form; s = 2 would be RATTLE (docs/methods.md, "lobatto3, lobatto4").
// With t_j = t_k + c_j h, X_j = (Q_j, V_j, S, t_j), IIIA coefficients a_ij and IIIB â_ij, the
// stage unknowns V_1..V_s and Λ_1..Λ_{s−1} solve one Newton system
//   Q_i = q_k + h Σ_j a_ij V_j                                    (Q_1 = q_k, Q_s = q_{k+1})
//   ∂L/∂v(X_i) = p_k + h Σ_j â_ij f_j,   f_j = ∂L/∂q(X_j) + F(X_j) + ω(Q_j, t_j)ᵀ Λ_j   (i = 1..s)
//   φ(Q_i, t_i) = 0                                                (i = 2..s)
// (â_is = 0, so Λ_s does not enter the stages); then the end velocity v_{k+1} and Λ_s solve
//   ∂L/∂v(q_{k+1}, v_{k+1}, t_{k+1}) = p* + h b_s ω(q_{k+1}, t_{k+1})ᵀ Λ_s
//   ⟨ω(q_{k+1}, t_{k+1}), v_{k+1}⟩ + b(q_{k+1}, t_{k+1}) = 0          (the hidden constraint)
// with p* = p_k + h Σ_j b_j f_j (f_s without Λ_s), and p_{k+1} = p* + h b_s ωᵀ Λ_s.
// Holonomic constraints and regular Lagrangians only (the check hook refuses the rest).
#include "predictor.h"
#include "sim.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#define LOBATTO_MAX_STAGES 4
_Static_assert(LOBATTO_MAX_STAGES <= LAGRANGE_MAX_POINTS, "the stage guess interpolates stages");
#define SQRT5 2.23606797749978969640917366873127624

typedef struct lobatto_tableau {
    int s;
    double c[LOBATTO_MAX_STAGES], b[LOBATTO_MAX_STAGES];
    double a[LOBATTO_MAX_STAGES][LOBATTO_MAX_STAGES];      // IIIA (positions)
    double ahat[LOBATTO_MAX_STAGES][LOBATTO_MAX_STAGES];   // IIIB (momenta)
} lobatto_tableau;

// Jay (1996), SIAM J. Numer. Anal. 33; b_i â_ij + b_j a_ji = b_i b_j (symplectic pair).
static const lobatto_tableau lobatto3_tableau = {
    3,
    { 0.0, 0.5, 1.0 },
    { 1.0 / 6.0, 2.0 / 3.0, 1.0 / 6.0 },
    { { 0.0, 0.0, 0.0 }, { 5.0 / 24.0, 1.0 / 3.0, -1.0 / 24.0 }, { 1.0 / 6.0, 2.0 / 3.0, 1.0 / 6.0 } },
    { { 1.0 / 6.0, -1.0 / 6.0, 0.0 }, { 1.0 / 6.0, 1.0 / 3.0, 0.0 }, { 1.0 / 6.0, 5.0 / 6.0, 0.0 } },
};

static const lobatto_tableau lobatto4_tableau = {
    4,
    { 0.0, 0.5 - SQRT5 / 10.0, 0.5 + SQRT5 / 10.0, 1.0 },
    { 1.0 / 12.0, 5.0 / 12.0, 5.0 / 12.0, 1.0 / 12.0 },
    { { 0.0, 0.0, 0.0, 0.0 },
      { (11.0 + SQRT5) / 120.0, (25.0 - SQRT5) / 120.0, (25.0 - 13.0 * SQRT5) / 120.0,
        (-1.0 + SQRT5) / 120.0 },
      { (11.0 - SQRT5) / 120.0, (25.0 + 13.0 * SQRT5) / 120.0, (25.0 + SQRT5) / 120.0,
        (-1.0 - SQRT5) / 120.0 },
      { 1.0 / 12.0, 5.0 / 12.0, 5.0 / 12.0, 1.0 / 12.0 } },
    { { 1.0 / 12.0, (-1.0 - SQRT5) / 24.0, (-1.0 + SQRT5) / 24.0, 0.0 },
      { 1.0 / 12.0, (25.0 + SQRT5) / 120.0, (25.0 - 13.0 * SQRT5) / 120.0, 0.0 },
      { 1.0 / 12.0, (25.0 + 13.0 * SQRT5) / 120.0, (25.0 - SQRT5) / 120.0, 0.0 },
      { 1.0 / 12.0, (11.0 - SQRT5) / 24.0, (11.0 + SQRT5) / 24.0, 0.0 } },
};

// evaluation points: each stage in turn; the step's end
enum { STAGE = SIM_EVAL_STEP_A, END = SIM_EVAL_STEP_B };

// Where one sparse block of a compiled matrix goes in the stage Jacobian: up to s² copies,
// each at its own block offset with its own factor (structural zeros of the tableaus skipped,
// so the pattern is the same at every assembly).
typedef struct block_targets {
    int count;
    int r0[LOBATTO_MAX_STAGES * LOBATTO_MAX_STAGES], c0[LOBATTO_MAX_STAGES * LOBATTO_MAX_STAGES];
    double scale[LOBATTO_MAX_STAGES * LOBATTO_MAX_STAGES];
} block_targets;

// The targets of one stage's blocks (assemble_stages): H_vv, H_vq, the stage forces' ∂/∂V and
// ∂/∂Q, the constraints' ∂/∂V.
typedef struct stage_targets {
    block_targets vv, vq, fv, fq, cq;
} stage_targets;

// Dense stage Jacobians (the small systems): the additions of the block targets, unrolled once
// per step size into (source value, place in the column-major matrix, factor), stage by stage
// in the order the targets add them (so every entry's sum is formed in the same order). Sources
// point into the stage evaluation's values (its arrays stay in place for the simulation's life).
#define LOBATTO_PLAN_MAX_SIZE 64
typedef struct dense_plan {
    int capacity;           // entries allocated (0: stage systems too large to plan)
    int *start;             // stage j's entries: start[j] .. start[j + 1] − 1
    const double **source;
    int *place;
    double *factor;
} dense_plan;

// Workspace and history of one method of the pair.
typedef struct lobatto_state {
    double *z;                    // stage unknowns [V_1 .. V_s | Λ_1 .. Λ_{s−1}] (stage_size)
    int *block;                   // their blocks
    double *end;                  // end unknowns [v_{k+1} | Λ_s] (n + m)
    int *end_block;               // their blocks
    double *stage_q, *stage_f;    // Q_j and f_j of every stage (s n each)
    double *pstar;                // p* (n)
    double *residual;             // stage residual at the converged stages (stage_size)
    double *a, *mu;               // the index-reduced ODE at the new node (n, m)
    // history: the last converged stage unknowns, and the start and size of their step (0:
    // none kept yet)
    double *previous, *guess_t, *guess_h;
    // the Jacobian's block targets of every stage, a function of the step size alone: made
    // for targets_h (0: none yet)
    stage_targets *targets;
    double targets_h;
    dense_plan plan;   // made with the targets, for dense solvers
} lobatto_state;

// One step's context for the assembly callbacks.
typedef struct lobatto_step_ctx {
    dirac_sim *sim;
    lobatto_state *st;
    const lobatto_tableau *tab;
    int final;        // evaluation at the converged stages: forces at every stage, work
    double work;      // (final) the step's work of forces and explicit time dependence
} lobatto_step_ctx;

static const lobatto_tableau *tableau_of(const dirac_sim *sim)
{
    return sim->method == &sim_method_lobatto4 ? &lobatto4_tableau : &lobatto3_tableau;
}

static int stage_size(const dirac_sim *sim, int s)
{
    return s * sim->n + (s - 1) * sim->mc;
}

static void lobatto_layout(const dirac_sim *sim, void *state, sim_layout *l)
{
    lobatto_state *st = state;
    int s = tableau_of(sim)->s;
    size_t n = (size_t)sim->n, mc = (size_t)sim->mc, size = (size_t)stage_size(sim, s);
    st->z = sim_layout_doubles(l, size);
    st->block = sim_layout_ints(l, size);
    st->end = sim_layout_doubles(l, n + mc);
    st->end_block = sim_layout_ints(l, n + mc);
    st->stage_q = sim_layout_doubles(l, (size_t)s * n);
    st->stage_f = sim_layout_doubles(l, (size_t)s * n);
    st->pstar = sim_layout_doubles(l, n);
    st->residual = sim_layout_doubles(l, size);
    st->a = sim_layout_doubles(l, n);
    st->mu = sim_layout_doubles(l, mc);
    st->previous = sim_layout_doubles(l, size);
    st->guess_t = sim_layout_doubles(l, 1);
    st->guess_h = sim_layout_doubles(l, 1);
    st->targets = mem_plan_take(&l->plan, (size_t)s, sizeof *st->targets);
    if (size <= LOBATTO_PLAN_MAX_SIZE) {
        // at most: H_vv once, H_vq s times, the stage forces' ∂/∂V s and ∂/∂Q s² times, the
        // curvature s² times, ω s times in the constraint rows and s times in Λ's columns
        const dirac_model *m = sim->model;
        size_t per_stage = (size_t)m->hessian.nnz * (size_t)(1 + 2 * s + s * s) +
                           (size_t)m->force_jacobian.nnz * (size_t)(s + s * s) +
                           (size_t)m->form_curvature.nnz * (size_t)(s * s) +
                           (size_t)m->constraint_forms.nnz * (size_t)(2 * s);
        size_t capacity = per_stage * (size_t)s;
        st->plan.capacity = (int)capacity;
        st->plan.start = sim_layout_ints(l, (size_t)s + 1);
        st->plan.source = mem_plan_take(&l->plan, capacity, sizeof *st->plan.source);
        st->plan.place = sim_layout_ints(l, capacity);
        st->plan.factor = sim_layout_doubles(l, capacity);
    }
    sim_layout_newton(l, (int)size);
    sim_layout_newton(l, (int)(n + mc));
    sim_layout_solver(l, SIM_SOLVER_STAGE1, (int)size);
    sim_layout_solver(l, SIM_SOLVER_STAGE2, (int)(n + mc));
    if (mc > 0)   // the multipliers at the new node (sim_acceleration)
        sim_layout_solver(l, SIM_SOLVER_KKT, (int)(n + mc));
}

static void lobatto_history(const dirac_sim *sim, void *state, sim_history *out)
{
    lobatto_state *st = state;
    size_t size = (size_t)stage_size(sim, tableau_of(sim)->s);
    *out = (sim_history){ 3, { st->previous, st->guess_t, st->guess_h }, { size, 1, 1 } };
}

static void target_add(block_targets *t, int r0, int c0, double scale)
{
    if (scale == 0.0)
        return;
    t->r0[t->count] = r0;
    t->c0[t->count] = c0;
    t->scale[t->count] = scale;
    t->count++;
}

// Adds rows [row_first, row_first + rows) and columns [col_first, col_first + cols) of sp
// (its values at one stage) to every target, in one pass over the entries.
static void add_targets(const model_sparse *sp, const double *values, int row_first, int rows,
                        int col_first, int cols, const block_targets *t, linsolve *jac)
{
    if (t->count == 0)
        return;
    for (int r = 0; r < rows; r++)
        for (int k = sp->row_start[row_first + r]; k < sp->row_start[row_first + r + 1]; k++) {
            int c = sp->col[k] - col_first;
            if (c < 0 || c >= cols)
                continue;
            for (int x = 0; x < t->count; x++)
                linsolve_add(jac, t->r0[x] + r, t->c0[x] + c, t->scale[x] * values[k]);
        }
}

// The entries add_targets would add, appended to the plan (values: the block's matrix in the
// stage evaluation; size: the Jacobian's).
static void plan_targets(const model_sparse *sp, const double *values, int row_first, int rows,
                         int col_first, int cols, const block_targets *t, int size,
                         dense_plan *plan, int *count)
{
    if (t->count == 0)
        return;
    for (int r = 0; r < rows; r++)
        for (int k = sp->row_start[row_first + r]; k < sp->row_start[row_first + r + 1]; k++) {
            int c = sp->col[k] - col_first;
            if (c < 0 || c >= cols)
                continue;
            for (int x = 0; x < t->count; x++) {
                plan->source[*count] = values + k;
                plan->place[*count] = (t->c0[x] + c) * size + t->r0[x] + r;
                plan->factor[*count] = t->scale[x];
                (*count)++;
            }
        }
}

// The dense plan of every stage, in the order of assemble_stages's sparse path.
static void make_dense_plan(const dirac_sim *sim, const lobatto_tableau *tb, lobatto_state *st)
{
    const dirac_model *m = sim->model;
    const model_sparse *forms = &m->constraint_forms;
    const sim_eval *e = &sim->eval[STAGE];
    int n = sim->n, mc = sim->mc, s = tb->s, zl = s * n, size = stage_size(sim, s);
    dense_plan *plan = &st->plan;
    int count = 0;
    for (int j = 0; j < s; j++) {
        const stage_targets *t = &st->targets[j];
        plan->start[j] = count;
        plan_targets(&m->hessian, e->hessian, n, n, n, n, &t->vv, size, plan, &count);
        plan_targets(&m->hessian, e->hessian, n, n, 0, n, &t->vq, size, plan, &count);
        plan_targets(&m->hessian, e->hessian, 0, n, n, n, &t->fv, size, plan, &count);
        plan_targets(&m->force_jacobian, e->force_jac, 0, n, n, n, &t->fv, size, plan, &count);
        plan_targets(&m->hessian, e->hessian, 0, n, 0, n, &t->fq, size, plan, &count);
        plan_targets(&m->force_jacobian, e->force_jac, 0, n, 0, n, &t->fq, size, plan, &count);
        if (mc > 0 && t->fq.count > 0)
            plan_targets(&m->form_curvature, e->curvature, 0, n, 0, n, &t->fq, size, plan,
                         &count);
        if (j > 0)
            plan_targets(forms, e->forms, 0, mc, 0, n, &t->cq, size, plan, &count);
        for (int row = 0; j < s - 1 && row < s; row++) {   // Λ_j's columns: −h â_ij ω(Q_j)ᵀ
            double w = -sim->h * tb->ahat[row][j];
            if (w == 0.0)
                continue;
            for (int a = 0; a < mc; a++)
                for (int k = forms->row_start[a]; k < forms->row_start[a + 1]; k++) {
                    plan->source[count] = e->forms + k;
                    plan->place[count] = (zl + j * mc + a) * size + row * n + forms->col[k];
                    plan->factor[count] = w;
                    count++;
                }
        }
    }
    plan->start[s] = count;
}

// Adds stage j's planned entries (of its evaluation) to the dense matrix.
static void add_dense_plan(const dense_plan *plan, int j, double *dense)
{
    for (int x = plan->start[j]; x < plan->start[j + 1]; x++)
        dense[plan->place[x]] += plan->factor[x] * *plan->source[x];
}

// Where stage j's blocks go in the stage Jacobian for step size h (assemble_stages).
static void make_stage_targets(const dirac_sim *sim, const lobatto_tableau *tb, int j, double h,
                               stage_targets *t)
{
    int n = sim->n, mc = sim->mc, s = tb->s, zl = s * n;
    t->vv.count = t->vq.count = t->fv.count = t->fq.count = t->cq.count = 0;
    // row j: ∂/∂V_j ∂L/∂v = H_vv; ∂/∂V_k through Q_j = h a_jk H_vq
    target_add(&t->vv, j * n, j * n, 1.0);
    for (int k = 0; k < s; k++) {
        target_add(&t->vq, j * n, k * n, h * tb->a[j][k]);
        target_add(&t->cq, zl + (j - 1) * mc, k * n, tb->a[j][k]);
    }
    // every row i: −h â_ij ∂f_j/∂V_j − h² â_ij a_jk ∂f_j/∂Q_j (k = 1..s)
    for (int row = 0; row < s; row++) {
        target_add(&t->fv, row * n, j * n, -h * tb->ahat[row][j]);
        for (int k = 0; k < s; k++)
            target_add(&t->fq, row * n, k * n, -h * h * tb->ahat[row][j] * tb->a[j][k]);
    }
}

// Stage unknowns z = [V_1 .. V_s (n each) | Λ_1 .. Λ_{s−1} (m each)]; rows
// [momentum balances of the stages 1..s (n each) | φ(Q_i, t_i)/h for i = 2..s (m each)].
static int assemble_stages(void *context, const double *z, double *r, linsolve *jac)
{
    lobatto_step_ctx *cx = context;
    dirac_sim *sim = cx->sim;
    const lobatto_tableau *tb = cx->tab;
    const dirac_model *m = sim->model;
    const model_sparse *forms = &m->constraint_forms;
    int n = sim->n, mc = sim->mc, s = tb->s, zl = s * n;
    double h = sim->h, *Q = cx->st->stage_q, *f = cx->st->stage_f;
    sim_eval *e = &sim->eval[STAGE];
    for (int j = 0; j < s; j++)
        for (int i = 0; i < n; i++) {
            double sum = 0.0;
            for (int k = 0; k < s; k++)
                sum += tb->a[j][k] * z[k * n + i];
            Q[j * n + i] = sim->q[i] + h * sum;
        }
    for (int j = 0; j < s; j++)
        for (int i = 0; i < n; i++)
            r[j * n + i] = -sim->p[i];
    cx->work = 0.0;
    double *dense = jac && cx->st->plan.capacity > 0 ? linsolve_dense_values(jac) : NULL;
    if (jac && cx->st->targets_h != h) {   // a new step size: its block targets, once
        for (int j = 0; j < s; j++)
            make_stage_targets(sim, tb, j, h, &cx->st->targets[j]);
        if (dense)
            make_dense_plan(sim, tb, cx->st);
        cx->st->targets_h = h;
    }
    for (int j = 0; j < s; j++) {
        const double *Qj = Q + j * n, *Vj = z + j * n;
        const double *lambda = j < s - 1 ? z + zl + j * mc : NULL;
        double *fj = f + j * n;
        // the last stage's force enters only p* (â_is = 0): needed in the final evaluation
        int forces = j < s - 1 || cx->final;
        int what = EVAL_GRADIENT | EVAL_CONSTRAINTS | (forces ? EVAL_FORCES : 0);
        if (jac)
            what |= EVAL_HESSIAN | (j > 0 && j < s - 1 && mc > 0 ? EVAL_CURVATURE : 0);
        sim_evaluate(sim, e, Qj, Vj, sim->s, sim->t + tb->c[j] * h, lambda, what);
        for (int i = 0; i < n; i++) {
            r[j * n + i] += e->gradient[n + i];
            fj[i] = e->gradient[i] + (forces ? e->forces[i] : 0.0);
        }
        if (lambda)
            sim_add_forms_transposed(sim, e, lambda, 1.0, fj);
        for (int row = 0; row < s; row++) {
            double w = -h * tb->ahat[row][j];
            if (w != 0.0)
                for (int i = 0; i < n; i++)
                    r[row * n + i] += w * fj[i];
        }
        if (j > 0)
            for (int a = 0; a < mc; a++)
                r[zl + (j - 1) * mc + a] = e->values[a] / h;
        if (cx->final) {
            // Lobatto quadrature of the power of forces and of explicit time dependence; the
            // driven constraints' power is added by the caller (it needs Λ_s)
            double power = -e->gradient[m->index_t];
            for (int i = 0; i < n; i++)
                power += e->forces[i] * Vj[i];
            cx->work += h * tb->b[j] * power;
            for (int a = 0; lambda && a < mc; a++)
                if (m->constraints[a].time_dependent)
                    cx->work -= h * tb->b[j] * lambda[a] * e->rates[a];
        }
        if (!jac)
            continue;
        if (j > 0)   // φ(Q_j) is rounded at the scale of the absolute positions Q_j (newton.h)
            sim_add_position_magnitude(sim, e, Qj, 1.0 / h,
                                       sim->nw.hidden_magnitude + zl + (j - 1) * mc);
        if (dense) {
            add_dense_plan(&cx->st->plan, j, dense);
            continue;
        }
        const stage_targets *t = &cx->st->targets[j];
        add_targets(&m->hessian, e->hessian, n, n, n, n, &t->vv, jac);
        add_targets(&m->hessian, e->hessian, n, n, 0, n, &t->vq, jac);
        add_targets(&m->hessian, e->hessian, 0, n, n, n, &t->fv, jac);
        add_targets(&m->force_jacobian, e->force_jac, 0, n, n, n, &t->fv, jac);
        add_targets(&m->hessian, e->hessian, 0, n, 0, n, &t->fq, jac);
        add_targets(&m->force_jacobian, e->force_jac, 0, n, 0, n, &t->fq, jac);
        if (mc > 0 && t->fq.count > 0)
            add_targets(&m->form_curvature, e->curvature, 0, n, 0, n, &t->fq, jac);
        // constraint rows of stage j: ∂(φ(Q_j)/h)/∂V_k = a_jk ω(Q_j)
        if (j > 0)
            add_targets(forms, e->forms, 0, mc, 0, n, &t->cq, jac);
        // Λ_j's columns: −h â_ij ω(Q_j)ᵀ
        for (int row = 0; lambda && row < s; row++) {
            double w = -h * tb->ahat[row][j];
            if (w == 0.0)
                continue;
            for (int a = 0; a < mc; a++)
                for (int k = forms->row_start[a]; k < forms->row_start[a + 1]; k++)
                    linsolve_add(jac, row * n + forms->col[k], zl + j * mc + a, w * e->forms[k]);
        }
    }
    return 0;
}

// End unknowns [v_{k+1} (n) | Λ_s (m)]: the Legendre map at q_{k+1} with the last impulse and
// the velocity-level (hidden) constraints.
static int assemble_end(void *context, const double *z, double *r, linsolve *jac)
{
    lobatto_step_ctx *cx = context;
    dirac_sim *sim = cx->sim;
    const lobatto_tableau *tb = cx->tab;
    const model_sparse *forms = &sim->model->constraint_forms;
    int n = sim->n, mc = sim->mc, s = tb->s;
    double h = sim->h, hb = h * tb->b[s - 1];
    const double *q1 = cx->st->stage_q + (s - 1) * n, *pstar = cx->st->pstar;
    const double *v1 = z, *lambda = z + n;
    sim_eval *e = &sim->eval[END];
    sim_evaluate(sim, e, q1, v1, sim->s, sim->t + h, NULL,
                 EVAL_GRADIENT | EVAL_CONSTRAINTS | (jac ? EVAL_HESSIAN : 0));
    for (int i = 0; i < n; i++)
        r[i] = e->gradient[n + i] - pstar[i];
    sim_add_forms_transposed(sim, e, lambda, -hb, r);
    sim_velocity_constraint(sim, e, v1, r + n);
    if (!jac)
        return 0;
    sim_add_hessian_block(sim, e, n, n, n, n, 1.0, jac, 0, 0);
    for (int a = 0; a < mc; a++)
        for (int k = forms->row_start[a]; k < forms->row_start[a + 1]; k++) {
            linsolve_add(jac, forms->col[k], n + a, -hb * e->forms[k]);
            linsolve_add(jac, n + a, forms->col[k], e->forms[k]);
        }
    return 0;
}

static void name_stage_rows(const dirac_sim *sim, int index, char *buf, size_t size)
{
    const dirac_model *m = sim->model;
    int n = sim->n, mc = sim->mc, s = tableau_of(sim)->s;
    if (index >= 0 && index < s * n)
        snprintf(buf, size, "the momentum balance of %s at stage %d of %d",
                 m->coord_names[index % n], index / n + 1, s);
    else if (mc > 0 && index >= s * n && index < stage_size(sim, s))
        snprintf(buf, size, "constraint %s at stage %d of %d",
                 m->constraints[(index - s * n) % mc].name, (index - s * n) / mc + 2, s);
    else
        snprintf(buf, size, "equation %d", index + 1);
}

static void name_end_rows(const dirac_sim *sim, int index, char *buf, size_t size)
{
    if (index >= 0 && index < sim->n)
        snprintf(buf, size, "the Legendre map p.%s = dL/d%s' at the step end",
                 sim->model->coord_names[index], sim->model->coord_names[index]);
    else
        sim_name_coordinate_rows(sim, index, buf, size);
}

// The guess for the stages: the previous step's stage velocities extrapolated along their
// interpolation polynomial, V_i ≈ Σ_j ℓ_j(θ_i) V_j^prev with θ_i = (t_k + c_i h − t_prev)/h_prev
// (1 + c_i for equal steps; error O(h^s)), and its Λ_j likewise along theirs (nodes
// c_1 .. c_{s−1}; error O(h^{s−1}), where the last step's Λ_j were O(h) off and cost the
// pendulum a second Newton correction); at the first step V_j = v_k, Λ_j = μ_k.
// t_prev, h_prev: start and size of the step whose stages are kept (adaptive runs change h, and
// a rejected trial leaves stages that start at t_k itself).
static void stage_guess(const dirac_sim *sim, const lobatto_tableau *tb, const lobatto_state *st,
                        double *z)
{
    int n = sim->n, mc = sim->mc, s = tb->s, zl = s * n;
    if (!(*st->guess_h > 0.0)) {
        for (int j = 0; j < s; j++)
            memcpy(z + j * n, sim->v, (size_t)n * sizeof *z);
        for (int j = 0; j < s - 1; j++)
            memcpy(z + zl + j * mc, sim->mu, (size_t)mc * sizeof *z);
        return;
    }
    const double *pv = st->previous;
    for (int i = 0; i < s; i++) {
        double theta = (sim->t + tb->c[i] * sim->h - *st->guess_t) / *st->guess_h;
        lagrange_interpolate(tb->c, s, theta, pv, (size_t)n, n, z + i * n);
        if (i < s - 1)
            lagrange_interpolate(tb->c, s - 1, theta, pv + zl, (size_t)mc, mc, z + zl + i * mc);
    }
}

static dirac_status lobatto_step(dirac_sim *sim, void *state)
{
    lobatto_state *st = state;
    const lobatto_tableau *tb = tableau_of(sim);
    const dirac_model *m = sim->model;
    int n = sim->n, mc = sim->mc, s = tb->s, size = stage_size(sim, s), zl = s * n;
    double h = sim->h, *z = st->z, *end = st->end, *pstar = st->pstar;
    const double *f = st->stage_f, *q1 = st->stage_q + (s - 1) * n;
    lobatto_step_ctx cx = { sim, st, tb, 0, 0.0 };
    stage_guess(sim, tb, st, z);
    for (int i = 0; i < size; i++)
        st->block[i] = i < zl ? 1 : 4;
    dirac_status status =
        newton_solve(&sim->nw, sim_solver(sim, SIM_SOLVER_STAGE1, size), size, z, st->block,
                     assemble_stages, &cx, sim->rtol, sim->max_iterations);
    int iterations = sim->nw.iterations;
    if (status != DIRAC_OK)
        return sim_fail_newton(sim, status, "stages", name_stage_rows);
    // the converged stages: Q, every f_j, the work; then p* = p_k + h Σ b_j f_j
    cx.final = 1;
    assemble_stages(&cx, z, st->residual, NULL);
    for (int i = 0; i < n; i++) {
        double sum = 0.0;
        for (int j = 0; j < s; j++)
            sum += tb->b[j] * f[j * n + i];
        pstar[i] = sim->p[i] + h * sum;
    }
    // the end: v_{k+1}, Λ_s from the guess V_s, Λ_{s−1}
    memcpy(end, z + (s - 1) * n, (size_t)n * sizeof *end);
    memcpy(end + n, z + zl + (s - 2) * mc, (size_t)mc * sizeof *end);
    for (int i = 0; i < n + mc; i++)
        st->end_block[i] = i < n ? 1 : 5;
    status = newton_solve(&sim->nw, sim_solver(sim, SIM_SOLVER_STAGE2, n + mc), n + mc, end,
                          st->end_block, assemble_end, &cx, sim->rtol, sim->max_iterations);
    iterations += sim->nw.iterations;
    if (status != DIRAC_OK)
        return sim_fail_newton(sim, status, "end velocities", name_end_rows);
    // accept: p_{k+1} = p* + h b_s ω(q_{k+1})ᵀ Λ_s (ω at q_{k+1} is in eval[END])
    const double *lambda_s = end + n;
    const sim_eval *e = &sim->eval[END];
    double work = cx.work;
    for (int a = 0; a < mc; a++)
        if (m->constraints[a].time_dependent)
            work -= h * tb->b[s - 1] * lambda_s[a] * e->rates[a];
    memcpy(sim->q, q1, (size_t)n * sizeof *sim->q);
    memcpy(sim->v, end, (size_t)n * sizeof *sim->v);
    memcpy(sim->p, pstar, (size_t)n * sizeof *sim->p);
    sim_add_forms_transposed(sim, e, lambda_s, h * tb->b[s - 1], sim->p);
    memcpy(st->previous, z, (size_t)size * sizeof *z);
    *st->guess_t = sim->t;
    *st->guess_h = h;
    // the reported multipliers: Λ_s is only an O(h^{s−1}) approximation of μ(t_{k+1}); the
    // index-reduced equations at the new node give it to the order of the state
    double power;
    if (mc > 0 && sim_acceleration(sim, sim->q, sim->v, sim->t + h, st->a, st->mu, &power) ==
                      DIRAC_OK)
        memcpy(sim->mu, st->mu, (size_t)mc * sizeof *sim->mu);
    else
        memcpy(sim->mu, lambda_s, (size_t)mc * sizeof *sim->mu);
    sim->work += work;
    sim->newton_iterations = iterations;
    return DIRAC_OK;
}

// Supported: holonomic constraints (time-dependent too), forces (velocity- and
// time-dependent), two-forms, Lagrangians with ∂²L/∂v² invertible. Refused: nonholonomic
// constraints and degenerate Lagrangians (they need SPARK-type multiplier stages).
static dirac_status lobatto_check(dirac_sim *sim, void *state)
{
    (void)state;
    const dirac_model *m = sim->model;
    const char *name = sim->method->info.name;
    for (int a = 0; a < sim->mc; a++)
        if (m->constraints[a].kind != DIRAC_CONSTRAINT_HOLONOMIC) {
            snprintf(sim->errmsg, sizeof sim->errmsg,
                     "method '%s' supports holonomic constraints phi(q, t) = 0 only; constraint "
                     "'%s' is a velocity (nonholonomic) constraint; use midpoint, dgrad or "
                     "dirac1", name, m->constraints[a].name);
            return DIRAC_ERR_UNSUPPORTED;
        }
    // ∂²L/∂v² must be regular at the initial state
    int degenerate = sim_degenerate_coordinate(sim);
    if (degenerate == -2) {
        snprintf(sim->errmsg, sizeof sim->errmsg, "out of memory");
        return DIRAC_ERR_NOMEM;
    }
    if (degenerate >= 0) {
        snprintf(sim->errmsg, sizeof sim->errmsg,
                 "method '%s' needs a regular Lagrangian (d2L/dv2 invertible); at the initial "
                 "state d2L/dv2 is singular (no pivot for the velocity of %s): degenerate "
                 "Lagrangians (circuits, Lagrangians linear in velocities) are not supported; "
                 "use midpoint", name, m->coord_names[degenerate]);
        return DIRAC_ERR_UNSUPPORTED;
    }
    return DIRAC_OK;
}

const sim_method sim_method_lobatto3 = {
    .info = { "lobatto3", 4,
              "symplectic, symmetric; holonomic constraints at position and velocity level every "
              "step; energy error bounded (no drift); regular Lagrangians, holonomic only",
              "3-stage partitioned Lobatto IIIA-IIIB (Jay 1996), RATTLE's order-4 sibling" },
    .state_size = sizeof(lobatto_state),
    .layout = lobatto_layout,
    .step = lobatto_step,
    .check = lobatto_check,
    .history = lobatto_history,
};

const sim_method sim_method_lobatto4 = {
    .info = { "lobatto4", 6,
              "symplectic, symmetric; holonomic constraints at position and velocity level every "
              "step; energy error bounded (no drift); regular Lagrangians, holonomic only",
              "4-stage partitioned Lobatto IIIA-IIIB (Jay 1996), order 6" },
    .state_size = sizeof(lobatto_state),
    .layout = lobatto_layout,
    .step = lobatto_step,
    .check = lobatto_check,
    .history = lobatto_history,
};
