// Lifetime of a spec, its name tables, error plumbing and lookups.
#include "parse.h"

#include "error.h"

#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

_Static_assert(SPEC_ARRAY_COUNT == sizeof ((spec_model *)0)->capacity / sizeof(int),
               "spec_model.capacity has one entry per statement array");

// --- lifetime ------------------------------------------------------------------------------

spec *spec_create(const spec_options *options)
{
    mem_counter mem = { -1, 0, false };
    if (options && options->fail_alloc_after > 0)
        mem.fail_after = options->fail_alloc_after - 1;
    spec *s = mem_alloc(&mem, sizeof *s);
    if (!s)
        return NULL;
    memset(s, 0, sizeof *s);
    s->mem = mem;
    mem_arena_init(&s->arena, &s->mem);
    diag_init(&s->diag, &s->mem, options ? options->max_errors : 0);
    s->status = DIRAC_OK;
    s->max_expansion = SPEC_EXPAND_DEFAULT_LIMIT;
    s->max_model_bytes = SPEC_MODEL_MEMORY_DEFAULT;
    return s;
}

const mem_counter *spec_allocations(const spec *s)
{
    return &s->mem;
}

static void model_free(spec *s, spec_model *m)
{
    mem_counter *mem = &s->mem;
    mem_free(mem, m->params);
    mem_free(mem, m->coords);
    mem_free(mem, m->lets);
    mem_free(mem, m->lagrangian);
    mem_free(mem, m->constraints);
    mem_free(mem, m->forces);
    mem_free(mem, m->initials);
    mem_free(mem, m->settings);
    mem_free(mem, m->outputs);
    mem_free(mem, m->components);
    mem_free(mem, m->twoforms);
    mem_free(mem, m->entropies);
    mem_free(mem, m->frictions);
    mem_free(mem, m->heats);
    mem_free(mem, m->heat_inputs);
    spec_names_destroy(mem, m->names);
}

void spec_destroy(spec *s)
{
    if (!s)
        return;
    for (int i = 0; i < s->model_count; i++)
        model_free(s, s->models[i]);
    mem_free(&s->mem, s->models);
    for (int i = 0; i < s->source_count; i++)
        mem_free(&s->mem, (void *)s->sources[i]->text);
    mem_free(&s->mem, s->sources);
    mem_free(&s->mem, s->overrides);
    mem_free(&s->mem, s->override_message);
    diag_free(&s->diag);
    mem_arena_free(&s->arena);
    mem_counter mem = s->mem;
    mem_free(&mem, s);
}

void *spec_push(spec *s, void *items_field, int *count, int *cap, size_t size)
{
    if (!mem_reserve(&s->mem, items_field, cap, *count + 1, size)) {
        spec_out_of_memory(s);
        return NULL;
    }
    char *items;
    memcpy(&items, items_field, sizeof items);
    void *slot = items + (size_t)*count * size;
    memset(slot, 0, size);
    (*count)++;
    return slot;
}

diag_source *spec_add_source(spec *s, const char *name, char *text, size_t size)
{
    diag_source *src = mem_arena_alloc(&s->arena, sizeof *src);
    char *copy = mem_arena_strndup(&s->arena, name, strlen(name));
    diag_source **slot = src && copy ? spec_push(s, &s->sources, &s->source_count,
                                                 &s->source_cap, sizeof *s->sources)
                                     : NULL;
    if (!slot) {
        mem_free(&s->mem, text);
        spec_out_of_memory(s);
        return NULL;
    }
    memset(src, 0, sizeof *src);
    src->name = copy;
    src->text = text;
    src->size = size;
    *slot = src;
    return src;
}

diag_source *spec_source_of(const spec *s, const char *file)
{
    for (int i = s->source_count - 1; i >= 0; i--)
        if (s->sources[i]->name == file)
            return s->sources[i];
    return NULL;
}

spec_model *spec_add_model(spec *s, const diag_source *src, const char *dir)
{
    spec_model *m = mem_arena_alloc(&s->arena, sizeof *m);
    char *d = mem_arena_strndup(&s->arena, dir, strlen(dir));
    spec_model **slot = m && d ? spec_push(s, &s->models, &s->model_count, &s->model_cap,
                                           sizeof *s->models)
                               : NULL;
    if (!slot) {
        spec_out_of_memory(s);
        return NULL;
    }
    memset(m, 0, sizeof *m);
    m->file = src->name;
    m->dir = d;
    m->names = spec_names_create(&s->mem);
    if (!m->names) {
        s->model_count--;
        spec_out_of_memory(s);
        return NULL;
    }
    *slot = m;
    return m;
}

// --- messages ------------------------------------------------------------------------------

void spec_out_of_memory(spec *s)
{
    s->mem.failed = true;
    if (s->status == DIRAC_OK)
        s->status = DIRAC_ERR_NOMEM;
}

bool spec_verror(spec *s, dirac_status status, spec_loc loc, const char *format, va_list args)
{
    if (s->status == DIRAC_OK)
        s->status = status;
    diag_source *src = loc.file ? spec_source_of(s, loc.file) : NULL;
    return diag_verror(&s->diag, src, loc.line, loc.col, format, args);
}

bool spec_error(spec *s, dirac_status status, spec_loc loc, const char *format, ...)
{
    va_list args;
    va_start(args, format);
    bool more = spec_verror(s, status, loc, format, args);
    va_end(args);
    return more;
}

void spec_note(spec *s, spec_loc loc, const char *format, ...)
{
    diag_source *src = loc.file ? spec_source_of(s, loc.file) : NULL;
    va_list args;
    va_start(args, format);
    diag_vnote(&s->diag, src, loc.line, loc.col, format, args);
    va_end(args);
}

dirac_status spec_status(const spec *s)
{
    if (!s)
        return DIRAC_ERR_NOMEM;
    return s->override_status != DIRAC_OK ? s->override_status : s->status;
}

const char *spec_errmsg(const spec *s)
{
    if (!s)
        return "out of memory";
    if (s->override_status != DIRAC_OK)
        return s->override_message ? s->override_message : "error: out of memory\n";
    if (s->status == DIRAC_ERR_NOMEM && s->diag.errors == 0)
        return "error: out of memory\n";
    return diag_text(&s->diag);
}

dirac_status spec_fill_error(const spec *s, dirac_error *err)
{
    dirac_status status = spec_status(s);
    if (status == DIRAC_OK)
        return status;
    const char *msg = spec_errmsg(s);
    const char *nl = strchr(msg, '\n');
    int len = nl ? (int)(nl - msg) : (int)strlen(msg);
    return error_set(err, status, "%.*s", len, msg);
}

const spec_model *spec_root(const spec *s)
{
    return s && s->root && s->root->name ? s->root : NULL;
}

// --- name table ----------------------------------------------------------------------------

static uint64_t name_hash(const char *name, size_t len)
{
    uint64_t h = 1469598103934665603ull;   // FNV-1a
    for (size_t i = 0; i < len; i++) {
        h ^= (unsigned char)name[i];
        h *= 1099511628211ull;
    }
    return h;
}

spec_names *spec_names_create(mem_counter *mem)
{
    spec_names *n = mem_alloc(mem, sizeof *n);
    if (!n)
        return NULL;
    memset(n, 0, sizeof *n);
    return n;
}

void spec_names_destroy(mem_counter *mem, spec_names *names)
{
    if (!names)
        return;
    mem_free(mem, names->items);
    mem_free(mem, names->slots);
    mem_free(mem, names);
}

const spec_symbol *spec_names_find(const spec_names *names, const char *name, size_t len)
{
    if (!names || names->slot_count == 0)
        return NULL;
    size_t mask = names->slot_count - 1;
    for (size_t i = (size_t)name_hash(name, len) & mask;; i = (i + 1) & mask) {
        int32_t k = names->slots[i];
        if (k == 0)
            return NULL;
        const spec_symbol *sym = &names->items[k - 1];
        if (strncmp(sym->name, name, len) == 0 && sym->name[len] == '\0')
            return sym;
    }
}

static void names_insert_slot(spec_names *names, int32_t index)
{
    const char *name = names->items[index].name;
    size_t mask = names->slot_count - 1;
    size_t i = (size_t)name_hash(name, strlen(name)) & mask;
    while (names->slots[i] != 0)
        i = (i + 1) & mask;
    names->slots[i] = index + 1;
}

bool spec_names_add(mem_counter *mem, spec_names *names, const spec_symbol *symbol)
{
    if (!mem_reserve(mem, &names->items, &names->cap, names->count + 1,
                     sizeof *names->items))
        return false;
    // keep the load factor at most 1/2
    if ((size_t)(names->count + 1) * 2 > names->slot_count) {
        size_t slots = names->slot_count ? names->slot_count * 2 : 16;
        if (slots > SIZE_MAX / sizeof *names->slots) {
            mem->failed = true;
            return false;
        }
        int32_t *t = mem_alloc(mem, slots * sizeof *t);
        if (!t)
            return false;
        memset(t, 0, slots * sizeof *t);
        mem_free(mem, names->slots);
        names->slots = t;
        names->slot_count = slots;
        for (int32_t i = 0; i < names->count; i++)
            names_insert_slot(names, i);
    }
    names->items[names->count] = *symbol;
    names_insert_slot(names, names->count);
    names->count++;
    return true;
}

// --- lookups -------------------------------------------------------------------------------

const char *spec_sym_kind_name(spec_sym_kind kind)
{
    switch (kind) {
    case SPEC_SYM_PARAMETER: return "parameter";
    case SPEC_SYM_COORDINATE: return "coordinate";
    case SPEC_SYM_LET: return "let";
    case SPEC_SYM_ENTROPY: return "entropy variable";
    case SPEC_SYM_COMPONENT: return "component";
    case SPEC_SYM_CONSTRAINT: return "constraint";
    case SPEC_SYM_TWOFORM: return "two-form";
    case SPEC_SYM_OUTPUT: return "output";
    case SPEC_SYM_TIME: return "time";
    case SPEC_SYM_PI: return "constant";
    case SPEC_SYM_QUALIFIED: return "component member";
    case SPEC_SYM_INDEX: return "index";
    default: return "name";
    }
}

const char *spec_sym_kind_phrase(spec_sym_kind kind)
{
    switch (kind) {
    case SPEC_SYM_ENTROPY: return "an entropy variable";
    case SPEC_SYM_OUTPUT: return "an output";
    case SPEC_SYM_TIME: return "the time";
    case SPEC_SYM_PI: return "a built-in constant";
    case SPEC_SYM_LET: return "a let";
    case SPEC_SYM_PARAMETER: return "a parameter";
    case SPEC_SYM_COORDINATE: return "a coordinate";
    case SPEC_SYM_COMPONENT: return "a component";
    case SPEC_SYM_CONSTRAINT: return "a constraint";
    case SPEC_SYM_TWOFORM: return "a two-form";
    case SPEC_SYM_INDEX: return "an index";
    case SPEC_SYM_MULTIPLIER: return "a multiplier";
    case SPEC_SYM_MOMENTUM: return "a momentum";
    case SPEC_SYM_TEMPERATURE: return "a temperature";
    case SPEC_SYM_ENERGY: return "the energy";
    case SPEC_SYM_INTERACTION: return "an interaction's force or power";
    default: return "a name";
    }
}

bool spec_lookup(const spec_model *model, const char *name, spec_ref *ref)
{
    const spec_symbol *sym = spec_names_find(model->names, name, strlen(name));
    if (!sym)
        return false;
    ref->kind = sym->kind;
    ref->member = SPEC_SYM_NONE;
    ref->index = sym->index;
    return true;
}

bool spec_lookup_qualified(const spec_model *model, const char *name, const spec_model **owner,
                           spec_ref *ref)
{
    const char *part = name;
    for (;;) {
        const char *dot = strchr(part, '.');
        size_t len = dot ? (size_t)(dot - part) : strlen(part);
        const spec_symbol *sym = spec_names_find(model->names, part, len);
        if (!sym)
            return false;
        if (!dot) {
            *owner = model;
            ref->kind = sym->kind;
            ref->member = SPEC_SYM_NONE;
            ref->index = sym->index;
            return true;
        }
        if (sym->kind != SPEC_SYM_COMPONENT)
            return false;
        model = model->components[sym->index].model;
        if (!model)
            return false;
        part = dot + 1;
    }
}

const spec_override *spec_overrides(const spec *s, int *count)
{
    *count = s ? s->override_count : 0;
    return s ? s->overrides : NULL;
}

bool spec_pattern_segment(const char **p, const char **name, size_t *len, int *dims)
{
    const char *q = *p;
    if (!*q)
        return false;
    *name = q;
    while (*q && *q != '[' && *q != '.')
        q++;
    *len = (size_t)(q - *name);
    *dims = 0;
    while (*q == '[') {   // x[1,2] and x[1][2] alike
        (*dims)++;
        for (q++; *q && *q != ']'; q++)
            if (*q == ',')
                (*dims)++;
        if (*q == ']')
            q++;
    }
    if (*q == '.')
        q++;
    *p = q;
    return true;
}
