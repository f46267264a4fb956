/*
 * nnscan.h - the one public header of libnnscan.
 *
 * libnnscan reads an ONNX model without copying it (or takes a graph from
 * the builder, for a binding that recorded one itself), builds its graph,
 * infers the dtype and shape of every value in it, and counts parameters,
 * FLOPs, MACs, memory accesses, activation memory and receptive fields per
 * node, per layer of the module tree and in total. Everything the `nnscan`
 * command-line tool can do goes through the functions declared here, so a C
 * program or a language binding can do the same.
 *
 * ---- Conventions ----
 *   - Every symbol starts with nns_ / NNS_. Handles are opaque; each create
 *     has a free, and freeing NULL is a no-op.
 *   - Functions that can fail return an nns_status and, when the caller
 *     passes a non-NULL nns_error, fill it with what went wrong and where.
 *   - Every accessor checks its arguments: a NULL handle, a NULL out
 *     pointer, an index out of range or a struct `size` too small gives
 *     NNS_E_ARG; a call in the wrong order (the shapes report of a model
 *     never inferred) gives NNS_E_STATE. Functions that return a count
 *     return 0 for a NULL handle.
 *     On any error the out struct is left as the caller gave it.
 *   - The library never prints, aborts or exits, and keeps no global state.
 *
 * ---- Ownership and lifetime of returned pointers ----
 *   Strings and arrays the library hands out belong to the library; never
 *   free them. How long they stay valid depends on what they describe:
 *   - MODEL data (names of values and nodes, op types, domains, producer,
 *     metadata, opsets): until nns_model_free().
 *   - INFERENCE results (dtypes, ranks, dims and their symbol names, unknown
 *     ops, warnings): until the next nns_model_infer() or nns_model_free().
 *     A new inference frees what the previous one held (re-running does not
 *     accumulate memory).
 *   - ANALYSIS results (everything read through an nns_analysis: totals,
 *     layers and their names/paths/types, parameters, op types, node counts
 *     and module paths, the memory curve, and the value types, unknown ops
 *     and warnings of the inference it counted): until nns_analysis_free()
 *     of that analysis. An analysis is an object of its own (like
 *     sqlite3_stmt beside sqlite3): nns_model_analyze() returns a new one
 *     each time, so several analyses of one model (batch 1 and batch 64)
 *     live side by side. It copies what it needs of the inference it ran
 *     on, so a later nns_model_infer() leaves it whole; it reads its
 *     model's structure (MODEL data), so free every analysis of a model
 *     before the model itself.
 *   Each function says which of the three its pointers are.
 *
 * ---- Threads ----
 *   Different models (and different builders, tables) may be used from
 *   different threads at once with no locking. On ONE model, any number of
 *   threads may call read-only functions (those taking `const nns_model *`
 *   or `const nns_analysis *`, the reports included) at the same time,
 *   provided no call that takes a non-const `nns_model *` (infer, analyze,
 *   set_module, set_param_kind, register_op, free) runs at the same time;
 *   the caller serialises those. An analysis is read-only once made:
 *   reading it needs no lock, but its model must outlive it.
 *   nns_version, nns_abi_version, nns_status_*, nns_dtype_* and nns_op_*
 *   may be called from any thread at any time.
 *   The loaders, nns_builder_finish, nns_model_analyze and nns_report may
 *   do part of their work (for a large graph: the second half of the
 *   nodes' decoding and of their links, the node list, the walks for the
 *   parameters and the receptive fields, the copy of the value types, the
 *   second half of a table's rows) on threads of their own, joined
 *   before they return; the caller's callbacks
 *   (nns_model_register_op, the write callback) run on the calling
 *   thread (docs/api.md, "Threads", lists them).
 *
 * ---- ABI policy ----
 *   NNS_ABI_VERSION (compiled in) and nns_abi_version() (the library
 *   linked) change only when an existing function changes its signature or
 *   meaning, an existing struct field moves or changes type, or something
 *   is removed. Growth does not change it: new functions, new enum values
 *   and flags, and new fields appended at the END of a struct that starts
 *   with `size_t size`. Such a struct is read or filled by the library only
 *   up to the caller's `size`: set it to sizeof(the struct) as your header
 *   knows it. A caller built against an older header (smaller size) gets
 *   the fields it knows; the library rejects a size smaller than the
 *   struct's first published version with NNS_E_ARG. Arrays of sized
 *   structs (nns_infer_options.inputs) are strided by their first
 *   element's size. nns_error is the one exception: it is frozen as it is
 *   and carries no size. A binding should check
 *   nns_abi_version() == the NNS_ABI_VERSION it was written for.
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

/* The ABI generation this header describes (see "ABI policy" above). */
#define NNS_ABI_VERSION 2

#if defined(_WIN32)
#define NNS_API
#elif defined(__GNUC__)
#define NNS_API __attribute__((visibility("default")))
#else
#define NNS_API
#endif

/* The version of the library actually linked, as "MAJOR.MINOR.PATCH".
 * Static string. */
NNS_API const char *nns_version(void);
/* The ABI generation of the library actually linked (NNS_ABI_VERSION of
 * the header it was built with). */
NNS_API int nns_abi_version(void);

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
  X(E_NOTFOUND, 18, "no such name")                                            \
  X(E_JSON, 19, "malformed JSON document")

typedef enum nns_status {
#define NNS_STATUS_ENUM_(name, num, msg) NNS_##name = num,
  NNS_STATUS_MAP(NNS_STATUS_ENUM_)
#undef NNS_STATUS_ENUM_
} nns_status;

/* "NNS_E_TRUNCATED" for NNS_E_TRUNCATED; "NNS_E_UNKNOWN" for others.
 * Static string. */
NNS_API const char *nns_status_name(nns_status status);
/* A one-line description of the status itself (not of one occurrence).
 * Static string. */
NNS_API const char *nns_status_message(nns_status status);

/*
 * What went wrong and where. Pass NULL wherever an nns_error * is taken if
 * the status alone is enough. Frozen layout (no size field, never grows).
 */
typedef struct nns_error {
  nns_status code;    /* same as the returned status */
  int64_t offset;     /* byte offset in the model file, or -1 */
  char node[128];     /* name (or op type) of the node concerned, or "" */
  char message[512];  /* full sentence: what, and where */
} nns_error;

/* ==== Element types ==== */

/*
 * ONNX TensorProto.DataType numbers. One list gives every element type its
 * enum name, number and the name nns_dtype_name() returns (PyTorch's name
 * where PyTorch has the type, as the Python package maps by it).
 */
#define NNS_DTYPE_MAP(X)                                                       \
  X(UNDEFINED, 0, "unknown")                                                   \
  X(FLOAT, 1, "float32")                                                       \
  X(UINT8, 2, "uint8")                                                         \
  X(INT8, 3, "int8")                                                           \
  X(UINT16, 4, "uint16")                                                       \
  X(INT16, 5, "int16")                                                         \
  X(INT32, 6, "int32")                                                         \
  X(INT64, 7, "int64")                                                         \
  X(STRING, 8, "string")                                                       \
  X(BOOL, 9, "bool")                                                           \
  X(FLOAT16, 10, "float16")                                                    \
  X(DOUBLE, 11, "float64")                                                     \
  X(UINT32, 12, "uint32")                                                      \
  X(UINT64, 13, "uint64")                                                      \
  X(COMPLEX64, 14, "complex64")                                                \
  X(COMPLEX128, 15, "complex128")                                              \
  X(BFLOAT16, 16, "bfloat16")                                                  \
  X(FLOAT8E4M3FN, 17, "float8e4m3fn")                                          \
  X(FLOAT8E4M3FNUZ, 18, "float8e4m3fnuz")                                      \
  X(FLOAT8E5M2, 19, "float8e5m2")                                              \
  X(FLOAT8E5M2FNUZ, 20, "float8e5m2fnuz")                                      \
  X(UINT4, 21, "uint4")                                                        \
  X(INT4, 22, "int4")                                                          \
  X(FLOAT4E2M1, 23, "float4e2m1")                                              \
  X(FLOAT8E8M0, 24, "float8e8m0")                                              \
  X(UINT2, 25, "uint2")                                                        \
  X(INT2, 26, "int2")

typedef enum nns_dtype {
#define NNS_DTYPE_ENUM_(name, num, str) NNS_DT_##name = num,
  NNS_DTYPE_MAP(NNS_DTYPE_ENUM_)
#undef NNS_DTYPE_ENUM_
} nns_dtype;

/* "float32", "int64", "bfloat16", ...; "unknown" for 0 or an unknown
 * number. Static string. */
NNS_API const char *nns_dtype_name(int dtype);
/* Size of one element in bits (4 for int4 and float4e2m1, 2 for int2, 8 for
 * bool); 0 if unknown/string. */
NNS_API int nns_dtype_bits(int dtype);

/* ==== Loading ==== */

typedef struct nns_model nns_model;

enum {
  /* nns_model_load_memory copies the bytes first: the caller may free or
   * change its buffer as soon as the call returns. */
  NNS_LOAD_COPY = 1u << 0
};

typedef struct nns_load_options {
  size_t size;              /* sizeof(nns_load_options) */
  /* Folder that external-data `location`s are relative to. NULL: the
   * model file's folder (for nns_model_load_memory: the current folder).
   * Honoured by both loads; the library keeps its own copy. */
  const char *external_dir;
  /* Deepest allowed message nesting; 0 means the default (64). */
  int max_depth;
  unsigned flags;           /* NNS_LOAD_* */
} nns_load_options;

/*
 * Maps the file and decodes the model in place. Weights are not read.
 * opts may be NULL. On failure *out is NULL and err says what and where.
 * The caller owns *out and frees it with nns_model_free().
 */
NNS_API nns_status nns_model_load_file(const char *path,
                                       const nns_load_options *opts,
                                       nns_model **out, nns_error *err);

/*
 * Decodes a model held in the caller's buffer. Without NNS_LOAD_COPY the
 * buffer must stay valid and unchanged until nns_model_free(): names and
 * tensor bytes point into it. With NNS_LOAD_COPY the library keeps its own
 * copy and the buffer is free as soon as the call returns.
 */
NNS_API nns_status nns_model_load_memory(const void *data, size_t size,
                                         const nns_load_options *opts,
                                         nns_model **out, nns_error *err);

NNS_API void nns_model_free(nns_model *model);

/* ==== Building a model in memory ==== */

/*
 * The builder makes an nns_model without protobuf: a binding hands over a
 * graph it recorded itself. The result is an nns_model like a loaded one
 * (infer, analyze, report, accessors). Calls describe the model top-down:
 *
 *   nns_builder *b; nns_builder_new(&b, &err);
 *   nns_builder_add_opset(b, "", 17, &err);
 *   int64_t xd[] = {-1, 3, 224, 224}; const char *xs[] = {"batch", 0, 0, 0};
 *   nns_builder_add_input(b, "x", NNS_DT_FLOAT, 4, xd, xs, &err);
 *   int64_t wd[] = {64, 3, 7, 7};
 *   nns_builder_add_initializer(b, "w", NNS_DT_FLOAT, 4, wd, NULL, 0, &err);
 *   const char *in[] = {"x", "w"}, *out[] = {"y"};
 *   nns_builder_add_node(b, "Conv", "", "conv1", "conv1", in, 2, out, 1,
 *                        &err);
 *   int64_t k[] = {7, 7};
 *   nns_builder_attr_ints(b, "kernel_shape", k, 2, &err);
 *   nns_builder_add_output(b, "y", 0, -1, NULL, NULL, &err);
 *   nns_model *m; nns_builder_finish(b, &m, &err); nns_builder_free(b);
 *
 * Dims everywhere in the builder are (rank, dims, symbols): rank -1 means
 * the rank is unknown (dims ignored); dims[k] >= 0 is a known size; a
 * negative dims[k] is named by symbols[k] when symbols is non-NULL and
 * symbols[k] is a non-empty string (equal names are the same symbol), and
 * is an anonymous unknown otherwise. dtype 0 is unknown. Names are copied.
 *
 * A call that fails (status + message in err) has no effect: the builder
 * stays usable. Errors: NULL or empty names, a value defined twice in one
 * graph, an attribute with no node to attach to or twice on one node, a
 * bad dtype or dim, data whose size does not match dtype and dims,
 * end_graph without begin_graph, finish with a subgraph still open. Names
 * a node uses are resolved at finish (a subgraph may use names of its
 * enclosing graphs): an input no one defines fails finish with
 * NNS_E_DANGLING. Model-local functions are not supported.
 *
 * Threads: one builder is used by one thread at a time.
 */
typedef struct nns_builder nns_builder;

/* ONNX AttributeProto.AttributeType numbers. */
typedef enum nns_attr_type {
  NNS_ATTR_FLOAT = 1,
  NNS_ATTR_INT = 2,
  NNS_ATTR_STRING = 3,
  NNS_ATTR_TENSOR = 4,
  NNS_ATTR_GRAPH = 5,
  NNS_ATTR_FLOATS = 6,
  NNS_ATTR_INTS = 7,
  NNS_ATTR_STRINGS = 8,
  NNS_ATTR_TENSORS = 9,
  NNS_ATTR_GRAPHS = 10,
  NNS_ATTR_SPARSE_TENSOR = 11,
  NNS_ATTR_SPARSE_TENSORS = 12,
  NNS_ATTR_TYPE_PROTO = 13,
  NNS_ATTR_TYPE_PROTOS = 14
} nns_attr_type;

/* The caller owns *out and frees it with nns_builder_free(). */
NNS_API nns_status nns_builder_new(nns_builder **out, nns_error *err);
/* Frees the builder and everything not yet handed over by finish. */
NNS_API void nns_builder_free(nns_builder *b);

/* ModelProto fields. Defaults: ir_version 10, producer "" / "". */
NNS_API nns_status nns_builder_set_ir_version(nns_builder *b,
                                              int64_t ir_version,
                                              nns_error *err);
NNS_API nns_status nns_builder_set_producer(nns_builder *b, const char *name,
                                            const char *version,
                                            nns_error *err);
/* Name of the graph being described (the main graph, or the open
 * subgraph). Default "". */
NNS_API nns_status nns_builder_set_graph_name(nns_builder *b,
                                              const char *name,
                                              nns_error *err);
/* Opset import; domain "" (or "ai.onnx") is the default domain. A second
 * call for the same domain replaces the version. */
NNS_API nns_status nns_builder_add_opset(nns_builder *b, const char *domain,
                                         int64_t version, nns_error *err);
/* metadata_props entry (e.g. "nnscan.module_types"). */
NNS_API nns_status nns_builder_add_metadata(nns_builder *b, const char *key,
                                            const char *value,
                                            nns_error *err);

/* Graph input / output of the graph being described. An output's dtype and
 * dims are what the model declares (0 / -1 when not declared); its value
 * is the node output or input of that name. */
NNS_API nns_status nns_builder_add_input(nns_builder *b, const char *name,
                                         int dtype, int rank,
                                         const int64_t *dims,
                                         const char *const *symbols,
                                         nns_error *err);
NNS_API nns_status nns_builder_add_output(nns_builder *b, const char *name,
                                          int dtype, int rank,
                                          const int64_t *dims,
                                          const char *const *symbols,
                                          nns_error *err);
/* A declared type for an intermediate value (ONNX value_info). */
NNS_API nns_status nns_builder_add_value_info(nns_builder *b,
                                              const char *name, int dtype,
                                              int rank, const int64_t *dims,
                                              const char *const *symbols,
                                              nns_error *err);
/*
 * An initializer of the graph being described: dtype and known dims
 * (every dims[k] >= 0). data NULL: no data (the weights are never needed
 * to count them; a rule that would read the values sees them as unknown).
 * Otherwise data holds data_size bytes, little-endian as ONNX raw_data,
 * exactly elements x dtype bits / 8 (rounded up); the builder copies them.
 * An initializer named like an earlier graph input of the same graph
 * becomes that input's default value, as in ONNX.
 */
NNS_API nns_status nns_builder_add_initializer(nns_builder *b,
                                               const char *name, int dtype,
                                               int rank, const int64_t *dims,
                                               const void *data,
                                               size_t data_size,
                                               nns_error *err);
/*
 * A node of the graph being described. domain NULL or "" is the default
 * domain; name may be NULL or "". module_path is the dotted module path
 * of the module that produced the node ("layer1.0.conv1"; "" for the model
 * itself); NULL derives it from the node name as for ONNX files
 * ("/layer1/layer1.0/conv1/Conv"). inputs[k] "" (or NULL) is an omitted
 * optional input; outputs[k] "" an omitted optional output. The attr_*
 * and begin_graph calls that follow attach to this node.
 */
NNS_API nns_status nns_builder_add_node(nns_builder *b, const char *op_type,
                                        const char *domain, const char *name,
                                        const char *module_path,
                                        const char *const *inputs,
                                        size_t input_count,
                                        const char *const *outputs,
                                        size_t output_count, nns_error *err);

/* Attributes of the last node added to the graph being described. Floats
 * are stored as ONNX stores them (float32). A string may hold any bytes
 * (len of them). */
NNS_API nns_status nns_builder_attr_int(nns_builder *b, const char *name,
                                        int64_t value, nns_error *err);
NNS_API nns_status nns_builder_attr_float(nns_builder *b, const char *name,
                                          double value, nns_error *err);
NNS_API nns_status nns_builder_attr_string(nns_builder *b, const char *name,
                                           const char *value, size_t len,
                                           nns_error *err);
NNS_API nns_status nns_builder_attr_ints(nns_builder *b, const char *name,
                                         const int64_t *values, size_t count,
                                         nns_error *err);
NNS_API nns_status nns_builder_attr_floats(nns_builder *b, const char *name,
                                           const double *values, size_t count,
                                           nns_error *err);
NNS_API nns_status nns_builder_attr_strings(nns_builder *b, const char *name,
                                            const char *const *values,
                                            size_t count, nns_error *err);
/* type: NNS_ATTR_TENSOR or NNS_ATTR_SPARSE_TENSOR (one tensor), or
 * NNS_ATTR_TENSORS / NNS_ATTR_SPARSE_TENSORS (each call appends one to the
 * list attribute `name`). data as for initializers (NULL: dims only; a
 * sparse tensor never has data). */
NNS_API nns_status nns_builder_attr_tensor(nns_builder *b, const char *name,
                                           nns_attr_type type, int dtype,
                                           int rank, const int64_t *dims,
                                           const void *data, size_t data_size,
                                           nns_error *err);
/* type: NNS_ATTR_TYPE_PROTO, or NNS_ATTR_TYPE_PROTOS (appends): a tensor
 * type. */
NNS_API nns_status nns_builder_attr_type(nns_builder *b, const char *name,
                                         nns_attr_type type, int dtype,
                                         int rank, const int64_t *dims,
                                         const char *const *symbols,
                                         nns_error *err);
/* Opens a subgraph as attribute `name` of the last node (type
 * NNS_ATTR_GRAPH, or NNS_ATTR_GRAPHS: each call appends one graph). Until
 * the matching end_graph, inputs, outputs, initializers, value_info and
 * nodes go to the subgraph. Subgraphs nest. */
NNS_API nns_status nns_builder_begin_graph(nns_builder *b, const char *name,
                                           nns_attr_type type,
                                           nns_error *err);
NNS_API nns_status nns_builder_end_graph(nns_builder *b, nns_error *err);

/*
 * Marks `count` consecutive nodes of the main graph, from node
 * `first_node` (0 is the first nns_builder_add_node of the main graph),
 * as one kernel: they run as one unit, as the nodes a binding spells one
 * operation with (PyTorch's aten.silu as Sigmoid + Mul). The bytes of
 * the roofline are then those crossing the kernel's boundary: an input is
 * read once, an intermediate value its nodes alone use is never written
 * (docs/metrics.md, "Bytes and the roofline"). Every other node runs
 * alone, as every node of an ONNX file does. Kernels marked before that
 * lie wholly inside the new one are replaced by it (an operation made of
 * operations: PyTorch's math attention, of ops each one kernel).
 * NNS_E_ARG when count < 2, the nodes are not all added yet, the range
 * cuts a kernel marked before (some of its nodes inside, some not), or
 * one holds a subgraph (such a node runs alone; nns_builder_begin_graph on a
 * node in a kernel gives NNS_E_ARG too); NNS_E_STATE while a subgraph is
 * open.
 */
NNS_API nns_status nns_builder_mark_kernel(nns_builder *b, size_t first_node,
                                           size_t count, nns_error *err);

/*
 * Many builder calls in one: `data` holds `size` bytes of records, each
 * standing for one call above, made in order (a binding that pays for
 * every foreign call, such as ctypes, hands a whole graph over at once).
 *
 * Layout, every number in host byte order and at any alignment:
 *   header  "NNSP" then u32 NNS_PACKED_VERSION
 *   str     u32 n, then n bytes and a NUL byte (no NUL among the n);
 *           n = 0xFFFFFFFF is NULL and nothing follows
 *   bytes   u64 n, then n bytes; n = 0xFFFFFFFFFFFFFFFF is NULL
 *   shape   i32 rank, then rank i64 dims when rank > 0
 *   type    shape, then u8 1 and rank str symbols, or u8 0 for none
 *   record  u8 tag (NNS_PACKED_RECORD_MAP below), then its fields:
 *    1 ir_version   i64                  (nns_builder_set_ir_version)
 *    2 producer     str name, str version
 *    3 graph_name   str
 *    4 opset        str domain, i64 version
 *    5 metadata     str key, str value
 *    6 input        str name, i32 dtype, type
 *    7 output       str name, i32 dtype, type
 *    8 value_info   str name, i32 dtype, type
 *    9 initializer  str name, i32 dtype, shape, bytes data
 *   10 node         str op_type, str domain, str name, str module_path,
 *                   u32 n_in, n_in str, u32 n_out, n_out str
 *   11 attr_int     str name, i64        12 attr_float  str name, f64
 *   13 attr_string  str name, bytes      14 attr_ints   str, u32 n, n i64
 *   15 attr_floats  str, u32 n, n f64    16 attr_strings str, u32 n, n str
 *   17 attr_tensor  str name, i32 attr type, i32 dtype, shape, bytes data
 *   18 attr_type    str name, i32 attr type, i32 dtype, type
 *   19 begin_graph  str name, i32 attr type      20 end_graph (no fields)
 *   21 module       str path, str class, i64 calls: nns_model_set_module
 *                   on the model being built
 *   22 param_kind   str value name, i32 nns_param_kind: given to the main
 *                   graph's value of that name by nns_builder_finish, which
 *                   fails with NNS_E_NOTFOUND when there is none; a
 *                   trainable, frozen or buffer value is a weight to the
 *                   aten records after it (a t() of one folds into the
 *                   matrix product reading it, docs/tape.md)
 *   23 experts      str path, i64 active, i64 total, i64 tokens:
 *                   nns_model_set_experts on the model being built
 *   24 value_data   str value name, i32 dtype, shape, bytes data: the
 *                   contents a binding observed for a main-graph value
 *                   (raw little-endian, as an initializer's; NULL data:
 *                   the same contents as the last value_data record, of
 *                   the same dtype and element count); used by analyses
 *                   that read values beyond constant folding (masked
 *                   attention counts), never by shape inference; finish
 *                   fails with NNS_E_NOTFOUND for an unknown name
 *   25 kernel       u32 first_node, u32 count: nns_builder_mark_kernel
 *   26 module_call  str path, i64 call, str outputs:
 *                   nns_model_set_module_call on the model being built
 *   27 module_shapes str path, shape input, shape output (rank -1: none):
 *                   nns_model_set_module_shapes on the model being built
 *   28 module_tensor str path, str tensor, i32 element_bits, shape,
 *                   i32 kind:
 *                   nns_model_add_module_tensor on the model being built
 *   29 aten         one PyTorch operator call (the recorder's tape),
 *                   lowered by the library's aten table (nns_aten_op)
 *                   into the main graph, as a torch.export archive's are:
 *                   str op (base name, "add" or "add_"), str name (the
 *                   node name its nodes get), str module_path,
 *                   u32 n_args, n_args arg, u32 n_out, n_out tensor.
 *                   arg: str schema name, u8 kind (nns_aten_arg_kind),
 *                   then by kind: NONE nothing; TENSOR tensor; TENSORS
 *                   u32 n, n tensor (a NULL name: None); INT i64, str
 *                   symbol (NULL: known); INTS u32 n, n i64; FLOAT f64;
 *                   BOOL u8 0|1; STRING str; DTYPE i32 nns_dtype.
 *                   tensor: str value name, i32 dtype, shape (what the
 *                   recording saw, no size negative; rank -1: unknown).
 *                   Past the schema's arguments, the one piece of a
 *                   tensor's contents a record carries: the INT
 *                   "tracked_count" of the entries nns_aten_op_counted
 *                   names (masked_scatter: how many of self's elements
 *                   the mask, broadcast, holds), which an archive lacks.
 *                   An op the table has
 *                   no entry for, or cannot lower in this instance, is
 *                   one node of domain "pytorch.aten" with its outputs'
 *                   sizes declared (uncounted). Only at the main graph's
 *                   level (not inside begin_graph).
 *   30 names        u64 values, u64 nodes, u64 initializers: the
 *                   recorder's own numbering, for the next record, which
 *                   must be an aten record:
 *                   the nodes its call lowers to are named as the
 *                   recorder names the nodes it makes, "NAME/OP_N"
 *                   (NAME the aten record's name, the module path the
 *                   call was recorded in; "OP_N" when it is empty) with
 *                   N = nodes, nodes + 1, ... in order, and each value the lowering makes takes the
 *                   next number after `values`: a constant "cN" when it
 *                   is made, any other value "vN" when the first node
 *                   writing it is added. The call's outputs keep the
 *                   names the record gives them, and take their numbers
 *                   all the same (nns_aten_numbering says which). The
 *                   constants it makes are laid out after the first
 *                   `initializers` initializer records of the main graph
 *                   (where the recorder would have made them). Without
 *                   it, an aten record's nodes are named after the
 *                   record's `name` and its values "_nns_N".
 *   31 observed_shape  str value name, shape (rank >= 0, no size
 *                   negative): the sizes a binding saw that main-graph
 *                   value take when the model ran, kept for
 *                   nns_model_shape_mismatches (never read by inference);
 *                   a name the graph lacks is no error here
 *   32 deferred_names  (no fields; before any node, aten or names
 *                   record): the recorder's numbering is finished by the
 *                   library (docs/tape.md, "Numbers the library gives").
 *                   From here on a names record gives the recorder's
 *                   counters without what the numbered calls before it
 *                   took, and a string is read as the name it stands
 *                   for: "\2" STEM N the value STEM N' and "\4" PATH_N
 *                   the node PATH_N', N' being N plus the numbers of the
 *                   numbered calls before it (those whose counters N
 *                   reached); "\3" K.J the J-th output of the K-th
 *                   numbered call, named "vN" when written (or the
 *                   argument it is, for an alias). A tensor a numbered
 *                   call reads first is "\5" KIND NAME: a parameter NAME
 *                   of kind t, f, b or n (its initializer made where the
 *                   call's nodes first read it), "\5c" K a constant from
 *                   outside (named "constN" there), "\5i" K a backward
 *                   graph's forward tensor (named "fwdN" there, no
 *                   initializer: its input record, after the nodes,
 *                   names it so; such inputs are listed in the order
 *                   the library numbered them, not as their records
 *                   came), "\5u" K one the call's entry leaves
 *                   unread (nns_aten_op_unread: named nowhere; a call
 *                   whose nodes read one is refused). A kernel record then
 *                   counts nodes and calls: a node record, a numbered
 *                   call or an aten record making a node is one each.
 *   33 replay       (under deferred numbering only) u64 offset, u64
 *                   length, then 4 x (u64 from, u64 count, u64 to), u64
 *                   inits_from, u64 inits_to, str path_from, str path_to,
 *                   u32 n, n x (str from, str to): the node, attribute,
 *                   names and aten records at bytes offset .. offset +
 *                   length - 1 of this buffer (earlier records, none of
 *                   them a replay) read again, as if packed here under
 *                   other names: a layer the recorder replayed from the
 *                   same template as an earlier one (docs/tape.md,
 *                   "Replayed layers, read again"). Each name a record
 *                   gives a value, a node or a module is read as: one of
 *                   the n `from` names, its `to`; "\2" STEM N with from <
 *                   N <= from + count (the first triple, the recorder's
 *                   values), STEM (to + N - from); "\4" PATH_N likewise
 *                   with from <= N < from + count (the second, its nodes);
 *                   "\3" K.J with from <= K < from + count (the third, the
 *                   numbered calls) and "\5c" K with from < K <= from +
 *                   count (the fourth, the constants from outside they
 *                   read first), K moved so too; and a module path
 *                   path_from, or one that starts with path_from and a
 *                   "." or "/" (under it: a module, a parameter, a node's
 *                   scope, "\5" KIND NAME's NAME), starting with path_to
 *                   instead. A names record read again adds to - from of
 *                   the first two triples to its values and nodes and
 *                   inits_to - inits_from to its initializers. The bytes
 *                   read again in one buffer may not exceed 64 times its
 *                   size; path_from may not be empty.
 *   34 dropped      (under deferred numbering only) nothing: the names
 *                   record and aten record after it are lowered for the
 *                   numbers they take, and the nodes the call made are
 *                   then taken back (with their value_info): a call whose
 *                   result a fused kernel throws away (the math SDPA's
 *                   attention weights cast back, python/nnscan/fused.py),
 *                   the recorder's entry, no node.
 *
 * Each record is checked as its call is, and the bytes themselves first:
 * a record running past `size`, a bad tag, rank or flag, or a string
 * without its NUL gives NNS_E_ARG; nothing is read outside the buffer and
 * no alignment is assumed. On error, err->offset is the failing record's
 * byte offset in `data` and the message names the record's index and
 * kind. A failure at the first record has no effect; a later one leaves
 * the records before it applied and the builder refuses every further
 * call but nns_builder_free (NNS_E_STATE).
 *
 * A new kind of record takes a new tag and leaves the version as it is
 * (tags 23 to 28 came so): a library older than the tag refuses the
 * buffer at that record (NNS_E_ARG, "unknown record tag"), and buffers
 * without it read as before. The version changes only when the layout of
 * an existing record does; a library reads only its own version.
 */
#define NNS_PACKED_VERSION 1
NNS_API nns_status nns_builder_add_packed(nns_builder *b, const void *data,
                                          size_t size, nns_error *err);
/* The name a string of the packed form stands for in the graph being
 * built, after the records that name it: under deferred numbering
 * (record 32) a recorder's "\2"/"\3"/"\4"/"\5" name as the library
 * numbered it ("\3" K.J or "\5" KIND NAME that no call named: itself),
 * else `name` itself. *out lives as long as the builder or the model it
 * makes. NNS_E_ARG for a NULL argument or a name that does not parse. */
NNS_API nns_status nns_builder_packed_name(nns_builder *b, const char *name,
                                           const char **out, nns_error *err);
/* Under deferred numbering (record 32), the builder's nodes that the
 * recorder's entries first .. first + count - 1 became: its node records
 * and its numbered calls, in the order the kernel record counts them
 * (docs/tape.md). *node_first is the index of the first (the model's,
 * nns_model_node, once finished) and *node_count how many (a numbered
 * call may take none). For what a binding asks after the recording, such
 * as the nodes a checkpointed region's backward reruns. NNS_E_ARG for a
 * NULL output, a range past the entries read, or a builder whose packed
 * form did not defer its numbering. */
NNS_API nns_status nns_builder_packed_entries(nns_builder *b, size_t first,
                                              size_t count, size_t *node_first,
                                              size_t *node_count,
                                              nns_error *err);

/* The record tags of the packed form, one X-macro entry each: enum name,
 * tag, and the word nns_packed_record_name() gives (what an error names
 * the record by). Tags are numbered from 1 without gaps; a new record
 * kind is a new entry at the end. */
#define NNS_PACKED_RECORD_MAP(X)                                               \
  X(IR_VERSION, 1, "ir_version")                                               \
  X(PRODUCER, 2, "producer")                                                   \
  X(GRAPH_NAME, 3, "graph_name")                                               \
  X(OPSET, 4, "opset")                                                         \
  X(METADATA, 5, "metadata")                                                   \
  X(INPUT, 6, "input")                                                         \
  X(OUTPUT, 7, "output")                                                       \
  X(VALUE_INFO, 8, "value_info")                                               \
  X(INITIALIZER, 9, "initializer")                                             \
  X(NODE, 10, "node")                                                          \
  X(ATTR_INT, 11, "attr_int")                                                  \
  X(ATTR_FLOAT, 12, "attr_float")                                              \
  X(ATTR_STRING, 13, "attr_string")                                            \
  X(ATTR_INTS, 14, "attr_ints")                                                \
  X(ATTR_FLOATS, 15, "attr_floats")                                            \
  X(ATTR_STRINGS, 16, "attr_strings")                                          \
  X(ATTR_TENSOR, 17, "attr_tensor")                                            \
  X(ATTR_TYPE, 18, "attr_type")                                                \
  X(BEGIN_GRAPH, 19, "begin_graph")                                            \
  X(END_GRAPH, 20, "end_graph")                                                \
  X(MODULE, 21, "module")                                                      \
  X(PARAM_KIND, 22, "param_kind")                                              \
  X(EXPERTS, 23, "experts")                                                    \
  X(VALUE_DATA, 24, "value_data")                                              \
  X(KERNEL, 25, "kernel")                                                      \
  X(MODULE_CALL, 26, "module_call")                                            \
  X(MODULE_SHAPES, 27, "module_shapes")                                        \
  X(MODULE_TENSOR, 28, "module_tensor")                                        \
  X(ATEN, 29, "aten")                                                           \
  X(NAMES, 30, "names")                                                        \
  X(OBSERVED_SHAPE, 31, "observed_shape")                                     \
  X(DEFERRED_NAMES, 32, "deferred_names")                                    \
  X(REPLAY, 33, "replay")                                                      \
  X(DROPPED, 34, "dropped")

typedef enum nns_packed_record {
#define NNS_PACKED_RECORD_ENUM_(name, num, str) NNS_PACKED_##name = num,
  NNS_PACKED_RECORD_MAP(NNS_PACKED_RECORD_ENUM_)
#undef NNS_PACKED_RECORD_ENUM_
} nns_packed_record;

/* The kinds of an aten record's arguments (packed record 29), one X-macro
 * entry each: enum name, number, and the word nns_aten_arg_kind_name()
 * gives. NONE: None, or a kind the table never reads; INT: int or
 * SymInt. */
#define NNS_ATEN_ARG_KIND_MAP(X)                                               \
  X(NONE, 0, "none")                                                           \
  X(TENSOR, 1, "tensor")                                                       \
  X(TENSORS, 2, "tensors")                                                     \
  X(INT, 3, "int")                                                             \
  X(INTS, 4, "ints")                                                           \
  X(FLOAT, 5, "float")                                                         \
  X(BOOL, 6, "bool")                                                           \
  X(STRING, 7, "string")                                                       \
  X(DTYPE, 8, "dtype")

typedef enum nns_aten_arg_kind {
#define NNS_ATEN_ARG_ENUM_(name, num, str) NNS_ATEN_ARG_##name = num,
  NNS_ATEN_ARG_KIND_MAP(NNS_ATEN_ARG_ENUM_)
#undef NNS_ATEN_ARG_ENUM_
} nns_aten_arg_kind;

/* "none", ..., "dtype"; NULL past the last. Static string. */
NNS_API const char *nns_aten_arg_kind_name(int kind);

/* "ir_version", ..., "aten"; NULL for 0 and for a number past the
 * last tag. Static string. */
NNS_API const char *nns_packed_record_name(int tag);

/* Resolves every name and hands over the model: the caller owns *out and
 * frees it with nns_model_free(). After a successful finish every builder
 * call but nns_builder_free gives NNS_E_STATE; after a failed one the
 * builder is unchanged. */
NNS_API nns_status nns_builder_finish(nns_builder *b, nns_model **out,
                                      nns_error *err);

/* ==== Shape inference ==== */

/* A user-fixed input shape: dims for the graph input called `name`. */
typedef struct nns_input_shape {
  size_t size;          /* sizeof(nns_input_shape); also the array stride */
  const char *name;
  const int64_t *dims;
  size_t rank;
} nns_input_shape;

enum {
  /* For an op nnscan does not know, take output shapes the model declares
   * (value_info, graph outputs) instead of leaving them unknown; for an op
   * it knows, take the declared value of each dim its rule cannot tell
   * from shapes (NonZero's count: data), where the rule would leave a
   * fresh unknown. A dim the rule knows, or names, stays the rule's. */
  NNS_INFER_FALLBACK_DECLARED = 1u << 0
};

/*
 * A graph input's contents, for the scalars and small integer tensors that
 * control flow and shape arithmetic depend on (a sample rate an If compares
 * with a constant, a sequence length): `count` values, row-major. The
 * input keeps its declared shape when `count` fits it (a scalar, or one
 * unknown dim, which becomes `count`), else it fails with NNS_E_SHAPE.
 * Values of a floating-point input are converted. `count` may be 0 (an
 * empty tensor, such as Reduce's axes of shape [0]); data may then be
 * NULL.
 */
typedef struct nns_input_value {
  size_t size;                  /* sizeof(nns_input_value); also the array
                                   stride */
  const char *name;             /* a graph input of the main graph */
  const int64_t *data;
  size_t count;
} nns_input_value;

typedef struct nns_infer_options {
  size_t size;                  /* sizeof(nns_infer_options) */
  unsigned flags;               /* NNS_INFER_* */
  int64_t batch;                /* > 0: first dim of every graph input */
  /* Input shapes, input_count entries strided by inputs[0].size. `name`
   * may also be the name of a symbolic dim of a graph input (a dim_param
   * such as "batch", or the name nnscan gives an unnamed dim:
   * "<input>_dim<axis>") with rank 1: that dim is set to dims[0] wherever
   * it appears. */
  const nns_input_shape *inputs;
  size_t input_count;
  const nns_input_value *values; /* graph inputs' contents (may be NULL),
                                    strided by values[0].size */
  size_t value_count;
} nns_infer_options;

/*
 * Infers the dtype and shape of every value, subgraphs included. opts may be
 * NULL. May be called again with other options; each call starts afresh
 * and frees the previous inference's and analysis's results (see
 * "Ownership" above).
 */
NNS_API nns_status nns_model_infer(nns_model *model,
                                   const nns_infer_options *opts,
                                   nns_error *err);

/* What has been done to the model so far: NNS_STATE_* bits (0 for NULL). */
enum {
  NNS_STATE_INFERRED = 1u << 0, /* the last nns_model_infer succeeded */
  NNS_STATE_ANALYZED = 1u << 1  /* an nns_model_analyze succeeded since */
};
NNS_API unsigned nns_model_state(const nns_model *model);

/* ==== Model information (MODEL data) ==== */

typedef struct nns_model_info {
  size_t size;                  /* sizeof(nns_model_info) */
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

NNS_API nns_status nns_model_get_info(const nns_model *model,
                                      nns_model_info *out);

NNS_API size_t nns_model_opset_count(const nns_model *model);
/* Domain "" is the default ONNX domain. */
NNS_API nns_status nns_model_opset(const nns_model *model, size_t i,
                                   const char **domain, int64_t *version);

NNS_API size_t nns_model_metadata_count(const nns_model *model);
NNS_API nns_status nns_model_metadata(const nns_model *model, size_t i,
                                      const char **key, const char **value);

/* ==== Values (names: MODEL data; types: INFERENCE results) ==== */

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
  size_t size;        /* sizeof(nns_dim) */
  int64_t value;      /* >= 0 when known, -1 otherwise */
  const char *symbol; /* name of an unknown dim ("batch"), NULL if unnamed */
} nns_dim;

typedef struct nns_value_info {
  size_t size;          /* sizeof(nns_value_info) */
  const char *name;
  int dtype;            /* nns_dtype, 0 when unknown */
  nns_type_kind kind;
  nns_value_role role;  /* role in its own graph */
  int rank;             /* -1 when the rank is unknown */
  int graph_depth;      /* 0 main graph, 1 a subgraph of it, ... */
  int has_constant;     /* its value is known (initializer or folded) */
  size_t producer;      /* node index (nns_model_node) of the node that
                           outputs it; (size_t)-1 for inputs and
                           initializers */
} nns_value_info;

/*
 * Values in graph order: for each graph, inputs, initializers, then node
 * outputs in node order; a subgraph's values follow the node that owns it.
 */
NNS_API size_t nns_model_value_count(const nns_model *model);
NNS_API nns_status nns_model_value(const nns_model *model, size_t i,
                                   nns_value_info *out);
/* Dim `axis` of value i: NNS_E_ARG unless 0 <= axis < its rank. */
NNS_API nns_status nns_model_value_dim(const nns_model *model, size_t i,
                                       int axis, nns_dim *out);
/* Index of the value called `name` in the main graph; NNS_E_NOTFOUND when
 * there is none. */
NNS_API nns_status nns_model_find_value(const nns_model *model,
                                        const char *name, size_t *index);

/*
 * The values whose shape inference gives otherwise than a binding observed
 * when the model ran (packed record observed_shape): *count of them, and
 * the first min(cap, *count) of their names in `names` (may be NULL when
 * cap is 0), in observed order; each name lives as long as the model. A
 * name the main graph has no value of, a rank or size that differs, and a
 * dim inference left unknown all differ; before nns_model_infer every
 * observed value does. A recorder's self-test: a rule whose shape is not
 * what PyTorch produced.
 */
NNS_API nns_status nns_model_shape_mismatches(const nns_model *model,
                                              const char **names, size_t cap,
                                              size_t *count, nns_error *err);

/* The main graph's inputs (initializers excluded) and outputs, as indexes
 * into the value list. An output the graph names but nothing defines is
 * (size_t)-1. */
NNS_API size_t nns_model_input_count(const nns_model *model);
NNS_API nns_status nns_model_input(const nns_model *model, size_t i,
                                   size_t *value);
NNS_API size_t nns_model_output_count(const nns_model *model);
NNS_API nns_status nns_model_output(const nns_model *model, size_t i,
                                    size_t *value);

/* ==== Nodes (structure: MODEL data; counts, module path: ANALYSIS) ==== */

/*
 * Every node, subgraph nodes included, in preorder: the main graph's nodes
 * in the model's order, each followed by the nodes of its subgraphs (each
 * subgraph's nodes in order, recursively). Function bodies are not listed.
 */
enum {
  NNS_NODE_RULE = 1u << 0,     /* has a shape rule (after nns_model_infer) */
  NNS_NODE_CUSTOM = 1u << 1,   /* the rule was registered by the caller */
  NNS_NODE_CONSTANT = 1u << 2, /* every output folded to a known constant */
  NNS_NODE_COUNTED = 1u << 3,  /* a cost rule counted it (nns_analysis_node
                                  only) */
  NNS_NODE_SUBGRAPHS = 1u << 4 /* has graph attributes (If, Loop, Scan) */
};

typedef struct nns_node_info {
  size_t size;              /* sizeof(nns_node_info) */
  const char *op_type;
  const char *domain;       /* "" for the default ONNX domain */
  const char *name;         /* "" when the node has none */
  int64_t opset;            /* version of its domain in force; -1 unknown */
  int graph_depth;          /* 0 main graph, 1 a subgraph of it, ... */
  size_t parent;            /* node that holds its subgraph; (size_t)-1 for
                               main-graph nodes */
  const char *parent_attr;  /* attribute of `parent` holding its graph
                               ("then_branch"); "" for main-graph nodes */
  size_t input_count;       /* omitted optional inputs included */
  size_t output_count;
  unsigned flags;           /* NNS_NODE_* */
  /* Read through nns_analysis_node (ANALYSIS; nns_model_node gives "" and
   * (size_t)-1). A subgraph node belongs to its main-graph ancestor's
   * layer. */
  const char *module_path;  /* dotted module path, "" for the model */
  size_t layer;             /* layer index (nns_analysis_layer) */
  /* MODEL data, added after the first version: the first node (this
   * list's index) of the kernel that runs it (nns_builder_mark_kernel),
   * and how many nodes that kernel has; (size_t)-1 and 1 for a node that
   * runs alone. */
  size_t kernel;
  size_t kernel_nodes;
} nns_node_info;

NNS_API size_t nns_model_node_count(const nns_model *model);
NNS_API nns_status nns_model_node(const nns_model *model, size_t i,
                                  nns_node_info *out);
/* Value index of input k / output k of node i; (size_t)-1 for an omitted
 * optional one. */
NNS_API nns_status nns_model_node_input(const nns_model *model, size_t i,
                                        size_t k, size_t *value);
NNS_API nns_status nns_model_node_output(const nns_model *model, size_t i,
                                         size_t k, size_t *value);

/* ==== Diagnostics (INFERENCE results, plus the load's warnings) ==== */

/* Op types that have no rule in nnscan (after nns_model_infer), with how
 * many nodes use them. */
NNS_API size_t nns_model_unknown_op_count(const nns_model *model);
NNS_API nns_status nns_model_unknown_op(const nns_model *model, size_t i,
                                        const char **domain,
                                        const char **op_type,
                                        size_t *node_count);

/* Warnings from loading and inference: full sentences. An analysis keeps
 * these and adds its own (nns_analysis_warning). */
NNS_API size_t nns_model_warning_count(const nns_model *model);
NNS_API nns_status nns_model_warning(const nns_model *model, size_t i,
                                     const char **message);

/* ==== What the caller knows ==== */

/*
 * Parameter kinds. TRAINABLE and FROZEN are parameters (FROZEN: requires
 * no gradient; reported as non-trainable, as torchscan does), BUFFER is
 * non-trainable state (BatchNorm statistics, a causal mask, rotary
 * caches), CONSTANT is data that is not state at all (shapes, axes,
 * indices, scalars) and is not counted.
 */
#define NNS_PARAM_KIND_MAP(X)                                                  \
  X(TRAINABLE, 0, "trainable")                                                 \
  X(BUFFER, 1, "buffer")                                                       \
  X(CONSTANT, 2, "constant")                                                   \
  X(FROZEN, 3, "frozen")

typedef enum nns_param_kind {
#define NNS_PARAM_KIND_ENUM_(name, num, str) NNS_PARAM_##name = num,
  NNS_PARAM_KIND_MAP(NNS_PARAM_KIND_ENUM_)
#undef NNS_PARAM_KIND_ENUM_
} nns_param_kind;

/* "trainable", "buffer", "constant", "frozen" (the words of the JSON
 * report and of the "nnscan.param_kinds" metadata); NULL for a number that
 * is no kind. Kinds are numbered from 0 without gaps. Static string. */
NNS_API const char *nns_param_kind_name(int kind);

/*
 * The module at dotted path `path` ("" for the model itself) is an instance
 * of `class_name` ("BasicBlock") and was called `call_count` times (0:
 * not known). Overrides the model metadata's "nnscan.module_types" for that
 * path. Takes effect at the next nns_model_analyze() (analyses made before
 * keep what they saw); strings are copied.
 * A path no node belongs to is kept and simply unused.
 */
NNS_API nns_status nns_model_set_module(nns_model *model, const char *path,
                                        const char *class_name,
                                        size_t call_count, nns_error *err);
/*
 * The module at dotted path `path` does `macs` multiply-accumulates over
 * all its calls, as the caller counted them (a binding's custom-op rule for
 * a module the op table cannot see into). At the next nns_model_analyze()
 * its layer's MACs become `macs` and every ancestor's and the model's
 * totals change by the same difference; the layers inside it keep their own
 * counts, and an outer module's given MACs win over an inner one's. A path
 * that is no layer is kept and simply unused. NNS_E_ARG for a negative
 * count.
 */
NNS_API nns_status nns_model_set_module_macs(nns_model *model,
                                             const char *path, int64_t macs,
                                             nns_error *err);
/*
 * Call `call` (0, 1, ...) of the module at `path` (declared first with
 * nns_model_set_module) returned `outputs`: a JSON value describing the
 * structure of what it returned, never values - a tensor as {"dtype":
 * "float32", "shape": [1, 64, 56, 56]}, a tuple or list as an array, a dict
 * as an object, None as null, anything else as {"type": "int"}. The
 * "nnscan.summary" v2 report lists it with the layer ("calls"). Copied.
 * NNS_E_NOTFOUND for a path never declared, NNS_E_JSON (with the byte)
 * for text that is not one JSON value, NNS_E_LIMIT past 2^20 calls.
 */
NNS_API nns_status nns_model_set_module_call(nns_model *model,
                                             const char *path, size_t call,
                                             const char *outputs,
                                             nns_error *err);
/*
 * The module at `path` (declared first with nns_model_set_module) took a
 * first input of shape input_shape[0..input_rank) and gave a first output
 * of shape output_shape[0..output_rank), as the caller recorded them (rank
 * -1: none; NULL dims with rank 0). The layers tables (NNS_FORMAT_LAYERS_*)
 * print them, also for a module that ran no operator (Dropout in eval).
 * Copied. NNS_E_NOTFOUND for a path never declared, NNS_E_ARG for a rank
 * below -1 or above 64, NULL dims with a positive rank or a negative dim.
 */
NNS_API nns_status nns_model_set_module_shapes(nns_model *model,
                                               const char *path,
                                               const int64_t *input_shape,
                                               int input_rank,
                                               const int64_t *output_shape,
                                               int output_rank,
                                               nns_error *err);
/* A module the caller declared (nns_model_set_module,
 * nns_model_set_module_macs), whether or not any node belongs to it. */
typedef struct nns_module_info {
  size_t size;               /* sizeof(nns_module_info) */
  const char *path;          /* dotted path; "" for the model */
  const char *class_name;    /* NULL when only its MACs were given */
  size_t call_count;         /* 0 when not known */
  int macs_given;            /* 1 after nns_model_set_module_macs */
  int64_t macs;              /* what it gave, when macs_given */
  int input_rank, output_rank;           /* -1 when not given */
  const int64_t *input_shape, *output_shape; /* valid until nns_model_free */
} nns_module_info;
/* The declared modules in the order they were first declared (a binding
 * declares them in its framework's order: PyTorch's named_modules). */
NNS_API size_t nns_model_module_count(const nns_model *model);
NNS_API nns_status nns_model_module(const nns_model *model, size_t i,
                                    nns_module_info *out);
/* What nns_model_set_module_call gave for that call into *outputs (valid
 * until nns_model_free); NNS_E_NOTFOUND when nothing was given. */
NNS_API nns_status nns_model_module_call(const nns_model *model,
                                         const char *path, size_t call,
                                         const char **outputs);
/* One past the last call of `path` that nns_model_set_module_call
 * described (0: none, or no such module): the calls to ask about. */
NNS_API size_t nns_model_module_call_count(const nns_model *model,
                                           const char *path);
/*
 * The module at `path` (declared first with nns_model_set_module)
 * registers a tensor of shape dims[0..rank), with elements of
 * `element_bits` bits (PyTorch: 8 * element_size(), any dtype), as one of
 * its own (PyTorch: an entry of its _parameters or _buffers), whether or
 * not its forward reads it. `tensor` names the tensor itself, the same for
 * every module that registers it (a tied weight: its first dotted path),
 * so counts over several modules take it once. `kind` is TRAINABLE, FROZEN
 * or BUFFER. Copied. NNS_E_NOTFOUND for a path never declared, NNS_E_ARG
 * for another kind, element_bits outside 1..1024, a rank outside 0..64,
 * NULL dims with a positive rank or a negative dim, NNS_E_LIMIT past 2^31
 * tensors or 2^63 bits.
 */
NNS_API nns_status nns_model_add_module_tensor(nns_model *model,
                                               const char *path,
                                               const char *tensor,
                                               int element_bits, int rank,
                                               const int64_t *dims,
                                               nns_param_kind kind,
                                               nns_error *err);
/* What the tensors a module registers hold, each distinct tensor once. */
typedef struct nns_module_held {
  size_t size;               /* sizeof(nns_module_held) */
  int64_t trainable;         /* parameter elements that take a gradient */
  int64_t frozen;            /* parameter elements that do not */
  int64_t param_bytes;       /* bytes of both */
  int64_t buffers;           /* buffer elements */
  int64_t buffer_bytes;
  size_t tensors;            /* distinct tensors counted */
} nns_module_held;
/*
 * The tensors registered (nns_model_add_module_tensor) by the module at
 * `path` itself (recurse 0: PyTorch's parameters(recurse=False) and
 * buffers(recurse=False)) or by it and every module below it (recurse 1:
 * parameters() and buffers(); path "" is the whole model). Bytes are
 * numel * element_bits / 8, rounded up per tensor. NNS_E_NOTFOUND for a
 * path never declared. Time: the module's own tensors, or every registered
 * tensor with recurse.
 */
NNS_API nns_status nns_model_module_held(const nns_model *model,
                                         const char *path, int recurse,
                                         nns_module_held *out);
/*
 * The module at `path` holds the experts of a mixture-of-experts layer:
 * each token is routed to `active` (k) of its `total` (E) experts, and one
 * call routes `tokens` tokens (0: not known). Its parameters count at k/E
 * in params_active and at min(E, k * tokens)/E in weight_bytes_read
 * (nns_counts). Takes effect at the next nns_model_analyze(); NNS_E_ARG
 * naming the value and its range unless 1 <= total <= NNS_EXPERTS_MAX,
 * 1 <= active <= total and tokens >= 0. A path no layer has is kept and
 * unused.
 */
#define NNS_EXPERTS_MAX (INT64_C(1) << 24) /* experts in one layer, at most */
NNS_API nns_status nns_model_set_experts(nns_model *model, const char *path,
                                         int64_t active, int64_t total,
                                         int64_t tokens, nns_error *err);
/*
 * The initializer (or constant-fed value) `value_name` of the main graph is
 * of kind `kind`, overriding the guess from the ops that use it. Takes
 * effect at the next nns_model_analyze(). NNS_E_NOTFOUND when the main
 * graph has no value of that name; NNS_E_ARG for a kind out of range.
 */
NNS_API nns_status nns_model_set_param_kind(nns_model *model,
                                            const char *value_name,
                                            nns_param_kind kind,
                                            nns_error *err);
/*
 * Masks a binding observed. A binding that records a live model can keep
 * the real contents of the small integer and boolean tensors that decide
 * attention masks (the Python package tracks them on the meta device), but
 * computing each costs time and memory, and the masked-attention counts
 * (macs_unmasked, src/analyze/attention.c) read only some. Given the names
 * of the main-graph values whose contents the caller can give
 * (tracked[0..n)), nns_model_mask_inputs says which of them to give:
 * wanted[0..*n_wanted) are positions in `tracked`, each once, in the
 * order to give them (a caller with a byte budget gives the first ones).
 *
 * What is asked for: a tracked value that an additive mask (Add) or a
 * selection (Where) applies beside an activation, or rather the tracked
 * values it is made from where they say the same with fewer bytes (a
 * broadcast, reshape or cast of one; a Where of a boolean mask between two
 * one-element values); for a mask that is not tracked (too large), the
 * tracked values it is made from through comparisons, joins and reshapes
 * (at most 64 values walked); and the one-element branches of every
 * Where. The op roles come from the operator table (NNS__ATTN_* marks),
 * never from op names. Values whose contents the model already has, and
 * names the main graph lacks, are not asked for; nor is a triangle (Trilu)
 * of a fill already given (below), through Not and ops that keep values:
 * the counts read it from its diagonal. Reads the types of the
 * last nns_model_infer(): NNS_E_STATE before one succeeded.
 * `wanted` has room for n entries.
 */
NNS_API nns_status nns_model_mask_inputs(const nns_model *model,
                                         const char *const *tracked, size_t n,
                                         size_t *wanted, size_t *n_wanted,
                                         nns_error *err);
/*
 * The main-graph values names[0..n_names) held, when the binding ran the
 * model, the elements `data` (`size` bytes, little-endian, of `dtype`, in
 * row-major order over dims[0..rank)): one copy, shared by every name, so
 * the analyses read one mask computed once as one. One element (rank 0)
 * given for a value of more is a fill: every element is that one (ones,
 * zeros, a full tensor), at no cost for its size. Read by the analyses
 * that need contents beyond what folding keeps (masked attention), never
 * by shape inference; takes effect at the next nns_model_analyze() and
 * replaces contents given before. Nothing changes unless every name is a
 * main-graph value (NNS_E_NOTFOUND naming the first that is not) and the
 * bytes are exactly what the elements take (NNS_E_ARG naming the value).
 * The packed value_data record gives the same while building.
 */
NNS_API nns_status nns_model_set_value_data(nns_model *model,
                                            const char *const *names,
                                            size_t n_names, int dtype,
                                            int rank, const int64_t *dims,
                                            const void *data, size_t size,
                                            nns_error *err);

/* ==== Analysis: parameters, costs, memory, receptive field ==== */

/*
 * nns_model_analyze() counts, for every node and every layer (scope) of the
 * module tree, parameters, FLOPs, MACs and memory accesses (DMAs), activation
 * memory and receptive field, as ../docs/metrics.md defines them. It runs on
 * the shapes of the last nns_model_infer(); a model never inferred is first
 * inferred with default options, and one whose last inference failed gives
 * NNS_E_STATE. Each call returns a new nns_analysis that the caller owns:
 *
 *   nns_model_infer(m, &batch1, &err);
 *   nns_analysis *a1; nns_model_analyze(m, NULL, &a1, &err);
 *   nns_model_infer(m, &batch64, &err);
 *   nns_analysis *a64; nns_model_analyze(m, NULL, &a64, &err);
 *   ... read and report both ...
 *   nns_analysis_free(a1); nns_analysis_free(a64); nns_model_free(m);
 *
 * An analysis keeps its own copy of what it read of the inference (value
 * types, unknown ops, warnings), so a1 still reads batch 1 after the
 * second inference. It reads its model's structure (names, nodes): free
 * it before the model. A count that depends on a symbolic dim is evaluated
 * with the symbol at 1 and flagged NNS_COUNT_SYMBOLIC; a total that misses
 * an op without a cost rule is flagged NNS_COUNT_PARTIAL (a lower bound).
 *
 * Without caller knowledge (nns_model_set_param_kind, metadata), an
 * initializer is a trainable parameter only when a gradient can flow to it
 * from a graph output (each op says which of its inputs are
 * differentiable); otherwise it is a buffer or a constant by the role the
 * ops that use it give it.
 */

/* Optimizers for the training figures: SGD keeps no state, MOMENTUM one
 * buffer per trainable element, ADAM and ADAMW two (and a step count). */
#define NNS_OPTIMIZER_MAP(X)                                                   \
  X(SGD, 0, "sgd")                                                             \
  X(MOMENTUM, 1, "momentum")                                                   \
  X(ADAM, 2, "adam")                                                           \
  X(ADAMW, 3, "adamw")

typedef enum nns_optimizer {
#define NNS_OPTIMIZER_ENUM_(name, num, str) NNS_OPTIMIZER_##name = num,
  NNS_OPTIMIZER_MAP(NNS_OPTIMIZER_ENUM_)
#undef NNS_OPTIMIZER_ENUM_
} nns_optimizer;

/* "sgd", "momentum", "adam" (the words of the reports and of the CLI's
 * --optimizer); NULL for a number that is no optimizer. Optimizers are
 * numbered from 0 without gaps. Static string. */
NNS_API const char *nns_optimizer_name(int optimizer);

/* ---- Hardware: the roofline's peak FLOP/s and memory bandwidth ---- */

/* Compute dtypes a device lists a peak for (fp32: the vector figure; the
 * others: dense matrix/tensor figures, never the sparsity ones). */
#define NNS_COMPUTE_DTYPE_MAP(X)                                              \
  X(FP32, 0, "fp32")                                                           \
  X(TF32, 1, "tf32")                                                           \
  X(BF16, 2, "bf16")                                                           \
  X(FP16, 3, "fp16")                                                           \
  X(FP8, 4, "fp8")                                                             \
  X(INT8, 5, "int8")

typedef enum nns_compute_dtype {
#define NNS_COMPUTE_DTYPE_ENUM_(name, num, str) NNS_COMPUTE_##name = num,
  NNS_COMPUTE_DTYPE_MAP(NNS_COMPUTE_DTYPE_ENUM_)
#undef NNS_COMPUTE_DTYPE_ENUM_
  NNS_COMPUTE_DTYPE_COUNT = 6
} nns_compute_dtype;

/* "fp32", "tf32", "bf16", "fp16", "fp8", "int8" (the words of the CLI's
 * --dtype and the reports); NULL for another number. Static string. */
NNS_API const char *nns_compute_dtype_name(int dtype);
/* The compute dtype a storage dtype (NNS_DT_*, ONNX's numbers) runs at
 * when none is named: float16 fp16, bfloat16 bf16, the float8 types fp8,
 * any other (float32, float64, an integer, an unknown number) fp32: the
 * rule an analysis takes for its model's float dtype (docs/roofline.md),
 * and the binding's for a training step's dtype. */
NNS_API nns_compute_dtype nns_compute_dtype_of(int dtype);

/* One device. A peak of 0 means the device lists none for that dtype. */
typedef struct nns_hardware {
  size_t size;             /* sizeof(nns_hardware) */
  const char *name;        /* "h100-sxm" */
  const char *description; /* "NVIDIA H100 SXM5 80 GB" */
  const char *source;      /* the datasheet the figures come from (a URL) */
  double peak_flops[NNS_COMPUTE_DTYPE_COUNT]; /* dense FLOP/s (OP/s for
                                                 int8) by nns_compute_dtype */
  double bandwidth;        /* memory bandwidth, bytes/s */
} nns_hardware;

/* The table the library ships (docs/roofline.md lists it with its
 * sources). Its `cpu` entry has no figures: the caller gives them (the
 * CLI's --peak-flops and --bandwidth). Strings are static. */
NNS_API size_t nns_hardware_count(void);
NNS_API nns_status nns_hardware_get(size_t i, nns_hardware *out);
/* The shipped entry called `name`; NNS_E_NOTFOUND (naming it) otherwise. */
NNS_API nns_status nns_hardware_find(const char *name, nns_hardware *out,
                                     nns_error *err);

/*
 * Devices of the user's own, read from a small text file (format in
 * docs/roofline.md: one `[name]` section per device with `bandwidth = `,
 * `fp32 = `, ... `description = `, `source = ` lines). The list owns its
 * strings: free it after the last use of an entry (and of any analysis
 * that was given one: the analysis copies the figures and names).
 * Bad lines are NNS_E_MODEL naming the file and line.
 */
typedef struct nns_hardware_list nns_hardware_list;
NNS_API nns_status nns_hardware_list_open(const char *path,
                                          nns_hardware_list **out,
                                          nns_error *err);
NNS_API size_t nns_hardware_list_count(const nns_hardware_list *list);
NNS_API nns_status nns_hardware_list_get(const nns_hardware_list *list,
                                         size_t i, nns_hardware *out);
NNS_API void nns_hardware_list_free(nns_hardware_list *list);

typedef struct nns_analysis nns_analysis;

typedef struct nns_analyze_options {
  size_t size;                /* sizeof(nns_analyze_options) */
  nns_optimizer optimizer;    /* for the training estimate */
  /* The roofline (docs/metrics.md): a device (from nns_hardware_get, a
   * list, or filled in by the caller) or NULL for none. Its figures and
   * names are copied into the analysis. */
  const nns_hardware *hardware;
  /* The peak matrix ops (Conv, Gemm, MatMul, Einsum, ...: the op table's
   * `matrix` entries) run at, by name ("bf16"; nns_compute_dtype_name):
   * fp32, bf16 and fp16 apply to every op; tf32, fp8 and int8 to matrix
   * ops only, the others running at the model's float dtype. NULL: the
   * model's float dtype. NNS_E_ARG for another name (with or without a
   * device) or a dtype the device lists no peak for. */
  const char *compute_dtype;
  /* For a recorded backward pass: the analysis of its forward (same
   * module paths), or NULL. The backward's attention products (the
   * MatMuls in an attention's module whose scores-shaped operand or
   * output is that attention's [.., L, S] or [.., S, L]) then count
   * macs_unmasked / flops_unmasked over the (query, key) pairs the
   * forward's mask allows (docs/metrics.md, "Masked attention, tokens").
   * It must stay alive while nns_model_analyze runs, no longer. */
  const nns_analysis *forward;
} nns_analyze_options;

/* opts may be NULL (SGD). On success *out is a new analysis the caller
 * frees with nns_analysis_free(); on failure it is NULL. */
NNS_API nns_status nns_model_analyze(nns_model *model,
                                     const nns_analyze_options *opts,
                                     nns_analysis **out, nns_error *err);
/* Frees the analysis and every pointer read from it; NULL is a no-op. */
NNS_API void nns_analysis_free(nns_analysis *analysis);
/* The model it describes (NULL for NULL). */
NNS_API const nns_model *nns_analysis_model(const nns_analysis *analysis);

/* What a count's flags say: X(NAME, bit, "word"), NNS_COUNT_NAME = 1u <<
 * bit; the word is the version 1 JSON's ("flags": {"partial": ...}; a
 * saturated count is the totals' "saturated"). */
#define NNS_COUNT_FLAG_MAP(X)                                                  \
  /* some node had no cost rule: a lower bound */                             \
  X(PARTIAL, 0, "partial")                                                     \
  /* a symbolic dim was taken as 1 */                                         \
  X(SYMBOLIC, 1, "symbolic")                                                   \
  /* uses a parameter counted elsewhere */                                    \
  X(SHARED, 2, "shared")                                                       \
  /* a loop whose trip count is unknown was counted once */                   \
  X(UNBOUNDED, 3, "unbounded")                                                 \
  /* a count passed INT64_MAX: saturated */                                   \
  X(OVERFLOW, 4, "saturated")

enum {
#define NNS_COUNT_FLAG_BIT_(name, bit, word) NNS_COUNT_##name = 1u << bit,
  NNS_COUNT_FLAG_MAP(NNS_COUNT_FLAG_BIT_)
#undef NNS_COUNT_FLAG_BIT_
  /* Not a version 1 flag word (v1 says it as "unmasked_status"): an
   * attention applies a mask whose contents are not known, so its products
   * count dense in macs_unmasked and flops_unmasked, which are then not
   * exact (at most the real count's dense figure). */
  NNS_COUNT_MASK_UNKNOWN = 1u << 5
};

/* "partial", "symbolic", "shared", "unbounded", "saturated" for the flag
 * 1u << bit; NULL past the last. Static string. */
NNS_API const char *nns_count_flag_name(int bit);

/* The metrics of a layer's (and the totals') counts that the JSON reports
 * state a status for, in the documents' order: X(NAME, bit, "key",
 * NNS_COUNT_* flags that make it a lower bound, its nns_counts member,
 * NNS_METRIC_* flags, "what it counts"). The count flags are the rule that
 * gives a version 1 document's counts their statuses (docs/json.md):
 * partial where one of them is set, else complete; version 2 states them,
 * with the diagnostics behind each. The metric flags say how version 1
 * writes it. The sentence is what the schemas and docs/json.md say of it
 * (tools/docs_tables.py writes them from nns_metric_description). Adding a
 * metric: a member of nns_counts, a line here, how src/analyze/ counts it
 * (CONTRIBUTING.md); the JSON writers, diff, Python and the docs follow. */
#define NNS_METRIC_COST_ (NNS_COUNT_PARTIAL | NNS_METRIC_SIZED_)
#define NNS_METRIC_SIZED_ (NNS_COUNT_SYMBOLIC | NNS_COUNT_UNBOUNDED)
/* Grown after version 1's first counts: written after "flags", and only
 * when not zero (a document without it has 0). Without it a metric is one
 * of those first counts, written before "nodes", always. */
#define NNS_METRIC_V1_GROWN 1u
#define NNS_METRIC_MAP(X)                                                      \
  X(PARAMS, 0, "params", NNS_COUNT_OVERFLOW, params, 0u,                       \
    "trainable parameter elements (logical: an Identity copy counts as its "   \
    "own parameter)")                                                          \
  X(BUFFERS, 1, "buffers", NNS_COUNT_OVERFLOW, buffers, 0u,                    \
    "non-trainable state elements (BatchNorm running statistics)")             \
  X(FROZEN, 2, "frozen", NNS_COUNT_OVERFLOW, frozen, NNS_METRIC_V1_GROWN,      \
    "frozen (non-trainable) parameter elements")                               \
  X(PARAM_BYTES, 3, "param_bytes", NNS_COUNT_OVERFLOW, param_bytes, 0u,        \
    "bytes of the parameters (trainable and frozen) and buffers")              \
  X(FLOPS, 4, "flops", NNS_METRIC_COST_ | NNS_COUNT_OVERFLOW, flops, 0u,       \
    "floating-point operations")                                               \
  X(MACS, 5, "macs", NNS_METRIC_COST_ | NNS_COUNT_OVERFLOW, macs, 0u,          \
    "multiply-accumulates")                                                    \
  X(DMAS, 6, "dmas", NNS_METRIC_COST_ | NNS_COUNT_OVERFLOW, dmas, 0u,          \
    "memory accesses, in elements")                                            \
  X(ACTIVATION_BYTES, 7, "activation_bytes",                                   \
    NNS_METRIC_SIZED_ | NNS_COUNT_OVERFLOW, activation_bytes, 0u,              \
    "bytes of the outputs of the nodes counted")

/* The key of metric m ("params", ... as in NNS_METRIC_MAP); NULL past the
 * last. Numbered from 0 without gaps. Static string. */
NNS_API const char *nns_metric_name(int metric);
/* What metric m counts, a phrase ("multiply-accumulates"); NULL past the
 * last. Static string. */
NNS_API const char *nns_metric_description(int metric);
/* Its NNS_METRIC_* flags (NNS_METRIC_V1_GROWN); 0 past the last. */
NNS_API unsigned nns_metric_flags(int metric);
/* The metrics (bit 1u << m for nns_metric_name(m)) that counts flagged
 * `count_flags` (NNS_COUNT_*) leave partial: the list's rule, e.g.
 * nns_metrics_partial(NNS_COUNT_PARTIAL) has flops, macs and dmas. */
NNS_API unsigned nns_metrics_partial(unsigned count_flags);

/* Counts over a node, a layer's subtree, an op type or the whole model.
 * Read through nns_analysis_{total,layer,node,op_type}_counts. */
typedef struct nns_counts {
  size_t size;              /* sizeof(nns_counts) */
  int64_t params;           /* trainable parameter elements (logical) */
  int64_t buffers;          /* non-trainable state elements (BN stats) */
  int64_t param_bytes;      /* bytes of params + frozen + buffers */
  int64_t flops;            /* floating-point operations */
  int64_t macs;             /* multiply-accumulates */
  int64_t dmas;             /* memory accesses, in elements */
  int64_t activation_bytes; /* bytes of the outputs of its nodes */
  int64_t nodes;            /* nodes counted */
  unsigned flags;           /* NNS_COUNT_* */
  int64_t frozen;           /* frozen (non-trainable) parameter elements */
  /* Grown after v1 (layers and totals; 0 for nodes and op types): the
   * parameter elements (trainable + frozen) one token uses, experts of a
   * mixture-of-experts layer at k of E (nns_model_set_experts), and the
   * parameter and buffer bytes one call reads, experts at min(E, k*tokens)
   * of E. Equal to params + frozen and param_bytes without experts. */
  int64_t params_active;
  int64_t weight_bytes_read;
  /* Bytes moved: each input read once and each output written once at its
   * storage dtype, weights included; views move nothing (docs/metrics.md,
   * "Bytes and the roofline"). Computed by every analysis. */
  int64_t bytes;
  double intensity;      /* flops / bytes (0 when bytes is 0) */
  /* The roofline, when the analysis named a device
   * (nns_analyze_options.hardware); 0 (bound NONE) otherwise. */
  double time_s;         /* sum over nodes of max(flops / peak,
                            bytes / bandwidth), seconds */
  double compute_time_s; /* the part of time_s of compute-bound nodes */
  double memory_time_s;  /* the part of time_s of memory-bound nodes */
  int bound;             /* NNS_BOUND_*: which part of time_s is larger */
  /* As macs / flops, but the two attention products (Q.K^T and P.V) count
   * only the (query, key) pairs the attention mask allows, where the mask's
   * contents are known (docs/metrics.md, "Masked attention, tokens");
   * equal to macs / flops elsewhere. */
  int64_t macs_unmasked;
  int64_t flops_unmasked;
  /* With a recorded training step (nns_model_set_train_step), else 0: */
  int64_t saved_bytes;      /* storages autograd saved in its forward */
  int64_t checkpoint_saves_bytes;     /* what checkpointing it frees at
                                         the step's peak */
  int64_t checkpoint_recompute_flops; /* what checkpointing it recomputes */
} nns_counts;

/* Which roof a node's time comes from (nns_counts.bound); a layer's is
 * the larger of its nodes' compute and memory times. */
#define NNS_BOUND_MAP(X)                                                       \
  X(NONE, 0, "none")                                                           \
  X(COMPUTE, 1, "compute")                                                     \
  X(MEMORY, 2, "memory")

enum {
#define NNS_BOUND_ENUM_(name, num, str) NNS_BOUND_##name = num,
  NNS_BOUND_MAP(NNS_BOUND_ENUM_)
#undef NNS_BOUND_ENUM_
};
/* "none", "compute", "memory" as in NNS_BOUND_MAP; NULL for another
 * number. Static string. */
NNS_API const char *nns_bound_name(int bound);

/* Receptive field per spatial axis (see docs/metrics.md). Read through
 * nns_analysis_{total,layer}_rf. */
enum { NNS_RF_MAX_AXES = 3 };
typedef struct nns_rf {
  size_t size;                    /* sizeof(nns_rf) */
  int axes;                       /* 0: no spatial axes (or not known) */
  int whole;                      /* sees the whole input (global/dense) */
  int64_t field[NNS_RF_MAX_AXES]; /* receptive field, input pixels */
  int64_t stride[NNS_RF_MAX_AXES];  /* effective stride (jump) */
  int64_t padding[NNS_RF_MAX_AXES]; /* effective padding */
  /* Also depends on the whole input (a squeeze-excitation gate, a global
   * pooling branch added back, a normalisation over space): the field
   * above is that of the value's spatial path. Set on whole values too. */
  int global_context;
  /* Positions after which the field repeats along each axis: 1 (or 0)
   * where every position reads a field of the same size; more where
   * windowed attention makes the positions of one window read their whole
   * window (Swin). The field above is then the widest, the padding that of
   * position 0; nns_analysis_layer_rf_span gives each position's pixels. */
  int period[NNS_RF_MAX_AXES];
} nns_rf;

/* Whole-model figures beyond the counts (nns_analysis_total_counts) and the
 * receptive field (nns_analysis_total_rf). */
typedef struct nns_totals {
  size_t size;                   /* sizeof(nns_totals) */
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
  /* Grown after v1: the key/value cache of a decoder step, from the graph
   * inputs named past_key_values.* or past.* (the cache before the step)
   * and the outputs named present.* (after it); 0 without them. read: the
   * past inputs' bytes; written: present minus past (the new entries);
   * kv_cache_bytes: the present outputs' bytes (docs/metrics.md). */
  int64_t kv_cache_bytes_read;
  int64_t kv_cache_bytes_written;
  int64_t kv_cache_bytes;
  /* The roofline's figures (docs/metrics.md), when the analysis named a
   * hardware; hardware.name is NULL otherwise. Strings live as long as
   * the analysis. */
  nns_hardware hardware;       /* the device's figures as used */
  nns_compute_dtype compute_dtype; /* the peak matrix ops run at */
  nns_compute_dtype float_dtype;   /* the peak every other op runs at */
  /* Tokens of one forward: the element count of the token input (an
   * integer input an embedding Gather reads), else batch x sequence of a
   * rank-3 float input of a model with attention; 0 when the model has no
   * token dimension (docs/metrics.md). */
  int64_t tokens;
  /* From a recorded training step (nns_model_set_train_step; train_step
   * 1), which replaces the estimate above: train_optimizer_bytes is then
   * the optimizer's exact state, train_activation_bytes the saved bytes
   * and train_total_bytes the step's peak. */
  int train_step;                /* 1: a step was recorded; 0: estimate */
  int64_t train_saved_bytes;     /* storages autograd saved (forward) */
  int64_t train_peak_bytes;      /* most live bytes over the step */
  int train_peak_phase;          /* nns_train_phase of the peak moment */
  const char *train_peak_label;  /* its label ("LogSoftmaxBackward0") */
  const char *train_peak_path;   /* its module path ("" the model) */
  int64_t checkpoint_budget_bytes; /* the step's budget; 0: none */
  int64_t checkpoint_peak_bytes; /* the peak with the plan's modules
                                    checkpointed */
  int checkpoint_fits;           /* the plan reaches the budget */
  int64_t checkpoint_floor_bytes; /* the least peak checkpointing can
                                     reach: every activation a layer other
                                     than the root saves gone, the rest of
                                     the step (parameters, gradients,
                                     optimizer state, temporaries) kept;
                                     above the budget, the plan is empty */
} nns_totals;

/* Every nns_analysis_* accessor gives ANALYSIS results: valid until
 * nns_analysis_free(). */
NNS_API nns_status nns_analysis_totals(const nns_analysis *analysis, nns_totals *out);
NNS_API nns_status nns_analysis_total_counts(const nns_analysis *analysis,
                                          nns_counts *out);
/* The model's receptive field: that of the last value with spatial axes on
 * the path to its outputs (the largest over several outputs); a graph
 * whose outputs carry none gets the largest finite field of its layers. */
NNS_API nns_status nns_analysis_total_rf(const nns_analysis *analysis, nns_rf *out);

/* ==== Training step (what a binding saw one step do; docs/metrics.md) ====
 *
 * A binding that ran one training step (docs/python.md: on meta tensors,
 * with saved-tensor hooks) hands over what it saw; the next
 * nns_model_analyze() sums it per layer, finds the step's peak and ranks
 * the layers to checkpoint (train.c). The step is a list of moments (the
 * forward per module, each backward node, the optimizer step), of
 * events (bytes a storage adds or frees at a moment; parameters, buffers,
 * optimizer state and the graph's inputs are live all step long and are
 * not events: the library counts them) and of the storages autograd
 * saved. Every array and string is copied; a step replaces the previous
 * one; NULL clears it; an analysis made before keeps what it counted. */
#define NNS_TRAIN_PHASE_MAP(X)                                                 \
  X(FORWARD, 0, "forward")                                                     \
  X(BACKWARD, 1, "backward")                                                   \
  X(OPTIMIZER, 2, "optimizer")

typedef enum nns_train_phase {
#define NNS_TRAIN_PHASE_ENUM_(name, num, str) NNS_TRAIN_##name = num,
  NNS_TRAIN_PHASE_MAP(NNS_TRAIN_PHASE_ENUM_)
#undef NNS_TRAIN_PHASE_ENUM_
} nns_train_phase;

typedef struct nns_train_step {
  size_t size;                      /* sizeof(nns_train_step) */
  size_t moment_count;
  const int *moment_phase;          /* nns_train_phase per moment */
  const char *const *moment_label;  /* "loss", "MmBackward0", ... */
  const char *const *moment_path;   /* module path ("" the model) */
  size_t event_count;
  const uint32_t *event_moment;     /* per event, in step order */
  const int64_t *event_bytes;       /* > 0 made, < 0 freed */
  size_t saved_count;
  const char *const *saved_path;    /* first module that saved it */
  const char *const *saved_region;  /* innermost module holding its maker
                                       and every saver */
  const int64_t *saved_bytes;
  const int64_t *saved_made;        /* its event; -1: live all step */
  const int64_t *saved_freed;       /* its event; -1: not freed */
  int master_weights;               /* fp32 master copies of 16-bit params */
  int64_t budget_bytes;             /* checkpoint plan target; 0: none */
  const char *recorded_on;          /* "meta" */
  const char *target;               /* device the user named, or NULL */
  const char *loss;                 /* what was differentiated */
  /* Grown: keyword arguments the binding set on the recorded forward for
   * training ("use_cache=False": no KV cache in a training step), or
   * NULL; the reports say so. */
  const char *forward_set;
} nns_train_step;

NNS_API nns_status nns_model_set_train_step(nns_model *model,
                                            const nns_train_step *step,
                                            nns_error *err);
/* "forward", "backward", "optimizer" as in NNS_TRAIN_PHASE_MAP; NULL past
 * the last. Static. */
NNS_API const char *nns_train_phase_name(int phase);
/* The analysed step's settings (NULL strings without a step). */
NNS_API nns_status nns_analysis_train_info(const nns_analysis *analysis,
                                           int *master_weights,
                                           const char **recorded_on,
                                           const char **target,
                                           const char **loss);
/* The checkpoint plan for the step's budget: layers (preorder indices) in
 * the order they were chosen. */
NNS_API size_t nns_analysis_checkpoint_count(const nns_analysis *analysis);
NNS_API nns_status nns_analysis_checkpoint(const nns_analysis *analysis,
                                           size_t i, size_t *layer);

/* ==== Parallel training, per rank (parallel.c; docs/metrics.md) ====
 *
 * What one rank of a data/fully-sharded/tensor-parallel job holds, does
 * and sends in one training step. The binding (or the CLI) gives the
 * mesh and the plan; the next nns_model_analyze() counts this rank's
 * figures (rank 0 of the mesh) from the graph, its parameters and a
 * recorded training step where there is one. The graph is the rank's:
 * its inputs are the rank's local batch and, with tensor parallelism,
 * the tensor-parallel modules' weights are already their local shards
 * (the binding records them so; `tp_local` says so), as torch's
 * ColwiseParallel / RowwiseParallel leave them. Every array and string
 * is copied; a plan replaces the previous one; NULL clears it. */
#define NNS_TP_STYLE_MAP(X)                                                    \
  X(COLWISE, 1, "colwise")                                                     \
  X(ROWWISE, 2, "rowwise")

typedef enum nns_tp_style {
#define NNS_TP_STYLE_ENUM_(name, num, str) NNS_TP_##name = num,
  NNS_TP_STYLE_MAP(NNS_TP_STYLE_ENUM_)
#undef NNS_TP_STYLE_ENUM_
} nns_tp_style;

/* Collective kinds; bytes of a collective = its full buffer, as
 * nccl-tests' "size" (docs/metrics.md). */
#define NNS_COMM_KIND_MAP(X)                                                   \
  X(ALL_GATHER, 0, "all_gather")                                               \
  X(REDUCE_SCATTER, 1, "reduce_scatter")                                       \
  X(ALL_REDUCE, 2, "all_reduce")                                               \
  X(ALL_TO_ALL, 3, "all_to_all")

typedef enum nns_comm_kind {
#define NNS_COMM_KIND_ENUM_(name, num, str) NNS_COMM_##name = num,
  NNS_COMM_KIND_MAP(NNS_COMM_KIND_ENUM_)
#undef NNS_COMM_KIND_ENUM_
  NNS_COMM_KIND_COUNT = 4
} nns_comm_kind;

typedef struct nns_parallel {
  size_t size;                  /* sizeof(nns_parallel) */
  int64_t dp, fsdp, tp, ep;     /* axis sizes; 0 or 1: the axis is unused */
  /* The mesh as the job names it (a live DeviceMesh's dim names and
   * sizes), or 0 for the axes above that are over 1, in that order. */
  size_t mesh_count;
  const char *const *mesh_name;
  const int64_t *mesh_size;
  /* Modules given their own fully_shard, besides the root; 0 with fsdp
   * over 1: the model's layer list (the largest module whose children
   * are all named 0, 1, ...), one unit per child. */
  size_t unit_count;
  const char *const *unit_path;
  /* Modules split by tensor parallelism, with their nns_tp_style. */
  size_t tp_count;
  const char *const *tp_path;
  const int *tp_style;
  /* Modules holding experts spread over ep (MoE layers; their direct
   * children's parameters are the experts'). */
  size_t ep_count;
  const char *const *ep_path;
  const int64_t *ep_topk;       /* per ep module: experts per token */
  int64_t budget_bytes;         /* per-rank memory budget; 0: none */
  /* With tp over 1 the graph holds the split modules' local shards: the
   * logical (unsplit) element count of each parameter the plan splits,
   * by its qualified name ("model.layers.0.mlp.up_proj.weight"). The
   * totals' parameter counts are then the logical model's (the per-rank
   * figures stay the shards'; docs/metrics.md, "Per rank"). A caller
   * whose size stops before them gives none. */
  size_t logical_count;
  const char *const *logical_name;
  const int64_t *logical_elements;
} nns_parallel;

NNS_API nns_status nns_model_set_parallel(nns_model *model,
                                          const nns_parallel *plan,
                                          nns_error *err);
/* "colwise", "rowwise"; NULL for another number. Static. */
NNS_API const char *nns_tp_style_name(int style);
/* "all_gather", ...; NULL past the last. Static. */
NNS_API const char *nns_comm_kind_name(int kind);

/* One rank's figures (docs/metrics.md, "Per rank"). */
typedef struct nns_per_rank {
  size_t size;                  /* sizeof(nns_per_rank) */
  int64_t world_size;           /* 0: no plan was given */
  int64_t params;               /* local parameter elements (shards) */
  int64_t param_bytes;          /* their bytes (buffers out) */
  int64_t grad_bytes;           /* local gradient shards */
  int64_t optimizer_bytes;      /* local optimizer state */
  int64_t saved_bytes;          /* what autograd saves on the rank */
  int64_t train_peak_bytes;     /* most live bytes of a step on the rank */
  int64_t flops, macs;          /* the forward's, on local shapes */
  int64_t comm_bytes;           /* sum over kinds */
  int64_t comm[NNS_COMM_KIND_COUNT]; /* bytes per nns_comm_kind */
  int64_t budget_bytes;         /* 0: none */
  int fits;                     /* train_peak_bytes <= budget_bytes */
  const char *grow;             /* with a budget it misses: the axis that
                                   lowers the peak most when doubled
                                   ("fsdp", "tp"); else NULL */
  int estimate;                 /* 1: no recorded step (saved bytes and
                                   the peak are the training estimate's) */
} nns_per_rank;

/* The analysis's per-rank figures: world_size 0 without a plan. */
NNS_API nns_status nns_analysis_per_rank(const nns_analysis *analysis,
                                         nns_per_rank *out);
/* A layer's share (its subtree): params, param_bytes, grad_bytes,
 * optimizer_bytes and the collectives its modules issue (comm, comm_bytes);
 * the other fields 0. */
NNS_API nns_status nns_analysis_layer_per_rank(const nns_analysis *analysis,
                                               size_t layer,
                                               nns_per_rank *out);
/* The mesh of the plan: dim i's name and size; NNS_E_ARG past the last. */
NNS_API size_t nns_analysis_mesh_count(const nns_analysis *analysis);
NNS_API nns_status nns_analysis_mesh(const nns_analysis *analysis, size_t i,
                                     const char **name, int64_t *size);

/* Parameter and buffer storage by dtype. */
NNS_API size_t nns_analysis_param_dtype_count(const nns_analysis *analysis);
NNS_API nns_status nns_analysis_param_dtype(const nns_analysis *analysis, size_t i,
                                         int *dtype, int64_t *elements,
                                         int64_t *bytes);

/* Totals per op type, in first-seen order. */
typedef struct nns_op_type_info {
  size_t size;          /* sizeof(nns_op_type_info) */
  const char *domain;   /* "" for the default ONNX domain */
  const char *op_type;
  int counted;          /* 0 for op types without a cost rule (their nodes
                           add nothing but are listed) */
  const char *family;   /* its op table family (nns_family_name: "conv");
                           NULL when the table has no such op */
} nns_op_type_info;

NNS_API size_t nns_analysis_op_type_count(const nns_analysis *analysis);
NNS_API nns_status nns_analysis_op_type(const nns_analysis *analysis,
                                        size_t i, nns_op_type_info *out);
NNS_API nns_status nns_analysis_op_type_counts(const nns_analysis *analysis, size_t i,
                                            nns_counts *out);

/* A node's own counts: its cost, the bytes of its outputs, and the
 * parameters counted at it (nodes = 1). A node holding subgraphs counts
 * its own work only when it has a rule that includes its body's (If,
 * Loop, Scan do; see docs/metrics.md); its subgraph nodes have their own
 * rows. */
NNS_API nns_status nns_analysis_node_counts(const nns_analysis *analysis, size_t i,
                                         nns_counts *out);
/* Node i as nns_model_node gives it, with what the analysis adds: its
 * module_path and layer, and NNS_NODE_COUNTED when a cost rule counted it. */
NNS_API nns_status nns_analysis_node(const nns_analysis *analysis, size_t i,
                                     nns_node_info *out);

/* ---- Parameters ---- */

typedef struct nns_param_info {
  size_t size;             /* sizeof(nns_param_info) */
  const char *name;        /* the value's name (an initializer or a copy) */
  const char *storage;     /* the initializer holding its data */
  nns_param_kind kind;
  int dtype;
  int64_t elements;
  int64_t bytes;
  size_t layer;            /* layer that counts it */
  int shared;              /* also used by other layers (tied) */
  int is_copy;             /* an Identity copy of another initializer */
  int given;               /* kind given by the caller or the metadata,
                              not guessed */
} nns_param_info;

NNS_API size_t nns_analysis_param_count(const nns_analysis *analysis);
NNS_API nns_status nns_analysis_param(const nns_analysis *analysis, size_t i,
                                   nns_param_info *out);

/* ---- Layers: the module tree ---- */

/*
 * The module tree from node names (/layer1/layer1.0/conv1/Conv) or the
 * builder's module paths, in preorder; layer 0 is the model itself. A
 * layer's counts cover its whole subtree; cutting the tree at a depth is a
 * matter of skipping the rows below it.
 */
typedef struct nns_layer_info {
  size_t size;               /* sizeof(nns_layer_info) */
  const char *name;          /* last path component; "" for the root */
  const char *path;          /* dotted module path ("layer1.0.conv1") */
  int depth;                 /* 0 for the root */
  size_t parent;             /* (size_t)-1 for the root */
  size_t child_count;
  const char *type;          /* op type, module class, or op summary */
  const char *op_types;      /* distinct op types, comma-separated */
  size_t input_value;        /* value index of its first input, or -1 */
  size_t output_value;       /* value index of its output, or -1 */
  size_t call_count;         /* calls of the module (nns_model_set_module);
                                0 when not known */
  int not_called;            /* 1: a module the binding declared with 0
                                calls (nns_model_set_module): it never ran,
                                as googlenet's aux heads in eval; its params
                                still count. 0 otherwise */
} nns_layer_info;

NNS_API size_t nns_analysis_layer_count(const nns_analysis *analysis);
NNS_API nns_status nns_analysis_layer(const nns_analysis *analysis, size_t i,
                                   nns_layer_info *out);
/* Over the layer's subtree. */
NNS_API nns_status nns_analysis_layer_counts(const nns_analysis *analysis, size_t i,
                                          nns_counts *out);
/* Of the layer's output. */
NNS_API nns_status nns_analysis_layer_rf(const nns_analysis *analysis, size_t i,
                                      nns_rf *out);
/*
 * The input pixels that position `pos` of layer i's output reads along
 * spatial axis `axis` (0 <= axis < its nns_rf.axes): [*first, *last],
 * before clipping to the input (first < 0 reads padding). Where the field
 * is the same for every position that is pos*stride - padding and `field`
 * pixels on; windowed attention (Swin) makes it differ between positions
 * of one window and the next, and nns_rf then gives the widest and
 * position 0's padding. NNS_E_NOTFOUND when the layer's output has no
 * finite field (no spatial axes, or whole); NNS_E_ARG for a bad index,
 * axis or NULL out; NNS_E_LIMIT when the pixel index passes int64 (a huge
 * `pos`).
 */
NNS_API nns_status nns_analysis_layer_rf_span(const nns_analysis *analysis, size_t i,
                                           int axis, int64_t pos,
                                           int64_t *first, int64_t *last);

/* The module class of layer i as the model states it, in full
 * ("torchvision.models.resnet.BasicBlock": node metadata
 * pkg.torch.onnx.class_hierarchy, nnscan.module_types or
 * nns_model_set_module) into *class_name, or NULL when the model names
 * none (the layer's `type` is then an op summary). The layer's `type`
 * holds its short form ("BasicBlock"). ANALYSIS result. */
NNS_API nns_status nns_analysis_layer_class(const nns_analysis *analysis, size_t i,
                                         const char **class_name);

/* The If nodes of the main graph and the branch each one's costs follow:
 * *then_branch is 1 for then_branch, 0 for else_branch; *known is 1 when
 * the condition was known (folded, e.g. from nns_infer_options.values),
 * 0 when it was not and the larger branch was counted, 2 when it was not
 * but the other branch cannot run with these inputs (its inference
 * failed; a warning says why). *node is the node's
 * name, or its layer's when it has none. Both branches' weights always
 * count as parameters. */
NNS_API size_t nns_analysis_branch_count(const nns_analysis *analysis);
NNS_API nns_status nns_analysis_branch(const nns_analysis *analysis, size_t i,
                                    const char **node, int *then_branch,
                                    int *known);

/* Op types with nodes that were not counted, and how many nodes each has
 * (a lower bound on every total that contains them). */
NNS_API size_t nns_analysis_uncounted_op_count(const nns_analysis *analysis);
NNS_API nns_status nns_analysis_uncounted_op(const nns_analysis *analysis, size_t i,
                                          const char **domain,
                                          const char **op_type,
                                          size_t *node_count);
/* Why the nodes of uncounted op type i were not counted; the three add up
 * to its node_count. *no_rule: the op has no cost rule. *no_size: its rule
 * found no usable size (an unknown rank or dim, or one that symbolic dims
 * taken as 1 made negative; --input with the real sizes fixes it).
 * *failed: the rule reported an error (a warning says which). */
NNS_API nns_status nns_analysis_uncounted_op_why(const nns_analysis *analysis,
                                              size_t i, size_t *no_rule,
                                              size_t *no_size,
                                              size_t *failed);
/* Where the sizes of uncounted op type i's first no_size node were lost:
 * *node is a node index (nns_model_node), (size_t)-1 when it has none
 * there (a function body's node, or no no_size node: *how is then
 * NNS_SIZE_LOST_NONE). */
enum {
  NNS_SIZE_LOST_NONE = 0,
  NNS_SIZE_LOST_NEGATIVE = 1, /* at *node itself: its inputs have shapes,
                                 but symbolic dims taken as 1 make one of
                                 its sizes negative */
  NNS_SIZE_LOST_IF = 2,       /* an If (*node) whose condition is unknown
                                 and whose branches give outputs of
                                 different ranks: its output's shape, and
                                 every shape after it, is unknown */
  NNS_SIZE_LOST_SHAPE = 3,    /* *node's output shape could not be
                                 inferred, and the shapes after it */
  NNS_SIZE_LOST_INPUT = 4     /* a graph input of unknown rank, read by
                                 *node */
};
NNS_API nns_status nns_analysis_uncounted_op_lost(const nns_analysis *analysis,
                                               size_t i, size_t *node,
                                               int *how);

/* ---- Activation memory over time ---- */

/* The live-activation curve: one point per main-graph node in running
 * order (the model's own order when it is topological), the bytes of
 * activations alive after it (the curve whose maximum is
 * nns_totals.peak_activation_bytes) and the layer that holds the node. */
NNS_API size_t nns_analysis_memory_count(const nns_analysis *analysis);
NNS_API nns_status nns_analysis_memory_point(const nns_analysis *analysis,
                                             size_t i, int64_t *live_bytes,
                                             size_t *layer);
/* The position of the curve's first maximum; (size_t)-1 without points. */
NNS_API size_t nns_analysis_memory_peak(const nns_analysis *analysis);

/* ---- The inference it counted ---- */

/*
 * What nns_model_value, nns_model_value_dim, nns_model_unknown_op and
 * nns_model_warning gave when the analysis was made, kept by it: a later
 * nns_model_infer() changes the model's, not these. Value indexes are the
 * model's (names, roles and producers are MODEL data and the same); the
 * warnings are the load's and the inference's, then the analysis's own
 * (a cost rule that failed, metadata it could not read).
 */
NNS_API nns_status nns_analysis_value(const nns_analysis *analysis, size_t i,
                                      nns_value_info *out);
NNS_API nns_status nns_analysis_value_dim(const nns_analysis *analysis,
                                          size_t i, int axis, nns_dim *out);
NNS_API size_t nns_analysis_unknown_op_count(const nns_analysis *analysis);
NNS_API nns_status nns_analysis_unknown_op(const nns_analysis *analysis,
                                           size_t i, const char **domain,
                                           const char **op_type,
                                           size_t *node_count);
NNS_API size_t nns_analysis_warning_count(const nns_analysis *analysis);
NNS_API nns_status nns_analysis_warning(const nns_analysis *analysis,
                                        size_t i, const char **message);

/* ---- Custom operators (thop's custom_ops) ---- */

/* The view of one node a custom rule gets; valid during the callback. */
typedef struct nns_op_ctx nns_op_ctx;

/* Counts, dtypes and ranks: 0 / 0 / -1 for a NULL ctx, an index out of
 * range, or when unknown or absent. */
NNS_API size_t nns_op_ctx_input_count(const nns_op_ctx *cx);
NNS_API size_t nns_op_ctx_output_count(const nns_op_ctx *cx);
NNS_API int nns_op_ctx_input_dtype(const nns_op_ctx *cx, size_t i);
NNS_API int nns_op_ctx_input_rank(const nns_op_ctx *cx, size_t i);
NNS_API int nns_op_ctx_output_rank(const nns_op_ctx *cx, size_t i);
/* Dim `axis` of input / output i: NNS_E_ARG unless 0 <= axis < rank. */
NNS_API nns_status nns_op_ctx_input_dim(const nns_op_ctx *cx, size_t i,
                                        int axis, nns_dim *out);
NNS_API nns_status nns_op_ctx_output_dim(const nns_op_ctx *cx, size_t i,
                                         int axis, nns_dim *out);
/* The node's attribute, or `def` when absent (or cx or name is NULL). */
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
 * Renderers of an analysis (nns_report): the tree table people read, CSV,
 * Markdown, the JSON contract scripts parse ("nnscan.summary", documented
 * in docs/json.md) and a self-contained HTML page of it (docs/html.md);
 * and of a model's inference (nns_report_shapes): the value shapes
 * ("nnscan.shapes" JSON, or a text table). The library never prints:
 * every report goes through the caller's write callback, in pieces.
 *
 *   nns_report_options o = {.size = sizeof o, .format = NNS_FORMAT_TEXT,
 *                           .columns = NNS_COL_PARAMS | NNS_COL_MACS};
 *   nns_report(analysis, &o, nns_write_stdio, stdout, &err);
 */

/* Receives the next `size` bytes of a report; returns 0 to go on, anything
 * else to stop (the report then fails with NNS_E_IO). */
typedef int (*nns_write_fn)(void *user, const char *data, size_t size);

/* A ready-made nns_write_fn: `file` is a FILE * (stdout, an fopen'ed file). */
NNS_API int nns_write_stdio(void *file, const char *data, size_t size);

/*
 * The report formats, one X-macro entry each: enum name, number, and the
 * word nns_report_format_name() gives (the CLI's --format and the Python
 * binding's format= take these words).
 *
 *   TEXT: the tree table with its footer. CSV: one row per layer, with
 *   path and depth. MD: a Markdown table, one row per layer. JSON: the
 *   machine contract, everything, unformatted. HTML: one self-contained
 *   page, the JSON document and a viewer (module tree as an icicle, tree
 *   table, memory curve; docs/html.md); nns_report_table takes it too
 *   (table and interactive scatter).
 *
 *   SHAPES_JSON, SHAPES_TEXT: of an inference, through nns_report_shapes
 *   (no analysis needed; NNS_E_STATE if not inferred): every value's dtype
 *   and shape, as the "nnscan.shapes" contract or as a table (name, role,
 *   dtype, shape).
 *
 *   BACKWARD_TEXT: of the graph of a backward pass (a binding's recording
 *   of autograd's ops), as a section under its forward model's
 *   NNS_FORMAT_TEXT report: a heading, the tree table (the root row holds
 *   the totals) and what was not counted; the parameter, memory and
 *   receptive-field footer, which describes the forward model, is left out.
 *
 *   LAYERS_TEXT, _CSV, _MD: thoplw's per-module table (docs/compat.md):
 *   Name, Class, Input shape, Output shape, MACs, Params (parameters +
 *   buffers), one row per leaf module the binding declared with calls
 *   (nns_model_set_module, in declaration order; a module with given MACs
 *   stands for its subtree), a Total row with the model's class. Numbers
 *   raw, or as thop's clever_format ("118.01M") or "%5.2f %" of the
 *   column's total; the Total row is clever in both. As text (a +---+
 *   rule), CSV or Markdown.
 *
 *   LAYERS_JSON: the same rows and Total row as the "nnscan.layers"
 *   document (docs/json.md, docs/layers.schema.json): each {"name",
 *   "class", "input", "output": the cells as the table prints them;
 *   "macs", "params": raw integers, whatever `numbers` says}.
 */
#define NNS_REPORT_FORMAT_MAP(X)                                               \
  X(TEXT, 0, "text")                                                           \
  X(CSV, 1, "csv")                                                             \
  X(MD, 2, "md")                                                               \
  X(JSON, 3, "json")                                                           \
  X(HTML, 4, "html")                                                           \
  X(SHAPES_JSON, 5, "shapes_json")                                             \
  X(SHAPES_TEXT, 6, "shapes_text")                                             \
  X(BACKWARD_TEXT, 7, "backward_text")                                         \
  X(LAYERS_TEXT, 8, "layers_text")                                             \
  X(LAYERS_CSV, 9, "layers_csv")                                               \
  X(LAYERS_MD, 10, "layers_md")                                               \
  X(LAYERS_JSON, 11, "layers_json")

typedef enum nns_report_format {
#define NNS_REPORT_FORMAT_ENUM_(name, num, str) NNS_FORMAT_##name = num,
  NNS_REPORT_FORMAT_MAP(NNS_REPORT_FORMAT_ENUM_)
#undef NNS_REPORT_FORMAT_ENUM_
} nns_report_format;

/* "text", "csv", "md", "json", "html", "shapes_json", ... as in
 * NNS_REPORT_FORMAT_MAP; NULL for a number that is no format. Formats are
 * numbered from 0 without gaps. Static string. */
NNS_API const char *nns_report_format_name(int format);

/* How numbers are written: RAW 1824010216 (text and md: 1,824,010,216);
 * CLEVER 1.82 G, bytes in IEC units (44.6 MiB); RATIO the percentage of
 * the column's total (12.34%). */
#define NNS_NUMBERS_MAP(X)                                                     \
  X(RAW, 0, "raw")                                                             \
  X(CLEVER, 1, "clever")                                                       \
  X(RATIO, 2, "ratio")

typedef enum nns_numbers {
#define NNS_NUMBERS_ENUM_(name, num, str) NNS_NUMBERS_##name = num,
  NNS_NUMBERS_MAP(NNS_NUMBERS_ENUM_)
#undef NNS_NUMBERS_ENUM_
} nns_numbers;

/* "raw", "clever", "ratio" (the CLI's --numbers); NULL for another
 * number. Numbered from 0 without gaps. Static string. */
NNS_API const char *nns_numbers_name(int numbers);

/* Where a name too long for its column loses characters (to a "…"):
 * MIDDLE layer1.0.…conv1, START …0.downsample.0, END layer1.0.downs… */
#define NNS_WRAP_MAP(X)                                                        \
  X(MIDDLE, 0, "middle")                                                       \
  X(START, 1, "start")                                                         \
  X(END, 2, "end")

typedef enum nns_wrap {
#define NNS_WRAP_ENUM_(name, num, str) NNS_WRAP_##name = num,
  NNS_WRAP_MAP(NNS_WRAP_ENUM_)
#undef NNS_WRAP_ENUM_
} nns_wrap;

/* "middle", "start", "end" (the CLI's --wrap); NULL for another number.
 * Numbered from 0 without gaps. Static string. */
NNS_API const char *nns_wrap_name(int wrap);

/* Numeric columns of the layer table, as a caller asks for them: one bit
 * each, X(NAME, bit, "word", flags). Layer, Type and Output Shape are
 * always shown. NNS_COL_RF is three columns (RF, Stride, Pad); the same
 * cells under torchscan's names are NNS_COL_RF_FIELD (Receptive field, as
 * its receptive_field=True) and NNS_COL_RF_STATS (Receptive field,
 * Effective stride, Effective padding, as its effective_rf_stats=True);
 * NNS_COL_PCT is two (% of the total params and of the total MACs).
 * flags: NNS_COLUMN_IN_ALL, in NNS_COL_ALL (the CLI's "all");
 * NNS_COLUMN_ASKED, a word the CLI's --columns takes (the others are
 * torchscan's names, or shown by what the analysis holds). Each column's
 * cells (header, CSV key, unit) are the report's (docs/cli.md). Adding a
 * column: one line here, its cells in src/report/ (CONTRIBUTING.md). */
#define NNS_COLUMN_IN_ALL 1u
#define NNS_COLUMN_ASKED 2u
#define NNS_COL_ASKED_ALL_ (NNS_COLUMN_IN_ALL | NNS_COLUMN_ASKED)
#define NNS_COLUMN_MAP(X)                                                      \
  /* Param #: trainable parameters */                                         \
  X(PARAMS, 0, "params", NNS_COL_ASKED_ALL_)                                   \
  /* Buffers: non-trainable state (BN statistics) */                          \
  X(BUFFERS, 1, "buffers", NNS_COL_ASKED_ALL_)                                 \
  X(FLOPS, 2, "flops", NNS_COL_ASKED_ALL_)                                     \
  X(MACS, 3, "macs", NNS_COL_ASKED_ALL_)                                       \
  X(DMAS, 4, "dmas", NNS_COL_ASKED_ALL_)                                       \
  /* receptive field, effective stride, padding */                            \
  X(RF, 5, "rf", NNS_COL_ASKED_ALL_)                                           \
  /* activation memory: bytes of the outputs */                               \
  X(ACT, 6, "act", NNS_COL_ASKED_ALL_)                                         \
  /* % of the total params and MACs */                                        \
  X(PCT, 7, "pct", NNS_COL_ASKED_ALL_)                                         \
  /* bytes moved (docs/metrics.md) */                                         \
  X(BYTES, 8, "bytes", NNS_COLUMN_ASKED)                                       \
  /* Intensity, Bound and Time: the roofline, shown when the analysis        \
   * named a device */                                                        \
  X(ROOF, 9, "roof", NNS_COLUMN_ASKED)                                         \
  /* torchscan's Receptive field column */                                    \
  X(RF_FIELD, 10, "rf_field", 0u)                                              \
  /* ... and its Effective stride, Effective padding */                       \
  X(RF_STATS, 11, "rf_stats", 0u)                                              \
  /* saved for backward: shown whenever a training step was recorded,        \
   * never without */                                                         \
  X(SAVED, 12, "saved", 0u)

enum {
#define NNS_COLUMN_BIT_(name, bit, word, flags) NNS_COL_##name = 1u << bit,
  NNS_COLUMN_MAP(NNS_COLUMN_BIT_)
#undef NNS_COLUMN_BIT_
#define NNS_COLUMN_ALL_(name, bit, word, flags)                                \
  | ((flags) & NNS_COLUMN_IN_ALL ? 1u << bit : 0u)
  NNS_COL_ALL = 0u NNS_COLUMN_MAP(NNS_COLUMN_ALL_), /* 0xff */
#undef NNS_COLUMN_ALL_
  NNS_COL_DEFAULT = NNS_COL_PARAMS
};

/* The word of the column NNS_COL_* = 1u << bit ("params", "buffers", ...
 * as in NNS_COLUMN_MAP); NULL past the last. Bits are numbered from 0
 * without gaps. Static string. */
NNS_API const char *nns_column_name(int bit);
/* Its NNS_COLUMN_IN_ALL and NNS_COLUMN_ASKED flags; 0 past the last. */
NNS_API unsigned nns_column_flags(int bit);

/* max_depth values with a meaning of their own. */
enum {
  NNS_DEPTH_DEFAULT = 0, /* 2 for text and md; every depth for csv, json
                            and html */
  NNS_DEPTH_ALL = -1     /* every layer */
};

typedef struct nns_report_options {
  size_t size;            /* sizeof(nns_report_options) */
  nns_report_format format;
  nns_numbers numbers;    /* text, csv and md; JSON numbers are always raw */
  int max_depth;          /* deepest layer shown (1: the model's children);
                             deeper layers are counted in their ancestor */
  unsigned columns;       /* NNS_COL_* set; 0 means NNS_COL_DEFAULT */
  int width;              /* text: width in terminal columns; 0 means 100 */
  nns_wrap wrap;          /* text: how long names are shortened */
  const char *model_name; /* the root row's name; NULL: the graph's name */
  const char *model_path; /* recorded in the JSON; may be NULL */
  int json_version;       /* NNS_FORMAT_JSON: 2 for "nnscan.summary" v2
                             (every count with its status and diagnostics,
                             docs/json.md); 0 or 1: version 1 */
  /* NULL, or the analysis of this model's backward pass (analysed with
   * nns_analyze_options.forward = this analysis): the JSON totals then
   * give the training FLOPs, forward + backward (train_flops, ...). */
  const nns_analysis *backward;
} nns_report_options;

/*
 * Writes the report of an analysis through `write`: the names and
 * structure come from its model, every count, shape and warning from the
 * analysis (the inference it counted). opts may be NULL (text, default
 * columns and depth); the SHAPES formats are nns_report_shapes's
 * (NNS_E_ARG here). NNS_E_IO if `write` asked to stop.
 */
NNS_API nns_status nns_report(const nns_analysis *analysis,
                              const nns_report_options *opts,
                              nns_write_fn write, void *user, nns_error *err);

/*
 * Writes the value shapes of the model's last inference:
 * NNS_FORMAT_SHAPES_JSON or NNS_FORMAT_SHAPES_TEXT (NULL opts: the text
 * table; other formats are nns_report's, NNS_E_ARG here). NNS_E_STATE if
 * the model's last inference did not succeed.
 */
NNS_API nns_status nns_report_shapes(const nns_model *model,
                                     const nns_report_options *opts,
                                     nns_write_fn write, void *user,
                                     nns_error *err);

/* The text summary's lines on the nodes not counted, as its footer writes
 * them: one line per reason ("Not counted (no cost rule): Erf x2, ..."),
 * each op type with its nodes, the --input that gives real sizes where
 * symbolic dims lost them, "totals marked ≥ are lower bounds", and the
 * warnings of a failed cost rule; nothing when every node was counted.
 * The words a binding prints about uncounted ops (Python's profile()).
 * NNS_E_ARG for a NULL analysis or write; NNS_E_IO when write fails. */
NNS_API nns_status nns_report_uncounted(const nns_analysis *analysis,
                                        nns_write_fn write, void *user,
                                        nns_error *err);

/*
 * Copies src (NULL: "") into dst as text safe to print on a terminal: C0
 * and C1 control characters and DEL become '?', bytes that are not UTF-8
 * become U+FFFD, and the result is cut at a character boundary to fit
 * `size` bytes (NUL included). Returns the length written (strlen(dst));
 * 0, writing nothing, when dst is NULL or size is 0. The text, CSV and
 * Markdown reports clean every name from the model this way; use it for
 * names you print yourself (nns_model_value(), warnings, errors).
 */
NNS_API size_t nns_text_clean(char *dst, size_t size, const char *src);

/* Styles of nns_format_count: the clever counts of the tools nnscan
 * stands in for, one X-macro entry each (enum name, number, word).
 *
 *   THOP: thop's clever_format: the value over 1e12, 1e9, 1e6 or 1e3 with
 *   unit T, G, M or K once it is strictly above that scale, else the value
 *   itself with unit B ("%.2f": 1824010216 -> "1.82G", 1000 -> "1000.00B",
 *   1001 -> "1.00K").
 *
 *   THOPLW: thoplw's clever_format: the value divided by 1000 while it is
 *   at least 1000 (up to P), then a space and the unit, a space for none
 *   ("%6.2f": 1824010216 -> "  1.82 G", 999 -> "999.00  ", 1000 ->
 *   "  1.00 K").
 */
#define NNS_COUNT_STYLE_MAP(X)                                                 \
  X(THOP, 0, "thop")                                                           \
  X(THOPLW, 1, "thoplw")

typedef enum nns_count_style {
#define NNS_COUNT_STYLE_ENUM_(name, num, str) NNS_COUNT_STYLE_##name = num,
  NNS_COUNT_STYLE_MAP(NNS_COUNT_STYLE_ENUM_)
#undef NNS_COUNT_STYLE_ENUM_
} nns_count_style;

/* "thop", "thoplw" as in NNS_COUNT_STYLE_MAP (the Python binding's
 * clever= words); NULL for another number. Static string. */
NNS_API const char *nns_count_style_name(int style);

/* The widest field and the most decimals nns_format_count takes, and the
 * bytes that hold any value it writes (-DBL_MAX with every decimal: 309
 * digits, the sign, the point, 20 decimals, the unit and the NUL). */
#define NNS_COUNT_WIDTH_MAX 64
#define NNS_COUNT_DIGITS_MAX 20
#define NNS_COUNT_SIZE_MAX 336

/*
 * Writes `value` as a count in `style` into buf, NUL-terminated, the
 * number as printf's "%<width>.<digits>f" (width 0: no padding) before its
 * unit: the one formatter of the clever counts of the layers tables
 * (NNS_FORMAT_LAYERS_*) and of the Python binding's clever_format. A NaN
 * prints "nan" whatever its sign. NNS_E_ARG for a NULL buf, a size of 0,
 * an unknown style, width outside 0 to NNS_COUNT_WIDTH_MAX or digits
 * outside 0 to NNS_COUNT_DIGITS_MAX; NNS_E_LIMIT when the text does not
 * fit `size` bytes (32 hold any value of magnitude below 1e18 with width
 * 0 to 8 and 2 decimals, NNS_COUNT_SIZE_MAX any value). On error buf (when
 * there is one) holds "".
 */
NNS_API nns_status nns_format_count(double value, nns_count_style style,
                                    int width, int digits, char *buf,
                                    size_t size, nns_error *err);

/* ---- A layers table the caller counted ---- */

/* One row of a layers table that the caller counted itself, by another
 * tool's conventions (nnscan.compat.thoplw: its rows, MACs and params). */
typedef struct nns_layers_row {
  size_t size;                 /* sizeof(nns_layers_row); the array stride */
  const char *name;            /* Name cell (a module path); NULL: "" */
  const char *class_name;      /* Class cell; NULL: "" */
  const int64_t *input_shape;  /* dims, batch first (printed without it) */
  int input_rank;              /* -1: none recorded, printed "-" */
  const int64_t *output_shape;
  int output_rank;
  int64_t macs;                /* MACs cell */
  int64_t params;              /* Params cell */
} nns_layers_row;

/*
 * Writes the layers table of NNS_FORMAT_LAYERS_TEXT, _CSV, _MD or _JSON
 * (opts->format; NULL opts: text) from `count` rows the caller gives,
 * strided by rows[0].size, and `total` as its Total row (its name is not
 * used): the same layout and cells as nns_report's, the ratios of total's
 * MACs and params, NNS_NUMBERS_CLEVER in the `clever` style
 * (nns_format_count, 2 decimals; thoplw's with a width of 6). Other
 * options are not used. Nothing is kept. NNS_E_ARG for a NULL write,
 * total, or rows with a count, a row's size below the first version's, a
 * rank below -1 or a rank above 0 without its dims, another format or
 * number style, or an unknown clever style; NNS_E_IO if `write` asked to
 * stop.
 */
NNS_API nns_status nns_report_layers(const nns_layers_row *rows, size_t count,
                                     const nns_layers_row *total,
                                     nns_count_style clever,
                                     const nns_report_options *opts,
                                     nns_write_fn write, void *user,
                                     nns_error *err);

/* ---- Comparison of several models ---- */

/*
 * A table of models: each row is copied from an analysis when it is added,
 * so the analysis and its model may be freed right after. The caller owns
 * the table and frees it with nns_table_free().
 */
typedef struct nns_table nns_table;

NNS_API nns_status nns_table_new(nns_table **out, nns_error *err);
NNS_API void nns_table_free(nns_table *table);
/* Appends a row named `name` (copied) with the analysis's totals. */
NNS_API nns_status nns_table_add(nns_table *table, const char *name,
                                 const nns_analysis *analysis,
                                 nns_error *err);
/* Appends a row from counts the caller has (another tool's, or edited):
 * counts must be given, rf may be NULL (no receptive field). */
NNS_API nns_status nns_table_add_row(nns_table *table, const char *name,
                                     const nns_counts *counts,
                                     const nns_rf *rf, nns_error *err);
NNS_API size_t nns_table_row_count(const nns_table *table);

/*
 * One row per model: Model, Params, FLOPs, MACs, DMAs, RF, each count
 * column in its own unit (k, M, G, T), named in its title ("FLOPs (G)").
 * opts->format is NNS_FORMAT_MD, NNS_FORMAT_CSV (raw counts, then
 * complete and symbols_at_1), NNS_FORMAT_TEXT (laid out like md) or
 * NNS_FORMAT_HTML (a page with the table and the plot, interactive); other
 * fields are not used. A partial count shows as "≥ x"; a model whose
 * counts took symbolic dims as 1 is marked " *", and a note under the
 * table names the dims (docs/cli.md).
 */
NNS_API nns_status nns_report_table(const nns_table *table,
                                    const nns_report_options *opts,
                                    nns_write_fn write, void *user,
                                    nns_error *err);

/*
 * An SVG scatter plot of MACs (y) against parameters (x), one labelled
 * point per model; an axis whose values span more than a decade is
 * logarithmic (models with a zero count are then left off, and listed in
 * the SVG's <desc>). Labels never overlap each other or a point: one that
 * cannot sit beside its point is moved to free space and gets a leader
 * line.
 */
NNS_API nns_status nns_report_plot(const nns_table *table, nns_write_fn write,
                                   void *user, nns_error *err);

/* ---- Diff of two reports ---- */

/*
 * Compares two "nnscan.summary" documents (version 1 or 2: nns_report's
 * JSON, or a saved file) of a model before and after a change: the runs
 * (inputs, nnscan versions, dtypes), the totals, and the layers matched by
 * module path and call index, as added, removed or changed. A delta is
 * given only where both sides are complete, and withheld everywhere when
 * the runs differ (other inputs, nnscan versions or dtypes). Budgets
 * ("macs > +5%, params > +0": docs/cli.md) are checked on the totals.
 *
 *   nns_diff_options o = {.size = sizeof o, .format = NNS_FORMAT_TEXT,
 *                         .budgets = "macs > +5%"};
 *   nns_diff_result r = {.size = sizeof r};
 *   nns_diff_report(a, a_len, b, b_len, &o, nns_write_stdio, stdout, &r,
 *                   &err);
 *   if (r.exceeded) ...
 */
typedef struct nns_diff_options {
  size_t size;               /* sizeof(nns_diff_options) */
  nns_report_format format;  /* NNS_FORMAT_TEXT, NNS_FORMAT_JSON (the
                                "nnscan.diff" document, docs/json.md) or
                                NNS_FORMAT_HTML (before and after side by
                                side) */
  const char *budgets;       /* "METRIC OP [+|-]N[%]", comma-separated;
                                NULL or "": none */
} nns_diff_options;

typedef struct nns_diff_result {
  size_t size;               /* sizeof(nns_diff_result) */
  int comparable;            /* 1: same inputs, nnscan version and dtypes */
  size_t added, removed, changed, unchanged; /* layers */
  int budgets;               /* budgets checked */
  int exceeded;              /* budgets whose limit the delta passes */
  int withheld;              /* budgets without a delta to check (a side
                                not complete, or the runs differ) */
} nns_diff_result;

/* before/after: JSON text of before_size/after_size bytes. result may be
 * NULL. NNS_E_JSON (offset and which side in err) for a document that is
 * not JSON, NNS_E_ARG for one that is not an "nnscan.summary" document,
 * a bad budget or format, NNS_E_IO if `write` asked to stop. */
NNS_API nns_status nns_diff_report(const char *before, size_t before_size,
                                   const char *after, size_t after_size,
                                   const nns_diff_options *opts,
                                   nns_write_fn write, void *user,
                                   nns_diff_result *result, nns_error *err);

/* Whether text[0..size) is one JSON document as nnscan reads saved reports
 * (nns_diff_report's reader): RFC 8259, no object with a key twice, at
 * most 256 levels of arrays and objects. NNS_OK, or NNS_E_JSON with the
 * byte offset in err ("nesting deeper than 256 levels at byte 256");
 * NNS_E_NOMEM. Bindings check a saved document with it before reading it
 * themselves, so one set of rules holds for every reader. */
NNS_API nns_status nns_json_check(const char *text, size_t size,
                                  nns_error *err);

/* ==== Operator table (static data) ==== */

typedef struct nns_op_info {
  size_t size;          /* sizeof(nns_op_info) */
  const char *domain;   /* "" for the default ONNX domain */
  const char *name;
  int since_version;    /* first opset this entry covers */
  int until_version;    /* last opset this entry covers */
  int has_shape_rule;
  int has_fold;         /* evaluates constant inputs during inference */
  int has_cost_rule;    /* FLOPs, MACs, DMAs */
  int has_rf_rule;      /* receptive field of a sliding window */
  const char *roles;    /* input roles: a w b u c, last one repeats */
  const char *no_grad;  /* per input, '1' where no gradient flows through
                           it (an index, a condition, a shape); "" when
                           every input is differentiable; the last repeats */
  const char *family;   /* the family it belongs to (nns_family_name) */
} nns_op_info;

NNS_API size_t nns_op_count(void);
NNS_API nns_status nns_op_get(size_t i, nns_op_info *out);
/* The newest ai.onnx opset the table is written against: every entry that
 * is current there covers it (until_version), so a graph built or exported
 * at this opset meets every op's current entry. */
NNS_API int nns_opset_max(void);
/* The op families of the table, in its order ("conv", "gemm", ...): family
 * i for i = 0, 1, ... until NULL. Static strings. An op's family is the one
 * nns_op_info and the reports name; the HTML page colours by its index. */
NNS_API const char *nns_family_name(size_t i);
/* The operator table as JSON (what `nnscan ops --format json` prints): an
 * array of {"domain", "op_type", "since", "until", "roles", "shape",
 * "fold", "cost", "rf"}, one per entry, in table order. NNS_E_IO if
 * `write` asked to stop. */
NNS_API nns_status nns_op_table_json(nns_write_fn write, void *user,
                                     nns_error *err);
/* The aten table (PyTorch's operators, src/ops/aten.c), read by the
 * torch.export (.pt2) reader: entry i's aten op name ("conv2d"; its
 * in-place form "relu_" shares "relu"'s entry), and into *lowers_to (may
 * be NULL) what it lowers to: the ONNX-style op type(s) counted for it,
 * "(its input)" for an alias or "(a constant)" for a made tensor. NULL
 * past the last entry. Static strings; sorted by name. */
NNS_API const char *nns_aten_op(size_t i, const char **lowers_to);
/* How aten entry i lowers: NNS_ATEN_UNARY (one node of its lowers_to type
 * on its first tensor argument), NNS_ATEN_BINARY (one node on its first
 * two arguments, a Cast where their dtype is not the result's, a scalar
 * constant for a number), NNS_ATEN_ALIAS, NNS_ATEN_CREATE, NNS_ATEN_RULE
 * (a function of its own); 0 past the last entry. What a binding needs to
 * know which calls it may hand over as aten records and what they become. */
#define NNS_ATEN_FORM_MAP(X)                                                   \
  X(UNARY, 1, "unary")                                                         \
  X(BINARY, 2, "binary")                                                       \
  X(ALIAS, 3, "alias")                                                         \
  X(CREATE, 4, "create")                                                       \
  X(RULE, 5, "rule")
typedef enum nns_aten_form {
#define NNS_ATEN_FORM_ENUM_(name, num, str) NNS_ATEN_##name = num,
  NNS_ATEN_FORM_MAP(NNS_ATEN_FORM_ENUM_)
#undef NNS_ATEN_FORM_ENUM_
} nns_aten_form;
/* "unary", ..., "rule"; NULL for 0 and past the last. Static string. */
NNS_API const char *nns_aten_form_name(int form);
NNS_API int nns_aten_op_form(size_t i);
/* Which outputs of aten entry i its lowering may leave unwritten (bit k:
 * output k; a pooling's indices, a loss's total weight, a dropout's mask,
 * the fast-path attention's weights: no node writes them, and a .pt2
 * reads them as constants); 0 past the last entry. A binding numbering
 * its graph at the build (deferred names, packed record 32) cannot know
 * where a later op reads such an output first, and records the call
 * itself. */
NNS_API unsigned nns_aten_op_unwritten(size_t i);
/* The tensor arguments of aten entry i its lowering may leave unread, by
 * schema name, space separated ("" for none, and past the last entry):
 * "NAME" one it reads the sizes of at most (a pooling backward's input, a
 * norm backward's saved statistics), "NAME/K" one it reads only when
 * output K is computed (is not NULL, nor masked off by an output_mask: a
 * convolution backward's input, for the weight's gradient), "NAME?ARG=V"
 * one it reads only when the int argument ARG is V (a loss backward's
 * total weight, read under a mean: "total_weight?reduction=1"), "NAME?"
 * one it reads for some values of the other arguments only, none said.
 * A binding numbering its graph at the build (deferred names) names a
 * tensor where the call's nodes first read it: it must not name one of
 * these there, as the call leaves it unread. Static string. */
NNS_API const char *nns_aten_op_unread(size_t i);
/* The piece of a tensor's contents aten entry i's lowering reads, as
 * "MASK>SELF": how many of tensor argument SELF's elements tensor argument
 * MASK (broadcast to SELF's sizes) holds true, given as an INT argument
 * "tracked_count" after the schema's (packed record 29: masked_scatter,
 * how many of source's elements land). A binding that tracks the values
 * it records counts it; without it the call stays uncounted (reported).
 * "" for the entries that read no contents, and past the last. Static
 * string. */
NNS_API const char *nns_aten_op_counted(size_t i);
/* How aten entry i's lowering takes a complex value in its real form
 * (view_as_real's (..., 2) tensor of the real dtype): "makes" for an op
 * whose complex output is always in real form (view_as_complex, polar,
 * _fft_c2c, _fft_r2c), "reads" for the other ops whose lowering takes a
 * complex value in real form (view_as_real, mul, abs, _to_copy, and the
 * layout ops: view, _unsafe_view, _reshape_alias, reshape, flatten,
 * unsqueeze, squeeze, view_as, slice, select, expand). A binding that
 * records live hands over a call on a value in real form for these
 * entries only (any other op's stays uncounted: its lowering reads no
 * real form). "" for the other entries (the composites a live recording
 * never sees among them: to, type_as, real, imag, fft_*), and past the
 * last. Static string. */
NNS_API const char *nns_aten_op_complex(size_t i);
/*
 * How the table lowers one call, as the recorder numbers what it makes
 * (packed record 30): what a binding that numbers its own nodes and values
 * around the calls it hands over needs to go on counting. Filled by
 * nns_aten_numbering; the caller sets `size`.
 */
enum { NNS_ATEN_NUMBERING_MAX = 64, NNS_ATEN_NUMBERING_OPS = 1024 };
typedef struct nns_aten_numbering_info {
  size_t size;          /* sizeof(nns_aten_numbering_info) */
  int64_t values;       /* value numbers the lowering takes */
  int64_t constants;    /* of them, constants ("cN") */
  int64_t nodes;        /* nodes it adds */
  int32_t n_outs;       /* the record's outputs */
  int32_t n_tensors;    /* its tensor arguments (a list's tensors each) */
  /* the number output k takes; -1 for one that is its input under another
   * name (an alias), 0 for one the call leaves unwritten */
  int64_t out_number[NNS_ATEN_NUMBERING_MAX];
  /* tensor argument k (in record order) is the first_read[k]-th one the
   * nodes read (from 0, in node and input order); -1 when none reads it */
  int32_t first_read[NNS_ATEN_NUMBERING_MAX];
  /* the nodes' op types in order, each after its domain and a colon
   * outside ONNX's own ("com.microsoft:Gelu"), separated by spaces */
  char op_types[NNS_ATEN_NUMBERING_OPS];
  /* for an output that is an alias (out_number -1), the tensor argument
   * (in record order) it names; -1 for any other output, and for an
   * alias of a value the call made */
  int32_t alias_of[NNS_ATEN_NUMBERING_MAX];
  /* for tensor argument k (record order), the value numbers the lowering
   * had taken when a node first read it (0: before any; -1: none reads
   * it). A binding that names an argument itself, as it is first read
   * (a constant from outside), can name it before the call where this
   * is 0 */
  int64_t read_after[NNS_ATEN_NUMBERING_MAX];
} nns_aten_numbering_info;
/*
 * Lowers the call of one aten record alone, into a scratch graph, under
 * the recorder's numbering: `data` (`size` bytes) is a packed buffer
 * (nns_builder_add_packed's layout) holding what the call reads, if
 * anything (initializer, param_kind and aten records: a weight and the
 * unnumbered t() of it that the call folds into a Gemm's transB), then a
 * `names` record of zeros, then the call's aten record, nothing else. A
 * tensor argument the call folds is read as its weight (first_read).
 * A record after `names` V, K, I then
 * takes the numbers V+1 .. V+values and the nodes K .. K+nodes-1, and
 * output k is named v(V + out_number[k]). NNS_E_NOTFOUND when the table
 * has no entry for the op or its rule cannot lower this call (it would be
 * an uncounted node); NNS_E_LIMIT for more than 64 outputs or tensor
 * arguments, or op types past 1,024 bytes; NNS_E_ARG for malformed bytes
 * or other records, or an `out` whose size is too small.
 */
NNS_API nns_status nns_aten_numbering(const void *data, size_t size,
                                      nns_aten_numbering_info *out,
                                      nns_error *err);
/* The devices as JSON (what `nnscan hardware --json` prints, the
 * "nnscan.hardware" document): those of `list` (may be NULL) first, then
 * the library's table; each {"name", "description", "source",
 * "peak_flops": {dtype: FLOP/s or null}, "bandwidth"}. NNS_E_IO if `write`
 * asked to stop. */
NNS_API nns_status nns_hardware_json(const nns_hardware_list *list,
                                     nns_write_fn write, void *user,
                                     nns_error *err);

/* ==== Inspection ==== */

/*
 * An inspection holds what a binding recorded while a model really ran
 * (the Python Inspector hooks a live PyTorch model during the user's own
 * forward and backward passes): per module call, the shapes and dtypes of
 * its inputs, outputs and gradients, its forward and backward latency and
 * memory, and whether NaN or Inf went through it. The library aggregates
 * the calls over the module tree and writes the reports; docs/inspect.md
 * defines every figure.
 *
 *   nns_inspection *in;
 *   nns_inspection_create(&in, &err);
 *   nns_inspection_add_module(in, &root, &idx, &err);   // parents first
 *   ...
 *   nns_inspection_add_batch(in, &pass, &err);          // once per pass
 *   nns_inspection_report(in, &opts, nns_write_stdio, stdout, &err);
 *   nns_inspection_free(in);
 *
 * Every struct passed in starts with its own size (set it to sizeof), so
 * later versions can grow them; strings and arrays are copied, the caller
 * keeps ownership of what it passes.
 *
 * Threads: add_module, set_meta and add_batch change the inspection and
 * need it to themselves. Everything is aggregated as each batch is added,
 * so the functions taking a `const nns_inspection *` (the counts, stats,
 * first offenders and reports) only read it: any number of threads may
 * call them at once, as long as no thread is adding to it meanwhile.
 */
typedef struct nns_inspection nns_inspection;

NNS_API nns_status nns_inspection_create(nns_inspection **out,
                                         nns_error *err);
NNS_API void nns_inspection_free(nns_inspection *insp);

/* Bytes of a module's parameters of one dtype (over its subtree). */
typedef struct nns_inspect_dtype_bytes {
  int dtype;               /* nns_dtype */
  int64_t bytes;           /* all parameters of this dtype */
  int64_t learnable_bytes; /* those that require a gradient */
} nns_inspect_dtype_bytes;

/* A module of the tree. The first module added is the model itself (the
 * root, parent (size_t)-1); every other names an earlier one as parent. */
typedef struct nns_inspect_module {
  size_t size;            /* sizeof(nns_inspect_module) */
  const char *path;       /* dotted module path; "" for the root */
  const char *type;       /* class name ("Conv2d") */
  size_t parent;          /* index of its parent; (size_t)-1 for the root */
  int64_t params;         /* parameter elements of the subtree */
  int64_t learnable_params; /* of those, requiring a gradient */
  int64_t param_bytes;    /* bytes of all parameters of the subtree */
  int64_t grad_bytes;     /* bytes of the gradients of learnable ones */
  int64_t flops;          /* static count, subtree, one forward; -1 unknown */
  int64_t macs;           /* static count, subtree, one forward; -1 unknown */
  const nns_inspect_dtype_bytes *param_dtypes; /* may be NULL */
  size_t param_dtype_count;
  /* The static roofline time of the subtree over one forward on the
   * run's device (nns_counts.time_s of the static analysis, in ms; the
   * meta key "hardware" names the device); 0: not known. The reports
   * show it beside the measured time, with the fraction of the roof
   * achieved (docs/inspect.md). */
  double roofline_ms;
  /* Static prediction of what one training step's forward of the subtree
   * saves for backward (a recorded step's saved_bytes); -1 unknown. A
   * caller whose size stops before it gives none. */
  int64_t saved_bytes;
} nns_inspect_module;

/* Adds a module; *index (may be NULL) receives its index. */
NNS_API nns_status nns_inspection_add_module(nns_inspection *insp,
                                             const nns_inspect_module *module,
                                             size_t *index, nns_error *err);

/* A parameter tensor a module holds (nns_inspection_add_params). */
typedef struct nns_inspect_param {
  size_t size;        /* sizeof(nns_inspect_param); also the array stride */
  size_t module;      /* index from nns_inspection_add_module */
  uint64_t tensor;    /* names the tensor, not 0: equal numbers are one
                         tensor (a weight tied between modules) */
  int dtype;          /* nns_dtype */
  int element_bits;   /* bits of one element (8 * element_size), 1..1024 */
  int64_t elements;   /* its element count */
  int learnable;      /* requires a gradient */
} nns_inspect_param;

/* Declares `count` parameters, strided by params[0].size (the entries
 * need not be aligned). Each counts in
 * its module's params, learnable_params, param_bytes, grad_bytes and
 * per-dtype bytes and in every ancestor's, a distinct tensor once per
 * module, as PyTorch's parameters() counts a tied weight once. A binding
 * declares a parameter on the nearest added module that holds it (a
 * module below the watched depth, or a second path of a shared module,
 * is not added). These add to the counts nns_inspect_module gave (0 when a
 * binding declares its parameters). On an error nothing is declared. */
NNS_API nns_status nns_inspection_add_params(nns_inspection *insp,
                                             const nns_inspect_param *params,
                                             size_t count, nns_error *err);

/* Free-form facts about the run ("device": "cpu", "clock": "host"), kept
 * in the JSON reports' "meta" object; a key set twice keeps the last. */
NNS_API nns_status nns_inspection_set_meta(nns_inspection *insp,
                                           const char *key, const char *value,
                                           nns_error *err);

/* What a recorded tensor was to its module call: INPUT an argument of
 * forward (positional or keyword), OUTPUT returned by forward, GRAD_INPUT
 * the gradient w.r.t. an input, GRAD_OUTPUT the gradient w.r.t. an
 * output. The word is the JSON report's "role" of a tensor. */
#define NNS_TENSOR_ROLE_MAP(X)                                                 \
  X(INPUT, 0, "input")                                                         \
  X(OUTPUT, 1, "output")                                                       \
  X(GRAD_INPUT, 2, "grad_input")                                               \
  X(GRAD_OUTPUT, 3, "grad_output")

typedef enum nns_tensor_role {
#define NNS_TENSOR_ROLE_ENUM_(name, num, str) NNS_TENSOR_##name = num,
  NNS_TENSOR_ROLE_MAP(NNS_TENSOR_ROLE_ENUM_)
#undef NNS_TENSOR_ROLE_ENUM_
} nns_tensor_role;

/* "input", "output", "grad_input", "grad_output"; NULL for another number.
 * Numbered from 0 without gaps. Static string. */
NNS_API const char *nns_tensor_role_name(int role);

enum {
  NNS_TENSOR_NAN = 1u << 0,     /* holds a NaN */
  NNS_TENSOR_INF = 1u << 1,     /* holds an Inf */
  NNS_TENSOR_CHECKED = 1u << 2, /* was checked for NaN/Inf */
  NNS_TENSOR_STATS = 1u << 3    /* min .. zero_fraction are set */
};

typedef struct nns_inspect_tensor {
  nns_tensor_role role;
  int dtype;              /* nns_dtype; 0 when it has no ONNX number */
  int rank;               /* number of dims, >= 0 */
  unsigned flags;         /* NNS_TENSOR_* */
  size_t dims;            /* index of its first dim in the batch's dims */
  const char *name;       /* where it sat: "0", "1.0", "mask", "out.logits";
                             may be NULL */
  int64_t bytes;          /* bytes of its elements */
  double min, max, mean, std; /* with NNS_TENSOR_STATS, over finite values */
  double zero_fraction;   /* share of elements equal to 0 */
} nns_inspect_tensor;

/* A point in time during a pass, and the memory counters there. A counter
 * or time not known is negative (times: NaN or negative). */
typedef struct nns_inspect_event {
  double time_ms;         /* since any origin fixed for the whole batch */
  int64_t alloc_bytes;    /* bytes allocated since any fixed origin
                             (cumulative, never decreasing); -1 unknown */
  int64_t live_bytes;     /* bytes allocated and not yet freed; -1 unknown */
} nns_inspect_event;

enum {
  NNS_CALL_RAISED = 1u << 0,   /* its forward raised: no end, no outputs */
  NNS_CALL_NO_GRAD = 1u << 1,  /* ran with gradients disabled */
  NNS_CALL_BACKWARD = 1u << 2  /* a backward reached it */
};

/* One call of one module's forward, and the backward through it. Calls of
 * a batch come in the order their forwards started (so a call's parent
 * comes before it). */
typedef struct nns_inspect_call {
  size_t module;          /* index from nns_inspection_add_module */
  size_t parent;          /* index in this batch of the call it ran inside;
                             (size_t)-1 for an outermost call */
  unsigned flags;         /* NNS_CALL_* */
  int64_t fwd_seq;        /* execution order of its forward's end; -1 */
  int64_t bwd_seq;        /* execution order of its first gradient w.r.t.
                             an input; -1 */
  nns_inspect_event fwd_start, fwd_end; /* its forward */
  nns_inspect_event bwd_start; /* first gradient w.r.t. an output arrived */
  nns_inspect_event bwd_end;   /* last gradient w.r.t. an input computed */
  size_t tensor_first;    /* its tensors in the batch's tensor array */
  size_t tensor_count;
} nns_inspect_call;

/* Everything one pass recorded, handed over at once. */
typedef struct nns_inspect_batch {
  size_t size;            /* sizeof(nns_inspect_batch) */
  int rank;               /* distributed rank (0 without one) */
  int64_t pass;           /* the pass's number on its rank */
  double wall_start;      /* seconds since the epoch when the pass began
                             (orders events across ranks) */
  const nns_inspect_call *calls;
  size_t call_count;
  size_t call_size;       /* sizeof(nns_inspect_call) */
  const nns_inspect_tensor *tensors;
  size_t tensor_count;
  size_t tensor_size;     /* sizeof(nns_inspect_tensor) */
  const int64_t *dims;
  size_t dim_count;
} nns_inspect_batch;

/* Checks and copies a batch. A bad index, a parent after its child, a dim
 * range out of bounds, a wall_start that is NaN or infinite, or a byte
 * count above 2^62 is NNS_E_ARG naming the call or tensor; nothing of a
 * rejected batch is kept. call_size and tensor_size may be any stride at
 * least the struct's size (the elements are copied out, never read in
 * place); tensors named by several calls are kept once. */
NNS_API nns_status nns_inspection_add_batch(nns_inspection *insp,
                                            const nns_inspect_batch *batch,
                                            nns_error *err);

/* Modules added, and calls recorded (all batches); 0 for NULL. */
NNS_API size_t nns_inspection_module_count(const nns_inspection *insp);
NNS_API size_t nns_inspection_call_count(const nns_inspection *insp);

/* How a module call took part in a NaN/Inf: NONE not at all; PRODUCER
 * finite in, non-finite out, and no call inside it made it; PROPAGATOR
 * non-finite out that came in, or came from a call inside it. The word is
 * what the reports print (NONE has none: the reports leave it out). */
#define NNS_NONFINITE_ROLE_MAP(X)                                              \
  X(NONE, 0, NULL)                                                             \
  X(PRODUCER, 1, "producer")                                                   \
  X(PROPAGATOR, 2, "propagator")

typedef enum nns_nonfinite_role {
#define NNS_NONFINITE_ROLE_ENUM_(name, num, str) NNS_NONFINITE_##name = num,
  NNS_NONFINITE_ROLE_MAP(NNS_NONFINITE_ROLE_ENUM_)
#undef NNS_NONFINITE_ROLE_ENUM_
} nns_nonfinite_role;

/* "producer", "propagator"; NULL for NNS_NONFINITE_NONE and for a number
 * that is no role. Static string. */
NNS_API const char *nns_nonfinite_role_name(int role);

enum {
  NNS_NONFINITE_OUTPUT = 1u << 0,      /* an output held NaN/Inf */
  NNS_NONFINITE_INPUT = 1u << 1,       /* an input held NaN/Inf */
  NNS_NONFINITE_GRAD_INPUT = 1u << 2,  /* a gradient w.r.t. an input did */
  NNS_NONFINITE_GRAD_OUTPUT = 1u << 3  /* a gradient w.r.t. an output did */
};

/* A module's calls aggregated (over every pass and rank). Latencies and
 * memory are totals over its calls; inclusive covers its subtree, self is
 * inclusive less its child calls (docs/inspect.md). */
typedef struct nns_inspect_stats {
  size_t size;            /* sizeof(nns_inspect_stats) */
  int64_t calls;          /* forward calls recorded */
  int64_t backward_calls; /* of those, reached by a backward */
  int64_t passes;         /* passes recorded (all ranks) */
  double fwd_inclusive_ms, fwd_self_ms;
  double bwd_inclusive_ms, bwd_self_ms;
  int64_t fwd_alloc_bytes, fwd_self_alloc_bytes; /* allocated in forward */
  int64_t bwd_alloc_bytes, bwd_self_alloc_bytes; /* allocated in backward */
  unsigned nonfinite;     /* NNS_NONFINITE_* over its calls */
  nns_nonfinite_role fwd_role, bwd_role; /* the strongest over its calls */
  int nonfinite_rank;     /* rank that saw its first NaN/Inf; -1 if none */
  int ranks;              /* ranks that called it */
  double rank_fwd_ms[3];  /* min, median, max over ranks of its forward
                             inclusive time per pass */
  double rank_bwd_ms[3];  /* the same for the backward */
  /* The rank of the max above (the slowest rank of the module's forward,
   * of its backward); -1 when no rank ran it. A caller whose size stops
   * before them gets none. */
  int rank_fwd_slowest, rank_bwd_slowest;
} nns_inspect_stats;

NNS_API nns_status nns_inspection_module_stats(const nns_inspection *insp,
                                               size_t module,
                                               nns_inspect_stats *out,
                                               nns_error *err);

/* The first offender of the forward (backward = 0) or of the backward:
 * the earliest producer in execution order, else the earliest propagator
 * (NaN that came in through the model's inputs). */
typedef struct nns_inspect_offender {
  size_t size;            /* sizeof(nns_inspect_offender) */
  int found;              /* 0: no NaN/Inf was seen */
  size_t module;
  size_t call;            /* index among all calls, in insertion order */
  int rank;
  int64_t pass;
  nns_nonfinite_role role;
} nns_inspect_offender;

NNS_API nns_status nns_inspection_first_nonfinite(const nns_inspection *insp,
                                                  int backward,
                                                  nns_inspect_offender *out,
                                                  nns_error *err);

/* ---- Reading an inspection ----
 *
 * What the reports print, through accessors (the report renderers use
 * nothing else): every module with its place in the tree, every call with
 * what aggregation derived for it, each call's tensors, the passes and the
 * meta facts. Index-based, like the analysis accessors: modules are
 * numbered as nns_inspection_add_module numbered them, calls in the order
 * the batches brought them (nns_inspection_call_count), passes in the order
 * they were added. A bad index is NNS_E_ARG, *out untouched. The structs
 * start with their size (set it to sizeof); a caller built against a
 * smaller struct gets the fields it knows. Strings and arrays they point
 * to belong to the inspection: valid until nns_inspection_free, except a
 * module's param_dtypes (until the next nns_inspection_add_params). */

/* A module as the inspection holds it: what add_module and add_params
 * gave (subtree counts), and where it sits in the tree. */
typedef struct nns_inspect_module_info {
  size_t size;            /* sizeof(nns_inspect_module_info) */
  const char *path;       /* dotted module path; "" for the root */
  size_t path_len;        /* strlen(path), without walking it (a deep
                             chain's paths are long) */
  const char *name;       /* its last path component ("conv1") */
  const char *type;       /* class name; "" when none was given */
  size_t parent;          /* (size_t)-1 for the root */
  int depth;              /* 0 for the root */
  size_t first_child;     /* its first child, or (size_t)-1 */
  size_t next_sibling;    /* the next child of its parent, or (size_t)-1;
                             children keep the order they were added in */
  int64_t params, learnable_params, param_bytes, grad_bytes; /* subtree */
  int64_t flops, macs;    /* static, one forward; -1 unknown */
  double roofline_ms;     /* static roofline time; 0 unknown */
  int64_t saved_bytes;    /* predicted saved for backward; -1 unknown */
  const nns_inspect_dtype_bytes *param_dtypes; /* bytes by dtype */
  size_t param_dtype_count;
  size_t first_call;      /* its first call (nns_inspection_call), or
                             (size_t)-1; the rest follow next_same */
} nns_inspect_module_info;

NNS_API nns_status nns_inspection_module(const nns_inspection *insp,
                                         size_t module,
                                         nns_inspect_module_info *out,
                                         nns_error *err);

/* One recorded call, with what aggregation derived for it (docs/inspect.md
 * defines each figure). A phase's events are known when both its times
 * were; the backward's span is widened to cover its child calls'. */
typedef struct nns_inspect_call_info {
  size_t size;            /* sizeof(nns_inspect_call_info) */
  size_t module;
  size_t parent;          /* the call it ran inside (index among all
                             calls), or (size_t)-1 */
  size_t batch;           /* the pass it came in (nns_inspection_batch) */
  size_t next_same;       /* its module's next call, or (size_t)-1 */
  unsigned flags;         /* NNS_CALL_* */
  int64_t fwd_seq, bwd_seq; /* as recorded; -1 */
  int forward_known;      /* fwd_start and fwd_end hold times */
  nns_inspect_event fwd_start, fwd_end;
  int backward_known;     /* bwd_start and bwd_end hold times */
  nns_inspect_event bwd_start, bwd_end;
  double fwd_inclusive_ms, fwd_self_ms; /* NaN unknown */
  double bwd_inclusive_ms, bwd_self_ms; /* NaN unknown */
  int64_t fwd_alloc_bytes, fwd_self_alloc_bytes; /* -1 unknown */
  int64_t bwd_alloc_bytes, bwd_self_alloc_bytes; /* -1 unknown */
  unsigned nonfinite;     /* NNS_NONFINITE_* of its own tensors */
  nns_nonfinite_role fwd_role, bwd_role;
  size_t tensor_count;    /* nns_inspection_call_tensor's range */
} nns_inspect_call_info;

NNS_API nns_status nns_inspection_call(const nns_inspection *insp,
                                       size_t call,
                                       nns_inspect_call_info *out,
                                       nns_error *err);

/* Tensor k of a call, as recorded. */
typedef struct nns_inspect_tensor_info {
  size_t size;            /* sizeof(nns_inspect_tensor_info) */
  nns_tensor_role role;
  int dtype;              /* nns_dtype; 0 when it has no ONNX number */
  int rank;
  unsigned flags;         /* NNS_TENSOR_* */
  const int64_t *dims;    /* rank dims */
  const char *name;       /* NULL when not given */
  int64_t bytes;
  double min, max, mean, std; /* with NNS_TENSOR_STATS */
  double zero_fraction;
} nns_inspect_tensor_info;

NNS_API nns_status nns_inspection_call_tensor(const nns_inspection *insp,
                                              size_t call, size_t k,
                                              nns_inspect_tensor_info *out,
                                              nns_error *err);

/* Passes added (nns_inspection_add_batch calls kept); 0 for NULL. The
 * reports' per-pass figures are totals over this count. */
NNS_API size_t nns_inspection_batch_count(const nns_inspection *insp);

/* A pass: its calls are [first_call, first_call + call_count). */
typedef struct nns_inspect_batch_info {
  size_t size;            /* sizeof(nns_inspect_batch_info) */
  int rank;
  int64_t pass;
  double wall_start;      /* seconds since the epoch */
  size_t first_call, call_count;
} nns_inspect_batch_info;

NNS_API nns_status nns_inspection_batch(const nns_inspection *insp,
                                        size_t batch,
                                        nns_inspect_batch_info *out,
                                        nns_error *err);

/* The meta facts (nns_inspection_set_meta), in the order first set (a key
 * set again keeps its place, with the last value); the count is 0 for
 * NULL. key and value (either may be NULL) receive strings that belong to
 * the inspection, valid until nns_inspection_free. */
NNS_API size_t nns_inspection_meta_count(const nns_inspection *insp);
NNS_API nns_status nns_inspection_meta(const nns_inspection *insp, size_t i,
                                       const char **key, const char **value,
                                       nns_error *err);

/* ---- Ranks ----
 *
 * Under torch.distributed a binding says, per rank, what the passes do
 * not: the collectives the rank issued while it was inspected (counted as
 * nccl-tests' "size", the conventions of nns_per_rank) and, when it had
 * them, the static per-rank counts of the rank's own shards
 * (nns_analysis_per_rank of the rank's model, its mesh from
 * nns_analysis_mesh). The reports print one row per rank beside the
 * merged tree (docs/inspect.md, "Ranks"). */
typedef struct nns_inspect_rank {
  size_t size;            /* sizeof(nns_inspect_rank) */
  int rank;               /* 0 .. 65535 */
  int64_t comm_calls[NNS_COMM_KIND_COUNT]; /* collectives seen, by kind */
  int64_t comm_bytes[NNS_COMM_KIND_COUNT]; /* their bytes, by kind */
  const nns_per_rank *counts; /* static per-rank counts, or NULL; its
                                 `grow` is not kept */
  size_t mesh_count;      /* the mesh of the counts: dim names, sizes */
  const char *const *mesh_name;
  const int64_t *mesh_size;
} nns_inspect_rank;

/* Sets what rank r->rank saw (set again: replaced). A rank out of range,
 * a negative or absurd (> 2^62) count, or a mesh entry without a name is
 * NNS_E_ARG, and nothing is kept. */
NNS_API nns_status nns_inspection_set_rank(nns_inspection *insp,
                                           const nns_inspect_rank *r,
                                           nns_error *err);

/* A rank as the reports show it: its passes' figures (totals over its
 * passes, of their outermost calls, as the JSON's passes[] give them per
 * pass) and what nns_inspection_set_rank gave. */
typedef struct nns_inspect_rank_info {
  size_t size;            /* sizeof(nns_inspect_rank_info) */
  int rank;
  int64_t passes;         /* its passes */
  double fwd_ms, bwd_ms;  /* forward, backward time over its passes */
  int64_t fwd_alloc_bytes, bwd_alloc_bytes; /* allocated; -1 unknown */
  int comm_known;         /* nns_inspection_set_rank gave this rank */
  int64_t comm_calls[NNS_COMM_KIND_COUNT];
  int64_t comm_bytes[NNS_COMM_KIND_COUNT];
  int has_counts;         /* counts, mesh_* below hold static counts */
  nns_per_rank counts;    /* grow NULL */
  size_t mesh_count;
  const char *const *mesh_name;
  const int64_t *mesh_size;
} nns_inspect_rank_info;

/* The ranks that added a pass or were set, in ascending rank order; 0
 * for NULL. */
NNS_API size_t nns_inspection_rank_count(const nns_inspection *insp);
NNS_API nns_status nns_inspection_rank(const nns_inspection *insp, size_t i,
                                       nns_inspect_rank_info *out,
                                       nns_error *err);

/*
 * The tree table (text, CSV, Markdown) with calls, latency, memory and
 * NaN/Inf columns, the "nnscan.inspect" JSON (docs/inspect.md,
 * docs/inspect.schema.json), or NNS_FORMAT_HTML: one self-contained page
 * embedding that JSON with the viewer (docs/html.md), per the format in
 * opts (NULL: text; the shapes formats are refused with NNS_E_ARG). Of the
 * options, max_depth, numbers, width, wrap and model_name are used.
 */
NNS_API nns_status nns_inspection_report(const nns_inspection *insp,
                                         const nns_report_options *opts,
                                         nns_write_fn write, void *user,
                                         nns_error *err);

/* The layout torch_inspector ("Inspector Gadgets") saves:
 * {name: {"info": {...}, "children": {...}}} with its keys and units
 * (memory in MB of 10^6 bytes, latency in ms per pass), plus a few keys of
 * nnscan's own (docs/inspect.md). Nesting stops at module depth 64: a
 * module there lists all its descendants flat, keyed by their path below
 * it, so any JSON parser loads the result. */
NNS_API nns_status nns_inspection_report_seed(const nns_inspection *insp,
                                              const nns_report_options *opts,
                                              nns_write_fn write, void *user,
                                              nns_error *err);

/* ==== MFU: a training step's FLOPs against its time (docs/metrics.md) ====
 *
 * What one training step costs, from the analyses of its recorded forward
 * and backward (a binding's recording: Python's nnscan.StepMeter), and
 * what share of a device's peak the step's measured time makes of it.
 * The FLOPs are the matrix products' (the op table's `matrix` entries),
 * a multiply-add counted as 2 (2 x MACs: PaLM's and Megatron's
 * convention, and PyTorch's FlopCounterMode's).
 */
typedef struct nns_step_flops {
  size_t size;               /* sizeof(nns_step_flops) */
  int64_t model_flops;       /* forward + backward, the attention products
                                over the pairs the masks allow */
  int64_t model_flops_dense; /* the same, every attention pair counted */
  int64_t forward_flops;     /* model_flops' forward part */
  int64_t backward_flops;    /* model_flops' backward part */
  int64_t recompute_flops;   /* the forward of the checkpointed modules,
                                run again in the backward (masked) */
  int64_t recompute_flops_dense; /* the same, every attention pair */
  int64_t hardware_flops;    /* model_flops + recompute_flops */
  int64_t all_flops;         /* every op's FLOPs (flops_unmasked),
                                forward + backward: element-wise too */
  int64_t tokens;            /* the forward's tokens (nns_totals.tokens) */
  unsigned flags;            /* NNS_COUNT_* of the nodes summed */
} nns_step_flops;

/* The step's FLOPs from `forward`'s analysis and that of its `backward`
 * (the recorded backward graph, analysed with forward as
 * nns_analyze_options.forward), both of one rank's step: under
 * torch.distributed each rank hands its own recording (per-rank counts).
 * `recomputed`: what gradient checkpointing runs again in the backward
 * (n_recomputed entries, each a forward node's name or a module path, a
 * node counting once when named or inside a named module; "" the whole
 * model); their forward's matrix FLOPs are recompute_flops. */
NNS_API nns_status nns_step_flops_of(const nns_analysis *forward,
                                     const nns_analysis *backward,
                                     const char *const *recomputed,
                                     size_t n_recomputed,
                                     nns_step_flops *out, nns_error *err);

typedef struct nns_mfu_options {
  size_t size;                  /* sizeof(nns_mfu_options) */
  const nns_hardware *hardware; /* the device (nns_hardware_find, a list's
                                   entry, or the caller's); NULL with
                                   peak_flops */
  const char *step_dtype;       /* the dtype the step's matrix products run
                                   in ("bf16"; nns_compute_dtype_name) */
  const char *peak_dtype;       /* the peak compared against; NULL: the
                                   step's. Only the step's dtype applies, or
                                   tf32 for an fp32 step: another (fp8 for a
                                   bf16 step) is NNS_E_ARG */
  double peak_flops;            /* > 0: this dense peak, FLOP/s per device,
                                   instead of the hardware's */
} nns_mfu_options;

typedef struct nns_mfu {
  size_t size;                  /* sizeof(nns_mfu) */
  double step_s;                /* the step's time, as given */
  int64_t samples, tokens;      /* per step (tokens: as given, else the
                                   forward's) */
  double samples_per_s, tokens_per_s; /* 0 where not known */
  double model_flops_per_s;     /* model_flops / step_s */
  double hardware_flops_per_s;  /* hardware_flops / step_s */
  double peak_flops;            /* the peak compared against, FLOP/s */
  nns_compute_dtype peak_dtype; /* its dtype */
  const char *density;          /* "dense": the table lists no sparse
                                   figure (static string) */
  const char *device;           /* the hardware's name, or "given" (lives
                                   as long as opts->hardware) */
  double mfu;                   /* model_flops_per_s / peak_flops */
  double hfu;                   /* hardware_flops_per_s / peak_flops */
} nns_mfu;

/* The step's figures for a step of `step_s` seconds that processed
 * `samples` samples (0: not known) and `tokens` tokens (-1: the forward's).
 * NNS_E_ARG for a time that is not positive, a peak that cannot apply or
 * is missing, and for an MFU or HFU above 100 % (the message says by how
 * much: a wrong peak or a time that did not wait for the device). */
NNS_API nns_status nns_mfu_compute(const nns_step_flops *flops, double step_s,
                                   int64_t samples, int64_t tokens,
                                   const nns_mfu_options *opts, nns_mfu *out,
                                   nns_error *err);

/* One step's figures as one line of the "nnscan.steps" JSON lines log
 * (docs/metrics.md, docs/steps.schema.json), newline included: `step` its
 * index in the run, `rank` its torch.distributed rank (0 alone). */
NNS_API nns_status nns_mfu_json_line(int64_t step, int rank,
                                     const nns_step_flops *flops,
                                     const nns_mfu *mfu, nns_write_fn write,
                                     void *user, nns_error *err);
/* One row of the running table (header with `header`: its two lines
 * first), newline included: step, time, samples/s, tokens/s, TFLOP/s,
 * MFU and HFU with the peak's device, dtype and density. */
NNS_API nns_status nns_mfu_text_row(int64_t step, const nns_mfu *mfu,
                                    int header, nns_write_fn write, void *user,
                                    nns_error *err);
/* A self-contained HTML page plotting MFU (and HFU) and step time over
 * the n steps given (inline SVG, no script): steps[i], step_s[i], mfu[i],
 * hfu[i]; `title` names the run (may be NULL). */
NNS_API nns_status nns_mfu_html(const int64_t *steps, const double *step_s,
                                const double *mfu, const double *hfu,
                                size_t n, const char *title,
                                nns_write_fn write, void *user,
                                nns_error *err);

/* ---- Prefill and decode: the steps of a generation ----
 *
 * What generating tokens costs, step by step (docs/generation.md,
 * docs/generation.schema.json; the numbers: docs/metrics.md, "Experts and
 * decoder steps"): a prefill (step 0: the prompt, an empty cache) and
 * decode steps 1 .. new_tokens - 1 (one token per row, the cache so far),
 * each an analysis of its own graph, as the Python binding's
 * profile_generate records them. The object copies the figures of each
 * step it is given (no analysis is kept) and gives the steps' table and
 * their sums per generated token.
 *
 * A step's figures come from its analysis: flops, macs, flops_unmasked,
 * macs_unmasked (nns_analysis_total_counts), weight_bytes_read (its
 * param_bytes where the counts give none: no experts), and the key/value
 * cache's kv_cache_bytes_read, kv_cache_bytes_written, kv_cache_bytes
 * (nns_analysis_totals); the masked counts are partial where a mask's
 * contents were not known (NNS_COUNT_MASK_UNKNOWN). A decode step not
 * given is linear in the past length between the nearest decode steps
 * given on either side (exact for a transformer's costs), its past the
 * lower one's plus the steps between; the prefill and the last step must
 * be given, and step 1 when there are decode steps.
 */
typedef struct nns_generation nns_generation;

/* A generation of `new_tokens` (>= 1) tokens in each of `rows` (>= 1)
 * rows: the tokens generated are rows x new_tokens. *out (freed with
 * nns_generation_free) is NULL on failure. NNS_E_ARG for a NULL out or a
 * count below 1 (or above 2^31), NNS_E_NOMEM. */
NNS_API nns_status nns_generation_create(int64_t new_tokens, int64_t rows,
                                         nns_generation **out,
                                         nns_error *err);
NNS_API void nns_generation_free(nns_generation *gen);

/* Step `step` (0: the prefill, else a decode step below new_tokens) from
 * its analysis, which may be freed afterwards: `tokens` the tokens it
 * processes (rows x new tokens), `past` the cache length before it. A step
 * given again is replaced. NNS_E_ARG for a NULL gen or analysis, a step
 * out of range, a negative tokens or past. */
NNS_API nns_status nns_generation_set_step(nns_generation *gen, int64_t step,
                                           const nns_analysis *analysis,
                                           int64_t tokens, int64_t past,
                                           nns_error *err);

/*
 * The steps' table and their sums per generated token, as `format`:
 *   NNS_FORMAT_TEXT: one row per step ("prefill", 1, 2, ..., "2*" for a
 *     step between recorded ones), a "per token" row, notes under it;
 *     counts and bytes as `numbers` says (NNS_NUMBERS_CLEVER: 1.82 G,
 *     44.6 MiB; NNS_NUMBERS_RAW: 1,824,010,216, per-token figures rounded
 *     to whole); masked counts a mask made partial marked "≤ ".
 *   NNS_FORMAT_JSON: the "nnscan.generation" document, version 1
 *     (docs/generation.md, docs/generation.schema.json); raw numbers
 *     whatever `numbers` says.
 * NNS_E_ARG for a NULL gen or write, another format, NNS_NUMBERS_RATIO
 * or an unknown number mode; NNS_E_STATE when a step is neither given nor
 * between two decode steps given (the message names it); NNS_E_IO when
 * write fails.
 */
NNS_API nns_status nns_generation_report(const nns_generation *gen,
                                         nns_report_format format,
                                         nns_numbers numbers,
                                         nns_write_fn write, void *user,
                                         nns_error *err);

#ifdef __cplusplus
}
#endif
#endif /* NNSCAN_H */
