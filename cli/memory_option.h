// The --max-model-memory option: a size in bytes with an optional suffix.
#ifndef DIRAC_CLI_MEMORY_OPTION_H
#define DIRAC_CLI_MEMORY_OPTION_H

/// Parses "2G", "512M", "100K" or a plain number of bytes (powers of 1024) into *bytes;
/// returns 0, or -1 for anything else (empty, negative, zero, not finite, trailing text).
int cli_parse_bytes(const char *text, double *bytes);

#endif
