// The names of a model's trajectory columns as the tool writes them (CSV headers, state files,
// sweep trajectories).
#ifndef DIRAC_CLI_COLUMN_NAME_H
#define DIRAC_CLI_COLUMN_NAME_H

#include <dirac/run.h>

/// Column k's name (dirac_model_column_name), malloc'd; NULL when out of memory.
char *column_name_dup(const dirac_model *m, int k);

#endif
