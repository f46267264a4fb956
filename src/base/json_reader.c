/*
 * json_reader.c - JSON text to a tree of nns__jval in an arena
 * (json_reader.h). Containers under construction sit on an explicit stack
 * whose items grow in malloc'ed vectors and move to the arena when the
 * container closes, so nesting depth costs heap, never C stack.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "json_reader.h"

typedef struct frame {
  nns__jval *v;        /* the array or object being filled */
  nns__jval **items;   /* malloc'ed until it closes */
  const char **keys;
  size_t n, cap, kcap;
  const char *key;     /* an object's key waiting for its value */
} frame;

typedef struct parser {
  nns__arena *a;
  const char *p, *start, *end;
  nns_error *err;
  frame *st;
  size_t depth, cap;
} parser;

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

/* Appends v to the open container. */
static bool add_item(parser *ps, nns__jval *v) {
  frame *f = &ps->st[ps->depth - 1];
  nns__jval **items = nns__grow(f->items, &f->cap, f->n + 1, sizeof *items, 8);
  if (!items)
    return false;
  f->items = items;
  if (f->v->type == NNS__J_OBJ) {
    const char **keys = nns__grow(f->keys, &f->kcap, f->n + 1, sizeof *keys, 8);
    if (!keys)
      return false;
    f->keys = keys;
    keys[f->n] = f->key;
    f->key = NULL;
  }
  items[f->n++] = v;
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
      memcpy(f->v->items, f->items, f->n * sizeof *f->items);
    if (ok && f->v->type == NNS__J_OBJ) {
      f->v->keys = nns__arena_array(ps->a, f->n, sizeof *f->v->keys);
      ok = f->v->keys != NULL;
      if (ok)
        memcpy(f->v->keys, f->keys, f->n * sizeof *f->keys);
    }
  }
  free(f->items);
  free(f->keys);
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
      size_t klen;
      if ((st = read_string(&ps, &top->key, &klen)) != NNS_OK)
        goto done;
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
    frame *f = &ps.st[--ps.depth];
    free(f->items);
    free(f->keys);
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
