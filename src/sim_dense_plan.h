// Internal: dense plans. A small implicit system's Jacobian adds fixed multiples of evaluated
// sparse derivatives (Hessian, force Jacobian, constraint forms) into blocks of a dense matrix;
// a plan unrolls those additions once (per step size) into entries (source value, column-major
// place, factor), so each assembly is one pass of dense[place] += factor · *source. Sources
// point into evaluations' value arrays, which stay in place for the simulation's life.
#ifndef DIRAC_SRC_SIM_DENSE_PLAN_H
#define DIRAC_SRC_SIM_DENSE_PLAN_H

#include "sim.h"

typedef struct sim_dense_plan {
    int capacity;   // entries allocated (0: systems too large for a dense solver)
    int count;      // entries planned
    const double **source;
    int *place;
    double *factor;
} sim_dense_plan;

/// Takes room for `capacity` entries from the method's layout (sim_layout).
void sim_dense_plan_layout(sim_layout *l, sim_dense_plan *plan, size_t capacity);

/// Appends one entry: dense[place] += factor · *source.
void sim_dense_plan_entry(sim_dense_plan *plan, const double *source, int place, double factor);

/// Appends the additions of rows row_first .. row_first + rows − 1 and columns col_first ..
/// col_first + cols − 1 of the sparse matrix sp (values `values`) to `targets` places of a
/// size × size column-major matrix: entry (r, c) to (r0[x] + r, c0[x] + c) times factor[x],
/// entry by entry and for each entry target by target (the order of the sparse assembly).
void sim_dense_plan_block(sim_dense_plan *plan, const model_sparse *sp, const double *values,
                          int row_first, int rows, int col_first, int cols, int size, int targets,
                          const int *r0, const int *c0, const double *factor);

/// Adds the planned entries first .. last − 1 to the dense matrix.
static inline void sim_dense_plan_add(const sim_dense_plan *plan, int first, int last,
                                      double *dense)
{
    for (int x = first; x < last; x++)
        dense[plan->place[x]] += plan->factor[x] * *plan->source[x];
}

#endif
