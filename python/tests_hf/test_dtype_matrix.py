"""The dtype matrix of issue 40: mixture-of-experts counts and a training
step's memory in float32, bfloat16 and float16, against the same PyTorch
references in every dtype.

- Mixture of experts, tiny configs on meta built in the dtype: parameters
  == sum(p.numel()), param_bytes == sum(p.numel() * p.element_size())
  plus the float32 buffers read,
  params_active == every parameter but the experts' plus k of E experts
  per layer (the config's closed form), matrix-product MACs ==
  FlopCounterMode's (hf_zoo.reference), nothing uncounted.
- A training step (GPT-2 from a small config, AdamW), recorded on meta in
  the dtype, against a real CPU step in the same dtype: bytes autograd
  saves (saved_tensors_hooks, each storage once), parameter bytes
  (sum numel * element_size), gradient bytes and AdamW's state bytes as
  PyTorch allocates them, and the step's peak within 10 % of MemTracker.
"""
import pytest
import torch

import hf_zoo
import nnscan
from test_generate_hf import _experts_per_layer
from test_train_step import real_step, saved_by_top_module

DTYPES = [torch.float32, torch.bfloat16, torch.float16]


def _params_bytes(model):
    return sum(p.numel() * p.element_size() for p in model.parameters())


@pytest.mark.parametrize("dtype", DTYPES, ids=str)
@pytest.mark.parametrize("family", ["mixtral", "qwen2_moe", "qwen3_moe",
                                    "olmoe"])
def test_moe_in_every_dtype(family, dtype):
    model, inputs = hf_zoo.build(family, dtype=dtype)
    assert next(model.parameters()).dtype == dtype
    cfg = model.config
    total, ref_macs = hf_zoo.reference(model, inputs)
    s = nnscan.summary(model, inputs=inputs, file=False)
    t = s.totals
    assert t["params"] == total
    # the parameters at their dtype's size, and the buffers the forward
    # reads (the rotary inv_freq, kept float32 in every dtype)
    assert all(b.dtype == torch.float32 for b in model.buffers())
    assert t["buffers"] <= sum(b.numel() for b in model.buffers())
    assert t["param_bytes"] == _params_bytes(model) + 4 * t["buffers"]
    n, k, experts = _experts_per_layer(cfg)
    layers = cfg.num_hidden_layers
    assert t["params_active"] == total - layers * experts \
        + layers * experts * k // n
    assert hf_zoo.matmul_macs(s) == ref_macs
    assert s.uncounted_aten == {}
    assert t["complete"]


def _gpt2(dtype):
    from transformers import GPT2Config, GPT2LMHeadModel
    torch.manual_seed(0)
    cfg = GPT2Config(n_layer=2, n_embd=64, n_head=4, vocab_size=500,
                     n_positions=64, bos_token_id=0, eos_token_id=0,
                     use_cache=False)
    model = GPT2LMHeadModel(cfg).to(dtype)
    ids = torch.randint(0, 500, (2, 32))
    return model, {"input_ids": ids, "labels": ids}


_SUMMARY = {}


def _case(dtype):
    if dtype not in _SUMMARY:
        model, kw = _gpt2(dtype)
        s = nnscan.summary(model, inputs=kw, training=True,
                           optimizer="adamw", file=False)
        _SUMMARY[dtype] = model, kw, s
    return _SUMMARY[dtype]


@pytest.mark.parametrize("dtype", DTYPES, ids=str)
def test_training_saved_bytes_in_every_dtype(dtype):
    model, kw, s = _case(dtype)
    want = saved_by_top_module(model, (), kw, None)
    assert s.totals["saved_bytes"] == sum(want.values()), dtype


@pytest.mark.parametrize("dtype", DTYPES, ids=str)
def test_training_params_grads_optimizer_in_every_dtype(dtype):
    model, kw, s = _case(dtype)
    t = s.totals
    assert t["param_bytes"] == _params_bytes(model) + sum(
        b.numel() * b.element_size() for b in model.buffers())
    peak, grads, state = real_step(model, (), kw, None)
    # the gradients as autograd allocates them: one per parameter, of its
    # dtype; AdamW's exp_avg and exp_avg_sq of the parameter's dtype and
    # a float32 step per parameter
    assert t["grad_bytes"] == grads == _params_bytes(model)
    n = len(list(model.parameters()))
    assert t["optimizer_bytes"] == state == 2 * _params_bytes(model) + 4 * n
    assert abs(t["train_peak_bytes"] - peak) <= 0.10 * peak, \
        (dtype, t["train_peak_bytes"], peak)
