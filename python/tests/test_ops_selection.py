"""The selection, indexing, routing and normalisation ops transformers and
detection/segmentation models dispatch (issue 16), on PyTorch 1.13 and 2.x.

Each op runs in a small module; checked against PyTorch: the op has an
entry (nothing uncounted), the library infers the very shapes PyTorch
produced for every node (no ShapeMismatch), and, where the count is easy
by hand from docs/metrics.md, the count itself.
"""
import warnings

import pytest

torch = pytest.importorskip("torch")
nn = torch.nn
F = torch.nn.functional

import nnscan  # noqa: E402
from nnscan.torch_api import ShapeMismatch  # noqa: E402


class Fn(nn.Module):
    def __init__(self, fn):
        super().__init__()
        self.fn = fn

    def forward(self, *xs):
        return self.fn(*xs)


def record(fn, *inputs, module=None):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        s = nnscan.summary(module or Fn(fn), inputs=tuple(inputs), file=False)
    bad = [str(w.message) for w in caught if issubclass(w.category, ShapeMismatch)]
    assert bad == []
    assert s.uncounted_aten == {}
    assert s.totals["complete"]
    return s


X = torch.arange(60, dtype=torch.float32).reshape(3, 4, 5)
IDS = torch.tensor([[2, 0, 1, 3], [1, 1, 0, 2]])

CASES = {
    "topk": lambda x: torch.topk(x, 2, dim=-1),
    "sort": lambda x: torch.sort(x, dim=1, descending=True),
    "argsort": lambda x: torch.argsort(x, dim=-1),
    "argmax": lambda x: torch.argmax(x, dim=1, keepdim=True),
    "argmax_flat": lambda x: torch.argmax(x),
    "argmin": lambda x: torch.argmin(x, dim=0),
    "max_dim": lambda x: torch.max(x, dim=2),
    "max_all": lambda x: torch.max(x),
    "min_other": lambda x: torch.min(x, x.flip(0)),
    "flip": lambda x: torch.flip(x, (0, 2)),
    "gather": lambda x: torch.gather(x, 2, torch.zeros(3, 4, 2, dtype=torch.long)),
    "index_two_leading": lambda x: x[torch.tensor([0, 2]), torch.tensor([1, 3])],
    "index_adjacent_inner": lambda x: x[:, torch.tensor([[0, 1]]),
                                        torch.tensor([[4], [2]])],
    "index_apart": lambda x: x[torch.tensor([0, 2]), :, torch.tensor([1, 3])],
    "index_select": lambda x: torch.index_select(x, 1, torch.tensor([3, 0])),
    "var": lambda x: torch.var(x, dim=-1),
    "var_unbiased_false_keepdim": lambda x: x.var(1, False, True),
    "std_all": lambda x: torch.std(x),
    "std_correction": lambda x: torch.std(x, dim=(0, 2), correction=0),
    "var_mean": lambda x: torch.var_mean(x, dim=1),
    "std_mean_keepdim": lambda x: torch.std_mean(x, dim=-1, keepdim=True),
    "erfinv": lambda x: torch.erfinv(x / 100),
    "reflection_pad1d": lambda x: F.pad(x, (2, 1), mode="reflect"),
    "reflection_pad2d": lambda x: F.pad(x[None], (1, 2, 3, 0),
                                        mode="reflect"),
    "replication_pad2d": lambda x: F.pad(x[None], (2, 2, 1, 0),
                                         mode="replicate"),
    "replication_pad3d": lambda x: F.pad(x[None, None], (1, 0, 1, 1, 0, 2),
                                         mode="replicate"),
    "log_sigmoid": lambda x: F.logsigmoid(x),
    "bucketize": lambda x: torch.bucketize(x, torch.tensor([3.0, 10, 40])),
    "bucketize_int32_right": lambda x: torch.bucketize(
        x, torch.tensor([3.0, 10]), out_int32=True, right=True),
    "searchsorted": lambda x: torch.searchsorted(
        torch.tensor([0.0, 5, 20, 50]), x.flatten()),
    "nonzero": lambda x: torch.nonzero(x[0] > 7),
    "argwhere": lambda x: torch.argwhere(x > 40),
    "nonzero_as_tuple": lambda x: torch.nonzero(x[1] % 3 == 0, as_tuple=True),
    "repeat_interleave_tensor": lambda x: torch.repeat_interleave(
        x, torch.tensor([2, 0, 3]), dim=0),
    "repeat_interleave_int": lambda x: x.repeat_interleave(2, dim=2),
    "repeat_interleave_flat": lambda x: torch.repeat_interleave(x[0], 3),
    "repeat_interleave_indices": lambda x: torch.repeat_interleave(
        torch.tensor([1, 0, 4])) + x.sum().long(),
    "repeat": lambda x: x.repeat(2, 1, 3),
    "repeat_more_dims": lambda x: x.repeat(2, 1, 1, 2),
    "floor_divide": lambda x: torch.floor_divide(x, 3.0),
    "floor_divide_int": lambda x: torch.arange(12).reshape(3, 4) // 5 + x.sum(),
    "remainder": lambda x: torch.remainder(x, 7.0),
    "clamp_tensor": lambda x: torch.clamp(x, min=x[0], max=x[1] + 5),
    "bitwise_not": lambda x: ~(x > 3),
    "expm1_log1p": lambda x: torch.expm1(x) + torch.log1p(x),
    "acos": lambda x: torch.acos(x / 100),
    "logsumexp": lambda x: torch.logsumexp(x, dim=-1),
    "scatter": lambda x: torch.zeros(3, 4, 5).scatter(
        2, torch.zeros(3, 4, 1, dtype=torch.long), x[..., :1]),
    "scatter_add": lambda x: torch.zeros(3, 4, 5).scatter_add(
        1, torch.zeros(3, 2, 5, dtype=torch.long), x[:, :2]),
    "scatter_reduce_amax": lambda x: torch.zeros(3, 4, 5).scatter_reduce(
        2, torch.zeros(3, 4, 2, dtype=torch.long), x[..., :2], "amax"),
    "scatter_reduce_amin_ints": lambda x: torch.arange(6).scatter_reduce(
        0, torch.tensor([1, 1, 4]), torch.tensor([0, 9, 2]), "amin",
        include_self=True) + x.sum().long(),
    # Longformer's overlapping chunks: windows of 20 every 10 elements
    "as_strided_overlapping": lambda x: x.flatten().as_strided((5, 20),
                                                               (10, 1)),
    # Tensor.unfold: windows of 2 every 2 along dim 1 (Idefics3's patch
    # mask), a strided view
    "tensor_unfold": lambda x: x.unfold(1, 2, 2).sum(-1),
    "glu": lambda x: nn.functional.glu(x, dim=1),
    # a static KV cache's update: slices along a dim replaced
    "index_copy": lambda x: torch.zeros(3, 6, 5).index_copy(
        1, torch.tensor([0, 3, 5, 1]), x),
    "index_copy_dim0": lambda x: torch.zeros(5, 4, 5).index_copy(
        0, torch.tensor([4, 0, 2]), x),
    # a boolean mask over the leading dims: rows picked, written, and
    # (vision-language models) source elements scattered in order
    "mask_rows": lambda x: x[x[..., 0] > 22],
    "mask_rows_written": lambda x: x.clone().index_put(
        (x[..., 0] > 22,), x[x[..., 0] > 22] * 2),
    # 2.x's check of a boolean (aten._is_all_true); 1.13 has all()
    "is_all_true": lambda x: getattr(torch.ops.aten, "_is_all_true",
                                     torch.all)(x > -1),
    "index_add": lambda x: torch.zeros(5, 4, 5).index_add(
        0, torch.tensor([4, 0, 4]), x),
    "aminmax": lambda x: torch.aminmax(x, dim=1),
    "all_any": lambda x: torch.all(x > 3, dim=1) | (x > 50).any(),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_op_has_an_entry_and_pytorchs_shapes(name):
    record(CASES[name], X)


def index_put_rows(x):
    y = torch.zeros(6, 5)
    y[torch.tensor([4, 1])] = x[0, :2]
    return y


def index_put_accumulate(x):
    y = torch.zeros(6, 5)
    return y.index_put((torch.tensor([1, 1, 3]),), x[0, :3], accumulate=True)


def index_put_two(x):
    y = x.clone()
    y[torch.tensor([0, 2]), torch.tensor([1, 3])] = torch.ones(5)
    return y


def index_put_mask_scalar(x):
    y = x.clone()
    y[x > 30] = 0.0
    return y


def index_put_mask_row(x):
    y = x.clone()
    y[x[..., 0] > 30] = torch.ones(5)
    return y


@pytest.mark.parametrize("fn", [index_put_rows, index_put_accumulate,
                                index_put_two, index_put_mask_scalar,
                                index_put_mask_row])
def test_index_put(fn):
    record(fn, X)


def test_topk_count_by_hand():
    """TopK is a partial selection sort (docs/metrics.md): k n - k (k - 1) / 2
    comparisons per slice; here 8 x 3 slices of n = 10, k = 3."""
    s = record(lambda x: torch.topk(x, 3, dim=-1)[0], torch.zeros(8, 3, 10))
    assert s.totals["flops"] == 8 * 3 * (3 * 10 - 3)


def test_histc_count_by_hand():
    """histc as a naive histogram: per element a Sub, a Mul, a Floor (one
    FLOP each) and one add into its bin (ScatterElements' reduction)."""
    n = 7 * 4
    s = record(lambda x: torch.histc(x, bins=5, min=0, max=4),
               torch.rand(7, 4) * 4)
    assert s.totals["flops"] == 4 * n
    assert s.layers[0]["output"]["shape"] == [5]


@pytest.mark.parametrize("batched", [True, False])
def test_unfold_moves_what_pytorch_returns(batched):
    """F.unfold (aten.im2col) is data movement: no FLOPs, and its output
    is exactly PyTorch's ([N,] C*kh*kw, L): here kernel 3 x 2, padding
    (1, 0), stride (1, 2) on 6 x 8 gives 6 x 4 = 24 positions."""
    x = torch.randn(2, 3, 6, 8) if batched else torch.randn(3, 6, 8)
    unfold = nn.Unfold(kernel_size=(3, 2), padding=(1, 0), stride=(1, 2))
    s = record(None, x, module=unfold)
    assert s.totals["flops"] == 0
    assert s.layers[0]["output"]["shape"] == list(unfold(x).shape)
    assert list(unfold(x).shape[-2:]) == [18, 24]


@pytest.mark.parametrize("mode,per", [("bilinear", 8), ("nearest", 0),
                                      ("bicubic", 32)])
def test_grid_sample_count_by_hand(mode, per):
    """F.grid_sample (aten.grid_sampler_2d) is ONNX GridSample: per output
    element and spatial axis, 4 FLOPs for linear taps, 16 for cubic, none
    for nearest (docs/metrics.md, Resize and GridSample)."""
    x, grid = torch.randn(2, 3, 6, 8), torch.rand(2, 4, 5, 2) * 2 - 1
    s = record(lambda a, g: nn.functional.grid_sample(
        a, g, mode=mode, padding_mode="border", align_corners=False), x, grid)
    assert s.layers[0]["output"]["shape"] == [2, 3, 4, 5]
    assert s.totals["flops"] == per * 2 * 3 * 4 * 5


def test_prod_count_by_hand():
    """torch.prod is ReduceProd: one multiply per input element, over a
    dim and over all."""
    s = record(lambda x: torch.prod(x, dim=1).sum() + x.prod(), X)
    assert s.uncounted_aten == {}
    ops = {o["op_type"]: o for o in s.json["op_types"]}
    assert ops["ReduceProd"]["flops"] == 2 * X.numel()


def test_weight_norm_count_by_hand():
    """nn.utils.weight_norm's weight, recomputed each forward
    (aten._weight_norm_interface on the CPU): the norm of v over all but
    dim 0 (ReduceL2: 2 numel(v) + 6 FLOPs, docs/metrics.md), g / norm (6)
    and v times that (numel(v)); the parameters are g and v."""
    conv = nn.utils.weight_norm(nn.Conv1d(4, 6, 3))
    s = record(None, torch.randn(2, 4, 10), module=conv)
    v = 6 * 4 * 3
    ops = {o["op_type"]: o["flops"] for o in s.json["op_types"]}
    assert ops["ReduceL2"] == 2 * v + 6
    assert ops["Div"] == 6
    assert ops["Mul"] == v
    assert s.totals["params"] == sum(p.numel() for p in conv.parameters())


class ImageTokens(nn.Module):
    """What vision-language models do with image features: the text
    embeddings at the image token's positions replaced, in order, by the
    features (masked_scatter with a mask made from input_ids)."""

    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(20, 8)
        self.proj = nn.Linear(8, 8)

    def forward(self, ids, feats):
        x = self.emb(ids)
        mask = (ids == 7)[..., None].expand_as(x)
        return self.proj(x.masked_scatter(mask, self.proj(feats)))


@pytest.mark.parametrize("device", ["auto", "model"])
def test_masked_scatter_of_image_features(device):
    """The mask's count (3 image tokens of 8 values) comes from the ids,
    known on meta and on the CPU; PyTorch's shapes throughout; the
    products counted by hand: both Linear layers, 3 and 2 x 5 rows of 8 x
    8."""
    ids = torch.tensor([[1, 7, 7, 2, 3], [7, 4, 5, 6, 2]])
    feats = torch.randn(3, 8)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        s = nnscan.summary(ImageTokens(), inputs=(ids, feats), file=False,
                           device=device)
    assert [str(w.message) for w in caught
            if issubclass(w.category, ShapeMismatch)] == []
    assert s.uncounted_aten == {}
    assert s.totals["macs"] == (3 + 2 * 5) * 8 * 8


@pytest.mark.parametrize("fn,root", [(torch.var, False), (torch.std, True)])
def test_variance_count_by_hand(fn, root):
    """The two-pass variance over the last axis of a (3, 4, 5) input: the
    mean, x minus it, its square and their sum, 60 FLOPs each, then 12
    divisions (and for std 12 square roots)."""
    s = record(lambda x: fn(x, dim=-1), X)
    assert s.totals["flops"] == 4 * 60 + 12 + (12 if root else 0)
    assert s.totals["macs"] == 0


def test_erfinv_count_by_hand():
    """erfinv, which ONNX lacks, has the library's entry in the recorder's
    aten domain: 41 FLOPs per element (docs/metrics.md)."""
    s = record(lambda x: torch.erfinv(x), torch.zeros(3, 7))
    assert s.totals["flops"] == 41 * 21


@pytest.mark.parametrize("pool,per", [(nn.AvgPool2d, 9 - 1 + 2),
                                      (nn.MaxPool2d, 9 - 1)])
def test_ceil_mode_pool_wider_than_its_input(pool, per):
    """EfficientNet's and ALIGN's pooler: a kernel of the hidden size, in
    ceil mode, over a smaller map. PyTorch gives one output per axis; each
    window reads the 3 x 3 taps inside the input (docs/metrics.md), 4
    channels."""
    s = record(lambda x: pool(8, ceil_mode=True)(x), torch.zeros(1, 4, 3, 3))
    assert s.layers[0]["output"]["shape"] == [1, 4, 1, 1]
    assert s.totals["flops"] == 4 * per


def test_reflection_pad_and_log_sigmoid_by_hand():
    """Pad moves data only (no FLOP; every output element written, every
    input element read); log-sigmoid is a Sigmoid (4) and a Log (1) per
    element (docs/metrics.md)."""
    s = record(lambda x: F.pad(x, (1, 1, 2, 0), mode="reflect"), X)
    assert s.totals["flops"] == 0
    assert s.layers[0]["output"]["shape"] == [3, 6, 7]
    s = record(lambda x: F.logsigmoid(x), X)
    assert s.totals["flops"] == 5 * 60


def test_bucketize_count_by_hand():
    """A binary search per element over 3 boundaries: ceil(log2(4)) = 2
    comparisons each (docs/metrics.md), for 60 elements; the boundaries
    are a lookup table, not a parameter."""
    s = record(lambda x: torch.bucketize(x, torch.tensor([3.0, 10, 40])), X)
    assert s.totals["flops"] == 60 * 2
    assert s.totals["params"] == 0


@pytest.mark.parametrize("batched", [True, False])
@pytest.mark.parametrize("padding", [0, 1])
def test_fold_adds_what_pytorch_returns(batched, padding):
    """F.fold (col2im), unfold's inverse: every column element added once
    into the image (docs/metrics.md's ScatterElements with reduction: one
    FLOP per update), PyTorch's shape; 2 channels of 3x3 patches of a 6x7
    image at stride 2: 2*9*L elements, L the patch count."""
    h, w, k, st = 6, 7, 3, 2
    lh = (h + 2 * padding - k) // st + 1
    lw = (w + 2 * padding - k) // st + 1
    cols = torch.randn(*([1] if batched else []), 2 * k * k, lh * lw)
    s = record(lambda c: F.fold(c, (h, w), k, padding=padding, stride=st),
               cols)
    assert s.totals["flops"] == 2 * k * k * lh * lw
    want = [1, 2, h, w] if batched else [2, h, w]
    assert s.layers[0]["output"]["shape"] == want


def test_mixed_dtypes_promote_as_pytorch():
    """PyTorch promotes mixed operands (CodeGen's rotary mixes bfloat16 and
    float32): bf16 * f32 is f32, so a f32 product may follow; an int
    tensor plus 0.5 is float. The library sees the Cast ONNX needs; the
    products are counted by hand, 3 x 8 x 4 and 2 x 3 x 5."""
    s = record(lambda a, b: (a * b) @ torch.ones(8, 4),
               torch.ones(3, 8, dtype=torch.bfloat16), torch.ones(3, 8))
    assert s.totals["macs"] == 3 * 8 * 4
    s = record(lambda i, w: (i + 0.5) @ w,
               torch.ones(2, 3, dtype=torch.long), torch.ones(3, 5))
    assert s.totals["macs"] == 2 * 3 * 5


def test_true_division_of_integers_is_a_float_division():
    """An int64 tensor over a number (SEW-D's and DeBERTa's log buckets,
    abs_pos / mid) gives floats: the tensor is cast to float32, then one
    float Div, 6 divisions (an integer Div would floor)."""
    s = record(lambda i: i / 4, torch.arange(6).reshape(2, 3))
    ops = {o["op_type"]: o for o in s.json["op_types"]}
    assert ops["Cast"]["nodes"] == 1 and ops["Div"]["nodes"] == 1
    assert ops["Div"]["flops"] == 6
    assert s.json["outputs"][0]["dtype"] == "float32"


class MaskedRows(nn.Module):
    """The rows a mask picks (nonzero, then an index), through a Linear,
    then repeated as `reps` says and through it again."""

    def __init__(self):
        super().__init__()
        self.proj = nn.Linear(8, 8)

    def forward(self, x, mask, reps):
        idx = mask.nonzero()
        rows = self.proj(x[idx[:, 0], idx[:, 1]])
        return self.proj(torch.repeat_interleave(rows, reps, dim=0))


@pytest.mark.parametrize("device", ["auto", "model"])
def test_data_dependent_counts_by_hand(device):
    """nonzero's count (5 of 8 mask entries) and repeat_interleave's
    (sum(reps) = 8 rows) are data: on meta from the tracked mask and
    repeats, on the CPU from the run. NonZero compares each of the 8
    elements with zero (1 FLOP each); the Linear's products are counted by
    hand: 5, then 8 rows of 8 x 8."""
    x = torch.randn(2, 4, 8)
    mask = torch.tensor([[1, 0, 1, 1], [0, 1, 1, 0]], dtype=torch.bool)
    reps = torch.tensor([1, 2, 3, 1, 1])
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        s = nnscan.summary(MaskedRows(), inputs=(x, mask, reps), file=False,
                           device=device)
    assert [str(w.message) for w in caught
            if issubclass(w.category, ShapeMismatch)] == []
    assert s.uncounted_aten == {}
    assert s.totals["complete"]
    assert s.totals["macs"] == (5 + 8) * 8 * 8
    ops = {o["op_type"]: o for o in s.json["op_types"]}
    assert ops["NonZero"]["flops"] == 8


@pytest.mark.parametrize("affine", [True, False])
def test_group_norm(affine):
    """GroupNorm as torch.onnx exports it below opset 18: an
    InstanceNormalization over (N, G, -1) (8 FLOPs, 2 MACs per element),
    then the per-channel weight and bias (1 FLOP each per element);
    parameters 2 C, nothing else."""
    x = torch.zeros(2, 6, 5, 7)
    m = nn.GroupNorm(3, 6, affine=affine)
    s = record(None, x, module=m)
    n = x.numel()
    assert s.totals["params"] == (12 if affine else 0)
    assert s.totals["macs"] == 2 * n
    assert s.totals["flops"] == (10 if affine else 8) * n
    assert s.json["outputs"][0]["shape"] == [2, 6, 5, 7]


def test_unused_parameter_is_counted_in_its_module():
    """A parameter the forward does not read (a mask token) is still the
    model's: sum(p.numel()), as torchscan counts it, at its own module."""
    class Embed(nn.Module):
        def __init__(self):
            super().__init__()
            self.proj = nn.Linear(4, 8)
            self.mask_token = nn.Parameter(torch.zeros(1, 8))

        def forward(self, x):
            return self.proj(x)

    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.embed = Embed()
            self.head = nn.Linear(8, 2)

        def forward(self, x):
            return self.head(self.embed(x))

    net = Net()
    s = record(None, torch.zeros(3, 4), module=net)
    assert s.totals["params"] == sum(p.numel() for p in net.parameters())
    assert s.layer("embed")["params"] == 4 * 8 + 8 + 8
    assert s.totals["macs"] == 3 * 4 * 8 + 3 * 8 * 2


def test_prelu_per_channel():
    m = nn.PReLU(6)
    s = record(None, torch.zeros(2, 6, 3, 3), module=m)
    assert s.totals["params"] == 6


def test_complex_rotary_products_by_hand():
    """Rotary embeddings as complex products (LLaMA-4, DeepSeek-V2): in real
    arithmetic, a complex product is 4 Mul, a Sub and an Add per complex
    element; polar(ones, angle) is a Mul by cos and by sin per angle."""
    def rope(x, angle):                      # x (1, 8, 2, 16), angle (8, 8)
        freqs = torch.polar(torch.ones_like(angle), angle)
        xc = torch.view_as_complex(x.reshape(1, 8, 2, 8, 2))
        return torch.view_as_real(xc * freqs[:, None, :]).flatten(3)

    s = record(rope, torch.zeros(1, 8, 2, 16), torch.zeros(8, 8))
    flops = {o["op_type"]: o["flops"] for o in s.json["op_types"]}
    n = 8 * 2 * 8                            # complex elements of the product
    assert flops["Mul"] == 4 * n + 2 * 8 * 8
    assert flops["Sub"] == n and flops["Add"] == n
    assert s.json["outputs"][0]["shape"] == [1, 8, 2, 16]


@pytest.mark.parametrize("pool", [nn.AdaptiveAvgPool2d, nn.AdaptiveMaxPool2d])
def test_adaptive_pool_to_a_multiple_of_the_input(pool):
    """An adaptive pool whose output is a multiple of its input takes one
    element per window: a nearest upsampling, no arithmetic."""
    s = record(None, torch.zeros(1, 2, 4, 3), module=pool((8, 9)))
    assert s.json["outputs"][0]["shape"] == [1, 2, 8, 9]
    assert s.totals["flops"] == 0


def test_fft_as_dft_by_hand():
    """torch.fft as ONNX DFTs, costed as docs/metrics.md says (a naive DFT:
    per output bin, 2 x components x n MACs): rfft of 16 samples gives
    9 bins from 1 real component; fftn over two dims of 8 is two complex
    (2-component) DFTs of 4 x 8 x 8 bins each."""
    s = record(lambda x: torch.fft.rfft(x, dim=-1).abs(), torch.zeros(4, 16))
    dft = {o["op_type"]: o["macs"] for o in s.json["op_types"]}["DFT"]
    assert dft == 4 * 9 * 2 * 1 * 16

    s = record(lambda x: torch.fft.fftn(x.to(torch.complex64), dim=(1, 2)).real,
               torch.zeros(4, 8, 8))
    dft = {o["op_type"]: o["macs"] for o in s.json["op_types"]}["DFT"]
    assert dft == 2 * (4 * 8 * 8) * 2 * 2 * 8
    assert s.json["outputs"][0]["shape"] == [4, 8, 8]


def test_roi_align_log2_and_empty_cat():
    """Detection heads: torchvision's roi_align (ONNX RoiAlign, the rois cut
    into boxes and batch indices), log2 (level mapping) and a cat of only
    empty tensors (a level with no boxes)."""
    ops = pytest.importorskip("torchvision").ops

    def head(x, rois):
        pooled = ops.roi_align(x, rois, (3, 3), spatial_scale=0.5,
                               sampling_ratio=2, aligned=True)
        level = torch.log2(rois[:, 3:4] - rois[:, 1:2] + 1)
        empty = torch.cat([torch.zeros(0), torch.zeros(0)])
        return pooled, level, empty

    rois = torch.tensor([[0, 1.0, 1.0, 6.0, 7.0], [1, 0.0, 2.0, 5.0, 5.0]])
    s = record(head, torch.zeros(2, 4, 8, 8), rois)
    shapes = [o["shape"] for o in s.json["outputs"]]
    assert shapes[:2] == [[2, 4, 3, 3], [2, 1]]


def test_transformer_gradients_have_entries():
    """backward=True through an embedding, SiLU, GELU and a slice: their
    gradient kernels have entries; the matrix products' backward is by hand
    (grad input and grad weight, each rows x in x out)."""
    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.emb = nn.Embedding(50, 16)
            self.fc = nn.Linear(16, 32)

        def forward(self, ids):
            h = self.fc(self.emb(ids))
            h = nn.functional.silu(h) + nn.functional.gelu(h)
            return h[:, 1:]

    s = nnscan.summary(Net(), inputs=torch.zeros(2, 5, dtype=torch.long),
                       backward=True, file=False)
    assert s.backward.uncounted_aten == {}
    by_op = {o["op_type"]: o["macs"] for o in s.backward.json["op_types"]}
    assert by_op.get("MatMul", 0) + by_op.get("Gemm", 0) == 2 * 10 * 16 * 32
