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


class Mixer(nn.Module):
    """Mamba's mixer: its forward (the subclasses') hands the cache to a
    method, which asks whether its slot holds a state, reads it by the
    index and writes its two states."""

    def __init__(self, layer_idx):
        super().__init__()
        self.layer_idx = layer_idx

    def slow_forward(self, x, cache_params=None, mask=None):
        if cache_params is not None and \
                cache_params.has_previous_state(self.layer_idx):
            x = x + cache_params.layers[self.layer_idx].recurrent_states
        if cache_params is not None:
            cache_params.update_conv_state(x, self.layer_idx)
            cache_params.update_recurrent_state(x, layer_idx=self.layer_idx)
        return x


class Mixes(Mixer):
    def forward(self, x, cache_params=None, mask=None):
        return self.slow_forward(x, cache_params, mask)


class MixesTwice(Mixes):
    def forward(self, x, cache_params=None, mask=None):
        return super().forward(x, cache_params, mask) * 2


class MixesByKeyword(Mixer):
    def forward(self, x, cache_params=None, mask=None):
        return self.slow_forward(x, mask=mask, cache_params=cache_params)


class MixesATable(Mixer):
    # the method's cache parameter given something else too
    def forward(self, x, cache_params=None, mask=None):
        y = self.slow_forward(x, self.table, mask)
        return y + self.slow_forward(x, cache_params, mask)


class MixesFromElsewhere(Mixer):
    # called from another method: what it is handed there is unknown
    def forward(self, x, cache_params=None, mask=None):
        return self.again(x, cache_params) + \
            self.slow_forward(x, cache_params, mask)

    def again(self, x, cache_params):
        return self.slow_forward(x, cache_params)


class MixesALaterMethod(Mixer):
    # its bound method handed on: called with anything
    def forward(self, x, cache_params=None, mask=None):
        run = self.slow_forward
        return run(x, cache_params, mask)


class MixesADefault(Mixer):
    # the cache left to the method's default
    def forward(self, x, cache_params=None, mask=None):
        return self.slow_forward(x)


def test_an_index_read_only_by_the_cache_update():
    assert layer_cache.index_only(Writes)
    assert layer_cache.index_only(WritesByKeyword)


def test_an_index_named_layer_id():
    assert layer_cache.index_only(WritesById)
    assert not layer_cache.index_only(ScalesById)


def test_an_index_read_only_to_index_the_cache():
    assert layer_cache.index_only(ReadsItsSlot)


def test_an_index_read_in_a_method_the_forward_hands_its_cache_to():
    assert layer_cache.index_only(Mixes)
    assert layer_cache.index_only(MixesByKeyword)
    assert not layer_cache.index_only(MixesATable)
    assert not layer_cache.index_only(MixesFromElsewhere)
    assert not layer_cache.index_only(MixesALaterMethod)
    assert not layer_cache.index_only(MixesADefault)
    # a forward overridden: what the one it overrides (called by
    # super().forward) hands the method is not looked into
    assert not layer_cache.index_only(MixesTwice)


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


def _scaled_by_index(self, k, v, cache=None):
    """A forward set on Writes from elsewhere: the index read as a
    number (the class's source is not what runs)."""
    return k * self.layer_idx + v


def test_a_method_patched_from_elsewhere_is_not_trusted(monkeypatch):
    from nnscan import layer_groups
    assert layer_cache.index_only(Writes,
                                  layer_groups._class_key(Writes, None))
    monkeypatch.setattr(Writes, "forward", _scaled_by_index)
    # the class's state is another (its key), and the answer is read again
    assert not layer_cache.index_only(
        Writes, layer_groups._class_key(Writes, None))
    monkeypatch.undo()
    assert layer_cache.index_only(Writes,
                                  layer_groups._class_key(Writes, None))


def test_no_cache_object_is_a_transformers_cache():
    assert not layer_cache.is_cache({})
    assert not layer_cache.is_cache(Writes(0))
