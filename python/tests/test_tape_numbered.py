"""Calls the library lowers and names (docs/tape.md "Calls the library
names"; the numbering left to the library at the build:
test_tape_deferred.py tests how): the recorder hands them over as aten
records, and the library makes the nodes and names the ops_map.py rules
made. Checked against what does not go through that path: every report
byte for byte the rules' reports, frozen in data/rules_reference/ when
the rules went (session 107; rules_reference.py); the library's own
numbering of one call (nns_aten_numbering) against the rules' nodes for
it made by hand; parameters against sum(p.numel()) and MACs and FLOPs
by hand; a checkpointed training step's recompute, which names the
rerun nodes one by one; each distinct call's record template made once.
A test compares its reports before asserting what went on the tape:
the rules' reports were frozen by these tests run where nothing did."""
import json

import pytest

torch = pytest.importorskip("torch")
import torch.nn as nn  # noqa: E402
import torch.nn.functional as F  # noqa: E402

import nnscan  # noqa: E402
import rules_reference  # noqa: E402
from nnscan import _api, graph, step, tape  # noqa: E402


class Mixed(nn.Module):
    """Numbered ops of several kinds: convolution and batch norm, pooling,
    silu (two nodes, one kernel), views and permutes, layer norm, softmax
    and bmm, cat and split, a mean; and var_mean (a kernel of six nodes,
    the mean's sizes a constant made last)."""

    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 8, 3, padding=1)
        self.bn = nn.BatchNorm2d(8)
        self.norm = nn.LayerNorm(8)

    def forward(self, x):
        h = F.silu(self.bn(self.conv(x)))
        h = F.max_pool2d(h, 2)                          # 1 x 8 x 4 x 4
        t = h.flatten(2).permute(0, 2, 1)               # 1 x 16 x 8
        t = self.norm(t)
        a = torch.softmax(t @ t.transpose(1, 2), -1)    # bmm, softmax
        u, v = torch.split(a @ t, 4, dim=-1)
        # var_mean: a kernel of several nodes after silu's: the kernels'
        # node indices past the numbered calls
        return torch.cat([v, u], -1).mean(1) + torch.var_mean(t, 1)[0]


def _reports(monkeypatch, model=Mixed):
    """(model, every report, the aten records packed)."""
    held = []
    orig = graph._pack_parts

    def pack(g):
        held.append(dict(g.aten))
        return orig(g)
    monkeypatch.setattr(graph, "_pack_parts", pack)
    torch.manual_seed(0)
    m = model().eval()
    s = nnscan.summary(m, inputs=(torch.randn(1, 3, 8, 8),), file=False,
                       columns=("flops", "macs", "dmas", "act"))
    r = nnscan.summary(m, inputs=(torch.randn(1, 3, 8, 8),), file=False,
                       hardware="h100-sxm")
    monkeypatch.setattr(graph, "_pack_parts", orig)
    return m, [s.to_text(), s.to_csv(), s.to_json(version=1),
               s.to_json(version=2), s.to_html(), r.to_text()], held


def test_numbered_calls_are_on_the_tape(monkeypatch):
    _, _, held = _reports(monkeypatch)
    numbered = sorted({c[0] for c in held[0].values() if len(c) > 2})
    assert {"convolution", "silu", "max_pool2d_with_indices",
            "native_layer_norm", "bmm", "permute", "cat", "mean"} <= \
        set(numbered) | {"native_batch_norm",
                         "_native_batch_norm_legit_no_training"}


def test_every_report_is_the_rules(monkeypatch, request):
    rules_reference.check(request, _reports(monkeypatch)[1])


class OneSchema(nn.Module):
    """Ops of one schema (`self` alone) on tensors of one dtype and
    shape, lowered to different nodes: silu to two, hardsigmoid and rsqrt
    to one each; and 1 and 1.0 as scalars, equal in Python."""

    def forward(self, x):
        h = F.silu(x) + F.hardsigmoid(x) * torch.rsqrt(x * x + 1)
        return F.hardsigmoid(h) + F.silu(h) + (h * 1) + (h * 1.0)


def test_ops_of_one_schema_are_told_apart(monkeypatch, request):
    """A template is the op's as well as its arguments': silu's two
    numbers and nodes are not hardsigmoid's one."""
    monkeypatch.setattr(tape, "_TEMPLATES", {})
    monkeypatch.setattr(tape, "_TEMPLATE_MAKERS", {})
    rules_reference.check(request, _reports(monkeypatch, model=OneSchema)[1])


def test_counts_are_pytorchs(monkeypatch):
    m, on, _ = _reports(monkeypatch)
    doc = json.loads(on[3])
    metrics = doc["totals"]["metrics"]
    assert metrics["params"]["value"] == sum(
        p.numel() for p in m.parameters())
    conv = next(t for t in doc["op_types"] if t["op_type"] == "Conv")
    # 8 x 8 outputs of 8 channels, each 3 x 3 x 3 products
    assert conv["macs"] == 8 * 8 * 8 * 27


class Linears(nn.Module):
    """F.linear as PyTorch records it, t(W) then a product: addmm with a
    bias, mm without, mm between views on 3-D input; a weight read by a
    product and an Add (its Transpose made); a weight scaled in place
    first (RWKV's rescaling: the product reads no parameter)."""

    def __init__(self):
        super().__init__()
        self.a = nn.Linear(192, 16)
        self.b = nn.Linear(16, 64, bias=False)
        self.c = nn.Linear(16, 8)
        self.d = nn.Linear(8, 8, bias=False)
        self.e = nn.Linear(8, 8, bias=False)

    def forward(self, x):
        h = self.b(torch.relu(self.a(x.flatten(1))))    # addmm, mm
        h = self.c(h.view(1, 4, 16))                    # 3-D: views, addmm
        h = self.d(h) + self.d.weight.t()[0]             # a product, an Add
        with torch.no_grad():
            self.e.weight.mul_(0.5)
        return self.e(h)


def _folded(held):
    """The products that read a weight's t() the library folds."""
    return sorted(c[0] for c in held[0].values() if len(c) > 3 and c[3])


def test_a_weights_t_folds_on_the_tape(monkeypatch, request):
    """The products of a Linear go on the tape with the weight's t() as a
    record of its own (unnumbered) that the library folds into the Gemm's
    transB, as the rule did: every report byte for byte the rules'; no
    weight is transposed (no Transpose node) but d's, which an Add reads
    too; MACs by hand."""
    m, on, held = _reports(monkeypatch, model=Linears)
    doc = json.loads(on[3])
    ops = {t["op_type"]: t for t in doc["op_types"]}
    assert ops["Transpose"]["nodes"] == 1
    assert ops["Gemm"]["macs"] + ops.get("MatMul", {"macs": 0})["macs"] == \
        192 * 16 + 16 * 64 + 4 * 16 * 8 + 4 * 8 * 8 * 2
    assert doc["totals"]["metrics"]["params"]["value"] == sum(
        p.numel() for p in m.parameters())
    rules_reference.check(request, on)
    # a's addmm, b's mm, c's addmm and d's mm (before the Add reads its
    # t(): the rule's own Transpose after), and e's, whose weight was
    # scaled in place (no parameter any more: the library folds the t()
    # the recorder sends all the same, as the rule did)
    assert _folded(held) == ["addmm", "addmm", "mm", "mm", "mm"]


class ReadOtherwise(nn.Module):
    """A weight's t() read other than as a product's right operand: a
    product's left operand (mm, addmm's mat1, the right operand another
    weight's t() folded into transB) and a row of it (select)."""

    def __init__(self):
        super().__init__()
        self.w = nn.Parameter(torch.randn(8, 8))
        self.v = nn.Parameter(torch.randn(8, 8))

    def forward(self, x):
        h = x.view(8, 24)[:, :8]                          # 8 x 8
        h = torch.mm(self.w.t(), h)                       # lhs: Transpose
        h = torch.addmm(h, self.v.t(), self.w.t())        # mat1, mat2 folds
        return h + self.v.t()[0]                          # select's Transpose


def test_a_weights_t_read_otherwise_goes_on_the_tape(monkeypatch, request):
    """The calls reading a weight's t() otherwise go on the tape, the
    rule's Transpose made where the call first reads it, one kernel with
    the call (the roofline's bytes: a view in eager PyTorch moves none):
    every report byte for byte the rules'; MACs by hand: two 8 x 8 x 8
    products, the Transposes none."""
    _, on, held = _reports(monkeypatch, model=ReadOtherwise)
    doc = json.loads(on[3])
    ops = {t["op_type"]: t for t in doc["op_types"]}
    # each t() its own view: w's (mm), v's (addmm's mat1), v's (select)
    assert ops["Transpose"]["nodes"] == 3
    assert ops["Transpose"]["macs"] == 0
    assert doc["totals"]["metrics"]["macs"]["value"] == 2 * 8 * 8 * 8
    rules_reference.check(request, on)
    calls = sorted(c[0] for c in held[0].values() if len(c) > 2)
    assert {"mm", "addmm", "select"} <= set(calls)
    assert _folded(held) == ["addmm"]


class DataShaped(nn.Module):
    """Sizes that are data: the positions of every third element
    (nonzero: 64 of 192) and the distinct values of x // 4 (unique: 48),
    each selecting that many of x's elements, and a product over the 64
    (its MACs depend on the count)."""

    def __init__(self):
        super().__init__()
        self.w = nn.Parameter(torch.randn(64, 8))

    def forward(self, x):
        h = x.flatten(1)                                      # 1 x 192
        n = torch.arange(192, device=x.device)
        at = torch.nonzero(n % 3 == 0)                        # 64 x 1
        u, counts = torch.unique(n // 4, return_counts=True)  # 48, 48
        kept = h.index_select(1, at[:, 0])                    # 1 x 64
        return kept @ self.w, h.index_select(1, u) * counts


def test_data_shaped_sizes_on_the_tape(monkeypatch, request):
    """nonzero and unique on the tape: their counts are data, which the
    table's lowering takes from the record's outputs (declared, as the
    rule declared the values it ran on), so what reads them is counted in
    those sizes: every report byte for byte the rules'; MACs by hand
    (1 x 64 by 64 x 8), the Gathers' outputs 64 and 48 elements."""
    _, on, held = _reports(monkeypatch, model=DataShaped)
    doc = json.loads(on[3])
    assert doc["totals"]["metrics"]["macs"]["value"] == 64 * 8
    ops = {t["op_type"]: t for t in doc["op_types"]}
    assert ops["NonZero"]["nodes"] == 1 and ops["Unique"]["nodes"] == 1
    # int64 [1, 64] each; a Mul of the 48 values by their counts
    assert ops["NonZero"]["activation_bytes"] == 64 * 8
    assert ops["Transpose"]["activation_bytes"] == 64 * 8
    assert ops["Mul"]["flops"] == 48
    rules_reference.check(request, on)
    calls = {c[0] for c in held[0].values() if len(c) > 2}
    assert {"nonzero", "_unique2"} <= calls


class ImageFeatures(nn.Module):
    """Features scattered into embeddings as vision-language models do
    (masked_scatter), twice on the same shapes: one row of three takes 8
    of the features' elements, the other two 16; the masks made from
    positions, known on meta."""

    def __init__(self):
        super().__init__()
        self.feats = nn.Parameter(torch.randn(6, 8))

    def forward(self, x):
        h = x.flatten(2)[:, :, :8]                            # 1 x 3 x 8
        rows = torch.arange(3, device=x.device)
        one = (rows == 1)[None, :, None].expand_as(h)
        two = (rows != 1)[None, :, None].expand_as(h)
        return h.masked_scatter(one, self.feats) + \
            h.masked_scatter(two, self.feats)


def test_masked_scatter_by_its_tracked_count(monkeypatch, request):
    """masked_scatter on the tape, how many elements land the count the
    record carries from the tracked mask (8, then 16: two calls of one
    form, two counts): every report byte for byte the rules'; the
    ScatterNDs' DMAs by hand (docs/metrics.md: X + indices + 2 updates +
    Y, X and Y 24 elements, the indices and updates as many as land)."""
    _, on, held = _reports(monkeypatch, model=ImageFeatures)
    # the count the table's entry says it reads (nns_aten_op_counted)
    assert _api.ATEN_COUNTED == {"masked_scatter": ("mask", "self")}
    doc = json.loads(on[3])
    assert doc["uncounted_ops"] == []
    ops = {t["op_type"]: t for t in doc["op_types"]}
    assert ops["ScatterND"]["nodes"] == 2
    assert ops["ScatterND"]["dmas"] == sum(24 + k + 2 * k + 24
                                           for k in (8, 16))
    rules_reference.check(request, on)
    calls = [c[0] for c in held[0].values() if len(c) > 2]
    assert calls.count("masked_scatter") == 2


class ComplexRotary(nn.Module):
    """Rotary embeddings as complex products (LLaMA-1's reference code,
    vision towers' 2-D rotary): the features viewed as complex (1 x 3 x 8
    complex elements), times frequencies made in the forward by polar,
    then times a complex buffer (complex-typed: read through
    view_as_real), a complex plain attribute (a constant the product
    brings in as its real form) and a slice of another (a complex-typed
    constant), viewed as real again; and the product's modulus."""

    def __init__(self):
        super().__init__()
        self.register_buffer("fr", torch.polar(torch.ones(8),
                                               torch.arange(8.0)))
        self.rot = torch.polar(torch.ones(8), torch.arange(8.0) * 0.25)
        self.table = torch.polar(torch.ones(16), torch.arange(16.0))

    def forward(self, x):
        h = x.flatten(2)[:, :, :16]                           # 1 x 3 x 16
        xc = torch.view_as_complex(h.reshape(1, 3, 8, 2))     # 1 x 3 x 8
        angle = torch.arange(8, device=x.device) * 0.5
        freqs = torch.polar(torch.ones_like(angle), angle)    # 8
        y = xc * freqs[None, None, :] * self.fr * self.rot * self.table[:8]
        return torch.view_as_real(y).flatten(2) * y.abs().sum()


def test_complex_values_on_the_tape(monkeypatch, request):
    """Complex values in real form on the library's tape (session 106):
    view_as_complex, polar, the complex products (one with a complex
    buffer), the views between them, view_as_real and abs are records the
    library lowers, and every report is byte for byte the rules'. FLOPs
    by hand: a complex product of n elements is 4n Mul, n Sub and n Add
    (n = 24, four times); the angles are 8 Mul, polar 8 by cos and 8 by sin;
    abs squares the 48 reals of the real form; the last Mul scales 48
    reals."""
    _, on, held = _reports(monkeypatch, model=ComplexRotary)
    doc = json.loads(on[3])
    assert doc["uncounted_ops"] == []
    flops = {t["op_type"]: t["flops"] for t in doc["op_types"]}
    n = 1 * 3 * 8
    assert flops["Mul"] == 4 * 4 * n + 8 + 2 * 8 + 2 * n + 2 * n
    assert flops["Sub"] == 4 * n and flops["Add"] == 4 * n
    # the buffer's 8 complex elements, 64 bytes (sum(numel), 8 bytes each)
    fr = ComplexRotary().fr
    totals = doc["totals"]["metrics"]
    assert totals["buffers"]["value"] == fr.numel() == 8
    assert totals["param_bytes"]["value"] == fr.numel() * fr.element_size()
    rules_reference.check(request, on)
    calls = [c[0] for c in held[0].values() if len(c) > 2]
    for op in ("view_as_complex", "polar", "view_as_real", "abs"):
        assert op in calls
    assert calls.count("mul") >= 5  # four complex products, the scale


class Indexed(nn.Module):
    """Advanced indexing by two integer tensors of different shapes
    (BART's and OPT's mask, bool[1, 8][int64[1, 1, 1, 1], int64[1, 1, 1,
    8]]): Expand, Unsqueeze, Concat and GatherND, one kernel."""

    def forward(self, x):
        h = x.flatten(1)                                  # 1 x 192
        i = torch.zeros(1, 1, dtype=torch.long, device=x.device)
        j = torch.arange(8, device=x.device).view(1, 8)
        return h[i, j] * 2


def test_advanced_index_is_one_kernel(monkeypatch, request):
    """index with several index tensors on the tape: the library marks its
    nodes one kernel as the rule's were, so the roofline's bytes (those
    crossing kernels) are the rules' byte for byte."""
    _, on, held = _reports(monkeypatch, model=Indexed)
    rules_reference.check(request, on)
    assert "index" in {c[0] for c in held[0].values() if len(c) > 2}


class Scattered(nn.Module):
    """The ops that joined the tape in session 63: an indexed write
    (index_put), scatter, baddbmm, a histogram of routing choices as the
    MoE models count them (histc: two fillers, the bins first) and a
    strided view (as_strided); and a power of float32 by int64 (pow of
    two dtypes: no Cast, ONNX's Pow takes both)."""

    def forward(self, x):
        h = x.flatten(1)[:, :64].reshape(1, 8, 8)       # 1 x 8 x 8
        h = torch.baddbmm(h, h, h.transpose(1, 2), beta=0.5)
        idx = torch.arange(0, 8, 2, device=x.device)
        h = h.index_put((torch.zeros_like(idx), idx), torch.ones(
            4, 8, device=x.device))
        pick = torch.zeros(1, 8, 2, dtype=torch.long, device=x.device)
        h = h.scatter(2, pick, h[:, :, :2])
        h = h.pow(torch.full((8,), 2, dtype=torch.long, device=x.device))
        counts = torch.histc(h.flatten().float(), bins=4, min=0, max=3)
        return h.as_strided((4, 4), (8, 1)).sum() + counts.sum()


@pytest.mark.filterwarnings("ignore:nnscan. the forward cannot run on meta")
def test_session_63_ops_on_the_tape(monkeypatch, request):
    """Their calls go on the tape, every report the rules' byte for byte."""
    _, on, held = _reports(monkeypatch, model=Scattered)
    rules_reference.check(request, on)
    numbered = {c[0] for c in held[0].values() if len(c) > 2}
    assert {"baddbmm", "index_put", "scatter", "histc", "pow"} <= numbered


class Breadth(nn.Module):
    """The ops that joined the tape in session 65 (each agreed with its
    rule on every call of the Python suites, by tools/tape_names.py,
    retired since): activations and elementwise math, glu and pixel shuffle,
    padding, resizing, unfold and fold, adaptive max pooling, reductions,
    index and scatter ops, searches, matrix-vector products, grid
    sampling, all and any."""

    def __init__(self):
        super().__init__()
        self.prelu = nn.PReLU(3)
        self.conv = nn.Conv2d(3, 4, 3, padding=1)

    def forward(self, x):
        h = self.prelu(x) + F.leaky_relu(x, 0.1) + F.elu(x) + F.mish(x)
        h = h + F.hardswish(x) * torch.sigmoid(x) - torch.tanh(-x)
        h = h + torch.log1p(x.abs()) + torch.expm1(x * 0.1) + torch.log2(
            x.abs() + 1) + torch.erfinv(x.clamp(-0.5, 0.5))
        h = torch.nan_to_num(h) + torch.remainder(h, 3.0) + torch.xlogy(
            h.abs(), h.abs() + 1)
        h = F.glu(self.conv(h), dim=1)                              # 1x2x8x8
        h = torch.cat([h, F.pixel_shuffle(h.repeat(1, 4, 1, 1), 2)[
            :, :, ::2, ::2]], 1).flip(3)                             # 1x4x8x8
        h = F.pad(h, (1, 1, 1, 1), mode="reflect") + F.pad(
            h, (1, 1, 1, 1), mode="replicate")                        # 10x10
        h = F.interpolate(h, size=(8, 8), mode="bilinear") + F.interpolate(
            h, size=(8, 8), mode="nearest") + F.interpolate(
            h, size=(8, 8), mode="bicubic", align_corners=False)
        cols = F.unfold(h, 3, padding=1)                             # 1x36x64
        h = F.fold(cols, (8, 8), 3, padding=1) + F.adaptive_max_pool2d(
            h, 4).repeat_interleave(2, 2).repeat_interleave(2, 3)
        t = torch.triu(h.flatten(2)[0, :, :4].log_softmax(-1))   # 4x4
        r = t.logsumexp(1) + t.prod(1) + t.amax(0) - t.amin(0) + t.std(
            0) + t.var(1)
        idx = torch.tensor([0, 2], device=x.device)
        u = t.index_select(0, idx).index_add(0, idx[:1], t[:1]).index_copy(
            0, idx[:1] + 1, t[:1])
        u = u.scatter_add(1, idx.expand(2, 2), u[:, :2]).scatter_reduce(
            1, idx.expand(2, 2), u[:, 2:], "amax")
        edges = torch.arange(4.0, device=x.device)
        s = torch.searchsorted(edges, r) + torch.bucketize(r, edges) + \
            t.argmin(1)
        lo, hi = torch.aminmax(t)
        v = torch.mv(t, r) + torch.addmv(r, t, r) + torch.dot(r, r)
        g = F.grid_sample(h, torch.zeros(1, 2, 2, 2, device=x.device),
                          align_corners=False)
        return (v.sum() + u.sum() + s.sum() + g.sum() + lo + hi +
                (t > 0).all().float() + (t > 0).any().float())


class Backward(nn.Module):
    """Backward ops that joined the tape in session 65: threshold,
    sigmoid, tanh, gelu, silu, slice, softmax and log-softmax gradients;
    max pooling's (it reads the forward's indices, new to the backward
    graph, after its own constants); and the
    gradient of an adaptive average pool to 2 x 2, its windows several
    outputs each (a Resize, not a broadcast)."""

    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 4, 3, padding=1)

    def forward(self, x):
        h = F.relu(self.conv(x))
        h = torch.sigmoid(h) + torch.tanh(h) + F.gelu(h) + F.silu(h)
        h = F.max_pool2d(h, 2)                                  # 1x4x4x4
        h = F.adaptive_avg_pool2d(h[:, :, 1:], 2).flatten(1)
        return F.log_softmax(h, -1).sum() + torch.softmax(h, -1).sum()


SESSION_65_OPS = {
    "leaky_relu", "elu", "mish", "log1p", "expm1", "log2", "erfinv",
    "nan_to_num", "remainder", "xlogy", "glu", "pixel_shuffle", "flip",
    "reflection_pad2d", "replication_pad2d", "upsample_bilinear2d",
    "upsample_nearest2d", "upsample_bicubic2d", "im2col", "col2im",
    "adaptive_max_pool2d", "triu", "_log_softmax",
    "logsumexp", "prod", "amax", "amin", "std", "var", "index_select",
    "index_add", "index_copy", "scatter_add", "scatter_reduce",
    "searchsorted", "bucketize", "argmin", "aminmax", "mv", "addmv", "dot",
    "grid_sampler_2d", "all", "any"}


@pytest.mark.filterwarnings("ignore:nnscan. the forward cannot run on meta")
def test_session_65_ops_on_the_tape(monkeypatch, request):
    """Their calls go on the tape, every report the rules' byte for byte
    (PyTorch 1.13 has no meta searchsorted: the forward runs on the CPU
    there, through the same recorder)."""
    _, on, held = _reports(monkeypatch, model=Breadth)
    rules_reference.check(request, on)
    numbered = {c[0] for c in held[0].values() if len(c) > 2}
    assert SESSION_65_OPS - numbered == set()
    # PyTorch 2 calls prelu's kernel, and repeat_interleave as its parts
    assert {"prelu", "_prelu_kernel"} & numbered


def test_backward_ops_on_the_tape(monkeypatch, request):
    """backward=True: the gradient ops go on the tape too, and every
    report, the backward table's included, is the rules'."""
    held = []
    orig = graph._pack_parts

    def pack(g):
        held.append(dict(g.aten))
        return orig(g)
    monkeypatch.setattr(graph, "_pack_parts", pack)
    torch.manual_seed(0)
    s = nnscan.summary(Backward(), inputs=(torch.randn(1, 3, 8, 8),),
                       file=False, backward=True)
    rules_reference.check(request, [s.to_text(), s.to_json(version=2),
                                    s.backward.to_text()])
    on_tape = {c[0] for h in held for c in h.values() if len(c) > 2}
    assert {"threshold_backward", "sigmoid_backward", "tanh_backward",
            "slice_backward", "_softmax_backward_data",
            "_log_softmax_backward_data", "gelu_backward",
            "silu_backward"} - on_tape == set()


class Ordered(nn.Module):
    """Calls whose constants the library named out of the rule's order
    until session 65 (tools/tape_same.py found them): an int tensor plus
    0.5 (the rule casts the tensor, then makes the number: v1, c2; the
    library made the number first), and torchvision's roi_align (the
    gather's index after the boxes' slice)."""

    def forward(self, x):
        h = (x.long() + 0.5) @ torch.ones(8, 4, device=x.device)
        rois = torch.tensor([[0, 1.0, 1.0, 6.0, 7.0]], device=x.device)
        ops = pytest.importorskip("torchvision").ops
        p = ops.roi_align(x, rois, (3, 3), spatial_scale=0.5,
                          sampling_ratio=2, aligned=True)
        return h.sum() + p.sum()


@pytest.mark.filterwarnings("ignore:nnscan. the forward cannot run on meta")
def test_constants_are_named_in_the_rules_order(monkeypatch, request):
    """The JSON reports list the constants by name: the same names."""
    _, on, held = _reports(monkeypatch, model=Ordered)
    rules_reference.check(request, on)
    assert {"add", "roi_align"} <= {c[0] for c in held[0].values()
                                    if len(c) > 2}


class Borrowed(nn.Module):
    """Calls whose rules session 64 retired from the numbered tape: a copy
    to its own dtype and a functional copy (their outputs are arguments
    under another name: no node, no number), parameters first read by
    calls that make constants after reading them (unsqueeze and slice:
    the Reshape's shape, the Slice's bounds), and a plain tensor attribute
    (no parameter, no buffer) read by a product: a constant from outside,
    named before the call's own numbers as the rule named it."""

    def __init__(self):
        super().__init__()
        self.scale = nn.Parameter(torch.randn(8))
        self.offset = nn.Parameter(torch.randn(8))
        self.table = torch.randn(8, 8)

    def forward(self, x):
        h = x.flatten(1)[:, :64].reshape(8, 8)
        h = h.to(torch.float32, copy=True)
        h = torch.ops.aten.copy(h, h * 2)
        h = h * self.scale.unsqueeze(0) + self.offset[2:6].sum()
        return (h @ self.table).sum()


def test_aliases_and_first_reads_on_the_tape(monkeypatch, request):
    """The copy to its own dtype is the recorder's alias (since session
    104; no record, no node, so a layer's template reads no tensor from
    outside by a name of the tape's), the others go on the tape; every
    report is the rules' byte for byte, and the parameters are PyTorch's
    count."""
    m, on, held = _reports(monkeypatch, model=Borrowed)
    params = json.loads(on[2])["totals"]["params"]
    assert params == sum(p.numel() for p in m.parameters())
    rules_reference.check(request, on)
    calls = {c[0] for c in held[0].values()}
    assert "_to_copy" not in calls
    # (copy is a call of its own on 2.x only)
    numbered = {c[0] for c in held[0].values() if len(c) > 2}
    assert {"unsqueeze", "slice", "mm", "mul"} <= numbered


class HalfCausal(nn.Module):
    """Causal scores filled with -inf where masked: masked_fill's number
    becomes a scalar constant of the scores' dtype, which the masks read."""

    def forward(self, x):
        t = x.shape[1]
        keep = torch.ones(t, t, dtype=torch.bool, device=x.device).tril()
        s = (x @ x.transpose(-1, -2)).masked_fill(~keep, float("-inf"))
        return torch.softmax(s, dim=-1) @ x


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16], ids=str)
def test_half_scalars_keep_their_value(dtype):
    """The library makes masked_fill's -inf a float16 or bfloat16 constant
    with its value (it made float16's without one, and the mask read as
    dense): the masked MACs of both products by hand."""
    b, t, e = 2, 6, 4
    x = torch.randn(b, t, e, dtype=dtype)
    s = nnscan.summary(HalfCausal(), inputs=(x,), file=False, device="meta")
    assert s.totals["macs"] - s.totals["macs_unmasked"] == \
        2 * b * (t * t - t * (t + 1) // 2) * e


def _numbering(record):
    import ctypes
    from nnscan import _api
    info = _api.AtenNumbering(size=ctypes.sizeof(_api.AtenNumbering))
    err = _api.NnsError()
    st = _api.lib().nns_aten_numbering(record, len(record),
                                       ctypes.byref(info), ctypes.byref(err))
    return (st, info.values, info.nodes, info.out_number[0],
            info.op_types.decode())


def test_numbering_of_one_call_is_the_rules():
    """silu(x) as the recorder's rule made it (ops_map.silu, retired): a
    Sigmoid writing a new value, then a Mul writing the output: two
    numbers, two nodes, the output the second number."""
    s = graph._Strings()
    x = s["x"] + graph._i32(1) + graph._shape((2, 3))
    o = s["o"] + graph._i32(1) + graph._shape((2, 3))
    rec = b"".join([b"NNSP", graph._u32(1), graph._TAG[graph._NAMES],
                    graph._u64(0), graph._u64(0), graph._u64(0)] +
                   graph._aten_parts("silu", "", "",
                                     [("self", "tensor", x)], [o], s))
    assert _numbering(rec) == (0, 2, 2, 2, "Sigmoid Mul")


def _templates_made(monkeypatch):
    """The ops whose record templates are made from now on (one per
    distinct call: its op, form and dtypes), none kept."""
    monkeypatch.setattr(tape, "_TEMPLATES", {})
    monkeypatch.setattr(tape, "_TEMPLATE_MAKERS", {})
    made = []
    orig = tape._template_of

    def template_of(*a):
        made.append(a[0])
        return orig(*a)
    monkeypatch.setattr(tape, "_template_of", template_of)
    return made


def test_identical_calls_make_one_template(monkeypatch):
    made = _templates_made(monkeypatch)

    class Twice(nn.Module):
        def __init__(self):
            super().__init__()
            self.a = nn.Conv2d(4, 4, 3, padding=1)
            self.b = nn.Conv2d(4, 4, 3, padding=1)

        def forward(self, x):
            return self.b(F.silu(self.a(F.silu(x))))
    nnscan.summary(Twice().eval(), inputs=(torch.zeros(1, 4, 6, 6),),
                   file=False)
    assert sorted(made) == ["convolution", "silu"]


class Forms(nn.Module):
    """One op called in several forms: layer norm with and without its
    weight and bias (a tensor, then None, in one place), a product and a
    clamp by an int, a float and a bool (values equal in Python, not in a
    record), padding by a list and by a tuple."""

    def __init__(self):
        super().__init__()
        self.a = nn.LayerNorm(8)
        self.b = nn.LayerNorm(8, elementwise_affine=False)

    def forward(self, x):
        h = self.b(self.a(x.flatten(1)[:, :64].reshape(8, 8)))
        h = h * 1 + h * 1.0 + h * True
        h = h.clamp(0) + h.clamp(0.0) + h.clamp(False)
        return F.pad(h, [1, 1]) + F.pad(h, (1, 1))


def test_calls_of_one_op_in_several_forms(monkeypatch, request):
    """The key a call's form makes (tape._maker) tells them apart as
    tape._key does: one template each, every report the rules', the
    second summary's (keys kept) the first's."""
    asked = _templates_made(monkeypatch)
    _, first, held = _reports(monkeypatch, model=Forms)
    rules_reference.check(request, first)
    numbered = {c[0] for c in held[0].values() if len(c) > 2}
    assert {"native_layer_norm", "mul", "constant_pad_nd"} <= numbered
    assert asked.count("native_layer_norm") == 2
    assert asked.count("mul") == 3
    assert asked.count("clamp") == 3
    assert _reports(monkeypatch, model=Forms)[1] == first


class KeywordsAndLists(nn.Module):
    """Calls keyed through keyword arguments (_to_copy's dtype: to bf16,
    to float, each twice) and lists of tensors (cat of two, twice: the
    form its maker keys; then of three, which keys apart)."""

    def forward(self, x):
        h = x.flatten(1)[:, :64]
        a = h.to(torch.bfloat16).float()
        b = (a + 1).to(torch.bfloat16).float()
        two = torch.cat([a, b], dim=1)
        again = torch.cat([b, a], dim=1)
        three = torch.cat([a, b, h], dim=1)
        return two.sum() + three.sum() + again.sum()


def test_keyword_and_list_forms(monkeypatch, request):
    """tape._maker keys calls with keyword arguments and tensor lists:
    one template per distinct call (two casts, two lengths of cat), the
    second summary's (makers kept) reports the first's and the rules'."""
    asked = _templates_made(monkeypatch)
    _, first, held = _reports(monkeypatch, model=KeywordsAndLists)
    rules_reference.check(request, first)
    numbered = {c[0] for c in held[0].values() if len(c) > 2}
    assert {"_to_copy", "cat"} <= numbered
    assert asked.count("_to_copy") == 2
    assert asked.count("cat") == 2
    made = [f for f in tape._TEMPLATE_MAKERS.values() if f]
    assert any(f.form[1] == (("dtype", "s"),) for f in made)
    assert any("T" in f.form[0] for f in made)
    assert _reports(monkeypatch, model=KeywordsAndLists)[1] == first


class Alternating(nn.Module):
    """Calls of one op whose forms differ only in what a form leaves
    open: convolutions with and without a bias (an optional tensor) and
    layer norms with and without weight and bias, taking turns; cats of
    two, three and two tensors."""

    def __init__(self):
        super().__init__()
        self.convs = nn.ModuleList(
            nn.Conv2d(3, 3, 3, padding=1, bias=k % 2 == 0) for k in range(4))
        self.norms = nn.ModuleList(
            nn.LayerNorm(8, elementwise_affine=k % 2 == 1) for k in range(3))

    def forward(self, x):
        for conv in self.convs:
            x = conv(x)
        h = x.flatten(1)[:, :8]
        for norm in self.norms:
            h = norm(h)
        return torch.cat([torch.cat([h, h], 1), torch.cat([h, h, h], 1),
                          torch.cat([h, x.flatten(1)[:, :8]], 1)], 1)


def test_one_form_keys_optional_tensors_and_any_list_length(monkeypatch,
                                                           request):
    """An optional tensor given or None, and a list of tensors of any
    length, are one form (tape._form's "o" and "T"): once the model's
    calls are known, every call is keyed by its form's maker (tape._key,
    the slow walk, never runs), each distinct call made one template, and
    the reports stay the rules'."""
    asked = _templates_made(monkeypatch)
    _, first, _ = _reports(monkeypatch, model=Alternating)
    rules_reference.check(request, first)
    assert asked.count("convolution") == 2  # with a bias, without
    assert asked.count("native_layer_norm") == 2
    # lists of two tensors and of three (the outer cat's too): a template
    # holds dtypes, not sizes
    assert asked.count("cat") == 2
    walked = []
    orig = tape._key
    monkeypatch.setattr(tape, "_key",
                        lambda base, *a: walked.append(base) or orig(base, *a))
    _, again, _ = _reports(monkeypatch, model=Alternating)
    assert walked == []
    assert again == first


class CheckpointedNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.a = nn.Conv2d(3, 6, 3, padding=1)
        self.b = nn.Conv2d(6, 6, 3, padding=1)
        self.norm = nn.LayerNorm(6)

    def block(self, x):
        h = F.silu(self.a(x))
        return self.norm(self.b(h).permute(0, 2, 3, 1))

    def forward(self, x):
        return torch.utils.checkpoint.checkpoint(
            self.block, x, use_reentrant=False).mean()


def test_checkpointed_step_reruns_the_same_nodes(request):
    """The recompute of a non-reentrant checkpoint is a list of node names
    (step.py's spans): numbered calls name theirs as the rules did:
    the step's counts are the rules'."""
    torch.manual_seed(0)
    m = CheckpointedNet().train()
    got = step.flops_dict(step.record_flops(m, (torch.randn(2, 3, 5, 5),)))
    assert got["recompute_flops"] > 0
    rules_reference.check(request, [json.dumps(got, sort_keys=True)])
