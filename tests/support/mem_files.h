// Files in memory for the component tests: a test writes its model and component files here
// and loads them through dirac_spec_load_with (or spec_load_file_with) with mem_files_read as
// the reader, so `from "FILE"` is exercised without a temporary directory.
#ifndef DIRAC_TEST_MEM_FILES_H
#define DIRAC_TEST_MEM_FILES_H

#include <dirac/dirac.h>

#include <stddef.h>

enum { MEM_FILES_ASKED = 8 };

typedef struct mem_file {
    char *path;
    char *text;
} mem_file;

/// Zero-initialise, with `dir` set to the directory the files are written to (NULL: none).
typedef struct mem_files {
    const char *dir;                    ///< names are written as DIR/NAME
    mem_file *files;
    int count, capacity;
    int reads;                          ///< calls of mem_files_read so far
    char asked[MEM_FILES_ASKED][128];   ///< the paths of the first reads, as asked
} mem_files;

/// Writes (or replaces) the file DIR/NAME. Returns 0, or -1 when out of memory.
int mem_files_write(mem_files *fs, const char *name, const char *text);

/// Removes the file DIR/NAME if there is one.
void mem_files_remove(mem_files *fs, const char *name);

/// Frees every file (the read count and `dir` stay).
void mem_files_clear(mem_files *fs);

/// A dirac_file_reader (and spec_file_reader) over `context`, a mem_files: the text of the file
/// at exactly `path`, or ENOENT.
int mem_files_read(void *context, const char *path, const char **text, size_t *size);

/// dirac_spec_load_with of DIR/NAME through mem_files_read.
dirac_status mem_files_load(mem_files *fs, const char *name, dirac_spec **out);

/// Writes DIR/NAME into path[0..size).
void mem_files_path(const mem_files *fs, const char *name, char *path, size_t size);

#endif
