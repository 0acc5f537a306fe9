// Reading a whole file into memory (file_read.h).
#include "file_read.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

int file_read(const char *path, char **text, size_t *size)
{
    *text = NULL;
    *size = 0;
    FILE *f = fopen(path, "rb");
    if (!f)
        return errno ? errno : EIO;
    size_t capacity = 1 << 16, length = 0;
    char *buf = malloc(capacity);
    int error = buf ? 0 : ENOMEM;
    while (!error) {
        if (capacity - length < 2) {   // room for one more byte and the '\0'
            if (capacity > FILE_READ_MAX) {   // e.g. /dev/zero: refused, not read until ENOMEM
                error = EFBIG;
                break;
            }
            char *bigger = realloc(buf, 2 * capacity);
            if (!bigger) {
                error = ENOMEM;
                break;
            }
            buf = bigger;
            capacity *= 2;
        }
        size_t got = fread(buf + length, 1, capacity - 1 - length, f);
        length += got;
        if (got == 0) {
            if (ferror(f))
                error = errno ? errno : EIO;
            break;
        }
    }
    fclose(f);
    if (error) {
        free(buf);
        return error;
    }
    buf[length] = '\0';
    *text = buf;
    *size = length;
    return 0;
}
