// Reading command-line options and their values, shared by the commands.
#ifndef DIRAC_CLI_OPTION_ARGS_H
#define DIRAC_CLI_OPTION_ARGS_H

/// Reads a finite number; 0 on success, -1 otherwise.
int cli_parse_real(const char *text, double *out);

/// Reads a positive integer; 0 on success, -1 otherwise.
int cli_parse_count(const char *text, long *out);

/// If argv[*i] is option `name`, as "NAME VALUE" or "NAME=VALUE", sets *value (NULL when the
/// value is missing), advances *i past it, and returns 1; otherwise returns 0.
int cli_take_option(int argc, char **argv, int *i, const char *name, const char **value);

#endif
