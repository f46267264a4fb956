"""A LLaMA-7B-shaped decoder built on the meta device: no weight allocated.

Parameters must be exactly LLaMA-7B's 6,738,415,616; the rotary cos/sin
caches (non-persistent buffers) and the causal mask built in forward are
not parameters; the MACs of the matrix products at sequence 128 equal the
hand count of tiny_llama.matmul_macs(); Hugging Face-style keyword inputs
(input_ids integer tensor, attention_mask) are accepted.
"""
import pytest

torch = pytest.importorskip("torch")

import nnscan  # noqa: E402
import tiny_llama  # noqa: E402

LLAMA_7B_PARAMS = 6_738_415_616


@pytest.fixture(scope="module")
def llama():
    model = tiny_llama.LlamaForCausalLM(device="meta")
    ids = torch.zeros(1, 128, dtype=torch.long)
    mask = torch.ones(1, 128, dtype=torch.long)
    return model, nnscan.summary(
        model, inputs={"input_ids": ids, "attention_mask": mask}, file=False)


def test_params_exact(llama):
    model, s = llama
    assert sum(p.numel() for p in model.parameters()) == LLAMA_7B_PARAMS
    assert s.totals["params"] == LLAMA_7B_PARAMS
    kinds = {p["storage"]: p["kind"] for p in s.json["parameters"]}
    assert kinds["layers.0.self_attn.rotary.cos_cached"] == "buffer"
    assert all(k in ("trainable", "buffer", "constant") for k in kinds.values())
    # the causal mask is made in forward: not a parameter
    trainable = sum(p["elements"] for p in s.json["parameters"]
                    if p["kind"] == "trainable")
    assert trainable == LLAMA_7B_PARAMS


def test_matmul_macs_exact(llama):
    _, s = llama
    by_op = {o["op_type"]: o["macs"] for o in s.json["op_types"]}
    matmul = by_op.get("MatMul", 0) + by_op.get("Gemm", 0)
    assert matmul == tiny_llama.matmul_macs(seq=128)
    assert s.totals["macs"] == matmul  # nothing else multiplies-accumulates
    assert s.device == "meta"


def test_tree_and_types(llama):
    _, s = llama
    assert s.layer("layers.31.self_attn.q_proj")["type"] == "Linear"
    assert s.layer("layers.0")["type"] == "DecoderLayer"
    assert s.layer("")["output"]["shape"] == [1, 128, 32000]
    assert s.modules["layers.0.self_attn.rotary"]["calls"] == 1


def test_hf_style_outputs():
    """A dict-like output with a loss-free logits entry is followed."""
    class Wrap(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.inner = tiny_llama.LlamaForCausalLM(
                layers=2, hidden=64, inter=128, heads=4, vocab=100, device="meta")

        def forward(self, input_ids):
            return {"logits": self.inner(input_ids)}

    s = nnscan.summary(Wrap(), inputs={"input_ids": torch.zeros(
        2, 16, dtype=torch.long)}, file=False)
    assert s.json["outputs"][0]["shape"] == [2, 16, 100]
    assert s.totals["macs"] == tiny_llama.matmul_macs(
        layers=2, hidden=64, inter=128, heads=4, vocab=100, batch=2, seq=16)
