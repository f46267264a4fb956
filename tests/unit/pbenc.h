/*
 * pbenc.h - a tiny protobuf encoder for tests that hand-build ONNX models
 * and malformed inputs byte by byte. Header-only; out of memory aborts (this
 * is test code).
 *
 *   pb node = {0}; pb_str(&node, 4, "Relu");
 *   pb graph = {0}; size_t at = pb_msg(&graph, 1, &node);  // payload offset
 */
#ifndef NNS_PBENC_H
#define NNS_PBENC_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct pb {
  uint8_t *d;
  size_t n, cap;
} pb;

static inline void pb_raw(pb *b, const void *p, size_t n) {
  if (b->n + n > b->cap) {
    size_t cap = b->cap ? b->cap * 2 : 64;
    while (cap < b->n + n)
      cap *= 2;
    b->d = realloc(b->d, cap);
    if (!b->d)
      abort();
    b->cap = cap;
  }
  if (n)
    memcpy(b->d + b->n, p, n);
  b->n += n;
}

static inline void pb_byte(pb *b, uint8_t v) { pb_raw(b, &v, 1); }

static inline void pb_varint(pb *b, uint64_t v) {
  while (v >= 0x80) {
    pb_byte(b, (uint8_t)(v | 0x80));
    v >>= 7;
  }
  pb_byte(b, (uint8_t)v);
}

static inline void pb_tag(pb *b, uint32_t num, unsigned wt) {
  pb_varint(b, (uint64_t)num << 3 | wt);
}

/* A varint field. */
static inline void pb_int(pb *b, uint32_t num, uint64_t v) {
  pb_tag(b, num, 0);
  pb_varint(b, v);
}

/* A length-delimited field; returns the payload's offset in b. */
static inline size_t pb_bytes(pb *b, uint32_t num, const void *p, size_t n) {
  pb_tag(b, num, 2);
  pb_varint(b, n);
  size_t at = b->n;
  pb_raw(b, p, n);
  return at;
}

static inline size_t pb_str(pb *b, uint32_t num, const char *s) {
  return pb_bytes(b, num, s, strlen(s));
}

/* An embedded message; returns the payload's offset in b. Frees sub. */
static inline size_t pb_msg(pb *b, uint32_t num, pb *sub) {
  size_t at = pb_bytes(b, num, sub->d, sub->n);
  free(sub->d);
  memset(sub, 0, sizeof *sub);
  return at;
}

static inline void pb_f32(pb *b, uint32_t num, float x) {
  uint32_t bits;
  memcpy(&bits, &x, 4);
  pb_tag(b, num, 5);
  uint8_t le[4] = {(uint8_t)bits, (uint8_t)(bits >> 8), (uint8_t)(bits >> 16),
                   (uint8_t)(bits >> 24)};
  pb_raw(b, le, 4);
}

static inline void pb_free(pb *b) {
  free(b->d);
  memset(b, 0, sizeof *b);
}

/* ==== ONNX helpers ==== */

/* TypeProto for a tensor: dims >= 0 are values, -1 is an anonymous dim,
 * and a non-NULL params[i] names dim i. rank -1: no shape. */
static inline void pb_tensor_type(pb *type, int elem, int rank,
                                  const int64_t *dims,
                                  const char *const *params) {
  pb tt = {0}, shape = {0};
  pb_int(&tt, 1, (uint64_t)elem);
  if (rank >= 0) {
    for (int i = 0; i < rank; i++) {
      pb dim = {0};
      if (params && params[i])
        pb_str(&dim, 2, params[i]);
      else if (dims[i] >= 0)
        pb_int(&dim, 1, (uint64_t)dims[i]);
      pb_msg(&shape, 1, &dim);
    }
    pb_msg(&tt, 2, &shape);
  }
  pb_msg(type, 1, &tt);
}

/* ValueInfoProto as field `num` of g (11 input, 12 output, 13 value_info). */
static inline size_t pb_value_info(pb *g, uint32_t num, const char *name,
                                   int elem, int rank, const int64_t *dims,
                                   const char *const *params) {
  pb vi = {0}, type = {0};
  pb_str(&vi, 1, name);
  if (elem >= 0) {
    pb_tensor_type(&type, elem, rank, dims, params);
    pb_msg(&vi, 2, &type);
  }
  return pb_msg(g, num, &vi);
}

/* NodeProto into field `field` of g (1 in a GraphProto, 7 in a
 * FunctionProto); attrs (may be NULL) are appended and freed. Returns the
 * payload offset in g. */
static inline size_t pb_node_at(pb *g, uint32_t field, const char *op,
                                const char *name, const char *const *in,
                                int n_in, const char *const *out, int n_out,
                                pb *attrs) {
  pb node = {0};
  for (int i = 0; i < n_in; i++)
    pb_str(&node, 1, in[i]);
  for (int i = 0; i < n_out; i++)
    pb_str(&node, 2, out[i]);
  if (name)
    pb_str(&node, 3, name);
  pb_str(&node, 4, op);
  if (attrs) {
    pb_raw(&node, attrs->d, attrs->n);
    pb_free(attrs);
  }
  return pb_msg(g, field, &node);
}

static inline size_t pb_node(pb *g, const char *op, const char *name,
                             const char *const *in, int n_in,
                             const char *const *out, int n_out, pb *attrs) {
  return pb_node_at(g, 1, op, name, in, n_in, out, n_out, attrs);
}

/* ModelProto around a graph with one default-domain opset. Returns the
 * offset of the graph payload in the model. */
static inline size_t pb_model(pb *model, pb *graph, int64_t opset) {
  pb op = {0};
  pb_int(model, 1, 8);                 /* ir_version */
  pb_str(model, 2, "pbenc");           /* producer_name */
  size_t at = pb_msg(model, 7, graph); /* graph */
  pb_str(&op, 1, "");
  pb_int(&op, 2, (uint64_t)opset);
  pb_msg(model, 8, &op);
  return at;
}

#endif
