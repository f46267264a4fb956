"""What a module returned, as structure: shapes and dtypes, never values.

The recorder describes each module call's output this way and hands it to
the library (the packed module_call record: nns_model_set_module_call),
which lists it with the layer in the `nnscan.summary` v2 report ("calls"):
a tensor is {"dtype", "shape"}, a tuple or list an array, a dict (a
ModelOutput too) an object, None null, anything else {"type": its class
name}.
"""
_MAX_DEPTH = 64  # deeper nesting is described by its type only


def describe(x, _depth=0, _open=None):
    import torch
    if isinstance(x, torch.Tensor):
        return {"dtype": str(x.dtype).replace("torch.", ""),
                "shape": [int(d) for d in x.shape]}
    if x is None:
        return None
    open_ids = _open if _open is not None else set()
    if isinstance(x, (tuple, list, dict)) and \
            (_depth >= _MAX_DEPTH or id(x) in open_ids):
        return {"type": type(x).__name__}
    if isinstance(x, (tuple, list)):
        open_ids.add(id(x))
        out = [describe(v, _depth + 1, open_ids) for v in x]
        open_ids.discard(id(x))
        return out
    if isinstance(x, dict):
        open_ids.add(id(x))
        out = {str(k): describe(v, _depth + 1, open_ids) for k, v in x.items()}
        open_ids.discard(id(x))
        return out
    return {"type": type(x).__name__}
