#!/usr/bin/python3
"""Where nnscan.summary's time goes, per aten op and stage (issue 46 item 1).

    NNSCAN_LIBRARY=build/gcc/libnnscan.so /usr/bin/python3 \\
        bench/recording_profile.py [--models resnet50,gpt2] [--runs 5] [--ops]
    /work/sidrun . 'PYTHONPATH=python python3 bench/recording_profile.py'

Models: torchvision resnet50, densenet121, vit_b_16, mobilenet_v3_small
(CPU, random weights, batch 1, 3x224x224), GPT-2 small at 512 tokens from
a config (CPU model) and LLaMA-3-8B shaped on the meta device at 2,048
tokens (the last two need transformers), built as bench/recording_speed.py
builds them; the decoders of recording_speed.DECODERS (mistral_7b,
gemma2_9b, mixtral_8x7b, qwen3_30b_a3b, mpt_7b, gptj_6b, falcon_7b) on meta
at 2,048 tokens, the encoder-decoders t5_large and bart_large on meta (512
encoder and 64 decoder tokens) and whisper_small (30 s of audio, 64
decoder tokens); any other torchvision classifier by its name, and any
python/tests_hf/hf_zoo.py family as hf:FAMILY (its tiny config and inputs,
a CPU model).

Every figure is a median of --runs runs (after one warm-up) of
time.process_time, the variants of one model taking turns run after run.
Stages are measured by subtraction, not by a profiler: the recording is
run with parts of it switched off (monkeypatched here, for the run only),
and a stage is the difference between two such runs:

  ops          aten calls the recorder's dispatch mode sees (its `record`
               calls), and the calls a no-op dispatch mode sees in the
               plain meta forward
  meta fwd     the meta forward of a meta copy, no mode (PyTorch's own
               dispatch and meta kernels)
  py mode      the same under a dispatch mode that only calls each op,
               minus `meta fwd`: PyTorch's cost of handing ops to Python
  meta copy    recorder.meta_copy of the model (once per summary)
  bare         record_model with fast_meta, shadows, module hooks and
               recorder.record all off, minus `meta copy` and `meta fwd +
               py mode`: the recorder's own dispatch loop and
               per-recording setup
  fast_meta    + fast_meta.FAST_META (replaces PyTorch's meta kernel for
               the ops it knows: negative when it saves time)
  shadow       + shadow.Shadows.follow (values of integer tensors)
  hooks        + the module pre/post hooks (ModuleStack)
  record       + recorder.record: each call's aten record on the tape
               (tape.py), aliases, constants and Builder naming
  pack         graph.pack (the graph as bytes)
  C build      nns_builder_add_packed + nns_builder_finish (ctypes + C)
  infer        Handle.infer + torch_api.check_shapes
  analyze      Handle.analyze (the C analysis)
  report       the text report (TorchSummary + to_text)
  summary      nnscan.summary(file=False), whole, for reference

Each stage is also printed per recorded op (us/op). `record` is split by
a separate cProfile run (tottime shares by file: recorder.py's Builder and
record, tape.py, graph.py, masks.py, aten_call.py; a profiler distorts
absolute times, so only the shares are printed, applied to the measured
`record`). The library's lowering of the tape's aten records is in `C
build`. --ops prints the
aten ops a model records most and their counts, to compare versions, and
each op's kernel time per forward. --summary-only times nnscan.summary
alone, and counts the minor page faults and system time of a warm one
(getrusage over --runs more); with PYTHONPATH=<other checkout>/python it
times that checkout's package (the script's own comes after PYTHONPATH on
sys.path), with NNSCAN_LIBRARY another library.
--save-packed DIR writes each model's packed graph for
bench/packed_build.c (the library's build alone, in C).
--collector counts the cyclic collector's runs and time per summary,
plain and with backward=True (collector()'s doc).
--floor prints, per model, the recording built up part by part from
the floor (floor()'s doc). --sections splits one nnscan.summary by the
functions it calls (sections()'s doc): what is per summary (the meta
copy, the build, the checks) against what is per op. --first times a
fresh process's first summary of a model (first_summary()'s doc).
--against <other checkout>/python times this checkout's nnscan.summary
and the other's in one process, taking turns run after run (medians and
the median of the per-run ratios; the two reports must be equal).

Until session 107 the recorder could lower calls in Python (its rules,
python/nnscan/ops_map.py, and NNSCAN_TAPE_NUMBERED=0); --tape-per-op and
--c-build compared them with the tape, --first and --save-packed ran
both. The rules went in session 107, and those comparisons with them
(their results: recording_profile.md).
"""
import argparse
import collections
import contextlib
import cProfile
import gc
import os
import pstats
import statistics
import sys
import time
import warnings

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.append(os.path.join(ROOT, "python"))  # PYTHONPATH wins: a base

MODELS = ("resnet50", "densenet121", "vit_b_16", "mobilenet_v3_small",
          "gpt2", "llama3_8b")

# --hf-layers: the hf: families built this many layers deep (0: hf_zoo's)
HF_LAYERS = 0


def build(name):
    """(model, args, kwargs) as bench/recording_speed.py builds them; None
    when the model's package does not import."""
    import torch
    torch.manual_seed(0)
    if name == "gpt2":
        try:
            from transformers import GPT2Config, GPT2LMHeadModel
        except ImportError:
            return None
        return (GPT2LMHeadModel(GPT2Config()).eval(),
                (torch.zeros(1, 512, dtype=torch.long),), {})
    if name.startswith("hf:"):  # a python/tests_hf/hf_zoo.py family
        sys.path.insert(0, os.path.join(os.path.dirname(
            os.path.abspath(__file__)), "..", "python", "tests_hf"))
        try:
            import hf_zoo
        except ImportError:
            return None
        if HF_LAYERS:
            from same_summary import LAYER_FIELDS
            for k in LAYER_FIELDS:
                if k in hf_zoo.TINY:
                    hf_zoo.TINY[k] = HF_LAYERS
        m, inputs = hf_zoo.build(name[3:], device="cpu")
        return m, (), inputs
    if name == "llama3_8b":
        from recording_speed import llama3_8b_meta
        try:
            m = llama3_8b_meta()
        except ImportError:
            return None
        return m, (torch.zeros(1, 2048, dtype=torch.long),), {}
    if name == "t5_large":  # an encoder-decoder: 512 + 64 tokens
        import transformers
        cfg = transformers.T5Config(d_model=1024, d_ff=4096, num_layers=24,
                                    num_heads=16, d_kv=64)
        with torch.device("meta"):
            m = transformers.T5ForConditionalGeneration(cfg).eval()
        return m, (), {"input_ids": torch.zeros(1, 512, dtype=torch.long),
                       "decoder_input_ids": torch.zeros(1, 64,
                                                        dtype=torch.long)}
    if name in ("bart_large", "whisper_small"):  # their configs' defaults
        import transformers
        if name == "bart_large":
            cfg, cls = transformers.BartConfig(), \
                transformers.BartForConditionalGeneration
            inputs = {"input_ids": torch.zeros(1, 512, dtype=torch.long)}
        else:
            cfg, cls = transformers.WhisperConfig(
                d_model=768, encoder_layers=12, decoder_layers=12,
                encoder_attention_heads=12, decoder_attention_heads=12,
                encoder_ffn_dim=3072, decoder_ffn_dim=3072), \
                transformers.WhisperForConditionalGeneration
            inputs = {"input_features": torch.zeros(1, 80, 3000)}
        with torch.device("meta"):
            m = cls(cfg).eval()
        inputs["decoder_input_ids"] = torch.zeros(1, 64, dtype=torch.long)
        return m, (), inputs
    from recording_speed import DECODERS
    if name in DECODERS:
        from recording_speed import decoder_meta
        try:
            m = decoder_meta(name)
        except ImportError:
            return None
        return m, (torch.zeros(1, 2048, dtype=torch.long),), {}
    from torchvision import models
    return (getattr(models, name)().eval(), (torch.zeros(1, 3, 224, 224),),
            {})


@contextlib.contextmanager
def patched(obj, attr, value):
    old = getattr(obj, attr)
    setattr(obj, attr, value)
    try:
        yield
    finally:
        setattr(obj, attr, old)


def build_or_say(name):
    """build(name), saying so where the model cannot be built."""
    built = build(name)
    if built is None:
        print(f"{name}: skipped (transformers does not import)")
    return built


@contextlib.contextmanager
def switched_off(parts):
    """record_model with the named parts off: "record" (recorder.record),
    "hooks" (ModuleStack's), "shadow" (Shadows.follow), "fast"
    (fast_meta.FAST_META)."""
    from nnscan import recorder, shadow
    with contextlib.ExitStack() as st:
        if "record" in parts:
            st.enter_context(patched(recorder, "record", lambda *a: None))
        if "hooks" in parts:
            def enter(self):
                import threading
                self.thread = threading.get_ident()
                return self
            st.enter_context(patched(recorder.ModuleStack, "__enter__", enter))
        if "shadow" in parts:
            st.enter_context(patched(shadow.Shadows, "follow",
                                     lambda self, f, a, k, out: out))
        if "fast" in parts:
            st.enter_context(patched(recorder, "_FAST_META", {}))
            st.enter_context(patched(recorder, "_FAST_META_KW", {}))
        yield


def medians(fns, runs):
    """name -> median process_time of fn, the fns taking turns."""
    for fn in fns.values():
        fn()
    cs = {k: [] for k in fns}
    for _ in range(runs):
        for k, fn in fns.items():
            c = time.process_time()
            fn()
            cs[k].append(time.process_time() - c)
    return {k: statistics.median(v) for k, v in cs.items()}


def count_ops(model, args, kwargs):
    """(calls a no-op mode sees in the plain meta forward, calls the
    recorder records, Counter of the recorded ops' names)."""
    import torch
    from torch.utils._python_dispatch import TorchDispatchMode
    from nnscan import recorder

    seen = collections.Counter()

    class Count(TorchDispatchMode):
        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            seen[str(func)] += 1
            return func(*args, **(kwargs or {}))

    meta, margs, mkw = meta_forward_parts(model, args, kwargs)
    with torch.no_grad(), Count():
        meta(*margs, **mkw)
    plain = sum(seen.values())
    rec = collections.Counter()
    real = recorder.record

    def counting(b, func, *rest):
        rec[str(func)] += 1
        return real(b, func, *rest)
    with patched(recorder, "record", counting):
        recorder.record_model(model, args, kwargs, device="meta")
    return plain, sum(rec.values()), rec


def meta_forward_parts(model, args, kwargs):
    from nnscan import recorder, shadow
    sh = shadow.Shadows()
    meta = model if recorder.on_meta(model) else recorder.meta_copy(model, sh)
    recorder._train(meta, False)
    return (meta, recorder.to_meta_inputs(args, sh),
            recorder.to_meta_inputs(kwargs, sh))


def kernel_costs(model, args, kwargs, runs):
    """aten op -> (calls, median total us of its kernel per forward, whether
    fast_meta answered): each call timed (process_time) in a dispatch mode
    that runs it as the recorder does (fast_meta's kernel where it answers,
    else PyTorch's), on the meta forward."""
    import torch
    from torch.utils._python_dispatch import TorchDispatchMode
    from nnscan import fast_meta
    meta, margs, mkw = meta_forward_parts(model, args, kwargs)
    per = collections.defaultdict(list)
    fast_used = set()

    class Timed(TorchDispatchMode):
        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            kwargs = kwargs or {}
            t = time.process_time()
            out = fast_meta.answer(func, args, kwargs)
            if out is None:
                out = func(*args, **kwargs)
            else:
                fast_used.add(str(func))
            acc[str(func)] += time.process_time() - t
            calls[str(func)] += 1
            return out
    for _ in range(runs):
        acc, calls = collections.Counter(), collections.Counter()
        with torch.no_grad(), Timed():
            meta(*margs, **mkw)
        for k, v in acc.items():
            per[k].append(v)
    return sorted(((k, calls[k], statistics.median(v) * 1e6, k in fast_used)
                   for k, v in per.items()), key=lambda r: -r[2])


def record_shares(model, args, kwargs):
    """cProfile tottime of one full record_model, by where the function
    lives: the shares of recorder.record's work (recorder.py's Builder and
    record, tape.py, graph.py, masks.py, aten_call.py)."""
    from nnscan import recorder
    pr = cProfile.Profile()
    pr.enable()
    recorder.record_model(model, args, kwargs, device="meta")
    pr.disable()
    st = pstats.Stats(pr)
    by = collections.Counter()
    for (fname, _line, func), (_cc, _nc, tt, _ct, _callers) in \
            st.stats.items():
        base = os.path.basename(fname)
        if base == "recorder.py" and func in (
                "record", "name", "value_of", "_declare", "inp", "gemm_rhs",
                "transposed", "const", "scalar", "filler", "fresh",
                "data_shaped", "fresh_like", "alias", "node_raw", "node",
                "unmapped", "hold", "_any_real_formed", "_entry",
                "_kept_dtype"):
            by["recorder Builder+record"] += tt
        elif base in ("tape.py", "graph.py", "masks.py", "aten_call.py"):
            by[base] += tt
    return by


def profile(name, runs, show_ops, summary_only=False):
    import torch
    import nnscan
    from torch.utils._python_dispatch import TorchDispatchMode
    from nnscan import graph, recorder, shadow, torch_api
    from nnscan.report import Handle  # noqa: F401 - the library loads
    built = build_or_say(name)
    if built is None:
        return None
    model, args, kwargs = built
    if summary_only:
        def summary():
            nnscan.summary(model, inputs=args[0] if args else kwargs,
                           file=False)
        t = medians({"summary": summary}, runs)
        # page faults and system time a summary, warm (after medians')
        import resource
        r0 = resource.getrusage(resource.RUSAGE_SELF)
        for _ in range(runs):
            summary()
        r1 = resource.getrusage(resource.RUSAGE_SELF)
        return {"model": name, "summary": t["summary"],
                "faults": (r1.ru_minflt - r0.ru_minflt) / runs,
                "sys": (r1.ru_stime - r0.ru_stime) / runs}
    plain_ops, ops, by_op = count_ops(model, args, kwargs)
    meta, margs, mkw = meta_forward_parts(model, args, kwargs)

    class CallOnly(TorchDispatchMode):
        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            return func(*args, **(kwargs or {}))

    def fwd():
        with torch.no_grad():
            meta(*margs, **mkw)

    def mode():
        with torch.no_grad(), CallOnly():
            meta(*margs, **mkw)

    def rec(*off):
        def run():
            with switched_off(off), recorder.gc_paused():
                recorder.record_model(model, args, kwargs, device="meta")
        return run

    fns = {"fwd": fwd, "mode": mode,
           "copy": (lambda: None) if recorder.on_meta(model)
           else (lambda: recorder.meta_copy(model, shadow.Shadows())),
           "r0": rec("record", "hooks", "shadow", "fast"),
           "r1": rec("record", "hooks", "shadow"),
           "r2": rec("record", "hooks"),
           "r3": rec("record"),
           "r4": rec()}
    t = medians(fns, runs)

    with recorder.gc_paused():
        r = recorder.record_model(model, args, kwargs, device="meta")
    g = r.graph

    def pack():
        graph.pack(g)

    def built_handle():
        return g.build()

    def infer():
        h = g.build()
        h.infer(fallback_declared=True)
        torch_api.check_shapes(h, r)
        return h

    def analyze():
        h = infer()
        return h, h.analyze("adam", None, None)

    def report():
        h, a = analyze()
        torch_api.TorchSummary(a, r, "record", name=type(model).__name__,
                               columns=("params",)).to_text()

    def summary():
        nnscan.summary(model, inputs=args[0] if args else kwargs, file=False)

    post = medians({"pack": pack, "build": built_handle, "infer": infer,
                    "analyze": analyze, "report": report,
                    "summary": summary}, runs)
    shares = record_shares(model, args, kwargs)
    stages = collections.OrderedDict([
        ("meta fwd", t["fwd"]),
        ("py mode", t["mode"] - t["fwd"]),
        ("meta copy", t["copy"]),
        ("bare", t["r0"] - t["copy"] - t["mode"]),
        ("fast_meta", t["r1"] - t["r0"]),
        ("shadow", t["r2"] - t["r1"]),
        ("hooks", t["r3"] - t["r2"]),
        ("record", t["r4"] - t["r3"]),
        ("pack", post["pack"]),
        ("C build", post["build"] - post["pack"]),
        ("infer", post["infer"] - post["build"]),
        ("analyze", post["analyze"] - post["infer"]),
        ("report", post["report"] - post["analyze"]),
    ])
    out = {"model": name, "ops": ops, "plain_ops": plain_ops,
           "module_calls": sum(g.module_calls.values()),
           "record": t["r4"], "summary": post["summary"], "stages": stages,
           "shares": shares}
    if show_ops:
        out["top"] = by_op.most_common(25)
        out["kernels"] = kernel_costs(model, args, kwargs, runs)[:20]
    return out


def against(name, other, runs, part="summary", library=None):
    """nnscan.summary of this checkout and of another (`other`: its
    python/ directory, imported as the package `nnscan_base` through a
    symlink in a temporary directory), taking turns run after run in this
    one process, so that a busy machine slows both alike; their reports
    must be equal. Prints both medians and the median of the per-run
    ratios (other / this). part="meta_copy" times recorder.meta_copy of
    the model alone instead (with shadows, as a recording makes it);
    part="layer_groups" layer_groups.candidates of a new meta copy's
    modules (the copy made before the clock starts, as each recording
    has a new one; the architecture's cheap part known, as in a model's
    second summary), whose groups must be the same; part="pack" each
    package's graph._pack_parts of one graph this package recorded,
    whose bytes must be the same. part="by_summary" times a process's
    first to seventh summaries: each of --runs rounds forgets both
    packages' templates, kept recordings (summary_memo.py) and
    architectures (as a fresh process has none), then the two take turns
    summary by summary; prints each summary's medians and the median of
    its per-round ratios (other / this). `library` (--against-library):
    the other package's own build of libnnscan, for a checkout whose
    packed format is older (issue 46's "1.13 at least as fast as the day
    it was filed": --against OLD/python --against-library
    OLD/build/libnnscan.so, OLD a worktree at af2a745)."""
    import importlib
    import tempfile
    import nnscan
    built = build_or_say(name)
    if built is None:
        return
    model, args, kwargs = built
    d = tempfile.mkdtemp()
    os.symlink(os.path.join(os.path.abspath(other), "nnscan"),
               os.path.join(d, "nnscan_base"))
    sys.path.insert(0, d)
    try:
        base = importlib.import_module("nnscan_base")
    finally:
        sys.path.remove(d)
    if library is not None:
        # its library loaded now, once, from `library` (each package keeps
        # the one it loaded first)
        was = os.environ.get("NNSCAN_LIBRARY")
        os.environ["NNSCAN_LIBRARY"] = library
        try:
            importlib.import_module("nnscan_base._lib").load()
        finally:
            if was is None:
                del os.environ["NNSCAN_LIBRARY"]
            else:
                os.environ["NNSCAN_LIBRARY"] = was
    inputs = args[0] if args else kwargs
    if part == "by_summary":
        return _by_summary(name, {"base": base, "this": nnscan}, model,
                           inputs, runs)
    if part == "meta_copy":
        pkgs = {"base": importlib.import_module("nnscan_base.recorder"),
                "this": importlib.import_module("nnscan.recorder")}
        fns = {k: (lambda r=r: r.meta_copy(model, r.Shadows()))
               for k, r in pkgs.items()}
    elif part == "pack":
        from nnscan import recorder
        g = recorder.record_model(model, args, kwargs, keep_graph=True).graph
        pkgs = {"base": importlib.import_module("nnscan_base.graph"),
                "this": importlib.import_module("nnscan.graph")}
        if len({b"".join(p._pack_parts(g)) for p in pkgs.values()}) > 1:
            print(f"{name}: the two packages pack other bytes")
            return
        fns = {k: (lambda p=p: p._pack_parts(g)) for k, p in pkgs.items()}
    elif part == "layer_groups":
        fns = _candidates_timed(model, {
            "base": importlib.import_module("nnscan_base.layer_groups"),
            "this": importlib.import_module("nnscan.layer_groups")})
        if fns is None:
            print(f"{name}: the two packages find other layer groups")
            return
    else:
        fns = {"base": lambda: base.summary(model, inputs=inputs,
                                            file=False),
               "this": lambda: nnscan.summary(model, inputs=inputs,
                                              file=False)}
        if str(fns["base"]()) != str(fns["this"]()):
            print(f"{name}: the two reports differ")
    times = {"base": [], "this": []}
    for i in range(runs):
        for k in ("base", "this") if i % 2 == 0 else ("this", "base"):
            ready = getattr(fns[k], "ready", None)
            if ready is not None:
                ready()  # what the part times, made before the clock
            t = time.process_time()
            fns[k]()
            gc.collect(0)  # its own collection (peer_timing.settled)
            times[k].append(time.process_time() - t)
    b, n = times["base"], times["this"]
    ratio = statistics.median([x / y for x, y in zip(b, n)])
    print(f"{name:20s} other {statistics.median(b) * 1e3:7.3f} ms  this "
          f"{statistics.median(n) * 1e3:7.3f} ms  other/this {ratio:.3f}",
          flush=True)


BY_SUMMARY = 7  # the summaries of a process part="by_summary" times


def _by_summary(name, pkgs, model, inputs, runs):
    """against()'s by_summary part."""
    import importlib
    times = {k: [[] for _ in range(BY_SUMMARY)] for k in pkgs}
    for r in range(runs):
        for p in pkgs.values():
            for m in ("layer_groups", "module_replay", "replay",
                      "summary_memo"):
                try:
                    mod = importlib.import_module(p.__name__ + "." + m)
                except ImportError:  # an older package's: none kept
                    continue
                mod.forget()
        for i in range(BY_SUMMARY):
            for k in ("base", "this") if (r + i) % 2 == 0 else \
                    ("this", "base"):
                t = time.process_time()
                pkgs[k].summary(model, inputs=inputs, file=False)
                gc.collect(0)
                times[k][i].append(time.process_time() - t)
    cells = []
    for b, n in zip(times["base"], times["this"]):
        ratio = statistics.median([x / y for x, y in zip(b, n)])
        cells.append(f"{statistics.median(b) * 1e3:.1f}/"
                     f"{statistics.median(n) * 1e3:.1f}={ratio:.2f}")
    print(f"{name:20s}", " ".join(cells), flush=True)


def _candidates_timed(model, pkgs):
    """against()'s layer_groups part: per package, a function timing
    candidates() of a meta copy made by its `ready` (None where the two
    packages' groups differ: paths, group numbers, members)."""
    from nnscan import recorder

    def modules():
        return recorder.named_modules(recorder.meta_copy(model))

    def groups(lg):
        mods = modules()
        return {p: (v[1], tuple(v[3]))
                for p, v in lg.candidates(mods, lg.arch(mods)).items()}
    if len({repr(sorted(groups(lg).items())) for lg in pkgs.values()}) > 1:
        return None
    fns = {}
    for k, lg in pkgs.items():
        box = []

        def ready(box=box):
            box[:] = [modules()]

        def run(box=box, lg=lg):
            lg.candidates(box[0], lg.arch(box[0]))
        run.ready = ready
        fns[k] = run
    return fns


def against_env(name, setting, runs):
    """nnscan.summary with an environment switch set (other: NAME=VALUE,
    e.g. NNSCAN_REPLAY=0) and unset (this), taking turns run after run in
    this process; the reports (JSON v2, text, CSV) must be equal. Prints
    both medians and the median of the per-run ratios (other / this).
    Each run forgets the kept recordings (summary_memo.py), so each is
    recorded, a model's first summary for the memo (layers' templates
    kept, as in a process that recorded the model before)."""
    import nnscan
    from nnscan import summary_memo
    built = build_or_say(name)
    if built is None:
        return
    model, args, kwargs = built
    inputs = args[0] if args else kwargs
    var, _, value = setting.partition("=")

    def run(other):
        summary_memo.forget()
        if other:
            os.environ[var] = value
        try:
            return nnscan.summary(model, inputs=inputs, file=False)
        finally:
            os.environ.pop(var, None)
    forms = [(s.to_json(version=2), s.to_text(), s.to_csv())
             for s in (run(True), run(False))]
    if forms[0] != forms[1]:
        print(f"{name}: the two reports differ")
    times = {True: [], False: []}
    for i in range(runs):
        for other in (True, False) if i % 2 == 0 else (False, True):
            t = time.process_time()
            run(other)
            gc.collect(0)  # its own collection (peer_timing.settled)
            times[other].append(time.process_time() - t)
    b, n = times[True], times[False]
    ratio = statistics.median([x / y for x, y in zip(b, n)])
    print(f"{name:20s} {setting} {statistics.median(b) * 1e3:7.3f} ms  "
          f"this {statistics.median(n) * 1e3:7.3f} ms  other/this "
          f"{ratio:.3f}", flush=True)


def floor(name, runs):
    """The cumulative table of a recording's parts, the variants taking
    turns (medians and minima): the meta forward plain; under a no-op
    dispatch mode answering with fast_meta's kernels (the floor: what any
    dispatch-level recording pays, PyTorch's dispatch into Python and the
    model's own module code included); record_model with recorder.record,
    hooks and shadows off, then each put back; graph.pack; the C build; the
    whole nnscan.summary."""
    import torch
    import nnscan
    from torch.utils._python_dispatch import TorchDispatchMode
    from nnscan import fast_meta, graph, recorder
    built = build_or_say(name)
    if built is None:
        return
    model, args, kwargs = built
    meta, margs, mkw = meta_forward_parts(model, args, kwargs)
    class Fast(TorchDispatchMode):
        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            out = fast_meta.answer(func, args, kwargs)
            return out if out is not None else func(*args, **(kwargs or {}))

    def plain():
        with torch.no_grad():
            meta(*margs, **mkw)

    def fast():
        with torch.no_grad(), Fast():
            meta(*margs, **mkw)

    def rec(*off):
        def run():
            with switched_off(off), recorder.gc_paused():
                return recorder.record_model(model, args, kwargs,
                                             device="meta")
        return run

    def pack():
        graph.pack(rec()().graph)

    def built_handle():
        rec()().graph.build()

    fns = collections.OrderedDict([
        ("plain meta forward", plain),
        ("floor: no-op mode with fast_meta", fast),
        ("record_model: record, hooks, shadows off",
         rec("record", "hooks", "shadow")),
        ("+ shadows", rec("record", "hooks")),
        ("+ hooks", rec("record")),
        ("+ recorder.record (record_model)", rec()),
        ("+ graph.pack", pack),
        ("+ C build", built_handle),
        ("nnscan.summary", lambda: nnscan.summary(model, inputs=args[0] if args else kwargs,
                                                  file=False))])
    for f in fns.values():
        f()
    times = {k: [] for k in fns}
    for _ in range(runs):
        for k, f in fns.items():
            t = time.process_time()
            f()
            times[k].append(time.process_time() - t)
    print(f"{name}: CPU ms, median / min of {runs}")
    for k, v in times.items():
        print(f"  {k:<40} {statistics.median(v) * 1e3:7.1f} "
              f"{min(v) * 1e3:7.1f}")


# --sections: (module name in nnscan, attribute path, label) of what
# nnscan.summary calls, timed exclusive of one another
SECTIONS = (
    ("recorder", "_meta_copy_walked", "meta copy of the model"),
    ("recorder", "_call", "model forward (dispatch, kernels, shadows, hooks)"),
    ("recorder", "record", "recorder.record (per call: the tape)"),
    ("graph", "_pack_parts", "pack (the graph as bytes)"),
    ("graph", "_in_kept_buffer", "pack (into the kept buffer)"),
    ("graph", "Graph.build", "C build (ctypes, builder)"),
    ("graph", "build_packed", "C build of the summary's graph"),
    ("torch_api", "Handle.infer", "infer"),
    ("torch_api", "check_shapes", "check_shapes"),
    ("torch_api", "Handle.analyze", "analyze"),
    ("torch_api", "TorchSummary", "summary object"),
    ("masks", "hand_over", "masks.hand_over"),
    ("recorder", "module_tensors", "module tensors"),
    ("recorder", "_Tree", "module tree walk"),
    ("recorder", "param_table", "parameter table"),
    ("recorder", "_read_unused_params", "unused parameters"),
    ("recorder", "_train", "train(False) on the copy"),
    ("recorder", "on_meta", "on_meta"),
    ("recorder", "to_meta_inputs", "inputs to meta"),
)


def sections(name, runs, setting=None):
    """nnscan.summary's time by section (SECTIONS: each timed with
    process_time, exclusive of the sections it calls; `other` is the
    rest), in ms per summary, summed over --runs summaries after a
    warm-up. recorder.record's wrapper runs per recorded call, so it adds
    about half a microsecond a call to what it measures. With --against-env
    NAME=VALUE, summaries with it and without take turns, and each
    section shows both (with / without): where the switch's time goes."""
    import importlib
    import nnscan
    from nnscan import summary_memo
    built = build_or_say(name)
    if built is None:
        return
    model, args, kwargs = built
    var, _, value = (setting or "").partition("=")
    accs = {True: collections.Counter(), False: collections.Counter()}
    acc = accs[False]
    stack = []
    clock = time.process_time

    def timed(f, label):
        def run(*a, **k):
            stack.append(0.0)
            t = clock()
            try:
                return f(*a, **k)
            finally:
                d = clock() - t
                inner = stack.pop()
                acc[label] += d - inner
                if stack:
                    stack[-1] += d
        return run
    saved = []
    for mod_name, path, label in SECTIONS:
        mod = importlib.import_module("nnscan." + mod_name)
        owner, attr = mod, path
        if "." in path:
            cls, attr = path.split(".")
            owner = getattr(mod, cls)
        f = owner.__dict__[attr] if isinstance(owner, type) \
            else getattr(owner, attr)
        saved.append((owner, attr, f))
        setattr(owner, attr, timed(f, label))

    def call(other=False):
        summary_memo.forget()  # recorded, as against_env's
        if other:
            os.environ[var] = value
        try:
            nnscan.summary(model, inputs=args[0] if args else kwargs,
                           file=False)
        finally:
            if other:
                os.environ.pop(var, None)
    turns = (False, True) if setting else (False,)
    totals = dict.fromkeys(turns, 0.0)
    try:
        for other in turns:
            call(other)
        for c in accs.values():
            c.clear()
        for _ in range(runs):
            for other in turns:
                acc = accs[other]
                t = clock()
                call(other)
                totals[other] += clock() - t
    finally:
        for owner, attr, f in saved:
            setattr(owner, attr, f)
    for other in turns:
        accs[other]["other"] = totals[other] - sum(accs[other].values())
    if not setting:
        total, acc = totals[False], accs[False]
        print(f"{name}: nnscan.summary {total / runs * 1e3:.2f} ms CPU "
              f"(mean of {runs}, sections wrapped)")
        for label, v in acc.most_common():
            print(f"  {label:<52} {v / runs * 1e3:7.3f} ms {v / total:6.1%}")
        return
    print(f"{name}: nnscan.summary {totals[True] / runs * 1e3:.2f} ms CPU "
          f"with {setting}, {totals[False] / runs * 1e3:.2f} ms without "
          f"(means of {runs} each, taking turns, sections wrapped)")
    for label, v in accs[False].most_common():
        w = accs[True][label]
        print(f"  {label:<52} {w / runs * 1e3:7.3f} {v / runs * 1e3:7.3f} "
              f"ms  {(w - v) / runs * 1e3:+7.3f}")


def save_packed(name, folder):
    """The model's packed graph (the tape, numbered by the library's build),
    written to FOLDER/<name>.numbered.nnsp (as torch_api.built packs it,
    the observed shapes included), for bench/packed_build.c. (The name is
    the one it had beside <name>.rules.nnsp, the recorder's own nodes,
    until session 107 removed them.)"""
    from nnscan import graph, recorder
    built = build_or_say(name)
    if built is None:
        return
    model, args, kwargs = built
    os.makedirs(folder, exist_ok=True)
    rec = recorder.record_model(model, args, kwargs)
    rec.graph.observed = rec.builder.shape_of
    path = os.path.join(folder, "%s.numbered.nnsp" % name.replace(":", "_"))
    with open(path, "wb") as f:
        f.write(graph.pack(rec.graph))
    print(path, flush=True)


def layer_replays(name):
    """The layers module_replay.py replays in a fresh process's first
    summary of the model, in its second (templates kept for the process),
    its third (a layer alike to no other: its template verified by the
    second) and its fourth (a module called again in a forward, learnt
    by the first: its first call's template verified by the third), and
    the layers it ran noting a template: what the
    replays cover, before their time (--against-env
    NNSCAN_MODULE_REPLAY=0)."""
    import nnscan
    from nnscan import module_replay
    built = build_or_say(name)
    if built is None:
        return
    model, args, kwargs = built
    replay, seen = module_replay.Layers._replay, module_replay.Layers._seen
    count = collections.Counter()

    def replayed(self, *a):
        out = replay(self, *a)
        count["replayed"] += out is not None
        return out

    def noted(self, *a):
        count["noted"] += 1
        return seen(self, *a)
    module_replay.Layers._replay = replayed
    module_replay.Layers._seen = noted
    try:
        got = []
        for _ in range(4):
            count.clear()
            nnscan.summary(model, inputs=args[0] if args else kwargs,
                           file=False)
            got.append((count["replayed"], count["noted"]))
    finally:
        module_replay.Layers._replay = replay
        module_replay.Layers._seen = seen
    print(f"{name:24s} layers replayed / run noting a template: first "
          f"summary {got[0][0]} / {got[0][1]}, second {got[1][0]} / "
          f"{got[1][1]}, third {got[2][0]} / {got[2][1]}, fourth "
          f"{got[3][0]} / {got[3][1]}", flush=True)


def collector(name, runs):
    """What Python's cyclic collector spends on one nnscan.summary, plain
    and with backward=True: the collections that start from the call's
    first line to the settled end (peer_timing.settled: the one its
    allocations leave due included) and their time, by gc.callbacks,
    medians of --runs after a warm-up. The summaries pause the collector
    (recorder.gc_paused); what it walks when it runs again is what they
    left alive. And the objects a summary leaves to it (in reference
    cycles: freed by no count), gc.collect()'s count after a summary made
    with the collector off, the median of three."""
    import nnscan
    built = build_or_say(name)
    if built is None:
        return
    model, args, kwargs = built
    inputs = args[0] if args else kwargs
    spent, start = [0.0, 0], [0.0]

    def note(phase, info):
        if phase == "start":
            start[0] = time.perf_counter()
        else:
            spent[0] += time.perf_counter() - start[0]
            spent[1] += 1
    for backward in (False, True):
        rows = []
        gc.callbacks.append(note)
        try:
            for _ in range(runs + 1):
                spent[:] = [0.0, 0]
                nnscan.summary(model, inputs=inputs, file=False,
                               backward=backward)
                gc.collect(0)
                rows.append(tuple(spent))
        finally:
            gc.callbacks.remove(note)
        rows = rows[1:]
        left = []
        for _ in range(3):
            gc.collect()
            gc.disable()
            try:
                nnscan.summary(model, inputs=inputs, file=False,
                               backward=backward)
            finally:
                left.append(gc.collect())
                gc.enable()
        print(f"{name}{' backward=True' if backward else ''}: "
              f"{statistics.median(r[1] for r in rows):.0f} collections, "
              f"{statistics.median(r[0] for r in rows) * 1e3:.3f} ms "
              f"(medians of {runs}); {statistics.median(left):.0f} objects "
              "left to the collector", flush=True)


def hand_over_parts(name, runs):
    """What masks.hand_over spends a summary on: each shadow computation
    it runs (the ops of the masks the library asked for, and of their
    inputs), by op and shapes, and the hand-over's whole time, per summary
    (medians of --runs; process time, so a fresh page's fault counts). An
    op's time includes the inputs it computes first (shadow values are
    computed when read: a tril's includes the ones it reads)."""
    import nnscan
    from nnscan import masks, shadow
    built = build_or_say(name)
    if built is None:
        return
    model, args, kwargs = built
    inputs = args[0] if args else kwargs
    run, hand_over = shadow.Shadows._run, masks.hand_over
    clock = time.process_time
    inside, parts, whole = [], collections.defaultdict(list), []
    seen = collections.Counter()

    def timed_run(self, func, a, k, blank):
        t = clock()
        try:
            return run(self, func, a, k, blank)
        finally:
            if inside:
                shapes = ",".join("x".join(map(str, x.shape)) if hasattr(
                    x, "shape") else type(x).__name__ for x in a)
                key = f"{func} ({shapes})"
                seen[key] += 1
                parts[key].append(clock() - t)

    def timed_hand_over(*a):
        inside.append(1)
        t = clock()
        try:
            return hand_over(*a)
        finally:
            whole.append(clock() - t)
            inside.pop()
    nnscan.summary(model, inputs=inputs, file=False)  # warm
    shadow.Shadows._run, masks.hand_over = timed_run, timed_hand_over
    try:
        for _ in range(runs):
            nnscan.summary(model, inputs=inputs, file=False)
    finally:
        shadow.Shadows._run, masks.hand_over = run, hand_over
    med = statistics.median
    print(f"{name}: masks.hand_over {med(whole) * 1e3:.2f} ms a summary "
          f"(median of {runs})")
    rows = sorted(((sum(v) / runs, k, seen[k] // runs)
                   for k, v in parts.items()), reverse=True)
    for t, k, n in rows[:12]:
        print(f"  {t * 1e3:8.2f} ms  {n:3d}x  {k}")


def first_summary(name, runs):
    """A process's first nnscan.summary of the model: --runs fresh
    processes, taking turns with as many that run gc.collect() before it
    (what of a first summary is Python's full collection, due when it
    starts), each timing its first summary of the model (after one of a
    one-Linear model, so the imports, the library's load and the
    recorder's own first calls are not in it) and its second; medians;
    and the record templates made (tape._template_of: one per distinct
    call, what the tape makes while none is kept yet). (Until session 107
    it timed the recorder's rules, NNSCAN_TAPE_NUMBERED=0, beside.)"""
    import subprocess
    code = (
        "import os, sys, time, warnings\n"
        "warnings.simplefilter('ignore')\n"
        "sys.path[:0] = [%r, %r]\n"
        "import recording_profile as rp, torch, nnscan\n"
        "from nnscan import tape\n"
        "torch.set_num_threads(%d)\n"
        "model, args, kwargs = rp.build_or_say(%r)\n"
        "x = args[0] if args else kwargs\n"
        "nnscan.summary(torch.nn.Linear(4, 4), inputs=(torch.zeros(1, 4),),"
        " file=False)\n"
        "made, template_of = [0], tape._template_of\n"
        "def counted(*a):\n"
        "    made[0] += 1\n"
        "    return template_of(*a)\n"
        "tape._template_of = counted\n"
        "if os.environ.get('NNSCAN_BENCH_COLLECT'):\n"
        "    import gc; gc.collect()\n"
        "t = time.process_time()\n"
        "nnscan.summary(model, inputs=x, file=False)\n"
        "a = time.process_time() - t\n"
        "t = time.process_time()\n"
        "nnscan.summary(model, inputs=x, file=False)\n"
        "b = time.process_time() - t\n"
        "print(a, b, made[0])\n") % (
            HERE, os.path.join(HERE, "..", "python", "tests_hf"),
            torch_threads(), name)
    got = {m: [] for m in ("", "c")}
    for _ in range(runs):
        for m in got:
            env = dict(os.environ)
            env.pop("NNSCAN_BENCH_COLLECT", None)
            if m == "c":
                env["NNSCAN_BENCH_COLLECT"] = "1"
            out = subprocess.run([sys.executable, "-c", code], env=env,
                                 capture_output=True, text=True, check=True)
            got[m].append(tuple(float(v) for v in out.stdout.split()))
    med = statistics.median
    for m, what in (("", "tape"), ("c", "tape after gc.collect()")):
        rows = got[m]
        print(f"{name}: {what}: first summary "
              f"{med(r[0] for r in rows) * 1e3:.1f} ms, second "
              f"{med(r[1] for r in rows) * 1e3:.1f} ms, templates made "
              f"{int(rows[0][2])} (medians of {runs} processes)")


def torch_threads():
    import torch
    return torch.get_num_threads()


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--models", default=",".join(MODELS))
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--ops", action="store_true",
                    help="print each model's most recorded aten ops")
    ap.add_argument("--summary-only", action="store_true",
                    help="time nnscan.summary alone (before/after runs)")
    ap.add_argument("--floor", action="store_true",
                    help="the cumulative table down to the floor (--floor's "
                    "doc: floor())")
    ap.add_argument("--first", action="store_true",
                    help="a fresh process's first summary, plain and after "
                    "gc.collect() (first_summary()'s doc)")
    ap.add_argument("--sections", action="store_true",
                    help="nnscan.summary's time by section (sections()'s "
                    "doc)")
    ap.add_argument("--hand-over", action="store_true",
                    help="masks.hand_over's shadow computations "
                    "(hand_over_parts()'s doc)")
    ap.add_argument("--repeat", type=int, metavar="K",
                    help="run 1 + K summaries of each model, Python's "
                    "collector off after the first, and print nothing: "
                    "under valgrind --tool=callgrind, K=3 less K=0 is three "
                    "summaries' instructions (a collection due in between "
                    "would add a walk of every object the process holds)")
    ap.add_argument("--save-packed", metavar="DIR",
                    help="write each model's packed graph for "
                    "bench/packed_build.c (save_packed()'s doc)")
    ap.add_argument("--collector", action="store_true",
                    help="the cyclic collector's collections and time a "
                    "summary, plain and backward=True (collector()'s doc)")
    ap.add_argument("--layer-replays", action="store_true",
                    help="layers module_replay.py replays, summaries one "
                    "to four (layer_replays()'s doc)")
    ap.add_argument("--hf-layers", type=int, default=0, metavar="N",
                    help="build the hf: models N layers deep (hf_zoo.py's "
                    "tiny configs have two: nothing to replay)")
    ap.add_argument("--against", metavar="PYTHON_DIR",
                    help="time nnscan.summary against another checkout's "
                    "package (its python/ directory), in this process")
    ap.add_argument("--against-library", metavar="LIBNNSCAN",
                    help="with --against: the other package's own library "
                    "(an older checkout's build: its packed format is "
                    "its own), where NNSCAN_LIBRARY names this one's")
    ap.add_argument("--against-env", metavar="NAME=VALUE",
                    help="time nnscan.summary with NAME=VALUE (other) "
                    "against without it (this), taking turns "
                    "(against_env()'s doc); with --sections, each section "
                    "both ways")
    ap.add_argument("--part", choices=("summary", "meta_copy",
                                       "layer_groups", "pack",
                                       "by_summary"),
                    default="summary",
                    help="with --against: what is timed (against()'s doc)")
    a = ap.parse_args()
    global HF_LAYERS
    HF_LAYERS = a.hf_layers
    import torch
    torch.set_num_threads(a.threads)
    warnings.simplefilter("ignore")
    print(f"torch {torch.__version__}, process_time medians of {a.runs}")
    if a.repeat is not None:
        import nnscan
        for name in a.models.split(","):
            built = build_or_say(name)
            if built is not None:
                model, args, kwargs = built
                for k in range(1 + a.repeat):
                    nnscan.summary(model, inputs=args[0] if args else kwargs,
                                   file=False)
                    gc.disable()
        return
    # the modes that run one function per model, in the order they win
    modes = ((a.floor, lambda n: floor(n, a.runs)),
             (a.sections, lambda n: sections(n, a.runs, a.against_env)),
             (a.against_env, lambda n: against_env(n, a.against_env,
                                                   a.runs)),
             (a.first, lambda n: first_summary(n, a.runs)),
             (a.hand_over, lambda n: hand_over_parts(n, a.runs)),
             (a.save_packed, lambda n: save_packed(n, a.save_packed)),
             (a.collector, lambda n: collector(n, a.runs)),
             (a.layer_replays, layer_replays),
             (a.against, lambda n: against(n, a.against, a.runs, a.part,
                                           a.against_library)))
    for wanted, run in modes:
        if wanted:
            for name in a.models.split(","):
                run(name)
            return
    rows = []
    for name in a.models.split(","):
        r = profile(name, a.runs, a.ops, a.summary_only)
        if r is None:
            continue
        if a.summary_only:
            print(f"{name}: summary {r['summary'] * 1e3:.1f} ms, "
                  f"{r['faults']:.0f} page faults and "
                  f"{r['sys'] * 1e3:.2f} ms system time a summary")
            continue
        rows.append(r)
        print(f"\n{name}: {r['ops']} ops recorded ({r['plain_ops']} in the "
              f"plain meta forward), {r['module_calls']} module calls, "
              f"record_model {r['record'] * 1e3:.1f} ms,"
              f" summary {r['summary'] * 1e3:.1f} ms")
        print(f"  {'stage':<10} {'ms':>8} {'us/op':>8}")
        for k, v in r["stages"].items():
            print(f"  {k:<10} {v * 1e3:8.2f} {v / r['ops'] * 1e6:8.2f}")
        tot = sum(r["shares"].values())
        if tot > 0:
            rec = r["stages"]["record"]
            print("  record split (cProfile tottime shares): " + ", ".join(
                f"{k} {v / tot:.0%} ({rec * v / tot / r['ops'] * 1e6:.1f}"
                " us/op)" for k, v in r["shares"].most_common()))
        for op, n in r.get("top", []):
            print(f"    {n:6d} {op}")
        if r.get("kernels"):
            print("  kernel time per forward (fast_meta where it answers):")
        for op, n, us, fast in r.get("kernels", []):
            print(f"    {us / 1e3:7.2f} ms {n:5d} x {us / max(n, 1):7.1f} us "
                  f"{'fast ' if fast else ''}{op}")
    if len(rows) > 1 and not a.summary_only:
        print("\n| model | ops | " + " | ".join(rows[0]["stages"]) +
              " | summary |")
        print("|---|---|" + "---|" * (len(rows[0]["stages"]) + 1))
        for r in rows:
            print(f"| {r['model']} | {r['ops']} | " + " | ".join(
                f"{v / r['ops'] * 1e6:.1f}" for v in r["stages"].values())
                + f" | {r['summary'] * 1e3:.1f} ms |")
        print("(stages in us per recorded op)")


if __name__ == "__main__":
    main()
