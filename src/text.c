// Small string helpers.
#include "text.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

char *text_concat(const char *a, const char *b, const char *c)
{
    a = a ? a : "";
    b = b ? b : "";
    c = c ? c : "";
    size_t len = strlen(a) + strlen(b) + strlen(c) + 1;
    char *out = malloc(len);
    if (out)
        snprintf(out, len, "%s%s%s", a, b, c);
    return out;
}

void text_buffer_append(text_buffer *b, const char *s, size_t n)
{
    if (b->status != DIRAC_OK)
        return;
    size_t need = b->length + n + 1;
    if (b->limit && need > b->limit) {
        b->status = DIRAC_ERR_SIZE;
        return;
    }
    if (need > b->capacity) {
        size_t capacity = b->capacity ? b->capacity : 256;
        while (capacity < need) {
            if (capacity > SIZE_MAX / 2) {
                b->status = DIRAC_ERR_NOMEM;
                return;
            }
            capacity *= 2;
        }
        char *data = realloc(b->data, capacity);
        if (!data) {
            b->status = DIRAC_ERR_NOMEM;
            return;
        }
        b->data = data;
        b->capacity = capacity;
    }
    memcpy(b->data + b->length, s, n);
    b->length += n;
    b->data[b->length] = '\0';
}
