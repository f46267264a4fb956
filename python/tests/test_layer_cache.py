"""layer_cache.index_only: which layers may differ in their `layer_idx`
alone (module_replay.py leaves it out of their signature)."""
from torch import nn

from nnscan import layer_cache


class Writes(nn.Module):
    def __init__(self, layer_idx):
        super().__init__()
        self.layer_idx = layer_idx
        self.scale = 1.0 / (layer_idx + 1)  # made from it: an attribute

    def forward(self, k, v, cache=None):
        if cache is not None:
            k, v = cache.update(k, v, self.layer_idx)
        return k * self.scale + v


class WritesByKeyword(Writes):
    def forward(self, k, v, cache=None):
        if cache is not None:
            k, v = cache.update(k, v, layer_idx=self.layer_idx)
        return k + v


class Scales(Writes):
    def forward(self, k, v, cache=None):
        return k / (self.layer_idx + 1) + v


class Branches(Writes):
    def last(self):
        return self.layer_idx == 11

    def forward(self, k, v, cache=None):
        out = super().forward(k, v, cache)
        return out * 2 if self.last() else out


def test_an_index_read_only_by_the_cache_update():
    assert layer_cache.index_only(Writes)
    assert layer_cache.index_only(WritesByKeyword)


def test_an_index_read_otherwise():
    assert not layer_cache.index_only(Scales)
    assert not layer_cache.index_only(Branches)  # in any method, a base's too


def test_a_class_without_source_is_not_trusted():
    made = type("Made", (nn.Module,), {"forward": lambda self, x: x})
    assert not layer_cache.index_only(made)


def test_no_cache_object_is_a_transformers_cache():
    assert not layer_cache.is_cache({})
    assert not layer_cache.is_cache(Writes(0))
