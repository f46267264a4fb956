/*
 * load_int.h - what the ONNX loader's files share: the message schemas, the
 * loader context and the decoders of each message kind.
 *
 * Loading runs in two phases. Decoding (load.c, load_graph.c,
 * load_tensor.c) turns the protobuf messages into graphs, nodes,
 * attributes and tensors in the model's arena, and creates a value for
 * every graph input, initializer and node output, without resolving any
 * name. Resolution (resolve.c) then registers the values in their graphs'
 * scopes in graph order, links every node input and graph output to its
 * value, and applies the declared types. Keeping them apart means a
 * subgraph may use a name its enclosing graph defines further down.
 */
#ifndef NNS_LOAD_INT_H
#define NNS_LOAD_INT_H

#include "../ir/ir.h"
#include "schema.h"

/* ==== Limits ==== */

enum {
  NNS__MAX_RANK = 64,          /* dims of one tensor or shape */
  NNS__DEFAULT_DEPTH = 64,     /* message nesting when options say 0 */
  NNS__MAX_DEPTH = 1024,       /* ceiling on a caller's max_depth: the
                                  decoders recurse once per level */
  NNS__MAX_DECODED = 1 << 26   /* elements of unpacked typed tensor data */
};

/* ==== Loader context ==== */

typedef struct nns__loader {
  nns_model *m;              /* the model being filled */
  nns_error *err;            /* caller's error, may be NULL */
  int max_depth;             /* deepest message nesting allowed */
  bool in_function;          /* decoding/resolving a function body */
  const char *empty;         /* interned "" */
  /* Opsets for node->opset: the function's while in a body, else NULL. */
  int32_t fn_n_opsets;
  const char **fn_opset_domains;
  int64_t *fn_opset_versions;
  /* Scratch stacks of the one-pass node decoder (load_graph.c): a node
   * pushes its inputs, outputs and attributes as it meets them, then copies
   * them into arrays of their final size and pops them. A subgraph's nodes,
   * decoded while an attribute of the outer node is, push above and pop
   * before it goes on. malloc'ed, freed when loading ends. */
  struct nns__load_io *io;   /* inputs, outputs, metadata entries */
  size_t n_io, cap_io;
  nns__attr *attrs;
  size_t n_attrs, cap_attrs;
} nns__loader;

/* One entry of the loader's node scratch stack: what a NodeProto lists. */
enum { NNS__IO_IN, NNS__IO_OUT, NNS__IO_META };
typedef struct nns__load_io {
  const char *name;          /* interned name; NNS__IO_META: the key */
  nns__value *value;         /* NNS__IO_OUT: the value it defines, or NULL */
  const char *meta_value;    /* NNS__IO_META: the entry's value */
  uint8_t kind;              /* NNS__IO_* */
} nns__load_io;

/* NNS_E_NOMEM with a message; every allocation failure goes through it. */
nns_status nns__load_nomem(nns__loader *L);
/* Adds `add` to a count of repeated fields; NNS_E_LIMIT at field f when
 * it would pass INT32_MAX. Counts beyond int32 cannot be stored in the IR;
 * they would need a file of several gigabytes of nothing but tags. */
nns_status nns__load_count_up(const nns__wire *w, const nns__field *f,
                              int32_t *count, size_t add);

/* A LEN field as an interned name, cut at the first NUL. */
nns_status nns__load_name(nns__loader *L, const nns__field *f,
                          const char **out);
/* A LEN field as an arena copy (doc strings, metadata), cut at a NUL. */
nns_status nns__load_text(nns__loader *L, const nns__field *f,
                          const char **out);
/* A StringStringEntryProto (model or node metadata_props): arena copies,
 * "" for a missing key or value. */
nns_status nns__load_entry(nns__loader *L, const nns__wire *w,
                           const char **key, const char **value);
/* "ai.onnx" and "" are both the default domain: returns interned "". */
const char *nns__load_domain(nns__loader *L, const char *domain);

/* A fresh value named `name` in graph g, of unknown type. */
nns__value *nns__load_value(nns__loader *L, nns__graph *g, const char *name);

/* ==== Decoders ==== */

/* GraphProto into g (made by nns__graph_new, offset/owner set). */
nns_status nns__load_graph(nns__loader *L, const nns__wire *w, nns__graph *g);
/* NodeProto into n, a node of g. */
nns_status nns__load_node(nns__loader *L, const nns__wire *w, nns__graph *g,
                          nns__node *n);
/* TypeProto into t. */
nns_status nns__load_type(nns__loader *L, const nns__wire *w, nns__type *t);
/* ValueInfoProto: its name, and its type or NULL when it has none. */
nns_status nns__load_value_info(nns__loader *L, const nns__wire *w,
                                const char **name, nns__type **type);
/* TensorProto into t. */
nns_status nns__load_tensor(nns__loader *L, const nns__wire *w,
                            nns__tensor *t);
/* SparseTensorProto: dtype, name and dims, storage NNS__ST_SPARSE. */
nns_status nns__load_sparse(nns__loader *L, const nns__wire *w,
                            nns__tensor *t);
/* A tensor's type: kind, dtype and its (known) dims as nns__dim. */
nns_status nns__load_tensor_type(nns__loader *L, const nns__tensor *t,
                                 nns__type *type);

/* ==== Resolution (resolve.c) ==== */

/* Registers and links the names of g and its subgraphs. `listed`: add
 * the values to the model's value list (not for function bodies). */
nns_status nns__resolve_graph(nns__loader *L, nns__graph *g, bool listed);

/* Warns about missing or short external data files (external.c). */
void nns__check_external(nns_model *m);

/* sniff.c: what the n bytes at d look like when they are clearly not a
 * protobuf ("text", "JSON text", "a PyTorch checkpoint ..."), or NULL when
 * they may be one. Read only after decoding failed. */
const char *nns__sniff_format(const uint8_t *d, size_t n);

#endif
