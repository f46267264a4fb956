/*
 * json_writer.c - the streaming JSON writer (json_writer.h): containers,
 * separators and the string escaper.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "base.h"
#include "json_writer.h"

void nns__jw_init(nns__jw *w, nns__out *o) {
  w->o = o;
  w->lv = w->fixed;
  w->cap = sizeof w->fixed / sizeof w->fixed[0];
  w->depth = 0;
  w->lv[0] = (nns__jw_level){.brk = NULL, .brk_len = 0, .empty = true,
                             .array = false};
  w->next_brk = NULL;
  w->after_key = false;
  w->nomem = false;
  memset(w->dbl, 0, sizeof w->dbl);
  w->dbl_next = 0;
}

nns_status nns__jw_finish(nns__jw *w) {
  if (w->lv != w->fixed)
    free(w->lv);
  w->lv = w->fixed;
  w->cap = sizeof w->fixed / sizeof w->fixed[0];
  w->depth = 0;
  return w->nomem ? NNS_E_NOMEM : NNS_OK;
}

void nns__jw_open_deep(nns__jw *w, const char *key, size_t klen,
                       const char *brk, bool array) {
  nns__jw_sep(w, key, klen);
  if (w->depth + 1 >= w->cap) {
    /* Deep documents (a hostile model's module tree) go to the heap; the
     * fixed stack is copied once. */
    size_t cap = w->cap;
    nns__jw_level *lv = nns__grow(w->lv == w->fixed ? NULL : w->lv, &cap,
                                  w->depth + 2, sizeof *lv, 2 * w->cap);
    if (!lv) {
      w->nomem = true;
      w->o->failed = true; /* stop writing: the rest cannot nest */
      return;
    }
    if (w->lv == w->fixed)
      memcpy(lv, w->fixed, sizeof w->fixed);
    w->lv = lv;
    w->cap = cap;
  }
  nns__out_put(w->o, array ? "[" : "{", 1);
  w->lv[++w->depth] = (nns__jw_level){.brk = brk,
                                      .brk_len = brk ? strlen(brk) : 0,
                                      .empty = true, .array = array};
}

void nns__jw_end(nns__jw *w, const char *brk) {
  if (w->depth == 0)
    return;
  nns__jw_level *l = &w->lv[w->depth--];
  if (brk && !l->empty)
    nns__out_put(w->o, brk, strlen(brk));
  nns__out_put(w->o, l->array ? "]" : "}", 1);
  w->next_brk = NULL;
}

void nns__jw_key(nns__jw *w, const char *key) {
  nns__jw_sep(w, NULL, 0);
  nns__json_str(w->o, key ? key : "");
  nns__out_put(w->o, ": ", 2);
  w->after_key = true;
}

void nns__jw_double(nns__jw *w, const char *key, size_t klen, double v,
                    int precision, bool fixed) {
  nns__jw_sep(w, key, klen);
  if (!isfinite(v)) {
    nns__out_put(w->o, "null", 4);
    return;
  }
  /* snprintf's "%g" costs about 2,000 instructions a number, and the
   * roofline's intensities repeat row after row (a 100k-layer summary has
   * five distinct ones in 160k rows): the last few are kept with their
   * text, looked up by their bits, replaced in turn. */
  uint64_t bits;
  memcpy(&bits, &v, sizeof bits);
  for (size_t k = 0; k < sizeof w->dbl / sizeof w->dbl[0]; k++) {
    const nns__jw_dbl *d = &w->dbl[k];
    if (d->len && d->bits == bits && d->precision == precision &&
        d->fixed == fixed) {
      nns__out_put(w->o, d->text, d->len);
      return;
    }
  }
  char buf[64];
  int n = fixed ? snprintf(buf, sizeof buf, "%.*f", precision, v)
                : snprintf(buf, sizeof buf, "%.*g", precision, v);
  if (n <= 0)
    return;
  size_t len = (size_t)n < sizeof buf ? (size_t)n : sizeof buf - 1;
  nns__out_put(w->o, buf, len);
  nns__jw_dbl *slot = &w->dbl[w->dbl_next];
  if (len <= sizeof slot->text) {
    *slot = (nns__jw_dbl){.bits = bits, .precision = precision,
                          .fixed = fixed, .len = (uint8_t)len};
    memcpy(slot->text, buf, len);
    w->dbl_next = (w->dbl_next + 1) % (sizeof w->dbl / sizeof w->dbl[0]);
  }
}

void nns__jw_strn(nns__jw *w, const char *key, size_t klen, const char *s,
                  size_t n) {
  nns__jw_sep(w, key, klen);
  nns__json_strn(w->o, s, n);
}

void nns__json_str(nns__out *o, const char *s) {
  if (!s) {
    nns__out_put(o, "null", 4);
    return;
  }
  nns__json_strn(o, s, strlen(s));
}

/* Whether any of the 8 bytes at p is not printable ASCII (below 0x20,
 * 0x7f or above) or is '"' or '\\': the classic "has a byte less than n"
 * and "has a zero byte" word tests, which may only err towards true. */
static bool special8(const unsigned char *p) {
  const uint64_t ones = 0x0101010101010101u, highs = 0x8080808080808080u;
  uint64_t w;
  memcpy(&w, p, sizeof w);
  uint64_t q = w ^ (ones * '"'), b = w ^ (ones * '\\');
  uint64_t below = (w - ones * 0x20) & ~w;    /* a byte < 0x20 */
  uint64_t high = w | (w + ones);             /* a byte >= 0x7f */
  uint64_t quote = (q - ones) & ~q;           /* a '"' */
  uint64_t slash = (b - ones) & ~b;           /* a '\\' */
  return ((below | high | quote | slash) & highs) != 0;
}

void nns__json_strn(nns__out *o, const char *s, size_t len) {
  if (!s) {
    nns__out_put(o, "null", 4);
    return;
  }
  nns__out_put(o, "\"", 1);
  const unsigned char *p = (const unsigned char *)s, *run = p,
                      *end = p + len;
  while (p < end) {
    /* Fastest path: eight bytes of printable ASCII without '"' or '\\'
     * (names are) pass in one test. */
    if (end - p >= 8 && !special8(p)) {
      p += 8;
      continue;
    }
    /* Fast path: printable ASCII that needs no escape. */
    if (*p >= 0x20 && *p < 0x7f && *p != '"' && *p != '\\') {
      p++;
      continue;
    }
    /* A sequence cut by the end of the slice is not UTF-8: nns__utf8_len
     * stops at a NUL, and the slice's end is checked here. */
    size_t n = 0;
    if ((size_t)(end - p) >= 4) {
      n = nns__utf8_len(p);
    } else if (*p) {
      unsigned char tail[5] = {0};
      memcpy(tail, p, (size_t)(end - p));
      n = nns__utf8_len(tail);
    }
    /* C1 controls (U+0080-U+009F) and DEL are escaped too: a terminal
     * acts on them as on ESC. */
    bool c1 = n == 2 && p[0] == 0xc2 && p[1] < 0xa0;
    if (n > 1 && !c1) {
      p += n;
      continue;
    }
    nns__out_put(o, (const char *)run, (size_t)(p - run));
    switch (*p) {
    case '"': nns__out_put(o, "\\\"", 2); break;
    case '\\': nns__out_put(o, "\\\\", 2); break;
    case '\n': nns__out_put(o, "\\n", 2); break;
    case '\r': nns__out_put(o, "\\r", 2); break;
    case '\t': nns__out_put(o, "\\t", 2); break;
    default:
      if (n == 0 && *p >= 0x80) {
        nns__out_put(o, "\\ufffd", 6);
      } else {
        char u[8];
        snprintf(u, sizeof u, "\\u%04x", c1 ? p[1] : *p);
        nns__out_put(o, u, 6);
      }
    }
    p += c1 ? 2 : 1;
    run = p;
  }
  nns__out_put(o, (const char *)run, (size_t)(p - run));
  nns__out_put(o, "\"", 1);
}
