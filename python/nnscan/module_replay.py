"""A layer called again on the same arguments, its recording replayed.

Deep models repeat one layer: ViT-B/16's twelve encoder blocks,
ResNet-50's blocks within a stage. Each call of such a layer runs its
forward on meta tensors, every aten call dispatched to the recorder and
put on its tape, to add what the first call added but for its
numbers, its module paths and its parameters' names. So, as replay.py
does for one fused function, the recording notes what a layer's call
added; once two calls of layers alike (the same key, below) added the
same, later ones add the template renamed instead of running: its nodes,
values, constants, parameters (their initializers and kinds, under the
layer's own names), kernels, the sizes PyTorch gave, what the module
hooks noted for its sublayers (calls, boundary shapes, output
structures); and return its output as the forward made it (sizes,
strides, dtype).

Layers alike: layer_groups.py's candidates (one class, the same subtree,
two or more, at least six modules; a pair pays only where its template
holds for the process, below: one that cannot is not noted; a layer
alike to none, one call a recording, is verified by a later recording's
call: _verify_alone; a module called more than once in a forward,
learnt by layer_groups.called_again, is a group of its own: its later
calls, which find its parameters named and its boundary shapes noted by
its first, are a key of their own whose template its third call
verifies). A shift that alternates (Swin's blocks), a stochastic depth
rate that grows with depth, a per-layer config object of other values:
such a difference keeps layers apart (a layer alike to none replays
from the architecture's fourth recording, noted by its second and
verified by its third, _verify_alone: none where summary_memo read the
model's state, whose next summary is built, and none in the
architecture's first, so that a model summarised once or kept pays
nothing for them; a template kept for the process replays in any
recording; one that holds layers
alike from its fourth, as they replay inside it while it notes and
verifies its template: their replays add what the hooks would have
noted to its log, _module_events; the model itself is such a layer,
path "", where its call returns tensors, alone, in a tuple or in an
output object, with the KV cache it made (_form), and what its replay
saves pays for noting it, _pays_whole). A layer index (transformers'
`layer_idx`) is no difference where nothing but the KV cache's update
reads it (layer_cache.py, which also keys the cache argument and makes
again what the call wrote into its slot). A call's key: the group, each
argument's dtype, sizes, strides and which arguments are one tensor, a
tuple's, list's or torch.Size's items so, a value with a real value (a
shadow: positions, a padding mask) by its contents where
it is small (a decoder's position ids, a tiny model's mask: such a key
holds for the process), else by its value's name (for its recording
only), the other arguments' values.
The template of a call that made values with real contents also holds
the contents of the layer's own parameters and buffers that have one
(Swin's relative position index), which a replay compares with its
layer's.

For the process: a group whose signature holds no attribute compared by
identity has templates that are a function of the signature, the key and
the recording's settings (shadows or none, the default dtype); once
verified in
one summary (_KEPT) a later summary replays every call of the key, its
first two too. The values with real contents such a template hands the
masks (below) are read when it is kept and held as contents, each once,
up to _PROCESS_BYTES a template and _PROCESS_HELD in all (a 2,048-token
model's masks are more: its template holds for its recording); a fill
(the ones a causal triangle is made of) is held as its number, and a
replay's is a fill again (_Fill), so that the masks hand it over as the
layer that ran did. And per
architecture (module paths and classes) the cheap part of finding the
groups is made once, less the layers that were alike at a glance but
not whole, and the groups whose layers make fewer than
_MIN_GROUP_NODES nodes together (their replays would cost about what
they save) or could not be replayed: later summaries skip them
(layer_groups._ARCHS). A count of nodes, not a time: which layers are
replayed is the same on every machine and in every process.

What keeps a call running: a forward called as a function (in its
caller's scope), a training step, autograd nodes to note, autocast, a
hook of the model's inside the layer, a custom_ops function, an argument
with no name yet, an object other than a transformers DynamicCache whose
slot for the layer is empty (layer_cache.part: a group none of whose
calls could be keyed so is not tried again for the architecture, which
lets its sublayers' groups be); and a template that reads a value from
before the call other than its arguments and its own parameters, returns
a value with a real value, names a parameter outside the layer (a tied
weight), runs a module outside the layer, writes its arguments or
parameters in place, does to its cache more than set its slot, or
returns anything but one tensor (alone, or in a tuple with Nones: a
layer's attention weights not asked for). A key whose calls differ
_TRIES times runs for good, and its group is not tried again for the
architecture; the first call of a group may differ alone (transformers'
first layer makes the masks the others read). The values of the fused
calls replay.py replays inside a layer (their masks' contents: a tensor
made before the layer) are kept with the template, and so are the values
with real contents the call makes itself (GPT-J's positions gathered for
its rotary table, MPT's ALiBi bias sliced, a mask built from arange or
from positions the call is given): the key and the nodes fix them, so a
replay hands the template's tensors to the masks (Builder.
replayed_tracked) under the new names. A numbered aten record (the
numbered tape's: it holds the counters it was made at, and the weight
whose t() it folds) is kept relative to the template's start and the
layer's path, as the attention's replay keeps its own. Where the
numbering is left to the library, the names are relative as replay.py
says, and a parameter a numbered call reads first ("\5" KIND NAME, its
initializer the library's to make) relative to the layer's path.
NNSCAN_MODULE_REPLAY=0 runs every call (bench/same_summary.py and
tools/tape_same.py --variable compare the two).
"""
import bisect
import itertools
import os
import threading
import weakref

import torch
from torch.utils._mode_utils import no_dispatch

from . import fused, latest, layer_cache, layer_groups
from .graph import Node, Replayed, _new_node
from .replay import _MADE, _absolute, _counts, _meta_of, _relative, \
    added, call_key, deferred_name, finish_replay, graph_at, \
    made_on_meta as _made, marked, node_name, node_numbered, nodes_made, \
    put_tables, tables_added
from .shadow import _Pending

_local = threading.local()  # .layers: this thread's recording's Layers


def enabled():
    return os.environ.get("NNSCAN_MODULE_REPLAY", "1") != "0"


def _wrapper(path, orig):
    """The layer's forward while a recording on this thread installed it:
    told by the forward it wraps, not by naming itself (a function that
    reads its own name holds itself in its closure: a cycle keeping the
    layer, and the model copy, alive until a collection)."""
    def forward(*args, **kwargs):
        layers = getattr(_local, "layers", None)
        mine = layers.active.get(path) if layers is not None else None
        if mine is None or mine.__wrapped__ is not orig:
            return orig(*args, **kwargs)
        return layers.call(path, orig, args, kwargs)
    forward.__wrapped__ = orig
    return forward


class Layers:
    """While entered, on this thread: the candidates' calls (see the
    module docstring), each noted, replayed once its key's template is
    verified. `mode` is the recorder's dispatch mode (its queued calls are
    recorded before and after), `stack` its ModuleStack (whose additions
    a replay makes too)."""

    def __init__(self, modules, builder, stack, mode, custom_ops=None,
                 signatures=None):
        self.b, self.stack, self.mode = builder, stack, mode
        self.arch = layer_groups.arch(modules)
        # (the modules, for layer_groups.called_again once the recording
        # is done, where it found candidates at all)
        self.modules = None if custom_ops or not enabled() \
            or builder.track_grad_fns or builder.weak \
            or builder.autocast is not None else modules
        self.found = {} if self.modules is None else \
            layer_groups.candidates(
                modules, self.arch, layer_groups.seeded(signatures, modules))
        self.active = {}   # path -> its wrapper, while installed
        self.saved = {}    # path -> (module, its own forward attribute)
        self.kept = {}     # key -> [its last calls] or the template
        self.tensors = {}  # path -> {relative name: parameter or buffer}
        self.index = {}    # path -> its cache slot (_index)
        self.contents = {}  # id(value) -> (value, its contents: _own_values)
        self.keyed = {}  # id(argument) -> (it, contents, version): _key
        self.valued = {}    # path -> [(name, own tensor with a real value)]
        self.values = {}    # id(_Value) -> (it, its meta tensor: _value_of)
        self.unkeyed = {}   # group -> calls no key held, None once one was
        self.paired = set()  # the pairs (groups of two) one call noted
        # [nodes the replays made, replays] (_pays_whole)
        self.replayed = [0, 0]
        self.prev = None
        # whether a layer alike to none may note or verify its template:
        # from the architecture's second recording, and not where
        # summary_memo read the model's state for this recording (once it
        # makes what the last one made, the next summary is built: no
        # later recording of the model would replay it)
        self.lone_notes = signatures is None and \
            layer_groups.recordings(self.arch) >= 2
        self.signatures_kept = None  # (_kept_signatures)

    def __enter__(self):
        for path, (m, _, _, _) in self.found.items():
            d = vars(m)
            if "forward" in d and getattr(d["forward"], "__wrapped__",
                                          None) is not None:
                continue  # another recording's, on another thread
            self.saved[path] = (m, d.get("forward"))
            w = self.active[path] = _wrapper(path, m.forward)
            d["forward"] = w
        self.prev = getattr(_local, "layers", None)
        _local.layers = self
        return self

    def __exit__(self, *exc):
        _local.layers = self.prev
        if self.modules is not None and exc[0] is None:
            layer_groups.called_again(self.arch, self.modules,
                                      self.stack.calls,
                                      self.stack.outputs.get(""))
        self.modules = None
        for path, (m, own) in self.saved.items():
            d = vars(m)
            if d.get("forward") is self.active[path]:
                if own is None:
                    del d["forward"]
                else:
                    d["forward"] = own
        self.active.clear()
        self.saved.clear()

    # ---- one call ----

    def call(self, path, orig, args, kwargs):
        b, mode = self.b, self.mode
        st = self.stack
        calls = st.calls.get(path)
        if not calls or st.stack[-1:] != [path] or torch.is_grad_enabled() \
                or b.step_mode is not None:
            # (a forward called as a function: its caller's scope)
            return orig(*args, **kwargs)
        if not self.lone_notes and self._lone(path) and \
                self.found[path][2] not in self._kept_signatures():
            return orig(*args, **kwargs)  # (below: no template to replay)
        if mode.pending:  # the arguments named, the graph up to here
            fused._flush(mode)
        # a module's later call (ALBERT's one layer, called for every
        # layer) finds its parameters named and its boundary shapes noted
        # by its first: its template is its own key's
        again = calls > 1
        key, cache, real = self._key(path, args, kwargs, again)
        group = self.found[path][1]
        if key is None:
            # an argument no key holds (an object, a quantized cache): a
            # group none of whose calls can be keyed is not tried again
            # for the architecture, so that its sublayers' groups are;
            # but the model itself (a generation's decode step, given
            # its cache) stays a candidate for calls keyed otherwise (the
            # prefill), as its sublayers' groups are tried within it
            n = self.unkeyed.get(group, 0) if path else None
            if n is not None:
                self.unkeyed[group] = n + 1
                if n + 1 == min(_TRIES, len(self.found[path][3])):
                    self._drop(path)  # (a pair's both, a lone layer's)
            return orig(*args, **kwargs)
        self.unkeyed[group] = None  # one call keyed: the group stays
        if (real or self.found[path][2] is None) and \
                self._pair(path, again):
            # a pair pays only by a template kept for the process, which
            # an argument with a real value or an attribute compared by
            # identity rules out: not noted, now or later (a module's
            # later calls verify and replay their template in the
            # recording)
            self._drop(path)
            return orig(*args, **kwargs)
        kept = self.kept.get(key[0])
        if kept is None and self.found[path][2] is not None and not real:
            kept = self._process_kept(path, key)
        if kept is None and group in self.paired and not again:
            # a pair's second call, of another key than its first's: no
            # template to be had (HF TextNet's stages, DenseNet's layers
            # of one width in two blocks)
            self._drop(path)
            return orig(*args, **kwargs)
        if kept is None and not self.lone_notes and self._lone(path):
            # a layer alike to none is verified by a later recording, for
            # the recordings after it: from the architecture's second
            # recording, where summary_memo does not build the next
            # summary from this one (a template made for nothing was a
            # tenth of GoogLeNet's second summary); one kept for the
            # process replays from any recording
            return orig(*args, **kwargs)
        if type(kept) is tuple:
            out = self._replay(path, kept, key[1], cache, key[0])
            if out is not None:
                return out
        elif kept is not None and kept[1] >= _TRIES:
            return orig(*args, **kwargs)
        was = layer_cache.before(*cache) if cache else None
        at = graph_at(b)
        tracked = len(b.replayed_tracked)
        names = [b.names[id(t)] for t in key[1]]
        shadows = len(b.shadows.of) if b.shadows is not None else 0
        outer, self.stack.log = self.stack.log, []
        try:
            out = orig(*args, **kwargs)
            if mode.pending:
                fused._flush(mode)
        finally:
            log, self.stack.log = self.stack.log, outer
            if outer is not None:  # a layer alike to none noting its own
                outer.extend(log)
        self._seen(key, path, at, names, shadows, out, log, cache, was,
                   tracked, real, again)
        return out

    def _key(self, path, args, kwargs, again=False):
        """(the call's key or None, its KV cache argument and the layer's
        slot or None, whether a real value keys it: the key then holds
        for this recording only)."""
        b = self.b
        shadows = b.shadows
        cache, real = None, False

        def tensor(v):
            nonlocal real
            if id(v) not in b.names or not v.is_meta:
                raise LookupError
            if shadows is not None and id(v) in shadows.of:
                # a value with a real value (positions, a mask): the call
                # may read it. A small one (a decoder's position ids, a
                # tiny model's mask) keys by its contents, which hold in
                # any recording; a larger one by the value's name
                # (written in place, a tensor is named anew), for this
                # recording only, as replay.py keys one
                got = self._small_contents(v)
                if got is not None:
                    return ("contents", got)
                real = True
                return ("real", b.names[id(v)])
            return None

        def other(v):
            nonlocal cache
            if cache is not None or not layer_cache.is_cache(v):
                raise LookupError  # an object: what the call does to it
            cache = (v, self._index(path))
            return layer_cache.part(*cache, b.names)  # (its slot's tensors)
        key = call_key([self.found[path][1], again], args, kwargs, tensor,
                       other)
        return key, cache, real

    def _small_contents(self, v):
        """The contents of an argument's real value where it has at most
        _KEY_ELEMENTS elements (a decoder's position ids, an arange not
        computed yet: computed here, below the recording), once per
        version; else None."""
        if v.numel() > _KEY_ELEMENTS:
            return None
        try:
            version = v._version
        except RuntimeError:  # an inference tensor counts no versions
            version = None
        got = self.keyed.get(id(v))
        if got is not None and got[0] is v and got[2] == version and \
                version is not None:
            return got[1]
        val = _value_now(self.b.shadows, v)
        if val is None:
            return None
        c = _contents(val)
        self.keyed[id(v)] = (v, c, version)
        return c

    def _own_values(self, path):
        """The contents of the layer's parameters and buffers that have a
        real value (an integer buffer's: Swin's relative position index),
        by name: a template of a call that made values with real contents
        holds them (what the call made may be made of them), and replays
        only where they are the same; None where one has no value to
        read."""
        shadows = self.b.shadows
        if shadows is None or not shadows.of:
            return ()
        valued = self.valued.get(path)
        if valued is None:
            valued = self.valued[path] = [
                (k, t) for k, t in self._own(path).items()
                if id(t) in shadows.of]
        got = []
        for k, t in valued:
            v = _value_now(shadows, t)
            if v is None:
                return None
            got.append((k, self._contents_once(v)))
        return tuple(got)

    def _contents_once(self, v):
        """_contents(v), once per value in a recording, and once per
        version of a tensor of the model's for the process."""
        c = self.contents.get(id(v))
        if c is not None and c[0] is v:
            return c[1]
        try:
            version = v._version
        except RuntimeError:  # an inference tensor counts no versions
            version = None
        got = _CONTENTS.get(id(v))
        if got is None or got[0]() is not v or got[1] != version or \
                version is None:
            got = (weakref.ref(v), version, _contents(v))
            if len(_CONTENTS) >= _KEPT_MAX:
                _CONTENTS.clear()
            _CONTENTS[id(v)] = got
        self.contents[id(v)] = (v, got[2])
        return got[2]

    def _index(self, path):
        """The layer's cache slot: the one `layer_idx` its modules hold
        (layer_cache.index_only), else None."""
        got = self.index.get(path, False)
        if got is False:
            got = {i for x in self.found[path][0].modules()
                   for i in map(vars(x).get, layer_cache.INDEX_ATTRS)
                   if type(i) is int and layer_cache.index_only(
                       type(x), layer_groups._class_key(type(x), None))}
            got = self.index[path] = got.pop() if len(got) == 1 else None
        return got

    def _seen(self, key, path, at, names, shadows, out, log, cache, was,
              tracked, real, again=False):
        """Notes a call that ran: what its template is read from, once a
        second call of its key came (a key called once pays nothing
        more); two templates the same are the key's."""
        b = self.b
        kept = self.kept.setdefault(key[0], [None, 0])
        if type(kept) is tuple:
            return
        own = self._own(path)
        lead = _lead(path)
        form, outs, uncached = _form(out)
        out = outs[0] if outs else None
        try:
            made = layer_cache.effect(*cache, was, b.names, b.scope_of) \
                if cache else ()
        except LookupError:  # it did to its cache what no replay makes
            made = None
        valued = () if b.shadows is None or made is None else _made_values(
            b.shadows.of, shadows,
            layer_cache.valued(*cache, made) if made else (),
            # what a later call may read: all a layer returned; of the
            # model's own call, nothing in the cache it made (a sliding
            # window's size there, a real value, is handed to the masks
            # by name as any value the call made)
            uncached if not path else outs)
        contents = self._own_values(path) if valued else ()
        if made is None or valued is None or contents is None or \
                [b.names.get(id(t)) for t in key[1]] != names or \
                not isinstance(out, torch.Tensor) or \
                any(b.names.get(id(t), lead + k) != lead + k
                    for k, t in own.items()):
            # it writes its arguments or parameters, returns a value with
            # a real value or other than tensors (alone, or with Nones in
            # a tuple), does to its cache what no replay makes: it runs
            kept[0] = None
            self._refused(path, kept, again)
            return
        after = graph_at(b)
        made_nodes = nodes_made(at, after)
        if made_nodes * len(self.found[path][3]) < _MIN_GROUP_NODES:
            # too quick to record for replays to pay, and so is any layer
            # below it: not tried again (a lone layer is not even noted)
            self._drop(path, below=True)
            if self._lone(path):
                return
        if not path and not self._pays_whole(key, made_nodes):
            self._drop(path)
            return
        name = b.names.get(id(out))
        note = (path, at, after, key[1], name,
                b.scope_of.get(id(out), path), _meta_of(out), log, made,
                b.replayed_tracked[tracked:], form,
                [(b.names.get(id(t)), b.scope_of.get(id(t), path),
                  _meta_of(t)) for t in outs[1:]],
                (contents,
                 [(b.names[id(t)], t) for t in valued if id(t) in b.names]))
        prev, kept[0] = kept[0], note
        if prev is None:
            if self._lone(path) and not real:
                self._verify_alone(path, key, note)
            elif self._pair(path, again):
                self.paired.add(self.found[path][1])  # its first call
            return
        got = [self._template(*n) for n in (prev, note)]
        try:
            same = None not in got and got[0] == got[1]
        except Exception:  # noqa: BLE001 - values that do not compare
            same = False
        if same:
            self.kept[key[0]] = got[1]
            _note_recorded(b, key[0], got[1], (prev, note))
            sig = self.found[path][2]
            kept_tpl = _for_process(got[1], b.shadows) \
                if sig is not None and not real else None
            if kept_tpl is not None:
                pkey = self._process_key(sig, key)
                _keep(pkey, (kept_tpl,))
                noted = _NOTED.pop(pkey, None)  # (a module's second call)
                if noted is not None:
                    _release(noted[0])
            elif self._pair(path, again):
                # a pair replays nothing in its own recording (its two
                # calls make the template): only a template kept for the
                # process pays
                self._drop(path)
        else:
            # what it adds is not the key's alone
            self._refused(path, kept, again)

    def _refused(self, path, kept, again=False):
        """A call of the key whose template cannot be read, or differs
        from the last: the key gives up after _TRIES (the first call of
        a group may differ alone: transformers' first layer makes the
        masks its neighbours read), a pair's first calls at once, and its
        group is not tried again for the architecture."""
        kept[1] += 1
        if kept[1] >= _TRIES or self._pair(path, again):
            self._drop(path)  # (a pair has no third call to agree)

    def _lone(self, path):
        """Whether the layer at `path` is alone in its group (alike to no
        other layer of the model, its signature holding for the
        process): one call a recording, so its template is verified by a
        later recording's call."""
        return len(self.found[path][3]) == 1

    def _verify_alone(self, path, key, note):
        """A lone layer's call: its template is noted for the process
        (_NOTED) and kept (_KEPT) once a later recording's call of the
        key added the same; one that differs drops the layer."""
        pkey = self._process_key(self.found[path][2], key)
        if pkey not in _NOTED and self._note_bytes(note) > _PROCESS_BYTES:
            # what it would keep for the process is more than a template
            # may (_for_process): not made (the model's own call of a
            # Swin, whose masks and position indices are 5 MB)
            self._drop(path)
            return
        tpl = self._template(*note)
        was = _NOTED.pop(pkey, None)
        if tpl is None:
            self._drop(path)
        elif was is not None:
            if _same_for_process(was[0], tpl, self.b.shadows):
                _keep(pkey, was[:1])
                return
            _release(was[0])
            if path or len(was) > 1:
                self._drop(path)
                return
            # the model's own call, noted while a layer below it ran that
            # replays now (T5's stacks, verifying their templates in that
            # recording), may differ by a value that layer made, which
            # its replay hands on as its argument: noted again, once
            kept = _for_process(tpl, self.b.shadows)
            if kept is None:
                self._drop(path)
            else:
                _NOTED[pkey] = (kept, "again")
        elif len(_NOTED) < _KEPT_MAX:
            kept = _for_process(tpl, self.b.shadows)
            if kept is None:
                self._drop(path)
            else:
                _NOTED[pkey] = (kept,)

    def _note_bytes(self, note):
        """What the template of `note` would hold of values with real
        contents (_bytes of what _template keeps: the tracked values,
        and the valued ones but the call's arguments)."""
        names = self.b.names
        args = {names.get(id(t)) for t in note[3]}
        return sum(t.numel() * t.element_size() for _, t in
                   itertools.chain(note[9], (v for v in note[12][1]
                                             if v[0] not in args)))

    def _pays_whole(self, key, nodes):
        """Whether the model's own call, of `nodes` nodes, pays for its
        noting where it notes first: its replay saves what ran besides
        its layers' replays, and those replays' own cost (a replay costs
        about what recording _REPLAY_NODES nodes does); noting and
        verifying it costs about a quarter of recording its nodes, twice.
        Where four replays of it would not save that (ViT's encoder
        layers replay all but 9 of its 633 nodes), it is not noted. Its
        verification, once noted, is not asked again: by then more of
        its layers replay."""
        if self._process_key(self.found[""][2], key) in _NOTED:
            return True
        saved = nodes - self.replayed[0] + _REPLAY_NODES * self.replayed[1]
        return 4 * saved >= nodes // 2

    def _pair(self, path, again=False):
        """Whether the layer at `path` is one of a group of two: its two
        calls make the template, so it replays only from a template kept
        for the process. A module's later calls (`again`) are not a
        pair's: its third verifies its second's template in the
        recording."""
        return not again and len(self.found[path][3]) < 3

    def _drop(self, path, below=False):
        """The group of the layer at `path` is not tried in later
        recordings of this architecture: its layers record too quickly
        for replays to pay (nor are the groups below them, `below`), or
        its templates cannot be read or differ (a replay that happens is
        exact all the same; this saves the noting)."""
        layer_groups.drop(self.arch, self.found[path][3], below)

    def _kept_signatures(self):
        """The signatures of the templates kept for the process, once a
        recording (a lone layer's call of none of them has no template to
        replay: not even keyed where none would be noted, `lone_notes`)."""
        if self.signatures_kept is None:
            # (the keys taken at once: another thread's recording may
            # keep a template meanwhile)
            self.signatures_kept = {k[0] for k in tuple(_KEPT)}
        return self.signatures_kept

    def _process_key(self, sig, key):
        b = self.b
        return (sig, key[0][1:], b.shadows is None, b.g.deferred,
                torch.get_default_dtype())

    def _process_kept(self, path, key):
        """The template two calls of this key verified in an earlier
        recording (or None): a group whose signature holds for the
        process (no attribute compared by identity) reads nothing from
        before its call but its arguments and its own parameters, so its
        template is a function of the signature, the key and the
        recording's settings alone."""
        pkey = self._process_key(self.found[path][2], key)
        got = latest.used(_KEPT, pkey)
        if got is None:
            return None
        self.kept[key[0]] = got[0]
        return got[0]

    def _own(self, path):
        """{relative name: tensor} of the module's parameters and buffers
        whose recorded name is the module's path and that name (a tied
        one is named at its first path: not the module's)."""
        got = self.tensors.get(path)
        if got is None:
            lead = _lead(path)
            m = self.found[path][0]
            params = self.b.params
            got = {}
            for sub_path, sub in m.named_modules():
                head = sub_path + "." if sub_path else ""
                for store in (sub._parameters, sub._buffers):
                    for k, t in store.items():
                        p = params.get(id(t)) if t is not None else None
                        if p is not None and p[0] == lead + head + k:
                            got[head + k] = t
            self.tensors[path] = got
        return got

    def _template(self, path, at, after, tensors, out_name, out_scope,
                  out_meta, log, cached, tracked, form, more, valued):
        """What a call added between `at` and `after`, relative to the
        counters, the module's path and its arguments; None where that
        cannot be replayed (the module docstring)."""
        b = self.b
        g = b.g
        (c0, k0, n0, kern0, nv, ni, nk, ns, na, nd, unc, q0, _) = at
        (c1, k1, n1, kern1, nv1, ni1, nk1, ns1, na1, nd1, unc1, q1, _) = after
        if unc1 != unc or out_name is None:
            return None
        own = self._own(path)
        lead = _lead(path)
        arg_of = {}
        for k, t in enumerate(tensors):
            arg_of.setdefault(b.names[id(t)], k)
        def numbered(name):
            return marked(name, at, after)

        def relative(name):
            if not name:  # an absent input (""), an output nothing writes
                return ("e", name)
            # an argument first: a model's input named like a counted
            # value ("input_1", read first by its first layer) is one
            k = arg_of.get(name)
            r = ("a", k) if k is not None else numbered(name)
            if r is None:
                if name.startswith(lead) and name[len(lead):] in own:
                    r = ("p", name[len(lead):])
                elif name[:1] == "\5" and name[2:].startswith(lead) and \
                        name[2 + len(lead):] in own:
                    # read first by a numbered call (tape._first_read)
                    r = ("P", name[1], name[2 + len(lead):])
                elif name.startswith(lead) and name.endswith("^T") and \
                        name[len(lead):-2] in own:
                    r = ("pT", name[len(lead):-2])  # its t(), folded
                else:
                    raise LookupError(name)
            return r

        def made_here(name):
            r = rel(name)
            if r[0] == "a":
                raise LookupError(name)
            return r

        # name -> relative(name), made once: a value is read many times,
        # and a hit is the dict's own lookup (no Python frame)
        rel = _Memo(relative).__getitem__
        made = _Memo(made_here).__getitem__

        subs = {}  # scope -> sub(scope): a layer's nodes share a few

        def sub(scope):
            r = subs.get(scope)
            if r is None:
                if scope == path:
                    r = ""
                elif scope.startswith(lead):
                    r = scope[len(path):]
                else:
                    raise LookupError(scope)
                subs[scope] = r
            return r

        def node_number(name, scope):
            return node_numbered(name, scope, k0, k1, q0, q1)

        try:
            # (map and unpacking rather than generators and attributes:
            # a layer noted makes thousands of these, in a first summary)
            made_nodes = g.nodes[n0:n1]
            nodes = [(op, *node_number(name, scope), sub(scope),
                      tuple(map(rel, ins)), tuple(map(made, outs)),
                      tuple(attrs.items()) if attrs else (), domain)
                     for op, name, ins, outs, attrs, domain, scope
                     in made_nodes]
            aten = []
            if na1 > na:
                scopes = {n.name: n.scope for n in made_nodes}
                for k, v in added(g.aten, na, na1):
                    if k not in scopes:
                        raise LookupError(k)
                    aten.append((node_number(k, scopes[k]), sub(scopes[k]),
                                 _relative(v, c0, k0, ni, scopes[k], rel)))
            values, inits, kinds, shapes = tables_added(b, at, after,
                                                        made)
            # (read by the names the values were made under; a folded
            # t()'s value ("pT") by its weight's)
            dec = g.declared
            declared = tuple(
                r for k, (r, _) in zip(itertools.islice(g.values, nv, nv1),
                                       values)
                if (k[:-2] if r[0] == "pT" else k) in dec)
            events = tuple((e[0], sub(e[1])) + e[2:] for e in log)
            # an output that is an argument (T5's position bias, handed
            # on) keeps its name and scope: made elsewhere, no scope here
            output = rel(out_name)
            out_scope = sub(out_scope) if output[0] != "a" else ""
            more = tuple((r, sub(sc) if r[0] != "a" else "", m)
                         for r, sc, m in ((rel(n), sc, m)
                                          for n, sc, m in more))
            cached = tuple(e[:2] + (e[2] and made(e[2]), e[3] and sub(e[3]),
                                    e[4])
                           if e[1] != "v" else e for e in cached)
            # values of the fused calls replay.py replayed inside, whose
            # contents are those of a tensor of the recording's (a mask
            # made before the call): that very tensor, under its new name
            tracked = tuple((made(n), _Same(t)) for n, t in tracked)
            # values the call made with a real value (positions gathered,
            # an ALiBi bias sliced): a function of the key and the nodes,
            # so the same in every call the template is the same for; an
            # argument's own value is tracked under its name already
            valued = (valued[0], tuple((made(n), _Made(t))
                                       for n, t in valued[1]
                                       if n not in arg_of))
        except LookupError:
            return None
        outputs = [output] + [r for r, _, _ in more]
        if any(r[0] not in _MADE and r[0] != "a" for r in outputs) or \
                len(set(outputs)) != len(outputs) or \
                nd1 - nd != len(declared) or \
                any(f < n0 for f, _ in g.kernels[kern0:kern1]):
            return None
        inner = _inner_replays(g, n0, n1, at, path, rel, sub)
        return (_counts(at, after), k1 - k0, tuple(nodes),
                tuple((f - n0, c) for f, c in g.kernels[kern0:kern1]),
                inner,
                tuple(g.node_source[n0:n1]), values, inits, kinds, shapes,
                tuple(aten), declared, events, output, out_scope, out_meta,
                cached, tracked, form, more, valued)

    def _replay(self, path, tpl, tensors, cache, group):
        """Adds the template at `path`, renamed; the call's output, or
        None where the module's parameters are not all its own or, for a
        template that made values with real contents, its own values
        differ."""
        (dc, dk, nodes, kernels, inner, sources, values, inits, kinds,
         shapes, aten, declared, events, output, out_scope,
         (dtype, size, stride, _), cached, tracked, form, more,
         (contents, valued)) = tpl
        b = self.b
        g = b.g
        if contents and self._own_values(path) != contents:
            return None  # its own values differ from the template's
        own = self._own(path)
        names = b.names
        made = tpl_made_params(inits, values)
        if any(r not in own or id(own[r]) in names for r in made) or \
                any(r not in own for r in tpl_params(nodes)):
            return None
        c0, k0, n0 = g._counter, g._nodes_made, len(g.nodes)
        q0, f0 = g._deferred_calls, g._deferred_consts
        ni = len(g.inits)
        args = [names[id(t)] for t in tensors]
        self.replayed[0] += dk + dc[1]
        self.replayed[1] += 1
        lead = _lead(path)

        def name(r):
            # (the kinds by how often a layer names them: "n" the
            # recorder's values, "q" deferred numbering's calls' outputs,
            # "p" its parameters; deferred_name's "q" written out)
            kind = r[0]
            if kind == "n":
                return r[1] + str(c0 + r[2])
            if kind == "q":
                return "\3%d.%d" % (q0 + r[1], r[2])
            if kind == "p":
                return lead + r[1]
            if kind == "a":
                return args[r[1]]
            if kind == "pT":
                return lead + r[1] + "^T"
            if kind == "P":
                return "\5" + r[1] + lead + r[2]
            if kind == "f":
                return deferred_name(r, q0, f0)
            return r[1]  # "e": "" or None

        g.nodes.extend(_new_node(Node, (
            op, node_name(o, k, path + s, k0, q0), [name(i) for i in ins],
            [name(x) for x in outs],
            {a: list(v) if type(v) is list else v for a, v in attrs},
            domain, path + s))
            for op, o, k, s, ins, outs, attrs, domain in nodes)
        if len(g.nodes) > n0:
            # this layer, then the layers replayed inside its template's
            # recording, each where this replay put it
            g.replays.append(Replayed(group, n0, len(g.nodes), g.nodes,
                                      dc + (dk,), (c0, k0, q0, f0, ni),
                                      path, args))
            g.replays += [Replayed(t, n0 + a, n0 + z, g.nodes, counts,
                                   tuple(map(sum, zip((c0, k0, q0, f0, ni),
                                                      moved))),
                                   path + sub, [name(r) for r in rargs])
                          for t, a, z, counts, moved, sub, rargs in inner]
        g.node_source.extend(sources)
        g.kernels.extend((n0 + f, c) for f, c in kernels)
        put_tables(b, name, values, inits, kinds, shapes)
        for r in made:  # the layer's own parameters, named
            t = own[r]
            b.hold(t)
            names[id(t)] = lead + r
        for ((o, k), s, v) in aten:
            g.aten[node_name(o, k, path + s, k0, q0)] = \
                _absolute(v, c0, k0, ni, path + s, name)
        self._module_events(path, events)
        if cached:
            def tensor(r, scope, meta, was):
                t = _made(*meta)
                b.hold(t)
                names[id(t)] = name(r) if r is not None else names[id(was)]
                if scope is not None:
                    b.scope_of[id(t)] = path + scope
                return t
            layer_cache.apply(*cache, cached, tensor, b.shadows)
        for r, t in itertools.chain(tracked, valued):
            v = self._value_of(t) if type(t) in _KEPT_VALUES else t.v
            if v is not None:
                b.replayed_tracked.append((name(r), v))
        out = finish_replay(b, declared, name, dc, k0 + dk, output,
                            path + out_scope, (size, stride, dtype))
        out = _handed_on(output, tensors, (dtype, size, stride), out)
        if form is None:
            return out
        got = [out]
        for r, sc, (dtype, size, stride, _) in more:
            t = _handed_on(r, tensors, (dtype, size, stride), None)
            if t is None:
                t = _made(dtype, size, stride)
                b.hold(t)
                names[id(t)] = name(r)
                if r[0] == "n":  # made by the call
                    b.scope_of[id(t)] = path + sc
            got.append(t)
        return _formed(form, got)

    def _value_of(self, kept):
        """A meta tensor whose shadow is a _Value's contents (a template
        of an earlier recording's), one for the recording: the replays
        that read it then hand the library one value, as the layers that
        ran compute one (shadow.py's memo) and the masks count it once.
        Its copy is the recording's (no tensor of the model's holds it,
        so nothing writes it). None where the recording keeps no such
        value."""
        got = self.values.get(id(kept))
        if got is None or got[0] is not kept:
            shadows = self.b.shadows
            if type(kept) is _Fill:
                t = _made(kept.dtype, kept.shape, kept.stride)
                v = kept.pending(t)
            else:
                v = kept.v
                t = _made(v.dtype, tuple(v.shape), v.stride())
                with no_dispatch():  # a copy, not a call of the model's
                    v = v.clone()
            if shadows is None or not shadows.set(t, v):
                t = None
            else:
                self.b.hold(t)
            got = self.values[id(kept)] = (kept, t)
        return got[1]

    def _module_events(self, path, events):
        """What ModuleStack's hooks noted during the template's call, made
        at `path` (recorder.ModuleStack.log), and noted as they would
        have: a layer alike to none notes its template while its layers
        alike replay inside it."""
        st = self.stack
        log = st.log
        for e in events:
            p = path + e[1]
            if e[0] == "call":
                st.calls[p] = st.calls.get(p, 0) + 1
            elif e[0] == "io":
                if p in st.io:
                    continue
                st.io[p] = (e[2], [])
            elif e[0] == "io_out":
                if p not in st.io:
                    continue
                st.io[p][1].extend(e[2])
            else:  # "out"
                st.outputs.setdefault(p, []).append(e[2])
            if log is not None:
                log.append((e[0], p) + e[2:])


def _note_recorded(b, group, tpl, notes):
    """The two calls whose recordings made `tpl`, noted as replays of it
    (graph.Replayed) where they lie: a replay adds what they added, so
    pack() writes the second and the replays after it as replay records
    in this recording as in the next, where each call replays (the
    summary memo reads two recordings that packed the same as one
    model's)."""
    g = b.g
    counts = tpl[0] + (tpl[1],)
    for path, at, after, tensors, *_ in notes:
        if after[2] > at[2]:
            r = Replayed(group, at[2], after[2], g.nodes, counts,
                         (at[0], at[1], at[11], at[12], at[5]), path,
                         [b.names[id(t)] for t in tensors])
            # (before the replays inside it, which came first)
            g.replays.insert(bisect.bisect_left(
                [x.first for x in g.replays], r.first), r)


def _inner_replays(g, n0, n1, at, path, rel, sub):
    """The layers replayed while a template's call between graph_at's
    `at` and g.nodes[n1] was recorded (graph.Replayed, under deferred
    numbering), each relative to the call: (its template, its first and
    stop entry, what it numbers, the counters it was replayed at less the
    call's, its path below the call's, its arguments by rel()). A replay
    of the template puts them where it puts the call's nodes, so that
    pack() can write each after the first as a replay record; one whose
    nodes changed since, or that names what rel() cannot, is left out."""
    c0, k0, ni, q0, f0 = at[0], at[1], at[5], at[11], at[12]
    inner = []
    nodes = g.nodes
    for r in reversed(g.replays):
        if r.first < n0:
            break
        if r.stop > n1 or nodes[r.first] is not r.head or \
                nodes[r.stop - 1] is not r.tail:
            continue
        try:
            inner.append((r.key, r.first - n0, r.stop - n0, r.counts,
                          (r.at[0] - c0, r.at[1] - k0, r.at[2] - q0,
                           r.at[3] - f0, r.at[4] - ni),
                          sub(r.path), tuple(map(rel, r.args))))
        except LookupError:
            continue
    return tuple(reversed(inner))


def _handed_on(r, tensors, meta, made):
    """The call's argument a template's output `r` is, where it is one
    ("a") of the same dtype, sizes and strides: what the forward returned
    (T5's blocks hand their position bias on), with its real value if it
    has one, which a tensor made again would not; else `made`."""
    if r[0] == "a":
        t = tensors[r[1]]
        if (t.dtype, tuple(t.shape), t.stride()) == \
                (meta[0], tuple(meta[1]), tuple(meta[2])):
            return t
    return made


def _lead(path):
    """What the names below the module at `path` start with: "path.",
    or nothing for the model itself ("")."""
    return path + "." if path else ""


class _Memo(dict):
    """key -> f(key), each made once (its lookup a plain dict's)."""
    __slots__ = ("f",)

    def __init__(self, f):
        super().__init__()
        self.f = f

    def __missing__(self, key):
        v = self[key] = self.f(key)
        return v


class _Same:
    """A tensor in a template: equal to itself only."""
    __slots__ = ("v",)

    def __init__(self, v):
        self.v = v

    def __eq__(self, other):
        return type(other) is _Same and other.v is self.v

    def __hash__(self):
        return id(self.v)


def _form(out):
    """(None, [out], [out]) for a tensor; ((n, the tensors' places), the
    tensors, the tensors) for a tuple of n whose items are tensors, each
    once, and Nones (a transformers layer's hidden states and attention
    weights, or None for the weights); (_output_form's, the tensors in
    order, those outside caches) for a dict or a transformers output
    object of tensors and caches the call made (a model's logits and its
    KV cache), each tensor once; (None, None, None) for anything
    else."""
    if isinstance(out, torch.Tensor):
        return None, [out], [out]
    if type(out) is tuple:
        at = tuple(k for k, x in enumerate(out) if x is not None)
        got = [out[k] for k in at]
        if at and _distinct_tensors(got):
            return (len(out), at), got, got
    elif type(out) is dict or _model_output(type(out)):
        got, cached = [], set()
        try:
            form = _output_form(out, got, 0, cached)
        except LookupError:
            return None, None, None
        if got and _distinct_tensors(got):
            return form, got, [t for t in got if id(t) not in cached]
    return None, None, None


def _output_form(v, got, depth, cached):
    """How a replay makes `v` again, its tensors appended to `got` (the
    ids of a cache's to `cached`): "t" a tensor; ("m", class, keys,
    forms) a dict or a transformers output object keyed by strings
    (CLIP's holds its towers'); ("s", list or tuple, forms) a list or
    tuple (RWKV's state); else a cache the call made (layer_cache.
    output_form's "o"). LookupError for anything else, or deeper than
    _OUTPUT_DEPTH."""
    if isinstance(v, torch.Tensor):
        got.append(v)
        return "t"
    if depth >= _OUTPUT_DEPTH:
        raise LookupError(depth)
    cls = type(v)
    if cls is dict or _model_output(cls):
        keys = tuple(v.keys())
        if not keys or any(type(k) is not str for k in keys):
            raise LookupError(keys)
        return ("m", cls, keys, tuple(_output_form(x, got, depth + 1, cached)
                                      for x in v.values()))
    if cls is list or cls is tuple:
        return ("s", cls, tuple(_output_form(x, got, depth + 1, cached)
                                for x in v))
    n = len(got)
    form = layer_cache.output_form(v, got)
    if form[0] != "o":
        raise LookupError(cls.__name__)
    cached.update(map(id, got[n:]))
    return form


def _distinct_tensors(got):
    return all(isinstance(t, torch.Tensor) for t in got) and \
        len(set(map(id, got))) == len(got)


def _model_output(cls):
    """Whether cls is a transformers ModelOutput (a dataclass whose dict
    holds the fields that are not None, made again from them by name),
    without importing transformers."""
    return any(c.__name__ == "ModelOutput" and
               c.__module__.startswith("transformers.")
               for c in cls.__mro__[1:])


def _formed(form, got):
    """The call's output made again from `form` (_form's) and its
    tensors in order."""
    if type(form[0]) is int:
        n, at = form
        out = [None] * n
        for k, t in zip(at, got):
            out[k] = t
        return tuple(out)
    return _output_made(form, iter(got))


def _output_made(form, tensors):
    """What _output_form described, made again from the iterator
    `tensors`."""
    if form == "t":
        return next(tensors)
    if form[0] == "m":
        return form[1](**{k: _output_made(f, tensors)
                          for k, f in zip(form[2], form[3])})
    if form[0] == "s":
        return form[1](_output_made(f, tensors) for f in form[2])
    return layer_cache.output_made(form, tensors)


class _Made:
    """A value a call made with a real value, in a template: what the
    value is follows from the call's key (an argument's real value keys
    it by name) and the nodes, which the two templates compare, so any
    two are equal; a replay hands the template's tensor (its value) to
    the masks under the new name, as the recording would have."""
    __slots__ = ("v",)

    def __init__(self, v):
        self.v = v

    def __eq__(self, other):
        return type(other) is _Made

    def __hash__(self):
        return 0


class _Value:
    """A value a call made with real contents, in a template kept for the
    process: its contents (a CPU tensor), which a replay gives a meta
    tensor of its own as its shadow."""
    __slots__ = ("v",)

    def __init__(self, v):
        self.v = v


class _Fill:
    """A value a call made that was a fill not computed yet when its
    template was kept for the process (`ones(L, S)`, which PyTorch's math
    SDPA makes the causal triangle of on meta): its number, which a
    replay's shadow is a pending fill of again, so that the masks hand it
    over as the layer that ran did (its one element, read without making
    the triangle: masks.hand_over), not as the values it was computed to."""
    __slots__ = ("dtype", "shape", "stride", "number")

    def __init__(self, t, number):
        self.dtype, self.shape, self.stride = t.dtype, tuple(t.shape), \
            t.stride()
        self.number = number

    def pending(self, t):
        """A pending fill of `t`'s sizes (shadow.py's), for t's shadow."""
        return _Pending(torch.ops.aten.full.default,
                        (list(self.shape), self.number),
                        {"dtype": self.dtype, "device": "cpu"}, {}, [t], 0)

    def equals(self, shadows, t):
        """Whether `t`'s value is this fill: a pending fill of its number,
        else a value of its dtype and sizes holding it everywhere."""
        if t.dtype != self.dtype or tuple(t.shape) != self.shape:
            return False
        f = shadows.fill_of(t)
        if f is not None:
            return type(f) is type(self.number) and f == self.number
        with no_dispatch():  # read, not a call of the model's
            v = shadows.value(t)
            return v is not None and bool((v == self.number).all())


# what a template kept for the process holds in place of its tensors
_KEPT_VALUES = (_Value, _Fill)


def _for_process(tpl, shadows):
    """The template to keep for the process: the values with real
    contents it hands the masks, those the call made (a function of the
    key, which then holds no real argument, and of the nodes) and those
    of the fused calls replayed inside it (replay.py's, made by the
    call's own nodes from the same key), read now, as _Value, one per
    tensor; None where one has no value to read."""
    contents, valued = tpl[-1]
    tracked = tpl[-4]
    if not valued and not tracked:
        return tpl
    if shadows is None:
        return None
    n = _bytes(tracked, valued)
    if n > _PROCESS_BYTES or _HELD[0] + n > _PROCESS_HELD:
        return None  # (a long sequence's masks: kept for the recording)
    memo = {}  # id(tensor) -> its _Value: a replay hands one value on

    def kept(t):
        got = memo.get(id(t))
        if got is None:
            number = shadows.fill_of(t)
            if number is not None:
                got = memo[id(t)] = _Fill(t, number)
                return got
            with no_dispatch():  # its ops are no call of the model's
                v = shadows.value(t)
                if v is None:
                    raise LookupError
                got = memo[id(t)] = _Value(v.clone())
        return got
    try:
        tracked = tuple((r, kept(t.v)) for r, t in tracked)
        valued = tuple((r, kept(t.v)) for r, t in valued)
    except LookupError:
        return None
    with _HELD_LOCK:  # (two threads may both have passed the test above)
        if _HELD[0] + n > _PROCESS_HELD:
            return None
        _HELD[0] += n
    return tpl[:-4] + (tracked,) + tpl[-3:-1] + ((contents, valued),)


def _bytes(tracked, valued):
    """What a template's values with real contents hold."""
    return sum(t.v.numel() * t.v.element_size()
               for _, t in itertools.chain(tracked, valued)
               if type(t) is not _Fill)


def _release(kept):
    """A template _for_process made that the process drops: its values'
    bytes are no longer held."""
    n = _bytes(kept[-4], kept[-1][1])
    if n:
        with _HELD_LOCK:
            _HELD[0] = max(0, _HELD[0] - n)


def _same_for_process(kept, tpl, shadows):
    """Whether a template kept for the process (_for_process: its values
    with real contents read) and a template of this recording's are the
    same: every item equal, and each value the masks are handed of equal
    contents."""
    if kept[:-4] + kept[-3:-1] != tpl[:-4] + tpl[-3:-1] or \
            kept[-1][0] != tpl[-1][0]:
        return False
    # by name: a value a layer below made is among the call's own made
    # values where that layer ran, among the values replays handed the
    # masks where it replayed (Gemma-2's sliding and full layers run in
    # the second summary, replay from the third); the masks read it by
    # its name either way
    old = sorted(itertools.chain(kept[-4], kept[-1][1]), key=_ref)
    new = sorted(itertools.chain(tpl[-4], tpl[-1][1]), key=_ref)
    if len(old) != len(new):
        return False
    for (r, was), (s, now) in zip(old, new):
        if r != s or type(was) not in _KEPT_VALUES or shadows is None:
            return False
        if type(was) is _Fill:
            if not was.equals(shadows, now.v):
                return False
            continue
        with no_dispatch():  # read, not a call of the model's
            v = shadows.value(now.v)
            if v is None or v.dtype != was.v.dtype or \
                    v.shape != was.v.shape or not torch.equal(v, was.v):
                return False
    return True


def _ref(entry):
    """A template's (relative name, value) entry's name, as a sort key."""
    return tuple(map(str, entry[0]))


def _made_values(of, was, cached, outs):
    """The tensors a call made with a real value (shadow.py's `of`, in
    the order they were made, past its first `was` entries), but empty
    ones (a KV cache's start has no value to read) and `cached` (ids: the
    cache slot's, which a replay makes again, layer_cache.valued); None
    where the template cannot carry them: an entry of before the call
    dropped, or one of them among `outs` (a replay makes outputs with no
    value; None: the call returned no tensors, and runs)."""
    n = len(of)
    if n <= was:
        return () if n == was else None
    got = [e[0] for e in itertools.islice(of.values(), was, n)
           if e[0].numel() and id(e[0]) not in cached]
    if any(t is o for t in got for o in outs or ()):
        return None
    return got


def _value_now(shadows, t):
    """t's real value: read where it is one already, else computed (below
    the recording: its ops are no call of the model's); None where t has
    none."""
    v = shadows.peek(t)
    if v is None:
        with no_dispatch():
            v = shadows.value(t)
    return v


def _contents(v):
    """A real value's dtype, sizes and elements, hashable."""
    with no_dispatch():  # read, not a call of the model's
        v = v.detach().contiguous()
        try:
            data = v.numpy().tobytes()
        except (RuntimeError, TypeError):  # no numpy, or a dtype it lacks
            data = tuple(v.reshape(-1).tolist())
    return str(v.dtype), tuple(v.shape), data


def tpl_params(nodes):
    """The relative names of the parameters a template's nodes read
    (themselves, their folded t(), or first where a numbered call reads
    them under deferred numbering)."""
    return {r[-1] for n in nodes for r in n[4] if r[0] in ("p", "pT", "P")}


def tpl_made_params(inits, values):
    """The relative names of the parameters a template names: those it
    makes initializers of, and those a numbered call reads first where
    the numbering is deferred (the library makes their initializers)."""
    return [r[1] for r, _ in inits if r[0] == "p"] + \
        [r[2] for r, _ in values if r[0] == "P"]


# a key's templates that differed before it is run for good
_TRIES = 3
# an argument with a real value keyed by its contents (Layers.
# _small_contents): position ids of up to 8,192 tokens, a square mask
# over up to 90
_KEY_ELEMENTS = 8192
# the contents a template kept for the process may hold (_for_process):
# a tiny model's masks, not a 2,048-token model's (its process would hold
# them for good)
_PROCESS_BYTES = 1 << 20
# and all of them together (_HELD: what they hold now; forget() clears)
_PROCESS_HELD = 64 << 20
_HELD = [0]
_HELD_LOCK = threading.Lock()
# a group whose layers together make fewer nodes saves less than it
# costs to find (a summary compares every module of its layers, 3 us
# each) and to replay (0.1 to 0.3 ms a layer): nodes one call made
# (g._nodes_made) by the group's layers. Groups from 21 nodes up (3
# layers of 7: EfficientNet's) pay: on PyTorch 2.14 replaying them made
# efficientnet_v2_s, efficientnet_b0 and maxvit_t 2 to 6 % quicker, no
# model slower (bench/recording_profile.py --against, 2026-11-28); a
# count, unlike the time it replaces, is the same on every machine
_MIN_GROUP_NODES = 16
# what a layer's replay costs, as the nodes whose recording costs as
# much (0.1 to 0.3 ms a replay, 30 to 60 us a node recorded on PyTorch
# 2.14): _pays_whole
_REPLAY_NODES = 4
# how deep a call's output may nest for a replay to make it again
# (_output_form: a model's output object, a tower's inside it, a cache
# inside that, its slots)
_OUTPUT_DEPTH = 8
# (group signature, key, settings) -> (template,): templates verified in
# a recording, for later ones (_process_kept);
# bounded, the one used least lately making room (_keep): a process
# summarizing many models keeps its latest models' templates
_KEPT = {}
_KEPT_MAX = 512
# the same key -> (template,), or (template, "again"), of a lone layer's
# call, waiting for a
# later recording's call to verify it (Layers._verify_alone); bounded so
_NOTED = {}
# id(a model's tensor with a real value, a layer's own) -> (weak reference,
# its version, _contents): read once per change (Layers._contents_once)
_CONTENTS = {}


def _keep(pkey, kept):
    """Keeps a template for the process (_KEPT), past _KEPT_MAX in place
    of the one used least lately; a template it replaces, or that makes
    room, releases its values' bytes."""
    for old in latest.put(_KEPT, pkey, kept, _KEPT_MAX):
        if old[0] is not kept[0]:
            _release(old[0])


def forget():
    """Drops what is kept for the process: the templates, the
    architectures' groups (tests that count replays)."""
    _KEPT.clear()
    _NOTED.clear()
    _HELD[0] = 0
    layer_groups.forget()
