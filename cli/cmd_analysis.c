// `dirac equilibrium`, `dirac linearize` and `dirac modes`: static equilibria, the linearised
// descriptor system and undamped natural modes of a model (docs/analysis.md).
#include "commands.h"
#include "json_output.h"

#include <dirac/dirac.h>

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

// Options shared by the three commands.
typedef struct analysis_options {
    const char *command;     // "equilibrium", "linearize", "modes"
    const char *path;
    const char *overrides[256];
    int n_overrides;
    double t;
    int json;
    int count;               // modes: --count
    int sparse;              // modes: --sparse
    int at_initial;          // linearize: --at initial
    int matrix_market;       // linearize: --format mm
    const char *output;      // linearize: -o
} analysis_options;

static int usage(const analysis_options *o)
{
    if (!strcmp(o->command, "equilibrium"))
        fprintf(stderr, "usage: dirac equilibrium MODEL [-p NAME=VALUE]... [--time T] [--json]\n");
    else if (!strcmp(o->command, "linearize"))
        fprintf(stderr, "usage: dirac linearize MODEL [-p NAME=VALUE]... [--time T] "
                        "[--at initial|equilibrium] [--format json|mm] [-o PATH]\n");
    else
        fprintf(stderr, "usage: dirac modes MODEL [-p NAME=VALUE]... [--time T] [--json] "
                        "[--count K] [--sparse]\n");
    return 2;
}

static int parse_number(const char *command, const char *option, const char *text, double *out)
{
    char *end = NULL;
    errno = 0;
    double value = strtod(text, &end);
    if (end == text || *end != '\0' || errno == ERANGE || !isfinite(value)) {
        fprintf(stderr, "dirac %s: error: %s needs a finite number, got '%s'\n", command, option,
                text);
        return 0;
    }
    *out = value;
    return 1;
}

// Returns -1 on success, else the exit status.
static int parse_options(analysis_options *o, int argc, char **argv)
{
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        int has_value = i + 1 < argc;
        if (!strcmp(a, "-p") || !strcmp(a, "--parameter") || !strcmp(a, "--time") ||
            !strcmp(a, "--count") || !strcmp(a, "--at") || !strcmp(a, "--format") ||
            !strcmp(a, "-o")) {
            if (!has_value) {
                fprintf(stderr, "dirac %s: error: %s needs a value\n", o->command, a);
                return 2;
            }
        }
        int linearize = !strcmp(o->command, "linearize"), modes = !strcmp(o->command, "modes");
        if (!strcmp(a, "-p") || !strcmp(a, "--parameter")) {
            if (o->n_overrides == (int)(sizeof o->overrides / sizeof o->overrides[0])) {
                fprintf(stderr, "dirac %s: error: too many -p options\n", o->command);
                return 2;
            }
            o->overrides[o->n_overrides++] = argv[++i];
        } else if (!strcmp(a, "--time")) {
            if (!parse_number(o->command, a, argv[++i], &o->t))
                return 2;
        } else if (!strcmp(a, "--json") && !linearize) {
            o->json = 1;
        } else if (!strcmp(a, "--count") && modes) {
            double k = 0;
            if (!parse_number(o->command, a, argv[++i], &k))
                return 2;
            if (k < 1 || k > 1e6 || k != floor(k)) {
                fprintf(stderr, "dirac modes: error: --count needs a whole number >= 1, got "
                                "'%s'\n", argv[i]);
                return 2;
            }
            o->count = (int)k;
        } else if (!strcmp(a, "--sparse") && modes) {
            o->sparse = 1;
        } else if (!strcmp(a, "--at") && linearize) {
            const char *at = argv[++i];
            if (strcmp(at, "initial") && strcmp(at, "equilibrium")) {
                fprintf(stderr, "dirac linearize: error: --at takes 'initial' or 'equilibrium', "
                                "got '%s'\n", at);
                return 2;
            }
            o->at_initial = !strcmp(at, "initial");
        } else if (!strcmp(a, "--format") && linearize) {
            const char *format = argv[++i];
            if (strcmp(format, "json") && strcmp(format, "mm")) {
                fprintf(stderr, "dirac linearize: error: --format takes 'json' or 'mm', got "
                                "'%s'\n", format);
                return 2;
            }
            o->matrix_market = !strcmp(format, "mm");
        } else if (!strcmp(a, "-o") && linearize) {
            o->output = argv[++i];
        } else if (a[0] == '-' && a[1] != '\0') {
            fprintf(stderr, "dirac %s: error: unknown option '%s'\n", o->command, a);
            return 2;
        } else if (o->path) {
            fprintf(stderr, "dirac %s: error: more than one model file given\n", o->command);
            return 2;
        } else {
            o->path = a;
        }
    }
    if (!o->path)
        return usage(o);
    if (o->matrix_market && !o->output) {
        fprintf(stderr, "dirac linearize: error: --format mm needs -o PREFIX (it writes "
                        "PREFIX.json and PREFIX_E.mtx, PREFIX_A.mtx, ...)\n");
        return 2;
    }
    return -1;
}

static int load_model(const analysis_options *o, dirac_spec **spec, dirac_model **model)
{
    *spec = NULL;
    *model = NULL;
    dirac_status status = dirac_spec_load(o->path, spec);
    for (int k = 0; status == DIRAC_OK && k < o->n_overrides; k++)
        status = dirac_spec_set_parameter(*spec, o->overrides[k]);
    if (status == DIRAC_OK)
        status = dirac_model_compile(*spec, model);
    if (status != DIRAC_OK) {
        const char *msg = *spec ? dirac_spec_errmsg(*spec) : "error: out of memory\n";
        fputs(msg, stderr);
        if (!*msg || msg[strlen(msg) - 1] != '\n')
            fputc('\n', stderr);
        dirac_spec_destroy(*spec);
        *spec = NULL;
        return 0;
    }
    return 1;
}

static int solve_equilibrium(const analysis_options *o, const dirac_model *m,
                             dirac_equilibrium *eq)
{
    dirac_error err;
    dirac_status status = dirac_model_equilibrium(m, NULL, NULL, o->t, eq, &err);
    if (status != DIRAC_OK) {
        fprintf(stderr, "dirac %s: error: %s\n", o->command, err.message);
        if (status == DIRAC_ERR_NEWTON)
            dirac_equilibrium_free(eq);
        return 0;
    }
    return 1;
}

static void json_equilibrium(json_writer *w, const char *key, const dirac_model *m,
                             const dirac_equilibrium *eq)
{
    json_object(w, key);
    json_number(w, "t", eq->t);
    json_object(w, "q");
    for (int i = 0; i < dirac_model_coordinate_count(m); i++)
        json_number(w, dirac_model_coordinate_name(m, i), eq->q[i]);
    json_end(w);
    json_object(w, "mu");
    for (int a = 0; a < dirac_model_constraint_count(m); a++)
        json_number(w, dirac_model_constraint_name(m, a), eq->mu[a]);
    json_end(w);
    json_object(w, "S");
    for (int j = 0; j < dirac_model_entropy_count(m); j++)
        json_number(w, dirac_model_entropy_name(m, j), eq->s[j]);
    json_end(w);
    json_number(w, "residual", eq->residual);
    json_number(w, "force_scale", eq->scale);
    json_integer(w, "iterations", eq->iterations);
    json_end(w);
}

static int finish_json(json_writer *w, const char *command)
{
    int e = json_finish(w);
    if (e) {
        fprintf(stderr, "dirac %s: error: writing the output: %s\n", command, strerror(e));
        return 3;
    }
    return 0;
}

// parse_options then load_model: -1 with *spec and *model loaded, or the exit status to return.
static int open_model(analysis_options *o, int argc, char **argv, dirac_spec **spec,
                      dirac_model **model)
{
    int rc = parse_options(o, argc, argv);
    if (rc >= 0)
        return rc;
    return load_model(o, spec, model) ? -1 : 2;
}

// Starts the JSON report of a command on stdout: the top-level object and the model's name.
static void begin_json_report(json_writer *w, const dirac_model *m)
{
    json_begin(w, stdout);
    json_object(w, NULL);
    json_string(w, "model", dirac_model_name(m));
}

int cli_equilibrium(int argc, char **argv)
{
    analysis_options o = { .command = "equilibrium" };
    dirac_spec *spec;
    dirac_model *m;
    int rc = open_model(&o, argc, argv, &spec, &m);
    if (rc >= 0)
        return rc;
    dirac_equilibrium eq;
    rc = 3;
    if (solve_equilibrium(&o, m, &eq)) {
        rc = 0;
        if (o.json) {
            json_writer w;
            begin_json_report(&w, m);
            json_equilibrium(&w, "equilibrium", m, &eq);
            rc = finish_json(&w, o.command);
        } else {
            printf("equilibrium of %s at t = %g (%d Newton iterations, residual %.3e, force "
                   "scale %.3g)\n", dirac_model_name(m), eq.t, eq.iterations, eq.residual,
                   eq.scale);
            for (int i = 0; i < dirac_model_coordinate_count(m); i++)
                printf("  %-16s %.17g\n", dirac_model_coordinate_name(m, i), eq.q[i]);
            for (int a = 0; a < dirac_model_constraint_count(m); a++)
                printf("  mu.%-13s %.17g\n", dirac_model_constraint_name(m, a), eq.mu[a]);
            for (int j = 0; j < dirac_model_entropy_count(m); j++)
                printf("  %-16s %.17g (held)\n", dirac_model_entropy_name(m, j), eq.s[j]);
        }
        dirac_equilibrium_free(&eq);
    }
    dirac_model_destroy(m);
    dirac_spec_destroy(spec);
    return rc;
}

// ---- linearize ----------------------------------------------------------------------------

static void json_matrix(json_writer *w, const char *key, const dirac_matrix *a)
{
    json_object(w, key);
    json_integer(w, "rows", a->rows);
    json_integer(w, "cols", a->cols);
    json_array(w, "entries");
    for (int k = 0; k < a->nnz; k++) {
        json_array(w, NULL);
        json_integer(w, NULL, a->row[k]);
        json_integer(w, NULL, a->col[k]);
        json_number(w, NULL, a->value[k]);
        json_end(w);
    }
    json_end(w);
    json_end(w);
}

static void json_dense(json_writer *w, const char *key, int rows, int cols, const double *a)
{
    json_array(w, key);
    for (int i = 0; i < rows; i++) {
        json_array(w, NULL);
        for (int j = 0; j < cols; j++)
            json_number(w, NULL, a[(size_t)j * (size_t)rows + (size_t)i]);
        json_end(w);
    }
    json_end(w);
}

static void json_vector(json_writer *w, const char *key, int count, const double *x)
{
    json_array(w, key);
    for (int k = 0; k < count; k++)
        json_number(w, NULL, x[k]);
    json_end(w);
}

static void write_linearization(json_writer *w, const dirac_model *m,
                                const dirac_linearization *lin, const char *at,
                                int with_matrices)
{
    json_object(w, NULL);
    json_string(w, "model", dirac_model_name(m));
    json_string(w, "at", at);
    json_number(w, "t", lin->t);
    json_string(w, "form", "E x' = f0 + A (x - x0) + B u, y = y0 + C (x - x0) + D u");
    json_array(w, "state");
    for (int k = 0; k < lin->state_count; k++)
        json_string(w, NULL, lin->state_names[k]);
    json_end(w);
    json_array(w, "inputs");
    for (int k = 0; k < lin->input_count; k++)
        json_string(w, NULL, dirac_model_input_name(m, k));
    json_end(w);
    json_array(w, "outputs");
    for (int k = 0; k < lin->output_count; k++)
        json_string(w, NULL, dirac_model_output_name(m, k));
    json_end(w);
    json_vector(w, "x0", lin->state_count, lin->x0);
    json_vector(w, "f0", lin->state_count, lin->f0);
    json_vector(w, "y0", lin->output_count, lin->y0);
    json_vector(w, "u0", lin->input_count, lin->u0);
    json_number(w, "stiffness_asymmetry", lin->stiffness_asymmetry);
    if (with_matrices) {
        const char *names[] = { "E", "A", "B", "C", "D", "M", "K", "G" };
        const dirac_matrix *mats[] = { &lin->E, &lin->A, &lin->B, &lin->C,
                                       &lin->D, &lin->M, &lin->K, &lin->G };
        for (int k = 0; k < 8; k++)
            json_matrix(w, names[k], mats[k]);
    }
    if (lin->has_reduced) {
        json_object(w, "reduced");
        json_integer(w, "dim", lin->reduced_dim);
        if (with_matrices) {
            json_dense(w, "T", lin->n, lin->reduced_dim, lin->T);
            json_dense(w, "M_r", lin->reduced_dim, lin->reduced_dim, lin->M_r);
            json_dense(w, "K_r", lin->reduced_dim, lin->reduced_dim, lin->K_r);
        }
        json_string(w, "note", lin->reduced_note);
        json_end(w);
    } else {
        json_null(w, "reduced");
        json_string(w, "reduced_note", lin->reduced_note);
    }
    json_end(w);
}

// Matrix Market coordinate real general (1-based).
static int write_mm(const char *prefix, const char *name, const dirac_matrix *a)
{
    size_t len = strlen(prefix) + strlen(name) + 8;
    char *path = malloc(len);
    if (!path)
        return ENOMEM;
    snprintf(path, len, "%s_%s.mtx", prefix, name);
    FILE *f = fopen(path, "w");
    int e = 0;
    if (!f) {
        e = errno;
        fprintf(stderr, "dirac linearize: error: cannot write '%s': %s\n", path, strerror(e));
        free(path);
        return e;
    }
    fprintf(f, "%%%%MatrixMarket matrix coordinate real general\n%d %d %d\n", a->rows, a->cols,
            a->nnz);
    for (int k = 0; k < a->nnz; k++)
        fprintf(f, "%d %d %.17g\n", a->row[k] + 1, a->col[k] + 1, a->value[k]);
    if (ferror(f))
        e = EIO;
    if (fclose(f) != 0 && !e)
        e = errno;
    if (e)
        fprintf(stderr, "dirac linearize: error: writing '%s': %s\n", path, strerror(e));
    free(path);
    return e;
}

static dirac_matrix dense_as_matrix(int rows, int cols, const double *a, int *ok)
{
    dirac_matrix out = { rows, cols, 0, NULL, NULL, NULL };
    size_t cap = (size_t)rows * (size_t)cols + 1;
    out.row = malloc(cap * sizeof *out.row);
    out.col = malloc(cap * sizeof *out.col);
    out.value = malloc(cap * sizeof *out.value);
    *ok = out.row && out.col && out.value;
    for (int j = 0; *ok && j < cols; j++)
        for (int i = 0; i < rows; i++) {
            double x = a[(size_t)j * (size_t)rows + (size_t)i];
            if (x != 0.0) {
                out.row[out.nnz] = i, out.col[out.nnz] = j, out.value[out.nnz] = x;
                out.nnz++;
            }
        }
    return out;
}

int cli_linearize(int argc, char **argv)
{
    analysis_options o = { .command = "linearize" };
    dirac_spec *spec;
    dirac_model *m;
    int rc = open_model(&o, argc, argv, &spec, &m);
    if (rc >= 0)
        return rc;
    int n = dirac_model_coordinate_count(m);
    dirac_equilibrium eq = { 0 };
    dirac_linearization lin;
    dirac_error err;
    double *zero = calloc((size_t)n + 1, sizeof *zero);
    rc = 3;
    if (!zero) {
        fprintf(stderr, "dirac linearize: error: out of memory\n");
        goto done;
    }
    dirac_status status;
    if (o.at_initial) {
        status = dirac_model_linearize(m, NULL, NULL, NULL, NULL, o.t, &lin, &err);
    } else {
        if (!solve_equilibrium(&o, m, &eq))
            goto done;
        status = dirac_model_linearize(m, eq.q, zero, eq.s, eq.mu, eq.t, &lin, &err);
    }
    if (status != DIRAC_OK) {
        fprintf(stderr, "dirac linearize: error: %s\n", err.message);
        goto done;
    }
    const char *at = o.at_initial ? "initial" : "equilibrium";
    FILE *out = stdout;
    char *json_path = NULL;
    if (o.output) {
        size_t len = strlen(o.output) + 8;
        json_path = malloc(len);
        if (json_path)
            snprintf(json_path, len, o.matrix_market ? "%s.json" : "%s", o.output);
        out = json_path ? fopen(json_path, "w") : NULL;
        if (!out) {
            fprintf(stderr, "dirac linearize: error: cannot write '%s': %s\n",
                    json_path ? json_path : o.output, strerror(errno));
            free(json_path);
            dirac_linearization_free(&lin);
            goto done;
        }
    }
    json_writer w;
    json_begin(&w, out);
    write_linearization(&w, m, &lin, at, !o.matrix_market);
    rc = finish_json(&w, o.command);
    if (out != stdout && fclose(out) != 0 && rc == 0) {
        fprintf(stderr, "dirac linearize: error: writing '%s': %s\n", json_path, strerror(errno));
        rc = 3;
    }
    free(json_path);
    if (rc == 0 && o.matrix_market) {
        const char *names[] = { "E", "A", "B", "C", "D", "M", "K", "G" };
        const dirac_matrix *mats[] = { &lin.E, &lin.A, &lin.B, &lin.C,
                                       &lin.D, &lin.M, &lin.K, &lin.G };
        for (int k = 0; rc == 0 && k < 8; k++)
            rc = write_mm(o.output, names[k], mats[k]) ? 3 : 0;
        if (rc == 0 && lin.has_reduced) {
            int r = lin.reduced_dim, ok1 = 0, ok2 = 0;
            dirac_matrix mr = dense_as_matrix(r, r, lin.M_r, &ok1);
            dirac_matrix kr = dense_as_matrix(r, r, lin.K_r, &ok2);
            if (!ok1 || !ok2) {
                fprintf(stderr, "dirac linearize: error: out of memory\n");
                rc = 3;
            }
            if (rc == 0)
                rc = write_mm(o.output, "M_r", &mr) || write_mm(o.output, "K_r", &kr) ? 3 : 0;
            free(mr.row), free(mr.col), free(mr.value);
            free(kr.row), free(kr.col), free(kr.value);
        }
    }
    dirac_linearization_free(&lin);
done:
    free(zero);
    dirac_equilibrium_free(&eq);
    dirac_model_destroy(m);
    dirac_spec_destroy(spec);
    return rc;
}

// ---- modes --------------------------------------------------------------------------------

int cli_modes(int argc, char **argv)
{
    analysis_options o = { .command = "modes" };
    dirac_spec *spec;
    dirac_model *m;
    int rc = open_model(&o, argc, argv, &spec, &m);
    if (rc >= 0)
        return rc;
    int n = dirac_model_coordinate_count(m);
    dirac_equilibrium eq = { 0 };
    dirac_modes modes = { 0 };
    dirac_error err;
    rc = 3;
    if ((n > DIRAC_MODES_DENSE_MAX || o.sparse) && o.count == 0) {
        fprintf(stderr, "dirac modes: error: the sparse eigensolver (models with more than %d "
                        "coordinates, or --sparse) computes the lowest modes: give --count K\n",
                DIRAC_MODES_DENSE_MAX);
        rc = 2;
        goto done;
    }
    if (!solve_equilibrium(&o, m, &eq))
        goto done;
    if (dirac_model_modes(m, &eq, o.count, o.sparse, &modes, &err) != DIRAC_OK) {
        fprintf(stderr, "dirac modes: error: %s\n", err.message);
        goto done;
    }
    rc = 0;
    if (o.json) {
        json_writer w;
        begin_json_report(&w, m);
        json_string(&w, "solver", modes.sparse ? "sparse (ARPACK shift-invert, KLU)"
                                               : "dense (LAPACK dsygv)");
        json_array(&w, "frequencies");
        for (int k = 0; k < modes.count; k++)
            json_number(&w, NULL, modes.omega2[k] >= 0 ? sqrt(modes.omega2[k]) : (double)NAN);
        json_end(&w);
        json_vector(&w, "eigenvalues", modes.count, modes.omega2);
        json_array(&w, "modes");
        for (int k = 0; k < modes.count; k++) {
            json_object(&w, NULL);
            for (int i = 0; i < n; i++)
                json_number(&w, dirac_model_coordinate_name(m, i),
                            modes.shapes[(size_t)k * (size_t)n + (size_t)i]);
            json_end(&w);
        }
        json_end(&w);
        json_equilibrium(&w, "equilibrium", m, &eq);
        rc = finish_json(&w, o.command);
    } else {
        printf("natural modes of %s about its equilibrium at t = %g (%s; %d %s)\n",
               dirac_model_name(m), eq.t, modes.sparse ? "sparse, ARPACK" : "dense, LAPACK",
               modes.count, modes.count == 1 ? "mode" : "modes");
        printf("  %-5s %-22s %-14s %s\n", "mode", "omega (rad/s)", "f (Hz)", "largest entries of the shape");
        for (int k = 0; k < modes.count; k++) {
            double l = modes.omega2[k];
            const double *x = modes.shapes + (size_t)k * (size_t)n;
            if (l >= 0)
                printf("  %-5d %-22.15g %-14.6g", k + 1, sqrt(l), sqrt(l) / (2 * 3.14159265358979323846));
            else
                printf("  %-5d unstable: growth %.6g 1/s", k + 1, sqrt(-l));
            // the (up to) four largest entries, in decreasing order
            int shown[4], count = 0;
            for (int s = 0; s < 4 && s < n; s++) {
                int best = -1;
                for (int i = 0; i < n; i++) {
                    int used = 0;
                    for (int j = 0; j < count; j++)
                        used |= shown[j] == i;
                    if (!used && (best < 0 || fabs(x[i]) > fabs(x[best])))
                        best = i;
                }
                if (best < 0 || x[best] == 0.0)
                    break;
                shown[count++] = best;
                printf(" %s %.4g", dirac_model_coordinate_name(m, best), x[best]);
            }
            printf("\n");
        }
    }
done:
    dirac_modes_free(&modes);
    dirac_equilibrium_free(&eq);
    dirac_model_destroy(m);
    dirac_spec_destroy(spec);
    return rc;
}
