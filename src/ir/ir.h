/*
 * ir.h - the graph that nnscan analyses: values (tensors), nodes,
 * attributes, graphs and subgraphs, symbols, and the model that owns them.
 *
 * Everything here lives in the model's arena and is freed with it. Names are
 * interned, so equal names are equal pointers. Initializer data is never
 * copied: an nns__tensor points at its bytes in the mapped file (or names its
 * external file) and is decoded only when a rule needs the values.
 */
#ifndef NNS_IR_H
#define NNS_IR_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "../base/base.h"
#include "../base/job.h"

/* ==== Dims and symbols ==== */

/*
 * A dim, or an element of a small integer constant: a known number when
 * sym == 0, else the symbol `sym` (an index into the model's symbol table).
 * Every unknown dim is a symbol: a named one from the model ("batch"), an
 * expression over symbols ("batch*seq"), or a fresh anonymous one. Never a
 * silent 1.
 */
typedef struct nns__dim {
  int64_t v;    /* the value when sym == 0 */
  uint32_t sym; /* 0: known; else symbol id */
} nns__dim;

/* Copies n dims; n may be 0 with src NULL (a scalar's dims), which memcpy
 * does not allow. */
static inline void nns__dims_copy(nns__dim *dst, const nns__dim *src,
                                  int64_t n) {
  if (n > 0)
    memcpy(dst, src, (size_t)n * sizeof *dst);
}

static inline nns__dim nns__dim_known(int64_t v) {
  nns__dim d = {v, 0};
  return d;
}
static inline bool nns__dim_is_known(nns__dim d) { return d.sym == 0; }
static inline bool nns__dim_eq(nns__dim a, nns__dim b) {
  return a.sym == b.sym && (a.sym || a.v == b.v);
}

/*
 * A symbol may be a monomial: coef * product of atom symbols. This lets
 * products and exact divisions cancel (Reshape [batch*seq, 4096] back to
 * [batch, seq, 4096]) without a general algebra system.
 */
enum { NNS__SYM_MAX_FACTORS = 6 };
typedef struct nns__symbol {
  const char *name;   /* NULL for an anonymous unknown */
  int64_t coef;       /* monomial coefficient; 1 for atoms */
  uint32_t n_factors; /* 0 for an atom */
  uint32_t factors[NNS__SYM_MAX_FACTORS]; /* sorted atom ids */
} nns__symbol;

/* ==== Types ==== */

typedef struct nns__type {
  int32_t dtype;    /* nns_dtype; element dtype for sequence/optional */
  uint8_t kind;     /* nns_type_kind */
  uint8_t elem_kind;/* for SEQUENCE/OPTIONAL: kind of the element */
  int32_t rank;     /* -1 unknown rank */
  nns__dim *dims;   /* rank entries (arena) */
} nns__type;

/* ==== Tensors (initializer storage) ==== */

typedef enum nns__storage {
  NNS__ST_NONE = 0,     /* no data (all fields empty: zero elements) */
  NNS__ST_RAW,          /* raw_data: little-endian bytes in `raw` */
  NNS__ST_PACKED,       /* a packed typed field: `raw` holds its payload */
  NNS__ST_DECODED,      /* unpacked typed elements, decoded at load */
  NNS__ST_EXTERNAL,     /* in an external file */
  NNS__ST_SPARSE        /* a sparse tensor: dtype and dims only */
} nns__storage;

typedef enum nns__packing {
  NNS__PK_VARINT = 0, /* int32_data, int64_data, uint64_data */
  NNS__PK_FIXED32,    /* float_data */
  NNS__PK_FIXED64,    /* double_data */
  NNS__PK_STRING      /* string_data: repeated bytes */
} nns__packing;

typedef struct nns__tensor {
  const char *name;      /* interned; "" if none */
  int32_t dtype;
  int32_t rank;
  int64_t *dims;         /* all known (an initializer's dims are concrete) */
  int64_t numel;
  int64_t offset;        /* byte offset of the TensorProto, for messages */
  uint8_t storage;       /* nns__storage */
  uint8_t packing;       /* nns__packing, for PACKED */
  bool int32_units;      /* PACKED / DECODED varints are int32_data's:
                            sign-extended int32s, or the bits of a 16- or
                            8-bit float */
  const uint8_t *raw;    /* RAW / PACKED / STRING payload in the file */
  size_t raw_len;
  /* STRING: the whole TensorProto message, rescanned for string_data. */
  const uint8_t *msg;
  size_t msg_len;
  /* DECODED: elements as int64 (integers, bool) or double (floats). */
  int64_t *dec_i;
  double *dec_f;
  int64_t dec_count;
  /* EXTERNAL */
  const char *ext_location;
  int64_t ext_offset;
  int64_t ext_length;    /* -1 if not given */
} nns__tensor;

/* ==== Constant values ==== */

/*
 * The known contents of a (small) value. Integer and bool elements are
 * nns__dim so that a symbolic dim can flow through shape arithmetic
 * (Shape -> Gather -> Concat -> Reshape); floats are doubles; strings are
 * arena copies. The dtype and shape are the owning value's.
 */
typedef struct nns__const {
  int64_t numel;
  nns__dim *i;        /* integer and bool dtypes */
  double *f;          /* floating dtypes */
  const char **s;     /* strings (NUL-terminated; embedded NULs cut) */
} nns__const;

/* ==== Values ==== */

struct nns__node;
struct nns__graph;

typedef struct nns__value {
  const char *name;          /* interned */
  struct nns__graph *graph;  /* graph that defines it */
  struct nns__node *producer;/* NULL for inputs and initializers */
  nns__tensor *init;         /* initializer storage, or NULL */
  nns__type type;            /* inferred (or, for inputs, given) type */
  nns__type *declared;       /* type the model declares, or NULL */
  nns__const *cval;          /* known contents, or NULL */
  /* Contents a binding observed while recording (packed record
   * value_data, raw little-endian, any size): read by analyses that need
   * more than folding keeps (masked attention), never by shape rules. */
  const nns__tensor *known;
  uint8_t role;              /* nns_value_role */
  bool cval_done;            /* cval was computed (or found impossible) */
  bool is_graph_input;       /* listed in the graph's inputs */
  bool is_graph_output;      /* listed in the graph's outputs */
  uint32_t index;            /* position in the model's value list */
} nns__value;

/* ==== Attributes ==== */

/* ONNX AttributeProto.AttributeType numbers: the public nns_attr_type's
 * (nnscan.h, the builder's), plus 0 for an attribute that has none. */
typedef enum nns__attr_type {
  NNS__AT_UNDEFINED = 0,
  NNS__AT_FLOAT = NNS_ATTR_FLOAT,
  NNS__AT_INT = NNS_ATTR_INT,
  NNS__AT_STRING = NNS_ATTR_STRING,
  NNS__AT_TENSOR = NNS_ATTR_TENSOR,
  NNS__AT_GRAPH = NNS_ATTR_GRAPH,
  NNS__AT_FLOATS = NNS_ATTR_FLOATS,
  NNS__AT_INTS = NNS_ATTR_INTS,
  NNS__AT_STRINGS = NNS_ATTR_STRINGS,
  NNS__AT_TENSORS = NNS_ATTR_TENSORS,
  NNS__AT_GRAPHS = NNS_ATTR_GRAPHS,
  NNS__AT_SPARSE_TENSOR = NNS_ATTR_SPARSE_TENSOR,
  NNS__AT_SPARSE_TENSORS = NNS_ATTR_SPARSE_TENSORS,
  NNS__AT_TYPE_PROTO = NNS_ATTR_TYPE_PROTO,
  NNS__AT_TYPE_PROTOS = NNS_ATTR_TYPE_PROTOS
} nns__attr_type;

typedef struct nns__attr {
  const char *name;          /* interned */
  int32_t type;              /* nns__attr_type */
  int32_t n;                 /* element count of a list attribute */
  int64_t i;
  double f;
  const char *s;             /* arena copy, NUL-terminated */
  size_t s_len;
  int64_t *ints;
  double *floats;
  const char **strings;
  nns__tensor *t;
  nns__tensor **tensors;
  struct nns__graph *g;
  struct nns__graph **graphs;
  nns__type *tp;             /* TYPE_PROTO */
  nns__type **tps;           /* TYPE_PROTOS (n entries) */
  const char *ref_attr_name; /* in function bodies: refers to a call attr */
  int64_t offset;            /* byte offset of the AttributeProto */
} nns__attr;

/* ==== Nodes ==== */

struct nns__op;

typedef struct nns__node {
  const char *name;          /* interned; "" if none */
  const char *op_type;       /* interned */
  const char *domain;        /* interned; "" for ai.onnx ("ai.onnx" maps to "") */
  int32_t n_in, n_out;
  const char **in_names;     /* interned; "" for an omitted optional input */
  const char **out_names;
  nns__value **in;           /* NULL for omitted inputs */
  nns__value **out;          /* NULL for omitted outputs */
  int32_t n_attrs;
  int32_t opset;             /* version of its domain in force */
  nns__attr *attrs;
  struct nns__graph *graph;  /* graph that holds the node */
  const struct nns__op *op;  /* rule entry, NULL when unknown */
  int64_t offset;            /* byte offset of the NodeProto */
  uint32_t index;            /* position in its graph's node array */
  uint32_t list_index;       /* position in the model's node list
                                (nns_model_node); UINT32_MAX for nodes of
                                function bodies */
  const char *scope;         /* module path given by the builder (interned
                                dotted path), or NULL: from the name */
  /* The kernel that runs it (nns_builder_mark_kernel): main-graph nodes
   * kernel_first .. kernel_first + kernel_count - 1 run as one unit, whose
   * bytes are those crossing its boundary (src/analyze/roofline.c).
   * kernel_count is 0 for a node that runs alone, as every node of an
   * ONNX file does; a kernel has at least 2 nodes, none holding a
   * subgraph. */
  int32_t kernel_first;      /* graph index of the kernel's first node */
  int32_t kernel_count;      /* nodes in the kernel; 0: none */

  int32_t n_meta;            /* metadata_props entries (field 9) */
  const char **meta_keys;    /* arena copies */
  const char **meta_values;
} nns__node;

/* ==== Graphs ==== */

typedef struct nns__graph {
  const char *name;
  struct nns__graph *parent; /* enclosing graph of a subgraph, else NULL */
  nns__node *owner;          /* node whose attribute holds this subgraph */
  int depth;                 /* 0 for the main graph */
  int64_t offset;
  int32_t n_nodes;
  nns__node *nodes;
  int32_t n_inputs, n_outputs, n_inits;
  nns__value **inputs;       /* as listed (may include initializers) */
  nns__value **outputs;
  nns__value **inits;
  int32_t n_value_info;
  const char **vi_names;     /* value_info entries, applied after load */
  nns__type **vi_types;
  nns__map scope;            /* interned name -> nns__value*, this graph */
  nns__node **order;         /* topological order, set by nns__graph_sort */
  bool skipped;              /* left uninferred by its last inference (an If's
                                branch not taken, or one that cannot run) */
} nns__graph;

/* ==== Functions (model-local) ==== */

typedef struct nns__function {
  const char *name;
  const char *domain;
  int32_t n_attr_names;
  const char **attr_names;
  nns__graph *body;          /* inputs/outputs are the formal parameters */
  int32_t n_opsets;
  const char **opset_domains;
  int64_t *opset_versions;
} nns__function;

/* ==== The model ==== */

/* A module the caller described (nns_model_set_module). */
typedef struct nns__module_decl {
  const char *class_name; /* interned; NULL when only its MACs were given */
  size_t call_count;
  int64_t macs;           /* nns_model_set_module_macs, when macs_given */
  bool macs_given;
  const char **call_outputs; /* per call: its outputs' structure as JSON
                                (nns_model_set_module_call), or NULL */
  size_t call_outputs_cap;
  size_t call_outputs_count; /* one past the last call described */
  const char *path;       /* interned; its key in nns_model.modules */
  /* The first input's and output's shapes the caller recorded
   * (nns_model_set_module_shapes); rank -1 when not given. */
  int in_rank, out_rank;
  int64_t *in_shape, *out_shape;
  /* The value its first call gave, by name, where a reader knows the
   * calls apart (a .pt2 archive's nn_module_stack keys), or NULL: the
   * layer's output (nns__scope_io). */
  const char *first_out;
  /* The tensors it registers itself (nns_model_add_module_tensor): the
   * first index into nns_model.module_tensors, chained by `next`; -1 for
   * none. */
  int32_t first_tensor, last_tensor;
} nns__module_decl;

/* A tensor a module registers (nns_model_add_module_tensor). */
typedef struct nns__module_tensor {
  const char *tensor;     /* interned identity: one name per tensor */
  int64_t numel;
  int64_t bytes;
  uint8_t kind;           /* nns_param_kind: TRAINABLE, FROZEN or BUFFER */
  int32_t next;           /* the module's next tensor, -1 for none */
  const nns__module_decl *module;
} nns__module_tensor;

/* A mixture-of-experts layer the caller described (nns_model_set_experts):
 * k of E experts per token, `tokens` routed per call (0: unknown). */
typedef struct nns__experts_decl {
  int64_t active, total, tokens;
} nns__experts_decl;

/* module_decl.c: the caller's declaration of the module at `path` (created,
 * zeroed, on first use; NULL when out of memory). */
nns__module_decl *nns__module_decl_of(nns_model *m, const char *path);
/* The module declared at `path`, or NULL: declared paths are interned, so
 * one probe of the interner and one of the map, and nothing is added. */
nns__module_decl *nns__module_find(const nns_model *m, const char *path);

typedef struct nns__unknown_op {
  const char *domain;
  const char *op_type;
  size_t count;
} nns__unknown_op;

/* The sizes a binding observed a main-graph value take when the model ran
 * (packed record observed_shape): what nns_model_shape_mismatches holds
 * inference against. */
typedef struct nns__observed {
  const char *name;          /* interned */
  int32_t rank;
  const int64_t *dims;
} nns__observed;

struct nns_model {
  nns__arena arena;          /* the graph: lives as long as the model */
  nns__arena scratch;        /* short-lived work of one call, reset after
                                it (nns__arena_reset) */
  nns__arena data_arena;     /* tensor bytes the builder copied (bulk) */
  /* Results of the last nns_model_infer, freed whole when it is redone
   * (nnscan.h, "Ownership"): types, dims, folded constants and orders
   * (src/infer, src/ops, tensor.c). Interned strings stay in `arena`: each
   * run interns the same ones again. An analysis is not kept here: it is
   * an object of its own (src/analyze). */
  nns__arena infer_arena;
  nns__interner strings;
  nns__fmap map;             /* when loaded from a file */
  const uint8_t *data;       /* the model bytes */
  size_t size;
  const char *dir;           /* folder for external data (arena) */

  int64_t ir_version;
  const char *producer_name, *producer_version, *domain, *doc;
  int64_t model_version;
  int32_t n_opsets;
  const char **opset_domains;
  int64_t *opset_versions;
  int32_t n_meta;
  const char **meta_keys, **meta_values;
  int32_t n_functions;
  nns__function *functions;
  nns__graph *graph;

  /* Symbol table: id 0 is reserved for "known". malloc'ed. */
  nns__symbol *syms;
  uint32_t n_syms;
  size_t cap_syms;
  uint32_t n_syms_load;      /* symbols of the model itself (its declared
                                dims); an inference's own are dropped by
                                the next one */
  nns__map sym_by_name;      /* interned name -> (void*)(uintptr_t)id */

  nns__observed *observed;   /* in observed order; in the arena */
  size_t n_observed;

  /* Every value in graph order (see nns_model_value_count). In the
   * arena. */
  nns__value **values;
  size_t n_values, cap_values;
  size_t subgraph_nodes;

  /* Every node, subgraph nodes included, in preorder (nns_model_node),
   * with the list index of the node holding its graph (UINT32_MAX for
   * main-graph nodes) and that attribute's name. In the arena; built by
   * nns__model_index_nodes once the graph is complete. */
  nns__node **nodes;
  uint32_t *node_parent;
  const char **node_parent_attr;
  size_t n_nodes;

  /* Diagnostics. malloc'ed. */
  char **warnings;
  size_t n_warnings, cap_warnings;
  nns__unknown_op *unknown;
  size_t n_unknown, cap_unknown;

  nns__map op_cache;         /* interned op_type -> resolved entry */
  nns__map custom_ops;       /* interned op_type -> user-registered entries
                                (src/ops/custom.c) */
  nns__map warned;           /* interned keys of warnings given once */
  /* What the caller said (nns_model_set_module / _set_param_kind), for
   * every analysis; arena-backed maps. */
  nns__map modules;          /* interned dotted path -> nns__module_decl* */
  nns__map call_json;        /* interned module-call outputs JSON already
                                parsed and found well formed: calls share
                                a few texts (nns_model_set_module_call) */
  nns__module_decl **module_order; /* the same, in declaration order (arena;
                                      modules.count of them) */
  size_t module_order_cap;
  nns__module_tensor *module_tensors; /* arena; n_module_tensors of them */
  size_t n_module_tensors, cap_module_tensors;
  nns__map param_kinds;      /* interned value name -> (void *)(kind + 1) */
  struct nns__train_step *train_step; /* nns_model_set_train_step: one
                                         malloc'ed block (src/analyze) */
  struct nns__parallel *parallel; /* nns_model_set_parallel: one malloc'ed
                                     block (src/analyze/parallel.c) */
  size_t load_warnings;      /* warnings from loading; later ones are
                                inference's and are redone by each run */
  unsigned infer_flags;      /* NNS_INFER_* of the current run */
  unsigned load_infer_flags; /* NNS_INFER_* every run takes, as the loader
                                asked: a .pt2's declared sizes are
                                PyTorch's own (src/pt2/pt2.c) */
  int call_depth;            /* nesting of function-call inference */
  int infer_runs;            /* nns_model_infer calls so far */
  int64_t fold_bytes;        /* bytes of constants decoded or folded in this
                                inference run (NNS__FOLD_BUDGET caps it) */
  bool inferred;
  bool analyzed;             /* an nns_model_analyze succeeded since the
                                last inference (NNS_STATE_ANALYZED) */
  nns__map experts;          /* interned dotted path -> nns__experts_decl* */
};

/* ==== Functions over the IR (src/ir) ==== */

/* Model lifetime: creates an empty model with its arena and interner. */
nns_model *nns__model_new(void);
void nns__model_destroy(nns_model *m);

/* Adds a warning (printf-style). Silently drops it when out of memory. */
void nns__warn(nns_model *m, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* Whether n has an attribute of graph type (GRAPH or GRAPHS), set or not. */
static inline bool nns__node_holds_graph(const nns__node *n) {
  for (int32_t k = 0; k < n->n_attrs; k++)
    if (n->attrs[k].type == NNS__AT_GRAPH ||
        n->attrs[k].type == NNS__AT_GRAPHS)
      return true;
  return false;
}

/* Records that value v belongs to the model's value list. */
bool nns__model_add_value(nns_model *m, nns__value *v);
/* Room for n values in the list, made once rather than by doubling. False
 * when out of memory. */
bool nns__model_reserve_values(nns_model *m, size_t n);

/* Builds m->nodes (see there) from the main graph and its subgraphs. */
nns_status nns__model_index_nodes(nns_model *m, nns_error *err);
/* The same in two steps, so that assembly lists the nodes on a second
 * thread while it resolves names: the start empties the list and takes
 * its room in the model's arena on the calling thread; the job then
 * writes only the list and each node's list_index, and reads only what
 * decoding made (the nodes, their graph attributes), which resolution
 * leaves alone. The finish, called on every path, joins it, and lists the
 * nodes again itself when the room fell short (a thread never grows it,
 * as the arena is the calling thread's). */
typedef struct nns__model_listing {
  nns_model *m;
  size_t cap;    /* room in m->nodes and its two companions */
  bool threaded; /* filled on a thread: the room may not grow */
  bool ok;       /* every node listed */
  nns__job job;
} nns__model_listing;
void nns__model_listing_start(nns__model_listing *l, nns_model *m,
                              bool thread);
nns_status nns__model_listing_finish(nns__model_listing *l, nns_error *err);
/* n's position in m->nodes, or (size_t)-1 (a function body's node). */
static inline size_t nns__node_index(const nns_model *m, const nns__node *n) {
  (void)m;
  return n->list_index == UINT32_MAX ? (size_t)-1 : (size_t)n->list_index;
}

/* The main-graph node that holds n: n itself, or the owner of the
 * subgraph that holds it, recursively. */
static inline const nns__node *nns__top_node(const nns__node *n) {
  while (n && n->graph && n->graph->owner)
    n = n->graph->owner;
  return n;
}

/* Opset version of `domain` in the model, or -1 when not imported. */
int64_t nns__model_opset(const nns_model *m, const char *domain);

/* A new empty graph in the arena whose scope map is arena-backed. Every
 * graph (main, subgraph, function body) must be made with this. NULL when
 * out of memory. */
nns__graph *nns__graph_new(nns_model *m, nns__graph *parent);

/* Looks a name up in g, then its enclosing graphs. */
nns__value *nns__graph_lookup(const nns__graph *g, const char *name);

/* Symbols (sym.c). All return a symbol id, or 0 when out of memory. */
uint32_t nns__sym_named(nns_model *m, const char *name); /* interned name */
uint32_t nns__sym_fresh(nns_model *m);
/* Gives the anonymous atom `id` the name `base` (or base_1, base_2, ...
 * when the model already uses it); named symbols are left alone. False
 * when out of memory. */
bool nns__sym_name_anonymous(nns_model *m, uint32_t id, const char *base);
const nns__symbol *nns__sym_get(const nns_model *m, uint32_t id);
/* Dim `axis` of value i as nns_model_value_dim gives it, by value: value
 * -1 and no symbol when there is no such dim. For the reports, which read
 * a dim of every value they print (a million in a 100k-node summary). */
nns_dim nns__value_dim(const nns_model *m, size_t i, int axis);
/* Symbolic arithmetic on dims; exact when both are known (overflow gives a
 * fresh symbol). Division is floor division; by a known zero gives a fresh
 * symbol. */
nns__dim nns__dim_mul(nns_model *m, nns__dim a, nns__dim b);
nns__dim nns__dim_add(nns_model *m, nns__dim a, nns__dim b);
nns__dim nns__dim_sub(nns_model *m, nns__dim a, nns__dim b);
nns__dim nns__dim_div(nns_model *m, nns__dim a, nns__dim b);
nns__dim nns__dim_mod(nns_model *m, nns__dim a, nns__dim b);
nns__dim nns__dim_neg(nns_model *m, nns__dim a);
/* A name for a dim as printed: "7", "batch", "batch*seq", "?". Writes into
 * buf (always NUL-terminated) and returns buf. */
const char *nns__dim_str(const nns_model *m, nns__dim d, char *buf,
                         size_t size);

/* Tensors (tensor.c; the dtype helpers just below are inline). */
/* Inline: the analyses ask for a dtype's bits and class per value and
 * per node, hundreds of thousands of times a summary. */
static inline int nns__dtype_bits(int32_t dtype) {
  switch (dtype) {
  case NNS_DT_UINT2:
  case NNS_DT_INT2:
    return 2;
  case NNS_DT_UINT4:
  case NNS_DT_INT4:
  case NNS_DT_FLOAT4E2M1:
    return 4;
  case NNS_DT_UINT8:
  case NNS_DT_INT8:
  case NNS_DT_BOOL:
  case NNS_DT_FLOAT8E4M3FN:
  case NNS_DT_FLOAT8E4M3FNUZ:
  case NNS_DT_FLOAT8E5M2:
  case NNS_DT_FLOAT8E5M2FNUZ:
  case NNS_DT_FLOAT8E8M0:
    return 8;
  case NNS_DT_UINT16:
  case NNS_DT_INT16:
  case NNS_DT_FLOAT16:
  case NNS_DT_BFLOAT16:
    return 16;
  case NNS_DT_FLOAT:
  case NNS_DT_INT32:
  case NNS_DT_UINT32:
    return 32;
  case NNS_DT_INT64:
  case NNS_DT_DOUBLE:
  case NNS_DT_UINT64:
  case NNS_DT_COMPLEX64:
    return 64;
  case NNS_DT_COMPLEX128:
    return 128;
  default:
    return 0; /* string, undefined, unknown */
  }
}

static inline bool nns__dtype_is_float(int32_t dtype) {
  switch (dtype) {
  case NNS_DT_FLOAT:
  case NNS_DT_FLOAT16:
  case NNS_DT_DOUBLE:
  case NNS_DT_BFLOAT16:
  case NNS_DT_FLOAT8E4M3FN:
  case NNS_DT_FLOAT8E4M3FNUZ:
  case NNS_DT_FLOAT8E5M2:
  case NNS_DT_FLOAT8E5M2FNUZ:
  case NNS_DT_FLOAT8E8M0:
  case NNS_DT_FLOAT4E2M1:
    return true;
  default:
    return false;
  }
}

/* Integers and bool. */
static inline bool nns__dtype_is_int(int32_t dtype) {
  switch (dtype) {
  case NNS_DT_UINT8:
  case NNS_DT_INT8:
  case NNS_DT_UINT16:
  case NNS_DT_INT16:
  case NNS_DT_INT32:
  case NNS_DT_INT64:
  case NNS_DT_BOOL:
  case NNS_DT_UINT32:
  case NNS_DT_UINT64:
  case NNS_DT_UINT4:
  case NNS_DT_INT4:
  case NNS_DT_UINT2:
  case NNS_DT_INT2:
    return true;
  default:
    return false;
  }
}
/* Element i of little-endian raw data of a byte-sized dtype, as a double
 * (integers and bool by value). */
double nns__raw_elem(int32_t dtype, const uint8_t *p);

/* A tensor of `rank` known dims in m's arenas, named `name`, with a copy
 * of `data` (exactly the bytes its elements take) or, data NULL, none;
 * `sparse`: a sparse tensor, given by dtype and dims only. NNS_E_ARG names
 * `what` and `name` for an unknown dtype, a bad rank or dim, or a size
 * that does not match (builder.c: the builder's tensors, and contents a
 * binding gives a built model). */
nns_status nns__model_tensor(nns_model *m, const char *what,
                             const char *name, int dtype, int rank,
                             const int64_t *dims, const void *data,
                             size_t data_size, bool sparse,
                             nns__tensor **out, nns_error *err);

/* Decodes an initializer's elements into c. Returns NNS_OK, or an error
 * (external file missing or short, data size mismatch). `limit` bounds the
 * element count decoded; larger tensors give NNS_E_LIMIT. */
nns_status nns__tensor_decode(nns_model *m, const nns__tensor *t,
                              int64_t limit, nns__const *c, nns_error *err);
/* The one element of a one-element numeric tensor stored in the file's
 * bytes (raw_data, a typed field, or decoded at load), as a double,
 * without the model's arena that nns__tensor_decode takes (safe beside
 * the analysis' threads); false otherwise (external data, a malformed
 * field, a symbol). */
bool nns__tensor_scalar(const nns__tensor *t, double *x);

#endif
