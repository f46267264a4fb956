"""The Inspector under torch.distributed: what each rank hands the library
besides its passes (nns_inspection_set_rank).

  - the collectives the rank issued while it was inspected, by kind, each
    counted as nccl-tests' "size" (docs/metrics.md, "Per rank"): seen by
    the Inspector's dispatch mode (_inspect_clock.py), the c10d ops and
    torch's functional collectives alike;
  - the static per-rank counts of the rank's own shards: the library's
    nns_analysis_per_rank of summary(training=True) on the rank's model
    (parallel.live: FSDP2, DDP, DTensor), when static_inputs are given.

Every rank's record travels with its passes in the one all_gather_object
of the rank merge (_inspect_records.merge_ranks); nothing here issues a
collective.
"""
import ctypes

from ._inspect_api import (_COMM_KINDS, _Error, _PerRank, _Rank, _check,
                           _lib_inspect, _name)



def _nbytes(t):
    t = getattr(t, "_local_tensor", t)  # a DTensor: its local storage
    return t.numel() * t.element_size()


def _flat(x):
    import torch
    if isinstance(x, torch.Tensor):
        return [x]
    if isinstance(x, (list, tuple)):
        return [t for y in x for t in _flat(y)]
    return []


def _total(x):
    return sum(map(_nbytes, _flat(x)))


# op name (no namespace) -> (kind, bytes of its call): nccl-tests' size,
# all-gather the gathered output, reduce-scatter the full input,
# all-reduce the tensor, all-to-all the send buffer, a coalesced call the
# sum of its tensors. The c10d ops take (outputs, inputs, ...); torch's
# functional collectives (input, ..., group size, group).
def _arg0(a):
    return _total(a[0])


def _arg1(a):
    return _total(a[1])


def _gathered(a):
    return _total(a[0]) * int(a[1])


_AG, _RS, _AR, _A2A = ("all_gather", "reduce_scatter", "all_reduce",
                       "all_to_all")
_RULES = {
    "_allgather_base_": (_AG, _arg0), "allgather_": (_AG, _arg0),
    "allgather_into_tensor_coalesced_": (_AG, _arg0),
    "all_gather_into_tensor": (_AG, _gathered),
    "all_gather_into_tensor_coalesced": (_AG, _gathered),
    "_reduce_scatter_base_": (_RS, _arg1), "reduce_scatter_": (_RS, _arg1),
    "reduce_scatter_tensor_coalesced_": (_RS, _arg1),
    "reduce_scatter_tensor": (_RS, _arg0),
    "reduce_scatter_tensor_coalesced": (_RS, _arg0),
    "allreduce_": (_AR, _arg0), "allreduce_coalesced_": (_AR, _arg0),
    "all_reduce": (_AR, _arg0), "all_reduce_": (_AR, _arg0),
    "all_reduce_coalesced": (_AR, _arg0),
    "all_reduce_coalesced_": (_AR, _arg0),
    "alltoall_base_": (_A2A, _arg1), "alltoall_": (_A2A, _arg1),
    "all_to_all_single": (_A2A, _arg0),
}
_NAMESPACES = ("c10d", "_c10d_functional", "c10d_functional")


class CommCount:
    """Collective calls and bytes by kind (nns_comm_kind's numbers, their
    words read from the library), as the dispatch mode sees them."""

    def __init__(self):
        self.calls = [0] * _COMM_KINDS
        self.bytes = [0] * _COMM_KINDS
        self._rule = {}  # op -> its rule or None, looked up once per op
        lib = _lib_inspect()
        self._kind = {lib.nns_comm_kind_name(k).decode(): k
                      for k in range(_COMM_KINDS)}

    def see(self, func, args):
        rule = self._rule.get(func, False)
        if rule is False:
            ns, _, name = func._schema.name.partition("::")
            rule = _RULES.get(name) if ns in _NAMESPACES else None
            self._rule[func] = rule
        if rule is None:
            return
        word, size = rule
        k = self._kind[word]
        self.calls[k] += 1
        self.bytes[k] += int(size(args))

    def snapshot(self):
        return list(self.calls), list(self.bytes)


def static_per_rank(model, inputs, optimizer, hardware, compute_dtype):
    """(static counts {path: (flops, macs, saved)}, roofline {path: ms},
    the rank's counts) from summary(training=True) on the rank's own
    model, or None when the model is not sharded or replicated in a
    torch.distributed job. The counts: nns_analysis_per_rank's fields
    and the mesh, plain numbers (they travel in the rank merge)."""
    from . import parallel as par, torch_api
    from .torch_api import py_name
    if par.live(model) is None:
        return None
    import torch
    prefix = "module." if isinstance(
        model, torch.nn.parallel.DistributedDataParallel) else ""
    s = torch_api.summary(model, inputs=inputs, training=True,
                          optimizer=optimizer, hardware=hardware,
                          compute_dtype=compute_dtype, file=False)

    def path(row):
        p = py_name(row["path"])
        return prefix + p if p else prefix.rstrip(".")
    static = {path(r): (r.get("flops", -1), r.get("macs", -1),
                        r.get("saved_bytes", -1)) for r in s.layers}
    roof = {path(r): r["time_s"] * 1e3 for r in s.layers} \
        if hardware is not None else {}
    lib = _lib_inspect()
    a = s.analysis.ptr
    pr = _PerRank()
    lib.nns_analysis_per_rank(a, ctypes.byref(pr))
    if not pr.world_size:
        return static, roof, None
    counts = {f: getattr(pr, f) for f, _ in _PerRank._fields_
              if f not in ("size", "comm", "grow")}
    counts["comm"] = list(pr.comm)
    mesh = []
    for i in range(lib.nns_analysis_mesh_count(a)):
        name, size = ctypes.c_char_p(), ctypes.c_int64()
        lib.nns_analysis_mesh(a, i, ctypes.byref(name), ctypes.byref(size))
        mesh.append((name.value.decode("utf-8", "surrogateescape"),
                     size.value))
    counts["mesh"] = mesh
    return static, roof, counts


def set_rank(insp, rank, comm, counts):
    """One rank's record into the inspection `insp`: comm (calls, bytes)
    by kind, or None; counts as static_per_rank gives them, or None."""
    r = _Rank(rank=rank)
    calls, nbytes = comm if comm is not None else ([0] * _COMM_KINDS,) * 2
    for k in range(_COMM_KINDS):
        r.comm_calls[k], r.comm_bytes[k] = calls[k], nbytes[k]
    keep = []
    if counts is not None:
        pr = _PerRank()
        for f, _ in _PerRank._fields_:
            if f in counts and f not in ("comm", "mesh"):
                setattr(pr, f, counts[f])
        for k in range(_COMM_KINDS):
            pr.comm[k] = counts["comm"][k]
        mesh = counts.get("mesh") or []
        names = (ctypes.c_char_p * max(1, len(mesh)))(
            *[_name(n) for n, _ in mesh])
        sizes = (ctypes.c_int64 * max(1, len(mesh)))(*[s for _, s in mesh])
        keep += [pr, names, sizes]
        r.counts = ctypes.pointer(pr)
        r.mesh_count, r.mesh_name, r.mesh_size = len(mesh), names, sizes
    err = _Error()
    _check(_lib_inspect().nns_inspection_set_rank(insp, ctypes.byref(r),
                                                  ctypes.byref(err)), err)
