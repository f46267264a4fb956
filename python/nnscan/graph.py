"""The graph a recording produces, and how it is handed to libnnscan.

A `Graph` is plain Python data: values (dtype, dims), graph inputs and
outputs, initializers given by dims alone (weights are never copied; small
constants that shape rules read, such as a Reshape target, carry their
data), nodes (ONNX op type, inputs, outputs, attributes, module path), and
what only PyTorch knows: each module path's class and call count, and each
parameter's kind (trainable, frozen, buffer, constant).

`to_onnx()` serialises it as an ONNX ModelProto (opset 17) in memory, which
nns_model_load_memory() decodes into the same IR as any ONNX file. Node
names carry the module path (`/layer1/0/conv1/Conv_3`), which is how the
library rebuilds the module tree; module classes travel in the model's
metadata (`nnscan.module_types`, see src/analyze/scope.c).
"""
import json
import struct

OPSET = 17
# The external-data location given to weights (no such file: never read).
NO_WEIGHTS = "nnscan-recorded-no-weights.bin"

# torch dtype name -> ONNX TensorProto.DataType
DTYPES = {
    "float32": 1, "uint8": 2, "int8": 3, "int16": 5, "int32": 6, "int64": 7,
    "bool": 9, "float16": 10, "float64": 11, "complex64": 14,
    "complex128": 15, "bfloat16": 16,
}
# struct format per ONNX dtype, for the small constants that carry data
_PACK = {1: "f", 2: "B", 3: "b", 5: "h", 6: "i", 7: "q", 9: "?", 11: "d"}


class Graph:
    def __init__(self, name="model"):
        self.name = name
        self.values = {}        # name -> (dtype, dims)
        self.inputs = []        # names
        self.outputs = []
        self.inits = {}         # name -> (dtype, dims, data or None)
        self.nodes = []         # (op, name, inputs, outputs, attrs, domain)
        self.module_types = {}  # dotted path -> class name
        self.module_calls = {}  # dotted path -> number of forward calls
        self.param_kinds = {}   # initializer name -> trainable|frozen|buffer|constant
        self.declared = set()   # values whose shape is declared (value_info)
        self.node_source = []   # per node: the aten op it came from
        self._counter = 0

    def new_name(self, stem="v"):
        self._counter += 1
        return f"{stem}{self._counter}"

    def add_value(self, name, dtype, dims):
        self.values[name] = (dtype, tuple(int(d) for d in dims))

    def add_init(self, name, dtype, dims, data=None, kind=None):
        self.inits[name] = (dtype, tuple(int(d) for d in dims), data)
        self.add_value(name, dtype, dims)
        if kind:
            self.param_kinds[name] = kind

    def add_node(self, op, inputs, outputs, attrs=None, scope="", domain="",
                 source=""):
        seg = "/".join(scope.split(".")) if scope else ""
        name = f"/{seg}/{op}_{len(self.nodes)}" if seg else f"{op}_{len(self.nodes)}"
        self.nodes.append((op, name, list(inputs), list(outputs),
                           dict(attrs or {}), domain))
        self.node_source.append(source)
        return name

    # ---- ONNX encoding ----

    def to_onnx(self, producer="nnscan"):
        g = bytearray()
        for node in self.nodes:
            _field(g, 1, _node(node))
        _field(g, 2, self.name.encode())
        for name, (dtype, dims, data) in self.inits.items():
            _field(g, 5, _tensor(name, dtype, dims, data))
        for name in self.inputs:
            _field(g, 11, _value_info(name, *self.values[name]))
        for name in self.outputs:
            _field(g, 12, _value_info(name, *self.values[name]))
        for name in sorted(self.declared):
            _field(g, 13, _value_info(name, *self.values[name]))
        m = bytearray()
        _varint_field(m, 1, 8)                       # ir_version
        _field(m, 2, producer.encode())
        _field(m, 7, bytes(g))
        domains = {""} | {n[5] for n in self.nodes}
        for d in sorted(domains):
            op = bytearray()
            _field(op, 1, d.encode())
            _varint_field(op, 2, OPSET if d == "" else 1)
            _field(m, 8, bytes(op))
        if self.module_types:
            kv = bytearray()
            _field(kv, 1, b"nnscan.module_types")
            _field(kv, 2, json.dumps(self.module_types).encode())
            _field(m, 14, bytes(kv))
        return bytes(m)


# ---- protobuf wire format (only what ModelProto needs) ----

def _varint(out, v):
    v &= (1 << 64) - 1
    while True:
        b = v & 0x7F
        v >>= 7
        if v:
            out.append(b | 0x80)
        else:
            out.append(b)
            return


def _field(out, num, payload):
    _varint(out, (num << 3) | 2)
    _varint(out, len(payload))
    out += payload


def _varint_field(out, num, v):
    _varint(out, num << 3)
    _varint(out, v)


def _packed(out, num, ints):
    p = bytearray()
    for v in ints:
        _varint(p, int(v))
    _field(out, num, bytes(p))


def _tensor(name, dtype, dims, data):
    t = bytearray()
    _packed(t, 1, dims)
    _varint_field(t, 2, dtype)
    _field(t, 8, name.encode())
    if data is not None:
        _field(t, 9, struct.pack("<%d%s" % (len(data), _PACK[dtype]), *data))
    else:
        # Weights are never copied: an external reference to a file that
        # does not exist gives the library dims and dtype alone.
        kv = bytearray()
        _field(kv, 1, b"location")
        _field(kv, 2, NO_WEIGHTS.encode())
        _field(t, 13, bytes(kv))
        _varint_field(t, 14, 1)
    return bytes(t)


def _value_info(name, dtype, dims):
    shape = bytearray()
    for d in dims:
        dim = bytearray()
        _varint_field(dim, 1, d)
        _field(shape, 1, bytes(dim))
    tt = bytearray()
    _varint_field(tt, 1, dtype)
    _field(tt, 2, bytes(shape))
    tp = bytearray()
    _field(tp, 1, bytes(tt))
    vi = bytearray()
    _field(vi, 1, name.encode())
    _field(vi, 2, bytes(tp))
    return bytes(vi)


def _attr(name, v):
    a = bytearray()
    _field(a, 1, name.encode())
    if isinstance(v, bool) or isinstance(v, int):
        _varint_field(a, 3, int(v))
        _varint_field(a, 20, 2)
    elif isinstance(v, float):
        _varint(a, (2 << 3) | 5)
        a += struct.pack("<f", v)
        _varint_field(a, 20, 1)
    elif isinstance(v, str):
        _field(a, 4, v.encode())
        _varint_field(a, 20, 3)
    elif all(isinstance(x, int) for x in v):
        _packed(a, 8, v)
        _varint_field(a, 20, 7)
    else:
        _field(a, 7, struct.pack("<%df" % len(v), *v))
        _varint_field(a, 20, 6)
    return bytes(a)


def _node(node):
    op, name, inputs, outputs, attrs, domain = node
    n = bytearray()
    for i in inputs:
        _field(n, 1, (i or "").encode())
    for o in outputs:
        _field(n, 2, o.encode())
    _field(n, 3, name.encode())
    _field(n, 4, op.encode())
    for k, v in attrs.items():
        _field(n, 5, _attr(k, v))
    if domain:
        _field(n, 7, domain.encode())
    return bytes(n)
