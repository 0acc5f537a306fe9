// The times of dirac simulate --output-times (output_times.h).
#include "output_times.h"
#include "file_read.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int append(output_times *out, long *capacity, double t)
{
    if (out->count == *capacity) {
        long cap = *capacity ? 2 * *capacity : 64;
        double *bigger = realloc(out->t, (size_t)cap * sizeof *bigger);
        if (!bigger)
            return -1;
        out->t = bigger;
        *capacity = cap;
    }
    out->t[out->count++] = t;
    return 0;
}

// Reads numbers separated by `separators` from text; 1 when text is not such a list (nothing
// added), -1 out of memory or too many, 0 done.
static int read_list(const char *text, const char *separators, int comments, output_times *out,
                     long *capacity, char *message, size_t size, const char *where)
{
    const char *c = text;
    int line = 1;
    for (;;) {
        while (*c && (strchr(separators, *c) || (comments && *c == '#'))) {
            if (*c == '#')
                while (*c && *c != '\n')
                    c++;
            else if (*c++ == '\n')
                line++;
        }
        if (!*c)
            return 0;
        char *end;
        errno = 0;
        double t = strtod(c, &end);
        if (end == c || (*end && !strchr(separators, *end) && !(comments && *end == '#')) ||
            !isfinite(t) || errno == ERANGE) {
            if (!where)
                return 1;
            int len = 0;
            while (c[len] && !strchr(separators, c[len]) && len < 40)
                len++;
            snprintf(message, size, "%s, line %d: '%.*s' is not a time", where, line, len, c);
            return -1;
        }
        if (out->count == OUTPUT_TIMES_MAX) {
            snprintf(message, size, "--output-times: more than %ld times", OUTPUT_TIMES_MAX);
            return -1;
        }
        if (append(out, capacity, t)) {
            snprintf(message, size, "--output-times: out of memory");
            return -1;
        }
        c = end;
    }
}

static int read_range(const char *arg, output_times *out, char *message, size_t size)
{
    double a, h, b;
    char tail;
    if (sscanf(arg, "%lf:%lf:%lf%c", &a, &h, &b, &tail) != 3)
        return 1;
    if (!isfinite(a) || !isfinite(h) || !isfinite(b) || !(h > 0) || b < a) {
        snprintf(message, size, "--output-times %s: a range A:H:B needs finite A <= B and a "
                 "step H > 0", arg);
        return -1;
    }
    // i = 0 .. floor((B - A)/H + 1e-9): B itself when it lies on the grid up to rounding
    double last = floor((b - a) / h + 1e-9);
    if (last + 1 > (double)OUTPUT_TIMES_MAX) {
        snprintf(message, size, "--output-times %s: %.3g times is more than %ld", arg, last + 1,
                 OUTPUT_TIMES_MAX);
        return -1;
    }
    out->count = (long)last + 1;
    out->t = malloc((size_t)out->count * sizeof *out->t);
    if (!out->t) {
        snprintf(message, size, "--output-times: out of memory");
        return -1;
    }
    for (long i = 0; i < out->count; i++)
        out->t[i] = a + (double)i * h;
    return 0;
}

static char *read_file(const char *path, char *message, size_t size)
{
    char *text = NULL;
    size_t length = 0;
    int error = file_read(path, &text, &length);
    if (error) {
        snprintf(message, size, "--output-times '%s' is neither a range A:H:B, a list of times "
                 "T1,T2,... nor a readable file: %s", path, strerror(error));
        return NULL;
    }
    if (strlen(text) != length) {
        free(text);
        snprintf(message, size, "--output-times: '%s' is not a text file", path);
        return NULL;
    }
    return text;
}

int output_times_parse(const char *arg, output_times *out, char *message, size_t size)
{
    memset(out, 0, sizeof *out);
    long capacity = 0;
    int rc = read_range(arg, out, message, size);
    if (rc == 1)
        rc = read_list(arg, ",", 0, out, &capacity, message, size, NULL);
    if (rc == 1) {
        output_times_free(out);
        capacity = 0;
        char *text = read_file(arg, message, size);
        if (!text)
            return -1;
        char where[300];
        snprintf(where, sizeof where, "--output-times file '%.250s'", arg);
        rc = read_list(text, " \t\r\n,", 1, out, &capacity, message, size, where);
        free(text);
    }
    if (rc == 0 && out->count == 0) {
        snprintf(message, size, "--output-times '%s' holds no time", arg);
        rc = -1;
    }
    for (long i = 1; rc == 0 && i < out->count; i++)
        if (!(out->t[i] > out->t[i - 1])) {
            snprintf(message, size, "--output-times: the times must increase, but %.17g follows "
                     "%.17g", out->t[i], out->t[i - 1]);
            rc = -1;
        }
    if (rc)
        output_times_free(out);
    return rc;
}

void output_times_free(output_times *times)
{
    free(times->t);
    times->t = NULL;
    times->count = 0;
}
