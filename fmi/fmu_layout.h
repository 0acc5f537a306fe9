// The variables of a dirac FMU and their value references, shared by the exporter (which writes
// modelDescription.xml) and the FMU's runtime (which answers fmi2GetReal): in this order,
//   parameters (P) | inputs (U) | q (n) | v (n) | p (n) | mu (m) | S (ns) | T (ns) | E |
//   outputs (no)
// named as the columns of `dirac simulate` (x, x', p.x, mu.rod, S.s, T.s, E, output names).
#ifndef DIRAC_FMU_LAYOUT_H
#define DIRAC_FMU_LAYOUT_H

#include <dirac/dirac.h>

typedef enum fmu_kind {
    FMU_PARAMETER, FMU_INPUT, FMU_COORDINATE, FMU_VELOCITY, FMU_MOMENTUM, FMU_MULTIPLIER,
    FMU_ENTROPY,
    FMU_TEMPERATURE, FMU_ENERGY, FMU_OUTPUT, FMU_NONE
} fmu_kind;

typedef struct fmu_layout {
    int parameters, inputs, n, m, ns, outputs;
} fmu_layout;

static inline fmu_layout fmu_layout_of(const dirac_model *m)
{
    fmu_layout l = { dirac_model_parameter_count(m), dirac_model_input_count(m),
                     dirac_model_coordinate_count(m), dirac_model_constraint_count(m),
                     dirac_model_entropy_count(m),
                     dirac_model_output_count(m) };
    return l;
}

static inline unsigned fmu_variable_count(const fmu_layout *l)
{
    return (unsigned)(l->parameters + l->inputs + 3 * l->n + l->m + 2 * l->ns + 1 + l->outputs);
}

/// The kind of value reference vr and its index within its kind (FMU_NONE: no such variable).
static inline fmu_kind fmu_variable(const fmu_layout *l, unsigned vr, int *index)
{
    const int sizes[] = { l->parameters, l->inputs, l->n, l->n, l->n, l->m, l->ns, l->ns, 1,
                          l->outputs };
    unsigned first = 0;
    for (int k = 0; k < FMU_NONE; k++) {
        if (vr < first + (unsigned)sizes[k]) {
            *index = (int)(vr - first);
            return (fmu_kind)k;
        }
        first += (unsigned)sizes[k];
    }
    *index = -1;
    return FMU_NONE;
}

#endif
