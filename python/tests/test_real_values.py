"""Real models, real inputs (issue 16 item 3).

- Grouped-query attention (fewer key/value heads than query heads) is
  counted on every path: on meta, on the model's own CPU (PyTorch's fused
  SDPA kernel takes the smaller k/v), and through the automatic fallback.
  References: MACs counted by hand, and FlopCounterMode on a meta copy
  where PyTorch has it (2.1+).
- Integer/boolean inputs keep their real values on the meta path, so a
  forward that reads them (`.all()`, `.item()`, `nonzero`, `.tolist()`)
  records on meta (no fallback, no warning); Builder.value_of gives the
  values, checked against the same computation run eagerly on CPU.
- (A torch.compile'd model: python/tests_hf/test_compile.py, PyTorch 2.x.)
  Under torch.autocast the report's dtypes are what autocast runs, checked
  against the dtypes of PyTorch's own CPU autocast forward.
"""
import warnings

import pytest

torch = pytest.importorskip("torch")
from torch import nn  # noqa: E402
import torch.nn.functional as F  # noqa: E402

import nnscan  # noqa: E402
from nnscan import recorder  # noqa: E402
from test_recorder import attention_call  # noqa: E402

try:  # PyTorch 2.5+: SDPA takes fewer key/value heads itself
    F.scaled_dot_product_attention(*(torch.zeros(1, 2, 1, 1),) + (
        torch.zeros(1, 1, 1, 1),) * 2, enable_gqa=True)
    SDPA_GQA = True
except (AttributeError, TypeError):
    SDPA_GQA = False


def _flop_counter_macs(model, *args):
    """PyTorch's own count of the matrix products (FlopCounterMode, 2.1+)
    on a meta copy, or None where PyTorch has none."""
    try:
        from torch.utils.flop_counter import FlopCounterMode
    except ImportError:
        return None
    meta = recorder.meta_copy(model)
    with FlopCounterMode(display=False) as fc:
        meta(*recorder.to_meta_inputs(args))
    return fc.get_total_flops() // 2


class GQA(nn.Module):
    """Self-attention with 8 query heads sharing 4 key/value heads, as
    LLaMA-3/Mistral/Qwen2 run it (SDPA's enable_gqa on 2.5+, else the
    k/v heads repeated, as transformers' eager path does)."""

    def __init__(self, d=64, hq=8, hkv=4, hd=16, fallback=False):
        super().__init__()
        self.hq, self.hkv, self.hd, self.fallback = hq, hkv, hd, fallback
        self.q = nn.Linear(d, hq * hd, bias=False)
        self.k = nn.Linear(d, hkv * hd, bias=False)
        self.v = nn.Linear(d, hkv * hd, bias=False)
        self.o = nn.Linear(hq * hd, d, bias=False)

    def forward(self, x, mask=None):
        B, T, _ = x.shape
        q = self.q(x)
        if self.fallback and float(q.abs().sum()) < 0:  # reads activations
            return x
        q = q.view(B, T, self.hq, self.hd).transpose(1, 2)
        k = self.k(x).view(B, T, self.hkv, self.hd).transpose(1, 2)
        v = self.v(x).view(B, T, self.hkv, self.hd).transpose(1, 2)
        if SDPA_GQA:
            y = F.scaled_dot_product_attention(q, k, v, attn_mask=mask,
                                               enable_gqa=True)
        else:
            g = self.hq // self.hkv
            k, v = k.repeat_interleave(g, 1), v.repeat_interleave(g, 1)
            s = q @ k.transpose(-1, -2) / self.hd ** 0.5
            if mask is not None:
                s = s.masked_fill(~mask, float("-inf"))
            y = s.softmax(-1) @ v
        return self.o(y.transpose(1, 2).reshape(B, T, self.hq * self.hd))


def gqa_macs(B, T, d=64, hq=8, hkv=4, hd=16):
    proj = B * T * d * (2 * hq * hd + 2 * hkv * hd)
    return proj + 2 * B * hq * T * T * hd


def _matmul_macs(s):
    by_op = {o["op_type"]: o["macs"] for o in s.json["op_types"]}
    return by_op.get("MatMul", 0) + by_op.get("Gemm", 0)


@pytest.mark.parametrize("path", ["meta", "model", "fallback"])
@pytest.mark.parametrize("masked", [False, True])
def test_gqa_every_path(path, masked):
    torch.manual_seed(0)
    m = GQA(fallback=path == "fallback")
    x = torch.randn(2, 10, 64)
    args = (x,)
    if masked:  # causal, as a boolean mask (True: attend)
        args = (x, torch.ones(10, 10, dtype=torch.bool).tril()[None, None])
    device = {"meta": "meta", "model": "model", "fallback": "auto"}[path]
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        s = nnscan.summary(m, inputs=args, device=device, file=False)
    assert s.device == ("meta" if path == "meta" else "cpu")
    if path == "fallback":
        assert any("cannot run on meta" in str(x.message) for x in w)
    assert not [x for x in w if "ShapeMismatch" in type(x.message).__name__
                or "infers" in str(x.message)], [str(x.message) for x in w]
    want = gqa_macs(2, 10)
    assert _matmul_macs(s) == want
    ref = _flop_counter_macs(GQA(), *args)
    if ref is not None:
        assert ref == want
    assert s.totals["params"] == sum(p.numel() for p in m.parameters())
    assert s.json["outputs"][0]["shape"] == [2, 10, 64]


def test_gqa_fused_kernel_call():
    """The fused kernel's call (what CPU dispatches on 2.x, recorded as the
    dispatcher hands it over: the table lowers it) on k/v with fewer
    heads, with a per-head mask and with a broadcast one: the two products
    cost B*Hq*L*S*d each; the output is the query's shape; the mask is
    added to the scores."""
    B, hq, hkv, L, S, d = 2, 8, 2, 5, 7, 16
    q = torch.empty(B, hq, L, d, device="meta")
    k = torch.empty(B, hkv, S, d, device="meta")
    v = torch.empty(B, hkv, S, d, device="meta")
    out = torch.empty(B, hq, L, d, device="meta")
    for mask_heads in (None, 1, hq):
        ins = [("q", q), ("k", k), ("v", v)]
        kw = {}
        if mask_heads:
            mask = torch.empty(B, mask_heads, L, S, device="meta")
            ins.append(("mask", mask))
            kw["attn_mask"] = mask
        s = attention_call("_scaled_dot_product_flash_attention_for_cpu",
                           ins, (q, k, v), kw, out)
        assert s.totals["macs"] == 2 * B * hq * L * S * d, mask_heads
        assert s.json["outputs"][0]["shape"] == [B, hq, L, d]
        ops = {o["op_type"] for o in s.json["op_types"]}
        assert ("Add" in ops) == bool(mask_heads)


SEEN = {}  # what MaskReader's last forward read from its inputs


class MaskReader(nn.Module):
    """What transformers does with a tokenizer's attention_mask: checks it
    (`.all()`, `.item()`), derives position ids from it (cumsum), finds the
    padded rows (`nonzero`, `.tolist()`), builds a causal + padding boolean
    mask from `arange` comparisons, and attends with it."""

    def __init__(self, vocab=50, d=32, heads=4, device=None):
        super().__init__()
        self.heads = heads
        self.emb = nn.Embedding(vocab, d, device=device)
        self.pos = nn.Embedding(64, d, device=device)
        self.qkv = nn.Linear(d, 3 * d, device=device)
        self.out = nn.Linear(d, d, device=device)
    def forward(self, input_ids, attention_mask):
        B, T = input_ids.shape
        if attention_mask.all():
            pos = torch.arange(T, device=input_ids.device).expand(B, T)
        else:
            pos = (attention_mask.long().cumsum(-1) - 1).clamp(min=0)
        SEEN["padded_tokens"] = int((attention_mask == 0).sum().item())
        SEEN["first_row_full"] = torch.equal(attention_mask[0],
                                             torch.ones_like(attention_mask[0]))
        SEEN["any_padding"] = bool((attention_mask == 0).any())
        SEEN["padded_rows"] = torch.nonzero(
            (attention_mask == 0).any(-1)).flatten().tolist()
        x = self.emb(input_ids) + self.pos(pos)
        i = torch.arange(T, device=input_ids.device)
        allowed = (i[None, :] <= i[:, None])[None, None] \
            & attention_mask.bool()[:, None, None, :]
        d = x.shape[-1] // self.heads
        q, k, v = (t.view(B, T, self.heads, d).transpose(1, 2)
                   for t in self.qkv(x).chunk(3, -1))
        s = (q @ k.transpose(-1, -2)) / d ** 0.5
        s = s.masked_fill(~allowed, torch.finfo(s.dtype).min)
        y = (s.softmax(-1) @ v).transpose(1, 2).reshape(B, T, -1)
        return self.out(y), pos, allowed


def _mask_reader_macs(B, T, d=32):
    return B * T * d * 3 * d + 2 * B * T * T * d + B * T * d * d


@pytest.mark.parametrize("padding", ["none", "left"])
@pytest.mark.parametrize("built_on_meta", [False, True])
def test_attention_mask_checks_record_on_meta(padding, built_on_meta):
    torch.manual_seed(0)
    B, T = 3, 9
    ids = torch.randint(0, 50, (B, T))
    am = torch.ones(B, T, dtype=torch.long)
    if padding == "left":
        am[0, :4] = 0
        am[2, :1] = 0
    m = MaskReader(device="meta" if built_on_meta else None)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no fallback, no shape mismatch
        rec = recorder.record_model(m, (ids, am), device="meta")
    assert rec.device == "meta"
    seen = dict(SEEN)
    # the values the forward read and made, as an eager CPU run has them
    real = MaskReader()
    _, pos_ref, allowed_ref = real(ids, am)
    assert seen == SEEN
    out, pos, allowed = rec.outputs
    assert out.is_meta
    assert torch.equal(rec.builder.value_of(pos), pos_ref)
    assert torch.equal(rec.builder.value_of(allowed), allowed_ref)
    assert rec.builder.value_of(out) is None  # activations stay meta
    s = nnscan.summary(m, inputs=(ids, am), file=False)
    assert s.device == "meta"
    assert _matmul_macs(s) == _mask_reader_macs(B, T)
    assert s.totals["params"] == sum(p.numel() for p in real.parameters())


class ListIndexReader(nn.Module):
    """transformers' warn_if_padding_and_no_attention_mask reads
    `pad_token_id in input_ids[:, [-1, 0]]`: a Python list as an index,
    whose index tensor PyTorch makes unseen. The branch it decides is
    what gets computed, and a list also picks and writes rows."""

    def __init__(self, pad=0, device=None):
        super().__init__()
        self.pad = pad
        self.lin = nn.Linear(8, 8, device=device)

    def forward(self, ids):
        x = torch.zeros(ids.shape[0], ids.shape[1], 8, device=ids.device)
        if self.pad in ids[:, [-1, 0]]:
            x = self.lin(x)  # one more product: padded at either end
        rows = ids[[1, 0]]
        marks = torch.zeros_like(ids)
        marks[[0, 1], [2, 2]] = rows[:, :1].flatten()
        return self.lin(x), rows, marks


@pytest.mark.parametrize("padded", [True, False])
def test_list_indices_of_real_values_record_on_meta(padded):
    """Indexing a real integer input with a Python list on meta keeps the
    values (shadow.TensorConstructors): the model built on meta records
    without a fallback, takes the branch the CPU run takes, and the rows a
    list picks or writes are the CPU run's; Tensor.__getitem__ and
    __setitem__ are PyTorch's own again afterwards, also after a forward
    that raised."""
    ids = torch.tensor([[0, 5, 6, 7], [3, 4, 5, 9]]) if padded \
        else torch.tensor([[2, 5, 6, 7], [3, 4, 5, 9]])
    before = (torch.Tensor.__dict__.get("__getitem__"),
              torch.Tensor.__dict__.get("__setitem__"))
    m = ListIndexReader(device="meta")
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no fallback
        rec = recorder.record_model(m, (ids,), device="meta")
    _, rows_ref, marks_ref = ListIndexReader()(ids)
    _, rows, marks = rec.outputs
    assert torch.equal(rec.builder.value_of(rows), rows_ref)
    assert torch.equal(rec.builder.value_of(marks), marks_ref)
    s = nnscan.summary(m, inputs=(ids,), file=False)
    assert s.device == "meta"
    # by hand: 2 x 4 tokens x 8 x 8 per product, two products when padded
    assert _matmul_macs(s) == (2 if padded else 1) * 2 * 4 * 8 * 8

    class Raises(nn.Module):
        def forward(self, ids):
            ids[:, [0]]
            raise ValueError("the forward's own error")
    with pytest.raises(ValueError):
        recorder.record_model(Raises(), (ids,), device="meta")
    assert (torch.Tensor.__dict__.get("__getitem__"),
            torch.Tensor.__dict__.get("__setitem__")) == before


def test_user_values_not_touched_and_big_or_float_inputs_stay_meta():
    """The shadows are copies (an in-place op in forward does not change
    the user's tensor); float inputs and integer tensors above the element
    budget are not tracked."""
    class InPlace(nn.Module):
        def forward(self, mask, x):
            mask.masked_fill_(mask == 0, 7)
            return x * mask.sum(), mask, x

    mask = torch.tensor([[0, 1, 1]])
    rec = recorder.record_model(InPlace(), (mask, torch.randn(2, 3)))
    assert rec.device == "meta"
    assert mask.tolist() == [[0, 1, 1]]
    _, m, x = rec.outputs
    assert rec.builder.value_of(m).tolist() == [[7, 1, 1]]
    assert rec.builder.value_of(x) is None

    from nnscan import shadow
    sh = shadow.Shadows()
    big = torch.zeros(shadow.MAX_ELEMENTS + 1, dtype=torch.bool)
    meta = torch.empty(big.shape, dtype=big.dtype, device="meta")
    sh.adopt(meta, big)
    assert sh.value(meta) is None


def test_data_read_on_untracked_values_still_falls_back():
    class ReadsActivations(nn.Module):
        def __init__(self):
            super().__init__()
            self.lin = nn.Linear(4, 4)

        def forward(self, x):
            y = self.lin(x)
            return y * 2 if y.sum().item() > -1e30 else y

    with pytest.warns(UserWarning, match="cannot run on meta"):
        s = nnscan.summary(ReadsActivations(), inputs=(torch.randn(2, 4),),
                           file=False)
    assert s.device == "cpu"
    with pytest.raises(nnscan.RecordError if hasattr(nnscan, "RecordError")
                       else recorder.RecordError):
        recorder.record_model(ReadsActivations(), (torch.randn(2, 4),),
                              device="meta")


class _WritesInPlace(nn.Module):
    """Reads a value computed before an in-place write to its input."""

    seen = []  # a class attribute: the recorder's meta copy shares it

    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(3, 2)

    def forward(self, x, ids):
        doubled = ids * 2        # its value is not read yet
        ids.add_(10)             # a write in place after it
        unused = torch.ones(64, 64, dtype=torch.bool, device=ids.device)
        unused.tril()            # a mask nobody reads
        self.seen.append((int(doubled.sum()), int(ids.sum())))
        return self.fc(x)


def test_values_are_computed_when_read_and_see_no_later_write():
    """Values are computed when read (shadow.py): a value read after an
    in-place write to one of its inputs is the one from before the write,
    as in the eager run; a value nobody reads is never computed; the
    caller's tensor is not written."""
    ids = torch.tensor([1, 2, 3])
    _WritesInPlace.seen.clear()
    _WritesInPlace()(torch.randn(1, 3), ids.clone())
    assert _WritesInPlace.seen == [(12, 36)]  # by hand: 2*(1+2+3), 6+3*10
    rec = recorder.record_model(_WritesInPlace(), (torch.randn(1, 3), ids),
                                device="meta")
    assert _WritesInPlace.seen == [(12, 36)] * 2
    assert ids.tolist() == [1, 2, 3]
    shadows = rec.builder.shadows
    assert any(not p.done for p in shadows.pending)  # the unused mask


class _BNNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 8, 3)
        self.bn = nn.BatchNorm2d(8)
        self.fc1 = nn.Linear(8 * 6 * 6, 32)
        self.fc2 = nn.Linear(32, 4)

    def forward(self, x):
        y = torch.relu(self.bn(self.conv(x))).flatten(1)
        return F.softmax(self.fc2(F.gelu(self.fc1(y))), -1)


class _Attn(nn.Module):
    """(nn.MultiheadAttention takes a fused fast path on a real CPU that it
    does not take on meta: PyTorch itself runs other ops there.)"""

    def __init__(self):
        super().__init__()
        self.qkv = nn.Linear(16, 48)
        self.fc = nn.Linear(16, 16)

    def forward(self, x):
        q, k, v = self.qkv(x).chunk(3, -1)
        p = (q @ k.transpose(-1, -2) / 4).softmax(-1)
        return self.fc(torch.tanh(p @ v))


@pytest.mark.parametrize("make,shape", [(_BNNet, (2, 3, 8, 8)),
                                        (_Attn, (2, 5, 16))])
def test_autocast_dtypes_are_what_autocast_runs(make, shape):
    """Recorded on meta under torch.autocast("cpu", bfloat16), the report
    is the one of PyTorch's own CPU autocast run (device="model": the
    dispatcher casts): same nodes, dtypes, bytes; matmuls in bf16."""
    torch.manual_seed(0)
    m = make().eval()
    x = torch.randn(*shape)
    # one autocast region each: PyTorch caches a weight's cast in a region
    with torch.autocast("cpu", torch.bfloat16):
        eager = m(x)
    with torch.autocast("cpu", torch.bfloat16):
        meta = nnscan.summary(m, inputs=(x,), file=False)
    with torch.autocast("cpu", torch.bfloat16):
        real = nnscan.summary(m, inputs=(x,), device="model", file=False)
    assert (meta.device, real.device) == ("meta", "cpu")
    assert meta.json["outputs"][0]["dtype"] == str(eager.dtype)[6:] == "bfloat16"
    for key in ("macs", "flops", "dmas", "activation_bytes", "nodes"):
        assert meta.totals[key] == real.totals[key], key
    assert meta.json["op_types"] == real.json["op_types"]
    assert any(o["op_type"] == "Cast" for o in meta.json["op_types"])
    with torch.autocast("cpu", torch.bfloat16):
        rec = recorder.record_model(m, (x,))
    h = rec.graph.build()
    h.infer(fallback_declared=True)
    products = [n for n in h.nodes() if n[0] in ("MatMul", "Gemm", "Conv")]
    assert products and all(dt == "bfloat16" for n in products
                            for _, dt in n[3])
    plain = nnscan.summary(m, inputs=(x,), file=False)
    assert plain.json["outputs"][0]["dtype"] == "float32"
    assert plain.totals["macs"] == meta.totals["macs"]
    assert not any(o["op_type"] == "Cast" for o in plain.json["op_types"])
    # a region with autocast turned off inside forward is not cast

    class Off(nn.Module):
        def __init__(self):
            super().__init__()
            self.inner = make()

        def forward(self, x):
            with torch.autocast("cpu", enabled=False):
                return self.inner(x)

    off = Off().eval()
    with torch.autocast("cpu", torch.bfloat16):
        s = nnscan.summary(off, inputs=(x,), file=False)
    assert s.json["outputs"][0]["dtype"] == "float32"
    assert not any(o["op_type"] == "Cast" for o in s.json["op_types"])


class DropsZeroRows(nn.Module):
    """Drops the all-zero rows of its float input by their values, as
    Idefics3 drops padding images by their pixels, then projects the
    rest."""

    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 3)

    def forward(self, x):
        keep = (x == 0).sum(-1) != x.shape[-1]
        return self.fc(x[keep])


def test_float_input_read_by_value_records_on_meta():
    """The first try on meta cannot index by the float input's values; the
    second keeps them (recorder._record_reading_floats): recorded on meta,
    no warning, the caller's tensor unchanged, and the MACs of the 3 rows
    left by hand (3 * 4 * 3)."""
    x = torch.randn(5, 4)
    x[1] = 0
    x[3] = 0
    before = x.clone()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        s = nnscan.summary(DropsZeroRows(), inputs=(x,), file=False)
    assert s.device == "meta"
    assert s.layer("fc")["macs"] == 3 * 4 * 3
    assert torch.equal(x, before)


def test_small_values_are_computed_on_one_thread():
    """A shadow of up to SMALL_ELEMENTS elements is computed with one
    intra-op thread (tril splits a 16 x 16 mask over the threads, whose
    wake-up cost 10-16 ms a call beside a busy core), and the setting is
    back as it was afterwards, also after an error; a summary leaves it
    as found."""
    from nnscan import shadow
    was = torch.get_num_threads()
    torch.set_num_threads(2)
    try:
        with shadow._one_thread():
            assert torch.get_num_threads() == 1
        assert torch.get_num_threads() == 2
        with pytest.raises(ValueError):
            with shadow._one_thread():
                raise ValueError("in the computation")
        assert torch.get_num_threads() == 2
        small = torch.zeros(shadow.SMALL_ELEMENTS)
        assert shadow._small([small, [small, 3], None])
        assert not shadow._small([[torch.zeros(shadow.SMALL_ELEMENTS + 1)]])
        m = torch.nn.Linear(4, 4)
        mask = torch.ones(1, 6, dtype=torch.bool)

        class Masked(torch.nn.Module):
            def __init__(self):
                super().__init__()
                self.lin = m

            def forward(self, x, mask):
                causal = torch.tril(torch.ones(6, 6, dtype=torch.bool))
                return self.lin(x) * (causal & mask).sum()

        nnscan.summary(Masked(), inputs=(torch.zeros(1, 6, 4), mask),
                       file=False)
        assert torch.get_num_threads() == 2
    finally:
        torch.set_num_threads(was)
