/// @file run.h
/// Runs: a simulation advanced to a final time in chunks of steps, writing the trajectory as
/// rows of numbers into caller-owned buffers and gathering the statistics of a run summary.
/// This is how the `dirac simulate` tool writes its CSV file and JSON summary, and how the
/// Python package fills its arrays; the columns are those of the CSV (docs/cli.md).
///
/// Columns, in order: t; each coordinate NAME; each velocity NAME'; each momentum p.NAME; each
/// multiplier mu.CONSTRAINT; each entropy S.NAME; each temperature T.NAME; the energy E; per
/// interaction NAME its force on each coordinate it acts on, F.NAME.COORD, then its power
/// P.NAME; each output expression.
///
/// Rows: the initial node (dirac_run_row before the first step), then every `every`-th step of
/// the simulation (counted from its start, dirac_sim_step_count: a simulation continued from a
/// restored state, dirac_sim_state_restore, writes the rows of the run in one piece), the last
/// planned step, and (dirac_run_finish) the last good step of a run that stopped early.
/// Steps: fixed step size: steps = ceil(t_end/dt − 1e-9 − 1e-12 t_end/dt), all of size dt (the
/// last one may pass t_end); adaptive step size: steps until t0 + t_end, the last one shortened
/// to land on it. dirac_run_advance allocates nothing.
#ifndef DIRAC_RUN_H
#define DIRAC_RUN_H

#include <dirac/model.h>
#include <dirac/simulate.h>
#include <dirac/status.h>

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/// Number of columns of the model's trajectory table.
int dirac_model_column_count(const dirac_model *model);

/// Writes the name of column k ("t", "x", "x'", "p.x", "mu.rod", "F.touch.a.x", ...) into buf
/// (at most size bytes with the terminating zero, truncated if longer; buf may be NULL when size
/// is 0). Returns the full length of the name without the zero, or -1 if k is out of range.
int dirac_model_column_name(const dirac_model *model, int k, char *buf, size_t size);

/// Statistics over every node of a run (the initial one and each accepted step), not only the
/// written rows; the quantities of the CLI's JSON summary (docs/cli.md).
typedef struct dirac_run_stats {
    long steps;                       ///< steps completed
    long steps_planned;               ///< fixed step size: steps the run takes; adaptive: as
                                      ///< for a fixed step dt (an estimate)
    long rows;                        ///< rows written (dirac_run_row calls excluded)
    long newton_iterations_sum;       ///< over all steps
    int newton_iterations_max;        ///< most in a step
    int newton_failures;              ///< steps whose Newton iteration failed (0 or 1)
    double step_size_min, step_size_max;   ///< accepted step sizes (NaN before the first step)
    double constraint_residual_max;   ///< max |φ(q, t)| over nodes and holonomic constraints
    double velocity_constraint_residual_max;   ///< max |⟨ω, v⟩ + b| over nodes and constraints
    double energy_initial;            ///< E at the initial node
    double work_initial;              ///< dirac_sim_work at the initial node
    double energy_error_max;          ///< max over nodes of |E − E0 − (work − work0)|
    double entropy_initial;           ///< Σ S at the initial node (0 without entropy variables)
    double entropy_step_min;          ///< min over steps of the change of Σ S (NaN: no step)
    double interaction_power_max;     ///< max over nodes of |Σ_k P_k| (0 without interactions)
    double projection_distance;       ///< dirac_sim_projection_distance
    dirac_status status;              ///< DIRAC_OK, or the status of the step that failed
} dirac_run_stats;

/// A run of a simulation; it refers to the simulation, which must outlive it.
typedef struct dirac_run dirac_run;

/// Plans a run of `sim` from its current node over a time span t_end >= 0, writing every
/// `every`-th step (every >= 1). Fails with DIRAC_ERR_ARGUMENT for a bad t_end or every, or more
/// than 1e12 planned steps (message in err).
dirac_status dirac_run_create(dirac_sim *sim, double t_end, long every, dirac_run **out,
                              dirac_error *err);

/// Adaptive runs: ends the run at the absolute time t_final (>= the current time) instead of
/// the current time plus t_end, whose sum rounds: a run continued from a restored state then
/// lands on the same final time as the run in one piece. DIRAC_ERR_ARGUMENT for a fixed-step
/// run or a t_final that is not finite or lies before the current time.
dirac_status dirac_run_set_final_time(dirac_run *run, double t_final);

/// Releases the run (not the simulation); NULL is a no-op.
void dirac_run_destroy(dirac_run *run);

/// Writes the current node's row (dirac_model_column_count values).
void dirac_run_row(dirac_run *run, double *row);

/// Takes at most max_steps steps, stopping early when the run is complete, when `capacity`
/// rows have been written into `rows` (row after row, column_count values each), or when a step
/// fails. *written receives the number of rows written. Returns DIRAC_OK, or the status of the
/// failed step (its message in dirac_sim_errmsg; the simulation is at the last good step).
dirac_status dirac_run_advance(dirac_run *run, long max_steps, double *rows, long capacity,
                               long *written);

/// 1 when every planned step has been taken (or a step failed), 0 otherwise.
int dirac_run_finished(const dirac_run *run);

/// Ends a run that stopped early (a failed step, or the caller stopped calling
/// dirac_run_advance): writes the last good step's row into `row` and returns 1 if it has not
/// been written yet, else returns 0.
int dirac_run_finish(dirac_run *run, double *row);

/// The statistics so far (valid while the run lives).
const dirac_run_stats *dirac_run_statistics(const dirac_run *run);

#ifdef __cplusplus
}
#endif

#endif
