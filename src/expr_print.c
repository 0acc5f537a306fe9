// Printing expressions as readable infix or LaTeX, with the fewest parentheses that keep the
// tree's structure. Iterative: a stack of pending items (a node to expand, or literal text),
// so any depth prints; only the output length is limited (EXPR_PRINT_MAX_LENGTH).
#include "expr_pool.h"
#include "text.h"

#include "error.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

// binding strength of what a node prints as (higher binds tighter)
enum {
    PREC_SUM = 2,       // a + b, a - b
    PREC_PRODUCT = 4,   // a*b, a/b
    PREC_UNARY = 6,     // -a, and negative constants
    PREC_POWER = 8,     // a^b
    PREC_FRAC = 9,      // \frac{a}{b} (LaTeX)
    PREC_ATOM = 10,     // names, constants, f(x)
};

typedef struct print_item {
    expr_id node;       // node to expand, or EXPR_NONE for literal text
    int parens;         // wrap the node in parentheses
    const char *text;   // literal text (node == EXPR_NONE)
} print_item;

typedef struct printer {
    const expr_pool *pool;
    expr_print_style style;
    expr_name_fn name;
    void *user;
    print_item *stack;
    size_t depth, capacity;
    text_buffer text;
    dirac_status status;
    // nodes printed without their sign (expr_print_term): the negative constants and
    // negations on the path of leading factors from the root
    expr_id marks[32];
    int mark_count;
} printer;

static int marked(const printer *p, expr_id id)
{
    for (int k = 0; k < p->mark_count; k++)
        if (p->marks[k] == id)
            return 1;
    return 0;
}

static void push(printer *p, expr_id node, int parens, const char *text)
{
    if (p->status != DIRAC_OK)
        return;
    if (p->depth == p->capacity) {
        size_t capacity = p->capacity ? 2 * p->capacity : 64;
        print_item *stack = realloc(p->stack, capacity * sizeof *stack);
        if (!stack) {
            p->status = DIRAC_ERR_NOMEM;
            return;
        }
        p->stack = stack;
        p->capacity = capacity;
    }
    p->stack[p->depth++] = (print_item){ node, parens, text };
}

static void push_text(printer *p, const char *text)
{
    push(p, EXPR_NONE, 0, text);
}

static void emit(printer *p, const char *text, size_t n)
{
    if (p->status != DIRAC_OK)
        return;
    text_buffer_append(&p->text, text, n);
    p->status = p->text.status;
}

static void emit_str(printer *p, const char *text)
{
    emit(p, text, strlen(text));
}

// shortest of %.15g / %.17g that reads back exactly; LaTeX writes 1e-05 as 1 \cdot 10^{-5}
static void emit_number(printer *p, double v)
{
    char buf[64], latex[96];
    if (isnan(v) || isinf(v)) {
        if (p->style == EXPR_PRINT_LATEX)
            emit_str(p, isnan(v) ? "\\mathrm{NaN}" : v > 0 ? "\\infty" : "-\\infty");
        else
            emit_str(p, isnan(v) ? "nan" : v > 0 ? "inf" : "-inf");
        return;
    }
    snprintf(buf, sizeof buf, "%.15g", v);
    if (strtod(buf, NULL) != v)
        snprintf(buf, sizeof buf, "%.17g", v);
    char *e = strchr(buf, 'e');
    if (p->style == EXPR_PRINT_LATEX && e) {
        *e = '\0';
        int exponent = atoi(e + 1);
        if (strcmp(buf, "1") == 0)
            snprintf(latex, sizeof latex, "10^{%d}", exponent);
        else if (strcmp(buf, "-1") == 0)
            snprintf(latex, sizeof latex, "-10^{%d}", exponent);
        else
            snprintf(latex, sizeof latex, "%s \\cdot 10^{%d}", buf, exponent);
        emit_str(p, latex);
        return;
    }
    emit_str(p, buf);
}

static void emit_name(printer *p, int32_t index)
{
    const char *name = p->name ? p->name(index, p->user) : NULL;
    if (name) {
        emit_str(p, name);
        return;
    }
    char buf[32];
    snprintf(buf, sizeof buf, p->style == EXPR_PRINT_LATEX ? "x_{%d}" : "x%d", (int)index);
    emit_str(p, buf);
}

static int precedence(const printer *p, expr_id id)
{
    const expr_node *n = &p->pool->nodes[id];
    while (n->kind == EXPR_NEG && marked(p, id)) {   // prints as its operand
        id = n->a;
        n = &p->pool->nodes[id];
    }
    if (n->kind == EXPR_CONST && marked(p, id))
        return PREC_ATOM;
    switch ((expr_kind)n->kind) {
    case EXPR_CONST:
        return n->value < 0.0 || (n->value == 0.0 && signbit(n->value)) ? PREC_UNARY : PREC_ATOM;
    case EXPR_ADD:
    case EXPR_SUB:
        return PREC_SUM;
    case EXPR_MUL:
        return PREC_PRODUCT;
    case EXPR_DIV:
        return p->style == EXPR_PRINT_LATEX ? PREC_FRAC : PREC_PRODUCT;
    case EXPR_NEG:
        return PREC_UNARY;
    case EXPR_POW:
        return PREC_POWER;
    default:
        return PREC_ATOM;
    }
}

// parentheses for a child printed where binding `need` is required; unary minus in a right
// operand is always wrapped (a*(-b), x^(-1))
static int wrap(const printer *p, expr_id child, int need, int right_operand)
{
    int prec = precedence(p, child);
    return prec < need || (right_operand && prec == PREC_UNARY);
}

// 1 if the LaTeX of id starts with a digit (so a product needs \cdot before it)
static int starts_with_number(const printer *p, expr_id id)
{
    for (int steps = 0; steps < 16; steps++) {
        const expr_node *n = &p->pool->nodes[id];
        switch ((expr_kind)n->kind) {
        case EXPR_CONST:
            return 1;
        case EXPR_ADD:
        case EXPR_SUB:
        case EXPR_MUL:
        case EXPR_POW:
            if (wrap(p, n->a, PREC_ATOM, 0) && n->kind == EXPR_POW)
                return 0;   // \left( ...
            id = n->a;
            continue;
        default:
            return 0;
        }
    }
    return 1;   // undecided: keep the explicit \cdot
}

static const char *const latex_name[EXPR_KIND_COUNT] = {
#define FUNCTION_LATEX(id, name, arity, c_call, latex, ...) [EXPR_##id] = latex,
    BUILTIN_MATH_LIST(FUNCTION_LATEX)
#undef FUNCTION_LATEX
};

// pushes the pieces of a function node: f(x) or f(x, y) (builtin_functions.h)
static void expand_call(printer *p, const expr_node *n)
{
    int latex = p->style == EXPR_PRINT_LATEX;
    expr_kind kind = (expr_kind)n->kind;
    push_text(p, latex ? "\\right)" : ")");
    if (expr_kind_arity(kind) == 2) {
        push(p, n->b, 0, NULL);
        push_text(p, ", ");
    }
    push(p, n->a, 0, NULL);
    if (latex) {
        push_text(p, "\\left(");
        push_text(p, latex_name[kind]);
    } else {
        push_text(p, "(");
        push_text(p, expr_kind_name(kind));
    }
}

// pushes the pieces of node `id` (in reverse, since the stack pops last-in first)
static void expand(printer *p, expr_id id)
{
    const expr_node *n = &p->pool->nodes[id];
    int latex = p->style == EXPR_PRINT_LATEX;
    expr_kind kind = (expr_kind)n->kind;
    if (marked(p, id) && (kind == EXPR_CONST || kind == EXPR_NEG)) {
        // the magnitude: the sign went to the term's + or −
        if (kind == EXPR_CONST)
            emit_number(p, -n->value);
        else
            push(p, n->a, 0, NULL);
        return;
    }
    switch (kind) {
    case EXPR_CONST:
        emit_number(p, n->value);
        return;
    case EXPR_VAR:
        emit_name(p, n->a);
        return;
    case EXPR_ADD:
    case EXPR_SUB:
        push(p, n->b, wrap(p, n->b, PREC_PRODUCT, 1), NULL);
        push_text(p, kind == EXPR_ADD ? " + " : " - ");
        push(p, n->a, wrap(p, n->a, PREC_SUM, 0), NULL);
        return;
    case EXPR_MUL: {
        // c*(a*b) prints as c*a*b: read back, the constant is pulled out again
        expr_kind right = (expr_kind)p->pool->nodes[n->b].kind;
        int scaled = p->pool->nodes[n->a].kind == EXPR_CONST && right == EXPR_MUL;
        push(p, n->b, !scaled && wrap(p, n->b, PREC_POWER, 1), NULL);
        push_text(p, !latex ? "*" : starts_with_number(p, n->b) ? " \\cdot " : " ");
        push(p, n->a, wrap(p, n->a, PREC_PRODUCT, 0), NULL);
        return;
    }
    case EXPR_DIV:
        if (latex) {
            push_text(p, "}");
            push(p, n->b, 0, NULL);
            push_text(p, "}{");
            push(p, n->a, 0, NULL);
            push_text(p, "\\frac{");
            return;
        }
        push(p, n->b, wrap(p, n->b, PREC_POWER, 1), NULL);
        push_text(p, "/");
        push(p, n->a, wrap(p, n->a, PREC_PRODUCT, 0), NULL);
        return;
    case EXPR_POW:
        if (latex) {
            push_text(p, "}");
            push(p, n->b, 0, NULL);
            push_text(p, "^{");
            push(p, n->a, wrap(p, n->a, PREC_ATOM, 0), NULL);
            return;
        }
        push(p, n->b, wrap(p, n->b, PREC_POWER, 1), NULL);
        push_text(p, "^");
        push(p, n->a, wrap(p, n->a, PREC_ATOM, 0), NULL);
        return;
    case EXPR_NEG:
        push(p, n->a, wrap(p, n->a, PREC_PRODUCT, 1), NULL);
        push_text(p, "-");
        return;
    case EXPR_LT:
    case EXPR_LE:
    case EXPR_EQ:
    case EXPR_NE: {   // (a < b), always parenthesized
        static const char *const infix[] = { " < ", " <= ", " == ", " != " };
        static const char *const tex[] = { " < ", " \\le ", " = ", " \\ne " };
        int k = (int)kind - (int)EXPR_LT;
        push_text(p, latex ? "\\right)" : ")");
        push(p, n->b, 0, NULL);
        push_text(p, latex ? tex[k] : infix[k]);
        push(p, n->a, 0, NULL);
        push_text(p, latex ? "\\left(" : "(");
        return;
    }
    case EXPR_WHEN:   // if(c, a, 0)
        push_text(p, latex ? ", 0\\right)" : ", 0)");
        push(p, n->b, 0, NULL);
        push_text(p, ", ");
        push(p, n->a, 0, NULL);
        push_text(p, latex ? "\\operatorname{if}\\left(" : "if(");
        return;
    case EXPR_SQRT:
        if (latex) {
            push_text(p, "}");
            push(p, n->a, 0, NULL);
            push_text(p, "\\sqrt{");
            return;
        }
        break;
    case EXPR_ABS:
        if (latex) {
            push_text(p, "\\right|");
            push(p, n->a, 0, NULL);
            push_text(p, "\\left|");
            return;
        }
        break;
    default:
        break;
    }
    expand_call(p, n);
}

// Prints e with the printer's marks (see expr_print_term).
static dirac_status print_marked(printer *pp, expr_id e, char **text, dirac_error *err)
{
    printer p = *pp;
    expr_print_style style = p.style;
    emit(&p, "", 0);
    push(&p, e, 0, NULL);
    while (p.depth > 0 && p.status == DIRAC_OK) {
        print_item item = p.stack[--p.depth];
        if (item.node == EXPR_NONE) {
            emit_str(&p, item.text);
        } else if (item.parens) {
            push_text(&p, style == EXPR_PRINT_LATEX ? "\\right)" : ")");
            push(&p, item.node, 0, NULL);
            push_text(&p, style == EXPR_PRINT_LATEX ? "\\left(" : "(");
        } else {
            expand(&p, item.node);
        }
    }
    free(p.stack);
    if (p.status != DIRAC_OK) {
        free(p.text.data);
        if (p.status == DIRAC_ERR_SIZE)
            return error_set(err, DIRAC_ERR_SIZE,
                             "expression %d prints longer than %u characters", (int)e,
                             (unsigned)EXPR_PRINT_MAX_LENGTH);
        return error_set(err, DIRAC_ERR_NOMEM, "out of memory printing expression %d", (int)e);
    }
    *text = p.text.data;
    return DIRAC_OK;
}

dirac_status expr_print(const expr_pool *pool, expr_id e, expr_print_style style,
                        expr_name_fn name, void *user, char **text, dirac_error *err)
{
    *text = NULL;
    if (!expr_valid(pool, e))
        return error_set(err, DIRAC_ERR_ARGUMENT, "expr_print: expression id %d out of range",
                         (int)e);
    printer p = { .pool = pool, .style = style, .name = name, .user = user,
                  .text = { .limit = EXPR_PRINT_MAX_LENGTH }, .status = DIRAC_OK };
    return print_marked(&p, e, text, err);
}

dirac_status expr_print_term(const expr_pool *pool, expr_id e, expr_print_style style,
                             expr_name_fn name, void *user, char **text, int *negative,
                             int *is_sum, dirac_error *err)
{
    *text = NULL;
    *negative = 0;
    *is_sum = 0;
    if (!expr_valid(pool, e))
        return error_set(err, DIRAC_ERR_ARGUMENT,
                         "expr_print_term: expression id %d out of range", (int)e);
    printer p = { .pool = pool, .style = style, .name = name, .user = user,
                  .text = { .limit = EXPR_PRINT_MAX_LENGTH }, .status = DIRAC_OK };
    // the leading sign: follow negations and first factors of products and quotients from the
    // root; each negation or negative constant on the way flips it and prints unsigned
    expr_id id = e;
    while (p.mark_count < (int)(sizeof p.marks / sizeof p.marks[0])) {
        const expr_node *n = &pool->nodes[id];
        if (n->kind == EXPR_CONST) {
            if (n->value < 0.0) {
                p.marks[p.mark_count++] = id;
                *negative ^= 1;
            }
            break;
        }
        if (n->kind == EXPR_NEG) {
            p.marks[p.mark_count++] = id;
            *negative ^= 1;
        } else if (n->kind != EXPR_MUL && n->kind != EXPR_DIV) {
            break;
        }
        id = n->a;
    }
    *is_sum = precedence(&p, e) < PREC_PRODUCT;
    return print_marked(&p, e, text, err);
}
