/*
 * arena.c - the per-model bump allocator. A model allocates thousands of
 * small objects (names, dims, nodes) and frees them all at once, so a list of
 * large chunks beats malloc per object in both speed and simplicity.
 */
#include <stdlib.h>
#include <string.h>

#include "base.h"

struct nns__arena_chunk {
  nns__arena_chunk *next;
  size_t size; /* usable bytes after the header */
  _Alignas(16) unsigned char data[];
};

enum { ARENA_MIN_CHUNK = 64 * 1024, ARENA_ALIGN = 16 };

void nns__arena_init(nns__arena *a) { memset(a, 0, sizeof *a); }

void nns__arena_free(nns__arena *a) {
  nns__arena_chunk *c = a->head;
  while (c) {
    nns__arena_chunk *next = c->next;
    free(c);
    c = next;
  }
  memset(a, 0, sizeof *a);
}

void *nns__arena_alloc(nns__arena *a, size_t n) {
  if (n == 0)
    n = 1;
  if (n > SIZE_MAX / 2)
    return NULL;
  size_t need = (n + ARENA_ALIGN - 1) & ~(size_t)(ARENA_ALIGN - 1);
  if (!a->head || a->cap - a->used < need) {
    /* Chunks grow with the arena so that a large model makes few mallocs. */
    size_t size = ARENA_MIN_CHUNK;
    if (a->total / 4 > size)
      size = a->total / 4;
    if (size > (size_t)64 << 20)
      size = (size_t)64 << 20;
    if (need > size)
      size = need;
    nns__arena_chunk *c = malloc(sizeof *c + size);
    if (!c)
      return NULL;
    c->size = size;
    c->next = a->head;
    a->head = c;
    a->used = 0;
    a->cap = size;
    a->total += size;
  }
  void *p = a->head->data + a->used;
  a->used += need;
  memset(p, 0, n);
  return p;
}

void *nns__arena_array(nns__arena *a, size_t count, size_t size) {
  if (size && count > SIZE_MAX / size)
    return NULL;
  return nns__arena_alloc(a, count * size);
}

char *nns__arena_strndup(nns__arena *a, const char *s, size_t n) {
  char *p = nns__arena_alloc(a, n + 1);
  if (p && n)
    memcpy(p, s, n);
  return p;
}
