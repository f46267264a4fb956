"""One rank of a parallel job: summary(..., training=True, parallel=...).

The library counts (src/analyze/parallel.c, docs/metrics.md "Per rank");
this module only says what PyTorch knows and the library cannot see:

  - the plan's sizes (`dp`, `fsdp`, `tp`, `ep`), or a live job's mesh;
  - the FSDP units: one `fully_shard` per decoder block (the model's
    layer list) besides the root, or, live, the modules FSDP2 wrapped;
  - the tensor-parallel modules and their styles, from transformers'
    `base_model_tp_plan` or `tp_plan=` (its format: fnmatch-style paths,
    `*` for one path component), or, live, from the DTensor placements;
  - the MoE modules whose experts `ep` spreads, and their top-k.

The graph the library counts is the rank's: with `tp` over 1 the
recording runs on a meta copy whose split modules hold rank 0's local
shards, as torch's ColwiseParallel / RowwiseParallel leave them, so the
FLOPs, MACs and saved bytes are those of the rank's own shapes.
"""
import ctypes
import re

from . import _api

AXES = ("dp", "fsdp", "tp", "ep")


class Plan:
    """What the library is told (nns_parallel)."""

    def __init__(self, sizes, mesh=None, units=(), tp=(), ep=(), budget=0,
                 logical=()):
        self.sizes = sizes     # axis -> size
        self.mesh = mesh       # [(name, size)] of a live mesh, or None
        self.units = list(units)  # FSDP units besides the root
        self.tp = list(tp)     # [(module path, "colwise" | "rowwise")]
        self.ep = list(ep)     # [(module path, top-k)]
        self.budget = budget or 0
        # [(parameter name, logical elements)] of the parameters the
        # recorded copy holds as tensor-parallel shards (the totals'
        # parameter counts stay the logical model's)
        self.logical = list(logical)

    def hand_over(self, handle):
        lib = _api.lib()
        p = _api.Parallel()
        for k in AXES:
            v = int(self.sizes.get(k, 1))
            setattr(p, k, v)
            if getattr(p, k) != v:  # ctypes wraps silently: 2**64 + 2 -> 2
                raise ValueError(f"parallel: {k} is {v}, more than the "
                                 f"library's 64-bit sizes hold")
        names = _api.c_name

        def arr(ctype, values):
            return (ctype * max(1, len(values)))(*values)
        keep = []
        if self.mesh:
            keep += [arr(ctypes.c_char_p, [names(n) for n, _ in self.mesh]),
                     arr(ctypes.c_int64, [s for _, s in self.mesh])]
            p.mesh_count = len(self.mesh)
            p.mesh_name, p.mesh_size = keep[-2], keep[-1]
        keep.append(arr(ctypes.c_char_p, [names(u) for u in self.units]))
        p.unit_count, p.unit_path = len(self.units), keep[-1]
        keep += [arr(ctypes.c_char_p, [names(m) for m, _ in self.tp]),
                 arr(ctypes.c_int, [_api.TP_STYLE[s] for _, s in self.tp])]
        p.tp_count, p.tp_path, p.tp_style = len(self.tp), keep[-2], keep[-1]
        keep += [arr(ctypes.c_char_p, [names(m) for m, _ in self.ep]),
                 arr(ctypes.c_int64, [int(k) for _, k in self.ep])]
        p.ep_count, p.ep_path, p.ep_topk = len(self.ep), keep[-2], keep[-1]
        p.budget_bytes = int(self.budget)
        keep += [arr(ctypes.c_char_p, [names(n) for n, _ in self.logical]),
                 arr(ctypes.c_int64, [int(e) for _, e in self.logical])]
        p.logical_count = len(self.logical)
        p.logical_name, p.logical_elements = keep[-2], keep[-1]
        err = _api.NnsError()
        _api.check(lib.nns_model_set_parallel(handle.ptr, ctypes.byref(p),
                                              ctypes.byref(err)),
                   err, "nns_model_set_parallel")


def parse(parallel):
    """{"fsdp": 8, "tp": 2} or "fsdp=8,tp=2" -> {axis: size}."""
    if isinstance(parallel, str):
        items = {}
        for part in filter(None, re.split(r"[,\s]+", parallel)):
            k, eq, v = part.partition("=")
            if not eq or not v.strip().isdigit():
                raise ValueError(f"parallel {parallel!r}: give axis=size "
                                 f"pairs such as 'fsdp=8,tp=2'")
            items[k.strip()] = int(v)
        parallel = items
    if not isinstance(parallel, dict):
        raise TypeError(f"parallel= takes a dict such as {{'fsdp': 8, "
                        f"'tp': 2}} or 'fsdp=8,tp=2', not {parallel!r}")
    sizes = {}
    for k, v in parallel.items():
        if k not in AXES:
            raise ValueError(f"parallel: unknown axis {k!r} (the axes are "
                             f"{', '.join(AXES)})")
        if isinstance(v, bool) or not isinstance(v, int) or v < 1:
            raise ValueError(f"parallel: {k} must be a whole number from 1, "
                             f"not {v!r}")
        sizes[k] = v
    return sizes


# ---- the model's structure ----

def layer_list(model):
    """The paths of the decoder blocks: the children of the module whose
    children are all numbered (a ModuleList) holding the most parameters."""
    best, most = [], -1
    for path, m in model.named_modules():
        kids = list(m.named_children())
        if len(kids) < 2 or not all(n.isdigit() for n, _ in kids):
            continue
        held = sum(p.numel() for p in m.parameters())
        if held > most:
            most = held
            best = [f"{path}.{n}" if path else n for n, _ in kids]
    return best


def _style(word):
    """transformers' style word -> ours; None for one we do not model."""
    return word if word in ("colwise", "rowwise") else None


def model_tp_plan(model):
    """transformers' base_model_tp_plan with the base model's prefix, or
    {}."""
    cfg = getattr(model, "config", None)
    plan = getattr(cfg, "base_model_tp_plan", None) or {}
    prefix = getattr(model, "base_model_prefix", "") or ""
    import torch
    if prefix and isinstance(getattr(model, prefix, None), torch.nn.Module):
        return {f"{prefix}.{k}": v for k, v in plan.items()}
    return dict(plan)


def _pattern(key):
    """A plan key ('model.layers.*.self_attn.q_proj') as a regex over
    module paths: `*` is one path component."""
    return re.compile("^" + re.escape(key).replace(r"\*", r"[^.]+") + "$")


def tp_modules(model, plan):
    """[(path, style)] of the modules the plan splits, in model order."""
    pats = [(_pattern(k), _style(v)) for k, v in plan.items()]
    out = []
    for path, _ in model.named_modules():
        for rx, st in pats:
            if st and rx.match(path):
                out.append((path, st))
                break
    return out


def moe_modules(model):
    """[(path, top-k)] of the experts containers: modules named `experts`,
    top-k from the model's config (num_experts_per_tok) or the module's
    parent (top_k)."""
    cfg = getattr(model, "config", None)
    topk = getattr(cfg, "num_experts_per_tok", None)
    mods = dict(model.named_modules())
    out = []
    for path, m in mods.items():
        if path.rsplit(".", 1)[-1] != "experts":
            continue
        parent = mods.get(path.rsplit(".", 1)[0] if "." in path else "")
        k = getattr(parent, "top_k", None) or topk or 1
        out.append((path, int(k)))
    return out


# ---- the what-if: rank 0's local shards ----

def _chunk(n, parts):
    return -(-n // parts)  # rank 0's share under torch.chunk


def shard_tp(model, tp_mods, tp, logical=None):
    """A meta copy of `model` whose tensor-parallel modules hold rank 0's
    local shards (ColwiseParallel: a Linear's weight rows and bias, an
    Embedding's columns; RowwiseParallel: a Linear's weight columns, bias
    whole, an Embedding's rows). logical (a list) receives (parameter
    name, its logical elements) for each parameter split."""
    import torch
    from . import recorder
    copy = recorder.meta_copy(model)
    if copy is None:
        raise RuntimeError("parallel: the model cannot be copied to the "
                           "meta device to hold its tensor-parallel shards")
    mods = dict(copy.named_modules())
    for path, style in tp_mods:
        m = mods[path]
        emb = isinstance(m, torch.nn.Embedding)
        for name, p in list(m._parameters.items()):
            if p is None:
                continue
            if style == "colwise":
                dim = 1 if emb else 0
            else:
                dim = 0 if emb else (1 if p.dim() > 1 else None)
            if dim is None or dim >= p.dim():
                continue
            shape = list(p.shape)
            shape[dim] = _chunk(shape[dim], tp)
            if logical is not None:
                logical.append((f"{path}.{name}" if path else name,
                                p.numel()))
            m._parameters[name] = torch.nn.Parameter(
                torch.empty(shape, dtype=p.dtype, device="meta"),
                requires_grad=p.requires_grad)
    return copy


def check_tp_plan(tp_plan):
    """A user's tp_plan= in transformers' format, or a clear error: every
    style must be one nnscan models, since a module left out of the split
    would be counted replicated without a word."""
    if tp_plan is None:
        return None
    if not isinstance(tp_plan, dict):
        raise TypeError(f"tp_plan= takes a dict such as "
                        f"{{'model.layers.*.self_attn.q_proj': 'colwise'}}, "
                        f"not {tp_plan!r}")
    for k, v in tp_plan.items():
        if not isinstance(k, str) or not k:
            raise TypeError(f"tp_plan: a key is a module path pattern "
                            f"(str), not {k!r}")
        if _style(v) is None:
            raise ValueError(f"tp_plan[{k!r}]: style {v!r} is not one nnscan "
                             f"models (colwise, rowwise)")
    return tp_plan


class UnmodelledStyle(UserWarning):
    """The model's own tensor-parallel plan splits modules in a style
    nnscan does not model; they are counted replicated on every rank."""


def _warn_unmodelled_styles(model, plan):
    """A warning naming the modules the model's own plan splits in styles
    nnscan does not model (Mixtral's `packed_colwise`, `moe_tp_experts`):
    the what-if counts them replicated, so per_rank's bytes for them are
    an upper bound, never a silent one."""
    import warnings
    odd = {k: v for k, v in plan.items() if _style(v) is None}
    if not odd:
        return
    pats = [(_pattern(k), k, v) for k, v in odd.items()]
    hit = {}
    for path, _ in model.named_modules():
        for rx, k, v in pats:
            if rx.match(path):
                hit.setdefault((k, v), path)
    if hit:
        said = "; ".join(f"{k!r}: {v!r} (e.g. {p})"
                         for (k, v), p in hit.items())
        warnings.warn(f"parallel: the model's tp plan splits modules in "
                      f"styles nnscan does not model, counted replicated on "
                      f"every rank: {said}; give tp_plan= to choose",
                      UnmodelledStyle, stacklevel=4)


def what_if(model, parallel, tp_plan=None, budget=None):
    """(the model to record, the Plan) for a rank of `parallel`."""
    from .train import parse_budget
    sizes = parse(parallel)
    tp, fsdp, ep = (sizes.get(k, 1) for k in ("tp", "fsdp", "ep"))
    given = check_tp_plan(tp_plan)
    plan = given if given is not None else model_tp_plan(model)
    tp_mods = tp_modules(model, plan) if tp > 1 else []
    if tp > 1 and not tp_mods and given:
        raise ValueError(f"parallel: tp_plan matches no module of the model "
                         f"({', '.join(map(repr, given))})")
    if tp > 1 and not tp_mods:
        raise ValueError("parallel: tp > 1 needs a plan: the model has no "
                         "base_model_tp_plan; give tp_plan={'path.*.q_proj': "
                         "'colwise', ...}")
    if tp > 1 and given is None:
        _warn_unmodelled_styles(model, plan)
    logical = []
    target = shard_tp(model, tp_mods, tp, logical) if tp_mods else model
    units = layer_list(model) if fsdp > 1 else []
    ep_mods = moe_modules(model) if ep > 1 else []
    if ep > 1 and not ep_mods:
        raise ValueError("parallel: ep > 1 needs MoE modules (modules named "
                         "'experts'): the model has none")
    return target, Plan(sizes, units=units, tp=tp_mods, ep=ep_mods,
                        budget=parse_budget(budget), logical=logical)


# ---- live: a model sharded in this process's torch.distributed job ----

_HOOK_DICTS = ("_forward_hooks", "_forward_pre_hooks", "_backward_hooks",
               "_backward_pre_hooks", "_forward_hooks_with_kwargs",
               "_forward_hooks_always_called",
               "_forward_pre_hooks_with_kwargs", "_state_dict_hooks",
               "_state_dict_pre_hooks", "_load_state_dict_pre_hooks",
               "_load_state_dict_post_hooks")


def _dist():
    """torch.distributed when a job is running in this process, else
    None."""
    import torch.distributed as dist
    if not (dist.is_available() and dist.is_initialized()):
        return None
    return dist


# PyTorch 1.13's torch.distributed.fsdp and _shard packages raise
# ValueError, not ImportError, on import under Python 3.11 (a dataclass
# with a mutable default): no FSDP2 or DTensor there either way.
def _dtensor_type():
    try:
        from torch.distributed.tensor import DTensor
    except (ImportError, ValueError):
        return None
    return DTensor


def _fsdp_module_type():
    try:
        from torch.distributed.fsdp import FSDPModule
    except (ImportError, ValueError):
        return None
    return FSDPModule


def _plain_class(cls, fsdp_type):
    """The class FSDP2 made `cls` from (it subclasses FSDPModule and the
    module's own class)."""
    if fsdp_type is None or not issubclass(cls, fsdp_type):
        return cls
    for base in cls.__mro__[1:]:
        if not issubclass(base, fsdp_type) and base is not fsdp_type:
            return base
    return cls


def _classify(params, has_fsdp):
    """mesh [(name, size)], {name: "dp" | "fsdp" | "tp"} from the DTensor
    parameters' meshes and placements: a dim every parameter is sharded
    on is FSDP's (when FSDP2 wrapped the model), one only some are sharded
    on is tensor parallelism's, one all replicate on is data parallelism's
    (HSDP's replicate dim)."""
    mesh, seen = [], {}
    for p in params:
        names = p.device_mesh.mesh_dim_names or tuple(
            f"dim{i}" for i in range(p.device_mesh.ndim))
        for i, n in enumerate(names):
            if n not in seen:
                seen[n] = [0, 0]   # params sharded on it, params having it
                mesh.append((n, p.device_mesh.size(i)))
            seen[n][1] += 1
            if _is_shard(p.placements[i]):
                seen[n][0] += 1
    roles = {}
    for n, (sharded, having) in seen.items():
        if has_fsdp and sharded == having == len(params):
            roles[n] = "fsdp"
        elif sharded:
            roles[n] = "tp"
        else:
            roles[n] = "dp"
    return mesh, roles


def _is_shard(pl):
    """Shard or FSDP2's _StridedShard (not a Shard subclass in every
    PyTorch)."""
    return pl.is_shard() or "StridedShard" in type(pl).__name__


def _tp_local_shape(p, roles):
    """A DTensor parameter's shape on this rank with only tensor
    parallelism's shards taken (FSDP's are the library's to count):
    rank 0's share, torch.chunk's."""
    from torch.distributed.tensor import Shard
    shape = list(p.shape)
    names = p.device_mesh.mesh_dim_names or tuple(
        f"dim{i}" for i in range(p.device_mesh.ndim))
    for i, n in enumerate(names):
        pl = p.placements[i]
        if roles.get(n) == "tp" and isinstance(pl, Shard):
            d = pl.dim % len(shape)
            shape[d] = _chunk(shape[d], p.device_mesh.size(i))
    return shape


def _clone(m, memo, fsdp_type, shape_of):
    """A plain copy of module m on meta: no hooks (FSDP2's and tensor
    parallelism's issue collectives), FSDP2's class undone, every
    parameter a meta Parameter of shape_of(p), buffers on meta."""
    import torch
    if id(m) in memo:
        return memo[id(m)]
    c = object.__new__(_plain_class(type(m), fsdp_type))
    memo[id(m)] = c
    d = dict(vars(m))
    for attr in _HOOK_DICTS:
        if attr in d:
            d[attr] = type(d[attr])()

    def meta(t, param):
        if t is None:
            return None
        if id(t) not in memo:
            e = torch.empty(shape_of(t), dtype=t.dtype, device="meta")
            memo[id(t)] = torch.nn.Parameter(
                e, requires_grad=t.requires_grad) if param else e
        return memo[id(t)]
    d["_parameters"] = {k: meta(v, True) for k, v in m._parameters.items()}
    d["_buffers"] = {k: meta(v, False) for k, v in m._buffers.items()}
    d["_modules"] = {k: None if v is None else
                     _clone(v, memo, fsdp_type, shape_of)
                     for k, v in m._modules.items()}
    c.__dict__.update(d)
    return c


def live(model, budget=None):
    """(a plain meta copy of the rank's model to record, its Plan) when
    `model` is sharded or replicated in this process's torch.distributed
    job (FSDP2, DDP, DTensor tensor parallelism); None otherwise. Nothing
    here issues a collective: the mesh and the placements are read from
    the parameters, the world from the process group."""
    dist = _dist()
    if dist is None:
        return None
    import torch
    from .train import parse_budget
    dp = 1
    ddp = torch.nn.parallel.DistributedDataParallel
    if isinstance(model, ddp):
        dp = dist.get_world_size(model.process_group)
        model = model.module
    DTensor, fsdp_type = _dtensor_type(), _fsdp_module_type()
    dts = [p for p in model.parameters()
           if DTensor is not None and isinstance(p, DTensor)]
    if not dts and dp == 1:
        return None
    fsdp_paths = [path for path, m in model.named_modules()
                  if fsdp_type is not None and isinstance(m, fsdp_type)]
    mesh, roles = _classify(dts, bool(fsdp_paths)) if dts else ([], {})
    sizes = {"dp": dp, "fsdp": 1, "tp": 1, "ep": 1}
    for n, s in mesh:
        sizes[roles[n]] *= s
    if dp > 1 and not mesh:
        mesh = [("dp", dp)]

    def shape_of(t):
        if DTensor is not None and isinstance(t, DTensor):
            return _tp_local_shape(t, roles)
        return t.shape
    copy = _clone(model, {}, fsdp_type, shape_of)
    tp = []
    if sizes["tp"] > 1:
        from torch.distributed.tensor import Shard
        for path, m in model.named_modules():
            w = m._parameters.get("weight")
            if not isinstance(w, DTensor):
                continue
            names = w.device_mesh.mesh_dim_names or ()
            for i, n in enumerate(names):
                pl = w.placements[i]
                if roles.get(n) == "tp" and isinstance(pl, Shard):
                    emb = isinstance(m, torch.nn.Embedding)
                    col = (pl.dim % w.dim() == 0) != emb
                    tp.append((path, "colwise" if col else "rowwise"))
                    break
    units = [p for p in fsdp_paths if p]
    # the parameters held as tensor-parallel shards: their logical sizes
    logical = [(n, p.numel()) for n, p in model.named_parameters()
               if DTensor is not None and isinstance(p, DTensor) and
               list(_tp_local_shape(p, roles)) != list(p.shape)]
    return copy, Plan(sizes, mesh=mesh, units=units, tp=tp,
                      budget=parse_budget(budget), logical=logical)
