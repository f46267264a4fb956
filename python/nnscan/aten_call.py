"""What the recorder and the shadows read of an aten call from its op and
its result alone: the op's base name (the library's aten table's key:
`relu` for aten.relu_.default too), whether it writes its first argument
in place, and its outputs as a list."""


def base_name(func):
    """'aten.relu_.default' -> 'relu'; in-place variants share an entry
    (the dunder names, __and__, are their own)."""
    name = func.overloadpacket.__name__
    if name.endswith("_") and not name.endswith("__"):
        name = name[:-1]
    return name


def is_inplace(func):
    """Whether func writes its first argument (relu_, add_)."""
    name = func.overloadpacket.__name__
    return name.endswith("_") and not name.endswith("__")


def outputs(out):
    """A call's result as a list: a tuple's or list's items, or itself."""
    return list(out) if isinstance(out, (tuple, list)) else [out]
