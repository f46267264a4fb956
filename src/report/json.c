/*
 * json.c - the summary as JSON: the machine contract ("nnscan.summary",
 * schema_version 1, the default, and 2, where every count carries its
 * status and the diagnostics behind it: json_status.c), documented in
 * docs/json.md and checked against docs/summary.schema.json and
 * docs/summary.v2.schema.json by the tests.
 *
 * Numbers are always raw integers whatever the options say; the layers
 * appear twice, as a flat preorder list (easy to filter) and as a nested
 * tree (easy to walk), both cut at the chosen depth. The contract only ever
 * grows: a new field is a new key, never a changed one. Everything is
 * written through the JSON writer (src/base/json_writer.h), which places
 * the separators; the breaks asked of it keep the layout people read.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../base/json_reader.h"
#include "../base/vec.h"
#include "json_status.h"
#include "report_int.h"

/* The indents of the layout: top-level keys, their items, and the rows of
 * the per-node arrays. */
#define BR1 "\n  "
#define BR2 "\n    "
#define BR3 "\n      "

/* ==== Repeated fragments ==== */

/*
 * Much of a layer repeats from row to row: its values (a layer's input
 * is the output of the one before it), their types, its field, flags,
 * type and op types, and its counts (layers of one op type and shape
 * count the same); and every layer is written twice (the flat list and
 * the tree). Such a fragment is written once, by the same writer calls,
 * into a scratch writer whose bytes are kept, and then copied: the
 * document's writer still places the separator and key before it, and a
 * container (or a run of items) written whole leaves the writer as it
 * was, so the bytes are the same. Together they more than halved the
 * instructions of a 100k-layer JSON report.
 */
enum {
  FRAG_MAX = 512, RF_SLOTS = 8, TYPE_SLOTS = 8,
  TYPE_DIMS = 8, NAME_SLOTS = 8, COUNTS_SLOTS = 8
};

typedef struct frag {
  size_t len;           /* bytes in text; 0: the slot is empty */
  char text[FRAG_MAX];
} frag;

/* String items by the address of the string they are written from. */
typedef struct str_cache {
  frag text[NAME_SLOTS];
  const char *of[NAME_SLOTS];     /* the string each slot was written from */
  size_t next;                    /* the slot the next new one takes */
} str_cache;

/* What a value's "dtype", "shape" and "kind" items are written from
 * (nns__json_value_type); unused dims are zero, so keys compare whole. */
typedef struct type_key {
  int dtype, kind, rank;
  int64_t value[TYPE_DIMS];      /* each dim's value (-1: symbolic) */
  const char *symbol[TYPE_DIMS]; /* and its symbol, an interned string */
} type_key;

/* A writer whose bytes are kept (frag_begin, frag_end). */
typedef struct scratch {
  nns__out out;                   /* its buffer */
  nns__jw jw;
} scratch;

typedef struct jcache {
  scratch outer;                  /* values, fields, flags, strings */
  scratch inner;                  /* a value's type (inside its value),
                                     a layer's counts */
  /* Every value's object once written (the tree repeats the flat
   * list's values, 80k layers later): value i's is values.v[value_at[i]]
   * on, value_len[i] bytes (0: not kept). */
  NNS__VEC(char) values;
  uint32_t *value_at;
  uint16_t *value_len;
  size_t n_values;                /* entries of value_at and value_len */
  frag rf[RF_SLOTS];              /* fields without periods, in turn */
  nns_rf rf_of[RF_SLOTS];
  size_t rf_next;                 /* the slot the next new field takes */
  frag flags[16];                 /* by the four flag bits */
  frag type[TYPE_SLOTS];          /* a value's type items, in turn */
  type_key type_of[TYPE_SLOTS];
  size_t type_next;               /* the slot the next new type takes */
  /* A layer's "type" string and "op_types" array, by the address of the
   * analysis's string they are written from (shared by the layers of one
   * op type). */
  str_cache layer_type, op_types;
  /* A layer's count items, by the whole nns_counts they are written from
   * (compared byte for byte: a difference anywhere, padding included, is
   * only a miss). Layers of one op type and shape count the same. */
  frag counts[COUNTS_SLOTS];
  nns_counts counts_of[COUNTS_SLOTS];
  size_t counts_next;             /* the slot the next new one takes */
} jcache;

/* The scratch writer never flushes: a fragment larger than its buffer
 * makes it fail, and is then written directly. */
static int refuse(void *user, const char *data, size_t size) {
  (void)user;
  (void)data;
  (void)size;
  return -1;
}

static nns__jw *frag_begin(scratch *c) {
  nns__out_init(&c->out, refuse, NULL);
  nns__jw_init(&c->jw, &c->out);
  return &c->jw;
}

/* Keeps what the scratch writer wrote in f, less its first `skip`
 * bytes; false when it did not fit. */
static bool frag_end_from(scratch *c, frag *f, size_t skip) {
  bool ok = nns__jw_finish(&c->jw) == NNS_OK && !c->out.failed &&
            c->out.len > skip && c->out.len - skip <= sizeof f->text;
  f->len = 0;
  if (ok) {
    memcpy(f->text, c->out.buf + skip, c->out.len - skip);
    f->len = c->out.len - skip;
  }
  return ok;
}

static bool frag_end(scratch *c, frag *f) { return frag_end_from(c, f, 0); }

/* Writes a kept fragment as the value of `key`. */
static void frag_put(nns__jw *w, const char *key, size_t klen,
                     const frag *f) {
  nns__jw_sep(w, key, klen);
  nns__out_put(w->o, f->text, f->len);
}

/* ==== Values ==== */

/* The "dtype", "shape" and "kind" items of value i (*v read by the
 * caller), through the cache c when there is one: a graph has a handful
 * of shapes, and their items were most of a value's cost. A kept type is
 * the items as a scratch object holding only them writes them, less its
 * "{"; the document's writer places the separator before the first. */
static void j_value_type(nns__jw *w, const nns_model *m,
                         const nns_analysis *a, size_t i,
                         const nns_value_info *v, jcache *c) {
  if (!c || v->rank > TYPE_DIMS) {
    nns__json_value_type(w, m, a, i, v);
    return;
  }
  type_key k;
  memset(&k, 0, sizeof k);
  k.dtype = v->dtype;
  k.kind = (int)v->kind;
  k.rank = v->rank;
  for (int d = 0; d < v->rank; d++) {
    nns_dim x = nns__dim_of(m, a, i, d);
    k.value[d] = x.value;
    k.symbol[d] = x.symbol;
  }
  frag *f = NULL;
  for (size_t s = 0; s < TYPE_SLOTS && !f; s++)
    if (c->type[s].len && !memcmp(&c->type_of[s], &k, sizeof k))
      f = &c->type[s];
  if (!f) {
    nns__jw *s = frag_begin(&c->inner);
    nns__jw_obj(s, NNS__JV);
    nns__json_value_type(s, m, a, i, v);
    f = &c->type[c->type_next];
    if (!frag_end_from(&c->inner, f, 1)) { /* the "{" */
      nns__json_value_type(w, m, a, i, v);
      return;
    }
    c->type_of[c->type_next] = k;
    c->type_next = (c->type_next + 1) % TYPE_SLOTS;
  }
  frag_put(w, NULL, 0, f);
}

/* {"name": N, "dtype": D, "shape": S} as `nnscan shapes` writes a value:
 * a dim is an integer, a symbol's string, or null when nothing is known. */
static void j_value_obj(nns__jw *w, const char *key, size_t klen,
                        const nns_model *m, const nns_analysis *a, size_t i,
                        jcache *c) {
  nns_value_info v = nns__value_of(m, a, i);
  nns__jw_obj(w, key, klen);
  nns__jw_str(w, NNS__JK("name"), v.name);
  j_value_type(w, m, a, i, &v, c);
  nns__jw_end(w, NULL);
}

/* The same, through the cache c when there is one. */
static void j_value(nns__jw *w, const char *key, size_t klen,
                    const nns_analysis *a, size_t i, jcache *c) {
  const nns_model *m = nns_analysis_model(a);
  if (i == (size_t)-1 || i >= nns_model_value_count(m)) {
    nns__jw_null(w, key, klen);
    return;
  }
  if (!c || i >= c->n_values) {
    j_value_obj(w, key, klen, m, a, i, c);
    return;
  }
  if (!c->value_len[i]) {
    frag f;
    j_value_obj(frag_begin(&c->outer), NNS__JV, m, a, i, c);
    /* Kept while the store's offsets fit 32 bits and it can grow. */
    if (!frag_end(&c->outer, &f) || c->values.n > UINT32_MAX - f.len ||
        !nns__vec_reserve(&c->values, c->values.n + f.len)) {
      j_value_obj(w, key, klen, m, a, i, c);
      return;
    }
    memcpy(c->values.v + c->values.n, f.text, f.len);
    c->value_at[i] = (uint32_t)c->values.n;
    c->value_len[i] = (uint16_t)f.len;
    c->values.n += f.len;
  }
  nns__jw_sep(w, key, klen);
  nns__out_put(w->o, c->values.v + c->value_at[i], c->value_len[i]);
}

static void j_flags_obj(nns__jw *w, const char *key, size_t klen,
                        unsigned f) {
  nns__jw_obj(w, key, klen);
  /* Every flag but saturated, which the totals state (NNS_COUNT_FLAG_MAP). */
  for (int b = 0; nns_count_flag_name(b); b++)
    if ((1u << b) != NNS_COUNT_OVERFLOW) {
      nns__jw_key(w, nns_count_flag_name(b));
      nns__jw_bool(w, NNS__JV, f & (1u << b));
    }
  nns__jw_end(w, NULL);
}

static void j_flags(nns__jw *w, unsigned f, jcache *c) {
  unsigned bits = f & (NNS_COUNT_PARTIAL | NNS_COUNT_SYMBOLIC |
                       NNS_COUNT_SHARED | NNS_COUNT_UNBOUNDED);
  if (!c) {
    j_flags_obj(w, NNS__JK("flags"), f);
    return;
  }
  frag *k = &c->flags[bits];
  if (!k->len) {
    j_flags_obj(frag_begin(&c->outer), NNS__JV, bits);
    if (!frag_end(&c->outer, k)) {
      j_flags_obj(w, NNS__JK("flags"), f);
      return;
    }
  }
  frag_put(w, NNS__JK("flags"), k);
}

static void j_axes(nns__jw *w, const char *key, size_t klen,
                   const int64_t *v, int axes) {
  nns__jw_arr(w, key, klen);
  for (int a = 0; a < axes; a++)
    nns__jw_int(w, NNS__JV, v[a]);
  nns__jw_end(w, NULL);
}

/* A field that differs between positions: per axis its period and the
 * pixels [first, last] that positions 0..period-1 read (position i +
 * period reads those of i moved by period * stride). Layers only. */
static void j_rf_period(nns__jw *w, const nns_analysis *an, size_t layer,
                        const nns_rf *rf, int axes) {
  bool any = false;
  for (int a = 0; a < axes; a++)
    any |= rf->period[a] > 1;
  if (!any || rf->whole)
    return;
  nns__jw_arr(w, NNS__JK("period"));
  for (int a = 0; a < axes; a++)
    nns__jw_int(w, NNS__JV, rf->period[a] > 1 ? rf->period[a] : 1);
  nns__jw_end(w, NULL);
  nns__jw_arr(w, NNS__JK("spans"));
  for (int a = 0; a < axes; a++) {
    nns__jw_arr(w, NNS__JV);
    int p = rf->period[a] > 1 ? rf->period[a] : 1;
    for (int i = 0; i < p; i++) {
      int64_t first = 0, last = 0;
      nns_analysis_layer_rf_span(an, layer, a, i, &first, &last);
      nns__jw_arr(w, NNS__JV);
      nns__jw_int(w, NNS__JV, first);
      nns__jw_int(w, NNS__JV, last);
      nns__jw_end(w, NULL);
    }
    nns__jw_end(w, NULL);
  }
  nns__jw_end(w, NULL);
}

/* Whether fields a and b write the same "rf" object (neither has
 * periods, which are written per layer). */
static bool same_field(const nns_rf *a, const nns_rf *b, int axes) {
  if (a->axes != b->axes || !a->whole != !b->whole ||
      !(a->global_context || a->whole) != !(b->global_context || b->whole))
    return false;
  for (int k = 0; k < axes; k++)
    if (a->field[k] != b->field[k] || a->stride[k] != b->stride[k] ||
        a->padding[k] != b->padding[k])
      return false;
  return true;
}

static void j_rf_obj(nns__jw *w, const char *key, size_t klen,
                     const nns_analysis *a, size_t layer, const nns_rf *rf,
                     int axes) {
  nns__jw_obj(w, key, klen);
  nns__jw_int(w, NNS__JK("axes"), axes);
  j_axes(w, NNS__JK("field"), rf->field, axes);
  j_axes(w, NNS__JK("stride"), rf->stride, axes);
  j_axes(w, NNS__JK("padding"), rf->padding, axes);
  nns__jw_bool(w, NNS__JK("whole"), rf->whole);
  nns__jw_bool(w, NNS__JK("global_context"), rf->global_context || rf->whole);
  if (a)
    j_rf_period(w, a, layer, rf, axes);
  nns__jw_end(w, NULL);
}

/* null when the value has no spatial axes and is not a global view. A
 * field without periods goes through the cache c when there is one. */
static void j_rf(nns__jw *w, const nns_analysis *a, size_t layer,
                 const nns_rf *rf, jcache *c) {
  int axes = rf->axes < 0 ? 0 : rf->axes > NNS_RF_MAX_AXES ? NNS_RF_MAX_AXES
                                                          : rf->axes;
  if (axes == 0 && !rf->whole) {
    nns__jw_null(w, NNS__JK("rf"));
    return;
  }
  bool periodic = false;
  for (int k = 0; k < axes && !rf->whole; k++)
    periodic |= rf->period[k] > 1;
  if (!c || periodic) {
    j_rf_obj(w, NNS__JK("rf"), a, layer, rf, axes);
    return;
  }
  for (size_t k = 0; k < RF_SLOTS; k++)
    if (c->rf[k].len && same_field(&c->rf_of[k], rf, axes)) {
      frag_put(w, NNS__JK("rf"), &c->rf[k]);
      return;
    }
  frag *f = &c->rf[c->rf_next];
  j_rf_obj(frag_begin(&c->outer), NNS__JV, a, layer, rf, axes);
  if (!frag_end(&c->outer, f)) {
    j_rf_obj(w, NNS__JK("rf"), a, layer, rf, axes);
    return;
  }
  c->rf_of[c->rf_next] = *rf;
  c->rf_next = (c->rf_next + 1) % RF_SLOTS;
  frag_put(w, NNS__JK("rf"), f);
}

/* params_active on every layer and in the totals: params + frozen where
 * no experts are (a dense model's, so a script reads it for any model);
 * weight_bytes_read on mixture-of-experts layers (and what holds them)
 * only. Plain numbers in both versions (an annotation's, not a count). */
static void j_experts(nns__jw *w, const nns_counts *k) {
  nns__jw_int(w, NNS__JK("params_active"), k->params_active
              ? k->params_active : nns__sum_sat(k->params, k->frozen));
  if (k->weight_bytes_read && k->weight_bytes_read != k->param_bytes)
    nns__jw_int(w, NNS__JK("weight_bytes_read"), k->weight_bytes_read);
}

/* The roofline's figures of a count: its bytes and intensity, and with
 * `roof` (the analysis named a device) the bound and times. Doubles with 9
 * significant digits, enough to compare with what a test computes. */
static void j_roof(nns__jw *w, const nns_counts *k, bool roof) {
  nns__jw_int(w, NNS__JK("bytes"), k->bytes);
  nns__jw_double(w, NNS__JK("intensity"), k->intensity, 9, false);
  if (!roof)
    return;
  nns__jw_str(w, NNS__JK("bound"), nns_bound_name(k->bound));
  nns__jw_double(w, NNS__JK("time_s"), k->time_s, 9, false);
  nns__jw_double(w, NNS__JK("compute_time_s"), k->compute_time_s, 9, false);
  nns__jw_double(w, NNS__JK("memory_time_s"), k->memory_time_s, 9, false);
}

/* The device and dtypes the roofline used (only when there is one). */
static void j_hardware(nns__jw *w, const nns_totals *t) {
  const nns_hardware *h = &t->hardware;
  nns__jw_obj(w, NNS__JK("hardware"));
  nns__jw_str(w, NNS__JK("name"), h->name);
  nns__jw_str(w, NNS__JK("description"), h->description);
  nns__jw_str(w, NNS__JK("source"), h->source);
  nns__jw_break(w, BR2);
  nns__jw_str(w, NNS__JK("compute_dtype"),
              nns_compute_dtype_name(t->compute_dtype));
  nns__jw_str(w, NNS__JK("float_dtype"),
              nns_compute_dtype_name(t->float_dtype));
  nns__jw_double(w, NNS__JK("matrix_peak_flops"),
                 h->peak_flops[t->compute_dtype], 9, false);
  nns__jw_double(w, NNS__JK("other_peak_flops"),
                 h->peak_flops[t->float_dtype], 9, false);
  nns__jw_double(w, NNS__JK("bandwidth"), h->bandwidth, 9, false);
  nns__jw_break(w, BR2);
  nns__jw_obj(w, NNS__JK("peak_flops"));
  for (int d = 0; d < NNS_COMPUTE_DTYPE_COUNT; d++) {
    nns__jw_key(w, nns_compute_dtype_name(d));
    if (h->peak_flops[d] > 0)
      nns__jw_double(w, NNS__JV, h->peak_flops[d], 9, false);
    else
      nns__jw_null(w, NNS__JV);
  }
  nns__jw_end(w, NULL);
  nns__jw_end(w, NULL);
}

/* Masked attention (docs/metrics.md): the products over the pairs a known
 * mask allows; equal to macs / flops where nothing is masked. On every
 * layer and in the totals, so that a layer whose attention is unmasked
 * says so with a number, as a masked one does. */
static void j_unmasked(nns__jw *w, const nns_counts *k) {
  nns__jw_int(w, NNS__JK("macs_unmasked"), k->macs_unmasked);
  nns__jw_int(w, NNS__JK("flops_unmasked"), k->flops_unmasked);
}

/* v2 (st set): with their status; v1: a status only where a mask is not
 * known (json_status.c). */
static void j_unmasked_st(nns__jw *w, const nns__jstatus *st, size_t layer,
                          const nns_counts *k) {
  j_unmasked(w, k);
  nns__json_unmasked_status(w, st, layer, k);
}

/* Tokens and FLOPs per token, for a model with a token dimension. */
static void j_tokens(nns__jw *w, const nns_counts *all, int64_t tokens) {
  if (tokens <= 0)
    return;
  nns__jw_break(w, BR2);
  nns__jw_int(w, NNS__JK("tokens"), tokens);
  nns__jw_double(w, NNS__JK("flops_per_token"),
                 (double)all->flops / (double)tokens, 17, false);
  nns__jw_double(w, NNS__JK("flops_unmasked_per_token"),
                 (double)all->flops_unmasked / (double)tokens, 17, false);
}

/* The counts every layer, op type and the totals share; with `roof` the
 * roofline's bound and times. */
static void j_counts_items(nns__jw *w, const nns_counts *k, bool roof,
                           jcache *c) {
  /* The metrics (NNS_METRIC_MAP), in its order: version 1's first counts
   * before "nodes" and "flags"; those grown since after them, only when
   * there is something to say (so summaries of models without frozen
   * parameters read as before). */
#define NNS__V1_FIRST_(name, bit, key, lower, member, mflags, text)            \
  if (!((mflags) & NNS_METRIC_V1_GROWN))                                       \
    nns__jw_int(w, NNS__JK(key), k->member);
  NNS_METRIC_MAP(NNS__V1_FIRST_)
#undef NNS__V1_FIRST_
  nns__jw_int(w, NNS__JK("nodes"), k->nodes);
  j_flags(w, k->flags, c);
#define NNS__V1_GROWN_(name, bit, key, lower, member, mflags, text)            \
  if (((mflags) & NNS_METRIC_V1_GROWN) && k->member)                           \
    nns__jw_int(w, NNS__JK(key), k->member);
  NNS_METRIC_MAP(NNS__V1_GROWN_)
#undef NNS__V1_GROWN_
  j_unmasked_st(w, NULL, 0, k);
  j_experts(w, k);
  j_roof(w, k, roof);
}

/* The same, through the cache c when there is one: kept as the items a
 * scratch object holding only them writes, less its "{" (its flags
 * written directly), copied after the separator the document's writer
 * places before the first. */
static void j_counts(nns__jw *w, const nns_counts *k, bool roof,
                     jcache *c) {
  if (!c) {
    j_counts_items(w, k, roof, NULL);
    return;
  }
  for (size_t s = 0; s < COUNTS_SLOTS; s++)
    if (c->counts[s].len && !memcmp(&c->counts_of[s], k, sizeof *k)) {
      frag_put(w, NULL, 0, &c->counts[s]);
      return;
    }
  frag *f = &c->counts[c->counts_next];
  nns__jw *s = frag_begin(&c->inner);
  nns__jw_obj(s, NNS__JV);
  j_counts_items(s, k, roof, NULL);
  if (!frag_end_from(&c->inner, f, 1)) { /* the "{" */
    j_counts_items(w, k, roof, c);
    return;
  }
  c->counts_of[c->counts_next] = *k;
  c->counts_next = (c->counts_next + 1) % COUNTS_SLOTS;
  frag_put(w, NULL, 0, f);
}

/* "Conv,Relu" -> ["Conv", "Relu"]. */
static void j_op_types(nns__jw *w, const char *key, size_t klen,
                       const char *list) {
  nns__jw_arr(w, key, klen);
  for (const char *p = list ? list : ""; *p;) {
    size_t n = strcspn(p, ",");
    /* Names were cut at 255 bytes when written by hand; kept. */
    nns__jw_strn(w, NNS__JV, p, n < 255 ? n : 255);
    p += n;
    if (*p)
      p++;
  }
  nns__jw_end(w, NULL);
}

/* v2 (st set): the counts as metrics with their statuses, the diagnostics
 * of the subtree, and the module's calls. */
static void j_layer_counts(nns__jw *w, const nns_analysis *a, size_t i,
                           const nns_counts *counts,
                           const nns__jstatus *st, bool roof, jcache *c) {
  if (!st) {
    j_counts(w, counts, roof, c);
    /* As in v2: only on a module that never ran (the HTML page reads it). */
    if (nns__layer_of(a, i).not_called)
      nns__jw_bool(w, NNS__JK("called"), false);
    return;
  }
  nns__json_metrics(w, st, i, counts);
  j_unmasked_st(w, st, i, counts);
  j_experts(w, counts);
  j_roof(w, counts, roof);
  nns__jw_int(w, NNS__JK("nodes"), counts->nodes);
  nns__jw_bool(w, NNS__JK("shared"), counts->flags & NNS_COUNT_SHARED);
  nns__json_diag_ids(w, st, i, counts->flags);
  nns_layer_info l = nns__layer_of(a, i);
  if (l.call_count)
    nns__jw_int(w, NNS__JK("call_count"), (int64_t)l.call_count);
  else
    nns__jw_null(w, NNS__JK("call_count"));
  /* Only on a module the binding declared that never ran: a key added
   * beside the others, so readers that do not know it are unaffected. */
  if (l.not_called)
    nns__jw_bool(w, NNS__JK("called"), false);
  /* Each call the binding described (nns_model_set_module_call): its
   * index and the structure of its outputs. */
  nns__jw_arr(w, NNS__JK("calls"));
  const nns_model *m = nns_analysis_model(a);
  /* Only the calls described: a declared call count is the caller's word
   * and may be huge. */
  size_t described = l.path ? nns_model_module_call_count(m, l.path) : 0;
  for (size_t k = 0; k < l.call_count && k < described; k++) {
    const char *text = NULL;
    if (nns_model_module_call(m, l.path, k, &text) != NNS_OK)
      continue;
    nns__arena tmp;
    nns__arena_init(&tmp);
    nns__jval *v = NULL;
    nns__json_parse(&tmp, text, strlen(text), &v, NULL);
    nns__jw_obj(w, NNS__JV);
    nns__jw_int(w, NNS__JK("call"), (int64_t)k);
    nns__jw_jval(w, NNS__JK("outputs"), v);
    nns__jw_end(w, NULL);
    nns__arena_free(&tmp);
  }
  nns__jw_end(w, NULL);
}

/* A string item written by fn(w, key, klen, s): through a cache of slots
 * keyed by s's address when there is one. */
typedef void (*str_item_fn)(nns__jw *w, const char *key, size_t klen,
                            const char *s);

static void j_str_item(nns__jw *w, const char *key, size_t klen,
                       const char *s, str_item_fn fn, str_cache *sc,
                       scratch *tmp) {
  if (!sc) {
    fn(w, key, klen, s);
    return;
  }
  for (size_t k = 0; k < NAME_SLOTS; k++)
    if (sc->text[k].len && sc->of[k] == s) {
      frag_put(w, key, klen, &sc->text[k]);
      return;
    }
  frag *f = &sc->text[sc->next];
  fn(frag_begin(tmp), NNS__JV, s);
  if (!frag_end(tmp, f)) {
    fn(w, key, klen, s);
    return;
  }
  sc->of[sc->next] = s;
  sc->next = (sc->next + 1) % NAME_SLOTS;
  frag_put(w, key, klen, f);
}

/* t: the analysis's totals, read once per report rather than per row;
 * c: the repeated fragments (NULL: none kept). */
static void j_layer(nns__jw *w, const char *key, size_t klen,
                    const nns_analysis *a, size_t i,
                    const nns_layer_info *li, const char *root_name,
                    const nns__jstatus *st, const nns_totals *t,
                    jcache *c) {
  bool roof = t->hardware.name != NULL;
  nns_layer_info l = *li; /* the caller's read of layer i */
  nns_counts counts = nns__layer_counts_of(a, i);
  nns_rf rf = nns__layer_rf_of(a, i);
  nns__jw_obj(w, key, klen);
  nns__jw_int(w, NNS__JK("index"), (int64_t)i);
  nns__jw_str(w, NNS__JK("path"), l.path ? l.path : "");
  nns__jw_str(w, NNS__JK("name"),
              l.depth == 0 ? root_name : l.name ? l.name : "");
  nns__jw_int(w, NNS__JK("depth"), l.depth);
  if (l.parent == (size_t)-1)
    nns__jw_null(w, NNS__JK("parent"));
  else
    nns__jw_int(w, NNS__JK("parent"), (int64_t)l.parent);
  nns__jw_int(w, NNS__JK("children"), (int64_t)l.child_count);
  j_str_item(w, NNS__JK("type"), l.type ? l.type : "", nns__jw_str,
             c ? &c->layer_type : NULL, c ? &c->outer : NULL);
  const char *cls = NULL;
  nns_analysis_layer_class(a, i, &cls);
  nns__jw_str(w, NNS__JK("class"), cls);
  j_str_item(w, NNS__JK("op_types"), l.op_types, j_op_types,
             c ? &c->op_types : NULL, c ? &c->outer : NULL);
  j_value(w, NNS__JK("input"), a, l.input_value, c);
  j_value(w, NNS__JK("output"), a, l.output_value, c);
  j_layer_counts(w, a, i, &counts, st, roof, c);
  nns__json_train_layer(w, t, &counts);
  nns__json_per_rank_layer(w, a, i);
  j_rf(w, a, i, &rf, c);
  nns__jw_end(w, NULL);
}

static void j_op_list(nns__jw *w, const char *key, size_t klen,
                      const nns_analysis *a, bool uncounted) {
  size_t n = uncounted ? nns_analysis_uncounted_op_count(a)
                       : nns_analysis_unknown_op_count(a);
  nns__jw_arr(w, key, klen);
  for (size_t i = 0; i < n; i++) {
    const char *dom = NULL, *op = NULL;
    size_t cnt = 0;
    if (uncounted)
      nns_analysis_uncounted_op(a, i, &dom, &op, &cnt);
    else
      nns_analysis_unknown_op(a, i, &dom, &op, &cnt);
    nns__jw_obj(w, NNS__JV);
    nns__jw_str(w, NNS__JK("domain"), dom ? dom : "");
    nns__jw_str(w, NNS__JK("op_type"), op ? op : "");
    nns__jw_int(w, NNS__JK("nodes"), (int64_t)cnt);
    size_t k[3] = {0, 0, 0};
    if (uncounted &&
        nns_analysis_uncounted_op_why(a, i, &k[0], &k[1], &k[2]) == NNS_OK) {
      nns__jw_int(w, NNS__JK("no_rule"), (int64_t)k[0]);
      nns__jw_int(w, NNS__JK("no_size"), (int64_t)k[1]);
      nns__jw_int(w, NNS__JK("failed"), (int64_t)k[2]);
    }
    nns__jw_end(w, NULL);
  }
  nns__jw_end(w, NULL);
}

void nns__json_model_fields(nns__jw *w, const nns_model *m,
                            const char *path) {
  nns_model_info info = nns__info_of(m);
  nns__jw_str(w, NNS__JK("path"), path);
  nns__jw_int(w, NNS__JK("ir_version"), info.ir_version);
  nns__jw_str(w, NNS__JK("producer"), info.producer_name);
  nns__jw_str(w, NNS__JK("producer_version"), info.producer_version);
  nns__jw_str(w, NNS__JK("graph"), info.graph_name);
  nns__jw_int(w, NNS__JK("nodes"), (int64_t)info.node_count);
  nns__jw_int(w, NNS__JK("subgraph_nodes"), (int64_t)info.subgraph_node_count);
}

void nns__json_opsets(nns__jw *w, const nns_model *m) {
  nns__jw_obj(w, NNS__JK("opsets"));
  for (size_t k = 0; k < nns_model_opset_count(m); k++) {
    const char *dom;
    int64_t ver;
    nns_model_opset(m, k, &dom, &ver);
    nns__jw_key(w, dom ? dom : "");
    nns__jw_int(w, NNS__JV, ver);
  }
  nns__jw_end(w, NULL);
}

static void j_model(nns__jw *w, const nns_analysis *a,
                    const nns_report_options *opt, const char *name) {
  const nns_model *m = nns_analysis_model(a);
  nns__jw_obj(w, NNS__JK("model"));
  nns__jw_str(w, NNS__JK("name"), name);
  nns__json_model_fields(w, m, opt->model_path);
  nns__json_opsets(w, m);
  nns__jw_end(w, NULL);
  nns__jw_arr(w, NNS__JK("inputs"));
  for (size_t k = 0; k < nns_model_input_count(m); k++)
    j_value(w, NNS__JV, a, nns__input_of(m, k), NULL);
  nns__jw_end(w, NULL);
  nns__jw_arr(w, NNS__JK("outputs"));
  for (size_t k = 0; k < nns_model_output_count(m); k++)
    j_value(w, NNS__JV, a, nns__output_of(m, k), NULL);
  nns__jw_end(w, NULL);
}

/* With the backward pass's analysis (nns_report_options.backward): the
 * training FLOPs as recorded, forward + backward, dense and with the
 * attention products over the pairs the forward's mask allows, and per
 * token (docs/metrics.md, "Masked attention, tokens"). */
static void j_train_flops(nns__jw *w, const nns_counts *fwd, int64_t tokens,
                          const nns_analysis *bwd) {
  nns_counts b = {.size = sizeof b};
  if (!bwd || nns_analysis_total_counts(bwd, &b) != NNS_OK)
    return;
  int64_t dense = nns__sum_sat(fwd->flops, b.flops);
  int64_t unmasked = nns__sum_sat(fwd->flops_unmasked, b.flops_unmasked);
  nns__jw_break(w, BR2);
  nns__jw_int(w, NNS__JK("train_flops"), dense);
  nns__jw_int(w, NNS__JK("train_flops_unmasked"), unmasked);
  if (tokens <= 0)
    return;
  nns__jw_double(w, NNS__JK("train_flops_per_token"),
                 (double)dense / (double)tokens, 17, false);
  nns__jw_double(w, NNS__JK("train_flops_unmasked_per_token"),
                 (double)unmasked / (double)tokens, 17, false);
}

static void j_totals(nns__jw *w, const nns_analysis *a,
                     const nns__jstatus *st, const nns_analysis *bwd) {
  nns_totals t = nns__totals_of(a);
  nns_counts all = nns__total_counts_of(a);
  nns_rf rf = nns__total_rf_of(a);
  nns__jw_obj(w, NNS__JK("totals"));
  if (st) {
    nns__json_metrics(w, st, (size_t)-1, &all);
    j_unmasked_st(w, st, (size_t)-1, &all);
    j_experts(w, &all);
    j_roof(w, &all, t.hardware.name != NULL);
    nns__jw_int(w, NNS__JK("nodes"), all.nodes);
    nns__json_diag_ids(w, st, (size_t)-1, all.flags);
  } else {
    j_counts(w, &all, t.hardware.name != NULL, NULL);
  }
  j_tokens(w, &all, t.tokens);
  j_train_flops(w, &all, t.tokens, bwd);
  nns__jw_break(w, BR2);
  /* v2: every metric complete (a symbolic dim taken as 1 makes counts
   * partial there); v1: no node left out, no loop counted once. */
  if (st)
    nns__jw_bool(w, NNS__JK("complete"),
                 nns__jstatus_partial(st, (size_t)-1, &all) == 0);
  else
    nns__jw_bool(w, NNS__JK("complete"),
                 !(all.flags & (NNS_COUNT_PARTIAL | NNS_COUNT_UNBOUNDED |
                                NNS_COUNT_OVERFLOW)));
  nns__jw_bool(w, NNS__JK("saturated"), (all.flags & NNS_COUNT_OVERFLOW) != 0);
  nns__jw_int(w, NNS__JK("params_total"),
              nns__sum_sat(nns__sum_sat(all.params, all.buffers), all.frozen));
  nns__jw_int(w, NNS__JK("params_unique"), t.params_unique);
  nns__jw_int(w, NNS__JK("param_bytes_unique"), t.param_bytes_unique);
  nns__jw_int(w, NNS__JK("constants"), t.constants);
  nns__jw_break(w, BR2);
  nns__jw_int(w, NNS__JK("input_bytes"), t.input_bytes);
  nns__jw_int(w, NNS__JK("peak_activation_bytes"), t.peak_activation_bytes);
  nns__jw_str(w, NNS__JK("peak_node"), t.peak_node);
  if (t.kv_cache_bytes_read || t.kv_cache_bytes) { /* a decoder step */
    nns__jw_break(w, BR2);
    nns__jw_int(w, NNS__JK("kv_cache_bytes_read"), t.kv_cache_bytes_read);
    nns__jw_int(w, NNS__JK("kv_cache_bytes_written"),
                t.kv_cache_bytes_written);
    nns__jw_int(w, NNS__JK("kv_cache_bytes"), t.kv_cache_bytes);
  }
  nns__json_per_rank(w, a);
  if (nns__json_train_totals(w, a)) {
    nns__jw_break(w, BR2);
    j_rf(w, NULL, 0, &rf, NULL);
    nns__jw_end(w, NULL);
    return;
  }
  nns__jw_break(w, BR2);
  nns__jw_obj(w, NNS__JK("training"));
  nns__jw_bool(w, NNS__JK("estimate"), true);
  nns__jw_str(w, NNS__JK("optimizer"), nns_optimizer_name(t.optimizer));
  nns__jw_int(w, NNS__JK("param_bytes"), t.train_param_bytes);
  nns__jw_int(w, NNS__JK("grad_bytes"), t.train_grad_bytes);
  nns__jw_int(w, NNS__JK("optimizer_bytes"), t.train_optimizer_bytes);
  nns__jw_int(w, NNS__JK("activation_bytes"), t.train_activation_bytes);
  nns__jw_int(w, NNS__JK("total_bytes"), t.train_total_bytes);
  nns__jw_end(w, NULL);
  nns__jw_break(w, BR2);
  j_rf(w, NULL, 0, &rf, NULL);
  nns__jw_end(w, NULL);
}

static void j_symbols(nns__jw *w, const nns_analysis *a) {
  const nns_model *m = nns_analysis_model(a);
  /* The symbolic dims of the graph inputs: those a count took as 1 (when
   * the totals are flagged symbolic) and a user can fix with --input. */
  nns_counts all = nns__total_counts_of(a);
  nns__jw_arr(w, NNS__JK("symbols"));
  const char *seen[64];
  size_t shown = nns__input_symbols(m, a, seen, 64);
  for (size_t k = 0; k < shown; k++)
    nns__jw_str(w, NNS__JV, seen[k]);
  nns__jw_end(w, NULL);
  nns__jw_bool(w, NNS__JK("symbols_taken_as_1"),
               all.flags & NNS_COUNT_SYMBOLIC);
  /* The graph inputs with a symbolic dim, and the --input option that
   * fixes each (symbols written N). */
  nns__jw_arr_brk(w, NNS__JK("symbolic_inputs"), BR2);
  for (size_t k = 0; k < nns_model_input_count(m); k++) {
    char opt[512];
    const char *name = nns__input_fix(m, a, k, opt, sizeof opt);
    if (!name)
      continue;
    nns__jw_obj(w, NNS__JV);
    nns__jw_str(w, NNS__JK("input"), name);
    nns__jw_str(w, NNS__JK("option"), opt);
    nns__jw_end(w, NULL);
  }
  nns__jw_end(w, BR1);
  /* Which branch each If's costs follow. */
  nns__jw_arr_brk(w, NNS__JK("branches"), BR2);
  size_t nb = nns_analysis_branch_count(a);
  for (size_t i = 0; i < nb; i++) {
    const char *node;
    int then_branch, known;
    nns_analysis_branch(a, i, &node, &then_branch, &known);
    nns__jw_obj(w, NNS__JV);
    nns__jw_str(w, NNS__JK("node"), node);
    nns__jw_str(w, NNS__JK("counted"),
                then_branch ? "then_branch" : "else_branch");
    nns__jw_bool(w, NNS__JK("condition_known"), known == 1);
    nns__jw_end(w, NULL);
  }
  nns__jw_end(w, BR1);
}

/* The live-activation curve, one point per main-graph node in running
 * order (16 to a line), and the layer of each node: the innermost one
 * shown at this depth, so every index is a layer of "layers". */
static void j_memory(nns__jw *w, const nns_analysis *a, int maxd) {
  size_t n = nns_analysis_memory_count(a), peak = nns_analysis_memory_peak(a);
  nns__jw_obj(w, NNS__JK("memory"));
  if (peak == (size_t)-1)
    nns__jw_null(w, NNS__JK("peak_position"));
  else
    nns__jw_int(w, NNS__JK("peak_position"), (int64_t)peak);
  nns__jw_break(w, BR2);
  nns__jw_arr(w, NNS__JK("live_bytes"));
  for (size_t i = 0; i < n; i++) {
    int64_t b = 0;
    size_t l = 0;
    nns_analysis_memory_point(a, i, &b, &l);
    if (i && i % 16 == 0)
      nns__jw_break(w, BR3);
    nns__jw_int(w, NNS__JV, b);
  }
  nns__jw_end(w, NULL);
  nns__jw_break(w, BR2);
  nns__jw_arr(w, NNS__JK("node_layers"));
  size_t prev_in = (size_t)-1, prev_out = 0;
  for (size_t i = 0; i < n; i++) {
    int64_t b = 0;
    size_t l = 0;
    nns_analysis_memory_point(a, i, &b, &l);
    if (l == prev_in) {
      l = prev_out; /* consecutive nodes mostly share a layer */
    } else {
      prev_in = l;
      nns_layer_info li = nns__layer_of(a, l);
      while (li.depth > maxd && li.parent != (size_t)-1) {
        l = li.parent;
        li = nns__layer_of(a, l);
      }
      prev_out = l;
    }
    if (i && i % 16 == 0)
      nns__jw_break(w, BR3);
    nns__jw_int(w, NNS__JV, (int64_t)l);
  }
  nns__jw_end(w, NULL);
  nns__jw_end(w, NULL);
}

static void j_op_types_table(nns__jw *w, const nns_analysis *a, bool roof) {
  nns__jw_arr_brk(w, NNS__JK("op_types"), BR2);
  for (size_t i = 0; i < nns_analysis_op_type_count(a); i++) {
    nns_op_type_info ot = {.size = sizeof ot, .domain = "", .op_type = ""};
    nns_counts k = {.size = sizeof k};
    nns_analysis_op_type(a, i, &ot);
    nns_analysis_op_type_counts(a, i, &k);
    nns__jw_obj(w, NNS__JV);
    nns__jw_str(w, NNS__JK("domain"), ot.domain ? ot.domain : "");
    nns__jw_str(w, NNS__JK("op_type"), ot.op_type ? ot.op_type : "");
    nns__jw_bool(w, NNS__JK("counted"), ot.counted);
    nns__jw_str(w, NNS__JK("family"), ot.family ? ot.family : "unknown");
    j_counts(w, &k, roof, NULL);
    nns__jw_end(w, NULL);
  }
  nns__jw_end(w, BR1);
}

static void j_parameters(nns__jw *w, const nns_analysis *a) {
  size_t np = nns_analysis_param_count(a), nl = nns_analysis_layer_count(a);
  nns__jw_arr_brk(w, NNS__JK("parameters"), BR2);
  for (size_t i = 0; i < np; i++) {
    nns_param_info p = {.size = sizeof p, .name = "", .storage = "",
                        .layer = (size_t)-1};
    nns_analysis_param(a, i, &p);
    nns__jw_obj(w, NNS__JV);
    nns__jw_str(w, NNS__JK("name"), p.name);
    nns__jw_str(w, NNS__JK("storage"), p.storage);
    nns__jw_str(w, NNS__JK("kind"), nns_param_kind_name(p.kind));
    nns__jw_str(w, NNS__JK("dtype"), p.dtype ? nns_dtype_name(p.dtype) : NULL);
    nns__jw_int(w, NNS__JK("elements"), p.elements);
    nns__jw_int(w, NNS__JK("bytes"), p.bytes);
    if (p.layer < nl) {
      nns_layer_info l = nns__layer_of(a, p.layer);
      nns__jw_str(w, NNS__JK("layer"), l.path ? l.path : "");
    } else {
      nns__jw_null(w, NNS__JK("layer"));
    }
    nns__jw_bool(w, NNS__JK("shared"), p.shared);
    nns__jw_bool(w, NNS__JK("copy"), p.is_copy);
    nns__jw_end(w, NULL);
  }
  nns__jw_end(w, BR1);
}

/* The same layers nested. Preorder makes the open nodes a chain of
 * increasing depth: a layer closes every open node at its depth or
 * deeper, then opens its own. No recursion, so a hostile depth cannot
 * exhaust the stack. */
static nns_status j_tree(nns__jw *w, const nns_analysis *a, int maxd,
                         const char *name, const nns__jstatus *st,
                         const nns_totals *t, jcache *c) {
  size_t nl = nns_analysis_layer_count(a);
  int *open = malloc((nl ? nl : 1) * sizeof *open);
  if (!open)
    return NNS_E_NOMEM;
  size_t nopen = 0;
  for (size_t i = 0; i < nl; i++) {
    nns_layer_info l = nns__layer_of(a, i);
    if (l.depth > maxd)
      continue;
    bool sibling = false;
    while (nopen && open[nopen - 1] >= l.depth) {
      nns__jw_end(w, NULL); /* children */
      nns__jw_end(w, NULL); /* the node */
      nopen--;
      sibling = true;
    }
    if (!nopen && sibling) {
      /* A second root: the API promises one, so keep the JSON valid by
       * dropping the rest. */
      break;
    }
    if (nopen)
      nns__jw_obj(w, NNS__JV);
    else
      nns__jw_obj(w, NNS__JK("tree"));
    nns__jw_str(w, NNS__JK("name"),
                l.depth == 0 ? name : l.name ? l.name : "");
    j_layer(w, NNS__JK("info"), a, i, &l, name, st, t, c);
    nns__jw_arr_brk(w, NNS__JK("children"), BR2);
    open[nopen++] = l.depth;
  }
  if (nopen == 0 && nl == 0)
    nns__jw_null(w, NNS__JK("tree"));
  while (nopen) {
    nns__jw_end(w, NULL);
    nns__jw_end(w, NULL);
    nopen--;
  }
  free(open);
  return NNS_OK;
}

nns_status nns__report_json(const nns_analysis *a,
                            const nns_report_options *opt, nns__out *o) {
  const nns_model *m = nns_analysis_model(a);
  const char *name = nns__model_name(m, opt);
  int maxd = nns__report_depth(opt);
  /* Version 2 (docs/json.md): every count with its status and the
   * diagnostics behind it. Version 1 stays the default, byte for byte. */
  int version = opt->json_version == 2 ? 2 : 1;
  nns__jstatus status, *st = NULL;
  if (version == 2) {
    if (nns__jstatus_build(&status, a) != NNS_OK)
      return NNS_E_NOMEM;
    st = &status;
  }
  nns__jw jw, *w = &jw;
  nns__jw_init(w, o);
  nns__jw_obj_brk(w, NNS__JV, BR1);
  nns__jw_str(w, NNS__JK("schema"), "nnscan.summary");
  nns__jw_int(w, NNS__JK("schema_version"), version);
  nns__jw_str(w, NNS__JK("nnscan_version"), nns_version());
  j_model(w, a, opt, name);
  nns_totals t = nns__totals_of(a);
  nns__jw_obj(w, NNS__JK("options"));
  if (maxd == INT32_MAX)
    nns__jw_null(w, NNS__JK("max_depth"));
  else
    nns__jw_int(w, NNS__JK("max_depth"), maxd);
  nns__jw_str(w, NNS__JK("optimizer"), nns_optimizer_name(t.optimizer));
  nns__jw_end(w, NULL);
  j_totals(w, a, st, opt->backward);
  bool roof = t.hardware.name != NULL;
  if (roof)
    j_hardware(w, &t);

  nns__jw_arr(w, NNS__JK("params_by_dtype"));
  for (size_t i = 0; i < nns_analysis_param_dtype_count(a); i++) {
    int dt = 0;
    int64_t el = 0, by = 0;
    nns_analysis_param_dtype(a, i, &dt, &el, &by);
    nns__jw_obj(w, NNS__JV);
    nns__jw_str(w, NNS__JK("dtype"), nns_dtype_name(dt));
    nns__jw_int(w, NNS__JK("elements"), el);
    nns__jw_int(w, NNS__JK("bytes"), by);
    nns__jw_end(w, NULL);
  }
  nns__jw_end(w, NULL);
  /* The table's families in its order: what "family" below names, and the
   * HTML page's colour index (stable from one model to the next). */
  nns__jw_arr(w, NNS__JK("families"));
  for (size_t i = 0; nns_family_name(i); i++)
    nns__jw_str(w, NNS__JV, nns_family_name(i));
  nns__jw_end(w, NULL);
  j_op_types_table(w, a, roof);
  j_op_list(w, NNS__JK("uncounted_ops"), a, true);
  j_op_list(w, NNS__JK("unknown_ops"), a, false);
  j_symbols(w, a);
  j_parameters(w, a);

  nns__jw_arr_brk(w, NNS__JK("warnings"), BR2);
  for (size_t k = 0; k < nns_analysis_warning_count(a); k++)
    nns__jw_str(w, NNS__JV, nns__warning_of(a, k));
  nns__jw_end(w, BR1);
  if (st)
    nns__json_diagnostics(w, st);

  j_memory(w, a, maxd);

  /* The flat list, in preorder. The fragment cache is a help, not a
   * need: without memory for it the layers are written directly. */
  jcache *cache = calloc(1, sizeof *cache);
  if (cache) {
    size_t nv = nns_model_value_count(m);
    cache->value_at = malloc((nv ? nv : 1) * sizeof *cache->value_at);
    cache->value_len = calloc(nv ? nv : 1, sizeof *cache->value_len);
    cache->n_values = cache->value_at && cache->value_len ? nv : 0;
  }
  nns__jw_arr_brk(w, NNS__JK("layers"), BR2);
  size_t nl = nns_analysis_layer_count(a), shown = 0;
  for (size_t i = 0; i < nl; i++) {
    nns_layer_info l = nns__layer_of(a, i);
    if (l.depth <= maxd) {
      j_layer(w, NNS__JV, a, i, &l, name, st, &t, cache);
      shown++;
    }
  }
  if (!shown)
    nns__out_put(o, BR1, sizeof BR1 - 1); /* "[\n  ]", as it always was */
  nns__jw_end(w, BR1);

  nns_status tst = j_tree(w, a, maxd, name, st, &t, cache);
  nns__jw_end(w, "\n");
  nns__out_put(o, "\n", 1);
  nns_status jst = nns__jw_finish(w);
  if (cache) {
    nns__vec_free(&cache->values);
    free(cache->value_at);
    free(cache->value_len);
  }
  free(cache);
  if (st)
    nns__jstatus_free(st);
  return tst != NNS_OK ? tst : jst;
}
