#!/usr/bin/env python3
"""Generate the three benchmark models for nnscan.

Run with /usr/bin/python3 (needs onnx; torch + torchvision only for resnet50).
No network access is needed.

    /usr/bin/python3 bench/gen_models.py [--out DIR] [--only NAME ...] [--force]

Models (NAME in parentheses):
  resnet50_inline.onnx  (resnet50)  torchvision resnet50, random weights (seed 0),
                                    opset 13, weights inline (~100 MB).
  llama7b_shaped.onnx   (llama7b)   LLaMA-7B-shaped decoder built with
                                    onnx.helper, opset 17. Every initializer
                                    points at external data in
                                    llama7b_shaped.weights, which is NEVER
                                    written (offsets go past 2 GiB on purpose).
  graph100k.onnx        (graph100k) exactly 100,000 cheap nodes, opset 13,
                                    small inline initializers.
  llama10k_shaped.onnx  (llama10k)  the LLaMA-shaped decoder with 714
                                    decoder layers: ~10,000 layers in the
                                    module tree (bench/html_render.py).
"""

import argparse
import os
import sys
import time

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

HERE = os.path.dirname(os.path.abspath(__file__))
DEFAULT_OUT = os.path.join(HERE, "models")

MODELS = {
    "resnet50": "resnet50_inline.onnx",
    "llama7b": "llama7b_shaped.onnx",
    "graph100k": "graph100k.onnx",
    "llama10k": "llama10k_shaped.onnx",
}

INT64_MAX = 9223372036854775807


def _mb(n):
    return "%.1f MB" % (n / 1e6)


# ---------------------------------------------------------------------------
# (a) resnet50 with inline weights
# ---------------------------------------------------------------------------

def gen_resnet50(path):
    import torch
    import torchvision

    torch.manual_seed(0)
    model = torchvision.models.resnet50(weights=None)
    model.eval()
    x = torch.randn(1, 3, 224, 224)
    with torch.no_grad():
        torch.onnx.export(
            model,
            x,
            path,
            opset_version=13,
            input_names=["input"],
            output_names=["output"],
            do_constant_folding=True,
        )
    m = onnx.load(path)
    onnx.checker.check_model(m)
    onnx.shape_inference.infer_shapes(m, strict_mode=True)
    params = sum(int(np.prod(t.dims)) for t in m.graph.initializer)
    return {"nodes": len(m.graph.node), "params": params}


# ---------------------------------------------------------------------------
# (b) LLaMA-7B-shaped decoder, external data that does not exist
# ---------------------------------------------------------------------------

class GraphBuilder:
    """Tiny helper that mimics the naming of torch.onnx / optimum exports."""

    def __init__(self):
        self.nodes = []
        self.initializers = []
        self.name_counts = {}
        self.ext_offset = 0
        self.ext_location = None
        self.weight_params = 0   # learned weights (nn.Parameter)
        self.buffer_params = 0   # precomputed buffers (rotary cos/sin)

    def _unique(self, scope, op):
        key = (scope, op)
        n = self.name_counts.get(key, 0)
        self.name_counts[key] = n + 1
        return "%s/%s" % (scope, op) if n == 0 else "%s/%s_%d" % (scope, op, n)

    def node(self, scope, op, inputs, n_out=1, **attrs):
        name = self._unique(scope, op)
        outs = ["%s_output_%d" % (name, i) for i in range(n_out)]
        self.nodes.append(helper.make_node(op, inputs, outs, name=name, **attrs))
        return outs[0] if n_out == 1 else outs

    def const(self, scope, value, dtype=None):
        arr = np.array(value, dtype=dtype)
        return self.node(scope, "Constant", [],
                         value=numpy_helper.from_array(arr, name=""))

    def external(self, name, dims, dtype=TensorProto.FLOAT, buffer=False):
        """Initializer whose data lives (would live) in the external file."""
        t = TensorProto()
        t.name = name
        t.data_type = dtype
        t.dims.extend(dims)
        t.data_location = TensorProto.EXTERNAL
        numel = int(np.prod(dims, dtype=np.int64))
        # onnx.mapping is gone from onnx 1.16 on, and helper's function
        # came in 1.13: either, whichever this onnx has.
        to_np = getattr(helper, "tensor_dtype_to_np_dtype", None) or \
            onnx.mapping.TENSOR_TYPE_TO_NP_TYPE.__getitem__
        itemsize = np.dtype(to_np(dtype)).itemsize
        length = numel * itemsize
        for k, v in (("location", self.ext_location),
                     ("offset", str(self.ext_offset)),
                     ("length", str(length))):
            e = t.external_data.add()
            e.key = k
            e.value = v
        self.ext_offset += length
        if buffer:
            self.buffer_params += numel
        else:
            self.weight_params += numel
        self.initializers.append(t)
        return name


def _check_with_placeholder(model, location):
    """onnx.checker insists that the external-data file exists (resolved
    relative to the cwd when checking an in-memory proto). Run it inside a
    scratch dir holding an *empty* placeholder of that name so the rest of the
    graph still gets checked; the real .weights file is never created."""
    import tempfile
    cwd = os.getcwd()
    with tempfile.TemporaryDirectory() as d:
        open(os.path.join(d, location), "wb").close()
        os.chdir(d)
        try:
            onnx.checker.check_model(model)
        finally:
            os.chdir(cwd)


def gen_llama7b(path, location=None, layers=32):
    L, H, NH, HD, FF, V, MAXS = layers, 4096, 32, 128, 11008, 32000, 2048
    eps = 1e-6
    assert NH * HD == H

    g = GraphBuilder()
    # "llama7b_shaped.weights" next to the model; relative, as ONNX requires
    g.ext_location = location or os.path.splitext(os.path.basename(path))[0] + ".weights"

    def rmsnorm(scope, x, wname):
        w = g.external(wname, [H])
        two = g.const(scope, 2.0, np.float32)
        p = g.node(scope, "Pow", [x, two])
        m = g.node(scope, "ReduceMean", [p], axes=[-1], keepdims=1)
        e = g.const(scope, eps, np.float32)
        a = g.node(scope, "Add", [m, e])
        s = g.node(scope, "Sqrt", [a])
        d = g.node(scope, "Div", [x, s])
        return g.node(scope, "Mul", [w, d])

    def linear(scope, x, wname, fin, fout):
        w = g.external(wname, [fin, fout])   # stored pre-transposed like torch export
        return g.node(scope, "MatMul", [x, w])

    def rotate_half(scope, x):
        ax = g.const(scope, [3], np.int64)
        z = g.const(scope, [0], np.int64)
        half = g.const(scope, [HD // 2], np.int64)
        x1 = g.node(scope, "Slice", [x, z, half, ax, g.const(scope, [1], np.int64)])
        half2 = g.const(scope, [HD // 2], np.int64)
        end = g.const(scope, [INT64_MAX], np.int64)
        ax2 = g.const(scope, [3], np.int64)
        x2 = g.node(scope, "Slice", [x, half2, end, ax2, g.const(scope, [1], np.int64)])
        nx2 = g.node(scope, "Neg", [x2])
        return g.node(scope, "Concat", [nx2, x1], axis=-1)

    # -- embeddings --------------------------------------------------------
    emb = g.external("model.embed_tokens.weight", [V, H])
    hidden = g.node("/model/embed_tokens", "Gather", [emb, "input_ids"])

    # -- causal mask [1,1,seq,seq], built from the input shape --------------
    sc = "/model"
    shp = g.node(sc, "Shape", ["input_ids"])
    seq = g.node(sc, "Gather", [shp, g.const(sc, 1, np.int64)], axis=0)
    seq_u = g.node(sc, "Unsqueeze", [seq, g.const(sc, [0], np.int64)])
    seq_u2 = g.node(sc, "Unsqueeze", [seq, g.const(sc, [0], np.int64)])
    mshape = g.node(sc, "Concat", [seq_u, seq_u2], axis=0)
    full = g.node(sc, "ConstantOfShape", [mshape],
                  value=numpy_helper.from_array(
                      np.array([np.finfo(np.float32).min], np.float32), name=""))
    tri = g.node(sc, "Trilu", [full, g.const(sc, 1, np.int64)], upper=1)
    mask = g.node(sc, "Unsqueeze", [tri, g.const(sc, [0, 1], np.int64)])

    cos_cached = g.external("model.rotary_emb.cos_cached", [MAXS, HD], buffer=True)
    sin_cached = g.external("model.rotary_emb.sin_cached", [MAXS, HD], buffer=True)

    for i in range(L):
        ls = "/model/layers.%d" % i
        pn = "model.layers.%d" % i
        residual = hidden

        # -- input_layernorm ------------------------------------------------
        x = rmsnorm(ls + "/input_layernorm", hidden, pn + ".input_layernorm.weight")

        # -- self attention -------------------------------------------------
        at = ls + "/self_attn"
        xs = g.node(at, "Shape", [x])
        bsz = g.node(at, "Gather", [xs, g.const(at, 0, np.int64)], axis=0)
        xs1 = g.node(at, "Shape", [x])
        qlen = g.node(at, "Gather", [xs1, g.const(at, 1, np.int64)], axis=0)

        q = linear(at + "/q_proj", x, pn + ".self_attn.q_proj.weight", H, H)
        k = linear(at + "/k_proj", x, pn + ".self_attn.k_proj.weight", H, H)
        v = linear(at + "/v_proj", x, pn + ".self_attn.v_proj.weight", H, H)

        def split_heads(t):
            b_u = g.node(at, "Unsqueeze", [bsz, g.const(at, [0], np.int64)])
            s_u = g.node(at, "Unsqueeze", [qlen, g.const(at, [0], np.int64)])
            shape = g.node(at, "Concat",
                           [b_u, s_u, g.const(at, [NH], np.int64),
                            g.const(at, [HD], np.int64)], axis=0)
            r = g.node(at, "Reshape", [t, shape])
            return g.node(at, "Transpose", [r], perm=[0, 2, 1, 3])

        q = split_heads(q)   # [b, nh, s, hd]
        k = split_heads(k)
        v = split_heads(v)

        # rotary: cos/sin sliced to kv_seq_len = v.shape[-2]
        rs = at + "/rotary_emb"
        vs = g.node(at, "Shape", [v])
        kvlen = g.node(at, "Gather", [vs, g.const(at, 2, np.int64)], axis=0)
        kv_u = g.node(rs, "Unsqueeze", [kvlen, g.const(rs, [0], np.int64)])
        cos = g.node(rs, "Slice", [cos_cached, g.const(rs, [0], np.int64), kv_u,
                                   g.const(rs, [0], np.int64),
                                   g.const(rs, [1], np.int64)])
        kv_u2 = g.node(rs, "Unsqueeze", [kvlen, g.const(rs, [0], np.int64)])
        sin = g.node(rs, "Slice", [sin_cached, g.const(rs, [0], np.int64), kv_u2,
                                   g.const(rs, [0], np.int64),
                                   g.const(rs, [1], np.int64)])

        def apply_rope(t):
            a = g.node(at, "Mul", [t, cos])
            rh = rotate_half(at, t)
            b = g.node(at, "Mul", [rh, sin])
            return g.node(at, "Add", [a, b])

        q = apply_rope(q)
        k = apply_rope(k)

        kt = g.node(at, "Transpose", [k], perm=[0, 1, 3, 2])
        scores = g.node(at, "MatMul", [q, kt])
        scale = g.const(at, float(np.sqrt(HD)), np.float32)
        scores = g.node(at, "Div", [scores, scale])
        scores = g.node(at, "Add", [scores, mask])
        probs = g.node(at, "Softmax", [scores], axis=-1)
        ctx = g.node(at, "MatMul", [probs, v])
        ctx = g.node(at, "Transpose", [ctx], perm=[0, 2, 1, 3])
        b_u = g.node(at, "Unsqueeze", [bsz, g.const(at, [0], np.int64)])
        s_u = g.node(at, "Unsqueeze", [qlen, g.const(at, [0], np.int64)])
        oshape = g.node(at, "Concat", [b_u, s_u, g.const(at, [H], np.int64)], axis=0)
        ctx = g.node(at, "Reshape", [ctx, oshape])
        o = linear(at + "/o_proj", ctx, pn + ".self_attn.o_proj.weight", H, H)
        hidden = g.node(ls, "Add", [residual, o])

        # -- MLP (SwiGLU) -----------------------------------------------------
        residual = hidden
        x = rmsnorm(ls + "/post_attention_layernorm", hidden,
                    pn + ".post_attention_layernorm.weight")
        ms = ls + "/mlp"
        gate = linear(ms + "/gate_proj", x, pn + ".mlp.gate_proj.weight", H, FF)
        sig = g.node(ms + "/act_fn", "Sigmoid", [gate])
        act = g.node(ms + "/act_fn", "Mul", [gate, sig])
        up = linear(ms + "/up_proj", x, pn + ".mlp.up_proj.weight", H, FF)
        gu = g.node(ms, "Mul", [act, up])
        down = linear(ms + "/down_proj", gu, pn + ".mlp.down_proj.weight", FF, H)
        hidden = g.node(ls, "Add", [residual, down])

    hidden = rmsnorm("/model/norm", hidden, "model.norm.weight")
    logits_w = g.external("lm_head.weight", [H, V])
    lm = g.node("/lm_head", "MatMul", [hidden, logits_w])
    # rename the final output to "logits"
    g.nodes[-1].output[0] = "logits"

    graph = helper.make_graph(
        g.nodes,
        "llama7b_shaped",
        [helper.make_tensor_value_info("input_ids", TensorProto.INT64, ["batch", "seq"])],
        [helper.make_tensor_value_info("logits", TensorProto.FLOAT, ["batch", "seq", V])],
        initializer=g.initializers,
    )
    model = helper.make_model(graph, producer_name="nnscan-bench",
                              opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    with open(path, "wb") as f:   # plain write: never touch the .weights file
        f.write(model.SerializeToString())

    # verify
    m = onnx.load(path, load_external_data=False)
    _check_with_placeholder(m, g.ext_location)
    inf = onnx.shape_inference.infer_shapes(m)
    out = inf.graph.output[0].type.tensor_type.shape.dim
    out_shape = [d.dim_param or d.dim_value for d in out]
    assert out_shape == ["batch", "seq", V], out_shape
    weights_path = os.path.join(os.path.dirname(path), g.ext_location)
    assert not os.path.exists(weights_path), weights_path
    params = sum(int(np.prod(t.dims, dtype=np.int64)) for t in m.graph.initializer)
    assert params == g.weight_params + g.buffer_params
    return {
        "nodes": len(m.graph.node),
        "params": params,
        "weight_params": g.weight_params,
        "buffer_params": g.buffer_params,
        "initializers": len(m.graph.initializer),
        "external_bytes": g.ext_offset,
        "logits_shape": out_shape,
    }


# ---------------------------------------------------------------------------
# (c) 100,000-node graph
# ---------------------------------------------------------------------------

def gen_graph100k(path, target=100_000):
    rng = np.random.default_rng(0)
    C = 16
    nodes, inits = [], []
    counter = [0]

    def add(op, inputs, n_out=1, **attrs):
        i = counter[0]
        counter[0] += 1
        name = "n%d_%s" % (i, op)
        outs = ["t%d" % i] if n_out == 1 else ["t%d_%d" % (i, k) for k in range(n_out)]
        nodes.append(helper.make_node(op, inputs, outs, name=name, **attrs))
        return outs[0] if n_out == 1 else outs

    def init(name, arr):
        inits.append(numpy_helper.from_array(arr, name=name))
        return name

    # shared small constants
    shape_flat = init("shape_1x16x64", np.array([1, C, 64], np.int64))
    shape_img = init("shape_1x16x8x8", np.array([1, C, 8, 8], np.int64))
    split_sizes = init("split_8_8", np.array([8, 8], np.int64))
    scales = [init("scale_%d" % k, (1.0 + 0.01 * rng.standard_normal((1, C, 1, 1))).astype(np.float32))
              for k in range(8)]
    half_bias = init("half_bias", (0.01 * rng.standard_normal((1, 8, 1, 1))).astype(np.float32))

    x = "input"
    blk = 0
    # one block = 10 nodes normally, 13 with the Split/Concat tail (every 4th)
    while True:
        with_split = blk % 4 == 3
        need = 13 if with_split else 10
        if counter[0] + need > target:
            break
        res = x
        w = init("conv%d.weight" % blk,
                 (rng.standard_normal((C, C, 1, 1)) / np.sqrt(C)).astype(np.float16).astype(np.float32))
        b = init("conv%d.bias" % blk, np.zeros((C,), np.float32))
        y = add("Conv", [x, w, b], kernel_shape=[1, 1], pads=[0, 0, 0, 0], strides=[1, 1])
        y = add("Relu", [y])
        y = add("Mul", [y, scales[blk % len(scales)]])
        y = add("Reshape", [y, shape_flat])        # [1,16,64]
        y = add("Relu", [y])
        y = add("Reshape", [y, shape_img])         # [1,16,8,8]
        y = add("Add", [y, res])                   # residual
        y = add("Mul", [y, scales[(blk + 3) % len(scales)]])
        y = add("Relu", [y])
        y = add("Add", [y, res])
        if with_split:
            a, c = add("Split", [y, split_sizes], n_out=2, axis=1)
            a = add("Add", [a, half_bias])
            y = add("Concat", [c, a], axis=1)
        x = y
        blk += 1
    while counter[0] < target:
        x = add("Relu", [x])
    nodes[-1].output[0] = "output"
    assert len(nodes) == target

    graph = helper.make_graph(
        nodes, "graph100k",
        [helper.make_tensor_value_info("input", TensorProto.FLOAT, [1, C, 8, 8])],
        [helper.make_tensor_value_info("output", TensorProto.FLOAT, [1, C, 8, 8])],
        initializer=inits,
    )
    model = helper.make_model(graph, producer_name="nnscan-bench",
                              opset_imports=[helper.make_opsetid("", 13)])
    model.ir_version = 7
    onnx.save(model, path)

    m = onnx.load(path)
    onnx.checker.check_model(m)
    inf = onnx.shape_inference.infer_shapes(m, strict_mode=True)
    out = [d.dim_value for d in inf.graph.output[0].type.tensor_type.shape.dim]
    assert out == [1, C, 8, 8], out
    params = sum(int(np.prod(t.dims)) for t in m.graph.initializer)
    return {"nodes": len(m.graph.node), "params": params,
            "initializers": len(m.graph.initializer), "blocks": blk}


def gen_llama10k(path, location=None):
    # 14 module-tree layers per decoder layer, plus the model's own few.
    return gen_llama7b(path, location, layers=714)


GENERATORS = {"resnet50": gen_resnet50, "llama7b": gen_llama7b,
              "graph100k": gen_graph100k, "llama10k": gen_llama10k}


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", default=DEFAULT_OUT, help="output dir (default: bench/models)")
    ap.add_argument("--only", action="append", choices=sorted(MODELS),
                    help="generate only this model (repeatable)")
    ap.add_argument("--force", action="store_true", help="regenerate existing files")
    args = ap.parse_args(argv)

    os.makedirs(args.out, exist_ok=True)
    names = args.only or list(MODELS)
    for name in names:
        path = os.path.join(args.out, MODELS[name])
        if os.path.exists(path) and not args.force:
            print("[gen] %-10s exists, skipping: %s (use --force)" % (name, path))
            continue
        t0 = time.perf_counter()
        tmp = path + ".tmp"
        if name in ("llama7b", "llama10k"):
            # the .weights file named here is never written
            loc = os.path.splitext(MODELS[name])[0] + ".weights"
            info = GENERATORS[name](tmp, location=loc)
        else:
            info = GENERATORS[name](tmp)
        os.replace(tmp, path)
        dt = time.perf_counter() - t0
        size = os.path.getsize(path)
        print("[gen] %-10s %s  %s  nodes=%d  params=%d (%.3g)  %.1fs" % (
            name, path, _mb(size), info["nodes"], info["params"], info["params"], dt))
        for k, v in info.items():
            if k not in ("nodes", "params"):
                print("       %s = %s" % (k, v))
    return 0


if __name__ == "__main__":
    sys.exit(main())
