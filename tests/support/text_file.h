// Reading a whole file as text, for the tests and the FMI host (no libdirac needed).
#ifndef DIRAC_TEST_TEXT_FILE_H
#define DIRAC_TEST_TEXT_FILE_H

/// The contents of the file at `path`, '\0'-terminated, malloc'ed (the caller frees them);
/// NULL when it cannot be read or memory runs out.
char *text_file_read(const char *path);

#endif
