/*
 * arena.c - the per-model bump allocator. A model allocates thousands of
 * small objects (names, dims, nodes) and frees them all at once, so a list of
 * large chunks beats malloc per object in both speed and simplicity.
 *
 * Chunks below a huge page come from malloc, and are zeroed as they fill
 * (ZERO_STEP at a time: `cap` is where the zeroed part ends), so only the
 * pages a model uses are touched. A process that summarises model after
 * model (the Python package) then reuses the pages the last one freed:
 * fresh mappings faulted every page in again, 13-17 us a fault on a VM, a
 * tenth of a small model's summary. Larger chunks come straight from
 * mmap, zeroed by the kernel, and ask for transparent huge pages, so a
 * big model takes a few faults per 2 MB instead of one per 4 KB.
 *
 * A bulk arena (tensor bytes a caller hands over, the builder's own
 * description) takes huge pages as soon as its first chunk is full:
 * copying 1 MB into fresh 4 KB pages costs 256 faults, several times the
 * copy itself, against one fault for a huge page. The first chunk is small (64 KB), so a model with a few bytes of
 * data does not hold 2 MB for them.
 */
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "base.h"

struct nns__arena_chunk {
  nns__arena_chunk *next;
  size_t size; /* usable bytes after the header */
  size_t map_size; /* bytes mapped, header included */
  bool heap;       /* malloc'ed, zeroed as it fills; else mapped */
  _Alignas(16) unsigned char data[];
};

enum {
  ARENA_ALIGN = 16,
  ARENA_FIRST_CHUNK = 256 * 1024,
  ARENA_HUGE = 2 * 1024 * 1024,
  ARENA_BULK_FIRST = 64 * 1024,
  ZERO_STEP = 4096, /* a heap chunk is zeroed a page at a time */
};
#define ARENA_MAX_CHUNK ((size_t)64 << 20)

void nns__arena_init(nns__arena *a) { memset(a, 0, sizeof *a); }

void nns__arena_free(nns__arena *a) {
  nns__arena_chunk *c = a->head;
  while (c) {
    nns__arena_chunk *next = c->next;
    if (c->heap)
      free(c);
    else
      munmap(c, c->map_size);
    c = next;
  }
  bool bulk = a->bulk;
  memset(a, 0, sizeof *a);
  a->bulk = bulk;
}

void nns__arena_adopt(nns__arena *dst, nns__arena *src) {
  if (!src->head)
    return;
  if (!dst->head) {
    bool bulk = dst->bulk;
    *dst = *src;
    dst->bulk = bulk;
  } else {
    nns__arena_chunk *tail = src->head;
    while (tail->next)
      tail = tail->next;
    tail->next = dst->head->next;
    dst->head->next = src->head;
    dst->total += src->total;
  }
  bool bulk = src->bulk;
  memset(src, 0, sizeof *src);
  src->bulk = bulk;
}

void nns__arena_reset(nns__arena *a) {
  if (a->head && !a->head->next) {
    memset(a->head->data, 0, a->used);
    a->used = 0;
    return;
  }
  nns__arena_free(a);
}

/* Maps `size` bytes aligned to `align` (a power of two, at least a page) by
 * over-mapping and trimming the ends. */
static void *map_aligned(size_t size, size_t align) {
  size_t span = size + align;
  unsigned char *p = mmap(NULL, span, PROT_READ | PROT_WRITE,
                          MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED)
    return NULL;
  size_t lead = (align - ((uintptr_t)p & (align - 1))) & (align - 1);
  if (lead)
    munmap(p, lead);
  munmap(p + lead + size, span - lead - size);
  return p + lead;
}

/* A chunk of at least `usable` bytes. From 2 MB it is whole, aligned huge
 * pages, all advised as huge: only those touched are faulted in, one fault
 * and 2 MB zeroed each, against 512 faults in 4 KB pages. A huge page pays
 * once a dozen of its 4 KB pages are used where a fault is dear (13 us on
 * a VM, bench/README.md "Page faults"); advising only as far as a
 * reserve's hint left a LLaMA-7B .pt2's last 2 MB to 512 faults. */
static nns__arena_chunk *chunk_new(size_t usable) {
  size_t header = offsetof(nns__arena_chunk, data);
  if (usable > SIZE_MAX - header - 2 * (size_t)ARENA_HUGE)
    return NULL;
  size_t map_size = (usable + header + 4095) & ~(size_t)4095;
  void *p;
  if (map_size >= ARENA_HUGE) {
    map_size = (map_size + ARENA_HUGE - 1) & ~(size_t)(ARENA_HUGE - 1);
    p = map_aligned(map_size, ARENA_HUGE);
#ifdef MADV_HUGEPAGE
    if (p)
      madvise(p, map_size, MADV_HUGEPAGE); /* a hint; failure is harmless */
#endif
  } else {
    p = malloc(map_size); /* not zeroed: arena_zero does it as it fills */
  }
  if (!p)
    return NULL;
  nns__arena_chunk *c = p;
  c->next = NULL;
  c->size = map_size - header;
  c->map_size = map_size;
  c->heap = map_size < ARENA_HUGE;
  return c;
}

/* Bytes a table of count x size maps: whole huge pages from 2 MB on, 0
 * below (calloc'ed) and SIZE_MAX on overflow. */
static size_t table_map_size(size_t count, size_t size) {
  if (size && count > SIZE_MAX / size)
    return SIZE_MAX;
  size_t bytes = count * size;
  if (bytes < ARENA_HUGE)
    return 0;
  if (bytes > SIZE_MAX - ARENA_HUGE)
    return SIZE_MAX;
  return (bytes + ARENA_HUGE - 1) & ~(size_t)(ARENA_HUGE - 1);
}

void *nns__table_alloc(size_t count, size_t size) {
  size_t map_size = table_map_size(count, size);
  if (map_size == SIZE_MAX)
    return NULL;
  if (!map_size)
    return calloc(count ? count : 1, size ? size : 1);
  void *p = map_aligned(map_size, ARENA_HUGE);
#ifdef MADV_HUGEPAGE
  if (p)
    madvise(p, map_size, MADV_HUGEPAGE); /* a hint; failure is harmless */
#endif
  return p;
}

void nns__table_free(void *p, size_t count, size_t size) {
  if (!p)
    return;
  size_t map_size = table_map_size(count, size);
  if (map_size)
    munmap(p, map_size);
  else
    free(p);
}

/* Zeroes the head chunk of `a` on from `cap` so that its first `end`
 * bytes are zero, to a whole ZERO_STEP past them (or the chunk's end):
 * the new `cap`. */
static size_t arena_zero(nns__arena *a, size_t end) {
  size_t size = a->head->size; /* below ARENA_HUGE: no overflow here */
  end = (end + ZERO_STEP - 1) & ~(size_t)(ZERO_STEP - 1);
  if (end > size)
    end = size;
  if (end > a->cap)
    memset(a->data + a->cap, 0, end - a->cap);
  return end;
}

/* Starts a new chunk with room for at least `need` bytes. */
static bool arena_grow(nns__arena *a, size_t need) {
  /* Each chunk doubles the last (up to 64 MB): a large model makes few
   * chunks, a small one stays small. A model has three arenas (graph,
   * inference, analysis), so small ones double too rather than jump to
   * a huge page each. */
  size_t size = !a->head   ? (a->bulk ? ARENA_BULK_FIRST : ARENA_FIRST_CHUNK)
                : a->head->size * 2;
  if (size > ARENA_MAX_CHUNK)
    size = ARENA_MAX_CHUNK;
  /* A bulk arena goes to whole huge pages after its first chunk. */
  if (a->bulk && a->head && size < ARENA_HUGE)
    size = ARENA_HUGE - offsetof(nns__arena_chunk, data); /* one page */
  if (need > size)
    size = need;
  nns__arena_chunk *c = chunk_new(size);
  if (!c)
    return false;
  c->next = a->head;
  a->head = c;
  a->data = c->data;
  a->used = 0;
  a->cap = 0; /* a heap chunk: nothing zeroed yet */
  if (c->heap)
    a->cap = arena_zero(a, need);
  else
    a->cap = c->size;
  a->total += c->map_size;
  return true;
}

bool nns__arena_reserve(nns__arena *a, size_t n) {
  if (a->head && a->cap - a->used >= n)
    return true;
  /* Worth a chunk of its own from 512 KB, and then a huge page or more:
   * the doubling series below that is faulted page by page (a LLaMA-shaped
   * graph of 700 KB took 400 faults), where zeroing one huge page costs
   * about as much as a hundred faults. */
  if (n < ARENA_HUGE / 4)
    return true;
  if (n > ARENA_MAX_CHUNK)
    n = ARENA_MAX_CHUNK;
  return arena_grow(a, n < ARENA_HUGE ? ARENA_HUGE : n);
}

/* n bytes at a multiple of `align` (1 or ARENA_ALIGN) in the head chunk,
 * starting a new chunk when they do not fit. A chunk's data and size are
 * multiples of ARENA_ALIGN, so rounding `used` up never passes `cap`. */
static inline void *arena_take(nns__arena *a, size_t n, size_t align) {
  if (n == 0)
    n = 1;
  if (n > SIZE_MAX / 2)
    return NULL;
  size_t at = (a->used + align - 1) & ~(align - 1);
  if (a->head && a->head->heap && a->cap - at < n &&
      a->head->size - at >= n) {
    a->cap = arena_zero(a, at + n); /* the rest of a heap chunk */
  } else if (!a->head || a->cap - at < n) {
    if (!arena_grow(a, (n + ARENA_ALIGN - 1) & ~(size_t)(ARENA_ALIGN - 1)))
      return NULL;
    at = 0;
  }
  /* Below cap the chunk is zero: fresh mapped memory, or zeroed. */
  a->used = at + n;
  return a->data + at;
}

void *nns__arena_alloc_slow(nns__arena *a, size_t n) {
  return arena_take(a, n, ARENA_ALIGN);
}

void *nns__arena_bytes_slow(nns__arena *a, size_t n) {
  return arena_take(a, n, 1);
}

char *nns__arena_strndup(nns__arena *a, const char *s, size_t n) {
  if (n > SIZE_MAX / 2)
    return NULL;
  char *p = arena_take(a, n + 1, 1);
  if (p && n)
    memcpy(p, s, n);
  return p;
}
