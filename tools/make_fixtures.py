#!/usr/bin/python3
"""Regenerate nnscan's ONNX model fixtures and their PyTorch references.

How to run (from anywhere; paths are relative to this file):

    /usr/bin/python3 tools/make_fixtures.py                 # every model
    /usr/bin/python3 tools/make_fixtures.py resnet18 vit_b_16   # a subset
    /usr/bin/python3 tools/make_fixtures.py --list          # model names

One export at another input size, into a given path (no reference, no
manifest entry; same export code, seed and graph-only saving):

    /usr/bin/python3 tools/make_fixtures.py swin_t --opset 17 --variant fold \
        --size 256 --export tests/fixtures/rf/swin_t_256_op17_fold.onnx

Needs torch 1.13 + torchvision 0.14 + onnx 1.12 (Debian's python3-torch,
python3-torchvision, python3-onnx for /usr/bin/python3). No network access:
every model is randomly initialised (weights=None) after torch.manual_seed(0),
so the output is deterministic for a given torch/torchvision build.

The test suite NEVER needs PyTorch: it only reads what this script wrote
and is committed under tests/fixtures/models/:

  <model>_op<opset>_<nofold|fold>.onnx
      The exported graph, with every initializer moved to external data
      (location "<model>_op<opset>_<variant>.weights", offset, length) and
      the weights file then deleted. Each TensorProto keeps name, dims and
      dtype, so nnscan can count parameters without the weights.
        nofold: training=TrainingMode.PRESERVE (model in eval mode),
                do_constant_folding=False -> BatchNormalization nodes kept.
        fold:   training=TrainingMode.EVAL, do_constant_folding=True
                (BatchNorm folded into the preceding Conv where possible).
      Input "input" (1x3x224x224, 299x299 for inception_v3), output "output",
      PyTorch's scoped node names ("/layer1/layer1.0/conv1/Conv").
  <model>.ref.json
      Reference figures measured in PyTorch (forward hooks on every module
      during one eval forward pass on the fixed input; used parameters found
      by a separate forward+backward pass): input/output shapes, per-module
      output shapes, used params and BatchNorm buffers, totals, tied params.
  exports.json
      One entry per model/opset/variant: ok or skipped (with the reason),
      node/initializer counts, op types, file size.

Model/opset combinations that torch 1.13 cannot export are skipped, logged,
and recorded in exports.json with the exporter's error message.
"""

import argparse
import io
import json
import os
import shutil
import sys
import tempfile
import time
import warnings

import onnx
import torch
import torchvision
from onnx import external_data_helper

HERE = os.path.dirname(os.path.abspath(__file__))
OUT_DIR = os.path.normpath(os.path.join(HERE, "..", "tests", "fixtures", "models"))
MANIFEST = "exports.json"

SEED = 0
OPSETS = (11, 13, 17)
VARIANTS = ("nofold", "fold")

# name -> (constructor kwargs besides weights=None, input height/width)
MODELS = {
    "alexnet": ({}, 224),
    "vgg11": ({}, 224),
    "vgg13": ({}, 224),
    "vgg16": ({}, 224),
    "vgg19": ({}, 224),
    "resnet18": ({}, 224),
    "resnet50": ({}, 224),
    "googlenet": ({"aux_logits": False, "init_weights": True}, 224),
    "inception_v3": ({"aux_logits": False, "init_weights": True}, 299),
    "densenet121": ({}, 224),
    "mobilenet_v2": ({}, 224),
    "efficientnet_b0": ({}, 224),
    "vit_b_16": ({}, 224),
    "convnext_tiny": ({}, 224),
    "swin_t": ({}, 224),
    # Networks after 2017 whose receptive field needs spatial axes tracked
    # through squeeze-excitation, channel shuffle and channels-last blocks
    # (issue 7; tools/rf_reference.py).
    "mobilenet_v3_large": ({}, 224),
    "regnet_y_400mf": ({}, 224),
    "shufflenet_v2_x1_0": ({}, 224),
}

BN_TYPES = (torch.nn.modules.batchnorm._BatchNorm,)


def build(name, size=None):
    """The model in eval mode and its fixed input, both from seed SEED
    (input size x size pixels; default: the model's size in MODELS)."""
    kwargs, hw = MODELS[name]
    hw = size or hw
    torch.manual_seed(SEED)
    model = getattr(torchvision.models, name)(weights=None, **kwargs).eval()
    gen = torch.Generator().manual_seed(SEED)
    x = torch.randn(1, 3, hw, hw, generator=gen)
    return model, x


# ---------------------------------------------------------------- reference

def _tensor_shapes(out, acc):
    """Append the shape of every tensor in a (nested) module output."""
    if isinstance(out, torch.Tensor):
        acc.append(list(out.shape))
    elif isinstance(out, (list, tuple)):  # includes namedtuples
        for o in out:
            _tensor_shapes(o, acc)
    elif isinstance(out, dict):
        for o in out.values():
            _tensor_shapes(o, acc)
    return acc


def reference(name, model, x):
    named = list(model.named_modules())  # includes the root ""
    calls = {id(m): 0 for _, m in named}
    shapes = {id(m): [] for _, m in named}

    def hook(mod, _inp, out):
        calls[id(mod)] += 1
        _tensor_shapes(out, shapes[id(mod)])

    handles = [m.register_forward_hook(hook) for _, m in named]
    try:
        with torch.no_grad():
            y = model(x)
    finally:
        for h in handles:
            h.remove()

    # Used parameters: a separate pass with grads, still in eval mode.
    model.zero_grad(set_to_none=True)
    for p in model.parameters():
        p.grad = None
    with torch.enable_grad():
        y2 = model(x)
        y2.sum().backward()
    used = {id(p) for p in model.parameters() if p.grad is not None}
    model.zero_grad(set_to_none=True)

    def bn_buffers(bn):
        return bn.running_mean.numel() + bn.running_var.numel()

    modules = []
    for mname, mod in named:
        params = sum(p.numel() for p in mod.parameters() if id(p) in used)
        buffers = sum(bn_buffers(sub) for sub in mod.modules()
                      if isinstance(sub, BN_TYPES) and calls[id(sub)] > 0
                      and sub.running_mean is not None)
        modules.append({
            "name": mname,
            "type": type(mod).__name__,
            "depth": 0 if mname == "" else len(mname.split(".")),
            "calls": calls[id(mod)],
            "output_shapes": shapes[id(mod)],
            "params": params,
            "buffers": buffers,
        })

    # Tied parameters: names that share storage.
    groups = {}
    # (torch 1.13's named_parameters() has no remove_duplicate argument)
    all_params = [
        (mname + ("." if mname else "") + pn, p)
        for mname, mod in model.named_modules(remove_duplicate=False)
        for pn, p in mod._parameters.items() if p is not None
    ]
    for pname, p in all_params:
        key = (p.storage().data_ptr(), p.storage_offset(), tuple(p.shape))
        groups.setdefault(key, []).append(pname)
    tied = [names for names in groups.values() if len(names) > 1]

    unused = [n for n, p in model.named_parameters() if id(p) not in used]
    other_buffers = [
        {"name": n, "shape": list(b.shape), "dtype": str(b.dtype).replace("torch.", "")}
        for n, b in model.named_buffers()
        if not n.endswith(("running_mean", "running_var", "num_batches_tracked"))
    ]

    root = modules[0]
    return {
        "model": name,
        "torch_version": torch.__version__,
        "torchvision_version": torchvision.__version__,
        "seed": SEED,
        "constructor_kwargs": dict(MODELS[name][0], weights=None),
        "input_shape": list(x.shape),
        "output_shape": list(y.shape),
        "total_params_used": root["params"],
        "total_buffers_used": root["buffers"],
        "total_params_all": sum(p.numel() for p in model.parameters()),
        "unused_params": unused,
        "tied_params": tied,
        "other_buffers": other_buffers,
        "modules": modules,
    }


def write_ref(path, ref):
    """JSON with one line per module, so diffs stay readable."""
    head = {k: v for k, v in ref.items() if k != "modules"}
    lines = ["{"]
    for k, v in head.items():
        lines.append("  %s: %s," % (json.dumps(k), json.dumps(v)))
    lines.append('  "modules": [')
    mods = [json.dumps(m, separators=(", ", ": ")) for m in ref["modules"]]
    lines.append(",\n".join("    " + m for m in mods))
    lines.append("  ]")
    lines.append("}")
    text = "\n".join(lines) + "\n"
    json.loads(text)  # sanity
    with open(path, "w") as f:
        f.write(text)


# ------------------------------------------------------------------- export

def export_one(model, x, opset, variant):
    """Export to an in-memory ONNX ModelProto (weights inline)."""
    if variant == "nofold":
        training, fold = torch.onnx.TrainingMode.PRESERVE, False
    else:
        training, fold = torch.onnx.TrainingMode.EVAL, True
    buf = io.BytesIO()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch.onnx.export(
            model, (x,), buf,
            opset_version=opset,
            training=training,
            do_constant_folding=fold,
            input_names=["input"],
            output_names=["output"],
            export_modules_as_functions=False,
        )
    return onnx.load_from_string(buf.getvalue())


def save_graph_only(proto, dest):
    """Move every initializer to external data, save, drop the weights."""
    stem = os.path.splitext(os.path.basename(dest))[0]
    weights = stem + ".weights"
    external_data_helper.convert_model_to_external_data(
        proto, all_tensors_to_one_file=True, location=weights, size_threshold=0)
    with tempfile.TemporaryDirectory(prefix="nnscan_fx_") as tmp:
        onnx.save(proto, os.path.join(tmp, stem + ".onnx"))
        # The checker insists that an external data file exists, so check
        # here, while it still does (path form: resolved next to the model).
        onnx.checker.check_model(os.path.join(tmp, stem + ".onnx"), full_check=False)
        os.remove(os.path.join(tmp, weights))  # the fixture is graph-only
        shutil.move(os.path.join(tmp, stem + ".onnx"), dest)


def verify(path):
    """Load the graph-only file without external data; return a summary.

    (onnx.checker was run in save_graph_only while the weights existed;
    on the graph-only file it fails only because the weights are missing.)
    """
    m = onnx.load(path, load_external_data=False)
    g = m.graph
    for t in g.initializer:
        if t.data_location != onnx.TensorProto.EXTERNAL or t.HasField("raw_data"):
            raise RuntimeError("initializer %s is not external" % t.name)
        keys = {e.key for e in t.external_data}
        if not {"location", "offset", "length"} <= keys:
            raise RuntimeError("initializer %s lacks external_data keys" % t.name)
    names = [n.name for n in g.node]
    scoped = sum(1 for n in names if n.startswith("/"))
    return {
        "nodes": len(g.node),
        "initializers": len(g.initializer),
        "scoped_node_names": scoped,
        "op_types": sorted({n.op_type for n in g.node}),
        "opset": [o.version for o in m.opset_import if o.domain in ("", "ai.onnx")][0],
        "bytes": os.path.getsize(path),
    }


def short_error(exc):
    msg = str(exc).strip().splitlines()
    msg = [l for l in msg if l.strip()]
    return "%s: %s" % (type(exc).__name__, msg[0] if msg else "")


def export_fixture(name, opset, variant, dest, size=None):
    """One graph-only export of model `name` (opset, variant, input size x
    size, default its size in MODELS) into `dest`; returns verify()'s
    summary. No reference and no manifest entry."""
    t0 = time.time()
    model, x = build(name, size)
    proto = export_one(model, x, opset, variant)
    os.makedirs(os.path.dirname(os.path.abspath(dest)), exist_ok=True)
    save_graph_only(proto, dest)
    del proto
    info = verify(dest)
    print("%-16s op%-2d %-6s %dx%d ok  nodes=%-5d inits=%-4d scoped=%-5d "
          "%8.1f KB (%.1fs) -> %s"
          % (name, opset, variant, x.shape[2], x.shape[3], info["nodes"],
             info["initializers"], info["scoped_node_names"],
             info["bytes"] / 1024.0, time.time() - t0, dest), flush=True)
    return info


def run_model(name, manifest):
    t0 = time.time()
    model, x = build(name)
    ref = reference(name, model, x)
    write_ref(os.path.join(OUT_DIR, name + ".ref.json"), ref)
    print("%-16s ref    params_used=%d buffers_used=%d params_all=%d modules=%d (%.1fs)"
          % (name, ref["total_params_used"], ref["total_buffers_used"],
             ref["total_params_all"], len(ref["modules"]), time.time() - t0),
          flush=True)

    for opset in OPSETS:
        for variant in VARIANTS:
            stem = "%s_op%d_%s" % (name, opset, variant)
            dest = os.path.join(OUT_DIR, stem + ".onnx")
            entry = {"file": stem + ".onnx", "model": name, "opset": opset,
                     "variant": variant}
            t0 = time.time()
            try:
                proto = export_one(model, x, opset, variant)
            except Exception as exc:  # noqa: BLE001 - logged and recorded
                if os.path.exists(dest):
                    os.remove(dest)
                entry.update(status="skipped", reason=short_error(exc))
                manifest[stem] = entry
                print("%-16s op%-2d %-6s SKIPPED %s" % (name, opset, variant,
                                                        entry["reason"]), flush=True)
                continue
            save_graph_only(proto, dest)
            del proto
            info = verify(dest)
            entry.update(status="ok", **info)
            manifest[stem] = entry
            print("%-16s op%-2d %-6s ok  nodes=%-5d inits=%-4d scoped=%-5d %8.1f KB (%.1fs)"
                  % (name, opset, variant, info["nodes"], info["initializers"],
                     info["scoped_node_names"], info["bytes"] / 1024.0,
                     time.time() - t0), flush=True)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("models", nargs="*", help="subset of models (default: all)")
    ap.add_argument("--list", action="store_true", help="list model names")
    ap.add_argument("--export", metavar="PATH",
                    help="export ONE model (one opset, one variant, --size) "
                         "graph-only to PATH, nothing else")
    ap.add_argument("--opset", type=int, default=17, help="with --export")
    ap.add_argument("--variant", choices=VARIANTS, default="fold",
                    help="with --export")
    ap.add_argument("--size", type=int, default=None,
                    help="with --export: input height and width (default: "
                         "the model's own)")
    args = ap.parse_args(argv)
    if args.list:
        print("\n".join(MODELS))
        return 0
    bad = [m for m in args.models if m not in MODELS]
    if bad:
        ap.error("unknown model(s): %s (see --list)" % ", ".join(bad))
    if args.export:
        if len(args.models) != 1:
            ap.error("--export takes exactly one model")
        torch.set_num_threads(max(1, os.cpu_count() or 1))
        export_fixture(args.models[0], args.opset, args.variant, args.export,
                       args.size)
        return 0
    if args.size is not None:
        ap.error("--size is only for --export")
    names = args.models or list(MODELS)

    torch.set_num_threads(max(1, os.cpu_count() or 1))
    os.makedirs(OUT_DIR, exist_ok=True)
    mpath = os.path.join(OUT_DIR, MANIFEST)
    manifest = {}
    if os.path.exists(mpath):
        with open(mpath) as f:
            manifest = {e["file"][:-len(".onnx")]: e for e in json.load(f)}

    t_all = time.time()
    for name in names:
        run_model(name, manifest)
        # keep the manifest current even if a later model crashes
        order = {n: i for i, n in enumerate(MODELS)}
        entries = sorted(manifest.values(), key=lambda e: (
            order.get(e["model"], 99), e["opset"], VARIANTS.index(e["variant"])))
        with open(mpath, "w") as f:
            f.write("[\n" + ",\n".join("  " + json.dumps(e) for e in entries) + "\n]\n")

    total = sum(os.path.getsize(os.path.join(OUT_DIR, f)) for f in os.listdir(OUT_DIR))
    print("done in %.0fs; %s holds %.2f MB" % (time.time() - t_all, OUT_DIR,
                                               total / 1048576.0))
    return 0


if __name__ == "__main__":
    sys.exit(main())
