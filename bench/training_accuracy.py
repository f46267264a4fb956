#!/usr/bin/python3
"""summary(..., training=True) against real CPU steps: the figures behind
python/tests_hf/test_train_step.py, printed (issue 21).

    chroot /work/sid sh -c 'cd /work/wt/<you> && PYTHONPATH=python \
        NNSCAN_LIBRARY=$PWD/build/libnnscan.so python3 bench/training_accuracy.py'

For the test's GPT-2-style transformer and ResNet-18 (batch 4, training
mode, AdamW): saved bytes against a saved-tensor hook on a real CPU step
(total, and the worst relative difference over the top-level modules),
the peak against PyTorch's MemTracker over a real steady-state step,
gradient and optimizer bytes against PyTorch's; then the checkpoint plan
for a budget of 85 % of the GPT-2 peak, applied with torch.utils.checkpoint
on a real step. The references are the test's own functions.
"""
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "python", "tests_hf"))
sys.path.insert(0, os.path.join(HERE, "..", "python"))

import nnscan  # noqa: E402
import test_train_step as T  # noqa: E402


def main():
    for name in ("gpt2", "cnn"):
        model, args, kwargs, loss = T.MODELS[name]()
        s = nnscan.summary(model, inputs=kwargs or args, training=True,
                           optimizer="adamw", loss=loss, file=False)
        want = T.saved_by_top_module(model, args, kwargs, loss)
        tops = {l["path"]: l["saved_bytes"] for l in s.layers
                if l["path"] and "." not in l["path"]}
        tops[""] = s.layer("")["saved_bytes"] - sum(tops.values())
        worst = max(abs(tops.get(k, 0) - want.get(k, 0)) / max(want.get(k, 0), 1)
                    for k in set(tops) | set(want))
        peak, grads, state = T.real_step(model, args, kwargs, loss)
        t = s.totals
        print(f"{name}: saved {t['saved_bytes']} (hook {sum(want.values())}, "
              f"worst top-level module {worst:.2%}); peak "
              f"{t['train_peak_bytes']} (MemTracker {peak}, "
              f"{t['train_peak_bytes'] / peak - 1:+.2%}) at "
              f"{t['training']['peak_at']}; grads {t['grad_bytes']} "
              f"(PyTorch {grads}); optimizer {t['optimizer_bytes']} "
              f"(PyTorch {state})")
    model, args, kwargs, loss = T.gpt2()
    full = nnscan.summary(model, inputs=kwargs, training=True,
                          optimizer="adamw", file=False)
    budget = int(full.totals["train_peak_bytes"] * 0.85)
    s = nnscan.summary(model, inputs=kwargs, training=True, optimizer="adamw",
                       budget=budget, file=False)
    plan = s.totals["training"]["checkpoint"]
    measured, _, _ = T.real_step(model, args, kwargs, loss,
                                 modules=plan["modules"])
    print(f"gpt2 plan for {budget}: {len(plan['modules'])} modules, "
          f"predicted peak {plan['peak_bytes']}, measured with them "
          f"checkpointed {measured} ({measured / budget - 1:+.2%} of the "
          f"budget): {plan['modules']}")


if __name__ == "__main__":
    main()
