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
    if (s->expanded)
        return override_error(s, "cannot set '%s': parameters cannot be changed after the "
                                 "model's families were expanded (set them before compiling)",
                              name);
    // find the parameter, following components; `k[3]`, `cell[2].C` name elements of
    // families (checked against the ranges when the model is expanded)
    const spec_model *model = root;
    const char *part = name;
    const spec_symbol *sym = NULL;
    char canon[2 * sizeof name + 16], seg[sizeof name];   // "k[1][2]": at most 1.5x the input
    size_t clen = 0;
    int dims = 0;
    for (;;) {
        const char *q = part;
        while (*q && *q != '.' && *q != '[')
            q++;
        size_t len = (size_t)(q - part);
        memcpy(seg, part, len);
        seg[len] = '\0';
        memcpy(canon + clen, part, len);
        clen += len;
        dims = 0;
        while (*q == '[') {   // k[1,2] or k[1][2]; kept as k[1][2]
            q++;
            for (;;) {
                while (is_space(*q))
                    q++;
                char *end;
                long long v = strtoll(q, &end, 10);
                if (end == q || dims == SPEC_INDEX_MAX || v > SPEC_INDEX_ABS_MAX ||
                    v < -SPEC_INDEX_ABS_MAX)
                    return override_error(s, "invalid parameter override '%s': expected "
                                             "NAME[INDEX, ...]=VALUE", assignment);
                int w = snprintf(canon + clen, sizeof canon - clen, "[%lld]", v);
                if (w < 0 || (size_t)w >= sizeof canon - clen)
                    return override_error(s, "unknown parameter '%.40s...'", a);
                clen += (size_t)w;
                dims++;
                q = end;
                while (is_space(*q))
                    q++;
                if (*q == ',') {
                    q++;
                    continue;
                }
                if (*q != ']')
                    return override_error(s, "invalid parameter override '%s': expected "
                                             "NAME[INDEX, ...]=VALUE", assignment);
                q++;
                break;
            }
        }
        if (*q && *q != '.')
            return override_error(s, "invalid parameter override '%s': expected "
                                     "NAME[INDEX, ...]=VALUE", assignment);
        sym = spec_names_find(model->names, seg, len);
        if (!*q)
            break;
        canon[clen++] = '.';
        if (!sym || sym->kind != SPEC_SYM_COMPONENT)
            return override_error(s, "unknown parameter '%s': '%.*s' is not a component",
                                  name, (int)(q - name), name);
        if (sym->dims != dims)
            return override_error(s, sym->dims ? "unknown parameter '%s': component '%s' is "
                                                 "indexed (write %s[INDEX].NAME)"
                                               : "unknown parameter '%s': component '%s' is "
                                                 "not indexed (write %s.NAME)",
                                  name, seg, seg);
        const spec_model *next = model->components[sym->index].model;
        if (!next)
            return override_error(s, "cannot set '%s': component '%.*s' was not loaded", name,
                                  (int)(q - name), name);
        model = next;
        part = q + 1;
    }
    canon[clen] = '\0';
    if (!sym) {
        diag_suggest sg;
        diag_suggest_init(&sg, seg);
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
    if (sym->dims != dims) {
        if (dims == 0)
            return override_error(s, "'%s' is indexed: set one element at a time, as in "
                                     "%s[%s]=VALUE", name, name, sym->dims > 1 ? "1][1" : "1");
        if (sym->dims == 0)
            return override_error(s, "'%s' is a parameter without indices (in '%s')", seg,
                                  assignment);
        return override_error(s, "'%s' has %d ind%s, not %d (in '%s')", seg, sym->dims,
                              sym->dims == 1 ? "ex" : "ices", dims, assignment);
    }
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
        if (strcmp(s->overrides[i].name, canon) == 0)
            at = i;
    if (at < 0) {
        kept = spec_arena_strndup(&s->arena, canon, clen);
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
    if (model == root && dims == 0) {
        spec_param *par = &s->root->params[sym->index];
        par->overridden = true;
        par->override_value = value;
    }
    spec_mem_free(&s->mem, s->override_message);
    s->override_message = NULL;
    s->override_status = DIRAC_OK;
    return DIRAC_OK;
}
