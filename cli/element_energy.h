// The energy each element of a SPICE netlist absorbs over a run, for the JSON summary of
// `dirac simulate FILE.cir` (docs/circuits.md, "Energy per element").
//
// The import writes each element's absorbed power as the output p_E (spice_write.c); this
// integrates every such output over every step of the run, W_E = ∫ p_E dt, by the trapezoid
// rule on the nodes of the run (t_n, p_E(t_n)) — all of them, not only the rows written to the
// CSV (--every). Its error is O(h²) like that of the second-order methods the netlists run with.
#ifndef DIRAC_CLI_ELEMENT_ENERGY_H
#define DIRAC_CLI_ELEMENT_ENERGY_H

#include <dirac/dirac.h>

typedef struct element_energy {
    int count;            // elements with a power output
    int *column;          // their p_E column in a row
    const char **name;    // E (the output's name without "p_"), owned by the model
    double *energy;       // ∫ p_E dt so far
    double *power;        // p_E at the last node
    double t;             // time of the last node
    int started;          // a node has been added
} element_energy;

/// Finds the power outputs (named p_E) of the model. Returns 0, or -1 when out of memory.
int element_energy_init(element_energy *e, const dirac_model *model);

/// Adds the node of `row` (a row of the model's columns, t first): the trapezoid from the last
/// node. Does not allocate.
void element_energy_add(element_energy *e, const double *row);

void element_energy_free(element_energy *e);

#endif
