"""The base of nnscan's TorchDispatchModes: PyTorch's, without the
torch._dynamo import and wrapper that PyTorch 2.x puts around every mode's
__torch_dispatch__.

PyTorch 2.x wraps each subclass's __torch_dispatch__ in
torch._disable_dynamo (TorchDispatchMode.__init_subclass__), so that
Dynamo never compiles the mode's own frames: inside a compiled function
(transformers' flex attention, a submodule under torch.compile) Dynamo
runs the function's frames eagerly while a mode is on the stack, but the
mode's frames run with the mode off it. That wrapper imports torch._dynamo
at the mode's first call (0.65-0.74 s on PyTorch 2.14 on the build
machine: a plain model's first nnscan.summary in a process took 722 ms,
650 of them that import) and costs two Python frames and two eval-frame
switches on every aten call (about 0.6 us). The same is had once per
class and for nothing per call: the method's code is marked for Dynamo to
skip, with every frame it calls (torch._C._dynamo's code execution
strategy, a C call; what torch._dynamo.disable(recursive=True) asks of a
frame). Where PyTorch has no such marking (1.13 has neither Dynamo in
torch nor the wrapper), its own behaviour is left as it is.
"""
from torch.utils._python_dispatch import TorchDispatchMode

try:
    from torch._C._dynamo.eval_frame import (
        _FrameAction, _FrameExecStrategy, set_code_exec_strategy)
except ImportError:
    set_code_exec_strategy = None


class DispatchMode(TorchDispatchMode):
    """TorchDispatchMode whose subclasses' __torch_dispatch__ Dynamo skips
    with all it calls, marked once (the module's docstring)."""

    if set_code_exec_strategy is not None:
        @classmethod
        def _should_skip_dynamo(cls):
            # PyTorch's wrapper (its __init_subclass__) is not wanted: the
            # code is marked instead (below)
            return False

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        raw = cls.__dict__.get("__torch_dispatch__")
        if set_code_exec_strategy is not None \
                and hasattr(raw, "__code__"):
            set_code_exec_strategy(raw.__code__, _FrameExecStrategy(
                _FrameAction.SKIP, _FrameAction.SKIP))
