/*
 * vec.h - a typed growable array on top of nns__grow (grow.c): the vector
 * a pass or a decoder fills element by element, malloc'ed and freed by
 * its owner. One way to grow, so the size arithmetic is checked in one
 * place:
 *
 *     NNS__VEC(uint32_t) ids = {0};
 *     if (!nns__vec_push(&ids, 7))
 *       return NNS_E_NOMEM;
 *     ...
 *     nns__vec_free(&ids);
 */
#ifndef NNS_VEC_H
#define NNS_VEC_H

#include <stdlib.h>
#include <string.h>

#include "base.h"

/* A vector of T: v[0..n) in use, room for cap. Zero-initialise it. */
#define NNS__VEC(T)                                                            \
  struct {                                                                     \
    T *v;       /* malloc'ed; NULL until the first element */                  \
    size_t n;   /* elements in use */                                          \
    size_t cap; /* elements v has room for */                                  \
  }

/* Grows the array whose pointer is stored at `slot` (any object pointer
 * type, written through memcpy) to hold `need` elements of `elem` bytes;
 * false when out of memory, the array then untouched. */
static inline bool nns__vec_grow_(void *slot, size_t *cap, size_t need,
                                  size_t elem) {
  void *arr;
  memcpy(&arr, slot, sizeof arr);
  void *p = nns__grow(arr, cap, need, elem, 16);
  if (!p)
    return false;
  memcpy(slot, &p, sizeof p);
  return true;
}

/* Room for `need` elements in all: true, or false when out of memory. */
#define nns__vec_reserve(vec, need)                                            \
  ((need) <= (vec)->cap ||                                                     \
   nns__vec_grow_(&(vec)->v, &(vec)->cap, (need), sizeof *(vec)->v))

/* Appends x: true, or false when out of memory (the vector unchanged). */
#define nns__vec_push(vec, x)                                                  \
  (nns__vec_reserve((vec), (vec)->n + 1) ? ((vec)->v[(vec)->n++] = (x), true) \
                                         : false)

/* Frees the elements; the vector is empty and usable again. */
#define nns__vec_free(vec)                                                     \
  (free((vec)->v), (vec)->v = NULL, (vec)->n = (vec)->cap = 0)

/* ==== Vectors in an arena ==== */

/*
 * An untyped vector whose elements live in arena `a` (a description that
 * dies with its arena, like the builder's): growing copies into a larger
 * arena block, the old one staying until the arena goes (doubling bounds
 * the waste). Zero-initialise it.
 */
typedef struct nns__arena_vec {
  void *p;    /* the elements, in the arena */
  size_t n;   /* elements in use */
  size_t cap; /* elements p has room for */
} nns__arena_vec;

/* Room for one more element of `size` bytes (zeroed); its address, or
 * NULL when out of memory (the vector unchanged). */
static inline void *nns__arena_vec_push(nns__arena *a, nns__arena_vec *v,
                                        size_t size) {
  void *p = nns__arena_grow(a, v->p, &v->cap, v->n, v->n + 1, size, 4);
  if (!p)
    return NULL;
  v->p = p;
  return (char *)p + v->n++ * size;
}

/* Element i of an nns__arena_vec of `type`. */
#define NNS__ARENA_VEC_AT(v, type, i) (((type *)(v).p)[i])

#endif
