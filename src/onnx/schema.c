/*
 * schema.c - the ONNX messages nnscan reads, as field tables for the wire
 * decoder, made from the field lists of schema.h.
 */
#include "schema.h"

#define F(msg, field, num, nm, kind) [num] = {nm, NNS__PB_##kind},

/* nns__pbmsg.short_ok: per kind, the wire types (bit 0 varint, bit 1
 * length-delimited) a listed field may NOT have; every unlisted field of
 * 1-15 may have both, field 0 neither. */
#define DENY_VARINT 2u
#define DENY_I64 3u
#define DENY_LEN 1u
#define DENY_I32 3u
#define DENY_REP_VARINT 0u
#define DENY_REP_I32 1u
#define DENY_REP_I64 1u
#define DENY(msg, field, num, nm, kind)                                        \
  | ((num) < 16 ? DENY_##kind << ((num) * 2 % 32) : 0u)
#define MSG(var, nm, tbl, list)                                                \
  const nns__pbmsg var = {nm, tbl, sizeof tbl / sizeof tbl[0],                 \
                          ~(0u list(DENY)) & ~3u}

static const nns__pbfield model_f[] = {NNS__PB_MODEL_FIELDS(F)};
MSG(nns__pb_model, "ModelProto", model_f, NNS__PB_MODEL_FIELDS);

static const nns__pbfield graph_f[] = {NNS__PB_GRAPH_FIELDS(F)};
MSG(nns__pb_graph, "GraphProto", graph_f, NNS__PB_GRAPH_FIELDS);

static const nns__pbfield node_f[] = {NNS__PB_NODE_FIELDS(F)};
MSG(nns__pb_node, "NodeProto", node_f, NNS__PB_NODE_FIELDS);

static const nns__pbfield attr_f[] = {NNS__PB_ATTR_FIELDS(F)};
MSG(nns__pb_attr, "AttributeProto", attr_f, NNS__PB_ATTR_FIELDS);

static const nns__pbfield tensor_f[] = {NNS__PB_TENSOR_FIELDS(F)};
MSG(nns__pb_tensor, "TensorProto", tensor_f, NNS__PB_TENSOR_FIELDS);

static const nns__pbfield sparse_f[] = {NNS__PB_SPARSE_FIELDS(F)};
MSG(nns__pb_sparse, "SparseTensorProto", sparse_f, NNS__PB_SPARSE_FIELDS);

static const nns__pbfield value_info_f[] = {NNS__PB_VI_FIELDS(F)};
MSG(nns__pb_value_info, "ValueInfoProto", value_info_f, NNS__PB_VI_FIELDS);

static const nns__pbfield type_f[] = {NNS__PB_TYPE_FIELDS(F)};
MSG(nns__pb_type, "TypeProto", type_f, NNS__PB_TYPE_FIELDS);

static const nns__pbfield type_tensor_f[] = {NNS__PB_TT_FIELDS(F)};
MSG(nns__pb_type_tensor, "TypeProto.Tensor", type_tensor_f, NNS__PB_TT_FIELDS);

static const nns__pbfield type_elem_f[] = {NNS__PB_TELEM_FIELDS(F)};
MSG(nns__pb_type_seq, "TypeProto.Sequence", type_elem_f, NNS__PB_TELEM_FIELDS);
MSG(nns__pb_type_opt, "TypeProto.Optional", type_elem_f, NNS__PB_TELEM_FIELDS);

static const nns__pbfield type_map_f[] = {NNS__PB_TMAP_FIELDS(F)};
MSG(nns__pb_type_map, "TypeProto.Map", type_map_f, NNS__PB_TMAP_FIELDS);

static const nns__pbfield shape_f[] = {NNS__PB_SHAPE_FIELDS(F)};
MSG(nns__pb_shape, "TensorShapeProto", shape_f, NNS__PB_SHAPE_FIELDS);

static const nns__pbfield dim_f[] = {NNS__PB_DIM_FIELDS(F)};
MSG(nns__pb_dim, "TensorShapeProto.Dimension", dim_f, NNS__PB_DIM_FIELDS);

static const nns__pbfield opset_f[] = {NNS__PB_OPSET_FIELDS(F)};
MSG(nns__pb_opset, "OperatorSetIdProto", opset_f, NNS__PB_OPSET_FIELDS);

static const nns__pbfield entry_f[] = {NNS__PB_ENTRY_FIELDS(F)};
MSG(nns__pb_entry, "StringStringEntryProto", entry_f, NNS__PB_ENTRY_FIELDS);

static const nns__pbfield function_f[] = {NNS__PB_FN_FIELDS(F)};
MSG(nns__pb_function, "FunctionProto", function_f, NNS__PB_FN_FIELDS);
