// The equations of a compiled model: the Lagrangian with its gradient and Hessian, the
// constraints with their one-forms, rates and Jacobians, the forces (external, friction,
// two-form) with their Jacobian, the heat exchange, and the outputs. Every derivative is taken
// symbolically on the DAG and each group compiled to one tape (src/model.h lists the groups).
#include "model_compile.h"

#include "error.h"

#include <string.h>

// ---- the Lagrangian ---------------------------------------------------------------------------

// L = Σ over instances of their `lagrangian` terms; EXPR_NONE after an error.
static expr_id lagrangian_sum(compile_state *c)
{
    dirac_model *m = c->m;
    expr_id sum = expr_const(m->pool, 0.0);
    for (int k = 0; k < c->tree.count; k++) {
        const instance *in = c->tree.items[k];
        for (int i = 0; i < in->sm->lagrangian_count; i++) {
            expr_id term = lower_expr(&in->scope, &in->sm->lagrangian[i].value);
            if (term == EXPR_NONE)
                return EXPR_NONE;
            // inputs jump between steps: in L they would change the energy E = <p, v> - L
            // without any work to account for it, so they drive the system through forces,
            // constraints, two-forms and heat inputs only
            int32_t lo = 0, hi = -1;
            expr_var_range(m->pool, term, &lo, &hi);
            if (m->nu > 0 && hi >= m->first_u) {
                spec_error(c->spec, DIRAC_ERR_PARSE, in->sm->lagrangian[i].loc,
                           "the lagrangian depends on an input; an input may drive the system "
                           "through forces, constraints, two-forms and heat inputs only (a "
                           "voltage or torque input is a `force`)");
                return EXPR_NONE;
            }
            sum = expr_add(m->pool, sum, term);
        }
    }
    return sum;
}

// [L], ∇L and the Hessian over y = (q, v, S, t).
int compile_lagrangian(compile_state *c)
{
    dirac_model *m = c->m;
    expr_id sum = lagrangian_sum(c);
    if (sum == EXPR_NONE)
        return 0;
    m->lagrangian = sum;
    if (!compile_pool_ok(c))
        return 0;
    m->lagrangian_value.ids[0] = sum;
    int dim = m->gradient.count;   // y = (q, v, S, t)
    int32_t *vars = mem_calloc(&m->mem, (size_t)dim, sizeof *vars);
    if (!vars)
        return compile_fail_nomem(c);
    for (int i = 0; i < dim; i++)
        vars[i] = i;
    expr_sparse gradient = { 0 }, hessian = { 0 };
    dirac_error err;
    dirac_status status = expr_hessian(m->pool, sum, dim, vars, &gradient, &hessian, &err);
    mem_free(&m->mem, vars);
    if (status == DIRAC_OK) {
        for (int i = 0; i < dim; i++)
            m->gradient.ids[i] = expr_const(m->pool, 0.0);
        for (int k = 0; k < gradient.nnz; k++)
            m->gradient.ids[gradient.col[k]] = gradient.value[k];
        status = model_group_compile(m, &m->gradient, &err);
    }
    if (status == DIRAC_OK)
        status = model_group_compile(m, &m->lagrangian_value, &err);
    if (status == DIRAC_OK)
        status = model_sparse_from_jacobian(m, &m->hessian, &hessian, &err);
    expr_sparse_free(&gradient);
    expr_sparse_free(&hessian);
    return status == DIRAC_OK ? 1 : compile_fail_status(c, &err);
}

// ---- constraints ------------------------------------------------------------------------------

static int is_holonomic(const dirac_model *m, int a)
{
    return m->constraints[a].kind == DIRAC_CONSTRAINT_HOLONOMIC;
}

// The values c_a = lhs − rhs.
static int constraint_values(compile_state *c)
{
    dirac_model *m = c->m;
    for (int a = 0; a < m->m; a++) {
        const spec_constraint *sc = c->constraint_spec[a];
        const lower_scope *scope = &c->constraint_owner[a]->scope;
        expr_id value = lower_expr(scope, &sc->lhs);
        if (value != EXPR_NONE && sc->has_rhs) {
            expr_id rhs = lower_expr(scope, &sc->rhs);
            value = rhs == EXPR_NONE ? EXPR_NONE : expr_sub(m->pool, value, rhs);
        }
        if (value == EXPR_NONE)
            return 0;
        m->constraint_values.ids[a] = value;
    }
    return 1;
}

// The one-forms ω as one sparse m x n matrix in the constraints' order, merged from two
// Jacobians, jac[0] of the holonomic rows (in q) and jac[1] of the nonholonomic rows (in v).
static dirac_status merge_forms(dirac_model *m, const expr_sparse jac[2], dirac_error *err)
{
    model_sparse *f = &m->constraint_forms;
    f->rows = m->m;
    f->cols = m->n;
    f->nnz = jac[0].nnz + jac[1].nnz;
    f->values.count = f->nnz;
    f->row_start = mem_calloc(&m->mem, (size_t)m->m + 1, sizeof *f->row_start);
    f->col = mem_calloc(&m->mem, (size_t)f->nnz, sizeof *f->col);
    f->values.ids = mem_calloc(&m->mem, (size_t)f->nnz, sizeof *f->values.ids);
    if (!f->row_start || !f->col || !f->values.ids)
        return error_set(err, DIRAC_ERR_NOMEM, "out of memory");
    int next_row[2] = { 0, 0 }, k = 0;
    for (int a = 0; a < m->m; a++) {
        f->row_start[a] = k;
        const expr_sparse *from = &jac[!is_holonomic(m, a)];
        int row = next_row[!is_holonomic(m, a)]++;
        for (int j = from->row_start[row]; j < from->row_start[row + 1]; j++, k++) {
            f->col[k] = from->col[j];
            f->values.ids[k] = from->value[j];
        }
    }
    f->row_start[m->m] = k;
    return model_group_compile(m, &f->values, err);
}

// ω: one Jacobian for the holonomic rows (∂φ/∂q) and one for the nonholonomic rows (∂c/∂v),
// so that the work is linear in the model size.
static int constraint_forms(compile_state *c)
{
    dirac_model *m = c->m;
    int n = m->n;
    expr_id *selected = mem_calloc(&m->mem, (size_t)m->m, sizeof *selected);
    int32_t *vars = mem_calloc(&m->mem, (size_t)n, sizeof *vars);
    expr_sparse jac[2] = { { 0 }, { 0 } };
    dirac_error err;
    dirac_status status = selected && vars ? DIRAC_OK
                                           : error_set(&err, DIRAC_ERR_NOMEM, "out of memory");
    for (int kind = 0; status == DIRAC_OK && kind < 2; kind++) {
        int holonomic = kind == 0, count = 0;
        for (int a = 0; a < m->m; a++)
            if (is_holonomic(m, a) == holonomic)
                selected[count++] = m->constraint_values.ids[a];
        for (int i = 0; i < n; i++)
            vars[i] = (holonomic ? 0 : m->first_v) + i;
        if (count > 0)
            status = expr_jacobian(m->pool, count, selected, n, vars, &jac[kind], &err);
    }
    if (status == DIRAC_OK)
        status = merge_forms(m, jac, &err);
    expr_sparse_free(&jac[0]);
    expr_sparse_free(&jac[1]);
    mem_free(&m->mem, selected);
    mem_free(&m->mem, vars);
    return status == DIRAC_OK ? 1 : compile_fail_status(c, &err);
}

// Whether c_a depends on t, and b_a: ∂φ_a/∂t (holonomic), or c_a at v = 0 (nonholonomic; only
// its own velocities are set to 0). EXPR_NONE (err set) on failure.
static expr_id constraint_rate(dirac_model *m, int a, const expr_id *zeros, dirac_error *err)
{
    expr_id value = m->constraint_values.ids[a];
    int32_t *used = NULL;
    int used_count = 0;
    if (expr_variables(m->pool, 1, &value, &used, &used_count, err))
        return EXPR_NONE;
    int velocities = 0;
    for (int k = 0; k < used_count; k++) {
        if (used[k] == m->index_t)
            m->constraints[a].time_dependent = 1;
        if (used[k] >= m->first_v && used[k] < m->first_v + m->n)
            used[velocities++] = used[k];
    }
    expr_id rate = EXPR_NONE;
    if (is_holonomic(m, a))
        rate = expr_diff(m->pool, value, m->index_t);
    else if (expr_substitute(m->pool, value, velocities, used, zeros, &rate, err))
        rate = EXPR_NONE;
    mem_free(&m->mem, used);
    return rate;
}

// The rates b_a, the velocity-level constraints g_a = ⟨ω_a, v⟩ + b_a (holonomic; the
// nonholonomic c_a is already one) and Σ_a μ_a ω_a (into `multiplied`, n entries; `zeros`:
// n entries of scratch).
static int constraint_rates(compile_state *c, expr_id *velocity_level, expr_id *multiplied,
                            expr_id *zeros)
{
    dirac_model *m = c->m;
    const model_sparse *f = &m->constraint_forms;
    for (int i = 0; i < m->n; i++)
        multiplied[i] = zeros[i] = expr_const(m->pool, 0.0);
    for (int a = 0; a < m->m; a++) {
        dirac_error err = { DIRAC_ERR_NOMEM, "out of memory" };
        expr_id rate = constraint_rate(m, a, zeros, &err);
        if (rate == EXPR_NONE && !compile_pool_ok(c))
            return 0;
        if (rate == EXPR_NONE)
            return compile_fail_status(c, &err);
        m->constraint_rates.ids[a] = rate;
        expr_id g = rate;
        expr_id mu = expr_var(m->pool, m->first_mu + a);
        for (int k = f->row_start[a]; k < f->row_start[a + 1]; k++) {
            int i = f->col[k];
            expr_id omega = f->values.ids[k];
            g = expr_add(m->pool, g, expr_mul(m->pool, omega, expr_var(m->pool, m->first_v + i)));
            multiplied[i] = expr_add(m->pool, multiplied[i], expr_mul(m->pool, mu, omega));
        }
        velocity_level[a] = is_holonomic(m, a) ? g : m->constraint_values.ids[a];
        if (!compile_pool_ok(c))
            return 0;
    }
    return 1;
}

// c_a; ω_a (∂c/∂v for nonholonomic, ∂φ/∂q for holonomic); b_a; the velocity-level g_a and its
// Jacobian; Σ μ_a ω_a and its q-Jacobian.
int compile_constraints(compile_state *c)
{
    dirac_model *m = c->m;
    expr_id *velocity_level = mem_calloc(&m->mem, (size_t)m->m, sizeof *velocity_level);
    expr_id *multiplied = mem_calloc(&m->mem, 2 * (size_t)m->n, sizeof *multiplied);
    int ok = velocity_level && multiplied ? 1 : compile_fail_nomem(c);
    ok = ok && constraint_values(c) && constraint_forms(c) &&
         constraint_rates(c, velocity_level, multiplied, multiplied + m->n);
    dirac_error err;
    if (ok && (model_group_compile(m, &m->constraint_values, &err) ||
               model_group_compile(m, &m->constraint_rates, &err) ||
               model_sparse_jacobian(m, &m->constraint_jacobian, m->m, velocity_level, 0,
                                     2 * m->n + m->ns + 1, &err) ||
               model_sparse_jacobian(m, &m->form_curvature, m->n, multiplied, 0, m->n, &err)))
        ok = compile_fail_status(c, &err);
    mem_free(&m->mem, velocity_level);
    mem_free(&m->mem, multiplied);
    return ok;
}

// ---- forces -------------------------------------------------------------------------------------

// `force COORD: EXPR` and `friction COORD -> S: EXPR` of one instance, added to the forces.
static int instance_forces(compile_state *c, const instance *in, int *friction)
{
    dirac_model *m = c->m;
    const spec_model *sm = in->sm;
    for (int j = 0; j < sm->force_count; j++) {
        const spec_force *f = &sm->forces[j];
        int i = compile_resolve_variable(in, f->coord.name, SPEC_SYM_COORDINATE);
        expr_id value = lower_expr(&in->scope, &f->value);
        if (value == EXPR_NONE)
            return 0;
        if (i < 0) {
            spec_error(c->spec, DIRAC_ERR_PARSE, f->coord.loc, "'%s' is not a coordinate",
                       f->coord.name);
            return 0;
        }
        m->forces.ids[i] = expr_add(m->pool, m->forces.ids[i], value);
    }
    for (int j = 0; j < sm->friction_count; j++, (*friction)++) {
        const spec_friction *f = &sm->frictions[j];
        int i = compile_resolve_variable(in, f->coord.name, SPEC_SYM_COORDINATE);
        int s = compile_resolve_variable(in, f->entropy.name, SPEC_SYM_ENTROPY);
        expr_id value = lower_expr(&in->scope, &f->value);
        if (value == EXPR_NONE || i < 0 || s < 0)
            return 0;
        m->friction_coord[*friction] = i;
        m->friction_entropy[*friction] = s;
        m->friction[*friction] = value;
        m->forces.ids[i] = expr_add(m->pool, m->forces.ids[i], value);
    }
    return 1;
}

// The gyroscopic forces of one instance's two-forms B = Σ c d(A) ^ d(B): F = B(v, ·), i.e.
// F_B += c A', F_A −= c B' (power-free).
static int instance_twoform_forces(compile_state *c, const instance *in, int *wedge)
{
    dirac_model *m = c->m;
    const spec_model *sm = in->sm;
    for (int j = 0; j < sm->twoform_count; j++) {
        const spec_twoform *tf = &sm->twoforms[j];
        for (int t = 0; t < tf->term_count; t++, (*wedge)++) {
            const spec_wedge *wg = &tf->terms[t];
            expr_id coefficient = wg->coefficient.count > 0
                                      ? lower_expr(&in->scope, &wg->coefficient)
                                      : expr_const(m->pool, 1.0);
            if (coefficient == EXPR_NONE)
                return 0;
            coefficient = expr_mul(m->pool, expr_const(m->pool, (double)wg->sign), coefficient);
            m->wedge_coefficients.ids[*wedge] = coefficient;
            int a = m->wedges[*wedge].a, b = m->wedges[*wedge].b;
            expr_id va = expr_var(m->pool, m->first_v + a);
            expr_id vb = expr_var(m->pool, m->first_v + b);
            m->forces.ids[b] = expr_add(m->pool, m->forces.ids[b], expr_mul(m->pool, coefficient, va));
            m->forces.ids[a] = expr_sub(m->pool, m->forces.ids[a], expr_mul(m->pool, coefficient, vb));
        }
    }
    return 1;
}

// External, friction and gyroscopic (two-form) forces per coordinate, and their Jacobian.
int compile_forces(compile_state *c)
{
    dirac_model *m = c->m;
    for (int i = 0; i < m->n; i++)
        m->forces.ids[i] = expr_const(m->pool, 0.0);
    int friction = 0, wedge = 0;
    for (int k = 0; k < c->tree.count; k++)
        if (!instance_forces(c, c->tree.items[k], &friction) ||
            !instance_twoform_forces(c, c->tree.items[k], &wedge))
            return 0;
    if (!compile_pool_ok(c))
        return 0;
    dirac_error err;
    if (model_group_compile(m, &m->forces, &err) ||
        model_group_compile(m, &m->wedge_coefficients, &err) ||
        model_sparse_jacobian(m, &m->force_jacobian, m->n, m->forces.ids, 0, 2 * m->n + m->ns,
                              &err))
        return compile_fail_status(c, &err);
    return 1;
}

// ---- heat -------------------------------------------------------------------------------------

// `heat S1, S2: conductance` pairs and `heat_input S: power` per entropy variable.
int compile_heat(compile_state *c)
{
    dirac_model *m = c->m;
    for (int j = 0; j < m->ns; j++)
        m->heat_input[j] = expr_const(m->pool, 0.0);
    int h = 0;
    for (int k = 0; k < c->tree.count; k++) {
        const instance *in = c->tree.items[k];
        const spec_model *sm = in->sm;
        for (int j = 0; j < sm->heat_count; j++, h++) {
            const spec_heat *heat = &sm->heats[j];
            m->heat_pair[2 * h] = compile_resolve_variable(in, heat->a.name, SPEC_SYM_ENTROPY);
            m->heat_pair[2 * h + 1] = compile_resolve_variable(in, heat->b.name, SPEC_SYM_ENTROPY);
            if ((m->heat_conductance[h] = lower_expr(&in->scope, &heat->value)) == EXPR_NONE)
                return 0;
        }
        for (int j = 0; j < sm->heat_input_count; j++) {
            int s = compile_resolve_variable(in, sm->heat_inputs[j].entropy.name, SPEC_SYM_ENTROPY);
            expr_id value = lower_expr(&in->scope, &sm->heat_inputs[j].value);
            if (value == EXPR_NONE || s < 0)
                return 0;
            m->heat_input[s] = expr_add(m->pool, m->heat_input[s], value);
        }
    }
    return compile_pool_ok(c);
}

// The thermodynamic pieces evaluated together: friction forces, conductances, heat inputs.
int compile_thermal(compile_state *c)
{
    dirac_model *m = c->m;
    for (int k = 0; k < m->friction_count; k++)
        m->thermal.ids[k] = m->friction[k];
    for (int k = 0; k < m->heat_count; k++)
        m->thermal.ids[m->friction_count + k] = m->heat_conductance[k];
    m->thermodynamic = m->friction_count > 0 || m->heat_count > 0;
    for (int j = 0; j < m->ns; j++) {
        m->thermal.ids[m->friction_count + m->heat_count + j] = m->heat_input[j];
        if (expr_kind_of(m->pool, m->heat_input[j]) != EXPR_CONST ||
            expr_const_value(m->pool, m->heat_input[j]) != 0.0)
            m->thermodynamic = 1;
    }
    dirac_error err;
    if (model_group_compile(m, &m->thermal, &err))
        return compile_fail_status(c, &err);
    return 1;
}

// ---- outputs ----------------------------------------------------------------------------------

// The interactions' CSV columns as expressions, for the outer model's outputs: per
// interaction (compile_interactions) its force on each coordinate it acts on, F.NAME.COORD,
// then its power P.NAME = ⟨F, v⟩. Constraints: F = μ_a ω_a; two-forms: F = B(v, ·), i.e.
// F_b += c v_a, F_a −= c v_b per wedge c da ∧ db. Names in the model's text arena, ids into
// `ids` (room for Σ_k (coordinates_k + 1)).
static int interaction_columns(compile_state *c, char **names, expr_id *ids, expr_id *force)
{
    dirac_model *m = c->m;
    expr_pool *pool = m->pool;
    int count = 0;
    for (int k = 0; k < m->interaction_count; k++) {
        int index = m->interaction_index[k];
        const char *name = m->interaction_kind[k] == 0 ? m->constraints[index].name
                                                       : m->twoform_names[index];
        const int *coords = m->interaction_coords[k];
        int len = m->interaction_coord_count[k];
        for (int j = 0; j < len; j++)
            force[coords[j]] = expr_const(pool, 0.0);
        if (m->interaction_kind[k] == 0) {
            const model_sparse *f = &m->constraint_forms;
            expr_id mu = expr_var(pool, m->first_mu + index);
            for (int e = f->row_start[index]; e < f->row_start[index + 1]; e++)
                force[f->col[e]] = expr_add(pool, force[f->col[e]],
                                            expr_mul(pool, mu, f->values.ids[e]));
        } else {
            for (int w = 0; w < m->wedge_count; w++) {
                if (m->wedges[w].twoform != index)
                    continue;
                int a = m->wedges[w].a, b = m->wedges[w].b;
                expr_id cw = m->wedge_coefficients.ids[w];
                force[b] = expr_add(pool, force[b],
                                    expr_mul(pool, cw, expr_var(pool, m->first_v + a)));
                force[a] = expr_sub(pool, force[a],
                                    expr_mul(pool, cw, expr_var(pool, m->first_v + b)));
            }
        }
        expr_id power = expr_const(pool, 0.0);
        char *head = mem_arena_concat(&m->text, "F.", name, ".");
        for (int j = 0; j < len; j++) {
            int i = coords[j];
            if (!head || !(names[count] = mem_arena_concat(&m->text, head, m->coord_names[i], "")))
                return compile_fail_nomem(c);
            ids[count++] = force[i];
            power = expr_add(pool, power, expr_mul(pool, force[i],
                                                    expr_var(pool, m->first_v + i)));
        }
        if (!(names[count] = mem_arena_concat(&m->text, "P.", name, "")))
            return compile_fail_nomem(c);
        ids[count++] = power;
    }
    return compile_pool_ok(c);
}

// Lowers every instance's outputs. Besides the model's own symbols they may name
// (spec_resolve.c: derived_name) p_i = ∂L/∂v_i, T_j = −∂L/∂S_j (`temperature`, by input
// index), E = Σ v_i ∂L/∂v_i − L, the multipliers, the accelerations (inputs first_a.., set
// at each node by sim_node.c), and the interactions' columns F.NAME.COORD, P.NAME
// (interaction_columns; a component's outputs name its own without its prefix).
static int lower_outputs(compile_state *c, const expr_id *temperature, expr_id energy)
{
    dirac_model *m = c->m;
    int columns = 0;
    for (int k = 0; k < m->interaction_count; k++)
        columns += m->interaction_coord_count[k] + 1;
    char **names = mem_calloc(&m->mem, (size_t)columns + 1, sizeof *names);
    expr_id *ids = mem_calloc(&m->mem, (size_t)columns + 1, sizeof *ids);
    expr_id *force = mem_calloc(&m->mem, (size_t)m->n + 1, sizeof *force);
    int o = 0, first_mu = m->first_mu;
    int ok = names && ids && force ? interaction_columns(c, names, ids, force)
                                   : compile_fail_nomem(c);
    // every instance's multipliers and accelerations first: an output may name a component's
    // (`mu.rotor.C`, `rotor.theta''`), lowered through that component's scope
    for (int k = 0; k < c->tree.count; k++) {
        instance *in = c->tree.items[k];
        in->scope.first_mu = first_mu;
        in->scope.first_a = m->na > 0 ? m->first_a + in->first_q : 0;
        first_mu += in->sm->constraint_count;
    }
    for (int k = 0; ok && k < c->tree.count; k++) {
        instance *in = c->tree.items[k];
        in->scope.momentum = m->gradient.ids + m->n;
        in->scope.temperature = temperature;
        in->scope.energy = energy;
        in->scope.interaction_names = names;   // found by name (model_lower.c)
        in->scope.interaction_columns = ids;
        in->scope.interaction_column_count = columns;
        for (int j = 0; ok && j < in->sm->output_count; j++, o++)
            ok = (m->outputs.ids[o] = lower_expr(&in->scope, &in->sm->outputs[j].value)) != EXPR_NONE;
        in->scope.momentum = in->scope.temperature = NULL;
        in->scope.interaction_names = NULL;
        in->scope.interaction_columns = NULL;
        in->scope.interaction_column_count = 0;
    }
    for (int k = 0; k < c->tree.count; k++)
        c->tree.items[k]->scope.first_a = 0;
    mem_free(&m->mem, names);
    mem_free(&m->mem, ids);
    mem_free(&m->mem, force);
    return ok;
}

int compile_outputs(compile_state *c)
{
    dirac_model *m = c->m;
    if (m->output_count == 0)
        return 1;
    expr_id *temperature = mem_calloc(&m->mem, (size_t)m->n_inputs, sizeof *temperature);
    if (!temperature)
        return compile_fail_nomem(c);
    for (int j = 0; j < m->ns; j++)
        temperature[m->first_s + j] = expr_neg(m->pool, m->gradient.ids[2 * m->n + j]);
    expr_id energy = expr_neg(m->pool, m->lagrangian);
    for (int i = 0; i < m->n; i++)
        energy = expr_add(m->pool, energy, expr_mul(m->pool, expr_var(m->pool, m->first_v + i),
                                                    m->gradient.ids[m->n + i]));
    int ok = compile_pool_ok(c) && lower_outputs(c, temperature, energy);
    mem_free(&m->mem, temperature);
    if (!ok)
        return 0;
    dirac_error err;
    if (model_group_compile(m, &m->outputs, &err) ||
        model_sparse_jacobian(m, &m->output_jacobian, m->output_count, m->outputs.ids, 0,
                              m->n_inputs, &err))
        return compile_fail_status(c, &err);
    return 1;
}
