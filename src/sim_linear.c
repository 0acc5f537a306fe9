// Linear models: whether the Jacobians of the implicit methods' stage equations are constant,
// decided from the model's expressions (not from numbers), so that Newton may factorize them
// once (newton.h, constant_jacobian), and whether the equations are then affine, so that
// one step with that exact Jacobian solves them (newton.h, affine).
#include "sim.h"

#include "expr.h"

#include <stdlib.h>

// Every expression of the group is a constant node (parameters are folded when the model is
// compiled; time, inputs and the unknowns are variables).
static bool group_constant(const dirac_model *m, const model_group *g)
{
    for (int k = 0; k < g->count; k++)
        if (expr_kind_of(m->pool, g->ids[k]) != EXPR_CONST)
            return false;
    return true;
}

bool sim_jacobian_constant(const dirac_model *m)
{
    // entropy variables bring temperature rows −∂L/∂S into the stage Jacobians
    if (m->ns > 0 || m->friction_count > 0)
        return false;
    // what the methods' Jacobians are assembled from: ∂²L/∂y², ∂F/∂(q, v, S), the
    // constraint forms ω (at both ends of a step, and averaged), ∂c/∂y and ∂(μ·ω)/∂q
    return group_constant(m, &m->hessian.values) && group_constant(m, &m->force_jacobian.values) &&
           group_constant(m, &m->constraint_forms.values) &&
           group_constant(m, &m->constraint_jacobian.values) &&
           group_constant(m, &m->form_curvature.values);
}

// Reachable from the group's expressions: a kind whose derivative rule drops a jump (the
// comparisons and selections of piecewise functions, abs, sign). 1 also when out of memory.
static bool group_has_jumps(const dirac_model *m, const model_group *g, unsigned char *seen)
{
    int32_t size = expr_pool_size(m->pool), top = -1;
    for (int k = 0; k < g->count; k++) {
        seen[g->ids[k]] = 1;
        top = g->ids[k] > top ? g->ids[k] : top;
    }
    bool jumps = false;
    for (int32_t id = top; id >= 0 && id < size && !jumps; id--) {   // parents before children
        if (!seen[id])
            continue;
        switch (expr_kind_of(m->pool, id)) {
        case EXPR_LT: case EXPR_LE: case EXPR_EQ: case EXPR_NE: case EXPR_WHEN:
        case EXPR_ABS: case EXPR_SIGN:
            jumps = true;
            break;
        default:
            for (int which = 0; which < 2; which++) {
                expr_id child = expr_child(m->pool, id, which);
                if (child != EXPR_NONE)
                    seen[child] = 1;
            }
        }
    }
    return jumps;
}

bool sim_equations_affine(const dirac_model *m)
{
    if (!sim_jacobian_constant(m))
        return false;
    unsigned char *seen = calloc((size_t)expr_pool_size(m->pool) + 1, 1);
    if (!seen)
        return false;
    // the stage equations are made of ∂L/∂y, F and the constraints; constant second
    // derivatives make them affine unless a jump hides behind a zero derivative
    bool affine = !group_has_jumps(m, &m->gradient, seen) &&
                  !group_has_jumps(m, &m->forces, seen) &&
                  !group_has_jumps(m, &m->constraint_values, seen) &&
                  !group_has_jumps(m, &m->constraint_rates, seen);
    free(seen);
    return affine;
}
