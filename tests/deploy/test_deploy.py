"""nnscan on models shaped like the ones people deploy (issue 8).

The models and their expectations come from tools/make_deploy_models.py:
parameter counts are sum(p.numel()) of the PyTorch modules the models were
exported from, MACs are computed by hand there (docs/metrics.md formulas),
module classes are PyTorch's own. Nothing here is taken from nnscan's
output. Reads nnscan's JSON (the machine interface), never its text table,
except to check what the footer tells a user.

Run: NNSCAN_CLI=build/dev/nnscan /usr/bin/python3 -m pytest tests/deploy
"""

import json
import os
import subprocess

import jsonschema
import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
with open(os.path.join(HERE, "..", "..", "docs", "summary.schema.json")) as f:
    SCHEMA = jsonschema.Draft202012Validator(json.load(f))
MODELS = os.path.join(HERE, "..", "fixtures", "deploy")
CLI = os.environ.get("NNSCAN_CLI", "nnscan")

with open(os.path.join(MODELS, "deploy.expect.json")) as f:
    EXPECT = json.load(f)


def run(model, *args, fmt="json"):
    out = subprocess.run([CLI, "summary", os.path.join(MODELS, model),
                          "--format", fmt, *args],
                         capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    if fmt != "json":
        return out.stdout
    doc = json.loads(out.stdout)
    SCHEMA.validate(doc)  # the new keys are part of the contract
    return doc


def totals(doc):
    t = doc["totals"]
    return {k: t[k] for k in ("params", "buffers", "param_bytes",
                              "params_unique", "param_bytes_unique")}


def rows(doc):
    """The layers below the root, in order."""
    return [l for l in doc["layers"] if l["depth"] >= 1]


# ==== (a) initializers vs Constant nodes ====

def test_constants_count_like_initializers():
    init, const = run("cnn_init.onnx"), run("cnn_const.onnx")
    e = EXPECT["cnn"]
    assert totals(init) == totals(const)
    assert const["totals"]["params"] == e["params"]
    assert const["totals"]["buffers"] == e["buffers"]
    assert const["totals"]["param_bytes"] == e["param_bytes"]
    assert const["totals"]["macs"] == e["macs"]
    # Per parameter: the same kinds, at the same layers.
    kinds = lambda d: sorted((p["kind"], p["elements"], p["layer"])
                             for p in d["parameters"])
    assert kinds(init) == kinds(const)
    assert [(l["path"], l["params"], l["buffers"]) for l in init["layers"]] \
        == [(l["path"], l["params"], l["buffers"]) for l in const["layers"]]


# ==== (b) weights in both branches of a top-level If ====

def test_if_both_branches_weights_count():
    e = EXPECT["if"]
    doc = run("if_lstm.onnx")
    assert doc["totals"]["params"] == e["params"]
    assert doc["totals"]["params"] == e["params_then"] + e["params_else"]
    assert doc["uncounted_ops"] == []
    # Counted at the layer of the If node.
    layer = [l for l in doc["layers"] if "If" in l["op_types"]
             and l["depth"] == 1]
    assert len(layer) == 1 and layer[0]["params"] == e["params"]
    assert all(p["layer"] == layer[0]["path"] for p in doc["parameters"]
               if p["kind"] == "trainable")


def test_if_unknown_condition_counts_the_larger_branch():
    e = EXPECT["if"]
    doc = run("if_lstm.onnx")
    assert doc["totals"]["macs"] == max(e["macs_then"], e["macs_else"])
    larger = "then_branch" if e["macs_then"] > e["macs_else"] \
        else "else_branch"
    assert doc["branches"] == [{"node": "branch", "counted": larger,
                                "condition_known": False}]
    text = run("if_lstm.onnx", fmt="text")
    assert "condition unknown; costs are the larger branch's (%s)" % larger \
        in text


@pytest.mark.parametrize("value,branch", [("then_value", "then"),
                                          ("else_value", "else")])
def test_if_value_folds_the_branch(value, branch):
    e = EXPECT["if"]
    doc = run("if_lstm.onnx", "--value", e[value])
    assert doc["totals"]["macs"] == e["macs_" + branch]
    assert doc["totals"]["params"] == e["params"]
    assert doc["branches"] == [{"node": "branch",
                                "counted": branch + "_branch",
                                "condition_known": True}]
    # The branch as a standalone model gives the same MACs.
    alone = run("if_%s.onnx" % branch)
    assert alone["totals"]["macs"] == e["macs_" + branch]
    assert alone["totals"]["params"] == e["params_" + branch]


@pytest.mark.parametrize("branch", ["then", "else"])
def test_vad_branch_not_taken_is_not_inferred(branch):
    """Silero-VAD-like: the 8 kHz branch squeezes an axis that a 16 kHz
    input makes 2 long. With --value saying which branch runs, the other is
    not inferred and cannot fail the run (issue 17, item 9)."""
    e = EXPECT["vad"]
    doc = run("vad_if.onnx", *e[branch]["args"])
    assert doc["totals"]["macs"] == e[branch]["macs"]  # by hand
    assert doc["totals"]["params"] == e["params"]  # both branches' weights
    assert doc["totals"]["complete"] and not doc["uncounted_ops"]
    assert doc["branches"] == [{"node": "rate", "counted": branch + "_branch",
                                "condition_known": True}]
    out = {o["name"]: o["shape"] for o in doc["outputs"]}
    assert out["output"] == [e[branch]["frames"], 1, 1]
    assert out["stateN"] == [2, 1, 16]


def test_vad_branch_that_cannot_run_is_dropped():
    """Without --value the condition is unknown. 512 samples fit only the
    16 kHz branch (the 8 kHz one squeezes an axis 512 samples make 2 long):
    the run succeeds with the 16 kHz branch's MACs (by hand), says the
    other cannot run and why, and is not a known condition (issue 17: the
    --input options the footer suggests must not fail the run)."""
    e = EXPECT["vad"]
    args = e["then"]["args"][:4]  # the --input options, no --value
    doc = run("vad_if.onnx", *args)
    assert doc["totals"]["macs"] == e["then"]["macs"]  # by hand
    assert doc["totals"]["complete"] and not doc["uncounted_ops"]
    assert doc["branches"] == [{"node": "rate", "counted": "then_branch",
                                "condition_known": False}]
    assert any("else_branch cannot run" in w and "Squeeze" in w
               for w in doc["warnings"])
    text = run("vad_if.onnx", *args, fmt="text")
    assert ("If 'rate': condition unknown; costs are then_branch's: "
            "else_branch cannot run with these inputs (") in text
    # 10 samples fit neither (the 16 kHz Conv's kernel is 64 long): the
    # run fails with the then_branch's error.
    out = subprocess.run([CLI, "summary", os.path.join(MODELS, "vad_if.onnx"),
                          "--input", "input=1x10", "--input", "state=2x1x16"],
                         capture_output=True, text=True)
    assert out.returncode == 1 and "(Conv)" in out.stderr


def test_vad_wrong_rate_still_fails():
    """The branch taken is inferred as before: a 16 kHz input with
    sr=8000 makes the 8 kHz branch's Squeeze fail, and the run says so."""
    args = list(EXPECT["vad"]["then"]["args"])
    args[-1] = "sr=8000"
    out = subprocess.run([CLI, "summary", os.path.join(MODELS, "vad_if.onnx"),
                          *args], capture_output=True, text=True)
    assert out.returncode == 1 and "Squeeze" in out.stderr


def test_value_errors():
    def fails(*args):
        out = subprocess.run([CLI, "summary",
                              os.path.join(MODELS, "if_lstm.onnx"), *args],
                             capture_output=True, text=True)
        return out.returncode, out.stderr
    rc, err = fails("--value", "nope=1")
    assert rc == 1 and "no graph input 'nope'" in err
    rc, err = fails("--value", "sr=1,2")
    assert rc == 1 and "do not fit" in err
    rc, err = fails("--value", "sr=abc")
    assert rc == 2 and "not a whole number" in err


# ==== (c) nodes without names ====

def test_nameless_nodes_get_rows():
    e = EXPECT["nameless"]
    doc = run("nameless.onnx")
    got = [{"name": l["name"], "type": l["type"], "params": l["params"]}
           for l in rows(doc)]
    want = [{"name": r["name"], "type": r["type"], "params": r["params"]}
            for r in e["rows"]]
    assert got == want
    assert doc["totals"]["params"] == e["params"]
    assert doc["totals"]["buffers"] == e["buffers"]
    bn = [l for l in rows(doc) if l["name"] == "batch_norm_0"][0]
    assert bn["buffers"] == [r for r in e["rows"]
                             if r["name"] == "batch_norm_0"][0]["buffers"]


# ==== (d) dims with neither value nor name ====

def test_unnamed_dims_get_names_and_can_be_fixed():
    e = EXPECT["dims"]
    doc = run("nameless_dims.onnx")
    assert doc["symbols"] == e["symbols"]
    assert doc["symbols_taken_as_1"] is True
    assert doc["symbolic_inputs"] == [{"input": e["input"],
                                       "option": "--input audio=Nx1xN"}]
    text = run("nameless_dims.onnx", fmt="text")
    assert "Symbolic dims taken as 1: audio_dim0, audio_dim2 (input audio)" \
        in text
    assert "--input audio=Nx1xN" in text
    # Fixed by dim name, or by the whole shape: the same hand count.
    n = str(e["samples"])
    by_name = run("nameless_dims.onnx", "--input", "audio_dim0=1",
                  "--input", "audio_dim2=" + n)
    by_shape = run("nameless_dims.onnx", "--input", "audio=1x1x" + n)
    for d in (by_name, by_shape):
        assert d["totals"]["macs"] == e["macs"]
        assert d["symbols_taken_as_1"] is False
        assert d["symbolic_inputs"] == []
    assert by_name["totals"] == by_shape["totals"]


# ==== (e) resnet18 with scopes and classes only in node metadata ====

def test_resnet18_tree_from_node_metadata():
    e = EXPECT["meta"]
    meta = run("resnet18_meta.onnx")
    named = run(e["named"])
    strip = lambda d: [(l["path"], l["depth"], l["params"], l["buffers"],
                        l["flops"], l["macs"], l["dmas"], l["nodes"])
                       for l in d["layers"]]
    assert strip(meta) == strip(named)
    assert meta["totals"]["params"] == e["params"]
    for l in meta["layers"]:
        cls = e["classes"][l["path"]]
        assert l["class"] == cls, l["path"]
        assert l["type"] == cls.rsplit(".", 1)[1], l["path"]
    # Node names are flat: without the metadata nothing would nest
    # (layer2.0.downsample.0 is depth 4).
    assert max(l["depth"] for l in meta["layers"]) == 4


def test_text_type_column_shows_short_classes():
    text = run("resnet18_meta.onnx", fmt="text")
    assert "BasicBlock" in text and "torchvision.models" not in text


# ==== (b') a Loop body's weights; the trip count from --value ====

def test_loop_body_weights_and_trip_count():
    e = EXPECT["loop"]
    doc = run("loop_linear.onnx")
    assert doc["totals"]["params"] == e["params"]
    assert doc["totals"]["macs"] == e["macs_per_step"]  # counted once
    assert doc["totals"]["flags"]["unbounded"] is True
    doc = run("loop_linear.onnx", "--value", e["value"])
    assert doc["totals"]["params"] == e["params"]
    assert doc["totals"]["macs"] == e["macs"]
    assert doc["totals"]["flags"]["unbounded"] is False
