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
    char *text = spec_mem_alloc(&s->mem, len + 9);
    if (text) {
        memcpy(text, "error: ", 7);
        memcpy(text + 7, msg, len);
        memcpy(text + 7 + len, "\n", 2);
    }
    spec_mem_free(&s->mem, s->override_message);
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

dirac_status spec_set_parameter_override(spec *s, const char *assignment)
{
    if (!s)
        return DIRAC_ERR_ARGUMENT;
    const spec_model *root = spec_root(s);
    if (!root || s->status != DIRAC_OK)
        return override_error(s, "cannot set parameters of a model that has errors");
    const char *eq = strchr(assignment, '=');
    const char *a = assignment, *b = eq ? eq : assignment;
    while (a < b && is_space(*a))
        a++;
    while (b > a && is_space(b[-1]))
        b--;
    if (!eq || a == b)
        return override_error(s, "invalid parameter override '%s': expected NAME=VALUE",
                              assignment);
    int name_len = (int)(b - a);
    char name[256];
    if (name_len >= (int)sizeof name)
        return override_error(s, "unknown parameter '%.40s...'", a);
    memcpy(name, a, (size_t)name_len);
    name[name_len] = '\0';
    // find the parameter, following components
    const spec_model *model = root;
    const char *part = name;
    const spec_symbol *sym = NULL;
    for (;;) {
        const char *dot = strchr(part, '.');
        size_t len = dot ? (size_t)(dot - part) : strlen(part);
        sym = spec_names_find(model->names, part, len);
        if (!dot)
            break;
        if (!sym || sym->kind != SPEC_SYM_COMPONENT)
            return override_error(s, "unknown parameter '%s': '%.*s' is not a component",
                                  name, (int)(dot - name), name);
        const spec_model *next = model->components[sym->index].model;
        if (!next)
            return override_error(s, "cannot set '%s': component '%.*s' was not loaded", name,
                                  (int)(dot - name), name);
        model = next;
        part = dot + 1;
    }
    if (!sym) {
        diag_suggest sg;
        diag_suggest_init(&sg, part);
        for (int i = 0; i < model->names->count; i++)
            if (model->names->items[i].kind == SPEC_SYM_PARAMETER)
                diag_suggest_add(&sg, model->names->items[i].name);
        if (sg.best)
            return override_error(s, "unknown parameter '%s' in '%s'; did you mean '%.*s%s'?",
                                  name, assignment, (int)(part - name), name, sg.best);
        return override_error(s, "unknown parameter '%s' in '%s' (model '%s' has no such "
                                 "parameter)", name, assignment, model->name);
    }
    if (sym->kind != SPEC_SYM_PARAMETER)
        return override_error(s, "'%s' is %s, not a parameter (in '%s')", name,
                              spec_sym_kind_phrase((spec_sym_kind)sym->kind), assignment);
    // the value
    const char *v = eq + 1, *w = eq + strlen(eq);
    while (v < w && is_space(*v))
        v++;
    while (w > v && is_space(w[-1]))
        w--;
    double value;
    int bad = parse_value(v, (size_t)(w - v), &value);
    if (bad == -1)
        return override_error(s, "invalid value '%.*s' for parameter '%s': not a number",
                              (int)(w - v) > 60 ? 60 : (int)(w - v), v, name);
    if (bad == -2)
        return override_error(s, "invalid value '%.*s' for parameter '%s': out of range",
                              (int)(w - v) > 60 ? 60 : (int)(w - v), v, name);
    // record it
    const char *kept = NULL;
    int at = -1;
    for (int i = 0; i < s->override_count; i++)
        if (strcmp(s->overrides[i].name, name) == 0)
            at = i;
    if (at < 0) {
        kept = spec_arena_strndup(&s->arena, name, (size_t)name_len);
        spec_override *o = kept ? spec_push(s, &s->overrides, &s->override_count,
                                            &s->override_cap, sizeof *s->overrides)
                                : NULL;
        if (!o) {
            s->status = DIRAC_OK;   // the spec itself is intact
            s->mem.failed = false;
            return override_error(s, "out of memory");
        }
        o->name = kept;
        at = s->override_count - 1;
    }
    s->overrides[at].value = value;
    if (model == root) {
        spec_param *par = &s->root->params[sym->index];
        par->overridden = true;
        par->override_value = value;
    }
    spec_mem_free(&s->mem, s->override_message);
    s->override_message = NULL;
    s->override_status = DIRAC_OK;
    return DIRAC_OK;
}
