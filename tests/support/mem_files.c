// Files in memory (mem_files.h).
#include "mem_files.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void mem_files_path(const mem_files *fs, const char *name, char *path, size_t size)
{
    if (fs->dir)
        snprintf(path, size, "%s/%s", fs->dir, name);
    else
        snprintf(path, size, "%s", name);
}

static mem_file *find(mem_files *fs, const char *path)
{
    for (int i = 0; i < fs->count; i++)
        if (!strcmp(fs->files[i].path, path))
            return &fs->files[i];
    return NULL;
}

static char *copy(const char *text)
{
    size_t n = strlen(text) + 1;
    char *c = malloc(n);
    if (c)
        memcpy(c, text, n);
    return c;
}

int mem_files_write(mem_files *fs, const char *name, const char *text)
{
    char path[512];
    mem_files_path(fs, name, path, sizeof path);
    char *contents = copy(text);
    if (!contents)
        return -1;
    mem_file *f = find(fs, path);
    if (f) {
        free(f->text);
        f->text = contents;
        return 0;
    }
    if (fs->count == fs->capacity) {
        int capacity = fs->capacity ? 2 * fs->capacity : 16;
        mem_file *grown = realloc(fs->files, (size_t)capacity * sizeof *grown);
        if (!grown) {
            free(contents);
            return -1;
        }
        fs->files = grown;
        fs->capacity = capacity;
    }
    char *stored_path = copy(path);
    if (!stored_path) {
        free(contents);
        return -1;
    }
    fs->files[fs->count++] = (mem_file){ stored_path, contents };
    return 0;
}

void mem_files_remove(mem_files *fs, const char *name)
{
    char path[512];
    mem_files_path(fs, name, path, sizeof path);
    mem_file *f = find(fs, path);
    if (!f)
        return;
    free(f->path);
    free(f->text);
    *f = fs->files[--fs->count];
}

void mem_files_clear(mem_files *fs)
{
    for (int i = 0; i < fs->count; i++) {
        free(fs->files[i].path);
        free(fs->files[i].text);
    }
    free(fs->files);
    fs->files = NULL;
    fs->count = fs->capacity = 0;
}

int mem_files_read(void *context, const char *path, const char **text, size_t *size)
{
    mem_files *fs = context;
    if (fs->reads < MEM_FILES_ASKED)
        snprintf(fs->asked[fs->reads], sizeof fs->asked[0], "%s", path);
    fs->reads++;
    const mem_file *f = find(fs, path);
    if (!f)
        return ENOENT;
    *text = f->text;
    *size = strlen(f->text);
    return 0;
}

dirac_status mem_files_load(mem_files *fs, const char *name, dirac_spec **out)
{
    char path[512];
    mem_files_path(fs, name, path, sizeof path);
    return dirac_spec_load_with(path, mem_files_read, fs, out);
}
