// Internal: small string helpers shared by the compiler and the printers.
#ifndef DIRAC_SRC_TEXT_H
#define DIRAC_SRC_TEXT_H

#include <dirac/status.h>

#include <stddef.h>

/// A growing '\0'-terminated text (zero-initialise it; the caller frees `data`, NULL until
/// something is appended). After a failure `status` is DIRAC_ERR_NOMEM, or DIRAC_ERR_SIZE when
/// the text and its '\0' would pass `limit` bytes (0: no limit), and later appends do nothing.
typedef struct text_buffer {
    char *data;
    size_t length, capacity, limit;
    dirac_status status;
} text_buffer;

/// Appends the n bytes at s.
void text_buffer_append(text_buffer *b, const char *s, size_t n);

/// a + b + c in a new malloc'ed string (NULL when out of memory); NULL arguments count as "".
char *text_concat(const char *a, const char *b, const char *c);

#endif
