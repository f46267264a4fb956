/*
 * packed.c - nns_builder_add_packed: the packed form of the builder's
 * calls (include/nnscan.h, "Packed calls"), the one buffer a binding
 * hands its recorded graph over in. Each record makes the builder call it
 * stands for; the aten records (the recorder's tape) are lowered through
 * the aten table by the front the torch.export reader uses too
 * (front.c). A front end, like src/onnx/ and src/pt2/: it reads bytes
 * into the builder (src/ir/) and knows nothing the builder's public
 * calls and builder_int.h do not offer.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../base/vec.h"
#include "../ir/builder_int.h"
#include "front.h"
#include "replay.h"

/* ==== The reader ====
 *
 * A reader over the caller's bytes: every read checks what is left first
 * and copies (no alignment is assumed); a string is used in place, after
 * checking that its terminating NUL is where its length says and that no
 * other NUL comes before it. Each record then makes the builder call it
 * stands for, so the packed form is checked exactly as the calls are. */

/* The record tags, PK_IR_VERSION .. PK_LAST, from nnscan.h's one list. */
enum {
#define PK_ENUM_(name, num, str) PK_##name = num,
  NNS_PACKED_RECORD_MAP(PK_ENUM_)
#undef PK_ENUM_
#define PK_ONE_(name, num, str) +1
  PK_LAST = 0 NNS_PACKED_RECORD_MAP(PK_ONE_) /* numbered 1.. without gaps */
#undef PK_ONE_
};

NNS__NAME_FN(nns_packed_record_name, NNS_PACKED_RECORD_MAP)

#define PK_NULL32 UINT32_MAX /* a string length: NULL */
#define PK_NULL64 UINT64_MAX /* a byte count: NULL */

/* Bytes of a recording's packed form per distinct name, per value the
 * front keeps and per numbered call's output, at the most: the room
 * reserved up front (one name per 45 to 160 bytes, a kept value per 60
 * to 250, an output per 140 to 600, over the zoo's CNNs and ViT). */
enum { PK_NAME_BYTES = 96, PK_VALUE_BYTES = 160, PK_OUTPUT_BYTES = 400 };
/* The most any of those hints asks for: a buffer of padding gets tables
 * no larger than a 7B model's (which then grow as they fill). */
#define PK_HINT_MAX ((size_t)1 << 20)

/* Room for one thing per `per` bytes of a buffer of `size`, bounded. */
static size_t pk_hint(size_t size, size_t per) {
  return size / per < PK_HINT_MAX ? size / per : PK_HINT_MAX;
}

typedef struct preader {
  const uint8_t *p, *end;
  const char *why;        /* what was wrong with the bytes, or NULL */
  void *scratch;          /* malloc'd arrays of the record being read */
  size_t scratch_size;
  nns__front *deferred;   /* the front numbering for the recorder (record
                             32), whose names each string is read as */
  nns__arena_vec entries; /* size_t: under it, each node record's, numbered
                             call's or node-making aten record's first node */
  const uint8_t *start;   /* the buffer's first byte (its header) */
  const nns__replay *replay; /* records read again (record 33): the names
                                they give, moved */
  uint64_t replayed;      /* bytes read again so far */
  size_t *forward;        /* malloc'd: the builder's input index of each
                             input record of a "\5i" mark (a forward
                             tensor numbered where first read) ... */
  uint64_t *forward_key;  /* ... and the number it was given */
  size_t n_forward, cap_forward;
  /* a dropped record (34) read: the numbered call after it lowered, then
   * what it added from `drop_mark` on taken back */
  bool dropping;
  nns__builder_mark drop_mark;
} preader;

static const char pk_oom[] = "out of memory";

/* Notes that the builder's input `index` comes from a "\5i" mark, named
 * `name` (its number the key it is listed by; none: last). */
static bool pk_note_forward(preader *r, size_t index, const char *name) {
  if (r->n_forward == r->cap_forward) {
    size_t cap = r->cap_forward ? 2 * r->cap_forward : 16;
    size_t *grown = realloc(r->forward, cap * sizeof *grown);
    if (grown)
      r->forward = grown;
    uint64_t *keys = grown ? realloc(r->forward_key, cap * sizeof *keys)
                           : NULL;
    if (!keys)
      return false;
    r->forward_key = keys;
    r->cap_forward = cap;
  }
  size_t stem;
  uint64_t key;
  if (!nns__front_trailing_number(name, &stem, &key))
    key = UINT64_MAX;
  r->forward[r->n_forward] = index;
  r->forward_key[r->n_forward++] = key;
  return true;
}

static void pk_free(preader *r) {
  free(r->scratch);
  free(r->forward);
  free(r->forward_key);
}

static bool pk_fail(preader *r, const char *why) {
  if (!r->why)
    r->why = why;
  return false;
}

static bool pk_read(preader *r, void *out, size_t n) {
  if ((size_t)(r->end - r->p) < n)
    return pk_fail(r, "the record runs past the end of the buffer");
  memcpy(out, r->p, n);
  r->p += n;
  return true;
}

/* A string as the bytes hold it (no name read under deferred numbering). */
static bool pk_raw_str(preader *r, const char **out) {
  uint32_t n;
  if (!pk_read(r, &n, sizeof n))
    return false;
  if (n == PK_NULL32) {
    *out = NULL;
    return true;
  }
  if ((size_t)(r->end - r->p) <= n)
    return pk_fail(r, "a string runs past the end of the buffer");
  if (r->p[n] != 0 || memchr(r->p, 0, n))
    return pk_fail(r, "a string is not NUL-terminated at its length, or "
                      "holds a NUL byte");
  *out = (const char *)r->p;
  r->p += (size_t)n + 1;
  return true;
}

/* The name string s stands for under deferred numbering. */
static bool pk_deferred(preader *r, const char **s) {
  if (r->deferred && *s && **s && (uint8_t)**s >= 2 && (uint8_t)**s <= 5 &&
      !(*s = nns__front_deferred_name(r->deferred, *s)))
    return pk_fail(r, "a name under deferred numbering does not end in a "
                      "number, or out of memory");
  return true;
}

/* A string, read as the name it stands for under deferred numbering. */
static bool pk_str(preader *r, const char **out) {
  return pk_raw_str(r, out) && pk_deferred(r, out);
}

/* A string naming a value, node or module: pk_str's, and in records read
 * again (record 33) the name the replay moves it to first. A moved name
 * is interned where deferred numbering does not name it anew ("\2", "\4")
 * or give it a name it holds ("\3", "\5" named before). */
static bool pk_name(preader *r, const char **out) {
  if (!pk_raw_str(r, out))
    return false;
  if (!r->replay || !*out || !**out)
    return pk_deferred(r, out);
  char small[512];
  size_t n = strlen(*out), room = nns__replay_room(r->replay, n);
  char *buf = room <= sizeof small ? small : malloc(room);
  if (!buf)
    return pk_fail(r, pk_oom);
  const char *t = nns__replay_name(r->replay, *out, n, buf);
  bool ok = true;
  if (t != buf) {
    *out = t; /* itself, or an argument's name: in the buffer */
    ok = pk_deferred(r, out);
  } else if (*t >= 2 && *t <= 5) {
    const char *named = nns__front_deferred_name(r->deferred, t);
    ok = named && (named != t || (named = nns__front_intern(r->deferred, t)));
    *out = named;
    if (!ok)
      pk_fail(r, "a name under deferred numbering does not end in a "
                 "number, or out of memory");
  } else if (!(*out = nns__front_intern(r->deferred, t))) {
    ok = pk_fail(r, pk_oom);
  }
  if (buf != small)
    free(buf);
  return ok;
}

/* `count` (untrusted) elements of `size` bytes: a pointer to a copy in the
 * reader's scratch space, after checking that the bytes are there. */
static bool pk_array(preader *r, size_t count, size_t size, void **out) {
  if (count > (size_t)(r->end - r->p) / size)
    return pk_fail(r, "an array runs past the end of the buffer");
  if (!count) {
    *out = NULL; /* the calls take NULL for no values */
    return true;
  }
  size_t need = count * size;
  void *p = nns__grow(r->scratch, &r->scratch_size, need, 1, need);
  if (!p)
    return pk_fail(r, pk_oom);
  r->scratch = p;
  memcpy(r->scratch, r->p, need);
  r->p += need;
  *out = r->scratch;
  return true;
}

/* Pointers to `count` strings read in place: what a name list or
 * attr_strings needs. Each string takes at least 4 bytes of the buffer,
 * which bounds count before anything is allocated. */
static bool pk_strs(preader *r, uint32_t count, const char ***out,
                    bool names) {
  if (count > (size_t)(r->end - r->p) / sizeof(uint32_t))
    return pk_fail(r, "a string list runs past the end of the buffer");
  const char **list = malloc((count ? count : 1) * sizeof *list);
  if (!list)
    return pk_fail(r, pk_oom);
  for (uint32_t k = 0; k < count; k++)
    if (!(names ? pk_name(r, &list[k]) : pk_str(r, &list[k]))) {
      free(list);
      return false;
    }
  *out = list;
  return true;
}

/* rank and dims (rank of them when rank > 0), then when `with_symbols` a
 * flag byte and, if it is 1, rank symbol strings. */
typedef struct pdims {
  int32_t rank;
  int64_t dims[NNS__MAX_RANK];
  const char *syms[NNS__MAX_RANK];
  bool has_syms;
} pdims;

static bool pk_dims(preader *r, bool with_symbols, pdims *d) {
  if (!pk_read(r, &d->rank, sizeof d->rank))
    return false;
  if (d->rank < -1 || d->rank > NNS__MAX_RANK)
    return pk_fail(r, "a rank is not between -1 and 64");
  if (d->rank > 0 &&
      !pk_read(r, d->dims, (size_t)d->rank * sizeof d->dims[0]))
    return false;
  d->has_syms = false;
  if (!with_symbols)
    return true;
  uint8_t flag;
  if (!pk_read(r, &flag, 1))
    return false;
  if (flag > 1)
    return pk_fail(r, "a symbols flag is not 0 or 1");
  d->has_syms = flag == 1;
  for (int32_t k = 0; d->has_syms && k < d->rank; k++)
    if (!pk_str(r, &d->syms[k]))
      return false;
  return true;
}

static bool pk_bytes(preader *r, const void **data, size_t *len) {
  uint64_t n;
  if (!pk_read(r, &n, sizeof n))
    return false;
  if (n == PK_NULL64) {
    *data = NULL;
    *len = 0;
    return true;
  }
  if (n > (uint64_t)(r->end - r->p))
    return pk_fail(r, "a byte string runs past the end of the buffer");
  *data = r->p;
  *len = (size_t)n;
  r->p += n;
  return true;
}

/* ==== Aten records: the recorder's tape ====
 *
 * One PyTorch call with its arguments by schema name, lowered through the
 * aten table by the front both aten readers share (src/front/). Each
 * tensor carries the sizes the recording saw: the front's metadata for
 * the rules (a value seen again keeps what it was first told). */

enum { PK_ATEN_MAX_ARGS = 64, PK_ATEN_MAX_OUTS = 64, PK_ATEN_MAX_LIST = 1024 };

/* One tensor: str name, i32 dtype, shape; its metadata given to the front
 * when new. */
static bool pk_aten_tensor(nns_builder *b, preader *r, const char **name) {
  nns__front *f = nns__builder_front(b);
  int32_t dtype;
  pdims d;
  if (!pk_name(r, name) || !pk_read(r, &dtype, sizeof dtype) ||
      !pk_dims(r, false, &d))
    return false;
  if (!*name)
    return true;
  if (!**name)
    return pk_fail(r, "a tensor has an empty name");
  if (dtype == NNS_DT_COMPLEX64 || dtype == NNS_DT_COMPLEX128) {
    /* the real form of a complex value a numbered call made: read as
     * that value, which knows it is */
    nns__front_value *w = r->deferred ? nns__front_value_of(f, *name) : NULL;
    if (w && w->as_complex) {
      *name = w->as_complex->name;
      return true;
    }
  }
  /* PyTorch's sizes, all known: no symbol stands for a negative one (the
   * table reads a symbol wherever a size is negative) */
  for (int32_t k = 0; k < d.rank; k++)
    if (d.dims[k] < 0)
      return pk_fail(r, "an aten record's tensor has a negative size");
  nns__front_value *v = nns__front_value_add(f, *name);
  if (!v)
    return pk_fail(r, pk_oom);
  *name = v->name; /* the call's lookups then probe by pointer */
  if (v->meta.rank >= 0 || d.rank < 0)
    return true;
  int64_t *dims = nns__arena_array(nns__builder_arena(b), (size_t)d.rank + 1,
                                   sizeof *dims);
  if (!dims)
    return pk_fail(r, pk_oom);
  if (d.rank)
    memcpy(dims, d.dims, (size_t)d.rank * sizeof *dims);
  v->meta.dtype = dtype;
  v->meta.rank = d.rank;
  v->meta.dims = dims;
  v->meta.syms = NULL;
  return true;
}

/* The arguments' arrays (lists of ints, their symbols, lists of tensors:
 * 8-byte items), zeroed, each one longer than asked: from a buffer on the
 * stack while they fit, as a call's short lists do (a calloc and a free
 * per list were a few per cent of a numbered build), else each a block
 * of its own, freed after the call. */
enum { PK_ATEN_SMALL = 256 }; /* words of the stack buffer */

typedef struct pk_aten_mem {
  void *blocks[PK_ATEN_MAX_ARGS]; /* the first n calloc'd */
  int n;
  size_t used; /* words of small[] taken */
  int64_t small[PK_ATEN_SMALL];
} pk_aten_mem;

static void *pk_aten_alloc(pk_aten_mem *m, preader *r, size_t count,
                           size_t size) {
  _Static_assert(sizeof(int64_t) == 8 && sizeof(const char *) <= 8,
                 "an argument array's items fit a word");
  size_t words = ((count + 1) * size + 7) / 8; /* count <= 1024 */
  if (size <= 8 && words <= PK_ATEN_SMALL - m->used) {
    void *p = m->small + m->used;
    memset(p, 0, words * 8);
    m->used += words;
    return p;
  }
  void *p = m->n < PK_ATEN_MAX_ARGS ? calloc(count + 1, size) : NULL;
  if (!p) {
    pk_fail(r, pk_oom);
    return NULL;
  }
  m->blocks[m->n++] = p;
  return p;
}

static bool pk_aten_arg(nns_builder *b, preader *r, pk_aten_mem *mem,
                        nns__aten_arg *a) {
  uint8_t kind, flag;
  uint32_t n;
  if (!pk_str(r, &a->name) || !pk_read(r, &kind, 1))
    return false;
  if (!a->name)
    return pk_fail(r, "an argument has no name");
  a->kind = kind;
  switch (kind) {
  case NNS_ATEN_ARG_NONE:
    return true;
  case NNS_ATEN_ARG_TENSOR:
    return pk_aten_tensor(b, r, &a->tensor);
  case NNS_ATEN_ARG_TENSORS:
    if (!pk_read(r, &n, sizeof n))
      return false;
    if (n > PK_ATEN_MAX_LIST)
      return pk_fail(r, "a tensor list holds more than 1024 tensors");
    if (!(a->tensors = pk_aten_alloc(mem, r, n, sizeof *a->tensors)))
      return false;
    a->n = (int32_t)n;
    for (uint32_t k = 0; k < n; k++)
      if (!pk_aten_tensor(b, r, &a->tensors[k]))
        return false;
    return true;
  case NNS_ATEN_ARG_INT:
    return pk_read(r, &a->i, sizeof a->i) && pk_str(r, &a->sym);
  case NNS_ATEN_ARG_INTS:
    if (!pk_read(r, &n, sizeof n))
      return false;
    if (n > PK_ATEN_MAX_LIST)
      return pk_fail(r, "an int list holds more than 1024 ints");
    if (!(a->ints = pk_aten_alloc(mem, r, n, sizeof *a->ints)) ||
        !(a->syms = pk_aten_alloc(mem, r, n, sizeof *a->syms)))
      return false;
    a->n = (int32_t)n;
    return !n || pk_read(r, a->ints, (size_t)n * sizeof *a->ints);
  case NNS_ATEN_ARG_FLOAT:
    return pk_read(r, &a->f, sizeof a->f);
  case NNS_ATEN_ARG_BOOL:
    if (!pk_read(r, &flag, 1))
      return false;
    if (flag > 1)
      return pk_fail(r, "a bool argument is not 0 or 1");
    a->b = flag;
    return true;
  case NNS_ATEN_ARG_STRING:
    return pk_str(r, &a->s);
  case NNS_ATEN_ARG_DTYPE: {
    int32_t dt;
    if (!pk_read(r, &dt, sizeof dt))
      return false;
    a->i = dt;
    return true;
  }
  default:
    return pk_fail(r, "an argument of an unknown kind");
  }
}

static void free_front(void *f) { nns__front_free(f); }

/* The builder's aten front, made on first use; NULL with err set. */
static nns__front *pk_front(nns_builder *b, nns_error *err) {
  if (nns__builder_usable(b, err))
    return NULL;
  if (nns__builder_in_subgraph(b)) {
    nns__err(err, NNS_E_ARG, -1, NULL,
             "an aten record inside a subgraph (begin_graph)");
    return NULL;
  }
  nns__front *f = nns__builder_front(b);
  if (f)
    return f;
  nns__arena *arena = nns__builder_arena(b);
  if (!(f = nns__arena_alloc(arena, sizeof *f))) {
    nns__err(err, NNS_E_NOMEM, -1, NULL,
             "out of memory while building the model");
    return NULL;
  }
  nns__front_init(f, arena, &nns__builder_model(b)->strings, b, err,
                  "aten record");
  nns__builder_set_front(b, f, free_front);
  return f;
}

/* A parameter or buffer of the main graph is a weight to the aten front:
 * an aten record's t() of one folds into the matrix product reading it
 * (docs/tape.md, "A weight's transpose"). Kinds come before the aten
 * records that read them (the recorder packs them so). */
static nns_status pk_weight(nns_builder *b, const char *name, int32_t kind,
                            nns_error *err) {
  if (!name || kind == NNS_PARAM_CONSTANT || nns__builder_in_subgraph(b))
    return NNS_OK;
  nns_error quiet;
  nns__front *f = pk_front(b, err ? err : &quiet);
  if (!f)
    return err ? err->code : quiet.code;
  nns__front_value *v = nns__front_value_add(f, name);
  if (!v)
    return nns__err(err, NNS_E_NOMEM, -1, NULL,
                    "out of memory while building the model");
  v->weight = true;
  return NNS_OK;
}

static nns_status pk_aten(nns_builder *b, preader *r, nns_error *err) {
  nns_status st;
  nns_error quiet;
  if (!pk_front(b, err ? err : &quiet))
    return err ? err->code : quiet.code;
  const char *op, *name, *path;
  uint32_t n_args, n_outs;
  nns__aten_arg args[PK_ATEN_MAX_ARGS];
  const char *outs[PK_ATEN_MAX_OUTS];
  pk_aten_mem mem; /* not zeroed (2.5 KB): what it hands out is */
  mem.n = 0;
  mem.used = 0;
  bool ok = pk_str(r, &op) && pk_name(r, &name) && pk_name(r, &path) &&
            pk_read(r, &n_args, sizeof n_args);
  if (ok && (!op || !*op))
    ok = pk_fail(r, "an aten record has no op name");
  if (ok && n_args > PK_ATEN_MAX_ARGS)
    ok = pk_fail(r, "an aten record has more than 64 arguments");
  for (uint32_t k = 0; ok && k < n_args; k++) {
    args[k] = (nns__aten_arg){0}; /* those read only: 64 were 5 KB a call */
    ok = pk_aten_arg(b, r, &mem, &args[k]);
  }
  if (ok)
    ok = pk_read(r, &n_outs, sizeof n_outs);
  if (ok && n_outs > PK_ATEN_MAX_OUTS)
    ok = pk_fail(r, "an aten record has more than 64 outputs");
  for (uint32_t k = 0; ok && k < n_outs; k++)
    ok = pk_aten_tensor(b, r, &outs[k]);
  if (ok) {
    nns_error local;
    nns__front *f = nns__builder_front(b);
    f->err = err ? err : &local;
    /* no error yet: the strings empty, not all 656 bytes zeroed a call */
    f->err->code = NNS_OK;
    f->err->offset = 0;
    f->err->node[0] = 0;
    f->err->message[0] = 0;
    f->node = name;
    f->nodes = nns__builder_node_count(b);
    st = nns__front_call(f, op, name ? name : op, path ? path : "", args,
                         (int)n_args, outs, (int)n_outs);
    f->node = NULL;
    f->err = NULL;
  } else {
    st = NNS_E_ARG;
  }
  for (int k = 0; k < mem.n; k++)
    free(mem.blocks[k]);
  return st;
}

/* One record (its tag already read): reads its fields and makes its call.
 * NNS_E_ARG with r->why set when the bytes are malformed. */
static nns_status pk_record(nns_builder *b, preader *r, uint8_t tag,
                            nns_error *err) {
  const char *s0 = NULL, *s1 = NULL, *s2 = NULL, *s3 = NULL;
  int64_t i64;
  int32_t i32a, i32b;
  uint32_t n32, m32;
  double f64;
  pdims d;
  const void *data;
  size_t len;
  void *arr;
  const char **list = NULL, **list2 = NULL;
  nns_status st;
  bool forward;
#define RD(x) if (!(x)) return NNS_E_ARG
  switch (tag) {
  case PK_IR_VERSION:
    RD(pk_read(r, &i64, sizeof i64));
    return nns_builder_set_ir_version(b, i64, err);
  case PK_PRODUCER:
    RD(pk_str(r, &s0) && pk_str(r, &s1));
    return nns_builder_set_producer(b, s0, s1, err);
  case PK_GRAPH_NAME:
    RD(pk_str(r, &s0));
    return nns_builder_set_graph_name(b, s0, err);
  case PK_OPSET:
    RD(pk_str(r, &s0) && pk_read(r, &i64, sizeof i64));
    return nns_builder_add_opset(b, s0, i64, err);
  case PK_METADATA:
    RD(pk_str(r, &s0) && pk_str(r, &s1));
    return nns_builder_add_metadata(b, s0, s1, err);
  case PK_INPUT:
  case PK_OUTPUT:
  case PK_VALUE_INFO:
    RD(pk_raw_str(r, &s0));
    forward = tag == PK_INPUT && r->deferred && s0 && s0[0] == '\5' &&
              s0[1] == 'i' && !nns__builder_in_subgraph(b);
    RD(pk_deferred(r, &s0) && pk_read(r, &i32a, sizeof i32a) &&
       pk_dims(r, true, &d));
    if (forward && !pk_note_forward(r, nns__builder_input_count(b), s0))
      return pk_fail(r, pk_oom), NNS_E_NOMEM;
    if (tag == PK_INPUT && r->deferred && s0 && s0[0] == '\5' &&
        s0[1] == 'u')
      return NNS_OK; /* a tensor no call read (nns__aten_op.unread) */
    {
      const char *const *syms = d.has_syms ? d.syms : NULL;
      return tag == PK_INPUT
                 ? nns_builder_add_input(b, s0, i32a, d.rank, d.dims, syms,
                                         err)
             : tag == PK_OUTPUT
                 ? nns_builder_add_output(b, s0, i32a, d.rank, d.dims, syms,
                                          err)
                 : nns_builder_add_value_info(b, s0, i32a, d.rank, d.dims,
                                              syms, err);
    }
  case PK_INITIALIZER:
    RD(pk_str(r, &s0) && pk_read(r, &i32a, sizeof i32a) &&
       pk_dims(r, false, &d) && pk_bytes(r, &data, &len));
    return nns_builder_add_initializer(b, s0, i32a, d.rank, d.dims, data,
                                       len, err);
  case PK_NODE:
    RD(pk_str(r, &s0) && pk_str(r, &s1) && pk_name(r, &s2) &&
       pk_name(r, &s3) && pk_read(r, &n32, sizeof n32) &&
       pk_strs(r, n32, &list, true));
    if (!pk_read(r, &m32, sizeof m32) || !pk_strs(r, m32, &list2, true)) {
      free(list);
      return NNS_E_ARG;
    }
    st = nns_builder_add_node(b, s0, s1, s2, s3, list, n32, list2, m32,
                              err);
    free(list);
    free(list2);
    return st;
  case PK_ATTR_INT:
    RD(pk_str(r, &s0) && pk_read(r, &i64, sizeof i64));
    return nns_builder_attr_int(b, s0, i64, err);
  case PK_ATTR_FLOAT:
    RD(pk_str(r, &s0) && pk_read(r, &f64, sizeof f64));
    return nns_builder_attr_float(b, s0, f64, err);
  case PK_ATTR_STRING:
    RD(pk_str(r, &s0) && pk_bytes(r, &data, &len));
    return nns_builder_attr_string(b, s0, data, len, err);
  case PK_ATTR_INTS:
    RD(pk_str(r, &s0) && pk_read(r, &n32, sizeof n32) &&
       pk_array(r, n32, sizeof(int64_t), &arr));
    return nns_builder_attr_ints(b, s0, arr, n32, err);
  case PK_ATTR_FLOATS:
    RD(pk_str(r, &s0) && pk_read(r, &n32, sizeof n32) &&
       pk_array(r, n32, sizeof(double), &arr));
    return nns_builder_attr_floats(b, s0, arr, n32, err);
  case PK_ATTR_STRINGS:
    RD(pk_str(r, &s0) && pk_read(r, &n32, sizeof n32) &&
       pk_strs(r, n32, &list, false));
    st = nns_builder_attr_strings(b, s0, list, n32, err);
    free(list);
    return st;
  case PK_ATTR_TENSOR:
    RD(pk_str(r, &s0) && pk_read(r, &i32a, sizeof i32a) &&
       pk_read(r, &i32b, sizeof i32b) && pk_dims(r, false, &d) &&
       pk_bytes(r, &data, &len));
    return nns_builder_attr_tensor(b, s0, (nns_attr_type)i32a, i32b, d.rank,
                                   d.dims, data, len, err);
  case PK_ATTR_TYPE:
    RD(pk_str(r, &s0) && pk_read(r, &i32a, sizeof i32a) &&
       pk_read(r, &i32b, sizeof i32b) && pk_dims(r, true, &d));
    return nns_builder_attr_type(b, s0, (nns_attr_type)i32a, i32b, d.rank,
                                 d.dims, d.has_syms ? d.syms : NULL, err);
  case PK_BEGIN_GRAPH:
    RD(pk_str(r, &s0) && pk_read(r, &i32a, sizeof i32a));
    return nns_builder_begin_graph(b, s0, (nns_attr_type)i32a, err);
  case PK_END_GRAPH:
    return nns_builder_end_graph(b, err);
  case PK_MODULE:
    RD(pk_str(r, &s0) && pk_str(r, &s1) && pk_read(r, &i64, sizeof i64));
    if ((st = nns__builder_usable(b, err)))
      return st;
    if (i64 < 0)
      return nns__err(err, NNS_E_ARG, -1, NULL,
                      "module '%s': call count %lld is negative",
                 s0 ? s0 : "", (long long)i64);
    return nns_model_set_module(nns__builder_model(b), s0, s1, (size_t)i64,
                                err);
  case PK_PARAM_KIND:
    RD(pk_str(r, &s0) && pk_read(r, &i32a, sizeof i32a));
    if ((st = nns__builder_param_kind(b, s0, i32a, err)))
      return st;
    return pk_weight(b, s0, i32a, err);
  case PK_EXPERTS: {
    int64_t total, tokens;
    RD(pk_str(r, &s0) && pk_read(r, &i64, sizeof i64) &&
       pk_read(r, &total, sizeof total) && pk_read(r, &tokens, sizeof tokens));
    if ((st = nns__builder_usable(b, err)))
      return st;
    return nns_model_set_experts(nns__builder_model(b), s0, i64, total,
                                 tokens, err);
  }
  case PK_VALUE_DATA:
    RD(pk_str(r, &s0) && pk_read(r, &i32a, sizeof i32a) &&
       pk_dims(r, false, &d) && pk_bytes(r, &data, &len));
    return nns__builder_value_data(b, s0, i32a, d.rank, d.dims, data, len,
                                   err);
  case PK_OBSERVED_SHAPE:
    RD(pk_str(r, &s0) && pk_dims(r, false, &d));
    return nns__builder_observed_shape(b, s0, d.rank, d.dims, err);
  case PK_KERNEL:
    RD(pk_read(r, &n32, sizeof n32) && pk_read(r, &m32, sizeof m32));
    return nns_builder_mark_kernel(b, n32, m32, err);
  case PK_MODULE_CALL:
    RD(pk_str(r, &s0) && pk_read(r, &i64, sizeof i64) && pk_str(r, &s1));
    if ((st = nns__builder_usable(b, err)))
      return st;
    if (i64 < 0)
      return nns__err(err, NNS_E_ARG, -1, NULL,
                      "module '%s': call %lld is negative", s0 ? s0 : "",
                 (long long)i64);
    return nns_model_set_module_call(nns__builder_model(b), s0, (size_t)i64,
                                     s1, err);
  case PK_MODULE_SHAPES: {
    pdims out;
    RD(pk_str(r, &s0) && pk_dims(r, false, &d) && pk_dims(r, false, &out));
    if ((st = nns__builder_usable(b, err)))
      return st;
    return nns_model_set_module_shapes(nns__builder_model(b), s0, d.dims,
                                       d.rank, out.dims, out.rank, err);
  }
  case PK_ATEN:
    return pk_aten(b, r, err);
  case PK_NAMES: {
    uint64_t values, nodes, inits;
    RD(pk_read(r, &values, sizeof values) &&
       pk_read(r, &nodes, sizeof nodes) && pk_read(r, &inits, sizeof inits));
    nns_error quiet;
    nns__front *f = pk_front(b, err ? err : &quiet);
    if (!f)
      return err ? err->code : quiet.code;
    /* the numbers a graph can hold: names and node numbers stay short */
    if (values > ((uint64_t)1 << 48) || nodes > ((uint64_t)1 << 48) ||
        inits > ((uint64_t)1 << 48))
      return nns__err(err, NNS_E_ARG, -1, NULL,
                      "a names record numbers past 2^48 (%llu, %llu, %llu)",
                      (unsigned long long)values, (unsigned long long)nodes,
                      (unsigned long long)inits);
    nns__front_number_next(f, values, nodes, inits);
    return NNS_OK;
  }
  case PK_MODULE_TENSOR:
    RD(pk_str(r, &s0) && pk_str(r, &s1) && pk_read(r, &i32a, sizeof i32a) &&
       pk_dims(r, false, &d) && pk_read(r, &i32b, sizeof i32b));
    if ((st = nns__builder_usable(b, err)))
      return st;
    return nns_model_add_module_tensor(nns__builder_model(b), s0, s1, i32a,
                                       d.rank, d.dims, (nns_param_kind)i32b,
                                       err);
  case PK_REPLAY:
    r->why = "a replay record outside deferred numbering (record 32)";
    return NNS_E_ARG;
  case PK_DROPPED:
    r->why = "a dropped record outside deferred numbering (record 32)";
    return NNS_E_ARG;
  default:
    r->why = "unknown record tag";
    return NNS_E_ARG;
  }
#undef RD
}

/* ==== Deferred numbering (record 32) ====
 *
 * The recorder numbers only what it makes; the front shifts its numbers by
 * what each numbered call took (deferred.c). A kernel record counts the
 * recorder's entries: each node record, numbered call (a names record and
 * its aten record) and aten record that makes a node (a weight's t() the
 * product reading it folds makes none), mapped here to the library's
 * nodes. */
static nns_status pk_replay(nns_builder *b, preader *r, nns_error *err);

static nns_status pk_deferred_record(nns_builder *b, preader *r, uint8_t tag,
                                     uint8_t last, nns_error *err) {
  nns_error quiet;
  if (tag == PK_DEFERRED_NAMES) {
    nns__front *f = pk_front(b, err ? err : &quiet);
    if (!f)
      return err ? err->code : quiet.code;
    if (r->deferred || f->calls || nns__builder_node_count(b))
      return nns__err(err, NNS_E_ARG, -1, NULL,
                      "a deferred_names record after nodes, aten records "
                      "or another deferred_names record");
    f->deferred = true;
    r->deferred = f;
    /* the values the library numbers, and the recorder's outputs it names
     * ("\3" K.J): a hint, as the interner's */
    size_t size = (size_t)(r->end - r->start);
    nns__map_reserve(&f->values, pk_hint(size, PK_VALUE_BYTES));
    nns__map_reserve(&f->provisional, pk_hint(size, PK_OUTPUT_BYTES));
    r->entries = (nns__arena_vec){0};
    return NNS_OK;
  }
  if (last == PK_DROPPED && tag != PK_NAMES)
    return r->why = "a dropped record is not followed by a names record",
           NNS_E_ARG;
  if (tag == PK_DROPPED) {
    r->dropping = true;
    r->drop_mark = nns__builder_marked(b);
    return NNS_OK;
  }
  if (tag == PK_REPLAY)
    return pk_replay(b, r, err);
  nns__arena *arena = nns__builder_arena(b);
  size_t nodes = nns__builder_node_count(b);
  bool entry = tag == PK_NODE || tag == PK_NAMES ||
               (tag == PK_ATEN && last != PK_NAMES);
  if (tag == PK_KERNEL) {
    uint32_t first, count;
    if (!pk_read(r, &first, sizeof first) || !pk_read(r, &count, sizeof count))
      return NNS_E_ARG;
    size_t n = r->entries.n;
    const size_t *at = r->entries.p;
    if ((uint64_t)first + count > n)
      return nns__err(err, NNS_E_ARG, -1, NULL,
                      "kernel: entries %u..%llu of %zu", first,
                      (unsigned long long)first + count, n);
    size_t a = at[first];
    size_t z = (uint64_t)first + count < n ? at[first + count] : nodes;
    return z - a < 2 ? NNS_OK
                     : nns_builder_mark_kernel(b, a, z - a, err);
  }
  if (tag == PK_OBSERVED_SHAPE) {
    const char *name;
    pdims d;
    if (!pk_str(r, &name) || !pk_dims(r, false, &d))
      return NNS_E_ARG;
    /* an output no node wrote (max pooling's indices, unread): unnamed, as
     * the recorder leaves it when it numbers */
    return name && name[0] == 3 ? NNS_OK
           : nns__builder_observed_shape(b, name, d.rank, d.dims, err);
  }
  if (entry) {
    size_t *e = nns__arena_vec_push(arena, &r->entries, sizeof *e);
    if (!e)
      return nns__err(err, NNS_E_NOMEM, -1, NULL, "out of memory");
    *e = nodes;
  }
  if (tag == PK_NAMES) {
    uint64_t values, next, inits;
    if (!pk_read(r, &values, sizeof values) ||
        !pk_read(r, &next, sizeof next) || !pk_read(r, &inits, sizeof inits))
      return NNS_E_ARG;
    if (r->replay) { /* (unsigned: a move back wraps and comes back) */
      const nns__replay *m = r->replay;
      values += m->to[NNS__RP_VALUES] - m->from[NNS__RP_VALUES];
      next += m->to[NNS__RP_NODES] - m->from[NNS__RP_NODES];
      inits += m->inits_to - m->inits_from;
    }
    if (values > ((uint64_t)1 << 48) || next > ((uint64_t)1 << 48) ||
        inits > ((uint64_t)1 << 48))
      return nns__err(err, NNS_E_ARG, -1, NULL,
                      "a names record numbers past 2^48");
    nns__front_deferred_names(r->deferred, values, next, inits);
    return NNS_OK;
  }
  nns_status st = pk_record(b, r, tag, err);
  if (st || tag != PK_ATEN)
    return st;
  if (last == PK_NAMES) {
    st = nns__front_deferred_done(r->deferred, err);
    if (!st && r->dropping) /* its numbers taken, its nodes not kept */
      nns__builder_take_back(b, r->drop_mark);
    r->dropping = false;
    return st;
  }
  if (nns__builder_node_count(b) == nodes)
    r->entries.n--; /* a folded t(): no entry of the recorder's */
  return NNS_OK;
}

/* ==== Records read again (record 33, replay.c) ==== */

/* The records a replay reads again: a layer's entries and what they
 * carry (its nodes' attributes). */
static bool pk_replayable(uint8_t tag) {
  return tag == PK_NODE || tag == PK_NAMES || tag == PK_ATEN ||
         tag == PK_DROPPED ||
         (tag >= PK_ATTR_INT && tag <= PK_ATTR_TYPE);
}

/* The replay's records, read by `s` over the bytes they hold. */
static nns_status pk_replayed(nns_builder *b, preader *s, nns_error *err) {
  uint8_t last = 0;
  while (s->p < s->end || last == PK_NAMES || last == PK_DROPPED) {
    size_t at = (size_t)(s->p - s->start);
    uint8_t tag = s->p < s->end ? *s->p++ : 0;
    nns_status st = NNS_E_ARG;
    s->why = NULL;
    if (last == PK_NAMES && tag != PK_ATEN)
      s->why = "a names record is not followed by an aten record";
    else if (!pk_replayable(tag))
      s->why = "a record a replay does not read again";
    else
      st = pk_deferred_record(b, s, tag, last, err);
    last = tag;
    if (!st)
      continue;
    const char *kind = tag && tag <= PK_LAST ? nns_packed_record_name(tag)
                                             : "?";
    if (s->why)
      return nns__err(err, s->why == pk_oom ? NNS_E_NOMEM : NNS_E_ARG, -1,
                      NULL, "the record read again at byte %zu (tag %u, %s): "
                      "%s", at, (unsigned)tag, kind, s->why);
    if (err) {
      char inner[sizeof err->message];
      memcpy(inner, err->message, sizeof inner);
      inner[sizeof inner - 1] = 0;
      nns__err(err, st, -1, err->node, "the record read again at byte %zu "
               "(%s): %s", at, kind, inner);
    }
    return st;
  }
  return NNS_OK;
}

static nns_status pk_replay(nns_builder *b, preader *r, nns_error *err) {
  size_t here = (size_t)(r->p - r->start) - 1; /* the record's own byte */
  uint64_t offset, length;
  nns__replay m = {0};
  bool ok = pk_read(r, &offset, sizeof offset) &&
            pk_read(r, &length, sizeof length);
  for (int k = 0; ok && k < NNS__RP_KINDS; k++)
    ok = pk_read(r, &m.from[k], 8) && pk_read(r, &m.count[k], 8) &&
         pk_read(r, &m.to[k], 8);
  ok = ok && pk_read(r, &m.inits_from, 8) && pk_read(r, &m.inits_to, 8) &&
       pk_raw_str(r, &m.path_from) && pk_raw_str(r, &m.path_to) &&
       pk_read(r, &m.n_args, sizeof m.n_args);
  if (!ok)
    return NNS_E_ARG;
  if (!m.path_from || !*m.path_from || !m.path_to)
    return r->why = "a replay's module paths are missing or empty",
           NNS_E_ARG;
  if (offset < 8 || length == 0 || offset > here || length > here - offset)
    return r->why = "a replay's bytes are not earlier records of the buffer",
           NNS_E_ARG;
  size_t size = (size_t)(r->end - r->start);
  if (length > (uint64_t)64 * size - r->replayed)
    return r->why = "the bytes read again exceed 64 times the buffer",
           NNS_E_ARG;
  if (m.n_args > 1024)
    return r->why = "a replay names more than 1024 arguments", NNS_E_ARG;
  m.path_from_len = strlen(m.path_from);
  m.path_to_len = strlen(m.path_to);
  size_t n = m.n_args ? m.n_args : 1;
  const char **names = malloc(2 * n * sizeof *names);
  size_t *lens = malloc(n * sizeof *lens);
  if (!names || !lens) {
    free(names);
    free(lens);
    return r->why = pk_oom, NNS_E_ARG;
  }
  m.arg_from = names;
  m.arg_to = names + m.n_args;
  m.arg_len = lens;
  for (uint32_t k = 0; ok && k < m.n_args; k++) {
    ok = pk_raw_str(r, &m.arg_from[k]) && pk_raw_str(r, &m.arg_to[k]);
    if (ok && (!m.arg_from[k] || !m.arg_to[k] || !*m.arg_from[k]))
      ok = pk_fail(r, "a replay's argument has no name");
    else if (ok)
      lens[k] = strlen(m.arg_from[k]);
  }
  nns_status st = NNS_E_ARG;
  if (ok) {
    r->replayed += length;
    preader s = {.p = r->start + offset, .end = r->start + offset + length,
                 .deferred = r->deferred, .entries = r->entries,
                 .start = r->start, .replay = &m};
    st = pk_replayed(b, &s, err);
    r->entries = s.entries;
    free(s.scratch);
  }
  free(names);
  free(lens);
  return st;
}

nns_status nns_builder_add_packed(nns_builder *b, const void *data,
                                  size_t size, nns_error *err) {
  nns_status st = nns__builder_usable(b, err);
  if (st)
    return st;
  if (!data && size)
    return nns__err(err, NNS_E_ARG, -1, NULL,
                    "nns_builder_add_packed: data is NULL");
  static const char magic[4] = {'N', 'N', 'S', 'P'};
  uint32_t version;
  if (size < 8 || memcmp(data, magic, 4) != 0)
    return nns__err(err, NNS_E_ARG, -1, NULL,
                    "packed calls: the buffer does not start with \"NNSP\" "
               "and a version");
  memcpy(&version, (const uint8_t *)data + 4, sizeof version);
  if (version != NNS_PACKED_VERSION)
    return nns__err(err, NNS_E_ARG, -1, NULL,
                    "packed calls: format version %u, this library reads "
               "%d", (unsigned)version, NNS_PACKED_VERSION);
  preader r = {.p = (const uint8_t *)data + 8,
               .end = (const uint8_t *)data + size, .start = data};
  nns__front *f = nns__builder_front(b);
  r.deferred = f && f->deferred ? f : NULL;
  /* Room for the names to come, so the tables of names are laid out once,
   * not doubled five times over a DenseNet: a recording packs a distinct
   * name per 45 to 160 bytes (bench/recording_profile.md, "Forty-fifth
   * pass"). A hint only: a failed one is no error, interning grows the
   * table as it goes. */
  nns__builder_reserve_names(b, pk_hint(size, PK_NAME_BYTES));
  size_t index = 0;
  uint8_t last = 0;
  while (r.p < r.end || last == PK_NAMES || last == PK_DROPPED) {
    size_t at = (size_t)(r.p - (const uint8_t *)data);
    uint8_t tag = r.p < r.end ? *r.p++ : 0;
    r.why = NULL;
    if (last == PK_NAMES && tag != PK_ATEN) {
      r.why = "a names record is not followed by an aten record";
      st = NNS_E_ARG;
    } else if (r.deferred || tag == PK_DEFERRED_NAMES) {
      st = pk_deferred_record(b, &r, tag, last, err);
    } else {
      st = pk_record(b, &r, tag, err);
    }
    last = tag;
    if (st) {
      const char *kind = tag && tag <= PK_LAST ? nns_packed_record_name(tag)
                                               : "?";
      if (r.why) {
        st = r.why == pk_oom ? NNS_E_NOMEM : NNS_E_ARG;
        nns__err(err, st, (int64_t)at, NULL,
                 "packed record %zu (tag %u, %s) at byte %zu: %s", index,
                 (unsigned)tag, kind, at, r.why);
      } else if (err) {
        char inner[sizeof err->message], node[sizeof err->node];
        memcpy(inner, err->message, sizeof inner);
        memcpy(node, err->node, sizeof node);
        inner[sizeof inner - 1] = node[sizeof node - 1] = 0;
        nns__err(err, st, (int64_t)at, node,
                 "packed record %zu (%s) at byte %zu: %s", index, kind, at,
                 inner);
      }
      if (index > 0)
        nns__builder_break(b); /* records before this one stay applied */
      pk_free(&r);
      return st;
    }
    index++;
  }
  if (!r.deferred) {
    pk_free(&r);
    return NNS_OK;
  }
  /* A backward graph's forward tensors, numbered "fwdN" where a node
   * first read them, listed in that order (the rules' order: they name
   * each where they read it), not in the order the recorder marked them
   * (a call's arguments' order: nll_loss_backward reads its total weight
   * before its target). */
  st = nns__builder_order_inputs(b, r.forward, r.forward_key, r.n_forward,
                                 err);
  pk_free(&r);
  if (st) {
    nns__builder_break(b);
    return st;
  }
  r.deferred->recorded = r.entries; /* (arena memory: the builder's) */
  /* the domains of the library's nodes, which the recorder did not see */
  return nns__builder_opsets_of_nodes(b, err);
}

nns_status nns_builder_packed_name(nns_builder *b, const char *name,
                                   const char **out, nns_error *err) {
  nns_status st = nns__builder_usable(b, err);
  if (st)
    return st;
  if (!name || !out)
    return nns__err(err, NNS_E_ARG, -1, NULL,
                    "nns_builder_packed_name: name or out is NULL");
  nns__front *f = nns__builder_front(b);
  *out = f ? nns__front_deferred_name(f, name) : name;
  if (!*out)
    return nns__err(err, NNS_E_ARG, -1, NULL,
                    "nns_builder_packed_name: '%s' does not end in a number "
                    "(or out of memory)", name + 1);
  return NNS_OK;
}

nns_status nns_builder_packed_entries(nns_builder *b, size_t first,
                                      size_t count, size_t *node_first,
                                      size_t *node_count, nns_error *err) {
  nns_status st = nns__builder_usable(b, err);
  if (st)
    return st;
  if (!node_first || !node_count)
    return nns__err(err, NNS_E_ARG, -1, NULL,
                    "nns_builder_packed_entries: node_first or node_count "
                    "is NULL");
  nns__front *f = nns__builder_front(b);
  if (!f || !f->deferred)
    return nns__err(err, NNS_E_ARG, -1, NULL,
                    "nns_builder_packed_entries: the packed form did not "
                    "defer its numbering (record 32)");
  size_t n = f->recorded.n;
  const size_t *at = f->recorded.p;
  if (first > n || count > n - first)
    return nns__err(err, NNS_E_ARG, -1, NULL,
                    "nns_builder_packed_entries: %zu entries from entry "
                    "%zu, of %zu",
                    count, first, n);
  size_t nodes = nns__builder_node_count(b);
  size_t a = first < n ? at[first] : nodes;
  size_t z = first + count < n ? at[first + count] : nodes;
  *node_first = a;
  *node_count = z - a;
  return NNS_OK;
}

/* ==== The numbering of one call, for a binding ==== */

nns_status nns_aten_numbering(const void *data, size_t size,
                              nns_aten_numbering_info *out, nns_error *err) {
  if (!out || out->size < sizeof *out)
    return nns__err(err, NNS_E_ARG, -1, NULL,
                    "nns_aten_numbering: out is NULL or its size is not "
                    "sizeof(nns_aten_numbering_info)");
  /* the header, what the call reads (initializers, their kinds, calls
   * before it: a weight's t() it folds), `names` 0 0 0, one aten record */
  const uint8_t *p = data;
  enum { HEAD = 8, NAMES = 1 + 24 };
  static const uint8_t zeros[24];
  uint32_t version;
  if (!data || size < HEAD + NAMES + 1)
    return nns__err(err, NNS_E_ARG, -1, NULL,
                    "nns_aten_numbering: the buffer must hold a names "
                    "record of zeros, then an aten record");
  memcpy(&version, p + 4, sizeof version);
  if (memcmp(p, "NNSP", 4) || version != NNS_PACKED_VERSION)
    return nns__err(err, NNS_E_ARG, -1, NULL,
                    "nns_aten_numbering: the buffer does not start with "
                    "\"NNSP\" and version %d", NNS_PACKED_VERSION);
  nns_builder *b = NULL;
  nns_status st = nns_builder_new(&b, err);
  if (st)
    return st;
  nns_error quiet;
  nns__front *f = pk_front(b, err ? err : &quiet);
  if (!f) {
    nns_builder_free(b);
    return err ? err->code : quiet.code;
  }
  preader r = {.p = p + HEAD, .end = p + size};
  while (st == NNS_OK && r.p < r.end && *r.p != PK_NAMES) {
    size_t at = (size_t)(r.p - p);
    uint8_t tag = *r.p++;
    if (tag != PK_INITIALIZER && tag != PK_PARAM_KIND && tag != PK_ATEN) {
      st = nns__err(err, NNS_E_ARG, (int64_t)at, NULL,
                    "nns_aten_numbering: record at byte %zu (tag %u): only "
                    "initializer, param_kind and aten records come before "
                    "the names record", at, (unsigned)tag);
    } else if ((st = pk_record(b, &r, tag, err)) && r.why) {
      st = nns__err(err, r.why == pk_oom ? NNS_E_NOMEM : NNS_E_ARG,
                    (int64_t)at, NULL,
                    "nns_aten_numbering: record at byte %zu: %s", at, r.why);
    }
  }
  size_t names_at = (size_t)(r.p - p);
  if (st == NNS_OK &&
      ((size_t)(r.end - r.p) < NAMES + 1 || r.p[0] != PK_NAMES ||
       memcmp(r.p + 1, zeros, 24) || r.p[NAMES] != PK_ATEN))
    st = nns__err(err, NNS_E_ARG, -1, NULL,
                  "nns_aten_numbering: the buffer must hold a names "
                  "record of zeros, then an aten record");
  if (st) {
    pk_free(&r);
    nns_builder_free(b);
    return st;
  }
  nns__front_number_next(f, 0, 0, 0);
  f->planning = true;
  r.p += NAMES + 1;
  r.why = NULL;
  st = pk_aten(b, &r, err);
  if (st && r.why)
    st = nns__err(err, r.why == pk_oom ? NNS_E_NOMEM : NNS_E_ARG,
                  (int64_t)(names_at + NAMES), NULL,
                  "nns_aten_numbering: the aten record at byte %zu: %s",
                  names_at + NAMES, r.why);
  pk_free(&r);
  if (st == NNS_OK && r.p != r.end)
    st = nns__err(err, NNS_E_ARG, (int64_t)(r.p - p), NULL,
                  "nns_aten_numbering: the buffer holds more than the names "
                  "and aten records (byte %zu on)", (size_t)(r.p - p));
  if (st == NNS_OK && !f->lowered)
    st = nns__err(err, NNS_E_NOTFOUND, -1, NULL,
                  "nns_aten_numbering: the table does not lower this call");
  if (st == NNS_OK && (f->n_outs > NNS_ATEN_NUMBERING_MAX ||
                       f->n_reads > NNS_ATEN_NUMBERING_MAX || f->n_ops > 256))
    st = nns__err(err, NNS_E_LIMIT, -1, NULL,
                  "nns_aten_numbering: more than %d outputs or tensor "
                  "arguments, or 256 nodes", NNS_ATEN_NUMBERING_MAX);
  size_t at = 0;
  for (int k = 0; st == NNS_OK && k < f->n_ops; k++) {
    size_t n = strlen(f->ops[k]) + (k > 0);
    if (at + n + 1 > sizeof out->op_types) {
      st = nns__err(err, NNS_E_LIMIT, -1, NULL,
                    "nns_aten_numbering: the op types take more than %zu "
                    "bytes", sizeof out->op_types);
      break;
    }
    if (k)
      out->op_types[at++] = ' ';
    memcpy(out->op_types + at, f->ops[k], strlen(f->ops[k]));
    at += strlen(f->ops[k]);
  }
  if (st == NNS_OK) {
    out->op_types[at] = 0;
    out->values = (int64_t)f->number;
    out->constants = (int64_t)f->constants;
    out->nodes = (int64_t)f->node_number;
    out->n_outs = f->n_outs;
    out->n_tensors = f->n_reads;
    for (int k = 0; k < f->n_outs; k++) {
      out->out_number[k] = f->out_number[k];
      out->alias_of[k] = f->out_alias[k];
    }
    for (int k = 0; k < f->n_reads; k++) {
      out->first_read[k] = f->first_read[k];
      out->read_after[k] = f->read_after[k];
    }
  }
  nns_builder_free(b);
  return st;
}
