/*
 * builder.c - nns_builder: a model described call by call, without
 * protobuf, for a binding that recorded a graph itself (nnscan.h,
 * "Building a model in memory").
 *
 * The builder keeps a description of each graph (its inputs, outputs,
 * value_info, initializers and nodes with their attributes) in growable
 * arrays of its own arena (nodes in fixed blocks, the one list that grows
 * large), because the IR wants every array at its final size and nodes at
 * fixed addresses. Names, types and tensors go straight
 * into the model's arena in their final form, tensor bytes into its bulk
 * arena (huge pages: see arena.c). nns_builder_finish then lays the graphs
 * out through the graph-assembly interface the ONNX decoder uses too
 * (assemble.h: values in the same order, the same roles and declared
 * types, the same resolution), so a built model and a loaded one are the
 * same IR.
 *
 * Every call validates everything before it changes anything, so a failed
 * call leaves the builder as it was.
 */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "../base/vec.h"
#include "assemble.h"
#include "builder_int.h"


/* ==== The description ==== */

struct bgraph;

typedef struct bval {     /* a graph input, output or value_info entry */
  const char *name;
  nns__type *type;        /* NULL: nothing declared */
} bval;

typedef struct binit {
  const char *name;
  nns__tensor *t;
  /* where it is laid out: after the main graph's `slot`-th initializer
   * added plainly (its own slot when it is one, sub 0), `sub` ordering
   * those placed after the same one (nns__builder_inits_after) */
  int64_t slot;
  uint64_t sub;
} binit;

typedef struct battr {
  nns__attr a;            /* scalars and fixed lists are final here */
  nns__arena_vec items;   /* TENSORS / TYPE_PROTOS: pointers; GRAPH(S):
                             struct bgraph * */
} battr;

typedef struct bnode {
  const char *op_type, *domain, *name, *scope;
  int32_t n_in, n_out;
  const char **in_names, **out_names; /* model arena */
  nns__arena_vec attrs;   /* battr */
  int32_t kernel_first;   /* its kernel (nns_builder_mark_kernel), as the */
  int32_t kernel_count;   /* IR keeps it (nns__node); count 0: none */
} bnode;

/* A graph's nodes: fixed-size blocks, so a node record is written once
 * and never copied into a larger array as the list grows (doubling wrote
 * every record again and kept each old generation in the arena). */
enum { NODE_BLOCK = 256 };

typedef struct nodelist {
  nns__arena_vec blocks;  /* bnode *: NODE_BLOCK records each */
  size_t n;
} nodelist;

static bnode *node_at(const nodelist *l, size_t i) {
  return &NNS__ARENA_VEC_AT(l->blocks, bnode *, i / NODE_BLOCK)[i % NODE_BLOCK];
}

/* Room for one more node (zeroed); NULL when out of memory. */
static bnode *node_push(nns__arena *a, nodelist *l) {
  if (l->n / NODE_BLOCK >= l->blocks.n) {
    bnode **slot = nns__arena_vec_push(a, &l->blocks, sizeof *slot);
    if (!slot)
      return NULL;
    if (!(*slot = nns__arena_array(a, NODE_BLOCK, sizeof **slot))) {
      l->blocks.n--;
      return NULL;
    }
  }
  bnode *n = node_at(l, l->n++);
  memset(n, 0, sizeof *n); /* a slot given back by a failed call */
  return n;
}

typedef struct bgraph {
  const char *name;
  nns__arena_vec inputs, outputs, value_info; /* bval */
  nns__arena_vec inits;   /* binit */
  nodelist nodes;
  nns__map defined;       /* name -> what defines it (enum def) */
  int64_t plain_inits;    /* initializers added plainly (binit.slot) */
  bool placed;            /* some were placed (nns__builder_inits_after) */
} bgraph;

enum def { DEF_INPUT = 1, DEF_INIT, DEF_INPUT_INIT, DEF_OUTPUT };

struct nns_builder {
  nns_model *m;           /* being described; NULL once handed over */
  nns__arena arena;       /* the description */
  const char *empty;      /* interned "" */
  bgraph *root;
  nns__arena_vec stack;   /* bgraph *: the open graphs, root first */
  nns__arena_vec opset_domains, opset_versions, meta_keys, meta_values;
  nns__arena_vec graphs;  /* bgraph *: every graph, for their maps */
  nns__arena_vec kinds;   /* pkind: packed PARAM_KIND records, for
                             finish */
  nns__arena_vec knowns;  /* pknown: packed VALUE_DATA records, for
                             finish */
  nns__arena_vec observed; /* nns__observed: packed OBSERVED_SHAPE
                              records, for finish */
  bool broken;            /* a packed call failed part-way */
  void *front;            /* a front end's state (the packed reader's
                             aten front), freed with the builder */
  void (*free_front)(void *);
  int64_t inits_after;    /* nns__builder_inits_after; < 0: none */
  uint64_t placed;        /* initializers placed so far */
};

typedef struct pknown {   /* contents finish gives a main-graph value */
  const char *name;       /* interned */
  const nns__tensor *t;
} pknown;

typedef struct pkind {    /* a parameter kind finish gives the main graph */
  const char *name;       /* interned */
  nns_param_kind kind;
} pkind;

/* Room for one more element of `size` bytes in the description's arena
 * (nns__arena_vec_push). */
static void *push(nns_builder *b, nns__arena_vec *v, size_t size) {
  return nns__arena_vec_push(&b->arena, v, size);
}

static bgraph *top(const nns_builder *b) {
  return NNS__ARENA_VEC_AT(b->stack, bgraph *, b->stack.n - 1);
}

static nns_status nomem(nns_error *err) {
  return nns__err(err, NNS_E_NOMEM, -1, NULL,
                  "out of memory while building the model");
}

static nns_status bad(nns_error *err, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static nns_status bad(nns_error *err, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  nns__verr(err, NNS_E_ARG, -1, NULL, fmt, ap);
  va_end(ap);
  return NNS_E_ARG;
}

/* The builder can take calls: NNS_E_ARG for NULL, NNS_E_STATE after
 * finish. */
static nns_status usable(const nns_builder *b, nns_error *err) {
  if (!b)
    return bad(err, "the builder is NULL");
  if (!b->m)
    return nns__err(err, NNS_E_STATE, -1, NULL,
                    "the builder has already handed over its model "
                    "(nns_builder_finish)");
  if (b->broken)
    return nns__err(err, NNS_E_STATE, -1, NULL,
                    "an earlier nns_builder_add_packed failed part-way: "
                    "the description is incomplete");
  return NNS_OK;
}

static const char *intern(nns_builder *b, const char *s) {
  return nns__intern_cstr(&b->m->strings, s ? s : "");
}

/* A new graph description. Its `defined` map is malloc-backed (growing
 * it frees the old table; an arena would keep every generation). */
static bgraph *new_graph(nns_builder *b) {
  bgraph *g = nns__arena_alloc(&b->arena, sizeof *g);
  bgraph **slot = g ? push(b, &b->graphs, sizeof *slot) : NULL;
  if (!slot)
    return NULL;
  *slot = g;
  g->name = b->empty;
  return g;
}

nns_status nns_builder_new(nns_builder **out, nns_error *err) {
  if (!out)
    return bad(err, "nns_builder_new: out is NULL");
  *out = NULL;
  nns_builder *b = calloc(1, sizeof *b);
  if (!b)
    return nomem(err);
  nns__arena_init(&b->arena);
  b->arena.bulk = true; /* filled fast, freed whole: huge pages */
  b->inits_after = -1;
  b->m = nns__model_new();
  if (b->m) {
    b->empty = nns__intern(&b->m->strings, "", 0);
    b->m->ir_version = 10;
  }
  bgraph **slot = NULL;
  if (!b->m || !b->empty || !(b->root = new_graph(b)) ||
      !(slot = push(b, &b->stack, sizeof *slot))) {
    nns_builder_free(b);
    return nomem(err);
  }
  *slot = b->root;
  nns_model *m = b->m;
  m->producer_name = m->producer_version = m->domain = m->doc = b->empty;
  *out = b;
  return NNS_OK;
}

void nns_builder_free(nns_builder *b) {
  if (!b)
    return;
  for (size_t i = 0; i < b->graphs.n; i++)
    nns__map_free(&NNS__ARENA_VEC_AT(b->graphs, bgraph *, i)->defined);
  if (b->free_front)
    b->free_front(b->front);
  nns__model_destroy(b->m);
  nns__arena_free(&b->arena);
  free(b);
}

/* ==== Model fields ==== */

nns_status nns_builder_set_ir_version(nns_builder *b, int64_t ir_version,
                                      nns_error *err) {
  nns_status st = usable(b, err);
  if (st)
    return st;
  if (ir_version < 0)
    return bad(err, "ir_version %lld is negative", (long long)ir_version);
  b->m->ir_version = ir_version;
  return NNS_OK;
}

static char *text(nns_builder *b, const char *s) {
  return nns__arena_strndup(&b->m->arena, s, strlen(s));
}

nns_status nns_builder_set_producer(nns_builder *b, const char *name,
                                    const char *version, nns_error *err) {
  nns_status st = usable(b, err);
  if (st)
    return st;
  const char *n = text(b, name ? name : ""), *v = text(b, version ? version
                                                                   : "");
  if (!n || !v)
    return nomem(err);
  b->m->producer_name = n;
  b->m->producer_version = v;
  return NNS_OK;
}

nns_status nns_builder_set_graph_name(nns_builder *b, const char *name,
                                      nns_error *err) {
  nns_status st = usable(b, err);
  if (st)
    return st;
  const char *n = intern(b, name);
  if (!n)
    return nomem(err);
  top(b)->name = n;
  return NNS_OK;
}

static const char *domain_of(nns_builder *b, const char *domain) {
  if (!domain || !*domain || !strcmp(domain, "ai.onnx"))
    return b->empty; /* most nodes: no lookup at all */
  return intern(b, domain);
}

nns_status nns_builder_add_opset(nns_builder *b, const char *domain,
                                 int64_t version, nns_error *err) {
  nns_status st = usable(b, err);
  if (st)
    return st;
  if (version < 1)
    return bad(err, "opset version %lld of domain '%s' is not positive",
               (long long)version, domain ? domain : "");
  const char *d = domain_of(b, domain);
  if (!d)
    return nomem(err);
  for (size_t i = 0; i < b->opset_domains.n; i++)
    if (NNS__ARENA_VEC_AT(b->opset_domains, const char *, i) == d) {
      NNS__ARENA_VEC_AT(b->opset_versions, int64_t, i) = version;
      return NNS_OK;
    }
  if (b->opset_domains.n >= INT32_MAX)
    return bad(err, "too many opset imports");
  const char **ds = push(b, &b->opset_domains, sizeof *ds);
  int64_t *vs = ds ? push(b, &b->opset_versions, sizeof *vs)
                   : NULL;
  if (!vs) {
    if (ds)
      b->opset_domains.n--;
    return nomem(err);
  }
  *ds = d;
  *vs = version;
  return NNS_OK;
}

nns_status nns_builder_add_metadata(nns_builder *b, const char *key,
                                    const char *value, nns_error *err) {
  nns_status st = usable(b, err);
  if (st)
    return st;
  if (!key || !value)
    return bad(err, "metadata key or value is NULL");
  if (b->meta_keys.n >= INT32_MAX)
    return bad(err, "too many metadata entries");
  const char *k = text(b, key), *v = text(b, value);
  const char **ks = k && v ? push(b, &b->meta_keys, sizeof *ks)
                           : NULL;
  const char **vs = ks ? push(b, &b->meta_values, sizeof *vs)
                       : NULL;
  if (!vs) {
    if (ks)
      b->meta_keys.n--;
    return nomem(err);
  }
  *ks = k;
  *vs = v;
  return NNS_OK;
}

/* ==== Types and tensors ==== */

static bool dtype_ok(int dtype) {
  return dtype >= NNS_DT_UNDEFINED && dtype <= NNS_DT_INT2;
}

/* Checks (rank, dims) as nnscan.h describes them. */
static nns_status check_dims(const char *what, const char *name, int rank,
                             const int64_t *dims, nns_error *err) {
  if (rank < -1 || rank > NNS__MAX_RANK)
    return bad(err, "%s '%s': rank %d is not -1..%d", what, name, rank,
               NNS__MAX_RANK);
  if (rank > 0 && !dims)
    return bad(err, "%s '%s': rank %d but dims is NULL", what, name, rank);
  return NNS_OK;
}

/* A declared tensor type in the model's arena; *out NULL when nothing is
 * declared (dtype 0 and rank -1). */
static nns_status make_type(nns_builder *b, const char *what,
                            const char *name, int dtype, int rank,
                            const int64_t *dims, const char *const *symbols,
                            nns__type **out, nns_error *err) {
  *out = NULL;
  if (!dtype_ok(dtype))
    return bad(err, "%s '%s': unknown dtype %d", what, name, dtype);
  nns_status st = check_dims(what, name, rank, dims, err);
  if (st)
    return st;
  if (dtype == 0 && rank < 0)
    return NNS_OK;
  nns_model *m = b->m;
  nns__type *t = nns__arena_alloc(&m->arena, sizeof *t);
  if (!t)
    return nomem(err);
  t->kind = NNS_KIND_TENSOR;
  t->dtype = dtype;
  t->rank = rank;
  if (rank > 0) {
    t->dims = nns__arena_array(&m->arena, (size_t)rank, sizeof *t->dims);
    if (!t->dims)
      return nomem(err);
    for (int k = 0; k < rank; k++) {
      const char *sym = symbols ? symbols[k] : NULL;
      if (dims[k] >= 0) {
        t->dims[k] = nns__dim_known(dims[k]);
        continue;
      }
      const char *sn = sym && *sym ? intern(b, sym) : NULL;
      if (sym && *sym && !sn)
        return nomem(err);
      t->dims[k].sym = sn ? nns__sym_named(m, sn) : nns__sym_fresh(m);
      if (!t->dims[k].sym)
        return nomem(err);
    }
  }
  *out = t;
  return NNS_OK;
}

/* nns__model_tensor, named `interned` where its caller interned `name`
 * already in m's strings (else NULL): a model's every initializer is
 * named so, and the name hashed once is enough. */
static nns_status tensor_new(nns_model *m, const char *what, const char *name,
                             const char *interned, int dtype, int rank,
                             const int64_t *dims, const void *data,
                             size_t data_size, bool sparse,
                             nns__tensor **out, nns_error *err) {
  if (dtype <= 0 || !dtype_ok(dtype))
    return bad(err, "%s '%s': unknown dtype %d", what, name, dtype);
  if (rank < 0)
    return bad(err, "%s '%s': a tensor's rank must be known", what, name);
  nns_status st = check_dims(what, name, rank, dims, err);
  if (st)
    return st;
  int64_t numel = 1;
  for (int k = 0; k < rank; k++)
    if (dims[k] < 0 || !nns__mul_i64(numel, dims[k], &numel))
      return bad(err, "%s '%s': dim %d (%lld) is negative or the element "
                 "count overflows", what, name, k, (long long)dims[k]);
  int bits = nns__dtype_bits(dtype);
  int64_t need = 0;
  if (data) {
    if (sparse)
      return bad(err, "%s '%s': a sparse tensor is given by dtype and dims "
                 "only", what, name);
    if (bits <= 0)
      return bad(err, "%s '%s': %s data cannot be given as bytes", what,
                 name, nns_dtype_name(dtype));
    if (numel > INT64_MAX / bits)
      return bad(err, "%s '%s': too many elements", what, name);
    need = (numel * bits + 7) / 8;
    if ((uint64_t)need != (uint64_t)data_size)
      return bad(err, "%s '%s': data has %zu bytes, but %lld %s elements "
                 "need %lld", what, name, data_size, (long long)numel,
                 nns_dtype_name(dtype), (long long)need);
  }
  nns__arena *a = &m->arena;
  nns__tensor *t = nns__arena_alloc(a, sizeof *t);
  const char *n = interned ? interned : nns__intern_cstr(&m->strings, name);
  if (!t || !n)
    return nomem(err);
  t->name = n;
  t->dtype = dtype;
  t->rank = rank;
  t->numel = numel;
  t->offset = -1;
  t->ext_length = -1;
  if (rank && !(t->dims = nns__arena_array(a, (size_t)rank, sizeof *dims)))
    return nomem(err);
  if (rank)
    memcpy(t->dims, dims, (size_t)rank * sizeof *dims);
  t->storage = sparse ? NNS__ST_SPARSE : data ? NNS__ST_RAW : NNS__ST_NONE;
  if (data && need) {
    uint8_t *copy = nns__arena_alloc(&m->data_arena, (size_t)need);
    if (!copy)
      return nomem(err);
    memcpy(copy, data, (size_t)need);
    t->raw = copy;
    t->raw_len = (size_t)need;
  } else if (data) {
    t->raw = (const uint8_t *)""; /* no bytes, but given */
  }
  *out = t;
  return NNS_OK;
}

/* A tensor of known dims in m's arenas, with a copy of `data` or (data
 * NULL) none (ir.h). */
nns_status nns__model_tensor(nns_model *m, const char *what,
                             const char *name, int dtype, int rank,
                             const int64_t *dims, const void *data,
                             size_t data_size, bool sparse,
                             nns__tensor **out, nns_error *err) {
  return tensor_new(m, what, name, NULL, dtype, rank, dims, data, data_size,
                    sparse, out, err);
}

/* A tensor of the model being described (nns__model_tensor); `interned`
 * as tensor_new's. */
static nns_status make_tensor(nns_builder *b, const char *what,
                              const char *name, const char *interned,
                              int dtype, int rank, const int64_t *dims,
                              const void *data, size_t data_size,
                              bool sparse, nns__tensor **out,
                              nns_error *err) {
  return tensor_new(b->m, what, name, interned, dtype, rank, dims, data,
                    data_size, sparse, out, err);
}

/* ==== Graph values ==== */

static nns_status check_name(const char *what, const char *name,
                             nns_error *err) {
  if (!name || !*name)
    return bad(err, "%s has no name", what);
  return NNS_OK;
}

static nns_status redefined(const bgraph *g, const char *name,
                            nns_error *err) {
  return nns__err(err, NNS_E_ARG, -1, NULL,
                  "graph '%s': name '%s' is defined twice", g->name, name);
}

static nns_status add_bval(nns_builder *b, nns__arena_vec *list,
                           const char *what, const char *name, int dtype,
                           int rank, const int64_t *dims,
                           const char *const *symbols, int def,
                           nns_error *err) {
  nns_status st = usable(b, err);
  if (st || (st = check_name(what, name, err)))
    return st;
  bgraph *g = top(b);
  const char *n = intern(b, name);
  if (!n)
    return nomem(err);
  if (def && nns__map_get(&g->defined, n))
    return redefined(g, n, err);
  nns__type *t;
  if ((st = make_type(b, what, name, dtype, rank, dims, symbols, &t, err)))
    return st;
  if (list->n >= INT32_MAX)
    return bad(err, "too many %ss", what);
  bval *v = push(b, list, sizeof *v);
  if (!v)
    return nomem(err);
  if (def && !nns__map_put(&g->defined, n, (void *)(uintptr_t)def)) {
    list->n--;
    return nomem(err);
  }
  v->name = n;
  v->type = t;
  return NNS_OK;
}

nns_status nns_builder_add_input(nns_builder *b, const char *name, int dtype,
                                 int rank, const int64_t *dims,
                                 const char *const *symbols, nns_error *err) {
  return add_bval(b, b ? &top(b)->inputs : NULL, "graph input", name, dtype,
                  rank, dims, symbols, DEF_INPUT, err);
}

nns_status nns_builder_add_output(nns_builder *b, const char *name, int dtype,
                                  int rank, const int64_t *dims,
                                  const char *const *symbols,
                                  nns_error *err) {
  return add_bval(b, b ? &top(b)->outputs : NULL, "graph output", name,
                  dtype, rank, dims, symbols, 0, err);
}

nns_status nns_builder_add_value_info(nns_builder *b, const char *name,
                                      int dtype, int rank,
                                      const int64_t *dims,
                                      const char *const *symbols,
                                      nns_error *err) {
  return add_bval(b, b ? &top(b)->value_info : NULL, "value_info", name,
                  dtype, rank, dims, symbols, 0, err);
}

nns_status nns_builder_add_initializer(nns_builder *b, const char *name,
                                       int dtype, int rank,
                                       const int64_t *dims, const void *data,
                                       size_t data_size, nns_error *err) {
  nns_status st = usable(b, err);
  if (st || (st = check_name("initializer", name, err)))
    return st;
  bgraph *g = top(b);
  const char *n = intern(b, name);
  if (!n)
    return nomem(err);
  uintptr_t def = (uintptr_t)nns__map_get(&g->defined, n);
  if (def && def != DEF_INPUT)
    return redefined(g, n, err);
  nns__tensor *t;
  if ((st = make_tensor(b, "initializer", name, n, dtype, rank, dims, data,
                        data_size, false, &t, err)))
    return st;
  if (g->inits.n >= INT32_MAX)
    return bad(err, "too many initializers");
  binit *i = push(b, &g->inits, sizeof *i);
  if (!i)
    return nomem(err);
  if (!nns__map_put(&g->defined, n,
                    (void *)(uintptr_t)(def ? DEF_INPUT_INIT : DEF_INIT))) {
    g->inits.n--;
    return nomem(err);
  }
  i->name = n;
  i->t = t;
  if (g == b->root && b->inits_after >= 0) {
    i->slot = b->inits_after - 1;
    i->sub = ++b->placed;
    g->placed = true;
  } else {
    i->slot = g->plain_inits++;
    i->sub = 0;
  }
  return NNS_OK;
}

void nns__builder_inits_after(nns_builder *b, int64_t count) {
  if (b)
    b->inits_after = count;
}

static int binit_order(const void *x, const void *y) {
  const binit *a = x, *b = y;
  if (a->slot != b->slot)
    return a->slot < b->slot ? -1 : 1;
  return a->sub < b->sub ? -1 : a->sub > b->sub;
}

/* The initializers of `v` in layout order into `out`. Those added
 * plainly come in order of their slots, those placed in order of `sub`:
 * two sorted runs, merged, as long as the placed ones' slots do not go
 * back (the recorder's counts of initializers only grow); else sorted.
 * LLaMA-3-8B's tape places thousands: a sort of them all cost more than
 * the rest of the layout. */
static void lay_inits(const nns__arena_vec *v, binit *out) {
  size_t n = v->n, p = 0, q = 0, k = 0;
  const binit *all = &NNS__ARENA_VEC_AT(*v, binit, 0);
  int64_t last = INT64_MIN;
  for (size_t i = 0; i < n; i++)
    if (all[i].sub) {
      if (all[i].slot < last) {
        memcpy(out, all, n * sizeof *out);
        qsort(out, n, sizeof *out, binit_order);
        return;
      }
      last = all[i].slot;
    }
  /* p: the next plain one, q: the next placed one */
  for (;;) {
    while (p < n && all[p].sub)
      p++;
    while (q < n && !all[q].sub)
      q++;
    if (p == n && q == n)
      return;
    if (q == n || (p < n && binit_order(&all[p], &all[q]) < 0))
      out[k++] = all[p++];
    else
      out[k++] = all[q++];
  }
}

/* ==== Nodes and attributes ==== */

/* Interned copies of `count` names ("" for NULL) in the model's arena. */
static const char **names(nns_builder *b, const char *const *list,
                          size_t count) {
  const char **out = nns__arena_array(&b->m->arena, count, sizeof *out);
  for (size_t k = 0; out && k < count; k++)
    if (!(out[k] = intern(b, list[k])))
      return NULL;
  return out;
}

/* names() for names already interned in the model's table: the
 * pointers copied ("" for NULL or an empty name). */
static const char **interned_names(nns_builder *b, const char *const *list,
                                   size_t count) {
  const char **out = nns__arena_array(&b->m->arena, count, sizeof *out);
  for (size_t k = 0; out && k < count; k++)
    out[k] = list[k] && *list[k] ? list[k] : b->empty;
  return out;
}

static nns_status add_node(nns_builder *b, const char *op_type,
                           const char *domain, const char *name,
                           const char *module_path, const char *const *inputs,
                           size_t input_count, const char *const *outputs,
                           size_t output_count, bool interned,
                           nns_error *err) {
  nns_status st = usable(b, err);
  if (st)
    return st;
  if (!op_type || !*op_type)
    return bad(err, "node '%s' has no op_type", name ? name : "");
  if ((input_count && !inputs) || (output_count && !outputs))
    return bad(err, "node '%s' (%s): inputs or outputs is NULL",
               name ? name : "", op_type);
  if (input_count > INT32_MAX || output_count > INT32_MAX)
    return bad(err, "node '%s' (%s): too many inputs or outputs",
               name ? name : "", op_type);
  bgraph *g = top(b);
  if (g->nodes.n >= INT32_MAX)
    return bad(err, "too many nodes in graph '%s'", g->name);
  const char **in = interned ? interned_names(b, inputs, input_count)
                             : names(b, inputs, input_count);
  const char **out = interned ? interned_names(b, outputs, output_count)
                              : names(b, outputs, output_count);
  const char *op = intern(b, op_type), *dom = domain_of(b, domain);
  const char *nm = interned && name && *name ? name : intern(b, name);
  const char *scope = module_path ? intern(b, module_path) : NULL;
  if (!in || !out || !op || !dom || !nm || (module_path && !scope))
    return nomem(err);
  /* Outputs: new names of this graph, each once. */
  for (size_t k = 0; k < output_count; k++) {
    if (!out[k][0])
      continue;
    if (nns__map_get(&g->defined, out[k]))
      return redefined(g, out[k], err);
    for (size_t j = 0; j < k; j++)
      if (out[j] == out[k])
        return redefined(g, out[k], err);
  }
  bnode *n = node_push(&b->arena, &g->nodes);
  if (!n)
    return nomem(err);
  for (size_t k = 0; k < output_count; k++)
    if (out[k][0] &&
        !nns__map_put(&g->defined, out[k], (void *)(uintptr_t)DEF_OUTPUT)) {
      /* Take back what was marked: the call has no effect. */
      for (size_t j = 0; j < k; j++)
        if (out[j][0])
          nns__map_put(&g->defined, out[j], NULL);
      g->nodes.n--;
      return nomem(err);
    }
  n->op_type = op;
  n->domain = dom;
  n->name = nm;
  n->scope = scope;
  n->n_in = (int32_t)input_count;
  n->n_out = (int32_t)output_count;
  n->in_names = in;
  n->out_names = out;
  return NNS_OK;
}

nns_status nns_builder_add_node(nns_builder *b, const char *op_type,
                                const char *domain, const char *name,
                                const char *module_path,
                                const char *const *inputs, size_t input_count,
                                const char *const *outputs,
                                size_t output_count, nns_error *err) {
  return add_node(b, op_type, domain, name, module_path, inputs, input_count,
                  outputs, output_count, false, err);
}

nns_status nns__builder_add_node_interned(
    nns_builder *b, const char *op_type, const char *domain, const char *name,
    const char *module_path, const char *const *inputs, size_t input_count,
    const char *const *outputs, size_t output_count, nns_error *err) {
  return add_node(b, op_type, domain, name, module_path, inputs, input_count,
                  outputs, output_count, true, err);
}

static bool is_list(nns_attr_type t) {
  return (t >= NNS_ATTR_FLOATS && t <= NNS_ATTR_GRAPHS) ||
         t == NNS_ATTR_SPARSE_TENSORS || t == NNS_ATTR_TYPE_PROTOS;
}

/* Whether items are appended one call at a time. */
static bool is_appended(nns_attr_type t) {
  return t == NNS_ATTR_TENSORS || t == NNS_ATTR_SPARSE_TENSORS ||
         t == NNS_ATTR_GRAPHS || t == NNS_ATTR_TYPE_PROTOS;
}

/*
 * The attribute `name` of type `type` on the current node: a new one, or
 * for an appended list type an existing one of the same type. NULL with
 * *st set on error; *fresh says it is new (the caller fills it, and drops
 * it again with the node's attrs.n-- when a later step fails).
 */
static battr *attr_slot(nns_builder *b, const char *name, nns_attr_type type,
                        bool *fresh, nns_status *st, nns_error *err) {
  *st = usable(b, err);
  if (*st)
    return NULL;
  if (!name || !*name) {
    *st = bad(err, "an attribute has no name");
    return NULL;
  }
  bgraph *g = top(b);
  if (!g->nodes.n) {
    *st = nns__err(err, NNS_E_STATE, -1, NULL,
                   "attribute '%s' comes before any node of graph '%s'",
                   name, g->name);
    return NULL;
  }
  bnode *n = node_at(&g->nodes, g->nodes.n - 1);
  for (size_t i = 0; i < n->attrs.n; i++) {
    battr *a = &NNS__ARENA_VEC_AT(n->attrs, battr, i);
    if (strcmp(a->a.name, name) != 0)
      continue;
    if (is_appended(type) && a->a.type == (int32_t)type) {
      *fresh = false;
      return a;
    }
    *st = bad(err, "node '%s' (%s): attribute '%s' is set twice", n->name,
              n->op_type, name);
    return NULL;
  }
  const char *nm = intern(b, name);
  battr *a = nm && n->attrs.n < INT32_MAX
                 ? push(b, &n->attrs, sizeof *a)
                 : NULL;
  if (!a) {
    *st = nomem(err);
    return NULL;
  }
  a->a.name = nm;
  a->a.type = (int32_t)type;
  a->a.offset = -1;
  *fresh = true;
  return a;
}

/* Drops a fresh attribute again (a later step of its call failed). */
static void attr_drop(nns_builder *b) {
  bgraph *g = top(b);
  node_at(&g->nodes, g->nodes.n - 1)->attrs.n--;
}

nns_status nns_builder_attr_int(nns_builder *b, const char *name,
                                int64_t value, nns_error *err) {
  bool fresh;
  nns_status st;
  battr *a = attr_slot(b, name, NNS_ATTR_INT, &fresh, &st, err);
  if (a)
    a->a.i = value;
  return st;
}

nns_status nns_builder_attr_float(nns_builder *b, const char *name,
                                  double value, nns_error *err) {
  bool fresh;
  nns_status st;
  battr *a = attr_slot(b, name, NNS_ATTR_FLOAT, &fresh, &st, err);
  if (a)
    a->a.f = (float)value;
  return st;
}

nns_status nns_builder_attr_string(nns_builder *b, const char *name,
                                   const char *value, size_t len,
                                   nns_error *err) {
  if (b && b->m && !value && len)
    return bad(err, "attribute '%s': value is NULL", name ? name : "");
  bool fresh;
  nns_status st;
  battr *a = attr_slot(b, name, NNS_ATTR_STRING, &fresh, &st, err);
  if (!a)
    return st;
  if (!(a->a.s = nns__arena_strndup(&b->m->arena, value ? value : "", len))) {
    attr_drop(b);
    return nomem(err);
  }
  a->a.s_len = len;
  return NNS_OK;
}

/* A fixed list of `count` elements of `size` bytes: checks and allocates;
 * NULL with *st set on error. */
static battr *list_slot(nns_builder *b, const char *name, nns_attr_type type,
                        const void *values, size_t count, size_t size,
                        void **arr, nns_status *st, nns_error *err) {
  if (b && b->m && ((count && !values) || count > INT32_MAX)) {
    *st = bad(err, "attribute '%s': values is NULL or too long",
              name ? name : "");
    return NULL;
  }
  bool fresh;
  battr *a = attr_slot(b, name, type, &fresh, st, err);
  if (!a)
    return NULL;
  if (!(*arr = nns__arena_array(&b->m->arena, count, size))) {
    attr_drop(b);
    *st = nomem(err);
    return NULL;
  }
  a->a.n = (int32_t)count;
  return a;
}

nns_status nns_builder_attr_ints(nns_builder *b, const char *name,
                                 const int64_t *values, size_t count,
                                 nns_error *err) {
  nns_status st;
  void *arr;
  battr *a = list_slot(b, name, NNS_ATTR_INTS, values, count,
                       sizeof(int64_t), &arr, &st, err);
  if (!a)
    return st;
  a->a.ints = arr;
  if (count)
    memcpy(arr, values, count * sizeof(int64_t));
  return NNS_OK;
}

nns_status nns_builder_attr_floats(nns_builder *b, const char *name,
                                   const double *values, size_t count,
                                   nns_error *err) {
  nns_status st;
  void *arr;
  battr *a = list_slot(b, name, NNS_ATTR_FLOATS, values, count,
                       sizeof(double), &arr, &st, err);
  if (!a)
    return st;
  a->a.floats = arr;
  for (size_t k = 0; k < count; k++)
    a->a.floats[k] = (float)values[k];
  return NNS_OK;
}

nns_status nns_builder_attr_strings(nns_builder *b, const char *name,
                                    const char *const *values, size_t count,
                                    nns_error *err) {
  for (size_t k = 0; b && b->m && values && k < count; k++)
    if (!values[k])
      return bad(err, "attribute '%s': string %zu is NULL", name ? name : "",
                 k);
  nns_status st;
  void *arr;
  battr *a = list_slot(b, name, NNS_ATTR_STRINGS, values, count,
                       sizeof(char *), &arr, &st, err);
  if (!a)
    return st;
  a->a.strings = arr;
  for (size_t k = 0; k < count; k++)
    if (!(a->a.strings[k] = text(b, values[k]))) {
      attr_drop(b);
      return nomem(err);
    }
  return NNS_OK;
}

/* Appends `item` to an appended list attribute, or sets a single one. */
static nns_status attr_put(nns_builder *b, battr *a, bool fresh, void *item,
                           nns_error *err) {
  void **slot = push(b, &a->items, sizeof *slot);
  if (!slot || a->items.n > INT32_MAX) {
    if (slot)
      a->items.n--;
    if (fresh)
      attr_drop(b);
    return nomem(err);
  }
  *slot = item;
  return NNS_OK;
}

nns_status nns_builder_attr_tensor(nns_builder *b, const char *name,
                                   nns_attr_type type, int dtype, int rank,
                                   const int64_t *dims, const void *data,
                                   size_t data_size, nns_error *err) {
  nns_status st = usable(b, err);
  if (st)
    return st;
  if (type != NNS_ATTR_TENSOR && type != NNS_ATTR_TENSORS &&
      type != NNS_ATTR_SPARSE_TENSOR && type != NNS_ATTR_SPARSE_TENSORS)
    return bad(err, "attribute '%s': type %d is not a tensor type",
               name ? name : "", (int)type);
  bool sparse = type == NNS_ATTR_SPARSE_TENSOR ||
                type == NNS_ATTR_SPARSE_TENSORS;
  nns__tensor *t;
  /* (named by its attribute, not in the model's values) */
  if ((st = make_tensor(b, "attribute tensor", name ? name : "", b->empty,
                        dtype, rank, dims, data, data_size, sparse, &t,
                        err)))
    return st;
  bool fresh;
  battr *a = attr_slot(b, name, type, &fresh, &st, err);
  if (!a)
    return st;
  if (!is_list(type)) {
    a->a.t = t;
    return NNS_OK;
  }
  return attr_put(b, a, fresh, t, err);
}

nns_status nns_builder_attr_type(nns_builder *b, const char *name,
                                 nns_attr_type type, int dtype, int rank,
                                 const int64_t *dims,
                                 const char *const *symbols, nns_error *err) {
  nns_status st = usable(b, err);
  if (st)
    return st;
  if (type != NNS_ATTR_TYPE_PROTO && type != NNS_ATTR_TYPE_PROTOS)
    return bad(err, "attribute '%s': type %d is not a type-proto type",
               name ? name : "", (int)type);
  nns__type *t;
  if ((st = make_type(b, "attribute type", name ? name : "", dtype, rank,
                      dims, symbols, &t, err)))
    return st;
  if (!t) {
    if (!(t = nns__arena_alloc(&b->m->arena, sizeof *t)))
      return nomem(err);
    t->rank = -1;
  }
  bool fresh;
  battr *a = attr_slot(b, name, type, &fresh, &st, err);
  if (!a)
    return st;
  if (type == NNS_ATTR_TYPE_PROTO) {
    a->a.tp = t;
    return NNS_OK;
  }
  return attr_put(b, a, fresh, t, err);
}

nns_status nns_builder_begin_graph(nns_builder *b, const char *name,
                                   nns_attr_type type, nns_error *err) {
  nns_status st = usable(b, err);
  if (st)
    return st;
  if (type != NNS_ATTR_GRAPH && type != NNS_ATTR_GRAPHS)
    return bad(err, "attribute '%s': type %d is not a graph type",
               name ? name : "", (int)type);
  if (b->stack.n >= NNS__MAX_DEPTH)
    return nns__err(err, NNS_E_DEPTH, -1, NULL,
                    "subgraphs nested more than %d deep", NNS__MAX_DEPTH);
  const bgraph *owner = top(b);
  if (owner->nodes.n &&
      node_at(&owner->nodes, owner->nodes.n - 1)->kernel_count)
    return bad(err, "attribute '%s': node %zu runs in a kernel "
               "(nns_builder_mark_kernel), and a node holding a subgraph "
               "runs alone", name ? name : "", owner->nodes.n - 1);
  bgraph *g = new_graph(b);
  if (!g)
    return nomem(err);
  bool fresh;
  battr *a = attr_slot(b, name, type, &fresh, &st, err);
  if (!a)
    return st;
  if ((st = attr_put(b, a, fresh, g, err)))
    return st;
  bgraph **slot = push(b, &b->stack, sizeof *slot);
  if (!slot) {
    a->items.n--;
    if (fresh)
      attr_drop(b);
    return nomem(err);
  }
  *slot = g;
  return NNS_OK;
}

nns_status nns_builder_end_graph(nns_builder *b, nns_error *err) {
  nns_status st = usable(b, err);
  if (st)
    return st;
  if (b->stack.n < 2)
    return nns__err(err, NNS_E_STATE, -1, NULL,
                    "nns_builder_end_graph without a matching "
                    "nns_builder_begin_graph");
  b->stack.n--;
  return NNS_OK;
}

/* ==== Kernels ==== */

/* True when the node has a graph-valued attribute (If, Loop, Scan). */
static bool holds_graph(const bnode *n) {
  for (size_t k = 0; k < n->attrs.n; k++) {
    int32_t t = NNS__ARENA_VEC_AT(n->attrs, battr, k).a.type;
    if (t == NNS__AT_GRAPH || t == NNS__AT_GRAPHS)
      return true;
  }
  return false;
}

nns_status nns_builder_mark_kernel(nns_builder *b, size_t first_node,
                                   size_t count, nns_error *err) {
  nns_status st = usable(b, err);
  if (st)
    return st;
  if (b->stack.n != 1)
    return nns__err(err, NNS_E_STATE, -1, NULL,
                    "nns_builder_mark_kernel: kernels are nodes of the main "
                    "graph, and a subgraph is open");
  const bgraph *g = b->root;
  if (count < 2)
    return bad(err, "nns_builder_mark_kernel: a kernel has at least 2 "
               "nodes, not %zu", count);
  if (first_node >= g->nodes.n || count > g->nodes.n - first_node)
    return bad(err, "nns_builder_mark_kernel: %zu nodes from node %zu, but "
               "the main graph has %zu", count, first_node, g->nodes.n);
  size_t last = first_node + count - 1;
  for (size_t i = first_node; i <= last; i++) {
    const bnode *n = node_at(&g->nodes, i);
    /* A kernel wholly inside the new one is replaced by it (a binding's
     * function run as one kernel, of ops that are kernels themselves:
     * fused.py's SDPA); one it would cut is refused. */
    if (n->kernel_count &&
        ((size_t)n->kernel_first < first_node ||
         (size_t)n->kernel_first + (size_t)n->kernel_count - 1 > last))
      return bad(err, "nns_builder_mark_kernel: nodes %zu..%zu cut the "
                 "kernel of nodes %d..%d", first_node, last,
                 (int)n->kernel_first,
                 (int)(n->kernel_first + n->kernel_count - 1));
    if (holds_graph(n))
      return bad(err, "nns_builder_mark_kernel: node %zu (%s) holds a "
                 "subgraph, and such a node runs alone", i, n->op_type);
  }
  /* nodes.n < INT32_MAX (nns_builder_add_node): both fit. */
  for (size_t i = first_node; i < first_node + count; i++) {
    bnode *n = node_at(&g->nodes, i);
    n->kernel_first = (int32_t)first_node;
    n->kernel_count = (int32_t)count;
  }
  return NNS_OK;
}

/* ==== Finish: the description into the IR ==== */

static nns_status lay_graph(nns__asm *A, const bgraph *bg, nns__graph *g);

static nns_status lay_attr(nns__asm *A, const battr *ba, nns__node *n,
                           nns__attr *a) {
  *a = ba->a;
  nns__arena *arena = &A->m->arena;
  size_t count = ba->items.n;
  void **items = ba->items.p;
  switch (a->type) {
  case NNS__AT_GRAPH:
  case NNS__AT_GRAPHS: {
    nns__graph **gs = nns__arena_array(arena, count, sizeof *gs);
    if (!gs)
      return nns__asm_nomem(A);
    for (size_t k = 0; k < count; k++) {
      nns__graph *g = nns__asm_graph(A, n, -1);
      if (!g)
        return nns__asm_nomem(A);
      gs[k] = g;
      nns_status st = lay_graph(A, items[k], g);
      if (st)
        return st;
      nns__asm_subgraph_done(A, g);
    }
    if (a->type == NNS__AT_GRAPH) {
      a->g = gs[0];
    } else {
      a->graphs = gs;
      a->n = (int32_t)count;
    }
    return NNS_OK;
  }
  case NNS__AT_TENSORS:
  case NNS__AT_SPARSE_TENSORS:
    a->tensors = nns__arena_array(arena, count, sizeof *a->tensors);
    if (!a->tensors)
      return nns__asm_nomem(A);
    memcpy(a->tensors, items, count * sizeof *items);
    a->n = (int32_t)count;
    return NNS_OK;
  case NNS__AT_TYPE_PROTOS:
    a->tps = nns__arena_array(arena, count, sizeof *a->tps);
    if (!a->tps)
      return nns__asm_nomem(A);
    memcpy(a->tps, items, count * sizeof *items);
    a->n = (int32_t)count;
    return NNS_OK;
  default:
    return NNS_OK;
  }
}

static nns_status lay_node(nns__asm *A, const bnode *bn, nns__graph *g,
                           int32_t i) {
  nns__node *n = &g->nodes[i];
  nns__arena *arena = &A->m->arena;
  n->index = (uint32_t)i;
  n->graph = g;
  n->name = bn->name;
  n->op_type = bn->op_type;
  n->domain = bn->domain;
  n->scope = bn->scope;
  n->kernel_first = bn->kernel_first;
  n->kernel_count = bn->kernel_count;
  n->opset = -1;
  n->offset = -1;
  n->n_in = bn->n_in;
  n->n_out = bn->n_out;
  n->in_names = bn->in_names;
  n->out_names = bn->out_names;
  n->in = nns__arena_array(arena, (size_t)n->n_in, sizeof *n->in);
  n->out = nns__arena_array(arena, (size_t)n->n_out, sizeof *n->out);
  n->n_attrs = (int32_t)bn->attrs.n;
  n->attrs = nns__arena_array(arena, bn->attrs.n, sizeof *n->attrs);
  if (!n->in || !n->out || !n->attrs)
    return nns__asm_nomem(A);
  nns_status st;
  for (int32_t k = 0; k < n->n_out; k++)
    if (n->out_names[k][0] && (st = nns__asm_node_output(A, n, k)))
      return st;
  for (int32_t k = 0; k < n->n_attrs; k++)
    if ((st = lay_attr(A, &NNS__ARENA_VEC_AT(bn->attrs, battr, k), n,
                       &n->attrs[k])))
      return st;
  return NNS_OK;
}

/* Lays out the description bg into g (made by nns__asm_graph), values in
 * the decoder's order: inputs, initializers, node outputs. */
static nns_status lay_graph(nns__asm *A, const bgraph *bg, nns__graph *g) {
  nns__arena *arena = &A->m->arena;
  nns_status st;
  g->name = bg->name;
  g->n_inputs = (int32_t)bg->inputs.n;
  g->n_outputs = (int32_t)bg->outputs.n;
  g->n_inits = (int32_t)bg->inits.n;
  g->n_nodes = (int32_t)bg->nodes.n;
  g->n_value_info = (int32_t)bg->value_info.n;
  g->inputs = nns__arena_array(arena, bg->inputs.n, sizeof(void *));
  g->outputs = nns__arena_array(arena, bg->outputs.n, sizeof(void *));
  g->inits = nns__arena_array(arena, bg->inits.n, sizeof(void *));
  g->nodes = nns__arena_array(arena, bg->nodes.n, sizeof *g->nodes);
  g->vi_names = nns__arena_array(arena, bg->value_info.n, sizeof(void *));
  g->vi_types = nns__arena_array(arena, bg->value_info.n, sizeof(void *));
  if (!g->inputs || !g->outputs || !g->inits || !g->nodes || !g->vi_names ||
      !g->vi_types)
    return nns__asm_nomem(A);
  for (int32_t i = 0; i < g->n_inputs; i++) {
    const bval *b = &NNS__ARENA_VEC_AT(bg->inputs, bval, i);
    if ((st = nns__asm_input(A, g, b->name, b->type, &g->inputs[i])))
      return st;
  }
  const binit *inits = NULL;
  if (bg->placed && bg->inits.n) { /* in the order they were placed in */
    binit *sorted = nns__arena_array(arena, bg->inits.n, sizeof *sorted);
    if (!sorted)
      return nns__asm_nomem(A);
    lay_inits(&bg->inits, sorted);
    inits = sorted;
  }
  for (int32_t i = 0; i < g->n_inits; i++) {
    const binit *b = inits ? &inits[i]
                           : &NNS__ARENA_VEC_AT(bg->inits, binit, i);
    if ((st = nns__asm_initializer(A, g, b->t, &g->inits[i])))
      return st;
  }
  for (int32_t i = 0; i < g->n_outputs; i++) {
    const bval *b = &NNS__ARENA_VEC_AT(bg->outputs, bval, i);
    if ((st = nns__asm_output(A, g, b->name, b->type, &g->outputs[i])))
      return st;
  }
  for (int32_t i = 0; i < g->n_value_info; i++) {
    const bval *b = &NNS__ARENA_VEC_AT(bg->value_info, bval, i);
    g->vi_names[i] = b->name;
    g->vi_types[i] = b->type;
  }
  for (int32_t i = 0; i < g->n_nodes; i++)
    if ((st = lay_node(A, node_at(&bg->nodes, (size_t)i), g, i)))
      return st;
  return NNS_OK;
}

/* A copy of a builder array in the model's arena (opsets, metadata). */
static void *adopt(nns_model *m, const nns__arena_vec *v, size_t size) {
  void *p = nns__arena_array(&m->arena, v->n, size);
  if (p && v->n)
    memcpy(p, v->p, v->n * size);
  return p;
}

/* The packed PARAM_KIND records, once the main graph's names resolve:
 * each names a value of it, or finish fails before any is given. */
static nns_status give_kinds(nns_builder *b, nns_error *err) {
  nns_model *m = b->m;
  for (size_t i = 0; i < b->kinds.n; i++) {
    const pkind *k = &NNS__ARENA_VEC_AT(b->kinds, pkind, i);
    if (!nns__map_get(&m->graph->scope, k->name))
      return nns__err(err, NNS_E_NOTFOUND, -1, NULL,
                      "parameter kind of '%s': the main graph has no value "
                      "of that name", k->name);
  }
  for (size_t i = 0; i < b->kinds.n; i++) {
    const pkind *k = &NNS__ARENA_VEC_AT(b->kinds, pkind, i);
    if (!nns__map_put(&m->param_kinds, k->name,
                      (void *)(uintptr_t)(k->kind + 1)))
      return nomem(err);
  }
  return NNS_OK;
}

/* The VALUE_DATA records: each names a main-graph value of as many
 * elements (its type is checked again where the contents are read). */
static nns_status give_knowns(nns_builder *b, nns_error *err) {
  nns_model *m = b->m;
  for (size_t i = 0; i < b->knowns.n; i++) {
    const pknown *k = &NNS__ARENA_VEC_AT(b->knowns, pknown, i);
    nns__value *v = nns__map_get(&m->graph->scope, k->name);
    if (!v)
      return nns__err(err, NNS_E_NOTFOUND, -1, NULL,
                      "contents of '%s': the main graph has no value of that "
                      "name", k->name);
    v->known = k->t;
  }
  return NNS_OK;
}

nns_status nns_builder_finish(nns_builder *b, nns_model **out,
                              nns_error *err) {
  nns_status st = usable(b, err);
  if (st)
    return st;
  if (!out)
    return bad(err, "nns_builder_finish: out is NULL");
  *out = NULL;
  if (b->stack.n != 1)
    return nns__err(err, NNS_E_STATE, -1, NULL,
                    "%zu subgraph(s) still open: call nns_builder_end_graph "
                    "first", b->stack.n - 1);
  nns_model *m = b->m;
  nns__asm A;
  if ((st = nns__asm_begin(&A, m, err, "building")))
    return st;
  m->n_opsets = (int32_t)b->opset_domains.n;
  m->opset_domains = adopt(m, &b->opset_domains, sizeof(char *));
  m->opset_versions = adopt(m, &b->opset_versions, sizeof(int64_t));
  m->n_meta = (int32_t)b->meta_keys.n;
  m->meta_keys = adopt(m, &b->meta_keys, sizeof(char *));
  m->meta_values = adopt(m, &b->meta_values, sizeof(char *));
  nns__graph *g = nns__asm_graph(&A, NULL, -1);
  if (!g || !m->opset_domains || !m->opset_versions || !m->meta_keys ||
      !m->meta_values)
    return nomem(err);
  m->graph = g;
  m->subgraph_nodes = 0;
  st = lay_graph(&A, b->root, g);
  if (!st)
    st = nns__asm_finish(&A, g);
  if (!st)
    st = give_kinds(b, err);
  if (!st)
    st = give_knowns(b, err);
  if (!st) {
    m->n_observed = b->observed.n;
    m->observed = adopt(m, &b->observed, sizeof(nns__observed));
    if (!m->observed)
      st = nomem(err);
  }
  if (st) {
    /* The description is untouched: what was laid out stays unused in
     * the arena until the builder goes, and a later finish starts over. */
    m->graph = NULL;
    m->n_values = 0;
    m->n_nodes = 0;
    m->subgraph_nodes = 0;
    return st;
  }
  m->dir = nns__arena_strndup(&m->arena, ".", 1);
  if (!m->dir) {
    m->graph = NULL;
    m->n_values = m->n_nodes = 0;
    return nomem(err);
  }
  b->m = NULL;
  *out = m;
  return NNS_OK;
}

/* ==== What the packed reader needs (builder_int.h) ==== */

nns_status nns__builder_observed_shape(nns_builder *b, const char *name,
                                       int rank, const int64_t *dims,
                                       nns_error *err) {
  nns_status st;
  if ((st = usable(b, err)) || (st = check_name("value", name, err)))
    return st;
  if (rank < 0 || rank > NNS__MAX_RANK || (rank && !dims))
    return bad(err, "observed shape of '%s': rank %d is not between 0 and "
               "%d", name, rank, NNS__MAX_RANK);
  for (int k = 0; k < rank; k++)
    if (dims[k] < 0)
      return bad(err, "observed shape of '%s': dim %d is %lld, negative",
                 name, k, (long long)dims[k]);
  int64_t *kept = nns__arena_array(&b->m->arena, (size_t)rank + 1,
                                   sizeof *kept);
  nns__observed *o = kept ? push(b, &b->observed, sizeof *o) : NULL;
  if (!o)
    return nomem(err);
  if (rank)
    memcpy(kept, dims, (size_t)rank * sizeof *kept);
  o->name = intern(b, name);
  o->rank = rank;
  o->dims = kept;
  return o->name ? NNS_OK : nomem(err);
}

nns_status nns__builder_usable(const nns_builder *b, nns_error *err) {
  return usable(b, err);
}

nns_model *nns__builder_model(nns_builder *b) { return b->m; }

nns__arena *nns__builder_arena(nns_builder *b) { return &b->arena; }

bool nns__builder_in_subgraph(const nns_builder *b) { return b->stack.n != 1; }

void nns__builder_reserve_names(nns_builder *b, size_t n) {
  if (usable(b, NULL) != NNS_OK)
    return;
  (void)nns__intern_reserve(&b->m->strings, n);
  (void)nns__map_reserve(&b->root->defined, b->root->defined.count + n);
}

nns_status nns__builder_opsets_of_nodes(nns_builder *b, nns_error *err) {
  nns_status st = usable(b, err);
  for (size_t i = 0; st == NNS_OK && i < b->root->nodes.n; i++) {
    const char *d = node_at(&b->root->nodes, i)->domain;
    bool have = false;
    for (size_t j = 0; j < b->opset_domains.n && !have; j++)
      have = NNS__ARENA_VEC_AT(b->opset_domains, const char *, j) == d;
    if (!have)
      st = nns_builder_add_opset(b, d, 1, err);
  }
  /* ordered by domain: a few, sorted in place */
  const char **ds = b->opset_domains.p;
  int64_t *vs = b->opset_versions.p;
  for (size_t i = 1; st == NNS_OK && i < b->opset_domains.n; i++)
    for (size_t j = i; j > 0 && strcmp(ds[j - 1], ds[j]) > 0; j--) {
      const char *d = ds[j];
      int64_t v = vs[j];
      ds[j] = ds[j - 1];
      vs[j] = vs[j - 1];
      ds[j - 1] = d;
      vs[j - 1] = v;
    }
  return st;
}

void nns__builder_inits_in_order(nns_builder *b, const char *const *names,
                                 int n) {
  enum { MAX = 64 };
  binit held[MAX];  /* the initializers, in the order given */
  size_t at[MAX];   /* the places they hold, rising (lay_inits walks the
                       placed ones in the order they are held) */
  int k = 0;
  binit *inits = b->root->inits.p;
  for (int j = 0; j < n && j < MAX; j++) /* recent: looked for from the end */
    for (size_t i = b->root->inits.n; i-- > 0;)
      if (inits[i].name == names[j]) {
        if (!inits[i].sub)
          return; /* added plainly: where it is */
        held[k] = inits[i];
        at[k++] = i;
        break;
      }
  for (int i = 1; i < k; i++)
    for (int j = i; j > 0 && at[j - 1] > at[j]; j--) {
      size_t t = at[j];
      at[j] = at[j - 1];
      at[j - 1] = t;
    }
  uint64_t subs[MAX];
  for (int i = 0; i < k; i++)
    subs[i] = inits[at[i]].sub;
  for (int i = 0; i < k; i++) {
    inits[at[i]] = held[i];
    inits[at[i]].sub = subs[i];
  }
}

nns_status nns__builder_rename_inits(nns_builder *b, const char *const *from,
                                    const char *const *to, int n,
                                    nns_error *err) {
  enum { MAX = 16 };
  nns_status st = usable(b, err);
  if (st)
    return st;
  if (n < 0 || n > MAX)
    return bad(err, "%d initializers renamed at once (at most %d)", n, MAX);
  bgraph *g = b->root;
  binit *inits = g->inits.p;
  binit *at[MAX];
  const char *name[MAX];
  for (int j = 0; j < n; j++) {
    at[j] = NULL;
    for (size_t i = g->inits.n; i-- > 0 && !at[j];) /* recent: from the end */
      if (inits[i].name == from[j])
        at[j] = &inits[i];
    if (!at[j] || (uintptr_t)nns__map_get(&g->defined, from[j]) != DEF_INIT)
      return bad(err, "initializer '%s' to rename is not one", from[j]);
    if (!(name[j] = intern(b, to[j])))
      return nomem(err);
  }
  /* a new name may be one that another of `from` gives up, never another
   * value's: the names are swapped all at once */
  for (int j = 0; j < n; j++) {
    bool freed = false;
    for (int k = 0; k < n && !freed; k++)
      freed = from[k] == name[j];
    if (!freed && nns__map_get(&g->defined, name[j]))
      return redefined(g, name[j], err);
  }
  for (int j = 0; j < n; j++)
    if (!nns__map_put(&g->defined, from[j], NULL))
      return nomem(err);
  for (int j = 0; j < n; j++) {
    if (!nns__map_put(&g->defined, name[j], (void *)(uintptr_t)DEF_INIT))
      return nomem(err);
    at[j]->name = name[j];
    at[j]->t->name = name[j];
  }
  /* the kinds given them, each renamed once */
  pkind *kinds = b->kinds.p;
  bool done[MAX] = {false};
  for (size_t i = b->kinds.n; i-- > 0;)
    for (int j = 0; j < n; j++)
      if (!done[j] && kinds[i].name == from[j]) {
        kinds[i].name = name[j];
        done[j] = true;
        break;
      }
  return NNS_OK;
}

size_t nns__builder_node_count(const nns_builder *b) {
  return b->root->nodes.n;
}

nns__builder_mark nns__builder_marked(const nns_builder *b) {
  return (nns__builder_mark){b->root->nodes.n, b->root->value_info.n};
}

void nns__builder_take_back(nns_builder *b, nns__builder_mark m) {
  bgraph *g = b->root;
  while (g->nodes.n > m.nodes) {
    const bnode *n = node_at(&g->nodes, g->nodes.n - 1);
    for (int32_t k = 0; k < n->n_out; k++)
      if (n->out_names[k][0]) /* (a key there already: no allocation) */
        nns__map_put(&g->defined, n->out_names[k], NULL);
    g->nodes.n--;
  }
  if (g->value_info.n > m.value_info)
    g->value_info.n = m.value_info;
}

void nns__builder_break(nns_builder *b) { b->broken = true; }

size_t nns__builder_input_count(const nns_builder *b) {
  return b->root->inputs.n;
}

nns_status nns__builder_order_inputs(nns_builder *b, const size_t *slots,
                                     const uint64_t *keys, size_t n,
                                     nns_error *err) {
  bval *inputs = b->root->inputs.p;
  size_t count = b->root->inputs.n;
  for (size_t k = 0; k < n; k++)
    if (slots[k] >= count || (k && slots[k] <= slots[k - 1]))
      return bad(err, "ordering inputs: slot %zu of %zu is not an input, "
                      "or not after the one before", k, n);
  if (n < 2)
    return NNS_OK;
  struct keyed {
    bval v;
    uint64_t key;
  } *held = malloc(n * sizeof *held);
  if (!held)
    return nomem(err);
  for (size_t k = 0; k < n; k++)
    held[k] = (struct keyed){inputs[slots[k]], keys[k]};
  /* insertion: stable, and the slots are few (a call's first reads) or
   * already in order (calls numbered one after the other) */
  for (size_t k = 1; k < n; k++) {
    struct keyed x = held[k];
    size_t j = k;
    for (; j > 0 && held[j - 1].key > x.key; j--)
      held[j] = held[j - 1];
    held[j] = x;
  }
  for (size_t k = 0; k < n; k++)
    inputs[slots[k]] = held[k].v;
  free(held);
  return NNS_OK;
}

void *nns__builder_front(const nns_builder *b) { return b->front; }

void nns__builder_set_front(nns_builder *b, void *front,
                            void (*free_front)(void *)) {
  b->front = front;
  b->free_front = free_front;
}

nns_status nns__builder_param_kind(nns_builder *b, const char *name,
                                   int kind, nns_error *err) {
  nns_status st;
  if ((st = usable(b, err)) || (st = check_name("parameter", name, err)))
    return st;
  if (kind < NNS_PARAM_TRAINABLE || kind > NNS_PARAM_FROZEN)
    return bad(err, "parameter '%s': unknown kind %d", name, kind);
  const char *n = intern(b, name);
  pkind *k = n ? push(b, &b->kinds, sizeof *k) : NULL;
  if (!k)
    return nomem(err);
  k->name = n;
  k->kind = (nns_param_kind)kind;
  return NNS_OK;
}

nns_status nns__builder_value_data(nns_builder *b, const char *name,
                                   int dtype, int rank, const int64_t *dims,
                                   const void *data, size_t len,
                                   nns_error *err) {
  nns_status st;
  if ((st = usable(b, err)) || (st = check_name("value", name, err)))
    return st;
  nns__tensor *t;
  if (!data) { /* the same contents as the last record that gave some */
    const nns__tensor *last =
        b->knowns.n ? NNS__ARENA_VEC_AT(b->knowns, pknown, b->knowns.n - 1).t
                    : NULL;
    int64_t numel = 1;
    bool ok = rank >= 0;
    for (int k = 0; ok && k < rank; k++)
      ok = dims[k] >= 0 && nns__mul_i64(numel, dims[k], &numel);
    if (!last || !ok || last->dtype != dtype || last->numel != numel)
      return bad(err, "contents of '%s': no data, and the last value_data "
                 "record's dtype or element count differs", name);
    t = (nns__tensor *)last;
  } else if ((st = make_tensor(b, "contents of", name, NULL, dtype, rank,
                               dims, data, len, false, &t, err))) {
    return st;
  }
  pknown *k = push(b, &b->knowns, sizeof *k);
  if (!k)
    return nomem(err);
  k->name = intern(b, name);
  k->t = t;
  return k->name ? NNS_OK : nomem(err);
}
