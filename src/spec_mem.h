// Internal: the front end's names for the library allocator (src/mem.h). A spec counts its
// allocations in one mem_counter and keeps every syntax-tree node and string in one arena, so
// that a spec is freed in one sweep.
#ifndef DIRAC_SRC_SPEC_MEM_H
#define DIRAC_SRC_SPEC_MEM_H

#include "mem.h"

typedef mem_counter spec_mem;
typedef mem_arena spec_arena;

static inline void *spec_mem_alloc(spec_mem *mem, size_t size)
{
    return mem_alloc(mem, size);
}

static inline void *spec_mem_realloc(spec_mem *mem, void *ptr, size_t size)
{
    return mem_realloc(mem, ptr, size);
}

static inline void spec_mem_free(spec_mem *mem, void *ptr)
{
    mem_free(mem, ptr);
}

static inline bool spec_mem_reserve(spec_mem *mem, void *items_field, int *cap, int need,
                                    size_t size)
{
    return mem_reserve(mem, items_field, cap, need, size);
}

static inline void spec_arena_init(spec_arena *arena, spec_mem *mem)
{
    mem_arena_init(arena, mem);
}

static inline void spec_arena_free(spec_arena *arena)
{
    mem_arena_free(arena);
}

static inline void *spec_arena_alloc(spec_arena *arena, size_t size)
{
    return mem_arena_alloc(arena, size);
}

static inline char *spec_arena_strndup(spec_arena *arena, const char *text, size_t len)
{
    return mem_arena_strndup(arena, text, len);
}

#endif
