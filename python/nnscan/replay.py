"""A fused call repeated with the same arguments, replayed instead of run.

On meta tensors F.scaled_dot_product_attention runs PyTorch's math path:
about thirty aten calls, each dispatched to the recorder and put on its
tape (fused.py marks the nodes as one kernel). A decoder calls it once
a layer with the same shapes: LLaMA-3-8B 32 times, 28 % of its
recording's aten calls. What the recorder adds to the graph for such a
call is, but for its numbers, the same each time: the same nodes, values,
constants and declarations, named from the graph's two counters, reading
the call's own tensors and the same values from before it (the mask).

So each fused call that runs is noted with where the graph stood before
and after it. At a call whose key (the function, each argument's dtype,
sizes and strides and which arguments are one tensor, the other
arguments; a tensor with a real value, the mask, by its value's name) had two
calls noted, the two are read back as templates: what each added, its
names relative to the counters, its inputs as the call's arguments or as
names from before. When the two are the same, this call and later ones
with the key add the template renumbered, and make their output as the
math path made it (sizes, strides, dtype), without running it; when not,
the older is dropped and the key tries again (three times). A layer
called twice pays the keys alone. Whatever could make a call's additions
differ keeps it running: a template that names anything other than from
the counters, a node of another scope, an output with a real value, a
training step's mode, autograd nodes to note, autocast, an argument with
no name yet, a numbered call that folds a weight's t() (the numbered
tape's records hold the counters: they are made relative to the
template's start, as its names are).

Where the numbering is left to the library (graph.defer_numbering:
names marked, numbered by what the recorder makes alone), a template
holds the marked names relative to the same counters and to two more:
the numbered calls ("\3K.J" outputs, "\3nK" placeholders) and the
constants from outside they read first ("\5cK"): marked(),
deferred_name(), node_numbered() and node_name(). The packed form a
replay makes is then the one its call would have made, and the library
numbers it as it would that one.

A template is a function of the key alone where it reads nothing from
before the call but the call's arguments, and the key names no value (no
tracked argument): then it holds in any recording of the same settings
(shadows or none, the default dtype). Such a key's template is kept for the
process (_KEPT) once two calls made the same, in one recording or in two,
so a model whose layers call the function twice (the tiny decoders) replays
both calls from its second summary on. The values the call makes with a
real value (is_causal's mask, ones(L, S).tril()) are then kept as what
computes them (their shadows' pending ops, over one another), not as
values: a later recording's shadows get them anew, computed only if read,
as the call's own would be.

NNSCAN_REPLAY=0 runs every call (bench/same_summary.py compares the two).
"""
import itertools
import os

import torch
from torch.utils._mode_utils import no_dispatch

from . import latest, shadow
from .graph import Node, _new_node

_DIGITS = "0123456789"


def enabled():
    return os.environ.get("NNSCAN_REPLAY", "1") != "0"


def forget():
    """Drops the templates kept for the process (tests that count
    replays)."""
    _KEPT.clear()


def _meta_of(t):
    return (t.dtype, tuple(t.shape), t.stride(), t.requires_grad)


class Replays:
    """The templates of one recording's fused calls (fused.Spans)."""

    def __init__(self, builder):
        self.b = builder
        # key -> [its last two calls (seen()), comparisons that failed], or
        # once verified (template, its tracked tensors)
        self.kept = {}
        # what a template kept for the process holds in (_KEPT's keys)
        self.settings = (builder.shadows is None, builder.g.deferred,
                         torch.get_default_dtype())
        self.portable = {}  # key -> key()'s third item

    def usable(self):
        b = self.b
        return not (b.track_grad_fns or b.step_mode is not None
                    or b.autocast is not None or b.weak
                    or torch.is_grad_enabled())

    def key(self, orig, args, kwargs):
        """(the call's key, its tensor arguments in order); None where it
        is not to be replayed."""
        b = self.b
        shadows = b.shadows
        named = []  # whether a tracked tensor keys by its value's name

        def tensor(v):
            if id(v) not in b.names or not v.is_meta:
                raise LookupError
            # A tensor with a real value keys by its value's name: the
            # tensor and its version (an op writing it in place names it
            # anew). Asked without computing the value: one is computed
            # when first read, which changes what the recording sees.
            e = shadows.of.get(id(v)) if shadows is not None else None
            tracked = e is not None and e[0] is v
            if tracked:
                named.append(v)
            return b.names[id(v)] if tracked else None
        got = call_key([orig], args, kwargs, tensor)
        return None if got is None else got + (not named,)

    def before(self):
        """Where the graph stands before a call that runs."""
        return graph_at(self.b)

    def seen(self, key, at, out):
        """Notes a call that ran: where the graph stood before and after
        it (the graph's tables only grow while a recording runs, so what
        the call added can be read back later), kept for the key's last
        two calls. Nothing more is made here: a layer called twice (the
        tiny decoders) pays no template."""
        k, tensors, portable = key
        kept = self.kept.get(k)
        if kept is None:
            kept = self.kept[k] = [[], 0]
        elif type(kept) is tuple or kept[1] >= _TRIES:
            return  # verified, or given up on
        self.portable[k] = portable
        call = (at, self.before(), tensors, out, self.b.scope)
        kept[0] = kept[0][-1:] + [call]

    def ready(self, key):
        """(template, its tracked tensors) for a call of this key, once
        the key's last two calls added the same but for their numbers;
        None while they did not."""
        kept = self.kept.get(key[0])
        if kept is None:
            if key[2]:  # a template kept for the process
                kept = latest.used(_KEPT, (self.settings, key[0]))
                if type(kept) is tuple and kept[0] == "verified":
                    _, kept, recipes = kept
                    self._instantiate(kept[1], recipes)
                    self.kept[key[0]] = kept
                    return kept
            return None
        if type(kept) is tuple:
            return kept
        calls, tries = kept
        if len(calls) < 2 or tries >= _TRIES:
            return None
        got = [self._template(*c) for c in calls]
        try:
            same = None not in got and got[0][0] == got[1][0]
        except Exception:  # noqa: BLE001 - values that do not compare
            same = False
        if not same:
            kept[0], kept[1] = calls[1:], tries + 1
            return None
        kept = self.kept[key[0]] = got[1]
        return kept

    def finish(self):
        """At the recording's end (the graph's tables as the forward left
        them): each key whose template may hold for the process (key()'s
        third item) and is not kept for it yet, its last call's template
        compared with the one before it, in this recording or an earlier
        one; two the same are kept for the process, verified. Once per
        key and process: a key whose template names a value from before
        the call, or whose calls differed _TRIES times, is kept as such
        (False), so that its later summaries pay no template."""
        for key, kept in self.kept.items():
            at = (self.settings, key)
            had = latest.used(_KEPT, at)
            if had is False or (type(had) is tuple and had[0] == "verified"):
                continue
            if not self.portable.get(key):
                continue  # a tracked argument: keyed by a name of its own
            if type(kept) is tuple:  # verified in this recording
                mine = [kept, kept]
            else:
                calls, tries = kept
                if not calls or tries >= _TRIES:
                    continue
                mine = [self._template(*c) for c in calls]
            recipes = [self._recipes(t[1]) if t is not None else None
                       for t in mine]
            if None in mine or None in recipes or \
                    not all(_portable(t[0]) for t in mine):
                latest.put(_KEPT, at, False, _KEPT_MAX)
                continue
            seen = [(t[0], r) for t, r in zip(mine, recipes)]
            fails = 0
            if had is not None:
                seen = [(had[1][0], had[2])] + seen[-1:]
                fails = had[3]
            try:
                same = len(seen) > 1 and seen[-2] == seen[-1]
            except Exception:  # noqa: BLE001 - values that do not compare
                same, fails = False, _TRIES
            if same:
                verdict = ("verified", mine[-1], recipes[-1])
            else:
                fails += len(seen) > 1
                verdict = ("candidate", mine[-1], recipes[-1], fails) \
                    if fails < _TRIES else False
            latest.put(_KEPT, at, verdict, _KEPT_MAX)

    def _recipes(self, held):
        """What computes the values of a template's tracked tensors (its
        call made them): per tensor its shadow's pending op, with the
        tracked tensors it reads as _Held; None where one is anything
        else (a value computed already, an op reading a tensor from
        outside the call, several outputs)."""
        shadows = self.b.shadows
        if not held:
            return ()
        if shadows is None:
            return None
        index = {id(h): k for k, h in enumerate(held)}

        def held_of(x):
            if not isinstance(x, torch.Tensor):
                return x
            k = index.get(id(x))
            if k is None:
                raise LookupError
            return _Held(k)
        out = []
        for h in held:
            e = shadows.of.get(id(h))
            p = e[1] if e is not None and e[0] is h else None
            if type(p) is not shadow._Pending or p.done or p.blank or \
                    len(p.outs) != 1 or p.outs[0] is not h:
                return None
            try:
                out.append((p.func, _rebuilt(p.args, held_of),
                            _rebuilt(p.kwargs, held_of), p.depth))
            except LookupError:
                return None
        return tuple(out)

    def _instantiate(self, held, recipes):
        """The tracked tensors of a template kept for the process, given
        values in this recording's shadows: pending ops made from their
        recipes (_recipes), computed only if read. None of them is a
        tensor the model sees, so none is written in place: they are not
        among the ops a write runs first (Shadows.pending)."""
        shadows = self.b.shadows

        def tensor_of(x):
            return held[x.index] if type(x) is _Held else x
        for h, (func, args, kwargs, depth) in zip(held, recipes):
            shadows.set(h, shadow._Pending(
                func, _rebuilt(args, tensor_of), _rebuilt(kwargs, tensor_of),
                {}, [h], depth))

    def _template(self, at, after, tensors, out, scope):
        """What the call between `at` and `after` added, its names
        relative to the counters; None where that cannot be replayed."""
        g, b = self.b.g, self.b
        (c0, k0, n0, kern0, nv, ni, nk, ns, na, nd, unc, q0, _) = at
        (c1, k1, n1, kern1, nv1, ni1, nk1, ns1, na1, nd1, unc1, q1, _) = after
        if unc1 != unc or not isinstance(out, torch.Tensor) or \
                (b.shadows is not None and id(out) in b.shadows.of):
            return None
        arg_of = {}
        for k, t in enumerate(tensors):
            arg_of.setdefault(b.names[id(t)], k)
        def numbered(name):
            return marked(name, at, after)

        def rel(name):
            r = numbered(name)
            if r is not None:
                return r
            if name in arg_of:
                return ("a", arg_of[name])
            return ("g", name)

        def made(name):
            r = rel(name)
            if r[0] not in _MADE:
                raise LookupError(name)
            return r

        def node_number(name, op=None):
            o, k = node_numbered(name, scope, k0, k1, q0, q1)
            if op is not None and o.lstrip("\4") != op:
                raise LookupError(name)
            return o, k

        try:
            nodes = []
            for n in g.nodes[n0:n1]:
                if n.scope != scope:
                    return None  # a module called inside: not one scope
                # (a numbered call's node is named after the first of the
                # library's nodes, not its own op: aten::bmm's MatMul_12)
                named, number = node_number(n.name, None if n.name in
                                            g.aten else n.op)
                nodes.append((n.op, named, number,
                              tuple(rel(i) for i in n.inputs),
                              tuple(made(o) for o in n.outputs),
                              tuple(n.attrs.items()), n.domain))
            nodes = tuple(nodes)
            kernels = tuple((f - n0, c) for f, c in g.kernels[kern0:kern1])
            values, inits, kinds, shapes = tables_added(b, at, after,
                                                        made)
            # values with a real value (a shadow: the causal mask the
            # math path builds), named as masks.track finds them; the
            # whole table walked (a shadow may leave it), in its order
            tracked = []
            for i, (t, _) in b.shadows.of.items() if b.shadows else ():
                n = b.names.get(i)
                if n is not None and b.names.get(id(t)) == n and \
                        rel(n)[0] in _MADE:
                    tracked.append((rel(n), t))
            aten = tuple((node_number(k), _relative(v, c0, k0, ni, scope))
                         for k, v in added(g.aten, na, na1))
            # (a later call may not have dropped them: its nodes only)
            dec = g.declared
            declared = tuple(r for k, (r, _) in zip(
                itertools.islice(g.values, nv, nv1), values) if k in dec)
            name = b.names.get(id(out))
            output = rel(name) if name is not None else ("g", None)
        except LookupError:
            return None
        if any(f < 0 for f, _ in kernels) or output[0] == "g" or \
                nd1 - nd != len(declared):
            return None
        tpl = (_counts(at, after), k1 - k0, nodes, kernels,
               tuple(g.node_source[n0:n1]), values, inits, kinds, shapes,
               tuple(r for r, _ in tracked), aten, declared,
               output, _meta_of(out))
        return tpl, [t for _, t in tracked]

    def replay(self, kept, tensors):
        """Adds the template renumbered; the call's output."""
        g, b = self.b.g, self.b
        tpl, held = kept
        (dc, dk, nodes, kernels, sources, values, inits, kinds, shapes,
         tracked, aten, declared, output, (dtype, shape, stride, _)) = tpl
        c0, k0, n0 = g._counter, g._nodes_made, len(g.nodes)
        q0, f0 = g._deferred_calls, g._deferred_consts
        ni = len(g.inits)
        names = b.names
        args = [names[id(t)] for t in tensors]

        def name(r):
            if r[0] == "n":
                return r[1] + str(c0 + r[2])
            if r[0] == "a":
                return args[r[1]]
            if r[0] in _MADE:
                return deferred_name(r, q0, f0)
            return r[1]

        scope = b.scope
        g.nodes.extend(_new_node(Node, (op, node_name(named, k, scope, k0,
                                                      q0),
                                        [name(i) for i in ins],
                                        [name(o) for o in outs],
                                        {a: list(v) if type(v) is list else v
                                         for a, v in attrs},
                                        domain, scope))
                       for op, named, k, ins, outs, attrs, domain in nodes)
        g.node_source.extend(sources)
        g.kernels.extend((n0 + f, c) for f, c in kernels)
        put_tables(b, name, values, inits, kinds, shapes)
        b.replayed_tracked.extend((name(r), t) for r, t in zip(tracked, held))
        for (op, k), v in aten:
            g.aten[node_name(op, k, scope, k0, q0)] = \
                _absolute(v, c0, k0, ni, scope)
        return finish_replay(b, declared, name, dc, k0 + dk, output,
                             scope, (shape, stride, dtype))


def counted(name, c0, c1):
    """("n", stem, k) for a value the graph's counter numbered c0 + k
    (0 < k <= c1 - c0: "v12", "c13", "const14"; the stem ASCII letters
    and underscores, the number without a leading zero), else None."""
    # (string methods, not a pattern: a template asks this of every
    # value it names)
    stem = name.rstrip(_DIGITS)
    at = len(stem)
    if at == len(name) or not stem.isascii() or \
            not stem.replace("_", "a").isalpha():
        return None
    digits = name[at:]
    n = int(digits)
    if c0 < n <= c1 and str(n) == digits:
        return ("n", stem, n - c0)
    return None


def marked(name, at, after):
    """counted() for the names of a graph whose numbering is deferred
    (graph_at's `at` and `after` around a call): ("n", "\2" STEM, k) for
    a value the recorder numbered, ("q", k, j) for the j-th output of
    the call's k-th numbered call ("\3K.J"), ("f", k) for its k-th
    constant from outside that a numbered call read first ("\5cK");
    else None."""
    mark = name[:1]
    if mark == "\2":
        r = counted(name[1:], at[0], after[0])
        return r and ("n", "\2" + r[1], r[2])
    if mark == "\3":
        k, dot, j = name[1:].partition(".")
        if dot and k.isdigit() and j.isdigit():
            k = int(k) - at[11]
            if 0 <= k < after[11] - at[11]:
                return ("q", k, int(j))
    elif name[:2] == "\5c" and name[2:].isdigit():
        k = int(name[2:]) - at[12]
        if 0 < k <= after[12] - at[12]:
            return ("f", k)
    return None


def deferred_name(r, q0, f0):
    """The name of marked()'s ("q", k, j) or ("f", k) where the graph's
    numbered calls and their outside constants number q0 and f0."""
    if r[0] == "q":
        return "\3%d.%d" % (q0 + r[1], r[2])
    return "\5c%d" % (f0 + r[1])


# the kinds of relative names a call makes: counted()'s and marked()'s
_MADE = frozenset("nqf")


def node_numbered(name, scope, k0, k1, q0=0, q1=0):
    """(op, k) for the node "SCOPE/OP_N" made in `scope` with N = k0 + k
    (k0 <= N < k1); for a graph whose numbering is deferred, ("\4" OP, k)
    for "\4SCOPE/OP_N", and ("\3n", k) for the placeholder of the call's
    k-th numbered call ("\3nK", q0 <= K < q1); LookupError for any other
    name."""
    if name[:1] == "\4":
        o, k = node_numbered(name[1:], scope, k0, k1)
        return "\4" + o, k
    if name[:2] == "\3n":
        num = name[2:]
        if num.isdigit() and q0 <= int(num) < q1:
            return "\3n", int(num) - q0
        raise LookupError(name)
    head = scope + "/" if scope else ""
    if not name.startswith(head):
        raise LookupError(name)
    o, _, num = name[len(head):].rpartition("_")
    if not num.isdigit() or str(int(num)) != num or not k0 <= int(num) < k1:
        raise LookupError(name)
    return o, int(num) - k0


def node_name(o, k, scope, k0, q0):
    """node_numbered()'s (o, k) named in `scope` where the graph's
    counters stand at k0 (nodes) and q0 (numbered calls)."""
    if o[:1] in ("\3", "\4"):
        if o == "\3n":
            return "\3n%d" % (q0 + k)
        return "\4" + node_name(o[1:], k, scope, k0, q0)
    return "%s/%s_%d" % (scope, o, k0 + k) if scope else "%s_%d" % (o, k0 + k)


def added(d, start, stop):
    """The items a dict gained between two of its lengths."""
    return itertools.islice(d.items(), start, stop)


def tables_added(b, at, after, made):
    """What a call between graph_at's `at` and `after` added to the
    values, initializers, parameter kinds and recorded sizes, each name
    as made(name) gives it."""
    g = b.g
    shapes = b.shape_of
    return tuple(
        tuple([(made(k), tuple(v)) for k, v in added(d, at[i], after[i])]
              if d is shapes else
              [(made(k), v) for k, v in added(d, at[i], after[i])])
        for i, d in ((4, g.values), (5, g.inits), (6, g.param_kinds),
                     (7, shapes)))


def finish_replay(b, declared, name, counts, nodes_made, output, scope,
                  meta):
    """A replay's last steps: its declared values, the graph's counters
    where the template left them (counts: what it numbered, _counts),
    and the call's output made on meta
    (size, stride, dtype), named name(output), made in `scope` unless it
    is an argument."""
    g = b.g
    for r in declared:
        g.declared.add(name(r))
    dc, dq, df = counts
    g._counter += dc
    g._deferred_calls += dq
    g._deferred_consts += df
    g._nodes_made = nodes_made
    size, stride, dtype = meta
    out = made_on_meta(dtype, size, stride)
    b.hold(out)
    b.names[id(out)] = name(output)
    if output[0] in _MADE:  # made by the call (else an argument's alias)
        b.scope_of[id(out)] = scope
    return out


def made_on_meta(dtype, size, stride):
    """A meta tensor a replay makes (no call of the model's: not
    recorded)."""
    with no_dispatch():
        return torch.empty_strided(size, stride, dtype=dtype, device="meta")


def put_tables(b, name, values, inits, kinds, shapes):
    """tables_added's four, each relative name made absolute by name(),
    added to builder b's graph as a replay's."""
    g = b.g
    for d, items in ((g.values, values), (g.inits, inits),
                     (g.param_kinds, kinds), (b.shape_of, shapes)):
        for r, v in items:
            d[name(r)] = v


def call_key(parts, args, kwargs, tensor, other=None):
    """(parts and a part per argument, as a tuple; the tensor arguments
    in order): a tensor's part its dtype, sizes, strides and
    requires_grad, the index of its first place among the tensors, and
    tensor(t) (which raises LookupError for one that keeps the call
    running); None, a bool, a number or a string by its type and value; a
    tuple, list or torch.Size by its type, length and items' parts; any
    other object by other(v) where given: (its part, the tensors it holds
    that the call reads, each then keyed as a tensor argument;
    LookupError: the call runs); None for a call with any other
    argument. Keyword
    arguments by name."""
    tensors, first = [], {}
    try:
        parts.append(len(args))
        for v in args:
            _part(v, parts, tensors, first, tensor, other)
        for k in sorted(kwargs):
            parts.append(k)
            _part(kwargs[k], parts, tensors, first, tensor, other)
    except LookupError:
        return None
    return tuple(parts), tensors


def _part(v, parts, tensors, first, tensor, other):
    """call_key's part of one argument. (A function of the module's, not
    a closure: a closure calling itself for a tuple's items is a cycle
    holding the call's tensors and the recorder until a collection.)"""
    if isinstance(v, torch.Tensor):
        parts.append((_meta_of(v), first.setdefault(id(v), len(tensors)),
                      tensor(v)))
        tensors.append(v)
    elif v is None or type(v) in (bool, int, float, str):
        parts.append((type(v), v))
    elif type(v) in (tuple, list, torch.Size):  # (BEiT's resolution)
        parts.append((type(v), len(v)))
        for x in v:
            _part(x, parts, tensors, first, tensor, other)
    elif other is not None:
        part, held = other(v)
        parts.append(part)
        for t in held:
            _part(t, parts, tensors, first, tensor, other)
    else:
        raise LookupError


def graph_at(b):
    """Where builder b's graph stands: its counters and the length of
    each table a call adds to (they only grow while a recording runs, so
    what a call added can be read back later)."""
    g = b.g
    return (g._counter, g._nodes_made, len(g.nodes), len(g.kernels),
            len(g.values), len(g.inits), len(g.param_kinds),
            len(b.shape_of), len(g.aten), len(g.declared),
            sum(b.uncounted.values()), g._deferred_calls,
            g._deferred_consts)


def nodes_made(at, after):
    """The nodes a call between graph_at's `at` and `after` made, as the
    graph counts them: a numbered call whose numbering is deferred counts
    one (the library's lowering makes one or more)."""
    return after[1] - at[1] + after[11] - at[11]


def _counts(at, after):
    """What a call between graph_at's `at` and `after` numbered: values
    (the recorder's), numbered calls and their outside constants (where
    the numbering is deferred)."""
    return after[0] - at[0], after[11] - at[11], after[12] - at[12]


def _relative(record, c0, k0, ni, scope, rel=None):
    """A numbered call's aten record (tape.record_deferred) with the
    counters and the initializers' count it was made at relative to the
    template's start (c0, k0, ni): ("numbered", ...); a one-node call's
    (no counters) as it is. The weight whose t() it folds, by rel(name)
    (a layer's own parameter, relative to its path); LookupError where
    there is no rel (one fused call: the weight is the recording's) or
    for a record made in another scope."""
    if len(record) <= 2:
        return record
    base, _, (first, k, at, dropped, inits, template), folds = record
    if at != scope or folds and rel is None:
        raise LookupError(base)
    return ("numbered", base, first - c0, k - k0, dropped, inits - ni,
            template, tuple((rel(w), rel(t)) for w, t in folds))


def _absolute(record, c0, k0, ni, scope, name=None):
    """_relative's record made at c0, k0 and ni in `scope`, the folded
    weights' names made absolute by name()."""
    if record[0] != "numbered":
        return record
    _, base, first, k, dropped, inits, template, folds = record
    return (base, None, (c0 + first, k0 + k, scope, dropped, ni + inits,
                         template),
            tuple((name(w), name(t)) for w, t in folds) if folds else ())


def _rebuilt(x, leaf):
    """x (a pending op's arguments: nested lists, tuples and dicts) with
    each other value v replaced by leaf(v)."""
    if type(x) in (list, tuple):
        return type(x)(_rebuilt(y, leaf) for y in x)
    if type(x) is dict:
        return {k: _rebuilt(v, leaf) for k, v in x.items()}
    return leaf(x)


class _Held:
    """A template's k-th tracked tensor, in a recipe (Replays._recipes)."""
    __slots__ = ("index",)

    def __init__(self, index):
        self.index = index

    def __eq__(self, other):
        return type(other) is _Held and other.index == self.index

    def __hash__(self):
        return hash(("held", self.index))


def _portable(tpl):
    """Whether a template reads nothing from before its call but the
    call's arguments (no ("g", name) input: a name of its recording)."""
    nodes = tpl[2]
    return not any(r[0] == "g" for n in nodes for r in n[3])


# comparisons of a key's last two calls before it is given up on
_TRIES = 3

# (Replays.settings, key) -> ("verified", (template, its tracked tensors),
# their recipes) where two calls of the key added the same and made their
# tracked values the same way (replayed in any recording of those
# settings); ("candidate", the same,
# comparisons failed) after one
# recording's call; False where the key's template cannot be kept for the
# process
# (Replays.finish). Bounded, the key used least lately making room: a
# process summarizing many shapes keeps its latest ones'.
_KEPT = {}
_KEPT_MAX = 512

