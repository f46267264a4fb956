/*
 * load_tensor.c - TensorProto and SparseTensorProto into nns__tensor.
 *
 * A tensor's bytes are never copied or read here: raw_data and packed
 * typed fields become slices into the file, external data becomes a
 * checked (location, offset, length). Only unpacked repeated elements, which
 * have no contiguous payload to point at, are decoded into the arena. What
 * can be checked without reading the data is checked now: dims, element
 * count and its size in bytes (overflow-checked), and that the data has
 * exactly the size the dims and dtype call for.
 */
#include <stdio.h>
#include <string.h>

#include "load_int.h"

/* ==== Typed data fields ==== */

/* TensorProto fields that hold elements, in one table. */
enum { TF_FLOAT, TF_INT32, TF_STRING, TF_INT64, TF_DOUBLE, TF_UINT64, TF_N };

static const struct {
  uint32_t num;   /* TensorProto field number */
  int elem;       /* packed element size in bytes, 0 for varints */
  uint8_t packing;/* nns__packing */
} typed_fields[TF_N] = {
    {NNS__F_TENSOR_FLOAT_DATA, 4, NNS__PK_FIXED32},
    {NNS__F_TENSOR_INT32_DATA, 0, NNS__PK_VARINT},
    {NNS__F_TENSOR_STRING_DATA, -1, NNS__PK_STRING},
    {NNS__F_TENSOR_INT64_DATA, 0, NNS__PK_VARINT},
    {NNS__F_TENSOR_DOUBLE_DATA, 8, NNS__PK_FIXED64},
    {NNS__F_TENSOR_UINT64_DATA, 0, NNS__PK_VARINT},
};

/* The field's name in onnx.proto, for messages. */
static const char *typed_name(int tf) {
  return nns__pb_tensor.fields[typed_fields[tf].num].name;
}

static int typed_index(uint32_t num) {
  for (int i = 0; i < TF_N; i++)
    if (typed_fields[i].num == num)
      return i;
  return -1;
}

typedef struct typed_seen {
  size_t count;             /* elements over all occurrences */
  size_t occurrences;
  bool unpacked;            /* some element came outside a packed payload */
  const uint8_t *first;     /* payload of the first occurrence */
  size_t first_len;         /* and its length */
} typed_seen;

/* ==== Messages ==== */

/* "tensor 'w1'" or "tensor" when unnamed, for messages. */
static const char *tensor_label(const nns__tensor *t, char *buf, size_t n) {
  if (t->name && t->name[0])
    snprintf(buf, n, "tensor '%s'", t->name);
  else
    snprintf(buf, n, "tensor");
  return buf;
}

#define TENSOR_FAIL(L, t, code, ...)                                           \
  tensor_fail((L), (t), (code), __VA_ARGS__)

static nns_status tensor_fail(nns__loader *L, const nns__tensor *t,
                              nns_status code, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static nns_status tensor_fail(nns__loader *L, const nns__tensor *t,
                              nns_status code, const char *fmt, ...) {
  char label[200], what[320];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(what, sizeof what, fmt, ap);
  va_end(ap);
  return nns__err(L->A.err, code, t->offset, NULL, "%s at byte %lld: %s",
                  tensor_label(t, label, sizeof label), (long long)t->offset,
                  what);
}

/* ==== External data ==== */

/* Decimal string to int64 with overflow checks; false when malformed. */
static bool parse_decimal(const uint8_t *s, size_t n, int64_t *out) {
  if (n == 0 || n > 19)
    return false;
  int64_t v = 0;
  for (size_t i = 0; i < n; i++) {
    if (s[i] < '0' || s[i] > '9')
      return false;
    if (!nns__mul_i64(v, 10, &v) || !nns__add_i64(v, s[i] - '0', &v))
      return false;
  }
  *out = v;
  return true;
}

/*
 * A location must name a file inside the external-data folder: not
 * absolute, no drive letter, no ".." component, no NUL. Hostile models must
 * not be able to make nnscan read /etc/shadow or ../../secret.
 */
static const char *location_problem(const uint8_t *s, size_t n) {
  if (n == 0)
    return "is empty";
  if (memchr(s, 0, n))
    return "contains a NUL byte";
  if (s[0] == '/' || s[0] == '\\')
    return "is an absolute path";
  if (n >= 2 && s[1] == ':')
    return "starts with a drive letter";
  size_t start = 0;
  for (size_t i = 0; i <= n; i++) {
    if (i == n || s[i] == '/' || s[i] == '\\') {
      if (i - start == 2 && s[start] == '.' && s[start + 1] == '.')
        return "has a '..' component";
      start = i + 1;
    }
  }
  return NULL;
}

/* A value of an external_data entry: its bytes, data NULL if absent. */
typedef struct ext_value {
  const uint8_t *data;
  size_t len;
} ext_value;

typedef struct ext_seen {
  ext_value location, offset, length;
} ext_seen;

/* One external_data entry: remembers the value of the keys nnscan uses. */
static nns_status read_ext_entry(const nns__wire *w, const nns__field *f,
                                 ext_seen *ext) {
  nns__wire r;
  nns_status st = nns__wire_enter(w, f, &nns__pb_entry, &r);
  nns__field e, key = {0}, value = {0};
  while (st == NNS_OK && (st = nns__wire_next(&r, &e)) == NNS_OK && e.num) {
    if (e.num == NNS__F_ENTRY_KEY)
      key = e;
    else if (e.num == NNS__F_ENTRY_VALUE)
      value = e;
  }
  if (st != NNS_OK || !key.num)
    return st;
  /* A LEN field's data points into the buffer even when empty, so NULL
   * stands for a missing value alone. */
  ext_value v = {value.num ? value.data : NULL, value.len};
#define KEY_IS(s) (key.len == sizeof s - 1 && !memcmp(key.data, s, key.len))
  if (KEY_IS("location"))
    ext->location = v;
  else if (KEY_IS("offset"))
    ext->offset = v;
  else if (KEY_IS("length"))
    ext->length = v;
#undef KEY_IS
  return NNS_OK;
}

static nns_status finish_external(nns__loader *L, nns__tensor *t,
                                  const ext_seen *ext) {
  if (!ext->location.data)
    return TENSOR_FAIL(L, t, NNS_E_EXTERNAL,
                       "data_location is EXTERNAL but external_data has no "
                       "'location'");
  const char *why = location_problem(ext->location.data, ext->location.len);
  if (why)
    return TENSOR_FAIL(L, t, NNS_E_EXTERNAL,
                       "external data location '%.*s' %s",
                       (int)(ext->location.len > 200 ? 200
                                                     : ext->location.len),
                       (const char *)ext->location.data, why);
  t->ext_location = nns__arena_strndup(L->arena,
                                       (const char *)ext->location.data,
                                       ext->location.len);
  if (!t->ext_location)
    return nns__load_nomem(L);
  t->ext_offset = 0;
  t->ext_length = -1;
  if (ext->offset.data &&
      !parse_decimal(ext->offset.data, ext->offset.len, &t->ext_offset))
    return TENSOR_FAIL(L, t, NNS_E_EXTERNAL,
                       "external data offset '%.*s' is not a decimal number "
                       "that fits in 64 bits",
                       (int)(ext->offset.len > 40 ? 40 : ext->offset.len),
                       (const char *)ext->offset.data);
  if (ext->length.data &&
      !parse_decimal(ext->length.data, ext->length.len, &t->ext_length))
    return TENSOR_FAIL(L, t, NNS_E_EXTERNAL,
                       "external data length '%.*s' is not a decimal number "
                       "that fits in 64 bits",
                       (int)(ext->length.len > 40 ? 40 : ext->length.len),
                       (const char *)ext->length.data);
  int64_t end;
  if (t->ext_length >= 0 && !nns__add_i64(t->ext_offset, t->ext_length, &end))
    return TENSOR_FAIL(L, t, NNS_E_EXTERNAL,
                       "external data offset + length overflows");
  if (L->plain) /* the files are checked on the loading thread */
    return NNS_E_STATE;
  t->storage = NNS__ST_EXTERNAL;
  L->external = true;
  return NNS_OK;
}

/* ==== Sizes ==== */

/* numel from dims, with every product checked. */
static nns_status count_elements(nns__loader *L, nns__tensor *t) {
  int64_t n = 1;
  for (int32_t i = 0; i < t->rank; i++) {
    if (t->dims[i] < 0)
      return TENSOR_FAIL(L, t, NNS_E_MODEL, "dim %d is negative (%lld)", i,
                         (long long)t->dims[i]);
    /* Keeping numel * 128 bits in range makes every later size product
     * safe as well. */
    if (!nns__mul_i64(n, t->dims[i], &n) || n > INT64_MAX / 128)
      return TENSOR_FAIL(L, t, NNS_E_LIMIT,
                         "dims multiply to more elements than any file can "
                         "hold");
  }
  t->numel = n;
  return NNS_OK;
}

/* Elements of typed field `tf` that the dims and dtype call for. */
static int64_t typed_units(const nns__tensor *t, int tf) {
  int64_t n = t->numel;
  switch (tf) {
  case TF_FLOAT:
    return t->dtype == NNS_DT_COMPLEX64 ? 2 * n : n;
  case TF_DOUBLE:
    return t->dtype == NNS_DT_COMPLEX128 ? 2 * n : n;
  case TF_INT32: { /* sub-byte elements are packed one byte per int32 */
    int bits = nns__dtype_bits(t->dtype);
    int per = bits > 0 && bits < 8 ? 8 / bits : 1;
    return (n + per - 1) / per;
  }
  default:
    return n;
  }
}

static int64_t raw_bytes(const nns__tensor *t) {
  int bits = nns__dtype_bits(t->dtype);
  return (t->numel * bits + 7) / 8;
}

static nns_status check_size(nns__loader *L, nns__tensor *t, int tf,
                             size_t units) {
  int bits = nns__dtype_bits(t->dtype);
  switch (t->storage) {
  case NNS__ST_RAW:
    if (t->dtype == NNS_DT_STRING)
      return TENSOR_FAIL(L, t, NNS_E_MODEL,
                         "string tensors cannot use raw_data");
    if (bits && (int64_t)t->raw_len != raw_bytes(t))
      return TENSOR_FAIL(L, t, NNS_E_MODEL,
                         "raw_data has %zu bytes, but %lld %s elements need "
                         "%lld",
                         t->raw_len, (long long)t->numel,
                         nns_dtype_name(t->dtype), (long long)raw_bytes(t));
    return NNS_OK;
  case NNS__ST_EXTERNAL:
    if (bits && t->ext_length >= 0 && t->ext_length != raw_bytes(t))
      return TENSOR_FAIL(L, t, NNS_E_MODEL,
                         "external data length is %lld bytes, but %lld %s "
                         "elements need %lld",
                         (long long)t->ext_length, (long long)t->numel,
                         nns_dtype_name(t->dtype), (long long)raw_bytes(t));
    return NNS_OK;
  case NNS__ST_NONE:
    if (t->numel != 0)
      return TENSOR_FAIL(L, t, NNS_E_MODEL,
                         "no data for its %lld elements (no raw_data, typed "
                         "data or external data)",
                         (long long)t->numel);
    return NNS_OK;
  default:
    break;
  }
  int64_t want = typed_units(t, tf);
  if (t->storage == NNS__ST_PACKED && t->packing == NNS__PK_VARINT) {
    /* Counting varints would read the payload; a varint has 1 to 10
     * bytes, which bounds the count well enough until it is decoded. */
    if ((int64_t)t->raw_len < want || (int64_t)t->raw_len > want * 10)
      return TENSOR_FAIL(L, t, NNS_E_MODEL,
                         "%s has %zu bytes, which cannot hold %lld varints",
                         typed_name(tf), t->raw_len, (long long)want);
    return NNS_OK;
  }
  if ((int64_t)units != want)
    return TENSOR_FAIL(L, t, NNS_E_MODEL,
                       "%s has %zu elements, but %lld %s elements need %lld",
                       typed_name(tf), units, (long long)t->numel,
                       nns_dtype_name(t->dtype), (long long)want);
  return NNS_OK;
}

/* ==== Second pass: dims and unpacked elements ==== */

/* Appends the elements of one occurrence of typed field tf to t's decoded
 * arrays. */
static nns_status read_unpacked(nns__loader *L, const nns__wire *w,
                                const nns__field *f, int tf, nns__tensor *t) {
  if (f->wt != NNS__WT_LEN) {
    if (tf == TF_FLOAT) {
      float x;
      uint32_t bits = (uint32_t)f->u;
      memcpy(&x, &bits, 4);
      t->dec_f[t->dec_count++] = x;
    } else if (tf == TF_DOUBLE) {
      double x;
      memcpy(&x, &f->u, 8);
      t->dec_f[t->dec_count++] = x;
    } else {
      t->dec_i[t->dec_count++] = (int64_t)f->u;
    }
    return NNS_OK;
  }
  for (size_t pos = 0; pos < f->len;) {
    if (tf == TF_FLOAT) {
      float x;
      uint32_t bits = nns__le32(f->data + pos);
      memcpy(&x, &bits, 4);
      t->dec_f[t->dec_count++] = x;
      pos += 4;
    } else if (tf == TF_DOUBLE) {
      double x;
      uint64_t bits = nns__le64(f->data + pos);
      memcpy(&x, &bits, 8);
      t->dec_f[t->dec_count++] = x;
      pos += 8;
    } else {
      char what[64];
      uint64_t v;
      nns_status st = nns__wire_varint(
          f->data, f->len, &pos, &v, w->origin + (int64_t)f->pos,
          nns__wire_fname(w, f, what, sizeof what), L->A.err);
      if (st != NNS_OK)
        return st;
      t->dec_i[t->dec_count++] = (int64_t)v;
    }
  }
  return NNS_OK;
}

/* Appends the dims of occurrence f (count c, at most NNS__MAX_RANK in all
 * with the n already there) to dims, quietly: false when a varint is
 * malformed, which the second pass (nns__load_varints) then reports. */
static bool take_dims(const nns__field *f, int64_t *dims, size_t n,
                      size_t c) {
  if (f->wt != NNS__WT_LEN) {
    dims[n] = (int64_t)f->u;
    return true;
  }
  size_t pos = 0;
  for (size_t k = 0; k < c; k++) {
    uint64_t v;
    if (nns__wire_varint(f->data, f->len, &pos, &v, 0, "", NULL) != NNS_OK)
      return false;
    dims[n + k] = (int64_t)v;
  }
  return pos == f->len;
}

/* Adds the elements of the packed occurrences of varint field tf to
 * s->count (only for data that will be decoded: several occurrences, or a
 * mix of packed and unpacked). */
static nns_status count_packed_varints(nns__wire *r, const nns__wire *w,
                                       typed_seen *s, int tf) {
  nns__field f;
  nns_status st;
  *r = *w;
  while ((st = nns__wire_next(r, &f)) == NNS_OK && f.num) {
    size_t c;
    if (f.num != typed_fields[tf].num || f.wt != NNS__WT_LEN)
      continue;
    if ((st = nns__wire_count_varints(r, &f, &c)) != NNS_OK)
      return st;
    s->count += c;
  }
  return st;
}

/* ==== TensorProto ==== */

nns_status nns__load_tensor(nns__loader *L, const nns__wire *w,
                            nns__tensor *t) {
  t->offset = w->origin + (int64_t)w->pos;
  t->msg = w->buf + w->pos;
  t->msg_len = w->end - w->pos;
  t->name = L->A.empty;
  t->ext_length = -1;

  typed_seen typed[TF_N];
  memset(typed, 0, sizeof typed);
  ext_seen ext;
  memset(&ext, 0, sizeof ext);
  nns__field f, raw = {0};
  /* The dims are read in the first pass, where they come: a second pass
   * over the message is needed only for unpacked typed data, or to report
   * a malformed dims varint (take_dims leaves that to nns__load_varints). */
  int64_t dims[NNS__MAX_RANK];
  bool dims_read = true;
  size_t n_dims = 0;
  bool segmented = false;
  uint64_t location = 0;
  nns__wire r = *w;
  nns_status st;
  while ((st = nns__wire_next(&r, &f)) == NNS_OK && f.num) {
    int tf = typed_index(f.num);
    switch (f.num) {
    case NNS__F_TENSOR_DIMS: {
      size_t c;
      if ((st = nns__wire_rep_count(&r, &f, 0, &c)) != NNS_OK)
        return st;
      if (c > NNS__MAX_RANK - n_dims)
        return nns__wire_fail(&r, &f, NNS_E_LIMIT,
                              "more than %d dims", NNS__MAX_RANK);
      dims_read = dims_read && take_dims(&f, dims, n_dims, c);
      n_dims += c;
      break;
    }
    case NNS__F_TENSOR_DATA_TYPE:
      t->dtype = (int32_t)f.u;
      break;
    case NNS__F_TENSOR_SEGMENT:
      segmented = true;
      break;
    case NNS__F_TENSOR_NAME:
      if ((st = nns__load_name(L, &f, &t->name)) != NNS_OK)
        return st;
      break;
    case NNS__F_TENSOR_RAW_DATA:
      raw = f;
      break;
    case NNS__F_TENSOR_EXTERNAL_DATA:
      if ((st = read_ext_entry(&r, &f, &ext)) != NNS_OK)
        return st;
      break;
    case NNS__F_TENSOR_DATA_LOCATION:
      location = f.u;
      break;
    default:
      if (tf >= 0) {
        /* A packed varint payload is not scanned here: counting it would
         * read the tensor's bytes. Only unpacked data is counted now. */
        size_t c = 1;
        bool packed_varints = typed_fields[tf].elem == 0 &&
                              f.wt == NNS__WT_LEN;
        if (packed_varints)
          c = 0;
        else if (tf != TF_STRING &&
                 (st = nns__wire_rep_count(&r, &f, typed_fields[tf].elem,
                                           &c)) != NNS_OK)
          return st;
        typed_seen *s = &typed[tf];
        if (!s->occurrences++) {
          s->first = f.data;
          s->first_len = f.len;
        }
        s->count += c;
        if (f.wt != NNS__WT_LEN)
          s->unpacked = true;
      }
      break;
    }
  }
  if (st != NNS_OK)
    return st;

  /* Which storage: external, then raw_data, then the one typed field. */
  int tf = -1;
  for (int i = 0; i < TF_N; i++) {
    if (!typed[i].occurrences)
      continue;
    if (tf >= 0)
      return TENSOR_FAIL(L, t, NNS_E_MODEL, "has data in both %s and %s",
                         typed_name(tf), typed_name(i));
    tf = i;
  }
  if (location == 1) { /* TensorProto.DataLocation EXTERNAL */
    if ((st = finish_external(L, t, &ext)) != NNS_OK)
      return st;
  } else if (raw.num) {
    t->storage = NNS__ST_RAW;
    t->raw = raw.data;
    t->raw_len = raw.len;
  } else if (tf >= 0) {
    typed_seen *s = &typed[tf];
    t->int32_units = tf == TF_INT32;
    t->packing = typed_fields[tf].packing;
    if (tf == TF_STRING) {
      t->storage = NNS__ST_PACKED; /* rescanned from msg when decoded */
    } else if (s->occurrences == 1 && !s->unpacked) {
      t->storage = NNS__ST_PACKED;
      t->raw = s->first;
      t->raw_len = s->first_len;
    } else {
      if (typed_fields[tf].elem == 0 &&
          (st = count_packed_varints(&r, w, &typed[tf], tf)) != NNS_OK)
        return st;
      if (s->count > NNS__MAX_DECODED)
        return TENSOR_FAIL(L, t, NNS_E_LIMIT,
                           "%zu unpacked %s elements, more than %d",
                           s->count, typed_name(tf), NNS__MAX_DECODED);
      t->storage = NNS__ST_DECODED;
      bool fl = tf == TF_FLOAT || tf == TF_DOUBLE;
      if (fl)
        t->dec_f = nns__arena_array(L->arena, s->count, sizeof(double));
      else
        t->dec_i = nns__arena_array(L->arena, s->count, sizeof(int64_t));
      if (!t->dec_f && !t->dec_i)
        return nns__load_nomem(L);
    }
  }

  /* Second pass, only when there is something to fill. */
  t->rank = (int32_t)n_dims;
  if (n_dims) {
    t->dims = nns__arena_array(L->arena, n_dims, sizeof *t->dims);
    if (!t->dims)
      return nns__load_nomem(L);
  }
  if (n_dims && dims_read)
    memcpy(t->dims, dims, n_dims * sizeof *t->dims);
  if ((n_dims && !dims_read) || t->storage == NNS__ST_DECODED) {
    int32_t k = 0;
    r = *w;
    while ((st = nns__wire_next(&r, &f)) == NNS_OK && f.num) {
      if (f.num == NNS__F_TENSOR_DIMS)
        st = nns__load_varints(L, &r, &f, t->dims, &k);
      else if (t->storage == NNS__ST_DECODED &&
               f.num == typed_fields[tf].num)
        st = read_unpacked(L, &r, &f, tf, t);
      if (st != NNS_OK)
        return st;
    }
    if (st != NNS_OK)
      return st;
  }
  if ((st = count_elements(L, t)) != NNS_OK)
    return st;
  if (segmented) {
    if (L->plain) /* a warning: the loading thread gives it, in order */
      return NNS_E_STATE;
    nns__warn(L->A.m,
              "%s at byte %lld is segmented; segments are not supported and "
              "its data will not be read",
              t->name[0] ? t->name : "tensor", (long long)t->offset);
    t->storage = NNS__ST_NONE;
    return NNS_OK;
  }
  size_t units = tf >= 0 ? typed[tf].count : 0;
  return check_size(L, t, tf, units);
}

/* ==== SparseTensorProto ==== */

nns_status nns__load_sparse(nns__loader *L, const nns__wire *w,
                            nns__tensor *t) {
  nns__tensor values;
  memset(&values, 0, sizeof values);
  int64_t offset = w->origin + (int64_t)w->pos;
  nns__wire r = *w, sub;
  nns__field f;
  size_t n_dims = 0;
  nns_status st;
  while ((st = nns__wire_next(&r, &f)) == NNS_OK && f.num) {
    if (f.num == NNS__F_SPARSE_VALUES) {
      memset(&values, 0, sizeof values);
      if ((st = nns__wire_enter(&r, &f, &nns__pb_tensor, &sub)) != NNS_OK ||
          (st = nns__load_tensor(L, &sub, &values)) != NNS_OK)
        return st;
    } else if (f.num == NNS__F_SPARSE_DIMS) {
      size_t c;
      if ((st = nns__wire_rep_count(&r, &f, 0, &c)) != NNS_OK)
        return st;
      n_dims += c;
      if (n_dims > NNS__MAX_RANK)
        return nns__wire_fail(&r, &f, NNS_E_LIMIT, "more than %d dims",
                              NNS__MAX_RANK);
    }
  }
  if (st != NNS_OK)
    return st;
  t->name = values.name ? values.name : L->A.empty;
  t->dtype = values.dtype;
  t->offset = offset;
  t->ext_length = -1;
  t->storage = NNS__ST_SPARSE;
  t->rank = (int32_t)n_dims;
  if (n_dims) {
    t->dims = nns__arena_array(L->arena, n_dims, sizeof *t->dims);
    if (!t->dims)
      return nns__load_nomem(L);
    int32_t k = 0;
    r = *w;
    while ((st = nns__wire_next(&r, &f)) == NNS_OK && f.num)
      if (f.num == NNS__F_SPARSE_DIMS &&
          (st = nns__load_varints(L, &r, &f, t->dims, &k)) != NNS_OK)
        return st;
    if (st != NNS_OK)
      return st;
  }
  return count_elements(L, t);
}

nns_status nns__load_tensor_field(nns__loader *L, const nns__wire *w,
                                   const nns__field *f, bool sparse,
                                   nns__tensor **out) {
  nns__wire sub;
  nns__tensor *t = nns__arena_alloc(L->arena, sizeof *t);
  if (!t)
    return nns__load_nomem(L);
  *out = t;
  nns_status st = nns__wire_enter(w, f, sparse ? &nns__pb_sparse
                                               : &nns__pb_tensor, &sub);
  if (st != NNS_OK)
    return st;
  return sparse ? nns__load_sparse(L, &sub, t) : nns__load_tensor(L, &sub, t);
}
