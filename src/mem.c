// The library's counting allocator, its bump arena and its one-block plan (src/mem.h).
#include "mem.h"

#include <stdalign.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

mem_counter mem_counter_make(long fail_after)
{
    return (mem_counter){ fail_after < 0 ? -1 : fail_after, 0, false };
}

mem_counter mem_counter_inherit(const mem_counter *parent)
{
    if (!parent || parent->fail_after < 0)
        return mem_counter_make(-1);
    return mem_counter_make(parent->calls < parent->fail_after ? parent->fail_after - parent->calls
                                                               : 0);
}

static bool mem_may_allocate(mem_counter *mem)
{
    if (!mem)
        return true;
    if (mem->fail_after >= 0 && mem->calls >= mem->fail_after) {
        mem->failed = true;
        return false;
    }
    return true;
}

// Books the outcome of one allocation.
static void *mem_counted(mem_counter *mem, void *p)
{
    if (mem && !p)
        mem->failed = true;
    else if (mem)
        mem->calls++;
    return p;
}

void *mem_alloc(mem_counter *mem, size_t size)
{
    if (size == 0 || !mem_may_allocate(mem))
        return NULL;
    return mem_counted(mem, malloc(size));
}

void *mem_realloc(mem_counter *mem, void *ptr, size_t size)
{
    if (size == 0 || !mem_may_allocate(mem))
        return NULL;
    return mem_counted(mem, realloc(ptr, size));
}

void mem_free(mem_counter *mem, void *ptr)
{
    (void)mem;
    free(ptr);
}

void *mem_calloc(mem_counter *mem, size_t count, size_t size)
{
    if (size != 0 && count > SIZE_MAX / size) {
        if (mem)
            mem->failed = true;
        return NULL;
    }
    if (!mem_may_allocate(mem))
        return NULL;
    return mem_counted(mem, calloc(count * size > 0 ? count : 1, count * size > 0 ? size : 1));
}

bool mem_reserve(mem_counter *mem, void *items_field, int *cap, int need, size_t size)
{
    if (need <= *cap)
        return true;
    if (need < 0 || need > INT32_MAX / 2) {
        if (mem)
            mem->failed = true;
        return false;
    }
    int grown = *cap < 8 ? 8 : *cap;
    while (grown < need)
        grown *= 2;
    if ((size_t)grown > SIZE_MAX / size) {
        if (mem)
            mem->failed = true;
        return false;
    }
    void *items;
    memcpy(&items, items_field, sizeof items);
    void *p = mem_realloc(mem, items, (size_t)grown * size);
    if (!p)
        return false;
    memcpy(items_field, &p, sizeof p);
    *cap = grown;
    return true;
}

// chunks: a header followed by the storage
struct mem_arena_chunk {
    mem_arena_chunk *next;
    alignas(max_align_t) unsigned char data[];
};

enum { ARENA_CHUNK_MIN = 64 * 1024, ARENA_CHUNK_MAX = 4 * 1024 * 1024 };

void mem_arena_init(mem_arena *arena, mem_counter *mem)
{
    arena->mem = mem;
    arena->head = NULL;
    arena->used = arena->size = 0;
}

void mem_arena_free(mem_arena *arena)
{
    mem_arena_chunk *c = arena->head;
    while (c) {
        mem_arena_chunk *next = c->next;
        mem_free(arena->mem, c);
        c = next;
    }
    arena->head = NULL;
    arena->used = arena->size = 0;
}

static void *arena_alloc_aligned(mem_arena *arena, size_t size, size_t align)
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
        mem_arena_chunk *c = mem_alloc(arena->mem, sizeof *c + chunk);
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

void *mem_arena_alloc(mem_arena *arena, size_t size)
{
    return arena_alloc_aligned(arena, size, alignof(max_align_t));
}

char *mem_arena_strndup(mem_arena *arena, const char *text, size_t len)
{
    char *s = len < SIZE_MAX ? arena_alloc_aligned(arena, len + 1, 1) : NULL;
    if (!s)
        return NULL;
    if (len)
        memcpy(s, text, len);
    s[len] = '\0';
    return s;
}

void *mem_arena_calloc(mem_arena *arena, size_t count, size_t size)
{
    if (size != 0 && count > SIZE_MAX / size)
        return NULL;
    void *p = mem_arena_alloc(arena, count * size);
    if (p && count * size > 0)
        memset(p, 0, count * size);
    return p;
}

char *mem_arena_concat(mem_arena *arena, const char *a, const char *b, const char *c)
{
    const char *piece[3] = { a ? a : "", b ? b : "", c ? c : "" };
    size_t len[3], total = 0;
    for (int k = 0; k < 3; k++) {
        len[k] = strlen(piece[k]);
        total += len[k];
    }
    char *s = arena_alloc_aligned(arena, total + 1, 1);
    if (!s)
        return NULL;
    size_t at = 0;
    for (int k = 0; k < 3; k++) {
        memcpy(s + at, piece[k], len[k]);
        at += len[k];
    }
    s[total] = '\0';
    return s;
}

// ---- one block for many arrays ---------------------------------------------------------------

enum { PLAN_ALIGN = alignof(max_align_t) };

void *mem_plan_take(mem_plan *plan, size_t count, size_t size)
{
    size_t *at = plan->block ? &plan->used : &plan->size;
    size_t start = (*at + PLAN_ALIGN - 1) / PLAN_ALIGN * PLAN_ALIGN;
    if (start < *at || (size != 0 && count > (SIZE_MAX - start) / size)) {
        plan->overflow = true;
        return NULL;
    }
    *at = start + count * size;
    if (!plan->block || *at > plan->size)
        return NULL;   // sizing pass (or a placing pass that asks for more than it sized)
    return plan->block + start;
}

bool mem_plan_alloc(mem_plan *plan, mem_counter *mem)
{
    if (plan->overflow)
        return false;
    plan->block = mem_calloc(mem, plan->size, 1);
    plan->used = 0;
    return plan->block != NULL;
}
