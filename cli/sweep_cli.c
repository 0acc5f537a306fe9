// The command line of `dirac sweep` (sweep_cli.h).
#define _POSIX_C_SOURCE 200809L   // mkdir, clock_gettime

#include "sweep_cli.h"
#include "option_args.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

const char sweep_usage[] =
    "usage: dirac sweep MODEL --vary NAME=VALUES... [--samples N [--seed S]] [--jobs J]\n"
    "                   --out RESULTS.csv|RESULTS.h5 [--trajectories DIR|FILE.h5] [--quiet]\n"
    "                   [-p NAME=VALUE]... [--method NAME] [--dt H] [--t-end T] [--every K]\n"
    "                   [--project-initial] [--tol R] [--max-iter N] [--rtol R] [--atol A]\n"
    "                   [--max-steps N] [--strict]\n"
    "VALUES: A:B:N (N values, linear, ends included), A:B:N:log, V1,V2,... (a list),\n"
    "        or with --samples: uniform(A,B), loguniform(A,B), normal(MEAN,SD)\n";

#define EXIT_BAD_INPUT 2

double sweep_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static const char *prog_name = "dirac sweep";

static int bad_input(const char *fmt, const char *a, const char *b)
{
    fprintf(stderr, "%s: error: ", prog_name);
    fprintf(stderr, fmt, a, b);
    fputc('\n', stderr);
    return EXIT_BAD_INPUT;
}

#define OPTION(name) cli_take_option(argc, argv, &i, name, &value)

// The options of `dirac simulate` that apply to every run.
static int simulate_option(int argc, char **argv, int *ip, sweep_options *o, int *handled)
{
    int i = *ip;
    const char *arg = argv[i], *value = NULL;
    *handled = 1;
    if (OPTION("-p") || OPTION("--parameter")) {
        if (!value)
            return bad_input("%s needs NAME=VALUE", arg, NULL);
        if (o->override_count == SWEEP_MAX_OVERRIDES)
            return bad_input("too many -p options (at most 256)", NULL, NULL);
        o->overrides[o->override_count++] = value;
    } else if (OPTION("--method")) {
        if (!value || !*value)
            return bad_input("--method needs a method name (see 'dirac methods')", NULL, NULL);
        o->method = value;
    } else if (OPTION("--dt")) {
        if (!value || cli_parse_real(value, &o->dt) || !(o->dt > 0))
            return bad_input("--dt needs a positive number, got '%s'", value ? value : "", NULL);
        o->has_dt = 1;
    } else if (OPTION("--t-end")) {
        if (!value || cli_parse_real(value, &o->t_end) || o->t_end < 0)
            return bad_input("--t-end needs a number >= 0, got '%s'", value ? value : "", NULL);
        o->has_t_end = 1;
    } else if (OPTION("--every")) {
        if (!value || cli_parse_count(value, &o->every))
            return bad_input("--every needs a positive integer, got '%s'", value ? value : "",
                             NULL);
        o->has_every = 1;
    } else if (OPTION("--tol")) {
        if (!value || cli_parse_real(value, &o->tol) || !(o->tol > 0))
            return bad_input("--tol needs a positive number, got '%s'", value ? value : "", NULL);
        o->has_tol = 1;
    } else if (OPTION("--rtol")) {
        if (!value || cli_parse_real(value, &o->rtol) || !(o->rtol > 0))
            return bad_input("--rtol needs a positive number, got '%s'", value ? value : "",
                             NULL);
    } else if (OPTION("--atol")) {
        if (!value || cli_parse_real(value, &o->atol) || !(o->atol > 0))
            return bad_input("--atol needs a positive number, got '%s'", value ? value : "",
                             NULL);
    } else if (OPTION("--max-steps")) {
        if (!value || cli_parse_count(value, &o->max_steps))
            return bad_input("--max-steps needs a positive integer, got '%s'",
                             value ? value : "", NULL);
    } else if (OPTION("--max-iter")) {
        if (!value || cli_parse_count(value, &o->max_iter) || o->max_iter > 100000)
            return bad_input("--max-iter needs an integer from 1 to 100000, got '%s'",
                             value ? value : "", NULL);
        o->has_max_iter = 1;
    } else if (!strcmp(arg, "--project-initial")) {
        o->project_initial = 1;
    } else if (!strcmp(arg, "--strict")) {
        o->strict = 1;
    } else {
        *handled = 0;
    }
    *ip = i;
    return 0;
}

static int parse_args(int argc, char **argv, sweep_cli *cli, long *samples, uint64_t *seed)
{
    sweep_options *o = &cli->job.opt;
    int has_seed = 0;
    char msg[512];
    for (int i = 1; i < argc; i++) {
        const char *arg = argv[i], *value = NULL;
        int handled = 0, rc = simulate_option(argc, argv, &i, o, &handled);
        if (rc)
            return rc;
        if (handled)
            continue;
        if (OPTION("--vary")) {
            if (!value)
                return bad_input("--vary needs NAME=VALUES", NULL, NULL);
            if (sweep_plan_add(&cli->job.plan, value, msg, sizeof msg))
                return bad_input("%s", msg, NULL);
        } else if (OPTION("--samples")) {
            if (!value || cli_parse_count(value, samples))
                return bad_input("--samples needs a positive integer, got '%s'",
                                 value ? value : "", NULL);
        } else if (OPTION("--seed")) {
            char *end;
            errno = 0;
            unsigned long long s = value ? strtoull(value, &end, 10) : 0;
            if (!value || end == value || *end || errno == ERANGE || value[0] == '-')
                return bad_input("--seed needs an integer from 0 to 2^64-1, got '%s'",
                                 value ? value : "", NULL);
            *seed = (uint64_t)s;
            has_seed = 1;
        } else if (OPTION("--jobs") || OPTION("-j")) {
            if (!value || cli_parse_count(value, &cli->jobs) || cli->jobs > 4096)
                return bad_input("--jobs needs an integer from 1 to 4096, got '%s'",
                                 value ? value : "", NULL);
        } else if (OPTION("--out") || OPTION("-o")) {
            if (!value || !*value)
                return bad_input("%s needs a file name (or - for standard output)", arg, NULL);
            cli->out = value;
        } else if (OPTION("--trajectories")) {
            if (!value || !*value)
                return bad_input("--trajectories needs a directory or an HDF5 file (*.h5)", NULL,
                             NULL);
            o->trajectories = value;
        } else if (!strcmp(arg, "--quiet") || !strcmp(arg, "-q")) {
            cli->quiet = 1;
        } else if (!strcmp(arg, "--help") || !strcmp(arg, "-h")) {
            fputs(sweep_usage, stdout);
            return -1;
        } else if (arg[0] == '-' && arg[1] != '\0') {
            return bad_input("unknown option '%s' (see 'dirac sweep --help')", arg, NULL);
        } else if (o->path) {
            return bad_input("more than one model file given ('%s' and '%s')", o->path, arg);
        } else {
            o->path = arg;
        }
    }
    if (!o->path) {
        fputs(sweep_usage, stderr);
        return EXIT_BAD_INPUT;
    }
    if (!cli->out)
        return bad_input("no results file: give --out RESULTS.csv (or - for standard output)",
                         NULL, NULL);
    if (!strcmp(cli->out, o->path))
        return bad_input("refusing to overwrite the model file '%s' with the results", o->path,
                         NULL);
    const char *traj = o->trajectories;
    if (traj && !strcmp(traj, cli->out))
        return bad_input("--out and --trajectories name the same file '%s'", traj, NULL);
    if (!sweep_hdf5_available() &&
        (sweep_hdf5_path(cli->out) || (traj && sweep_hdf5_path(traj))))
        return bad_input("'%s' is an HDF5 file, and this dirac was built without HDF5 (install "
                         "libhdf5-dev and rebuild); write CSV instead",
                         sweep_hdf5_path(cli->out) ? cli->out : traj, NULL);
    if (has_seed && *samples == 0)
        return bad_input("--seed is for --samples N", NULL, NULL);
    return 0;
}

int sweep_cli_setup(int argc, char **argv, const char *program, sweep_cli *cli)
{
    prog_name = program;
    memset(cli, 0, sizeof *cli);
    long samples = 0;
    uint64_t seed = 0;
    int rc = parse_args(argc, argv, cli, &samples, &seed);
    if (rc)
        return rc;
    char msg[512];
    if (sweep_plan_finish(&cli->job.plan, samples, seed, msg, sizeof msg))
        return bad_input("%s", msg, NULL);
    rc = sweep_job_prepare(&cli->job);
    if (rc)
        return rc;
    const char *dir = cli->job.opt.trajectories;
    if (dir && !sweep_hdf5_path(dir) && mkdir(dir, 0777) && errno != EEXIST) {
        fprintf(stderr, "%s: error: cannot create the directory '%s': %s\n", program, dir,
                strerror(errno));
        return EXIT_BAD_INPUT;
    }
    return 0;
}

void sweep_cli_free(sweep_cli *cli)
{
    sweep_job_free(&cli->job);
}
