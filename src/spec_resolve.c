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
    bool index;            // an index or range bound: no sums, no members of components
    bool output;           // an `output`: may name mu.C, p.X, T.S and E (derived_name)
    const char *what;      // "parameter 'm'" for messages
    // results
    const spec_expr_node *state_use;   // first leaf that depends on the state
    bool ok;
    // a model made by spec_expand comes with its references bound: the position in the name
    // table of each definition (by kind and index) replaces the lookups by name
    int32_t *pos[SPEC_SYM_KIND_COUNT];
    int32_t *pos_block;
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

// the definition a reference bound by spec_expand denotes (NULL: not bound, or t and pi)
static const spec_symbol *preset_symbol(const resolve_ctx *c, const spec_ref *ref)
{
    if (!c->pos_block || ref->kind <= SPEC_SYM_NONE || ref->kind >= SPEC_SYM_KIND_COUNT ||
        !c->pos[ref->kind])
        return NULL;
    return &c->m->names->items[c->pos[ref->kind][ref->index]];
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
        if (sym->dims > 0) {
            spec_error(c->s, DIRAC_ERR_PARSE, loc, "'%.*s' is indexed: write %.*s[INDEX]%s",
                       (int)(dot - name), name, (int)(dot - name), name, dot);
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
    if (sym->dims > 0 && is_value_kind(sym->kind)) {
        spec_error(c->s, DIRAC_ERR_PARSE, loc, "'%s' is indexed: write %s[INDEX]", name, name);
        return false;
    }
    *symbol = sym;
    ref->kind = sym->kind;
    ref->index = sym->index;
    return true;
}

// Names of derived quantities in `output` expressions, spelled as the CSV columns: `E` (unless
// the model defines E), `mu.C` (constraint C), `p.X` (coordinate X), `T.S` (entropy variable
// S), `S.S` (the entropy variable S itself, as its column), `F.I.X` and `P.I` (interaction I, a constraint or two-form: its force on coordinate X and
// its power; which coordinates it acts on is known once compiled, model_compile.c), unless the
// prefix is one of the model's components. Returns 1 when the name is one of them (*ref set),
// 0 when it is not, -1 after reporting an error.
static const struct {
    const char *prefix;
    int want, kind;
    const char *what;
} derived_prefixes[] = {
    { "mu.", SPEC_SYM_CONSTRAINT, SPEC_SYM_MULTIPLIER, "constraint" },
    { "p.", SPEC_SYM_COORDINATE, SPEC_SYM_MOMENTUM, "coordinate" },
    { "T.", SPEC_SYM_ENTROPY, SPEC_SYM_TEMPERATURE, "entropy variable" },
    { "S.", SPEC_SYM_ENTROPY, SPEC_SYM_ENTROPY, "entropy variable" },   // the variable itself
};

// `p.rotor.theta`, `mu.arm.rod`, `T.gas.S`: the quantity of a symbol inside components,
// spelled as its CSV column, followed through every loaded component (in pass 1 as far as
// they are loaded). *ref: kind SPEC_SYM_QUALIFIED, member the derived kind, index the first
// component. 1, or -1 after reporting an error.
static int derived_member(resolve_ctx *c, const char *name, int k, spec_loc loc, spec_ref *ref)
{
    const spec_model *model = c->m;
    const char *part = name + strlen(derived_prefixes[k].prefix);
    int want = derived_prefixes[k].want;
    ref->kind = SPEC_SYM_QUALIFIED;
    ref->member = (uint8_t)derived_prefixes[k].kind;
    for (int depth = 0;; depth++) {
        const char *dot = strchr(part, '.');
        size_t len = dot ? (size_t)(dot - part) : strlen(part);
        const spec_symbol *sym = spec_names_find(model->names, part, len);
        bool member = !dot;
        if (member ? sym && sym->kind == want && sym->dims == 0
                   : sym && sym->kind == SPEC_SYM_COMPONENT && sym->dims == 0) {
            if (member)
                return 1;
            if (depth == 0)
                ref->index = sym->index;
            model = model->components[sym->index].model;
            if (!model || c->pass == 1)
                return 1;   // checked when (if) the component is loaded
            part = dot + 1;
            continue;
        }
        char word[72];
        snprintf(word, sizeof word, "%.*s", len > 64 ? 64 : (int)len, part);
        const char *what = member ? derived_prefixes[k].what : "component";
        const char *close = suggest(model, word, 1u << (member ? want : SPEC_SYM_COMPONENT),
                                    false);
        if (close)
            spec_error(c->s, DIRAC_ERR_PARSE, loc, "'%s': model '%s' has no %s '%s'; did you "
                       "mean '%.*s%s%s'?", name, model->name, what, word, (int)(part - name),
                       name, close, member ? "" : dot);
        else
            spec_error(c->s, DIRAC_ERR_PARSE, loc, "'%s': model '%s' has no %s '%s'", name,
                       model->name, what, word);
        return -1;
    }
}

// Is the prefix `mu`, `p`, `T`, `F` or `P` of a derived name (its first len characters) a
// component of the model? Then the name is that component's member (a model symbol of another
// kind, `parameter T`, cannot be followed by a dot and leaves the derived name alone).
static bool prefix_is_component(const resolve_ctx *c, const char *name, size_t len)
{
    const spec_symbol *sym = spec_names_find(c->m->names, name, len);
    return sym && sym->kind == SPEC_SYM_COMPONENT;
}

static int derived_name(resolve_ctx *c, const char *name, spec_loc loc, spec_ref *ref)
{
    ref->member = SPEC_SYM_NONE;
    ref->index = 0;
    if (strcmp(name, "E") == 0) {
        if (spec_names_find(c->m->names, name, 1))
            return 0;
        ref->kind = SPEC_SYM_ENERGY;
        return 1;
    }
    if ((name[0] == 'F' || name[0] == 'P') && name[1] == '.' && !prefix_is_component(c, name, 1)) {
        const char *rest = name + 2, *dot = strchr(rest, '.');
        size_t len = name[0] == 'P' ? strlen(rest) : dot ? (size_t)(dot - rest) : 0;
        const spec_symbol *sym = len ? spec_names_find(c->m->names, rest, len) : NULL;
        // an interaction inside a component (`F.drive.gear.drive.rotor.theta`, `P.drive.gear`):
        // its column is found by name when the outputs are lowered (model_lower.c)
        const spec_symbol *first = dot ? spec_names_find(c->m->names, rest, (size_t)(dot - rest))
                                       : NULL;
        bool inside = first && first->kind == SPEC_SYM_COMPONENT && first->dims == 0;
        if (!inside && (!sym || (sym->kind != SPEC_SYM_CONSTRAINT &&
                                 sym->kind != SPEC_SYM_TWOFORM) || sym->dims > 0)) {
            spec_error(c->s, DIRAC_ERR_PARSE, loc, "'%s': model '%s' has no interaction '%.*s' "
                       "(%s names a constraint or two-form of the model that joins its "
                       "components)", name, c->m->name, (int)(len ? len : strlen(rest)), rest,
                       name[0] == 'P' ? "P.NAME" : "F.NAME.COORD");
            return -1;
        }
        ref->kind = SPEC_SYM_INTERACTION;
        return 1;
    }
    for (size_t k = 0; k < sizeof derived_prefixes / sizeof derived_prefixes[0]; k++) {
        size_t len = strlen(derived_prefixes[k].prefix);
        if (strncmp(name, derived_prefixes[k].prefix, len) != 0 ||
            prefix_is_component(c, name, len - 1))
            continue;
        const char *rest = name + len;
        if (strchr(rest, '.'))
            return derived_member(c, name, (int)k, loc, ref);
        const spec_symbol *sym = spec_names_find(c->m->names, rest, strlen(rest));
        if (!sym || sym->kind != derived_prefixes[k].want || sym->dims > 0) {
            const char *close = sym && sym->dims > 0
                                    ? NULL
                                    : suggest(c->m, rest, 1u << derived_prefixes[k].want, false);
            if (close)
                spec_error(c->s, DIRAC_ERR_PARSE, loc, "'%s': model '%s' has no %s '%s'; did "
                           "you mean '%s%s'?", name, c->m->name, derived_prefixes[k].what, rest,
                           derived_prefixes[k].prefix, close);
            else
                spec_error(c->s, DIRAC_ERR_PARSE, loc, "'%s': model '%s' has no %s '%s'%s",
                           name, c->m->name, derived_prefixes[k].what, rest,
                           sym && sym->dims > 0 ? " (it is indexed: name an element, as in "
                                                  "its CSV columns)" : "");
            return -1;
        }
        ref->kind = (uint8_t)derived_prefixes[k].kind;
        ref->index = sym->index;
        return 1;
    }
    return 0;
}

// --- patterns of indexed names -------------------------------------------------------------

// "x[...]" for the pattern "x[]", "cell[...].q" for "cell[].q"
static void pattern_display(const char *pattern, char *buf, size_t size)
{
    size_t len = 0;
    for (const char *q = pattern; *q && len + 8 < size; q++) {
        if (*q == '[') {
            memcpy(buf + len, "[...]", 5);
            len += 5;
            while (*q && *q != ']')
                q++;
            if (!*q)
                break;
        } else {
            buf[len++] = *q;
        }
    }
    buf[len] = '\0';
}

// Resolves a pattern `x[]`, `cell[].q` (a subscripted name in an expression or a statement's
// target): each segment exists and has as many indices as written; the kind of the element
// (SPEC_SYM_NONE when it lies in a component not loaded yet), and the model and index that
// define it. False after an error.
static bool resolve_pattern(resolve_ctx *c, const char *pattern, spec_loc loc, int *kind,
                            const spec_model **owner, int32_t *owner_index,
                            const spec_symbol **first)
{
    const spec_model *model = c->m;
    const char *q = pattern, *seg;
    size_t len;
    int dims;
    char shown[160];
    pattern_display(pattern, shown, sizeof shown);
    *kind = SPEC_SYM_NONE;
    *owner = NULL;
    *first = NULL;
    for (bool initial = true; spec_pattern_segment(&q, &seg, &len, &dims); initial = false) {
        bool last = *q == '\0';
        char name[72];
        snprintf(name, sizeof name, "%.*s", len > 64 ? 64 : (int)len, seg);
        const spec_symbol *sym = spec_names_find(model->names, seg, len);
        if (!sym) {
            const char *close = suggest(model, name, VALUE_KINDS, false);
            if (!initial)
                spec_error(c->s, DIRAC_ERR_PARSE, loc, "unknown name '%s': model '%s' has no "
                           "'%s'", shown, model->name, name);
            else if (close)
                spec_error(c->s, DIRAC_ERR_PARSE, loc, "unknown name '%s'; did you mean '%s'?",
                           name, close);
            else
                spec_error(c->s, DIRAC_ERR_PARSE, loc, "unknown name '%s'", name);
            return false;
        }
        if (initial)
            *first = sym;
        if (sym->dims != dims) {
            if (sym->dims == 0)
                spec_error(c->s, DIRAC_ERR_PARSE, loc, "'%s' is %s without indices (write %s, "
                           "not %s[...])", name, spec_sym_kind_phrase((spec_sym_kind)sym->kind),
                           name, name);
            else
                spec_error(c->s, DIRAC_ERR_PARSE, loc, "'%s' has %d ind%s, not %d", name,
                           sym->dims, sym->dims == 1 ? "ex" : "ices", dims);
            return false;
        }
        if (!last) {
            if (sym->kind != SPEC_SYM_COMPONENT) {
                spec_error(c->s, DIRAC_ERR_PARSE, loc, "'%s' is %s, not a component, in '%s'",
                           name, spec_sym_kind_phrase((spec_sym_kind)sym->kind), shown);
                return false;
            }
            const spec_model *next = model->components[sym->index].model;
            if (!next || c->pass == 1)
                return true;   // checked when (if) the component is loaded
            model = next;
            continue;
        }
        if (!is_value_kind(sym->kind)) {
            if (sym->kind == SPEC_SYM_COMPONENT)
                spec_error(c->s, DIRAC_ERR_PARSE, loc, "'%s' is a component; name its members "
                           "as %s.NAME", shown, shown);
            else
                spec_error(c->s, DIRAC_ERR_PARSE, loc, "'%s' is %s, not a value", shown,
                           spec_sym_kind_phrase((spec_sym_kind)sym->kind));
            return false;
        }
        *kind = sym->kind;
        *owner = model;
        *owner_index = sym->index;
        return true;
    }
    spec_error(c->s, DIRAC_ERR_PARSE, loc, "invalid name '%s'", shown);
    return false;
}

// --- expressions ---------------------------------------------------------------------------

// describes the state dependence of leaf n ("coordinate 'x'", "the velocity x'", ...), with
// its place when it is in another file (through a component's let)
static void describe_state(const resolve_ctx *c, const spec_expr_node *n, char *buf,
                           size_t size)
{
    char shown[160];
    const char *name;
    int kind;
    bool velocity;
    if (n->kind == SPEC_EXPR_SUBSCRIPT) {
        pattern_display(n->u.sub.name, shown, sizeof shown);
        name = shown;
        kind = SPEC_SUBSCRIPT_KIND(n->op);
        velocity = SPEC_SUBSCRIPT_PRIMES(n->op) != 0;
    } else {
        name = n->u.sym.name;
        kind = n->u.sym.ref.kind == SPEC_SYM_QUALIFIED ? n->u.sym.ref.member : n->u.sym.ref.kind;
        velocity = n->kind == SPEC_EXPR_PRIME;
    }
    char what[128];
    if (velocity)
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

static void check_use(resolve_ctx *c, const spec_expr_node *n, const char *name, int kind,
                      bool velocity, const spec_let *let, int *degree);

// An acceleration `x''` (a node with two primes) is a result of the simulation like `mu.C`:
// only outputs may use it. False after reporting the error.
static bool acceleration_allowed(resolve_ctx *c, const spec_expr_node *n, const char *shown)
{
    if (c->output)
        return true;
    spec_error(c->s, DIRAC_ERR_PARSE, n->loc, "the acceleration %s'' can be used only in "
               "outputs (it is a result of the simulation, like mu.C)", shown);
    return false;
}

// ... and only of a coordinate (kind SPEC_SYM_NONE: in a component not loaded yet).
static bool acceleration_of_coordinate(resolve_ctx *c, const spec_expr_node *n,
                                       const char *shown, int kind)
{
    if (kind == SPEC_SYM_COORDINATE || kind == SPEC_SYM_NONE)
        return true;
    spec_error(c->s, DIRAC_ERR_PARSE, n->loc, "'%s' is %s; only coordinates have "
               "accelerations (%s'')", shown, spec_sym_kind_phrase((spec_sym_kind)kind), shown);
    return false;
}

// one name or prime node
static void resolve_leaf(resolve_ctx *c, spec_expr_node *n, int *degree)
{
    const char *name = n->u.sym.name;
    spec_ref ref = { SPEC_SYM_NONE, SPEC_SYM_NONE, 0 };
    const spec_model *owner = NULL;
    int32_t owner_index = 0;
    *degree = n->kind == SPEC_EXPR_PRIME ? 1 : 0;
    if (n->kind == SPEC_EXPR_PRIME && n->op == 2 && !acceleration_allowed(c, n, name)) {
        fail(c);
        return;
    }
    int derived = c->output && n->kind == SPEC_EXPR_NAME ? derived_name(c, name, n->loc, &ref) : 0;
    if (derived < 0) {
        fail(c);
        return;
    }
    if (derived) {
        n->u.sym.ref = ref;
        return;
    }
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
            if (c->pos_block && n->u.sym.ref.kind != SPEC_SYM_NONE) {
                ref = n->u.sym.ref;   // bound by spec_expand
                sym = preset_symbol(c, &ref);
            } else if (!resolve_plain(c, name, n->loc, &ref, &sym)) {
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
    if (c->index && ref.kind == SPEC_SYM_QUALIFIED) {
        spec_error(c->s, DIRAC_ERR_PARSE, n->loc, "%s cannot use '%s', a member of a component",
                   c->what, name);
        fail(c);
        return;
    }
    if (n->kind == SPEC_EXPR_PRIME && n->op == 2 && !acceleration_of_coordinate(c, n, name, kind)) {
        fail(c);
        return;
    }
    check_use(c, n, name, kind, n->kind == SPEC_EXPR_PRIME, node_let(c, n, owner, owner_index),
              degree);
}

// The first segment of the pattern `rest` (after `mu.`, `p.`, `T.`) names a component of
// the model with as many indices as written; false after reporting an error.
static bool derived_component_pattern(resolve_ctx *c, const spec_expr_node *n, const char *rest,
                                      const char *shown)
{
    const char *q = rest, *seg;
    size_t len;
    int dims;
    if (!spec_pattern_segment(&q, &seg, &len, &dims)) {
        spec_error(c->s, DIRAC_ERR_PARSE, n->loc, "invalid name '%s'", shown);
        return false;
    }
    const spec_symbol *sym = spec_names_find(c->m->names, seg, len);
    if (sym && sym->kind == SPEC_SYM_COMPONENT && sym->dims == dims)
        return true;
    if (sym && sym->kind == SPEC_SYM_COMPONENT)
        spec_error(c->s, DIRAC_ERR_PARSE, n->loc, "'%.*s' has %d ind%s, not %d", (int)len, seg,
                   sym->dims, sym->dims == 1 ? "ex" : "ices", dims);
    else
        spec_error(c->s, DIRAC_ERR_PARSE, n->loc, "'%s': model '%s' has no component '%.*s'",
                   shown, c->m->name, (int)len, seg);
    return false;
}

// An element of an indexed family in an `output` named like its CSV column: `mu.link[i]`,
// `p.x[i]`, `T.S[i]` (derived_name's prefixes, unless the prefix is one of the model's
// names). The derived kind goes into the node's op like a subscript's kind; expansion turns
// the node into the element's name (spec_expand.c). 1 when it is one, 0 when it is not, -1
// after an error.
static int derived_subscript(resolve_ctx *c, spec_expr_node *n)
{
    const char *name = n->u.sub.name;
    for (size_t k = 0; k < sizeof derived_prefixes / sizeof derived_prefixes[0]; k++) {
        size_t len = strlen(derived_prefixes[k].prefix);
        if (strncmp(name, derived_prefixes[k].prefix, len) != 0 ||
            prefix_is_component(c, name, len - 1))
            continue;
        char shown[160];
        pattern_display(name, shown, sizeof shown);
        const char *rest = name + len;
        if (SPEC_SUBSCRIPT_PRIMES(n->op)) {
            spec_error(c->s, DIRAC_ERR_PARSE, n->loc, "'%s' has no time derivative", shown);
            return -1;
        }
        if (strchr(rest, '.')) {
            // inside a component (`p.cell[i].q`, `mu.rotor.C[i, j]`): the components on the
            // way are followed when the expansion names the element, which then resolves as
            // a name (derived_member)
            if (!derived_component_pattern(c, n, rest, shown))
                return -1;
            n->op = SPEC_SUBSCRIPT_OP(0, derived_prefixes[k].kind);
            return 1;
        }
        const char *q = rest, *seg;
        size_t seg_len;
        int dims;
        const spec_symbol *sym = spec_pattern_segment(&q, &seg, &seg_len, &dims)
                                     ? spec_names_find(c->m->names, seg, seg_len) : NULL;
        if (!sym || sym->kind != derived_prefixes[k].want || sym->dims == 0) {
            spec_error(c->s, DIRAC_ERR_PARSE, n->loc, "'%s': model '%s' has no indexed %s "
                       "'%.*s'", shown, c->m->name, derived_prefixes[k].what, (int)seg_len, seg);
            return -1;
        }
        if (sym->dims != dims) {
            spec_error(c->s, DIRAC_ERR_PARSE, n->loc, "'%.*s' has %d ind%s, not %d", (int)seg_len,
                       seg, sym->dims, sym->dims == 1 ? "ex" : "ices", dims);
            return -1;
        }
        n->op = SPEC_SUBSCRIPT_OP(0, derived_prefixes[k].kind);
        return 1;
    }
    return 0;
}

// A subscripted name `x[i-1]`, `x[i]'`, `cell[i].q`: its pattern resolves, its kind is kept in
// the node's op (bits 1..; bit 0 is the velocity flag).
static void resolve_subscript(resolve_ctx *c, spec_expr_node *n, int *degree)
{
    char shown[160];
    pattern_display(n->u.sub.name, shown, sizeof shown);
    int primes = SPEC_SUBSCRIPT_PRIMES(n->op);
    bool velocity = primes != 0;
    *degree = velocity;
    if (primes == 2 && !acceleration_allowed(c, n, shown)) {
        fail(c);
        return;
    }
    int derived_kind = c->output ? derived_subscript(c, n) : 0;
    if (derived_kind) {
        if (derived_kind < 0)
            fail(c);
        return;
    }
    if (c->index && strchr(n->u.sub.name, '.')) {
        spec_error(c->s, DIRAC_ERR_PARSE, n->loc, "%s cannot use '%s', a member of a component",
                   c->what, shown);
        fail(c);
        return;
    }
    int kind;
    const spec_model *owner;
    int32_t owner_index = 0;
    const spec_symbol *first;
    if (!resolve_pattern(c, n->u.sub.name, n->loc, &kind, &owner, &owner_index, &first)) {
        fail(c);
        return;
    }
    if (primes == 2 && !acceleration_of_coordinate(c, n, shown, kind)) {
        fail(c);
        return;
    }
    n->op = SPEC_SUBSCRIPT_OP(primes, kind);
    if (c->pass == 1 && !strchr(n->u.sub.name, '.') && first->seq >= c->seq &&
        !(c->constant && (kind == SPEC_SYM_COORDINATE || kind == SPEC_SYM_ENTROPY))) {
        if (c->own && strcmp(c->own, first->name) == 0)
            spec_error(c->s, DIRAC_ERR_PARSE, n->loc, "'%s' is used in its own definition",
                       first->name);
        else
            spec_error(c->s, DIRAC_ERR_PARSE, n->loc, "'%s' is used before its definition on "
                       "line %d", first->name, first->loc.line);
        fail(c);
        return;
    }
    const spec_let *let = kind == SPEC_SYM_LET && owner ? &owner->lets[owner_index] : NULL;
    check_use(c, n, shown, kind, velocity, let, degree);
}

// What a name of kind `kind` brings: a velocity only of a coordinate, dependence on the state,
// velocities where they are not allowed.
static void check_use(resolve_ctx *c, const spec_expr_node *n, const char *name, int kind,
                      bool velocity, const spec_let *let, int *degree)
{
    if (velocity && kind != SPEC_SYM_COORDINATE && kind != SPEC_SYM_NONE) {
        spec_error(c->s, DIRAC_ERR_PARSE, n->loc,
                   "'%s' is %s; only coordinates have velocities (%s')", name,
                   spec_sym_kind_phrase((spec_sym_kind)kind), name);
        fail(c);
        return;
    }
    // dependence on the state
    const spec_expr_node *state = NULL;
    if (velocity || kind == SPEC_SYM_COORDINATE || kind == SPEC_SYM_ENTROPY ||
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
        if (velocity)
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

static void check_binder(resolve_ctx *c, const char *binder, spec_loc loc);

// Indices of subscripts and bounds of sums are constant sub-expressions: *mark (NULL when e
// has neither) holds 1 for a node of an index, 2 for a node of a range bound, marked parents
// before children. False when out of memory.
static bool mark_constant_parts(resolve_ctx *c, const spec_expr *e, uint8_t **mark_out)
{
    uint8_t *mark = NULL;
    *mark_out = NULL;
    for (int32_t i = 0; i < e->count && !mark; i++)
        if (e->nodes[i].kind == SPEC_EXPR_SUBSCRIPT || e->nodes[i].kind == SPEC_EXPR_SUM) {
            mark = mem_alloc(&c->s->mem, (size_t)e->count);
            if (!mark) {
                spec_out_of_memory(c->s);
                fail(c);
                return false;
            }
            memset(mark, 0, (size_t)e->count);
        }
    for (int32_t i = e->count - 1; mark && i >= 0; i--) {
        const spec_expr_node *n = &e->nodes[i];
        uint8_t m = mark[i];
        switch (n->kind) {
        case SPEC_EXPR_SUBSCRIPT:
            for (int k = 0; k < n->argc; k++)
                mark[n->u.sub.args[k] - e->nodes] = m ? m : 1;
            break;
        case SPEC_EXPR_RANGE:
            mark[n->u.range.lo] = mark[n->u.range.hi] = m ? m : 2;
            break;
        case SPEC_EXPR_SUM:
            mark[n->u.arg[0] - e->nodes] = m ? m : 2;
            mark[n->u.arg[1] - e->nodes] = m;
            break;
        case SPEC_EXPR_UNARY: case SPEC_EXPR_BINARY: case SPEC_EXPR_CALL:
            for (int k = 0; k < (n->kind == SPEC_EXPR_BINARY ? 2 : n->kind == SPEC_EXPR_CALL
                                                                     ? n->argc : 1); k++)
                mark[n->u.arg[k] - e->nodes] = m;
            break;
        default:
            break;
        }
    }
    *mark_out = mark;
    return true;
}

// degree in the velocities of the binary operator n whose operands have degrees a and b
// (0 constant, 1 linear, 2 nonlinear); *reason says why it became nonlinear here
static int binary_degree(const spec_expr_node *n, int a, int b, const char **reason)
{
    const spec_expr_node *x = n->u.arg[1];
    switch (n->op) {
    case SPEC_OP_ADD: case SPEC_OP_SUB:
        return a > b ? a : b;
    case SPEC_OP_MUL:
        if (a + b >= 2 && a < 2 && b < 2)
            *reason = "it multiplies velocities";
        return a + b > 2 ? 2 : a + b;
    case SPEC_OP_DIV:
        if (b > 0 && a < 2 && b < 2)
            *reason = "it divides by a velocity";
        return b > 0 ? 2 : a;
    default:   // ^
        if (b > 0) {
            *reason = b < 2 ? "a velocity appears in an exponent" : NULL;
            return 2;
        }
        if (a == 0 || (x->kind == SPEC_EXPR_NUMBER && x->u.number == 0.0))
            return 0;
        if (x->kind == SPEC_EXPR_NUMBER && x->u.number == 1.0)
            return a;
        *reason = a < 2 ? "it raises a velocity to a power" : NULL;
        return 2;
    }
}

// resolves node n of e (its children done, their degrees in deg[]) and returns its degree;
// false in *go_on when the error limit is reached
static int resolve_node(resolve_ctx *c, const spec_expr *e, spec_expr_node *n,
                        const uint8_t *deg, const char **reason, bool *go_on)
{
    int d = 0;
    switch (n->kind) {
    case SPEC_EXPR_NAME:
    case SPEC_EXPR_PRIME:
    case SPEC_EXPR_SUBSCRIPT:
        if (n->kind == SPEC_EXPR_SUBSCRIPT)
            resolve_subscript(c, n, &d);
        else
            resolve_leaf(c, n, &d);
        *go_on = !diag_full(&c->s->diag);
        if (d == 2)
            *reason = "it uses a let that is not linear in the velocities";
        return d;
    case SPEC_EXPR_RANGE:
        if (c->pass == 1)
            check_binder(c, n->u.range.binder, n->loc);
        return 0;
    case SPEC_EXPR_SUM:
        if (c->index) {
            spec_error(c->s, DIRAC_ERR_PARSE, n->loc, "sum(...) cannot be used in %s", c->what);
            fail(c);
        }
        return deg[n->u.arg[1] - e->nodes];
    case SPEC_EXPR_UNARY:
        return deg[n->u.arg[0] - e->nodes];
    case SPEC_EXPR_BINARY:
        return binary_degree(n, deg[n->u.arg[0] - e->nodes], deg[n->u.arg[1] - e->nodes],
                             reason);
    case SPEC_EXPR_CALL: {
        int a = deg[n->u.arg[0] - e->nodes];
        int b = n->argc > 1 ? deg[n->u.arg[1] - e->nodes] : 0;
        if ((a > 0 || b > 0) && a < 2 && b < 2)
            *reason = "a velocity appears inside a function";
        return a > 0 || b > 0 ? 2 : 0;
    }
    default:   // numbers, indices
        return 0;
    }
}

// resolves every name of e and computes its degree in the velocities
static degree_result resolve_expr(resolve_ctx *c, spec_expr *e)
{
    degree_result r = { 0, NULL, NULL };
    if (e->count == 0)
        return r;
    uint8_t small[256];
    uint8_t *deg = small, *mark = NULL;
    if ((size_t)e->count > sizeof small) {
        deg = mem_alloc(&c->s->mem, (size_t)e->count);
        if (!deg) {
            spec_out_of_memory(c->s);
            fail(c);
            return r;
        }
    }
    bool constant = c->constant, index = c->index, go_on = true;
    const char *what = c->what;
    if (mark_constant_parts(c, e, &mark)) {
        for (int32_t i = 0; go_on && i < e->count; i++) {
            spec_expr_node *n = &e->nodes[i];
            const char *reason = NULL;
            if (mark && mark[i] && !index) {
                c->constant = c->index = true;
                c->what = mark[i] == 1 ? "an index" : "a range bound";
            } else {
                c->constant = constant;
                c->index = index;
                c->what = what;
            }
            deg[i] = (uint8_t)resolve_node(c, e, n, deg, &reason, &go_on);
            if (go_on && reason && !r.culprit) {
                r.culprit = n;
                r.reason = reason;
            }
        }
        if (go_on)
            r.degree = deg[e->count - 1];
    }
    c->constant = constant;
    c->index = index;
    c->what = what;
    if (deg != small)
        mem_free(&c->s->mem, deg);
    mem_free(&c->s->mem, mark);
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
    c->index = false;
    c->what = what;
    c->state_use = NULL;
}

// an index name must not be a name of the model too
static void check_binder(resolve_ctx *c, const char *binder, spec_loc loc)
{
    if (!binder)
        return;
    const spec_symbol *sym = spec_names_find(c->m->names, binder, strlen(binder));
    if (sym) {
        spec_error(c->s, DIRAC_ERR_PARSE, loc, "index '%s' has the same name as %s; rename one "
                   "of them", binder, spec_sym_kind_phrase((spec_sym_kind)sym->kind));
        fail(c);
    }
}

// does e use an index (of an enclosing range)?
static const spec_expr_node *uses_index(const spec_expr *e)
{
    for (int32_t i = 0; i < e->count; i++)
        if (e->nodes[i].kind == SPEC_EXPR_INDEX)
            return &e->nodes[i];
    return NULL;
}

// The index list of a statement's name: bounds and indices are constant; `rectangular` (the
// families of values and components) forbids bounds that use the indices before them; `seq`
// and `own` as for the definition's value.
static void resolve_items(resolve_ctx *c, spec_index *items, int count, bool rectangular,
                          int32_t seq, const char *own, const char *name)
{
    for (int k = 0; k < count; k++) {
        spec_index *it = &items[k];
        if (c->pass == 1)
            check_binder(c, it->binder, it->loc);
        begin(c, seq, own, true, it->range ? "a range bound" : "an index");
        c->index = true;
        if (it->range && it->lo.count > 0)
            resolve_expr(c, &it->lo);
        resolve_expr(c, &it->hi);
        if (rectangular && c->pass == 1) {
            const spec_expr_node *n = uses_index(&it->lo);
            if (!n)
                n = uses_index(&it->hi);
            if (n) {
                spec_error(c->s, DIRAC_ERR_PARSE, n->loc, "the ranges of '%s' cannot depend on "
                           "the index '%s' (a family of values has a fixed size)", name,
                           n->u.sym.name);
                fail(c);
            }
        }
        if (diag_full(&c->s->diag))
            return;
    }
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
    if (r->index_count > 0) {
        int errors = c->s->diag.errors;
        resolve_items(c, r->index, r->index_count, false, INT32_MAX, NULL, r->name);
        if (c->s->diag.errors > errors)
            return false;
        const spec_model *owner;
        int32_t index = 0;
        const spec_symbol *first;
        if (!resolve_pattern(c, r->name, r->loc, &kind, &owner, &index, &first))
            return false;
        if (kind == SPEC_SYM_NONE)
            return true;   // inside a component not loaded (yet)
        r->ref.kind = SPEC_SYM_NONE;   // a pattern: spec_expand makes the names
    } else if (strchr(r->name, '.')) {
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
        const spec_symbol *sym = c->pos_block && r->ref.kind != SPEC_SYM_NONE
                                     ? preset_symbol(c, &r->ref)
                                     : spec_names_find(c->m->names, r->name, strlen(r->name));
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
        if (sym->dims > 0 && (want & (1u << sym->kind))) {
            spec_error(c->s, DIRAC_ERR_PARSE, r->loc, "'%s' is indexed: write %s[INDEX] or "
                       "%s[i = LO..HI]", r->name, r->name, r->name);
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
            resolve_items(c, par->index, par->index_count, true, sym->seq, par->name, par->name);
            snprintf(what, sizeof what, "parameter '%s'", par->name);
            begin(c, sym->seq, par->name, true, what);
            resolve_expr(c, &par->value);
        } else if (sym->kind == SPEC_SYM_LET) {
            spec_let *let = &m->lets[sym->index];
            resolve_items(c, let->index, let->index_count, true, sym->seq, let->name, let->name);
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
    resolve_items(c, k->index, k->index_count, false, INT32_MAX, NULL, k->name);
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
    // own variables by index: the initial value that set q, q' (coordinates) or S first
    size_t slots = 2 * (size_t)m->coord_count + (size_t)m->entropy_count + 1;
    int32_t *first_of = c->pass == 1 ? mem_alloc(&c->s->mem, slots * sizeof *first_of)
                                     : NULL;
    if (c->pass == 1 && (!seen || !first_of)) {
        spec_names_destroy(&c->s->mem, seen);
        mem_free(&c->s->mem, first_of);
        spec_out_of_memory(c->s);
        return;
    }
    for (size_t k = 0; first_of && k < slots; k++)
        first_of[k] = -1;
    for (int i = 0; i < m->initial_count; i++) {
        spec_initial *in = &m->initials[i];
        unsigned want = in->velocity ? WANT_COORDINATE : WANT_COORDINATE | WANT_ENTROPY;
        int kind = in->var.ref.kind;
        if (!resolve_target(c, &in->var, want, "initial value for")) {
            fail(c);
        } else if (seen && in->var.index_count == 0 &&
                   ((kind = in->var.ref.kind) == SPEC_SYM_COORDINATE ||
                    kind == SPEC_SYM_ENTROPY)) {
            size_t slot = kind == SPEC_SYM_ENTROPY
                              ? 2 * (size_t)m->coord_count + (size_t)in->var.ref.index
                              : 2 * (size_t)in->var.ref.index + in->velocity;
            if (first_of[slot] >= 0) {
                const spec_initial *old = &m->initials[first_of[slot]];
                spec_error(c->s, DIRAC_ERR_PARSE, in->var.loc, "duplicate initial value for "
                           "%s%s", in->var.name, in->velocity ? "'" : "");
                spec_note(c->s, old->var.loc, "first given here, on line %d", old->var.loc.line);
                fail(c);
            } else {
                first_of[slot] = i;
            }
        } else if (seen && in->var.index_count == 0) {
            size_t len = strlen(in->var.name);
            char *key = mem_arena_alloc(&c->s->arena, len + 2);
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
                spec_symbol sym = { key, in->var.loc, SPEC_SYM_NONE, i, i, 0 };
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
    mem_free(&c->s->mem, first_of);
}

static void resolve_statements(resolve_ctx *c)
{
    spec_model *m = c->m;
    char what[200];
    resolve_definitions(c);
    for (int i = 0; i < m->coord_count && !diag_full(&c->s->diag); i++)
        resolve_items(c, m->coords[i].index, m->coords[i].index_count, true, INT32_MAX, NULL,
                      m->coords[i].name);
    for (int i = 0; i < m->entropy_count && !diag_full(&c->s->diag); i++)
        resolve_items(c, m->entropies[i].index, m->entropies[i].index_count, true, INT32_MAX,
                      NULL, m->entropies[i].name);
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
    for (int i = 0; i < m->output_count && !diag_full(&c->s->diag); i++) {
        resolve_items(c, m->outputs[i].index, m->outputs[i].index_count, false, INT32_MAX, NULL,
                      m->outputs[i].name);
        c->output = true;
        any_expr(c, &m->outputs[i].value);
        c->output = false;
    }
    for (int i = 0; i < m->component_count && !diag_full(&c->s->diag); i++) {
        spec_component *comp = &m->components[i];
        resolve_items(c, comp->index, comp->index_count, true, INT32_MAX, NULL, comp->name);
        for (int j = 0; j < comp->arg_count; j++) {
            snprintf(what, sizeof what, "parameter '%s' of component '%s'", comp->args[j].name,
                     comp->name);
            constant_expr(c, &comp->args[j].value, what);
        }
    }
    for (int i = 0; i < m->twoform_count && !diag_full(&c->s->diag); i++) {
        spec_twoform *tf = &m->twoforms[i];
        resolve_items(c, tf->index, tf->index_count, false, INT32_MAX, NULL, tf->name);
        for (int j = 0; j < tf->term_count; j++) {
            spec_wedge *w = &tf->terms[j];
            bool a = resolve_target(c, &w->a, WANT_COORDINATE, "d() of");
            bool b = resolve_target(c, &w->b, WANT_COORDINATE, "d() of");
            if (!a || !b)
                fail(c);
            else if (c->pass == 1 && w->a.index_count == 0 && strcmp(w->a.name, w->b.name) == 0) {
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
        else if (c->pass == 1 && h->a.index_count == 0 && strcmp(h->a.name, h->b.name) == 0) {
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
    if (m->expansion) {
        // positions in the name table of the definitions (references are bound already)
        const int counts[] = { m->param_count, m->coord_count, m->let_count, m->entropy_count,
                               m->component_count, m->constraint_count, m->twoform_count,
                               m->output_count };
        const int kinds[] = { SPEC_SYM_PARAMETER, SPEC_SYM_COORDINATE, SPEC_SYM_LET,
                              SPEC_SYM_ENTROPY, SPEC_SYM_COMPONENT, SPEC_SYM_CONSTRAINT,
                              SPEC_SYM_TWOFORM, SPEC_SYM_OUTPUT };
        size_t total = 1;
        for (int k = 0; k < 8; k++)
            total += (size_t)counts[k];
        c.pos_block = mem_alloc(&s->mem, total * sizeof *c.pos_block);
        if (!c.pos_block) {
            spec_out_of_memory(s);
            m->failed = true;
            return;
        }
        size_t at = 0;
        for (int k = 0; k < 8; k++) {
            c.pos[kinds[k]] = c.pos_block + at;
            at += (size_t)counts[k];
        }
        for (int i = 0; i < m->names->count; i++) {
            const spec_symbol *sym = &m->names->items[i];
            if (c.pos[sym->kind])
                c.pos[sym->kind][sym->index] = i;
        }
    }
    resolve_statements(&c);
    mem_free(&s->mem, c.pos_block);
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
            if (sym && sym->kind == SPEC_SYM_PARAMETER && sym->dims == 0)
                continue;
            if (sym && sym->kind == SPEC_SYM_PARAMETER)
                spec_error(s, DIRAC_ERR_PARSE, a->loc, "parameter '%s' of model '%s' is indexed "
                           "and cannot be set by an argument", a->name, child->name);
            else if (sym)
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
