"""The roofline from Python: bytes, intensity, bound and time against
values computed here by hand from the datasheet figures (docs/metrics.md,
"Bytes and the roofline"), the hardware table, and the JSON contract."""
import json
import os

import pytest

import nnscan

HERE = os.path.dirname(os.path.abspath(__file__))
SCHEMA = os.path.join(HERE, "..", "..", "docs", "summary.schema.json")

# NVIDIA H100 datasheet (SXM): 3.35 TB/s; FP16 1,979 TF with sparsity.
H100_BW = 3.35e12
H100_FP16 = 1979e12 / 2


def _gemv(tmp_path, m_rows, k, n):
    onnx = pytest.importorskip("onnx")
    from onnx import TensorProto, helper
    w = helper.make_tensor("w", TensorProto.FLOAT16, [k, n],
                           [0] * (k * n))
    g = helper.make_graph(
        [helper.make_node("MatMul", ["x", "w"], ["y"], name="/fc/MatMul")],
        "g", [helper.make_tensor_value_info("x", TensorProto.FLOAT16,
                                            [m_rows, k])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT16, None)],
        [w])
    path = tmp_path / "gemv.onnx"
    onnx.save(helper.make_model(g, opset_imports=[
        helper.make_opsetid("", 17)]), str(path))
    return path


def test_gemv_memory_bound(tmp_path):
    # 1x512 @ 512x256 float16: bytes 1,024 + 262,144 + 512; FLOPs
    # 256*(2*512-1); memory 263,680 / 3.35e12 s beats compute.
    s = nnscan.analyze(_gemv(tmp_path, 1, 512, 256), hardware="h100-sxm")
    t = s.totals
    assert t["bytes"] == 1024 + 262144 + 512
    assert t["flops"] == 256 * 1023
    assert t["bound"] == "memory"
    assert t["time_s"] == pytest.approx(263680 / H100_BW, rel=1e-8)
    assert t["intensity"] == pytest.approx(256 * 1023 / 263680, rel=1e-8)
    hw = s.json["hardware"]
    assert hw["name"] == "h100-sxm" and hw["compute_dtype"] == "fp16"
    assert hw["bandwidth"] == pytest.approx(H100_BW)
    assert "Bound" in str(s) and "Time" in str(s)


def test_gemm_compute_bound_and_dtype(tmp_path):
    # 2048x2048 @ 2048x2048 float16: FLOPs 2048^2 * 4095 at 989.5 TF,
    # against 3 * 8 MiB over 3.35 TB/s: compute-bound.
    path = _gemv(tmp_path, 2048, 2048, 2048)
    s = nnscan.analyze(path, hardware="h100-sxm")
    flops = 2048 * 2048 * 4095
    assert s.totals["bound"] == "compute"
    assert s.totals["time_s"] == pytest.approx(flops / H100_FP16, rel=1e-8)
    s = nnscan.analyze(path, hardware="h100-sxm", compute_dtype="fp8")
    assert s.totals["time_s"] == pytest.approx(flops / 1979e12, rel=1e-8)
    with pytest.raises(nnscan.NnscanError, match="fp8"):
        nnscan.analyze(path, hardware="a100-sxm-80g", compute_dtype="fp8")
    with pytest.raises(nnscan.NnscanError):
        nnscan.analyze(path, hardware="no-such-gpu")


def test_user_device(tmp_path):
    path = _gemv(tmp_path, 1, 512, 256)
    s = nnscan.analyze(path, hardware={"name": "cpu", "peak_flops": 1e12,
                                       "bandwidth": 50e9})
    assert s.totals["time_s"] == pytest.approx(263680 / 50e9, rel=1e-8)
    hw = tmp_path / "my.hw"
    hw.write_text("[npu]\nbandwidth = 2e11\nfp16 = 1e14\n")
    names = [d["name"] for d in nnscan.hardware.devices(hw)]
    assert names[0] == "npu" and "h100-sxm" in names


def test_every_listed_device():
    names = {d["name"]: d for d in nnscan.hardware.devices()}
    for n in ("h100-sxm", "h100-pcie", "h200", "b200", "a100-sxm-80g",
              "a100-pcie-40g", "l4", "l40s", "rtx-4090", "mi300x", "cpu"):
        assert n in names
        assert names[n]["source"]
    assert names["a100-sxm-80g"]["peak_flops"]["fp8"] is None
    assert names["cpu"]["bandwidth"] is None


def test_json_schema(tmp_path):
    jsonschema = pytest.importorskip("jsonschema")
    s = nnscan.analyze(_gemv(tmp_path, 1, 64, 32), hardware="l4",
                       compute_dtype="bf16")
    doc = json.loads(s.to_json())
    jsonschema.validate(doc, json.load(open(SCHEMA)))
    assert doc["totals"]["bytes"] == 128 + 4096 + 64
    for layer in doc["layers"]:
        assert layer["bound"] in ("none", "compute", "memory")


def test_torch_summary_roofline():
    torch = pytest.importorskip("torch")
    model = torch.nn.Sequential(torch.nn.Linear(64, 32), torch.nn.ReLU())
    from nnscan import torch_api
    s = torch_api.analyze_module(model, (torch.zeros(1, 64),),
                                        hardware="l4")
    # Linear: x 256 + W 8,192 + b 128 + y 128 bytes; ReLU 128 + 128.
    assert s.totals["bytes"] == 256 + 8192 + 128 + 128 + 256
    # L4 datasheet: 300 GB/s; every node memory-bound at FP32 30.3 TF.
    assert s.totals["time_s"] == pytest.approx(
        (256 + 8192 + 128 + 128 + 256) / 300e9, rel=1e-8)
    layers = {la["path"]: la for la in s.layers}
    assert layers["0"]["bytes"] == 256 + 8192 + 128 + 128


def _llama(tmp_path):
    import subprocess
    import sys
    pytest.importorskip("onnx")
    gen = os.path.join(HERE, "..", "..", "bench", "gen_models.py")
    subprocess.run([sys.executable, gen, "--out", str(tmp_path), "--only",
                    "llama7b"], check=True, stdout=subprocess.DEVNULL)
    return tmp_path / "llama7b_shaped.onnx"


def test_llama_totals_are_the_sum_of_layers(tmp_path):
    s = nnscan.analyze(_llama(tmp_path), input_shapes=None,
                       hardware="h100-sxm", compute_dtype="bf16")
    doc = s.json
    t = doc["totals"]
    top = [la for la in doc["layers"] if la["depth"] == 1]
    assert t["bytes"] == sum(la["bytes"] for la in top)
    assert t["flops"] == sum(la["flops"] for la in top)
    assert t["time_s"] == pytest.approx(sum(la["time_s"] for la in top),
                                        rel=1e-8)
    for la in doc["layers"]:  # a parent holds at least its children
        kids = [k for k in doc["layers"] if k["parent"] == la["index"]]
        if kids:
            assert la["bytes"] >= sum(k["bytes"] for k in kids)
            assert la["time_s"] >= sum(k["time_s"] for k in kids) * (1 - 1e-9)


def test_llama_decode_step_is_weight_bytes(tmp_path):
    # One token (batch 1, sequence 1): every node is memory-bound, and the
    # bytes are at least every weight read once (the embedding table: only
    # its one row), float32 here.
    s = nnscan.analyze(_llama(tmp_path), input_shapes={"input_ids": [1, 1]},
                       hardware="h100-sxm")
    t = s.json["totals"]
    assert t["bound"] == "memory" and t["compute_time_s"] == 0
    assert t["time_s"] == pytest.approx(t["bytes"] / H100_BW, rel=1e-8)
    table = 32000 * 4096 * 4
    weights = t["param_bytes"] - table + 4096 * 4
    assert weights <= t["bytes"] <= weights * 1.01


def test_dtype_alias(tmp_path):
    path = _gemv(tmp_path, 2048, 2048, 2048)
    a = nnscan.analyze(path, hardware="h100-sxm", dtype="fp8").totals
    b = nnscan.analyze(path, hardware="h100-sxm", compute_dtype="fp8").totals
    assert a["time_s"] == b["time_s"]
    with pytest.raises(ValueError):
        nnscan.analyze(path, hardware="h100-sxm", dtype="fp8",
                       compute_dtype="bf16")


def test_torch_summary_dtype_names_the_compute_dtype():
    """nnscan.summary(..., hardware=, dtype="bf16") as the issue writes it:
    a compute dtype's name in `dtype` is the roofline's dtype (the inputs
    stay float32); a torch.dtype there stays the inputs' dtype."""
    torch = pytest.importorskip("torch")
    model = torch.nn.Linear(4096, 4096, bias=False)
    s = nnscan.summary(model, inputs=(torch.zeros(1024, 4096),), file=False,
                       hardware="h100-sxm", dtype="bf16")
    hw = s.json["hardware"]
    assert hw["compute_dtype"] == "bf16"
    # M*N*(2K-1) FLOPs (K products, K-1 sums per output: docs/metrics.md)
    # at the H100 SXM's dense BF16 989.5 TFLOP/s against x, W, y in
    # float32 at 3.35 TB/s: compute-bound.
    flops = 1024 * 4096 * (2 * 4096 - 1)
    nbytes = 4 * (1024 * 4096 + 4096 * 4096 + 1024 * 4096)
    assert s.totals["time_s"] == pytest.approx(
        max(flops / 989.5e12, nbytes / 3.35e12), rel=1e-6)
    s64 = nnscan.summary(model.double(), inputs=(torch.zeros(2, 4096,
                         dtype=torch.float64),), file=False,
                         dtype=torch.float64)
    assert s64.totals["flops"] > 0


def test_device_figures_are_bounded(tmp_path):
    """Issue 47: figures the library's one range check refuses (inf, nan,
    1e-300, -1, 1e30), and types refused by name before ctypes."""
    path = _gemv(tmp_path, 1, 64, 32)
    for bad, shown in ((float("inf"), "inf"), (float("nan"), "nan"),
                       (1e-300, "1e-300"), (-1, "-1"), (1e30, "1e\\+30")):
        with pytest.raises(nnscan.NnscanError,
                           match=f"fp32 peak {shown} FLOP/s is not a number "
                                 "from 1e6 to 1e21"):
            nnscan.analyze(path, hardware={"name": "cpu", "peak_flops": bad,
                                           "bandwidth": 1e11})
        with pytest.raises(nnscan.NnscanError,
                           match=f"bandwidth {shown} bytes/s is not a number "
                                 "from 1e6 to 1e21"):
            nnscan.analyze(path, hardware={"name": "cpu", "peak_flops": 1e12,
                                           "bandwidth": bad})
    for bad in ("fast", True, [1e12]):
        with pytest.raises(TypeError, match="hardware"):
            nnscan.analyze(path, hardware={"name": "cpu", "peak_flops": bad,
                                           "bandwidth": 1e11})
    with pytest.raises(ValueError, match="not a number from 1e6 to 1e21"):
        nnscan.analyze(path, hardware={"name": "cpu", "peak_flops": 10 ** 400,
                                       "bandwidth": 1e11})
