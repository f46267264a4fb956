"""The public entry points' argument checks (issue 47, item 7).

A wrong type or value is a TypeError or a ValueError raised before
anything runs, naming the call, the argument, what it takes and what was
given ("nnscan.summary(): max_depth takes None or an int >= 0, not str
'a'"), never an AttributeError or IndexError from inside nnscan. Each
check is one function here, used by every entry point that takes that
argument (torch_api, generate, report, hardware, compat/)."""
import numbers
import os

from . import _api


def given(value):
    """What was given, for a message: its type and a short repr."""
    r = repr(value)
    if len(r) > 60:
        r = r[:57] + "..."
    return f"{type(value).__name__} {r}"


def module(who, name, value):
    """A torch.nn.Module (torch imported only here, when one is asked)."""
    import torch
    if not isinstance(value, torch.nn.Module):
        raise TypeError(f"{who}: {name} takes a torch.nn.Module, not "
                        f"{given(value)}")
    return value


def flag(who, name, value):
    """True or False (0 and 1, and numpy's booleans, read as such)."""
    if isinstance(value, bool):
        return value
    if type(value).__name__ == "bool_" or (
            isinstance(value, numbers.Integral) and value in (0, 1)):
        return bool(value)
    raise TypeError(f"{who}: {name} takes True or False, not {given(value)}")


def count(who, name, value, least=0, none=False):
    """An int >= least (None too with none=True)."""
    if value is None and none:
        return None
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise TypeError(f"{who}: {name} takes {'None or ' if none else ''}"
                        f"an int >= {least}, not {given(value)}")
    if value < least:
        raise ValueError(f"{who}: {name} takes {'None or ' if none else ''}"
                         f"an int >= {least}, not {value}")
    return int(value)


def function(who, name, value, takes):
    """None or a callable; `takes` says what it is called with."""
    if value is not None and not callable(value):
        raise TypeError(f"{who}: {name} takes None or a callable ({takes}), "
                        f"not {given(value)}")
    return value


def words(who, name, value, known, none=True):
    """None or a list/tuple of names from `known` (a lone string is one
    name, not its letters)."""
    if value is None and none:
        return None
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, (list, tuple)):
        raise TypeError(f"{who}: {name} takes a list of names ("
                        f"{', '.join(known)}), not {given(value)}")
    for w in value:
        if not isinstance(w, str):
            raise TypeError(f"{who}: {name} takes names ({', '.join(known)})"
                            f", not {given(w)} among them")
        if w not in known:
            raise ValueError(f"{who}: {name}: unknown name {w!r}; one of "
                             + ", ".join(known))
    return list(value)


def compute_dtypes():
    """The compute dtypes' names, as the library numbers them."""
    lib = _api.lib()
    out, i = [], 0
    while lib.nns_compute_dtype_name(i) is not None:
        out.append(lib.nns_compute_dtype_name(i).decode())
        i += 1
    return out


def compute_dtype(who, value, name="compute_dtype"):
    """None or a compute dtype's name ("bf16"); checked with or without
    hardware (the library refuses an unknown one too)."""
    if value is None:
        return None
    names = compute_dtypes()
    if not isinstance(value, str):
        raise TypeError(f"{who}: {name} takes a compute dtype's name ("
                        f"{', '.join(names)}), not {given(value)}")
    if value not in names:
        raise ValueError(f"{who}: unknown {name} {value!r}; one of "
                         + ", ".join(names))
    return value


def input_dtype(who, value):
    """summary's dtype: None, a torch.dtype, a list/tuple of them (one per
    input shape), or a compute dtype's name (checked as compute_dtype)."""
    import torch
    if value is None or isinstance(value, torch.dtype):
        return value
    if isinstance(value, str):
        return compute_dtype(who, value, "dtype")
    if isinstance(value, (list, tuple)) and value and \
            all(isinstance(d, torch.dtype) for d in value):
        return value
    raise TypeError(f"{who}: dtype takes a torch.dtype (or one per input "
                    f"shape), or a compute dtype's name such as 'bf16', not "
                    f"{given(value)}")


def optimizer(who, value):
    """An optimizer's name, as the library names them."""
    names = _api.optimizers()
    if not isinstance(value, str) or value not in names:
        raise (TypeError if not isinstance(value, str) else ValueError)(
            f"{who}: optimizer takes one of {', '.join(names)}, not "
            f"{given(value)}")
    return value


def input_shapes(who, value):
    """None or {input name: dims}, the dims ints."""
    if value is None:
        return None
    if not isinstance(value, dict):
        raise TypeError(f"{who}: input_shapes takes {{input name: dims}}, "
                        f"not {given(value)}")
    for k, dims in value.items():
        if not isinstance(k, str):
            raise TypeError(f"{who}: input_shapes' keys are input names "
                            f"(str), not {given(k)}")
        if isinstance(dims, (str, bytes)) or not hasattr(dims, "__iter__"):
            raise TypeError(f"{who}: input_shapes[{k!r}] takes a sequence "
                            f"of ints, not {given(dims)}")
        for d in dims:
            count(who, f"input_shapes[{k!r}] dims", d)
    return value


def path(who, name, value):
    """A file path: str, bytes or os.PathLike."""
    if not isinstance(value, (str, bytes, os.PathLike)):
        raise TypeError(f"{who}: {name} takes a path (str or os.PathLike), "
                        f"not {given(value)}")
    return value


def custom_ops(who, value):
    """None or {module class: callable}."""
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise TypeError(f"{who}: custom_ops takes a dict {{module class: "
                        f"fn(module, inputs, output)}}, not {given(value)}")
    for cls, fn in value.items():
        if not isinstance(cls, type):
            raise TypeError(f"{who}: custom_ops keys are module classes "
                            f"(nn.Conv2d), not {given(cls)}")
        if not callable(fn):
            raise TypeError(f"{who}: custom_ops[{cls.__name__}] takes a "
                            f"callable fn(module, inputs, output), not "
                            f"{given(fn)}")
    return dict(value)


def custom_macs(cls, value):
    """What a custom_ops function returned: the MACs of one call, a whole
    number >= 0 (an int, or a float or 0-d tensor holding one)."""
    v = value.item() if hasattr(value, "item") and \
        getattr(value, "ndim", 1) == 0 else value
    if isinstance(v, bool) or not isinstance(v, numbers.Real) or \
            v != v or v in (float("inf"), float("-inf")) or v != int(v) \
            or v < 0:
        raise TypeError(f"custom_ops[{cls.__name__}] returned "
                        f"{given(value)}; it returns the MACs of one call, "
                        "a whole number >= 0")
    return int(v)


def target_device(who, value):
    """None, a device name ("cuda", "cuda:1") or a torch.device."""
    if value is None:
        return None
    import torch
    if not isinstance(value, (str, torch.device)):
        raise TypeError(f"{who}: target takes a device name such as 'cuda' "
                        f"or a torch.device, not {given(value)}")
    try:
        return str(torch.device(value))
    except (RuntimeError, ValueError) as e:
        raise ValueError(f"{who}: target {value!r} is not a device "
                         f"({e})") from None


def json_text(text, what):
    """JSON text read by the library's rules before Python reads it (RFC
    8259, no key twice, nesting at most 256: nns_json_check), so a saved
    report means the same to the CLI and to Python. A ValueError names
    what and the byte."""
    raw = text.encode("utf-8", "surrogatepass") if isinstance(text, str) \
        else bytes(text)
    err = _api.NnsError()
    if _api.lib().nns_json_check(raw, len(raw), err) != 0:
        raise ValueError(f"{what}: " + err.message.decode(errors="replace"))
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as e:
        raise ValueError(f"{what}: byte {e.start} (0x{raw[e.start]:02x}) is "
                         "not UTF-8; a saved document is UTF-8 JSON") from None
