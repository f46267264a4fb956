"""One rank of test_inspector_ddp.py: DDP over gloo on this machine, two
passes of a model whose `slow` module sleeps 20 ms x (rank + 1) and whose
`poison` module puts a NaN in its output - on rank 1 in the first pass,
on rank 0 only in the second (so rank 1 saw it first by the clock).

usage: inspector_ddp_worker.py RANK WORLD STORE_FILE OUT_DIR
"""
import datetime
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(
    __file__))))

import torch  # noqa: E402
import torch.distributed as dist  # noqa: E402
from torch import nn  # noqa: E402

from nnscan import Inspector  # noqa: E402


class Slow(nn.Module):
    def __init__(self, seconds):
        super().__init__()
        self.seconds = seconds

    def forward(self, x):
        time.sleep(self.seconds)
        return x * 1.0


class Poison(nn.Module):
    def __init__(self, rank):
        super().__init__()
        self.rank = rank
        self.calls = 0

    def forward(self, x):
        bad = (self.rank == 1 and self.calls == 0) or \
            (self.rank == 0 and self.calls == 1)
        self.calls += 1
        y = x * 1.0
        if bad:
            y[0, 0] = float("nan")
        return y


def main():
    rank, world, store, out = int(sys.argv[1]), int(sys.argv[2]), \
        sys.argv[3], sys.argv[4]
    os.environ.setdefault("GLOO_SOCKET_IFNAME", "lo")
    # A rank that waits for one that died fails within a minute.
    dist.init_process_group("gloo", init_method=f"file://{store}",
                            rank=rank, world_size=world,
                            timeout=datetime.timedelta(seconds=60))
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(4, 4), Slow(0.02 * (rank + 1)),
                          Poison(rank), nn.Linear(4, 2))
    ddp = nn.parallel.DistributedDataParallel(model)
    opt = torch.optim.SGD(ddp.parameters(), lr=0.1)
    with Inspector(ddp, save_file=os.path.join(out, "run")):
        for _ in range(2):
            opt.zero_grad()
            ddp(torch.randn(3, 4)).sum().backward()
            opt.step()
    dist.barrier()
    # Older PyTorch (1.13 here) destroys a gloo process group holding the GIL
    # while it joins a worker thread that may need the GIL to free a tensor
    # (pytorch/pytorch#56297, fixed upstream by #154976): at teardown the
    # rank can hang for ever. Both ranks are past the barrier and the report
    # is written, so the rank leaves without running those destructors.
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(0)


if __name__ == "__main__":
    main()
