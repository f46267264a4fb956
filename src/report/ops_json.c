/*
 * ops_json.c - the library's static tables as JSON, written through the
 * one JSON writer from the public accessors, as the CLI itself would: the
 * operator table (nns_op_table_json, `nnscan ops --format json`) and the
 * devices (nns_hardware_json, `nnscan hardware --json`).
 */
#include "report_int.h"

/* Writes one JSON document through `write`: body(w, o, ctx) writes it,
 * with one writer and one output for both tables; then the end of the
 * document and of the output. */
static nns_status write_document(nns_write_fn write, void *user,
                                 nns_error *err,
                                 void (*body)(nns__jw *, nns__out *,
                                              const void *),
                                 const void *ctx) {
  if (!write)
    return nns__report_err(err, NNS_E_ARG, "write callback is NULL");
  nns__out o;
  nns__out_init(&o, write, user);
  nns__jw jw;
  nns__jw_init(&jw, &o);
  body(&jw, &o, ctx);
  nns_status st = nns__jw_finish(&jw);
  nns_status out = nns__out_finish(&o, err);
  return st != NNS_OK ? nns__report_err(err, st, "out of memory") : out;
}

static void op_table(nns__jw *w, nns__out *o, const void *ctx) {
  (void)ctx;
  nns__jw_arr_brk(w, NNS__JV, "\n ");
  for (size_t i = 0; i < nns_op_count(); i++) {
    nns_op_info op = {.size = sizeof op};
    nns_op_get(i, &op);
    nns__jw_obj(w, NNS__JV);
    nns__jw_str(w, NNS__JK("domain"), op.domain);
    nns__jw_str(w, NNS__JK("op_type"), op.name);
    nns__jw_int(w, NNS__JK("since"), op.since_version);
    nns__jw_int(w, NNS__JK("until"), op.until_version);
    nns__jw_str(w, NNS__JK("roles"), op.roles);
    nns__jw_bool(w, NNS__JK("shape"), op.has_shape_rule);
    nns__jw_bool(w, NNS__JK("fold"), op.has_fold);
    nns__jw_bool(w, NNS__JK("cost"), op.has_cost_rule);
    nns__jw_bool(w, NNS__JK("rf"), op.has_rf_rule);
    nns__jw_end(w, NULL);
  }
  nns__out_put(o, "\n", 1);
  nns__jw_end(w, NULL);
  nns__out_put(o, "\n", 1);
}

nns_status nns_op_table_json(nns_write_fn write, void *user, nns_error *err) {
  return write_document(write, user, err, op_table, NULL);
}

/* A peak or a bandwidth: null when the device does not give one. */
static void hw_figure(nns__jw *w, const char *key, size_t klen, double v) {
  if (v > 0)
    nns__jw_double(w, key, klen, v, 17, false);
  else
    nns__jw_null(w, key, klen);
}

static void devices(nns__jw *w, nns__out *o, const void *ctx) {
  const nns_hardware_list *list = ctx;
  nns__jw_obj(w, NNS__JV);
  nns__jw_str(w, NNS__JK("schema"), "nnscan.hardware");
  nns__jw_int(w, NNS__JK("schema_version"), 1);
  nns__jw_arr_brk(w, NNS__JK("devices"), "\n  ");
  size_t n_user = list ? nns_hardware_list_count(list) : 0;
  for (size_t i = 0; i < n_user + nns_hardware_count(); i++) {
    nns_hardware h = {.size = sizeof h};
    nns_status st = i < n_user ? nns_hardware_list_get(list, i, &h)
                               : nns_hardware_get(i - n_user, &h);
    if (st != NNS_OK)
      continue;
    nns__jw_obj(w, NNS__JV);
    nns__jw_str(w, NNS__JK("name"), h.name);
    nns__jw_str(w, NNS__JK("description"), h.description);
    nns__jw_str(w, NNS__JK("source"), h.source);
    nns__jw_obj(w, NNS__JK("peak_flops"));
    for (int d = 0; d < NNS_COMPUTE_DTYPE_COUNT; d++) {
      nns__jw_key(w, nns_compute_dtype_name(d));
      hw_figure(w, NNS__JV, h.peak_flops[d]);
    }
    nns__jw_end(w, NULL);
    hw_figure(w, NNS__JK("bandwidth"), h.bandwidth);
    nns__jw_end(w, NULL);
  }
  nns__out_put(o, "\n", 1);
  nns__jw_end(w, NULL);
  nns__jw_end(w, NULL);
  nns__out_put(o, "\n", 1);
}

nns_status nns_hardware_json(const nns_hardware_list *list,
                             nns_write_fn write, void *user, nns_error *err) {
  return write_document(write, user, err, devices, list);
}
