// The names of a model's trajectory columns (column_name.h).
#include "column_name.h"

#include <stdlib.h>

char *column_name_dup(const dirac_model *m, int k)
{
    int len = dirac_model_column_name(m, k, NULL, 0);
    char *name = len >= 0 ? malloc((size_t)len + 1) : NULL;
    if (name)
        dirac_model_column_name(m, k, name, (size_t)len + 1);
    return name;
}
