// Figures of dirac CSV trajectories through gnuplot; see plot.h and docs/figures.md.
//
// Steps: read each CSV's header; turn the request into series (file, x column, y column,
// transform); read the data rows once to count the points each series can draw (finite, and
// positive on a log scale) and to take E(0) for the energy error; write a gnuplot script to a
// temporary file; run gnuplot on it (fork + execv, no shell) with its messages captured.
#define _POSIX_C_SOURCE 200809L   // getline, mkstemp, fdopen, fork, execv, pipe, waitpid

#include "plot.h"
#include "exit_status.h"
#include "output_file.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>


// Okabe-Ito colours (distinguishable with the common colour-vision deficiencies), black first
// replaced by blue so that the first two series are blue and vermilion.
static const char *const palette[] = { "#0072b2", "#d55e00", "#009e73", "#cc79a7",
                                       "#e69f00", "#56b4e9", "#000000", "#999999" };
enum { PALETTE_SIZE = (int)(sizeof palette / sizeof palette[0]) };

enum transform { PLAIN, ENERGY_ERROR, ABSOLUTE };

// One CSV file: its header, and E(0) when the energy error is drawn.
typedef struct csv_file {
    const char *path;
    char *label;      // legend text
    char **names;     // header fields
    int count;
    long rows;        // data rows
    double e0;        // E in the first data row
} csv_file;

// One curve of the figure.
typedef struct series {
    int file, xcol, ycol;    // 0-based columns
    enum transform transform;
    const char *quantity;    // what is drawn, for the legend: a column name or "|E - E(0)|"
    char *owned;             // quantity text when allocated here
    long points;             // drawable points
    int color, dash;
    char *title;
} series;

typedef struct plot_state {
    const cli_plot_request *r;
    csv_file *files;
    series *series;
    int series_count, series_cap;
    const char *write_path;   // where gnuplot writes: the figure's temporary name
} plot_state;

static int fail(const char *who, const char *fmt, ...)
{
    va_list ap;
    fprintf(stderr, "%s: error: ", who);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    return EXIT_BAD_INPUT;
}

static int out_of_memory(const char *who)
{
    fprintf(stderr, "%s: error: out of memory\n", who);
    return EXIT_OUT_OF_MEMORY;
}

static void note(const char *who, const char *fmt, ...)
{
    va_list ap;
    fprintf(stderr, "%s: note: ", who);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
}

static char *copy_string(const char *s, size_t n)
{
    char *c = malloc(n + 1);
    if (c) {
        memcpy(c, s, n);
        c[n] = '\0';
    }
    return c;
}

static int has_control_char(const char *s)
{
    for (; *s; s++)
        if ((unsigned char)*s < 0x20 || *s == 0x7f)
            return 1;
    return 0;
}

static int ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), m = strlen(suffix);
    return n >= m && !strcmp(s + n - m, suffix);
}

static int starts_with(const char *s, const char *prefix)
{
    return !strncmp(s, prefix, strlen(prefix));
}

// output format from the file name: 1 png, 2 svg, 0 other
static int output_format(const char *path)
{
    size_t n = strlen(path);
    if (n > 4 && (!strcmp(path + n - 4, ".png") || !strcmp(path + n - 4, ".PNG")))
        return 1;
    if (n > 4 && (!strcmp(path + n - 4, ".svg") || !strcmp(path + n - 4, ".SVG")))
        return 2;
    return 0;
}

// Finds an executable gnuplot on PATH; writes its path into buf. 0 if found.
static int find_gnuplot(char *buf, size_t size)
{
    const char *path = getenv("PATH");
    if (!path || !*path)
        return -1;
    while (1) {
        const char *end = strchr(path, ':');
        size_t len = end ? (size_t)(end - path) : strlen(path);
        // an empty PATH entry is the current directory
        int n = len ? snprintf(buf, size, "%.*s/gnuplot", (int)len, path)
                    : snprintf(buf, size, "./gnuplot");
        if (n > 0 && (size_t)n < size && access(buf, X_OK) == 0)
            return 0;
        if (!end)
            return -1;
        path = end + 1;
    }
}

static int no_gnuplot(const char *who)
{
    return fail(who, "gnuplot is not installed (not found on PATH); install the Debian package "
                     "gnuplot-nox (apt-get install gnuplot-nox, or bash scripts/setup.sh)");
}

int cli_plot_check_output(const char *out_path, const char *who)
{
    char gnuplot[4096];
    if (!out_path || !*out_path)
        return fail(who, "no output file given (-o FILE.png or -o FILE.svg)");
    if (!output_format(out_path))
        return fail(who, "the figure '%s' must end in .png or .svg", out_path);
    if (has_control_char(out_path))
        return fail(who, "the figure's file name contains a control character");
    if (find_gnuplot(gnuplot, sizeof gnuplot))
        return no_gnuplot(who);
    return 0;
}

void cli_plot_default_request(cli_plot_request *r)
{
    memset(r, 0, sizeof *r);
    r->kind = CLI_PLOT_COLUMNS;
    r->width = 800;
    r->height = 500;
    r->who = "dirac plot";
}

// splits a CSV line into fields (quoted as the dirac CSV writer quotes: "a""b"); the line is
// modified in place; returns the number of fields or -1 (out of memory)
static int split_fields(char *line, char ***fields)
{
    int count = 0, cap = 16;
    char **f = malloc((size_t)cap * sizeof *f);
    if (!f)
        return -1;
    char *p = line;
    while (1) {
        if (count == cap) {
            cap *= 2;
            char **g = realloc(f, (size_t)cap * sizeof *f);
            if (!g) {
                free(f);
                return -1;
            }
            f = g;
        }
        char *out = p;
        f[count++] = out;
        if (*p == '"') {
            p++;
            while (*p) {
                if (*p == '"' && p[1] == '"') {
                    *out++ = '"';
                    p += 2;
                } else if (*p == '"') {
                    p++;
                    break;
                } else {
                    *out++ = *p++;
                }
            }
            while (*p && *p != ',')
                p++;
        } else {
            while (*p && *p != ',')
                out = ++p;
        }
        int more = *p == ',';
        *out = '\0';
        if (!more)
            break;
        p++;
    }
    *fields = f;
    return count;
}

static void chomp(char *line)
{
    size_t n = strlen(line);
    while (n > 0 && (line[n - 1] == '\n' || line[n - 1] == '\r'))
        line[--n] = '\0';
}

// reads the header of file `f` into names; 0 or an exit status
static int read_header(const char *who, csv_file *file)
{
    // gnuplot reads the file again: it must be a file, not a device, FIFO or directory
    struct stat st;
    if (stat(file->path, &st) == 0 && !S_ISREG(st.st_mode))
        return fail(who, "cannot read '%s': not a regular file", file->path);
    FILE *in = fopen(file->path, "r");
    if (!in)
        return fail(who, "cannot read '%s': %s", file->path, strerror(errno));
    char *line = NULL;
    size_t cap = 0;
    int rc = 0;
    if (getline(&line, &cap, in) < 0) {
        rc = fail(who, "'%s' is empty (no CSV header)", file->path);
    } else {
        chomp(line);
        char **fields = NULL;
        int count = split_fields(line, &fields);
        if (count < 0) {
            rc = out_of_memory(who);
        } else {
            file->names = calloc((size_t)count, sizeof *file->names);
            for (int i = 0; file->names && i < count; i++) {
                file->names[i] = copy_string(fields[i], strlen(fields[i]));
                if (!file->names[i])
                    rc = out_of_memory(who);
            }
            if (!file->names)
                rc = out_of_memory(who);
            else
                file->count = count;
            free(fields);
        }
    }
    free(line);
    fclose(in);
    return rc;
}

static int find_column(const csv_file *file, const char *name)
{
    for (int i = 0; i < file->count; i++)
        if (!strcmp(file->names[i], name))
            return i;
    return -1;
}

static int no_column(const char *who, const csv_file *file, const char *name, const char *why)
{
    fprintf(stderr, "%s: error: no column '%s'%s in %s (columns:", who, name, why, file->path);
    size_t width = 0;
    for (int i = 0; i < file->count; i++) {
        if (width > 400) {
            fprintf(stderr, " ... %d more", file->count - i);
            break;
        }
        fprintf(stderr, "%s %s", i ? "," : "", file->names[i]);
        width += strlen(file->names[i]) + 2;
    }
    fputs(")\n", stderr);
    return EXIT_BAD_INPUT;
}

static int add_series(plot_state *s, int file, int xcol, int ycol, enum transform transform,
                      const char *quantity)
{
    if (s->series_count == s->series_cap) {
        int cap = s->series_cap ? 2 * s->series_cap : 16;
        series *g = realloc(s->series, (size_t)cap * sizeof *g);
        if (!g)
            return out_of_memory(s->r->who);
        s->series = g;
        s->series_cap = cap;
    }
    series *e = &s->series[s->series_count++];
    memset(e, 0, sizeof *e);
    e->file = file;
    e->xcol = xcol;
    e->ycol = ycol;
    e->transform = transform;
    if (transform == ABSOLUTE) {
        size_t n = strlen(quantity);
        e->owned = malloc(n + 3);
        if (!e->owned)
            return out_of_memory(s->r->who);
        snprintf(e->owned, n + 3, "|%s|", quantity);
        e->quantity = e->owned;
    } else {
        e->quantity = quantity;
    }
    return 0;
}

// the coordinates of a dirac CSV: the columns after t that are followed by their velocities
// NAME'; without coordinates, the entropy columns S.NAME
static int default_columns(const csv_file *f, int *first, int *count)
{
    int k = 1;
    while (k < f->count && !ends_with(f->names[k], "'"))
        k++;
    int n = k - 1;
    int ok = k < f->count && n > 0 && k + n <= f->count;
    for (int j = 0; ok && j < n; j++) {
        const char *q = f->names[1 + j], *v = f->names[k + j];
        ok = strlen(v) == strlen(q) + 1 && !strncmp(v, q, strlen(q));
    }
    if (ok) {
        *first = 1;
        *count = n;
        return 0;
    }
    for (int i = 1; i < f->count; i++)
        if (starts_with(f->names[i], "S.")) {
            int j = i;
            while (j < f->count && starts_with(f->names[j], "S."))
                j++;
            *first = i;
            *count = j - i;
            return 0;
        }
    return -1;
}

// turns the request into series
static int make_series(plot_state *s)
{
    const cli_plot_request *r = s->r;
    const char *who = r->who;
    int rc = 0;
    for (int f = 0; f < r->file_count && !rc; f++) {
        csv_file *file = &s->files[f];
        const char *xname = r->x ? r->x : "t";
        int xcol = find_column(file, xname);
        if (xcol < 0 && r->kind == CLI_PLOT_COLUMNS && !r->x)
            xcol = 0;   // a CSV without t: the first column
        if (xcol < 0)
            return no_column(who, file, xname, r->x ? "" : " (time)");
        switch (r->kind) {
        case CLI_PLOT_COLUMNS:
            if (!r->y) {
                int first = 0, count = 0;
                if (default_columns(&s->files[0], &first, &count))
                    return fail(who, "cannot tell the coordinates of %s (no columns NAME "
                                     "followed by NAME'); choose columns with --y",
                                s->files[0].path);
                for (int j = 0; j < count && !rc; j++) {
                    const char *name = s->files[0].names[first + j];
                    int ycol = find_column(file, name);
                    if (ycol < 0)
                        return no_column(who, file, name, " (a coordinate of the first file)");
                    rc = add_series(s, f, xcol, ycol, PLAIN, name);
                }
            } else {
                const char *p = r->y;
                while (!rc) {
                    const char *end = strchr(p, ',');
                    size_t len = end ? (size_t)(end - p) : strlen(p);
                    if (len == 0)
                        return fail(who, "--y has an empty column name in '%s'", r->y);
                    int ycol = -1;
                    for (int i = 0; i < file->count; i++)
                        if (strlen(file->names[i]) == len && !strncmp(file->names[i], p, len))
                            ycol = i;
                    if (ycol < 0) {
                        char *name = copy_string(p, len);
                        rc = no_column(who, file, name ? name : p, "");
                        free(name);
                        return rc;
                    }
                    rc = add_series(s, f, xcol, ycol, PLAIN, file->names[ycol]);
                    if (!end)
                        break;
                    p = end + 1;
                }
            }
            break;
        case CLI_PLOT_PHASE: {
            size_t n = strlen(xname);
            char *v = malloc(n + 2);
            if (!v)
                return out_of_memory(who);
            snprintf(v, n + 2, "%s'", xname);
            int ycol = find_column(file, v);
            if (ycol < 0)
                rc = no_column(who, file, v, " (the velocity of --phase)");
            else
                rc = add_series(s, f, xcol, ycol, PLAIN, file->names[ycol]);
            free(v);
            break;
        }
        case CLI_PLOT_XY: {
            int ycol = find_column(file, r->y);
            if (ycol < 0)
                return no_column(who, file, r->y, "");
            rc = add_series(s, f, xcol, ycol, PLAIN, file->names[ycol]);
            break;
        }
        case CLI_PLOT_ERRORS: {
            int residuals = 0;
            for (int i = 0; i < file->count; i++)
                if (starts_with(file->names[i], "residual") && i != xcol)
                    residuals++;
            if (r->errors & CLI_PLOT_ERRORS_ENERGY) {
                int ecol = find_column(file, "E");
                if (ecol < 0)
                    return no_column(who, file, "E", " (the energy, for --errors)");
                rc = add_series(s, f, xcol, ecol, ENERGY_ERROR, "|E - E(0)|");
            }
            if (!(r->errors & CLI_PLOT_ERRORS_CONSTRAINTS) || rc)
                break;
            if (residuals == 0) {
                if (r->errors == CLI_PLOT_ERRORS_CONSTRAINTS)
                    return fail(who, "%s has no constraint residual column (--errors draws "
                                     "the columns whose names start with 'residual', e.g. from "
                                     "'output residual_rod = x^2 + y^2 - l^2' in the model)",
                                file->path);
                note(who, "%s has no column named residual*: only the energy error is drawn",
                     file->path);
            }
            for (int i = 0; i < file->count && !rc; i++)
                if (starts_with(file->names[i], "residual") && i != xcol)
                    rc = add_series(s, f, xcol, i, ABSOLUTE, file->names[i]);
            break;
        }
        }
    }
    return rc;
}

static double field_value(char **fields, int count, int col)
{
    if (col >= count)
        return (double)NAN;
    char *end;
    double v = strtod(fields[col], &end);
    return end == fields[col] ? (double)NAN : v;
}

static double series_value(const series *e, const csv_file *file, double y)
{
    switch (e->transform) {
    case ENERGY_ERROR:
        return fabs(y - file->e0);
    case ABSOLUTE:
        return fabs(y);
    case PLAIN:
        break;
    }
    return y;
}

// reads the data rows of every file: row counts, E(0), drawable points per series
static int scan_data(plot_state *s, int logy)
{
    const char *who = s->r->who;
    for (int f = 0; f < s->r->file_count; f++) {
        csv_file *file = &s->files[f];
        FILE *in = fopen(file->path, "r");
        if (!in)
            return fail(who, "cannot read '%s': %s", file->path, strerror(errno));
        char *line = NULL;
        size_t cap = 0;
        long row = -1;
        int rc = 0;
        int ecol = find_column(file, "E");
        while (!rc && getline(&line, &cap, in) >= 0) {
            if (++row == 0)
                continue;   // the header
            chomp(line);
            if (!*line) {
                row--;
                continue;
            }
            char **fields = NULL;
            int count = split_fields(line, &fields);
            if (count < 0) {
                rc = out_of_memory(who);
                break;
            }
            if (row == 1)
                file->e0 = ecol >= 0 ? field_value(fields, count, ecol) : (double)NAN;
            for (int i = 0; i < s->series_count; i++) {
                series *e = &s->series[i];
                if (e->file != f)
                    continue;
                double x = field_value(fields, count, e->xcol);
                double y = series_value(e, file, field_value(fields, count, e->ycol));
                if (isfinite(x) && isfinite(y) && (!logy || y > 0))
                    e->points++;
            }
            free(fields);
        }
        if (!rc && ferror(in))
            rc = fail(who, "cannot read '%s': %s", file->path, strerror(errno));
        free(line);
        fclose(in);
        if (rc)
            return rc;
        file->rows = row < 0 ? 0 : row;
        if (file->rows == 0)
            return fail(who, "'%s' has no data rows (only a header)", file->path);
        for (int i = 0; i < s->series_count; i++)
            if (s->series[i].file == f && s->series[i].transform == ENERGY_ERROR &&
                !isfinite(file->e0))
                return fail(who, "E in the first data row of '%s' is not a finite number",
                            file->path);
    }
    return 0;
}

// legend text of a file: the label, or the file name without directory and ".csv"
static char *file_label(const cli_plot_request *r, int f)
{
    if (r->label_count > 0)
        return copy_string(r->labels[f], strlen(r->labels[f]));
    const char *path = r->files[f];
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    size_t n = strlen(base);
    if (n > 4 && (ends_with(base, ".csv") || ends_with(base, ".CSV")))
        n -= 4;
    return copy_string(base, n);
}

// colours, dashes and legend texts: with several files, one colour per file and one dash
// pattern per quantity; with one file, one colour per quantity
static int style_series(plot_state *s)
{
    const char *quantities[64];
    int quantity_count = 0, many = 0;
    int *index = malloc((size_t)s->series_count * sizeof *index);
    if (!index && s->series_count > 0)
        return out_of_memory(s->r->who);
    for (int i = 0; i < s->series_count; i++) {
        int q = 0;
        while (q < quantity_count && strcmp(quantities[q], s->series[i].quantity))
            q++;
        if (q == quantity_count) {
            if (quantity_count < 64) {
                quantities[quantity_count++] = s->series[i].quantity;
            } else {
                many = 1;   // more than 64 quantities: the last dash pattern for the rest
                q = 63;
            }
        }
        index[i] = q;
    }
    int files = s->r->file_count, distinct = many ? 65 : quantity_count;
    for (int i = 0; i < s->series_count; i++) {
        series *e = &s->series[i];
        const char *label = s->files[e->file].label;
        if (files > 1) {
            e->color = e->file % PALETTE_SIZE;
            e->dash = distinct > 1 ? 1 + index[i] % 5 : 1 + (e->file / PALETTE_SIZE) % 5;
        } else {
            e->color = index[i] % PALETTE_SIZE;
            e->dash = 1 + (index[i] / PALETTE_SIZE) % 5;
        }
        size_t n = strlen(label) + strlen(e->quantity) + 3;
        e->title = malloc(n);
        if (!e->title) {
            free(index);
            return out_of_memory(s->r->who);
        }
        if (files == 1)
            snprintf(e->title, n, "%s", e->quantity);
        else if (distinct == 1)
            snprintf(e->title, n, "%s", label);
        else
            snprintf(e->title, n, "%s: %s", label, e->quantity);
    }
    free(index);
    return 0;
}

// writes PREFIX TEXT as a single-quoted gnuplot string: '' for ', control characters as
// spaces (no macro, backquote or escape processing happens inside single quotes)
static void put_quoted(FILE *out, const char *prefix, const char *text)
{
    putc('\'', out);
    fputs(prefix, out);
    for (const char *p = text; *p; p++) {
        if (*p == '\'')
            fputs("''", out);
        else if ((unsigned char)*p < 0x20 || *p == 0x7f)
            putc(' ', out);
        else
            putc(*p, out);
    }
    putc('\'', out);
}

static void put_text(FILE *out, const char *text)
{
    put_quoted(out, "", text);
}

// writes a path as a gnuplot string; relative paths start with ./ so that gnuplot never
// reads them as '<command', '|command', '-', '+', '~/...' or '$datablock'
static void put_path(FILE *out, const char *path)
{
    put_quoted(out, path[0] == '/' ? "" : "./", path);
}

// the SI unit of a column, where the CSV's conventions give it (NULL: not known)
static const char *column_unit(const char *name)
{
    if (!strcmp(name, "t"))
        return "s";
    if (!strcmp(name, "E"))
        return "J";
    if (starts_with(name, "P."))
        return "W";
    if (starts_with(name, "T."))
        return "K";
    if (starts_with(name, "S."))
        return "J/K";
    return NULL;
}

// writes "set AXISlabel 'TEXT (UNIT)'" (no unit if NULL)
static void put_label_unit(FILE *out, const char *axis, const char *text, const char *unit)
{
    size_t n = strlen(text) + (unit ? strlen(unit) + 4 : 0) + 1;
    char *label = malloc(n);
    if (!label)
        return;
    if (unit)
        snprintf(label, n, "%s (%s)", text, unit);
    else
        snprintf(label, n, "%s", text);
    fprintf(out, "set %slabel ", axis);
    put_text(out, label);
    putc('\n', out);
    free(label);
}

static void put_axis_label(FILE *out, const char *axis, const char *name)
{
    put_label_unit(out, axis, name, column_unit(name));
}

static void put_ylabel(FILE *out, const plot_state *s)
{
    const cli_plot_request *r = s->r;
    if (r->ylabel) {
        fputs("set ylabel ", out);
        put_text(out, r->ylabel);
        putc('\n', out);
        return;
    }
    if (r->kind == CLI_PLOT_ERRORS) {
        int residuals = 0;
        for (int i = 0; i < s->series_count; i++)
            residuals |= s->series[i].transform == ABSOLUTE;
        fputs("set ylabel ", out);
        put_text(out, !(r->errors & CLI_PLOT_ERRORS_ENERGY) ? "|constraint residual|"
                      : residuals ? "|E - E(0)| (J), |constraint residual|"
                                  : "|E - E(0)| (J)");
        putc('\n', out);
        return;
    }
    // the y columns of the first file, with their unit if they share one
    char text[128];
    size_t used = 0;
    int count = 0, fits = 1;
    const char *unit = NULL;
    text[0] = '\0';
    for (int i = 0; i < s->series_count && s->series[i].file == 0; i++) {
        const char *name = s->files[0].names[s->series[i].ycol];
        const char *u = column_unit(name);
        if (i == 0)
            unit = u;
        else if (!u || !unit || strcmp(u, unit))
            unit = NULL;
        size_t n = strlen(name);
        if (used + n + 3 >= 60) {
            fits = 0;
            continue;
        }
        used += (size_t)snprintf(text + used, sizeof text - used, "%s%s", count ? ", " : "",
                                 name);
        count++;
    }
    put_label_unit(out, "y", fits ? text : "(see the key)", unit);
}

static void put_range(FILE *out, const char *axis, const char *range)
{
    const char *colon = strchr(range, ':');
    fprintf(out, "set %srange [", axis);
    if (colon > range)
        fprintf(out, "%.17g", strtod(range, NULL));
    else
        putc('*', out);
    putc(':', out);
    if (colon[1])
        fprintf(out, "%.17g", strtod(colon + 1, NULL));
    else
        putc('*', out);
    fputs("]\n", out);
}

static void write_script(FILE *out, const plot_state *s, int logy)
{
    const cli_plot_request *r = s->r;
    if (output_format(r->out) == 2) {
        fprintf(out, "set terminal svg size %d,%d noenhanced font 'Sans,12' "
                     "background rgb 'white'\n", r->width, r->height);
    } else {
        // pngcairo (antialiased) when this gnuplot has it, else libgd's png
        fprintf(out, "if (strstrt(GPVAL_TERMINALS, 'pngcairo') > 0) {\n"
                     "  set terminal pngcairo size %d,%d noenhanced font 'Sans,10' "
                     "background rgb 'white'\n"
                     "} else {\n"
                     "  set terminal png size %d,%d noenhanced background rgb 'white'\n"
                     "}\n", r->width, r->height, r->width, r->height);
    }
    fputs("set output ", out);
    put_path(out, s->write_path);
    fputs("\nset datafile separator comma\nset encoding utf8\n", out);
    fputs("set grid lc rgb '#dddddd'\nset border lc rgb '#404040'\n", out);
    if (r->title) {
        fputs("set title ", out);
        put_text(out, r->title);
        putc('\n', out);
    }
    const series *first = &s->series[0];
    if (r->xlabel) {
        fputs("set xlabel ", out);
        put_text(out, r->xlabel);
        putc('\n', out);
    } else {
        put_axis_label(out, "x", s->files[first->file].names[first->xcol]);
    }
    put_ylabel(out, s);
    if (r->kind == CLI_PLOT_XY)
        fputs("set size ratio -1\n", out);
    else if (r->kind != CLI_PLOT_PHASE)
        fputs("set autoscale xfix\n", out);   // the x axis (time) ends at the data
    if (logy)
        fputs("set logscale y\nset format y '%g'\n", out);
    if (r->xrange)
        put_range(out, "x", r->xrange);
    if (r->yrange)
        put_range(out, "y", r->yrange);
    else if (!logy && r->kind != CLI_PLOT_XY)
        fputs("set offsets 0, 0, graph 0.04, graph 0.04\n", out);   // headroom for the extremes
    int drawn = 0;
    for (int i = 0; i < s->series_count; i++)
        drawn += s->series[i].points > 0;
    if (drawn > 1 || s->series_count > 1)
        fputs("set key outside right top reverse Left noautotitle spacing 1.2\n", out);
    else
        fputs("unset key\n", out);
    fputs("positive(v) = v > 0 ? v : NaN\n", out);
    fputs("plot \\\n", out);
    int written = 0;
    for (int i = 0; i < s->series_count; i++) {
        const series *e = &s->series[i];
        const csv_file *file = &s->files[e->file];
        if (written++)
            fputs(", \\\n", out);
        fputs("  ", out);
        if (e->points == 0) {
            // in the key only: nothing of it can be drawn
            char text[512];
            snprintf(text, sizeof text, "%s (%s)", e->title,
                     logy ? "no positive value" : "no finite value");
            fputs("NaN with lines", out);
            fprintf(out, " lw 1.5 lc rgb '%s' dt %d title ", palette[e->color], e->dash);
            put_text(out, text);
            continue;
        }
        put_path(out, file->path);
        fprintf(out, " skip 1 using %d:", e->xcol + 1);
        const char *wrap = logy ? "positive" : "";
        switch (e->transform) {
        case PLAIN:
            fprintf(out, "(%s($%d))", wrap, e->ycol + 1);
            break;
        case ENERGY_ERROR:
            fprintf(out, "(%s(abs($%d - (%.17g))))", wrap, e->ycol + 1, file->e0);
            break;
        case ABSOLUTE:
            fprintf(out, "(%s(abs($%d)))", wrap, e->ycol + 1);
            break;
        }
        // an isolated point (its neighbours not drawable) still shows with a small dot
        const char *style = r->kind == CLI_PLOT_ERRORS ? "linespoints pt 7 ps 0.25" : "lines";
        fprintf(out, " with %s lw 1.5 lc rgb '%s' dt %d title ", style, palette[e->color],
                e->dash);
        put_text(out, e->title);
    }
    fputc('\n', out);
}

// runs gnuplot on the script file; its messages are printed after WHO
static int run_gnuplot(const char *who, const char *gnuplot, const char *script, const char *out)
{
    int fds[2];
    if (pipe(fds))
        return fail(who, "cannot start gnuplot: %s", strerror(errno));
    pid_t pid = fork();
    if (pid < 0) {
        close(fds[0]);
        close(fds[1]);
        return fail(who, "cannot start gnuplot: %s", strerror(errno));
    }
    if (pid == 0) {
        close(fds[0]);
        dup2(fds[1], STDERR_FILENO);
        dup2(fds[1], STDOUT_FILENO);
        close(fds[1]);
        // the script is UTF-8 (set encoding utf8): under a non-UTF-8 locale, such as the C
        // locale of a fresh machine, gnuplot warns that iconv cannot convert its degree sign
        setenv("LC_ALL", "C.UTF-8", 1);
        char *const args[] = { "gnuplot", (char *)script, NULL };
        execv(gnuplot, args);
        _exit(127);
    }
    close(fds[1]);
    char messages[8192];
    size_t used = 0;
    ssize_t n;
    char chunk[1024];
    while ((n = read(fds[0], chunk, sizeof chunk)) != 0) {
        if (n < 0) {
            if (errno == EINTR)
                continue;
            break;
        }
        size_t take = (size_t)n;
        if (take > sizeof messages - 1 - used)
            take = sizeof messages - 1 - used;
        memcpy(messages + used, chunk, take);
        used += take;
    }
    close(fds[0]);
    messages[used] = '\0';
    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
        ;
    int ok = WIFEXITED(status) && WEXITSTATUS(status) == 0;
    if (!ok) {
        if (WIFEXITED(status))
            fprintf(stderr, "%s: error: gnuplot failed (exit status %d) drawing %s\n", who,
                    WEXITSTATUS(status), out);
        else
            fprintf(stderr, "%s: error: gnuplot was killed (signal %d) drawing %s\n", who,
                    WIFSIGNALED(status) ? WTERMSIG(status) : 0, out);
    }
    // gnuplot's own messages, one per line, after the prefix
    for (char *line = messages; *line;) {
        char *end = strchr(line, '\n');
        if (end)
            *end = '\0';
        if (*line)
            fprintf(stderr, "%s: gnuplot: %s\n", who, line);
        if (!end)
            break;
        line = end + 1;
    }
    return ok ? 0 : EXIT_FAILED;
}

static int check_range(const char *who, const char *option, const char *range)
{
    if (!range)
        return 0;
    const char *colon = strchr(range, ':');
    if (!colon || strchr(colon + 1, ':'))
        return fail(who, "%s needs MIN:MAX (either may be empty), got '%s'", option, range);
    char *end;
    double lo = 0, hi = 0;
    if (colon > range) {
        lo = strtod(range, &end);
        if (end != colon || !isfinite(lo))
            return fail(who, "%s: '%s' is not MIN:MAX with numbers", option, range);
    }
    if (colon[1]) {
        hi = strtod(colon + 1, &end);
        if (*end || !isfinite(hi))
            return fail(who, "%s: '%s' is not MIN:MAX with numbers", option, range);
    }
    if (colon > range && colon[1] && !(lo < hi))
        return fail(who, "%s: MIN must be below MAX, got '%s'", option, range);
    return 0;
}

static int check_request(const cli_plot_request *r)
{
    const char *who = r->who;
    if (r->file_count < 1)
        return fail(who, "no CSV file given");
    if (r->label_count && r->label_count != r->file_count)
        return fail(who, "%d --label options for %d files (give one per file, or none)",
                    r->label_count, r->file_count);
    for (int f = 0; f < r->file_count; f++)
        if (has_control_char(r->files[f]))
            return fail(who, "the file name '%s' contains a control character", r->files[f]);
    if ((r->kind == CLI_PLOT_PHASE || r->kind == CLI_PLOT_XY) && !r->x)
        return fail(who, "internal: no x column for --phase/--xy");
    if (r->kind == CLI_PLOT_XY && !r->y)
        return fail(who, "internal: no y column for --xy");
    if (r->width < 100 || r->height < 100 || r->width > 10000 || r->height > 10000)
        return fail(who, "the figure size must be from 100 to 10000 pixels, got %dx%d",
                    r->width, r->height);
    int rc = check_range(who, "--xrange", r->xrange);
    if (!rc)
        rc = check_range(who, "--yrange", r->yrange);
    if (!rc && r->yrange && (r->logy || r->kind == CLI_PLOT_ERRORS)) {
        const char *colon = strchr(r->yrange, ':');
        if ((colon > r->yrange && !(strtod(r->yrange, NULL) > 0)) ||
            (colon[1] && !(strtod(colon + 1, NULL) > 0)))
            rc = fail(who, "--yrange on a log scale needs positive limits, got '%s'",
                      r->yrange);
    }
    for (int f = 0; !rc && f < r->file_count; f++)
        if (!strcmp(r->files[f], r->out) || output_same_file(r->files[f], r->out))
            rc = fail(who, "refusing to overwrite the CSV file '%s' with the figure", r->files[f]);
    return rc;
}

static void free_state(plot_state *s)
{
    for (int f = 0; s->files && f < s->r->file_count; f++) {
        for (int i = 0; i < s->files[f].count; i++)
            free(s->files[f].names[i]);
        free(s->files[f].names);
        free(s->files[f].label);
    }
    free(s->files);
    for (int i = 0; i < s->series_count; i++) {
        free(s->series[i].owned);
        free(s->series[i].title);
    }
    free(s->series);
}

int cli_plot_draw(const cli_plot_request *r)
{
    const char *who = r->who ? r->who : "dirac plot";
    cli_plot_request req = *r;
    req.who = who;
    int rc = cli_plot_check_output(req.out, who);
    if (!rc)
        rc = check_request(&req);
    if (rc)
        return rc;
    char gnuplot[4096];
    if (find_gnuplot(gnuplot, sizeof gnuplot))
        return no_gnuplot(who);

    plot_state s;
    memset(&s, 0, sizeof s);
    s.r = &req;
    s.files = calloc((size_t)req.file_count, sizeof *s.files);
    if (!s.files)
        return out_of_memory(who);
    for (int f = 0; f < req.file_count && !rc; f++) {
        s.files[f].path = req.files[f];
        s.files[f].label = file_label(&req, f);
        rc = s.files[f].label ? read_header(who, &s.files[f]) : out_of_memory(who);
    }
    int logy = req.logy || req.kind == CLI_PLOT_ERRORS;
    if (!rc)
        rc = make_series(&s);
    if (!rc)
        rc = scan_data(&s, logy);
    if (!rc)
        rc = style_series(&s);
    if (!rc) {
        int drawn = 0;
        for (int i = 0; i < s.series_count; i++) {
            const series *e = &s.series[i];
            drawn += e->points > 0;
            if (e->points == 0)
                note(who, "%s in %s has %s", e->quantity, s.files[e->file].path,
                     logy ? "no positive value: nothing to draw on a log scale"
                          : "no finite value: nothing to draw");
        }
        if (drawn == 0)
            rc = fail(who, "nothing to draw: no series has a %s value",
                      logy ? "finite positive" : "finite");
    }

    // the figure goes to a temporary name next to it, renamed into place when complete;
    // creating it also checks that the output can be created (gnuplot's message is less clear)
    output_file figure;
    memset(&figure, 0, sizeof figure);
    if (!rc) {
        int e = output_open(&figure, req.out);
        if (e)
            rc = e == ENOMEM ? out_of_memory(who)
                             : fail(who, "cannot create '%s': %s", req.out, strerror(e));
        else if (figure.is_stdout) {
            output_discard(&figure);
            rc = fail(who, "the figure cannot go to standard output");
        } else {
            fflush(figure.file);   // gnuplot writes the file by its name
            s.write_path = output_write_path(&figure);
        }
    }

    char script[4096];
    int fd = -1;
    if (!rc) {
        const char *tmpdir = getenv("TMPDIR");
        if (!tmpdir || tmpdir[0] != '/' || strlen(tmpdir) > 3000)
            tmpdir = "/tmp";
        snprintf(script, sizeof script, "%s/dirac-plot-XXXXXX", tmpdir);
        fd = mkstemp(script);
        if (fd < 0)
            rc = fail(who, "cannot create a temporary file in %s: %s", tmpdir, strerror(errno));
    }
    if (!rc) {
        FILE *out = fdopen(fd, "w");
        if (!out) {
            close(fd);
            rc = fail(who, "cannot write a temporary file: %s", strerror(errno));
        } else {
            write_script(out, &s, logy);
            if (ferror(out) | fclose(out))
                rc = fail(who, "cannot write the temporary file %s", script);
        }
        if (!rc)
            rc = run_gnuplot(who, gnuplot, script, req.out);
        unlink(script);
    }
    if (!rc) {
        struct stat st;
        if (stat(s.write_path, &st) != 0 || st.st_size <= 0)
            rc = fail(who, "gnuplot wrote nothing to %s", req.out);
    }
    if (figure.file) {
        if (rc) {
            output_discard(&figure);
        } else {
            int e = output_commit(&figure, 0);
            if (e)
                rc = fail(who, "cannot write '%s': %s", req.out, strerror(e));
        }
    }
    free_state(&s);
    return rc;
}

int cli_plot_default(const char *csv_path, const char *out_path, const char *title)
{
    cli_plot_request r;
    cli_plot_default_request(&r);
    const char *files[1] = { csv_path };
    r.files = files;
    r.file_count = 1;
    r.title = title;
    r.out = out_path;
    r.who = "dirac simulate";
    return cli_plot_draw(&r);
}
