// Input tables of `dirac simulate --inputs` (input_table.h).
#define _POSIX_C_SOURCE 200809L   // getline

#include "input_table.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

// The next comma-separated field of *cursor (spaces trimmed), or NULL at the end of the line.
static char *next_field(char **cursor)
{
    char *s = *cursor;
    if (!s)
        return NULL;
    char *comma = strchr(s, ',');
    if (comma) {
        *comma = '\0';
        *cursor = comma + 1;
    } else {
        *cursor = NULL;
    }
    while (*s == ' ' || *s == '\t')
        s++;
    size_t n = strlen(s);
    while (n > 0 && (s[n - 1] == ' ' || s[n - 1] == '\t' || s[n - 1] == '\r' || s[n - 1] == '\n'))
        s[--n] = '\0';
    return s;
}

static int is_blank(const char *line)
{
    for (; *line; line++)
        if (*line != ' ' && *line != '\t' && *line != '\r' && *line != '\n')
            return *line == '#';
    return 1;
}

static int fail(char *msg, size_t size, const char *path, int line, const char *what,
                const char *detail)
{
    snprintf(msg, size, "%s:%d: %s%s", path, line, what, detail ? detail : "");
    return -1;
}

static int read_header(input_table *tb, char *line, const char *path, const dirac_model *m,
                       char *msg, size_t size)
{
    char *cursor = line;
    char *first = next_field(&cursor);
    if (!first || strcmp(first, "t") != 0)
        return fail(msg, size, path, 1, "the first column must be 't' (then one column per "
                    "input)", NULL);
    int capacity = 0;
    for (char *c = cursor; c; c = strchr(c + 1, ','))
        capacity++;
    tb->input = calloc((size_t)capacity + 1, sizeof *tb->input);
    if (!tb->input)
        return fail(msg, size, path, 1, "out of memory", NULL);
    for (char *name; (name = next_field(&cursor)) != NULL;) {
        int k = dirac_model_input_index(m, name);
        if (k < 0) {
            char detail[512];
            int n = dirac_model_input_count(m);
            snprintf(detail, sizeof detail, "unknown column '%.200s' (model '%.100s' has %s",
                     name, dirac_model_name(m), n ? "the inputs " : "no inputs");
            for (int j = 0; j < n; j++) {
                size_t used = strlen(detail);
                snprintf(detail + used, sizeof detail - used, "%s%s", j ? ", " : "",
                         dirac_model_input_name(m, j));
            }
            strncat(detail, ")", sizeof detail - strlen(detail) - 1);
            return fail(msg, size, path, 1, detail, NULL);
        }
        for (int j = 0; j < tb->columns; j++)
            if (tb->input[j] == k)
                return fail(msg, size, path, 1, "duplicate column ", name);
        tb->input[tb->columns++] = k;
    }
    return 0;
}

int input_table_load(input_table *tb, const char *path, const dirac_model *m,
                     input_interp interp, char *msg, size_t size)
{
    memset(tb, 0, sizeof *tb);
    tb->interp = interp;
    FILE *f = fopen(path, "r");
    if (!f) {
        snprintf(msg, size, "cannot read '%s': %s", path, strerror(errno));
        return -1;
    }
    char *line = NULL;
    size_t cap = 0;
    int line_no = 0, rc = 0, have_header = 0, row_cap = 0;
    while (rc == 0 && getline(&line, &cap, f) >= 0) {
        line_no++;
        if (is_blank(line))
            continue;
        if (!have_header) {
            rc = read_header(tb, line, path, m, msg, size);
            have_header = 1;
            continue;
        }
        if (tb->rows == row_cap) {
            row_cap = row_cap ? 2 * row_cap : 64;
            double *t = realloc(tb->t, (size_t)row_cap * sizeof *t);
            if (t)
                tb->t = t;
            double *v = realloc(tb->values,
                                (size_t)row_cap * (size_t)(tb->columns + 1) * sizeof *v);
            if (v)
                tb->values = v;
            if (!t || !v) {
                rc = fail(msg, size, path, line_no, "out of memory", NULL);
                break;
            }
        }
        char *cursor = line;
        for (int c = -1; rc == 0 && c < tb->columns; c++) {
            char *field = next_field(&cursor), *end = NULL;
            if (!field) {
                rc = fail(msg, size, path, line_no, "too few columns", NULL);
                break;
            }
            errno = 0;
            double x = strtod(field, &end);
            if (end == field || *end != '\0' || errno == ERANGE || !isfinite(x))
                rc = fail(msg, size, path, line_no, "not a finite number: ", field);
            else if (c < 0)
                tb->t[tb->rows] = x;
            else
                tb->values[(size_t)tb->rows * (size_t)tb->columns + (size_t)c] = x;
        }
        if (rc == 0 && cursor)
            rc = fail(msg, size, path, line_no, "too many columns", NULL);
        if (rc == 0 && tb->rows > 0 && !(tb->t[tb->rows] > tb->t[tb->rows - 1]))
            rc = fail(msg, size, path, line_no, "t must increase strictly from row to row", NULL);
        if (rc == 0)
            tb->rows++;
    }
    if (rc == 0 && !have_header)
        rc = fail(msg, size, path, line_no, "empty file (expected a header 't,INPUT,...')", NULL);
    else if (rc == 0 && tb->rows == 0)
        rc = fail(msg, size, path, line_no, "no rows after the header", NULL);
    free(line);
    fclose(f);
    if (rc)
        input_table_free(tb);
    return rc;
}

void input_table_apply(const input_table *tb, dirac_sim *sim, double time)
{
    // the row interval [t_i, t_{i+1}) that holds `time` (binary search), clamped to the table
    int lo = 0, hi = tb->rows - 1;
    if (time <= tb->t[0])
        hi = 0;
    else if (time >= tb->t[hi])
        lo = hi;
    else
        while (hi - lo > 1) {
            int mid = lo + (hi - lo) / 2;
            if (tb->t[mid] <= time)
                lo = mid;
            else
                hi = mid;
        }
    for (int c = 0; c < tb->columns; c++) {
        double a = tb->values[(size_t)lo * (size_t)tb->columns + (size_t)c];
        double b = tb->values[(size_t)hi * (size_t)tb->columns + (size_t)c];
        double value = a;
        if (tb->interp == INPUT_LINEAR && hi > lo)
            value = a + (b - a) * (time - tb->t[lo]) / (tb->t[hi] - tb->t[lo]);
        dirac_sim_set_input(sim, tb->input[c], value);
    }
}

void input_table_free(input_table *tb)
{
    free(tb->input);
    free(tb->t);
    free(tb->values);
    memset(tb, 0, sizeof *tb);
}
