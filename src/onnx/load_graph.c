/*
 * load_graph.c - GraphProto, NodeProto, AttributeProto, ValueInfoProto and
 * TypeProto into the IR (the decoding phase; names are resolved later by
 * resolve.c).
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

/* Counts repeated fields, with an overflow check; see load_int.h. */
nns_status nns__load_count_up(const nns__wire *w, const nns__field *f,
                              int32_t *count, size_t add) {
  if (add > (size_t)(INT32_MAX - *count))
    return nns__wire_fail(w, f, NNS_E_LIMIT, "more than %d elements",
                          INT32_MAX);
  *count += (int32_t)add;
  return NNS_OK;
}

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
    if (f.num != 1)
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
      if (d.num == 1) {
        value = (int64_t)d.u;
        param = NULL;
      } else if (d.num == 2) {
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
      dim->sym = param && param[0] ? nns__sym_named(L->m, param)
                                   : nns__sym_fresh(L->m);
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
  t->dims = nns__arena_array(&L->m->arena, (size_t)n, sizeof *t->dims);
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
    if (f.num == 1) {
      t->dtype = (int32_t)f.u;
    } else if (f.num == 2) {
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
    case 1:
    case 8:
      msg = &nns__pb_type_tensor;
      break;
    case 4:
      msg = &nns__pb_type_seq;
      break;
    case 9:
      msg = &nns__pb_type_opt;
      break;
    case 5:
      msg = &nns__pb_type_map;
      break;
    default:
      continue; /* denotation, opaque: no type nnscan can use */
    }
    if ((st = nns__wire_enter(&r, &f, msg, &sub)) != NNS_OK)
      return st;
    type_unknown(t); /* a oneof: the last member set wins */
    if (f.num == 1 || f.num == 8) {
      st = load_tensor_type(L, &sub, t,
                            f.num == 1 ? NNS_KIND_TENSOR : NNS_KIND_SPARSE);
    } else {
      /* Sequence and optional take the dtype and dims of their element;
       * a map keeps its key dtype, and the kind of its values. */
      nns__type inner;
      type_unknown(&inner);
      st = load_inner_type(L, &sub, f.num == 5 ? 2 : 1, &inner);
      if (st == NNS_OK && f.num == 5) {
        nns__field k;
        nns__wire kr = sub;
        while ((st = nns__wire_next(&kr, &k)) == NNS_OK && k.num)
          if (k.num == 1)
            t->dtype = (int32_t)k.u;
        t->kind = NNS_KIND_MAP;
        t->elem_kind = inner.kind;
      } else if (st == NNS_OK) {
        *t = inner;
        t->elem_kind = inner.kind;
        t->kind = f.num == 4 ? NNS_KIND_SEQUENCE : NNS_KIND_OPTIONAL;
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
  *name = L->empty;
  *type = NULL;
  while ((st = nns__wire_next(&r, &f)) == NNS_OK && f.num) {
    if (f.num == 1) {
      st = nns__load_name(L, &f, name);
    } else if (f.num == 2) {
      if (!*type && !(*type = nns__arena_alloc(&L->m->arena, sizeof **type)))
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
  nns__graph *g = nns__graph_new(L->m, owner->graph);
  if (!g)
    return nns__load_nomem(L);
  g->owner = owner;
  g->offset = sub.origin + (int64_t)sub.pos;
  *out = g;
  if ((st = nns__load_graph(L, &sub, g)) != NNS_OK)
    return st;
  if (!L->in_function)
    L->m->subgraph_nodes += (size_t)g->n_nodes;
  return NNS_OK;
}

static nns_status load_tensor_field(nns__loader *L, const nns__wire *w,
                                    const nns__field *f, bool sparse,
                                    nns__tensor **out) {
  nns__wire sub;
  nns__tensor *t = nns__arena_alloc(&L->m->arena, sizeof *t);
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
  nns__type *t = nns__arena_alloc(&L->m->arena, sizeof *t);
  if (!t)
    return nns__load_nomem(L);
  *out = t;
  nns_status st = nns__wire_enter(w, f, &nns__pb_type, &sub);
  return st != NNS_OK ? st : nns__load_type(L, &sub, t);
}

/* Per AttributeProto field: the attribute type it carries. */
static int32_t field_attr_type(uint32_t num) {
  switch (num) {
  case 2: return NNS__AT_FLOAT;
  case 3: return NNS__AT_INT;
  case 4: return NNS__AT_STRING;
  case 5: return NNS__AT_TENSOR;
  case 6: return NNS__AT_GRAPH;
  case 7: return NNS__AT_FLOATS;
  case 8: return NNS__AT_INTS;
  case 9: return NNS__AT_STRINGS;
  case 10: return NNS__AT_TENSORS;
  case 11: return NNS__AT_GRAPHS;
  case 14: return NNS__AT_TYPE_PROTO;
  case 15: return NNS__AT_TYPE_PROTOS;
  case 22: return NNS__AT_SPARSE_TENSOR;
  case 23: return NNS__AT_SPARSE_TENSORS;
  default: return NNS__AT_UNDEFINED;
  }
}

/* The field that holds the value of an attribute type. */
static uint32_t attr_type_field(int32_t type) {
  for (uint32_t num = 2; num <= 23; num++)
    if (field_attr_type(num) == type)
      return num;
  return 0;
}

static bool attr_type_is_list(int32_t type) {
  return (type >= NNS__AT_FLOATS && type <= NNS__AT_GRAPHS) ||
         type == NNS__AT_SPARSE_TENSORS || type == NNS__AT_TYPE_PROTOS;
}

/*
 * Old models leave `type` out; the value field that is set tells it. Lists
 * with elements come first, then message fields, then scalars, since a
 * writer may emit a scalar's zero value without meaning it.
 */
static int32_t guess_attr_type(const int32_t seen[24]) {
  static const uint8_t order[] = {7, 8, 9, 10, 11, 23, 15, 5, 6, 22, 14,
                                  4, 3, 2};
  for (size_t i = 0; i < sizeof order; i++)
    if (seen[order[i]])
      return field_attr_type(order[i]);
  return NNS__AT_UNDEFINED;
}

static nns_status load_attr(nns__loader *L, const nns__wire *w, nns__node *n,
                            nns__attr *a) {
  a->offset = w->origin + (int64_t)w->pos;
  a->name = L->empty;
  int32_t seen[24]; /* elements (or occurrences) per value field */
  memset(seen, 0, sizeof seen);
  nns__field last[24]; /* last occurrence of single-value fields */
  bool type_given = false;
  nns__wire r = *w;
  nns__field f;
  nns_status st;
  while ((st = nns__wire_next(&r, &f)) == NNS_OK && f.num) {
    size_t c = 1;
    switch (f.num) {
    case 1:
      st = nns__load_name(L, &f, &a->name);
      break;
    case 21:
      st = nns__load_name(L, &f, &a->ref_attr_name);
      break;
    case 20:
      a->type = (int32_t)f.u;
      type_given = true;
      break;
    case 2: {
      uint32_t bits = (uint32_t)f.u;
      float x;
      memcpy(&x, &bits, 4);
      a->f = x;
      break;
    }
    case 3:
      a->i = (int64_t)f.u;
      break;
    case 4:
      a->s = nns__arena_strndup(&L->m->arena, (const char *)f.data, f.len);
      a->s_len = f.len;
      if (!a->s)
        return nns__load_nomem(L);
      break;
    case 7:
      st = nns__wire_rep_count(&r, &f, 4, &c);
      break;
    case 8:
      st = nns__wire_rep_count(&r, &f, 0, &c);
      break;
    default:
      break;
    }
    if (st != NNS_OK)
      return st;
    if (f.num < 24 && field_attr_type(f.num) != NNS__AT_UNDEFINED) {
      if ((st = nns__load_count_up(&r, &f, &seen[f.num], c)) != NNS_OK)
        return st;
      last[f.num] = f;
    }
  }
  if (st != NNS_OK)
    return st;

  if (!a->name[0])
    return nns__err(L->err, NNS_E_ATTR, a->offset, n->name,
                    "AttributeProto at byte %lld: an attribute of node '%s' "
                    "has no name",
                    (long long)a->offset, n->name);
  if (!type_given)
    a->type = guess_attr_type(seen);
  uint32_t num = attr_type_field(a->type);
  if (!num) {
    nns__warn(L->m,
              "attribute '%s' of node '%s' (%s) at byte %lld has %s type %d; "
              "it is ignored",
              a->name, n->name, n->op_type ? n->op_type : "?",
              (long long)a->offset, type_given ? "unknown" : "no value and no",
              (int)a->type);
    return NNS_OK;
  }
  if (!attr_type_is_list(a->type)) {
    if (!seen[num])
      return NNS_OK; /* a scalar left at its default */
    switch (a->type) {
    case NNS__AT_TENSOR:
      return load_tensor_field(L, &r, &last[num], false, &a->t);
    case NNS__AT_SPARSE_TENSOR:
      return load_tensor_field(L, &r, &last[num], true, &a->t);
    case NNS__AT_GRAPH:
      return load_subgraph(L, &r, &last[num], n, &a->g);
    case NNS__AT_TYPE_PROTO:
      return load_type_field(L, &r, &last[num], &a->tp);
    default:
      return NNS_OK; /* f, i, s were read above */
    }
  }

  /* A list: allocate it, then fill it from every occurrence. */
  int32_t count = seen[num];
  a->n = count;
  nns__arena *arena = &L->m->arena;
  void *arr = NULL;
  switch (a->type) {
  case NNS__AT_FLOATS:
    arr = a->floats = nns__arena_array(arena, (size_t)count, sizeof(double));
    break;
  case NNS__AT_INTS:
    arr = a->ints = nns__arena_array(arena, (size_t)count, sizeof(int64_t));
    break;
  case NNS__AT_STRINGS:
    arr = a->strings = nns__arena_array(arena, (size_t)count, sizeof(char *));
    break;
  case NNS__AT_TENSORS:
  case NNS__AT_SPARSE_TENSORS:
    arr = a->tensors = nns__arena_array(arena, (size_t)count, sizeof(void *));
    break;
  case NNS__AT_GRAPHS:
    arr = a->graphs = nns__arena_array(arena, (size_t)count, sizeof(void *));
    break;
  default:
    arr = a->tps = nns__arena_array(arena, (size_t)count, sizeof(void *));
    break;
  }
  if (!arr)
    return nns__load_nomem(L);
  int32_t k = 0;
  r = *w;
  while ((st = nns__wire_next(&r, &f)) == NNS_OK && f.num) {
    if (f.num != num)
      continue;
    switch (a->type) {
    case NNS__AT_FLOATS:
      if (f.wt != NNS__WT_LEN) {
        uint32_t bits = (uint32_t)f.u;
        float x;
        memcpy(&x, &bits, 4);
        a->floats[k++] = x;
      } else {
        for (size_t pos = 0; pos + 4 <= f.len; pos += 4) {
          uint32_t bits = nns__le32(f.data + pos);
          float x;
          memcpy(&x, &bits, 4);
          a->floats[k++] = x;
        }
      }
      break;
    case NNS__AT_INTS:
      if (f.wt != NNS__WT_LEN) {
        a->ints[k++] = (int64_t)f.u;
      } else {
        char what[64];
        nns__wire_fname(&r, &f, what, sizeof what);
        for (size_t pos = 0; pos < f.len;) {
          uint64_t v;
          st = nns__wire_varint(f.data, f.len, &pos, &v,
                                r.origin + (int64_t)f.pos, what, L->err);
          if (st != NNS_OK)
            return st;
          a->ints[k++] = (int64_t)v;
        }
      }
      break;
    case NNS__AT_STRINGS:
      if (!(a->strings[k++] = nns__arena_strndup(arena, (const char *)f.data,
                                                 f.len)))
        return nns__load_nomem(L);
      break;
    case NNS__AT_TENSORS:
    case NNS__AT_SPARSE_TENSORS:
      st = load_tensor_field(L, &r, &f, a->type == NNS__AT_SPARSE_TENSORS,
                             &a->tensors[k++]);
      break;
    case NNS__AT_GRAPHS:
      st = load_subgraph(L, &r, &f, n, &a->graphs[k++]);
      break;
    default:
      st = load_type_field(L, &r, &f, &a->tps[k++]);
      break;
    }
    if (st != NNS_OK)
      return st;
  }
  return st;
}

/* ==== Nodes ==== */

static nns_status push_io(nns__loader *L, uint8_t kind, const char *name,
                          nns__value *v, const char *meta_value) {
  nns__load_io *io = nns__grow(L->io, &L->cap_io, L->n_io + 1, sizeof *io, 64);
  if (!io)
    return nns__load_nomem(L);
  L->io = io;
  io[L->n_io++] = (nns__load_io){
      .name = name, .value = v, .meta_value = meta_value, .kind = kind};
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
  n->name = L->empty;
  n->domain = L->empty;
  n->opset = -1;
  size_t io_base = L->n_io, attr_base = L->n_attrs;
  nns__wire r = *w, sub;
  nns__field f;
  nns_status st;
  while ((st = nns__wire_next(&r, &f)) == NNS_OK && f.num) {
    const char *name;
    switch (f.num) {
    case 1:
      if ((st = nns__load_count_up(&r, &f, &n->n_in, 1)) == NNS_OK &&
          (st = nns__load_name(L, &f, &name)) == NNS_OK)
        st = push_io(L, NNS__IO_IN, name, NULL, NULL);
      break;
    case 2:
      if ((st = nns__load_count_up(&r, &f, &n->n_out, 1)) != NNS_OK ||
          (st = nns__load_name(L, &f, &name)) != NNS_OK)
        break;
      nns__value *v = NULL;
      if (name[0]) {
        if (!(v = nns__load_value(L, g, name)))
          return nns__load_nomem(L);
        v->producer = n;
      }
      st = push_io(L, NNS__IO_OUT, name, v, NULL);
      break;
    case 9: {
      /* metadata_props: the torch.export-based exporter keeps the module
       * path and classes here (src/analyze/scope.c reads them). */
      const char *key, *value;
      if ((st = nns__load_count_up(&r, &f, &n->n_meta, 1)) == NNS_OK &&
          (st = nns__wire_enter(&r, &f, &nns__pb_entry, &sub)) == NNS_OK &&
          (st = nns__load_entry(L, &sub, &key, &value)) == NNS_OK)
        st = push_io(L, NNS__IO_META, key, NULL, value);
      break;
    }
    case 3:
      st = nns__load_name(L, &f, &n->name);
      break;
    case 4:
      st = nns__load_name(L, &f, &n->op_type);
      break;
    case 5:
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
    case 7:
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
    return nns__err(L->err, NNS_E_MODEL, n->offset, n->name,
                    "NodeProto at byte %lld (node '%s') has no op_type",
                    (long long)n->offset, n->name);

  nns__arena *arena = &L->m->arena;
  n->in_names = nns__arena_array(arena, (size_t)n->n_in, sizeof(char *));
  n->in = nns__arena_array(arena, (size_t)n->n_in, sizeof(void *));
  n->out_names = nns__arena_array(arena, (size_t)n->n_out, sizeof(char *));
  n->out = nns__arena_array(arena, (size_t)n->n_out, sizeof(void *));
  n->attrs = nns__arena_array(arena, (size_t)n->n_attrs, sizeof *n->attrs);
  n->meta_keys = nns__arena_array(arena, (size_t)n->n_meta, sizeof(char *));
  n->meta_values = nns__arena_array(arena, (size_t)n->n_meta,
                                    sizeof(char *));
  if (!n->in_names || !n->in || !n->out_names || !n->out || !n->attrs ||
      !n->meta_keys || !n->meta_values)
    return nns__load_nomem(L);
  int32_t ki = 0, ko = 0, km = 0;
  for (size_t k = io_base; k < L->n_io; k++) {
    const nns__load_io *e = &L->io[k];
    if (e->kind == NNS__IO_OUT) {
      n->out_names[ko] = e->name;
      n->out[ko++] = e->value;
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

static nns_status copy_type(nns__loader *L, const nns__type *src,
                            nns__type *dst) {
  *dst = *src;
  if (src->rank > 0 && src->dims) {
    dst->dims = nns__arena_array(&L->m->arena, (size_t)src->rank,
                                 sizeof *dst->dims);
    if (!dst->dims)
      return nns__load_nomem(L);
    nns__dims_copy(dst->dims, src->dims, src->rank);
  }
  return NNS_OK;
}

static nns_status unnamed(nns__loader *L, const nns__graph *g,
                          const nns__field *f, const char *what) {
  return nns__err(L->err, NNS_E_MODEL, f->offset, NULL,
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
  bool is_init = f->num == 5 || f->num == 15;
  if (is_init) {
    if ((st = load_tensor_field(L, w, f, f->num == 15, &t)) != NNS_OK)
      return st;
    name = t->name;
  } else {
    if ((st = nns__wire_enter(w, f, &nns__pb_value_info, &sub)) != NNS_OK ||
        (st = nns__load_value_info(L, &sub, &name, &type)) != NNS_OK)
      return st;
  }
  if (!name[0])
    return unnamed(L, g, f, w->msg->fields[f->num].name);
  nns__value *v = nns__load_value(L, g, name);
  if (!v)
    return nns__load_nomem(L);
  *out = v;
  if (is_init) {
    v->init = t;
    v->role = NNS_ROLE_INITIALIZER;
    if (t->storage == NNS__ST_SPARSE)
      nns__warn(L->m,
                "sparse initializer '%s' at byte %lld: its dtype and dims "
                "are used, its values are not read",
                name, (long long)t->offset);
    return nns__load_tensor_type(L, t, &v->type);
  }
  v->declared = type;
  if (f->num == 11) {
    v->role = NNS_ROLE_INPUT;
    v->is_graph_input = true;
    if (type)
      return copy_type(L, type, &v->type);
  }
  return NNS_OK;
}

nns_status nns__load_graph(nns__loader *L, const nns__wire *w, nns__graph *g) {
  nns__wire r = *w;
  nns__field f;
  nns_status st;
  int32_t n_sparse = 0;
  size_t node_bytes = 0; /* of the nodes' messages */
  while ((st = nns__wire_next(&r, &f)) == NNS_OK && f.num) {
    switch (f.num) {
    case 1:
      st = nns__load_count_up(&r, &f, &g->n_nodes, 1);
      node_bytes += f.len;
      break;
    case 2:
      st = nns__load_name(L, &f, &g->name);
      break;
    case 5:
      st = nns__load_count_up(&r, &f, &g->n_inits, 1);
      break;
    case 15:
      st = nns__load_count_up(&r, &f, &n_sparse, 1);
      break;
    case 11:
      st = nns__load_count_up(&r, &f, &g->n_inputs, 1);
      break;
    case 12:
      st = nns__load_count_up(&r, &f, &g->n_outputs, 1);
      break;
    case 13:
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
  /* Names to come: about a node name and an output per node, and the
   * initializers' and inputs' names. Reserving them now builds the
   * interner's table once; a string costs at least 2 bytes of the message,
   * so the hint stays within a few times the graph's own size. A failed
   * hint is no error: interning grows the table as it goes. */
  size_t names = 2 * (size_t)g->n_nodes + (size_t)g->n_inits +
                 (size_t)g->n_inputs + (size_t)g->n_outputs,
         bound = (w->end - w->pos) / 4;
  nns__intern_reserve(&L->m->strings, names < bound ? names : bound);
  /* The nodes decode to about twice their bytes (names copied and
   * NUL-terminated, node structs, input and output arrays). */
  nns__arena_reserve(&L->m->arena, 2 * node_bytes);

  nns__arena *arena = &L->m->arena;
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

  int32_t kn = 0, ki = 0, kin = 0, kout = 0, kvi = 0;
  nns__wire sub;
  r = *w;
  while ((st = nns__wire_next(&r, &f)) == NNS_OK && f.num) {
    switch (f.num) {
    case 1:
      if ((st = nns__wire_enter(&r, &f, &nns__pb_node, &sub)) == NNS_OK) {
        g->nodes[kn].index = (uint32_t)kn;
        st = nns__load_node(L, &sub, g, &g->nodes[kn]);
        kn++;
      }
      break;
    case 5:
    case 15:
      st = load_graph_value(L, &r, &f, g, &g->inits[ki++]);
      break;
    case 11:
      st = load_graph_value(L, &r, &f, g, &g->inputs[kin++]);
      break;
    case 12:
      st = load_graph_value(L, &r, &f, g, &g->outputs[kout++]);
      break;
    case 13:
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
