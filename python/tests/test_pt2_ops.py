"""The aten table's shape/index/scatter/sort and conv/norm/pool/resize/
pad/attention/backward entries (src/ops/aten_shape.c, src/ops/aten_nn.c)
on torch.export archives: one tiny module per op, exported with
torch.export.export + torch.export.save, read by the CLI with no Python,
and every count of its report equal to nnscan.summary of the same live
module (the recorder's calls, on the tape, lowered by the same table),
the op itself lowered (nothing uncounted), and convolution and attention
MACs equal to PyTorch's FlopCounterMode. Ops torch.export keeps as a
composite (F.pad is aten.pad, GroupNorm aten.group_norm) or never emits
(the backward kernels, the fused attention kernels, the underscore
variants) are called as torch.ops.aten.X in the module's forward, so the
archive holds exactly that op. Needs PyTorch 2.x (the sid chroot)."""
import json
import math
import subprocess

import pytest

torch = pytest.importorskip("torch")
if not hasattr(torch, "export") or not hasattr(torch.export, "save"):
    pytest.skip("torch.export needs PyTorch 2.x", allow_module_level=True)

from torch import nn  # noqa: E402
import torch.nn.functional as F  # noqa: E402

import nnscan  # noqa: E402
from test_pt2 import archive_json, cli, save_program  # noqa: E402

A = torch.ops.aten
r = torch.randn


def ri(hi, shape):
    return torch.randint(0, hi, shape)


# PyTorch runs the 1-d pools as their 2-d kernels on an unsqueezed input,
# so a live recording holds a Reshape either side of the pool: the pool
# itself and every total but those layout nodes' are compared.
OWN_TYPES = "own types"
# x.repeat_interleave(n) runs as repeat_interleave(repeats) and an
# index_select live (the archive's op, the x-first form, lowers to one
# Gather): params, MACs and FLOPs compared.
DECOMPOSED = "decomposed"
# nonzero and unique: how many elements come out is data; the archive has
# a size symbol there, which the CLI takes as 1, the live recording the
# count PyTorch found. The op types, params, MACs and FLOPs (which depend
# on the input alone) are compared.
DATA = "data"

# name: (forward, example inputs, the aten op the archive must hold[, what
# the live side runs: a forward of its own where calling the op directly
# runs its decomposition (the math attention kernel, which the table
# lowers as it does the fused kernels: compared with the CPU flash
# kernel's recording), or OWN_TYPES])
class ChannelsLastHead(nn.Module):
    """A Linear over the channels of an NHWC map, permuted back to NCHW
    (channels-last strides), then pooled: ConvNeXt's last block and head."""

    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 6, bias=False)

    def forward(self, x):
        return F.adaptive_avg_pool2d(self.fc(x).permute(0, 3, 1, 2), 1)


class Linear3d(nn.Module):
    """nn.Linear on a batch of sequences, with and without a bias."""

    def __init__(self, bias):
        super().__init__()
        self.fc = nn.Linear(8, 6, bias=bias)

    def forward(self, x):
        return self.fc(x) * 2


CASES = {
    # matrix products as PyTorch runs them past two dims (the live
    # recording sees the decomposition): linear on 3-D input a Reshape,
    # Gemm, Reshape (_flatten_nd_linear, or matmul's folding without a
    # bias); matmul of batches Expand + Reshape each, a bmm, a Reshape
    "linear_3d": (Linear3d(True), (r(2, 5, 8),), "linear"),
    "linear_3d_no_bias": (Linear3d(False), (r(2, 5, 8),), "linear"),
    "linear_4d": (Linear3d(True), (r(2, 3, 5, 8),), "linear"),
    "matmul_4d": (lambda a, b: torch.matmul(a, b) * 2,
                  (r(2, 3, 4, 5), r(2, 3, 5, 6)), "matmul"),
    "matmul_broadcast": (lambda a, b: torch.matmul(a, b) * 2,
                         (r(2, 1, 4, 5), r(3, 5, 6)), "matmul"),
    "matmul_fold": (lambda a, b: torch.matmul(a, b) * 2,
                    (r(2, 3, 4, 5), r(5, 6)), "matmul"),
    "matmul_2d_3d": (lambda a, b: torch.matmul(a, b) * 2,
                     (r(4, 5), r(3, 5, 6)), "matmul"),
    # layout and views
    "flip": (lambda x: x.flip(1, -1), (r(2, 3, 4),), "flip"),
    "roll": (lambda x: x.roll((1, -2), (0, 2)), (r(3, 3, 4),), "roll"),
    "stack": (lambda x: torch.stack([x, x * 2], dim=1), (r(3, 4),), "stack"),
    "unbind": (lambda x: sum(x.unbind(1)), (r(3, 4),), "unbind"),
    "repeat": (lambda x: x.repeat(2, 1, 3), (r(3, 4),), "repeat"),
    # bounds that are tensors (PhiMoE's router: clamp(x, min=row's own));
    # a -inf fill, which the archive writes as the string "-Infinity"
    "clamp_tensor_rows": (lambda x, lo: torch.clamp(x, min=lo),
                          (r(3, 4), r(3, 1)), "clamp"),
    "clamp_tensor_both": (lambda x, lo, hi: torch.clamp(x, lo, hi),
                          (r(3, 4), r(3, 1), r(4) + 1), "clamp"),
    "clamp_tensor_one": (lambda x, hi: torch.clamp(x, max=hi),
                         (r(3, 4), r(1)), "clamp"),
    "masked_fill_neg_inf": (lambda x: x.masked_fill(x > 0.5, float("-inf"))
                            .softmax(-1), (r(3, 4),), "masked_fill"),
    # adaptive pools the archive keeps whole, at sizes other than 1:
    # as PyTorch runs them (_adaptive_avg_pool2d), TextNet's (1,1)->(2,2)
    "adaptive_avg_upsample": (lambda x: F.adaptive_avg_pool2d(x, 2) * 2,
                              (r(1, 3, 1, 1),), "adaptive_avg_pool2d"),
    "adaptive_avg_tiles": (lambda x: F.adaptive_avg_pool2d(x, (2, 3)) * 2,
                           (r(1, 3, 4, 6),), "adaptive_avg_pool2d"),
    # the 1-D pool runs live as the 2-D one over x.unsqueeze(-2) (Swin's
    # pooler): a 2-D GlobalAveragePool, numel(Y) (k - 1 + 2) MACs
    "adaptive_avg_pool1d_global": (
        lambda x: F.adaptive_avg_pool1d(x.transpose(1, 2), 1).flatten(1),
        (r(2, 16, 8),), "adaptive_avg_pool1d", OWN_TYPES),
    # pools of unbatched inputs, which PyTorch pools as a batch of one:
    # Unsqueeze, the pool, Squeeze
    "max_pool2d_unbatched": (lambda x: F.max_pool2d(x, 2) * 2,
                             (r(3, 8, 8),), "max_pool2d"),
    "avg_pool2d_unbatched": (lambda x: F.avg_pool2d(x, 2) * 2,
                             (r(3, 8, 8),), "avg_pool2d"),
    # a legacy empty 1-D tensor beside the others (a KV cache's first
    # step): PyTorch skips it
    "cat_legacy_empty": (lambda x: torch.cat([x.new_empty(0), x], -2) * 2,
                         (r(2, 3, 4),), "cat"),
    # layout composites an archive keeps whole (MaxViT, Mamba): the
    # permutation PyTorch runs them as
    "swapaxes": (lambda x: x.swapaxes(0, 2) * 2, (r(2, 3, 4),), "swapaxes"),
    "swapdims": (lambda x: x.swapdims(-1, 1) * 2, (r(2, 3, 4),), "swapdims"),
    "movedim": (lambda x: x.movedim(1, -1) * 2, (r(2, 3, 4, 5),), "movedim"),
    "movedim_lists": (lambda x: x.movedim((0, 3), (2, 0)) * 2,
                      (r(2, 3, 4, 5),), "movedim"),
    "scatter_neg_inf": (lambda x, i: x.scatter(-1, i, float("-inf")) * 2,
                        (r(3, 4), torch.tensor([[0], [2], [1]])),
                        "scatter"),
    "pixel_shuffle": (lambda x: F.pixel_shuffle(x, 2), (r(1, 8, 3, 3),),
                      "pixel_shuffle"),
    "unfold": (lambda x: x.unfold(1, 3, 2) * 2, (r(2, 9),), "unfold"),
    "as_strided": (lambda x: x.as_strided((3, 3), (1, 1)) * 2, (r(9),),
                   "as_strided"),
    "as_strided_same": (lambda x: x.as_strided((3, 3), (3, 1)) * 2, (r(9),),
                        "as_strided"),
    "unsafe_split": (lambda x: sum(A.unsafe_split.Tensor(x, 2, 1)),
                     (r(3, 4),), "unsafe_split"),
    "unsafe_split_with_sizes": (
        lambda x: A.unsafe_split_with_sizes.default(x, [1, 3], 1)[1] * 2,
        (r(3, 4),), "unsafe_split_with_sizes"),
    "im2col": (lambda x: F.unfold(x, (2, 3), padding=1, stride=2),
               (r(1, 2, 5, 6),), "im2col"),
    "im2col_unpadded": (lambda x: F.unfold(x, 2), (r(2, 4, 4),), "im2col"),
    "col2im": (lambda x: F.fold(x, (4, 5), (2, 2), padding=1),
               (r(1, 8, 30),), "col2im"),
    "col2im_unpadded": (lambda x: F.fold(x, (4, 5), (2, 2)),
                        (r(8, 12),), "col2im"),
    "repeat_interleave": (lambda x: x.repeat_interleave(2, dim=0),
                          (r(3, 4),), "repeat_interleave", DECOMPOSED),
    "repeat_interleave_flat": (lambda x: x.repeat_interleave(3),
                               (r(3, 4),), "repeat_interleave", DECOMPOSED),
    # sizes that are data: the archive holds a size symbol where the live
    # run had a number
    "nonzero": (lambda x: torch.nonzero(x), (r(3, 4),), "nonzero", DATA),
    "_unique2": (lambda x: tuple(torch.unique(x, return_counts=True)),
                 (r(12),), "_unique2", DATA),
    "unique_consecutive": (lambda x: torch.unique_consecutive(x),
                           (r(12),), "unique_consecutive", DATA),
    # gather and scatter
    "gather": (lambda x, i: x.gather(1, i), (r(3, 4), ri(4, (3, 2))),
               "gather"),
    "index_select": (lambda x, i: x.index_select(1, i),
                     (r(3, 4), torch.tensor([0, 2])), "index_select"),
    "scatter": (lambda x, i, s: x.scatter(1, i, s),
                (r(3, 4), ri(4, (3, 2)), r(3, 2)), "scatter"),
    "scatter_value": (lambda x, i: x.scatter(1, i, 1.5),
                      (r(3, 4), ri(4, (3, 2))), "scatter"),
    "scatter_add": (lambda x, i, s: x.scatter_add(1, i, s),
                    (r(3, 4), ri(4, (3, 2)), r(3, 2)), "scatter_add"),
    "scatter_reduce": (lambda x, i, s: x.scatter_reduce(1, i, s, "amax"),
                       (r(3, 4), ri(4, (3, 2)), r(3, 2)), "scatter_reduce"),
    "index_put": (lambda x, i, v: x.index_put((i,), v),
                  (r(5, 4), torch.tensor([0, 3]), r(2, 4)), "index_put"),
    "index_put_acc": (lambda x, i, v: x.index_put((i,), v, accumulate=True),
                      (r(5, 4), torch.tensor([0, 3]), r(4)), "index_put"),
    "index_put_two": (lambda x, i, j, v: x.index_put((i, j), v),
                      (r(5, 4, 3), torch.tensor([0, 3]), torch.tensor([1]),
                       r(3)), "index_put"),
    "index_put_mask": (lambda x, m, v: x.index_put((m,), v),
                       (r(5, 4), torch.rand(5, 4) > 0.5, r(())),
                       "index_put"),
    "index_copy": (lambda x, i, s: x.index_copy(1, i, s),
                   (r(3, 5), torch.tensor([0, 3]), r(3, 2)), "index_copy"),
    "index_add": (lambda x, i, s: x.index_add(0, i, s, alpha=2),
                  (r(5, 3), torch.tensor([0, 3]), r(2, 3)), "index_add"),
    # mixture-of-experts products (bfloat16: the only float type
    # torch.export's meta kernel takes)
    "_grouped_mm_batched": (lambda a, b: A._grouped_mm(a, b),
                            (r(3, 8, 8).bfloat16(), r(3, 8, 16).bfloat16()),
                            "_grouped_mm"),
    "_grouped_mm_experts": (
        lambda a, b, o: A._grouped_mm(a, b, o),
        (r(10, 8).bfloat16(), r(3, 8, 16).bfloat16(),
         torch.tensor([3, 7, 10], dtype=torch.int32)), "_grouped_mm"),
    "_grouped_mm_weight_grad": (
        lambda a, b, o: A._grouped_mm(a, b, o),
        (r(8, 16).bfloat16(), r(16, 8).bfloat16(),
         torch.tensor([5, 11, 16], dtype=torch.int32)), "_grouped_mm"),
    # sorting and search
    "topk": (lambda x: tuple(x.topk(2, dim=-1)), (r(3, 8),), "topk"),
    "sort": (lambda x: tuple(x.sort(dim=0, descending=True)), (r(5, 3),), "sort"),
    "argsort": (lambda x: x.argsort(dim=-1), (r(5, 3),), "argsort"),
    "bucketize": (lambda x, b: torch.bucketize(x, b),
                  (r(3, 4), torch.tensor([-1.0, 0.0, 1.0])), "bucketize"),
    "searchsorted": (lambda x, b: torch.searchsorted(b, x, right=True),
                     (r(3, 4), torch.tensor([-1.0, 0.0, 1.0])),
                     "searchsorted"),
    # padding and resizing
    "constant_pad_nd": (lambda x: A.constant_pad_nd(x, [1, 2, 0, 1], 0.5),
                        (r(1, 2, 5, 6),), "constant_pad_nd"),
    "reflection_pad1d": (lambda x: A.reflection_pad1d(x, [1, 2]),
                         (r(1, 2, 6),), "reflection_pad1d"),
    "reflection_pad2d": (lambda x: A.reflection_pad2d(x, [1, 2, 1, 1]),
                         (r(1, 2, 5, 6),), "reflection_pad2d"),
    "reflection_pad3d": (lambda x: A.reflection_pad3d(x, [1] * 6),
                         (r(1, 2, 3, 4, 5),), "reflection_pad3d"),
    "replication_pad1d": (lambda x: A.replication_pad1d(x, [1, 2]),
                          (r(1, 2, 6),), "replication_pad1d"),
    "replication_pad2d": (lambda x: A.replication_pad2d(x, [0, 2, 1, 0]),
                          (r(1, 2, 5, 6),), "replication_pad2d"),
    "replication_pad3d": (lambda x: A.replication_pad3d(x, [1] * 6),
                          (r(1, 2, 3, 4, 5),), "replication_pad3d"),
    "upsample_nearest1d": (lambda x: F.interpolate(x, scale_factor=2),
                           (r(1, 2, 4),), "upsample_nearest1d"),
    "upsample_nearest2d": (lambda x: F.interpolate(x, scale_factor=2),
                           (r(1, 2, 4, 4),), "upsample_nearest2d"),
    "upsample_nearest3d": (lambda x: F.interpolate(x, size=(3, 4, 5)),
                           (r(1, 2, 2, 2, 2),), "upsample_nearest3d"),
    "upsample_linear1d": (lambda x: F.interpolate(x, size=7, mode="linear"),
                          (r(1, 2, 4),), "upsample_linear1d"),
    "upsample_bilinear2d": (
        lambda x: F.interpolate(x, size=(7, 9), mode="bilinear",
                                align_corners=True),
        (r(1, 2, 4, 4),), "upsample_bilinear2d"),
    "upsample_trilinear3d": (
        lambda x: F.interpolate(x, scale_factor=2, mode="trilinear"),
        (r(1, 2, 2, 2, 2),), "upsample_trilinear3d"),
    "upsample_bicubic2d": (
        lambda x: F.interpolate(x, size=(5, 5), mode="bicubic"),
        (r(1, 2, 4, 4),), "upsample_bicubic2d"),
    "_upsample_bicubic2d_aa": (
        lambda x: F.interpolate(x, size=(3, 3), mode="bicubic",
                                antialias=True),
        (r(1, 2, 6, 6),), "_upsample_bicubic2d_aa"),
    "_upsample_bilinear2d_aa": (
        lambda x: F.interpolate(x, size=(3, 4), mode="bilinear",
                                antialias=True),
        (r(1, 2, 6, 6),), "_upsample_bilinear2d_aa"),
    "grid_sampler_2d": (lambda x, g: A.grid_sampler_2d(x, g, 0, 1, False),
                        (r(1, 2, 5, 5), torch.rand(1, 3, 3, 2) * 2 - 1),
                        "grid_sampler_2d"),
    # composites torch.export keeps whole (a live run meets their
    # decomposition: constant_pad_nd, reflection_pad2d, native_group_norm,
    # grid_sampler_2d)
    "pad": (lambda x: F.pad(x, (1, 2, 0, 1), value=0.5), (r(1, 2, 5, 6),),
            "pad"),
    "pad_reflect": (lambda x: F.pad(x, (1, 2, 1, 1), mode="reflect"),
                    (r(1, 2, 5, 6),), "pad"),
    "pad_replicate": (lambda x: F.pad(x, (1, 2), mode="replicate"),
                      (r(1, 2, 6),), "pad"),
    "pad_replicate3d": (lambda x: F.pad(x, (1,) * 6, mode="replicate"),
                        (r(1, 2, 3, 4, 5),), "pad"),
    "group_norm": (nn.GroupNorm(2, 4), (r(2, 4, 3, 3),), "group_norm"),
    "group_norm_plain": (nn.GroupNorm(2, 6, affine=False), (r(2, 6, 5),),
                         "group_norm"),
    "grid_sampler": (lambda x, g: F.grid_sample(x, g, mode="nearest",
                                                align_corners=True),
                     (r(1, 2, 5, 5), torch.rand(1, 3, 3, 2) * 2 - 1),
                     "grid_sampler"),
    # pooling
    "adaptive_max_pool1d": (nn.AdaptiveMaxPool1d(1), (r(1, 2, 6),),
                            "adaptive_max_pool1d", OWN_TYPES),
    "adaptive_max_pool2d": (nn.AdaptiveMaxPool2d((2, 3)), (r(1, 2, 4, 6),),
                            "adaptive_max_pool2d"),
    "adaptive_max_pool3d": (nn.AdaptiveMaxPool3d((1, 2, 2)),
                            (r(1, 2, 2, 4, 4),), "adaptive_max_pool3d"),
    "adaptive_max_pool2d_up": (nn.AdaptiveMaxPool2d((4, 6)),
                               (r(1, 2, 2, 3),), "adaptive_max_pool2d"),
    # a global adaptive pool runs as a mean, then on a channels-last input
    # an as_strided_ (a Reshape live): the archive's strides tell it
    # (ConvNeXt's head, after its permuted blocks)
    "adaptive_avg_pool2d_global": (
        lambda x: F.adaptive_avg_pool2d(x * 2, 1), (r(2, 4, 3, 5),),
        "adaptive_avg_pool2d"),
    "adaptive_avg_pool2d_channels_last": (
        ChannelsLastHead(), (r(2, 3, 5, 4),), "adaptive_avg_pool2d"),
    "_adaptive_avg_pool2d": (lambda x: A._adaptive_avg_pool2d(x, [2, 2]),
                             (r(1, 2, 4, 6),), "_adaptive_avg_pool2d"),
    "_adaptive_avg_pool3d": (lambda x: A._adaptive_avg_pool3d(x, [1, 1, 1]),
                             (r(1, 2, 2, 4, 6),), "_adaptive_avg_pool3d"),
    "max_pool1d_with_indices": (
        lambda x: A.max_pool1d_with_indices(x, [2], [2])[0],
        (r(1, 2, 6),), "max_pool1d_with_indices", OWN_TYPES),
    "max_pool3d_with_indices": (
        lambda x: A.max_pool3d_with_indices(x, [2, 2, 2], [1, 1, 1])[0],
        (r(1, 2, 4, 4, 4),), "max_pool3d_with_indices"),
    # convolution and normalisation
    "_convolution": (
        lambda x, w: A._convolution(x, w, None, [1, 1], [1, 1], [1, 1],
                                    False, [0, 0], 1, False, False, True,
                                    True),
        (r(1, 2, 5, 5), r(3, 2, 3, 3)), "_convolution"),
    "native_batch_norm": (
        lambda x, w, b, m, v: A.native_batch_norm(x, w, b, m, v, False, 0.1,
                                                  1e-5)[0],
        (r(2, 3, 4, 4), r(3), r(3), r(3), torch.rand(3)),
        "native_batch_norm"),
    "_native_batch_norm_legit": (
        lambda x, w, b, m, v: A._native_batch_norm_legit(
            x, w, b, m, v, False, 0.1, 1e-5)[0],
        (r(2, 3, 4, 4), r(3), r(3), r(3), torch.rand(3)),
        "_native_batch_norm_legit"),
    "native_group_norm": (
        lambda x, w, b: A.native_group_norm(x, w, b, 2, 4, 9, 2, 1e-5)[0],
        (r(2, 4, 3, 3), r(4), r(4)), "native_group_norm"),
    "native_group_norm_plain": (
        lambda x: A.native_group_norm(x, None, None, 2, 4, 9, 2, 1e-5)[0],
        (r(2, 4, 3, 3),), "native_group_norm"),
    "_weight_norm_interface": (
        lambda v, g: A._weight_norm_interface(v, g, 0)[0],
        (r(4, 3), r(4, 1)), "_weight_norm_interface"),
    # attention: the composite torch.export keeps, against what PyTorch's
    # CPU SDPA runs (the live side on meta would run the math kernel): the
    # flash kernel, which adds the mask to the scores (a boolean mask:
    # test_pt2_sdpa_bool_mask)
    "sdpa_float_mask": (
        lambda q, k, v, m: F.scaled_dot_product_attention(q, k, v,
                                                          attn_mask=m),
        (r(1, 2, 4, 8), r(1, 2, 6, 8), r(1, 2, 6, 8), r(1, 1, 4, 6)),
        "scaled_dot_product_attention",
        lambda q, k, v, m: A._scaled_dot_product_flash_attention_for_cpu(
            q, k, v, attn_mask=m)[0]),
    # x.T (Falcon's weights): every dim reversed, a permute live
    "numpy_T": (lambda x, w: torch.matmul(x, w.T), (r(2, 3, 4), r(5, 4)),
                "numpy_T"),
    # attention variants
    "_scaled_dot_product_flash_attention_for_cpu": (
        lambda q, k, v: A._scaled_dot_product_flash_attention_for_cpu(
            q, k, v, is_causal=True)[0],
        (r(1, 2, 4, 8), r(1, 2, 6, 8), r(1, 2, 6, 8)),
        "_scaled_dot_product_flash_attention_for_cpu"),
    "_scaled_dot_product_attention_math": (
        lambda q, k, v: A._scaled_dot_product_attention_math(
            q, k, v, scale=0.3)[0],
        (r(1, 2, 4, 8), r(1, 2, 6, 8), r(1, 2, 6, 8)),
        "_scaled_dot_product_attention_math",
        lambda q, k, v: A._scaled_dot_product_flash_attention_for_cpu(
            q, k, v, scale=0.3)[0]),
    "_scaled_dot_product_efficient_attention": (
        lambda q, k, v, m: A._scaled_dot_product_efficient_attention(
            q, k, v, m, False)[0],
        (r(1, 2, 4, 8), r(1, 2, 6, 8), r(1, 2, 6, 8), r(1, 2, 4, 6)),
        "_scaled_dot_product_efficient_attention"),
    "_scaled_dot_product_flash_attention": (
        lambda q, k, v: A._scaled_dot_product_flash_attention(
            q, k, v, is_causal=True)[0],
        (r(1, 2, 4, 8), r(1, 2, 6, 8), r(1, 2, 6, 8)),
        "_scaled_dot_product_flash_attention"),
    "_scaled_dot_product_cudnn_attention": (
        lambda q, k, v, m: A._scaled_dot_product_cudnn_attention(
            q, k, v, m, False)[0],
        (r(1, 2, 4, 8), r(1, 2, 6, 8), r(1, 2, 6, 8), r(1, 2, 4, 6)),
        "_scaled_dot_product_cudnn_attention"),
    # nn.MultiheadAttention's and nn.TransformerEncoderLayer's fast paths
    # (export spells the modules out; the kernels called as ops)
    "_native_multi_head_attention": (
        lambda x, wi, bi, wo, bo: A._native_multi_head_attention(
            x, x, x, 8, 2, wi, bi, wo, bo, need_weights=False)[0],
        (r(2, 4, 8), r(24, 8), r(24), r(8, 8), r(8)),
        "_native_multi_head_attention"),
    "_transformer_encoder_layer_fwd": (
        lambda x, wi, bi, wo, bo, l1, l2, w1, b1, w2, b2:
            A._transformer_encoder_layer_fwd(
                x, 8, 2, wi, bi, wo, bo, False, False, 1e-5, l1, l2, l1, l2,
                w1, b1, w2, b2),
        (r(2, 4, 8), r(24, 8), r(24), r(8, 8), r(8), r(8), r(8), r(16, 8),
         r(16), r(8, 16), r(8)),
        "_transformer_encoder_layer_fwd"),
    "_transformer_encoder_layer_fwd_norm_first": (
        lambda x, wi, bi, wo, bo, l1, l2, w1, b1, w2, b2:
            A._transformer_encoder_layer_fwd(
                x, 8, 2, wi, bi, wo, bo, True, True, 1e-5, l1, l2, l1, l2,
                w1, b1, w2, b2),
        (r(2, 4, 8), r(24, 8), r(24), r(8, 8), r(8), r(8), r(8), r(16, 8),
         r(16), r(8, 16), r(8)),
        "_transformer_encoder_layer_fwd"),
    # backward kernels
    "convolution_backward": (
        lambda g, x, w: A.convolution_backward(
            g, x, w, [3], [2, 2], [1, 1], [1, 1], False, [0, 0], 1,
            [True, True, True]),
        (r(1, 3, 3, 3), r(1, 2, 6, 6), r(3, 2, 3, 3)),
        "convolution_backward"),
    "slice_backward": (lambda g: A.slice_backward(g, [6, 4], 0, 1, 4, 1),
                       (r(3, 4),), "slice_backward"),
    "embedding_dense_backward": (
        lambda g, i: A.embedding_dense_backward(g, i, 10, -1, False),
        (r(2, 3, 4), ri(10, (2, 3))), "embedding_dense_backward"),
    "_adaptive_avg_pool2d_backward": (
        lambda g, x: A._adaptive_avg_pool2d_backward(g, x),
        (r(1, 2, 1, 1), r(1, 2, 4, 4)), "_adaptive_avg_pool2d_backward"),
    "max_pool2d_with_indices_backward": (
        lambda g, x, i: A.max_pool2d_with_indices_backward(
            g, x, [2, 2], [2, 2], [0, 0], [1, 1], False, i),
        (r(1, 2, 2, 2), r(1, 2, 4, 4), ri(16, (1, 2, 2, 2))),
        "max_pool2d_with_indices_backward"),
    "native_batch_norm_backward": (
        lambda g, x, w, m, v: A.native_batch_norm_backward(
            g, x, w, m, v, None, None, False, 1e-5, [True, True, True]),
        (r(2, 3, 4, 4), r(2, 3, 4, 4), r(3), r(3), torch.rand(3)),
        "native_batch_norm_backward"),
    "native_layer_norm_backward": (
        lambda g, x, m, s, w, b: A.native_layer_norm_backward(
            g, x, [4], m, s, w, b, [True, True, True]),
        (r(2, 3, 4), r(2, 3, 4), r(2, 3, 1), r(2, 3, 1), r(4), r(4)),
        "native_layer_norm_backward"),
}


# Complex values (aten_complex.c): in real form, live and in the archive.
# LLaMA-1's rotary embedding: x's pairs as complex numbers times freqs_cis
# (complex, from polar), sliced to the sequence and viewed to broadcast,
# back to real pairs. freqs_cis a complex buffer (complex-typed: read as
# pairs) or made in the forward by polar (in real form throughout).
class Rope(nn.Module):
    def __init__(self, dim=8, end=32, buffer=True):
        super().__init__()
        f = 1.0 / (10000 ** (torch.arange(0, dim, 2).float() / dim))
        f = torch.outer(torch.arange(end).float(), f)
        self.buffer = buffer
        if buffer:
            self.register_buffer("freqs_cis",
                                 torch.polar(torch.ones_like(f), f))
        else:
            self.register_buffer("freqs", f)

    def forward(self, xq, xk):
        T = xq.shape[1]
        if self.buffer:
            fc = self.freqs_cis[:T]
        else:
            f = self.freqs[:T]
            fc = torch.polar(torch.ones_like(f), f)
        xq_ = torch.view_as_complex(xq.float().reshape(*xq.shape[:-1], -1, 2))
        xk_ = torch.view_as_complex(xk.float().reshape(*xk.shape[:-1], -1, 2))
        shape = [d if i in (1, xq_.ndim - 1) else 1
                 for i, d in enumerate(xq_.shape)]
        fc = fc.view(*shape)
        xq_out = torch.view_as_real(xq_ * fc).flatten(3)
        xk_out = torch.view_as_real(xk_ * fc).flatten(3)
        return xq_out.type_as(xq), xk_out.type_as(xk)


def _cplx(x):
    return torch.view_as_complex(x)


CASES.update({
    "view_as_complex": (lambda x: torch.view_as_real(_cplx(x) * 2),
                        (r(3, 4, 2),), "view_as_complex"),
    "view_as_real": (lambda x: torch.view_as_real(_cplx(x)) + 1,
                     (r(3, 4, 2),), "view_as_real"),
    "polar": (lambda a, t: torch.view_as_real(torch.polar(a, t)),
              (torch.rand(3, 4), r(3, 4)), "polar"),
    "complex_mul": (lambda x, y: torch.view_as_real(_cplx(x) * _cplx(y)),
                    (r(3, 4, 2), r(4, 2)), "mul"),
    "complex_mul_real": (lambda x, y: torch.view_as_real(_cplx(x) * y),
                         (r(3, 4, 2), r(3, 4)), "mul"),
    "complex_view_slice": (
        lambda x: torch.view_as_real(_cplx(x)[1:].reshape(2, 2, 2) * 3),
        (r(3, 4, 2),), "view_as_complex"),
    # abs of a complex value is its modulus (real); expand and _to_copy
    # take one in real form (the layout on the real form, a Cast of it, a
    # real value made complex with a zero half)
    "complex_abs": (lambda x: _cplx(x).abs() * 2, (r(3, 4, 2),), "abs"),
    "complex_expand": (
        lambda x: torch.view_as_real(_cplx(x).expand(3, 4) * 2),
        (r(1, 4, 2),), "expand"),
    "complex_to_copy": (
        lambda x: torch.view_as_real(_cplx(x).to(torch.complex128) * 2),
        (r(3, 4, 2),), "to"),
    "real_to_complex": (
        lambda x, y: torch.view_as_real(x.to(torch.complex64) * _cplx(y)),
        (r(3, 4), r(3, 4, 2)), "to"),
    "rope_llama1_buffer": (Rope(), (r(2, 16, 2, 8), r(2, 16, 2, 8)),
                           "view_as_complex"),
    "rope_llama1_polar": (Rope(buffer=False),
                          (r(2, 16, 2, 8), r(2, 16, 2, 8)), "polar"),
    # torch.fft.* stay composites in an archive (fft_fft, ...), lowered as
    # the kernel each runs live (_fft_r2c, _fft_c2c) with the normalization
    # PyTorch picks from `norm`
    "fft_fft": (lambda x: torch.view_as_real(torch.fft.fft(x)),
                (r(3, 8),), "fft_fft"),
    "fft_fft_complex": (
        lambda x: torch.view_as_real(torch.fft.fft(_cplx(x), norm="forward")),
        (r(3, 8, 2),), "fft_fft"),
    # a size: the input sliced (smaller) or padded at the end (larger)
    # first, as resize_fft_input does
    "fft_rfft_n_pad": (lambda x: torch.view_as_real(torch.fft.rfft(x, n=12)),
                       (r(3, 8),), "fft_rfft"),
    "fft_rfft_n_slice": (
        lambda x: torch.view_as_real(torch.fft.rfft(x, n=5)),
        (r(3, 8),), "fft_rfft"),
    "fft_fft_n_real": (lambda x: torch.view_as_real(torch.fft.fft(x, n=10)),
                       (r(3, 8),), "fft_fft"),
    "fft_fft_n_complex": (
        lambda x: torch.view_as_real(torch.fft.fft(_cplx(x), n=6)),
        (r(3, 8, 2),), "fft_fft"),
    "fft_rfft2_s": (lambda x: torch.view_as_real(torch.fft.rfft2(
        x, s=(3, 8))), (r(2, 4, 6),), "fft_rfft2"),
    "fft_fftn_s": (lambda x: torch.view_as_real(torch.fft.fftn(
        _cplx(x), s=(3, 5))), (r(2, 4, 6, 2),), "fft_fftn"),
    "fft_ifft": (lambda x: torch.view_as_real(torch.fft.ifft(_cplx(x))),
                 (r(3, 8, 2),), "fft_ifft"),
    "fft_rfft": (lambda x: torch.view_as_real(torch.fft.rfft(x, norm="ortho")),
                 (r(3, 8),), "fft_rfft"),
    "fft_rfft2": (lambda x: torch.view_as_real(torch.fft.rfft2(x)),
                  (r(2, 4, 6),), "fft_rfft2"),
    "fft_fftn": (lambda x: torch.view_as_real(
        torch.fft.fftn(_cplx(x), dim=(1, 2))), (r(2, 4, 6, 2),), "fft_fftn"),
    "fft_ifft2": (lambda x: torch.view_as_real(torch.fft.ifft2(_cplx(x))),
                  (r(2, 4, 6, 2),), "fft_ifft2"),
    # a real signal's 2-D / n-D fft or inverse: made complex first
    # (promote_tensor_fft), then _fft_c2c; FNet's mixing takes .real of it
    "fft_fftn_real_signal": (
        lambda x: torch.fft.fftn(x, dim=(1, 2)).real, (r(2, 4, 6),),
        "fft_fftn"),
    "fft_fft2_real_signal_imag": (
        lambda x: torch.fft.fft2(x).imag, (r(2, 4, 6),), "fft_fft2"),
    "fft_ifftn_real_signal": (
        lambda x: torch.view_as_real(torch.fft.ifftn(x, dim=(1, 2),
                                                    norm="ortho")),
        (r(2, 4, 6),), "fft_ifftn"),
    # the kernels called as ops
    "_fft_r2c": (lambda x: torch.view_as_real(A._fft_r2c(x, [1], 0, True)),
                 (r(3, 8),), "_fft_r2c"),
    "_fft_r2c_full_ortho": (
        lambda x: torch.view_as_real(A._fft_r2c(x, [1, 2], 1, False)),
        (r(2, 4, 6),), "_fft_r2c"),
    "_fft_c2c": (
        lambda x: torch.view_as_real(A._fft_c2c(_cplx(x), [-1], 0, True)),
        (r(3, 8, 2),), "_fft_c2c"),
    "_fft_c2c_inverse": (
        lambda x: torch.view_as_real(A._fft_c2c(_cplx(x), [1, -1], 2, False)),
        (r(3, 4, 8, 2),), "_fft_c2c"),
    "_fft_c2c_forward_scaled": (
        lambda x: torch.view_as_real(A._fft_c2c(_cplx(x), [1], 2, True)),
        (r(3, 8, 2),), "_fft_c2c"),
})


class Call(nn.Module):
    def __init__(self, f):
        super().__init__()
        self.f = f

    def forward(self, *args):
        return self.f(*args)


def report(name, tmp_path):
    f, args, op = CASES[name][:3]
    ref = CASES[name][3] if len(CASES[name]) > 3 else None
    torch.manual_seed(0)
    model = f if isinstance(f, nn.Module) else Call(f)
    ep = torch.export.export(model, args)
    targets = {n.target.__name__.split(".")[0] for n in ep.graph.nodes
               if n.op == "call_function" and hasattr(n.target, "__name__")}
    assert op in targets, targets  # the archive holds the op itself
    path = str(tmp_path / f"{name}.pt2")
    save_program(ep, path)
    out = subprocess.run([cli(), "summary", path, "--format", "json"],
                         capture_output=True, text=True, check=True)
    doc = json.loads(out.stdout)
    live_model = Call(ref) if callable(ref) else model
    live = json.loads(nnscan.summary(live_model, inputs=args, file=False)
                      .to_json())
    return doc, live, model, args


# Totals that name a node (peak_node) or are trees of their own are
# compared apart or not at all; every number is compared.
NAMED = {"peak_node"}


def numbers(d):
    return {k: v for k, v in d.items()
            if k not in NAMED and not isinstance(v, (dict, list))}


def by_type(doc):
    return {(r["domain"], r["op_type"]): numbers(r) for r in doc["op_types"]}


# nonzero and unique have no meta kernel: the live recording runs the
# module once on its own device, and says so
@pytest.mark.filterwarnings("ignore:nnscan. the forward cannot run on meta")
@pytest.mark.parametrize("name", sorted(CASES))
def test_pt2_op_counts_equal_live(name, tmp_path):
    doc, live, _, _ = report(name, tmp_path)
    assert doc["uncounted_ops"] == [] and doc["unknown_ops"] == []
    assert live["uncounted_ops"] == [] and live["unknown_ops"] == []
    if len(CASES[name]) > 3 and CASES[name][3] == DATA:
        assert set(by_type(doc)) == set(by_type(live))
    if len(CASES[name]) > 3 and CASES[name][3] in (DECOMPOSED, DATA):
        for key in ("params", "flops", "macs"):
            assert doc["totals"][key] == live["totals"][key], key
        return
    if len(CASES[name]) > 3 and CASES[name][3] == OWN_TYPES:
        layout = {("", "Reshape"), ("", "Unsqueeze"), ("", "Squeeze")}
        got, want = by_type(doc), by_type(live)
        assert {k: v for k, v in got.items() if k not in layout} == \
            {k: v for k, v in want.items() if k not in layout}
        for key in ("params", "flops", "macs"):
            assert doc["totals"][key] == live["totals"][key], key
        return
    assert numbers(doc["totals"]) == numbers(live["totals"])
    assert by_type(doc) == by_type(live)


CASES_APART = {"sdpa_one_kv_head": (
    lambda q, k, v: F.scaled_dot_product_attention(q, k, v),
    (r(1, 4, 6, 8), r(1, 1, 6, 8), r(1, 1, 6, 8)),
    "scaled_dot_product_attention")}
SDPA_BOOL = {"sdpa_bool_mask": (
    lambda q, k, v, m: F.scaled_dot_product_attention(q, k, v, attn_mask=m),
    (r(1, 2, 4, 8), r(1, 2, 6, 8), r(1, 2, 6, 8), torch.rand(4, 6) > 0.3),
    "scaled_dot_product_attention",
    lambda q, k, v, m: A._scaled_dot_product_flash_attention_for_cpu(
        q, k, v, attn_mask=torch.where(m, torch.scalar_tensor(0.0),
                                       torch.scalar_tensor(-math.inf)))[0])}


def test_pt2_sdpa_bool_mask(tmp_path, monkeypatch):
    """A boolean mask is made additive first, at its own sizes, as
    PyTorch's CPU SDPA does before its fused kernel (attention.cpp's
    convert_boolean_attn_mask: where(mask, 0, -inf)), then added to the
    scores in the kernel. Every count equal to the recording of that;
    but the archive holds no mask contents (a graph input), which the
    live recording tracks: its unmasked figures are partial, and say so."""
    monkeypatch.setitem(CASES, "sdpa_bool_mask", SDPA_BOOL["sdpa_bool_mask"])
    doc, live, _, _ = report("sdpa_bool_mask", tmp_path)
    assert doc["uncounted_ops"] == [] and live["uncounted_ops"] == []
    got, want = numbers(doc["totals"]), numbers(live["totals"])
    assert got.pop("unmasked_status") == "partial"
    assert want.pop("unmasked_status", "complete") == "complete"
    assert got == want
    rows, live_rows = by_type(doc), by_type(live)
    for row in rows.values():
        row.pop("unmasked_status", None)
    for row in live_rows.values():
        row.pop("unmasked_status", None)
    assert rows == live_rows
    assert ("", "Where") in rows


def products(doc):
    """MACs of the convolutions and matrix products (the norms count MACs
    of their own, which neither reference has)."""
    return sum(r["macs"] for r in doc["op_types"] if r["op_type"] in
               ("Conv", "ConvTranspose", "MatMul"))


def flop_counter_macs(model, args):
    from torch.utils.flop_counter import FlopCounterMode
    with torch.no_grad(), FlopCounterMode(display=False) as fc:
        model(*args)
    return fc.get_total_flops() // 2


@pytest.mark.parametrize("name", ["_convolution", "convolution_backward",
                                  "_scaled_dot_product_attention_math"])
def test_pt2_conv_and_attention_macs_as_flop_counter(name, tmp_path):
    doc, _, model, args = report(name, tmp_path)
    assert doc["totals"]["macs"] > 0
    assert products(doc) == flop_counter_macs(model, args)


# FlopCounterMode has no formula for _grouped_mm and the fused transformer
# kernels: by hand. _grouped_mm: every row of a meets one expert (rows x K
# x N), every column of the shared dim one group (M x S x N), a batch of
# products (E x M x K x N). Attention over x [B=2, L=4, E=8], 2 heads of
# d=4: in-projection B L E 3E, q k^T and p v B h L L d each, out-projection
# B L E E; the encoder layer adds its feed-forward B L E F twice (F=16).
MHA = 2 * 4 * 8 * 24 + 2 * (2 * 2 * 4 * 4 * 4) + 2 * 4 * 8 * 8


@pytest.mark.parametrize("name,macs", [
    ("_grouped_mm_batched", 3 * 8 * 8 * 16),
    ("_grouped_mm_experts", 10 * 8 * 16),
    ("_grouped_mm_weight_grad", 8 * 16 * 8),
    ("_native_multi_head_attention", MHA),
    ("_transformer_encoder_layer_fwd", MHA + 2 * (2 * 4 * 8 * 16)),
    ("_transformer_encoder_layer_fwd_norm_first",
     MHA + 2 * (2 * 4 * 8 * 16))])
def test_pt2_products_macs_by_hand(name, macs, tmp_path):
    doc, _, _, _ = report(name, tmp_path)
    assert products(doc) == macs


# A dynamic batch: the archive's sizes hold a symbol there, which the CLI
# fixes with --input; the table's rules that need sizes make them from the
# symbol (Resize's sizes, GroupNorm's shape back) or copy it (a Reshape's
# 0). The shape arithmetic adds nodes of its own (Shape, Gather, Concat),
# so params, MACs and FLOPs are compared.
DYNAMIC = {
    "upsample_nearest2d": (lambda x: F.interpolate(x, scale_factor=2),
                           (r(2, 2, 4, 4),)),
    "upsample_bilinear2d": (lambda x: F.interpolate(x, size=(7, 9),
                                                    mode="bilinear"),
                            (r(2, 2, 4, 4),)),
    "group_norm": (nn.GroupNorm(2, 4), (r(2, 4, 3, 3),)),
    "native_group_norm": (
        lambda x, w, b: A.native_group_norm(x, w, b, x.shape[0], 4, 9, 2,
                                            1e-5)[0],
        (r(2, 4, 3, 3), r(4), r(4))),
    "adaptive_max_pool2d": (nn.AdaptiveMaxPool2d((2, 3)), (r(2, 2, 4, 6),)),
    "adaptive_max_pool2d_up": (nn.AdaptiveMaxPool2d((4, 6)),
                               (r(2, 2, 2, 3),)),
    "roll": (lambda x: x.roll((1, -2), (1, 2)), (r(2, 3, 4),)),
    "fft_fftn_real_signal": (lambda x: torch.fft.fftn(x, dim=(1, 2)).real,
                             (r(2, 4, 6),)),
}


@pytest.mark.parametrize("name", sorted(DYNAMIC))
def test_pt2_dynamic_batch_counts_equal_live(name, tmp_path):
    f, args = DYNAMIC[name]
    torch.manual_seed(0)
    model = f if isinstance(f, nn.Module) else Call(f)
    batch = torch.export.Dim("batch", min=2, max=64)
    dyn = tuple({0: batch} if k == 0 else None for k in range(len(args)))
    if not isinstance(f, nn.Module):  # Call.forward(*args)
        dyn = {"args": dyn}
    ep = torch.export.export(model, args, dynamic_shapes=dyn)
    path = str(tmp_path / f"{name}.pt2")
    torch.export.save(ep, path)
    cmd = [cli(), "summary", path, "--format", "json"]
    plain = json.loads(subprocess.run(cmd, capture_output=True, text=True,
                                      check=True).stdout)
    assert isinstance(plain["inputs"][0]["shape"][0], str)  # a symbol
    assert plain["uncounted_ops"] == []
    first = ep.graph_signature.user_inputs[0]
    cmd += ["--input", first + "=" + "x".join(str(d) for d in args[0].shape)]
    doc = json.loads(subprocess.run(cmd, capture_output=True, text=True,
                                    check=True).stdout)
    assert doc["uncounted_ops"] == [] and doc["unknown_ops"] == []
    assert doc["symbols_taken_as_1"] is False
    live = nnscan.summary(model, inputs=args, file=False).totals
    for key in ("params", "macs", "flops"):
        assert doc["totals"][key] == live[key], key


# masked_scatter (vision-language models merging image features into the
# text embeddings): how many source elements land is the mask's contents,
# which an archive does not hold. The live recording counts it from the
# mask's value; the archive's report lists the op as uncounted, its sizes
# declared, never a guessed count.
def test_pt2_masked_scatter_uncounted(tmp_path):
    def f(x, m, s):
        return x.masked_scatter(m, s) * 2
    args = (r(2, 3, 4), torch.rand(2, 3, 1) > 0.5, r(24))
    ep = torch.export.export(Call(f), args)
    path = str(tmp_path / "masked_scatter.pt2")
    torch.export.save(ep, path)
    out = subprocess.run([cli(), "summary", path, "--format", "json"],
                         capture_output=True, text=True, check=True)
    doc = json.loads(out.stdout)
    assert "masked_scatter" in json.dumps(doc["uncounted_ops"])
    assert ("", "Mul") in by_type(doc)  # what follows keeps its sizes
    live = json.loads(nnscan.summary(Call(f), inputs=args, file=False)
                      .to_json())
    assert "masked_scatter" not in json.dumps(live["uncounted_ops"])


# A complex product by hand: 4 multiplies and 2 adds per complex element
# (x [3, 4] complex times y [4] complex broadcast: 12 elements); the views
# and the halves' Split and Concat move data only.
def test_pt2_complex_mul_flops_by_hand(tmp_path):
    doc, _, _, _ = report("complex_mul", tmp_path)
    assert doc["totals"]["flops"] == 6 * 3 * 4


# LLaMA-1's rotary embedding by hand: q and k [2, 16, 2, 8] as [2, 16, 2, 4]
# complex values, each times freqs_cis (a complex buffer, read as pairs):
# 6 FLOPs per complex element, nothing else counts.
def test_pt2_rope_flops_by_hand(tmp_path):
    doc, _, _, _ = report("rope_llama1_buffer", tmp_path)
    assert doc["totals"]["flops"] == 2 * 6 * (2 * 16 * 2 * 4)


def test_einsum_kept_whole(tmp_path):
    """einsum, which an archive keeps whole (MaxViT's relative attention)
    and a live recording sees as the matrix products PyTorch runs: one
    Einsum whose MACs equal FlopCounterMode's and the live summary's,
    2*3*4*5*6 = 720 by hand; nothing uncounted."""
    from torch.utils.flop_counter import FlopCounterMode
    model = lambda a, b: torch.einsum("bij,bjk->bik", a, b) * 2  # noqa
    args = (r(2, 3, 4 * 5), r(2, 4 * 5, 6))
    ep = torch.export.export(Call(model), args)
    assert "einsum" in str(ep.graph)
    doc = archive_json(ep, tmp_path, "einsum")
    assert doc["uncounted_ops"] == [] and doc["unknown_ops"] == []
    with FlopCounterMode(display=False) as fc:
        model(*args)
    live = nnscan.summary(Call(model), inputs=args, file=False).totals
    assert doc["totals"]["macs"] == fc.get_total_flops() // 2 == \
        live["macs"] == 2 * 3 * 20 * 6


def test_index_broadcast_expands_only_what_differs(tmp_path):
    """Index tensors of two shapes, one already their broadcast shape
    (BART's mask code: a [1,1,1,1] and a [1,1,1,8] index): only the other
    is expanded, as the live recording does: one Expand, the same DMAs
    and FLOPs. (The live recording knows these small integer tensors'
    values and the archive does not, so its bytes may differ.)"""
    args = (torch.rand(1, 8) > 0.5, torch.zeros(1, 1, 1, 1, dtype=torch.long),
            torch.arange(8).view(1, 1, 1, 8))
    model = Call(lambda x, a, b: x[a, b].float() * 2)
    doc = archive_json(torch.export.export(model, args), tmp_path, "index")
    live = json.loads(nnscan.summary(model, inputs=args, file=False)
                      .to_json())
    assert doc["uncounted_ops"] == []
    assert by_type(doc)[("", "Expand")]["nodes"] == 1
    for key in ("flops", "macs", "dmas"):
        assert doc["totals"][key] == live["totals"][key], key


def test_pt2_sdpa_one_kv_head(tmp_path, monkeypatch):
    """One key/value head for four query heads (Falcon's multi-query) is
    broadcast by the products: QK^T 4*6*6*8 and AV 4*6*6*8 MACs, by hand
    and as the live recording counts them. (Live, PyTorch's CPU picks the
    math kernel for broadcast heads, which scales q and k, 240 FLOPs,
    where the archive's SDPA scales the scores, 144: FLOPs differ by
    that, MACs do not.)"""
    monkeypatch.setitem(CASES, "sdpa_one_kv_head",
                        CASES_APART["sdpa_one_kv_head"])
    doc, live, _, _ = report("sdpa_one_kv_head", tmp_path)
    assert doc["uncounted_ops"] == [] and doc["unknown_ops"] == []
    assert doc["totals"]["macs"] == 2 * 4 * 6 * 6 * 8
    assert doc["totals"]["macs"] == live["totals"]["macs"]


@pytest.mark.parametrize("kv_heads", [1, 2])
def test_pt2_sdpa_grouped_heads(kv_heads, tmp_path, monkeypatch):
    """Grouped-query attention in an archive (enable_gqa: 2 key/value
    heads for 4 query heads; 1 for all, multi-query): the query heads
    grouped by the key/value head they share, so the products broadcast
    with no copy of k and v. MACs by hand (QK^T and AV, 4*6*6*8 each),
    and every count equal to the live recording of the fused kernel a
    CPU runs for it, which the recorder lowers through the same entry."""
    monkeypatch.setitem(CASES, "sdpa_gqa", (
        lambda q, k, v: F.scaled_dot_product_attention(q, k, v,
                                                       enable_gqa=True),
        (r(1, 4, 6, 8), r(1, kv_heads, 6, 8), r(1, kv_heads, 6, 8)),
        "scaled_dot_product_attention",
        lambda q, k, v: A._scaled_dot_product_flash_attention_for_cpu(
            q, k, v)[0]))
    doc, live, _, _ = report("sdpa_gqa", tmp_path)
    assert doc["uncounted_ops"] == [] and doc["unknown_ops"] == []
    assert doc["totals"]["macs"] == 2 * 4 * 6 * 6 * 8
    assert numbers(doc["totals"]) == numbers(live["totals"])
    assert by_type(doc) == by_type(live)
    assert by_type(doc)[("", "Reshape")]["nodes"] == 4  # q, k, v, out
