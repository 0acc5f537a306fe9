// One run of `dirac sweep` and its RESULTS line (sweep_run.h).
#define _POSIX_C_SOURCE 200809L   // clock_gettime
#define __STDC_WANT_IEC_60559_BFP_EXT__ 1   // strfromd (glibc)

#include "sweep_run.h"
#include "column_name.h"
#include "csv_output.h"
#include "library_message.h"
#include "output_file.h"

#include <dirac/dirac.h>

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define DEFAULT_MAX_STEPS 1000000L   // adaptive runs, as `dirac simulate`
#define CHUNK_STEPS 256L             // steps per dirac_run_advance call
#define CHUNK_ROWS 64L               // rows buffered per call

static const double missing = (double)NAN;   // a value a run did not produce

const char *sweep_status_name(sweep_status status)
{
    switch (status) {
    case SWEEP_OK: return "ok";
    case SWEEP_FAILED: return "failed";
    case SWEEP_INVALID: return "invalid";
    case SWEEP_INTERRUPTED: return "interrupted";
    case SWEEP_LOST: return "lost";
    }
    return "?";
}

static double now_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

// ---- a growing line of text -------------------------------------------------------------

typedef struct line {
    char *text;
    size_t len, cap;
    int failed;   // out of memory: later appends do nothing
} line;

static void append(line *l, const char *s, size_t n)
{
    if (l->failed)
        return;
    if (l->len + n + 1 > l->cap) {
        size_t cap = l->cap ? l->cap : 256;
        while (cap < l->len + n + 1)
            cap *= 2;
        char *text = realloc(l->text, cap);
        if (!text) {
            l->failed = 1;
            return;
        }
        l->text = text;
        l->cap = cap;
    }
    memcpy(l->text + l->len, s, n);
    l->len += n;
    l->text[l->len] = '\0';
}

static void append_str(line *l, const char *s)
{
    append(l, s, strlen(s));
}

// A field: a comma before all but the first one of the line.
static void field_start(line *l)
{
    if (l->len > 0)
        append(l, ",", 1);
}

// A text field, quoted (RFC 4180) when it holds ',', '"' or a line break; line breaks are
// written as spaces (a row stays one line) and trailing ones dropped.
static void field_text(line *l, const char *s)
{
    field_start(l);
    size_t n = strlen(s);
    while (n > 0 && (s[n - 1] == '\n' || s[n - 1] == '\r'))
        n--;
    int quote = 0;
    for (size_t i = 0; i < n; i++)
        quote |= s[i] == ',' || s[i] == '"' || s[i] == '\n' || s[i] == '\r';
    if (quote)
        append(l, "\"", 1);
    for (size_t i = 0; i < n; i++) {
        char c = s[i] == '\n' || s[i] == '\r' ? ' ' : s[i];
        append(l, &c, 1);
        if (c == '"')
            append(l, "\"", 1);
    }
    if (quote)
        append(l, "\"", 1);
}

// A number as the CSV writer writes it: %.17g (exact round trip), nan, inf, -inf.
static void field_number(line *l, double x)
{
    char buf[40];
    if (isnan(x))
        snprintf(buf, sizeof buf, "nan");
    else if (isinf(x))
        snprintf(buf, sizeof buf, x > 0 ? "inf" : "-inf");
    else
#if defined(__GLIBC__)
        // the same text as snprintf's, without its format parser (which takes a slow path
        // in this process: libquadmath, loaded with LAPACK, registers printf handlers)
        strfromd(buf, sizeof buf, "%.17g", x);
#else
        snprintf(buf, sizeof buf, "%.17g", x);
#endif
    field_start(l);
    append_str(l, buf);
}

static void field_integer(line *l, long k)
{
    char buf[32];
    snprintf(buf, sizeof buf, "%ld", k);
    field_start(l);
    append_str(l, buf);
}

static char *line_end(line *l)
{
    append(l, "\n", 1);
    if (l->failed) {
        free(l->text);
        return NULL;
    }
    return l->text;
}

// ---- the base model -----------------------------------------------------------------------


// Applies the first `count` varied values of run `index` to a spec (count 0: none).
static dirac_status set_values(const sweep_job *job, long index, int count, dirac_spec *spec)
{
    dirac_status status = DIRAC_OK;
    for (int k = 0; status == DIRAC_OK && k < count; k++) {
        // %.17g reads back as the same double: the run gets exactly the planned value
        char assignment[320];
        snprintf(assignment, sizeof assignment, "%s=%.17g", job->plan.varied[k].name,
                 sweep_plan_value(&job->plan, index, k));
        status = dirac_spec_set_parameter(spec, assignment);
    }
    return status;
}

// Loads the model file and applies the -p options and `count` of run `index`'s values (count
// 0: none). On failure returns the spec's status with *spec set (its message says why).
static dirac_status load_spec(const sweep_job *job, long index, int count, dirac_spec **spec)
{
    dirac_status status = dirac_spec_load(job->opt.path, spec);
    for (int k = 0; status == DIRAC_OK && k < job->opt.override_count; k++)
        status = dirac_spec_set_parameter(*spec, job->opt.overrides[k]);
    if (status == DIRAC_OK)
        status = set_values(job, index, count, *spec);
    return status;
}

static void print_spec_message(const dirac_spec *spec)
{
    const char *msg = spec ? dirac_spec_errmsg(spec) : "error: out of memory\n";
    fputs(msg, stderr);
    if (!*msg || msg[strlen(msg) - 1] != '\n')
        fputc('\n', stderr);
}

int sweep_job_prepare(sweep_job *job)
{
    // every varied name is a parameter: set them all (run 0's values) on a loaded spec
    dirac_spec *spec = NULL;
    dirac_status status = load_spec(job, 0, job->plan.varied_count, &spec);
    if (status != DIRAC_OK) {
        print_spec_message(spec);
        dirac_spec_destroy(spec);
        return 2;
    }
    dirac_spec_destroy(spec);
    spec = NULL;
    dirac_model *model = NULL;
    status = load_spec(job, 0, 0, &spec);
    if (status == DIRAC_OK)
        status = dirac_model_compile(spec, &model);
    if (status != DIRAC_OK) {
        print_spec_message(spec);
        dirac_spec_destroy(spec);
        return 2;
    }
    dirac_spec_destroy(spec);
    job->columns = dirac_model_column_count(model);
    job->has_entropy = dirac_model_entropy_count(model) > 0;
    job->column_names = calloc((size_t)job->columns, sizeof *job->column_names);
    int failed = !job->column_names;
    for (int k = 0; !failed && k < job->columns; k++)
        failed = !(job->column_names[k] = column_name_dup(model, k));
    dirac_model_destroy(model);
    if (failed) {
        fputs("dirac sweep: error: out of memory\n", stderr);
        return 3;
    }
    job->trajectory_digits = 6;
    for (long n = job->plan.runs - 1; n >= 1000000; n /= 10)
        job->trajectory_digits++;
    return 0;
}

void sweep_job_free(sweep_job *job)
{
    for (int k = 0; job->column_names && k < job->columns; k++)
        free(job->column_names[k]);
    free(job->column_names);
    job->column_names = NULL;
    sweep_plan_free(&job->plan);
}

// ---- the RESULTS line ---------------------------------------------------------------------

int sweep_result_columns(const sweep_job *job, const char **names, sweep_column_kind *kinds)
{
    int n = 0;
#define COLUMN(name_, kind_)                                                                   \
    do {                                                                                       \
        if (names)                                                                             \
            names[n] = (name_);                                                                \
        if (kinds)                                                                             \
            kinds[n] = (kind_);                                                                \
        n++;                                                                                   \
    } while (0)
    COLUMN("index", SWEEP_COLUMN_INTEGER);
    for (int k = 0; k < job->plan.varied_count; k++)
        COLUMN(job->plan.varied[k].name, SWEEP_COLUMN_REAL);
    COLUMN("status", SWEEP_COLUMN_TEXT);
    COLUMN("message", SWEEP_COLUMN_TEXT);
    COLUMN("method", SWEEP_COLUMN_TEXT);
    COLUMN("steps", SWEEP_COLUMN_INTEGER);
    COLUMN("t_final", SWEEP_COLUMN_REAL);
    COLUMN("energy_error_max", SWEEP_COLUMN_REAL);
    COLUMN("constraint_residual_max", SWEEP_COLUMN_REAL);
    COLUMN("velocity_constraint_residual_max", SWEEP_COLUMN_REAL);
    if (job->has_entropy)
        COLUMN("entropy_step_min", SWEEP_COLUMN_REAL);
    COLUMN("newton_iterations_max", SWEEP_COLUMN_INTEGER);
    COLUMN("warnings", SWEEP_COLUMN_INTEGER);
    COLUMN("warning_messages", SWEEP_COLUMN_TEXT);
    for (int k = 1; k < job->columns; k++)   // the final row of the trajectory, t excluded
        COLUMN(job->column_names[k], SWEEP_COLUMN_REAL);
    COLUMN("wall_seconds", SWEEP_COLUMN_REAL);
#undef COLUMN
    return n;
}

char *sweep_header_line(const sweep_job *job)
{
    int n = sweep_result_columns(job, NULL, NULL);
    const char **names = malloc((size_t)n * sizeof *names);
    if (!names)
        return NULL;
    sweep_result_columns(job, names, NULL);
    line l = { 0 };
    for (int k = 0; k < n; k++)
        field_text(&l, names[k]);
    free(names);
    return line_end(&l);
}

// What a run produced.
typedef struct run_result {
    sweep_status status;
    char message[1024];
    const char *method;
    dirac_run_stats stats;
    int have_stats;
    double *final;          // the last row (job->columns values), NaN if none
    int warnings;           // dirac_sim_warning_count at the end
    char warning_text[2048];   // the warnings, joined by "; " (truncated if longer)
    double wall_seconds;
    sweep_trajectory *keep;    // hand the trajectory back here (NULL: write it)
} run_result;

// The fields in the order of sweep_result_columns.
static char *format_line(const sweep_job *job, long index, const run_result *r)
{
    line l = { 0 };
    field_integer(&l, index);
    for (int k = 0; k < job->plan.varied_count; k++)
        field_number(&l, sweep_plan_value(&job->plan, index, k));
    field_text(&l, sweep_status_name(r->status));
    field_text(&l, r->message);
    field_text(&l, r->method ? r->method : "");
    const dirac_run_stats *s = &r->stats;
    field_integer(&l, r->have_stats ? s->steps : 0);
    field_number(&l, r->final ? r->final[0] : missing);
    field_number(&l, r->have_stats ? s->energy_error_max : missing);
    field_number(&l, r->have_stats ? s->constraint_residual_max : missing);
    field_number(&l, r->have_stats ? s->velocity_constraint_residual_max : missing);
    if (job->has_entropy)
        field_number(&l, r->have_stats && s->steps > 0 ? s->entropy_step_min : missing);
    field_integer(&l, r->have_stats ? s->newton_iterations_max : 0);
    field_integer(&l, r->warnings);
    field_text(&l, r->warning_text);
    for (int k = 1; k < job->columns; k++)
        field_number(&l, r->final ? r->final[k] : missing);
    field_number(&l, r->wall_seconds);
    return line_end(&l);
}

char *sweep_missing_line(const sweep_job *job, long index, sweep_status status,
                         const char *message)
{
    run_result r;
    memset(&r, 0, sizeof r);
    r.status = status;
    snprintf(r.message, sizeof r.message, "%s", message);
    r.wall_seconds = missing;
    return format_line(job, index, &r);
}

// ---- the run ------------------------------------------------------------------------------

#if defined(__GNUC__)
__attribute__((format(printf, 3, 4)))
#endif
static void fail(run_result *r, sweep_status status, const char *format, ...)
{
    va_list args;
    va_start(args, format);
    vsnprintf(r->message, sizeof r->message, format, args);
    va_end(args);
    cli_library_message_in_place(r->message);
    r->status = status;
}

// The run's settings: the command line over the model's `simulate` line, checked as
// `dirac simulate` checks them (cli/cmd_simulate.c). 0, or -1 with r's message set.
typedef struct run_settings {
    const char *method;
    double dt, t_end, tol;
    long every, max_iter, steps;
} run_settings;

static int method_exists(const char *name)
{
    if (!strcmp(name, "auto"))
        return 1;
    for (int i = 0; i < dirac_method_count(); i++)
        if (!strcmp(dirac_method(i)->name, name))
            return 1;
    return 0;
}

static int resolve_settings(const sweep_options *o, const dirac_model *model, run_settings *s,
                            run_result *r)
{
    dirac_simulate_defaults d;
    memset(&d, 0, sizeof d);
    dirac_model_simulate_defaults(model, &d);
    s->method = o->method ? o->method : d.has_method && d.method ? d.method : "auto";
    if (!method_exists(s->method))
        return fail(r, SWEEP_INVALID, "unknown method '%s' (see 'dirac methods')", s->method), -1;
    if (!o->has_dt && !d.has_dt)
        return fail(r, SWEEP_INVALID, "no step size: give --dt H or 'simulate dt = H' in the "
                                      "model"), -1;
    s->dt = o->has_dt ? o->dt : d.dt;
    if (!(s->dt > 0) || !isfinite(s->dt))
        return fail(r, SWEEP_INVALID, "the step size dt = %g must be positive", s->dt), -1;
    if (!o->has_t_end && !d.has_t_end)
        return fail(r, SWEEP_INVALID, "no final time: give --t-end T or 'simulate t_end = T' "
                                      "in the model"), -1;
    s->t_end = o->has_t_end ? o->t_end : d.t_end;
    if (!(s->t_end >= 0) || !isfinite(s->t_end))
        return fail(r, SWEEP_INVALID, "the final time t_end = %g must not be negative",
                    s->t_end), -1;
    s->every = o->has_every ? o->every : d.has_every ? d.every : 1;
    if (s->every < 1)
        return fail(r, SWEEP_INVALID, "every = %ld must be a positive integer", s->every), -1;
    s->tol = o->has_tol ? o->tol : d.has_tol ? d.tol : 0;
    if (!o->has_tol && d.has_tol && !(d.tol > 0 && isfinite(d.tol)))
        return fail(r, SWEEP_INVALID, "the model's simulate line sets tol = %g; it must be a "
                                      "positive number", d.tol), -1;
    s->max_iter = o->has_max_iter ? o->max_iter : d.has_max_iter ? d.max_iter : 0;
    if (s->max_iter < 0 || s->max_iter > 100000)
        return fail(r, SWEEP_INVALID, "max_iter = %ld must be an integer from 1 to 100000",
                    s->max_iter), -1;
    double n = s->t_end / s->dt;
    if (n > 1e12)
        return fail(r, SWEEP_INVALID, "t_end/dt = %.3g steps is too many (at most 1e12)", n), -1;
    double steps = ceil(n - 1e-9 - 1e-12 * n);
    s->steps = steps > 0 ? (long)steps : 0;
    if (o->max_steps > 0 && !(o->rtol > 0 || o->atol > 0) && s->steps > o->max_steps)
        return fail(r, SWEEP_INVALID, "t_end/dt = %ld steps is more than --max-steps %ld",
                    s->steps, o->max_steps), -1;
    return 0;
}

// Exit categories of a failed dirac_sim_create (as `dirac simulate`): the initial state could
// not be computed (failed), or the model or settings are unusable (invalid).
static sweep_status create_failure(dirac_status status)
{
    switch (status) {
    case DIRAC_ERR_NEWTON:
    case DIRAC_ERR_SINGULAR:
    case DIRAC_ERR_NOT_FINITE:
    case DIRAC_ERR_NOMEM:
    case DIRAC_ERR_LINALG:
        return SWEEP_FAILED;
    default:
        return SWEEP_INVALID;
    }
}

// The model must have the base model's columns (a parameter that sizes a family changes them).
static int same_columns(const sweep_job *job, const dirac_model *m)
{
    if (dirac_model_column_count(m) != job->columns)
        return 0;
    for (int k = 0; k < job->columns; k++) {
        char *name = column_name_dup(m, k);
        int same = name && strcmp(name, job->column_names[k]) == 0;
        free(name);
        if (!same)
            return 0;
    }
    return 1;
}

static void write_trajectory_row(csv_writer *w, const double *row, int columns)
{
    for (int i = 0; i < columns; i++)
        csv_number(w, row[i]);
    csv_end_row(w);
}

// Opens the run's trajectory file (written whole: output_file.h) and writes its header; 0 or
// an errno value.
static int open_trajectory(const sweep_job *job, long index, output_file *file, csv_writer *w,
                           char *path, size_t size)
{
    snprintf(path, size, "%s/run_%0*ld.csv", job->opt.trajectories, job->trajectory_digits,
             index);
    int e = output_open(file, path);
    if (e)
        return e;
    csv_begin(w, file->file);
    for (int k = 0; k < job->columns; k++)
        csv_name(w, NULL, job->column_names[k], NULL);
    csv_end_row(w);
    return 0;
}

// The rows of a trajectory kept in memory until the run ends (--trajectories FILE.h5).
typedef struct row_buffer {
    double *values;
    size_t rows, capacity;   // in rows
    int columns;
    int failed;              // out of memory
} row_buffer;

static void keep_rows(row_buffer *b, const double *rows, long count)
{
    if (b->failed || count <= 0)
        return;
    size_t need = b->rows + (size_t)count;
    if (need > b->capacity) {
        size_t capacity = b->capacity ? b->capacity : 256;
        while (capacity < need)
            capacity *= 2;
        double *grown = realloc(b->values, capacity * (size_t)b->columns * sizeof *grown);
        if (!grown) {
            b->failed = 1;
            return;
        }
        b->values = grown;
        b->capacity = capacity;
    }
    memcpy(b->values + b->rows * (size_t)b->columns, rows,
           (size_t)count * (size_t)b->columns * sizeof *rows);
    b->rows = need;
}

// Where a run's trajectory goes: a CSV file, a buffer for the HDF5 file, or nowhere.
typedef struct trajectory_sink {
    csv_writer *csv;
    row_buffer *buffer;
} trajectory_sink;

static void write_rows(const trajectory_sink *sink, const double *rows, long count, int columns)
{
    for (long k = 0; sink->csv && k < count; k++)
        write_trajectory_row(sink->csv, rows + k * columns, columns);
    if (sink->buffer)
        keep_rows(sink->buffer, rows, count);
}

// Steps the run to its end (dirac_run_advance in chunks), writing trajectory rows.
static void step_run(const sweep_job *job, dirac_sim *sim, dirac_run *run,
                     const trajectory_sink *traj, double *rows, run_result *r)
{
    const sweep_options *o = &job->opt;
    int adaptive = o->rtol > 0 || o->atol > 0;
    long max_steps = o->max_steps > 0 ? o->max_steps : DEFAULT_MAX_STEPS;
    while (!dirac_run_finished(run)) {
        if (job->stop && atomic_load(job->stop)) {
            fail(r, SWEEP_INTERRUPTED, "interrupted at t = %.10g", dirac_sim_time(sim));
            return;
        }
        long want = CHUNK_STEPS, done = dirac_run_statistics(run)->steps;
        if (adaptive) {
            if (done >= max_steps) {
                fail(r, SWEEP_FAILED, "the adaptive run reached --max-steps = %ld at t = %.10g "
                                      "(last step %.3e); loosen --rtol/--atol or raise "
                                      "--max-steps", max_steps, dirac_sim_time(sim),
                     dirac_sim_last_step_size(sim));
                return;
            }
            if (want > max_steps - done)
                want = max_steps - done;
        }
        long written = 0;
        dirac_status status = dirac_run_advance(run, want, rows, CHUNK_ROWS, &written);
        write_rows(traj, rows, written, job->columns);
        if (status != DIRAC_OK) {
            const char *msg = dirac_sim_errmsg(sim);
            fail(r, SWEEP_FAILED, "%s", msg && *msg ? msg : dirac_status_string(status));
            return;
        }
    }
}

// Simulates the compiled model of run `index` into r.
static void simulate(const sweep_job *job, long index, const dirac_model *model, run_result *r)
{
    run_settings s;
    if (resolve_settings(&job->opt, model, &s, r))
        return;
    dirac_sim_options options;
    memset(&options, 0, sizeof options);
    options.method = s.method;
    options.dt = s.dt;
    options.project_initial = job->opt.project_initial;
    options.newton_rtol = s.tol;
    options.newton_max_iterations = (int)s.max_iter;
    options.adaptive_rtol = job->opt.rtol;
    options.adaptive_atol = job->opt.atol;
    dirac_error err;
    memset(&err, 0, sizeof err);
    dirac_sim *sim = NULL;
    dirac_run *run = NULL;
    dirac_status status = dirac_sim_create(model, &options, &sim, &err);
    if (status != DIRAC_OK) {
        fail(r, create_failure(status), "%s", err.message[0] ? err.message
                                                             : dirac_status_string(status));
        return;
    }
    r->method = dirac_sim_method(sim);
    double *rows = malloc((size_t)(CHUNK_ROWS * job->columns) * sizeof *rows);
    status = rows ? dirac_run_create(sim, s.t_end, s.every, &run, &err) : DIRAC_ERR_NOMEM;
    if (status != DIRAC_OK) {
        fail(r, SWEEP_INVALID, "%s", status == DIRAC_ERR_NOMEM ? "out of memory" : err.message);
        free(rows);
        dirac_sim_destroy(sim);
        return;
    }
    csv_writer traj;
    output_file traj_file;
    row_buffer buffer = { NULL, 0, 0, job->columns, 0 };
    trajectory_sink sink = { NULL, NULL };
    char path[4096];
    if (job->trajectory_file || r->keep) {
        sink.buffer = &buffer;
    } else if (job->opt.trajectories && !sweep_hdf5_path(job->opt.trajectories)) {
        int e = open_trajectory(job, index, &traj_file, &traj, path, sizeof path);
        if (e) {
            fail(r, SWEEP_FAILED, "cannot write '%s': %s", path, strerror(e));
            goto done;
        }
        sink.csv = &traj;
    }
    if (sink.csv || sink.buffer) {
        dirac_run_row(run, rows);
        write_rows(&sink, rows, 1, job->columns);
    }
    step_run(job, sim, run, &sink, rows, r);
    if ((sink.csv || sink.buffer) && dirac_run_finish(run, rows))
        write_rows(&sink, rows, 1, job->columns);   // the trajectory ends at the last good step
    dirac_run_row(run, r->final);
    r->stats = *dirac_run_statistics(run);
    r->have_stats = 1;
    // the run's quality warnings, as `dirac simulate` prints them; --strict fails the run
    r->warnings = dirac_sim_warning_count(sim);
    size_t used = 0;
    for (int k = 0; k < r->warnings && used < sizeof r->warning_text; k++) {
        snprintf(r->warning_text + used, sizeof r->warning_text - used, "%s%s", k ? "; " : "",
                 dirac_sim_warning(sim, k));
        cli_library_message_in_place(r->warning_text + used);
        used = strlen(r->warning_text);
        if (used + 1 >= sizeof r->warning_text)
            break;   // truncated
    }
    if (r->warnings > 0 && job->opt.strict && r->status == SWEEP_OK)
        fail(r, SWEEP_FAILED, r->warnings == 1 ? "the run raised a warning and --strict was given"
                                               : "the run raised warnings and --strict was given");
    if (sink.csv) {
        int e = output_commit(&traj_file, csv_finish(sink.csv));
        if (e && r->status == SWEEP_OK)
            fail(r, SWEEP_FAILED, "writing '%s' failed: %s", path, strerror(e));
    }
    if (sink.buffer) {
        int e = buffer.failed ? ENOMEM : 0;
        if (!e && r->keep) {
            r->keep->values = buffer.values;
            r->keep->rows = buffer.rows;
            buffer.values = NULL;
        } else if (!e) {
            e = sweep_write_trajectory(job, index, buffer.values, buffer.rows);
        }
        if (e && r->status == SWEEP_OK)
            fail(r, SWEEP_FAILED, "writing the trajectory of run %ld to '%s' failed: %s", index,
                 job->opt.trajectories, strerror(e));
    }
    free(buffer.values);
done:
    dirac_run_destroy(run);
    free(rows);
    dirac_sim_destroy(sim);
}

int sweep_write_trajectory(const sweep_job *job, long index, const double *values, size_t rows)
{
    char name[64];   // the run's group, named as the CSV file of --trajectories DIR
    snprintf(name, sizeof name, "run_%0*ld", job->trajectory_digits, index);
    return sweep_h5_trajectories_write(job->trajectory_file, name, index, job->columns,
                                       job->column_names, values, rows);
}

void sweep_worker_end(sweep_worker *worker)
{
    if (!worker)
        return;
    dirac_model_destroy(worker->last);
    worker->last = NULL;
    dirac_spec_destroy(worker->spec);
    worker->spec = NULL;
}

char *sweep_run_line(const sweep_job *job, sweep_worker *worker, long index,
                     sweep_status *status)
{
    return sweep_run_line_keep(job, worker, index, status, NULL);
}

char *sweep_run_line_keep(const sweep_job *job, sweep_worker *worker, long index,
                          sweep_status *status, sweep_trajectory *trajectory)
{
    double start = now_seconds();
    run_result r;
    memset(&r, 0, sizeof r);
    r.status = SWEEP_OK;
    r.keep = trajectory;
    if (trajectory) {
        trajectory->values = NULL;
        trajectory->rows = 0;
    }
    r.final = malloc((size_t)job->columns * sizeof *r.final);
    if (!r.final)
        return NULL;
    for (int k = 0; k < job->columns; k++)
        r.final[k] = missing;
    dirac_spec *spec = NULL;
    dirac_model *model = NULL;
    dirac_status st = DIRAC_ERR_ARGUMENT;
    // the worker's spec of the last run, with this run's values (sweep_run.h); on any failure
    // the run starts again from the file, so its message is the one of a fresh load
    if (worker && worker->spec) {
        spec = worker->spec;
        worker->spec = NULL;
        st = set_values(job, index, job->plan.varied_count, spec);
        if (st != DIRAC_OK)
            worker->reload = 1;   // e.g. a model with families: expanded, it takes no values
        else
            st = dirac_model_compile(spec, &model);
        if (st != DIRAC_OK) {
            dirac_spec_destroy(spec);
            spec = NULL;
        }
    }
    if (!spec) {
        st = load_spec(job, index, job->plan.varied_count, &spec);
        if (st == DIRAC_OK)
            st = dirac_model_compile(spec, &model);
    }
    if (st != DIRAC_OK) {
        // the first line, FILE:LINE:COL: error: MESSAGE (the source line and caret follow)
        const char *msg = spec ? dirac_spec_errmsg(spec) : "out of memory";
        fail(&r, SWEEP_INVALID, "%.*s", (int)strcspn(msg, "\n"), msg);
    }
    else if (!same_columns(job, model))
        fail(&r, SWEEP_INVALID, "the model's variables differ from those of the base model "
                                "(a varied parameter sizes a family); such runs cannot share "
                                "one RESULTS table");
    else
        simulate(job, index, model, &r);
    // the previous run's model held the loaded code while this one was compiled (sweep_run.h)
    if (worker) {
        dirac_model_destroy(worker->last);
        worker->last = model;
    } else {
        dirac_model_destroy(model);
    }
    if (worker && st == DIRAC_OK && !worker->reload)
        worker->spec = spec;
    else
        dirac_spec_destroy(spec);
    r.wall_seconds = now_seconds() - start;
    char *text = format_line(job, index, &r);
    free(r.final);
    *status = r.status;
    return text;
}
