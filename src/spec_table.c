// table(x, "file.csv", column): reads the points of a CSV file for the parser, which turns
// them into pwl(x, x1, y1, ...). The file is relative to the model file's directory. Format:
// one row per line, fields separated by commas (or semicolons, tabs, spaces); an optional
// first row of column names; blank lines and lines starting with '#' are skipped. The first
// column is x (non-decreasing; equal x make a jump), `column` is y (1-based, so 2 is the
// second column, or a header name).
#include "parse.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

// most fields of one row
#define TABLE_FIELDS_MAX 256

static bool is_separator(char c)
{
    return c == ',' || c == ';' || c == '\t' || c == ' ' || c == '\r';
}

// splits one line into fields (start offsets and lengths); their number, -1 beyond the limit
static int split_fields(const char *line, size_t len, size_t *start, size_t *flen)
{
    int n = 0;
    size_t i = 0;
    while (i < len) {
        while (i < len && (line[i] == ' ' || line[i] == '\t' || line[i] == '\r'))
            i++;
        if (i >= len)
            break;
        if (n >= TABLE_FIELDS_MAX)
            return -1;
        size_t s = i;
        while (i < len && !is_separator(line[i]))
            i++;
        start[n] = s;
        flen[n] = i - s;
        n++;
        while (i < len && (line[i] == ' ' || line[i] == '\t' || line[i] == '\r'))
            i++;
        if (i < len && (line[i] == ',' || line[i] == ';'))
            i++;
    }
    return n;
}

static bool parse_number(const char *text, size_t len, double *out)
{
    char buf[64];
    if (len == 0 || len >= sizeof buf)
        return false;
    memcpy(buf, text, len);
    buf[len] = '\0';
    char *end = NULL;
    errno = 0;
    *out = strtod(buf, &end);
    return end == buf + len && errno == 0;
}

typedef struct table_points {
    double *xs, *ys;
    int n, x_cap, y_cap;
} table_points;

static bool add_point(spec *s, table_points *t, double x, double y)
{
    if (!mem_reserve(&s->mem, &t->xs, &t->x_cap, t->n + 1, sizeof *t->xs) ||
        !mem_reserve(&s->mem, &t->ys, &t->y_cap, t->n + 1, sizeof *t->ys))
        return false;
    t->xs[t->n] = x;
    t->ys[t->n] = y;
    t->n++;
    return true;
}

bool spec_table_read(spec *s, const char *dir, const char *file, spec_loc at,
                     const char *column_name, double column_number, spec_loc column_at,
                     double **xs, double **ys, int *count)
{
    *xs = *ys = NULL;
    *count = 0;
    if (!column_name && (column_number < 2 || column_number > TABLE_FIELDS_MAX ||
                         column_number != (double)(int)column_number))
        return spec_error(s, DIRAC_ERR_PARSE, column_at, "table(): the column must be a whole "
                          "number from 2 to %d (column 1 is x)", TABLE_FIELDS_MAX);
    size_t ld = dir && file[0] != '/' ? strlen(dir) : 0, lf = strlen(file);
    char *path = mem_arena_alloc(&s->arena, ld + 1 + lf + 1);
    if (!path) {
        spec_out_of_memory(s);
        return false;
    }
    memcpy(path, dir ? dir : "", ld);
    size_t o = ld;
    if (ld > 0 && dir[ld - 1] != '/')
        path[o++] = '/';
    memcpy(path + o, file, lf + 1);
    size_t size = 0;
    int error = 0;
    char *text = spec_read_file(s, path, &size, &error);
    if (!text) {
        if (error == ENOMEM) {
            spec_out_of_memory(s);
            return false;
        }
        return spec_error(s, DIRAC_ERR_IO, at, "table(): cannot read '%s': %s", path,
                          spec_read_error_text(error));
    }
    int col = column_name ? -1 : (int)column_number - 1;
    table_points t = { NULL, NULL, 0, 0, 0 };
    size_t start[TABLE_FIELDS_MAX], flen[TABLE_FIELDS_MAX];
    bool ok = true, first_row = true;
    int line_no = 0;
    for (size_t i = 0; ok && i < size;) {
        size_t e = i;
        while (e < size && text[e] != '\n')
            e++;
        line_no++;
        const char *line = text + i;
        size_t len = e - i;
        i = e + 1;
        int n = split_fields(line, len, start, flen);
        spec_loc loc = { path, line_no, 1 };
        if (n == 0 || line[start[0]] == '#')
            continue;
        if (n < 0) {
            ok = spec_error(s, DIRAC_ERR_PARSE, loc, "more than %d fields", TABLE_FIELDS_MAX);
            break;
        }
        double x = 0.0, y = 0.0;
        bool header = first_row && !parse_number(line + start[0], flen[0], &x);
        first_row = false;
        if (header) {
            if (!column_name)
                continue;
            for (int k = 1; k < n && col < 0; k++)
                if (flen[k] == strlen(column_name) &&
                    memcmp(line + start[k], column_name, flen[k]) == 0)
                    col = k;
            if (col < 0)
                ok = spec_error(s, DIRAC_ERR_PARSE, column_at, "table(): '%s' has no column "
                                "named '%s'", path, column_name);
            continue;
        }
        if (col < 0) {
            ok = spec_error(s, DIRAC_ERR_PARSE, column_at, "table(): '%s' has no header row to "
                            "find the column '%s' in", path, column_name);
            break;
        }
        if (col >= n) {
            ok = spec_error(s, DIRAC_ERR_PARSE, loc, "this row has %d field%s; table() reads "
                            "column %d", n, n == 1 ? "" : "s", col + 1);
            break;
        }
        for (int k = 0; ok && (k == 0 || k == col); k = k == 0 ? col : col + 1) {
            double v = 0.0;
            loc.col = (int)start[k] + 1;
            if (!parse_number(line + start[k], flen[k], &v) || v != v || v - v != 0)
                ok = spec_error(s, DIRAC_ERR_PARSE, loc, "expected a finite number, found "
                                "'%.*s'", flen[k] > 40 ? 40 : (int)flen[k], line + start[k]);
            if (k == 0)
                x = v;
            else
                y = v;
        }
        if (!ok)
            break;
        if (t.n > 0 && x < t.xs[t.n - 1]) {
            loc.col = (int)start[0] + 1;
            ok = spec_error(s, DIRAC_ERR_PARSE, loc, "x decreases (%.17g after %.17g): the "
                            "first column of a table must not decrease", x, t.xs[t.n - 1]);
            break;
        }
        if (!add_point(s, &t, x, y)) {
            spec_out_of_memory(s);
            ok = false;
        }
    }
    mem_free(&s->mem, text);
    if (ok && t.n == 0)
        ok = spec_error(s, DIRAC_ERR_PARSE, at, "table(): '%s' has no rows of numbers", path);
    if (!ok) {
        mem_free(&s->mem, t.xs);
        mem_free(&s->mem, t.ys);
        return false;
    }
    *xs = t.xs;
    *ys = t.ys;
    *count = t.n;
    return true;
}
