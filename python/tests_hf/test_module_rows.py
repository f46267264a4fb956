"""The tree's Output Shape column against PyTorch's own forward hooks on
the same model run alone: "not called" for exactly the modules that never
ran (a ModuleList, a module a config leaves unused), and for every other
its first call's first output tensor. The "not called" cell was once kept
under the row before's shape, so the rows after a ModuleList read "not
called" (CLIP's text encoder, BiT's stages: the tables wrap their kept
shapes after eight); a module called on two shapes (LLaMA-4's qk_norm on
queries, then keys) showed its last call's, and CLIP's towers their
pooled output rather than their first."""
import csv
import io

import pytest
import torch

import hf_zoo
import nnscan

pytest.importorskip("transformers")


def _first_tensor(out):
    if isinstance(out, torch.Tensor):
        return out
    items = out.values() if isinstance(out, dict) else \
        out if isinstance(out, (tuple, list)) else ()
    for x in items:
        t = _first_tensor(x)
        if t is not None:
            return t
    return None


def _hooked(model, inputs):
    """{path: its first call's first output shape, as PyTorch returned
    it} for every module that ran."""
    first, hooks = {}, []

    def hook(mod, args, out, path):
        if path not in first:
            t = _first_tensor(out)
            first[path] = None if t is None else \
                "(" + ", ".join(str(d) for d in t.shape) + ")"
    for path, m in model.named_modules():
        hooks.append(m.register_forward_hook(
            lambda mod, args, out, path=path: hook(mod, args, out, path)))
    try:
        with torch.no_grad():
            model(**hf_zoo.to_meta(inputs))
    finally:
        for h in hooks:
            h.remove()
    return first


@pytest.mark.parametrize("family", ["clip", "bit", "t5", "whisper", "siglip",
                                    "llama4_text"])
def test_output_shape_column_is_what_pytorch_returned(family):
    model, inputs = hf_zoo.build(family)
    s = nnscan.summary(model, inputs=inputs, file=False)
    rows = list(csv.DictReader(io.StringIO(s.to_csv())))
    shown = {r["path"] for r in rows if r["path"]}
    said = {r["path"] for r in rows if r["output_shape"] == "not called"}
    first = _hooked(model, inputs)
    assert said == shown - set(first)
    assert said, "each of these models has a ModuleList that never runs"
    # a complex output is recorded in real form (docs/json.md, `output`)
    complex_out = {"model.rotary_emb"} if family == "llama4_text" else set()
    differ = [(r["path"], r["output_shape"], first[r["path"]]) for r in rows
              if r["path"] in first and r["path"] not in said | complex_out
              and first[r["path"]] is not None
              and r["output_shape"] != first[r["path"]]]
    assert not differ
