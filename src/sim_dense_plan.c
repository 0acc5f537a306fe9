// Dense plans (sim_dense_plan.h): the block additions of small Jacobians, unrolled.
#include "sim_dense_plan.h"

void sim_dense_plan_layout(sim_layout *l, sim_dense_plan *plan, size_t capacity)
{
    plan->capacity = (int)capacity;
    plan->count = 0;
    plan->source = mem_plan_take(&l->plan, capacity, sizeof *plan->source);
    plan->place = sim_layout_ints(l, capacity);
    plan->factor = sim_layout_doubles(l, capacity);
}

void sim_dense_plan_entry(sim_dense_plan *plan, const double *source, int place, double factor)
{
    plan->source[plan->count] = source;
    plan->place[plan->count] = place;
    plan->factor[plan->count] = factor;
    plan->count++;
}

void sim_dense_plan_block(sim_dense_plan *plan, const model_sparse *sp, const double *values,
                          int row_first, int rows, int col_first, int cols, int size, int targets,
                          const int *r0, const int *c0, const double *factor)
{
    if (rows <= 0 || cols <= 0 || targets <= 0 || sp->nnz == 0)
        return;
    for (int r = 0; r < rows; r++)
        for (int k = sp->row_start[row_first + r]; k < sp->row_start[row_first + r + 1]; k++) {
            int c = sp->col[k] - col_first;
            if (c < 0 || c >= cols)
                continue;
            for (int x = 0; x < targets; x++)
                sim_dense_plan_entry(plan, values + k, (c0[x] + c) * size + r0[x] + r,
                                     factor[x]);
        }
}
