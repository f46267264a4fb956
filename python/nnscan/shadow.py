"""Real values kept beside meta tensors while a forward is recorded on meta.

Weights and activations stay on the meta device (shapes only). The small
tensors that decide control flow and masks are not activations: the user's
`attention_mask`, `input_ids`, position ids, `cache_position`, the `arange`
arithmetic a model builds its causal mask from, the boolean results of
`.all()` / `==`. For those the recorder keeps a *shadow*: the real value, a
CPU tensor computed alongside the meta one, so a forward that reads data
(`.item()`, `bool(t)`, `torch.equal`, `nonzero`, `.tolist()`, `.cpu()`)
runs on meta instead of failing, and later code (masked attention counts)
can read the values (`Builder.value_of`).

What has a shadow (docs/python.md, "Real values on the meta path"):
  - an input the user passed as a real (non-meta) integer or boolean tensor,
    and a model's integer/boolean buffers and tensor attributes when the
    recorder copies the model to meta; a real float input too on the
    recorder's second try of a forward that read data on meta
    (Shadows.floats);
  - the output of a factory op (arange, full, ones, zeros, *_like, new_*,
    fill_, zero_; an `empty` tensor once copy_ overwrites it) of an
    integer or boolean dtype, or of a float dtype up to FLOAT_FACTORY_MAX
    elements (larger float factories are caches and accumulators for
    activations);
  - the output of any other op whose every tensor input has a shadow (or is
    a real CPU tensor), e.g. an additive float mask made from a boolean one
    by `where`;
  and in every case only up to MAX_ELEMENTS elements per tensor and
  MAX_BYTES in all (beyond that, values are dropped: such a forward reading
  data falls back to running the model, as before). Random ops never get a
  shadow. An in-place op that writes a value without a shadow into a
  shadowed tensor drops the shadow.

Values are computed when first read, not when the op runs: a value nobody
reads costs nothing (SDPA's math path on meta builds a sequence-square
causal mask in every layer; LLaMA-3-8B at 2,048 tokens spent 0.3 s making
them). An op is kept as a pending computation over its inputs; reading a
value runs what it needs. Before an op writes into a tracked tensor every
pending computation runs, so none of them later sees the written value in
place of the one it was recorded with; a chain deeper than MAX_PENDING_DEPTH
runs at once, so reading never recurses deeply.
"""
import contextlib
import threading

import torch

from . import aten_call

MAX_ELEMENTS = 1 << 24
MAX_BYTES = 1 << 29
FLOAT_FACTORY_MAX = 1 << 16
MAX_PENDING_DEPTH = 64

# ops whose output values do not depend on their tensor inputs' values
# (shape/dtype templates, or overwritten whole)
# (`empty*` are not: their values are undefined until an op overwrites them,
# which gives them a value then, see OVERWRITE)
FACTORIES = frozenset((
    "zeros", "zeros_like", "ones",
    "ones_like", "full", "full_like", "arange", "scalar_tensor",
    "new_zeros", "new_ones", "new_full", "fill", "zero",
    "linspace", "logspace", "eye", "tensor", "lift_fresh", "lift_fresh_copy"))

# ops that overwrite their first argument whatever it held (fill and zero
# are also factories: they read no value at all)
OVERWRITE = frozenset(("copy", "fill", "zero"))

# ops that can move a real CPU tensor onto meta (`torch.tensor(..., device=)`)
COPIES = frozenset(("_to_copy", "to", "copy", "_copy_from"))

RANDOM = frozenset((
    "rand", "randn", "rand_like", "randn_like", "randint", "randint_like",
    "randperm", "normal", "uniform", "bernoulli", "dropout", "native_dropout",
    "multinomial", "exponential", "geometric", "cauchy", "log_normal",
    "random", "poisson"))

# aten overload -> (base name, factory or copy, random, in place): follow
# runs at every op
_KINDS = {}
_META = torch.device("meta")
# Ops whose output's shape only their index arguments decide (not the
# values of the tensor they index): Shadows._shaped_by_known.
_SHAPED_BY_INDICES = frozenset(["index", "masked_select"])
_CLONE = torch.ops.aten.clone.default
_CPU = torch.device("cpu")


def _meta_like(v):
    """A meta tensor of v's shape, strides and dtype."""
    return torch.empty_strided(v.shape, v.stride(), dtype=v.dtype,
                               device=_META)


def _storage(v):
    """The address of the storage a CPU tensor's elements are in."""
    s = v.untyped_storage() if hasattr(v, "untyped_storage") else v.storage()
    return s.data_ptr()


def _is_random(func, name):
    if name in RANDOM:
        return True
    tag = getattr(torch.Tag, "nondeterministic_seeded", None) \
        if hasattr(torch, "Tag") else None
    return tag is not None and tag in getattr(func, "tags", ())


def _trackable_input(t, floats=False):
    return ((floats or not t.is_floating_point()) and not t.is_complex()
            and t.numel() <= MAX_ELEMENTS)


_FILLS = None


def _fill_of_key(key, depth=0):
    """fill_of's number of a value computed from `key` (Shadows._key's of
    an op's call: its op, its arguments' keys, its keyword arguments'),
    where the op is a fill or a view or copy of one; else None."""
    try:
        (_, func), args, kwargs = key
    except (TypeError, ValueError):
        return None
    fills, same = _fills()
    if func in same:
        src = args[0] if args else None  # (its computation's key, index)
        if type(src) is tuple and len(src) == 2 and \
                type(src[1]) is int and depth < 8:
            return _fill_of_key(src[0], depth + 1)
        return None
    at = fills.get(func)
    if at is None:
        return None
    if isinstance(at, bool):
        return int(at)
    if len(args) > at:
        k = args[at]
    else:
        names, keys = kwargs if kwargs else ((), ())
        k = next((keys[i] for i, n in enumerate(names)
                  if n in ("fill_value", "value")), None)
    # a plain argument's key: (its type's name, itself)
    v = k[1] if type(k) is tuple and len(k) == 2 and \
        k[0] in ("int", "float", "bool") else None
    return v if type(v) in (int, float, bool) else None


def _fills():
    """(aten op -> what its value is made of: True / False (every element
    one / zero) or the index of its argument holding the fill value; the
    aten ops whose output holds their first input's elements, viewed or
    copied: a fill's is a fill; not a cast, which may change them)."""
    global _FILLS
    if _FILLS is None:
        aten = torch.ops.aten

        def op(name, overload="default"):
            return getattr(getattr(aten, name, None), overload, None)
        table = {"ones": True, "zeros": False, "new_ones": True,
                 "new_zeros": False, "ones_like": True, "zeros_like": False,
                 "full": 1, "new_full": 2, "full_like": 1}
        fills = {op(n): at for n, at in table.items() if op(n) is not None}
        if op("fill", "Scalar") is not None:
            fills[op("fill", "Scalar")] = 1
        same = {op(n) for n in ("detach", "alias", "clone", "lift_fresh",
                                "expand", "view", "_unsafe_view", "reshape",
                                "_reshape_alias", "unsqueeze", "squeeze",
                                "t", "permute")}
        same.update(o for o in (op("transpose", "int"),
                                op("squeeze", "dim")))
        same.discard(None)
        _FILLS = (fills, frozenset(same))
    return _FILLS


class _Pending:
    """An op whose output values are computed when first read."""
    __slots__ = ("func", "args", "kwargs", "blank", "outs", "depth", "done")

    def __init__(self, func, args, kwargs, blank, outs, depth):
        self.func = func
        self.args = args        # the op's arguments, meta tensors included
        self.kwargs = kwargs
        self.blank = blank      # id -> written in place (see _blank)
        self.outs = outs        # the op's outputs (meta tensors or others)
        self.depth = depth      # longest chain of pending inputs below
        self.done = False


class Shadows:
    """id(meta tensor) -> (meta tensor, CPU value or _Pending), and the rules
    above."""

    def __init__(self):
        self.of = {}
        self.bytes = 0
        self.pending = []  # _Pending not yet run, oldest first
        # Values computed once per distinct computation: key (see _key) ->
        # output values. A model that builds the same mask in every layer
        # (SDPA's math path with is_causal) computes it once and the layers
        # share the value until one writes it in place (copy on write: see
        # _unshare); masks.py hands it over once.
        self.memo = {}
        self.key_of = {}   # id(value) -> (key, output index) it came from
        self.holders = {}  # id(value in memo) -> meta tensors holding it
        self.by_storage = {}  # storage address -> values in memo on it
        self.alive = []    # values keyed by identity: their ids stay theirs
        # Whether a float input adopted from now on keeps its values too
        # (the recorder's second try of a forward that read the values of
        # a float input, such as Idefics3's padding images: recorder.py's
        # _record_reading_floats)
        self.floats = False

    # ---- reading ----
    def value(self, t):
        """The real value of `t` (a CPU tensor), or None if not tracked."""
        e = self.of.get(id(t))
        if e is None or e[0] is not t:
            return None
        v = e[1]
        if isinstance(v, _Pending):
            self._compute(v)
            e = self.of.get(id(t))
            v = e[1] if e is not None and e[0] is t else None
        return v

    def peek(self, t):
        """The real value of `t` without running anything: a CPU buffer's
        own tensor where its copy is not made yet (the recording never
        writes it, so the copy holds the same), a computed value; None
        where it is another op still pending or `t` is not tracked."""
        e = self.of.get(id(t))
        if e is None or e[0] is not t:
            return None
        v = e[1]
        if isinstance(v, _Pending):
            return v.args[0] if v.func is _CLONE and not v.done else None
        return v

    def fill_of(self, t, depth=0):
        """The one number every element of t's value is, where that value
        is a fill (ones, zeros, full and their _like and new_ forms, or a
        view or copy of one): found without computing it, from the op
        pending or, once computed, the computation it came from (memo:
        a layer's fill computed for an earlier layer's is the same fill
        all the same); else None."""
        e = self.of.get(id(t))
        if e is None or e[0] is not t:
            return None
        if not isinstance(e[1], _Pending):
            k = self.key_of.get(id(e[1]))
            return _fill_of_key(k[0]) if k is not None else None
        p = e[1]
        fills, same = _fills()
        if p.func in same:
            src = p.args[0] if p.args else None
            return self.fill_of(src, depth + 1) \
                if isinstance(src, torch.Tensor) and depth < 8 else None
        at = fills.get(p.func)
        if at is None:
            return None
        if isinstance(at, bool):
            return int(at)
        v = p.args[at] if len(p.args) > at else \
            p.kwargs.get("fill_value", p.kwargs.get("value"))
        return v if type(v) in (int, float, bool) else None

    def _depth(self, t):
        e = self.of.get(id(t))
        return e[1].depth if e is not None and isinstance(e[1], _Pending) \
            else 0

    def _key(self, x, blank):
        """A hashable stand-in for an argument: a tensor by the computation
        its value came from (or its identity), a template by its shape and
        dtype; None when something cannot be keyed."""
        if isinstance(x, torch.Tensor):
            if x.is_meta:
                if id(x) in blank:
                    return ("blank", tuple(x.shape), x.dtype, blank[id(x)])
                v = self.value(x)
                if v is None:
                    return None
                k = self.key_of.get(id(v))
                if k is None:
                    self.alive.append(v)
                    k = ("value", id(v))
                return k
            self.alive.append(x)
            return ("real", id(x))
        if isinstance(x, (list, tuple)):
            out = []
            for y in x:
                k = self._key(y, blank)
                if k is None and y is not None:
                    return None
                out.append(k)
            return tuple(out)
        if isinstance(x, dict):
            k = self._key(list(x.values()), blank)
            return None if k is None else (tuple(x), k)
        if isinstance(x, (torch.device, torch.dtype, torch.layout,
                          torch.memory_format)):
            return str(x)
        if isinstance(x, float):
            return ("float", x.hex())  # -0.0 is not 0.0
        try:
            hash(x)
        except TypeError:
            return None
        return (type(x).__name__, x)

    def _compute(self, p):
        """Runs a pending op (its pending inputs first, through value) and
        puts its outputs' values in place of the pending entries; an op
        computed before on the same values gives the same values (shared)."""
        if p.done:
            return
        p.done = True
        key = self._key((p.func, p.args, p.kwargs), p.blank) \
            if not p.blank or all(not w for w in p.blank.values()) else None
        vals = self.memo.get(key) if key is not None else None
        if vals is None:
            got = self._run(p.func, p.args, p.kwargs, p.blank)
            vals = aten_call.outputs(got[0]) if got is not None else []
            n = sum(v.numel() * v.element_size() for v in vals
                    if isinstance(v, torch.Tensor))
            if self.bytes + n > MAX_BYTES:
                vals = []
            else:
                self.bytes += n
                if key is not None and all(
                        v.numel() for v in vals if isinstance(v, torch.Tensor)):
                    self.memo[key] = vals
                    for i, v in enumerate(vals):
                        if isinstance(v, torch.Tensor):
                            self.key_of[id(v)] = (key, i)
                            self.holders[id(v)] = []
                            self.by_storage.setdefault(_storage(v), []) \
                                .append(v)
        for i, o in enumerate(p.outs):
            if not isinstance(o, torch.Tensor):
                continue
            e = self.of.get(id(o))
            if e is None or e[0] is not o or e[1] is not p:
                continue  # replaced or dropped since
            v = vals[i] if len(vals) == len(p.outs) else None
            if isinstance(v, torch.Tensor) and list(v.shape) == list(o.shape) \
                    and v.dtype == o.dtype:
                self.of[id(o)] = (o, v)
                h = self.holders.get(id(v))
                if h is not None:
                    h.append(o)
            else:
                self.drop(o)

    def _unshare(self, t):
        """Before `t` is written in place: the values in memo on the storage
        its value is on stop being shared: the tensors holding them that
        are not views of t's base get copies as they are now, and they
        leave the memo. (Values computed inside the dispatch mode are not
        marked as views, so the storage says what a write reaches; the
        meta tensors are, so `_base` says which tensors are t's.)"""
        v = self.value(t)
        if v is None or not v.numel():
            return
        root = t._base if t._base is not None else t
        for u in self.by_storage.pop(_storage(v), ()):
            k = self.key_of.pop(id(u), None)
            if k is not None and k[0] in self.memo \
                    and self.memo[k[0]][k[1]] is u:
                del self.memo[k[0]]
            for h in self.holders.pop(id(u), ()):
                e = self.of.get(id(h))
                if e is not None and e[0] is h and e[1] is u and \
                        (h._base if h._base is not None else h) is not root:
                    self.of[id(h)] = (h, u.clone())

    def compute_all(self):
        """Runs every pending op, oldest first (before a write in place)."""
        pending, self.pending = self.pending, []
        for p in pending:
            self._compute(p)

    def __contains__(self, t):
        e = self.of.get(id(t))
        return e is not None and e[0] is t

    # ---- adding ----
    def set(self, meta, val):
        """val: a CPU tensor, or a _Pending that will compute it (its bytes
        count once computed, see _compute)."""
        n = 0 if isinstance(val, _Pending) \
            else meta.numel() * meta.element_size()
        if meta.numel() > MAX_ELEMENTS or self.bytes + n > MAX_BYTES:
            self.drop(meta)
            return False
        self.bytes += n
        self.of[id(meta)] = (meta, val)
        return True

    def drop(self, meta):
        self.of.pop(id(meta), None)

    def adopt(self, meta, real):
        """An input or buffer: `meta` stands for the real tensor `real`. A
        CPU one is copied when first read (most buffers, such as every
        BatchNorm's step counter, never are): the recording never writes
        the caller's tensors, so the copy made later holds the same
        values; it is not in `pending`, as no op of the recording can
        change what it reads."""
        if isinstance(real, torch.Tensor) and not real.is_meta \
                and _trackable_input(real, self.floats):
            if real.device.type == "cpu":
                self.set(meta, _Pending(_CLONE, (real,), {}, {},
                                        [meta], 0))
            else:
                self.set(meta, real.detach().to(_CPU, copy=True))

    # ---- following ops ----
    def _sub(self, x, blank):
        """x with every meta tensor replaced by its value (or, if its id is in
        `blank` (values that do not matter), by an uninitialised CPU tensor
        of its shape), meta devices by the CPU; None if a meta tensor has no
        value."""
        if isinstance(x, torch.Tensor):
            if x.is_meta:
                v = self.value(x)
                if v is None and id(x) in blank:
                    # written in place: a real buffer; a template: no memory
                    v = torch.empty(x.shape, dtype=x.dtype) if blank[id(x)] \
                        else torch.empty((), dtype=x.dtype).expand(x.shape)
                return v
            return x if x.device.type == "cpu" else None
        if isinstance(x, torch.device):
            return _CPU if x.type == "meta" else x
        if isinstance(x, (list, tuple)):
            out = []
            for y in x:
                s = self._sub(y, blank)
                if s is None and y is not None:
                    return None
                out.append(s)
            return out if isinstance(x, list) else tuple(out)
        return x

    def _run(self, func, args, kwargs, blank):
        sargs = self._sub(list(args), blank)
        if sargs is None:
            return None
        skw = {}
        for k, v in kwargs.items():
            s = self._sub(v, blank)
            if s is None and v is not None:
                return None
            skw[k] = s
        try:
            if _ONE_THREAD_PAYS and _small(sargs) and _small(skw.values()):
                with _one_thread():
                    return (func(*sargs, **skw),)
            return (func(*sargs, **skw),)
        except Exception:  # noqa: BLE001 - no value, as if untracked
            return None

    def _inputs_known(self, args, kwargs, blank):
        """Every meta tensor input not in `blank` has a value, and some
        tensor input is known (a value, or a real CPU tensor)."""
        seen = False
        for a in list(args) + list(kwargs.values()):
            for t in (a if isinstance(a, (list, tuple)) else (a,)):
                if isinstance(t, torch.Tensor):
                    if not t.is_meta:
                        seen = seen or t.device.type == "cpu"
                    elif id(t) not in blank:
                        if t not in self:
                            return False
                        seen = True
        return seen

    def _any_tracked(self, args, kwargs):
        of = self.of
        if not of:
            return False
        for a in args:
            # (a tracked tensor is alive: held in `of`, so no other object
            # has its id)
            if id(a) in of:
                return True
            if isinstance(a, (list, tuple)):
                for t in a:
                    if isinstance(t, torch.Tensor) and id(t) in of:
                        return True
        for a in kwargs.values():
            for t in (a if isinstance(a, (list, tuple)) else (a,)):
                if isinstance(t, torch.Tensor) and id(t) in of:
                    return True
        return False

    def _targets(self, func, args, kwargs):
        """The tensors an in-place or out= op writes."""
        out = kwargs.get("out")
        if out is not None:
            return list(out) if isinstance(out, (list, tuple)) else [out]
        if aten_call.is_inplace(func) and args and isinstance(args[0], torch.Tensor):
            return [args[0]]
        return []

    def _blank(self, name, args, kwargs, targets):
        """id -> written in place, for the inputs whose values the op does
        not read."""
        blank = {id(t): True for t in targets} if "out" in kwargs else {}
        if name in OVERWRITE and args and isinstance(args[0], torch.Tensor):
            blank[id(args[0])] = True
        elif name in FACTORIES:  # a template for shape and dtype only
            for a in list(args) + list(kwargs.values()):
                for t in (a if isinstance(a, (list, tuple)) else (a,)):
                    if isinstance(t, torch.Tensor):
                        blank.setdefault(id(t), False)
        return blank

    def follow(self, func, args, kwargs, out):
        """After `func` ran on meta: the values of its outputs. Returns the
        output to give the model (a data-dependent answer, such as
        `torch.equal`'s, comes from the values)."""
        kind = _KINDS.get(func)
        if kind is None:
            name = aten_call.base_name(func)
            kind = _KINDS[func] = (name, name in FACTORIES or name in COPIES,
                                   _is_random(func, name),
                                   aten_call.is_inplace(func))
        name, makes, random, inplace = kind
        if self.pending and (inplace or kwargs.get("out") is not None):
            self.compute_all()  # a write: what is pending reads the old values
        if not makes and not self._any_tracked(args, kwargs):
            return out  # the common case: nothing tracked, nothing to drop
        targets = self._targets(func, args, kwargs)
        blank = self._blank(name, args, kwargs, targets)
        if random or not (
                name in FACTORIES or self._inputs_known(args, kwargs, blank)):
            for t in targets:
                self.drop(t)
            return out
        outs = aten_call.outputs(out)
        metas = [o for o in outs if isinstance(o, torch.Tensor)]
        if not metas:
            return out  # sizes, scalars: nothing to keep
        for o in metas:
            if not o.is_meta or o.numel() > MAX_ELEMENTS or (
                    name in FACTORIES and o.is_floating_point()
                    and o.numel() > FLOAT_FACTORY_MAX):
                for t in targets:
                    self.drop(t)
                return out
        if targets:
            # A write in place (pending ops ran above): the target's value is
            # read and written now, no longer shared (_unshare).
            for t in targets:
                if self.holders:
                    self._unshare(t)
            got = self._run(func, args, kwargs, blank)
            vals = aten_call.outputs(got[0]) if got is not None else []
            if len(vals) != len(outs):
                for t in targets + metas:
                    self.drop(t)
                return out
            for o, v in zip(outs, vals):
                if isinstance(o, torch.Tensor):
                    if isinstance(v, torch.Tensor) \
                            and list(v.shape) == list(o.shape) \
                            and v.dtype == o.dtype:
                        if self.value(o) is not v:
                            self.set(o, v)
                    else:
                        self.drop(o)
            return out
        depth = 1 + max((self._depth(t) for a in list(args)
                         + list(kwargs.values())
                         for t in (a if isinstance(a, (list, tuple)) else (a,))
                         if isinstance(t, torch.Tensor)), default=0)
        p = _Pending(func, tuple(args), dict(kwargs), blank, list(outs), depth)
        for o in metas:
            self.set(o, p)
        self.pending.append(p)
        if depth > MAX_PENDING_DEPTH:
            self._compute(p)
        return out

    def answer(self, func, args, kwargs):
        """For an op that cannot run on meta tensors (reads data: `.item()`,
        `torch.equal`, `nonzero`, a copy to the CPU): its result computed on
        the values, new meta outputs with their values; None if some input
        has no value."""
        if not any(isinstance(t, torch.Tensor) and t.is_meta
                   for a in list(args) + list(kwargs.values())
                   for t in (a if isinstance(a, (list, tuple)) else (a,))):
            return None
        if not self._inputs_known(args, kwargs, {}):
            return self._shaped_by_known(func, args, kwargs)
        # An op writing its first argument in place (`mask &= cpu_tensor`,
        # which a meta kernel refuses): the values pending read the old
        # value, and the argument itself is the result, as PyTorch returns
        # it (a new tensor would leave the model's tensor with its old
        # name and value).
        target = args[0] if args and aten_call.is_inplace(func) and \
            isinstance(args[0], torch.Tensor) and args[0].is_meta else None
        if target is not None:
            if self.pending:
                self.compute_all()
            if self.holders:
                self._unshare(target)
            # written on a copy of its own: the value as it was stays what
            # the computations read before the write were keyed by
            v = self.value(target)
            if v is not None:
                self.of[id(target)] = (target, v.clone())
        got = self._run(func, args, kwargs, {})
        if got is None:
            return None
        res = got[0]
        dev = kwargs.get("device")
        if dev is not None and torch.device(dev).type != "meta":
            return res  # .cpu(), .to("cpu"), .tolist(): the real tensor
        if target is not None and isinstance(res, torch.Tensor) and \
                res.shape == target.shape and res.dtype == target.dtype:
            self.set(target, res)
            return target
        if isinstance(res, torch.Tensor):
            return self._meta_of(res)
        if isinstance(res, (tuple, list)) and any(
                isinstance(r, torch.Tensor) for r in res):
            return type(res)(self._meta_of(r) if isinstance(r, torch.Tensor)
                             else r for r in res)
        return res  # a Python number or bool

    def _shaped_by_known(self, func, args, kwargs):
        """For an op whose output's shape the known inputs alone decide
        (_SHAPED_BY_INDICES: a tensor taken at a boolean mask or index
        tensors with values, as BART's classification head takes the
        hidden states at the end-of-sentence tokens of input_ids): its
        output as a meta tensor without a value, the data run as a
        template that holds no memory; None otherwise."""
        if aten_call.base_name(func) not in _SHAPED_BY_INDICES or not args:
            return None
        x = args[0]
        if not (isinstance(x, torch.Tensor) and x.is_meta) or x in self:
            return None
        blank = {id(x): False}
        if not self._inputs_known(args, kwargs, blank):
            return None
        got = self._run(func, args, kwargs, blank)
        if got is None or not isinstance(got[0], torch.Tensor):
            return None
        return _meta_like(got[0])

    def _meta_of(self, v):
        m = _meta_like(v)
        self.set(m, v)
        return m


class TensorConstructors:
    """`torch.tensor(data, device="meta")` makes its tensor on meta without
    any aten op a dispatch mode sees, so its value would be lost (the
    `torch.tensor(0.0, device=mask.device)` transformers turns a boolean
    mask into an additive one with). While a recording runs, such a call
    made on the recording thread makes the tensor on the CPU and copies it
    to meta: the copy is an op, and its output gets the value as its
    shadow. `torch.tensor` and `torch.as_tensor` are wrapped for the time
    of the outermost recording (other threads' calls, and calls not asking
    for meta, go to PyTorch's own function unchanged); a
    TorchFunctionMode would see the same calls but costs every torch call
    of the forward (a tenth of a LLaMA recording).

    Advanced indexing with a Python list (`ids[:, [-1, 0]]`, which
    transformers' warn_if_padding_and_no_attention_mask reads before
    `pad_token_id in ...`) makes its index tensor the same way, on the
    indexed tensor's device and unseen: while the wrappers are in place,
    Tensor.__getitem__ and __setitem__ on a meta tensor turn such a list
    into a CPU tensor copied to meta first, so the index op reads a value
    the shadows know. Assigning a Python function to a class's
    __getitem__ also fills its sequence slots (sq_item, sq_ass_item):
    every tensor would then pass PySequence_Check, so that
    `torch.tensor([[torch.tensor(3)]])` raises "len() of a 0-d tensor"
    (Qwen2-VL's get_rope_index), and neither a delete nor re-assigning
    the base's descriptor empties them again. _SeqSlots keeps those two
    slots as they were, during and after; where it cannot (a CPython
    whose type layout its probe does not confirm) torch.Tensor is not
    touched and a list index on meta is a value the shadows do not know
    (the recorder falls back as for any unknown value). The class
    __dict__ entries are put back as they were: re-assigned where the
    class had its own, deleted where it had none (a TorchFunctionMode
    would need neither, but doubles a LLaMA recording)."""

    _lock = threading.Lock()
    _threads = {}   # thread id -> nesting depth
    _orig = {}      # name -> torch's own attribute (its __dict__ entry)
    _orig_index = {}  # name -> torch.Tensor.__dict__ entry, or _ABSENT
    _slots = None   # the sequence slots of torch.Tensor as they were

    def __enter__(self):
        me = threading.get_ident()
        with self._lock:
            if not self._threads:
                try:
                    self._install()
                except BaseException:
                    self._restore()
                    raise
            self._threads[me] = self._threads.get(me, 0) + 1
        return self

    @classmethod
    def _install(cls):
        d = vars(torch)
        for name in ("tensor", "as_tensor"):
            cls._orig[name] = d[name]
            setattr(torch, name, _wrap(d[name], cls._threads))
        slots = _SeqSlots.of(torch.Tensor)
        if slots is None:
            return  # no list indices with values on this CPython
        cls._slots = slots
        own = vars(torch.Tensor)
        for name in ("__getitem__", "__setitem__"):
            cls._orig_index[name] = own.get(name, _ABSENT)
            setattr(torch.Tensor, name, _wrap_index(
                getattr(torch.Tensor, name), cls._threads))
            slots.reset()  # the assignment filled them

    @classmethod
    def _restore(cls):
        for name, orig in cls._orig.items():
            setattr(torch, name, orig)
        cls._orig.clear()
        try:
            for name, orig in cls._orig_index.items():
                if orig is _ABSENT:
                    if name in vars(torch.Tensor):
                        delattr(torch.Tensor, name)
                else:
                    setattr(torch.Tensor, name, orig)
        finally:
            cls._orig_index.clear()
            if cls._slots is not None:
                cls._slots.reset()
                cls._slots = None

    def __exit__(self, *exc):
        me = threading.get_ident()
        with self._lock:
            self._threads[me] -= 1
            if not self._threads[me]:
                del self._threads[me]
            if not self._threads:
                self._restore()
        return False


_ABSENT = object()

# Inputs up to this many elements are computed on one thread: a shadow is
# a mask, positions or a few scalars, and some of PyTorch's CPU kernels
# (tril, triu) split even a 16 x 16 tensor over the intra-op threads,
# where waking them costs more than the work: about 65 us a call with
# OMP_WAIT_POLICY=passive on a quiet machine, and 10-16 ms when another
# process holds the other core (bench/recording_profile.md, fourth pass).
SMALL_ELEMENTS = 1 << 16
# PyTorch 1.13's set_num_threads costs about 100 us a change (2.14's: 0.1
# us), more than it saves there: small values keep its threads on 1.13.
_ONE_THREAD_PAYS = int(torch.__version__.split(".")[0]) >= 2


def _small(args):
    for a in args:
        for t in (a if isinstance(a, (list, tuple)) else (a,)):
            if isinstance(t, torch.Tensor) and t.numel() > SMALL_ELEMENTS:
                return False
    return True


@contextlib.contextmanager
def _one_thread():
    """PyTorch's intra-op threads set to one while a small value is
    computed, then back to what they were (OpenMP keeps the setting per
    calling thread; other threads' operators are not affected)."""
    n = torch.get_num_threads()
    if n == 1:
        yield
        return
    torch.set_num_threads(1)
    try:
        yield
    finally:
        torch.set_num_threads(n)


class _SeqSlots:
    """The sq_item and sq_ass_item slots of a heap class, read at creation
    and written back by reset(). Their place in the type object is
    confirmed once on a throwaway class through the C API itself
    (PySequence_Check and PySequence_SetItem before and after a reset);
    of() answers None where that probe fails."""

    _offsets = None  # (tp_as_sequence, sq_item, sq_ass_item) or ()

    def __init__(self, cls):
        import ctypes
        t, item, ass = self._offsets
        seq = ctypes.c_void_p.from_address(id(cls) + t).value
        self.cls = cls  # kept alive with the addresses below
        self.item = ctypes.c_void_p.from_address(seq + item)
        self.ass = ctypes.c_void_p.from_address(seq + ass)
        self.was = (self.item.value, self.ass.value)

    def reset(self):
        self.item.value, self.ass.value = self.was

    @classmethod
    def of(cls, klass):
        if cls._offsets is None:
            cls._offsets = cls._probe()
        if not cls._offsets or not isinstance(klass, type) or \
                not klass.__flags__ & (1 << 9):  # Py_TPFLAGS_HEAPTYPE
            return None
        return cls(klass)

    @classmethod
    def _probe(cls):
        try:
            import ctypes
            api = ctypes.pythonapi
            check, setitem = api.PySequence_Check, api.PySequence_SetItem
            check.argtypes = [ctypes.py_object]
            setitem.argtypes = [ctypes.py_object, ctypes.c_ssize_t,
                                ctypes.py_object]
            check.restype = setitem.restype = ctypes.c_int
            p = ctypes.sizeof(ctypes.c_void_p)
            # PyTypeObject: PyObject_VAR_HEAD (3 words), then tp_name ...;
            # tp_as_sequence is the 14th word. PySequenceMethods: sq_length,
            # sq_concat, sq_repeat, sq_item, (slice), sq_ass_item
            cls._offsets = (13 * p, 3 * p, 5 * p)

            class Probe:
                pass
            slots = cls(Probe)
            if slots.was != (None, None) or check(Probe()):
                return ()
            Probe.__getitem__ = lambda self, k: k
            Probe.__setitem__ = lambda self, k, v: None
            if not check(Probe()):
                return ()
            slots.reset()
            if check(Probe()):
                return ()
            try:
                setitem(Probe(), 0, 1)
                return ()  # sq_ass_item still there
            except TypeError:
                pass
            return cls._offsets
        except Exception:  # noqa: BLE001 - no ctypes or C API: no slots
            return ()


def _wrap(orig, threads):
    def constructor(*args, **kwargs):
        d = kwargs.get("device")
        if d is not None and threading.get_ident() in threads:
            try:
                meta = torch.device(d).type == "meta"
            except (RuntimeError, TypeError):
                meta = False
            if meta:
                kw = dict(kwargs)
                kw["device"] = _CPU
                if args:  # meta scalars in the data: their values
                    args = (_scalars(args[0]),) + tuple(args[1:])
                return orig(*args, **kw).to(_META)
        return orig(*args, **kwargs)
    constructor.__wrapped__ = orig
    constructor.__doc__ = orig.__doc__
    return constructor


def _scalars(data):
    """data (a list or tuple, nested or not) with each one-element meta
    tensor in it as its value: `.item()` called from Python reaches the
    recording, whose shadows answer it (PyTorch's own conversion of a
    sequence of tensors reads them where no dispatch mode sees it: Qwen2-VL's
    `torch.tensor(mrope_position_deltas, device=...)`). An unknown value
    raises as PyTorch would."""
    if isinstance(data, torch.Tensor):
        return data.item() if data.is_meta and data.numel() == 1 else data
    if type(data) in (list, tuple) and any(
            isinstance(e, (torch.Tensor, list, tuple)) for e in data):
        return type(data)(_scalars(e) for e in data)
    return data


def _plain_list(v):
    """A list of Python ints and bools, nested or not: what indexing turns
    into an index tensor."""
    return type(v) is list and bool(v) and all(
        type(e) in (int, bool) or _plain_list(e) for e in v)


def _listed(key):
    """The index `key` with its plain lists as tensors copied from the CPU
    to meta (ops the recording sees, with values), or None when it has
    none."""
    if _plain_list(key):
        return _torch_tensor(key, device=_CPU).to(_META)
    if type(key) is tuple and any(_plain_list(k) for k in key):
        return tuple(_torch_tensor(k, device=_CPU).to(_META)
                     if _plain_list(k) else k for k in key)
    return None


# torch.tensor as PyTorch defines it (a recording wraps the module's)
_torch_tensor = torch.tensor


def _wrap_index(orig, threads):
    def index(self, key, *value):
        if self.is_meta and threading.get_ident() in threads:
            listed = _listed(key)
            if listed is not None:
                key = listed
        return orig(self, key, *value)
    index.__wrapped__ = orig
    index.__name__ = orig.__name__
    index.__doc__ = orig.__doc__
    return index
