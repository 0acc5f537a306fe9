// Counts every malloc, calloc and realloc of a test program linked with
// -Wl,--wrap=malloc,--wrap=calloc,--wrap=realloc (tests/CMakeLists.txt): the calls made from
// libdirac and from the test. Include in one translation unit of the program only.
#ifndef DIRAC_TESTS_ALLOC_COUNT_H
#define DIRAC_TESTS_ALLOC_COUNT_H

#include <stdlib.h>

#include "malloc_wrap.h"

static long allocations;   // calls so far

void *__wrap_malloc(size_t size)
{
    allocations++;
    return __real_malloc(size);
}

void *__wrap_calloc(size_t count, size_t size)
{
    allocations++;
    return __real_calloc(count, size);
}

void *__wrap_realloc(void *p, size_t size)
{
    allocations++;
    return __real_realloc(p, size);
}

#endif
