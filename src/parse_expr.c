// Expressions of the model language, parsed without recursion (shunting-yard with explicit
// operator and operand stacks), so the input cannot overflow the C stack; nesting deeper than
// SPEC_NESTING_MAX is an error. Nodes come out in postorder (see spec.h).
//
// Precedence, loosest first: + - (left), * / (left), unary - and +, ^ (right). So -x^2 is
// -(x^2), x^-2 is x^(-2) and a^b^c is a^(b^c).
#include "parse.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

// --- built-in functions --------------------------------------------------------------------

static const struct {
    const char *name;
    int arity;
} func_table[SPEC_FUNC_COUNT] = {
    [SPEC_FUNC_SIN] = { "sin", 1 },     [SPEC_FUNC_COS] = { "cos", 1 },
    [SPEC_FUNC_TAN] = { "tan", 1 },     [SPEC_FUNC_ASIN] = { "asin", 1 },
    [SPEC_FUNC_ACOS] = { "acos", 1 },   [SPEC_FUNC_ATAN] = { "atan", 1 },
    [SPEC_FUNC_ATAN2] = { "atan2", 2 }, [SPEC_FUNC_SINH] = { "sinh", 1 },
    [SPEC_FUNC_COSH] = { "cosh", 1 },   [SPEC_FUNC_TANH] = { "tanh", 1 },
    [SPEC_FUNC_EXP] = { "exp", 1 },     [SPEC_FUNC_LOG] = { "log", 1 },
    [SPEC_FUNC_SQRT] = { "sqrt", 1 },   [SPEC_FUNC_ABS] = { "abs", 1 },
};

const char *spec_func_name(spec_func func)
{
    return (unsigned)func < SPEC_FUNC_COUNT ? func_table[func].name : "?";
}

int spec_func_arity(spec_func func)
{
    return (unsigned)func < SPEC_FUNC_COUNT ? func_table[func].arity : 0;
}

int spec_func_lookup(const char *name, size_t len)
{
    for (int f = 0; f < SPEC_FUNC_COUNT; f++)
        if (strlen(func_table[f].name) == len && memcmp(func_table[f].name, name, len) == 0)
            return f;
    return -1;
}

// --- parser plumbing -----------------------------------------------------------------------

spec_loc parse_loc(const parse_state *p, const parse_token *t)
{
    spec_loc loc = { p->src->name, t->line, t->col };
    return loc;
}

bool parse_error_at(parse_state *p, const parse_token *t, const char *format, ...)
{
    if (t->kind == TOK_ERROR)
        return false;
    char small[512];
    va_list args;
    va_start(args, format);
    vsnprintf(small, sizeof small, format, args);
    va_end(args);
    spec_error(p->s, DIRAC_ERR_PARSE, parse_loc(p, t), "%s", small);
    return false;
}

enum { OPE_BINARY, OPE_UNARY, OPE_PAREN, OPE_CALL };

struct parse_opentry {
    uint8_t kind;   // OPE_*
    uint8_t op;     // spec_op, or spec_func for OPE_CALL
    int argc;       // OPE_CALL: arguments completed
    spec_loc loc;
};

static int precedence(const parse_opentry *e)
{
    if (e->kind == OPE_UNARY)
        return 3;
    switch (e->op) {
    case SPEC_OP_ADD: case SPEC_OP_SUB: return 1;
    case SPEC_OP_MUL: case SPEC_OP_DIV: return 2;
    case SPEC_OP_POW: return 4;
    default: return 0;
    }
}

static bool nomem(parse_state *p)
{
    spec_out_of_memory(p->s);
    return false;
}

// a new node with children kid0, kid1 (-1: none); its index, or -1 when out of memory
static int32_t add_node(parse_state *p, const spec_expr_node *node, int32_t kid0, int32_t kid1)
{
    if (!spec_mem_reserve(&p->s->mem, &p->nodes, &p->node_cap, p->node_count + 1,
                          sizeof *p->nodes) ||
        !spec_mem_reserve(&p->s->mem, &p->kids, &p->kid_cap, 2 * (p->node_count + 1),
                          sizeof *p->kids)) {
        spec_out_of_memory(p->s);
        return -1;
    }
    int32_t i = p->node_count++;
    p->nodes[i] = *node;
    p->kids[2 * i] = kid0;
    p->kids[2 * i + 1] = kid1;
    return i;
}

static bool push_value(parse_state *p, int32_t node)
{
    if (node < 0)
        return false;
    if (!spec_mem_reserve(&p->s->mem, &p->vals, &p->val_cap, p->val_count + 1,
                          sizeof *p->vals))
        return nomem(p);
    p->vals[p->val_count++] = node;
    return true;
}

static bool push_op(parse_state *p, const parse_token *t, parse_opentry e)
{
    if (p->op_count >= SPEC_NESTING_MAX)
        return parse_error_at(p, t, "expression nested too deeply (limit %d)", SPEC_NESTING_MAX);
    if (!spec_mem_reserve(&p->s->mem, &p->ops, &p->op_cap, p->op_count + 1,
                          sizeof *p->ops))
        return nomem(p);
    p->ops[p->op_count++] = e;
    return true;
}

// pops the operator on top of the stack and makes its node
static bool reduce(parse_state *p)
{
    parse_opentry e = p->ops[--p->op_count];
    spec_expr_node node;
    memset(&node, 0, sizeof node);
    node.loc = e.loc;
    node.op = e.op;
    if (e.kind == OPE_UNARY) {
        int32_t a = p->vals[--p->val_count];
        node.kind = SPEC_EXPR_UNARY;
        return push_value(p, add_node(p, &node, a, -1));
    }
    int32_t b = p->vals[--p->val_count], a = p->vals[--p->val_count];
    node.kind = SPEC_EXPR_BINARY;
    return push_value(p, add_node(p, &node, a, b));
}

// the innermost open parenthesis or call, or -1
static int open_paren(const parse_state *p)
{
    for (int i = p->op_count - 1; i >= 0; i--)
        if (p->ops[i].kind == OPE_PAREN || p->ops[i].kind == OPE_CALL)
            return i;
    return -1;
}

static bool not_closed(parse_state *p, int paren)
{
    spec_error(p->s, DIRAC_ERR_PARSE, p->ops[paren].loc,
               "unbalanced parentheses: '(' is not closed");
    return false;
}

// reduces operators down to the innermost open parenthesis or call
static bool reduce_to_paren(parse_state *p)
{
    while (p->op_count > 0 && p->ops[p->op_count - 1].kind != OPE_PAREN &&
           p->ops[p->op_count - 1].kind != OPE_CALL)
        if (!reduce(p))
            return false;
    return true;
}

static bool is_d_call(const parse_token *name, const parse_token *paren)
{
    return name->kind == TOK_NAME && name->len == 1 && name->text[0] == 'd' && !name->primes &&
           paren->kind == TOK_LPAREN;
}

// an operand name followed by '(': a call of a built-in function
static bool start_call(parse_state *p, const parse_token *t)
{
    int f = t->qualified || t->primes ? -1 : spec_func_lookup(t->text, t->len);
    if (f < 0) {
        char name[72];
        snprintf(name, sizeof name, "%.*s%s", t->len > 64 ? 64 : (int)t->len, t->text,
                 t->len > 64 ? "..." : "");
        if (t->len == 1 && t->text[0] == 'd')
            return parse_error_at(p, t, "d(...) is only allowed in a two-form: "
                                        "twoform NAME: EXPR * d(A) ^ d(B)");
        if (p->m && p->m->names && spec_names_find(p->m->names, t->text, t->len))
            return parse_error_at(p, t, "'%s' is not a function (write %s*(...) for a product)",
                                  name, name);
        diag_suggest sg;
        char word[72];
        snprintf(word, sizeof word, "%.*s", t->len > 64 ? 64 : (int)t->len, t->text);
        diag_suggest_init(&sg, word);
        for (int g = 0; g < SPEC_FUNC_COUNT; g++)
            diag_suggest_add(&sg, func_table[g].name);
        if (sg.best)
            return parse_error_at(p, t, "unknown function '%s'; did you mean '%s'?", name,
                                  sg.best);
        return parse_error_at(p, t, "unknown function '%s'", name);
    }
    parse_opentry e = { OPE_CALL, (uint8_t)f, 0, parse_loc(p, t) };
    if (!push_op(p, t, e))
        return false;
    lex_next(&p->lex);   // the name
    lex_next(&p->lex);   // '('
    return true;
}

// ')' or the end of a call's arguments: makes the call node
static bool finish_call(parse_state *p)
{
    parse_opentry e = p->ops[--p->op_count];
    int arity = func_table[e.op].arity;
    if (e.argc != arity) {
        spec_error(p->s, DIRAC_ERR_PARSE, e.loc, "%s() takes %d argument%s, got %d",
                   func_table[e.op].name, arity, arity == 1 ? "" : "s", e.argc);
        return false;
    }
    spec_expr_node node;
    memset(&node, 0, sizeof node);
    node.kind = SPEC_EXPR_CALL;
    node.op = e.op;
    node.argc = (uint8_t)e.argc;
    node.loc = e.loc;
    int32_t b = arity == 2 ? p->vals[--p->val_count] : -1;
    int32_t a = p->vals[--p->val_count];
    return push_value(p, add_node(p, &node, a, b));
}

// copies the scratch nodes into the arena, children as pointers
static bool emit(parse_state *p, spec_expr *out)
{
    int n = p->node_count;
    spec_expr_node *nodes = spec_arena_alloc(&p->s->arena, (size_t)n * sizeof *nodes);
    if (!nodes)
        return nomem(p);
    for (int i = 0; i < n; i++) {
        nodes[i] = p->nodes[i];
        if (nodes[i].kind == SPEC_EXPR_UNARY || nodes[i].kind == SPEC_EXPR_BINARY ||
            nodes[i].kind == SPEC_EXPR_CALL)
            for (int k = 0; k < 2; k++)
                nodes[i].u.arg[k] = p->kids[2 * i + k] >= 0 ? &nodes[p->kids[2 * i + k]] : NULL;
    }
    out->nodes = nodes;
    out->count = n;
    return true;
}

static bool expect_operand(parse_state *p, int flags, bool *operand)
{
    const parse_token *t = lex_peek(&p->lex, 0);
    spec_expr_node node;
    memset(&node, 0, sizeof node);
    node.loc = parse_loc(p, t);
    switch (t->kind) {
    case TOK_NUMBER:
        node.kind = SPEC_EXPR_NUMBER;
        node.u.number = t->number;
        lex_next(&p->lex);
        *operand = false;
        return push_value(p, add_node(p, &node, -1, -1));
    case TOK_NAME: {
        if (is_d_call(t, lex_peek(&p->lex, 1)) && (flags & PARSE_EXPR_COEFFICIENT))
            return parse_error_at(p, t, "misplaced d(...): a two-form term is "
                                        "EXPR * d(A) ^ d(B)");
        if (lex_peek(&p->lex, 1)->kind == TOK_LPAREN && !t->primes)
            return start_call(p, t);
        if (lex_starts_statement(t) && open_paren(p) < 0 &&
            !(p->m && spec_names_find(p->m->names, t->text, t->len)))
            return parse_error_at(p, t, "expected an expression, found the statement '%.*s' (the "
                                        "line before ends with an operator, so it continues here)",
                                  (int)t->len, t->text);
        if (t->primes > 1)
            return parse_error_at(p, t, "only first time derivatives (x') can be written");
        node.kind = t->primes ? SPEC_EXPR_PRIME : SPEC_EXPR_NAME;
        node.u.sym.name = spec_arena_strndup(&p->s->arena, t->text, t->len);
        if (!node.u.sym.name)
            return nomem(p);
        lex_next(&p->lex);
        *operand = false;
        return push_value(p, add_node(p, &node, -1, -1));
    }
    case TOK_LPAREN: {
        parse_opentry e = { OPE_PAREN, 0, 0, node.loc };
        if (!push_op(p, t, e))
            return false;
        lex_next(&p->lex);
        return true;
    }
    case TOK_MINUS: {
        parse_opentry e = { OPE_UNARY, SPEC_OP_NEG, 0, node.loc };
        if (!push_op(p, t, e))
            return false;
        lex_next(&p->lex);
        return true;
    }
    case TOK_PLUS:
        lex_next(&p->lex);   // unary plus changes nothing
        return true;
    default: {
        int paren = open_paren(p);
        if ((t->kind == TOK_EOF || t->kind == TOK_NEWLINE) && paren >= 0)
            return not_closed(p, paren);
        char what[96];
        lex_describe(t, what, sizeof what);
        return parse_error_at(p, t, "expected an expression, found %s", what);
    }
    }
}

bool parse_expr(parse_state *p, int flags, spec_expr *out)
{
    p->node_count = p->val_count = p->op_count = 0;
    out->nodes = NULL;
    out->count = 0;
    bool operand = true;
    for (;;) {
        if (operand) {
            if (!expect_operand(p, flags, &operand))
                return false;
            continue;
        }
        const parse_token *t = lex_peek(&p->lex, 0);
        int paren = open_paren(p);
        spec_op op;
        switch (t->kind) {
        case TOK_PLUS: op = SPEC_OP_ADD; break;
        case TOK_MINUS: op = SPEC_OP_SUB; break;
        case TOK_STAR: op = SPEC_OP_MUL; break;
        case TOK_SLASH: op = SPEC_OP_DIV; break;
        case TOK_CARET: op = SPEC_OP_POW; break;
        case TOK_RPAREN:
            if (!reduce_to_paren(p))
                return false;
            if (p->op_count == 0)
                goto done;   // not ours: the caller's ')'
            lex_next(&p->lex);
            if (p->ops[p->op_count - 1].kind == OPE_PAREN) {
                p->op_count--;
                continue;
            }
            p->ops[p->op_count - 1].argc++;
            if (!finish_call(p))
                return false;
            continue;
        case TOK_COMMA:
            if (paren < 0)
                goto done;
            if (p->ops[paren].kind == OPE_PAREN)
                return parse_error_at(p, t, "unexpected ',' inside parentheses");
            if (!reduce_to_paren(p))
                return false;
            p->ops[p->op_count - 1].argc++;
            lex_next(&p->lex);
            operand = true;
            continue;
        case TOK_NAME: case TOK_NUMBER: case TOK_LPAREN: case TOK_STRING: {
            if (paren >= 0 && t->line_start)
                return not_closed(p, paren);
            char what[96];
            lex_describe(t, what, sizeof what);
            return parse_error_at(p, t, "expected an operator before %s", what);
        }
        default:
            if (paren >= 0) {
                if (t->kind == TOK_EOF || t->kind == TOK_NEWLINE)
                    return not_closed(p, paren);
                char what[96];
                lex_describe(t, what, sizeof what);
                return parse_error_at(p, t, "unexpected %s inside parentheses", what);
            }
            goto done;
        }
        // a binary operator
        if ((flags & PARSE_EXPR_COEFFICIENT) && paren < 0) {
            if (op == SPEC_OP_ADD || op == SPEC_OP_SUB)
                goto done;
            if (op == SPEC_OP_MUL && is_d_call(lex_peek(&p->lex, 1), lex_peek(&p->lex, 2)))
                goto done;
        }
        parse_opentry e = { OPE_BINARY, (uint8_t)op, 0, parse_loc(p, t) };
        int prec = precedence(&e);
        bool right = op == SPEC_OP_POW;
        while (p->op_count > 0) {
            const parse_opentry *top = &p->ops[p->op_count - 1];
            if (top->kind != OPE_BINARY && top->kind != OPE_UNARY)
                break;
            int tp = precedence(top);
            if (tp > prec || (tp == prec && !right)) {
                if (!reduce(p))
                    return false;
            } else {
                break;
            }
        }
        if (!push_op(p, t, e))
            return false;
        lex_next(&p->lex);
        operand = true;
    }
done:
    while (p->op_count > 0)
        if (!reduce(p))
            return false;
    return emit(p, out);
}
