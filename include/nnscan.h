/*
 * nnscan.h - the one public header of libnnscan.
 *
 * libnnscan reads an ONNX model without copying it, builds its graph and
 * infers the dtype and shape of every value in it. Everything the `nnscan`
 * command-line tool can do goes through the functions declared here, so a C
 * program or a language binding can do the same.
 *
 * Conventions:
 *   - every symbol starts with nns_ / NNS_;
 *   - handles are opaque; each create has a free, and freeing NULL is a no-op;
 *   - functions that can fail return an nns_status and, when the caller
 *     passes a non-NULL nns_error, fill it with what went wrong and where;
 *   - the library never prints, aborts or exits, and keeps no global state:
 *     separate models may be used from separate threads at once.
 */
#ifndef NNSCAN_H
#define NNSCAN_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ==== Version ==== */

#define NNS_VERSION_MAJOR 0
#define NNS_VERSION_MINOR 1
#define NNS_VERSION_PATCH 0
#define NNS_VERSION_HEX                                                        \
  ((NNS_VERSION_MAJOR << 16) | (NNS_VERSION_MINOR << 8) | NNS_VERSION_PATCH)
#define NNS_VERSION_STRING "0.1.0"

#if defined(_WIN32)
#define NNS_API
#elif defined(__GNUC__)
#define NNS_API __attribute__((visibility("default")))
#else
#define NNS_API
#endif

/* The version of the library actually linked, as "MAJOR.MINOR.PATCH". */
NNS_API const char *nns_version(void);

/* ==== Status codes ==== */

/*
 * One list gives every status its enum name, number and message; see
 * nns_status_name() and nns_status_message().
 */
#define NNS_STATUS_MAP(X)                                                      \
  X(OK, 0, "success")                                                          \
  X(E_ARG, 1, "invalid argument")                                              \
  X(E_NOMEM, 2, "out of memory")                                               \
  X(E_IO, 3, "cannot read file")                                               \
  X(E_TRUNCATED, 4, "data ends inside a field")                                \
  X(E_VARINT, 5, "malformed varint")                                           \
  X(E_WIRETYPE, 6, "wrong or invalid protobuf wire type")                      \
  X(E_LENGTH, 7, "length runs past the end of its message")                    \
  X(E_DEPTH, 8, "messages nested too deep")                                    \
  X(E_LIMIT, 9, "count, dimension or size beyond any sane limit")              \
  X(E_MODEL, 10, "invalid model structure")                                    \
  X(E_DANGLING, 11, "input that no node, initializer or graph input provides") \
  X(E_CYCLE, 12, "graph has a cycle")                                          \
  X(E_SHAPE, 13, "inconsistent shapes")                                        \
  X(E_ATTR, 14, "invalid attribute")                                           \
  X(E_TYPE, 15, "inconsistent element types")                                  \
  X(E_EXTERNAL, 16, "invalid external data reference")                         \
  X(E_STATE, 17, "call out of order")                                          \
  X(E_NOTFOUND, 18, "no such name")

typedef enum nns_status {
#define NNS_STATUS_ENUM_(name, num, msg) NNS_##name = num,
  NNS_STATUS_MAP(NNS_STATUS_ENUM_)
#undef NNS_STATUS_ENUM_
} nns_status;

/* "NNS_E_TRUNCATED" for NNS_E_TRUNCATED; "NNS_E_UNKNOWN" for others. */
NNS_API const char *nns_status_name(nns_status status);
/* A one-line description of the status itself (not of one occurrence). */
NNS_API const char *nns_status_message(nns_status status);

/*
 * What went wrong and where. Pass NULL wherever an nns_error * is taken if
 * the status alone is enough.
 */
typedef struct nns_error {
  nns_status code;    /* same as the returned status */
  int64_t offset;     /* byte offset in the model file, or -1 */
  char node[128];     /* name (or op type) of the node concerned, or "" */
  char message[512];  /* full sentence: what, and where */
} nns_error;

/* ==== Element types ==== */

/* ONNX TensorProto.DataType numbers. */
typedef enum nns_dtype {
  NNS_DT_UNDEFINED = 0,
  NNS_DT_FLOAT = 1,
  NNS_DT_UINT8 = 2,
  NNS_DT_INT8 = 3,
  NNS_DT_UINT16 = 4,
  NNS_DT_INT16 = 5,
  NNS_DT_INT32 = 6,
  NNS_DT_INT64 = 7,
  NNS_DT_STRING = 8,
  NNS_DT_BOOL = 9,
  NNS_DT_FLOAT16 = 10,
  NNS_DT_DOUBLE = 11,
  NNS_DT_UINT32 = 12,
  NNS_DT_UINT64 = 13,
  NNS_DT_COMPLEX64 = 14,
  NNS_DT_COMPLEX128 = 15,
  NNS_DT_BFLOAT16 = 16,
  NNS_DT_FLOAT8E4M3FN = 17,
  NNS_DT_FLOAT8E4M3FNUZ = 18,
  NNS_DT_FLOAT8E5M2 = 19,
  NNS_DT_FLOAT8E5M2FNUZ = 20,
  NNS_DT_UINT4 = 21,
  NNS_DT_INT4 = 22
} nns_dtype;

/* "float32", "int64", "bfloat16", ...; "unknown" for 0 or an unknown number. */
NNS_API const char *nns_dtype_name(int dtype);
/* Size of one element in bits (4 for int4, 8 for bool); 0 if unknown/string. */
NNS_API int nns_dtype_bits(int dtype);

/* ==== Loading ==== */

typedef struct nns_model nns_model;

typedef struct nns_load_options {
  /* Folder that external-data `location`s are relative to. NULL: the
   * model file's folder (for nns_model_load_memory: the current folder). */
  const char *external_dir;
  /* Deepest allowed message nesting; 0 means the default (64). */
  int max_depth;
} nns_load_options;

/*
 * Maps the file and decodes the model in place. Weights are not read.
 * opts may be NULL. On failure *out is NULL and err says what and where.
 */
NNS_API nns_status nns_model_load_file(const char *path,
                                       const nns_load_options *opts,
                                       nns_model **out, nns_error *err);

/*
 * Decodes a model held in the caller's buffer. The buffer must stay valid
 * and unchanged until nns_model_free(): names and tensor bytes point into it.
 */
NNS_API nns_status nns_model_load_memory(const void *data, size_t size,
                                         const nns_load_options *opts,
                                         nns_model **out, nns_error *err);

NNS_API void nns_model_free(nns_model *model);

/* ==== Shape inference ==== */

/* A user-fixed input shape: dims for the graph input called `name`. */
typedef struct nns_input_shape {
  const char *name;
  const int64_t *dims;
  size_t rank;
} nns_input_shape;

enum {
  /* For an op nnscan does not know, take output shapes the model declares
   * (value_info, graph outputs) instead of leaving them unknown. */
  NNS_INFER_FALLBACK_DECLARED = 1u << 0
};

/*
 * A graph input's contents, for the scalars and small integer tensors that
 * control flow and shape arithmetic depend on (a sample rate an If compares
 * with a constant, a sequence length): `count` values, row-major. The
 * input keeps its declared shape when `count` fits it (a scalar, or one
 * unknown dim, which becomes `count`), else it fails with NNS_E_SHAPE.
 * Values of a floating-point input are converted.
 */
typedef struct nns_input_value {
  const char *name;             /* a graph input of the main graph */
  const int64_t *data;
  size_t count;
} nns_input_value;

typedef struct nns_infer_options {
  unsigned flags;               /* NNS_INFER_* */
  int64_t batch;                /* > 0: first dim of every graph input */
  /* Input shapes. `name` may also be the name of a symbolic dim of a graph
   * input (a dim_param such as "batch", or the name nnscan gives an
   * unnamed dim: "<input>_dim<axis>") with rank 1: that dim is set to
   * dims[0] wherever it appears. */
  const nns_input_shape *inputs;
  size_t input_count;
  const nns_input_value *values; /* graph inputs' contents (may be NULL) */
  size_t value_count;
} nns_infer_options;

/*
 * Infers the dtype and shape of every value, subgraphs included. opts may be
 * NULL. May be called again with other options; each call starts afresh.
 */
NNS_API nns_status nns_model_infer(nns_model *model,
                                   const nns_infer_options *opts,
                                   nns_error *err);

/* ==== Model information ==== */

typedef struct nns_model_info {
  int64_t ir_version;
  const char *producer_name;    /* "" if absent */
  const char *producer_version;
  const char *domain;
  int64_t model_version;
  const char *graph_name;
  size_t node_count;            /* main graph */
  size_t subgraph_node_count;   /* all nested subgraphs */
  size_t function_count;        /* model-local functions */
} nns_model_info;

NNS_API void nns_model_get_info(const nns_model *model, nns_model_info *out);

NNS_API size_t nns_model_opset_count(const nns_model *model);
/* Domain "" is the default ONNX domain. */
NNS_API void nns_model_opset(const nns_model *model, size_t i,
                             const char **domain, int64_t *version);

NNS_API size_t nns_model_metadata_count(const nns_model *model);
NNS_API void nns_model_metadata(const nns_model *model, size_t i,
                                const char **key, const char **value);

/* ==== Values ==== */

typedef enum nns_type_kind {
  NNS_KIND_UNKNOWN = 0,
  NNS_KIND_TENSOR = 1,
  NNS_KIND_SEQUENCE = 2, /* dtype and dims describe the elements */
  NNS_KIND_OPTIONAL = 3, /* dtype and dims describe the contained tensor */
  NNS_KIND_MAP = 4,
  NNS_KIND_SPARSE = 5
} nns_type_kind;

typedef enum nns_value_role {
  NNS_ROLE_INTERMEDIATE = 0,
  NNS_ROLE_INPUT = 1,
  NNS_ROLE_OUTPUT = 2,
  NNS_ROLE_INITIALIZER = 3
} nns_value_role;

/* One dimension: a number, or a symbol. */
typedef struct nns_dim {
  int64_t value;      /* >= 0 when known, -1 otherwise */
  const char *symbol; /* name of an unknown dim ("batch"), NULL if unnamed */
} nns_dim;

typedef struct nns_value_info {
  const char *name;
  int dtype;            /* nns_dtype, 0 when unknown */
  nns_type_kind kind;
  nns_value_role role;  /* role in its own graph */
  int rank;             /* -1 when the rank is unknown */
  int graph_depth;      /* 0 main graph, 1 a subgraph of it, ... */
  int has_constant;     /* its value is known (initializer or folded) */
} nns_value_info;

/*
 * Values in graph order: for each graph, inputs, initializers, then node
 * outputs in node order; a subgraph's values follow the node that owns it.
 */
NNS_API size_t nns_model_value_count(const nns_model *model);
NNS_API void nns_model_value(const nns_model *model, size_t i,
                             nns_value_info *out);
NNS_API nns_dim nns_model_value_dim(const nns_model *model, size_t i,
                                    int axis);
/* Index of the value called `name` in the main graph, or (size_t)-1. */
NNS_API size_t nns_model_find_value(const nns_model *model, const char *name);

/* The main graph's inputs (initializers excluded) and outputs, as indexes
 * into the value list. */
NNS_API size_t nns_model_input_count(const nns_model *model);
NNS_API size_t nns_model_input(const nns_model *model, size_t i);
NNS_API size_t nns_model_output_count(const nns_model *model);
NNS_API size_t nns_model_output(const nns_model *model, size_t i);

/* ==== Diagnostics ==== */

/* Op types that have no rule in nnscan (after nns_model_infer), with how
 * many nodes use them. */
NNS_API size_t nns_model_unknown_op_count(const nns_model *model);
NNS_API void nns_model_unknown_op(const nns_model *model, size_t i,
                                  const char **domain, const char **op_type,
                                  size_t *node_count);

/* Warnings from loading and inference: full sentences. */
NNS_API size_t nns_model_warning_count(const nns_model *model);
NNS_API const char *nns_model_warning(const nns_model *model, size_t i);

/* ==== Analysis: parameters, costs, memory, receptive field ==== */

/*
 * nns_model_analyze() counts, for every node and every layer (scope) of the
 * module tree, parameters, FLOPs, MACs and memory accesses (DMAs), activation
 * memory and receptive field, as ../docs/metrics.md defines them. It runs on
 * the shapes of the last nns_model_infer(); a model never inferred is first
 * inferred with default options, and one whose last inference failed gives
 * NNS_E_STATE. A new nns_model_infer() discards the analysis. A count that
 * depends on a symbolic dim is evaluated with the symbol at 1 and flagged
 * NNS_COUNT_SYMBOLIC; a total that misses an op without a cost rule is
 * flagged NNS_COUNT_PARTIAL (a lower bound).
 */

typedef enum nns_optimizer {
  NNS_OPTIMIZER_SGD = 0,      /* no optimizer state */
  NNS_OPTIMIZER_MOMENTUM = 1, /* one buffer per trainable element */
  NNS_OPTIMIZER_ADAM = 2      /* two buffers per trainable element */
} nns_optimizer;

typedef struct nns_analyze_options {
  nns_optimizer optimizer;    /* for the training estimate */
} nns_analyze_options;

NNS_API nns_status nns_model_analyze(nns_model *model,
                                     const nns_analyze_options *opts,
                                     nns_error *err);

enum {
  NNS_COUNT_PARTIAL = 1u << 0,  /* some node had no cost rule: lower bound */
  NNS_COUNT_SYMBOLIC = 1u << 1, /* a symbolic dim was taken as 1 */
  NNS_COUNT_SHARED = 1u << 2,   /* uses a parameter counted elsewhere */
  NNS_COUNT_UNBOUNDED = 1u << 3, /* a loop whose trip count is unknown was
                                    counted once */
  NNS_COUNT_OVERFLOW = 1u << 4   /* a count passed INT64_MAX: saturated */
};

/* Counts over a node, a layer's subtree, an op type or the whole model. */
typedef struct nns_counts {
  int64_t params;           /* trainable parameter elements (logical) */
  int64_t buffers;          /* non-trainable state elements (BN stats) */
  int64_t param_bytes;      /* bytes of params + buffers */
  int64_t flops;            /* floating-point operations */
  int64_t macs;             /* multiply-accumulates */
  int64_t dmas;             /* memory accesses, in elements */
  int64_t activation_bytes; /* bytes of the outputs of its nodes */
  int64_t nodes;            /* nodes counted */
  unsigned flags;           /* NNS_COUNT_* */
} nns_counts;

/* Receptive field per spatial axis (see docs/metrics.md). */
enum { NNS_RF_MAX_AXES = 3 };
typedef struct nns_rf {
  int axes;                       /* 0: no spatial axes (or not known) */
  int whole;                      /* sees the whole input (global/dense) */
  int64_t field[NNS_RF_MAX_AXES]; /* receptive field, input pixels */
  int64_t stride[NNS_RF_MAX_AXES];  /* effective stride (jump) */
  int64_t padding[NNS_RF_MAX_AXES]; /* effective padding */
} nns_rf;

typedef struct nns_totals {
  nns_counts all;                /* the whole model */
  int64_t params_unique;         /* parameters + buffers by distinct storage */
  int64_t param_bytes_unique;
  int64_t constants;             /* elements of constant initializers */
  int64_t peak_activation_bytes; /* largest live activation total */
  const char *peak_node;         /* node after which the peak is reached */
  int64_t input_bytes;           /* graph inputs */
  /* Training estimate (an estimate, labelled as one). */
  nns_optimizer optimizer;
  int64_t train_param_bytes;     /* parameters + buffers */
  int64_t train_grad_bytes;      /* one gradient per trainable element */
  int64_t train_optimizer_bytes; /* optimizer state */
  int64_t train_activation_bytes;/* every intermediate kept for backward */
  int64_t train_total_bytes;
  nns_rf rf;                     /* largest finite field over all layers */
} nns_totals;

NNS_API void nns_model_totals(const nns_model *model, nns_totals *out);

/* Parameter and buffer storage by dtype. */
NNS_API size_t nns_model_param_dtype_count(const nns_model *model);
NNS_API void nns_model_param_dtype(const nns_model *model, size_t i,
                                  int *dtype, int64_t *elements,
                                  int64_t *bytes);

/* Totals per op type, in first-seen order. counted is 0 for op types
 * without a cost rule (their nodes add nothing but are listed). */
NNS_API size_t nns_model_op_type_count(const nns_model *model);
NNS_API void nns_model_op_type(const nns_model *model, size_t i,
                               const char **domain, const char **op_type,
                               int *counted, nns_counts *counts);

/* ---- Parameters ---- */

typedef enum nns_param_kind {
  NNS_PARAM_TRAINABLE = 0, /* weights, biases, embeddings, ... */
  NNS_PARAM_BUFFER = 1,    /* non-trainable state: BN running mean/var */
  NNS_PARAM_CONSTANT = 2   /* shapes, axes, indices, scalars: not counted */
} nns_param_kind;

typedef struct nns_param_info {
  const char *name;        /* the value's name (an initializer or a copy) */
  const char *storage;     /* the initializer holding its data */
  nns_param_kind kind;
  int dtype;
  int64_t elements;
  int64_t bytes;
  size_t layer;            /* layer that counts it */
  int shared;              /* also used by other layers (tied) */
  int is_copy;             /* an Identity copy of another initializer */
} nns_param_info;

NNS_API size_t nns_model_param_count(const nns_model *model);
NNS_API void nns_model_param(const nns_model *model, size_t i,
                             nns_param_info *out);

/* ---- Layers: the module tree ---- */

/*
 * The module tree from node names (/layer1/layer1.0/conv1/Conv), in
 * preorder; layer 0 is the model itself. A layer's counts cover its whole
 * subtree; cutting the tree at a depth is a matter of skipping the rows
 * below it.
 */
typedef struct nns_layer_info {
  const char *name;          /* last path component; "" for the root */
  const char *path;          /* dotted module path ("layer1.0.conv1") */
  int depth;                 /* 0 for the root */
  size_t parent;             /* (size_t)-1 for the root */
  size_t child_count;
  const char *type;          /* op type, module class, or op summary */
  const char *op_types;      /* distinct op types, comma-separated */
  size_t input_value;        /* value index of its first input, or -1 */
  size_t output_value;       /* value index of its output, or -1 */
  nns_counts counts;         /* over the subtree */
  nns_rf rf;                 /* of its output */
} nns_layer_info;

NNS_API size_t nns_model_layer_count(const nns_model *model);
NNS_API void nns_model_layer(const nns_model *model, size_t i,
                             nns_layer_info *out);

/* The module class of layer i as the model states it, in full
 * ("torchvision.models.resnet.BasicBlock": node metadata
 * pkg.torch.onnx.class_hierarchy, or nnscan.module_types), or NULL when
 * the model names none (the layer's `type` is then an op summary). The
 * layer's `type` holds its short form ("BasicBlock"). */
NNS_API const char *nns_model_layer_class(const nns_model *model, size_t i);

/* The If nodes of the main graph and the branch each one's costs follow:
 * *then_branch is 1 for then_branch, 0 for else_branch; *known is 1 when
 * the condition was known (folded, e.g. from nns_infer_options.values),
 * 0 when it was not and the larger branch was counted. *node is the node's
 * name, or its layer's when it has none. Both branches' weights always
 * count as parameters. */
NNS_API size_t nns_model_branch_count(const nns_model *model);
NNS_API void nns_model_branch(const nns_model *model, size_t i,
                              const char **node, int *then_branch,
                              int *known);

/* Op types with no cost rule, and how many nodes each has. */
NNS_API size_t nns_model_uncounted_op_count(const nns_model *model);
NNS_API void nns_model_uncounted_op(const nns_model *model, size_t i,
                                    const char **domain, const char **op_type,
                                    size_t *node_count);

/* ---- Custom operators (thop's custom_ops) ---- */

/* The view of one node a custom rule gets. */
typedef struct nns_op_ctx nns_op_ctx;

NNS_API size_t nns_op_ctx_input_count(const nns_op_ctx *cx);
NNS_API size_t nns_op_ctx_output_count(const nns_op_ctx *cx);
/* dtype 0 / rank -1 when unknown or absent. */
NNS_API int nns_op_ctx_input_dtype(const nns_op_ctx *cx, size_t i);
NNS_API int nns_op_ctx_input_rank(const nns_op_ctx *cx, size_t i);
NNS_API nns_dim nns_op_ctx_input_dim(const nns_op_ctx *cx, size_t i,
                                     int axis);
NNS_API int nns_op_ctx_output_rank(const nns_op_ctx *cx, size_t i);
NNS_API nns_dim nns_op_ctx_output_dim(const nns_op_ctx *cx, size_t i,
                                      int axis);
/* The node's attribute, or `def` when absent. */
NNS_API int64_t nns_op_ctx_attr_int(const nns_op_ctx *cx, const char *name,
                                    int64_t def);
NNS_API double nns_op_ctx_attr_float(const nns_op_ctx *cx, const char *name,
                                     double def);
/* Sets output i: dims[k] < 0 means unknown. */
NNS_API nns_status nns_op_ctx_set_output(nns_op_ctx *cx, size_t i, int dtype,
                                         int rank, const int64_t *dims);

typedef nns_status (*nns_shape_fn)(void *user, nns_op_ctx *cx);
typedef nns_status (*nns_cost_fn)(void *user, const nns_op_ctx *cx,
                                  int64_t *flops, int64_t *macs,
                                  int64_t *dmas);

/*
 * Supplies rules for (domain, op_type) in this model, before inference. A
 * registered rule takes precedence over the built-in table. shape or cost
 * may be NULL. `user` is passed back to the callbacks.
 */
NNS_API nns_status nns_model_register_op(nns_model *model, const char *domain,
                                         const char *op_type,
                                         nns_shape_fn shape, nns_cost_fn cost,
                                         void *user, nns_error *err);

/* ==== Reports ==== */

/*
 * Renderers of an analysis (call nns_model_analyze() first): the tree table
 * people read, CSV, Markdown, and the JSON contract scripts parse
 * ("nnscan.summary", documented in docs/json.md). The library never prints:
 * every report goes through the caller's write callback, in pieces.
 *
 *   nns_report_options o = {.format = NNS_FORMAT_TEXT,
 *                           .columns = NNS_COL_PARAMS | NNS_COL_MACS};
 *   nns_report(model, &o, nns_write_stdio, stdout, &err);
 */

/* Receives the next `size` bytes of a report; returns 0 to go on, anything
 * else to stop (the report then fails with NNS_E_IO). */
typedef int (*nns_write_fn)(void *user, const char *data, size_t size);

/* A ready-made nns_write_fn: `file` is a FILE * (stdout, an fopen'ed file). */
NNS_API int nns_write_stdio(void *file, const char *data, size_t size);

typedef enum nns_report_format {
  NNS_FORMAT_TEXT = 0, /* the tree table with its footer */
  NNS_FORMAT_CSV = 1,  /* one row per layer, with path and depth */
  NNS_FORMAT_MD = 2,   /* a Markdown table, one row per layer */
  NNS_FORMAT_JSON = 3  /* the machine contract: everything, unformatted */
} nns_report_format;

typedef enum nns_numbers {
  NNS_NUMBERS_RAW = 0,    /* 1824010216 (text and md: 1,824,010,216) */
  NNS_NUMBERS_CLEVER = 1, /* 1.82 G; bytes in IEC units: 44.6 MiB */
  NNS_NUMBERS_RATIO = 2   /* percentage of the column's total: 12.34% */
} nns_numbers;

/* Where a name too long for its column loses characters (to a "…"). */
typedef enum nns_wrap {
  NNS_WRAP_MIDDLE = 0, /* layer1.0.…conv1 */
  NNS_WRAP_START = 1,  /* …0.downsample.0 */
  NNS_WRAP_END = 2     /* layer1.0.downs… */
} nns_wrap;

/* Numeric columns of the layer table. Layer, Type and Output Shape are
 * always shown. NNS_COL_RF is three columns (RF, Stride, Pad); NNS_COL_PCT is
 * two (% of the total params and of the total MACs). */
enum {
  NNS_COL_PARAMS = 1u << 0,  /* Param #: trainable parameters */
  NNS_COL_BUFFERS = 1u << 1, /* Buffers: non-trainable state (BN stats) */
  NNS_COL_FLOPS = 1u << 2,
  NNS_COL_MACS = 1u << 3,
  NNS_COL_DMAS = 1u << 4,
  NNS_COL_RF = 1u << 5,      /* receptive field, effective stride, padding */
  NNS_COL_ACT = 1u << 6,     /* activation memory: bytes of the outputs */
  NNS_COL_PCT = 1u << 7,     /* % of the total params and MACs */
  NNS_COL_DEFAULT = NNS_COL_PARAMS,
  NNS_COL_ALL = 0xffu
};

/* max_depth values with a meaning of their own. */
enum {
  NNS_DEPTH_DEFAULT = 0, /* 2 for text and md; every depth for csv and json */
  NNS_DEPTH_ALL = -1     /* every layer */
};

typedef struct nns_report_options {
  nns_report_format format;
  nns_numbers numbers;    /* text, csv and md; JSON numbers are always raw */
  int max_depth;          /* deepest layer shown (1: the model's children);
                             deeper layers are counted in their ancestor */
  unsigned columns;       /* NNS_COL_* set; 0 means NNS_COL_DEFAULT */
  int width;              /* text: width in terminal columns; 0 means 100 */
  nns_wrap wrap;          /* text: how long names are shortened */
  const char *model_name; /* the root row's name; NULL: the graph's name */
  const char *model_path; /* recorded in the JSON; may be NULL */
} nns_report_options;

/*
 * Writes the report of an analysed model through `write`. opts may be NULL
 * (text, default columns and depth). NNS_E_STATE if the model was not
 * analysed, NNS_E_IO if `write` asked to stop.
 */
NNS_API nns_status nns_report(const nns_model *model,
                              const nns_report_options *opts,
                              nns_write_fn write, void *user, nns_error *err);

/*
 * Copies src (NULL: "") into dst as text safe to print on a terminal: C0
 * and C1 control characters and DEL become '?', bytes that are not UTF-8
 * become U+FFFD, and the result is cut at a character boundary to fit
 * `size` bytes (NUL included). Returns the length written. The text, CSV
 * and Markdown reports clean every name from the model this way; use it
 * for names you print yourself (nns_model_value(), warnings, errors).
 */
NNS_API size_t nns_text_clean(char *dst, size_t size, const char *src);

/* One model of a comparison table: its name and its totals
 * (nns_model_totals). The model itself may be freed already. */
typedef struct nns_table_row {
  const char *name;   /* shown in the Model column and on the plot */
  nns_totals totals;  /* peak_node is not used */
} nns_table_row;

/*
 * One row per model: Model, Params (M), FLOPs (G), MACs (G), DMAs (G), RF.
 * opts->format is NNS_FORMAT_MD, NNS_FORMAT_CSV or NNS_FORMAT_TEXT (laid out
 * like md); other fields are not used. A partial count shows as "≥ x".
 */
NNS_API nns_status nns_report_table(const nns_table_row *rows, size_t count,
                                    const nns_report_options *opts,
                                    nns_write_fn write, void *user,
                                    nns_error *err);

/*
 * An SVG scatter plot of MACs (y) against parameters (x), one labelled
 * point per model; an axis whose values span more than a decade is
 * logarithmic (models with a zero count are then left off, and listed in
 * the SVG's <desc>).
 */
NNS_API nns_status nns_report_plot(const nns_table_row *rows, size_t count,
                                   nns_write_fn write, void *user,
                                   nns_error *err);

/* ==== Operator table ==== */

typedef struct nns_op_info {
  const char *domain;   /* "" for the default ONNX domain */
  const char *name;
  int since_version;    /* first opset this entry covers */
  int until_version;    /* last opset this entry covers */
  int has_shape_rule;
  int has_fold;         /* evaluates constant inputs during inference */
  int has_cost_rule;    /* FLOPs, MACs, DMAs */
  int has_rf_rule;      /* receptive field of a sliding window */
  const char *roles;    /* input roles: a w b u c, last one repeats */
} nns_op_info;

NNS_API size_t nns_op_count(void);
NNS_API void nns_op_get(size_t i, nns_op_info *out);

#ifdef __cplusplus
}
#endif
#endif /* NNSCAN_H */
