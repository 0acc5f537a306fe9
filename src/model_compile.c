// Compilation of a parsed model into a dirac_model: parameters folded, lets shared, every
// derivative the integrators need taken symbolically on the DAG, and each group of functions
// compiled to one evaluation tape with its sparsity pattern (src/model.h lists the groups).
#include "model.h"

#include "error.h"
#include "model_lower.h"
#include "parse.h"
#include "spec_api.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

// ---- small helpers ---------------------------------------------------------------------------

static char *copy_string(const char *s)
{
    size_t len = strlen(s) + 1;
    char *copy = malloc(len);
    if (copy)
        memcpy(copy, s, len);
    return copy;
}

// Compiles the group's expressions into a tape and grows the model's work size.
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

void model_group_eval(const model_group *g, const double *x, double *work, double *values)
{
    if (g->tape)
        expr_tape_eval(g->tape, x, work, values);
}

// ---- compilation of the root model ---------------------------------------------------------

typedef struct compile_state {
    dirac_model *m;
    spec *spec;
    const spec_model *sm;
    lower_scope scope;
    double *param_values;
    expr_id *let_ids;
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

static int compile_names(compile_state *c)
{
    dirac_model *m = c->m;
    const spec_model *sm = c->sm;
    m->name = copy_string(sm->name ? sm->name : "");
    m->file = copy_string(sm->file ? sm->file : "");
    m->coord_names = calloc((size_t)m->n + 1, sizeof *m->coord_names);
    m->entropy_names = calloc((size_t)m->ns + 1, sizeof *m->entropy_names);
    m->constraints = calloc((size_t)m->m + 1, sizeof *m->constraints);
    m->output_names = calloc((size_t)sm->output_count + 1, sizeof *m->output_names);
    if (!m->name || !m->file || !m->coord_names || !m->entropy_names || !m->constraints ||
        !m->output_names)
        return fail_nomem(c);
    for (int i = 0; i < m->n; i++)
        if (!(m->coord_names[i] = copy_string(sm->coords[i].name)))
            return fail_nomem(c);
    for (int i = 0; i < m->ns; i++)
        if (!(m->entropy_names[i] = copy_string(sm->entropies[i].name)))
            return fail_nomem(c);
    for (int a = 0; a < m->m; a++) {
        const spec_constraint *sc = &sm->constraints[a];
        if (!(m->constraints[a].name = copy_string(sc->name)))
            return fail_nomem(c);
        m->constraints[a].kind = sc->kind == SPEC_CONSTRAINT_HOLONOMIC
                                     ? DIRAC_CONSTRAINT_HOLONOMIC
                                     : DIRAC_CONSTRAINT_NONHOLONOMIC;
        m->constraints[a].line = sc->loc.line;
        m->constraints[a].col = sc->loc.col;
    }
    m->output_count = sm->output_count;
    for (int k = 0; k < sm->output_count; k++)
        if (!(m->output_names[k] = copy_string(sm->outputs[k].name)))
            return fail_nomem(c);
    return 1;
}

// Parameters in order (each may use earlier ones), overrides applied; then the lets.
static int compile_parameters_and_lets(compile_state *c)
{
    const spec_model *sm = c->sm;
    c->param_values = calloc((size_t)sm->param_count + 1, sizeof *c->param_values);
    c->let_ids = calloc((size_t)sm->let_count + 1, sizeof *c->let_ids);
    if (!c->param_values || !c->let_ids)
        return fail_nomem(c);
    c->scope.param_values = c->param_values;
    c->scope.let_ids = c->let_ids;
    for (int i = 0; i < sm->param_count; i++) {
        const spec_param *p = &sm->params[i];
        if (p->overridden) {
            c->param_values[i] = p->override_value;
            continue;
        }
        char what[128];
        snprintf(what, sizeof what, "parameter '%s'", p->name);
        if (!lower_constant(&c->scope, &p->value, p->loc, what, &c->param_values[i]))
            return 0;
    }
    for (int i = 0; i < sm->let_count; i++)
        if ((c->let_ids[i] = lower_expr(&c->scope, &sm->lets[i].value)) == EXPR_NONE)
            return 0;
    return 1;
}

static int compile_lagrangian(compile_state *c)
{
    dirac_model *m = c->m;
    expr_id sum = expr_const(m->pool, 0.0);
    for (int i = 0; i < c->sm->lagrangian_count; i++) {
        expr_id term = lower_expr(&c->scope, &c->sm->lagrangian[i].value);
        if (term == EXPR_NONE)
            return 0;
        sum = expr_add(m->pool, sum, term);
    }
    m->lagrangian = sum;
    dirac_error err;
    if (sum == EXPR_NONE)
        return expr_pool_error(m->pool, &err), fail_status(c, &err);
    // L must not depend on the multipliers' slots (it cannot: the language has no μ)
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

// Does expression e depend on input index `var`?
static int depends_on(dirac_model *m, expr_id e, int32_t var, int *answer, dirac_error *err)
{
    int32_t *vars = NULL;
    int count = 0;
    *answer = 0;
    if (expr_variables(m->pool, 1, &e, &vars, &count, err) != DIRAC_OK)
        return 0;
    for (int k = 0; k < count; k++)
        if (vars[k] == var)
            *answer = 1;
    free(vars);
    return 1;
}

// c_a; ω_a (∂c/∂v for nonholonomic, ∂φ/∂q for holonomic); b_a; the velocity-level g_a and its
// Jacobian; Σ μ_a ω_a and its q-Jacobian.
static int compile_constraints(compile_state *c)
{
    dirac_model *m = c->m;
    const spec_model *sm = c->sm;
    dirac_error err;
    int n = m->n;
    expr_id *velocity_level = calloc((size_t)m->m + 1, sizeof *velocity_level);
    expr_id *multiplied = calloc((size_t)n + 1, sizeof *multiplied);
    expr_sparse *rows = calloc((size_t)m->m + 1, sizeof *rows);
    int32_t *vars = malloc(((size_t)n + 1) * sizeof *vars);
    int ok = velocity_level && multiplied && rows && vars;
    if (!ok)
        fail_nomem(c);
    if (ok && (group_alloc(&m->constraint_values, m->m, &err) ||
               group_alloc(&m->constraint_rates, m->m, &err)))
        ok = fail_status(c, &err);
    for (int i = 0; ok && i < n; i++)
        multiplied[i] = expr_const(m->pool, 0.0);
    for (int a = 0; ok && a < m->m; a++) {
        const spec_constraint *sc = &sm->constraints[a];
        expr_id lhs = lower_expr(&c->scope, &sc->lhs), value = lhs;
        if (lhs == EXPR_NONE) {
            ok = 0;
            break;
        }
        if (sc->has_rhs) {
            expr_id rhs = lower_expr(&c->scope, &sc->rhs);
            if (rhs == EXPR_NONE) {
                ok = 0;
                break;
            }
            value = expr_sub(m->pool, lhs, rhs);
        }
        m->constraint_values.ids[a] = value;
        int holonomic = m->constraints[a].kind == DIRAC_CONSTRAINT_HOLONOMIC;
        int first = holonomic ? 0 : m->first_v;
        for (int i = 0; i < n; i++)
            vars[i] = first + i;
        if (expr_jacobian(m->pool, 1, &value, n, vars, &rows[a], &err) ||
            !depends_on(m, value, m->index_t, &m->constraints[a].time_dependent, &err)) {
            ok = fail_status(c, &err);
            break;
        }
        // b_a: ∂φ/∂t, or the constraint at v = 0
        expr_id rate;
        if (holonomic) {
            rate = expr_diff(m->pool, value, m->index_t);
        } else {
            expr_id *zeros = malloc((size_t)(n > 0 ? n : 1) * sizeof *zeros);
            if (!zeros) {
                ok = fail_nomem(c);
                break;
            }
            for (int i = 0; i < n; i++)
                zeros[i] = expr_const(m->pool, 0.0);
            if (expr_substitute(m->pool, value, n, vars, zeros, &rate, &err))
                rate = EXPR_NONE;
            free(zeros);
        }
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
        if (expr_pool_status(m->pool) != DIRAC_OK) {
            expr_pool_error(m->pool, &err);
            ok = fail_status(c, &err);
        }
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
    free(velocity_level);
    free(multiplied);
    return ok;
}

// External forces plus friction forces per coordinate, and their Jacobian in (q, v, S).
static int compile_forces(compile_state *c)
{
    dirac_model *m = c->m;
    const spec_model *sm = c->sm;
    dirac_error err;
    if (group_alloc(&m->forces, m->n, &err))
        return fail_status(c, &err);
    for (int i = 0; i < m->n; i++)
        m->forces.ids[i] = expr_const(m->pool, 0.0);
    for (int k = 0; k < sm->force_count; k++) {
        const spec_force *f = &sm->forces[k];
        expr_id value = lower_expr(&c->scope, &f->value);
        if (value == EXPR_NONE)
            return 0;
        int i = f->coord.ref.index;
        m->forces.ids[i] = expr_add(m->pool, m->forces.ids[i], value);
    }
    m->friction_count = sm->friction_count;
    m->friction_coord = calloc((size_t)sm->friction_count + 1, sizeof *m->friction_coord);
    m->friction_entropy = calloc((size_t)sm->friction_count + 1, sizeof *m->friction_entropy);
    m->friction = calloc((size_t)sm->friction_count + 1, sizeof *m->friction);
    if (!m->friction_coord || !m->friction_entropy || !m->friction)
        return fail_nomem(c);
    for (int k = 0; k < sm->friction_count; k++) {
        const spec_friction *f = &sm->frictions[k];
        expr_id value = lower_expr(&c->scope, &f->value);
        if (value == EXPR_NONE)
            return 0;
        m->friction_coord[k] = f->coord.ref.index;
        m->friction_entropy[k] = f->entropy.ref.index;
        m->friction[k] = value;
        int i = f->coord.ref.index;
        m->forces.ids[i] = expr_add(m->pool, m->forces.ids[i], value);
    }
    // two-forms B = Σ c d(A) ^ d(B): F = B(v, ·), i.e. F_B += c A', F_A −= c B' (power-free)
    for (int k = 0; k < sm->twoform_count; k++) {
        const spec_twoform *tf = &sm->twoforms[k];
        for (int j = 0; j < tf->term_count; j++) {
            const spec_wedge *w = &tf->terms[j];
            if (w->a.ref.kind != SPEC_SYM_COORDINATE || w->b.ref.kind != SPEC_SYM_COORDINATE) {
                spec_error(c->spec, DIRAC_ERR_PARSE, w->a.loc,
                           "two-form terms must wedge coordinates of this model");
                return 0;
            }
            expr_id coefficient = w->coefficient.count > 0 ? lower_expr(&c->scope, &w->coefficient)
                                                           : expr_const(m->pool, 1.0);
            if (coefficient == EXPR_NONE)
                return 0;
            coefficient = expr_mul(m->pool, expr_const(m->pool, (double)w->sign), coefficient);
            int a = w->a.ref.index, b = w->b.ref.index;
            expr_id va = expr_var(m->pool, m->first_v + a), vb = expr_var(m->pool, m->first_v + b);
            m->forces.ids[b] = expr_add(m->pool, m->forces.ids[b], expr_mul(m->pool, coefficient, va));
            m->forces.ids[a] = expr_sub(m->pool, m->forces.ids[a], expr_mul(m->pool, coefficient, vb));
        }
    }
    if (expr_pool_status(m->pool) != DIRAC_OK)
        return expr_pool_error(m->pool, &err), fail_status(c, &err);
    if (group_compile(m, &m->forces, &err) ||
        sparse_jacobian(m, &m->force_jacobian, m->n, m->forces.ids, 0, 2 * m->n + m->ns, &err))
        return fail_status(c, &err);
    return 1;
}

static int compile_heat(compile_state *c)
{
    dirac_model *m = c->m;
    const spec_model *sm = c->sm;
    m->heat_count = sm->heat_count;
    m->heat_pair = calloc(2 * (size_t)sm->heat_count + 1, sizeof *m->heat_pair);
    m->heat_conductance = calloc((size_t)sm->heat_count + 1, sizeof *m->heat_conductance);
    m->heat_input = calloc((size_t)m->ns + 1, sizeof *m->heat_input);
    if (!m->heat_pair || !m->heat_conductance || !m->heat_input)
        return fail_nomem(c);
    for (int k = 0; k < sm->heat_count; k++) {
        m->heat_pair[2 * k] = sm->heats[k].a.ref.index;
        m->heat_pair[2 * k + 1] = sm->heats[k].b.ref.index;
        if ((m->heat_conductance[k] = lower_expr(&c->scope, &sm->heats[k].value)) == EXPR_NONE)
            return 0;
    }
    for (int j = 0; j < m->ns; j++)
        m->heat_input[j] = expr_const(m->pool, 0.0);
    for (int k = 0; k < sm->heat_input_count; k++) {
        expr_id value = lower_expr(&c->scope, &sm->heat_inputs[k].value);
        if (value == EXPR_NONE)
            return 0;
        int j = sm->heat_inputs[k].entropy.ref.index;
        m->heat_input[j] = expr_add(m->pool, m->heat_input[j], value);
    }
    return 1;
}

static int compile_outputs(compile_state *c)
{
    dirac_model *m = c->m;
    dirac_error err;
    if (group_alloc(&m->outputs, c->sm->output_count, &err))
        return fail_status(c, &err);
    for (int k = 0; k < c->sm->output_count; k++)
        if ((m->outputs.ids[k] = lower_expr(&c->scope, &c->sm->outputs[k].value)) == EXPR_NONE)
            return 0;
    if (group_compile(m, &m->outputs, &err))
        return fail_status(c, &err);
    return 1;
}

static int compile_initial_and_settings(compile_state *c)
{
    dirac_model *m = c->m;
    const spec_model *sm = c->sm;
    m->q0 = calloc((size_t)m->n + 1, sizeof *m->q0);
    m->v0 = calloc((size_t)m->n + 1, sizeof *m->v0);
    m->s0 = calloc((size_t)m->ns + 1, sizeof *m->s0);
    if (!m->q0 || !m->v0 || !m->s0)
        return fail_nomem(c);
    for (int k = 0; k < sm->initial_count; k++) {
        const spec_initial *in = &sm->initials[k];
        char what[160];
        snprintf(what, sizeof what, "the initial value of %s%s", in->var.name,
                 in->velocity ? "'" : "");
        double value;
        if (!lower_constant(&c->scope, &in->value, in->var.loc, what, &value))
            return 0;
        if (in->var.ref.kind == SPEC_SYM_ENTROPY)
            m->s0[in->var.ref.index] = value;
        else if (in->velocity)
            m->v0[in->var.ref.index] = value;
        else
            m->q0[in->var.ref.index] = value;
    }
    for (int k = 0; k < sm->setting_count; k++) {
        const spec_setting *s = &sm->settings[k];
        if (s->word) {
            snprintf(m->method, sizeof m->method, "%s", s->word);
            m->has_method = 1;
            continue;
        }
        char what[96];
        snprintf(what, sizeof what, "simulate setting '%s'", s->key);
        double value;
        if (!lower_constant(&c->scope, &s->value, s->loc, what, &value))
            return 0;
        if (!strcmp(s->key, "dt")) {
            m->dt = value;
            m->has_dt = 1;
        } else if (!strcmp(s->key, "t_end")) {
            m->t_end = value;
            m->has_t_end = 1;
        } else if (!strcmp(s->key, "every")) {
            m->every = (int)value;
            m->has_every = 1;
        }
    }
    return 1;
}

static int compile_model(compile_state *c)
{
    dirac_model *m = c->m;
    const spec_model *sm = c->sm;
    if (sm->component_count > 0) {
        spec_error(c->spec, DIRAC_ERR_PARSE, sm->components[0].loc,
                   "models with components cannot be compiled yet: interconnection of "
                   "components is not implemented in this version");
        return 0;
    }
    m->n = sm->coord_count;
    m->ns = sm->entropy_count;
    m->m = sm->constraint_count;
    m->first_v = m->n;
    m->first_s = 2 * m->n;
    m->index_t = 2 * m->n + m->ns;
    m->first_mu = m->index_t + 1;
    m->n_inputs = m->first_mu + m->m;
    c->scope.spec = c->spec;
    c->scope.pool = m->pool;
    c->scope.first_q = 0;
    c->scope.first_v = m->first_v;
    c->scope.first_s = m->first_s;
    c->scope.index_t = m->index_t;
    return compile_names(c) && compile_parameters_and_lets(c) && compile_lagrangian(c) &&
           compile_constraints(c) && compile_forces(c) && compile_heat(c) &&
           compile_outputs(c) && compile_initial_and_settings(c);
}

dirac_status dirac_model_compile(dirac_spec *ds, dirac_model **out)
{
    *out = NULL;
    if (!ds)
        return DIRAC_ERR_ARGUMENT;
    spec *s = spec_of(ds);
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
    compile_state c = { .m = m, .spec = s, .sm = root };
    int ok = compile_model(&c);
    free(c.param_values);
    free(c.let_ids);
    if (!ok) {
        dirac_model_destroy(m);
        return spec_status(s) != DIRAC_OK ? spec_status(s) : DIRAC_ERR_PARSE;
    }
    *out = m;
    return DIRAC_OK;
}

void dirac_model_destroy(dirac_model *m)
{
    if (!m)
        return;
    for (int i = 0; m->coord_names && i < m->n; i++)
        free(m->coord_names[i]);
    for (int i = 0; m->entropy_names && i < m->ns; i++)
        free(m->entropy_names[i]);
    for (int a = 0; m->constraints && a < m->m; a++)
        free(m->constraints[a].name);
    for (int k = 0; m->output_names && k < m->output_count; k++)
        free(m->output_names[k]);
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
    group_free(&m->forces);
    sparse_free(&m->force_jacobian);
    group_free(&m->outputs);
    free(m->q0);
    free(m->v0);
    free(m->s0);
    expr_pool_destroy(m->pool);
    free(m);
}
