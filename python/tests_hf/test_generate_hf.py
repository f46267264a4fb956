"""transformers models: active parameters of mixture-of-experts families
against their config's closed form, and prefill/decode steps against
PyTorch itself (FlopCounterMode on a real tiny forward per step, the
DynamicCache's tensor sizes) and the closed form of the cache,
2 * layers * kv_heads * head_dim * tokens * dtype size."""
import pytest
import torch

import hf_zoo
import nnscan
from conftest import zoo_config


def _experts_per_layer(cfg):
    """(E, k, parameters of all E experts of one layer) from the config."""
    if cfg.model_type == "mixtral":
        n, inter = cfg.num_local_experts, cfg.intermediate_size
    elif cfg.model_type == "olmoe":
        n, inter = cfg.num_experts, cfg.intermediate_size
    else:
        n, inter = cfg.num_experts, cfg.moe_intermediate_size
    return n, cfg.num_experts_per_tok, n * 3 * cfg.hidden_size * inter


@pytest.mark.parametrize("family", ["mixtral", "qwen2_moe", "qwen3_moe",
                                    "olmoe"])
def test_params_active_closed_form(family):
    model, inputs = hf_zoo.build(family)
    cfg = model.config
    total = sum(p.numel() for p in model.parameters())
    n, k, experts = _experts_per_layer(cfg)
    layers = cfg.num_hidden_layers
    s = nnscan.summary(model, inputs=inputs, file=False)
    assert s.totals["params"] == total
    # every parameter but the experts', plus k of the E experts per layer
    assert s.totals["params_active"] == total - layers * experts \
        + layers * experts * k // n
    layer0 = s.layer("model.layers.0")
    assert layer0["params"] - layer0["params_active"] == \
        experts - experts * k // n


def test_mixtral_decode_reads_k_experts():
    model, inputs = hf_zoo.build("mixtral")
    cfg = model.config
    n, k, experts = _experts_per_layer(cfg)
    p = nnscan.profile_generate(model, inputs=inputs, max_new_tokens=2)
    pre, step = p.steps
    # 16 tokens reach all 4 experts: every weight is read
    assert pre["weight_bytes_read"] == p.prefill.totals["param_bytes"]
    assert pre["weight_bytes_read"] >= \
        sum(q.numel() for q in model.parameters()) * 4
    # one token reaches k of them
    assert pre["weight_bytes_read"] - step["weight_bytes_read"] == \
        cfg.num_hidden_layers * (experts - experts * k // n) * 4


def _kv_entry_bytes(cfg, dtype_size):
    head_dim = getattr(cfg, "head_dim", None) or \
        cfg.hidden_size // cfg.num_attention_heads
    return 2 * cfg.num_hidden_layers * cfg.num_key_value_heads * head_dim \
        * dtype_size


@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16])
def test_llama_kv_cache_closed_form(dtype):
    model, inputs = hf_zoo.build("llama", dtype=dtype)
    entry = _kv_entry_bytes(model.config, torch.finfo(dtype).bits // 8)
    prompt = inputs["input_ids"].shape[1]
    p = nnscan.profile_generate(model, inputs=inputs, max_new_tokens=4)
    assert p.prefill.device == "meta"
    for r in p.steps:
        tokens = prompt if r["step"] == "prefill" else 1
        assert r["kv_cache_bytes_read"] == entry * r["past"]
        assert r["kv_cache_bytes_written"] == entry * tokens
        assert r["kv_cache_bytes"] == entry * (r["past"] + tokens)


def _flop_counter_macs(model, **kw):
    from torch.utils.flop_counter import FlopCounterMode
    with torch.no_grad(), FlopCounterMode(display=False) as fc:
        out = model(**kw)
    return sum(fc.get_flop_counts()["Global"].values()) // 2, out


def test_llama_steps_match_a_real_generation():
    """A real tiny LLaMA on the CPU: prefill, then decode forwards with the
    cache the model itself filled, each under FlopCounterMode, against the
    steps nnscan recorded on meta; the real cache's tensor sizes against
    the step's kv_cache_bytes. Eager attention: FlopCounterMode has no
    formula for the CPU's fused SDPA kernel."""
    torch.manual_seed(0)
    model, inputs = hf_zoo.build("llama", device="cpu",
                                 attn_implementation="eager")
    mask = torch.ones_like(inputs["input_ids"])
    p = nnscan.profile_generate(model, inputs={**inputs,
                                               "attention_mask": mask},
                                max_new_tokens=3)
    ids = inputs["input_ids"]
    macs, out = _flop_counter_macs(model, input_ids=ids, attention_mask=mask,
                                   use_cache=True, logits_to_keep=1)
    assert hf_zoo.matmul_macs(p.prefill) == macs
    cache = out.past_key_values
    for r in p.steps[1:]:
        past = r["past"]
        assert cache.get_seq_length() == past
        assert r["kv_cache_bytes_read"] == sum(
            t.numel() * t.element_size()
            for layer in cache.layers for t in (layer.keys, layer.values))
        mask = torch.ones(1, past + 1, dtype=torch.long)
        macs, out = _flop_counter_macs(
            model, input_ids=torch.zeros(1, 1, dtype=torch.long),
            attention_mask=mask, past_key_values=cache, use_cache=True,
            logits_to_keep=1)
        assert hf_zoo.matmul_macs(p.decode[past]) == macs, r["step"]
        cache = out.past_key_values
        assert r["kv_cache_bytes"] == sum(
            t.numel() * t.element_size()
            for layer in cache.layers for t in (layer.keys, layer.values))


@pytest.mark.parametrize("family", ["mistral", "gemma2", "gemma3_text"])
def test_sliding_window_steps_match_a_real_generation(family, monkeypatch):
    """As test_llama_steps_match_a_real_generation, for models whose
    cache slides (every layer's, Mistral; every other one's, Gemma 2; five
    of six, Gemma 3): a window of 20 keys after a 16-token prompt, so the
    decode steps cross where the window's slots fill (past 19), after
    which those slots hold 19 keys and the step reads no more."""
    zoo_config(monkeypatch, sliding_window=20)
    torch.manual_seed(0)
    model, inputs = hf_zoo.build(family, device="cpu",
                                 attn_implementation="eager")
    p = nnscan.profile_generate(model, inputs=inputs, max_new_tokens=7)
    ids = inputs["input_ids"]
    macs, out = _flop_counter_macs(model, input_ids=ids, use_cache=True,
                                   logits_to_keep=1)
    assert hf_zoo.matmul_macs(p.prefill) == macs
    cache = out.past_key_values
    assert any(type(x).__name__ == "DynamicSlidingWindowLayer"
               for x in cache.layers)
    read = []
    for r in p.steps[1:]:
        past = r["past"]
        assert cache.get_seq_length() == past
        read.append(sum(t.numel() * t.element_size()
                        for layer in cache.layers
                        for t in (layer.keys, layer.values)))
        assert r["kv_cache_bytes_read"] == read[-1], r["step"]
        macs, out = _flop_counter_macs(
            model, input_ids=torch.zeros(1, 1, dtype=torch.long),
            past_key_values=cache, use_cache=True, logits_to_keep=1)
        assert hf_zoo.matmul_macs(p.decode[past]) == macs, r["step"]
        cache = out.past_key_values
        assert r["kv_cache_bytes"] == sum(
            t.numel() * t.element_size()
            for layer in cache.layers for t in (layer.keys, layer.values))
    # the sliding slots stop growing at past 19: the reads grow by the
    # full layers' entry alone from there
    grow = [b - a for a, b in zip(read, read[1:])]
    assert grow[0] > grow[-1]


def test_steps_between_recorded_ones_stay_exact_across_a_window(
        monkeypatch):
    # the step where a window's slots fill is recorded too: the steps
    # taken between recorded ones (linear in the past) are then exact
    zoo_config(monkeypatch, sliding_window=24)
    model, inputs = hf_zoo.build("gemma2")
    every = nnscan.profile_generate(model, inputs=inputs, max_new_tokens=14,
                                    steps=list(range(13)))
    few = nnscan.profile_generate(model, inputs=inputs, max_new_tokens=14,
                                  steps=2)
    assert [r["past"] for r in few.steps if r["recorded"]] == \
        [0, 16, 22, 23, 28]
    strip = ("recorded",)
    assert [{k: v for k, v in r.items() if k not in strip}
            for r in few.steps] == \
        [{k: v for k, v in r.items() if k not in strip} for r in every.steps]


@pytest.mark.parametrize("device", ["meta", "cpu"])
@pytest.mark.parametrize("family", ["llama", "mistral"])
def test_a_cache_in_the_inputs_is_left_as_it_was(family, device):
    # summary of a decode step given transformers' own cache (a
    # DynamicCache after a prefill): the forward extends a copy, never the
    # caller's cache; its products as FlopCounterMode counts the same step
    torch.manual_seed(0)
    model, inputs = hf_zoo.build(family, device=device,
                                 attn_implementation="eager")
    with torch.no_grad():
        cache = model(**inputs, use_cache=True).past_key_values
    held = [(x.keys, x.values, dict(vars(x))) for x in cache.layers]
    step = {"input_ids": torch.zeros(1, 1, dtype=torch.long),
            "past_key_values": cache}
    s = nnscan.summary(model, inputs=step, file=False)
    assert cache.get_seq_length() == inputs["input_ids"].shape[1]
    assert all(x.keys is k and x.values is v and vars(x) == d
               for x, (k, v, d) in zip(cache.layers, held))
    import copy
    macs, _ = _flop_counter_macs(model, input_ids=step["input_ids"],
                                 past_key_values=copy.deepcopy(cache))
    assert hf_zoo.matmul_macs(s) == macs


def test_real_and_meta_models_give_the_same_steps():
    torch.manual_seed(0)
    meta, inputs = hf_zoo.build("qwen2")
    real, _ = hf_zoo.build("qwen2", device="cpu")
    a = nnscan.profile_generate(meta, inputs=inputs, max_new_tokens=3)
    b = nnscan.profile_generate(real, inputs=inputs, max_new_tokens=3)
    assert a.steps == b.steps


def test_a_model_without_a_cache_is_refused_clearly():
    model, inputs = hf_zoo.build("bert")
    with pytest.raises(TypeError, match="pass step="):
        nnscan.profile_generate(model, inputs=inputs, max_new_tokens=2)


def _allowed_pairs(start, rows, window):
    """(query, key) pairs a causal mask allows to `rows` queries at
    positions start, start + 1, ... over the keys 0 .. position: all of
    them, or within a sliding window of `window` keys (the query's own
    included, as Mistral's config defines it). Counted by hand."""
    total = 0
    for q in range(start, start + rows):
        keys = q + 1
        total += keys if window is None else min(keys, window)
    return total


@pytest.mark.parametrize("family,window", [("llama", None),
                                           ("mistral", 4)])
def test_steps_carry_unmasked_attention(family, window):
    """Each step's macs - macs_unmasked is (dense - allowed) pairs times
    (E + Ev) per batch row, head and layer, the allowed pairs counted by
    hand: the prefill leaves the upper triangle out (and, with a window,
    the keys before it); a decode step (one query row) leaves nothing out:
    under full attention it reads every key, and with a window its cache
    (transformers' DynamicSlidingWindowLayer) holds the window's last
    window - 1 keys, so its one query reads the window and no more."""
    cfg = hf_zoo.config(family)
    if window is not None:
        cfg.sliding_window = window
    with torch.device("meta"):
        model = hf_zoo.transformers.AutoModelForCausalLM.from_config(
            cfg).eval()
    B, T = 2, 6
    p = nnscan.profile_generate(
        model, inputs={"input_ids": torch.zeros(B, T, dtype=torch.long)},
        max_new_tokens=4)
    head_dim = getattr(cfg, "head_dim", None) or \
        cfg.hidden_size // cfg.num_attention_heads
    per_pair = 2 * head_dim  # E (Q.K^T) + Ev (P.V)
    heads = B * cfg.num_attention_heads * cfg.num_hidden_layers
    entry = B * _kv_entry_bytes(cfg, 4)
    for r in p.steps:
        assert r["macs_unmasked"] is not None and r["flops_unmasked"] \
            is not None
        if r["step"] == "prefill":
            dense = T * T
            left_out = (dense - _allowed_pairs(0, T, window)) \
                * per_pair * heads
            assert r["macs"] - r["macs_unmasked"] == left_out, r
            assert r["macs_unmasked"] < r["macs"]
            continue
        assert r["macs_unmasked"] == r["macs"], r
        held = r["past"] if window is None else min(r["past"], window - 1)
        assert r["kv_cache_bytes_read"] == entry * held, r
    # the decode steps reach past the window (past 6..8 > 4)
    assert p.steps[-1]["past"] > (window or 0)


class _PerCall:
    """FlopCounterMode around each top-level call of a model (a forward
    pre-hook enters it, a forward hook leaves it): the matrix-product MACs
    PyTorch counts in each call a loop makes, and the cache length each
    call received."""

    def __init__(self, model):
        self.model, self.macs, self.past = model, [], []

    def __enter__(self):
        from torch.utils.flop_counter import FlopCounterMode

        def pre(module, args, kwargs):
            cache = kwargs.get("past_key_values")
            self.past.append(0 if cache is None else cache.get_seq_length())
            self.fc = FlopCounterMode(display=False)
            self.fc.__enter__()

        def post(module, args, kwargs, out):
            self.fc.__exit__(None, None, None)
            self.macs.append(
                sum(self.fc.get_flop_counts()["Global"].values()) // 2)
        self.hooks = [
            self.model.register_forward_pre_hook(pre, with_kwargs=True),
            self.model.register_forward_hook(post, with_kwargs=True)]
        return self

    def __exit__(self, *exc):
        for h in self.hooks:
            h.remove()


def _hand_loop(ids, n):
    """A user's own greedy decode loop: the prompt, then n - 1 calls with
    one token per row and the cache the model returned."""
    def loop(m):
        with torch.no_grad():
            out = m(input_ids=ids, use_cache=True)
            for _ in range(n - 1):
                nxt = out.logits[:, -1:].argmax(-1)
                out = m(input_ids=nxt, past_key_values=out.past_key_values,
                        use_cache=True)
    return loop


def _generate_loop(ids, n):
    def loop(m):
        m.generate(input_ids=ids, attention_mask=torch.ones_like(ids),
                   max_new_tokens=n, min_new_tokens=n, do_sample=False,
                   pad_token_id=0)
    return loop


@pytest.mark.parametrize("make_loop", [_hand_loop, _generate_loop],
                         ids=["hand_loop", "generate"])
def test_loop_records_each_call_as_a_step(make_loop):
    """profile_generate(loop=...): a real tiny LLaMA on the CPU runs a
    user's own decode loop (or generate()); each top-level call is one
    step. The same loop run again with FlopCounterMode around each call
    gives the reference MACs per step and the cache length it received;
    the KV bytes against 2 * layers * kv_heads * head_dim * tokens * 4.
    Eager attention: FlopCounterMode has no formula for the CPU's fused
    SDPA kernel."""
    torch.manual_seed(0)
    model, inputs = hf_zoo.build("llama", device="cpu",
                                 attn_implementation="eager")
    B, T, n = 2, 5, 4
    ids = torch.arange(B * T).reshape(B, T) % model.config.vocab_size
    loop = make_loop(ids, n)
    p = nnscan.profile_generate(model, loop=loop)
    with _PerCall(model) as ref:
        loop(model)
    assert len(p.steps) == len(ref.macs) == n
    assert p.new_tokens == n
    assert [r["step"] for r in p.steps] == ["prefill"] + list(range(1, n))
    assert [r["past"] for r in p.steps] == ref.past == \
        [0] + [T + j for j in range(n - 1)]
    summaries = [p.prefill] + [p.decode[r["past"]] for r in p.steps[1:]]
    assert [hf_zoo.matmul_macs(s) for s in summaries] == ref.macs
    entry = _kv_entry_bytes(model.config, 4) * B
    for r in p.steps:
        new = T if r["step"] == "prefill" else 1
        assert r["tokens"] == B * new
        assert r["kv_cache_bytes_read"] == entry * r["past"]
        assert r["kv_cache_bytes_written"] == entry * new
        assert r["kv_cache_bytes"] == entry * (r["past"] + new)
        assert r["macs_unmasked"] <= r["macs"]
    assert p.prefill.device == "meta"


@pytest.mark.parametrize("make_loop", [_hand_loop, _generate_loop],
                         ids=["hand_loop", "generate"])
def test_a_loop_with_a_sliding_window(make_loop, monkeypatch):
    # Gemma 2 with a window of 8 after a 5-token prompt: its sliding
    # slots fill during the loop (7 keys, at past 7); each call's recorded
    # step against FlopCounterMode around the real call, and the real
    # cache's sizes
    zoo_config(monkeypatch, sliding_window=8)
    torch.manual_seed(0)
    model, _ = hf_zoo.build("gemma2", device="cpu",
                            attn_implementation="eager")
    ids = torch.arange(5).reshape(1, 5) % model.config.vocab_size
    loop = make_loop(ids, 5)
    p = nnscan.profile_generate(model, loop=loop)
    with _PerCall(model) as ref:
        loop(model)
    assert [r["past"] for r in p.steps] == ref.past == [0, 5, 6, 7, 8]
    summaries = [p.prefill] + [p.decode[r["past"]] for r in p.steps[1:]]
    assert [hf_zoo.matmul_macs(s) for s in summaries] == ref.macs
    cache = [None]

    def last(m):
        with torch.no_grad():
            cache[0] = m(input_ids=ids, use_cache=True).past_key_values
    last(model)
    read = [r["kv_cache_bytes_read"] for r in p.steps]
    assert read[1] == sum(t.numel() * t.element_size()
                          for x in cache[0].layers for t in (x.keys, x.values))
    assert read[2] - read[1] > read[4] - read[3] > 0  # the window full


def test_loop_on_the_meta_device():
    """A meta model (no weights) runs a hand-written loop on meta tensors:
    the same steps as the real model's."""
    torch.manual_seed(0)
    meta, _ = hf_zoo.build("llama")
    real, _ = hf_zoo.build("llama", device="cpu")
    ids = torch.zeros(1, 5, dtype=torch.long)
    a = nnscan.profile_generate(meta, loop=_hand_loop(ids.to("meta"), 3))
    b = nnscan.profile_generate(real, loop=_hand_loop(ids, 3))
    assert len(a.steps) == 3
    assert a.steps == b.steps


def test_a_loop_that_never_calls_the_model_is_refused():
    model, _ = hf_zoo.build("llama")
    with pytest.raises(ValueError, match="never called the model"):
        nnscan.profile_generate(model, loop=lambda m: None)
    with pytest.raises(ValueError, match="not both"):
        nnscan.profile_generate(model, loop=lambda m: None, steps=2)
