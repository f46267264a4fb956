"""nnscan.summary(exported_program): a torch.export.ExportedProgram goes
through the library's .pt2 reader (src/pt2/), the same path as
`nnscan summary model.pt2`: the program is written with torch.export.save
into memory and its bytes handed over. Python reads no graph and counts
nothing here; it only chooses the input sizes (the program's own example
inputs unless the caller gives others) and prints the library's table.
"""
import io


def is_exported_program(obj):
    """Whether obj is a torch.export.ExportedProgram (without importing
    torch for anything else)."""
    try:
        from torch.export import ExportedProgram
    except ImportError:  # PyTorch 1.x: there are none
        return False
    return isinstance(obj, ExportedProgram)


def archive_bytes(ep):
    """The program as torch.export.save writes it (a .pt2 archive)."""
    import torch
    buf = io.BytesIO()
    torch.export.save(ep, buf)
    return buf.getvalue()


def _user_inputs(ep):
    """Names of the program's tensor user inputs, in order."""
    from torch.export.graph_signature import InputKind, TensorArgument
    return [s.arg.name for s in ep.graph_signature.input_specs
            if s.kind == InputKind.USER_INPUT
            and isinstance(s.arg, TensorArgument)]


def input_shapes(ep, input_shape=None):
    """{user input name: dims}: input_shape (one tuple, or one per input)
    when given, else the sizes of the program's example inputs (what it
    was exported with), so every symbolic size is fixed."""
    import torch
    from torch.utils import _pytree
    names = _user_inputs(ep)
    if input_shape is not None:
        shapes = [input_shape] if input_shape and \
            isinstance(input_shape[0], int) else list(input_shape)
        if len(shapes) != len(names):
            raise ValueError(f"{len(shapes)} input shapes for the program's "
                             f"{len(names)} tensor inputs {names}")
        return {n: [int(d) for d in s] for n, s in zip(names, shapes)}
    example = getattr(ep, "example_inputs", None)
    if example is None:
        return {}
    tensors = [t for t in _pytree.tree_leaves(example)
               if isinstance(t, torch.Tensor)]
    if len(tensors) != len(names):
        return {}
    return {n: list(t.shape) for n, t in zip(names, tensors)}


def summary(ep, input_shape=None, max_depth=None, columns=("params",),
            hardware=None, compute_dtype=None, name=None):
    """The Summary of exported program `ep` (see the module docstring)."""
    from .report import analyze
    return analyze(archive_bytes(ep), input_shapes=input_shapes(ep,
                                                                input_shape),
                   max_depth=max_depth, columns=columns, hardware=hardware,
                   compute_dtype=compute_dtype,
                   name=name or "ExportedProgram")
