/*
 * load_node.c - NodeProto and AttributeProto into the IR: a node's name,
 * op type, domain, inputs, outputs, metadata entries and typed attributes,
 * and the node's output values through the graph-assembly interface.
 *
 * A node, the most numerous message, is decoded in one pass: its
 * elements are gathered on the loader's scratch stacks and copied into
 * one arena block of their final size. A list attribute is skimmed first
 * to count its elements (tags and lengths only), then decoded into an
 * array allocated once.
 *
 * Both the graph decoder (load_graph.c) and its second thread
 * (load_half.c) call this file; it calls only the tensor, type and field
 * layers below it. An attribute that holds a graph is handed back up
 * through the loader's decode_graph pointer, so the recursion of the
 * format (graph, node, attribute, graph) needs no call from here into a
 * file above.
 */
#include <string.h>

#include "load_int.h"

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
  if ((st = L->decode_graph(L, &sub, g)) != NNS_OK)
    return st;
  nns__asm_subgraph_done(&L->A, g);
  return NNS_OK;
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
  case NNS__AT_INTS:
    return nns__load_varints(L, r, f, a->ints, k);
  case NNS__AT_STRINGS:
    if (!(a->strings[(*k)++] = nns__arena_strndup(
              L->arena, (const char *)f->data, f->len)))
      return nns__load_nomem(L);
    return NNS_OK;
  case NNS__AT_TENSORS:
  case NNS__AT_SPARSE_TENSORS:
    return nns__load_tensor_field(L, r, f, a->type == NNS__AT_SPARSE_TENSORS,
                             &a->tensors[(*k)++]);
  case NNS__AT_GRAPHS:
    return load_subgraph(L, r, f, n, &a->graphs[(*k)++]);
  default:
    return nns__load_type_field(L, r, f, &a->tps[(*k)++]);
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
      return nns__load_tensor_field(L, w, &sc.last[num], false, &a->t);
    case NNS__AT_SPARSE_TENSOR:
      return nns__load_tensor_field(L, w, &sc.last[num], true, &a->t);
    case NNS__AT_GRAPH:
      return load_subgraph(L, w, &sc.last[num], n, &a->g);
    case NNS__AT_TYPE_PROTO:
      return nns__load_type_field(L, w, &sc.last[num], &a->tp);
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
static nns_status load_node(nns__loader *L, const nns__wire *w,
                            nns__graph *g, nns__node *n) {
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
       * path and classes here (src/analyze/meta.c decodes them). */
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

nns_status nns__load_node_field(nns__loader *L, const nns__wire *w,
                                const nns__field *f, nns__graph *g,
                                int32_t k) {
  nns__wire sub;
  nns_status st = nns__wire_enter(w, f, &nns__pb_node, &sub);
  if (st != NNS_OK)
    return st;
  g->nodes[k].index = (uint32_t)k;
  return load_node(L, &sub, g, &g->nodes[k]);
}
