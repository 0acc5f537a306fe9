// Printing of equations built from pieces (issue 12, item 8): a term's zero, unit and negative
// coefficients in every position of `dirac check`'s equations — the momentum balance (gradient,
// forces, multiplier terms), the temperatures, the entropy balance (friction, conductances,
// heat input) — in text and LaTeX, against strings written from the mathematics; and
// expr_print_term, which takes the leading sign out of an expression, on a table of
// expressions.
#define _POSIX_C_SOURCE 200809L   // open_memstream

#include "harness.h"

#include "expr.h"

#include <dirac/dirac.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *xy_name(int32_t index, void *user)
{
    (void)user;
    return index == 0 ? "x" : "y";
}

typedef struct term_case {
    const char *what;
    expr_id e;
    const char *text, *latex;   // the magnitude
    int negative, is_sum;
} term_case;

static void print_term_table(void)
{
    expr_pool *pool = NULL;
    ENSURE(expr_pool_create(&pool, NULL) == DIRAC_OK);
    if (!pool)
        return;
    expr_id x = expr_var(pool, 0), y = expr_var(pool, 1);
    expr_id sum = expr_add(pool, x, y);
    term_case cases[] = {
        { "3", expr_const(pool, 3), "3", "3", 0, 0 },
        { "-3", expr_const(pool, -3), "3", "3", 1, 0 },
        { "-1e-5", expr_const(pool, -1e-5), "1e-05", "10^{-5}", 1, 0 },
        { "0", expr_const(pool, 0), "0", "0", 0, 0 },
        { "-x", expr_neg(pool, x), "x", "x", 1, 0 },
        { "-(x + y)", expr_neg(pool, sum), "x + y", "x + y", 1, 1 },
        { "x - y", expr_sub(pool, x, y), "x - y", "x - y", 0, 1 },
        { "-(x - y) (the pool makes it y - x)", expr_neg(pool, expr_sub(pool, x, y)), "y - x",
          "y - x", 0, 1 },
        { "-2*x", expr_mul(pool, expr_const(pool, -2), x), "2*x", "2 x", 1, 0 },
        { "-2.5*(x + y)", expr_mul(pool, expr_const(pool, -2.5), sum), "2.5*(x + y)",
          "2.5 \\left(x + y\\right)", 1, 0 },
        { "-(x*y)", expr_neg(pool, expr_mul(pool, x, y)), "x*y", "x y", 1, 0 },
        { "(-x)/y", expr_div(pool, expr_neg(pool, x), y), "x/y", "\\frac{x}{y}", 1, 0 },
        { "(-(x + y))*y (the pool orders the factors)", expr_mul(pool, expr_neg(pool, sum), y),
          "y*(x + y)", "y \\left(x + y\\right)", 1, 0 },
        { "-x^2", expr_neg(pool, expr_powc(pool, x, 2)), "x^2", "x^{2}", 1, 0 },
        { "sin(-x) (the pool makes it -sin(x))", expr_fn(pool, EXPR_SIN, expr_neg(pool, x)),
          "sin(x)", "\\sin\\left(x\\right)", 1, 0 },
        { "exp(-x): a sign inside a function stays", expr_fn(pool, EXPR_EXP, expr_neg(pool, x)),
          "exp(-x)", "\\exp\\left(-x\\right)", 0, 0 },
        { "-x/(x + y)", expr_div(pool, expr_neg(pool, x), sum), "x/(x + y)",
          "\\frac{x}{x + y}", 1, 0 },
        { "x*(-y) (the sign moves to the front)", expr_mul(pool, x, expr_neg(pool, y)), "x*y",
          "x y", 1, 0 },
        { "-3 + x (a sum is not negative)", expr_add(pool, expr_const(pool, -3), x), "-3 + x",
          "-3 + x", 0, 1 },
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        const term_case *c = &cases[k];
        for (int latex = 0; latex <= 1; latex++) {
            char *text = NULL;
            int negative = -1, is_sum = -1;
            ENSURE(expr_print_term(pool, c->e, latex ? EXPR_PRINT_LATEX : EXPR_PRINT_INFIX,
                                   xy_name, NULL, &text, &negative, &is_sum, NULL) == DIRAC_OK);
            const char *want = latex ? c->latex : c->text;
            if (!text || strcmp(text, want) || negative != c->negative || is_sum != c->is_sum) {
                fprintf(stderr, "  %s (%s): got \"%s\" negative %d sum %d, want \"%s\" %d %d\n",
                        c->what, latex ? "LaTeX" : "text", text ? text : "(null)", negative,
                        is_sum, want, c->negative, c->is_sum);
                ENSURE(!"term printed as expected");
            }
            free(text);
        }
    }
    expr_pool_destroy(pool);
}

// The equations of `model` (text or LaTeX).
static char *equations(const char *model, int latex)
{
    dirac_spec *spec = NULL;
    dirac_model *m = NULL;
    char *out_text = NULL;
    size_t size = 0;
    ENSURE(dirac_spec_parse("t.dirac", model, strlen(model), &spec) == DIRAC_OK);
    if (dirac_model_compile(spec, &m) != DIRAC_OK) {
        fprintf(stderr, "  %s\n", dirac_spec_errmsg(spec));
        ENSURE(!"compiled");
    } else {
        FILE *out = open_memstream(&out_text, &size);
        ENSURE(dirac_model_write_equations(m, latex ? DIRAC_EQUATIONS_LATEX : DIRAC_EQUATIONS_TEXT,
                                           out, NULL) == DIRAC_OK);
        fclose(out);
    }
    dirac_model_destroy(m);
    dirac_spec_destroy(spec);
    return out_text;
}

// Every line of `lines` (NULL-terminated) is a whole line of `text`.
static void ensure_lines(const char *text, const char *const *lines)
{
    for (int k = 0; lines[k]; k++) {
        char *line = malloc(strlen(lines[k]) + 3);
        sprintf(line, "\n%s\n", lines[k]);
        if (!text || !strstr(text, line)) {
            fprintf(stderr, "  missing line: %s\n  in:\n%s\n", lines[k], text ? text : "(null)");
            ENSURE(!"line printed");
        }
        free(line);
    }
}

static void mechanical_coefficients(void)
{
    // ∂L/∂x = −2.5 y (negative first term); forces 0 (omitted) and −y' (unit, negative);
    // constraint forms 1, −1, 2.5 and a sum x + y
    const char *model = "model coefficients\n"
                        "parameter zero = 0, one = 1, k = 2.5\n"
                        "coordinate x, y\n"
                        "lagrangian x'^2/2 + y'^2/2 - k*x*y\n"
                        "force x: zero*x'\n"
                        "force y: -one*y'\n"
                        "constraint c1: x' - y' = 0\n"
                        "constraint c2: k*x' + (x + y)*y' = 0\n"
                        "initial x = 1, y = 2\n";
    char *text = equations(model, 0);
    const char *text_lines[] = {
        "  d/dt p.x = -2.5*y + mu.c1 + mu.c2*2.5",
        "  d/dt p.y = -2.5*x - y' - mu.c1 + mu.c2*(x + y)",
        NULL,
    };
    ensure_lines(text, text_lines);
    free(text);
    char *latex = equations(model, 1);
    const char *latex_lines[] = {
        "\\dot p_{x} &= -2.5 y + \\mu_{\\mathrm{c1}} + \\mu_{\\mathrm{c2}} \\cdot 2.5 \\\\",
        "\\dot p_{y} &= -2.5 x - \\dot{y} - \\mu_{\\mathrm{c1}} + \\mu_{\\mathrm{c2}} "
        "\\left(x + y\\right) \\\\",
        NULL,
    };
    ensure_lines(latex, latex_lines);
    free(latex);

    // no term at all: 0
    char *free_particle = equations("model f\ncoordinate x\nlagrangian x'^2/2\n", 0);
    const char *zero_lines[] = { "  d/dt p.x = 0", NULL };
    ensure_lines(free_particle, zero_lines);
    free(free_particle);
}

static void entropy_coefficients(void)
{
    // T_j = −∂L/∂S_j = T0 exp(S_j/C) (a negated derivative); S1: friction −F·v with
    // F = −0.5 x' (so +0.5 x'·x'), a zero conductance to S2 (omitted), a negative one to S3;
    // S2: a unit conductance to S3; S3: a negative heat input
    const char *model = "model heat\n"
                        "parameter C = 2, T0 = 300, kappa = 0, one = 1, lam = 0.5\n"
                        "coordinate x\n"
                        "entropy S1, S2, S3\n"
                        "lagrangian x'^2/2 - C*T0*exp(S1/C) - C*T0*exp(S2/C) - C*T0*exp(S3/C)\n"
                        "friction x -> S1: -lam*x'\n"
                        "heat S1, S2: kappa\n"
                        "heat S2, S3: one\n"
                        "heat S1, S3: -lam\n"
                        "heat_input S3: -lam\n";
    char *text = equations(model, 0);
    const char *text_lines[] = {
        "  T.S1 = 300*exp(0.5*S1)",
        "  T.S1 * S1' = 0.5*x'*x' - 0.5*(T.S3 - T.S1)",
        "  T.S2 * S2' = (T.S3 - T.S2)",
        "  T.S3 * S3' = (T.S2 - T.S3) - 0.5*(T.S1 - T.S3) - 0.5",
        NULL,
    };
    ensure_lines(text, text_lines);
    free(text);
    char *latex = equations(model, 1);
    const char *latex_lines[] = {
        "T_{\\mathrm{S1}} &= 300 \\exp\\left(0.5 \\mathrm{S1}\\right) \\\\",
        "T_{\\mathrm{S1}} \\dot \\mathrm{S1} &= 0.5 \\dot{x} \\dot{x} - 0.5 "
        "\\left(T_{\\mathrm{S3}} - T_{\\mathrm{S1}}\\right) \\\\",
        "T_{\\mathrm{S2}} \\dot \\mathrm{S2} &= \\left(T_{\\mathrm{S3}} - T_{\\mathrm{S2}}\\right) \\\\",
        "T_{\\mathrm{S3}} \\dot \\mathrm{S3} &= \\left(T_{\\mathrm{S2}} - T_{\\mathrm{S3}}\\right) - "
        "0.5 \\left(T_{\\mathrm{S1}} - T_{\\mathrm{S3}}\\right) - 0.5 \\\\",
        NULL,
    };
    ensure_lines(latex, latex_lines);
    free(latex);

    // the case: a zero conductance is no term (the balance is 0), in both styles
    const char *zero = "model z\nparameter kappa = 0\nentropy S1, S2\n"
                       "lagrangian -300*exp(S1) - 300*exp(S2)\nheat S1, S2: kappa\n";
    char *z_text = equations(zero, 0), *z_latex = equations(zero, 1);
    const char *z_lines[] = { "  T.S1 * S1' = 0", "  T.S2 * S2' = 0", NULL };
    const char *z_latex_lines[] = { "T_{\\mathrm{S1}} \\dot \\mathrm{S1} &= 0 \\\\", NULL };
    ensure_lines(z_text, z_lines);
    ensure_lines(z_latex, z_latex_lines);
    free(z_text);
    free(z_latex);
}

TEST_MAIN(TEST(print_term_table), TEST(mechanical_coefficients), TEST(entropy_coefficients))
