/*
 * load_int.h - what the ONNX loader's files share: the loader context and
 * the decoders of each message kind (field numbers: schema.h).
 *
 * Loading runs in two phases. Decoding turns the protobuf messages into
 * graphs, nodes, attributes and tensors in the model's arena, and creates
 * a value for every graph input, initializer and node output through the
 * graph-assembly interface (src/ir/assemble.h), without resolving any
 * name. Resolution (nns__asm_finish) then registers the values in their
 * graphs' scopes in graph order, links every node input and graph output
 * to its value, and applies the declared types. Keeping them apart means a
 * subgraph may use a name its enclosing graph defines further down.
 *
 * The decoders' files form a chain, each calling only those below it:
 * load.c (ModelProto, functions) over load_graph.c (GraphProto) over
 * load_half.c (a graph's second half of nodes on a second thread) over
 * load_node.c (NodeProto, AttributeProto) over load_type.c (TypeProto,
 * ValueInfoProto) and load_tensor.c (TensorProto) over load_field.c (a
 * field as a name, a text, a count). The one way back up, a graph inside
 * an attribute, goes through the loader's decode_graph pointer.
 */
#ifndef NNS_LOAD_INT_H
#define NNS_LOAD_INT_H

#include <string.h>

#include "../base/job.h"
#include "../ir/assemble.h"
#include "schema.h"

/* ==== Limits ==== */

/* NNS__MAX_RANK and NNS__MAX_DEPTH (a ceiling on a caller's max_depth)
 * are in assemble.h. */
enum {
  NNS__DEFAULT_DEPTH = 64,     /* message nesting when options say 0 */
  NNS__MAX_DECODED = 1 << 26   /* elements of unpacked typed tensor data */
};

/* ==== Loader context ==== */

typedef struct nns__loader {
  nns__asm A;                /* the graph assembly: model, error, "" */
  int max_depth;             /* deepest message nesting allowed */
  /* The graph decoder (nns__load_graph), for an attribute holding a
   * graph: the node decoder sits below the graph decoder and reaches it
   * only through this pointer, once per such attribute, never per node. */
  nns_status (*decode_graph)(struct nns__loader *L, const nns__wire *w,
                             nns__graph *g);
  /* Where the decoders put what they make: the model's arena and
   * interner, or, for the nodes a second thread decodes (load_half.c),
   * that thread's arena and its view of the interner. */
  nns__arena *arena;
  nns__interner *strings;
  /* A second thread's loader: it fails at anything but a plain node
   * (an attribute holding a graph, a sparse tensor or a type; a tensor
   * with external data; a warning), and the loading thread decodes that
   * node and those after it again. */
  bool plain;
  /* Scratch stacks of the one-pass node decoder (load_node.c): a node
   * pushes its inputs, outputs and attributes as it meets them, then copies
   * them into arrays of their final size and pops them. A subgraph's nodes,
   * decoded while an attribute of the outer node is, push above and pop
   * before it goes on. malloc'ed, freed when loading ends. */
  struct nns__load_io *io;   /* inputs, outputs, metadata entries */
  size_t n_io, cap_io;
  nns__attr *attrs;
  size_t n_attrs, cap_attrs;
  bool external;             /* some tensor keeps its data in an external
                                file: only then are the files checked
                                (nns__check_external walks every value) */
} nns__loader;

/* One entry of the loader's node scratch stack: what a NodeProto lists. */
enum { NNS__IO_IN, NNS__IO_OUT, NNS__IO_META };
typedef struct nns__load_io {
  const char *name;          /* interned name; NNS__IO_META: the key */
  const char *meta_value;    /* NNS__IO_META: the entry's value */
  uint8_t kind;              /* NNS__IO_* */
} nns__load_io;

/* ==== Fields (load_field.c, the bottom layer) ==== */

/* NNS_E_NOMEM with a message (nns__asm_nomem). */
static inline nns_status nns__load_nomem(nns__loader *L) {
  return nns__asm_nomem(&L->A);
}
/* Adds `add` to a count of repeated fields; NNS_E_LIMIT at field f when
 * it would pass INT32_MAX. Counts beyond int32 cannot be stored in the IR;
 * they would need a file of several gigabytes of nothing but tags. */
nns_status nns__load_count_fail(const nns__wire *w, const nns__field *f);
static inline nns_status nns__load_count_up(const nns__wire *w,
                                            const nns__field *f,
                                            int32_t *count, size_t add) {
  if (add > (size_t)(INT32_MAX - *count))
    return nns__load_count_fail(w, f);
  *count += (int32_t)add;
  return NNS_OK;
}
/* One more in the counter of field f, in the first pass over a message
 * whose repeated fields are counted before they are decoded. counts[]
 * holds, by field number, the counter of each field the pass counts
 * (NULL for the others); n_counts: its length. Use NNS__LOAD_COUNT_FIELD
 * on an array indexed by NNS__F_* names. */
static inline nns_status nns__load_count_field(const nns__wire *w,
                                               const nns__field *f,
                                               int32_t *const counts[],
                                               size_t n_counts) {
  int32_t *count = f->num < n_counts ? counts[f->num] : NULL;
  return count ? nns__load_count_up(w, f, count, 1) : NNS_OK;
}
#define NNS__LOAD_COUNT_FIELD(w, f, counts)                                   \
  nns__load_count_field(w, f, counts, sizeof(counts) / sizeof((counts)[0]))

/* A LEN field as an interned name, cut at the first NUL. Inline: half a
 * million calls for a 100k-node graph. */
static inline nns_status nns__load_name(nns__loader *L, const nns__field *f,
                                        const char **out) {
  const uint8_t *z = f->len ? memchr(f->data, 0, f->len) : NULL;
  size_t n = z ? (size_t)(z - f->data) : f->len;
  *out = nns__intern(L->strings, (const char *)f->data, n);
  return *out ? NNS_OK : nns__load_nomem(L);
}
/* A LEN field as an arena copy (doc strings, metadata), cut at a NUL. */
nns_status nns__load_text(nns__loader *L, const nns__field *f,
                          const char **out);
/* A StringStringEntryProto (model or node metadata_props): arena copies,
 * "" for a missing key or value. */
nns_status nns__load_entry(nns__loader *L, const nns__wire *w,
                           const char **key, const char **value);
/* Appends the elements of one occurrence f of a repeated varint field,
 * packed or not, to out at *k (the first pass counted them:
 * nns__wire_rep_count). */
nns_status nns__load_varints(nns__loader *L, const nns__wire *w,
                             const nns__field *f, int64_t *out, int32_t *k);
/* "ai.onnx" and "" are both the default domain: returns interned "". */
const char *nns__load_domain(nns__loader *L, const char *domain);

/* ==== Decoders: tensors (load_tensor.c) ==== */

/* TensorProto into t. */
nns_status nns__load_tensor(nns__loader *L, const nns__wire *w,
                            nns__tensor *t);
/* SparseTensorProto: dtype, name and dims, storage NNS__ST_SPARSE. */
nns_status nns__load_sparse(nns__loader *L, const nns__wire *w,
                            nns__tensor *t);
/* The TensorProto (sparse: SparseTensorProto) in field f of message w,
 * into a new arena tensor *out (set before decoding, so an error can
 * still name it). */
nns_status nns__load_tensor_field(nns__loader *L, const nns__wire *w,
                                  const nns__field *f, bool sparse,
                                  nns__tensor **out);

/* ==== Decoders: types (load_type.c) ==== */

/* TypeProto into t. */
nns_status nns__load_type(nns__loader *L, const nns__wire *w, nns__type *t);
/* The TypeProto in field f of message w, into a new arena type *out. */
nns_status nns__load_type_field(nns__loader *L, const nns__wire *w,
                                const nns__field *f, nns__type **out);
/* ValueInfoProto: its name, and its type or NULL when it has none. */
nns_status nns__load_value_info(nns__loader *L, const nns__wire *w,
                                const char **name, nns__type **type);

/* ==== Decoders: nodes (load_node.c) ==== */

/* The NodeProto in field f of message w into g->nodes[k], node k of g. */
nns_status nns__load_node_field(nns__loader *L, const nns__wire *w,
                                const nns__field *f, nns__graph *g,
                                int32_t k);

/* ==== A graph's nodes on two threads (load_half.c) ==== */

/* What the first pass over a GraphProto notes of its node fields: every
 * NODE_MARK-th node's position, and where the last unbroken run of them
 * starts. Zero it first; nns__node_marks_field for every field. */
typedef struct nns__node_marks {
  size_t *pos;         /* tag positions in the graph's buffer (malloc'ed) */
  size_t n_pos, cap_pos;
  int32_t seen;        /* node fields so far */
  int32_t run_start;   /* first node of the last unbroken run */
  bool other;          /* another field came after the last node */
  bool failed;         /* out of memory for `pos`: no second thread */
} nns__node_marks;
void nns__node_marks_field(nns__node_marks *mk, size_t at, bool node);
void nns__node_marks_free(nns__node_marks *mk);

/* Nodes from..to-1 of a graph, decoded on a second thread. */
typedef struct nns__node_job {
  nns__job job;
  nns__loader L;            /* the second thread's loader */
  nns__loader *main;        /* the loading thread's */
  nns_error err;            /* the second thread's (never reported) */
  nns__arena arena;         /* what it makes, adopted by the model's */
  nns__interner strings;    /* its view of the model's interner */
  nns__wire r;              /* at node `from` */
  nns__graph *g;
  int32_t from, to;         /* INT32_MAX when not started */
  int32_t done;             /* first node it did not decode */
  bool started, joined;
} nns__node_job;
/* Starts decoding the graph's second half of nodes on a second thread
 * when the graph is large and its layout allows (load_half.c says when);
 * else leaves j->from at INT32_MAX. g->nodes must be allocated, and the
 * interner's table reserved; node_bytes: the nodes' messages' bytes. */
void nns__nodes_start(nns__node_job *j, nns__loader *L, const nns__wire *w,
                      nns__graph *g, const nns__node_marks *mk,
                      size_t node_bytes);
/* Waits for the second thread and gives the model what it made; returns
 * the first node the loading thread must decode itself (j->to when it
 * decoded them all). Once joined, returns at once; called on every path. */
int32_t nns__nodes_join(nns__node_job *j);

/* ==== Decoders: graphs (load_graph.c), called by load.c ==== */

/* GraphProto into g (made by nns__asm_graph). */
nns_status nns__load_graph(nns__loader *L, const nns__wire *w, nns__graph *g);

/* Warns about missing or short external data files (external.c). */
void nns__check_external(nns_model *m);

/* sniff.c: what the n bytes at d look like when they are clearly not a
 * protobuf ("text", "JSON text", "a PyTorch checkpoint ..."), or NULL when
 * they may be one. Read only after decoding failed. */
const char *nns__sniff_format(const uint8_t *d, size_t n);

#endif
