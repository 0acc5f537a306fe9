// Output files of the dirac tool, written whole or not at all.
//
// A file is written under a temporary name in its own directory (".NAME.XXXXXX", so the
// rename cannot cross file systems) and renamed onto NAME when complete: an existing file is
// replaced only by a complete one, a run that fails before it starts leaves it untouched, and
// of two runs writing the same NAME the last to finish wins whole. A symbolic link NAME is
// followed (the file it points to is replaced). Standard output ("-") and files that are not
// regular files (devices such as /dev/null or /dev/full, FIFOs) are written in place.
#ifndef DIRAC_CLI_OUTPUT_FILE_H
#define DIRAC_CLI_OUTPUT_FILE_H

#include <stdio.h>

typedef struct output_file {
    FILE *file;          ///< where to write (NULL when not open)
    char *final_path;    ///< the file's name after the rename (symbolic links resolved)
    char *temp_path;     ///< the temporary name; NULL when written in place
    int is_stdout;
} output_file;

/// Opens `path` ("-": standard output) for writing. Returns 0 or an errno value.
int output_open(output_file *f, const char *path);

/// The name gnuplot-like writers should write to: the temporary name, else the final one.
const char *output_write_path(const output_file *f);

/// Closes the file and, if written under a temporary name, renames it into place. Returns 0 or
/// the errno value of a failed write, close or rename (the temporary file is then removed).
/// `write_error` is an errno value already seen by the caller (0: none): with it the file is
/// not renamed but removed.
int output_commit(output_file *f, int write_error);

/// Closes the file and removes its temporary name (an existing NAME stays as it was).
void output_discard(output_file *f);

/// The canonical absolute name of the file `path` names (symbolic links and "." / ".."
/// resolved, also when the file does not exist yet but its directory does); malloc'd, NULL if
/// the directory does not exist.
char *output_canonical_path(const char *path);

/// 1 if `a` and `b` are the same existing file (same device and inode), else 0.
int output_same_file(const char *a, const char *b);

#endif
