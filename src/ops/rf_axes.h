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

/* The spatial axis (0..axes-1) of `in` held by dim d (all of it, its
 * windows or its positions within a window), or -1. */
int nns__rf_axis_at(const nns__rf *in, int32_t d);

/* Every axis of `r` has a dim to itself (nothing split or merged). */
bool nns__rf_plain(const nns__rf *r);

/* `out` becomes whole (and global context): the value's spatial axes were
 * reduced away. The axis count stays, the field, stride and padding are
 * zeroed. */
void nns__rf_set_whole(nns__rf *out);

/* `r` becomes whole but keeps where its axes are (nns__rf.full): each
 * position has seen every position along them. */
void nns__rf_set_full(nns__rf *r);

/*
 * Rule of the views (Reshape, Flatten, Squeeze, Unsqueeze): a spatial
 * axis keeps its field at the output dim that holds the same elements
 * (same size, same product of the dims before it). With known sizes an
 * axis may also be split into windows (Swin's window partition: H into
 * H/w windows of w positions, each part in a dim of its own or merged
 * with the same part of another axis) and merged back; any other split,
 * and a merge with a dim that is not spatial (Flatten over C, H and W),
 * loses the axis, and a field that loses an axis is whole.
 */
nns_status nns__rf_view(nns__ictx *cx, const nns__rf *in, nns__rf *out);

/*
 * Rule of a product of two activations (attention: weights A times values
 * B, contracting A's last dim with B's dim `bdim`): each output element
 * sums B over the positions that dim holds. `a` is the output's field
 * (A's rows); for each axis of B at `bdim`:
 *   - its positions within windows of w (Swin): each position reads what
 *     its whole window [m*w, (m+1)*w) read (nns__rf_window: the field now
 *     differs between positions of a window and the next);
 *   - the whole axis, or its windows: every position along it, so the
 *     output is whole (nns__rf_set_full).
 * The output reads both A's and the summed B's pixels at each position. A
 * B without spatial axes at `bdim` adds its global context; a B whose
 * axes are gone adds global context.
 */
void nns__rf_attend(nns__rf_pool *pool, const nns__rf *a, const nns__rf *b,
                    int32_t bdim, nns__rf *out);

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

/* cx->node is a Slice (by its table entry) reading one dim of known size
 * with step 1 and known bounds: that dim, the first index read and how
 * many (Concat's rotation rule looks at the nodes feeding it). */
bool nns__slice_span(nns__ictx *cx, int32_t *axis, int64_t *first,
                     int64_t *len);

#endif
