// `euler` and `rk4`: the classical baselines, explicit methods on the index-reduced ODE.
// The acceleration a and the multipliers μ solve the KKT system (docs/methods.md)
//     H_vv a − ωᵀ μ = ∂L/∂q + F − H_vq v − H_vt
//     ω a          = −(∂g/∂q v + ∂g/∂t),      g = ⟨ω, v⟩ + b  (the velocity-level constraint),
// which needs a regular H_vv on the constraint distribution; otherwise no ODE exists and these
// methods refuse. Positions drift off the constraints (nothing enforces φ = 0).
#include "sim.h"

#include <math.h>
#include <string.h>

// Acceleration and multipliers at (q, v, t); returns DIRAC_ERR_SINGULAR if the KKT matrix is.
// Also returns the power F·v − ∂L/∂t − Σ_{driven} μ b at that point in *power.
dirac_status sim_acceleration(dirac_sim *sim, const double *q, const double *v, double t,
                                 double *a, double *mu, double *power)
{
    const dirac_model *m = sim->model;
    int n = sim->n, mc = sim->mc, size = n + mc;
    sim_eval *e = &sim->eval[1];
    sim_evaluate(sim, e, q, v, sim->s, t, NULL,
                 EVAL_GRADIENT | EVAL_HESSIAN | EVAL_CONSTRAINTS | EVAL_CONSTRAINT_JAC |
                     EVAL_FORCES);
    double *rhs = sim->scratch + 4 * (n + mc);
    linsolve *kkt = sim_solver(sim, SIM_SOLVER_KKT, size);
    if (!kkt)
        return DIRAC_ERR_NOMEM;
    // [H_vv, −ωᵀ; ω, 0]: the pattern is recorded at the first use, then values are added
    for (int pass = kkt->sparse && !kkt->has_pattern ? 0 : 1; pass < 2; pass++) {
        if (pass == 0)
            linsolve_begin_pattern(kkt);
        else
            linsolve_zero(kkt);
        sim_add_hessian_block(sim, e, n, n, n, n, 1.0, kkt, 0, 0);
        const model_sparse *f = &m->constraint_forms;
        for (int c = 0; c < mc; c++)
            for (int k = f->row_start[c]; k < f->row_start[c + 1]; k++) {
                linsolve_add(kkt, f->col[k], n + c, -e->forms[k]);
                linsolve_add(kkt, n + c, f->col[k], e->forms[k]);
            }
        if (pass == 0 && linsolve_end_pattern(kkt, NULL) != DIRAC_OK)
            return DIRAC_ERR_NOMEM;
    }
    // right-hand side
    for (int i = 0; i < n; i++)
        rhs[i] = e->gradient[i] + e->forces[i];
    for (int c = 0; c < mc; c++)
        rhs[n + c] = 0.0;
    const model_sparse *hs = &m->hessian;
    for (int i = 0; i < n; i++)
        for (int k = hs->row_start[n + i]; k < hs->row_start[n + i + 1]; k++) {
            int col = hs->col[k];
            if (col < n)
                rhs[i] -= e->hessian[k] * v[col];
            else if (col == m->index_t)
                rhs[i] -= e->hessian[k];
        }
    const model_sparse *cj = &m->constraint_jacobian;
    for (int c = 0; c < mc; c++)
        for (int k = cj->row_start[c]; k < cj->row_start[c + 1]; k++) {
            int col = cj->col[k];
            if (col < n)
                rhs[n + c] -= e->constraint_jac[k] * v[col];
            else if (col == m->index_t)
                rhs[n + c] -= e->constraint_jac[k];
        }
    int bad = -1;
    if (linsolve_factor(kkt, &bad) != DIRAC_OK)
        return DIRAC_ERR_SINGULAR;
    linsolve_solve(kkt, rhs);
    memcpy(a, rhs, (size_t)n * sizeof *a);
    memcpy(mu, rhs + n, (size_t)mc * sizeof *mu);
    double p = -e->gradient[m->index_t];
    for (int i = 0; i < n; i++)
        p += e->forces[i] * v[i];
    for (int c = 0; c < mc; c++)
        if (m->constraints[c].time_dependent)
            p -= mu[c] * e->rates[c];
    *power = p;
    return DIRAC_OK;
}

// A failed acceleration solve at time t of the step from sim->t to sim->t + h: named by the
// step's start and end, like every step failure, and the time of the failing evaluation.
static dirac_status fail_singular(dirac_sim *sim, dirac_status status, double t)
{
    if (status == DIRAC_ERR_NOMEM) {
        snprintf(sim->errmsg, sizeof sim->errmsg, "step %ld from t = %.17g to %.17g (%s): out of "
                 "memory", sim->steps + 1, sim->t, sim->t + sim->h, sim->method->info.name);
        return status;
    }
    snprintf(sim->errmsg, sizeof sim->errmsg,
             "step %ld from t = %.17g to %.17g (%s): the matrix [d2L/dv2, constraint forms] is "
             "singular at t = %.17g, so no ODE exists there (degenerate Lagrangian or dependent "
             "constraints); use midpoint, dirac1 or dirac2",
             sim->steps + 1, sim->t, sim->t + sim->h, sim->method->info.name, t);
    return DIRAC_ERR_SINGULAR;
}

// Finishes a step: new q, v given; p = ∂L/∂v, μ from the KKT system at the new node.
static dirac_status finish(dirac_sim *sim, double t_new)
{
    int n = sim->n;
    double *a = sim->scratch + 2 * (sim->n + sim->mc), power;
    dirac_status status = sim_acceleration(sim, sim->q, sim->v, t_new, a, sim->mu, &power);
    if (status != DIRAC_OK)
        return fail_singular(sim, status, t_new);
    memcpy(sim->p, sim->eval[1].gradient + n, (size_t)n * sizeof *sim->p);
    sim->newton_iterations = 0;
    return DIRAC_OK;
}

// The acceleration at the new node that finish() computed (the first stage of the next step).
static const double *new_node_acceleration(dirac_sim *sim)
{
    return sim->scratch + 2 * (sim->n + sim->mc);
}

// Euler with Heun's embedded estimate: err = (h/2) (f(y_{k+1}) − f(y_k)), the local error of
// the Euler step to leading order, from the slope at the new node that finish() evaluates
// anyway (Hairer, Nørsett & Wanner, Solving ODEs I, II.4).
static dirac_status euler_step(dirac_sim *sim)
{
    int n = sim->n;
    double h = sim->h, *a = sim->scratch, *mu = a + n, power, *err = sim->trial;
    dirac_status status = sim_acceleration(sim, sim->q, sim->v, sim->t, a, mu, &power);
    if (status != DIRAC_OK)
        return fail_singular(sim, status, sim->t);
    for (int i = 0; i < n; i++) {
        err[i] = sim->v[i];
        err[n + i] = a[i];
        sim->q[i] += h * sim->v[i];
        sim->v[i] += h * a[i];
    }
    sim->work += h * power;
    status = finish(sim, sim->t + h);
    const double *a_new = new_node_acceleration(sim);
    for (int i = 0; status == DIRAC_OK && i < n; i++) {
        err[i] = 0.5 * h * (sim->v[i] - err[i]);
        err[n + i] = 0.5 * h * (a_new[i] - err[n + i]);
    }
    return status;
}

static dirac_status rk4_step(dirac_sim *sim)
{
    int n = sim->n, mc = sim->mc;
    double h = sim->h, t = sim->t;
    (void)mc;
    double *kq = sim->q_older, *kv = sim->p_half;        // accumulated increments
    double *qs = sim->q_old, *vs = sim->scratch, *a = vs + n, *mu = a + n;
    static const double c[4] = { 0.0, 0.5, 0.5, 1.0 }, b[4] = { 1.0 / 6, 1.0 / 3, 1.0 / 3, 1.0 / 6 };
    double power_sum = 0.0, power;
    memset(kq, 0, (size_t)n * sizeof *kq);
    memset(kv, 0, (size_t)n * sizeof *kv);
    // stage 1 at (q, v); each stage's slope (v_s, a_s) feeds the next stage point
    memcpy(qs, sim->q, (size_t)n * sizeof *qs);
    memcpy(vs, sim->v, (size_t)n * sizeof *vs);
    for (int stage = 0; stage < 4; stage++) {
        dirac_status status = sim_acceleration(sim, qs, vs, t + c[stage] * h, a, mu, &power);
        if (status != DIRAC_OK)
            return fail_singular(sim, status, t + c[stage] * h);
        power_sum += b[stage] * power;
        if (stage == 3)
            for (int i = 0; i < n; i++) {
                sim->trial[i] = vs[i];
                sim->trial[n + i] = a[i];
            }
        double next = stage < 3 ? c[stage + 1] * h : 0.0;
        for (int i = 0; i < n; i++) {
            kq[i] += b[stage] * vs[i];
            kv[i] += b[stage] * a[i];
            double slope_q = vs[i], slope_v = a[i];
            qs[i] = sim->q[i] + next * slope_q;
            vs[i] = sim->v[i] + next * slope_v;
        }
    }
    for (int i = 0; i < n; i++) {
        sim->q[i] += h * kq[i];
        sim->v[i] += h * kv[i];
    }
    sim->work += h * power_sum;
    // embedded third-order companion b̂ = (1/6, 1/3, 1/3, 0, 1/6) with the stage
    // k5 = f(y_{k+1}) (first same as last: finish() evaluates it for μ anyway):
    // y_{k+1} − ŷ_{k+1} = (h/6)(k4 − k5), an O(h⁴) estimate (order conditions checked in
    // docs/methods.md, "Adaptive step size")
    dirac_status status = finish(sim, t + h);
    const double *a_new = new_node_acceleration(sim);
    for (int i = 0; status == DIRAC_OK && i < n; i++) {
        sim->trial[i] = h / 6.0 * (sim->trial[i] - sim->v[i]);
        sim->trial[n + i] = h / 6.0 * (sim->trial[n + i] - a_new[i]);
    }
    return status;
}

static dirac_status explicit_check(dirac_sim *sim)
{
    double *a = sim->scratch, *mu = a + sim->n, power;
    dirac_status status = sim_acceleration(sim, sim->q, sim->v, sim->t, a, mu, &power);
    if (status == DIRAC_ERR_NOMEM)
        return status;
    if (status != DIRAC_OK) {
        snprintf(sim->errmsg, sizeof sim->errmsg,
                 "method '%s' needs an ODE, but the matrix [d2L/dv2, constraint forms] is "
                 "singular at the initial state (degenerate Lagrangian or dependent "
                 "constraints); use midpoint, dirac1 or dirac2",
                 sim->method->info.name);
        return DIRAC_ERR_UNSUPPORTED;
    }
    memcpy(sim->mu, mu, (size_t)sim->mc * sizeof *sim->mu);
    return DIRAC_OK;
}

const sim_method sim_method_euler = {
    .info = { "euler", 1, "nothing: constraints and energy drift",
              "explicit Euler on the index-reduced ODE (classical baseline)" },
    .explicit_ode = true,
    .implicit_workspace = false,
    .step = euler_step,
    .check = explicit_check,
    .estimate_order = 1,
};

const sim_method sim_method_rk4 = {
    .info = { "rk4", 4, "nothing structural: constraints and energy drift (slowly, at O(h^4))",
              "classical Runge-Kutta 4 on the index-reduced ODE (classical baseline)" },
    .explicit_ode = true,
    .implicit_workspace = false,
    .step = rk4_step,
    .check = explicit_check,
    .estimate_order = 3,
};
