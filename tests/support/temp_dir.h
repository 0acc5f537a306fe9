// Temporary directories for the tests that need real files (devices, FIFOs, sizes, programs
// run on files); component tests use mem_files.h instead.
#ifndef DIRAC_TEST_TEMP_DIR_H
#define DIRAC_TEST_TEMP_DIR_H

#include <stddef.h>

/// Makes a fresh directory /tmp/dirac-NAME-XXXXXX and writes its path to dir[0..size)
/// (64 bytes are enough for a short NAME). Returns 0, or -1 (dir is then "").
int temp_dir_make(char *dir, size_t size, const char *name);

/// Writes `text` to the file DIR/NAME. Returns 0 or -1.
int temp_dir_write(const char *dir, const char *name, const char *text);

/// Removes DIR and everything in it; "" is a no-op. Returns 0 or -1.
int temp_dir_remove(const char *dir);

#endif
