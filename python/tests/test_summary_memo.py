"""A summary of a model as it was, on inputs as they were, built from
what two recordings of it made the same (summary_memo.py): from a
process's third summary of a model no recording is made, and every
report is the one of a recording with every layer run
(NNSCAN_MODULE_REPLAY=0). Whatever a recording reads that
changed (a parameter's requires_grad, a layer, the training flags, the
inputs' sizes, the contents of an integer input or buffer, a mode around
the call) records again."""
import warnings

import pytest
import torch
from torch import nn

import nnscan
from conftest import in_threads, replay_reports
from nnscan import module_replay, summary_memo
from test_model_replay import MACS, X, Conv, Net


def _same_as_every_layer_run(model, x):
    """The summary's reports, checked against every layer run; the
    summary."""
    on, s = replay_reports(model, x, True)
    assert on == replay_reports(model, x, False)[0]
    return s


def _recorded(model, x, recordings):
    """Whether one summary (checked) made a recording."""
    was = recordings[0]
    _same_as_every_layer_run(model, x)
    # replay_reports' second summary (every layer run) always records
    return recordings[0] - was == 2


def test_a_summary_of_a_model_as_it_was_records_nothing(recordings):
    model = Net().eval()
    got = [_recorded(model, X, recordings) for _ in range(6)]
    # the first reads no state; the second's recording makes what the
    # first's made: built from the third summary on
    assert got == [True, True, False, False, False, False]
    s = _same_as_every_layer_run(model, X)
    assert s.totals["macs"] == MACS


class CausalLayer(nn.Module):
    """Attention whose causal mask is made as PyTorch's math SDPA makes it
    on meta (ones(L, S).tril()), then an MLP: a layer module_replay.py
    replays."""

    def __init__(self, d):
        super().__init__()
        self.norm = nn.LayerNorm(d)
        self.qkv = nn.Linear(d, 3 * d)
        self.out = nn.Linear(d, d)
        self.mlp = nn.Sequential(nn.Linear(d, 2 * d), nn.GELU(),
                                 nn.Linear(2 * d, d))

    def forward(self, x):
        q, k, v = self.qkv(self.norm(x)).chunk(3, -1)
        t = x.shape[1]
        keep = torch.ones(t, t, dtype=torch.bool, device=x.device).tril()
        s = (q @ k.transpose(-1, -2)).masked_fill(~keep, float("-inf"))
        x = x + self.out(torch.softmax(s, -1) @ v)
        return x + self.mlp(x)


class Causal(nn.Module):
    def __init__(self, d=8, layers=3):
        super().__init__()
        self.layers = nn.Sequential(*(CausalLayer(d) for _ in range(layers)))

    def forward(self, x):
        return self.layers(x)


def test_a_causal_triangle_is_handed_over_alike_recorded_or_replayed(
        recordings):
    """The first summary's first layer runs and hands the library its
    ones as their one element (masks.hand_over), and the later layers and
    summaries, which replay, hand over the same (module_replay._Fill,
    shadow.py's fill_of of a fill computed already): the second summary
    makes what the first made, and the third is built."""
    model = Causal().eval()
    x = torch.randn(1, 6, 8)
    got = [_recorded(model, x, recordings) for _ in range(4)]
    assert got == [True, True, False, False]
    t = nnscan.summary(model, inputs=x, file=False).totals
    # each layer's two products leave out the 6 * 5 / 2 pairs above the
    # diagonal, 8 MACs each
    assert t["macs"] - t["macs_unmasked"] == 3 * 2 * (6 * 5 // 2) * 8


def test_a_model_changed_after_its_first_summary_is_built_later(
        recordings):
    """A first summary reads no state, so a model changed before its
    second is built once two recordings of it as it is made the same:
    from its fourth summary, every report the new model's."""
    model = Net().eval()
    assert _recorded(model, X, recordings)
    model.head.weight.requires_grad_(False)
    got = [_recorded(model, X, recordings) for _ in range(3)]
    assert got == [True, True, False]
    s = nnscan.summary(model, inputs=X, file=False)
    assert s.totals["params"] == \
        sum(p.numel() for p in model.parameters() if p.requires_grad)


def _warm(model, x, recordings):
    for _ in range(4):
        _recorded(model, x, recordings)
    assert not _recorded(model, x, recordings)


def test_a_model_changed_since_records_again(recordings):
    model = Net().eval()
    _warm(model, X, recordings)
    model.head.weight.requires_grad_(False)
    assert _recorded(model, X, recordings)
    s = _same_as_every_layer_run(model, X)
    assert s.totals["params"] == \
        sum(p.numel() for p in model.parameters() if p.requires_grad)
    model.blocks[1] = Conv(8, 16).eval()
    model.blocks[1].act = nn.GELU()
    assert _recorded(model, X, recordings)
    model.train()
    assert _recorded(model, X, recordings)


class Pair(nn.Module):
    """Two linear layers of one shape: tied, untied or one module in two
    places, their signatures are alike."""

    def __init__(self):
        super().__init__()
        self.a = nn.Linear(8, 8)
        self.b = nn.Linear(8, 8)

    def forward(self, x):
        return self.b(self.a(x))


def _params(model):
    """Distinct parameters, as PyTorch counts them."""
    return sum(p.numel() for p in model.parameters())


def test_a_weight_tied_or_untied_since_records_again(recordings):
    """Which tensors are one is part of what a recording reads: a weight
    tied after the model was kept is counted once, untied twice."""
    model = Pair().eval()
    x = torch.randn(2, 8)
    _warm(model, x, recordings)
    model.b.weight = model.a.weight
    assert _recorded(model, x, recordings)
    assert nnscan.summary(model, inputs=x, file=False).totals["params"] == \
        _params(model) == 2 * 64 + 2 * 8 - 64
    _warm(model, x, recordings)
    model.b.weight = nn.Parameter(model.a.weight.detach().clone())
    assert _recorded(model, x, recordings)
    assert nnscan.summary(model, inputs=x, file=False).totals["params"] == \
        _params(model) == 2 * 64 + 2 * 8


def test_a_module_registered_twice_since_records_again(recordings):
    """One module in two places (named_modules walks it once) is counted
    once, where two modules of its signature were counted twice."""
    model = Pair().eval()
    x = torch.randn(2, 8)
    _warm(model, x, recordings)
    model.b = model.a
    assert _recorded(model, x, recordings)
    assert nnscan.summary(model, inputs=x, file=False).totals["params"] == \
        _params(model) == 64 + 8


class Repeated(nn.Module):
    """A linear layer run `times` times, a class attribute."""
    times = 1

    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(8, 8)

    def forward(self, x):
        for _ in range(self.times):
            x = self.lin(x)
        return x


def test_a_class_attribute_or_method_rebound_since_records_again(
        recordings, monkeypatch):
    """A forward reads its class too: a class attribute or a method
    rebound after the model was kept (a forward patched to try another
    attention) records again, where the kept recording was printed."""
    model = Repeated().eval()
    x = torch.randn(2, 8)
    _warm(model, x, recordings)
    monkeypatch.setattr(Repeated, "times", 3)
    assert _recorded(model, x, recordings)
    # 2 rows x 8 x 8 multiply-adds a run
    assert nnscan.summary(model, inputs=x, file=False).totals["macs"] == \
        3 * 2 * 8 * 8
    _warm(model, x, recordings)
    monkeypatch.setattr(Repeated, "forward",
                        lambda self, x: self.lin(x).relu())
    assert _recorded(model, x, recordings)
    assert nnscan.summary(model, inputs=x, file=False).totals["macs"] == \
        2 * 8 * 8


def _cpu_autocasts(dtype):
    """Whether CPU autocast runs in `dtype` (float16 from PyTorch 2.x)."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            with torch.autocast("cpu", dtype=dtype):
                return torch.is_autocast_cpu_enabled()
    except RuntimeError:
        return False


@pytest.mark.skipif(not _cpu_autocasts(torch.float16),
                    reason="CPU autocast in float16 needs PyTorch 2.x")
def test_an_autocast_of_another_dtype_records_again(recordings):
    """The recording's casts follow autocast's dtype: a model kept under
    bfloat16 autocast records again under float16, and reports what a
    model never summarised before reports under it (it printed
    bfloat16's)."""
    x = torch.randn(2, 8)

    def summary(model, dtype):
        with torch.autocast("cpu", dtype=dtype):
            return nnscan.summary(model, inputs=x,
                                  file=False).to_json(version=2)
    torch.manual_seed(0)
    model = Pair().eval()
    for _ in range(3):
        summary(model, torch.bfloat16)
    was = recordings[0]
    summary(model, torch.bfloat16)
    assert recordings[0] == was  # built from the kept recording
    half = summary(model, torch.float16)
    assert recordings[0] == was + 1
    torch.manual_seed(0)
    assert half == summary(Pair().eval(), torch.float16)
    assert '"float16"' in half and "bfloat16" not in half


def test_a_kept_model_makes_no_template_of_a_layer_alike_to_none(
        recordings, monkeypatch):
    """A layer alike to none (here the model's own call) is verified by a
    later recording: a model whose state was read has none, as its next
    summary is built, so no template is made for it; a later instance of
    the architecture still replays whole, its report every layer's."""
    import test_model_replay as whole
    made = []
    real = module_replay.Layers._verify_alone

    def spy(self, path, *a):
        made.append(path)
        return real(self, path, *a)
    monkeypatch.setattr(module_replay.Layers, "_verify_alone", spy)
    model = whole.Net().eval()
    per = []
    for _ in range(4):
        del made[:]
        _same_as_every_layer_run(model, whole.X)
        per.append(list(made))
    assert per == [[], [], [], []]  # (the first runs it: learnt after)
    paths, replay = whole._paths()
    monkeypatch.setattr(module_replay.Layers, "_replay", replay)
    got = []
    for _ in range(4):  # fresh instances: each first summary reads no state
        del paths[:]
        s = _same_as_every_layer_run(whole.Net().eval(), whole.X)
        assert s.totals["macs"] == whole.MACS
        got.append(list(paths))
    assert got[-1] == [""]


def test_inputs_of_other_sizes_record_and_other_float_values_do_not(
        recordings):
    model = Net().eval()
    _warm(model, X, recordings)
    assert not _recorded(model, torch.randn(2, 3, 8, 8), recordings)
    assert _recorded(model, torch.zeros(1, 3, 8, 8), recordings)
    assert _recorded(model, torch.zeros(2, 3, 8, 8).transpose(2, 3),
                     recordings)


class Picked(nn.Module):
    """Net, whose output's columns an integer buffer picks: a recording
    reads its contents (shadow.py), so they are part of what a kept one
    holds."""

    def __init__(self):
        super().__init__()
        self.net = Net()
        self.register_buffer("pick", torch.arange(3))

    def forward(self, x, at):
        return self.net(x)[:, self.pick] + at.sum()


def test_integer_contents_changed_record_again(recordings):
    model = Picked().eval()
    at = torch.tensor([1, 2])
    _warm(model, (X, at), recordings)
    # an equal buffer in its place: compared by contents, not identity
    model.pick = torch.arange(3)
    assert not _recorded(model, (X, at), recordings)
    # another input's contents
    other = (X, torch.tensor([1, 3]))
    assert [_recorded(model, other, recordings) for _ in range(3)] == \
        [True, True, False]
    model.pick.data = torch.tensor([2, 1, 0])  # its version kept
    assert [_recorded(model, other, recordings) for _ in range(3)] == \
        [True, True, False]
    model.pick[0] = 1  # written in place: recorded twice, then built
    assert [_recorded(model, other, recordings) for _ in range(3)] == \
        [True, True, False]


class PickedByAttribute(nn.Module):
    """Picked with its integer tensor a plain attribute, not a buffer: a
    recording reads its contents all the same (shadow.py)."""

    def __init__(self):
        super().__init__()
        self.net = Net()
        self.pick = torch.arange(3)

    def forward(self, x):
        return self.net(x)[:, self.pick]


def test_a_tensor_attributes_contents_changed_record_again(recordings):
    model = PickedByAttribute().eval()
    _warm(model, X, recordings)
    assert not _recorded(model, X, recordings)
    model.pick[0] = 1  # written in place: recorded twice, then built
    assert [_recorded(model, X, recordings) for _ in range(3)] == \
        [True, True, False]
    model.pick = torch.tensor([1, 1, 2])  # an equal one in its place
    assert not _recorded(model, X, recordings)


class Scaled(nn.Module):
    """Net and a float buffer its output is scaled by."""

    def __init__(self):
        super().__init__()
        self.net = Net()
        self.register_buffer("scale", torch.ones(4, 4))

    def forward(self, x):
        return self.net(x) @ self.scale


def test_a_float_buffer_is_read_as_its_dtype_and_sizes(recordings):
    model = Scaled().eval()
    _warm(model, X, recordings)
    # other strides and values: the recording's meta copy is the same
    model.scale = torch.full((4, 4), 2.0).t()
    assert not _recorded(model, X, recordings)
    model.scale = torch.ones(4, 5)  # other sizes
    assert _recorded(model, X, recordings)
    s = nnscan.summary(model, inputs=X, file=False)
    assert s.totals["macs"] == MACS + 2 * 4 * 5
    model.scale = torch.ones(4, 4, dtype=torch.float64)  # another dtype
    model.net.double()
    assert _recorded(model, X.double(), recordings)


def test_the_recording_compares_the_signatures_the_state_made():
    """summary_memo.state's signatures of the model's modules, which the
    recording's layer_groups.candidates takes for its meta copy's
    (layer_groups.seeded), are those _deep makes of the copy; none are
    given where the copy's would differ."""
    from nnscan import layer_groups, recorder
    for model in (Net().eval(), Scaled().eval(), Picked().eval()):
        summary_memo.again(model)  # (a first summary reads no state)
        now = summary_memo.state(model, (X,), {}, "auto")
        walk = recorder.walk_once(model)
        copy, copied = recorder._meta_copy_walked(model, None, walk)
        memo = layer_groups.seeded(now.seed, copied)
        assert len([k for k in memo if type(k) is int]) == len(walk)
        for _, m in copied:
            assert memo[id(m)] == layer_groups._deep(m, {})
            # and its class's key (the class as it is now)
            assert memo[type(m)] == layer_groups._class_key(type(m), {})
    trained = Net().train()
    summary_memo.again(trained)
    assert summary_memo.state(trained, (X,), {}, "auto").seed[1] is None
    grad = Scaled().eval()
    grad.scale.requires_grad_(True)  # the copy's buffer does not
    summary_memo.again(grad)
    assert summary_memo.state(grad, (X,), {}, "auto").seed[1] is None


def test_masks_handed_over_compare_by_what_each_value_holds():
    """Two hand-overs of the same contents compare equal whichever names
    shared a call (the library counts a shared copy as it counts two);
    other contents, sizes or a later call replacing a value's do not."""
    ones, zeros = bytes([1] * 4), bytes(4)
    together = [(["a", "b"], 9, [2, 2], ones)]
    apart = [(["a"], 9, [2, 2], ones), (["b"], 9, [2, 2], ones)]
    handed = summary_memo._handed
    assert handed(together) == handed(apart)
    assert handed(together) != handed([(["a", "b"], 9, [2, 2], zeros)])
    assert handed(together) != handed([(["a", "b"], 9, [4], ones)])
    assert handed(together) != handed(apart + [(["b"], 9, [2, 2], zeros)])
    assert handed(together) == handed(
        [(["b"], 9, [2, 2], zeros)] + apart)  # replaced by the later one


def test_a_model_summarised_once_reads_no_state(recordings):
    model = Net().eval()
    first = summary_memo.state(model, (X,), {}, "auto")
    assert first.value is None and first.seed is None  # nothing read
    assert summary_memo.state(model, (X,), {}, "auto").value is not None
    other = Net().eval()
    nnscan.summary(other, inputs=X, file=False)
    # what its recording made is noted, for a second summary to compare
    assert id(other) not in summary_memo._KEPT and \
        id(other) in summary_memo._FIRST


def test_a_first_summary_notes_masks_up_to_the_limit(recordings,
                                                      monkeypatch):
    """What a first summary made is noted with the masks' contents it
    handed over, unless they pass _CONTENTS_MAX bytes."""
    from test_mask_hand_over import Decoder
    ids = torch.randint(0, 50, (1, 6))
    kept = Decoder().eval()
    nnscan.summary(kept, inputs=ids, file=False)
    assert summary_memo._FIRST[id(kept)][1][1]  # the masks handed over
    monkeypatch.setattr(summary_memo, "_CONTENTS_MAX", 8)
    other = Decoder().eval()
    nnscan.summary(other, inputs=ids, file=False)
    assert id(other) not in summary_memo._FIRST


def test_a_mode_around_the_call_records(recordings):
    from torch.utils._python_dispatch import TorchDispatchMode

    class Passing(TorchDispatchMode):
        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            return func(*args, **(kwargs or {}))
    model = Net().eval()
    _warm(model, X, recordings)
    with Passing():
        assert _recorded(model, X, recordings)


def test_a_closed_summary_leaves_the_next_whole(recordings):
    model = Net().eval()
    _warm(model, X, recordings)
    with nnscan.summary(model, inputs=X, file=False) as first:
        text = first.to_text()
    assert first.closed
    again = nnscan.summary(model, inputs=X, file=False)
    assert again.to_text() == text and again.totals["macs"] == MACS


def test_summaries_built_share_one_model_and_close_their_own(recordings):
    model = Net().eval()
    _warm(model, X, recordings)
    a = nnscan.summary(model, inputs=X, file=False)
    b = nnscan.summary(model, inputs=X, file=False)
    shared = a.analysis.model
    assert b.analysis.model is shared and shared.shared
    assert a.analysis is not b.analysis  # each its own analysis
    text = a.to_text()
    a.close()
    assert a.closed and not b.closed and not shared.closed
    assert b.to_text() == text and b.totals["macs"] == MACS
    # the model closed by hand: the next summary records, and is right
    shared.close()
    assert b.closed
    assert _recorded(model, X, recordings)
    again = nnscan.summary(model, inputs=X, file=False)
    assert again.to_text() == text


def test_summaries_built_read_one_analysis_and_close_their_own(recordings):
    """Built summaries with the same analysis options read one native
    analysis of the kept model (report.Handle.analyze of a shared one), another
    compute dtype another; each closes its own view of it, and closing
    the model closes them all. Each reports what a recording with these
    options reports."""
    model = Net().eval()
    _warm(model, X, recordings)
    a = nnscan.summary(model, inputs=X, file=False)
    b = nnscan.summary(model, inputs=X, file=False)
    c = nnscan.summary(model, inputs=X, file=False, compute_dtype="bf16")
    assert a.analysis is not b.analysis
    assert a.analysis.ptr == b.analysis.ptr != c.analysis.ptr
    fresh = Net().eval()
    for s, dtype in ((b, None), (c, "bf16")):
        want = nnscan.summary(fresh, inputs=X, file=False,
                              compute_dtype=dtype)
        assert s.to_json(version=2) == want.to_json(version=2)
        assert s.to_text() == want.to_text()
    text = b.to_text()
    a.close()
    assert a.closed and not b.closed
    with pytest.raises(nnscan.NnscanError):
        a.to_text()
    assert b.to_text() == text and b.totals["macs"] == MACS
    b.analysis.model.close()
    assert b.closed and c.closed


def test_two_threads_summarise_one_kept_model(recordings):
    model = Net().eval()
    _warm(model, X, recordings)
    want = nnscan.summary(model, inputs=X, file=False).to_text()
    got = []
    errors = in_threads(lambda _: got.extend(
        nnscan.summary(model, inputs=X, file=False).to_text()
        for _ in range(20)))
    assert not errors and got == [want] * 40


def test_two_threads_summarise_a_model_first(recordings, monkeypatch):
    """Two threads summarising one model from its first summary on (each
    may find the other's note, first or kept): every report is the one
    of every layer run, and the model is then built."""
    model = Net().eval()
    monkeypatch.setenv("NNSCAN_MODULE_REPLAY", "0")
    want = nnscan.summary(model, inputs=X, file=False).to_text()
    monkeypatch.delenv("NNSCAN_MODULE_REPLAY")
    got = []
    errors = in_threads(lambda _: got.extend(
        nnscan.summary(model, inputs=X, file=False).to_text()
        for _ in range(6)))
    assert not errors and got == [want] * 12
    assert not _recorded(model, X, recordings)


def test_a_recording_made_beside_a_kept_one_leaves_it(recordings,
                                                     monkeypatch):
    """A thread that found no entry (another had taken it out) records;
    its recording, unverified, does not replace the verified entry the
    other thread gave back: the next summary still records nothing."""
    model = Net().eval()
    _warm(model, X, recordings)
    found = summary_memo.found
    monkeypatch.setattr(summary_memo, "found", lambda m, now: None)
    was = recordings[0]
    nnscan.summary(model, inputs=X, file=False)
    assert recordings[0] == was + 1
    monkeypatch.setattr(summary_memo, "found", found)
    assert not _recorded(model, X, recordings)


def test_a_first_summarys_note_goes_with_its_model(recordings):
    import gc
    model = Net().eval()
    nnscan.summary(model, inputs=X, file=False)
    assert id(model) in summary_memo._FIRST
    del model
    gc.collect()
    assert not summary_memo._FIRST


def test_a_kept_recording_holds_no_model(recordings):
    import gc
    import weakref
    model = Net().eval()
    _warm(model, X, recordings)
    shared = nnscan.summary(model, inputs=X, file=False).analysis.model
    gone, native = weakref.ref(model), weakref.ref(shared)
    del model, shared
    gc.collect()
    # the model kept for its summaries goes with them and the entry
    assert gone() is None and native() is None and not summary_memo._KEPT


def test_every_variable_a_recording_reads_is_in_the_state():
    import os
    import re
    here = os.path.dirname(summary_memo.__file__)
    read = set()
    for name in os.listdir(here):
        if name.endswith(".py"):
            with open(os.path.join(here, name)) as f:
                read |= set(re.findall(r"environ\.get\(\s*\"(NNSCAN_\w+)",
                                       f.read()))
    assert read - {"NNSCAN_LIBRARY", "NNSCAN_MODULE_REPLAY"} == \
        set(summary_memo.VARIABLES)


def test_a_wrong_model_is_said_so_as_before():
    from nnscan import torch_api
    with pytest.raises(TypeError, match="torch.nn.Module"):
        torch_api.analyze_module(3, (X,))


class MaskedAttention(nn.Module):
    """One head of attention whose keys are masked by a boolean input:
    the mask's contents are handed over, not packed."""

    def __init__(self, d=8):
        super().__init__()
        self.qkv = nn.Linear(d, 3 * d)

    def forward(self, x, keep):
        q, k, v = self.qkv(x).chunk(3, -1)
        s = (q @ k.transpose(-1, -2)).masked_fill(~keep[:, None, :],
                                                 float("-inf"))
        return torch.softmax(s, -1) @ v


def test_a_second_summary_making_what_the_first_made_reads_its_model(
        recordings):
    """A model's second summary records; where its recording packs what
    the first's packed and hands the same masks over, it reads the model
    the first built (torch_api.built's `earlier`), shared, and reports
    what a fresh model's first summary reports. Closing the first leaves
    it."""
    model, fresh = Net().eval(), Net().eval()
    a = nnscan.summary(model, inputs=X, file=False)
    b = nnscan.summary(model, inputs=X, file=False)
    assert b.analysis.model is a.analysis.model and b.analysis.model.shared
    want = nnscan.summary(fresh, inputs=X, file=False)
    assert b.to_json(version=2) == want.to_json(version=2)
    assert b.to_text() == want.to_text() == a.to_text()
    a.close()
    assert a.closed and not b.closed and b.to_text() == want.to_text()
    # the third is built from it
    assert not _recorded(model, X, recordings)

    # masks: the same contents, the first's model; other contents (the
    # same graph), a model of its own, and its own counts
    x = torch.randn(1, 6, 8)
    every = torch.ones(1, 6, dtype=torch.bool)
    half = every.clone()
    half[:, 3:] = False
    masked = MaskedAttention().eval()
    a = nnscan.summary(masked, inputs=(x, every), file=False)
    b = nnscan.summary(masked, inputs=(x, every), file=False)
    assert b.analysis.model is a.analysis.model
    other = MaskedAttention().eval()
    a = nnscan.summary(other, inputs=(x, every), file=False)
    b = nnscan.summary(other, inputs=(x, half), file=False)
    assert b.analysis.model is not a.analysis.model
    want = nnscan.summary(MaskedAttention().eval(), inputs=(x, half),
                          file=False)
    assert b.to_json(version=2) == want.to_json(version=2)
    # half the keys masked
    assert b.totals["macs_unmasked"] < a.totals["macs_unmasked"]


def test_a_first_summary_closed_leaves_its_second_a_model_of_its_own(
        recordings):
    model = Net().eval()
    with nnscan.summary(model, inputs=X, file=False) as first:
        text = first.to_text()
    assert first.closed and first.analysis.model.closed
    second = nnscan.summary(model, inputs=X, file=False)
    assert second.analysis.model is not first.analysis.model
    assert second.to_text() == text


def test_a_second_summary_reads_the_first_ones_model_whatever_it_analysed(
        recordings):
    """The model a first summary with a roofline or another compute dtype
    built gives a second summary with other options its own analysis:
    the same report as a fresh model's."""
    for first, second in (({"hardware": "h100-sxm"}, {}),
                          ({"compute_dtype": "bf16"}, {}),
                          ({}, {"hardware": "h100-sxm"})):
        model = Net().eval()
        a = nnscan.summary(model, inputs=X, file=False, **first)
        b = nnscan.summary(model, inputs=X, file=False, **second)
        assert b.analysis.model is a.analysis.model
        want = nnscan.summary(Net().eval(), inputs=X, file=False, **second)
        assert b.to_json(version=2) == want.to_json(version=2)
        assert b.to_text() == want.to_text()


def test_a_first_summary_read_on_a_thread_while_its_model_is_shared(
        recordings):
    """One thread reads (and then closes) a model's first summary while
    another makes its second and later ones, which share the model the
    first built: every report whole, no model closed under a reader."""
    for _ in range(5):
        model = Net().eval()
        first = nnscan.summary(model, inputs=X, file=False)
        want = first.to_text()
        got = []

        def work(k):
            if k == 0:
                got.extend(first.to_text() for _ in range(10))
                first.close()
            else:
                got.extend(nnscan.summary(model, inputs=X, file=False)
                           .to_text() for _ in range(5))
        errors = in_threads(work)
        assert not errors and got == [want] * 15
