"""transformers models summarised again as they were (summary_memo.py):
from a process's third summary no recording is made, whether or not the
model replays whole (Mamba's, Whisper's, RWKV's and DeepSeek-V2's calls
never do), every report is the one with every layer run
(NNSCAN_MODULE_REPLAY=0), and an attention mask of other contents
records again: its masked-attention MACs are the ones the model's own
attention leaves out."""
import pytest
import torch

transformers = pytest.importorskip("transformers")

import hf_zoo  # noqa: E402
from conftest import replay_reports  # noqa: E402
from test_masked_attention_hf import _attention_mask, _hf, eager_calls, \
    B, T, V  # noqa: E402


def _recorded(model, inputs, recordings):
    """Whether one summary made a recording; its reports checked against
    every layer run (whose summary always records)."""
    was = recordings[0]
    on, s = replay_reports(model, inputs, True)
    assert on == replay_reports(model, inputs, False)[0]
    return recordings[0] - was == 2, s


@pytest.mark.parametrize("family", [
    "bert", "llama", "gpt2", "t5", "clip", "mamba", "whisper", "rwkv",
    "deepseek_v2", "gemma2"])
def test_a_model_is_built_from_its_third_summary(family, recordings):
    # the first reads no state; the second's recording, whose layers
    # replay, makes what the first's made: the same graph, the masks the
    # same contents (the causal triangle's ones handed over as a fill by
    # the layer that runs and the layers that replay alike:
    # module_replay._Fill; Gemma-2's layers hand over one by one masks
    # another summary hands over together, counted the same:
    # summary_memo._handed)
    model, inputs = hf_zoo.build(family, device="cpu")
    got = [_recorded(model, inputs, recordings)[0] for _ in range(5)]
    assert got == [True, True, False, False, False]


def test_a_mask_of_other_contents_records_again(recordings):
    model, module = _hf("llama", "eager")
    ids = torch.randint(0, V, (B, T),
                        generator=torch.Generator().manual_seed(1))
    for i, pad in enumerate((3, -4, 3)):
        kwargs = {"input_ids": ids, "attention_mask": _attention_mask(pad)}
        calls = eager_calls(model, module, kwargs)
        got = [_recorded(model, kwargs, recordings) for _ in range(3)]
        # the model's first summary reads no state, and its second makes
        # what it made; a padding's state once kept is recorded twice
        # anew (the first padding's again: its entry was dropped for the
        # second's)
        assert [r for r, _ in got] == [True, True, False]
        for _, s in got:
            t = s.totals
            assert t["macs"] - t["macs_unmasked"] == calls.left_out
