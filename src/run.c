// Runs of a simulation to a final time: trajectory rows in caller buffers and the statistics
// of a run summary (include/dirac/run.h).
#include <dirac/run.h>

#include "error.h"
#include "sim.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct dirac_run {
    dirac_sim *sim;
    const dirac_model *model;
    long every;
    int adaptive;
    double t_final;            // adaptive runs end here
    long last_written;         // step of the last row written (0: the initial node)
    int finished;
    double entropy_previous;   // Σ S at the previous node
    double *force;             // scratch: one interaction's force on every coordinate
    dirac_run_stats stats;
};

// ---- columns ------------------------------------------------------------------------------

int dirac_model_column_count(const dirac_model *m)
{
    int n = dirac_model_coordinate_count(m), count = 1 + 3 * n;
    count += dirac_model_constraint_count(m) + 2 * dirac_model_entropy_count(m) + 1;
    for (int k = 0; k < dirac_model_interaction_count(m); k++) {
        int coords = 0;
        dirac_model_interaction_coordinates(m, k, &coords);
        count += coords + 1;
    }
    return count + dirac_model_output_count(m);
}

// Writes PREFIX NAME SUFFIX like snprintf; returns the full length.
static int join(char *buf, size_t size, const char *prefix, const char *name, const char *suffix)
{
    int len = snprintf(buf, size, "%s%s%s", prefix, name, suffix);
    return len < 0 ? -1 : len;
}

int dirac_model_column_name(const dirac_model *m, int k, char *buf, size_t size)
{
    if (size > 0 && buf)
        buf[0] = '\0';
    else
        buf = NULL, size = 0;
    int n = dirac_model_coordinate_count(m), mc = dirac_model_constraint_count(m);
    int ns = dirac_model_entropy_count(m);
    if (k < 0)
        return -1;
    if (k == 0)
        return join(buf, size, "", "t", "");
    k -= 1;
    if (k < 3 * n) {
        const char *name = dirac_model_coordinate_name(m, k % n);
        return k < n ? join(buf, size, "", name, "")
             : k < 2 * n ? join(buf, size, "", name, "'")
                         : join(buf, size, "p.", name, "");
    }
    k -= 3 * n;
    if (k < mc)
        return join(buf, size, "mu.", dirac_model_constraint_name(m, k), "");
    k -= mc;
    if (k < 2 * ns)
        return join(buf, size, k < ns ? "S." : "T.", dirac_model_entropy_name(m, k % ns), "");
    k -= 2 * ns;
    if (k == 0)
        return join(buf, size, "", "E", "");
    k -= 1;
    for (int i = 0; i < dirac_model_interaction_count(m); i++) {
        const char *name = dirac_model_interaction_name(m, i);
        int count = 0;
        const int *coords = dirac_model_interaction_coordinates(m, i, &count);
        if (k < count) {
            int len = snprintf(buf, size, "F.%s.%s", name,
                               dirac_model_coordinate_name(m, coords[k]));
            return len < 0 ? -1 : len;
        }
        if (k == count)
            return join(buf, size, "P.", name, "");
        k -= count + 1;
    }
    if (k < dirac_model_output_count(m))
        return join(buf, size, "", dirac_model_output_name(m, k), "");
    return -1;
}

// ---- runs ---------------------------------------------------------------------------------

static double total_entropy(const dirac_run *run)
{
    const double *s = dirac_sim_s(run->sim);
    double total = 0;
    for (int i = 0; i < dirac_model_entropy_count(run->model); i++)
        total += s[i];
    return total;
}

// max that lets a NaN through (a non-finite residual must show in the summary)
static double max_nan(double a, double b)
{
    return b > a || isnan(b) ? b : a;
}

// Residuals, energy balance, entropy change and interaction power at the current node.
static void observe(dirac_run *run)
{
    dirac_run_stats *st = &run->stats;
    const dirac_sim *sim = run->sim;
    st->constraint_residual_max =
        max_nan(st->constraint_residual_max, dirac_sim_constraint_residual(sim));
    st->velocity_constraint_residual_max =
        max_nan(st->velocity_constraint_residual_max, dirac_sim_velocity_constraint_residual(sim));
    double balance = dirac_sim_energy(sim) - st->energy_initial -
                     (dirac_sim_work(sim) - st->work_initial);
    st->energy_error_max = max_nan(st->energy_error_max, fabs(balance));
    if (dirac_model_entropy_count(run->model) > 0 && st->steps > 0) {
        double s = total_entropy(run), ds = s - run->entropy_previous;
        if (st->steps == 1 || ds < st->entropy_step_min || isnan(ds))
            st->entropy_step_min = ds;
        run->entropy_previous = s;
    }
    int ni = dirac_model_interaction_count(run->model);
    if (ni > 0) {
        double total = 0;
        for (int k = 0; k < ni; k++) {
            double power = 0;
            dirac_sim_interaction_force(sim, k, run->force, &power);
            total += power;
        }
        st->interaction_power_max = max_nan(st->interaction_power_max, fabs(total));
    }
}

dirac_status dirac_run_create(dirac_sim *sim, double t_end, long every, dirac_run **out,
                              dirac_error *err)
{
    if (!out)
        return error_set(err, DIRAC_ERR_ARGUMENT, "out must not be NULL");
    *out = NULL;
    if (!sim)
        return error_set(err, DIRAC_ERR_ARGUMENT, "sim must not be NULL");
    if (!(t_end >= 0) || !isfinite(t_end))
        return error_set(err, DIRAC_ERR_ARGUMENT,
                          "the final time must be a finite number >= 0, got %g", t_end);
    if (every < 1)
        return error_set(err, DIRAC_ERR_ARGUMENT, "every must be a positive integer, got %ld",
                          every);
    double dt = dirac_sim_next_step_size(sim);
    double steps = t_end / dt;
    if (steps > 1e12)
        return error_set(err, DIRAC_ERR_ARGUMENT,
                          "t_end/dt = %.3g steps is too many (at most 1e12)", steps);
    dirac_run *run = calloc(1, sizeof *run);
    int n = dirac_model_coordinate_count(sim->model);
    if (run)
        run->force = malloc((size_t)(n > 0 ? n : 1) * sizeof *run->force);
    if (!run || !run->force) {
        free(run);
        return error_set(err, DIRAC_ERR_NOMEM, "out of memory");
    }
    run->sim = sim;
    run->model = sim->model;
    run->every = every;
    run->adaptive = sim->adapt.on;
    run->t_final = dirac_sim_time(sim) + t_end;
    // ceil(t_end/dt - 1e-9), with a relative allowance for the rounding of the quotient
    double planned = ceil(steps - 1e-9 - 1e-12 * steps);
    dirac_run_stats *st = &run->stats;
    st->steps_planned = planned > 0 ? (long)planned : 0;
    st->step_size_min = st->step_size_max = (double)NAN;
    st->entropy_step_min = (double)NAN;
    st->energy_initial = dirac_sim_energy(sim);
    st->work_initial = dirac_sim_work(sim);
    st->entropy_initial = run->entropy_previous = total_entropy(run);
    st->projection_distance = dirac_sim_projection_distance(sim);
    st->status = DIRAC_OK;
    observe(run);
    run->finished = run->adaptive ? !(dirac_sim_time(sim) < run->t_final - 1e-12 * fabs(run->t_final))
                                  : st->steps_planned == 0;
    *out = run;
    return DIRAC_OK;
}

dirac_status dirac_run_set_final_time(dirac_run *run, double t_final)
{
    if (!run || !run->adaptive || !isfinite(t_final) || t_final < dirac_sim_time(run->sim))
        return DIRAC_ERR_ARGUMENT;
    run->t_final = t_final;
    run->finished = !(dirac_sim_time(run->sim) < t_final - 1e-12 * fabs(t_final));
    return DIRAC_OK;
}

void dirac_run_destroy(dirac_run *run)
{
    if (!run)
        return;
    free(run->force);
    free(run);
}

static void put(double **row, const double *x, int count)
{
    memcpy(*row, x, (size_t)count * sizeof **row);
    *row += count;
}

void dirac_run_row(dirac_run *run, double *row)
{
    const dirac_model *m = run->model;
    const dirac_sim *sim = run->sim;
    int n = dirac_model_coordinate_count(m), mc = dirac_model_constraint_count(m);
    int ns = dirac_model_entropy_count(m);
    *row++ = dirac_sim_time(sim);
    put(&row, dirac_sim_q(sim), n);
    put(&row, dirac_sim_v(sim), n);
    put(&row, dirac_sim_p(sim), n);
    put(&row, dirac_sim_mu(sim), mc);
    put(&row, dirac_sim_s(sim), ns);
    put(&row, dirac_sim_temperature(sim), ns);
    *row++ = dirac_sim_energy(sim);
    for (int k = 0; k < dirac_model_interaction_count(m); k++) {
        double power = 0;
        int count = 0;
        const int *coords = dirac_model_interaction_coordinates(m, k, &count);
        dirac_sim_interaction_force(sim, k, run->force, &power);
        for (int j = 0; j < count; j++)
            *row++ = run->force[coords[j]];
        *row++ = power;
    }
    if (dirac_model_output_count(m) > 0)
        dirac_sim_outputs(sim, row);
}

// One step toward the end of the run, with its statistics; sets run->finished.
static dirac_status take_step(dirac_run *run)
{
    dirac_sim *sim = run->sim;
    dirac_run_stats *st = &run->stats;
    double t = dirac_sim_time(sim);
    if (run->adaptive && dirac_sim_next_step_size(sim) > run->t_final - t)
        dirac_sim_set_next_step_size(sim, run->t_final - t);   // land on t_end
    dirac_status status = dirac_sim_step(sim);
    if (status != DIRAC_OK) {
        st->status = status;
        st->newton_failures += status == DIRAC_ERR_NEWTON;
        run->finished = 1;
        return status;
    }
    long k = ++st->steps;
    int iterations = dirac_sim_newton_iterations(sim);
    st->newton_iterations_sum += iterations;
    if (iterations > st->newton_iterations_max)
        st->newton_iterations_max = iterations;
    observe(run);
    double h = dirac_sim_last_step_size(sim);
    if (k == 1 || h < st->step_size_min)
        st->step_size_min = h;
    if (k == 1 || h > st->step_size_max)
        st->step_size_max = h;
    run->finished = run->adaptive ? !(dirac_sim_time(sim) < run->t_final - 1e-12 * fabs(run->t_final))
                                  : k >= st->steps_planned;
    return DIRAC_OK;
}

dirac_status dirac_run_advance(dirac_run *run, long max_steps, double *rows, long capacity,
                               long *written)
{
    long count = 0;
    dirac_status status = DIRAC_OK;
    int columns = dirac_model_column_count(run->model);
    for (long i = 0; i < max_steps && count < capacity && !run->finished; i++) {
        status = take_step(run);
        if (status != DIRAC_OK)
            break;
        // every-th step of the simulation, counted from its start: a simulation continued
        // from a restored state writes the rows of the run in one piece
        long k = dirac_sim_step_count(run->sim);
        if (k % run->every == 0 || run->finished) {
            dirac_run_row(run, rows + (size_t)count * (size_t)columns);
            count++;
            run->last_written = run->stats.steps;
        }
    }
    run->stats.rows += count;
    if (written)
        *written = count;
    return status;
}

int dirac_run_finished(const dirac_run *run)
{
    return run->finished;
}

int dirac_run_finish(dirac_run *run, double *row)
{
    if (run->last_written == run->stats.steps)
        return 0;
    dirac_run_row(run, row);
    run->last_written = run->stats.steps;
    run->stats.rows++;
    return 1;
}

const dirac_run_stats *dirac_run_statistics(const dirac_run *run)
{
    return &run->stats;
}
