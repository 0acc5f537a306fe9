// CSV writer of the dirac tool: a header row of names, then rows of numbers written with
// %.17g (exact round trip), fields separated by ',' and rows ended by '\n' (RFC 4180 without
// the CR). Names are quoted only when they contain ',', '"' or a line break.
//
// Errors are sticky: the first failed write is remembered (errno value in `error`) and later
// writes do nothing, so a caller may write a whole row and test once.
#ifndef DIRAC_CLI_CSV_OUTPUT_H
#define DIRAC_CLI_CSV_OUTPUT_H

#include <stdio.h>

typedef struct csv_writer {
    FILE *file;         // not owned: opened and closed by the caller
    int fields;         // fields written in the current row
    int error;          // first errno of a failed write or flush (0: none)
} csv_writer;

/// Starts writing to `file`.
void csv_begin(csv_writer *w, FILE *file);

/// Writes the header field PREFIX NAME SUFFIX (prefix and suffix may be NULL).
void csv_name(csv_writer *w, const char *prefix, const char *name, const char *suffix);

/// Writes one number with %.17g ("nan", "inf", "-inf" for non-finite values).
void csv_number(csv_writer *w, double value);

/// Ends the current row.
void csv_end_row(csv_writer *w);

/// Pushes buffered rows to the file. Returns 0 or the first error.
int csv_flush(csv_writer *w);

/// Flushes; the file stays open. Returns 0 or the first error.
int csv_finish(csv_writer *w);

#endif
