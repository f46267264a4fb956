"""nnscan.Inspector: what every module of a live PyTorch model does while
the user's own code runs - shapes, gradient shapes, latency (inclusive and
self), memory, NaN/Inf - handed to libnnscan once per pass, which
aggregates the module tree and writes the reports.

    with nnscan.Inspector(model, save_file="runs/insight") as insp:
        loss = model(x).mean()          # any forward passes,
        loss.backward()                 # backward passes and
        opt.step()                      # optimizer steps
    print(insp.report())                # the tree table

How it observes (docs/inspect.md has the definitions):
  - forward: a pre-hook and a hook on every module, with keyword arguments
    (`with_kwargs` on torch >= 2.0; on torch 1.13, whose hooks see
    positional arguments only, a wrapper on the module's forward, an
    instance attribute removed again by finish(), hands them over);
  - backward: hooks on tensors (`Tensor.register_hook`) - on each output
    (its gradient arriving starts the module's backward) and on each input
    that requires grad (its gradient ends it) - never module backward
    hooks, which break in-place ops; a leaf parameter's hook ends the
    backward of a module whose inputs need no gradient;
  - time: a host clock that stops while the inspector's own hooks run (so
    their cost is in nobody's figure), or CUDA events for a model on GPU;
  - memory: the CUDA allocator's counters on GPU; on CPU, bytes of every
    newly allocated op output, counted by a TorchDispatchMode (not RSS).

The model is never changed: finish() (also on an exception) removes every
hook and restores what registering them created.
"""
import os
import sys
import weakref

from ._inspect_api import (  # noqa: F401  (InspectionError: public)
    Inspection, InspectionError, _C_BACKWARD, _C_NO_GRAD, _C_RAISED,
    _Error, _format, _GRAD_INPUT, _GRAD_OUTPUT, _INPUT, _Module, _Param,
    _NUMBERS, _OUTPUT, _ReportOptions, _SIZE_MAX, _WRITE_FN, _c, _check,
    _lib_inspect, _name, py_name)
from ._inspect_clock import Clock
from ._inspect_records import (CallRecord, PassBatch, _CallRec, _PassRec,
                               merge_ranks, send)
from ._inspect_shared import _KwargsForward, _hook_param, _unhook_param
from ._inspect_tensors import NonfiniteCheck, _flatten
from .graph import onnx_dtype

__all__ = ["Inspector", "InspectorGadgets", "InspectionError"]

# ==== torch helpers ====


def _py_depth():
    """How deep the Python stack is here."""
    f, n = sys._getframe(1), 0
    while f is not None:
        f = f.f_back
        n += 1
    return n


# ==== The inspector ====

class Inspector:
    """Records what `model` does between start() and finish().

    save_file: where finish() saves, as the seed tool did: the seed layout
      to "<stem>_<Class>.json" and nnscan's own "nnscan.inspect" JSON to
      "<stem>_<Class>.inspect.json" (rank 0 only under torch.distributed).
    check_nonfinite: look for NaN/Inf in outputs, inputs and gradients.
    stats: per output min, max, mean, std and fraction of zeros.
    memory: count memory (CPU: a dispatch mode that sees every op).
    watch_backward / watch_depth: as in the seed tool; watch_depth -1
      hooks every depth, 1 only the model and its children. watch_forward
      is accepted for the seed's callers: the forward is always observed
      (passes are recognised by it).
    name: the root's name in the reports (default: the model's class).
    max_pending: forwards kept waiting for their backward before they are
      sent without one (evaluation with gradients on).
    static_counts: {module path: (flops, macs)}, static counts of the
      module's subtree over one forward of the model, shown beside the
      measured figures in nnscan.inspect (null where not given).
    static_inputs: example inputs (a tensor, a tuple of positional ones
      or a dict of keyword ones, as summary(inputs=)): start() gets
      static_counts from nnscan's static recorder (nnscan.torch_api, the
      python branch's summary) on them, when it is available.
    hardware, compute_dtype: with static_inputs, the device ("h100-sxm",
      or a dict: nnscan.hardware) and dtype of the static roofline; each
      module then shows its roofline time beside its measured one
      (docs/inspect.md, "Against the roofline").
    predict_training: with static_inputs, also predict what a training
      step's forward of each module saves for backward (summary(...,
      training=True), PyTorch 2.x), shown beside the measured memory.
    optimizer: under torch.distributed, with static_inputs, the
      optimizer of the rank's static per-rank counts ("adam", "adamw",
      ...: summary(training=True) on the rank's own shards), shown in the
      rank rows beside what each rank measured (docs/inspect.md, "Ranks").

    After finish(): report(), save(), json(); `errors` lists failures
    inside the inspector's hooks (never raised into the model's code).
    """

    def __init__(self, model, save_file=None, *, watch_forward=True,
                 watch_backward=True, watch_depth=-1, check_nonfinite=True,
                 stats=False, memory=True, name=None, max_pending=8,
                 static_counts=None, static_inputs=None, hardware=None,
                 compute_dtype=None, predict_training=False,
                 optimizer="adam"):
        from . import _args
        _args.module("nnscan.Inspector()", "model", model)
        _args.compute_dtype("nnscan.Inspector()", compute_dtype)
        _args.count("nnscan.Inspector()", "watch_depth", watch_depth, -1)
        _args.count("nnscan.Inspector()", "max_pending", max_pending, 1)
        self.model = model
        self.save_file = save_file
        self.watch_forward = watch_forward
        self.watch_backward = watch_backward
        self.watch_depth = watch_depth
        self.check_nonfinite = check_nonfinite
        self.stats = stats
        self.memory = memory
        self.name = name or _model_class(model).__name__
        self.max_pending = max_pending
        self.static_counts = dict(static_counts or {})
        self.static_inputs = static_inputs
        self.hardware, self.compute_dtype = hardware, compute_dtype
        self._roofline = {}  # path -> static roofline ms (the library's)
        self.predict_training = predict_training
        self.optimizer = optimizer
        self._rank_counts = None  # the library's per-rank static counts
        self.errors = []
        self._handle = None  # Inspection, from start()
        self._active = False
        self._started = False
        self._saved_paths = []
        self._json = None

    # ---- seed-compatible surface ----

    def __enter__(self):
        self.start()
        return self

    def __exit__(self, exc_type, exc, tb):
        _finish_keeping(self, exc)
        return False

    def forward_mode(self):
        """Kept for the seed tool's callers: nnscan needs no modes (each
        pass and each backward is recognised on its own)."""

    def backward_mode(self):
        """Kept for the seed tool's callers; see forward_mode()."""

    # ---- start / finish ----

    def start(self):
        import torch
        if self._started:
            raise RuntimeError("Inspector.start() called twice")
        if self.save_file is not None and not (
                torch.distributed.is_available()
                and torch.distributed.is_initialized()
                and torch.distributed.get_rank() != 0):
            _check_writable(self._save_paths())
        self._started = True
        self._torch = torch
        lib = _lib_inspect()
        err = _Error()
        h = _c.c_void_p()
        _check(lib.nns_inspection_create(_c.byref(h), _c.byref(err)), err)
        self._handle = Inspection(h)
        self._rank, self._world = 0, 1
        if torch.distributed.is_available() and \
                torch.distributed.is_initialized():
            self._rank = torch.distributed.get_rank()
            self._world = torch.distributed.get_world_size()
        self._cuda = any(p.is_cuda for p in self.model.parameters()) or \
            any(b.is_cuda for b in self.model.buffers())
        if self.static_inputs is not None and not self.static_counts:
            self.static_counts = self._static_from_recorder()
        elif self.static_inputs is not None and self._world > 1:
            self._static_from_recorder()  # the rank's per-rank counts
        self._register_modules()
        import inspect as pyinspect
        sig = pyinspect.signature(torch.nn.Module.register_forward_pre_hook)
        self._with_kwargs = "with_kwargs" in sig.parameters
        self._meta = {"device": "cuda" if self._cuda else "cpu",
                      "clock": "cuda_events" if self._cuda else "host",
                      "memory": ("cuda_allocator" if self._cuda else
                                 "dispatch_alloc") if self.memory else "off",
                      "torch": torch.__version__,
                      "kwargs_seen_by": "hooks" if self._with_kwargs
                      else "wrapped_forward",
                      "nonfinite_checks": str(self.check_nonfinite).lower()}
        if self._roofline:
            hw = self.hardware
            self._meta["hardware"] = hw["name"] if isinstance(hw, dict) \
                else str(hw)
        for k, v in self._meta.items():
            _check(lib.nns_inspection_set_meta(h, _name(k), _name(v),
                                               _c.byref(err)), err)
        # Recording state.
        self._stack = []
        self._pass = None
        self._passes = 0
        self._pending = []          # passes waiting for their backward
        self._touched = set()       # passes a running backward reached
        self._cb_queued = False
        self._param_events = {}
        self._last_grad = None
        self._seq = 0
        self._check_tensor = NonfiniteCheck(torch, self.check_nonfinite,
                                            self.stats)
        self._sent = []             # batches kept for the rank merge
        self._clock = None
        self._handles, self._param_hooked, self._wrapped = [], [], []
        try:
            self._clock = Clock(torch, self._cuda, self.memory,
                                collectives=self._world > 1)
            self._install_hooks()
        except BaseException:
            # Nothing half-installed stays on the model.
            self._remove_hooks()
            if self._clock is not None:
                self._clock.close()
            raise
        self._active = True
        return self

    def finish(self):
        """Removes every hook, sends what is left, merges ranks and saves.
        Safe to call more than once."""
        if not self._started or not self._active:
            return self
        self._active = False
        try:
            self._remove_hooks()
            self._clock.close()
            # A forward that raised left frames open.
            if self._stack:
                for fr in self._stack:
                    fr.flags |= _C_RAISED
                self._stack = []
                self._end_forward()
            for p in list(self._pending):
                self._flush(p)
            self._pending = []
            if self._world > 1:
                self._merge_ranks()
        finally:
            self._check_tensor.clear()
        if self.save_file is not None and self._rank == 0:
            self._save_files()
        return self

    @property
    def _insp(self):
        """The native inspection (NnscanError NNS_E_STATE after close())."""
        return self._handle.ptr if self._handle is not None else None

    def close(self):
        """Frees the library's inspection now (also done when the Inspector
        is dropped); its reports are gone, later report() calls raise
        NnscanError. Safe to call twice."""
        if self._handle is not None:
            self._handle.close()

    @property
    def closed(self):
        return self._handle is not None and self._handle.closed

    # ---- reports ----

    def report(self, format="text", max_depth=None, numbers=None,
               width=0):
        """The tree table ("text", "csv", "md"), the "nnscan.inspect" JSON
        ("json"), one self-contained HTML page embedding that JSON with
        nnscan's viewer ("html"), or the seed tool's layout ("seed"), as a
        string. numbers: "clever" (bytes in KiB/MiB; the tables' default),
        "raw" (CSV's default) or "ratio"."""
        if numbers is None:
            numbers = "raw" if format == "csv" else "clever"
        if self._handle is None:
            raise RuntimeError("nothing recorded: call start() first")
        lib = _lib_inspect()
        opts = _ReportOptions()
        seed = format == "seed"
        opts.format = _format("json" if seed else format)
        opts.numbers = _NUMBERS[numbers]
        opts.max_depth = -1 if max_depth is None else max_depth
        opts.width = width
        opts.model_name = _name(self.name)
        chunks = []

        def write(_user, data, size):
            chunks.append(_c.string_at(data, size))
            return 0
        cb = _WRITE_FN(write)
        err = _Error()
        fn = lib.nns_inspection_report_seed if seed else \
            lib.nns_inspection_report
        _check(fn(self._insp, _c.byref(opts), cb, None, _c.byref(err)), err)
        return b"".join(chunks).decode("utf-8")

    def save(self, path, format="json"):
        text = self.report(format)
        with open(path, "w", encoding="utf-8") as f:
            f.write(text)
        return path

    def to_html(self):
        """The inspection as one self-contained HTML page (report("html"))."""
        return self.report("html")

    def json(self):
        """The "nnscan.inspect" document as a dict."""
        import json
        return json.loads(self.report("json"))

    @property
    def saved_files(self):
        return list(self._saved_paths)

    def _save_paths(self):
        """The seed layout's file and nnscan's own, from save_file."""
        stem = os.fspath(self.save_file)
        root, ext = os.path.splitext(stem)
        if ext:
            stem = root
        base = f"{stem}_{_model_class(self.model).__name__}"
        return [base + ".json", base + ".inspect.json"]

    def _save_files(self):
        seed, own = self._save_paths()
        d = os.path.dirname(seed)
        if d:
            os.makedirs(d, exist_ok=True)
        self._saved_paths = [self.save(seed, "seed"), self.save(own, "json")]

    # ---- modules ----

    def _register_modules(self, insp=None):
        """Declares the watched modules in inspection `insp` (None: this
        inspector's own)."""
        insp = insp if insp is not None else self._insp
        lib = _lib_inspect()
        err = _Error()
        self._modules = []        # (module, path, depth)
        self._index = {}          # id(module) -> index
        for path, mod in self.model.named_modules():
            if id(mod) in self._index:
                continue
            depth = 0 if path == "" else path.count(".") + 1
            if 0 <= self.watch_depth < depth:
                continue  # never watched: no row (its ancestor covers it)
            parent = -1
            if path:
                ppath = path.rsplit(".", 1)[0] if "." in path else ""
                parent = self._path_index[ppath]
            else:
                self._path_index = {}
            self._path_index[path] = len(self._modules)
            self._index[id(mod)] = len(self._modules)
            self._modules.append((mod, path, depth))
            flops, macs, saved = self._static_counts(path)
            m = _Module(_name(path), _name(_model_class(mod).__name__),
                        _SIZE_MAX if parent < 0 else parent, 0, 0, 0, 0,
                        flops, macs, None, 0,
                        self._roofline.get(path, 0.0), saved)
            _check(lib.nns_inspection_add_module(insp, _c.byref(m), None,
                                                 _c.byref(err)), err)
        params = self._held_params()
        if params:
            arr = (_Param * len(params))(*params)
            _check(lib.nns_inspection_add_params(insp, arr, len(params),
                                                 _c.byref(err)), err)

    def _held_params(self):
        """Every parameter each module holds itself, on the nearest watched
        module at or above it (a module below watch_depth, or a second path
        of a shared module, has no row): the library sums each row's
        subtree, a tied weight once."""
        out = []
        for path, mod in self.model.named_modules(remove_duplicate=False):
            owner = path
            while owner not in self._path_index:
                owner = owner.rsplit(".", 1)[0] if "." in owner else ""
            row = self._path_index[owner]
            for p in mod._parameters.values():
                if p is not None:
                    out.append(_Param(row, id(p), onnx_dtype(p.dtype),
                                      8 * p.element_size(), p.numel(),
                                      int(p.requires_grad)))
        return out

    def _static_from_recorder(self):
        """{path: (flops, macs, saved_bytes)} from the static recorder
        (saved_bytes: what a training step saves, with predict_training;
        -1 for a figure the analysis does not give), or {} (with a line in
        `errors`) where it is not part of this installation."""
        try:
            from . import torch_api
        except ImportError:
            self.errors.append("static_inputs: nnscan's static recorder "
                               "(nnscan.torch_api) is not available")
            return {}
        if self._world > 1:
            # a rank of a job whose model is sharded or replicated: the
            # counts of the rank's own shards (and its per-rank figures)
            from ._inspect_ranks import static_per_rank
            got = static_per_rank(self.model, self.static_inputs,
                                  self.optimizer, self.hardware,
                                  self.compute_dtype)
            if got is not None:
                static, self._roofline, self._rank_counts = got
                return static
        # a tensor, a tuple or list (positional) or a dict (keyword), as
        # summary(inputs=) takes them
        args, kwargs = torch_api.make_inputs(self.model,
                                             inputs=self.static_inputs)
        # predict_training: the prediction of what a training step saves
        # (summary(training=True), PyTorch 2.x) beside the measured memory
        step = None
        if self.predict_training:
            from . import train
            # a model on the GPU: what CUDA's kernels save (train.py)
            step = train.handover(self.model, args, kwargs,
                                  target="cuda" if self._cuda else None)
        s = torch_api.analyze_module(self.model, args, kwargs,
                                     hardware=self.hardware,
                                     compute_dtype=self.compute_dtype,
                                     step=step)
        if self.hardware is not None:
            self._roofline = {py_name(row["path"]): row["time_s"] * 1e3
                              for row in s.layers}
        return {py_name(row["path"]): (row.get("flops", -1),
                                       row.get("macs", -1),
                                       row.get("saved_bytes", -1))
                for row in s.layers}

    def _static_counts(self, path):
        """Static FLOPs, MACs and predicted saved bytes of one call of the
        module at `path`, from static_counts ({path: (flops, macs[,
        saved_bytes])}); -1 when not given."""
        fm = self.static_counts.get(path)
        if fm is None:
            return -1, -1, -1
        return int(fm[0]), int(fm[1]), int(fm[2]) if len(fm) > 2 else -1

    def _install_hooks(self):
        for idx, (mod, path, depth) in enumerate(self._modules):
            if self.watch_depth >= 0 and depth > self.watch_depth:
                continue
            pre, post = self._make_hooks(idx)
            if self._with_kwargs:
                self._handles.append(
                    mod.register_forward_pre_hook(pre, with_kwargs=True))
                self._handles.append(
                    mod.register_forward_hook(post, with_kwargs=True))
            else:
                self._handles.append(mod.register_forward_pre_hook(
                    lambda m, a, _pre=pre: _pre(m, a, None)))
                self._handles.append(mod.register_forward_hook(
                    lambda m, a, o, _post=post: _post(m, a, None, o)))
                self._wrap_forward(idx, mod)
            if self.watch_backward:
                for p in self._params_ending_backward(mod, depth):
                    if p.requires_grad:
                        h = _hook_param(p, self._make_param_hook(idx))
                        self._param_hooked.append((p, h))

    def _params_ending_backward(self, mod, depth):
        """The parameters whose gradients can end a module's backward (a
        module whose inputs need no gradient has no other end): its own,
        or at the deepest watched depth those of its whole subtree, whose
        modules have no hooks."""
        return mod.parameters(recurse=depth == self.watch_depth)

    def _remove_hooks(self):
        for h in self._handles:
            h.remove()
        self._handles = []
        for mod in self._wrapped:
            _KwargsForward.leave(mod, id(self))
        self._wrapped = []
        for p, h in self._param_hooked:
            _unhook_param(p, h)
        self._param_hooked = []
        for p in [self._pass] + self._pending:
            if p is not None:
                for h in p.handles:
                    h.remove()
                p.handles = []

    # ---- clock, tensors ----

    def _now(self, t_in):
        return self._clock.now(t_in)

    def _enter(self):
        return self._clock.enter()

    def _leave(self, t_in):
        self._clock.leave(t_in)

    def _record(self, call, role, name, t, check=True):
        call.tensors.append(self._check_tensor.record(role, name, t, check))

    # ---- forward hooks ----

    def _hook_error(self, e):
        """A failure inside the inspector is kept in `errors`, never raised
        into the model's forward or backward."""
        if len(self.errors) < 100:
            self.errors.append(f"{type(e).__name__}: {e}")

    def _guarded(self, on, *args):
        """Runs a hook's work outside autograd and outside the overhead
        clock; a failure is kept in `errors`, never raised into the
        user's code."""
        t_in = self._enter()
        grad_on = self._torch.is_grad_enabled()
        # what torch.no_grad() does, without its object per hook
        set_grad = self._torch._C._set_grad_enabled
        try:
            if grad_on:
                set_grad(False)
            on(*args, t_in, grad_on)
        except Exception as e:
            self._hook_error(e)
        finally:
            if grad_on:
                set_grad(True)
            self._leave(t_in)

    def _make_hooks(self, idx):
        def pre(module, args, kwargs):
            if self._active:
                self._guarded(self._on_pre, idx, args, kwargs)
            return None

        def post(module, args, kwargs, output):
            if self._active:
                self._guarded(self._on_post, idx, output)
            return None
        return pre, post

    def _on_pre(self, idx, args, kwargs, t_in, grad_on):
        # Frames whose forward raised (and whose exception was caught)
        # are still on the stack: a call nested in a frame runs deeper in
        # the Python stack than that frame's hook did.
        depth = _py_depth()
        if self._stack and self._stack[-1].depth >= depth:
            while self._stack and self._stack[-1].depth >= depth:
                self._stack.pop().flags |= _C_RAISED
            if not self._stack:
                self._end_forward()
        if not self._stack:
            self._pass = _PassRec(self._passes)
            self._passes += 1
        p = self._pass
        parent = self._stack[-1].index if self._stack else -1
        call = _CallRec(idx, parent, len(p.calls))
        call.depth = depth
        p.calls.append(call)
        if not grad_on:
            call.flags |= _C_NO_GRAD
        found = []
        _flatten(tuple(args), "", found)
        if kwargs:
            _flatten(dict(kwargs), "", found)
        self._record_inputs(p, call, found, grad_on)
        self._stack.append(call)
        call.ev[0] = self._now(t_in)

    def _record_inputs(self, p, call, found, grad_on):
        for name, t in found:
            self._record(call, _INPUT, name, t)
            if grad_on and self.watch_backward and t.requires_grad:
                h = self._grad_hook(p, call, _GRAD_INPUT, name, t)
                call.ins[id(t)] = (name, h, t, t._version)

    def _wrap_forward(self, idx, mod):
        """torch < 2.0: the keyword arguments of the call the pre-hook
        opened, through the module's shared forward wrapper
        (_KwargsForward); finish() leaves it."""
        def on_kwargs(kwargs):
            if not self._active:
                return
            grad_on = self._torch.is_grad_enabled()
            t_in = self._enter()
            try:
                st = self._stack
                if st and st[-1].module == idx and not st[-1].kw:
                    st[-1].kw = True
                    found = []
                    _flatten(dict(kwargs), "", found)
                    with self._torch.no_grad():
                        self._record_inputs(self._pass, st[-1], found,
                                            grad_on)
            except Exception as e:
                self._hook_error(e)
            finally:
                self._leave(t_in)
        if _KwargsForward.listen(mod, id(self), on_kwargs):
            self._wrapped.append(mod)

    def _on_post(self, idx, output, t_in, grad_on):
        ev = self._now(t_in)
        st = self._stack
        # Frames above this module's are calls whose forward raised (and
        # whose exception this module caught).
        while st and st[-1].module != idx:
            st.pop().flags |= _C_RAISED
        if not st:
            return
        call = st.pop()
        call.ev[1] = ev
        call.fwd_seq = self._seq
        self._seq += 1
        found = []
        if not isinstance(output, (tuple, list, dict)):
            output = (output,)
        _flatten(output, "", found)
        carries_grad = False
        for name, t in found:
            self._record(call, _OUTPUT, name, t)
            if not (grad_on and self.watch_backward and t.requires_grad):
                continue
            carries_grad = True
            inp = call.ins.get(id(t))
            if inp is not None and inp[2] is t and inp[3] != t._version:
                self._inplace_hooks(self._pass, call, name, t, inp)
            else:
                self._grad_hook(self._pass, call, _GRAD_OUTPUT, name, t)
        if not carries_grad:
            self._drop_input_hooks(self._pass, call)
        call.ins = {}
        if not st:
            self._end_forward()

    def _drop_input_hooks(self, p, call):
        """A call none of whose outputs carries a gradient has no backward:
        no gradient reaches its inputs through it. A hook on such an input
        (a rotary embedding reading the hidden states for their dtype)
        would see that tensor's gradient from its other users and make
        this call look like its producer; the hooks go."""
        for _, h, _, _ in call.ins.values():
            if h is None:
                continue
            h.remove()
            if h in p.handles:
                p.handles.remove(h)
                p.grad_hooks -= 1

    def _inplace_hooks(self, p, call, oname, t, inp):
        """An output that is one of the inputs, changed in place
        (ReLU(inplace=True), a Function that marks it dirty). Hooks on that
        tensor all sit on the autograd node that made it before the change
        (torch 1.13), so they would fire together. The gradient w.r.t. the
        output is taken instead at the in-place node's start (a hook dict
        of its own on that node; the tensor's own dict is put back), and
        the gradient w.r.t. the input when that node is done (a hook run
        after it)."""
        name, h, _, _ = inp
        node = t.grad_fn
        if h is None or node is None:
            self._grad_hook(p, call, _GRAD_OUTPUT, oname, t)
            return
        h.remove()
        p.handles.remove(h)
        p.grad_hooks -= 1
        saved = t._backward_hooks
        t._backward_hooks = None
        try:
            self._grad_hook(p, call, _GRAD_OUTPUT, oname, t)
        finally:
            t._backward_hooks = saved
        key = ("node", id(node))

        def after(grad_inputs, grad_outputs):
            if not self._active or p.done is None:
                return None
            t_in = self._enter()
            try:
                with self._torch.no_grad():
                    for k, g in enumerate(grad_inputs):
                        if isinstance(g, self._torch.Tensor):
                            self._on_grad(p, call, _GRAD_INPUT,
                                          name if k == 0 else f"{name}.{k}",
                                          g, t_in, key)
            except Exception as e:
                self._hook_error(e)
            finally:
                self._leave(t_in)
            return None
        p.handles.append(node.register_hook(after))
        p.grad_hooks += 1

    def _end_forward(self):
        p = self._pass
        self._pass = None
        self._stack = []
        if p is None:
            return
        p.done = True
        if p.grad_hooks == 0:
            self._flush(p)
            return
        self._pending.append(p)
        # Forwards whose backward never comes (evaluation with grad on)
        # are sent without one rather than kept forever.
        while len(self._pending) > self.max_pending:
            self._flush(self._pending.pop(0))

    # ---- backward hooks ----

    def _grad_hook(self, p, call, role, name, t):
        tkey = id(t)

        def hook(grad):
            if not self._active or p.done is None:
                return None
            t_in = self._enter()
            try:
                with self._torch.no_grad():
                    self._on_grad(p, call, role, name, grad, t_in, tkey)
            except Exception as e:
                self._hook_error(e)
            finally:
                self._leave(t_in)
            return None
        try:
            h = t.register_hook(hook)
        except RuntimeError:
            return None  # a tensor that cannot take a hook: no gradient
        p.handles.append(h)
        p.grad_hooks += 1
        return h

    def _on_grad(self, p, call, role, name, grad, t_in, tkey):
        # Hooks on one tensor (a module's output is the next one's input)
        # fire one after the other for the same gradient: one moment, so
        # the two modules' backward spans meet instead of overlapping.
        last = self._last_grad
        if last is not None and last[0]() is grad and last[2] == tkey:
            ev = last[1]
        else:
            ev = self._now(t_in)
            try:
                self._last_grad = (weakref.ref(grad), ev, tkey)
            except TypeError:
                self._last_grad = None
        call.flags |= _C_BACKWARD
        if grad is not None:
            self._record(call, role, name, grad)
        if role == _GRAD_OUTPUT:
            if call.ev[2] is None:
                call.ev[2] = ev
        else:
            call.ev[3] = ev
            if call.bwd_seq < 0:
                call.bwd_seq = self._seq
                self._seq += 1
        p.backward_seen = True
        self._touched.add(p)
        self._queue_backward_end()

    def _make_param_hook(self, idx):
        def hook(grad):
            if not self._active:
                return None
            t_in = self._enter()
            try:
                self._param_events[idx] = self._now(t_in)
                self._queue_backward_end()
            finally:
                self._leave(t_in)
            return None
        return hook

    def _queue_backward_end(self):
        if self._cb_queued:
            return
        try:
            self._torch.autograd.Variable._execution_engine.queue_callback(
                self._backward_end)
            self._cb_queued = True
        except RuntimeError:
            pass

    def _backward_end(self):
        """Runs once at the end of each backward: completes and sends the
        passes it reached."""
        self._cb_queued = False
        self._last_grad = None
        if not self._active:
            return
        t_in = self._enter()
        try:
            touched, self._touched = self._touched, set()
            pe, self._param_events = self._param_events, {}
            for p in touched:
                counts = {}
                for c in p.calls:
                    counts[c.module] = counts.get(c.module, 0) + 1
                for c in p.calls:
                    # Inputs that need no gradient: the module's own
                    # parameters' gradients end its backward.
                    if c.ev[2] is not None and c.ev[3] is None and \
                            c.module in pe and counts[c.module] == 1:
                        c.ev[3] = pe[c.module]
                if p in self._pending:
                    self._pending.remove(p)
                if p.done:
                    self._flush(p)
        finally:
            self._leave(t_in)

    # ---- sending ----

    def _flush(self, p):
        """One pass to the library, in one call."""
        for h in p.handles:
            h.remove()
        p.handles = []
        p.done = None  # later hooks on its tensors do nothing
        batch = PassBatch(self._rank, p.number, p.wall_start, [
            CallRecord(c.module, c.parent, c.flags, c.fwd_seq, c.bwd_seq,
                       [self._clock.resolve(e) for e in c.ev], c.tensors)
            for c in p.calls])
        send(self._insp, batch)
        if self._world > 1:
            self._sent.append(batch)

    # ---- ranks ----

    def _merge_ranks(self):
        """Every rank's passes into one inspection (on every rank)."""
        mine = (self._rank, self._clock.comm_seen, self._rank_counts)
        merged = merge_ranks(self._torch.distributed, self._world,
                             self._sent, mine, self._meta,
                             self._register_modules)
        self._handle.close()
        self._handle = Inspection(merged)


def _model_class(model):
    """The model's class, as written; under FSDP2 (whose fully_shard
    makes a class "FSDP<Class>" of each module it wraps) the user's."""
    cls = type(model)
    if cls.__name__.startswith("FSDP"):
        from .parallel import _fsdp_module_type, _plain_class
        cls = _plain_class(cls, _fsdp_module_type())
    return cls


def _check_writable(paths):
    """Refuses, before anything runs, files finish() could not write: a
    path that is a folder, a parent that is a file, a folder it may not
    write in. (A failure at finish() would come after the user's code.)"""
    for path in paths:
        if os.path.isdir(path):
            raise IsADirectoryError(f"save_file: {path!r} is a folder")
        if os.path.exists(path) and not os.access(path, os.W_OK):
            raise PermissionError(f"save_file: {path!r} is not writable")
        folder = os.path.abspath(os.path.dirname(path) or ".")
        while not os.path.exists(folder):  # finish() makes the missing ones
            folder = os.path.dirname(folder)
        if not os.path.isdir(folder):
            raise NotADirectoryError(
                f"save_file: {folder!r} (in {path!r}) is not a folder")
        if not os.access(folder, os.W_OK | os.X_OK):
            raise PermissionError(f"save_file: cannot write in {folder!r}")


def _finish_keeping(insp, exc):
    """finish() from __exit__: when the `with` body raised, its exception
    is the one the user gets; a failure to finish (saving, say) is then
    kept in `errors` and added to that exception as a note."""
    if exc is None:
        insp.finish()
        return
    try:
        insp.finish()
    except Exception as e:  # noqa: BLE001 - the body's exception goes on
        what = f"nnscan.Inspector could not finish: {type(e).__name__}: {e}"
        for i in getattr(insp, "inspectors", [insp]):
            i.errors.append(what)
        if hasattr(exc, "add_note"):
            exc.add_note(what)


class InspectorGadgets(Inspector):
    """The seed tool's name and signature:
    InspectorGadgets(model, watch_forward=True, watch_backward=True,
    watch_depth=-1, save_file=None), where `model` may also be a list of
    models (one inspector each, saving "<stem>_<Class>.json" each, as the
    seed tool did)."""

    def __new__(cls, model=None, *args, **kw):
        if isinstance(model, (list, tuple)):
            return _InspectorGroup(model, *args, **kw)
        return super().__new__(cls)

    def __init__(self, model, watch_forward=True, watch_backward=True,
                 watch_depth=-1, save_file=None, **kw):
        super().__init__(model, save_file, watch_forward=watch_forward,
                         watch_backward=watch_backward,
                         watch_depth=watch_depth, **kw)


class _InspectorGroup:
    """Several models inspected together (the seed tool's list form)."""

    def __init__(self, models, watch_forward=True, watch_backward=True,
                 watch_depth=-1, save_file=None, **kw):
        self.inspectors = [
            InspectorGadgets(m, watch_forward, watch_backward, watch_depth,
                             save_file, **kw) for m in models]

    def start(self):
        started = []
        try:
            for i in self.inspectors:
                started.append(i.start())
        except BaseException:
            for i in started:
                i.finish()
            raise
        return self

    def finish(self):
        """Finishes every inspector, even when one fails (its hooks must
        not stay on the model); then raises the first failure."""
        first = None
        for i in self.inspectors:
            try:
                i.finish()
            except Exception as e:  # noqa: BLE001 - raised below
                first = first or e
        if first is not None:
            raise first
        return self

    def forward_mode(self):
        pass

    def backward_mode(self):
        pass

    def __enter__(self):
        return self.start()

    def __exit__(self, exc_type, exc, tb):
        _finish_keeping(self, exc)
        return False

    @property
    def saved_files(self):
        return [f for i in self.inspectors for f in i.saved_files]

    def close(self):
        """Frees every inspector's native inspection (Inspector.close)."""
        for i in self.inspectors:
            i.close()
