"""Issue 47, item 7: a wrong argument to a public entry point is a
TypeError or ValueError naming the call, the argument and what was given,
raised before anything runs (never an AttributeError or IndexError from
nnscan's insides); an unknown compute dtype is refused with or without
hardware; a failing loss, backward or optimizer step says which part
failed; a hardware file or saved report that is not UTF-8, too deep or
with a repeated key is refused naming the file and the byte. The expected
words are the issue's: the argument's name and the value given."""
import json
import os

import pytest
import torch
from torch import nn

import nnscan
from nnscan.compat import thop, thoplw, torchscan

TORCH2 = hasattr(torch.Tensor, "untyped_storage")


def mlp():
    return nn.Sequential(nn.Linear(4, 4), nn.ReLU(), nn.Linear(4, 3))


X = torch.randn(1, 4)
TINY = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..",
                    "tests", "cli", "tiny_cnn.onnx")


def summary(**kw):
    return nnscan.summary(**{"module": mlp(), "inputs": X, "file": False,
                             **kw})


# (call, error type, words the message must hold)
BAD = [
    (lambda: summary(module="abc"), TypeError,
     ["summary()", "module", "torch.nn.Module", "str 'abc'"]),
    (lambda: summary(max_depth="a"), TypeError, ["max_depth", "str 'a'"]),
    (lambda: summary(max_depth=1.5), TypeError, ["max_depth", "float 1.5"]),
    (lambda: summary(max_depth=-2), ValueError, ["max_depth", "-2"]),
    (lambda: summary(width="wide"), TypeError, ["width", "str 'wide'"]),
    (lambda: summary(columns=[1]), TypeError, ["columns", "int 1"]),
    (lambda: summary(columns=["nope"]), ValueError, ["columns", "'nope'"]),
    (lambda: summary(columns=7), TypeError, ["columns", "int 7"]),
    (lambda: summary(receptive_field="x"), TypeError,
     ["receptive_field", "str 'x'"]),
    (lambda: summary(training="yes"), TypeError, ["training", "str 'yes'"]),
    (lambda: summary(dtype=5), TypeError, ["dtype", "int 5"]),
    (lambda: summary(dtype="float32"), ValueError, ["dtype", "'float32'"]),
    (lambda: summary(compute_dtype="bf61"), ValueError,
     ["compute_dtype", "'bf61'", "bf16"]),
    (lambda: summary(compute_dtype=torch.bfloat16), TypeError,
     ["compute_dtype", "torch.bfloat16"]),
    (lambda: summary(hardware=5), TypeError, ["hardware", "int 5"]),
    (lambda: summary(hardware={"name": 3}), TypeError, ["'name'", "int 3"]),
    (lambda: summary(loss=5), TypeError, ["loss", "callable", "int 5"]),
    (lambda: nnscan.crawl_module("abc", inputs=X), TypeError,
     ["crawl_module()", "module", "str 'abc'"]),
    (lambda: nnscan.profile([1], inputs=X, verbose=False), TypeError,
     ["profile()", "model", "list [1]"]),
    (lambda: nnscan.profile(mlp(), inputs=X, custom_ops=5), TypeError,
     ["custom_ops", "int 5"]),
    (lambda: nnscan.profile(mlp(), inputs=X, custom_ops={"Linear": len}),
     TypeError, ["custom_ops", "module classes", "str 'Linear'"]),
    (lambda: nnscan.profile(mlp(), inputs=X, custom_ops={nn.Linear: 5}),
     TypeError, ["custom_ops[Linear]", "int 5"]),
    (lambda: nnscan.profile(mlp(), inputs=X, verbose=False,
                            custom_ops={nn.Linear: lambda *a: "x"}),
     TypeError, ["custom_ops[Linear] returned str 'x'"]),
    (lambda: nnscan.profile_generate("abc", inputs=X), TypeError,
     ["profile_generate()", "model", "str 'abc'"]),
    (lambda: nnscan.profile_generate(mlp(), inputs=torch.ones(1, 3).long(),
                                     max_new_tokens="a"), TypeError,
     ["max_new_tokens", "str 'a'"]),
    (lambda: nnscan.profile_generate(mlp(), inputs=torch.ones(1, 3).long(),
                                     max_new_tokens=0), ValueError,
     ["max_new_tokens", "0"]),
    (lambda: nnscan.profile_generate(mlp(), inputs=[1, 2]), TypeError,
     ["inputs", "list [1, 2]"]),
    (lambda: nnscan.profile_generate(mlp(), inputs={"x": X}), ValueError,
     ["input_ids", "none"]),
    (lambda: nnscan.Inspector("abc"), TypeError,
     ["Inspector()", "model", "str 'abc'"]),
    (lambda: nnscan.Inspector(mlp(), compute_dtype="bf61"), ValueError,
     ["compute_dtype", "'bf61'"]),
    (lambda: nnscan.analyze(5), TypeError, ["analyze()", "source", "int 5"]),
    (lambda: nnscan.analyze(TINY, input_shapes=[1]), TypeError,
     ["analyze()", "input_shapes", "list [1]"]),
    (lambda: nnscan.analyze(TINY, input_shapes={"x": "a"}), TypeError,
     ["input_shapes['x']", "str 'a'"]),
    (lambda: nnscan.analyze(TINY, batch="a"), TypeError, ["batch", "str 'a'"]),
    (lambda: nnscan.analyze(TINY, optimizer=5), TypeError,
     ["optimizer", "adamw", "int 5"]),
    (lambda: nnscan.analyze(TINY, columns=5), TypeError, ["columns", "int 5"]),
    (lambda: nnscan.analyze(TINY, name=5), TypeError, ["name", "int 5"]),
    (lambda: nnscan.analyze(TINY).to_text(width="a"), TypeError,
     ["width", "str 'a'"]),
    (lambda: nnscan.analyze(TINY).layer(5), TypeError,
     ["layer()", "path", "int 5"]),
    (lambda: nnscan.compare(TINY, TINY, budgets=5), TypeError,
     ["budgets", "int 5"]),
    (lambda: nnscan.clever_format(None), TypeError,
     ["clever_format", "NoneType None"]),
    (lambda: nnscan.Inspector(mlp(), watch_depth="a"), TypeError,
     ["watch_depth", "str 'a'"]),
    (lambda: nnscan.Inspector(mlp(), max_pending=0), ValueError,
     ["max_pending", "0"]),
    (lambda: nnscan.load_summary(5), TypeError,
     ["load_summary()", "source", "int 5"]),
    (lambda: nnscan.load_summary(b"[1, 2]"), TypeError, ["dict", "list"]),
    (lambda: nnscan.analyze(TINY, compute_dtype="fp4"), ValueError,
     ["analyze()", "compute_dtype", "'fp4'"]),
    (lambda: nnscan.hardware.devices(5), TypeError,
     ["devices()", "file", "int 5"]),
    (lambda: thop.profile("abc", inputs=(X,)), TypeError,
     ["thop.profile()", "model", "str 'abc'"]),
    (lambda: thop.profile(mlp(), inputs=(X,), custom_ops=[1]), TypeError,
     ["thop.profile()", "custom_ops", "list [1]"]),
    (lambda: thoplw.profile("abc", X), TypeError,
     ["thoplw.profile()", "model", "str 'abc'"]),
    (lambda: torchscan.summary("abc", (4,)), TypeError,
     ["torchscan.summary()", "module", "str 'abc'"]),
    (lambda: torchscan.crawl_module(None, (4,)), TypeError,
     ["torchscan.crawl_module()", "module", "NoneType None"]),
]


@pytest.mark.parametrize("k", range(len(BAD)))
def test_bad_argument_is_named(k, capsys):
    call, kind, words = BAD[k]
    with pytest.raises(kind) as e:
        call()
    assert type(e.value) is kind or isinstance(e.value, kind)
    for w in words:
        assert w in str(e.value), (w, str(e.value))


def test_good_arguments_still_work():
    """What the checks take: numpy-free bools as 0/1, a lone column name,
    a known compute dtype without hardware, a torch.dtype input dtype."""
    s = summary(columns="flops", receptive_field=0, max_depth=None)
    assert s.totals["params"] == sum(p.numel() for p in mlp().parameters())
    assert summary(compute_dtype="bf16").totals["macs"] == 4 * 4 + 4 * 3
    s = nnscan.summary(mlp(), (4,), dtype=torch.float32, file=False)
    assert s.totals["macs"] == 4 * 4 + 4 * 3


# ---- files that are not what they say ----

def test_latin1_hardware_file_names_file_and_byte(tmp_path):
    f = tmp_path / "lab.hw"
    f.write_bytes(b"[lab]\ndescription = Caf\xe9 card\nbandwidth = 1e12\n"
                  b"fp32 = 1e13\n")
    with pytest.raises(nnscan.NnscanError) as e:
        nnscan.hardware.devices(str(f))
    # "[lab]\n" is 6 bytes, "description = Caf" 17: the byte at offset 23
    assert "lab.hw: byte 23 (0xe9) is not UTF-8" in str(e.value)
    f.write_bytes(b"[lab]\ndescription = Caf\xc3\xa9 card\nbandwidth = 1e12\n"
                  b"fp32 = 1e13\n")
    assert nnscan.hardware.devices(f)[0]["description"] == "Caf\u00e9 card"


def _saved(tmp_path):
    s = summary()
    return s, json.dumps(s.json)


def test_load_summary_depth_limit_is_the_libraries(tmp_path):
    """Nesting past 256 levels is refused at the byte the C reader names,
    before Python's own reader (which would recurse) sees it; 256 levels
    are read."""
    s, text = _saved(tmp_path)
    deep = text[:-1] + ', "x": ' + "[" * 300 + "]" * 300 + "}"
    with pytest.raises(ValueError, match="nesting deeper than 256 levels at "
                       r"byte (\d+)") as e:
        nnscan.load_summary(deep)
    # the document's object is level 1: the 256th '[' of the run is 257
    assert int(str(e.value).rsplit(" ", 1)[1]) == \
        deep.index("[" * 300) + 255
    ok = text[:-1] + ', "x": ' + "[" * 250 + "]" * 250 + "}"
    assert nnscan.load_summary(ok).totals == s.totals
    f = tmp_path / "deep.json"
    f.write_text(deep)
    with pytest.raises(ValueError, match="deep.json: nesting deeper"):
        nnscan.load_summary(str(f))
    # 2 MiB of '[' is refused at once, not read
    # (the object is level 1, its '[' from byte 6: level 257 at 6 + 255)
    with pytest.raises(ValueError, match="nesting deeper than 256 levels at "
                       "byte 261$"):
        nnscan.load_summary('{"x": ' + "[" * (2 << 20))


def test_load_summary_refuses_duplicates_and_latin1(tmp_path):
    s, text = _saved(tmp_path)
    dup = text[:-1] + ', "schema": "nnscan.summary"}'
    with pytest.raises(ValueError, match='duplicate key "schema" at byte'):
        nnscan.load_summary(dup)
    f = tmp_path / "latin.json"
    raw = text.replace('"params"', '"p\u00e9rams"', 1).encode("latin-1")
    f.write_bytes(raw)
    with pytest.raises(ValueError) as e:
        nnscan.load_summary(str(f))
    assert "latin.json: byte %d (0xe9) is not UTF-8" % raw.index(b"\xe9") \
        in str(e.value)


# ---- which part of a training step failed ----

needs_torch2 = pytest.mark.skipif(not TORCH2, reason="training=True needs "
                                  "PyTorch 2.x")


@needs_torch2
def test_loss_failure_is_attributed():
    def loss(out):
        return out.no_such_attribute
    with pytest.raises(RuntimeError) as e:
        summary(training=True, loss=loss)
    msg = str(e.value)
    assert "training step, loss" in msg and "AttributeError" in msg
    assert "forward pass failed on meta" not in msg


@needs_torch2
def test_loss_of_wrong_shape_or_type_is_attributed():
    with pytest.raises(TypeError, match=r"training step, loss: .*one-"
                       r"element tensor, not a tensor of shape \(1, 3\)"):
        summary(training=True, loss=lambda o: o)
    with pytest.raises(TypeError, match="training step, loss: .*not int 3"):
        summary(training=True, loss=lambda o: 3)


@needs_torch2
def test_detached_loss_is_attributed():
    with pytest.raises(ValueError, match="training step, loss: the loss "
                       r"\(loss=\) does not require a gradient"):
        summary(training=True, loss=lambda o: o.detach().sum())


class _BadBackward(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        return x * 2

    @staticmethod
    def backward(ctx, g):
        raise ValueError("this backward is broken")


class _Broken(nn.Module):
    def __init__(self):
        super().__init__()
        self.first = nn.Linear(4, 4)
        self.odd = _Odd()

    def forward(self, x):
        return self.odd(self.first(x))


class _Odd(nn.Module):
    def forward(self, x):
        return _BadBackward.apply(x)


@needs_torch2
def test_backward_failure_names_node_and_module():
    with pytest.raises(RuntimeError) as e:
        nnscan.summary(_Broken(), inputs=X, file=False, training=True)
    msg = str(e.value)
    assert "training step, backward: ValueError" in msg, msg
    assert "_BadBackward" in msg and "module 'odd'" in msg, msg
    assert "this backward is broken" in msg
