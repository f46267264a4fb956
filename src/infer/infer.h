/*
 * infer.h - shape inference over a graph (used by nns_model_infer and by
 * the control-flow rules through nns__ictx.infer_subgraph).
 */
#ifndef NNS_INFER_H
#define NNS_INFER_H

#include "../ops/op.h"

/* Sorts g's nodes topologically into g->order (NNS_E_CYCLE on a cycle). */
nns_status nns__graph_sort(nns_model *m, nns__graph *g, nns_error *err);

/* Infers every node of g in order. `call` is the node calling a function
 * whose body g is (for ref_attr_name), else NULL. */
nns_status nns__graph_infer(nns_model *m, nns__graph *g, const nns__node *call,
                            nns_error *err);

#endif
