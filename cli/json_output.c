// JSON writer of the dirac tool (see json_output.h).
#include "json_output.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

void json_begin(json_writer *w, FILE *file)
{
    memset(w, 0, sizeof *w);
    w->file = file;
}

static void check(json_writer *w, int rc)
{
    if (rc < 0 && !w->error)
        w->error = errno ? errno : EIO;
}

static void indent(json_writer *w)
{
    check(w, fprintf(w->file, "\n%*s", 2 * w->depth, ""));
}

// the characters of s, escaped, without quotes
static void put_escaped(json_writer *w, const char *s)
{
    static const char hex[] = "0123456789abcdef";
    for (const unsigned char *c = (const unsigned char *)s; *c; c++) {
        switch (*c) {
        case '"': check(w, fputs("\\\"", w->file)); break;
        case '\\': check(w, fputs("\\\\", w->file)); break;
        case '\n': check(w, fputs("\\n", w->file)); break;
        case '\r': check(w, fputs("\\r", w->file)); break;
        case '\t': check(w, fputs("\\t", w->file)); break;
        case '\b': check(w, fputs("\\b", w->file)); break;
        case '\f': check(w, fputs("\\f", w->file)); break;
        default:
            if (*c < 0x20)
                check(w, fprintf(w->file, "\\u00%c%c", hex[*c >> 4], hex[*c & 15]));
            else
                check(w, putc(*c, w->file));
        }
    }
}

static void put_string(json_writer *w, const char *s)
{
    check(w, putc('"', w->file));
    put_escaped(w, s);
    check(w, putc('"', w->file));
}

// Writes the separator, the indentation and the key of the next value.
static void start_value(json_writer *w, const char *key)
{
    if (w->depth > 0) {
        if (w->count[w->depth - 1]++ > 0)
            check(w, putc(',', w->file));
        indent(w);
    }
    if (key && w->depth > 0 && w->close[w->depth - 1] == '}') {
        put_string(w, key);
        check(w, fputs(": ", w->file));
    }
}

static void open_level(json_writer *w, const char *key, char open, char close)
{
    if (w->depth >= JSON_MAX_DEPTH) {
        if (!w->error)
            w->error = EOVERFLOW;
        return;
    }
    start_value(w, key);
    check(w, putc(open, w->file));
    w->close[w->depth] = close;
    w->count[w->depth] = 0;
    w->depth++;
}

void json_object(json_writer *w, const char *key)
{
    open_level(w, key, '{', '}');
}

void json_array(json_writer *w, const char *key)
{
    open_level(w, key, '[', ']');
}

void json_end(json_writer *w)
{
    if (w->depth == 0)
        return;
    w->depth--;
    if (w->count[w->depth] > 0)
        indent(w);
    check(w, putc(w->close[w->depth], w->file));
}

void json_format_number(char *buf, size_t size, double value)
{
    if (!isfinite(value)) {
        snprintf(buf, size, "null");
        return;
    }
    // shortest of %.15g, %.16g, %.17g that reads back exactly
    for (int digits = 15; digits <= 17; digits++) {
        snprintf(buf, size, "%.*g", digits, value);
        if (strtod(buf, NULL) == value)
            break;
    }
}

void json_number(json_writer *w, const char *key, double value)
{
    char buf[40];
    json_format_number(buf, sizeof buf, value);
    start_value(w, key);
    check(w, fputs(buf, w->file));
}

void json_number_named(json_writer *w, const char *prefix, const char *name,
                       const char *suffix, double value)
{
    char buf[40];
    json_format_number(buf, sizeof buf, value);
    start_value(w, NULL);
    check(w, putc('"', w->file));
    put_escaped(w, prefix ? prefix : "");
    put_escaped(w, name);
    put_escaped(w, suffix ? suffix : "");
    check(w, fputs("\": ", w->file));
    check(w, fputs(buf, w->file));
}

void json_integer(json_writer *w, const char *key, long value)
{
    start_value(w, key);
    check(w, fprintf(w->file, "%ld", value));
}

void json_string(json_writer *w, const char *key, const char *value)
{
    start_value(w, key);
    if (value)
        put_string(w, value);
    else
        check(w, fputs("null", w->file));
}

void json_bool(json_writer *w, const char *key, int value)
{
    start_value(w, key);
    check(w, fputs(value ? "true" : "false", w->file));
}

void json_null(json_writer *w, const char *key)
{
    start_value(w, key);
    check(w, fputs("null", w->file));
}

int json_finish(json_writer *w)
{
    while (w->depth > 0)
        json_end(w);
    check(w, putc('\n', w->file));
    if (fflush(w->file) == EOF && !w->error)
        w->error = errno ? errno : EIO;
    return w->error;
}
