"""nnscan in the trainers people use (docs/mfu.md).

    from nnscan.integrations import HFCallback
    trainer = transformers.Trainer(model=model, args=args, ...)
    HFCallback.attach(trainer, device="h100-sxm", dtype="bf16")
    trainer.train()     # every log has mfu, hfu, tflops, tokens_per_s

HFCallback is a transformers TrainerCallback: it times each optimizer
step between on_step_begin and on_step_end (nnscan.StepMeter's clock),
notes the inputs of each forward the model runs in that step (a forward
pre-hook: their shapes and batch sizes), records the FLOPs of each input
shape once, after the step that first had it (on meta: StepMeter's
record_flops), and on each on_log adds the figures of the steps since the
last log - the library's, at their median step time - to the trainer's
`logs`, which every reporter then gets. attach() puts it first among the
trainer's callbacks so that the printer and the reporters see its keys;
given as Trainer(callbacks=[...]) it runs after them, and only
trainer.state.log_history and later callbacks get the figures.
"""
import statistics

from . import _mfu_api
from .step import StepMeter, _samples, _shape_key, _tokens, flops_dict

try:
    from transformers import TrainerCallback as _Base
except ImportError:  # the class still imports; using it needs transformers
    _Base = object


def _sum_flops(parts):
    """One optimizer step's StepFlops: the sum of its forwards' (gradient
    accumulation runs several)."""
    out = _mfu_api.StepFlops()
    for f in parts:
        for k, _ in out._fields_[1:]:
            if k == "flags":
                out.flags |= f.flags
            else:
                setattr(out, k, getattr(out, k) + getattr(f, k))
    out._recomputed = sorted({p for f in parts
                              for p in getattr(f, "_recomputed", [])})
    out._recompute_exact = all(getattr(f, "_recompute_exact", True)
                               for f in parts)
    return out


class HFCallback(_Base):
    """Adds `mfu`, `hfu`, `tflops` (model FLOP/s / 1e12) and
    `tokens_per_s` to a transformers Trainer's logs. Arguments as
    nnscan.StepMeter's (device or peak_flops, dtype, peak_dtype,
    hardware_file, warmup, log); file=False by default (the trainer
    prints its own logs)."""

    KEYS = ("mfu", "hfu", "tflops", "tokens_per_s")

    def __init__(self, device=None, *, peak_flops=None, dtype=None,
                 peak_dtype=None, hardware_file=None, warmup=2, log=None,
                 file=False):
        if _Base is object:
            raise ImportError("HFCallback needs the transformers package")
        self._kw = dict(device=device, peak_flops=peak_flops, dtype=dtype,
                        peak_dtype=peak_dtype, hardware_file=hardware_file,
                        warmup=warmup, log=log, file=file)
        self.meter = None
        self._hook = None
        self._calls = []      # (shape key, args, kwargs) of this step
        self._in_step = False
        self._logged = 0      # records already in a log

    @classmethod
    def attach(cls, trainer, **kw):
        """A new HFCallback placed first among `trainer`'s callbacks (so
        the printer and every reporter see its keys); returned."""
        cb = cls(**kw)
        trainer.callback_handler.callbacks.insert(0, cb)
        return cb

    # -- the trainer's events --
    def on_train_begin(self, args, state, control, model=None, **kw):
        if model is None:
            return
        self.meter = StepMeter(model, **self._kw)
        self._hook = model.register_forward_pre_hook(self._pre,
                                                     with_kwargs=True)

    def _pre(self, module, args, kwargs):
        if self._in_step and module.training and \
                not any(getattr(t, "is_meta", False) for t in args):
            self._calls.append((_shape_key(args, kwargs), args, kwargs))

    def on_step_begin(self, args, state, control, **kw):
        if self.meter is None:
            return
        self._calls = []
        self._in_step = True
        self.meter.begin()

    def on_step_end(self, args, state, control, **kw):
        if self.meter is None or not self._in_step:
            return
        self._in_step = False
        calls, self._calls = self._calls, []
        # the clock stops first: recording a new shape's FLOPs (after the
        # step) is never in a step's time
        span = self.meter._timer.stop(self.meter._start)
        parts, samples, tokens = [], 0, 0
        for key, a, k in calls:
            f = self.meter._flops.get(key)
            if f is None:
                f = self.meter.flops_for(a, k)
            parts.append(f)
            samples += _samples(a, k)
            tokens += max(0, _tokens(a, k, f))
        if not parts:
            return
        m = self.meter
        i = m._index
        m._index += 1
        if i >= m.warmup:
            m._pending.append((i, span, _sum_flops(parts), samples,
                               tokens if tokens > 0 else -1, m._dtype))
        m._resolve(wait=False)

    def on_log(self, args, state, control, logs=None, **kw):
        if self.meter is None or logs is None or "loss" not in logs:
            return
        self.meter._resolve(wait=True)
        new = self.meter.records[self._logged:]
        if not new:
            return
        self._logged = len(self.meter.records)
        for key in self.KEYS:
            src = "tflops" if key == "tflops" else key
            logs[key] = statistics.median(r[src] for r in new)
        # Trainer.log appended a copy of logs to the history before this
        # event: the history gets the figures too
        if state.log_history and state.log_history[-1].get("step") == \
                state.global_step:
            state.log_history[-1].update({k: logs[k] for k in self.KEYS})

    def on_train_end(self, args, state, control, **kw):
        if self._hook is not None:
            self._hook.remove()
            self._hook = None
        if self.meter is not None:
            self.meter.close()

    @property
    def flops(self):
        """The FLOPs of the last input shape recorded, as a dict."""
        if self.meter is None or not self.meter._flops:
            return None
        return flops_dict(list(self.meter._flops.values())[-1])


__all__ = ["HFCallback"]
