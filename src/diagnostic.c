// Error reports with location, source line and caret; "did you mean" suggestions.
#include "diagnostic.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

// widest source excerpt shown, in characters; longer lines are cut around the column
enum { DIAG_LINE_SHOWN = 120 };

void diag_init(diag_sink *d, mem_counter *mem, int max_errors)
{
    memset(d, 0, sizeof *d);
    d->mem = mem;
    d->max_errors = max_errors > 0 ? max_errors : DIAG_DEFAULT_MAX_ERRORS;
}

void diag_free(diag_sink *d)
{
    mem_free(d->mem, d->text);
    mem_free(d->mem, d->pending);
    d->text = d->pending = NULL;
    d->len = d->cap = 0;
}

const char *diag_text(const diag_sink *d)
{
    return d->text ? d->text : "";
}

bool diag_full(const diag_sink *d)
{
    return d->errors >= d->max_errors;
}

static void sink_append(diag_sink *d, const char *s, size_t n)
{
    if (d->out_of_memory)
        return;
    if (d->len + n + 1 > d->cap) {
        size_t cap = d->cap ? d->cap : 256;
        while (cap < d->len + n + 1) {
            if (cap > SIZE_MAX / 2) {
                d->out_of_memory = true;
                return;
            }
            cap *= 2;
        }
        char *t = mem_realloc(d->mem, d->text, cap);
        if (!t) {
            d->out_of_memory = true;
            return;
        }
        d->text = t;
        d->cap = cap;
    }
    memcpy(d->text + d->len, s, n);
    d->len += n;
    d->text[d->len] = '\0';
}

static void sink_vappendf(diag_sink *d, const char *format, va_list args)
{
    char small[256];
    va_list again;
    va_copy(again, args);
    int n = vsnprintf(small, sizeof small, format, args);
    if (n < 0) {
        va_end(again);
        return;
    }
    if ((size_t)n < sizeof small) {
        sink_append(d, small, (size_t)n);
    } else {
        char *big = mem_alloc(d->mem, (size_t)n + 1);
        if (big) {
            vsnprintf(big, (size_t)n + 1, format, again);
            sink_append(d, big, (size_t)n);
            mem_free(d->mem, big);
        } else {
            d->out_of_memory = true;
        }
    }
    va_end(again);
}

#if defined(__GNUC__)
__attribute__((format(printf, 2, 3)))
#endif
static void sink_appendf(diag_sink *d, const char *format, ...)
{
    va_list args;
    va_start(args, format);
    sink_vappendf(d, format, args);
    va_end(args);
}

size_t diag_utf8_length(const unsigned char *p, size_t avail)
{
    if (avail == 0)
        return 0;
    unsigned c = p[0];
    if (c < 0x80)
        return 1;
    size_t n;
    unsigned lo = 0x80, hi = 0xBF;   // allowed range of the second byte
    if (c >= 0xC2 && c <= 0xDF)
        n = 2;
    else if (c >= 0xE0 && c <= 0xEF) {
        n = 3;
        if (c == 0xE0)
            lo = 0xA0;                // no overlong forms
        if (c == 0xED)
            hi = 0x9F;                // no surrogates
    } else if (c >= 0xF0 && c <= 0xF4) {
        n = 4;
        if (c == 0xF0)
            lo = 0x90;
        if (c == 0xF4)
            hi = 0x8F;                // <= U+10FFFF
    } else
        return 0;
    if (avail < n || p[1] < lo || p[1] > hi)
        return 0;
    for (size_t i = 2; i < n; i++)
        if (p[i] < 0x80 || p[i] > 0xBF)
            return 0;
    return n;
}

// [start, end) of line `line` (1-based) of src, without the newline and a trailing '\r';
// false when the file has fewer lines
static bool source_line(diag_source *src, int line, size_t *start, size_t *end)
{
    size_t offset = 0;
    int at = 1;
    if (src->cache_line > 0 && src->cache_line <= line) {
        at = src->cache_line;
        offset = src->cache_offset;
    }
    while (at < line) {
        const char *nl = memchr(src->text + offset, '\n', src->size - offset);
        if (!nl)
            return false;
        offset = (size_t)(nl - src->text) + 1;
        at++;
    }
    src->cache_line = at;
    src->cache_offset = offset;
    const char *nl = memchr(src->text + offset, '\n', src->size - offset);
    size_t e = nl ? (size_t)(nl - src->text) : src->size;
    if (e > offset && src->text[e - 1] == '\r')
        e--;
    *start = offset;
    *end = e;
    return true;
}

// the source line and a caret under column `col`
static void write_excerpt(diag_sink *d, diag_source *src, int line, int col)
{
    size_t start, end;
    if (!source_line(src, line, &start, &end))
        return;
    const unsigned char *t = (const unsigned char *)src->text;
    // count the characters of the line
    size_t chars = 0;
    for (size_t i = start; i < end; chars++) {
        size_t n = diag_utf8_length(t + i, end - i);
        i += n ? n : 1;
    }
    size_t c = col > 0 ? (size_t)col - 1 : 0;   // 0-based column of the caret
    size_t first = 0, last = chars;             // shown characters [first, last)
    if (chars > DIAG_LINE_SHOWN) {
        first = c > DIAG_LINE_SHOWN / 2 ? c - DIAG_LINE_SHOWN / 2 : 0;
        last = first + DIAG_LINE_SHOWN < chars ? first + DIAG_LINE_SHOWN : chars;
    }
    char buf[4 * DIAG_LINE_SHOWN + 16], caret[DIAG_LINE_SHOWN + 16];
    size_t nb = 0, nc = 0;
    if (first > 0) {
        memcpy(buf, "...", 3);
        memcpy(caret, "   ", 3);
        nb = nc = 3;
    }
    size_t k = 0;
    for (size_t i = start; i < end && k < last; k++) {
        size_t n = diag_utf8_length(t + i, end - i);
        if (k >= first) {
            if (n > 1) {
                memcpy(buf + nb, t + i, n);
                nb += n;
            } else if (n == 1 && (t[i] >= 0x20 || t[i] == '\t') && t[i] != 0x7F) {
                buf[nb++] = (char)t[i];
            } else {
                buf[nb++] = '?';
            }
            if (k < c)
                caret[nc++] = t[i] == '\t' ? '\t' : ' ';
        }
        i += n ? n : 1;
    }
    if (last < chars) {
        memcpy(buf + nb, "...", 3);
        nb += 3;
    }
    // the caret may sit past the end of the line (end of file)
    while (k < c && nc < DIAG_LINE_SHOWN + 8) {
        caret[nc++] = ' ';
        k++;
    }
    caret[nc++] = '^';
    sink_append(d, buf, nb);
    sink_append(d, "\n", 1);
    sink_append(d, caret, nc);
    sink_append(d, "\n", 1);
}

static void flush_pending(diag_sink *d)
{
    if (d->pending) {
        sink_append(d, d->pending, strlen(d->pending));
        mem_free(d->mem, d->pending);
        d->pending = NULL;
    }
}

void diag_finish(diag_sink *d)
{
    flush_pending(d);
    if (d->errors >= d->max_errors && !d->finished)
        sink_appendf(d, "note: too many errors (%d); stopping\n", d->max_errors);
    d->finished = true;
}

// "note: included from FILE:LINE" lines of the current include chain, innermost first
static void remember_includes(diag_sink *d)
{
    if (d->include_depth == 0)
        return;
    size_t need = 1;
    for (int i = 0; i < d->include_depth; i++)
        need += strlen(d->include_file[i]) + 48;
    char *p = mem_alloc(d->mem, need);
    if (!p) {
        d->out_of_memory = true;
        return;
    }
    size_t at = 0;
    for (int i = d->include_depth - 1; i >= 0; i--) {
        int n = snprintf(p + at, need - at, "note: included from %s:%d\n", d->include_file[i],
                         d->include_line[i]);
        if (n > 0)
            at += (size_t)n;
    }
    d->pending = p;
}

static void write_header(diag_sink *d, diag_source *src, int line, int col, const char *kind)
{
    if (src)
        sink_appendf(d, "%s:%d:%d: %s: ", src->name, line, col, kind);
    else
        sink_appendf(d, "%s: ", kind);
}

bool diag_error(diag_sink *d, diag_source *src, int line, int col, const char *format, ...)
{
    va_list args;
    va_start(args, format);
    bool more = diag_verror(d, src, line, col, format, args);
    va_end(args);
    return more;
}

bool diag_verror(diag_sink *d, diag_source *src, int line, int col, const char *format,
                 va_list args)
{
    flush_pending(d);
    d->errors++;
    if (d->errors > d->max_errors)
        return false;
    if (d->errors == 1) {
        d->first_file = src ? src->name : NULL;
        d->first_line = line;
        d->first_col = col;
    }
    write_header(d, src, line, col, "error");
    sink_vappendf(d, format, args);
    sink_append(d, "\n", 1);
    if (src)
        write_excerpt(d, src, line, col);
    remember_includes(d);
    return d->errors < d->max_errors;
}

void diag_note(diag_sink *d, diag_source *src, int line, int col, const char *format, ...)
{
    va_list args;
    va_start(args, format);
    diag_vnote(d, src, line, col, format, args);
    va_end(args);
}

void diag_vnote(diag_sink *d, diag_source *src, int line, int col, const char *format,
                va_list args)
{
    if (d->errors == 0 || d->errors > d->max_errors)
        return;
    write_header(d, src, line, col, "note");
    sink_vappendf(d, format, args);
    sink_append(d, "\n", 1);
    if (src)
        write_excerpt(d, src, line, col);
}

void diag_push_include(diag_sink *d, const char *file, int line)
{
    if (d->include_depth < DIAG_INCLUDE_MAX) {
        d->include_file[d->include_depth] = file;
        d->include_line[d->include_depth] = line;
    }
    d->include_depth++;
}

void diag_pop_include(diag_sink *d)
{
    if (d->include_depth > 0)
        d->include_depth--;
}

// --- suggestions -------------------------------------------------------------------------

enum { DIAG_SUGGEST_MAX_LEN = 64 };

size_t diag_edit_distance(const char *a, size_t la, const char *b, size_t lb, size_t limit)
{
    if ((la > lb ? la - lb : lb - la) > limit)
        return limit + 1;
    if (la > DIAG_SUGGEST_MAX_LEN || lb > DIAG_SUGGEST_MAX_LEN)
        return limit + 1;
    // three rows of the optimal-string-alignment table
    size_t rows[3][DIAG_SUGGEST_MAX_LEN + 1];
    size_t *prev2 = rows[0], *prev = rows[1], *cur = rows[2];
    for (size_t j = 0; j <= lb; j++)
        prev[j] = j;
    for (size_t i = 1; i <= la; i++) {
        cur[0] = i;
        size_t row_min = cur[0];
        for (size_t j = 1; j <= lb; j++) {
            size_t cost = a[i - 1] == b[j - 1] ? 0 : 1;
            size_t best = prev[j - 1] + cost;
            if (prev[j] + 1 < best)
                best = prev[j] + 1;
            if (cur[j - 1] + 1 < best)
                best = cur[j - 1] + 1;
            if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] &&
                prev2[j - 2] + 1 < best)
                best = prev2[j - 2] + 1;
            cur[j] = best;
            if (best < row_min)
                row_min = best;
        }
        if (row_min > limit)
            return limit + 1;
        size_t *t = prev2;
        prev2 = prev;
        prev = cur;
        cur = t;
    }
    return prev[lb] <= limit ? prev[lb] : limit + 1;
}

void diag_suggest_init(diag_suggest *s, const char *word)
{
    s->word = word;
    s->word_len = strlen(word);
    s->best = NULL;
    s->best_distance = SIZE_MAX;
}

void diag_suggest_add(diag_suggest *s, const char *candidate)
{
    size_t len = strlen(candidate);
    size_t limit = (s->word_len + len + 3) / 6;
    if (s->best && s->best_distance - 1 < limit)
        limit = s->best_distance - 1;
    if (s->best && s->best_distance == 0)
        return;
    if (len == s->word_len && memcmp(candidate, s->word, len) == 0)
        return;   // the word itself is no suggestion
    size_t dist = diag_edit_distance(s->word, s->word_len, candidate, len, limit);
    if (dist <= limit) {
        s->best = candidate;
        s->best_distance = dist;
    }
}
