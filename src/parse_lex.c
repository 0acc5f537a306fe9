// Lexer of the model language: tokens with line and column, line continuation, and the
// byte-level checks (NUL bytes, invalid UTF-8, characters outside the language).
#include "parse.h"

#include <locale.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void lex_init(parse_lexer *lx, spec *s, diag_source *src)
{
    memset(lx, 0, sizeof *lx);
    lx->s = s;
    lx->src = src;
    lx->p = src->text;
    lx->end = src->text + src->size;
    lx->line = lx->col = 1;
    lx->last = TOK_NEWLINE;
    // a UTF-8 byte-order mark is not part of the text
    if (src->size >= 3 && memcmp(src->text, "\xEF\xBB\xBF", 3) == 0)
        lx->p += 3;
}

static bool is_name_start(int c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}

static bool is_name_char(int c)
{
    return is_name_start(c) || (c >= '0' && c <= '9');
}

static bool is_digit(int c)
{
    return c >= '0' && c <= '9';
}

// a token after which a line break does not end the statement
static bool continues_line(parse_tok k)
{
    switch (k) {
    case TOK_PLUS: case TOK_MINUS: case TOK_STAR: case TOK_SLASH: case TOK_CARET:
    case TOK_COMMA: case TOK_EQUALS: case TOK_COLON: case TOK_ARROW: case TOK_LPAREN:
    case TOK_LBRACKET: case TOK_DOTDOT: case TOK_LT: case TOK_LE: case TOK_GT: case TOK_GE:
    case TOK_EQEQ: case TOK_NE:
        return true;
    default:
        return false;
    }
}

static spec_loc lex_loc(const parse_lexer *lx, int line, int col)
{
    spec_loc loc = { lx->src->name, line, col };
    return loc;
}

#if defined(__GNUC__)
__attribute__((format(printf, 3, 4)))
#endif
static void lex_error(parse_lexer *lx, spec_loc loc, const char *format, ...)
{
    if (lx->quiet)
        return;
    va_list args;
    va_start(args, format);
    spec_verror(lx->s, DIRAC_ERR_PARSE, loc, format, args);
    va_end(args);
}

// one character outside the language at lx->p: reports it, skips it
static void lex_bad_char(parse_lexer *lx)
{
    const unsigned char *u = (const unsigned char *)lx->p;
    size_t avail = (size_t)(lx->end - lx->p);
    spec_loc here = lex_loc(lx, lx->line, lx->col);
    size_t n = diag_utf8_length(u, avail);
    if (*u == 0) {
        lex_error(lx, here, "NUL byte in the file (is it a text file?)");
        n = 1;
    } else if (n == 0) {
        lex_error(lx, here, "invalid UTF-8 byte 0x%02X", (unsigned)*u);
        n = 1;
    } else if (n > 1) {
        lex_error(lx, here,
                   "unexpected character '%.*s' (names and operators are ASCII)", (int)n, lx->p);
    } else if (*u == '\'') {
        lex_error(lx, here,
                   "a prime (') must follow a name directly, as in x'");
    } else if (*u == '"') {
        lex_error(lx, here, "unexpected string");
    } else if (*u < 0x20 || *u == 0x7F) {
        lex_error(lx, here, "unexpected control character 0x%02X",
                   (unsigned)*u);
    } else {
        lex_error(lx, here, "unexpected character '%c'", *u);
    }
    lx->p += n;
    lx->col++;
}

// converts the number text[0..len) (already checked to be a decimal literal)
static bool lex_number_value(parse_lexer *lx, const char *text, size_t len, double *value)
{
    char small[128], *buf = small;
    if (len + 1 > sizeof small) {
        buf = mem_alloc(&lx->s->mem, len + 1);
        if (!buf) {
            spec_out_of_memory(lx->s);
            return false;
        }
    }
    memcpy(buf, text, len);
    buf[len] = '\0';
    // strtod follows the locale's decimal point; the language's is always '.'
    const struct lconv *lc = localeconv();
    char point = lc && lc->decimal_point && lc->decimal_point[0] ? lc->decimal_point[0] : '.';
    if (point != '.')
        for (size_t i = 0; i < len; i++)
            if (buf[i] == '.')
                buf[i] = point;
    *value = strtod(buf, NULL);
    if (buf != small)
        mem_free(&lx->s->mem, buf);
    return true;
}

// skips blanks and comments; false after a NUL byte in a comment (reported; *t is the error)
static bool lex_skip_blanks(parse_lexer *lx, parse_token *t)
{
    while (lx->p < lx->end) {
        char c = *lx->p;
        if (c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v') {
            lx->p++;
            lx->col++;
        } else if (c == '#') {
            // comments may hold any bytes but NUL
            const char *nl = memchr(lx->p, '\n', (size_t)(lx->end - lx->p));
            const char *stop = nl ? nl : lx->end;
            const char *nul = memchr(lx->p, '\0', (size_t)(stop - lx->p));
            if (nul) {
                for (const char *q = lx->p; q < nul; q++)
                    if (((unsigned char)*q & 0xC0) != 0x80)
                        lx->col++;
                lx->p = nul;
                t->kind = TOK_ERROR;
                t->line = lx->line;
                t->col = lx->col;
                lex_bad_char(lx);
                // skip the rest of the comment
                lx->p = stop;
                return false;
            }
            lx->p = stop;
        } else {
            break;
        }
    }
    return true;
}

// the end of a name at q: NAME ('.' NAME)* (for a member: after its first '.'), stopping before
// a '.' that does not start a name; *dotted tells whether a '.' was taken
static const char *lex_dotted_name_end(const parse_lexer *lx, const char *q, bool *dotted)
{
    for (;;) {
        while (q < lx->end && is_name_char((unsigned char)*q))
            q++;
        if (q + 1 < lx->end && *q == '.' && is_name_start((unsigned char)q[1])) {
            *dotted = true;
            q++;
            continue;
        }
        return q;
    }
}

// the primes after a name or ']' that ends at q, then moves the lexer past them
static void lex_primes_and_advance(parse_lexer *lx, parse_token *t, const char *q)
{
    while (q < lx->end && *q == '\'') {
        t->primes++;
        q++;
    }
    lx->col += (int)(q - lx->p);
    lx->p = q;
}

// `.name` (`.a.b`) right after ']': a member of a family's element, cell[i].q
static void lex_member(parse_lexer *lx, parse_token *t)
{
    bool dotted = false;
    const char *q = lex_dotted_name_end(lx, lx->p + 1, &dotted);
    t->kind = TOK_MEMBER;
    t->len = (size_t)(q - t->text);
    lex_primes_and_advance(lx, t, q);
}

// NAME ('.' NAME)* '*
static void lex_name(parse_lexer *lx, parse_token *t)
{
    const char *start = lx->p;
    const char *q = lex_dotted_name_end(lx, start, &t->qualified);
    if (q < lx->end && *q == '.' && !(q + 1 < lx->end && q[1] == '.')) {   // not a range N..M
        lx->col += (int)(q + 1 - lx->p);
        lx->p = q + 1;
        lex_error(lx, lex_loc(lx, t->line, t->col),
                   "invalid name '%.*s': a name must follow '.'", (int)(q + 1 - start), start);
        t->kind = TOK_ERROR;
        return;
    }
    t->kind = TOK_NAME;
    t->len = (size_t)(q - start);
    lex_primes_and_advance(lx, t, q);
}

// the end of the digits at q
static const char *lex_digits_end(const parse_lexer *lx, const char *q)
{
    while (q < lx->end && is_digit((unsigned char)*q))
        q++;
    return q;
}

// reports the malformed number start[0..shown) whose literal part is start[0..len)
static void lex_number_error(parse_lexer *lx, const parse_token *t, const char *start,
                             size_t len, size_t shown)
{
    const char *q = start + len, *r = start + shown;
    spec_loc loc = lex_loc(lx, t->line, t->col);
    if (shown > 40)
        lex_error(lx, loc, "invalid number '%.40s...'", start);
    else if (r > q && is_name_start((unsigned char)*q) && len > 0 && !(*q == 'e' || *q == 'E'))
        lex_error(lx, loc,
                   "invalid number '%.*s' (write %.*s*%.*s for a product)", (int)shown, start,
                   (int)len, start, (int)(r - q), q);
    else
        lex_error(lx, loc, "invalid number '%.*s'", (int)shown, start);
}

// digits [. digits] [e [+-] digits]
static void lex_number(parse_lexer *lx, parse_token *t)
{
    const char *start = lx->p;
    bool ok = true;
    const char *q = lex_digits_end(lx, start);
    if (q < lx->end && *q == '.' && !(q + 1 < lx->end && q[1] == '.'))
        q = lex_digits_end(lx, q + 1);
    if (q < lx->end && (*q == 'e' || *q == 'E')) {
        const char *e = q + 1;
        if (e < lx->end && (*e == '+' || *e == '-'))
            e++;
        ok = e < lx->end && is_digit((unsigned char)*e);   // "1e", "1e+": show the sign too
        q = lex_digits_end(lx, e);
    }
    size_t len = (size_t)(q - start);
    // glued letters, digits or dots make a malformed number: 1e, 1.2.3, 2x
    const char *r = q;
    while (r < lx->end && (is_name_char((unsigned char)*r) ||
                           (*r == '.' && !(r + 1 < lx->end && r[1] == '.'))))
        r++;
    if (r > q)
        ok = false;
    lx->col += (int)(r - lx->p);
    lx->p = r;
    if (!ok) {
        lex_number_error(lx, t, start, len, (size_t)(r - start));
        t->kind = TOK_ERROR;
        return;
    }
    t->kind = TOK_NUMBER;
    t->len = len;
    if (!lex_number_value(lx, start, len, &t->number)) {
        t->kind = TOK_ERROR;
        return;
    }
    if (isinf(t->number)) {
        lex_error(lx, lex_loc(lx, t->line, t->col),
                   "number '%.*s%s' is out of range", len > 40 ? 40 : (int)len, start,
                   len > 40 ? "..." : "");
        t->kind = TOK_ERROR;
    }
}

// "..." on one line, valid UTF-8, no NUL
static void lex_string(parse_lexer *lx, parse_token *t)
{
    const char *q = lx->p + 1;
    int col = lx->col + 1;
    while (q < lx->end && *q != '"' && *q != '\n') {
        size_t n = diag_utf8_length((const unsigned char *)q, (size_t)(lx->end - q));
        if (n == 0 || *q == '\0' || (n == 1 && (unsigned char)*q < 0x20 && *q != '\t')) {
            lx->p = q;
            lx->col = col;
            lex_bad_char(lx);
            t->kind = TOK_ERROR;
            // skip the rest of the line
            const char *nl = memchr(lx->p, '\n', (size_t)(lx->end - lx->p));
            lx->p = nl ? nl : lx->end;
            return;
        }
        q += n;
        col++;
    }
    if (q >= lx->end || *q != '"') {
        lex_error(lx, lex_loc(lx, t->line, t->col), "unterminated string");
        lx->p = q;
        lx->col = col;
        t->kind = TOK_ERROR;
        return;
    }
    t->kind = TOK_STRING;
    t->text = lx->p + 1;
    t->len = (size_t)(q - lx->p - 1);
    lx->p = q + 1;
    lx->col = col + 1;
}

// takes the character `second` if it comes next (the second character of a two-character
// operator)
static bool lex_take(parse_lexer *lx, parse_token *t, char second)
{
    if (lx->p >= lx->end || *lx->p != second)
        return false;
    lx->p++;
    lx->col++;
    t->len = 2;
    return true;
}

// the operator or punctuation starting with c (already taken); TOK_ERROR if c is none
static parse_tok lex_operator_kind(parse_lexer *lx, parse_token *t, char c)
{
    switch (c) {
    case '+': return TOK_PLUS;
    case '*': return TOK_STAR;
    case '/': return TOK_SLASH;
    case '^': return TOK_CARET;
    case '(': return TOK_LPAREN;
    case ')': return TOK_RPAREN;
    case ',': return TOK_COMMA;
    case '[': return TOK_LBRACKET;
    case ':': return TOK_COLON;
    case ']':
        lex_primes_and_advance(lx, t, lx->p);
        return TOK_RBRACKET;
    case '.': return lex_take(lx, t, '.') ? TOK_DOTDOT : TOK_ERROR;
    case '=': return lex_take(lx, t, '=') ? TOK_EQEQ : TOK_EQUALS;
    case '<': return lex_take(lx, t, '=') ? TOK_LE : TOK_LT;
    case '>': return lex_take(lx, t, '=') ? TOK_GE : TOK_GT;
    case '!': return lex_take(lx, t, '=') ? TOK_NE : TOK_ERROR;   // a lone '!'
    case '-': return lex_take(lx, t, '>') ? TOK_ARROW : TOK_MINUS;
    default: return TOK_ERROR;
    }
}

// a token of one or two characters
static void lex_operator(parse_lexer *lx, parse_token *t)
{
    char c = *lx->p;
    lx->p++;
    lx->col++;
    t->len = 1;
    t->kind = lex_operator_kind(lx, t, c);
    if (t->kind == TOK_ERROR) {   // not a character of the language
        lx->p--;
        lx->col--;
        lex_bad_char(lx);
    }
}

// the end of the input, or a line break
static void lex_end_of_line(parse_lexer *lx, parse_token *t)
{
    if (lx->p >= lx->end) {
        t->kind = TOK_EOF;
        if (lx->col == 1 && lx->line > 1 && lx->p > lx->src->text && lx->p[-1] == '\n') {
            // report the end of the file at the end of its last line
            t->line = lx->line - 1;
            t->col = lx->last_line_len + 1;
        }
        return;
    }
    t->kind = TOK_NEWLINE;
    t->len = 1;
    lx->last_line_len = lx->col - 1;
    lx->p++;
    lx->line++;
    lx->col = 1;
    lx->line_has_token = false;
}

// lexes one token into *t (never TOK_NEWLINE handling of continuation: see lex_fill)
static void lex_scan(parse_lexer *lx, parse_token *t)
{
    memset(t, 0, sizeof *t);
    if (!lex_skip_blanks(lx, t))
        return;
    t->line = lx->line;
    t->col = lx->col;
    t->text = lx->p;
    t->line_start = !lx->line_has_token;
    if (lx->p >= lx->end || *lx->p == '\n') {
        lex_end_of_line(lx, t);
        return;
    }
    lx->line_has_token = true;
    char c = *lx->p;
    if (c == '.' && lx->p > lx->src->text && lx->p[-1] == ']' && lx->p + 1 < lx->end &&
        is_name_start((unsigned char)lx->p[1]))
        lex_member(lx, t);
    else if (is_name_start((unsigned char)c))
        lex_name(lx, t);
    else if (is_digit((unsigned char)c) ||
             (c == '.' && lx->p + 1 < lx->end && is_digit((unsigned char)lx->p[1])))
        lex_number(lx, t);
    else if (c == '"')
        lex_string(lx, t);
    else
        lex_operator(lx, t);
}

// appends the next significant token to the ring buffer
static void lex_fill(parse_lexer *lx)
{
    parse_token t;
    for (;;) {
        lex_scan(lx, &t);
        if (t.kind == TOK_NEWLINE) {
            // line continuation: inside parentheses, after an operator, or a blank line
            if (lx->depth > 0 || continues_line(lx->last) || lx->last == TOK_NEWLINE)
                continue;
        }
        break;
    }
    if (t.kind == TOK_LPAREN || t.kind == TOK_LBRACKET)
        lx->depth++;
    else if ((t.kind == TOK_RPAREN || t.kind == TOK_RBRACKET) && lx->depth > 0)
        lx->depth--;
    lx->last = t.kind;
    lx->ahead[(lx->head + lx->count) % PARSE_LOOKAHEAD] = t;
    lx->count++;
}

const parse_token *lex_peek(parse_lexer *lx, int k)
{
    while (lx->count <= k)
        lex_fill(lx);   // at the end of the text, TOK_EOF repeats
    return &lx->ahead[(lx->head + k) % PARSE_LOOKAHEAD];
}

parse_token lex_next(parse_lexer *lx)
{
    parse_token t = *lex_peek(lx, 0);
    if (t.kind != TOK_EOF) {
        lx->head = (lx->head + 1) % PARSE_LOOKAHEAD;
        lx->count--;
    }
    return t;
}

static const char *const statement_keywords[] = {
    "model", "parameter", "coordinate", "let", "lagrangian", "constraint", "force", "initial",
    "simulate", "output", "component", "twoform", "entropy", "friction", "heat", "heat_input",
};

bool lex_starts_statement(const parse_token *t)
{
    if (t->kind != TOK_NAME || !t->line_start || t->primes || t->qualified)
        return false;
    for (size_t i = 0; i < sizeof statement_keywords / sizeof *statement_keywords; i++)
        if (strlen(statement_keywords[i]) == t->len &&
            memcmp(statement_keywords[i], t->text, t->len) == 0)
            return true;
    return false;
}

void lex_recover(parse_lexer *lx)
{
    lx->depth = 0;
    for (bool first = true;; first = false) {
        const parse_token *t = lex_peek(lx, 0);
        if (t->kind == TOK_EOF || (!first && lex_starts_statement(t)))
            return;
        if (t->kind == TOK_NEWLINE) {
            lex_next(lx);
            return;
        }
        lx->depth = 0;
        lex_next(lx);
    }
}

void lex_describe(const parse_token *t, char *buf, size_t size)
{
    switch (t->kind) {
    case TOK_EOF: snprintf(buf, size, "end of file"); break;
    case TOK_NEWLINE: snprintf(buf, size, "end of line"); break;
    case TOK_NAME:
        snprintf(buf, size, "'%.*s%s'", t->len > 40 ? 40 : (int)t->len, t->text,
                 t->len > 40 ? "..." : (t->primes ? "'" : ""));
        break;
    case TOK_NUMBER:
        snprintf(buf, size, "number '%.*s%s'", t->len > 40 ? 40 : (int)t->len, t->text,
                 t->len > 40 ? "..." : "");
        break;
    case TOK_STRING: snprintf(buf, size, "a string"); break;
    case TOK_ARROW: snprintf(buf, size, "'->'"); break;
    case TOK_DOTDOT: snprintf(buf, size, "'..'"); break;
    case TOK_MEMBER:
        snprintf(buf, size, "'%.*s%s'", t->len > 40 ? 40 : (int)t->len, t->text,
                 t->len > 40 ? "..." : "");
        break;
    case TOK_ERROR: snprintf(buf, size, "an invalid token"); break;
    default: snprintf(buf, size, "'%c'", t->text[0]); break;
    }
}
