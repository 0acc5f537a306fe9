// The accepted node: its diagnostics (energy, temperatures, constraint residuals), the
// quantities derived there (outputs, two-form coefficients: computed once per accepted step,
// as MuJoCo's mj_forward computes derived quantities, so the accessors only read), and the
// finiteness check of a new node.
#include "sim.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

// The accelerations q'' at the node, when an output names one (m->na > 0): the index-reduced
// ODE's KKT system at (q, v, t) (sim_kkt.c), into the acceleration block of the node slot's x
// (model.h). NaN where that system is singular (a coordinate without inertia): the outputs
// that read them become NaN, which run_quality.c reports.
static void node_accelerations(dirac_sim *sim, sim_eval *e)
{
    const dirac_model *m = sim->model;
    double *a = e->x + m->first_a, power;
    sim->kkt.node_status = sim_acceleration(sim, sim->q, sim->v, sim->t, a,
                                            sim->kkt.node_multiplier, &power);
    if (sim->kkt.node_status != DIRAC_OK)
        for (int i = 0; i < m->na; i++)
            a[i] = (double)NAN;
}

// Outputs and two-form coefficients at the node slot's point.
static void derive(dirac_sim *sim, sim_eval *e)
{
    const dirac_model *m = sim->model;
    if (m->na > 0)
        node_accelerations(sim, e);
    if (m->output_count > 0)
        model_group_eval(&m->outputs, e->x, sim->tape_work, sim->outputs);
    if (m->wedge_count > 0)
        model_group_eval(&m->wedge_coefficients, e->x, sim->tape_work, sim->wedge_values);
}

// The larger of m and a, NaN sticking (as in run_quality.c).
static inline double sticky_max(double m, double a)
{
    return a > m || isnan(a) ? a : m;
}

// From this many coordinates on, ⟨p, v⟩ is summed in NODE_LANES interleaved partial sums
// (lane j takes the terms i ≡ j mod NODE_LANES, then (s0 + s1) + (s2 + s3)): a sum in order is
// a chain of additions, one add's latency per coordinate (most of the pass's time at 10^5
// coordinates), where the lanes run side by side. Its rounding error is of the same order
// (Higham, Accuracy and Stability of Numerical Algorithms, 2nd ed., sec. 4.2); smaller
// models keep the sum in order.
#define NODE_LANES 4
#define NODE_LANES_FROM 64

// One pass over q, v, p in lanes (n >= NODE_LANES_FROM): ⟨p, v⟩, the energy ⟨p, v⟩ − L and
// the largest |q_i|, |v_i|.
static __attribute__((noinline)) node_sums
node_pass_lanes(const double *restrict q, const double *restrict v,
                                 const double *restrict p, int n, double lagrangian,
                                 double *energy)
{
    double pv[NODE_LANES] = { 0 }, q_max[NODE_LANES] = { 0 }, v_max[NODE_LANES] = { 0 };
    double q_nan[NODE_LANES] = { 0 }, v_nan[NODE_LANES] = { 0 };   // 1: a NaN was seen
    int i = 0;
    // the lanes' maxima without NaN, and whether each lane saw one (selects the compiler
    // vectorizes); a NaN then sticks below
    for (; i + NODE_LANES <= n; i += NODE_LANES)
        for (int j = 0; j < NODE_LANES; j++) {
            double aq = fabs(q[i + j]), av = fabs(v[i + j]);
            pv[j] += p[i + j] * v[i + j];
            q_max[j] = aq > q_max[j] ? aq : q_max[j];
            v_max[j] = av > v_max[j] ? av : v_max[j];
            q_nan[j] = aq != aq ? 1.0 : q_nan[j];
            v_nan[j] = av != av ? 1.0 : v_nan[j];
        }
    for (; i < n; i++) {   // the last few into lane 0
        pv[0] += p[i] * v[i];
        q_max[0] = sticky_max(q_max[0], fabs(q[i]));
        v_max[0] = sticky_max(v_max[0], fabs(v[i]));
    }
    node_sums sums = { (pv[0] + pv[1]) + (pv[2] + pv[3]), q_max[0], v_max[0], 0.0 };
    for (int j = 0; j < NODE_LANES; j++) {
        sums.q_max = sticky_max(sums.q_max, q_nan[j] != 0.0 ? (double)NAN : q_max[j]);
        sums.v_max = sticky_max(sums.v_max, v_nan[j] != 0.0 ? (double)NAN : v_max[j]);
    }
    *energy = -lagrangian + sums.pv;
    return sums;
}

void sim_update_diagnostics(dirac_sim *sim)
{
    const dirac_model *m = sim->model;
    sim_eval *e = &sim->eval[SIM_EVAL_NODE];
    // ∂L/∂S for the temperatures: the rest of the gradient is not read at the node
    sim_evaluate(sim, e, sim->q, sim->v, sim->s, sim->t, sim->mu,
                 EVAL_LAGRANGIAN | EVAL_CONSTRAINTS | (sim->ns > 0 ? EVAL_GRADIENT : 0));
    // one pass over q, v, p for E = ⟨p, v⟩ − L and the sums the finiteness check and the
    // run's quality read (node_sums)
    const double *q = sim->q, *v = sim->v, *p = sim->p;
    node_sums sums = { 0.0, 0.0, 0.0, 0.0 };
    if (sim->n >= NODE_LANES_FROM) {
        sums = node_pass_lanes(q, v, p, sim->n, e->lagrangian, &sim->energy);
    } else {   // in order: E = −L + p_1 v_1 + …
        double energy = -e->lagrangian;
        for (int i = 0; i < sim->n; i++) {
            energy += p[i] * v[i];
            sums.pv += p[i] * v[i];
            sums.q_max = sticky_max(sums.q_max, fabs(q[i]));
            sums.v_max = sticky_max(sums.v_max, fabs(v[i]));
        }
        sim->energy = energy;
    }
    // a non-finite p_i or v_i makes its term p_i v_i, and so ⟨p, v⟩, NaN or ±∞ (∞·0 is NaN),
    // and a non-finite q_i makes q_max so; 0·x is NaN exactly for those (an overflowing
    // ⟨p, v⟩ of finite values only sends sim_check_finite to its full scan)
    sums.nonfinite_probe = 0.0 * sums.pv + 0.0 * sums.q_max;
    sim->node_sums = sums;
    for (int j = 0; j < sim->ns; j++)
        sim->temperature[j] = -e->gradient[m->first_s + j];
    double position = 0.0, velocity = 0.0;
    double *g = sim->node_velocity_constraint;
    sim_velocity_constraint(sim, e, sim->v, g);
    for (int a = 0; a < sim->mc; a++) {
        if (m->constraints[a].kind == DIRAC_CONSTRAINT_HOLONOMIC && fabs(e->values[a]) > position)
            position = fabs(e->values[a]);
        if (!(fabs(g[a]) <= velocity))
            velocity = fabs(g[a]);
    }
    sim->constraint_residual = position;
    sim->velocity_residual = velocity;
    derive(sim, e);
}

void sim_node_refresh(dirac_sim *sim)
{
    sim_eval *e = &sim->eval[SIM_EVAL_NODE];
    sim_evaluate(sim, e, sim->q, sim->v, sim->s, sim->t, sim->mu, EVAL_CONSTRAINTS);
    derive(sim, e);
}

// Whether the node is finite; if not, the first value that is not (what, index).
static int state_finite(const dirac_sim *sim, const char **what, int *index)
{
    // the node's pass found q, v, p finite (node_sums): only μ, S and E are left; else the
    // full scan names the first value that is not
    bool probed = isfinite(sim->node_sums.nonfinite_probe);
    for (int a = 0; probed && a < sim->mc; a++)
        probed = isfinite(sim->mu[a]);
    for (int j = 0; probed && j < sim->ns; j++)
        probed = isfinite(sim->s[j]);
    if (probed && isfinite(sim->energy))
        return 1;
    const double *arrays[] = { sim->q, sim->v, sim->p, sim->mu, sim->s };
    const int counts[] = { sim->n, sim->n, sim->n, sim->mc, sim->ns };
    static const char *const names[] = { "coordinate", "velocity", "momentum", "multiplier",
                                         "entropy" };
    for (int k = 0; k < 5; k++)
        for (int i = 0; i < counts[k]; i++)
            if (!isfinite(arrays[k][i])) {
                *what = names[k];
                *index = i;
                return 0;
            }
    *what = "energy";
    *index = 0;
    return isfinite(sim->energy);
}

dirac_status sim_check_finite(dirac_sim *sim, double t_before, double t_after)
{
    const char *what = NULL;
    int index = 0;
    if (state_finite(sim, &what, &index))
        return DIRAC_OK;
    const dirac_model *m = sim->model;
    const char *name = !strcmp(what, "multiplier") ? m->constraints[index].name
                       : !strcmp(what, "entropy")  ? m->entropy_names[index]
                       : !strcmp(what, "energy")   ? "E"
                                                   : m->coord_names[index];
    snprintf(sim->errmsg, sizeof sim->errmsg,
             "step %ld from t = %.17g to %.17g (%s): the state became non-finite (%s of %s); "
             "the state stays at the last good step (t = %.17g)",
             sim->steps + 1, t_before, t_after, sim->method->info.name, what, name, t_before);
    return DIRAC_ERR_NOT_FINITE;
}

void dirac_sim_interaction_force(const dirac_sim *sim, int k, double *force, double *power)
{
    if (!sim || !force || !power) {   // fill what can be filled
        if (power)
            *power = NAN;
        return;
    }
    const dirac_model *m = sim->model;
    int n = sim->n;
    memset(force, 0, (size_t)n * sizeof *force);
    *power = 0.0;
    if (k < 0 || k >= m->interaction_count)
        return;
    const sim_eval *e = &sim->eval[SIM_EVAL_NODE];
    int index = m->interaction_index[k];
    if (m->interaction_kind[k] == 0) {
        // F = μ_a ω^a
        const model_sparse *f = &m->constraint_forms;
        for (int j = f->row_start[index]; j < f->row_start[index + 1]; j++)
            force[f->col[j]] += sim->mu[index] * e->forms[j];
    } else {
        // F = B(v, ·): F_b += c v_a, F_a −= c v_b for the wedges of two-form `index`
        const double *c = sim->wedge_values;
        for (int w = 0; w < m->wedge_count; w++) {
            if (m->wedges[w].twoform != index)
                continue;
            int a = m->wedges[w].a, b = m->wedges[w].b;
            force[b] += c[w] * sim->v[a];
            force[a] -= c[w] * sim->v[b];
        }
    }
    for (int i = 0; i < n; i++)
        *power += force[i] * sim->v[i];
}

void dirac_sim_outputs(const dirac_sim *sim, double *values)
{
    if (!sim || !values)
        return;
    memcpy(values, sim->outputs, (size_t)sim->model->output_count * sizeof *values);
}
