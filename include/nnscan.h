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

typedef struct nns_infer_options {
  unsigned flags;               /* NNS_INFER_* */
  int64_t batch;                /* > 0: first dim of every graph input */
  const nns_input_shape *inputs;
  size_t input_count;
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

/* ==== Operator table ==== */

typedef struct nns_op_info {
  const char *domain;   /* "" for the default ONNX domain */
  const char *name;
  int since_version;    /* first opset this entry covers */
  int until_version;    /* last opset this entry covers */
  int has_shape_rule;
  int has_fold;         /* evaluates constant inputs during inference */
} nns_op_info;

NNS_API size_t nns_op_count(void);
NNS_API void nns_op_get(size_t i, nns_op_info *out);

#ifdef __cplusplus
}
#endif
#endif /* NNSCAN_H */
