// `dirac sweep MODEL --vary NAME=VALUES... [--samples N --seed S] [--jobs J] --out RESULTS`
//
// Runs a model many times (a grid of parameter values, or Latin-hypercube samples) and writes
// one RESULTS line per run (sweep_run.h) in the order of the run index. --jobs J runs J POSIX
// threads on a dynamic work queue (each takes the next run index when it is free; each thread
// parses the model once and compiles its own model per run; threads share only the library's
// loaded generated code, under its lock: sweep_run.h). RESULTS are the same
// for any J, line for line and bit for bit, except the wall_seconds column. The MPI variant is
// `dirac-mpi sweep` (cli/mpi/). docs/sweeps.md is the user's reference.
//
// Exit status: 0 every run ok; 3 some run failed or was invalid (its line says why, the other
// runs are complete), or writing RESULTS failed; 2 bad arguments or model; 130 interrupted.
#define _POSIX_C_SOURCE 200809L

#include "commands.h"
#include "sweep_cli.h"
#include "sweep_results.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static atomic_int stop_requested;

// OpenBLAS's own threads slow the small solves of a run (a 6x6 solve 5x, docs/paper001.md) and
// compete with the sweep's threads: one BLAS thread per sweep thread (when it is OpenBLAS).
void openblas_set_num_threads(int threads) __attribute__((weak));

static void on_interrupt(int sig)
{
    (void)sig;
    atomic_store(&stop_requested, 1);
}

// The work queue: the next run index, and the results, under one lock.
typedef struct pool {
    const sweep_job *job;
    sweep_results *results;
    pthread_mutex_t lock;
    long next;
    int out_of_memory;
} pool;

static void *worker(void *arg)
{
    pool *p = arg;
    sweep_worker kept = { NULL, NULL, 0 };
    for (;;) {
        pthread_mutex_lock(&p->lock);
        long i = p->next < p->job->plan.runs ? p->next++ : -1;
        pthread_mutex_unlock(&p->lock);
        if (i < 0) {
            sweep_worker_end(&kept);
            return NULL;
        }
        sweep_status status = SWEEP_INTERRUPTED;
        char *text = atomic_load(&stop_requested)
                         ? sweep_missing_line(p->job, i, status, "not run: interrupted")
                         : sweep_run_line(p->job, &kept, i, &status);
        pthread_mutex_lock(&p->lock);
        if (text)
            sweep_results_put(p->results, i, text, status);
        else
            p->out_of_memory = 1;
        pthread_mutex_unlock(&p->lock);
    }
}

// Runs every run on `threads` threads (1: on this one). Returns 0, or -1 if out of memory.
static int run_all(const sweep_job *job, sweep_results *results, long threads)
{
    pool p;
    memset(&p, 0, sizeof p);
    p.job = job;
    p.results = results;
    pthread_mutex_init(&p.lock, NULL);
    if (threads > job->plan.runs)
        threads = job->plan.runs;
    pthread_t *ids = calloc((size_t)threads, sizeof *ids);
    long started = 0;
    for (; ids && threads > 1 && started < threads; started++)
        if (pthread_create(&ids[started], NULL, worker, &p))
            break;
    if (started == 0)
        worker(&p);   // no thread could start (or one is all we need): run them here
    for (long k = 0; k < started; k++)
        pthread_join(ids[k], NULL);
    free(ids);
    pthread_mutex_destroy(&p.lock);
    return p.out_of_memory ? -1 : 0;
}

int cli_sweep(int argc, char **argv)
{
    sweep_cli cli;
    int rc = sweep_cli_setup(argc, argv, "dirac sweep", &cli);
    if (rc) {
        sweep_cli_free(&cli);
        return rc < 0 ? 0 : rc;
    }
    if (openblas_set_num_threads)
        openblas_set_num_threads(1);
    const sweep_job *job = &cli.job;
    cli.job.stop = &stop_requested;
    long threads = cli.jobs > 0 ? cli.jobs : 1;
    sweep_results results;
    int e = sweep_results_open(&results, cli.out, job);
    if (e) {
        fprintf(stderr, "dirac sweep: error: cannot write '%s': %s\n", cli.out, strerror(e));
        sweep_cli_free(&cli);
        return e == ENOMEM ? 3 : 2;
    }
    const char *trajectories = job->opt.trajectories;
    if (trajectories && sweep_hdf5_path(trajectories)) {
        e = sweep_h5_trajectories_open(trajectories, &cli.job.trajectory_file);
        if (e) {
            fprintf(stderr, "dirac sweep: error: cannot write '%s': %s\n", trajectories,
                    strerror(e));
            sweep_results_close(&results);
            sweep_cli_free(&cli);
            return e == ENOMEM ? 3 : 2;
        }
    }
    void (*previous)(int) = signal(SIGINT, on_interrupt);
    if (previous == SIG_IGN)
        signal(SIGINT, SIG_IGN);
    double start = sweep_now();
    int oom = run_all(job, &results, threads);
    double wall = sweep_now() - start;
    signal(SIGINT, previous == SIG_ERR ? SIG_DFL : previous);
    long not_ok = results.not_ok, done = results.done;
    e = sweep_results_close(&results);
    int e_trajectories = sweep_h5_trajectories_close(cli.job.trajectory_file);
    cli.job.trajectory_file = NULL;
    rc = 0;
    if (oom || done < job->plan.runs) {
        fputs("dirac sweep: error: out of memory (RESULTS is incomplete)\n", stderr);
        rc = 3;
    } else if (e) {
        fprintf(stderr, "dirac sweep: error: writing '%s' failed: %s\n", cli.out, strerror(e));
        rc = 3;
    } else if (e_trajectories) {
        fprintf(stderr, "dirac sweep: error: writing '%s' failed: %s\n", trajectories,
                strerror(e_trajectories));
        rc = 3;
    } else if (atomic_load(&stop_requested)) {
        fprintf(stderr, "dirac sweep: interrupted; RESULTS has every run, those not finished "
                        "with status 'interrupted'\n");
        rc = 130;
    } else if (not_ok) {
        rc = 3;
    }
    if (!cli.quiet && rc != 130)
        fprintf(stderr, "dirac sweep: %ld runs (%ld not ok) on %ld thread%s in %.3g s; results "
                        "in %s\n", job->plan.runs, not_ok, threads, threads == 1 ? "" : "s",
                wall, cli.out);
    sweep_cli_free(&cli);
    return rc;
}
