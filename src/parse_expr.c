// Expressions of the model language, parsed without recursion (shunting-yard with explicit
// operator and operand stacks), so the input cannot overflow the C stack; nesting deeper than
// SPEC_NESTING_MAX is an error. Nodes come out in postorder (see spec.h).
//
// Precedence, loosest first: comparisons < <= > >= == != (not chained), + - (left), * /
// (left), unary - and +, ^ (right). So -x^2 is -(x^2), x^-2 is x^(-2), a^b^c is a^(b^c) and
// a + 1 < b is (a + 1) < b.
//
// Calls with more than two arguments chain their arguments through LIST nodes (see
// builtin_functions.h); table(x, "file.csv", column) is read here and becomes the pwl of the
// file's points (spec_table.c).
//
// Indexed families: `x[i-1]`, `x[i]'`, `cell[i].q` are SUBSCRIPT nodes (a bracket is a group on
// the operator stack, like a parenthesis), `sum(i = A..B, E)` is a SUM over a RANGE (a group
// with three states: lower bound, upper bound, body), and a name that is an index in scope is
// an INDEX node.
#include "parse.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

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

enum { OPE_BINARY, OPE_UNARY, OPE_PAREN, OPE_CALL, OPE_SUBSCRIPT, OPE_SUM };
enum { SUM_LO, SUM_HI, SUM_BODY };

struct parse_opentry {
    uint8_t kind;    // OPE_*
    uint8_t op;      // spec_op, spec_func (OPE_CALL), index slot (OPE_SUM)
    uint8_t state;   // OPE_SUM: SUM_LO, SUM_HI, SUM_BODY
    bool chained;    // OPE_SUM: the second range of sum(i = .., j = .., E) (shares its ')')
    int argc;        // OPE_CALL: arguments completed; OPE_SUBSCRIPT: indices completed
    int group;       // OPE_SUBSCRIPT: indices completed in the current brackets
    int pattern_start;       // OPE_SUBSCRIPT: where its pattern starts in p->pattern
    spec_loc loc;            // operator, function name, subscripted name, `sum`
    spec_loc open;           // OPE_SUBSCRIPT: its '['; OPE_SUM: the index name
    const char *binder;      // OPE_SUM: the index name
};

static int precedence(const parse_opentry *e)
{
    if (e->kind == OPE_UNARY)
        return 4;
    switch (e->op) {
    case SPEC_OP_LT: case SPEC_OP_LE: case SPEC_OP_GT: case SPEC_OP_GE: case SPEC_OP_EQ:
    case SPEC_OP_NE: return 1;
    case SPEC_OP_ADD: case SPEC_OP_SUB: return 2;
    case SPEC_OP_MUL: case SPEC_OP_DIV: return 3;
    case SPEC_OP_POW: return 5;
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
    if (!mem_reserve(&p->s->mem, &p->nodes, &p->node_cap, p->node_count + 1,
                     sizeof *p->nodes) ||
        !mem_reserve(&p->s->mem, &p->kids, &p->kid_cap, 2 * (p->node_count + 1),
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
    if (!mem_reserve(&p->s->mem, &p->vals, &p->val_cap, p->val_count + 1,
                     sizeof *p->vals))
        return nomem(p);
    p->vals[p->val_count++] = node;
    return true;
}

static bool push_op(parse_state *p, const parse_token *t, parse_opentry e)
{
    if (p->op_count >= SPEC_NESTING_MAX)
        return parse_error_at(p, t, "expression nested too deeply (limit %d)", SPEC_NESTING_MAX);
    if (!mem_reserve(&p->s->mem, &p->ops, &p->op_cap, p->op_count + 1,
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

static bool is_group(const parse_opentry *e)
{
    return e->kind == OPE_PAREN || e->kind == OPE_CALL || e->kind == OPE_SUBSCRIPT ||
           e->kind == OPE_SUM;
}

// the innermost open parenthesis, call, bracket or sum, or -1
static int open_paren(const parse_state *p)
{
    for (int i = p->op_count - 1; i >= 0; i--)
        if (is_group(&p->ops[i]))
            return i;
    return -1;
}

static bool not_closed(parse_state *p, int paren)
{
    if (p->ops[paren].kind == OPE_SUBSCRIPT)
        spec_error(p->s, DIRAC_ERR_PARSE, p->ops[paren].open,
                   "unbalanced brackets: '[' is not closed");
    else
        spec_error(p->s, DIRAC_ERR_PARSE, p->ops[paren].loc,
                   "unbalanced parentheses: '(' is not closed");
    return false;
}

// reduces operators down to the innermost open group
static bool reduce_to_paren(parse_state *p)
{
    while (p->op_count > 0 && !is_group(&p->ops[p->op_count - 1]))
        if (!reduce(p))
            return false;
    return true;
}

// --- indices, subscripts and sums ----------------------------------------------------------

static bool token_is_word(const parse_token *t, const char *word)
{
    return t->kind == TOK_NAME && !t->primes && !t->qualified && t->len == strlen(word) &&
           memcmp(t->text, word, t->len) == 0;
}

bool parse_reserved_name(const char *text, size_t len, char *why, size_t size)
{
    if (len == 1 && text[0] == 't') {
        snprintf(why, size, "'t' is reserved for time");
        return true;
    }
    if (len == 2 && memcmp(text, "pi", 2) == 0) {
        snprintf(why, size, "'pi' is a built-in constant");
        return true;
    }
    if ((len == 3 && memcmp(text, "sum", 3) == 0) || spec_func_lookup(text, len) >= 0) {
        snprintf(why, size, "'%.*s' is a built-in function", (int)len, text);
        return true;
    }
    return false;
}

// the slot of the index called text[0..len) in scope, or -1
static int find_binder(const parse_state *p, const char *text, size_t len)
{
    for (int k = p->binder_count - 1; k >= 0; k--) {
        const char *b = p->binders[k];
        if (b && strncmp(b, text, len) == 0 && b[len] == '\0')
            return k;
    }
    return -1;
}

bool parse_bind(parse_state *p, const parse_token *t, const char *name)
{
    if (name) {
        char why[96];
        size_t len = strlen(name);
        if (parse_reserved_name(name, len, why, sizeof why))
            return parse_error_at(p, t, "%s and cannot be an index", why);
        if (find_binder(p, name, len) >= 0)
            return parse_error_at(p, t, "index '%s' is already in use here", name);
    }
    if (p->binder_count >= SPEC_BINDERS_MAX)
        return parse_error_at(p, t, "too many indices in scope (limit %d)", SPEC_BINDERS_MAX);
    p->binders[p->binder_count++] = name;
    p->m->indexed = true;
    return true;
}

static bool pattern_append(parse_state *p, const char *text, size_t len)
{
    if (len > (size_t)INT32_MAX - (size_t)p->pattern_len - 1 ||
        !mem_reserve(&p->s->mem, &p->pattern, &p->pattern_cap,
                     p->pattern_len + (int)len + 1, 1))
        return nomem(p);
    memcpy(p->pattern + p->pattern_len, text, len);
    p->pattern_len += (int)len;
    p->pattern[p->pattern_len] = '\0';
    return true;
}

// `NAME[` in an operand: a subscripted name
static bool start_subscript(parse_state *p, const parse_token *t)
{
    if (t->primes)
        return parse_error_at(p, t, "the prime of an element goes after its brackets: "
                                    "%.*s[...]'", t->len > 64 ? 64 : (int)t->len, t->text);
    if (!t->qualified && find_binder(p, t->text, t->len) >= 0)
        return parse_error_at(p, t, "'%.*s' is an index; it has no elements", (int)t->len,
                              t->text);
    const parse_token *bracket = lex_peek(&p->lex, 1);
    parse_opentry e;
    memset(&e, 0, sizeof e);
    e.kind = OPE_SUBSCRIPT;
    e.pattern_start = p->pattern_len;
    e.loc = parse_loc(p, t);
    e.open = parse_loc(p, bracket);
    if (!push_op(p, t, e) || !pattern_append(p, t->text, t->len))
        return false;
    p->m->indexed = true;
    lex_next(&p->lex);   // the name
    lex_next(&p->lex);   // '['
    return true;
}

// ']' of a subscript: 0 when the subscripted name is complete (an operator may follow), 1 when
// more brackets follow (`cell[i].x[j]`: an operand follows), -1 after an error
static int close_bracket(parse_state *p)
{
    parse_opentry *e = &p->ops[p->op_count - 1];
    e->argc++;
    e->group++;
    if (e->argc > SPEC_INDEX_MAX) {
        parse_error_at(p, lex_peek(&p->lex, 0), "too many indices (limit %d)", SPEC_INDEX_MAX);
        return -1;
    }
    if (!lex_peek(&p->lex, 0)->primes && lex_peek(&p->lex, 1)->kind == TOK_LBRACKET) {
        // u[i][j] is u[i, j]
        e->open = parse_loc(p, lex_peek(&p->lex, 1));
        lex_next(&p->lex);
        lex_next(&p->lex);
        return 1;
    }
    char brackets[SPEC_INDEX_MAX + 2];
    int n = 0;
    brackets[n++] = '[';
    for (int k = 1; k < e->group; k++)
        brackets[n++] = ',';
    brackets[n++] = ']';
    if (!pattern_append(p, brackets, (size_t)n))
        return -1;
    e->group = 0;
    parse_token last = lex_next(&p->lex);   // ']', maybe with primes
    if (!last.primes && lex_peek(&p->lex, 0)->kind == TOK_MEMBER) {
        last = lex_next(&p->lex);
        if (!pattern_append(p, last.text, last.len))
            return -1;
        if (!last.primes && lex_peek(&p->lex, 0)->kind == TOK_LBRACKET) {
            e->open = parse_loc(p, lex_peek(&p->lex, 0));
            lex_next(&p->lex);
            return 1;
        }
    }
    if (last.primes > 2) {
        parse_error_at(p, &last, "only first and second time derivatives (x', x'') can be "
                                 "written");
        return -1;
    }
    // the node: its indices are the last argc values
    int argc = e->argc;
    if (!mem_reserve(&p->s->mem, &p->subkids, &p->subkid_cap, p->subkid_count + argc,
                     sizeof *p->subkids)) {
        nomem(p);
        return -1;
    }
    int32_t first = p->subkid_count;
    for (int k = 0; k < argc; k++)
        p->subkids[first + k] = p->vals[p->val_count - argc + k];
    p->subkid_count += argc;
    p->val_count -= argc;
    spec_expr_node node;
    memset(&node, 0, sizeof node);
    node.kind = SPEC_EXPR_SUBSCRIPT;
    node.op = SPEC_SUBSCRIPT_OP(last.primes, 0);
    node.argc = (uint8_t)argc;
    node.loc = e->loc;
    node.u.sub.name = mem_arena_strndup(&p->s->arena, p->pattern + e->pattern_start,
                                        (size_t)(p->pattern_len - e->pattern_start));
    p->pattern_len = e->pattern_start;
    p->op_count--;
    if (!node.u.sub.name) {
        nomem(p);
        return -1;
    }
    return push_value(p, add_node(p, &node, first, argc)) ? 0 : -1;
}

// checks the index name of a sum at t (a NAME followed by '='), consumes both
static bool sum_binder(parse_state *p, parse_opentry *e)
{
    const parse_token *t = lex_peek(&p->lex, 0);
    if (t->kind != TOK_NAME || t->primes || t->qualified ||
        lex_peek(&p->lex, 1)->kind != TOK_EQUALS) {
        char what[96];
        lex_describe(t, what, sizeof what);
        return parse_error_at(p, t, "expected an index range after 'sum(' (sum(i = 1..N, "
                                    "EXPR)), found %s", what);
    }
    char why[96];
    if (parse_reserved_name(t->text, t->len, why, sizeof why))
        return parse_error_at(p, t, "%s and cannot be an index", why);
    if (find_binder(p, t->text, t->len) >= 0)
        return parse_error_at(p, t, "index '%.*s' is already in use here", (int)t->len,
                              t->text);
    e->binder = mem_arena_strndup(&p->s->arena, t->text, t->len);
    if (!e->binder)
        return nomem(p);
    e->open = parse_loc(p, t);
    lex_next(&p->lex);
    lex_next(&p->lex);
    return true;
}

// `sum(`: a sum over one or more index ranges
static bool start_sum(parse_state *p, const parse_token *t)
{
    parse_opentry e;
    memset(&e, 0, sizeof e);
    e.kind = OPE_SUM;
    e.state = SUM_LO;
    e.loc = parse_loc(p, t);
    if (!push_op(p, t, e))
        return false;
    p->m->indexed = true;
    lex_next(&p->lex);   // sum
    lex_next(&p->lex);   // (
    return sum_binder(p, &p->ops[p->op_count - 1]);
}

// ',' after the upper bound of a sum: the RANGE node, the index in scope, maybe another range
static bool sum_range_done(parse_state *p, const parse_token *comma)
{
    parse_opentry *e = &p->ops[p->op_count - 1];
    spec_expr_node node;
    memset(&node, 0, sizeof node);
    node.kind = SPEC_EXPR_RANGE;
    node.loc = e->open;
    node.u.range.binder = e->binder;
    node.u.range.lo = p->vals[p->val_count - 2];
    node.u.range.hi = p->vals[p->val_count - 1];
    p->val_count -= 2;
    if (!push_value(p, add_node(p, &node, -1, -1)))
        return false;
    if (p->binder_count >= SPEC_BINDERS_MAX)
        return parse_error_at(p, comma, "too many indices in scope (limit %d)",
                              SPEC_BINDERS_MAX);
    e->op = (uint8_t)p->binder_count;
    p->binders[p->binder_count++] = e->binder;
    e->state = SUM_BODY;
    lex_next(&p->lex);   // ','
    const parse_token *t = lex_peek(&p->lex, 0);
    if (t->kind == TOK_NAME && !t->primes && !t->qualified &&
        lex_peek(&p->lex, 1)->kind == TOK_EQUALS) {
        parse_opentry next;
        memset(&next, 0, sizeof next);
        next.kind = OPE_SUM;
        next.state = SUM_LO;
        next.chained = true;
        next.loc = e->loc;
        if (!push_op(p, t, next))
            return false;
        return sum_binder(p, &p->ops[p->op_count - 1]);
    }
    return true;
}

// ')' of a sum: its SUM nodes, innermost first
static bool finish_sum(parse_state *p, const parse_token *t)
{
    parse_opentry *e = &p->ops[p->op_count - 1];
    if (e->state == SUM_LO)
        return parse_error_at(p, t, "expected '..' in the range of sum(i = LO..HI, EXPR)");
    if (e->state == SUM_HI)
        return parse_error_at(p, t, "expected ', EXPR' after the range of sum(i = LO..HI, "
                                    "EXPR)");
    for (;;) {
        parse_opentry top = p->ops[--p->op_count];
        spec_expr_node node;
        memset(&node, 0, sizeof node);
        node.kind = SPEC_EXPR_SUM;
        node.op = top.op;
        node.loc = top.loc;
        int32_t body = p->vals[--p->val_count], range = p->vals[--p->val_count];
        p->binder_count--;
        if (!push_value(p, add_node(p, &node, range, body)))
            return false;
        if (!top.chained)
            break;
    }
    lex_next(&p->lex);   // ')'
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
        if (!t->qualified && find_binder(p, t->text, t->len) >= 0)
            return parse_error_at(p, t, "'%s' is an index, not a function (write %s*(...) for "
                                        "a product)", name, name);
        if (p->m && p->m->names && spec_names_find(p->m->names, t->text, t->len))
            return parse_error_at(p, t, "'%s' is not a function (write %s*(...) for a product)",
                                  name, name);
        diag_suggest sg;
        char word[72];
        snprintf(word, sizeof word, "%.*s", t->len > 64 ? 64 : (int)t->len, t->text);
        diag_suggest_init(&sg, word);
        for (int g = 0; g < SPEC_FUNC_COUNT; g++)
            if (spec_func_name((spec_func)g)[0])
                diag_suggest_add(&sg, spec_func_name((spec_func)g));
        if (sg.best)
            return parse_error_at(p, t, "unknown function '%s'; did you mean '%s'?", name,
                                  sg.best);
        return parse_error_at(p, t, "unknown function '%s'", name);
    }
    parse_opentry e = { .kind = OPE_CALL, .op = (uint8_t)f, .loc = parse_loc(p, t) };
    if (!push_op(p, t, e))
        return false;
    lex_next(&p->lex);   // the name
    lex_next(&p->lex);   // '('
    return true;
}

// a LIST node of the last two values
static bool chain_last_two(parse_state *p, spec_loc loc)
{
    spec_expr_node node;
    memset(&node, 0, sizeof node);
    node.kind = SPEC_EXPR_CALL;
    node.op = SPEC_FUNC_LIST;
    node.argc = 2;
    node.loc = loc;
    int32_t b = p->vals[--p->val_count], a = p->vals[--p->val_count];
    return push_value(p, add_node(p, &node, a, b));
}

// table(x, "file", column): the file's points replace the last two operands (the file's
// placeholder and the column, both the last nodes written); the call becomes a pwl
static bool finish_table(parse_state *p, parse_opentry *e)
{
    int32_t column = p->vals[p->val_count - 1], file = p->vals[p->val_count - 2];
    const spec_expr_node *c = &p->nodes[column], *f = &p->nodes[file];
    if (f->kind != SPEC_EXPR_NAME || f->op != 1) {
        spec_error(p->s, DIRAC_ERR_PARSE, f->loc, "table(): the second argument is the file "
                                                  "name, in quotes: table(x, \"data.csv\", 2)");
        return false;
    }
    bool by_name = c->kind == SPEC_EXPR_NAME && c->op == 1;
    if (!by_name && c->kind != SPEC_EXPR_NUMBER) {
        spec_error(p->s, DIRAC_ERR_PARSE, c->loc, "table(): the column is a number (2: the "
                                                  "second column) or a header name in quotes");
        return false;
    }
    if (column != p->node_count - 1 || file != p->node_count - 2) {
        spec_error(p->s, DIRAC_ERR_PARSE, c->loc, "table(): malformed arguments");
        return false;
    }
    double *xs = NULL, *ys = NULL;
    int n = 0;
    if (!spec_table_read(p->s, p->m ? p->m->dir : NULL, f->u.sym.name, f->loc,
                         by_name ? c->u.sym.name : NULL, by_name ? 0 : c->u.number, c->loc,
                         &xs, &ys, &n))
        return false;
    p->val_count -= 2;
    p->node_count -= 2;
    bool ok = true;
    spec_expr_node num;
    memset(&num, 0, sizeof num);
    num.kind = SPEC_EXPR_NUMBER;
    num.loc = e->loc;
    for (int k = 0; ok && k < n; k++) {
        num.u.number = xs[k];
        ok = push_value(p, add_node(p, &num, -1, -1));
        num.u.number = ys[k];
        ok = ok && push_value(p, add_node(p, &num, -1, -1));
    }
    mem_free(&p->s->mem, xs);
    mem_free(&p->s->mem, ys);
    e->op = SPEC_FUNC_PWL;   // finish_call chains the points
    e->argc = 1 + 2 * n;
    return ok;
}

// ')' or the end of a call's arguments: makes the call node
static bool finish_call(parse_state *p)
{
    parse_opentry e = p->ops[--p->op_count];
    int min_args = spec_func_arity(e.op), max_args = spec_func_max_args(e.op);
    if (e.argc < min_args || (max_args >= 0 && e.argc > max_args)) {
        if (min_args == max_args)
            spec_error(p->s, DIRAC_ERR_PARSE, e.loc, "%s() takes %d argument%s, got %d",
                       spec_func_name(e.op), min_args, min_args == 1 ? "" : "s", e.argc);
        else
            spec_error(p->s, DIRAC_ERR_PARSE, e.loc, "%s() takes at least %d arguments, got %d",
                       spec_func_name(e.op), min_args, e.argc);
        return false;
    }
    if (e.op == SPEC_FUNC_PWL && e.argc % 2 == 0) {
        spec_error(p->s, DIRAC_ERR_PARSE, e.loc, "pwl(x, x1, y1, x2, y2, ...) takes x and pairs "
                                                 "of points, got %d arguments", e.argc);
        return false;
    }
    for (int k = 0; k < e.argc; k++) {
        const spec_expr_node *arg = &p->nodes[p->vals[p->val_count - 1 - k]];
        bool is_string = arg->kind == SPEC_EXPR_NAME && arg->op == 1;
        bool string_allowed = e.op == SPEC_FUNC_TABLE && k < 2;
        if (is_string && !string_allowed) {
            spec_error(p->s, DIRAC_ERR_PARSE, arg->loc, "a string is not a number (only "
                                                        "table() takes a file name)");
            return false;
        }
    }
    if (e.op == SPEC_FUNC_TABLE && !finish_table(p, &e))
        return false;
    for (int k = 2; k < e.argc; k++)
        if (!chain_last_two(p, e.loc))
            return false;
    spec_expr_node node;
    memset(&node, 0, sizeof node);
    node.kind = SPEC_EXPR_CALL;
    node.op = e.op;
    node.argc = (uint8_t)(e.argc >= 2 ? 2 : 1);
    node.loc = e.loc;
    int32_t b = e.argc >= 2 ? p->vals[--p->val_count] : -1;
    int32_t a = p->vals[--p->val_count];
    return push_value(p, add_node(p, &node, a, b));
}

// copies the scratch nodes into the arena, children as pointers (a subscript's kids are the
// start and count of its children in p->subkids)
static bool emit(parse_state *p, spec_expr *out)
{
    int n = p->node_count;
    spec_expr_node *nodes = mem_arena_alloc(&p->s->arena, (size_t)n * sizeof *nodes);
    if (!nodes)
        return nomem(p);
    for (int i = 0; i < n; i++) {
        nodes[i] = p->nodes[i];
        if (nodes[i].kind == SPEC_EXPR_UNARY || nodes[i].kind == SPEC_EXPR_BINARY ||
            nodes[i].kind == SPEC_EXPR_CALL || nodes[i].kind == SPEC_EXPR_SUM)
            for (int k = 0; k < 2; k++)
                nodes[i].u.arg[k] = p->kids[2 * i + k] >= 0 ? &nodes[p->kids[2 * i + k]] : NULL;
        if (nodes[i].kind == SPEC_EXPR_SUBSCRIPT) {
            int first = p->kids[2 * i], count = p->kids[2 * i + 1];
            spec_expr_node **args = mem_arena_alloc(&p->s->arena,
                                                    (size_t)count * sizeof *args);
            if (!args)
                return nomem(p);
            for (int k = 0; k < count; k++)
                args[k] = &nodes[p->subkids[first + k]];
            nodes[i].u.sub.args = args;
        }
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
        if (lex_peek(&p->lex, 1)->kind == TOK_LPAREN && token_is_word(t, "sum"))
            return start_sum(p, t);
        if (lex_peek(&p->lex, 1)->kind == TOK_LPAREN && !t->primes)
            return start_call(p, t);
        if (lex_starts_statement(t) && open_paren(p) < 0 &&
            !(p->m && spec_names_find(p->m->names, t->text, t->len)))
            return parse_error_at(p, t, "expected an expression, found the statement '%.*s' (the "
                                        "line before ends with an operator, so it continues here)",
                                  (int)t->len, t->text);
        if (lex_peek(&p->lex, 1)->kind == TOK_LBRACKET)
            return start_subscript(p, t);
        if (t->primes > 2)
            return parse_error_at(p, t, "only first and second time derivatives (x', x'') "
                                        "can be written");
        int binder = t->qualified ? -1 : find_binder(p, t->text, t->len);
        if (binder >= 0) {
            if (t->primes)
                return parse_error_at(p, t, "'%.*s' is an index; it has no velocity",
                                      (int)t->len, t->text);
            node.kind = SPEC_EXPR_INDEX;
            node.u.sym.name = p->binders[binder];
            node.u.sym.ref.kind = SPEC_SYM_INDEX;
            node.u.sym.ref.index = binder;
            lex_next(&p->lex);
            *operand = false;
            return push_value(p, add_node(p, &node, -1, -1));
        }
        node.kind = t->primes ? SPEC_EXPR_PRIME : SPEC_EXPR_NAME;
        node.op = t->primes == 2 ? 2 : 0;   // an acceleration: outputs only (spec_resolve.c)
        node.u.sym.name = mem_arena_strndup(&p->s->arena, t->text, t->len);
        if (!node.u.sym.name)
            return nomem(p);
        lex_next(&p->lex);
        *operand = false;
        return push_value(p, add_node(p, &node, -1, -1));
    }
    case TOK_STRING: {
        // a file name or column of table(); finish_call refuses it anywhere else
        int paren = open_paren(p);
        if (paren < 0 || p->ops[paren].kind != OPE_CALL || p->ops[paren].op != SPEC_FUNC_TABLE ||
            paren != p->op_count - 1)
            return parse_error_at(p, t, "a string is not a number (only table() takes a file "
                                        "name)");
        node.kind = SPEC_EXPR_NAME;
        node.op = 1;   // marks the placeholder of a string
        node.u.sym.name = mem_arena_strndup(&p->s->arena, t->text, t->len);
        if (!node.u.sym.name)
            return nomem(p);
        lex_next(&p->lex);
        *operand = false;
        return push_value(p, add_node(p, &node, -1, -1));
    }
    case TOK_LPAREN: {
        parse_opentry e = { .kind = OPE_PAREN, .loc = node.loc };
        if (!push_op(p, t, e))
            return false;
        lex_next(&p->lex);
        return true;
    }
    case TOK_MINUS: {
        parse_opentry e = { .kind = OPE_UNARY, .op = SPEC_OP_NEG, .loc = node.loc };
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

static bool parse_expr_body(parse_state *p, int flags, spec_expr *out);

bool parse_expr(parse_state *p, int flags, spec_expr *out)
{
    int pattern_len = p->pattern_len, binders = p->binder_count;
    bool ok = parse_expr_body(p, flags, out);
    p->pattern_len = pattern_len;   // after an error: the patterns and sums left open
    p->binder_count = binders;
    return ok;
}

// what the expression parser does after a token that follows an operand
typedef enum expr_step {
    STEP_FAIL,       // an error was reported
    STEP_OPERAND,    // an operand comes next
    STEP_OPERATOR,   // an operator (or the end) comes next
    STEP_DONE,       // the token is not the expression's: it ends here
} expr_step;

static bool binary_op_of(parse_tok kind, spec_op *op)
{
    switch (kind) {
    case TOK_PLUS: *op = SPEC_OP_ADD; return true;
    case TOK_MINUS: *op = SPEC_OP_SUB; return true;
    case TOK_STAR: *op = SPEC_OP_MUL; return true;
    case TOK_SLASH: *op = SPEC_OP_DIV; return true;
    case TOK_CARET: *op = SPEC_OP_POW; return true;
    case TOK_LT: *op = SPEC_OP_LT; return true;
    case TOK_LE: *op = SPEC_OP_LE; return true;
    case TOK_GT: *op = SPEC_OP_GT; return true;
    case TOK_GE: *op = SPEC_OP_GE; return true;
    case TOK_EQEQ: *op = SPEC_OP_EQ; return true;
    case TOK_NE: *op = SPEC_OP_NE; return true;
    default: return false;
    }
}

// ')': closes a parenthesis, a call or a sum
static expr_step on_rparen(parse_state *p, const parse_token *t)
{
    if (!reduce_to_paren(p))
        return STEP_FAIL;
    if (p->op_count == 0)
        return STEP_DONE;   // not ours: the caller's ')'
    parse_opentry *top = &p->ops[p->op_count - 1];
    if (top->kind == OPE_SUBSCRIPT) {
        not_closed(p, p->op_count - 1);
        return STEP_FAIL;
    }
    if (top->kind == OPE_SUM)
        return finish_sum(p, t) ? STEP_OPERATOR : STEP_FAIL;
    lex_next(&p->lex);
    if (top->kind == OPE_PAREN) {
        p->op_count--;
        return STEP_OPERATOR;
    }
    top->argc++;
    return finish_call(p) ? STEP_OPERATOR : STEP_FAIL;
}

// ']': closes a subscript
static expr_step on_rbracket(parse_state *p, const parse_token *t)
{
    if (!reduce_to_paren(p))
        return STEP_FAIL;
    if (p->op_count == 0)
        return STEP_DONE;   // the caller's ']'
    if (p->ops[p->op_count - 1].kind != OPE_SUBSCRIPT) {
        parse_error_at(p, t, "unbalanced brackets: unmatched ']'");
        return STEP_FAIL;
    }
    int more = close_bracket(p);
    return more < 0 ? STEP_FAIL : more == 1 ? STEP_OPERAND : STEP_OPERATOR;
}

// '..' between the bounds of a sum's range
static expr_step on_dotdot(parse_state *p, const parse_token *t, int paren)
{
    if (paren < 0)
        return STEP_DONE;   // the caller's range
    if (p->ops[paren].kind != OPE_SUM || p->ops[paren].state != SUM_LO) {
        parse_error_at(p, t, "unexpected '..' (a range LO..HI belongs in sum(i = LO..HI, EXPR) "
                             "or in a statement's [...])");
        return STEP_FAIL;
    }
    if (!reduce_to_paren(p))
        return STEP_FAIL;
    p->ops[p->op_count - 1].state = SUM_HI;
    lex_next(&p->lex);
    return STEP_OPERAND;
}

// ',' between the arguments of a call, the indices of a subscript or the parts of a sum
static expr_step on_comma(parse_state *p, const parse_token *t, int paren)
{
    if (paren < 0)
        return STEP_DONE;
    parse_opentry *group = &p->ops[paren];
    const char *error = NULL;
    if (group->kind == OPE_PAREN)
        error = "unexpected ',' inside parentheses";
    else if (group->kind == OPE_SUM && group->state == SUM_LO)
        error = "expected '..' in the range of sum(i = LO..HI, EXPR)";
    else if (group->kind == OPE_SUM && group->state == SUM_BODY)
        error = "sum() takes its ranges and one expression: sum(i = LO..HI, EXPR)";
    if (error) {
        parse_error_at(p, t, "%s", error);
        return STEP_FAIL;
    }
    if (!reduce_to_paren(p))
        return STEP_FAIL;
    group = &p->ops[p->op_count - 1];   // the same group, after the reduction
    if (group->kind == OPE_SUM)
        return sum_range_done(p, t) ? STEP_OPERAND : STEP_FAIL;
    group->argc++;
    if (group->kind == OPE_SUBSCRIPT && ++group->group >= SPEC_INDEX_MAX) {
        parse_error_at(p, t, "too many indices (limit %d)", SPEC_INDEX_MAX);
        return STEP_FAIL;
    }
    lex_next(&p->lex);
    return STEP_OPERAND;
}

// a binary operator: reduces what binds tighter, then pushes it
static expr_step on_binary(parse_state *p, int flags, const parse_token *t, spec_op op,
                           int paren)
{
    if ((flags & PARSE_EXPR_COEFFICIENT) && paren < 0) {
        if (op == SPEC_OP_ADD || op == SPEC_OP_SUB)
            return STEP_DONE;
        if (op == SPEC_OP_MUL && is_d_call(lex_peek(&p->lex, 1), lex_peek(&p->lex, 2)))
            return STEP_DONE;
    }
    parse_opentry e = { .kind = OPE_BINARY, .op = (uint8_t)op, .loc = parse_loc(p, t) };
    int prec = precedence(&e);
    bool right = op == SPEC_OP_POW;
    while (p->op_count > 0) {
        const parse_opentry *top = &p->ops[p->op_count - 1];
        if (top->kind != OPE_BINARY && top->kind != OPE_UNARY)
            break;
        int tp = precedence(top);
        if (tp == 1 && prec == 1) {
            parse_error_at(p, t, "comparisons cannot be chained (a < b < c): join them with "
                                 "if() or parenthesize one");
            return STEP_FAIL;
        }
        if (tp < prec || (tp == prec && right))
            break;
        if (!reduce(p))
            return STEP_FAIL;
    }
    if (!push_op(p, t, e))
        return STEP_FAIL;
    lex_next(&p->lex);
    return STEP_OPERAND;
}

// any other token after an operand: the end of the expression, or an error inside a group
static expr_step on_other(parse_state *p, const parse_token *t, int paren)
{
    char what[96];
    switch (t->kind) {
    case TOK_NAME: case TOK_NUMBER: case TOK_LPAREN: case TOK_STRING: case TOK_LBRACKET:
        if (paren < 0 && (token_is_word(t, "fixed") || token_is_word(t, "guess")))
            return STEP_DONE;   // `initial th = 0.4 fixed`: the statement takes the word
        if (paren >= 0 && t->line_start) {
            not_closed(p, paren);
            return STEP_FAIL;
        }
        lex_describe(t, what, sizeof what);
        parse_error_at(p, t, "expected an operator before %s", what);
        return STEP_FAIL;
    default:
        if (paren < 0)
            return STEP_DONE;
        if (t->kind == TOK_EOF || t->kind == TOK_NEWLINE) {
            not_closed(p, paren);
            return STEP_FAIL;
        }
        lex_describe(t, what, sizeof what);
        parse_error_at(p, t, "unexpected %s inside %s", what,
                       p->ops[paren].kind == OPE_SUBSCRIPT ? "brackets" : "parentheses");
        return STEP_FAIL;
    }
}

// the token after an operand
static expr_step after_operand(parse_state *p, int flags)
{
    const parse_token *t = lex_peek(&p->lex, 0);
    int paren = open_paren(p);
    spec_op op;
    if (binary_op_of(t->kind, &op))
        return on_binary(p, flags, t, op, paren);
    switch (t->kind) {
    case TOK_RPAREN: return on_rparen(p, t);
    case TOK_RBRACKET: return on_rbracket(p, t);
    case TOK_DOTDOT: return on_dotdot(p, t, paren);
    case TOK_COMMA: return on_comma(p, t, paren);
    default: return on_other(p, t, paren);
    }
}

static bool parse_expr_body(parse_state *p, int flags, spec_expr *out)
{
    p->node_count = p->val_count = p->op_count = p->subkid_count = 0;
    out->nodes = NULL;
    out->count = 0;
    bool operand = true;
    for (;;) {
        if (operand) {
            if (!expect_operand(p, flags, &operand))
                return false;
            continue;
        }
        expr_step step = after_operand(p, flags);
        if (step == STEP_FAIL)
            return false;
        if (step == STEP_DONE)
            break;
        operand = step == STEP_OPERAND;
    }
    while (p->op_count > 0)
        if (!reduce(p))
            return false;
    return emit(p, out);
}
