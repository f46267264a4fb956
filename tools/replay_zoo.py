#!/usr/bin/env python3
"""Every family of python/tests_hf/hf_zoo.py with more layers than its
tiny config (five: replay.py replays a layer's attention from the third
call on), summarized with every call run (NNSCAN_REPLAY=0), then twice
with repeated attention calls replayed (the second also replays what the
first kept for the process, and every family's summaries may replay a
template an earlier family kept): whether the reports (JSON v2, text,
CSV) are the same, and how many calls were replayed. Text models twice:
as the zoo feeds them and with a right-padded attention_mask (the mask's
values tracked). Whole layers are not replayed (NNSCAN_MODULE_REPLAY=0):
from a family's second summary module_replay.py would replay every layer
from a template kept for the process, the attention calls inside with
it, and no call of replay.py's would be left to compare
(bench/same_summary.py and the tests compare the layers' replay).
PyTorch 2.x with transformers (the sid chroot):

    /work/sidrun . 'NNSCAN_LIBRARY=build/dev/libnnscan.so PYTHONPATH=python python3 tools/replay_zoo.py [--layers 5] [FAMILY ...]'

Exits 1 when any report differs, or when no call was replayed (then
nothing was compared).
"""
import argparse
import os
import sys
import warnings

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "python"))
sys.path.insert(0, os.path.join(HERE, "..", "python", "tests_hf"))

LAYER_KEYS = ("num_hidden_layers", "n_layer", "encoder_layers",
              "decoder_layers", "num_layers", "num_decoder_layers",
              "n_layers")


def reports(model, inputs):
    import nnscan
    from nnscan import replay
    count = [0]
    real = replay.Replays.replay

    def counted(self, *a):
        count[0] += 1
        return real(self, *a)
    out = []
    replay.Replays.replay = counted
    try:
        for env in ("0", "1", "1"):
            os.environ["NNSCAN_REPLAY"] = env
            s = nnscan.summary(model, inputs=inputs, file=False)
            out.append((s.to_json(version=2), s.to_text(), s.to_csv()))
    finally:
        replay.Replays.replay = real
        os.environ.pop("NNSCAN_REPLAY", None)
    return out[0] == out[1] == out[2], count[0]


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--layers", type=int, default=5)
    ap.add_argument("families", nargs="*")
    a = ap.parse_args()
    warnings.simplefilter("ignore")
    os.environ["NNSCAN_MODULE_REPLAY"] = "0"
    import torch
    import hf_zoo
    for k in LAYER_KEYS:
        hf_zoo.TINY[k] = a.layers
    differ = replayed = 0
    for name in a.families or sorted(hf_zoo.FAMILIES):
        try:
            model, inputs = hf_zoo.build(name)
        except Exception as e:  # noqa: BLE001 - the zoo's, reported
            print(f"{name}: not built ({type(e).__name__}: {e})"[:200])
            continue
        cases = [("as fed", inputs)]
        if "input_ids" in inputs:
            ids = inputs["input_ids"]
            am = torch.ones_like(ids)
            am[:, -3:] = 0
            cases.append(("padded", dict(inputs, attention_mask=am)))
        for what, inp in cases:
            try:
                same, n = reports(model, inp)
            except Exception as e:  # noqa: BLE001 - reported
                print(f"{name} {what}: failed ({type(e).__name__}: {e})"
                      [:200])
                continue
            replayed += n
            differ += not same
            print(f"{name} {what}: {'same' if same else 'DIFFER'}, "
                  f"{n} calls replayed", flush=True)
    print(f"replay_zoo: {differ} differ; {replayed} calls replayed")
    sys.exit(1 if differ or not replayed else 0)


if __name__ == "__main__":
    main()
