#!/usr/bin/env python3
"""Whether every nnscan.summary a test suite makes reports the same with
one of the recorder's switches off and on: NNSCAN_MODULE_REPLAY (the
default; module_replay.py: repeated layers replayed from a template,
against every call recorded) or, with `--variable NAME`, another,
NNSCAN_REPLAY (replay.py: repeated fused calls replayed, against every
call run).

Runs pytest with the switch on and nnscan.summary wrapped: each call is
made first with NAME=0 (into a string: what a test prints is the second
call's), then as the test asked, PyTorch's random state put back in
between (inputs made from shapes, shadows of random values); the two
reports are compared as JSON v2, text, CSV and, with backward=True, the
backward table's text. A call the test made with the switch off, or with
graph._pack_parts patched (the tests that read what is packed), or inside
an autocast region (PyTorch caches a weight's cast per region: a second
call would not see what the first saw), is made once, as asked. Each
difference is printed with the test and its first difference; the exit
status is 1 when any. Tests that count the forward's calls or
collections, the calls and layers replayed, or the recordings
summary_memo.py spares fail under it by construction (every summary is
made twice): BY_CONSTRUCTION leaves them out, `--all-tests` (first)
keeps them. Run it from python/, as ctest and tests/sid_chroot.sh do:

    cd python && ../tools/switch_same.py tests -q -x
    cd /nnscan/python && python3 ../tools/switch_same.py tests tests_hf -q
        (the second in the sid chroot: tests/sid_chroot.sh shell DIR)

(Until session 107 it compared the library's numbering of the tape with
the recorder's rules, python/nnscan/ops_map.py, as tools/tape_same.py:
every summary of both suites the same before the rules went.)
"""
import io
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "python"))

VARIABLE = ["NNSCAN_MODULE_REPLAY"]  # the switch compared (--variable)
ON = ["1"]  # its value when on (--as)
# the tests that fail under the comparison by construction: they count the
# forward's calls (a model's exception raised once), the collector's runs,
# the layers or the whole model replayed, the recordings the summary memo
# spares, the forwards recorded deferred. Tests by their path from python/
# and name (deselected, whatever pytest takes as its root: its node ids
# are relative to it), files ignored.
BY_CONSTRUCTION = (
    "tests/test_hardening.py::"
    "test_forward_errors_raise_once_without_blaming_meta",
    "tests/test_hardening.py::"
    "test_c_code_refusing_meta_falls_back_own_runtime_error_does_not",
    "tests/test_gc_paused.py::test_no_collection_inside_a_backward_summary",
    "tests/test_tape_deferred.py::"
    "test_layers_replay_with_the_numbering_deferred",
    "tests/test_tape_deferred.py::test_a_backward_is_the_rules",
    "tests/test_tape_deferred.py::test_arguments_read_at_their_nodes",
    # DeBERTa-v2's attention scale is a torch.jit.script function
    # (scaled_size_sqrt, sqrt(tensor(head size) * factor)): once
    # TorchScript's profiling executor has run it a few times in the
    # process (the test's own CPU forward under FlopCounterMode), its Mul
    # and Sqrt no longer reach the dispatcher, so a summary after it
    # records two calls fewer per layer (4 FLOPs of 3.4 M) where a layer
    # replayed from a template made before it does not; making every
    # summary twice changes which is which (torch.jit's
    # optimized_execution(False) does not bring them back)
    "tests_hf/test_attention_mask_meta.py::"
    "test_pad_token_check_records_on_meta",
)
BY_CONSTRUCTION_FILES = (
    "tests/test_module_replay.py", "tests/test_model_replay.py",
    "tests/test_summary_memo.py", "tests_hf/test_replay.py",
    "tests_hf/test_layer_replay_hf.py", "tests_hf/test_model_replay_hf.py",
    "tests_hf/test_summary_memo_hf.py")


class _ByConstruction:
    """pytest plugin deselecting BY_CONSTRUCTION's tests."""

    @staticmethod
    def pytest_collection_modifyitems(config, items):
        def left_out(item):
            test = "/" + item.nodeid.split("[")[0]
            return any(test.endswith("/" + t) for t in BY_CONSTRUCTION)
        out = [i for i in items if left_out(i)]
        if out:
            config.hook.pytest_deselected(items=out)
            items[:] = [i for i in items if not left_out(i)]


DIFFERENT = []
CALLS = [0]
SKIPPED = [0]  # calls made once (see above)


def _forms(s):
    # JSON first: its difference is told by path
    out = [("json", s.to_json(version=2)), ("text", s.to_text()),
           ("csv", s.to_csv())]
    back = getattr(s, "backward", None)
    if back is not None:  # (its JSON names its inputs and values)
        out += [("backward json", back.to_json(version=2)),
                ("backward", back.to_text())]
    return out


def _json_difference(a, b, path=""):
    """The first path where two parsed JSON values differ, and both there."""
    if type(a) is not type(b):
        return f"{path}: off {a!r:.100} on {b!r:.100}"
    if isinstance(a, dict):
        for k in list(a) + [k for k in b if k not in a]:
            if a.get(k) != b.get(k):
                return _json_difference(a.get(k), b.get(k), f"{path}.{k}")
    elif isinstance(a, list) and len(a) == len(b):
        for k, (x, y) in enumerate(zip(a, b)):
            if x != y:
                return _json_difference(x, y, f"{path}[{k}]")
    return f"{path}: off {a!r:.100} on {b!r:.100}"


def _first_difference(a, b):
    if a.startswith("{"):
        import json
        return _json_difference(json.loads(a), json.loads(b))
    for k, (x, y) in enumerate(zip(a.splitlines(), b.splitlines())):
        if x != y:
            return f"line {k + 1}: off {x[:100]!r} on {y[:100]!r}"
    return "lengths differ"


def _autocast(torch):
    """Whether an autocast region is open (CUDA's or the CPU's)."""
    try:
        return torch.is_autocast_enabled("cpu") or \
            torch.is_autocast_enabled("cuda")
    except TypeError:  # PyTorch 1.13: no device argument
        return torch.is_autocast_enabled() or \
            torch.is_autocast_cpu_enabled()


def install():
    import torch
    from nnscan import graph, torch_api
    summary = torch_api.summary
    pack = graph._pack_parts
    # the switch on for the suite; each summary also made with it off
    var, value = VARIABLE[0], ON[0]
    os.environ[var] = value

    def twice(*args, **kwargs):
        if os.environ.get(var) != value or \
                graph._pack_parts is not pack:
            # the test chose the switch, or reads what is packed: its own
            # call only
            SKIPPED[0] += 1
            return summary(*args, **kwargs)
        if _autocast(torch):
            # PyTorch caches a weight's cast for the autocast region: a
            # second call in it would not see what the first saw
            SKIPPED[0] += 1
            return summary(*args, **kwargs)
        state = torch.random.get_rng_state()
        try:
            os.environ[var] = "0"
            off = summary(*args, **dict(kwargs, file=io.StringIO()))
        except Exception:  # noqa: BLE001 - the second call says it again
            off = None
        finally:
            torch.random.set_rng_state(state)
            os.environ[var] = value
        on = summary(*args, **kwargs)
        CALLS[0] += 1
        test = os.environ.get("PYTEST_CURRENT_TEST", "?").split(" ")[0]
        if off is None:
            DIFFERENT.append((test, "the call with it off raised, on "
                              "did not"))
            return on
        for (form, a), (_, b) in zip(_forms(off), _forms(on)):
            if a != b:
                DIFFERENT.append((test, f"{form}: {_first_difference(a, b)}"))
                break
        return on
    torch_api.summary = twice


def main():
    import pytest
    args = sys.argv[1:]
    every_test = args[:1] == ["--all-tests"]
    if every_test:
        args = args[1:]
    if args[:1] == ["--variable"]:
        VARIABLE[0], args = args[1], args[2:]
    if args[:1] == ["--as"]:
        ON[0], args = args[1], args[2:]
    plugins = []
    if not every_test:
        args = ["--ignore=" + f for f in BY_CONSTRUCTION_FILES] + args
        plugins.append(_ByConstruction())
    install()
    status = pytest.main(args, plugins=plugins)
    print(f"\nswitch_same: {VARIABLE[0]}: {CALLS[0]} summaries made both ways, "
          f"{len(DIFFERENT)} differ ({SKIPPED[0]} made once: in an "
          f"autocast region, or on the path the test chose)")
    for test, why in DIFFERENT:
        print(f"  {test}: {why}")
    sys.exit(1 if DIFFERENT else 0 if status == 0 else status)


if __name__ == "__main__":
    main()
