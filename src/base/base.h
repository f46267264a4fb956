/*
 * base.h - the bottom layer: arena allocation, growable arrays, string
 * interning, a pointer hash map, error reporting and file mapping. Knows
 * nothing but libc.
 */
#ifndef NNS_BASE_H
#define NNS_BASE_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "nnscan.h"

/* ==== Arena ==== */

/*
 * A bump allocator: everything a model holds is allocated here and released
 * by one nns__arena_free(). Allocations are zeroed, and 16-byte aligned
 * except those of nns__arena_bytes and nns__arena_strndup (text needs no
 * alignment: packing the names of a 100k-node graph saves a megabyte).
 */
typedef struct nns__arena_chunk nns__arena_chunk;
typedef struct nns__arena {
  nns__arena_chunk *head; /* chunk being filled; older ones follow */
  unsigned char *data;    /* head's first byte (NULL with no head) */
  size_t used;            /* bytes used in head */
  size_t cap;             /* bytes available in head */
  size_t total;           /* bytes obtained from malloc, for limits */
  bool bulk;              /* memory written in bulk and soon (tensor
                             bytes, the builder's description): after a
                             64 KB first chunk, whole huge pages */
} nns__arena;

void nns__arena_init(nns__arena *a);
/* Releases every allocation; the arena is then empty and usable again. */
void nns__arena_free(nns__arena *a);
/* Moves src's allocations into dst, where they live as long as dst's
 * (dst goes on filling its own chunk); src is then empty. For what a
 * second thread made in an arena of its own. */
void nns__arena_adopt(nns__arena *dst, nns__arena *src);
/* Releases every allocation but keeps a lone first chunk, zeroed again
 * (the bytes used in it), for an arena used over and over for small
 * scratch work: no map and unmap per use. */
void nns__arena_reset(nns__arena *a);
/* Returns NULL when out of memory or when n would overflow. Inline while
 * the bytes fit in the chunk being filled (the library allocates from
 * arenas millions of times a summary); nns__arena_alloc_slow starts a
 * chunk. */
void *nns__arena_alloc_slow(nns__arena *a, size_t n);
static inline void *nns__arena_alloc(nns__arena *a, size_t n) {
  /* A chunk's data and size are multiples of 16, so `at` <= cap. */
  size_t at = (a->used + 15) & ~(size_t)15;
  if (n && n <= a->cap - at) {
    a->used = at + n;
    return a->data + at;
  }
  return nns__arena_alloc_slow(a, n);
}
/* A hint that about `n` bytes are coming: from 512 KB they get a chunk of
 * their own rather than a doubling series, on huge pages as far as `n`
 * fills them (to the nearest whole one; 4 KB pages beyond). False only
 * when out of memory; allocation goes on either way. */
bool nns__arena_reserve(nns__arena *a, size_t n);
/* count * size with an overflow check. */
static inline void *nns__arena_array(nns__arena *a, size_t count,
                                     size_t size) {
  size_t n;
  if (__builtin_mul_overflow(count, size, &n))
    return NULL;
  return nns__arena_alloc(a, n);
}
/* n bytes with no alignment (text, byte strings). NULL as above. Inline
 * while they fit in the chunk being filled: interning copies every name
 * of a load through here. */
void *nns__arena_bytes_slow(nns__arena *a, size_t n);
static inline void *nns__arena_bytes(nns__arena *a, size_t n) {
  if (n && n <= a->cap - a->used) {
    void *p = a->data + a->used;
    a->used += n;
    return p;
  }
  return nns__arena_bytes_slow(a, n);
}
/* A NUL-terminated copy of n bytes of s, not aligned. */
char *nns__arena_strndup(nns__arena *a, const char *s, size_t n);

/* Zeroed room for `count` elements of `size` bytes: a hash table's slots,
 * a per-value array. From 2 MB on it is mapped on huge pages, as the
 * arena's large chunks are: one page fault per 2 MB rather than 512
 * (first touch of fresh memory was most of a 100k-node summary's system
 * time). NULL when out of memory or on overflow. Freed by nns__table_free
 * with the same count and size. */
void *nns__table_alloc(size_t count, size_t size);
void nns__table_free(void *p, size_t count, size_t size);

/* Overflow-checked arithmetic; false on overflow. */
static inline bool nns__mul_i64(int64_t a, int64_t b, int64_t *r) {
  return !__builtin_mul_overflow(a, b, r);
}
static inline bool nns__add_i64(int64_t a, int64_t b, int64_t *r) {
  return !__builtin_add_overflow(a, b, r);
}
/* Saturating sum: INT64_MAX (or INT64_MIN) where a + b would overflow. */
static inline int64_t nns__add_sat_i64(int64_t a, int64_t b) {
  int64_t r;
  if (__builtin_add_overflow(a, b, &r))
    return a > 0 ? INT64_MAX : INT64_MIN;
  return r;
}

/* ==== Growable arrays ==== */

/*
 * Room for `need` elements of `elem` bytes in the malloc'ed array `arr`
 * (NULL for none) of `*cap` elements: `arr` itself when it is big enough,
 * else a larger block whose capacity doubles from `*cap` (from `first`
 * when *cap is 0) until it holds `need` (at least 1, so that NULL always
 * means failure); *cap is updated. NULL when out of memory or when the
 * byte size would overflow: `arr` and *cap are then untouched, and `arr`
 * is still the caller's to free. The one way the
 * library grows a malloc'ed array:
 *
 *     T *v = nns__grow(s->v, &s->cap, s->n + 1, sizeof *v, 64);
 *     if (!v)
 *       return NNS_E_NOMEM;
 *     s->v = v;
 */
void *nns__grow(void *arr, size_t *cap, size_t need, size_t elem,
                size_t first);
/* The same for an array in arena `a` that holds `n` elements: a larger
 * one is a new arena block with those `n` copied (the old block stays in
 * the arena until it is freed; doubling bounds the waste). Zeroed beyond
 * the copy, as arena memory is. */
void *nns__arena_grow(nns__arena *a, void *arr, size_t *cap, size_t n,
                      size_t need, size_t elem, size_t first);

/* ==== Pointer-keyed hash map ==== */

/* Spreads the bits of a key (a pointer, a pair of indices) over a hash
 * table's slots: MurmurHash3's finalizer, first half. */
static inline uint64_t nns__hash_mix(uint64_t x) {
  x ^= x >> 33;
  x *= 0xff51afd7ed558ccdULL;
  x ^= x >> 33;
  return x;
}

/* A hash of n bytes, 8 at a time (a multiply-xorshift mix): names in
 * exported graphs run to 60 bytes, and interning and the JSON reader's
 * key sets are on the load's hot path, where a byte-at-a-time hash cost
 * several times more. Reads no byte outside s[0..n). */
static inline uint32_t nns__str_hash(const char *s, size_t n) {
  uint64_t h = 0x9e3779b97f4a7c15ULL ^ (uint64_t)n;
  while (n >= 8) {
    uint64_t w;
    memcpy(&w, s, 8);
    h = (h ^ w) * 0xff51afd7ed558ccdULL;
    h ^= h >> 32;
    s += 8;
    n -= 8;
  }
  /* The last 0-7 bytes as memcpy into a zeroed word would read them. A
   * memcpy of a run-time length compiles to byte stores, and reading the
   * word back then stalls on them (store forwarding fails): on a
   * little-endian host the word is put together in registers. */
  uint64_t w = 0;
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
  const unsigned char *t = (const unsigned char *)s;
  if (n >= 4) {
    uint32_t lo, hi;
    memcpy(&lo, t, 4);
    memcpy(&hi, t + n - 4, 4);
    w = (uint64_t)lo | (uint64_t)hi << (8 * (n - 4));
  } else if (n > 0) {
    w = (uint64_t)t[0] | (uint64_t)t[n / 2] << (8 * (n / 2)) |
        (uint64_t)t[n - 1] << (8 * (n - 1));
  }
#else
  memcpy(&w, s, n);
#endif
  h = (h ^ w) * 0xc4ceb9fe1a85ec53ULL;
  /* A multiply carries bits upward only: without folding the high half
   * back and mixing once more, the table's low bits would not see the
   * last bytes ("add_10" and "add_11" differed in 4 of them, and probe
   * runs grew to a hundred slots). */
  h ^= h >> 32;
  h *= 0xff51afd7ed558ccdULL;
  h ^= h >> 32;
  return (uint32_t)h;
}

/*
 * Open addressing; keys are non-NULL pointers (interned strings). With
 * `arena` set, storage comes from the arena and needs no nns__map_free
 * (graph scopes use this: they die with the model); else it is malloc'ed.
 */
typedef struct nns__map {
  const void **keys;
  void **vals;
  size_t cap;   /* power of two, or 0 */
  size_t count;
  nns__arena *arena;
} nns__map;

void *nns__map_get(const nns__map *m, const void *key);
/* Inserts or replaces. false when out of memory. */
bool nns__map_put(nns__map *m, const void *key, void *val);
/* Inserts key -> val unless key is there already: then *old is its value
 * and the map is left as it is; else *old is NULL. One probe where a get
 * then a put take two. false when out of memory. */
bool nns__map_add(nns__map *m, const void *key, void *val, void **old);
/* Room for n entries without growing: an arena map that grows by doubling
 * leaves each outgrown table in its arena, as much again as the last. A
 * hint: false only when out of memory (the map is then unchanged). */
bool nns__map_reserve(nns__map *m, size_t n);
void nns__map_free(nns__map *m);
/* A hint that `key` is looked up or added soon: its first slot is fetched
 * into the cache meanwhile. A loop over many keys of a large map waits
 * for memory at every one of them otherwise (the slots are scattered by
 * the hash); asking a few keys ahead overlaps those waits. */
static inline void nns__map_prefetch(const nns__map *m, const void *key) {
  if (!m->cap)
    return;
  size_t i = (size_t)nns__hash_mix((uint64_t)(uintptr_t)key) & (m->cap - 1);
  __builtin_prefetch(&m->keys[i]);
  __builtin_prefetch(&m->vals[i]);
}

/*
 * A map from a pair (a, b) to a 32-bit value, for keys a pointer does not
 * hold: a child by (interned name, parent index). `a` must not be 0 (it
 * marks an empty slot). Malloc'ed; free
 * with nns__map2_free. A zeroed struct is an empty map.
 */
typedef struct nns__map2_slot {
  uint64_t a;   /* 0: empty */
  uint32_t b;
  uint32_t val;
} nns__map2_slot;
typedef struct nns__map2 {
  nns__map2_slot *slots;
  size_t cap;   /* power of two, or 0 */
  size_t count;
} nns__map2;

/* True with *val set when (a, b) is in the map. */
bool nns__map2_get(const nns__map2 *m, uint64_t a, uint32_t b, uint32_t *val);
/* Adds (a, b) -> val when the pair is new: 1; when it is there already:
 * 0, its value left as it is; -1 when out of memory. */
int nns__map2_add(nns__map2 *m, uint64_t a, uint32_t b, uint32_t val);
/* Room for `n` pairs in all without growing: one table of the final size
 * instead of a doubling series, each rehashed into fresh pages. A hint;
 * false only when out of memory. */
bool nns__map2_reserve(nns__map2 *m, size_t n);
void nns__map2_free(nns__map2 *m);

/*
 * A set of 64-bit keys (a pair of 32-bit indices, packed), at most half
 * full: 8 bytes a slot, half an nns__map2's, where a hot loop only asks
 * "seen before?". Malloc'ed; a zeroed struct is an empty set.
 */
typedef struct nns__set64 {
  uint64_t *keys; /* key + 1; 0: empty */
  size_t cap;     /* power of two, or 0 */
  size_t count;
} nns__set64;

/* Adds key (not UINT64_MAX): 1 when new, 0 when there already, -1 when
 * out of memory. */
int nns__set64_add(nns__set64 *s, uint64_t key);
/* Room for `n` keys in all without growing (a hint; false only when out
 * of memory). */
bool nns__set64_reserve(nns__set64 *s, size_t n);
void nns__set64_free(nns__set64 *s);

/* ==== String interning ==== */

/*
 * Equal strings intern to the same pointer, so names compare with ==.
 * Interned strings are NUL-terminated copies that live in the arena, each
 * just after its header (nns__intern_head: hash and length, unaligned).
 */
typedef struct nns__intern_head {
  uint32_t hash;
  uint32_t len;  /* bytes interned, or UINT32_MAX for 4 GB and more */
} nns__intern_head;
typedef struct nns__interner {
  nns__arena *arena;
  /* Open addressing over pointers to the copies. tags[i] is 0 for an
   * empty slot, else 0x80 and 7 bits of the hash: a byte per slot stays
   * in the cache where the slots do not, so a new name (most names of a
   * load) is found absent without reading a slot, and only a string whose
   * tag matches has its header (hash and length, beside its bytes) read.
   * Keeping hash and length in the arena rather than in the slot halves
   * the table (8 bytes a slot, not 16: 4 MB of a 100k-node graph). */
  const char **slots;
  uint8_t *tags;
  size_t cap;
  size_t count;
  /* Shared: two threads intern into one table at once, each through a
   * view of its own (nns__intern_share): the same slots and tags, read
   * and claimed atomically, copies in the view's own arena, and a quota of
   * new strings in place of growing the table (which would move it under
   * the other thread). Past the quota, the owner's view calls `unshare`,
   * which must end the sharing (wait for the other thread, then
   * nns__intern_unshare), and goes on alone; the other view returns NULL
   * with `full` set. */
  bool shared;
  bool full;
  size_t quota; /* while shared: count may not pass it */
  void (*unshare)(void *ctx);
  void *unshare_ctx;
} nns__interner;

void nns__intern_init(nns__interner *in, nns__arena *arena);
void nns__intern_free(nns__interner *in);
/* Makes *in shared and *view a second view of its table whose copies go
 * to `arena`; each may add half of what the table takes before it would
 * grow, and *in then calls unshare(ctx). nns__intern_unshare, once the
 * other thread is done, makes *in itself again with the view's strings
 * counted (the view's copies stay in its arena, which must live as long
 * as in's). */
void nns__intern_share(nns__interner *in, nns__interner *view,
                       nns__arena *arena, void (*unshare)(void *),
                       void *ctx);
void nns__intern_unshare(nns__interner *in, const nns__interner *view);
/* NULL only when out of memory. */
const char *nns__intern(nns__interner *in, const char *s, size_t n);
const char *nns__intern_cstr(nns__interner *in, const char *s);
/* The interned copy of s, or NULL when s was never interned (reads only). */
const char *nns__intern_find(const nns__interner *in, const char *s);
/* Room for `more` strings without growing: one table of the final size
 * instead of a doubling series of tables, each rehashed and each touching
 * fresh pages. A hint; false only when out of memory. Shared, it does
 * nothing. */
bool nns__intern_reserve(nns__interner *in, size_t more);

/* ==== Reading small text formats (text_read.c) ==== */

/*
 * Two formats that model metadata carries, read into interned strings
 * (through `in`).
 *
 * nns__read_json_strings: `text` is a JSON object whose every value is a
 * string ({"layer1.0": "BasicBlock", ...}); each member goes into `map`
 * (interned key -> interned value; a repeated key keeps its last value).
 * 1: read; 0: text is not such an object (map holds what came before the
 * error); -1: out of memory.
 *
 * nns__read_py_strings: `text` is a Python list literal of strings
 * (['', 'layer1.0'], either quote, backslash escapes the next character);
 * its first `max` entries go into out. The number of entries stored; -1
 * when text is not such a list; -2 when out of memory.
 */
int nns__read_json_strings(const char *text, nns__interner *in,
                           nns__map *map);
int nns__read_py_strings(const char *text, nns__interner *in,
                         const char **out, int max);

/* ==== Errors ==== */

/* Fills err (if non-NULL) and returns code. node may be NULL. */
nns_status nns__err(nns_error *err, nns_status code, int64_t offset,
                    const char *node, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));
nns_status nns__verr(nns_error *err, nns_status code, int64_t offset,
                     const char *node, const char *fmt, va_list ap)
    __attribute__((format(printf, 5, 0)));
/* Removes " at byte -N" (a thing with no place in a file: built in
 * memory) from msg, in place; both above apply it to every message. */
void nns__drop_unknown_offsets(char *msg);

/* ==== Sized public structs (nnscan.h, "ABI policy") ==== */

/* Bytes of `type` up to and including `last`: the size of a struct's first
 * published version, the smallest `size` the library accepts. Fields added
 * later go after `last`; these stay as they are. */
#define NNS__SIZE_TO(type, last)                                               \
  (offsetof(type, last) + sizeof(((type *)0)->last))
#define NNS__V1_LOAD_OPTIONS NNS__SIZE_TO(nns_load_options, flags)
#define NNS__V1_INPUT_SHAPE NNS__SIZE_TO(nns_input_shape, rank)
#define NNS__V1_INFER_OPTIONS NNS__SIZE_TO(nns_infer_options, input_count)
#define NNS__V1_INPUT_VALUE NNS__SIZE_TO(nns_input_value, count)
#define NNS__V1_MODEL_INFO NNS__SIZE_TO(nns_model_info, function_count)
#define NNS__V1_DIM NNS__SIZE_TO(nns_dim, symbol)
#define NNS__V1_VALUE_INFO NNS__SIZE_TO(nns_value_info, producer)
#define NNS__V1_NODE_INFO NNS__SIZE_TO(nns_node_info, layer)
#define NNS__V1_ANALYZE_OPTIONS NNS__SIZE_TO(nns_analyze_options, optimizer)
#define NNS__V1_COUNTS NNS__SIZE_TO(nns_counts, frozen)
#define NNS__V1_HARDWARE NNS__SIZE_TO(nns_hardware, bandwidth)
#define NNS__V1_RF NNS__SIZE_TO(nns_rf, padding)
#define NNS__V1_TOTALS NNS__SIZE_TO(nns_totals, train_total_bytes)
#define NNS__V1_PARAM_INFO NNS__SIZE_TO(nns_param_info, given)
#define NNS__V1_LAYER_INFO NNS__SIZE_TO(nns_layer_info, call_count)
#define NNS__V1_REPORT_OPTIONS NNS__SIZE_TO(nns_report_options, model_path)
#define NNS__V1_OP_INFO NNS__SIZE_TO(nns_op_info, no_grad)
#define NNS__V1_OP_TYPE_INFO NNS__SIZE_TO(nns_op_type_info, family)
#define NNS__V1_LAYERS_ROW NNS__SIZE_TO(nns_layers_row, params)

/*
 * Hands the library's complete struct `src` (of `full` bytes) to a caller's
 * struct `dst`, which starts with its size: copies only what fits in the
 * caller's size and keeps that size. NNS_E_ARG when dst is NULL or its size
 * is below `v1`.
 */
nns_status nns__put_sized(void *dst, const void *src, size_t full, size_t v1);
/*
 * Reads a caller's struct `src` (starting with its size) into the library's
 * complete struct `dst` of `full` bytes: fields beyond the caller's size are
 * zero. NNS_E_ARG when src's size is below `v1`.
 */
nns_status nns__get_sized(void *dst, const void *src, size_t full, size_t v1);
#define NNS__PUT(dst, src, v1) nns__put_sized((dst), (src), sizeof *(src), (v1))
#define NNS__GET(dst, src, v1) nns__get_sized((dst), (src), sizeof *(dst), (v1))

/* ==== Names of nnscan.h's enums ==== */

/* Defines `const char *fn(int n)`: the word of entry n of the X-macro list
 * MAP (entries X(name, number, word)), NULL for a number not in it - the
 * body of the public nns_*_name functions, written once. */
#define NNS__NAME_CASE_(name, num, str)                                        \
  case num:                                                                    \
    return str;
#define NNS__NAME_FN(fn, MAP)                                                  \
  const char *fn(int n) {                                                      \
    switch (n) { MAP(NNS__NAME_CASE_) }                                        \
    return NULL;                                                               \
  }

/* ==== File mapping ==== */

typedef struct nns__fmap {
  const uint8_t *data;
  size_t size;
  bool mapped; /* true: munmap; false: data is a malloc'ed copy or empty */
} nns__fmap;

nns_status nns__fmap_open(nns__fmap *fm, const char *path, nns_error *err);
/* A malloc'ed copy of data (freed by nns__fmap_close): NNS_E_NOMEM. */
nns_status nns__fmap_copy(nns__fmap *fm, const void *data, size_t size);
void nns__fmap_close(nns__fmap *fm);

/*
 * Opens `rel` for reading inside folder `dir` without following a symbolic
 * link out of that folder: a model's external data named "w.bin" must not
 * read, or reveal the size of, whatever file a link "w.bin" points to.
 * Where the kernel has openat2 (Linux 5.6), RESOLVE_BENEATH follows links
 * that stay inside the folder; elsewhere no link is followed at all
 * (O_NOFOLLOW on every component). Opened non-blocking, so a FIFO never
 * hangs. Returns the descriptor, or -1 with errno set (EXDEV or ELOOP for
 * a link that leaves the folder).
 */
int nns__open_beneath(const char *dir, const char *rel);
/* nns__open_beneath's fallback, relative to an open folder: no link is
 * followed at all. Its own entry point so that tests reach it on kernels
 * that have openat2. */
int nns__open_nofollow(int dirfd, const char *rel);

#endif
