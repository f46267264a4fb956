"""The Output Shape column says "not called" for exactly the modules that
never ran: a ModuleList, a module a config leaves unused. Reference:
PyTorch's own forward pre-hooks on the same model run alone. The cell
was once kept under the row before's shape, so the rows after a
ModuleList read "not called" (CLIP's text encoder, BiT's stages: the
tables wrap their kept shapes after eight)."""
import csv
import io

import pytest
import torch

import hf_zoo
import nnscan

pytest.importorskip("transformers")


def _called(model, inputs):
    ran, hooks = set(), []
    for path, m in model.named_modules():
        hooks.append(m.register_forward_pre_hook(
            lambda mod, args, path=path: ran.add(path)))
    try:
        with torch.no_grad():
            model(**hf_zoo.to_meta(inputs))
    finally:
        for h in hooks:
            h.remove()
    return ran


@pytest.mark.parametrize("family", ["clip", "bit", "t5", "whisper", "siglip"])
def test_not_called_exactly_where_no_call_ran(family):
    model, inputs = hf_zoo.build(family)
    s = nnscan.summary(model, inputs=inputs, file=False)
    rows = list(csv.DictReader(io.StringIO(s.to_csv())))
    shown = {r["path"] for r in rows if r["path"]}
    said = {r["path"] for r in rows if r["output_shape"] == "not called"}
    ran = _called(model, inputs)
    assert said == shown - ran
    assert said, "each of these models has a ModuleList that never runs"
