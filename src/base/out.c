/*
 * out.c - the buffered writer every report and JSON document goes through
 * (out.h), its integers without printf, and UTF-8 validation: the one
 * check the JSON writer and the text cleaner share.
 */
#include <stdarg.h>
#include <stdio.h>

#include "base.h"
#include "out.h"

void nns__out_init(nns__out *o, nns_write_fn write, void *user) {
  o->write = write;
  o->user = user;
  o->failed = false;
  o->len = 0;
}

static void out_flush(nns__out *o) {
  if (o->len && !o->failed && o->write(o->user, o->buf, o->len) != 0)
    o->failed = true;
  o->len = 0;
}

void nns__out_put_slow(nns__out *o, const char *s, size_t n) {
  if (o->failed)
    return;
  if (o->len + n > sizeof o->buf) {
    out_flush(o);
    if (n > sizeof o->buf) {
      /* Larger than the buffer: straight through. */
      if (!o->failed && o->write(o->user, s, n) != 0)
        o->failed = true;
      return;
    }
  }
  memcpy(o->buf + o->len, s, n);
  o->len += n;
}

/* Two digits per division: a 100k-node summary writes millions of
 * numbers, most of them small. */
static const char digit_pairs[201] =
    "00010203040506070809101112131415161718192021222324252627282930313233"
    "34353637383940414243444546474849505152535455565758596061626364656667"
    "6869707172737475767778798081828384858687888990919293949596979899";

void nns__out_int(nns__out *o, int64_t v) {
  if (v >= 0 && v < 10) {
    char c = (char)('0' + v);
    nns__out_put(o, &c, 1);
    return;
  }
  char buf[24], *p = buf + sizeof buf;
  uint64_t u = v < 0 ? 0 - (uint64_t)v : (uint64_t)v;
  while (u >= 100) {
    p -= 2;
    memcpy(p, digit_pairs + 2 * (u % 100), 2);
    u /= 100;
  }
  if (u >= 10) {
    p -= 2;
    memcpy(p, digit_pairs + 2 * u, 2);
  } else {
    *--p = (char)('0' + u);
  }
  if (v < 0)
    *--p = '-';
  nns__out_put(o, p, (size_t)(buf + sizeof buf - p));
}

void nns__out_fmt(nns__out *o, const char *fmt, ...) {
  char tmp[1024];
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(tmp, sizeof tmp, fmt, ap);
  va_end(ap);
  if (n < 0)
    return;
  /* Callers format numbers and short names; a longer result is cut, never
   * overrun. */
  nns__out_put(o, tmp, (size_t)n < sizeof tmp ? (size_t)n : sizeof tmp - 1);
}

nns_status nns__out_finish(nns__out *o, nns_error *err) {
  out_flush(o);
  if (o->failed) {
    if (err) {
      memset(err, 0, sizeof *err);
      err->code = NNS_E_IO;
      err->offset = -1;
      snprintf(err->message, sizeof err->message, "%s",
               "the report's write callback asked to stop");
    }
    return NNS_E_IO;
  }
  return NNS_OK;
}

size_t nns__utf8_len(const unsigned char *p) {
  if (p[0] < 0x80)
    return 1;
  size_t n = p[0] >= 0xf0 ? 4 : p[0] >= 0xe0 ? 3 : p[0] >= 0xc2 ? 2 : 0;
  if (n == 0 || p[0] > 0xf4)
    return 0;
  for (size_t i = 1; i < n; i++)
    if ((p[i] & 0xc0) != 0x80)
      return 0;
  /* Overlong forms and surrogates are not UTF-8 either. */
  if ((p[0] == 0xe0 && p[1] < 0xa0) || (p[0] == 0xed && p[1] > 0x9f) ||
      (p[0] == 0xf0 && p[1] < 0x90) || (p[0] == 0xf4 && p[1] > 0x8f))
    return 0;
  return n;
}
