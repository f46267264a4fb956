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


class ReadsItsSlot(Writes):
    # GPT-2's cross-attention: the cache's slot and a flag read by the
    # index, through a local name given a part of the cache argument
    def forward(self, k, v, past_key_values=None):
        if past_key_values is not None:
            cur = past_key_values.self_attention_cache
            done = past_key_values.is_updated.get(self.layer_idx)
            if done:
                k = cur.layers[self.layer_idx].keys
            k, v = cur.update(k, v, self.layer_idx)
            past_key_values.is_updated[self.layer_idx] = True
            k = k * 2  # a name given a value the cache held: no part of it
        return k + v


class IndexesItsOwnTable(Writes):
    def forward(self, k, v, cache=None):
        return k * self.table[self.layer_idx] + v


class IndexesARebound(Writes):
    # `cache` names the cache argument, then something else
    def forward(self, k, v, cache=None):
        if cache is None:
            cache = self.table
        return k * cache[self.layer_idx] + v


class IndexesALoopName(Writes):
    def forward(self, k, v, past=None):
        for past in self.tables:
            k = k * past[self.layer_idx]
        return k + v


class IndexesInAHelper(Writes):
    # only a forward's parameters are taken for the call's cache
    def forward(self, k, v, cache=None):
        return self.helper(k, self.table) + v

    def helper(self, k, cache):
        return k * cache[self.layer_idx]


class IndexesAnInnerParameter(Writes):
    def forward(self, k, v, cache=None):
        def scale(cache):
            return cache[self.layer_idx]
        return k * scale(self.table) + v


class WritesById(nn.Module):
    """GPT-Neo's attention: its slot in `layer_id`."""

    def __init__(self, layer_id):
        super().__init__()
        self.layer_id = layer_id

    def forward(self, k, v, layer_past=None):
        if layer_past is not None:
            k, v = layer_past.update(k, v, self.layer_id)
        return k + v


class ScalesById(WritesById):
    def forward(self, k, v, layer_past=None):
        return super().forward(k, v, layer_past) * self.layer_id


class Branches(Writes):
    def last(self):
        return self.layer_idx == 11

    def forward(self, k, v, cache=None):
        out = super().forward(k, v, cache)
        return out * 2 if self.last() else out


def test_an_index_read_only_by_the_cache_update():
    assert layer_cache.index_only(Writes)
    assert layer_cache.index_only(WritesByKeyword)


def test_an_index_named_layer_id():
    assert layer_cache.index_only(WritesById)
    assert not layer_cache.index_only(ScalesById)


def test_an_index_read_only_to_index_the_cache():
    assert layer_cache.index_only(ReadsItsSlot)


def test_an_index_read_otherwise():
    assert not layer_cache.index_only(Scales)
    assert not layer_cache.index_only(Branches)  # in any method, a base's too
    assert not layer_cache.index_only(IndexesItsOwnTable)
    assert not layer_cache.index_only(IndexesARebound)
    assert not layer_cache.index_only(IndexesALoopName)
    assert not layer_cache.index_only(IndexesInAHelper)
    assert not layer_cache.index_only(IndexesAnInnerParameter)


def test_a_class_without_source_is_not_trusted():
    made = type("Made", (nn.Module,), {"forward": lambda self, x: x})
    assert not layer_cache.index_only(made)


def test_no_cache_object_is_a_transformers_cache():
    assert not layer_cache.is_cache({})
    assert not layer_cache.is_cache(Writes(0))
