// CSV writer of the dirac tool (see csv_output.h).
#include "csv_output.h"

#include <errno.h>
#include <math.h>
#include <string.h>

int csv_open(csv_writer *w, const char *path)
{
    memset(w, 0, sizeof *w);
    if (!strcmp(path, "-")) {
        w->file = stdout;
        return 0;
    }
    w->file = fopen(path, "w");
    if (!w->file)
        return errno ? errno : EIO;
    w->owns_file = 1;
    return 0;
}

static void note_error(csv_writer *w)
{
    if (!w->error)
        w->error = errno ? errno : EIO;
}

static void separator(csv_writer *w)
{
    if (w->fields++ > 0 && putc(',', w->file) == EOF)
        note_error(w);
}

// Writes s, doubling quotes (inside a quoted field).
static void put_escaped(csv_writer *w, const char *s)
{
    for (; s && *s; s++)
        if ((*s == '"' && putc('"', w->file) == EOF) || putc(*s, w->file) == EOF) {
            note_error(w);
            return;
        }
}

static int needs_quotes(const char *s)
{
    return s && strpbrk(s, ",\"\r\n") != NULL;
}

// Writes the header field made of `count` parts joined without separator (NULL parts skipped).
static void csv_name_parts(csv_writer *w, int count, const char *const *parts)
{
    if (w->error)
        return;
    separator(w);
    int quote = 0;
    for (int i = 0; i < count; i++)
        quote |= needs_quotes(parts[i]);
    if (quote && putc('"', w->file) == EOF)
        note_error(w);
    for (int i = 0; i < count; i++)
        put_escaped(w, parts[i]);
    if (quote && putc('"', w->file) == EOF)
        note_error(w);
}

void csv_name(csv_writer *w, const char *prefix, const char *name, const char *suffix)
{
    const char *parts[3] = { prefix, name, suffix };
    csv_name_parts(w, 3, parts);
}

void csv_number(csv_writer *w, double value)
{
    if (w->error)
        return;
    separator(w);
    int rc;
    if (isnan(value))
        rc = fputs("nan", w->file);
    else if (isinf(value))
        rc = fputs(value > 0 ? "inf" : "-inf", w->file);
    else
        rc = fprintf(w->file, "%.17g", value);
    if (rc < 0)
        note_error(w);
}

void csv_end_row(csv_writer *w)
{
    if (w->error)
        return;
    if (putc('\n', w->file) == EOF)
        note_error(w);
    w->fields = 0;
}

int csv_flush(csv_writer *w)
{
    if (w->file && fflush(w->file) == EOF)
        note_error(w);
    return w->error;
}

int csv_close(csv_writer *w)
{
    if (!w->file)
        return w->error;
    if (w->owns_file) {
        if (fclose(w->file) == EOF)
            note_error(w);
    } else if (fflush(w->file) == EOF) {
        note_error(w);
    }
    w->file = NULL;
    return w->error;
}
