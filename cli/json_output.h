// JSON writer of the dirac tool: pretty-printed objects and arrays (two-space indent), strings
// escaped (quote, backslash, control characters; UTF-8 passed through), numbers written with
// the fewest digits that read back exactly, non-finite numbers as null.
//
// Usage: json_begin(w, file); json_object(w, NULL); json_number(w, "dt", 1e-3); ...;
// json_end(w) (closes the object); json_finish(w). Keys are given for members of objects and
// NULL for array elements and the top-level value. Errors are sticky (first errno in `error`).
#ifndef DIRAC_CLI_JSON_OUTPUT_H
#define DIRAC_CLI_JSON_OUTPUT_H

#include <stdio.h>

#define JSON_MAX_DEPTH 32

typedef struct json_writer {
    FILE *file;
    int depth;
    int count[JSON_MAX_DEPTH];    // values written so far at each open level
    char close[JSON_MAX_DEPTH];   // '}' or ']'
    int error;
} json_writer;

void json_begin(json_writer *w, FILE *file);
void json_object(json_writer *w, const char *key);   // opens {
void json_array(json_writer *w, const char *key);    // opens [
void json_end(json_writer *w);                       // closes the innermost { or [
void json_number(json_writer *w, const char *key, double value);
/// A member of an object whose key is PREFIX NAME SUFFIX (prefix and suffix may be NULL),
/// however long.
void json_number_named(json_writer *w, const char *prefix, const char *name,
                       const char *suffix, double value);
void json_integer(json_writer *w, const char *key, long value);
void json_string(json_writer *w, const char *key, const char *value);   // NULL: null
void json_bool(json_writer *w, const char *key, int value);
void json_null(json_writer *w, const char *key);
/// Closes any open levels, ends the line and flushes. Returns 0 or the first errno.
int json_finish(json_writer *w);

/// Formats `value` like json_number into buf (at least 32 bytes): "null" if not finite.
void json_format_number(char *buf, size_t size, double value);

#endif
