#!/usr/bin/python3
"""How fast nnscan.summary records a live model (issues 16, 18, 46),
medians of N runs in one process, next to the tools a user would pick.

    NNSCAN_LIBRARY=build/libnnscan.so /usr/bin/python3 bench/recording_speed.py
    ... --only torchvision --models resnet50,densenet121 --runs 5
    ... --only hf --families gpt2,t5 --floor        (PyTorch 2.x, transformers)
    ... --only llama3_8b,gpt2 --json out.json         (PyTorch 2.x, transformers)

The peers (torchinfo, torchscan 0.2, thop) are checkouts on PYTHONPATH:
bench/get_peers.sh DEST fetches them at pinned commits (bench/README.md).

Cases:

  torchvision   every torchvision classification model (CPU, random
                weights, batch 1, 3x224x224; 3x299x299 for inception_v3),
                and
  hf            every family of python/tests_hf/hf_zoo.py (its tiny
                configs and inputs), built on the CPU with random weights:
                nnscan.summary against FlopCounterMode over a meta copy,
                torchinfo, torchscan, thop and one eager forward, each
                called as a user calls it (peer_timing.py says how), as
                the ratio peer / summary, and issue 46's goals met or
                missed per model (>= 2x FlopCounterMode, >= 1.5x
                torchinfo, >= 2x torchscan and thop, summary <= max(eager
                forward, 10 ms); on --basis wall, the default, or cpu). A
                tool that does not import is left out, one that raises on a
                model is "failed: reason" in its row. A markdown table
                closes each case. --floor adds what any dispatch-level
                recording pays whatever its own work (meta_floor: the meta
                copy, PyTorch's handing of every op to Python; the meta
                forward, plain and under a no-op mode, for reference) and
                marks the goals below it.
  llama3_8b     nnscan.summary of LLaMA-3-8B (hidden 4096, intermediate
                14336, 32 layers, 32 heads, 8 key/value heads, vocab
                128256) built on the meta device, 2,048 tokens: with
                transformers' LlamaForCausalLM (when transformers imports)
                and with the hand-written python/tests/tiny_llama.py at the
                same sizes (no GQA there: 32 key/value heads). CPU time;
                goal (issue 46) <= 150 ms, transformers' model. The plain meta forward is timed too: the
                floor a dispatch-level recording cannot go under. And the
                summary without mask values (no macs_unmasked: see
                without_mask_values; the two take turns run after run): goal
                summary / that <= 1.2.
  gpt2          GPT-2 small (transformers), 512 tokens, CPU time. As a user
                has it (a CPU model, random weights): nnscan.summary, which
                records a meta copy itself, against torch.utils.flop_counter's
                FlopCounterMode over a meta copy made first
                (copy.deepcopy(model).to("meta")); goal: >= 2x. And both on
                a model built on the meta device (the same meta forward for
                both: FlopCounterMode is a dispatch mode like the recorder,
                so this ratio stays near 1).
  seq100k       nn.Sequential of 100,000 ReLU modules, input (1, 8):
                nnscan.summary CPU time (one run: --seq-runs) and the peak
                RSS of a process doing only that (VmHWM, interpreter and
                torch included; the figure before the summary is printed
                too). --seq-sizes gives other sizes, to see that the time
                grows linearly.

Times are medians of --runs runs after one warm-up, as wall (perf_counter)
and CPU (process_time: this process, all threads) time. torch uses
--threads threads (default 2). On a busy machine run with
OMP_WAIT_POLICY=passive: by default the OpenMP workers spin after every
parallel region (a CPU-time charge on anything that follows one, such as
the torch.zeros input summary makes), and spinning workers that share the
cores with other processes made eager forwards 10-80x slower here (resnet50
3.8-9.4 s instead of 0.11 s), which would flatter the recorder.

A real BLAS: Debian's default libblas3 is the reference BLAS, which makes
every eager CPU forward 5-50x slower and so flatters a recording tool. Run
this with OpenBLAS as the system BLAS (`apt-get install
libopenblas0-pthread`; check with `update-alternatives --display
libblas.so.3-x86_64-linux-gnu` that the link points to the openblas-pthread
library). The script prints the BLAS the process actually loaded (from
/proc/self/maps) and says so when it is the reference one.
"""
import argparse
import contextlib
import copy
import json
import os
import statistics
import subprocess
import sys
import time
import warnings

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
# PYTHONPATH wins over the tree's own package, as in recording_profile.py:
# another checkout's python/ can be timed (before, this put the tree's
# first, and a PYTHONPATH naming another package was silently ignored)
sys.path.append(os.path.join(ROOT, "python"))
sys.path.insert(0, os.path.join(ROOT, "python", "tests"))


import peer_timing  # noqa: E402
from peer_timing import settled, timed  # noqa: E402,F401 (other scripts import it here)


def timed_turns(fns, runs, warmup=1):
    """timed() of each of fns (name -> callable), the calls taking turns
    run after run, so that the process's drift (its heap, the collector's
    generations, the machine's load) hits each alike; each call settled()
    (the collection it leaves due is its own, not the next call's)."""
    for _ in range(warmup):
        for fn in fns.values():
            settled(fn)
    ws = {k: [] for k in fns}
    cs = {k: [] for k in fns}
    for _ in range(runs):
        for k, fn in fns.items():
            w, c = time.perf_counter(), time.process_time()
            settled(fn)
            ws[k].append(time.perf_counter() - w)
            cs[k].append(time.process_time() - c)
    return {k: {"wall_s": statistics.median(ws[k]), "wall_min_s": min(ws[k]),
                "wall_max_s": max(ws[k]), "cpu_s": statistics.median(cs[k]),
                "runs": runs} for k in fns}


def blas_in_use():
    """The BLAS library this process has mapped (after torch ran a matmul)."""
    libs = set()
    with open("/proc/self/maps") as f:
        for line in f:
            path = line.split()[-1]
            if "blas" in os.path.basename(path) or "mkl" in path:
                libs.add(os.path.realpath(path))
    return sorted(libs)


# ---- torchvision ----

def classification_models():
    """Every classification builder torchvision has, by name."""
    from torchvision import models
    try:
        return sorted(models.list_models(module=models))
    except AttributeError:  # torchvision < 0.15: no registry
        skip = {"get_weight", "get_model", "get_model_builder",
                "get_model_weights", "list_models"}
        return sorted(n for n in dir(models)
                      if not n.startswith("_") and n[0].islower()
                      and callable(getattr(models, n)) and n not in skip)


def meta_floor(m, args, kwargs, runs):
    """What a dispatch-level recording of `m` pays before doing any work of
    its own, next to which nnscan.summary's time is judged:
      meta_forward       the plain meta forward (no_grad; the model moved
                         to meta beforehand): PyTorch's meta kernels, many
                         of them Python on 2.x (nnscan's own shape
                         kernels skip most: no floor there any more)
      meta_forward_mode  the same under a dispatch mode that only calls
                         each op (under no_grad, as a summary runs); the
                         two take turns, and the difference is PyTorch's
                         own cost of handing each of the `ops` aten calls
                         to Python (`dispatch`)
      cpu_forward[_mode] the same pair on the CPU model, only where the
                         meta forward fails (a float32 _grouped_mm); the
                         kernels' own noise makes it the rougher figure
      meta_copy          nnscan's copy of the CPU model onto meta
                         (recorder.meta_copy, shadows of integer buffers
                         included), made once per summary
    floor_s = meta_copy + dispatch: what any recording of this kind pays
    whatever its own per-op work, where it runs the forward (model_row
    adds no_forward: whether most timed summaries, so the median, ran no
    forward of the model: replayed its own call whole, module_replay.
    py's, or built from what two recordings of it made, summary_memo.
    py's; the floor bounds no such summary, and no goal is said to be
    below it: peer_timing.judge)."""
    import torch
    from torch.utils._python_dispatch import TorchDispatchMode
    from nnscan import recorder, shadow

    class CallOnly(TorchDispatchMode):
        calls = 0

        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            CallOnly.calls += 1
            return func(*args, **(kwargs or {}))

    def run(model, a, kw, mode):
        with torch.no_grad(), (CallOnly() if mode
                               else contextlib.nullcontext()):
            model(*a, **kw)

    def pair(model, a, kw, name):
        CallOnly.calls = 0
        run(model, a, kw, True)
        got = timed_turns({name: lambda: run(model, a, kw, False),
                           name + "_mode": lambda: run(model, a, kw, True)},
                          runs)
        got["ops"] = CallOnly.calls
        got["dispatch_s"] = {b: max(0.0, got[name + "_mode"][b + "_s"]
                                    - got[name][b + "_s"])
                             for b in ("wall", "cpu")}
        return got

    row = {}
    try:
        meta = copy.deepcopy(m).to("meta")
        row.update(pair(meta, [a.to("meta") for a in args],
                        {k: v.to("meta") for k, v in kwargs.items()},
                        "meta_forward"))
    except Exception as e:  # noqa: BLE001 - a forward meta cannot run
        row["meta_forward_mode"] = {"error": peer_timing.short(e)}
        row.update(pair(m, args, kwargs, "cpu_forward"))
    try:
        row["meta_copy"] = timed(lambda: recorder.meta_copy(
            m, shadow.Shadows()), runs)
        row["floor_s"] = {b: row["meta_copy"][b + "_s"]
                          + row["dispatch_s"][b] for b in ("wall", "cpu")}
    except Exception as e:  # noqa: BLE001
        row["meta_copy"] = {"error": peer_timing.short(e)}
    return row


@contextlib.contextmanager
def recording_each():
    """While inside, every summary records: none is built from what
    earlier recordings made (summary_memo.py)."""
    from nnscan import summary_memo
    enabled = summary_memo.enabled
    summary_memo.enabled = lambda: False
    try:
        yield
    finally:
        summary_memo.enabled = enabled


@contextlib.contextmanager
def no_forward():
    """A list, while inside: one item per summary that ran no forward of
    the model: it replayed the model's own call whole (module_replay.py)
    or was built from what two recordings of the model as it was made
    (summary_memo.py)."""
    from nnscan import module_replay, summary_memo
    real, rebuilt = module_replay.Layers._replay, summary_memo.rebuilt
    got = []

    def replay(self, path, *a):
        out = real(self, path, *a)
        if path == "" and out is not None:
            got.append("replayed whole")
        return out

    def built(model, entry):
        out = rebuilt(model, entry)
        if out is not None:
            got.append("built")
        return out
    module_replay.Layers._replay = replay
    summary_memo.rebuilt = built
    try:
        yield got
    finally:
        module_replay.Layers._replay = real
        summary_memo.rebuilt = rebuilt


def ms(t, basis):
    return "failed" if "error" in t else f"{t[basis + '_s'] * 1e3:.1f} ms"


def model_row(name, m, args, kwargs, shape, runs, have, basis, floor):
    """Every tool timed on one model, judged, printed as one line."""
    with no_forward() as none:
        row = peer_timing.time_model(m, args, kwargs, shape, runs, have)
    if floor:
        row.update(meta_floor(m, args, kwargs, runs))
        # most timed summaries ran no forward: the median did
        row["no_forward"] = len(none) > runs // 2
    peer_timing.judge(row, basis)
    parts = []
    for tool in peer_timing.ORDER:
        if tool in row:
            t = row[tool]
            parts.append(f"{tool} " + (f"failed ({t['error'][:50]})"
                                       if "error" in t else ms(t, basis)))
    if "floor_s" in row:
        parts.append(("no forward; " if peer_timing.no_forward(row)
                      else "") +
                     f"floor {row['floor_s'][basis] * 1e3:.1f} ms ("
                     f"meta copy {ms(row['meta_copy'], basis)} + "
                     f"{row['ops']} ops handed to Python "
                     f"{row['dispatch_s'][basis] * 1e3:.1f} ms; meta "
                     f"forward under the mode "
                     f"{ms(row['meta_forward_mode'], basis)})")
    print(f"{name:22s} " + "  ".join(parts)
          + f"  missed: {peer_timing.missed(row)}", flush=True)
    return row


def torchvision_case(runs, only_models=None, floor=False, basis="wall",
                     have=None):
    """Every torchvision classifier (random weights, batch 1, 3x224x224;
    3x299x299 for inception_v3) against every peer (peer_timing)."""
    import torch
    import torchvision
    out = {}
    for name in only_models or classification_models():
        torch.manual_seed(0)
        kw = {"init_weights": False} \
            if name in ("inception_v3", "googlenet") else {}
        m = getattr(torchvision.models, name)(**kw).eval()
        side = 299 if name == "inception_v3" else 224
        x = torch.randn(1, 3, side, side)
        out[name] = model_row(name, m, (x,), {}, (3, side, side), runs,
                              have, basis, floor)
        del m
    peer_timing.print_case("torchvision", out, basis, floor)
    return out


def hf_case(runs, only=None, floor=False, basis="wall", have=None):
    """Every family of python/tests_hf/hf_zoo.py (tiny configs: 2 layers,
    hidden 64; their inputs: 16 token ids, a 32x32 image, ...), built on
    the CPU with random weights as a user has it, against every peer."""
    import torch
    sys.path.insert(0, os.path.join(ROOT, "python", "tests_hf"))
    try:
        import hf_zoo
    except ImportError as e:
        print(f"hf: skipped ({e})")
        return {"skipped": str(e)}
    out = {}
    for name in only or sorted(hf_zoo.FAMILIES):
        torch.manual_seed(0)
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                m, inputs = hf_zoo.build(name, device="cpu")
        except Exception as e:  # noqa: BLE001 - this transformers lacks it
            out[name] = {"skipped": peer_timing.short(e)}
            print(f"{name:22s} skipped ({out[name]['skipped']})")
            continue
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # transformers' own notices
            out[name] = model_row(name, m, (), inputs, None, runs, have,
                                  basis, floor)
    rows = {k: v for k, v in out.items() if "skipped" not in v}
    peer_timing.print_case("hf (python/tests_hf/hf_zoo.py)", rows, basis,
                           floor)
    return out

# ---- LLaMA-3-8B and GPT-2 on meta ----

LLAMA3_8B = dict(hidden=4096, inter=14336, layers=32, heads=32, kv_heads=8,
                 vocab=128256)
LLAMA_GOAL_S = 0.150  # issue 46: transformers' model, CPU time


def llama3_8b_meta():
    """transformers' LLaMA-3-8B on the meta device, in eval mode (raises
    ImportError without transformers); bench/recording_profile.py builds
    the same model here."""
    import torch
    from transformers import LlamaConfig, LlamaForCausalLM
    c = LLAMA3_8B
    cfg = LlamaConfig(hidden_size=c["hidden"], intermediate_size=c["inter"],
                      num_hidden_layers=c["layers"],
                      num_attention_heads=c["heads"],
                      num_key_value_heads=c["kv_heads"],
                      vocab_size=c["vocab"], max_position_embeddings=8192,
                      rope_theta=500000.0)
    with torch.device("meta"):
        return LlamaForCausalLM(cfg).eval()


# More decoders on meta at their released configs' sizes, for
# recording_profile.py and same_summary.py: name -> (transformers' config
# and model classes, the config's fields). Mistral-7B (every layer a
# sliding window's), Gemma-2-9B (sliding and full attention alternating),
# two mixtures of experts (Mixtral-8x7B: 8 experts, top 2; Qwen3-30B-A3B:
# 128, top 8), MPT-7B (ALiBi), GPT-J-6B (rotary table gathered by
# position) and Falcon-7B (multi-query, parallel attention and MLP).
DECODERS = {
    "mistral_7b": ("MistralConfig", "MistralForCausalLM", dict(
        hidden_size=4096, intermediate_size=14336, num_hidden_layers=32,
        num_attention_heads=32, num_key_value_heads=8, vocab_size=32000,
        sliding_window=4096)),
    "gemma2_9b": ("Gemma2Config", "Gemma2ForCausalLM", dict(
        hidden_size=3584, intermediate_size=14336, num_hidden_layers=42,
        num_attention_heads=16, num_key_value_heads=8, head_dim=256,
        vocab_size=256000)),
    "mixtral_8x7b": ("MixtralConfig", "MixtralForCausalLM", dict(
        hidden_size=4096, intermediate_size=14336, num_hidden_layers=32,
        num_attention_heads=32, num_key_value_heads=8, vocab_size=32000,
        num_local_experts=8, num_experts_per_tok=2)),
    "qwen3_30b_a3b": ("Qwen3MoeConfig", "Qwen3MoeForCausalLM", dict(
        hidden_size=2048, intermediate_size=6144, moe_intermediate_size=768,
        num_hidden_layers=48, num_attention_heads=32, num_key_value_heads=4,
        head_dim=128, vocab_size=151936, num_experts=128,
        num_experts_per_tok=8)),
    "mpt_7b": ("MptConfig", "MptForCausalLM", dict(
        d_model=4096, n_heads=32, n_layers=32, expansion_ratio=4,
        max_seq_len=2048, vocab_size=50432)),
    "gptj_6b": ("GPTJConfig", "GPTJForCausalLM", dict(
        n_embd=4096, n_head=16, n_layer=28, rotary_dim=64, vocab_size=50400,
        n_positions=2048)),
    "falcon_7b": ("FalconConfig", "FalconForCausalLM", dict(
        hidden_size=4544, num_attention_heads=71, num_hidden_layers=32,
        multi_query=True, parallel_attn=True, new_decoder_architecture=False,
        alibi=False, bias=False, vocab_size=65024)),
}


def decoder_meta(name):
    """DECODERS[name] built by transformers on the meta device, in eval
    mode (ImportError without transformers)."""
    import torch
    import transformers
    config, model, fields = DECODERS[name]
    cfg = getattr(transformers, config)(**fields)
    with torch.device("meta"):
        return getattr(transformers, model)(cfg).eval()


@contextlib.contextmanager
def without_mask_values():
    """The summary as it was before masked attention (issue 20.1): no
    mask values handed to the library, no torch.tensor interception (the
    library's pattern search still runs; it finds no mask contents, so
    macs_unmasked = macs)."""
    from nnscan import masks, recorder
    hand_over, ctors = masks.hand_over, recorder.TensorConstructors
    masks.hand_over = lambda handle, rec: None
    recorder.TensorConstructors = contextlib.nullcontext
    try:
        yield
    finally:
        masks.hand_over, recorder.TensorConstructors = hand_over, ctors


def llama3_case(runs, tokens=2048):
    import torch
    import nnscan
    import tiny_llama
    out = {}
    ids = torch.zeros(1, tokens, dtype=torch.long)
    c = LLAMA3_8B
    models = {}
    try:
        models["transformers"] = llama3_8b_meta()
    except ImportError as e:
        print(f"llama3_8b: transformers not available ({e}); hand-written "
              "model only")
    models["tiny_llama"] = tiny_llama.LlamaForCausalLM(
        layers=c["layers"], hidden=c["hidden"], inter=c["inter"],
        heads=c["heads"], vocab=c["vocab"], device="meta").eval()
    if tokens > 2048:  # tiny_llama's rotary cache holds 2,048 positions
        del models["tiny_llama"]
    for name, m in models.items():
        meta_ids = ids.to("meta")

        def forward():
            with torch.no_grad():
                m(meta_ids)
        def summary():
            return nnscan.summary(m, inputs={"input_ids": ids}, file=False)
        def summary_without_masks():
            with without_mask_values():
                return summary()
        # each timed summary records (the goal is the recording's): a
        # summary built from a kept recording (summary_memo.py) is
        # timed apart, as `summary_built`
        with recording_each():
            pair = timed_turns(
                {"summary": summary,
                 "summary_without_masks": summary_without_masks}, runs)
        dense = pair["summary_without_masks"]
        row = dict(pair, meta_forward=timed(forward, runs),
                   summary_built=timed(summary, runs, warmup=2))
        t = summary().totals
        row["macs"], row["macs_unmasked"] = t["macs"], t["macs_unmasked"]
        row["masked_over_dense"] = (row["summary"]["cpu_s"]
                                    / dense["cpu_s"])
        out[name] = row
        print(f"llama3_8b {name:13s} summary cpu "
              f"{row['summary']['cpu_s'] * 1e3:7.1f} ms (wall "
              f"{row['summary']['wall_s'] * 1e3:7.1f})   without mask "
              f"values cpu {dense['cpu_s'] * 1e3:7.1f} ms (x"
              f"{row['masked_over_dense']:.2f})   meta forward cpu "
              f"{row['meta_forward']['cpu_s'] * 1e3:7.1f} ms   built "
              f"from a kept recording cpu "
              f"{row['summary_built']['cpu_s'] * 1e3:7.1f} ms   macs "
              f"{t['macs']:.4g} unmasked {t['macs_unmasked']:.4g}",
              flush=True)
    if "transformers" in out and tokens == 2048:
        cpu = out["transformers"]["summary"]["cpu_s"]
        out["goal_cpu_s"] = LLAMA_GOAL_S
        out["goal_met"] = cpu <= LLAMA_GOAL_S
        print(f"llama3_8b goal: summary cpu {cpu * 1e3:.1f} ms <= "
              f"{LLAMA_GOAL_S * 1e3:.0f} ms: "
              f"{'met' if out['goal_met'] else 'MISSED'}", flush=True)
    return out


def gpt2_case(runs, tokens=512):
    import torch
    import nnscan
    try:
        from transformers import GPT2Config, GPT2LMHeadModel
        from torch.utils.flop_counter import FlopCounterMode
    except ImportError as e:
        print(f"gpt2: skipped ({e})")
        return {"skipped": str(e)}
    torch.manual_seed(0)
    cpu = GPT2LMHeadModel(GPT2Config()).eval()
    with torch.device("meta"):
        meta = GPT2LMHeadModel(GPT2Config()).eval()
    ids = torch.zeros(1, tokens, dtype=torch.long)
    meta_ids = ids.to("meta")

    def flop_counter(m):
        with FlopCounterMode(display=False) as fc:
            m(meta_ids)
        return fc.get_total_flops()

    def flop_counter_on_meta_copy():
        return flop_counter(copy.deepcopy(cpu).to("meta"))
    row = {
        # a CPU model, as a user has it: nnscan records a meta copy itself;
        # FlopCounterMode needs one made first (deepcopy, then .to("meta"))
        "summary_cpu_model": timed(lambda: nnscan.summary(
            cpu, inputs={"input_ids": ids}, file=False), runs),
        "flop_counter_meta_copy": timed(flop_counter_on_meta_copy, runs),
        # a model built on meta: the same forward for both
        "summary_meta_model": timed(lambda: nnscan.summary(
            meta, inputs={"input_ids": ids}, file=False), runs),
        "flop_counter_meta_model": timed(lambda: flop_counter(meta), runs)}
    row["ratio_cpu_model"] = row["flop_counter_meta_copy"]["cpu_s"] / \
        row["summary_cpu_model"]["cpu_s"]
    row["ratio_meta_model"] = row["flop_counter_meta_model"]["cpu_s"] / \
        row["summary_meta_model"]["cpu_s"]
    print(f"gpt2 {tokens} tokens, CPU model: summary cpu "
          f"{row['summary_cpu_model']['cpu_s'] * 1e3:7.1f} ms   "
          f"FlopCounterMode on a meta copy cpu "
          f"{row['flop_counter_meta_copy']['cpu_s'] * 1e3:7.1f} ms   ratio "
          f"{row['ratio_cpu_model']:4.2f}x", flush=True)
    print(f"gpt2 {tokens} tokens, meta model: summary cpu "
          f"{row['summary_meta_model']['cpu_s'] * 1e3:7.1f} ms   "
          f"FlopCounterMode cpu "
          f"{row['flop_counter_meta_model']['cpu_s'] * 1e3:7.1f} ms   ratio "
          f"{row['ratio_meta_model']:4.2f}x", flush=True)
    return row


# ---- a very wide module tree ----

SEQ = """
import sys, time, torch
sys.path[:0] = {paths!r}
import nnscan
def hwm():
    for line in open("/proc/self/status"):
        if line.startswith("VmHWM:"):
            return int(line.split()[1])
m = torch.nn.Sequential(*[torch.nn.ReLU() for _ in range({n})])
before = hwm()
times = []
for _ in range({runs}):
    c = time.process_time()
    s = nnscan.summary(m, (8,), file=False)
    times.append(time.process_time() - c)
assert len(s.layers) == {n} + 1
print(before, hwm(), *times)
"""


def seq_case(sizes, runs):
    out = {}
    paths = [os.path.join(ROOT, "python")]
    for n in sizes:
        code = SEQ.format(paths=paths, n=n, runs=runs)
        res = subprocess.run([sys.executable, "-c", code], check=True,
                             capture_output=True, text=True, env=os.environ)
        before, peak, *times = res.stdout.split()
        row = {"cpu_s": statistics.median(float(t) for t in times),
               "runs": runs, "rss_before_mib": int(before) / 1024,
               "peak_rss_mib": int(peak) / 1024}
        out[n] = row
        print(f"Sequential of {n:6d} ReLU: summary cpu {row['cpu_s']:7.2f} s"
              f" ({row['cpu_s'] / n * 1e6:5.1f} us/module)  peak RSS "
              f"{row['peak_rss_mib']:6.0f} MiB (before summary "
              f"{row['rss_before_mib']:.0f})", flush=True)
    return out


def retable(path, basis):
    with open(path) as f:
        results = json.load(f)
    print(f"{path}: torch {results['torch']}, {results['threads']} threads, "
          f"peers {results.get('peers')}")
    for case in ("torchvision", "hf"):
        rows = {k: peer_timing.judge(v, basis)
                for k, v in results.get(case, {}).items()
                if isinstance(v, dict) and "summary" in v}
        if rows:
            peer_timing.print_case(case, rows, basis,
                                   any("floor_s" in r for r in rows.values()))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--only",
                    default="torchvision,hf,llama3_8b,gpt2,seq100k")
    ap.add_argument("--models", help="torchvision models (comma-separated)")
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--seq-sizes", default="100000")
    ap.add_argument("--seq-runs", type=int, default=1)
    ap.add_argument("--json", help="also write every figure to this file")
    ap.add_argument("--families",
                    help="hf: hf_zoo families (comma-separated)")
    ap.add_argument("--basis", choices=("wall", "cpu"), default="wall",
                    help="torchvision, hf: the time the goals are judged "
                         "on (both are in --json)")
    ap.add_argument("--floor", action="store_true",
                    help="torchvision, hf: also time the meta forward "
                         "alone (plain, and under a no-op dispatch mode) "
                         "and the meta copy: the floor under a recording")
    ap.add_argument("--from-json", metavar="FILE",
                    help="print the torchvision and hf tables of an earlier "
                         "--json again, judged on --basis; runs nothing")
    args = ap.parse_args()
    if args.from_json:
        return retable(args.from_json, args.basis)
    import torch
    torch.set_num_threads(args.threads)
    torch.ones(64, 64) @ torch.ones(64, 64)
    blas = blas_in_use()
    print(f"torch {torch.__version__}, {args.threads} threads, BLAS: "
          f"{', '.join(blas) or 'none mapped'}")
    if any("/blas/" in b for b in blas):
        print("WARNING: the reference BLAS is in use: eager forwards are "
              "far slower than with OpenBLAS (see this script's doc)")
    have = peer_timing.versions()
    print("peers: " + ", ".join(f"{k} {v or 'not importable'}"
                                for k, v in have.items() if k != "torch"))
    results = {"torch": torch.__version__, "blas": blas,
               "threads": args.threads, "peers": have, "basis": args.basis,
               "runs": args.runs, "goals": dict(
                   peer_timing.GOALS, eager_min_s=peer_timing.EAGER_MIN_S,
                   llama3_8b_cpu_s=LLAMA_GOAL_S)}
    for case in args.only.split(","):
        if case == "torchvision":
            results[case] = torchvision_case(
                args.runs, args.models.split(",") if args.models else None,
                floor=args.floor, basis=args.basis, have=have)
        elif case == "hf":
            results[case] = hf_case(
                args.runs,
                args.families.split(",") if args.families else None,
                floor=args.floor, basis=args.basis, have=have)
        elif case == "llama3_8b":
            results[case] = llama3_case(args.runs)
        elif case == "gpt2":
            results[case] = gpt2_case(args.runs)
        elif case == "seq100k":
            results[case] = seq_case(
                [int(n) for n in args.seq_sizes.split(",")], args.seq_runs)
        else:
            raise SystemExit(f"unknown case {case!r}")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(results, f, indent=2)


if __name__ == "__main__":
    main()
