"""torch.export archives (.pt2) read by the library (src/pt2/), through
the CLI with no Python and through nnscan.summary(exported_program):
parameters exact against sum(p.numel()), matrix-product MACs against
PyTorch's FlopCounterMode, and params, MACs and FLOPs equal to
nnscan.summary of the same live model. Needs PyTorch 2.x (the sid
chroot); skipped on 1.13."""
import json
import os
import subprocess
import sys

import pytest

torch = pytest.importorskip("torch")
if not hasattr(torch, "export") or not hasattr(torch.export, "save"):
    pytest.skip("torch.export needs PyTorch 2.x", allow_module_level=True)

import nnscan  # noqa: E402

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
sys.path.insert(0, os.path.join(ROOT, "tools"))
import pt2_models  # noqa: E402

INPUT_NAMES = {"small_cnn": ["x"], "resnet18": ["x"],
               "tiny_llama": ["input_ids"]}


def cli():
    lib = os.environ.get("NNSCAN_LIBRARY", "")
    path = os.path.join(os.path.dirname(lib), "nnscan") if lib else ""
    if not os.path.exists(path):
        pytest.skip("no nnscan CLI beside NNSCAN_LIBRARY")
    return path


def matmul_macs(model, args):
    """MACs of convolutions and matrix products as PyTorch counts them
    (FlopCounterMode counts 2 FLOPs per MAC of exactly these ops)."""
    from torch.utils.flop_counter import FlopCounterMode
    with torch.no_grad(), FlopCounterMode(display=False) as fc:
        model(*args)
    return fc.get_total_flops() // 2


def product_macs(doc):
    """The MACs of a report's convolutions and matrix products."""
    return sum(r["macs"] for r in doc["op_types"]
               if r["op_type"] in ("Conv", "Gemm", "MatMul", "FusedMatMul"))


def export(name, tmp_path):
    torch.manual_seed(0)
    if name == "resnet18":
        pytest.importorskip("torchvision")
    path = str(tmp_path / f"{name}.pt2")
    model, args = pt2_models.export(name, path)
    return path, model, args


def cli_totals(path, name, args):
    cmd = [cli(), "summary", path, "--format", "json"]
    for n, a in zip(INPUT_NAMES[name], args):
        cmd += ["--input", n + "=" + "x".join(str(d) for d in a.shape)]
    out = subprocess.run(cmd, capture_output=True, text=True, check=True)
    return json.loads(out.stdout)


def save_program(ep, path):
    """torch.export.save, or a skip where this PyTorch cannot save the
    program: the archive is PyTorch's to make, and 2.11's serializer
    refuses some (no uint64, the seed flash attention returns; no node
    for vmap's lazy_load_decompositions) that 2.14's saves."""
    from torch._export.serde.serialize import SerializeError
    try:
        torch.export.save(ep, path)
    except SerializeError as e:
        pytest.skip(f"PyTorch {torch.__version__} cannot save this program: "
                    f"{str(e).splitlines()[-1]}")


def archive_json(ep, tmp_path, name, *options):
    """The CLI's JSON v1 report of exported program `ep`, saved as
    NAME.pt2 (options: --input NAME=DIMS and the like)."""
    path = str(tmp_path / f"{name}.pt2")
    save_program(ep, path)
    out = subprocess.run([cli(), "summary", path, "--format", "json",
                          *options],
                         capture_output=True, text=True, check=True)
    return json.loads(out.stdout)


def cli_v2(path):
    """The CLI's JSON v2 report of an archive."""
    out = subprocess.run([cli(), "summary", path, "--format", "json",
                          "--json-version", "2"],
                         capture_output=True, text=True, check=True)
    return json.loads(out.stdout)


@pytest.mark.parametrize("name", ["small_cnn", "resnet18", "tiny_llama"])
def test_cli_counts_equal_live(name, tmp_path):
    path, model, args = export(name, tmp_path)
    doc = cli_totals(path, name, args)
    t = doc["totals"]
    assert doc["unknown_ops"] == [] and doc["uncounted_ops"] == []
    want_params = sum(p.numel() for p in model.parameters())
    assert t["params"] == want_params
    live = nnscan.summary(model, inputs=args, file=False).totals
    for key in ("params", "macs", "flops"):
        assert t[key] == live[key], key
    # the matrix products' MACs alone: FlopCounterMode counts only those,
    # and the element-wise work adds none to MACs on these models but the
    # norms' and pools' (METRICS.md): compare per op type
    assert product_macs(doc) == matmul_macs(model, args)


def test_symbols_named_as_archive_and_fixed(tmp_path):
    import re
    import zipfile
    path, model, args = export("tiny_llama", tmp_path)
    # the archive's own names for input_ids' sizes, read from model.json
    with zipfile.ZipFile(path) as z:
        name = next(n for n in z.namelist()
                    if n.endswith("models/model.json"))
        graph = json.loads(z.read(name))["graph_module"]["graph"]
    sizes = graph["tensor_values"]["input_ids"]["sizes"]
    want = [re.match(r"Symbol\('([^']+)'", s["as_expr"]["expr_str"]).group(1)
            for s in sizes]
    out = subprocess.run([cli(), "summary", path, "--format", "json"],
                         capture_output=True, text=True, check=True)
    doc = json.loads(out.stdout)
    assert doc["inputs"][0]["shape"] == want
    assert doc["symbols_taken_as_1"] is True
    # fixed by symbol name: batch 3, sequence 40
    out = subprocess.run([cli(), "summary", path, "--format", "json",
                          "--input", f"{want[0]}=3", "--input",
                          f"{want[1]}=40"],
                         capture_output=True, text=True, check=True)
    big = json.loads(out.stdout)
    live = nnscan.summary(model, inputs=(torch.randint(0, 100, (3, 40)),),
                          file=False).totals
    assert big["totals"]["macs"] == live["macs"]
    assert big["totals"]["params"] == live["params"]


def test_summary_of_exported_program(tmp_path):
    model, args, dyn = pt2_models.small_cnn()
    ep = torch.export.export(model, args, dynamic_shapes=dyn)
    s = nnscan.summary(ep, file=False)
    live = nnscan.summary(model, inputs=args, file=False)
    for key in ("params", "macs", "flops"):
        assert s.totals[key] == live.totals[key], key
    # another batch than the example's
    s4 = nnscan.summary(ep, input_shape=(4, 3, 32, 32), file=False)
    assert s4.totals["macs"] == 2 * live.totals["macs"]


def test_cli_shapes_and_diff_take_pt2(tmp_path):
    path, model, args = export("small_cnn", tmp_path)
    exe = cli()
    for cmd in (["shapes", path], ["table", path], ["diff", path, path],
                ["summary", path, "--format", "html", "-o",
                 str(tmp_path / "p.html")]):
        r = subprocess.run([exe] + cmd, capture_output=True, text=True)
        assert r.returncode == 0, (cmd, r.stderr)
    # told by content, not by name
    renamed = tmp_path / "model.bin"
    renamed.write_bytes(open(path, "rb").read())
    r = subprocess.run([exe, "summary", str(renamed)], capture_output=True,
                       text=True)
    assert r.returncode == 0 and "Conv2d" in r.stdout


@pytest.mark.parametrize("name", ["hf-llama", "hf-gpt2", "hf-qwen2"])
def test_hf_decoder(name, tmp_path):
    """transformers' decoders (tiny configs): nothing uncounted, params
    exact, MACs equal to the live model's and to FlopCounterMode's. Their
    FLOPs differ a little, and not by a lowering: under torch.export
    transformers cannot skip the causal mask (eager mode checks the
    padding mask's values, `.all()`, and calls SDPA with no mask), so the
    exported program builds it (arange, le, and, index, expand) and SDPA
    applies it (where, add): tools/pt2_opdiff.py lists those ops; the
    archive's counts equal the exported program run live
    (tools/pt2_sweep.py's vs_program)."""
    pytest.importorskip("transformers")
    import pt2_sweep
    model, args = pt2_sweep.hf(name)
    path = str(tmp_path / f"{name}.pt2")
    with torch.no_grad():
        torch.export.save(torch.export.export(model, args), path)
    out = subprocess.run([cli(), "summary", path, "--format", "json"],
                         capture_output=True, text=True, check=True)
    doc = json.loads(out.stdout)
    assert doc["uncounted_ops"] == [] and doc["unknown_ops"] == []
    t = doc["totals"]
    assert t["params"] == sum(p.numel() for p in model.parameters())
    live = nnscan.summary(model, inputs=args, file=False).totals
    assert t["macs"] == live["macs"]
    # FlopCounterMode counts every matrix product but the attention's
    # (PyTorch's CPU SDPA kernel has no formula there): those two, per
    # layer and head, are counted by hand, seq^2 * head_dim each
    seq, layers, heads, head_dim = args[0].shape[1], 2, 4, 64 // 4
    attention = 2 * layers * heads * seq * seq * head_dim
    assert product_macs(doc) == matmul_macs(model, args) + attention


def test_module_calls_as_live(tmp_path):
    """A module called twice (BasicBlock's one ReLU) shows two calls, as
    the live recording counts them: torch.export keys each call of it
    apart ("relu", "relu@1")."""
    path, model, args = export("resnet18", tmp_path)
    got = {r["path"]: r["call_count"] for r in cli_v2(path)["layers"]}
    live = json.loads(nnscan.summary(model, inputs=args, file=False)
                      .to_json(version=2))
    want = {r["path"]: r["call_count"] for r in live["layers"]}
    assert got["layer1.0.relu"] == 2
    assert got == want


class WithAuxHead(torch.nn.Module):
    """GoogLeNet's shape: an auxiliary head whose forward runs only in
    training, so an eval-mode export has no node reading its weights."""

    def __init__(self):
        super().__init__()
        self.body = torch.nn.Linear(8, 8)
        self.aux = torch.nn.Sequential(torch.nn.Linear(8, 4),
                                       torch.nn.Linear(4, 2))

    def forward(self, x):
        y = self.body(x)
        return self.aux(y) if self.training else y


def test_unused_parameters_count(tmp_path):
    """Parameters no node reads still count, as sum(p.numel()) and the
    live recording count them (in their own module)."""
    model = WithAuxHead().eval()
    args = (torch.randn(2, 8),)
    path = str(tmp_path / "aux.pt2")
    torch.export.save(torch.export.export(model, args), path)
    doc = cli_v2(path)
    t = doc["totals"]["metrics"]
    assert t["params"]["value"] == sum(p.numel() for p in model.parameters())
    live = json.loads(nnscan.summary(model, inputs=args, file=False)
                      .to_json(version=2))
    assert doc["totals"]["metrics"] == live["totals"]["metrics"]
    assert doc["op_types"] == live["op_types"]
    got = {r["path"]: r["metrics"]["params"]["value"] for r in doc["layers"]}
    want = {r["path"]: r["metrics"]["params"]["value"]
            for r in live["layers"]}
    assert got == want and got["aux.0"] == 8 * 4 + 4



@pytest.mark.parametrize("family", ["gpt2", "gemma"])
def test_tied_weights_count_once(family, tmp_path):
    """A tied weight (the embedding table as the output projection, built
    by transformers from a config: python/tests_hf/hf_zoo.py): the archive
    lifts both names as parameters read by their nodes and stores the
    tensor once (model_weights_config.json's path_name); counted once, as
    sum(p.numel()) and the live recording count it."""
    pytest.importorskip("transformers")
    import pt2_sweep
    case = pt2_sweep.Case("hf:" + family)
    ep = case.export(case.inputs, False)
    path = str(tmp_path / "tied.pt2")
    torch.export.save(ep, path)
    out = subprocess.run([cli(), "summary", path, "--format", "json"],
                         capture_output=True, text=True, check=True)
    doc = json.loads(out.stdout)
    want = sum(p.numel() for p in case.model.parameters())
    assert doc["totals"]["params"] == want
    live = nnscan.summary(case.model, inputs=case.inputs, file=False)
    assert live.totals["params"] == want


class IndexBySizes(torch.nn.Module):
    """x[rows, cols] with index tensors made from x's own (dynamic)
    sizes: transformers' mask code (cumsum[batch_idx, pos_idx])."""

    def forward(self, x):
        rows = torch.arange(x.shape[0])[:, None]
        cols = torch.arange(x.shape[1])[None, :]
        return x.cumsum(-1)[rows, cols] * 2


def test_index_with_dynamic_sizes(tmp_path):
    """index by several tensors whose broadcast size is a symbol of the
    archive: lowered (GatherND), and at the live sizes every count equal
    to the live summary."""
    model = IndexBySizes()
    batch = torch.export.Dim("batch", min=1, max=64)
    ep = torch.export.export(model, (torch.randn(2, 7),),
                             dynamic_shapes={"x": {0: batch}})
    path = str(tmp_path / "index.pt2")
    torch.export.save(ep, path)
    out = subprocess.run([cli(), "summary", path, "--format", "json",
                          "--input", "x=3x7"],
                         capture_output=True, text=True, check=True)
    doc = json.loads(out.stdout)
    assert doc["uncounted_ops"] == [] and doc["unknown_ops"] == []
    live = nnscan.summary(model, inputs=(torch.randn(3, 7),),
                          file=False).totals
    for key in ("params", "flops", "macs"):
        assert doc["totals"][key] == live[key], key


def test_frozen_parameters(tmp_path):
    """A parameter with requires_grad=False (Marian's and Pegasus'
    sinusoidal position tables) is frozen in the archive's count, as live:
    trainable and frozen each equal sum(p.numel()) over their kind."""
    model = torch.nn.Sequential(torch.nn.Linear(8, 6), torch.nn.ReLU(),
                                torch.nn.Linear(6, 4)).eval()
    model[0].weight.requires_grad_(False)
    args = (torch.randn(2, 8),)
    path = str(tmp_path / "frozen.pt2")
    torch.export.save(torch.export.export(model, args), path)
    t = cli_v2(path)["totals"]["metrics"]
    ps = list(model.parameters())
    assert t["params"]["value"] == sum(p.numel() for p in ps
                                       if p.requires_grad)
    assert t["frozen"]["value"] == sum(p.numel() for p in ps
                                       if not p.requires_grad) == 48
    live = json.loads(nnscan.summary(model, inputs=args, file=False)
                      .to_json(version=2))["totals"]["metrics"]
    assert t["params"] == live["params"] and t["frozen"] == live["frozen"]


class MetaNorm(torch.nn.Module):
    """An embedding, a norm weight and a projection of other shapes: on
    the meta device torch.export.save gives every parameter one
    path_name (no storage to tell them apart)."""

    def __init__(self):
        super().__init__()
        self.emb = torch.nn.Embedding(50, 16)
        self.norm = torch.nn.Parameter(torch.ones(16))
        self.proj = torch.nn.Linear(16, 16, bias=False)

    def forward(self, ids):
        return self.proj(self.emb(ids) * self.norm)


def test_meta_export_parameters_are_not_tied(tmp_path):
    """Exported on the meta device (how a 7B model is exported without
    its weights): parameters that merely share the serializer's one
    path_name are not one tensor; the archive reads and counts each,
    params equal to sum(p.numel()) = 50*16 + 16 + 16*16, and every total
    equal to the live summary."""
    with torch.device("meta"):
        model = MetaNorm()
    ids = torch.zeros(2, 5, dtype=torch.long, device="meta")
    path = str(tmp_path / "meta.pt2")
    torch.export.save(torch.export.export(model, (ids,)), path)
    doc = cli_v2(path)
    t = doc["totals"]["metrics"]
    assert t["params"]["value"] == sum(
        p.numel() for p in model.parameters()) == 50 * 16 + 16 + 16 * 16
    live = json.loads(nnscan.summary(model, inputs=(ids,), file=False)
                      .to_json(version=2))
    for key in ("params", "flops", "macs"):
        assert t[key] == live["totals"]["metrics"][key], key


class FlatProjection(torch.nn.Module):
    """GPT-2's Conv1D: rows flattened, a product, the rows viewed back
    as (batch, seq, N): with both sizes dynamic the last view's sizes are
    two symbols no constant spells."""

    def __init__(self):
        super().__init__()
        self.w = torch.nn.Parameter(torch.randn(8, 16))

    def forward(self, x):
        b, s, _ = x.shape
        y = torch.addmm(torch.zeros(16), x.reshape(-1, 8), self.w)
        return y.view(b, s, 16).relu()


def test_view_of_two_symbols(tmp_path):
    """Read at batch 3, sequence 5: nothing uncounted and every count equal
    to the live summary (the product's 3*5*8*16 = 1,920 MACs)."""
    model = FlatProjection().eval()
    batch, seq = torch.export.Dim("batch", min=2, max=64), \
        torch.export.Dim("seq", min=2, max=64)
    ep = torch.export.export(model, (torch.randn(2, 4, 8),),
                             dynamic_shapes=({0: batch, 1: seq},))
    name = str(ep.graph_signature.user_inputs[0])
    x = torch.randn(3, 5, 8)
    doc = archive_json(ep, tmp_path, "flat", "--input", f"{name}=3x5x8")
    assert doc["uncounted_ops"] == [] and doc["unknown_ops"] == []
    live = nnscan.summary(model, inputs=(x,), file=False).totals
    assert doc["totals"]["macs"] == live["macs"] == 3 * 5 * 8 * 16
    for key in ("params", "flops"):
        assert doc["totals"][key] == live[key], key


class RepeatByBatch(torch.nn.Module):
    """A table repeated once per batch row (whisper's positions): the
    repeat count is the batch's symbol."""

    def __init__(self):
        super().__init__()
        self.p = torch.nn.Parameter(torch.randn(6))

    def forward(self, x):
        return x * self.p.unsqueeze(0).repeat(x.shape[0], 1)


def test_repeat_by_a_symbol(tmp_path):
    """Read at batch 3: nothing uncounted, every count equal to the live
    summary (the Mul's 3*6 = 18 FLOPs among them)."""
    model = RepeatByBatch().eval()
    ep = torch.export.export(
        model, (torch.randn(2, 6),),
        dynamic_shapes=({0: torch.export.Dim("batch", min=2, max=64)},))
    name = str(ep.graph_signature.user_inputs[0])
    doc = archive_json(ep, tmp_path, "repeat", "--input", f"{name}=3x6")
    assert doc["uncounted_ops"] == [] and doc["unknown_ops"] == []
    live = nnscan.summary(model, inputs=(torch.randn(3, 6),),
                          file=False).totals
    for key in ("params", "flops", "macs"):
        assert doc["totals"][key] == live[key], key
    mul = [r for r in doc["op_types"] if r["op_type"] == "Mul"]
    assert sum(r["flops"] for r in mul) == 18


class HeadsIntoBatch(torch.nn.Module):
    """BLOOM's heads folded into the batch, (b, 4, s, 16) -> (4*b, s, 16),
    and a table full_like a flattened (b*s, 4) (Llama-4's router): sizes
    that are expressions of the symbols, which no input holds."""

    def forward(self, x):
        b, s, _ = x.shape
        h = x.view(b, s, 4, 16).transpose(1, 2).reshape(4 * b, s, 16)
        r = x.reshape(-1, 64)[:, :4]
        return h.sum(), torch.full_like(r, float("-inf")).maximum(r)


def test_sizes_that_are_expressions(tmp_path):
    """Read at batch 3, sequence 5: nothing uncounted, every count equal
    to the live summary."""
    model = HeadsIntoBatch().eval()
    batch, seq = torch.export.Dim("batch", min=2, max=64), \
        torch.export.Dim("seq", min=2, max=64)
    try:
        ep = torch.export.export(model, (torch.randn(2, 4, 64),),
                                 dynamic_shapes=({0: batch, 1: seq},))
    except torch._dynamo.exc.UserError as e:
        # 2.11 proves no min(16*seq, 64*seq) == 16*seq; 2.14 exports it
        if "Constraints violated" not in str(e):
            raise
        pytest.skip(f"PyTorch {torch.__version__} cannot export the "
                    f"model with these dims: {str(e).splitlines()[0]}")
    name = str(ep.graph_signature.user_inputs[0])
    doc = archive_json(ep, tmp_path, "expr", "--input", f"{name}=3x5x64")
    assert doc["uncounted_ops"] == [] and doc["unknown_ops"] == []
    live = nnscan.summary(model, inputs=(torch.randn(3, 5, 64),),
                          file=False).totals
    for key in ("params", "flops", "macs"):
        assert doc["totals"][key] == live[key], key
