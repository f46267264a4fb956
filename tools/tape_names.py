#!/usr/bin/env python3
"""Whether the library names a call as its ops_map.py rule does (issue
45, item 2: the tape owning naming).

Records models on the ops_map.py path for the ops given (by default every
op of the library's aten table), and at each of their calls asks the
library how it would lower and name the call (tape._plan, the
nns_aten_numbering a numbered tape record is made with) and compares that
with what the rule just made: the op types of its nodes in order, how
many value numbers and nodes it took, and the number each output took
("vN"; 0 unnamed, -1 another value's name). One line per op: calls,
calls agreeing, the first difference. An op agreeing on every call of a
wide set of models is a candidate for tape.NUMBERED; bench/same_summary.py
(NNSCAN_TAPE_NUMBERED=1 against 0) is the proof.

    tape_names.py resnet18 mobilenet_v3_small [--ops convolution,mean]
    tape_names.py hf:llama hf:t5                  (PyTorch 2.x, transformers)
    tape_names.py --all-torchvision
    tape_names.py --pytest python/tests -q -x   (every call the tests make:
                                                 the ops no model uses)
"""
import argparse
import collections
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "python"))
sys.path.insert(0, os.path.join(HERE, "..", "python", "tests_hf"))
sys.path.insert(0, os.path.join(HERE, "..", "bench"))
os.environ["NNSCAN_TAPE_NUMBERED"] = "0"  # every call through its rule

import torch  # noqa: E402

from nnscan import _api, ops_map, tape  # noqa: E402

TALLY = collections.defaultdict(lambda: [0, 0, None])


def _rule_numbers(b, outs, before, first):
    got = []
    for o, was in zip(outs, before):
        n = b.names.get(id(o)) if isinstance(o, torch.Tensor) else None
        if n is None or n == was:
            got.append(0)
        elif n[0] == "v" and n[1:].isdigit() and int(n[1:]) > first:
            got.append(int(n[1:]) - first)
        else:
            got.append(-1)
    return tuple(got)


def checked(base, rule):
    def wrapper(b, args, kw, out):
        g = b.g
        outs = out if isinstance(out, (tuple, list)) else (out,)
        before = [b.names.get(id(o)) for o in outs]
        n0, first, k0 = len(g.nodes), g._counter, g._nodes_made
        rule(b, args, kw, out)
        if not all(isinstance(o, torch.Tensor) for o in outs):
            return
        row = TALLY[base]
        mine = (g._counter - first, g._nodes_made - k0,
                _rule_numbers(b, outs, before, first),
                tuple(f"{n.domain}:{n.op}" if n.domain else n.op
                      for n in g.nodes[n0:]))
        names = tape._named(ARGS[id(rule)], args, kw)
        sig = tape._signature(names, [])
        if sig is None:
            return
        plan = tape._plan(base, sig, outs)
        if isinstance(plan, tape._Aliases):  # no node, outputs renamed
            plan = (0, 0, (-1,) * len(outs), ())
        row[0] += 1
        if plan is not None and plan[:4] == mine:
            row[1] += 1
        elif row[2] is None:
            row[2] = f"rule {mine} library {plan}"
    return wrapper


ARGS = {}


def install(ops):
    """Wraps the rules of `ops` (the schema's names come from the first
    call: the wrapper is per base name, the overloads share it)."""
    import nnscan.recorder as rec
    entry = rec._entry

    def _entry(b, func):
        e = entry(b, func)
        rule = e[1]
        if e[0] in ops and rule is not None and rule not in (
                ops_map.ALIAS, ops_map.CREATE):
            w = WRAPPED.get((e[0], rule))
            if w is None:
                w = WRAPPED[(e[0], rule)] = checked(e[0], rule)
            ARGS[id(rule)] = tuple(a.name for a in func._schema.arguments)
            e = (e[0], w) + e[2:]
            b.rules[func] = e
        return e
    rec._entry = _entry


WRAPPED = {}


def models(names, all_tv):
    import same_summary
    tv = dict(same_summary.torchvision_models(same_summary.SKIP))
    hf = dict(same_summary.hf_models())
    if all_tv:
        names = list(tv) + names
    for n in names:
        key = n if n in tv or n in hf else (
            "tv_" + n if "tv_" + n in tv else "hf_" + n.split(":")[-1])
        yield key, tv.get(key) or hf.get(key)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("models", nargs="*")
    ap.add_argument("--ops", default="")
    ap.add_argument("--all-torchvision", action="store_true")
    ap.add_argument("--pytest", nargs=argparse.REMAINDER,
                    help="run pytest with these arguments instead of models")
    a = ap.parse_args()
    import nnscan
    _api.lib()
    ops = set(filter(None, a.ops.split(","))) or set(_api.ATEN_OPS)
    install(ops)
    if a.pytest is not None:
        import pytest
        pytest.main(a.pytest)
    for name, make in models(a.models, a.all_torchvision):
        if make is None:
            print(name, "unknown model", file=sys.stderr)
            continue
        try:
            model, inputs = make()
            if isinstance(inputs, dict):
                nnscan.summary(model, inputs=inputs, file=False)
            else:
                nnscan.summary(model, inputs=inputs, file=False)
        except Exception as e:  # noqa: BLE001 - said, and the rest go on
            print(name, "failed:", type(e).__name__, e, file=sys.stderr)
    print(f"{'op':36} {'calls':>6} {'agree':>6}  first difference")
    for base in sorted(TALLY):
        calls, agree, why = TALLY[base]
        print(f"{base:36} {calls:6} {agree:6}  {why or ''}")


if __name__ == "__main__":
    main()
