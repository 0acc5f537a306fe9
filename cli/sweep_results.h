// The RESULTS file of `dirac sweep`: a header line, then one line per run in the order of the
// run index, whatever order the runs finish in (lines that arrive early wait in memory until
// every earlier one has been written). A file named *.h5 or *.hdf5 is written as HDF5 instead
// (sweep_hdf5.h: a compound dataset with a record per line, the same values). Not
// thread-safe: callers serialise the calls.
#ifndef DIRAC_CLI_SWEEP_RESULTS_H
#define DIRAC_CLI_SWEEP_RESULTS_H

#include "sweep_hdf5.h"
#include "sweep_run.h"

#include <stdio.h>

typedef struct sweep_results {
    FILE *file;
    sweep_h5_table *table;   // the HDF5 file instead of `file`
    int owns_file;
    long runs;
    long next;          // index of the next line to write
    char **pending;     // runs entries: lines waiting for an earlier one
    long done;          // lines received
    long not_ok;        // runs whose status is not "ok"
    int error;          // first errno of a failed write (0: none)
    double flushed;     // sweep_now() of the last flush
} sweep_results;

/// Opens `path` ("-": standard output) and writes the header (the job's columns). Returns 0 or
/// an errno value (ENOTSUP: an HDF5 file and a build without HDF5).
int sweep_results_open(sweep_results *r, const char *path, const sweep_job *job);

/// Takes the line (malloc'd) of run `index` and writes every line now in order.
void sweep_results_put(sweep_results *r, long index, char *line, sweep_status status);

/// 1 if run `index`'s line has been received.
int sweep_results_has(const sweep_results *r, long index);

/// Closes the file (writes nothing more). Returns 0 or the first errno value.
int sweep_results_close(sweep_results *r);

#endif
