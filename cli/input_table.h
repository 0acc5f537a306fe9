// Input signals of `dirac simulate --inputs FILE.csv`: a table with a column `t` and one column
// per input of the model, sampled at the start of every step (the value is then held over the
// step, as an FMI co-simulation master holds its inputs over a communication step).
#ifndef DIRAC_CLI_INPUT_TABLE_H
#define DIRAC_CLI_INPUT_TABLE_H

#include <dirac/dirac.h>

#include <stddef.h>

typedef enum input_interp {
    INPUT_LINEAR,   // linear between the rows (held at the first / last row outside)
    INPUT_STEP,     // the last row with t_row <= t (the first row before it)
} input_interp;

typedef struct input_table {
    int rows, columns;     // columns: inputs named in the file (t excluded)
    int *input;            // per column: the model's input index
    double *t;             // rows, strictly increasing
    double *values;        // rows x columns
    input_interp interp;
} input_table;

/// Reads `path` for `model`; 0 on success, else writes the reason ("FILE:LINE: ...") to msg.
int input_table_load(input_table *table, const char *path, const dirac_model *model,
                     input_interp interp, char *msg, size_t size);

/// Sets the simulation's inputs to the table's values at `time`.
void input_table_apply(const input_table *table, dirac_sim *sim, double time);

void input_table_free(input_table *table);

#endif
