// SPICE netlists into .dirac models (docs/circuits.md): the entry points, and the helpers the
// reader (spice_read.c) and the writer (spice_write.c) share. The file becomes cards (logical
// lines: continuation lines joined, comments dropped, tokens with their line and column,
// lower-cased since SPICE is case-insensitive); directives are read (.param, .subckt, .ic,
// .tran) and the elements flattened through their subcircuits; the model text is written in
// the node-flux formulation with one comment per netlist line.
#include "spice_import.h"
#include "spice_netlist.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

// --- growable text -----------------------------------------------------------------------

void spice_printf(text_buf *b, const char *format, ...)
{
    if (b->failed)
        return;
    for (;;) {
        va_list args;
        va_start(args, format);
        size_t room = b->cap - b->len;
        int n = b->s ? vsnprintf(b->s + b->len, room, format, args) : -2;
        va_end(args);
        if (n == -1) {
            b->failed = 1;
            return;
        }
        if (n >= 0 && (size_t)n < room) {
            b->len += (size_t)n;
            return;
        }
        size_t cap = b->cap ? b->cap * 2 : 4096;
        while (n >= 0 && cap - b->len <= (size_t)n)
            cap *= 2;
        char *s = realloc(b->s, cap);
        if (!s) {
            b->failed = 1;
            return;
        }
        b->s = s;
        b->cap = cap;
    }
}

// --- netlist -----------------------------------------------------------------------------

int spice_report(netlist *nl, int line, int col, const char *format, ...)
{
    char body[512];
    va_list args;
    va_start(args, format);
    vsnprintf(body, sizeof body, format, args);
    va_end(args);
    spice_printf(&nl->msg, "%s:%d:%d: error: %s\n", nl->path, line, col, body);
    if (line >= 1 && line <= nl->n_lines) {
        spice_printf(&nl->msg, "%s\n", nl->line[line - 1]);
        spice_printf(&nl->msg, "%*s^\n", col - 1, "");
    }
    nl->errors++;
    return -1;
}

int spice_report_at(netlist *nl, const token *t, const char *format, const char *arg)
{
    return spice_report(nl, t->line, t->col, format, arg);
}

void *spice_grow(netlist *nl, void *items, int *cap, int need, size_t size)
{
    if (need <= *cap)
        return items;
    int n = *cap ? *cap * 2 : 16;
    while (n < need)
        n *= 2;
    void *p = realloc(items, (size_t)n * size);
    if (!p) {
        nl->nomem = 1;
        return NULL;
    }
    *cap = n;
    return p;
}

char *spice_dup(netlist *nl, const char *s, size_t len)
{
    char *d = malloc(len + 1);
    if (!d) {
        nl->nomem = 1;
        return NULL;
    }
    for (size_t i = 0; i < len; i++)
        d[i] = (char)tolower((unsigned char)s[i]);
    d[len] = '\0';
    return d;
}

// the shortest of %.15g, %.16g, %.17g that reads back as v
const char *spice_number_text(char *buf, size_t size, double v)
{
    for (int digits = 15; digits <= 17; digits++) {
        snprintf(buf, size, "%.*g", digits, v);
        if (strtod(buf, NULL) == v)
            break;
    }
    return buf;
}

int spice_param_lookup(const netlist *nl, const char *name, size_t len, double *value)
{
    for (int k = nl->n_params - 1; k >= 0; k--)
        if (strlen(nl->param_name[k]) == len && memcmp(nl->param_name[k], name, len) == 0) {
            *value = nl->param_value[k];
            return 1;
        }
    return 0;
}

static void free_netlist(netlist *nl)
{
    for (int i = 0; i < nl->n_cards; i++) {
        for (int k = 0; k < nl->cards[i].n; k++)
            free(nl->cards[i].t[k].s);
        free(nl->cards[i].t);
    }
    free(nl->cards);
    free(nl->subs);
    free(nl->param_name);
    free(nl->param_value);
    for (int k = 0; k < nl->n_el; k++) {
        free(nl->el[k].name);
        free(nl->el[k].ident);
        free(nl->el[k].wave);
    }
    free(nl->el);
    for (int k = 0; k < nl->n_nodes; k++)
        free(nl->node[k]);
    free(nl->node);
    free(nl->node_ic);
    free(nl->driver);
    free(nl->line);
    free(nl->data);
}

// the model's name: the file's base name without extension, as an identifier
static void model_name_of(const char *path, char *out, size_t size)
{
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    size_t n = 0;
    if (!isalpha((unsigned char)base[0]) && size > 1)
        out[n++] = 'c';
    for (size_t i = 0; base[i] && base[i] != '.' && n + 1 < size; i++)
        out[n++] = isalnum((unsigned char)base[i]) ? base[i] : '_';
    out[n] = '\0';
}

int spice_import(const char *path, char **text, char **message)
{
    *text = NULL;
    *message = NULL;
    netlist nl;
    memset(&nl, 0, sizeof nl);
    nl.path = path;
    int top_last = 0;
    if (spice_read(&nl, &top_last) == 0 && spice_make_identifiers(&nl) == 0) {
        text_buf o = { NULL, 0, 0, 0 };
        char name[128];
        model_name_of(path, name, sizeof name);
        spice_write_model(&nl, &o, name, top_last);
        if (o.failed)
            nl.nomem = 1;
        if (nl.errors == 0 && !nl.nomem)
            *text = o.s;
        else
            free(o.s);
    }
    if (nl.nomem)
        spice_printf(&nl.msg, "%s: error: out of memory\n", path);
    int failed = *text == NULL;
    if (failed && !nl.msg.s)
        spice_printf(&nl.msg, "%s: error: cannot import the netlist\n", path);
    if (failed)
        *message = nl.msg.s;
    else
        free(nl.msg.s);
    free_netlist(&nl);
    return failed;
}

static int has_netlist_extension(const char *path)
{
    static const char *const ext[] = { ".cir", ".sp", ".spice", ".net" };
    const char *dot = strrchr(path, '.');
    if (!dot || strchr(dot, '/'))
        return 0;
    for (size_t k = 0; k < sizeof ext / sizeof ext[0]; k++) {
        size_t n = strlen(ext[k]);
        if (strlen(dot) != n)
            continue;
        size_t i = 0;
        while (i < n && tolower((unsigned char)dot[i]) == ext[k][i])
            i++;
        if (i == n)
            return 1;
    }
    return 0;
}

int spice_is_netlist(const char *path)
{
    if (has_netlist_extension(path))
        return 1;
    FILE *f = fopen(path, "rb");
    if (!f)
        return 0;
    // by content: the last non-blank line is `.end` (any case)
    char line[256], last[256] = "";
    while (fgets(line, sizeof line, f)) {
        size_t i = 0;
        while (line[i] == ' ' || line[i] == '\t')
            i++;
        if (line[i] == '\0' || line[i] == '\n' || line[i] == '\r')
            continue;
        snprintf(last, sizeof last, "%s", line + i);
    }
    fclose(f);
    size_t n = strlen(last);
    while (n > 0 && isspace((unsigned char)last[n - 1]))
        last[--n] = '\0';
    return n == 4 && last[0] == '.' && tolower((unsigned char)last[1]) == 'e' &&
           tolower((unsigned char)last[2]) == 'n' && tolower((unsigned char)last[3]) == 'd';
}
