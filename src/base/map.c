/*
 * map.c - string interning, a pointer-keyed hash map and a pair-keyed one.
 * Interned names make every later lookup a pointer hash and a pointer
 * compare.
 */
#include <stdlib.h>
#include <string.h>

#include "base.h"

/* ==== Pointer map ==== */

static size_t ptr_hash(const void *p) {
  return (size_t)nns__hash_mix((uint64_t)(uintptr_t)p);
}

void *nns__map_get(const nns__map *m, const void *key) {
  if (!m->cap)
    return NULL;
  size_t mask = m->cap - 1;
  for (size_t i = ptr_hash(key) & mask;; i = (i + 1) & mask) {
    if (m->keys[i] == key)
      return m->vals[i];
    if (!m->keys[i])
      return NULL;
  }
}

/* Moves the entries into tables of `cap` slots (a power of two). */
static bool map_resize(nns__map *m, size_t cap) {
  const void **keys;
  void **vals;
  if (m->arena) {
    keys = nns__arena_array(m->arena, cap, sizeof *keys);
    vals = nns__arena_array(m->arena, cap, sizeof *vals);
    if (!keys || !vals)
      return false;
  } else {
    keys = nns__table_alloc(cap, sizeof *keys);
    vals = nns__table_alloc(cap, sizeof *vals);
    if (!keys || !vals) {
      nns__table_free(keys, cap, sizeof *keys);
      nns__table_free(vals, cap, sizeof *vals);
      return false;
    }
  }
  for (size_t i = 0; i < m->cap; i++) {
    if (!m->keys[i])
      continue;
    size_t j = ptr_hash(m->keys[i]) & (cap - 1);
    while (keys[j])
      j = (j + 1) & (cap - 1);
    keys[j] = m->keys[i];
    vals[j] = m->vals[i];
  }
  if (!m->arena) {
    nns__table_free(m->keys, m->cap, sizeof *m->keys);
    nns__table_free(m->vals, m->cap, sizeof *m->vals);
  }
  m->keys = keys;
  m->vals = vals;
  m->cap = cap;
  return true;
}

static bool map_grow(nns__map *m) {
  return map_resize(m, m->cap ? m->cap * 2 : 16);
}

bool nns__map_reserve(nns__map *m, size_t n) {
  if (n > SIZE_MAX / 8)
    return true; /* no such table: the map grows as it fills */
  size_t cap = m->cap ? m->cap : 16;
  while (n * 4 > cap * 3)
    cap *= 2;
  return cap == m->cap || map_resize(m, cap);
}

/* The slot of key once there is room for one more: its entry, or the
 * empty slot it would take; SIZE_MAX when the table cannot grow. */
static size_t map_slot(nns__map *m, const void *key) {
  if ((m->count + 1) * 4 > m->cap * 3 && !map_grow(m))
    return SIZE_MAX;
  size_t mask = m->cap - 1;
  size_t i = ptr_hash(key) & mask;
  while (m->keys[i] && m->keys[i] != key)
    i = (i + 1) & mask;
  return i;
}

bool nns__map_put(nns__map *m, const void *key, void *val) {
  size_t i = map_slot(m, key);
  if (i == SIZE_MAX)
    return false;
  if (!m->keys[i])
    m->count++;
  m->keys[i] = key;
  m->vals[i] = val;
  return true;
}

bool nns__map_add(nns__map *m, const void *key, void *val, void **old) {
  size_t i = map_slot(m, key);
  if (i == SIZE_MAX)
    return false;
  if (m->keys[i]) {
    *old = m->vals[i];
    return true;
  }
  m->count++;
  m->keys[i] = key;
  m->vals[i] = val;
  *old = NULL;
  return true;
}

void nns__map_free(nns__map *m) {
  if (!m->arena) {
    nns__table_free(m->keys, m->cap, sizeof *m->keys);
    nns__table_free(m->vals, m->cap, sizeof *m->vals);
  }
  nns__arena *arena = m->arena;
  memset(m, 0, sizeof *m);
  m->arena = arena;
}

/* ==== Pair map ==== */

static size_t pair_hash(uint64_t a, uint32_t b) {
  return (size_t)nns__hash_mix(a ^ ((uint64_t)b << 32 | b));
}

/* The slot of (a, b): its entry, or the empty slot it would take. */
static nns__map2_slot *pair_slot(nns__map2_slot *slots, size_t cap,
                                 uint64_t a, uint32_t b) {
  size_t mask = cap - 1;
  size_t i = pair_hash(a, b) & mask;
  while (slots[i].a && (slots[i].a != a || slots[i].b != b))
    i = (i + 1) & mask;
  return &slots[i];
}

bool nns__map2_get(const nns__map2 *m, uint64_t a, uint32_t b,
                   uint32_t *val) {
  if (!m->cap)
    return false;
  const nns__map2_slot *s = pair_slot(m->slots, m->cap, a, b);
  if (!s->a)
    return false;
  *val = s->val;
  return true;
}

/* Rehashes into a table of `cap` slots (a power of two, above count). */
static bool map2_resize(nns__map2 *m, size_t cap) {
  nns__map2_slot *slots = nns__table_alloc(cap, sizeof *slots);
  if (!slots)
    return false;
  for (size_t i = 0; i < m->cap; i++)
    if (m->slots[i].a)
      *pair_slot(slots, cap, m->slots[i].a, m->slots[i].b) = m->slots[i];
  nns__table_free(m->slots, m->cap, sizeof *m->slots);
  m->slots = slots;
  m->cap = cap;
  return true;
}

bool nns__map2_reserve(nns__map2 *m, size_t n) {
  if (n > SIZE_MAX / 8)
    return false;
  size_t cap = m->cap ? m->cap : 64;
  while (cap * 3 < (n + 1) * 4)
    cap *= 2;
  return cap == m->cap || map2_resize(m, cap);
}

int nns__map2_add(nns__map2 *m, uint64_t a, uint32_t b, uint32_t val) {
  if ((m->count + 1) * 4 > m->cap * 3 &&
      !map2_resize(m, m->cap ? m->cap * 2 : 64))
    return -1;
  nns__map2_slot *s = pair_slot(m->slots, m->cap, a, b);
  if (s->a)
    return 0;
  *s = (nns__map2_slot){.a = a, .b = b, .val = val};
  m->count++;
  return 1;
}

void nns__map2_free(nns__map2 *m) {
  nns__table_free(m->slots, m->cap, sizeof *m->slots);
  memset(m, 0, sizeof *m);
}

/* ==== 64-bit key set ==== */

/* Rehashes into a table of `cap` slots (a power of two, above 2 * count). */
static bool set64_resize(nns__set64 *s, size_t cap) {
  uint64_t *keys = nns__table_alloc(cap, sizeof *keys);
  if (!keys)
    return false;
  for (size_t i = 0; i < s->cap; i++) {
    if (!s->keys[i])
      continue;
    size_t j = nns__hash_mix(s->keys[i]) & (cap - 1);
    while (keys[j])
      j = (j + 1) & (cap - 1);
    keys[j] = s->keys[i];
  }
  nns__table_free(s->keys, s->cap, sizeof *s->keys);
  s->keys = keys;
  s->cap = cap;
  return true;
}

bool nns__set64_reserve(nns__set64 *s, size_t n) {
  if (n > SIZE_MAX / 8)
    return false;
  size_t cap = s->cap ? s->cap : 64;
  while (cap < (n + 1) * 2)
    cap *= 2;
  return cap == s->cap || set64_resize(s, cap);
}

int nns__set64_add(nns__set64 *s, uint64_t key) {
  if ((s->count + 1) * 2 > s->cap &&
      !set64_resize(s, s->cap ? s->cap * 2 : 64))
    return -1;
  uint64_t k = key + 1;
  size_t j = nns__hash_mix(k) & (s->cap - 1);
  while (s->keys[j]) {
    if (s->keys[j] == k)
      return 0;
    j = (j + 1) & (s->cap - 1);
  }
  s->keys[j] = k;
  s->count++;
  return 1;
}

void nns__set64_free(nns__set64 *s) {
  nns__table_free(s->keys, s->cap, sizeof *s->keys);
  memset(s, 0, sizeof *s);
}

/* ==== Interning ==== */

void nns__intern_init(nns__interner *in, nns__arena *arena) {
  memset(in, 0, sizeof *in);
  in->arena = arena;
}

void nns__intern_free(nns__interner *in) {
  nns__table_free(in->slots, in->cap, sizeof *in->slots);
  nns__table_free(in->tags, in->cap, sizeof *in->tags);
  in->slots = NULL;
  in->tags = NULL;
  in->cap = in->count = 0;
}

static uint8_t intern_tag(uint32_t h) { return (uint8_t)(0x80 | h >> 25); }

/* The header before interned copy s. */
static nns__intern_head intern_head(const char *s) {
  nns__intern_head h;
  memcpy(&h, s - sizeof h, sizeof h);
  return h;
}

/* Rehashes into a table of `cap` slots (a power of two, above count). */
static bool intern_resize(nns__interner *in, size_t cap) {
  const char **slots = nns__table_alloc(cap, sizeof *slots);
  uint8_t *tags = nns__table_alloc(cap, sizeof *tags);
  if (!slots || !tags) {
    nns__table_free(slots, cap, sizeof *slots);
    nns__table_free(tags, cap, sizeof *tags);
    return false;
  }
  for (size_t i = 0; i < in->cap; i++) {
    if (!in->tags[i])
      continue;
    size_t j = intern_head(in->slots[i]).hash & (cap - 1);
    while (tags[j])
      j = (j + 1) & (cap - 1);
    slots[j] = in->slots[i];
    tags[j] = in->tags[i];
  }
  nns__table_free(in->slots, in->cap, sizeof *in->slots);
  nns__table_free(in->tags, in->cap, sizeof *in->tags);
  in->slots = slots;
  in->tags = tags;
  in->cap = cap;
  return true;
}

static bool intern_grow(nns__interner *in) {
  return intern_resize(in, in->cap ? in->cap * 2 : 256);
}

bool nns__intern_reserve(nns__interner *in, size_t more) {
  if (in->shared) /* the other thread probes the table: it stays */
    return true;
  if (in->count > SIZE_MAX / 16 || more > SIZE_MAX / 16 - in->count)
    return false;
  size_t need = (in->count + more) * 4, cap = in->cap ? in->cap : 256;
  while (cap * 3 < need)
    cap *= 2;
  return cap == in->cap || intern_resize(in, cap);
}

/* Whether n bytes at a and b are equal. Names are short (10 to 60
 * bytes), where a call to memcmp costs more than the compare: a word at a
 * time, the last 1-7 bytes as one overlapping word or a few bytes. */
static inline bool bytes_equal(const char *a, const char *b, size_t n) {
  uint64_t x, y;
  for (; n >= 8; a += 8, b += 8, n -= 8) {
    memcpy(&x, a, 8);
    memcpy(&y, b, 8);
    if (x != y)
      return false;
  }
  if (n >= 4) {
    uint32_t p, q, r, t;
    memcpy(&p, a, 4);
    memcpy(&q, b, 4);
    memcpy(&r, a + n - 4, 4);
    memcpy(&t, b + n - 4, 4);
    return p == q && r == t;
  }
  for (size_t i = 0; i < n; i++)
    if (a[i] != b[i])
      return false;
  return true;
}

/* Whether interned copy e is s (n bytes, hash h). Hash and length first:
 * most compares end there. Equal lengths below 4 GB make the copy n bytes
 * long, so the compare stays inside it; beyond, strncmp stops at the
 * copy's end. */
static inline bool intern_is(const char *e, const char *s, size_t n,
                             uint32_t h) {
  uint32_t len = n < UINT32_MAX ? (uint32_t)n : UINT32_MAX;
  nns__intern_head eh = intern_head(e);
  if (eh.hash != h || eh.len != len)
    return false;
  return len < UINT32_MAX ? bytes_equal(e, s, n)
                          : strncmp(e, s, n) == 0 && e[n] == '\0';
}

/* The slot where s is, or the empty slot where it would go. */
static inline size_t intern_slot(const nns__interner *in, const char *s,
                                 size_t n, uint32_t h) {
  uint8_t tag = intern_tag(h);
  size_t mask = in->cap - 1;
  size_t i = h & mask;
  for (; in->tags[i]; i = (i + 1) & mask)
    if (in->tags[i] == tag && intern_is(in->slots[i], s, n, h))
      return i;
  return i;
}

const char *nns__intern_find(const nns__interner *in, const char *s) {
  if (!in->cap)
    return NULL;
  size_t n = strlen(s);
  size_t i = intern_slot(in, s, n, nns__str_hash(s, n));
  return in->tags[i] ? in->slots[i] : NULL;
}

/* A new copy of s in in's arena, after its header; NULL when out of
 * memory. */
static char *intern_copy(nns__interner *in, const char *s, size_t n,
                         uint32_t h) {
  nns__intern_head head = {h, n < UINT32_MAX ? (uint32_t)n : UINT32_MAX};
  if (n > SIZE_MAX - sizeof head - 1)
    return NULL;
  char *copy = nns__arena_bytes(in->arena, sizeof head + n + 1);
  if (!copy)
    return NULL;
  memcpy(copy, &head, sizeof head);
  copy += sizeof head;
  if (n)
    memcpy(copy, s, n);
  return copy;
}

/*
 * nns__intern on a shared table. A slot is claimed by swapping its
 * pointer from NULL to a complete copy (the copy is written before, and
 * the swap publishes it); its tag follows. A reader that sees tag 0 reads
 * the pointer too: a slot claimed but not yet tagged is compared like a
 * tagged one. Two threads interning one new string at once both copy it,
 * one copy wins the slot and the other's bytes are left unused.
 */
static const char *intern_shared(nns__interner *in, const char *s, size_t n) {
  if (!in->cap) { /* no table: nns__intern_share never shares one */
    in->full = true;
    return NULL;
  }
  uint32_t h = nns__str_hash(s, n);
  uint8_t tag = intern_tag(h);
  size_t mask = in->cap - 1;
  char *mine = NULL;
  for (size_t i = h & mask;; i = (i + 1) & mask) {
    uint8_t t = __atomic_load_n(&in->tags[i], __ATOMIC_ACQUIRE);
    if (t && t != tag)
      continue;
    const char *e = __atomic_load_n(&in->slots[i], __ATOMIC_ACQUIRE);
    if (!e) {
      if (in->count >= in->quota) {
        if (!in->unshare) {
          in->full = true;
          return NULL;
        }
        in->unshare(in->unshare_ctx); /* the other thread is done */
        return nns__intern(in, s, n);
      }
      if (!mine && !(mine = intern_copy(in, s, n, h)))
        return NULL;
      if (__atomic_compare_exchange_n(&in->slots[i], &e, mine, false,
                                      __ATOMIC_RELEASE, __ATOMIC_ACQUIRE)) {
        __atomic_store_n(&in->tags[i], tag, __ATOMIC_RELEASE);
        in->count++;
        return mine;
      }
      /* Another thread claimed it first: e is its copy. */
    }
    if (intern_is(e, s, n, h))
      return e;
  }
}

const char *nns__intern(nns__interner *in, const char *s, size_t n) {
  if (in->shared)
    return intern_shared(in, s, n);
  /* At most three quarters full: a probe reads a tag byte first, so
   * longer runs cost little, while a sparser table costs page faults. */
  if ((in->count + 1) * 4 > in->cap * 3 && !intern_grow(in))
    return NULL;
  uint32_t h = nns__str_hash(s, n);
  size_t i = intern_slot(in, s, n, h);
  if (in->tags[i])
    return in->slots[i];
  char *copy = intern_copy(in, s, n, h);
  if (!copy)
    return NULL;
  in->slots[i] = copy;
  in->tags[i] = intern_tag(h);
  in->count++;
  return copy;
}

void nns__intern_share(nns__interner *in, nns__interner *view,
                       nns__arena *arena, void (*unshare)(void *),
                       void *ctx) {
  /* What the table takes before nns__intern would grow it, halved. */
  size_t room = in->cap * 3 / 4 > in->count ? in->cap * 3 / 4 - in->count : 0;
  *view = *in;
  view->arena = arena;
  view->shared = in->shared = true;
  view->full = in->full = false;
  view->count = 0;
  view->quota = room / 2;
  view->unshare = NULL;
  in->quota = in->count + room / 2;
  in->unshare = unshare;
  in->unshare_ctx = ctx;
}

void nns__intern_unshare(nns__interner *in, const nns__interner *view) {
  in->count += view->count;
  in->shared = in->full = false;
  in->quota = 0;
  in->unshare = NULL;
  in->unshare_ctx = NULL;
}

const char *nns__intern_cstr(nns__interner *in, const char *s) {
  return nns__intern(in, s, strlen(s));
}
