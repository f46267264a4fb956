"""nnscan.integrations.HFCallback in a Hugging Face Trainer (issue 48):
a tiny GPT-2 and LLaMA built from configs, trained on CPU for a few steps
with a given peak. References: FlopCounterMode over one real training step
of the same model and batch shape, and the step times a callback of this
test measures itself around the same steps."""
import statistics
import time

import pytest

torch = pytest.importorskip("torch")
transformers = pytest.importorskip("transformers")
pytest.importorskip("accelerate")  # the Trainer needs it
fcm = pytest.importorskip("torch.utils.flop_counter")

from nnscan.integrations import HFCallback  # noqa: E402

V, T, B = 256, 32, 4
PEAK = 1e12


def _llama():
    cfg = transformers.LlamaConfig(
        vocab_size=V, hidden_size=64, intermediate_size=128,
        num_hidden_layers=2, num_attention_heads=4, num_key_value_heads=2,
        max_position_embeddings=128, attn_implementation="eager")
    return transformers.LlamaForCausalLM(cfg)


def _gpt2(**dropouts):
    cfg = transformers.GPT2Config(vocab_size=V, n_embd=64, n_layer=2,
                                  n_head=4, n_positions=128,
                                  attn_implementation="eager", **dropouts)
    return transformers.GPT2LMHeadModel(cfg)


def _gpt2_no_dropout():
    """Without dropout nothing after the MLP's c_proj saves a tensor: the
    early stop skips c_proj."""
    return _gpt2(resid_pdrop=0.0, embd_pdrop=0.0, attn_pdrop=0.0)


class _Data(torch.utils.data.Dataset):
    def __len__(self):
        return 256

    def __getitem__(self, i):
        g = torch.Generator().manual_seed(i)
        x = torch.randint(0, V, (T,), generator=g)
        return {"input_ids": x, "labels": x}


class _OwnClock(transformers.TrainerCallback):
    """The test's own step times, on_step_begin to on_step_end."""

    def __init__(self):
        self.times = []

    def on_step_begin(self, *a, **k):
        self.t0 = time.perf_counter()

    def on_step_end(self, *a, **k):
        self.times.append(time.perf_counter() - self.t0)


def _reference_flops(model, checkpointing):
    """FlopCounterMode over one real training step on a batch of the
    trainer's shape (eager attention: its products are bmm, which it
    counts; dense, as it counts every pair)."""
    ids = torch.randint(0, V, (B, T))
    with fcm.FlopCounterMode(display=False) as fc:
        model(input_ids=ids, labels=ids).loss.backward()
    model.zero_grad(set_to_none=True)
    return fc.get_total_flops()


def _train(model, tmp_path, steps=8, checkpointing=False, reentrant=True):
    args = transformers.TrainingArguments(
        output_dir=str(tmp_path / "out"), per_device_train_batch_size=B,
        max_steps=steps, logging_steps=2, report_to=[], use_cpu=True,
        save_strategy="no", disable_tqdm=True,
        gradient_checkpointing=checkpointing,
        gradient_checkpointing_kwargs={"use_reentrant": reentrant})
    tr = transformers.Trainer(model=model, args=args, train_dataset=_Data())
    own = _OwnClock()
    tr.add_callback(own)
    cb = HFCallback.attach(tr, peak_flops=PEAK, warmup=2)
    tr.train()
    return tr, cb, own


@pytest.mark.parametrize("make", [_gpt2, _llama], ids=["gpt2", "llama"])
def test_trainer_logs_mfu(make, tmp_path):
    torch.manual_seed(0)
    model = make()
    model.train()
    ref = _reference_flops(model, False)
    tr, cb, own = _train(model, tmp_path)
    logs = [h for h in tr.state.log_history if "loss" in h]
    assert len(logs) == 4
    # warm-up: the first log (steps 0 and 1) has no measured step
    assert "mfu" not in logs[0]
    for h in logs[1:]:
        assert set(HFCallback.KEYS) <= set(h)
    f = cb.flops
    # model_flops (dense) against FlopCounterMode: within 1 %
    assert abs(f["model_flops_dense"] - ref) <= 0.01 * ref
    # LLaMA's causal mask leaves pairs out: masked below dense (GPT-2's
    # eager causal mask without an attention_mask is not read as a mask
    # by the recording: counted dense, as FlopCounterMode counts)
    if make is _llama:
        assert f["model_flops"] < f["model_flops_dense"]
    else:
        assert f["model_flops"] <= f["model_flops_dense"]
    recs = cb.meter.records
    assert [r["step"] for r in recs] == list(range(2, 8))
    theirs = statistics.median(r["step_s"] for r in recs)
    mine = statistics.median(own.times[2:])
    assert abs(theirs - mine) <= 0.10 * mine
    for r in recs:
        assert r["tokens"] == B * T and r["samples"] == B
        assert r["mfu"] == pytest.approx(
            f["model_flops"] / r["step_s"] / PEAK, rel=1e-6)
        assert r["tokens_per_s"] == pytest.approx(B * T / r["step_s"],
                                                  rel=1e-6)
    last = logs[-1]
    assert last["mfu"] == pytest.approx(
        statistics.median(r["mfu"] for r in recs[-2:]))
    assert last["tflops"] == pytest.approx(
        statistics.median(r["tflops"] for r in recs[-2:]))


def test_trainer_gradient_checkpointing_hfu(tmp_path):
    """LLaMA with the Trainer's gradient checkpointing (reentrant): the
    decoder layers are recomputed; hardware_flops - model_flops is exactly
    FlopCounterMode's step with checkpointing minus without (dense), and
    HFU > MFU in the logs."""
    torch.manual_seed(0)
    model = _llama()
    model.train()
    plain = _reference_flops(model, False)
    model.gradient_checkpointing_enable(
        gradient_checkpointing_kwargs={"use_reentrant": True})
    ckpt = _reference_flops(model, True)
    model.gradient_checkpointing_disable()
    tr, cb, _ = _train(model, tmp_path, steps=6, checkpointing=True)
    f = cb.flops
    assert f["recomputed"] == ["model.layers.0", "model.layers.1"]
    assert f["recompute_exact"]
    assert f["recompute_flops_dense"] == ckpt - plain
    assert f["hardware_flops"] - f["model_flops"] == f["recompute_flops"]
    logs = [h for h in tr.state.log_history if "mfu" in h]
    assert logs and all(h["hfu"] > h["mfu"] for h in logs)


@pytest.mark.parametrize("make", [_gpt2, _gpt2_no_dropout, _llama],
                         ids=["gpt2", "gpt2-no-dropout", "llama"])
def test_trainer_non_reentrant_checkpointing_is_exact(make, tmp_path):
    """The Trainer's non-reentrant gradient checkpointing stops
    recomputing early (LLaMA's down_proj is not run again, nor GPT-2's
    c_proj without dropout; with dropout, whose mask is saved last, the
    whole GPT-2 block is):
    recompute_flops_dense is exactly FlopCounterMode's step with
    checkpointing minus without, and it is exact."""
    torch.manual_seed(0)
    model = make()
    model.train()
    plain = _reference_flops(model, False)
    model.gradient_checkpointing_enable(
        gradient_checkpointing_kwargs={"use_reentrant": False})
    ckpt = _reference_flops(model, True)
    model.gradient_checkpointing_enable(
        gradient_checkpointing_kwargs={"use_reentrant": True})
    whole = _reference_flops(model, True)  # reentrant: the whole layers
    model.gradient_checkpointing_disable()
    # the early stop skips a product, or (dropout saving last) nothing
    assert (ckpt < whole) == (make is not _gpt2)
    _, cb, _ = _train(model, tmp_path, steps=3, checkpointing=True,
                      reentrant=False)
    f = cb.flops
    layers = "model.layers" if make is _llama else "transformer.h"
    assert f["recomputed"] == [f"{layers}.0", f"{layers}.1"]
    assert f["recompute_exact"]
    assert 0 < f["recompute_flops_dense"] == ckpt - plain
    assert f["hardware_flops"] - f["model_flops"] == f["recompute_flops"]


def test_callback_printed_in_trainer_logs(tmp_path, capsys):
    """attach() puts the callback first: the trainer's own printer shows
    the keys."""
    torch.manual_seed(0)
    model = _gpt2()
    args = transformers.TrainingArguments(
        output_dir=str(tmp_path / "out"), per_device_train_batch_size=B,
        max_steps=4, logging_steps=2, report_to=[], use_cpu=True,
        save_strategy="no", disable_tqdm=True)
    tr = transformers.Trainer(model=model, args=args, train_dataset=_Data())
    HFCallback.attach(tr, peak_flops=PEAK, warmup=1)
    tr.train()
    out = capsys.readouterr().out
    assert "'mfu'" in out and "'tokens_per_s'" in out
