"""One rank of test_inspector_parallel.py: the Inspector on a small LLaMA
(transformers, from a config) under FSDP2, DTensor tensor parallelism or
both, over gloo on this machine, for two real AdamW training steps. Rank 1
sleeps 40 ms in the forward of `model.layers.1.mlp` (a forward hook: inside
the module's span), so it is that module's slowest rank. Around the steps
a dispatch mode of the test's own (parallel_worker.Comm) notes every
collective they issued, and each rank writes what PyTorch says:
local parameter, gradient and AdamW-state bytes after optimizer.step(),
collective bytes and calls per kind, and the wall time of its steps.

usage: inspector_parallel_worker.py RANK WORLD STORE_FILE MODE OUT_DIR
MODE: fsdp | tp | fsdp_tp
"""
import datetime
import json
import os
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
sys.path.insert(0, HERE)

import torch  # noqa: E402
import torch.distributed as dist  # noqa: E402

import nnscan  # noqa: E402
from parallel_worker import Comm, _nbytes, build, local, wrap  # noqa: E402


class CommCalls(Comm):
    """parallel_worker.Comm's bytes, and the calls of each kind."""

    def __init__(self):
        super().__init__()
        self.calls = dict.fromkeys(self.bytes, 0)

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        before = dict(self.bytes)
        out = super().__torch_dispatch__(func, types, args, kwargs)
        for k in self.bytes:
            self.calls[k] += self.bytes[k] != before[k]
        return out


def main():
    rank, world, store, mode, out = sys.argv[1:6]
    rank, world = int(rank), int(world)
    dist.init_process_group(
        "gloo", store=dist.FileStore(store, world), rank=rank,
        world_size=world, timeout=datetime.timedelta(seconds=120))
    model, sizes = wrap(build(), mode, world)
    g = torch.Generator().manual_seed(1 + rank)
    ids = torch.randint(0, 96, (2, 16), generator=g)
    inputs = {"input_ids": ids, "labels": ids}
    mlp = model.model.layers[1].mlp
    if rank == 1:
        mlp.register_forward_hook(lambda m, a, o: time.sleep(0.04))
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
    comm = CommCalls()
    insp = nnscan.Inspector(model, save_file=os.path.join(out, "run"),
                            static_inputs=inputs, optimizer="adamw")
    with insp:
        # the steps' collectives, as the test's own mode sees them (the
        # rank merge at finish() is the Inspector's own all_gather_object)
        with comm:
            t0 = time.perf_counter()
            for _ in range(2):
                model(**inputs).loss.backward()
                opt.step()
                opt.zero_grad(set_to_none=False)
            wall_ms = (time.perf_counter() - t0) * 1e3
    res = {"rank": rank, "mesh": sizes, "wall_ms": wall_ms,
           "comm_bytes": comm.bytes, "comm_calls": comm.calls,
           "errors": insp.errors, "text": insp.report(width=200),
           "html": insp.report("html"),
           "params": sum(local(p).numel() for p in model.parameters()),
           "param_bytes": sum(_nbytes(local(p))
                              for p in model.parameters()),
           "grad_bytes": sum(_nbytes(local(p.grad))
                             for p in model.parameters()
                             if p.grad is not None),
           "optimizer_bytes": sum(_nbytes(local(v)) for st in
                                  opt.state.values() for v in st.values()
                                  if isinstance(v, torch.Tensor)),
           "doc": insp.json()}
    with open(os.path.join(out, f"rank{rank}.json"), "w") as f:
        json.dump(res, f)
    dist.barrier()
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
