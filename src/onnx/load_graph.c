/*
 * load_graph.c - GraphProto into the IR: its name, nodes, initializers,
 * inputs, outputs and value_info, through the graph-assembly interface
 * (src/ir/assemble.h), which resolves names once the model is decoded.
 *
 * A graph, whose nodes must not move once decoded (values point at their
 * producer), is skimmed first to count its fields (tags and lengths only,
 * nothing decoded), then decoded into arrays allocated once, so memory
 * stays linear in the size of the model. A large graph's second half of
 * nodes is decoded on a second thread meanwhile (load_half.c).
 *
 * This is the top of the graph-level decoders: it calls the node decoder
 * (load_node.c), the second thread (load_half.c), and the tensor, type
 * and field layers; none of them calls it but through the loader's
 * decode_graph pointer, for a graph inside an attribute.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "load_int.h"

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
    if ((st = nns__load_tensor_field(L, w, f, sparse, &t)) != NNS_OK)
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
  int32_t *const counts[] = {
      [NNS__F_GRAPH_NODE] = &g->n_nodes,
      [NNS__F_GRAPH_INITIALIZER] = &g->n_inits,
      [NNS__F_GRAPH_SPARSE_INITIALIZER] = &n_sparse,
      [NNS__F_GRAPH_INPUT] = &g->n_inputs,
      [NNS__F_GRAPH_OUTPUT] = &g->n_outputs,
      [NNS__F_GRAPH_VALUE_INFO] = &g->n_value_info,
  };
  for (size_t at = r.pos;
       (st = nns__wire_next(&r, &f)) == NNS_OK && f.num; at = r.pos) {
    nns__node_marks_field(marks, at, f.num == NNS__F_GRAPH_NODE);
    if (f.num == NNS__F_GRAPH_NODE)
      *node_bytes += f.len;
    else if (f.num == NNS__F_GRAPH_NAME)
      st = nns__load_name(L, &f, &g->name);
    if (st == NNS_OK)
      st = NNS__LOAD_COUNT_FIELD(&r, &f, counts);
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
      st = nns__load_node_field(L, &r, &f, g, kn++);
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
