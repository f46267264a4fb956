/*
 * packed_writer.h - packed buffers (nns_builder_add_packed, include/nnscan.h)
 * written by hand for the unit tests of the packed form's aten, names and
 * deferred_names records: a fixed buffer, its writers, and a build of the
 * model a buffer describes.
 */
#ifndef NNS_TESTS_PACKED_WRITER_H
#define NNS_TESTS_PACKED_WRITER_H

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "nnscan.h"

typedef struct wbuf {
  unsigned char p[1 << 16]; /* (test_replay.c bounds 64 KB) */
  size_t n;
} wbuf;

static inline void w(wbuf *b, const void *d, size_t n) {
  if (b->n <= sizeof b->p && n <= sizeof b->p - b->n) {
    memcpy(b->p + b->n, d, n);
    b->n += n;
  }
}
static inline void w_u8(wbuf *b, unsigned v) {
  unsigned char c = (unsigned char)v;
  w(b, &c, 1);
}
static inline void w_u32(wbuf *b, uint32_t v) { w(b, &v, 4); }
static inline void w_i32(wbuf *b, int32_t v) { w(b, &v, 4); }
static inline void w_i64(wbuf *b, int64_t v) { w(b, &v, 8); }
static inline void w_f64(wbuf *b, double v) { w(b, &v, 8); }
static inline void w_str(wbuf *b, const char *s) {
  w_u32(b, (uint32_t)strlen(s));
  w(b, s, strlen(s) + 1);
}
/* the packed header alone */
static inline void w_header(wbuf *b) {
  b->n = 0;
  w(b, "NNSP", 4);
  w_u32(b, NNS_PACKED_VERSION);
}
/* header, then input x: float [2, 3] */
static inline void w_start(wbuf *b) {
  w_header(b);
  w_u8(b, NNS_PACKED_INPUT);
  w_str(b, "x");
  w_i32(b, NNS_DT_FLOAT);
  w_i32(b, 2);
  w_i64(b, 2);
  w_i64(b, 3);
  w_u8(b, 0);
}
/* a tensor of an aten record: name, dtype [2, 3] */
static inline void w_tensor_of(wbuf *b, const char *name, int32_t dtype) {
  w_str(b, name);
  w_i32(b, dtype);
  w_i32(b, 2);
  w_i64(b, 2);
  w_i64(b, 3);
}
/* ... float [2, 3] */
static inline void w_tensor(wbuf *b, const char *name) {
  w_tensor_of(b, name, NNS_DT_FLOAT);
}
static inline void w_arg(wbuf *b, const char *name, int kind) {
  w_str(b, name);
  w_u8(b, (unsigned)kind);
}
/* an aten record's head: op, its node name, module "blk", n arguments */
static inline void w_aten_head(wbuf *b, const char *op, const char *node,
                        uint32_t n_args) {
  w_u8(b, NNS_PACKED_ATEN);
  w_str(b, op);
  w_str(b, node);
  w_str(b, "blk");
  w_u32(b, n_args);
}
/* aten op(x[, y]) -> out, named `node` in module "blk"; alpha when >= 0 */
static inline void w_aten(wbuf *b, const char *op, const char *node, const char *x,
                   const char *y, int alpha, const char *out) {
  w_aten_head(b, op, node, (y ? 2u : 1u) + (alpha >= 0));
  w_arg(b, "self", NNS_ATEN_ARG_TENSOR);
  w_tensor(b, x);
  if (y) {
    w_arg(b, "other", NNS_ATEN_ARG_TENSOR);
    w_tensor(b, y);
  }
  if (alpha >= 0) {
    w_arg(b, "alpha", NNS_ATEN_ARG_INT);
    w_i64(b, alpha);
    w_u32(b, UINT32_MAX); /* no symbol */
  }
  w_u32(b, 1);
  w_tensor(b, out);
}
static inline void w_node(wbuf *b, const char *op, const char *node, const char *x,
                   const char *y, const char *out) {
  w_u8(b, NNS_PACKED_NODE);
  w_str(b, op);
  w_str(b, "");
  w_str(b, node);
  w_str(b, "blk");
  w_u32(b, y ? 2 : 1);
  w_str(b, x);
  if (y)
    w_str(b, y);
  w_u32(b, 1);
  w_str(b, out);
}
static inline void w_output(wbuf *b, const char *name) {
  w_u8(b, NNS_PACKED_OUTPUT);
  w_str(b, name);
  w_i32(b, 0);
  w_i32(b, -1);
  w_u8(b, 0);
}

static inline nns_status build(const wbuf *b, nns_model **m, nns_error *err) {
  nns_builder *bu = NULL;
  *m = NULL;
  unsigned char *copy = malloc(b->n ? b->n : 1); /* exact size for ASan */
  if (!copy)
    return NNS_E_NOMEM;
  memcpy(copy, b->p, b->n);
  nns_status st = nns_builder_new(&bu, err);
  if (!st)
    st = nns_builder_add_packed(bu, copy, b->n, err);
  if (!st)
    st = nns_builder_finish(bu, m, err);
  nns_builder_free(bu);
  free(copy);
  return st;
}

/* a names record (packed record 30): the recorder's counters */
static inline void w_names_inits(wbuf *b, uint64_t values, uint64_t nodes,
                                 uint64_t inits) {
  w_u8(b, NNS_PACKED_NAMES);
  w(b, &values, 8);
  w(b, &nodes, 8);
  w(b, &inits, 8);
}

/* The name of node `node`'s k-th input (in) or output in model m; "?"
 * for none. */
static inline const char *value_name(nns_model *m, size_t node, size_t k,
                                     bool in) {
  size_t v = 0;
  nns_value_info info = {.size = sizeof info};
  if ((in ? nns_model_node_input(m, node, k, &v)
          : nns_model_node_output(m, node, k, &v)) != NNS_OK ||
      nns_model_value(m, v, &info) != NNS_OK)
    return "?";
  return info.name;
}

#endif
