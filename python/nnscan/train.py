"""One training step on meta tensors: summary(..., training=True).

What autograd keeps and when the step's tensors come and go are PyTorch's
to say, so a step runs for real, on meta tensors (no memory, no compute),
on a meta copy of the model in training mode:

  - the forward (and the loss: the `loss=` callable, else the output's
    `loss` field, else the sum of the floating outputs) runs with autograd
    on under saved-tensor hooks (torch.autograd.graph.saved_tensors_hooks):
    each tensor autograd saves is seen as it is saved, while the module
    stack (the recorder's global module hooks) says whose forward saves it;
  - the backward runs (torch.autograd.grad with respect to every trainable
    parameter, so nothing writes `.grad`), each op asking autograd which
    node runs it (torch._C._current_autograd_node): one moment per node;
  - the optimizer step runs on stand-ins of the parameters (meta leaves of
    the same shapes and dtypes) whose state a first, unobserved step has
    made, so the observed step is a steady-state one.

summary(training=True) runs the step on the recording's own forward
(Shared, recorder.record_model's `step`): one forward records the graph and
is the step's forward, the recorder's dispatch mode handing each op's
outputs to the step's (one mode per op: two stacked ones made every meta
kernel under them twice as slow), and the recorder forgets
tensors as they die instead of keeping them, so the frees are PyTorch's.
record_step (the Inspector's prediction) runs a forward of its own.

Throughout, a dispatch mode notes every storage an op creates, and a weak
reference on the storage notes when it goes away: on meta every data
pointer is 0, so storages are told apart by the storage objects
themselves (PyTorch 2.x keeps one Python object per storage; 1.13 does
not, and so cannot run this). Parameters, buffers, optimizer state and the
model's inputs are live all step long: the library counts them from the
graph and the optimizer, so they are left out of the events.

The facts go to the library through the C API (nns_model_train_*): the
moments of the step in order (the forward per module, each backward node,
the optimizer step), the bytes each storage adds or frees at a moment,
and every saved storage with its bytes, the module that saved it first,
the smallest module holding everything that made or saved it (what
checkpointing must wrap to drop it) and the events that made and freed
it. Sums, the peak and the checkpoint ranking are the library's
(src/analyze/train.c).
"""
import contextlib
import ctypes
import importlib
import sys
import threading
import weakref

import torch

from . import _api, _args, recorder
from . import fast_meta
from .dispatch_mode import DispatchMode
from .recorder import ModuleStack, flatten
from .shadow import Shadows



def _check_optimizer(optimizer):
    """A ValueError unless `optimizer` is one the library names."""
    names = _api.optimizers()
    if optimizer not in names:
        raise ValueError(f"optimizer must be one of {', '.join(names)}, "
                         f"not {optimizer!r}")


class StepError(recorder.RecordError):
    """The training step could not be run on meta tensors, or a part of
    it (the loss, the backward, the optimizer step) failed: the message
    says which part, and for the backward which autograd node of which
    module. A RecordError: the recorder passes it on as it is, never as a
    failure of the forward on meta."""


class StepTypeError(StepError, TypeError):
    """loss= returned something a loss is not (not a one-element tensor)."""


class StepValueError(StepError, ValueError):
    """The loss cannot be differentiated (it needs no gradient)."""


class _Facts:
    """Moments, events and saved storages of one step, as the library
    takes them."""

    def __init__(self):
        self.moments = []   # (phase, label, module path)
        self.ev_moment = []  # per event: its moment
        self.ev_bytes = []   # per event: + allocated, - freed
        self.saved = {}      # storage key -> [first saver, region, bytes,
        #                      made-event, freed-event]
        self.phase = "forward"
        self.loss = ""

    def _used(self):
        return bool(self.ev_moment) and \
            self.ev_moment[-1] == len(self.moments) - 1

    def event(self, nbytes):
        if not self.moments:
            self.moments.append(("forward", "forward", ""))
        self.ev_moment.append(len(self.moments) - 1)
        self.ev_bytes.append(nbytes)
        return len(self.ev_bytes) - 1


def _common(a, b):
    """The innermost module holding both dotted paths ("" the model)."""
    if a == b:
        return a
    pa, pb = a.split("."), b.split(".")
    k = 0
    while k < min(len(pa), len(pb)) and pa[k] == pb[k]:
        k += 1
    return ".".join(pa[:k])


class _Storages:
    """Every storage the step's ops make: an event when it is made and
    one when PyTorch frees it (weak reference on the storage object)."""

    def __init__(self, facts, where):
        self.f = facts
        self.where = where  # .scope: the module running now (a ModuleStack's)
        self.live = {}     # id(storage) -> (weakref, bytes, event, made in)
        self.static = {}   # id(storage) -> weakref: params, state, inputs
        self.inputs = set()  # id(storage) of the model's inputs
        self.outside = []  # saved tensors made outside the step: kept, so
        #                    their storages' ids stay theirs
        self.closed = False  # the step is over: later frees are not its

    def keep_static(self, tensors):
        for t in tensors:
            if isinstance(t, torch.Tensor):
                st = t.untyped_storage()
                self.static[id(st)] = weakref.ref(st)

    def _is_static(self, st):
        r = self.static.get(id(st))
        return r is not None and r() is st

    def note(self, t):
        if self.closed:
            return None
        st = t.untyped_storage()
        k = id(st)
        e = self.live.get(k)
        if e is not None and e[0]() is st:
            return e
        if self._is_static(st):
            return None
        n = st.nbytes()
        f = self.f
        scope = self.where.scope
        if f.phase == "forward" and (not f.moments or f.moments[-1][2] != scope):
            f.moments.append(("forward", "forward", scope))
        ev = f.event(n)
        e = (weakref.ref(st, recorder.death_callback(self, "_freed", k)), n,
             ev, scope)
        self.live[k] = e
        return e

    def _freed(self, k):
        e = self.live.pop(k, None)
        if e is None or self.closed:
            return
        ev = self.f.event(-e[1])
        s = self.f.saved.get(k)
        if s is not None and s[4] < 0:
            s[4] = ev

    def saved(self, t):
        """The pack hook's work: t is saved by the current module."""
        if self.closed or not isinstance(t, torch.Tensor):
            return
        st = t.untyped_storage()
        k = id(st)
        scope = self.where.scope
        s = self.f.saved.get(k)
        if s is not None:
            s[1] = _common(s[1], scope)
            return
        e = self.live.get(k)
        if e is not None and e[0]() is st:
            self.f.saved[k] = [scope, _common(e[3], scope), e[1], e[2], -1]
        elif k in self.inputs and self._is_static(st):
            # a model input: counted at its first saver (conv1 saves the
            # image), as autograd keeps it there; live all step long (the
            # caller holds it: in the peak once, as an input); made
            # outside every layer, so checkpointing none frees it
            self.f.saved[k] = [scope, "", st.nbytes(), -1, -1]
        elif not self._is_static(st):
            # made outside the step (a tensor the loss= callable captured):
            # live all step long, at its saver
            self.f.saved[k] = [scope, "", st.nbytes(), -1, -1]
            self.outside.append(t)


class _Scope:
    """What ModuleStack needs of a builder: the current module path."""

    def __init__(self):
        self.scope = ""


_current_node = getattr(torch._C, "_current_autograd_node", None)


# Ops whose statistics outputs (mean, rstd) the CPU kernel returns in a
# 16-bit input's own dtype where meta's kernel (as CUDA's) keeps float32
# (torch/_refs native_layer_norm: converted on "cpu" only): what autograd
# saves of them follows the device. op -> the outputs that are statistics.
_CPU_STATS = {}
_aten = getattr(torch.ops, "aten", None)
if _aten is not None and hasattr(_aten, "native_layer_norm"):
    _CPU_STATS[_aten.native_layer_norm.default] = (1, 2)
_HALF = (torch.float16, torch.bfloat16)


def _cpu_stats(func, args, out):
    """out with the statistics of a 16-bit input in its dtype, as the
    CPU's kernel returns them; out itself for every other op."""
    which = _CPU_STATS.get(func)
    if which is None or not args or not isinstance(args[0], torch.Tensor) \
            or args[0].dtype not in _HALF:
        return out
    dt = args[0].dtype
    return tuple(o.to(dt) if i in which and isinstance(o, torch.Tensor)
                 and o.dtype == torch.float32 else o
                 for i, o in enumerate(out))


class _StepMode(DispatchMode):
    """Runs every op (answering data reads from shadows, as the recorder
    does) and notes the storages of its outputs; notes each output's
    autograd node with its module once autograd has attached it."""

    def __init__(self, storages, shadows, nodes):
        super().__init__()
        self.s = storages
        self.shadows = shadows
        self.nodes = nodes      # id(node) -> (node, module path)
        self.fresh = []
        self.backward = False   # in the backward: ops are noted by node
        self.node = self        # the autograd node running (self: none yet)
        self.cpu_stats = True  # statistics in the CPU kernels' dtypes

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        kwargs = kwargs or {}
        if self.fresh:
            self.note_nodes()
        if self.backward:
            node = _current_node()
            if node is not self.node:
                self.enter_node(node)
        sh = self.shadows
        try:
            out = fast_meta.answer(func, args, kwargs)
            if out is None:
                out = func(*args, **kwargs)
        except Exception:  # noqa: BLE001 - re-raised unless answered
            out = sh.answer(func, args, kwargs) if sh is not None else None
            if out is None and not _mixed(args, kwargs):
                # a kernel torch cannot run on meta tensors (a float32
                # _grouped_mm in GroupedMmBackward0): its output's shape,
                # as the recorder's forward answers it
                shim = recorder.META_SHIMS.get(
                    recorder.aten_call.base_name(func))
                if shim is None or not recorder._all_meta(args):
                    raise
                out = shim(*args, **kwargs)
            elif out is None:
                # a real tensor the user's loss= captured (the targets)
                # meets a meta output: it joins the meta device
                args, kwargs = recorder.map_tensors(
                    (args, kwargs), lambda t: t if t.is_meta
                    else recorder.to_meta_inputs(t, sh))
                out = func(*args, **kwargs)
        else:
            if sh is not None:
                out = sh.follow(func, args, kwargs, out)
        out = self.device_out(func, args, out)
        self.observe(out)
        return out

    def device_out(self, func, args, out):
        """out as the target device's kernel returns it (the CPU's
        statistics of a 16-bit layer norm in its dtype): what autograd then
        saves. This mode's own work, or a recording's mode's (Shared)."""
        if self.cpu_stats and func in _CPU_STATS:
            return _cpu_stats(func, args, out)
        return out

    def observe(self, out):
        """Notes the storages of one op's outputs (and in the forward,
        their autograd nodes, at the next op): this mode's own work, or
        called by a recording's mode that ran the op (Shared)."""
        s = self.s
        note = s.note
        if s.f.phase != "forward":
            if isinstance(out, torch.Tensor):
                if out.is_meta:
                    note(out)
                return
            for o in out if isinstance(out, (tuple, list)) else flatten(out):
                if isinstance(o, torch.Tensor):
                    if o.is_meta:
                        note(o)
                elif isinstance(o, (tuple, list)):   # a list in a tuple
                    for t in o:
                        if isinstance(t, torch.Tensor) and t.is_meta:
                            note(t)
            return
        # in the forward, their autograd nodes too (the backward's own are
        # not the model's)
        fresh = self.fresh
        scope = s.where.scope
        for o in flatten(out) if not isinstance(out, torch.Tensor) else (out,):
            if isinstance(o, torch.Tensor) and o.is_meta:
                note(o)
                fresh.append((o, scope))

    def enter_node(self, node):
        """The backward's ops from here on are `node`'s: a moment of its
        own, named by the node and the module whose forward made it. What
        is freed after its last op (its saved tensors) stays in its
        moment, and so do the gradients the engine adds up between nodes
        (no node runs them: None). Before the first node: the loss's
        gradient."""
        prev, self.node = self.node, node
        f = self.s.f
        if node is None:
            if prev is self:
                f.moments.append(("backward", "loss gradient", ""))
            return
        e = self.nodes.get(id(node))
        m = ("backward", node.name(), e[1] if e is not None and
             e[0] is node else "")
        if f.moments[-1][0] == "backward" and not f._used():
            f.moments[-1] = m
        else:
            f.moments.append(m)

    def note_nodes(self):
        for t, scope in self.fresh:
            fn = t.grad_fn
            if fn is not None and id(fn) not in self.nodes:
                self.nodes[id(fn)] = (fn, scope)
        self.fresh = []


def _mixed(args, kwargs):
    ts = flatten((args, kwargs))
    return any(t.is_meta for t in ts) and any(not t.is_meta for t in ts)


def _loss_of(out, loss):
    """(the scalar to differentiate, what it is)."""
    if loss is not None:
        try:
            lo = loss(out)
        except Exception as e:  # noqa: BLE001 - attributed, then raised
            raise StepError(f"training step, loss: the loss= callable "
                            f"{_name_of(loss)} raised {type(e).__name__}: "
                            f"{e}") from e
        if not isinstance(lo, torch.Tensor) or lo.numel() != 1:
            raise StepTypeError(
                "training step, loss: loss= must return a one-element "
                "tensor, not " + (f"a tensor of shape {tuple(lo.shape)}"
                                  if isinstance(lo, torch.Tensor)
                                  else f"{type(lo).__name__} {lo!r:.60}"))
        return lo, "loss="
    lo = getattr(out, "loss", None)
    if lo is None and isinstance(out, dict):
        lo = out.get("loss")
    if isinstance(lo, torch.Tensor):
        return lo, "output.loss"
    ts = [t for t in flatten(out)
          if t.is_floating_point() and t.requires_grad]
    if not ts:
        raise StepError("no floating output requires a gradient: nothing to "
                        "differentiate (give loss=)")
    total = ts[0].sum()
    for t in ts[1:]:
        total = total + t.sum()
    return total, "sum of outputs"


def _name_of(fn):
    return getattr(fn, "__qualname__", None) or type(fn).__name__


def _check_torch():
    if not hasattr(torch.Tensor, "untyped_storage"):
        raise StepError(
            f"training=True needs PyTorch 2.x (it tells storages apart by "
            f"their objects, which PyTorch {torch.__version__} does not keep)")


def _dynamo_imported():
    """Imports torch._dynamo, once, in a thread of its own. PyTorch 2's
    optimizers import it when the first one is made (torch._compile's
    wrapper), and torch.fx, imported with it, leaves the importing frame in
    a reference cycle (fx's `wrap` keeps inspect.currentframe() in a
    local) and with it every frame up the stack: a process's first
    training summary kept its whole recording alive until the next
    collection. A thread's stack holds nothing of ours or the caller's."""
    if "torch._dynamo" in sys.modules or not hasattr(torch, "compile"):
        return  # imported, or PyTorch 1.x: no dynamo

    def load():
        try:
            importlib.import_module("torch._dynamo")
        except Exception:  # noqa: BLE001 - a build without it: the
            pass  # optimizer goes without too
    t = threading.Thread(target=load, name="nnscan-import-dynamo")
    t.start()
    t.join()


def _optimizer(name, params, foreach=False):
    _dynamo_imported()
    if name == "sgd":
        return torch.optim.SGD(params, lr=0.1, foreach=foreach)
    if name == "momentum":
        return torch.optim.SGD(params, lr=0.1, momentum=0.9, foreach=foreach)
    if name == "adam":
        return torch.optim.Adam(params, foreach=foreach)
    return torch.optim.AdamW(params, foreach=foreach)


def training_kwargs(model, kwargs):
    """The keyword arguments a training step's forward runs with, and what
    was set for it ("use_cache=False") or None. A transformers model whose
    config keeps a KV cache (use_cache, True by default for GPT-2, LLaMA...)
    builds one in every forward, training too, unless told not to: the
    step would count the cache (nothing reads it in training) and a plan
    applied with torch.utils.checkpoint would fail, the recomputed
    attention appending to the cache a second time (CheckpointError).
    Training is recorded as it is run for real, without it; a use_cache
    the caller passes is kept (docs/python.md, "Training step")."""
    import inspect
    kwargs = dict(kwargs or {})
    if "use_cache" in kwargs:
        return kwargs, None
    import torch
    model = recorder.unwrap_compiled(model)
    # DDP and DataParallel hand their keyword arguments to the module
    # they wrap: its config and forward decide
    while isinstance(model, (torch.nn.parallel.DistributedDataParallel,
                             torch.nn.DataParallel)):
        model = model.module
    if not getattr(getattr(model, "config", None), "use_cache", False):
        return kwargs, None
    try:
        params = inspect.signature(model.forward).parameters
    except (TypeError, ValueError):
        return kwargs, None
    if "use_cache" not in params and not any(
            p.kind is p.VAR_KEYWORD for p in params.values()):
        return kwargs, None
    kwargs["use_cache"] = False
    return kwargs, "use_cache=False"


def record_step(model, args, kwargs, optimizer="adam", loss=None,
                master_weights=False, device=None):
    """Runs one steady-state training step of `model` on meta tensors and
    returns its facts (see the module doc). The model is never changed."""
    _check_optimizer(optimizer)
    _check_torch()
    model = recorder.unwrap_compiled(model)
    with recorder.preserved(model):
        return _record_step(model, args, kwargs, optimizer, loss,
                            master_weights, device)


def _record_step(model, args, kwargs, optimizer, loss, master_weights,
                 device=None):
    shadows = Shadows()
    target = model if recorder.on_meta(model) \
        else recorder.meta_copy(model, shadows)
    if target is None:
        raise StepError("the model cannot be copied to the meta device")
    margs = recorder.to_meta_inputs(args, shadows)
    mkw = recorder.to_meta_inputs(kwargs, shadows)
    where = _Scope()
    step = _Step(target, margs, mkw, optimizer, loss, master_weights, device,
                 where, shadows)
    with recorder._restored(target) if target is model \
            else _nothing():
        target.train()
        with ModuleStack(target, where, shapes=False), step.forward():
            out = target(*margs, **mkw)
        facts = step.finish(out)
    return facts, step.st


class Shared:
    """A training step that runs on a recording's forward
    (recorder.record_model's `step`): one forward of the model on meta
    both records the graph and is the step's forward, as torch_api's
    summary(training=True) asks. The recorder then forgets tensors as they
    die rather than keeping them (Builder.weak), so the step sees
    PyTorch's frees. hand_over(handle) gives the facts to the library."""

    def __init__(self, optimizer="adam", loss=None, master_weights=False,
                 budget=None, target=None, forward_set=None):
        _check_optimizer(optimizer)
        self.forward_set = forward_set  # training_kwargs' note
        self.budget = parse_budget(budget)
        who = "nnscan.summary(training=True)"
        _args.function(who, "loss", loss, "outputs -> a one-element tensor")
        self.target = _args.target_device(who, target)
        _check_torch()
        self.optimizer, self.loss = optimizer, loss
        self.master_weights = master_weights
        self.step = self.facts = None

    def begin(self, target, margs, mkw, builder):
        """Called by the recorder before its forward on meta: what the
        forward runs under."""
        self.step = _Step(target, margs, mkw, self.optimizer, self.loss,
                          self.master_weights, self.target, builder, None)
        # the recorder's mode runs each op and hands its outputs to the
        # step's (one dispatch mode, not two, per op)
        builder.step_mode = self.step.mode
        return self.step.forward(mode=False)

    def finish(self, out, builder=None):
        """Called by the recorder after its forward."""
        if builder is not None:
            builder.step_mode = None
        self.facts = self.step.finish(out)

    def hand_over(self, handle):
        hand_over(handle, self.facts, self.master_weights, self.budget,
                  self.target, self.forward_set)


class _Step:
    """One training step on meta around a forward its caller runs: made
    before the forward (the optimizer's state, the storages to leave out),
    forward() is what the forward runs under, finish(out) runs the loss,
    the backward and the optimizer step. The forward is train.py's own
    (record_step) or a recording's (Shared): `where.scope` names the module
    running, `shadows` answers data reads (None where the recording's mode
    below this one answers them)."""

    def __init__(self, target, margs, mkw, optimizer, loss, master_weights,
                 device, where, shadows):
        self.facts = facts = _Facts()
        self.loss = loss
        self.device = device
        self.st = st = _Storages(facts, where)
        self.params = params = [p for p in target.parameters()
                                if p.requires_grad]
        st.keep_static(list(target.parameters()) + list(target.buffers()))
        ins = [t for t in flatten((margs, mkw))]
        st.keep_static(ins)
        st.inputs = {id(t.untyped_storage()) for t in ins}
        # The optimizer steps stand-ins (fp32 masters with master_weights)
        # of one parameter per shape and dtype: PyTorch's per-parameter loop
        # (its CPU default) frees each parameter's temporaries before the
        # next, so every parameter of a shape makes the same events and the
        # others add nothing to the peak (their state is counted by the
        # library). On a device whose default is the foreach step (CUDA),
        # each op runs over every parameter at once and its temporaries
        # live together: there every parameter has its stand-in. A first
        # step, unobserved, makes the state: the observed one is steady.
        master = master_weights and any(
            p.dtype in (torch.float16, torch.bfloat16) for p in params)
        foreach = str(device).split(":")[0] in _FOREACH if device else False
        reps = {}
        for i, p in enumerate(params):
            reps.setdefault(i if foreach else (tuple(p.shape), p.dtype), i)
        self.reps = reps = list(reps.values())
        self.stand = stand = [
            torch.empty(params[i].shape, dtype=torch.float32 if master
                        and params[i].dtype in (torch.float16, torch.bfloat16)
                        else params[i].dtype,
                        device="meta").requires_grad_(True) for i in reps]
        self.opt = opt = _optimizer(optimizer, stand, foreach) \
            if stand else None
        if opt is not None:
            for q in stand:
                q.grad = torch.empty_like(q)
            opt.step()
            opt.zero_grad(set_to_none=True)
            st.keep_static(stand)
            st.keep_static(t for s in opt.state.values() for t in s.values())
        self.nodes = {}
        self.mode = _StepMode(st, shadows, self.nodes)
        # the CPU's graph (no target, or the CPU): its kernels' dtypes
        self.mode.cpu_stats = device is None or \
            str(device).split(":")[0] in ("cpu", "meta")

    def _pack(self, t):
        self.st.saved(t)
        return t

    def forward(self, mode=True):
        """What the forward runs under: autograd on, this step's dispatch
        mode (mode=False: a recording's mode calls the step's instead,
        Shared), the saved-tensor hooks (and the target device's kernels
        where they save otherwise)."""
        ctx = contextlib.ExitStack()
        ctx.enter_context(recorder.gc_paused())
        ctx.enter_context(torch.enable_grad())
        kind = str(self.device).split(":")[0] if self.device else None
        if kind in _FUSED_DROPOUT:
            ctx.enter_context(_TargetKernels(sdpa=kind in _FUSED_SDPA))
        if mode:
            ctx.enter_context(self.mode)
        ctx.enter_context(torch.autograd.graph.saved_tensors_hooks(
            self._pack, _unpack))
        return ctx

    def finish(self, out):
        """The loss of the forward's output `out`, the backward and the
        optimizer step; the step's facts."""
        with recorder.gc_paused():
            return self._finish(out)

    def _failed_node(self, exc):
        """(name, module path) of the autograd node whose backward raised
        exc: a Python Function's node is its backward's ctx, found among
        the traceback's frames; else the node whose ops ran last."""
        tb, found = exc.__traceback__, None
        while tb is not None:
            for v in tb.tb_frame.f_locals.values():
                e = self.nodes.get(id(v))
                if e is not None and e[0] is v:
                    found = e
            tb = tb.tb_next
        if found is not None:
            return found[0].name(), found[1]
        _, node, path = self.facts.moments[-1]
        return node, path

    def _finish(self, out):
        facts, mode, st, params = self.facts, self.mode, self.st, self.params
        with torch.enable_grad(), mode, \
                torch.autograd.graph.saved_tensors_hooks(self._pack, _unpack):
            facts.moments.append(("forward", "loss", ""))
            lo, facts.loss = _loss_of(out, self.loss)
            mode.note_nodes()
        if params and not lo.requires_grad:
            raise StepValueError(
                f"training step, loss: the loss ({facts.loss}) does not "
                "require a gradient: it was detached or computed under "
                "torch.no_grad()")
        facts.phase = "backward"
        # the backward and the optimizer read no values: no shadows (their
        # in-place ops would make every pending shadow compute)
        mode.shadows = None
        # backward: each op is the running autograd node's (the dispatch
        # asks autograd which; no hook on the nodes)
        # (a PyTorch without _current_autograd_node: one backward moment)
        mode.backward, mode.node = _current_node is not None, mode
        if not mode.backward:
            facts.moments.append(("backward", "backward", ""))
        try:
            with mode:
                grads = torch.autograd.grad(lo, params, allow_unused=True) \
                    if params else []
        except Exception as e:  # noqa: BLE001 - attributed, then raised
            node, path = self._failed_node(e)
            raise StepError(
                f"training step, backward: {type(e).__name__} in "
                f"{node or 'the backward'}"
                + (f" of module '{path}'" if path else "")
                + f": {e}") from e
        finally:
            mode.backward = False
            mode.node = None
        del lo
        # the optimizer step on the gradients, then zero_grad
        facts.phase = "optimizer"
        facts.moments.append(("optimizer", "optimizer step", ""))
        with mode:
            for q, i in zip(self.stand, self.reps):
                g = grads[i]
                if g is not None:
                    q.grad = g.float() if g.dtype != q.dtype else g
            g = None
            if self.opt is not None:
                try:
                    self.opt.step()
                except Exception as e:  # noqa: BLE001 - attributed
                    raise StepError(
                        f"training step, optimizer: {type(self.opt).__name__}"
                        f".step() raised {type(e).__name__}: {e}") from e
                self.opt.zero_grad(set_to_none=True)
            del grads
        st.closed = True
        mode.fresh = []
        return facts


# Devices whose dropout is PyTorch's fused kernel (at::native::dropout
# takes native_dropout there), which saves a one-byte mask where the CPU's
# (and meta's) saves a mask of the input's dtype.
_FUSED_DROPOUT = ("cuda", "xpu", "hip")
# Devices where PyTorch's optimizers default to their foreach step.
_FOREACH = ("cuda", "xpu")
# Devices whose scaled_dot_product_attention runs the fused kernels that
# PyTorch's CUDA dispatcher picks (flash, then memory-efficient).
_FUSED_SDPA = ("cuda", "hip")


# the function itself (torch.nn.functional's name for it may be a
# recording's wrapper, fused.py, which calls this one)
_SDPA = getattr(torch._C._nn, "scaled_dot_product_attention", None)


class _TargetKernels(torch.overrides.TorchFunctionMode):
    """Runs what PyTorch runs on the target device where its kernels save
    other tensors for backward than the CPU's: F.dropout in training as
    native_dropout (a one-byte mask); with `sdpa`,
    F.scaled_dot_product_attention as the fused kernel CUDA picks for
    these inputs (what it saves: q, k, v, the output and a per-row
    log-sum-exp, never the [L, S] probabilities). Their meta kernels and
    autograd formulas are PyTorch's own."""

    def __init__(self, sdpa):
        super().__init__()
        self.sdpa = sdpa

    def __torch_function__(self, func, types, args=(), kwargs=None):
        kwargs = kwargs or {}
        if func is torch.nn.functional.dropout:
            x = args[0]
            p = kwargs.get("p", args[1] if len(args) > 1 else 0.5)
            train = kwargs.get("training", args[2] if len(args) > 2 else True)
            if train and 0 < p < 1 and x.numel() > 0 and \
                    not kwargs.get("inplace", args[3] if len(args) > 3
                                   else False):
                return torch.native_dropout(x, p, True)[0]
        elif self.sdpa and func is _SDPA:
            out = _fused_sdpa(*args, **kwargs)
            if out is not None:
                return out
        return func(*args, **kwargs)


def _fused_sdpa(q, k, v, attn_mask=None, dropout_p=0.0, is_causal=False,
                scale=None, enable_gqa=False):
    """scaled_dot_product_attention as PyTorch's CUDA dispatcher runs it on
    a current GPU (sm80+; aten/src/ATen/native/transformers/cuda/
    sdp_utils.cpp): flash for 16-bit inputs without a mask (grouped
    key/value heads too), else memory-efficient (any float dtype, a mask
    as an additive bias, equal heads); None where it falls back to the
    math path, which is what the CPU runs."""
    if not (q.is_meta and k.is_meta and v.is_meta) or q.dim() != 4 or \
            k.dim() != 4 or v.dim() != 4:
        return None
    E, Ev = q.shape[-1], v.shape[-1]
    L, S = q.shape[-2], k.shape[-2]
    hq, hk = q.shape[1], k.shape[1]
    if E != Ev or E > 256 or k.shape[1] != v.shape[1] or \
            not (q.dtype == k.dtype == v.dtype):
        return None
    if hq != hk and not (enable_gqa and hq % hk == 0):
        return None
    aten = torch.ops.aten
    half = q.dtype in (torch.float16, torch.bfloat16)
    if half and attn_mask is None and E % 8 == 0 and \
            not (is_causal and L != S):
        return aten._scaled_dot_product_flash_attention(
            q, k, v, dropout_p, is_causal, False, scale=scale)[0]
    if hq != hk or E % (8 if half else 4) or \
            q.dtype not in (torch.float16, torch.bfloat16, torch.float32):
        return None
    bias = None
    if attn_mask is not None:
        # a boolean mask becomes an additive bias of q's dtype; one whose
        # rows are not 8-element aligned is padded (sliced back), then
        # broadcast over batch and heads (sdp_utils' preprocess_mask)
        m = attn_mask
        if m.dtype == torch.bool:
            m = torch.zeros(m.shape, dtype=q.dtype, device=m.device) \
                .masked_fill_(m.logical_not(), float("-inf"))
        elif m.dtype != q.dtype:
            return None
        if m.shape[-1] % 8:
            m = torch.nn.functional.pad(m, (0, -m.shape[-1] % 8))[..., :S]
        bias = m.expand(q.shape[0], hq, L, S)
    grad = torch.is_grad_enabled() and (q.requires_grad or k.requires_grad
                                        or v.requires_grad)
    return aten._scaled_dot_product_efficient_attention(
        q, k, v, bias, grad, dropout_p, is_causal, scale=scale)[0]


class _nothing:
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


def _unpack(t):
    return t


def hand_over(handle, facts, master_weights=False, budget=None, target=None,
              forward_set=None):
    """Gives the step's facts to the library (nns_model_set_train_step);
    the next analysis counts them."""
    lib = _api.lib()
    f = facts
    nm, ne = len(f.moments), len(f.ev_bytes)
    saved = list(f.saved.values())
    ns = len(saved)
    names = _api.c_name

    def arr(ctype, values):
        return (ctype * max(1, len(values)))(*values)
    phase = _api.train_phases()
    step = _api.TrainStep()
    keep = [arr(ctypes.c_int, [phase[m[0]] for m in f.moments]),
            arr(ctypes.c_char_p, [names(m[1]) for m in f.moments]),
            arr(ctypes.c_char_p, [names(m[2]) for m in f.moments]),
            arr(ctypes.c_uint32, f.ev_moment),
            arr(ctypes.c_int64, f.ev_bytes),
            arr(ctypes.c_char_p, [names(x[0]) for x in saved]),
            arr(ctypes.c_char_p, [names(x[1]) for x in saved]),
            arr(ctypes.c_int64, [x[2] for x in saved]),
            arr(ctypes.c_int64, [x[3] for x in saved]),
            arr(ctypes.c_int64, [x[4] for x in saved])]
    step.moment_count, step.event_count, step.saved_count = nm, ne, ns
    (step.moment_phase, step.moment_label, step.moment_path,
     step.event_moment, step.event_bytes, step.saved_path, step.saved_region,
     step.saved_bytes, step.saved_made, step.saved_freed) = keep
    step.master_weights = int(bool(master_weights))
    step.budget_bytes = int(budget or 0)
    step.recorded_on = b"meta"
    step.target = target.encode() if target else None
    step.loss = f.loss.encode()
    step.forward_set = forward_set.encode() if forward_set else None
    err = _api.NnsError()
    _api.check(lib.nns_model_set_train_step(handle.ptr, ctypes.byref(step),
                                            ctypes.byref(err)),
               err, "nns_model_set_train_step")


_BUDGET_MAX = 2 ** 63 - 1  # the library's int64 budget_bytes


def _budget_bytes(budget, value):
    """The one range check of a budget: a whole number of bytes from 1 to
    2**63 - 1 (what the library's int64 holds: past it ctypes would wrap,
    2**64 reading as "no budget" and 2**64 + 5 as 5 bytes)."""
    if not 1 <= value <= _BUDGET_MAX:
        raise ValueError(f"budget {budget!r}: {value} bytes is not from 1 "
                         f"to 2**63 - 1 ({_BUDGET_MAX})")
    return value


def parse_budget(budget):
    """Bytes from an int, or a string such as "24GB", "24 GiB", "512MB";
    None for no budget."""
    if budget is None:
        return None
    if isinstance(budget, bool):
        raise TypeError(f"budget: bytes (an int) or a size such as '24GB', "
                        f"not {budget!r}")
    if isinstance(budget, int):
        return _budget_bytes(budget, budget)
    if isinstance(budget, float):
        if budget != budget or budget in (float("inf"), float("-inf")):
            raise ValueError(f"budget {budget!r}: not a number of bytes (from "
                             f"1 to 2**63 - 1)")
        if budget != int(budget):
            raise ValueError(f"budget {budget!r}: not a whole number of bytes")
        return _budget_bytes(budget, int(budget))
    import re
    m = re.fullmatch(r"\s*([0-9]*\.?[0-9]+)\s*([kKMGT]?)(i?)[bB]?\s*",
                     str(budget))
    if not m:
        raise ValueError(f"budget {budget!r}: give bytes or a size such as "
                         "'24GB' or '16GiB'")
    scale = (1024 if m.group(3) else 1000) ** \
        " KMGT".index(m.group(2).upper() or " ")
    from decimal import Decimal
    return _budget_bytes(budget, int(Decimal(m.group(1)) * scale))


def handover(module, args, kwargs, optimizer="adam", loss=None,
             master_weights=False, budget=None, target=None):
    """Runs the step now and returns what gives it to a library handle
    (torch_api.analyze_module's `step`)."""
    budget = parse_budget(budget)
    if target is not None and not isinstance(target, str):
        target = str(target)
    kwargs, forward_set = training_kwargs(module, kwargs)
    facts, _ = record_step(module, args, kwargs, optimizer=optimizer,
                           loss=loss, master_weights=master_weights,
                           device=target)
    return lambda handle: hand_over(handle, facts, master_weights, budget,
                                    target, forward_set)
