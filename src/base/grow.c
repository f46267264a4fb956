/*
 * grow.c - growing an array by doubling, with the size arithmetic checked:
 * every list the library builds element by element (values, nodes,
 * warnings, report rows, output buffers, the builder's description) grows
 * through here, malloc'ed or in an arena.
 */
#include <stdlib.h>
#include <string.h>

#include "base.h"

/* The capacity that holds `need` elements of `elem` bytes, doubling from
 * `cap` (from `first` when cap is 0); 0 when the byte size overflows. */
static size_t grown_cap(size_t cap, size_t need, size_t elem, size_t first) {
  size_t c = cap ? cap : (first ? first : 1);
  while (c < need) {
    if (c > SIZE_MAX / 2)
      return 0;
    c *= 2;
  }
  if (elem && c > SIZE_MAX / elem)
    return 0;
  return c;
}

void *nns__grow(void *arr, size_t *cap, size_t need, size_t elem,
                size_t first) {
  if (need == 0)
    need = 1; /* a block even for none, so NULL always means failure */
  if (need <= *cap)
    return arr;
  size_t c = grown_cap(*cap, need, elem, first);
  void *p = c ? realloc(arr, c * elem) : NULL;
  if (!p)
    return NULL;
  *cap = c;
  return p;
}

void *nns__arena_grow(nns__arena *a, void *arr, size_t *cap, size_t n,
                      size_t need, size_t elem, size_t first) {
  if (need == 0)
    need = 1;
  if (need <= *cap)
    return arr;
  size_t c = grown_cap(*cap, need, elem, first);
  void *p = c ? nns__arena_array(a, c, elem) : NULL;
  if (!p)
    return NULL;
  if (n)
    memcpy(p, arr, n * elem);
  *cap = c;
  return p;
}
