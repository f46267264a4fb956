/*
 * fuzz_load.c - libFuzzer target for the ONNX loader: any byte string must
 * load or fail with a status, never crash, leak or read out of bounds. Each
 * model that loads also has its initializers and tensor attributes decoded,
 * which is the other place file bytes are read.
 */
#include <stddef.h>
#include <stdint.h>

#include "ir/ir.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Small enough that a fuzzed "huge" tensor is refused, not allocated. */
enum { DECODE_LIMIT = 4096 };

static void decode_attrs(nns_model *m, const nns__graph *g) {
  for (int32_t i = 0; i < g->n_nodes; i++) {
    const nns__node *n = &g->nodes[i];
    for (int32_t k = 0; k < n->n_attrs; k++) {
      const nns__attr *a = &n->attrs[k];
      nns__const c;
      if (a->type == NNS__AT_TENSOR && a->t)
        (void)nns__tensor_decode(m, a->t, DECODE_LIMIT, &c, NULL);
      if (a->type == NNS__AT_GRAPH && a->g)
        decode_attrs(m, a->g);
    }
  }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  nns_model *m = NULL;
  nns_error err;
  /* External data is resolved against a folder that does not exist, so a
   * fuzzed location can never reach a real file. */
  nns_load_options opts = {.size = sizeof opts,
                           .external_dir = "/nonexistent-nnscan-fuzz"};
  if (nns_model_load_memory(data, size, &opts, &m, &err) != NNS_OK)
    return 0;
  for (size_t i = 0; i < m->n_values; i++) {
    nns__const c;
    if (m->values[i]->init)
      (void)nns__tensor_decode(m, m->values[i]->init, DECODE_LIMIT, &c, &err);
  }
  decode_attrs(m, m->graph);
  nns_model_free(m);
  return 0;
}
