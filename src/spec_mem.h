// Internal: memory for the model-language front end. A counting allocator (with a failure
// injection hook for tests) and a bump arena on top of it that owns every syntax-tree node and
// string of a spec, so that a spec is freed in one sweep.
#ifndef DIRAC_SRC_SPEC_MEM_H
#define DIRAC_SRC_SPEC_MEM_H

#include <stdbool.h>
#include <stddef.h>

/// The allocator of one spec. `fail_after` >= 0 makes every allocation after that many
/// successful ones fail (testing hook); -1 never fails.
typedef struct spec_mem {
    long fail_after;   // -1: never fail
    long calls;        // successful allocations so far
    bool failed;       // an allocation has failed
} spec_mem;

/// malloc/realloc/free through `mem`; NULL (and mem->failed) on failure or size 0 overflow.
void *spec_mem_alloc(spec_mem *mem, size_t size);
void *spec_mem_realloc(spec_mem *mem, void *ptr, size_t size);
void spec_mem_free(spec_mem *mem, void *ptr);

/// Grows the array whose pointer is stored at `items_field` (a `T **`, `*cap` elements of
/// `size` bytes) to hold at least `need` elements, doubling; false (array unchanged) when out
/// of memory or `need` is not representable.
bool spec_mem_reserve(spec_mem *mem, void *items_field, int *cap, int need, size_t size);

typedef struct spec_arena_chunk spec_arena_chunk;

/// Bump allocator: blocks are freed all together by spec_arena_free.
typedef struct spec_arena {
    spec_mem *mem;
    spec_arena_chunk *head;   // current chunk (linked to older ones)
    size_t used, size;        // bytes used / available in head
} spec_arena;

void spec_arena_init(spec_arena *arena, spec_mem *mem);
void spec_arena_free(spec_arena *arena);

/// `size` bytes aligned for any object, or NULL when out of memory.
void *spec_arena_alloc(spec_arena *arena, size_t size);

/// A zero-terminated copy of text[0..len), or NULL when out of memory.
char *spec_arena_strndup(spec_arena *arena, const char *text, size_t len);

#endif
