// Statements of the model language: one per line (continued inside parentheses or after an
// operator or comma), each starting with its keyword. Names are entered in the model's name
// table as they are defined, so duplicates are reported in source order.
#include "parse.h"

#include <stdio.h>
#include <string.h>

// --- helpers -------------------------------------------------------------------------------

static bool out_of_memory(parse_state *p)
{
    spec_out_of_memory(p->s);
    return false;
}

static bool token_is(const parse_token *t, const char *word)
{
    return t->kind == TOK_NAME && !t->primes && t->len == strlen(word) &&
           memcmp(t->text, word, t->len) == 0;
}

static bool is_d(const parse_token *t)
{
    return t->kind == TOK_NAME && !t->primes && t->len == 1 && t->text[0] == 'd';
}

// "'x'" or "end of line" for messages
static const char *describe(const parse_token *t, char *buf, size_t size)
{
    lex_describe(t, buf, size);
    return buf;
}

static char *copy_token(parse_state *p, const parse_token *t)
{
    char *s = mem_arena_strndup(&p->s->arena, t->text, t->len);
    if (!s)
        out_of_memory(p);
    return s;
}

// a name being defined: plain (unqualified, no prime), not reserved
static bool definition_name(parse_state *p, const char *what, const char **name, spec_loc *loc)
{
    const parse_token *t = lex_peek(&p->lex, 0);
    char buf[96];
    if (t->kind != TOK_NAME)
        return parse_error_at(p, t, "expected the name of the %s, found %s", what,
                              describe(t, buf, sizeof buf));
    if (t->qualified)
        return parse_error_at(p, t, "the name of a %s cannot contain '.' ('%.*s')", what,
                              (int)t->len, t->text);
    if (t->primes)
        return parse_error_at(p, t, "the name of a %s cannot have a prime ('%.*s'')", what,
                              (int)t->len, t->text);
    char why[96];
    if (parse_reserved_name(t->text, t->len, why, sizeof why))
        return parse_error_at(p, t, "%s and cannot be defined", why);
    *loc = parse_loc(p, t);
    *name = copy_token(p, t);
    if (!*name)
        return false;
    lex_next(&p->lex);
    return true;
}

// enters a definition in the name table (dims: the indices of a family); reports a duplicate
static bool define(parse_state *p, const char *name, spec_loc loc, spec_sym_kind kind,
                   int index, int dims)
{
    const spec_symbol *old = spec_names_find(p->m->names, name, strlen(name));
    if (old) {
        spec_error(p->s, DIRAC_ERR_PARSE, loc, "duplicate definition of '%s'", name);
        spec_note(p->s, old->loc, "'%s' was first defined here, on line %d, as %s", name,
                  old->loc.line, spec_sym_kind_phrase((spec_sym_kind)old->kind));
        return false;
    }
    spec_symbol sym = { name, loc, (uint8_t)kind, index, ++p->seq, (uint8_t)dims };
    if (!spec_names_add(&p->s->mem, p->m->names, &sym))
        return out_of_memory(p);
    return true;
}

static bool expect(parse_state *p, parse_tok kind, const char *format, const char *arg)
{
    const parse_token *t = lex_peek(&p->lex, 0);
    if (t->kind == kind) {
        lex_next(&p->lex);
        return true;
    }
    char msg[256], buf[96];
    snprintf(msg, sizeof msg, format, arg);
    return parse_error_at(p, t, "%s, found %s", msg, describe(t, buf, sizeof buf));
}

// the items of `[...]` up to (not including) ']': in a definition every item is a range
// (`i = A..B`, `A..B`, or `B` meaning 1..B); in a reference an item is a range or an index
// expression. Ranges put their index in scope. Items are appended to items[*count].
static bool index_items(parse_state *p, bool definition, bool ranges, spec_index *items,
                        int *count)
{
    for (;;) {
        const parse_token *t = lex_peek(&p->lex, 0);
        if (*count >= SPEC_INDEX_MAX)
            return parse_error_at(p, t, "too many indices (limit %d)", SPEC_INDEX_MAX);
        spec_index it;
        memset(&it, 0, sizeof it);
        it.slot = -1;
        it.loc = parse_loc(p, t);
        parse_token binder = *t;
        bool named = t->kind == TOK_NAME && !t->primes && !t->qualified &&
                     lex_peek(&p->lex, 1)->kind == TOK_EQUALS;
        if (named) {
            if (!ranges)
                return parse_error_at(p, t, "an index range is not allowed here (write an "
                                            "index, as in x[i+1])");
            it.binder = copy_token(p, t);
            if (!it.binder)
                return false;
            lex_next(&p->lex);
            lex_next(&p->lex);
            if (!parse_expr(p, 0, &it.lo) ||
                !expect(p, TOK_DOTDOT, "expected '..' in the index range (%s = LO..HI)",
                        it.binder))
                return false;
            it.hi_loc = parse_loc(p, lex_peek(&p->lex, 0));
            if (!parse_expr(p, 0, &it.hi))
                return false;
            it.range = true;
        } else {
            spec_expr e;
            if (!parse_expr(p, 0, &e))
                return false;
            if (lex_peek(&p->lex, 0)->kind == TOK_DOTDOT) {
                if (!ranges)
                    return parse_error_at(p, lex_peek(&p->lex, 0), "an index range is not "
                                          "allowed here (write an index, as in x[i+1])");
                lex_next(&p->lex);
                it.lo = e;
                it.hi_loc = parse_loc(p, lex_peek(&p->lex, 0));
                if (!parse_expr(p, 0, &it.hi))
                    return false;
                it.range = true;
            } else {
                it.hi = e;
                it.hi_loc = it.loc;
                it.range = definition;
            }
        }
        if (it.range) {
            if (!parse_bind(p, &binder, it.binder))
                return false;
            it.slot = p->binder_count - 1;
        }
        items[(*count)++] = it;
        if (lex_peek(&p->lex, 0)->kind != TOK_COMMA)
            return true;
        lex_next(&p->lex);
    }
}

// the ']' closing index items
static bool close_items(parse_state *p, spec_loc open)
{
    const parse_token *t = lex_peek(&p->lex, 0);
    if (t->kind == TOK_RBRACKET)
        return true;
    char buf[96];
    if (t->kind == TOK_EOF || t->kind == TOK_NEWLINE) {
        spec_error(p->s, DIRAC_ERR_PARSE, open, "unbalanced brackets: '[' is not closed");
        return false;
    }
    return parse_error_at(p, t, "expected ',' or ']' after an index, found %s",
                          describe(t, buf, sizeof buf));
}

// copies index items into the arena
static bool keep_items(parse_state *p, const spec_index *items, int count, spec_index **out)
{
    *out = NULL;
    if (count == 0)
        return true;
    *out = mem_arena_alloc(&p->s->arena, (size_t)count * sizeof **out);
    if (!*out)
        return out_of_memory(p);
    memcpy(*out, items, (size_t)count * sizeof **out);
    return true;
}

// the optional `[RANGES]` after the name of a definition (a family)
static bool definition_indices(parse_state *p, const char *what, spec_index **index, int *count)
{
    *index = NULL;
    *count = 0;
    const parse_token *t = lex_peek(&p->lex, 0);
    if (t->kind != TOK_LBRACKET)
        return true;
    spec_loc open = parse_loc(p, t);
    p->m->indexed = true;
    lex_next(&p->lex);
    spec_index items[SPEC_INDEX_MAX];
    int n = 0;
    for (;;) {   // x[N, M] or x[N][M]
        if (!index_items(p, true, true, items, &n) || !close_items(p, open))
            return false;
        t = lex_peek(&p->lex, 0);
        if (t->primes)
            return parse_error_at(p, t, "the name of a %s cannot have a prime", what);
        lex_next(&p->lex);
        if (lex_peek(&p->lex, 0)->kind != TOK_LBRACKET)
            break;
        open = parse_loc(p, lex_peek(&p->lex, 0));
        lex_next(&p->lex);
    }
    t = lex_peek(&p->lex, 0);
    if (t->kind == TOK_MEMBER)
        return parse_error_at(p, t, "the name of a %s cannot contain '.'", what);
    *count = n;
    return keep_items(p, items, n, index);
}

// a reference to something defined elsewhere (maybe qualified, maybe an element of a family:
// `x[i = 1..N]`, `cell[i].q`). `ranges`: index ranges are allowed; `velocity`: NULL when a
// prime is an error, else set when the name ends with one.
static bool reference_target(parse_state *p, const char *what, bool ranges, bool *velocity,
                             spec_name_ref *ref)
{
    const parse_token *t = lex_peek(&p->lex, 0);
    char buf[96];
    memset(ref, 0, sizeof *ref);
    if (velocity)
        *velocity = false;
    if (t->kind != TOK_NAME)
        return parse_error_at(p, t, "expected %s, found %s", what, describe(t, buf, sizeof buf));
    ref->loc = parse_loc(p, t);
    if (lex_peek(&p->lex, 1)->kind != TOK_LBRACKET || t->primes) {
        if (t->primes && !velocity)
            return parse_error_at(p, t, "expected %s, found the velocity '%.*s''", what,
                                  (int)t->len, t->text);
        if (t->primes > 1)
            return parse_error_at(p, t, "only first time derivatives (x') have initial values");
        if (velocity)
            *velocity = t->primes == 1;
        ref->name = copy_token(p, t);
        if (!ref->name)
            return false;
        lex_next(&p->lex);
        return true;
    }
    // NAME[...] (.NAME[...])* with the pattern "NAME[].NAME[]"
    p->m->indexed = true;
    spec_index items[SPEC_INDEX_MAX];
    int n = 0;
    char pattern[512];
    size_t len = 0;
    parse_token last = lex_next(&p->lex);   // the name
    for (;;) {
        if (len + last.len + SPEC_INDEX_MAX + 3 > sizeof pattern)
            return parse_error_at(p, &last, "name too long");
        memcpy(pattern + len, last.text, last.len);
        len += last.len;
        int before = n;
        do {   // x[i, j] or x[i][j]
            spec_loc open = parse_loc(p, lex_peek(&p->lex, 0));
            lex_next(&p->lex);   // '['
            if (!index_items(p, false, ranges, items, &n) || !close_items(p, open))
                return false;
            last = lex_next(&p->lex);   // ']'
        } while (!last.primes && lex_peek(&p->lex, 0)->kind == TOK_LBRACKET);
        pattern[len++] = '[';
        for (int k = before + 1; k < n; k++)
            pattern[len++] = ',';
        pattern[len++] = ']';
        if (last.primes || lex_peek(&p->lex, 0)->kind != TOK_MEMBER)
            break;
        last = lex_next(&p->lex);   // .NAME
        if (last.primes || lex_peek(&p->lex, 0)->kind != TOK_LBRACKET) {
            if (len + last.len >= sizeof pattern)
                return parse_error_at(p, &last, "name too long");
            memcpy(pattern + len, last.text, last.len);
            len += last.len;
            break;
        }
    }
    if (last.primes && !velocity)
        return parse_error_at(p, &last, "expected %s, found a velocity", what);
    if (last.primes > 1)
        return parse_error_at(p, &last, "only first time derivatives (x') have initial values");
    if (velocity)
        *velocity = last.primes == 1;
    ref->name = mem_arena_strndup(&p->s->arena, pattern, len);
    if (!ref->name)
        return out_of_memory(p);
    ref->index_count = n;
    return keep_items(p, items, n, &ref->index);
}

static bool reference_name(parse_state *p, const char *what, spec_name_ref *ref)
{
    return reference_target(p, what, true, NULL, ref);
}


// the end of a statement: end of line or of file
static bool end_statement(parse_state *p, const char *keyword, bool list)
{
    const parse_token *t = lex_peek(&p->lex, 0);
    if (t->kind == TOK_NEWLINE) {
        lex_next(&p->lex);
        return true;
    }
    if (t->kind == TOK_EOF)
        return true;
    char buf[96];
    if (t->kind == TOK_RPAREN)
        return parse_error_at(p, t, "unbalanced parentheses: unmatched ')'");
    if (list)
        return parse_error_at(p, t, "expected ',' or end of line, found %s",
                              describe(t, buf, sizeof buf));
    return parse_error_at(p, t, "unexpected %s after the %s statement",
                          describe(t, buf, sizeof buf), keyword);
}

// after an item of a comma list: true to go on with the next item
static bool list_next(parse_state *p)
{
    if (lex_peek(&p->lex, 0)->kind == TOK_COMMA) {
        lex_next(&p->lex);
        return true;
    }
    return false;
}

static bool expression(parse_state *p, spec_expr *out)
{
    return parse_expr(p, 0, out);
}

// --- statements ----------------------------------------------------------------------------

static bool stmt_model(parse_state *p, const parse_token *kw)
{
    if (p->m->name) {
        spec_error(p->s, DIRAC_ERR_PARSE, parse_loc(p, kw),
                   "only one model per file ('%s' was named on line %d)", p->m->name,
                   p->m->loc.line);
        return false;
    }
    if (!definition_name(p, "model", &p->m->name, &p->m->loc))
        return false;
    return end_statement(p, "model", false);
}

// NAME = EXPR {, NAME = EXPR}: parameters, lets, outputs
static bool stmt_assignments(parse_state *p, const char *keyword, spec_sym_kind kind)
{
    do {
        const char *name = NULL;
        spec_loc loc = { NULL, 0, 0 };
        spec_index *index = NULL;
        int index_count = 0;
        p->binder_count = 0;
        if (!definition_name(p, keyword, &name, &loc) ||
            !definition_indices(p, keyword, &index, &index_count))
            return false;
        if (!expect(p, TOK_EQUALS, "expected '=' after the name (%s NAME = EXPR)", keyword))
            return false;
        spec_expr value;
        if (!expression(p, &value))
            return false;
        spec_model *m = p->m;
        int at;
        if (kind == SPEC_SYM_PARAMETER) {
            spec_param *par = SPEC_MODEL_PUSH(p->s, m, params, param_count, PARAMS);
            if (!par)
                return out_of_memory(p);
            par->name = name;
            par->loc = loc;
            par->value = value;
            par->index = index;
            par->index_count = index_count;
            at = m->param_count - 1;
        } else if (kind == SPEC_SYM_LET) {
            spec_let *let = SPEC_MODEL_PUSH(p->s, m, lets, let_count, LETS);
            if (!let)
                return out_of_memory(p);
            let->name = name;
            let->loc = loc;
            let->value = value;
            let->index = index;
            let->index_count = index_count;
            at = m->let_count - 1;
        } else {
            spec_output *out = SPEC_MODEL_PUSH(p->s, m, outputs, output_count, OUTPUTS);
            if (!out)
                return out_of_memory(p);
            out->name = name;
            out->loc = loc;
            out->value = value;
            out->index = index;
            out->index_count = index_count;
            at = m->output_count - 1;
        }
        if (!define(p, name, loc, kind, at, index_count))
            return false;
    } while (list_next(p));
    return end_statement(p, keyword, true);
}

// NAME {, NAME}: coordinates, entropy variables
static bool stmt_variables(parse_state *p, const char *keyword, spec_sym_kind kind)
{
    do {
        const char *name = NULL;
        spec_loc loc = { NULL, 0, 0 };
        spec_index *index = NULL;
        int index_count = 0;
        const char *what = kind == SPEC_SYM_COORDINATE ? "coordinate" : "entropy variable";
        p->binder_count = 0;
        if (!definition_name(p, what, &name, &loc) ||
            !definition_indices(p, what, &index, &index_count))
            return false;
        spec_var *v = kind == SPEC_SYM_COORDINATE
                          ? SPEC_MODEL_PUSH(p->s, p->m, coords, coord_count, COORDS)
                          : SPEC_MODEL_PUSH(p->s, p->m, entropies, entropy_count, ENTROPIES);
        if (!v)
            return out_of_memory(p);
        v->name = name;
        v->loc = loc;
        v->index = index;
        v->index_count = index_count;
        int at = kind == SPEC_SYM_COORDINATE ? p->m->coord_count - 1 : p->m->entropy_count - 1;
        if (!define(p, name, loc, kind, at, index_count))
            return false;
    } while (list_next(p));
    return end_statement(p, keyword, true);
}

static bool stmt_lagrangian(parse_state *p, const parse_token *kw)
{
    spec_term *term = SPEC_MODEL_PUSH(p->s, p->m, lagrangian, lagrangian_count, LAGRANGIAN);
    if (!term)
        return out_of_memory(p);
    term->loc = parse_loc(p, kw);
    if (!expression(p, &term->value)) {
        p->m->lagrangian_count--;
        return false;
    }
    return end_statement(p, "lagrangian", false);
}

static bool stmt_constraint(parse_state *p, const parse_token *kw)
{
    (void)kw;
    const char *name = NULL;
    spec_loc loc = { NULL, 0, 0 };
    spec_index *index = NULL;
    int index_count = 0;
    if (!definition_name(p, "constraint", &name, &loc) ||
        !definition_indices(p, "constraint", &index, &index_count))
        return false;
    if (!expect(p, TOK_COLON, "expected ':' after the constraint name (%s NAME: EXPR = EXPR)",
                "constraint"))
        return false;
    spec_expr lhs, rhs = { NULL, 0 };
    if (!expression(p, &lhs))
        return false;
    bool has_rhs = false;
    if (lex_peek(&p->lex, 0)->kind == TOK_EQUALS) {
        lex_next(&p->lex);
        if (!expression(p, &rhs))
            return false;
        has_rhs = true;
    }
    spec_constraint *c = SPEC_MODEL_PUSH(p->s, p->m, constraints, constraint_count, CONSTRAINTS);
    if (!c)
        return out_of_memory(p);
    c->name = name;
    c->loc = loc;
    c->lhs = lhs;
    c->rhs = rhs;
    c->has_rhs = has_rhs;
    c->index = index;
    c->index_count = index_count;
    if (!define(p, name, loc, SPEC_SYM_CONSTRAINT, p->m->constraint_count - 1, index_count))
        return false;
    return end_statement(p, "constraint", false);
}

static bool stmt_force(parse_state *p, const parse_token *kw)
{
    spec_force f;
    memset(&f, 0, sizeof f);
    f.loc = parse_loc(p, kw);
    if (!reference_name(p, "the coordinate the force acts on", &f.coord))
        return false;
    if (!expect(p, TOK_COLON, "expected ':' after the coordinate (%s COORD: EXPR)", "force"))
        return false;
    if (!expression(p, &f.value))
        return false;
    spec_force *slot = SPEC_MODEL_PUSH(p->s, p->m, forces, force_count, FORCES);
    if (!slot)
        return out_of_memory(p);
    *slot = f;
    return end_statement(p, "force", false);
}

static bool stmt_initial(parse_state *p, const parse_token *kw)
{
    (void)kw;
    do {
        spec_initial in;
        memset(&in, 0, sizeof in);
        p->binder_count = 0;
        if (!reference_target(p, "a coordinate, velocity or entropy variable", true,
                              &in.velocity, &in.var))
            return false;
        if (!expect(p, TOK_EQUALS, "expected '=' after the name (%s NAME = EXPR)", "initial"))
            return false;
        if (!expression(p, &in.value))
            return false;
        const parse_token *word = lex_peek(&p->lex, 0);
        if (token_is(word, "fixed") || token_is(word, "guess")) {
            in.start = token_is(word, "fixed") ? SPEC_START_FIXED : SPEC_START_GUESS;
            lex_next(&p->lex);
        }
        spec_initial *slot = SPEC_MODEL_PUSH(p->s, p->m, initials, initial_count, INITIALS);
        if (!slot)
            return out_of_memory(p);
        *slot = in;
    } while (list_next(p));
    return end_statement(p, "initial", true);
}

static const char *const setting_keys[] = { "method", "dt", "t_end", "every", "tol",
                                            "max_iter" };
enum { SETTING_KEY_COUNT = sizeof setting_keys / sizeof setting_keys[0] };

static bool stmt_simulate(parse_state *p, const parse_token *kw)
{
    (void)kw;
    do {
        const parse_token *t = lex_peek(&p->lex, 0);
        char buf[96];
        if (t->kind != TOK_NAME)
            return parse_error_at(p, t, "expected a setting (method, dt, t_end, every, tol, "
                                        "max_iter), found %s", describe(t, buf, sizeof buf));
        int key = -1;
        for (int k = 0; k < SETTING_KEY_COUNT; k++)
            if (token_is(t, setting_keys[k]))
                key = k;
        if (key < 0) {
            char word[72];
            snprintf(word, sizeof word, "%.*s", t->len > 64 ? 64 : (int)t->len, t->text);
            diag_suggest sg;
            diag_suggest_init(&sg, word);
            for (int k = 0; k < SETTING_KEY_COUNT; k++)
                diag_suggest_add(&sg, setting_keys[k]);
            if (sg.best)
                return parse_error_at(p, t, "unknown simulate setting '%s'; did you mean '%s'?",
                                      word, sg.best);
            return parse_error_at(p, t, "unknown simulate setting '%s' (known: method, dt, "
                                        "t_end, every, tol, max_iter)", word);
        }
        spec_setting st;
        memset(&st, 0, sizeof st);
        st.key = setting_keys[key];
        st.loc = parse_loc(p, t);
        for (int i = 0; i < p->m->setting_count; i++)
            if (strcmp(p->m->settings[i].key, st.key) == 0) {
                spec_error(p->s, DIRAC_ERR_PARSE, st.loc, "duplicate simulate setting '%s'",
                           st.key);
                spec_note(p->s, p->m->settings[i].loc,
                          "'%s' was first set here, on line %d", st.key,
                          p->m->settings[i].loc.line);
                return false;
            }
        lex_next(&p->lex);
        if (!expect(p, TOK_EQUALS, "expected '=' after '%s'", st.key))
            return false;
        if (key == 0) {
            const parse_token *w = lex_peek(&p->lex, 0);
            if (w->kind != TOK_NAME || w->primes || w->qualified)
                return parse_error_at(p, w, "expected the name of an integration method, "
                                            "found %s", describe(w, buf, sizeof buf));
            st.word_loc = parse_loc(p, w);
            st.word = copy_token(p, w);
            if (!st.word)
                return false;
            lex_next(&p->lex);
        } else if (!expression(p, &st.value)) {
            return false;
        }
        spec_setting *slot = SPEC_MODEL_PUSH(p->s, p->m, settings, setting_count, SETTINGS);
        if (!slot)
            return out_of_memory(p);
        *slot = st;
    } while (list_next(p));
    return end_statement(p, "simulate", true);
}

static bool stmt_component(parse_state *p, const parse_token *kw)
{
    (void)kw;
    spec_component c;
    memset(&c, 0, sizeof c);
    if (!definition_name(p, "component", &c.name, &c.loc) ||
        !definition_indices(p, "component", &c.index, &c.index_count))
        return false;
    if (!expect(p, TOK_EQUALS, "expected '=' after the component name (%s NAME = MODEL(...))",
                "component"))
        return false;
    const parse_token *t = lex_peek(&p->lex, 0);
    char buf[96];
    if (t->kind != TOK_NAME || t->primes || t->qualified)
        return parse_error_at(p, t, "expected the name of the component's model, found %s",
                              describe(t, buf, sizeof buf));
    c.model_loc = parse_loc(p, t);
    c.model_name = copy_token(p, t);
    if (!c.model_name)
        return false;
    lex_next(&p->lex);
    // (NAME = EXPR, ...)
    spec_arg *args = NULL;
    int cap = 0;
    spec_names *seen = spec_names_create(&p->s->mem);   // argument names, for duplicates
    if (!seen)
        return out_of_memory(p);
    if (lex_peek(&p->lex, 0)->kind == TOK_LPAREN) {
        spec_loc paren = parse_loc(p, lex_peek(&p->lex, 0));
        lex_next(&p->lex);
        if (lex_peek(&p->lex, 0)->kind != TOK_RPAREN) {
            do {
                spec_arg a;
                memset(&a, 0, sizeof a);
                if (!definition_name(p, "component parameter", &a.name, &a.loc))
                    goto fail;
                const spec_symbol *first = spec_names_find(seen, a.name, strlen(a.name));
                if (first) {
                    spec_error(p->s, DIRAC_ERR_PARSE, a.loc, "parameter '%s' is set twice",
                               a.name);
                    spec_note(p->s, first->loc, "'%s' was first set here, on line %d", a.name,
                              first->loc.line);
                    goto fail;
                }
                spec_symbol sym = { a.name, a.loc, SPEC_SYM_PARAMETER, c.arg_count, 0, 0 };
                if (!spec_names_add(&p->s->mem, seen, &sym)) {
                    out_of_memory(p);
                    goto fail;
                }
                if (!expect(p, TOK_EQUALS, "expected '=' after the parameter name (%s)",
                            "MODEL(NAME = EXPR, ...)"))
                    goto fail;
                if (!expression(p, &a.value))
                    goto fail;
                spec_arg *slot = spec_push(p->s, &args, &c.arg_count, &cap, sizeof *args);
                if (!slot) {
                    out_of_memory(p);
                    goto fail;
                }
                *slot = a;
            } while (list_next(p));
        }
        t = lex_peek(&p->lex, 0);
        if (t->kind != TOK_RPAREN) {
            if (t->kind == TOK_EOF || t->kind == TOK_NEWLINE)
                spec_error(p->s, DIRAC_ERR_PARSE, paren,
                           "unbalanced parentheses: '(' is not closed");
            else
                parse_error_at(p, t, "expected ',' or ')' in the component's parameters, "
                                     "found %s", describe(t, buf, sizeof buf));
            goto fail;
        }
        lex_next(&p->lex);
    }
    // keep the arguments in the arena (the model's arrays are all of one kind)
    if (c.arg_count > 0) {
        c.args = mem_arena_alloc(&p->s->arena, (size_t)c.arg_count * sizeof *c.args);
        if (!c.args) {
            out_of_memory(p);
            goto fail;
        }
        memcpy(c.args, args, (size_t)c.arg_count * sizeof *c.args);
    }
    mem_free(&p->s->mem, args);
    spec_names_destroy(&p->s->mem, seen);
    args = NULL;
    seen = NULL;
    t = lex_peek(&p->lex, 0);
    if (token_is(t, "from")) {
        lex_next(&p->lex);
        t = lex_peek(&p->lex, 0);
        if (t->kind != TOK_STRING)
            return parse_error_at(p, t, "expected a file name in double quotes after 'from', "
                                        "found %s", describe(t, buf, sizeof buf));
        if (t->len == 0)
            return parse_error_at(p, t, "empty file name");
        c.file_loc = parse_loc(p, t);
        c.file = copy_token(p, t);
        if (!c.file)
            return false;
        lex_next(&p->lex);
    }
    spec_component *slot = SPEC_MODEL_PUSH(p->s, p->m, components, component_count, COMPONENTS);
    if (!slot)
        return out_of_memory(p);
    *slot = c;
    if (!define(p, c.name, c.loc, SPEC_SYM_COMPONENT, p->m->component_count - 1,
                c.index_count))
        return false;
    return end_statement(p, "component", false);
fail:
    mem_free(&p->s->mem, args);
    spec_names_destroy(&p->s->mem, seen);
    return false;
}

// d(NAME) of a two-form term
static bool differential(parse_state *p, spec_name_ref *ref)
{
    const parse_token *t = lex_peek(&p->lex, 0);
    char buf[96];
    if (!is_d(t) || lex_peek(&p->lex, 1)->kind != TOK_LPAREN)
        return parse_error_at(p, t, "expected d(COORDINATE), found %s",
                              describe(t, buf, sizeof buf));
    lex_next(&p->lex);
    lex_next(&p->lex);
    if (!reference_target(p, "a coordinate inside d(...)", false, NULL, ref))
        return false;
    return expect(p, TOK_RPAREN, "expected ')' after the coordinate in %s", "d(...)");
}

static bool stmt_twoform(parse_state *p, const parse_token *kw)
{
    (void)kw;
    spec_twoform tf;
    memset(&tf, 0, sizeof tf);
    if (!definition_name(p, "two-form", &tf.name, &tf.loc) ||
        !definition_indices(p, "two-form", &tf.index, &tf.index_count))
        return false;
    if (!expect(p, TOK_COLON, "expected ':' after the two-form name (%s NAME: EXPR * d(A) ^ "
                              "d(B) + ...)", "twoform"))
        return false;
    spec_wedge *terms = NULL;
    int cap = 0;
    int sign = 1;
    for (bool first = true;; first = false) {
        spec_wedge w;
        memset(&w, 0, sizeof w);
        w.sign = sign;
        const parse_token *t = lex_peek(&p->lex, 0);
        if (first && (t->kind == TOK_MINUS || t->kind == TOK_PLUS) &&
            is_d(lex_peek(&p->lex, 1)) && lex_peek(&p->lex, 2)->kind == TOK_LPAREN) {
            w.sign = t->kind == TOK_MINUS ? -1 : 1;
            lex_next(&p->lex);
            t = lex_peek(&p->lex, 0);
        }
        if (!(is_d(t) && lex_peek(&p->lex, 1)->kind == TOK_LPAREN)) {
            if (!parse_expr(p, PARSE_EXPR_COEFFICIENT, &w.coefficient))
                goto fail;
            if (!expect(p, TOK_STAR, "expected '* d(A) ^ d(B)' after the coefficient%s", ""))
                goto fail;
        }
        if (!differential(p, &w.a) ||
            !expect(p, TOK_CARET, "expected '^' between the differentials (d(A) ^ d(B))%s",
                    "") ||
            !differential(p, &w.b))
            goto fail;
        spec_wedge *slot = spec_push(p->s, &terms, &tf.term_count, &cap, sizeof *terms);
        if (!slot) {
            out_of_memory(p);
            goto fail;
        }
        *slot = w;
        t = lex_peek(&p->lex, 0);
        if (t->kind != TOK_PLUS && t->kind != TOK_MINUS)
            break;
        sign = t->kind == TOK_MINUS ? -1 : 1;
        lex_next(&p->lex);
    }
    tf.terms = mem_arena_alloc(&p->s->arena, (size_t)tf.term_count * sizeof *tf.terms);
    if (!tf.terms) {
        out_of_memory(p);
        goto fail;
    }
    memcpy(tf.terms, terms, (size_t)tf.term_count * sizeof *tf.terms);
    mem_free(&p->s->mem, terms);
    spec_twoform *slot = SPEC_MODEL_PUSH(p->s, p->m, twoforms, twoform_count, TWOFORMS);
    if (!slot)
        return out_of_memory(p);
    *slot = tf;
    if (!define(p, tf.name, tf.loc, SPEC_SYM_TWOFORM, p->m->twoform_count - 1,
                tf.index_count))
        return false;
    return end_statement(p, "twoform", false);
fail:
    mem_free(&p->s->mem, terms);
    return false;
}

static bool stmt_friction(parse_state *p, const parse_token *kw)
{
    spec_friction f;
    memset(&f, 0, sizeof f);
    f.loc = parse_loc(p, kw);
    if (!reference_name(p, "the coordinate of the friction force", &f.coord) ||
        !expect(p, TOK_ARROW, "expected '->' after the coordinate (%s COORD -> S: EXPR)",
                "friction") ||
        !reference_name(p, "the entropy variable that the friction heats", &f.entropy) ||
        !expect(p, TOK_COLON, "expected ':' after the entropy variable (%s COORD -> S: EXPR)",
                "friction") ||
        !expression(p, &f.value))
        return false;
    spec_friction *slot = SPEC_MODEL_PUSH(p->s, p->m, frictions, friction_count, FRICTIONS);
    if (!slot)
        return out_of_memory(p);
    *slot = f;
    return end_statement(p, "friction", false);
}

static bool stmt_heat(parse_state *p, const parse_token *kw)
{
    spec_heat h;
    memset(&h, 0, sizeof h);
    h.loc = parse_loc(p, kw);
    if (!reference_name(p, "an entropy variable", &h.a) ||
        !expect(p, TOK_COMMA, "expected ',' between the two entropy variables (%s S1, S2: EXPR)",
                "heat") ||
        !reference_name(p, "an entropy variable", &h.b) ||
        !expect(p, TOK_COLON, "expected ':' after the entropy variables (%s S1, S2: EXPR)",
                "heat") ||
        !expression(p, &h.value))
        return false;
    spec_heat *slot = SPEC_MODEL_PUSH(p->s, p->m, heats, heat_count, HEATS);
    if (!slot)
        return out_of_memory(p);
    *slot = h;
    return end_statement(p, "heat", false);
}

static bool stmt_heat_input(parse_state *p, const parse_token *kw)
{
    spec_heat_input h;
    memset(&h, 0, sizeof h);
    h.loc = parse_loc(p, kw);
    if (!reference_name(p, "an entropy variable", &h.entropy) ||
        !expect(p, TOK_COLON, "expected ':' after the entropy variable (%s S: EXPR)",
                "heat_input") ||
        !expression(p, &h.value))
        return false;
    spec_heat_input *slot = SPEC_MODEL_PUSH(p->s, p->m, heat_inputs, heat_input_count,
                                            HEAT_INPUTS);
    if (!slot)
        return out_of_memory(p);
    *slot = h;
    return end_statement(p, "heat_input", false);
}

static bool stmt_parameter(parse_state *p, const parse_token *kw)
{
    (void)kw;
    return stmt_assignments(p, "parameter", SPEC_SYM_PARAMETER);
}

// `input NAME = DEFAULT`: a parameter that the host may change between steps
static bool stmt_input(parse_state *p, const parse_token *kw)
{
    (void)kw;
    int first = p->m->param_count;
    bool ok = stmt_assignments(p, "input", SPEC_SYM_PARAMETER);
    for (int i = first; i < p->m->param_count; i++)
        p->m->params[i].is_input = true;
    return ok;
}

static bool stmt_let(parse_state *p, const parse_token *kw)
{
    (void)kw;
    return stmt_assignments(p, "let", SPEC_SYM_LET);
}

static bool stmt_output(parse_state *p, const parse_token *kw)
{
    (void)kw;
    return stmt_assignments(p, "output", SPEC_SYM_OUTPUT);
}

static bool stmt_coordinate(parse_state *p, const parse_token *kw)
{
    (void)kw;
    return stmt_variables(p, "coordinate", SPEC_SYM_COORDINATE);
}

static bool stmt_entropy(parse_state *p, const parse_token *kw)
{
    (void)kw;
    return stmt_variables(p, "entropy", SPEC_SYM_ENTROPY);
}

static const struct {
    const char *keyword;
    bool (*parse)(parse_state *p, const parse_token *kw);
} statements[] = {
    { "model", stmt_model },           { "parameter", stmt_parameter },
    { "coordinate", stmt_coordinate }, { "let", stmt_let },
    { "lagrangian", stmt_lagrangian }, { "constraint", stmt_constraint },
    { "force", stmt_force },           { "initial", stmt_initial },
    { "simulate", stmt_simulate },     { "output", stmt_output },
    { "component", stmt_component },   { "twoform", stmt_twoform },
    { "entropy", stmt_entropy },       { "friction", stmt_friction },
    { "heat", stmt_heat },             { "heat_input", stmt_heat_input },
    { "input", stmt_input },
};
enum { STATEMENT_COUNT = sizeof statements / sizeof statements[0] };

// --- a file --------------------------------------------------------------------------------

static bool unknown_statement(parse_state *p, const parse_token *t)
{
    char buf[96];
    if (t->kind != TOK_NAME || t->primes)
        return parse_error_at(p, t, "expected a statement (such as 'parameter' or "
                                    "'lagrangian'), found %s", describe(t, buf, sizeof buf));
    char word[72];
    snprintf(word, sizeof word, "%.*s%s", t->len > 64 ? 64 : (int)t->len, t->text,
             t->len > 64 ? "..." : "");
    diag_suggest sg;
    diag_suggest_init(&sg, word);
    for (int k = 0; k < STATEMENT_COUNT; k++)
        diag_suggest_add(&sg, statements[k].keyword);
    if (sg.best)
        return parse_error_at(p, t, "unknown statement '%s'; did you mean '%s'?", word, sg.best);
    return parse_error_at(p, t, "unknown statement '%s'", word);
}

spec_model *parse_model_source(spec *s, diag_source *src, const char *dir)
{
    parse_state p;
    memset(&p, 0, sizeof p);
    p.s = s;
    p.src = src;
    p.m = spec_add_model(s, src, dir);
    if (!p.m)
        return NULL;
    lex_init(&p.lex, s, src);
    int errors_before = s->diag.errors;
    bool started = false;
    for (;;) {
        if (s->mem.failed || diag_full(&s->diag))
            break;
        const parse_token *t = lex_peek(&p.lex, 0);
        if (t->kind == TOK_EOF)
            break;
        if (t->kind == TOK_NEWLINE) {
            lex_next(&p.lex);
            continue;
        }
        int k = STATEMENT_COUNT;
        if (t->kind == TOK_NAME && !t->primes)
            for (k = 0; k < STATEMENT_COUNT; k++)
                if (token_is(t, statements[k].keyword))
                    break;
        bool ok;
        if (k == STATEMENT_COUNT) {
            ok = unknown_statement(&p, t);
        } else if (!started && k != 0) {
            ok = parse_error_at(&p, t, "a model file must start with 'model NAME'");
            started = true;
        } else {
            started = true;
            parse_token kw = lex_next(&p.lex);
            p.binder_count = 0;
            ok = statements[k].parse(&p, &kw);
        }
        if (!ok)
            lex_recover(&p.lex);
    }
    if (!started && !s->mem.failed) {
        const parse_token *t = lex_peek(&p.lex, 0);
        spec_error(s, DIRAC_ERR_PARSE, parse_loc(&p, t),
                   "expected 'model NAME': the file has no statements");
    }
    if (s->diag.errors > errors_before || s->mem.failed)
        p.m->failed = true;
    mem_free(&s->mem, p.nodes);
    mem_free(&s->mem, p.kids);
    mem_free(&s->mem, p.vals);
    mem_free(&s->mem, p.ops);
    mem_free(&s->mem, p.pattern);
    mem_free(&s->mem, p.subkids);
    return p.m;
}
