"""The calls PyTorch users know, on a live model: summary, crawl_module,
profile, clever_format.

`summary(module, input_shape)` (torchscan's signature) records one forward
(recorder.py), has libnnscan analyse the recorded graph and prints the
library's tree table; `crawl_module` returns torchscan's dictionary and
`profile` thoplw's (macs, params, layers_info) triple, both read off the
same analysis. Every count comes from the library; what only PyTorch knows
(module classes, call counts, per-module input/output shapes of the first
call, parameter kinds) comes from the recording.
"""
import ctypes
import io
import sys
import warnings

from . import _api, _args, masks
from ._api import graph_opset, py_name
from .report import (Handle, Summary, clever_format,  # thop's: compat.md
                     render_layers)

_TORCHSCAN_WRAP = {"mid": "mid", "start": "start", "end": "end"}


def _torch():
    import torch
    return torch


def _uncompiled(module):
    """torch.compile(m)'s wrapper -> m: the report is the module's own tree."""
    from .recorder import unwrap_compiled
    return unwrap_compiled(module)


# ---- inputs ----

def _shape_of(shape, k):
    """One input shape (batch excluded) as a tuple of non-negative ints, or
    a TypeError/ValueError that names the offending input and dim."""
    import numbers
    if isinstance(shape, (str, bytes)) or not hasattr(shape, "__iter__"):
        raise TypeError(f"input_shape[{k}] must be a sequence of ints such as "
                        f"(3, 224, 224), not {type(shape).__name__} {shape!r}")
    dims = tuple(shape)
    for a, d in enumerate(dims):
        if isinstance(d, bool) or not isinstance(d, numbers.Integral):
            raise TypeError(f"input_shape[{k}] dim {a} must be an int, not "
                            f"{type(d).__name__} {d!r}")
        if d < 0:
            raise ValueError(f"input_shape[{k}] dim {a} is negative ({d})")
    return tuple(int(d) for d in dims)


def make_inputs(module, input_shape=None, dtype=None, inputs=None,
                tensor=None):
    """(args, kwargs) from any of the ways the seeds take inputs.

    input_shape: torchscan's shape (batch excluded) or list of shapes, made
    into zero tensors of batch 1 with `dtype` (one, or one per shape; default
    the first parameter's floating or complex dtype). tensor / inputs: a
    tensor, a tuple/list of tensors (positional), or a dict of keyword
    tensors.
    """
    torch = _torch()
    given = [x is not None for x in (input_shape, inputs, tensor)]
    if sum(given) != 1:
        raise ValueError("give exactly one of input_shape, inputs= or tensor=")
    if input_shape is not None:
        shapes = input_shape if isinstance(input_shape, list) else [input_shape]
        shapes = [_shape_of(s, k) for k, s in enumerate(shapes)]
        if dtype is None:
            p = next((p for p in module.parameters()
                      if p.is_floating_point() or p.is_complex()), None)
            dtype = p.dtype if p is not None else torch.float32
        dtypes = list(dtype) if isinstance(dtype, (list, tuple)) \
            else [dtype] * len(shapes)
        if len(dtypes) != len(shapes):
            raise ValueError(f"{len(dtypes)} dtypes for {len(shapes)} input shapes")
        dev = _device(module)
        return tuple(_zeros((1,) + s, d, dev)
                     for s, d in zip(shapes, dtypes)), {}
    obj = inputs if inputs is not None else tensor
    if isinstance(obj, torch.Tensor):
        return (obj,), {}
    if isinstance(obj, dict):
        return (), dict(obj)
    if isinstance(obj, (tuple, list)):
        return tuple(obj), {}
    raise TypeError("inputs must be a tensor, a tuple of tensors or a dict "
                    f"of keyword tensors, not {type(obj).__name__}")


def _zeros(shape, dtype, device):
    """torch.zeros(shape, dtype=dtype, device=device); on the CPU made from
    a zeroed buffer: torch.zeros fills in parallel, and waking the intra-op
    threads (spinning, by OpenMP's default wait policy, on a busy machine)
    for an input that the meta path never reads cost 20 ms a call here."""
    torch = _torch()
    n = 1
    for d in shape:
        n *= d
    if torch.device(device).type != "cpu" or n == 0:
        return torch.zeros(shape, dtype=dtype, device=device)
    size = torch.empty((), dtype=dtype).element_size()
    return torch.frombuffer(bytearray(n * size), dtype=dtype).view(shape)


def _device(module):
    p = next(iter(module.parameters()), None)
    if p is None:
        p = next(iter(module.buffers()), None)
    return p.device if p is not None else "cpu"


# ---- the analysis ----

class TorchSummary(Summary):
    """A Summary of a live model, with what PyTorch alone knows.

    `.modules` maps each module path ("" the model) to its `type`, `calls`
    (forward calls in the recorded pass), `input_shapes` (the tensors of
    its first call) and `output_shapes` (the output tensors of every call,
    in order), batch included;
    `.device` says where the forward ran ("meta" or the model's device);
    `.method` is "record" or "onnx".
    """

    def __init__(self, analysis, rec, method, **kw):
        super().__init__(analysis, **kw)
        self.method = method
        self.device = rec.device if rec is not None else None
        self.modules = {}
        self.uncounted_aten = dict(rec.builder.uncounted) if rec else {}
        self.custom_macs = dict(rec.stack.custom) if rec else {}
        self._recording_sources = set(rec.graph.node_source) if rec else set()
        if rec is not None:
            g = rec.graph
            for path, cls in g.module_types.items():
                ins, outs = rec.stack.io.get(path, (None, None))
                self.modules[path] = {
                    "type": cls, "calls": g.module_calls.get(path, 0),
                    "input_shapes": ins, "output_shapes": outs}


def analyze_module(module, args=(), kwargs=None, method="record",
                   device="auto", max_depth=None, columns=("params",),
                   wrap="mid", optimizer="adam", name=None, custom_ops=None,
                   call=None, hardware=None, compute_dtype=None, step=None,
                   plan=None):
    """Record (or export) `module` on the inputs and analyse it. call: see
    recorder.record_model (generate.py's steps); hardware, compute_dtype:
    the roofline, as nnscan.analyze; `step` gives the library a recorded
    training step: a train.Shared runs on the recording's own forward, a
    callable (train.handover's) hands over a step it ran itself."""
    from . import recorder, summary_memo
    shared = None
    if step is not None:  # (train.py: read by training summaries alone)
        from . import train
        shared = step if isinstance(step, train.Shared) else None
    kwargs = kwargs or {}
    name = name or type(module).__name__  # docs/cli.md, "Model names"
    if custom_ops and method != "record":
        raise ValueError("custom_ops needs method='record'")
    # The collector waits: see recorder.gc_paused.
    with recorder.gc_paused():
        if method == "record":
            # a summary of a model as it was, on inputs as they were, is
            # built from what two recordings of it made (summary_memo.py)
            now = summary_memo.state(module, args, kwargs, device) \
                if not custom_ops and call is None and step is None and \
                plan is None else None
            kept = summary_memo.found(module, now) if now else None
            got = summary_memo.rebuilt(module, kept) \
                if kept is not None and kept[3] else None
            if got is not None:
                handle, rec = got
            else:
                rec = recorder.record_model(
                    module, args, kwargs, device=device,
                    custom_ops=custom_ops, call=call,
                    training=step is not None, step=shared,
                    signatures=now.seed if now is not None else None)
                if now is not None:
                    now.seed = None  # (its walk holds the modules)
                made = [] if now is not None else None
                handle = built(rec, made, summary_memo.earlier(module, now))
                if now is not None:
                    summary_memo.seen(module, now, rec, handle, made, kept)
            for path, macs in rec.stack.custom.items():
                handle.set_module_macs(path, macs)
        elif method == "onnx":
            rec = None
            handle = Handle.load(export_onnx(module, args, kwargs))
            handle.infer(fallback_declared=True)
        else:
            raise ValueError(
                f"method must be 'record' or 'onnx', not {method!r}")
        if hardware is not None:
            columns = tuple(columns) + ("bytes", "roof")
        if shared is not None:
            shared.hand_over(handle)
        elif step is not None:
            step(handle)
        if plan is not None:
            plan.hand_over(handle)  # parallel.py: one rank's plan
        return TorchSummary(handle.analyze(optimizer, hardware, compute_dtype),
                            rec, method, name=name, max_depth=max_depth,
                            columns=columns, wrap=wrap)


class ShapeMismatch(UserWarning):
    """The library inferred another shape than PyTorch recorded."""


def built(rec, keep=None, earlier=None):
    """The recording's graph built and inferred, its shapes checked against
    PyTorch's and the masks its attention counts read handed over: a
    report.Handle to analyze. keep: a list, given what summary_memo.py
    keeps (the packed graph's parts, the hand-over's summary_memo.Log).
    earlier: (parts, Log, model) of the model's first recording
    (summary_memo.earlier): where this one packed the same parts and
    hands the same over (summary_memo.same_hand_over), that model is
    what this one would build, and is this one's, shared: no build,
    inference nor hand-over."""
    from .graph import build_packed
    from .summary_memo import Log, Logged, same_hand_over
    rec.graph.observed = rec.builder.shape_of  # for check_shapes
    parts = rec.graph.pack_parts()
    if earlier is not None and not rec.stack.custom and \
            parts == earlier[0] and _named_as(rec.graph, earlier[2]):
        log = Log()
        dry = Logged(None, log, earlier[1].asked, dry=True)
        masks.hand_over(dry, rec)
        if not dry.differs and same_hand_over(log, earlier[1]) and \
                earlier[2].share():
            check_shapes(earlier[2], rec)
            keep += (parts, log)
            return earlier[2]
    g = rec.graph
    # the masks' values by the names the library gave them, kept for a
    # later recording that packs the same (_named_as)
    marked = list(g.tracked)
    handle = build_packed(parts, g.tracked)
    handle.packed_names = dict(zip(marked, g.tracked))
    handle.infer(fallback_declared=True)
    check_shapes(handle, rec)
    if keep is None:
        masks.hand_over(handle, rec)
    else:
        log = Log()
        masks.hand_over(Logged(handle, log), rec)
        keep += (parts, log)
    return handle


def _named_as(g, handle):
    """Renames the masks' values of a graph as `handle`, built from the
    same packed form, named them (the library numbers a recording's
    values); False, renaming nothing, where one of them is not among its
    names."""
    names = getattr(handle, "packed_names", {})
    if any(n not in names for n in g.tracked):
        return False
    named = {names[n]: v for n, v in g.tracked.items()}
    g.tracked.clear()
    g.tracked.update(named)
    return True


def check_shapes(handle, rec):
    """A free self-test: every node output's shape as the library inferred
    it must be the shape PyTorch produced. A disagreement is a warning
    naming the aten op and the module it ran in (a wrong entry in the
    library's aten table, or a shape rule to fix), never a silent wrong
    count. The
    library holds each value's inferred shape against the recorded one
    (graph.pack's observed_shape records); the shapes report is read only
    to say what it inferred where they differ."""
    import json
    differ = set(handle.shape_mismatches())
    if not differ:
        return  # the usual case: no node to look at
    doc = json.loads(handle.report("shapes_json"))
    inferred = dict(doc.get("values", {}))
    inferred.update(doc.get("outputs", {}))
    recorded = rec.builder.shape_of
    g = rec.graph
    none = {}
    seen = set()
    # the library's names of the recorder's values, asked of the packed
    # form again (docs/tape.md, "Numbers the library gives"), as seldom as
    # shapes differ
    outs = [o for n in g.nodes for o in n.outputs if o]
    named = dict(zip(outs, g.library_names(outs)))
    for k, node in enumerate(g.nodes):
        if node.domain == "pytorch.aten":
            continue
        op, scope = node.op, node.scope
        for o in node.outputs:
            lib_name = named.get(o, o)
            if lib_name not in differ:
                continue
            want = recorded[o]
            got = (inferred.get(lib_name) or none).get("shape")
            key = (g.node_source[k], scope)
            if key in seen:
                continue
            seen.add(key)
            warnings.warn(
                f"nnscan: {g.node_source[k]} in module '{scope}' gives "
                f"{tuple(want)} in PyTorch but the library's {op} rule infers "
                f"{None if got is None else tuple(got)}; its counts may be off",
                ShapeMismatch, stacklevel=3)
    if not seen:
        # values no node of the recorder's wrote: by the library's names
        warnings.warn(
            f"nnscan: the library infers other shapes than PyTorch gives "
            f"for {', '.join(sorted(differ)[:5])}"
            f"{' ...' if len(differ) > 5 else ''}; their counts may be off",
            ShapeMismatch, stacklevel=3)


def analyze_training(module, args, kwargs, max_depth=None,
                     columns=("params",), wrap="mid", optimizer="adam",
                     name=None, device="auto"):
    """The forward Summary with `.backward`: the backward pass's Summary
    (FLOPs, MACs per module; see backward.py for the attribution rule)."""
    from . import backward, recorder
    name = name or type(module).__name__  # docs/cli.md, "Model names"
    # The collector waits over both recordings (recorder.gc_paused), which
    # go before it runs again: run as the forward's recording ended, it
    # walked that recording, nine times for a GPT-2 (5 ms).
    def forward(on):
        rec = recorder.record_model(module, args, kwargs or {}, device=on,
                                    keep_graph=True)
        handle = built(rec)
        return rec, handle, TorchSummary(
            handle.analyze(optimizer), rec, "record", name=name,
            max_depth=max_depth, columns=columns, wrap=wrap)
    with recorder.gc_paused():
        rec, handle, s = forward(device)
        try:
            bg, bb = backward.record_backward(rec)
        except Exception as e:  # noqa: BLE001 - raised unless meta's fault
            if not _backward_on_device(e, module, rec, device):
                raise
            why = (str(e).splitlines() or [""])[0]
            warnings.warn(f"nnscan: the backward cannot run on meta tensors "
                          f"({type(e).__name__}: {why}); recording the "
                          "forward and the backward once on the model's own "
                          "device", stacklevel=3)
            rec, handle, s = forward("model")
            bg, bb = backward.record_backward(rec)
        bh = bg.build()
        bh.infer(fallback_declared=True)
        s.backward = Summary(bh.analyze(optimizer, forward=s.analysis),
                             name=name + " (backward)",
                             max_depth=max_depth, columns=("flops", "macs"),
                             wrap=wrap)
        s.backward.uncounted_aten = dict(bb.uncounted)
        # Training FLOPs as recorded, forward + backward, dense and unmasked,
        # and per token: the library's totals when given the backward's
        # analysis (docs/metrics.md, "Masked attention, tokens").
        s._defaults["backward"] = s.backward.analysis
        s.json = None
        del rec, handle, bg, bb, bh  # freed while the collector waits
        return s


def _backward_on_device(exc, module, rec, device):
    """Whether a backward that raised `exc` on the meta copy is recorded
    again on the model's own device, as a forward is (recorder.py's
    fallback): an op whose backward has no meta kernel (PyTorch 2's
    multi_margin_loss_backward) under device="auto", the model itself not
    on meta."""
    from . import recorder
    return device == "auto" and rec.device == "meta" and \
        recorder.meta_caused(exc) and \
        not recorder.on_meta(module, recorder.walk_once(module))


def export_onnx(module, args, kwargs):
    """torch.onnx.export to bytes, the model left as it was.

    Always PyTorch's TorchScript-based exporter (the graph of one traced
    forward, as on 1.13): PyTorch 2.9+ defaults to the torch.export-based
    one, which needs the onnxscript package (not in Debian), so it is asked
    for with dynamo=False where export takes that argument."""
    import inspect
    torch = _torch()
    from .recorder import preserved
    module = _uncompiled(module)
    legacy = {}
    if "dynamo" in inspect.signature(torch.onnx.export).parameters:
        legacy["dynamo"] = False
    buf = io.BytesIO()
    with preserved(module), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        module.eval()
        a = tuple(args) + ((dict(kwargs),) if kwargs else ())
        try:
            torch.onnx.export(module, a, buf, opset_version=graph_opset(),
                              do_constant_folding=False,
                              training=torch.onnx.TrainingMode.PRESERVE,
                              **legacy)
        except ImportError as e:
            raise RuntimeError(
                f"method='onnx' needs PyTorch's TorchScript-based ONNX "
                f"exporter (torch.onnx.export(..., dynamo=False)); PyTorch "
                f"{torch.__version__} tried another that needs the missing "
                f"module {getattr(e, 'name', None) or e}: use "
                f"method='record'") from e
    return buf.getvalue()


# ---- torchscan ----

def summary(module, input_shape=None, wrap_mode="mid", max_depth=None,
            receptive_field=False, effective_rf_stats=False, *, inputs=None,
            dtype=None, columns=None, method="record", device="auto",
            backward=False, file=None, width=0, hardware=None,
            compute_dtype=None, training=False, optimizer="adam",
            master_weights=False, loss=None, budget=None, target=None,
            parallel=None, tp_plan=None):
    """Print the module's tree table (torchscan's layout) and return it.

    The table has Layer, Type, Output Shape and Param # (trainable
    parameters; buffers are counted in the footer), plus Receptive field
    with receptive_field, and Effective stride and Effective padding beside
    it with effective_rf_stats, and any `columns`
    ("flops", "macs", "dmas", "buffers", "act", "pct"); the footer gives
    trainable / non-trainable / total params, model size, FLOPs, MACs and
    DMAs. max_depth=None shows every depth; deeper layers add into their
    ancestor. backward=True adds the backward pass (see backward.py).
    hardware ("h100-sxm", or a dict: nnscan.hardware) adds Bytes, FLOP/B,
    Bound and Time (the roofline) at compute_dtype ("bf16", ...; None:
    the model's float dtype). `dtype` is the inputs' (a torch.dtype); a
    compute dtype's name given there instead ("bf16", "fp8", ...: never a
    torch.dtype) is taken as compute_dtype, as the CLI's --dtype.
    training=True runs one training step on meta tensors (train.py) and
    reports what autograd saves per module, gradient and `optimizer`
    ("sgd", "momentum", "adam", "adamw") bytes, the step's peak, and with
    `budget` (bytes or "24GB") the modules to checkpoint to fit; `loss`
    (outputs -> scalar) is what is differentiated, `master_weights` keeps
    fp32 copies of 16-bit parameters, `target` names the device the step
    will run on (what is saved follows the CPU's graph; the report says
    so when another is named). parallel ({"fsdp": 8, "tp": 2}: axes dp,
    fsdp, tp, ep) with training=True adds one rank's figures (parallel.py,
    docs/metrics.md "Per rank"); `tp_plan` (transformers' format) replaces
    the model's base_model_tp_plan; `budget` is then per rank. Inside a
    torch.distributed job the rank's own model (FSDP2, DDP, DTensor) is
    read as it is sharded. file: None or True prints to stdout, False
    prints nothing, a stream (anything with .write) prints there.
    """
    who = "nnscan.summary()"
    from . import exported
    is_exported = exported.is_exported_program(module)
    if not is_exported:
        module = _uncompiled(_args.module(who, "module", module))
    for flag in ("receptive_field", "effective_rf_stats", "backward",
                 "training", "master_weights"):
        _args.flag(who, flag, locals()[flag])
    max_depth = _args.count(who, "max_depth", max_depth, least=-1,
                            none=True)
    width = _args.count(who, "width", width)
    columns = _args.words(who, "columns", columns, tuple(_api.COL))
    dtype = _args.input_dtype(who, dtype)
    _args.compute_dtype(who, compute_dtype)
    _args.function(who, "loss", loss, "outputs -> a one-element tensor")
    cols = ["params"] + list(columns or [])
    if is_exported:
        # a torch.export program: the library's .pt2 reader (exported.py)
        s = exported.summary(module, input_shape, max_depth, tuple(cols),
                             hardware, compute_dtype)
        out = _print_target(file)
        if out is not None:
            text = s.to_text(width=width)
            print(text, file=out, end="" if text.endswith("\n") else "\n")
        return s
    if effective_rf_stats:
        cols.append("rf_stats")
    elif receptive_field:
        cols.append("rf_field")
    _check_depth(module, max_depth)
    if isinstance(dtype, str) and compute_dtype is None:
        compute_dtype, dtype = dtype, None  # a roofline dtype's name
    args, kwargs = make_inputs(module, input_shape, dtype, inputs)
    if training and (backward or method != "record"):
        raise ValueError("training=True needs method='record' and no "
                         "backward=True (the step's report has its own "
                         "backward)")
    if backward:
        if method != "record":
            raise ValueError("backward=True needs method='record'")
        s = analyze_training(module, args, kwargs, max_depth=max_depth,
                             columns=tuple(cols), wrap=wrap_mode,
                             device=device)
    else:
        step = plan = None
        rec_module = module
        if parallel is not None or tp_plan is not None:
            if not training:
                raise ValueError("parallel= and tp_plan= need training=True")
            from . import parallel as par
            rec_module, plan = par.what_if(module, parallel or {}, tp_plan,
                                           budget)
        else:
            # inside a torch.distributed job: the rank's own sharding
            found = None
            dist = sys.modules.get("torch.distributed")
            if dist is not None and dist.is_available() and \
                    dist.is_initialized():  # (parallel.py read then alone)
                from . import parallel as par
                found = par.live(module, budget)
            if found is not None:
                rec_module, plan = found
                plan = plan if training else None
        if plan is not None:
            budget = None  # per rank, not the checkpoint plan's
        if training:
            from . import train
            # as training runs: no KV cache (train.training_kwargs), asked
            # of the model recorded (a DDP wrapper hides its config)
            kwargs, forward_set = train.training_kwargs(rec_module, kwargs)
            step = train.Shared(optimizer=optimizer, loss=loss,
                                master_weights=master_weights,
                                budget=budget, target=target,
                                forward_set=forward_set)
        s = analyze_module(rec_module, args, kwargs, method=method,
                           device=device, plan=plan,
                           max_depth=max_depth, columns=tuple(cols),
                           wrap=_TORCHSCAN_WRAP.get(wrap_mode, wrap_mode),
                           hardware=hardware, compute_dtype=compute_dtype,
                           optimizer=optimizer if training else "adam",
                           step=step)
    text = s.to_text(width=width)
    if backward:
        # the library's backward section: its table and what it did not
        # count, without the forward model's footer
        text = text.rstrip("\n") + "\n\n" + \
            s.backward._render("backward_text", width=width)
    out = _print_target(file)
    if out is not None:
        print(text, file=out, end="" if text.endswith("\n") else "\n")
    return s


def _print_target(file):
    """summary's `file`: None or True print to stdout, False prints
    nothing, anything else must be a text stream (has .write)."""
    if file is None or file is True:
        return sys.stdout
    if file is False:
        return None
    if not callable(getattr(file, "write", None)):
        raise TypeError("file= takes None or True (stdout), False (don't "
                        "print) or a text stream with .write(), not %r"
                        % (file,))
    return file


def _check_depth(module, max_depth):
    """torchscan's rule: a max_depth no module reaches is an error (a
    Conv2d alone has depth 0, so max_depth=1 asks for rows it has not)."""
    if max_depth is None:
        return
    from .recorder import named_modules
    deepest = max(path.count(".") + 1 if path else 0
                  for path, _ in named_modules(module))
    if int(max_depth) > deepest:
        raise ValueError(f"max_depth={max_depth} is beyond the model's depth "
                         f"({deepest}: {type(module).__name__}'s deepest "
                         f"submodule)")


def crawl_module(module, input_shape=None, dtype=None, *, inputs=None,
                 method="record", device="auto"):
    """torchscan's dictionary: `layers` (one per module, preorder) and
    `overall`.

    Each layer: name, depth, type, input_shape, output_shape (batch as -1,
    as torchscan prints it), grad_params, nograd_params, param_size,
    num_buffers, buffer_size, flops, macs, dmas (over the module's subtree,
    from the library), rf, s, p (receptive field, stride, padding of its
    output), is_shared (uses a parameter counted in another module),
    is_leaf, and nnscan's `calls`.
    """
    who = "nnscan.crawl_module()"
    module = _uncompiled(_args.module(who, "module", module))
    args, kwargs = make_inputs(module, input_shape,
                               _args.input_dtype(who, dtype), inputs)
    s = analyze_module(module, args, kwargs, method=method, device=device)
    return crawl_dict(module, s)


def _batchless(shapes):
    if not shapes:
        return None
    s = shapes[0]
    return (-1,) + tuple(s[1:]) if len(s) else ()


def crawl_dict(module, s):
    """torchscan 0.1.2's dictionary: counts from the library's rows and
    totals; parameters and buffers as torchscan counts them, every one a
    module registers, used or not (nns_model_module_held)."""
    model = s.analysis.model
    if s.method != "record":  # an exported graph: the library is told now
        from .recorder import _Tree, module_tensors, param_table
        tree = _Tree(module)
        model.declare_module_tensors(
            {p: type(m).__name__ for p, m in tree.modules},
            module_tensors(tree, param_table(module, tree)))
    layers = {py_name(row["path"]): row for row in s.layers}
    info = []
    # torchscan's dictionary: its root row is the lower-cased class name
    # (docs/compat.md); nnscan's own reports say the class (docs/cli.md).
    root_name = type(module).__name__.lower()
    from .recorder import named_modules
    for path, m in named_modules(module):
        meta = s.modules.get(path, {})
        row = layers.get(path)
        is_leaf = not any(True for _ in m.children())
        h = model.module_held(path, recurse=is_leaf)
        flags = (row or {}).get("flags", {})
        rf = (row or {}).get("rf") or {}
        info.append({
            "name": path.rpartition(".")[2] if path else root_name,
            "depth": 0 if path == "" else path.count(".") + 1,
            "type": type(m).__name__,
            "input_shape": _batchless(meta.get("input_shapes")),
            "output_shape": _batchless(meta.get("output_shapes")),
            "grad_params": h["trainable"], "nograd_params": h["frozen"],
            "param_size": h["param_bytes"], "num_buffers": h["buffers"],
            "buffer_size": h["buffer_bytes"],
            "flops": (row or {}).get("flops", 0),
            "macs": (row or {}).get("macs", 0),
            "dmas": (row or {}).get("dmas", 0),
            "rf": (rf.get("field") or [1])[0],
            "s": (rf.get("stride") or [1])[0],
            "p": (rf.get("padding") or [0])[0],
            "is_shared": bool(flags.get("shared")),
            "is_leaf": is_leaf,
            "calls": meta.get("calls", 0),
        })
    t = s.totals
    h = model.module_held("", recurse=True)
    return {
        "layers": info,
        "overall": {
            "grad_params": h["trainable"], "nograd_params": h["frozen"],
            "param_size": h["param_bytes"], "num_buffers": h["buffers"],
            "buffer_size": h["buffer_bytes"],
            "flops": t["flops"], "macs": t["macs"], "dmas": t["dmas"],
        },
    }


# ---- thop / thoplw ----

class LayersInfo:
    """thoplw's per-layer table, laid out by the library
    (NNS_FORMAT_LAYERS_*): an analysis's rows, one per leaf module that ran
    (nnscan.profile), or rows counted by another tool's conventions
    (LayersInfo.counted: nnscan.compat.thoplw). `.rows` (name, class,
    input shape, output shape, macs, params), `.name` (the model's class),
    `.total_macs`, `.total_params`, `.shape_in` and `.shape_out` are the
    table's cells as the library gives them (NNS_FORMAT_LAYERS_JSON)."""

    def __init__(self, analysis, name):
        self.analysis = analysis
        self._counted = None
        self._read(analysis.report("layers_json", model_name=name))

    @classmethod
    def counted(cls, rows, total, clever="thoplw"):
        """The table of rows the caller counted: `rows` (name, class, input
        dims, output dims, macs, params), dims batch first or None when
        none was recorded; `total` (class, input dims, output dims, macs,
        params); clever: the style of fmt="clever" ("thop", "thoplw")."""
        self = cls.__new__(cls)
        self.analysis = None
        self._counted = (list(rows), tuple(total), clever)
        self._read(render_layers(*self._counted, kind="json"))
        return self

    def _read(self, text):
        import json
        doc = json.loads(text)
        self.rows = [(r["name"], r["class"], r["input"], r["output"],
                      r["macs"], r["params"]) for r in doc["rows"]]
        t = doc["total"]
        self.name = t["class"]
        self.total_macs, self.total_params = t["macs"], t["params"]
        self.shape_in, self.shape_out = t["input"], t["output"]

    def summary(self, kind="text", fmt="raw"):
        if kind not in ("text", "csv", "md"):
            raise ValueError(f"kind must be 'text', 'csv' or 'md', not {kind!r}")
        if fmt not in _api.NUMBERS:
            raise ValueError("fmt must be one of %s, not %r"
                             % (", ".join(map(repr, _api.NUMBERS)), fmt))
        if self.analysis is not None:
            return self.analysis.report("layers_" + kind, numbers=fmt,
                                        model_name=self.name)
        return render_layers(*self._counted, kind=kind, numbers=fmt)

    def __str__(self):
        return self.summary()


def _uncounted_lines(analysis):
    """The library's lines on the nodes it did not count
    (nns_report_uncounted); none when every node was counted."""
    err = _api.NnsError()
    cb, chunks = _api.write_collector()
    _api.check(_api.lib().nns_report_uncounted(analysis.ptr, cb, None,
                                               ctypes.byref(err)),
               err, "nns_report_uncounted")
    return b"".join(chunks).decode().splitlines()


def profile(model, tensor=None, custom_ops=None, verbose=True, *, inputs=None,
            method="record", device="auto"):
    """thoplw's profile: (macs, params, layers_info).

    macs: the model's MACs; params: parameters (trainable and frozen) +
    buffers the forward uses (thop counts them all); layers_info.summary(kind, fmt) the per-leaf table.
    custom_ops: {module class: fn(module, inputs, output) -> MACs} replaces
    the count of each such module's subtree.
    """
    who = "nnscan.profile()"
    model = _uncompiled(_args.module(who, "model", model))
    custom_ops = _args.custom_ops(who, custom_ops)
    _args.flag(who, "verbose", verbose)
    args, kwargs = make_inputs(model, None, None, inputs, tensor)
    s = analyze_module(model, args, kwargs, method=method, device=device,
                       custom_ops=custom_ops)
    # The library picks the rows and counts them: the layers table as
    # data (NNS_FORMAT_LAYERS_JSON), its cells as the table prints them
    info = LayersInfo(s.analysis, type(model).__name__)
    if verbose:  # the library's words on what it did not count
        for line in _uncounted_lines(s.analysis):
            print(f"[nnscan] {line}")
    return info.total_macs, info.total_params, info
