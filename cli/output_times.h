// The times of `dirac simulate --output-times` (docs/cli.md, "Output at chosen times"): a range
// A:H:B (A, A+H, ... up to B, each computed as A + i H), a comma-separated list, or a file of
// times (separated by white space, commas or line breaks; `#` starts a comment). Times are
// finite and strictly increasing; at most OUTPUT_TIMES_MAX of them.
#ifndef DIRAC_CLI_OUTPUT_TIMES_H
#define DIRAC_CLI_OUTPUT_TIMES_H

#include <stddef.h>

#define OUTPUT_TIMES_MAX 100000000L

typedef struct output_times {
    double *t;
    long count;
} output_times;

/// Reads the option's value: a range or list when it is one, else the file it names. Returns
/// 0, or -1 with the reason in message.
int output_times_parse(const char *arg, output_times *out, char *message, size_t size);

void output_times_free(output_times *times);

#endif
