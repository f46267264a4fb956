#!/usr/bin/python3
"""fast_meta's binary and unary kernels against PyTorch's own meta kernels
over many random calls: shapes of 1-5 dims with random strides (stride 0,
ties, slices), broadcast second operands, both operand orders, float32,
bfloat16 and int64. Prints how many calls a kernel answered and how many
answers differ from PyTorch's (shape, dtype, or the strides of dims longer
than 1); exits 1 on any difference.

    # PyTorch 2.x: in the sid chroot (tests/sid_chroot.sh shell DIR)
    PYTHONPATH=python python3 tools/fast_meta_vs_pytorch.py --calls 20000 --seed 5

python/tests/test_fast_meta.py runs the same comparison on a few hundred
calls; this is the long run for a new layout rule (PyTorch 2.x, where the
kernels are in the table)."""
import argparse
import random
import sys

import torch

from nnscan import fast_meta

A = torch.ops.aten
BINARY = (A.div.Tensor, A.mul.Tensor, A.add.Tensor, A.sub.Tensor,
          A.maximum.default, A.minimum.default)
UNARY = (A.neg.default, A.exp.default, A.relu.default,
         A.clamp_min.default, A.softplus.default)
EXTRA = {A.clamp_min.default: (0.5,)}


def strided(rng, shape):
    return torch.empty_strided(
        shape, [rng.choice([0, 1, 2, 3, 5, 7, 30, 64]) for _ in shape],
        device="meta", dtype=rng.choice([torch.float32, torch.float32,
                                         torch.bfloat16, torch.int64]))


def layout(t):
    return (t.shape, t.dtype,
            [s for s, n in zip(t.stride(), t.shape) if n > 1])


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--calls", type=int, default=20000,
                    help="random operand pairs (each tried with every op)")
    ap.add_argument("--seed", type=int, default=0)
    a = ap.parse_args()
    rng = random.Random(a.seed)
    table = fast_meta.KERNELS_2X
    answered = differ = 0
    for _ in range(a.calls):
        nd = rng.randint(1, 5)
        shape = [rng.choice([1, 1, 2, 3, 4, 5]) for _ in range(nd)]
        x = strided(rng, shape)
        k = rng.randint(0, nd)
        y = strided(rng, [rng.choice([1, n]) for n in shape[nd - k:]])
        calls = [(f, pair) for f in BINARY for pair in ((x, y), (y, x))]
        calls += [(f, (x,) + EXTRA.get(f, ())) for f in UNARY]
        for func, args in calls:
            ours = table[func](args)
            if ours is None:
                continue
            answered += 1
            if layout(ours) != layout(func(*args)):
                differ += 1
                if differ <= 10:
                    print("differs:", func, [(t.shape, t.stride(), t.dtype)
                                             for t in args
                                             if isinstance(t, torch.Tensor)])
    print(f"answered {answered}, differ {differ}")
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main())
