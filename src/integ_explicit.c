// `euler` and `rk4`: the classical baselines, explicit methods on the index-reduced ODE
// (sim_kkt.c: the acceleration a and the multipliers μ from the KKT system, which needs a
// regular H_vv on the constraint distribution; otherwise no ODE exists and these methods
// refuse). Positions drift off the constraints (nothing enforces φ = 0).
#include "sim.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

// Workspace of the explicit methods (rk4 uses every buffer, euler all but the stage ones).
typedef struct explicit_state {
    double *a, *mu;               // acceleration and multipliers at a stage (n, m)
    double *a_new, *mu_new;       // the acceleration and multipliers at the new node (n, m)
    double power_new;             // and the power there
    double *node_point;           // the point they were evaluated at (the KKT slot's x) ...
    bool node_valid;              // ... once a step has finished (false: the zeroed start)
    double *qs, *vs;              // rk4: the stage point (n each)
    double *kq, *kv;              // rk4: the weighted sums of the stage slopes (n each)
} explicit_state;

static void euler_layout(const dirac_sim *sim, void *state, sim_layout *l)
{
    explicit_state *st = state;
    st->a = sim_layout_doubles(l, (size_t)sim->n);
    st->mu = sim_layout_doubles(l, (size_t)sim->mc);
    st->a_new = sim_layout_doubles(l, (size_t)sim->n);
    st->mu_new = sim_layout_doubles(l, (size_t)sim->mc);
    st->node_point = sim_layout_doubles(l, (size_t)sim->model->n_inputs);
    sim_layout_solver(l, SIM_SOLVER_KKT, sim->n + sim->mc);   // sim_acceleration
}

static void rk4_layout(const dirac_sim *sim, void *state, sim_layout *l)
{
    explicit_state *st = state;
    euler_layout(sim, state, l);
    st->qs = sim_layout_doubles(l, (size_t)sim->n);
    st->vs = sim_layout_doubles(l, (size_t)sim->n);
    st->kq = sim_layout_doubles(l, (size_t)sim->n);
    st->kv = sim_layout_doubles(l, (size_t)sim->n);
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
             "constraints); use midpoint, dgrad or dirac1",
             sim->steps + 1, sim->t, sim->t + sim->h, sim->method->info.name, t);
    return DIRAC_ERR_SINGULAR;
}

// Whether x (a KKT slot's point: q, v, S, t, μ = 0, inputs) is the current node's point.
static bool at_node(const dirac_sim *sim, const double *x)
{
    const dirac_model *m = sim->model;
    const double *inputs = sim->eval[SIM_EVAL_NODE].x + m->first_u;   // every slot has them
    return !memcmp(x, sim->q, (size_t)sim->n * sizeof *x) &&
           !memcmp(x + m->first_v, sim->v, (size_t)sim->n * sizeof *x) &&
           !memcmp(x + m->first_s, sim->s, (size_t)sim->ns * sizeof *x) &&
           !memcmp(x + m->index_t, &sim->t, sizeof *x) &&
           !memcmp(x + m->first_u, inputs, (size_t)m->nu * sizeof *x);
}

// The acceleration, multipliers and power at the node (q, v, t): the first stage of a step is
// the last evaluation of the step before ("first same as last"), kept with the point it was
// evaluated at, so it is reused only at exactly that point (same bits as a new solve).
static dirac_status node_acceleration(dirac_sim *sim, explicit_state *st, double *a, double *mu,
                                      double *power)
{
    if (st->node_valid && at_node(sim, st->node_point)) {
        memcpy(a, st->a_new, (size_t)sim->n * sizeof *a);
        memcpy(mu, st->mu_new, (size_t)sim->mc * sizeof *mu);
        *power = st->power_new;
        return DIRAC_OK;
    }
    return sim_acceleration(sim, sim->q, sim->v, sim->t, a, mu, power);
}

// Finishes a step: the new q, v given in sim->next (writes_next); there p = ∂L/∂v, μ from
// the KKT system at the new node (time sim->t_next, where the next step starts), whose
// acceleration goes to st->a_new, and S unchanged.
static dirac_status finish(dirac_sim *sim, explicit_state *st)
{
    int n = sim->n;
    double t_new = sim->t_next;
    sim_node *next = &sim->next;
    st->node_valid = false;
    dirac_status status =
        sim_acceleration(sim, next->q, next->v, t_new, st->a_new, st->mu_new, &st->power_new);
    if (status != DIRAC_OK)
        return fail_singular(sim, status, t_new);
    memcpy(next->mu, st->mu_new, (size_t)sim->mc * sizeof *next->mu);
    memcpy(st->node_point, sim->eval[SIM_EVAL_KKT].x,
           (size_t)sim->model->n_inputs * sizeof *st->node_point);
    st->node_valid = true;
    memcpy(next->p, sim->eval[SIM_EVAL_KKT].gradient + n, (size_t)n * sizeof *next->p);
    memcpy(next->s, sim->s, (size_t)sim->ns * sizeof *next->s);
    sim->newton_iterations = 0;
    return DIRAC_OK;
}

// Euler with Heun's embedded estimate: err = (h/2) (f(y_{k+1}) − f(y_k)), the local error of
// the Euler step to leading order, from the slope at the new node that finish() evaluates
// anyway (Hairer, Nørsett & Wanner, Solving ODEs I, II.4).
static dirac_status euler_step(dirac_sim *sim, void *state)
{
    explicit_state *st = state;
    int n = sim->n;
    double h = sim->h, *a = st->a, *mu = st->mu, power, *err = sim->adapt.trial;
    dirac_status status = node_acceleration(sim, st, a, mu, &power);
    if (status != DIRAC_OK)
        return fail_singular(sim, status, sim->t);
    double *q1 = sim->next.q, *v1 = sim->next.v;
    for (int i = 0; i < n; i++) {
        err[i] = sim->v[i];
        err[n + i] = a[i];
        q1[i] = sim->q[i] + h * sim->v[i];
        v1[i] = sim->v[i] + h * a[i];
    }
    sim->work += h * power;
    status = finish(sim, st);
    const double *a_new = st->a_new;
    for (int i = 0; status == DIRAC_OK && i < n; i++) {
        err[i] = 0.5 * h * (v1[i] - err[i]);
        err[n + i] = 0.5 * h * (a_new[i] - err[n + i]);
    }
    return status;
}

static dirac_status rk4_step(dirac_sim *sim, void *state)
{
    explicit_state *st = state;
    int n = sim->n;
    double h = sim->h, t = sim->t, *trial = sim->adapt.trial;
    double *kq = st->kq, *kv = st->kv, *qs = st->qs, *vs = st->vs, *a = st->a, *mu = st->mu;
    static const double c[4] = { 0.0, 0.5, 0.5, 1.0 }, b[4] = { 1.0 / 6, 1.0 / 3, 1.0 / 3, 1.0 / 6 };
    double power_sum = 0.0, power;
    memset(kq, 0, (size_t)n * sizeof *kq);
    memset(kv, 0, (size_t)n * sizeof *kv);
    // stage 1 at (q, v); each stage's slope (v_s, a_s) feeds the next stage point
    memcpy(qs, sim->q, (size_t)n * sizeof *qs);
    memcpy(vs, sim->v, (size_t)n * sizeof *vs);
    for (int stage = 0; stage < 4; stage++) {
        dirac_status status = stage == 0 ? node_acceleration(sim, st, a, mu, &power)
                                         : sim_acceleration(sim, qs, vs, t + c[stage] * h, a,
                                                            mu, &power);
        if (status != DIRAC_OK)
            return fail_singular(sim, status, t + c[stage] * h);
        power_sum += b[stage] * power;
        if (stage == 3)
            for (int i = 0; i < n; i++) {
                trial[i] = vs[i];
                trial[n + i] = a[i];
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
    double *q1 = sim->next.q, *v1 = sim->next.v;
    for (int i = 0; i < n; i++) {
        q1[i] = sim->q[i] + h * kq[i];
        v1[i] = sim->v[i] + h * kv[i];
    }
    sim->work += h * power_sum;
    // embedded third-order companion b̂ = (1/6, 1/3, 1/3, 0, 1/6) with the stage
    // k5 = f(y_{k+1}) (first same as last: finish() evaluates it for μ anyway):
    // y_{k+1} − ŷ_{k+1} = (h/6)(k4 − k5), an O(h⁴) estimate (order conditions checked in
    // docs/methods.md, "Adaptive step size")
    dirac_status status = finish(sim, st);
    for (int i = 0; status == DIRAC_OK && i < n; i++) {
        trial[i] = h / 6.0 * (trial[i] - v1[i]);
        trial[n + i] = h / 6.0 * (trial[n + i] - st->a_new[i]);
    }
    return status;
}

static dirac_status explicit_check(dirac_sim *sim, void *state)
{
    explicit_state *st = state;
    double *mu = st->mu, power;
    dirac_status status = sim_acceleration(sim, sim->q, sim->v, sim->t, st->a, mu, &power);
    if (status == DIRAC_ERR_NOMEM)
        return status;
    if (status != DIRAC_OK) {
        snprintf(sim->errmsg, sizeof sim->errmsg,
                 "method '%s' needs an ODE, but the matrix [d2L/dv2, constraint forms] is "
                 "singular at the initial state (degenerate Lagrangian or dependent "
                 "constraints); use midpoint, dgrad or dirac1",
                 sim->method->info.name);
        return DIRAC_ERR_UNSUPPORTED;
    }
    memcpy(sim->mu, mu, (size_t)sim->mc * sizeof *sim->mu);
    return DIRAC_OK;
}

const sim_method sim_method_euler = {
    .info = { "euler", 1, "nothing: constraints and energy drift",
              "explicit Euler on the index-reduced ODE (classical baseline)" },
    .state_size = sizeof(explicit_state),
    .layout = euler_layout,
    .step = euler_step,
    .writes_next = true,
    .check = explicit_check,
    .estimate_order = 1,
};

const sim_method sim_method_rk4 = {
    .info = { "rk4", 4, "nothing structural: constraints and energy drift (slowly, at O(h^4))",
              "classical Runge-Kutta 4 on the index-reduced ODE (classical baseline)" },
    .state_size = sizeof(explicit_state),
    .layout = rk4_layout,
    .step = rk4_step,
    .writes_next = true,
    .check = explicit_check,
    .estimate_order = 3,
};
