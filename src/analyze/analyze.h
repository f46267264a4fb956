/*
 * analyze.h - the analysis of one model (nns_model_analyze): what the
 * driver (analyze.c) computes and keeps, and the passes it runs, one file
 * each: the model's and nodes' metadata decoded (meta.c), the module tree
 * from node names (scope.c), parameter
 * classification (params.c), activation memory and its peak (memory.c) and
 * receptive fields (rf.c), with one shared helper (counts.c: the sums,
 * and the compact node and layer rows with the public rows they stand
 * for). The public accessors are in api.c.
 *
 * An analysis is an object of its own (struct nns_analysis, freed by
 * nns_analysis_free): everything it keeps lives in its own arena, beside
 * the model it describes, which it only reads after nns_model_analyze.
 * Several analyses of one model live side by side. What the reports need
 * of the inference it ran on (value types, unknown ops, warnings) is
 * copied into it, so a later nns_model_infer leaves it whole. Scratch
 * arrays are malloc'ed and freed by each pass. Definitions of every
 * number: docs/metrics.md.
 */
#ifndef NNS_ANALYZE_H
#define NNS_ANALYZE_H

#include "../ops/op.h"
#include "../base/job.h"

/* ==== Metadata (meta.c) ==== */

/* The model metadata nnscan reads, decoded (meta.c says which keys and
 * formats). Both maps live in the analysis's arena. */
typedef struct nns__meta {
  nns__map module_types; /* interned dotted module path -> interned class */
  nns__map param_kinds;  /* interned value name -> interned kind word
                            ("trainable", "frozen", "buffer", "constant") */
} nns__meta;
/* Decodes m's metadata into *meta, maps in `arena`; a malformed entry is
 * left out with a warning. False when out of memory. */
bool nns__meta_read(nns_model *m, nns__arena *arena, nns__meta *meta);
/* The nns_param_kind the metadata gives value `name` (interned), or -1. */
int nns__meta_param_kind(const nns__meta *meta, const char *name);

/* A module path of up to 64 modules (scope.c's deepest), the root and the
 * op's own name. */
enum { NNS__META_MAX_SCOPES = 66 };
/* A node's module path as torch.export records it. */
typedef struct nns__node_scopes {
  const char *paths[NNS__META_MAX_SCOPES];   /* interned: the root ('')
                                                 and each enclosing module,
                                                 then the op's own name */
  const char *classes[NNS__META_MAX_SCOPES]; /* interned: the class of
                                                 each path, as far as given */
  int n_paths, n_classes;
} nns__node_scopes;
/* Decodes node n's module path: 1 with *s set; 0 when it has none, or a
 * malformed one (warned: its name is used); -1 when out of memory.
 * Strings are interned in m's interner. */
int nns__meta_node_scopes(nns_model *m, const nns__node *n,
                          nns__node_scopes *s);

/* ==== Results ==== */

/* One node of the main graph, by nns__node.index: the counts of its own
 * that every node has (nns__node_counts gives its public row). A full
 * nns_counts per node, most of it zero, was 21 MB of fresh pages for a
 * 100k-node graph. */
typedef struct nns__anode {
  int64_t flops, macs, dmas; /* its cost rule's */
  int64_t bytes;             /* bytes it moves (roofline.c) */
  int64_t activation_bytes;  /* bytes of its outputs (memory.c) */
  uint32_t layer;    /* layer (preorder index) that holds it */
  uint32_t optype;   /* first row of its op type in a->optypes */
  uint32_t more;     /* its row in a->node_more + 1; 0: none */
  unsigned flags;    /* NNS_COUNT_* */
  bool counted;      /* its cost rule counted it */
  bool still;        /* it moves no data (roofline.c): a view, the view
                        rule, or outputs folded to constants */
  bool view;         /* a view or the view rule: its first output is its
                        first input under another shape */
} nns__anode;

/* What only some nodes have (nns__node_more): the parameters it is the
 * first to read (params.c) and, for an attention product, the MACs and
 * FLOPs of the pairs its mask leaves out (attention.c). The parameters'
 * figures are sums of nns_counts by the same names (counts.c adds them
 * into the node's row); a new one is a word in this list. */
#define NNS__NODE_MORE_SUMS(X) X(params) X(buffers) X(param_bytes) X(frozen)
typedef struct nns__anode_more {
#define NNS__MORE_FIELD_(f) int64_t f;
  NNS__NODE_MORE_SUMS(NNS__MORE_FIELD_)
#undef NNS__MORE_FIELD_
  int64_t macs_cut;  /* macs - macs_unmasked */
  int64_t flops_cut; /* flops - flops_unmasked */
} nns__anode_more;

/* A node's roofline time (roofline.c), kept only when the analysis names
 * a device: without one every time is 0 and the bound NONE. */
typedef struct nns__anode_time {
  double time_s, compute_time_s, memory_time_s; /* as in nns_counts */
  int bound;                                    /* NNS_BOUND_* */
} nns__anode_time;

/* A layer's sums over its subtree: what every layer has of nns_counts
 * (nns__layer_counts gives the public row). Its intensity and bound are
 * worked out when read; its times, a training step's bytes and what the
 * caller's experts make of its parameters are kept aside, only when there
 * are any. */
typedef struct nns__lcounts {
  /* Every metric (nnscan.h's NNS_METRIC_MAP: each is a sum over nodes),
   * then the other sums, as in nns_counts. */
#define NNS__LCOUNT_(name, bit, key, lower, member, mflags, text)              \
  int64_t member;
  NNS_METRIC_MAP(NNS__LCOUNT_)
#undef NNS__LCOUNT_
  int64_t bytes, nodes, macs_unmasked, flops_unmasked;
  unsigned flags;                               /* NNS_COUNT_* */
} nns__lcounts;

/* A layer's parameters as one token uses them (experts.c), as in
 * nns_counts; without experts, params + frozen and param_bytes. */
typedef struct nns__lexperts {
  int64_t params_active, weight_bytes_read;
} nns__lexperts;

/* A layer's training-step bytes (train.c), as in nns_counts. */
typedef struct nns__ltrain {
  int64_t saved_bytes, checkpoint_saves_bytes, checkpoint_recompute_flops;
} nns__ltrain;

/* No layer, no value: the 32-bit fields' "(size_t)-1". */
#define NNS__NONE32 UINT32_MAX

/* What a layer's public row (nns_layer_info) holds, in 32-bit indexes:
 * a 100k-node graph without module paths has 81k layers. */
typedef struct nns__linfo {
  const char *name, *path, *type, *op_types; /* as in nns_layer_info */
  size_t call_count;
  bool not_called;       /* declared by the binding with 0 calls */
  uint32_t parent;       /* NNS__NONE32 for the root */
  uint32_t child_count;
  uint32_t input_value;  /* NNS__NONE32 when none */
  uint32_t output_value; /* NNS__NONE32 when none */
} nns__linfo;

/* One layer of the module tree, in preorder (0 is the root). */
typedef struct nns__alayer {
  nns__linfo info;      /* its row (nns_analysis_layer), but the depth */
  nns__lcounts counts;  /* over the subtree */
  /* Per spatial axis, a field that differs between positions (windowed
   * attention; period 0 on the others), or NULL when none does. */
  struct nns__rf_per *per;
  const char *module_class; /* full class name from the model, or NULL */
  int32_t depth;        /* 0 for the root */
  uint32_t rf;          /* field of its output: index into a->layer_rfs */
  uint32_t end;         /* one past the last layer of its subtree */
  uint32_t n_nodes_own; /* nodes whose innermost scope is this layer */
} nns__alayer;

typedef struct nns__dtype_row {
  int dtype;
  int64_t elements;
  int64_t bytes;
} nns__dtype_row;

typedef struct nns__optype_row {
  const char *domain;  /* interned */
  const char *op_type; /* interned */
  int counted;         /* the op type has a cost rule */
  const char *family;  /* its op table family, or NULL */
  nns_counts counts;
} nns__optype_row;

typedef struct nns__uncounted_row {
  const char *domain;
  const char *op_type;
  size_t nodes;
  /* Why (nns_analysis_uncounted_op_why): nodes = no_rule + no_size + failed. */
  size_t no_rule, no_size, failed;
  /* Where its first no_size node's sizes were lost
   * (nns_analysis_uncounted_op_lost): the node, and NNS_SIZE_LOST_*. */
  const nns__node *lost_at;
  int lost_how;
} nns__uncounted_row;

/* A node whose count is approximate, and the rule's reason. */
typedef struct nns__approx_row {
  size_t node;     /* its nns_model_node index */
  const char *why; /* the rule's static sentence (nns__cost.approx) */
} nns__approx_row;

/* An If of the main graph: the branch its costs follow. */
typedef struct nns__branch_row {
  const nns__node *node;
  uint8_t branch;    /* NNS__BRANCH_THEN or NNS__BRANCH_ELSE */
  bool known;        /* the condition was known; else the larger branch */
  bool only;         /* unknown, but the other branch cannot run */
} nns__branch_row;

/* A value's type as the analysed inference left it (nns_analysis_value):
 * its dims are dims[first .. first + rank) of the analysis's dim list. */
typedef struct nns__vtype {
  int32_t dtype;
  int32_t rank;       /* -1 unknown */
  uint8_t kind;       /* nns_type_kind */
  bool has_constant;
  uint32_t first;     /* first dim in nns__analysis.dims */
} nns__vtype;

/* One dim of a value, as nns_model_value_dim gave it then. */
typedef struct nns__vdim {
  int64_t value;      /* >= 0 known, -1 unknown */
  const char *symbol; /* interned name of an unknown dim, or NULL */
} nns__vdim;

/* One forward attention whose pairs were counted (attention.c): what a
 * later analysis of its recorded backward needs to count that backward's
 * products over the same pairs. */
typedef struct nns__attn_row {
  const char *scope;      /* module path of its Q.K^T and P.V (interned) */
  int32_t rank;           /* of the scores [.., L, S] */
  int64_t dims[8];
  int64_t allowed;        /* (query, key) pairs the masks allow */
  int64_t rows;           /* query rows with an allowed key */
  int64_t cols;           /* key columns with an allowed query; -1 when
                             past INT64_MAX */
  bool unknown;           /* its mask's contents are not known: the
                             counts above are not set, and the backward's
                             products over its scores are flagged too */
} nns__attn_row;

typedef struct nns_analysis nns__analysis;
struct nns_analysis {
  nns__arena arena;             /* everything below that is kept */
  const nns_model *model;       /* the model it describes (read only) */
  nns_totals totals;
  nns_counts all;               /* the whole model */
  size_t attention;             /* softmax attentions found (attention.c) */
  int64_t attn_queries;         /* the first one's query length (the
                                   scores' second-to-last dim), or 0 */
  size_t n_attn;                /* of them, those counted (attention.c) */
  nns__attn_row *attn;          /* in the arena */
  /* The mask nodes (Add, Where) of attentions counted dense because the
   * mask's contents are not known (attention.c), for their warnings. */
  size_t n_attn_unknown;
  const nns__node **attn_unknown; /* in the arena, n_soft at most */
  nns_rf rf;                    /* the model's (rf.c, docs/metrics.md) */
  /* The distinct fields of the layers' outputs (rf.c), by
   * nns__alayer.rf: most layers share a handful, and a 104-byte field in
   * each of a 100k-node graph's 81k layers was 8 MB of fresh pages.
   * layer_rfs[0] is all zero (no field); NULL before rf.c has run. */
  nns_rf *layer_rfs;
  unsigned memory_flags;        /* NNS_COUNT_OVERFLOW when a memory total
                                  saturated (memory.c) */
  /* The main graph's nodes in the model's own order when that order is
   * topological (ONNX requires it), else in nns__graph_sort's order. */
  const nns__node **order;
  const nns__graph *main;     /* the model's main graph */
  size_t n_nodes;             /* main-graph nodes */
  nns__anode *nodes;
  size_t n_node_more, cap_node_more;
  nns__anode_more *node_more; /* by nns__anode.more - 1; malloc'ed while
                                 analysing, then arena */
  nns__anode_time *node_times; /* per node with a device, else NULL */
  nns__anode_time *layer_times; /* per layer with a device, else NULL
                                   (bound unused: worked out when read) */
  nns__ltrain *layer_train;    /* per layer with a training step, else
                                  NULL */
  nns__lexperts *layer_experts; /* per layer when the caller declared
                                   experts, else NULL */
  /* One rank of a parallel plan (parallel.c); world_size 0 without. */
  nns_per_rank per_rank;
  nns_per_rank *layer_per_rank; /* per layer with a plan, else NULL */
  size_t n_mesh;
  const char **mesh_name;       /* the plan's mesh, in the arena */
  int64_t *mesh_size;
  /* A pass that returns nothing ran out of memory: the analysis fails. */
  bool nomem;
  /* While analysing: nns__value_bytes of each model value plus 2 (0: not
   * worked out yet), as nns__vbytes first reads it (three passes read
   * every input and output of every node), and whether it took a symbol
   * as 1. Zeroed pages are touched only where values are read. */
  uint64_t *vbytes;
  bool *vbytes_symbolic;
  size_t n_layers;
  nns__alayer *layers;
  size_t n_params, cap_params;
  nns_param_info *params;
  size_t n_dtypes;
  nns__dtype_row *dtypes;
  size_t n_optypes, cap_optypes;
  nns__optype_row *optypes;
  size_t n_branches, cap_branches;
  nns__branch_row *branches;  /* malloc'ed while analysing, then arena */
  /* Nodes a cost rule counted only approximately (nns__cost.approx), any
   * graph's, in the order counted. */
  size_t n_approx, cap_approx;
  nns__approx_row *approx;    /* malloc'ed while analysing, then arena */
  size_t n_uncounted, cap_uncounted;
  nns__uncounted_row *uncounted;
  nns__map uncounted_index;   /* while analysing: op type -> row + 1 */
  uint32_t *uncounted_next;   /* while analysing: same op type, other row */
  /* Per model value (nns__value.index): true for initializers and their
   * Identity copies, which are parameters or constants, not activations. */
  bool *is_param_value;
  /* Per node of the model's node list (nns_analysis_node_counts), for the
   * subgraph nodes (a main-graph node's are in `nodes`): its own cost and
   * output bytes, and whether its rule counted it. NULL without
   * subgraphs. */
  nns_counts *node_counts;
  bool *node_counted;
  /* The model's metadata, decoded (meta.c) before the passes: module
   * types for scope.c, parameter kinds for params.c. */
  nns__meta meta;

  /* Live activation bytes after each main-graph node in running order
   * (a->order): the curve whose maximum is totals.peak_activation_bytes
   * (memory.c; saturated at INT64_MAX). */
  int64_t *live_bytes;
  size_t peak_position;       /* first position where the curve peaks */

  /* The inference it ran on, as the reports read it (a later
   * nns_model_infer changes the model's, not these): keep.c. */
  nns__arena types_arena;     /* vtypes and dims: filled beside the passes,
                                 perhaps on another thread */
  nns__vtype *vtypes;         /* per model value */
  nns__vdim *dims;
  size_t n_unknown;
  nns__unknown_op *unknown;   /* op types without a rule */
  size_t n_warnings;
  const char **warnings;      /* load, inference, then this analysis's */

  /* The roofline (roofline.c): set when the analysis names a device. */
  bool roofline;
  double roof_matrix_peak;    /* FLOP/s of the op table's matrix ops */
  double roof_other_peak;     /* FLOP/s of every other op */
  double roof_bandwidth;      /* bytes/s */
  /* A recorded training step's (train.c): the checkpoint plan (layers in
   * the order chosen) and the step's settings (interned; NULL without). */
  size_t n_plan;
  uint32_t *plan;
  int train_master;
  const char *train_recorded_on, *train_target, *train_loss;
  const char *train_forward_set; /* nns_train_step.forward_set, or NULL */
};

/* Node i of graph g in running order (a->order for the main graph). */
static inline const nns__node *nns__graph_node(const nns__analysis *a,
                                               const nns__graph *g,
                                               int32_t i) {
  if (g == a->main)
    return a->order[i];
  return g->order ? g->order[i] : &g->nodes[i];
}

/* ==== Passes ==== */

/* scope.c: builds a->layers (preorder) from the main graph's node names and
 * sets a->nodes[i].layer. Input and output values are set later by
 * nns__scope_io, once the parameter values are known, and types and op
 * lists by nns__scope_finish, once per-node counts are. */
nns_status nns__scope_build(nns_model *m, nns__analysis *a, nns_error *err);
/* Layer l's parent, (size_t)-1 for the root. */
static inline size_t nns__layer_up(const nns__analysis *a, size_t l) {
  uint32_t p = a->layers[l].info.parent;
  return p == NNS__NONE32 ? (size_t)-1 : p;
}
/* True when layer `anc` is `l` or one of its ancestors. */
static inline bool nns__layer_contains(const nns__analysis *a, uint32_t anc,
                                       uint32_t l) {
  return anc <= l && l < a->layers[anc].end;
}
/* The field of layer l's output (all zero when it has none). */
static inline const nns_rf *nns__layer_rf(const nns__analysis *a, size_t l) {
  static const nns_rf none; /* before rf.c has run */
  return a->layer_rfs ? &a->layer_rfs[a->layers[l].rf] : &none;
}
/* Each layer's input and output values (info.input_value, output_value).
 * It reads the model, a->order, the layers' tree and a->is_param_value,
 * and writes only those two fields of each layer, so that analyze.c may
 * run it on a thread of its own beside the cost passes (no pass reads
 * them before rf.c). False when out of memory. */
bool nns__scope_io(const nns_model *m, nns__analysis *a);
/* Layer types and op type lists. */
nns_status nns__scope_finish(nns_model *m, nns__analysis *a, nns_error *err);

/* custom.c: the MACs the caller gave for modules (nns_model_set_module_macs)
 * put in place of their layers' counted MACs, after sum_layers. */
void nns__custom_macs_apply(const nns_model *m, nns__analysis *a);

/* params.c: classifies initializers and their copies, fills a->params,
 * adds params/buffers/param_bytes to the counting nodes and SHARED flags to
 * the layers that use a parameter counted elsewhere (a->layers[].counts
 * flags), and fills the unique, constant and dtype totals.
 *
 * In two parts, as rf.c's: the walk over the nodes (which values are
 * parameter values, their roles, consumers and gradients) reads only the
 * model and a->order, and writes only a->is_param_value and the walk it
 * returns, so that analyze.c may run it on a thread of its own beside
 * nns__scope_build. nns__params_finish, once the layers are built, places
 * each value in its layer and does the rest; it frees the walk in every
 * case (NULL, or a walk that ran out of memory: NNS_E_NOMEM).
 * nns__params_walk_free frees one that is not finished (NULL a no-op). */
typedef struct nns__params_walk nns__params_walk;
nns__params_walk *nns__params_walk_nodes(const nns_model *m,
                                         nns__analysis *a);
void nns__params_walk_free(nns__params_walk *w);
nns_status nns__params_finish(nns_model *m, nns__analysis *a,
                              nns__params_walk *w, nns_error *err);
/* True when node n copies its only input unchanged (Identity, Dropout in
 * inference, a Reshape to the same shape): its cost rule is the view rule
 * and its output type is its input's. */
bool nns__node_is_copy(const nns__node *n);

/* memory.c: activation bytes of each node (into a->nodes[].counts), peak
 * activation memory and the training estimate (into a->totals). */
nns_status nns__memory_analyze(nns_model *m, nns__analysis *a,
                               nns_optimizer opt, nns_error *err);
/* train.c: a recorded training step's saved bytes per layer, its peak and
 * checkpoint plan (into a->layers[].counts and a->totals); nothing
 * without one (nns_model_set_train_step). */
nns_status nns__train_analyze(nns_model *m, nns__analysis *a,
                              nns_optimizer opt, nns_error *err);
/* train.c: the state `opt` keeps for one trainable parameter of `dtype`
 * with `elements` elements of `bytes` bytes (fp32 masters of a 16-bit one
 * with `master`). */
int64_t nns__optimizer_param_bytes(nns_optimizer opt, bool master, int dtype,
                                   int64_t elements, int64_t bytes);
/* parallel.c: one rank's figures for the model's parallel plan (into
 * a->per_rank, a->layer_per_rank); nothing without one. After the
 * totals and the training step are counted. */
nns_status nns__parallel_analyze(nns_model *m, nns__analysis *a,
                                 nns_optimizer opt, nns_error *err);
/* Bytes of one value (numel x dtype bits / 8, rounded up), symbols at 1;
 * -1 when its rank or dtype is unknown. *symbolic is set when a symbol was
 * taken as 1. */
int64_t nns__value_bytes(const nns_model *m, const nns__value *v,
                         bool *symbolic);
/* Makes a->vbytes (false when out of memory). */
bool nns__vbytes_start(nns__analysis *a);
/* nns__value_bytes of v, kept in a->vbytes while analysing. */
static inline int64_t nns__vbytes(const nns__analysis *a, const nns__value *v,
                                  bool *symbolic) {
  if (!a->vbytes || v->index >= a->model->n_values)
    return nns__value_bytes(a->model, v, symbolic);
  uint64_t *kept = &a->vbytes[v->index];
  bool *sym = &a->vbytes_symbolic[v->index];
  if (!*kept) {
    /* b >= -1: b + 2 >= 1, and INT64_MAX + 2 fits in 64 unsigned bits. */
    *kept = (uint64_t)nns__value_bytes(a->model, v, sym) + 2;
  }
  if (*sym)
    *symbolic = true;
  return (int64_t)(*kept - 2);
}

/* rf.c: receptive field of every value (nns__rf_walk_nodes), then of
 * every layer (its output value) and the model's (the last spatial field
 * on the path to the outputs).
 *
 * The walk over the nodes reads only the model and what scope_build and
 * the params walk left in `a` (a->order, a->is_param_value), and writes
 * only the walk it returns, so that analyze.c may run it on a thread of
 * its own beside the cost and memory passes. NULL, or a walk that ran
 * out of memory, makes nns__rf_analyze fail with NNS_E_NOMEM.
 * nns__rf_analyze frees the walk in every case; nns__rf_walk_free frees
 * one that is not analysed (NULL a no-op). */
typedef struct nns__rf_walk nns__rf_walk;
nns__rf_walk *nns__rf_walk_nodes(nns_model *m, const nns__analysis *a);
void nns__rf_walk_free(nns__rf_walk *w);
nns_status nns__rf_analyze(nns_model *m, nns__analysis *a, nns__rf_walk *w,
                           nns_error *err);

/* keep.c: what the analysis keeps of the inference. nns__keep_start
 * starts copying every value's type (on a second thread for a large
 * graph: it reads only the values' types, which no pass writes);
 * nns__keep_finish, called once on every path (on a zeroed nns__keep
 * never started, too: then it has nothing to give), waits for the copy and,
 * when `wanted` (the analysis succeeded), hands it to `a` with what the
 * passes may have changed meanwhile (constants, symbol names) and the op
 * types without a rule (`thread`: copy on a thread of its own, else at
 * nns__keep_finish). nns__keep_warnings moves the warnings the
 * analysis added to the model (warnings[from..]) into `a`, after copies
 * of the load's and inference's, and leaves the model's list as the
 * inference left it. */
typedef struct nns__keep {
  nns__job job;
  const nns_model *m;
  nns__arena arena;     /* vtypes and dims, until handed to the analysis */
  nns__vtype *vtypes;
  nns__vdim *dims;      /* symbols' names not yet filled */
  uint32_t *dim_syms;   /* per dim: its symbol id, 0 for a value */
  uint32_t n_dims;
  bool done;            /* the copy completed (false: out of memory) */
} nns__keep;
void nns__keep_start(nns__keep *k, const nns_model *m, bool thread);
nns_status nns__keep_finish(nns__keep *k, nns_model *m, nns__analysis *a,
                            bool wanted);
nns_status nns__keep_warnings(nns_model *m, nns__analysis *a, size_t from);

/* experts.c: params_active and weight_bytes_read of every layer (the
 * caller's mixture-of-experts layers, nns_model_set_experts) and the
 * key/value cache totals of a decoder step (docs/metrics.md). */
void nns__experts_analyze(const nns_model *m, nns__analysis *a);
/* routing.c: the experts of the mixture-of-experts layers a graph with
 * module paths routes among (a TopK over E of a module holding E experts),
 * for a model that declares none. paths and decls malloc'ed. */
typedef struct nns__routed_experts {
  size_t count;
  const char **paths;
  nns__experts_decl *decls;
} nns__routed_experts;
/* False when out of memory (*r then holds what was found). */
bool nns__experts_routed(const nns_model *m, const nns__analysis *a,
                         nns__routed_experts *r);
void nns__routed_experts_free(nns__routed_experts *r);
/* The saturating sum experts.c gives params_active from (no flag). */
static inline int64_t nns__sum_sat(int64_t a, int64_t b) {
  int64_t r;
  return nns__add_i64(a, b, &r) ? r : INT64_MAX;
}
/* roofline.c: the bytes node n (one without subgraphs) moves, into
 * c->bytes; an unknown size flags c->partial, a symbol c->symbolic. A
 * node in a kernel (nns__node.kernel_count) gets 0 here and its bytes
 * from nns__kernel_bytes. */
void nns__node_bytes(const nns__analysis *a, const nns__node *n,
                     nns__cost *c);
/* Whether n, costed into c, moves no data (a view, the view rule, every
 * output folded), and whether it is a view or took the view rule. */
bool nns__moves_nothing(const nns__node *n, const nns__cost *c);
bool nns__is_view(const nns__node *n, const nns__cost *c);
/* The bytes of the main-graph nodes that run in kernels: those crossing
 * each kernel's boundary, into a->nodes[].counts (after the costs, before
 * nns__roofline_nodes). NNS_E_NOMEM when out of memory. */
nns_status nns__kernel_bytes(nns_model *m, nns__analysis *a);
/* Device figures (a peak in FLOP/s, a bandwidth in bytes/s) are finite
 * and between these, from a file, a CLI option or the C and Python APIs
 * alike: 1e6 (a slow microcontroller) to 1e21 (far past any device), so
 * that every time nnscan derives is a finite, printable number. 0 in a
 * device's peak means "no peak for that dtype". */
#define NNS__HW_FIGURE_MIN 1e6
#define NNS__HW_FIGURE_MAX 1e21
#define NNS__HW_FIGURE_RANGE "1e6 to 1e21"
/* Whether v is a device figure (finite, in the range above). */
bool nns__hw_figure_ok(double v);

/* Checks the device and the compute dtype and keeps them (a->roofline,
 * a->totals.hardware); nothing when hw is NULL. After params.c (it reads
 * the parameters' dtypes). */
nns_status nns__roofline_setup(nns_model *m, nns__analysis *a,
                               const nns_hardware *hw, const char *dtype,
                               nns_error *err);
/* Each node's time and bound with a device (a->node_times), intensity and
 * bound of the subgraph nodes' rows (before the sums over layers). */
void nns__roofline_nodes(nns_model *m, nns__analysis *a);
/* Intensity and bound of the summed rows: op types and the model (a
 * layer's are worked out when read, nns__layer_counts). */
void nns__roofline_finish(nns__analysis *a);
/* Intensity and bound of one row from its flops, bytes and times. */
void nns__counts_finish(const nns__analysis *a, nns_counts *k);

/* attention.c: the one value every element of n's output holds, when n
 * is a fill (NNS__ATTN_FILL: ConstantOfShape) whose value is readable
 * without folding; false otherwise. */
bool nns__attention_fill(const nns__node *n, double *value);
/* attention.c: macs_unmasked / flops_unmasked of the attention products
 * whose mask is known (a->nodes[].counts, after the costs); the token
 * count of nns_totals (after). */
void nns__attention_unmasked(nns_model *m, nns__analysis *a);
/* The backward's attention products over the pairs the forward analysis
 * `fwd` counted (nns_analyze_options.forward). */
void nns__attention_backward(nns__analysis *a, const nns__analysis *fwd);
/* One warning per attention counted dense for want of its mask's contents
 * (after the analysis' threads are joined: it adds to m's warnings). */
void nns__attention_warn(nns_model *m, const nns__analysis *a);
int64_t nns__tokens(const nns_model *m, const nns__analysis *a);

/* counts.c: saturating sum of counts into *dst (flags OR-ed), for the
 * driver and every pass, and the nodes' compact rows. The passes call nothing in analyze.c: the driver
 * calls them, not the other way round. */
void nns__counts_add(nns_counts *dst, const nns_counts *src);
/* The public row of main-graph node i (its nns__anode and what is kept
 * beside it), as nns_analysis_node_counts gives it. */
void nns__node_counts(const nns__analysis *a, size_t i, nns_counts *out);
/* The public row of layer l (its sums and what is kept beside them). */
void nns__layer_counts(const nns__analysis *a, size_t l, nns_counts *out);
/* Adds main-graph node i's row into layer l's sums (and times). */
void nns__layer_add_node(nns__analysis *a, size_t l, size_t i);
/* Adds layer `from`'s sums (and times) into layer `to`'s. */
void nns__layer_add_layer(nns__analysis *a, size_t to, size_t from);
/* nns__counts_add of node i's row without its SHARED flag (the op type
 * sums), without building the row. */
void nns__counts_add_node(nns_counts *dst, const nns__analysis *a, size_t i);
/* Node i's nns__anode_more, made (zeroed) on first use; NULL and
 * a->nomem set when out of memory. Valid until the next call. */
nns__anode_more *nns__node_more(nns__analysis *a, size_t i);

/* nns_train_step.forward_set of the analysed step, or NULL (the reports,
 * src/report/train.c). */
const char *nns__train_forward_set(const nns_analysis *a);

#endif
