"""Every transformers model type, tiny and on the meta device, against
PyTorch: a survey beyond the zoo of python/tests_hf (issue 16).

For each `model_type` transformers registers (or the ones named), the
config gets python/tests_hf/hf_zoo.py's TINY sizes for the fields it has,
the model is built on meta (AutoModelForCausalLM when it is a causal LM,
else AutoModel; a tower no Auto class maps, by its own model class) and fed input_ids (+ decoder_input_ids), pixel_values, a
waveform (input_values) or log-mel frames (input_features). Where the tiny
config does not validate, or the model's own forward fails on it (the
reference's too), the survey keeps only the sizes of the same kind as the
defaults (an int for an int), then takes the defaults (CONFIGS).
One line per type: parameters against sum(p.numel()), matrix-product MACs
against FlopCounterMode (hf_zoo.reference), the aten ops left uncounted, or
the stage that failed (config: the tiny config or the model could not be
made; forward: the model's forward fails on the tiny config, the reference's
too; nnscan). A generic tiny config does not fit every architecture:
config failures are the survey's, not nnscan's. Where FlopCounterMode
cannot run on meta, the survey retries what it knows (RETRIES: eager
attention, a padding token, the model on the CPU); where it still cannot, the line says so and
gives the parameters and uncounted ops without a MACs reference.

Run (PyTorch 2.x with transformers: the sid chroot), from the repository:
    NNSCAN_LIBRARY=build/gcc/libnnscan.so python3 tools/hf_sweep.py [--cpu] [--mask] [--dtype fp32|bf16|fp16] [TYPE...]
--cpu also builds each tiny model on the CPU and records it on its own
device (device="model": PyTorch's fused CPU attention, real routing), against
the same meta reference (on_cpu). --mask feeds text models a right-padded
attention_mask (a tokenizer's, the last 3 of 16 tokens padding). --dtype
builds every model in float32, bfloat16 or float16 (--bf16: --dtype bf16);
where PyTorch's own 16-bit forward fails, the reference is the float32
copy's (from_fp32), said on the line.
The last line counts the exact types: parameters equal to sum(p.numel()),
matrix-product MACs equal to FlopCounterMode's, no aten op uncounted.
"""
import inspect
import os
import signal
import sys
import warnings

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "python"))
sys.path.insert(0, os.path.join(HERE, "..", "python", "tests_hf"))

import torch  # noqa: E402
import transformers  # noqa: E402
from transformers.models.auto import modeling_auto  # noqa: E402

import hf_zoo  # noqa: E402
import nnscan  # noqa: E402

LIMIT_S = 120
# Samples of the waveform fed to models whose main input is input_values:
# a fifth of a second at 16 kHz, past every feature extractor's receptive
# field.
AUDIO_SAMPLES = 3200
# Parameters above which a tiny config is not tiny (the sizes TINY does not
# reach, a vision tower's defaults): never built on the CPU.
CPU_MAX_PARAMS = int(os.environ.get("NNSCAN_SWEEP_CPU_MAX", 20_000_000))


class TimeLimit(Exception):
    pass


def _alarm(*_):
    raise TimeLimit()


def inputs(model, cfg):
    """The main input (and decoder ids); floating-point inputs in the
    model's own dtype, as a processor casts them."""
    main = getattr(model, "main_input_name", "input_ids")
    dt = getattr(model, "dtype", torch.float32)
    ids = torch.zeros(1, hf_zoo.SEQ, dtype=torch.long)
    dec = {"decoder_input_ids": ids[:, :8]} \
        if getattr(cfg, "is_encoder_decoder", False) else {}
    if main == "input_values":  # a raw waveform (wav2vec2, HuBERT, ...)
        return {"input_values": torch.zeros(1, AUDIO_SAMPLES, dtype=dt),
                **dec}
    if main == "input_features":  # log-mel frames (Whisper-style)
        frames = 2 * getattr(cfg, "max_source_positions", 100)
        bins = getattr(cfg, "num_mel_bins", 80)
        return {"input_features": torch.zeros(1, bins, frames, dtype=dt),
                **dec}
    if main == "input_ids":
        out = {"input_ids": ids}
        if WITH_MASK and "attention_mask" in \
                inspect.signature(model.forward).parameters:
            mask = torch.ones(1, hf_zoo.SEQ, dtype=torch.long)
            mask[:, -3:] = 0  # a tokenizer's right padding
            out["attention_mask"] = mask
        if getattr(cfg, "is_encoder_decoder", False):
            out["decoder_input_ids"] = ids[:, :8]
        return out
    if main == "pixel_values":
        size = getattr(cfg, "image_size", hf_zoo.TINY["image_size"])
        size = size[0] if isinstance(size, (list, tuple)) else size
        return {"pixel_values": torch.zeros(
            1, getattr(cfg, "num_channels", 3), size, size, dtype=dt)}
    return None


# What a generic tiny config misses, and the retry that fixes it: the
# error's text -> config overrides or from_config keywords.
# (text of the error, config overrides, from_config keywords, device).
RETRIES = (
    # SDPA's mask code asks a meta mask's value: FlopCounterMode cannot run
    # that on meta (nnscan can), so the reference takes eager attention
    ("Tensor.item() cannot be called on meta", {},
     {"attn_implementation": "eager"}, "meta"),
    # RoBERTa-style position ids need a padding token
    ("ne() received an invalid combination", {"pad_token_id": 1}, {},
     "meta"),
    # a forward that needs data on meta still: the tiny model built on the
    # CPU with eager attention (FlopCounterMode on the CPU then sees every
    # matrix product), recorded by nnscan on its meta copy or, where that
    # fails, on the CPU
    ("meta", {}, {"attn_implementation": "eager"}, "cpu"),
)


def _fitting(cls, overrides):
    """TINY's sizes for the fields whose default is of the same kind (an
    int for an int: Swin's per-stage head lists keep their own), and the
    overrides."""
    defaults = cls().to_dict()
    kw = {k: v for k, v in hf_zoo._tiny(cls, {}).items()
          if k in defaults and type(defaults[k]) is type(v)}
    kw.update(overrides)
    return kw


# How the config is made, tried in order while it cannot be: TINY's sizes
# (hf_zoo), the sizes of the same kind as the defaults, the defaults (on
# meta, a full-size model costs no memory).
CONFIGS = (
    ("tiny", lambda cls, o: hf_zoo._tiny(cls, o)),
    ("fitting", _fitting),
    ("defaults", lambda cls, o: dict(o)),
)


def build(name, overrides, kw, device="meta", how="tiny"):
    cls = transformers.CONFIG_MAPPING[name]
    cfg = cls(**dict(CONFIGS)[how](cls, overrides))
    causal = name in modeling_auto.MODEL_FOR_CAUSAL_LM_MAPPING_NAMES
    auto = transformers.AutoModelForCausalLM if causal \
        else transformers.AutoModel
    if DTYPE is not None:
        kw = {**kw, "dtype": DTYPE}
    with torch.device(device):
        try:
            model = auto.from_config(cfg, **kw)
        except ValueError as e:
            own = tower_class(cls) \
                if "Unrecognized configuration class" in str(e) else None
            if own is None:
                raise
            model = own._from_config(cfg, **kw)
    model.eval()
    return model, cfg


def tower_class(config_cls):
    """The model class of a config no Auto class maps (the text and vision
    towers of CLIP-like models: clip_text_model is CLIPTextModel): the
    `...Model` class of the config's own modeling module whose config_class
    it is, or None."""
    import importlib
    mod = config_cls.__module__.replace(".configuration_", ".modeling_")
    try:
        modeling = importlib.import_module(mod)
    except ImportError:
        return None
    found = [c for c in vars(modeling).values()
             if isinstance(c, type) and c.__name__.endswith("Model")
             and not c.__name__.endswith("PreTrainedModel")
             and getattr(c, "config_class", None) is config_cls]
    return min(found, key=lambda c: len(c.__name__)) if found else None


def reference(model, feed, device):
    """hf_zoo.reference on meta; on the CPU, FlopCounterMode on the CPU."""
    if device == "meta":
        return hf_zoo.reference(model, feed)[1]
    from torch.utils.flop_counter import FlopCounterMode
    torch.manual_seed(0)  # a forward that samples (VITS's durations)
    # FlopCounterMode has no formula for _grouped_mm: the experts run as
    # batched_mm, the same products (hf_zoo.reference does so on meta)
    impl = hf_zoo.experts_implementation(model)
    if impl == "grouped_mm":
        model.set_experts_implementation("batched_mm")
    try:
        with torch.no_grad(), FlopCounterMode(display=False) as fc:
            model(**feed)
    finally:
        if impl == "grouped_mm":
            model.set_experts_implementation(impl)
    return sum(fc.get_flop_counts()["Global"].values()) // 2


def survey(name):
    """One line (survey_one's). In a 16-bit dtype, where PyTorch's own
    forward fails (the reference's failure), the reference (parameters,
    FlopCounterMode's MACs: neither depends on the dtype) is the float32
    copy's, and nnscan records the 16-bit model on meta (from_fp32)."""
    line = survey_one(name)
    if DTYPE in (None, torch.float32) or not (
            line.startswith("forward:") or "macs (no reference" in line):
        return line
    return from_fp32(name, line)


def from_fp32(name, line16):
    """The 16-bit model on meta against its float32 copy's reference (the
    config, keywords and device the float32 survey found), or line16 where
    the float32 copy has no reference either."""
    global DTYPE
    dtype, DTYPE = DTYPE, torch.float32
    try:
        ref = survey_one(name, ref_only=True)
    finally:
        DTYPE = dtype
    if not isinstance(ref, dict):
        return line16
    why = line16.split("(no reference: ")[-1].split(")")[0] \
        if "(no reference" in line16 else line16[len("forward: "):]
    note = (f" [reference from the fp32 copy ({ref['where']}): the "
            f"{DTYPES_NAME[DTYPE]} forward fails in PyTorch: {why[:60]}]")
    try:
        model, cfg = build(name, ref["overrides"], ref["kw"], "meta",
                           ref["how"])
        params = sum(p.numel() for p in model.parameters())
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            torch.manual_seed(0)
            s = nnscan.summary(model, inputs=inputs(model, cfg), file=False)
    except TimeLimit:
        raise
    except Exception as e:  # noqa: BLE001 - a survey line, not a crash
        # the library's refusal is nnscan's; anything else is the model's
        # own forward on meta failing (a PyTorch meta kernel's check)
        stage = "nnscan" if isinstance(e, nnscan.NnscanError) \
            else f"forward ({DTYPES_NAME[DTYPE]} on meta)"
        return (f"{stage}: {type(e).__name__}: "
                f"{str(e).splitlines()[0][:120]}{note}")
    got = s.totals["params"] + s.totals.get("frozen", 0)
    ok = got == params == ref["params"]
    macs = hf_zoo.matmul_macs(s)
    ratio = macs / ref["macs"] if ref["macs"] else float("nan")
    want = ref["params"]
    return (f"params {'OK' if ok else f'{got}/{want}'} "
            f"macs/FlopCounterMode {ratio:.4f} "
            f"uncounted {s.uncounted_aten or '{}'}{note}")


def survey_one(name, ref_only=False):
    """One line: what nnscan says against PyTorch, or the stage that
    failed. When FlopCounterMode cannot run (the reference's failure, not
    nnscan's) the parameters and the uncounted ops are still checked.
    ref_only: the first reference made, as a dict (params, macs, and the
    overrides, keywords, device and config it took), or the failed line."""
    overrides, kw, device, tried = {}, {}, "meta", set()
    params = None  # of the last model built
    hows = [c[0] for c in CONFIGS]

    def retry_for(e):
        nonlocal overrides, kw, device
        r = next((r for r in RETRIES if r[0] in str(e) and r[0] not in tried),
                 None)
        if r is None or (r[3] == "cpu" and (params is None
                                            or params > CPU_MAX_PARAMS)):
            return False
        tried.add(r[0])
        overrides, kw, device = {**overrides, **r[1]}, {**kw, **r[2]}, r[3]
        return True

    while True:
        stage = "config"
        try:
            model, cfg = build(name, overrides, kw, device, hows[0])
            params = sum(p.numel() for p in model.parameters())
            feed = inputs(model, cfg)
            if feed is None:
                return f"skip (input {model.main_input_name})"
            stage = "fcm"
            try:
                macs_ref, fcm_error = reference(model, feed, device), None
            except TimeLimit:
                raise
            except Exception as e:  # noqa: BLE001 - the reference's failure
                if retry_for(e):
                    continue
                fcm_error = e
                if ref_only:
                    raise
            if ref_only:
                return {"params": params, "macs": macs_ref,
                        "overrides": overrides, "kw": kw, "how": hows[0],
                        "where": f"{dict(**overrides, **kw)} on {device}, "
                                 f"{hows[0]} config"}
            stage = "nnscan"
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                torch.manual_seed(0)  # the reference's draws, on the CPU
                s = nnscan.summary(model, inputs=feed, file=False)
        except TimeLimit:
            return f"{stage}: over {LIMIT_S} s"
        except Exception as e:  # noqa: BLE001 - a survey line, not a crash
            if stage == "config" and len(hows) > 1:
                hows.pop(0)  # the next way to make the config
                continue
            if stage != "nnscan" and retry_for(e):
                continue
            if ref_only and stage == "fcm" and len(hows) > 1:
                hows.pop(0)  # as below: the next config, retries afresh
                overrides, kw, device, tried = {}, {}, "meta", set()
                continue
            # the forward's own error (a tiny config it does not fit) when
            # the reference failed on it too: the next way to make the
            # config, with the retries afresh
            if stage == "nnscan" and fcm_error is not None:
                if len(hows) > 1:
                    hows.pop(0)
                    overrides, kw, device, tried = {}, {}, "meta", set()
                    continue
                stage = "forward"
            return (f"{stage}: {type(e).__name__}: "
                    f"{str(e).splitlines()[0][:120]}")
        got = s.totals["params"] + s.totals.get("frozen", 0)
        line = f"params {'OK' if got == params else f'{got}/{params}'} "
        if fcm_error is None:
            macs = hf_zoo.matmul_macs(s)
            ratio = macs / macs_ref if macs_ref else float("nan")
            line += f"macs/FlopCounterMode {ratio:.4f} "
        else:
            line += (f"macs (no reference: {type(fcm_error).__name__}: "
                     f"{str(fcm_error).splitlines()[0][:60]}) ")
        line += f"uncounted {s.uncounted_aten or '{}'}"
        if ON_CPU_TOO and device == "meta" and fcm_error is None:
            line += " | " + on_cpu(name, overrides, kw, hows[0], feed,
                                   params, macs_ref)
        if kw or overrides or device != "meta" or hows[0] != "tiny":
            line += (f" [with {dict(**overrides, **kw)} on {device}, "
                     f"{hows[0]} config]")
        return line


def on_cpu(name, overrides, kw, how, feed, params, macs_ref):
    """The same tiny config built on the CPU (random weights, PyTorch's
    own CPU kernels: fused attention, real routing) and recorded on its
    own device (device="model"), against the meta reference. A model
    whose forward routes by data (mixture of experts) may differ by
    design: its rows per expert are the real ones."""
    if params > CPU_MAX_PARAMS:
        return "cpu: skip (too big)"
    try:
        torch.manual_seed(0)
        model, _ = build(name, overrides, kw, "cpu", how)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            s = nnscan.summary(model, inputs=feed, device="model", file=False)
    except TimeLimit:
        raise
    except Exception as e:  # noqa: BLE001 - a survey line, not a crash
        return f"cpu: {type(e).__name__}: {str(e).splitlines()[0][:100]}"
    got = s.totals["params"] + s.totals.get("frozen", 0)
    ratio = hf_zoo.matmul_macs(s) / macs_ref if macs_ref else float("nan")
    return (f"cpu params {'OK' if got == params else f'{got}/{params}'} "
            f"macs/FlopCounterMode {ratio:.4f} "
            f"uncounted {s.uncounted_aten or '{}'} device {s.device}")


# --cpu: also record each type built on the CPU, on its own device
ON_CPU_TOO = False
# --mask: text models also get a right-padded attention_mask
WITH_MASK = False
# --dtype fp32|bf16|fp16: models built in that dtype (from_config's
# dtype; None: the config's own, float32 for a tiny one); --bf16 is
# --dtype bf16
DTYPE = None
DTYPES = {"fp32": torch.float32, "bf16": torch.bfloat16,
          "fp16": torch.float16}
DTYPES_NAME = {v: k for k, v in DTYPES.items()}


def exact(line):
    """Whether a survey line is exact: parameters equal to sum(numel),
    matrix-product MACs equal to FlopCounterMode's, nothing uncounted."""
    return line.startswith("params OK macs/FlopCounterMode 1.0000 "
                           "uncounted {}")


def main(names):
    global ON_CPU_TOO, WITH_MASK, DTYPE
    names = list(names)
    ON_CPU_TOO, WITH_MASK = "--cpu" in names, "--mask" in names
    dtype = "bf16" if "--bf16" in names else None
    if "--dtype" in names:
        i = names.index("--dtype")
        if i + 1 >= len(names) or names[i + 1] not in DTYPES:
            sys.exit("--dtype takes one of " + ", ".join(DTYPES))
        dtype = names.pop(i + 1)
        names.pop(i)
    DTYPE = DTYPES[dtype] if dtype else None
    names = [n for n in names if n not in ("--cpu", "--mask", "--bf16")]
    signal.signal(signal.SIGALRM, _alarm)
    done = good = 0
    for name in names or sorted(transformers.CONFIG_MAPPING.keys()):
        signal.alarm(LIMIT_S)
        try:
            line = survey(name)
        finally:
            signal.alarm(0)
        print(f"{name:28s} {line}", flush=True)
        done, good = done + 1, good + exact(line)
    print(f"# {good} exact of {done} model types (dtype "
          f"{dtype or 'the config default'}; transformers "
          f"{transformers.__version__}, torch {torch.__version__})",
          flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
