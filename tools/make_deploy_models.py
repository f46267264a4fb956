#!/usr/bin/python3
"""Models shaped like the ONNX files people deploy, and what nnscan must
report on them (issue 8). Written to tests/fixtures/deploy/ and committed;
the tests only read them.

    /usr/bin/python3 tools/make_deploy_models.py

Needs torch 1.13 and onnx 1.12 (Debian's python3-torch, python3-onnx). Every
network is a PyTorch module, randomly initialised after torch.manual_seed(0)
and exported with torch.onnx.export, then rewritten the way other exporters
write the same network. The expectations in deploy.expect.json come from
PyTorch (sum(p.numel()) over the module's parameters, its buffers, its module
classes) and from MACs computed here by hand with docs/metrics.md's formulas
(Conv: numel(Y)*Cin/g*k; LSTM: T*B*4H*(I+H) per direction; MatMul/Gemm:
M*N*K); nothing is taken from nnscan's output.

Files:
  cnn_init.onnx      small CNN (Conv, BatchNorm, Relu, Gemm), weights as
                     initializers (torch.onnx.export, no folding).
  cnn_const.onnx     the same graph with every initializer turned into a
                     Constant node (paddle2onnx, tf2onnx and some optimizers
                     write weights that way).
  if_lstm.onnx       one top-level If on a scalar int64 input `sr`
                     (sr == 16000): then_branch a Conv1d+LSTM+Linear network
                     with its weights as Constant nodes, else_branch a larger
                     one with its weights as subgraph initializers, except
                     one kept as an initializer of the main graph (used only
                     inside the branch).
  if_then.onnx, if_else.onnx  each branch as a standalone model.
  loop_linear.onnx   an nn.Linear applied n times in a Loop (n a graph
                     input), its weight a Constant in the body and its bias
                     an initializer of the main graph used only in the body.
  nameless.onnx      a CNN with no node names (but one) and paddle-style
                     weight names (conv2d_0.w_0, batch_norm_0.w_1, fc_0.w_0
                     read by a MatMul and fc_0.b_0 by an Add).
  nameless_dims.onnx a Conv1d audio network whose input and output dims
                     carry neither a value nor a name.
  vad_if.onnx        shaped like Silero VAD v5 (issue 17): inputs
                     input [batch, samples], state [2, batch, 16] and an
                     int64 `sr`; an If on sr == 16000 whose then_branch
                     frames 512 samples with a Conv1d (k 64, stride 16) and
                     whose else_branch reshapes the samples into rows of 256
                     and squeezes the row axis (valid for 256 samples only:
                     a 16 kHz input makes that Squeeze fail), each then
                     Relu, Conv1d, LSTM (initial state from `state`),
                     MatMul, Sigmoid, the new state a Concat. Weights are
                     Constant nodes in each branch. With the dims taken as
                     1 the framing Conv's output length is negative.
  resnet18_meta.onnx tests/fixtures/models/resnet18_op17_nofold.onnx with
                     flat node names (node_Conv_0) and the module path and
                     classes only in each node's metadata_props (NodeProto
                     field 9: pkg.torch.onnx.name_scopes, class_hierarchy),
                     as the torch.export-based exporter writes them. onnx
                     1.12 has no field 9, so it is appended as raw protobuf
                     bytes (protobuf keeps unknown fields).
"""

import io
import json
import os

import numpy as np
import onnx
import torch
import torch.nn as nn
from onnx import helper, numpy_helper

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, ".."))
OUT = os.path.join(ROOT, "tests", "fixtures", "deploy")


def export(model, args, **kw):
    model.eval()
    buf = io.BytesIO()
    torch.onnx.export(model, args, buf, **kw)
    return onnx.load_from_string(buf.getvalue())


def n_params(model):
    return sum(p.numel() for p in model.parameters())


def n_buffers(model):
    # BatchNorm running statistics; num_batches_tracked is not exported.
    return sum(b.numel() for name, b in model.named_buffers()
               if not name.endswith("num_batches_tracked"))


def save(model, name):
    path = os.path.join(OUT, name)
    with open(path, "wb") as f:
        f.write(model.SerializeToString())
    return path


# ==== (a) initializers vs Constant nodes ====

class SmallCNN(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(3, 8, 3, padding=1)
        self.bn1 = nn.BatchNorm2d(8)
        self.relu = nn.ReLU()
        self.conv2 = nn.Conv2d(8, 16, 3, stride=2, padding=1)
        self.pool = nn.AdaptiveAvgPool2d(1)
        self.fc = nn.Linear(16, 10)
        # Distinct values everywhere: the exporter stores equal tensors
        # (a fresh BatchNorm's weight and running_var) once, as Identity
        # copies, which is another case (tests/unit: params).
        with torch.no_grad():
            for t in (self.bn1.weight, self.bn1.bias, self.bn1.running_mean):
                t.uniform_(-1, 1)
            self.bn1.running_var.uniform_(0.5, 1.5)

    def forward(self, x):
        x = self.relu(self.bn1(self.conv1(x)))
        x = self.relu(self.conv2(x))
        return self.fc(torch.flatten(self.pool(x), 1))


def cnn_macs(h=16, w=16):
    # conv1: 8 x h x w outputs, 3*9 each; bn: 2*numel (metrics.md); conv2:
    # 16 x h/2 x w/2, 8*9 each; pool: numel(Y)*(k - 1 + 2), k = (h/2)*(w/2);
    # fc: 16*10.
    conv1 = 8 * h * w * 3 * 9
    bn = 2 * 8 * h * w
    conv2 = 16 * (h // 2) * (w // 2) * 8 * 9
    pool = 16 * ((h // 2) * (w // 2) - 1 + 2)
    return conv1 + bn + conv2 + pool + 16 * 10


def to_constants(model):
    """Every initializer becomes a Constant node at the top of the graph."""
    g = model.graph
    consts = [helper.make_node("Constant", [], [t.name],
                               name="", value=t) for t in g.initializer]
    init_names = {t.name for t in g.initializer}
    inputs = [i for i in g.input if i.name not in init_names]
    nodes = consts + list(g.node)
    del g.node[:]
    g.node.extend(nodes)
    del g.initializer[:]
    del g.input[:]
    g.input.extend(inputs)
    return model


def case_constants(expect):
    torch.manual_seed(0)
    net = SmallCNN()
    x = torch.randn(1, 3, 16, 16)
    kw = dict(opset_version=13, do_constant_folding=False,
              training=torch.onnx.TrainingMode.PRESERVE,
              input_names=["input"], output_names=["output"])
    m = export(net, (x,), **kw)
    save(m, "cnn_init.onnx")
    save(to_constants(m), "cnn_const.onnx")
    expect["cnn"] = {"params": n_params(net), "buffers": n_buffers(net),
                     "param_bytes": 4 * (n_params(net) + n_buffers(net)),
                     "macs": cnn_macs()}


# ==== (b) a top-level If with LSTM and Conv in both branches ====

class Branch(nn.Module):
    def __init__(self, ch, k, stride, hidden):
        super().__init__()
        self.conv = nn.Conv1d(1, ch, k, stride=stride)
        self.relu = nn.ReLU()
        self.lstm = nn.LSTM(ch, hidden)
        self.fc = nn.Linear(hidden, 4)
        self.shape = (ch, k, stride, hidden)

    def forward(self, x):
        y = self.relu(self.conv(x)).permute(2, 0, 1)  # [T, B, C]
        y, _ = self.lstm(y)
        return self.fc(y)

    def macs(self, length):
        ch, k, stride, hidden = self.shape
        t = (length - k) // stride + 1
        conv = ch * t * 1 * k
        lstm = t * 1 * 4 * hidden * (ch + hidden)
        fc = t * 1 * 4 * hidden
        return conv + lstm + fc


def drop_zero_state(model):
    """LSTM without initial_h/initial_c (absent inputs are zeros by the
    ONNX definition) instead of the exporter's Expand of a zero Constant,
    which, like any float tensor an Expand broadcasts (ViT's class token),
    would be counted as a parameter. Dead nodes are then removed."""
    g = model.graph
    for n in g.node:
        if n.op_type == "LSTM":
            ins = list(n.input)
            for k in (5, 6):
                if k < len(ins):
                    ins[k] = ""
            while ins and not ins[-1]:
                ins.pop()
            n.input[:] = ins
    outputs = {o.name for o in g.output}
    while True:
        used = {i for n in g.node for i in n.input} | outputs
        dead = [n for n in g.node if not any(o in used for o in n.output)]
        if not dead:
            break
        for n in dead:
            g.node.remove(n)
    return model


def prefixed(graph, prefix, keep):
    """Renames every value and node of graph (except `keep`) with prefix."""
    def ren(s):
        return s if not s or s in keep else prefix + s
    for n in graph.node:
        n.name = ren(n.name)
        n.input[:] = [ren(s) for s in n.input]
        n.output[:] = [ren(s) for s in n.output]
    for t in graph.initializer:
        t.name = ren(t.name)
    for v in list(graph.output) + list(graph.value_info):
        v.name = ren(v.name)


def case_if(expect):
    length = 400
    torch.manual_seed(0)
    small = Branch(4, 3, 4, 12)     # then: sr == 16000
    large = Branch(8, 5, 2, 16)     # else
    x = torch.randn(1, 1, length)
    kw = dict(opset_version=14, do_constant_folding=True,
              input_names=["x"], output_names=["y"])
    mt = drop_zero_state(export(small, (x,), **kw))
    me = drop_zero_state(export(large, (x,), **kw))
    save(mt, "if_then.onnx")
    save(me, "if_else.onnx")

    gt, ge = onnx.GraphProto(), onnx.GraphProto()
    gt.CopyFrom(mt.graph)
    ge.CopyFrom(me.graph)
    prefixed(gt, "then_", {"x"})
    prefixed(ge, "else_", {"x"})
    # then_branch: weights as Constant nodes inside the branch.
    consts = [helper.make_node("Constant", [], [t.name], value=t)
              for t in gt.initializer]
    nodes = consts + list(gt.node)
    del gt.node[:]
    gt.node.extend(nodes)
    del gt.initializer[:]
    # else_branch: subgraph initializers, but the Linear weight lives in the
    # main graph (an outer initializer used only inside the body).
    outer = []
    for t in list(ge.initializer):
        if t.name.startswith("else_fc.weight") or \
           (len(t.dims) == 2 and t.dims[1] == 4 and t.dims[0] == 16):
            outer.append(t)
            ge.initializer.remove(t)
    assert outer, "the Linear weight was not found in the else branch"
    for g in (gt, ge):
        del g.input[:]
        del g.value_info[:]
    gt.name, ge.name = "then_branch", "else_branch"

    main = helper.make_graph(
        [helper.make_node("Constant", [], ["sr_16k"],
                          value=helper.make_tensor("k", onnx.TensorProto.INT64,
                                                   [], [16000])),
         helper.make_node("Equal", ["sr", "sr_16k"], ["is_16k"]),
         helper.make_node("If", ["is_16k"], ["y"], name="branch",
                          then_branch=gt, else_branch=ge)],
        "if_lstm",
        [helper.make_tensor_value_info("x", onnx.TensorProto.FLOAT,
                                       [1, 1, length]),
         helper.make_tensor_value_info("sr", onnx.TensorProto.INT64, [])],
        [helper.make_tensor_value_info("y", onnx.TensorProto.FLOAT,
                                       ["frames", 1, 4])],
        initializer=outer)
    model = helper.make_model(main, producer_name="make_deploy_models",
                              opset_imports=[helper.make_opsetid("", 14)])
    save(model, "if_lstm.onnx")
    expect["if"] = {
        "params": n_params(small) + n_params(large),
        "params_then": n_params(small), "params_else": n_params(large),
        "macs_then": small.macs(length), "macs_else": large.macs(length),
        "then_value": "sr=16000", "else_value": "sr=8000"}


# ==== (b') a Loop whose body holds the weights; its trip count an input ====

def case_loop(expect):
    """h = relu(h @ W^T + b), n times (n a graph input): an nn.Linear(8, 8)
    applied in a Loop body, W a Constant inside the body, b an initializer
    of the main graph used only inside the body."""
    torch.manual_seed(0)
    lin = nn.Linear(8, 8)
    w = numpy_helper.from_array(lin.weight.detach().numpy().T.copy(), "w")
    b = numpy_helper.from_array(lin.bias.detach().numpy(), "b")
    body = helper.make_graph(
        [helper.make_node("Constant", [], ["w"], value=w),
         helper.make_node("MatMul", ["h_in", "w"], ["mm"]),
         helper.make_node("Add", ["mm", "b"], ["pre"]),
         helper.make_node("Relu", ["pre"], ["h_out"]),
         helper.make_node("Identity", ["cond_in"], ["cond_out"])],
        "body",
        [helper.make_tensor_value_info("i", onnx.TensorProto.INT64, []),
         helper.make_tensor_value_info("cond_in", onnx.TensorProto.BOOL, []),
         helper.make_tensor_value_info("h_in", onnx.TensorProto.FLOAT,
                                       [1, 8])],
        [helper.make_tensor_value_info("cond_out", onnx.TensorProto.BOOL, []),
         helper.make_tensor_value_info("h_out", onnx.TensorProto.FLOAT,
                                       [1, 8])])
    main = helper.make_graph(
        [helper.make_node("Loop", ["n", "", "h0"], ["h"], name="steps",
                          body=body)],
        "loop_linear",
        [helper.make_tensor_value_info("h0", onnx.TensorProto.FLOAT, [1, 8]),
         helper.make_tensor_value_info("n", onnx.TensorProto.INT64, [])],
        [helper.make_tensor_value_info("h", onnx.TensorProto.FLOAT, [1, 8])],
        initializer=[b])
    model = helper.make_model(main, producer_name="make_deploy_models",
                              opset_imports=[helper.make_opsetid("", 14)])
    onnx.checker.check_model(model)
    save(model, "loop_linear.onnx")
    steps = 5
    expect["loop"] = {"params": n_params(lin), "value": "n=%d" % steps,
                      "macs_per_step": 1 * 8 * 8,
                      "macs": steps * 1 * 8 * 8}


# ==== (b'') Silero-VAD-like: If on the sample rate, one branch per rate ====

def vad_branch(name, frame, stride, rows, rng):
    """One branch of vad_if: (graph, parameter count, MACs at its rate).
    `rows`: the else branch's row length (reshape + squeeze), or None."""
    ch, hidden = 18, 16

    def const(tname, *shape):
        a = (rng.standard_normal(shape) * 0.1).astype(np.float32)
        return helper.make_node("Constant", [], [name + tname],
                                value=numpy_helper.from_array(a, name + tname))

    def i64(tname, vals):
        return helper.make_node(
            "Constant", [], [name + tname],
            value=helper.make_tensor(name + tname, onnx.TensorProto.INT64,
                                     [len(vals)], vals))

    n = lambda op, ins, outs, **kw: helper.make_node(
        op, [i if i in ("", "input", "state") else name + i for i in ins],
        [name + o for o in outs], **kw)
    nodes = [const("w1", ch, 1, frame), const("w2", hidden, ch, 3),
             const("b2", hidden), const("W", 1, 4 * hidden, hidden),
             const("R", 1, 4 * hidden, hidden), const("B", 1, 8 * hidden),
             const("wo", hidden, 1), i64("ax1", [1]), i64("h0", [0]),
             i64("h1", [1]), i64("h2", [2]), i64("ax0", [0])]
    if rows:
        nodes += [i64("rows", [0, -1, rows]),
                  n("Reshape", ["input", "rows"], ["framed"]),
                  n("Squeeze", ["framed", "ax1"], ["flat"]),
                  n("Unsqueeze", ["flat", "ax1"], ["x"])]
    else:
        nodes += [n("Unsqueeze", ["input", "ax1"], ["x"])]
    nodes += [
        n("Conv", ["x", "w1"], ["c1"], strides=[stride]),
        n("Relu", ["c1"], ["r1"]),
        n("Conv", ["r1", "w2", "b2"], ["c2"], pads=[1, 1]),
        n("Relu", ["c2"], ["r2"]),
        n("Transpose", ["r2"], ["seq"], perm=[2, 0, 1]),      # [T, B, 16]
        n("Slice", ["state", "h0", "h1", "ax0"], ["hx"]),
        n("Slice", ["state", "h1", "h2", "ax0"], ["cx"]),
        n("LSTM", ["seq", "W", "R", "B", "", "hx", "cx"],
          ["Y", "Yh", "Yc"], hidden_size=hidden),
        n("Squeeze", ["Y", "ax1"], ["ys"]),                   # [T, B, 16]
        n("MatMul", ["ys", "wo"], ["logit"]),
        n("Sigmoid", ["logit"], ["prob"]),
        n("Concat", ["Yh", "Yc"], ["new_state"], axis=0),
    ]
    graph = helper.make_graph(
        nodes, name, [],
        [helper.make_tensor_value_info(name + "prob", onnx.TensorProto.FLOAT,
                                       ["frames", "batch", 1]),
         helper.make_tensor_value_info(name + "new_state",
                                       onnx.TensorProto.FLOAT,
                                       [2, "batch", hidden])])
    params = (ch * frame + hidden * ch * 3 + hidden + 2 * 4 * hidden * hidden
              + 8 * hidden + hidden)
    t = (rows or 512) // stride - frame // stride + 1   # (L - k) / s + 1
    macs = (ch * t * frame              # Conv1d: numel(Y) * Cin * k
            + hidden * t * ch * 3
            + t * 4 * hidden * (hidden + hidden)      # LSTM, B = 1
            + t * hidden)                           # MatMul [T,1,16]x[16,1]
    return graph, params, macs, t


def case_vad(expect):
    rng = np.random.default_rng(0)
    gt, pt, mt, tt = vad_branch("k16_", 64, 16, None, rng)
    ge, pe, me, te = vad_branch("k8_", 32, 8, 256, rng)
    main = helper.make_graph(
        [helper.make_node("Constant", [], ["sr_16k"],
                          value=helper.make_tensor("k", onnx.TensorProto.INT64,
                                                   [], [16000])),
         helper.make_node("Equal", ["sr", "sr_16k"], ["is_16k"]),
         helper.make_node("If", ["is_16k"], ["output", "stateN"],
                          name="rate", then_branch=gt, else_branch=ge)],
        "vad_if",
        [helper.make_tensor_value_info("input", onnx.TensorProto.FLOAT,
                                       ["batch", "samples"]),
         helper.make_tensor_value_info("state", onnx.TensorProto.FLOAT,
                                       [2, "batch", 16]),
         helper.make_tensor_value_info("sr", onnx.TensorProto.INT64, [])],
        [helper.make_tensor_value_info("output", onnx.TensorProto.FLOAT,
                                       ["frames", "batch", 1]),
         helper.make_tensor_value_info("stateN", onnx.TensorProto.FLOAT,
                                       [2, "batch", 16])])
    model = helper.make_model(main, producer_name="make_deploy_models",
                              opset_imports=[helper.make_opsetid("", 14)])
    onnx.checker.check_model(model)
    save(model, "vad_if.onnx")
    assert tt == te == 29
    expect["vad"] = {
        "params": pt + pe,
        "then": {"args": ["--input", "input=1x512", "--input",
                          "state=2x1x16", "--value", "sr=16000"],
                 "macs": mt, "frames": tt},
        "else": {"args": ["--input", "input=1x256", "--input",
                          "state=2x1x16", "--value", "sr=8000"],
                 "macs": me, "frames": te}}


# ==== (c) nameless nodes, paddle-style weight names ====

def case_nameless(expect):
    torch.manual_seed(0)
    net = SmallCNN()
    m = export(net, (torch.randn(1, 3, 16, 16),), opset_version=13,
               do_constant_folding=False,
               training=torch.onnx.TrainingMode.PRESERVE,
               input_names=["input"], output_names=["output"])
    rename = {"conv1.weight": "conv2d_0.w_0", "conv1.bias": "conv2d_0.b_0",
              "bn1.weight": "batch_norm_0.w_0", "bn1.bias": "batch_norm_0.b_0",
              "bn1.running_mean": "batch_norm_0.w_1",
              "bn1.running_var": "batch_norm_0.w_2",
              "conv2.weight": "conv2d_1.w_0", "conv2.bias": "conv2d_1.b_0"}
    g = m.graph
    fc_w = fc_b = None
    for t in list(g.initializer):
        if t.name == "fc.weight":
            w = numpy_helper.to_array(t).T.copy()       # [16, 10] for MatMul
            fc_w = numpy_helper.from_array(w, "fc_0.w_0")
            g.initializer.remove(t)
        elif t.name == "fc.bias":
            fc_b = numpy_helper.from_array(numpy_helper.to_array(t), "fc_0.b_0")
            g.initializer.remove(t)
        else:
            t.name = rename[t.name]
    g.initializer.extend([fc_w, fc_b])
    nodes = []
    relu = 0
    for n in g.node:
        n.input[:] = [rename.get(s, s) for s in n.input]
        n.name = ""
        if n.op_type == "Gemm":  # a Linear as paddle writes it
            nodes.append(helper.make_node("MatMul", [n.input[0], "fc_0.w_0"],
                                          ["fc_mm"]))
            nodes.append(helper.make_node("Add", ["fc_mm", "fc_0.b_0"],
                                          list(n.output)))
            continue
        if n.op_type == "Relu":
            relu += 1
            if relu == 2:
                n.name = "act_out"  # a name without a path: its own row
        nodes.append(n)
    del g.node[:]
    g.node.extend(nodes)
    names = {t.name for t in g.initializer}
    keep = [i for i in g.input if i.name not in names]
    del g.input[:]
    g.input.extend(keep)
    save(m, "nameless.onnx")
    # Rows, in node order, of the nodes that do run-time work (Flatten and
    # other views do none), with PyTorch's parameter counts of the module
    # each came from.
    p = lambda mod: sum(x.numel() for x in mod.parameters())
    expect["nameless"] = {
        "params": n_params(net), "buffers": n_buffers(net),
        "rows": [
            {"name": "conv2d_0", "type": "Conv", "params": p(net.conv1)},
            {"name": "batch_norm_0", "type": "BatchNormalization",
             "params": p(net.bn1), "buffers": 16},
            {"name": "Relu_0", "type": "Relu", "params": 0},
            {"name": "conv2d_1", "type": "Conv", "params": p(net.conv2)},
            {"name": "act_out", "type": "Relu", "params": 0},
            {"name": "GlobalAveragePool_0", "type": "GlobalAveragePool",
             "params": 0},
            {"name": "fc_0", "type": "MatMul+Add", "params": p(net.fc)},
        ]}


# ==== (d) dims with neither value nor name ====

class Audio(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv1d(1, 8, 9, stride=4)
        self.conv2 = nn.Conv1d(8, 16, 5, stride=2)
        self.fc = nn.Linear(16, 3)

    def forward(self, x):
        x = torch.relu(self.conv2(torch.relu(self.conv1(x))))
        return self.fc(x.mean(dim=2))


def case_dims(expect):
    torch.manual_seed(0)
    net = Audio()
    m = export(net, (torch.randn(1, 1, 1000),), opset_version=13,
               input_names=["audio"], output_names=["logits"],
               dynamic_axes={"audio": {0: "batch", 2: "samples"},
                             "logits": {0: "batch"}})
    for v in list(m.graph.input) + list(m.graph.output):
        for d in v.type.tensor_type.shape.dim:
            if d.HasField("dim_param"):
                d.ClearField("dim_param")  # neither value nor name
    del m.graph.value_info[:]
    save(m, "nameless_dims.onnx")
    n = 16000
    l1 = (n - 9) // 4 + 1
    l2 = (l1 - 5) // 2 + 1
    # Conv MACs; ReduceMean has none; Gemm [1,16]x[16,3].
    macs = 8 * l1 * 1 * 9 + 16 * l2 * 8 * 5 + 16 * 3
    expect["dims"] = {"input": "audio", "symbols": ["audio_dim0", "audio_dim2"],
                      "samples": n, "macs": macs, "params": n_params(net)}


# ==== (e) resnet18: scopes and classes only in node metadata ====

def varint(v):
    out = bytearray()
    while v >= 0x80:
        out.append((v & 0x7F) | 0x80)
        v >>= 7
    out.append(v)
    return bytes(out)


def field(num, payload):
    return varint(num << 3 | 2) + varint(len(payload)) + payload


def entry(key, value):
    """NodeProto.metadata_props (field 9): a StringStringEntryProto."""
    return field(9, field(1, key.encode()) + field(2, value.encode()))


def module_path(segments, modules):
    """The dotted module path of a PyTorch 1.13 scoped node name: each
    segment names the next module, written from its last non-numeric atom
    (`layer1.0` under `layer1`); PyTorch's own module list decides."""
    cur = []
    for seg in segments:
        atoms = seg.split(".")
        best = None
        for k in range(0, min(len(cur), len(atoms)) + 1):
            if k and cur[-k:] != atoms[:k]:
                continue
            cand = cur + atoms[k:]
            if ".".join(cand) in modules:
                best = cand
        if best is None:
            # a second call of a module (relu_1): the module itself
            base = seg.rsplit("_", 1)[0]
            cand = cur + [base]
            best = cand if ".".join(cand) in modules else cur
        cur = best
    return ".".join(cur)


def qualname(mod):
    t = type(mod)
    return t.__module__ + "." + t.__qualname__


def case_meta(expect):
    import torchvision
    src = os.path.join(ROOT, "tests", "fixtures", "models",
                       "resnet18_op17_nofold.onnx")
    m = onnx.load(src, load_external_data=False)
    net = torchvision.models.resnet18(weights=None)
    modules = dict(net.named_modules())
    counts = {}
    for n in m.graph.node:
        segs = n.name.split("/")[1:-1] if "/" in n.name else []
        path = module_path(segs, modules)
        scopes = [""]
        atoms = path.split(".") if path else []
        for i in range(1, len(atoms) + 1):
            p = ".".join(atoms[:i])
            if p in modules:
                scopes.append(p)
        op = n.op_type.lower()
        classes = [qualname(modules[p]) for p in scopes] + \
            ["aten." + op + ".default"]
        scopes.append(op)
        k = counts.get(n.op_type, 0)
        counts[n.op_type] = k + 1
        n.name = "node_%s_%d" % (n.op_type, k)
        raw = n.SerializeToString() + \
            entry("pkg.torch.onnx.name_scopes", repr(scopes)) + \
            entry("pkg.torch.onnx.class_hierarchy", repr(classes)) + \
            entry("namespace", "/".join(
                "%s: %s" % (p, c) for p, c in zip(scopes, classes)))
        n.ParseFromString(raw)
    m.producer_name = "pytorch"
    m.producer_version = "2.5.0"
    data = m.SerializeToString()
    assert b"pkg.torch.onnx.name_scopes" in data, "field 9 was dropped"
    with open(os.path.join(OUT, "resnet18_meta.onnx"), "wb") as f:
        f.write(data)
    expect["meta"] = {
        "named": "../models/resnet18_op17_nofold.onnx",
        "classes": {p: qualname(mod) for p, mod in modules.items()},
        "params": n_params(net)}


def main():
    os.makedirs(OUT, exist_ok=True)
    expect = {}
    case_constants(expect)
    case_if(expect)
    case_loop(expect)
    case_vad(expect)
    case_nameless(expect)
    case_dims(expect)
    case_meta(expect)
    with open(os.path.join(OUT, "deploy.expect.json"), "w") as f:
        json.dump(expect, f, indent=1, sort_keys=True)
        f.write("\n")
    for name in sorted(os.listdir(OUT)):
        print("%8d  %s" % (os.path.getsize(os.path.join(OUT, name)), name))


if __name__ == "__main__":
    main()
