"""`Summary`: one analysis of a model and every way the library renders it.

Two native handles sit under it, each a Python object of its own that
frees its handle on close(), at the end of a `with` block, or (as the
backstop) when it is garbage-collected: `Handle`, the model (nns_model *),
and `Analysis`, one analysis of it (nns_analysis *). The analysis reads its
model, so it keeps the model alive, and closing the model closes its
analyses first (the library needs them freed before the model). Using
either after close raises NnscanError, never touches freed memory.

A Summary holds one Analysis. Its `.json` is the library's own
`nnscan.summary` v1 document (docs/json.md), parsed once when first used;
the text, CSV, Markdown and HTML renderings are the library's too
(nns_report), so Python never re-counts or re-formats a number.
`analyze()` makes one from an ONNX file or its bytes.
"""
import ctypes
import json
import numbers
import os
import threading
import weakref
from collections.abc import Iterable

from . import _api, _args


def clever_format(nums, format="%.2f"):  # noqa: A002 - thop's keyword
    """Numbers as thop prints them, by the library (nns_format_count):
    1.82G, 11.69M, 512.00K, 12.00B (a unit once the value is strictly
    above 1e12, 1e9, 1e6, 1e3). One number gives one string, several a
    tuple. `format` is "%.<digits>f" or "%<width>.<digits>f" (0 to 20
    digits; "%f": 6); any other format is a ValueError."""
    width, digits = _api.count_format(format, "clever_format")
    many = isinstance(nums, Iterable) and not isinstance(nums, (str, bytes))
    out = []
    for n in (nums if many else [nums]):
        if isinstance(n, (str, bytes, bool)) or not isinstance(
                n, numbers.Real):
            raise TypeError(f"clever_format takes numbers, not "
                            f"{_args.given(n)}")
        out.append(_api.format_count(n, "thop", width, digits))
    return out[0] if len(out) == 1 else tuple(out)


_NONE = ctypes.c_size_t(-1).value  # the header's (size_t)-1


def _text(b):
    """A name the library gave (escaped, UTF-8), as Python's."""
    return _api.py_name(b.decode("utf-8", "surrogateescape")) if b else ""


def _free_model(free_model, ptr, analyses):
    """The model's finalizer: its live analyses first, then the model."""
    for fin in analyses:
        fin()  # a finalizer runs once; a dead one does nothing
    del analyses[:]
    free_model(ptr)


def _c_names(names):
    """names as a C array of the C API's strings (_api.c_name)."""
    return (ctypes.c_char_p * max(1, len(names)))(*map(_api.c_name, names))


class Handle(_api.Managed):
    """An nns_model * and whatever memory it points into (kept alive)."""

    _what = "model"
    _shared = False  # share()

    def __init__(self, ptr, keep=None):
        self._keep = keep
        self._analyses = []  # finalizers of the analyses made of it
        # around what may not run beside an analysis (nns_model_analyze
        # changes the model; nnscan.h, "Threads"): a model one summary
        # built may be shared by the next (summary_memo.py) while the
        # first is read on another thread
        self._lock = threading.Lock()
        lib = _api.lib()
        self._manage(ptr, weakref.finalize(
            self, _free_model, lib.nns_model_free, ptr,
            self._analyses))

    def share(self):
        """Marks the model as held by several summaries (summary_memo.py's
        kept recordings): each makes its analysis of it one at a time and
        never while another reads it, and closing one leaves it to the
        others (`shared`). False, and nothing marked, where it was closed
        (a summary that built it closed it: close_unshared)."""
        with self._lock:
            if self.closed:
                return False
            if not self._shared:
                self._views = {}  # analyze()'s of it, by options (_view)
                self._shared = True
            return True

    def close_unshared(self):
        """Closes the model unless it is shared (then the others hold it):
        at once, so that no summary shares it after this one closed it."""
        with self._lock:
            if not self._shared:
                self.close()

    def _view(self, optimizer, compute_dtype):
        """analyze() of a shared model: a view of the one Analysis made of
        it with these options (at the first call, kept with the model),
        which closing leaves to the others. Nothing changes a model once
        shared (its masks were handed over before), and an analysis is a
        snapshot, so each summary would make the same one: an eighth to a
        third of a built summary (0.4 to 0.7 ms of hf:llama's, hf:t5's,
        resnet50's)."""
        key = (optimizer, compute_dtype)
        root = self._views.get(key)
        if root is None or root.closed:
            root = self._views[key] = self._analysis(
                optimizer, None, compute_dtype, None)
        return _AnalysisView(root)

    @property
    def shared(self):
        return self._shared

    @staticmethod
    def load(source, external_dir=None):
        """From a path (str / os.PathLike) or bytes: an ONNX model or a
        torch.export archive (.pt2), told apart by the library."""
        lib = _api.lib()
        err = _api.NnsError()
        out = ctypes.c_void_p()
        opts = _api.LoadOptions(
            os.fsencode(external_dir) if external_dir else None, 0, 0)
        if isinstance(source, (bytes, bytearray, memoryview)):
            buf = bytes(source)
            st = lib.nns_model_load_memory(buf, len(buf), ctypes.byref(opts),
                                           ctypes.byref(out), ctypes.byref(err))
            _api.check(st, err, "loading model bytes")
            return Handle(out.value, keep=buf)
        path = os.fspath(source)
        st = lib.nns_model_load_file(os.fsencode(path), ctypes.byref(opts),
                                     ctypes.byref(out), ctypes.byref(err))
        _api.check(st, err, f"loading {path}")
        return Handle(out.value)

    def infer(self, input_shapes=None, batch=0, fallback_declared=False):
        lib = _api.lib()
        err = _api.NnsError()
        shapes = list((input_shapes or {}).items())
        arr = (_api.InputShape * max(1, len(shapes)))()
        keep = []
        for i, (name, dims) in enumerate(shapes):
            d = (ctypes.c_int64 * len(dims))(*dims)
            keep.append(d)
            arr[i] = _api.InputShape(name.encode(), d, len(dims))
        opts = _api.InferOptions(
            _api.INFER_FALLBACK_DECLARED if fallback_declared else 0, batch, arr if shapes else None,
                                 len(shapes))
        st = lib.nns_model_infer(self.ptr, ctypes.byref(opts),
                                 ctypes.byref(err))
        _api.check(st, err, "shape inference")

    def declare_module_tensors(self, module_types, tensors):
        """Declares modules (path -> class name) that are not yet, and the
        tensors each registers, as recorder.module_tensors lists them
        (nns_model_add_module_tensor): for a model the recorder did not
        build (method="onnx")."""
        lib = _api.lib()
        err = _api.NnsError()
        kinds = _api.param_kinds()
        for path, cls in module_types.items():
            if not self.module_held(path):
                _api.check(lib.nns_model_set_module(
                    self.ptr, _api.c_name(path), _api.c_name(cls), 0,
                    ctypes.byref(err)), err, f"module '{path}'")
        for path, tensor, bits, dims, kind in tensors:
            d = (ctypes.c_int64 * max(1, len(dims)))(*dims)
            _api.check(lib.nns_model_add_module_tensor(
                self.ptr, _api.c_name(path), _api.c_name(tensor), bits,
                len(dims), d, kinds[kind], ctypes.byref(err)), err,
                f"tensor '{tensor}' of module '{path}'")

    def module_held(self, path, recurse=False):
        """What the tensors the module at `path` registers hold, each once
        (nns_model_module_held): a dict of trainable, frozen, param_bytes,
        buffers, buffer_bytes and tensors; with recurse, its submodules'
        too. None for a module never declared."""
        lib = _api.lib()
        h = _api.ModuleHeld()
        with self._lock:
            st = lib.nns_model_module_held(self.ptr, _api.c_name(path),
                                           int(bool(recurse)),
                                           ctypes.byref(h))
        if st and lib.nns_status_name(st) == b"NNS_E_NOTFOUND":
            return None
        _api.check(st, None, f"what module '{path}' holds")
        return {k: getattr(h, k) for k, _ in h._fields_[1:]}

    def set_module_macs(self, path, macs):
        """The MACs of the module at `path` over all its calls, counted by
        the caller (a custom-op rule): at the next analyze() its layer and
        the totals take them (nns_model_set_module_macs)."""
        err = _api.NnsError()
        st = _api.lib().nns_model_set_module_macs(
            self.ptr, _api.c_name(path), int(macs), ctypes.byref(err))
        _api.check(st, err, f"MACs of module '{path}'")

    def mask_inputs(self, names):
        """Which of the values `names` (whose contents the caller can give)
        the masked-attention counts read: positions into names, in the
        order to give them (nns_model_mask_inputs; after infer())."""
        n = len(names)
        arr = _c_names(names)
        out = (ctypes.c_size_t * max(1, n))()
        got = ctypes.c_size_t()
        err = _api.NnsError()
        st = _api.lib().nns_model_mask_inputs(self.ptr, arr, n, out,
                                              ctypes.byref(got),
                                              ctypes.byref(err))
        _api.check(st, err, "picking the masks to hand over")
        return out[:got.value]

    def shape_mismatches(self):
        """The values whose inferred shape differs from the one recorded
        for them (the packed graph's observed_shape records; after infer()),
        in recorded order (nns_model_shape_mismatches)."""
        lib, err = _api.lib(), _api.NnsError()
        n = ctypes.c_size_t()
        # (locked: a shared model may be analysed on another thread)
        with self._lock:
            st = lib.nns_model_shape_mismatches(self.ptr, None, 0,
                                                ctypes.byref(n),
                                                ctypes.byref(err))
            _api.check(st, err, "checking the recorded shapes")
            if not n.value:
                return []
            arr = (ctypes.c_char_p * n.value)()
            st = lib.nns_model_shape_mismatches(self.ptr, arr, n.value,
                                                ctypes.byref(n),
                                                ctypes.byref(err))
        _api.check(st, err, "checking the recorded shapes")
        return [_api.py_name(v.decode("utf-8", "surrogateescape"))
                for v in arr[:n.value]]

    def nodes(self):
        """The model's main-graph nodes as the library holds them, in
        order (nns_model_node): (op type, domain, name, [(output name,
        dtype name or None), ...], (first node, nodes) of the kernel that
        runs it or None). After infer() the dtypes are the inferred ones;
        a recording's nodes are named here as the library named them
        (docs/tape.md, "Numbers the library gives")."""
        lib = _api.lib()
        names = {v: k for k, v in _api.dtypes().items()}
        node, value = _api.NodeInfo(), _api.ValueInfo()
        k = ctypes.c_size_t()
        out = []
        with self._lock:
            for i in range(lib.nns_model_node_count(self.ptr)):
                _api.check(lib.nns_model_node(self.ptr, i, ctypes.byref(node)),
                           None, "nns_model_node")
                if node.graph_depth:
                    continue
                outs = []
                for j in range(node.output_count):
                    _api.check(lib.nns_model_node_output(
                        self.ptr, i, j, ctypes.byref(k)), None,
                        "nns_model_node_output")
                    if k.value == _NONE:
                        outs.append(("", None))
                        continue
                    _api.check(lib.nns_model_value(
                        self.ptr, k.value, ctypes.byref(value)), None,
                        "nns_model_value")
                    outs.append((_text(value.name),
                                 names.get(value.dtype)))
                out.append((_text(node.op_type), _text(node.domain),
                            _text(node.name), outs,
                            None if node.kernel == _NONE
                            else (node.kernel, node.kernel_nodes)))
        return out

    def set_value_data(self, names, dtype, dims, data):
        """The values `names` held the elements `data` (bytes of the
        library's `dtype`, little-endian, over `dims`), one copy for all:
        read at the next analyze() (nns_model_set_value_data)."""
        arr = _c_names(names)
        d = (ctypes.c_int64 * max(1, len(dims)))(*dims)
        if not isinstance(data, bytes):  # a buffer: read in place
            data = memoryview(data).cast("B")
            data = bytes(data) if data.readonly or not len(data) else \
                (ctypes.c_char * len(data)).from_buffer(data)
        err = _api.NnsError()
        st = _api.lib().nns_model_set_value_data(
            self.ptr, arr, len(names), int(dtype), len(dims), d, data,
            len(data), ctypes.byref(err))
        _api.check(st, err, f"contents of '{names[0]}'")

    def analyze(self, optimizer="adam", hardware=None, compute_dtype=None,
                forward=None):
        """A new Analysis of the last inference (several live side by
        side: each keeps what it counted). hardware: a device name or a
        dict (nnscan.hardware; the roofline, docs/metrics.md);
        compute_dtype: "bf16", ... or None (the model's float dtype);
        forward: for a recorded backward, its forward's Analysis (the
        attention products' unmasked counts, nns_analyze_options). Of a
        shared model (share()), with no hardware nor forward: a view of
        the one made with these options (_view)."""
        if self.shared and hardware is None and forward is None:
            return self._view(optimizer, compute_dtype)
        return self._analysis(optimizer, hardware, compute_dtype, forward)

    def _analysis(self, optimizer, hardware, compute_dtype, forward):
        lib = _api.lib()
        err = _api.NnsError()
        hw = None
        if hardware is not None:
            from . import hardware as _hardware
            hw = _hardware.struct(hardware)
        _args.compute_dtype("analysis", compute_dtype)
        opts = _api.AnalyzeOptions(
            _api.optimizer(optimizer), ctypes.pointer(hw) if hw else None,
            compute_dtype.encode() if compute_dtype else None,
            forward.ptr if forward is not None else None)
        out = ctypes.c_void_p()
        with self._lock:
            st = lib.nns_model_analyze(self.ptr, ctypes.byref(opts),
                                       ctypes.byref(out), ctypes.byref(err))
            _api.check(st, err, "analysis")
            return Analysis(self, out.value)

    def report(self, fmt="shapes_json", **kw):
        """The value shapes of the last inference (nns_report_shapes):
        fmt "shapes_json" or "shapes_text"."""
        if fmt not in ("shapes_json", "shapes_text"):
            raise ValueError(f"a model reports its shapes only "
                             f"('shapes_json', 'shapes_text'), not {fmt!r}; "
                             "the other formats are an Analysis's")
        with self._lock:
            return _render(_api.lib().nns_report_shapes, self.ptr, fmt,
                           **kw)


class Analysis(_api.Managed):
    """An nns_analysis *: one analysis of a Handle's model. Its numbers stay
    those of the inference it ran on, whatever the model does next; it keeps
    its model alive, and closing the model closes it."""

    _what = "analysis"

    def __init__(self, model, ptr):
        self.model = model
        fin = weakref.finalize(self, _api.lib().nns_analysis_free, ptr)
        model._analyses[:] = [f for f in model._analyses if f.alive]
        model._analyses.append(fin)
        self._manage(ptr, fin)

    def report(self, fmt="text", **kw):
        """The library's rendering of the analysis, as str (nns_report).
        It reads its model: not beside an analysis of a shared one."""
        with self.model._lock:
            return _render(_api.lib().nns_report, self.ptr, fmt, **kw)


class _AnalysisView(Analysis):
    """An Analysis that reads another's native analysis (Handle._view):
    closed when it is closed itself or the other is
    (its model closed); closing it frees nothing."""

    def __init__(self, root):
        self.model, self._root, self._open = root.model, root, True

    @property
    def ptr(self):
        if not self._open:
            raise _api.NnscanError(
                "NNS_E_STATE", f"the {self._what} is closed: make a new one")
        return self._root.ptr  # (refuses it closed with its model)

    @property
    def closed(self):
        return not self._open or self._root.closed

    def close(self):
        self._open = False


def _render(fn, ptr, fmt="text", numbers="raw", max_depth=None, columns=None,
            width=0, wrap="mid", model_name=None, model_path=None,
            json_version=1, backward=None):
    """fn (nns_report or nns_report_shapes) of ptr into a str. json_version:
    the "nnscan.summary" version of fmt="json" (1 or 2); backward: the
    Analysis of the backward pass, whose FLOPs the totals then add up into
    the training FLOPs."""
    if fmt not in _api.FORMAT:
        raise ValueError(f"unknown report format {fmt!r}; one of "
                         + ", ".join(_api.FORMAT))
    if numbers not in _api.NUMBERS:
        raise ValueError(f"unknown number format {numbers!r}; one of "
                         + ", ".join(_api.NUMBERS))
    if wrap not in _api.WRAP:
        raise ValueError(f"unknown wrap_mode {wrap!r}; one of "
                         + ", ".join(_api.WRAP))
    who = "the report"
    _args.count(who, "max_depth", max_depth, least=-1, none=True)
    _args.count(who, "width", width)
    if isinstance(columns, str):
        columns = [columns]
    cols = 0
    for c in columns or ():
        if c not in _api.COL:
            raise ValueError(f"unknown column {c!r}; one of "
                             + ", ".join(_api.COL))
        cols |= _api.COL[c]
    # None: every depth. The library has no root-only table (its 0 is
    # "default depth"), so torchscan's max_depth=0 shows depth 1.
    if max_depth is None or int(max_depth) < 0:
        depth = _api.DEPTH_ALL
    else:
        depth = max(1, int(max_depth))
    opts = _api.ReportOptions(
        _api.FORMAT[fmt], _api.NUMBERS[numbers], depth, cols, int(width),
        _api.WRAP[wrap],
        _api.c_name(model_name) if model_name else None,
        model_path.encode() if model_path else None, int(json_version),
        backward.ptr if backward is not None else None)
    err = _api.NnsError()
    cb, chunks = _api.write_collector()
    st = fn(ptr, ctypes.byref(opts), cb, None, ctypes.byref(err))
    _api.check(st, err, f"{fmt} report")
    return b"".join(chunks).decode()


def render_layers(rows, total, clever, kind="text", numbers="raw"):
    """A layers table the caller counted, laid out by the library
    (nns_report_layers): `rows` (name, class, input dims, output dims,
    macs, params), dims batch first or None (none recorded), `total` the
    Total row (class, input dims, output dims, macs, params); clever: the
    style of its clever numbers ("thop", "thoplw"); kind: "text", "csv",
    "md" or "json"."""
    keep = []

    def row(name, cls, dims_in, dims_out, macs, params):
        r = _api.LayersRow(_api.c_name(name), _api.c_name(cls))
        for field, dims in (("input", dims_in), ("output", dims_out)):
            if dims is None:
                setattr(r, field + "_rank", -1)
                continue
            d = (ctypes.c_int64 * max(1, len(dims)))(*dims)
            keep.append(d)
            setattr(r, field + "_shape", d)
            setattr(r, field + "_rank", len(dims))
        r.macs, r.params = int(macs), int(params)
        return r
    arr = (_api.LayersRow * max(1, len(rows)))(*[row(*r) for r in rows])
    tot = row("Total", *total)
    lib = _api.lib()

    def report(_ptr, opts, cb, user, err):
        return lib.nns_report_layers(arr, len(rows), ctypes.byref(tot),
                                     _api.COUNT_STYLE[clever], opts, cb, user,
                                     err)
    return _render(report, None, "layers_" + kind, numbers=numbers)


class Summary:
    """The analysis of one model: numbers as JSON, renderings from the library.

    `.json` is the `nnscan.summary` v1 document; `.totals` its totals;
    `.layers` its layers in preorder (root first). `.v2` is the version 2
    document (docs/json.md: every count with its status and the diagnostics
    behind it) and `metrics(path)` a layer's counts with their statuses, read
    from either version. Render with `to_text()`, `to_csv()`,
    `to_markdown()`, `to_json()`, `to_html()`; `str()` is the text table at
    the depth and columns the Summary was made with. `Summary.from_json()`
    (or `load_summary()`) reads a saved document of either version, for
    its numbers and for `nnscan.compare`; it has nothing to render.
    `.analysis` is the native Analysis under it: `close()` (or a `with`
    block) frees it and its model at once instead of at garbage collection;
    a document already read stays readable, a rendering asked for after
    raises NnscanError.
    """

    def __init__(self, analysis, name=None, path=None, max_depth=None,
                 columns=("params",), wrap="mid", extra=None):
        if isinstance(analysis, Handle):  # a model: analyse it now
            analysis = analysis.analyze()
        self.analysis = analysis
        self.name = name
        self._path = path
        self._defaults = {"max_depth": max_depth, "columns": tuple(columns),
                          "wrap": wrap}
        self._json = None  # parsed when first asked for (not to print)
        self._extra = extra
        self._v2 = None

    @classmethod
    def from_json(cls, doc, name=None):
        """A saved `nnscan.summary` document (a dict, or its JSON text), of
        version 1 or 2."""
        text = None
        if isinstance(doc, (str, bytes, bytearray)):
            # the library's reader's rules first (its depth and duplicate
            # checks, nns_json_check), then Python's reader
            text = doc = _args.json_text(doc, "a saved nnscan.summary "
                                              "document")
            doc = json.loads(doc, object_pairs_hook=_unique_members)
        if not isinstance(doc, dict):
            raise TypeError("a saved nnscan.summary document is a JSON "
                            f"object (a dict), not {_args.given(doc)}")
        if doc.get("schema") != "nnscan.summary" or \
                doc.get("schema_version") not in (1, 2):
            raise ValueError("not an nnscan.summary document of version 1 or "
                             f"2: schema {doc.get('schema')!r}, version "
                             f"{doc.get('schema_version')!r}")
        s = cls(None, name=name or doc.get("model", {}).get("name"))
        s._json = doc
        # The text as saved: nnscan.compare hands it to the library's reader
        # as it is, so both sides of a comparison are read by one reader.
        s._text = text
        if doc["schema_version"] == 2:
            s._v2 = doc
        return s

    @property
    def schema_version(self):
        """1 or 2: the version `.json` holds (1 unless read from a saved
        version 2 document)."""
        return self.json["schema_version"]

    @property
    def v2(self):
        """The `nnscan.summary` version 2 document, from the library."""
        if self._v2 is None:
            if self.analysis is None:
                raise ValueError("a saved version 1 summary has no version 2 "
                                 "document; analyse the model again")
            self._v2 = json.loads(self.analysis.report(
                "json", model_name=self.name, model_path=self._path,
                json_version=2))
        return self._v2

    def metrics(self, path=""):
        """The counts of layer `path` ("" the model) with their statuses:
        {"macs": {"status": "complete", "value": N} or {"status":
        "partial", "known_value": N, ...} or {"status": "unavailable"}}.
        A version 1 document states no statuses: they follow from its
        flags (and the totals' "saturated") by the library's one rule
        (nns_metrics_partial, docs/json.md)."""
        if self._v2 is not None or self.analysis is not None:
            return self._row(self.v2, path)["metrics"]
        row = self._row(self.json, path)
        lib = _api.lib()
        flags = dict(row["flags"],
                     saturated=self.json["totals"].get("saturated", False))
        bits = sum(b for w, b in _api.COUNT_FLAG.items() if flags.get(w))
        partial = lib.nns_metrics_partial(bits)
        out = {}
        for i, k in enumerate(_api.METRIC):
            v = row.get(k, 0)
            out[k] = {"status": "partial", "known_value": v} \
                if partial & (1 << i) else {"status": "complete", "value": v}
        return out

    def _row(self, doc, path):
        for row in doc["layers"]:
            if row["path"] in (path, _api.c_name(path).decode()):
                return row
        raise KeyError(path)

    @property
    def json(self):
        if self._json is None:
            doc = json.loads(self.analysis.report(
                "json", model_name=self.name, model_path=self._path,
                backward=self._defaults.get("backward")))
            if self._extra:
                doc.update(self._extra)
            self._json = doc
        return self._json

    @json.setter
    def json(self, doc):
        self._json = doc

    @property
    def totals(self):
        return self.json["totals"]

    @property
    def layers(self):
        return self.json["layers"]

    def layer(self, path):
        """The layer whose dotted module path is `path` ("" is the model)."""
        if not isinstance(path, str):
            raise TypeError("Summary.layer(): path takes a dotted module "
                            f"path (str), not {_args.given(path)}")
        # A recording hands names over escaped (_api.c_name); a file's are
        # as they are.
        escaped = _api.c_name(path).decode()
        for want in (escaped, path):
            for row in self.layers:
                if row["path"] == want:
                    return row
        raise KeyError(path)

    def _render(self, fmt, **kw):
        if self.analysis is None:
            raise ValueError("a summary read from JSON has nothing to render "
                             "but its document (.json)")
        opts = dict(self._defaults)
        opts.update({k: v for k, v in kw.items() if v is not None})
        return self.analysis.report(fmt, model_name=self.name,
                                    model_path=self._path, **opts)

    def to_text(self, max_depth=None, columns=None, numbers="raw", width=0,
                wrap=None):
        """The tree table with its footer (torchscan's layout)."""
        return self._render("text", max_depth=max_depth, columns=columns,
                            numbers=numbers, width=width, wrap=wrap)

    def to_csv(self, max_depth=None, columns=None, numbers="raw"):
        return self._render("csv", max_depth=max_depth if max_depth is not None
                            else _api.DEPTH_ALL, columns=columns,
                            numbers=numbers)

    def to_markdown(self, max_depth=None, columns=None, numbers="raw"):
        return self._render("md", max_depth=max_depth, columns=columns,
                            numbers=numbers)

    def to_json(self, indent=None, version=None):
        """The `nnscan.summary` document as a string: `.json`, or version
        2 with version=2."""
        return json.dumps(self.v2 if version == 2 else self.json,
                          indent=indent)

    def to_html(self, max_depth=None):
        """One self-contained HTML page (the library's NNS_FORMAT_HTML): the
        `nnscan.summary` document embedded, with the offline viewer."""
        return self._render("html", max_depth=max_depth if max_depth is not None
                            else _api.DEPTH_ALL)

    def close(self):
        """Frees the analysis and its model now (they are also freed when
        the Summary is garbage-collected); a model several summaries hold
        (summary_memo.py) stays for the others."""
        if self.analysis is not None:  # None: read from a saved document
            self.analysis.close()
            self.analysis.model.close_unshared()

    @property
    def closed(self):
        return self.analysis is None or self.analysis.closed

    def __enter__(self):
        if self.analysis is not None:
            self.analysis.ptr  # refuses a closed one
        return self

    def __exit__(self, exc_type, exc, tb):
        self.close()

    def __str__(self):
        return self.to_text()

    def __repr__(self):
        m = self.metrics("")

        def v(k):  # "≥ N" for a lower bound, "?" for nothing known
            x = m[k]
            return x["value"] if "value" in x else \
                f"≥{x['known_value']}" if "known_value" in x else "?"
        return (f"<nnscan.Summary {self.name or ''}: params={v('params')} "
                f"macs={v('macs')} flops={v('flops')}>")


def analyze(source, input_shapes=None, batch=0, optimizer="adam",
            external_dir=None, name=None, max_depth=None, columns=("params",),
            hardware=None, compute_dtype=None, dtype=None):
    """Analyse an ONNX model (a path or its bytes) and return its Summary.

    input_shapes: {input name: dims} fixing graph inputs; batch: > 0 sets the
    first dim of every input. hardware ("h100-sxm", a dict, see
    nnscan.hardware) adds the roofline: bytes, intensity, bound and time
    per layer, at compute_dtype ("bf16", ...; None: the model's float dtype;
    `dtype` is the same, for the CLI's --dtype).
    """
    who = "nnscan.analyze()"
    if not isinstance(source, (bytes, bytearray, memoryview)):
        _args.path(who, "source", source)
    _args.input_shapes(who, input_shapes)
    batch = _args.count(who, "batch", batch)
    _args.optimizer(who, optimizer)
    _args.count(who, "max_depth", max_depth, least=-1, none=True)
    columns = _args.words(who, "columns", columns, tuple(_api.COL),
                          none=False)
    if name is not None and not isinstance(name, str):
        raise TypeError(f"{who}: name takes a str, not {_args.given(name)}")
    if dtype is not None:
        if compute_dtype is not None and compute_dtype != dtype:
            raise ValueError("give compute_dtype or dtype, not both")
        compute_dtype = dtype
    _args.compute_dtype(who, compute_dtype)
    h = Handle.load(source, external_dir=external_dir)
    h.infer(input_shapes, batch)
    a = h.analyze(optimizer, hardware, compute_dtype)
    if hardware is not None:
        columns = tuple(columns) + ("bytes", "roof")
    path = None if isinstance(source, (bytes, bytearray, memoryview)) \
        else os.fspath(source)
    if name is None and path is not None:
        name = model_name_of_path(path)
    return Summary(a, name=name, path=path, max_depth=max_depth,
                   columns=columns)


def _unique_members(pairs):
    """An object of a saved document, refused when a key comes twice: the
    library's JSON reader refuses it too (src/base/json_reader.h), so a
    budget cannot read the first value in C and the last in Python."""
    out = {}
    for key, value in pairs:
        if key in out:
            raise ValueError(f'duplicate key "{key[:64]}" in a saved '
                             'nnscan.summary document')
        out[key] = value
    return out


def load_summary(source):
    """A saved `nnscan.summary` document (version 1 or 2) as a Summary: a
    path to the .json file, its text, or the parsed dict."""
    if isinstance(source, dict):
        return Summary.from_json(source)
    if not isinstance(source, (str, bytes, bytearray, os.PathLike)):
        raise TypeError("nnscan.load_summary(): source takes a path, JSON "
                        f"text or a dict, not {_args.given(source)}")
    if isinstance(source, (str, os.PathLike)) and \
            not str(source).lstrip().startswith("{"):
        with open(source, "rb") as f:
            raw = f.read()
        return Summary.from_json(_args.json_text(raw, os.fsdecode(source)))
    return Summary.from_json(source)


def model_name_of_path(path):
    """The name a model file gets in reports, as `nnscan FILE` names it:
    the file's base name without `.onnx` or `.pt2` (docs/cli.md, "Model
    names")."""
    base = os.path.basename(os.fsdecode(path))
    for ext in (".onnx", ".pt2"):
        if base.endswith(ext) and len(base) > len(ext):
            return base[:-len(ext)]
    return base
