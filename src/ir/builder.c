/*
 * builder.c - nns_builder: a model made in memory, without protobuf.
 * (Being written: every call answers NNS_E_STATE for now.)
 */
#include <stdlib.h>

#include "ir.h"

struct nns_builder {
  int unused;
};

static nns_status todo(nns_error *err) {
  return nns__err(err, NNS_E_STATE, -1, NULL,
                  "the builder is not implemented yet");
}

nns_status nns_builder_new(nns_builder **out, nns_error *err) {
  if (out)
    *out = NULL;
  return todo(err);
}
void nns_builder_free(nns_builder *b) { free(b); }
nns_status nns_builder_set_ir_version(nns_builder *b, int64_t v,
                                      nns_error *err) {
  (void)b, (void)v;
  return todo(err);
}
nns_status nns_builder_set_producer(nns_builder *b, const char *name,
                                    const char *version, nns_error *err) {
  (void)b, (void)name, (void)version;
  return todo(err);
}
nns_status nns_builder_set_graph_name(nns_builder *b, const char *name,
                                      nns_error *err) {
  (void)b, (void)name;
  return todo(err);
}
nns_status nns_builder_add_opset(nns_builder *b, const char *domain,
                                 int64_t version, nns_error *err) {
  (void)b, (void)domain, (void)version;
  return todo(err);
}
nns_status nns_builder_add_metadata(nns_builder *b, const char *key,
                                    const char *value, nns_error *err) {
  (void)b, (void)key, (void)value;
  return todo(err);
}
nns_status nns_builder_add_input(nns_builder *b, const char *name, int dtype,
                                 int rank, const int64_t *dims,
                                 const char *const *symbols, nns_error *err) {
  (void)b, (void)name, (void)dtype, (void)rank, (void)dims, (void)symbols;
  return todo(err);
}
nns_status nns_builder_add_output(nns_builder *b, const char *name, int dtype,
                                  int rank, const int64_t *dims,
                                  const char *const *symbols, nns_error *err) {
  (void)b, (void)name, (void)dtype, (void)rank, (void)dims, (void)symbols;
  return todo(err);
}
nns_status nns_builder_add_value_info(nns_builder *b, const char *name,
                                      int dtype, int rank, const int64_t *dims,
                                      const char *const *symbols,
                                      nns_error *err) {
  (void)b, (void)name, (void)dtype, (void)rank, (void)dims, (void)symbols;
  return todo(err);
}
nns_status nns_builder_add_initializer(nns_builder *b, const char *name,
                                       int dtype, int rank,
                                       const int64_t *dims, const void *data,
                                       size_t data_size, nns_error *err) {
  (void)b, (void)name, (void)dtype, (void)rank, (void)dims, (void)data,
      (void)data_size;
  return todo(err);
}
nns_status nns_builder_add_node(nns_builder *b, const char *op_type,
                                const char *domain, const char *name,
                                const char *module_path,
                                const char *const *inputs, size_t input_count,
                                const char *const *outputs,
                                size_t output_count, nns_error *err) {
  (void)b, (void)op_type, (void)domain, (void)name, (void)module_path,
      (void)inputs, (void)input_count, (void)outputs, (void)output_count;
  return todo(err);
}
nns_status nns_builder_attr_int(nns_builder *b, const char *name,
                                int64_t value, nns_error *err) {
  (void)b, (void)name, (void)value;
  return todo(err);
}
nns_status nns_builder_attr_float(nns_builder *b, const char *name,
                                  double value, nns_error *err) {
  (void)b, (void)name, (void)value;
  return todo(err);
}
nns_status nns_builder_attr_string(nns_builder *b, const char *name,
                                   const char *value, size_t len,
                                   nns_error *err) {
  (void)b, (void)name, (void)value, (void)len;
  return todo(err);
}
nns_status nns_builder_attr_ints(nns_builder *b, const char *name,
                                 const int64_t *values, size_t count,
                                 nns_error *err) {
  (void)b, (void)name, (void)values, (void)count;
  return todo(err);
}
nns_status nns_builder_attr_floats(nns_builder *b, const char *name,
                                   const double *values, size_t count,
                                   nns_error *err) {
  (void)b, (void)name, (void)values, (void)count;
  return todo(err);
}
nns_status nns_builder_attr_strings(nns_builder *b, const char *name,
                                    const char *const *values, size_t count,
                                    nns_error *err) {
  (void)b, (void)name, (void)values, (void)count;
  return todo(err);
}
nns_status nns_builder_attr_tensor(nns_builder *b, const char *name,
                                   nns_attr_type type, int dtype, int rank,
                                   const int64_t *dims, const void *data,
                                   size_t data_size, nns_error *err) {
  (void)b, (void)name, (void)type, (void)dtype, (void)rank, (void)dims,
      (void)data, (void)data_size;
  return todo(err);
}
nns_status nns_builder_attr_type(nns_builder *b, const char *name,
                                 nns_attr_type type, int dtype, int rank,
                                 const int64_t *dims,
                                 const char *const *symbols, nns_error *err) {
  (void)b, (void)name, (void)type, (void)dtype, (void)rank, (void)dims,
      (void)symbols;
  return todo(err);
}
nns_status nns_builder_begin_graph(nns_builder *b, const char *name,
                                   nns_attr_type type, nns_error *err) {
  (void)b, (void)name, (void)type;
  return todo(err);
}
nns_status nns_builder_end_graph(nns_builder *b, nns_error *err) {
  (void)b;
  return todo(err);
}
nns_status nns_builder_finish(nns_builder *b, nns_model **out,
                              nns_error *err) {
  (void)b;
  if (out)
    *out = NULL;
  return todo(err);
}
