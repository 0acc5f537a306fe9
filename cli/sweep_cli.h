// The command line of `dirac sweep` (and of `dirac-mpi sweep`, which takes the same one):
// parsed into the job every run shares, and the sweep's own settings.
#ifndef DIRAC_CLI_SWEEP_CLI_H
#define DIRAC_CLI_SWEEP_CLI_H

#include "sweep_run.h"

typedef struct sweep_cli {
    sweep_job job;
    long jobs;              // --jobs: threads (0: not given)
    const char *out;        // --out RESULTS ("-": standard output)
    int quiet;
} sweep_cli;

extern const char sweep_usage[];

/// Parses the arguments (argv[0] is the command), builds the plan, prepares the job (base
/// model, column names) and creates the trajectory directory. Returns 0, -1 after --help, or
/// the exit status (2) after printing the reason. `program` prefixes messages.
int sweep_cli_setup(int argc, char **argv, const char *program, sweep_cli *cli);

/// Releases what sweep_cli_setup allocated.
void sweep_cli_free(sweep_cli *cli);

/// Elapsed seconds of a monotonic clock.
double sweep_now(void);

#endif
