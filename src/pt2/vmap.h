/*
 * vmap.h - torch.vmap's trace in a torch.export archive: the calls of
 * torch._functorch.predispatch (_vmap_increment_nesting, _add_batch_dim,
 * _remove_batch_dim, _vmap_decrement_nesting) around ops that the archive
 * sizes per example. vmap.c keeps, node by node, which values are batched
 * at which levels, and hands the aten table's two vmap entries
 * (src/ops/aten_export.c) what they need to lower a region on the whole
 * batch, as vmap runs it: the region's depth, and at the outermost
 * removal whether the value already has every level's size.
 */
#ifndef NNS_PT2_VMAP_H
#define NNS_PT2_VMAP_H

#include "../base/json_reader.h"
#include "../front/front.h"

typedef struct nns__vmap {
  int nesting;       /* levels entered, less those left */
  int depth;         /* the region's deepest level; 0: left unlowered */
  nns__map levels;   /* interned archive value name -> (uintptr_t) bits of
                        the levels it is batched at */
} nns__vmap;

/* Called for nodes[k] before it is lowered, with its arguments read
 * (args[0..*n_args), room for `cap`): keeps the nesting and which values
 * are batched, and appends the arguments the vmap entries read ("depth";
 * "final" and "full"). A region is lowered only when every node in it is
 * one the entries make exact on the batch (element-wise ops, casts,
 * views, one-element constants): decided at its first increment. NNS_OK,
 * or NNS_E_NOMEM. */
nns_status nns__vmap_node(nns__vmap *v, nns__front *f,
                          const nns__jval *nodes, size_t k,
                          nns__aten_arg *args, int *n_args, int cap);

#endif
