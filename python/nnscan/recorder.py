"""Recording a PyTorch forward pass as a graph, at the dispatch level.

One forward runs under a TorchDispatchMode, which sees every aten op the
model runs (functional calls, `x @ w` and parameters used directly
included), while process-wide module hooks
(torch.nn.modules.module.register_module_forward_pre_hook / _forward_hook,
removed afterwards) keep the stack of module paths it runs in. Each op goes
on the tape (tape.py) as an aten record, scoped by the innermost module,
which the library's aten table lowers (src/ops/aten*.c: the nodes of one
call are one kernel); the calls of a fused function are one kernel too
(fused.py).

Where it runs:
  - on meta tensors whenever possible: a model whose parameters are on the
    meta device runs as it is; any other model is shallow-copied with
    `copy.deepcopy` whose memo maps every parameter, buffer and tensor
    attribute to a meta tensor of the same shape, dtype and requires_grad
    (no weight is copied, the user's model is never touched, tied weights
    stay tied because the memo maps one tensor to one meta tensor);
    integer/boolean inputs and buffers, and what is computed from them,
    keep real values beside (shadow.py), so `.item()` on a mask works;
    autograd is off (no_grad), as for the eager forward the summary stands
    in for, unless a training step or backward.py needs its graph: the
    aten ops are the same either way (below autograd), and recording a
    network of a few hundred ops cost a tenth to a fifth more with it;
    under torch.autocast the casts are made as autocast would (autocast.py);
  - if the forward cannot run on meta (control flow on an activation's
    value, an op without a meta kernel), on the model itself on its own device, in
    eval mode, under no_grad, with a warning; every module's training flag
    and the RNG states are restored afterwards.
The recording always runs in eval mode (the inference graph).
"""
import contextlib
import copy
import copyreg
import dis
import functools
import gc
import inspect
import itertools
import os
import re
import threading
import types
import warnings
import weakref
from collections import OrderedDict

import torch

from . import _api, _args, aten_call, fused, module_replay, tape
from .autocast import Autocast, device_for as autocast_for
from .dispatch_mode import DispatchMode
from .fast_meta import FAST_META as _FAST_META, FAST_META_KW as _FAST_META_KW
from .graph import DTYPE_OF, Graph, Init, Value, onnx_dtype
from .layer_groups import attribute_names
from . import masks
from .masks import number_bytes
from .shadow import Shadows, TensorConstructors
from .structure import describe


class RecordError(RuntimeError):
    """The forward could not be recorded."""


def flatten(obj):
    """Tensors in a nested output (tuples, lists, dicts, ModelOutput), in
    order. Iterative, so any depth works (an output nested thousands of
    lists deep is not a RecursionError); a container met again inside
    itself is not walked twice."""
    out = []
    todo = [(obj, False)]   # (item, True: leaving a container)
    open_ids = set()        # containers being walked, for cycles
    while todo:
        x, leaving = todo.pop()
        if leaving:
            open_ids.discard(id(x))
            continue
        if isinstance(x, torch.Tensor):
            out.append(x)
            continue
        if isinstance(x, (list, tuple)):
            items = x
        elif isinstance(x, dict):
            items = list(x.values())
        elif hasattr(x, "to_tuple"):
            items = x.to_tuple()
        else:
            continue
        if id(x) in open_ids:
            continue
        open_ids.add(id(x))
        todo.append((x, True))
        todo.extend((v, False) for v in reversed(items))
    return out


def unwrap_compiled(model):
    """The module torch.compile wrapped (OptimizedModule._orig_mod), so a
    compiled model reports its own tree, without an OptimizedModule root or
    `_orig_mod.` prefixes; the recording runs its eager forward (the same
    ops). torch._dynamo is looked up, not imported: it is loaded whenever a
    compiled module exists."""
    import sys
    cls = getattr(sys.modules.get("torch._dynamo.eval_frame"),
                  "OptimizedModule", None)
    while cls is not None and isinstance(model, cls):
        model = model._orig_mod
    return model


# (int64 values, scalar) -> (ONNX dtype, dims, bytes) of Builder.const
_CONSTS = {}


def death_callback(owner, method, key):
    """A weak reference's callback that calls owner.method(key), `owner`
    reached through a weak reference of its own. A lambda over the owner
    instead would make each such reference, kept by the owner, a cycle
    through it: the owner (a recording, with its graph) would then wait
    for the cyclic collector instead of going with its last reference."""
    return functools.partial(_call_if_alive, weakref.ref(owner), method, key)


def _call_if_alive(owner_ref, method, key, _ref):
    owner = owner_ref()
    if owner is not None:
        getattr(owner, method)(key)


class Builder:
    """Names tensors and adds nodes and aten records (tape.py)."""

    # The kind of a tensor from outside read first by a call the library
    # numbers (tape._mark): a constant, "c", named "\5c" K for the library
    # to number; a backward graph's builder reads forward tensors as
    # inputs, "i"
    FIRST_READ = "c"

    def __init__(self, graph, params):
        self.g = graph
        self.names = {}      # id(tensor) -> value name
        self.keep = []       # every tensor seen, so ids stay unique
        # weak: instead of keeping them, forget a tensor's id when it dies
        # (a training step sharing the forward sees PyTorch's frees)
        self.weak = False
        self._refs = {}      # id(tensor) -> weak reference, when weak
        self.params = params  # id(tensor) -> (name, kind)
        self.pending_t = {}  # id(t(W)) -> W, for Gemm's transB
        self.scope = ""
        self.source = ""
        self.shape_of = {}   # value name -> recorded dims (a tuple)
        self.scope_of = {}   # id(tensor) -> module path it was made in
        self.params_by_id = {}  # id(tensor) -> parameter/buffer tensor
        self.shadows = None  # shadow.Shadows on the meta path
        self.autocast = None  # autocast.Autocast on the meta path, if on
        # autograd node -> module path, for backward.py: the outputs of the
        # last op get their grad_fn once autograd has wrapped them, i.e. by
        # the next dispatch (an in-place op may replace it later)
        self.node_scope = {}
        self.track_grad_fns = True  # False: node_scope stays empty
        self._fresh = []
        self.step_mode = None  # a training step's mode sharing the forward
        self.uncounted = {}  # aten op -> calls with no entry
        # (value name, tensor with a shadow) of calls replay.py replayed
        self.replayed_tracked = []
        # aten op -> _entry(): its base name, table form, source, tape
        # form, ...
        self.entries = {}

    def hold(self, t):
        """Keeps t's id t's own while the recording uses it: by holding t,
        or, when weak, by forgetting the id where t dies."""
        if not self.weak:
            self.keep.append(t)
            return
        i = id(t)
        if i not in self._refs:
            self._refs[i] = weakref.ref(t, death_callback(self, "_forget",
                                                          i))

    def _forget(self, i):
        self._refs.pop(i, None)
        self.names.pop(i, None)
        self.pending_t.pop(i, None)
        self.scope_of.pop(i, None)
        if i in self.params and i not in self.params_by_id:
            del self.params[i]  # a view standing for a parameter

    # ---- names ----
    @staticmethod
    def is_tensor(x):
        return isinstance(x, torch.Tensor)

    @staticmethod
    def onnx_dtype(dt):
        return onnx_dtype(dt)

    def name(self, t):
        return self.names[id(t)]

    def value_of(self, t):
        """The real value of a recorded tensor: a CPU tensor, or None where
        only its shape is known (a meta tensor without a shadow; see
        shadow.py). On a real device, the tensor itself."""
        if not isinstance(t, torch.Tensor):
            return None
        if not t.is_meta:
            return t
        return self.shadows.value(t) if self.shadows is not None else None

    def _declare(self, t, name):
        i = id(t)
        if self.weak:
            self.hold(t)
        else:
            self.keep.append(t)
        self.names[i] = name
        self.scope_of[i] = self.scope
        if self.track_grad_fns:
            self._fresh.append((t, self.scope))
        shape = tuple(t.shape)  # torch.Size holds ints
        dt = t.dtype
        # (Graph.add_value, without its copy of the dims through int())
        self.g.values[name] = Value(DTYPE_OF.get(dt) or onnx_dtype(dt), shape)
        self.shape_of[name] = shape
        return name

    def note_grad_fns(self):
        for t, scope in self._fresh:
            fn = getattr(t, "grad_fn", None)
            if fn is not None and id(fn) not in self.node_scope:
                self.node_scope[id(fn)] = (fn, scope)
        self._fresh = []

    def inp(self, t):
        """The value name of an op's input tensor."""
        n = self.names.get(id(t))
        if n is not None:
            return n
        w = self.pending_t.get(id(t))
        if w is not None:  # a transposed weight used other than by a Gemm
            out = self._declare(t, self.g.new_name())
            self.node_raw("Transpose", [self.inp(w)], [out],
                          {"perm": [1, 0]})
            return out
        p = self.params.get(id(t))
        if p is not None:
            name, kind = p
            self.hold(t)
            self.names[id(t)] = name
            # (Graph.add_init without its copy of the dims through int():
            # torch.Size holds ints; read for every parameter, first)
            g = self.g
            dims = tuple(t.shape)
            dt = t.dtype
            dt = DTYPE_OF.get(dt) or onnx_dtype(dt)
            g.inits[name] = Init(dt, dims, None)
            g.values[name] = Value(dt, dims)
            if kind:
                g.param_kinds[name] = kind
            self.shape_of[name] = dims
            return name
        # A tensor from outside (a plain attribute, a global): a constant.
        name = self.g.new_name("const")
        self._declare(t, name)
        self.g.add_init(name, onnx_dtype(t.dtype), list(t.shape),
                        kind="constant")
        return name

    def gemm_rhs(self, t):
        """(name, transposed) for a Gemm's B: t(W) folds into transB."""
        w = self.pending_t.get(id(t))
        if w is not None and id(t) not in self.names:
            return self.inp(w), True
        return self.inp(t), False

    def transposed(self, w):
        """A 2-D weight, transposed by a node."""
        t = w.t()
        out = self._declare(t, self.g.new_name())
        self.node_raw("Transpose", [self.inp(w)], [out], {"perm": [1, 0]})
        return out

    def const(self, values, scalar=False):
        """A small int64 constant that a shape rule reads."""
        vals = (int(values),) if scalar else tuple(map(int, values))
        g = self.g
        name = g.new_name("c")
        got = _CONSTS.get((vals, scalar))
        if got is None:
            got = (onnx_dtype(torch.int64), () if scalar else (len(vals),),
                   number_bytes(list(vals), torch.int64))
            if len(_CONSTS) < 4096:
                _CONSTS[(vals, scalar)] = got
        dt, dims, data = got
        # (Graph.add_init, the dims already a tuple of ints)
        g.inits[name] = Init(dt, dims, data)
        g.values[name] = Value(dt, dims)
        g.param_kinds[name] = "constant"
        return name

    def scalar(self, v, like):
        """A scalar constant of `like`'s dtype (an op's number argument)."""
        name = self.g.new_name("c")
        tdt = like.dtype if isinstance(like, torch.Tensor) else torch.float32
        try:  # the number as an element of tdt, made by PyTorch itself
            if isinstance(v, torch.Tensor):
                v = v.item()
            data = number_bytes(v, tdt)
        except (TypeError, ValueError, RuntimeError, OverflowError,
                NotImplementedError):
            data = None  # not a number of tdt (-inf for an int): dims alone
        self.g.add_init(name, onnx_dtype(tdt), [], data=data, kind="constant")
        return name

    def filler(self, dims, like):
        """A constant of ones/zeros where PyTorch passed None (affine=False)."""
        dims = [dims] if isinstance(dims, int) else list(dims)
        name = self.g.new_name("c")
        self.g.add_init(name, onnx_dtype(like.dtype), dims, kind="constant")
        return name

    def fresh(self, dtype, dims):
        return torch.empty(dims, dtype=dtype, device="meta")

    def data_shaped(self, t):
        """Declares recorded tensor t's shape (value_info): a dim its op's
        rule cannot know from shapes (NonZero's count, data) then takes the
        value PyTorch's run produced (NNS_INFER_FALLBACK_DECLARED)."""
        self.g.declared.add(self.name(t))

    def fresh_like(self, t):
        return self.fresh(t.dtype, list(t.shape))

    def alias(self, out, src):
        if isinstance(src, torch.Tensor) and isinstance(out, torch.Tensor):
            self.hold(out)
            if id(src) in self.pending_t and id(src) not in self.names:
                self.pending_t[id(out)] = self.pending_t[id(src)]
            elif id(src) in self.params and id(src) not in self.names:
                self.params[id(out)] = self.params[id(src)]
            else:
                self.names[id(out)] = self.inp(src)

    def node_raw(self, op, inputs, outputs, attrs=None, domain=""):
        self.g.add_node(op, inputs, outputs, attrs, self.scope, domain,
                        self.source)

    def node(self, op, inputs, outputs, attrs=None, domain=""):
        g = self.g
        outs = [o if isinstance(o, str) else self._declare(o, g.new_name())
                for o in outputs]
        g.add_node(op, inputs, outs, attrs, self.scope, domain, self.source)

    def unmapped(self, name, args, out):
        """An op with no entry: a node the library lists as uncounted, its
        outputs shaped as PyTorch made them."""
        ins = [self.inp(a) for a in _tensor_args(args)]
        outs = [o for o in aten_call.outputs(out)
                if isinstance(o, torch.Tensor)]
        # from complex values in real form, a complex output is its real
        # form too (tape.py: complex values)
        paired = _any_real_formed(self, args)
        reals = [torch.view_as_real(o) if paired and o.is_complex() else o
                 for o in outs]
        self.node(name, ins, reals, domain="pytorch.aten")
        for o, r in zip(outs, reals):
            self.g.declared.add(self.name(r))
            if r is not o:
                self.alias(o, r)
        self.uncounted[name] = self.uncounted.get(name, 0) + 1


def _tensor_args(args):
    out = []
    for a in args:
        if isinstance(a, torch.Tensor):
            out.append(a)
        elif isinstance(a, (list, tuple)):
            out.extend(x for x in a if isinstance(x, torch.Tensor))
    return out


class _Mode(DispatchMode):
    """Records every aten call. The calls are queued and recorded in a
    batch (before any op that mutates a tensor, and when the mode exits):
    alternating PyTorch's dispatch and the recorder's work op by op cost
    about a tenth more time than the same work done in two runs. Flushing
    before a mutating op means every call is still recorded with the
    tensors as they were right after their op ran. With autograd nodes to
    note (backward.py) each call is recorded at once."""

    def __init__(self, builder):
        super().__init__()
        self.b = builder
        # at once with autograd nodes to note, or autocast's casts (recorded
        # as they are made, so the calls around them must be too)
        self.pending = None if builder.track_grad_fns \
            or builder.autocast is not None or builder.weak else []
        # aten op -> (whether it may mutate a tensor, its fast_meta kernel
        # or None, its kernel of calls with keyword arguments or None, its
        # base name): looked up once per op and recording
        self.ops = {}

    def _op(self, func):
        schema = getattr(func, "_schema", None)
        e = self.ops[func] = (schema is None or schema.is_mutable,
                              _FAST_META.get(func), _FAST_META_KW.get(func),
                              aten_call.base_name(func))
        return e

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        b = self.b
        if b._fresh:
            b.note_grad_fns()
        step = b.step_mode
        if step is not None and step.fresh:
            step.note_nodes()
        mut, fast, fast_kw, base = self.ops.get(func) or self._op(func)
        pending = self.pending
        if pending and mut:
            self.flush()
            pending = self.pending
        shadows = b.shadows
        if kwargs is None:
            kwargs = {}
        if b.autocast is not None:
            args, kwargs = b.autocast.cast_inputs(base, args, kwargs)
        try:
            if kwargs:
                out = fast_kw(args, kwargs) if fast_kw is not None else None
            else:
                out = fast(args) if fast is not None else None
            if out is None:
                out = func(*args, **kwargs) if kwargs else func(*args)
        except Exception as e:  # noqa: BLE001 - re-raised unless answered
            out = shadows.answer(func, args, kwargs) \
                if shadows is not None else None
            if out is None:
                out = _with_cpu_scalars_on_meta(func, args, kwargs)
            if out is None:
                shim = META_SHIMS.get(base)
                if shim is None or not isinstance(
                        e, (NotImplementedError, RuntimeError)) \
                        or not _all_meta(args):
                    raise
                out = shim(*args, **kwargs)
        else:
            if shadows is not None:
                out = shadows.follow(func, args, kwargs, out)
        if step is not None:
            out = step.device_out(func, args, out)
            step.observe(out)
        if pending is None:
            record(b, func, args, kwargs, out)
        else:
            pending.append((func, args, kwargs, out, b.scope))
        return out

    def flush(self):
        """Records the queued calls, each in the module it ran in."""
        b, calls, scope = self.b, self.pending, self.b.scope
        self.pending = []
        try:
            for func, args, kwargs, out, b.scope in calls:
                record(b, func, args, kwargs, out)
        finally:
            b.scope = scope

    def __exit__(self, exc_type, exc_val, exc_tb):
        out = super().__exit__(exc_type, exc_val, exc_tb)
        if exc_type is None and self.pending:
            self.flush()
        return out


def _train(model, mode, walk=None):
    """model.train(mode); where no module's class has its own train(), each
    module's flag is set directly, without Module.train's recursion and
    Module.__setattr__ (for hundreds of modules, a tenth of a small
    model's recording). walk: the model's (walk_once)."""
    mods = [m for _, m in walk] if walk is not None else list(model.modules())
    base = torch.nn.Module.train
    if not isinstance(mode, bool) or \
            any(type(m).train is not base for m in mods):
        model.train(mode)
        return
    for m in mods:
        object.__setattr__(m, "training", mode)


def _any_real_formed(b, args):
    """Whether a tensor among args is complex and its graph value its real
    form (tape.real_formed), without a list of them: it runs for nearly
    every op, and complex tensors are rare."""
    for a in args:
        if isinstance(a, torch.Tensor):
            if a.is_complex() and tape.real_formed(b, a):
                return True
        elif isinstance(a, (list, tuple)):
            for t in a:
                if isinstance(t, torch.Tensor) and t.is_complex() \
                        and tape.real_formed(b, t):
                    return True
    return False


def _with_cpu_scalars_on_meta(func, args, kwargs):
    """func's result with each 0-dimensional CPU tensor among its arguments
    on meta, when some other argument is on meta; None otherwise. PyTorch
    lets a CPU scalar meet a tensor of any device (`x.masked_fill(m,
    torch.tensor(-1e4))`, SEW-D's attention), but meta kernels refuse it.
    The recording still sees the scalar as it was: a constant."""
    flat = list(args) + list(kwargs.values())
    if not any(isinstance(a, torch.Tensor) and a.is_meta for a in flat):
        return None

    def cpu_scalar(a):
        return isinstance(a, torch.Tensor) and a.dim() == 0 \
            and a.device.type == "cpu"
    if not any(map(cpu_scalar, flat)):
        return None

    def on_meta(a):
        return _empty_like(a) if cpu_scalar(a) else a
    return func(*map(on_meta, args),
                **{k: on_meta(v) for k, v in kwargs.items()})


def _all_meta(args):
    ts = _tensor_args(args)
    return bool(ts) and all(t.is_meta for t in ts)


def _empty_like(t):
    return torch.empty(t.shape, dtype=t.dtype, device="meta")


def _conv_backward_meta(grad_out, x, w, bias_sizes, *rest):
    """torch 1.13 has no meta kernel for convolution_backward: its outputs
    are shaped like the input, the weight and the bias."""
    mask = rest[-1]
    return (_empty_like(x) if mask[0] else None,
            _empty_like(w) if mask[1] else None,
            torch.empty(list(bias_sizes or [w.shape[0]]), dtype=w.dtype,
                        device="meta") if mask[2] else None)


def _grouped_mm_meta(a, b, offs=None, bias=None, out_dtype=None):
    """torch 2.x's meta kernel for _grouped_mm takes only 16-bit and fp8
    matrices (the CUDA kernel's rule); the CPU kernel, and so a float32
    mixture-of-experts model, also runs float32: the output's shape."""
    if a.dim() == 2 and b.dim() == 2:
        dims = [offs.shape[0], a.shape[0], b.shape[1]]
    elif a.dim() == 2:
        dims = [a.shape[0], b.shape[-1]]
    elif b.dim() == 2:
        dims = [a.shape[1], b.shape[1]]
    else:
        dims = [a.shape[0], a.shape[1], b.shape[-1]]
    return torch.empty(dims, dtype=out_dtype or a.dtype, device="meta")


# Output shapes for the few kernels torch cannot run on meta tensors
# (shapes only; the counting is the library's).
META_SHIMS = {
    "convolution_backward": _conv_backward_meta,
    # torch 1.13: the input's gradient, shaped like the input
    "_adaptive_avg_pool2d_backward": lambda grad, x: _empty_like(x),
    "_adaptive_avg_pool3d_backward": lambda grad, x: _empty_like(x),
    "_grouped_mm": _grouped_mm_meta,
}


def _entry(b, func):
    """(base name, the table's form of its op or None, source, tape form,
    whether complex values in real form keep its calls from the library's
    lowering (an op the table lowers that takes none: _api.ATEN_COMPLEX),
    whether a weight's t() may fold into a Gemm) of an aten op: looked up
    once per op and recording (the table may change between recordings,
    never during one)."""
    e = b.entries.get(func)
    if e is None:
        base = aten_call.base_name(func)
        entry = _api.ATEN_OPS.get(base)
        kind = entry[0] if entry is not None else None
        e = b.entries[func] = (
            base, kind, str(func),
            tape.form(func, entry)
            if kind not in (None, "alias", "create") else None,
            kind not in (None, "alias") and base not in _api.ATEN_COMPLEX,
            base in ("t", "transpose"))
    return e


def record(b, func, args, kwargs, out):
    """Adds one aten call: an alias or a constant where the library's table
    says the op is one (detach, zeros), an aten record the library lowers
    (tape.py), or, for an op the table has no entry for (or one it
    declines), a node it lists as uncounted."""
    if not isinstance(out, torch.Tensor) and not any(
            isinstance(o, torch.Tensor) for o in aten_call.outputs(out)):
        return  # sizes, scalars, nothing to name
    base, kind, b.source, on_tape, own, folds = \
        b.entries.get(func) or _entry(b, func)
    if folds and len(args[0].shape) == 2 \
            and id(args[0]) in b.params and id(args[0]) not in b.pending_t:
        b.hold(out)
        b.pending_t[id(out)] = args[0]  # a weight's t(): Gemm's transB
        return
    if own and _any_real_formed(b, args):
        kind = None  # complex values in real form, which the op takes not
    if kind == "alias":
        b.alias(out, args[0])
    elif kind == "create":
        for o in aten_call.outputs(out):
            if isinstance(o, torch.Tensor):
                b.names.pop(id(o), None)
                n = b.g.new_name("const")
                b._declare(o, n)
                b.g.add_init(n, onnx_dtype(o.dtype), list(o.shape),
                             kind="constant")
    elif kind is not None and tape.record(b, on_tape, base, args, kwargs,
                                          out):
        pass  # an aten record: the library lowers it
    elif base == "_to_copy" and _kept_dtype(args, out):
        # a copy to its own dtype (another device: a CPU scalar moved to
        # meta, a sliding window's size) names its input again, as the
        # table's to_copy aliases it (src/ops/aten.c): the recorder's alias,
        # no node, so a layer's template reads no tensor from before it by
        # a name of the tape's (module_replay.py)
        b.alias(out, args[0])
    else:
        b.unmapped(base, args, out)


def _kept_dtype(args, out):
    """Whether a _to_copy keeps its input's dtype (a complex one's too: the
    value in real form, or complex-typed, named again)."""
    x = args[0] if args else None
    return isinstance(out, torch.Tensor) and isinstance(x, torch.Tensor) \
        and out.dtype == x.dtype


_thread_id = threading.get_ident
# PyTorch 2.x's global forward hook takes `with_kwargs`; 1.13's does not
# (there a module's keyword arguments have no shapes in its input_shapes)
_GLOBAL_HOOKS_TAKE_KWARGS = "with_kwargs" in inspect.signature(
    torch.nn.modules.module.register_module_forward_hook).parameters
_NO_OUTPUT = object()  # ModuleStack._post called without keyword arguments


def _shapes(x):
    """The shapes of the tensors in a module's inputs or output (flatten's
    order); a lone tensor, the usual case, without flatten's walk."""
    if isinstance(x, torch.Tensor):
        return [list(x.shape)]
    if type(x) is tuple and len(x) == 1 and isinstance(x[0], torch.Tensor):
        return [list(x[0].shape)]
    return [list(t.shape) for t in flatten(x)]


class ModuleStack:
    """Process-wide forward hooks that keep the module path stack.

    The hooks see every module call in the process; only calls made on the
    thread that records count (the dispatch mode is per thread too), so
    recordings in several threads at once each get their own table."""

    def __init__(self, model, builder, shapes=True, custom_ops=None,
                 modules=None):
        self.b = builder
        self.custom_ops = dict(custom_ops or {})
        self.custom = {}  # path -> MACs from the user's custom_ops function
        self.path_of = {}
        for name, m in modules or model.named_modules():
            self.path_of.setdefault(id(m), name)
        self.stack = []
        self.calls = {}
        self.outputs = {}  # path -> what each call returned (structure)
        self.io = {}  # path -> (input shapes of the first call, output
        #               shapes of every call in order)
        self.shapes = shapes
        self._described = {}  # (dtype, shape) -> a tensor's description
        self.handles = []
        self.thread = None  # the recording thread's id, while entered
        # what the hooks add, noted while a layer's call is watched
        # (module_replay.py: a replay adds the same)
        self.log = None
        # id(module) -> its path, from its first call's pre-hook to its
        # post-hook (_post)
        self._first_call = {}

    def _pre(self, mod, inputs):
        if _thread_id() != self.thread:
            return  # another thread's module call
        p = self.path_of.get(id(mod))
        log = self.log
        if p is None:
            # a module built inside forward (or a torch.compile wrapper
            # recorded in place): its caller's scope, and none of the
            # caller's boundary (_post)
            p = self.stack[-1] if self.stack else ""
            self.stack.append(p)
            self.b.scope = p
            return
        self.calls[p] = self.calls.get(p, 0) + 1
        if log is not None:
            log.append(("call", p))
        self.stack.append(p)
        self.b.scope = p
        if self.shapes and p not in self.io:
            self.io[p] = (_shapes(inputs), [])
            # its keyword arguments' shapes follow at _post, where the hook
            # is given them (the list is the one logged: a replay's copy
            # of the call gets them too)
            if _GLOBAL_HOOKS_TAKE_KWARGS:
                self._first_call[id(mod)] = p
            if log is not None:
                log.append(("io", p, self.io[p][0]))

    def _post(self, mod, inputs, output, kw_output=_NO_OUTPUT):
        """The module's call done. On PyTorch 2.x, where a global forward
        hook can be given the call's keyword arguments (the pre-hook
        cannot), it is (mod, args, kwargs, output): a module's first
        call's input shapes are its positional tensors', then its keyword
        tensors' (transformers calls attention modules with
        `hidden_states=...` alone)."""
        if _thread_id() != self.thread:
            return
        if kw_output is not _NO_OUTPUT:
            kwargs, output = output, kw_output
            p = self._first_call.pop(id(mod), None)
            if p is not None and kwargs:
                self.io[p][0].extend(_shapes(kwargs))
        p = self.stack.pop() if self.stack else ""
        if id(mod) not in self.path_of:
            # (_pre: a module of no path) its output is not its caller's
            self.b.scope = self.stack[-1] if self.stack else ""
            return
        if self.custom_ops:
            for cls, fn in self.custom_ops.items():
                if isinstance(mod, cls):
                    self.custom[p] = self.custom.get(p, 0) + \
                        _args.custom_macs(cls, fn(mod, inputs, output))
                    break
        log = self.log
        if self.shapes and p in self.io:
            shapes = _shapes(output)
            self.io[p][1].extend(shapes)
            if log is not None:
                log.append(("io_out", p, shapes))
        # its structure, per call (structure.py)
        if isinstance(output, torch.Tensor):
            # one description per (dtype, shape): a module called N
            # times with the same output describes it once
            key = (output.dtype, output.shape)
            d = self._described.get(key)
            if d is None:
                d = self._described[key] = describe(output)
        else:
            d = describe(output)
        self.outputs.setdefault(p, []).append(d)
        if log is not None:
            log.append(("out", p, d))
        self.b.scope = self.stack[-1] if self.stack else ""

    def __enter__(self):
        mm = torch.nn.modules.module
        self.thread = threading.get_ident()
        post = mm.register_module_forward_hook(self._post, with_kwargs=True) \
            if _GLOBAL_HOOKS_TAKE_KWARGS else \
            mm.register_module_forward_hook(self._post)
        self.handles = [mm.register_module_forward_pre_hook(self._pre), post]
        return self

    def __exit__(self, *exc):
        for h in self.handles:
            h.remove()
        self.handles = []


def param_table(model, tree=None):
    """id(tensor) -> (canonical name, kind) for parameters and buffers."""
    tree = tree or _Tree(model)
    out = {}
    for name, p in tree.params:
        out.setdefault(id(p), (name, "trainable" if p.requires_grad else "frozen"))
    for name, t in tree.buffers:
        out.setdefault(id(t), (name, "buffer"))
    return out


def module_tensors(tree, params):
    """(module path, tensor identity, element bits, dims, kind) for every
    parameter and buffer each module registers itself, used or not, tied
    ones under each module (nns_model_add_module_tensor): what
    torchscan and parameters()/buffers() count, summed by the library.
    params: param_table's id(tensor) -> (canonical name, kind)."""
    out = []
    for prefix, m in tree.modules:
        for store, buffer in ((m._parameters, False), (m._buffers, True)):
            for k, v in store.items():
                if v is None:
                    continue
                name = prefix + ("." if prefix else "") + k
                ident = params.get(id(v), (name,))[0]
                kind = "buffer" if buffer else \
                    "trainable" if v.requires_grad else "frozen"
                out.append((prefix, ident, v.element_size() * 8,
                            tuple(v.shape), kind))
    return out


class _Tree:
    """A model's named_modules(), named_parameters() and named_buffers() as
    lists, from one walk of the modules (a recording needs each several
    times; each of PyTorch's walks costs about as much as the whole
    module tree has modules, in nested generators). A model whose class
    defines its own of these is asked through them."""

    def __init__(self, model, walk=None):
        # walk: the model's walk_once(), which is named_modules(model)
        self.modules = walk if walk is not None else named_modules(model)
        cls, base = type(model), torch.nn.Module
        if cls.named_parameters is not base.named_parameters or \
                cls.named_buffers is not base.named_buffers:
            self.params = list(model.named_parameters())
            self.buffers = list(model.named_buffers())
            return
        # as Module._named_members gives them: each tensor once, at its
        # first path, None entries skipped
        self.params, self.buffers = [], []
        for out, store in ((self.params, "_parameters"),
                           (self.buffers, "_buffers")):
            seen = set()
            for prefix, m in self.modules:
                for k, v in getattr(m, store).items():
                    if v is None or id(v) in seen:
                        continue
                    seen.add(id(v))
                    out.append((prefix + ("." if prefix else "") + k, v))


def meta_copy(model, shadows=None):
    """The model with every tensor on meta; None if it cannot be copied.
    With `shadows` (shadow.Shadows), the integer and boolean buffers and
    tensor attributes keep their values as shadows."""
    return _meta_copy_walked(model, shadows, None)[0]


def walk_once(model):
    """list(model.named_modules()), to stand for every walk of the model's
    modules a recording makes (modules(), named_modules(model), the meta
    copy's, mapped: _meta_copy_walked); None where one walk cannot: the
    model's class defines modules() itself, or a submodule is
    torch.compile'd (named_modules(model) names it as the module it
    wraps, and the copy unwraps it). Each walk costs about a microsecond
    a module in nested generators, and a recording made six."""
    if type(model).modules is not torch.nn.Module.modules:
        return None
    out = list(model.named_modules())
    return None if _any_compiled(out) else out


def _compiled_class():
    import sys
    return getattr(sys.modules.get("torch._dynamo.eval_frame"),
                   "OptimizedModule", None)


def _any_compiled(named):
    """Whether a torch.compile wrapper is among `named`'s modules."""
    cls = _compiled_class()
    return cls is not None and any(isinstance(m, cls) for _, m in named)


# The meta copy's memo holds this key where some module of the model was
# copied by copy.deepcopy, as its class asks (_deepcopy_module): what that
# made of the module's submodules is the class's affair, so the copy's
# modules are walked again.
_DEEPCOPIED = "nnscan: a module deep-copied as its class asks"


def _meta_copy_walked(model, shadows, walk):
    """(meta_copy(model, shadows), the copy's walk); walk: the model's
    (walk_once), the copy's then its modules' copies under the same
    names, or None (then None too)."""
    memo = {}
    hooked = False  # some module has hooks (the copy's are filtered below)
    for m in (m for _, m in walk) if walk is not None else model.modules():
        d = vars(m)
        # The user's own hooks are not copied (the copy drops them below).
        for attr in _MODULE_HOOK_DICTS:
            hooks = d.get(attr)
            if hooks:
                hooked = True
                for h in hooks.values():
                    if not _model_own(h):
                        memo[id(h)] = h
        for k in attribute_names(d):  # tensor attributes
            v = d[k]
            if isinstance(v, torch.Tensor) and id(v) not in memo:
                meta = memo[id(v)] = _to_meta(v)
                if shadows is not None and \
                        not isinstance(v, torch.nn.Parameter):
                    shadows.adopt(meta, v)
        params, buffers = d.get("_parameters"), d.get("_buffers")
        for v in params.values() if params else ():
            if v is not None and id(v) not in memo:
                memo[id(v)] = _to_meta(v)
        for v in buffers.values() if buffers else ():
            if v is not None and id(v) not in memo:
                meta = memo[id(v)] = _to_meta(v)
                if shadows is not None:
                    shadows.adopt(meta, v)
    try:
        out = _deepcopy_module(model, memo)
    except Exception as e:  # noqa: BLE001 - any failure means: no copy
        warnings.warn(f"nnscan: cannot copy the model to the meta device "
                      f"({type(e).__name__}: {e}); running it on its own device")
        return None, None
    copied = None
    if walk is not None and _DEEPCOPIED not in memo:
        copied = [(path, memo[id(m)]) for path, m in walk]
    for _, m in (copied or out.named_modules()) if hooked else ():
        for attr in _MODULE_HOOK_DICTS:
            d = vars(m).get(attr)
            if d:
                vars(m)[attr] = _model_hooks_only(d)
    if walk is None:  # (walk_once: no compiled submodule where there is one)
        _unwrap_compiled_children(out)
    return out, copied


def named_modules(model):
    """model.named_modules(), each torch.compile'd submodule named as the
    module it wraps: its OptimizedModule left out (a call of it then runs
    in its caller's scope, ModuleStack._pre) and no `_orig_mod` segment in
    the paths under it. The meta copy unwraps such children
    (_unwrap_compiled_children); a model recorded in place (built on meta,
    or one that cannot be copied) is never changed, so its names are."""
    out = list(model.named_modules())
    if not _any_compiled(out):
        return out
    cls = _compiled_class()
    # named_modules' walk (pre-order, each module once), with the wrapped
    # module put in its wrapper's place
    out, seen, todo = [], set(), [("", model)]
    while todo:
        path, m = todo.pop()
        while isinstance(m, cls):
            m = m._orig_mod
        if id(m) in seen:
            continue
        seen.add(id(m))
        out.append((path, m))
        todo.extend((path + ("." if path else "") + k, c)
                    for k, c in reversed(m._modules.items())
                    if c is not None)
    return out


def _unwrap_compiled_children(model):
    """Each torch.compile'd submodule of the copy replaced by the module it
    wraps, as unwrap_compiled does for the root: the tree and the
    parameters are named as the module's own (`a`, `a.weight`, not
    `a._orig_mod`), and the recording runs its eager forward, the same
    ops (Dynamo runs compiled code eagerly under a dispatch mode anyway)."""
    cls = _compiled_class()
    if cls is None:
        return
    for m in model.modules():
        kids = m._modules
        for k, c in kids.items():
            if isinstance(c, cls):
                kids[k] = unwrap_compiled(c)


# The module attributes that hold forward and backward hooks, hook id ->
# callable (the with_kwargs / always_called flags are looked up by id).
_MODULE_HOOK_DICTS = ("_forward_hooks", "_forward_pre_hooks",
                      "_backward_hooks", "_backward_pre_hooks")


# A module's dicts whose contents _restored puts back: its tensors and
# submodules, and its hooks with their flags (keyed by hook id).
_RESTORED_STORES = ("_parameters", "_buffers", "_modules") + \
    _MODULE_HOOK_DICTS + ("_forward_hooks_with_kwargs",
                          "_forward_hooks_always_called",
                          "_forward_pre_hooks_with_kwargs")

# The libraries whose module hooks are part of what a forward computes.
_MODEL_HOOK_PACKAGES = frozenset(["torch", "transformers"])


def _model_own(hook):
    """Whether a module hook belongs to the model: PyTorch's (lazy
    modules' parameter inference, weight_norm, pruning masks) or
    transformers' (the output-capturing hooks transformers 5 installs on
    every layer, through which a backbone or a vision tower asked for its
    hidden states gets them), not the user's (or an nnscan Inspector's),
    which do not run while nnscan records."""
    f = getattr(hook, "func", hook)  # a functools.partial
    mod = getattr(f, "__module__", None) or type(f).__module__ or ""
    return mod.split(".")[0] in _MODEL_HOOK_PACKAGES


def _model_hooks_only(d):
    out = type(d)()
    for k, h in d.items():
        if _model_own(h):
            out[k] = h
    return out


# Values copy.deepcopy returns as they are.
_ATOMIC = frozenset([type(None), int, float, bool, complex, str, bytes, type,
                     torch.dtype, types.FunctionType, types.BuiltinFunctionType,
                     types.MethodType, type(Ellipsis), range])


def _deepcopy_value(v, memo):
    """copy.deepcopy(v, memo), without its machinery for the values a
    module's state is mostly made of: atomic values, tuples and sets of
    them, empty containers (the hook dictionaries)."""
    t = type(v)
    if t in _ATOMIC:
        return v
    if t is tuple and _all_atomic(v):
        return v
    if t in _EMPTY_COPIES and not v:
        return t()
    if t is set and _all_atomic(v):
        return set(v)
    return copy.deepcopy(v, memo)


_EMPTY_COPIES = frozenset([dict, OrderedDict, list, set])


def _all_atomic(items):
    return all(map(_ATOMIC.__contains__, map(type, items)))


def _deepcopy_module(m, memo):
    """copy.deepcopy(m, memo) of a module tree, made module by module as
    deepcopy makes it (the class's __reduce_ex__ state, copied, given to
    a new instance's __setstate__) but with the tensors of _parameters and
    _buffers taken from the memo and submodules copied the same way: a
    plain deepcopy spends most of its time in the protocol for each of a
    module's many small containers. A module whose class customises
    copying is deep-copied as it asks."""
    if id(m) in memo:
        return memo[id(m)]
    cls = type(m)
    plain = _PLAIN_COPY.get(cls)
    if plain is None:
        plain = _plain_copy(cls)
        if len(_PLAIN_COPY) < 4096:  # torch.fx makes a class per module
            _PLAIN_COPY[cls] = plain
    state = None
    # (the instance's own dict looked at, not getattr: Module.__getattr__'s
    # miss path costs more than the rest of the copy)
    if "__deepcopy__" not in vars(m):
        if plain:
            # what object.__reduce_ex__(4) would give as the state, without
            # the rest of its tuple (checked once per class: _plain_copy)
            state = m.__getstate__()
        elif getattr(cls, "__deepcopy__", None) is None \
                and copyreg.dispatch_table.get(cls) is None:
            rv = m.__reduce_ex__(4)
            if isinstance(rv, tuple) and len(rv) == 5 \
                    and rv[0] is copyreg.__newobj__ and rv[1] == (cls,) \
                    and rv[3] is None and rv[4] is None \
                    and hasattr(cls, "__setstate__"):
                state = rv[2]
    if type(state) is not dict:
        memo[_DEEPCOPIED] = True
        return copy.deepcopy(m, memo)
    y = cls.__new__(cls)
    memo[id(m)] = y
    memo.setdefault(id(memo), []).append(m)  # deepcopy's keep-alive
    state = dict(state)
    for k, v in state.items():  # values replaced in place; atomic ones kept
        t = type(v)
        if t in _ATOMIC:
            continue
        if t in _EMPTY_COPIES and not v:
            state[k] = t()  # a hook dictionary, mostly: _deepcopy_value's
        elif k in ("_parameters", "_buffers") and t in (dict, OrderedDict):
            state[k] = t(
                (n, None if x is None else memo[id(x)] if id(x) in memo
                 else copy.deepcopy(x, memo)) for n, x in v.items())
        elif k == "_modules" and t in (dict, OrderedDict):
            state[k] = t(
                (n, None if c is None else _deepcopy_module(c, memo))
                for n, c in v.items())
        else:
            state[k] = _deepcopy_value(v, memo)
    y.__setstate__(state)
    return y


# Classes whose instances deepcopy copies through object.__reduce_ex__(4)
# and __setstate__ alone (_plain_copy): class -> bool, asked once.
_PLAIN_COPY = {}


def _plain_copy(cls):
    """Whether copy.deepcopy of an instance of cls (without a __deepcopy__
    of its own in its dict) makes `cls.__new__(cls)`, deep-copies
    `__getstate__()` (a dict) and hands it to `__setstate__`: the class
    and copyreg customise nothing of that (no __deepcopy__, __reduce__,
    __reduce_ex__, __getnewargs__, __getnewargs_ex__, __slots__)."""
    if getattr(cls, "__deepcopy__", None) is not None \
            or copyreg.dispatch_table.get(cls) is not None \
            or cls.__reduce_ex__ is not object.__reduce_ex__ \
            or cls.__reduce__ is not object.__reduce__ \
            or not hasattr(cls, "__setstate__") \
            or not hasattr(cls, "__getstate__"):
        return False
    for k in cls.__mro__:
        d = vars(k)
        if "__slots__" in d or "__getnewargs__" in d \
                or "__getnewargs_ex__" in d:
            return False
    return True


_META = torch.device("meta")
_Parameter = torch.nn.Parameter
_Tensor = torch.Tensor
_make_subclass = torch.Tensor._make_subclass
_torch_empty_like = torch.empty_like
_STRIDED = torch.strided
_CONTIGUOUS = torch.contiguous_format
# named tensors (PyTorch 1.x; gone from 2.x), whose names empty_like keeps
_has_names = getattr(torch.Tensor, "has_names", lambda t: False)


def _to_meta(t):
    """A fresh contiguous meta tensor of t's sizes and dtype (a parameter
    for a parameter, with its requires_grad)."""
    tt = type(t)
    if (tt is _Parameter or tt is _Tensor) and t.layout is _STRIDED and \
            not t.is_quantized and not _has_names(t):
        # empty_like reads the sizes and dtype in C: 1.3 to 2 us a tensor
        # less than torch.empty(t.shape, dtype=t.dtype) on both PyTorch
        # versions (scratch s90/tometa_t.py, medians of 3,000)
        m = _torch_empty_like(t, device=_META, memory_format=_CONTIGUOUS)
        return _make_subclass(_Parameter, m, t.requires_grad) \
            if tt is _Parameter else m
    if isinstance(t, torch.nn.parameter.UninitializedTensorMixin):
        # a lazy module's: its pre-hook gives it a shape on the copy
        return type(t)(requires_grad=t.requires_grad, device="meta",
                       dtype=t.dtype)
    m = torch.empty(t.shape, dtype=t.dtype, device=_META)
    if type(t) is _Parameter:
        # what Parameter(m, requires_grad) does for a plain tensor
        return _make_subclass(_Parameter, m, t.requires_grad)
    if isinstance(t, _Parameter):
        return torch.nn.Parameter(m, requires_grad=t.requires_grad)
    return m


def map_tensors(obj, fn):
    """obj with every tensor t in nested tuples, lists and dicts replaced by
    fn(t) (one result per tensor, so a tensor passed twice stays one),
    rebuilt without recursion; a transformers cache (a `past_key_values`
    argument) copied, its tensors so replaced (_cache_copy); anything
    else is kept as it is."""
    memo = {}

    def leaf(x):
        if not isinstance(x, torch.Tensor):
            return _cache_copy(x, fn, memo) if _is_hf_cache(x) else x
        if id(x) not in memo:
            memo[id(x)] = fn(x)
        return memo[id(x)]

    def parts(x):
        if isinstance(x, (tuple, list)):
            return list(x)
        if isinstance(x, dict):
            return list(x.values())
        return None

    def rebuild(x, vals):
        if isinstance(x, dict):
            return dict(zip(x.keys(), vals))
        if isinstance(x, list):
            return vals
        if hasattr(x, "_fields"):  # a namedtuple
            return type(x)(*vals)
        return tuple(vals)

    if parts(obj) is None:
        return leaf(obj)
    frames = [(obj, parts(obj), [])]  # (container, its items, done so far)
    open_ids = {id(obj)}
    while True:
        x, items, vals = frames[-1]
        if len(vals) == len(items):
            frames.pop()
            open_ids.discard(id(x))
            built = rebuild(x, vals)
            if not frames:
                return built
            frames[-1][2].append(built)
            continue
        c = items[len(vals)]
        sub = parts(c)
        if sub is None or id(c) in open_ids:  # a leaf, or a cycle
            vals.append(leaf(c))
        else:
            open_ids.add(id(c))
            frames.append((c, sub, []))


def _is_hf_cache(x):
    return any(k.__name__ == "Cache" and k.__module__ ==
               "transformers.cache_utils" for k in type(x).__mro__)


def _cache_copy(x, fn, memo, depth=0):
    """A copy of a transformers cache (its slots, sub-caches, lists and
    dicts copied too, each tensor fn(t) once (memo, map_tensors'),
    anything else shared): the forward extends the copy, never the
    caller's cache, and reads its tensors as the recording's (on meta,
    or copies on the model's own device). (A function of the module's:
    map_tensors' leaf passing itself would be a cycle holding the
    recording's tensors until a collection.)"""
    if isinstance(x, torch.Tensor):
        if id(x) not in memo:
            memo[id(x)] = fn(x)
        return memo[id(x)]
    got = memo.get(id(x))
    if got is not None:
        return got
    t = type(x)
    if depth > 8:
        return x
    if t in (list, tuple):
        return t(_cache_copy(v, fn, memo, depth + 1) for v in x)
    if t is dict:
        return {k: _cache_copy(v, fn, memo, depth + 1)
                for k, v in x.items()}
    if not hasattr(x, "__dict__") or not (
            t.__module__ == "transformers.cache_utils" or _is_hf_cache(x)):
        return x  # a config, a number: shared
    new = copy.copy(x)
    memo[id(x)] = new
    d = vars(new)
    for k, v in list(d.items()):
        d[k] = _cache_copy(v, fn, memo, depth + 1)
    return new


def to_meta_inputs(obj, shadows=None):
    """The inputs on meta; with `shadows`, integer and boolean tensors keep
    their values as shadows (see shadow.py)."""
    def meta(t):
        m = _empty_like(t)
        if shadows is not None:
            shadows.adopt(m, t)
        return m
    return map_tensors(obj, meta)


def on_meta(model, walk=None):
    """Whether some parameter or buffer of the model is on meta. walk: the
    model's (walk_once)."""
    if type(model).parameters is not torch.nn.Module.parameters or \
            type(model).buffers is not torch.nn.Module.buffers:
        return any(p.is_meta for p in model.parameters()) or \
            any(b.is_meta for b in model.buffers())
    # parameters() and buffers() without their nested generators
    for m in (m for _, m in walk) if walk is not None else model.modules():
        for store in ("_parameters", "_buffers"):
            for t in getattr(m, store).values():
                if t is not None and t.is_meta:
                    return True
    return False


@contextlib.contextmanager
def preserved(model, walk=None):
    """Restores training flags and RNG states (CPU and CUDA) on exit.
    walk: the model's (walk_once)."""
    flags = [(m, m.training) for m in
             ((m for _, m in walk) if walk is not None else model.modules())]
    cpu = torch.get_rng_state()
    cuda = torch.cuda.get_rng_state_all() if torch.cuda.is_available() \
        and torch.cuda.is_initialized() else None
    try:
        yield
    finally:
        for m, f in flags:
            if m.training is not f:
                m.training = f
        torch.set_rng_state(cpu)
        if cuda is not None:
            torch.cuda.set_rng_state_all(cuda)


class Recording:
    """What one recorded forward gives: the graph and PyTorch's own view."""

    def __init__(self, graph, builder, stack, device, outputs):
        self.graph = graph
        self.builder = builder
        self.stack = stack
        self.device = device  # "meta" or the model's own device
        self.outputs = outputs
        # the float inputs' values were read (_record_reading_floats)
        self.read_floats = False


def _run(model, args, kwargs, grad, custom_ops=None, shadows=None,
         autocast_device=None, grad_fns=False, call=None, step=None,
         walk=None, signatures=None):
    g = Graph(type(model).__name__)
    tree = _Tree(model, walk)
    b = Builder(g, param_table(model, tree))
    # every recording: a backward's forward, a training step's, and
    # step.record_flops', whose checkpoints' rerun nodes the library names
    # (step._Checkpointed._rerun_named)
    g.defer_numbering()
    b.track_grad_fns = grad_fns  # for backward.py only
    b.weak = step is not None
    b.shadows = shadows
    if autocast_device is not None:
        b.autocast = Autocast(autocast_device,
                              lambda *call: record(b, *call))
    b.params_by_id = {id(t): t for _, t in tree.params + tree.buffers}
    for name, m in tree.modules:
        g.module_types[name] = type(m).__name__
    names = []
    for i, t in enumerate(flatten(args)):
        names.append((f"input_{i}" if i else "input", t))
    for k, v in kwargs.items():
        for i, t in enumerate(flatten(v)):
            names.append((k if i == 0 else f"{k}_{i}", t))
    for n, t in names:
        if id(t) not in b.names:
            b._declare(t, n)
            g.inputs.append(n)
    stack = ModuleStack(model, b, custom_ops=custom_ops,
                        modules=tree.modules)
    ctx = torch.enable_grad() if grad else torch.no_grad()
    probe = b.autocast.probe() if b.autocast is not None \
        else contextlib.nullcontext()
    ctors = TensorConstructors() if shadows is not None \
        else contextlib.nullcontext()
    # a training step sharing this forward: the recorder's mode hands it
    # each op's outputs (Builder.step_mode), under the step's context
    inner = step.begin(model, args, kwargs, b) if step is not None \
        else contextlib.nullcontext()
    mode = _Mode(b)
    # TorchScript functions in the forward (DeBERTa's scaled_size_sqrt) run
    # every op of their graph, as the first call does: the optimized graph
    # of later calls runs fewer through the dispatcher, and a model's
    # second summary in a process would count less than its first
    with ctx, stack, probe, ctors, mode, fused.Spans(b, mode), \
            module_replay.Layers(tree.modules, b, stack, mode, custom_ops,
                                 signatures), \
            inner, torch.jit.optimized_execution(False):
        out = (call or _call)(model, *args, **kwargs)
    b.note_grad_fns()
    _read_unused_params(tree, b)
    seen = set()
    for t in flatten(out):
        n = b.names.get(id(t))
        if n is not None and n not in seen and n not in g.inits:
            seen.add(n)
            g.outputs.append(n)
    if call is not None and isinstance(out, dict):
        _name_outputs(g, b, out)
    g.module_calls = dict(stack.calls)
    g.module_outputs = dict(stack.outputs)
    g.module_shapes = {p: (ins[0] if ins else None, outs[0] if outs else None)
                       for p, (ins, outs) in stack.io.items()}
    g.module_tensors = module_tensors(tree, b.params)
    g.tracked = masks.track(b)
    if step is not None:
        step.finish(out, b)
    return Recording(g, b, stack, None, out)


# What PyTorch says when a forward on meta read a tensor's data (.item(),
# nonzero, a boolean index, .tolist(), bool(t)), not another refusal
# (patterns compiled by `re` when first searched: an error's path alone)
_READ_WORDS = (r"data.dependent|nonzero|item\(\)|_local_scalar_dense|"
               r"tolist|data pointer|doesn't have storage")


def _record_reading_floats(error, model, model_on_meta, args, kwargs,
                           custom_ops, keep_graph, call, training, step):
    """A second try on meta for a forward that read data on meta (error,
    the first try's), with the values of the float inputs the user passed
    as real tensors kept too (shadow.py: Shadows.floats); so a forward that
    reads them (Idefics3 drops all-zero padding images by their pixels)
    records on meta. None when the first try failed otherwise, no float
    input is real, or the second try also reads what meta does not hold;
    and for a training step (step: its state is the first try's)."""
    if step is not None or not re.search(_READ_WORDS, str(error), re.I):
        return None
    if not any(isinstance(t, torch.Tensor) and t.is_floating_point()
               and not t.is_meta for t in flatten((args, kwargs))):
        return None
    shadows = Shadows()
    target = model if model_on_meta else meta_copy(model, shadows)
    if target is None:
        return None
    shadows.floats = True  # the inputs, not the buffers copied above
    try:
        with _restored(model) if target is model \
                else contextlib.nullcontext():
            _train(target, training)
            rec = _run(target, to_meta_inputs(args, shadows),
                       to_meta_inputs(kwargs, shadows),
                       grad=keep_graph or training or step is not None,
                       custom_ops=custom_ops, shadows=shadows,
                       autocast_device=autocast_for(model),
                       grad_fns=keep_graph, call=call, step=step)
    except Exception as e:  # noqa: BLE001 - the first try's error is said
        if not meta_caused(e):
            raise
        return None
    rec.device = "meta"
    rec.read_floats = True
    return rec


def _call(model, *args, **kwargs):
    return model(*args, **kwargs)


def _name_outputs(g, b, out):
    """A `call` returning a dict of tensors names the graph's outputs by its
    keys (generate.py: `present.0.key`), unless the value is an input, a
    parameter or another key's."""
    names = {}
    for key, t in out.items():
        n = b.names.get(id(t)) if isinstance(t, torch.Tensor) else None
        if n is None or n in names or n in g.inputs or n in g.inits or \
                key in g.values:
            continue
        names[n] = key
    g.rename(names)
    b.shape_of = {names.get(k, k): v for k, v in b.shape_of.items()}
    b.names = {i: names.get(n, n) for i, n in b.names.items()}


def _read_unused_params(tree, b):
    """A parameter the forward never reads (a mask token used only in
    pre-training, a head the call skips) is still one of the model's:
    sum(p.numel()) and torchscan count it. The library counts a parameter
    at its first reader, so a Shape node in the parameter's own module
    reads it; Shape costs nothing."""
    for name, p in tree.params:
        canonical = b.params.get(id(p), (None,))[0]
        if canonical is None or canonical in b.g.values:
            continue
        b.scope = name.rpartition(".")[0]
        b.source = "unused parameter"
        b.node("Shape", [b.inp(p)],
               [torch.empty([p.dim()], dtype=torch.int64, device="meta")])
    b.scope = ""


@contextlib.contextmanager
def gc_paused():
    """Python's cyclic collector stays off while a forward is recorded and
    analysed, and runs again afterwards as it was. A recording allocates
    tens of thousands of small objects, so the collector runs its oldest
    generation, which walks every object the process holds, the model's
    included: about a third of a swin_v2_s summary (bench/recording_speed.py).
    What a recording makes is freed by reference counting as before; only
    cycles wait for the next collection. A training step runs under it too
    (train.py): PyTorch frees a tensor when its last reference goes, and
    those frees are the step's; a collection in between would free a cycle
    at a moment of its own."""
    was = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was:
            gc.enable()


def record_model(model, args=(), kwargs=None, device="auto", custom_ops=None,
                 keep_graph=False, call=None, training=False, step=None,
                 signatures=None):
    """Records one forward of `model` on `args`/`kwargs`; see the module doc.
    training: on meta, the forward of training mode (train.py's steps).

    device: "auto" (meta when possible), "meta" (fail rather than compute),
    or "model" (the model's own device). The model's training flags and the
    RNG states are restored whatever happens. keep_graph: autograd stays on
    in every case (for backward.py). call: runs the forward instead of
    `model(*args, **kwargs)`, as call(model, *args, **kwargs), on the model
    recorded (its meta copy on the meta path; for generate.py). step: a
    training step (train.Shared) that runs on this forward, on meta only.
    signatures: summary_memo.state's walk of the model (walk_once's) and
    layer_groups signatures of its modules, for the layers the recording
    compares (layer_groups.seeded)."""
    kwargs = kwargs or {}
    if not isinstance(model, torch.nn.Module):
        raise TypeError(f"expected a torch.nn.Module, got {type(model).__name__}")
    if device not in ("auto", "meta", "model"):
        raise ValueError(f"device must be 'auto', 'meta' or 'model', not {device!r}")
    model = unwrap_compiled(model)
    walk = signatures[0] if signatures is not None else walk_once(model)
    with preserved(model, walk), gc_paused():
        return _record(model, args, kwargs, device, custom_ops, keep_graph,
                       call, training, step, walk, signatures)


def _outside_inference_mode(model=None):
    """The meta copy and its recording run outside torch.inference_mode,
    as if the caller had not entered it: inside it PyTorch 2.x skips the
    autograd keys, whose kernels decompose composite ops, so the recorder
    would see aten.linear, conv2d and layer_norm whole instead of the
    calls an eager forward runs (a summary under inference_mode once
    printed lower bounds).
    The copy's tensors are then normal ones, which the forward may write
    in place (a buffer it counts in). A model on meta recorded as it is
    (`model`) whose tensors were made inside the mode stays in it: outside
    it, a write to one of them would raise."""
    if not torch.is_inference_mode_enabled() or (
            model is not None and any(
                t.is_inference() for t in itertools.chain(
                    model.parameters(), model.buffers()))):
        return contextlib.nullcontext()
    return torch.inference_mode(False)


def _record(model, args, kwargs, device, custom_ops, keep_graph, call=None,
            training=False, step=None, walk=None, signatures=None):
    first_error = None
    if device in ("auto", "meta"):
        model_on_meta = on_meta(model, walk)
        shadows = Shadows()
        autocast_device = autocast_for(model, walk)
        if model_on_meta:
            target, target_walk = model, walk
        else:
            with _outside_inference_mode():
                target, target_walk = _meta_copy_walked(model, shadows,
                                                        walk)
        if target is not None:
            try:
                with _restored(model) if target is model \
                        else contextlib.nullcontext(), \
                        _outside_inference_mode(model if model_on_meta
                                                else None):
                    _train(target, training, target_walk)
                    rec = _run(target, to_meta_inputs(args, shadows),
                               to_meta_inputs(kwargs, shadows),
                               grad=keep_graph or training or
                               step is not None,
                               custom_ops=custom_ops, shadows=shadows,
                               autocast_device=autocast_device,
                               grad_fns=keep_graph, call=call, step=step,
                               walk=target_walk, signatures=signatures)
                rec.device = "meta"
                return rec
            except Exception as e:  # noqa: BLE001 - reported below
                if not meta_caused(e):
                    raise  # the forward's own error: once, as it is
                rec = _record_reading_floats(
                    e, model, model_on_meta, args, kwargs, custom_ops,
                    keep_graph, call, training, step)
                if rec is not None:
                    return rec
                if model_on_meta or device == "meta" or step is not None:
                    raise RecordError(
                        f"the forward pass failed on meta tensors "
                        f"({type(e).__name__}: {e}); "
                        + ("a model built on the meta device cannot run on "
                           "real data, so nnscan cannot record it"
                           if model_on_meta else "device='meta' was asked"
                           if step is None else "training=True runs its step "
                           "on meta tensors"))\
                        from e
                first_error = e
    if step is not None:
        raise RecordError("training=True runs its step on meta tensors, and "
                          "the model cannot be copied to the meta device"
                          if device != "model" else "training=True runs its "
                          "step on meta tensors, not device='model'")
    if first_error is not None:
        why = (str(first_error).splitlines() or [""])[0]
        warnings.warn(f"nnscan: the forward cannot run on meta tensors "
                      f"({type(first_error).__name__}: {why}); running it "
                      "once on the model's own device")
    model.eval()
    # The caller's tensors are never written (the forward gets copies) and
    # what the forward changes on the model is put back.
    args, kwargs = map_tensors((args, kwargs), _input_copy)
    with _restored(model):
        rec = _run(model, args, kwargs, grad=keep_graph,
                   custom_ops=custom_ops, grad_fns=keep_graph, call=call)
    p = next(iter(model.parameters()), None)
    rec.device = str(p.device) if p is not None else "cpu"
    return rec


# What PyTorch says when the meta device, not the forward, is the problem:
# data asked of a meta tensor (.item(), .tolist(), .numpy(), `if t:`), a
# meta tensor meeting a real one, no data to point at.
_META_WORDS = (r"\bmeta\b|data.dependent|data pointer|"
               r"doesn't have storage")
_RAISE_OPCODES = {dis.opmap[n] for n in ("RAISE_VARARGS", "RERAISE")
                  if n in dis.opmap}


def meta_caused(exc):
    """Whether an exception raised by a forward on meta tensors comes from
    the meta device (then the model's own device may succeed) rather than
    from the forward itself (a ValueError, a shape error, a
    RecursionError: the same on any device, so raised as it is). Walks
    the chain of causes. Meta-caused: an aten op with no meta kernel (a
    NotImplementedError that came through the dispatch mode), PyTorch's
    words for data or devices above, or a RuntimeError raised inside C
    code that is not an aten op (an extension's kernel refusing a meta
    tensor)."""
    if isinstance(exc, RecordError):
        return False  # nnscan's own verdict (train.StepError: which part)
    seen = set()
    while exc is not None and id(exc) not in seen:
        seen.add(id(exc))
        op = _through_dispatch(exc)
        if isinstance(exc, RecursionError):
            pass
        elif op and isinstance(exc, NotImplementedError):
            return True
        elif isinstance(exc, (RuntimeError, TypeError)) \
                and re.search(_META_WORDS, str(exc), re.I):
            return True
        elif not op and isinstance(exc, RuntimeError) \
                and not _raised_by_python(exc):
            return True
        elif isinstance(exc, TypeError) and _in_meta_kernel(exc):
            return True
        exc = exc.__cause__ or exc.__context__
    return False


def _through_dispatch(exc):
    """Whether exc was raised by an aten op (it passed through the
    recorder's dispatch mode on its way out, or through its flush of the
    queued calls: the code that records them)."""
    codes = (_Mode.__torch_dispatch__.__code__, _Mode.flush.__code__)
    tb = exc.__traceback__
    while tb is not None:
        if tb.tb_frame.f_code in codes:
            return True
        tb = tb.tb_next
    return False


def _in_meta_kernel(exc):
    """Whether exc was raised inside one of PyTorch's meta kernels or
    decompositions written in Python: a TypeError there is that kernel's
    fault, not the forward's (1.13's cdist meta kernel compares a
    None with an int), and the model's own device runs the op. Shape
    checks there raise RuntimeError or ValueError, as on any device."""
    tb = exc.__traceback__
    if tb is None:
        return False
    while tb.tb_next is not None:
        tb = tb.tb_next
    path = tb.tb_frame.f_code.co_filename.replace(os.sep, "/")
    return any(p in path for p in _META_KERNEL_FILES)


_META_KERNEL_FILES = ("/torch/_meta_registrations.py", "/torch/_decomp/",
                      "/torch/_refs/")


def _raised_by_python(exc):
    """Whether exc came from a `raise` statement rather than from inside a
    C function: the innermost frame of its traceback stopped at a raise."""
    tb = exc.__traceback__
    if tb is None:
        return True
    while tb.tb_next is not None:
        tb = tb.tb_next
    code = tb.tb_frame.f_code.co_code
    return 0 <= tb.tb_lasti < len(code) and code[tb.tb_lasti] in _RAISE_OPCODES


def _input_copy(t):
    c = t.detach().clone()
    if t.requires_grad:
        c.requires_grad_(True)
    return c


@contextlib.contextmanager
def _restored(model):
    """Runs the forward on the user's own model and puts back what it
    changes: attributes set or added on any module (`self.calls += 1`),
    parameters, buffers and submodules rebound, hooks registered (the
    output-capturing hooks transformers installs on a first forward, with
    the flag that says so: keeping the hooks but not the flag made the
    next forward install them twice), buffer values written in place
    (`self.steps += 1`, running statistics). The user's own module hooks
    are set aside meanwhile, as on the meta copy. Parameters written in
    place are not restored (that would copy every weight)."""
    mods = list(model.modules())
    saved = []
    for m in mods:
        d = vars(m)
        # each store's content, None for an empty one (most hook
        # dictionaries: nothing to copy or compare)
        stores = [(k, dict(v) if v else None) for k, v in
                  zip(_RESTORED_STORES, map(d.get, _RESTORED_STORES))
                  if isinstance(v, dict)]
        saved.append((m, dict(d), stores))
    with torch.no_grad():
        values = [(b, b.clone()) for b in model.buffers() if not b.is_meta]
    for m in mods:
        for attr in _MODULE_HOOK_DICTS:
            d = vars(m).get(attr)
            if d:
                vars(m)[attr] = _model_hooks_only(d)
    try:
        yield
    finally:
        for m, attrs, stores in saved:
            d = vars(m)
            if d.keys() != attrs.keys():
                for k in [k for k in d if k not in attrs]:
                    del d[k]
            d.update(attrs)
            for k, content in stores:
                now = d[k]  # the store itself, put back by the update
                if content is None:
                    if now:
                        now.clear()
                elif len(now) != len(content) or list(now) != list(
                        content) or any(now[n] is not v
                                        for n, v in content.items()):
                    now.clear()
                    now.update(content)
        with torch.no_grad():
            # Compared by value: kernels such as batch_norm write running
            # statistics without bumping the version counter.
            for b, value in values:
                if not torch.equal(b, value):
                    b.copy_(value)
