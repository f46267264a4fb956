"""summary(..., training=True) against PyTorch's own view of a real step.

A GPT-2-style transformer (Hugging Face GPT2LMHeadModel from a small
config) and a CNN (torchvision's ResNet-18), batch > 1, training mode. The
references are independent of nnscan's step on meta: a real CPU step with
a saved-tensor hook (what autograd saves per top-level module), PyTorch's
memory tracker (torch.distributed._tools.mem_tracker.MemTracker) over a
real steady-state step (forward, backward, AdamW), and the gradients and
optimizer state PyTorch really allocates.
"""
import contextlib
import json
import os
import threading

import pytest
import torch
from torch.distributed._tools.mem_tracker import MemTracker

import nnscan
import rules_reference
from conftest import MLP_B as B, MLP_D as D, MLP_H as H, MLP_O as O
from conftest import training_mlp as mlp, training_mlp_summary as run


def gpt2():
    from transformers import GPT2Config, GPT2LMHeadModel
    torch.manual_seed(0)
    cfg = GPT2Config(n_layer=4, n_embd=256, n_head=4, vocab_size=5000,
                     n_positions=256, bos_token_id=0, eos_token_id=0,
                     use_cache=False)
    model = GPT2LMHeadModel(cfg)
    ids = torch.randint(0, 5000, (4, 128))
    return model, (), {"input_ids": ids, "labels": ids}, None


def cnn():
    import torchvision
    torch.manual_seed(0)
    model = torchvision.models.resnet18(num_classes=10)
    x = torch.randn(4, 3, 64, 64)
    target = torch.randint(0, 10, (4,))
    return model, (x,), {}, \
        lambda out: torch.nn.functional.cross_entropy(out, target)


MODELS = {"gpt2": gpt2, "cnn": cnn}


def _loss(out, loss):
    return loss(out) if loss is not None else out.loss


@contextlib.contextmanager
def _module_paths(model):
    """The stack of module paths while the forward runs (global hooks)."""
    path_of = {id(m): n for n, m in model.named_modules()}
    stack = [""]
    me = threading.get_ident()

    def pre(mod, _inputs):
        if threading.get_ident() == me:
            stack.append(path_of.get(id(mod), stack[-1]))

    def post(mod, _inputs, _out):
        if threading.get_ident() == me:
            stack.pop()
    mm = torch.nn.modules.module
    hs = [mm.register_module_forward_pre_hook(pre),
          mm.register_module_forward_hook(post)]
    try:
        yield stack
    finally:
        for h in hs:
            h.remove()


def saved_by_top_module(model, args, kwargs, loss):
    """Bytes autograd saves on a real CPU training step, per top-level
    module ("" the model's own ops and its inputs), each storage once at
    its first saver, parameters and buffers left out."""
    model.train()
    static = {t.untyped_storage().data_ptr() for t in
              list(model.parameters()) + list(model.buffers())}
    seen, per = set(), {}
    keep = []
    with _module_paths(model) as stack:
        def pack(t):
            st = t.untyped_storage()
            key = (st.data_ptr(), st.nbytes())
            if st.data_ptr() not in static and key not in seen:
                seen.add(key)
                # the storage stays alive, so keys stay unique (the
                # storage, not t: t's graph holds this hook, a cycle the
                # collector cannot see)
                keep.append(st)
                # the model's inputs count at their first saver too
                # (docs/metrics.md)
                top = stack[-1].split(".")[0]
                per[top] = per.get(top, 0) + st.nbytes()
            return t
        with torch.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
            out = model(*args, **kwargs)
            _loss(out, loss)
    return per


def real_step(model, args, kwargs, loss, modules=()):
    """MemTracker's peak over a steady-state step (AdamW), the gradient
    bytes and the optimizer state bytes; `modules` are run under
    activation checkpointing."""
    import torch.utils.checkpoint as cp
    model.train()
    originals = {}
    for path in modules:
        mod = model.get_submodule(path)
        originals[path] = mod.forward
        fwd = mod.forward
        mod.forward = (lambda f: lambda *a, **k: cp.checkpoint(
            f, *a, use_reentrant=False, **k))(fwd)
    opt = torch.optim.AdamW(model.parameters())

    def step():
        out = model(*args, **kwargs)
        _loss(out, loss).backward()
        grads = sum(p.grad.untyped_storage().nbytes()
                    for p in model.parameters() if p.grad is not None)
        opt.step()
        opt.zero_grad()
        return out, grads
    try:
        step()   # the first step makes the optimizer's state
        mt = MemTracker()
        mt.track_external(model, opt, *args, *kwargs.values())
        with mt:
            _, grads = step()
        peak = max(d["Total"] for d in mt.get_tracker_snapshot("peak").values())
    finally:
        for path, f in originals.items():
            model.get_submodule(path).forward = f
    state = sum(v.untyped_storage().nbytes() for s in opt.state.values()
                for v in s.values() if isinstance(v, torch.Tensor))
    return peak, grads, state


@pytest.fixture(scope="module", params=sorted(MODELS))
def case(request):
    model, args, kwargs, loss = MODELS[request.param]()
    s = nnscan.summary(model, inputs=kwargs or args, training=True,
                       optimizer="adamw", loss=loss, file=False)
    return request.param, model, args, kwargs, loss, s


def test_saved_bytes_per_top_level_module(case):
    name, model, args, kwargs, loss, s = case
    want = saved_by_top_module(model, args, kwargs, loss)
    assert sum(want.values()) > 0
    tops = [l for l in s.layers if l["path"] and "." not in l["path"]]
    got = {l["path"]: l["saved_bytes"] for l in tops}
    own = s.layer("")["saved_bytes"] - sum(got.values())
    got[""] = own
    for path in set(want) | set(got):
        w, g = want.get(path, 0), got.get(path, 0)
        assert abs(g - w) <= 0.02 * max(w, 1), (name, path, g, w)
    assert s.totals["saved_bytes"] == sum(want.values())


_REAL = {}  # case name -> real_step's figures (one real step per model)


def _real(name, model, args, kwargs, loss):
    if name not in _REAL:
        _REAL[name] = real_step(model, args, kwargs, loss)
    return _REAL[name]


def test_train_peak_within_ten_percent_of_memtracker(case):
    name, model, args, kwargs, loss, s = case
    peak, _, _ = _real(name, model, args, kwargs, loss)
    got = s.totals["train_peak_bytes"]
    assert abs(got - peak) <= 0.10 * peak, (name, got, peak)
    assert s.totals["training"]["estimate"] is False
    assert s.totals["training"]["peak_at"]["phase"] in (
        "forward", "backward", "optimizer")


def test_json_follows_the_schema(case):
    import jsonschema
    name, _, _, _, _, s = case
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..",
                        "..", "docs", "summary.schema.json")
    with open(path) as f:
        jsonschema.validate(json.loads(s.to_json()), json.load(f))
    assert "Saved" in s.to_text().splitlines()[1], name


def test_grads_and_optimizer_state_exact(case):
    name, model, args, kwargs, loss, s = case
    _, grads, state = _real(name, model, args, kwargs, loss)
    assert s.totals["grad_bytes"] == grads, name
    assert s.totals["optimizer_bytes"] == state, name


def test_checkpoint_plan_fits_on_a_real_step():
    """The modules the plan names, checkpointed on a real step, bring
    MemTracker's peak near the budget (within the ±10 % the peak itself
    is held to)."""
    model, args, kwargs, loss = gpt2()
    full = nnscan.summary(model, inputs=kwargs, training=True,
                          optimizer="adamw", file=False)
    peak = full.totals["train_peak_bytes"]
    budget = int(peak * 0.85)
    s = nnscan.summary(model, inputs=kwargs, training=True,
                       optimizer="adamw", budget=budget, file=False)
    plan = s.totals["training"]["checkpoint"]
    assert plan["budget_bytes"] == budget and plan["modules"]
    assert plan["fits"] and plan["peak_bytes"] <= budget
    measured, _, _ = real_step(model, args, kwargs, loss,
                               modules=plan["modules"])
    assert measured <= budget * 1.10, (measured, budget, plan["modules"])
    for path in plan["modules"]:
        row = s.layer(path)
        assert row["checkpoint_saves_bytes"] > 0
        assert row["checkpoint_recompute_flops"] == row["flops"]


# ---- counted by hand: Linear(8, 16), ReLU, Linear(16, 4), batch 3 ----

def test_saved_bytes_by_hand():
    s = run(optimizer="adam")
    # Linear 0 (addmm) saves its input x, a model input: at Linear 0, as
    # autograd keeps it there (issue 40, item 5).
    # ReLU saves its output, which Linear 2 saves too: once, at the ReLU.
    # The weights the linears save are parameters: not counted.
    assert s.layer("0")["saved_bytes"] == B * D * 4
    assert s.layer("1")["saved_bytes"] == B * H * 4
    assert s.layer("2")["saved_bytes"] == 0
    assert s.totals["saved_bytes"] == B * D * 4 + B * H * 4
    assert s.layer("")["saved_bytes"] == s.totals["saved_bytes"]
    # ReLU's output is saved after the ReLU too (by Linear 2): wrapping the
    # ReLU alone frees nothing; only the whole model makes and saves it,
    # and frees it at the peak if it is still live then (this small
    # model's peak is late, where the backward has freed it)
    assert s.layer("1")["checkpoint_saves_bytes"] == 0
    live = s.totals["training"]["peak_at"]["phase"] == "forward"
    assert s.layer("")["checkpoint_saves_bytes"] == (B * H * 4 if live
                                                     else 0)
    assert s.layer("2")["checkpoint_recompute_flops"] == s.layer("2")["flops"]


@pytest.mark.parametrize("opt,state", [("sgd", 0), ("momentum", 1),
                                       ("adam", 2), ("adamw", 2)])
def test_grads_and_optimizer_by_hand(opt, state):
    s = run(optimizer=opt)
    params = D * H + H + H * O + O
    assert s.totals["grad_bytes"] == params * 4
    steps = 4 * 4 if state == 2 else 0   # Adam's step count per tensor
    assert s.totals["optimizer_bytes"] == state * params * 4 + steps
    t = s.totals["training"]
    assert t["estimate"] is False and t["optimizer"] == opt
    assert t["loss"] == "sum of outputs"
    # the peak holds at least what is live all step long, and the
    # gradients (kept to the optimizer step)
    assert s.totals["train_peak_bytes"] >= params * 4 * 2 + \
        s.totals["optimizer_bytes"] + B * D * 4
    assert "activation_bytes" not in t and "total_bytes" not in t


def test_master_weights_keep_fp32_state():
    model = mlp().to(torch.bfloat16)
    x = torch.randn(B, D, dtype=torch.bfloat16)
    s = nnscan.summary(model, inputs=x, training=True, optimizer="adamw",
                       master_weights=True, file=False)
    params = D * H + H + H * O + O
    assert s.totals["grad_bytes"] == params * 2
    # fp32 exp_avg, exp_avg_sq and master copy, and 4 step counts
    assert s.totals["optimizer_bytes"] == params * 4 * 3 + 4 * 4
    assert s.totals["training"]["master_weights"] is True


def test_loss_callable_and_budget_plan():
    target = torch.randint(0, O, (B,))
    s = run(optimizer="sgd", budget="1GB",
            loss=lambda out: torch.nn.functional.cross_entropy(out, target))
    assert s.totals["training"]["loss"] == "loss="
    plan = s.totals["training"]["checkpoint"]
    assert plan == {"budget_bytes": 10 ** 9, "fits": True,
                    "peak_bytes": s.totals["train_peak_bytes"],
                    "floor_bytes": s.totals["train_peak_bytes"],
                    "modules": []}
    text = s.to_text()
    assert "Saved" in text.splitlines()[1]
    assert "fits in" in text and "Training step (sgd" in text


def test_model_left_unchanged():
    model = mlp()
    before = {k: v.clone() for k, v in model.state_dict().items()}
    model.eval()
    nnscan.summary(model, inputs=torch.randn(B, D), training=True,
                   optimizer="adam", file=False)
    assert not model.training
    assert all(p.grad is None for p in model.parameters())
    for k, v in model.state_dict().items():
        assert torch.equal(v, before[k])




def test_inspector_shows_the_prediction_beside_the_measurement():
    """A model in training mode inspected with static_inputs gets the
    predicted saved bytes per module: the same numbers summary(training=
    True) gives, in the JSON and as a column beside Fwd mem."""
    model = mlp()
    x = torch.randn(B, D)
    want = {l["path"]: l["saved_bytes"] for l in nnscan.summary(
        model, inputs=x, training=True, file=False).layers}
    model.train()
    with nnscan.Inspector(model, static_inputs=x,
                          predict_training=True) as insp:
        model(x).sum().backward()
    doc = insp.json()
    got = {m["path"]: m["predicted_saved_bytes"] for m in doc["modules"]}
    assert got == want
    header = insp.report("text", width=200).splitlines()
    assert any("Fwd mem" in line and "Saved (pred.)" in line
               for line in header)
    # at the default 100 columns too: its title on two lines where the
    # table is tight ("Saved" over "(pred.)", right-aligned alike)
    lines = insp.report("text").splitlines()
    head = lines[1:next(i for i, l in enumerate(lines) if l.startswith("===="))]
    assert any("Saved (pred.)" in l for l in head) or (
        len(head) == 2 and "Saved" in head[0] and "(pred.)" in head[1] and
        head[0].index("Saved") + 5 == head[1].index("(pred.)") + 7)


def test_target_cuda_keeps_dropout_masks_of_one_byte():
    """On CUDA dropout is the fused kernel, whose mask is one byte per
    element; on the CPU (and meta) it keeps a float mask. With a batch of
    3 and 16 features: 48 bytes against 192."""
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(D, H), torch.nn.Dropout(0.5),
                                torch.nn.Linear(H, O))
    x = torch.randn(B, D)
    cpu = nnscan.summary(model, inputs=x, training=True, file=False)
    cuda = nnscan.summary(model, inputs=x, training=True, target="cuda",
                          file=False)
    assert cpu.layer("1")["saved_bytes"] == B * H * 4
    assert cuda.layer("1")["saved_bytes"] == B * H * 1
    assert cuda.totals["training"]["target"] == "cuda"
    assert "run as cuda runs them" in cuda.to_text()


class _Attend(torch.nn.Module):
    """q, k, v projections (each a Linear: it saves its input, not its
    output) into scaled_dot_product_attention; batch 2, heads as given."""

    def __init__(self, d, heads, kv_heads, mask=None, causal=False):
        super().__init__()
        self.e = d // heads
        self.h, self.kv = heads, kv_heads
        self.q = torch.nn.Linear(d, d)
        self.k = torch.nn.Linear(d, kv_heads * self.e)
        self.v = torch.nn.Linear(d, kv_heads * self.e)
        self.mask, self.causal = mask, causal

    def forward(self, x):
        b, n, _ = x.shape
        q = self.q(x).view(b, n, self.h, self.e).transpose(1, 2)
        k = self.k(x).view(b, n, self.kv, self.e).transpose(1, 2)
        v = self.v(x).view(b, n, self.kv, self.e).transpose(1, 2)
        return torch.nn.functional.scaled_dot_product_attention(
            q, k, v, attn_mask=self.mask, is_causal=self.causal,
            enable_gqa=self.kv != self.h)


@pytest.mark.parametrize("dtype,kv,mask,causal", [
    (torch.bfloat16, 4, False, True),    # flash
    (torch.bfloat16, 2, False, False),   # flash, grouped key/value heads
    (torch.float32, 4, False, True),     # memory-efficient
    (torch.float32, 4, True, False),     # memory-efficient, mask as a bias
])
def test_target_cuda_attention_saves_what_the_fused_kernel_saves(
        dtype, kv, mask, causal):
    """On CUDA scaled_dot_product_attention runs a fused kernel (flash for
    16-bit inputs without a mask, else memory-efficient) whose backward
    keeps q, k, v, the output and one fp32 log-sum-exp per query row
    (derivatives.yaml), plus two philox counters of at most 8 bytes each,
    and a boolean mask as an additive bias of q's dtype; never the
    [L, S] probabilities the CPU's math path keeps."""
    d, h, n, b = 64, 4, 32, 2
    e = d // h
    m = torch.ones(n, n, dtype=torch.bool).tril() if mask else None
    torch.manual_seed(0)
    model = _Attend(d, h, kv, m, causal).to(dtype)
    x = torch.randn(b, n, d, dtype=dtype)
    size = torch.tensor([], dtype=dtype).element_size()
    q = b * n * d * size
    kv_bytes = 2 * b * n * kv * e * size
    want = q + kv_bytes + q + b * h * n * 4 + (n * n * size if mask else 0)
    cuda = nnscan.summary(model, inputs=x, training=True, target="cuda",
                          file=False)
    cpu = nnscan.summary(model, inputs=x, training=True, file=False)
    # the root saves x (the Linears' input); the attention's saves there too
    attention = cuda.totals["saved_bytes"] - b * n * d * size
    assert want <= attention <= want + 32
    # the math path keeps the probabilities, [b, h, n, n] at least
    assert cpu.totals["saved_bytes"] - b * n * d * size >= \
        q + kv_bytes + b * h * n * n * size


def test_target_cuda_flash_kernel_on_the_library_tape(monkeypatch, request):
    """The flash kernel a CUDA target records returns sizes beside its
    tensors (max_q, max_k): its record has no tensor there, as for an
    output PyTorch did not compute, and the call goes on the library's
    tape (session 106; before, the recorder's rule made it), its
    report byte for byte the one the rules gave (frozen: rules_reference)."""
    from nnscan import graph
    torch.manual_seed(0)
    model = _Attend(64, 4, 4, None, True).to(torch.bfloat16)
    x = torch.randn(2, 32, 64, dtype=torch.bfloat16)
    held = []
    pack = graph._pack_parts

    def kept(g):
        held.append(dict(g.aten))
        return pack(g)
    monkeypatch.setattr(graph, "_pack_parts", kept)
    s = nnscan.summary(model, inputs=x, training=True, target="cuda",
                       file=False)
    monkeypatch.setattr(graph, "_pack_parts", pack)
    rules_reference.check(request, [s.to_json(version=2)], hf=True)
    on_tape = [c[0] for g in held for c in g.values() if len(c) > 2]
    assert "_scaled_dot_product_flash_attention" in on_tape


# ---- issue 40: the input at its saver, plans that cannot help, losses ----

def test_first_layer_saves_the_model_input():
    """resnet18's conv1 saves the image: its bytes count at conv1, as a
    saved-tensor hook on a real step sees them (item 5)."""
    model, args, kwargs, loss = cnn()
    s = nnscan.summary(model, inputs=args, training=True,
                       optimizer="adamw", loss=loss, file=False)
    x = args[0]
    seen = []
    model.train()
    with _module_paths(model) as stack:
        def pack(t):
            if stack[-1] == "conv1":
                seen.append(t.untyped_storage().nbytes())
            return t
        with torch.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
            _loss(model(x), loss)
    want = x.untyped_storage().nbytes()
    assert want in seen
    assert s.layer("conv1")["saved_bytes"] == want == 4 * 3 * 64 * 64 * 4


def _llama_bf16():
    from transformers import LlamaConfig, LlamaForCausalLM
    cfg = LlamaConfig(vocab_size=4000, hidden_size=256,
                      intermediate_size=688, num_hidden_layers=4,
                      num_attention_heads=4, num_key_value_heads=4,
                      use_cache=False)
    with torch.device("meta"):
        model = LlamaForCausalLM(cfg).to(torch.bfloat16)
    ids = torch.randint(0, 4000, (1, 8))
    return model, {"input_ids": ids, "labels": ids}


def test_checkpoint_plan_cannot_beat_the_optimizer_step():
    """A bf16 LLaMA with AdamW at a few tokens peaks at the optimizer step
    (parameters, gradients, state): a budget under that peak lists no
    module and says why (item 6)."""
    model, kw = _llama_bf16()
    s = nnscan.summary(model, inputs=kw, training=True, optimizer="adamw",
                       budget=1, file=False)
    t = s.totals
    assert t["training"]["peak_at"]["phase"] == "optimizer"
    plan = t["training"]["checkpoint"]
    assert plan["modules"] == [] and plan["fits"] is False
    assert plan["peak_bytes"] == t["train_peak_bytes"]
    # the floor holds parameters, gradients and the optimizer's state
    assert plan["floor_bytes"] >= t["param_bytes"] + t["grad_bytes"] + \
        t["optimizer_bytes"]
    budget = plan["floor_bytes"] - 1
    s = nnscan.summary(model, inputs=kw, training=True, optimizer="adamw",
                       budget=budget, file=False)
    assert s.totals["training"]["checkpoint"]["modules"] == []
    assert "checkpointing cannot reach" in s.to_text()


def test_checkpoint_plan_down_to_the_floor():
    """GPT-2 at 4 x 128 tokens peaks in the backward, activations live: a
    budget between the floor and the peak gets a plan whose peak, taken
    over the whole step, fits it and never goes below the floor."""
    model, args, kwargs, loss = gpt2()
    s = nnscan.summary(model, inputs=kwargs, training=True,
                       optimizer="adamw", budget=1, file=False)
    plan = s.totals["training"]["checkpoint"]
    peak, floor = s.totals["train_peak_bytes"], plan["floor_bytes"]
    assert floor < peak
    budget = (floor + peak) // 2
    s = nnscan.summary(model, inputs=kwargs, training=True,
                       optimizer="adamw", budget=budget, file=False)
    plan = s.totals["training"]["checkpoint"]
    assert plan["modules"] and plan["fits"]
    assert floor <= plan["peak_bytes"] <= budget


def test_hf_training_with_labels_is_complete():
    """A Hugging Face model given labels: the loss (cross-entropy: a
    log-softmax and NLL) and its backward are counted (item 8)."""
    model, args, kwargs, loss = gpt2()
    s = nnscan.summary(model, inputs=kwargs, backward=True, file=False)
    assert s.json["uncounted_ops"] == [] and s.uncounted_aten == {}
    assert s.backward.json["uncounted_ops"] == []
    assert "≥" not in s.to_text()


# ---- issue 41 item 11: transformers' default use_cache=True ----

def gpt2_default_cache():
    """gpt2() with the config's default, use_cache=True."""
    from transformers import GPT2Config, GPT2LMHeadModel
    torch.manual_seed(0)
    cfg = GPT2Config(n_layer=4, n_embd=128, n_head=4, vocab_size=500,
                     n_positions=64, bos_token_id=0, eos_token_id=0)
    assert cfg.use_cache  # transformers' default
    ids = torch.randint(0, 500, (2, 32))
    return GPT2LMHeadModel(cfg), {"input_ids": ids, "labels": ids}


def test_training_recorded_without_the_kv_cache():
    """The step is the one training runs: with use_cache=False, said in
    text and JSON; the caller's own use_cache is kept (and the cache then
    counted: PyTorch's own peak is higher with it)."""
    model, kw = gpt2_default_cache()
    s = nnscan.summary(model, inputs=kw, training=True, optimizer="adamw",
                       file=False)
    off = nnscan.summary(model, inputs=dict(kw, use_cache=False),
                         training=True, optimizer="adamw", file=False)
    on = nnscan.summary(model, inputs=dict(kw, use_cache=True),
                        training=True, optimizer="adamw", file=False)
    assert s.totals["train_peak_bytes"] == off.totals["train_peak_bytes"]
    assert s.totals["training"]["forward_set"] == "use_cache=False"
    assert "forward_set" not in off.totals["training"]
    assert "forward_set" not in on.totals["training"]
    assert "the forward ran with use_cache=False" in s.to_text()
    assert on.totals["train_peak_bytes"] > off.totals["train_peak_bytes"]
    # PyTorch's own peak (MemTracker): the cache costs on a real step too
    peak_on, _, _ = real_step(model, (), kw, None)  # the config's True
    model.config.use_cache = False
    peak_off, _, _ = real_step(model, (), kw, None)
    assert peak_on > peak_off
    schema_check_summary(s)


def schema_check_summary(s):
    import jsonschema
    here = os.path.dirname(os.path.abspath(__file__))
    with open(os.path.join(here, "..", "..", "docs", "summary.schema.json"),
              encoding="utf-8") as f:
        jsonschema.validate(json.loads(s.to_json()), json.load(f))


def _doc_block(name):
    here = os.path.dirname(os.path.abspath(__file__))
    text = open(os.path.join(here, "..", "..", "docs", "python.md"),
                encoding="utf-8").read()
    start = text.index("<!-- %s " % name)
    a = text.index("```python\n", start) + len("```python\n")
    return text[a:text.index("```", a)]


def test_checkpoint_plan_applied_as_documented_on_default_gpt2():
    """docs/python.md's "Applying the plan" block, run as written on
    GPT-2 with transformers' default use_cache=True and a plan that
    checkpoints a block holding attention (where the cache made PyTorch
    raise CheckpointError): the real step runs, and MemTracker's peak is
    near the budget (the ±10 % the peak is held to)."""
    model, kw = gpt2_default_cache()
    full = nnscan.summary(model, inputs=kw, training=True, optimizer="adamw",
                          file=False)
    peak = full.totals["train_peak_bytes"]
    floor = nnscan.summary(model, inputs=kw, training=True, optimizer="adamw",
                           budget=1, file=False
                           ).totals["training"]["checkpoint"]["floor_bytes"]
    attn = {n for n, m in model.named_modules()
            if type(m).__name__ == "GPT2Attention"}
    for frac in (0.02, 0.05, 0.01, 0.1):
        budget = int(floor + (peak - floor) * frac) + 1
        s = nnscan.summary(model, inputs=kw, training=True,
                           optimizer="adamw", budget=budget, file=False)
        plan = s.totals["training"]["checkpoint"]["modules"]
        # a block (or an attention) of transformer.h: what the cache broke
        if any((a == p or a.startswith(p + ".")) and p.startswith("transformer.h.")
               for a in attn for p in plan):
            break
    else:
        pytest.fail("no plan checkpoints a block's attention: %r" % plan)
    assert s.totals["training"]["checkpoint"]["fits"]
    exec(_doc_block("apply-plan"), {"model": model, "s": s})
    assert model.config.use_cache is False
    measured, _, _ = real_step(model, (), kw, None)
    assert measured <= budget * 1.10, (measured, budget, plan)
