/*
 * schema.h - the fields of the ONNX messages nnscan reads, one list per
 * message: number, the name the decoders use (NNS__F_<MSG>_<FIELD>), the
 * name in onnx.proto (for error messages) and the wire type it must have.
 * Field numbers follow onnx.proto (ONNX 1.12 and later); fields not listed
 * are skipped whatever their wire type. schema.c makes the wire decoder's
 * tables from these lists and the decoders switch on the names, so a
 * number is written once.
 */
#ifndef NNS_SCHEMA_H
#define NNS_SCHEMA_H

#include "wire.h"

/* ModelProto */
#define NNS__PB_MODEL_FIELDS(X)                                               \
  X(MODEL, IR_VERSION, 1, "ir_version", VARINT)                               \
  X(MODEL, PRODUCER_NAME, 2, "producer_name", LEN)                            \
  X(MODEL, PRODUCER_VERSION, 3, "producer_version", LEN)                      \
  X(MODEL, DOMAIN, 4, "domain", LEN)                                          \
  X(MODEL, MODEL_VERSION, 5, "model_version", VARINT)                         \
  X(MODEL, DOC_STRING, 6, "doc_string", LEN)                                  \
  X(MODEL, GRAPH, 7, "graph", LEN)                                            \
  X(MODEL, OPSET_IMPORT, 8, "opset_import", LEN)                              \
  X(MODEL, METADATA_PROPS, 14, "metadata_props", LEN)                         \
  X(MODEL, TRAINING_INFO, 20, "training_info", LEN)                           \
  X(MODEL, FUNCTIONS, 25, "functions", LEN)

/* GraphProto */
#define NNS__PB_GRAPH_FIELDS(X)                                               \
  X(GRAPH, NODE, 1, "node", LEN)                                              \
  X(GRAPH, NAME, 2, "name", LEN)                                              \
  X(GRAPH, INITIALIZER, 5, "initializer", LEN)                                \
  X(GRAPH, DOC_STRING, 10, "doc_string", LEN)                                 \
  X(GRAPH, INPUT, 11, "input", LEN)                                           \
  X(GRAPH, OUTPUT, 12, "output", LEN)                                         \
  X(GRAPH, VALUE_INFO, 13, "value_info", LEN)                                 \
  X(GRAPH, QUANTIZATION_ANNOTATION, 14, "quantization_annotation", LEN)       \
  X(GRAPH, SPARSE_INITIALIZER, 15, "sparse_initializer", LEN)

/* NodeProto */
#define NNS__PB_NODE_FIELDS(X)                                                \
  X(NODE, INPUT, 1, "input", LEN)                                             \
  X(NODE, OUTPUT, 2, "output", LEN)                                           \
  X(NODE, NAME, 3, "name", LEN)                                               \
  X(NODE, OP_TYPE, 4, "op_type", LEN)                                         \
  X(NODE, ATTRIBUTE, 5, "attribute", LEN)                                     \
  X(NODE, DOC_STRING, 6, "doc_string", LEN)                                   \
  X(NODE, DOMAIN, 7, "domain", LEN)                                           \
  X(NODE, OVERLOAD, 8, "overload", LEN)                                       \
  X(NODE, METADATA_PROPS, 9, "metadata_props", LEN)

/* AttributeProto */
#define NNS__PB_ATTR_FIELDS(X)                                                \
  X(ATTR, NAME, 1, "name", LEN)                                               \
  X(ATTR, F, 2, "f", I32)                                                     \
  X(ATTR, I, 3, "i", VARINT)                                                  \
  X(ATTR, S, 4, "s", LEN)                                                     \
  X(ATTR, T, 5, "t", LEN)                                                     \
  X(ATTR, G, 6, "g", LEN)                                                     \
  X(ATTR, FLOATS, 7, "floats", REP_I32)                                       \
  X(ATTR, INTS, 8, "ints", REP_VARINT)                                        \
  X(ATTR, STRINGS, 9, "strings", LEN)                                         \
  X(ATTR, TENSORS, 10, "tensors", LEN)                                        \
  X(ATTR, GRAPHS, 11, "graphs", LEN)                                          \
  X(ATTR, DOC_STRING, 13, "doc_string", LEN)                                  \
  X(ATTR, TP, 14, "tp", LEN)                                                  \
  X(ATTR, TYPE_PROTOS, 15, "type_protos", LEN)                                \
  X(ATTR, TYPE, 20, "type", VARINT)                                           \
  X(ATTR, REF_ATTR_NAME, 21, "ref_attr_name", LEN)                            \
  X(ATTR, SPARSE_TENSOR, 22, "sparse_tensor", LEN)                            \
  X(ATTR, SPARSE_TENSORS, 23, "sparse_tensors", LEN)

/* TensorProto */
#define NNS__PB_TENSOR_FIELDS(X)                                              \
  X(TENSOR, DIMS, 1, "dims", REP_VARINT)                                      \
  X(TENSOR, DATA_TYPE, 2, "data_type", VARINT)                                \
  X(TENSOR, SEGMENT, 3, "segment", LEN)                                       \
  X(TENSOR, FLOAT_DATA, 4, "float_data", REP_I32)                             \
  X(TENSOR, INT32_DATA, 5, "int32_data", REP_VARINT)                          \
  X(TENSOR, STRING_DATA, 6, "string_data", LEN)                               \
  X(TENSOR, INT64_DATA, 7, "int64_data", REP_VARINT)                          \
  X(TENSOR, NAME, 8, "name", LEN)                                             \
  X(TENSOR, RAW_DATA, 9, "raw_data", LEN)                                     \
  X(TENSOR, DOUBLE_DATA, 10, "double_data", REP_I64)                          \
  X(TENSOR, UINT64_DATA, 11, "uint64_data", REP_VARINT)                       \
  X(TENSOR, DOC_STRING, 12, "doc_string", LEN)                                \
  X(TENSOR, EXTERNAL_DATA, 13, "external_data", LEN)                          \
  X(TENSOR, DATA_LOCATION, 14, "data_location", VARINT)

/* SparseTensorProto */
#define NNS__PB_SPARSE_FIELDS(X)                                              \
  X(SPARSE, VALUES, 1, "values", LEN)                                         \
  X(SPARSE, INDICES, 2, "indices", LEN)                                       \
  X(SPARSE, DIMS, 3, "dims", REP_VARINT)

/* ValueInfoProto */
#define NNS__PB_VI_FIELDS(X)                                                  \
  X(VI, NAME, 1, "name", LEN)                                                 \
  X(VI, TYPE, 2, "type", LEN)                                                 \
  X(VI, DOC_STRING, 3, "doc_string", LEN)

/* TypeProto */
#define NNS__PB_TYPE_FIELDS(X)                                                \
  X(TYPE, TENSOR_TYPE, 1, "tensor_type", LEN)                                 \
  X(TYPE, SEQUENCE_TYPE, 4, "sequence_type", LEN)                             \
  X(TYPE, MAP_TYPE, 5, "map_type", LEN)                                       \
  X(TYPE, DENOTATION, 6, "denotation", LEN)                                   \
  X(TYPE, OPAQUE_TYPE, 7, "opaque_type", LEN)                                 \
  X(TYPE, SPARSE_TENSOR_TYPE, 8, "sparse_tensor_type", LEN)                   \
  X(TYPE, OPTIONAL_TYPE, 9, "optional_type", LEN)

/* TypeProto.Tensor and TypeProto.SparseTensor */
#define NNS__PB_TT_FIELDS(X)                                                  \
  X(TT, ELEM_TYPE, 1, "elem_type", VARINT)                                    \
  X(TT, SHAPE, 2, "shape", LEN)

/* TypeProto.Sequence and TypeProto.Optional */
#define NNS__PB_TELEM_FIELDS(X)                                               \
  X(TELEM, ELEM_TYPE, 1, "elem_type", LEN)

/* TypeProto.Map */
#define NNS__PB_TMAP_FIELDS(X)                                                \
  X(TMAP, KEY_TYPE, 1, "key_type", VARINT)                                    \
  X(TMAP, VALUE_TYPE, 2, "value_type", LEN)

/* TensorShapeProto */
#define NNS__PB_SHAPE_FIELDS(X)                                               \
  X(SHAPE, DIM, 1, "dim", LEN)

/* TensorShapeProto.Dimension */
#define NNS__PB_DIM_FIELDS(X)                                                 \
  X(DIM, DIM_VALUE, 1, "dim_value", VARINT)                                   \
  X(DIM, DIM_PARAM, 2, "dim_param", LEN)                                      \
  X(DIM, DENOTATION, 3, "denotation", LEN)

/* OperatorSetIdProto */
#define NNS__PB_OPSET_FIELDS(X)                                               \
  X(OPSET, DOMAIN, 1, "domain", LEN)                                          \
  X(OPSET, VERSION, 2, "version", VARINT)

/* StringStringEntryProto */
#define NNS__PB_ENTRY_FIELDS(X)                                               \
  X(ENTRY, KEY, 1, "key", LEN)                                                \
  X(ENTRY, VALUE, 2, "value", LEN)

/* FunctionProto */
#define NNS__PB_FN_FIELDS(X)                                                  \
  X(FN, NAME, 1, "name", LEN)                                                 \
  X(FN, INPUT, 4, "input", LEN)                                               \
  X(FN, OUTPUT, 5, "output", LEN)                                             \
  X(FN, ATTRIBUTE, 6, "attribute", LEN)                                       \
  X(FN, NODE, 7, "node", LEN)                                                 \
  X(FN, DOC_STRING, 8, "doc_string", LEN)                                     \
  X(FN, OPSET_IMPORT, 9, "opset_import", LEN)                                 \
  X(FN, DOMAIN, 10, "domain", LEN)                                            \
  X(FN, ATTRIBUTE_PROTO, 11, "attribute_proto", LEN)

#define NNS__PB_FIELD_ENUM_(msg, field, num, name, kind)                       \
  NNS__F_##msg##_##field = num,
enum nns__pb_field_num {
  NNS__PB_MODEL_FIELDS(NNS__PB_FIELD_ENUM_)
  NNS__PB_GRAPH_FIELDS(NNS__PB_FIELD_ENUM_)
  NNS__PB_NODE_FIELDS(NNS__PB_FIELD_ENUM_)
  NNS__PB_ATTR_FIELDS(NNS__PB_FIELD_ENUM_)
  NNS__PB_TENSOR_FIELDS(NNS__PB_FIELD_ENUM_)
  NNS__PB_SPARSE_FIELDS(NNS__PB_FIELD_ENUM_)
  NNS__PB_VI_FIELDS(NNS__PB_FIELD_ENUM_)
  NNS__PB_TYPE_FIELDS(NNS__PB_FIELD_ENUM_)
  NNS__PB_TT_FIELDS(NNS__PB_FIELD_ENUM_)
  NNS__PB_TELEM_FIELDS(NNS__PB_FIELD_ENUM_)
  NNS__PB_TMAP_FIELDS(NNS__PB_FIELD_ENUM_)
  NNS__PB_SHAPE_FIELDS(NNS__PB_FIELD_ENUM_)
  NNS__PB_DIM_FIELDS(NNS__PB_FIELD_ENUM_)
  NNS__PB_OPSET_FIELDS(NNS__PB_FIELD_ENUM_)
  NNS__PB_ENTRY_FIELDS(NNS__PB_FIELD_ENUM_)
  NNS__PB_FN_FIELDS(NNS__PB_FIELD_ENUM_)
};
#undef NNS__PB_FIELD_ENUM_

extern const nns__pbmsg nns__pb_model, nns__pb_graph, nns__pb_node,
    nns__pb_attr, nns__pb_tensor, nns__pb_sparse, nns__pb_value_info,
    nns__pb_type, nns__pb_type_tensor, nns__pb_type_seq, nns__pb_type_opt,
    nns__pb_type_map, nns__pb_shape, nns__pb_dim, nns__pb_opset,
    nns__pb_entry, nns__pb_function;

#endif
