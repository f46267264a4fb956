/*
 * shapes.c - the SHAPES report formats: every value's dtype and shape in
 * graph order, after nns_model_infer (no analysis needed). JSON is the
 * "nnscan.shapes" contract (schema_version 1, docs/json.md), written by
 * the same JSON writer as the summary; text is a table for people.
 * `nnscan shapes` prints exactly these.
 */
#include <stdio.h>
#include <string.h>

#include "report_int.h"

/* The model's own warning k (of its load and last inference). */
static const char *model_warning(const nns_model *m, size_t k) {
  const char *w = "";
  nns_model_warning(m, k, &w);
  return w;
}

/* [d0, d1, ...] of value i for the text table: a number, or its symbol
 * cleaned for the terminal ("?" for an unnamed one). */
static void put_dims(nns__out *o, const nns_model *m, size_t i, int rank) {
  nns__out_put(o, "[", 1);
  for (int d = 0; d < rank; d++) {
    nns_dim dim = nns__dim_of(m, NULL, i, d);
    if (d)
      nns__out_put(o, ", ", 2);
    if (dim.value >= 0)
      nns__out_int(o, dim.value);
    else
      nns__out_text(o, dim.symbol ? dim.symbol : "?");
  }
  nns__out_put(o, "]", 1);
}

/* ==== JSON ==== */

#define BR1 "\n  "
#define BR2 "\n    "

/* "dtype", "shape", "kind" of value i (of analysis a, or of the model's
 * last inference when a is NULL), whose info the caller has read (*v, from
 * nns__value_of): a dim is a number or its symbol. Both JSON documents
 * describe values this way. */
void nns__json_value_type(nns__jw *w, const nns_model *m,
                          const nns_analysis *a, size_t i,
                          const nns_value_info *v) {
  nns__jw_str(w, NNS__JK("dtype"), v->dtype ? nns_dtype_name(v->dtype) : NULL);
  if (v->rank < 0) {
    nns__jw_null(w, NNS__JK("shape"));
  } else {
    nns__jw_arr(w, NNS__JK("shape"));
    for (int d = 0; d < v->rank; d++) {
      nns_dim dim = nns__dim_of(m, a, i, d);
      if (dim.value >= 0)
        nns__jw_int(w, NNS__JV, dim.value);
      else
        nns__jw_str(w, NNS__JV, dim.symbol);
    }
    nns__jw_end(w, NULL);
  }
  if (nns__kind_name(v->kind))
    nns__jw_str(w, NNS__JK("kind"), nns__kind_name(v->kind));
}

/* "name": {"dtype", "shape", "kind"}. */
static void j_entry(nns__jw *w, const nns_model *m, size_t i) {
  nns_value_info v = nns__value_of(m, NULL, i);
  nns__jw_key(w, v.name);
  nns__jw_obj(w, NNS__JV);
  nns__json_value_type(w, m, NULL, i, &v);
  nns__jw_end(w, NULL);
}

static nns_status write_json(nns__out *o, const nns_model *m,
                             const char *path) {
  nns__jw jw, *w = &jw;
  nns__jw_init(w, o);
  nns__jw_obj_brk(w, NNS__JV, BR1);
  nns__jw_str(w, NNS__JK("schema"), "nnscan.shapes");
  nns__jw_int(w, NNS__JK("schema_version"), 1);
  nns__jw_str(w, NNS__JK("nnscan_version"), nns_version());
  nns__jw_obj(w, NNS__JK("model"));
  nns__json_model_fields(w, m, path);
  nns__jw_end(w, NULL);
  nns__json_opsets(w, m);
  nns__jw_obj_brk(w, NNS__JK("inputs"), BR2);
  size_t n_in = nns_model_input_count(m), n_out = nns_model_output_count(m);
  for (size_t k = 0; k < n_in; k++)
    j_entry(w, m, nns__input_of(m, k));
  nns__jw_end(w, BR1);
  nns__jw_obj_brk(w, NNS__JK("outputs"), BR2);
  for (size_t k = 0; k < n_out; k++)
    if (nns__output_of(m, k) != (size_t)-1)
      j_entry(w, m, nns__output_of(m, k));
  nns__jw_end(w, BR1);
  nns__jw_obj_brk(w, NNS__JK("values"), BR2);
  for (size_t i = 0; i < nns_model_value_count(m); i++) {
    nns_value_info v = nns__value_of(m, NULL, i);
    /* Graph inputs and outputs of the main graph are listed above. */
    if (v.graph_depth == 0 &&
        (v.role == NNS_ROLE_INPUT || v.role == NNS_ROLE_OUTPUT))
      continue;
    j_entry(w, m, i);
  }
  nns__jw_end(w, BR1);
  nns__jw_arr(w, NNS__JK("unknown_ops"));
  for (size_t k = 0; k < nns_model_unknown_op_count(m); k++) {
    const char *dom = "", *op = "";
    size_t count = 0;
    nns_model_unknown_op(m, k, &dom, &op, &count);
    nns__jw_obj(w, NNS__JV);
    nns__jw_str(w, NNS__JK("op_type"), op);
    nns__jw_str(w, NNS__JK("domain"), dom);
    nns__jw_int(w, NNS__JK("nodes"), (int64_t)count);
    nns__jw_end(w, NULL);
  }
  nns__jw_end(w, NULL);
  nns__jw_arr_brk(w, NNS__JK("warnings"), BR2);
  for (size_t k = 0; k < nns_model_warning_count(m); k++)
    nns__jw_str(w, NNS__JV, model_warning(m, k));
  nns__jw_end(w, BR1);
  nns__jw_end(w, "\n");
  nns__out_put(o, "\n", 1);
  return nns__jw_finish(w);
}

/* ==== Text ==== */

/* s, then spaces up to `width` bytes (nothing cut), as printf's %-*s. */
static void put_padded(nns__out *o, const char *s, size_t width) {
  size_t n = strlen(s);
  nns__out_put(o, s, n);
  for (; n < width; n++)
    nns__out_put(o, " ", 1);
}

/* The same for a name from the model, cleaned (nns__text_clean) so that a
 * hostile name's escape sequences never reach the terminal. */
static void put_padded_text(nns__out *o, const char *s, size_t width) {
  for (size_t n = nns__out_text(o, s); n < width; n++)
    nns__out_put(o, " ", 1);
}

static void text_shape(nns__out *o, const nns_model *m, size_t i, int rank) {
  if (rank < 0)
    nns__out_put(o, "?", 1);
  else
    put_dims(o, m, i, rank);
}

static void write_text(nns__out *o, const nns_model *m) {
  static const char *roles[] = {"", "input", "output", "init"};
  size_t width = 4;
  size_t nv = nns_model_value_count(m);
  for (size_t i = 0; i < nv; i++) {
    nns_value_info v = nns__value_of(m, NULL, i);
    size_t w = strlen(v.name) + 2 * (size_t)v.graph_depth;
    if (w > width)
      width = w;
  }
  if (width > 60)
    width = 60;
  put_padded(o, "Name", width);
  nns__out_str(o, "  Role    Dtype      Shape\n");
  for (size_t i = 0; i < nv; i++) {
    nns_value_info v = nns__value_of(m, NULL, i);
    size_t indent = 2 * (size_t)v.graph_depth;
    for (size_t k = 0; k < indent; k++)
      nns__out_put(o, " ", 1);
    put_padded_text(o, v.name, width > indent ? width - indent : 0);
    nns__out_put(o, "  ", 2);
    put_padded(o, roles[(unsigned)v.role <= 3 ? v.role : 0], 6);
    nns__out_put(o, "  ", 2);
    put_padded(o, v.dtype ? nns_dtype_name(v.dtype) : "?", 9);
    nns__out_put(o, "  ", 2);
    const char *kind = nns__kind_name(v.kind);
    if (kind) {
      nns__out_str(o, kind);
      nns__out_str(o, " of ");
    }
    text_shape(o, m, i, v.rank);
    nns__out_put(o, "\n", 1);
  }
  size_t nu = nns_model_unknown_op_count(m);
  if (nu) {
    nns__out_str(o, "\nOps without a shape rule (outputs unknown):");
    for (size_t k = 0; k < nu; k++) {
      const char *dom = "", *op = "";
      size_t count = 0;
      nns_model_unknown_op(m, k, &dom, &op, &count);
      nns__out_str(o, k ? ", " : " ");
      nns__out_text(o, dom);
      nns__out_str(o, *dom ? "." : "");
      nns__out_text(o, op);
      nns__out_fmt(o, " x%zu", count);
    }
    nns__out_put(o, "\n", 1);
  }
  for (size_t k = 0; k < nns_model_warning_count(m); k++) {
    nns__out_str(o, "warning: ");
    nns__out_text(o, model_warning(m, k));
    nns__out_put(o, "\n", 1);
  }
}

nns_status nns__report_shapes(const nns_model *m, const nns_report_options *o,
                              nns__out *out) {
  if (o->format == NNS_FORMAT_SHAPES_JSON)
    return write_json(out, m, o->model_path);
  write_text(out, m);
  return NNS_OK;
}
