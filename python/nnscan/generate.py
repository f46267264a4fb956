"""Prefill and decode: what generating N tokens costs, step by step
(docs/python.md, "Generation"; the numbers: docs/metrics.md, "Decoder
steps").

`profile_generate` records the steps a `generate()` runs as separate
forwards and has the library analyse each: the prefill (the prompt, an
empty cache) and the decode steps (one new token per row, a cache of the
prompt and the tokens so far). It drives the steps itself instead of
calling `generate()`, so a model on the meta device (a 70B config without
weights), which cannot sample, is profiled like a real one: the new
tokens' ids are zeros, which no count depends on.

A step is `step(model, inputs, past) -> (output, present)`: `inputs` the
step's keyword tensors, `past` the cache before it (None for the prefill)
and `present` the cache after it, each a list with one entry per layer,
an entry a tensor or a tuple of tensors (key, value). `hf_step` is the
step of transformers' models (a DynamicCache); a model with its own cache
passes its own. The cache tensors are the step's graph inputs
`past_key_values.<layer>.key` / `.value` (`.<i>` for other tuples, none
for a lone tensor) and its outputs `present.<layer>.key` / ...: the names
of Hugging Face's ONNX decoders, from which the library reads the
key/value-cache bytes of a step, as it does for such an ONNX file.
"""
import ctypes
import json
import weakref

from . import _api, _args, torch_api

_PAST, _PRESENT = "past_key_values.", "present."
_KV_NAMES = ("key", "value")


def hf_step(model, inputs, past, seen=None, windows=None):
    """The step of a transformers causal LM: `past` becomes a DynamicCache
    (its tensors taken as they are, no copy); with `windows` (per layer,
    a sliding window's size or None: _hf_slots) a sliding window's slot
    where the model's has one, holding the window's last tokens and told
    it has seen `seen` (the tokens before the step); `logits_to_keep=1`
    where the model takes it, as generate() passes it."""
    import inspect
    kw = dict(inputs)
    if past is not None:
        kw["past_key_values"] = _dynamic_cache(past, windows, seen)
    if "logits_to_keep" in inspect.signature(model.forward).parameters:
        kw.setdefault("logits_to_keep", 1)
    out = model(**kw, use_cache=True)
    return out, _hf_present(model, out)


def _dynamic_cache(past, windows=None, seen=None):
    """A transformers DynamicCache holding the tensors of `past`: a
    DynamicSlidingWindowLayer where `windows` (per layer: a sliding
    window's size or None) gives one, told it has seen `seen` tokens
    (default: the longest entry's), else a DynamicLayer."""
    from transformers import DynamicCache
    from transformers.cache_utils import DynamicLayer, \
        DynamicSlidingWindowLayer
    cache = DynamicCache()
    if seen is None:
        seen = max(int(k.shape[-2]) for k, _ in past)
    for i, (k, v) in enumerate(past):
        w = windows[i] if windows else None
        if w:
            layer = DynamicSlidingWindowLayer(sliding_window=w)
            layer.cumulative_length = seen
            # (as its first update would: its size on the keys' device)
            layer._sliding_window_tensor = \
                layer._sliding_window_tensor.to(k.device)
        else:
            layer = DynamicLayer()
        layer.dtype, layer.device = k.dtype, k.device
        layer.keys, layer.values = k, v
        layer.is_initialized = True
        cache.layers.append(layer)
    return cache


def _hf_slots(model, n):
    """Per layer, the sliding window of the slot transformers' cache
    makes for `model` (DynamicCache(config=...)), or None for a full
    one; None when that is not n slots of those two kinds, or none
    slides. (Made outside any recording: a sliding slot makes a tensor.)"""
    try:
        from transformers import DynamicCache
        layers = DynamicCache(config=model.config).layers
    except Exception:  # noqa: BLE001 - no config, or one it cannot read
        return None
    return _windows(layers, n)


def _windows(layers, n):
    """_hf_slots of a cache's slots."""
    out = []
    for layer in layers:
        kind = (type(layer).__module__, type(layer).__name__)
        if kind == ("transformers.cache_utils", "DynamicSlidingWindowLayer"):
            out.append(int(layer.sliding_window))
        elif kind == ("transformers.cache_utils", "DynamicLayer"):
            out.append(None)
        else:
            return None
    return out if len(out) == n and any(out) else None


def _held(windows, layer, past_len):
    """The tokens a slot holds with past_len seen: a sliding window's
    keeps its last window - 1 (DynamicSlidingWindowLayer.update)."""
    w = windows[layer] if windows else None
    return min(past_len, w - 1) if w else past_len


def _hf_present(model, out):
    cache = getattr(out, "past_key_values", None)
    if not hasattr(cache, "layers"):
        raise TypeError(
            f"{type(model).__name__} returned no DynamicCache "
            f"(past_key_values: {type(cache).__name__}); hf_step reads a "
            "transformers DynamicCache: pass step= for this model")
    return [(layer.keys, layer.values) for layer in cache.layers]


def _entry_names(prefix, layer, entry):
    if not isinstance(entry, (tuple, list)):
        return [f"{prefix}{layer}"]
    if len(entry) == 2:
        return [f"{prefix}{layer}.{n}" for n in _KV_NAMES]
    return [f"{prefix}{layer}.{i}" for i in range(len(entry))]


def _call(step, seen=None, windows=None):
    """The recorder's `call` for one step: the past comes in as keyword
    tensors named past_key_values.*, the result goes out as a dict whose
    keys name the graph outputs (present.*). `seen`, `windows`: for
    hf_step, the tokens the past stands for and the model's sliding
    windows (whose slots hold fewer)."""
    def call(model, **kw):
        inputs = {k: v for k, v in kw.items() if not k.startswith(_PAST)}
        flat = [(k, v) for k, v in kw.items() if k.startswith(_PAST)]
        past = None
        if flat:
            by_layer = {}
            for k, v in flat:
                by_layer.setdefault(_layer_of(k, _PAST), []).append(v)
            past = [tuple(v) if len(v) > 1 else v[0]
                    for _, v in sorted(by_layer.items())]
        out, present = step(model, inputs, past) if windows is None \
            else step(model, inputs, past, seen, windows)
        result = {"output": _main_output(out)}
        for layer, entry in enumerate(present):
            tensors = entry if isinstance(entry, (tuple, list)) else [entry]
            result.update(zip(_entry_names(_PRESENT, layer, entry), tensors))
        return result
    return call


def _layer_of(name, prefix):
    """The layer of a cache input or output's name (`past_key_values.3.key`
    with prefix `past_key_values.`: 3)."""
    return int(name[len(prefix):].partition(".")[0])


def _main_output(out):
    logits = getattr(out, "logits", None)
    if logits is not None:
        return logits
    return out[0] if isinstance(out, (tuple, list)) else out


class _Generation(_api.Managed):
    """An nns_generation *: the library's steps of one generation, made
    from the steps' analyses (it copies their figures)."""

    _what = "generation"

    def __init__(self, new_tokens, rows, steps):
        lib = _api.lib()
        err = _api.NnsError()
        ptr = ctypes.c_void_p()
        _api.check(lib.nns_generation_create(new_tokens, rows,
                                             ctypes.byref(ptr),
                                             ctypes.byref(err)),
                   err, "nns_generation_create")
        self._manage(ptr.value,
                     weakref.finalize(self, lib.nns_generation_free,
                                      ptr.value))
        for step, summary, tokens, past in steps:
            _api.check(lib.nns_generation_set_step(
                self.ptr, step, summary.analysis.ptr, tokens, past,
                ctypes.byref(err)), err, "nns_generation_set_step")

    def report(self, fmt, numbers):
        if numbers not in ("raw", "clever"):
            raise ValueError("numbers takes 'raw' or 'clever', not "
                             + repr(numbers))
        err = _api.NnsError()
        cb, chunks = _api.write_collector()
        _api.check(_api.lib().nns_generation_report(
            self.ptr, _api.FORMAT[fmt], _api.NUMBERS[numbers], cb, None,
            ctypes.byref(err)), err, "nns_generation_report")
        return b"".join(chunks).decode()


class GenerateProfile:
    """The steps of one generation and their sums per generated token,
    from the library (nns_generation: docs/generation.md).

    `.prefill`: the prefill's Summary; `.decode`: past length -> Summary of
    each decode step recorded; `.json`: the "nnscan.generation" document
    (docs/generation.schema.json); `.steps`: its rows, one per step, the
    prefill first (dicts: step, tokens, past, recorded, the step's counts,
    "unmasked_status": "partial" where a mask was not known), `recorded`
    False for a decode step taken between two recorded ones (linear in
    the past length); `.per_token`: every figure summed over the steps
    and divided by the tokens generated (`generated_tokens`: the batch's
    rows times the new tokens), and kv_cache_bytes after the last step."""

    def __init__(self, prefill, decode, steps, new_tokens, batch=1):
        """steps: (step, Summary, tokens, past) of each recorded step, 0
        the prefill."""
        self.prefill = prefill
        self.decode = decode
        self._gen = _Generation(new_tokens, max(1, int(batch)), steps)
        self.json = json.loads(self._gen.report("json", "raw"))
        self.steps = self.json["steps"]
        self.per_token = self.json["per_token"]
        self.new_tokens = self.json["new_tokens"]
        self.generated_tokens = self.json["generated_tokens"]

    def to_text(self, numbers="clever"):
        """The library's table of the steps (nns_generation_report): counts
        and byte sizes in its units (numbers="clever": 1.82 G, 44.6 MiB;
        "raw": 1,824,010,216), masked counts "FLOPs (mask)" and "MACs
        (mask)"."""
        return self._gen.report("text", numbers)

    def __str__(self):
        return self.to_text()


def _chosen(n_decode, steps, knees=()):
    """Which decode steps (0-based) to record: all when few, else `steps`
    of them evenly spaced, the first and the last included; and the
    `knees` (where a sliding window's slots fill: their cost stops
    growing there, so the steps between two recorded ones stay linear)."""
    if n_decode <= 0:
        return []
    knees = {j for j in knees if 0 <= j < n_decode}
    if isinstance(steps, (list, tuple, range)):
        chosen = {int(i) for i in steps if 0 <= int(i) < n_decode}
        return sorted(chosen | {0, n_decode - 1} | knees)
    k = 9 if steps is None else max(2, int(steps))
    if n_decode <= k:
        return list(range(n_decode))
    return sorted({round(i * (n_decode - 1) / (k - 1)) for i in range(k)}
                  | knees)


def profile_generate(model, inputs=None, max_new_tokens=16, *, step=None,
                     steps=None, cache_axis=-2, device="auto", name=None,
                     loop=None):
    """Profiles generating `max_new_tokens` tokens after the prompt
    `inputs` (a dict of keyword tensors with `input_ids` (batch, prompt),
    or the ids tensor): a prefill and max_new_tokens - 1 decode steps, as
    generate() runs them. `step`: see the module doc (default hf_step).
    `steps`: how many decode steps to record (default up to 9, evenly
    spaced, the first and last included; the others are linear in the past
    length between them) or a list of step indices; with transformers'
    sliding windows (hf_step), also the two steps at which each window's
    slots fill (their cost constant from there), so that the steps
    between stay linear. `cache_axis`: the sequence axis of the cache
    tensors. `loop`: a callable `loop(model)`
    that runs its own decode loop (or `model.generate(...)`): each of its
    top-level calls of the model is recorded as one step (the first the
    prefill; `inputs` and `max_new_tokens` are not used, `step` and
    `steps` not allowed; see _profile_loop). Returns a GenerateProfile."""
    import torch
    who = "nnscan.profile_generate()"
    _args.module(who, "model", model)
    _args.function(who, "loop", loop, "loop(model)")
    _args.function(who, "step", step, "step(model, inputs, past)")
    _args.count(who, "cache_axis", cache_axis, least=-64)
    if steps is not None and not isinstance(steps, (list, tuple, range)):
        _args.count(who, "steps", steps, least=2)
    elif steps is not None:
        for i in steps:
            _args.count(who, "steps[...]", i)
    if loop is not None:
        if step is not None or steps is not None:
            raise ValueError("profile_generate: loop= records every call "
                             "the loop makes; step= and steps= are for the "
                             "steps it drives itself, not both")
        return _profile_loop(model, loop, cache_axis, device, name)
    step = step or hf_step
    n_new = _args.count(who, "max_new_tokens", max_new_tokens, least=1)
    if isinstance(inputs, torch.Tensor):
        inputs = {"input_ids": inputs}
    if inputs is not None and not isinstance(inputs, dict):
        raise TypeError(f"{who}: inputs takes the prompt's input_ids tensor "
                        "or a dict of keyword tensors with input_ids, not "
                        + _args.given(inputs))
    inputs = dict(inputs or {})
    ids = inputs.get("input_ids")
    if not isinstance(ids, torch.Tensor) or ids.dim() != 2:
        raise ValueError(f"{who}: inputs needs input_ids, a tensor of shape "
                         "(batch, prompt length), not "
                         + ("none" if ids is None else _args.given(ids)
                            if not isinstance(ids, torch.Tensor)
                            else f"a tensor of shape {tuple(ids.shape)}"))
    batch, prompt = int(ids.shape[0]), int(ids.shape[1])
    name = name or type(torch_api._uncompiled(model)).__name__
    call = _call(step)
    # the past is made on meta, which the recording copies the model to;
    # a forward on the model's own device gets it there
    params = list(model.parameters())
    where = params[0].device if device == "model" and params else "meta"

    def run(kw, call=call):
        return torch_api.analyze_module(model, (), kw, device=device,
                                        name=name, call=call)
    prefill = run(inputs)
    recorded = [(0, prefill, batch * prompt, 0)]
    present = [o for o in prefill.json["outputs"]
               if o["name"].startswith(_PRESENT)]
    if n_new > 1 and not present:
        raise ValueError("the prefill returned no cache (present.*): "
                         "a decode step needs the model's past")
    # transformers' sliding windows: a slot holds the window's last tokens
    # (hf_step makes such slots, _held says how many)
    layers = {_layer_of(o["name"], _PRESENT) for o in present}
    windows = _hf_slots(model, len(layers)) if step is hf_step and \
        layers == set(range(len(layers))) else None
    # where a window's slots fill: the last step they grow at (past
    # w - 2: what it writes changes after) and the first they are full
    # at (past w - 1: what it reads stops growing)
    knees = {w - d - prompt for w in windows or () if w for d in (1, 2)}
    decode = {}
    for j in _chosen(n_new - 1, steps, knees):
        past_len = prompt + j
        kw = _decode_inputs(inputs, batch, past_len, ids)
        for o in present:
            shape = list(o["shape"])
            shape[cache_axis] = _held(
                windows, _layer_of(o["name"], _PRESENT), past_len)
            kw[_PAST + o["name"][len(_PRESENT):]] = torch.zeros(
                shape, dtype=getattr(torch, o["dtype"]), device=where)
        s = run(kw, _call(step, past_len, windows) if windows else call)
        decode[past_len] = s
        recorded.append((j + 1, s, batch, past_len))
    # the steps between recorded ones: the library's, linear in the past
    return GenerateProfile(prefill, decode, recorded, n_new, batch)


def _decode_inputs(inputs, batch, past_len, ids):
    """A decode step's inputs: one new token per row (id 0), the attention
    mask (if the prompt had one) grown by one column of ones."""
    import torch
    kw = {"input_ids": torch.zeros(batch, 1, dtype=ids.dtype)}
    mask = inputs.get("attention_mask")
    if mask is not None:
        grown = torch.ones(batch, past_len + 1, dtype=mask.dtype)
        grown[:, :mask.shape[1]] = mask.to("cpu") if not mask.is_meta \
            else 1
        kw["attention_mask"] = grown
    return kw


# ---- a user's own loop ----

def _is_cache(v):
    """A cache argument: a transformers Cache (it has `layers`) or a
    non-empty list/tuple, one entry per layer, each a tensor or a tuple of
    tensors."""
    import torch
    if hasattr(v, "layers") and hasattr(v, "get_seq_length"):
        return True
    return isinstance(v, (list, tuple)) and len(v) > 0 and all(
        isinstance(e, torch.Tensor) or (
            isinstance(e, (list, tuple)) and e
            and all(isinstance(t, torch.Tensor) for t in e))
        for e in v)


def _cache_entries(v):
    """The per-layer entries of a cache argument; None while it is empty
    (a DynamicCache before the prefill)."""
    if hasattr(v, "layers"):
        entries = [(layer.keys, layer.values) for layer in v.layers
                   if getattr(layer, "is_initialized", True)
                   and getattr(layer, "keys", None) is not None]
        return entries or None
    return list(v)


def _present_of(out):
    """The cache after a call: the output's past_key_values (a Cache or a
    list), else the second item of a (output, present) pair; [] without."""
    cache = getattr(out, "past_key_values", None)
    if cache is not None and _is_cache(cache):
        return _cache_entries(cache) or []
    if isinstance(out, (tuple, list)) and len(out) == 2 and \
            _is_cache(out[1]):
        return _cache_entries(out[1]) or []
    return []


def _tokens_of(inputs):
    ids = inputs.get("input_ids")
    if ids is None:
        ids = inputs.get("inputs_embeds")
    if ids is None:
        ids = next(iter(inputs.values()), None)
    if ids is None or ids.dim() == 0:
        return 1 if ids is not None else 0
    return int(ids.shape[0]) * (int(ids.shape[1]) if ids.dim() > 1 else 1)


def _rows_of(inputs):
    """The batch's rows of a step's inputs (input_ids' first dim): each
    step generates one token per row."""
    ids = inputs.get("input_ids")
    if ids is None:
        ids = inputs.get("inputs_embeds")
    if ids is None:
        ids = next(iter(inputs.values()), None)
    return int(ids.shape[0]) if ids is not None and ids.dim() > 0 else 1


def _profile_loop(model, loop, cache_axis, device, name):
    """Runs `loop(model)` with a forward pre-hook on `model` (keyword
    arguments included, PyTorch 2.0+) that records each top-level call as
    one step, through the same path as the steps profile_generate drives:
    the call's tensor arguments are the step's inputs, its cache argument
    (a transformers Cache or a per-layer list) the step's past
    (past_key_values.*, on meta unless device="model"), its other
    arguments passed as they were; the call itself then runs as the loop
    made it, untouched. The recording runs on a copy of the model, whose
    calls the hook leaves alone."""
    import inspect
    import torch
    name = name or type(torch_api._uncompiled(model)).__name__
    sig = inspect.signature(model.forward)
    summaries, batch = [], []
    busy = [False]

    def record(args, kwargs):
        bound = sig.bind(*args, **kwargs).arguments
        for p in sig.parameters.values():
            if p.kind is inspect.Parameter.VAR_KEYWORD and p.name in bound:
                bound.update(bound.pop(p.name))
        inputs, static, past, cache_name, hf = {}, {}, None, None, False
        windows = None
        for k, v in bound.items():
            if isinstance(v, torch.Tensor):
                inputs[k] = v
            elif cache_name is None and _is_cache(v):
                cache_name, hf = k, hasattr(v, "layers")
                past = _cache_entries(v)
                if hf and past:  # its sliding windows' slots, as they are
                    windows = _windows(v.layers, len(past))
                    seen = int(v.get_seq_length())
            else:
                static[k] = v
        past_len = 0
        kw = dict(inputs)
        if past:
            first = past[0][0] if isinstance(past[0], (tuple, list)) \
                else past[0]
            # the tokens seen (a sliding window's slot holds fewer)
            past_len = seen if windows else int(first.shape[cache_axis])
            for layer, entry in enumerate(past):
                tensors = entry if isinstance(entry, (tuple, list)) \
                    else [entry]
                for n, t in zip(_entry_names(_PAST, layer, entry), tensors):
                    kw[n] = t if device == "model" else torch.empty(
                        t.shape, dtype=t.dtype, device="meta")

        def step(m, step_inputs, step_past):
            call_kw = dict(step_inputs)
            call_kw.update(static)
            if step_past is not None:
                call_kw[cache_name] = _dynamic_cache(
                    step_past, windows, past_len) if hf else step_past
            out = m(**call_kw)
            return out, _present_of(out)
        s = torch_api.analyze_module(model, (), kw, device=device, name=name,
                                     call=_call(step))
        if not summaries:
            batch.append(_rows_of(inputs))
        summaries.append((len(summaries), s, _tokens_of(inputs), past_len))

    def hook(module, args, kwargs):
        if module is not model or busy[0]:
            return None
        busy[0] = True
        try:
            record(args, kwargs)
        finally:
            busy[0] = False
        return None
    try:
        handle = model.register_forward_pre_hook(hook, with_kwargs=True)
    except TypeError:
        raise TypeError("profile_generate(loop=...) needs PyTorch 2.0 or "
                        "later (forward pre-hooks with keyword arguments)")
    try:
        loop(model)
    finally:
        handle.remove()
    if not summaries:
        raise ValueError("the loop never called the model: no step to "
                         "profile")
    decode = {past: s for _, s, _, past in summaries[1:]}
    return GenerateProfile(summaries[0][1], decode, summaries,
                           len(summaries), batch[0])
