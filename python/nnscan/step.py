"""MFU and throughput per training step, in the user's own loop:
nnscan.StepMeter (docs/mfu.md).

    meter = nnscan.StepMeter(model, device="h100-sxm", dtype="bf16")
    for batch in loader:
        with meter.step(**batch):          # the model's inputs
            loss = model(**batch).loss
            loss.backward()
            opt.step(); opt.zero_grad()
    meter.summary()                        # medians over measured steps
    meter.to_html("steps.html")            # MFU and step time over steps

What this file does: it records the step's FLOPs once per input shape
(record_flops: one forward and backward on a meta copy of the model, the
recorder's, with gradient checkpointing run plainly and what its backward
reruns noted: the checkpointed modules, or for non-reentrant regions the
nodes up to PyTorch's early stop) and times each step with the right
clock (CUDA events on a GPU, resolved once they have happened;
time.perf_counter on a CPU).
Every figure - the FLOPs, MFU, HFU, throughput, the log's lines, the
table's rows and the page - is the library's (src/analyze/mfu.c,
src/report/mfu.c); Python measures times and hands them over.
"""
import contextlib
import statistics
import sys
import time

from . import _api, _mfu_api


# ==== FLOPs of one step ====

class _Checkpointed:
    """While entered: torch.utils.checkpoint runs its function plainly (the
    step's FLOPs are the model's, recomputation apart), and what the
    backward runs again is noted: the outermost modules called inside a
    checkpointed function, by path (`paths`), and the forward nodes it
    reruns (`nodes`: the library's recompute_flops)."""

    def __init__(self, model):
        self.path_of = {id(m): p for p, m in model.named_modules()}
        self.paths = []
        self.nodes = []   # module paths and node names, for the library
        # (first, end) rerun, each (nodes made, numbered calls recorded):
        # the calls count where the library numbers them (docs/tape.md)
        self.spans = []
        self.exact = True
        self.inside = 0   # checkpointed calls open
        self.depth = 0    # module calls open inside them
        self.saved = {}
        self.handles = []

    @contextlib.contextmanager
    def _region(self, early_stop):
        """One checkpointed function's forward, run plainly in the block.
        PyTorch's non-reentrant recomputation (torch/utils/checkpoint.py,
        _recomputation_hook) reruns the region from its start and stops
        at once when the last tensor the region saved for backward is
        saved again. The region's ops save their inputs before they run
        and their outputs after, so it reruns the nodes recorded before
        the region's last save (the last saving op with it, when that
        saves its output). The recorder records each op as it runs, so the
        graph's node count at each save marks that point."""
        if self.inside or not early_stop:
            self.inside += 1
            try:
                yield
            finally:
                self.inside -= 1
            return
        import torch
        g = _recording_graph()

        def now():  # the nodes made and numbered calls recorded so far
            return g._nodes_made, g._deferred_calls
        span = [now(), now()]

        def pack(x):
            span[1] = now()
            return x
        self.inside += 1
        try:
            with torch.autograd.graph.saved_tensors_hooks(pack, lambda x: x):
                yield
        finally:
            self.inside -= 1
            self.spans.append(tuple(span))

    def _stops(self, ck, use_reentrant, early_stop, context_fn):
        """Whether a checkpointed call's backward stops early (PyTorch's
        rule: non-reentrant, and early stop on, the global setting
        overriding the call's); notes what nnscan does not model."""
        glob = getattr(ck, "_enable_checkpoint_early_stop", None)
        stop = use_reentrant is False and \
            (early_stop if glob is None else glob)
        if context_fn not in (None, ck.noop_context_fn):
            self.exact = False  # selective checkpointing: not modelled
        if stop and _recording_graph() is None:
            stop = False  # not under the recorder: counted whole
            self.exact = False
        return stop

    @contextlib.contextmanager
    def _checkpointed(self, stop):
        """A checkpointed call's forward in the block; the modules a
        whole rerun covers noted by path."""
        before = len(self.paths)
        with self._region(stop):
            yield
        if not stop and not self.inside:
            self.whole += self.paths[before:]

    def _pre(self, mod, _inputs):
        if self.inside:
            if self.depth == 0:
                p = self.path_of.get(id(mod))
                if p is not None and p not in self.paths:
                    self.paths.append(p)
            self.depth += 1

    def _post(self, mod, _inputs, _out):
        if self.inside and self.depth:
            self.depth -= 1

    def recomputed(self, graph, handle):
        """What the library counts as rerun: the nodes of the early-stopping
        spans by name (as `handle`, the model built of `graph`, names
        them), and the modules of the others by path."""
        return self.whole + self._rerun_named(graph, handle)

    def _rerun_named(self, graph, handle):
        """The early-stopping spans' nodes of a graph whose numbering the
        library gives (docs/tape.md, "Numbers the library gives"): the
        recorder's nodes by their creation numbers and its numbered calls
        by their own, each inside a span or not; the library's nodes of
        each run of those inside (graph.packed_entries), by its names."""
        if not self.spans:
            return []
        from .graph import packed_entries
        spans = self.spans
        runs, start = [], None
        for i, n in enumerate(graph.nodes):
            name = n.name
            if name[:2] == "\3n":  # a numbered call's placeholder
                k, j = int(name[2:]), 1
            else:
                k, j = _made(name), 0
            if any(a[j] <= k < b[j] for a, b in spans):
                if start is None:
                    start = i
            elif start is not None:
                runs.append((start, i - start))
                start = None
        if start is not None:
            runs.append((start, len(graph.nodes) - start))
        if not runs:
            return []
        names = [n[2] for n in handle.nodes()]
        return [names[j] for a, c in packed_entries(graph.pack_parts(), runs)
                for j in range(a, a + c)]

    def __enter__(self):
        import torch
        import torch.utils.checkpoint as ck
        self.whole = []  # module paths rerun whole
        checkpointed = self._checkpointed

        class _Plain:  # the reentrant path: whole, no early stop
            @staticmethod
            def apply(function, _preserve, *args):
                with checkpointed(False):
                    return function(*args)

        if hasattr(ck, "_checkpoint_impl"):    # PyTorch 2.14
            def impl(function, args, kwargs, use_reentrant=None,
                     early_stop=True, context_fn=None, **_):
                stop = self._stops(ck, use_reentrant, early_stop, context_fn)
                with checkpointed(stop):
                    return function(*args, **(kwargs or {}))
            self._patch(ck, _checkpoint_impl=impl)
        elif hasattr(ck, "_checkpoint_without_reentrant_generator"):
            # PyTorch 2.1 to 2.11 at least: checkpoint() runs the function
            # itself between the generator's two steps (before, after). Its
            # positional parameters: (fn, preserve_rng_state, context_fn,
            # determinism_check, debug[, early_stop], *args): early_stop
            # only in later versions, so found by name
            import inspect
            names = list(inspect.signature(
                ck._checkpoint_without_reentrant_generator).parameters)
            at = names.index("early_stop") if "early_stop" in names else -1

            def gen(*a, **k):
                early = a[at] if 0 <= at < len(a) else \
                    k.get("early_stop", True)
                context_fn = a[2] if len(a) > 2 else k.get("context_fn")
                stop = self._stops(ck, False, early, context_fn)
                with checkpointed(stop):
                    yield
            self._patch(ck, CheckpointFunction=_Plain,
                        _checkpoint_without_reentrant_generator=gen)
        else:                                  # 1.13 and 2.0: no early stop
            self._patch(ck, CheckpointFunction=_Plain,
                        _checkpoint_without_reentrant=lambda function,
                        _preserve, *args, **kw: _Plain.apply(
                            lambda *a: function(*a, **kw), _preserve, *args))
        mm = torch.nn.modules.module
        self.handles = [mm.register_module_forward_pre_hook(self._pre),
                        mm.register_module_forward_hook(self._post)]
        return self

    def _patch(self, ck, **names):
        for k, v in names.items():
            self.saved[k] = getattr(ck, k)
            setattr(ck, k, v)

    def __exit__(self, *exc):
        import torch.utils.checkpoint as ck
        for h in self.handles:
            h.remove()
        for k, v in self.saved.items():
            setattr(ck, k, v)
        return False


def _recording_graph():
    """The Graph the recorder is writing now (its dispatch mode's), or
    None."""
    from torch.utils import _python_dispatch as pd
    from .recorder import _Mode
    for mode in reversed(pd._get_current_dispatch_mode_stack()):
        if isinstance(mode, _Mode):
            return mode.b.g
    return None


def _made(name):
    """A recorded node's creation number (graph.Graph.add_node's names end
    in it)."""
    return int(name.rsplit("_", 1)[1])


def record_flops(model, args=(), kwargs=None, device="auto"):
    """One training step's FLOPs (an nns_step_flops): the forward of
    `model` on `args`/`kwargs` and its backward, recorded on meta where
    possible (the recorder's tape), analysed by the library; the modules
    gradient checkpointing runs again are its recompute. The model is
    left as it was. Under torch.distributed, each rank calls this on its
    own inputs: the counts are that rank's (issue 43's per-rank counts
    plug in here, through nns_step_flops_of's two analyses)."""
    import sys
    from . import backward, recorder
    from .torch_api import built
    ck = {}
    if "torch.distributed" in sys.modules:
        # inside a job: FSDP2 / DTensor parameters recorded as the rank
        # holds them (issue 43's live path: a plain meta copy, TP shards at
        # their local shapes, FSDP's weights whole as they are gathered)
        from . import parallel
        found = parallel.live(model, None)
        if found is not None:
            model = found[0]

    def call(target, *a, **kw):
        with _Checkpointed(target) as c:
            ck["c"] = c
            return target(*a, **kw)
    rec = recorder.record_model(model, args, kwargs or {}, device=device,
                                keep_graph=True, training=model.training,
                                call=call)
    handle = built(rec)
    fwd = handle.analyze()
    bg, _ = backward.record_backward(rec)
    bh = bg.build()
    bh.infer(fallback_declared=True)
    bwd = bh.analyze(forward=fwd)
    c = ck.get("c")
    paths = list(c.paths) if c is not None else []
    flops = _mfu_api.step_flops(fwd, bwd, c.recomputed(rec.graph, handle)
                                if c is not None else [])
    flops._recomputed = paths
    # recompute_flops: the whole forward of the modules reentrant
    # checkpointing (or early_stop=False) reruns, and the nodes up to the
    # early stop of non-reentrant regions (docs/metrics.md)
    flops._recompute_exact = c is None or c.exact
    return flops


def flops_dict(f):
    """An nns_step_flops as a dict (what StepMeter.flops gives)."""
    d = {k: getattr(f, k) for k, _ in f._fields_[1:]}
    d["recomputed"] = list(getattr(f, "_recomputed", []))
    d["recompute_exact"] = getattr(f, "_recompute_exact", True)
    return d


def _leaves(args, kwargs):
    """The inputs' leaves: the tensors and values of args and kwargs (a
    flat call, the common case, without the recorder's general walk)."""
    import torch
    flat = list(args) + list(kwargs.values())
    if all(isinstance(t, (torch.Tensor, int, float, bool, str, type(None)))
           for t in flat):
        return flat
    from .recorder import flatten
    return list(flatten((args, kwargs)))


def _shape_key(args, kwargs):
    """What a step's FLOPs depend on: the inputs' names, the tensors'
    shapes and dtypes, flags (bool, str, None) by value; numbers by type
    only (a count such as the Trainer's num_items_in_batch changes every
    step and changes no shape)."""
    import torch
    return (len(args), tuple(kwargs)) + tuple(
        (tuple(t.shape), t.dtype) if isinstance(t, torch.Tensor)
        else t if isinstance(t, (bool, str, type(None)))
        else type(t).__name__ for t in _leaves(args, kwargs))


def _samples(args, kwargs):
    """The batch size: the first dim of the first tensor input."""
    import torch
    for t in _leaves(args, kwargs):
        if isinstance(t, torch.Tensor) and t.dim() > 0:
            return int(t.shape[0])
    return 0


def _tokens(args, kwargs, flops):
    """The tokens of one forward: the library's (the token input an
    embedding reads, nns_totals.tokens), else the elements of an
    `input_ids` input (a model that reshapes it before its embedding, as
    GPT-2 does); -1 when neither is known."""
    if flops.tokens > 0:
        return flops.tokens
    t = kwargs.get("input_ids")
    if t is None and args:
        t = args[0]
    import torch
    if isinstance(t, torch.Tensor) and not t.is_floating_point():
        return int(t.numel())
    return -1


def _compute_word(dt):
    """The compute dtype ("fp32", "bf16", ...) a torch dtype runs at, by
    the library's rule (nns_compute_dtype_of), from its element type."""
    lib = _api.lib()
    code = _api.dtypes().get(str(dt).replace("torch.", ""), 0)
    return lib.nns_compute_dtype_name(lib.nns_compute_dtype_of(code)).decode()


def _param_dtype(model):
    """The model's first floating parameter's compute dtype and device
    type ("fp32", "cpu" when it has none)."""
    for p in model.parameters():
        if p.is_floating_point():
            return _compute_word(p.dtype), p.device.type
    return "fp32", "cpu"


def _step_dtype(model, param=None):
    """The dtype the step's matrix products run in: autocast's where it is
    on, else the model's first floating parameter's (`param`: that pair,
    found before)."""
    import torch
    dtype, dev = param or _param_dtype(model)
    if dev not in ("cuda", "cpu"):
        return dtype
    try:
        on = torch.is_autocast_enabled(dev)
        if on:
            return _compute_word(torch.get_autocast_dtype(dev))
    except TypeError:  # 1.13: no device argument
        on = torch.is_autocast_enabled() if dev == "cuda" \
            else torch.is_autocast_cpu_enabled()
        if on:
            dt = torch.get_autocast_gpu_dtype() if dev == "cuda" \
                else torch.get_autocast_cpu_dtype()
            return _compute_word(dt)
    return dtype


# ==== Timing ====

class _Timer:
    """The step's clock: CUDA events on a GPU (recorded in the stream,
    read once they have happened: no synchronisation per step), else
    time.perf_counter."""

    def __init__(self, cuda):
        self.cuda = cuda
        if cuda:
            import torch
            self.torch = torch

    def start(self):
        if self.cuda:
            ev = self.torch.cuda.Event(enable_timing=True)
            ev.record()
            return ev
        return time.perf_counter()

    def stop(self, start):
        """(start, end) of one step, to resolve later."""
        if self.cuda:
            ev = self.torch.cuda.Event(enable_timing=True)
            ev.record()
            return (start, ev)
        return (start, time.perf_counter())

    def ready(self, span):
        return not self.cuda or span[1].query()

    def seconds(self, span):
        a, b = span
        if self.cuda:
            b.synchronize()
            return a.elapsed_time(b) / 1e3
        return b - a


# ==== The loop object ====

class StepMeter:
    """Call `step(...)` once per training step, as a context manager around
    the whole step (forward, backward, optimizer), with the model's inputs
    of that step (their shapes; or `flops=` a StepFlops recorded before).

    device: a device of the roofline's table ("h100-sxm"), a dict
    (nnscan.hardware), or None with peak_flops (FLOP/s per device, dense);
    hardware_file: a file of devices (docs/roofline.md) to find `device`
    in. dtype: what the step's matrix products run in ("bf16"; None: the
    model's parameters', or autocast's where it is on at the step);
    peak_dtype: the peak to compare against (None: dtype's; only tf32 for
    an fp32 step may differ). warmup: steps timed but not measured. log: a
    path for the "nnscan.steps" JSON lines log (docs/mfu.md). file: where
    the running table goes (None: stdout, False: nowhere) every `every`
    measured steps. rank: this process's torch.distributed rank (None:
    the one torch.distributed reports, else 0).
    """

    def __init__(self, model, device=None, *, peak_flops=None, dtype=None,
                 peak_dtype=None, hardware_file=None, warmup=2, log=None,
                 file=None, every=1, rank=None, tokens=None):
        from . import hardware as _hardware
        self.model = model
        if device is None and peak_flops is None:
            raise ValueError("StepMeter needs device= (a device of the "
                             "roofline's table or a hardware file) or "
                             "peak_flops= (FLOP/s per device, dense)")
        self.hw = None
        if isinstance(device, str) and hardware_file is not None:
            found = [d for d in _hardware.devices(hardware_file)
                     if d["name"] == device]
            if not found:
                raise ValueError(f"device {device!r} is not in "
                                 f"{hardware_file} nor the table")
            device = {k: v for k, v in found[0].items()
                      if k in ("name", "description")}
            device["peak_flops"] = {k: v for k, v in
                                    found[0]["peak_flops"].items() if v}
            device["bandwidth"] = found[0]["bandwidth"] or 1e9
        if device is not None:
            self.hw = _hardware.struct(device)
        self.peak_flops = peak_flops
        self.dtype = dtype
        self.peak_dtype = peak_dtype
        if int(warmup) < 0:
            raise ValueError(f"warmup: a number of steps >= 0, not {warmup!r}")
        self.warmup = int(warmup)
        self.every = max(1, int(every))
        self.tokens = tokens
        self._out = sys.stdout if file is None or file is True else \
            (None if file is False else file)
        self._log = open(log, "w", encoding="utf-8") if log else None
        if rank is None:
            rank = 0
            try:
                import torch.distributed as dist
                if dist.is_available() and dist.is_initialized():
                    rank = dist.get_rank()
            except ImportError:
                pass
        self.rank = int(rank)
        cuda = any(p.is_cuda for p in model.parameters())
        self._timer = _Timer(cuda)
        self._param = _param_dtype(model)
        self._flops = {}       # input shapes -> StepFlops
        self._pending = []     # (index, span, flops, samples, tokens, dtype)
        self.records = []      # one dict per measured step
        self._last = None      # (StepFlops, dtype) of the last measured
        self._index = 0
        self._printed = 0

    # -- FLOPs --
    def flops_for(self, args=(), kwargs=None):
        """The StepFlops of a step on these inputs (recorded once per
        distinct input shapes)."""
        kwargs = kwargs or {}
        key = _shape_key(args, kwargs)
        f = self._flops.get(key)
        if f is None:
            f = self._flops[key] = record_flops(self.model, args, kwargs)
        return f

    @property
    def flops(self):
        """The last recorded step's FLOPs, as a dict (None before one)."""
        if not self._flops:
            return None
        return flops_dict(list(self._flops.values())[-1])

    # -- steps --
    @contextlib.contextmanager
    def step(self, *args, flops=None, samples=None, tokens=None, **kwargs):
        """Times one step (the block); args/kwargs are the model's inputs
        of the step, whose shapes give its FLOPs (recorded before the
        clock starts) and batch size."""
        f = flops if flops is not None else self.flops_for(args, kwargs)
        n = samples if samples is not None else _samples(args, kwargs)
        if tokens is None and self.tokens is None:
            tokens = _tokens(args, kwargs, f)
        self.begin()
        yield self
        self.end(f, n, tokens)

    def begin(self):
        """Starts timing a step (the context manager's entry; for trainers
        whose callbacks see the step's start and end apart)."""
        self._start = self._timer.start()
        self._dtype = self.dtype or _step_dtype(self.model, self._param)

    def end(self, flops, samples=0, tokens=None):
        """Ends the step begun last: `flops` its StepFlops, `samples` and
        `tokens` what it processed (tokens None: the recorded forward's)."""
        span = self._timer.stop(self._start)
        tok = tokens if tokens is not None else \
            (self.tokens if self.tokens is not None else -1)
        i = self._index
        self._index += 1
        if i >= self.warmup:
            self._pending.append((i, span, flops, samples, tok, self._dtype))
        self._resolve(wait=False)

    def _resolve(self, wait):
        while self._pending and (wait or self._timer.ready(self._pending[0][1])):
            i, span, f, n, tok, dtype = self._pending.pop(0)
            self._measured(i, self._timer.seconds(span), f, n, tok, dtype)

    def _measured(self, i, seconds, f, samples, tokens, dtype):
        m = _mfu_api.compute(f, seconds, samples, tokens, self.hw, dtype,
                             self.peak_dtype, self.peak_flops)
        line = _mfu_api.json_line(i, self.rank, f, m)
        if self._log is not None:
            self._log.write(line)
            self._log.flush()
        import json
        rec = json.loads(line)
        self.records.append(rec)
        self._last = (f, dtype)
        if self._out is not None and len(self.records) % self.every == 0:
            print(_mfu_api.text_row(i, m, header=self._printed == 0),
                  end="", file=self._out)
            self._printed += 1

    # -- results --
    def summary(self):
        """The measured steps' figures at their median step time (the
        library's, on the last recorded FLOPs); None before any."""
        self._resolve(wait=True)
        if not self.records:
            return None
        import json
        last = self.records[-1]
        f = self._last[0]
        med = statistics.median(r["step_s"] for r in self.records)
        m = _mfu_api.compute(self._last[0], med, last["samples"],
                             last["tokens"], self.hw, self._last[1],
                             self.peak_dtype, self.peak_flops)
        out = json.loads(_mfu_api.json_line(-1, self.rank, f, m))
        out["steps"] = len(self.records)
        return out

    def to_html(self, path=None, title=None):
        """The page plotting MFU, HFU and step time over the measured
        steps (the library's); written to `path` when given; returned."""
        self._resolve(wait=True)
        r = self.records
        page = _mfu_api.html([x["step"] for x in r], [x["step_s"] for x in r],
                             [x["mfu"] for x in r], [x["hfu"] for x in r],
                             title or type(self.model).__name__)
        if path is not None:
            with open(path, "w", encoding="utf-8") as fh:
                fh.write(page)
        return page

    def close(self):
        """Resolves the last steps and closes the log."""
        self._resolve(wait=True)
        if self._log is not None:
            self._log.close()
            self._log = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
        return False


__all__ = ["StepMeter", "record_flops"]
