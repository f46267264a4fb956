"""One rank of test_step_meter.py's two-rank runs over gloo on this
machine, each rank's StepMeter recording its own step and writing its own
log: DDP (rank r training on 8·(r + 1) rows), FSDP2 (fully_shard per
Linear and the root; the same rows) or tensor parallel (the first Linear
split by columns, the second by rows; 8 rows on both ranks).

usage: step_meter_ddp_worker.py RANK WORLD STORE_FILE OUT_DIR [ddp|fsdp|tp]
"""
import datetime
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(
    __file__))))

import torch  # noqa: E402
import torch.distributed as dist  # noqa: E402
from torch import nn  # noqa: E402

import nnscan  # noqa: E402


def main():
    rank, world, store, out = int(sys.argv[1]), int(sys.argv[2]), \
        sys.argv[3], sys.argv[4]
    dist.init_process_group("gloo", init_method=f"file://{store}",
                            rank=rank, world_size=world,
                            timeout=datetime.timedelta(seconds=60))
    torch.manual_seed(0)
    mode = sys.argv[5] if len(sys.argv) > 5 else "ddp"
    model = nn.Sequential(nn.Linear(32, 64), nn.ReLU(), nn.Linear(64, 8))
    x = torch.randn(8 * (rank + 1), 32)
    if mode == "ddp":
        ddp = nn.parallel.DistributedDataParallel(model)
    elif mode == "fsdp":
        from torch.distributed.fsdp import fully_shard
        fully_shard(model[0])
        fully_shard(model[2])
        ddp = fully_shard(model)
    else:
        from torch.distributed.device_mesh import init_device_mesh
        from torch.distributed.tensor.parallel import (
            ColwiseParallel, RowwiseParallel, parallelize_module)
        mesh = init_device_mesh("cpu", (world,), mesh_dim_names=("tp",))
        ddp = parallelize_module(model, mesh, {"0": ColwiseParallel(),
                                               "2": RowwiseParallel()})
        x = torch.randn(8, 32)
    opt = torch.optim.SGD(ddp.parameters(), lr=0.01)
    meter = nnscan.StepMeter(model, peak_flops=1e12, warmup=1, file=False,
                             log=os.path.join(out, f"steps.{rank}.jsonl"))
    for _ in range(3):
        with meter.step(x):
            ddp(x).sum().backward()
            opt.step()
            opt.zero_grad()
    meter.close()
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
