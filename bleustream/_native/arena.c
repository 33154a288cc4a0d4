/*
 * arena.c: scratch memory, a call's bump allocator (see kernels.h).
 */
#include "kernels.h"

/* ARENA_CHECKED: under AddressSanitizer, each allocation its own heap block */
#if defined(BLEUSTREAM_ARENA_BUMP)
/* the bump allocator even so: tools/asan.sh runs it under the sanitizer too */
#elif defined(__SANITIZE_ADDRESS__)
#define ARENA_CHECKED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define ARENA_CHECKED 1
#endif
#endif

void
arena_init(Arena *a, void *buf, size_t size)
{
    /* the buffer, aligned */
    uintptr_t p = (uintptr_t)buf, q = (p + ARENA_ALIGN - 1) & ~(uintptr_t)(ARENA_ALIGN - 1);
    a->first = (char *)q;
    a->first_size = size > (size_t)(q - p) ? size - (size_t)(q - p) : 0;
#ifdef ARENA_CHECKED
    a->first_size = 0;
#endif
    a->cur = a->first;
    a->left = a->first_size;
    a->blocks = NULL;
    a->quiet = 0;
}

static void
arena_free_until(Arena *a, ArenaBlock *keep)
{
    while (a->blocks != keep) {
        ArenaBlock *b = a->blocks;
        a->blocks = b->next;
        PyMem_RawFree(b);
    }
}

/* n bytes, aligned to ARENA_ALIGN; NULL with MemoryError set. */
void *
arena_alloc(Arena *a, size_t n)
{
    void *p;
    if (n > ((size_t)PY_SSIZE_T_MAX >> 1)) {
        if (!a->quiet)
            PyErr_NoMemory();
        return NULL;
    }
    n = (n + ARENA_ALIGN - 1) & ~(size_t)(ARENA_ALIGN - 1);
    if (n > a->left) {
        size_t size = n;
        ArenaBlock *b;
#ifndef ARENA_CHECKED
        size_t grow = a->blocks ? 2 * a->blocks->size : 4 * a->first_size + 4096;
        if (size < grow)
            size = grow;
#endif
        b = PyMem_RawMalloc(ARENA_HEADER + (size ? size : 1));
        if (b == NULL) {
            if (!a->quiet)
                PyErr_NoMemory();
            return NULL;
        }
        b->next = a->blocks;
        b->size = size;
        a->blocks = b;
        a->cur = (char *)b + ARENA_HEADER;
        a->left = size;
    }
    p = a->cur;
    a->cur += n;
    a->left -= n;
    return p;
}

ArenaMark
arena_mark(const Arena *a)
{
    ArenaMark m;
    m.cur = a->cur;
    m.left = a->left;
    m.blocks = a->blocks;
    return m;
}

/* Gives back everything allocated since the mark. */
void
arena_release(Arena *a, ArenaMark m)
{
    arena_free_until(a, m.blocks);
    a->cur = m.cur;
    a->left = m.left;
}

/* Gives back everything, keeping the newest (largest) heap block. */
void
arena_reset(Arena *a)
{
#ifdef ARENA_CHECKED
    arena_free_until(a, NULL);
#else
    if (a->blocks != NULL) {
        ArenaBlock *newest = a->blocks;
        a->blocks = newest->next;
        arena_free_until(a, NULL);
        newest->next = NULL;
        a->blocks = newest;
        a->cur = (char *)newest + ARENA_HEADER;
        a->left = newest->size;
        return;
    }
#endif
    a->cur = a->first;
    a->left = a->first_size;
}

void
arena_free(Arena *a)
{
    arena_free_until(a, NULL);
}

/* A call's arena over a buffer on its stack. */
