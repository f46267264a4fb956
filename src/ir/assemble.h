/*
 * assemble.h - the one way a graph is put together, whichever door it
 * comes in by. The ONNX decoder (src/onnx) and the builder API
 * (src/ir/builder.c) both make their graphs, values and subgraph
 * attributes through these calls, and both end with the same resolution:
 *
 *   nns__asm_begin       the context: model, caller's error, interned ""
 *   nns__asm_graph       a graph: the main one, a function body, or the
 *                        subgraph an attribute of node `owner` holds
 *   nns__asm_input,      the values a graph defines, in graph order:
 *   nns__asm_initializer inputs, initializers, then each node's outputs
 *   nns__asm_node_output (nns__asm_output: a graph output, by name)
 *   nns__asm_resolve     names to values: every graph's definitions are
 *                        registered in its scope in graph order (which is
 *                        also the model's value list order), and only then
 *                        are node inputs and graph outputs linked, so a
 *                        subgraph may use an outer name defined after its
 *                        owner node
 *   nns__asm_finish      resolves the main graph and indexes every node
 *
 * Attributes are nns__attr structs the caller fills (named, typed); a
 * graph-valued one holds graphs made with nns__asm_graph. So a built model
 * and a loaded one are the same IR, value for value.
 */
#ifndef NNS_ASSEMBLE_H
#define NNS_ASSEMBLE_H

#include "ir.h"

/* Limits every way in shares. */
enum {
  NNS__MAX_RANK = 64,  /* dims of one tensor or shape */
  NNS__MAX_DEPTH = 1024 /* graphs (or messages) nested in one another: the
                           decoders recurse once per level */
};

typedef struct nns__asm {
  nns_model *m;              /* the model being assembled */
  nns_error *err;            /* caller's error, may be NULL */
  const char *empty;         /* interned "" */
  const char *doing;         /* "loading", "building": for messages */
  /* Assembling a model-local function's body: its subgraphs' nodes are
   * not the model's, and its nodes take their opsets from the function's
   * own imports (n_opsets entries), not the model's. */
  bool in_function;
  int32_t n_opsets;
  const char **opset_domains;
  int64_t *opset_versions;
} nns__asm;

/* Starts assembling into m. NNS_E_NOMEM when out of memory. */
nns_status nns__asm_begin(nns__asm *A, nns_model *m, nns_error *err,
                          const char *doing);
/* NNS_E_NOMEM with a message; every allocation failure goes through it. */
nns_status nns__asm_nomem(const nns__asm *A);

/* A new empty graph: the main graph or a function body (owner NULL), or a
 * subgraph held by an attribute of node `owner`. `offset`: where it starts
 * in the file, -1 for none. NULL when out of memory. */
nns__graph *nns__asm_graph(nns__asm *A, nns__node *owner, int64_t offset);
/* Counts a finished subgraph's nodes as the model's (not in a function). */
void nns__asm_subgraph_done(nns__asm *A, const nns__graph *g);

/* A fresh value `name` of graph g, of unknown type; NULL when out of
 * memory. */
nns__value *nns__asm_value(nns__asm *A, nns__graph *g, const char *name);
/* A graph input; `declared` (NULL: none) is also its starting type. */
nns_status nns__asm_input(nns__asm *A, nns__graph *g, const char *name,
                          nns__type *declared, nns__value **out);
/* An initializer: the tensor's dtype and dims are its type. */
nns_status nns__asm_initializer(nns__asm *A, nns__graph *g, nns__tensor *t,
                                nns__value **out);
/* A graph output by name, with its declared type (NULL: none); linked to
 * the value of that name by nns__asm_resolve. */
nns_status nns__asm_output(nns__asm *A, nns__graph *g, const char *name,
                           nns__type *declared, nns__value **out);
/* Output k of node n (n->out_names[k], not ""): a value that n produces. */
nns_status nns__asm_node_output(nns__asm *A, nns__node *n, int32_t k);
/* The same in `v`: zeroed room for one value that lives as long as the
 * model's arena (the loader puts a node's output values in the node's own
 * arena block, one allocation per node rather than one more per value). */
void nns__asm_node_output_at(nns__asm *A, nns__node *n, int32_t k,
                             nns__value *v);

/* A copy of src's dims in the model's arena (a type's other fields are
 * copied as they are). */
nns_status nns__asm_copy_type(nns__asm *A, const nns__type *src,
                              nns__type *dst);
/* A tensor's type: kind, dtype and its (known) dims. */
nns_status nns__asm_tensor_type(nns__asm *A, const nns__tensor *t,
                                nns__type *type);

/* Registers and links the names of g and its subgraphs. `listed`: add
 * the values to the model's value list (not for function bodies). */
nns_status nns__asm_resolve(nns__asm *A, nns__graph *g, bool listed);
/* Resolves the main graph g (listed) and indexes the model's nodes. */
nns_status nns__asm_finish(nns__asm *A, nns__graph *g);

#endif
