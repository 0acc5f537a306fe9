// `dirac check`'s equations of motion: the implicit Lagrange–Dirac equations of a compiled
// model, printed as readable text or LaTeX from its symbolic pieces:
//     p = ∂L/∂v,   ṗ = ∂L/∂q + F + Σ_a μ_a ω^a,   constraints,   T Ṡ = −⟨F^fr, q̇⟩ + heat.
#include "model.h"

#include "error.h"
#include "text.h"

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
                            ? "\text{(not printed: longer than %u characters)}"
                            : "(not printed: longer than %u characters)",
                (unsigned)EXPR_PRINT_MAX_LENGTH);
    else
        p->status = error_set(p->err, status, "%s", err.message);
    free(text);
}

// " + (e)" unless e is the constant 0; `first` tracks whether anything was printed yet.
static void put_term(print_ctx *p, expr_id e, const char *factor, int *first)
{
    if (expr_is_const(p->m->pool, e, 0.0))
        return;
    int latex = p->style == DIRAC_EQUATIONS_LATEX;
    fputs(*first ? "" : " + ", p->out);
    if (factor)
        fprintf(p->out, latex ? "%s \\left(" : "%s*(", factor);
    else if (!*first)
        fputs(latex ? "\\left(" : "(", p->out);
    put_expr(p, e);
    if (factor || !*first)
        fputs(latex ? "\\right)" : ")", p->out);
    *first = 0;
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
        put_term(p, m->gradient.ids[i], NULL, &first);
        put_term(p, m->forces.ids[i], NULL, &first);
        const model_sparse *f = &m->constraint_forms;
        for (int a = 0; a < m->m; a++)
            for (int k = f->row_start[a]; k < f->row_start[a + 1]; k++)
                if (f->col[k] == i)
                    put_term(p, f->values.ids[k], p->names[m->first_mu + a], &first);
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
        fprintf(p->out, latex ? "T_{%s}%s-\\left(" : "  T.%s%s-(", s, eq);
        put_expr(p, m->gradient.ids[m->first_s + j]);
        fputs(latex ? "\\right)" : ")", p->out);
        fputs(eol, p->out);
        fprintf(p->out, latex ? "T_{%s} \\dot %s%s" : "  T.%s * %s'%s", s, s, eq);
        int first = 1;
        for (int k = 0; k < m->friction_count; k++) {
            if (m->friction_entropy[k] != j)
                continue;
            put_term(p, m->friction[k], latex ? "-" : "-1", &first);
            fprintf(p->out, latex ? " %s" : "*%s", p->names[m->first_v + m->friction_coord[k]]);
        }
        for (int k = 0; k < m->heat_count; k++) {
            int a = m->heat_pair[2 * k], b = m->heat_pair[2 * k + 1];
            if (a != j && b != j)
                continue;
            int other = a == j ? b : a;
            put_term(p, m->heat_conductance[k], NULL, &first);
            fprintf(p->out, latex ? " (T_{%s} - T_{%s})" : "*(T.%s - T.%s)",
                    p->names[m->first_s + other], s);
        }
        put_term(p, m->heat_input[j], NULL, &first);
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
