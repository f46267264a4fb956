"""masks.number_bytes (the constants a recording hands over) gives
PyTorch's own bytes for every number and list, its memo never mixing two
that compare equal but differ in bytes or type."""
import torch

from nnscan import masks


def _torch_bytes(v, dtype):
    return bytes(torch.tensor(v, dtype=dtype).reshape(-1).view(torch.uint8).tolist())


def test_number_bytes_are_pytorchs():
    cases = [([1, 2, -3], torch.int64), ([], torch.int64),
             ([2 ** 40, 0], torch.int64), ([0.0], torch.float32),
             ([-0.0], torch.float32), ([True, 2], torch.int64),
             (1.5, torch.bfloat16), (-0.0, torch.float16), (7, torch.int32),
             ([1, 2.5], torch.float64)]
    for _ in range(2):  # the second time from the memo
        for v, dt in cases:
            assert masks.number_bytes(v, dt) == _torch_bytes(v, dt), (v, dt)
