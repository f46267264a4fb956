"""summary(backward=True): the backward pass as the library's own section
(NNS_FORMAT_BACKWARD_TEXT) under the forward report; counts checked by
hand."""
import io

import pytest

torch = pytest.importorskip("torch")
nn = torch.nn

import nnscan  # noqa: E402

HEADING = ("Backward pass (gradients of every trainable parameter; Output "
           "Shape: the last gradient a layer produces):")


def test_backward_section_of_a_linear_layer():
    lin = nn.Linear(4, 8)
    out = io.StringIO()
    s = nnscan.summary(lin, inputs=(torch.ones(3, 4),), backward=True,
                       file=out)
    forward, _, section = out.getvalue().partition("\n\n" + HEADING + "\n")
    assert section, "no backward section"
    # the forward report keeps its footer; the section has none of it
    assert "Total params: 40" in forward  # 8x4 weights + 8 biases
    assert "Total params" not in section and "Model size" not in section
    lines = section.splitlines()
    assert lines[1].split() == ["Layer", "Type", "Output", "Shape", "FLOPs",
                                "MACs"]
    assert set(lines[2]) == {"="} and set(lines[-1]) == {"="}
    # x needs no gradient: dW = dY^T X is 8*3*4 MACs, db a sum over the
    # batch (no MACs)
    root = lines[3].split()
    assert int(root[-1].replace(",", "")) == 8 * 3 * 4
    assert s.backward.totals["macs"] == 8 * 3 * 4
