// Counting allocator and bump arena of the model-language front end.
#include "spec_mem.h"

#include <stdalign.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static bool mem_may_allocate(spec_mem *mem)
{
    if (mem->fail_after >= 0 && mem->calls >= mem->fail_after) {
        mem->failed = true;
        return false;
    }
    return true;
}

void *spec_mem_alloc(spec_mem *mem, size_t size)
{
    if (size == 0 || !mem_may_allocate(mem))
        return NULL;
    void *p = malloc(size);
    if (!p)
        mem->failed = true;
    else
        mem->calls++;
    return p;
}

void *spec_mem_realloc(spec_mem *mem, void *ptr, size_t size)
{
    if (size == 0 || !mem_may_allocate(mem))
        return NULL;
    void *p = realloc(ptr, size);
    if (!p)
        mem->failed = true;
    else
        mem->calls++;
    return p;
}

void spec_mem_free(spec_mem *mem, void *ptr)
{
    (void)mem;
    free(ptr);
}

bool spec_mem_reserve(spec_mem *mem, void *items_field, int *cap, int need, size_t size)
{
    if (need <= *cap)
        return true;
    if (need < 0 || need > INT32_MAX / 2) {
        mem->failed = true;
        return false;
    }
    int grown = *cap < 8 ? 8 : *cap;
    while (grown < need)
        grown *= 2;
    if ((size_t)grown > SIZE_MAX / size) {
        mem->failed = true;
        return false;
    }
    void *items;
    memcpy(&items, items_field, sizeof items);
    void *p = spec_mem_realloc(mem, items, (size_t)grown * size);
    if (!p)
        return false;
    memcpy(items_field, &p, sizeof p);
    *cap = grown;
    return true;
}

// chunks: a header followed by the storage
struct spec_arena_chunk {
    spec_arena_chunk *next;
    alignas(max_align_t) unsigned char data[];
};

enum { ARENA_CHUNK_MIN = 64 * 1024, ARENA_CHUNK_MAX = 4 * 1024 * 1024 };

void spec_arena_init(spec_arena *arena, spec_mem *mem)
{
    arena->mem = mem;
    arena->head = NULL;
    arena->used = arena->size = 0;
}

void spec_arena_free(spec_arena *arena)
{
    spec_arena_chunk *c = arena->head;
    while (c) {
        spec_arena_chunk *next = c->next;
        spec_mem_free(arena->mem, c);
        c = next;
    }
    arena->head = NULL;
    arena->used = arena->size = 0;
}

static void *arena_alloc_aligned(spec_arena *arena, size_t size, size_t align)
{
    if (size > SIZE_MAX / 2)
        return NULL;
    if (size == 0)
        size = 1;
    arena->used = (arena->used + align - 1) / align * align;
    if (!arena->head || arena->used > arena->size || arena->size - arena->used < size) {
        // chunks grow with the arena, big requests get a chunk of their own
        size_t chunk = arena->size ? arena->size * 2 : ARENA_CHUNK_MIN;
        if (chunk > ARENA_CHUNK_MAX)
            chunk = ARENA_CHUNK_MAX;
        if (chunk < size)
            chunk = size;
        spec_arena_chunk *c = spec_mem_alloc(arena->mem, sizeof *c + chunk);
        if (!c)
            return NULL;
        if (arena->head && chunk == size && arena->used + ARENA_CHUNK_MIN / 4 <= arena->size) {
            // keep filling the current chunk: link the dedicated one behind it
            c->next = arena->head->next;
            arena->head->next = c;
            return c->data;
        }
        c->next = arena->head;
        arena->head = c;
        arena->size = chunk;
        arena->used = 0;
    }
    void *p = arena->head->data + arena->used;
    arena->used += size;
    return p;
}

void *spec_arena_alloc(spec_arena *arena, size_t size)
{
    return arena_alloc_aligned(arena, size, alignof(max_align_t));
}

char *spec_arena_strndup(spec_arena *arena, const char *text, size_t len)
{
    char *s = len < SIZE_MAX ? arena_alloc_aligned(arena, len + 1, 1) : NULL;
    if (!s)
        return NULL;
    if (len)
        memcpy(s, text, len);
    s[len] = '\0';
    return s;
}
