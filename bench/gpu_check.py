#!/usr/bin/python3
"""nnscan's CUDA paths against what PyTorch measures on a real GPU
(issues 21 and 22; needs a CUDA device, transformers and torchvision).

    PYTHONPATH=python NNSCAN_LIBRARY=$PWD/build/libnnscan.so \
        python3 bench/gpu_check.py [--only train|mfu|inspect|roofline]
        [--hardware h100-sxm]

train: summary(training=True, optimizer="adamw") made on the CPU (the
  step on meta, as users run it), as predicted for the CPU's graph and for
  target="cuda", against one steady-state step on the GPU: the bytes a
  saved-tensor hook sees there, torch.cuda.max_memory_allocated() over the
  step (AdamW as PyTorch runs it on CUDA, foreach, and with foreach=False,
  the per-parameter loop nnscan models), and the gradient and optimizer
  bytes PyTorch allocates. Then the Inspector's CUDA allocator figures
  over a training step beside its prediction of what each top-level
  module saves.
mfu: nnscan.StepMeter over real bf16 training steps of a LLaMA-style
  decoder (with and without gradient checkpointing) against the same
  steps timed by this script's own CUDA events, and the step's FLOPs
  against FlopCounterMode over one real step on the GPU.
inspect: the Inspector's cost on the GPU per setting (ResNet-50, bf16,
  forward only): no checks, NaN/Inf checks, and the allocator's figures.
roofline: ResNet-50 and a LLaMA-3-8B-shaped decoder (two layers), bf16,
  forward under the Inspector with CUDA event timing, static_inputs and
  hardware: per module the measured time per pass against the roofline
  time; a module faster than its roof by more than timer noise (5 %) is
  flagged. The whole forward is also timed without the Inspector.
Every figure printed comes from nnscan or from PyTorch on this run.
"""
import argparse
import os
import statistics
import sys
import time
import traceback

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "python", "tests_hf"))
sys.path.insert(0, os.path.join(HERE, "..", "python"))

import torch  # noqa: E402

import nnscan  # noqa: E402

MB = 1e6


# ---- models (built on the CPU, moved to the GPU for the real step) ----

def gpt2(n_layer=4, n_embd=256, n_head=4, vocab=5000, batch=4, seq=128,
         attn="sdpa"):
    from transformers import GPT2Config, GPT2LMHeadModel
    torch.manual_seed(0)
    cfg = GPT2Config(n_layer=n_layer, n_embd=n_embd, n_head=n_head,
                     vocab_size=vocab, n_positions=max(seq, 256),
                     bos_token_id=0, eos_token_id=0, use_cache=False)
    cfg._attn_implementation = attn
    model = GPT2LMHeadModel(cfg)
    ids = torch.randint(0, vocab, (batch, seq))
    return model, (), {"input_ids": ids, "labels": ids}, None


def llama(layers=4, hidden=1024, heads=16, kv=4, inter=2816, vocab=32000,
          batch=4, seq=1024, dtype=torch.bfloat16):
    from transformers import LlamaConfig, LlamaForCausalLM
    torch.manual_seed(0)
    cfg = LlamaConfig(hidden_size=hidden, intermediate_size=inter,
                      num_hidden_layers=layers, num_attention_heads=heads,
                      num_key_value_heads=kv, vocab_size=vocab,
                      max_position_embeddings=max(seq, 2048), use_cache=False)
    cfg._attn_implementation = "sdpa"
    model = LlamaForCausalLM(cfg).to(dtype)
    ids = torch.randint(0, vocab, (batch, seq))
    return model, (), {"input_ids": ids, "labels": ids}, None


def resnet(arch="resnet18", batch=4, size=64, classes=10):
    import torchvision
    torch.manual_seed(0)
    model = getattr(torchvision.models, arch)(num_classes=classes)
    x = torch.randn(batch, 3, size, size)
    target = torch.randint(0, classes, (batch,))
    return model, (x,), {}, ("ce", target)


TRAIN = {
    "gpt2-test (4x128, fp32)": lambda: gpt2(),
    "gpt2-test eager attn": lambda: gpt2(attn="eager"),
    "gpt2-small (8x512, fp32)": lambda: gpt2(12, 768, 12, 50257, 8, 512),
    "llama-1024 GQA (4x1024, bf16)": lambda: llama(),
    "resnet18 (4x64^2)": lambda: resnet(),
    "resnet50 (32x224^2)": lambda: resnet("resnet50", 32, 224, 1000),
}


def on(dev, args, kwargs, loss):
    args = tuple(a.to(dev) for a in args)
    kwargs = {k: v.to(dev) for k, v in kwargs.items()}
    if isinstance(loss, tuple):
        target = loss[1].to(dev)
        loss = (lambda t: lambda out:
                torch.nn.functional.cross_entropy(out, t))(target)
    return args, kwargs, loss


def loss_of(out, loss):
    return loss(out) if loss is not None else out.loss


def cuda_step_peak(model, args, kwargs, loss, foreach):
    """max_memory_allocated over a steady-state step (AdamW), with the
    bytes live before it; gradient and optimizer-state bytes."""
    opt = torch.optim.AdamW(model.parameters(), foreach=foreach)
    grads = [0]

    def step():
        # the caller holds the outputs through the step (docs/metrics.md,
        # train_peak_bytes; the CPU test's MemTracker step does the same)
        out = model(*args, **kwargs)
        loss_of(out, loss).backward()
        grads[0] = sum(p.grad.untyped_storage().nbytes()
                       for p in model.parameters() if p.grad is not None)
        opt.step()
        opt.zero_grad(set_to_none=True)
        del out
    step()
    torch.cuda.synchronize()
    torch.cuda.reset_peak_memory_stats()
    before = torch.cuda.memory_allocated()
    step()
    torch.cuda.synchronize()
    peak = torch.cuda.max_memory_allocated()
    state = sum(v.untyped_storage().nbytes() for s in opt.state.values()
                for v in s.values() if isinstance(v, torch.Tensor)
                and v.is_cuda)
    torch.cuda.empty_cache()
    return peak, before, grads[0], state


def train_case(name):
    """One model's figures, in a process of its own (a clean allocator)."""
    import test_train_step as T
    build = TRAIN[name]
    model, args, kwargs, loss = build()
    cargs, ckw, closs = on("cpu", args, kwargs, loss)
    pred = {}
    for tgt in (None, "cuda"):
        s = nnscan.summary(model, inputs=ckw or cargs, training=True,
                           optimizer="adamw", loss=closs, file=False,
                           target=tgt)
        pred[tgt] = s.totals
    model = model.cuda()
    gargs, gkw, gloss = on("cuda", args, kwargs, loss)
    params = sum(t.untyped_storage().nbytes() for t in
                 {id(t): t for t in list(model.parameters())
                  + list(model.buffers())}.values())
    loop = cuda_step_peak(model, gargs, gkw, gloss, False)
    fe = cuda_step_peak(model, gargs, gkw, gloss, None)
    model.zero_grad(set_to_none=True)
    saved = sum(T.saved_by_top_module(model, gargs, gkw, gloss).values())
    c = pred["cuda"]
    return {"name": name, "saved_cpu": pred[None]["saved_bytes"],
            "saved_cuda": c["saved_bytes"], "saved_hook": saved,
            "peak": c["train_peak_bytes"], "peak_cpu":
            pred[None]["train_peak_bytes"],
            "at": c["training"].get("peak_at"), "loop": loop[0],
            "foreach": fe[0], "before": loop[1], "params": params,
            "grads": c["grad_bytes"], "grads_real": loop[2],
            "state": c["optimizer_bytes"], "state_real": loop[3]}


def train_section():
    import json
    import subprocess
    print("\n## Training step: prediction (made on the CPU, step on meta) "
          "against a real CUDA step, each model in a fresh process\n")
    rows = []
    for name in TRAIN:
        r = subprocess.run([sys.executable, os.path.abspath(__file__),
                            "--train-case", name], capture_output=True,
                           text=True)
        line = [x for x in r.stdout.splitlines() if x.startswith("{")]
        if r.returncode or not line:
            print(f"{name}: FAILED\n{r.stdout[-2000:]}\n{r.stderr[-3000:]}")
            continue
        rows.append(json.loads(line[-1]))
    print("Workspace: what the allocator holds before the step beyond the "
          "parameters, buffers and optimizer state (cuBLAS/cuDNN "
          "workspaces, no tensor of the model); `- ws` compares the "
          "prediction with max_memory_allocated less that.\n")
    print("| model | saved: CPU graph / target=cuda / hook on the GPU MB | "
          "peak: predicted (target=cuda) MB | at | max_memory_allocated, "
          "AdamW per-parameter loop MB | pred./real | pred./(real - ws) | "
          "AdamW foreach (CUDA default) MB | pred./(real - ws) | workspace "
          "MB | grads pred./real MB | AdamW state pred./real MB |")
    print("|" + "---|" * 12)
    for r in rows:
        at = r["at"] or {}
        where = " ".join(str(at.get(k) or "") for k in ("phase", "label",
                                                          "module")).strip()
        ws = r["before"] - r["params"] - r["state_real"]
        print(f"| {r['name']} | {r['saved_cpu'] / MB:.2f} / "
              f"{r['saved_cuda'] / MB:.2f} / {r['saved_hook'] / MB:.2f} | "
              f"{r['peak'] / MB:.2f} | {where} | {r['loop'] / MB:.2f} | "
              f"{r['peak'] / r['loop']:.3f} | "
              f"{r['peak'] / (r['loop'] - ws):.3f} | "
              f"{r['foreach'] / MB:.2f} | "
              f"{r['peak'] / (r['foreach'] - ws):.3f} | {ws / MB:.2f} | "
              f"{r['grads'] / MB:.2f} / {r['grads_real'] / MB:.2f} | "
              f"{r['state'] / MB:.2f} / {r['state_real'] / MB:.2f} |")
    inspector_training()


def inspector_training():
    """The Inspector over real CUDA training steps of the test's GPT-2:
    per top-level module, the CUDA allocator's live-bytes change over its
    forward beside the prediction of what it saves."""
    print("\n## Inspector on CUDA, training steps of gpt2-test: allocator "
          "figures beside the prediction\n")
    try:
        model, args, kwargs, loss = gpt2()
        model = model.cuda().train()
        _, gkw, _ = on("cuda", args, kwargs, loss)
        opt = torch.optim.AdamW(model.parameters())
        for _ in range(2):   # warm-up: the first pass loads the kernels
            model(**gkw).loss.backward()
            opt.step()
            opt.zero_grad(set_to_none=True)
        insp = nnscan.Inspector(model, static_inputs={k: v.cpu() for k, v
                                                      in gkw.items()},
                                predict_training=True, watch_depth=3,
                                check_nonfinite=False)
        with insp:
            for _ in range(3):
                model(**gkw).loss.backward()
                opt.step()
                opt.zero_grad(set_to_none=True)
        torch.cuda.synchronize()
        j = insp.json()
        print(f"meta: {j['meta']}; errors: {insp.errors}")
        print("| module | calls | fwd ms/pass | bwd ms/pass | fwd alloc MB "
              "per call | fwd live delta MB per call (last) | predicted "
              "saved MB |")
        print("|---|---|---|---|---|---|---|")
        npass = max(len(j["passes"]), 1)
        last = {}
        for c in j["calls"]:
            if c["forward"] is not None:
                last[c["module"]] = c["forward"].get("live_delta_bytes")
        for i, m in enumerate(j["modules"]):
            if m["depth"] > 3:
                continue
            f, b = m["forward"], m["backward"] or {}
            calls = max(m["calls"], 1)
            ld = last.get(i)
            ps = m.get("predicted_saved_bytes")
            print(f"| {m['path'] or '(root)'} | {m['calls']} | "
                  f"{f['inclusive_ms'] / npass:.3f} | "
                  f"{(b.get('inclusive_ms') or 0) / npass:.3f} | "
                  f"{f['alloc_bytes'] / calls / MB:.3f} | "
                  f"{'-' if ld is None else f'{ld / MB:.3f}'} | "
                  f"{'-' if ps is None else f'{ps / MB:.3f}'} |")
    except Exception:
        print(f"FAILED\n{traceback.format_exc()}")


# ---- MFU ----

def mfu_case(name, checkpointing, hardware, steps=12):
    """StepMeter's figures over real steps against this script's own: the
    median CUDA-event step time without the meter, FlopCounterMode's FLOPs
    over one real step (dense: it counts every attention pair)."""
    from torch.utils.flop_counter import FlopCounterMode
    with torch.device("cuda"):
        # kv=heads: FlopCounterMode's SDPA formula refuses grouped-query
        # shapes (torch 2.11: "query/key/value shapes are incompatible")
        model, _, kwargs, _ = llama(layers=8, hidden=2048, heads=16, kv=16,
                                    inter=5632, batch=8, seq=2048)
    model.train()
    if checkpointing:
        model.gradient_checkpointing_enable(
            gradient_checkpointing_kwargs={"use_reentrant": False})
    kw = {k: v.cuda() for k, v in kwargs.items()}
    opt = torch.optim.AdamW(model.parameters(), foreach=True)

    def step():
        model(**kw).loss.backward()
        opt.step()
        opt.zero_grad(set_to_none=True)
    for _ in range(3):
        step()
    with FlopCounterMode(display=False) as fc:
        model(**kw).loss.backward()
    opt.zero_grad(set_to_none=True)
    ref = fc.get_total_flops()
    own = []
    for _ in range(steps):
        a, b = (torch.cuda.Event(enable_timing=True) for _ in range(2))
        a.record()
        step()
        b.record()
        torch.cuda.synchronize()
        own.append(a.elapsed_time(b) / 1e3)
    meter = nnscan.StepMeter(model, hardware, dtype="bf16", file=False,
                             warmup=2)
    for _ in range(steps + 2):
        with meter.step(**kw):
            step()
    s = meter.summary()
    f = meter.flops
    meter.close()
    t_own = statistics.median(own)
    return {"name": name, "ref": ref, "f": f, "s": s, "t_own": t_own}


def mfu_section(hardware):
    L, B, H, S, D = 8, 8, 16, 2048, 128
    print(f"\n## StepMeter on real bf16 training steps ({hardware} peak)\n")
    print(f"LLaMA-style decoder: {L} layers, hidden 2048, {H} heads of {D}, "
          f"MLP 5632, vocabulary 32000, batch {B} x {S} tokens, SDPA "
          "(causal), AdamW (foreach). FlopCounterMode (FCM) over one real "
          "step on the GPU: it counts every attention pair (dense) and, in "
          "the fused attention's backward, the scores it computes again "
          "(QK^T: 2.B.H.S^2.D per layer, by hand below), which model FLOPs "
          "leave out. Own: median of 12 steps timed by this script's CUDA "
          "events without the meter.\n")
    print("| case | model_flops (causal) | model_flops_dense | "
          "recompute_flops_dense | FCM | FCM - dense - recompute dense | "
          "attention backward's QK^T, by hand | step s: meter / own | "
          "MFU (meter) | HFU (meter) |")
    print("|" + "---|" * 10)
    for name, ckpt in (("no checkpointing", False),
                       ("checkpointing (non-reentrant)", True)):
        try:
            r = mfu_case(name, ckpt, hardware)
        except Exception:
            print(f"{name}: FAILED\n{traceback.format_exc()}")
            continue
        f, s = r["f"], r["s"]
        rest = r["ref"] - f["model_flops_dense"] - f["recompute_flops_dense"]
        print(f"| {name} | {f['model_flops']:,} | "
              f"{f['model_flops_dense']:,} | {f['recompute_flops_dense']:,} "
              f"| {r['ref']:,} | {rest:,} | {L * 2 * B * H * S * S * D:,} | "
              f"{s['step_s']:.4f} / {r['t_own']:.4f} | "
              f"{100 * s['mfu']:.1f}% | {100 * s['hfu']:.1f}% |")
        torch.cuda.empty_cache()


# ---- the Inspector's cost ----

def inspect_section():
    print("\n## The Inspector's cost on the GPU (ResNet-50, batch 64, 224^2, "
          "bf16, forward under no_grad, median of 10 passes, CUDA events "
          "around the whole forward)\n")
    with torch.device("cuda"):
        model, args, _, _ = resnet("resnet50", 64, 224, 1000)
    model = model.to(torch.bfloat16).eval()
    x = args[0].to("cuda", torch.bfloat16)
    for _ in range(3):
        timed_forward(model, (x,), {}, 1)
    plain = timed_forward(model, (x,), {})
    print("| setting | ms a forward | x alone |\n|---|---|---|")
    print(f"| no Inspector | {plain:.3f} | 1.00 |")
    for name, kw in (
            ("checks off, memory off", {"check_nonfinite": False,
                                        "memory": False}),
            ("NaN/Inf checks, memory off", {"memory": False}),
            ("defaults (NaN/Inf checks, allocator figures)", {})):
        try:
            insp = nnscan.Inspector(model, watch_backward=False, **kw)
            with insp:
                ms = timed_forward(model, (x,), {})
            print(f"| {name} | {ms:.3f} | {ms / plain:.2f} | "
                  f"{insp.errors or ''}")
        except Exception:
            print(f"{name}: FAILED\n{traceback.format_exc()}")
    del model
    torch.cuda.empty_cache()


# ---- the tape on CUDA models ----

def _report(model, args, kwargs, **kw):
    s = nnscan.summary(model, inputs=kwargs or args, file=False, **kw)
    return s.to_json(version=2)


def _difference(a, b):
    """'' when two JSON reports are the same, else where they first differ."""
    if a == b:
        return ""
    import json
    sys.path.insert(0, os.path.join(HERE, "..", "tools"))
    import switch_same
    return switch_same._json_difference(json.loads(a), json.loads(b))


TAPE = {
    "resnet50 fp32": lambda: resnet("resnet50", 2, 224, 1000),
    "resnet50 fp16": lambda: resnet("resnet50", 2, 224, 1000) + (
        torch.float16,),
    "gpt2-test fp32": lambda: gpt2(),
    "gpt2-test eager attn bf16": lambda: gpt2(attn="eager") + (
        torch.bfloat16,),
    "llama GQA bf16 (2x512)": lambda: llama(layers=2, hidden=512, heads=8,
                                            kv=2, inter=1408, batch=2,
                                            seq=256),
}


def tape_case(name, dev="cuda"):
    import json
    built = TAPE[name]()
    model, args, kwargs = built[:3]
    dtype = built[4] if len(built) > 4 else None
    kwargs = {k: v for k, v in kwargs.items() if k != "labels"}
    if dtype is not None:
        model = model.to(dtype)
        args = tuple(a.to(dtype) for a in args)
    model = model.eval()
    cpu = _report(model, args, kwargs)
    model = model.to(dev)
    gargs = tuple(a.to(dev) for a in args)
    gkw = {k: v.to(dev) for k, v in kwargs.items()}
    gpu = _report(model, gargs, gkw)
    t = []
    for _ in range(3):
        a = time.perf_counter()
        _report(model, gargs, gkw)
        t.append(time.perf_counter() - a)
    tr = json.loads(gpu)["totals"]["metrics"]
    return {"name": name, "same_cpu": _difference(cpu, gpu) or "yes",
            "macs": tr["macs"]["value"], "params": tr["params"]["value"],
            "ms": statistics.median(t) * 1e3}


def tape_section(dev="cuda"):
    print("\n## The tape on models living on the GPU (issue 45)\n")
    print("Each model's summary on the GPU against its CPU copy's, as "
          "JSON v2 byte for byte (a difference: where it starts; the "
          "attention kernels a device runs may differ). Wall ms: median "
          "of 3 summaries.\n")
    print("| model | MACs | params | GPU == CPU copy | ms |")
    print("|---|---|---|---|---|")
    for name in TAPE:
        try:
            r = tape_case(name, dev)
        except Exception:
            print(f"{name}: FAILED\n{traceback.format_exc()}")
            continue
        print(f"| {name} | {r['macs']:,} | {r['params']:,} | "
              f"{r['same_cpu']} | {r['ms']:.1f} |")
    if dev == "cuda":
        torch.cuda.empty_cache()


# ---- roofline ----

def llama8b_block(layers=2, seq=2048, batch=1):
    return llama(layers=layers, hidden=4096, heads=32, kv=8, inter=14336,
                 vocab=128256, batch=batch, seq=seq)


def timed_forward(model, args, kwargs, runs=10):
    times = []
    with torch.no_grad():
        for _ in range(runs):
            a, b = (torch.cuda.Event(enable_timing=True) for _ in range(2))
            a.record()
            model(*args, **kwargs)
            b.record()
            torch.cuda.synchronize()
            times.append(a.elapsed_time(b))
    return statistics.median(times)


def roofline_case(name, model, args, kwargs, hardware, passes=10, depth=3):
    model = model.cuda().eval()
    gargs = tuple(a.cuda() for a in args)
    gkw = {k: v.cuda() for k, v in kwargs.items()}
    args = tuple(a.cpu() for a in args)
    kwargs = {k: v.cpu() for k, v in kwargs.items()}
    for _ in range(3):
        timed_forward(model, gargs, gkw, 1)   # warm-up: cuDNN, cuBLAS
    plain = timed_forward(model, gargs, gkw)
    insp = nnscan.Inspector(model, static_inputs=kwargs or args,
                            hardware=hardware, compute_dtype="bf16",
                            check_nonfinite=False, memory=False,
                            watch_backward=False)
    with torch.no_grad(), insp:
        for _ in range(passes):
            model(*gargs, **gkw)
    torch.cuda.synchronize()
    j = insp.json()
    npass = max(len(j["passes"]), 1)
    mods = j["modules"]
    print(f"\n### {name}: {npass} passes; forward without the Inspector "
          f"{plain:.3f} ms (median of 10, CUDA events); errors: "
          f"{insp.errors}\n")
    print("| module | type | calls/pass | roofline ms | measured ms/pass | "
          "% of roof | |")
    print("|---|---|---|---|---|---|---|")
    beats = []
    for m in mods:
        roof = m.get("roofline_ms")
        if roof is None or not m["calls"]:
            continue
        meas = m["forward"]["inclusive_ms"] / npass
        frac = roof / meas if meas > 0 else float("inf")
        flag = "BEATS ROOF" if frac > 1.05 else ""
        if flag:
            beats.append(m["path"])
        if m["depth"] <= depth or flag:
            print(f"| {m['path'] or '(root)'} | {m['type']} | "
                  f"{m['calls'] // npass} | {roof:.4f} | {meas:.4f} | "
                  f"{100 * frac:.1f}% | {flag} |")
    print(f"\nmodules faster than their roof by more than 5 %: "
          f"{beats or 'none'} (of {sum(m.get('roofline_ms') is not None and m['calls'] > 0 for m in mods)} called)")
    del model
    torch.cuda.empty_cache()


def roofline_section(hardware):
    print(f"\n## Roofline ({hardware}, bf16) against CUDA-event time "
          f"under the Inspector\n")
    print(f"device: {torch.cuda.get_device_name()}, torch "
          f"{torch.__version__}")
    for name, build, depth in (
            ("resnet50, batch 64, 224^2, bf16",
             lambda: resnet("resnet50", 64, 224, 1000), 3),
            ("LLaMA-3-8B-shaped decoder, 2 layers, 1x2048 tokens, bf16",
             lambda: llama8b_block(), 9)):
        try:
            with torch.device("cuda"):   # a fast init on the GPU
                model, args, kwargs, _ = build()
            model = model.to(torch.bfloat16)
            args = tuple(a.to(torch.bfloat16) if a.is_floating_point()
                         else a for a in args)
            kwargs = {k: v for k, v in kwargs.items() if k != "labels"}
            roofline_case(name, model, args, kwargs, hardware, depth=depth)
        except Exception:
            print(f"{name}: FAILED\n{traceback.format_exc()}")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--only", choices=("train", "mfu", "inspect",
                                        "roofline", "tape"))
    ap.add_argument("--hardware", default="h100-sxm")
    ap.add_argument("--train-case", help=argparse.SUPPRESS)
    a = ap.parse_args()
    if a.train_case:
        import json
        print(json.dumps(train_case(a.train_case)))
        return
    if not torch.cuda.is_available():
        sys.exit("gpu_check.py needs a CUDA device")
    print(f"device: {torch.cuda.get_device_name()}; torch {torch.__version__}"
          f"; nnscan library {os.environ.get('NNSCAN_LIBRARY')}")
    if a.only in (None, "train"):
        train_section()
    if a.only in (None, "mfu"):
        mfu_section(a.hardware)
    if a.only in (None, "inspect"):
        inspect_section()
    if a.only in (None, "roofline"):
        roofline_section(a.hardware)
    if a.only in (None, "tape"):
        tape_section()


if __name__ == "__main__":
    main()
