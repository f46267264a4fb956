#!/usr/bin/python3
"""Writes an ONNX model as a builder description: one nns_builder call per
line, for tests/unit/test_builder.c to replay through the C builder API.

    /usr/bin/python3 tools/make_builder_desc.py MODEL.onnx OUT.desc

The description says what the ONNX file says, with the onnx package as the
independent reader: model fields, opsets, metadata, graph inputs, outputs
and value_info with their dtypes and dims, initializers (with their bytes
when the file holds them inline; by dtype and dims alone when they live in
an external file, which is what the test fixtures do), nodes and every
attribute, subgraphs included.

Format: one record per line, fields separated by single spaces. Every
field that is text is percent-encoded (bytes <= 0x20, 0x7f, '%' and
non-ASCII become %XX) and the empty string is written "-" (a real "-" is
"%2D"). Dims are integers, a symbol as "$name" (encoded), or "?" for an
unknown. Bytes (tensor data, string attributes) are hex, "-" for none.

    ir_version N            producer NAME VERSION       graph_name NAME
    opset DOMAIN VERSION    meta KEY VALUE
    input|output|value_info NAME DTYPE RANK DIM...      (RANK -1: unknown)
    init NAME DTYPE RANK DIM... HEX|-
    node OP_TYPE DOMAIN NAME NIN IN... NOUT OUT...
    attr_int NAME V         attr_float NAME V           attr_string NAME HEX
    attr_ints NAME N V...   attr_floats NAME N V...     attr_strings NAME N HEX...
    attr_tensor NAME TYPE DTYPE RANK DIM... HEX|-       (TYPE: ONNX attribute type)
    attr_type NAME TYPE DTYPE RANK DIM...
    begin_graph NAME TYPE   end_graph
"""
import sys

import onnx
from onnx import numpy_helper

SAFE = set(range(0x21, 0x7f)) - {ord("%")}


def enc(s):
    if isinstance(s, str):
        s = s.encode()
    if not s:
        return "-"
    if s == b"-":
        return "%2D"
    return "".join(chr(b) if b in SAFE else "%%%02X" % b for b in s)


def dims_of(shape_proto):
    out = []
    for d in shape_proto.dim:
        if d.HasField("dim_value") and d.dim_value >= 0:
            out.append(str(d.dim_value))
        elif d.HasField("dim_param") and d.dim_param:
            out.append("$" + enc(d.dim_param))
        else:
            out.append("?")
    return out


def type_fields(tp):
    """DTYPE RANK DIM... of a TypeProto (tensor types; others: unknown)."""
    if tp is None or not tp.HasField("tensor_type"):
        return ["0", "-1"]
    tt = tp.tensor_type
    if not tt.HasField("shape"):
        return [str(tt.elem_type), "-1"]
    dims = dims_of(tt.shape)
    return [str(tt.elem_type), str(len(dims))] + dims


def value_line(kind, vi):
    tp = vi.type if vi.HasField("type") else None
    return " ".join([kind, enc(vi.name)] + type_fields(tp))


def tensor_fields(t):
    """DTYPE RANK DIM... HEX|- : bytes only when the file holds them."""
    fields = [str(t.data_type), str(len(t.dims))] + [str(d) for d in t.dims]
    external = t.data_location == onnx.TensorProto.EXTERNAL
    if external or t.data_type == onnx.TensorProto.STRING:
        return fields + ["-"]
    arr = numpy_helper.to_array(t)
    if t.data_type == onnx.TensorProto.BFLOAT16 and t.raw_data:
        data = t.raw_data
    else:
        data = arr.astype(arr.dtype.newbyteorder("<")).tobytes()
    return fields + [data.hex() if data else "-"]


def write_graph(out, g):
    if g.name:
        out.append("graph_name " + enc(g.name))
    for vi in g.input:
        out.append(value_line("input", vi))
    for t in g.initializer:
        out.append(" ".join(["init", enc(t.name)] + tensor_fields(t)))
    for vi in g.output:
        out.append(value_line("output", vi))
    for vi in g.value_info:
        out.append(value_line("value_info", vi))
    for n in g.node:
        out.append(" ".join(
            ["node", enc(n.op_type), enc(n.domain), enc(n.name),
             str(len(n.input))] + [enc(i) for i in n.input] +
            [str(len(n.output))] + [enc(o) for o in n.output]))
        for a in n.attribute:
            write_attr(out, a)


def write_attr(out, a):
    A = onnx.AttributeProto
    name = enc(a.name)
    if a.type == A.INT:
        out.append("attr_int %s %d" % (name, a.i))
    elif a.type == A.FLOAT:
        out.append("attr_float %s %r" % (name, a.f))
    elif a.type == A.STRING:
        out.append("attr_string %s %s" % (name, a.s.hex() or "-"))
    elif a.type == A.INTS:
        out.append(" ".join(["attr_ints", name, str(len(a.ints))] +
                            [str(v) for v in a.ints]))
    elif a.type == A.FLOATS:
        out.append(" ".join(["attr_floats", name, str(len(a.floats))] +
                            [repr(v) for v in a.floats]))
    elif a.type == A.STRINGS:
        out.append(" ".join(["attr_strings", name, str(len(a.strings))] +
                            [s.hex() or "-" for s in a.strings]))
    elif a.type == A.TENSOR:
        out.append(" ".join(["attr_tensor", name, str(a.type)] +
                            tensor_fields(a.t)))
    elif a.type == A.TENSORS:
        for t in a.tensors:
            out.append(" ".join(["attr_tensor", name, str(a.type)] +
                                tensor_fields(t)))
    elif a.type in (A.GRAPH, A.GRAPHS):
        for g in ([a.g] if a.type == A.GRAPH else a.graphs):
            out.append("begin_graph %s %d" % (name, a.type))
            write_graph(out, g)
            out.append("end_graph")
    else:
        raise SystemExit("attribute %s: type %d not written" % (a.name,
                                                                a.type))


def main():
    if len(sys.argv) != 3:
        raise SystemExit("usage: make_builder_desc.py MODEL.onnx OUT.desc")
    m = onnx.load(sys.argv[1], load_external_data=False)
    out = ["# nnscan builder description of %s (tools/make_builder_desc.py)"
           % sys.argv[1].rsplit("/", 1)[-1],
           "ir_version %d" % m.ir_version,
           "producer %s %s" % (enc(m.producer_name), enc(m.producer_version))]
    for o in m.opset_import:
        out.append("opset %s %d" % (enc(o.domain), o.version))
    for p in m.metadata_props:
        out.append("meta %s %s" % (enc(p.key), enc(p.value)))
    write_graph(out, m.graph)
    with open(sys.argv[2], "w") as f:
        f.write("\n".join(out) + "\n")


if __name__ == "__main__":
    main()
