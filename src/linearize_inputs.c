// The input matrix B = ∂f/∂u of the linearised descriptor system (linearize.c): the rows of
//     ṗ = ∂L/∂q + F(q, v, S, t, u) + Σ_a μ_a ω^a(q, t, u),   0 = ∂L/∂v − p,   0 = c_a(q, v, t, u)
// differentiated in the `input` signals u. The compiled model has no derivatives in u (its
// Jacobians are over the state), so they are taken here symbolically, like the compiled ones,
// on copies of the expressions in a private pool (the model's pool stays untouched and
// shareable), compiled to a tape and evaluated at the operating point. The model language keeps
// inputs out of L (model_equations.c), so only forces, two-form coefficients, frictions and
// constraints contribute; the ∂L rows are differentiated too, for completeness, at no cost
// when they do not depend on u.
#include "linearize.h"

#include "error.h"

#include <stdlib.h>

// 1 if the expression may depend on an input (its variable range reaches into u).
static int may_depend_on_inputs(const dirac_model *m, expr_id id)
{
    int32_t lo = 0, hi = -1;
    expr_var_range(m->pool, id, &lo, &hi);
    return lo <= hi && hi >= m->first_u && lo < m->first_u + m->nu;
}

// The expressions to copy (gradient rows, forces, constraints, forms that may depend on u):
// writes them to roots and returns their count.
static int collect_roots(const dirac_model *m, expr_id *roots)
{
    int count = 0;
    const expr_id *groups[] = { m->gradient.ids, m->forces.ids, m->constraint_values.ids,
                                m->constraint_forms.values.ids };
    int sizes[] = { 2 * m->n, m->n, m->m, m->constraint_forms.nnz };
    for (int g = 0; g < 4; g++)
        for (int k = 0; k < sizes[g]; k++)
            if (may_depend_on_inputs(m, groups[g][k]))
                roots[count++] = groups[g][k];
    return count;
}

// The row expressions in `pool` (map: the model's ids to the pool's) of the descriptor rows
// that may depend on u: rows[k] is descriptor row row_of[k] (slot: n entries of scratch).
// Returns their count.
static int build_rows(const dirac_model *m, expr_pool *pool, const expr_id *map, expr_id *rows,
                      int *row_of, int *slot)
{
    int n = m->n, count = 0;
    const model_sparse *fo = &m->constraint_forms;
    for (int i = 0; i < n; i++) {   // ṗ rows: ∂L/∂q_i + F_i + Σ_a μ_a ω^a_i
        expr_id sum = expr_const(pool, 0.0);
        int any = 0;
        expr_id terms[2] = { m->gradient.ids[i], m->forces.ids[i] };
        for (int t = 0; t < 2; t++)
            if (may_depend_on_inputs(m, terms[t])) {
                sum = expr_add(pool, sum, map[terms[t]]);
                any = 1;
            }
        rows[count] = sum;
        row_of[count] = n + i;
        count += any;
    }
    // Σ_a μ_a ω^a_i: the forms are stored by constraint, so add them into the ṗ rows after
    // (a row appears once among `rows`: slot[i] is its position, or −1)
    for (int i = 0; i < n; i++)
        slot[i] = -1;
    for (int r = 0; r < count; r++)
        slot[row_of[r] - n] = r;
    for (int a = 0; a < m->m; a++)
        for (int k = fo->row_start[a]; k < fo->row_start[a + 1]; k++) {
            if (!may_depend_on_inputs(m, fo->values.ids[k]))
                continue;
            int i = fo->col[k];
            if (slot[i] < 0) {
                rows[count] = expr_const(pool, 0.0);
                row_of[count] = n + i;
                slot[i] = count++;
            }
            int r = slot[i];
            expr_id mu = expr_var(pool, m->first_mu + a);
            rows[r] = expr_add(pool, rows[r], expr_mul(pool, mu, map[fo->values.ids[k]]));
        }
    for (int i = 0; i < n; i++)   // 0 = ∂L/∂v_i − p_i
        if (may_depend_on_inputs(m, m->gradient.ids[n + i])) {
            rows[count] = map[m->gradient.ids[n + i]];
            row_of[count++] = 2 * n + i;
        }
    for (int a = 0; a < m->m; a++)   // 0 = c_a
        if (may_depend_on_inputs(m, m->constraint_values.ids[a])) {
            rows[count] = map[m->constraint_values.ids[a]];
            row_of[count++] = 3 * n + a;
        }
    return count;
}

dirac_status linearize_input_matrix(const analysis_point *pt,
                                    void (*add)(void *ctx, int row, int col, double value),
                                    void *ctx, dirac_error *err)
{
    const dirac_model *m = pt->m;
    int n = m->n;
    if (m->nu == 0)
        return DIRAC_OK;
    size_t most = 3 * (size_t)n + (size_t)m->m + (size_t)m->constraint_forms.nnz + 1;
    expr_id *roots = malloc(most * sizeof *roots);
    expr_id *rows = malloc(most * sizeof *rows);
    int *row_of = malloc(most * sizeof *row_of);
    int *slot = malloc(((size_t)n + 1) * sizeof *slot);
    int32_t *vars = malloc(((size_t)m->nu + 1) * sizeof *vars);
    expr_id *map = malloc(((size_t)expr_pool_size(m->pool) + 1) * sizeof *map);
    expr_pool *pool = NULL;
    expr_sparse jac = { 0 };
    expr_tape *tape = NULL;
    double *work = NULL, *values = NULL;
    dirac_status status = DIRAC_OK;
    if (!roots || !rows || !row_of || !slot || !vars || !map) {
        status = error_set(err, DIRAC_ERR_NOMEM, "out of memory");
        goto done;
    }
    int root_count = collect_roots(m, roots);
    if (root_count == 0)
        goto done;   // nothing depends on u: B = 0
    if ((status = expr_pool_create(&pool, err)) != DIRAC_OK ||
        (status = expr_copy(m->pool, root_count, roots, pool, map, err)) != DIRAC_OK)
        goto done;
    int row_count = build_rows(m, pool, map, rows, row_of, slot);
    if ((status = expr_pool_error(pool, err)) != DIRAC_OK)
        goto done;
    for (int k = 0; k < m->nu; k++)
        vars[k] = m->first_u + k;
    if ((status = expr_jacobian(pool, row_count, rows, m->nu, vars, &jac, err)) != DIRAC_OK ||
        jac.nnz == 0)
        goto done;
    if ((status = expr_tape_compile(pool, jac.nnz, jac.value, &tape, err)) != DIRAC_OK)
        goto done;
    work = malloc(((size_t)expr_tape_work_size(tape) + 1) * sizeof *work);
    values = malloc(((size_t)jac.nnz + 1) * sizeof *values);
    if (!work || !values) {
        status = error_set(err, DIRAC_ERR_NOMEM, "out of memory");
        goto done;
    }
    expr_tape_eval(tape, pt->x, work, values);   // the tape reads only the model's inputs x
    for (int r = 0; r < row_count; r++)
        for (int k = jac.row_start[r]; k < jac.row_start[r + 1]; k++)
            add(ctx, row_of[r], jac.col[k], values[k]);
done:
    free(work), free(values);
    expr_tape_destroy(tape);
    expr_sparse_free(&jac);
    expr_pool_destroy(pool);
    free(roots), free(rows), free(row_of), free(slot), free(vars), free(map);
    return status;
}
