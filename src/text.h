// Internal: small string helpers shared by the compiler and the printers.
#ifndef DIRAC_SRC_TEXT_H
#define DIRAC_SRC_TEXT_H

/// a + b + c in a new malloc'ed string (NULL when out of memory); NULL arguments count as "".
char *text_concat(const char *a, const char *b, const char *c);

#endif
