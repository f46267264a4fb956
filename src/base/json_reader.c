/*
 * json_reader.c - JSON text to a tree of nns__jval in an arena
 * (json_reader.h). Containers under construction sit on an explicit stack;
 * their items gather on one malloc'ed item stack shared by every open
 * container and move to the arena when the container closes, so nesting
 * depth costs heap, never C stack, and a container costs no allocation of
 * its own. Strings are found eight bytes at a time: the common one, with
 * no escape, is one scan and one copy.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json_reader.h"

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
} frame;

/* Objects with at most this many keys look for a duplicate by a scan;
 * larger ones through the frame's hash set, so that n keys cost O(n). */
#define KEY_SCAN 8

typedef struct parser {
  nns__arena *a;
  const char *p, *start, *end;
  nns_error *err;
  frame *st;
  size_t depth, cap;
  nns__jval **items;   /* the open containers' items, innermost last */
  const char **keys;   /* beside each item: its key (objects), or NULL */
  size_t *klens;       /* the keys' lengths in bytes (a key may hold NULs) */
  size_t top, icap, kcap, lcap; /* items in use; the three capacities */
  const nns__json_skip *skip; /* members read without being kept */
  size_t n_skip;
  nns__jval *skipped;  /* the null every skipped member holds */
} parser;

static nns_status fail_at(parser *ps, const char *at, const char *what) {
  return nns__err(ps->err, NNS_E_JSON, (int64_t)(at - ps->start), NULL,
                  "%s at byte %lld", what, (long long)(at - ps->start));
}

static nns_status fail(parser *ps, const char *what) {
  return nns__err(ps->err, NNS_E_JSON, (int64_t)(ps->p - ps->start), NULL,
                  "%s at byte %lld", what, (long long)(ps->p - ps->start));
}

static void skip_ws(parser *ps) {
  /* Most bytes here are no space at all: one compare says so. */
  while (ps->p < ps->end && (unsigned char)*ps->p <= ' ' &&
         (*ps->p == ' ' || *ps->p == '\t' || *ps->p == '\n' ||
          *ps->p == '\r'))
    ps->p++;
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

/* The first byte in [p, end) that ends a run of plain string text: a
 * quote, a backslash or a control character; end when there is none.
 * Eight bytes at a time where the machine is little-endian: each test
 * marks the high bit of a byte that matches, and a borrow can only mark
 * bytes above a true match, so the lowest mark is the first match. */
static const char *plain_end(const char *p, const char *end) {
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
  const uint64_t ones = 0x0101010101010101ull;
  const uint64_t highs = 0x8080808080808080ull;
  while (end - p >= 8) {
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
#endif
  while (p < end && *p != '"' && *p != '\\' && (unsigned char)*p >= 0x20)
    p++;
  return p;
}

/* The string at ps->p (on its opening quote) checked without a copy:
 * true with *close on its closing quote and *plain when it holds no
 * escape. False where read_string_slow must decide: a control character,
 * an escape it refuses, no closing quote (its error takes the text's
 * order into account). What passes here, read_string_slow accepts. */
static bool scan_string(const parser *ps, const char **close, bool *plain) {
  const char *q = ps->p + 1;
  bool esc = false;
  for (;;) {
    q = plain_end(q, ps->end);
    if (q >= ps->end)
      return false;
    if (*q == '"') {
      *close = q;
      *plain = !esc;
      return true;
    }
    if (*q != '\\' || ps->end - q < 2)
      return false;
    esc = true;
    switch (q[1]) {
    case '"': case '\\': case '/': case 'b': case 'f': case 'n': case 'r':
    case 't':
      q += 2;
      break;
    case 'u':
      if (ps->end - q < 6 || hex4(q + 2) < 0)
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

/* A string at ps->p (on its opening quote): unescaped into the arena. */
static nns_status read_string(parser *ps, const char **out, size_t *out_len) {
  const char *close;
  bool plain;
  if (!scan_string(ps, &close, &plain) || !plain)
    return read_string_slow(ps, out, out_len);
  size_t n = (size_t)(close - ps->p - 1);
  char *buf = nns__arena_bytes(ps->a, n + 1);
  if (!buf)
    return NNS_E_NOMEM;
  memcpy(buf, ps->p + 1, n);
  buf[n] = 0;
  ps->p = close + 1;
  *out = buf;
  *out_len = n;
  return NNS_OK;
}

/* A string at ps->p checked and passed over, kept nowhere. */
static nns_status skip_string(parser *ps) {
  const char *close, *s;
  bool plain;
  size_t n;
  if (!scan_string(ps, &close, &plain))
    return read_string_slow(ps, &s, &n); /* its error */
  ps->p = close + 1;
  return NNS_OK;
}

/* ==== Numbers ==== */

static nns_status read_number(parser *ps, nns__jval *v) {
  const char *s = ps->p, *q = s;
  if (q < ps->end && *q == '-')
    q++;
  if (q >= ps->end || *q < '0' || *q > '9')
    return fail(ps, "bad number");
  if (*q == '0')
    q++;
  else
    while (q < ps->end && *q >= '0' && *q <= '9')
      q++;
  bool integral = true;
  if (q < ps->end && *q == '.') {
    integral = false;
    q++;
    if (q >= ps->end || *q < '0' || *q > '9')
      return fail(ps, "bad number");
    while (q < ps->end && *q >= '0' && *q <= '9')
      q++;
  }
  if (q < ps->end && (*q == 'e' || *q == 'E')) {
    integral = false;
    q++;
    if (q < ps->end && (*q == '+' || *q == '-'))
      q++;
    if (q >= ps->end || *q < '0' || *q > '9')
      return fail(ps, "bad number");
    while (q < ps->end && *q >= '0' && *q <= '9')
      q++;
  }
  v->type = NNS__J_NUM;
  bool exact = false;
  if (integral && (size_t)(q - s) < 21) {
    /* Exact when it fits: counts go up to 2^63-1. */
    int64_t acc = 0;
    bool neg = *s == '-', fits = true;
    for (const char *c = s + neg; c < q && fits; c++) {
      int dgt = *c - '0';
      fits = !__builtin_mul_overflow(acc, 10, &acc) &&
             !__builtin_add_overflow(acc, neg ? -dgt : dgt, &acc);
    }
    v->is_int = fits;
    v->i = fits ? acc : 0;
    /* Up to 2^53 a double holds the integer itself, as strtod reads it
     * ("-0" is the negative zero). */
    if (fits && acc >= -(INT64_C(1) << 53) && acc <= INT64_C(1) << 53) {
      v->d = neg && !acc ? -0.0 : (double)acc;
      exact = true;
    }
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
  ps->p = q;
  return NNS_OK;
}

/* ==== Containers ==== */

/* Whether s (NUL-terminated) is the n bytes at t. */
static bool same(const char *s, const char *t, size_t n) {
  return s[0] == t[0] && strlen(s) == n && !memcmp(s, t, n);
}

/* Whether a skip rule may apply to the members of an object under key
 * name (NULL for none): decided once per object. */
static bool may_skip(const parser *ps, const char *name, size_t name_len) {
  for (size_t k = 0; k < ps->n_skip; k++) {
    const char *parent = ps->skip[k].parent;
    if (!parent || (name && same(parent, name, name_len)))
      return true;
  }
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
  uint64_t h = 1469598103934665603ull; /* FNV-1a */
  for (size_t i = 0; i < len; i++)
    h = (h ^ (unsigned char)k[i]) * 1099511628211ull;
  return (size_t)nns__hash_mix(h);
}

/* Puts key index i of f into f's hash set (which has room). */
static void slot_put(const parser *ps, frame *f, size_t i) {
  size_t at = f->base + i;
  size_t s = key_hash(ps->keys[at], ps->klens[at]) & (f->scap - 1);
  while (f->slots[s])
    s = (s + 1) & (f->scap - 1);
  f->slots[s] = (uint32_t)(i + 1);
}

/* True when the open object f already has key k (len bytes). */
static bool key_seen(const parser *ps, const frame *f, const char *k,
                     size_t len) {
  if (!f->n)
    return false; /* the item stack may not exist yet */
  const char *const *keys = ps->keys + f->base;
  const size_t *klens = ps->klens + f->base;
  if (!f->scap) {
    for (size_t i = 0; i < f->n; i++)
      if (klens[i] == len && !memcmp(keys[i], k, len))
        return true;
    return false;
  }
  size_t s = key_hash(k, len) & (f->scap - 1);
  for (; f->slots[s]; s = (s + 1) & (f->scap - 1)) {
    size_t i = f->slots[s] - 1;
    if (klens[i] == len && !memcmp(keys[i], k, len))
      return true;
  }
  return false;
}

/* Appends v to the open container. */
static bool add_item(parser *ps, nns__jval *v) {
  frame *f = &ps->st[ps->depth - 1];
  if (f->n >= UINT32_MAX - 1)
    return false; /* the hash set holds 32-bit indices */
  size_t at = ps->top;
  if (at >= ps->icap || at >= ps->kcap || at >= ps->lcap) {
    nns__jval **items = nns__grow(ps->items, &ps->icap, at + 1,
                                  sizeof *items, 256);
    if (!items)
      return false;
    ps->items = items;
    const char **keys = nns__grow(ps->keys, &ps->kcap, at + 1, sizeof *keys,
                                  256);
    if (!keys)
      return false;
    ps->keys = keys;
    size_t *klens = nns__grow(ps->klens, &ps->lcap, at + 1, sizeof *klens,
                              256);
    if (!klens)
      return false;
    ps->klens = klens;
  }
  ps->items[at] = v;
  ps->keys[at] = f->key;
  ps->klens[at] = f->key_len;
  ps->top++;
  if (f->v->type == NNS__J_OBJ) {
    f->key = NULL;
    size_t n = f->n + 1;
    if (n > KEY_SCAN && 2 * n > f->scap) {
      /* Rehash into twice the room: the set stays at most half full. */
      size_t cap = f->scap ? 2 * f->scap : 4 * KEY_SCAN;
      uint32_t *slots = calloc(cap, sizeof *slots);
      if (!slots)
        return false;
      free(f->slots);
      f->slots = slots;
      f->scap = cap;
      for (size_t i = 0; i < f->n; i++)
        slot_put(ps, f, i);
    }
    if (f->scap)
      slot_put(ps, f, f->n);
  }
  f->n++;
  return true;
}

/* Moves the closed container's items to the arena. */
static bool close_frame(parser *ps) {
  frame *f = &ps->st[--ps->depth];
  bool ok = true;
  f->v->len = f->n;
  if (f->n) {
    f->v->items = nns__arena_array(ps->a, f->n, sizeof *f->v->items);
    ok = f->v->items != NULL;
    if (ok)
      memcpy(f->v->items, ps->items + f->base, f->n * sizeof *f->v->items);
    if (ok && f->v->type == NNS__J_OBJ) {
      f->v->keys = nns__arena_array(ps->a, f->n, sizeof *f->v->keys);
      ok = f->v->keys != NULL;
      if (ok)
        memcpy(f->v->keys, ps->keys + f->base, f->n * sizeof *f->v->keys);
    }
  }
  ps->top = f->base;
  free(f->slots);
  return ok;
}

/* True when the member f->key of open object f is one to skip. */
static bool skip_member(const parser *ps, const frame *f) {
  for (size_t k = 0; k < ps->n_skip; k++) {
    const nns__json_skip *r = &ps->skip[k];
    if (r->parent && !(f->name && same(r->parent, f->name, f->name_len)))
      continue;
    if (same(r->key, f->key, f->key_len))
      return true;
  }
  return false;
}

static bool lit(parser *ps, const char *word) {
  size_t n = strlen(word);
  if ((size_t)(ps->end - ps->p) < n || memcmp(ps->p, word, n))
    return false;
  ps->p += n;
  return true;
}

/* ==== The document ==== */

nns_status nns__json_parse_skip(nns__arena *a, const char *text, size_t len,
                                const nns__json_skip *skip, size_t n_skip,
                                nns__jval **out, nns_error *err) {
  parser ps = {.a = a, .p = text, .start = text, .end = text + len,
               .err = err, .skip = skip, .n_skip = skip ? n_skip : 0};
  nns__jval *root = NULL;
  nns_status st = NNS_OK;
  for (;;) {
    skip_ws(&ps);
    frame *top = ps.depth ? &ps.st[ps.depth - 1] : NULL;
    bool skipping = false;
    /* Inside an object: a key first (or the close). */
    if (top && top->v->type == NNS__J_OBJ && !top->key) {
      if (ps.p < ps.end && *ps.p == '}' && top->n == 0) {
        ps.p++;
        goto closed;
      }
      if (ps.p >= ps.end || *ps.p != '"') {
        st = fail(&ps, "expected a key");
        goto done;
      }
      const char *key_at = ps.p;
      if ((st = read_string(&ps, &top->key, &top->key_len)) != NNS_OK)
        goto done;
      if (key_seen(&ps, top, top->key, top->key_len)) {
        /* RFC 8259 leaves a repeated name undefined and readers differ
         * (first wins, last wins): a budget must not depend on which. */
        char what[160];
        snprintf(what, sizeof what, "duplicate key \"%.*s%s\"",
                 (int)(top->key_len > 64 ? 64 : top->key_len), top->key,
                 top->key_len > 64 ? "..." : "");
        top->key = NULL;
        st = fail_at(&ps, key_at, what);
        goto done;
      }
      skip_ws(&ps);
      if (ps.p >= ps.end || *ps.p != ':') {
        st = fail(&ps, "expected ':'");
        goto done;
      }
      ps.p++;
      skip_ws(&ps);
      skipping = top->skips && skip_member(&ps, top);
    } else if (top && top->v->type == NNS__J_ARR && top->n == 0 &&
               ps.p < ps.end && *ps.p == ']') {
      ps.p++;
      goto closed;
    }
    /* A value. */
    if (ps.p >= ps.end) {
      st = fail(&ps, "unexpected end");
      goto done;
    }
    char c = *ps.p;
    nns__jval *v;
    const char *name = top && top->v->type == NNS__J_OBJ ? top->key : NULL;
    size_t name_len = name ? top->key_len : 0;
    bool opened = false;
    if (skipping && c == '"') {
      /* Checked as any string is, kept as one null for all. */
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
    v = nns__arena_alloc(a, sizeof *v);
    if (!v) {
      st = NNS_E_NOMEM;
      goto done;
    }
    if (c == '{' || c == '[') {
      v->type = c == '{' ? NNS__J_OBJ : NNS__J_ARR;
      ps.p++;
      opened = true;
    } else if (c == '"') {
      v->type = NNS__J_STR;
      if ((st = read_string(&ps, &v->s, &v->len)) != NNS_OK)
        goto done;
    } else if (c == '-' || (c >= '0' && c <= '9')) {
      if ((st = read_number(&ps, v)) != NNS_OK)
        goto done;
    } else if (lit(&ps, "true")) {
      v->type = NNS__J_BOOL;
      v->b = true;
    } else if (lit(&ps, "false")) {
      v->type = NNS__J_BOOL;
    } else if (lit(&ps, "null")) {
      v->type = NNS__J_NULL;
    } else {
      st = fail(&ps, "expected a value");
      goto done;
    }
  add:
    if (top && !add_item(&ps, v)) {
      st = NNS_E_NOMEM;
      goto done;
    }
    if (!top)
      root = v;
    if (opened) {
      if (ps.depth >= NNS__JSON_MAX_DEPTH) {
        st = fail_at(&ps, ps.p - 1,
                     "nesting deeper than " NNS__JSON_MAX_DEPTH_TEXT " levels");
        goto done;
      }
      if (!push(&ps, v, name, name_len)) {
        st = NNS_E_NOMEM;
        goto done;
      }
      continue;
    }
    /* After a value: a comma, or closes. */
    for (;;) {
      skip_ws(&ps);
      if (!ps.depth)
        goto finished;
      frame *f = &ps.st[ps.depth - 1];
      char want = f->v->type == NNS__J_OBJ ? '}' : ']';
      if (ps.p < ps.end && *ps.p == ',') {
        ps.p++;
        break;
      }
      if (ps.p >= ps.end || *ps.p != want) {
        st = fail(&ps, want == '}' ? "expected ',' or '}'"
                                   : "expected ',' or ']'");
        goto done;
      }
      ps.p++;
    closed:
      if (!close_frame(&ps)) {
        st = NNS_E_NOMEM;
        goto done;
      }
    }
  }
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
  free(ps.keys);
  free(ps.klens);
  if (st == NNS_E_NOMEM)
    nns__err(err, NNS_E_NOMEM, -1, NULL, "out of memory reading JSON");
  return st;
}

nns_status nns__json_parse(nns__arena *a, const char *text, size_t len,
                           nns__jval **out, nns_error *err) {
  return nns__json_parse_skip(a, text, len, NULL, 0, out, err);
}

const nns__jval *nns__json_get(const nns__jval *obj, const char *key) {
  if (!obj || obj->type != NNS__J_OBJ)
    return NULL;
  for (size_t i = 0; i < obj->len; i++)
    if (!strcmp(obj->keys[i], key))
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
