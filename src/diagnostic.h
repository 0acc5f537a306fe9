// Internal: error reports of the model-language front end, formatted like gcc/clang:
//
//     FILE:LINE:COL: error: MESSAGE
//     <the source line>
//     <spaces>^
//
// followed by notes (`FILE:LINE:COL: note: ...` with their own source line, or plain
// `note: included from FILE:LINE`). Lines and columns are 1-based; a column counts the
// characters (UTF-8 code points; a tab is one character, an invalid byte is one) before it on
// its line. The caret line copies the tabs of the source line, so it lines up in a terminal.
// Everything is kept in a diag_sink owned by the parse result: there is no global state.
#ifndef DIRAC_SRC_DIAGNOSTIC_H
#define DIRAC_SRC_DIAGNOSTIC_H

#include "mem.h"

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>

/// A source file as shown in messages; `text[size]` is '\0' (text may contain other NULs).
typedef struct diag_source {
    const char *name;      // file name as written in messages
    const char *text;
    size_t size;
    int cache_line;        // line-start lookup cache (0: empty)
    size_t cache_offset;
} diag_source;

enum { DIAG_INCLUDE_MAX = 64, DIAG_DEFAULT_MAX_ERRORS = 20 };

/// Collected messages (one string) and counters.
typedef struct diag_sink {
    mem_counter *mem;
    char *text;            // all messages so far, '\0'-terminated (NULL while empty)
    size_t len, cap;
    int errors;            // errors reported (including those dropped past the limit)
    int max_errors;        // after this many, further errors are counted but not formatted
    bool out_of_memory;    // a message could not be stored
    bool finished;         // diag_finish was called
    // the "included from" chain of the file being read (outermost first)
    int include_depth;
    const char *include_file[DIAG_INCLUDE_MAX];
    int include_line[DIAG_INCLUDE_MAX];
    char *pending;         // include notes of the last error, written before the next one
    // where the first error is (file NULL when it has no location)
    const char *first_file;
    int first_line, first_col;
} diag_sink;

void diag_init(diag_sink *d, mem_counter *mem, int max_errors);
void diag_free(diag_sink *d);

/// Reports an error at (line, col) of `src`; `src` NULL gives a message without location
/// ("error: MESSAGE"). Returns false when the error limit is reached (callers should stop).
#if defined(__GNUC__)
__attribute__((format(printf, 5, 6)))
#endif
bool diag_error(diag_sink *d, diag_source *src, int line, int col, const char *format, ...);

bool diag_verror(diag_sink *d, diag_source *src, int line, int col, const char *format,
                 va_list args);

/// A note attached to the last error, with its source line when `src` is not NULL.
/// Dropped when the last error was dropped.
#if defined(__GNUC__)
__attribute__((format(printf, 5, 6)))
#endif
void diag_note(diag_sink *d, diag_source *src, int line, int col, const char *format, ...);

void diag_vnote(diag_sink *d, diag_source *src, int line, int col, const char *format,
                va_list args);

/// Writes pending notes; call once all errors are reported.
void diag_finish(diag_sink *d);

/// True when no more errors will be formatted.
bool diag_full(const diag_sink *d);

/// Pushes/pops an "included from FILE:LINE" entry for errors in an included file.
void diag_push_include(diag_sink *d, const char *file, int line);
void diag_pop_include(diag_sink *d);

/// The messages so far ("" when none).
const char *diag_text(const diag_sink *d);

/// Length (1-4) of the valid UTF-8 sequence at p (avail bytes readable), or 0 when the bytes
/// there are not valid UTF-8 (stray continuation byte, overlong form, surrogate, > U+10FFFF,
/// truncated sequence).
size_t diag_utf8_length(const unsigned char *p, size_t avail);

/// Damerau–Levenshtein (optimal string alignment) distance of a and b, or limit + 1 when it
/// exceeds `limit` (cheap rejection).
size_t diag_edit_distance(const char *a, size_t la, const char *b, size_t lb, size_t limit);

/// Picks the closest candidate to a misspelt word ("did you mean ...?"): a candidate is close
/// when its distance is at most (len(word) + len(candidate) + 3) / 6; ties go to the first.
typedef struct diag_suggest {
    const char *word;
    size_t word_len;
    const char *best;      // NULL while none is close enough
    size_t best_distance;
} diag_suggest;

void diag_suggest_init(diag_suggest *s, const char *word);
void diag_suggest_add(diag_suggest *s, const char *candidate);

#endif
