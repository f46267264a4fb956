"""A model summarised again as it was: what its recordings made, kept.

A recording is a function of what it reads: the model's modules (their
classes, attributes, parameters' and buffers' dtypes, sizes and
requires_grad, each class's methods and class attributes as they are
now: layer_groups' signature of the model itself; and which
of its modules, parameters, buffers and tensor attributes are one
object, which a signature does not hold: a tied weight), the
contents of the integer and boolean tensors it tracks (shadow.py: the
buffers, tensor attributes and inputs of at most MAX_ELEMENTS elements),
the inputs' dtypes, sizes and strides, and the recording's settings
(`state`: autocast's dtype among them). Not held: a module-level
function or global the forward reads (docs/python.md). A summary notes,
with the state its recording read, what that recording made: the packed
graph's parts, the contents of the values its masks read as handed to
the library, and what TorchSummary reads of it (module classes, calls
and shapes, the ops left uncounted). Once two
recordings made the same (the second of the state now), a later summary
of the model in that state is an analysis of the model the second of
them built, shared
(`rebuilt`): no meta copy, no forward, no recording, no build, and
the analysis made once for them all; what is left is the state's
reading and the report. So every
number is one a recording gives, and a forward whose recording differs
from one call to the next (it reads something the state does not hold)
is never built so (bench/same_summary.py's --warm compares every report
byte for byte). A model's first summary reads no state (`again`): one
summarised once pays no state, only its recording's note (`_FIRST`:
what it made and the native model it built). Its
second reads the state, records and compares with the first's: the
same, it is kept as verified (a recording of the state it read, and two
recordings that made the same; a model changed in between makes another
graph), and the third is built; else the second and third are compared,
and the fourth is built. A second whose recording packed what the
first's packed and hands the masks the same contents over
(`same_hand_over`) builds nothing either: it reads the model the first
built (`earlier`, torch_api.built), shared, unless the first summary
closed it. The state's walk and signatures serve
the recordings (layer_groups.seeded), so those pay little more than
reading and copying the tracked contents.

What keeps a summary recording: anything the state cannot hold (an
attribute compared by identity, a hook, an input other than tensors and
plain values in tuples, lists and dicts, a tensor subclass, tracked
tensors of more than _CONTENTS_MAX bytes, which an entry copies), another
dispatch or function mode around the call or a global module hook, a
recording that read float inputs' values or ran on the model's own
device, or whose shapes differ from PyTorch's (its warning is said
again), NNSCAN_MODULE_REPLAY=0 (every call runs), and every summary
that records more than a forward (training, backward, a custom op, a
generation step, a parallel plan). One entry a model, for the latest
_MAX models of the process; an entry holds a weak reference to its
model, a copy of its tracked tensors' contents and what its recording
made (once two made the same, the native model the second built), not
the model; a first summary's note, the native model it built too.
"""
import operator
import os
import types
import weakref

import torch

from . import autocast, latest, layer_groups, module_replay
from .recorder import Recording, unwrap_compiled, walk_once
from .shadow import MAX_ELEMENTS

_MAX = 8
# id(model) -> (weak reference to the model, its state, its recording):
# taken out while a summary uses it (another thread's then records)
_KEPT = {}
# id(model) -> a weak reference to it, for the latest _ONCE_MAX models
# summarised once: a state is read from a model's second summary on
# (`again`), so a model summarised once pays no state for this
_ONCE = {}
_ONCE_MAX = 64
# id(model) -> (a weak reference to it, what its first summary's recording
# made), for the latest _MAX models: a second summary whose recording made
# the same is kept as two that did (`seen`), so the third is built
_FIRST = {}
# the environment variables a recording reads (NNSCAN_MODULE_REPLAY=0
# keeps none: `enabled`; NNSCAN_LIBRARY is read once, at the library's
# load; NNSCAN_PACK_REPLAY changes the packed bytes, which a recording
# compares with its first's, not the graph): tests/test_summary_memo.py
# finds every one the package reads
VARIABLES = ("NNSCAN_REPLAY", "NNSCAN_PACK_REPLAY")
# the bytes of tracked tensors' contents an entry may copy
_CONTENTS_MAX = 16 << 20
_PLAIN = (int, float, str, bool, type(None), torch.dtype, torch.device)
_DEPTH = 4
_PATH = operator.itemgetter(0)


class _Contents:
    """A tracked tensor's contents, compared by value. Made from the
    tensor itself (a state being compared); kept as a copy once its state
    is kept (`freeze`). A kept one equals a tensor that is the same tensor
    at the same version (unchanged), else one with equal elements."""
    __slots__ = ("t", "ref", "version", "copy")

    def __init__(self, t):
        self.t, self.ref, self.copy = t, None, None
        # (an assignment to .data keeps the version, not the storage)
        self.version = (_version(t), t.data_ptr())

    def freeze(self):
        t, self.t = self.t, None
        self.ref = weakref.ref(t)
        # one element (a batch norm's count) as a number: a copy costs more
        self.copy = t.item() if t.numel() == 1 else \
            t.detach().to("cpu", copy=True)

    def __eq__(self, other):
        if type(other) is not _Contents:
            return NotImplemented
        kept, now = (self, other) if self.t is None else (other, self)
        if kept.t is not None or now.t is None:
            return kept is now  # two states being compared: not asked
        if kept.ref() is now.t and kept.version[0] is not None and \
                now.version == kept.version:
            return True
        if type(kept.copy) is not torch.Tensor:  # (the sizes compared apart)
            return now.t.numel() == 1 and now.t.item() == kept.copy
        return torch.equal(kept.copy, now.t.detach().to("cpu"))

    __hash__ = None


def _version(t):
    try:
        return t._version
    except RuntimeError:  # an inference tensor counts no versions
        return None


def _tensor(t, contents):
    """A tensor's part of the state: what a recording reads of it (its
    contents added to `contents` too)."""
    part = (t.dtype, tuple(t.shape), t.stride(), t.storage_offset(),
            t.requires_grad, t.device.type)
    if t.is_meta or t.is_floating_point() or t.is_complex() or \
            t.numel() > MAX_ELEMENTS:
        return part  # no contents a recording reads
    c = _Contents(t)
    contents.append(c)
    return part + (c,)


def _held(t, contents):
    """A buffer's or tensor attribute's part of the state beyond what the
    signature holds (its dtype and sizes; its meta copy is contiguous,
    on meta): its contents where a recording reads them (shadow.py:
    integer and boolean ones of at most MAX_ELEMENTS), added to
    `contents` too; else None."""
    dt = t.dtype
    if dt.is_floating_point or dt.is_complex or t.is_meta or \
            t.numel() > MAX_ELEMENTS:
        return None
    c = _Contents(t)
    contents.append(c)
    return c


def _value(v, depth, seen, contents):
    """An argument's part of the state; LookupError for what it cannot
    hold. A tensor met again is named by its first place (the recording
    names one tensor once)."""
    t = type(v)
    if t in _PLAIN:
        return v
    if isinstance(v, torch.Tensor):
        if type(v) is not torch.Tensor and \
                not isinstance(v, torch.nn.Parameter):
            raise LookupError  # a tensor subclass: its own dispatch
        at = seen.get(id(v))
        if at is not None:
            return ("again", at)
        seen[id(v)] = len(seen)
        return _tensor(v, contents)
    if depth >= _DEPTH:
        raise LookupError
    if t is tuple or t is list:
        return (t, tuple(_value(x, depth + 1, seen, contents) for x in v))
    if t is dict and all(type(k) is str for k in v):
        return (dict, tuple((k, _value(x, depth + 1, seen, contents))
                            for k, x in v.items()))
    raise LookupError


class _Tracked:
    """What a recording reads of the model's tensors beyond its signature,
    told by layer_groups._deep's pass over its modules (`track`): the
    contents of every module's buffers and tensor attributes that a
    recording reads (`held`: _held's, what the meta copy keeps as
    shadows), in order; the ids of every parameter, buffer and tensor
    attribute, in order (`ids`: which are one tensor, _shared: a weight
    tied between two places is counted once, and a signature holds no
    identity); whether a buffer requires grad (`grad`). One pass with the
    signatures: a second walk of the modules' attributes cost a third of
    a state (resnet50: 0.5 of 1.5 ms, a tenth of that the tensors')."""
    __slots__ = ("contents", "held", "ids", "grad")

    def __init__(self, contents):
        self.contents, self.held, self.ids, self.grad = contents, [], [], False

    def tensor(self, t):
        """A module's tensor attribute."""
        self.ids.append(id(t))
        self.held.append(_held(t, self.contents))

    def module(self, params, buffers):
        """A module's parameters and buffers (its tables)."""
        if params:  # (most modules hold none: no iterator made)
            self.ids += map(id, params.values())
        if buffers:
            ids, held, contents = self.ids, self.held, self.contents
            for t in buffers.values():
                ids.append(id(t))
                if t is not None:
                    self.grad = self.grad or t.requires_grad
                    held.append(_held(t, contents))


def _shared(ids):
    """(place, the first place of the same tensor) for each tensor met
    again among `ids` (None's, an absent parameter or buffer, are none);
    () where none is, as in most models (one set made, no loop)."""
    none = id(None)
    n = ids.count(none)
    if len(set(ids)) == len(ids) - n + (n > 0):
        return ()
    first, out = {}, []
    for place, i in enumerate(ids):
        if i != none and first.setdefault(i, place) != place:
            out.append((place, first[i]))
    return tuple(out)


def _modes_active():
    """Whether a dispatch or function mode (FlopCounterMode, another
    tool's) is around the call: what it does to the recording is its
    own."""
    C = torch._C
    stack = getattr(C, "_len_torch_dispatch_stack", None)
    fmode = getattr(C, "_is_torch_function_mode_enabled", None)
    return (stack is not None and stack() > 0) or \
        (fmode is not None and fmode())


def _global_hooks():
    mod = torch.nn.modules.module
    return any(getattr(mod, n, None) for n in (
        "_global_forward_hooks", "_global_forward_pre_hooks",
        "_global_backward_hooks", "_global_backward_pre_hooks"))


def enabled():
    return module_replay.enabled()


def again(model):
    """Whether `model` was summarised before in this process (a kept
    entry, or a first summary noted); notes this one."""
    key = id(model)
    got = _KEPT.get(key) or _ONCE.get(key)
    if got is not None and got[0]() is model:
        return True

    def gone(ref):  # the model died
        if _ONCE.get(key, (None,))[0] is ref:
            _ONCE.pop(key, None)
    try:
        latest.put(_ONCE, key, (weakref.ref(model, gone),), _ONCE_MAX)
    except TypeError:  # a class whose slots hold no weak reference
        pass
    return False


def state(model, args, kwargs, device):
    """What a recording of `model` on these inputs reads (module doc), as
    a value compared with ==; None where it cannot be held."""
    if not isinstance(model, torch.nn.Module) or not enabled() or \
            unwrap_compiled(model) is not model or _modes_active() or \
            _global_hooks():
        return None  # (not a module: the recording says so)
    if not again(model):
        # its first summary: nothing read, what it makes noted (`seen`)
        return _State(None, (), None)
    try:
        walk = walk_once(model)
        if walk is None:
            return None
        memo = {}
        contents = []
        track = _Tracked(contents)
        sig, hooked, below, portable = layer_groups._deep(model, memo, track)
        if hooked or below or not portable:
            return None
        inputs = _value((tuple(args), dict(kwargs)), 0, {}, contents)
        tracked, shared, grad = tuple(track.held), _shared(track.ids), \
            track.grad
        # (autocast: the device type it applies to and its dtype, which
        # the recording's casts follow: autocast.py)
        cast = autocast.device_for(model, walk)
        settings = (device, torch.get_default_dtype(),
                    torch.is_inference_mode_enabled(),
                    torch.is_grad_enabled(), cast,
                    cast and autocast.state(cast)[1],
                    tuple(map(os.environ.get, VARIABLES)))
    except Exception:  # noqa: BLE001 - what cannot be held records
        return None
    if sum(c.t.numel() * c.t.element_size() for c in contents) > \
            _CONTENTS_MAX:
        return None  # (an entry holds a copy of them)
    # the walk, for the recording's; the signatures made, for the layers
    # it compares, where its copy's are the same (layer_groups.seeded)
    seed = (walk, None if grad or any(m.training for _, m in walk)
            else memo)
    # (compared once, where kept: a _Sig's hash would walk it too)
    # (the walk's paths: a module registered in two places, walked once,
    # is one module, counted once; the signature holds each place alike)
    paths = tuple(map(_PATH, walk))
    return _State((sig, paths, inputs, tracked, shared, settings), contents,
                  seed)


class _State:
    """What a recording reads (`value`, compared with ==), the tracked
    tensors' contents in it, made from the tensors until kept, and the
    model's walk and the signatures made of its modules (`seed`: until
    the recording, record_model's `signatures`)."""
    __slots__ = ("value", "contents", "seed")

    def __init__(self, value, contents, seed):
        self.value, self.contents, self.seed = value, contents, seed


class Log(list):
    """set_value_data's arguments, call by call, as a masks' hand-over
    made them, and what mask_inputs was asked and answered there
    (`asked`: the tracked names, the positions, and how many calls came
    before it: the fills; None where not asked)."""
    asked = None


class Logged:
    """A report.Handle whose masks' contents handed over are noted (`log`,
    a Log). Dry (`answers`: an earlier Log's `asked`, for `earlier`): no
    model, mask_inputs answered as it was for the earlier recording
    (right where the graph and the fills given before it are the same:
    `same_hand_over`), nothing set; `differs` where the names asked
    differ."""

    def __init__(self, handle, log, answers=None, dry=False):
        self.handle, self.log, self.answers, self.dry = \
            handle, log, answers, dry
        self.differs = False

    def mask_inputs(self, names):
        if self.dry:
            asked = self.answers
            if asked is None or tuple(names) != asked[0]:
                self.differs = True
                return []
            got = asked[1]
        else:
            got = tuple(self.handle.mask_inputs(names))
        self.log.asked = (tuple(names), got, len(self.log))
        return list(got)

    def set_value_data(self, *args):
        self.log.append(args)
        if not self.dry:
            self.handle.set_value_data(*args)


def earlier(model, now):
    """(packed parts, masks' hand-over Log, the model they built) of the
    first summary of `model`, for its second (`now`: a state read, and
    no entry kept), which reads that model where its recording packed
    the same parts and hands the same over (torch_api.built;
    `same_hand_over`). None for any other summary."""
    if now is None or now.value is None:
        return None
    got = _FIRST.get(id(model))
    if got is None or got[0]() is not model:
        return None
    return got[1][0], got[1][1], got[2]


def same_hand_over(a, b):
    """Whether two hand-over Logs of one graph leave the same in a model:
    the same contents given before mask_inputs was asked (the fills,
    which its answer reads) and in all (_handed: whichever names shared
    a call). A dry Log (`Logged`) whose fills are an earlier one's got
    the answer a model would have given it."""
    fa = a.asked[2] if a.asked is not None else len(a)
    fb = b.asked[2] if b.asked is not None else len(b)
    return _handed(a[:fa]) == _handed(b[:fb]) and _handed(a) == _handed(b)


def seen(model, now, rec, handle, built, entry):
    """Notes a recording of `model` in the state `now` (`built`: the
    packed graph's parts and the masks' contents handed over, as
    torch_api.built gave them; `handle` the model it built): kept for
    later summaries once two recordings of one state made the same
    (`entry`: the last one's, from `found`; or, for a model's second
    summary, what its first made: `_FIRST`), then `handle`, shared. A
    model's first summary (no state read) notes only what it made."""
    if rec.device != "meta" or rec.read_floats or rec.stack.custom or \
            handle.shape_mismatches():
        return
    b, st, g = rec.builder, rec.stack, rec.graph
    made = tuple(built) + (Recording(
        types.SimpleNamespace(node_source=g.node_source,
                              module_types=g.module_types,
                              module_calls=g.module_calls),
        types.SimpleNamespace(uncounted=b.uncounted),
        types.SimpleNamespace(custom=st.custom, io=st.io), rec.device,
        None),)
    key = id(model)
    if now.value is None:
        _note_first(model, key, made, handle)
        return
    # (asked before the contents are frozen: a frozen state compares
    # with none)
    kept_verified = _verified(model, now)
    for c in now.contents:
        c.freeze()
    now.contents = ()
    built_alike = False
    if entry is None:
        # a second summary: its first's recording, made of the model as
        # it was then (a model changed since makes another graph); the
        # state read now is what this recording read
        first = _FIRST.pop(key, None)
        if first is not None and first[0]() is model:
            entry = (None, None, first[1], False)
            # the first's model read (torch_api.built): its parts and
            # hand-over compared there already
            built_alike = first[2] is handle
    same = entry is not None and not entry[3] and \
        _same(entry[2], made, built_alike)
    if same:  # the model this one built serves every later summary
        handle.share()
        made = (handle, made[2])

    def gone(ref):  # the model died: its entry goes with it
        if _KEPT.get(key, (None,))[0] is ref:
            _KEPT.pop(key, None)
    try:
        ref = weakref.ref(model, gone)
    except TypeError:  # a class whose slots hold no weak reference
        return
    _ONCE.pop(key, None)
    if not same and kept_verified:
        return  # another thread's summary kept this state verified
    give_back(model, (ref, now, made, same))


def _verified(model, now):
    """Whether the entry kept for `model` now is one two recordings of the
    state `now` made the same, whose model is open: a thread that
    recorded while another had taken the entry out (`found`) does not
    put an unverified one in its place."""
    got = _KEPT.get(id(model))
    if got is None or not got[3] or got[0]() is not model or \
            got[2][0].closed:
        return False
    try:
        return bool(got[1].value == now.value)
    except Exception:  # noqa: BLE001 - values that do not compare
        return False


def _note_first(model, key, made, handle):
    """Keeps what a model's first summary made and the model it built
    (`handle`), for its second (`earlier`); not where the masks' contents
    handed over pass _CONTENTS_MAX bytes (a model summarised once holds
    no long sequence's masks)."""
    if sum(memoryview(data).nbytes for _, _, _, data in made[1]) > \
            _CONTENTS_MAX:
        return

    def gone(ref):  # the model died
        if _FIRST.get(key, (None,))[0] is ref:
            _FIRST.pop(key, None)
    try:
        latest.put(_FIRST, key, (weakref.ref(model, gone), made, handle),
                   _MAX)
    except TypeError:  # a class whose slots hold no weak reference
        pass


def _handed(log):
    """What the masks' hand-over (`log`: set_value_data's arguments) left
    in the model: name -> (dtype, sizes, elements), each call replacing
    what was given before. Which names shared one call is not compared:
    the library reads a copy shared by several names once and counts
    the same (src/analyze/attention.c, same_masks: a cache by pointer),
    and a recording whose layers replay hands one computation's values
    over together where one that notes them may not (Gemma-2's)."""
    out = {}
    for names, dtype, dims, data in log:
        held = (dtype, tuple(dims), memoryview(data).cast("B"))
        for name in names:
            out[name] = held
    return out


def _same(a, b, built_alike=False):
    """Whether two recordings' `made` give the same report (built_alike:
    their packed parts and masks' contents known to be the same)."""
    (pa, la, ra), (pb, lb, rb) = a, b
    if ra.device != rb.device or not built_alike and (
            pa != pb or _handed(la) != _handed(lb)):
        return False
    ga, gb = ra.graph, rb.graph
    return (ga.node_source == gb.node_source and
            ga.module_types == gb.module_types and
            ga.module_calls == gb.module_calls and
            ra.builder.uncounted == rb.builder.uncounted and
            ra.stack.io == rb.stack.io)


def found(model, now):
    """The entry kept for `model` in the state `now`, taken out (give it
    back with `give_back`): (weak reference to the model, its state, what
    its last recording made (once two made the same: the model it built
    and its recording), whether two made the same). None where none is
    kept or the state differs (then it is dropped)."""
    if now.value is None:
        return None  # a first summary: nothing kept, nothing read
    got = _KEPT.pop(id(model), None)
    if got is None or got[0]() is not model:
        return None
    try:
        same = got[1].value == now.value
    except Exception:  # noqa: BLE001 - values that do not compare
        same = False
    return got if same else None


def give_back(model, entry):
    """Keeps an entry (again, once `found` took it out)."""
    latest.put(_KEPT, id(model), entry, _MAX)


def rebuilt(model, entry):
    """(handle, recording) of a summary of `model` in the state of
    `entry` (which `found` took out and this gives back), two recordings
    of which made the same: the model the second of them built, which
    every such summary shares, reading one analysis of it for each set
    of options (report.Handle.share, analyze). None where it was
    closed (the entry is then dropped, and the summary records)."""
    handle, rec = entry[2]
    if handle.closed:
        return None
    give_back(model, entry)
    return handle, rec


def forget():
    """Drops every kept recording and every model noted (tests that count
    recordings)."""
    _KEPT.clear()
    _ONCE.clear()
    _FIRST.clear()
