// Reading a whole file into memory: the one reader of the tool's inputs that are parsed as a
// whole (state files, files of output times, SPICE netlists).
#ifndef DIRAC_CLI_FILE_READ_H
#define DIRAC_CLI_FILE_READ_H

#include <stddef.h>

/// Largest file file_read reads (bytes): state files, output times and netlists are far
/// smaller; an endless input (/dev/zero) stops here.
#define FILE_READ_MAX ((size_t)64 << 20)

/// Reads the file at `path` whole into *text (malloc'd, with a '\0' after its *size bytes; the
/// caller frees it; a NUL byte inside the file makes strlen(*text) < *size). Pipes and
/// standard input (/dev/stdin) are read too. Returns 0, or an errno value (ENOMEM when memory
/// runs out, EISDIR for a directory, EFBIG beyond FILE_READ_MAX) with *text NULL.
int file_read(const char *path, char **text, size_t *size);

#endif
