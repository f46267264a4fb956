"""One rank of test_parallel_ep.py: a small mixture-of-experts language
model whose expert layers are expert-parallel over gloo - each rank holds
E / ep of every layer's stacked experts, and the tokens' hidden states go
to the ranks holding their experts and come back by
torch.distributed.nn.functional.all_to_all_single (with autograd: the
backward sends the gradients the same way). Its other parameters'
gradients are all-reduced over the ranks (they saw different tokens).

Routing is fixed by position so that the splits are equal and known to
every rank (no exchange of split sizes, which a dropless implementation
adds): token t's j-th expert is j * E/k + t mod (E/k), with k = ep, so a
token's j-th copy goes to rank j. A router still weights the two experts'
outputs (softmax of its logits at the chosen experts), so it learns.

The rank runs one real AdamW step under nnscan's Inspector while a
dispatch mode of the test's own (parallel_worker.Comm) notes every
collective, and writes what PyTorch says: those bytes per kind, its local
parameter count, and the Inspector's rank row. Rank 0 also takes the
what-if parallel={"ep": ep} of the same model unwrapped (every expert
held, no collective).

usage: ep_worker.py RANK WORLD STORE_FILE OUT_DIR
"""
import datetime
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
sys.path.insert(0, HERE)

import torch  # noqa: E402
import torch.distributed as dist  # noqa: E402
from torch import nn  # noqa: E402

import nnscan  # noqa: E402
from parallel_worker import Comm  # noqa: E402

VOCAB, HIDDEN, INTER, EXPERTS, LAYERS = 64, 32, 48, 4, 2


class Experts(nn.Module):
    """E stacked SwiGLU-free experts (relu MLPs); with a group, this rank's
    E / ep of them. forward(x (T, H), gates (T, k)) -> (T, H): the
    tokens' expert outputs weighted by their gates and summed."""

    def __init__(self, experts, top_k, group=None):
        super().__init__()
        self.top_k, self.group = top_k, group
        ep = dist.get_world_size(group) if group is not None else 1
        self.w1 = nn.Parameter(torch.randn(experts // ep, HIDDEN, INTER)
                               * 0.1)
        self.w2 = nn.Parameter(torch.randn(experts // ep, INTER, HIDDEN)
                               * 0.1)

    def forward(self, x, gates):
        T, k, H = x.shape[0], self.top_k, x.shape[1]
        per = EXPERTS // k                      # experts per copy j
        # copy j of every token, grouped by j: what rank j receives
        slots = x.unsqueeze(0).expand(k, T, H).contiguous()
        if self.group is not None:
            from torch.distributed.nn.functional import all_to_all_single
            got = all_to_all_single(torch.empty_like(slots), slots,
                                    group=self.group)
            # from each source: its T tokens, token t to local expert
            # t mod per
            h = got.view(k, T // per, per, H)
            h = torch.relu(torch.einsum("snei,eij->snej", h, self.w1))
            y = torch.einsum("snej,ejh->sneh", h, self.w2).reshape(k, T, H)
            y = all_to_all_single(torch.empty_like(y), y.contiguous(),
                                  group=self.group)
        else:
            h = slots.view(k, T // per, per, H)
            w1 = self.w1.view(k, per, H, INTER)
            w2 = self.w2.view(k, per, INTER, H)
            h = torch.relu(torch.einsum("jnei,jeik->jnek", h, w1))
            y = torch.einsum("jnek,jekh->jneh", h, w2).reshape(k, T, H)
        return (y.transpose(0, 1) * gates.unsqueeze(-1)).sum(1)


class MoE(nn.Module):
    def __init__(self, top_k, group=None):
        super().__init__()
        self.top_k = top_k
        self.router = nn.Linear(HIDDEN, EXPERTS, bias=False)
        self.experts = Experts(EXPERTS, top_k, group)

    def forward(self, x):
        T = x.shape[0]
        per = EXPERTS // self.top_k
        probs = torch.softmax(self.router(x), -1).view(T, self.top_k, per)
        pick = (torch.arange(T, device=x.device)[:, None] % per ==
                torch.arange(per, device=x.device)[None, :])
        gates = (probs * pick[:, None, :]).sum(-1)          # (T, k)
        return x + self.experts(x, gates)


class TinyMoELM(nn.Module):
    def __init__(self, top_k, group=None):
        super().__init__()
        self.embed = nn.Embedding(VOCAB, HIDDEN)
        self.layers = nn.ModuleList(MoE(top_k, group) for _ in range(LAYERS))
        self.head = nn.Linear(HIDDEN, VOCAB, bias=False)

    def forward(self, ids, labels=None):
        x = self.embed(ids).view(-1, HIDDEN)
        for layer in self.layers:
            x = layer(x)
        logits = self.head(x)
        return nn.functional.cross_entropy(logits, labels.view(-1))


def main():
    rank, world, store, out = sys.argv[1:5]
    rank, world = int(rank), int(world)
    dist.init_process_group(
        "gloo", store=dist.FileStore(store, world), rank=rank,
        world_size=world, timeout=datetime.timedelta(seconds=120))
    torch.manual_seed(0)
    model = TinyMoELM(world, dist.group.WORLD)
    g = torch.Generator().manual_seed(1 + rank)
    ids = torch.randint(0, VOCAB, (2, 8), generator=g)
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
    comm = Comm()
    insp = nnscan.Inspector(model)
    with insp:
        with comm:
            model(ids, ids).backward()
            for n, p in model.named_parameters():
                if ".experts." not in n:
                    dist.all_reduce(p.grad)
            opt.step()
    res = {"rank": rank, "comm": comm.bytes,
           "params": sum(p.numel() for p in model.parameters()),
           "row": insp.json()["per_rank"][rank]}
    if rank == 0:
        whole = TinyMoELM(world)
        s = nnscan.summary(whole, inputs={"ids": ids, "labels": ids},
                           training=True, optimizer="adamw",
                           parallel={"ep": world}, file=False)
        res["what_if"] = s.totals["per_rank"]
        res["tokens"] = ids.numel()
    with open(os.path.join(out, f"rank{rank}.json"), "w") as f:
        json.dump(res, f)
    dist.barrier()
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
