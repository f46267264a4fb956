#!/usr/bin/python3
"""Writes the small models tests/unit/test_ops_shape.c loads (shape_*.onnx).
Not needed by the test run; rerun only to change them:

    /usr/bin/python3 tests/unit/models/make_shape.py

shape_sym: the shape arithmetic of a PyTorch/HF transformer export over
symbolic batch and seq. shape_fold: small constants folded through every
rearranging op. shape_err_*: one-node models each op must reject.
Constants are Constant nodes or tiny initializers.
"""
import os
import onnx
from onnx import TensorProto as TP, helper as h

HERE = os.path.dirname(os.path.abspath(__file__))
F, I64 = TP.FLOAT, TP.INT64
IMAX, IMIN = 2**63 - 1, -2**63


class G:
    def __init__(self):
        self.nodes, self.inits, self.outs, self.n = [], [], [], 0

    def const(self, vals, dtype=I64, dims=None):
        self.n += 1
        name = f'k{self.n}'
        dims = [len(vals)] if dims is None else dims
        self.inits.append(h.make_tensor(name, dtype, dims, vals))
        return name

    def node(self, op, ins, out, n_out=1, **attrs):
        outs = [out] if n_out == 1 else [f'{out}_{k}' for k in range(n_out)]
        self.nodes.append(h.make_node(op, ins, outs, name=out, **attrs))
        self.outs += outs
        return out

    def save(self, name, inputs, opset=17):
        g = h.make_graph(self.nodes, name,
                         [h.make_tensor_value_info(n, t, s) for n, t, s in inputs],
                         [h.make_tensor_value_info(o, 0, None) for o in self.outs],
                         initializer=self.inits)
        m = h.make_model(g, opset_imports=[h.make_opsetid('', opset)],
                         producer_name='make_shape')
        m.ir_version = 8
        onnx.save(m, os.path.join(HERE, f'shape_{name}.onnx'))


# ---- shape_sym: x is [batch, seq, 4096] ----
g = G()
g.node('Shape', ['x'], 's')
g.node('Gather', ['s', g.const([0], dims=[])], 'b')
g.node('Gather', ['s', g.const([1], dims=[])], 'q')
g.node('Unsqueeze', ['b', g.const([0])], 'bu')
g.node('Unsqueeze', ['q', g.const([0])], 'qu')
g.node('Concat', ['bu', 'qu', g.const([32]), g.const([128])], 'c1', axis=0)
g.node('Reshape', ['x', 'c1'], 'r1')
g.node('Concat', ['bu', g.const([-1])], 'c2', axis=0)
g.node('Reshape', ['x', 'c2'], 'r2')
g.node('Reshape', ['x', g.const([-1, 32, 128])], 'r3')
g.node('Reshape', ['r3', 's'], 'r4')
g.node('Reshape', ['x', g.const([0, 0, -1, 64])], 'r5')
g.node('Transpose', ['r1'], 't', perm=[0, 2, 1, 3])
g.node('Slice', ['x', g.const([1]), g.const([IMAX]), g.const([1])], 'sl1')
g.node('Slice', ['x', g.const([-1]), g.const([IMAX]), g.const([1])], 'sl2')
g.node('Slice', ['x', g.const([-1]), g.const([IMIN]), g.const([1]),
                 g.const([-1])], 'sl3')
g.node('Slice', ['x', g.const([0]), g.const([3]), g.const([1])], 'sl4')
g.node('Slice', ['x', g.const([0, 64]), g.const([-1, 4096]),
                 g.const([1, 2])], 'sl5')
g.node('Slice', ['x', g.const([0]), g.const([IMAX]), g.const([1]),
                 g.const([2])], 'sl6')
g.node('Slice', ['s', g.const([1]), g.const([IMAX])], 'tail')
g.node('Concat', [g.const([-1]), 'tail'], 'c3', axis=0)
g.node('Reshape', ['r2', 'c3'], 'r6')
g.node('Range', [g.const([0], dims=[]), 'q', g.const([1], dims=[])], 'rg')
g.node('Concat', ['qu', 'qu'], 'c4', axis=0)
g.node('ConstantOfShape', ['c4'], 'cs')
g.node('Split', ['x'], 'sp', n_out=2, axis=1)
g.node('Size', ['x'], 'sz')
g.node('Unsqueeze', ['rg', g.const([0])], 'rgu')
g.node('Concat', ['bu', 'qu'], 'c5', axis=0)
g.node('Expand', ['rgu', 'c5'], 'ex')
g.node('Flatten', ['x'], 'fl', axis=2)
g.node('Unsqueeze', ['x', g.const([0, -1])], 'un')
g.node('Squeeze', ['un', g.const([0])], 'sq')
g.node('Gather', ['x', g.const([0, 1, 2, 3, 4, 5], dims=[3, 2])], 'ga',
       axis=1)
g.node('Concat', ['x', 'x'], 'cc', axis=-1)
g.node('Pad', ['x', g.const([0, 1, 0, 0, 2, 3])], 'pd')
g.node('Tile', ['x', g.const([2, 1, 3])], 'ti')
g.node('Shape', ['x'], 'sh2', start=-2)
g.save('sym', [('x', F, ['batch', 'seq', 4096])])

# ---- shape_fold: folded values ----
g = G()
g.nodes.append(h.make_node('Constant', [], ['a'], name='a',
                           value_ints=[1, 2, 3, 4, 5, 6]))
g.outs.append('a')
g.node('Reshape', ['a', g.const([2, 3])], 'm')
g.node('Transpose', ['m'], 'mt')
g.node('Pad', ['m', g.const([1, 0, 0, 1]), g.const([9], dims=[])], 'pc')
g.node('Pad', ['m', g.const([0, 2, 0, 1])], 'pr', mode='reflect')
g.node('Pad', ['m', g.const([1, 1, 0, 0])], 'pe', mode='edge')
g.node('Slice', ['a', g.const([-1]), g.const([-10]), g.const([0]),
                 g.const([-2])], 'sa')
g.node('Slice', ['m', g.const([0, 2]), g.const([IMAX, -4]), g.const([0, 1]),
                 g.const([1, -1])], 'sm')
g.node('Gather', ['a', g.const([-1, 0])], 'ga')
g.node('Gather', ['m', g.const([2, 0])], 'gm', axis=1)
g.node('Split', ['a', g.const([2, 4])], 'sp', n_out=2)
g.node('Concat', ['m', 'tl'], 'cm', axis=0)
g.node('Range', [g.const([10], dims=[]), g.const([0], dims=[]),
                 g.const([-3], dims=[])], 'rg')
g.node('Tile', ['m', g.const([1, 2])], 'ti')
g.node('NonZero', [g.const([1, 0, 0, 3], dims=[2, 2])], 'nz')
g.node('Trilu', ['m'], 'tl', upper=0)
g.node('Expand', [g.const([1, 2, 3]), g.const([2, 3])], 'ex')
g.node('Compress', ['a', g.const([1, 0, 1], dtype=TP.BOOL)], 'co')
g.node('GatherElements', ['m', g.const([2, 0, 1, 1], dims=[2, 2])], 'ge',
       axis=1)
g.node('ConstantOfShape', [g.const([2, 2])], 'cos',
       value=h.make_tensor('v', I64, [1], [7]))
g.node('Flatten', ['m'], 'fl', axis=0)
g.node('ScatterND', ['a', g.const([1, 4], dims=[2, 1]), g.const([20, 50])],
       'snd')
g.node('ScatterND', ['a', g.const([1, 4], dims=[2, 1]), g.const([20, 50])],
       'sna', reduction='add')
g.node('ScatterElements', ['m', g.const([1, 0], dims=[1, 2]),
                           g.const([10, 20], dims=[1, 2])], 'sel', axis=1)
# min and max (ONNX 18's, taken from opset 16: scatter_reduce amin/amax)
g.node('ScatterElements', ['m', g.const([1, 0], dims=[1, 2]),
                           g.const([0, 20], dims=[1, 2])], 'semin', axis=1,
       reduction='min')
g.node('ScatterND', ['a', g.const([1, 4], dims=[2, 1]), g.const([0, 50])],
       'snmax', reduction='max')
g.save('fold', [])

# ---- errors ----
def err(name, op, ins, inputs, n_out=1, opset=17, **attrs):
    g = G()
    names = [i if isinstance(i, str) else g.const(*i) for i in ins]
    g.node(op, names, 'y', n_out=n_out, **attrs)
    g.save('err_' + name, inputs, opset)

err('reshape', 'Reshape', ['x', ([4, 2],)], [('x', F, [2, 3])])
err('reshape2', 'Reshape', ['x', ([-1, -1],)], [('x', F, [2, 3])])
err('concat', 'Concat', ['x', 'z'], [('x', F, [2, 3]), ('z', F, [2, 4])],
    axis=0)
err('split', 'Split', ['x'], [('x', F, [5])], n_out=2)
err('squeeze', 'Squeeze', ['x', ([1],)], [('x', F, [2, 3])])
err('transpose', 'Transpose', ['x'], [('x', F, [2, 3])], perm=[0, 0])
err('slice', 'Slice', ['x', ([0],), ([1],), ([0],), ([0],)],
    [('x', F, [2, 3])])
err('gather', 'Gather', ['x', ([3],)], [('x', F, [2, 3])])
err('axis', 'Concat', ['x', 'x'], [('x', F, [2, 3])], axis=2)
