"""The recorder's tape: aten calls handed to the library as they were made.

Every recorded call whose op the library's aten table lowers (src/ops/
aten*.c, read through _api.ATEN_OPS) goes into the graph as an aten
record: its op, its arguments by schema name with their kinds, its
outputs, its module path. graph.pack() writes it as packed record `aten`,
and the library lowers it through the same code as a torch.export
archive's calls (src/front/). The op's knowledge (what ONNX-style nodes
it is, their costs, its kernels, its masks, experts and complex values)
is the table's alone: Python keeps what only a live recording has (the
tensors' identities, the module stack, the tracked values masks read),
docs/tape.md's "What Python still keeps".

Two kinds of record. A call of the table's "unary" and "binary" entries
that is exactly one node (two tensors of one dtype whose result is of
that dtype or bool: no Cast, no scalar constant, alpha 1, no rounding
mode) is named by the recorder, its node beside the record (_one_node).
Every other call is numbered by the library at the build (record_deferred;
docs/tape.md, "Numbers the library gives"), of any number of nodes,
constants and values, no question asked per call. A call the table
declines, or that reads what no record can carry, is a node the library
lists as uncounted (recorder.Builder.unmapped), never dropped.

The graph holds, for a call of one node, the node it lowers to (the
table's op type over the call's tensors) beside the record: the Python
passes that read g.nodes (fused.py's kernels, drop_nodes, rename,
checkpoint node counts) see what the library will build; pack() writes
the record in the node's place, its tensors by the node's (possibly
renamed) input names.
"""
import types

import torch

from . import _api
from .graph import DTYPE_OF as _DTYPE_OF, Node, Value as _Value, _Strings, \
    _new_node as _node, onnx_dtype as _onnx_dtype


def form(func, entry):
    """(form, op type, schema argument names) of the calls of `func`, an op
    the table lowers (`entry`: _api.ATEN_OPS[base]): ("unary" or "binary",
    its op type, names) where a call may be one node the recorder names
    (_one_node), else ("numbered", None, names), which the library lowers
    and names; None for an op with no schema. Once per op for the process
    (reading the schema's arguments made a few Python objects each: 20 us
    an op a recording, a tenth of a millisecond of AlexNet's)."""
    key = (func, entry)
    got = _FORMS.get(key, _FORMS)
    if got is _FORMS:
        if len(_FORMS) >= _FORMS_MAX:
            _FORMS.clear()
        got = _FORMS[key] = _form_of(func, entry)
    return got


_FORMS = {}  # (func, table entry) -> form(): the same all along
_FORMS_MAX = 4096


def _form_of(func, entry):
    schema = getattr(func, "_schema", None)
    if entry is None or schema is None:
        return None
    names = _Names(a.name for a in schema.arguments)
    names.optional = frozenset(
        k for k, a in enumerate(schema.arguments)
        if isinstance(a.type, torch.OptionalType)
        and isinstance(a.type.getElementType(), torch.TensorType))
    if entry[0] in ("unary", "binary"):
        return (entry[0], entry[1], names)
    return ("numbered", None, names)


class _Names(tuple):
    """A schema's argument names (equal to the plain tuple), and the
    indexes of those that are optional tensors (`optional`): a call's form
    takes either, a tensor or None, there (_form)."""


def _named(names, args, kwargs):
    """The call's arguments by schema name, in schema order."""
    out = list(zip(names, args))
    if kwargs:
        out += [(n, kwargs[n]) for n in names[len(args):] if n in kwargs]
    return out


def record(b, entry, base, args, kwargs, out):
    """Adds the call as an aten record (True), or nothing (False: a call no
    record carries, which the recorder lists as uncounted). A call of a
    one-node op that is not one node (a number, two dtypes: mul by 0.5)
    goes on the numbered tape."""
    if entry is None:
        return False
    kind, op, names = entry
    if kind != "numbered" and \
            _one_node(b, kind, op, names, base, args, kwargs, out):
        return True
    return record_deferred(b, base, names, args, kwargs, out)


def _one_node(b, kind, op, names, base, args, kwargs, out):
    """record()'s call of one node, its output named by the recorder."""
    if not isinstance(out, torch.Tensor) or out.is_complex():
        return False
    named = _named(names, args, kwargs)
    n_tensors = 1 if kind == "unary" else 2
    tensors = []
    for name, v in named:
        if isinstance(v, torch.Tensor):
            tensors.append(v)
        elif name == "alpha" and v != 1:
            return False  # scales `other`: not one node
        elif name == "rounding_mode" and v is not None:
            return False  # another op
        elif isinstance(v, (list, tuple)):
            return False  # no list argument in one node's calls
    if len(tensors) != n_tensors or named[0][1] is not tensors[0]:
        return False
    x = tensors[0]
    if x.is_complex():
        return False  # complex values in real form: the numbered call's
    if kind == "binary":
        y = tensors[1]
        if named[1][1] is not y or y.dtype != x.dtype or \
                out.dtype not in (x.dtype, torch.bool):
            return False  # a Cast or a scalar constant: not one node yet
    ins = [b.inp(t) for t in tensors]
    b.node(op, ins, [out])
    g = b.g
    record_args = []
    at = 0
    for name, v in named:
        if isinstance(v, torch.Tensor):
            record_args.append((name, "tensor", at))
            at += 1
        else:
            record_args.append((name,) + _scalar(v))
    g.aten[g.nodes[-1].name] = (base, record_args)
    return True


def _scalar(v):
    """(kind word, value) of a non-tensor argument."""
    if v is None:
        return ("none", None)
    if isinstance(v, bool):
        return ("bool", v)
    if isinstance(v, int):
        return ("int", v)
    if isinstance(v, float):
        return ("float", v)
    if isinstance(v, str):
        return ("string", v)
    if isinstance(v, torch.dtype):
        from .graph import onnx_dtype
        return ("dtype", onnx_dtype(v))
    return ("none", None)  # a memory format, a device, a layout


# ---- Calls the library lowers and names (packed record `names`) ----
#
# The recorder numbers what it makes with two counters (graph.py's
# new_name and add_node): every value ("v17", "c3", "const5") and every
# node ("layer1/Conv_12"). A numbered call goes on the tape with the two
# counters as they stand (a `names` record before its aten record), and
# the library names the nodes and values its lowering makes: its
# constants when made, any other value when a node first writes it, and
# shifts the recorder's later numbers by what the call took
# (record_deferred; docs/tape.md, "Numbers the library gives"). Nothing is
# asked of the library per call, so a call its table declines is left
# uncounted, as is one whose arguments or outputs are of a kind the record
# has none of (_template_of), or that reads a complex value in real form
# its op takes not (_complex_call).

# the argument a matrix product reads a weight's t() through, folded into
# its Gemm's transB by the library (src/ops/aten.c: addmm, mm)
_PRODUCT_RHS = {"mm": 1, "addmm": 2}


def _signature(named, tensors):
    """The call's arguments with each tensor as its dtype and sizes, and
    the tensors in order (their value names are the records'); None for an
    argument the record has no kind for."""
    sig = []
    for name, v in named:
        if isinstance(v, _Tensor):
            dt = v.dtype
            tensors.append(v)
            sig.append((name, "tensor", dt, v.shape))
        elif type(v) in _SEQUENCES:
            if v and all(isinstance(x, _Tensor) or x is None for x in v):
                sig.append((name, "tensors", tuple(
                    None if x is None else (x.dtype, x.shape) for x in v)))
                tensors.extend(x for x in v if x is not None)
            elif all(type(x) is int or type(x) is bool for x in v):
                # (bools as 0 and 1: a backward kernel's output_mask)
                sig.append((name, "ints", tuple(map(int, v))))
            elif v and all(type(x) is float for x in v):
                # a list of floats (a resize's scale_factors): a kind the
                # record has none of and no lowering reads (the resizes
                # read their output's sizes), "none" as the .pt2 reader
                # reads an archive's as_floats
                sig.append((name, "none", None))
            else:
                return None  # Scalars: a kind the record has none of
        else:
            sig.append((name,) + _scalar(v))
    return tuple(sig)


_Tensor = torch.Tensor
_SEQUENCES = (list, tuple, torch.Size)


def _key(base, names, args, kwargs, outs, tensors):
    """The call's key in _TEMPLATES (its op and its schema's argument
    names: ops of one schema share names, overloads of one op do not; each
    argument as its value, a tensor as its dtype, the outputs' dtypes:
    a record's template is the same for any sizes), made in one pass, the
    tensors put in order into `tensors`; None for an output that is
    neither a tensor nor None. A scalar keys with its type (1, 1.0 and
    True are equal in Python, not in a record); a list of them with its
    first element's: a schema's list is of one type."""
    key = [base, names]
    put = key.append
    take = tensors.append
    if kwargs:
        args = [v for _, v in _named(names, args, kwargs)]
        put(tuple(kwargs))
    for v in args:
        if isinstance(v, _Tensor):
            take(v)
            put(v.dtype)
        elif type(v) in _SEQUENCES:
            if v and (v[0] is None or isinstance(v[0], _Tensor)):
                item = []
                for x in v:
                    if x is None:
                        item.append(None)
                    else:
                        take(x)
                        item.append(x.dtype)
                put(tuple(item))
            else:
                put(v[0].__class__ if v else None)
                put(tuple(v))
        else:
            put(v.__class__)
            put(v)
    put(None)
    for o in outs:
        if not isinstance(o, _Tensor):
            if o is None:
                # an output PyTorch did not compute (a backward kernel's
                # output_mask): a template's record has none there
                put(None)
                continue
            return None
        put(o.dtype)
    return tuple(key)


def _folded(b, base, args):
    """The argument of a call that reads a weight's pending t() as a
    product's right operand (the library folds it into the Gemm's transB:
    also a weight changed in place, RWKV's rescaling, whose value is no
    parameter of the graph's any more), None for none. A pending t() read
    otherwise folds into nothing: its first read makes a Transpose
    (_first_read), one kernel with the call; so does one read both as the
    right operand and otherwise (mm(w.t(), w.t()): no fold at all), and
    the t() of a weight the recorder made a constant of (below)."""
    pending = b.pending_t
    # (weights' t() stay pending for the whole recording: most calls read
    # none of them, told in one pass in C)
    if not pending or pending.keys().isdisjoint(map(id, args)):
        return None
    named = b.names
    rhs = _PRODUCT_RHS.get(base)
    fold = None
    for k, a in enumerate(args):
        i = id(a)
        if i in pending and i not in named:
            if k != rhs:
                if rhs is not None and rhs < len(args) and args[rhs] is a:
                    return None
                continue
            w = named.get(id(pending[i]))
            if w is not None and w in b.g.inits and \
                    b.g.param_kinds.get(w, "constant") == "constant":
                # a constant the recorder made of a weight it did not
                # know (a lazy module's, materialized in a hook of its
                # own): the library folds parameters and buffers only
                # (their kinds are packed before the calls, a constant's
                # after), so its t() is read as any other (_first_read:
                # a Transpose, one kernel with the product)
                continue
            fold = a
    return fold


def record_deferred(b, base, names, args, kwargs, out):
    """Puts a call on the tape (True), or nothing (False: a call no record
    carries, left uncounted), the numbers left to the library: the call's
    outputs named "\3K.J" (its K-th numbered call's J-th output), the
    recorder's counters as they stand (the library shifts its later
    numbers by what the call took), the tensors it reads first marked for
    the library to name where its nodes read them (_first_read), nothing
    asked of the library: only its record's template, kept per call key."""
    if base == "_to_copy" and out.dtype == args[0].dtype:
        # a copy to its own dtype: the recorder's alias (recorder.record).
        # (A cast a fused call drops stays on the tape, marked dropped:
        # fused.Spans._dropped_calls.)
        return False
    counted = _api.ATEN_COUNTED.get(base)
    if counted is not None:
        names, args = _with_tracked_count(b, counted, names, args, kwargs)
    pending = b.pending_t
    folds = ()
    fold = _folded(b, base, args)
    outs = out if type(out) in _SEQUENCES else (out,)
    if not outs:
        return False
    # the call's key as its op's calls of this form make it, else as any
    # call makes it
    template, tensors = _kept_by_form(_TEMPLATES, base, names, args, kwargs,
                                      outs, fold)
    if template is _TEMPLATES:
        tensors = []
        key = _key(base, names, args, kwargs, outs, tensors)
        if key is None:
            # sizes among the outputs (the CUDA flash kernel's max_q and
            # max_k), which no lowering reads (a backward reads the
            # forward's tensors as its own inputs): no tensor of the
            # record's there, as for one PyTorch did not compute
            if not any(type(o) is int for o in outs):
                return False
            outs = tuple(None if type(o) is int else o for o in outs)
            tensors = []
            key = _key(base, names, args, kwargs, outs, tensors)
            if key is None:
                return False
        if fold is not None:
            key = (key, True)
        template = _TEMPLATES.get(key)
        if template is None:
            template = _template_of(base, names, args, kwargs, outs)
        if len(_TEMPLATES) < _TEMPLATES_MAX:
            _TEMPLATES[key] = template
            _remember(base, names, args, kwargs, outs, fold, template,
                      _TEMPLATES)
    if not template:
        return False
    real = None
    if type(template) is _ComplexTemplate:
        real = _complex_call(b, base, tensors, outs)
        if real is None:
            return False
    known = b.names.get
    ins = [known(id(t)) for t in tensors]
    g = b.g
    first = len(g.nodes)
    if None in ins:
        unread = _api.ATEN_UNREAD.get(base)
        if unread is not None and not _name_unread(
                b, unread, names, args, kwargs, outs, tensors, ins):
            return False
        inp = b.inp
        for k, t in enumerate(tensors):
            if ins[k] is not None:
                continue
            if k and id(t) in b.names:  # read twice by the call (cat([c, c]))
                ins[k] = known(id(t))
                continue
            if t is fold:
                w = inp(pending[id(t)])
                ins[k] = folded = w + "^T"
                g.values[folded] = _Value(_onnx_dtype(t.dtype),
                                          tuple(t.shape))
                folds = ((w, folded),)
            else:
                ins[k] = _first_read(b, t)
                if real is not None and base == "mul" and \
                        t.dtype.is_complex and id(t) not in b.params and \
                        any(real):
                    # a complex constant a product with a value in real
                    # form brings in as its real form (bring_real)
                    b.shape_of[ins[k]] = (*t.shape, 2)
    seq = g._deferred_calls
    g._deferred_calls = seq + 1
    declare = b._declare
    # an output its lowering leaves unwritten (a pooling's indices:
    # nns_aten_op_unwritten) is none of the record's, nor named: a later
    # read names it, a constant, where that read is
    unwritten = _api.ATEN_UNWRITTEN.get(base, 0)
    out_names = [None if o is None or unwritten >> j & 1 else
                 declare(o, "\3%d.%d" % (seq, j))
                 for j, o in enumerate(outs)]
    if real is not None:
        for j, o in enumerate(outs):
            if real[j]:
                _in_real_form(b, o, out_names[j])
    scope = b.scope
    name = "\3n%d" % seq
    g.nodes.append(_node(Node, ("aten::" + base, name, ins, out_names, {},
                                "", scope)))
    g.node_source.append(b.source)
    if len(g.nodes) - first > 1:
        # a weight's t() read other than by a product (_first_read: a
        # Transpose) is a view in eager PyTorch: one kernel with the call
        # that reads it
        g.kernels.append((first, len(g.nodes) - first))
    # (the fourth: whether a fused call dropped it, fused.py)
    g.aten[name] = (base, None, (g._counter, g._nodes_made, scope, False,
                                 len(g.inits), template), folds)
    return True


# Complex values: a complex tensor's graph value is view_as_real's
# (..., 2) tensor of the real dtype (src/ops/aten_complex.c). The ops the
# table lowers with values in real form are those it names so
# (nns_aten_op_complex, read into _api.ATEN_COMPLEX): "makes" those whose
# complex output is always in real form, "reads" the others (theirs are
# where their first tensor argument is); a call of any other op reading a
# value in real form is uncounted.


class _ComplexTemplate(list):
    """The template of a call with a complex tensor (_template_of): its
    call is checked once more (_complex_call)."""


def real_formed(b, t):
    """Whether complex t's graph value is its real form: its value's
    sizes are t's and a 2 (_in_real_form)."""
    n = b.names.get(id(t))
    return n is not None and b.shape_of.get(n) == (*t.shape, 2)


def _complex_call(b, base, tensors, outs):
    """For a call with a complex tensor: whether each output is in real
    form, as the table's lowering makes it; None where the call is
    uncounted: a tensor in real form that the recorder named (an
    uncounted call's output: the library knows the real forms it made
    only, a numbered call's output, "\3" K.J, and a constant it brought
    in, "\5c" K), one read by an op that takes none (_api.ATEN_COMPLEX),
    a complex value in real form copied to a real one, a complex32 tensor
    (no real form in the library). Calls on complex-typed tensors alone
    (a complex graph input, parameter or constant: a MatMul of them) are
    any op's, lowered as for any dtype."""
    first = tensors[0] if tensors else None
    first_real = False
    for t in tensors:
        if not t.dtype.is_complex:
            continue
        if t.dtype not in _REAL_FORMABLE:
            return None
        n = b.names.get(id(t))
        if n is None:
            # new: a parameter, or a constant from outside, complex-typed
            # (a product with a value in real form brings it in as its
            # real form: the library's bring_real)
            continue
        if real_formed(b, t):
            if (n[0] != "\3" and n[0] != "\5") or \
                    base not in _api.ATEN_COMPLEX:
                return None
            first_real = first_real or t is first
    real = []
    for o in outs:
        cx = o is not None and o.dtype.is_complex
        if cx and o.dtype not in _REAL_FORMABLE:
            return None
        if base == "_to_copy" and first is not None and \
                first.dtype.is_complex and first_real and not cx:
            return None
        real.append(cx and (
            _api.ATEN_COMPLEX.get(base) == "makes" or first_real or
            (base == "mul" and any(
                t.dtype.is_complex and real_formed(b, t) for t in tensors))
            or (base == "_to_copy" and first is not None and
                not first.dtype.is_complex)))
    return real


def _in_real_form(b, o, name):
    """Complex output o, named `name`, as in real form for the calls that
    read it later: its value's sizes o's and a 2 (real_formed). Its
    records keep o's dtype and
    sizes, by which the library reads the real form its call made
    (src/front/packed.c, pk_aten_tensor)."""
    b.shape_of[name] = (*o.shape, 2)


# the complex dtypes the library has a real form of (float, double)
_REAL_FORMABLE = frozenset((torch.complex64, torch.complex128))


def _with_tracked_count(b, counted, names, args, kwargs):
    """The call's names and arguments with `tracked_count` after the
    schema's: how many of argument SELF's elements argument MASK
    (broadcast to SELF) holds true, counted = (MASK, SELF) as the table's
    entry names them (nns_aten_op_counted: masked_scatter, how many of
    source's elements land), from the mask's tracked value (shadow.py):
    the one piece of a tensor's contents a record carries (include/
    nnscan.h, record 29). As they were where the mask has no value or an
    argument is not there: the table leaves the call uncounted."""
    if kwargs or len(args) != len(names):
        return names, args
    mask_at, self_at = counted
    given = dict(zip(names, args))
    mask, self_ = given.get(mask_at), given.get(self_at)
    if not isinstance(mask, _Tensor) or not isinstance(self_, _Tensor):
        return names, args
    m = b.value_of(mask)
    if m is None:
        return names, args
    count = int(m.expand(self_.shape).sum())
    more = _Names(names + ("tracked_count",))
    more.optional = names.optional
    return more, tuple(args) + (count,)


def _name_unread(b, unread, names, args, kwargs, outs, tensors, ins):
    """Names in `ins` the tensors new to the graph that the call's lowering
    does not read (unread[0], by argument name: nns_aten_op_unread; NAME
    never, NAME/K unless output K is computed; unread[1], NAME?ARG=V
    unless the int argument ARG is V) "\5u" and the name _first_read
    would give, a name the recorder does not keep for them, so a later
    read names them where it reads them (and the library names none, but
    where the table declines the call: its uncounted node reads each);
    False where one is new that the lowering reads for some calls only,
    none said (NAME?): the call is left uncounted."""
    g = b.g
    never, maybe = unread
    at = []  # the argument name of each of `tensors`
    mask = ()
    values = {}  # the int arguments a condition reads
    for name, v in _named(names, args, kwargs):
        if isinstance(v, _Tensor):
            at.append(name)
        elif type(v) in _SEQUENCES:
            at += [name for x in v if isinstance(x, _Tensor)]
            if name == "output_mask":
                mask = v
        elif type(v) is int:
            values[name] = v
    for k, t in enumerate(tensors):
        if ins[k] is None and at[k] in maybe:
            when = maybe[at[k]]
            if when is None or when[0] not in values:
                return False
            if values[when[0]] != when[1]:
                at[k] = None  # left unread by this call
    for k, t in enumerate(tensors):
        j = (None if at[k] is None else never.get(at[k], -1)) \
            if ins[k] is None else -1
        # (an output masked off is not computed, though a meta kernel may
        # return a tensor for it: BatchNorm's input gradient)
        if j is None or j >= 0 and (j >= len(outs) or outs[j] is None
                                    or j < len(mask) and not mask[j]):
            # (an input of a backward graph: its record dropped where no
            # call names it)
            ins[k] = mark = _mark(b, b.params.get(id(t)), "\5u")
            g.values[mark] = _Value(_DTYPE_OF.get(t.dtype) or
                                    _onnx_dtype(t.dtype), tuple(t.shape))
    return True


def _first_read(b, t):
    """The name a deferred call reads tensor t by, t new to the graph:
    "\5" KIND NAME for a parameter (its initializer the library's to make
    where the call's nodes first read it), "\5c" K for a constant from
    outside (numbered there too), "\5i" K for a backward graph's forward tensor (an input "fwdN",
    numbered so); the recorder names t so from then on (the library maps
    the name)."""
    g = b.g
    p = b.params.get(id(t))
    if p is None and id(t) in b.pending_t:
        return b.inp(t)  # a weight's transposed view: a Transpose
    dims = tuple(t.shape)
    dt = t.dtype
    value = _Value(_DTYPE_OF.get(dt) or _onnx_dtype(dt), dims)  # (a tuple)
    if p is not None:
        name, kind = p
        b.hold(t)
        b.names[id(t)] = name
        g.values[name] = value
        if kind:
            g.param_kinds[name] = kind
        b.shape_of[name] = dims
        marked = _mark(b, p, "\5")
    else:
        marked = b._declare(t, _mark(b, None, "\5"))
    g.values[marked] = value
    return marked


def _mark(b, p, prefix):
    """`prefix` and KIND NAME, the mark of a tensor a deferred call reads
    first: a parameter p's kind and name; else "c" K, a constant from
    outside, or in a backward graph "i" K, a forward tensor, listed among
    the graph's inputs where it is first read (Builder.FIRST_READ), K
    the graph's count of them."""
    if p is not None:
        return prefix + _KIND_MARK.get(p[1], "n") + p[0]
    g = b.g
    g._deferred_consts += 1
    mark = "%s%s%d" % (prefix, b.FIRST_READ, g._deferred_consts)
    if b.FIRST_READ == "i":
        g.inputs.append(mark)
    return mark


_KIND_MARK = {"trainable": "t", "frozen": "f", "buffer": "b"}


# call key (_key's, or its form's maker's) -> its record's template
# (_template_of), or False
_TEMPLATES = {}
_TEMPLATES_MAX = 1 << 16


def _template_of(base, names, args, kwargs, outs):
    """The record's template of a call (_template's); False where its
    arguments or outputs are of a kind the record has none of."""
    from . import graph
    tensors = []
    sig = _signature(_named(names, args, kwargs), tensors)
    if sig is None:
        return False
    cx = any(o is not None and o.dtype.is_complex for o in outs) or \
        any(t.dtype.is_complex for t in tensors)
    rec, n = [], 0
    for item in sig:
        if item[1] == "tensor":
            rec.append((item[0], "tensor", n))
            n += 1
        elif item[1] == "tensors":
            ks = []
            for x in item[2]:
                ks.append(None if x is None else n)
                n += x is not None
            rec.append((item[0], "tensors", ks))
        else:
            rec.append(item)
    parts = graph._aten_parts(base, "", "", rec,
                              [-1 - j for j in range(len(outs))],
                              _TEMPLATE_STRINGS)
    merged = _template(parts[4:])
    return _ComplexTemplate(merged) if cx else merged


# (base, schema names, number of arguments[, keyword arguments' names]) ->
# _maker's function for the form of its second call (None: no form of one;
# 0: called once), kept for the process: the keys of _TEMPLATES
_TEMPLATE_MAKERS = {}

# argument values that key as themselves and their type (_key's `put(v)`)
_VALUES = (bool, int, float, str, torch.dtype, torch.device, torch.layout,
           torch.memory_format)


def _kind(v):
    """An argument's kind in a form: "t" a tensor (its dtype and sizes in
    the key), "s" a value of _VALUES or None (itself and its type), "i" a
    list of ints (as a tuple), "T" a list of tensors (each one's dtype and
    sizes, whatever their number: cat's lists vary); None for anything
    else (_key's own: lists holding None or values of other types). _form
    adds "o", an optional tensor."""
    if isinstance(v, _Tensor):
        return "t"
    if type(v) in _SEQUENCES:
        if all(type(x) is int for x in v):
            return "i"
        if all(isinstance(x, _Tensor) for x in v):
            return "T"
        return None
    if v is None or type(v) in _VALUES:
        return "s"
    return None


def _form_kind(v, optional):
    """_kind of an argument in a form, "o" for a tensor or None where the
    schema takes either (`optional`): one form for both."""
    kind = _kind(v)
    return "o" if optional and (v is None or kind == "t") else kind


def _form(names, args, kwargs, outs):
    """The form of a call: each argument's kind (_kind), each keyword
    argument's name and kind in the schema's order (as _key and the
    template read them: their tensors in that order), then the number of
    outputs, all tensors. None where any argument has no kind."""
    optional = getattr(names, "optional", ())
    form = tuple(_form_kind(v, k in optional) for k, v in enumerate(args))
    named = tuple((n, _form_kind(kwargs[n], names.index(n) in optional))
                  for n in names[len(args):] if n in kwargs) \
        if kwargs else ()
    if None in form or any(k is None for _, k in named):
        return None
    if not all(isinstance(o, _Tensor) for o in outs):
        return None
    return form, named, len(outs)


def _key_parts(kind, at, key, tensors):
    """The key's expressions and the tensors' of one argument of `kind`,
    the argument written `at`; a tensor as its dtype."""
    if kind == "t":
        key.append("%s.dtype" % at)
        tensors.append(at)
    elif kind == "o":  # a tensor or None: one item, a tensor's or None
        key.append("None if %s is None else %s.dtype" % (at, at))
        tensors.append("*(() if %s is None else (%s,))" % (at, at))
    elif kind == "i":
        key.append("tuple(%s)" % at)
    elif kind == "s":
        key += ["%s.__class__" % at, at]
    else:  # "T": each tensor's item, in one tuple whatever their number
        key.append("tuple([x.dtype for x in %s])" % at)
        tensors.append("*" + at)


def _maker(form):
    """A function of (args, kwargs, outs) giving the key of a call of
    `form` and its tensors: one tuple built in one expression, where _key
    walks the arguments; its first item an object of the op's own (two
    ops' calls of one form and values never share a key). A call of
    another form raises (None in a tensor's place, ints in a list of
    tensors'), or gives a key no template was kept under (a tensor in a
    value's place keys by its identity), and goes to _key. The tensors
    are keyed by their dtypes alone, as a record's template (_template_of)
    is the same for any sizes (the dtypes tell complex values, which have
    none). The expression is compiled once per form
    (ops share forms: compiling is most of a process's first summary's
    cost of them)."""
    code = _FORM_CODE.get(form)
    if code is None:
        kinds, named, n_outs = form
        key, tensors = [], []
        for i, kind in enumerate(kinds):
            _key_parts(kind, "a[%d]" % i, key, tensors)
        for n, kind in named:
            _key_parts(kind, "k[%r]" % n, key, tensors)
        key += ["o[%d].dtype" % j for j in range(n_outs)]
        src = "lambda a, k, o, f=None: ((f, len(o), %s), (%s))" % (
            ", ".join(key), "".join(t + ", " for t in tensors))
        code = eval(src, _MAKER_GLOBALS).__code__
        if len(_FORM_CODE) < _MAKERS_MAX:
            _FORM_CODE[form] = code
    fn = types.FunctionType(code, _MAKER_GLOBALS, "key", (object(),))
    fn.form = form
    return fn


# form -> the code of its key function (_maker), compiled once
_FORM_CODE = {}
_MAKER_GLOBALS = {"tuple": tuple, "len": len}
_MAKERS_MAX = 4096


def _kept_by_form(kept, base, names, args, kwargs, outs, fold):
    """(what `kept` holds under the call's key as its op's calls of this
    form make it, the call's tensors): _maker's key, about half _key's
    time (2 against 4.5 us a batch norm). (kept, None) where the op has no
    maker yet, the call is of another form, or `kept` has nothing under
    its key."""
    maker = _TEMPLATE_MAKERS.get(_maker_at(base, names, args, kwargs))
    if maker:  # (None: not made, or no form; 0: called once)
        try:
            fast, tensors = maker(args, kwargs, outs)
            return (kept.get(fast if fold is None else (fast, True), kept),
                    tensors)
        except (AttributeError, IndexError, KeyError, TypeError):
            pass  # a call of another form: a tensor None, a list ...
    return kept, None


def _maker_at(base, names, args, kwargs):
    """The key of an op's maker in _TEMPLATE_MAKERS: its op, schema
    names, positional argument count and keyword arguments' names."""
    return (base, names, len(args), tuple(kwargs)) if kwargs else \
        (base, names, len(args))


def _remember(base, names, args, kwargs, outs, fold, template, kept):
    """Keeps `template` under the call's key as its form makes it, once the
    form is known to be the call's: the op's second call makes it, as its
    form (an op called once pays no maker; a process's first summary pays
    the makers of the ops it calls again). kept: the table it goes in
    (_TEMPLATES)."""
    makers = _TEMPLATE_MAKERS
    at = _maker_at(base, names, args, kwargs)
    maker = makers.get(at, makers)
    if maker is makers:  # the op's first call
        if len(makers) < _MAKERS_MAX:
            makers[at] = 0
        return
    form = _form(names, args, kwargs, outs)
    if maker == 0:  # its second: its form
        maker = makers[at] = None if form is None else _maker(form)
    if maker is None or form != maker.form:
        return  # another form than the first call's: _key keeps it
    fast, _ = maker(args, kwargs, outs)
    kept[(fast, True) if fold is not None else fast] = template


def _template(parts):
    """The record's arguments and output count packed (graph._aten_parts'
    layout), but for its tensors: an int k in place of the call's k-th
    tensor, -1 - j of its j-th output; runs of bytes joined, fewer parts
    for pack() to walk. Made once per template."""
    merged = []
    for p in parts:
        if type(p) is bytes and merged and type(merged[-1]) is bytes:
            merged[-1] += p
        else:
            merged.append(p)
    return merged


# the packed strings of templates (_template_of): argument and op names
_TEMPLATE_STRINGS = _Strings()

