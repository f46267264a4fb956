"""recorder.meta_copy copies a model as copy.deepcopy does (the reference:
Python's own copy module), only with the tensors on meta: a module class
that customises its copy (__getstate__ / __setstate__, __deepcopy__,
__reduce_ex__, __getnewargs__) is copied its own way, and the copy's
attributes are deepcopy's, module by module."""
import copy

import torch

from nnscan import recorder


class _Cached(torch.nn.Module):
    """Drops its cache from the state it pickles and copies, and says so
    when the state comes back."""

    def __init__(self):
        super().__init__()
        self.fc = torch.nn.Linear(3, 4)
        self.cache = ["something large"]
        self.shape = (3, 4)

    def __getstate__(self):
        state = dict(super().__getstate__())  # 1.13's: the __dict__ itself
        state["cache"] = None
        return state

    def __setstate__(self, state):
        super().__setstate__(state)
        self.restored = True


class _OwnDeepcopy(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.w = torch.nn.Parameter(torch.ones(2))

    def __deepcopy__(self, memo):
        out = _OwnDeepcopy()
        out.copied_by_hand = True
        memo[id(self)] = out
        return out


class _Reduced(torch.nn.Module):
    """Copied through its own __reduce_ex__: built anew from a size."""

    def __init__(self, n=2):
        super().__init__()
        self.n = n
        self.lin = torch.nn.Linear(n, n)

    def __reduce_ex__(self, protocol):
        return (_Reduced, (self.n,))


class _NewArgs(torch.nn.Module):
    def __new__(cls, *args, **kwargs):
        return super().__new__(cls)

    def __init__(self, k=3):
        super().__init__()
        self.k = k
        self.lin = torch.nn.Linear(k, 1)

    def __getnewargs__(self):
        return (self.k,)


class _Model(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.cached = _Cached()
        self.own = _OwnDeepcopy()
        self.reduced = _Reduced(5)
        self.newargs = _NewArgs()
        self.plain = torch.nn.Sequential(torch.nn.Conv2d(1, 2, 3),
                                         torch.nn.BatchNorm2d(2))
        self.register_buffer("steps", torch.zeros((), dtype=torch.int64))


def _attrs(m):
    """A module's attributes but its tensors, with its tensors' names,
    sizes, dtypes, classes and grad flags."""
    plain = {k: v for k, v in vars(m).items()
             if k not in ("_parameters", "_buffers", "_modules")
             and not isinstance(v, torch.Tensor)
             and not k.endswith("hooks") and "hooks_" not in k}
    tensors = [(n, tuple(t.shape), t.dtype, type(t), t.requires_grad)
               for store in ("_parameters", "_buffers")
               for n, t in vars(m)[store].items() if t is not None]
    return type(m), plain, tensors


def test_meta_copy_is_deepcopy_with_tensors_on_meta():
    model = _Model()
    ours = recorder.meta_copy(model)
    ref = copy.deepcopy(model)
    assert [n for n, _ in ours.named_modules()] == \
        [n for n, _ in ref.named_modules()]
    for (name, a), (_, b) in zip(ours.named_modules(), ref.named_modules()):
        assert _attrs(a) == _attrs(b), name
        # made anew by their own copy, with tensors of their own, as
        # deepcopy makes them; every other tensor on meta
        anew = name.startswith(("own", "reduced"))
        assert all(t.is_meta != anew for t in a.parameters(recurse=False)), \
            name
        assert all(t.is_meta != anew for t in a.buffers(recurse=False)), \
            name
    # each class's own way, as deepcopy takes it
    assert ours.cached.cache is None and ours.cached.restored
    assert ours.own.copied_by_hand
    assert ours.reduced.n == 5 and ours.newargs.k == 3
    # and the model itself is as it was
    assert model.cached.cache == ["something large"]
    assert not hasattr(model.cached, "restored")
    assert all(not t.is_meta for t in model.parameters())


class _Regrown(torch.nn.Module):
    """Its own copy holds other submodules than it does."""

    def __init__(self, width=2):
        super().__init__()
        self.inner = torch.nn.Linear(width, width)

    def __deepcopy__(self, memo):
        out = _Regrown()
        out.inner = torch.nn.Sequential(torch.nn.ReLU(),
                                        torch.nn.Linear(2, 2, device="meta"))
        memo[id(self)] = out
        return out

    def forward(self, x):
        return self.inner(x)


def _walk_of(model):
    return [(n, id(m)) for n, m in model.named_modules()]


def test_meta_copy_gives_the_copys_own_walk():
    """A recording walks the model's modules once (recorder.walk_once)
    and takes the copy's as the copies of the same modules: that must be
    what PyTorch's own walk of the copy gives, and a model whose modules
    copy themselves their own way is walked again."""
    for model in (torch.nn.Sequential(torch.nn.Linear(2, 2), torch.nn.ReLU(),
                                      torch.nn.Sequential(torch.nn.ReLU())),
                  _Model(),
                  torch.nn.Sequential(torch.nn.Linear(2, 2), _Regrown())):
        walk = recorder.walk_once(model)
        assert [(n, id(m)) for n, m in walk] == _walk_of(model)
        out, copied = recorder._meta_copy_walked(model, None, walk)
        assert copied is None or \
            [(n, id(m)) for n, m in copied] == _walk_of(out)
    # shared submodules: one copy, walked once, as named_modules does
    shared = torch.nn.Linear(2, 2)
    model = torch.nn.Sequential(shared, torch.nn.ReLU(), shared)
    out, copied = recorder._meta_copy_walked(model, None,
                                             recorder.walk_once(model))
    assert [(n, id(m)) for n, m in copied] == _walk_of(out)
    assert out[0] is out[2]


def test_a_regrown_copy_records_its_own_modules():
    """The module tree a summary reports is the copy's, which ran."""
    import nnscan
    model = torch.nn.Sequential(torch.nn.Linear(2, 2), _Regrown())
    s = nnscan.summary(model, inputs=torch.zeros(1, 2), file=False)
    paths = {row["path"] for row in s.layers}
    assert "1.inner.0" in paths and "1.inner.1" in paths
