#!/usr/bin/python3
"""Whether the recorder's tape (python/nnscan/tape.py) keeps every Python
report byte for byte: each model recorded with the tape off (NNSCAN_TAPE=0,
every call through its ops_map.py rule) and on (the calls the library's
aten table lowers handed over as aten records), in two processes, and
every output compared: summary as text, CSV, Markdown, JSON v1 and v2 and
HTML; the training summary (one AdamW step on meta) as text and JSON v2;
the roofline (h100-sxm, bf16) as text and JSON v2.

    NNSCAN_LIBRARY=build/gcc/libnnscan.so /usr/bin/python3 bench/same_output_py.py
    ... --zoo torchvision            every torchvision classifier (default)
    ... --zoo hf                     python/tests_hf's families (transformers)
    ... --zoo torchvision,hf --models resnet18,llama

Prints each model and output that differs, the aten records the tape held
per model (so a run that put nothing on the tape shows it), then the
count; exits 1 when any output differs. Run it on PyTorch 1.13 (host) and
2.x (sid: /work/sidrun ... 'python3 bench/same_output_py.py --zoo
torchvision,hf').
"""
import argparse
import hashlib
import json
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def torchvision_models():
    import torchvision
    from torchvision import models
    names = models.list_models(module=models) \
        if hasattr(models, "list_models") else [
            n for n in dir(models) if n[0].islower() and
            callable(getattr(models, n)) and not n.startswith("get")]
    # 632 M and 645 M parameters: slow to build on a shared 2-core box
    skip = {"vit_h_14", "regnet_y_128gf"}
    return [n for n in sorted(names) if n not in skip]


def build(zoo, name):
    """(model, kwargs of summary's inputs) on meta where the zoo allows."""
    import torch
    if zoo == "torchvision":
        from torchvision import models
        fn = getattr(models, name)
        kw = {"weights": None} if "weights" in fn.__code__.co_varnames else {}
        m = None
        if hasattr(torch.device("meta"), "__enter__"):  # PyTorch 2.x
            try:
                with torch.device("meta"):
                    m = fn(**kw)
            except NotImplementedError:  # regnet reads a value it made
                m = None
        if m is None:  # on CPU, without the random fill of the weights
            with _no_init():
                m = fn(**kw)
        m.eval()
        size = 299 if name == "inception_v3" else 224
        return m, {"inputs": (torch.zeros(1, 3, size, size),)}
    sys.path.insert(0, os.path.join(ROOT, "python", "tests_hf"))
    import hf_zoo
    m, inputs = hf_zoo.build(name)
    return m, {"inputs": hf_zoo.to_meta(inputs)}


class _no_init:
    """torch.nn.init's fills as no-ops while a model is built (its values
    change no count)."""

    def __enter__(self):
        import torch
        self.saved = {}
        for n in dir(torch.nn.init):
            f = getattr(torch.nn.init, n)
            if callable(f) and n.endswith("_") and not n.startswith("_"):
                self.saved[n] = f
                setattr(torch.nn.init, n, lambda t, *a, **k: t)
        return self

    def __exit__(self, *a):
        import torch
        for n, f in self.saved.items():
            setattr(torch.nn.init, n, f)
        return False


def outputs(zoo, name):
    """Every report of one model: form -> sha256 of its text."""
    import nnscan
    from nnscan import graph
    held = []
    orig = graph.pack

    def pack(g):
        held.append(len(g.aten))
        return orig(g)
    graph.pack = pack
    out = {}

    def put(form, text):
        out[form] = hashlib.sha256(text.encode()).hexdigest()
    def reports(prefix, make, forms):
        try:
            r = make()
            for form, fn in forms:
                put(prefix + form, fn(r))
        except Exception as e:  # noqa: BLE001 - the failure is an output too
            out[prefix + "error"] = f"{type(e).__name__}: {e}"[:200]
    try:
        m, kw = build(zoo, name)
    except Exception as e:  # noqa: BLE001
        out["error"] = f"{type(e).__name__}: {e}"[:200]
        graph.pack = orig
        return out, held
    try:
        reports("", lambda: nnscan.summary(m, file=False, **kw), [
            ("text", lambda s: s.to_text()), ("csv", lambda s: s.to_csv()),
            ("md", lambda s: s.to_markdown()),
            ("json1", lambda s: s.to_json(version=1)),
            ("json2", lambda s: s.to_json(version=2)),
            ("html", lambda s: s.to_html())])
        reports("train.", lambda: nnscan.summary(
            m, file=False, training=True, optimizer="adamw", **kw), [
            ("text", lambda s: s.to_text()),
            ("json2", lambda s: s.to_json(version=2))])
        reports("roofline.", lambda: nnscan.summary(
            m, file=False, hardware="h100-sxm", compute_dtype="bf16", **kw), [
            ("text", lambda s: s.to_text()),
            ("json2", lambda s: s.to_json(version=2))])
    finally:
        graph.pack = orig
    return out, held


def child(zoo, names):
    res = {}
    for name in names:
        res[name] = outputs(zoo, name)
    json.dump(res, sys.stdout)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--zoo", default="torchvision")
    ap.add_argument("--models", default="")
    ap.add_argument("--child", nargs=2, help=argparse.SUPPRESS)
    a = ap.parse_args()
    if a.child:
        return child(a.child[0], a.child[1].split(","))
    wanted = [m for m in a.models.split(",") if m]
    total = differ = 0
    for zoo in a.zoo.split(","):
        if zoo == "torchvision":
            names = torchvision_models()
        else:
            sys.path.insert(0, os.path.join(ROOT, "python", "tests_hf"))
            import hf_zoo
            names = list(hf_zoo.FAMILIES)
        if wanted:
            names = [n for n in names if n in wanted]
        if not names:
            continue
        runs, procs = {}, {}
        for tape in ("0", "1"):  # both at once
            # one string hash for both (bench/same_summary.py says why)
            env = dict(os.environ, NNSCAN_TAPE=tape, PYTHONHASHSEED=os.environ.get(
                "PYTHONHASHSEED", "0"))
            procs[tape] = subprocess.Popen(
                [sys.executable, __file__, "--child", zoo, ",".join(names)],
                env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                text=True)
        for tape, p in procs.items():
            out, err = p.communicate()
            if p.returncode:
                sys.exit(f"{zoo} with NNSCAN_TAPE={tape} failed:\n"
                         f"{err[-3000:]}")
            runs[tape] = json.loads(out)
        for name in names:
            (off, _), (on, held) = runs["0"][name], runs["1"][name]
            forms = sorted(set(off) | set(on))
            bad = [f for f in forms if off.get(f) != on.get(f)]
            total += len(forms)
            differ += len(bad)
            errs = sorted({v for k, v in off.items() if k.endswith("error")})
            note = f" (failed in both: {'; '.join(errs)})" if errs else ""
            print(f"{zoo}/{name}: {len(forms)} outputs, "
                  f"aten records per recording {held}{note}" +
                  (f"; differ: {', '.join(bad)}" if bad else ""))
    print(f"{total} outputs compared, tape off against on: {differ} differ")
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main())
