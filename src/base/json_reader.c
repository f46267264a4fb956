/*
 * json_reader.c - JSON text to a tree of nns__jval in an arena
 * (json_reader.h). Containers under construction sit on an explicit stack
 * whose items grow in malloc'ed vectors and move to the arena when the
 * container closes, so nesting depth costs heap, never C stack.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json_reader.h"

typedef struct frame {
  nns__jval *v;        /* the array or object being filled */
  nns__jval **items;   /* malloc'ed until it closes */
  const char **keys;   /* an object's keys so far, malloc'ed until it closes */
  size_t *klens;       /* their lengths in bytes (a key may hold NULs) */
  size_t n, cap, kcap, lcap;
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
  while (ps->p < ps->end && (*ps->p == ' ' || *ps->p == '\t' ||
                             *ps->p == '\n' || *ps->p == '\r'))
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

/* A string at ps->p (on its opening quote): unescaped into the arena. */
static nns_status read_string(parser *ps, const char **out, size_t *out_len) {
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
  char buf[64];
  size_t len = (size_t)(q - s);
  if (len >= sizeof buf)
    len = sizeof buf - 1; /* digits past 63 add nothing a double keeps */
  memcpy(buf, s, len);
  buf[len] = 0;
  v->type = NNS__J_NUM;
  v->d = strtod(buf, NULL);
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
  }
  ps->p = q;
  return NNS_OK;
}

static bool push(parser *ps, nns__jval *v) {
  frame *st = nns__grow(ps->st, &ps->cap, ps->depth + 1, sizeof *st, 16);
  if (!st)
    return false;
  ps->st = st;
  st[ps->depth++] = (frame){.v = v};
  return true;
}

static size_t key_hash(const char *k, size_t len) {
  uint64_t h = 1469598103934665603ull; /* FNV-1a */
  for (size_t i = 0; i < len; i++)
    h = (h ^ (unsigned char)k[i]) * 1099511628211ull;
  return (size_t)nns__hash_mix(h);
}

/* Puts key index i into f's hash set (which has room). */
static void slot_put(frame *f, size_t i) {
  size_t s = key_hash(f->keys[i], f->klens[i]) & (f->scap - 1);
  while (f->slots[s])
    s = (s + 1) & (f->scap - 1);
  f->slots[s] = (uint32_t)(i + 1);
}

/* True when the open object f already has key k (len bytes). */
static bool key_seen(const frame *f, const char *k, size_t len) {
  if (!f->scap) {
    for (size_t i = 0; i < f->n; i++)
      if (f->klens[i] == len && !memcmp(f->keys[i], k, len))
        return true;
    return false;
  }
  size_t s = key_hash(k, len) & (f->scap - 1);
  for (; f->slots[s]; s = (s + 1) & (f->scap - 1)) {
    size_t i = f->slots[s] - 1;
    if (f->klens[i] == len && !memcmp(f->keys[i], k, len))
      return true;
  }
  return false;
}

/* Appends v to the open container. */
static bool add_item(parser *ps, nns__jval *v) {
  frame *f = &ps->st[ps->depth - 1];
  if (f->n >= UINT32_MAX - 1)
    return false; /* the hash set holds 32-bit indices */
  nns__jval **items = nns__grow(f->items, &f->cap, f->n + 1, sizeof *items, 8);
  if (!items)
    return false;
  f->items = items;
  if (f->v->type == NNS__J_OBJ) {
    const char **keys = nns__grow(f->keys, &f->kcap, f->n + 1, sizeof *keys, 8);
    if (!keys)
      return false;
    f->keys = keys;
    size_t *klens = nns__grow(f->klens, &f->lcap, f->n + 1, sizeof *klens, 8);
    if (!klens)
      return false;
    f->klens = klens;
    keys[f->n] = f->key;
    klens[f->n] = f->key_len;
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
        slot_put(f, i);
    }
    if (f->scap)
      slot_put(f, f->n);
  }
  items[f->n++] = v;
  return true;
}

static void free_frame(frame *f) {
  free(f->items);
  free(f->keys);
  free(f->klens);
  free(f->slots);
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
      memcpy(f->v->items, f->items, f->n * sizeof *f->items);
    if (ok && f->v->type == NNS__J_OBJ) {
      f->v->keys = nns__arena_array(ps->a, f->n, sizeof *f->v->keys);
      ok = f->v->keys != NULL;
      if (ok)
        memcpy(f->v->keys, f->keys, f->n * sizeof *f->keys);
    }
  }
  free_frame(f);
  return ok;
}

static bool lit(parser *ps, const char *word) {
  size_t n = strlen(word);
  if ((size_t)(ps->end - ps->p) < n || memcmp(ps->p, word, n))
    return false;
  ps->p += n;
  return true;
}

nns_status nns__json_parse(nns__arena *a, const char *text, size_t len,
                           nns__jval **out, nns_error *err) {
  parser ps = {.a = a, .p = text, .start = text, .end = text + len,
               .err = err};
  nns__jval *root = NULL;
  nns_status st = NNS_OK;
  for (;;) {
    skip_ws(&ps);
    frame *top = ps.depth ? &ps.st[ps.depth - 1] : NULL;
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
      if (key_seen(top, top->key, top->key_len)) {
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
    nns__jval *v = nns__arena_alloc(a, sizeof *v);
    if (!v) {
      st = NNS_E_NOMEM;
      goto done;
    }
    char c = *ps.p;
    bool opened = false;
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
      if (!push(&ps, v)) {
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
  while (ps.depth) {
    free_frame(&ps.st[--ps.depth]);
  }
  free(ps.st);
  if (st == NNS_E_NOMEM)
    nns__err(err, NNS_E_NOMEM, -1, NULL, "out of memory reading JSON");
  return st;
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
