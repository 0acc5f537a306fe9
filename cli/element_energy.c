// The energy each element of a SPICE netlist absorbs over a run (element_energy.h).
#include "element_energy.h"

#include <stdlib.h>
#include <string.h>

int element_energy_init(element_energy *e, const dirac_model *model)
{
    memset(e, 0, sizeof *e);
    int outputs = dirac_model_output_count(model);
    int first = dirac_model_column_count(model) - outputs;   // outputs are the last columns
    size_t n = (size_t)(outputs > 0 ? outputs : 1);
    e->column = malloc(n * sizeof *e->column);
    e->name = malloc(n * sizeof *e->name);
    e->energy = calloc(n, sizeof *e->energy);
    e->power = calloc(n, sizeof *e->power);
    if (!e->column || !e->name || !e->energy || !e->power) {
        element_energy_free(e);
        return -1;
    }
    for (int k = 0; k < outputs; k++) {
        const char *name = dirac_model_output_name(model, k);
        if (name && !strncmp(name, "p_", 2) && name[2]) {
            e->column[e->count] = first + k;
            e->name[e->count] = name + 2;
            e->count++;
        }
    }
    return 0;
}

void element_energy_add(element_energy *e, const double *row)
{
    double t = row[0];
    for (int k = 0; k < e->count; k++) {
        double p = row[e->column[k]];
        if (e->started)
            e->energy[k] += 0.5 * (t - e->t) * (e->power[k] + p);   // trapezoid rule
        e->power[k] = p;
    }
    e->t = t;
    e->started = 1;
}

void element_energy_free(element_energy *e)
{
    free(e->column);
    free(e->name);
    free(e->energy);
    free(e->power);
    memset(e, 0, sizeof *e);
}
