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
    double energy = -e->lagrangian, pv = 0.0, q_max = 0.0, v_max = 0.0;
    for (int i = 0; i < sim->n; i++) {
        energy += p[i] * v[i];
        pv += p[i] * v[i];
        double aq = fabs(q[i]), av = fabs(v[i]);
        q_max = aq > q_max || isnan(aq) ? aq : q_max;   // NaN sticks, as in run_quality.c
        v_max = av > v_max || isnan(av) ? av : v_max;
    }
    sim->energy = energy;
    // a non-finite p_i or v_i makes its term p_i v_i, and so ⟨p, v⟩, NaN or ±∞ (∞·0 is NaN),
    // and a non-finite q_i makes q_max so; 0·x is NaN exactly for those (an overflowing
    // ⟨p, v⟩ of finite values only sends sim_check_finite to its full scan)
    sim->node_sums = (node_sums){ pv, q_max, v_max, 0.0 * pv + 0.0 * q_max };
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
