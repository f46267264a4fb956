#!/usr/bin/python3
"""Whether a change kept every nnscan.summary report byte for byte, on live
PyTorch models (bench/same_output.sh does the same for the CLI on ONNX).

    NNSCAN_LIBRARY=build/gcc/libnnscan.so /usr/bin/python3 \\
        bench/same_summary.py --save /tmp/before [--models resnet50,gpt2]
    ... (make the change) ...
    ... bench/same_summary.py --save /tmp/after
    bench/same_summary.py --compare /tmp/before /tmp/after
    /work/sidrun . 'PYTHONPATH=python python3 bench/same_summary.py --save D'

--save writes, per model, the text report with every column (flops, macs,
dmas, buffers, act, pct), JSON v1 and v2, and the roofline text
(hardware="h100-sxm") into DIR/<model>.<form>, plus each warning's text.
Models: every torchvision classification model (CPU, random weights,
seed 0, 1x3x224x224; 299 for inception_v3) but the few whose random
initialisation alone takes many seconds (--skip), and with transformers
every family of python/tests_hf/hf_zoo.py (tiny configs on meta), plus
a GPT-2 small CPU model at 512 tokens, LLaMA-3-8B on meta at 2,048 and
the decoders of recording_speed.DECODERS so (<name>_2048: Mistral-7B,
Gemma-2-9B, Mixtral-8x7B, Qwen3-30B-A3B, MPT-7B, GPT-J-6B, Falcon-7B)
(--hf-layers 5: the HF families with five layers, not two), and
nnscan.profile_generate of every causal HF family (gen_<family>: four
new tokens after its inputs, every step recorded; its table, its JSON
and each decode step's JSON v2) and of LLaMA-3-8B (gen_llama3_8b: a
16-token prompt, a decode step at past 2,048). A model that fails
writes its error instead (and compares as such). --warm summarises each
model once before its reports (they then come from a process that
recorded it: module_replay.py's templates kept for the process).
--warm 3 thrice (a layer alike to none replays from an architecture's
fourth recording; summary_memo.py builds a model's third summary on).
--compare prints each file that
differs or is missing and exits 1 when any does. Runs with
PYTHONHASHSEED=0 unless it is set (see the end of this file).
"""
import argparse
import os
import sys
import warnings

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.append(os.path.join(ROOT, "python"))  # PYTHONPATH wins: a base
sys.path.insert(0, os.path.join(ROOT, "python", "tests_hf"))

SKIP = ("vit_h_14", "vit_l_16", "vit_l_32", "regnet_y_128gf",
        "regnet_y_32gf", "regnet_y_16gf")
# hf_zoo.TINY's layer counts (--hf-layers)
LAYER_FIELDS = ("num_hidden_layers", "n_layer", "encoder_layers",
                "decoder_layers", "num_layers", "num_decoder_layers",
                "n_layers")
COLUMNS = ("flops", "macs", "dmas", "buffers", "act", "pct")


def torchvision_models(skip):
    import torch
    from torchvision import models
    try:
        names = sorted(models.list_models(module=models))
    except AttributeError:  # torchvision < 0.15
        drop = {"get_weight", "get_model", "get_model_builder",
                "get_model_weights", "list_models"}
        names = sorted(n for n in dir(models) if not n.startswith("_")
                       and n[0].islower() and callable(getattr(models, n))
                       and n not in drop)
    for n in names:
        if n in skip:
            continue

        def make(n=n):
            torch.manual_seed(0)
            kw = {"aux_logits": False, "init_weights": False} \
                if n in ("inception_v3", "googlenet") else {}
            side = 299 if n == "inception_v3" else 224
            return getattr(models, n)(**kw).eval(), \
                torch.zeros(1, 3, side, side)
        yield "tv_" + n, make


def hf_models():
    try:
        import hf_zoo
        import torch
        from transformers import GPT2Config, GPT2LMHeadModel
    except ImportError:
        return
    for n in sorted(hf_zoo.FAMILIES):
        yield "hf_" + n, (lambda n=n: hf_zoo.build(n))

    def gpt2():
        torch.manual_seed(0)
        return GPT2LMHeadModel(GPT2Config()).eval(), \
            {"input_ids": torch.zeros(1, 512, dtype=torch.long)}
    yield "gpt2_512", gpt2

    def llama3_8b():  # on meta: its causal mask over 2,048 tokens
        path = list(sys.path)  # recording_speed puts this checkout's first
        sys.path.insert(0, HERE)
        try:
            from recording_speed import llama3_8b_meta
        finally:
            sys.path[:] = path
        return llama3_8b_meta(), {
            "input_ids": torch.zeros(1, 2048, dtype=torch.long)}
    yield "llama3_8b_2048", llama3_8b

    def decoder(name):  # recording_speed.DECODERS, on meta
        path = list(sys.path)
        sys.path.insert(0, HERE)
        try:
            from recording_speed import decoder_meta
        finally:
            sys.path[:] = path
        return decoder_meta(name), {
            "input_ids": torch.zeros(1, 2048, dtype=torch.long)}
    for n in ("mistral_7b", "gemma2_9b", "mixtral_8x7b", "qwen3_30b_a3b",
              "mpt_7b", "gptj_6b", "falcon_7b"):
        yield n + "_2048", (lambda n=n: decoder(n))
    for n in sorted(hf_zoo.FAMILIES):
        if hf_zoo.FAMILIES[n]["cls"] == "causal":
            yield "gen_" + n, (lambda n=n: _generation(*hf_zoo.build(n), 4))

    def llama3_8b_decode():
        model, _ = llama3_8b()
        return _generation(model, {"input_ids": torch.zeros(
            1, 16, dtype=torch.long)}, 2048 - 16 + 2, [2048 - 16])
    yield "gen_llama3_8b", llama3_8b_decode


class _Generation:
    """A model whose reports are those of nnscan.profile_generate."""

    def __init__(self, model, inputs, new_tokens, steps):
        self.model, self.inputs = model, inputs
        self.new_tokens, self.steps = new_tokens, steps


def _generation(model, inputs, new_tokens, steps=None):
    return _Generation(model, inputs, new_tokens,
                       steps or list(range(new_tokens - 1))), None


def generation_reports(g):
    import json
    import nnscan
    out = {}
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        p = nnscan.profile_generate(g.model, inputs=g.inputs,
                                    max_new_tokens=g.new_tokens,
                                    steps=g.steps)
        out["gen_txt"] = p.to_text(numbers="raw")
        out["gen_json"] = json.dumps(p.json, indent=1, sort_keys=True)
        for past, s in sorted(p.decode.items()):
            out[f"step{past}_json2"] = s.to_json(version=2)
    out["warn"] = "".join(f"{x.category.__name__}: {x.message}\n" for x in w)
    return out


# --warm [N]: each model summarised N times (1) before the reports are
# made, so they come from a process that has recorded it (module_replay.
# py's templates kept for the process: a layer alike to none replays
# from the third summary, N=2; layer_groups.py's architectures)
WARM = 0


def reports(model, inputs):
    import nnscan
    out = {}
    for _ in range(WARM):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            nnscan.summary(model, inputs=inputs, file=False)
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        s = nnscan.summary(model, inputs=inputs, columns=COLUMNS, file=False)
        out["txt"] = s.to_text()
        out["json1"] = s.to_json(version=1)
        out["json2"] = s.to_json(version=2)
        r = nnscan.summary(model, inputs=inputs, hardware="h100-sxm",
                           file=False)
        out["roof"] = r.to_text()
    out["warn"] = "".join(f"{x.category.__name__}: {x.message}\n" for x in w)
    return out


def save(d, only, skip):
    os.makedirs(d, exist_ok=True)
    for name, make in list(torchvision_models(skip)) + list(hf_models()):
        if only and name not in only and name[3:] not in only:
            continue
        try:
            model, inputs = make()
            got = generation_reports(model) \
                if isinstance(model, _Generation) else reports(model, inputs)
        except Exception as e:  # noqa: BLE001 - written, and compared
            got = {"error": f"{type(e).__name__}: {e}\n"}
        for form, text in got.items():
            with open(os.path.join(d, f"{name}.{form}"), "w") as f:
                f.write(text)
        print(name, "error" if "error" in got else "ok", flush=True)


def compare(a, b):
    names = sorted(set(os.listdir(a)) | set(os.listdir(b)))
    bad = 0
    for n in names:
        pa, pb = os.path.join(a, n), os.path.join(b, n)
        if not (os.path.exists(pa) and os.path.exists(pb)):
            print("missing on one side:", n)
            bad += 1
            continue
        with open(pa, "rb") as fa, open(pb, "rb") as fb:
            if fa.read() != fb.read():
                print("differs:", n)
                bad += 1
    print(f"{len(names)} files compared: {bad} differ")
    return 1 if bad else 0


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--save", metavar="DIR")
    ap.add_argument("--compare", nargs=2, metavar=("BEFORE", "AFTER"))
    ap.add_argument("--models", default="",
                    help="comma-separated names (default: all)")
    ap.add_argument("--skip", default=",".join(SKIP))
    ap.add_argument("--hf-layers", type=int, default=0, metavar="N",
                    help="the HF families built with N layers (each "
                    "layer-count field of hf_zoo.TINY), not two: deep "
                    "enough for module_replay.py to replay layers")
    ap.add_argument("--warm", type=int, nargs="?", const=1, default=0,
                    metavar="N",
                    help="summarise each model N times (1) first: the "
                    "reports then come from a process that recorded it "
                    "before (templates kept for the process)")
    a = ap.parse_args()
    global WARM
    WARM = a.warm
    if a.hf_layers:
        sys.path.insert(0, os.path.join(ROOT, "python", "tests_hf"))
        try:
            import hf_zoo
        except ImportError:
            pass
        else:
            for k in LAYER_FIELDS:
                if k in hf_zoo.TINY:
                    hf_zoo.TINY[k] = a.hf_layers
    if a.compare:
        sys.exit(compare(*a.compare))
    if not a.save:
        ap.error("give --save DIR or --compare BEFORE AFTER")
    import torch
    torch.set_num_threads(2)
    save(a.save, set(filter(None, a.models.split(","))),
         set(filter(None, a.skip.split(","))))


if __name__ == "__main__":
    if os.environ.get("PYTHONHASHSEED") is None:
        # One string hash for every run: transformers registers some
        # buffers in a set's order (ModernBERT's rotary inv_freq buffers:
        # list(set(config.layer_types))), so two processes can build the
        # same model with its buffers in another order, and a report
        # lists them as the model has them.
        os.environ["PYTHONHASHSEED"] = "0"
        os.execv(sys.executable, [sys.executable] + sys.argv)
    main()
