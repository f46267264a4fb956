"""Every public call leaves the model exactly as it was.

After summary / crawl_module / profile (record and onnx methods, meta and
own-device runs), and after a forward that raises: parameters and buffers
bitwise equal, every module's training flag, no hook in any hook dict, no
new attribute, parameter, buffer or submodule, gradients untouched, the RNG
state unchanged.
"""
import warnings

import pytest

torch = pytest.importorskip("torch")
from torch import nn  # noqa: E402

import nnscan  # noqa: E402
import nnscan.train  # noqa: E402

HOOK_DICTS = ("_forward_hooks", "_forward_pre_hooks", "_backward_hooks",
              "_backward_pre_hooks", "_state_dict_hooks",
              "_load_state_dict_pre_hooks", "_load_state_dict_post_hooks",
              "_forward_hooks_with_kwargs", "_forward_pre_hooks_with_kwargs")


class Net(nn.Module):
    def __init__(self, fail=False, data_dependent=False):
        super().__init__()
        self.conv = nn.Conv2d(3, 8, 3)
        self.bn = nn.BatchNorm2d(8)
        self.drop = nn.Dropout(0.5)
        self.fc = nn.Linear(8, 4)
        self.fail = fail
        self.data_dependent = data_dependent

    def forward(self, x):
        x = self.drop(torch.relu(self.bn(self.conv(x))))
        if self.fail:
            raise ValueError("forward failed on purpose")
        if self.data_dependent and x.sum().item() > -1:  # needs real values
            x = x * 2
        return self.fc(x.mean((2, 3)))


def snapshot(model):
    mods = dict(model.named_modules())
    return {
        "state": {k: v.clone() for k, v in model.state_dict().items()},
        "training": {n: m.training for n, m in mods.items()},
        "hooks": {n: {h: len(getattr(m, h, {})) for h in HOOK_DICTS}
                  for n, m in mods.items()},
        "attrs": {n: sorted(vars(m)) for n, m in mods.items()},
        "params": {n: (id(p), p.requires_grad) for n, p in model.named_parameters()},
        "grads": {n: None if p.grad is None else p.grad.clone()
                  for n, p in model.named_parameters()},
        "rng": torch.get_rng_state().clone(),
    }


def assert_same(before, model):
    after = snapshot(model)
    assert before["state"].keys() == after["state"].keys()
    for k, v in before["state"].items():
        w = after["state"][k]
        assert v.dtype == w.dtype and v.shape == w.shape
        assert torch.equal(v.view(-1).view(torch.uint8) if v.is_floating_point()
                           else v, w.view(-1).view(torch.uint8)
                           if w.is_floating_point() else w), k
    for key in ("training", "hooks", "attrs", "params"):
        assert before[key] == after[key], key
    for n, g in before["grads"].items():
        h = after["grads"][n]
        assert (g is None) == (h is None) and (g is None or torch.equal(g, h)), n
    assert torch.equal(before["rng"], after["rng"])
    # process-wide hooks removed too
    assert not torch.nn.modules.module._global_forward_hooks
    assert not torch.nn.modules.module._global_forward_pre_hooks


X = torch.zeros(1, 3, 16, 16)
CALLS = {
    "summary": lambda m: nnscan.summary(m, (3, 16, 16), file=False),
    "summary_model_device": lambda m: nnscan.summary(
        m, (3, 16, 16), file=False, device="model"),
    "summary_onnx": lambda m: nnscan.summary(m, (3, 16, 16), method="onnx",
                                             file=False),
    "crawl_module": lambda m: nnscan.crawl_module(m, (3, 16, 16)),
    "profile": lambda m: nnscan.profile(m, X, verbose=False),
    "profile_custom": lambda m: nnscan.profile(
        m, X, verbose=False, custom_ops={nn.Conv2d: lambda mod, i, o: 1}),
}


@pytest.mark.parametrize("call", sorted(CALLS))
@pytest.mark.parametrize("train", [False, True])
def test_call_leaves_model_unchanged(call, train):
    torch.manual_seed(0)
    model = Net().train(train)
    model.fc.weight.grad = torch.ones_like(model.fc.weight)
    model.conv.weight.requires_grad_(False)
    before = snapshot(model)
    CALLS[call](model)
    assert_same(before, model)


@pytest.mark.parametrize("call", ["summary", "crawl_module", "profile",
                                  "summary_model_device", "summary_onnx"])
def test_failing_forward_leaves_model_unchanged(call):
    model = Net(fail=True).train()
    before = snapshot(model)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the meta run fails first
        with pytest.raises(ValueError, match="on purpose"):
            CALLS[call](model)
    assert_same(before, model)


def test_data_dependent_forward_falls_back_with_warning():
    torch.manual_seed(0)
    model = Net(data_dependent=True).train()
    before = snapshot(model)
    with pytest.warns(UserWarning, match="meta"):
        s = nnscan.summary(model, (3, 16, 16), file=False)
    assert s.device == "cpu"
    assert_same(before, model)
    assert s.totals["params"] == sum(p.numel() for p in model.parameters())


def test_uncopyable_model_runs_on_its_device_with_warning():
    import threading
    torch.manual_seed(0)
    model = Net()
    model.lock = threading.Lock()  # deepcopy cannot copy a lock
    before = snapshot(model)
    with pytest.warns(UserWarning, match="cannot copy the model"):
        s = nnscan.summary(model, (3, 16, 16), file=False)
    assert s.device == "cpu"
    assert_same(before, model)


class InstallsHooksOnce(nn.Module):
    """Registers a hook on its first forward and marks itself, as
    transformers 5 installs its output-capturing hooks."""

    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(4, 4)
        self.seen = 0

    def forward(self, x):
        if not getattr(self, "_hooked", False):
            self.lin.register_forward_hook(self._count)
            self._hooked = True
        return self.lin(x)

    def _count(self, module, inputs, output):
        self.seen += 1


def test_hooks_a_forward_installs_are_taken_back_with_their_flag():
    # a model on meta records as it is: what its first forward installed
    # goes away with the flag that says so, so the next forward installs
    # it once again (keeping the hook but not the flag ran it twice)
    m = InstallsHooksOnce().to("meta")
    nnscan.summary(m, inputs=torch.zeros(2, 4), file=False)
    assert not m.lin._forward_hooks and not hasattr(m, "_hooked")
    m(torch.zeros(2, 4, device="meta"))
    assert len(m.lin._forward_hooks) == 1 and m.seen == 1


# --- PyTorch itself: every public entry point leaves torch's classes and
# namespaces holding the very objects they held (issue 40, item 3) ---

def _namespaces():
    spaces = {"Tensor": torch.Tensor, "Module": nn.Module,
              "torch": torch, "F": torch.nn.functional,
              "autograd.Function": torch.autograd.Function}
    base = getattr(torch._C, "_TensorBase", None)
    if base is not None:
        spaces["_TensorBase"] = base
    return spaces


def torch_snapshot():
    return {k: dict(vars(v)) for k, v in _namespaces().items()}


def assert_torch_same(before):
    after = torch_snapshot()
    for space, d in before.items():
        a = after[space]
        assert a.keys() == d.keys(), (space, set(a) ^ set(d))
        changed = [k for k, v in d.items() if a[k] is not v]
        assert not changed, (space, changed)
    # the reproducer: 0-d tensors are not sequences
    t = torch.tensor(3)
    assert torch.tensor([[t, t]]).tolist() == [[3, 3]]


def _inspector(m):
    from nnscan.inspector import Inspector
    with Inspector(m):
        out = m(X)
        out.sum().backward()


def _generate(m):
    from test_generate import TinyDecoder, tiny_step

    def failing_step(model, inputs, past):
        raise ValueError("forward failed on purpose")
    nnscan.profile_generate(TinyDecoder(), inputs={
        "input_ids": torch.zeros(1, 3, dtype=torch.long)},
        max_new_tokens=2, step=failing_step if m.fail else tiny_step)


def _compat(m):
    from nnscan.compat import thop, thoplw, torchscan
    thop.profile(m, inputs=(X,), verbose=False)
    thoplw.profile(m, X)
    torchscan.crawl_module(m, (3, 16, 16))


TORCH_CALLS = dict(CALLS)
TORCH_CALLS.update({
    "summary_training": lambda m: nnscan.summary(m, (3, 16, 16), file=False,
                                                 training=True),
    "compat": _compat,
    "inspector": _inspector,
    "profile_generate": _generate,
})


@pytest.mark.parametrize("call", sorted(TORCH_CALLS))
def test_call_leaves_torch_unchanged(call):
    before = torch_snapshot()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            TORCH_CALLS[call](Net().train())
        except nnscan.train.StepError:  # training on PyTorch 1.13
            assert call.startswith("summary_training")
            assert torch.__version__ < "2"
    assert_torch_same(before)


@pytest.mark.parametrize("call", sorted(TORCH_CALLS))
def test_failing_forward_leaves_torch_unchanged(call):
    before = torch_snapshot()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            TORCH_CALLS[call](Net(fail=True).train())
        except Exception:  # noqa: BLE001 - every entry point's own error
            pass
    assert_torch_same(before)


def test_list_index_recording_leaves_0d_tensors_scalars():
    """A recording on meta that indexes with a Python list (the values are
    kept) still builds tensors from 0-d tensors inside the forward, as
    Qwen2-VL's get_rope_index does, and afterwards."""
    class Rope(nn.Module):
        def forward(self, ids):
            pos = torch.tensor([[torch.tensor(3), torch.tensor(4)]])
            return ids[:, [1, 0]] + pos.to(ids.device)

    before = torch_snapshot()
    ids = torch.tensor([[1, 2]])
    s = nnscan.summary(Rope(), inputs=(ids,), file=False)
    assert s.device == "meta"
    assert_torch_same(before)
