"""The Inspector's records and how they reach the library: module calls
and passes while the hooks fill them, then one pass as named records
packed into the C structs of nns_inspection_add_batch, in one call; and
every rank's passes merged into one inspection."""
import time
from typing import List, NamedTuple, Tuple

from ._inspect_api import (_Batch, _Call, _Error, _Event, _SIZE_MAX,
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


def send(insp, batch):
    """One PassBatch into the inspection `insp`, in one foreign call."""
    ntens = sum(len(r.tensors) for r in batch.calls)
    calls = (_Call * max(1, len(batch.calls)))()
    tens = (_Tensor * max(1, ntens))()
    dims = []
    names = []
    k = 0
    for i, r in enumerate(batch.calls):
        c = calls[i]
        c.module = r.module
        c.parent = _SIZE_MAX if r.parent < 0 else r.parent
        c.flags = r.flags
        c.fwd_seq = r.fwd_seq
        c.bwd_seq = r.bwd_seq
        c.fwd_start = _Event(*r.events[0])
        c.fwd_end = _Event(*r.events[1])
        c.bwd_start = _Event(*r.events[2])
        c.bwd_end = _Event(*r.events[3])
        c.tensor_first = k
        c.tensor_count = len(r.tensors)
        for tr in r.tensors:
            t = tens[k]
            k += 1
            nm = _name(tr.name)
            names.append(nm)
            t.role, t.dtype, t.rank, t.flags = \
                tr.role, tr.dtype, len(tr.shape), tr.flags
            t.dims = len(dims)
            t.name = nm
            t.bytes = tr.nbytes
            if tr.stats is not None:
                t.min, t.max, t.mean, t.std, t.zero_fraction = tr.stats
            dims.extend(tr.shape)
    darr = (_c.c_int64 * max(1, len(dims)))(*dims)
    b = _Batch(batch.rank, batch.number, batch.wall_start, calls,
               len(batch.calls), _c.sizeof(_Call), tens, ntens,
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
