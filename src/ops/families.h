/*
 * families.h - the operator family tables, one per file in src/ops/.
 * The includer defines NNS__FAMILY(name) first: registry.c expands it to
 * declare `nns__ops_<name>` (defined in <name>.c), to list the tables and
 * to name them; the name is the op's family in the reports. Adding a family
 * is one line here and one file; adding an operator is one table entry.
 */
NNS__FAMILY(eltwise)    /* element-wise unary and binary math, logic, cast */
NNS__FAMILY(activation) /* Relu, Sigmoid, Gelu, Softmax, ... */
NNS__FAMILY(conv)       /* Conv, ConvTranspose, ConvInteger, QLinearConv */
NNS__FAMILY(pool)       /* MaxPool, AveragePool, LpPool, global pools, RoI */
NNS__FAMILY(gemm)       /* Gemm, MatMul, Einsum, quantized matmuls */
NNS__FAMILY(norm)       /* BatchNorm, LayerNorm, GroupNorm, InstanceNorm, LRN */
NNS__FAMILY(reduce)     /* Reduce*, ArgMax/ArgMin, TopK, CumSum */
NNS__FAMILY(shape)      /* Reshape, Transpose, Concat, Split, Pad, Shape, ... */
NNS__FAMILY(shape_index) /* Slice, Gather, Scatter, Compress, NonZero, ... */
NNS__FAMILY(generate)   /* Constant, ConstantOfShape, Range, EyeLike, random */
NNS__FAMILY(resize)     /* Resize, Upsample, DepthToSpace, GridSample, ... */
NNS__FAMILY(rnn)        /* RNN, GRU, LSTM */
NNS__FAMILY(control)    /* If, Loop, Scan */
NNS__FAMILY(sequence)   /* Sequence*, Optional*, SplitToSequence */
NNS__FAMILY(quant)      /* QuantizeLinear, DequantizeLinear, QLinear*, ... */
NNS__FAMILY(misc)       /* NonMaxSuppression, Unique, signal ops, losses */
NNS__FAMILY(ml)         /* ai.onnx.ml */
NNS__FAMILY(msft)       /* com.microsoft contrib ops */
