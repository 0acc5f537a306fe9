// `dirac check`'s equations of motion: the implicit Lagrange–Dirac equations of a compiled
// model, printed as readable text or LaTeX from its symbolic pieces:
//     p = ∂L/∂v,   ṗ = ∂L/∂q + F + Σ_a μ_a ω^a,   constraints,   T Ṡ = −⟨F^fr, q̇⟩ + heat.
#include "model.h"

#include "error.h"
#include "text.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

typedef struct print_ctx {
    const dirac_model *m;
    dirac_equation_style style;
    FILE *out;
    char **names;        // one per input index
    dirac_error *err;
    dirac_status status;
} print_ctx;

static const char *name_of(int32_t index, void *user)
{
    print_ctx *p = user;
    return index >= 0 && index < p->m->n_inputs ? p->names[index] : "?";
}

// LaTeX form of a model name: single letters stay italic, longer names go upright, with
// `_` and `.` escaped.
static char *latex_name(const char *name, const char *accent)
{
    size_t len = strlen(name), cap = 2 * len + 48;
    char *out = malloc(cap), *w = out;
    if (!out)
        return NULL;
    w += sprintf(w, "%s%s", accent ? accent : "", accent ? "{" : "");
    if (len > 1)
        w += sprintf(w, "\\mathrm{");
    for (const char *r = name; *r; r++) {
        if (*r == '_')
            *w++ = '\\';
        *w++ = *r;
    }
    if (len > 1)
        *w++ = '}';
    if (accent)
        *w++ = '}';
    *w = '\0';
    return out;
}

static int make_names(print_ctx *p)
{
    const dirac_model *m = p->m;
    int latex = p->style == DIRAC_EQUATIONS_LATEX;
    p->names = calloc((size_t)m->n_inputs, sizeof *p->names);
    if (!p->names)
        return 0;
    for (int i = 0; i < m->n; i++) {
        p->names[i] = latex ? latex_name(m->coord_names[i], NULL)
                            : text_concat("", m->coord_names[i], "");
        p->names[m->first_v + i] = latex ? latex_name(m->coord_names[i], "\\dot")
                                         : text_concat("", m->coord_names[i], "'");
    }
    for (int j = 0; j < m->ns; j++)
        p->names[m->first_s + j] = latex ? latex_name(m->entropy_names[j], NULL)
                                         : text_concat("", m->entropy_names[j], "");
    p->names[m->index_t] = text_concat("", "t", "");
    for (int a = 0; a < m->m; a++) {
        char *sub = latex ? latex_name(m->constraints[a].name, NULL) : NULL;
        p->names[m->first_mu + a] = latex ? text_concat("\\mu_{", sub ? sub : "", "}")
                                          : text_concat("mu.", m->constraints[a].name, "");
        free(sub);
    }
    for (int k = 0; k < m->nu; k++)   // inputs: printed by name
        p->names[m->first_u + k] = latex ? latex_name(m->input_names[k], NULL)
                                         : text_concat("", m->input_names[k], "");
    for (int i = 0; i < m->na; i++)   // accelerations, read by outputs
        p->names[m->first_a + i] = latex ? latex_name(m->coord_names[i], "\\ddot")
                                         : text_concat("", m->coord_names[i], "''");
    for (int k = 0; k < m->n_inputs; k++)
        if (!p->names[k])
            return 0;
    return 1;
}

// Prints expression e; on failure records the status and prints nothing.
static void put_expr(print_ctx *p, expr_id e)
{
    if (p->status != DIRAC_OK)
        return;
    char *text = NULL;
    dirac_error err;
    dirac_status status = expr_print(
        p->m->pool, e, p->style == DIRAC_EQUATIONS_LATEX ? EXPR_PRINT_LATEX : EXPR_PRINT_INFIX,
        name_of, p, &text, &err);
    if (status == DIRAC_OK)
        fputs(text, p->out);
    else if (status == DIRAC_ERR_SIZE)   // a valid model; only this expression is not shown
        fprintf(p->out, p->style == DIRAC_EQUATIONS_LATEX
                            ? "\\text{(not printed: longer than %u characters)}"
                            : "(not printed: longer than %u characters)",
                (unsigned)EXPR_PRINT_MAX_LENGTH);
    else
        p->status = error_set(p->err, status, "%s", err.message);
    free(text);
}

// Where a term's factor stands: before the coefficient (μ ω) or after it (κ (T_b − T_a)).
enum { FACTOR_BEFORE, FACTOR_AFTER };

// One term of a sum, ±coefficient·factor (factor NULL: the coefficient alone; `negate`: the
// term is subtracted). A zero coefficient prints nothing; a coefficient ±1 prints only the
// factor; the coefficient's leading sign goes into the + or − (expr_print_term), and it is
// parenthesized only when it is a sum that would otherwise run into a factor or a minus.
// `first` tracks whether anything was printed yet.
static void put_term(print_ctx *p, expr_id coefficient, int negate, const char *factor,
                     int where, int *first)
{
    if (p->status != DIRAC_OK || expr_is_const(p->m->pool, coefficient, 0.0))
        return;
    int latex = p->style == DIRAC_EQUATIONS_LATEX;
    char *text = NULL;
    int negative = 0, is_sum = 0;
    dirac_error err;
    dirac_status status = expr_print_term(p->m->pool, coefficient,
                                          latex ? EXPR_PRINT_LATEX : EXPR_PRINT_INFIX, name_of, p,
                                          &text, &negative, &is_sum, &err);
    if (status == DIRAC_ERR_SIZE) {   // a valid model; only this term is not shown
        fprintf(p->out, latex ? "%s\\text{(not printed: longer than %u characters)}"
                              : "%s(not printed: longer than %u characters)",
                *first ? "" : " + ", (unsigned)EXPR_PRINT_MAX_LENGTH);
        *first = 0;
        return;
    }
    if (status != DIRAC_OK) {
        p->status = error_set(p->err, status, "%s", err.message);
        return;
    }
    negative ^= negate;
    fputs(*first ? (negative ? "-" : "") : (negative ? " - " : " + "), p->out);
    *first = 0;
    int unit = factor && (expr_is_const(p->m->pool, coefficient, 1.0) ||
                          expr_is_const(p->m->pool, coefficient, -1.0));
    int parens = is_sum && (factor || negative);
    const char *open = parens ? (latex ? "\\left(" : "(") : "";
    const char *close = parens ? (latex ? "\\right)" : ")") : "";
    if (!factor) {
        fprintf(p->out, "%s%s%s", open, text, close);
    } else if (unit) {
        fputs(factor, p->out);
    } else if (where == FACTOR_BEFORE) {
        // LaTeX juxtaposes, except before a number (μ \cdot 2 x)
        const char *times = !latex ? "*" : !parens && (isdigit((unsigned char)text[0]) ||
                                                      text[0] == '.') ? " \\cdot " : " ";
        fprintf(p->out, "%s%s%s%s%s", factor, times, open, text, close);
    } else {
        fprintf(p->out, "%s%s%s%s%s", open, text, close, latex ? " " : "*", factor);
    }
    free(text);
}

static void print_equations(print_ctx *p)
{
    const dirac_model *m = p->m;
    int latex = p->style == DIRAC_EQUATIONS_LATEX;
    const char *eol = latex ? " \\\\\n" : "\n";
    const char *eq = latex ? " &= " : " = ";
    if (latex)
        fputs("\\begin{align}\n", p->out);
    else
        fputs("momenta (p = dL/dv):\n", p->out);
    for (int i = 0; i < m->n; i++) {
        fprintf(p->out, latex ? "p_{%s}%s" : "  p.%s%s", p->names[i], eq);
        put_expr(p, m->gradient.ids[m->first_v + i]);
        fputs(eol, p->out);
    }
    if (!latex)
        fputs("momentum balance (d/dt p = dL/dq + F + sum of mu * constraint forms):\n", p->out);
    for (int i = 0; i < m->n; i++) {
        fprintf(p->out, latex ? "\\dot p_{%s}%s" : "  d/dt p.%s%s", p->names[i], eq);
        int first = 1;
        put_term(p, m->gradient.ids[i], 0, NULL, FACTOR_AFTER, &first);
        put_term(p, m->forces.ids[i], 0, NULL, FACTOR_AFTER, &first);
        const model_sparse *f = &m->constraint_forms;
        for (int a = 0; a < m->m; a++)
            for (int k = f->row_start[a]; k < f->row_start[a + 1]; k++)
                if (f->col[k] == i)
                    put_term(p, f->values.ids[k], 0, p->names[m->first_mu + a], FACTOR_BEFORE,
                             &first);
        if (first)
            fputs("0", p->out);
        fputs(eol, p->out);
    }
    if (!latex && m->m > 0)
        fputs("constraints:\n", p->out);
    for (int a = 0; a < m->m; a++) {
        int holonomic = m->constraints[a].kind == DIRAC_CONSTRAINT_HOLONOMIC;
        if (!latex)
            fprintf(p->out, "  %s (%s%s): ", m->constraints[a].name,
                    holonomic ? "holonomic" : "nonholonomic",
                    m->constraints[a].time_dependent ? ", time-dependent" : "");
        put_expr(p, m->constraint_values.ids[a]);
        fputs(latex ? " &= 0" : " = 0", p->out);
        fputs(eol, p->out);
    }
    if (!latex && m->ns > 0)
        fputs("entropy (T = -dL/dS; T S' = -friction power + heat):\n", p->out);
    for (int j = 0; j < m->ns; j++) {
        const char *s = p->names[m->first_s + j];
        fprintf(p->out, latex ? "T_{%s}%s" : "  T.%s%s", s, eq);
        int first_t = 1;
        put_term(p, m->gradient.ids[m->first_s + j], 1, NULL, FACTOR_AFTER, &first_t);
        if (first_t)
            fputs("0", p->out);
        fputs(eol, p->out);
        fprintf(p->out, latex ? "T_{%s} \\dot %s%s" : "  T.%s * %s'%s", s, s, eq);
        int first = 1;
        for (int k = 0; k < m->friction_count; k++)   // −F^fr·v
            if (m->friction_entropy[k] == j)
                put_term(p, m->friction[k], 1, p->names[m->first_v + m->friction_coord[k]],
                         FACTOR_AFTER, &first);
        for (int k = 0; k < m->heat_count; k++) {     // κ (T_other − T_j)
            int a = m->heat_pair[2 * k], b = m->heat_pair[2 * k + 1];
            if (a != j && b != j)
                continue;
            char *difference = text_concat(latex ? "\\left(T_{" : "(T.",
                                           p->names[m->first_s + (a == j ? b : a)],
                                           latex ? "} - T_{" : " - T.");
            char *factor = difference ? text_concat(difference, s, latex ? "}\\right)" : ")")
                                      : NULL;
            if (!factor)
                p->status = error_set(p->err, DIRAC_ERR_NOMEM, "out of memory");
            else
                put_term(p, m->heat_conductance[k], 0, factor, FACTOR_AFTER, &first);
            free(difference);
            free(factor);
        }
        put_term(p, m->heat_input[j], 0, NULL, FACTOR_AFTER, &first);
        if (first)
            fputs("0", p->out);
        fputs(eol, p->out);
    }
    if (latex)
        fputs("\\end{align}\n", p->out);
}

dirac_status dirac_model_write_equations(const dirac_model *m, dirac_equation_style style,
                                         FILE *out, dirac_error *err)
{
    if (!m || !out)
        return error_set(err, DIRAC_ERR_ARGUMENT, "dirac_model_write_equations: %s is NULL",
                         !m ? "the model" : "the output stream");
    if (style != DIRAC_EQUATIONS_TEXT && style != DIRAC_EQUATIONS_LATEX)
        return error_set(err, DIRAC_ERR_ARGUMENT, "unknown equation style %d", (int)style);
    print_ctx p = { .m = m, .style = style, .out = out, .err = err, .status = DIRAC_OK };
    if (!make_names(&p))
        p.status = error_set(err, DIRAC_ERR_NOMEM, "out of memory");
    else
        print_equations(&p);
    for (int k = 0; p.names && k < m->n_inputs; k++)
        free(p.names[k]);
    free(p.names);
    return p.status;
}
