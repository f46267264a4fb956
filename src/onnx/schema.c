/*
 * schema.c - the ONNX messages nnscan reads, as field tables for the wire
 * decoder: each known field's name (for error messages) and the wire type
 * it must have. Field numbers follow onnx.proto (ONNX 1.12 and later);
 * fields not listed are skipped whatever their wire type.
 */
#include "load_int.h"

#define F(num, nm, k) [num] = {nm, NNS__PB_##k}
#define MSG(var, nm, tbl)                                                      \
  const nns__pbmsg var = {nm, tbl, sizeof tbl / sizeof tbl[0]}

static const nns__pbfield model_f[] = {
    F(1, "ir_version", VARINT),     F(2, "producer_name", LEN),
    F(3, "producer_version", LEN),  F(4, "domain", LEN),
    F(5, "model_version", VARINT),  F(6, "doc_string", LEN),
    F(7, "graph", LEN),             F(8, "opset_import", LEN),
    F(14, "metadata_props", LEN),   F(20, "training_info", LEN),
    F(25, "functions", LEN),
};
MSG(nns__pb_model, "ModelProto", model_f);

static const nns__pbfield graph_f[] = {
    F(1, "node", LEN),          F(2, "name", LEN),
    F(5, "initializer", LEN),   F(10, "doc_string", LEN),
    F(11, "input", LEN),        F(12, "output", LEN),
    F(13, "value_info", LEN),   F(14, "quantization_annotation", LEN),
    F(15, "sparse_initializer", LEN),
};
MSG(nns__pb_graph, "GraphProto", graph_f);

static const nns__pbfield node_f[] = {
    F(1, "input", LEN),     F(2, "output", LEN), F(3, "name", LEN),
    F(4, "op_type", LEN),   F(5, "attribute", LEN),
    F(6, "doc_string", LEN), F(7, "domain", LEN),
    F(8, "overload", LEN),  F(9, "metadata_props", LEN),
};
MSG(nns__pb_node, "NodeProto", node_f);

static const nns__pbfield attr_f[] = {
    F(1, "name", LEN),            F(2, "f", I32),
    F(3, "i", VARINT),            F(4, "s", LEN),
    F(5, "t", LEN),               F(6, "g", LEN),
    F(7, "floats", REP_I32),      F(8, "ints", REP_VARINT),
    F(9, "strings", LEN),         F(10, "tensors", LEN),
    F(11, "graphs", LEN),         F(13, "doc_string", LEN),
    F(14, "tp", LEN),             F(15, "type_protos", LEN),
    F(20, "type", VARINT),        F(21, "ref_attr_name", LEN),
    F(22, "sparse_tensor", LEN),  F(23, "sparse_tensors", LEN),
};
MSG(nns__pb_attr, "AttributeProto", attr_f);

static const nns__pbfield tensor_f[] = {
    F(1, "dims", REP_VARINT),      F(2, "data_type", VARINT),
    F(3, "segment", LEN),          F(4, "float_data", REP_I32),
    F(5, "int32_data", REP_VARINT), F(6, "string_data", LEN),
    F(7, "int64_data", REP_VARINT), F(8, "name", LEN),
    F(9, "raw_data", LEN),         F(10, "double_data", REP_I64),
    F(11, "uint64_data", REP_VARINT), F(12, "doc_string", LEN),
    F(13, "external_data", LEN),   F(14, "data_location", VARINT),
};
MSG(nns__pb_tensor, "TensorProto", tensor_f);

static const nns__pbfield sparse_f[] = {
    F(1, "values", LEN), F(2, "indices", LEN), F(3, "dims", REP_VARINT),
};
MSG(nns__pb_sparse, "SparseTensorProto", sparse_f);

static const nns__pbfield value_info_f[] = {
    F(1, "name", LEN), F(2, "type", LEN), F(3, "doc_string", LEN),
};
MSG(nns__pb_value_info, "ValueInfoProto", value_info_f);

static const nns__pbfield type_f[] = {
    F(1, "tensor_type", LEN),   F(4, "sequence_type", LEN),
    F(5, "map_type", LEN),      F(6, "denotation", LEN),
    F(7, "opaque_type", LEN),   F(8, "sparse_tensor_type", LEN),
    F(9, "optional_type", LEN),
};
MSG(nns__pb_type, "TypeProto", type_f);

/* TypeProto.Tensor and TypeProto.SparseTensor share their layout. */
static const nns__pbfield type_tensor_f[] = {
    F(1, "elem_type", VARINT), F(2, "shape", LEN),
};
MSG(nns__pb_type_tensor, "TypeProto.Tensor", type_tensor_f);

/* TypeProto.Sequence and TypeProto.Optional: one element type. */
static const nns__pbfield type_elem_f[] = {F(1, "elem_type", LEN)};
MSG(nns__pb_type_seq, "TypeProto.Sequence", type_elem_f);
MSG(nns__pb_type_opt, "TypeProto.Optional", type_elem_f);

static const nns__pbfield type_map_f[] = {
    F(1, "key_type", VARINT), F(2, "value_type", LEN),
};
MSG(nns__pb_type_map, "TypeProto.Map", type_map_f);

static const nns__pbfield shape_f[] = {F(1, "dim", LEN)};
MSG(nns__pb_shape, "TensorShapeProto", shape_f);

static const nns__pbfield dim_f[] = {
    F(1, "dim_value", VARINT), F(2, "dim_param", LEN), F(3, "denotation", LEN),
};
MSG(nns__pb_dim, "TensorShapeProto.Dimension", dim_f);

static const nns__pbfield opset_f[] = {
    F(1, "domain", LEN), F(2, "version", VARINT),
};
MSG(nns__pb_opset, "OperatorSetIdProto", opset_f);

static const nns__pbfield entry_f[] = {F(1, "key", LEN), F(2, "value", LEN)};
MSG(nns__pb_entry, "StringStringEntryProto", entry_f);

static const nns__pbfield function_f[] = {
    F(1, "name", LEN),       F(4, "input", LEN),
    F(5, "output", LEN),     F(6, "attribute", LEN),
    F(7, "node", LEN),       F(8, "doc_string", LEN),
    F(9, "opset_import", LEN), F(10, "domain", LEN),
    F(11, "attribute_proto", LEN),
};
MSG(nns__pb_function, "FunctionProto", function_f);
