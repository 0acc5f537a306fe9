// Instances of component models: the tree, the global variable layout, and the evaluation of
// parameters and lets across instances in dependency order with an explicit stack.
#include "model_instance.h"

#include "parse.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

// A new instance with its arrays (zeroed) in the tree's arena; NULL (reported) when out of
// memory.
static instance *instance_new(instance_tree *tree, spec *s, const spec_model *sm,
                              instance *parent, int component, const char *prefix,
                              const char *name)
{
    mem_arena *arena = &tree->arena;
    instance *in = mem_arena_calloc(arena, 1, sizeof *in);
    if (!in) {
        spec_out_of_memory(s);
        return NULL;
    }
    in->sm = sm;
    in->parent = parent;
    in->component = component;
    in->depth = parent ? parent->depth + 1 : 0;
    in->prefix = mem_arena_concat(arena, prefix, name, name ? "." : NULL);
    size_t params = (size_t)sm->param_count, lets = (size_t)sm->let_count;
    in->children = mem_arena_calloc(arena, (size_t)sm->component_count, sizeof *in->children);
    in->param_values = mem_arena_calloc(arena, params, sizeof *in->param_values);
    in->input_index = mem_arena_calloc(arena, params, sizeof *in->input_index);
    in->let_ids = mem_arena_calloc(arena, lets, sizeof *in->let_ids);
    in->param_state = mem_arena_calloc(arena, params, 1);
    in->let_state = mem_arena_calloc(arena, lets, 1);
    if (!in->prefix || !in->children || !in->param_values || !in->input_index || !in->let_ids ||
        !in->param_state || !in->let_state) {
        spec_out_of_memory(s);
        return NULL;
    }
    return in;
}

void instance_tree_free(instance_tree *tree)
{
    mem_counter *mem = tree->mem;
    mem_free(mem, tree->items);
    mem_arena_free(&tree->arena);
    memset(tree, 0, sizeof *tree);
}

static int tree_push(instance_tree *tree, instance *in, int *cap, spec *s)
{
    if (!mem_reserve(tree->mem, &tree->items, cap, tree->count + 1, sizeof *tree->items)) {
        spec_out_of_memory(s);
        return 0;
    }
    tree->items[tree->count++] = in;
    return 1;
}

// Instances of `sm` and everything below it, counting at most `cap` (then returns cap + 1):
// nested components multiply, so the count is bounded before anything is allocated. Depth is
// bounded by the component nesting limit.
static double count_instances(const spec_model *sm, double cap)
{
    double count = 1.0;
    for (int c = 0; c < sm->component_count && count <= cap; c++)
        if (sm->components[c].model)
            count += count_instances(sm->components[c].model, cap - count);
    return count;
}

int instance_tree_build(instance_tree *tree, spec *s, const spec_model *root, mem_counter *mem)
{
    memset(tree, 0, sizeof *tree);
    tree->mem = mem;
    mem_arena_init(&tree->arena, mem);
    // refuse a tree whose estimated memory is over the limit before building any of it
    double most = s->max_model_bytes / SPEC_BYTES_PER_INSTANCE;
    double count = count_instances(root, most);
    if (count > most) {
        spec_error(s, DIRAC_ERR_PARSE, root->loc, "model '%s' has more than %.0f component "
                   "instances: an estimated %.3g GB or more at %.0f bytes each, above the limit "
                   "of %.3g GB (the memory limit is an option: --max-model-memory)", root->name,
                   most, count * SPEC_BYTES_PER_INSTANCE / 1e9, SPEC_BYTES_PER_INSTANCE,
                   s->max_model_bytes / 1e9);
        return 0;
    }
    int cap = 0;
    instance *top = instance_new(tree, s, root, NULL, -1, "", NULL);
    if (!top || !tree_push(tree, top, &cap, s))
        return 0;
    // pre-order by a growing list: item k's children are appended after it, which visits
    // breadth-first; the layout below is then assigned in a separate depth-first pass
    for (int k = 0; k < tree->count; k++) {
        instance *in = tree->items[k];
        for (int c = 0; c < in->sm->component_count; c++) {
            const spec_component *comp = &in->sm->components[c];
            if (!comp->model) {
                spec_error(s, DIRAC_ERR_PARSE, comp->loc, "component '%s' was not loaded",
                           comp->name);
                return 0;
            }
            instance *child = instance_new(tree, s, comp->model, in, c, in->prefix, comp->name);
            if (!child || !tree_push(tree, child, &cap, s))
                return 0;
            in->children[c] = child;
        }
    }
    // depth-first pre-order layout with an explicit stack (depth is bounded, count is not)
    instance **stack = mem_calloc(mem, (size_t)tree->count, sizeof *stack);
    instance **order = mem_calloc(mem, (size_t)tree->count, sizeof *order);
    if (!stack || !order) {
        mem_free(mem, stack);
        mem_free(mem, order);
        spec_out_of_memory(s);
        return 0;
    }
    int top_of_stack = 0, visited = 0;
    stack[top_of_stack++] = tree->items[0];
    while (top_of_stack > 0) {
        instance *in = stack[--top_of_stack];
        order[visited++] = in;
        in->first_q = tree->n;
        in->first_s = tree->ns;
        tree->n += in->sm->coord_count;
        tree->ns += in->sm->entropy_count;
        for (int i = 0; i < in->sm->param_count; i++)
            in->input_index[i] = in->sm->params[i].is_input ? tree->nu++ : -1;
        for (int c = in->sm->component_count - 1; c >= 0; c--)
            stack[top_of_stack++] = in->children[c];
    }
    mem_free(mem, stack);
    mem_free(mem, tree->items);
    tree->items = order;
    return 1;
}

int instance_resolve(const instance *from, const char *name, const instance **owner,
                     spec_ref *ref)
{
    const instance *in = from;
    const char *part = name;
    for (;;) {
        const char *dot = strchr(part, '.');
        if (!dot) {
            *owner = in;
            return spec_lookup(in->sm, part, ref);
        }
        // the component, through the model's name table (hashed: linear in the model size)
        const spec_symbol *sym = in->sm->names
                                     ? spec_names_find(in->sm->names, part, (size_t)(dot - part))
                                     : NULL;
        if (!sym || sym->kind != SPEC_SYM_COMPONENT)
            return 0;
        in = in->children[sym->index];
        part = dot + 1;
    }
}

// `mu.a.C`, `p.a.x`, `T.a.S`, `S.a.S` in an output (spec_resolve.c: derived_member): the
// multiplier, momentum ∂L/∂x', temperature −∂L/∂S or entropy variable of a component's symbol,
// through the global indices of its instance (set by compile_outputs); EXPR_NONE when it is
// none of them.
static expr_id lower_derived_member(const lower_scope *scope, const spec_expr_node *node)
{
    const instance *owner = NULL;
    spec_ref ref;
    int kind = node->u.sym.ref.member;
    const char *dot = strchr(node->u.sym.name, '.');
    if (!dot || !instance_resolve(scope->owner, dot + 1, &owner, &ref))
        return EXPR_NONE;
    if (kind == SPEC_SYM_MULTIPLIER && ref.kind == SPEC_SYM_CONSTRAINT && scope->momentum)
        return expr_var(scope->pool, owner->scope.first_mu + ref.index);
    if (kind == SPEC_SYM_MOMENTUM && ref.kind == SPEC_SYM_COORDINATE && scope->momentum)
        return scope->momentum[owner->scope.first_q + ref.index];
    if (kind == SPEC_SYM_TEMPERATURE && ref.kind == SPEC_SYM_ENTROPY && scope->temperature)
        return scope->temperature[owner->scope.first_s + ref.index];
    if (kind == SPEC_SYM_ENTROPY && ref.kind == SPEC_SYM_ENTROPY && scope->momentum)   // `S.a.S`
        return expr_var(scope->pool, owner->scope.first_s + ref.index);
    return EXPR_NONE;
}

// Lowers `a.b.x` / `a.b.x'` / `a.b.x''` seen from the scope's instance: the named instance's
// variable, acceleration (outputs), parameter value or let; and the derived names above.
static expr_id lower_qualified(const lower_scope *scope, const spec_expr_node *node)
{
    const instance *owner = NULL;
    spec_ref ref;
    expr_pool *pool = scope->pool;
    int member = node->u.sym.ref.member;
    if (member == SPEC_SYM_MULTIPLIER || member == SPEC_SYM_MOMENTUM ||
        member == SPEC_SYM_TEMPERATURE ||
        (member == SPEC_SYM_ENTROPY && !strncmp(node->u.sym.name, "S.", 2) &&
         !instance_resolve(scope->owner, node->u.sym.name, &owner, &ref))) {
        expr_id id = lower_derived_member(scope, node);
        if (id != EXPR_NONE)
            return id;
    } else if (instance_resolve(scope->owner, node->u.sym.name, &owner, &ref)) {
        const lower_scope *target = &owner->scope;
        if (node->kind == SPEC_EXPR_PRIME && ref.kind == SPEC_SYM_COORDINATE && node->op == 2 &&
            target->first_a > 0)
            return expr_var(pool, target->first_a + ref.index);
        if (node->kind == SPEC_EXPR_PRIME && ref.kind == SPEC_SYM_COORDINATE && node->op != 2)
            return expr_var(pool, target->first_v + ref.index);
        if (node->kind == SPEC_EXPR_NAME) {
            switch ((spec_sym_kind)ref.kind) {
            case SPEC_SYM_PARAMETER:
                if (owner->input_index[ref.index] >= 0)
                    return expr_var(pool, target->first_u + owner->input_index[ref.index]);
                return expr_const(pool, owner->param_values[ref.index]);
            case SPEC_SYM_COORDINATE: return expr_var(pool, target->first_q + ref.index);
            case SPEC_SYM_ENTROPY: return expr_var(pool, target->first_s + ref.index);
            case SPEC_SYM_LET: return owner->let_ids[ref.index];
            default: break;
            }
        }
    }
    spec_error(scope->spec, DIRAC_ERR_PARSE, node->loc,
               "'%s' cannot be used in an expression here", node->u.sym.name);
    return EXPR_NONE;
}

// ---- evaluation of parameters and lets ---------------------------------------------------

// A parameter or let of one instance.
typedef struct slot {
    instance *in;
    int is_let;
    int index;
} slot;

static unsigned char *state_of(slot sl)
{
    return sl.is_let ? &sl.in->let_state[sl.index] : &sl.in->param_state[sl.index];
}

// The component argument of the parent that sets parameter `index` of `in`, or NULL.
static const spec_arg *argument_for(const instance *in, int index)
{
    if (!in->parent)
        return NULL;
    const spec_component *comp = &in->parent->sm->components[in->component];
    for (int k = 0; k < comp->arg_count; k++)
        if (!strcmp(comp->args[k].name, in->sm->params[index].name))
            return &comp->args[k];
    return NULL;
}

// A -p override of parameter `index` of `in` (qualified for components), or NULL.
static const spec_override *override_for(spec *s, const instance *in, int index)
{
    int count = 0;
    const spec_override *list = spec_overrides(s, &count);
    const spec_override *found = NULL;
    size_t plen = strlen(in->prefix);
    const char *name = in->sm->params[index].name;
    for (int k = 0; k < count; k++)
        if (!strncmp(list[k].name, in->prefix, plen) && !strcmp(list[k].name + plen, name))
            found = &list[k];   // the last one wins
    return found;
}

// The expression that defines a slot and the instance whose scope it is evaluated in.
static const spec_expr *definition(slot sl, instance **scope_of)
{
    *scope_of = sl.in;
    if (sl.is_let)
        return &sl.in->sm->lets[sl.index].value;
    const spec_arg *arg = argument_for(sl.in, sl.index);
    if (arg) {
        *scope_of = sl.in->parent;
        return &arg->value;
    }
    return &sl.in->sm->params[sl.index].value;
}

// First pending dependency of the expression (a parameter or let it names), if any.
static int pending_dependency(const spec_expr *e, instance *scope, slot *dep)
{
    for (int32_t i = 0; i < e->count; i++) {
        const spec_expr_node *node = &e->nodes[i];
        if (node->kind != SPEC_EXPR_NAME)
            continue;
        const instance *owner = NULL;
        spec_ref ref;
        if (!instance_resolve(scope, node->u.sym.name, &owner, &ref))
            continue;
        if (ref.kind != SPEC_SYM_PARAMETER && ref.kind != SPEC_SYM_LET)
            continue;
        slot candidate = { (instance *)owner, ref.kind == SPEC_SYM_LET, ref.index };
        if (*state_of(candidate) != 2) {
            *dep = candidate;
            return 1;
        }
    }
    return 0;
}

static spec_loc slot_loc(slot sl)
{
    return sl.is_let ? sl.in->sm->lets[sl.index].loc : sl.in->sm->params[sl.index].loc;
}

static const char *slot_name(slot sl)
{
    return sl.is_let ? sl.in->sm->lets[sl.index].name : sl.in->sm->params[sl.index].name;
}

static int evaluate_slot(slot sl, spec *s)
{
    instance *scope = NULL;
    const spec_expr *e = definition(sl, &scope);
    if (sl.is_let) {
        expr_id id = lower_expr(&scope->scope, e);
        sl.in->let_ids[sl.index] = id;
        return id != EXPR_NONE;
    }
    const spec_override *o = override_for(s, sl.in, sl.index);
    if (o) {
        sl.in->param_values[sl.index] = o->value;
        return 1;
    }
    char what[160];
    snprintf(what, sizeof what, "parameter '%s%s'", sl.in->prefix, slot_name(sl));
    const spec_arg *arg = argument_for(sl.in, sl.index);
    return lower_constant(&scope->scope, e, arg ? arg->loc : slot_loc(sl), what,
                          &sl.in->param_values[sl.index]);
}

// Evaluates `target` and everything it depends on (explicit stack; cycles are errors).
static int evaluate(slot target, slot *stack, int capacity, spec *s)
{
    int top = 0;
    if (*state_of(target) == 2)
        return 1;
    stack[top++] = target;
    *state_of(target) = 1;
    while (top > 0) {
        slot sl = stack[top - 1];
        instance *scope = NULL;
        const spec_expr *e = definition(sl, &scope);
        slot dep;
        int overridden = !sl.is_let && override_for(s, sl.in, sl.index);
        if (!overridden && pending_dependency(e, scope, &dep)) {
            if (*state_of(dep) == 1) {
                spec_error(s, DIRAC_ERR_PARSE, slot_loc(sl),
                           "'%s%s' depends on itself (through '%s%s')", sl.in->prefix,
                           slot_name(sl), dep.in->prefix, slot_name(dep));
                return 0;
            }
            if (top == capacity)
                return 0;
            *state_of(dep) = 1;
            stack[top++] = dep;
            continue;
        }
        if (!evaluate_slot(sl, s))
            return 0;
        *state_of(sl) = 2;
        top--;
    }
    return 1;
}

int instance_tree_evaluate(instance_tree *tree, spec *s, expr_pool *pool, int first_v,
                           int first_s, int index_t, int first_u)
{
    int slots = 0;
    for (int k = 0; k < tree->count; k++) {
        instance *in = tree->items[k];
        in->scope = (lower_scope){ .spec = s, .pool = pool, .param_values = in->param_values,
                                   .let_ids = in->let_ids, .first_q = in->first_q,
                                   .first_v = first_v + in->first_q,
                                   .first_s = first_s + in->first_s, .index_t = index_t,
                                   .input_index = in->input_index, .first_u = first_u,
                                   .owner = in, .prefix = in->prefix,
                                   .qualified = lower_qualified };
        slots += in->sm->param_count + in->sm->let_count;
    }
    slot *stack = mem_calloc(tree->mem, (size_t)slots + 1, sizeof *stack);
    if (!stack) {
        spec_out_of_memory(s);
        return 0;
    }
    int ok = 1;
    for (int k = 0; ok && k < tree->count; k++) {
        instance *in = tree->items[k];
        for (int i = 0; ok && i < in->sm->param_count; i++)
            ok = evaluate((slot){ in, 0, i }, stack, slots + 1, s);
        for (int i = 0; ok && i < in->sm->let_count; i++)
            ok = evaluate((slot){ in, 1, i }, stack, slots + 1, s);
    }
    mem_free(tree->mem, stack);
    return ok;
}
