"""Every transformers model type, tiny and on the meta device, against
PyTorch: a survey beyond the zoo of python/tests_hf (issue 16).

For each `model_type` transformers registers (or the ones named), the
config gets python/tests_hf/hf_zoo.py's TINY sizes for the fields it has,
the model is built on meta (AutoModelForCausalLM when it is a causal LM,
else AutoModel) and fed input_ids (+ decoder_input_ids) or pixel_values.
One line per type: parameters against sum(p.numel()), matrix-product MACs
against FlopCounterMode (hf_zoo.reference), the aten ops left uncounted, or
the stage that failed (config, build, fcm: PyTorch's own reference could
not run, nnscan). A generic tiny config does not fit every architecture:
config/build/fcm failures are the survey's, not nnscan's.

Run (PyTorch 2.x with transformers: the sid chroot), from the repository:
    NNSCAN_LIBRARY=build/gcc/libnnscan.so python3 tools/hf_sweep.py [TYPE...]
"""
import os
import signal
import sys
import warnings

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "python"))
sys.path.insert(0, os.path.join(HERE, "..", "python", "tests_hf"))

import torch  # noqa: E402
import transformers  # noqa: E402
from transformers.models.auto import modeling_auto  # noqa: E402

import hf_zoo  # noqa: E402
import nnscan  # noqa: E402

LIMIT_S = 120


class TimeLimit(Exception):
    pass


def _alarm(*_):
    raise TimeLimit()


def inputs(model, cfg):
    main = getattr(model, "main_input_name", "input_ids")
    ids = torch.zeros(1, hf_zoo.SEQ, dtype=torch.long)
    if main == "input_ids":
        out = {"input_ids": ids}
        if getattr(cfg, "is_encoder_decoder", False):
            out["decoder_input_ids"] = ids[:, :8]
        return out
    if main == "pixel_values":
        size = getattr(cfg, "image_size", hf_zoo.TINY["image_size"])
        size = size[0] if isinstance(size, (list, tuple)) else size
        return {"pixel_values": torch.zeros(
            1, getattr(cfg, "num_channels", 3), size, size)}
    return None


def survey(name):
    stage = "config"
    try:
        cls = transformers.CONFIG_MAPPING[name]
        cfg = cls(**hf_zoo._tiny(cls, {}))
        stage = "build"
        causal = name in modeling_auto.MODEL_FOR_CAUSAL_LM_MAPPING_NAMES
        auto = transformers.AutoModelForCausalLM if causal \
            else transformers.AutoModel
        with torch.device("meta"):
            model = auto.from_config(cfg)
        model.eval()
        feed = inputs(model, cfg)
        if feed is None:
            return f"skip (input {model.main_input_name})"
        stage = "fcm"
        params, macs_ref = hf_zoo.reference(model, feed)
        stage = "nnscan"
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            s = nnscan.summary(model, inputs=feed, file=False)
        got = s.totals["params"] + s.totals.get("frozen", 0)
        macs = hf_zoo.matmul_macs(s)
        ratio = macs / macs_ref if macs_ref else float("nan")
        return (f"params {'OK' if got == params else f'{got}/{params}'} "
                f"macs/FlopCounterMode {ratio:.4f} "
                f"uncounted {s.uncounted_aten or '{}'}")
    except TimeLimit:
        return f"{stage}: over {LIMIT_S} s"
    except Exception as e:  # noqa: BLE001 - a survey line, not a crash
        return f"{stage}: {type(e).__name__}: {str(e).splitlines()[0][:120]}"


def main(names):
    signal.signal(signal.SIGALRM, _alarm)
    for name in names or sorted(transformers.CONFIG_MAPPING.keys()):
        signal.alarm(LIMIT_S)
        try:
            line = survey(name)
        finally:
            signal.alarm(0)
        print(f"{name:28s} {line}", flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
