"""Mixture-of-experts parameters and prefill/decode steps on hand-written
modules (torch 1.13 and 2.x), and an ONNX decoder with past key/values
through the CLI. References: sum(p.numel()) of the experts, the MACs of
the products worked out by hand, cache sizes from the shapes
(2 * layers * kv_heads * head_dim * tokens * dtype size)."""
import os
import subprocess
import warnings

import pytest
import torch
from torch import nn

import nnscan

MATMUL_OPS = ("MatMul", "Gemm", "Einsum")


def matmul_macs(summary):
    return sum(o["macs"] for o in summary.json["op_types"]
               if o["op_type"] in MATMUL_OPS)


# ---- mixture of experts ----

class Expert(nn.Module):
    def __init__(self, d, h):
        super().__init__()
        self.up = nn.Linear(d, h, bias=False)
        self.down = nn.Linear(h, d, bias=False)

    def forward(self, x):
        return self.down(torch.relu(self.up(x)))


class ListMoE(nn.Module):
    """One module per expert; each token's rows gathered per expert (the
    routing reads the router's values: it runs on the model's device)."""

    def __init__(self, d=8, h=16, n=4, k=2):
        super().__init__()
        self.k = k
        self.gate = nn.Linear(d, n, bias=False)
        self.experts = nn.ModuleList(Expert(d, h) for _ in range(n))

    def forward(self, x):
        flat = x.reshape(-1, x.shape[-1])
        w, idx = self.gate(flat).softmax(-1).topk(self.k, dim=-1)
        out = torch.zeros_like(flat)
        for e, expert in enumerate(self.experts):
            rows, slot = (idx == e).nonzero(as_tuple=True)
            y = expert(flat[rows]) * w[rows, slot].unsqueeze(-1)
            out = out.index_add(0, rows, y)
        return out.reshape(x.shape)


class GroupedMoE(nn.Module):
    """Experts as (E, ...) weights, each token's k experts gathered: no
    data-dependent shape, so it records on meta."""

    def __init__(self, d=8, h=16, n=4, k=2):
        super().__init__()
        self.k = k
        self.gate = nn.Linear(d, n, bias=False)
        self.experts = nn.Module()
        self.experts.up = nn.Parameter(torch.randn(n, d, h))
        self.experts.down = nn.Parameter(torch.randn(n, h, d))

    def forward(self, x):
        flat = x.reshape(-1, x.shape[-1])
        w, idx = self.gate(flat).softmax(-1).topk(self.k, dim=-1)
        up = self.experts.up[idx]            # (T, k, d, h)
        down = self.experts.down[idx]        # (T, k, h, d)
        hid = torch.relu(torch.matmul(flat[:, None, None, :], up))
        y = torch.matmul(hid, down)[:, :, 0, :]  # (T, k, d)
        return (y * w.unsqueeze(-1)).sum(1).reshape(x.shape)


class Block(nn.Module):
    def __init__(self, moe, d=8):
        super().__init__()
        self.inp = nn.Linear(d, d)
        self.moe = moe
        self.out = nn.Linear(d, d)

    def forward(self, x):
        return self.out(self.moe(self.inp(x)))


def _expert_params(block):
    return sum(p.numel() for p in block.moe.experts.parameters())


@pytest.mark.parametrize("cls", [ListMoE, GroupedMoE])
def test_params_active_is_shared_plus_k_of_e(cls):
    torch.manual_seed(0)
    block = Block(cls(n=4, k=2))
    total = sum(p.numel() for p in block.parameters())
    experts = _expert_params(block)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # ListMoE runs on the CPU
        s = nnscan.summary(block, inputs=torch.randn(1, 5, 8), file=False)
    assert s.totals["params"] == total
    assert s.totals["params_active"] == total - experts + experts * 2 // 4
    if cls is ListMoE:  # GroupedMoE never calls its experts module
        row = s.layer("moe.experts")
        assert row["params"] == experts
        assert row["params_active"] == experts // 2
    assert s.layer("moe")["params_active"] == \
        sum(p.numel() for p in block.moe.gate.parameters()) + experts // 2
    # a dense layer beside the experts: every parameter is active
    assert s.layer("inp")["params_active"] == \
        sum(p.numel() for p in block.inp.parameters())
    assert "Active params" in s.to_text()


@pytest.mark.parametrize("cls", [ListMoE, GroupedMoE])
def test_expert_macs_are_tokens_times_k_evaluations(cls):
    """However the router spreads the 5 tokens, 5 x 2 expert evaluations
    of d*h + h*d MACs each run."""
    torch.manual_seed(0)
    block = Block(cls(d=8, h=16, n=4, k=2))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        s = nnscan.summary(block, inputs=torch.randn(1, 5, 8), file=False)
    experts = s.layer("moe.experts") if cls is ListMoE else None
    got = experts["macs"] if experts else \
        matmul_macs(s) - 5 * 8 * 8 * 2 - 5 * 8 * 4
    assert got == 5 * 2 * (8 * 16 + 16 * 8)


def test_weight_bytes_read_reaches_k_experts_per_token():
    block = Block(GroupedMoE(n=8, k=2))
    experts_bytes = _expert_params(block) * 4
    every = sum(p.numel() for p in block.parameters()) * 4
    one = nnscan.summary(block, inputs=torch.randn(1, 1, 8), file=False)
    assert one.totals["param_bytes"] == every
    assert one.totals["weight_bytes_read"] == \
        every - experts_bytes + experts_bytes * 2 // 8
    # 3 tokens reach at most 6 of the 8 experts; 4 tokens all of them
    three = nnscan.summary(block, inputs=torch.randn(1, 3, 8), file=False)
    assert three.totals["weight_bytes_read"] == \
        every - experts_bytes + experts_bytes * 6 // 8
    four = nnscan.summary(block, inputs=torch.randn(1, 4, 8), file=False)
    assert "weight_bytes_read" not in four.totals


def test_dense_model_reports_every_param_active():
    """A dense model's params_active is its params (issue 40, item 4): in
    the totals, on every layer, in both JSON versions; the text shows no
    separate "Active params" for it."""
    m = nn.Sequential(nn.Linear(4, 4), nn.ReLU(), nn.Linear(4, 3))
    m[2].weight.requires_grad_(False)  # frozen params are active too
    s = nnscan.summary(m, inputs=torch.randn(1, 4), file=False)
    # by hand: 4*4+4 + 4*3+3 = 35, of which 12 frozen
    assert s.totals["params"] + s.totals.get("frozen", 0) == 35
    assert s.totals["params_active"] == 35
    assert s.layer("0")["params_active"] == 20
    assert s.layer("1")["params_active"] == 0
    assert s.layer("2")["params_active"] == 15
    assert s.v2["totals"]["params_active"] == 35
    assert "Active params" not in s.to_text()
    assert "kv_cache_bytes" not in s.totals


# ---- prefill and decode ----

class TinyDecoder(nn.Module):
    """A GQA decoder with its own cache: a list of (key, value) per layer,
    keys (batch, kv_heads, tokens, head_dim)."""

    def __init__(self, vocab=32, d=16, heads=4, kv_heads=2, layers=2):
        super().__init__()
        self.h, self.kvh, self.hd = heads, kv_heads, d // heads
        self.emb = nn.Embedding(vocab, d)
        self.layers = nn.ModuleList(nn.ModuleDict({
            "q": nn.Linear(d, d, bias=False),
            "k": nn.Linear(d, kv_heads * self.hd, bias=False),
            "v": nn.Linear(d, kv_heads * self.hd, bias=False),
            "o": nn.Linear(d, d, bias=False)}) for _ in range(layers))
        self.lm = nn.Linear(d, vocab, bias=False)

    def forward(self, ids, past=None):
        x = self.emb(ids)
        b, t, _ = x.shape
        present = []
        for i, layer in enumerate(self.layers):
            q = layer["q"](x).view(b, t, self.h, self.hd).transpose(1, 2)
            k = layer["k"](x).view(b, t, self.kvh, self.hd).transpose(1, 2)
            v = layer["v"](x).view(b, t, self.kvh, self.hd).transpose(1, 2)
            if past is not None:
                k = torch.cat([past[i][0], k], 2)
                v = torch.cat([past[i][1], v], 2)
            present.append((k, v))
            rep = self.h // self.kvh
            kk = k.repeat_interleave(rep, 1)
            vv = v.repeat_interleave(rep, 1)
            att = (q @ kk.transpose(2, 3)).softmax(-1)
            x = x + layer["o"]((att @ vv).transpose(1, 2).reshape(b, t, -1))
        return self.lm(x), present


def tiny_step(model, inputs, past):
    return model(inputs["input_ids"], past)


def _decode_macs_by_hand(m, batch, past, new=1):
    d, L = 16, len(m.layers)
    kvd = m.kvh * m.hd
    per_layer = batch * new * (d * d * 2 + d * kvd * 2) \
        + 2 * batch * m.h * new * (past + new) * m.hd
    return L * per_layer + batch * new * d * 32


def test_decode_steps_kv_bytes_and_macs():
    torch.manual_seed(0)
    m = TinyDecoder()
    ids = torch.zeros(2, 6, dtype=torch.long)
    p = nnscan.profile_generate(m, inputs={"input_ids": ids},
                                max_new_tokens=4, step=tiny_step)
    per_token_entry = 2 * len(m.layers) * m.kvh * m.hd * 4  # K and V, fp32
    assert [r["step"] for r in p.steps] == ["prefill", 1, 2, 3]
    pre = p.steps[0]
    assert pre["kv_cache_bytes_read"] == 0
    assert pre["kv_cache_bytes"] == pre["kv_cache_bytes_written"] == \
        per_token_entry * 2 * 6
    assert matmul_macs(p.prefill) == _decode_macs_by_hand(m, 2, 0, new=6)
    for j, r in enumerate(p.steps[1:]):
        past = 6 + j
        assert r["past"] == past and r["tokens"] == 2
        assert r["kv_cache_bytes_read"] == per_token_entry * 2 * past
        assert r["kv_cache_bytes_written"] == per_token_entry * 2
        assert r["kv_cache_bytes"] == per_token_entry * 2 * (past + 1)
        assert matmul_macs(p.decode[past]) == _decode_macs_by_hand(m, 2, past)
        assert r["weight_bytes_read"] == \
            sum(q.numel() for q in m.parameters()) * 4
    names = [v["name"] for v in p.decode[6].json["inputs"]]
    assert "past_key_values.1.value" in names
    # batch 2, 4 new tokens: 8 tokens generated (issue 41 item 6)
    assert p.generated_tokens == p.json["generated_tokens"] == 8
    assert p.per_token["macs"] == sum(r["macs"] for r in p.steps) / 8
    assert p.per_token["kv_cache_bytes"] == p.steps[-1]["kv_cache_bytes"]
    text = p.to_text()
    assert "prefill" in text and "per token" in text
    assert "over the 8 tokens generated (2 rows x 4 new tokens)" in text


def _clever(v, bytes_=False):
    """The library's clever number, written here by hand (docs/cli.md,
    "Numbers"): three significant digits over k, M, G (1000) or KiB, MiB,
    GiB (1024); below the first unit the whole value ("181 B")."""
    base = 1024 if bytes_ else 1000
    units = ("B", "KiB", "MiB", "GiB") if bytes_ else ("", "k", "M", "G")
    x, u = float(v), 0
    while x >= base and u < len(units) - 1:
        x, u = x / base, u + 1
    if u == 0:
        return f"{int(v)} B" if bytes_ else str(int(v))
    digits = 0 if x >= 99.95 else 1 if x >= 9.995 else 2
    return f"{x:.{digits}f} {units[u]}"


def test_generate_table_reads_in_the_librarys_units():
    """The steps' table and its per-token row come from the library
    (nns_generation_report) in its clever units, as every other report
    writes them: counts 1.82 G, bytes 44.6 MiB (no raw 5-digit integers,
    no bare floats); the per-token sums are checked against the MACs and
    cache bytes worked out by hand, and the masked counts are named
    "(mask)", never "unmasked" (issue 41 item 6, issue 42 item 4)."""
    import re
    torch.manual_seed(0)
    m = TinyDecoder()
    ids = torch.zeros(2, 6, dtype=torch.long)
    p = nnscan.profile_generate(m, inputs={"input_ids": ids},
                                max_new_tokens=4, step=tiny_step)
    text = p.to_text()
    assert "unmasked" not in text
    assert not re.search(r"\d{5,}", text), text
    lines = text.splitlines()
    assert lines[0].split()[:3] == ["Step", "Tokens", "Past"]
    assert "FLOPs (mask)" in lines[0] and "MACs (mask)" in lines[0]
    assert "KV cache" in lines[0] and "(B)" not in lines[0]
    # by hand: the prefill (6 tokens, 2 rows) and 3 decode steps over a
    # past of 6, 7, 8; 8 tokens generated
    macs = _decode_macs_by_hand(m, 2, 0, new=6) + sum(
        _decode_macs_by_hand(m, 2, 6 + j) for j in range(3))
    entry = 2 * len(m.layers) * m.kvh * m.hd * 4  # K and V of a token, fp32
    read = entry * 2 * (6 + 7 + 8)
    written = entry * 2 * (6 + 3)
    assert p.per_token["macs"] == macs / 8
    assert p.per_token["kv_cache_bytes_read"] == read / 8
    assert p.per_token["kv_cache_bytes_written"] == written / 8
    last = [l for l in lines if l.startswith("per token")][0].split("  ")
    cells = [c.strip() for c in last if c.strip()]
    assert _clever(round(macs / 8)) in cells, (cells, macs / 8)
    assert _clever(round(read / 8), True) in cells, cells
    assert _clever(round(written / 8), True) in cells, cells
    assert _clever(entry * 2 * 9, True) == cells[-1]  # the cache at the end
    # numbers="raw": the same sums whole and grouped
    raw = p.to_text("raw").splitlines()
    assert "KV cache (B)" in raw[0]
    assert any(l.startswith("per token ") and f"{round(macs / 8):,}" in l
               for l in raw)


def _own_loop(ids, n):
    """A hand-written greedy loop over TinyDecoder's own list cache, the
    arguments positional."""
    def loop(m):
        logits, past = m(ids)
        for _ in range(n - 1):
            logits, past = m(logits[:, -1:].argmax(-1), past)
    return loop


def test_own_loop_records_each_call():
    """profile_generate(loop=...) on a model with its own cache: each call
    of the loop is a step, MACs and cache bytes by hand as above (PyTorch
    2.0+; 1.13 has no forward pre-hook with keyword arguments and says
    so)."""
    import inspect
    torch.manual_seed(0)
    m = TinyDecoder()
    ids = torch.zeros(2, 6, dtype=torch.long)
    if "with_kwargs" not in inspect.signature(
            nn.Module.register_forward_pre_hook).parameters:
        with pytest.raises(TypeError, match="PyTorch 2.0"):
            nnscan.profile_generate(m, loop=_own_loop(ids, 3))
        return
    p = nnscan.profile_generate(m, loop=_own_loop(ids, 3))
    per_token_entry = 2 * len(m.layers) * m.kvh * m.hd * 4
    assert [r["step"] for r in p.steps] == ["prefill", 1, 2]
    assert [r["past"] for r in p.steps] == [0, 6, 7]
    assert matmul_macs(p.prefill) == _decode_macs_by_hand(m, 2, 0, new=6)
    for r in p.steps[1:]:
        assert r["tokens"] == 2
        assert matmul_macs(p.decode[r["past"]]) == \
            _decode_macs_by_hand(m, 2, r["past"])
        assert r["kv_cache_bytes_read"] == per_token_entry * 2 * r["past"]
        assert r["kv_cache_bytes"] == per_token_entry * 2 * (r["past"] + 1)
    assert p.per_token["macs"] == sum(r["macs"] for r in p.steps) / (3 * 2)


def test_sampled_steps_equal_every_step():
    """Costs are linear in the past length: steps between recorded ones,
    interpolated, equal the recorded ones."""
    m = TinyDecoder()
    ids = torch.zeros(1, 4, dtype=torch.long)
    every = nnscan.profile_generate(m, inputs=ids, max_new_tokens=7,
                                    step=tiny_step)
    some = nnscan.profile_generate(m, inputs=ids, max_new_tokens=7,
                                   step=tiny_step, steps=2)
    assert sorted(some.decode) == [4, 9]
    assert [r["recorded"] for r in some.steps].count(False) == 4
    for a, b in zip(every.steps, some.steps):
        for key in ("flops", "macs", "kv_cache_bytes_read",
                    "kv_cache_bytes_written", "kv_cache_bytes"):
            assert a[key] == b[key], (a["step"], key)
    assert "*" in some.to_text()


def test_real_tensors_and_meta_agree():
    m = TinyDecoder()
    ids = torch.zeros(1, 3, dtype=torch.long)
    meta = nnscan.profile_generate(m, inputs=ids, max_new_tokens=3,
                                   step=tiny_step)
    real = nnscan.profile_generate(m, inputs=ids, max_new_tokens=3,
                                   step=tiny_step, device="model")
    assert real.prefill.device == "cpu" and meta.prefill.device == "meta"
    assert real.steps == meta.steps


def test_profile_generate_refuses_bad_inputs():
    m = TinyDecoder()
    with pytest.raises(ValueError, match="input_ids"):
        nnscan.profile_generate(m, inputs=torch.zeros(3, dtype=torch.long),
                                step=tiny_step)
    with pytest.raises(ValueError, match="max_new_tokens"):
        nnscan.profile_generate(m, inputs=torch.zeros(1, 2, dtype=torch.long),
                                max_new_tokens=0, step=tiny_step)


# ---- an ONNX decoder through the CLI ----

def _onnx_decoder(path, layers=2, kv_heads=2, head_dim=4, d=8):
    """One attention-like block per layer: present = Concat(past, x Wk)
    along the sequence axis, scores = q . present^T."""
    onnx = pytest.importorskip("onnx")
    from onnx import TensorProto, helper
    import numpy as np
    nodes, inits, ins, outs = [], [], [], []
    seq = ["batch", "sequence_length", d]
    ins.append(helper.make_tensor_value_info("x", TensorProto.FLOAT, seq))
    kv = ["batch", kv_heads, "past_sequence_length", head_dim]
    for i in range(layers):
        for part in ("key", "value"):
            past, present = f"past_key_values.{i}.{part}", f"present.{i}.{part}"
            ins.append(helper.make_tensor_value_info(past, TensorProto.FLOAT,
                                                     kv))
            w = f"w{i}{part}"
            inits.append(helper.make_tensor(
                w, TensorProto.FLOAT, [d, kv_heads * head_dim],
                np.zeros(d * kv_heads * head_dim, dtype=np.float32)))
            shape = f"shape{i}{part}"
            inits.append(helper.make_tensor(shape, TensorProto.INT64, [4],
                                            [0, 0, kv_heads, head_dim]))
            nodes += [
                helper.make_node("MatMul", ["x", w], [f"p{i}{part}"]),
                helper.make_node("Reshape", [f"p{i}{part}", shape],
                                 [f"r{i}{part}"]),
                helper.make_node("Transpose", [f"r{i}{part}"],
                                 [f"t{i}{part}"], perm=[0, 2, 1, 3]),
                helper.make_node("Concat", [past, f"t{i}{part}"], [present],
                                 axis=2)]
            outs.append(helper.make_tensor_value_info(present,
                                                      TensorProto.FLOAT, None))
        nodes += [
            helper.make_node("Transpose", [f"present.{i}.key"], [f"kt{i}"],
                             perm=[0, 1, 3, 2]),
            helper.make_node("MatMul", [f"t{i}key", f"kt{i}"], [f"s{i}"])]
        outs.append(helper.make_tensor_value_info(f"s{i}", TensorProto.FLOAT,
                                                  None))
    g = helper.make_graph(nodes, "decoder", ins, outs, inits)
    model = helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)])
    onnx.save(model, path)


def _cli():
    lib = os.environ.get("NNSCAN_LIBRARY", "")
    exe = os.path.join(os.path.dirname(lib), "nnscan")
    if not os.path.exists(exe):
        pytest.skip("no nnscan CLI next to the library")
    return exe


def test_onnx_decoder_kv_bytes_from_the_cli(tmp_path):
    import json
    path = str(tmp_path / "decoder.onnx")
    _onnx_decoder(path)
    out = subprocess.run(
        [_cli(), "summary", path, "--format", "json",
         "--input", "past_sequence_length=2048", "--input", "batch=2",
         "--input", "sequence_length=1"],
        check=True, capture_output=True, text=True).stdout
    t = json.loads(out)["totals"]
    entry = 2 * 2 * 2 * 4 * 4  # K and V, 2 layers, 2 kv heads, dim 4, fp32
    assert t["kv_cache_bytes_read"] == entry * 2 * 2048
    assert t["kv_cache_bytes_written"] == entry * 2 * 1
    assert t["kv_cache_bytes"] == entry * 2 * 2049
    text = subprocess.run(
        [_cli(), "summary", path, "--input", "past_sequence_length=2048",
         "--input", "batch=2", "--input", "sequence_length=1"],
        check=True, capture_output=True, text=True).stdout
    assert "KV cache: read" in text


def test_new_keys_follow_the_schema():
    jsonschema = pytest.importorskip("jsonschema")
    import json
    here = os.path.dirname(os.path.abspath(__file__))
    with open(os.path.join(here, "..", "..", "docs",
                           "summary.schema.json")) as f:
        schema = json.load(f)
    moe = nnscan.summary(Block(GroupedMoE()), inputs=torch.randn(1, 1, 8),
                         file=False)
    step = nnscan.profile_generate(TinyDecoder(),
                                   inputs=torch.zeros(1, 2, dtype=torch.long),
                                   max_new_tokens=2, step=tiny_step)
    for doc in (moe.json, step.decode[2].json):
        jsonschema.validate(doc, schema)
    assert "params_active" in moe.json["totals"]
    assert "kv_cache_bytes" in step.decode[2].json["totals"]


def test_generation_document_follows_its_schema():
    """The "nnscan.generation" document (docs/generation.schema.json) of
    a driven generation with steps between recorded ones, and of a mask
    the library could not read (unmasked_status partial)."""
    import json
    jsonschema = pytest.importorskip("jsonschema")
    with open(os.path.join(os.path.dirname(__file__), "..", "..", "docs",
                           "generation.schema.json")) as f:
        schema = json.load(f)
    jsonschema.Draft202012Validator.check_schema(schema)
    v = jsonschema.Draft202012Validator(schema)
    m = TinyDecoder()
    ids = torch.zeros(1, 4, dtype=torch.long)
    p = nnscan.profile_generate(m, inputs=ids, max_new_tokens=7,
                                step=tiny_step, steps=3)
    v.validate(p.json)
    assert p.json["schema"] == "nnscan.generation"
    assert p.json["generated_tokens"] == 7
    assert [r["recorded"] for r in p.steps].count(False) == 3
    # steps between recorded ones: MACs by hand at their past length
    for j, r in enumerate(p.steps[1:]):
        assert r["past"] == 4 + j
        assert r["macs"] == _decode_macs_by_hand(m, 1, 4 + j)


def test_per_token_sums_match_flop_counter_mode():
    """The library's per-token MACs (steps between recorded ones included)
    against PyTorch's FlopCounterMode over a real greedy loop of every
    step, divided by the tokens generated by hand (PyTorch 2.1+: sid)."""
    fc = pytest.importorskip("torch.utils.flop_counter")
    torch.manual_seed(0)
    m = TinyDecoder()
    ids = torch.zeros(2, 5, dtype=torch.long)
    p = nnscan.profile_generate(m, inputs=ids, max_new_tokens=6,
                                step=tiny_step, steps=2)
    assert [r["recorded"] for r in p.steps].count(False) == 3
    flops = 0
    with torch.no_grad():
        with fc.FlopCounterMode(display=False) as mode:
            logits, past = m(ids)
        flops += sum(mode.get_flop_counts()["Global"].values())
        for _ in range(5):
            with fc.FlopCounterMode(display=False) as mode:
                logits, past = m(logits[:, -1:].argmax(-1), past)
            flops += sum(mode.get_flop_counts()["Global"].values())
    assert p.per_token["macs"] == flops // 2 / (2 * 6)
