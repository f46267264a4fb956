/*
 * tensor.c - element types, and decoding an initializer's elements when a
 * rule needs them (a Reshape target, Slice bounds, a Constant).
 *
 * The loader leaves tensor bytes where they are; this file reads them on
 * demand, from the mapped model or, for external data, with pread of just
 * the bytes needed (an external weights file may be many gigabytes and is
 * never mapped). Little-endian bytes are assembled explicitly, so the code
 * does not depend on the host's byte order.
 */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ir.h"

/* ==== Element types ==== */

int nns_dtype_bits(int dtype) { return nns__dtype_bits(dtype); }

const char *nns_dtype_name(int dtype) {
  static const char *const names[] = {
#define NNS_DTYPE_NAME_(name, num, str) [num] = str,
      NNS_DTYPE_MAP(NNS_DTYPE_NAME_)
#undef NNS_DTYPE_NAME_
  };
  if (dtype < 0 || dtype >= (int)(sizeof names / sizeof names[0]) ||
      !names[dtype])
    return "unknown";
  return names[dtype];
}

/* ==== Small floats ==== */

static double half_to_double(uint16_t h) {
  int e = (h >> 10) & 0x1f, f = h & 0x3ff;
  double v;
  if (e == 0)
    v = ldexp(f, -24); /* subnormal */
  else if (e == 31)
    v = f ? NAN : INFINITY;
  else
    v = ldexp(f + 1024, e - 25);
  return h >> 15 ? -v : v;
}

static double bf16_to_double(uint16_t h) {
  uint32_t bits = (uint32_t)h << 16;
  float x;
  memcpy(&x, &bits, 4);
  return x;
}

/* How an 8-bit float spends its special encodings. */
enum { FP8_FN, FP8_FNUZ, FP8_IEEE };

static double fp8_to_double(uint8_t b, int mbits, int bias, int variant) {
  int ebits = 7 - mbits;
  int e = (b >> mbits) & ((1 << ebits) - 1), f = b & ((1 << mbits) - 1);
  if (variant == FP8_FNUZ && b == 0x80)
    return NAN; /* the only NaN; there is no negative zero */
  if (variant == FP8_FN && (b & 0x7f) == 0x7f)
    return NAN; /* no infinities: all-ones is NaN */
  if (variant == FP8_IEEE && e == (1 << ebits) - 1)
    return f ? NAN : (b >> 7 ? -INFINITY : INFINITY);
  double v = e == 0 ? ldexp(f, 1 - bias - mbits)
                    : ldexp(f + (1 << mbits), e - bias - mbits);
  return b >> 7 ? -v : v;
}

/* A float dtype's element from its bits (16 or 8 of them). */
static double small_float(int32_t dtype, uint32_t bits) {
  switch (dtype) {
  case NNS_DT_FLOAT16:
    return half_to_double((uint16_t)bits);
  case NNS_DT_BFLOAT16:
    return bf16_to_double((uint16_t)bits);
  case NNS_DT_FLOAT8E4M3FN:
    return fp8_to_double((uint8_t)bits, 3, 7, FP8_FN);
  case NNS_DT_FLOAT8E4M3FNUZ:
    return fp8_to_double((uint8_t)bits, 3, 8, FP8_FNUZ);
  case NNS_DT_FLOAT8E5M2:
    return fp8_to_double((uint8_t)bits, 2, 15, FP8_IEEE);
  case NNS_DT_FLOAT8E8M0: /* a power of two; all ones is NaN */
    return (uint8_t)bits == 0xff ? NAN : ldexp(1.0, (int)(uint8_t)bits - 127);
  default:
    return fp8_to_double((uint8_t)bits, 2, 16, FP8_FNUZ);
  }
}

/* ==== Little-endian bytes ==== */

static uint64_t le(const uint8_t *p, int n) {
  uint64_t v = 0;
  for (int i = n - 1; i >= 0; i--)
    v = v << 8 | p[i];
  return v;
}

static int64_t nibble(const uint8_t *p, int64_t i, bool is_signed) {
  int v = (p[i / 2] >> (i % 2 ? 4 : 0)) & 0xf;
  return is_signed && v >= 8 ? v - 16 : v;
}

/* Element i of packed 2-bit integers, four per byte, lowest bits first. */
static int64_t crumb(const uint8_t *p, int64_t i, bool is_signed) {
  int v = (p[i / 4] >> (2 * (i % 4))) & 0x3;
  return is_signed && v >= 2 ? v - 4 : v;
}

/* float4e2m1: sign, 2 exponent bits (bias 1), 1 mantissa bit; no NaN or
 * infinity (0, 0.5, 1, 1.5, 2, 3, 4, 6 and their negatives). */
static double fp4_to_double(int v) {
  int e = (v >> 1) & 3, f = v & 1;
  double x = e == 0 ? 0.5 * f : ldexp(1.0 + 0.5 * f, e - 1);
  return v & 8 ? -x : x;
}

double nns__raw_elem(int32_t dtype, const uint8_t *e) {
  int bytes = nns__dtype_bits(dtype) / 8;
  switch (dtype) {
  case NNS_DT_FLOAT: {
    uint32_t bits = (uint32_t)le(e, 4);
    float x;
    memcpy(&x, &bits, 4);
    return x;
  }
  case NNS_DT_DOUBLE: {
    uint64_t bits = le(e, 8);
    double x;
    memcpy(&x, &bits, 8);
    return x;
  }
  case NNS_DT_INT8:
    return (int8_t)*e;
  case NNS_DT_INT16:
    return (int16_t)le(e, 2);
  case NNS_DT_INT32:
    return (int32_t)le(e, 4);
  case NNS_DT_INT64:
    return (double)(int64_t)le(e, 8);
  default:
    if (nns__dtype_is_float(dtype))
      return small_float(dtype, (uint32_t)le(e, bytes));
    return (double)le(e, bytes);
  }
}

/* Elements from `numel` little-endian elements at p (raw_data or an
 * external file). */
static void decode_bytes(int32_t dtype, const uint8_t *p, int64_t numel,
                         nns__const *c) {
  int bytes = nns__dtype_bits(dtype) / 8;
  for (int64_t i = 0; i < numel; i++) {
    const uint8_t *e = p + i * bytes;
    switch (dtype) {
    case NNS_DT_FLOAT: {
      uint32_t bits = (uint32_t)le(e, 4);
      float x;
      memcpy(&x, &bits, 4);
      c->f[i] = x;
      break;
    }
    case NNS_DT_DOUBLE: {
      uint64_t bits = le(e, 8);
      memcpy(&c->f[i], &bits, 8);
      break;
    }
    case NNS_DT_INT4:
    case NNS_DT_UINT4:
      c->i[i] = nns__dim_known(nibble(p, i, dtype == NNS_DT_INT4));
      break;
    case NNS_DT_INT2:
    case NNS_DT_UINT2:
      c->i[i] = nns__dim_known(crumb(p, i, dtype == NNS_DT_INT2));
      break;
    case NNS_DT_FLOAT4E2M1:
      c->f[i] = fp4_to_double((int)nibble(p, i, false));
      break;
    case NNS_DT_INT8:
      c->i[i] = nns__dim_known((int8_t)*e);
      break;
    case NNS_DT_INT16:
      c->i[i] = nns__dim_known((int16_t)le(e, 2));
      break;
    case NNS_DT_INT32:
      c->i[i] = nns__dim_known((int32_t)le(e, 4));
      break;
    case NNS_DT_INT64:
      /* The shape constants of an export (a LLaMA graph has 1,500):
       * a case of its own, a single load, rather than the default's
       * float check and byte loop of a width read at run time. */
      c->i[i] = nns__dim_known((int64_t)le(e, 8));
      break;
    case NNS_DT_BOOL:
      c->i[i] = nns__dim_known(*e != 0);
      break;
    default:
      if (nns__dtype_is_float(dtype))
        c->f[i] = small_float(dtype, (uint32_t)le(e, bytes));
      else /* unsigned; uint64 beyond INT64_MAX wraps */
        c->i[i] = nns__dim_known((int64_t)le(e, bytes));
      break;
    }
  }
}

/* One element (or, for 4-bit types, two) from a typed-field unit. */
static void decode_unit(int32_t dtype, bool int32_units, uint64_t u,
                        int64_t *k, nns__const *c) {
  if (dtype == NNS_DT_INT4 || dtype == NNS_DT_UINT4) {
    uint8_t byte = (uint8_t)u;
    for (int64_t j = 0; j < 2 && *k < c->numel; j++, ++*k)
      c->i[*k] = nns__dim_known(nibble(&byte, j, dtype == NNS_DT_INT4));
    return;
  }
  if (dtype == NNS_DT_INT2 || dtype == NNS_DT_UINT2) {
    uint8_t byte = (uint8_t)u;
    for (int64_t j = 0; j < 4 && *k < c->numel; j++, ++*k)
      c->i[*k] = nns__dim_known(crumb(&byte, j, dtype == NNS_DT_INT2));
    return;
  }
  if (dtype == NNS_DT_FLOAT4E2M1) {
    uint8_t byte = (uint8_t)u;
    for (int64_t j = 0; j < 2 && *k < c->numel; j++, ++*k)
      c->f[*k] = fp4_to_double((int)nibble(&byte, j, false));
    return;
  }
  if (nns__dtype_is_float(dtype)) {
    /* int32_data carries float16/bfloat16/float8 as their bits. */
    c->f[*k] = int32_units && dtype != NNS_DT_FLOAT && dtype != NNS_DT_DOUBLE
                   ? small_float(dtype, (uint32_t)u)
                   : (double)(int64_t)u;
  } else if (dtype == NNS_DT_BOOL) {
    c->i[*k] = nns__dim_known(u != 0);
  } else {
    /* int32_data holds sign-extended int32s; int64/uint64 are whole. */
    c->i[*k] = nns__dim_known(int32_units ? (int64_t)(int32_t)(uint32_t)u
                                         : (int64_t)u);
  }
  ++*k;
}

/* ==== Errors ==== */

static nns_status tfail(const nns__tensor *t, nns_error *err, nns_status code,
                        const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static nns_status tfail(const nns__tensor *t, nns_error *err, nns_status code,
                        const char *fmt, ...) {
  if (!err)
    return code;
  char what[400];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(what, sizeof what, fmt, ap);
  va_end(ap);
  return nns__err(err, code, t->offset, NULL, "tensor '%s' at byte %lld: %s",
                  t->name ? t->name : "", (long long)t->offset, what);
}

/* ==== Sources ==== */

/* Bytes the tensor's elements take in raw form. */
static int64_t raw_size(const nns__tensor *t) {
  return (t->numel * nns__dtype_bits(t->dtype) + 7) / 8;
}

static nns_status read_varints(const nns__tensor *t, nns__const *c,
                               nns_error *err) {
  int64_t k = 0;
  const uint8_t *p = t->raw, *end = t->raw + t->raw_len;
  while (p < end && k < c->numel) {
    uint64_t u = 0;
    int shift = 0;
    for (;; shift += 7) {
      if (p == end || shift > 63)
        return tfail(t, err, NNS_E_VARINT,
                     "malformed varint in its typed data at byte %lld",
                     (long long)(p - t->raw));
      uint8_t b = *p++;
      u |= (uint64_t)(b & 0x7f) << shift;
      if (b < 0x80)
        break;
    }
    decode_unit(t->dtype, t->int32_units, u, &k, c);
  }
  if (k != c->numel || p != end)
    return tfail(t, err, NNS_E_MODEL,
                 "its typed data does not hold exactly %lld elements",
                 (long long)c->numel);
  return NNS_OK;
}

static nns_status read_fixed(const nns__tensor *t, nns__const *c,
                             nns_error *err) {
  int size = t->packing == NNS__PK_FIXED32 ? 4 : 8;
  if (!c->f)
    return tfail(t, err, NNS_E_TYPE, "float data for a %s tensor",
                 nns_dtype_name(t->dtype));
  if ((int64_t)t->raw_len != c->numel * size)
    return tfail(t, err, NNS_E_MODEL, "typed data has %zu bytes, not %lld",
                 t->raw_len, (long long)(c->numel * size));
  for (int64_t i = 0; i < c->numel; i++) {
    uint64_t bits = le(t->raw + i * size, size);
    if (size == 4) {
      float x;
      uint32_t b32 = (uint32_t)bits;
      memcpy(&x, &b32, 4);
      c->f[i] = x;
    } else {
      memcpy(&c->f[i], &bits, 8);
    }
  }
  return NNS_OK;
}

static nns_status read_decoded(const nns__tensor *t, nns__const *c,
                               nns_error *err) {
  if (t->dec_f) {
    if (!c->f)
      return tfail(t, err, NNS_E_TYPE, "float data for a %s tensor",
                   nns_dtype_name(t->dtype));
    if (t->dec_count != c->numel)
      return tfail(t, err, NNS_E_MODEL, "%lld elements, not %lld",
                   (long long)t->dec_count, (long long)c->numel);
    memcpy(c->f, t->dec_f, (size_t)c->numel * sizeof *c->f);
    return NNS_OK;
  }
  int64_t k = 0;
  for (int64_t j = 0; j < t->dec_count && k < c->numel; j++)
    decode_unit(t->dtype, t->int32_units, (uint64_t)t->dec_i[j], &k, c);
  if (k != c->numel)
    return tfail(t, err, NNS_E_MODEL, "%lld elements, not %lld",
                 (long long)k, (long long)c->numel);
  return NNS_OK;
}

/* Reads a length-prefixed varint inside the TensorProto; false if cut. */
static bool msg_varint(const uint8_t *p, size_t n, size_t *pos, uint64_t *v) {
  *v = 0;
  for (int shift = 0; shift < 64; shift += 7) {
    if (*pos >= n)
      return false;
    uint8_t b = p[(*pos)++];
    *v |= (uint64_t)(b & 0x7f) << shift;
    if (b < 0x80)
      return true;
  }
  return false;
}

/* string_data: rescans the TensorProto (the loader checked its framing). */
static nns_status read_strings(nns_model *m, const nns__tensor *t,
                               nns__const *c, nns_error *err) {
  const uint8_t *p = t->msg;
  size_t n = t->msg_len, pos = 0;
  int64_t k = 0;
  while (pos < n) {
    uint64_t tag, v = 0;
    if (!msg_varint(p, n, &pos, &tag))
      break;
    switch (tag & 7) {
    case 0:
      if (!msg_varint(p, n, &pos, &v))
        goto bad;
      break;
    case 1:
    case 5:
      if (n - pos < ((tag & 7) == 1 ? 8u : 4u))
        goto bad;
      pos += (tag & 7) == 1 ? 8 : 4;
      break;
    case 2:
      if (!msg_varint(p, n, &pos, &v) || v > n - pos)
        goto bad;
      if ((tag >> 3) == 6 && k < c->numel) {
        const char *s = (const char *)p + pos;
        const uint8_t *z = memchr(s, 0, (size_t)v);
        size_t len = z ? (size_t)((const char *)z - s) : (size_t)v;
        if (!(c->s[k++] = nns__arena_strndup(&m->infer_arena, s, len)))
          return nns__err(err, NNS_E_NOMEM, -1, NULL, "out of memory");
      }
      pos += (size_t)v;
      break;
    default:
      goto bad;
    }
  }
  if (k == c->numel)
    return NNS_OK;
bad:
  return tfail(t, err, NNS_E_MODEL, "its string_data does not hold %lld "
               "strings", (long long)c->numel);
}

/* pread of exactly the tensor's bytes from its external file. */
static nns_status read_external(const nns_model *m, const nns__tensor *t,
                                nns__const *c, nns_error *err) {
  int64_t need = raw_size(t);
  if (t->ext_length >= 0 && t->ext_length != need)
    return tfail(t, err, NNS_E_MODEL,
                 "external length %lld does not match the %lld bytes its "
                 "dims need",
                 (long long)t->ext_length, (long long)need);
  const char *dir = m->dir ? m->dir : ".";
  size_t plen = strlen(dir) + 1 + strlen(t->ext_location) + 1;
  char *path = malloc(plen);
  if (!path)
    return nns__err(err, NNS_E_NOMEM, -1, NULL, "out of memory");
  snprintf(path, plen, "%s/%s", dir, t->ext_location);

  nns_status st = NNS_OK;
  uint8_t *buf = NULL;
  /* Never through a link out of the model's folder (base.h). */
  int fd = nns__open_beneath(dir, t->ext_location);
  struct stat sb;
  if (fd < 0) {
    st = tfail(t, err, NNS_E_EXTERNAL, "cannot open external data file '%s': "
               "%s", path, strerror(errno));
  } else if (fstat(fd, &sb) != 0 || !S_ISREG(sb.st_mode)) {
    st = tfail(t, err, NNS_E_EXTERNAL, "external data '%s' is not a readable "
               "regular file", path);
  } else if (t->ext_offset > (int64_t)sb.st_size ||
             need > (int64_t)sb.st_size - t->ext_offset) {
    st = tfail(t, err, NNS_E_EXTERNAL,
               "external data file '%s' has %lld bytes; the tensor needs "
               "bytes %lld to %lld",
               path, (long long)sb.st_size, (long long)t->ext_offset,
               (long long)(t->ext_offset + need));
  } else if (!(buf = malloc(need ? (size_t)need : 1))) {
    st = nns__err(err, NNS_E_NOMEM, -1, NULL, "out of memory");
  } else {
    for (int64_t got = 0; got < need && st == NNS_OK;) {
      ssize_t r = pread(fd, buf + got, (size_t)(need - got),
                        (off_t)(t->ext_offset + got));
      if (r < 0 && errno == EINTR)
        continue;
      if (r <= 0)
        st = tfail(t, err, NNS_E_EXTERNAL, "cannot read external data file "
                   "'%s': %s", path, r < 0 ? strerror(errno) : "short read");
      else
        got += r;
    }
    if (st == NNS_OK)
      decode_bytes(t->dtype, buf, c->numel, c);
  }
  if (fd >= 0)
    close(fd);
  free(buf);
  free(path);
  return st;
}

/* ==== Decoding ==== */

static nns_status decode_into(nns_model *m, const nns__tensor *t,
                              nns__const *c, nns_error *err);

nns_status nns__tensor_decode(nns_model *m, const nns__tensor *t,
                              int64_t limit, nns__const *c, nns_error *err) {
  memset(c, 0, sizeof *c);
  if (t->numel > limit)
    return tfail(t, err, NNS_E_LIMIT, "%lld elements, more than the %lld "
                 "decoded", (long long)t->numel, (long long)limit);
  c->numel = t->numel;
  size_t n = t->numel ? (size_t)t->numel : 1;
  void *arr;
  if (nns__dtype_is_int(t->dtype))
    arr = c->i = nns__arena_array(&m->infer_arena, n, sizeof *c->i);
  else if (nns__dtype_is_float(t->dtype))
    arr = c->f = nns__arena_array(&m->infer_arena, n, sizeof *c->f);
  else if (t->dtype == NNS_DT_STRING)
    arr = c->s = nns__arena_array(&m->infer_arena, n, sizeof *c->s);
  else
    return tfail(t, err, NNS_E_TYPE, "elements of type %s are not decoded",
                 nns_dtype_name(t->dtype));
  if (!arr)
    return nns__err(err, NNS_E_NOMEM, -1, NULL, "out of memory");
  return decode_into(m, t, c, err);
}

bool nns__tensor_scalar(const nns__tensor *t, double *x) {
  nns__dim i = {0};
  double f = 0;
  nns__const c = {.numel = 1};
  if (!t || t->numel != 1 || t->storage == NNS__ST_EXTERNAL ||
      (t->storage == NNS__ST_PACKED && t->packing == NNS__PK_STRING))
    return false; /* a file to read, or strings: not without the model */
  if (nns__dtype_is_int(t->dtype))
    c.i = &i;
  else if (nns__dtype_is_float(t->dtype))
    c.f = &f;
  else
    return false;
  if (decode_into(NULL, t, &c, NULL) != NNS_OK || i.sym)
    return false;
  *x = c.f ? f : (double)i.v;
  return true;
}

/* The elements of t into c, whose arrays are laid out for them; m reads
 * external data and strings only. */
static nns_status decode_into(nns_model *m, const nns__tensor *t,
                              nns__const *c, nns_error *err) {
  switch (t->storage) {
  case NNS__ST_NONE:
    if (t->numel)
      return tfail(t, err, NNS_E_MODEL, "no data for %lld elements",
                   (long long)t->numel);
    return NNS_OK;
  case NNS__ST_RAW:
    if (t->dtype == NNS_DT_STRING || (int64_t)t->raw_len != raw_size(t))
      return tfail(t, err, NNS_E_MODEL, "raw_data has %zu bytes, not %lld",
                   t->raw_len, (long long)raw_size(t));
    decode_bytes(t->dtype, t->raw, c->numel, c);
    return NNS_OK;
  case NNS__ST_EXTERNAL:
    if (t->dtype == NNS_DT_STRING)
      return tfail(t, err, NNS_E_TYPE, "external string data");
    return read_external(m, t, c, err);
  case NNS__ST_PACKED:
    if ((t->packing == NNS__PK_STRING) != (t->dtype == NNS_DT_STRING))
      return tfail(t, err, NNS_E_TYPE, "%s data for a %s tensor",
                   t->packing == NNS__PK_STRING ? "string" : "numeric",
                   nns_dtype_name(t->dtype));
    if (t->packing == NNS__PK_STRING)
      return read_strings(m, t, c, err);
    if (t->dtype == NNS_DT_STRING)
      return tfail(t, err, NNS_E_TYPE, "numeric data for a string tensor");
    if (t->packing == NNS__PK_VARINT)
      return read_varints(t, c, err);
    return read_fixed(t, c, err);
  case NNS__ST_DECODED:
    if (t->dtype == NNS_DT_STRING)
      return tfail(t, err, NNS_E_TYPE, "numeric data for a string tensor");
    return read_decoded(t, c, err);
  default:
    return tfail(t, err, NNS_E_TYPE, "sparse tensor values are not decoded");
  }
}
