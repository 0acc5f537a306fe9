// SPICE netlist reader and .dirac writer (docs/circuits.md). Three passes: the file becomes
// cards (logical lines: continuation lines joined, comments dropped, tokens with their line
// and column, lower-cased since SPICE is case-insensitive); directives are read (.param,
// .subckt, .ic, .tran) and the elements flattened through their subcircuits; the model text
// is written in the node-flux formulation with one comment per netlist line.
#include "spice_import.h"

#include <ctype.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SPICE_SUBCKT_DEPTH_MAX 32
#define SPICE_EXPR_DEPTH_MAX 64
#define SPICE_COUPLED_MAX 32   // inductors in one group joined by K elements

// --- growable text -----------------------------------------------------------------------

typedef struct text_buf {
    char *s;
    size_t len, cap;
    int failed;
} text_buf;

#if defined(__GNUC__)
__attribute__((format(printf, 2, 3)))
#endif
static void tb_printf(text_buf *b, const char *format, ...)
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

typedef struct token {
    char *s;   // lower-cased; a {expression} keeps its braces
    int line, col;
} token;

typedef struct card {
    token *t;
    int n, cap;
    int line;   // first physical line
} card;

typedef struct subckt {
    const char *name;
    int first, last;   // cards of the body (exclusive of .subckt and .ends)
    int header;        // the .subckt card
} subckt;

typedef struct element {
    char type;          // r c l k v i
    char *name;         // flattened (x1.r1), lower case
    char *ident;        // as an identifier (x1_r1)
    int a, b;           // nodes (-1 ground)
    double value;       // R, C, L in ohm, F, H; K: coupling
    char *wave;         // V, I: the source's expression in t
    int l1, l2;         // K: the inductors (element indices)
    double ic;          // L: initial current (IC=)
    int card;           // where it came from
    int scope_card;     // X card that instantiated it (-1 at top level)
} element;

typedef struct netlist {
    const char *path;
    char *data;
    char **line;        // physical lines (for messages)
    int n_lines;
    card *cards;
    int n_cards, cap_cards;
    subckt *subs;
    int n_subs, cap_subs;
    char **param_name;
    double *param_value;
    int n_params, cap_params;
    element *el;
    int n_el, cap_el;
    char **node;        // flattened node names
    int n_nodes, cap_nodes;
    double *node_ic;    // per node (NAN: none)
    int *driver;        // per node: the grounded voltage source that sets its voltage, or -1
    int *ic_card;
    double tstep, tstop, tmax;
    int have_tran, tran_card;
    text_buf msg;
    int errors;
    int nomem;
} netlist;

static int report(netlist *nl, int line, int col, const char *format, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;

static int report(netlist *nl, int line, int col, const char *format, ...)
{
    char body[512];
    va_list args;
    va_start(args, format);
    vsnprintf(body, sizeof body, format, args);
    va_end(args);
    tb_printf(&nl->msg, "%s:%d:%d: error: %s\n", nl->path, line, col, body);
    if (line >= 1 && line <= nl->n_lines) {
        tb_printf(&nl->msg, "%s\n", nl->line[line - 1]);
        tb_printf(&nl->msg, "%*s^\n", col - 1, "");
    }
    nl->errors++;
    return -1;
}

static int report_at(netlist *nl, const token *t, const char *format, const char *arg)
{
    return report(nl, t->line, t->col, format, arg);
}

static void *grow(netlist *nl, void *items, int *cap, int need, size_t size)
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

static char *dup_range(netlist *nl, const char *s, size_t len)
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

// --- reading: physical lines into cards ------------------------------------------------

static int add_token(netlist *nl, card *c, const char *s, size_t len, int line, int col)
{
    token *t = grow(nl, c->t, &c->cap, c->n + 1, sizeof *c->t);
    if (!t)
        return -1;
    c->t = t;
    char *text = dup_range(nl, s, len);
    if (!text)
        return -1;
    c->t[c->n++] = (token){ text, line, col };
    return 0;
}

// splits one physical line into the tokens of card c: separators are blanks and commas;
// ( ) = are tokens of their own; {...} is one token; ; and $ start a comment
static int tokenize(netlist *nl, card *c, const char *s, int line, int skip)
{
    int i = skip;
    int n = (int)strlen(s);
    while (i < n) {
        char ch = s[i];
        if (ch == ' ' || ch == '\t' || ch == ',' || ch == '\r') {
            i++;
            continue;
        }
        if (ch == ';' || (ch == '$' && (i == 0 || s[i - 1] == ' ' || s[i - 1] == '\t')))
            break;
        int start = i;
        if (ch == '(' || ch == ')' || ch == '=') {
            i++;
        } else if (ch == '{') {
            while (i < n && s[i] != '}')
                i++;
            if (i >= n)
                return report(nl, line, start + 1, "'{' is not closed on this line%s", "");
            i++;
        } else {
            while (i < n && !strchr(" \t,\r()=;{", s[i]))
                i++;
        }
        if (add_token(nl, c, s + start, (size_t)(i - start), line, start + 1) != 0)
            return -1;
    }
    return 0;
}

static int read_cards(netlist *nl)
{
    FILE *f = fopen(nl->path, "rb");
    if (!f) {
        tb_printf(&nl->msg, "%s: error: cannot read the netlist\n", nl->path);
        nl->errors++;
        return -1;
    }
    size_t cap = 1 << 16, len = 0;
    char *data = malloc(cap);
    size_t got;
    while (data && (got = fread(data + len, 1, cap - len - 1, f)) > 0) {
        len += got;
        if (cap - len < 2) {
            char *d = realloc(data, cap * 2);
            if (!d) {
                free(data);
                data = NULL;
            }
            data = d;
            cap *= 2;
        }
    }
    fclose(f);
    if (!data) {
        nl->nomem = 1;
        return -1;
    }
    data[len] = '\0';
    nl->data = data;
    int lines = 1;
    for (size_t i = 0; i < len; i++)
        lines += data[i] == '\n';
    nl->line = malloc((size_t)lines * sizeof *nl->line);
    if (!nl->line) {
        nl->nomem = 1;
        return -1;
    }
    char *p = data;
    for (;;) {
        nl->line[nl->n_lines++] = p;
        char *e = strchr(p, '\n');
        if (!e)
            break;
        *e = '\0';
        if (e > p && e[-1] == '\r')
            e[-1] = '\0';
        p = e + 1;
    }
    // the first line is the title; '*' starts a comment line; '+' continues the card before
    for (int l = 1; l < nl->n_lines; l++) {
        const char *s = nl->line[l];
        int i = 0;
        while (s[i] == ' ' || s[i] == '\t')
            i++;
        if (s[i] == '\0' || s[i] == '*' || s[i] == ';')
            continue;
        if (s[i] == '+') {
            if (nl->n_cards == 0)
                return report(nl, l + 1, i + 1, "continuation line '+' without a line before "
                                                "it%s", "");
            if (tokenize(nl, &nl->cards[nl->n_cards - 1], s, l + 1, i + 1) != 0)
                return -1;
            continue;
        }
        card *cards = grow(nl, nl->cards, &nl->cap_cards, nl->n_cards + 1, sizeof *cards);
        if (!cards)
            return -1;
        nl->cards = cards;
        card *c = &nl->cards[nl->n_cards++];
        memset(c, 0, sizeof *c);
        c->line = l + 1;
        if (tokenize(nl, c, s, l + 1, i) != 0)
            return -1;
    }
    return 0;
}

// --- numbers and expressions -------------------------------------------------------------

// SPICE number: a decimal number, then an optional scale suffix (f p n u m k meg g t mil),
// then any letters, which SPICE ignores (units: 10uF, 1kohm). Returns the characters read
// (0 if no number starts at s).
static size_t spice_number(const char *s, double *value)
{
    if (!(isdigit((unsigned char)s[0]) || (s[0] == '.' && isdigit((unsigned char)s[1]))))
        return 0;
    char *end = NULL;
    double v = strtod(s, &end);
    size_t i = (size_t)(end - s);
    // small scales divide (10u = 10/1e6 = 1e-05 exactly rounded), large ones multiply
    double scale = 1.0, divisor = 1.0;
    if (strncmp(s + i, "meg", 3) == 0)
        scale = 1e6;
    else if (strncmp(s + i, "mil", 3) == 0)
        scale = 25.4e-6;
    else
        switch (s[i]) {
        case 'f': divisor = 1e15; break;
        case 'p': divisor = 1e12; break;
        case 'n': divisor = 1e9; break;
        case 'u': divisor = 1e6; break;
        case 'm': divisor = 1e3; break;
        case 'k': scale = 1e3; break;
        case 'g': scale = 1e9; break;
        case 't': scale = 1e12; break;
        default: break;
        }
    *value = v * scale / divisor;
    // a power-of-ten scale on a plain decimal: read "4.7e-12" itself (correctly rounded)
    size_t digits = (size_t)(end - s);
    int exponent = scale == 1e3 ? 3 : scale == 1e6 ? 6 : scale == 1e9 ? 9 : scale == 1e12 ? 12
                 : divisor == 1e3 ? -3 : divisor == 1e6 ? -6 : divisor == 1e9 ? -9
                 : divisor == 1e12 ? -12 : divisor == 1e15 ? -15 : 0;
    if (exponent != 0 && digits < 40 && !memchr(s, 'e', digits) && !memchr(s, 'E', digits)) {
        char text[64];
        snprintf(text, sizeof text, "%.*se%d", (int)digits, s, exponent);
        *value = strtod(text, NULL);
    }
    while (isalpha((unsigned char)s[i]))
        i++;
    return i;
}

typedef struct expr_reader {
    netlist *nl;
    const token *tok;
    const char *s;
    size_t i;
    int depth;
    int failed;
} expr_reader;

static double read_sum(expr_reader *r);

static int expr_fail(expr_reader *r, const char *what)
{
    if (!r->failed)
        report(r->nl, r->tok->line, r->tok->col + (int)r->i, "%s", what);
    r->failed = 1;
    return 0;
}

static void skip_blanks(expr_reader *r)
{
    while (r->s[r->i] == ' ' || r->s[r->i] == '\t')
        r->i++;
}

static int param_lookup(const netlist *nl, const char *name, size_t len, double *value)
{
    for (int k = nl->n_params - 1; k >= 0; k--)
        if (strlen(nl->param_name[k]) == len && memcmp(nl->param_name[k], name, len) == 0) {
            *value = nl->param_value[k];
            return 1;
        }
    return 0;
}

static double apply_function(expr_reader *r, const char *name, size_t len, const double *a,
                             int argc)
{
    static const struct {
        const char *name;
        int argc;
    } fn[] = { { "sqrt", 1 }, { "exp", 1 }, { "log", 1 }, { "ln", 1 }, { "log10", 1 },
               { "sin", 1 }, { "cos", 1 },  { "tan", 1 }, { "atan", 1 }, { "sinh", 1 },
               { "cosh", 1 }, { "tanh", 1 }, { "abs", 1 }, { "pow", 2 }, { "min", 2 },
               { "max", 2 } };
    for (size_t k = 0; k < sizeof fn / sizeof fn[0]; k++) {
        if (strlen(fn[k].name) != len || memcmp(fn[k].name, name, len) != 0)
            continue;
        if (argc != fn[k].argc) {
            expr_fail(r, "wrong number of arguments");
            return 0;
        }
        switch (k) {
        case 0: return sqrt(a[0]);
        case 1: return exp(a[0]);
        case 2: case 3: return log(a[0]);
        case 4: return log10(a[0]);
        case 5: return sin(a[0]);
        case 6: return cos(a[0]);
        case 7: return tan(a[0]);
        case 8: return atan(a[0]);
        case 9: return sinh(a[0]);
        case 10: return cosh(a[0]);
        case 11: return tanh(a[0]);
        case 12: return fabs(a[0]);
        case 13: return pow(a[0], a[1]);
        case 14: return a[0] < a[1] ? a[0] : a[1];
        default: return a[0] > a[1] ? a[0] : a[1];
        }
    }
    expr_fail(r, "unknown function");
    return 0;
}

static double read_atom(expr_reader *r)
{
    skip_blanks(r);
    const char *s = r->s + r->i;
    double v;
    size_t n = spice_number(s, &v);
    if (n > 0) {
        r->i += n;
        return v;
    }
    if (*s == '(') {
        r->i++;
        v = read_sum(r);
        skip_blanks(r);
        if (r->s[r->i] != ')')
            return expr_fail(r, "expected ')'");
        r->i++;
        return v;
    }
    if (isalpha((unsigned char)*s) || *s == '_') {
        size_t len = 0;
        while (isalnum((unsigned char)s[len]) || s[len] == '_')
            len++;
        r->i += len;
        skip_blanks(r);
        if (r->s[r->i] == '(') {
            double a[2] = { 0, 0 };
            int argc = 0;
            r->i++;
            for (;;) {
                double x = read_sum(r);
                if (argc < 2)
                    a[argc] = x;
                argc++;
                skip_blanks(r);
                if (r->s[r->i] == ',') {
                    r->i++;
                    continue;
                }
                if (r->s[r->i] != ')')
                    return expr_fail(r, "expected ')'");
                r->i++;
                break;
            }
            return apply_function(r, s, len, a, argc);
        }
        if (len == 2 && memcmp(s, "pi", 2) == 0)
            return 3.14159265358979323846;
        if (param_lookup(r->nl, s, len, &v))
            return v;
        r->i -= len;
        return expr_fail(r, "unknown parameter");
    }
    return expr_fail(r, "expected a number, a parameter or '('");
}

static double read_power(expr_reader *r)
{
    if (++r->depth > SPICE_EXPR_DEPTH_MAX)
        return expr_fail(r, "expression nested too deeply");
    skip_blanks(r);
    double v;
    if (r->s[r->i] == '-' || r->s[r->i] == '+') {
        int neg = r->s[r->i] == '-';
        r->i++;
        v = read_power(r);
        v = neg ? -v : v;
    } else {
        v = read_atom(r);
        skip_blanks(r);
        if (r->s[r->i] == '^' || (r->s[r->i] == '*' && r->s[r->i + 1] == '*')) {
            r->i += r->s[r->i] == '^' ? 1 : 2;
            v = pow(v, read_power(r));
        }
    }
    r->depth--;
    return v;
}

static double read_product(expr_reader *r)
{
    double v = read_power(r);
    for (;;) {
        skip_blanks(r);
        char c = r->s[r->i];
        if ((c != '*' && c != '/') || r->failed)
            return v;
        r->i++;
        double w = read_power(r);
        v = c == '*' ? v * w : v / w;
    }
}

static double read_sum(expr_reader *r)
{
    if (++r->depth > SPICE_EXPR_DEPTH_MAX)
        return expr_fail(r, "expression nested too deeply");
    double v = read_product(r);
    for (;;) {
        skip_blanks(r);
        char c = r->s[r->i];
        if ((c != '+' && c != '-') || r->failed)
            break;
        r->i++;
        double w = read_product(r);
        v = c == '+' ? v + w : v - w;
    }
    r->depth--;
    return v;
}

// the value of a token: a SPICE number, a {expression}, or a parameter name
static int token_value(netlist *nl, const token *t, double *value)
{
    const char *s = t->s;
    size_t len = strlen(s);
    expr_reader r = { nl, t, s, 0, 0, 0 };
    if (s[0] == '{') {
        r.i = 1;
        *value = read_sum(&r);
        skip_blanks(&r);
        if (!r.failed && r.i != len - 1)
            expr_fail(&r, "unexpected text in the expression");
    } else {
        *value = read_sum(&r);
        if (!r.failed && r.i != len)
            expr_fail(&r, "expected a value (a number such as 1k, 10u, 2meg, or {expression})");
    }
    if (r.failed)
        return -1;
    if (!isfinite(*value))
        return report_at(nl, t, "the value '%s' is not finite", s);
    return 0;
}

// --- directives --------------------------------------------------------------------------

static int add_param(netlist *nl, const char *name, double value)
{
    char **names = grow(nl, nl->param_name, &nl->cap_params, nl->n_params + 1, sizeof *names);
    if (!names)
        return -1;
    nl->param_name = names;
    double *values = realloc(nl->param_value, (size_t)nl->cap_params * sizeof *values);
    if (!values) {
        nl->nomem = 1;
        return -1;
    }
    nl->param_value = values;
    nl->param_name[nl->n_params] = (char *)name;
    nl->param_value[nl->n_params++] = value;
    return 0;
}

// .param a = 1k b = {2*a} ...
static int read_param(netlist *nl, const card *c)
{
    if (c->n < 4)
        return report_at(nl, &c->t[0], "expected .param NAME = VALUE%s", "");
    for (int k = 1; k < c->n; k += 3) {
        if (k + 2 >= c->n || strcmp(c->t[k + 1].s, "=") != 0)
            return report_at(nl, &c->t[k], "expected NAME = VALUE after '%s'", c->t[k - 1].s);
        if (!isalpha((unsigned char)c->t[k].s[0]))
            return report_at(nl, &c->t[k], "'%s' is not a parameter name", c->t[k].s);
        double v;
        if (token_value(nl, &c->t[k + 2], &v) != 0)
            return -1;
        if (add_param(nl, c->t[k].s, v) != 0)
            return -1;
    }
    return 0;
}

// .tran TSTEP TSTOP [TSTART [TMAX]] [UIC]
static int read_tran(netlist *nl, const card *c, int index)
{
    double v[4] = { 0, 0, 0, 0 };
    int n = 0;
    for (int k = 1; k < c->n; k++) {
        if (strcmp(c->t[k].s, "uic") == 0)
            continue;
        if (n >= 4)
            return report_at(nl, &c->t[k], "unexpected '%s' (.tran TSTEP TSTOP [TSTART "
                                           "[TMAX]] [UIC])", c->t[k].s);
        if (token_value(nl, &c->t[k], &v[n]) != 0)
            return -1;
        n++;
    }
    if (n < 2 || v[0] <= 0 || v[1] <= 0)
        return report_at(nl, &c->t[0], "expected .tran TSTEP TSTOP with positive times%s", "");
    if (n >= 3 && v[2] != 0)
        return report_at(nl, &c->t[3], "TSTART = %s is not supported (dirac writes the run "
                                       "from t = 0)", c->t[3].s);
    nl->tstep = v[0];
    nl->tstop = v[1];
    nl->tmax = n >= 4 ? v[3] : 0;
    nl->have_tran = 1;
    nl->tran_card = index;
    return 0;
}

static int find_node(netlist *nl, const char *name)
{
    if (strcmp(name, "0") == 0 || strcmp(name, "gnd") == 0)
        return -1;
    for (int k = 0; k < nl->n_nodes; k++)
        if (strcmp(nl->node[k], name) == 0)
            return k;
    char **nodes = grow(nl, nl->node, &nl->cap_nodes, nl->n_nodes + 1, sizeof *nodes);
    if (!nodes)
        return -2;
    nl->node = nodes;
    size_t len = strlen(name);
    char *copy = dup_range(nl, name, len);
    if (!copy)
        return -2;
    double *ic = realloc(nl->node_ic, (size_t)nl->cap_nodes * sizeof *ic);
    if (!ic) {
        free(copy);
        nl->nomem = 1;
        return -2;
    }
    nl->node_ic = ic;
    nl->node_ic[nl->n_nodes] = NAN;   // no initial voltage given
    nl->node[nl->n_nodes] = copy;
    return nl->n_nodes++;
}

// --- elements and subcircuits ------------------------------------------------------------

typedef struct scope {
    const char *prefix;      // "" or "x1.x2."
    const subckt *sub;       // NULL at top level
    const card *instance;    // the X card
    const struct scope *up;
    int depth;
} scope;

// the flattened name of node `name` in scope s: a port maps to the instance's node there
static char *scoped_node(netlist *nl, const scope *s, const char *name)
{
    if (strcmp(name, "0") == 0 || strcmp(name, "gnd") == 0)
        return dup_range(nl, "0", 1);
    if (s->sub) {
        const card *h = &nl->cards[s->sub->header];
        for (int p = 2; p < h->n; p++)
            if (strcmp(h->t[p].s, name) == 0)
                return scoped_node(nl, s->up, s->instance->t[p - 1].s);
    }
    size_t lp = strlen(s->prefix), ln = strlen(name);
    char *out = malloc(lp + ln + 1);
    if (!out) {
        nl->nomem = 1;
        return NULL;
    }
    memcpy(out, s->prefix, lp);
    memcpy(out + lp, name, ln + 1);
    return out;
}

static int node_of(netlist *nl, const scope *s, const token *t)
{
    char *name = scoped_node(nl, s, t->s);
    if (!name)
        return -2;
    int k = find_node(nl, name);
    free(name);
    return k;
}

static element *new_element(netlist *nl, const scope *s, const card *c, int index)
{
    element *el = grow(nl, nl->el, &nl->cap_el, nl->n_el + 1, sizeof *el);
    if (!el)
        return NULL;
    nl->el = el;
    element *e = &nl->el[nl->n_el++];
    memset(e, 0, sizeof *e);
    e->type = c->t[0].s[0];
    e->card = index;
    e->l1 = e->l2 = -1;
    e->ic = 0;
    size_t lp = strlen(s->prefix), ln = strlen(c->t[0].s);
    e->name = malloc(lp + ln + 1);
    if (!e->name) {
        nl->nomem = 1;
        return NULL;
    }
    memcpy(e->name, s->prefix, lp);
    memcpy(e->name + lp, c->t[0].s, ln + 1);
    return e;
}

// the shortest of %.15g, %.16g, %.17g that reads back as v
static const char *number_text(char *buf, size_t size, double v)
{
    for (int digits = 15; digits <= 17; digits++) {
        snprintf(buf, size, "%.*g", digits, v);
        if (strtod(buf, NULL) == v)
            break;
    }
    return buf;
}

// appends "x1, y1, x2, y2, ..." points of a PULSE unrolled over [0, tstop]
static int pulse_wave(netlist *nl, const token *at, const double *p, int n, text_buf *w)
{
    double v1 = p[0], v2 = p[1];
    double td = n > 2 ? p[2] : 0, tr = n > 3 && p[3] > 0 ? p[3] : nl->tstep;
    double tf = n > 4 && p[4] > 0 ? p[4] : nl->tstep;
    double pw = n > 5 ? p[5] : nl->tstop, per = n > 6 && p[6] > 0 ? p[6] : nl->tstop;
    if (tr + pw + tf > per && n > 6)
        return report_at(nl, at, "PULSE: TR + PW + TF exceeds the period%s", "");
    if ((nl->tstop - td) / per > 1e5)
        return report_at(nl, at, "PULSE: more than 1e5 periods before TSTOP%s", "");
    char a[32], b[32];
    tb_printf(w, "pwl(t, %s, %s", number_text(a, sizeof a, td), number_text(b, sizeof b, v1));
    for (double start = td; start <= nl->tstop; start += per) {
        double pts[4][2] = { { start, v1 }, { start + tr, v2 }, { start + tr + pw, v2 },
                             { start + tr + pw + tf, v1 } };
        for (int k = start == td ? 1 : 0; k < 4; k++)
            tb_printf(w, ", %s, %s", number_text(a, sizeof a, pts[k][0]),
                      number_text(b, sizeof b, pts[k][1]));
        if (n <= 6)
            break;   // no period: one pulse
    }
    tb_printf(w, ")");
    return 0;
}

// the source description after the nodes: [DC] v | SIN(...) | PULSE(...) | PWL(...) | EXP(...),
// with AC specifications skipped (no AC analysis here); writes the expression in t
static int source_wave(netlist *nl, const card *c, element *e)
{
    text_buf w = { NULL, 0, 0, 0 };
    double dc = 0;
    int have_wave = 0;
    char a[32], b[32], x[32], y[32];
    for (int k = 3; k < c->n; k++) {
        const token *t = &c->t[k];
        if (strcmp(t->s, "dc") == 0) {
            if (k + 1 >= c->n)
                return report_at(nl, t, "DC needs a value%s", "");
            if (token_value(nl, &c->t[++k], &dc) != 0)
                return -1;
            continue;
        }
        if (strcmp(t->s, "ac") == 0) {   // AC magnitude and phase: not a transient source
            while (k + 1 < c->n && (isdigit((unsigned char)c->t[k + 1].s[0]) ||
                                    c->t[k + 1].s[0] == '.' || c->t[k + 1].s[0] == '-' ||
                                    c->t[k + 1].s[0] == '{'))
                k++;
            continue;
        }
        int is_fn = k + 1 < c->n && strcmp(c->t[k + 1].s, "(") == 0;
        if (!is_fn) {
            if (token_value(nl, t, &dc) != 0)
                return -1;
            continue;
        }
        // FN ( args )
        double p[4096];
        int n = 0, close = k + 2;
        for (; close < c->n && strcmp(c->t[close].s, ")") != 0; close++) {
            if (n >= 4096)
                return report_at(nl, &c->t[close], "too many values in %s(...)", t->s);
            if (token_value(nl, &c->t[close], &p[n++]) != 0)
                return -1;
        }
        if (close >= c->n)
            return report_at(nl, &c->t[k + 1], "'(' of %s is not closed", t->s);
        if (have_wave)
            return report_at(nl, t, "a second transient function %s(...) on one source", t->s);
        have_wave = 1;
        if (strcmp(t->s, "sin") == 0) {
            if (n < 2 || n > 6)
                return report_at(nl, t, "SIN takes VO VA [FREQ [TD [THETA [PHASE]]]]%s", "");
            double freq = n > 2 && p[2] > 0 ? p[2] : 1.0 / nl->tstop, td = n > 3 ? p[3] : 0;
            double theta = n > 4 ? p[4] : 0, phase = n > 5 ? p[5] * 3.14159265358979323846 / 180.0 : 0;
            char f[32], d[32], th[32], ph[32];
            number_text(f, sizeof f, freq);
            number_text(d, sizeof d, td);
            number_text(th, sizeof th, theta);
            number_text(ph, sizeof ph, phase);
            number_text(a, sizeof a, p[0]);
            number_text(b, sizeof b, p[1]);
            if (td == 0 && theta == 0)
                tb_printf(&w, "%s + %s*sin(2*pi*%s*t + %s)", a, b, f, ph);
            else
                tb_printf(&w, "if(t < %s, %s + %s*sin(%s), %s + %s*exp(-(t - %s)*%s)*sin(2*pi*%s*"
                              "(t - %s) + %s))", d, a, b, ph, a, b, d, th, f, d, ph);
        } else if (strcmp(t->s, "pulse") == 0) {
            if (n < 2 || n > 7)
                return report_at(nl, t, "PULSE takes V1 V2 [TD [TR [TF [PW [PER]]]]]%s", "");
            if (!nl->have_tran)
                return report_at(nl, t, "PULSE needs a .tran line (its defaults and the number "
                                        "of periods come from TSTEP and TSTOP)%s", "");
            if (pulse_wave(nl, t, p, n, &w) != 0)
                return -1;
        } else if (strcmp(t->s, "pwl") == 0) {
            if (n < 2 || n % 2 != 0)
                return report_at(nl, t, "PWL takes pairs T1 V1 T2 V2 ...%s", "");
            tb_printf(&w, "pwl(t");
            for (int j = 0; j < n; j += 2) {
                if (j > 0 && p[j] < p[j - 2])
                    return report_at(nl, &c->t[k + 2 + j], "PWL times must not decrease%s", "");
                tb_printf(&w, ", %s, %s", number_text(a, sizeof a, p[j]),
                          number_text(b, sizeof b, p[j + 1]));
            }
            tb_printf(&w, ")");
        } else if (strcmp(t->s, "exp") == 0) {
            if (n < 2 || n > 6)
                return report_at(nl, t, "EXP takes V1 V2 [TD1 [TAU1 [TD2 [TAU2]]]]%s", "");
            double td1 = n > 2 ? p[2] : 0, tau1 = n > 3 && p[3] > 0 ? p[3] : nl->tstep;
            double td2 = n > 4 ? p[4] : td1 + nl->tstep, tau2 = n > 5 && p[5] > 0 ? p[5] : nl->tstep;
            if (!(tau1 > 0) || !(tau2 > 0))
                return report_at(nl, t, "EXP needs TAU1 and TAU2 (or a .tran line)%s", "");
            number_text(a, sizeof a, p[0]);
            number_text(b, sizeof b, p[1]);
            number_text(x, sizeof x, td1);
            number_text(y, sizeof y, td2);
            char t1[32], t2[32];
            number_text(t1, sizeof t1, tau1);
            number_text(t2, sizeof t2, tau2);
            tb_printf(&w, "%s + (%s - %s)*step(t - %s)*(1 - exp(-(t - %s)/%s)) + (%s - %s)*step(t "
                          "- %s)*(1 - exp(-(t - %s)/%s))", a, b, a, x, x, t1, a, b, y, y, t2);
        } else {
            return report_at(nl, t, "unsupported source function '%s' (dirac reads DC, SIN, "
                                    "PULSE, PWL and EXP)", t->s);
        }
        k = close;
    }
    if (!have_wave)
        tb_printf(&w, "%s", number_text(a, sizeof a, dc));
    if (w.failed) {
        free(w.s);
        nl->nomem = 1;
        return -1;
    }
    e->wave = w.s;
    return 0;
}

static int flatten(netlist *nl, const scope *s, int first, int last);

static const char *element_kind_name(char type)
{
    switch (type) {
    case 'd': return "a diode";
    case 'q': return "a bipolar transistor";
    case 'm': return "a MOSFET";
    case 'j': return "a JFET";
    case 'z': return "a MESFET";
    case 'e': return "a voltage-controlled voltage source";
    case 'f': return "a current-controlled current source";
    case 'g': return "a voltage-controlled current source";
    case 'h': return "a current-controlled voltage source";
    case 'b': return "a behavioural source";
    case 's': case 'w': return "a switch";
    case 't': case 'o': case 'u': case 'y': return "a transmission line";
    case 'a': return "an XSPICE model";
    case 'n': case 'p': return "a device model";
    default: return "an unknown element";
    }
}

// IC=value among the tokens from k on: 1 and *value when present
static int ic_option(netlist *nl, const card *c, int k, double *value, int *error)
{
    for (; k + 2 < c->n; k++)
        if (strcmp(c->t[k].s, "ic") == 0 && strcmp(c->t[k + 1].s, "=") == 0) {
            *error = token_value(nl, &c->t[k + 2], value);
            return 1;
        }
    return 0;
}

static int read_element(netlist *nl, const scope *s, const card *c, int index)
{
    const token *t0 = &c->t[0];
    char type = t0->s[0];
    if (type == 'x') {
        if (c->n < 2)
            return report_at(nl, t0, "expected %s NODES... SUBCIRCUIT", t0->s);
        const char *sub_name = c->t[c->n - 1].s;
        const subckt *sub = NULL;
        for (int k = 0; k < nl->n_subs; k++)
            if (strcmp(nl->subs[k].name, sub_name) == 0)
                sub = &nl->subs[k];
        if (!sub)
            return report_at(nl, &c->t[c->n - 1], "unknown subcircuit '%s'", sub_name);
        int ports = nl->cards[sub->header].n - 2;
        if (c->n - 2 != ports) {
            char msg[160];
            snprintf(msg, sizeof msg, "%%s connects %d node%s, subcircuit '%s' has %d port%s",
                     c->n - 2, c->n - 2 == 1 ? "" : "s", sub_name, ports, ports == 1 ? "" : "s");
            return report_at(nl, t0, msg, t0->s);
        }
        if (s->depth >= SPICE_SUBCKT_DEPTH_MAX)
            return report_at(nl, t0, "subcircuits nested too deeply at %s (a subcircuit that "
                                     "contains itself?)", t0->s);
        size_t lp = strlen(s->prefix), ln = strlen(t0->s);
        char *prefix = malloc(lp + ln + 2);
        if (!prefix) {
            nl->nomem = 1;
            return -1;
        }
        memcpy(prefix, s->prefix, lp);
        memcpy(prefix + lp, t0->s, ln);
        prefix[lp + ln] = '.';
        prefix[lp + ln + 1] = '\0';
        scope inner = { prefix, sub, c, s, s->depth + 1 };
        int r = flatten(nl, &inner, sub->first, sub->last);
        free(prefix);
        return r;
    }
    if (!strchr("rclkvi", type)) {
        char msg[200];
        snprintf(msg, sizeof msg, "unsupported element '%%s' (%s): dirac imports R, C, L, K, "
                                  "V, I and X", element_kind_name(type));
        return report_at(nl, t0, msg, t0->s);
    }
    int need = type == 'v' || type == 'i' ? 3 : 4;
    if (c->n < need)
        return report_at(nl, t0, type == 'k' ? "expected %s L1 L2 COUPLING"
                                 : type == 'v' || type == 'i' ? "expected %s N+ N- SOURCE"
                                                               : "expected %s N+ N- VALUE",
                         t0->s);
    element *e = new_element(nl, s, c, index);
    if (!e)
        return -1;
    if (type == 'k') {
        if (token_value(nl, &c->t[3], &e->value) != 0)
            return -1;
        if (!(e->value > 0 && e->value < 1))
            return report_at(nl, &c->t[3], "the coupling '%s' must lie strictly between 0 and "
                                           "1", c->t[3].s);
        // inductor names resolved after flattening: keep them in the name list via wave
        size_t lp = strlen(s->prefix);
        for (int k = 0; k < 2; k++) {
            size_t ln = strlen(c->t[1 + k].s);
            char *n = malloc(lp + ln + 1);
            if (!n) {
                nl->nomem = 1;
                return -1;
            }
            memcpy(n, s->prefix, lp);
            memcpy(n + lp, c->t[1 + k].s, ln + 1);
            int found = -1;
            for (int j = 0; j < nl->n_el; j++)
                if (nl->el[j].type == 'l' && strcmp(nl->el[j].name, n) == 0)
                    found = j;
            free(n);
            if (found < 0)
                return report_at(nl, &c->t[1 + k], "'%s' is not an inductor defined before "
                                                   "this K line", c->t[1 + k].s);
            if (k == 0)
                e->l1 = found;
            else
                e->l2 = found;
        }
        if (e->l1 == e->l2)
            return report_at(nl, &c->t[2], "'%s' couples an inductor with itself", c->t[2].s);
        e->a = e->b = -1;
        return 0;
    }
    e->a = node_of(nl, s, &c->t[1]);
    e->b = node_of(nl, s, &c->t[2]);
    if (e->a == -2 || e->b == -2)
        return -1;
    if (e->a == e->b)
        return report_at(nl, &c->t[2], "both terminals of the element are node '%s'", c->t[2].s);
    if (type == 'v' || type == 'i')
        return source_wave(nl, c, e);
    if (token_value(nl, &c->t[3], &e->value) != 0)
        return -1;
    if (!(e->value > 0))
        return report_at(nl, &c->t[3], "the value '%s' must be positive", c->t[3].s);
    double ic = 0;
    int error = 0;
    if (ic_option(nl, c, 4, &ic, &error)) {
        if (error)
            return -1;
        if (type == 'l') {
            e->ic = ic;
        } else if (type == 'c') {
            // the capacitor's voltage: through a grounded terminal, a node's initial voltage
            int n = e->b < 0 ? e->a : e->a < 0 ? e->b : -1;
            if (n < 0)
                return report_at(nl, t0, "IC= on the floating capacitor %s: give the node "
                                         "voltages with .ic v(NODE)=VALUE", t0->s);
            nl->node_ic[n] = e->b < 0 ? ic : -ic;
        }
    } else if (c->n > 4) {
        return report_at(nl, &c->t[4], "unexpected '%s' (models and options of R, C and L "
                                       "are not supported)", c->t[4].s);
    }
    return 0;
}

static int flatten(netlist *nl, const scope *s, int first, int last)
{
    int status = 0;
    for (int i = first; i < last && !nl->nomem; i++) {
        const card *c = &nl->cards[i];
        if (!s->sub && strcmp(c->t[0].s, ".subckt") == 0) {   // a definition: read when used
            while (i < last && strcmp(nl->cards[i].t[0].s, ".ends") != 0)
                i++;
            continue;
        }
        if (c->t[0].s[0] == '.') {
            if (s->sub)
                status |= report_at(nl, &c->t[0], "'%s' inside a subcircuit is not supported "
                                                  "(put it at the top level)", c->t[0].s);
            continue;   // top-level directives: read before
        }
        if (read_element(nl, s, c, i) != 0)
            status = -1;
    }
    return status;
}

// .ic v(node)=value ...
static int read_ic(netlist *nl, const card *c)
{
    for (int k = 1; k < c->n; k += 6) {
        if (k + 5 >= c->n || strcmp(c->t[k].s, "v") != 0 || strcmp(c->t[k + 1].s, "(") != 0 ||
            strcmp(c->t[k + 3].s, ")") != 0 || strcmp(c->t[k + 4].s, "=") != 0)
            return report_at(nl, &c->t[k], "expected v(NODE)=VALUE after .ic, found '%s'",
                             c->t[k].s);
        int n = -1;
        const char *name = c->t[k + 2].s;
        for (int j = 0; j < nl->n_nodes; j++)
            if (strcmp(nl->node[j], name) == 0)
                n = j;
        if (n < 0)
            return report_at(nl, &c->t[k + 2], "no element connects to node '%s'", name);
        if (token_value(nl, &c->t[k + 5], &nl->node_ic[n]) != 0)
            return -1;
    }
    return 0;
}

static int read_directives(netlist *nl, int *top_last)
{
    int status = 0;
    *top_last = nl->n_cards;
    for (int i = 0; i < nl->n_cards; i++) {
        const card *c = &nl->cards[i];
        const char *d = c->t[0].s;
        if (d[0] != '.')
            continue;
        if (strcmp(d, ".end") == 0) {
            *top_last = i;
            break;
        }
        if (strcmp(d, ".subckt") == 0) {
            if (c->n < 3)
                return report_at(nl, &c->t[0], "expected .subckt NAME PORTS...%s", "");
            for (int k = 2; k < c->n; k++)
                if (strcmp(c->t[k].s, "=") == 0 || strcmp(c->t[k].s, "params:") == 0)
                    return report_at(nl, &c->t[k], "subcircuit parameters ('%s') are not "
                                                   "supported", c->t[k].s);
            int end = i + 1;
            while (end < nl->n_cards && strcmp(nl->cards[end].t[0].s, ".ends") != 0) {
                if (strcmp(nl->cards[end].t[0].s, ".subckt") == 0)
                    return report_at(nl, &nl->cards[end].t[0], "a .subckt inside a .subckt is "
                                     "not supported (define it at the top level)%s", "");
                end++;
            }
            if (end >= nl->n_cards)
                return report_at(nl, &c->t[0], ".subckt %s has no .ends", c->t[1].s);
            subckt *subs = grow(nl, nl->subs, &nl->cap_subs, nl->n_subs + 1, sizeof *subs);
            if (!subs)
                return -1;
            nl->subs = subs;
            for (int k = 0; k < nl->n_subs; k++)
                if (strcmp(nl->subs[k].name, c->t[1].s) == 0)
                    return report_at(nl, &c->t[1], "subcircuit '%s' is defined twice",
                                     c->t[1].s);
            nl->subs[nl->n_subs++] = (subckt){ c->t[1].s, i + 1, end, i };
            i = end;
            continue;
        }
        if (strcmp(d, ".param") == 0)
            status |= read_param(nl, c);
        else if (strcmp(d, ".tran") == 0)
            status |= read_tran(nl, c, i);
        else if (strcmp(d, ".ic") == 0 || strcmp(d, ".options") == 0 ||
                 strcmp(d, ".option") == 0 || strcmp(d, ".control") == 0 ||
                 strcmp(d, ".endc") == 0 || strcmp(d, ".title") == 0 || strcmp(d, ".ends") == 0)
            continue;   // .ic after the nodes exist; options belong to other simulators
        else
            status |= report_at(nl, &c->t[0], "unsupported directive '%s' (dirac reads .param, "
                                              ".subckt/.ends, .ic, .tran, .options and .end)", d);
    }
    return status;
}

// --- writing -----------------------------------------------------------------------------

// the identifier of a SPICE name: characters other than letters, digits and _ become _
static char *identifier(netlist *nl, const char *name)
{
    size_t n = strlen(name);
    char *s = dup_range(nl, name, n);
    if (!s)
        return NULL;
    for (size_t i = 0; i < n; i++)
        if (!isalnum((unsigned char)s[i]) && s[i] != '_')
            s[i] = '_';
    return s;
}

static void write_source_comment(netlist *nl, text_buf *o, int card_index)
{
    const card *c = &nl->cards[card_index];
    int last = card_index + 1 < nl->n_cards ? nl->cards[card_index + 1].line : nl->n_lines + 1;
    for (int l = c->line; l < last && l <= nl->n_lines; l++) {
        const char *s = nl->line[l - 1];
        while (*s == ' ' || *s == '\t')
            s++;
        if (*s == '\0' || *s == '*')
            continue;
        tb_printf(o, "# %s:%d: %s\n", nl->path, l, s);
    }
}

// the voltage of node n: phi_n', or the waveform of the grounded source that drives it
static void node_voltage(netlist *nl, text_buf *o, int n)
{
    if (nl->driver[n] >= 0) {
        const element *v = &nl->el[nl->driver[n]];
        tb_printf(o, v->a == n ? "%s" : "(-%s)", v->wave);
    } else {
        tb_printf(o, "phi_%s'", nl->node[n]);
    }
}

// v(a) - v(b) (velocity 1) or phi_a - phi_b; "0" when both are ground
static void difference(netlist *nl, text_buf *o, int a, int b, int velocity)
{
    if (velocity) {
        if (a >= 0 && b >= 0) {
            tb_printf(o, "(");
            node_voltage(nl, o, a);
            tb_printf(o, " - ");
            node_voltage(nl, o, b);
            tb_printf(o, ")");
        } else if (a >= 0) {
            node_voltage(nl, o, a);
        } else if (b >= 0) {
            tb_printf(o, "(-");
            node_voltage(nl, o, b);
            tb_printf(o, ")");
        } else {
            tb_printf(o, "0");
        }
        return;
    }
    if (a >= 0 && b >= 0)
        tb_printf(o, "(phi_%s - phi_%s)", nl->node[a], nl->node[b]);
    else if (a >= 0)
        tb_printf(o, "phi_%s", nl->node[a]);
    else if (b >= 0)
        tb_printf(o, "(-phi_%s)", nl->node[b]);
    else
        tb_printf(o, "0");
}

// grounded voltage sources whose node has no inductor (which would need its flux) set that
// node's voltage directly: the node needs no coordinate and the source no constraint
static int find_drivers(netlist *nl)
{
    nl->driver = malloc((size_t)(nl->n_nodes + 1) * sizeof *nl->driver);
    if (!nl->driver) {
        nl->nomem = 1;
        return -1;
    }
    for (int n = 0; n < nl->n_nodes; n++)
        nl->driver[n] = -1;
    for (int k = 0; k < nl->n_el; k++) {
        const element *e = &nl->el[k];
        if (e->type != 'v' || (e->a >= 0) == (e->b >= 0))
            continue;
        int n = e->a >= 0 ? e->a : e->b, inductor = 0;
        for (int j = 0; j < nl->n_el; j++)
            inductor |= nl->el[j].type == 'l' && (nl->el[j].a == n || nl->el[j].b == n);
        if (!inductor && nl->driver[n] < 0)
            nl->driver[n] = k;
    }
    return 0;
}

static char *difference_text(netlist *nl, int a, int b, int velocity)
{
    text_buf t = { NULL, 0, 0, 0 };
    difference(nl, &t, a, b, velocity);
    if (t.failed)
        nl->nomem = 1;
    return t.s;
}

// inverse of the n x n matrix m (row-major) by Gauss-Jordan with partial pivoting; -1 if
// singular
static int invert(int n, double *m, double *inv)
{
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++)
            inv[i * n + j] = i == j;
    for (int col = 0; col < n; col++) {
        int piv = col;
        for (int r = col + 1; r < n; r++)
            if (fabs(m[r * n + col]) > fabs(m[piv * n + col]))
                piv = r;
        if (!(fabs(m[piv * n + col]) > 0))
            return -1;
        for (int j = 0; j < n; j++) {
            double t = m[col * n + j];
            m[col * n + j] = m[piv * n + j];
            m[piv * n + j] = t;
            t = inv[col * n + j];
            inv[col * n + j] = inv[piv * n + j];
            inv[piv * n + j] = t;
        }
        double d = m[col * n + col];
        for (int j = 0; j < n; j++) {
            m[col * n + j] /= d;
            inv[col * n + j] /= d;
        }
        for (int r = 0; r < n; r++) {
            if (r == col || m[r * n + col] == 0)
                continue;
            double f = m[r * n + col];
            for (int j = 0; j < n; j++) {
                m[r * n + j] -= f * m[col * n + j];
                inv[r * n + j] -= f * inv[col * n + j];
            }
        }
    }
    return 0;
}

typedef struct writer {
    netlist *nl;
    text_buf *o;
    char **current;     // per element: its current as an expression (NULL: unknown)
    char **energy;      // per element: the name of its energy let (C, L) or NULL
} writer;

// inductors: uncoupled ones alone, coupled groups through the inverse inductance matrix
// Gamma: energy 1/2 lambda^T Gamma lambda, currents Gamma lambda, lambda_k the flux linkage
// of inductor k (node flux difference + its initial flux L i0)
static int write_inductors(writer *w)
{
    netlist *nl = w->nl;
    int *group = malloc((size_t)(nl->n_el + 1) * sizeof *group);
    if (!group) {
        nl->nomem = 1;
        return -1;
    }
    for (int k = 0; k < nl->n_el; k++)
        group[k] = k;
    for (int k = 0; k < nl->n_el; k++) {   // union of the pairs of each K
        if (nl->el[k].type != 'k')
            continue;
        int a = nl->el[k].l1, b = nl->el[k].l2;
        while (group[a] != a)
            a = group[a];
        while (group[b] != b)
            b = group[b];
        if (a != b)
            group[b] = a;
    }
    for (int k = 0; k < nl->n_el; k++) {
        int r = k;
        while (group[r] != r)
            r = group[r];
        group[k] = r;
    }
    int status = 0;
    for (int root = 0; root < nl->n_el && status == 0; root++) {
        if (nl->el[root].type != 'l' || group[root] != root)
            continue;
        int member[SPICE_COUPLED_MAX], n = 0;
        for (int k = 0; k < nl->n_el; k++)
            if (nl->el[k].type == 'l' && group[k] == root) {
                if (n >= SPICE_COUPLED_MAX) {
                    status = report(nl, nl->cards[nl->el[k].card].line, 1, "more than %d "
                                    "inductors coupled together", SPICE_COUPLED_MAX);
                    break;
                }
                member[n++] = k;
            }
        if (status)
            break;
        double lm[SPICE_COUPLED_MAX * SPICE_COUPLED_MAX], gm[SPICE_COUPLED_MAX * SPICE_COUPLED_MAX];
        for (int i = 0; i < n; i++)
            for (int j = 0; j < n; j++)
                lm[i * n + j] = i == j ? nl->el[member[i]].value : 0;
        int coupled_card = -1;
        for (int k = 0; k < nl->n_el; k++) {
            const element *e = &nl->el[k];
            if (e->type != 'k' || group[e->l1] != root)
                continue;
            int i = 0, j = 0;
            while (member[i] != e->l1)
                i++;
            while (member[j] != e->l2)
                j++;
            double m = e->value * sqrt(nl->el[e->l1].value * nl->el[e->l2].value);
            lm[i * n + j] += m;
            lm[j * n + i] += m;
            coupled_card = e->card;
        }
        double l0[SPICE_COUPLED_MAX];   // initial flux linkages L i0
        for (int i = 0; i < n; i++) {
            l0[i] = 0;
            for (int j = 0; j < n; j++)
                l0[i] += lm[i * n + j] * nl->el[member[j]].ic;
        }
        double lcopy[SPICE_COUPLED_MAX * SPICE_COUPLED_MAX];
        memcpy(lcopy, lm, sizeof(double) * (size_t)(n * n));
        if (invert(n, lcopy, gm) != 0) {
            status = report(nl, nl->cards[coupled_card >= 0 ? coupled_card
                                                            : nl->el[root].card].line, 1,
                            "the inductance matrix of %s and its coupled inductors is singular",
                            nl->el[root].name);
            break;
        }
        char *lambda[SPICE_COUPLED_MAX];
        char num[32];
        for (int i = 0; i < n; i++) {
            const element *e = &nl->el[member[i]];
            text_buf t = { NULL, 0, 0, 0 };
            difference(nl, &t, e->a, e->b, 0);
            if (l0[i] != 0) {   // (flux + L i0)
                text_buf u = { NULL, 0, 0, 0 };
                tb_printf(&u, "(%s + %s)", t.s, number_text(num, sizeof num, l0[i]));
                free(t.s);
                t = u;
            }
            lambda[i] = t.s;
        }
        for (int i = 0; i < n; i++) {
            const element *e = &nl->el[member[i]];
            text_buf cur = { NULL, 0, 0, 0 };
            if (n == 1) {
                tb_printf(w->o, "let e_%s = %s^2/(2*%s)     # magnetic energy\n", e->ident,
                          lambda[0], e->ident);
                tb_printf(&cur, "%s/%s", lambda[0], e->ident);
            } else {
                tb_printf(w->o, "let e_%s = %s/2*%s^2", e->ident,
                          number_text(num, sizeof num, gm[i * n + i]), lambda[i]);
                for (int j = i + 1; j < n; j++)
                    tb_printf(w->o, " %s %s*%s*%s", gm[i * n + j] < 0 ? "-" : "+",
                              number_text(num, sizeof num, fabs(gm[i * n + j])), lambda[i],
                              lambda[j]);
                tb_printf(w->o, "     # magnetic energy, 1/2 lambda^T inv(L) lambda over the "
                                "coupled group\n");
                tb_printf(&cur, "(");
                for (int j = 0; j < n; j++)
                    tb_printf(&cur, "%s%s*%s", gm[i * n + j] < 0 ? (j ? " - " : "-")
                                                                 : (j ? " + " : ""),
                              number_text(num, sizeof num, fabs(gm[i * n + j])), lambda[j]);
                tb_printf(&cur, ")");
            }
            if (cur.failed)
                nl->nomem = 1;
            w->current[member[i]] = cur.s;
            size_t len = strlen(e->ident) + 3;
            w->energy[member[i]] = malloc(len);
            if (w->energy[member[i]])
                snprintf(w->energy[member[i]], len, "e_%s", e->ident);
        }
        for (int i = 0; i < n; i++)
            free(lambda[i]);
    }
    free(group);
    return status;
}

// i(e) for the capacitors and voltage sources that Kirchhoff's current law at one of their
// nodes gives from currents already known
static void resolve_currents(writer *w)
{
    netlist *nl = w->nl;
    for (int changed = 1; changed;) {
        changed = 0;
        for (int k = 0; k < nl->n_el; k++) {
            element *e = &nl->el[k];
            if (w->current[k] || e->type == 'k')
                continue;
            for (int side = 0; side < 2 && !w->current[k]; side++) {
                int n = side == 0 ? e->a : e->b;
                if (n < 0)
                    continue;
                int known = 1;
                for (int j = 0; j < nl->n_el && known; j++)
                    if (j != k && nl->el[j].type != 'k' && (nl->el[j].a == n || nl->el[j].b == n))
                        known = w->current[j] != NULL;
                if (!known)
                    continue;
                // sum of the currents leaving n through the others; i(e) leaves n at side a
                text_buf t = { NULL, 0, 0, 0 };
                tb_printf(&t, "(");
                int terms = 0;
                for (int j = 0; j < nl->n_el; j++) {
                    if (j == k || nl->el[j].type == 'k')
                        continue;
                    int leaves = nl->el[j].a == n ? 1 : nl->el[j].b == n ? -1 : 0;
                    if (!leaves)
                        continue;
                    // i(e) = -(sum leaving) at side a, +(sum leaving) at side b
                    int sign = side == 0 ? -leaves : leaves;
                    tb_printf(&t, "%s%s", sign > 0 ? (terms ? " + " : "") : (terms ? " - " : "-"),
                              w->current[j]);
                    terms++;
                }
                tb_printf(&t, ")");
                if (t.failed) {
                    nl->nomem = 1;
                    return;
                }
                if (terms == 0) {
                    free(t.s);
                    t.s = malloc(2);
                    if (t.s)
                        strcpy(t.s, "0");
                }
                w->current[k] = t.s;
                changed = 1;
            }
        }
    }
}

static void write_model(netlist *nl, text_buf *o, const char *model_name, int top_last)
{
    char num[32];
    tb_printf(o, "# Imported by `dirac import spice` from %s (SPICE netlist); node-flux "
                 "formulation,\n# see docs/circuits.md: coordinate phi_N is the flux of node N, "
                 "its velocity phi_N' the\n# voltage v(N). Outputs: v_N = v(N), i_E = i(E) "
                 "(current from E's first node through E\n# to its second), p_E = power "
                 "absorbed by E; the current of voltage source V is also the\n# "
                 "multiplier column mu.kvl_V (its value over each step).\n", nl->path);
    tb_printf(o, "# %s:1: %s\n", nl->path, nl->line[0]);
    tb_printf(o, "model %s\n\n", model_name);
    for (int i = 0; i < nl->n_cards && i < top_last; i++) {
        const char *d = nl->cards[i].t[0].s;
        if (strcmp(d, ".param") == 0) {
            write_source_comment(nl, o, i);
            const card *c = &nl->cards[i];
            tb_printf(o, "#   ");
            for (int k = 1; k + 2 < c->n; k += 3) {
                double v = 0;
                param_lookup(nl, c->t[k].s, strlen(c->t[k].s), &v);
                tb_printf(o, "%s = %s  ", c->t[k].s, number_text(num, sizeof num, v));
            }
            tb_printf(o, "(folded into the element values below)\n");
        } else if (d[0] == '.' && strcmp(d, ".tran") != 0 && strcmp(d, ".ic") != 0) {
            write_source_comment(nl, o, i);
        }
    }
    if (find_drivers(nl) != 0)
        return;
    tb_printf(o, "\n# node fluxes (ground: node 0; nodes driven by a grounded voltage source "
                 "need none)\ncoordinate ");
    int coordinates = 0;
    for (int k = 0; k < nl->n_nodes; k++)
        if (nl->driver[k] < 0)
            tb_printf(o, "%sphi_%s", coordinates++ ? ", " : "", nl->node[k]);
    tb_printf(o, "\n");

    writer w = { nl, o, calloc((size_t)nl->n_el + 1, sizeof(char *)),
                 calloc((size_t)nl->n_el + 1, sizeof(char *)) };
    if (!w.current || !w.energy) {
        nl->nomem = 1;
        goto done;
    }
    // the sources' waveforms first (lets may only use what is defined before them), each a
    // let w_NAME that the rest of the model uses
    for (int k = 0; k < nl->n_el; k++) {
        element *e = &nl->el[k];
        if (e->type != 'v' && e->type != 'i')
            continue;
        tb_printf(o, "\n");
        write_source_comment(nl, o, e->card);
        tb_printf(o, "let w_%s = %s     # %s\n", e->ident, e->wave,
                  e->type == 'v' ? "volt" : "ampere");
        size_t len = strlen(e->ident) + 3;
        char *name = malloc(len);
        if (!name) {
            nl->nomem = 1;
            goto done;
        }
        snprintf(name, len, "w_%s", e->ident);
        free(e->wave);
        e->wave = name;
        char *dv = difference_text(nl, e->a, e->b, 1);
        if (!dv)
            goto done;
        if (e->type == 'i') {
            if (e->a >= 0 && nl->driver[e->a] < 0)
                tb_printf(o, "force phi_%s: -%s     # current leaving node %s\n",
                          nl->node[e->a], e->wave, nl->node[e->a]);
            if (e->b >= 0 && nl->driver[e->b] < 0)
                tb_printf(o, "force phi_%s: %s\n", nl->node[e->b], e->wave);
            size_t n = strlen(e->wave) + 1;
            w.current[k] = malloc(n);
            if (w.current[k])
                memcpy(w.current[k], e->wave, n);
        } else if ((e->a >= 0 && nl->driver[e->a] == k) || (e->b >= 0 && nl->driver[e->b] == k)) {
            tb_printf(o, "#   sets v(%s) = %s%s (no coordinate, no constraint)\n",
                      nl->node[e->a >= 0 ? e->a : e->b], e->a >= 0 ? "" : "-", e->wave);
        } else {
            // source = v(a) - v(b), so that the multiplier is SPICE's i(V) (docs/circuits.md)
            tb_printf(o, "constraint kvl_%s: %s = %s\n", e->ident, e->wave, dv);
        }
        free(dv);
    }
    // the elements, one parameter per value
    for (int k = 0; k < nl->n_el; k++) {
        element *e = &nl->el[k];
        if (e->type == 'v' || e->type == 'i')
            continue;
        tb_printf(o, "\n");
        write_source_comment(nl, o, e->card);
        char *dv = difference_text(nl, e->a, e->b, 1);
        if (!dv)
            goto done;
        switch (e->type) {
        case 'r':
            tb_printf(o, "parameter %s = %s     # ohm\n", e->ident,
                      number_text(num, sizeof num, e->value));
            if (e->a >= 0 && nl->driver[e->a] < 0)
                tb_printf(o, "force phi_%s: -%s/%s     # current leaving node %s\n",
                          nl->node[e->a], dv, e->ident, nl->node[e->a]);
            if (e->b >= 0 && nl->driver[e->b] < 0)
                tb_printf(o, "force phi_%s: %s/%s\n", nl->node[e->b], dv, e->ident);
            {
                text_buf t = { NULL, 0, 0, 0 };
                tb_printf(&t, "%s/%s", dv, e->ident);
                w.current[k] = t.s;
            }
            break;
        case 'c':
            tb_printf(o, "parameter %s = %s     # farad\n", e->ident,
                      number_text(num, sizeof num, e->value));
            tb_printf(o, "let e_%s = %s/2*%s^2     # electric co-energy\n", e->ident, e->ident, dv);
            {
                size_t len = strlen(e->ident) + 3;
                w.energy[k] = malloc(len);
                if (w.energy[k])
                    snprintf(w.energy[k], len, "e_%s", e->ident);
            }
            break;
        case 'l':
            tb_printf(o, "parameter %s = %s     # henry\n", e->ident,
                      number_text(num, sizeof num, e->value));
            break;
        case 'k':
            tb_printf(o, "#   coupling of %s and %s: M = %s H (in the energy of the group "
                         "below)\n", nl->el[e->l1].ident, nl->el[e->l2].ident,
                      number_text(num, sizeof num, e->value * sqrt(nl->el[e->l1].value *
                                                                   nl->el[e->l2].value)));
            break;
        default:
            break;
        }
        free(dv);
    }
    tb_printf(o, "\n# inductors\n");
    if (write_inductors(&w) != 0)
        goto done;
    resolve_currents(&w);

    tb_printf(o, "\n# L = electric co-energy of the capacitors - magnetic energy of the "
                 "inductors\nlagrangian ");
    int terms = 0;
    for (int k = 0; k < nl->n_el; k++)
        if (w.energy[k]) {
            tb_printf(o, "%s%s", nl->el[k].type == 'c' ? (terms ? " + " : "")
                                                         : (terms ? " - " : "-"),
                      w.energy[k]);
            terms++;
        }
    if (terms == 0)
        tb_printf(o, "0");
    tb_printf(o, "\n");

    // initial node voltages
    int any = 0;
    for (int k = 0; k < nl->n_nodes; k++)
        if (!isnan(nl->node_ic[k]) && nl->driver[k] < 0) {
            tb_printf(o, "%sphi_%s' = %s", any ? ", " : "\ninitial ", nl->node[k],
                      number_text(num, sizeof num, nl->node_ic[k]));
            any = 1;
        }
    if (any)
        tb_printf(o, "     # .ic and IC= (node voltages)\n");
    for (int i = 0; i < top_last; i++)
        if (strcmp(nl->cards[i].t[0].s, ".ic") == 0)
            write_source_comment(nl, o, i);

    if (nl->have_tran) {
        tb_printf(o, "\n");
        write_source_comment(nl, o, nl->tran_card);
        double dt = nl->tmax > 0 && nl->tmax < nl->tstep ? nl->tmax : nl->tstep;
        char a[32];
        tb_printf(o, "simulate method = dgrad, dt = %s, t_end = %s\n",
                  number_text(num, sizeof num, dt), number_text(a, sizeof a, nl->tstop));
    }

    tb_printf(o, "\n# node voltages\noutput ");
    for (int k = 0; k < nl->n_nodes; k++) {
        tb_printf(o, "%sv_%s = ", k ? ", " : "", nl->node[k]);
        node_voltage(nl, o, k);
    }
    tb_printf(o, "\n# branch currents and absorbed powers\n");
    for (int k = 0; k < nl->n_el; k++) {
        element *e = &nl->el[k];
        if (e->type == 'k')
            continue;
        if (!w.current[k]) {
            tb_printf(o, "# i(%s) and its power: not a function of the state (see mu.kvl_%s "
                         "or docs/circuits.md)\n", e->name, e->ident);
            continue;
        }
        char *dv = difference_text(nl, e->a, e->b, 1);
        if (!dv)
            goto done;
        tb_printf(o, "output i_%s = %s, p_%s = %s*%s\n", e->ident, w.current[k], e->ident, dv,
                  w.current[k]);
        free(dv);
    }
    if (top_last < nl->n_cards)
        write_source_comment(nl, o, top_last);   // .end
done:
    if (w.current)
        for (int k = 0; k < nl->n_el; k++)
            free(w.current[k]);
    if (w.energy)
        for (int k = 0; k < nl->n_el; k++)
            free(w.energy[k]);
    free(w.current);
    free(w.energy);
}

// checks that the sanitized names are distinct identifiers
static int make_identifiers(netlist *nl)
{
    static const char *const reserved[] = { "t", "pi", "sum", "d", "sin", "cos", "tan", "asin",
                                            "acos", "atan", "atan2", "sinh", "cosh", "tanh",
                                            "exp", "log", "sqrt", "abs", "sign", "step", "min",
                                            "max", "if", "clamp", "pwl", "table" };
    for (int k = 0; k < nl->n_nodes; k++) {
        char *id = identifier(nl, nl->node[k]);
        if (!id)
            return -1;
        free(nl->node[k]);
        nl->node[k] = id;
        for (int j = 0; j < k; j++)
            if (strcmp(nl->node[j], id) == 0)
                return report(nl, 1, 1, "two node names become the same identifier '%s' "
                                        "(characters other than letters, digits and _ become _)",
                              id);
    }
    for (int k = 0; k < nl->n_el; k++) {
        char *id = identifier(nl, nl->el[k].name);
        if (!id)
            return -1;
        for (size_t r = 0; r < sizeof reserved / sizeof reserved[0]; r++)
            if (strcmp(id, reserved[r]) == 0) {
                size_t n = strlen(id);
                char *longer = realloc(id, n + 2);
                if (!longer) {
                    free(id);
                    nl->nomem = 1;
                    return -1;
                }
                id = longer;
                strcpy(id + n, "_");
            }
        nl->el[k].ident = id;
        for (int j = 0; j < k; j++)
            if (strcmp(nl->el[j].ident, id) == 0)
                return report(nl, nl->cards[nl->el[k].card].line, 1, "element '%s' is defined "
                              "twice (or two names become the same identifier '%s')",
                              nl->el[k].name, id);
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
    if (read_cards(&nl) == 0 && read_directives(&nl, &top_last) == 0) {
        scope top = { "", NULL, NULL, NULL, 0 };
        if (flatten(&nl, &top, 0, top_last) == 0 && !nl.nomem) {
            for (int i = 0; i < top_last && nl.errors == 0; i++)
                if (strcmp(nl.cards[i].t[0].s, ".ic") == 0)
                    read_ic(&nl, &nl.cards[i]);
            if (nl.errors == 0 && nl.n_nodes == 0)
                report(&nl, 1, 1, "the netlist has no elements%s", "");
            if (nl.errors == 0 && make_identifiers(&nl) == 0) {
                text_buf o = { NULL, 0, 0, 0 };
                char name[128];
                model_name_of(path, name, sizeof name);
                write_model(&nl, &o, name, top_last);
                if (o.failed)
                    nl.nomem = 1;
                if (nl.errors == 0 && !nl.nomem)
                    *text = o.s;
                else
                    free(o.s);
            }
        }
    }
    if (nl.nomem)
        tb_printf(&nl.msg, "%s: error: out of memory\n", path);
    int failed = *text == NULL;
    if (failed && !nl.msg.s)
        tb_printf(&nl.msg, "%s: error: cannot import the netlist\n", path);
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
