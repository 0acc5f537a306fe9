// Reading a whole file as text (text_file.h).
#include "text_file.h"

#include <stdio.h>
#include <stdlib.h>

char *text_file_read(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    size_t cap = 1 << 16, len = 0, got;
    char *text = malloc(cap);
    while (text && (got = fread(text + len, 1, cap - len - 1, f)) > 0) {
        len += got;
        if (len + 1 == cap) {
            char *bigger = realloc(text, cap *= 2);
            if (!bigger)
                free(text);
            text = bigger;
        }
    }
    int failed = ferror(f);
    fclose(f);
    if (text && failed) {
        free(text);
        return NULL;
    }
    if (text)
        text[len] = '\0';
    return text;
}
