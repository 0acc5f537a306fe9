// `dirac-mpi sweep ...`: the sweep of `dirac sweep` (same arguments, same RESULTS) over the
// ranks of an MPI job, e.g. `mpirun -np 64 dirac-mpi sweep model.dirac --vary ... --out R.csv`.
//
// Every rank parses the arguments and builds the same plan (the samples are drawn from the
// seed, not communicated). Rank 0 hands out runs on request (dynamic load balancing: runs may
// differ in cost by orders of magnitude) and writes RESULTS in index order; it also computes,
// on a second thread, so one rank per core keeps every core busy. A worker asks for work with
// its mean run time so far; rank 0 answers with a chunk of consecutive run indices worth about
// CHUNK_SECONDS of work, longer beyond CHUNK_RANKS ranks so that rank 0 answers at most
// CHUNK_RANKS / CHUNK_SECONDS requests a second (at least 1 run, at most an even share of
// what is left: guided self-scheduling), or with an empty chunk when nothing is left. The
// result lines of a chunk travel with the request for the next one: one message per chunk
// (bench/sweep.sh measures rank 0's cost per message and per result, and simulates the
// protocol at 1000 ranks). A run that fails is a line with its status; it stops nothing.
//
// Lost ranks (--rank-timeout S): when a rank holding unfinished runs has sent nothing for S
// seconds, rank 0 declares it lost, runs its unfinished runs elsewhere, writes the complete
// RESULTS, reports the rank, and ends the job with MPI_Abort (exit status 3), since MPI cannot
// finalize with a dead rank. Open MPI's mpirun kills the whole job when a rank dies unless
// it is started with --enable-recovery (docs/sweeps.md, "Lost ranks").
//
// --stats: rank 0 reports the messages it handled and its busy time per message, the measure
// of how many ranks it can serve (bench/sweep.sh).
//
// Only the main thread calls MPI (MPI_THREAD_FUNNELED).
#define _POSIX_C_SOURCE 200809L

#include "sweep_cli.h"
#include "sweep_results.h"

#include <mpi.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

// worker → 0: the results of its last chunk and a request for the next one:
// "MEAN\n" (mean run seconds so far, 0 at first), then per run "INDEX STATUS LENGTH ROWS\n",
// the RESULTS line of LENGTH bytes, and (--trajectories FILE.h5, which only rank 0 writes)
// the run's trajectory, ROWS × columns doubles in the sender's byte order (ROWS 0: none)
#define TAG_REQUEST 1
#define MEAN_WIDTH 32   // bytes of the MEAN field (%.17g and '\n' fit in 25)
#define TAG_ASSIGN 3    // 0 → worker: long[2] {first index, count}; count 0: no more work
#define CHUNK_SECONDS 0.02
#define CHUNK_RANKS 50   // 2500 requests a second: rank 0 busy ~10 % at ~40 us each
// Rank 0's pause when no message is waiting: POLL_SECONDS after a message, doubled while
// none comes up to POLL_MAX_SECONDS. Its computing thread needs the core: polling every 20 us
// all along took about a tenth of it (50,000 wake-ups a second), while a request waits at most
// POLL_MAX_SECONDS, under 2 % of a chunk of CHUNK_SECONDS.
#define POLL_SECONDS 20e-6
#define POLL_MAX_SECONDS 320e-6

// OpenBLAS's own threads slow the small solves of a run and compete with the sweep's ranks.
void openblas_set_num_threads(int threads) __attribute__((weak));

// The work queue of rank 0 (the MPI thread and the computing thread share it).
typedef struct queue {
    const sweep_job *job;
    sweep_results *results;
    pthread_mutex_t lock;
    long next;                 // next index never handed out
    long *retry;               // indices of lost ranks' runs, handed out first
    long retry_count;
    int local_done;
    long local_runs;           // runs of the computing thread
    int out_of_memory;
    int trajectory_error;      // errno value of a failed trajectory write (0: none)
} queue;

// Takes up to `want` indices: a retried one, or consecutive new ones. Returns the count.
static long take(queue *q, long want, long *first)
{
    long count = 0;
    pthread_mutex_lock(&q->lock);
    if (q->retry_count > 0) {
        *first = q->retry[--q->retry_count];
        count = 1;
    } else if (q->next < q->job->plan.runs) {
        *first = q->next;
        count = q->job->plan.runs - q->next < want ? q->job->plan.runs - q->next : want;
        q->next += count;
    }
    pthread_mutex_unlock(&q->lock);
    return count;
}

static void put(queue *q, long index, char *line, sweep_status status)
{
    pthread_mutex_lock(&q->lock);
    if (line)
        sweep_results_put(q->results, index, line, status);
    else
        q->out_of_memory = 1;
    pthread_mutex_unlock(&q->lock);
}

// Rank 0's computing thread: one run at a time from the queue.
static void *local_worker(void *arg)
{
    queue *q = arg;
    long first;
    sweep_worker kept = { NULL, NULL, 0 };
    while (take(q, 1, &first) == 1) {
        sweep_status status;
        char *line = sweep_run_line(q->job, &kept, first, &status);
        put(q, first, line, status);
        pthread_mutex_lock(&q->lock);
        q->local_runs++;
        pthread_mutex_unlock(&q->lock);
    }
    sweep_worker_end(&kept);
    pthread_mutex_lock(&q->lock);
    q->local_done = 1;
    pthread_mutex_unlock(&q->lock);
    return NULL;
}

// What rank 0 knows of a worker rank.
typedef struct rank_state {
    int finished;        // got its empty chunk (or lost)
    int lost;
    long first, count;   // its current chunk
    double last_heard;
} rank_state;

// CPU time of the calling thread: rank 0's cost of a message, not the time it waited for a
// core on a busy machine.
static double thread_cpu_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void pause_briefly(double seconds)
{
    struct timespec ts = { 0, (long)(seconds * 1e9) };
    nanosleep(&ts, NULL);
}

// Chunk for a worker whose runs take `mean` seconds: about CHUNK_SECONDS of work (times
// ranks / CHUNK_RANKS beyond CHUNK_RANKS ranks), at least one run, at most the remaining runs
// shared among all ranks.
static long chunk_size(const queue *q, double mean, int ranks)
{
    long left = q->job->plan.runs - q->next, share = left / (2L * ranks);
    double seconds = CHUNK_SECONDS * (ranks > CHUNK_RANKS ? (double)ranks / CHUNK_RANKS : 1.0);
    long n = mean > 0 ? (long)(seconds / mean) : 1;
    if (n > share)
        n = share;
    return n < 1 ? 1 : n;
}

// Requeues the runs of a lost rank that have no result yet.
static void requeue(queue *q, const rank_state *r)
{
    pthread_mutex_lock(&q->lock);
    long *grown = realloc(q->retry, (size_t)(q->retry_count + r->count) * sizeof *grown);
    if (grown) {
        q->retry = grown;
        for (long i = r->first + r->count - 1; i >= r->first; i--)
            if (!sweep_results_has(q->results, i))
                q->retry[q->retry_count++] = i;
    } else {
        q->out_of_memory = 1;
    }
    pthread_mutex_unlock(&q->lock);
}

// Stores the results carried by a request of `size` bytes (the format of TAG_REQUEST), writes
// the trajectories they carry, and reads the mean run time. Returns 0, or -1 for a malformed
// message.
static int take_results(queue *q, const char *text, size_t size, double *mean, long *results)
{
    const sweep_job *job = q->job;
    size_t row_bytes = (size_t)job->columns * sizeof(double);
    char *end;
    *mean = strtod(text, &end);
    if (*end != '\n')
        return -1;
    for (const char *p = end + 1; p < text + size; ) {
        long index = strtol(p, &end, 10);
        int status = (int)strtol(end, &end, 10);
        long length = strtol(end, &end, 10);
        long rows = strtol(end, &end, 10);
        if (*end != '\n' || length < 0 || rows < 0 ||
            (size_t)length > (size_t)(text + size - (end + 1)) ||
            (size_t)rows > (size_t)(text + size - (end + 1) - length) / row_bytes)
            return -1;
        char *line = malloc((size_t)length + 1);
        if (line) {
            memcpy(line, end + 1, (size_t)length);
            line[length] = '\0';
        }
        const char *values = end + 1 + length;
        if (rows > 0 && job->trajectory_file) {
            pthread_mutex_lock(&q->lock);
            int seen = sweep_results_has(q->results, index);
            pthread_mutex_unlock(&q->lock);
            double *copy = seen ? NULL : malloc((size_t)rows * row_bytes);   // aligned
            int e = seen ? 0 : copy ? 0 : ENOMEM;
            if (copy) {
                memcpy(copy, values, (size_t)rows * row_bytes);
                e = sweep_write_trajectory(job, index, copy, (size_t)rows);
                free(copy);
            }
            if (e) {
                pthread_mutex_lock(&q->lock);
                q->trajectory_error = e;
                pthread_mutex_unlock(&q->lock);
            }
        }
        put(q, index, line, (sweep_status)status);
        ++*results;
        p = values + (size_t)rows * row_bytes;
    }
    return 0;
}

// Rank 0's MPI loop: answers requests, collects results, watches for lost ranks. Returns the
// number of ranks lost.
typedef struct serve_stats {
    long local_runs;       // runs rank 0 computed itself
    long messages;
    long results;          // run results they carried
    double busy_seconds;   // CPU time of handling messages (receive, answer, store, write)
} serve_stats;

static int serve(queue *q, int ranks, double rank_timeout, const char *program,
                 serve_stats *stats)
{
    rank_state *state = calloc((size_t)ranks, sizeof *state);
    if (!state) {
        q->out_of_memory = 1;
        return 0;
    }
    int busy = ranks - 1, lost = 0;
    double now = sweep_now();
    for (int r = 1; r < ranks; r++)
        state[r].last_heard = now;
    char *buffer = NULL;
    int capacity = 0;
    double pause = POLL_SECONDS;
    while (busy > 0) {
        int flag = 0;
        MPI_Status st;
        if (MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, &st) != MPI_SUCCESS)
            break;
        if (!flag) {
            pause_briefly(pause);
            pause = 2 * pause < POLL_MAX_SECONDS ? 2 * pause : POLL_MAX_SECONDS;
            if (rank_timeout > 0) {
                now = sweep_now();
                for (int r = 1; r < ranks; r++) {
                    rank_state *s = &state[r];
                    if (s->finished || now - s->last_heard < rank_timeout)
                        continue;
                    fprintf(stderr, "%s: error: rank %d sent nothing for %.3g s; it is taken "
                                    "as lost, its unfinished runs go to other ranks\n",
                            program, r, now - s->last_heard);
                    s->finished = s->lost = 1;
                    busy--;
                    lost++;
                    requeue(q, s);
                }
            }
            continue;
        }
        pause = POLL_SECONDS;
        rank_state *s = &state[st.MPI_SOURCE];
        s->last_heard = sweep_now();
        double handling = thread_cpu_seconds();
        stats->messages++;
        if (st.MPI_TAG == TAG_REQUEST) {
            int size = 0;
            MPI_Get_count(&st, MPI_CHAR, &size);
            if (size + 1 > capacity) {
                char *grown = realloc(buffer, (size_t)size + 1);
                if (!grown) {
                    q->out_of_memory = 1;
                    break;
                }
                buffer = grown;
                capacity = size + 1;
            }
            MPI_Recv(buffer, size, MPI_CHAR, st.MPI_SOURCE, TAG_REQUEST, MPI_COMM_WORLD,
                     MPI_STATUS_IGNORE);
            buffer[size] = '\0';
            double mean = 0;
            if (!s->lost && take_results(q, buffer, (size_t)size, &mean, &stats->results)) {
                fprintf(stderr, "%s: error: a malformed message from rank %d\n", program,
                        st.MPI_SOURCE);
                q->out_of_memory = 1;
            }
            long chunk[2] = { 0, 0 };
            pthread_mutex_lock(&q->lock);
            long want = chunk_size(q, mean, ranks);
            pthread_mutex_unlock(&q->lock);
            chunk[1] = s->lost ? 0 : take(q, want, &chunk[0]);
            s->first = chunk[0];
            s->count = chunk[1];
            MPI_Send(chunk, 2, MPI_LONG, st.MPI_SOURCE, TAG_ASSIGN, MPI_COMM_WORLD);
            if (chunk[1] == 0 && !s->finished) {
                s->finished = 1;
                busy--;
            }
        } else {
            // unknown message: receive and drop it
            MPI_Recv(NULL, 0, MPI_BYTE, st.MPI_SOURCE, st.MPI_TAG, MPI_COMM_WORLD,
                     MPI_STATUS_IGNORE);
        }
        stats->busy_seconds += thread_cpu_seconds() - handling;
    }
    free(buffer);
    free(state);
    return lost;
}

// Appends text to a growing buffer; 0, or -1 when out of memory.
static int append(char **buffer, size_t *len, size_t *capacity, const char *text, size_t n)
{
    if (*len + n + 1 > *capacity) {
        size_t cap = *capacity ? *capacity : 4096;
        while (cap < *len + n + 1)
            cap *= 2;
        char *grown = realloc(*buffer, cap);
        if (!grown)
            return -1;
        *buffer = grown;
        *capacity = cap;
    }
    memcpy(*buffer + *len, text, n);
    *len += n;
    (*buffer)[*len] = '\0';
    return 0;
}

// Sends a request of `size` bytes to rank 0 and receives the chunk it answers; 0, or -1 when
// MPI fails. The rank waits asleep between tests rather than spinning in MPI_Recv as Open MPI
// does: with one rank per core, rank 0's serving thread needs a core to answer, and a spinning
// worker would hold one (the request would wait for the scheduler, a millisecond or more).
static int exchange(const char *request, int size, long chunk[2])
{
    MPI_Request pending[2];
    if (MPI_Irecv(chunk, 2, MPI_LONG, 0, TAG_ASSIGN, MPI_COMM_WORLD, &pending[0]) != MPI_SUCCESS)
        return -1;
    if (MPI_Isend(request, size, MPI_CHAR, 0, TAG_REQUEST, MPI_COMM_WORLD, &pending[1]) !=
        MPI_SUCCESS) {
        MPI_Cancel(&pending[0]);
        MPI_Request_free(&pending[0]);
        return -1;
    }
    for (;;) {
        int done = 0;
        if (MPI_Testall(2, pending, &done, MPI_STATUSES_IGNORE) != MPI_SUCCESS)
            return -1;
        if (done)
            return 0;
        pause_briefly(POLL_SECONDS);
    }
}

// A worker rank: asks for chunks (sending the results of the last one) until it gets an empty
// one.
static int work(const sweep_job *job)
{
    // trajectories for rank 0's HDF5 file travel with the results
    int keep = job->opt.trajectories && sweep_hdf5_path(job->opt.trajectories);
    double total = 0;
    long runs = 0;
    sweep_worker kept = { NULL, NULL, 0 };
    char *message = NULL, head[96];
    size_t len = 0, capacity = 0;
    int rc = 0;
    for (;;) {
        long chunk[2];
        if (len > INT_MAX) {   // one chunk's trajectories beyond an MPI count
            fputs("dirac-mpi sweep: error: a chunk's trajectories exceed 2 GiB; thin them with "
                  "--every\n", stderr);
            rc = 3;
            break;
        }
        if (exchange(message ? message : "0\n", message ? (int)len : 2, chunk)) {
            rc = 3;
            break;
        }
        if (chunk[1] == 0)
            break;
        // a field of MEAN_WIDTH bytes for the mean run time, filled in when the chunk is done
        len = 0;
        if (append(&message, &len, &capacity, "                                ", MEAN_WIDTH)) {
            rc = 3;
            break;
        }
        for (long i = chunk[0]; i < chunk[0] + chunk[1]; i++) {
            double start = sweep_now();
            sweep_status status;
            sweep_trajectory traj = { NULL, 0 };
            char *line = sweep_run_line_keep(job, &kept, i, &status, keep ? &traj : NULL);
            total += sweep_now() - start;
            runs++;
            if (!line) {
                status = SWEEP_LOST;
                line = sweep_missing_line(job, i, status, "out of memory on a worker rank");
            }
            size_t traj_bytes = traj.rows * (size_t)job->columns * sizeof(double);
            int n = snprintf(head, sizeof head, "%ld %d %zu %zu\n", i, (int)status,
                             line ? strlen(line) : 0, traj.rows);
            if (!line || append(&message, &len, &capacity, head, (size_t)n) ||
                append(&message, &len, &capacity, line, strlen(line)) ||
                (traj_bytes > 0 &&
                 append(&message, &len, &capacity, (const char *)traj.values, traj_bytes))) {
                free(line);
                free(traj.values);
                rc = 3;
                break;
            }
            free(line);
            free(traj.values);
        }
        if (rc)
            break;
        // the mean over all runs so far, right-aligned (strtod skips the leading spaces)
        int n = snprintf(head, sizeof head, "%.17g\n", total / (double)runs);
        memcpy(message + MEAN_WIDTH - n, head, (size_t)n);
    }
    sweep_worker_end(&kept);
    free(message);
    return rc;
}

// Opens RESULTS and an HDF5 trajectory file on rank 0 (before the ranks agree to start, so a
// failure stops them all).
static int open_results(sweep_cli *cli, sweep_results *results)
{
    int e = sweep_results_open(results, cli->out, &cli->job);
    if (e) {
        fprintf(stderr, "dirac-mpi sweep: error: cannot write '%s': %s\n", cli->out,
                strerror(e));
        return 2;
    }
    const char *trajectories = cli->job.opt.trajectories;
    if (trajectories && sweep_hdf5_path(trajectories)) {
        e = sweep_h5_trajectories_open(trajectories, &cli->job.trajectory_file);
        if (e) {
            fprintf(stderr, "dirac-mpi sweep: error: cannot write '%s': %s\n", trajectories,
                    strerror(e));
            sweep_results_close(results);
            return 2;
        }
    }
    return 0;
}

// Rank 0: the computing thread, the MPI loop, RESULTS. Returns the exit status.

static int lead(sweep_cli *cli, sweep_results *results_file, int ranks, double rank_timeout,
                int show_stats, double started, int *lost)
{
    const sweep_job *job = &cli->job;
    sweep_results results = *results_file;
    int e;
    queue q;
    memset(&q, 0, sizeof q);
    q.job = job;
    q.results = &results;
    pthread_mutex_init(&q.lock, NULL);
    double start = sweep_now();
    pthread_t thread;
    int threaded = pthread_create(&thread, NULL, local_worker, &q) == 0;
    serve_stats stats = { 0, 0, 0, 0 };
    *lost = serve(&q, ranks, rank_timeout, "dirac-mpi sweep", &stats);
    if (threaded)
        pthread_join(thread, NULL);
    else
        local_worker(&q);
    if (*lost)   // runs requeued after the computing thread ended: run them here
        local_worker(&q);
    stats.local_runs = q.local_runs;
    long not_ok = results.not_ok, done = results.done;
    e = sweep_results_close(&results);
    double wall = sweep_now() - start, elapsed = sweep_now() - started;
    int e_trajectories = sweep_h5_trajectories_close(cli->job.trajectory_file);
    cli->job.trajectory_file = NULL;
    if (!e_trajectories)
        e_trajectories = q.trajectory_error;
    pthread_mutex_destroy(&q.lock);
    free(q.retry);
    int rc = 0;
    if (q.out_of_memory || done < job->plan.runs) {
        fprintf(stderr, "dirac-mpi sweep: error: %ld of %ld runs have no result (out of memory "
                        "or a lost rank)\n", job->plan.runs - done, job->plan.runs);
        rc = 3;
    } else if (e) {
        fprintf(stderr, "dirac-mpi sweep: error: writing '%s' failed: %s\n", cli->out,
                strerror(e));
        rc = 3;
    } else if (e_trajectories) {
        fprintf(stderr, "dirac-mpi sweep: error: writing '%s' failed: %s\n",
                cli->job.opt.trajectories, strerror(e_trajectories));
        rc = 3;
    } else if (not_ok || *lost) {
        rc = 3;
    }
    if (show_stats) {
        fprintf(stderr, "dirac-mpi sweep: rank 0 handled %ld messages carrying %ld results in "
                        "%.6f s busy (%.3g us per message, %.3g us per result)\n",
                stats.messages, stats.results, stats.busy_seconds,
                stats.messages ? 1e6 * stats.busy_seconds / (double)stats.messages : 0.0,
                stats.results ? 1e6 * stats.busy_seconds / (double)stats.results : 0.0);
        fprintf(stderr, "dirac-mpi sweep: %.6f s from MPI_Init to RESULTS written (%.6f s of "
                        "runs), %ld runs on rank 0\n", elapsed, wall, stats.local_runs);
    }
    if (!cli->quiet)
        fprintf(stderr, "dirac-mpi sweep: %ld runs (%ld not ok) on %d rank%s in %.3g s; results "
                        "in %s\n", job->plan.runs, not_ok, ranks, ranks == 1 ? "" : "s", wall,
                cli->out);
    return rc;
}

// Removes dirac-mpi's own options, "--rank-timeout S" and "--stats", from the arguments (the
// rest is `dirac sweep`'s command line).
static int take_mpi_options(int *argc, char **argv, double *timeout, int *stats)
{
    for (int i = 1; i < *argc; i++) {
        if (!strcmp(argv[i], "--stats")) {
            *stats = 1;
            for (int k = i; k + 1 <= *argc; k++)
                argv[k] = argv[k + 1];
            --*argc;
            i--;
            continue;
        }
        if (strcmp(argv[i], "--rank-timeout"))
            continue;
        char *end = NULL;
        if (i + 1 < *argc)
            *timeout = strtod(argv[i + 1], &end);
        if (!end || *end || !(*timeout > 0)) {
            fputs("dirac-mpi sweep: error: --rank-timeout needs a positive number of seconds\n",
                  stderr);
            return 2;
        }
        for (int k = i; k + 2 <= *argc; k++)
            argv[k] = argv[k + 2];
        *argc -= 2;
        i--;
    }
    return 0;
}

int main(int argc, char **argv)
{
    int provided = 0, rank = 0, ranks = 1;
    if (MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided) != MPI_SUCCESS)
        return 3;
    double started = sweep_now();   // the sweep's time inside the program (--stats)
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &ranks);
    if (openblas_set_num_threads)
        openblas_set_num_threads(1);
    if (argc < 2 || strcmp(argv[1], "sweep")) {
        if (rank == 0)
            fputs("usage: [mpirun -np P] dirac-mpi sweep [--rank-timeout S] [--stats] ARGS...\n"
                  "(ARGS as for 'dirac sweep'; see 'dirac sweep --help')\n", stderr);
        MPI_Finalize();
        return 2;
    }
    // only rank 0 reports problems with the arguments or the model (all ranks find the same)
    int saved_stderr = -1;
    if (rank != 0) {
        fflush(stderr);
        saved_stderr = dup(2);
        int devnull = open("/dev/null", O_WRONLY);
        if (devnull >= 0) {
            dup2(devnull, 2);
            close(devnull);
        }
    }
    double rank_timeout = 0;
    int sweep_argc = argc - 1;
    int show_stats = 0;
    int rc = take_mpi_options(&sweep_argc, argv + 1, &rank_timeout, &show_stats);
    sweep_cli cli;
    memset(&cli, 0, sizeof cli);
    if (!rc)
        rc = sweep_cli_setup(sweep_argc, argv + 1, "dirac-mpi sweep", &cli);
    if (saved_stderr >= 0) {
        fflush(stderr);
        dup2(saved_stderr, 2);
        close(saved_stderr);
    }
    sweep_results results;
    memset(&results, 0, sizeof results);
    if (!rc && rank == 0)
        rc = open_results(&cli, &results);
    int worst = rc;
    MPI_Allreduce(&rc, &worst, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    if (worst) {
        if (!rc && rank == 0) {
            sweep_results_close(&results);
            sweep_h5_trajectories_close(cli.job.trajectory_file);
        }
        sweep_cli_free(&cli);
        MPI_Finalize();
        return rc < 0 ? 0 : rc ? rc : worst;
    }
    if (cli.jobs > 1 && rank == 0)
        fputs("dirac-mpi sweep: note: --jobs is ignored; each rank computes one run at a time "
              "(start more ranks instead)\n", stderr);
    int lost = 0;
    rc = rank == 0 ? lead(&cli, &results, ranks, rank_timeout, show_stats, started, &lost)
                   : work(&cli.job);
    sweep_cli_free(&cli);
    if (lost) {
        fflush(NULL);
        MPI_Abort(MPI_COMM_WORLD, rc);   // a lost rank cannot take part in MPI_Finalize
    }
    MPI_Finalize();
    return rc;
}
