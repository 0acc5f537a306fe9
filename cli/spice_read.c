// The SPICE reader (docs/circuits.md, "What is read"): physical lines into cards, SPICE
// numbers and {expressions}, the directives, and the elements flattened through subcircuits.
#include "spice_netlist.h"
#include "file_read.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

// --- reading: physical lines into cards ------------------------------------------------

static int add_token(netlist *nl, card *c, const char *s, size_t len, int line, int col)
{
    token *t = spice_grow(nl, c->t, &c->cap, c->n + 1, sizeof *c->t);
    if (!t)
        return -1;
    c->t = t;
    char *text = spice_dup(nl, s, len);
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
                return spice_report(nl, line, start + 1, "'{' is not closed on this line%s", "");
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
    char *data = NULL;
    size_t len = 0;
    int error = file_read(nl->path, &data, &len);
    if (error == ENOMEM) {
        nl->nomem = 1;
        return -1;
    }
    if (error) {
        spice_printf(&nl->msg, "%s: error: cannot read the netlist\n", nl->path);
        nl->errors++;
        return -1;
    }
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
                return spice_report(nl, l + 1, i + 1, "continuation line '+' without a line before "
                                                "it%s", "");
            if (tokenize(nl, &nl->cards[nl->n_cards - 1], s, l + 1, i + 1) != 0)
                return -1;
            continue;
        }
        card *cards = spice_grow(nl, nl->cards, &nl->cap_cards, nl->n_cards + 1, sizeof *cards);
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
        spice_report(r->nl, r->tok->line, r->tok->col + (int)r->i, "%s", what);
    r->failed = 1;
    return 0;
}

static void skip_blanks(expr_reader *r)
{
    while (r->s[r->i] == ' ' || r->s[r->i] == '\t')
        r->i++;
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
        if (spice_param_lookup(r->nl, s, len, &v))
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
        return spice_report_at(nl, t, "the value '%s' is not finite", s);
    return 0;
}

// --- directives --------------------------------------------------------------------------

static int add_param(netlist *nl, const char *name, double value)
{
    char **names = spice_grow(nl, nl->param_name, &nl->cap_params, nl->n_params + 1, sizeof *names);
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
        return spice_report_at(nl, &c->t[0], "expected .param NAME = VALUE%s", "");
    for (int k = 1; k < c->n; k += 3) {
        if (k + 2 >= c->n || strcmp(c->t[k + 1].s, "=") != 0)
            return spice_report_at(nl, &c->t[k], "expected NAME = VALUE after '%s'", c->t[k - 1].s);
        if (!isalpha((unsigned char)c->t[k].s[0]))
            return spice_report_at(nl, &c->t[k], "'%s' is not a parameter name", c->t[k].s);
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
            return spice_report_at(nl, &c->t[k], "unexpected '%s' (.tran TSTEP TSTOP [TSTART "
                                           "[TMAX]] [UIC])", c->t[k].s);
        if (token_value(nl, &c->t[k], &v[n]) != 0)
            return -1;
        n++;
    }
    if (n < 2 || v[0] <= 0 || v[1] <= 0)
        return spice_report_at(nl, &c->t[0], "expected .tran TSTEP TSTOP with positive times%s", "");
    if (n >= 3 && v[2] != 0)
        return spice_report_at(nl, &c->t[3], "TSTART = %s is not supported (dirac writes the run "
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
    char **nodes = spice_grow(nl, nl->node, &nl->cap_nodes, nl->n_nodes + 1, sizeof *nodes);
    if (!nodes)
        return -2;
    nl->node = nodes;
    size_t len = strlen(name);
    char *copy = spice_dup(nl, name, len);
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
        return spice_dup(nl, "0", 1);
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
    element *el = spice_grow(nl, nl->el, &nl->cap_el, nl->n_el + 1, sizeof *el);
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


// appends "x1, y1, x2, y2, ..." points of a PULSE unrolled over [0, tstop]
static int pulse_wave(netlist *nl, const token *at, const double *p, int n, text_buf *w)
{
    double v1 = p[0], v2 = p[1];
    double td = n > 2 ? p[2] : 0, tr = n > 3 && p[3] > 0 ? p[3] : nl->tstep;
    double tf = n > 4 && p[4] > 0 ? p[4] : nl->tstep;
    double pw = n > 5 ? p[5] : nl->tstop, per = n > 6 && p[6] > 0 ? p[6] : nl->tstop;
    if (tr + pw + tf > per && n > 6)
        return spice_report_at(nl, at, "PULSE: TR + PW + TF exceeds the period%s", "");
    if ((nl->tstop - td) / per > 1e5)
        return spice_report_at(nl, at, "PULSE: more than 1e5 periods before TSTOP%s", "");
    char a[32], b[32];
    spice_printf(w, "pwl(t, %s, %s", spice_number_text(a, sizeof a, td), spice_number_text(b, sizeof b, v1));
    for (double start = td; start <= nl->tstop; start += per) {
        double pts[4][2] = { { start, v1 }, { start + tr, v2 }, { start + tr + pw, v2 },
                             { start + tr + pw + tf, v1 } };
        for (int k = start == td ? 1 : 0; k < 4; k++)
            spice_printf(w, ", %s, %s", spice_number_text(a, sizeof a, pts[k][0]),
                      spice_number_text(b, sizeof b, pts[k][1]));
        if (n <= 6)
            break;   // no period: one pulse
    }
    spice_printf(w, ")");
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
                return spice_report_at(nl, t, "DC needs a value%s", "");
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
                return spice_report_at(nl, &c->t[close], "too many values in %s(...)", t->s);
            if (token_value(nl, &c->t[close], &p[n++]) != 0)
                return -1;
        }
        if (close >= c->n)
            return spice_report_at(nl, &c->t[k + 1], "'(' of %s is not closed", t->s);
        if (have_wave)
            return spice_report_at(nl, t, "a second transient function %s(...) on one source", t->s);
        have_wave = 1;
        if (strcmp(t->s, "sin") == 0) {
            if (n < 2 || n > 6)
                return spice_report_at(nl, t, "SIN takes VO VA [FREQ [TD [THETA [PHASE]]]]%s", "");
            double freq = n > 2 && p[2] > 0 ? p[2] : 1.0 / nl->tstop, td = n > 3 ? p[3] : 0;
            double theta = n > 4 ? p[4] : 0, phase = n > 5 ? p[5] * 3.14159265358979323846 / 180.0 : 0;
            char f[32], d[32], th[32], ph[32];
            spice_number_text(f, sizeof f, freq);
            spice_number_text(d, sizeof d, td);
            spice_number_text(th, sizeof th, theta);
            spice_number_text(ph, sizeof ph, phase);
            spice_number_text(a, sizeof a, p[0]);
            spice_number_text(b, sizeof b, p[1]);
            if (td == 0 && theta == 0)
                spice_printf(&w, "%s + %s*sin(2*pi*%s*t + %s)", a, b, f, ph);
            else
                spice_printf(&w, "if(t < %s, %s + %s*sin(%s), %s + %s*exp(-(t - %s)*%s)*sin(2*pi*%s*"
                              "(t - %s) + %s))", d, a, b, ph, a, b, d, th, f, d, ph);
        } else if (strcmp(t->s, "pulse") == 0) {
            if (n < 2 || n > 7)
                return spice_report_at(nl, t, "PULSE takes V1 V2 [TD [TR [TF [PW [PER]]]]]%s", "");
            if (!nl->have_tran)
                return spice_report_at(nl, t, "PULSE needs a .tran line (its defaults and the number "
                                        "of periods come from TSTEP and TSTOP)%s", "");
            if (pulse_wave(nl, t, p, n, &w) != 0)
                return -1;
        } else if (strcmp(t->s, "pwl") == 0) {
            if (n < 2 || n % 2 != 0)
                return spice_report_at(nl, t, "PWL takes pairs T1 V1 T2 V2 ...%s", "");
            spice_printf(&w, "pwl(t");
            for (int j = 0; j < n; j += 2) {
                if (j > 0 && p[j] < p[j - 2])
                    return spice_report_at(nl, &c->t[k + 2 + j], "PWL times must not decrease%s", "");
                spice_printf(&w, ", %s, %s", spice_number_text(a, sizeof a, p[j]),
                          spice_number_text(b, sizeof b, p[j + 1]));
            }
            spice_printf(&w, ")");
        } else if (strcmp(t->s, "exp") == 0) {
            if (n < 2 || n > 6)
                return spice_report_at(nl, t, "EXP takes V1 V2 [TD1 [TAU1 [TD2 [TAU2]]]]%s", "");
            double td1 = n > 2 ? p[2] : 0, tau1 = n > 3 && p[3] > 0 ? p[3] : nl->tstep;
            double td2 = n > 4 ? p[4] : td1 + nl->tstep, tau2 = n > 5 && p[5] > 0 ? p[5] : nl->tstep;
            if (!(tau1 > 0) || !(tau2 > 0))
                return spice_report_at(nl, t, "EXP needs TAU1 and TAU2 (or a .tran line)%s", "");
            spice_number_text(a, sizeof a, p[0]);
            spice_number_text(b, sizeof b, p[1]);
            spice_number_text(x, sizeof x, td1);
            spice_number_text(y, sizeof y, td2);
            char t1[32], t2[32];
            spice_number_text(t1, sizeof t1, tau1);
            spice_number_text(t2, sizeof t2, tau2);
            spice_printf(&w, "%s + (%s - %s)*step(t - %s)*(1 - exp(-(t - %s)/%s)) + (%s - %s)*step(t "
                          "- %s)*(1 - exp(-(t - %s)/%s))", a, b, a, x, x, t1, a, b, y, y, t2);
        } else {
            return spice_report_at(nl, t, "unsupported source function '%s' (dirac reads DC, SIN, "
                                    "PULSE, PWL and EXP)", t->s);
        }
        k = close;
    }
    if (!have_wave)
        spice_printf(&w, "%s", spice_number_text(a, sizeof a, dc));
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
            return spice_report_at(nl, t0, "expected %s NODES... SUBCIRCUIT", t0->s);
        const char *sub_name = c->t[c->n - 1].s;
        const subckt *sub = NULL;
        for (int k = 0; k < nl->n_subs; k++)
            if (strcmp(nl->subs[k].name, sub_name) == 0)
                sub = &nl->subs[k];
        if (!sub)
            return spice_report_at(nl, &c->t[c->n - 1], "unknown subcircuit '%s'", sub_name);
        int ports = nl->cards[sub->header].n - 2;
        if (c->n - 2 != ports) {
            char msg[160];
            snprintf(msg, sizeof msg, "%%s connects %d node%s, subcircuit '%s' has %d port%s",
                     c->n - 2, c->n - 2 == 1 ? "" : "s", sub_name, ports, ports == 1 ? "" : "s");
            return spice_report_at(nl, t0, msg, t0->s);
        }
        if (s->depth >= SPICE_SUBCKT_DEPTH_MAX)
            return spice_report_at(nl, t0, "subcircuits nested too deeply at %s (a subcircuit that "
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
        return spice_report_at(nl, t0, msg, t0->s);
    }
    int need = type == 'v' || type == 'i' ? 3 : 4;
    if (c->n < need)
        return spice_report_at(nl, t0, type == 'k' ? "expected %s L1 L2 COUPLING"
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
            return spice_report_at(nl, &c->t[3], "the coupling '%s' must lie strictly between 0 and "
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
                return spice_report_at(nl, &c->t[1 + k], "'%s' is not an inductor defined before "
                                                   "this K line", c->t[1 + k].s);
            if (k == 0)
                e->l1 = found;
            else
                e->l2 = found;
        }
        if (e->l1 == e->l2)
            return spice_report_at(nl, &c->t[2], "'%s' couples an inductor with itself", c->t[2].s);
        e->a = e->b = -1;
        return 0;
    }
    e->a = node_of(nl, s, &c->t[1]);
    e->b = node_of(nl, s, &c->t[2]);
    if (e->a == -2 || e->b == -2)
        return -1;
    if (e->a == e->b)
        return spice_report_at(nl, &c->t[2], "both terminals of the element are node '%s'", c->t[2].s);
    if (type == 'v' || type == 'i')
        return source_wave(nl, c, e);
    if (token_value(nl, &c->t[3], &e->value) != 0)
        return -1;
    if (!(e->value > 0))
        return spice_report_at(nl, &c->t[3], "the value '%s' must be positive", c->t[3].s);
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
                return spice_report_at(nl, t0, "IC= on the floating capacitor %s: give the node "
                                         "voltages with .ic v(NODE)=VALUE", t0->s);
            nl->node_ic[n] = e->b < 0 ? ic : -ic;
        }
    } else if (c->n > 4) {
        return spice_report_at(nl, &c->t[4], "unexpected '%s' (models and options of R, C and L "
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
                status |= spice_report_at(nl, &c->t[0], "'%s' inside a subcircuit is not supported "
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
            return spice_report_at(nl, &c->t[k], "expected v(NODE)=VALUE after .ic, found '%s'",
                             c->t[k].s);
        int n = -1;
        const char *name = c->t[k + 2].s;
        for (int j = 0; j < nl->n_nodes; j++)
            if (strcmp(nl->node[j], name) == 0)
                n = j;
        if (n < 0)
            return spice_report_at(nl, &c->t[k + 2], "no element connects to node '%s'", name);
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
                return spice_report_at(nl, &c->t[0], "expected .subckt NAME PORTS...%s", "");
            for (int k = 2; k < c->n; k++)
                if (strcmp(c->t[k].s, "=") == 0 || strcmp(c->t[k].s, "params:") == 0)
                    return spice_report_at(nl, &c->t[k], "subcircuit parameters ('%s') are not "
                                                   "supported", c->t[k].s);
            int end = i + 1;
            while (end < nl->n_cards && strcmp(nl->cards[end].t[0].s, ".ends") != 0) {
                if (strcmp(nl->cards[end].t[0].s, ".subckt") == 0)
                    return spice_report_at(nl, &nl->cards[end].t[0], "a .subckt inside a .subckt is "
                                     "not supported (define it at the top level)%s", "");
                end++;
            }
            if (end >= nl->n_cards)
                return spice_report_at(nl, &c->t[0], ".subckt %s has no .ends", c->t[1].s);
            subckt *subs = spice_grow(nl, nl->subs, &nl->cap_subs, nl->n_subs + 1, sizeof *subs);
            if (!subs)
                return -1;
            nl->subs = subs;
            for (int k = 0; k < nl->n_subs; k++)
                if (strcmp(nl->subs[k].name, c->t[1].s) == 0)
                    return spice_report_at(nl, &c->t[1], "subcircuit '%s' is defined twice",
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
            status |= spice_report_at(nl, &c->t[0], "unsupported directive '%s' (dirac reads .param, "
                                              ".subckt/.ends, .ic, .tran, .options and .end)", d);
    }
    return status;
}

int spice_read(netlist *nl, int *top_last)
{
    *top_last = 0;
    if (read_cards(nl) != 0 || read_directives(nl, top_last) != 0)
        return -1;
    scope top = { "", NULL, NULL, NULL, 0 };
    if (flatten(nl, &top, 0, *top_last) != 0 || nl->nomem)
        return -1;
    for (int i = 0; i < *top_last && nl->errors == 0; i++)
        if (strcmp(nl->cards[i].t[0].s, ".ic") == 0)
            read_ic(nl, &nl->cards[i]);
    if (nl->errors == 0 && nl->n_nodes == 0)
        spice_report(nl, 1, 1, "the netlist has no elements%s", "");
    return nl->errors == 0 ? 0 : -1;
}
