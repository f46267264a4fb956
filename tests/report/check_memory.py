#!/usr/bin/python3
"""Checks the live-activation curve of `nnscan summary --format json`
(memory.live_bytes, docs/json.md) against one computed here from the ONNX
file with the onnx package: a value's size from onnx.shape_inference where
that knows every dim (else from `nnscan shapes`, whose shapes the
conformance tests check: ONNX leaves dims unknown that nnscan folds, and
an unknown op's output has no size at all, counted as 0), every symbolic
dim taken as 1, and the liveness rule of docs/metrics.md written
out again - graph inputs live from the start, a node's outputs allocated
when it runs, every value freed after its last reader (right away when
nobody reads it), graph outputs kept to the end, initializers and
Constant outputs (and Identity copies of them) not activations; a point is the live total after
the node's outputs are allocated and before its inputs are freed.

Usage: check_memory.py NNSCAN MODEL.onnx...   (exit 0 when all agree)
"""
import json
import subprocess
import sys

import numpy as np
import onnx
from onnx import mapping, shape_inference


def onnx_bytes(vi):
    t = vi.type.tensor_type
    if not t.HasField('shape') or not all(d.HasField('dim_value') for d in t.shape.dim):
        return None
    n = 1
    for d in t.shape.dim:
        n *= d.dim_value
    bits = np.dtype(mapping.TENSOR_TYPE_TO_NP_TYPE[t.elem_type]).itemsize * 8
    return (n * bits + 7) // 8


def nnscan_bytes(v):
    if not v or v['shape'] is None or v['dtype'] is None:
        return 0
    n = 1
    for d in v['shape']:
        n *= d if isinstance(d, int) else 1
    return n * np.dtype(v['dtype']).itemsize


def curve(nnscan, path):
    m = shape_inference.infer_shapes(onnx.load(path, load_external_data=False))
    g = m.graph
    shapes = json.loads(subprocess.run([nnscan, 'shapes', path, '--format', 'json'], check=True,
                                       stdout=subprocess.PIPE).stdout)
    known = {}
    for part in ('inputs', 'outputs', 'values'):
        known.update(shapes[part])
    onnx_types = {v.name: v for v in list(g.input) + list(g.value_info) + list(g.output)}

    def value_bytes(name):
        if name in known and known[name]['shape'] is None:
            return 0  # nnscan could not type it (an unknown op): counted 0
        b = onnx_bytes(onnx_types[name]) if name in onnx_types else None
        return b if b is not None else nnscan_bytes(known.get(name))
    params = {i.name for i in g.initializer}
    for n in g.node:  # Constant outputs hold data like initializers
        if n.op_type == 'Constant':
            params.update(n.output)
    for n in g.node:  # Identity copies of parameters are parameters
        if n.op_type == 'Identity' and n.input[0] in params:
            params.update(n.output)
    last = {}
    for p, n in enumerate(g.node):
        for v in n.input:
            last[v] = p
    outputs = {o.name for o in g.output}
    live = sum(value_bytes(i.name) for i in g.input if i.name not in params)
    frees = {}
    for i in g.input:
        if i.name not in params and i.name not in outputs:
            frees.setdefault(last.get(i.name, 0), []).append(value_bytes(i.name))
    points = []
    for p, n in enumerate(g.node):
        for o in n.output:
            if not o or o in params:
                continue
            b = value_bytes(o)
            live += b
            if o not in outputs:
                frees.setdefault(last.get(o, p), []).append(b)
        points.append(live)
        live -= sum(frees.get(p, []))
    return points


def main():
    nnscan, failed = sys.argv[1], 0
    for path in sys.argv[2:]:
        doc = json.loads(subprocess.run([nnscan, 'summary', path, '--format', 'json'],
                                        check=True, stdout=subprocess.PIPE).stdout)
        got, want = doc['memory']['live_bytes'], curve(nnscan, path)
        if got != want:
            k = next((i for i, (a, b) in enumerate(zip(got, want)) if a != b), min(len(got), len(want)))
            print('FAIL %s: live_bytes differ first at node %d: nnscan %r, expected %r (%d vs %d points)'
                  % (path, k, got[k:k + 3], want[k:k + 3], len(got), len(want)))
            failed += 1
        else:
            print('ok %s: %d points, peak %d' % (path, len(got), max(got)))
    return 1 if failed else 0


if __name__ == '__main__':
    sys.exit(main())
