// `dirac simulate MODEL [-p NAME=VALUE]... [--method NAME] [--dt H] [--t-end T] [--out FILE.csv]
//                 [--every K] [--summary FILE.json|-] [--project-initial] [--tol R]
//                 [--max-iter N] [--quiet] [--strict] [--plot FILE] [--rtol R] [--atol A]
//                 [--max-steps N] [--max-wall SECONDS] [--force]
//                 [--inputs FILE.csv] [--inputs-interp linear|step]
//                 [--save-state FILE] [--save-every T] [--initial-state FILE]
//                 [--output-times A:H:B|T1,T2,...|FILE]`
//
// Runs a model with one of the library's integrators, writes the trajectory as CSV (row by row,
// so a failed run leaves a complete file up to its last good step) and a JSON summary. Every
// output is written under a temporary name and renamed into place when complete
// (output_file.h); outputs that would replace the model, one of its component files or each
// other are refused before the run; a CSV larger than CSV_SIZE_LIMIT is refused without --force.
// Settings come from the model's `simulate` line, then the command line. The run takes
// steps = ceil(t_end/dt - 1e-9) steps, all of size dt: the final time steps*dt may pass t_end
// by less than one step (equal steps keep the symplectic methods' properties; a shortened
// last step would not). docs/cli.md is the user's reference.
//
// Restart (state_file.h): --save-state writes the simulation's state at the end of the run (also
// of a failed, stopped or interrupted one: its last good step) and every --save-every T of
// simulated time; --initial-state continues from such a file with the saved run's method, step
// and tolerances, to the absolute time --t-end. The continued run equals the run in one piece
// bit for bit, its rows included (every K-th step counts from the first run's start).
//
// Output times (output_times.h): rows only at the requested times. Adaptive runs shorten the
// step that would pass a time to land on it (and go on with the step the controller wanted);
// fixed-step runs need the times on their grid k dt (a shortened step would make the solution
// depend on the output times and break the equal steps the symplectic methods rely on).
//
// Per interaction k (a constraint or two-form of the outer model joining components), the CSV
// has the force on each coordinate it acts on, F.NAME.COORD, and its power P.NAME; the summary
// has the interactions' names and interaction_power_max, the largest |sum_k P_k| over all nodes.
//
// After the run, the library's quality measures (dirac_sim_quality_get: energy balance,
// constraint residuals, entropy production against the model's own scales) become warnings:
// printed as `dirac simulate: warning: ...`, listed in the summary's "warnings".
//
// Exit status (exit_status.h): 0 success; 2 bad arguments or model; 3 the simulation failed
// (message from dirac_sim_errmsg; the CSV and the summary are still written), it warned and
// --strict was given, or --max-wall stopped it; 4 out of memory; 128 + N stopped by signal N
// (SIGHUP, SIGINT, SIGPIPE, SIGTERM: the run ends after the current step and writes its files).
#define _POSIX_C_SOURCE 200809L   // isatty, fileno, clock_gettime, sigaction

#include "column_name.h"
#include "projection_report.h"
#include "commands.h"
#include "evaluation_report.h"
#include "memory_option.h"
#include "element_energy.h"
#include "spice_import.h"
#include "plot.h"
#include "csv_output.h"
#include "exit_status.h"
#include "input_table.h"
#include "library_message.h"
#include "output_times.h"
#include "state_file.h"
#include "json_output.h"
#include "output_file.h"
#include "option_args.h"

#include <dirac/dirac.h>

#include <errno.h>
#include <float.h>
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define MAX_OVERRIDES 256

// The largest CSV a run may write without --force, estimated before the run as
// rows x columns x CSV_FIELD_BYTES_MAX (an upper bound: "-1.2345678901234567e-308" and a comma).
#define CSV_SIZE_LIMIT 1e10
#define CSV_FIELD_BYTES_MAX 25

static const double missing = (double)NAN;   // written as null in the summary

static const char usage[] =
    "usage: dirac simulate MODEL [-p NAME=VALUE]... [--method NAME] [--dt H] [--t-end T]\n"
    "                      [--out FILE.csv|-] [--every K] [--summary FILE.json|-]\n"
    "                      [--project-initial] [--tol R] [--max-iter N] [--quiet]\n"
    "                      [--plot FILE.png|FILE.svg] [--rtol R] [--atol A]\n"
    "                      [--max-steps N] [--max-wall SECONDS] [--force] [--strict]\n"
    "                      [--max-model-memory BYTES] [--codegen auto|off]\n"
    "                      [--inputs FILE.csv] [--inputs-interp linear|step]\n"
    "                      [--save-state FILE] [--save-every T] [--initial-state FILE]\n"
    "                      [--output-times A:H:B|T1,T2,...|FILE]\n";

// Command-line settings; the has_ flags say which were given.
typedef struct sim_args {
    const char *path;
    const char *overrides[MAX_OVERRIDES];
    int override_count;
    const char *method;
    double dt, t_end, tol;
    long every, max_iter;
    int has_dt, has_t_end, has_every, has_tol, has_max_iter;
    const char *out;       // NULL: MODEL_NAME.csv in the current directory
    const char *summary;   // NULL: no summary
    int project_initial;
    int quiet;
    int strict;            // warnings make the run fail (exit 3)
    const char *plot;      // NULL: no figure
    double rtol, atol;     // adaptive step size when either is > 0
    double max_model_memory;   // bytes; 0: the library's default
    dirac_codegen_mode codegen;   // --codegen
    long max_steps;        // 0: no limit for fixed steps, DEFAULT_MAX_STEPS for adaptive ones
    double max_wall;       // seconds; 0: no limit
    int force;             // write a CSV larger than CSV_SIZE_LIMIT
    const char *inputs;    // --inputs FILE.csv (NULL: the inputs keep their defaults)
    input_interp inputs_interp;
    input_table table;     // the loaded --inputs file (rows == 0: none)
    const char *save_state;      // --save-state FILE (NULL: none)
    double save_every;           // --save-every T (0: only at the end)
    const char *initial_state;   // --initial-state FILE (NULL: the model's initial state)
    saved_state saved;           // the loaded --initial-state file
    const char *output_times_arg;
    output_times times;          // --output-times (count 0: rows every K steps)
} sim_args;

// Accepted steps an adaptive run may take unless --max-steps says otherwise: bounds the run
// time and the CSV (a run that needs more stops with exit status 3).
#define DEFAULT_MAX_STEPS 1000000L

// Settings of the run after merging the model's defaults and the command line.
typedef struct sim_settings {
    const char *method;
    double dt, t_end;
    long every, steps;
    double tol;        // Newton's relative tolerance (0: the library's default)
    long max_iter;     // Newton's iterations (0: the library's default)
    long first_step;   // steps taken before this run (--initial-state), counted from t = 0
    double t_start;    // the time this run starts at
    double span;       // the time this run covers (fixed steps: steps x dt)
} sim_settings;

// What the summary reports: the library's statistics of the run (zero if it could not start),
// and the tool's own.
typedef struct sim_stats {
    dirac_run_stats run;
    long rows;            // rows written, the initial one included
    double wall_seconds;
    int failed, interrupted, stopped;   // stopped: by --max-wall
    int signal;           // the signal that interrupted the run (0: none)
    const char *error;    // message of the failure, NULL if none
    char stop_message[200];
    int with_energy;      // a netlist with --summary: the energy of each element
    element_energy energy;
} sim_stats;

// The terminating signals that end a run after its current step, as Ctrl-C does.
static const int stop_signals[] = { SIGINT, SIGTERM, SIGHUP, SIGPIPE };
static volatile sig_atomic_t stop_signal;   // the first one received (0: none)

static void on_stop_signal(int sig)
{
    if (!stop_signal)
        stop_signal = sig;
}

static const char *signal_name(int sig)
{
    switch (sig) {
    case SIGINT: return "SIGINT";
    case SIGTERM: return "SIGTERM";
    case SIGHUP: return "SIGHUP";
    case SIGPIPE: return "SIGPIPE";
    default: return "a signal";
    }
}

// Catches the stop signals, except those ignored when the tool started (background jobs
// ignore SIGINT, nohup SIGHUP): they stay ignored.
static void catch_stop_signals(void)
{
    for (size_t i = 0; i < sizeof stop_signals / sizeof stop_signals[0]; i++) {
        struct sigaction old, act;
        if (sigaction(stop_signals[i], NULL, &old) != 0 || old.sa_handler == SIG_IGN)
            continue;
        memset(&act, 0, sizeof act);
        act.sa_handler = on_stop_signal;
        sigemptyset(&act.sa_mask);
        sigaction(stop_signals[i], &act, NULL);
    }
}

static double now_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int bad_input(const char *fmt, const char *a, const char *b)
{
    fputs("dirac simulate: error: ", stderr);
    fprintf(stderr, fmt, a, b);
    fputc('\n', stderr);
    return EXIT_BAD_INPUT;
}

static void print_message(const char *prefix, const char *msg)
{
    char said[2048];
    msg = cli_library_message(msg, said, sizeof said);   // options.dt -> --dt
    fprintf(stderr, "dirac simulate: %s%s", prefix, msg);
    if (!*msg || msg[strlen(msg) - 1] != '\n')
        fputc('\n', stderr);
}

static int parse_args(int argc, char **argv, sim_args *a)
{
    memset(a, 0, sizeof *a);
    for (int i = 1; i < argc; i++) {
        const char *arg = argv[i], *value = NULL;
        if (cli_take_option(argc, argv, &i, "-p", &value) ||
            cli_take_option(argc, argv, &i, "--parameter", &value)) {
            if (!value)
                return bad_input("%s needs NAME=VALUE", arg, NULL);
            if (a->override_count == MAX_OVERRIDES)
                return bad_input("too many -p options (at most 256)", NULL, NULL);
            a->overrides[a->override_count++] = value;
        } else if (cli_take_option(argc, argv, &i, "--method", &value)) {
            if (!value || !*value)
                return bad_input("--method needs a method name (see 'dirac methods')", NULL,
                                 NULL);
            a->method = value;
        } else if (cli_take_option(argc, argv, &i, "--dt", &value)) {
            if (!value || cli_parse_real(value, &a->dt))
                return bad_input("--dt needs a number, got '%s'", value ? value : "", NULL);
            if (!(a->dt > 0))
                return bad_input("--dt must be positive, got %s", value, NULL);
            a->has_dt = 1;
        } else if (cli_take_option(argc, argv, &i, "--t-end", &value)) {
            if (!value || cli_parse_real(value, &a->t_end))
                return bad_input("--t-end needs a number, got '%s'", value ? value : "", NULL);
            if (a->t_end < 0)
                return bad_input("--t-end must not be negative, got %s", value, NULL);
            a->has_t_end = 1;
        } else if (cli_take_option(argc, argv, &i, "--every", &value)) {
            if (!value || cli_parse_count(value, &a->every))
                return bad_input("--every needs a positive integer, got '%s'",
                                 value ? value : "", NULL);
            a->has_every = 1;
        } else if (cli_take_option(argc, argv, &i, "--tol", &value)) {
            if (!value || cli_parse_real(value, &a->tol) || !(a->tol > 0))
                return bad_input("--tol needs a positive number, got '%s'", value ? value : "",
                                 NULL);
            a->has_tol = 1;
        } else if (cli_take_option(argc, argv, &i, "--rtol", &value) ||
                   cli_take_option(argc, argv, &i, "--atol", &value)) {
            double *target = !strncmp(arg, "--rtol", 6) ? &a->rtol : &a->atol;
            if (!value || cli_parse_real(value, target) || !(*target > 0))
                return bad_input("%s needs a positive number, got '%s'",
                                 !strncmp(arg, "--rtol", 6) ? "--rtol" : "--atol",
                                 value ? value : "");
        } else if (cli_take_option(argc, argv, &i, "--max-steps", &value)) {
            if (!value || cli_parse_count(value, &a->max_steps))
                return bad_input("--max-steps needs a positive integer, got '%s'",
                                 value ? value : "", NULL);
        } else if (cli_take_option(argc, argv, &i, "--max-iter", &value)) {
            if (!value || cli_parse_count(value, &a->max_iter) || a->max_iter > 100000)
                return bad_input("--max-iter needs an integer from 1 to 100000, got '%s'",
                                 value ? value : "", NULL);
            a->has_max_iter = 1;
        } else if (cli_take_option(argc, argv, &i, "--out", &value) ||
                   cli_take_option(argc, argv, &i, "-o", &value)) {
            if (!value || !*value)
                return bad_input("%s needs a file name (or - for standard output)", arg, NULL);
            a->out = value;
        } else if (cli_take_option(argc, argv, &i, "--summary", &value)) {
            if (!value || !*value)
                return bad_input("--summary needs a file name (or - for standard output)", NULL,
                                 NULL);
            a->summary = value;
        } else if (cli_take_option(argc, argv, &i, "--plot", &value)) {
            if (!value || !*value)
                return bad_input("--plot needs a file name ending in .png or .svg", NULL, NULL);
            a->plot = value;
        } else if (cli_take_option(argc, argv, &i, "--inputs", &value)) {
            if (!value || !*value)
                return bad_input("--inputs needs a CSV file (columns t and input names)", NULL,
                                 NULL);
            a->inputs = value;
        } else if (cli_take_option(argc, argv, &i, "--inputs-interp", &value)) {
            if (value && !strcmp(value, "linear"))
                a->inputs_interp = INPUT_LINEAR;
            else if (value && !strcmp(value, "step"))
                a->inputs_interp = INPUT_STEP;
            else
                return bad_input("--inputs-interp is 'linear' or 'step', got '%s'",
                                 value ? value : "", NULL);
        } else if (cli_take_option(argc, argv, &i, "--save-state", &value) ||
                   cli_take_option(argc, argv, &i, "--initial-state", &value)) {
            int save = !strncmp(arg, "--save-state", 12);
            if (!value || !*value || !strcmp(value, "-"))
                return bad_input("%s needs a file name", save ? "--save-state" : "--initial-state",
                                 NULL);
            *(save ? &a->save_state : &a->initial_state) = value;
        } else if (cli_take_option(argc, argv, &i, "--save-every", &value)) {
            if (!value || cli_parse_real(value, &a->save_every) || !(a->save_every > 0))
                return bad_input("--save-every needs a positive time, got '%s'",
                                 value ? value : "", NULL);
        } else if (cli_take_option(argc, argv, &i, "--output-times", &value)) {
            if (!value || !*value)
                return bad_input("--output-times needs A:H:B, T1,T2,... or a file of times",
                                 NULL, NULL);
            a->output_times_arg = value;
        } else if (cli_take_option(argc, argv, &i, "--max-model-memory", &value)) {
            if (!value || cli_parse_bytes(value, &a->max_model_memory))
                return bad_input("--max-model-memory needs a size in bytes (suffixes K, M, G), "
                                 "got '%s'", value ? value : "", NULL);
        } else if (cli_take_option(argc, argv, &i, "--codegen", &value)) {
            if (cli_parse_codegen(value, &a->codegen))
                return bad_input("--codegen is 'auto' or 'off', got '%s'", value ? value : "",
                                 NULL);
        } else if (cli_take_option(argc, argv, &i, "--max-wall", &value)) {
            if (!value || cli_parse_real(value, &a->max_wall) || !(a->max_wall > 0))
                return bad_input("--max-wall needs a positive number of seconds, got '%s'",
                                 value ? value : "", NULL);
        } else if (!strcmp(arg, "--force")) {
            a->force = 1;
        } else if (!strcmp(arg, "--project-initial")) {
            a->project_initial = 1;
        } else if (!strcmp(arg, "--strict")) {
            a->strict = 1;
        } else if (!strcmp(arg, "--quiet") || !strcmp(arg, "-q")) {
            a->quiet = 1;
        } else if (!strcmp(arg, "--help") || !strcmp(arg, "-h")) {
            fputs(usage, stdout);
            return -1;
        } else if (arg[0] == '-' && arg[1] != '\0') {
            return bad_input("unknown option '%s' (see 'dirac simulate --help')", arg, NULL);
        } else if (a->path) {
            return bad_input("more than one model file given ('%s' and '%s')", a->path, arg);
        } else {
            a->path = arg;
        }
    }
    if (!a->path) {
        fputs(usage, stderr);
        return EXIT_BAD_INPUT;
    }
    if (a->out && a->summary && !strcmp(a->out, "-") && !strcmp(a->summary, "-"))
        return bad_input("--out - and --summary - cannot both use standard output", NULL, NULL);
    if ((a->out && !strcmp(a->out, a->path)) || (a->summary && !strcmp(a->summary, a->path)))
        return bad_input("refusing to overwrite the model file '%s' with the output", a->path,
                         NULL);
    if (a->out && a->summary && strcmp(a->out, "-") && !strcmp(a->out, a->summary))
        return bad_input("--out and --summary name the same file '%s'", a->out, NULL);
    if (a->save_every > 0 && !a->save_state)
        return bad_input("--save-every needs --save-state FILE (where to write)", NULL, NULL);
    if (a->output_times_arg && a->has_every)
        return bad_input("--output-times and --every both choose the rows: give one", NULL,
                         NULL);
    if (a->output_times_arg) {
        char message[512];
        if (output_times_parse(a->output_times_arg, &a->times, message, sizeof message))
            return bad_input("%s", message, NULL);
    }
    return 0;
}

static int method_exists(const char *name)
{
    if (!strcmp(name, "auto"))
        return 1;
    for (int i = 0; i < dirac_method_count(); i++)
        if (!strcmp(dirac_method(i)->name, name))
            return 1;
    return 0;
}

static void list_methods(FILE *out)
{
    fputs("auto", out);
    for (int i = 0; i < dirac_method_count(); i++)
        fprintf(out, ", %s", dirac_method(i)->name);
}

// Reads the --initial-state file and takes the saved run's settings; settings given on the
// command line must be the saved ones (a restart continues the same run).
static int load_saved_state(sim_args *a, const dirac_model *model)
{
    char message[1024];
    if (state_file_read(a->initial_state, model, &a->saved, message, sizeof message)) {
        print_message("error: ", message);
        return EXIT_BAD_INPUT;
    }
    const state_settings *saved = &a->saved.settings;
    const char *conflict = NULL;
    char given[64] = "", kept[64] = "";
    if (a->method && strcmp(a->method, saved->method)) {
        conflict = "--method";
        snprintf(given, sizeof given, "%s", a->method);
        snprintf(kept, sizeof kept, "%s", saved->method);
    }
    const struct {
        const char *option;
        int given;
        double value, saved;
    } numbers[] = {
        { "--dt", a->has_dt, a->dt, saved->dt },
        { "--rtol", a->rtol > 0, a->rtol, saved->rtol },
        { "--atol", a->atol > 0, a->atol, saved->atol },
        { "--tol", a->has_tol, a->tol, saved->tol },
        { "--max-iter", a->has_max_iter, (double)a->max_iter, (double)saved->max_iter },
    };
    for (size_t k = 0; !conflict && k < sizeof numbers / sizeof numbers[0]; k++)
        if (numbers[k].given && numbers[k].value != numbers[k].saved) {
            conflict = numbers[k].option;
            snprintf(given, sizeof given, "%.17g", numbers[k].value);
            snprintf(kept, sizeof kept, "%.17g", numbers[k].saved);
        }
    if (conflict) {
        fprintf(stderr, "dirac simulate: error: %s %s differs from the run saved in '%s' (%s); "
                        "a restart continues that run with its method, step and tolerances: "
                        "leave %s out\n",
                conflict, given, a->initial_state, kept, conflict);
        return EXIT_BAD_INPUT;
    }
    a->method = saved->method;
    a->dt = saved->dt, a->has_dt = 1;
    a->rtol = saved->rtol, a->atol = saved->atol;
    a->tol = saved->tol, a->has_tol = 1;   // 0: the library's default, as in the saved run
    a->max_iter = saved->max_iter, a->has_max_iter = 1;
    return 0;
}

// How far a node's time may lie from a requested output time and still be that time: the
// rounding of t = k dt (fixed steps) or of t + (tau - t) (adaptive steps landing on tau).
static double time_tolerance(double tau, double h)
{
    return 64 * DBL_EPSILON * (fabs(tau) + h);
}

// Output times lie at or after the start (a restarted run skips those before its saved time)
// and, with fixed steps, on the grid t = k dt. Prints the reason and returns -1 otherwise.
static int check_output_times(const sim_args *a, const sim_settings *s)
{
    const double *t = a->times.t;
    if (!a->initial_state && t[0] < s->t_start - time_tolerance(s->t_start, s->dt)) {
        fprintf(stderr, "dirac simulate: error: output time %.15g is before the start t = %g\n",
                t[0], s->t_start);
        return -1;
    }
    if (a->rtol > 0 || a->atol > 0)
        return 0;
    for (long i = 0; i < a->times.count; i++) {
        double k = nearbyint(t[i] / s->dt);
        if (fabs(t[i] - k * s->dt) <= time_tolerance(t[i], s->dt))
            continue;
        double below = floor(t[i] / s->dt) * s->dt;
        fprintf(stderr, "dirac simulate: error: output time %.15g is not a node of the fixed "
                        "steps (t = k dt, dt = %g; the nodes around it are %.15g and %.15g): "
                        "fixed-step runs write rows at their nodes only (a shortened step would "
                        "make the solution depend on the output times and give up the equal "
                        "steps the methods' properties rest on); choose dt so that the times "
                        "are nodes, or give --rtol/--atol: adaptive steps land on every output "
                        "time\n",
                t[i], s->dt, below, below + s->dt);
        return -1;
    }
    return 0;
}

// Merges the model's `simulate` line and the command line; prints the reason on failure.
static int resolve_settings(const dirac_model *model, const sim_args *a, sim_settings *s)
{
    dirac_simulate_defaults d;
    memset(&d, 0, sizeof d);
    dirac_model_simulate_defaults(model, &d);
    s->method = a->method ? a->method : d.has_method && d.method ? d.method : "auto";
    if (!method_exists(s->method)) {
        fprintf(stderr, "dirac simulate: error: unknown method '%s'%s (available: ", s->method,
                a->method ? "" : " in the model's simulate line");
        list_methods(stderr);
        fputs("; see 'dirac methods')\n", stderr);
        return EXIT_BAD_INPUT;
    }
    if (a->has_dt)
        s->dt = a->dt;
    else if (d.has_dt)
        s->dt = d.dt;
    else
        return bad_input("no step size: give --dt H or 'simulate dt = H' in the model", NULL,
                         NULL);
    if (!(s->dt > 0) || !isfinite(s->dt)) {
        fprintf(stderr, "dirac simulate: error: the model's simulate line sets dt = %g; the step "
                        "must be positive\n", s->dt);
        return EXIT_BAD_INPUT;
    }
    if (a->has_t_end)
        s->t_end = a->t_end;
    else if (a->times.count > 0)   // the run ends at the last output time
        s->t_end = a->times.t[a->times.count - 1];
    else if (d.has_t_end)
        s->t_end = d.t_end;
    else
        return bad_input("no final time: give --t-end T or 'simulate t_end = T' in the model",
                         NULL, NULL);
    if (!(s->t_end >= 0) || !isfinite(s->t_end)) {
        fprintf(stderr, "dirac simulate: error: the model's simulate line sets t_end = %g; the "
                        "final time must not be negative\n", s->t_end);
        return EXIT_BAD_INPUT;
    }
    if (a->has_every)
        s->every = a->every;
    else if (d.has_every)
        s->every = d.every;
    else
        s->every = 1;
    if (s->every < 1) {
        fprintf(stderr, "dirac simulate: error: the model's simulate line sets every = %ld; it "
                        "must be a positive integer\n", s->every);
        return EXIT_BAD_INPUT;
    }
    s->tol = a->has_tol ? a->tol : d.has_tol ? d.tol : 0;
    if (!a->has_tol && d.has_tol && !(d.tol > 0 && isfinite(d.tol))) {
        fprintf(stderr, "dirac simulate: error: the model's simulate line sets tol = %g; it must "
                        "be a positive number\n", d.tol);
        return EXIT_BAD_INPUT;
    }
    s->max_iter = a->has_max_iter ? a->max_iter : d.has_max_iter ? d.max_iter : 0;
    if (!a->has_max_iter && d.has_max_iter && (d.max_iter < 1 || d.max_iter > 100000)) {
        fprintf(stderr, "dirac simulate: error: the model's simulate line sets max_iter = %d; it "
                        "must be an integer from 1 to 100000\n", d.max_iter);
        return EXIT_BAD_INPUT;
    }
    // ceil(t_end/dt - 1e-9), with a relative allowance for the rounding of the quotient
    double n = s->t_end / s->dt;
    if (n > 1e12) {
        fprintf(stderr, "dirac simulate: error: t_end/dt = %.3g steps is too many (at most "
                        "1e12)\n", n);
        return EXIT_BAD_INPUT;
    }
    double steps = ceil(n - 1e-9 - 1e-12 * n);
    s->steps = steps > 0 ? (long)steps : 0;
    if (s->steps == 0 && s->t_end > 0) {   // a run of no step is not a result
        fprintf(stderr, "dirac simulate: error: the step dt = %g is so much longer than the "
                        "interval t_end = %g that no step would be taken\n", s->dt, s->t_end);
        return EXIT_BAD_INPUT;
    }
    if (a->initial_state) {   // the run goes on from the saved step to the absolute t_end
        s->first_step = a->saved.steps;
        s->t_start = a->saved.t;
        int adaptive = a->rtol > 0 || a->atol > 0;
        if (adaptive ? s->t_end < s->t_start : s->steps < s->first_step) {
            fprintf(stderr, "dirac simulate: error: t_end = %.17g is before the saved state's "
                            "time t = %.17g ('%s'); --t-end is the absolute final time\n",
                    s->t_end, s->t_start, a->initial_state);
            return EXIT_BAD_INPUT;
        }
        s->steps -= s->first_step;
    }
    s->span = a->rtol > 0 || a->atol > 0 ? s->t_end - s->t_start : (double)s->steps * s->dt;
    if (a->times.count > 0 && a->times.t[a->times.count - 1] > s->t_end) {
        fprintf(stderr, "dirac simulate: error: output time %.15g is after t_end = %.15g\n",
                a->times.t[a->times.count - 1], s->t_end);
        return EXIT_BAD_INPUT;
    }
    if (a->times.count > 0 && check_output_times(a, s))
        return EXIT_BAD_INPUT;
    if (a->max_steps > 0 && !(a->rtol > 0 || a->atol > 0) && s->steps > a->max_steps) {
        fprintf(stderr, "dirac simulate: error: t_end/dt = %ld steps is more than --max-steps "
                        "%ld\n", s->steps, a->max_steps);
        return EXIT_BAD_INPUT;
    }
    return 0;
}

// Loads, overrides and compiles; prints the spec's message on failure.
static int load_model(const sim_args *a, dirac_spec **spec, dirac_model **model)
{
    dirac_status status;
    if (spice_is_netlist(a->path)) {   // a SPICE netlist: its model (docs/circuits.md)
        char *text = NULL, *message = NULL;
        if (spice_import(a->path, &text, &message) != 0) {
            fputs(message ? message : "error: out of memory\n", stderr);
            free(message);
            return EXIT_BAD_INPUT;
        }
        status = dirac_spec_parse(a->path, text, strlen(text), spec);
        free(text);
    } else {
        status = dirac_spec_load(a->path, spec);
    }
    if (status == DIRAC_OK)
        status = dirac_spec_set_memory_limit(*spec, a->max_model_memory);
    if (status == DIRAC_OK)
        status = dirac_spec_set_codegen(*spec, a->codegen);
    for (int k = 0; status == DIRAC_OK && k < a->override_count; k++)
        status = dirac_spec_set_parameter(*spec, a->overrides[k]);
    if (status == DIRAC_OK)
        status = dirac_model_compile(*spec, model);
    if (status == DIRAC_OK)
        return 0;
    const char *msg = *spec ? dirac_spec_errmsg(*spec) : "";
    if (!*msg)
        msg = status == DIRAC_ERR_NOMEM ? "dirac simulate: error: out of memory"
                                        : dirac_status_string(status);
    fputs(msg, stderr);
    if (msg[strlen(msg) - 1] != '\n')
        fputc('\n', stderr);
    return cli_exit_of_input_status(status);
}

// Refuses, without --force, a run whose CSV would be larger than CSV_SIZE_LIMIT (adaptive runs
// cannot be estimated: their step count is not known before).
static int check_csv_size(const dirac_model *m, const sim_settings *s, const sim_args *a)
{
    if (a->force || a->rtol > 0 || a->atol > 0)
        return 0;
    double steps = (double)s->steps;
    if (a->max_steps > 0 && (double)a->max_steps < steps)
        steps = (double)a->max_steps;
    double rows = floor(steps / (double)s->every) + 2;
    double columns = (double)dirac_model_column_count(m);
    double bytes = rows * columns * CSV_FIELD_BYTES_MAX;
    if (bytes <= CSV_SIZE_LIMIT)
        return 0;
    fprintf(stderr, "dirac simulate: error: the run would write up to %.3g GB of CSV (%.0f rows "
                    "of %.0f columns; the limit is %.0f GB): write fewer rows with --every K, "
                    "take fewer steps, or give --force\n",
            bytes / 1e9, rows, columns, CSV_SIZE_LIMIT / 1e9);
    return EXIT_BAD_INPUT;
}

// Refuses outputs that would replace the model, one of its component files, or each other
// (compared as files: device and inode, and as canonical names when they do not exist yet).
// names[i] is the file of option options[i] (NULL or "-": none). 0 or EXIT_BAD_INPUT.
static int check_outputs(const dirac_spec *spec, const char *const *names,
                         const char *const *options, int count)
{
    for (int i = 0; i < count; i++) {
        if (!names[i] || !strcmp(names[i], "-"))
            continue;
        for (int f = 0; f < dirac_spec_file_count(spec); f++)
            if (output_same_file(names[i], dirac_spec_file(spec, f))) {
                fprintf(stderr, "dirac simulate: error: refusing to overwrite the %s file '%s' "
                                "with %s '%s'\n", f == 0 ? "model" : "component",
                        dirac_spec_file(spec, f), options[i], names[i]);
                return EXIT_BAD_INPUT;
            }
        for (int j = 0; j < i; j++) {
            if (!names[j] || !strcmp(names[j], "-"))
                continue;
            char *a = output_canonical_path(names[i]), *b = output_canonical_path(names[j]);
            int same = (a && b && !strcmp(a, b)) || output_same_file(names[i], names[j]);
            free(a);
            free(b);
            if (same) {
                fprintf(stderr, "dirac simulate: error: %s '%s' and %s '%s' name the same "
                                "file\n", options[j], names[j], options[i], names[i]);
                return EXIT_BAD_INPUT;
            }
        }
    }
    return 0;
}

// The header row: the names of the run's columns (dirac_model_column_name).
static int write_header(csv_writer *w, const dirac_model *m)
{
    for (int k = 0; k < dirac_model_column_count(m); k++) {
        char *name = column_name_dup(m, k);
        if (!name)
            return -1;
        csv_name(w, NULL, name, NULL);
        free(name);
    }
    csv_end_row(w);
    return 0;
}

static void write_row(csv_writer *w, const double *row, int columns)
{
    for (int i = 0; i < columns; i++)
        csv_number(w, row[i]);
    csv_end_row(w);
}

static double total_entropy(const dirac_model *m, const dirac_sim *sim)
{
    const double *s = dirac_sim_s(sim);
    double total = 0;
    for (int i = 0; i < dirac_model_entropy_count(m); i++)
        total += s[i];
    return total;
}

// A single updating line on stderr, shown only on a terminal once the run has lasted 2 s.
typedef struct progress {
    int enabled, shown;
    double start, last;
} progress;

static void format_duration(char *buf, size_t size, double seconds)
{
    double s = floor(seconds + 0.5);
    if (s < 60)
        snprintf(buf, size, "%.0f s", s);
    else if (s < 3600)
        snprintf(buf, size, "%.0f min %02.0f s", floor(s / 60), fmod(s, 60));
    else
        snprintf(buf, size, "%.0f h %02.0f min", floor(s / 3600), floor(fmod(s, 3600) / 60));
}

static void progress_update(progress *p, double now, long k, long steps, double t)
{
    double elapsed = now - p->start;
    if (!p->enabled || elapsed < 2 || now - p->last < 0.25)
        return;
    p->last = now;
    char eta[32];
    format_duration(eta, sizeof eta, elapsed * (double)(steps - k) / (double)k);
    fprintf(stderr, "\rdirac simulate: %3.0f%%  t = %-11.5g  ETA %-14s",
            100.0 * (double)k / (double)steps, t, eta);
    p->shown = 1;
}

static void progress_clear(progress *p)
{
    if (p->shown)
        fprintf(stderr, "\r%*s\r", 79, "");
    p->shown = 0;
}

// Returns 0 or the errno value of a failed write.
static int write_summary(FILE *f, const sim_args *a, const sim_settings *s, const sim_stats *st,
                          const dirac_model *m, const dirac_sim *sim, const char *csv_path)
{
    json_writer w;
    json_begin(&w, f);
    json_object(&w, NULL);
    json_string(&w, "model", dirac_model_name(m));
    json_string(&w, "model_file", a->path);
    json_array(&w, "parameters");
    for (int k = 0; k < a->override_count; k++)
        json_string(&w, NULL, a->overrides[k]);
    json_end(&w);
    // the method that ran (auto: the one chosen for the model's class) and the one asked for
    json_string(&w, "method", sim ? dirac_sim_method(sim) : s->method);
    json_string(&w, "method_requested", s->method);
    json_string(&w, "method_reason", sim ? dirac_sim_method_reason(sim) : NULL);
    json_string(&w, "status", st->failed        ? "failed"
                              : st->interrupted ? "interrupted"
                              : st->stopped     ? "stopped"
                                                : "ok");
    // the summary keeps the library's words (as dirac.Simulation's summary in Python does);
    // the messages on stderr show the tool's flags (print_message)
    json_string(&w, "error", st->error);
    json_number(&w, "dt", s->dt);
    json_integer(&w, "steps", st->run.steps);
    json_integer(&w, "steps_planned", s->steps);
    if (a->rtol > 0 || a->atol > 0) {
        // adaptive: the accepted step sizes' range and the rejected trial steps
        json_number(&w, "adaptive_rtol", a->rtol);
        json_number(&w, "adaptive_atol", a->atol);
        json_number(&w, "step_size_min", st->run.steps > 0 ? st->run.step_size_min : missing);
        json_number(&w, "step_size_max", st->run.steps > 0 ? st->run.step_size_max : missing);
        json_integer(&w, "rejected_steps", sim ? dirac_sim_rejected_steps(sim) : 0);
    }
    json_number(&w, "t_end", s->t_end);
    if (sim)
        json_number(&w, "t_final", dirac_sim_time(sim));
    else
        json_null(&w, "t_final");
    json_integer(&w, "every", s->every);
    json_string(&w, "csv", csv_path);
    json_integer(&w, "rows", st->rows);
    json_number(&w, "wall_seconds", st->wall_seconds);
    cli_json_evaluation(&w, m);
    json_number(&w, "projection_distance", sim ? st->run.projection_distance : missing);
    json_number(&w, "newton_iterations_mean",
                st->run.steps > 0 ? (double)st->run.newton_iterations_sum / (double)st->run.steps : missing);
    json_integer(&w, "newton_iterations_max", st->run.newton_iterations_max);
    json_integer(&w, "newton_failures", st->run.newton_failures);
    json_number(&w, "constraint_residual_max", sim ? st->run.constraint_residual_max : missing);
    json_number(&w, "velocity_constraint_residual_max", sim ? st->run.velocity_constraint_residual_max : missing);
    json_number(&w, "energy_initial", sim ? st->run.energy_initial : missing);
    json_number(&w, "energy_final", sim ? dirac_sim_energy(sim) : missing);
    json_number(&w, "work", sim ? dirac_sim_work(sim) - st->run.work_initial : missing);
    json_number(&w, "energy_error_max", sim ? st->run.energy_error_max : missing);
    int ns = dirac_model_entropy_count(m);
    json_number(&w, "entropy_initial", sim && ns > 0 ? st->run.entropy_initial : missing);
    json_number(&w, "entropy_final", sim && ns > 0 ? total_entropy(m, sim) : missing);
    json_number(&w, "entropy_step_min", sim && ns > 0 && st->run.steps > 0
                                            ? st->run.entropy_step_min : missing);
    int ni = dirac_model_interaction_count(m);
    json_array(&w, "interactions");
    for (int k = 0; k < ni; k++)
        json_string(&w, NULL, dirac_model_interaction_name(m, k));
    json_end(&w);
    json_number(&w, "interaction_power_max", sim && ni > 0 ? st->run.interaction_power_max : missing);
    if (st->with_energy) {   // a netlist: W_E = ∫ p_E dt absorbed by each element
        const element_energy *e = &st->energy;
        double sum = 0;
        json_object(&w, "element_energy");
        for (int k = 0; k < e->count; k++) {
            json_number(&w, e->name[k], e->energy[k]);
            sum += e->energy[k];
        }
        json_end(&w);
        json_number(&w, "element_energy_sum", sum);
    }
    // the run's errors relative to the model's scales, and the warnings they raise
    dirac_sim_quality quality;
    memset(&quality, 0, sizeof quality);
    if (sim)
        dirac_sim_quality_get(sim, &quality);
    json_number(&w, "energy_error_relative", sim ? quality.energy_error : missing);
    json_number(&w, "constraint_error_relative",
                sim && dirac_model_constraint_count(m) > 0 ? quality.constraint_error : missing);
    json_number(&w, "velocity_constraint_error_relative",
                sim && dirac_model_constraint_count(m) > 0 ? quality.velocity_constraint_error
                                                            : missing);
    json_number(&w, "entropy_decrease_relative", sim && ns > 0 ? quality.entropy_decrease : missing);
    json_array(&w, "warnings");
    for (int k = 0, count = sim ? dirac_sim_warning_count(sim) : 0; k < count; k++)
        json_string(&w, NULL, dirac_sim_warning(sim, k));
    json_end(&w);
    if (sim) {
        int n = dirac_model_coordinate_count(m);
        const double *q = dirac_sim_q(sim), *v = dirac_sim_v(sim), *p = dirac_sim_p(sim);
        const double *sv = dirac_sim_s(sim);
        json_object(&w, "final_state");
        for (int i = 0; i < n; i++)
            json_number_named(&w, NULL, dirac_model_coordinate_name(m, i), NULL, q[i]);
        for (int i = 0; i < n; i++)
            json_number_named(&w, NULL, dirac_model_coordinate_name(m, i), "'", v[i]);
        for (int i = 0; i < n; i++)
            json_number_named(&w, "p.", dirac_model_coordinate_name(m, i), NULL, p[i]);
        for (int i = 0; i < ns; i++)
            json_number_named(&w, "S.", dirac_model_entropy_name(m, i), NULL, sv[i]);
        json_end(&w);
    } else {
        json_null(&w, "final_state");
    }
    json_end(&w);
    return json_finish(&w);
}

// Writes the summary to a.summary ("-": stdout) whole (output_file.h); returns 0 or prints
// the reason and returns EXIT_FAILED.
static int emit_summary(const sim_args *a, const sim_settings *s, const sim_stats *st,
                        const dirac_model *m, const dirac_sim *sim, const char *csv_path)
{
    if (!a->summary)
        return 0;
    output_file out;
    int error = output_open(&out, a->summary);
    if (!error)
        error = output_commit(&out, write_summary(out.file, a, s, st, m, sim, csv_path));
    if (error) {
        fprintf(stderr, "dirac simulate: error: writing the summary '%s' failed: %s\n",
                a->summary, strerror(error));
        return EXIT_FAILED;
    }
    return 0;
}

// Output times: writes the rows of the times the current node stands for (the time column
// is the requested time), from a->times.t[*next] on; times it passed without a node are a bug
// of the landing and end the run (-1).
static int write_output_rows(dirac_run *r, const dirac_sim *sim, const sim_args *a, double h,
                             long *next, csv_writer *csv, double *row, int columns,
                             sim_stats *st)
{
    double t = dirac_sim_time(sim);
    const output_times *times = &a->times;
    while (*next < times->count && times->t[*next] <= t + time_tolerance(t, h)) {
        double tau = times->t[*next];
        if (tau < t - time_tolerance(tau, h)) {
            snprintf(st->stop_message, sizeof st->stop_message,
                     "internal error: the run passed output time %.17g without a node (now at "
                     "t = %.17g)", tau, t);
            return -1;
        }
        dirac_run_row(r, row);
        row[0] = tau;
        write_row(csv, row, columns);
        st->rows++;
        ++*next;
    }
    return 0;
}

// Writes the simulation's state to --save-state; 0, or prints the reason and returns
// EXIT_FAILED.
static int save_state(const dirac_model *m, uint64_t model_hash, const dirac_sim *sim,
                      const sim_settings *s, const sim_args *a)
{
    state_settings settings = { dirac_sim_method(sim), s->dt, a->rtol, a->atol, s->tol,
                                s->max_iter };
    char message[1024];
    if (state_file_write(a->save_state, m, model_hash, sim, &settings, message,
                         sizeof message)) {
        print_message("error: ", message);
        return EXIT_FAILED;
    }
    return 0;
}

// The time loop: writes rows as it goes, gathers statistics; returns the exit status.
static int run(const dirac_model *m, dirac_sim *sim, const sim_settings *s, const sim_args *a,
               csv_writer *csv, output_file *csv_file, const char *csv_path, sim_stats *st)
{
    int columns = dirac_model_column_count(m);
    double *row = malloc((size_t)columns * sizeof *row);
    dirac_run *r = NULL;
    dirac_error err;
    memset(&err, 0, sizeof err);
    long every = a->times.count > 0 ? LONG_MAX : s->every;   // output times: rows below
    dirac_status created = row ? dirac_run_create(sim, s->span, every, &r, &err)
                               : DIRAC_ERR_NOMEM;
    if (created == DIRAC_OK && (a->rtol > 0 || a->atol > 0))
        dirac_run_set_final_time(r, s->t_end);   // absolute: a restarted run lands there too
    if (created != DIRAC_OK) {
        free(row);
        output_discard(csv_file);
        print_message("error: ", created == DIRAC_ERR_NOMEM ? "out of memory" : err.message);
        return created == DIRAC_ERR_NOMEM ? EXIT_OUT_OF_MEMORY : EXIT_FAILED;
    }
    // a netlist's summary: each element's energy, integrated over every node of the run
    double *node = NULL;
    if (a->summary && spice_is_netlist(a->path)) {
        node = malloc((size_t)columns * sizeof *node);
        if (!node || element_energy_init(&st->energy, m)) {
            free(node);
            free(row);
            dirac_run_destroy(r);
            output_discard(csv_file);
            print_message("error: ", "out of memory");
            return EXIT_OUT_OF_MEMORY;
        }
        st->with_energy = 1;
        dirac_run_row(r, node);
        element_energy_add(&st->energy, node);
    }
    progress prog = { 0 };
    prog.enabled = isatty(fileno(stderr)) && s->steps > 0;
    prog.start = now_seconds();
    double last_flush = prog.start;

    if (write_header(csv, m)) {
        free(row);
        dirac_run_destroy(r);
        output_discard(csv_file);
        print_message("error: ", "out of memory");
        return EXIT_OUT_OF_MEMORY;
    }
    if (a->table.rows > 0)   // inputs at the initial node, then at the start of each step
        input_table_apply(&a->table, sim, dirac_sim_time(sim));
    int with_times = a->times.count > 0;
    long next_time = 0;   // the first output time not written yet
    st->rows = 0;
    if (with_times) {   // a restarted run skips the times before its start
        double t0 = dirac_sim_time(sim);
        while (next_time < a->times.count &&
               a->times.t[next_time] < t0 - time_tolerance(t0, s->dt))
            next_time++;
        write_output_rows(r, sim, a, s->dt, &next_time, csv, row, columns, st);
    } else {
        dirac_run_row(r, row);
        write_row(csv, row, columns);
        st->rows = 1;
    }

    int rc = 0;
    int adaptive = a->rtol > 0 || a->atol > 0;
    double next_save = dirac_sim_time(sim) + a->save_every;   // --save-every
    // the model's hash in every state written (checkpoints and the end): once per run (a
    // restarted run checked it against its state file already)
    uint64_t model_hash = !a->save_state     ? 0
                          : a->initial_state ? a->saved.model_hash
                                             : state_file_model_hash(m);
    long max_steps = a->max_steps > 0 ? a->max_steps : DEFAULT_MAX_STEPS;
    double t_final = adaptive ? s->t_end : dirac_sim_time(sim) + s->span;
    static char cap_message[256];
    while (!dirac_run_finished(r)) {
        // a terminating signal (Ctrl-C, kill, timeout, a closed pipe) ends the run here
        if (stop_signal) {
            st->interrupted = 1;
            break;
        }
        if (a->max_wall > 0 && now_seconds() - prog.start > a->max_wall) {
            st->stopped = 1;
            snprintf(st->stop_message, sizeof st->stop_message,
                     "stopped by --max-wall %g s at t = %.10g (step %ld) before t_end = %g",
                     a->max_wall, dirac_sim_time(sim), dirac_run_statistics(r)->steps,
                     s->t_end);
            st->error = st->stop_message;
            rc = EXIT_FAILED;
            break;
        }
        if (adaptive && dirac_run_statistics(r)->steps >= max_steps) {
            snprintf(cap_message, sizeof cap_message,
                     "the adaptive run reached --max-steps = %ld at t = %.10g of %.10g (last "
                     "step %.3e); loosen --rtol/--atol or raise --max-steps",
                     max_steps, dirac_sim_time(sim), t_final, dirac_sim_last_step_size(sim));
            st->failed = 1;
            st->error = cap_message;
            rc = EXIT_FAILED;
            break;
        }
        long written = 0;
        if (a->table.rows > 0)
            input_table_apply(&a->table, sim, dirac_sim_time(sim));
        // adaptive steps land on the next output time, then go on with the step wanted
        double wanted = 0;
        if (with_times && adaptive && next_time < a->times.count) {
            double t = dirac_sim_time(sim), tau = a->times.t[next_time];
            double h = dirac_sim_next_step_size(sim);
            if (t + h >= tau - 1e-9 * h && tau > t) {
                wanted = h;
                dirac_sim_set_next_step_size(sim, tau - t);
            }
        }
        dirac_status status = dirac_run_advance(r, 1, row, 1, &written);
        if (node && status == DIRAC_OK) {   // the node's row: the one just written, if any
            if (!written)
                dirac_run_row(r, node);
            element_energy_add(&st->energy, written ? row : node);
        }
        if (with_times && status == DIRAC_OK) {
            double h = adaptive ? dirac_sim_last_step_size(sim) : s->dt;
            long before = next_time;
            if (write_output_rows(r, sim, a, h, &next_time, csv, row, columns, st)) {
                st->failed = 1;
                st->error = st->stop_message;
                rc = EXIT_FAILED;
                break;
            }
            if (wanted > 0 && next_time > before && dirac_sim_next_step_size(sim) < wanted)
                dirac_sim_set_next_step_size(sim, wanted);
            if (csv->error)
                break;
        } else if (written) {
            write_row(csv, row, columns);
            st->rows++;
            if (csv->error)
                break;
        }
        if (status != DIRAC_OK) {
            st->failed = 1;
            st->error = dirac_sim_errmsg(sim);
            if (!st->error || !*st->error)
                st->error = dirac_status_string(status);
            rc = status == DIRAC_ERR_NOMEM ? EXIT_OUT_OF_MEMORY : EXIT_FAILED;
            break;
        }
        if (a->save_every > 0 && dirac_sim_time(sim) >= next_save) {   // a checkpoint
            rc = save_state(m, model_hash, sim, s, a);
            if (rc) {
                st->failed = 1;
                st->error = "writing the state (--save-every) failed";
                break;
            }
            double t = dirac_sim_time(sim), start = s->t_start;
            next_save = start + (floor((t - start) / a->save_every) + 1) * a->save_every;
        }
        long k = dirac_run_statistics(r)->steps;
        if ((k & 15) == 0) {
            double now = now_seconds();
            progress_update(&prog, now, k, s->steps, dirac_sim_time(sim));
            if (now > last_flush + 1) {   // on long runs, push rows out about once a second
                csv_flush(csv);
                last_flush = now;
            }
        }
    }
    progress_clear(&prog);
    // the trajectory ends at the last good step, written or not (output times: only those)
    if (!csv->error && !with_times && dirac_run_finish(r, row)) {
        write_row(csv, row, columns);
        st->rows++;
    }
    st->wall_seconds = now_seconds() - prog.start;
    // the state at the end of the run, also at the last good step of a failed or stopped one
    int state_rc = a->save_state ? save_state(m, model_hash, sim, s, a) : 0;
    st->run = *dirac_run_statistics(r);
    dirac_run_destroy(r);
    free(row);
    free(node);

    int csv_error = csv_finish(csv);
    // a write that failed because of the signal's cause (a closed pipe) is not a write error
    if (stop_signal && !st->failed && !st->stopped && (st->interrupted || csv_error == EPIPE)) {
        st->interrupted = 1;
        if (csv_error == EPIPE)
            csv_error = 0;
    }
    if (st->interrupted) {
        st->signal = stop_signal;
        rc = EXIT_SIGNAL_BASE + st->signal;
    }
    if (st->failed || st->stopped)
        print_message("error: ", st->error);
    else if (st->interrupted)
        fprintf(stderr, "dirac simulate: interrupted by %s at t = %g (step %ld of %ld)\n",
                signal_name(st->signal), dirac_sim_time(sim), st->run.steps, s->steps);
    int in_place = csv_file->temp_path == NULL;
    csv_error = output_commit(csv_file, csv_error);
    if (st->interrupted && st->signal == SIGPIPE)
        csv_error = 0;   // the reader of the pipe went away: not a write error of ours
    if (csv_error) {
        fprintf(stderr, "dirac simulate: error: writing '%s' failed: %s%s\n", csv_path,
                strerror(csv_error),
                in_place ? "" : "; the file was not written (an existing one is unchanged)");
        st->rows = 0;
        if (!rc)
            rc = EXIT_FAILED;
        if (!st->error) {
            st->failed = 1;
            st->error = "writing the CSV file failed";
        }
    } else if (!a->quiet) {
        if (rc == 0)
            fprintf(stderr, "dirac simulate: %s: %ld steps of %s (dt = %g) to t = %.10g in "
                            "%.3g s; %ld rows in %s\n",
                    dirac_model_name(m), st->run.steps, dirac_sim_method(sim), s->dt,
                    dirac_sim_time(sim),
                    st->wall_seconds, st->rows, csv_path);
        else
            fprintf(stderr, "dirac simulate: note: the trajectory up to the last good step "
                            "(t = %.10g, step %ld) is in %s (%ld %s)\n",
                    dirac_sim_time(sim), st->run.steps, csv_path, st->rows,
                    st->rows == 1 ? "row" : "rows");
    }
    if (a->save_state && !state_rc && (rc || st->interrupted) && !a->quiet)
        fprintf(stderr, "dirac simulate: note: the state at t = %.17g (step %ld) is in %s; "
                        "continue with --initial-state %s\n", dirac_sim_time(sim),
                dirac_sim_step_count(sim), a->save_state, a->save_state);
    if (state_rc && !rc)
        rc = state_rc;
    // the run's quality against the model's scales (also of a failed or interrupted run)
    int warnings = dirac_sim_warning_count(sim);
    for (int k = 0; k < warnings; k++)
        print_message("warning: ", dirac_sim_warning(sim, k));
    if (warnings > 0 && a->strict && rc == 0) {
        st->failed = 1;
        st->error = warnings == 1 ? "the run raised a warning and --strict was given"
                                  : "the run raised warnings and --strict was given";
        print_message("error: ", st->error);
        rc = EXIT_FAILED;
    }
    return rc;
}

// Exit status of a failed dirac_sim_create: the model or settings are unusable (2), the
// computation of a consistent initial state failed (3), or memory ran out (4).
static int create_failure_status(dirac_status status)
{
    switch (status) {
    case DIRAC_ERR_NOMEM:
        return EXIT_OUT_OF_MEMORY;
    case DIRAC_ERR_NEWTON:
    case DIRAC_ERR_SINGULAR:
    case DIRAC_ERR_NOT_FINITE:
    case DIRAC_ERR_LINALG:
        return EXIT_FAILED;
    default:
        return EXIT_BAD_INPUT;
    }
}

int cli_simulate(int argc, char **argv)
{
    sim_args a;
    int rc = parse_args(argc, argv, &a);
    if (rc)
        return rc < 0 ? 0 : rc;

    dirac_spec *spec = NULL;
    dirac_model *model = NULL;
    dirac_sim *sim = NULL;
    char *default_out = NULL;
    sim_settings s;
    sim_stats st;
    memset(&s, 0, sizeof s);
    memset(&st, 0, sizeof st);

    if (a.plot && a.out && !strcmp(a.out, "-"))
        return bad_input("--plot draws from the CSV file: it cannot be used with --out -", NULL,
                         NULL);
    if (a.plot && cli_plot_check_output(a.plot, "dirac simulate"))
        return EXIT_BAD_INPUT;

    rc = load_model(&a, &spec, &model);
    if (!rc && a.initial_state)
        rc = load_saved_state(&a, model);
    if (!rc)
        rc = resolve_settings(model, &a, &s);
    if (!rc && a.inputs) {
        char message[1024];
        if (input_table_load(&a.table, a.inputs, model, a.inputs_interp, message,
                             sizeof message)) {
            print_message("error: ", message);
            rc = EXIT_BAD_INPUT;
        }
    }
    if (rc)
        goto done;
    const char *csv_path = a.out;
    if (!csv_path) {
        size_t len = strlen(dirac_model_name(model)) + 5;
        default_out = malloc(len);
        if (!default_out) {
            fputs("dirac simulate: error: out of memory\n", stderr);
            rc = EXIT_OUT_OF_MEMORY;
            goto done;
        }
        snprintf(default_out, len, "%s.csv", dirac_model_name(model));
        csv_path = default_out;
    }
    const char *outputs[4] = { csv_path, a.summary, a.plot, a.save_state };
    const char *output_options[4] = { a.out ? "--out" : "the default output", "--summary",
                                      "--plot", "--save-state" };
    rc = check_outputs(spec, outputs, output_options, 4);
    if (!rc)
        rc = check_csv_size(model, &s, &a);
    if (rc)
        goto done;

    dirac_sim_options options;
    memset(&options, 0, sizeof options);
    options.method = s.method;
    options.dt = s.dt;
    // a restart replaces the initial state: one the constraints do not hold is no obstacle
    options.project_initial = a.project_initial || a.initial_state;
    options.newton_rtol = s.tol;
    options.newton_max_iterations = (int)s.max_iter;
    options.adaptive_rtol = a.rtol;
    options.adaptive_atol = a.atol;
    dirac_error err;
    memset(&err, 0, sizeof err);
    dirac_status status = dirac_sim_create(model, &options, &sim, &err);
    if (status != DIRAC_OK) {
        print_message("error: ", err.message[0] ? err.message : dirac_status_string(status));
        rc = create_failure_status(status);
        if (rc != EXIT_BAD_INPUT && a.summary) {   // a summary of a run that could not start
            st.failed = 1;
            st.error = err.message[0] ? err.message : dirac_status_string(status);
            emit_summary(&a, &s, &st, model, NULL, NULL);
        }
        goto done;
    }
    int adaptive = a.rtol > 0 || a.atol > 0;
    if (a.initial_state) {
        char message[1024];
        if (state_file_restore(&a.saved, a.initial_state, model, sim, message, sizeof message)) {
            print_message("error: ", message);
            rc = EXIT_BAD_INPUT;
            goto done;
        }
    } else if (a.project_initial && dirac_sim_projection_distance(sim) > 0 && !a.quiet) {
        fprintf(stderr, "dirac simulate: note: the initial state was projected onto the "
                        "constraints (moved by %.3e)\n", dirac_sim_projection_distance(sim));
        projection_report(stderr, model, sim);
    }
    double last_node = (double)(s.first_step + s.steps) * s.dt;
    if (!adaptive && s.steps > 0 && fabs(last_node - s.t_end) > 1e-9 * s.dt && !a.quiet)
        fprintf(stderr, "dirac simulate: note: t_end = %g is not a multiple of dt = %g; the last "
                        "of the %ld equal steps ends at t = %.10g\n",
                s.t_end, s.dt, s.first_step + s.steps, last_node);

    // from here on a terminating signal ends the run cleanly
    catch_stop_signals();
    output_file csv_file;
    int open_error = output_open(&csv_file, csv_path);
    if (open_error) {
        fprintf(stderr, "dirac simulate: error: cannot write '%s': %s\n", csv_path,
                strerror(open_error));
        rc = open_error == ENOMEM ? EXIT_OUT_OF_MEMORY : EXIT_BAD_INPUT;
        goto done;
    }
    csv_writer csv;
    csv_begin(&csv, csv_file.file);
    rc = run(model, sim, &s, &a, &csv, &csv_file, csv_path, &st);
    int summary_rc = emit_summary(&a, &s, &st, model, sim, csv_path);
    if (!rc)
        rc = summary_rc;
    if (a.plot && st.rows > 0 && !st.interrupted) {
        // the figure of the run, also of a failed one (it shows how far the run got)
        char title[256];
        snprintf(title, sizeof title, "%s: %s, dt = %g", dirac_model_name(model),
                 dirac_sim_method(sim), s.dt);
        int plot_rc = cli_plot_default(csv_path, a.plot, title);
        if (!rc)
            rc = plot_rc;
        if (!plot_rc && !a.quiet)
            fprintf(stderr, "dirac simulate: figure in %s\n", a.plot);
    }

done:
    element_energy_free(&st.energy);
    input_table_free(&a.table);
    saved_state_free(&a.saved);
    output_times_free(&a.times);
    free(default_out);
    dirac_sim_destroy(sim);
    dirac_model_destroy(model);
    dirac_spec_destroy(spec);
    return rc;
}
