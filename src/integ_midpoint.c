// `midpoint`: the symmetric, second-order discrete Lagrange–d'Alembert–Pontryagin scheme with
// the midpoint discrete Lagrangian L_d = h L(q̄, v̄), q̄ = (q_k + q_{k+1})/2, v̄ = (q_{k+1} − q_k)/h,
// constraint forces applied RATTLE-like at both ends (docs/methods.md):
//   stage 1, unknowns (q_{k+1}, λ):
//     ∂L/∂v(q̄, v̄) − p_k − h/2 [∂L/∂q + F](q̄, v̄, t̄) − h/2 ω(q_k)ᵀ λ = 0
//     φ_a(q_{k+1}, t_{k+1}) = 0            (holonomic)
//     ⟨ω_a(q̄, t̄), v̄⟩ + b_a(q̄, t̄) = 0      (nonholonomic)
//   stage 2, unknowns (v_{k+1}, ν), with p* = ∂L/∂v(q̄, v̄) + h/2 [∂L/∂q + F](q̄, v̄, t̄):
//     ∂L/∂v(q_{k+1}, v_{k+1}) − p* − h/2 ω(q_{k+1})ᵀ ν = 0
//     ⟨ω_a(q_{k+1}), v_{k+1}⟩ + b_a(q_{k+1}, t_{k+1}) = 0
//   p_{k+1} = p* + h/2 ω(q_{k+1})ᵀ ν.
// Entropy variables S (thermodynamic models) join stage 1 with the discrete entropy balance at
// the midpoint, T̄ (S_{k+1} − S_k) = h (−F̄^fr·v̄ + Σ κ̄ ΔT̄ + P̄), T̄ = −∂L/∂S(q̄, v̄, S̄, t̄): the
// entropy produced is ≥ 0 by construction; the energy balance holds to O(h²) (dgrad: exactly).
#include "integ_midpoint.h"

#include "codegen_stage.h"

#include <stdio.h>
#include <string.h>

// evaluation points: q_k; the midpoint; q_{k+1}
enum { START = SIM_EVAL_STEP_A, MID = SIM_EVAL_STEP_B, END = SIM_EVAL_STEP_C };

// to[0 .. count) = from[0 .. count): a loop, since most of these copies are a few values,
// for which memcpy's call costs more than the copy.
static void copy_values(double *to, const double *from, int count)
{
    for (int i = 0; i < count; i++)
        to[i] = from[i];
}

// The assembly callbacks' context.
typedef struct midpoint_ctx {
    dirac_sim *sim;
    midpoint_state *st;
} midpoint_ctx;

void midpoint_layout(const dirac_sim *sim, void *state, sim_layout *l)
{
    midpoint_state *st = state;
    size_t n = (size_t)sim->n, ns = (size_t)sim->ns, mc = (size_t)sim->mc;
    size_t stage1 = n + ns + mc;
    st->z = sim_layout_doubles(l, stage1);
    st->block = sim_layout_ints(l, stage1);
    st->q1 = st->q1_own = sim_layout_doubles(l, n);
    st->pstar = st->pstar_own = sim_layout_doubles(l, n);
    st->lambda = sim_layout_doubles(l, mc);
    st->temperature = sim_layout_doubles(l, ns);
    st->s_old = sim_layout_doubles(l, ns);
    st->dq = sim_layout_doubles(l, n);
    st->residual = sim_layout_doubles(l, stage1);
    // at most 4 blocks of ∂²L and 2 of ∂F reach ∂R1/∂Δq (assemble_positions)
    const dirac_model *m = sim->model;
    size_t targets = 4 * (size_t)m->hessian.nnz + 2 * (size_t)m->force_jacobian.nnz;
    st->dense_source = sim_layout_ints(l, targets);
    st->dense_place = sim_layout_ints(l, targets);
    st->dense_coefficient = sim_layout_ints(l, targets);
    st->positions = (predictor){ (int)stage1,
                                 sim_layout_doubles(l, predictor_memory_size((int)stage1)) };
    st->velocities = (predictor){ (int)(n + mc),
                                  sim_layout_doubles(l, predictor_memory_size((int)(n + mc))) };
    sim_layout_newton(l, (int)stage1);
    sim_layout_newton(l, (int)(n + mc));
    sim_layout_solver(l, SIM_SOLVER_STAGE1, (int)stage1);
    sim_layout_solver(l, SIM_SOLVER_STAGE2, (int)(n + mc));
}

// Degenerate Lagrangians need the node-velocity workspace (sim_degenerate.c); the predictor
// makes simplified Newton pay (newton.h).
dirac_status midpoint_init(dirac_sim *sim, void *state)
{
    (void)state;
    sim->nw.simplified = true;
    dirac_status status = sim_degenerate_init(sim);
    // the dense solver of the velocities of degenerate Lagrangians (solve_velocities)
    if (status == DIRAC_OK && sim->degenerate.available &&
        !sim_dense_solver(sim, SIM_SOLVER_NODE, sim->n + sim->mc))
        status = DIRAC_ERR_NOMEM;
    return status;
}

// Midpoint data from the increment Δq = q_{k+1} − q_k: q̄, v̄ = Δq/h (no cancellation
// however large |q|) and q_{k+1}.
static void midpoint_of(dirac_sim *sim, const double *dq, double *qbar, double *vbar, double *q1)
{
    for (int i = 0; i < sim->n; i++) {
        qbar[i] = sim->q[i] + 0.5 * dq[i];
        vbar[i] = dq[i] / sim->h;
        q1[i] = sim->q[i] + dq[i];
    }
}

// The entries of one block of a sparse matrix (rows row_first.., columns col_first..) as
// targets of the dense stage-1 matrix of `size` unknowns (rows and columns from 0), in the
// order sim_add_sparse_block adds them; `offset` tells the force Jacobian's sources apart.
static void plan_block(midpoint_state *st, const model_sparse *sp, int offset, int row_first,
                       int col_first, int n, int coefficient, int size)
{
    if (sp->nnz == 0)
        return;
    for (int r = 0; r < n; r++)
        for (int k = sp->row_start[row_first + r]; k < sp->row_start[row_first + r + 1]; k++) {
            int c = sp->col[k] - col_first;
            if (c >= 0 && c < n) {
                st->dense_source[st->dense_count] = offset + k;
                st->dense_place[st->dense_count] = c * size + r;
                st->dense_coefficient[st->dense_count] = coefficient;
                st->dense_count++;
            }
        }
}

// ∂R1/∂Δq = ½ H_vq + H_vv / h − h/2 (½ H_qq + H_qv / h + ½ F_q + F_v / h), the blocks in this
// order (the sums of shared entries are formed in it). Dense matrices: straight into the
// matrix from the targets made once (the block walk costs more than the additions at small n).
static void add_position_jacobian(dirac_sim *sim, midpoint_state *st, const sim_eval *mid,
                                  linsolve *jac)
{
    const dirac_model *m = sim->model;
    int n = sim->n, size = n + sim->ns + sim->mc;
    double h = sim->h;
    double *dense = linsolve_dense_values(jac);
    if (!dense) {
        sim_add_hessian_block(sim, mid, n, n, 0, n, 0.5, jac, 0, 0);
        sim_add_hessian_block(sim, mid, n, n, n, n, 1.0 / h, jac, 0, 0);
        sim_add_hessian_block(sim, mid, 0, n, 0, n, -0.25 * h, jac, 0, 0);
        sim_add_hessian_block(sim, mid, 0, n, n, n, -0.5, jac, 0, 0);
        sim_add_sparse_block(&m->force_jacobian, mid->force_jac, 0, n, 0, n, -0.25 * h, jac, 0,
                             0);
        sim_add_sparse_block(&m->force_jacobian, mid->force_jac, 0, n, n, n, -0.5, jac, 0, 0);
        return;
    }
    if (!st->dense_ready) {
        int hn = m->hessian.nnz;
        st->dense_count = 0;
        plan_block(st, &m->hessian, 0, n, 0, n, 0, size);
        plan_block(st, &m->hessian, 0, n, n, n, 1, size);
        plan_block(st, &m->hessian, 0, 0, 0, n, 2, size);
        plan_block(st, &m->hessian, 0, 0, n, n, 3, size);
        plan_block(st, &m->force_jacobian, hn, 0, 0, n, 2, size);
        plan_block(st, &m->force_jacobian, hn, 0, n, n, 3, size);
        st->dense_ready = true;
    }
    const double coefficient[4] = { 0.5, 1.0 / h, -0.25 * h, -0.5 };
    int hn = m->hessian.nnz;
    for (int e = 0; e < st->dense_count; e++) {
        int k = st->dense_source[e];
        double value = k < hn ? mid->hessian[k] : mid->force_jac[k - hn];
        dense[st->dense_place[e]] += coefficient[st->dense_coefficient[e]] * value;
    }
}

// The generated kernel of `stage` (codegen_stage.h) when it can assemble this call: the model
// has kernels, the Jacobian (if asked for) is dense, and stage 2's Lagrangian is regular here.
static bool use_kernel(const dirac_sim *sim, const midpoint_state *st, int stage, linsolve *jac)
{
    return st->kernels && (!jac || linsolve_dense_values(jac)) &&
           (stage == CODEGEN_STAGE_POSITIONS || sim->degenerate.dim == 0);
}

// The kernel's arguments: the step's data, the slots of the midpoint and the end.
static codegen_stage_args kernel_args(dirac_sim *sim, const double *q, const double *p)
{
    return (codegen_stage_args){ q,
                                 p,
                                 sim->eval[START].forms,
                                 sim->nw.hidden_magnitude,
                                 sim->eval[MID].x,
                                 sim->eval[END].x,
                                 sim->eval[MID].out,
                                 sim->eval[END].out,
                                 sim->t,
                                 sim->h };
}

// A point kernel (codegen_stage.h) into the evaluation slot `slot`: z = v_k or Δq.
static void run_point_kernel(dirac_sim *sim, int stage, int slot, const double *z)
{
    codegen_stage_args args = kernel_args(sim, sim->q, sim->p);
    args.x_mid = sim->eval[slot].x;
    args.out_mid = sim->eval[slot].out;
    codegen_stage_run(sim->model->codegen, stage, &args, z, NULL, NULL, sim->tape_work);
    sim->stage_kernel_calls++;
}

// Stage 1 unknowns: [Δq = q_{k+1} − q_k (n) | S_{k+1} (ns) | λ (m)]; rows in the same order.
// Solving for the increment keeps Newton's stopping error relative to |Δq| ~ |v| h, not |q|.
// Generated code assembles the same numbers in one call when it can (use_kernel).
static int assemble_positions(void *context, const double *z, double *r, linsolve *jac)
{
    midpoint_ctx *cx = context;
    dirac_sim *sim = cx->sim;
    midpoint_state *st = cx->st;
    const dirac_model *m = sim->model;
    if (use_kernel(sim, st, CODEGEN_STAGE_POSITIONS, jac)) {
        codegen_stage_args args = kernel_args(sim, sim->q, sim->p);
        codegen_stage_run(m->codegen, CODEGEN_STAGE_POSITIONS, &args, z, r,
                          jac ? linsolve_dense_values(jac) : NULL, sim->tape_work);
        sim->stage_kernel_calls++;
        return 0;
    }
    int n = sim->n, ns = sim->ns, mc = sim->mc, zs = n, zl = n + ns;
    double h = sim->h, *qbar = st->qbar, *vbar = st->vbar, *q1 = st->q1, *sbar = st->sbar;
    const double *s1 = z + zs, *lambda = z + zl;
    midpoint_of(sim, z, qbar, vbar, q1);
    for (int j = 0; j < ns; j++)
        sbar[j] = 0.5 * (sim->s[j] + s1[j]);
    sim_eval *mid = &sim->eval[MID], *end = &sim->eval[END], *start = &sim->eval[START];
    sim_evaluate(sim, mid, qbar, vbar, sbar, sim->t + 0.5 * h, NULL,
                 EVAL_GRADIENT | EVAL_FORCES | EVAL_CONSTRAINTS |
                     (jac ? EVAL_HESSIAN | EVAL_CONSTRAINT_JAC : 0));
    if (sim_has_holonomic(sim))
        sim_evaluate(sim, end, q1, vbar, s1, sim->t + h, NULL, EVAL_CONSTRAINTS);
    for (int i = 0; i < n; i++)
        r[i] = mid->gradient[n + i] - sim->p[i] - 0.5 * h * (mid->gradient[i] + mid->forces[i]);
    sim_add_forms_transposed(sim, start, lambda, -0.5 * h, r);
    for (int a = 0; a < mc; a++)
        r[zl + a] = m->constraints[a].kind == DIRAC_CONSTRAINT_HOLONOMIC ? end->values[a]
                                                                          : mid->values[a];
    double *temperature = st->temperature;
    if (ns > 0) {
        model_group_eval(&m->thermal, mid->x, sim->tape_work, sim->thermal_values);
        for (int j = 0; j < ns; j++)
            temperature[j] = -mid->gradient[2 * n + j];
        sim_entropy_residual(sim, temperature, sim->thermal_values, vbar, s1, h, r + zs);
    }
    if (!jac)
        return 0;
    // ∂R1/∂Δq = ∂R1/∂q_{k+1}
    add_position_jacobian(sim, st, mid, jac);
    // ∂R1/∂S_{k+1} = ½ H_vS − h/4 (H_qS + F_S)
    sim_add_hessian_block(sim, mid, n, n, 2 * n, ns, 0.5, jac, 0, zs);
    sim_add_hessian_block(sim, mid, 0, n, 2 * n, ns, -0.25 * h, jac, 0, zs);
    sim_add_sparse_block(&m->force_jacobian, mid->force_jac, 0, n, 2 * n, ns, -0.25 * h, jac,
                         0, zs);
    // entropy rows: T̄ on the diagonal and the friction power's dependence on q_{k+1} (via v̄)
    for (int j = 0; j < ns; j++)
        linsolve_add(jac, (zs + j), (zs + j), temperature[j]);
    for (int k = 0; k < m->friction_count; k++)
        linsolve_add(jac, zs + m->friction_entropy[k], m->friction_coord[k],
                     sim->thermal_values[k]);
    // ∂R1/∂λ = −h/2 ω(q_k)ᵀ
    const model_sparse *f = &m->constraint_forms;
    for (int a = 0; a < mc; a++)
        for (int k = f->row_start[a]; k < f->row_start[a + 1]; k++)
            linsolve_add(jac, f->col[k], (zl + a), -0.5 * h * start->forms[k]);
    // φ(q_{k+1}) is rounded at the scale of the absolute positions, not of Δq (newton.h)
    sim_add_position_magnitude(sim, end, q1, 1.0, sim->nw.hidden_magnitude + zl);
    // ∂R2/∂q_{k+1}: ω(q_{k+1}) for holonomic rows; ½ ∂c/∂q + ω / h at the midpoint otherwise
    for (int a = 0; a < mc; a++) {
        if (m->constraints[a].kind == DIRAC_CONSTRAINT_HOLONOMIC) {
            sim_add_sparse_block(f, end->forms, a, 1, 0, n, 1.0, jac, zl + a, 0);
        } else {
            sim_add_sparse_block(&m->constraint_jacobian, mid->constraint_jac, a, 1, 0, n, 0.5,
                                 jac, zl + a, 0);
            sim_add_sparse_block(f, mid->forms, a, 1, 0, n, 1.0 / h, jac, zl + a, 0);
        }
    }
    return 0;
}

static void name_position_rows(const dirac_sim *sim, int index, char *buf, size_t size)
{
    if (index >= sim->n && index < sim->n + sim->ns)
        snprintf(buf, size, "the entropy balance of %s", sim->model->entropy_names[index - sim->n]);
    else
        sim_name_coordinate_rows(sim, index < sim->n ? index : index - sim->ns, buf, size);
}

static int assemble_velocities(void *context, const double *z, double *r, linsolve *jac)
{
    midpoint_ctx *cx = context;
    dirac_sim *sim = cx->sim;
    const dirac_model *m = sim->model;
    int n = sim->n, mc = sim->mc;
    double h = sim->h;
    const double *q1 = cx->st->q1, *pstar = cx->st->pstar, *v1 = z, *nu = z + n;
    if (use_kernel(sim, cx->st, CODEGEN_STAGE_VELOCITIES, jac)) {
        codegen_stage_args args = kernel_args(sim, q1, pstar);
        codegen_stage_run(m->codegen, CODEGEN_STAGE_VELOCITIES, &args, z, r,
                          jac ? linsolve_dense_values(jac) : NULL, sim->tape_work);
        sim->stage_kernel_calls++;
        return 0;
    }
    sim_eval *end = &sim->eval[END];
    int degenerate = sim->degenerate.dim > 0;
    sim_evaluate(sim, end, q1, v1, sim->s, sim->t + h, NULL,
                 EVAL_GRADIENT | EVAL_CONSTRAINTS |
                     (jac || degenerate ? EVAL_HESSIAN : 0) | (degenerate ? EVAL_FORCES : 0));
    for (int i = 0; i < n; i++)
        r[i] = end->gradient[n + i] - pstar[i];
    sim_add_forms_transposed(sim, end, nu, -0.5 * h, r);
    sim_velocity_constraint(sim, end, v1, r + n);
    // velocities the Legendre map and the constraints leave free: the momentum balance
    if (degenerate)
        sim_degenerate_residual(sim, end, v1, 0.5 * h, r);
    if (!jac)
        return 0;
    if (degenerate)
        sim_degenerate_jacobian(sim, end, 0.5 * h, jac);
    sim_add_hessian_block(sim, end, n, n, n, n, 1.0, jac, 0, 0);
    const model_sparse *f = &m->constraint_forms;
    for (int a = 0; a < mc; a++)
        for (int k = f->row_start[a]; k < f->row_start[a + 1]; k++) {
            linsolve_add(jac, f->col[k], (n + a), -0.5 * h * end->forms[k]);
            linsolve_add(jac, (n + a), f->col[k], end->forms[k]);
        }
    return 0;
}

static void name_velocity_rows(const dirac_sim *sim, int index, char *buf, size_t size)
{
    if (index < sim->n)
        snprintf(buf, size, "the Legendre map p.%s = dL/d%s'", sim->model->coord_names[index],
                 sim->model->coord_names[index]);
    else
        sim_name_coordinate_rows(sim, index, buf, size);
}

// Stage 2's unknowns [v_{k+1} | ν] from the guess (v̄, λ), or extrapolated from the last steps.
static void velocity_guess(const dirac_sim *sim, midpoint_state *st)
{
    int n = sim->n;
    for (int i = 0; i < n; i++) {
        st->z[i] = st->vbar[i];
        st->block[i] = 1;
    }
    for (int a = 0; a < sim->mc; a++) {
        st->z[n + a] = st->lambda[a];
        st->block[n + a] = 5;
    }
    if (!sim->nw.full && !sim->nw.affine)
        predictor_predict(&st->velocities, n + sim->mc, sim->t + sim->h, sim->t, sim->h, st->z);
}

// Stage 1: increments, entropies and λ from the guess Δq = h v_k. Leaves Δq, λ and S_k in the
// state (midpoint_momentum evaluates the converged midpoint and checks its temperatures).
static dirac_status solve_positions(midpoint_ctx *cx, int *iterations)
{
    dirac_sim *sim = cx->sim;
    midpoint_state *st = cx->st;
    int n = sim->n, ns = sim->ns, mc = sim->mc, *block = st->block;
    double h = sim->h, *z = st->z;
    if (mc > 0 && st->kernels)   // ω(q_k) of the constraint forces (nothing else reads it)
        run_point_kernel(sim, CODEGEN_STAGE_START, START, sim->v);
    else if (mc > 0)
        sim_evaluate(sim, &sim->eval[START], sim->q, sim->v, sim->s, sim->t, NULL,
                     EVAL_CONSTRAINTS);
    for (int i = 0; i < n; i++) {
        z[i] = h * sim->v[i];
        block[i] = 0;
    }
    for (int j = 0; j < ns; j++) {
        z[n + j] = sim->s[j];
        block[n + j] = 3;
    }
    for (int a = 0; a < mc; a++) {
        z[n + ns + a] = sim->mu[a];
        block[n + ns + a] = 4;
    }
    // better: the last steps' mean velocities, entropies and λ extrapolated (predictor.h);
    // affine equations are solved by one correction from any guess: no history
    double *predicted = st->residual;   // free until the solve
    if (!sim->nw.full && !sim->nw.affine &&
        predictor_predict(&st->positions, n + ns + mc, sim->t + 0.5 * h, sim->t, h,
                          predicted) > 0) {
        for (int i = 0; i < n; i++)
            z[i] = h * predicted[i];
        copy_values(z + n, predicted + n, ns + mc);
    }
    dirac_status status =
        newton_solve(&sim->nw, sim_solver(sim, SIM_SOLVER_STAGE1, n + ns + mc), n + ns + mc, z,
                     block, assemble_positions, cx, sim->rtol, sim->max_iterations);
    *iterations += sim->nw.iterations;
    if (status != DIRAC_OK)
        return sim_fail_newton(sim, status, "positions", name_position_rows);
    copy_values(st->dq, z, n);
    copy_values(st->lambda, z + n + ns, mc);
    copy_values(st->s_old, sim->s, ns);
    return DIRAC_OK;
}

// p* = ∂L/∂v + h/2 [∂L/∂q + F] and the step's discrete work (added to *work) at the converged
// midpoint, whose temperatures must be positive (entropies still at S_k: S̄ needs both); then
// the entropies move to S_{k+1} for stage 2.
static dirac_status midpoint_momentum(midpoint_ctx *cx, double *work_out)
{
    dirac_sim *sim = cx->sim;
    midpoint_state *st = cx->st;
    const dirac_model *m = sim->model;
    int n = sim->n, ns = sim->ns;
    double h = sim->h;
    sim_eval *mid = &sim->eval[MID];
    if (st->kernels) {   // the kernel writes q̄ and v̄ into the midpoint's x itself
        for (int i = 0; i < n; i++)
            st->q1[i] = sim->q[i] + st->dq[i];
        run_point_kernel(sim, CODEGEN_STAGE_MIDPOINT, MID, st->dq);
    } else {
        midpoint_of(sim, st->dq, st->qbar, st->vbar, st->q1);
        for (int j = 0; j < ns; j++)
            st->sbar[j] = 0.5 * (sim->s[j] + st->z[n + j]);
        sim_evaluate(sim, mid, st->qbar, st->vbar, st->sbar, sim->t + 0.5 * h, NULL,
                     EVAL_GRADIENT | EVAL_FORCES | EVAL_CONSTRAINTS);
    }
    for (int j = 0; j < ns; j++) {
        double temperature = -mid->gradient[2 * n + j];
        if (!(temperature > 0.0))
            return sim_fail_temperature(sim, j, temperature);
    }
    double work = -h * mid->gradient[m->index_t];
    for (int i = 0; i < n; i++) {
        st->pstar[i] = mid->gradient[n + i] + 0.5 * h * (mid->gradient[i] + mid->forces[i]);
        work += mid->forces[i] * st->dq[i];
    }
    if (ns > 0) {
        model_group_eval(&m->thermal, mid->x, sim->tape_work, sim->thermal_values);
        work += sim_thermal_work(sim, sim->thermal_values, st->dq, h);
        copy_values(sim->s, st->z + n, ns);
    }
    *work_out = work;
    return DIRAC_OK;
}

// One Newton solve of stage 2 with `ls` from the guess (v̄, λ).
static dirac_status velocity_solve(midpoint_ctx *cx, linsolve *ls, int *iterations)
{
    dirac_sim *sim = cx->sim;
    int size = sim->n + sim->mc;
    velocity_guess(sim, cx->st);
    dirac_status status = newton_solve(&sim->nw, ls, size, cx->st->z, cx->st->block,
                                       assemble_velocities, cx, sim->rtol, sim->max_iterations);
    *iterations += sim->nw.iterations;
    return status;
}

// Stage 2: velocities and ν, from the guess v_{k+1} = v̄; for degenerate Lagrangians with the
// momentum balance along K (sim_degenerate.c), tried first when the last node needed it.
static dirac_status solve_velocities(midpoint_ctx *cx, int *iterations)
{
    dirac_sim *sim = cx->sim;
    midpoint_state *st = cx->st;
    int n = sim->n, mc = sim->mc;
    sim_degenerate *dg = &sim->degenerate;
    dg->dim = 0;
    dirac_status status = DIRAC_ERR_SINGULAR;
    bool tried_regular = !dg->active;
    if (tried_regular)
        status = velocity_solve(cx, sim_solver(sim, SIM_SOLVER_STAGE2, n + mc), iterations);
    if (status == DIRAC_ERR_SINGULAR && dg->available) {
        // a degenerate Lagrangian: the momentum balance fixes the velocities in K
        sim_evaluate(sim, &sim->eval[END], st->q1, st->vbar, sim->s, sim->t + sim->h, NULL,
                     EVAL_HESSIAN | EVAL_CONSTRAINTS);
        if (sim_degenerate_basis(sim, &sim->eval[END]) > 0)
            status = velocity_solve(cx, sim_dense_solver(sim, SIM_SOLVER_NODE, n + mc),
                                    iterations);
        dg->active = status == DIRAC_OK && dg->dim > 0;
        if (status == DIRAC_ERR_SINGULAR && dg->dim > 0 && mc > 0) {
            snprintf(sim->errmsg, sizeof sim->errmsg,
                     "step %ld from t = %.17g to %.17g (midpoint, velocities): the Lagrangian and "
                     "the constraints leave %d direction(s) of the velocities free, and the "
                     "velocity-dependent forces do not fix all of them (index above one after "
                     "the constraints, e.g. a loop of capacitors in a circuit); midpoint needs "
                     "the forces to fix them (a resistor in every such loop)",
                     sim->steps + 1, sim->t, sim->t + sim->h, dg->dim);
            dg->dim = 0;
            return DIRAC_ERR_SINGULAR;
        }
        if (!dg->active && !tried_regular) {
            // K is trivial now: the regular stage 2
            dg->dim = 0;
            status = velocity_solve(cx, sim_solver(sim, SIM_SOLVER_STAGE2, n + mc), iterations);
        }
    }
    if (status == DIRAC_ERR_SINGULAR && mc == 0) {
        // L linear in some velocities: the Legendre map does not determine v_{k+1}; report the
        // step's mean velocity and keep p_{k+1} = D2 L_d (docs/methods.md)
        copy_values(st->z, st->vbar, n);
        status = DIRAC_OK;
    }
    if (status != DIRAC_OK)
        return sim_fail_newton(sim, status, "velocities", name_velocity_rows);
    return DIRAC_OK;
}

// One step from the current node into `out`; the predictors record it in midpoint_accept.
static dirac_status step_into(dirac_sim *sim, midpoint_state *st, const sim_node *out)
{
    midpoint_ctx cx = { sim, st };
    const dirac_model *m = sim->model;
    st->kernels = codegen_stage(m->codegen, CODEGEN_STAGE_POSITIONS) != NULL;   // all or none
    int n = sim->n, ns = sim->ns, mc = sim->mc, iterations = 0;
    double h = sim->h, *z = st->z;
    dirac_status status = solve_positions(&cx, &iterations);
    if (status != DIRAC_OK)
        return status;
    double work = 0.0;
    status = midpoint_momentum(&cx, &work);
    if (status != DIRAC_OK)
        return status;
    status = solve_velocities(&cx, &iterations);
    // temperatures at the new node must be positive too
    if (status == DIRAC_OK && ns > 0) {
        sim_evaluate(sim, &sim->eval[START], st->q1, z, sim->s, sim->t + h, NULL, EVAL_GRADIENT);
        for (int j = 0; j < ns && status == DIRAC_OK; j++) {
            double temperature = -sim->eval[START].gradient[2 * n + j];
            if (!(temperature > 0.0))
                status = sim_fail_temperature(sim, j, temperature);
        }
    }
    if (status != DIRAC_OK) {
        copy_values(sim->s, st->s_old, ns);   // back to S_k
        return status;
    }
    // accept: p_{k+1} = p* + h/2 ω(q_{k+1})ᵀ ν (ω at q_{k+1} is in eval[END])
    const double *nu = z + n;
    const sim_eval *mid = &sim->eval[MID];
    for (int a = 0; a < mc; a++)
        if (m->constraints[a].time_dependent)
            work -= h * 0.5 * (st->lambda[a] + nu[a]) * mid->rates[a];
    // q_{k+1} and p* were made in place (midpoint_momentum) when `out` is the next node
    if (out->q != st->q1)
        copy_values(out->q, st->q1, n);
    copy_values(out->v, z, n);
    if (out->p != st->pstar)
        copy_values(out->p, st->pstar, n);
    sim_add_forms_transposed(sim, &sim->eval[END], nu, 0.5 * h, out->p);
    copy_values(out->mu, nu, mc);
    sim->work += work;
    sim->newton_iterations = iterations;
    // the predictor's record: stage 1 as [v̄ | S_{k+1} | λ] at the midpoint (here), stage 2
    // as [v | ν] at the end (z)
    if (!sim->nw.affine) {
        double *record = st->residual;
        for (int i = 0; i < n; i++)
            record[i] = st->dq[i] / h;
        copy_values(record + n, sim->s, ns);
        copy_values(record + n + ns, st->lambda, mc);
        st->record_t = sim->t;
        st->record_h = h;
    }
    if (out->s != sim->s) {   // S_{k+1} to the next node, S_k back
        copy_values(out->s, sim->s, ns);
        copy_values(sim->s, st->s_old, ns);
    }
    return DIRAC_OK;
}

// The step just taken joins the predictors' histories (stage 1 at the midpoint, stage 2 at
// the end; records made by step_into).
static void midpoint_accept(dirac_sim *sim, void *state)
{
    midpoint_state *st = state;
    if (sim->nw.affine)
        return;
    int n = sim->n, ns = sim->ns, mc = sim->mc;
    double t = st->record_t, h = st->record_h;
    predictor_push(&st->positions, n + ns + mc, t + 0.5 * h, st->residual, t, t + h);
    predictor_push(&st->velocities, n + mc, t + h, st->z, t, t + h);
}

// q̄, v̄ and S̄ are made where the midpoint's evaluation reads them, in its slot's point x
// (sim_evaluate then copies nothing).
static void midpoint_in_slot(const dirac_sim *sim, midpoint_state *st)
{
    double *x = sim->eval[MID].x;
    st->qbar = x;
    st->vbar = x + sim->model->first_v;
    st->sbar = x + sim->model->first_s;
}

// midpoint: the new node is assembled where it stays, in the simulation's next node (q_{k+1}
// and p* by midpoint_momentum).
static dirac_status midpoint_step_next(dirac_sim *sim, void *state)
{
    midpoint_state *st = state;
    midpoint_in_slot(sim, st);
    st->q1 = sim->next.q;
    st->pstar = sim->next.p;
    return step_into(sim, st, &sim->next);
}

dirac_status midpoint_step(dirac_sim *sim, void *state)
{
    midpoint_state *st = state;
    midpoint_in_slot(sim, st);
    st->q1 = st->q1_own;
    st->pstar = st->pstar_own;
    sim_node node = { sim->q, sim->v, sim->p, sim->mu, sim->s };
    dirac_status status = step_into(sim, st, &node);
    if (status == DIRAC_OK)
        midpoint_accept(sim, st);
    return status;
}

// The predictors' histories go with the node into snapshots and the failed-step backup.
static void midpoint_history(const dirac_sim *sim, void *state, sim_history *out)
{
    midpoint_state *st = state;
    size_t stage1 = (size_t)(sim->n + sim->ns + sim->mc), stage2 = (size_t)(sim->n + sim->mc);
    if (sim->nw.affine) {   // no predictor (midpoint_step): nothing to save or restore
        *out = (sim_history){ 0, { NULL, NULL }, { 0, 0 } };
        return;
    }
    *out = (sim_history){ 2,
                          { st->positions.memory, st->velocities.memory },
                          { predictor_memory_size((int)stage1), predictor_memory_size((int)stage2) } };
}

const sim_method sim_method_midpoint = {
    .info = { "midpoint", 2,
              "symplectic, symmetric; holonomic constraints at position and velocity level every "
              "step; energy error bounded (no drift)",
              "midpoint discrete Lagrange-d'Alembert-Pontryagin scheme, RATTLE-like constraint "
              "forces (auto for regular Lagrangians)" },
    .thermodynamic = true,
    .state_size = sizeof(midpoint_state),
    .layout = midpoint_layout,
    .init = midpoint_init,
    .step = midpoint_step_next,
    .history = midpoint_history,
    .writes_next = true,
    .accept = midpoint_accept,
};
