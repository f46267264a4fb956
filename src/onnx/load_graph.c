/*
 * load_graph.c - GraphProto, NodeProto, AttributeProto, ValueInfoProto and
 * TypeProto into the IR through the graph-assembly interface
 * (src/ir/assemble.h), which resolves names once the model is decoded.
 *
 * Nodes, the most numerous messages, and shapes are decoded in one pass:
 * their elements are gathered on a scratch stack (or the C stack) and
 * copied into arena arrays of their final size. A graph, whose nodes must
 * not move once decoded (values point at their producer), and a list
 * attribute are skimmed first to count their elements (tags and lengths
 * only, nothing decoded), then decoded into arrays allocated once. Memory
 * stays linear in the size of the model either way.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "load_int.h"

/* ==== Types ==== */

/* One pass: the dims go to a buffer on the C stack (at most
 * NNS__MAX_RANK), then into an arena array of the final rank. */
static nns_status load_shape(nns__loader *L, const nns__wire *w,
                             nns__type *t) {
  nns__wire r = *w, sub;
  nns__field f;
  nns_status st;
  nns__dim dims[NNS__MAX_RANK];
  int32_t n = 0;
  while ((st = nns__wire_next(&r, &f)) == NNS_OK && f.num) {
    if (f.num != NNS__F_SHAPE_DIM)
      continue;
    if (n == NNS__MAX_RANK)
      return nns__wire_fail(&r, &f, NNS_E_LIMIT, "more than %d dims",
                            NNS__MAX_RANK);
    if ((st = nns__wire_enter(&r, &f, &nns__pb_dim, &sub)) != NNS_OK)
      return st;
    /* dim_value and dim_param are a oneof: the last one set wins. A dim
     * with neither, a negative value or an empty name is an unknown of its
     * own. */
    nns__field d;
    int64_t value = -1;
    const char *param = NULL;
    while ((st = nns__wire_next(&sub, &d)) == NNS_OK && d.num) {
      if (d.num == NNS__F_DIM_DIM_VALUE) {
        value = (int64_t)d.u;
        param = NULL;
      } else if (d.num == NNS__F_DIM_DIM_PARAM) {
        if ((st = nns__load_name(L, &d, &param)) != NNS_OK)
          return st;
        value = -1;
      }
    }
    if (st != NNS_OK)
      return st;
    nns__dim *dim = &dims[n++];
    if (value >= 0) {
      *dim = nns__dim_known(value);
    } else {
      dim->v = 0;
      dim->sym = param && param[0] ? nns__sym_named(L->A.m, param)
                                   : nns__sym_fresh(L->A.m);
      if (!dim->sym)
        return nns__load_nomem(L);
    }
  }
  if (st != NNS_OK)
    return st;
  t->rank = n;
  t->dims = NULL;
  if (!n)
    return NNS_OK;
  t->dims = nns__arena_array(L->arena, (size_t)n, sizeof *t->dims);
  if (!t->dims)
    return nns__load_nomem(L);
  nns__dims_copy(t->dims, dims, n);
  return NNS_OK;
}

/* TypeProto.Tensor / TypeProto.SparseTensor. */
static nns_status load_tensor_type(nns__loader *L, const nns__wire *w,
                                   nns__type *t, uint8_t kind) {
  nns__wire r = *w, sub;
  nns__field f;
  nns_status st;
  t->kind = kind;
  while ((st = nns__wire_next(&r, &f)) == NNS_OK && f.num) {
    if (f.num == NNS__F_TT_ELEM_TYPE) {
      t->dtype = (int32_t)f.u;
    } else if (f.num == NNS__F_TT_SHAPE) {
      if ((st = nns__wire_enter(&r, &f, &nns__pb_shape, &sub)) != NNS_OK ||
          (st = load_shape(L, &sub, t)) != NNS_OK)
        return st;
    }
  }
  return st;
}

/* The element type of a sequence or optional, or a map's value type:
 * field `num` of the message w holds a TypeProto. */
static nns_status load_inner_type(nns__loader *L, const nns__wire *w,
                                  uint32_t num, nns__type *inner) {
  nns__wire r = *w, sub;
  nns__field f;
  nns_status st;
  while ((st = nns__wire_next(&r, &f)) == NNS_OK && f.num) {
    if (f.num != num)
      continue;
    if ((st = nns__wire_enter(&r, &f, &nns__pb_type, &sub)) != NNS_OK ||
        (st = nns__load_type(L, &sub, inner)) != NNS_OK)
      return st;
  }
  return st;
}

static void type_unknown(nns__type *t) {
  memset(t, 0, sizeof *t);
  t->rank = -1;
}

nns_status nns__load_type(nns__loader *L, const nns__wire *w, nns__type *t) {
  nns__wire r = *w, sub;
  nns__field f;
  nns_status st;
  type_unknown(t);
  while ((st = nns__wire_next(&r, &f)) == NNS_OK && f.num) {
    const nns__pbmsg *msg = NULL;
    switch (f.num) {
    case NNS__F_TYPE_TENSOR_TYPE:
    case NNS__F_TYPE_SPARSE_TENSOR_TYPE:
      msg = &nns__pb_type_tensor;
      break;
    case NNS__F_TYPE_SEQUENCE_TYPE:
      msg = &nns__pb_type_seq;
      break;
    case NNS__F_TYPE_OPTIONAL_TYPE:
      msg = &nns__pb_type_opt;
      break;
    case NNS__F_TYPE_MAP_TYPE:
      msg = &nns__pb_type_map;
      break;
    default:
      continue; /* denotation, opaque: no type nnscan can use */
    }
    if ((st = nns__wire_enter(&r, &f, msg, &sub)) != NNS_OK)
      return st;
    type_unknown(t); /* a oneof: the last member set wins */
    if (f.num == NNS__F_TYPE_TENSOR_TYPE ||
        f.num == NNS__F_TYPE_SPARSE_TENSOR_TYPE) {
      st = load_tensor_type(L, &sub, t,
                            f.num == NNS__F_TYPE_TENSOR_TYPE
                                ? NNS_KIND_TENSOR
                                : NNS_KIND_SPARSE);
    } else {
      /* Sequence and optional take the dtype and dims of their element;
       * a map keeps its key dtype, and the kind of its values. */
      nns__type inner;
      type_unknown(&inner);
      st = load_inner_type(L, &sub,
                           f.num == NNS__F_TYPE_MAP_TYPE
                               ? NNS__F_TMAP_VALUE_TYPE
                               : NNS__F_TELEM_ELEM_TYPE,
                           &inner);
      if (st == NNS_OK && f.num == NNS__F_TYPE_MAP_TYPE) {
        nns__field k;
        nns__wire kr = sub;
        while ((st = nns__wire_next(&kr, &k)) == NNS_OK && k.num)
          if (k.num == NNS__F_TMAP_KEY_TYPE)
            t->dtype = (int32_t)k.u;
        t->kind = NNS_KIND_MAP;
        t->elem_kind = inner.kind;
      } else if (st == NNS_OK) {
        *t = inner;
        t->elem_kind = inner.kind;
        t->kind = f.num == NNS__F_TYPE_SEQUENCE_TYPE ? NNS_KIND_SEQUENCE
                                                      : NNS_KIND_OPTIONAL;
      }
    }
    if (st != NNS_OK)
      return st;
  }
  return st;
}

nns_status nns__load_value_info(nns__loader *L, const nns__wire *w,
                                const char **name, nns__type **type) {
  nns__wire r = *w, sub;
  nns__field f;
  nns_status st;
  *name = L->A.empty;
  *type = NULL;
  while ((st = nns__wire_next(&r, &f)) == NNS_OK && f.num) {
    if (f.num == NNS__F_VI_NAME) {
      st = nns__load_name(L, &f, name);
    } else if (f.num == NNS__F_VI_TYPE) {
      if (!*type && !(*type = nns__arena_alloc(L->arena, sizeof **type)))
        return nns__load_nomem(L);
      if ((st = nns__wire_enter(&r, &f, &nns__pb_type, &sub)) == NNS_OK)
        st = nns__load_type(L, &sub, *type);
    }
    if (st != NNS_OK)
      return st;
  }
  return st;
}

/* ==== Attributes ==== */

static nns_status load_subgraph(nns__loader *L, const nns__wire *w,
                                const nns__field *f, nns__node *owner,
                                nns__graph **out) {
  nns__wire sub;
  nns_status st = nns__wire_enter(w, f, &nns__pb_graph, &sub);
  if (st != NNS_OK)
    return st;
  nns__graph *g =
      nns__asm_graph(&L->A, owner, sub.origin + (int64_t)sub.pos);
  if (!g)
    return nns__load_nomem(L);
  *out = g;
  if ((st = nns__load_graph(L, &sub, g)) != NNS_OK)
    return st;
  nns__asm_subgraph_done(&L->A, g);
  return NNS_OK;
}

static nns_status load_tensor_field(nns__loader *L, const nns__wire *w,
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

static nns_status load_type_field(nns__loader *L, const nns__wire *w,
                                  const nns__field *f, nns__type **out) {
  nns__wire sub;
  nns__type *t = nns__arena_alloc(L->arena, sizeof *t);
  if (!t)
    return nns__load_nomem(L);
  *out = t;
  nns_status st = nns__wire_enter(w, f, &nns__pb_type, &sub);
  return st != NNS_OK ? st : nns__load_type(L, &sub, t);
}

/*
 * The AttributeProto fields that hold a value: the attribute type each
 * carries and whether it is a list. Old models leave `type` out; the value
 * field that is set tells it, tried in this order: lists with elements
 * first, then message fields, then scalars, since a writer may emit a
 * scalar's zero value without meaning it.
 */
static const struct attr_field {
  uint8_t num;  /* AttributeProto field number */
  uint8_t type; /* nns__attr_type */
  bool list;
} attr_fields[] = {
    {NNS__F_ATTR_FLOATS, NNS__AT_FLOATS, true},
    {NNS__F_ATTR_INTS, NNS__AT_INTS, true},
    {NNS__F_ATTR_STRINGS, NNS__AT_STRINGS, true},
    {NNS__F_ATTR_TENSORS, NNS__AT_TENSORS, true},
    {NNS__F_ATTR_GRAPHS, NNS__AT_GRAPHS, true},
    {NNS__F_ATTR_SPARSE_TENSORS, NNS__AT_SPARSE_TENSORS, true},
    {NNS__F_ATTR_TYPE_PROTOS, NNS__AT_TYPE_PROTOS, true},
    {NNS__F_ATTR_T, NNS__AT_TENSOR, false},
    {NNS__F_ATTR_G, NNS__AT_GRAPH, false},
    {NNS__F_ATTR_SPARSE_TENSOR, NNS__AT_SPARSE_TENSOR, false},
    {NNS__F_ATTR_TP, NNS__AT_TYPE_PROTO, false},
    {NNS__F_ATTR_S, NNS__AT_STRING, false},
    {NNS__F_ATTR_I, NNS__AT_INT, false},
    {NNS__F_ATTR_F, NNS__AT_FLOAT, false},
};
enum {
  N_ATTR_FIELDS = sizeof attr_fields / sizeof attr_fields[0],
  ATTR_FIELD_END = NNS__F_ATTR_SPARSE_TENSORS + 1 /* above every value field */
};

/* The entry of field `num`, or NULL when it holds no value. */
static const struct attr_field *attr_field_of(uint32_t num) {
  for (size_t i = 0; i < N_ATTR_FIELDS; i++)
    if (attr_fields[i].num == num)
      return &attr_fields[i];
  return NULL;
}

/* The entry of attribute type `type`, or NULL for an unknown type. */
static const struct attr_field *attr_field_for(int32_t type) {
  for (size_t i = 0; i < N_ATTR_FIELDS; i++)
    if (attr_fields[i].type == type)
      return &attr_fields[i];
  return NULL;
}

static int32_t guess_attr_type(const int32_t seen[ATTR_FIELD_END]) {
  for (size_t i = 0; i < N_ATTR_FIELDS; i++)
    if (seen[attr_fields[i].num])
      return attr_fields[i].type;
  return NNS__AT_UNDEFINED;
}

/* What the first pass over an AttributeProto saw of its value fields. */
typedef struct attr_scan {
  int32_t seen[ATTR_FIELD_END];     /* elements (or occurrences) per field */
  nns__field last[ATTR_FIELD_END];  /* last occurrence of each: set only
                                       where seen[] is not 0 */
  bool type_given;                  /* the `type` field was there */
} attr_scan;

/* First pass: the name, type and scalar values, and how many elements
 * each value field holds. */
static nns_status scan_attr(nns__loader *L, const nns__wire *w, nns__attr *a,
                            attr_scan *sc) {
  nns__wire r = *w;
  nns__field f;
  nns_status st;
  while ((st = nns__wire_next(&r, &f)) == NNS_OK && f.num) {
    size_t c = 1;
    switch (f.num) {
    case NNS__F_ATTR_NAME:
      st = nns__load_name(L, &f, &a->name);
      break;
    case NNS__F_ATTR_REF_ATTR_NAME:
      st = nns__load_name(L, &f, &a->ref_attr_name);
      break;
    case NNS__F_ATTR_TYPE:
      a->type = (int32_t)f.u;
      sc->type_given = true;
      break;
    case NNS__F_ATTR_F: {
      uint32_t bits = (uint32_t)f.u;
      float x;
      memcpy(&x, &bits, 4);
      a->f = x;
      break;
    }
    case NNS__F_ATTR_I:
      a->i = (int64_t)f.u;
      break;
    case NNS__F_ATTR_S:
      a->s = nns__arena_strndup(L->arena, (const char *)f.data, f.len);
      a->s_len = f.len;
      if (!a->s)
        return nns__load_nomem(L);
      break;
    case NNS__F_ATTR_FLOATS:
      st = nns__wire_rep_count(&r, &f, 4, &c);
      break;
    case NNS__F_ATTR_INTS:
      st = nns__wire_rep_count(&r, &f, 0, &c);
      break;
    default:
      break;
    }
    if (st != NNS_OK)
      return st;
    if (f.num < ATTR_FIELD_END && attr_field_of(f.num)) {
      if ((st = nns__load_count_up(&r, &f, &sc->seen[f.num], c)) != NNS_OK)
        return st;
      sc->last[f.num] = f;
    }
  }
  return st;
}

/* The array of a list attribute, `count` elements. */
static void *alloc_list(nns__loader *L, nns__attr *a, int32_t count) {
  nns__arena *arena = L->arena;
  a->n = count;
  switch (a->type) {
  case NNS__AT_FLOATS:
    return a->floats = nns__arena_array(arena, (size_t)count, sizeof(double));
  case NNS__AT_INTS:
    return a->ints = nns__arena_array(arena, (size_t)count, sizeof(int64_t));
  case NNS__AT_STRINGS:
    return a->strings =
               nns__arena_array(arena, (size_t)count, sizeof(char *));
  case NNS__AT_TENSORS:
  case NNS__AT_SPARSE_TENSORS:
    return a->tensors =
               nns__arena_array(arena, (size_t)count, sizeof(void *));
  case NNS__AT_GRAPHS:
    return a->graphs = nns__arena_array(arena, (size_t)count, sizeof(void *));
  default:
    return a->tps = nns__arena_array(arena, (size_t)count, sizeof(void *));
  }
}

/* Appends the elements of occurrence f to list attribute a at *k. */
static nns_status list_elements(nns__loader *L, const nns__wire *r,
                                const nns__field *f, nns__node *n,
                                nns__attr *a, int32_t *k) {
  switch (a->type) {
  case NNS__AT_FLOATS:
    if (f->wt != NNS__WT_LEN) {
      uint32_t bits = (uint32_t)f->u;
      float x;
      memcpy(&x, &bits, 4);
      a->floats[(*k)++] = x;
      return NNS_OK;
    }
    for (size_t pos = 0; pos + 4 <= f->len; pos += 4) {
      uint32_t bits = nns__le32(f->data + pos);
      float x;
      memcpy(&x, &bits, 4);
      a->floats[(*k)++] = x;
    }
    return NNS_OK;
  case NNS__AT_INTS: {
    if (f->wt != NNS__WT_LEN) {
      a->ints[(*k)++] = (int64_t)f->u;
      return NNS_OK;
    }
    char what[64];
    nns__wire_fname(r, f, what, sizeof what);
    for (size_t pos = 0; pos < f->len;) {
      uint64_t v;
      nns_status st = nns__wire_varint(f->data, f->len, &pos, &v,
                                       r->origin + (int64_t)f->pos, what,
                                       L->A.err);
      if (st != NNS_OK)
        return st;
      a->ints[(*k)++] = (int64_t)v;
    }
    return NNS_OK;
  }
  case NNS__AT_STRINGS:
    if (!(a->strings[(*k)++] = nns__arena_strndup(
              L->arena, (const char *)f->data, f->len)))
      return nns__load_nomem(L);
    return NNS_OK;
  case NNS__AT_TENSORS:
  case NNS__AT_SPARSE_TENSORS:
    return load_tensor_field(L, r, f, a->type == NNS__AT_SPARSE_TENSORS,
                             &a->tensors[(*k)++]);
  case NNS__AT_GRAPHS:
    return load_subgraph(L, r, f, n, &a->graphs[(*k)++]);
  default:
    return load_type_field(L, r, f, &a->tps[(*k)++]);
  }
}

/* An attribute a second thread's loader decodes (nns__loader.plain):
 * numbers, strings and dense tensors (a Constant's value; one with
 * external data or segments stops it in nns__load_tensor), not graphs,
 * sparse tensors or types. */
static bool plain_attr(int32_t type) {
  return type == NNS__AT_FLOAT || type == NNS__AT_INT ||
         type == NNS__AT_STRING || type == NNS__AT_FLOATS ||
         type == NNS__AT_INTS || type == NNS__AT_STRINGS ||
         type == NNS__AT_TENSOR || type == NNS__AT_TENSORS;
}

static nns_status load_attr(nns__loader *L, const nns__wire *w, nns__node *n,
                            nns__attr *a) {
  a->offset = w->origin + (int64_t)w->pos;
  a->name = L->A.empty;
  /* Only the counts are cleared: `last` is 1.1 KB, and an entry is read
   * only once its count says it was written. */
  attr_scan sc;
  memset(sc.seen, 0, sizeof sc.seen);
  sc.type_given = false;
  nns_status st = scan_attr(L, w, a, &sc);
  if (st != NNS_OK)
    return st;
  if (!a->name[0])
    return nns__err(L->A.err, NNS_E_ATTR, a->offset, n->name,
                    "AttributeProto at byte %lld: an attribute of node '%s' "
                    "has no name",
                    (long long)a->offset, n->name);
  if (!sc.type_given)
    a->type = guess_attr_type(sc.seen);
  const struct attr_field *af = attr_field_for(a->type);
  if (L->plain && (!af || !plain_attr(a->type)))
    return NNS_E_STATE; /* the loading thread decodes this node */
  if (!af) {
    nns__warn(L->A.m,
              "attribute '%s' of node '%s' (%s) at byte %lld has %s type %d; "
              "it is ignored",
              a->name, n->name, n->op_type ? n->op_type : "?",
              (long long)a->offset,
              sc.type_given ? "unknown" : "no value and no", (int)a->type);
    return NNS_OK;
  }
  uint32_t num = af->num;
  if (!af->list) {
    if (!sc.seen[num])
      return NNS_OK; /* a scalar left at its default */
    switch (a->type) {
    case NNS__AT_TENSOR:
      return load_tensor_field(L, w, &sc.last[num], false, &a->t);
    case NNS__AT_SPARSE_TENSOR:
      return load_tensor_field(L, w, &sc.last[num], true, &a->t);
    case NNS__AT_GRAPH:
      return load_subgraph(L, w, &sc.last[num], n, &a->g);
    case NNS__AT_TYPE_PROTO:
      return load_type_field(L, w, &sc.last[num], &a->tp);
    default:
      return NNS_OK; /* f, i, s were read by scan_attr */
    }
  }
  /* A list: allocate it, then fill it from every occurrence. */
  if (!alloc_list(L, a, sc.seen[num]))
    return nns__load_nomem(L);
  int32_t k = 0;
  nns__wire r = *w;
  nns__field f;
  while ((st = nns__wire_next(&r, &f)) == NNS_OK && f.num) {
    if (f.num == num && (st = list_elements(L, &r, &f, n, a, &k)) != NNS_OK)
      return st;
  }
  return st;
}

/* ==== Nodes ==== */

static nns_status push_io(nns__loader *L, uint8_t kind, const char *name,
                          const char *meta_value) {
  if (L->n_io == L->cap_io) {
    nns__load_io *io =
        nns__grow(L->io, &L->cap_io, L->n_io + 1, sizeof *io, 64);
    if (!io)
      return nns__load_nomem(L);
    L->io = io;
  }
  L->io[L->n_io++] = (nns__load_io){
      .name = name, .meta_value = meta_value, .kind = kind};
  return NNS_OK;
}

static nns_status push_attr(nns__loader *L, const nns__attr *a) {
  nns__attr *at = nns__grow(L->attrs, &L->cap_attrs, L->n_attrs + 1,
                               sizeof *at, 16);
  if (!at)
    return nns__load_nomem(L);
  L->attrs = at;
  at[L->n_attrs++] = *a;
  return NNS_OK;
}

/*
 * One pass over the NodeProto: inputs, outputs and attributes go onto the
 * loader's scratch stacks as they come, and are copied into arrays of
 * their final size at the end (the arrays of a node are small; walking
 * the message twice, to count and then to fill, cost more). Name and
 * op_type normally precede the attributes (field order), so messages
 * about an attribute can name its node.
 */
nns_status nns__load_node(nns__loader *L, const nns__wire *w, nns__graph *g,
                          nns__node *n) {
  n->offset = w->origin + (int64_t)w->pos;
  n->graph = g;
  n->name = L->A.empty;
  n->domain = L->A.empty;
  n->opset = -1;
  size_t io_base = L->n_io, attr_base = L->n_attrs;
  nns__wire r = *w, sub;
  nns__field f;
  nns_status st;
  while ((st = nns__wire_next(&r, &f)) == NNS_OK && f.num) {
    const char *name;
    switch (f.num) {
    case NNS__F_NODE_INPUT:
      if ((st = nns__load_count_up(&r, &f, &n->n_in, 1)) == NNS_OK &&
          (st = nns__load_name(L, &f, &name)) == NNS_OK)
        st = push_io(L, NNS__IO_IN, name, NULL);
      break;
    case NNS__F_NODE_OUTPUT:
      if ((st = nns__load_count_up(&r, &f, &n->n_out, 1)) != NNS_OK ||
          (st = nns__load_name(L, &f, &name)) != NNS_OK)
        break;
      st = push_io(L, NNS__IO_OUT, name, NULL);
      break;
    case NNS__F_NODE_METADATA_PROPS: {
      /* metadata_props: the torch.export-based exporter keeps the module
       * path and classes here (src/analyze/scope.c reads them). */
      const char *key, *value;
      if ((st = nns__load_count_up(&r, &f, &n->n_meta, 1)) == NNS_OK &&
          (st = nns__wire_enter(&r, &f, &nns__pb_entry, &sub)) == NNS_OK &&
          (st = nns__load_entry(L, &sub, &key, &value)) == NNS_OK)
        st = push_io(L, NNS__IO_META, key, value);
      break;
    }
    case NNS__F_NODE_NAME:
      st = nns__load_name(L, &f, &n->name);
      break;
    case NNS__F_NODE_OP_TYPE:
      st = nns__load_name(L, &f, &n->op_type);
      break;
    case NNS__F_NODE_ATTRIBUTE:
      if ((st = nns__load_count_up(&r, &f, &n->n_attrs, 1)) == NNS_OK &&
          (st = nns__wire_enter(&r, &f, &nns__pb_attr, &sub)) == NNS_OK) {
        /* Decoded on the C stack: a subgraph inside may grow (move) the
         * scratch stack. */
        nns__attr a;
        memset(&a, 0, sizeof a);
        if ((st = load_attr(L, &sub, n, &a)) == NNS_OK)
          st = push_attr(L, &a);
      }
      break;
    case NNS__F_NODE_DOMAIN:
      st = nns__load_name(L, &f, &n->domain);
      n->domain = nns__load_domain(L, n->domain);
      break;
    default:
      break;
    }
    if (st != NNS_OK)
      return st;
  }
  if (st != NNS_OK)
    return st;
  if (!n->op_type || !n->op_type[0])
    return nns__err(L->A.err, NNS_E_MODEL, n->offset, n->name,
                    "NodeProto at byte %lld (node '%s') has no op_type",
                    (long long)n->offset, n->name);

  /* The node's arrays in one arena block, attributes first (their
   * doubles and int64s want the block's alignment), then the six pointer
   * arrays, then room for its output values: separate blocks cost 16-byte
   * rounding each, a block even when empty and an allocation each (112
   * bytes of arrays for a typical node against 48). The counts come from
   * the NodeProto's fields, so the sum cannot overflow a size_t. */
  size_t ptrs = 2 * ((size_t)n->n_in + (size_t)n->n_out + (size_t)n->n_meta);
  size_t attr_bytes = (size_t)n->n_attrs * sizeof *n->attrs,
         ptr_bytes = ptrs * sizeof(void *);
  unsigned char *block = nns__arena_alloc(
      L->arena,
      attr_bytes + ptr_bytes + (size_t)n->n_out * sizeof(nns__value));
  if (!block)
    return nns__load_nomem(L);
  n->attrs = (nns__attr *)(void *)block;
  void **p = (void **)(void *)(block + attr_bytes);
  n->in_names = (const char **)p;
  n->in = (nns__value **)(p += n->n_in);
  n->out_names = (const char **)(p += n->n_in);
  n->out = (nns__value **)(p += n->n_out);
  n->meta_keys = (const char **)(p += n->n_out);
  n->meta_values = (const char **)(p + n->n_meta);
  nns__value *values = (nns__value *)(void *)(block + attr_bytes + ptr_bytes);
  int32_t ki = 0, ko = 0, km = 0;
  for (size_t k = io_base; k < L->n_io; k++) {
    const nns__load_io *e = &L->io[k];
    if (e->kind == NNS__IO_OUT) {
      n->out_names[ko] = e->name;
      if (e->name[0])
        nns__asm_node_output_at(&L->A, n, ko, &values[ko]);
      ko++;
    } else if (e->kind == NNS__IO_META) {
      n->meta_keys[km] = e->name;
      n->meta_values[km++] = e->meta_value;
    } else {
      n->in_names[ki++] = e->name;
    }
  }
  if (n->n_attrs)
    memcpy(n->attrs, L->attrs + attr_base,
           (size_t)n->n_attrs * sizeof *n->attrs);
  L->n_io = io_base;
  L->n_attrs = attr_base;
  return NNS_OK;
}

/* ==== Graphs ==== */

static nns_status unnamed(nns__loader *L, const nns__graph *g,
                          const nns__field *f, const char *what) {
  return nns__err(L->A.err, NNS_E_MODEL, f->offset, NULL,
                  "GraphProto.%s at byte %lld in graph '%s' has no name", what,
                  (long long)f->offset, g->name);
}

/* A graph input, output placeholder or initializer from field f. */
static nns_status load_graph_value(nns__loader *L, const nns__wire *w,
                                   const nns__field *f, nns__graph *g,
                                   nns__value **out) {
  nns__wire sub;
  nns_status st;
  const char *name;
  nns__type *type;
  nns__tensor *t = NULL;
  bool sparse = f->num == NNS__F_GRAPH_SPARSE_INITIALIZER;
  bool is_init = sparse || f->num == NNS__F_GRAPH_INITIALIZER;
  if (is_init) {
    if ((st = load_tensor_field(L, w, f, sparse, &t)) != NNS_OK)
      return st;
    name = t->name;
  } else {
    if ((st = nns__wire_enter(w, f, &nns__pb_value_info, &sub)) != NNS_OK ||
        (st = nns__load_value_info(L, &sub, &name, &type)) != NNS_OK)
      return st;
  }
  if (!name[0])
    return unnamed(L, g, f, w->msg->fields[f->num].name);
  if (is_init) {
    if (t->storage == NNS__ST_SPARSE)
      nns__warn(L->A.m,
                "sparse initializer '%s' at byte %lld: its dtype and dims "
                "are used, its values are not read",
                name, (long long)t->offset);
    return nns__asm_initializer(&L->A, g, t, out);
  }
  if (f->num == NNS__F_GRAPH_INPUT)
    return nns__asm_input(&L->A, g, name, type, out);
  return nns__asm_output(&L->A, g, name, type, out);
}

/* The first pass: how many of each field g has, and where its nodes
 * are (marks); *node_bytes: the bytes of the nodes' messages. */
static nns_status count_fields(nns__loader *L, const nns__wire *w,
                               nns__graph *g, nns__node_marks *marks,
                               size_t *node_bytes) {
  nns__wire r = *w;
  nns__field f;
  nns_status st;
  int32_t n_sparse = 0;
  for (size_t at = r.pos;
       (st = nns__wire_next(&r, &f)) == NNS_OK && f.num; at = r.pos) {
    nns__node_marks_field(marks, at, f.num == NNS__F_GRAPH_NODE);
    switch (f.num) {
    case NNS__F_GRAPH_NODE:
      st = nns__load_count_up(&r, &f, &g->n_nodes, 1);
      *node_bytes += f.len;
      break;
    case NNS__F_GRAPH_NAME:
      st = nns__load_name(L, &f, &g->name);
      break;
    case NNS__F_GRAPH_INITIALIZER:
      st = nns__load_count_up(&r, &f, &g->n_inits, 1);
      break;
    case NNS__F_GRAPH_SPARSE_INITIALIZER:
      st = nns__load_count_up(&r, &f, &n_sparse, 1);
      break;
    case NNS__F_GRAPH_INPUT:
      st = nns__load_count_up(&r, &f, &g->n_inputs, 1);
      break;
    case NNS__F_GRAPH_OUTPUT:
      st = nns__load_count_up(&r, &f, &g->n_outputs, 1);
      break;
    case NNS__F_GRAPH_VALUE_INFO:
      st = nns__load_count_up(&r, &f, &g->n_value_info, 1);
      break;
    default:
      break;
    }
    if (st != NNS_OK)
      return st;
  }
  if (st != NNS_OK)
    return st;
  if (n_sparse > INT32_MAX - g->n_inits)
    return nns__wire_fail(&r, &f, NNS_E_LIMIT, "too many initializers");
  g->n_inits += n_sparse;
  return NNS_OK;
}

/* Room for what g's fields decode to, and g's arrays. */
static nns_status make_room(nns__loader *L, const nns__wire *w, nns__graph *g,
                            size_t node_bytes) {
  /* Names to come: about a node name and an output per node, and the
   * initializers' and inputs' names. Reserving them now builds the
   * interner's table once; a string costs at least 2 bytes of the message,
   * so the hint stays within a few times the graph's own size. A failed
   * hint is no error: interning grows the table as it goes. */
  size_t names = 2 * (size_t)g->n_nodes + (size_t)g->n_inits +
                 (size_t)g->n_inputs + (size_t)g->n_outputs,
         bound = (w->end - w->pos) / 4;
  nns__intern_reserve(L->strings, names < bound ? names : bound);
  /* The graph's values (an output per node, the initializers and
   * inputs), likewise: its scope map lives in the arena, where each
   * doubling leaves the outgrown table behind (4 MB of a 100k-node
   * graph). */
  size_t values = (size_t)g->n_nodes + (size_t)g->n_inits +
                  (size_t)g->n_inputs;
  if (values > bound)
    values = bound;
  /* The nodes decode to their structs and values, and about twice their
   * bytes besides (names copied, attributes, input and output arrays);
   * the scope map takes at most 48 bytes a value (two pointers a slot, at
   * least 3/8 full). Reserved before the map is made, so that the map comes out of
   * the same run of huge pages: made first, each of its two tables took a
   * chunk of its own, and touched a huge page for its last few bytes. */
  nns__arena_reserve(L->arena,
                     2 * node_bytes + (size_t)g->n_nodes * sizeof *g->nodes +
                         values * (sizeof(nns__value) + 48));
  nns__map_reserve(&g->scope, values);

  nns__arena *arena = L->arena;
  g->nodes = nns__arena_array(arena, (size_t)g->n_nodes, sizeof *g->nodes);
  g->inits = nns__arena_array(arena, (size_t)g->n_inits, sizeof(void *));
  g->inputs = nns__arena_array(arena, (size_t)g->n_inputs, sizeof(void *));
  g->outputs = nns__arena_array(arena, (size_t)g->n_outputs, sizeof(void *));
  g->vi_names = nns__arena_array(arena, (size_t)g->n_value_info,
                                 sizeof(char *));
  g->vi_types = nns__arena_array(arena, (size_t)g->n_value_info,
                                 sizeof(void *));
  if (!g->nodes || !g->inits || !g->inputs || !g->outputs || !g->vi_names ||
      !g->vi_types)
    return nns__load_nomem(L);
  return NNS_OK;
}

/* The second pass: every field decoded, in file order. The nodes `half`
 * decodes on a second thread are skipped once it has (joined at its first
 * node, before any other field, or when this thread has used up its
 * share of the interner's table). */
static nns_status decode_fields(nns__loader *L, const nns__wire *w,
                                nns__graph *g, nns__node_job *half) {
  nns__wire r = *w, sub;
  nns__field f;
  nns_status st;
  int32_t kn = 0, ki = 0, kin = 0, kout = 0, kvi = 0;
  int32_t skip_to = half->from; /* nodes [from, skip_to) are decoded */
  while ((st = nns__wire_next(&r, &f)) == NNS_OK && f.num) {
    /* Only nodes share the interner: any other field waits for the
     * second thread (none comes before its half in the usual layout). */
    if (f.num != NNS__F_GRAPH_NODE && half->started)
      skip_to = nns__nodes_join(half);
    switch (f.num) {
    case NNS__F_GRAPH_NODE:
      if (kn == half->from)
        skip_to = nns__nodes_join(half);
      if (kn >= half->from && kn < skip_to) {
        kn++;
        break;
      }
      if ((st = nns__wire_enter(&r, &f, &nns__pb_node, &sub)) == NNS_OK) {
        g->nodes[kn].index = (uint32_t)kn;
        st = nns__load_node(L, &sub, g, &g->nodes[kn]);
        kn++;
      }
      break;
    case NNS__F_GRAPH_INITIALIZER:
    case NNS__F_GRAPH_SPARSE_INITIALIZER:
      st = load_graph_value(L, &r, &f, g, &g->inits[ki++]);
      break;
    case NNS__F_GRAPH_INPUT:
      st = load_graph_value(L, &r, &f, g, &g->inputs[kin++]);
      break;
    case NNS__F_GRAPH_OUTPUT:
      st = load_graph_value(L, &r, &f, g, &g->outputs[kout++]);
      break;
    case NNS__F_GRAPH_VALUE_INFO:
      if ((st = nns__wire_enter(&r, &f, &nns__pb_value_info, &sub)) ==
          NNS_OK)
        st = nns__load_value_info(L, &sub, &g->vi_names[kvi],
                                  &g->vi_types[kvi]);
      kvi++;
      break;
    default:
      break;
    }
    if (st != NNS_OK)
      return st;
  }
  return st;
}

nns_status nns__load_graph(nns__loader *L, const nns__wire *w, nns__graph *g) {
  nns__node_marks marks = {0};
  size_t node_bytes = 0;
  nns_status st = count_fields(L, w, g, &marks, &node_bytes);
  if (st == NNS_OK)
    st = make_room(L, w, g, node_bytes);
  nns__node_job half = {.from = INT32_MAX};
  if (st == NNS_OK)
    nns__nodes_start(&half, L, w, g, &marks, node_bytes);
  nns__node_marks_free(&marks);
  if (st == NNS_OK)
    st = decode_fields(L, w, g, &half);
  nns__nodes_join(&half);
  return st;
}
