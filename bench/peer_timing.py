"""nnscan.summary next to the tools a PyTorch user would pick instead, on
one live CPU model, in one process (bench/recording_speed.py's torchvision
and hf cases; issue 46's goals).

Each tool is called as a user calls it on a CPU model with its inputs:

  summary        nnscan.summary, its table printed into a string (it
                 records a meta copy of the model itself)
  flop_counter   torch.utils.flop_counter.FlopCounterMode (display=False,
                 under no_grad) over a meta copy made in the timed call:
                 copy.deepcopy(model).to("meta") and the inputs moved there
  torchinfo      torchinfo.summary(model, input_data=..., verbose=0) and
                 its table formatted (str)
  torchscan      torchscan.summary, its table printed into a string (an
                 input shape for one tensor input, kwargs= for keyword
                 inputs: torchscan 0.2's API)
  thop           thop.profile(model, inputs) with its warnings off; it calls
                 model(*inputs), so keyword inputs are passed in the
                 forward's positional order (defaults between them)
  eager_forward  model(*args, **kwargs) under no_grad

A tool that does not import is left out; one that raises on a model is
reported as "failed: reason" in that model's row (its first call is the
block's warm-up, and any module hook or buffer it left behind is removed
before the next tool). The tools are timed one block after another, not
in turns: after an eager forward OpenBLAS's workers spin for a while, and
a recording timed then shares the cores with them.

Goals (issue 46, PyTorch 2.x): peer / summary >= GOALS[peer], and the
summary no slower than max(one eager forward, 10 ms). Judged on wall time
by default (what the user waits for; on a quiet machine): --basis cpu
judges on process CPU time (all threads: the eager forward and the hook
tools run on every torch thread, the recording on one).
"""
import contextlib
import copy
import gc
import importlib.metadata
import importlib.util
import inspect
import io
import statistics
import time
import warnings

GOALS = {"flop_counter": 2.0, "torchinfo": 1.5, "torchscan": 2.0,
         "thop": 2.0}
EAGER_MIN_S = 0.010          # the summary may take max(eager, 10 ms)
PEERS = ("flop_counter", "torchinfo", "torchscan", "thop")
ORDER = ("summary",) + PEERS + ("eager_forward",)


def settled(fn):
    """fn(), then the young generation's collection it left due, in the
    call's time. Python's collector runs at an allocation once enough
    objects were made since the last run: what a call leaves alive (or
    made while it paused the collector, as nnscan.summary does) is walked
    at whatever allocation comes next, the next timed call's when calls
    take turns, another tool's or the other package's. Each timed call
    pays its own."""
    out = fn()
    gc.collect(0)
    return out


def timed(fn, runs, warmup=1):
    """Median, min and max wall and CPU time of fn over `runs` calls, each
    settled()."""
    for _ in range(warmup):
        settled(fn)
    ws, cs = [], []
    for _ in range(runs):
        w, c = time.perf_counter(), time.process_time()
        settled(fn)
        ws.append(time.perf_counter() - w)
        cs.append(time.process_time() - c)
    return {"wall_s": statistics.median(ws), "wall_min_s": min(ws),
            "wall_max_s": max(ws), "cpu_s": statistics.median(cs),
            "runs": runs}


def versions():
    """name -> version of every peer that imports (None: it does not)."""
    import torch
    out = {"torch": torch.__version__}
    for name in ("torchinfo", "torchscan", "thop"):
        try:
            __import__(name)
        except ImportError:
            out[name] = None
            continue
        try:
            out[name] = importlib.metadata.version(name)
        except importlib.metadata.PackageNotFoundError:
            out[name] = getattr(__import__(name), "__version__", "unknown")
    has = importlib.util.find_spec("torch.utils.flop_counter") is not None
    out["flop_counter"] = torch.__version__ if has else None  # >= 2.1
    return out


def positional(m, kwargs):
    """kwargs as model(*args): the forward's positional parameters up to
    the last one given, defaults between (thop calls model(*inputs))."""
    kinds = (inspect.Parameter.POSITIONAL_ONLY,
             inspect.Parameter.POSITIONAL_OR_KEYWORD)
    params = [p for p in inspect.signature(m.forward).parameters.values()
              if p.kind in kinds]
    names = [p.name for p in params]
    if any(k not in names for k in kwargs):
        raise TypeError("inputs " + ", ".join(k for k in kwargs
                                              if k not in names)
                        + " are not positional; thop calls model(*inputs)")
    last = max(names.index(k) for k in kwargs)
    return tuple(kwargs[p.name] if p.name in kwargs else p.default
                 for p in params[:last + 1])


def calls(m, args, kwargs, shape, have):
    """tool -> zero-argument callable for model m; `shape` is the input
    shape without batch (torchvision) or None (keyword inputs)."""
    import torch
    import nnscan
    out = {}

    def summary():
        if shape is not None:
            nnscan.summary(m, shape, file=io.StringIO())
        else:
            nnscan.summary(m, inputs=kwargs, file=io.StringIO())
    out["summary"] = summary

    if have.get("flop_counter"):
        from torch.utils.flop_counter import FlopCounterMode
        meta_args = [a.to("meta") for a in args]
        meta_kwargs = {k: v.to("meta") for k, v in kwargs.items()}

        def flop_counter():
            mm = copy.deepcopy(m).to("meta")
            with torch.no_grad(), FlopCounterMode(display=False) as fc:
                mm(*meta_args, **meta_kwargs)
            return fc.get_total_flops()
        out["flop_counter"] = flop_counter

    if have.get("torchinfo"):
        import torchinfo
        data = list(args) if args else kwargs

        def torchinfo_call():
            return str(torchinfo.summary(m, input_data=data, verbose=0))
        out["torchinfo"] = torchinfo_call

    if have.get("torchscan"):
        import torchscan

        def torchscan_call():
            with contextlib.redirect_stdout(io.StringIO()), \
                    warnings.catch_warnings():
                warnings.simplefilter("ignore")  # "CUDA is unavailable"
                if shape is not None:
                    torchscan.summary(m, shape)
                else:
                    torchscan.summary(m, args=tuple(args), kwargs=kwargs)
        out["torchscan"] = torchscan_call

    if have.get("thop"):
        import thop

        def thop_call():
            inputs = tuple(args) if args else positional(m, kwargs)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")  # "not supported" per module
                thop.profile(m, inputs, verbose=False)
        out["thop"] = thop_call

    def eager_forward():
        with torch.no_grad():
            m(*args, **kwargs)
    out["eager_forward"] = eager_forward
    return out


def module_state(m):
    """What a hook-based tool may leave on m's modules when it raises."""
    return [(mod, dict(mod._forward_hooks), dict(mod._forward_pre_hooks),
             dict(mod._backward_hooks), set(mod._buffers))
            for mod in m.modules()]


def restore(state):
    for mod, fh, fph, bh, bufs in state:
        for d, keep in ((mod._forward_hooks, fh),
                        (mod._forward_pre_hooks, fph),
                        (mod._backward_hooks, bh)):
            for k in [k for k in d if k not in keep]:
                del d[k]
        for k in [k for k in mod._buffers if k not in bufs]:
            del mod._buffers[k]
        for k in ("total_ops", "total_params"):  # thop's, when set as attrs
            if k not in bufs and k in mod.__dict__:
                del mod.__dict__[k]


def short(e):
    text = f"{type(e).__name__}: {e}".replace("\n", " ")
    return text if len(text) <= 120 else text[:117] + "..."


def time_model(m, args, kwargs, shape, runs, have):
    """{tool: timing dict or {"error": reason}}: each tool's first call (the
    warm-up) tells whether it runs on this model."""
    row = {}
    for tool, fn in calls(m, args, kwargs, shape, have).items():
        state = module_state(m)
        try:
            fn()
        except Exception as e:  # noqa: BLE001 - reported in the row
            restore(state)
            row[tool] = {"error": short(e)}
            continue
        row[tool] = timed(fn, runs, warmup=0)
    return row


def judge(row, basis):
    """Adds ratios (peer / summary, wall and cpu) and goals: name -> True,
    False or None (the tool or the summary failed, or is absent)."""
    key = basis + "_s"
    s = row.get("summary", {})
    ratios, goals = {}, {}
    for tool in PEERS + ("eager_forward",):
        t = row.get(tool)
        if t is None or "error" in t or "error" in s:
            continue
        ratios[tool] = {b: t[b + "_s"] / s[b + "_s"] for b in ("wall", "cpu")}
    for tool, want in GOALS.items():
        goals[tool] = (ratios[tool][basis] >= want) if tool in ratios \
            else None
    if "eager_forward" in ratios:
        floor = max(row["eager_forward"][key], EAGER_MIN_S)
        goals["eager"] = s[key] <= floor
    else:
        goals["eager"] = None
    row["ratios"], row["goals"] = ratios, goals
    row["fails"] = [g for g, ok in goals.items() if ok is False]
    if "floor_s" in row and not no_forward(row):
        # recording_speed.meta_floor's, when measured: it bounds a summary
        # that runs the forward, not one that runs none (no_forward)
        row["below_floor"] = [g for g in row["fails"]
                              if threshold(row, g, key) < row["floor_s"][basis]]
    return row


def no_forward(row):
    """Whether the median timed summary ran no forward of the model
    (recording_speed.model_row's no_forward; `replayed_whole` in a --json
    of session 83's, when only a whole replay did so)."""
    return bool(row.get("no_forward", row.get("replayed_whole")))


def threshold(row, goal, key):
    """The summary time that would meet `goal`."""
    if goal == "eager":
        return max(row["eager_forward"][key], EAGER_MIN_S)
    return row[goal][key] / GOALS[goal]


def missed(row):
    """The goals missed; (floor): the floor alone is above the goal."""
    below = row.get("below_floor", ())
    return ", ".join(g + (" (floor)" if g in below else "")
                     for g in row["fails"]) or "none"


def cell(row, tool, basis):
    t = row.get(tool)
    if t is None:
        return "—"
    if "error" in t:
        return "failed: " + t["error"][:60]
    r = row["ratios"][tool][basis]
    goal = "eager" if tool == "eager_forward" else tool
    text = f"{r:.2f}×"
    return f"**{text}**" if row["goals"].get(goal) is False else text


def table(rows, basis, floors=False):
    """A markdown table: one row per model, ratios peer / summary (bold:
    below its goal), the goals missed, and the floor when measured."""
    head = ["model", f"nnscan ms ({basis})", "FlopCounterMode (meta copy)",
            "torchinfo", "torchscan", "thop", "eager forward", "eager ms",
            "goals missed"]
    if floors:
        head.append("floor ms (meta copy + dispatch)")
    lines = ["| " + " | ".join(head) + " |",
             "|" + "---|" * len(head)]
    key = basis + "_s"
    for name, row in rows.items():
        s = row.get("summary", {})
        e = row.get("eager_forward", {})
        cells = [name,
                 "failed: " + s["error"][:60] if "error" in s
                 else f"{s[key] * 1e3:.1f}"]
        cells += [cell(row, t, basis) for t in PEERS + ("eager_forward",)]
        cells.append("failed" if "error" in e else f"{e[key] * 1e3:.1f}")
        cells.append(missed(row))
        if floors:
            f = row.get("floor_s")
            cells.append("—" if f is None else f"{f[basis] * 1e3:.1f}" + (
                " (no forward: none)" if no_forward(row) else ""))
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def tally(rows):
    """goal -> (met, missed, not measured) over the rows."""
    out = {}
    for g in list(GOALS) + ["eager"]:
        vals = [r["goals"].get(g) for r in rows.values()]
        out[g] = (vals.count(True), vals.count(False), vals.count(None))
    return out


def print_case(title, rows, basis, floors=False):
    print(f"\n{title}: ratios are peer / nnscan.summary on {basis} time "
          f"(medians); goals: FlopCounterMode >= 2x, torchinfo >= 1.5x, "
          f"torchscan >= 2x, thop >= 2x, summary <= max(eager, 10 ms)\n")
    print(table(rows, basis, floors))
    met_all = sum(1 for r in rows.values() if not r["fails"])
    print("\n(floor): a goal below the floor, so that no recording of this "
          "kind can meet it (recording_speed.meta_floor)" if floors else "")
    print(f"{met_all} of {len(rows)} models miss no goal; per goal "
          "(met / missed / not measured): " + ", ".join(
              f"{g} {a}/{b}/{c}" for g, (a, b, c) in tally(rows).items()),
          flush=True)
