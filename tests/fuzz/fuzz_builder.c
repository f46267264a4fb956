/*
 * fuzz_builder.c - libFuzzer target for the builder, the way a binding
 * (the Python recorder) makes a model: the input is decoded into a
 * sequence of nns_builder_* calls (opcode byte, then its arguments), with
 * names mostly from a small pool (so values meet, collide and dangle) and
 * sometimes raw fuzz bytes (hostile names). A model that finishes goes
 * through inference, the analysis and every report. Every call must end
 * with a status - never a crash, leak or read out of bounds - and a
 * failed call must leave the builder usable.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "nnscan.h"
#include "fuzz_reader.h"
#include "fuzz_report.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* A name: mostly one of a few (values meet), "" and NULL sometimes, or up
 * to 16 raw bytes. Raw bytes land in `buf`. */
static const char *name(reader *r, char buf[17]) {
  static const char *pool[] = {"x", "y", "z", "w", "b", "t0", "t1", "t2",
                               "shape", "axes", "cond", "m.a", "", NULL};
  unsigned k = byte(r);
  if (k < 224)
    return pool[k % (sizeof pool / sizeof *pool)];
  size_t len = k % 17;
  for (size_t i = 0; i < len; i++)
    buf[i] = (char)byte(r);
  buf[len] = 0;
  return buf;
}

static const char *op(reader *r, char buf[17]) {
  static const char *ops[] = {
      "Conv", "Relu", "Add", "MatMul", "Gemm", "Reshape", "Shape", "Concat",
      "Slice", "Gather", "Transpose", "Identity", "Constant", "If", "Loop",
      "Scan", "MaxPool", "BatchNormalization", "Softmax", "ReduceMean",
      "Squeeze", "Unsqueeze", "Expand", "Where", "Resize", "LSTM", "Split",
      "Cast", "Range", "ConstantOfShape", "Einsum", "Pad", "TopK"};
  unsigned k = byte(r);
  if (k < 240)
    return ops[k % (sizeof ops / sizeof *ops)];
  return name(r, buf);
}

/* rank, dims and symbols for a dims-taking call. */
typedef struct dims {
  int rank;
  int64_t d[8];
  const char *sym[8];
  char sbuf[8][17];
  const char *const *syms;
} dims;

static void get_dims(reader *r, dims *d) {
  unsigned k = byte(r);
  d->rank = (int)(k % 7) - 1; /* -1 .. 5 */
  if (k & 0x80)
    d->rank = (int)(int8_t)byte(r); /* out of range on purpose */
  int n = d->rank > 8 ? 8 : d->rank < 0 ? 0 : d->rank;
  for (int i = 0; i < n; i++) {
    d->d[i] = i64(r);
    d->sym[i] = name(r, d->sbuf[i]);
  }
  if (d->rank > 8)
    d->rank = 8; /* the arrays hold 8 */
  d->syms = (k & 0x40) ? d->sym : NULL;
}


int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  reader r = {data, size};
  nns_builder *b = NULL;
  nns_error err;
  if (nns_builder_new(&b, &err) != NNS_OK)
    return 0;
  char b1[17], b2[17], b3[17];
  nns_model *m = NULL;
  bool finished = false;
  for (int steps = 0; r.n && steps < 256; steps++) {
    unsigned opc = byte(&r) % 20;
    dims d;
    char data_buf[64];
    const char *ins[4], *outs[3];
    char ib[4][17], ob[3][17];
    switch (opc) {
    case 0:
      (void)nns_builder_add_opset(b, byte(&r) & 1 ? "" : name(&r, b1),
                                  i64(&r), &err);
      break;
    case 1:
      get_dims(&r, &d);
      (void)nns_builder_add_input(b, name(&r, b1), (int)(byte(&r) % 20) - 1,
                                  d.rank, d.d, d.syms, &err);
      break;
    case 2:
      get_dims(&r, &d);
      (void)nns_builder_add_output(b, name(&r, b1), (int)(byte(&r) % 20) - 1,
                                   d.rank, d.d, d.syms, &err);
      break;
    case 3:
      get_dims(&r, &d);
      (void)nns_builder_add_value_info(b, name(&r, b1),
                                       (int)(byte(&r) % 20) - 1, d.rank, d.d,
                                       d.syms, &err);
      break;
    case 4: {
      get_dims(&r, &d);
      size_t len = byte(&r) % (sizeof data_buf + 1);
      for (size_t i = 0; i < len; i++)
        data_buf[i] = (char)byte(&r);
      (void)nns_builder_add_initializer(b, name(&r, b1),
                                        (int)(byte(&r) % 20) - 1, d.rank,
                                        d.d, len ? data_buf : NULL, len, &err);
      break;
    }
    case 5: case 6: case 7: {
      size_t ni = byte(&r) % 5, no = byte(&r) % 4;
      for (size_t i = 0; i < ni; i++)
        ins[i] = name(&r, ib[i]);
      for (size_t i = 0; i < no; i++)
        outs[i] = name(&r, ob[i]);
      const char *path = byte(&r) & 1 ? NULL : name(&r, b3);
      const char *opname = op(&r, b1);
      const char *domain = byte(&r) & 3 ? "" : name(&r, b2);
      char nb[17];
      const char *node_name = byte(&r) & 1 ? NULL : name(&r, nb);
      (void)nns_builder_add_node(b, opname, domain, node_name, path,
                                 ni ? ins : NULL, ni, no ? outs : NULL, no,
                                 &err);
      break;
    }
    case 8:
      (void)nns_builder_attr_int(b, name(&r, b1), i64(&r), &err);
      break;
    case 9: {
      int64_t v[8];
      double f[8];
      const char *strs[8];
      char sb[8][17];
      unsigned kind = byte(&r) % 3;
      size_t n = byte(&r) % 9;
      for (size_t i = 0; i < n; i++) {
        v[i] = i64(&r);
        f[i] = (double)v[i] / 3.0;
        strs[i] = name(&r, sb[i]);
      }
      const char *an = name(&r, b1);
      if (kind == 0)
        (void)nns_builder_attr_ints(b, an, n ? v : NULL, n, &err);
      else if (kind == 1)
        (void)nns_builder_attr_floats(b, an, n ? f : NULL, n, &err);
      else
        (void)nns_builder_attr_strings(b, an, n ? strs : NULL, n, &err);
      break;
    }
    case 10:
      (void)nns_builder_attr_float(b, name(&r, b1), (double)i64(&r) / 7.0,
                                   &err);
      break;
    case 11: {
      size_t len = byte(&r) % 17;
      char s[17];
      for (size_t i = 0; i < len; i++)
        s[i] = (char)byte(&r);
      (void)nns_builder_attr_string(b, name(&r, b1), s, len, &err);
      break;
    }
    case 12: {
      get_dims(&r, &d);
      size_t len = byte(&r) % (sizeof data_buf + 1);
      for (size_t i = 0; i < len; i++)
        data_buf[i] = (char)byte(&r);
      (void)nns_builder_attr_tensor(b, name(&r, b1),
                                    (nns_attr_type)(byte(&r) % 15),
                                    (int)(byte(&r) % 20) - 1, d.rank, d.d,
                                    len ? data_buf : NULL, len, &err);
      break;
    }
    case 13:
      get_dims(&r, &d);
      (void)nns_builder_attr_type(b, name(&r, b1),
                                  (nns_attr_type)(byte(&r) % 15),
                                  (int)(byte(&r) % 20) - 1, d.rank, d.d,
                                  d.syms, &err);
      break;
    case 14:
      (void)nns_builder_begin_graph(b, name(&r, b1),
                                    byte(&r) & 1 ? NNS_ATTR_GRAPH
                                                 : NNS_ATTR_GRAPHS,
                                    &err);
      break;
    case 15:
      (void)nns_builder_end_graph(b, &err);
      break;
    case 16:
      (void)nns_builder_set_graph_name(b, name(&r, b1), &err);
      break;
    case 17:
      (void)nns_builder_add_metadata(b, name(&r, b1), name(&r, b2), &err);
      break;
    case 18:
      (void)nns_builder_set_producer(b, name(&r, b1), name(&r, b2), &err);
      (void)nns_builder_set_ir_version(b, i64(&r), &err);
      break;
    default:
      if (nns_builder_finish(b, &m, &err) == NNS_OK)
        finished = true;
      break;
    }
    if (finished)
      break;
  }
  if (!finished && nns_builder_finish(b, &m, &err) == NNS_OK)
    finished = true;
  nns_builder_free(b);
  if (finished) {
    fuzz_report_all(m);
    nns_model_free(m);
  }
  return 0;
}
