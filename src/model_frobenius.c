// The symbolic Frobenius test of the nonholonomic constraints (`dirac check`): a constraint's
// one-form ω = Σ ω_i(q, t) dq_i contributes nothing to the non-integrability of the constraint
// distribution Δ when
//     dω = 0,          (dω)_ij = ∂ω_j/∂q_i − ∂ω_i/∂q_j          (ω locally exact: ω = dφ), or
//     ω ∧ dω = 0,      (ω∧dω)_ijk = ω_i (dω)_jk − ω_j (dω)_ik + ω_k (dω)_ij
// identically in q (and t): then dω = ω ∧ θ for some θ, so dω(X, Y) = 0 for X, Y ∈ ker ω ⊇ Δ
// (Frobenius' theorem; e.g. Bloch, Nonholonomic Mechanics and Control, 2nd ed., §2.2 and 1.2).
// Both are tested by building the components as expressions and letting the expression engine
// simplify them; a component that does not simplify to the constant 0 leaves the question to
// the numerical test at the initial state (src/model_query.c). The work happens in a private
// pool (the expressions are copied), so the model stays untouched and shareable.
#include "model.h"

#include "error.h"

#include <stdlib.h>
#include <string.h>

// Largest number of coordinates a form may involve (its own and those its coefficients depend
// on) for the symbolic test: C(24, 3) = 2024 components of ω ∧ dω.
#define FROBENIUS_MAX_COORDINATES 24

// Position of coordinate i in the sorted list u[0..nu-1], or −1.
static int find(const int32_t *u, int nu, int32_t i)
{
    for (int k = 0; k < nu; k++)
        if (u[k] == i)
            return k;
    return -1;
}

// The verdict for the form w (its coefficients w[k] on the sorted coordinates u[0..nu-1], in
// `pool`).
static dirac_integrability test_form(expr_pool *pool, int nu, const int32_t *u, const expr_id *w,
                                     expr_id *d)
{
    // (dω)_ij for i < j, stored at d[i * nu + j]
    int closed = 1;
    for (int i = 0; i < nu; i++)
        for (int j = i + 1; j < nu; j++) {
            expr_id dij = expr_sub(pool, expr_diff(pool, w[j], u[i]), expr_diff(pool, w[i], u[j]));
            d[i * nu + j] = dij;
            if (dij == EXPR_NONE)
                return DIRAC_DEFECT_ZERO_AT_INITIAL_STATE;   // out of memory: no proof
            closed &= expr_is_const(pool, dij, 0.0);
        }
    if (closed)
        return DIRAC_INTEGRABLE_CLOSED;
    for (int i = 0; i < nu; i++)
        for (int j = i + 1; j < nu; j++)
            for (int k = j + 1; k < nu; k++) {
                expr_id c = expr_add(pool,
                                     expr_sub(pool, expr_mul(pool, w[i], d[j * nu + k]),
                                              expr_mul(pool, w[j], d[i * nu + k])),
                                     expr_mul(pool, w[k], d[i * nu + j]));
                if (c == EXPR_NONE || !expr_is_const(pool, c, 0.0))
                    return DIRAC_DEFECT_ZERO_AT_INITIAL_STATE;   // not shown symbolically
            }
    return DIRAC_INTEGRABLE_FROBENIUS;
}

dirac_status model_frobenius_symbolic(const dirac_model *m, dirac_integrability *verdict,
                                      dirac_error *err)
{
    const model_sparse *f = &m->constraint_forms;
    for (int a = 0; a < m->m; a++)
        verdict[a] = m->constraints[a].kind == DIRAC_CONSTRAINT_HOLONOMIC
                         ? DIRAC_INTEGRABLE_HOLONOMIC
                         : DIRAC_DEFECT_ZERO_AT_INITIAL_STATE;
    // the nonholonomic forms' coefficients (holonomic forms are exact: nothing to test)
    int count = 0;
    for (int a = 0; a < m->m; a++)
        if (m->constraints[a].kind != DIRAC_CONSTRAINT_HOLONOMIC)
            count += f->row_start[a + 1] - f->row_start[a];
    if (count == 0)
        return DIRAC_OK;
    expr_id *roots = malloc((size_t)count * sizeof *roots);
    if (!roots)
        return error_set(err, DIRAC_ERR_NOMEM, "out of memory");
    count = 0;
    for (int a = 0; a < m->m; a++)
        for (int k = f->row_start[a];
             m->constraints[a].kind != DIRAC_CONSTRAINT_HOLONOMIC && k < f->row_start[a + 1]; k++)
            roots[count++] = f->values.ids[k];
    expr_pool *pool = NULL;
    dirac_status status = expr_pool_create(&pool, err);
    expr_id *map = NULL, *w = NULL, *d = NULL;
    int32_t *u = NULL;
    if (status == DIRAC_OK) {
        map = malloc(((size_t)expr_pool_size(m->pool) + 1) * sizeof *map);
        w = malloc(FROBENIUS_MAX_COORDINATES * sizeof *w);
        d = malloc(FROBENIUS_MAX_COORDINATES * FROBENIUS_MAX_COORDINATES * sizeof *d);
        u = malloc(FROBENIUS_MAX_COORDINATES * sizeof *u);
        if (!map || !w || !d || !u)
            status = error_set(err, DIRAC_ERR_NOMEM, "out of memory");
    }
    if (status == DIRAC_OK)
        status = expr_copy(m->pool, count, roots, pool, map, err);
    free(roots);
    for (int a = 0; status == DIRAC_OK && a < m->m; a++) {
        if (m->constraints[a].kind == DIRAC_CONSTRAINT_HOLONOMIC)
            continue;
        // the coordinates involved: those of the form and those its coefficients depend on
        int nu = 0, too_many = 0;
        for (int k = f->row_start[a]; k < f->row_start[a + 1] && !too_many; k++) {
            int32_t *vars = NULL;
            int n_vars = 0;
            status = expr_variables(pool, 1, &map[f->values.ids[k]], &vars, &n_vars, err);
            for (int v = -1; status == DIRAC_OK && v < n_vars; v++) {
                int32_t i = v < 0 ? f->col[k] : vars[v];
                if (i >= m->n || find(u, nu, i) >= 0)
                    continue;   // velocities, entropies, t, multipliers: parameters here
                if (nu == FROBENIUS_MAX_COORDINATES) {
                    too_many = 1;
                    break;
                }
                u[nu++] = i;
            }
            free(vars);
        }
        if (status != DIRAC_OK || too_many)
            continue;
        for (int k = 0; k < nu; k++)
            w[k] = expr_const(pool, 0.0);
        for (int k = f->row_start[a]; k < f->row_start[a + 1]; k++)
            w[find(u, nu, f->col[k])] = map[f->values.ids[k]];
        verdict[a] = test_form(pool, nu, u, w, d);
        expr_pool_clear_error(pool);   // a failed proof leaves the numerical verdict
    }
    free(map);
    free(w);
    free(d);
    free(u);
    expr_pool_destroy(pool);
    return status;
}
