/*
 * sym.c - symbolic dims.
 *
 * A symbol is an atom (a named dim such as "batch", or an anonymous unknown)
 * or a monomial coef * a1 * a2 ... over atoms. Monomials are canonical
 * (factors sorted) and deduplicated, so "batch*seq" computed twice is the
 * same symbol, and dividing it by "seq" gives "batch" back: that is what
 * Reshape round trips in transformer exports need. Anything else (sums,
 * inexact quotients) becomes an opaque symbol memoised on its operation and
 * operands, so the same expression still compares equal.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ir.h"

/* Keys of memoised symbols start with a byte no real dim name uses. */
#define KEY_PREFIX "\x01"

static uint32_t sym_push(nns_model *m, const nns__symbol *s) {
  if (m->n_syms == UINT32_MAX)
    return 0; /* symbols are numbered with 32 bits */
  if (m->n_syms == m->cap_syms) {
    nns__symbol *syms = nns__grow(m->syms, &m->cap_syms,
                                  (size_t)m->n_syms + 1, sizeof *syms, 16);
    if (!syms)
      return 0;
    m->syms = syms;
  }
  m->syms[m->n_syms] = *s;
  return m->n_syms++;
}

uint32_t nns__sym_named(nns_model *m, const char *name) {
  uintptr_t id = (uintptr_t)nns__map_get(&m->sym_by_name, name);
  if (id)
    return (uint32_t)id;
  nns__symbol s = {.name = name, .coef = 1};
  uint32_t nid = sym_push(m, &s);
  if (nid && !nns__map_put(&m->sym_by_name, name, (void *)(uintptr_t)nid))
    return 0;
  return nid;
}

bool nns__sym_name_anonymous(nns_model *m, uint32_t id, const char *base) {
  if (!id || id >= m->n_syms || m->syms[id].name || m->syms[id].n_factors)
    return true;
  size_t n = strlen(base);
  char *buf = malloc(n + 24);
  if (!buf)
    return false;
  memcpy(buf, base, n + 1);
  /* A model that already uses the name for another dim keeps it; ours
   * takes a suffix. */
  const char *name = NULL;
  for (unsigned k = 1;; k++) {
    name = nns__intern_cstr(&m->strings, buf);
    if (!name || !nns__map_get(&m->sym_by_name, name))
      break;
    snprintf(buf + n, 24, "_%u", k);
  }
  free(buf);
  if (!name || !nns__map_put(&m->sym_by_name, name, (void *)(uintptr_t)id))
    return false;
  m->syms[id].name = name;
  return true;
}

uint32_t nns__sym_fresh(nns_model *m) {
  nns__symbol s = {.name = NULL, .coef = 1};
  return sym_push(m, &s);
}

const nns__symbol *nns__sym_get(const nns_model *m, uint32_t id) {
  return id && id < m->n_syms ? &m->syms[id] : NULL;
}

/* Looks up or creates the symbol memoised under `key`, named `name`. */
static uint32_t sym_memo(nns_model *m, const char *key, const char *name,
                         const nns__symbol *shape) {
  const char *k = nns__intern_cstr(&m->strings, key);
  if (!k)
    return 0;
  uintptr_t id = (uintptr_t)nns__map_get(&m->sym_by_name, k);
  if (id)
    return (uint32_t)id;
  nns__symbol s = shape ? *shape : (nns__symbol){.coef = 1};
  s.name = name ? nns__intern_cstr(&m->strings, name) : NULL;
  uint32_t nid = sym_push(m, &s);
  if (nid && !nns__map_put(&m->sym_by_name, k, (void *)(uintptr_t)nid))
    return 0;
  return nid;
}

/* The symbol memoised under key[0, kl), which is interned into *k: 0 when
 * there is none yet, or when *k is NULL (out of memory). */
static uint32_t memo_find(nns_model *m, const char *key, size_t kl,
                          const char **k) {
  *k = nns__intern(&m->strings, key, kl);
  return *k ? (uint32_t)(uintptr_t)nns__map_get(&m->sym_by_name, *k) : 0;
}

/* Appends v in hex to key[*len] (bounded); a cheap, unambiguous encoding. */
static void key_hex(char *key, size_t size, size_t *len, uint64_t v) {
  char tmp[16];
  int n = 0;
  do
    tmp[n++] = "0123456789abcdef"[v & 15];
  while (v >>= 4);
  while (n && *len + 1 < size)
    key[(*len)++] = tmp[--n];
  key[*len] = 0;
}

/* Copies name into out, in parentheses when it holds an operator that
 * binds looser than `op` ("seq+1" inside a quotient prints "(seq+1)/2"). */
static void operand(char *out, size_t size, const char *name, char op) {
  const char *loose = op == '*' ? "+-/%" : "+-*/%";
  bool wrap = false;
  for (const char *c = name + (name[0] == '-'); *c && !wrap; c++)
    wrap = strchr(loose, *c) != NULL;
  snprintf(out, size, wrap ? "(%s)" : "%s", name);
}

static nns__dim dim_sym(uint32_t id) {
  nns__dim d = {0, id};
  return d;
}

static nns__dim dim_fresh(nns_model *m) { return dim_sym(nns__sym_fresh(m)); }

/* ==== Monomials ==== */

typedef struct mono {
  int64_t coef;
  uint32_t n;
  uint32_t f[2 * NNS__SYM_MAX_FACTORS];
} mono;

static void mono_of(const nns_model *m, nns__dim d, mono *out) {
  out->n = 0;
  if (!d.sym) {
    out->coef = d.v;
    return;
  }
  const nns__symbol *s = &m->syms[d.sym];
  if (s->n_factors == 0) {
    out->coef = 1;
    out->n = 1;
    out->f[0] = d.sym;
    return;
  }
  out->coef = s->coef;
  out->n = s->n_factors;
  memcpy(out->f, s->factors, s->n_factors * sizeof out->f[0]);
}

/* The dim for a canonical monomial, creating its symbol when needed. The
 * key is built without printf and the name only for a new symbol: shape
 * arithmetic asks for the same monomials over and over. */
static nns__dim mono_dim(nns_model *m, const mono *p) {
  if (p->coef == 0 || p->n == 0)
    return nns__dim_known(p->coef);
  if (p->coef == 1 && p->n == 1)
    return dim_sym(p->f[0]);
  if (p->n > NNS__SYM_MAX_FACTORS)
    return dim_fresh(m);
  char key[160];
  size_t kl = 0;
  key[kl++] = KEY_PREFIX[0];
  key[kl++] = 'm';
  key_hex(key, sizeof key, &kl, (uint64_t)p->coef);
  for (uint32_t i = 0; i < p->n; i++) {
    key[kl++] = ',';
    key_hex(key, sizeof key, &kl, p->f[i]);
  }
  const char *k;
  uint32_t id = memo_find(m, key, kl, &k);
  if (id || !k)
    return id ? dim_sym(id) : dim_fresh(m);
  char name[256];
  int nl = 0;
  bool named = true;
  if (p->coef != 1)
    nl = snprintf(name, sizeof name, "%lld", (long long)p->coef);
  for (uint32_t i = 0; i < p->n && named; i++) {
    const char *fn = m->syms[p->f[i]].name;
    if (!fn)
      named = false;
    else if (nl < (int)sizeof name) {
      char f[128];
      operand(f, sizeof f, fn, '*');
      nl += snprintf(name + nl, sizeof name - (size_t)nl, "%s%s",
                     nl ? "*" : "", f);
    }
  }
  if (nl >= (int)sizeof name - 1)
    named = false;
  nns__symbol shape = {.coef = p->coef, .n_factors = p->n};
  memcpy(shape.factors, p->f, p->n * sizeof p->f[0]);
  return dim_sym(sym_memo(m, k, named ? name : NULL, &shape));
}

static int cmp_u32(const void *a, const void *b) {
  uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
  return (x > y) - (x < y);
}

/* An opaque symbol for `op` over a and b, named when both are printable.
 * Looked up by a printf-free key first; the name is made only once. */
static nns__dim opaque(nns_model *m, const char *op, nns__dim a, nns__dim b) {
  char key[96];
  size_t kl = 0;
  key[kl++] = KEY_PREFIX[0];
  key[kl++] = op[0];
  key_hex(key, sizeof key, &kl, (uint64_t)a.v);
  key[kl++] = ':';
  key_hex(key, sizeof key, &kl, a.sym);
  key[kl++] = ':';
  key_hex(key, sizeof key, &kl, (uint64_t)b.v);
  key[kl++] = ':';
  key_hex(key, sizeof key, &kl, b.sym);
  const char *k;
  uint32_t id = memo_find(m, key, kl, &k);
  if (id || !k)
    return id ? dim_sym(id) : dim_fresh(m);
  char name[256], an[96], bn[96], ao[100], bo[100];
  nns__dim_str(m, a, an, sizeof an);
  nns__dim_str(m, b, bn, sizeof bn);
  bool named = strcmp(an, "?") != 0 && strcmp(bn, "?") != 0 &&
               strlen(an) + strlen(bn) < 60;
  if (named) {
    /* The left operand of + and - needs no parentheses; everything else
     * that is compound does. */
    if (op[0] == '+' || op[0] == '-')
      snprintf(ao, sizeof ao, "%s", an);
    else
      operand(ao, sizeof ao, an, op[0]);
    operand(bo, sizeof bo, bn, op[0] == '+' ? '*' : op[0]);
    snprintf(name, sizeof name, "%s%s%s", ao, op, bo);
  }
  return dim_sym(sym_memo(m, k, named ? name : NULL, NULL));
}

/* ==== Arithmetic ==== */

nns__dim nns__dim_mul(nns_model *m, nns__dim a, nns__dim b) {
  if (!a.sym && !b.sym) {
    int64_t r;
    return nns__mul_i64(a.v, b.v, &r) ? nns__dim_known(r) : dim_fresh(m);
  }
  if ((!a.sym && a.v == 0) || (!b.sym && b.v == 0))
    return nns__dim_known(0);
  mono x, y, p;
  mono_of(m, a, &x);
  mono_of(m, b, &y);
  if (!nns__mul_i64(x.coef, y.coef, &p.coef) ||
      x.n + y.n > NNS__SYM_MAX_FACTORS)
    return dim_fresh(m);
  p.n = x.n + y.n;
  memcpy(p.f, x.f, x.n * sizeof p.f[0]);
  memcpy(p.f + x.n, y.f, y.n * sizeof p.f[0]);
  qsort(p.f, p.n, sizeof p.f[0], cmp_u32);
  return mono_dim(m, &p);
}

static int64_t floor_div(int64_t a, int64_t b) {
  int64_t q = a / b;
  if ((a % b != 0) && ((a < 0) != (b < 0)))
    q--;
  return q;
}

nns__dim nns__dim_div(nns_model *m, nns__dim a, nns__dim b) {
  if (!b.sym && b.v == 0)
    return dim_fresh(m);
  if (!a.sym && !b.sym) {
    if (a.v == INT64_MIN && b.v == -1)
      return dim_fresh(m);
    return nns__dim_known(floor_div(a.v, b.v));
  }
  if (!b.sym && b.v == 1)
    return a;
  if (nns__dim_eq(a, b))
    return nns__dim_known(1);
  mono x, y;
  mono_of(m, a, &x);
  mono_of(m, b, &y);
  /* Exact division: every factor of b in a, and the coefficients divide. */
  if (y.coef != 0 && x.coef % y.coef == 0) {
    mono q = {.coef = x.coef / y.coef};
    uint32_t j = 0;
    bool ok = true;
    for (uint32_t i = 0; i < x.n; i++) {
      if (j < y.n && x.f[i] == y.f[j])
        j++;
      else if (j < y.n && x.f[i] > y.f[j]) {
        ok = false;
        break;
      } else
        q.f[q.n++] = x.f[i];
    }
    if (ok && j == y.n)
      return mono_dim(m, &q);
  }
  return opaque(m, "/", a, b);
}

nns__dim nns__dim_add(nns_model *m, nns__dim a, nns__dim b) {
  if (!a.sym && !b.sym) {
    int64_t r;
    return nns__add_i64(a.v, b.v, &r) ? nns__dim_known(r) : dim_fresh(m);
  }
  if (!a.sym && a.v == 0)
    return b;
  if (!b.sym && b.v == 0)
    return a;
  return opaque(m, "+", a, b);
}

nns__dim nns__dim_sub(nns_model *m, nns__dim a, nns__dim b) {
  if (!a.sym && !b.sym) {
    int64_t r;
    return !__builtin_sub_overflow(a.v, b.v, &r) ? nns__dim_known(r)
                                                  : dim_fresh(m);
  }
  if (nns__dim_eq(a, b))
    return nns__dim_known(0);
  if (!b.sym && b.v == 0)
    return a;
  return opaque(m, "-", a, b);
}

nns__dim nns__dim_mod(nns_model *m, nns__dim a, nns__dim b) {
  if (!a.sym && !b.sym) {
    if (b.v == 0 || (a.v == INT64_MIN && b.v == -1))
      return dim_fresh(m);
    int64_t r = a.v % b.v;
    if (r != 0 && ((r < 0) != (b.v < 0)))
      r += b.v; /* Python-style modulo, as ONNX Mod with fmod=0 */
    return nns__dim_known(r);
  }
  if (nns__dim_eq(a, b))
    return nns__dim_known(0);
  return opaque(m, "%", a, b);
}

nns__dim nns__dim_neg(nns_model *m, nns__dim a) {
  return nns__dim_mul(m, a, nns__dim_known(-1));
}

const char *nns__dim_str(const nns_model *m, nns__dim d, char *buf,
                         size_t size) {
  if (!d.sym)
    snprintf(buf, size, "%lld", (long long)d.v);
  else {
    const nns__symbol *s = nns__sym_get(m, d.sym);
    snprintf(buf, size, "%s", s && s->name ? s->name : "?");
  }
  return buf;
}
