"""Loss ops, forward and backward (issue 40, item 8): every loss of
torch.nn.functional is counted (no uncounted op, so no `≥` totals), with
the per-element counts docs/metrics.md ("Losses") gives, derived by hand
here: an element-wise step 1 FLOP per element, a reduction numel(X), a
log-softmax 5 per element, NLL per label 1 for the negate and 1 for the
ignore_index compare, its mean the l adds and one divide. The loss runs at
the model's root, after a Linear (whose own row is subtracted) and, for
the probabilities binary_cross_entropy takes, a Sigmoid module (whose row
gives the Sigmoid's cost)."""
import pytest

torch = pytest.importorskip("torch")
import torch.nn.functional as F  # noqa: E402

import nnscan  # noqa: E402

N, C = 2, 3
n = N * C
TORCH2 = hasattr(torch.Tensor, "untyped_storage")


class Head(torch.nn.Module):
    def __init__(self, fn, probs=False):
        super().__init__()
        self.fn, self.probs = fn, probs
        self.lin = torch.nn.Linear(4, C)
        self.act = torch.nn.Sigmoid()

    def forward(self, x, y):
        o = self.lin(x)
        return self.fn(self.act(o) if self.probs else o, y)


def run(fn, y, probs=False, backward=True):
    torch.manual_seed(0)
    s = nnscan.summary(Head(fn, probs), inputs=(torch.randn(N, 4), y),
                       backward=backward, file=False)
    assert s.json["uncounted_ops"] == [], s.json["uncounted_ops"]
    assert s.uncounted_aten == {}
    assert "≥" not in s.to_text()
    fwd = s.totals["flops"] - s.layer("lin")["flops"]
    sig = s.layer("act")["flops"] if probs else 0
    if not backward:
        return fwd - sig, None, s
    bw = s.backward
    assert bw.json["uncounted_ops"] == [], bw.json["uncounted_ops"]
    return fwd - sig, bw.totals["flops"] - bw.layer("lin")["flops"] \
        - (bw.layer("act")["flops"] if probs else 0), s


def sigmoid_flops():
    s = nnscan.summary(torch.nn.Sigmoid(), (C,), file=False)
    return s.totals["flops"]


def targets():
    return torch.randn(N, C)


def labels():
    return torch.tensor([0, 2])


def test_cross_entropy_and_nll():
    # log_softmax 5n; NLL 2 per label, mean l adds + 1 divide
    fwd, bwd, _ = run(F.cross_entropy, labels())
    assert fwd == 5 * n + 2 * N + N + 1
    # log_softmax's backward: exp, sum, multiply, subtract (4n); NLL's:
    # per label negate, divide by total_weight, ignore_index compare and
    # select (4 per label); the scatter moves values only
    assert bwd == 4 * n + 4 * N
    fwd, bwd, _ = run(lambda o, y: F.nll_loss(o, y, reduction="sum"),
                      labels())
    assert fwd == 2 * N + N
    assert bwd == 3 * N       # no divide for a sum
    w = torch.tensor([1.0, 2.0, 3.0])
    fwd, _, _ = run(lambda o, y: F.nll_loss(o, y, weight=w), labels())
    # + the weight's multiply per label, the mean sums the weights too
    assert fwd == 3 * N + 2 * N + 1


def test_mse():
    fwd, bwd, _ = run(F.mse_loss, targets())
    assert fwd == 3 * n                      # sub, square, mean
    assert bwd == 4 * n                      # sub, x2, times g, / n
    fwd, bwd, _ = run(lambda o, y: F.mse_loss(o, y, reduction="none").sum(),
                      targets())
    assert fwd == 2 * n + n                  # the sum is the model's own


def test_smooth_l1_and_huber():
    # sub, abs, compare, square, scale, linear part, select; the mean
    fwd, bwd, _ = run(F.smooth_l1_loss, targets(), backward=TORCH2)
    assert fwd == 8 * n
    if TORCH2:   # 1.13 has no meta kernel for these backwards
        # sub, abs, compare, divide by beta, sign, select, times g, / n
        assert bwd == 8 * n
    fwd, _, _ = run(lambda o, y: F.smooth_l1_loss(o, y, beta=0.0),
                    targets(), backward=TORCH2)
    assert fwd == 3 * n                      # l1 then: sub, abs, mean
    fwd, _, _ = run(lambda o, y: F.huber_loss(o, y, delta=0.5), targets(),
                    backward=TORCH2)
    assert fwd == 9 * n                      # + delta's multiply


def test_l1_and_kl_div_complete():
    fwd, _, _ = run(F.l1_loss, targets())
    assert fwd == 3 * n
    fwd, _, _ = run(lambda o, y: F.kl_div(o.log_softmax(-1), y,
                                          reduction="batchmean"),
                    torch.rand(N, C))
    # log_softmax 5n; xlogy(y, y) (log, product, compare, select) 4n, minus
    # y * input n, subtract n; the sum n, the batch divide 1
    assert fwd == 5 * n + 4 * n + n + n + n + 1


def test_binary_cross_entropy():
    fwd, bwd, _ = run(F.binary_cross_entropy, torch.rand(N, C), probs=True)
    # log, clamp, 1 - x, log, clamp, two products, 1 - y, add, negate;
    # the mean
    assert fwd == 11 * n
    # sub, 1 - x, product, clamp, divide, times g, / n
    assert bwd == 7 * n
    fwd, bwd, _ = run(F.binary_cross_entropy_with_logits, torch.rand(N, C))
    sig = sigmoid_flops() // C
    # log_sigmoid (a Sigmoid and a Log), 1 - y, product, subtract; mean
    assert fwd == sig * n + 5 * n
    assert bwd == sig * n + 3 * n            # sigmoid - y, times g, / n
    pw = torch.tensor([1.0, 2.0, 3.0])
    fwd, bwd, _ = run(lambda o, y: F.binary_cross_entropy_with_logits(
        o, y, pos_weight=pw), torch.rand(N, C))
    # + p - 1 (over pos_weight's C), times y, + 1, the product: 3n + C
    assert fwd == sig * n + 8 * n + C
