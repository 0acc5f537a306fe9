// `dirac1` and `dirac2`: the discrete Dirac integrators of Salnikov & Hamdouni (paper 001),
// built on the discrete Lagrange–d'Alembert–Pontryagin equations of Leok & Ohsawa (2011) with
// the constraint imposed at velocity level at the node (docs/methods.md):
//   dirac1 (forward difference ṽ_k = (q_{k+1} − q_k)/h, one step, order 1):
//     ∂L/∂v(q_k, ṽ_k) − p_k − h [∂L/∂q + F](q_k, ṽ_k, t_k) − h ω(q_k)ᵀ λ = 0
//     ⟨ω_a(q_k, t_k), ṽ_k⟩ + b_a(q_k, t_k) = 0,         p_{k+1} = ∂L/∂v(q_k, ṽ_k)
//   dirac2 (central difference ṽ_k = (q_{k+1} − q_{k−1})/(2h), two steps, order 2):
//     p_{k+1/2} − p_{k−1/2} − h [∂L/∂q + F](q_k, ṽ_k, t_k) − h ω(q_k)ᵀ λ = 0,
//     p_{k±1/2} = ∂L/∂v((q_k + q_{k±1})/2, ±(q_{k±1} − q_k)/h)
//     φ_a(q_{k+1}, t_{k+1}) = 0 (holonomic), ⟨ω_a, v_{k+1/2}⟩ + b_a = 0 at the midpoint of
//     [t_k, t_{k+1}] (nonholonomic): one-step constraints, without leapfrog's parasitic root
//   dirac2 starts with one midpoint step and reports node k once q_{k+1} is known.
// Both solve for increments (dirac1: Δq = q_{k+1} − q_k; dirac2: Δq = q_{k+2} − q_{k+1}, with
// the previous increment kept exactly), so Newton's stopping error and the rounding of the
// difference quotients scale with |Δq| ~ |v| h, not with |q|.
#include "integ_midpoint.h"

#include <stdbool.h>
#include <stdio.h>
#include <string.h>

// ---- dirac1 --------------------------------------------------------------------------------

// Workspace of one dirac1 step.
typedef struct dirac1_state {
    double *z;                    // Newton unknowns [Δq | λ]
    int *block;                   // their blocks
    double *vt;                   // ṽ_k = Δq/h (n)
    double *residual;             // residual at the converged solution (n + m)
} dirac1_state;

enum { NODE = SIM_EVAL_STEP_A };   // dirac1's one evaluation point (q_k, ṽ_k, t_k)

// The assembly callbacks' context.
typedef struct dirac_ctx {
    dirac_sim *sim;
    void *st;
} dirac_ctx;

static void dirac1_layout(const dirac_sim *sim, void *state, sim_layout *l)
{
    dirac1_state *st = state;
    size_t n = (size_t)sim->n, size = n + (size_t)sim->mc;
    st->z = sim_layout_doubles(l, size);
    st->block = sim_layout_ints(l, size);
    st->vt = sim_layout_doubles(l, n);
    st->residual = sim_layout_doubles(l, size);
    sim_layout_newton(l, (int)size);
    sim_layout_solver(l, SIM_SOLVER_STAGE1, (int)size);
}

static int assemble_dirac1(void *context, const double *z, double *r, linsolve *jac)
{
    dirac_ctx *cx = context;
    dirac_sim *sim = cx->sim;
    dirac1_state *st = cx->st;
    const dirac_model *m = sim->model;
    int n = sim->n, mc = sim->mc;
    double h = sim->h, *vt = st->vt;
    for (int i = 0; i < n; i++)
        vt[i] = z[i] / h;   // z = Δq = q_{k+1} − q_k (no cancellation however large |q|)
    sim_eval *e = &sim->eval[NODE];
    sim_evaluate(sim, e, sim->q, vt, sim->s, sim->t, NULL,
                 EVAL_GRADIENT | EVAL_FORCES | EVAL_CONSTRAINTS | (jac ? EVAL_HESSIAN : 0));
    for (int i = 0; i < n; i++)
        r[i] = e->gradient[n + i] - sim->p[i] - h * (e->gradient[i] + e->forces[i]);
    sim_add_forms_transposed(sim, e, z + n, -h, r);
    sim_velocity_constraint(sim, e, vt, r + n);
    if (!jac)
        return 0;
    // ∂R1/∂Δq = H_vv / h − H_qv − F_v;  ∂R1/∂λ = −h ωᵀ;  ∂R2/∂q_{k+1} = ω / h
    sim_add_hessian_block(sim, e, n, n, n, n, 1.0 / h, jac, 0, 0);
    sim_add_hessian_block(sim, e, 0, n, n, n, -1.0, jac, 0, 0);
    sim_add_sparse_block(&m->force_jacobian, e->force_jac, 0, n, n, n, -1.0, jac, 0, 0);
    const model_sparse *f = &m->constraint_forms;
    for (int a = 0; a < mc; a++)
        for (int k = f->row_start[a]; k < f->row_start[a + 1]; k++) {
            linsolve_add(jac, f->col[k], (n + a), -h * e->forms[k]);
            linsolve_add(jac, (n + a), f->col[k], e->forms[k] / h);
        }
    return 0;
}

// Work of forces, explicit time dependence and driven constraints over one step of length h
// with velocity v at the evaluation point e (rectangle rule).
static double node_work(const dirac_sim *sim, const sim_eval *e, const double *v,
                        const double *lambda)
{
    const dirac_model *m = sim->model;
    double work = -sim->h * e->gradient[m->index_t];
    for (int i = 0; i < sim->n; i++)
        work += sim->h * e->forces[i] * v[i];
    for (int a = 0; a < sim->mc; a++)
        if (m->constraints[a].time_dependent)
            work -= sim->h * lambda[a] * e->rates[a];
    return work;
}

// The unknowns [Δq | λ] from the guess Δq = step·(the guess's velocity) and λ = μ_k.
static void prepare_unknowns(const dirac_sim *sim, double *z, int *block, const double *velocity,
                             double step)
{
    int n = sim->n;
    for (int i = 0; i < n; i++) {
        z[i] = step * velocity[i];
        block[i] = 0;
    }
    for (int a = 0; a < sim->mc; a++) {
        z[n + a] = sim->mu[a];
        block[n + a] = 4;
    }
}

static dirac_status dirac1_step(dirac_sim *sim, void *state)
{
    dirac1_state *st = state;
    dirac_ctx cx = { sim, st };
    int n = sim->n, mc = sim->mc;
    double *z = st->z;
    prepare_unknowns(sim, z, st->block, sim->v, sim->h);   // the increment Δq = h v_k
    dirac_status status =
        newton_solve(&sim->nw, sim_solver(sim, SIM_SOLVER_STAGE1, n + mc), n + mc, z, st->block,
                     assemble_dirac1, &cx, sim->rtol, sim->max_iterations);
    if (status != DIRAC_OK)
        return sim_fail_newton(sim, status, "positions", sim_name_coordinate_rows);
    sim->newton_iterations = sim->nw.iterations;
    // re-evaluate at the solution: p_{k+1} = ∂L/∂v(q_k, ṽ_k), work of the step
    assemble_dirac1(&cx, z, st->residual, NULL);
    const sim_eval *e = &sim->eval[NODE];
    const double *vt = st->vt;
    sim->work += node_work(sim, e, vt, z + n);
    sim_node *next = &sim->next;   // the new node (writes_next)
    for (int i = 0; i < n; i++) {
        next->p[i] = e->gradient[n + i];
        next->v[i] = vt[i];
        next->q[i] = sim->q[i] + z[i];
    }
    memcpy(next->mu, z + n, (size_t)mc * sizeof *next->mu);
    memcpy(next->s, sim->s, (size_t)sim->ns * sizeof *next->s);
    return DIRAC_OK;
}

const sim_method sim_method_dirac1 = {
    .info = { "dirac1", 1,
              "discrete Dirac structure (Leok-Ohsawa (+) scheme); constraints at velocity level "
              "only, so positions drift off holonomic constraints at O(h)",
              "Dirac-1 of Salnikov & Hamdouni: forward-difference discrete Lagrange-d'Alembert-"
              "Pontryagin scheme" },
    .state_size = sizeof(dirac1_state),
    .layout = dirac1_layout,
    .step = dirac1_step,
    .writes_next = true,
    .lagged_velocity = true,
    .unconstrained_node_velocity = true,
};

// ---- dirac2 --------------------------------------------------------------------------------
// State: sim->q = q_k (the node reported), q_next = q_{k+1} (look-ahead), p_half = p_{k+1/2}
// during the solve for q_{k+2}.
//
// The constraints are imposed on the new interval [t_{k+1}, t_{k+2}], not through the central
// difference at the node: a centred velocity constraint ⟨ω(q_{k+1}), q_{k+2} − q_k⟩ = 0 is the
// leapfrog rule for the first-order equation ⟨ω, q̇⟩ + b = 0 that governs the constrained
// directions, whose characteristic roots are ±1. Its root −1 is a parasitic mode q_k ∝ (−1)^k
// along ω that the constraint cannot see and the multipliers carry; leapfrog amplifies it
// wherever the constrained dynamics contracts (Chaplygin sleigh: the sleigh reverses), and it
// lets holonomic positions drift. A one-step constraint has the root 1 only:
//   holonomic:    φ_a(q_{k+2}, t_{k+2}) = 0                      (SHAKE, Ryckaert et al. 1977)
//   nonholonomic: ⟨ω_a(q̄), (q_{k+2} − q_{k+1})/h⟩ + b_a(q̄, t_{k+3/2}) = 0,  q̄ the midpoint
// (the discrete Lagrange–d'Alembert constraint of Cortés & Martínez 2001 and McLachlan &
// Perlmutter 2006, symmetric, consistent to second order).

// Workspace and history of dirac2.
typedef struct dirac2_state {
    midpoint_state start;         // the first step's midpoint step
    double *z;                    // Newton unknowns [Δq_{k+1} | λ]
    int *block;                   // their blocks
    double *vt, *qhalf, *vhalf, *q2;   // ṽ_{k+1}, the next interval's midpoint, q_{k+2} (n)
    double *p_half;               // p_{k+1/2} (n)
    double *q_next, *dq_last;     // history: q_{k+1} and q_{k+1} − q_k, kept exactly (n)
    double *q_start, *v_start, *p_start;   // the node kept over the first midpoint step (n)
    double *residual;             // residual at the converged solution (n + m)
} dirac2_state;

// evaluation points: the node k+1; the interval's midpoint (+); q_{k+2}
enum { NODE2 = SIM_EVAL_STEP_A, PLUS = SIM_EVAL_STEP_B, NEXT = SIM_EVAL_STEP_C };

static void dirac2_layout(const dirac_sim *sim, void *state, sim_layout *l)
{
    dirac2_state *st = state;
    size_t n = (size_t)sim->n, size = n + (size_t)sim->mc;
    midpoint_layout(sim, &st->start, l);
    st->z = sim_layout_doubles(l, size);
    st->block = sim_layout_ints(l, size);
    double **vectors[] = { &st->vt, &st->qhalf, &st->vhalf, &st->q2, &st->p_half, &st->q_next,
                           &st->dq_last, &st->q_start, &st->v_start, &st->p_start };
    for (size_t k = 0; k < sizeof vectors / sizeof vectors[0]; k++)
        *vectors[k] = sim_layout_doubles(l, n);
    st->residual = sim_layout_doubles(l, size);
    sim_layout_newton(l, (int)size);
    sim_layout_solver(l, SIM_SOLVER_EXTRA, (int)size);
}

static void dirac2_history(const dirac_sim *sim, void *state, sim_history *out)
{
    dirac2_state *st = state;
    *out = (sim_history){ 2, { st->q_next, st->dq_last }, { (size_t)sim->n, (size_t)sim->n } };
}

static int assemble_dirac2(void *context, const double *z, double *r, linsolve *jac)
{
    dirac_ctx *cx = context;
    dirac_sim *sim = cx->sim;
    dirac2_state *st = cx->st;
    const dirac_model *m = sim->model;
    int n = sim->n, mc = sim->mc;
    double h = sim->h, t = sim->t + h;   // the node solved is k+1
    // z = Δq_{k+1} = q_{k+2} − q_{k+1}; dq_last = q_{k+1} − q_k
    const double *q1 = st->q_next, *d0 = st->dq_last, *d1 = z, *p_minus = st->p_half;
    double *vt = st->vt, *qhalf = st->qhalf, *vhalf = st->vhalf, *q2 = st->q2;
    for (int i = 0; i < n; i++) {
        vt[i] = (d0[i] + d1[i]) / (2.0 * h);
        qhalf[i] = q1[i] + 0.5 * d1[i];
        vhalf[i] = d1[i] / h;
        q2[i] = q1[i] + d1[i];
    }
    sim_eval *node = &sim->eval[NODE2], *plus = &sim->eval[PLUS], *next = &sim->eval[NEXT];
    sim_evaluate(sim, node, q1, vt, sim->s, t, NULL,
                 EVAL_GRADIENT | EVAL_FORCES | EVAL_CONSTRAINTS | (jac ? EVAL_HESSIAN : 0));
    sim_evaluate(sim, plus, qhalf, vhalf, sim->s, t + 0.5 * h, NULL,
                 EVAL_GRADIENT | (mc ? EVAL_CONSTRAINTS : 0) |
                     (jac ? EVAL_HESSIAN | (mc ? EVAL_CONSTRAINT_JAC : 0) : 0));
    bool holonomic = sim_has_holonomic(sim);
    if (holonomic)
        sim_evaluate(sim, next, q2, vhalf, sim->s, t + h, NULL, EVAL_CONSTRAINTS);
    for (int i = 0; i < n; i++)
        r[i] = plus->gradient[n + i] - p_minus[i] - h * (node->gradient[i] + node->forces[i]);
    sim_add_forms_transposed(sim, node, z + n, -h, r);
    for (int a = 0; a < mc; a++)
        r[n + a] = m->constraints[a].kind == DIRAC_CONSTRAINT_HOLONOMIC ? next->values[a]
                                                                         : plus->values[a];
    if (!jac)
        return 0;
    // ∂R1/∂Δq_{k+1} = ∂R1/∂q_{k+2} = ½ H_vq(+) + H_vv(+) / h − ½ (H_qv + F_v)(node)
    sim_add_hessian_block(sim, plus, n, n, 0, n, 0.5, jac, 0, 0);
    sim_add_hessian_block(sim, plus, n, n, n, n, 1.0 / h, jac, 0, 0);
    sim_add_hessian_block(sim, node, 0, n, n, n, -0.5, jac, 0, 0);
    sim_add_sparse_block(&m->force_jacobian, node->force_jac, 0, n, n, n, -0.5, jac, 0, 0);
    // φ(q_{k+2}) is rounded at the scale of the absolute positions, not of Δq (newton.h)
    if (holonomic)
        sim_add_position_magnitude(sim, next, q2, 1.0, sim->nw.hidden_magnitude + n);
    // ∂R1/∂λ = −h ω(q_{k+1})ᵀ; constraint rows: ω(q_{k+2}) (holonomic), ½ ∂g/∂q + ω / h at the
    // midpoint (nonholonomic)
    const model_sparse *f = &m->constraint_forms;
    for (int a = 0; a < mc; a++) {
        for (int k = f->row_start[a]; k < f->row_start[a + 1]; k++)
            linsolve_add(jac, f->col[k], (n + a), -h * node->forms[k]);
        if (m->constraints[a].kind == DIRAC_CONSTRAINT_HOLONOMIC) {
            sim_add_sparse_block(f, next->forms, a, 1, 0, n, 1.0, jac, n + a, 0);
        } else {
            sim_add_sparse_block(&m->constraint_jacobian, plus->constraint_jac, a, 1, 0, n, 0.5,
                                 jac, n + a, 0);
            sim_add_sparse_block(f, plus->forms, a, 1, 0, n, 1.0 / h, jac, n + a, 0);
        }
    }
    return 0;
}

static dirac_status dirac2_step(dirac_sim *sim, void *state)
{
    dirac2_state *st = state;
    dirac_ctx cx = { sim, st };
    int n = sim->n, mc = sim->mc;
    size_t bytes = (size_t)n * sizeof(double);
    double h = sim->h;
    if (sim->steps == 0) {
        // q_1 from one midpoint step; the reported node stays at 0 until q_2 is known
        memcpy(st->q_start, sim->q, bytes);
        memcpy(st->v_start, sim->v, bytes);
        memcpy(st->p_start, sim->p, bytes);
        double work0 = sim->work;
        dirac_status status = midpoint_step(sim, &st->start);
        if (status != DIRAC_OK)
            return status;
        memcpy(st->q_next, sim->q, bytes);
        memcpy(st->dq_last, st->start.dq, bytes);
        memcpy(sim->q, st->q_start, bytes);
        memcpy(sim->v, st->v_start, bytes);
        memcpy(sim->p, st->p_start, bytes);
        sim->work = work0;
    }
    // p_{k+1/2} from q_k and q_{k+1}
    for (int i = 0; i < n; i++) {
        st->qhalf[i] = sim->q[i] + 0.5 * st->dq_last[i];
        st->vhalf[i] = st->dq_last[i] / h;
    }
    sim_eval *half = &sim->eval[NODE2];
    sim_evaluate(sim, half, st->qhalf, st->vhalf, sim->s, sim->t + 0.5 * h, NULL, EVAL_GRADIENT);
    memcpy(st->p_half, half->gradient + n, bytes);
    prepare_unknowns(sim, st->z, st->block, st->dq_last, 1.0);   // the next increment
    int iterations = sim->newton_iterations;
    dirac_status status =
        newton_solve(&sim->nw, sim_solver(sim, SIM_SOLVER_EXTRA, n + mc), n + mc, st->z,
                     st->block, assemble_dirac2, &cx, sim->rtol, sim->max_iterations);
    if (status != DIRAC_OK)
        return sim_fail_newton(sim, status, "positions", sim_name_coordinate_rows);
    sim->newton_iterations = sim->nw.iterations + (sim->steps == 0 ? iterations : 0);
    // the node k+1: q_{k+1}, ṽ_{k+1}, p = ∂L/∂v(q_{k+1}, ṽ_{k+1}), μ = λ
    const double *z = st->z;
    assemble_dirac2(&cx, z, st->residual, NULL);
    const sim_eval *node = &sim->eval[NODE2];
    const double *vt = st->vt;
    sim->work += node_work(sim, node, vt, z + n);
    for (int i = 0; i < n; i++) {
        sim->q[i] = st->q_next[i];
        st->q_next[i] += z[i];
        st->dq_last[i] = z[i];
        sim->v[i] = vt[i];
        sim->p[i] = node->gradient[n + i];
    }
    memcpy(sim->mu, z + n, (size_t)mc * sizeof *sim->mu);
    return DIRAC_OK;
}

// Refuses degenerate models whose velocities are partly fixed by forces (K = ker ∂²L/∂v² ∩
// ker ω ≠ 0, e.g. resistor branches): there the central difference is the leapfrog scheme on a
// first-order dissipative equation, whose parasitic root −(1 + h/τ) grows like e^{t/τ}
// (measured: 4e35 relative on an RC network after 100 time constants).
static dirac_status dirac2_check(dirac_sim *sim, void *state)
{
    (void)state;
    if (!sim->degenerate.available)
        return DIRAC_OK;
    sim_eval *e = &sim->eval[NODE2];
    sim_evaluate(sim, e, sim->q, sim->v, sim->s, sim->t, NULL, EVAL_HESSIAN | EVAL_CONSTRAINTS);
    int dim = sim_degenerate_basis(sim, e);
    sim->degenerate.dim = 0;
    if (dim == 0)
        return DIRAC_OK;
    snprintf(sim->errmsg, sizeof sim->errmsg,
             "method 'dirac2' cannot run this model: %d direction(s) of the velocities are fixed "
             "by forces only (the Lagrangian is degenerate there and no constraint fixes them, "
             "e.g. resistor branches); on them the central difference is a leapfrog scheme on a "
             "first-order equation, whose parasitic mode grows like exp(t/tau); use midpoint or "
             "dgrad", dim);
    return DIRAC_ERR_UNSUPPORTED;
}

const sim_method sim_method_dirac2 = {
    .info = { "dirac2", 2,
              "discrete Dirac structure with central differences; symmetric; holonomic "
              "constraints at position level every step (SHAKE), nonholonomic ones at each "
              "interval's midpoint",
              "Dirac-2 of Salnikov & Hamdouni: central-difference two-step scheme (starts with a "
              "midpoint step)" },
    .two_step = true,
    .state_size = sizeof(dirac2_state),
    .layout = dirac2_layout,
    .init = midpoint_init,
    .step = dirac2_step,
    .check = dirac2_check,
    .history = dirac2_history,
};
