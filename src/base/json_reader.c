/*
 * json_reader.c - JSON text to a tree of nns__jval in an arena
 * (json_reader.h). The text is first copied into the arena with NUL bytes
 * after it. A string with no escape (nearly every one) then stays where it
 * is, its closing quote overwritten by its terminating NUL: no allocation
 * and no copy of its own. And the NULs stop every scan, so the loops over
 * bytes need no check against the end. Containers under construction sit
 * on an explicit stack; their items gather on one malloc'ed item stack
 * shared by every open container and move to the arena when the container
 * closes, so nesting depth costs heap, never C stack, and a container
 * costs no allocation of its own. Strings are scanned sixteen bytes at a
 * time (eight without SSE2).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "json_reader.h"

/* NUL bytes after the copy of the text: the string scan's 16 bytes read
 * at the end stay inside the copy, and no scan runs past them (NUL is
 * neither a space, a digit, a quote nor any other byte a scan goes on
 * over). */
#define PAD 16

typedef struct item {
  nns__jval *v;     /* the value */
  const char *key;  /* its key (objects), or NULL */
  size_t klen;      /* the key's length in bytes (a key may hold NULs) */
} item;

typedef struct frame {
  nns__jval *v;        /* the array or object being filled */
  size_t base;         /* its first item on the parser's item stack */
  size_t n;            /* its items so far */
  const char *name;    /* the key it sits under in an object, or NULL */
  size_t name_len;     /* its length */
  bool skips;          /* some skip rule may name one of its members */
  const char *key;     /* an object's key waiting for its value */
  size_t key_len;      /* its length */
  uint32_t *slots;     /* past KEY_SCAN keys: a hash set of key index + 1 */
  size_t scap;         /* its slots, a power of two, or 0 */
  bool nul_key;        /* some key holds a NUL: the set is not kept */
} frame;

/* Objects with at most this many keys look for a duplicate (and
 * nns__json_get for a member) by a scan; larger ones through a hash set,
 * so that n keys cost O(n). */
#define KEY_SCAN 8

typedef struct parser {
  nns__arena *a;
  char *p;             /* the next byte, in the copy of the text */
  const char *start, *end; /* the copy; PAD NUL bytes follow end */
  nns_error *err;
  frame *st;
  size_t depth, cap;
  item *items;         /* the open containers' items, innermost last */
  size_t top, icap;    /* items in use; their capacity */
  const nns__json_skip *skip; /* members read without being kept */
  size_t n_skip;
  bool skip_any;       /* some rule names no parent: any object may skip */
  uint8_t parents[32]; /* the first bytes of the rules' parents, a bit set */
  nns__jval *skipped;  /* the null every skipped member holds */
  bool nul;            /* read_string_slow has unescaped a NUL */
  nns__jval *pool;     /* values to hand out (new_value) */
  size_t pool_left;    /* how many */
} parser;

static nns_status fail_at(parser *ps, const char *at, const char *what) {
  return nns__err(ps->err, NNS_E_JSON, (int64_t)(at - ps->start), NULL,
                  "%s at byte %lld", what, (long long)(at - ps->start));
}

static nns_status fail(parser *ps, const char *what) {
  return fail_at(ps, ps->p, what);
}

/* Past the spaces at p. Most places have none, and a document Python's
 * json module wrote has one after each ':' and ',': one compare or two. */
static inline char *skip_ws(char *p) {
  if ((unsigned char)*p > ' ')
    return p;
  if (*p == ' ' && (unsigned char)p[1] > ' ')
    return p + 1;
  while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r')
    p++;
  return p;
}

static int hex4(const char *p) {
  int v = 0;
  for (int i = 0; i < 4; i++) {
    char c = p[i];
    v <<= 4;
    if (c >= '0' && c <= '9')
      v |= c - '0';
    else if (c >= 'a' && c <= 'f')
      v |= c - 'a' + 10;
    else if (c >= 'A' && c <= 'F')
      v |= c - 'A' + 10;
    else
      return -1;
  }
  return v;
}

static size_t put_utf8(char *o, uint32_t c) {
  if (c < 0x80) {
    o[0] = (char)c;
    return 1;
  }
  if (c < 0x800) {
    o[0] = (char)(0xc0 | (c >> 6));
    o[1] = (char)(0x80 | (c & 0x3f));
    return 2;
  }
  if (c < 0x10000) {
    o[0] = (char)(0xe0 | (c >> 12));
    o[1] = (char)(0x80 | ((c >> 6) & 0x3f));
    o[2] = (char)(0x80 | (c & 0x3f));
    return 3;
  }
  o[0] = (char)(0xf0 | (c >> 18));
  o[1] = (char)(0x80 | ((c >> 12) & 0x3f));
  o[2] = (char)(0x80 | ((c >> 6) & 0x3f));
  o[3] = (char)(0x80 | (c & 0x3f));
  return 4;
}

/* ==== Strings ==== */

/* The first byte at or after p (at most the end of the text) that ends a
 * run of plain string text: a quote, a backslash or a control character,
 * the NULs after the text included, so the scan needs no bound: a block
 * read that finds nothing lay wholly before the first NUL after the text,
 * so the next one still ends inside the padding. With SSE2 (every
 * x86-64), sixteen bytes at a time; else eight where the machine is
 * little-endian: each test marks the high bit of a byte that matches, and
 * a borrow can only mark bytes above a true match, so the lowest mark is
 * the first match. */
static inline const char *plain_end(const char *p) {
#if defined(__SSE2__)
  const __m128i quote = _mm_set1_epi8('"'), bslash = _mm_set1_epi8('\\');
  const __m128i ctl = _mm_set1_epi8(0x1f);
  for (;;) {
    __m128i w = _mm_loadu_si128((const __m128i *)(const void *)p);
    __m128i hit = _mm_or_si128(
        _mm_or_si128(_mm_cmpeq_epi8(w, quote), _mm_cmpeq_epi8(w, bslash)),
        _mm_cmpeq_epi8(_mm_min_epu8(w, ctl), w)); /* w <= 0x1f */
    int m = _mm_movemask_epi8(hit);
    if (m)
      return p + __builtin_ctz((unsigned)m);
    p += 16;
  }
#elif defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
  const uint64_t ones = 0x0101010101010101ull;
  const uint64_t highs = 0x8080808080808080ull;
  for (;;) {
    uint64_t w, q, b;
    memcpy(&w, p, 8);
    q = w ^ (ones * '"');
    b = w ^ (ones * '\\');
    uint64_t hit = (((q - ones) & ~q) | ((b - ones) & ~b) |
                    ((w - ones * 0x20) & ~w)) & highs;
    if (hit)
      return p + (__builtin_ctzll(hit) >> 3);
    p += 8;
  }
#else
  while (*p != '"' && *p != '\\' && (unsigned char)*p >= 0x20)
    p++;
  return p;
#endif
}

/* The string at ps->p (on its opening quote) checked without a copy:
 * true with *close on its closing quote and *plain when it holds no
 * escape. False where read_string_slow must decide: a control character,
 * an escape it refuses, no closing quote (its error takes the text's
 * order into account). What passes here, read_string_slow accepts. The
 * NULs after the text end every path: no quote, backslash or hex digit
 * is read past its end. */
static bool scan_string(const parser *ps, const char **close, bool *plain) {
  const char *q = ps->p + 1;
  bool esc = false;
  for (;;) {
    q = plain_end(q);
    if (*q == '"') {
      *close = q;
      *plain = !esc;
      return true;
    }
    if (*q != '\\')
      return false;
    esc = true;
    switch (q[1]) {
    case '"': case '\\': case '/': case 'b': case 'f': case 'n': case 'r':
    case 't':
      q += 2;
      break;
    case 'u':
      if (hex4(q + 2) < 0)
        return false;
      q += 6;
      break;
    default:
      return false;
    }
  }
}

/* A string at ps->p (on its opening quote), unescaped into the arena, the
 * byte-by-byte way: every error of a string is found here. */
static nns_status read_string_slow(parser *ps, const char **out,
                                   size_t *out_len) {
  const char *q = ps->p + 1;
  /* The unescaped text is never longer than the escaped one. */
  size_t room = 0;
  while (q < ps->end && *q != '"') {
    if (*q == '\\')
      q++;
    q++;
    room++;
  }
  if (q >= ps->end)
    return fail(ps, "unterminated string");
  ps->p++;
  char *buf = nns__arena_alloc(ps->a, 4 * room + 1);
  if (!buf)
    return NNS_E_NOMEM;
  size_t n = 0;
  while (*ps->p != '"') {
    unsigned char c = (unsigned char)*ps->p;
    if (c < 0x20)
      return fail(ps, "control character in a string");
    if (c != '\\') {
      buf[n++] = (char)c;
      ps->p++;
      continue;
    }
    char e = ps->p[1];
    ps->p += 2;
    switch (e) {
    case '"': buf[n++] = '"'; break;
    case '\\': buf[n++] = '\\'; break;
    case '/': buf[n++] = '/'; break;
    case 'b': buf[n++] = '\b'; break;
    case 'f': buf[n++] = '\f'; break;
    case 'n': buf[n++] = '\n'; break;
    case 'r': buf[n++] = '\r'; break;
    case 't': buf[n++] = '\t'; break;
    case 'u': {
      int u = ps->end - ps->p >= 4 ? hex4(ps->p) : -1;
      if (u < 0)
        return fail(ps, "bad \\u escape");
      ps->p += 4;
      uint32_t cp = (uint32_t)u;
      if (cp >= 0xd800 && cp < 0xdc00 && ps->end - ps->p >= 6 &&
          ps->p[0] == '\\' && ps->p[1] == 'u') {
        int lo = hex4(ps->p + 2);
        if (lo >= 0xdc00 && lo < 0xe000) {
          cp = 0x10000 + ((cp - 0xd800) << 10) + (uint32_t)(lo - 0xdc00);
          ps->p += 6;
        }
      }
      if (cp >= 0xd800 && cp < 0xe000)
        cp = 0xfffd; /* a lone surrogate is no character */
      ps->nul |= cp == 0;
      n += put_utf8(buf + n, cp);
      break;
    }
    default:
      ps->p -= 2;
      return fail(ps, "bad escape");
    }
  }
  ps->p++;
  buf[n] = 0;
  *out = buf;
  *out_len = n;
  return NNS_OK;
}

/* A string at ps->p (on its opening quote) with an escape, or an error:
 * read_string's slow way. One whose escapes all check out but which the
 * fast scan stopped in the middle of is finished here. */
static nns_status read_string_esc(parser *ps, const char **out,
                                  size_t *out_len) {
  const char *close;
  bool plain;
  if (!scan_string(ps, &close, &plain) || !plain)
    return read_string_slow(ps, out, out_len);
  char *s = ps->p + 1;
  size_t n = (size_t)(close - s);
  s[n] = 0;
  ps->p = s + n + 1;
  *out = s;
  *out_len = n;
  return NNS_OK;
}

/* A string at ps->p (on its opening quote). One with no escape (nearly
 * every one) stays in the copy of the text, NUL-terminated over its
 * closing quote (the parse has passed that byte for good); one with
 * escapes is unescaped into the arena. Inline (its callers are the key
 * and the value), where gcc would otherwise call it. */
__attribute__((always_inline)) static inline nns_status
read_string(parser *ps, const char **out, size_t *out_len) {
  char *s = ps->p + 1;
  char *q = s + (plain_end(s) - s);
  if (*q != '"')
    return read_string_esc(ps, out, out_len);
  *q = 0;
  ps->p = q + 1;
  *out = s;
  *out_len = (size_t)(q - s);
  return NNS_OK;
}

/* A string at ps->p checked and passed over, kept nowhere. */
static nns_status skip_string(parser *ps) {
  const char *close, *s;
  bool plain;
  size_t n;
  if (!scan_string(ps, &close, &plain))
    return read_string_slow(ps, &s, &n); /* its error */
  ps->p += close + 1 - ps->p;
  return NNS_OK;
}

/* ==== Numbers ==== */

static bool digit(char c) { return c >= '0' && c <= '9'; }

static nns_status read_number(parser *ps, nns__jval *v) {
  const char *s = ps->p, *q = s;
  bool neg = *q == '-';
  q += neg;
  if (!digit(*q))
    return fail(ps, "bad number");
  /* The integer part's value on the way: up to 18 digits it fits. */
  uint64_t acc = 0;
  const char *digits = q;
  if (*q == '0')
    q++;
  else
    for (; digit(*q); q++)
      acc = acc * 10 + (uint64_t)(*q - '0');
  size_t n_digits = (size_t)(q - digits);
  bool integral = true;
  if (*q == '.') {
    integral = false;
    q++;
    if (!digit(*q))
      return fail(ps, "bad number");
    while (digit(*q))
      q++;
  }
  if (*q == 'e' || *q == 'E') {
    integral = false;
    q++;
    if (*q == '+' || *q == '-')
      q++;
    if (!digit(*q))
      return fail(ps, "bad number");
    while (digit(*q))
      q++;
  }
  v->type = NNS__J_NUM;
  bool exact = false;
  if (integral && n_digits <= 18) {
    /* It fits (counts go up to 2^63-1), and up to 2^53 a double holds
     * the integer itself, as strtod reads it ("-0" is the negative
     * zero). */
    v->is_int = true;
    v->i = neg ? -(int64_t)acc : (int64_t)acc;
    if (acc <= UINT64_C(1) << 53) {
      v->d = neg && !acc ? -0.0 : (double)v->i;
      exact = true;
    }
  } else if (integral && (size_t)(q - s) < 21) {
    /* 19 or 20 digits: an integer while it fits, its double (past 2^53)
     * from strtod. */
    int64_t sum = 0;
    bool fits = true;
    for (const char *c = digits; c < q && fits; c++) {
      int dgt = *c - '0';
      fits = !__builtin_mul_overflow(sum, 10, &sum) &&
             !__builtin_add_overflow(sum, neg ? -dgt : dgt, &sum);
    }
    v->is_int = fits;
    v->i = fits ? sum : 0;
  }
  if (!exact) {
    char buf[64];
    size_t len = (size_t)(q - s);
    if (len >= sizeof buf)
      len = sizeof buf - 1; /* digits past 63 add nothing a double keeps */
    memcpy(buf, s, len);
    buf[len] = 0;
    v->d = strtod(buf, NULL);
  }
  ps->p += q - s;
  return NNS_OK;
}

/* ==== Containers ==== */

/* Whether s (NUL-terminated) is the n bytes at t. */
static bool same(const char *s, const char *t, size_t n) {
  return s[0] == t[0] && strlen(s) == n && !memcmp(s, t, n);
}

/* Whether a skip rule may apply to the members of an object under key
 * name (NULL for none): decided once per object, most often by the first
 * byte of the name alone. */
static bool may_skip(const parser *ps, const char *name, size_t name_len) {
  if (ps->skip_any)
    return true;
  unsigned char c = name ? (unsigned char)name[0] : 0;
  if (!name || !(ps->parents[c >> 3] & (1u << (c & 7))))
    return false;
  for (size_t k = 0; k < ps->n_skip; k++)
    if (same(ps->skip[k].parent, name, name_len))
      return true;
  return false;
}

static bool push(parser *ps, nns__jval *v, const char *name,
                 size_t name_len) {
  if (ps->depth >= ps->cap) {
    frame *st = nns__grow(ps->st, &ps->cap, ps->depth + 1, sizeof *st, 16);
    if (!st)
      return false;
    ps->st = st;
  }
  bool skips = ps->n_skip && v->type == NNS__J_OBJ &&
               may_skip(ps, name, name_len);
  ps->st[ps->depth++] = (frame){.v = v, .base = ps->top, .name = name,
                                .name_len = name_len, .skips = skips};
  return true;
}

static size_t key_hash(const char *k, size_t len) {
  return (size_t)nns__str_hash(k, len);
}

/* The slots of the hash set of an object of n keys: none up to KEY_SCAN,
 * else a power of two at least twice n (at most half full). nns__json_get
 * reads a parsed object's set with the capacity this gives its length. */
static size_t set_cap(size_t n) {
  if (n <= KEY_SCAN)
    return 0;
  size_t cap = 4 * KEY_SCAN;
  while (cap < 2 * n)
    cap *= 2;
  return cap;
}

/* Puts key index i of f into f's hash set (which has room). */
static void slot_put(const parser *ps, frame *f, size_t i) {
  const item *it = &ps->items[f->base + i];
  size_t s = key_hash(it->key, it->klen) & (f->scap - 1);
  while (f->slots[s])
    s = (s + 1) & (f->scap - 1);
  f->slots[s] = (uint32_t)(i + 1);
}

/* True when the open object f already has key k (len bytes). */
static bool key_seen(const parser *ps, const frame *f, const char *k,
                     size_t len) {
  if (!f->n)
    return false; /* the item stack may not exist yet */
  const item *items = ps->items + f->base;
  if (!f->scap) {
    for (size_t i = 0; i < f->n; i++)
      if (items[i].klen == len && items[i].key[0] == k[0] &&
          !memcmp(items[i].key, k, len))
        return true;
    return false;
  }
  size_t s = key_hash(k, len) & (f->scap - 1);
  for (; f->slots[s]; s = (s + 1) & (f->scap - 1)) {
    size_t i = f->slots[s] - 1;
    if (items[i].klen == len && !memcmp(items[i].key, k, len))
      return true;
  }
  return false;
}

/* Puts the newest key of object f into its hash set, which is made or
 * doubled first when it would pass half full. */
static bool set_add(parser *ps, frame *f) {
  size_t cap = set_cap(f->n);
  if (cap > f->scap) {
    uint32_t *slots = calloc(cap, sizeof *slots);
    if (!slots)
      return false;
    free(f->slots);
    f->slots = slots;
    f->scap = cap;
    for (size_t i = 0; i + 1 < f->n; i++)
      slot_put(ps, f, i);
  }
  slot_put(ps, f, f->n - 1);
  return true;
}

/* A new value (zeroed, as arena memory is), from blocks the arena gives
 * VALUE_BLOCK at a time: one allocation for many small values. */
#define VALUE_BLOCK 64
static inline nns__jval *new_value(parser *ps) {
  if (!ps->pool_left) {
    ps->pool = nns__arena_array(ps->a, VALUE_BLOCK, sizeof *ps->pool);
    if (!ps->pool)
      return NULL;
    ps->pool_left = VALUE_BLOCK;
  }
  ps->pool_left--;
  return ps->pool++;
}

/* Appends v to open container f (under the key f->key waits with, in an
 * object; an array's frame has none). */
static inline bool add_item(parser *ps, frame *f, nns__jval *v) {
  if (f->n >= UINT32_MAX - 1)
    return false; /* the hash set holds 32-bit indices */
  size_t at = ps->top;
  if (at >= ps->icap) {
    item *items = nns__grow(ps->items, &ps->icap, at + 1, sizeof *items,
                            256);
    if (!items)
      return false;
    ps->items = items;
  }
  ps->items[at] = (item){.v = v, .key = f->key, .klen = f->key_len};
  ps->top = at + 1;
  f->key = NULL;
  return ++f->n <= KEY_SCAN || f->v->type != NNS__J_OBJ || set_add(ps, f);
}

/* Moves the closed container's items to the arena (an object's keys in
 * the same block, after its values), and a large object's hash set with
 * them (nns__json_get finds members through it). */
static bool close_frame(parser *ps) {
  frame *f = &ps->st[--ps->depth];
  nns__jval *v = f->v;
  size_t n = f->n;
  bool obj = v->type == NNS__J_OBJ, ok = true;
  ps->top = f->base;
  v->len = (uint32_t)n; /* add_item holds n below UINT32_MAX */
  if (f->scap && !f->nul_key) {
    uint32_t *index = nns__arena_array(ps->a, f->scap, sizeof *index);
    if ((ok = index != NULL))
      memcpy(index, f->slots, f->scap * sizeof *index);
    v->index = index;
  }
  if (f->slots)
    free(f->slots);
  if (!ok || !n)
    return ok; /* with no items, the item stack may not exist yet */
  const item *items = ps->items + f->base;
  void **block = nns__arena_array(ps->a, obj ? 2 * n : n, sizeof *block);
  if (!block)
    return false;
  v->items = (nns__jval **)block;
  for (size_t i = 0; i < n; i++)
    v->items[i] = items[i].v;
  if (obj) {
    v->keys = (const char **)(block + n);
    for (size_t i = 0; i < n; i++)
      v->keys[i] = items[i].key;
  }
  return true;
}

/* True when the member f->key of open object f is one to skip. The key
 * first: most members' keys differ from every rule's in the first byte. */
static bool skip_member(const parser *ps, const frame *f) {
  for (size_t k = 0; k < ps->n_skip; k++) {
    const nns__json_skip *r = &ps->skip[k];
    if (same(r->key, f->key, f->key_len) &&
        (!r->parent || (f->name && same(r->parent, f->name, f->name_len))))
      return true;
  }
  return false;
}

/* Whether the n letters of word are at ps->p, and past them if so (the
 * NULs after the text end a match there). */
static bool lit(parser *ps, const char *word, size_t n) {
  if (memcmp(ps->p, word, n))
    return false;
  ps->p += n;
  return true;
}

/* ==== The document ==== */

/* The parse goes between three states: a value (value:), an object's key
 * (key:) and what follows a value (after:). f is the innermost open
 * container, NULL at the top level. */
nns_status nns__json_parse_skip(nns__arena *a, const char *text, size_t len,
                                const nns__json_skip *skip, size_t n_skip,
                                nns__jval **out, nns_error *err) {
  parser ps = {.a = a, .err = err, .skip = skip, .n_skip = skip ? n_skip : 0};
  nns__jval *root = NULL, *v;
  nns_status st = NNS_OK;
  frame *f = NULL;
  bool skipping = false; /* the value is a member to skip */
  if (len > NNS__JSON_MAX_BYTES)
    return nns__err(err, NNS_E_LIMIT, -1, NULL,
                    "JSON document of %zu bytes, over the limit of %zu",
                    len, NNS__JSON_MAX_BYTES);
  char *copy = nns__arena_bytes(a, len + PAD);
  if (!copy) {
    st = NNS_E_NOMEM;
    goto done;
  }
  if (len)
    memcpy(copy, text, len);
  memset(copy + len, 0, PAD);
  ps.p = copy;
  ps.start = copy;
  ps.end = copy + len;
  for (size_t k = 0; k < ps.n_skip; k++) {
    const char *parent = skip[k].parent;
    if (!parent) {
      ps.skip_any = true;
    } else {
      unsigned char c = (unsigned char)parent[0];
      ps.parents[c >> 3] |= (uint8_t)(1u << (c & 7));
    }
  }

value:
  ps.p = skip_ws(ps.p);
  if (skipping && *ps.p == '"') {
    /* Checked as any string is, kept as one null for all. */
    skipping = false;
    if ((st = skip_string(&ps)) != NNS_OK)
      goto done;
    if (!ps.skipped &&
        !(ps.skipped = nns__arena_alloc(a, sizeof *ps.skipped))) {
      st = NNS_E_NOMEM;
      goto done;
    }
    ps.skipped->type = NNS__J_NULL;
    v = ps.skipped;
    goto add;
  }
  skipping = false;
  if (!(v = new_value(&ps))) {
    st = NNS_E_NOMEM;
    goto done;
  }
  switch (*ps.p) {
  case '"':
  {
    size_t n;
    v->type = NNS__J_STR;
    if ((st = read_string(&ps, &v->s, &n)) != NNS_OK)
      goto done;
    v->len = (uint32_t)n; /* below NNS__JSON_MAX_BYTES */
    goto add;
  }
  case '-': case '0': case '1': case '2': case '3': case '4': case '5':
  case '6': case '7': case '8': case '9':
    if ((st = read_number(&ps, v)) != NNS_OK)
      goto done;
    goto add;
  case 't':
    if (!lit(&ps, "true", 4))
      goto bad_value;
    v->type = NNS__J_BOOL;
    v->b = true;
    goto add;
  case 'f':
    if (!lit(&ps, "false", 5))
      goto bad_value;
    v->type = NNS__J_BOOL;
    goto add;
  case 'n':
    if (!lit(&ps, "null", 4))
      goto bad_value;
    v->type = NNS__J_NULL;
    goto add;
  case '{':
  case '[': {
    bool obj = *ps.p++ == '{';
    v->type = obj ? NNS__J_OBJ : NNS__J_ARR;
    /* the key it sits under (an array's frame has none) */
    const char *name = f ? f->key : NULL;
    size_t name_len = f ? f->key_len : 0;
    if (f && !add_item(&ps, f, v)) {
      st = NNS_E_NOMEM;
      goto done;
    }
    if (!f)
      root = v;
    if (ps.depth >= NNS__JSON_MAX_DEPTH) {
      st = fail_at(&ps, ps.p - 1,
                   "nesting deeper than " NNS__JSON_MAX_DEPTH_TEXT " levels");
      goto done;
    }
    if (!push(&ps, v, name, name_len)) {
      st = NNS_E_NOMEM;
      goto done;
    }
    f = &ps.st[ps.depth - 1];
    ps.p = skip_ws(ps.p);
    if (*ps.p == (obj ? '}' : ']')) {
      ps.p++;
      goto closed;
    }
    if (obj)
      goto key;
    goto value;
  }
  default:
  bad_value:
    st = fail(&ps, ps.p >= ps.end ? "unexpected end" : "expected a value");
    goto done;
  }

add:
  if (!f)
    root = v;
  else if (!add_item(&ps, f, v)) {
    st = NNS_E_NOMEM;
    goto done;
  }
after:
  ps.p = skip_ws(ps.p);
  if (!f)
    goto finished;
  if (*ps.p == ',') {
    ps.p++;
    if (f->v->type == NNS__J_OBJ)
      goto key;
    goto value;
  }
  if (*ps.p != (f->v->type == NNS__J_OBJ ? '}' : ']')) {
    st = fail(&ps, f->v->type == NNS__J_OBJ ? "expected ',' or '}'"
                                            : "expected ',' or ']'");
    goto done;
  }
  ps.p++;
closed:
  if (!close_frame(&ps)) {
    st = NNS_E_NOMEM;
    goto done;
  }
  f = ps.depth ? &ps.st[ps.depth - 1] : NULL;
  goto after;

key:
  ps.p = skip_ws(ps.p);
  if (*ps.p != '"') {
    st = fail(&ps, "expected a key");
    goto done;
  }
  {
    const char *key_at = ps.p;
    ps.nul = false;
    if ((st = read_string(&ps, &f->key, &f->key_len)) != NNS_OK)
      goto done;
    f->nul_key |= ps.nul;
    if (key_seen(&ps, f, f->key, f->key_len)) {
      /* RFC 8259 leaves a repeated name undefined and readers differ
       * (first wins, last wins): a budget must not depend on which. */
      char what[160];
      snprintf(what, sizeof what, "duplicate key \"%.*s%s\"",
               (int)(f->key_len > 64 ? 64 : f->key_len), f->key,
               f->key_len > 64 ? "..." : "");
      f->key = NULL;
      st = fail_at(&ps, key_at, what);
      goto done;
    }
  }
  ps.p = skip_ws(ps.p);
  if (*ps.p != ':') {
    st = fail(&ps, "expected ':'");
    goto done;
  }
  ps.p++;
  skipping = f->skips && skip_member(&ps, f);
  goto value;

finished:
  if (ps.p != ps.end) {
    st = fail(&ps, "text after the document");
    goto done;
  }
  *out = root;
done:
  while (ps.depth)
    free(ps.st[--ps.depth].slots);
  free(ps.st);
  free(ps.items);
  if (st == NNS_E_NOMEM)
    nns__err(err, NNS_E_NOMEM, -1, NULL, "out of memory reading JSON");
  return st;
}

nns_status nns__json_parse(nns__arena *a, const char *text, size_t len,
                           nns__jval **out, nns_error *err) {
  return nns__json_parse_skip(a, text, len, NULL, 0, out, err);
}

/* nns__json_get in a large object: through the parse's hash set, kept
 * only where no key holds a NUL, so that strcmp and the set's compare of
 * all the bytes agree. Apart, so that the common small object's scan
 * keeps a lean call. */
__attribute__((noinline)) static const nns__jval *
get_indexed(const nns__jval *obj, const char *key) {
  size_t mask = set_cap(obj->len) - 1;
  for (size_t s = key_hash(key, strlen(key)) & mask; obj->index[s];
       s = (s + 1) & mask) {
    size_t i = obj->index[s] - 1;
    if (!strcmp(obj->keys[i], key))
      return obj->items[i];
  }
  return NULL;
}

/* The first member whose key is `key` as strcmp compares (a key with a
 * NUL in it matches by the part before). */
const nns__jval *nns__json_get(const nns__jval *obj, const char *key) {
  if (!obj || obj->type != NNS__J_OBJ)
    return NULL;
  if (obj->index)
    return get_indexed(obj, key);
  for (size_t i = 0; i < obj->len; i++)
    if (obj->keys[i][0] == key[0] && !strcmp(obj->keys[i], key))
      return obj->items[i];
  return NULL;
}

const char *nns__json_str_or(const nns__jval *v, const char *fallback) {
  return v && v->type == NNS__J_STR ? v->s : fallback;
}

int64_t nns__json_int_or(const nns__jval *v, int64_t fallback) {
  return v && v->type == NNS__J_NUM && v->is_int ? v->i : fallback;
}

bool nns__json_bool_or(const nns__jval *v, bool fallback) {
  return v && v->type == NNS__J_BOOL ? v->b : fallback;
}

nns__jcount nns__json_count(const nns__jval *v, int64_t *out) {
  if (!v || v->type == NNS__J_NULL)
    return NNS__JC_MISSING;
  if (v->type != NNS__J_NUM)
    return NNS__JC_BAD;
  if (v->is_int) {
    if (v->i < 0)
      return NNS__JC_BAD;
    *out = v->i;
    return NNS__JC_OK;
  }
  /* 2^53: past it a double's neighbours are 2 apart, so the digits
   * written need not be the number read. */
  if (!(v->d >= 0 && v->d <= 9007199254740992.0) || v->d != floor(v->d))
    return NNS__JC_BAD;
  *out = (int64_t)v->d;
  return NNS__JC_OK;
}

const char *nns__json_describe(const nns__jval *v, char *buf, size_t size) {
  if (!v || v->type == NNS__J_NULL)
    snprintf(buf, size, "null");
  else if (v->type == NNS__J_BOOL)
    snprintf(buf, size, "%s", v->b ? "true" : "false");
  else if (v->type == NNS__J_NUM && v->is_int)
    snprintf(buf, size, "%lld", (long long)v->i);
  else if (v->type == NNS__J_NUM)
    snprintf(buf, size, "%.17g", v->d);
  else if (v->type == NNS__J_STR)
    snprintf(buf, size, "the string \"%.*s%s\"",
             (int)(v->len > 40 ? 40 : v->len), v->s, v->len > 40 ? "..." : "");
  else
    snprintf(buf, size, "%s", v->type == NNS__J_ARR ? "an array" : "an object");
  return buf;
}

static void jval_at(nns__jw *w, const char *key, size_t klen,
                    const nns__jval *v, int depth) {
  if (!v || depth > 64) {
    nns__jw_null(w, key, klen);
    return;
  }
  switch (v->type) {
  case NNS__J_NULL: nns__jw_null(w, key, klen); break;
  case NNS__J_BOOL: nns__jw_bool(w, key, klen, v->b); break;
  case NNS__J_NUM:
    if (v->is_int)
      nns__jw_int(w, key, klen, v->i);
    else
      nns__jw_double(w, key, klen, v->d, 17, false);
    break;
  case NNS__J_STR: nns__jw_strn(w, key, klen, v->s, v->len); break;
  case NNS__J_ARR:
  case NNS__J_OBJ:
    if (v->type == NNS__J_ARR)
      nns__jw_arr(w, key, klen);
    else
      nns__jw_obj(w, key, klen);
    for (size_t i = 0; i < v->len; i++) {
      if (v->type == NNS__J_OBJ)
        nns__jw_key(w, v->keys[i]);
      jval_at(w, NULL, 0, v->items[i], depth + 1);
    }
    nns__jw_end(w, NULL);
    break;
  }
}

void nns__jw_jval(nns__jw *w, const char *key, size_t klen,
                  const nns__jval *v) {
  jval_at(w, key, klen, v, 0);
}

/* ==== Public check ==== */

nns_status nns_json_check(const char *text, size_t size, nns_error *err) {
  if (!text && size)
    return nns__err(err, NNS_E_ARG, -1, NULL, "text is NULL");
  nns__arena a;
  nns__arena_init(&a);
  nns__jval *doc = NULL;
  nns_status st = nns__json_parse(&a, text ? text : "", size, &doc, err);
  nns__arena_free(&a);
  return st;
}
