"""One rank of test_step_meter.py's two-rank run: DDP over gloo on this
machine, rank r training on 8·(r + 1) rows, each rank's StepMeter
recording its own step and writing its own log.

usage: step_meter_ddp_worker.py RANK WORLD STORE_FILE OUT_DIR
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
    model = nn.Sequential(nn.Linear(32, 64), nn.ReLU(), nn.Linear(64, 8))
    ddp = nn.parallel.DistributedDataParallel(model)
    opt = torch.optim.SGD(ddp.parameters(), lr=0.01)
    x = torch.randn(8 * (rank + 1), 32)
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
