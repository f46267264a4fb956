"""The Inspector under hostile use (issue 18): inspectors whose lifetimes
overlap without nesting, a save_file that cannot be written, PyTorch 2's
TypedStorage deprecation. "Unchanged" is checked against the model as it
was before (test_unchanged's snapshot), torch.save and the objects
PyTorch itself keeps (hook dicts, instance attributes, weak references).
"""
import gc
import io
import itertools
import os
import warnings
import weakref

import pytest

torch = pytest.importorskip("torch")
from torch import nn  # noqa: E402

import nnscan  # noqa: E402
from test_unchanged import assert_same, snapshot  # noqa: E402


def _model():
    torch.manual_seed(0)
    return nn.Sequential(nn.Sequential(nn.Linear(4, 4), nn.ReLU()),
                         nn.Linear(4, 2))


class KwNet(nn.Module):
    """A forward with a keyword argument (torch 1.13: a wrapped forward)."""

    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 4)
        self.head = nn.Linear(4, 2)

    def forward(self, x, scale=None):
        return self.head(self.fc(x) * scale)


def _pass(m):
    x = torch.linspace(-1, 1, 12).reshape(3, 4)  # no RNG draw
    if isinstance(m, KwNet):
        out = m(x, scale=torch.ones(3, 4))
    else:
        out = m(x)
    out.sum().backward()
    for p in m.parameters():
        p.grad = None


def _assert_pristine(m, before, refs):
    assert_same(before, m)
    for name, mod in m.named_modules():
        assert "forward" not in vars(mod), name
    for name, p in m.named_parameters():
        assert p._backward_hooks is None, name
    torch.save(m, io.BytesIO())  # a wrapper left behind cannot be pickled
    gc.collect()
    assert all(r() is None for r in refs)  # no inspector kept alive
    from torch.utils._python_dispatch import _get_current_dispatch_mode
    assert _get_current_dispatch_mode() is None


ORDERS = sorted({o for o in itertools.permutations(
    ["a.start", "b.start", "a.finish", "b.finish"])
    if o.index("a.start") < o.index("a.finish")
    and o.index("b.start") < o.index("b.finish")})


@pytest.mark.parametrize("order", ORDERS, ids="-".join)
@pytest.mark.parametrize("second", ["same", "child"])
@pytest.mark.parametrize("model", [_model, KwNet])
def test_overlapping_inspectors_leave_the_model_as_it_was(order, second,
                                                          model):
    m = model()
    before = snapshot(m)
    sub = m if second == "same" else next(m.children())
    insp = {"a": nnscan.Inspector(m), "b": nnscan.Inspector(sub)}
    for step in order:
        who, what = step.split(".")
        getattr(insp[who], what)()
        _pass(m)
    docs = {k: i.json() for k, i in insp.items()}
    # each saw the passes made while it was on
    for k, doc in docs.items():
        assert doc["passes"]
        assert not insp[k].errors
    refs = [weakref.ref(i) for i in insp.values()]
    del insp
    _assert_pristine(m, before, refs)


@pytest.mark.parametrize("order", ORDERS, ids="-".join)
def test_a_modules_own_instance_forward_is_put_back(order):
    m = KwNet()
    own = m.fc.forward  # the user's own instance attribute
    m.fc.forward = own
    before = snapshot(m)
    insp = {"a": nnscan.Inspector(m), "b": nnscan.Inspector(m.fc)}
    for step in order:
        who, what = step.split(".")
        getattr(insp[who], what)()
        _pass(m)
    assert vars(m.fc)["forward"] is own
    assert "forward" not in vars(m) and "forward" not in vars(m.head)
    assert_same(before, m)


def test_gadgets_list_with_a_model_and_its_child():
    m = KwNet()
    before = snapshot(m)
    g = nnscan.InspectorGadgets([m, m.fc])
    g.start()
    _pass(m)
    g.finish()
    assert [len(i.json()["modules"]) for i in g.inspectors] == [3, 1]
    refs = [weakref.ref(i) for i in g.inspectors] + [weakref.ref(g)]
    del g
    _assert_pristine(m, before, refs)


def test_shared_memory_counter_counts_for_the_one_still_on():
    m = _model()
    a, b = nnscan.Inspector(m), nnscan.Inspector(m)
    a.start()
    b.start()
    a.finish()
    m(torch.randn(64, 4))  # only b is on
    b.finish()
    fwd = b.json()["modules"][0]["forward"]
    # at least the two Linear outputs and the ReLU's, in float32
    assert fwd["alloc_bytes"] >= 4 * 64 * (4 + 4 + 2)


# ==== save_file ====

def test_unwritable_save_file_is_refused_at_start(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("")
    m = _model()
    before = snapshot(m)
    with pytest.raises(NotADirectoryError, match="not a folder"):
        nnscan.Inspector(m, save_file=str(blocker / "run")).start()
    (tmp_path / "run_Sequential.json").mkdir()
    with pytest.raises(IsADirectoryError):
        with nnscan.Inspector(m, save_file=str(tmp_path / "run")):
            pass
    assert_same(before, m)
    # a folder that does not exist yet is made by finish()
    with nnscan.Inspector(m, save_file=str(tmp_path / "new" / "x")) as i:
        m(torch.zeros(1, 4))
    assert all(os.path.isfile(p) for p in i.saved_files)


def test_a_failing_save_does_not_hide_the_bodys_exception(tmp_path):
    m = _model()
    before = snapshot(m)
    target = tmp_path / "out"
    target.mkdir()
    insp = nnscan.Inspector(m, save_file=str(target / "run"))
    with pytest.raises(KeyError, match="from the body"):
        with insp:
            m(torch.zeros(1, 4))
            # the folder goes away after start() checked it
            target.rmdir()
            (tmp_path / "out").write_text("now a file")
            raise KeyError("from the body")
    assert any("could not finish" in e for e in insp.errors)
    assert_same(before, m)
    # without an exception of its own, the save failure is raised
    target2 = tmp_path / "out2"
    target2.mkdir()
    with pytest.raises(OSError):
        with nnscan.Inspector(m, save_file=str(target2 / "run")):
            target2.rmdir()
            target2.write_text("a file")


# ==== PyTorch 2: no TypedStorage warning ====

def test_memory_counter_uses_untyped_storage():
    reset = getattr(torch.storage, "_reset_warn_typed_storage_removal", None)
    if reset is not None:
        reset()  # the warning is given once per process otherwise
    m = _model()
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        for _ in range(2):
            with nnscan.Inspector(m, memory=True) as insp:
                m(torch.randn(2, 4))
    assert not [w for w in seen if "TypedStorage" in str(w.message)]
    assert insp.json()["modules"][0]["forward"]["alloc_bytes"] > 0
