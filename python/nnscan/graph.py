"""The graph a recording produces, and how it is handed to libnnscan.

A `Graph` is plain Python data: values (dtype, dims), graph inputs and
outputs, initializers given by dims alone (weights are never copied; small
constants that shape rules read, such as a Reshape target, carry their
data), nodes (ONNX op type, inputs, outputs, attributes, module path), and
what only PyTorch knows: each module path's class and call count, each
parameter's kind (trainable, frozen, buffer, constant), and which
consecutive nodes run as one kernel (the nodes of one aten op).

`build()` hands it to the library's graph builder (at _api.graph_opset(),
the opset of the forms the recorded nodes are written in; element types and
parameter kinds by the library's names for them, read through _api at first
use) in one call, nns_builder_add_packed, with what only PyTorch knows
(each module's class, call count, the structure each call returned, its
boundary shapes and the tensors it registers; each parameter's kind), so
the tree's Type column, the parameter split and crawl_module's columns are
PyTorch's: one foreign call per graph instead of one per input,
initializer, node, attribute and module fact.
"""
import ctypes
import json
import os
import struct
import threading
from typing import NamedTuple, Optional, Tuple

from . import _api

_name = _api.c_name  # every name the library gets (NUL, surrogates escaped)

DTYPE_OF = {}  # torch.dtype -> ONNX dtype, filled on first use


def onnx_dtype(dt):
    """The ONNX number of a torch dtype, by its name in the library's list
    (nns_dtype_name); 0 for one the library does not name."""
    code = DTYPE_OF.get(dt)
    if code is None:
        code = DTYPE_OF[dt] = _api.dtypes().get(str(dt).replace("torch.", ""),
                                                0)
    return code


class Value(NamedTuple):
    """A tensor's element type (ONNX number) and dims."""
    dtype: int
    dims: Tuple[int, ...]


class Init(NamedTuple):
    """An initializer: dims alone, or small constant data a shape rule
    reads (a Reshape target); weights are never copied."""
    dtype: int
    dims: Tuple[int, ...]
    data: Optional[object]


class Node(NamedTuple):
    """One recorded operation, as the builder takes it."""
    op: str          # ONNX op type
    name: str        # unique; "<module path>/<op>_<k>"
    inputs: list     # value names ("" for an absent optional input)
    outputs: list
    attrs: dict      # name -> value
    domain: str      # "" for ONNX; "pytorch.aten" for an unmapped aten op
    scope: str       # dotted module path of the module that ran it


_new_node = tuple.__new__  # Node(...) without NamedTuple's Python __new__


class Graph:
    def __init__(self, name="model"):
        self.name = name
        self.values = {}        # name -> Value
        self.inputs = []        # names
        self.outputs = []
        self.inits = {}         # name -> Init
        self.nodes = []         # Node, in execution order
        # (first node, node count): consecutive nodes that run as one
        # kernel (one aten op spelled as several nodes), the packed kernel
        # record; in node order, none overlapping
        self.kernels = []
        self.module_types = {}  # dotted path -> class name
        self.module_calls = {}  # dotted path -> number of forward calls
        self.module_outputs = {}  # dotted path -> each call's output structure
        # dotted path -> (first input's dims, first output's dims), either
        # None: what PyTorch gave at the module's boundary
        self.module_shapes = {}
        # (module path, tensor identity, element bits, dims, kind): every
        # tensor each module registers, used or not
        # (recorder.module_tensors; nns_model_add_module_tensor's order)
        self.module_tensors = []
        self.param_kinds = {}   # initializer name -> trainable|frozen|buffer|constant
        self.declared = set()   # values whose shape is declared (value_info)
        self.node_source = []   # per node: the aten op it came from
        # node name -> (aten base name, arguments): the node is an aten call
        # on the tape (tape.py), packed as an aten record the library
        # lowers; each argument (schema name, kind word, value), a
        # tensor's value its index in the node's inputs
        self.aten = {}
        # value name -> meta tensor with a real value (a shadow): the
        # values whose contents masks.hand_over may give the library
        self.tracked = {}
        # value name -> the sizes PyTorch gave it (the recorder's
        # shape_of), packed for the library's self-test; None: no test
        self.observed = None
        self._counter = 0
        self._nodes_made = 0    # numbers node names: unique after a drop
        # numbering left to the library (every recording's; docs/tape.md,
        # "Numbers the library gives"): the counters count only what the
        # recorder makes, its names marked so ("\2" values, "\4" nodes),
        # and the library shifts them by what each numbered call took
        self.deferred = False
        self._deferred_calls = 0  # numbered calls so far ("\3K.J" outputs)
        self._deferred_consts = 0  # outside constants they read first
        # layers replayed from a template under deferred numbering
        # (module_replay.py), each a Replayed: pack() writes a layer of a
        # template packed before as a replay record (docs/tape.md,
        # "Replayed layers, read again")
        self.replays = []

    def defer_numbering(self):
        """Leaves the numbers to the library (before anything is named):
        names marked, by the methods of a class of their own (the
        default's cost none; methods bound on the instance would be a
        reference cycle, left to the cyclic collector)."""
        self.deferred = True
        self.__class__ = _MarkedGraph

    def new_name(self, stem="v"):
        self._counter += 1
        return f"{stem}{self._counter}"

    def add_value(self, name, dtype, dims):
        self.values[name] = Value(dtype, tuple(map(int, dims)))

    def library_names(self, names):
        """[the name the library's model gives each of the recorder's
        value names `names`]: the same names, but where the numbering is
        left to the library (tape.deferred), asked of the packed form
        (packed_names): for what is looked up rarely (a test, a shape
        warning), never per op."""
        names = list(names)
        if not self.deferred:
            return names
        return packed_names(self.pack_parts(), names)

    def add_init(self, name, dtype, dims, data=None, kind=None):
        dims = tuple(map(int, dims))
        self.inits[name] = Init(dtype, dims, data)
        self.values[name] = Value(dtype, dims)
        if kind:
            self.param_kinds[name] = kind

    _NODE_MARK = ""  # (_MarkedGraph's: "\4")

    def add_node(self, op, inputs, outputs, attrs=None, scope="", domain="",
                 source=""):
        k = self._nodes_made
        self._nodes_made = k + 1
        mark = self._NODE_MARK
        name = f"{mark}{scope}/{op}_{k}" if scope else f"{mark}{op}_{k}"
        self.nodes.append(_new_node(Node, (op, name, list(inputs),
                                           list(outputs),
                                           dict(attrs) if attrs else {},
                                           domain, scope)))
        self.node_source.append(source)
        return name

    def drop_nodes(self, indexes):
        """Removes the nodes at `indexes` (ascending; none before a kernel
        that stays), with their sources and their outputs' declarations."""
        for k in reversed(indexes):
            self.declared.difference_update(self.nodes[k].outputs)
            del self.nodes[k]
            del self.node_source[k]

    def rename(self, names):
        """Renames values (old name -> new name) wherever they appear; a new
        name must not be in use."""
        def r(n):
            return names.get(n, n)
        self.values = {r(k): v for k, v in self.values.items()}
        self.inputs = [r(n) for n in self.inputs]
        self.outputs = [r(n) for n in self.outputs]
        self.inits = {r(k): v for k, v in self.inits.items()}
        self.declared = {r(n) for n in self.declared}
        self.nodes = [n._replace(inputs=[r(i) for i in n.inputs],
                                 outputs=[r(o) for o in n.outputs])
                      for n in self.nodes]

    # ---- handing over to the library ----

    def build(self):
        """The graph as an nns_model (a report.Handle), caller knowledge set."""
        return build_packed(_pack_parts(self))

    def pack_parts(self):
        """The parts (bytes) pack() joins: a list that holds, not copies,
        the records of names made once for the process."""
        return _pack_parts(self)


class _MarkedGraph(Graph):
    """A graph whose numbering is left to the library (defer_numbering):
    the recorder's names marked, "\2" a value and "\4" a node."""

    # its nodes' names marked as Graph.add_node makes them: one Node each,
    # not a second one renamed (a _replace: 1 to 2 us a node)
    _NODE_MARK = "\4"

    def new_name(self, stem="v"):
        self._counter += 1
        return f"\2{stem}{self._counter}"


def build_packed(parts, names=None):
    """The packed form whose parts are `parts`, as an nns_model (a
    report.Handle). `names`: a dict whose keys are names of the packed
    form, rekeyed in place by the names they stand for in the graph
    (nns_builder_packed_name: the numbering left to the library)."""
    from .report import Handle
    lib = _api.lib()
    err = _api.NnsError()
    b = _packed_builder(lib, parts, err)
    try:
        if names:
            named = zip(_packed_names(lib, b, names, err), names.values())
            named = dict(named)  # (before names is cleared)
            names.clear()
            names.update(named)
        out = ctypes.c_void_p()
        _api.check(lib.nns_builder_finish(b, ctypes.byref(out),
                                          ctypes.byref(err)),
                   err, "building the recorded graph")
    finally:
        lib.nns_builder_free(b)
    return Handle(out.value)


def packed_names(parts, names):
    """[the name each of `names` stands for in the graph the packed form
    `parts` makes] (nns_builder_packed_name), from a builder made for
    them and left unfinished: for what is looked up rarely after a build
    (torch_api.check_shapes' names of a graph whose numbering is
    deferred)."""
    lib = _api.lib()
    err = _api.NnsError()
    b = _packed_builder(lib, parts, err)
    try:
        return _packed_names(lib, b, names, err)
    finally:
        lib.nns_builder_free(b)


def packed_entries(parts, runs):
    """[(first node, nodes) the library made of each run (first entry,
    entries) of the recorder's] (nns_builder_packed_entries) of the packed
    form `parts`, whose numbering is deferred: its nodes and its numbered
    calls, one entry each, as kernels count them. Asked of a builder made
    for them and left unfinished, as packed_names does."""
    lib = _api.lib()
    err = _api.NnsError()
    b = _packed_builder(lib, parts, err)
    first, count = ctypes.c_size_t(), ctypes.c_size_t()
    got = []
    try:
        for a, n in runs:
            _api.check(lib.nns_builder_packed_entries(
                b, a, n, ctypes.byref(first), ctypes.byref(count),
                ctypes.byref(err)), err, "the recorded graph's entries")
            got.append((first.value, count.value))
    finally:
        lib.nns_builder_free(b)
    return got


def _packed_builder(lib, parts, err):
    """A builder the packed form's parts were handed to."""
    b = ctypes.c_void_p()
    _api.check(lib.nns_builder_new(ctypes.byref(b), ctypes.byref(err)),
               err, "nns_builder_new")
    try:
        buf, size = _in_kept_buffer(parts)
        _api.check(lib.nns_builder_add_packed(b, buf, size,
                                              ctypes.byref(err)),
                   err, "handing the recorded graph over")
        del buf  # the buffer's export, before the next pack reuses it
    except BaseException:
        lib.nns_builder_free(b)
        raise
    return b


def _packed_names(lib, b, names, err):
    got = ctypes.c_char_p()
    named = []
    for n in names:
        _api.check(lib.nns_builder_packed_name(
            b, _name(n), ctypes.byref(got), ctypes.byref(err)),
            err, "naming the recorded graph's values")
        named.append(_api.py_name(got.value.decode("utf-8",
                                                   "surrogateescape")))
    return named


# ---- the packed form of nns_builder_add_packed (include/nnscan.h) ----

# Record tags by their words in nnscan.h's NNS_PACKED_RECORD_MAP, as the
# library gives them at import (_api.PACKED_RECORD; empty without a library,
# when nothing can be built anyway): the numbers are never retyped here.
(_IR_VERSION, _PRODUCER, _GRAPH_NAME, _OPSET, _METADATA, _INPUT, _OUTPUT,
 _VALUE_INFO, _INITIALIZER, _NODE, _ATTR_INT, _ATTR_FLOAT, _ATTR_STRING,
 _ATTR_INTS, _ATTR_FLOATS, _ATTR_STRINGS, _ATTR_TENSOR, _ATTR_TYPE,
 _BEGIN_GRAPH, _END_GRAPH, _MODULE, _PARAM_KIND, _EXPERTS,
 _VALUE_DATA, _KERNEL, _MODULE_CALL, _MODULE_SHAPES,
 _MODULE_TENSOR, _ATEN, _NAMES, _OBSERVED_SHAPE, _DEFERRED_NAMES,
 _REPLAY, _DROPPED) = (
     _api.PACKED_RECORD.get(w, 0) for w in (
         "ir_version", "producer", "graph_name", "opset", "metadata",
         "input", "output", "value_info", "initializer", "node", "attr_int",
         "attr_float", "attr_string", "attr_ints", "attr_floats",
         "attr_strings", "attr_tensor", "attr_type", "begin_graph",
         "end_graph", "module", "param_kind", "experts", "value_data",
         "kernel", "module_call", "module_shapes", "module_tensor", "aten",
         "names", "observed_shape", "deferred_names", "replay",
         "dropped"))

_u32 = struct.Struct("=I").pack
_i32 = struct.Struct("=i").pack
_i64 = struct.Struct("=q").pack
_u64 = struct.Struct("=Q").pack
_QQQ = struct.Struct("=QQQ").pack
_f64 = struct.Struct("=d").pack
_TAG = [bytes([t]) for t in range(max(_api.PACKED_RECORD.values(), default=0) + 1)]
_NAMES_TAG, _ATEN_TAG = _TAG[_NAMES], _TAG[_ATEN]


class _Strings(dict):
    """str -> its packed form (u32 length, the bytes _api.c_name gives,
    NUL), made once: value names, scopes and op types recur across nodes."""

    def __missing__(self, s):
        e = _name(s)
        v = self[s] = _u32(len(e)) + e + b"\0"
        return v


class _Formats(dict):
    """struct format -> its compiled Struct's pack, made once."""

    def __missing__(self, fmt):
        v = self[fmt] = struct.Struct(fmt).pack
        return v


_FMT = _Formats()


def _shape(dims):
    n = len(dims)
    return _FMT["=i%dq" % n](n, *dims)


def _str(s):
    """A string's packed form, for strings used once (node names)."""
    e = _name(s)
    return _u32(len(e)) + e + b"\0"


def _attr(k, v, s):
    """One attribute record (_attr_record), kept for the process where
    its value is an int, a bool, a string or a list of ints: a model's
    convolutions and pools repeat a few (strides, pads, kernel shapes),
    and its next summaries all of them. s[k] is k's packed form whatever
    the table, so a record made with one serves every pack."""
    t = v.__class__
    if t is list or t is tuple:
        key = (k, tuple(v)) if all(x.__class__ is int for x in v) else None
    elif t is int or t is bool or t is str:
        key = (k, t, v)  # 1 and 1.0 are equal keys: the type tells
    else:
        key = None  # floats (0.0 and -0.0 are equal), anything else
    if key is None:
        return _attr_record(k, v, s)
    got = _ATTRS.get(key)
    if got is None:
        got = _attr_record(k, v, s)
        if len(_ATTRS) < _ATTRS_MAX:
            _ATTRS[key] = got
    return got


_ATTRS = {}
_ATTRS_MAX = 1 << 14


def _attr_record(k, v, s):
    """One attribute record; the value's Python type picks the kind."""
    if isinstance(v, (bool, int)):
        return _TAG[_ATTR_INT] + s[k] + _i64(int(v))
    if isinstance(v, float):
        return _TAG[_ATTR_FLOAT] + s[k] + _f64(v)
    if isinstance(v, str):
        e = v.encode()
        return _TAG[_ATTR_STRING] + s[k] + _u64(len(e)) + e
    v = list(v)
    if all(isinstance(x, int) for x in v):
        return _TAG[_ATTR_INTS] + s[k] + _FMT["=I%dq" % len(v)](len(v), *v)
    return _TAG[_ATTR_FLOATS] + s[k] + _FMT["=I%dd" % len(v)](len(v), *v)


class _Shapes(dict):
    """dims (a tuple) -> its packed shape, made once per pack: most values
    share a few shapes."""

    def __missing__(self, dims):
        v = self[dims] = _shape(dims)
        return v


_U32 = [_u32(n) for n in range(256)]  # small counts, packed once


def pack(g):
    """The graph `g` and what only PyTorch knows (module classes and calls,
    parameter kinds) as one nns_builder_add_packed buffer."""
    return b"".join(_pack_parts(g))


# Graph.build's buffer is written into one kept per thread and reused by
# the next build, not joined into new bytes each time: on a machine where
# memory freshly mapped by malloc is slow to touch (measured here: ~20 ms
# CPU for LLaMA-3-8B's 0.8 MiB of records, on every join) that is most of
# pack's time. The parts are joined a run at a time (small joins reuse the
# same heap memory) and copied in. Kept up to _KEEP_MAX bytes; a larger
# buffer is made for its build alone.
_KEPT = threading.local()
_SMALL = 1 << 16  # a buffer this small is plain bytes
_RUN = 2048  # parts joined at a time
_KEEP_MAX = 64 << 20


def _in_kept_buffer(parts):
    """(buffer, size): the parts concatenated, as pack() joins them, in
    the thread's kept buffer; a small graph's plain bytes."""
    size = sum(map(len, parts))
    if size < _SMALL:
        return b"".join(parts), size
    kept = getattr(_KEPT, "buf", None)
    if kept is None or len(kept) < size:
        kept = bytearray(size)
        if size <= _KEEP_MAX:
            _KEPT.buf = kept
    view, at = memoryview(kept), 0
    for k in range(0, len(parts), _RUN):
        run = b"".join(parts[k:k + _RUN])
        view[at:at + len(run)] = run
        at += len(run)
    view.release()
    return (ctypes.c_char * size).from_buffer(kept), size


# The packed names for the process: a model's value, node and module
# names, scopes and op types recur in each summary of it ("v1", "c2", ...
# in every model's), so a pack finds most of them made. Emptied by a pack
# that leaves more than _PACKED_NAMES_MAX in it (a few MB; a pack on
# another thread then makes again what it misses).
_PACKED_NAMES = _Strings()
_PACKED_NAMES_MAX = 1 << 16


def _pack_parts(g):
    """pack()'s parts: bytes, each a record or part of one."""
    s = _PACKED_NAMES
    try:
        return _pack_parts_with(g, s)
    finally:
        if len(s) > _PACKED_NAMES_MAX or \
                len(_PACKED_TENSORS) > _PACKED_NAMES_MAX:
            s.clear()
            _PACKED_TENSORS.clear()


def _pack_parts_with(g, s):
    shapes = _Shapes()
    out = [b"NNSP", _u32(_api.PACKED_VERSION),
           _TAG[_PRODUCER], s["nnscan"], s[""], _TAG[_GRAPH_NAME], s[g.name]]
    if g.deferred:
        out.append(_TAG[_DEFERRED_NAMES])
    for d in sorted({""} | {n.domain for n in g.nodes}):
        out += [_TAG[_OPSET], s[d], _i64(_api.graph_opset() if d == "" else 1)]
    no_symbols = b"\0"
    values = g.values
    inputs = []
    for name in g.inputs:
        dt, dims = values[name]
        inputs += [_TAG[_INPUT], s[name], _i32(dt), _shape(dims), no_symbols]
    if not g.deferred:
        out += inputs
        inputs = None
    i32 = _I32s()
    aten = g.aten
    tensors = _Tensors(values, s, shapes) if aten else None
    kinds = _api.param_kinds()
    if g.deferred:
        # the recorder's numbers are read once the numbered calls before
        # them are lowered: its initializers and declarations after the
        # nodes (their order is the graph's all the same), the weights'
        # kinds before (the front folds a weight's t())
        for name, kind in g.param_kinds.items():
            if kind != "constant":
                out += [_TAG[_PARAM_KIND], s[name], i32[kinds[kind]]]
        after = []
        _pack_inits(g, s, shapes, i32, tensors, after)
        for name, kind in g.param_kinds.items():
            if kind == "constant":
                after += [_TAG[_PARAM_KIND], s[name], i32[kinds[kind]]]
        _pack_declared(g, s, after)
    else:
        _pack_inits(g, s, shapes, i32, tensors, out)
        # before the aten records: the library's front folds a tape's t()
        # of a parameter or buffer into the product reading it
        # (docs/tape.md)
        for name, kind in g.param_kinds.items():
            out += [_TAG[_PARAM_KIND], s[name], i32[kinds[kind]]]
        _pack_declared(g, s, out)
    node_tag = _TAG[_NODE]
    heads = {}  # (op, domain) -> the node record's tag, op and domain
    u32 = _U32
    nodes = g.nodes
    # runs of g.nodes: packed, or (a layer replayed from a template packed
    # before) a replay record that reads that layer's bytes again
    runs = _replay_runs(g) if g.replays and g.deferred else \
        ((0, len(nodes), None),)
    packed = [0, 0]  # parts of `out` measured, their bytes
    for first, stop, replay in runs:
        if replay is not None:
            if replay.of is not None:
                out.append(replay.record(s))
                continue
            # the first of its template: where its bytes lie
            packed[1] += sum(map(len, out[packed[0]:]))
            packed[0] = len(out)
            replay.offset = packed[1]
        for op, name, ins, outs, attrs, domain, scope in \
                (nodes if stop - first == len(nodes) else nodes[first:stop]):
            if aten:
                call = aten.get(name)
                if call is not None:
                    out += _aten(call, name, ins, outs, scope, tensors, s)
                    continue
            head = heads.get((op, domain))
            if head is None:
                head = heads[(op, domain)] = node_tag + s[op] + s[domain]
            n = len(ins)
            # (a node's name, as a string's packed form: made once for the
            # process too, as a model's next summary names its nodes so again)
            out += [head, s[name], s[scope], u32[n] if n < 256 else _u32(n)]
            out += [s[i or ""] for i in ins]
            n = len(outs)
            out.append(u32[n] if n < 256 else _u32(n))
            out += [s[o] for o in outs]
            if attrs:
                out += [_attr(k, v, s) for k, v in attrs.items()]
        if replay is not None:
            replay.length = sum(map(len, out[packed[0]:]))
            packed[1] += replay.length
            packed[0] = len(out)
    if g.kernels:
        # (a numbered call is one entry of g.nodes and its nodes in the
        # library's graph: the library maps the indices, numbering them)
        tag, pair = _TAG[_KERNEL], _FMT["=II"]
        out += [tag + pair(first, count) for first, count in g.kernels]
    if g.deferred:
        # the inputs too: a backward graph's forward tensors are named as
        # they are read, "fwdN" numbered as constants are
        out += inputs
        out += after
    for name in g.outputs:
        dt, dims = values[name]
        out += [_TAG[_OUTPUT], s[name], _i32(dt), _shape(dims), no_symbols]
    if g.observed:
        # the sizes PyTorch gave each value, which the library holds its
        # inference against (torch_api.check_shapes); the graph's inputs
        # are given, not inferred
        tag, inputs = _TAG[_OBSERVED_SHAPE], set(g.inputs)
        for name, dims in g.observed.items():
            if name not in inputs:
                try:
                    out += [tag, s[name], shapes[dims]]
                except (struct.error, TypeError):  # a size that is no
                    pass  # int (a symbol): left unchecked
    calls = g.module_calls
    for path, cls in g.module_types.items():
        out += [_TAG[_MODULE], s[path], s[cls], _i64(calls.get(path, 0))]
    out += _module_facts(g, s, shapes)
    return out


class Replayed:
    """A layer module_replay.py replayed from a template under deferred
    numbering: its template's key (the call key the template is kept
    under: equal for the replays of one template, and cheap to compare
    where a template holding this is compared), the entries of g.nodes it
    added (first .. stop - 1, the first and last of them), what the
    template numbers (the recorder's values, numbered calls, their
    outside constants, nodes), the graph's counters it was replayed at
    (values, nodes, numbered calls, outside constants, initializers), its
    module path and its arguments' names."""

    __slots__ = ("key", "first", "stop", "head", "tail", "counts", "at",
                 "path", "args")

    def __init__(self, key, first, stop, nodes, counts, at, path, args):
        self.key, self.first, self.stop = key, first, stop
        self.head, self.tail = nodes[first], nodes[stop - 1]
        self.counts, self.at, self.path, self.args = counts, at, path, args


class _Run:
    """A replayed layer as one pack() writes it: the first of its
    template packed, its bytes' offset and length noted; a later one (`of`
    that first) a replay record reading those bytes again."""

    __slots__ = ("layer", "of", "offset", "length")

    def __init__(self, layer, of):
        self.layer, self.of = layer, of
        self.offset = self.length = None

    def record(self, s):
        """The replay record (include/nnscan.h, packed record 33)."""
        r, src = self.layer, self.of.layer
        (vc, qc, fc, kc), (fv, fk, fq, ff, fi) = src.counts, src.at
        tv, tk, tq, tf, ti = r.at
        out = [_TAG[_REPLAY], _REPLAY_NUMBERS(
            self.of.offset, self.of.length, fv, vc, tv, fk, kc, tk,
            fq, qc, tq, ff, fc, tf, fi, ti), s[src.path], s[r.path],
            _u32(len(r.args))]
        out += [s[a] + s[b] for a, b in zip(src.args, r.args)]
        return b"".join(out)


_REPLAY_NUMBERS = struct.Struct("=16Q").pack


def _replay_runs(g):
    """g.nodes as pack() writes it: (first, stop, None) packed as it is,
    (first, stop, _Run) a replayed layer. A layer is read again only from
    an earlier one of its template, both still as the replay added them
    (no node dropped, renamed or moved since), with arguments of distinct
    names (a replay maps names, not positions), and only where the library
    reads replays (NNSCAN_PACK_REPLAY=0: never, for comparing)."""
    if not _REPLAY or os.environ.get("NNSCAN_PACK_REPLAY") == "0":
        return ((0, len(g.nodes), None),)
    nodes, kept, seen = g.nodes, [], {}
    for r in g.replays:
        if r.first < r.stop <= len(nodes) and nodes[r.first] is r.head and \
                nodes[r.stop - 1] is r.tail and \
                len(set(r.args)) == len(r.args):
            kept.append(r)
            seen[r.key] = seen.get(r.key, 0) + 1
    # (a layer and the layers inside it: the outer one where it repeats,
    # else the inner ones; g.replays lists a layer before those inside)
    runs, firsts, at = [], {}, 0
    for r in kept:
        if seen[r.key] < 2 or r.first < at:
            continue
        if at < r.first:
            runs.append((at, r.first, None))
        src = firsts.get(r.key)
        run = _Run(r, src)
        if src is None:
            firsts[r.key] = run
        runs.append((r.first, r.stop, run))
        at = r.stop
    if at < len(nodes):
        runs.append((at, len(nodes), None))
    return runs


def _pack_inits(g, s, shapes, i32, tensors, out):
    tag, no_data = _TAG[_INITIALIZER], _u64(0xFFFFFFFFFFFFFFFF)
    for name, (dt, dims, data) in g.inits.items():
        # name, dtype, dims: also an aten record's form of the tensor
        packed = s[name] + i32[dt] + shapes[dims]
        out += [tag, packed, no_data if data is None else _raw(data)]
        if tensors is not None:
            tensors[name] = packed


def _pack_declared(g, s, out):
    values, no_symbols = g.values, b"\0"
    for name in sorted(g.declared):
        dt, dims = values[name]
        out += [_TAG[_VALUE_INFO], s[name], _i32(dt), _shape(dims),
                no_symbols]


class _I32s(dict):
    """int -> its packed i32, made once per pack (dtype numbers)."""

    def __missing__(self, n):
        v = self[n] = _i32(n)
        return v


_I64_MIN, _I64_MAX = -(1 << 63), (1 << 63) - 1
_NO_TENSOR = _u32(0xFFFFFFFF) + _i32(0) + _i32(-1)


class _Tensors(dict):
    """value name -> its packed tensor of an aten record (name, dtype,
    dims), made once per pack: a value is read by several calls."""

    def __init__(self, values, s, shapes):
        super().__init__()
        self.values, self.s, self.shapes = values, s, shapes

    def __missing__(self, name):
        value = self.values[name]
        key = (name, value)
        v = _PACKED_TENSORS.get(key)
        if v is None:
            dt, dims = value
            v = _PACKED_TENSORS[key] = \
                self.s[name] + _i32(dt) + self.shapes[dims]
        self[name] = v
        return v


# (value name, its _Value) -> its packed tensor: a model's next summary
# names its values so again (its numbered calls' outputs "\3K.J" too).
# Emptied with _PACKED_NAMES.
_PACKED_TENSORS = {}


def _aten(call, name, ins, outs, scope, t, s):
    """One aten record (include/nnscan.h, packed record 29): the call of
    the node `name`, its tensors by the node's inputs and outputs (t: the
    packed tensors); for a numbered call (tape.py), the `names` record
    before it, its nodes named after the module path it was recorded in,
    its arguments from the template packed once (tape._template_of)."""
    base, args = call[0], call[1]
    if len(call) > 2:  # its arguments packed but for its tensors
        first, k, prefix, dropped, inits, template = call[2]
        # (the parts listed, not joined: pack() joins them all once)
        out = [_t_record(s, wt, scope, t[w], t[wt]) for w, wt in call[3]] \
            if call[3] else []  # a weight's t() it reads, folded
        if dropped:  # what a fused call threw away (fused.py)
            out.append(_TAG[_DROPPED])
        out += (_NAMES_TAG, _QQQ(first, k, inits), _ATEN_TAG, s[base],
                s[prefix], s[scope])
        out += [p if type(p) is not int else t[ins[p]] if p >= 0 else
                _NO_TENSOR if outs[-1 - p] is None else t[outs[-1 - p]]
                for p in template]
        return out
    packed = []
    for arg, kind, v in args:
        if kind == "tensor":
            v = t[ins[v]]
        elif kind == "tensors":
            v = [None if k is None else t[ins[k]] for k in v]
        packed.append((arg, kind, v))
    return _aten_parts(base, name, scope, packed, [t[o] for o in outs], s)


def _t_record(s, name, scope, w, wt):
    """The aten record t(self=w) -> wt named `name` (w and wt packed
    tensors), in one piece: what _aten_parts makes of it."""
    return (_TAG[_ATEN] + s["t"] + s[name] + s[scope] + _U32[1] + s["self"] +
            _KIND["tensor"] + w + _U32[1] + wt)


def _aten_parts(base, name, scope, args, outs, s):
    """An aten record's parts: its arguments (schema name, kind word,
    value; a tensor's value its packed form) and its packed outputs."""
    kinds = _KIND
    out = [_TAG[_ATEN], s[base], s[name], s[scope], _u32(len(args))]
    for arg, kind, v in args:
        if kind == "tensor":
            out += [s[arg], kinds[kind], v]
            continue
        if (kind == "int" and not _I64_MIN <= v <= _I64_MAX) or (
                kind == "ints" and not all(_I64_MIN <= x <= _I64_MAX
                                           for x in v)):
            kind = "none"  # no int64: nothing the table reads
        out += [s[arg], kinds[kind]]
        if kind == "int":
            out += [_i64(v), _u32(0xFFFFFFFF)]
        elif kind == "float":
            out.append(_f64(v))
        elif kind == "bool":
            out.append(b"\1" if v else b"\0")
        elif kind == "string":
            out.append(_str(v))
        elif kind == "dtype":
            out.append(_i32(v))
        elif kind == "ints":
            out.append(_FMT["=I%dq" % len(v)](len(v), *v))
        elif kind == "tensors":
            out.append(_u32(len(v)))
            out += [_NO_TENSOR if x is None else x for x in v]
    out.append(_u32(len(outs)))
    out += outs
    return out


# an aten record's argument kinds, word -> its byte (nns_aten_arg_kind)
_KIND = {w: bytes([k]) for w, k in _api.ATEN_ARG_KIND.items()}


def _module_facts(g, s, shapes):
    """What each declared module returned per call (its outputs'
    structure, for the v2 report's "calls"), its boundary shapes (the
    layers tables) and the tensors it registers (nns_model_module_held)."""
    out = []
    types = g.module_types
    dumps = json.JSONEncoder(separators=(", ", ": ")).encode
    text = {}  # id(description) -> its packed JSON: calls share one
    # description (recorder.ModuleStack), and every description is alive
    # in g.module_outputs meanwhile, so its id is its own
    for path, descs in g.module_outputs.items():
        if path in types:
            head = _TAG[_MODULE_CALL] + s[path]
            for k, d in enumerate(descs):
                j = text.get(id(d))
                if j is None:
                    j = text[id(d)] = _str(dumps(d))
                out.append(head + _i64(k) + j)
    none = _i32(-1)
    for path, (ins, outs) in g.module_shapes.items():
        if path in types:
            out += [_TAG[_MODULE_SHAPES], s[path],
                    none if ins is None else _shape(ins),
                    none if outs is None else _shape(outs)]
    kinds = _api.param_kinds()
    tag = _TAG[_MODULE_TENSOR]
    for path, tensor, bits, dims, kind in g.module_tensors:
        out += [tag, s[path], s[tensor], _i32(bits), shapes[dims],
                _i32(kinds[kind])]
    return out


def _raw(raw):
    """A small constant's bytes (little-endian, as ONNX raw_data, in the
    constant's own dtype: masks.tensor_bytes), with their length."""
    return _u64(len(raw)) + bytes(raw)
