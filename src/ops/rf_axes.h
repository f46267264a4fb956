/*
 * rf_axes.h - receptive-field helpers for ops that do not slide over
 * space but move, reduce or mix along axes: where a value's spatial axes
 * sit after a view (Reshape, Flatten, Squeeze, Unsqueeze), and what
 * working along some dims does to a field (reducing a spatial dim away
 * makes it whole; mixing every position of one into each output element
 * adds global context). Each op's table entry picks its rule from these
 * (docs/metrics.md, "Receptive field"); src/analyze/rf.c only applies the
 * rules.
 */
#ifndef NNS_OPS_RF_AXES_H
#define NNS_OPS_RF_AXES_H

#include "op.h"

/* The spatial axis (0..axes-1) of `in` held by dim d, or -1. */
int nns__rf_axis_at(const nns__rf *in, int32_t d);

/* `out` becomes whole (and global context): the value's spatial axes were
 * reduced away. The axis count stays, the field, stride and padding are
 * zeroed. */
void nns__rf_set_whole(nns__rf *out);

/*
 * Rule of the views (Reshape, Flatten, Squeeze, Unsqueeze): a spatial
 * axis keeps its field at the output dim that holds the same elements
 * (same size, same product of the dims before it); an axis split or merged
 * with another dim is lost, and a field that loses an axis is whole
 * (Flatten over H and W, a Reshape to tokens).
 */
nns_status nns__rf_view(nns__ictx *cx, const nns__rf *in, nns__rf *out);

/*
 * `in` after an op that mixes every position along the dims of input 0
 * flagged in `mixed[0..rank)` into each output element and keeps its dims
 * (LayerNormalization over its last dims, Softmax along an axis,
 * InstanceNormalization): unchanged when no flagged dim is spatial, else
 * flagged as depending on global context.
 */
void nns__rf_mix(const nns__rf *in, const bool *mixed, int32_t rank,
                 nns__rf *out);

/* The same for the dims [first, rank) of input 0 (first may be negative,
 * counted from the end; out of range: unchanged). */
nns_status nns__rf_mix_from(nns__ictx *cx, int64_t first, const nns__rf *in,
                            nns__rf *out);

/* The same for the one dim `axis` of input 0 (Softmax-13, LpNormalization). */
nns_status nns__rf_mix_axis(nns__ictx *cx, int64_t axis, const nns__rf *in,
                            nns__rf *out);

#endif
