// Temporary directories (temp_dir.h).
#define _XOPEN_SOURCE 700   // mkdtemp, nftw
#include "temp_dir.h"

#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

int temp_dir_make(char *dir, size_t size, const char *name)
{
    int n = snprintf(dir, size, "/tmp/dirac-%s-XXXXXX", name);
    if (n < 0 || (size_t)n >= size || !mkdtemp(dir)) {
        if (size)
            dir[0] = '\0';
        return -1;
    }
    return 0;
}

int temp_dir_write(const char *dir, const char *name, const char *text)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "w");
    if (!f)
        return -1;
    int ok = fputs(text, f) >= 0;
    return fclose(f) == 0 && ok ? 0 : -1;
}

static int remove_entry(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
    (void)st, (void)type, (void)ftw;
    return remove(path);
}

int temp_dir_remove(const char *dir)
{
    if (!dir[0])
        return 0;
    return nftw(dir, remove_entry, 16, FTW_DEPTH | FTW_PHYS) == 0 ? 0 : -1;
}
