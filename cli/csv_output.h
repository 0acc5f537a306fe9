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
    FILE *file;
    int owns_file;      // 1: opened by csv_open (closed by csv_close); 0: stdout
    int fields;         // fields written in the current row
    int error;          // first errno of a failed write or close (0: none)
} csv_writer;

/// Opens `path` for writing ("-" is standard output). Returns 0 or an errno value.
int csv_open(csv_writer *w, const char *path);

/// Writes the header field PREFIX NAME SUFFIX (prefix and suffix may be NULL).
void csv_name(csv_writer *w, const char *prefix, const char *name, const char *suffix);

/// Writes one number with %.17g ("nan", "inf", "-inf" for non-finite values).
void csv_number(csv_writer *w, double value);

/// Ends the current row.
void csv_end_row(csv_writer *w);

/// Pushes buffered rows to the file. Returns 0 or the first error.
int csv_flush(csv_writer *w);

/// Flushes and closes (standard output is flushed, not closed). Returns 0 or the first error.
int csv_close(csv_writer *w);

#endif
