// Compilation of a parsed model into a dirac_model: parameters folded, lets shared, every
// derivative the integrators need taken symbolically on the DAG, and each group of functions
// compiled to one evaluation tape with its sparsity pattern (src/model.h lists the groups).
#include "model.h"

#include "error.h"
#include "model_instance.h"
#include "model_lower.h"
#include "linalg_dense.h"
#include "parse.h"
#include "text.h"

#include <lapacke.h>
#include "spec_api.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

// ---- small helpers ---------------------------------------------------------------------------

static dirac_status group_compile(dirac_model *m, model_group *g, dirac_error *err)
{
    if (g->count == 0)
        return DIRAC_OK;
    dirac_status status = expr_tape_compile(m->pool, g->count, g->ids, &g->tape, err);
    if (status == DIRAC_OK && expr_tape_work_size(g->tape) > m->work_size)
        m->work_size = expr_tape_work_size(g->tape);
    return status;
}

static dirac_status group_alloc(model_group *g, int count, dirac_error *err)
{
    g->count = count;
    g->ids = calloc((size_t)(count > 0 ? count : 1), sizeof *g->ids);
    if (!g->ids)
        return error_set(err, DIRAC_ERR_NOMEM, "out of memory");
    return DIRAC_OK;
}

static void group_free(model_group *g)
{
    expr_tape_destroy(g->tape);
    free(g->ids);
    memset(g, 0, sizeof *g);
}

// Takes the arrays of an expr_sparse Jacobian into a model_sparse and compiles its values.
static dirac_status sparse_from_jacobian(dirac_model *m, model_sparse *out, expr_sparse *jac,
                                         dirac_error *err)
{
    out->rows = jac->n_rows;
    out->cols = jac->n_cols;
    out->nnz = jac->nnz;
    out->row_start = jac->row_start;
    out->col = jac->col;
    out->values.ids = jac->value;
    out->values.count = jac->nnz;
    jac->row_start = jac->col = NULL;
    jac->value = NULL;
    if (!out->values.ids) {
        out->values.ids = malloc(sizeof *out->values.ids);
        if (!out->values.ids)
            return error_set(err, DIRAC_ERR_NOMEM, "out of memory");
    }
    return group_compile(m, &out->values, err);
}

// Jacobian of `count` expressions with respect to the input indices first .. first+cols-1.
static dirac_status sparse_jacobian(dirac_model *m, model_sparse *out, int count,
                                    const expr_id *ids, int first, int cols, dirac_error *err)
{
    int32_t *vars = malloc((size_t)(cols > 0 ? cols : 1) * sizeof *vars);
    if (!vars)
        return error_set(err, DIRAC_ERR_NOMEM, "out of memory");
    for (int c = 0; c < cols; c++)
        vars[c] = first + c;
    expr_sparse jac = { 0 };
    dirac_status status = expr_jacobian(m->pool, count, ids, cols, vars, &jac, err);
    if (status == DIRAC_OK)
        status = sparse_from_jacobian(m, out, &jac, err);
    expr_sparse_free(&jac);
    free(vars);
    return status;
}

static void sparse_free(model_sparse *s)
{
    free(s->row_start);
    free(s->col);
    group_free(&s->values);
    memset(s, 0, sizeof *s);
}

void model_set_default_inputs(const dirac_model *m, double *x)
{
    for (int k = 0; k < m->nu; k++)
        x[m->first_u + k] = m->input_defaults[k];
}

void model_group_eval(const model_group *g, const double *x, double *work, double *values)
{
    if (g->module) {
        double *out[CODEGEN_MAX_GROUPS];
        out[g->bit] = values;
        codegen_eval(g->module, 1u << g->bit, x, out, work);
    } else if (g->tape) {
        expr_tape_eval(g->tape, x, work, values);
    }
}

// ---- compilation: the instance tree flattened into one system ------------------------------

typedef struct compile_state {
    dirac_model *m;
    spec *spec;
    instance_tree tree;
    // constraints of all instances, in the model's order
    const spec_constraint **constraint_spec;
    const instance **constraint_owner;
} compile_state;

static int fail_nomem(compile_state *c)
{
    spec_out_of_memory(c->spec);
    return 0;
}

// Reports a library error (no source location) in the spec; returns 0.
static int fail_status(compile_state *c, const dirac_error *err)
{
    spec_loc none = { NULL, 0, 0 };
    spec_error(c->spec, err->status, none, "%s", err->message);
    return 0;
}

static int pool_ok(compile_state *c)
{
    dirac_error err;
    if (expr_pool_status(c->m->pool) == DIRAC_OK)
        return 1;
    expr_pool_error(c->m->pool, &err);
    return fail_status(c, &err);
}

// The top-level subsystem an instance belongs to (-1: the outer model itself).
static int subsystem_of(const instance *in)
{
    while (in->parent && in->parent->parent)
        in = in->parent;
    return in->parent ? in->component : -1;
}

// Does the expression name a component's symbol (a qualified name)?
static int mentions_component(const spec_expr *e)
{
    for (int32_t i = 0; i < e->count; i++)
        if ((e->nodes[i].kind == SPEC_EXPR_NAME || e->nodes[i].kind == SPEC_EXPR_PRIME) &&
            e->nodes[i].u.sym.ref.kind == SPEC_SYM_QUALIFIED)
            return 1;
    return 0;
}

// Global index of the coordinate or entropy variable `name` seen from `in` (-1 if it is not one).
static int resolve_variable(const instance *in, const char *name, spec_sym_kind kind)
{
    const instance *owner = NULL;
    spec_ref ref;
    if (!instance_resolve(in, name, &owner, &ref) || ref.kind != kind)
        return -1;
    return kind == SPEC_SYM_COORDINATE ? owner->first_q + ref.index : owner->first_s + ref.index;
}

static int compile_names(compile_state *c)
{
    dirac_model *m = c->m;
    const spec_model *root = c->tree.items[0]->sm;
    m->name = text_concat(root->name, NULL, NULL);
    m->file = text_concat(root->file, NULL, NULL);
    int outputs = 0, constraints = 0, twoforms = 0, wedges = 0;
    for (int k = 0; k < c->tree.count; k++) {
        const spec_model *sm = c->tree.items[k]->sm;
        outputs += sm->output_count;
        constraints += sm->constraint_count;
        twoforms += sm->twoform_count;
        for (int f = 0; f < sm->twoform_count; f++)
            wedges += sm->twoforms[f].term_count;
    }
    m->m = constraints;
    m->output_count = outputs;
    m->twoform_count = twoforms;
    m->wedge_count = wedges;
    m->component_count = c->tree.count - 1;
    m->coord_names = calloc((size_t)m->n + 1, sizeof *m->coord_names);
    m->entropy_names = calloc((size_t)m->ns + 1, sizeof *m->entropy_names);
    m->constraints = calloc((size_t)m->m + 1, sizeof *m->constraints);
    m->output_names = calloc((size_t)outputs + 1, sizeof *m->output_names);
    m->twoform_names = calloc((size_t)twoforms + 1, sizeof *m->twoform_names);
    m->twoform_subsystem = calloc((size_t)twoforms + 1, sizeof *m->twoform_subsystem);
    m->twoform_interaction = calloc((size_t)twoforms + 1, sizeof *m->twoform_interaction);
    m->wedges = calloc((size_t)wedges + 1, sizeof *m->wedges);
    c->constraint_spec = calloc((size_t)m->m + 1, sizeof *c->constraint_spec);
    c->constraint_owner = calloc((size_t)m->m + 1, sizeof *c->constraint_owner);
    if (!m->name || !m->file || !m->coord_names || !m->entropy_names || !m->constraints ||
        !m->output_names || !m->twoform_names || !m->twoform_subsystem ||
        !m->twoform_interaction || !m->wedges || !c->constraint_spec || !c->constraint_owner)
        return fail_nomem(c);
    int a = 0, o = 0, f = 0, w = 0;
    for (int k = 0; k < c->tree.count; k++) {
        const instance *in = c->tree.items[k];
        const spec_model *sm = in->sm;
        for (int i = 0; i < sm->coord_count; i++)
            if (!(m->coord_names[in->first_q + i] =
                      text_concat(in->prefix, sm->coords[i].name, NULL)))
                return fail_nomem(c);
        for (int i = 0; i < sm->entropy_count; i++)
            if (!(m->entropy_names[in->first_s + i] =
                      text_concat(in->prefix, sm->entropies[i].name, NULL)))
                return fail_nomem(c);
        for (int i = 0; i < sm->constraint_count; i++, a++) {
            const spec_constraint *sc = &sm->constraints[i];
            model_constraint *mc = &m->constraints[a];
            if (!(mc->name = text_concat(in->prefix, sc->name, NULL)))
                return fail_nomem(c);
            mc->kind = sc->kind == SPEC_CONSTRAINT_HOLONOMIC ? DIRAC_CONSTRAINT_HOLONOMIC
                                                              : DIRAC_CONSTRAINT_NONHOLONOMIC;
            mc->line = sc->loc.line;
            mc->col = sc->loc.col;
            mc->subsystem = subsystem_of(in);
            mc->interaction = sm->component_count > 0 &&
                              (mentions_component(&sc->lhs) || mentions_component(&sc->rhs));
            c->constraint_spec[a] = sc;
            c->constraint_owner[a] = in;
        }
        for (int i = 0; i < sm->output_count; i++, o++)
            if (!(m->output_names[o] = text_concat(in->prefix, sm->outputs[i].name, NULL)))
                return fail_nomem(c);
        for (int i = 0; i < sm->twoform_count; i++, f++) {
            const spec_twoform *tf = &sm->twoforms[i];
            if (!(m->twoform_names[f] = text_concat(in->prefix, tf->name, NULL)))
                return fail_nomem(c);
            m->twoform_subsystem[f] = subsystem_of(in);
            for (int j = 0; j < tf->term_count; j++, w++) {
                const spec_wedge *wg = &tf->terms[j];
                model_wedge *mw = &m->wedges[w];
                mw->a = resolve_variable(in, wg->a.name, SPEC_SYM_COORDINATE);
                mw->b = resolve_variable(in, wg->b.name, SPEC_SYM_COORDINATE);
                mw->twoform = f;
                if (mw->a < 0 || mw->b < 0) {
                    spec_error(c->spec, DIRAC_ERR_PARSE, mw->a < 0 ? wg->a.loc : wg->b.loc,
                               "two-form terms must wedge coordinates");
                    return 0;
                }
                if (strchr(wg->a.name, '.') || strchr(wg->b.name, '.'))
                    m->twoform_interaction[f] = sm->component_count > 0;
            }
        }
    }
    // top-level subsystems: the outer model's own coordinates, then each of its components
    const instance *top = c->tree.items[0];
    if (top->sm->component_count > 0) {
        m->subsystems = calloc((size_t)top->sm->component_count + 1, sizeof *m->subsystems);
        if (!m->subsystems)
            return fail_nomem(c);
        if (top->sm->coord_count > 0) {
            m->subsystems[m->subsystem_count++] =
                (model_subsystem){ text_concat(m->name, NULL, NULL), -1, 0, top->sm->coord_count };
        }
        for (int k = 0; k < top->sm->component_count; k++) {
            const instance *child = top->children[k];
            int next = k + 1 < top->sm->component_count ? top->children[k + 1]->first_q : m->n;
            m->subsystems[m->subsystem_count++] =
                (model_subsystem){ text_concat(top->sm->components[k].name, NULL, NULL), k,
                                   child->first_q, next - child->first_q };
        }
        for (int k = 0; k < m->subsystem_count; k++)
            if (!m->subsystems[k].name)
                return fail_nomem(c);
    }
    return 1;
}

static int compile_lagrangian(compile_state *c)
{
    dirac_model *m = c->m;
    expr_id sum = expr_const(m->pool, 0.0);
    for (int k = 0; k < c->tree.count; k++) {
        const instance *in = c->tree.items[k];
        for (int i = 0; i < in->sm->lagrangian_count; i++) {
            expr_id term = lower_expr(&in->scope, &in->sm->lagrangian[i].value);
            if (term == EXPR_NONE)
                return 0;
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
                return 0;
            }
            sum = expr_add(m->pool, sum, term);
        }
    }
    m->lagrangian = sum;
    dirac_error err;
    if (!pool_ok(c))
        return 0;
    if (group_alloc(&m->lagrangian_value, 1, &err))
        return fail_status(c, &err);
    m->lagrangian_value.ids[0] = sum;
    int dim = 2 * m->n + m->ns + 1;   // y = (q, v, S, t)
    int32_t *vars = malloc((size_t)dim * sizeof *vars);
    if (!vars)
        return fail_nomem(c);
    for (int i = 0; i < dim; i++)
        vars[i] = i;
    expr_sparse gradient = { 0 }, hessian = { 0 };
    dirac_status status = expr_hessian(m->pool, sum, dim, vars, &gradient, &hessian, &err);
    free(vars);
    if (status == DIRAC_OK)
        status = group_alloc(&m->gradient, dim, &err);
    if (status == DIRAC_OK) {
        for (int i = 0; i < dim; i++)
            m->gradient.ids[i] = expr_const(m->pool, 0.0);
        for (int k = 0; k < gradient.nnz; k++)
            m->gradient.ids[gradient.col[k]] = gradient.value[k];
        status = group_compile(m, &m->gradient, &err);
    }
    if (status == DIRAC_OK)
        status = group_compile(m, &m->lagrangian_value, &err);
    if (status == DIRAC_OK)
        status = sparse_from_jacobian(m, &m->hessian, &hessian, &err);
    expr_sparse_free(&gradient);
    expr_sparse_free(&hessian);
    return status == DIRAC_OK ? 1 : fail_status(c, &err);
}

// c_a; ω_a (∂c/∂v for nonholonomic, ∂φ/∂q for holonomic); b_a; the velocity-level g_a and its
// Jacobian; Σ μ_a ω_a and its q-Jacobian.
static int compile_constraints(compile_state *c)
{
    dirac_model *m = c->m;
    dirac_error err;
    int n = m->n;
    expr_id *velocity_level = calloc((size_t)m->m + 1, sizeof *velocity_level);
    expr_id *multiplied = calloc((size_t)n + 1, sizeof *multiplied);
    expr_sparse *rows = calloc((size_t)m->m + 1, sizeof *rows);
    int32_t *vars = malloc(((size_t)n + 1) * sizeof *vars);
    expr_id *zeros = malloc(((size_t)n + 1) * sizeof *zeros);
    expr_id *selected = malloc(((size_t)m->m + 1) * sizeof *selected);
    int ok = velocity_level && multiplied && rows && vars && zeros && selected;
    if (!ok)
        fail_nomem(c);
    if (ok && (group_alloc(&m->constraint_values, m->m, &err) ||
               group_alloc(&m->constraint_rates, m->m, &err)))
        ok = fail_status(c, &err);
    for (int i = 0; ok && i < n; i++) {
        multiplied[i] = expr_const(m->pool, 0.0);
        zeros[i] = multiplied[i];
    }
    // the values c_a
    for (int a = 0; ok && a < m->m; a++) {
        const spec_constraint *sc = c->constraint_spec[a];
        const lower_scope *scope = &c->constraint_owner[a]->scope;
        expr_id value = lower_expr(scope, &sc->lhs);
        if (value != EXPR_NONE && sc->has_rhs) {
            expr_id rhs = lower_expr(scope, &sc->rhs);
            value = rhs == EXPR_NONE ? EXPR_NONE : expr_sub(m->pool, value, rhs);
        }
        if (value == EXPR_NONE)
            ok = 0;
        else
            m->constraint_values.ids[a] = value;
    }
    // ω: one Jacobian for the holonomic rows (in q) and one for the nonholonomic rows (in v),
    // so that the work is linear in the model size
    for (int kind = 0; ok && kind < 2; kind++) {
        int holonomic = kind == 0, count = 0;
        for (int a = 0; a < m->m; a++)
            if ((m->constraints[a].kind == DIRAC_CONSTRAINT_HOLONOMIC) == holonomic)
                selected[count++] = m->constraint_values.ids[a];
        if (count == 0)
            continue;
        for (int i = 0; i < n; i++)
            vars[i] = (holonomic ? 0 : m->first_v) + i;
        expr_sparse jac = { 0 };
        if (expr_jacobian(m->pool, count, selected, n, vars, &jac, &err)) {
            ok = fail_status(c, &err);
            break;
        }
        for (int a = 0, row = 0; ok && a < m->m; a++) {
            if ((m->constraints[a].kind == DIRAC_CONSTRAINT_HOLONOMIC) != holonomic)
                continue;
            int len = jac.row_start[row + 1] - jac.row_start[row];
            rows[a].n_rows = 1;
            rows[a].n_cols = n;
            rows[a].nnz = len;
            rows[a].row_start = malloc(2 * sizeof *rows[a].row_start);
            rows[a].col = malloc((size_t)(len + 1) * sizeof *rows[a].col);
            rows[a].value = malloc((size_t)(len + 1) * sizeof *rows[a].value);
            if (!rows[a].row_start || !rows[a].col || !rows[a].value) {
                ok = fail_nomem(c);
                break;
            }
            rows[a].row_start[0] = 0;
            rows[a].row_start[1] = len;
            if (len > 0) {   // a constant constraint has no entries (and jac may hold none)
                memcpy(rows[a].col, jac.col + jac.row_start[row],
                       (size_t)len * sizeof *rows[a].col);
                memcpy(rows[a].value, jac.value + jac.row_start[row],
                       (size_t)len * sizeof *rows[a].value);
            }
            row++;
        }
        expr_sparse_free(&jac);
    }
    for (int a = 0; ok && a < m->m; a++) {
        expr_id value = m->constraint_values.ids[a];
        int holonomic = m->constraints[a].kind == DIRAC_CONSTRAINT_HOLONOMIC;
        // time dependence, and b_a: ∂φ/∂t, or the constraint at v = 0 (only its own velocities)
        int32_t *used = NULL;
        int used_count = 0;
        if (expr_variables(m->pool, 1, &value, &used, &used_count, &err)) {
            ok = fail_status(c, &err);
            break;
        }
        int velocities = 0;
        for (int k = 0; k < used_count; k++) {
            if (used[k] == m->index_t)
                m->constraints[a].time_dependent = 1;
            if (used[k] >= m->first_v && used[k] < m->first_v + n)
                used[velocities++] = used[k];
        }
        expr_id rate = EXPR_NONE;
        if (holonomic)
            rate = expr_diff(m->pool, value, m->index_t);
        else if (expr_substitute(m->pool, value, velocities, used, zeros, &rate, &err))
            rate = EXPR_NONE;
        free(used);
        m->constraint_rates.ids[a] = rate;
        // g_a = ⟨ω_a, v⟩ + b_a and Σ_a μ_a ω_a
        expr_id g = rate;
        expr_id mu = expr_var(m->pool, m->first_mu + a);
        for (int k = 0; k < rows[a].nnz; k++) {
            int i = rows[a].col[k];
            expr_id omega = rows[a].value[k];
            g = expr_add(m->pool, g, expr_mul(m->pool, omega, expr_var(m->pool, m->first_v + i)));
            multiplied[i] = expr_add(m->pool, multiplied[i], expr_mul(m->pool, mu, omega));
        }
        velocity_level[a] = holonomic ? g : value;
        if (!pool_ok(c))
            ok = 0;
    }
    // ω as one sparse m x n matrix
    if (ok) {
        model_sparse *f = &m->constraint_forms;
        int nnz = 0;
        for (int a = 0; a < m->m; a++)
            nnz += rows[a].nnz;
        f->rows = m->m;
        f->cols = n;
        f->nnz = nnz;
        f->row_start = malloc(((size_t)m->m + 1) * sizeof *f->row_start);
        f->col = malloc((size_t)(nnz > 0 ? nnz : 1) * sizeof *f->col);
        if (!f->row_start || !f->col || group_alloc(&f->values, nnz, &err)) {
            ok = fail_nomem(c);
        } else {
            int k = 0;
            for (int a = 0; a < m->m; a++) {
                f->row_start[a] = k;
                for (int j = 0; j < rows[a].nnz; j++, k++) {
                    f->col[k] = rows[a].col[j];
                    f->values.ids[k] = rows[a].value[j];
                }
            }
            f->row_start[m->m] = k;
            if (group_compile(m, &f->values, &err))
                ok = fail_status(c, &err);
        }
    }
    if (ok && (group_compile(m, &m->constraint_values, &err) ||
               group_compile(m, &m->constraint_rates, &err) ||
               sparse_jacobian(m, &m->constraint_jacobian, m->m, velocity_level, 0,
                               2 * n + m->ns + 1, &err) ||
               sparse_jacobian(m, &m->form_curvature, n, multiplied, 0, n, &err)))
        ok = fail_status(c, &err);
    for (int a = 0; rows && a < m->m; a++)
        expr_sparse_free(&rows[a]);
    free(rows);
    free(vars);
    free(zeros);
    free(selected);
    free(velocity_level);
    free(multiplied);
    return ok;
}

// External, friction and gyroscopic (two-form) forces per coordinate, and their Jacobian.
static int compile_forces(compile_state *c)
{
    dirac_model *m = c->m;
    dirac_error err;
    int frictions = 0;
    for (int k = 0; k < c->tree.count; k++)
        frictions += c->tree.items[k]->sm->friction_count;
    m->friction_count = frictions;
    m->friction_coord = calloc((size_t)frictions + 1, sizeof *m->friction_coord);
    m->friction_entropy = calloc((size_t)frictions + 1, sizeof *m->friction_entropy);
    m->friction = calloc((size_t)frictions + 1, sizeof *m->friction);
    if (!m->friction_coord || !m->friction_entropy || !m->friction)
        return fail_nomem(c);
    if (group_alloc(&m->forces, m->n, &err) ||
        group_alloc(&m->wedge_coefficients, m->wedge_count, &err))
        return fail_status(c, &err);
    for (int i = 0; i < m->n; i++)
        m->forces.ids[i] = expr_const(m->pool, 0.0);
    int fr = 0, w = 0;
    for (int k = 0; k < c->tree.count; k++) {
        const instance *in = c->tree.items[k];
        const spec_model *sm = in->sm;
        for (int j = 0; j < sm->force_count; j++) {
            const spec_force *f = &sm->forces[j];
            int i = resolve_variable(in, f->coord.name, SPEC_SYM_COORDINATE);
            expr_id value = lower_expr(&in->scope, &f->value);
            if (value == EXPR_NONE || i < 0)
                return i < 0 ? (spec_error(c->spec, DIRAC_ERR_PARSE, f->coord.loc,
                                           "'%s' is not a coordinate", f->coord.name), 0)
                             : 0;
            m->forces.ids[i] = expr_add(m->pool, m->forces.ids[i], value);
        }
        for (int j = 0; j < sm->friction_count; j++, fr++) {
            const spec_friction *f = &sm->frictions[j];
            int i = resolve_variable(in, f->coord.name, SPEC_SYM_COORDINATE);
            int s = resolve_variable(in, f->entropy.name, SPEC_SYM_ENTROPY);
            expr_id value = lower_expr(&in->scope, &f->value);
            if (value == EXPR_NONE || i < 0 || s < 0)
                return 0;
            m->friction_coord[fr] = i;
            m->friction_entropy[fr] = s;
            m->friction[fr] = value;
            m->forces.ids[i] = expr_add(m->pool, m->forces.ids[i], value);
        }
        // two-forms B = Σ c d(A) ^ d(B): F = B(v, ·), i.e. F_B += c A', F_A −= c B' (power-free)
        for (int j = 0; j < sm->twoform_count; j++) {
            const spec_twoform *tf = &sm->twoforms[j];
            for (int t = 0; t < tf->term_count; t++, w++) {
                const spec_wedge *wg = &tf->terms[t];
                expr_id coefficient = wg->coefficient.count > 0
                                          ? lower_expr(&in->scope, &wg->coefficient)
                                          : expr_const(m->pool, 1.0);
                if (coefficient == EXPR_NONE)
                    return 0;
                coefficient = expr_mul(m->pool, expr_const(m->pool, (double)wg->sign), coefficient);
                m->wedge_coefficients.ids[w] = coefficient;
                int a = m->wedges[w].a, b = m->wedges[w].b;
                expr_id va = expr_var(m->pool, m->first_v + a), vb = expr_var(m->pool, m->first_v + b);
                m->forces.ids[b] = expr_add(m->pool, m->forces.ids[b], expr_mul(m->pool, coefficient, va));
                m->forces.ids[a] = expr_sub(m->pool, m->forces.ids[a], expr_mul(m->pool, coefficient, vb));
            }
        }
    }
    if (!pool_ok(c))
        return 0;
    if (group_compile(m, &m->forces, &err) || group_compile(m, &m->wedge_coefficients, &err) ||
        sparse_jacobian(m, &m->force_jacobian, m->n, m->forces.ids, 0, 2 * m->n + m->ns, &err))
        return fail_status(c, &err);
    return 1;
}

static int compile_heat(compile_state *c)
{
    dirac_model *m = c->m;
    int heats = 0;
    for (int k = 0; k < c->tree.count; k++)
        heats += c->tree.items[k]->sm->heat_count;
    m->heat_count = heats;
    m->heat_pair = calloc(2 * (size_t)heats + 1, sizeof *m->heat_pair);
    m->heat_conductance = calloc((size_t)heats + 1, sizeof *m->heat_conductance);
    m->heat_input = calloc((size_t)m->ns + 1, sizeof *m->heat_input);
    if (!m->heat_pair || !m->heat_conductance || !m->heat_input)
        return fail_nomem(c);
    for (int j = 0; j < m->ns; j++)
        m->heat_input[j] = expr_const(m->pool, 0.0);
    int h = 0;
    for (int k = 0; k < c->tree.count; k++) {
        const instance *in = c->tree.items[k];
        const spec_model *sm = in->sm;
        for (int j = 0; j < sm->heat_count; j++, h++) {
            m->heat_pair[2 * h] = resolve_variable(in, sm->heats[j].a.name, SPEC_SYM_ENTROPY);
            m->heat_pair[2 * h + 1] = resolve_variable(in, sm->heats[j].b.name, SPEC_SYM_ENTROPY);
            if ((m->heat_conductance[h] = lower_expr(&in->scope, &sm->heats[j].value)) == EXPR_NONE)
                return 0;
        }
        for (int j = 0; j < sm->heat_input_count; j++) {
            int s = resolve_variable(in, sm->heat_inputs[j].entropy.name, SPEC_SYM_ENTROPY);
            expr_id value = lower_expr(&in->scope, &sm->heat_inputs[j].value);
            if (value == EXPR_NONE || s < 0)
                return 0;
            m->heat_input[s] = expr_add(m->pool, m->heat_input[s], value);
        }
    }
    return pool_ok(c);
}

// The thermodynamic pieces evaluated together: friction forces, conductances, heat inputs.
static int compile_thermal(compile_state *c)
{
    dirac_model *m = c->m;
    dirac_error err;
    int count = m->friction_count + m->heat_count + m->ns;
    if (group_alloc(&m->thermal, count, &err))
        return fail_status(c, &err);
    for (int k = 0; k < m->friction_count; k++)
        m->thermal.ids[k] = m->friction[k];
    for (int k = 0; k < m->heat_count; k++)
        m->thermal.ids[m->friction_count + k] = m->heat_conductance[k];
    for (int j = 0; j < m->ns; j++)
        m->thermal.ids[m->friction_count + m->heat_count + j] = m->heat_input[j];
    if (group_compile(m, &m->thermal, &err))
        return fail_status(c, &err);
    return 1;
}

static int compile_outputs(compile_state *c)
{
    dirac_model *m = c->m;
    dirac_error err;
    if (group_alloc(&m->outputs, m->output_count, &err))
        return fail_status(c, &err);
    // what outputs may name besides the model's own symbols (spec_resolve.c: derived_name):
    // p_i = ∂L/∂v_i, T_j = −∂L/∂S_j, E = Σ v_i ∂L/∂v_i − L, the multipliers
    if (m->output_count == 0)
        return 1;
    expr_id *temperature = calloc((size_t)m->n_inputs + 1, sizeof *temperature);
    if (!temperature)
        return fail_nomem(c);
    for (int j = 0; j < m->ns; j++)
        temperature[m->first_s + j] = expr_neg(m->pool, m->gradient.ids[2 * m->n + j]);
    expr_id energy = expr_neg(m->pool, m->lagrangian);
    for (int i = 0; i < m->n; i++)
        energy = expr_add(m->pool, energy, expr_mul(m->pool, expr_var(m->pool, m->first_v + i),
                                                    m->gradient.ids[m->n + i]));
    int o = 0, first_mu = m->first_mu, ok = pool_ok(c);
    for (int k = 0; ok && k < c->tree.count; k++) {
        instance *in = c->tree.items[k];
        in->scope.first_mu = first_mu;
        in->scope.momentum = m->gradient.ids + m->n;
        in->scope.temperature = temperature;
        in->scope.energy = energy;
        for (int j = 0; ok && j < in->sm->output_count; j++, o++)
            ok = (m->outputs.ids[o] = lower_expr(&in->scope, &in->sm->outputs[j].value)) != EXPR_NONE;
        in->scope.momentum = in->scope.temperature = NULL;
        first_mu += in->sm->constraint_count;
    }
    free(temperature);
    if (!ok)
        return 0;
    if (group_compile(m, &m->outputs, &err) ||
        sparse_jacobian(m, &m->output_jacobian, m->output_count, m->outputs.ids, 0, m->n_inputs,
                        &err))
        return fail_status(c, &err);
    return 1;
}

// Initial values: components' own first, then the models that include them (which override).
static int compile_initial(compile_state *c)
{
    dirac_model *m = c->m;
    m->q0 = calloc((size_t)m->n + 1, sizeof *m->q0);
    m->v0 = calloc((size_t)m->n + 1, sizeof *m->v0);
    m->s0 = calloc((size_t)m->ns + 1, sizeof *m->s0);
    m->q0_fixed = calloc((size_t)m->n + 1, 1);
    m->v0_fixed = calloc((size_t)m->n + 1, 1);
    if (!m->q0 || !m->v0 || !m->s0 || !m->q0_fixed || !m->v0_fixed)
        return fail_nomem(c);
    for (int k = c->tree.count - 1; k >= 0; k--) {
        const instance *in = c->tree.items[k];
        for (int j = 0; j < in->sm->initial_count; j++) {
            const spec_initial *init = &in->sm->initials[j];
            char what[160];
            snprintf(what, sizeof what, "the initial value of %s%s%s", in->prefix, init->var.name,
                     init->velocity ? "'" : "");
            double value;
            if (!lower_constant(&in->scope, &init->value, init->var.loc, what, &value))
                return 0;
            int s = resolve_variable(in, init->var.name, SPEC_SYM_ENTROPY);
            int q = resolve_variable(in, init->var.name, SPEC_SYM_COORDINATE);
            unsigned char fixed = init->start == SPEC_START_FIXED;
            if (s >= 0 && fixed) {
                spec_error(c->spec, DIRAC_ERR_PARSE, init->var.loc, "'fixed' applies to "
                           "coordinates and velocities (the projection of the initial state "
                           "does not move entropy variables)");
                return 0;
            }
            if (s >= 0)
                m->s0[s] = value;
            else if (q >= 0 && init->velocity)
                m->v0[q] = value, m->v0_fixed[q] = fixed;
            else if (q >= 0)
                m->q0[q] = value, m->q0_fixed[q] = fixed;
        }
    }
    return 1;
}

// Largest `every` and `max_iter` of a simulate line (they are C ints).
#define SETTING_COUNT_MAX 1000000000

static int compile_settings(compile_state *c)
{
    dirac_model *m = c->m;
    const instance *root = c->tree.items[0];
    for (int k = 0; k < root->sm->setting_count; k++) {
        const spec_setting *s = &root->sm->settings[k];
        if (s->word) {
            snprintf(m->method, sizeof m->method, "%s", s->word);
            m->has_method = 1;
            continue;
        }
        char what[96];
        snprintf(what, sizeof what, "simulate setting '%s'", s->key);
        double value;
        if (!lower_constant(&root->scope, &s->value, s->loc, what, &value))
            return 0;
        int counted = !strcmp(s->key, "every") || !strcmp(s->key, "max_iter");
        if (counted && !(value >= 1.0 && value <= SETTING_COUNT_MAX && value == floor(value))) {
            spec_error(c->spec, DIRAC_ERR_PARSE, s->loc, "simulate setting '%s' must be a whole "
                       "number from 1 to %d (got %g)", s->key, SETTING_COUNT_MAX, value);
            return 0;
        }
        if (!counted && !(value > 0.0)) {
            spec_error(c->spec, DIRAC_ERR_PARSE, s->loc, "simulate setting '%s' must be positive "
                       "(got %g)", s->key, value);
            return 0;
        }
        if (!strcmp(s->key, "dt"))
            m->dt = value, m->has_dt = 1;
        else if (!strcmp(s->key, "t_end"))
            m->t_end = value, m->has_t_end = 1;
        else if (!strcmp(s->key, "every"))
            m->every = (int)value, m->has_every = 1;
        else if (!strcmp(s->key, "tol"))
            m->tol = value, m->has_tol = 1;
        else if (!strcmp(s->key, "max_iter"))
            m->max_iter = (int)value, m->has_max_iter = 1;
    }
    // a run starts at t = 0: a step longer than the interval would take no step at all
    if (m->has_dt && m->has_t_end && m->dt > m->t_end) {
        const spec_setting *s = NULL;
        for (int k = 0; k < root->sm->setting_count; k++)
            if (root->sm->settings[k].key && !strcmp(root->sm->settings[k].key, "dt"))
                s = &root->sm->settings[k];
        spec_error(c->spec, DIRAC_ERR_PARSE, s ? s->loc : root->sm->loc, "simulate setting 'dt' "
                   "(%g) is longer than the interval t_end = %g", m->dt, m->t_end);
        return 0;
    }
    return 1;
}

// The interactions: interaction constraints (force μ_a ω^a on the coordinates of ω_a's
// pattern) and interaction two-forms (on the coordinates of their wedges).
static int compile_interactions(compile_state *c)
{
    dirac_model *m = c->m;
    int count = 0;
    for (int a = 0; a < m->m; a++)
        count += m->constraints[a].interaction;
    for (int f = 0; f < m->twoform_count; f++)
        count += m->twoform_interaction[f];
    m->interaction_count = count;
    m->interaction_kind = calloc((size_t)count + 1, sizeof *m->interaction_kind);
    m->interaction_index = calloc((size_t)count + 1, sizeof *m->interaction_index);
    m->interaction_coords = calloc((size_t)count + 1, sizeof *m->interaction_coords);
    m->interaction_coord_count = calloc((size_t)count + 1, sizeof *m->interaction_coord_count);
    if (!m->interaction_kind || !m->interaction_index || !m->interaction_coords ||
        !m->interaction_coord_count)
        return fail_nomem(c);
    int k = 0;
    const model_sparse *forms = &m->constraint_forms;
    for (int a = 0; a < m->m; a++) {
        if (!m->constraints[a].interaction)
            continue;
        int len = forms->row_start[a + 1] - forms->row_start[a];
        m->interaction_kind[k] = 0;
        m->interaction_index[k] = a;
        m->interaction_coords[k] = malloc((size_t)(len + 1) * sizeof(int));
        if (!m->interaction_coords[k])
            return fail_nomem(c);
        memcpy(m->interaction_coords[k], forms->col + forms->row_start[a], (size_t)len * sizeof(int));
        m->interaction_coord_count[k++] = len;
    }
    for (int f = 0; f < m->twoform_count; f++) {
        if (!m->twoform_interaction[f])
            continue;
        int *coords = malloc((2 * (size_t)m->wedge_count + 1) * sizeof *coords), len = 0;
        if (!coords)
            return fail_nomem(c);
        for (int w = 0; w < m->wedge_count; w++) {
            if (m->wedges[w].twoform != f)
                continue;
            int ends[2] = { m->wedges[w].a, m->wedges[w].b };
            for (int e = 0; e < 2; e++) {
                int seen = 0;
                for (int j = 0; j < len; j++)
                    seen |= coords[j] == ends[e];
                if (!seen)
                    coords[len++] = ends[e];
            }
        }
        m->interaction_kind[k] = 1;
        m->interaction_index[k] = f;
        m->interaction_coords[k] = coords;
        m->interaction_coord_count[k++] = len;
    }
    return 1;
}

// Dense checks at the initial state are skipped for models larger than this (entries of the
// constraint matrix): Newton's method still reports a singular system, naming the equation.
#define DENSE_CHECK_LIMIT 250000.0

// Dependent constraints make every implicit step singular: at the initial state the one-forms
// must be independent. QR with column pivoting of [ω_1 … ω_m] gives the rank and, for a
// dependent column, its combination of the independent ones, which the message names.
static int check_constraint_rank(compile_state *c)
{
    dirac_model *m = c->m;
    int n = m->n, mc = m->m;
    if (mc == 0 || (double)n * (double)mc > DENSE_CHECK_LIMIT)
        return 1;
    double *x = calloc((size_t)m->n_inputs + 1, sizeof *x);
    double *work = calloc((size_t)m->work_size + 1, sizeof *work);
    double *values = calloc((size_t)m->constraint_forms.nnz + 1, sizeof *values);
    double *a = calloc((size_t)mc * (size_t)n + 1, sizeof *a);   // n x mc, column a = ω_a
    double *tau = calloc((size_t)mc + 1, sizeof *tau);
    lapack_int *pivot = calloc((size_t)mc + 1, sizeof *pivot);
    int ok = x && work && values && a && tau && pivot;
    if (!ok)
        fail_nomem(c);
    else
        model_set_default_inputs(m, x);
    if (ok) {
        memcpy(x, m->q0, (size_t)n * sizeof *x);
        memcpy(x + m->first_v, m->v0, (size_t)n * sizeof *x);
        memcpy(x + m->first_s, m->s0, (size_t)m->ns * sizeof *x);
        model_group_eval(&m->constraint_forms.values, x, work, values);
        const model_sparse *f = &m->constraint_forms;
        for (int k = 0; k < mc; k++)
            for (int j = f->row_start[k]; j < f->row_start[k + 1]; j++)
                a[(size_t)k * (size_t)n + (size_t)f->col[j]] = values[j];
        if (LAPACKE_dgeqp3(LAPACK_COL_MAJOR, n, mc, a, n, pivot, tau) != 0)
            ok = 0;   // LAPACK failure: leave the check to Newton's method
    }
    int limit = n < mc ? n : mc, rank = 0;
    double r11 = ok && limit > 0 ? fabs(a[0]) : 0.0;
    while (ok && rank < limit && fabs(a[(size_t)rank * (size_t)n + (size_t)rank]) > 1e-10 * r11)
        rank++;
    if (ok && rank < mc) {
        // the dependent column d = pivot[rank] - 1: R11 y = R12[:, rank] (back substitution)
        int d = (int)pivot[rank] - 1;
        double *y = calloc((size_t)rank + 1, sizeof *y);
        char names[512] = "";
        if (y) {
            for (int i = rank - 1; i >= 0; i--) {
                double sum = i < n ? a[(size_t)rank * (size_t)n + (size_t)i] : 0.0;
                for (int k = i + 1; k < rank; k++)
                    sum -= a[(size_t)k * (size_t)n + (size_t)i] * y[k];
                y[i] = sum / a[(size_t)i * (size_t)n + (size_t)i];
            }
            double largest = linalg_max_abs(y, (size_t)rank);
            for (int i = 0; i < rank; i++)
                if (fabs(y[i]) > 1e-8 * largest && strlen(names) < sizeof names - 64)
                    snprintf(names + strlen(names), sizeof names - strlen(names), "%s'%s'",
                             names[0] ? ", " : "", m->constraints[pivot[i] - 1].name);
            free(y);
        }
        spec_loc loc = c->constraint_spec[d]->loc;
        if (names[0])
            spec_error(c->spec, DIRAC_ERR_PARSE, loc,
                       "constraint '%s' is linearly dependent on %s at the initial state "
                       "(rank %d of %d): remove it or one of them",
                       m->constraints[d].name, names, rank, mc);
        else
            spec_error(c->spec, DIRAC_ERR_PARSE, loc,
                       "constraint '%s' has a zero one-form at the initial state (it does not "
                       "constrain anything there)", m->constraints[d].name);
        ok = 0;
    } else if (!ok && x && work && values && a && tau && pivot) {
        ok = 1;
    }
    free(x), free(work), free(values), free(a), free(tau), free(pivot);
    return ok;
}

// Every instance's parameters with their values (after overrides and component arguments),
// named as -p names them: `l`, `rotor.J`, `k[3]`.
static int compile_parameters(compile_state *c)
{
    dirac_model *m = c->m;
    int count = 0;
    for (int k = 0; k < c->tree.count; k++)
        count += c->tree.items[k]->sm->param_count;
    m->param_names = calloc((size_t)count + 1, sizeof *m->param_names);
    m->param_values = calloc((size_t)count + 1, sizeof *m->param_values);
    m->input_names = calloc((size_t)m->nu + 1, sizeof *m->input_names);
    m->input_defaults = calloc((size_t)m->nu + 1, sizeof *m->input_defaults);
    if (!m->param_names || !m->param_values || !m->input_names || !m->input_defaults)
        return fail_nomem(c);
    for (int k = 0; k < c->tree.count; k++) {
        const instance *in = c->tree.items[k];
        for (int j = 0; j < in->sm->param_count; j++) {
            int u = in->input_index[j];
            if (u >= 0) {   // an input: listed apart, its value is the default
                m->input_names[u] = text_concat(in->prefix, in->sm->params[j].name, NULL);
                if (!m->input_names[u])
                    return fail_nomem(c);
                m->input_defaults[u] = in->param_values[j];
                continue;
            }
            m->param_names[m->param_count] = text_concat(in->prefix, in->sm->params[j].name, NULL);
            if (!m->param_names[m->param_count])
                return fail_nomem(c);
            m->param_values[m->param_count++] = in->param_values[j];
        }
    }
    return 1;
}

static int compile_model(compile_state *c, const spec_model *root)
{
    dirac_model *m = c->m;
    if (!instance_tree_build(&c->tree, c->spec, root))
        return 0;
    m->n = c->tree.n;
    m->ns = c->tree.ns;
    m->first_v = m->n;
    m->first_s = 2 * m->n;
    m->index_t = 2 * m->n + m->ns;
    m->first_mu = m->index_t + 1;
    if (!compile_names(c))
        return 0;
    m->first_u = m->first_mu + m->m;
    m->nu = c->tree.nu;
    m->n_inputs = m->first_u + m->nu;
    return instance_tree_evaluate(&c->tree, c->spec, m->pool, m->first_v, m->first_s,
                                  m->index_t, m->first_u) &&
           compile_parameters(c) && compile_lagrangian(c) && compile_constraints(c) && compile_forces(c) &&
           compile_heat(c) && compile_thermal(c) && compile_outputs(c) && compile_initial(c) &&
           compile_settings(c) &&
           compile_interactions(c) && check_constraint_rank(c);
}

dirac_status dirac_model_compile(dirac_spec *ds, dirac_model **out)
{
    if (!out)
        return DIRAC_ERR_ARGUMENT;
    *out = NULL;
    if (!ds)
        return DIRAC_ERR_ARGUMENT;
    spec *s = spec_of(ds);
    // indexed families are written out now that every -p override is known
    if (spec_status(s) == DIRAC_OK && spec_expand(s) != DIRAC_OK)
        return spec_status(s) != DIRAC_OK ? spec_status(s) : DIRAC_ERR_PARSE;
    const spec_model *root = spec_root(s);
    if (spec_status(s) != DIRAC_OK || !root)
        return spec_status(s) != DIRAC_OK ? spec_status(s) : DIRAC_ERR_PARSE;
    dirac_model *m = calloc(1, sizeof *m);
    if (!m) {
        spec_out_of_memory(s);
        return DIRAC_ERR_NOMEM;
    }
    dirac_error err;
    if (expr_pool_create(&m->pool, &err) != DIRAC_OK) {
        free(m);
        spec_out_of_memory(s);
        return DIRAC_ERR_NOMEM;
    }
    compile_state c = { .m = m, .spec = s };
    int ok = compile_model(&c, root);
    instance_tree_free(&c.tree);
    free(c.constraint_spec);
    free(c.constraint_owner);
    if (ok && model_find_breakpoints(m) != DIRAC_OK) {
        spec_out_of_memory(s);
        ok = 0;
    }
    if (!ok) {
        dirac_model_destroy(m);
        return spec_status(s) != DIRAC_OK ? spec_status(s) : DIRAC_ERR_PARSE;
    }
    model_codegen_attach(m, ds->codegen != DIRAC_CODEGEN_OFF);
    *out = m;
    return DIRAC_OK;
}

void dirac_model_destroy(dirac_model *m)
{
    if (!m)
        return;
    for (int i = 0; m->param_names && i < m->param_count; i++)
        free(m->param_names[i]);
    free(m->param_names);
    free(m->param_values);
    for (int k = 0; m->input_names && k < m->nu; k++)
        free(m->input_names[k]);
    free(m->input_names);
    free(m->input_defaults);
    for (int i = 0; m->coord_names && i < m->n; i++)
        free(m->coord_names[i]);
    for (int i = 0; m->entropy_names && i < m->ns; i++)
        free(m->entropy_names[i]);
    for (int a = 0; m->constraints && a < m->m; a++)
        free(m->constraints[a].name);
    for (int k = 0; m->output_names && k < m->output_count; k++)
        free(m->output_names[k]);
    for (int k = 0; m->twoform_names && k < m->twoform_count; k++)
        free(m->twoform_names[k]);
    for (int k = 0; m->subsystems && k < m->subsystem_count; k++)
        free(m->subsystems[k].name);
    for (int k = 0; m->interaction_coords && k < m->interaction_count; k++)
        free(m->interaction_coords[k]);
    free(m->interaction_coords);
    free(m->interaction_coord_count);
    free(m->interaction_kind);
    free(m->interaction_index);
    free(m->twoform_names);
    free(m->twoform_subsystem);
    free(m->twoform_interaction);
    free(m->wedges);
    free(m->subsystems);
    model_codegen_release(m);
    group_free(&m->wedge_coefficients);
    free(m->coord_names);
    free(m->entropy_names);
    free(m->constraints);
    free(m->output_names);
    free(m->name);
    free(m->file);
    free(m->friction_coord);
    free(m->friction_entropy);
    free(m->friction);
    free(m->heat_input);
    free(m->heat_pair);
    free(m->heat_conductance);
    group_free(&m->lagrangian_value);
    group_free(&m->gradient);
    sparse_free(&m->hessian);
    group_free(&m->constraint_values);
    sparse_free(&m->constraint_forms);
    group_free(&m->constraint_rates);
    sparse_free(&m->constraint_jacobian);
    sparse_free(&m->form_curvature);
    sparse_free(&m->output_jacobian);
    group_free(&m->forces);
    sparse_free(&m->force_jacobian);
    group_free(&m->outputs);
    group_free(&m->thermal);
    free(m->q0);
    free(m->breakpoints);
    free(m->v0);
    free(m->q0_fixed);
    free(m->v0_fixed);
    free(m->s0);
    expr_pool_destroy(m->pool);
    free(m);
}
