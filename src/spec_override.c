// Parameter overrides given on the command line (-p NAME=VALUE).
#include "parse.h"

#include <locale.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if defined(__GNUC__)
__attribute__((format(printf, 2, 3)))
#endif
static dirac_status override_error(spec *s, const char *format, ...)
{
    char msg[1024];
    va_list args;
    va_start(args, format);
    int n = vsnprintf(msg, sizeof msg, format, args);
    va_end(args);
    size_t len = n < 0 ? 0 : (size_t)n >= sizeof msg ? sizeof msg - 1 : (size_t)n;
    char *text = mem_alloc(&s->mem, len + 9);
    if (text) {
        memcpy(text, "error: ", 7);
        memcpy(text + 7, msg, len);
        memcpy(text + 7 + len, "\n", 2);
    }
    mem_free(&s->mem, s->override_message);
    s->override_message = text;
    s->override_status = text ? DIRAC_ERR_ARGUMENT : DIRAC_ERR_NOMEM;
    return s->override_status;
}

static bool is_space(char c)
{
    return c == ' ' || c == '\t';
}

// a finite decimal number filling text[0..len) exactly
static int parse_value(const char *text, size_t len, double *value)
{
    char buf[128];
    if (len == 0 || len >= sizeof buf)
        return len == 0 ? -1 : -2;
    memcpy(buf, text, len);
    buf[len] = '\0';
    for (size_t i = 0; i < len; i++) {
        char c = buf[i];
        if (!((c >= '0' && c <= '9') || c == '.' || c == 'e' || c == 'E' || c == '+' ||
              c == '-'))
            return -1;   // no hex, inf or nan
    }
    const struct lconv *lc = localeconv();
    char point = lc && lc->decimal_point && lc->decimal_point[0] ? lc->decimal_point[0] : '.';
    if (point != '.')
        for (size_t i = 0; i < len; i++)
            if (buf[i] == '.')
                buf[i] = point;
    char *end;
    *value = strtod(buf, &end);
    if (end != buf + len)
        return -1;
    if (!isfinite(*value))
        return -2;
    return 0;
}

// --- the name: a path of components to a parameter, read with the model's lexer -----------

// the longest name of an override
enum { OVERRIDE_NAME_MAX = 255 };

// one step of an override's path: a name and its indices, `cell[2]` in `cell[2].C`
typedef struct override_step {
    const char *name;   // into the override's name
    size_t len;
    size_t end;         // offset in the override's name just past the step and its indices
    int dims;
    long long index[SPEC_INDEX_MAX];
} override_step;

// `a.b[1, 2].c`: at most one step per two characters of the name
typedef struct override_path {
    override_step step[(OVERRIDE_NAME_MAX + 1) / 2];
    int count;
} override_path;

// appends the steps of the dotted name text[0..len) (a NAME, or a MEMBER without its '.')
static void path_add_names(override_path *path, const char *name, const char *text, size_t len)
{
    const char *p = text, *end = text + len;
    while (p < end) {
        const char *dot = memchr(p, '.', (size_t)(end - p));
        const char *stop = dot ? dot : end;
        path->step[path->count++] = (override_step){
            .name = p, .len = (size_t)(stop - p), .end = (size_t)(stop - name) };
        p = dot ? dot + 1 : end;
    }
}

// one index of `[...]`: an integer with an optional sign; false if the tokens are none
static bool lex_index(parse_lexer *lx, long long *value)
{
    parse_token t = lex_next(lx);
    double sign = 1.0;
    if (t.kind == TOK_PLUS || t.kind == TOK_MINUS) {
        sign = t.kind == TOK_MINUS ? -1.0 : 1.0;
        t = lex_next(lx);
    }
    if (t.kind != TOK_NUMBER || t.number != floor(t.number) || t.number > SPEC_INDEX_ABS_MAX)
        return false;
    *value = (long long)(sign * t.number);
    return true;
}

// the indices `[1, 2]` or `[1][2]` after a step (the lexer is at '[' or past the step)
static bool lex_indices(parse_lexer *lx, const char *name, override_step *step)
{
    while (lex_peek(lx, 0)->kind == TOK_LBRACKET) {
        lex_next(lx);
        for (;;) {
            if (step->dims == SPEC_INDEX_MAX || !lex_index(lx, &step->index[step->dims++]))
                return false;
            parse_token t = lex_next(lx);
            if (t.kind == TOK_RBRACKET && !t.primes) {
                step->end = (size_t)(t.text + t.len - name);
                break;
            }
            if (t.kind != TOK_COMMA)
                return false;
        }
    }
    return true;
}

// reads NAME[INDEX, ...].NAME[INDEX, ...]... into *path; false if the name has another form
static bool lex_override_name(spec *s, const char *name, override_path *path)
{
    diag_source src = { .name = "", .text = name, .size = strlen(name) };
    parse_lexer lx;
    lex_init(&lx, s, &src);
    lx.quiet = true;
    path->count = 0;
    parse_token t = lex_next(&lx);
    if (t.kind != TOK_NAME || t.primes)
        return false;
    for (;;) {
        path_add_names(path, name, t.text, t.len);
        if (!lex_indices(&lx, name, &path->step[path->count - 1]))
            return false;
        t = lex_next(&lx);
        if (t.kind == TOK_EOF)   // and no comment (`k#x`) before the end
            return path->step[path->count - 1].end == src.size;
        if (t.kind != TOK_MEMBER || t.primes)
            return false;
        t.text++;   // past the '.'
        t.len--;
    }
}

// the canonical name of the path: indices written k[1][2]; false if it is too long
static bool path_canonical(const override_path *path, char *canon, size_t size, size_t *len)
{
    size_t n = 0;
    for (int i = 0; i < path->count; i++) {
        const override_step *st = &path->step[i];
        int w = snprintf(canon + n, size - n, "%s%.*s", i ? "." : "", (int)st->len, st->name);
        for (int k = 0; w >= 0 && (size_t)w < size - n && k < st->dims; k++) {
            n += (size_t)w;
            w = snprintf(canon + n, size - n, "[%lld]", st->index[k]);
        }
        if (w < 0 || (size_t)w >= size - n)
            return false;
        n += (size_t)w;
    }
    *len = n;
    return true;
}

// --- resolution ------------------------------------------------------------------------------

// follows the components of the path; *model is the model of its last step, *sym that step's
// symbol (NULL if it has no such name)
static dirac_status resolve_path(spec *s, const char *name, const override_path *path,
                                 const spec_model **model, const spec_symbol **sym)
{
    *model = spec_root(s);
    for (int i = 0;; i++) {
        const override_step *st = &path->step[i];
        *sym = spec_names_find((*model)->names, st->name, st->len);
        if (i == path->count - 1)
            return DIRAC_OK;
        const spec_symbol *c = *sym;
        if (!c || c->kind != SPEC_SYM_COMPONENT)
            return override_error(s, "unknown parameter '%s': '%.*s' is not a component",
                                  name, (int)st->end, name);
        if (c->dims != st->dims)
            return override_error(s, c->dims ? "unknown parameter '%s': component '%.*s' is "
                                               "indexed (write %.*s[INDEX].NAME)"
                                             : "unknown parameter '%s': component '%.*s' is "
                                               "not indexed (write %.*s.NAME)",
                                  name, (int)st->len, st->name, (int)st->len, st->name);
        const spec_model *next = (*model)->components[c->index].model;
        if (!next)
            return override_error(s, "cannot set '%s': component '%.*s' was not loaded", name,
                                  (int)st->end, name);
        *model = next;
    }
}

// checks that the path's last step `last` (symbol sym of `model`) is a parameter with as many
// indices as the step
static dirac_status check_parameter(spec *s, const char *assignment, const char *name,
                                    const spec_model *model, const override_step *last,
                                    const spec_symbol *sym)
{
    int n = (int)last->len, dims = last->dims;
    if (!sym) {
        char seg[OVERRIDE_NAME_MAX + 1];
        snprintf(seg, sizeof seg, "%.*s", n, last->name);
        diag_suggest sg;
        diag_suggest_init(&sg, seg);
        for (int i = 0; i < model->names->count; i++)
            if (model->names->items[i].kind == SPEC_SYM_PARAMETER)
                diag_suggest_add(&sg, model->names->items[i].name);
        if (sg.best)
            return override_error(s, "unknown parameter '%s' in '%s'; did you mean '%.*s%s'?",
                                  name, assignment, (int)(last->name - name), name, sg.best);
        return override_error(s, "unknown parameter '%s' in '%s' (model '%s' has no such "
                                 "parameter)", name, assignment, model->name);
    }
    if (sym->kind != SPEC_SYM_PARAMETER)
        return override_error(s, "'%s' is %s, not a parameter (in '%s')", name,
                              spec_sym_kind_phrase((spec_sym_kind)sym->kind), assignment);
    if (sym->dims == dims)
        return DIRAC_OK;
    if (dims == 0)
        return override_error(s, "'%s' is indexed: set one element at a time, as in "
                                 "%s[%s]=VALUE", name, name, sym->dims > 1 ? "1][1" : "1");
    if (sym->dims == 0)
        return override_error(s, "'%.*s' is a parameter without indices (in '%s')", n,
                              last->name, assignment);
    return override_error(s, "'%.*s' has %d ind%s, not %d (in '%s')", n, last->name,
                          sym->dims, sym->dims == 1 ? "ex" : "ices", dims, assignment);
}

// --- the override ----------------------------------------------------------------------------

// text[0..len) without blanks at either end
static const char *trim(const char *text, size_t *len)
{
    const char *a = text, *b = text + *len;
    while (a < b && is_space(*a))
        a++;
    while (b > a && is_space(b[-1]))
        b--;
    *len = (size_t)(b - a);
    return a;
}

// the value text v[0..len) as a finite number
static dirac_status read_value(spec *s, const char *name, const char *v, size_t len,
                               double *value)
{
    int bad = parse_value(v, len, value);
    int shown = len > 60 ? 60 : (int)len;
    if (bad == -1)
        return override_error(s, "invalid value '%.*s' for parameter '%s': not a number", shown,
                              v, name);
    if (bad == -2)
        return override_error(s, "invalid value '%.*s' for parameter '%s': out of range", shown,
                              v, name);
    return DIRAC_OK;
}

// records the value of the parameter with canonical name canon[0..len)
static dirac_status record_override(spec *s, const char *canon, size_t len, double value)
{
    int at = -1;
    for (int i = 0; i < s->override_count; i++)
        if (strcmp(s->overrides[i].name, canon) == 0) {
            at = i;   // names are unique
            break;
        }
    if (at < 0) {
        const char *kept = mem_arena_strndup(&s->arena, canon, len);
        spec_override *o = kept ? spec_push(s, &s->overrides, &s->override_count,
                                            &s->override_cap, sizeof *s->overrides)
                                : NULL;
        if (!o) {
            s->status = DIRAC_OK;   // the spec itself is intact
            s->mem.failed = false;
            override_error(s, "out of memory");
            return s->override_status = DIRAC_ERR_NOMEM;
        }
        o->name = kept;
        at = s->override_count - 1;
    }
    s->overrides[at].value = value;
    return DIRAC_OK;
}

dirac_status spec_set_parameter_override(spec *s, const char *assignment)
{
    if (!s)
        return DIRAC_ERR_ARGUMENT;
    if (!spec_root(s) || s->status != DIRAC_OK)
        return override_error(s, "cannot set parameters of a model that has errors");
    const char *eq = strchr(assignment, '=');
    size_t name_len = eq ? (size_t)(eq - assignment) : 0;
    const char *a = trim(assignment, &name_len);
    if (!eq || name_len == 0)
        return override_error(s, "invalid parameter override '%s': expected NAME=VALUE",
                              assignment);
    if (name_len > OVERRIDE_NAME_MAX)
        return override_error(s, "unknown parameter '%.40s...'", a);
    char name[OVERRIDE_NAME_MAX + 1];
    memcpy(name, a, name_len);
    name[name_len] = '\0';
    if (s->expanded)
        return override_error(s, "cannot set '%s': parameters cannot be changed after the "
                                 "model's families were expanded (set them before compiling)",
                              name);
    // `k[3]`, `cell[2].C` name elements of families (checked against the ranges when the
    // model is expanded)
    override_path path;
    char canon[2 * sizeof name + 16];   // "k[1][2]": at most 1.5x the input
    size_t canon_len;
    if (!lex_override_name(s, name, &path))
        return override_error(s, "invalid parameter override '%s': expected "
                                 "NAME[INDEX, ...]=VALUE", assignment);
    if (!path_canonical(&path, canon, sizeof canon, &canon_len))
        return override_error(s, "unknown parameter '%.40s...'", a);
    const spec_model *model;
    const spec_symbol *sym;
    const override_step *last = &path.step[path.count - 1];
    size_t value_len = strlen(eq + 1);
    const char *v = trim(eq + 1, &value_len);
    double value = 0.0;
    dirac_status status = resolve_path(s, name, &path, &model, &sym);
    if (status == DIRAC_OK)
        status = check_parameter(s, assignment, name, model, last, sym);
    if (status == DIRAC_OK)
        status = read_value(s, name, v, value_len, &value);
    if (status == DIRAC_OK)
        status = record_override(s, canon, canon_len, value);
    if (status != DIRAC_OK)
        return status;
    if (model == spec_root(s) && last->dims == 0) {
        spec_param *par = &s->root->params[sym->index];
        par->overridden = true;
        par->override_value = value;
    }
    mem_free(&s->mem, s->override_message);
    s->override_message = NULL;
    s->override_status = DIRAC_OK;
    return DIRAC_OK;
}
