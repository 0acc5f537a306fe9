// The quality of a run against the model's own scales, so that a run which exits 0 either is
// right to its method's accuracy or says why it may not be (docs/cli.md, "Warnings"):
//
//   energy balance   max_t |E − E0 − W| / E_scale,  E_scale = max(|E0|, max_t |⟨p, v⟩|, Σ|ΔW|)
//                    (the initial energy, the largest energy in motion — twice the kinetic
//                    energy for quadratic ones — and the work/heat budget exchanged)
//   position level   max_t (|φ_a| / |∇φ_a|) / ℓ_a: |φ|/|∇φ| is the Newton (first-order)
//                    distance of q to the set φ_a = 0, ℓ_a the largest |q_i| of the
//                    constraint's coordinates over the run
//   velocity level   max_t (|⟨ω_a, v⟩ + b_a| / |ω_a|) / ν_a, ν_a the largest |v_i| of its
//                    coordinates (or |b_a|/|ω_a|, the constraint's own driving speed)
//   second law       the largest drop of the entropy produced, Π = Σ (ΔS − h P/T) over the
//                    steps (P the heat input and T at the step's midpoint, where the methods
//                    take them), below its running maximum, relative to the total range of
//                    the entropy variables over the run
//
// Every scale is a maximum over the run, so the ratios stay O(1) or more when a run explodes
// (the error grows with the scale) and are far below the thresholds on resolved runs.
#include "run_quality.h"

#include "error.h"
#include "sim.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

// Scales below this fraction of the model's largest coordinate (velocity) are rounding: a
// constraint whose coordinates all stay near zero is judged against the model's size.
#define SCALE_FLOOR 1e-6

static double max_or_nan(double a, double b)
{
    return b > a || isnan(b) ? b : a;
}

// Σ_j P_j / T_j (heat inputs over temperatures T = −∂L/∂S) at the midpoint of the step from
// the last node (rq->previous: q, v, S) to the current one, where the thermodynamic methods
// take them (to O(h²) per step: the discrete-gradient temperature differs from T(S̄) by that).
static double heat_rate_midpoint(dirac_sim *sim)
{
    run_quality *rq = &sim->quality;
    const dirac_model *m = sim->model;
    int n = sim->n, ns = sim->ns;
    double *mid = rq->midpoint, *previous = rq->previous;
    for (int i = 0; i < n; i++) {
        mid[i] = 0.5 * (previous[i] + sim->q[i]);
        mid[n + i] = 0.5 * (previous[n + i] + sim->v[i]);
    }
    for (int j = 0; j < ns; j++)
        mid[2 * n + j] = 0.5 * (previous[2 * n + j] + sim->s[j]);
    sim_eval *e = &sim->eval[SIM_EVAL_STEP_A];   // after the step: the step's slots are free
    sim_evaluate(sim, e, mid, mid + n, mid + 2 * n, 0.5 * (rq->t_previous + sim->t), NULL,
                 EVAL_GRADIENT);
    model_group_eval(&m->thermal, e->x, sim->tape_work, sim->thermal_values);
    const double *heat_in = sim->thermal_values + m->friction_count + m->heat_count;
    double rate = 0.0;
    for (int j = 0; j < ns; j++)
        rate += heat_in[j] / -e->gradient[m->first_s + j];
    return rate;
}

// Keeps the node as the previous one of the next step (models with heat input).
static void remember_node(dirac_sim *sim)
{
    int n = sim->n;
    double *previous = sim->quality.previous;
    memcpy(previous, sim->q, (size_t)n * sizeof *previous);
    memcpy(previous + n, sim->v, (size_t)n * sizeof *previous);
    memcpy(previous + 2 * n, sim->s, (size_t)sim->ns * sizeof *previous);
}

static double total_entropy(const dirac_sim *sim)
{
    double total = 0.0;
    for (int j = 0; j < sim->ns; j++)
        total += sim->s[j];
    return total;
}

// Updates the maxima from the node in sim (q, v, p, s, t, energy, work); `first` for the
// initial node.
static void observe_node(dirac_sim *sim, int first)
{
    run_quality *rq = &sim->quality;
    const dirac_model *m = sim->model;
    double error = fabs(sim->energy - rq->energy0 - (sim->work - rq->work0));
    if (first || error > rq->energy_error_max || isnan(error)) {
        if (!isnan(rq->energy_error_max))
            rq->energy_error_time = sim->t;
        rq->energy_error_max = max_or_nan(rq->energy_error_max, error);
    }
    // ⟨p, v⟩ and the largest |q_i|, |v_i| from the node's pass (sim_node.c)
    const node_sums *sums = &sim->node_sums;
    rq->length_model = max_or_nan(rq->length_model, sums->q_max);
    rq->speed_model = max_or_nan(rq->speed_model, sums->v_max);
    rq->pv_max = max_or_nan(rq->pv_max, fabs(sums->pv));
    rq->work_variation += fabs(sim->work - rq->work_previous);
    rq->work_previous = sim->work;

    // the node slot holds the constraints at this node, and sim->node_velocity_constraint
    // their velocity level ⟨ω, v⟩ + b (sim_update_diagnostics evaluated them when the node was
    // accepted)
    const sim_eval *e = &sim->eval[SIM_EVAL_NODE];
    const model_sparse *f = &m->constraint_forms;
    for (int a = 0; a < sim->mc; a++) {
        double norm2 = 0.0, g = sim->node_velocity_constraint[a], length = 0.0, speed = 0.0;
        for (int k = f->row_start[a]; k < f->row_start[a + 1]; k++) {
            int i = f->col[k];
            norm2 += e->forms[k] * e->forms[k];
            length = max_or_nan(length, fabs(sim->q[i]));
            speed = max_or_nan(speed, fabs(sim->v[i]));
        }
        double norm = sqrt(norm2), inverse = norm > 0.0 ? 1.0 / norm : 1.0;
        rq->length[a] = max_or_nan(rq->length[a], length);
        rq->speed[a] = max_or_nan(rq->speed[a], max_or_nan(speed, fabs(e->rates[a]) * inverse));
        if (m->constraints[a].kind == DIRAC_CONSTRAINT_HOLONOMIC) {
            double d = fabs(e->values[a]) * inverse;
            if (d > rq->distance[a] || isnan(d)) {
                rq->distance[a] = d;
                rq->distance_time[a] = sim->t;
            }
        }
        double dv = fabs(g) * inverse;
        if (dv > rq->velocity_distance[a] || isnan(dv)) {
            rq->velocity_distance[a] = dv;
            rq->velocity_distance_time[a] = sim->t;
        }
    }
    if (sim->ns > 0) {
        double total = total_entropy(sim);
        if (!first) {
            // Π += ΔS − h P/T (at the step's midpoint)
            double heat = rq->has_heat_input
                              ? (sim->t - rq->t_previous) * heat_rate_midpoint(sim) : 0.0;
            rq->entropy_produced += (total - rq->entropy_previous) - heat;
            if (rq->entropy_produced > rq->entropy_produced_max)
                rq->entropy_produced_max = rq->entropy_produced;
            double drop = rq->entropy_produced_max - rq->entropy_produced;
            if (drop > rq->entropy_drop || isnan(drop)) {
                rq->entropy_drop = drop;
                rq->entropy_drop_time = sim->t;
            }
        }
        if (rq->has_heat_input)
            remember_node(sim);
        rq->entropy_previous = total;
        for (int j = 0; j < sim->ns; j++) {
            if (first || sim->s[j] < rq->entropy_min[j])
                rq->entropy_min[j] = sim->s[j];
            if (first || sim->s[j] > rq->entropy_max[j])
                rq->entropy_max[j] = sim->s[j];
        }
    }
    rq->t_previous = sim->t;
}

// "NaN", "inf" or "-inf" (printf's "%g" gives "-nan" for some NaNs)
static const char *nonfinite_name(double x)
{
    return isnan(x) ? "NaN" : x > 0.0 ? "inf" : "-inf";
}

// Index of the first non-finite output at the node (read where the node put them), or −1.
static int first_nonfinite_output(const dirac_sim *sim)
{
    for (int k = 0; k < sim->model->output_count; k++)
        if (!isfinite(sim->outputs[k]))
            return k;
    return -1;
}

// Why an output may be non-finite beyond its own expression: the node's accelerations.
static const char *output_reason(const dirac_sim *sim)
{
    return sim->kkt.node_status != DIRAC_OK
               ? " (the accelerations x'' that outputs use are undefined there: d2L/dv2 is "
                 "singular on the constraints, as for a coordinate without inertia)"
               : "";
}

dirac_status run_quality_start(dirac_sim *sim, dirac_error *err)
{
    run_quality *rq = &sim->quality;
    const dirac_model *m = sim->model;
    size_t mc = (size_t)sim->mc + 1, ns = (size_t)sim->ns + 1;
    double **per_constraint[] = { &rq->distance, &rq->distance_time, &rq->length,
                                  &rq->velocity_distance, &rq->velocity_distance_time,
                                  &rq->speed };
    for (size_t k = 0; k < sizeof per_constraint / sizeof per_constraint[0]; k++)
        if (!(*per_constraint[k] = calloc(mc, sizeof(double))))
            return error_set(err, DIRAC_ERR_NOMEM, "out of memory");
    rq->entropy_min = calloc(ns, sizeof(double));
    rq->entropy_max = calloc(ns, sizeof(double));
    if (!rq->entropy_min || !rq->entropy_max)
        return error_set(err, DIRAC_ERR_NOMEM, "out of memory");
    for (int j = 0; j < m->ns; j++)
        if (!expr_is_const(m->pool, m->heat_input[j], 0.0))
            rq->has_heat_input = 1;
    if (rq->has_heat_input) {
        size_t size = 2 * (size_t)sim->n + ns;
        rq->previous = calloc(size, sizeof(double));
        rq->midpoint = calloc(size, sizeof(double));
        if (!rq->previous || !rq->midpoint)
            return error_set(err, DIRAC_ERR_NOMEM, "out of memory");
    }
    rq->energy0 = sim->energy;
    rq->work0 = rq->work_previous = sim->work;
    if (sim->kkt.node_status == DIRAC_ERR_NOMEM)   // the accelerations' solver (sim_node.c)
        return error_set(err, DIRAC_ERR_NOMEM, "out of memory creating the simulation");
    int k = first_nonfinite_output(sim);
    if (k >= 0)
        return error_set(err, DIRAC_ERR_NOT_FINITE,
                         "output '%s' is %s at the initial state (t = %.17g)%s",
                         m->output_names[k], nonfinite_name(sim->outputs[k]), sim->t,
                         output_reason(sim));
    observe_node(sim, 1);
    return DIRAC_OK;
}

void run_quality_free(run_quality *rq)
{
    double *arrays[] = { rq->distance, rq->distance_time, rq->length, rq->velocity_distance,
                         rq->velocity_distance_time, rq->speed, rq->entropy_min,
                         rq->entropy_max, rq->previous, rq->midpoint };
    for (size_t k = 0; k < sizeof arrays / sizeof arrays[0]; k++)
        free(arrays[k]);
}

dirac_status run_quality_check_outputs(dirac_sim *sim)
{
    int k = first_nonfinite_output(sim);
    if (k < 0)
        return DIRAC_OK;
    snprintf(sim->errmsg, sizeof sim->errmsg,
             "step %ld at t = %.17g (%s): output '%s' became %s%s; the state stays at the "
             "last good step",
             sim->steps + 1, sim->t, sim->method->info.name, sim->model->output_names[k],
             nonfinite_name(sim->outputs[k]), output_reason(sim));
    return DIRAC_ERR_NOT_FINITE;
}

void run_quality_observe(dirac_sim *sim)
{
    observe_node(sim, 0);
}

// err / scale, with 0/0 = 0 and x/0 = ∞ for x > 0 (NaN stays NaN)
static double relative(double err, double scale)
{
    if (isnan(err) || isnan(scale))
        return (double)NAN;
    if (scale > 0.0)
        return err / scale;
    return err > 0.0 ? (double)INFINITY : 0.0;
}

static double energy_scale(const run_quality *rq)
{
    return max_or_nan(max_or_nan(fabs(rq->energy0), rq->pv_max), rq->work_variation);
}

static double entropy_scale(const dirac_sim *sim)
{
    const run_quality *rq = &sim->quality;
    double range = 0.0, size = 0.0;
    for (int j = 0; j < sim->ns; j++) {
        range += rq->entropy_max[j] - rq->entropy_min[j];
        size = max_or_nan(size, max_or_nan(fabs(rq->entropy_min[j]), fabs(rq->entropy_max[j])));
    }
    // the range, but not below rounding of the entropies themselves
    return max_or_nan(range, 1e-9 * size);
}

// Length (velocity: speed) scale of constraint a.
static double constraint_scale(const dirac_sim *sim, int a, int velocity)
{
    const run_quality *rq = &sim->quality;
    if (velocity)
        return max_or_nan(rq->speed[a], SCALE_FLOOR * rq->speed_model);
    return max_or_nan(rq->length[a], SCALE_FLOOR * rq->length_model);
}

// Relative position (velocity: `velocity`) error of constraint a.
static double constraint_ratio(const dirac_sim *sim, int a, int velocity)
{
    const run_quality *rq = &sim->quality;
    return relative(velocity ? rq->velocity_distance[a] : rq->distance[a],
                    constraint_scale(sim, a, velocity));
}

void dirac_sim_quality_get(const dirac_sim *sim, dirac_sim_quality *out)
{
    if (!sim || !out)   // nothing to measure, or nowhere to write it
        return;
    const run_quality *rq = &sim->quality;
    memset(out, 0, sizeof *out);
    out->energy_error = relative(rq->energy_error_max, energy_scale(rq));
    out->energy_error_time = rq->energy_error_time;
    out->constraint_error_index = out->velocity_constraint_error_index = -1;
    for (int a = 0; a < sim->mc; a++) {
        double r = constraint_ratio(sim, a, 0), rv = constraint_ratio(sim, a, 1);
        if (sim->model->constraints[a].kind == DIRAC_CONSTRAINT_HOLONOMIC &&
            (r > out->constraint_error || isnan(r)) && !isnan(out->constraint_error)) {
            out->constraint_error = r;
            out->constraint_error_time = rq->distance_time[a];
            out->constraint_error_index = a;
        }
        if ((rv > out->velocity_constraint_error || isnan(rv)) &&
            !isnan(out->velocity_constraint_error)) {
            out->velocity_constraint_error = rv;
            out->velocity_constraint_error_time = rq->velocity_distance_time[a];
            out->velocity_constraint_error_index = a;
        }
    }
    if (sim->ns > 0) {
        out->entropy_decrease = relative(rq->entropy_drop, entropy_scale(sim));
        out->entropy_decrease_time = rq->entropy_drop_time;
    }
}

// A ratio beyond its threshold (NaN counts: a quantity that is not a number is no result).
static int beyond(double ratio, double threshold)
{
    return !(ratio <= threshold);
}

int dirac_sim_warning_count(const dirac_sim *sim)
{
    if (!sim)
        return -1;
    dirac_sim *mutable_sim = (dirac_sim *)sim;   // the messages only; the state is unchanged
    run_quality *rq = &mutable_sim->quality;
    const dirac_model *m = sim->model;
    dirac_sim_quality q;
    dirac_sim_quality_get(sim, &q);
    int count = 0;
    const size_t size = sizeof rq->messages[0];
    if (beyond(q.energy_error, DIRAC_WARN_ENERGY))
        snprintf(rq->messages[count++], size,
                 "energy balance error |E - E0 - W| = %.3g at t = %.10g is %.3g of the model's "
                 "energy scale %.3g (threshold %g): the steps do not resolve the dynamics; try a "
                 "smaller step (options.dt) or another method",
                 rq->energy_error_max, q.energy_error_time, q.energy_error, energy_scale(rq),
                 DIRAC_WARN_ENERGY);
    if (q.constraint_error_index >= 0 && beyond(q.constraint_error, DIRAC_WARN_CONSTRAINT)) {
        int a = q.constraint_error_index;
        snprintf(rq->messages[count++], size,
                 "constraint '%s' is violated: the state is %.3g away from it (|phi|/|grad phi|) "
                 "at t = %.10g, %.3g of the constraint's length scale %.3g (threshold %g)",
                 m->constraints[a].name, rq->distance[a], q.constraint_error_time,
                 q.constraint_error, constraint_scale(sim, a, 0), DIRAC_WARN_CONSTRAINT);
    }
    if (q.velocity_constraint_error_index >= 0 &&
        beyond(q.velocity_constraint_error, DIRAC_WARN_VELOCITY_CONSTRAINT)) {
        int a = q.velocity_constraint_error_index;
        snprintf(rq->messages[count++], size,
                 "constraint '%s' is violated at velocity level: |<omega, v> + b|/|omega| = %.3g "
                 "at t = %.10g is %.3g of the constraint's speed scale %.3g (threshold %g)",
                 m->constraints[a].name, rq->velocity_distance[a],
                 q.velocity_constraint_error_time, q.velocity_constraint_error,
                 constraint_scale(sim, a, 1),
                 DIRAC_WARN_VELOCITY_CONSTRAINT);
    }
    if (sim->ns > 0 && beyond(q.entropy_decrease, DIRAC_WARN_ENTROPY))
        snprintf(rq->messages[count++], size,
                 "second law violated: the entropy produced decreased by %.3g by t = %.10g, "
                 "%.3g of the entropy variables' range %.3g (threshold %g)",
                 rq->entropy_drop, q.entropy_decrease_time, q.entropy_decrease,
                 entropy_scale(sim), DIRAC_WARN_ENTROPY);
    rq->message_count = count;
    return count;
}

const char *dirac_sim_warning(const dirac_sim *sim, int i)
{
    return sim && i >= 0 && i < sim->quality.message_count ? sim->quality.messages[i] : NULL;
}
