"""The Inspector's records and how they reach the library: module calls
and passes while the hooks fill them, then one pass as named records
packed into the C structs of nns_inspection_add_batch, in one call; and
every rank's passes merged into one inspection."""
import struct
import time
from typing import List, NamedTuple, Tuple

from ._inspect_api import (_Batch, _Call, _Error, _SIZE_MAX,
                           _Tensor, _c, _check, _lib_inspect, _name)
from ._inspect_tensors import TensorRecord


class _CallRec:
    """One module call, filled by the hooks; plain Python data only."""
    __slots__ = ("module", "parent", "flags", "fwd_seq", "bwd_seq", "ev",
                 "tensors", "index", "depth", "kw", "ins")

    def __init__(self, module, parent, index):
        self.module = module
        self.parent = parent
        self.index = index
        self.flags = 0
        self.fwd_seq = -1
        self.bwd_seq = -1
        self.ev = [None, None, None, None]  # fwd start/end, bwd start/end
        self.tensors = []  # TensorRecord
        self.kw = False    # keyword arguments recorded (torch < 2.0)
        self.ins = {}      # id -> (name, hook, tensor, version) until its end


class _PassRec:
    __slots__ = ("number", "wall_start", "calls", "handles", "done",
                 "grad_hooks", "backward_seen")

    def __init__(self, number):
        self.number = number
        self.wall_start = time.time()
        self.calls = []
        self.handles = []      # tensor-hook handles still registered
        self.done = False      # forward finished
        self.grad_hooks = 0
        self.backward_seen = False


class CallRecord(NamedTuple):
    """One finished module call: what the library's _Call holds."""
    module: int              # the module's index in the inspection
    parent: int              # the enclosing call's index, -1 for none
    flags: int               # _C_BACKWARD, _C_NO_GRAD, _C_RAISED
    fwd_seq: int
    bwd_seq: int
    events: List[Tuple[float, int, int]]  # fwd start/end, bwd start/end:
    #                                       (ms, bytes allocated, live)
    tensors: List[TensorRecord]


class PassBatch(NamedTuple):
    """One pass of one rank (kept for the rank merge: it pickles)."""
    rank: int
    number: int
    wall_start: float
    calls: List[CallRecord]


# The C structs' layouts as struct formats (native sizes and alignment, as
# ctypes lays them out; test_inspector checks every field's offset): a
# record packed in one call, not field by field through ctypes (those
# stores were half the Inspector's host time a module call,
# bench/inspector_call_cost.py).
_CALL = struct.Struct("@NNIqq" + "dqq" * 4 + "NN")
_TENSOR = struct.Struct("@iiiINPqddddd")
_NO_STATS = (0.0, 0.0, 0.0, 0.0, 0.0)


def send(insp, batch):
    """One PassBatch into the inspection `insp`, in one foreign call."""
    calls_in = batch.calls
    ntens = sum(len(r.tensors) for r in calls_in)
    names = [_name(tr.name) for r in calls_in for tr in r.tensors]
    # every name in one buffer, each NUL-terminated: a pointer is the
    # buffer's address plus the name's offset (the library copies them)
    blob = b"\0".join(names) + b"\0"
    base = _c.cast(blob, _c.c_void_p).value
    cbuf = bytearray(_CALL.size * max(1, len(calls_in)))
    tbuf = bytearray(_TENSOR.size * max(1, ntens))
    dims = []
    k = at = 0
    pack_call, pack_tensor = _CALL.pack_into, _TENSOR.pack_into
    for i, r in enumerate(calls_in):
        e0, e1, e2, e3 = r.events
        pack_call(cbuf, i * _CALL.size, r.module,
                  _SIZE_MAX if r.parent < 0 else r.parent, r.flags,
                  r.fwd_seq, r.bwd_seq, *e0, *e1, *e2, *e3, k,
                  len(r.tensors))
        for tr in r.tensors:
            pack_tensor(tbuf, k * _TENSOR.size, tr.role, tr.dtype,
                        len(tr.shape), tr.flags, len(dims), base + at,
                        tr.nbytes, *(tr.stats or _NO_STATS))
            at += len(names[k]) + 1
            k += 1
            dims.extend(tr.shape)
    calls = (_Call * max(1, len(calls_in))).from_buffer(cbuf)
    tens = (_Tensor * max(1, ntens)).from_buffer(tbuf)
    darr = (_c.c_int64 * max(1, len(dims)))(*dims)
    b = _Batch(batch.rank, batch.number, batch.wall_start, calls,
               len(calls_in), _c.sizeof(_Call), tens, ntens,
               _c.sizeof(_Tensor), darr, len(dims))
    err = _Error()
    _check(_lib_inspect().nns_inspection_add_batch(insp, _c.byref(b),
                                                   _c.byref(err)), err)


def merge_ranks(dist, world, sent, mine, meta, register_modules):
    """A new inspection holding every rank's passes and rank record (on
    every rank): the library then reports the spread over ranks and the
    rank rows. mine: this rank's (rank, collectives seen, static per-rank
    counts) for _inspect_ranks.set_rank. register_modules(h) declares the
    module tree in inspection h. The one collective: every rank of the
    group must finish an Inspector."""
    from ._inspect_ranks import set_rank
    gathered = [None] * world
    dist.all_gather_object(gathered, (sent, mine))
    lib = _lib_inspect()
    err = _Error()
    merged = _c.c_void_p()
    _check(lib.nns_inspection_create(_c.byref(merged), _c.byref(err)), err)
    try:
        register_modules(merged)
        for k, v in meta.items():
            _check(lib.nns_inspection_set_meta(
                merged, _name(k), _name(v), _c.byref(err)), err)
        for batches, _ in gathered:
            for batch in batches:
                send(merged, batch)
        for _, (rank, comm, counts) in gathered:
            set_rank(merged, rank, comm, counts)
    except Exception:
        lib.nns_inspection_free(merged)
        raise
    return merged
