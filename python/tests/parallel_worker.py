"""One rank of test_parallel.py: a small LLaMA, GPT-2 or Mixtral
(transformers, from a config) under FSDP2, DTensor tensor parallelism, both, or DDP, over gloo
on this machine. The rank takes nnscan's summary of its own model (live),
then runs one real training step with AdamW while a dispatch mode notes
every collective's bytes, and writes what PyTorch itself says: local
parameter, gradient and optimizer-state bytes from the local shards
after optimizer.step(), and bytes per collective kind. Rank 0 also takes
the what-if of the same mesh on an unwrapped model.

usage: parallel_worker.py RANK WORLD STORE_FILE MODE OUT_JSON [MODEL]
MODE: fsdp | tp | fsdp_tp | ddp;  MODEL: llama (default) | gpt2 | mixtral
"""
import datetime
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(
    __file__))))

import torch  # noqa: E402
import torch.distributed as dist  # noqa: E402
from torch.utils._python_dispatch import TorchDispatchMode  # noqa: E402

import nnscan  # noqa: E402

LLAMA_PLAN = {"model.layers.*.self_attn.q_proj": "colwise",
              "model.layers.*.self_attn.k_proj": "colwise",
              "model.layers.*.self_attn.v_proj": "colwise",
              "model.layers.*.self_attn.o_proj": "rowwise",
              "model.layers.*.mlp.gate_proj": "colwise",
              "model.layers.*.mlp.up_proj": "colwise",
              "model.layers.*.mlp.down_proj": "rowwise"}
# Mixtral's own plan splits the stacked experts with transformers' own
# styles ("packed_colwise", "moe_tp_experts"), which torch's
# ColwiseParallel/RowwiseParallel cannot apply: the attention only
MIXTRAL_PLAN = {k: v for k, v in LLAMA_PLAN.items() if "self_attn" in k}
# GPT-2 has no plan and its projections are Conv1D, which torch's styles
# refuse (nn.Linear and nn.Embedding only): no tensor parallelism
PLANS = {"llama": LLAMA_PLAN, "gpt2": {}, "mixtral": MIXTRAL_PLAN}
PLAN = LLAMA_PLAN


def build(kind="llama"):
    torch.manual_seed(0)
    if kind == "gpt2":
        from transformers import GPT2Config, GPT2LMHeadModel
        cfg = GPT2Config(vocab_size=96, n_embd=64, n_layer=2, n_head=4,
                         n_positions=64, attn_implementation="eager")
        return GPT2LMHeadModel(cfg)
    if kind == "mixtral":
        from transformers import MixtralConfig, MixtralForCausalLM
        cfg = MixtralConfig(vocab_size=96, hidden_size=64,
                            intermediate_size=96, num_hidden_layers=2,
                            num_attention_heads=4, num_key_value_heads=2,
                            num_local_experts=4, num_experts_per_tok=2,
                            max_position_embeddings=64,
                            attn_implementation="eager")
        return MixtralForCausalLM(cfg)
    from transformers import LlamaConfig, LlamaForCausalLM
    cfg = LlamaConfig(vocab_size=96, hidden_size=64, intermediate_size=96,
                      num_hidden_layers=2, num_attention_heads=4,
                      num_key_value_heads=2, max_position_embeddings=64,
                      attn_implementation="eager")
    return LlamaForCausalLM(cfg)


def blocks(model):
    """The decoder blocks, one fully_shard each."""
    inner = getattr(model, "transformer", None) or model.model
    return inner.h if hasattr(inner, "h") else inner.layers


def _nbytes(t):
    return t.numel() * t.element_size()


class Comm(TorchDispatchMode):
    """Bytes per collective kind, as nccl-tests' size: all-gather the
    gathered output, reduce-scatter the full input, all-reduce the tensor,
    all-to-all the send buffer."""

    def __init__(self):
        super().__init__()
        self.bytes = {"all_gather": 0, "reduce_scatter": 0, "all_reduce": 0,
                      "all_to_all": 0}

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        kwargs = kwargs or {}
        name = func._schema.name.split("::")[-1]
        b = self.bytes

        def flat(x):
            if isinstance(x, torch.Tensor):
                return [x]
            if isinstance(x, (list, tuple)):
                return [t for y in x for t in flat(y)]
            return []
        if name == "_allgather_base_":
            b["all_gather"] += _nbytes(args[0])
        elif name in ("allgather_", "allgather_into_tensor_coalesced_"):
            b["all_gather"] += sum(map(_nbytes, flat(args[0])))
        elif name == "all_gather_into_tensor":
            b["all_gather"] += _nbytes(args[0]) * args[1]
        elif name == "_reduce_scatter_base_":
            b["reduce_scatter"] += _nbytes(args[1])
        elif name in ("reduce_scatter_", "reduce_scatter_tensor_coalesced_"):
            b["reduce_scatter"] += sum(map(_nbytes, flat(args[1])))
        elif name == "reduce_scatter_tensor":
            b["reduce_scatter"] += _nbytes(args[0])
        elif name in ("allreduce_", "allreduce_coalesced_", "all_reduce",
                      "all_reduce_", "all_reduce_coalesced"):
            b["all_reduce"] += sum(map(_nbytes, flat(args[0])))
        elif name in ("alltoall_base_", "all_to_all_single"):
            b["all_to_all"] += _nbytes(args[1] if name == "alltoall_base_"
                                       else args[0])
        return func(*args, **kwargs)


class GroupedMM(TorchDispatchMode):
    """MACs of aten._grouped_mm (transformers' grouped experts), which
    FlopCounterMode has no formula for: a [S, K] input against [G, K, N]
    stacked weights multiplies each of the S rows once, S * K * N."""

    def __init__(self):
        super().__init__()
        self.macs = 0

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        if func._schema.name.split("::")[-1] == "_grouped_mm":
            a, b = args[0], args[1]
            assert a.dim() == 2 and b.dim() == 3, (a.shape, b.shape)
            self.macs += a.shape[0] * a.shape[1] * b.shape[-1]
        return func(*args, **(kwargs or {}))


def local(t):
    return t.to_local() if hasattr(t, "to_local") else t


def _split(name):
    """Whether FlopCounterMode's module name (Class.path) is one the
    plan splits."""
    import fnmatch
    path = name.split(".", 1)[1] if "." in name else ""
    return any(fnmatch.fnmatchcase(path, pat) for pat in PLAN)


def saved_bytes(model, inputs):
    """Bytes of the distinct storages autograd saves in one forward (the
    loss included), parameters left out."""
    seen = {}

    def params():
        out = set()
        for m in model.modules():
            for p in m._parameters.values():
                if p is not None:
                    out.add(local(p).untyped_storage().data_ptr())
        return out

    def pack(t):
        t0 = t._local_tensor if hasattr(t, "_local_tensor") else t
        st = t0.untyped_storage()
        if st.data_ptr() not in params():
            seen[(st.data_ptr(), st.nbytes())] = st.nbytes()
        return t
    with torch.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
        loss = model(**inputs).loss
    del loss
    return sum(seen.values())


def wrap(model, mode, world):
    from torch.distributed.device_mesh import init_device_mesh
    if mode == "ddp":
        return torch.nn.parallel.DistributedDataParallel(model), \
            {"dp": world}
    if mode == "fsdp":
        mesh = init_device_mesh("cpu", (world,), mesh_dim_names=("fsdp",))
        fsdp_mesh, tp_mesh, sizes = mesh, None, {"fsdp": world}
    elif mode == "tp":
        mesh = init_device_mesh("cpu", (world,), mesh_dim_names=("tp",))
        fsdp_mesh, tp_mesh, sizes = None, mesh, {"tp": world}
    else:
        mesh = init_device_mesh("cpu", (world // 2, 2),
                                mesh_dim_names=("fsdp", "tp"))
        fsdp_mesh, tp_mesh = mesh["fsdp"], mesh["tp"]
        sizes = {"fsdp": world // 2, "tp": 2}
    if tp_mesh is not None:
        from torch.distributed.tensor.parallel import (
            ColwiseParallel, RowwiseParallel, parallelize_module)
        styles = {"colwise": ColwiseParallel, "rowwise": RowwiseParallel}
        plan = {}
        for path, _ in model.named_modules():
            for pat, st in PLAN.items():
                import fnmatch
                if fnmatch.fnmatchcase(path, pat):
                    plan[path] = styles[st]()
        parallelize_module(model, tp_mesh, plan)
    if fsdp_mesh is not None:
        from torch.distributed.fsdp import fully_shard
        for layer in blocks(model):
            fully_shard(layer, mesh=fsdp_mesh)
        fully_shard(model, mesh=fsdp_mesh)
    return model, sizes


def main():
    global PLAN
    rank, world, store, mode, out = sys.argv[1:6]
    kind = sys.argv[6] if len(sys.argv) > 6 else "llama"
    PLAN = PLANS[kind]
    rank, world = int(rank), int(world)
    dist.init_process_group(
        "gloo", store=dist.FileStore(store, world), rank=rank,
        world_size=world, timeout=datetime.timedelta(seconds=120))
    model, sizes = wrap(build(kind), mode, world)
    g = torch.Generator().manual_seed(1 + rank)
    ids = torch.randint(0, 96, (2, 16), generator=g)
    inputs = {"input_ids": ids, "labels": ids}
    # live: every rank takes its own summary (nnscan issues no collective)
    s = nnscan.summary(model, inputs=inputs, training=True,
                       optimizer="adamw", file=False)
    live = s.totals.get("per_rank")
    # one real step, its collectives noted
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
    comm = Comm()
    with comm:
        loss = model(**inputs).loss
        loss.backward()
        opt.step()
    res = {"mode": mode, "world": world, "model": kind, "live": live,
           "comm": comm.bytes,
           "params": sum(local(p).numel() for p in model.parameters()),
           "param_bytes": sum(_nbytes(local(p)) for p in model.parameters()),
           "grad_bytes": sum(_nbytes(local(p.grad))
                             for p in model.parameters()
                             if p.grad is not None),
           "optimizer_bytes": sum(_nbytes(local(v)) for st in
                                  opt.state.values() for v in st.values()
                                  if isinstance(v, torch.Tensor)),
           "logical_params": s.totals.get("params"),
           "logical_param_bytes": s.totals.get("param_bytes"),
           # the logical model: a DTensor's numel is its global one
           "global_params": sum(p.numel() for p in model.parameters()
                                if p.requires_grad),
           # and the buffer its forward reads (rotary's inv_freq; the
           # original_inv_freq copy kept for dynamic scaling is not read)
           "global_param_bytes": sum(p.numel() * p.element_size()
                                     for p in model.parameters()) +
           sum(b.numel() * b.element_size()
               for n, b in model.named_buffers()
               if n.rsplit(".", 1)[-1] == "inv_freq"),
           }
    # the step's peak on the rank as PyTorch's MemTracker sees it (a
    # steady-state step: the optimizer's state made by the one above)
    # Three steps: on gloo the moment an FSDP2 prefetch's all-gather lands
    # against the block it overlaps varies from step to step (a Mixtral
    # fsdp-2 rank measured 2,630,124 B in most steps and 2,975,468 B in
    # some, the same step of the same model), so one step is no
    # steady-state reference (test_parallel.py reads all three).
    from torch.distributed._tools.mem_tracker import MemTracker
    peaks = []
    for _ in range(3):
        opt.zero_grad()
        mt = MemTracker()
        mt.track_external(model, opt)
        with mt:
            model(**inputs).loss.backward()
            opt.step()
            opt.zero_grad()
        peaks.append(sum(v["Total"] for v in
                         mt.get_tracker_snapshot("peak").values()))
    res["mem_tracker_peaks"] = peaks
    # what autograd saves on the rank in a real forward (a DTensor by its
    # local storage; FSDP's gathered weights are parameters, not saved),
    # and the forward's FLOPs as PyTorch's FlopCounterMode counts them
    res_saved = saved_bytes(model, inputs)
    from torch.utils.flop_counter import FlopCounterMode
    fc = FlopCounterMode(display=False)
    # FlopCounterMode counts no LayerNorm; nnscan gives it 2 MACs per
    # element of its input (docs/metrics.md): the elements, from PyTorch
    ln = []
    hooks = [m.register_forward_hook(
        lambda m, a, o: ln.append(local(a[0]).numel()))
        for m in model.modules() if isinstance(m, torch.nn.LayerNorm)]
    gmm = GroupedMM()
    with fc, gmm:
        model(**inputs).loss
    for h in hooks:
        h.remove()
    flops = fc.get_total_flops()
    split = sum(f for name, ops in fc.get_flop_counts().items()
                if _split(name) for f in ops.values())
    res.update(saved_bytes=res_saved, flop_counter=flops,
               flop_counter_split=split, layer_norm_elems=sum(ln),
               grouped_mm_macs=gmm.macs)
    if rank == 0:
        w = nnscan.summary(build(kind), inputs=inputs, training=True,
                           optimizer="adamw", parallel=sizes, tp_plan=PLAN or None,
                           file=False)
        res["what_if"] = w.totals.get("per_rank")
        res["what_if_params"] = w.totals.get("params")
    dist.barrier()
    with open(out, "w") as f:
        json.dump(res, f)
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
