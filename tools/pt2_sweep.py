"""Exports models with torch.export and compares `nnscan summary X.pt2`
(the C reader, no Python) with nnscan.summary of the same live model,
and both with PyTorch itself. A survey, not a test (the tests are
python/tests/test_pt2*.py):

    /work/sidrun . 'PYTHONPATH=python python3 tools/pt2_sweep.py DIR \\
        [--results FILE] [--static-only] [--before CLI] [NAME...]'

NAME is a torchvision classifier (its constructor's name, random
weights), "hf:FAMILY" for a python/tests_hf/hf_zoo.py family (its tiny
config, random weights), or "hf-llama" / "hf-gpt2" / "hf-qwen2" (the
decoders test_pt2.py uses). With no NAME: every torchvision classifier
but SKIP, then every hf_zoo family.

Each model is exported twice: static (its example inputs) and dynamic
(batch a torch.export.Dim, and for text inputs the sequence too;
exported at batch 2, read and run at batch 3 and, for a dynamic
sequence, 12 tokens, a decoder's 6). For each the sweep compares:
  - every total of the JSON v2 report (`--format json --json-version 2`,
    `--input name=dims` at the live sizes) with
    nnscan.summary(model, inputs=..., file=False).to_json(version=2):
    params, buffers, flops, macs, dmas, activations, memory, training
    estimate, every number, and every op-type row;
  - params with sum(p.numel()) (unique parameters);
  - the matrix products' MACs (MatMul, Gemm, Conv, ConvTranspose, Einsum)
    with torch.utils.flop_counter.FlopCounterMode on a meta copy (for
    mixture-of-experts, hf_zoo.reference: the same products as bmm).
One JSON line per (model, mode) goes to --results (default
DIR/results.jsonl; rows already there are kept, not rerun), and a
table of every mismatch is printed at the end. Needs PyTorch 2.x;
NNSCAN_LIBRARY's folder holds the CLI.
"""
import copy
import json
import os
import subprocess
import sys
import time

import torch

import nnscan

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "python", "tests_hf"))

# torchvision classifiers left out for time (over 200 M parameters: a
# random init, an export and a save of each take minutes on 2 cores)
SKIP = ("vit_h_14", "vit_l_16", "vit_l_32", "regnet_y_128gf")

MATMUL_OPS = ("MatMul", "Gemm", "Conv", "ConvTranspose", "Einsum",
              "FusedMatMul")
BATCH, SEQ, DEC_SEQ = 3, 12, 6       # the sizes a dynamic archive is read at


def hf(name):
    """The decoders python/tests/test_pt2.py::test_hf_decoder exports."""
    import transformers as t
    if name == "hf-llama":
        cfg = t.LlamaConfig(vocab_size=128, hidden_size=64,
                            intermediate_size=128, num_hidden_layers=2,
                            num_attention_heads=4, num_key_value_heads=4)
        m = t.LlamaForCausalLM(cfg)
    elif name == "hf-qwen2":
        cfg = t.Qwen2Config(vocab_size=128, hidden_size=64,
                            intermediate_size=128, num_hidden_layers=2,
                            num_attention_heads=4, num_key_value_heads=2)
        m = t.Qwen2ForCausalLM(cfg)
    else:
        cfg = t.GPT2Config(vocab_size=128, n_embd=64, n_layer=2, n_head=4)
        m = t.GPT2LMHeadModel(cfg)
    m.config.use_cache = False
    return m.eval(), (torch.randint(0, 128, (1, 16)),)


def torchvision_names():
    import torchvision.models as tm
    return [n for n in tm.list_models(module=tm) if n not in SKIP]


def hf_names():
    import hf_zoo
    return ["hf:" + n for n in hf_zoo.FAMILIES]


class Case:
    """A model, its inputs by name and which of their dims may vary."""

    def __init__(self, name):
        self.name = name
        self.moe = False
        if name.startswith("hf:"):
            import hf_zoo
            fam = name[3:]
            self.model, self.inputs = hf_zoo.build(fam, device="cpu")
            self.model.config.use_cache = False  # no cache object out
            self.hf = True
            kind = hf_zoo.FAMILIES[fam].get("inputs", "text")
            self.dyn = {k: {0: "batch"} for k in self.inputs}
            if kind in ("text", "seq2seq", "text+image"):
                self.dyn["input_ids"][1] = "seq"
            if "decoder_input_ids" in self.inputs:
                self.dyn["decoder_input_ids"][1] = "dec_seq"
            self.moe = hf_zoo.experts_implementation(self.model) is not None
        elif name.startswith("hf-"):
            m, args = hf(name)
            self.model, self.inputs, self.hf = m, {"input_ids": args[0]}, True
            self.dyn = {"input_ids": {0: "batch", 1: "seq"}}
        else:
            import torchvision
            self.model = getattr(torchvision.models, name)(weights=None)
            self.model.eval()
            self.inputs = {"x": torch.randn(1, 3, 224, 224)}
            self.hf = False
            self.dyn = {"x": {0: "batch"}}

    def sized(self, batch, seq=None, dec=None):
        """The inputs at another batch (and sequence) size."""
        out = {}
        for k, v in self.inputs.items():
            shape = list(v.shape)
            shape[0] = batch
            d = self.dyn[k]
            if 1 in d and d[1] == "seq" and seq:
                shape[1] = seq
            if 1 in d and d[1] == "dec_seq" and dec:
                shape[1] = dec
            if v.dtype.is_floating_point:
                out[k] = torch.randn(shape, dtype=v.dtype)
            else:
                out[k] = torch.zeros(shape, dtype=v.dtype)
        return out

    def call(self, model, inputs):
        if self.hf:
            return model(**inputs)
        return model(*inputs.values())

    def export(self, inputs, dynamic, seq=True):
        dyn = None
        if dynamic:
            dims = {}
            for nm, lo, hi in (("batch", 1, 64), ("seq", 2, 16),
                               ("dec_seq", 2, 8)):
                dims[nm] = torch.export.Dim(nm, min=lo, max=hi)
            dyn = {k: {a: dims[n] for a, n in d.items()
                       if seq or n == "batch"}
                   for k, d in self.dyn.items()}
        with torch.no_grad():
            if self.hf:
                return torch.export.export(self.model, (), kwargs=inputs,
                                           dynamic_shapes=dyn)
            return torch.export.export(self.model, tuple(inputs.values()),
                                       dynamic_shapes=None if dyn is None
                                       else tuple(dyn.values()))


def live_live(case, inputs):
    """nnscan.summary of the live model, JSON v2."""
    s = nnscan.summary(case.model, inputs=inputs if case.hf
                       else tuple(inputs.values()), file=False)
    return json.loads(s.to_json(version=2))


def reference(case, inputs):
    """PyTorch's figures: (sum(numel) of the unique parameters that
    require grad: the report's params, frozen ones apart; matrix-product
    MACs by FlopCounterMode on a meta copy)."""
    from torch.utils.flop_counter import FlopCounterMode
    params = sum(p.numel() for p in case.model.parameters()
                 if p.requires_grad)
    meta = copy.deepcopy(case.model).to("meta")
    minp = {k: v.to("meta") for k, v in inputs.items()}
    if case.hf:
        import hf_zoo
        # with a cache transformers skips its packed-sequence check, which
        # asks a value (an .item()) a meta tensor has not; same products
        if hasattr(meta, "config"):
            meta.config.use_cache = True
        return params, hf_zoo.reference(meta, inputs)[1]
    with torch.no_grad(), FlopCounterMode(display=False) as fc:
        case.call(meta, minp)
    return params, fc.get_total_flops() // 2


def program(ep):
    """ep's graph as a module to run live: ep.module(), whose train()
    and eval() refuse (it stays as exported), made to take them."""
    gm = ep.module()
    gm.train = lambda mode=True: gm
    gm.eval = lambda: gm
    return gm


def user_inputs(ep):
    from torch.export.graph_signature import InputKind
    return [s.arg.name for s in ep.graph_signature.input_specs
            if s.kind == InputKind.USER_INPUT]


def cli(exe, path, names, inputs, fix):
    cmd = [exe, "summary", path, "--format", "json", "--json-version", "2"]
    if fix:
        for n, v in zip(names, inputs.values()):
            cmd += ["--input", n + "=" + "x".join(str(d) for d in v.shape)]
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode:
        raise RuntimeError(f"CLI exit {r.returncode}: {r.stderr.strip()}")
    return json.loads(r.stdout)


def flat(x, pre=""):
    """Every number (and bool) under x, by dotted path; lists by their
    length (memory's per-node series follow each side's node order)."""
    out = {}
    if isinstance(x, dict):
        for k, v in x.items():
            out.update(flat(v, f"{pre}{k}."))
    elif isinstance(x, list):
        out[pre + "len"] = len(x)
    elif isinstance(x, (int, float, bool)) or x is None:
        out[pre[:-1]] = x
    return out


# names of nodes (peak_node) differ by construction: the recorder names
# nodes after its ONNX lowering, the reader after torch.export's nodes
NAMES = ("peak_node",)


def compare(doc, live):
    """[(what, pt2, live)] for every total and op-type figure that
    differs."""
    diffs = []
    for sect in ("totals", "memory"):
        a = flat(doc.get(sect, {}))
        b = flat(live.get(sect, {}))
        for k in sorted(set(a) | set(b)):
            if k.split(".")[-1] in NAMES:
                continue
            if a.get(k) != b.get(k):
                diffs.append((f"{sect}.{k}", a.get(k), b.get(k)))
    rows = lambda d: {(r["domain"], r["op_type"]): r for r in d["op_types"]}
    ra, rb = rows(doc), rows(live)
    for key in sorted(set(ra) | set(rb)):
        op = key[1] if not key[0] else f"{key[0]}.{key[1]}"
        if key not in ra or key not in rb:
            r = ra.get(key) or rb[key]
            diffs.append((f"op {op}", "present" if key in ra else "-",
                          "present" if key in rb else "-")
                         if r["nodes"] else None)
            continue
        a, b = flat(ra[key]), flat(rb[key])
        for k in sorted(set(a) | set(b)):
            if a.get(k) != b.get(k):
                diffs.append((f"op {op}.{k}", a.get(k), b.get(k)))
    for sect in ("uncounted_ops", "unknown_ops"):
        if doc.get(sect):
            diffs.append((sect, [u.get("op_type") for u in doc[sect]],
                          [u.get("op_type") for u in live.get(sect, [])]))
    return [d for d in diffs if d]


def run_one(case, mode, exe, out, before=None):
    """One (model, mode) row; `before`: another CLI read on the same
    archive, its differences kept as diffs_before (a fix's before and
    after from one export and one live run)."""
    t0 = time.time()
    row = {"model": case.name, "mode": mode}
    dynamic = mode == "dynamic"
    if dynamic:
        ex = case.sized(2)
        try:
            ep = case.export(ex, True)
        except Exception as e:  # noqa: BLE001 - the refusal is the result
            row["seq_refused"] = f"{type(e).__name__}: {str(e)[:300]}"
            ep = case.export(ex, True, seq=False)
        seq = "seq_refused" not in row
        at = case.sized(BATCH, SEQ if seq else None, DEC_SEQ if seq else None)
    else:
        at = case.inputs
        ep = case.export(at, False)
    path = os.path.join(out, f"{case.name.replace(':', '_')}-{mode}.pt2")
    torch.export.save(ep, path)
    names = user_inputs(ep)
    try:
        doc = cli(exe, path, names, at, dynamic)
        old = None
        if before:
            try:
                old = cli(before, path, names, at, dynamic)
            except RuntimeError as e:  # the before CLI refused it
                row["diffs_before"] = [("CLI failed", str(e)[:200], "")]
    finally:
        os.remove(path)
    live = live_live(case, at)
    diffs = compare(doc, live)
    if old is not None:
        row["diffs_before"] = compare(old, live)
        if "params" in old["totals"]["metrics"]:
            row["params_before"] = old["totals"]["metrics"]["params"].get(
                "value")
        row["macs_matmul_before"] = sum(
            r["macs"] for r in old["op_types"] if r["op_type"] in MATMUL_OPS)
    if diffs:
        # the exported program itself, run live (ep.module(): the aten
        # ops the archive holds, run eagerly and recorded): where the .pt2
        # equals it, the difference is the program torch.export traced
        # (tools/pt2_opdiff.py names its ops), not a lowering of ours
        same = Case.__new__(Case)
        same.__dict__.update(case.__dict__, model=program(ep))
        try:
            row["vs_program"] = compare(doc, live_live(same, at))
        except Exception as e:  # noqa: BLE001
            row["vs_program"] = [("ep.module() not recorded",
                                  f"{type(e).__name__}: {str(e)[:200]}",
                                  "")]
    del ep
    params, ref_macs = reference(case, at)
    got = doc["totals"]["metrics"]["params"].get("value")
    if got != params:
        diffs.append(("params vs sum(numel)", got, params, "ref"))
    frozen = sum(p.numel() for p in case.model.parameters()
                 if not p.requires_grad)
    got = doc["totals"]["metrics"].get("frozen", {}).get("value", 0)
    if got != frozen:
        diffs.append(("frozen vs sum(numel)", got, frozen, "ref"))
    macs = sum(r["macs"] for r in doc["op_types"]
               if r["op_type"] in MATMUL_OPS)
    if macs != ref_macs:
        diffs.append(("matmul MACs vs FlopCounterMode", macs, ref_macs,
                      "ref"))
    if old is not None:
        if row.pop("params_before", params) != params:
            row["diffs_before"].append(("params vs sum(numel)",
                                        old["totals"]["metrics"]["params"]
                                        .get("value"), params, "ref"))
        mb = row.pop("macs_matmul_before")
        if mb != ref_macs:
            row["diffs_before"].append(("matmul MACs vs FlopCounterMode",
                                        mb, ref_macs, "ref"))
    row["diffs"] = diffs
    row["params"] = params
    row["macs"] = doc["totals"]["metrics"]["macs"].get("value")
    row["secs"] = round(time.time() - t0, 1)
    return row


def table(rows):
    print(f"\n{'model':28s} {'mode':8s} result")
    for r in rows:
        head = f"{r['model']:28s} {r['mode']:8s} "
        if "error" in r:
            print(head + "ERROR " + r["error"])
            continue
        note = " (sequence dim refused: batch only)" \
            if r.get("seq_refused") else ""
        if not r["diffs"]:
            print(head + "match" + note)
            continue
        if "diffs_before" in r:
            db = r["diffs_before"]
            print(head + "before the fixes: " +
                  (f"{len(db)} differ" if db else "match"))
            for what, a, b, *ref in db:
                print(f"{'':38s}{what}: pt2 {a} / {(ref or ['live'])[0]} {b}")
        prog = r.get("vs_program")
        if prog == []:
            note += "; equal to the exported program run live " \
                "(ep.module()): torch.export traced another program"
        print(head + f"{len(r['diffs'])} differ" + note)
        for what, a, b, *ref in r["diffs"]:
            print(f"{'':38s}{what}: pt2 {a} / {(ref or ['live'])[0]} {b}")
        if prog:
            print(f"{'':38s}-- and against ep.module() run live:")
            for what, a, b, *ref in prog:
                print(f"{'':38s}{what}: pt2 {a} / program {b}")


def main():
    argv = sys.argv[1:]
    out = argv.pop(0)
    results = os.path.join(out, "results.jsonl")
    static_only = False
    before = None
    names = []
    while argv:
        a = argv.pop(0)
        if a == "--results":
            results = argv.pop(0)
        elif a == "--before":
            before = argv.pop(0)
        elif a == "--static-only":
            static_only = True
        else:
            names.append(a)
    names = names or torchvision_names() + hf_names()
    exe = os.path.join(os.path.dirname(os.environ["NNSCAN_LIBRARY"]),
                       "nnscan")
    os.makedirs(out, exist_ok=True)
    done = {}
    if os.path.exists(results):
        for line in open(results):
            r = json.loads(line)
            done[(r["model"], r["mode"])] = r
    modes = ("static",) if static_only else ("static", "dynamic")
    rows = []
    for name in names:
        todo = [m for m in modes if (name, m) not in done]
        case = None
        for mode in modes:
            if mode not in todo:
                rows.append(done[(name, mode)])
                continue
            try:
                torch.manual_seed(0)
                case = case or Case(name)
                row = run_one(case, mode, exe, out, before)
            except Exception as e:  # noqa: BLE001 - a survey goes on
                row = {"model": name, "mode": mode,
                       "error": f"{type(e).__name__}: {str(e)[:300]}"}
            rows.append(row)
            with open(results, "a") as f:
                f.write(json.dumps(row) + "\n")
            table([row])
            sys.stdout.flush()
    print("\n=== sweep ===")
    table(rows)


if __name__ == "__main__":
    main()
