// The allocator entry points of a test program linked with
// -Wl,--wrap=malloc,--wrap=calloc,--wrap=realloc (tests/CMakeLists.txt): the program defines
// the __wrap_ functions, which reach the C library through the __real_ ones.
#ifndef DIRAC_TESTS_MALLOC_WRAP_H
#define DIRAC_TESTS_MALLOC_WRAP_H

#include <stddef.h>

void *__real_malloc(size_t size);
void *__real_calloc(size_t count, size_t size);
void *__real_realloc(void *p, size_t size);
void *__wrap_malloc(size_t size);
void *__wrap_calloc(size_t count, size_t size);
void *__wrap_realloc(void *p, size_t size);

#endif
