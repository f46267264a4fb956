"""macs_unmasked on ONNX graphs (issue 20.1): attention spelled as ONNX
exporters spell it, the mask known from an initializer's bytes, from a
subgraph the library folds (Range, comparisons), or from `--value` for a
mask input. Reference: the mask's allowed pairs counted with numpy in the
test, each costing E (Q.K^T) + Ev (P.V) multiply-accumulates."""
import json
import os
import subprocess

import numpy as np
import pytest

onnx = pytest.importorskip("onnx")
from onnx import TensorProto, helper, numpy_helper  # noqa: E402

B, H, L, E = 2, 3, 8, 4
CLI = os.path.join(os.path.dirname(os.environ.get("NNSCAN_LIBRARY", "")),
                   "nnscan")
pytestmark = pytest.mark.skipif(not os.path.exists(CLI),
                                reason="the nnscan CLI beside NNSCAN_LIBRARY")


def _graph(mask_nodes, mask_inputs, inits, additive, mask_name="mask"):
    """softmax(Q.K^T * s + mask) V, or Where(mask, scores, -inf)."""
    f = TensorProto.FLOAT
    ins = [helper.make_tensor_value_info(n, f, [B, H, L, E])
           for n in ("q", "k", "v")] + mask_inputs
    nodes = list(mask_nodes) + [
        helper.make_node("Transpose", ["k"], ["kt"], perm=[0, 1, 3, 2]),
        helper.make_node("MatMul", ["q", "kt"], ["s"]),
        helper.make_node("Mul", ["s", "scale"], ["ss"]),
        helper.make_node("Add", ["ss", mask_name], ["sm"]) if additive else
        helper.make_node("Where", [mask_name, "ss", "ninf"], ["sm"]),
        helper.make_node("Softmax", ["sm"], ["p"], axis=-1),
        helper.make_node("MatMul", ["p", "v"], ["y"]),
    ]
    inits = list(inits) + [
        numpy_helper.from_array(np.array(0.5, np.float32), "scale"),
        numpy_helper.from_array(np.array(-np.inf, np.float32), "ninf")]
    g = helper.make_graph(nodes, "attn", ins,
                          [helper.make_tensor_value_info("y", f, None)], inits)
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)])
    return m.SerializeToString()


def _summary(tmp_path, model, *opts):
    p = tmp_path / "m.onnx"
    p.write_bytes(model)
    out = subprocess.run([CLI, "summary", str(p), "--format", "json", *opts],
                         check=True, capture_output=True, text=True).stdout
    return json.loads(out)["totals"]


def _expect(t, allowed):
    """allowed: bool array broadcast to [B, H, L, L]."""
    dense = B * H * L * L
    n = int(np.broadcast_to(allowed, (B, H, L, L)).sum())
    assert t["macs"] == 2 * dense * E
    assert t["macs"] - t["macs_unmasked"] == (dense - n) * (E + E)


def test_additive_mask_initializer(tmp_path):
    i = np.arange(L)
    keep = (i[None, :] <= i[:, None]) & (i[:, None] - i[None, :] < 3)
    add = np.where(keep, 0, np.finfo(np.float32).min).astype(np.float32)
    t = _summary(tmp_path, _graph([], [], [numpy_helper.from_array(add, "mask")],
                                  additive=True))
    _expect(t, keep)


def test_mask_folded_from_range(tmp_path):
    """A causal mask built from Range and a comparison, as exporters write
    an arange-built mask: the library folds it."""
    c = lambda name, v: numpy_helper.from_array(np.array(v, np.int64), name)  # noqa: E731
    nodes = [
        helper.make_node("Range", ["zero", "len", "one"], ["i"]),
        helper.make_node("Unsqueeze", ["i", "ax0"], ["row"]),
        helper.make_node("Unsqueeze", ["i", "ax1"], ["col"]),
        helper.make_node("LessOrEqual", ["row", "col"], ["mask"]),
    ]
    inits = [c("zero", 0), c("len", L), c("one", 1), c("ax0", [0]),
             c("ax1", [1])]
    t = _summary(tmp_path, _graph(nodes, [], inits, additive=False))
    i = np.arange(L)
    _expect(t, i[None, :] <= i[:, None])


@pytest.mark.parametrize("padded", [False, True])
def test_mask_too_large_to_fold_read_from_positions(tmp_path, padded):
    """A sliding-window causal mask built from Range and comparisons at
    L = 300 (90,000 elements: past the 65,536 the library folds), and-ed
    with a key padding mask given by --value: read from the positions it
    compares (attention.c's find_masks), not counted dense. Reference: the
    mask built with numpy."""
    n, w, e = 300, 17, 2
    f = TensorProto.FLOAT
    c = lambda name, v: numpy_helper.from_array(np.array(v, np.int64), name)  # noqa: E731
    nodes = [
        helper.make_node("Range", ["zero", "len", "one"], ["i"]),
        helper.make_node("Unsqueeze", ["i", "ax0"], ["col"]),   # [1, n]
        helper.make_node("Unsqueeze", ["i", "ax1"], ["row"]),   # [n, 1]
        helper.make_node("Sub", ["row", "w"], ["row_w"]),
        helper.make_node("Greater", ["col", "row"], ["ahead"]),
        helper.make_node("LessOrEqual", ["col", "row_w"], ["behind"]),
        helper.make_node("Or", ["ahead", "behind"], ["out"]),
        helper.make_node("Not", ["out"], ["window"]),
    ]
    ins = [helper.make_tensor_value_info(x, f, [1, 1, n, e])
           for x in ("q", "k", "v")]
    opts = []
    keep = np.ones((1, 1, 1, n), bool)
    if padded:
        keep[..., :5] = False
        ins.append(helper.make_tensor_value_info("pad", TensorProto.BOOL,
                                                 [1, 1, 1, n]))
        nodes.append(helper.make_node("And", ["window", "pad"], ["mask"]))
        opts = ["--value", "pad=" + ",".join(str(int(x))
                                            for x in keep.ravel())]
    else:
        nodes.append(helper.make_node("Identity", ["window"], ["mask"]))
    nodes += [
        helper.make_node("Transpose", ["k"], ["kt"], perm=[0, 1, 3, 2]),
        helper.make_node("MatMul", ["q", "kt"], ["s"]),
        helper.make_node("Where", ["mask", "s", "ninf"], ["sm"]),
        helper.make_node("Softmax", ["sm"], ["p"], axis=-1),
        helper.make_node("MatMul", ["p", "v"], ["y"]),
    ]
    inits = [c("zero", 0), c("len", n), c("one", 1), c("ax0", [0]),
             c("ax1", [1]), c("w", w),
             numpy_helper.from_array(np.array(-np.inf, np.float32), "ninf")]
    g = helper.make_graph(nodes, "attn", ins,
                          [helper.make_tensor_value_info("y", f, None)], inits)
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)])
    t = _summary(tmp_path, m.SerializeToString(), *opts)
    i = np.arange(n)
    allowed = (i[None, :] <= i[:, None]) & (i[None, :] > i[:, None] - w) \
        & keep[0, 0]
    assert t["macs"] == 2 * n * n * e
    assert t["macs"] - t["macs_unmasked"] == (n * n - int(allowed.sum())) * 2 * e
    assert "unmasked_status" not in t


def test_mask_input_given_with_value(tmp_path):
    """A padding mask as a graph input, its contents given with --value."""
    keep = np.ones((B, 1, 1, L), bool)
    keep[0, ..., :3] = False  # left padding on the first row
    inp = helper.make_tensor_value_info("mask", TensorProto.BOOL, [B, 1, 1, L])
    vals = ",".join(str(int(x)) for x in keep.ravel())
    t = _summary(tmp_path, _graph([], [inp], [], additive=False),
                 "--value", f"mask={vals}")
    _expect(t, keep)
    t = _summary(tmp_path, _graph([], [inp], [], additive=False))
    assert t["macs_unmasked"] == t["macs"]  # contents unknown: dense


def test_tokens(tmp_path):
    """tokens: the element count of the integer input an embedding reads
    (input_ids [2, 5], not the position ids [1, 5] beside it); none for a
    model without such an input nor a [B, T, D] input with attention."""
    i64 = TensorProto.INT64
    g = helper.make_graph(
        [helper.make_node("Gather", ["wpe", "pos"], ["pe"]),
         helper.make_node("Gather", ["wte", "ids"], ["te"]),
         helper.make_node("Add", ["te", "pe"], ["y"])], "emb",
        [helper.make_tensor_value_info("pos", i64, [1, 5]),
         helper.make_tensor_value_info("ids", i64, [2, 5])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)],
        [numpy_helper.from_array(np.zeros((16, 8), np.float32), "wte"),
         numpy_helper.from_array(np.zeros((5, 8), np.float32), "wpe")])
    model = helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)])
    t = _summary(tmp_path, model.SerializeToString())
    assert t["tokens"] == 10
    assert t["flops_per_token"] == t["flops"] / 10
    t = _summary(tmp_path, _graph([], [], [], additive=True,
                                  mask_name="scale"))
    assert "tokens" not in t  # q, k, v are [B, H, L, E]


FIXTURE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..",
                       "tests", "fixtures", "attention", "causal_dyn.onnx")


def test_dynamic_batch_and_seq_only_seq_fixed():
    """Issue 40.2: a block with dynamic batch and seq and a triu(-inf)
    causal mask (tools/make_attention_fixtures.py). Fixing seq alone leaves
    batch a symbol the counts take as 1; the mask reader must read the
    mask at those same dims, not give up and count dense. Reference, by
    hand: seq = 128, D = 16, one head; Q.K^T and P.V each leave out the
    128*128 - 128*129/2 pairs above the diagonal, D MACs a pair."""
    S, Dm = 128, 16
    one = _cli_totals(FIXTURE, "--input", "seq=%d" % S)
    both = _cli_totals(FIXTURE, "--input", "seq=%d" % S, "--input", "batch=1")
    dense = 3 * S * Dm * Dm + 2 * S * S * Dm
    left_out = (S * S - S * (S + 1) // 2) * Dm * 2
    assert both["macs"] == one["macs"] == dense
    assert both["macs"] - both["macs_unmasked"] == left_out
    assert one["macs_unmasked"] == both["macs_unmasked"]


def _cli_totals(path, *opts):
    out = subprocess.run([CLI, "summary", path, "--format", "json", *opts],
                         check=True, capture_output=True, text=True).stdout
    return json.loads(out)["totals"]


@pytest.mark.parametrize("additive", [False, True])
def test_mask_unknown_is_said(tmp_path, additive):
    """A mask whose contents are not known (a graph input not given with
    --value) leaves its attention counted dense, and the report says so:
    one warning naming the mask's node (issue 40.1: never a silent dense
    number). A known mask gives no such warning."""
    inp = helper.make_tensor_value_info(
        "mask", TensorProto.FLOAT if additive else TensorProto.BOOL,
        [B, 1, 1, L])
    p = tmp_path / "m.onnx"
    p.write_bytes(_graph([], [inp], [], additive=additive))
    doc = json.loads(subprocess.run(
        [CLI, "summary", str(p), "--format", "json"], check=True,
        capture_output=True, text=True).stdout)
    t = doc["totals"]
    assert t["macs_unmasked"] == t["macs"]
    said = [w for w in doc["warnings"] if "mask whose contents are not known" in w]
    assert len(said) == 1, doc["warnings"]
    assert ("(Add)" if additive else "(Where)") in said[0]
    vals = ",".join(["1"] * (B * L))
    doc = json.loads(subprocess.run(
        [CLI, "summary", str(p), "--format", "json", "--value",
         f"mask={vals}"], check=True, capture_output=True, text=True).stdout)
    assert not [w for w in doc["warnings"] if "mask whose" in w]


def _schema_check(doc, name):
    jsonschema = pytest.importorskip("jsonschema")
    here = os.path.dirname(os.path.abspath(__file__))
    with open(os.path.join(here, "..", "..", "docs", name)) as f:
        schema = json.load(f)
    errors = list(jsonschema.Draft202012Validator(schema).iter_errors(doc))
    assert not errors, [e.message for e in errors[:3]]


def _run(p, *opts):
    return subprocess.run([CLI, "summary", str(p), *opts], check=True,
                          capture_output=True, text=True).stdout


@pytest.mark.parametrize("additive", [False, True])
def test_mask_unknown_makes_unmasked_partial(tmp_path, additive):
    """Issue 40.1: the dense figure of a mask not known is never shown as
    exact. JSON v1: "unmasked_status": "partial" on the totals and the
    rows holding the products (absent where exact); v2: "unmasked_status"
    on every layer and the totals, partial here with the ids of the
    attention.mask_unknown diagnostics (one per product), the totals not
    complete, and the eight metrics still complete; text: the unmasked
    figures marked "≤" with a sentence saying why. The same graph with the
    mask given by --value is exact everywhere."""
    inp = helper.make_tensor_value_info(
        "mask", TensorProto.FLOAT if additive else TensorProto.BOOL,
        [B, 1, 1, L])
    p = tmp_path / "m.onnx"
    p.write_bytes(_graph([], [inp], [], additive=additive))
    v1 = json.loads(_run(p, "--format", "json"))
    assert v1["totals"]["unmasked_status"] == "partial"
    flagged = {o["op_type"] for o in v1["op_types"]
               if o.get("unmasked_status") == "partial"}
    assert flagged == {"MatMul"}
    v2 = json.loads(_run(p, "--format", "json", "--json-version", "2"))
    _schema_check(v1, "summary.schema.json")
    _schema_check(v2, "summary.v2.schema.json")
    t = v2["totals"]
    assert t["unmasked_status"] == "partial" and t["complete"] is False
    assert all(m["status"] == "complete" for m in t["metrics"].values())
    diags = {d["id"]: d for d in v2["diagnostics"]}
    ids = t["unmasked_diagnostics"]
    assert len(ids) == 2  # Q.K^T and P.V
    for i in ids:
        assert diags[i]["code"] == "attention.mask_unknown"
        assert diags[i]["op"] == "MatMul"
        assert diags[i]["metrics"] == ["macs_unmasked", "flops_unmasked"]
    rows = {r["path"]: r["unmasked_status"] for r in v2["layers"]}
    assert rows.pop("") == "partial"  # the model
    assert sorted(rows.values()) == ["complete"] * 4 + ["partial"] * 2
    assert [r["unmasked_diagnostics"] for r in v2["layers"]
            if r["path"] and r["unmasked_status"] == "partial"] == [[i]
                                                                  for i in ids]
    text = _run(p)
    dense = 2 * B * H * L * L * E
    assert "MACs ≤ %s" % format(dense, ",") in text
    assert "was counted dense" in text
    # known: exact everywhere, and nothing said
    vals = ",".join(["1"] * (B * L))
    v1 = json.loads(_run(p, "--format", "json", "--value", f"mask={vals}"))
    assert "unmasked_status" not in v1["totals"]
    v2 = json.loads(_run(p, "--format", "json", "--json-version", "2",
                         "--value", f"mask={vals}"))
    assert v2["totals"]["unmasked_status"] == "complete"
    assert "unmasked_diagnostics" not in v2["totals"]
    assert v2["totals"]["complete"] is True
    assert "≤" not in _run(p, "--value", f"mask={vals}")


MSFT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..",
                    "tests", "unit", "models")


@pytest.mark.parametrize("stem,code,node", [
    ("msft_llm_ms_attn_rotary", "cost.approximate", "rot_attn"),
    ("msft_llm_gqa_bias_in", "attention.mask_unknown", "gqa"),
    ("msft_llm_ms_attn_len_in", "attention.mask_unknown", "attn"),
])
def test_flagged_contrib_nodes_are_said(stem, code, node):
    """Issue 44: a com.microsoft node whose count is approximate (do_rotary
    not counted) or whose mask contents are not known is named, with why,
    in the text footer's notes and among the JSON diagnostics (v2: a
    diagnostic of its own at the node, and the warning); both JSON
    versions still meet their schemas."""
    p = os.path.join(MSFT, stem + ".onnx")
    text = _run(p)
    notes = [ln for ln in text.splitlines()
             if ln.startswith("Note: ") and f"node '{node}'" in ln
             and "(com.microsoft " in ln]
    assert len(notes) == 1, text
    v1 = json.loads(_run(p, "--format", "json"))
    v2 = json.loads(_run(p, "--format", "json", "--json-version", "2"))
    _schema_check(v1, "summary.schema.json")
    _schema_check(v2, "summary.v2.schema.json")
    assert [w for w in v1["warnings"] if f"node '{node}'" in w]
    diags = [d for d in v2["diagnostics"] if d["code"] == code]
    assert diags and all(d["where"] == node and d["domain"] == "com.microsoft"
                         for d in diags)
    if code == "cost.approximate":
        assert v2["totals"]["metrics"]["flops"]["status"] == "partial"
        assert diags[0]["id"] in v2["totals"]["metrics"]["flops"][
            "diagnostics"]


def _triangle_graph(n, e, fill, upper, diag, additive, dynamic, given=True,
                    f=TensorProto.FLOAT):
    """softmax(Q.K^T + Trilu(full)) V, or Where(Trilu(full), scores, -inf),
    with full = ConstantOfShape([n, n], fill) as ONNX exports of
    transformers' causal mask spell torch.full(...).triu(1) (a dynamic
    sequence: the shape read from q); given=False: the filled tensor is a
    graph input instead, its contents not known. fill: a number, or the
    `value` TensorProto itself; f: the dtype of q, k, v and y."""
    seq = "S" if dynamic else n
    ins = [helper.make_tensor_value_info(x, f, [1, 1, seq, e])
           for x in ("q", "k", "v")]
    nodes = []
    if not given:
        ins.append(helper.make_tensor_value_info(
            "full", f if additive else TensorProto.BOOL, [seq, seq]))
    elif dynamic:
        nodes += [helper.make_node("Shape", ["q"], ["qs"], start=2, end=3),
                  helper.make_node("Concat", ["qs", "qs"], ["ms"], axis=0)]
    if given:
        value = fill if isinstance(fill, onnx.TensorProto) else \
            numpy_helper.from_array(
                np.array([fill], np.float32 if additive else np.bool_))
        nodes.append(helper.make_node(
            "ConstantOfShape", ["ms" if dynamic else "msc"], ["full"],
            value=value))
    nodes += [
        helper.make_node("Trilu", ["full", "diag"], ["mask"], upper=upper),
        helper.make_node("Transpose", ["k"], ["kt"], perm=[0, 1, 3, 2]),
        helper.make_node("MatMul", ["q", "kt"], ["s"]),
        helper.make_node("Add", ["s", "mask"], ["sm"]) if additive else
        helper.make_node("Where", ["mask", "s", "ninf"], ["sm"]),
        helper.make_node("Softmax", ["sm"], ["p"], axis=-1),
        helper.make_node("MatMul", ["p", "v"], ["y"])]
    inits = [numpy_helper.from_array(np.array(diag, np.int64), "diag"),
             numpy_helper.from_array(np.array([n, n], np.int64), "msc"),
             numpy_helper.from_array(np.array(-np.inf, np.float32), "ninf")]
    g = helper.make_graph(nodes, "attn", ins,
                          [helper.make_tensor_value_info("y", f, None)], inits)
    return helper.make_model(
        g, opset_imports=[helper.make_opsetid("", 17)]).SerializeToString()


@pytest.mark.parametrize("dynamic", [False, True])
@pytest.mark.parametrize("form", ["triu_min", "triu_ninf", "tril_true"])
def test_triangle_of_constant_of_shape_past_folding(tmp_path, form, dynamic):
    """A causal mask made as ONNX exports make it, at L = 300 (90,000
    elements: past what the library folds): Trilu of a ConstantOfShape,
    additive (float32's lowest or -inf above the diagonal) or boolean
    (True on and below it, under a Where). Read from the fill's one value
    and the diagonal, never counted dense. Reference: the same mask built
    with numpy (np.triu / np.tril of the filled matrix)."""
    n, e = 300, 2
    fill, upper, diag, additive = {
        "triu_min": (np.finfo(np.float32).min, 1, 1, True),
        "triu_ninf": (-np.inf, 1, 1, True),
        "tril_true": (True, 0, 0, False)}[form]
    p = tmp_path / "m.onnx"
    p.write_bytes(_triangle_graph(n, e, fill, upper, diag, additive, dynamic))
    opts = [a for x in "qkv" for a in ("--input", f"{x}=1x1x{n}x{e}")] \
        if dynamic else []
    t = _cli_totals(str(p), *opts)
    full = np.full((n, n), fill, np.float32 if additive else np.bool_)
    mask = np.triu(full, diag) if upper else np.tril(full, diag)
    allowed = (mask > np.finfo(np.float32).min / 2) if additive else mask
    assert t["macs"] == 2 * n * n * e
    assert t["macs"] - t["macs_unmasked"] == (n * n - int(allowed.sum())) * 2 * e
    assert "unmasked_status" not in t


@pytest.mark.parametrize("additive", [False, True])
def test_triangle_of_unknown_contents_is_said(tmp_path, additive):
    """A triangle of a tensor whose contents are not known (a graph input)
    is a mask all the same: its attention is counted dense and said to be
    (once silently taken for a computed bias, its dense figure printed as
    exact)."""
    p = tmp_path / "m.onnx"
    p.write_bytes(_triangle_graph(8, 2, 0, 1, 1, additive, False,
                                  given=False))
    doc = json.loads(_run(p, "--format", "json"))
    assert doc["totals"]["macs_unmasked"] == doc["totals"]["macs"]
    assert doc["totals"]["unmasked_status"] == "partial"
    assert [w for w in doc["warnings"]
            if "mask whose contents are not known" in w]


@pytest.mark.parametrize("dtype,value", [
    (TensorProto.FLOAT16, "raw"), (TensorProto.BFLOAT16, "typed"),
    (TensorProto.FLOAT, "typed"), (TensorProto.DOUBLE, "raw"),
    (TensorProto.BOOL, "typed")])
def test_triangle_fill_value_in_every_storage(tmp_path, dtype, value):
    """The fill's one value as exporters and onnx.helper store it:
    raw_data, or a typed field (float_data; int32_data holding a
    bfloat16's bits or a bool), in the graph's own dtype, at L = 300
    (past folding). Additive: the dtype's lowest above the diagonal; bool:
    True on and below it, under a Where. Reference: numpy's np.tril."""
    n, e = 300, 2
    additive = dtype != TensorProto.BOOL
    fdt = dtype if additive else TensorProto.FLOAT
    lowest = {TensorProto.FLOAT16: -65504.0, TensorProto.BFLOAT16: -3.38e38,
              TensorProto.FLOAT: -3.4e38, TensorProto.DOUBLE: -1e300,
              TensorProto.BOOL: True}[dtype]
    if value == "raw":
        np_dt = {TensorProto.FLOAT16: np.float16,
                 TensorProto.DOUBLE: np.float64}[dtype]
        fill = numpy_helper.from_array(np.array([lowest], np_dt), "value")
    else:
        fill = helper.make_tensor("value", dtype, [1], [lowest])
    p = tmp_path / "m.onnx"
    p.write_bytes(_triangle_graph(n, e, fill, 1 if additive else 0,
                                  1 if additive else 0, additive, False,
                                  f=fdt))
    t = _cli_totals(str(p))
    allowed = int(np.tril(np.ones((n, n), bool)).sum())
    assert t["macs"] - t["macs_unmasked"] == (n * n - allowed) * 2 * e
    assert "unmasked_status" not in t
