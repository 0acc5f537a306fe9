// Linear models: whether the Jacobians of the implicit methods' stage equations are constant,
// decided from the model's expressions (not from numbers), so that Newton may factorize them
// once (newton.h, constant_jacobian), and whether the equations are then affine, so that
// one step with that exact Jacobian solves them (newton.h, affine); and whether ∇L and the
// constraint forms are affine, so that dgrad's averages are midpoint values (integ_dgrad.c).
#include "sim.h"

#include "expr.h"

#include <stdint.h>
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

dirac_status sim_equations_affine(const dirac_model *m, bool *out)
{
    *out = false;
    if (!sim_jacobian_constant(m))
        return DIRAC_OK;
    unsigned char *seen = calloc((size_t)expr_pool_size(m->pool) + 1, 1);
    if (!seen)   // an error, not a silent "no": the answer changes the numbers (rounding)
        return DIRAC_ERR_NOMEM;
    // the stage equations are made of ∂L/∂y, F and the constraints; constant second
    // derivatives make them affine unless a jump hides behind a zero derivative
    bool affine = !group_has_jumps(m, &m->gradient, seen) &&
                  !group_has_jumps(m, &m->forces, seen) &&
                  !group_has_jumps(m, &m->constraint_values, seen) &&
                  !group_has_jumps(m, &m->constraint_rates, seen);
    free(seen);
    *out = affine;
    return DIRAC_OK;
}

// Polynomial degrees of expressions, capped at NONLINEAR (anything beyond affine).
enum { NONLINEAR = 2 };

static int capped(int degree)
{
    return degree < NONLINEAR ? degree : NONLINEAR;
}

// The degree of node id in every variable from its children's (already in degree[]: a child
// is made before its parent, so its id is smaller).
static int node_degree(const expr_pool *pool, expr_id id, const unsigned char *degree)
{
    expr_kind kind = expr_kind_of(pool, id);
    if (kind == EXPR_CONST)
        return 0;
    if (kind == EXPR_VAR)
        return 1;
    expr_id a = expr_child(pool, id, 0), b = expr_child(pool, id, 1);
    if (a >= id || (b != EXPR_NONE && b >= id))
        return NONLINEAR;   // not in creation order: no claim
    int da = degree[a], db = b != EXPR_NONE ? degree[b] : 0;
    switch (kind) {
    case EXPR_ADD:
    case EXPR_SUB:
        return da > db ? da : db;
    case EXPR_NEG:
        return da;
    case EXPR_MUL:
        return capped(da + db);
    case EXPR_DIV:
        return db == 0 ? da : NONLINEAR;
    case EXPR_POW:
        if (db == 0 && expr_kind_of(pool, b) == EXPR_CONST) {
            double n = expr_const_value(pool, b);
            if (n == 0.0)
                return 0;
            if (n == 1.0)
                return da;
        }
        return da == 0 && db == 0 ? 0 : NONLINEAR;
    default:   // comparisons, selections, functions: constant only of constants
        return da == 0 && db == 0 ? 0 : NONLINEAR;
    }
}

// Every expression of the group has degree <= 1 (degree[] covers ids up to `size`).
static bool group_affine(const model_group *g, const unsigned char *degree, int32_t size)
{
    for (int k = 0; k < g->count; k++)
        if (g->ids[k] < 0 || g->ids[k] >= size || degree[g->ids[k]] > 1)
            return false;
    return true;
}

dirac_status sim_gradients_affine(const dirac_model *m, bool *out)
{
    *out = false;
    if (!group_constant(m, &m->hessian.values))
        return DIRAC_OK;
    int32_t size = expr_pool_size(m->pool);
    unsigned char *degree = malloc((size_t)(size > 0 ? size : 1));
    if (!degree)   // an error, not a silent "no": the answer changes the numbers (rounding)
        return DIRAC_ERR_NOMEM;
    for (expr_id id = 0; id < size; id++)
        degree[id] = (unsigned char)node_degree(m->pool, id, degree);
    *out = group_affine(&m->constraint_forms.values, degree, size) &&
           group_affine(&m->constraint_rates, degree, size);
    free(degree);
    return DIRAC_OK;
}
