"""A transformers decoder layer's KV cache, for module_replay.py.

A transformers decoder layer (LLaMA's, Mistral's, Qwen's ...) differs from
its neighbours in one attribute, its attention's `layer_idx`, and is
called with the model's cache (a `DynamicCache`), into whose slot
`layer_idx` its attention writes the keys and values it made
(`past_key_values.update(k, v, self.layer_idx)`). To replay such a layer:

- the index is left out of the layers' signature only where nothing but
  that write reads it: every read of `self.layer_idx` in the class's
  methods (its `__init__` apart: what it makes from the index is an
  attribute, compared as any other) is the index argument of an
  `.update(...)` call (`index_only`, from the class's source). A class
  whose forward scales by its index or branches on it keeps the index in
  the signature: its layers differ and run;
- a cache argument keys by its class, its number of slots and the state
  of the layer's slot (`part`): the slot empty, an exact `DynamicLayer`
  in an exact `DynamicCache` (a sliding window's or a quantized cache's
  layer keeps its call running);
- what the call did to its slot (`effect`: each attribute it set, a
  tensor by its graph name and meta, any other value by itself, where it
  is a plain value) is part of the layer's template, so two calls
  compared verify it too, and a replay makes it again (`apply`): the
  slot holds meta tensors named as the recorded call's were, which the
  model's output (its `past_key_values`) then reaches.
"""
import ast
import inspect
import textwrap

import torch

_CACHE = ("transformers.cache_utils", "DynamicCache")
_SLOT = ("transformers.cache_utils", "DynamicLayer")
_PLAIN = (bool, int, float, str, type(None), torch.dtype, torch.device)

_INDEX_ONLY = {}  # class -> whether index_only


def _named(cls, where):
    return (cls.__module__, cls.__qualname__) == where


def index_only(cls):
    """Whether every method of cls and its bases below nn.Module (their
    `__init__` apart) reads `self.layer_idx` only as the index argument
    of an `.update()` call: the third positional one, or `layer_idx=`.
    False where a source cannot be read."""
    got = _INDEX_ONLY.get(cls)
    if got is None:
        got = _INDEX_ONLY[cls] = all(
            _reads_index_only(k) for k in cls.__mro__
            if k not in (torch.nn.Module, object))
    return got


def _reads_index_only(klass):
    try:
        tree = ast.parse(textwrap.dedent(inspect.getsource(klass)))
    except (OSError, TypeError, SyntaxError):
        return False
    allowed = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and \
                isinstance(node.func, ast.Attribute) and \
                node.func.attr == "update":
            if len(node.args) >= 3:
                allowed.add(id(node.args[2]))
            allowed.update(id(k.value) for k in node.keywords
                           if k.arg == "layer_idx")
    for fn in ast.walk(tree):
        if not isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)) or \
                fn.name == "__init__":
            continue
        for node in ast.walk(fn):
            if isinstance(node, ast.Attribute) and node.attr == "layer_idx" \
                    and isinstance(node.value, ast.Name) and \
                    node.value.id == "self" and id(node) not in allowed:
                return False
    return True


def is_cache(v):
    return _named(type(v), _CACHE)


def part(cache, index):
    """The key's part for a cache argument of a layer of `index`;
    LookupError where its slot is not one a replay can make again."""
    layers = getattr(cache, "layers", None)
    if type(index) is not int or type(layers) is not list or \
            not 0 <= index < len(layers) or \
            getattr(cache, "offloading", False):
        raise LookupError(index)  # (an offloading cache moves the others)
    slot = layers[index]
    if not _named(type(slot), _SLOT) or \
            getattr(slot, "is_initialized", True) is not False:
        raise LookupError(index)
    return ("cache", type(cache), len(layers))


def before(cache, index):
    """What the slots hold before the call (for effect): the layer's
    slot's attributes, and every slot's values."""
    layers = cache.layers
    return dict(vars(layers[index])), len(layers), \
        [tuple(vars(x).items()) for x in layers]


def effect(cache, index, was, names, scope_of):
    """What the call set in the slot: ((attribute, "t", its graph name,
    the scope that made it, its meta) or (attribute, "v", a plain value),
    ...), in the slot's order; LookupError where it did anything else
    (removed an attribute, set an object, a tensor with no name, grew
    the cache, wrote another slot)."""
    old, n, slots = was
    layers = cache.layers
    if len(layers) != n:
        raise LookupError("slots")
    for k, (x, items) in enumerate(zip(layers, slots)):
        got = tuple(vars(x).items())
        if k != index and (len(got) != len(items) or any(
                a != c or b is not d for (a, b), (c, d) in
                zip(got, items))):
            raise LookupError(k)  # it wrote another layer's slot
    now = vars(layers[index])
    if any(k not in now for k in old):
        raise LookupError("removed")
    out = []
    for k, v in now.items():
        if k in old and old[k] is v:
            continue
        if isinstance(v, torch.Tensor):
            name = names.get(id(v))
            if name is None or not v.is_meta:
                raise LookupError(k)
            out.append((k, "t", name, scope_of.get(id(v)),
                        (v.dtype, tuple(v.shape), tuple(v.stride()))))
        elif type(v) in _PLAIN:
            out.append((k, "v", v))
        else:
            raise LookupError(k)
    return tuple(out)


def apply(cache, index, made, tensor):
    """Sets the slot as `made` (effect's, its names as tensor() makes
    them: tensor(name, scope, meta) -> a meta tensor named)."""
    slot = vars(cache.layers[index])
    for e in made:
        slot[e[0]] = tensor(*e[2:]) if e[1] == "t" else e[2]
