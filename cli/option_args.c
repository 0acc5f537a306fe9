// Reading command-line options and their values (option_args.h).
#include "option_args.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

int cli_parse_real(const char *text, double *out)
{
    char *end;
    errno = 0;
    double x = strtod(text, &end);
    if (end == text || *end != '\0' || errno == ERANGE || !isfinite(x))
        return -1;
    *out = x;
    return 0;
}

int cli_parse_count(const char *text, long *out)
{
    char *end;
    errno = 0;
    long x = strtol(text, &end, 10);
    if (end == text || *end != '\0' || errno == ERANGE || x < 1)
        return -1;
    *out = x;
    return 0;
}

int cli_take_option(int argc, char **argv, int *i, const char *name, const char **value)
{
    size_t len = strlen(name);
    const char *arg = argv[*i];
    if (strncmp(arg, name, len) != 0)
        return 0;
    if (arg[len] == '=') {
        *value = arg + len + 1;
        return 1;
    }
    if (arg[len] != '\0')
        return 0;
    *value = *i + 1 < argc ? argv[++*i] : NULL;
    return 1;
}
