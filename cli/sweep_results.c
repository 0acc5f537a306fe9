// The RESULTS file of `dirac sweep`, written in index order (sweep_results.h).
#include "sweep_results.h"
#include "sweep_cli.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define FLUSH_SECONDS 0.5

// The HDF5 table of the job's columns.
static int open_table(sweep_results *r, const char *path, const sweep_job *job)
{
    int n = sweep_result_columns(job, NULL, NULL);
    const char **names = malloc((size_t)n * sizeof *names);
    sweep_column_kind *kinds = malloc((size_t)n * sizeof *kinds);
    int e = ENOMEM;
    if (names && kinds) {
        sweep_result_columns(job, names, kinds);
        e = sweep_h5_table_open(path, n, (char *const *)names, kinds, &r->table);
    }
    free(names);
    free(kinds);
    return e;
}

int sweep_results_open(sweep_results *r, const char *path, const sweep_job *job)
{
    memset(r, 0, sizeof *r);
    r->runs = job->plan.runs;
    r->pending = calloc((size_t)(r->runs > 0 ? r->runs : 1), sizeof *r->pending);
    if (!r->pending)
        return ENOMEM;
    if (sweep_hdf5_path(path)) {
        int e = open_table(r, path, job);
        if (e) {
            free(r->pending);
            r->pending = NULL;
        }
        return e;
    }
    char *header = sweep_header_line(job);
    if (!header) {
        free(r->pending);
        r->pending = NULL;
        return ENOMEM;
    }
    if (!strcmp(path, "-")) {
        r->file = stdout;
    } else {
        r->file = fopen(path, "w");
        if (!r->file) {
            int e = errno;
            free(header);
            free(r->pending);
            r->pending = NULL;
            return e;
        }
        r->owns_file = 1;
    }
    if (fputs(header, r->file) == EOF)
        r->error = errno ? errno : EIO;
    free(header);
    return 0;
}

// Writes one line to the CSV or the HDF5 file; 0 or an errno value.
static int write_line(sweep_results *r, const char *text)
{
    if (r->table)
        return sweep_h5_table_append(r->table, text);
    return fputs(text, r->file) == EOF ? (errno ? errno : EIO) : 0;
}

// Writes the waiting lines that are next in order; the file is flushed at most every
// FLUSH_SECONDS (one write per batch of lines would cost rank 0 a system call per message),
// so a sweep that dies leaves every line written until shortly before.
static void write_ready(sweep_results *r)
{
    int wrote = 0;
    while (r->next < r->runs && r->pending[r->next]) {
        if (!r->error)
            r->error = write_line(r, r->pending[r->next]);
        free(r->pending[r->next]);
        r->pending[r->next] = (char *)"";   // written (a non-NULL marker)
        r->next++;
        wrote = 1;
    }
    double now = sweep_now();
    if (wrote && !r->error && now - r->flushed > FLUSH_SECONDS) {
        if (r->table)
            r->error = sweep_h5_table_flush(r->table);
        else if (fflush(r->file) == EOF)
            r->error = errno ? errno : EIO;
        r->flushed = now;
    }
}

void sweep_results_put(sweep_results *r, long index, char *line, sweep_status status)
{
    if (index < 0 || index >= r->runs || r->pending[index]) {
        free(line);
        return;
    }
    r->pending[index] = line;
    r->done++;
    if (status != SWEEP_OK)
        r->not_ok++;
    write_ready(r);
}

int sweep_results_has(const sweep_results *r, long index)
{
    return index >= 0 && index < r->runs && r->pending[index] != NULL;
}

int sweep_results_close(sweep_results *r)
{
    for (long i = r->next; i < r->runs; i++)
        free(r->pending[i]);
    free(r->pending);
    r->pending = NULL;
    if (r->table) {
        int e = sweep_h5_table_close(r->table);
        if (e && !r->error)
            r->error = e;
        r->table = NULL;
    }
    if (r->file) {
        if (r->owns_file) {
            if (fclose(r->file) == EOF && !r->error)
                r->error = errno ? errno : EIO;
        } else if (fflush(r->file) == EOF && !r->error) {
            r->error = errno ? errno : EIO;
        }
    }
    r->file = NULL;
    return r->error;
}
