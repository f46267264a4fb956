"""What a recording computes and gives the library for masked attention
(masks.hand_over): the library picks, from its own built graph
(nns_model_mask_inputs), the tracked values its counts read, and only
those are computed and given (nns_model_set_value_data). Checked on a
model that also tracks values no mask is made from (token ids for an
embedding, positions for a position embedding), and against the pairs
the mask allows, counted here from its definition."""
import pytest

torch = pytest.importorskip("torch")
import torch.nn as nn  # noqa: E402

from nnscan import masks, report, shadow, torch_api  # noqa: E402

T, D = 6, 8


class Decoder(nn.Module):
    """Token and position embeddings, then one head of attention whose
    causal mask is made from arange comparisons, additive (0 / -inf)."""

    def __init__(self):
        super().__init__()
        self.tok = nn.Embedding(50, D)
        self.pos = nn.Embedding(T, D)
        self.qkv = nn.Linear(D, 3 * D)

    def forward(self, ids):
        i = torch.arange(ids.shape[1], device=ids.device)
        x = self.tok(ids) + self.pos(i)
        q, k, v = self.qkv(x).chunk(3, -1)
        keep = i[None, :] <= i[:, None]
        bias = torch.where(keep, 0.0, float("-inf"))
        s = q @ k.transpose(-1, -2) + bias
        return torch.softmax(s, -1) @ v


def _handed_over(monkeypatch, model, *args):
    """(totals, shapes of the values hand_over computed, the names given
    per set_value_data call)."""
    given, computed, during = [], [], []
    set_value_data, value = report.Handle.set_value_data, shadow.Shadows.value
    hand_over = masks.hand_over

    def give(self, names, *rest):
        given.append(list(names))
        return set_value_data(self, names, *rest)

    def compute(self, t):  # the calls hand_over makes, not their inputs'
        if not during or during[-1] != 1:
            return value(self, t)
        during.append(2)
        try:
            v = value(self, t)
        finally:
            during.pop()
        computed.append(None if v is None else tuple(v.shape))
        return v

    def handing_over(*a):
        during.append(1)
        try:
            return hand_over(*a)
        finally:
            during.pop()
    monkeypatch.setattr(report.Handle, "set_value_data", give)
    monkeypatch.setattr(shadow.Shadows, "value", compute)
    monkeypatch.setattr(masks, "hand_over", handing_over)
    t = torch_api.analyze_module(model.eval(), args).totals
    return t, computed, given


def test_only_what_the_library_asks_for_is_computed_and_given(monkeypatch):
    ids = torch.randint(0, 50, (1, T))
    t, computed, given = _handed_over(monkeypatch, Decoder(), ids)
    # the causal mask of T x T: T (T - 1) / 2 pairs left out, D each in
    # both products (one head of D)
    assert t["macs"] - t["macs_unmasked"] == T * (T - 1) // 2 * 2 * D
    # The additive mask is a Where of the boolean one between two numbers:
    # the library asks for those three, fewer bytes than the float mask,
    # each once; never for the token ids or positions the model also
    # tracks (the boolean mask is itself tracked, so its positions are
    # not needed).
    assert sorted(computed) == [(), (), (T, T)]
    assert len(given) == 3 and all(len(n) == 1 for n in given)


class TrilOfOnes(nn.Module):
    """The causal mask as PyTorch's math SDPA builds it on meta:
    ones(L, S, bool).tril(), applied with masked_fill."""

    def __init__(self):
        super().__init__()
        self.qkv = nn.Linear(D, 3 * D)

    def forward(self, x):
        q, k, v = self.qkv(x).chunk(3, -1)
        t = x.shape[1]
        keep = torch.ones(t, t, dtype=torch.bool, device=x.device).tril()
        s = (q @ k.transpose(-1, -2)).masked_fill(~keep, float("-inf"))
        return torch.softmax(s, -1) @ v


def test_a_triangle_of_ones_is_read_from_its_diagonal(monkeypatch):
    """The ones are given as one element before the library picks, and
    neither they nor the triangle are computed: the library reads the
    mask from the diagonal."""
    t, computed, given = _handed_over(monkeypatch, TrilOfOnes(),
                                      torch.randn(1, T, D))
    assert t["macs"] - t["macs_unmasked"] == T * (T - 1) // 2 * 2 * D
    assert (T, T) not in computed
    assert given and given[0] and all(len(n) == 1 for n in given)


class TrilsTwice(nn.Module):
    """TrilOfOnes in two layers, the first layer's mask read in Python
    (so computed while recording): the second's ones are then the value
    of a computation made already (shadow.py's memo), a fill all the
    same."""

    def __init__(self):
        super().__init__()
        self.qkv = nn.ModuleList(nn.Linear(D, 3 * D) for _ in range(2))

    def forward(self, x):
        t = x.shape[1]
        for i, qkv in enumerate(self.qkv):
            q, k, v = qkv(x).chunk(3, -1)
            keep = torch.ones(t, t, dtype=torch.bool,
                              device=x.device).tril()
            if i == 0 and not bool(keep[-1, 0]):
                raise AssertionError("a triangle of ones")
            s = (q @ k.transpose(-1, -2)).masked_fill(~keep, float("-inf"))
            x = torch.softmax(s, -1) @ v
        return x


def test_a_fill_computed_already_is_given_as_a_fill(monkeypatch):
    """Both layers' ones are given as their one element, in one call (the
    same fill), and no triangle is computed to be given: as where no
    layer's mask was read (a layer replayed or recorded, its fill read
    or not, hands the library the same)."""
    t, computed, given = _handed_over(monkeypatch, TrilsTwice(),
                                      torch.randn(1, T, D))
    assert t["macs"] - t["macs_unmasked"] == 2 * T * (T - 1) // 2 * 2 * D
    assert (T, T) not in computed
    assert len(given[0]) == 2
