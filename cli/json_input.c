// JSON reader of the dirac tool: recursive descent over RFC 8259's grammar (json_input.h).
#include "json_input.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct parser {
    const char *text, *end, *at;
    char *message;
    size_t message_size;
    int failed;
} parser;

static int fail(parser *p, const char *fmt, ...)
{
    if (p->failed)
        return -1;
    p->failed = 1;
    int line = 1, column = 1;
    for (const char *c = p->text; c < p->at && c < p->end; c++) {
        if (*c == '\n')
            line++, column = 1;
        else
            column++;
    }
    int len = snprintf(p->message, p->message_size, "line %d, column %d: ", line, column);
    if (len >= 0 && (size_t)len < p->message_size) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(p->message + len, p->message_size - (size_t)len, fmt, ap);
        va_end(ap);
    }
    return -1;
}

static void skip_space(parser *p)
{
    while (p->at < p->end && (*p->at == ' ' || *p->at == '\t' || *p->at == '\n' ||
                              *p->at == '\r'))
        p->at++;
}

static int literal(parser *p, const char *word)
{
    size_t len = strlen(word);
    if ((size_t)(p->end - p->at) < len || memcmp(p->at, word, len) != 0)
        return 0;
    p->at += len;
    return 1;
}

static int hex4(parser *p, unsigned *out)
{
    if (p->end - p->at < 4)
        return fail(p, "a \\u escape needs four hexadecimal digits");
    unsigned value = 0;
    for (int i = 0; i < 4; i++) {
        char c = *p->at++;
        unsigned digit = c >= '0' && c <= '9'   ? (unsigned)(c - '0')
                         : c >= 'a' && c <= 'f' ? (unsigned)(c - 'a' + 10)
                         : c >= 'A' && c <= 'F' ? (unsigned)(c - 'A' + 10)
                                                : 16;
        if (digit == 16)
            return fail(p, "a \\u escape needs four hexadecimal digits");
        value = 16 * value + digit;
    }
    *out = value;
    return 0;
}

static size_t put_utf8(char *out, unsigned code)
{
    if (code < 0x80) {
        out[0] = (char)code;
        return 1;
    }
    if (code < 0x800) {
        out[0] = (char)(0xC0 | (code >> 6));
        out[1] = (char)(0x80 | (code & 0x3F));
        return 2;
    }
    if (code < 0x10000) {
        out[0] = (char)(0xE0 | (code >> 12));
        out[1] = (char)(0x80 | ((code >> 6) & 0x3F));
        out[2] = (char)(0x80 | (code & 0x3F));
        return 3;
    }
    out[0] = (char)(0xF0 | (code >> 18));
    out[1] = (char)(0x80 | ((code >> 12) & 0x3F));
    out[2] = (char)(0x80 | ((code >> 6) & 0x3F));
    out[3] = (char)(0x80 | (code & 0x3F));
    return 4;
}

// A string at p->at (the opening quote); the unescaped text is malloc'd into *out.
static int parse_string(parser *p, char **out, size_t *length)
{
    p->at++;   // "
    const char *start = p->at;
    while (p->at < p->end && *p->at != '"') {
        if (*p->at == '\\')
            p->at++;
        p->at++;
    }
    if (p->at >= p->end)
        return fail(p, "unterminated string");
    // unescaped text is never longer than the escaped one
    char *s = malloc((size_t)(p->at - start) + 1);
    if (!s)
        return fail(p, "out of memory");
    const char *end = p->at;
    p->at = start;
    size_t n = 0;
    while (p->at < end) {
        unsigned char c = (unsigned char)*p->at++;
        if (c < 0x20) {
            free(s);
            p->at--;
            return fail(p, "control character in a string");
        }
        if (c != '\\') {
            s[n++] = (char)c;
            continue;
        }
        char e = *p->at++;
        const char *simple = strchr("\"\\/bfnrt", e);
        if (e && simple) {
            static const char replacement[] = "\"\\/\b\f\n\r\t";
            s[n++] = replacement[simple - "\"\\/bfnrt"];
            continue;
        }
        unsigned code = 0;
        if (e != 'u' || hex4(p, &code)) {
            free(s);
            return fail(p, "bad escape in a string");
        }
        if (code >= 0xD800 && code < 0xDC00) {   // a surrogate pair
            unsigned low = 0;
            if (end - p->at < 6 || p->at[0] != '\\' || p->at[1] != 'u') {
                free(s);
                return fail(p, "unpaired surrogate in a string");
            }
            p->at += 2;
            if (hex4(p, &low) || low < 0xDC00 || low > 0xDFFF) {
                free(s);
                return fail(p, "unpaired surrogate in a string");
            }
            code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00);
        }
        n += put_utf8(s + n, code);
    }
    s[n] = '\0';
    p->at = end + 1;
    *out = s;
    *length = n;
    return 0;
}

static int parse_number(parser *p, json_value *v)
{
    const char *start = p->at;
    if (p->at < p->end && *p->at == '-')
        p->at++;
    if (p->at >= p->end || *p->at < '0' || *p->at > '9')
        return fail(p, "expected a value");
    while (p->at < p->end && strchr("0123456789+-.eE", *p->at))
        p->at++;
    char buf[400];
    size_t len = (size_t)(p->at - start);
    if (len >= sizeof buf) {
        p->at = start;
        return fail(p, "number too long");
    }
    memcpy(buf, start, len);
    buf[len] = '\0';
    char *end = NULL;
    errno = 0;
    double x = strtod(buf, &end);
    if (end != buf + len || (errno == ERANGE && isinf(x))) {
        p->at = start;
        return fail(p, "bad number '%s'", buf);
    }
    v->type = JSON_NUMBER;
    v->number = x;
    return 0;
}

static int parse_value(parser *p, json_value *v, int depth);

// Appends a zeroed element to an array or object under construction.
static json_value *grow(parser *p, json_value *v, size_t *capacity)
{
    if (v->count == *capacity) {
        size_t cap = *capacity ? 2 * *capacity : 4;
        json_value *items = realloc(v->items, cap * sizeof *items);
        if (items)
            v->items = items;
        char **keys = v->type == JSON_OBJECT && items ? realloc(v->keys, cap * sizeof *keys)
                                                      : v->keys;
        if (!items || (v->type == JSON_OBJECT && !keys)) {
            fail(p, "out of memory");
            return NULL;
        }
        v->keys = keys;
        *capacity = cap;
    }
    json_value *item = &v->items[v->count];
    memset(item, 0, sizeof *item);
    if (v->keys)
        v->keys[v->count] = NULL;
    v->count++;
    return item;
}

static int parse_container(parser *p, json_value *v, int depth)
{
    int object = *p->at == '{';
    char close = object ? '}' : ']';
    v->type = object ? JSON_OBJECT : JSON_ARRAY;
    p->at++;
    skip_space(p);
    if (p->at < p->end && *p->at == close) {
        p->at++;
        return 0;
    }
    size_t capacity = 0;
    for (;;) {
        skip_space(p);
        char *key = NULL;
        size_t key_length = 0;
        if (object) {
            if (p->at >= p->end || *p->at != '"')
                return fail(p, "expected a member name in quotes");
            if (parse_string(p, &key, &key_length))
                return -1;
            skip_space(p);
            if (p->at >= p->end || *p->at != ':') {
                free(key);
                return fail(p, "expected ':' after a member name");
            }
            p->at++;
        }
        json_value *item = grow(p, v, &capacity);
        if (!item) {
            free(key);
            return -1;
        }
        if (object)
            v->keys[v->count - 1] = key;
        if (parse_value(p, item, depth + 1))
            return -1;
        skip_space(p);
        if (p->at < p->end && *p->at == ',') {
            p->at++;
            continue;
        }
        if (p->at < p->end && *p->at == close) {
            p->at++;
            return 0;
        }
        return fail(p, "expected ',' or '%c'", close);
    }
}

static int parse_value(parser *p, json_value *v, int depth)
{
    if (depth > JSON_INPUT_MAX_DEPTH)
        return fail(p, "nested deeper than %d levels", JSON_INPUT_MAX_DEPTH);
    skip_space(p);
    if (p->at >= p->end)
        return fail(p, "unexpected end of the text");
    switch (*p->at) {
    case '{':
    case '[':
        return parse_container(p, v, depth);
    case '"':
        v->type = JSON_STRING;
        return parse_string(p, &v->string, &v->length);
    default:
        break;
    }
    if (literal(p, "null")) {
        v->type = JSON_NULL;
        return 0;
    }
    if (literal(p, "true") || literal(p, "false")) {
        v->type = JSON_BOOL;
        v->number = p->at[-1] == 'e' && p->at[-2] == 'u';
        return 0;
    }
    return parse_number(p, v);
}

int json_parse(const char *text, size_t size, json_value *out, char *message,
               size_t message_size)
{
    parser p = { text, text + size, text, message, message_size, 0 };
    memset(out, 0, sizeof *out);
    if (message_size)
        message[0] = '\0';
    int rc = parse_value(&p, out, 0);
    if (!rc) {
        skip_space(&p);
        if (p.at < p.end)
            rc = fail(&p, "text after the value");
    }
    if (rc) {
        json_value_free(out);
        memset(out, 0, sizeof *out);
    }
    return rc;
}

void json_value_free(json_value *v)
{
    if (!v)
        return;
    for (size_t i = 0; i < v->count; i++) {
        json_value_free(&v->items[i]);
        if (v->keys)
            free(v->keys[i]);
    }
    free(v->items);
    free(v->keys);
    free(v->string);
    v->items = NULL, v->keys = NULL, v->string = NULL, v->count = 0;
}

const json_value *json_member(const json_value *object, const char *key)
{
    if (!object || object->type != JSON_OBJECT)
        return NULL;
    for (size_t i = object->count; i-- > 0;)
        if (object->keys[i] && !strcmp(object->keys[i], key))
            return &object->items[i];
    return NULL;
}
