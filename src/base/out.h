/*
 * out.h - buffered output over a caller's write callback: every report and
 * every JSON document goes through one. Writes collect in a buffer and
 * reach the callback in blocks, so a report of a large model is a few
 * hundred calls, not a million. Knows nothing but libc and the public
 * header's nns_write_fn.
 */
#ifndef NNS_BASE_OUT_H
#define NNS_BASE_OUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "nnscan.h"

typedef struct nns__out {
  nns_write_fn write; /* the caller's callback */
  void *user;         /* passed back to it */
  bool failed;        /* the callback asked to stop: later writes are dropped */
  size_t len;         /* bytes waiting in buf */
  char buf[8192];
} nns__out;

void nns__out_init(nns__out *o, nns_write_fn write, void *user);
/* What does not fit the buffer: flush, or write straight through. */
void nns__out_put_slow(nns__out *o, const char *s, size_t n);
/* Inline: reports are written a few bytes at a time (a 100k-layer JSON
 * makes tens of millions of calls), and a literal's strlen folds away. */
static inline void nns__out_put(nns__out *o, const char *s, size_t n) {
  if (!o->failed && n <= sizeof o->buf - o->len) {
    memcpy(o->buf + o->len, s, n);
    o->len += n;
  } else {
    nns__out_put_slow(o, s, n);
  }
}
static inline void nns__out_str(nns__out *o, const char *s) {
  nns__out_put(o, s, strlen(s));
}
/* A decimal integer, without printf: JSON reports and the shapes of large
 * graphs write thousands. */
void nns__out_int(nns__out *o, int64_t v);
void nns__out_fmt(nns__out *o, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* Flushes; NNS_E_IO (with err filled) if the callback asked to stop. */
nns_status nns__out_finish(nns__out *o, nns_error *err);

/* Length of the valid UTF-8 sequence at p, or 0 if it is not one
 * (overlong forms and surrogates are not UTF-8 either). */
size_t nns__utf8_len(const unsigned char *p);

#endif
