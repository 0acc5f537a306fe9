// Linear models: whether the Jacobians of the implicit methods' stage equations are constant,
// decided from the model's expressions (not from numbers), so that Newton may factorize them
// once (newton.h, constant_jacobian).
#include "sim.h"

#include "expr.h"

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
