// Compilation of a parsed model into a dirac_model: the instance tree flattened into one
// system, the model's arrays laid out in one block, and the stages run in order (the
// declarations here, the equations in model_equations.c, the constraints' independence check
// in model_rank_check.c; src/model_compile.h).
#include "model_compile.h"

#include "error.h"
#include "spec_api.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

// ---- failures ---------------------------------------------------------------------------------

int compile_fail_nomem(compile_state *c)
{
    spec_out_of_memory(c->spec);
    return 0;
}

int compile_fail_status(compile_state *c, const dirac_error *err)
{
    if (err->status == DIRAC_ERR_NOMEM)
        return compile_fail_nomem(c);
    spec_loc none = { NULL, 0, 0 };
    spec_error(c->spec, err->status, none, "%s", err->message);
    return 0;
}

int compile_pool_ok(compile_state *c)
{
    dirac_error err;
    if (expr_pool_status(c->m->pool) == DIRAC_OK)
        return 1;
    expr_pool_error(c->m->pool, &err);
    return compile_fail_status(c, &err);
}

// ---- groups and sparse matrices -----------------------------------------------------------------

dirac_status model_group_compile(dirac_model *m, model_group *g, dirac_error *err)
{
    if (g->count == 0)
        return DIRAC_OK;
    dirac_status status = expr_tape_compile(m->pool, g->count, g->ids, &g->tape, err);
    if (status == DIRAC_OK && expr_tape_work_size(g->tape) > m->work_size)
        m->work_size = expr_tape_work_size(g->tape);
    return status;
}

dirac_status model_sparse_from_jacobian(dirac_model *m, model_sparse *out, expr_sparse *jac,
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
    if (!out->values.ids && !(out->values.ids = mem_calloc(&m->mem, 1, sizeof *out->values.ids)))
        return error_set(err, DIRAC_ERR_NOMEM, "out of memory");
    return model_group_compile(m, &out->values, err);
}

dirac_status model_sparse_jacobian(dirac_model *m, model_sparse *out, int count,
                                   const expr_id *ids, int first, int cols, dirac_error *err)
{
    int32_t *vars = mem_calloc(&m->mem, (size_t)cols, sizeof *vars);
    if (!vars)
        return error_set(err, DIRAC_ERR_NOMEM, "out of memory");
    for (int c = 0; c < cols; c++)
        vars[c] = first + c;
    expr_sparse jac = { 0 };
    dirac_status status = expr_jacobian(m->pool, count, ids, cols, vars, &jac, err);
    if (status == DIRAC_OK)
        status = model_sparse_from_jacobian(m, out, &jac, err);
    expr_sparse_free(&jac);
    mem_free(&m->mem, vars);
    return status;
}

static void sparse_free(dirac_model *m, model_sparse *s)
{
    mem_free(&m->mem, s->row_start);
    mem_free(&m->mem, s->col);
    mem_free(&m->mem, s->values.ids);
    expr_tape_destroy(s->values.tape);
}

// ---- what the instance tree declares ------------------------------------------------------------

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

// An interaction relates the variables of components of the model that declares it.
static int constraint_is_interaction(const spec_model *sm, const spec_constraint *sc)
{
    return sm->component_count > 0 && (mentions_component(&sc->lhs) || mentions_component(&sc->rhs));
}

static int twoform_is_interaction(const spec_model *sm, const spec_twoform *tf)
{
    for (int j = 0; sm->component_count > 0 && j < tf->term_count; j++)
        if (strchr(tf->terms[j].a.name, '.') || strchr(tf->terms[j].b.name, '.'))
            return 1;
    return 0;
}

int compile_resolve_variable(const instance *in, const char *name, spec_sym_kind kind)
{
    const instance *owner = NULL;
    spec_ref ref;
    if (!instance_resolve(in, name, &owner, &ref) || ref.kind != kind)
        return -1;
    return kind == SPEC_SYM_COORDINATE ? owner->first_q + ref.index : owner->first_s + ref.index;
}

// The sizes of the model's arrays, from the instance tree (and the global layout of m).
static void count_declarations(compile_state *c)
{
    dirac_model *m = c->m;
    for (int k = 0; k < c->tree.count; k++) {
        const spec_model *sm = c->tree.items[k]->sm;
        m->output_count += sm->output_count;
        m->m += sm->constraint_count;
        m->twoform_count += sm->twoform_count;
        m->friction_count += sm->friction_count;
        m->heat_count += sm->heat_count;
        m->param_count += sm->param_count;
        for (int a = 0; a < sm->constraint_count; a++)
            m->interaction_count += constraint_is_interaction(sm, &sm->constraints[a]);
        for (int f = 0; f < sm->twoform_count; f++) {
            m->wedge_count += sm->twoforms[f].term_count;
            m->interaction_count += twoform_is_interaction(sm, &sm->twoforms[f]);
        }
    }
    m->param_count -= m->nu;   // inputs are listed apart
    m->component_count = c->tree.count - 1;
    const spec_model *top = c->tree.items[0]->sm;
    if (top->component_count > 0)
        m->subsystem_count = (top->coord_count > 0) + top->component_count;
}

// The model's arrays whose sizes count_declarations fixed, laid out in one block (mem.h:
// mem_plan); the plain groups get their ids and counts.
static void model_layout(mem_plan *p, dirac_model *m)
{
#define TAKE(field, count) (m->field = mem_plan_take(p, (size_t)(count), sizeof *m->field))
    TAKE(param_names, m->param_count);
    TAKE(param_values, m->param_count);
    TAKE(input_names, m->nu);
    TAKE(input_defaults, m->nu);
    TAKE(coord_names, m->n);
    TAKE(entropy_names, m->ns);
    TAKE(output_names, m->output_count);
    TAKE(constraints, m->m);
    TAKE(subsystems, m->subsystem_count);
    TAKE(twoform_names, m->twoform_count);
    TAKE(twoform_subsystem, m->twoform_count);
    TAKE(twoform_interaction, m->twoform_count);
    TAKE(wedges, m->wedge_count);
    TAKE(interaction_kind, m->interaction_count);
    TAKE(interaction_index, m->interaction_count);
    TAKE(interaction_coords, m->interaction_count);
    TAKE(interaction_coord_count, m->interaction_count);
    TAKE(friction_coord, m->friction_count);
    TAKE(friction_entropy, m->friction_count);
    TAKE(friction, m->friction_count);
    TAKE(heat_input, m->ns);
    TAKE(heat_pair, 2 * m->heat_count);
    TAKE(heat_conductance, m->heat_count);
    TAKE(q0, m->n);
    TAKE(v0, m->n);
    TAKE(s0, m->ns);
    TAKE(q0_fixed, m->n);
    TAKE(v0_fixed, m->n);
#undef TAKE
    struct {
        model_group *group;
        int count;
    } groups[] = {
        { &m->lagrangian_value, 1 },
        { &m->gradient, 2 * m->n + m->ns + 1 },
        { &m->constraint_values, m->m },
        { &m->constraint_rates, m->m },
        { &m->forces, m->n },
        { &m->wedge_coefficients, m->wedge_count },
        { &m->outputs, m->output_count },
        { &m->thermal, m->friction_count + m->heat_count + m->ns },
    };
    for (size_t k = 0; k < sizeof groups / sizeof groups[0]; k++) {
        groups[k].group->count = groups[k].count;
        groups[k].group->ids = mem_plan_take(p, (size_t)groups[k].count, sizeof(expr_id));
    }
}

static int allocate_model_block(compile_state *c)
{
    mem_plan plan = { 0 };
    model_layout(&plan, c->m);
    if (!mem_plan_alloc(&plan, &c->m->mem))
        return compile_fail_nomem(c);
    model_layout(&plan, c->m);
    c->m->block = plan.block;
    return 1;
}

// A name of the model: `prefix` `name` in the model's text arena.
static char *model_name(compile_state *c, const char *prefix, const char *name)
{
    char *s = mem_arena_concat(&c->m->text, prefix, name, NULL);
    if (!s)
        compile_fail_nomem(c);
    return s;
}

// The constraints of one instance: names and facts (the model's constraints a, a + 1, ...).
static int instance_constraints(compile_state *c, const instance *in, int a)
{
    dirac_model *m = c->m;
    const spec_model *sm = in->sm;
    for (int i = 0; i < sm->constraint_count; i++, a++) {
        const spec_constraint *sc = &sm->constraints[i];
        model_constraint *mc = &m->constraints[a];
        if (!(mc->name = model_name(c, in->prefix, sc->name)))
            return 0;
        mc->kind = sc->kind == SPEC_CONSTRAINT_HOLONOMIC ? DIRAC_CONSTRAINT_HOLONOMIC
                                                          : DIRAC_CONSTRAINT_NONHOLONOMIC;
        mc->line = sc->loc.line;
        mc->col = sc->loc.col;
        mc->subsystem = subsystem_of(in);
        mc->interaction = constraint_is_interaction(sm, sc);
        c->constraint_spec[a] = sc;
        c->constraint_owner[a] = in;
    }
    return 1;
}

// The two-forms of one instance: names, owners and their wedges' coordinates (the model's
// two-forms f, f + 1, ... and wedges from *w on).
static int instance_twoforms(compile_state *c, const instance *in, int f, int *w)
{
    dirac_model *m = c->m;
    const spec_model *sm = in->sm;
    for (int i = 0; i < sm->twoform_count; i++, f++) {
        const spec_twoform *tf = &sm->twoforms[i];
        if (!(m->twoform_names[f] = model_name(c, in->prefix, tf->name)))
            return 0;
        m->twoform_subsystem[f] = subsystem_of(in);
        m->twoform_interaction[f] = twoform_is_interaction(sm, tf);
        for (int j = 0; j < tf->term_count; j++, (*w)++) {
            const spec_wedge *wg = &tf->terms[j];
            model_wedge *mw = &m->wedges[*w];
            mw->a = compile_resolve_variable(in, wg->a.name, SPEC_SYM_COORDINATE);
            mw->b = compile_resolve_variable(in, wg->b.name, SPEC_SYM_COORDINATE);
            mw->twoform = f;
            if (mw->a < 0 || mw->b < 0) {
                spec_error(c->spec, DIRAC_ERR_PARSE, mw->a < 0 ? wg->a.loc : wg->b.loc,
                           "two-form terms must wedge coordinates");
                return 0;
            }
        }
    }
    return 1;
}

// The top-level subsystems: the outer model's own coordinates, then each of its components.
static int compile_subsystems(compile_state *c)
{
    dirac_model *m = c->m;
    const instance *top = c->tree.items[0];
    if (m->subsystem_count == 0)
        return 1;
    int k = 0;
    if (top->sm->coord_count > 0)
        m->subsystems[k++] = (model_subsystem){ model_name(c, m->name, NULL), -1, 0,
                                                top->sm->coord_count };
    for (int j = 0; j < top->sm->component_count; j++) {
        const instance *child = top->children[j];
        int next = j + 1 < top->sm->component_count ? top->children[j + 1]->first_q : m->n;
        m->subsystems[k++] = (model_subsystem){ model_name(c, top->sm->components[j].name, NULL),
                                                j, child->first_q, next - child->first_q };
    }
    for (k = 0; k < m->subsystem_count; k++)
        if (!m->subsystems[k].name)
            return 0;
    return 1;
}

// Names of the model, its coordinates, entropy variables, constraints, outputs and two-forms.
static int compile_names(compile_state *c)
{
    dirac_model *m = c->m;
    const spec_model *root = c->tree.items[0]->sm;
    if (!(m->name = model_name(c, root->name, NULL)) || !(m->file = model_name(c, root->file, NULL)))
        return 0;
    int a = 0, o = 0, f = 0, w = 0;
    for (int k = 0; k < c->tree.count; k++) {
        const instance *in = c->tree.items[k];
        const spec_model *sm = in->sm;
        for (int i = 0; i < sm->coord_count; i++)
            if (!(m->coord_names[in->first_q + i] = model_name(c, in->prefix, sm->coords[i].name)))
                return 0;
        for (int i = 0; i < sm->entropy_count; i++)
            if (!(m->entropy_names[in->first_s + i] =
                      model_name(c, in->prefix, sm->entropies[i].name)))
                return 0;
        for (int i = 0; i < sm->output_count; i++, o++)
            if (!(m->output_names[o] = model_name(c, in->prefix, sm->outputs[i].name)))
                return 0;
        if (!instance_constraints(c, in, a) || !instance_twoforms(c, in, f, &w))
            return 0;
        a += sm->constraint_count;
        f += sm->twoform_count;
    }
    return compile_subsystems(c);
}

// Every instance's parameters with their values (after overrides and component arguments),
// named as -p names them: `l`, `rotor.J`, `k[3]`; the inputs apart, with their defaults.
static int compile_parameters(compile_state *c)
{
    dirac_model *m = c->m;
    int p = 0;
    for (int k = 0; k < c->tree.count; k++) {
        const instance *in = c->tree.items[k];
        for (int j = 0; j < in->sm->param_count; j++) {
            int u = in->input_index[j];
            char *name = model_name(c, in->prefix, in->sm->params[j].name);
            if (!name)
                return 0;
            if (u >= 0) {   // an input: listed apart, its value is the default
                m->input_names[u] = name;
                m->input_defaults[u] = in->param_values[j];
            } else {
                m->param_names[p] = name;
                m->param_values[p++] = in->param_values[j];
            }
        }
    }
    return 1;
}

// Initial values: components' own first, then the models that include them (which override).
static int compile_initial(compile_state *c)
{
    dirac_model *m = c->m;
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
            int s = compile_resolve_variable(in, init->var.name, SPEC_SYM_ENTROPY);
            int q = compile_resolve_variable(in, init->var.name, SPEC_SYM_COORDINATE);
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
// pattern) and interaction two-forms (on the coordinates of their wedges, each once).
static int compile_interactions(compile_state *c)
{
    dirac_model *m = c->m;
    int k = 0;
    const model_sparse *forms = &m->constraint_forms;
    for (int a = 0; a < m->m; a++) {
        if (!m->constraints[a].interaction)
            continue;
        int len = forms->row_start[a + 1] - forms->row_start[a];
        int *coords = mem_arena_calloc(&m->text, (size_t)len, sizeof *coords);
        if (!coords)
            return compile_fail_nomem(c);
        memcpy(coords, forms->col + forms->row_start[a], (size_t)len * sizeof *coords);
        m->interaction_kind[k] = 0;
        m->interaction_index[k] = a;
        m->interaction_coords[k] = coords;
        m->interaction_coord_count[k++] = len;
    }
    for (int f = 0; f < m->twoform_count; f++) {
        if (!m->twoform_interaction[f])
            continue;
        int *coords = mem_arena_calloc(&m->text, 2 * (size_t)m->wedge_count, sizeof *coords);
        int len = 0;
        if (!coords)
            return compile_fail_nomem(c);
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

// ---- the whole compilation ----------------------------------------------------------------------

// Does an output of some instance name an acceleration (x'', a node with two primes)?
static bool outputs_use_acceleration(const instance_tree *tree)
{
    for (int k = 0; k < tree->count; k++) {
        const spec_model *sm = tree->items[k]->sm;
        for (int j = 0; j < sm->output_count; j++)
            for (int32_t i = 0; i < sm->outputs[j].value.count; i++)
                if (sm->outputs[j].value.nodes[i].kind == SPEC_EXPR_PRIME &&
                    sm->outputs[j].value.nodes[i].op == 2)
                    return true;
    }
    return false;
}

// The instance tree, the global layout of the input vector x (src/model.h) and the sizes.
static int compile_layout(compile_state *c, const spec_model *root)
{
    dirac_model *m = c->m;
    if (!instance_tree_build(&c->tree, c->spec, root, &m->mem))
        return 0;
    m->n = c->tree.n;
    m->ns = c->tree.ns;
    m->nu = c->tree.nu;
    count_declarations(c);
    m->first_v = m->n;
    m->first_s = 2 * m->n;
    m->index_t = 2 * m->n + m->ns;
    m->first_mu = m->index_t + 1;
    m->first_u = m->first_mu + m->m;
    m->first_a = m->first_u + m->nu;
    m->na = outputs_use_acceleration(&c->tree) ? m->n : 0;
    m->n_inputs = m->first_a + m->na;
    c->constraint_spec = mem_calloc(&m->mem, (size_t)m->m, sizeof *c->constraint_spec);
    c->constraint_owner = mem_calloc(&m->mem, (size_t)m->m, sizeof *c->constraint_owner);
    if (!c->constraint_spec || !c->constraint_owner)
        return compile_fail_nomem(c);
    return allocate_model_block(c);
}

static int compile_model(compile_state *c, const spec_model *root)
{
    dirac_model *m = c->m;
    return compile_layout(c, root) && compile_names(c) &&
           instance_tree_evaluate(&c->tree, c->spec, m->pool, m->first_v, m->first_s,
                                  m->index_t, m->first_u) &&
           compile_parameters(c) && compile_lagrangian(c) && compile_constraints(c) &&
           compile_forces(c) && compile_heat(c) && compile_thermal(c) &&
           compile_interactions(c) && compile_outputs(c) && compile_initial(c) &&
           compile_settings(c) && compile_check_constraint_rank(c);
}

// An empty model whose allocations continue the spec's account; NULL when out of memory.
static dirac_model *model_create(spec *s)
{
    mem_counter mem = mem_counter_inherit(spec_allocations(s));
    dirac_model *m = mem_calloc(&mem, 1, sizeof *m);
    if (!m)
        return NULL;
    m->mem = mem;
    mem_arena_init(&m->text, &m->mem);
    dirac_error err;
    if (expr_pool_create(&m->pool, &err) != DIRAC_OK) {
        dirac_model_destroy(m);
        return NULL;
    }
    return m;
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
    dirac_model *m = model_create(s);
    if (!m) {
        spec_out_of_memory(s);
        return DIRAC_ERR_NOMEM;
    }
    compile_state c = { .m = m, .spec = s };
    int ok = compile_model(&c, root);
    instance_tree_free(&c.tree);
    mem_free(&m->mem, c.constraint_spec);
    mem_free(&m->mem, c.constraint_owner);
    if (ok && model_find_breakpoints(m) != DIRAC_OK)
        ok = compile_fail_nomem(&c);
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
    model_codegen_release(m);
    model_sparse *sparse[] = { &m->hessian, &m->constraint_forms, &m->constraint_jacobian,
                               &m->form_curvature, &m->force_jacobian, &m->output_jacobian };
    for (size_t k = 0; k < sizeof sparse / sizeof sparse[0]; k++)
        sparse_free(m, sparse[k]);
    model_group *groups[] = { &m->lagrangian_value, &m->gradient, &m->constraint_values,
                              &m->constraint_rates, &m->forces, &m->wedge_coefficients,
                              &m->outputs, &m->thermal };
    for (size_t k = 0; k < sizeof groups / sizeof groups[0]; k++)
        expr_tape_destroy(groups[k]->tape);   // their ids are in the block
    mem_free(&m->mem, m->breakpoints);
    mem_arena_free(&m->text);
    mem_free(&m->mem, m->block);
    expr_pool_destroy(m->pool);
    mem_counter mem = m->mem;
    mem_free(&mem, m);
}
