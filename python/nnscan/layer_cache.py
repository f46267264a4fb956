"""A transformers decoder layer's KV cache, for module_replay.py.

A transformers decoder layer (LLaMA's, Mistral's, Qwen's ...) differs from
its neighbours in one attribute, its attention's `layer_idx`, and is
called with the model's cache (a `DynamicCache`), into whose slot
`layer_idx` its attention writes the keys and values it made
(`past_key_values.update(k, v, self.layer_idx)`). To replay such a layer:

- the index is left out of the layers' signature only where nothing but
  the cache reads it: every read of `self.layer_idx` in the class's
  methods (its `__init__` apart: what it makes from the index is an
  attribute, compared as any other) is the index argument of an
  `.update(...)` call, or indexes the cache (`cache.layers[i]`,
  `cache.is_updated.get(i)`: GPT-2's cross-attention) through a name
  that holds nothing but the cache argument or a part of it
  (`index_only`, from the class's source). A class whose forward scales
  by its index or branches on it keeps the index in the signature: its
  layers differ and run;
- a cache argument keys by its class, its number of slots and the state
  of the layer's slot (`part`): an exact `DynamicLayer` or
  `DynamicSlidingWindowLayer` (with its window and the tokens it has
  seen) in an exact `DynamicCache`, the slot empty (a prefill) or
  holding keys and values (a decode step: they are then keyed as the
  call's arguments, which it extends); a quantized cache's layer keeps
  its call running;
- what the call did to its slot (`effect`: each attribute it set, a
  tensor by its graph name and meta, any other value by itself, where it
  is a plain value) is part of the layer's template, so two calls
  compared verify it too, and a replay makes it again (`apply`): the
  slot holds meta tensors named as the recorded call's were, which the
  model's output (its `past_key_values`) then reaches. A sliding
  window's slot also moves its own window size, a CPU scalar, to the
  keys' device as it starts (`_sliding_window_tensor`): on meta that is
  a tensor with a real value (a shadow), which the call may make
  (`valued`) and a replay makes again from the slot's own scalar.

A model's own call makes its cache and returns it (its output object's
`past_key_values`): a replay of the whole call (module_replay._form)
makes the cache again from its attributes (`output_form`,
`output_made`), its slots holding meta tensors named as the recorded
call's, which a generation's decode steps then read.

A state-space layer's (Mamba's mixer; FalconH1's, which has an
attention too) slot is a `LinearAttentionLayer` (or
`LinearAttentionAndFullAttentionLayer`): the layer reads its index in
`cache_params.has_previous_state(i)` and `cache_params.layers[i]`, also
in the methods its forward hands the cache to (`slow_forward`), and
writes its slot by `update_conv_state(states, i)` and
`update_recurrent_state(states, i)`. A prefill's slot is empty and keyed
by its plain attributes; the call sets its states (tensors it made) and
flags, its effect. A decode step writes the states its slot holds in
place, which no replay makes: its call runs.

An encoder-decoder's layer (T5's, BART's, Whisper's decoder) is called
with an `EncoderDecoderCache`: a `DynamicCache` for its self-attention,
another for its cross-attention, and `is_updated`, per layer whether
the cross-attention's slot holds the encoder's keys (a prefill makes
them and sets the flag, a decode step reads them). Its part is both
caches' parts and the layer's flag; its effect is both slots' entries,
each named (cache, attribute), and the flag where the call set it.
"""
import ast
import inspect
import textwrap
import types

import torch

from . import latest

_CACHE = ("transformers.cache_utils", "DynamicCache")
_ENC_DEC = ("transformers.cache_utils", "EncoderDecoderCache")
_PARTS = ("self_attention_cache", "cross_attention_cache")
_UPDATED = "is_updated"  # an encoder-decoder cache's {layer: cross slot set}
_SLOT = ("transformers.cache_utils", "DynamicLayer")
_SLIDING = ("transformers.cache_utils", "DynamicSlidingWindowLayer")
# a state-space layer's slot (Mamba's: its convolution's and its scan's
# states), and a hybrid layer's (FalconH1's: those and an attention's)
_LINEAR = ("transformers.cache_utils", "LinearAttentionLayer")
_HYBRID = ("transformers.cache_utils", "LinearAttentionAndFullAttentionLayer")
_LINEAR_STARTED = ("is_conv_states_initialized",
                   "is_recurrent_states_initialized", "has_previous_state")
_WINDOW = "_sliding_window_tensor"  # the sliding slot's size, a CPU scalar
_PLAIN = (bool, int, float, str, type(None), torch.dtype, torch.device)

# (class, the number layer_groups._class_key gives its state) -> whether
# index_only: a method patched since is read again
_INDEX_ONLY = {}
_INDEX_ONLY_MAX = 4096
# the attributes transformers keeps a layer's cache slot in (GPT-Neo's
# attention: `layer_id`)
INDEX_ATTRS = ("layer_idx", "layer_id")


def _named(cls, where):
    return (cls.__module__, cls.__qualname__) == where


def index_only(cls, key=None):
    """Whether every method of cls and its bases below nn.Module (their
    `__init__` apart) reads `self.layer_idx` (or `self.layer_id`:
    INDEX_ATTRS) only as the index argument
    of a call writing the layer's slot (_CACHE_WRITES: `.update()`'s
    third positional one, or `layer_idx=`), or as a subscript, `.get()`,
    `.get_seq_length()` or `.has_previous_state()` argument of its cache
    argument (a parameter named as transformers names one, of its
    forward or of a method the forward hands it to) or a local name
    given only a part of it. False where a source cannot be read, or a
    method is not the class's own (patched from elsewhere: the class's
    source is not what runs). `key`: layer_groups._class_key's of cls,
    the state its answer is kept for (None: the class, for its tests)."""
    if key is None:
        key = cls
    got = _INDEX_ONLY.get(key)
    if got is None:
        got = _index_only(cls)
        latest.put(_INDEX_ONLY, key, got, _INDEX_ONLY_MAX)
    return got


def _index_only(cls):
    sources = []
    for k in cls.__mro__:
        if k in (torch.nn.Module, object):
            continue
        own = k.__qualname__ + "."
        if any(type(v) is types.FunctionType and n != "__init__" and
               not v.__qualname__.startswith(own)
               for n, v in vars(k).items()):
            return False  # a method set from elsewhere: not in the source
        try:
            sources.append(_Source(ast.parse(textwrap.dedent(
                inspect.getsource(k)))))
        except (OSError, TypeError, SyntaxError):
            return False
    if all(_reads_index_only(x, {}) for x in sources):
        return True
    # (only then the methods the forward hands its cache to)
    handed = _handed(sources)
    return bool(handed) and all(_reads_index_only(x, handed)
                                for x in sources)


class _Source:
    """A class's parsed source, walked once for index_only's passes: the
    index arguments of its calls writing the layer's slot, and each
    function's nodes (a nested one's are its own and its outer's) and
    reads of the index."""
    __slots__ = ("tree", "allowed", "fns")

    def __init__(self, tree):
        self.tree, self.allowed, self.fns = tree, set(), []
        for node in ast.walk(tree):
            if isinstance(node, ast.Call) and \
                    isinstance(node.func, ast.Attribute) and \
                    node.func.attr in _CACHE_WRITES:
                at = _CACHE_WRITES[node.func.attr]
                if len(node.args) > at:
                    self.allowed.add(id(node.args[at]))
                self.allowed.update(id(k.value) for k in node.keywords
                                    if k.arg == "layer_idx")
            elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                nodes = list(ast.walk(node))
                reads = [x for x in nodes if isinstance(x, ast.Attribute)
                         and x.attr in INDEX_ATTRS and
                         isinstance(x.value, ast.Name) and
                         x.value.id == "self"]
                self.fns.append((node, nodes, reads))


# the names transformers gives a layer's cache argument
_CACHE_ARGS = frozenset(("past_key_values", "past_key_value", "layer_past",
                         "cache", "past", "cache_params"))


# the calls on a cache argument (or a part of it) that read what it holds
# for the layer given: a dict's .get, the cache's length of a layer's
# slot, whether a state-space layer's slot holds a state
_CACHE_READS = frozenset(("get", "get_seq_length", "has_previous_state"))
# the calls that write the layer's slot, their index argument's place:
# the KV cache's update(keys, values, layer_idx), a state-space layer's
# update_conv_state(states, layer_idx) and update_recurrent_state
_CACHE_WRITES = {"update": 2, "update_conv_state": 1,
                 "update_recurrent_state": 1}


def _reads_index_only(source, handed):
    """index_only's test of one class's source (a _Source), `handed`
    _handed's."""
    for fn, nodes, reads in source.fns:
        if fn.name == "__init__":
            continue  # (what it makes from the index is an attribute)
        # (a forward's parameters are the module's call's arguments: its
        # cache argument is what module_replay keys, a DynamicCache; a
        # method only the forward calls, handing it the cache by name,
        # holds it so too: Mamba's slow_forward(hidden_states,
        # cache_params, ...))
        if fn.name == "forward":
            caches = _cache_names(fn, nodes=nodes)
        elif id(fn) in handed:
            caches = _cache_names(fn, handed[id(fn)], nodes)
        else:
            caches = set()
        if caches is None:
            return False  # (a forward's, whether it reads the index or not)
        if not reads:
            continue
        mine = set(source.allowed)
        for node in nodes:
            if isinstance(node, ast.Subscript) and \
                    _root(node.value) in caches:
                mine.add(id(node.slice))
            elif isinstance(node, ast.Call) and \
                    isinstance(node.func, ast.Attribute) and \
                    node.func.attr in _CACHE_READS and \
                    _root(node.func.value) in caches:
                # a dict's .get(i), or the cache's own question about the
                # layer's slot (its length: T5's attention), which the
                # slot's part of the key holds
                if node.args:
                    mine.add(id(node.args[0]))
                mine.update(id(k.value) for k in node.keywords
                            if k.arg == "layer_idx")
        if any(id(x) not in mine for x in reads):
            return False
    return True


def _handed(sources):
    """id(method's node) -> its parameters named as a cache is
    (_CACHE_ARGS) that every use of the method gives the forward's cache
    argument, for the class whose MRO's _Sources are `sources` (its own
    first): each use a call in the forward the class runs, the argument
    at the parameter's place (or by its name) a name _cache_names finds
    there. A method used any other way (a call from any other method, an
    overridden forward's included, its bound method taken, a starred
    argument) hands nothing on."""
    nodes_of = {id(fn): nodes for x in sources for fn, nodes, _ in x.fns}
    methods = []  # every method of the MRO's classes, the class's first
    for x in sources:
        cls = next((n for n in x.tree.body if isinstance(n, ast.ClassDef)),
                   None)
        if cls is not None:
            methods.extend(n for n in cls.body if id(n) in nodes_of)
    fns = {}  # name -> the method the class runs
    for fn in methods:
        fns.setdefault(fn.name, fn)
    fwd = fns.get("forward")
    caches = _cache_names(fwd, nodes=nodes_of[id(fwd)]) \
        if fwd is not None else None
    if not caches:
        return {}
    uses = {}
    for fn in methods:
        called = set()
        for node in nodes_of[id(fn)]:  # (a call is met before its function)
            if isinstance(node, ast.Call) and _on_self(node.func, fns):
                called.add(id(node.func))
                uses.setdefault(node.func.attr, []).append(
                    node if fn is fwd else None)
            elif _on_self(node, fns) and id(node) not in called:
                uses.setdefault(node.attr, []).append(None)
    out = {}
    for name, calls in uses.items():
        a = fns[name].args
        params = [x.arg for x in a.posonlyargs + a.args][1:]  # (self)
        given = {p for p in _CACHE_ARGS.intersection(params)
                 if all(c is not None and
                        _given(c, params.index(p), p) in caches
                        for c in calls)}
        if given and name != "forward":
            out[id(fns[name])] = given
    return out


def _on_self(node, fns):
    return isinstance(node, ast.Attribute) and node.attr in fns and \
        isinstance(node.value, ast.Name) and node.value.id == "self"


def _given(call, at, name):
    """The name a call gives its parameter at place `at` (or `name`),
    else None."""
    if any(isinstance(x, ast.Starred) for x in call.args) or \
            any(k.arg is None for k in call.keywords):
        return None
    e = call.args[at] if at < len(call.args) else next(
        (k.value for k in call.keywords if k.arg == name), None)
    return e.id if isinstance(e, ast.Name) else None


def _root(e):
    """The name an expression of attributes and subscripts starts from
    (`a` of `a.b[1].c`), or None."""
    while isinstance(e, (ast.Attribute, ast.Subscript)):
        e = e.value
    return e.id if isinstance(e, ast.Name) else None


def _cache_names(fn, given=None, nodes=None):
    """The names in a forward `fn` that hold its cache argument or a part
    of it: its parameters named as transformers names a cache (or those
    `given`: a method's that the forward hands its cache to), and the
    local names given only such a name's parts (`cur = past_key_values`
    or `past_key_values.self_attention_cache`, not `cur.layers[i].keys`,
    a value the cache holds); None where such a name is bound any other
    way (given anything else, a loop's or a `with`'s target, a nested
    function's parameter: it may then be indexed for other reasons).
    `nodes`: ast.walk(fn)'s, where walked already."""
    if nodes is None:
        nodes = list(ast.walk(fn))
    a = fn.args
    params = {x.arg for x in a.posonlyargs + a.args + a.kwonlyargs}
    names = params & _CACHE_ARGS if given is None else set(given)
    binds, simple = [], set()
    for node in nodes:
        if isinstance(node, (ast.Assign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) \
                else [node.target]
            for t in targets:
                if isinstance(t, ast.Name) and node.value is not None:
                    binds.append((t.id, node.value))
                    simple.add(id(t))
    grew = True
    while grew:  # the locals given parts of the cache, to a fixed point
        grew = False
        for name, value in binds:
            if name not in names and _part(value) in names:
                names.add(name)
                grew = True
    for name, value in binds:
        if name in names and _part(value) not in names and not (
                isinstance(value, ast.Constant) and value.value is None):
            return None
    for node in nodes:
        if isinstance(node, ast.Name) and \
                not isinstance(node.ctx, ast.Load) and \
                node.id in names and id(node) not in simple:
            return None
        if node is not fn and isinstance(
                node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            inner = node.args
            if names & {x.arg for x in inner.posonlyargs + inner.args +
                        inner.kwonlyargs}:
                return None
        if isinstance(node, (ast.Global, ast.Nonlocal)) and \
                names & set(node.names):
            return None
    return names


def _part(e):
    """The name an expression of attributes only starts from (`a` of
    `a.b.c`: a part of the object `a` names, not what it holds), or
    None."""
    while isinstance(e, ast.Attribute):
        e = e.value
    return e.id if isinstance(e, ast.Name) else None


def is_cache(v):
    """A DynamicCache, or an EncoderDecoderCache of two (its
    self-attention's and cross-attention's) with its `is_updated` dict
    and nothing else."""
    if _named(type(v), _CACHE):
        return True
    if not _named(type(v), _ENC_DEC):
        return False
    d = vars(v)
    return d.keys() == {*_PARTS, _UPDATED} and \
        type(d[_UPDATED]) is dict and \
        all(_named(type(d[p]), _CACHE) for p in _PARTS)


def _enc_dec(cache):
    """The two caches of an encoder-decoder cache, else None."""
    if not _named(type(cache), _ENC_DEC):
        return None
    d = vars(cache)
    return tuple(d[p] for p in _PARTS)


def part(cache, index, names):
    """the key's part (_dynamic_part below) of a cache argument; an
    encoder-decoder cache's is both its caches' and the layer's
    `is_updated` flag (whether the cross-attention's slot holds the
    encoder's keys: a decode step reads them, keyed as arguments, where
    a prefill makes them)."""
    parts = _enc_dec(cache)
    if parts is None:
        return _dynamic_part(cache, index, names)
    flag = vars(cache)[_UPDATED].get(index)
    if type(flag) not in (bool, type(None)):
        raise LookupError(index)
    (k0, h0), (k1, h1) = (_dynamic_part(c, index, names)
                            for c in parts)
    return ("enc-dec", k0, k1, flag), h0 + h1


def _dynamic_part(cache, index, names):
    """(the key's part for a cache argument of a layer of `index`: the
    cache's class and number of slots, the slot's class and its plain
    attributes; the tensors the slot holds, which the call reads as it
    extends them: keyed as arguments); LookupError where the slot is
    not one a replay can make again. `names`: the recording's value
    names (by id), a sliding slot's scalar keyed by whether it has one
    (its move to meta then keeps it, an alias; else the move names it,
    a constant of the call's)."""
    layers = getattr(cache, "layers", None)
    if type(index) is not int or type(layers) is not list or \
            not 0 <= index < len(layers) or \
            getattr(cache, "offloading", False):
        raise LookupError(index)  # (an offloading cache moves the others)
    slot = layers[index]
    cls, d = type(slot), vars(slot)
    sliding = _named(cls, _SLIDING)
    state_space = _named(cls, _LINEAR) or _named(cls, _HYBRID)
    if state_space and any(d.get(k) is not False for k in _LINEAR_STARTED):
        # a decode step: it writes the states its slot holds in place,
        # which no replay makes
        raise LookupError(index)
    if not (sliding or state_space or _named(cls, _SLOT)) or \
            sliding and type(d.get("sliding_window")) is not int:
        raise LookupError(index)
    # (a state-space slot alone has no attention's flag: empty)
    held, start = (), d.get("is_initialized",
                            False if state_space else None)
    if start is True:
        # a decode step's: keys and values, named meta tensors (a sliding
        # window's moved its scalar to meta as it started: no move now)
        held = (d.get("keys"), d.get("values"))
        if not all(isinstance(t, torch.Tensor) and t.is_meta and
                   id(t) in names for t in held) or sliding and not (
                       type(d.get("cumulative_length")) is int and
                       isinstance(d.get(_WINDOW), torch.Tensor) and
                       d[_WINDOW].is_meta):
            raise LookupError(index)
        extra = ("filled",)
    elif start is not False:
        raise LookupError(index)
    elif sliding:
        size = d.get(_WINDOW)
        if d.get("cumulative_length") != 0 or \
                not isinstance(size, torch.Tensor) or size.is_meta or \
                size.dim() != 0 or size.dtype != torch.int64:
            raise LookupError(index)
        extra = (id(size) in names,)
    else:
        extra = ()
    return ("cache", type(cache), len(layers), cls) + tuple(
        (k, v) for k, v in d.items() if type(v) in _PLAIN) + extra, held


def before(cache, index):
    """What the cache holds before the call (for effect): the layer's
    slot's attributes, every slot's values, and the cache's own
    attributes (a dict's or list's items too); an encoder-decoder
    cache's, each of its caches' and its own."""
    parts = _enc_dec(cache)
    if parts is not None:
        return tuple(_dynamic_before(c, index) for c in parts) + (_own(cache),)
    return _dynamic_before(cache, index)


def _dynamic_before(cache, index):
    layers = cache.layers
    return dict(vars(layers[index])), len(layers), \
        [tuple(vars(x).items()) for x in layers], _own(cache)


def _own(cache):
    """The cache's own attributes (its slots apart) as (name, value, a
    dict's or list's items)."""
    return [(k, v, tuple(v.items()) if type(v) is dict else
             tuple(enumerate(v)) if type(v) is list and k != "layers"
             else ()) for k, v in vars(cache).items()]


def _same(a, b):
    """Whether two sequences of (name, object) or (name, object, items)
    pair the same names with the very same objects (the items so too)."""
    if len(a) != len(b):
        return False
    for x, y in zip(a, b):
        if x[0] != y[0] or x[1] is not y[1] or \
                len(x) > 2 and not _same(x[2], y[2]):
            return False
    return True


def effect(cache, index, was, names, scope_of):
    """_dynamic_effect below; for an encoder-decoder cache each of its caches'
    entries, named (cache's attribute, slot's attribute), and the
    layer's `is_updated` flag where the call set it, (("is_updated",),
    "v", the flag): LookupError where it set any other entry of the
    dict or any other attribute."""
    parts = _enc_dec(cache)
    if parts is None:
        return _dynamic_effect(cache, index, was, names, scope_of)
    own, flags = _own(cache), vars(cache)[_UPDATED]
    if len(own) != len(was[2]) or any(
            x[0] != y[0] or x[1] is not y[1] for x, y in zip(own, was[2])):
        raise LookupError("cache")  # it set the cache's own attributes
    old = dict(next(x[2] for x in was[2] if x[0] == _UPDATED))
    if any(k not in flags for k in old) or any(
            k != index and (k not in old or old[k] is not v)
            for k, v in flags.items()):
        raise LookupError(_UPDATED)  # another layer's flag, or one removed
    out = [((p, e[0]),) + e[1:] for p, c, w in zip(_PARTS, parts, was)
           for e in _dynamic_effect(c, index, w, names, scope_of)]
    if index in flags and (index not in old or old[index] is not
                           flags[index]):
        if type(flags[index]) is not bool:
            raise LookupError(_UPDATED)
        out.append(((_UPDATED,), "v", flags[index]))
    return tuple(out)


def _dynamic_effect(cache, index, was, names, scope_of):
    """What the call set in the slot: ((attribute, "t", its graph name,
    the scope that made it, its meta) or (attribute, "v", a plain value)
    or (attribute, "s", ...as "t"): the slot's own CPU tensor moved to
    meta, its value a shadow), ...), in the slot's order; LookupError
    where it did anything else (removed an attribute, set an object, a
    tensor with no name, grew the cache, wrote another slot or the
    cache's own attributes)."""
    old, n, slots, own = was
    layers = cache.layers
    if len(layers) != n:
        raise LookupError("slots")
    if not _same(own, _own(cache)):
        raise LookupError("cache")  # it set the cache's own attributes
    for k, (x, items) in enumerate(zip(layers, slots)):
        if k != index and not _same(tuple(vars(x).items()), items):
            raise LookupError(k)  # it wrote another layer's slot
    now = vars(layers[index])
    if any(k not in now for k in old):
        raise LookupError("removed")
    out = []
    for k, v in now.items():
        if k in old and old[k] is v:
            continue
        if isinstance(v, torch.Tensor):
            name = names.get(id(v))
            if name is None or not v.is_meta:
                raise LookupError(k)
            was_v = old.get(k)
            moved = k == _WINDOW and _named(type(layers[index]), _SLIDING) \
                and isinstance(was_v, torch.Tensor) and not was_v.is_meta
            if moved and names.get(id(was_v)) == name:
                name = None  # the scalar's own name, from before the call
            out.append((k, "s" if moved else "t", name, scope_of.get(id(v)),
                        (v.dtype, tuple(v.shape), tuple(v.stride()))))
        elif type(v) in _PLAIN:
            out.append((k, "v", v))
        else:
            raise LookupError(k)
    return tuple(out)


def valued(cache, index, made):
    """The ids of the tensors the call put in its slot whose real value
    is the slot's own (effect's "s"): made with a value, and made again
    so by a replay."""
    return {id(_slot(cache, index, e[0])[_attr(e[0])]) for e in made
            if e[1] == "s"}


def _slot(cache, index, attr):
    """The attributes of the slot an entry of effect's names: of the
    cache's own slot, or of one of an encoder-decoder cache's caches
    (attr a pair) or the flags (attr ("is_updated",))."""
    if type(attr) is tuple:
        if len(attr) == 1:
            return vars(cache)[_UPDATED]
        cache = vars(cache)[attr[0]]
    return vars(cache.layers[index])


def _attr(attr):
    return attr if type(attr) is not tuple else attr[-1]


def apply(cache, index, made, tensor, shadows):
    """Sets the slot as `made` (effect's, its names as tensor() makes
    them: tensor(name, scope, meta, the attribute's value before) -> a
    meta tensor named, under the value's own name where the name is
    None); a moved CPU tensor's value kept as its meta tensor's shadow
    (shadow.Shadows, or None when the recording keeps none), as the move
    gives it."""
    for e in made:
        slot = _slot(cache, index, e[0])
        key = index if e[0] == (_UPDATED,) else _attr(e[0])
        if e[1] == "v":
            slot[key] = e[2]
            continue
        was = slot.get(key)
        t = tensor(*e[2:], was)
        if e[1] == "s" and shadows is not None:
            shadows.adopt(t, was)
        slot[key] = t


# what a model's call may return a cache of (output_form), at most so deep
_CACHES = "transformers.cache_utils"
_OUTPUT_DEPTH = 4


def output_form(v, tensors, depth=0):
    """How a cache the model's own call made and returned (its output
    object's `past_key_values`: a DynamicCache, an EncoderDecoderCache)
    is made again by a replay of the call (module_replay._form): "t" for
    a tensor (appended to `tensors`, the output's tensors in order),
    ("v", a plain value), ("l", items) for a list, ("d", items) for a
    dict of plain keys and values, and ("o", class, (attribute, form)
    ...) for an object of a transformers cache class whose state is its
    attributes. LookupError for anything else (an object of another
    kind: what it is cannot be made again from its attributes)."""
    if isinstance(v, torch.Tensor):
        tensors.append(v)
        return "t"
    if type(v) in _PLAIN:
        return ("v", v)
    if depth >= _OUTPUT_DEPTH:
        raise LookupError(type(v).__name__)
    if type(v) is list:
        return ("l", tuple(output_form(x, tensors, depth + 1) for x in v))
    if type(v) is dict:
        if not all(type(k) in _PLAIN and type(x) in _PLAIN
                   for k, x in v.items()):
            raise LookupError("dict")
        return ("d", tuple(v.items()))
    cls = type(v)
    if cls.__module__ != _CACHES or not hasattr(v, "__dict__") or \
            any(vars(c).get("__slots__") for c in cls.__mro__):
        # (abc.ABC's empty __slots__ holds nothing)
        raise LookupError(cls.__name__)
    return ("o", cls, tuple((k, output_form(x, tensors, depth + 1))
                            for k, x in vars(v).items()))


def output_made(form, tensors):
    """What output_form described, made again: its tensors taken in
    order from the iterator `tensors`; an object made without its
    __init__, its attributes set as they were."""
    if form == "t":
        return next(tensors)
    kind = form[0]
    if kind == "v":
        return form[1]
    if kind == "l":
        return [output_made(f, tensors) for f in form[1]]
    if kind == "d":
        return dict(form[1])
    obj = form[1].__new__(form[1])
    vars(obj).update((k, output_made(f, tensors)) for k, f in form[2])
    return obj
