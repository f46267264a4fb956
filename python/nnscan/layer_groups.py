"""Which layers of a model are alike, for module_replay.py.

Layers alike (`candidates`): modules of one class whose subtrees are the
same (each submodule's relative path and class, the class's methods and
class attributes as they are now (_class_key), each parameter's and
buffer's relative name, dtype, sizes and requires_grad, each tensor
attribute's dtype and sizes, and every other attribute equal: numbers,
strings and dtypes by value, a function by its module and qualified
name, a dict of such functions by its items, a plain data object such as
transformers' configs by its values (_plain_object), any other object by
identity), _ALIKE (two) or more of them, of at least _LEAST modules, and
no such module above them; or one such module alone, alike at a glance
to others of its class but to none whole, where its signature holds for
the process (module_replay.py verifies its template across recordings,
while groups of layers alike below it replay inside it); or the model
itself, where its first recording's call returned tensors (_root: over
every layer, from the architecture's second recording); or one module
called more than once in a forward, learnt from the architecture's
first recording (`called_again`: ALBERT's one layer group). In eval
mode a drop rate is no difference where the class is known not to read
it (_idle_in_eval); a transformers `layer_idx` is none where only the
KV cache's update reads it (layer_cache.index_only). A group's
signature holds for the process where it holds no attribute compared
by identity.

Per architecture (module paths and classes) the cheap part of finding
the groups is made once (_ARCHS, the latest 64 architectures a process
used), less the groups module_replay.py drops (`drop`): alike at a
glance but not whole, too quick to record for replays to pay, or whose
templates cannot be read or differ.
"""
import functools
import itertools
import sys
import types

import torch

from . import latest, layer_cache

# nn.Module's own per-instance tables: not attributes that make layers
# differ (the hooks are checked apart). A forward set on the instance is
# an attribute like any other: compared by identity.
_MODULE_OWN = frozenset((
    "_parameters", "_buffers", "_modules", "_non_persistent_buffers_set",
    "_backward_pre_hooks", "_backward_hooks", "_is_full_backward_hook",
    "_forward_hooks", "_forward_hooks_with_kwargs",
    "_forward_hooks_always_called", "_forward_pre_hooks",
    "_forward_pre_hooks_with_kwargs", "_state_dict_hooks",
    "_state_dict_pre_hooks", "_load_state_dict_pre_hooks",
    "_load_state_dict_post_hooks"))
_HOOKS = ("_forward_hooks", "_forward_pre_hooks", "_backward_hooks",
          "_backward_pre_hooks")
_PLAIN = frozenset((int, float, str, bool, type(None), torch.dtype,
                    torch.device))

class _Id:
    """Marks an attribute compared by identity: a signature holding one
    holds within one recording only (its object may die, and another
    take its id)."""


_ID = _Id()
# a module's attribute names, in order -> those not nn.Module's own tables
# (attribute_names: a model's modules share a few such lists)
_OWN_KEYS = {}


_IDLE = {}
# class -> (its own attributes' values and its bases' below nn.Module, as
# the objects they are; _class_key's (class, number) for them; the same
# less copy's slot cache), the latest used
_CLASSES = {}
_CLASSES_MAX = 4096
_CLASS_STATES = itertools.count(1)
# class -> itself and its bases below nn.Module
_BASES = {}
_NN_MODULE = torch.nn.Module


def _idle_in_eval():
    """class -> the attributes its forward does not read in eval mode
    (then it returns its input) but to check them: a drop rate, in [0, 1].
    So the layers of a stochastic depth rate growing with depth (ConvNeXt,
    EfficientNet, Swin) are alike in eval. Exact classes: a subclass may
    read them."""
    if not _IDLE:
        nn = torch.nn
        for c in (nn.Dropout, nn.Dropout1d, nn.Dropout2d, nn.Dropout3d,
                  nn.AlphaDropout, nn.FeatureAlphaDropout):
            _IDLE[c] = ("p",)
    if len(_IDLE) == 6:  # torchvision's, once it is imported
        sd = getattr(sys.modules.get("torchvision.ops"), "StochasticDepth",
                     None)
        if sd is not None:
            _IDLE[sd] = ("p",)
    return _IDLE


def _class_key(cls, memo):
    """(cls, n), where n is the same while cls's own attributes and its
    bases' below nn.Module are the objects they were (compared item by
    item: the same objects are equal at once): a method or a class
    attribute rebound (a class's forward patched to try another
    attention) makes another n, so no template noted before replays and
    no kept recording is built. Once per class and recording (`memo`)."""
    # (the class itself the memo's key: its others are ids and tuples)
    got = memo.get(cls) if memo is not None else None
    if got is not None:
        return got
    bases = _BASES.get(cls)
    if bases is None:
        bases = tuple(itertools.takewhile(
            lambda k: k is not _NN_MODULE, cls.__mro__))
        if len(_BASES) < _CLASSES_MAX:
            _BASES[cls] = bases
    # (most classes are one below nn.Module: their values, not a tuple of)
    vals = tuple(vars(cls).values()) if len(bases) == 1 else \
        tuple([tuple(d.values()) for d in map(vars, bases)])
    kept = _CLASSES.get(cls)
    try:
        same = kept is not None and kept[0] == vals
    except Exception:  # noqa: BLE001 - values that do not compare
        same = False
    if not same:
        # (copy's cache of a class's slots, made at its first copy, is
        # left out: the meta copy's of a model's layers, or another
        # model's, is no change)
        own = tuple([tuple(v for n, v in d.items() if n != "__slotnames__")
                     for d in map(vars, bases)])
        try:
            same = kept is not None and kept[2] == own
        except Exception:  # noqa: BLE001
            same = False
        # (a number never given before: an entry made room for and made
        # again matches no template of before)
        kept = (vals, kept[1] if same else (cls, next(_CLASS_STATES)), own)
        # the objects held, so none dies and another takes its place
        latest.put(_CLASSES, cls, kept, _CLASSES_MAX)
    # (one object for the class's state: signatures holding it compare at
    # once)
    got = kept[1]
    if memo is not None:
        memo[cls] = got
    return got


def _own_signature(m, memo=None, track=None):
    """A module's own part of its signature: its class, its attributes
    (nn.Module's own tables left out; numbers, strings and dtypes by
    value, lists and tuples by their items, a tensor by its dtype and
    sizes, a plain data object by its values, anything else by identity)
    and its parameters and buffers. In the order the module made them:
    two made in another order are told apart. And whether it has hooks,
    and whether no attribute is compared by identity (then the signature
    holds for the process). track: where given (summary_memo's state,
    which reads the module's tensors too), told of each tensor attribute
    (`track.tensor(t)`) and of the module's parameters and buffers
    (`track.module(params, buffers)`), in this one pass over them."""
    d = vars(m)
    c = type(m)
    attrs = [_class_key(c, memo)]
    idle = _idle_in_eval().get(c) if not d.get("training", True) else None
    portable = True  # no attribute compared by identity
    for k in attribute_names(d):
        v = d[k]
        t = type(v)
        if t in _PLAIN:
            if idle is not None and k in idle and t is float and \
                    0 <= v <= 1:
                attrs.append((k, "unused in eval"))
            elif k in layer_cache.INDEX_ATTRS and t is int and \
                    layer_cache.index_only(c, attrs[0]):
                attrs.append((k, "a cache slot"))  # layer_cache's docstring
            else:
                attrs.append((k, v))
        elif (t is tuple or t is list) and _PLAIN.issuperset(map(type, v)):
            attrs.append((k, t, tuple(v)))
        elif (t is set or t is frozenset) and _PLAIN.issuperset(map(type, v)):
            # (transformers' models hold a dozen such sets and dicts, each
            # frozen by _plain_object in every signature before)
            attrs.append((k, t, frozenset(v)))
        elif t is dict and _PLAIN.issuperset(map(type, v)) and \
                _PLAIN.issuperset(map(type, v.values())):
            attrs.append((k, t, tuple(v.items())))
        elif isinstance(v, torch.Tensor):
            attrs.append((k, v.dtype, v.shape))
            if track is not None:
                track.tensor(v)
        else:
            named = _named(v)
            if named is None and t is dict:  # of names: transformers'
                items = tuple((x, _named(y)) for x, y in v.items())
                if all(type(x) is str and y is not None for x, y in items):
                    named = (dict, items)
            if named is None:
                named = _plain_object(v, memo)
            if named is None:
                attrs.append((k, _ID, id(v)))
                portable = False
            else:
                attrs.append((k, named))
    params, buffers = d["_parameters"], d["_buffers"]
    for store in (params, buffers):
        attrs.append(None)  # parameters, then buffers
        for k, v in store.items():
            attrs.append((k, None) if v is None else
                         (k, v.dtype, v.shape, v.requires_grad))
    if track is not None:
        track.module(params, buffers)
    get = d.get
    return tuple(attrs), bool(get(_HOOKS[0]) or get(_HOOKS[1]) or
                              get(_HOOKS[2]) or get(_HOOKS[3])), portable


def attribute_names(d):
    """The names in a module's __dict__ `d` but nn.Module's own tables,
    in order (the module's attributes: recorder.py's meta copy looks for
    tensors among them, _own_signature compares them)."""
    keys = tuple(d)
    own = _OWN_KEYS.get(keys)
    if own is None:
        own = tuple(k for k in keys if k not in _MODULE_OWN)
        if len(_OWN_KEYS) < 4096:
            _OWN_KEYS[keys] = own
    return own


def _named(v):
    """("fn", module, qualified name) of a function defined at a module's
    top level or in a class (F.relu, transformers' rotary helpers): the
    same in any process that imports it; ("partial", that, its
    arguments, its keywords) of a functools.partial of one with plain
    arguments or tuples of them (transformers' GELUTanh: `partial(F.gelu,
    approximate="tanh")`, one per layer); None for anything else (a
    closure, a lambda, an object: compared by identity). A class
    (ResNet's `_norm_layer`, ViT's `partial(nn.LayerNorm, eps=1e-6)`) is
    ("class", the class) itself: the signature holds it, so no other
    class can take its identity."""
    t = type(v)
    if t in (types.FunctionType, types.BuiltinFunctionType):
        mod, qual = getattr(v, "__module__", None), v.__qualname__
        if type(mod) is str and "<" not in qual:
            return ("fn", mod, qual)
    elif isinstance(v, type):
        return ("class", v)
    elif t is functools.partial:
        fn = _named(v.func)
        kw = tuple(v.keywords.items())
        if fn is not None and fn[0] in ("fn", "class") and \
                all(map(_plain_argument, v.args)) and \
                all(type(k) is str and _plain_argument(x) for k, x in kw):
            return ("partial", fn, v.args, kw)
    return None


def _plain_argument(x):
    """A partial's argument compared by value: a plain value, or a tuple
    of them (FNet's `partial(torch.fft.fftn, dim=(1, 2))`)."""
    t = type(x)
    return t in _PLAIN or (t is tuple and _PLAIN.issuperset(map(type, x)))


def _plain_object(v, memo=None):
    """("object", class, its attributes' values) of a plain data object
    (transformers' PretrainedConfig: each attention and MLP holds the
    model's): one whose __dict__ holds, down to _PLAIN_DEPTH levels, only
    plain values, lists, tuples, sets, dicts of plain keys and such
    objects, _PLAIN_ITEMS items at most in all; None for anything else.
    A layer's forward reads such an object's values when it runs, so two
    layers holding equal ones behave alike, and the values hold for the
    process where an identity would hold for one recording (a signature
    is made anew for each recording: a value changed since is seen).
    Once per object in a `memo` (one recording's: the object lives)."""
    key = ("plain", id(v))
    if memo is not None and key in memo:
        return memo[key]
    budget = [_PLAIN_ITEMS]

    def count(n):
        """n more items (each visited once: the budget's unit)."""
        budget[0] -= n
        if budget[0] < 0:
            raise LookupError

    def each(values, depth):
        """The frozen forms of `values` (items of a container at `depth`),
        counted; a plain one is its own."""
        count(len(values))
        if _PLAIN.issuperset(map(type, values)):
            return tuple(values)
        return tuple(y if type(y) in _PLAIN else frozen(y, depth + 1)
                     for y in values)

    def frozen(x, depth):  # (x counted by its caller)
        t = type(x)
        if t in _PLAIN:
            return x
        if depth > _PLAIN_DEPTH:
            raise LookupError
        if t is list or t is tuple:
            return (t, each(x, depth))
        if t is dict or t is set or t is frozenset:
            if not _PLAIN.issuperset(map(type, x)):
                raise LookupError
            if t is dict:
                return (dict, tuple(zip(x, each(x.values(), depth))))
            count(len(x))
            return (t, tuple(sorted(x, key=repr)))
        d = getattr(x, "__dict__", None)
        if type(d) is not dict or isinstance(x, (torch.nn.Module,
                                                 torch.Tensor)) or \
                hasattr(t, "__slots__") or callable(x):
            raise LookupError
        return ("object", t, tuple(zip(d, each(d.values(), depth))))
    try:
        count(1)
        got = frozen(v, 0)
    except (LookupError, RecursionError):
        got = None
    if memo is not None:
        memo[key] = got
    return got


def _deep(m, memo, track=None):
    """(key, hooked, hooked below, portable) of m's subtree, once per
    memo: key, its own signature and each child's (name, key, hooked) in
    order, compares equal where every module of two subtrees is alike at
    the same relative path (a tuple compares item by item, in C, up to
    the first difference); hooked, whether m has hooks of its own (which
    run in a replay: its children's do not); portable, whether no
    attribute below is compared by identity (_Id). track: each module's
    tensors told to it once (_own_signature's), in the order the modules
    are first met (named_modules')."""
    got = memo.get(id(m))
    if got is not None:
        return got
    own, hooked, portable = _own_signature(m, memo, track)
    below, kids = False, []
    for k, c in m._modules.items():
        if c is None:
            kids.append((k, None))
            continue
        key, c_hooked, c_below, c_portable = _deep(c, memo, track)
        kids.append((k, key, c_hooked))
        below = below or c_hooked or c_below
        portable = portable and c_portable
    got = memo[id(m)] = ((own, tuple(kids)), hooked, below, portable)
    return got


class _Sig:
    """A group's signature as a key: hashed once (a layer's is a few
    hundred items, and a tuple hashes them all each time)."""
    __slots__ = ("items", "h")

    def __init__(self, items):
        self.items, self.h = items, hash(items)

    def __hash__(self):
        return self.h

    def __eq__(self, other):
        return self is other or (type(other) is _Sig and other.h == self.h
                                 and other.items == self.items)


def _shallow(modules):
    """The groups of layers that may be alike (candidates' cheap tests),
    as lists of paths."""
    count = {}
    for _, m in modules:
        count[type(m)] = count.get(type(m), 0) + 1
    if not any(n >= _ALIKE for n in count.values()):
        return []
    size = _sizes(modules)
    shallow = {}
    for path, m in modules:
        # a container with no forward of its own (T5's block.layer) is
        # never called: a group of them would only hide their children's
        if path and count[type(m)] >= _ALIKE and size[path] >= _LEAST and \
                type(m) not in _UNCALLED:
            # its class and its children's and own parameters' names:
            # layers that differ in a child's class or in width are
            # compared whole too (each then a group of its own)
            k = (type(m), tuple(m._modules), tuple(m._parameters))
            shallow.setdefault(k, []).append(path)
    return [g for g in shallow.values() if len(g) >= _ALIKE]


def candidates(modules, arch=None, memo=None):
    """path -> (module, its group's number, its group's signature where
    it holds for the process, else None): the layers a recording may
    replay.

    Cheap tests first, as most modules are none (_shallow): a class of
    _ALIKE or more modules, a subtree of at least _LEAST modules (a replay
    saves the recording of what is below it; a conv-norm-activation
    triple saves less than its key and template cost), its children's
    and its own parameters' names alike in _ALIKE or more; made once per
    architecture (`arch`) and process, less the groups found too small to
    pay (_ARCHS). Only those are compared whole: each one's subtree made
    one key (_deep: every module's own signature, once per recording) and
    compared against the latest groups' up to the first difference; a
    layer index read by one submodule (transformers' attention) makes each
    layer a group of its own. A layer alike to none of them is a group of
    its own where its signature holds for the process (BEiT's first layer,
    whose drop path is an Identity; stages of two widths); groups of
    layers alike below it are candidates too, replayed inside it while
    it notes and verifies its template. memo: _deep's, of signatures
    made already (`seeded`)."""
    known = latest.used(_ARCHS, arch) if arch is not None else None
    if known is None:
        known = _Arch(_shallow(modules))
        if arch is not None:
            latest.put(_ARCHS, arch, known, _ARCHS_MAX)
    shallow, small = known.shallow, known.small
    known.recordings += 1
    if not shallow and not known.root:
        return {}
    by_path = dict(modules)
    memo = {} if memo is None else memo
    out, number = {}, 0
    for paths in shallow:
        groups = []  # [its first member's _deep, [(path, module)]]
        apart = []  # groups of one no later layer is compared with
        for path in paths:
            if path in small:
                continue
            m = by_path[path]
            if len(groups) >= _MAX_APART:
                # compared with the latest few only: a layer index in each
                # (transformers') makes every layer a group of its own
                lone = [g for g in groups if len(g[1]) == 1]
                if lone:
                    groups.remove(lone[0])
                    apart.append(lone[0])
            try:
                deep = _deep(m, memo)
                for g in reversed(groups):
                    if g[0][0] == deep[0]:
                        g[1].append((path, m))
                        break
                else:
                    groups.append([deep, [(path, m)]])
            except Exception:  # noqa: BLE001 - attributes that do not compare
                continue
        found = False
        for deep, alike in apart + groups:
            if deep[2] or (len(alike) < _ALIKE and not deep[3]):
                # a hook below it: each call runs; a layer alike to none
                # is one where its template holds for the process (a
                # later recording verifies it: module_replay.py)
                continue
            found = True
            sig = _Sig(deep[0]) if deep[3] else None
            for path, m in alike:
                out[path] = (m, number, sig, [p for p, _ in alike])
            number += 1
        if not found:
            # alike at a glance, not whole: not compared again for the
            # architecture (a layer changed since is only not replayed)
            small.update(paths)
    # the outermost only, a layer replayed holding its sublayers' calls;
    # but a layer alike to none holds layers alike below it (ResNet's
    # stages, CLIP's and T5's encoders, DeepSeek's dense and MoE layers):
    # they replay from a recording's first calls, it (the outermost such
    # layer) from the architecture's fourth: noted by the second
    # recording and verified by the third while they replay inside it,
    # so a first summary pays nothing for it
    # the model itself, from the architecture's second recording (noted
    # by it, verified by the third, replayed whole from the fourth) where
    # its call returned tensors: over every layer, the outermost
    root = _root(modules, known, memo, number) \
        if known.recordings >= 2 else None
    grouped = {p for p, v in out.items() if len(v[3]) > 1}
    holding = {p for p, v in out.items() if len(v[3]) == 1 and
               any(q.startswith(p + ".") for q in grouped)}
    for p in holding:
        if known.recordings < 2 or _below_any(p, holding) or \
                root is not None:
            del out[p]
    others = {p for p in out if p not in holding}
    out = {p: v for p, v in out.items() if not _below_any(p, others)}
    if root is not None:
        out[""] = root  # (its layers replay inside it while it notes)
    return out


def seeded(signatures, modules):
    """A memo for `candidates` over `modules` (the meta copy's walk, or the
    model's own): what _deep made of the model's own modules
    (summary_memo.state's `seed`: their walk and _deep's memo or None; or
    None), under the ids of the modules at the same paths. A copy's
    signature is its model's: the meta copy keeps each tensor's dtype,
    sizes and requires_grad, and deep-copies attributes that compare by
    value, where the state holds no hook nor attribute compared by
    identity, no module in training and no buffer that requires grad
    (the copy records in eval mode, its buffers plain). Empty where the
    walks differ."""
    walk, memo = signatures or (None, None)
    if memo is None or len(walk) != len(modules):
        return {}
    out = {}
    for (path, m), (at, copy) in zip(walk, modules):
        got = memo.get(id(m))
        c = type(m)
        if path != at or c is not type(copy) or got is None:
            return {}
        out[id(copy)] = got
        key = memo.get(c)  # its class's (_class_key), made with it
        if key is not None:
            out[c] = key
    return out


def _root(modules, known, memo, number):
    """The model's own call as a candidate alike to none, or None: not
    where its first recording's call returned other than tensors (alone,
    in a tuple, or in an output object with the cache it made: _tensors),
    nor where a hook below it
    would run or an attribute compares by identity, nor once dropped."""
    if not ROOT or not known.root or not modules or modules[0][0] != "" or \
            "" in known.small:
        return None
    m = modules[0][1]
    try:
        deep = _deep(m, memo)
    except Exception:  # noqa: BLE001 - attributes that do not compare
        return None
    if deep[2] or not deep[3]:
        return None
    return (m, number, _Sig(deep[0]), [""])


def _below_any(path, paths):
    """Whether a module above `path` is one of `paths`."""
    at = path.rfind(".")
    while at > 0:
        path = path[:at]
        if path in paths:
            return True
        at = path.rfind(".")
    return False


class _Arch:
    """What the recordings of one architecture found, for its later
    ones."""
    __slots__ = ("shallow", "small", "learnt", "recordings", "root")

    def __init__(self, shallow):
        self.shallow = shallow  # its shallow groups: lists of paths
        # the paths of the groups too small to pay, alike at a glance
        # only, or whose templates differ (drop)
        self.small = set()
        self.learnt = False  # called_again read a recording
        self.recordings = 0  # candidates made for it
        self.root = False  # the model's call returned tensors (_root)


def _sizes(modules):
    """path -> the number of modules in its subtree, itself included."""
    size = dict.fromkeys((p for p, _ in modules), 1)
    for path, _ in reversed(modules):
        if path:
            parent = path.rpartition(".")[0]
            if parent in size:
                size[parent] += size[path]
    return size


def called_again(arch_, modules, calls, root_out=()):
    """Learns from the architecture's first recording which of its layers
    were called more than once (ALBERT's one layer group, called for every
    layer; a recurrent cell called per step): `calls`, path -> the
    recording's calls. Each becomes a group of its own for later
    recordings, where no group holds it already (module_replay.py replays
    its later calls from their template, and its first where its
    signature holds for the process). Once per architecture."""
    known = _ARCHS.get(arch_)
    if known is None or known.learnt:
        return
    known.learnt = True
    # what the model's calls returned (recorder.ModuleStack.outputs):
    # tensors, alone, in a tuple or in an output object with the cache
    # the call made, which a replay makes again (_root)
    known.root = bool(root_out) and all(_tensors(d) for d in root_out)
    grouped = {p for g in known.shallow for p in g}
    size = None
    for path, m in modules:
        if calls.get(path, 0) < 2 or not path or path in grouped or \
                type(m) in _UNCALLED:
            continue
        if size is None:
            size = _sizes(modules)
        if size[path] >= _LEAST:
            known.shallow.append([path])


def _tensors(described):
    """Whether a call's output (as structure.describe gives it) is a
    tensor, a tuple of tensors and Nones with a tensor, or a dict (a
    transformers output object) of tensors, caches and such dicts and
    lists, with a tensor (module_replay._form)."""
    if type(described) is list:
        return any(d is not None for d in described) and \
            all(d is None or _tensor(d) for d in described)
    return _tensor(described) or \
        type(described) is dict and _nested(described) is True


def _nested(described, depth=0):
    """True where a value an output object holds is made of tensors,
    caches (a decoder's past_key_values, which a replay makes again
    where it is one: module_replay._form says), dicts and lists of them,
    with a tensor; "empty" where it holds no tensor; False otherwise."""
    if _tensor(described):
        return True
    if depth > 8:
        return False
    if type(described) is dict and described.keys() == {"type"} and \
            type(described["type"]) is str:
        return "empty" if described["type"].endswith("Cache") else False
    if type(described) is list or type(described) is dict and described:
        got = [_nested(d, depth + 1) for d in (
            described if type(described) is list else described.values())]
        if False in got:
            return False
        return True if True in got else "empty"
    return False


def _tensor(described):
    return type(described) is dict and set(described) == {"dtype", "shape"}


def arch(modules):
    """What a model's modules are, at a glance: their paths and classes
    (a summary's meta copy is new each time; its architecture is not)."""
    return (tuple(p for p, _ in modules), tuple(type(m) for _, m in modules))


def recordings(arch_):
    """How many recordings of the architecture found their candidates,
    this one's included."""
    known = _ARCHS.get(arch_)
    return known.recordings if known is not None else 0


def drop(arch_, paths, below=False):
    """The layers at `paths` are not tried in the architecture's later
    recordings, nor, `below`, any layer under them (module_replay.Layers.
    _drop says why)."""
    known = _ARCHS.get(arch_)
    if known is not None:
        dropped = set(paths)
        if below:
            heads = tuple(p + "." for p in paths)
            dropped.update(q for g in known.shallow for q in g
                           if q.startswith(heads))
        known.small.update(dropped)


def forget():
    """Drops the architectures' groups (tests that count replays)."""
    _ARCHS.clear()


# whether the model's own call is a candidate (_root; tests of the
# layers below it turn it off)
ROOT = True
# containers that hold modules and are not called themselves
_UNCALLED = (torch.nn.ModuleList, torch.nn.ModuleDict)
# the fewest modules (itself included) a layer replayed holds
_LEAST = 6
# _plain_object's limits: deeper or larger, an object compares by identity
_PLAIN_DEPTH = 4
_PLAIN_ITEMS = 2000
# the fewest layers alike that make a group (module_replay.py: a group of
# two pays only where its template holds for the process)
_ALIKE = 2
# architecture (arch) -> _Arch: per process, bounded, the one used least
# lately making room (a process summarizing many models)
_ARCHS = {}
_ARCHS_MAX = 64
# groups a layer is compared with, the latest: a layer alone in its
# group makes room for the next
_MAX_APART = 6
