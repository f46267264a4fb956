"""A module called more than once, on different shapes (ResNet's
Bottleneck.relu: 64, 64, then 256 channels; a shared projection), shows
its first call's output in a .pt2 archive's summary, as in the live one.
The archive tells the calls apart (torch.export's nn_module_stack keys
"relu", "relu@1", ...); the reader names the first call's output to the
library. Reference: PyTorch's own forward hooks on the model (the first
call's first output tensor), static and with a dynamic batch."""
import csv
import io
import subprocess

import pytest

torch = pytest.importorskip("torch")
if not hasattr(torch, "export") or not hasattr(torch.export, "save"):
    pytest.skip("torch.export needs PyTorch 2.x", allow_module_level=True)
torchvision = pytest.importorskip("torchvision")

from test_pt2 import cli  # noqa: E402


class Shared(torch.nn.Module):
    """One Linear and one GELU called on three widths of input."""

    def __init__(self):
        super().__init__()
        self.up = torch.nn.Linear(8, 8)
        self.act = torch.nn.GELU()

    def forward(self, x):
        a = self.act(self.up(x))                   # [B, 8]
        b = self.act(self.up(a).unsqueeze(1))      # [B, 1, 8]
        c = self.act(torch.cat([b, b, b], 1))      # [B, 3, 8]
        return c.sum(1) + a


def _first_outputs(model, x):
    first, hooks = {}, []
    for path, m in model.named_modules():
        if not path:
            continue

        def hook(mod, args, out, path=path):
            if path not in first:
                first[path] = "(" + ", ".join(str(d) for d in out.shape) + ")"
        hooks.append(m.register_forward_hook(hook))
    with torch.no_grad():
        model(x)
    for h in hooks:
        h.remove()
    return first


@pytest.mark.parametrize("dynamic", [False, True])
@pytest.mark.parametrize("name", ["shared", "resnet50"])
def test_first_call_output_in_archive(name, dynamic, tmp_path):
    torch.manual_seed(0)
    model = (Shared() if name == "shared"
             else torchvision.models.resnet50()).eval()
    x = torch.zeros(2, 8) if name == "shared" else torch.zeros(2, 3, 32, 32)
    batch = torch.export.Dim("batch", min=1, max=64)
    ep = torch.export.export(model, (x,), dynamic_shapes={"x": {0: batch}}
                             if dynamic else None)
    path = str(tmp_path / "m.pt2")
    torch.export.save(ep, path)
    cmd = [cli(), "summary", path, "--format", "csv", "--depth", "all"]
    if dynamic:
        cmd += ["--input", "x=" + "x".join(str(d) for d in x.shape)]
    out = subprocess.run(cmd, capture_output=True, text=True,
                         check=True).stdout
    shown = {r["path"]: r["output_shape"]
             for r in csv.DictReader(io.StringIO(out)) if r["path"]}
    first = _first_outputs(model, x)
    differ = [(p, shown[p], first[p]) for p in shown
              if p in first and shown[p] != first[p]]
    assert not differ
    # the case this is about is there
    several = {"shared": ["up", "act"],
               "resnet50": ["layer1.0.relu", "layer4.2.relu"]}[name]
    assert all(p in shown for p in several)
