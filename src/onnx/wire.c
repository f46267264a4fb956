/*
 * wire.c - the protobuf wire decoder (see wire.h). Every read is checked
 * against the end of the message before it happens, so a hostile length or
 * a cut file gives an error with the byte offset instead of a stray read.
 */
#include <stdio.h>
#include <string.h>

#include "wire.h"

/* ==== Varints ==== */

enum { VARINT_OK, VARINT_CUT, VARINT_BAD };

/*
 * Reads a varint from p[*pos..end). A varint has at most 10 bytes and the
 * tenth may only carry the top bit of a 64-bit number.
 */
static int read_varint(const uint8_t *p, size_t end, size_t *pos,
                       uint64_t *out) {
  size_t i = *pos;
  if (i < end && p[i] < 0x80) { /* the common one-byte case */
    *out = p[i];
    *pos = i + 1;
    return VARINT_OK;
  }
  uint64_t v = 0;
  for (int k = 0; k < 10; k++, i++) {
    if (i >= end)
      return VARINT_CUT;
    uint8_t b = p[i];
    if (k == 9 && b > 1)
      return VARINT_BAD; /* an 11th byte would follow, or 64 bits overflow */
    v |= (uint64_t)(b & 0x7f) << (7 * k);
    if (b < 0x80) {
      *out = v;
      *pos = i + 1;
      return VARINT_OK;
    }
  }
  return VARINT_BAD; /* not reached: k == 9 returns above */
}

nns_status nns__wire_varint(const uint8_t *p, size_t len, size_t *pos,
                            uint64_t *out, int64_t origin, const char *what,
                            nns_error *err) {
  size_t start = *pos;
  int r = read_varint(p, len, pos, out);
  if (r == VARINT_CUT)
    return nns__err(err, NNS_E_TRUNCATED, origin + (int64_t)start, NULL,
                    "%s at byte %lld: varint cut off by the end of the data "
                    "(ends at %lld)",
                    what, (long long)(origin + (int64_t)start),
                    (long long)(origin + (int64_t)len));
  if (r == VARINT_BAD)
    return nns__err(err, NNS_E_VARINT, origin + (int64_t)start, NULL,
                    "%s at byte %lld: varint longer than 10 bytes or "
                    "beyond 64 bits",
                    what, (long long)(origin + (int64_t)start));
  return NNS_OK;
}

/* ==== Names and errors ==== */

const char *nns__wire_fname(const nns__wire *w, const nns__field *f,
                            char *buf, size_t size) {
  const nns__pbmsg *msg = w->msg;
  if (f->num < msg->n_fields && msg->fields[f->num].name)
    snprintf(buf, size, "%s.%s", msg->name, msg->fields[f->num].name);
  else
    snprintf(buf, size, "%s field %u", msg->name, (unsigned)f->num);
  return buf;
}

nns_status nns__wire_fail(const nns__wire *w, const nns__field *f,
                          nns_status code, const char *fmt, ...) {
  if (!w->err)
    return code;
  char name[96], what[400];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(what, sizeof what, fmt, ap);
  va_end(ap);
  return nns__err(w->err, code, f->offset, NULL, "%s at byte %lld: %s",
                  nns__wire_fname(w, f, name, sizeof name),
                  (long long)f->offset, what);
}

static const char *wt_name(unsigned wt) {
  static const char *const names[8] = {"varint", "fixed64", "length-delimited",
                                       "group start", "group end", "fixed32",
                                       "invalid (6)", "invalid (7)"};
  return names[wt & 7];
}

/* ==== Readers ==== */

void nns__wire_init(nns__wire *w, const uint8_t *buf, size_t size,
                    int64_t origin, const nns__pbmsg *msg, int max_depth,
                    nns_error *err) {
  w->buf = buf;
  w->size = size;
  w->pos = 0;
  w->end = size;
  w->origin = origin;
  w->depth = 0;
  w->max_depth = max_depth;
  w->msg = msg;
  w->err = err;
}

/* One bit per wire type, per kind (wire.h): what the schema allows. */
const uint8_t nns__wire_allowed[8] = {
    [NNS__PB_UNKNOWN] = 0xff,
    [NNS__PB_VARINT] = 1 << NNS__WT_VARINT,
    [NNS__PB_I64] = 1 << NNS__WT_I64,
    [NNS__PB_LEN] = 1 << NNS__WT_LEN,
    [NNS__PB_I32] = 1 << NNS__WT_I32,
    [NNS__PB_REP_VARINT] = 1 << NNS__WT_VARINT | 1 << NNS__WT_LEN,
    [NNS__PB_REP_I32] = 1 << NNS__WT_I32 | 1 << NNS__WT_LEN,
    [NNS__PB_REP_I64] = 1 << NNS__WT_I64 | 1 << NNS__WT_LEN};

static inline bool kind_allows(uint8_t kind, unsigned wt) {
  return kind >= 8 || (nns__wire_allowed[kind] >> (wt & 7) & 1);
}

static const char *kind_expects(uint8_t kind) {
  switch (kind) {
  case NNS__PB_VARINT:
    return "varint";
  case NNS__PB_I64:
    return "fixed64";
  case NNS__PB_LEN:
    return "length-delimited";
  case NNS__PB_I32:
    return "fixed32";
  case NNS__PB_REP_VARINT:
    return "varint or packed";
  case NNS__PB_REP_I32:
    return "fixed32 or packed";
  case NNS__PB_REP_I64:
    return "fixed64 or packed";
  default:
    return "any";
  }
}

/* Reads a varint inside the field that starts at f, failing at f. */
static nns_status field_varint(nns__wire *w, const nns__field *f,
                               uint64_t *out, const char *part) {
  size_t start = w->pos;
  int r = read_varint(w->buf, w->end, &w->pos, out);
  if (r == VARINT_CUT)
    return nns__wire_fail(w, f, NNS_E_TRUNCATED,
                          "%s cut off by the end of the %s (ends at %lld)",
                          part, w->end == w->size ? "data" : "message",
                          (long long)(w->origin + (int64_t)w->end));
  if (r == VARINT_BAD) {
    /* The offending bytes are the varint itself, not the tag before it. */
    nns__field at = *f;
    at.offset = w->origin + (int64_t)start;
    return nns__wire_fail(w, &at, NNS_E_VARINT,
                          "%s is a varint longer than 10 bytes or beyond "
                          "64 bits",
                          part);
  }
  return NNS_OK;
}

nns_status nns__wire_next_full(nns__wire *w, nns__field *f) {
  nns__field_end(f);
  if (w->pos >= w->end)
    return NNS_OK;
  f->offset = w->origin + (int64_t)w->pos;

  uint64_t tag;
  nns_status st = field_varint(w, f, &tag, "field tag");
  if (st != NNS_OK)
    return st;
  unsigned wt = (unsigned)(tag & 7);
  uint64_t num = tag >> 3;
  f->wt = (uint8_t)wt;
  if (num == 0 || num > 0x1fffffff)
    return nns__wire_fail(w, f, NNS_E_WIRETYPE,
                          "invalid field number %llu (tag %llu)",
                          (unsigned long long)num, (unsigned long long)tag);
  f->num = (uint32_t)num;

  size_t left = w->end - w->pos;
  switch (wt) {
  case NNS__WT_VARINT:
    st = field_varint(w, f, &f->u, "varint value");
    if (st != NNS_OK)
      return st;
    break;
  case NNS__WT_I64:
  case NNS__WT_I32: {
    size_t n = wt == NNS__WT_I64 ? 8 : 4;
    if (left < n)
      return nns__wire_fail(w, f, NNS_E_TRUNCATED,
                            "%zu-byte value cut off by the end of the %s "
                            "(ends at %lld)",
                            n, w->end == w->size ? "data" : "message",
                            (long long)(w->origin + (int64_t)w->end));
    f->u = n == 8 ? nns__le64(w->buf + w->pos) : nns__le32(w->buf + w->pos);
    w->pos += n;
    break;
  }
  case NNS__WT_LEN: {
    uint64_t len;
    st = field_varint(w, f, &len, "length");
    if (st != NNS_OK)
      return st;
    left = w->end - w->pos;
    if (len > left) {
      /* Past the whole buffer the data is cut; inside it, the length
       * disagrees with the enclosing message. */
      bool cut = len > w->size - w->pos;
      return nns__wire_fail(
          w, f, cut ? NNS_E_TRUNCATED : NNS_E_LENGTH,
          "length %llu runs past the end of the %s (ends at %lld)",
          (unsigned long long)len, cut ? "data" : "message",
          (long long)(w->origin + (int64_t)(cut ? w->size : w->end)));
    }
    f->pos = w->pos;
    f->data = w->buf + w->pos;
    f->len = (size_t)len;
    w->pos += (size_t)len;
    break;
  }
  case 3:
  case 4:
    return nns__wire_fail(w, f, NNS_E_WIRETYPE,
                          "wire type %u (%s): groups are not supported", wt,
                          wt_name(wt));
  default:
    return nns__wire_fail(w, f, NNS_E_WIRETYPE, "invalid wire type %u", wt);
  }

  if (f->num < w->msg->n_fields) {
    uint8_t kind = w->msg->fields[f->num].kind;
    if (!kind_allows(kind, wt))
      return nns__wire_fail(w, f, NNS_E_WIRETYPE,
                            "wire type %u (%s), expected %s", wt, wt_name(wt),
                            kind_expects(kind));
  }
  return NNS_OK;
}

nns_status nns__wire_too_deep(const nns__wire *w, const nns__field *f) {
  return nns__wire_fail(w, f, NNS_E_DEPTH,
                        "messages nested deeper than %d levels",
                        w->max_depth);
}

/* ==== Packed payloads ==== */

nns_status nns__wire_count_varints(const nns__wire *w, const nns__field *f,
                                   size_t *count) {
  /* A varint ends at each byte without the continuation bit. */
  size_t n = 0;
  for (size_t i = 0; i < f->len; i++)
    n += f->data[i] < 0x80;
  if (f->len && f->data[f->len - 1] >= 0x80)
    return nns__wire_fail(w, f, NNS_E_TRUNCATED,
                          "last packed varint cut off by the end of the "
                          "field (ends at %lld)",
                          (long long)(w->origin + (int64_t)(f->pos + f->len)));
  *count = n;
  return NNS_OK;
}

nns_status nns__wire_rep_count(const nns__wire *w, const nns__field *f,
                               int elem, size_t *count) {
  if (f->wt != NNS__WT_LEN) {
    *count = 1;
    return NNS_OK;
  }
  if (elem == 0)
    return nns__wire_count_varints(w, f, count);
  if (f->len % (size_t)elem)
    return nns__wire_fail(w, f, NNS_E_LENGTH,
                          "packed length %zu is not a multiple of %d", f->len,
                          elem);
  *count = f->len / (size_t)elem;
  return NNS_OK;
}
