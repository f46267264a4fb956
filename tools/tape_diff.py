#!/usr/bin/env python3
"""Where the two lowerings of an aten call differ (issue 45, item 2).

Records a model with the ops_map.py path (NNSCAN_TAPE=0) and, for every
aten call, builds two one-call graphs in the library:

  (a) the nodes the call's ops_map.py rule made, alone;
  (b) the call as one packed `aten` record, lowered by the C table
      (src/ops/aten*.c through src/front/front.c), its tensors graph
      inputs, or initializers with their parameter kind.

Both are inferred and analysed (report.Handle / Analysis, the package's
wrappers) and compared: op types in order and whether each node is
counted, each op type's FLOPs, MACs, DMAs and bytes, the totals
(parameters, buffers, constants, bytes), the outputs' dtypes and shapes. Names are
not compared. Each call's status: agree, differ, c_uncounted (the C
lowering is an uncounted `pytorch.aten` node), no_c_entry, c_fails (the
library refuses the C graph), t_fold (a weight's t() ops_map.py folds into
a Gemm: the call reading it is compared with a t() record before it),
no_rule (ops_map.py has no rule, and both agree), tool_error.
docs/tape.md, "Where the two lowerings differ", has the survey.

    tape_diff.py resnet18 [--json out.json]            (torchvision)
    tape_diff.py tiny_llama                             (python/tests)
    tape_diff.py hf:llama                               (tests_hf/hf_zoo)

Python API: diff_calls(model, args, kwargs) -> list of call rows;
tally(rows) -> per (op, form) rows.
"""
import argparse
import collections
import ctypes
import json
import re
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "python"))

import torch  # noqa: E402

from nnscan import _api, ops_map, recorder  # noqa: E402
from nnscan.graph import Graph, Node, onnx_dtype  # noqa: E402


# ---- the form of a call ----

def _kind(v):
    if isinstance(v, torch.Tensor):
        return "tensor"
    if v is None:
        return "none"
    if isinstance(v, bool):
        return "bool"
    if isinstance(v, int):
        return "int"
    if isinstance(v, float):
        return "float"
    if isinstance(v, str):
        return "string"
    if isinstance(v, torch.dtype):
        return "dtype"
    if isinstance(v, (list, tuple)):
        if any(isinstance(x, torch.Tensor) for x in v):
            return "tensors"
        if all(isinstance(x, int) and not isinstance(x, bool) for x in v):
            return "ints"
        return "list"
    return "other"


def _named(func, args, kwargs):
    schema = getattr(func, "_schema", None)
    if schema is None:
        return [(f"a{i}", v) for i, v in enumerate(args)]
    names = [a.name for a in schema.arguments]
    out = list(zip(names, args))
    out += [(n, kwargs[n]) for n in names[len(args):] if n in kwargs]
    return out


def call_form(base, named):
    """`add(tensor, scalar)`: the op and the kinds of its positional and
    given arguments (ints/floats/bools as `scalar`, None left out)."""
    words = []
    for _n, v in named:
        k = _kind(v)
        if k == "none":
            continue
        words.append("scalar" if k in ("int", "float", "bool") else k)
    return f"{base}({', '.join(words)})"


# ---- (b): the call as an aten record ----

def _c_graph(b, base, named, out, ga, before):
    """before: id(tensor) -> its value name before the call (an in-place
    call renames its input)."""
    g = Graph("c")
    ins, args = [], []
    seen = {}

    def tensor(t):
        if id(t) in seen:  # one tensor read twice: one value
            return seen[id(t)]
        i = seen[id(t)] = len(ins)
        name = f"t{i}"
        ins.append(name)
        dt = onnx_dtype(t.dtype)
        w = b.pending_t.get(id(t))
        if w is not None:  # t(W) folded by ops_map: the t() call first
            wn = f"w{i}"
            g.add_init(wn, onnx_dtype(w.dtype), list(w.shape),
                       kind=b.params[id(w)][1])
            g.add_value(name, dt, list(t.shape))
            g.nodes.append(Node("aten", f"t_of_{i}", [wn], [name], {}, "",
                                ""))
            g.node_source.append("t")
            g.aten[f"t_of_{i}"] = ("t", [("self", "tensor", 0)])
            return i
        p = b.params.get(id(t))
        was = before.get(id(t)) or b.names.get(id(t))
        init = b.g.inits.get(was)
        if p is not None:
            g.add_init(name, dt, list(t.shape), kind=p[1])
        elif init is not None:  # a constant of the recording (a mask)
            g.add_init(name, dt, list(t.shape), init.data,
                       b.g.param_kinds.get(was))
        else:
            g.add_value(name, dt, list(t.shape))
            g.inputs.append(name)
        return i

    for n, v in named:
        k = _kind(v)
        if k == "tensor":
            args.append((n, "tensor", tensor(v)))
        elif k == "tensors":
            args.append((n, "tensors",
                         [None if x is None else tensor(x) for x in v]))
        elif k in ("int", "float", "bool", "string", "ints"):
            args.append((n, k, list(v) if k == "ints" else v))
        elif k == "dtype":
            args.append((n, "dtype", onnx_dtype(v)))
        elif k == "list" and all(isinstance(x, (int, float)) for x in v):
            args.append((n, "none", None))  # floats list: no kind for it
        else:
            args.append((n, "none", None))
    outs = []
    for i, o in enumerate(ops_map._outs(out)):
        # an output the rule leaves out (batch_norm's saved statistics)
        # is no graph output of either graph
        if isinstance(o, torch.Tensor) and (
                i == 0 or b.names.get(id(o)) in ga.outputs):
            name = f"o{i}"
            g.add_value(name, onnx_dtype(o.dtype), list(o.shape))
            outs.append(name)
    node = Node("aten", "call", ins, outs, {}, "", "")
    g.nodes.append(node)
    g.node_source.append(base)
    g.aten["call"] = (base, args)
    g.outputs = [o for o in outs]
    return g


# ---- (a): the rule's nodes alone ----

def _rule_graph(main, first, base, out_names):
    """The rule's nodes alone, the values they read from before as graph
    inputs (initializers as initializers). A rule with no node (a view, a
    made constant) has the call's outputs as its graph's outputs: an
    alias as an input, a constant as an initializer."""
    g = Graph("rule")
    nodes = main.nodes[first:]
    if not nodes:
        for n in out_names:
            init = main.inits.get(n)
            if init is not None:
                g.add_init(n, init.dtype, init.dims, init.data,
                           main.param_kinds.get(n))
            elif n in main.values:
                g.add_value(n, *main.values[n])
                g.inputs.append(n)
            else:
                continue
            g.outputs.append(n)
        return g
    made = set()
    for n in nodes:
        for i in n.inputs:
            if not i or i in made or i in g.values:
                continue
            init = main.inits.get(i)
            if init is not None:
                g.add_init(i, init.dtype, init.dims, init.data,
                           main.param_kinds.get(i))
            elif i in main.values:
                dt, dims = main.values[i]
                g.add_value(i, dt, dims)
                g.inputs.append(i)
        made.update(n.outputs)
        for o in n.outputs:
            if o in main.values:
                g.values[o] = main.values[o]
    g.nodes = list(nodes)
    # the kernel the recorder marks for a rule's several nodes
    g.kernels = [(f - first, c) for f, c in main.kernels if f >= first]
    g.node_source = [base] * len(nodes)
    g.outputs = [o for o in out_names if o in made] or \
        [o for o in nodes[-1].outputs if o in main.values]
    g.declared = {o for o in g.outputs if o in main.declared}
    return g


# ---- analysing a one-call graph ----

class _NodeInfo(ctypes.Structure):
    """nns_node_info (include/nnscan.h), read by nns_analysis_node."""
    _fields_ = [("size", ctypes.c_size_t), ("op_type", ctypes.c_char_p),
                ("domain", ctypes.c_char_p), ("name", ctypes.c_char_p),
                ("opset", ctypes.c_int64), ("graph_depth", ctypes.c_int),
                ("parent", ctypes.c_size_t), ("parent_attr", ctypes.c_char_p),
                ("input_count", ctypes.c_size_t),
                ("output_count", ctypes.c_size_t), ("flags", ctypes.c_uint),
                ("module_path", ctypes.c_char_p), ("layer", ctypes.c_size_t),
                ("kernel", ctypes.c_size_t),
                ("kernel_nodes", ctypes.c_size_t)]


_COUNTED = 1 << 3  # NNS_NODE_COUNTED


def _analyse(g):
    """(nodes, per op type, totals, outputs) of a one-call graph: the op
    sequence with whether each node was counted (nns_analysis_node), the
    JSON report's op_types rows (FLOPs, MACs, DMAs, bytes, nodes per op
    type), its totals, and its graph outputs' shapes."""
    lib = _api.lib()
    dropped = 0
    while True:
        try:
            h = g.build()
            break
        except _api.NnscanError as e:  # an output the lowering leaves out
            m = re.search(r"output '([^']*)' is not produced", str(e))
            if not m or m.group(1) not in g.outputs:
                raise
            g.outputs.remove(m.group(1))
            dropped += 1  # the lowering made it an alias of an input
    try:
        h.infer()
        a = h.analyze()
        doc = json.loads(a.report("json"))
        nodes = []
        for i in range(lib.nns_model_node_count(ctypes.c_void_p(h.ptr))):
            info = _NodeInfo()
            info.size = ctypes.sizeof(_NodeInfo)
            lib.nns_analysis_node(ctypes.c_void_p(a.ptr), ctypes.c_size_t(i),
                                  ctypes.byref(info))
            nodes.append(((info.domain or b"").decode(),
                          info.op_type.decode(),
                          bool(info.flags & _COUNTED)))
    finally:
        h.close()
    types = [{k: v for k, v in t.items() if k in _TYPE_KEYS}
             for t in doc.get("op_types", [])]
    tot = doc["totals"]
    totals = {k: tot.get(k) for k in _TOTAL_KEYS}
    made = {o for n in g.nodes for o in n.outputs}
    by_name = {o.get("name"): o for o in doc.get("outputs", [])}
    aliases = getattr(g, "alias_outs", ())
    outs = [("alias", None) if o not in made and (o in aliases or
                                                  o in g.inputs)
            else (by_name[o].get("dtype"), by_name[o].get("shape"))
            if o in by_name else (g.values[o].dtype, list(g.values[o].dims))
            for o in g.outputs] + [("alias", None)] * dropped
    return nodes, types, totals, outs


_TYPE_KEYS = ("domain", "op_type", "counted", "params", "buffers", "flops",
              "macs", "dmas", "activation_bytes", "nodes")
# (the peak is left out: it depends on which values a one-call graph
# keeps as its outputs, not on the lowering)
_TOTAL_KEYS = ("params", "buffers", "frozen", "constants", "param_bytes",
               "flops", "macs", "dmas", "activation_bytes", "bytes",
               "nodes")


def _ops(nodes):
    return " + ".join(("" if d == "" else d + ":") + o +
                      ("" if c else "(uncounted)") for d, o, c in nodes) or "-"


def _first_difference(a, b):
    """None when the two analyses agree, else the first difference."""
    (na, ta, sa, oa), (nb, tb, sb, ob) = a, b
    if na != nb:
        return f"ops_map: {_ops(na)}; C: {_ops(nb)}"
    for x, y in zip(ta, tb):
        for k in _TYPE_KEYS:
            if x.get(k) != y.get(k):
                return f"{x['op_type']} {k} {x.get(k)} vs {y.get(k)}"
    for k in _TOTAL_KEYS:
        if sa.get(k) != sb.get(k):
            return f"{k} {sa.get(k)} vs {sb.get(k)}"
    if oa != ob:
        return f"outputs {oa} vs {ob}"
    return None


# ---- recording ----

def diff_calls(model, args=(), kwargs=None, rules=None):
    """Every aten call of model(*args, **kwargs) as a row: op, form,
    status (agree, differ, c_uncounted, no_c_entry, rule_failed), the
    first difference. rules: {base: rule} to use instead of ops_map's for
    the (a) side (planting a difference)."""
    rows = []
    orig = recorder.record

    def spy(b, func, a, kw, out):
        g = b.g
        first = len(g.nodes)
        before = {id(t): b.names.get(id(t)) for t in _tensors(a, kw)}
        if rules and ops_map.base_name(func) in rules:
            base = ops_map.base_name(func)
            orig(b, func, a, kw, out)
            del g.nodes[first:]
            del g.node_source[first:]
            rules[base](b, a, kw or {}, out)
        else:
            orig(b, func, a, kw, out)
        try:
            rows.append(_one(b, func, a, kw or {}, out, first, before))
        except Exception as e:  # noqa: BLE001 - reported, not raised
            base = ops_map.base_name(func)
            rows.append({"op": base, "form": call_form(
                base, _named(func, a, kw or {})), "status": "tool_error",
                "args": [_describe(b, v) for _n, v in _named(func, a,
                                                             kw or {})],
                "diff": f"{type(e).__name__}: {e}"[:200]})

    recorder.record = spy
    tape = os.environ.get("NNSCAN_TAPE")
    os.environ["NNSCAN_TAPE"] = "0"  # every call through its ops_map rule
    try:
        with torch.no_grad():
            recorder.record_model(model, args, kwargs or {})
    finally:
        recorder.record = orig
        if tape is None:
            del os.environ["NNSCAN_TAPE"]
        else:
            os.environ["NNSCAN_TAPE"] = tape
    return rows


def _describe(b, v):
    """An argument for the JSON rows: a tensor as dtype, sizes and
    parameter kind."""
    if isinstance(v, torch.Tensor):
        p = b.params.get(id(v))
        return [str(v.dtype).replace("torch.", ""), list(v.shape)] + (
            [p[1]] if p else [])
    if isinstance(v, (list, tuple)):
        return [_describe(b, x) for x in v]
    if v is None or isinstance(v, (bool, int, float, str)):
        return v
    return str(v)


def _tensors(args, kwargs):
    for v in list(args) + list((kwargs or {}).values()):
        if isinstance(v, torch.Tensor):
            yield v
        elif isinstance(v, (list, tuple)):
            yield from (x for x in v if isinstance(x, torch.Tensor))


def _one(b, func, args, kwargs, out, first, before):
    base = ops_map.base_name(func)
    named = _named(func, args, kwargs)
    row = {"op": base, "form": call_form(base, named), "overload": str(func),
           "args": [_describe(b, v) for _n, v in named]}
    if not isinstance(out, torch.Tensor) and not any(
            isinstance(o, torch.Tensor) for o in ops_map._outs(out)):
        row["status"] = "no_tensor_out"
        return row
    entry = _api.ATEN_OPS.get(base)
    rule = ops_map.OPS.get(base)
    made = b.g.nodes[first:]
    if base not in _api.ATEN_OPS:
        row["status"] = "no_c_entry"
        row["diff"] = "ops_map: " + (" + ".join(n.op for n in made) or "-")
        return row
    row["c_form"] = entry[0] if entry else None
    if rule is None or any(n.domain == "pytorch.aten" for n in made):
        row["status"] = "no_rule"
    if isinstance(out, torch.Tensor) and id(out) in b.pending_t:
        # a weight's t() that ops_map folds into the Gemm's transB: no
        # node of its own; the call reading it is compared with the t()
        # call before it on the C side
        row["status"] = "t_fold"
        return row
    outs = [b.names.get(id(o)) for o in ops_map._outs(out)
            if isinstance(o, torch.Tensor)]
    ga = _rule_graph(b.g, first, base, [n for n in outs if n])
    ga.alias_outs = set(outs) & (set(before.values()) | {
        b.names.get(id(t)) for t in _tensors(args, kwargs)})
    gb = _c_graph(b, base, named, out, ga, before)
    try:
        sb = _analyse(gb)
    except _api.NnscanError as e:  # the C lowering's graph fails
        row["status"] = "c_fails"
        row["diff"] = f"C: {e}"[:200] + "; ops_map: " + _ops(
            [(n.domain, n.op, True) for n in made])
        return row
    if any(d == "pytorch.aten" for d, _o, _c in sb[0]):
        row["status"] = "c_uncounted"
        row["diff"] = "C: pytorch.aten; ops_map: " + _ops(
            [(n.domain, n.op, True) for n in made])
        return row
    sa = _analyse(ga)
    d = _first_difference(sa, sb)
    if d is not None:
        row["status"] = "differ"
        row["diff"] = d
        row["ops_map"], row["c"] = sa, sb  # (nodes, op types, totals, outs)
    else:
        row.setdefault("status", "agree")
    return row


def tally(rows):
    """Per (op, form): calls, agreeing, status counts, first difference."""
    t = collections.OrderedDict()
    for r in rows:
        k = (r["op"], r["form"])
        e = t.setdefault(k, {"op": r["op"], "form": r["form"], "calls": 0,
                             "agree": 0, "status": collections.Counter(),
                             "diff": None})
        e["calls"] += 1
        e["status"][r["status"]] += 1
        if r["status"] == "agree":
            e["agree"] += 1
        elif e["diff"] is None and r.get("diff"):
            e["diff"] = f"{r['status']}: {r['diff']}"
        elif e["diff"] is None:
            e["diff"] = r["status"]
    for e in t.values():
        e["status"] = dict(e["status"])
    return list(t.values())


# ---- models ----

def load(spec, size=None):
    """(model, args, kwargs) of a model name: tiny_llama (python/tests),
    hf:<family> (python/tests_hf/hf_zoo.py), else a torchvision builder
    at a small image size."""
    if spec == "tiny_llama":
        sys.path.insert(0, os.path.join(HERE, "..", "python", "tests"))
        import tiny_llama
        m = tiny_llama.LlamaForCausalLM(layers=1, hidden=64, inter=128,
                                        heads=4, vocab=128)
        return m.eval(), (torch.randint(0, 128, (1, 8)),), {}
    if spec.startswith("hf:"):
        sys.path.insert(0, os.path.join(HERE, "..", "python", "tests_hf"))
        import hf_zoo
        m, kw = hf_zoo.build(spec[3:], device="cpu")
        return m, (), kw
    import torchvision
    n = size or 64
    if spec.startswith("vit") or spec.startswith("swin"):
        n = size or 224
    kw = {"image_size": n} if spec.startswith("vit") else {}
    m = getattr(torchvision.models, spec)(**kw)
    return m.eval(), (torch.randn(1, 3, n, n),), {}


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("models", nargs="+")
    p.add_argument("--json")
    p.add_argument("--size", type=int)
    o = p.parse_args(argv)
    rows = []
    for spec in o.models:
        m, a, kw = load(spec, o.size)
        rs = diff_calls(m, a, kw)
        for r in rs:
            r["model"] = spec
        rows += rs
        print(f"# {spec}: {len(rs)} calls", file=sys.stderr)
    t = tally(rows)
    for e in sorted(t, key=lambda e: (e["agree"] == e["calls"], e["op"])):
        print(f"{e['form']:<44} {e['calls']:>5} {e['agree']:>5}  "
              f"{e['diff'] or ''}")
    n = len(t)
    ok = sum(e["agree"] == e["calls"] for e in t)
    def having(st):
        return sum(1 for e in t if st in e["status"])
    print(f"# torch {torch.__version__}: {n} op forms, {ok} agree on every "
          f"call, {having('differ')} differ, {having('c_uncounted')} C "
          f"uncounted, {having('no_c_entry')} no C entry, "
          f"{having('c_fails')} C fails, {having('t_fold')} t() folds, "
          f"{having('tool_error')} tool errors")
    if o.json:
        with open(o.json, "w") as f:
            json.dump({"torch": torch.__version__, "forms": t,
                       "calls": rows}, f, indent=1, default=str)


if __name__ == "__main__":
    main()
