// The resolve pass: binds every name of a model to its definition and checks what the
// grammar cannot: unknown names (with suggestions), names used before their definition,
// parameters and other constants that depend on the state, velocities of non-coordinates,
// statements naming the wrong kind of thing, and constraints that are not linear in the
// velocities. It runs twice: pass 1 on a file by itself (a qualified name is checked up to its
// component), pass 2 once the components are loaded (qualified names checked to the end).
//
// Linearity in the velocities is decided on the syntax tree: the degree of a node is 0 (no
// velocity), 1 (linear), or 2 (anything else), with
//   x' -> 1;  a + b, a - b -> max;  a * b -> sum;  a / b -> a if b has degree 0, else 2;
//   a ^ n -> 0 if a has degree 0 (and n too), a if n is the literal 1, 0 if n is the literal 0,
//   else 2;  f(a, ...) -> 0 if every argument has degree 0, else 2;  a let -> its degree.
// So x'*cos(q) + y' is linear, x'^2, x'*y', 1/x', sqrt(x') and exp(x') are not.
#include "parse.h"

#include <limits.h>
#include <stdio.h>
#include <string.h>

typedef struct resolve_ctx {
    spec *s;
    spec_model *m;
    int pass;              // 1: own file; 2: with loaded components
    // the expression being resolved
    int32_t seq;           // names must be defined before this (INT32_MAX: any)
    const char *own;       // the name being defined (parameter, let)
    bool constant;         // must not depend on coordinates, velocities, entropy, time
    bool no_velocity;      // must not depend on velocities (two-form coefficients)
    const char *what;      // "parameter 'm'" for messages
    // results
    const spec_expr_node *state_use;   // first leaf that depends on the state
    bool ok;
} resolve_ctx;

// --- names ---------------------------------------------------------------------------------

static bool is_value_kind(int kind)
{
    return kind == SPEC_SYM_PARAMETER || kind == SPEC_SYM_COORDINATE || kind == SPEC_SYM_LET ||
           kind == SPEC_SYM_ENTROPY;
}

// closest name among the symbols of m whose kind is in `kinds` (bit mask), plus t and pi
static const char *suggest(const spec_model *m, const char *word, unsigned kinds, bool builtins)
{
    diag_suggest sg;
    diag_suggest_init(&sg, word);
    for (int i = 0; i < m->names->count; i++)
        if (kinds & (1u << m->names->items[i].kind))
            diag_suggest_add(&sg, m->names->items[i].name);
    if (builtins) {
        diag_suggest_add(&sg, "t");
        diag_suggest_add(&sg, "pi");
    }
    return sg.best;
}

#define VALUE_KINDS                                                                          \
    ((1u << SPEC_SYM_PARAMETER) | (1u << SPEC_SYM_COORDINATE) | (1u << SPEC_SYM_LET) |        \
     (1u << SPEC_SYM_ENTROPY) | (1u << SPEC_SYM_COMPONENT))

static void fail(resolve_ctx *c)
{
    c->ok = false;
}

// resolves a qualified name `a.b.c`: `kind`/`owner` of the last part when every component on
// the way is loaded (pass 2); SPEC_SYM_NONE when it cannot be followed yet. False after an
// error.
static bool resolve_qualified(resolve_ctx *c, const char *name, spec_loc loc, spec_ref *ref,
                              const spec_model **owner, int32_t *owner_index)
{
    const spec_model *model = c->m;
    const char *part = name;
    ref->kind = SPEC_SYM_QUALIFIED;
    ref->member = SPEC_SYM_NONE;
    *owner = NULL;
    for (int depth = 0;; depth++) {
        const char *dot = strchr(part, '.');
        size_t len = dot ? (size_t)(dot - part) : strlen(part);
        const spec_symbol *sym = spec_names_find(model->names, part, len);
        if (!dot) {
            if (!sym || !is_value_kind(sym->kind)) {
                // only reached in pass 2, through loaded components
                const char *close = suggest(model, part, VALUE_KINDS, false);
                if (sym)
                    spec_error(c->s, DIRAC_ERR_PARSE, loc,
                               "'%s' is %s of model '%s', not a value", name,
                               spec_sym_kind_phrase((spec_sym_kind)sym->kind), model->name);
                else if (close)
                    spec_error(c->s, DIRAC_ERR_PARSE, loc,
                               "unknown name '%s': model '%s' has no '%s'; did you mean '%.*s%s'?",
                               name, model->name, part, (int)(part - name), name, close);
                else
                    spec_error(c->s, DIRAC_ERR_PARSE, loc,
                               "unknown name '%s': model '%s' has no '%s'", name, model->name,
                               part);
                return false;
            }
            ref->member = sym->kind;
            *owner = model;
            *owner_index = sym->index;
            return true;
        }
        if (!sym || sym->kind != SPEC_SYM_COMPONENT) {
            char first[128];
            snprintf(first, sizeof first, "%.*s", (int)(dot - name) > 100 ? 100 : (int)(dot - name),
                     name);
            if (sym)
                spec_error(c->s, DIRAC_ERR_PARSE, loc, "'%s' is %s, not a component, in '%s'",
                           first, spec_sym_kind_phrase((spec_sym_kind)sym->kind), name);
            else {
                const char *close = suggest(model, first + (part - name),
                                            1u << SPEC_SYM_COMPONENT, false);
                if (close)
                    spec_error(c->s, DIRAC_ERR_PARSE, loc,
                               "unknown component '%s' in '%s'; did you mean '%s'?", first,
                               name, close);
                else
                    spec_error(c->s, DIRAC_ERR_PARSE, loc, "unknown component '%s' in '%s'",
                               first, name);
            }
            return false;
        }
        if (depth == 0)
            ref->index = sym->index;
        const spec_model *next = model->components[sym->index].model;
        if (!next || c->pass == 1)
            return true;   // checked when (if) the component is loaded
        model = next;
        part = dot + 1;
    }
}

// the symbol a plain name denotes (t and pi included); false after an error
static bool resolve_plain(resolve_ctx *c, const char *name, spec_loc loc, spec_ref *ref,
                          const spec_symbol **symbol)
{
    *symbol = NULL;
    ref->member = SPEC_SYM_NONE;
    ref->index = 0;
    if (strcmp(name, "t") == 0) {
        ref->kind = SPEC_SYM_TIME;
        return true;
    }
    if (strcmp(name, "pi") == 0) {
        ref->kind = SPEC_SYM_PI;
        return true;
    }
    const spec_symbol *sym = spec_names_find(c->m->names, name, strlen(name));
    if (!sym) {
        const char *close = suggest(c->m, name, VALUE_KINDS, true);
        if (close)
            spec_error(c->s, DIRAC_ERR_PARSE, loc, "unknown name '%s'; did you mean '%s'?", name,
                       close);
        else
            spec_error(c->s, DIRAC_ERR_PARSE, loc, "unknown name '%s'", name);
        return false;
    }
    *symbol = sym;
    ref->kind = sym->kind;
    ref->index = sym->index;
    return true;
}

// --- expressions ---------------------------------------------------------------------------

// describes the state dependence of leaf n ("coordinate 'x'", "the velocity x'", ...), with
// its place when it is in another file (through a component's let)
static void describe_state(const resolve_ctx *c, const spec_expr_node *n, char *buf,
                           size_t size)
{
    const char *name = n->u.sym.name;
    int kind = n->u.sym.ref.kind == SPEC_SYM_QUALIFIED ? n->u.sym.ref.member
                                                       : n->u.sym.ref.kind;
    char what[128];
    if (n->kind == SPEC_EXPR_PRIME)
        snprintf(what, sizeof what, "the velocity %.100s'", name);
    else if (kind == SPEC_SYM_TIME)
        snprintf(what, sizeof what, "time t");
    else
        snprintf(what, sizeof what, "%s '%.90s'", spec_sym_kind_name((spec_sym_kind)kind), name);
    if (n->loc.file && n->loc.file != c->m->file)
        snprintf(buf, size, "%s (at %s:%d:%d)", what, n->loc.file, n->loc.line, n->loc.col);
    else
        snprintf(buf, size, "%s", what);
}

// the let that a (maybe qualified) name node refers to, or NULL
static const spec_let *node_let(const resolve_ctx *c, const spec_expr_node *n,
                                const spec_model *owner, int32_t owner_index)
{
    if (n->kind != SPEC_EXPR_NAME)
        return NULL;
    if (n->u.sym.ref.kind == SPEC_SYM_LET)
        return &c->m->lets[n->u.sym.ref.index];
    if (n->u.sym.ref.kind == SPEC_SYM_QUALIFIED && n->u.sym.ref.member == SPEC_SYM_LET && owner)
        return &owner->lets[owner_index];
    return NULL;
}

// one name or prime node
static void resolve_leaf(resolve_ctx *c, spec_expr_node *n, int *degree)
{
    const char *name = n->u.sym.name;
    spec_ref ref = { SPEC_SYM_NONE, SPEC_SYM_NONE, 0 };
    const spec_model *owner = NULL;
    int32_t owner_index = 0;
    *degree = n->kind == SPEC_EXPR_PRIME ? 1 : 0;
    if (strchr(name, '.')) {
        if (!resolve_qualified(c, name, n->loc, &ref, &owner, &owner_index)) {
            fail(c);
            return;
        }
    } else {
        if (c->pass == 2)
            ref = n->u.sym.ref;   // resolved in pass 1
        else {
            const spec_symbol *sym;
            if (!resolve_plain(c, name, n->loc, &ref, &sym)) {
                fail(c);
                return;
            }
            if (sym && !is_value_kind(sym->kind)) {
                if (sym->kind == SPEC_SYM_COMPONENT)
                    spec_error(c->s, DIRAC_ERR_PARSE, n->loc,
                               "'%s' is a component; name its members as %s.NAME", name, name);
                else
                    spec_error(c->s, DIRAC_ERR_PARSE, n->loc, "'%s' is %s, not a value", name,
                               spec_sym_kind_phrase((spec_sym_kind)sym->kind));
                fail(c);
                return;
            }
            bool state = sym && (sym->kind == SPEC_SYM_COORDINATE || sym->kind == SPEC_SYM_ENTROPY);
            if (sym && sym->seq >= c->seq && !(c->constant && state)) {
                if (c->own && strcmp(c->own, name) == 0)
                    spec_error(c->s, DIRAC_ERR_PARSE, n->loc,
                               "'%s' is used in its own definition", name);
                else
                    spec_error(c->s, DIRAC_ERR_PARSE, n->loc,
                               "'%s' is used before its definition on line %d", name,
                               sym->loc.line);
                fail(c);
                return;
            }
        }
    }
    n->u.sym.ref = ref;
    int kind = ref.kind == SPEC_SYM_QUALIFIED ? ref.member : ref.kind;
    if (n->kind == SPEC_EXPR_PRIME && kind != SPEC_SYM_COORDINATE && kind != SPEC_SYM_NONE) {
        spec_error(c->s, DIRAC_ERR_PARSE, n->loc,
                   "'%s' is %s; only coordinates have velocities (%s')", name,
                   spec_sym_kind_phrase((spec_sym_kind)kind), name);
        fail(c);
        return;
    }
    // dependence on the state
    const spec_expr_node *state = NULL;
    const spec_let *let = node_let(c, n, owner, owner_index);
    if (n->kind == SPEC_EXPR_PRIME || kind == SPEC_SYM_COORDINATE || kind == SPEC_SYM_ENTROPY ||
        kind == SPEC_SYM_TIME)
        state = n;
    else if (let && let->state_use)
        state = let->state_use;
    if (let)
        *degree = let->velocity_degree;
    if (state && !c->state_use)
        c->state_use = state;
    if (state && c->constant) {
        char dep[160];
        describe_state(c, state, dep, sizeof dep);
        if (state == n)
            spec_error(c->s, DIRAC_ERR_PARSE, n->loc, "%s must be constant but depends on %s",
                       c->what, dep);
        else
            spec_error(c->s, DIRAC_ERR_PARSE, n->loc,
                       "%s must be constant but depends on '%s', which depends on %s", c->what,
                       name, dep);
        fail(c);
        return;
    }
    if (c->no_velocity && *degree > 0) {
        if (n->kind == SPEC_EXPR_PRIME)
            spec_error(c->s, DIRAC_ERR_PARSE, n->loc, "%s must not depend on velocities (%s')",
                       c->what, name);
        else
            spec_error(c->s, DIRAC_ERR_PARSE, n->loc,
                       "%s must not depend on velocities ('%s' does)", c->what, name);
        fail(c);
        return;
    }
}

typedef struct degree_result {
    int degree;                        // 0, 1, 2
    const spec_expr_node *culprit;     // where it became nonlinear
    const char *reason;
} degree_result;

// resolves every name of e and computes its degree in the velocities
static degree_result resolve_expr(resolve_ctx *c, spec_expr *e)
{
    degree_result r = { 0, NULL, NULL };
    if (e->count == 0)
        return r;
    uint8_t small[256];
    uint8_t *deg = small;
    if ((size_t)e->count > sizeof small) {
        deg = spec_mem_alloc(&c->s->mem, (size_t)e->count);
        if (!deg) {
            spec_out_of_memory(c->s);
            fail(c);
            return r;
        }
    }
    for (int32_t i = 0; i < e->count; i++) {
        spec_expr_node *n = &e->nodes[i];
        int d = 0;
        const char *reason = NULL;
        switch (n->kind) {
        case SPEC_EXPR_NUMBER:
            break;
        case SPEC_EXPR_NAME:
        case SPEC_EXPR_PRIME: {
            resolve_leaf(c, n, &d);
            if (diag_full(&c->s->diag))
                goto out;
            if (d == 2)
                reason = "it uses a let that is not linear in the velocities";
            break;
        }
        case SPEC_EXPR_UNARY:
            d = deg[n->u.arg[0] - e->nodes];
            break;
        case SPEC_EXPR_BINARY: {
            int a = deg[n->u.arg[0] - e->nodes], b = deg[n->u.arg[1] - e->nodes];
            switch (n->op) {
            case SPEC_OP_ADD: case SPEC_OP_SUB:
                d = a > b ? a : b;
                break;
            case SPEC_OP_MUL:
                d = a + b > 2 ? 2 : a + b;
                if (d == 2 && a < 2 && b < 2)
                    reason = "it multiplies velocities";
                break;
            case SPEC_OP_DIV:
                d = b > 0 ? 2 : a;
                if (b > 0 && a < 2 && b < 2)
                    reason = "it divides by a velocity";
                break;
            default: {   // ^
                const spec_expr_node *x = n->u.arg[1];
                if (b > 0) {
                    d = 2;
                    reason = b < 2 ? "a velocity appears in an exponent" : NULL;
                } else if (a == 0 || (x->kind == SPEC_EXPR_NUMBER && x->u.number == 0.0)) {
                    d = 0;
                } else if (x->kind == SPEC_EXPR_NUMBER && x->u.number == 1.0) {
                    d = a;
                } else {
                    d = 2;
                    reason = a < 2 ? "it raises a velocity to a power" : NULL;
                }
                break;
            }
            }
            break;
        }
        case SPEC_EXPR_CALL: {
            int a = deg[n->u.arg[0] - e->nodes];
            int b = n->argc > 1 ? deg[n->u.arg[1] - e->nodes] : 0;
            d = a > 0 || b > 0 ? 2 : 0;
            if (d == 2 && a < 2 && b < 2)
                reason = "a velocity appears inside a function";
            break;
        }
        default:
            break;
        }
        deg[i] = (uint8_t)d;
        if (reason && !r.culprit) {
            r.culprit = n;
            r.reason = reason;
        }
    }
    r.degree = deg[e->count - 1];
out:
    if (deg != small)
        spec_mem_free(&c->s->mem, deg);
    return r;
}

// resets the per-expression part of the context
static void begin(resolve_ctx *c, int32_t seq, const char *own, bool constant,
                  const char *what)
{
    c->seq = seq;
    c->own = own;
    c->constant = constant;
    c->no_velocity = false;
    c->what = what;
    c->state_use = NULL;
}

// --- statements ----------------------------------------------------------------------------

enum {
    WANT_COORDINATE = 1u << SPEC_SYM_COORDINATE,
    WANT_ENTROPY = 1u << SPEC_SYM_ENTROPY,
};

// a name in a statement that must denote a coordinate and/or an entropy variable
static bool resolve_target(resolve_ctx *c, spec_name_ref *r, unsigned want, const char *role)
{
    const char *wanted = want == WANT_COORDINATE ? "coordinate"
                         : want == WANT_ENTROPY  ? "entropy variable"
                                                 : "coordinate or entropy variable";
    int kind;
    if (strchr(r->name, '.')) {
        const spec_model *owner;
        int32_t index;
        if (!resolve_qualified(c, r->name, r->loc, &r->ref, &owner, &index))
            return false;
        kind = r->ref.member;
        if (kind == SPEC_SYM_NONE)
            return true;   // not loaded (yet)
    } else {
        if (c->pass == 2)
            return true;
        const spec_symbol *sym = spec_names_find(c->m->names, r->name, strlen(r->name));
        if (!sym) {
            const char *close = suggest(c->m, r->name, want, false);
            if (close)
                spec_error(c->s, DIRAC_ERR_PARSE, r->loc,
                           "%s unknown %s '%s'; did you mean '%s'?", role, wanted, r->name,
                           close);
            else
                spec_error(c->s, DIRAC_ERR_PARSE, r->loc, "%s unknown %s '%s'", role, wanted,
                           r->name);
            return false;
        }
        r->ref.kind = sym->kind;
        r->ref.index = sym->index;
        kind = sym->kind;
    }
    if (!(want & (1u << kind))) {
        if (want == WANT_ENTROPY)
            spec_error(c->s, DIRAC_ERR_PARSE, r->loc,
                       "'%s' is %s, not an entropy variable (declare entropy variables with "
                       "'entropy NAME')", r->name, spec_sym_kind_phrase((spec_sym_kind)kind));
        else
            spec_error(c->s, DIRAC_ERR_PARSE, r->loc, "'%s' is %s, not a %s", r->name,
                       spec_sym_kind_phrase((spec_sym_kind)kind), wanted);
        return false;
    }
    return true;
}

static void any_expr(resolve_ctx *c, spec_expr *e)
{
    begin(c, INT32_MAX, NULL, false, NULL);
    resolve_expr(c, e);
}

static void constant_expr(resolve_ctx *c, spec_expr *e, const char *what)
{
    begin(c, INT32_MAX, NULL, true, what);
    resolve_expr(c, e);
}

// parameters and lets, in definition order
static void resolve_definitions(resolve_ctx *c)
{
    spec_model *m = c->m;
    char what[160];
    for (int i = 0; i < m->names->count; i++) {
        const spec_symbol *sym = &m->names->items[i];
        if (sym->kind == SPEC_SYM_PARAMETER) {
            spec_param *par = &m->params[sym->index];
            snprintf(what, sizeof what, "parameter '%s'", par->name);
            begin(c, sym->seq, par->name, true, what);
            resolve_expr(c, &par->value);
        } else if (sym->kind == SPEC_SYM_LET) {
            spec_let *let = &m->lets[sym->index];
            snprintf(what, sizeof what, "let '%s'", let->name);
            begin(c, sym->seq, let->name, false, what);
            degree_result r = resolve_expr(c, &let->value);
            let->state_use = c->state_use;
            let->velocity_degree = r.degree;
        }
        if (diag_full(&c->s->diag))
            return;
    }
}

static void resolve_constraint(resolve_ctx *c, spec_constraint *k)
{
    begin(c, INT32_MAX, NULL, false, NULL);
    int errors = c->s->diag.errors;
    degree_result a = resolve_expr(c, &k->lhs);
    degree_result b = { 0, NULL, NULL };
    if (k->has_rhs)
        b = resolve_expr(c, &k->rhs);
    if (c->s->diag.errors > errors)
        return;
    degree_result worst = a.degree >= b.degree ? a : b;
    if (worst.degree == 2) {
        const spec_expr_node *n = worst.culprit;
        if (n && (n->kind == SPEC_EXPR_NAME))
            spec_error(c->s, DIRAC_ERR_PARSE, n->loc,
                       "constraint '%s' is not linear in the velocities: it uses '%s', which is "
                       "not linear in the velocities", k->name, n->u.sym.name);
        else if (n)
            spec_error(c->s, DIRAC_ERR_PARSE, n->loc,
                       "constraint '%s' is not linear in the velocities: %s", k->name,
                       worst.reason);
        else
            spec_error(c->s, DIRAC_ERR_PARSE, k->loc,
                       "constraint '%s' is not linear in the velocities", k->name);
        fail(c);
        return;
    }
    k->kind = worst.degree == 0 ? SPEC_CONSTRAINT_HOLONOMIC : SPEC_CONSTRAINT_NONHOLONOMIC;
}

// the initial values; duplicates found through a name table keyed "x" or "x'"
static void resolve_initials(resolve_ctx *c)
{
    spec_model *m = c->m;
    char what[160];
    spec_names *seen = c->pass == 1 ? spec_names_create(&c->s->mem) : NULL;
    if (c->pass == 1 && !seen) {
        spec_out_of_memory(c->s);
        return;
    }
    for (int i = 0; i < m->initial_count; i++) {
        spec_initial *in = &m->initials[i];
        unsigned want = in->velocity ? WANT_COORDINATE : WANT_COORDINATE | WANT_ENTROPY;
        if (!resolve_target(c, &in->var, want, "initial value for")) {
            fail(c);
        } else if (seen) {
            size_t len = strlen(in->var.name);
            char *key = spec_arena_alloc(&c->s->arena, len + 2);
            if (!key) {
                spec_out_of_memory(c->s);
                break;
            }
            memcpy(key, in->var.name, len);
            memcpy(key + len, in->velocity ? "'" : "", in->velocity ? 2 : 1);
            const spec_symbol *first = spec_names_find(seen, key, strlen(key));
            if (first) {
                spec_error(c->s, DIRAC_ERR_PARSE, in->var.loc, "duplicate initial value for %s",
                           key);
                spec_note(c->s, first->loc, "first given here, on line %d", first->loc.line);
                fail(c);
            } else {
                spec_symbol sym = { key, in->var.loc, SPEC_SYM_NONE, i, i };
                if (!spec_names_add(&c->s->mem, seen, &sym)) {
                    spec_out_of_memory(c->s);
                    break;
                }
            }
        }
        snprintf(what, sizeof what, "initial value of %.100s%s", in->var.name,
                 in->velocity ? "'" : "");
        constant_expr(c, &in->value, what);
        if (diag_full(&c->s->diag))
            break;
    }
    spec_names_destroy(&c->s->mem, seen);
}

static void resolve_statements(resolve_ctx *c)
{
    spec_model *m = c->m;
    char what[200];
    resolve_definitions(c);
    for (int i = 0; i < m->lagrangian_count && !diag_full(&c->s->diag); i++)
        any_expr(c, &m->lagrangian[i].value);
    for (int i = 0; i < m->constraint_count && !diag_full(&c->s->diag); i++)
        resolve_constraint(c, &m->constraints[i]);
    for (int i = 0; i < m->force_count && !diag_full(&c->s->diag); i++) {
        if (!resolve_target(c, &m->forces[i].coord, WANT_COORDINATE, "force on"))
            fail(c);
        any_expr(c, &m->forces[i].value);
    }
    resolve_initials(c);
    for (int i = 0; i < m->setting_count && !diag_full(&c->s->diag); i++)
        if (!m->settings[i].word) {
            snprintf(what, sizeof what, "simulate setting '%s'", m->settings[i].key);
            constant_expr(c, &m->settings[i].value, what);
        }
    for (int i = 0; i < m->output_count && !diag_full(&c->s->diag); i++)
        any_expr(c, &m->outputs[i].value);
    for (int i = 0; i < m->component_count && !diag_full(&c->s->diag); i++) {
        spec_component *comp = &m->components[i];
        for (int j = 0; j < comp->arg_count; j++) {
            snprintf(what, sizeof what, "parameter '%s' of component '%s'", comp->args[j].name,
                     comp->name);
            constant_expr(c, &comp->args[j].value, what);
        }
    }
    for (int i = 0; i < m->twoform_count && !diag_full(&c->s->diag); i++) {
        spec_twoform *tf = &m->twoforms[i];
        for (int j = 0; j < tf->term_count; j++) {
            spec_wedge *w = &tf->terms[j];
            bool a = resolve_target(c, &w->a, WANT_COORDINATE, "d() of");
            bool b = resolve_target(c, &w->b, WANT_COORDINATE, "d() of");
            if (!a || !b)
                fail(c);
            else if (c->pass == 1 && strcmp(w->a.name, w->b.name) == 0) {
                spec_error(c->s, DIRAC_ERR_PARSE, w->b.loc,
                           "d(%s) ^ d(%s) is zero: a two-form term needs two different "
                           "coordinates", w->a.name, w->b.name);
                fail(c);
            }
            snprintf(what, sizeof what, "the coefficient of two-form '%s'", tf->name);
            begin(c, INT32_MAX, NULL, false, what);
            c->no_velocity = true;
            resolve_expr(c, &w->coefficient);
        }
    }
    for (int i = 0; i < m->friction_count && !diag_full(&c->s->diag); i++) {
        spec_friction *f = &m->frictions[i];
        if (!resolve_target(c, &f->coord, WANT_COORDINATE, "friction on"))
            fail(c);
        if (!resolve_target(c, &f->entropy, WANT_ENTROPY, "friction heating"))
            fail(c);
        any_expr(c, &f->value);
    }
    for (int i = 0; i < m->heat_count && !diag_full(&c->s->diag); i++) {
        spec_heat *h = &m->heats[i];
        bool a = resolve_target(c, &h->a, WANT_ENTROPY, "heat exchange with");
        bool b = resolve_target(c, &h->b, WANT_ENTROPY, "heat exchange with");
        if (!a || !b)
            fail(c);
        else if (c->pass == 1 && strcmp(h->a.name, h->b.name) == 0) {
            spec_error(c->s, DIRAC_ERR_PARSE, h->b.loc,
                       "heat exchange needs two different entropy variables");
            fail(c);
        }
        any_expr(c, &h->value);
    }
    for (int i = 0; i < m->heat_input_count && !diag_full(&c->s->diag); i++) {
        if (!resolve_target(c, &m->heat_inputs[i].entropy, WANT_ENTROPY, "heat input into"))
            fail(c);
        any_expr(c, &m->heat_inputs[i].value);
    }
}

void spec_resolve_model(spec *s, spec_model *m)
{
    if (!m || m->failed || !m->name)
        return;
    resolve_ctx c;
    memset(&c, 0, sizeof c);
    c.s = s;
    c.m = m;
    c.pass = 1;
    c.ok = true;
    resolve_statements(&c);
    if (!diag_full(&s->diag)) {
        // a model must declare something, and have a Lagrangian unless components bring theirs
        if (m->coord_count == 0 && m->entropy_count == 0 && m->component_count == 0) {
            spec_error(s, DIRAC_ERR_PARSE, m->loc,
                       "model '%s' is empty: it declares no coordinates, entropy variables or "
                       "components", m->name);
            c.ok = false;
        } else if (m->lagrangian_count == 0 && m->component_count == 0) {
            spec_error(s, DIRAC_ERR_PARSE, m->loc, "model '%s' has no lagrangian", m->name);
            c.ok = false;
        }
    }
    if (!c.ok || s->mem.failed)
        m->failed = true;
}

void spec_resolve_components(spec *s, spec_model *m)
{
    if (!m || m->failed)
        return;
    resolve_ctx c;
    memset(&c, 0, sizeof c);
    c.s = s;
    c.m = m;
    c.pass = 2;
    c.ok = true;
    // the instances: model name and parameters
    for (int i = 0; i < m->component_count; i++) {
        spec_component *comp = &m->components[i];
        const spec_model *child = comp->model;
        if (!child)
            continue;
        if (strcmp(child->name, comp->model_name) != 0) {
            spec_error(s, DIRAC_ERR_PARSE, comp->model_loc,
                       "file '%s' defines model '%s', not '%s'", child->file, child->name,
                       comp->model_name);
            c.ok = false;
            continue;
        }
        for (int j = 0; j < comp->arg_count; j++) {
            const spec_arg *a = &comp->args[j];
            const spec_symbol *sym = spec_names_find(child->names, a->name, strlen(a->name));
            if (sym && sym->kind == SPEC_SYM_PARAMETER)
                continue;
            if (sym)
                spec_error(s, DIRAC_ERR_PARSE, a->loc,
                           "'%s' is %s of model '%s', not a parameter", a->name,
                           spec_sym_kind_phrase((spec_sym_kind)sym->kind), child->name);
            else {
                const char *close = suggest(child, a->name, 1u << SPEC_SYM_PARAMETER, false);
                if (close)
                    spec_error(s, DIRAC_ERR_PARSE, a->loc,
                               "model '%s' has no parameter '%s'; did you mean '%s'?",
                               child->name, a->name, close);
                else
                    spec_error(s, DIRAC_ERR_PARSE, a->loc, "model '%s' has no parameter '%s'",
                               child->name, a->name);
            }
            c.ok = false;
        }
    }
    if (!diag_full(&s->diag))
        resolve_statements(&c);
    if (!c.ok || s->mem.failed)
        m->failed = true;
}
