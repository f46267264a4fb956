"""What the recorder sees that module hooks cannot, and how it counts it.

Every expected figure is computed by hand from the shapes (METRICS.md's
rules: a matrix product M x K by K x N is M*N*K MACs) or read from PyTorch
(parameter counts), never from nnscan.
"""

import types
import warnings

import pytest

torch = pytest.importorskip("torch")
from torch import nn  # noqa: E402
import torch.nn.functional as F  # noqa: E402

import nnscan  # noqa: E402
from nnscan import recorder, torch_api  # noqa: E402


class Functional(nn.Module):
    """Work done functionally in a container's forward."""

    def __init__(self):
        super().__init__()
        self.w = nn.Parameter(torch.zeros(32, 16))
        self.proj = nn.Linear(16, 8)

    def forward(self, x):                      # x: (2, 10, 32)
        h = x @ self.w                         # 2*10*32*16 MACs
        h = F.linear(h, self.proj.weight)      # 2*10*16*8, proj never called
        h = F.interpolate(h.unsqueeze(1), scale_factor=2.0, mode="nearest")
        return h


def test_functional_ops_are_counted():
    s = nnscan.summary(Functional(), inputs=torch.zeros(2, 10, 32), file=False)
    assert s.totals["macs"] == 2 * 10 * 32 * 16 + 2 * 10 * 16 * 8
    # proj.bias is never read by the forward, yet it is one of the model's
    # parameters: sum(p.numel()) (issue 16), counted in its module
    assert s.totals["params"] == 32 * 16 + 16 * 8 + 8
    assert s.layer("proj")["params"] == 8  # the weight counts where F.linear reads it
    assert [o["op_type"] for o in s.json["op_types"] if o["op_type"] == "Resize"]
    assert s.json["uncounted_ops"] == []
    assert s.modules["proj"]["calls"] == 0


class Tied(nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(100, 16)
        self.block = nn.Linear(16, 16)
        self.head = nn.Linear(16, 100, bias=False)
        self.head.weight = self.emb.weight     # tied

    def forward(self, ids):
        x = self.emb(ids)
        x = self.block(self.block(x))          # one module, two calls
        return self.head(x)


def test_tied_weights_once_and_call_counts():
    s = nnscan.summary(Tied(), inputs=torch.zeros(1, 7, dtype=torch.long),
                       file=False)
    assert s.totals["params"] == 100 * 16 + 16 * 16 + 16
    assert s.modules["block"]["calls"] == 2
    rows = [l["path"] for l in s.layers]
    assert rows.count("block") == 1
    assert s.layer("block")["macs"] == 2 * 7 * 16 * 16
    assert s.layer("head")["macs"] == 7 * 16 * 100
    assert s.layer("head")["flags"]["shared"]


def test_meta_and_cpu_models_give_identical_reports():
    torch.manual_seed(0)
    import torchvision
    cpu = torchvision.models.resnet18().eval()
    meta = torchvision.models.resnet18().to("meta").eval()
    a = nnscan.summary(cpu, (3, 64, 64), file=False)
    b = nnscan.summary(meta, (3, 64, 64), file=False)
    assert a.device == b.device == "meta"
    assert a.json == b.json
    assert a.to_text() == b.to_text()


class GradOnly(nn.Module):
    """More work only where autograd records (the shape of a checkpointing
    or training-only branch)."""

    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(8, 8)

    def forward(self, x):
        y = self.lin(x)                          # 4*8*8 MACs
        if torch.is_grad_enabled():
            y = y @ torch.ones(8, 8, device=y.device)
        return y


def test_summary_records_the_inference_forward():
    # what an eager forward under no_grad computes, on meta and on the
    # model's own device alike; the training step records the other branch
    m = GradOnly()
    x = torch.zeros(4, 8)
    meta = nnscan.summary(m, inputs=x, file=False)
    own = nnscan.summary(m, inputs=x, file=False, device="model")
    assert meta.device == "meta" and own.device == "cpu"
    assert meta.totals["macs"] == own.totals["macs"] == 4 * 8 * 8


def test_own_device_run_matches_meta():
    torch.manual_seed(0)
    import torchvision
    m = torchvision.models.resnet18().eval()
    a = nnscan.summary(m, (3, 64, 64), file=False)
    b = nnscan.summary(m, (3, 64, 64), file=False, device="model")
    assert b.device == "cpu"
    assert a.json == b.json


def test_inputs_forms():
    class Two(nn.Module):
        def __init__(self):
            super().__init__()
            self.fc = nn.Linear(4, 3)

        def forward(self, a, b=None):
            return self.fc(a) + (0 if b is None else self.fc(b))

    m = Two()
    per_call = 5 * 4 * 3
    one = nnscan.summary(m, (5, 4), file=False)            # torchscan shape
    two = nnscan.summary(m, [(5, 4), (5, 4)], file=False)  # list of shapes
    kw = nnscan.summary(m, inputs={"a": torch.zeros(1, 5, 4),
                                   "b": torch.zeros(1, 5, 4)}, file=False)
    tup = nnscan.summary(m, inputs=(torch.zeros(1, 5, 4),), file=False)
    assert one.totals["macs"] == tup.totals["macs"] == per_call
    assert two.totals["macs"] == kw.totals["macs"] == 2 * per_call
    assert [i["name"] for i in kw.json["inputs"]] == ["a", "b"]
    macs, params, _ = nnscan.profile(m, (torch.zeros(1, 5, 4),
                                         torch.zeros(1, 5, 4)), verbose=False)
    assert macs == 2 * per_call
    with pytest.raises(ValueError, match="exactly one"):
        nnscan.summary(m, (5, 4), inputs=torch.zeros(1, 5, 4), file=False)


def test_half_and_int_dtypes():
    m = nn.Linear(8, 8).half()
    s = nnscan.summary(m, (2, 8), file=False)
    assert s.json["inputs"][0]["dtype"] == "float16"
    assert s.totals["param_bytes"] == (64 + 8) * 2


def test_unmapped_op_is_listed_not_dropped():
    class Odd(nn.Module):
        def forward(self, x):
            return torch.cummax(x, 1)[0] + 1

    s = nnscan.summary(Odd(), (3, 5), file=False)
    assert s.uncounted_aten == {"cummax": 1}
    ops = {o["op_type"]: o for o in s.json["uncounted_ops"]}
    assert "cummax" in ops
    assert s.totals["flags"]["partial"]
    # the Add after it still has its shape, so it is counted
    assert s.layer("")["output"]["shape"] == [1, 3, 5]


def test_custom_ops_replace_a_subtree():
    class Block(nn.Module):
        def __init__(self):
            super().__init__()
            self.fc = nn.Linear(4, 4)

        def forward(self, x):
            return self.fc(x)

    m = nn.Sequential(Block(), nn.Linear(4, 2))
    x = torch.zeros(1, 4)
    macs, params, info = nnscan.profile(m, x, verbose=False,
                                        custom_ops={Block: lambda mod, i, o: 1000})
    assert macs == 1000 + 4 * 2
    names = [r[0] for r in info.rows]
    assert names == ["0", "1"]  # the custom module is its own row
    assert params == 4 * 4 + 4 + 4 * 2 + 2


class SchemaOp:
    """An aten op as the recorder reads one (its schema, its packet's
    name), for an op this PyTorch has not: a call of it recorded as the
    dispatcher would hand it over, which the library's table lowers."""

    def __init__(self, schema):
        self._schema = torch._C.parse_schema(schema)
        name = self._schema.name.split("::")[1]
        self.overloadpacket = types.SimpleNamespace(__name__=name)

    def __str__(self):
        return f"aten.{self.overloadpacket.__name__}.default"


# the 2.x fused attention ops' schemas (native_functions.yaml)
SDPA = {
    "scaled_dot_product_attention":
        "aten::scaled_dot_product_attention(Tensor query, Tensor key, "
        "Tensor value, Tensor? attn_mask=None, float dropout_p=0.0, "
        "bool is_causal=False, *, float? scale=None, bool enable_gqa=False)"
        " -> Tensor",
    "_scaled_dot_product_flash_attention":
        "aten::_scaled_dot_product_flash_attention(Tensor query, "
        "Tensor key, Tensor value, float dropout_p=0.0, "
        "bool is_causal=False, bool return_debug_mask=False, *, "
        "float? scale=None) -> (Tensor output, Tensor logsumexp, "
        "Tensor cum_seq_q, Tensor cum_seq_k, SymInt max_q, SymInt max_k, "
        "Tensor rng_state, Tensor unused, Tensor debug_attn_mask)",
    "_scaled_dot_product_efficient_attention":
        "aten::_scaled_dot_product_efficient_attention(Tensor query, "
        "Tensor key, Tensor value, Tensor? attn_bias, "
        "bool compute_log_sumexp, float dropout_p=0.0, "
        "bool is_causal=False, *, float? scale=None) -> (Tensor output, "
        "Tensor log_sumexp, Tensor philox_seed, Tensor philox_offset)",
    "_scaled_dot_product_flash_attention_for_cpu":
        "aten::_scaled_dot_product_flash_attention_for_cpu(Tensor query, "
        "Tensor key, Tensor value, float dropout_p=0.0, "
        "bool is_causal=False, *, Tensor? attn_mask=None, "
        "float? scale=None) -> (Tensor output, Tensor logsumexp)",
}


def sdpa_outputs(name, out, S):
    """What a call of the fused attention op `name` returns, its attention
    output `out` [b, h, L, d] over S keys (the rest as the kernels make
    them on CPU: empty where they keep nothing)."""
    b, h, L, _ = out.shape

    def t(*dims, dtype=torch.float32):
        return torch.empty(dims, dtype=dtype, device="meta")
    lse = t(b, h, L)
    return {
        "scaled_dot_product_attention": out,
        "_scaled_dot_product_flash_attention_for_cpu": (out, lse),
        "_scaled_dot_product_efficient_attention": (
            out, lse, t(dtype=torch.int64), t(dtype=torch.int64)),
        "_scaled_dot_product_flash_attention": (
            out, lse, t(0, dtype=torch.int64), t(0, dtype=torch.int64), L,
            S, t(2, dtype=torch.int64), t(0, dtype=torch.int64), t(0)),
    }[name]


def attention_call(name, inputs, args, kwargs, out):
    """nnscan.Summary of a graph of one recorded call of the fused
    attention op `name` on `inputs` [(name, tensor)], through the tape."""
    from nnscan.graph import Graph
    from nnscan.recorder import Builder
    g = Graph("attn")
    bd = Builder(g, {})
    for n, t in inputs:
        bd._declare(t, n)
        g.inputs.append(n)
    recorder.record(bd, SchemaOp(SDPA[name]), args, kwargs,
                    sdpa_outputs(name, out, args[1].shape[-2]))
    assert bd.uncounted == {} and g.aten, name
    g.outputs.append(bd.name(out))
    hd = g.build()
    hd.infer()
    return nnscan.Summary(hd.analyze())


def _attention_macs(b, h, L, S, d):
    return 2 * b * h * L * S * d


def test_sdpa_calls_count_both_products():
    """The 2.x fused attention ops (not dispatched by torch 1.13), their
    calls recorded as the dispatcher hands them over, go through the
    table's lowering: q k^T and probs v, each b*h*L*S*d MACs."""
    b, h, L, S, d = 2, 4, 8, 6, 16
    q = torch.empty(b, h, L, d, device="meta")
    k = torch.empty(b, h, S, d, device="meta")
    v = torch.empty(b, h, S, d, device="meta")
    out = torch.empty(b, h, L, d, device="meta")
    for name in ("scaled_dot_product_attention",
                 "_scaled_dot_product_flash_attention",
                 "_scaled_dot_product_efficient_attention"):
        args = (q, k, v)
        if name == "_scaled_dot_product_efficient_attention":
            args += (None, False)  # attn_bias, compute_log_sumexp
        s = attention_call(name, (("q", q), ("k", k), ("v", v)), args,
                           {"is_causal": True}, out)
        assert s.totals["macs"] == _attention_macs(b, h, L, S, d), name
        assert s.json["outputs"][0]["shape"] == [b, h, L, d]


@pytest.mark.parametrize("device", ["auto", "model"])
def test_multihead_attention_fast_path(device):
    """nn.MultiheadAttention in eval with frozen weights under no_grad on
    CPU (device="model") takes aten._native_multi_head_attention, which the
    table's lowering spells out; on meta it decomposes. Both count the
    same."""
    E, h, L = 32, 4, 10
    m = nn.MultiheadAttention(E, h, batch_first=True).eval()
    for p in m.parameters():
        p.requires_grad_(False)

    class Wrap(nn.Module):
        def __init__(self):
            super().__init__()
            self.attn = m

        def forward(self, x):
            return self.attn(x, x, x, need_weights=False)[0]

    want = L * 3 * E * E + 2 * h * L * L * (E // h) + L * E * E
    s = nnscan.summary(Wrap(), (L, E), file=False, device=device)
    fused = any("_native_multi_head_attention" in src
                for src in s._recording_sources)
    assert fused == (device == "model")
    assert s.totals["macs"] == want
    assert s.totals["params"] + s.totals["frozen"] == \
        sum(p.numel() for p in m.parameters())


def test_shape_disagreement_warns_naming_the_op(monkeypatch):
    """A lowering whose shape is not PyTorch's (a wrong table entry) is
    caught by comparing the library's inferred shapes with PyTorch's,
    naming the op and its module: here PyTorch's shape of relu's output is
    made another than the library's Relu infers, its last two dims
    swapped as it is recorded."""
    from nnscan import aten_call
    real = recorder.record

    def swapped(b, func, args, kwargs, out):
        real(b, func, args, kwargs, out)
        if aten_call.base_name(func) == "relu":
            name = b.name(out)
            dims = b.shape_of[name]
            b.shape_of[name] = dims[:-2] + (dims[-1], dims[-2])
    monkeypatch.setattr(recorder, "record", swapped)
    m = nn.Sequential(nn.Conv2d(3, 4, 3), nn.ReLU())
    with pytest.warns(torch_api.ShapeMismatch,
                      match=r"aten.relu.* module '1' .*\(1, 4, 8, 6\).*"
                            r"\(1, 4, 6, 8\)"):
        nnscan.summary(m, (3, 8, 10), file=False)


def test_crawl_module_is_torchscans_dictionary():
    torch.manual_seed(0)
    import torchvision
    m = torchvision.models.resnet18().eval()
    m.fc.weight.requires_grad_(False)
    d = nnscan.crawl_module(m, (3, 64, 64))
    keys = {"name", "depth", "type", "input_shape", "output_shape",
            "grad_params", "nograd_params", "param_size", "num_buffers",
            "buffer_size", "flops", "macs", "dmas", "rf", "s", "p",
            "is_shared", "is_leaf"}
    assert all(keys <= set(row) for row in d["layers"])
    rows = {r["name"] if r["depth"] <= 1 else None: r for r in d["layers"]}
    assert d["layers"][0]["name"] == "resnet" and d["layers"][0]["type"] == "ResNet"
    assert len(d["layers"]) == len(list(m.named_modules()))
    conv1, fc = rows["conv1"], rows["fc"]
    assert conv1["input_shape"] == (-1, 3, 64, 64)
    assert conv1["output_shape"] == (-1, 64, 32, 32)
    assert conv1["grad_params"] == 64 * 3 * 49 and conv1["is_leaf"]
    assert conv1["macs"] == 64 * 32 * 32 * 3 * 49
    assert (conv1["rf"], conv1["s"], conv1["p"]) == (7, 2, 3)
    assert fc["grad_params"] == 1000 and fc["nograd_params"] == 512 * 1000
    bn = rows["bn1"]
    assert bn["num_buffers"] == 64 + 64 + 1  # with num_batches_tracked
    o = d["overall"]
    assert o["grad_params"] + o["nograd_params"] == sum(p.numel() for p in m.parameters())
    assert o["nograd_params"] == 512 * 1000
    assert o["macs"] == sum(r["macs"] for r in d["layers"] if r["depth"] == 1)


def test_normalize_and_norm_have_entries():
    class N(nn.Module):
        def forward(self, x):
            return F.normalize(x, dim=-1) + x.norm(p=1, dim=1, keepdim=True)

    s = nnscan.summary(N(), (4, 6), file=False)
    assert s.uncounted_aten == {} and s.json["uncounted_ops"] == []
    ops = {o["op_type"] for o in s.json["op_types"]}
    assert {"ReduceL2", "ReduceL1"} <= ops


@pytest.mark.parametrize("norm_first", [False, True])
def test_transformer_encoder_fused_path_counts_like_decomposed(norm_first):
    """On CPU under no_grad, nn.TransformerEncoderLayer runs one fused op
    (aten._transformer_encoder_layer_fwd); the table's lowering of it must
    count what the decomposed ops (recorded on meta) count, and the matrix
    products by hand: q, k, v, out projections, two attention products,
    two FFN, and two LayerNorms (METRICS.md: 2 MACs per element)."""
    torch.manual_seed(0)
    E, h, F_, L, n = 64, 4, 128, 12, 2
    enc = nn.TransformerEncoder(nn.TransformerEncoderLayer(
        E, h, F_, batch_first=True, norm_first=norm_first), n).eval()
    meta = nnscan.summary(enc, (L, E), file=False)
    fused = nnscan.summary(enc, (L, E), file=False, device="model")
    assert meta.device == "meta" and fused.device == "cpu"
    assert any("_transformer_encoder_layer_fwd" in s
               for s in fused._recording_sources)
    want = n * (4 * L * E * E + 2 * L * L * E + 2 * L * E * F_ + 2 * 2 * L * E)
    assert meta.totals["macs"] == fused.totals["macs"] == want
    assert fused.totals["params"] == meta.totals["params"] == \
        sum(p.numel() for p in enc.parameters())
    assert fused.uncounted_aten == {}


def test_lstm_matrix_products():
    m = nn.LSTM(32, 64, 2, batch_first=True)
    s = nnscan.summary(m, (5, 32), file=False)
    per_step = 4 * 64 * 32 + 4 * 64 * 64 + 4 * 64 * 64 * 2
    assert s.totals["macs"] == 5 * per_step
    assert s.totals["params"] == sum(p.numel() for p in m.parameters())
    assert s.uncounted_aten == {}


def test_module_made_in_forward_counts_in_its_caller():
    class Maker(nn.Module):
        def forward(self, x):
            return nn.ReLU()(x) * 2   # a module the model does not hold

    s = nnscan.summary(nn.Sequential(Maker()), (4,), file=False)
    assert s.modules["0"]["calls"] == 1
    assert s.layer("0")["flops"] == 4 + 4  # Relu + Mul, in their caller


def test_shared_module_under_two_names_is_one_row():
    class Shared(nn.Module):
        def __init__(self):
            super().__init__()
            self.block = nn.Linear(8, 8)
            self.again = self.block          # the same module, two names

        def forward(self, x):
            return self.again(self.block(x))

    s = nnscan.summary(Shared(), (8,), file=False)
    assert s.totals["params"] == 8 * 8 + 8
    assert s.modules["block"]["calls"] == 2
    assert [l["path"] for l in s.layers] == ["", "block"]
    assert s.layer("block")["macs"] == 2 * 8 * 8


@pytest.mark.parametrize("bad, kind, words", [
    ("notashape", TypeError, "input_shape[0] must be a sequence"),
    ((3, "8"), TypeError, "input_shape[0] dim 1 must be an int"),
    ([(3, 8), (2.5,)], TypeError, "input_shape[1] dim 0 must be an int"),
    ((3, -1), ValueError, "input_shape[0] dim 1 is negative"),
])
def test_bad_input_shape_names_input_and_dim(bad, kind, words):
    import torch
    model = torch.nn.Linear(8, 4)
    with pytest.raises(kind) as e:
        nnscan.summary(model, bad, file=False)
    assert words in str(e.value)


class IntegerDivisions(nn.Module):
    """torch.div of two Python numbers (Longformer sizes its attention
    chunks so: the dispatch mode sees div.Tensor_mode(512, 256)), and a
    floor division of floats."""

    def forward(self, x):                               # x: (2, 8)
        half = torch.div(x.shape[-1], 2, rounding_mode="floor")
        return torch.div(x[:, :int(half)], 3.0, rounding_mode="floor")


def test_division_of_two_numbers_and_floor_division():
    s = nnscan.summary(IntegerDivisions(), inputs=torch.zeros(2, 8),
                       file=False)
    assert s.uncounted_aten == {}
    ops = {o["op_type"]: o for o in s.json["op_types"]}
    # the float floor division is a Div and a Floor over the 2 x 4 slice,
    # 1 FLOP per element each (docs/metrics.md); the numbers' division
    # is a Div of two scalars
    assert ops["Floor"]["flops"] == 2 * 4
    assert ops["Div"]["flops"] == 2 * 4 + 1


class CpuScalarFill(nn.Module):
    """A 0-dimensional CPU tensor meeting an activation, as SEW-D's
    attention fills masked scores with torch.tensor(finfo.min): PyTorch
    allows a CPU scalar on any device, meta kernels refuse it."""

    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(8, 8)

    def forward(self, x):                          # x: (4, 8)
        h = self.lin(x)                            # 4*8*8 MACs
        return h.masked_fill(h > 0, torch.tensor(-1e4))


def test_cpu_scalar_meeting_a_meta_tensor_records_on_meta():
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no fallback to the CPU
        s = nnscan.summary(CpuScalarFill(), inputs=torch.zeros(4, 8),
                           file=False)
    assert s.device == "meta"
    assert s.totals["macs"] == 4 * 8 * 8
    assert s.uncounted_aten == {}


def test_nan_to_num_is_counted():
    # IsNaN and two IsInf over the 3 x 5 input, 1 FLOP per element each
    # (docs/metrics.md), and the three Wheres that replace what they find
    m = type("NanToNum", (nn.Module,), {
        "forward": lambda self, x: torch.nan_to_num(x, posinf=1e4)})()
    s = nnscan.summary(m, inputs=torch.zeros(3, 5), file=False)
    assert s.uncounted_aten == {} and s.totals["complete"]
    ops = {o["op_type"]: o for o in s.json["op_types"]}
    assert ops["IsNaN"]["flops"] == 15 and ops["IsInf"]["flops"] == 30
    assert ops["Where"]["nodes"] == 3


def test_unique_is_counted():
    # BART's classification head checks the end-of-sentence counts with
    # unique_consecutive; its output's length is data (2 here), taken from
    # PyTorch's run, and Unique's cost is its input's read
    m = type("Uniq", (nn.Module,), {"forward": lambda self, x: (
        torch.unique_consecutive(x), torch.unique(x, return_counts=True))})()
    s = nnscan.summary(m, inputs=torch.tensor([[1, 1, 2, 2, 2]]), file=False)
    assert s.uncounted_aten == {} and s.totals["complete"]
    ops = {o["op_type"]: o for o in s.json["op_types"]}
    assert ops["Unique"]["nodes"] == 2


class _MakesAModule(nn.Module):
    """Calls a module it builds inside forward: a module of no path."""

    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 8)

    def forward(self, x):
        return nn.Flatten(0)(self.fc(x)).reshape(2, 8)


def test_a_module_built_in_forward_is_not_its_callers_output():
    """A module called inside forward but not held by the model runs in
    its caller's scope, and its output is none of the caller's: each
    module's input and output shapes are what PyTorch's own hooks see on
    the model (as they were before the change, the caller got the inner
    module's output as a first output, [16])."""
    model = nn.Sequential(_MakesAModule(), nn.ReLU())
    seen = {}
    handles = [m.register_forward_hook(
        lambda mod, i, o, p=p: seen.setdefault(p, []).append(list(o.shape)))
        for p, m in model.named_modules()]
    x = torch.zeros(2, 4)
    model(x)
    for h in handles:
        h.remove()
    s = nnscan.summary(model, inputs=x, file=False)
    for path, shapes in seen.items():
        assert s.modules[path]["output_shapes"] == shapes, path
    assert s.modules["0"]["input_shapes"] == [[2, 4]]
    # its nodes still count in the caller's scope (the Linear's MACs)
    row = next(r for r in s.layers if r["path"] == "0")
    assert row["macs"] == 2 * 4 * 8


class _Attention(nn.Module):
    def __init__(self):
        super().__init__()
        self.q = nn.Linear(4, 4)

    def forward(self, hidden_states, mask=None, scale=1.0):
        y = self.q(hidden_states) * scale
        return y if mask is None else y + mask


class _CallsByKeyword(nn.Module):
    """Calls its attention as transformers does: by keyword only."""

    def __init__(self):
        super().__init__()
        self.attn = _Attention()

    def forward(self, x):
        return self.attn(hidden_states=x, mask=torch.zeros(1, 3, 4))


@pytest.mark.skipif(not recorder._GLOBAL_HOOKS_TAKE_KWARGS,
                    reason="PyTorch 1.13's global forward hook takes no "
                           "keyword arguments")
def test_keyword_arguments_have_input_shapes():
    """A module's input shapes are its first call's positional tensors',
    then its keyword tensors', in the order given: what a forward
    pre-hook with with_kwargs=True on the model itself sees."""
    model = _CallsByKeyword()
    seen = {}

    def pre(mod, args, kwargs, p):
        tensors = [a for a in args if isinstance(a, torch.Tensor)] + \
            [v for v in kwargs.values() if isinstance(v, torch.Tensor)]
        seen.setdefault(p, [list(t.shape) for t in tensors])
    handles = [m.register_forward_pre_hook(
        lambda mod, a, k, p=p: pre(mod, a, k, p), with_kwargs=True)
        for p, m in model.named_modules()]
    x = torch.zeros(2, 3, 4)
    model(x)
    for h in handles:
        h.remove()
    s = nnscan.summary(model, inputs=x, file=False)
    assert seen["attn"] == [[2, 3, 4], [1, 3, 4]]
    for path, shapes in seen.items():
        assert s.modules[path]["input_shapes"] == shapes, path
