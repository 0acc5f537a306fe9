// The --max-model-memory option of `dirac check` and `dirac simulate`.
#include "memory_option.h"

#include <math.h>
#include <stdlib.h>

int cli_parse_bytes(const char *text, double *bytes)
{
    char *end;
    double value = strtod(text, &end);
    if (end == text)
        return -1;
    double scale = 1.0;
    if (*end == 'K' || *end == 'k')
        scale = 1024.0, end++;
    else if (*end == 'M' || *end == 'm')
        scale = 1024.0 * 1024.0, end++;
    else if (*end == 'G' || *end == 'g')
        scale = 1024.0 * 1024.0 * 1024.0, end++;
    if (*end != '\0' || !(value > 0.0) || !isfinite(value * scale))
        return -1;
    *bytes = value * scale;
    return 0;
}
