"""The graph a recording produces, and how it is handed to libnnscan.

A `Graph` is plain Python data: values (dtype, dims), graph inputs and
outputs, initializers given by dims alone (weights are never copied; small
constants that shape rules read, such as a Reshape target, carry their
data), nodes (ONNX op type, inputs, outputs, attributes, module path), and
what only PyTorch knows: each module path's class and call count, and each
parameter's kind (trainable, frozen, buffer, constant).

`build()` hands it to the library's graph builder (nns_builder_*, opset 17)
then gives the library what only PyTorch knows (nns_model_set_module: each
module's class and call count; nns_model_set_param_kind: each parameter's
kind), so the tree's Type column and the parameter split are PyTorch's.
"""
import ctypes
import struct

from . import _api

OPSET = 17
_name = _api.c_name  # every name the library gets (NUL, surrogates escaped)

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
        name = f"{scope}/{op}_{len(self.nodes)}" if scope \
            else f"{op}_{len(self.nodes)}"
        self.nodes.append((op, name, list(inputs), list(outputs),
                           dict(attrs or {}), domain, scope))
        self.node_source.append(source)
        return name

    # ---- handing over to the library ----

    def build(self):
        """The graph as an nns_model (a report.Handle), caller knowledge set."""
        from .report import Handle
        lib = _api.lib()
        err = _api.NnsError()
        b = ctypes.c_void_p()
        _api.check(lib.nns_builder_new(ctypes.byref(b), ctypes.byref(err)),
                   err, "nns_builder_new")
        try:
            _Feed(lib, b, err).graph(self)
            out = ctypes.c_void_p()
            _api.check(lib.nns_builder_finish(b, ctypes.byref(out),
                                              ctypes.byref(err)),
                       err, "building the recorded graph")
        finally:
            lib.nns_builder_free(b)
        h = Handle(out.value)
        for path, cls in self.module_types.items():
            _api.check(lib.nns_model_set_module(
                h.ptr, _name(path), _name(cls),
                self.module_calls.get(path, 0), ctypes.byref(err)),
                err, f"module {path!r}")
        for name, kind in self.param_kinds.items():
            _api.check(lib.nns_model_set_param_kind(
                h.ptr, _name(name), _api.PARAM_KIND[kind],
                ctypes.byref(err)), err, f"parameter {name!r}")
        return h


class _Feed:
    """One nns_builder call per graph element; every status checked."""

    def __init__(self, lib, b, err):
        self.lib, self.b, self.err = lib, b, err
        self.eref = ctypes.byref(err)

    def ok(self, st, what):
        _api.check(st, self.err, what)

    @staticmethod
    def dims(d):
        return (ctypes.c_int64 * max(1, len(d)))(*d), len(d)

    def graph(self, g):
        lib, b, e = self.lib, self.b, self.eref
        self.ok(lib.nns_builder_set_producer(b, b"nnscan", b"", e), "producer")
        self.ok(lib.nns_builder_set_graph_name(b, _name(g.name), e), "name")
        for d in sorted({""} | {n[5] for n in g.nodes}):
            self.ok(lib.nns_builder_add_opset(b, d.encode(),
                                              OPSET if d == "" else 1, e),
                    f"opset {d}")
        for name in g.inputs:
            dt, dims = g.values[name]
            arr, r = self.dims(dims)
            self.ok(lib.nns_builder_add_input(b, _name(name), dt, r, arr,
                                              None, e), f"input {name}")
        for name, (dt, dims, data) in g.inits.items():
            arr, r = self.dims(dims)
            raw = None if data is None else \
                struct.pack("<%d%s" % (len(data), _PACK[dt]), *data)
            self.ok(lib.nns_builder_add_initializer(
                b, _name(name), dt, r, arr, raw, len(raw or b""), e),
                f"initializer {name}")
        for name in sorted(g.declared):
            dt, dims = g.values[name]
            arr, r = self.dims(dims)
            self.ok(lib.nns_builder_add_value_info(b, _name(name), dt, r,
                                                   arr, None, e),
                    f"value {name}")
        for op, name, ins, outs, attrs, domain, scope in g.nodes:
            self.node(op, name, ins, outs, attrs, domain, scope)
        for name in g.outputs:
            dt, dims = g.values[name]
            arr, r = self.dims(dims)
            self.ok(lib.nns_builder_add_output(b, _name(name), dt, r, arr,
                                               None, e), f"output {name}")

    def node(self, op, name, ins, outs, attrs, domain, scope):
        lib, b, e = self.lib, self.b, self.eref
        cin = (ctypes.c_char_p * max(1, len(ins)))(*[_name(i or "") for i in ins])
        cout = (ctypes.c_char_p * max(1, len(outs)))(*[_name(o) for o in outs])
        self.ok(lib.nns_builder_add_node(b, op.encode(), domain.encode(),
                                         _name(name), _name(scope), cin,
                                         len(ins), cout, len(outs), e),
                f"node {name}")
        for k, v in attrs.items():
            key = k.encode()
            if isinstance(v, (bool, int)):
                st = lib.nns_builder_attr_int(b, key, int(v), e)
            elif isinstance(v, float):
                st = lib.nns_builder_attr_float(b, key, v, e)
            elif isinstance(v, str):
                st = lib.nns_builder_attr_string(b, key, v.encode(),
                                                 len(v.encode()), e)
            elif all(isinstance(x, int) for x in v):
                arr = (ctypes.c_int64 * max(1, len(v)))(*v)
                st = lib.nns_builder_attr_ints(b, key, arr, len(v), e)
            else:
                arr = (ctypes.c_double * max(1, len(v)))(*v)
                st = lib.nns_builder_attr_floats(b, key, arr, len(v), e)
            self.ok(st, f"attribute {k} of {name}")
