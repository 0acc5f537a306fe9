// Internal: the library's allocator. An object of the library (a spec, the model compiled from
// it, a simulation of that model) allocates through its `mem_counter`, which counts the blocks
// it hands out and can be set to fail after a number of them (failure injection for the
// out-of-memory tests, tests/test_oom.c). On top of it: growable arrays (mem_reserve), a bump
// arena freed in one sweep (mem_arena), and a plan that lays many arrays out in one block
// (mem_plan). A NULL counter allocates without counting. (The expression engine's own arrays
// and LAPACK's and KLU's workspaces are allocated with malloc directly.)
#ifndef DIRAC_SRC_MEM_H
#define DIRAC_SRC_MEM_H

#include <stdbool.h>
#include <stddef.h>

/// The allocation account of one object (spec, model, simulation). `fail_after` >= 0 makes
/// every allocation after that many successful ones fail (testing hook); -1 never fails.
typedef struct mem_counter {
    long fail_after;   // -1: never fail
    long calls;        // successful allocations so far
    bool failed;       // an allocation has failed
} mem_counter;

/// A counter that never fails (fail_after < 0) or fails after `fail_after` allocations.
mem_counter mem_counter_make(long fail_after);

/// The counter of an object made from `parent` (a model from its spec, a simulation from its
/// model): it continues the parent's failure injection, so that "the k-th allocation fails"
/// counts across the whole pipeline. A NULL parent gives a counter that never fails.
mem_counter mem_counter_inherit(const mem_counter *parent);

/// malloc/realloc/free through `mem`; NULL (and mem->failed) on failure or size 0.
void *mem_alloc(mem_counter *mem, size_t size);
void *mem_realloc(mem_counter *mem, void *ptr, size_t size);
void mem_free(mem_counter *mem, void *ptr);

/// `count` zeroed elements of `size` bytes; NULL on overflow or failure. A count of 0 gives
/// a valid one-byte block, so that empty arrays need no special case.
void *mem_calloc(mem_counter *mem, size_t count, size_t size);

/// Grows the array whose pointer is stored at `items_field` (a `T **`, `*cap` elements of
/// `size` bytes) to hold at least `need` elements, doubling; false (array unchanged) when out
/// of memory or `need` is not representable.
bool mem_reserve(mem_counter *mem, void *items_field, int *cap, int need, size_t size);

typedef struct mem_arena_chunk mem_arena_chunk;

/// Bump allocator: blocks are freed all together by mem_arena_free.
typedef struct mem_arena {
    mem_counter *mem;
    mem_arena_chunk *head;   // current chunk (linked to older ones)
    size_t used, size;       // bytes used / available in head
} mem_arena;

void mem_arena_init(mem_arena *arena, mem_counter *mem);
void mem_arena_free(mem_arena *arena);

/// `size` bytes aligned for any object, or NULL when out of memory.
void *mem_arena_alloc(mem_arena *arena, size_t size);

/// `count` zeroed elements of `size` bytes, or NULL when out of memory or on overflow.
void *mem_arena_calloc(mem_arena *arena, size_t count, size_t size);

/// A zero-terminated copy of text[0..len), or NULL when out of memory.
char *mem_arena_strndup(mem_arena *arena, const char *text, size_t len);

/// The zero-terminated concatenation a b c (a NULL piece is empty), or NULL when out of memory.
char *mem_arena_concat(mem_arena *arena, const char *a, const char *b, const char *c);

/// Many arrays in one block, laid out by running the same function twice: once on a plan
/// without a block (it only adds up the sizes), then on a plan over the block allocated with
/// that size (mem_plan_alloc), where each mem_plan_take returns its array's place:
///
///     static void layout(mem_plan *p, thing *t) {
///         t->a = mem_plan_take(p, t->n, sizeof *t->a);
///         t->b = mem_plan_take(p, t->m, sizeof *t->b);
///     }
///     mem_plan p = { 0 };
///     layout(&p, t);                       // sizing pass
///     if (!mem_plan_alloc(&p, mem)) ...;   // one zeroed block
///     layout(&p, t);                       // placing pass
///     ... mem_free(mem, p.block) frees every array at once.
///
/// Each array is aligned for any object; an empty array gets a valid (unused) address.
typedef struct mem_plan {
    unsigned char *block;   // NULL during the sizing pass
    size_t size;            // bytes the arrays need (sizing pass)
    size_t used;            // bytes handed out (placing pass)
    bool overflow;          // a size was not representable: mem_plan_alloc fails
} mem_plan;

/// The place of `count` elements of `size` bytes (NULL during the sizing pass).
void *mem_plan_take(mem_plan *plan, size_t count, size_t size);

/// Allocates the zeroed block for the sizes the sizing pass added up and readies the plan for
/// the placing pass; false (nothing allocated) when out of memory.
bool mem_plan_alloc(mem_plan *plan, mem_counter *mem);

#endif
