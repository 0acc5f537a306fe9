// One run of `dirac sweep`: the model loaded with the sweep's -p options and the run's varied
// values (dirac_spec_set_parameter, as `dirac simulate -p` does), compiled, simulated with the
// run API (dirac/run.h) exactly as `dirac simulate` runs it, and summarised as one line of the
// RESULTS CSV (docs/sweeps.md). Any number may run at once in separate threads or processes:
// the one thing they share is the library's list of loaded generated code, under its lock
// (dirac.h).
//
// A worker (a thread or a rank computing runs one after another) keeps the spec of its last
// run: the model file is read and parsed once, and each run sets its values on it and compiles
// it again (a spec takes new parameter values after a compilation unless its families were
// expanded; the worker then loads the file for every run, as it does after any failure). It
// also keeps its last compiled model until the next one is compiled: the library shares a
// loaded object of generated code among the models whose generated source is the same, and a
// parameter that leaves the model's structure alone leaves its source alone (the constants
// live in a table outside it), so the next run takes the loaded code without the compiler's
// cache, the file system or dlopen. A parameter that changes the structure (a family's size,
// a factor 0 or 1 that simplifies a term away) gives another source, which is loaded (or
// compiled) as usual.
#ifndef DIRAC_CLI_SWEEP_RUN_H
#define DIRAC_CLI_SWEEP_RUN_H

#include "sweep_hdf5.h"
#include "sweep_plan.h"

#include <dirac/model.h>

#include <stdatomic.h>

#define SWEEP_MAX_OVERRIDES 256

// The `dirac simulate` options a sweep passes to every run; the has_ flags say which were given.
typedef struct sweep_options {
    const char *path;
    const char *overrides[SWEEP_MAX_OVERRIDES];
    int override_count;
    const char *method;
    double dt, t_end, tol;
    long every, max_iter;
    int has_dt, has_t_end, has_every, has_tol, has_max_iter;
    int project_initial;
    int strict;             // a run with quality warnings is "failed"
    double rtol, atol;      // adaptive step size when either is > 0
    long max_steps;         // 0: none for fixed steps, 1e6 for adaptive ones (as simulate)
    const char *trajectories;   // directory for one CSV per run, an HDF5 file, or NULL
} sweep_options;

// Everything a run needs; read-only while runs execute.
typedef struct sweep_job {
    sweep_options opt;
    sweep_plan plan;
    int columns;            // of the trajectory table of the base model
    char **column_names;
    int has_entropy;
    int trajectory_digits;  // width of the run number in trajectory file names
    atomic_int *stop;       // set (e.g. by SIGINT): runs end early as "interrupted"
    sweep_h5_trajectories *trajectory_file;   // open when opt.trajectories is an HDF5 file
} sweep_job;

// Status of a run, the RESULTS column `status`.
typedef enum sweep_status {
    SWEEP_OK,
    SWEEP_FAILED,        // the simulation failed (a step, or the initial state)
    SWEEP_INVALID,       // the model or the settings are invalid with these values
    SWEEP_INTERRUPTED,   // stopped before the end (SIGINT)
    SWEEP_LOST,          // MPI: the rank running it was lost and it could not be rerun
} sweep_status;

const char *sweep_status_name(sweep_status status);

/// Compiles the base model (the file with the -p options, no varied value) for the column
/// names, and checks that every varied name is a parameter. Prints the reason on failure and
/// returns the exit status (2), else 0.
int sweep_job_prepare(sweep_job *job);

void sweep_job_free(sweep_job *job);

/// The RESULTS columns: fills names[] and kinds[] (either may be NULL) and returns their
/// count. The names point into the job or are constant.
int sweep_result_columns(const sweep_job *job, const char **names, sweep_column_kind *kinds);

/// The RESULTS header line (with '\n'), malloc'd; NULL when out of memory.
char *sweep_header_line(const sweep_job *job);

/// What a worker keeps from one run to the next (see above); start it zeroed.
typedef struct sweep_worker {
    dirac_model *last;   // the model of its last run (NULL: none)
    dirac_spec *spec;    // the spec of its last run, to take the next run's values (NULL: none)
    int reload;          // a spec took no new values: load the file for every run
} sweep_worker;

/// Releases what the worker keeps.
void sweep_worker_end(sweep_worker *worker);

/// Performs run `index` and returns its RESULTS line (with '\n'), malloc'd, and its status;
/// NULL only when out of memory. `worker` may be NULL (nothing is kept).
char *sweep_run_line(const sweep_job *job, sweep_worker *worker, long index,
                     sweep_status *status);

// A run's trajectory handed back to the caller (rows × job->columns values, malloc'd).
typedef struct sweep_trajectory {
    double *values;
    size_t rows;   // 0: the run did not start (no trajectory)
} sweep_trajectory;

/// As sweep_run_line, for an HDF5 trajectory file written elsewhere (dirac-mpi's rank 0): the
/// run's trajectory is handed back in *trajectory instead of being written.
char *sweep_run_line_keep(const sweep_job *job, sweep_worker *worker, long index,
                          sweep_status *status, sweep_trajectory *trajectory);

/// Writes run `index`'s trajectory into job->trajectory_file; 0 or an errno value.
int sweep_write_trajectory(const sweep_job *job, long index, const double *values, size_t rows);

/// A RESULTS line for a run that did not run (status INTERRUPTED or LOST) with a message.
char *sweep_missing_line(const sweep_job *job, long index, sweep_status status,
                         const char *message);

#endif
