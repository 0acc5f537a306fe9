// Small string helpers.
#include "text.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

char *text_concat(const char *a, const char *b, const char *c)
{
    a = a ? a : "";
    b = b ? b : "";
    c = c ? c : "";
    size_t len = strlen(a) + strlen(b) + strlen(c) + 1;
    char *out = malloc(len);
    if (out)
        snprintf(out, len, "%s%s%s", a, b, c);
    return out;
}
