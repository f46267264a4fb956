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

/* [d0, d1, ...] of value i: a number, or its symbol (a JSON string, or
 * bare text with "?" for an unnamed one). */
/* The model's own warning k (of its load and last inference). */
static const char *model_warning(const nns_model *m, size_t k) {
  const char *w = "";
  nns_model_warning(m, k, &w);
  return w;
}

static void put_dims(nns__out *o, const nns_model *m, size_t i, int rank,
                     bool json) {
  nns__out_put(o, "[", 1);
  for (int d = 0; d < rank; d++) {
    nns_dim dim = nns__dim_of(m, NULL, i, d);
    if (d)
      nns__out_put(o, ", ", 2);
    if (dim.value >= 0)
      nns__out_int(o, dim.value);
    else if (json)
      nns__out_json_str(o, dim.symbol);
    else /* a symbol from the model: cleaned for the terminal */
      nns__out_text(o, dim.symbol ? dim.symbol : "?");
  }
  nns__out_put(o, "]", 1);
}

/* ==== JSON ==== */

static void j_value(nns__out *o, const nns_model *m, size_t i) {
  nns_value_info v = nns__value_of(m, NULL, i);
  nns__out_str(o, "{\"dtype\": ");
  nns__out_json_str(o, v.dtype ? nns_dtype_name(v.dtype) : NULL);
  nns__out_str(o, ", \"shape\": ");
  if (v.rank < 0)
    nns__out_str(o, "null");
  else
    put_dims(o, m, i, v.rank, true);
  if (nns__kind_name(v.kind)) {
    nns__out_str(o, ", \"kind\": ");
    nns__out_json_str(o, nns__kind_name(v.kind));
  }
  nns__out_put(o, "}", 1);
}

static void j_entry(nns__out *o, const nns_model *m, size_t i, bool *first) {
  nns_value_info v = nns__value_of(m, NULL, i);
  nns__out_str(o, *first ? "\n    " : ",\n    ");
  *first = false;
  nns__out_json_str(o, v.name);
  nns__out_put(o, ": ", 2);
  j_value(o, m, i);
}

static void write_json(nns__out *o, const nns_model *m, const char *path) {
  nns__out_str(o, "{\n  \"schema\": \"nnscan.shapes\",\n"
                  "  \"schema_version\": 1,\n");
  nns__out_str(o, "  \"nnscan_version\": ");
  nns__out_json_str(o, nns_version());
  nns__out_str(o, ",\n  \"model\": {");
  nns__json_model_fields(o, m, path);
  nns__out_str(o, "},\n  \"opsets\": {");
  for (size_t k = 0; k < nns_model_opset_count(m); k++) {
    const char *dom = "";
    int64_t ver = 0;
    nns_model_opset(m, k, &dom, &ver);
    nns__out_str(o, k ? ", " : "");
    nns__out_json_str(o, dom);
    nns__out_fmt(o, ": %lld", (long long)ver);
  }
  nns__out_str(o, "},\n  \"inputs\": {");
  bool first = true;
  size_t n_in = nns_model_input_count(m), n_out = nns_model_output_count(m);
  for (size_t k = 0; k < n_in; k++)
    j_entry(o, m, nns__input_of(m, k), &first);
  nns__out_str(o, first ? "},\n  \"outputs\": {"
                        : "\n  },\n  \"outputs\": {");
  first = true;
  for (size_t k = 0; k < n_out; k++)
    if (nns__output_of(m, k) != (size_t)-1)
      j_entry(o, m, nns__output_of(m, k), &first);
  nns__out_str(o, first ? "},\n  \"values\": {" : "\n  },\n  \"values\": {");
  first = true;
  for (size_t i = 0; i < nns_model_value_count(m); i++) {
    nns_value_info v = nns__value_of(m, NULL, i);
    /* Graph inputs and outputs of the main graph are listed above. */
    if (v.graph_depth == 0 &&
        (v.role == NNS_ROLE_INPUT || v.role == NNS_ROLE_OUTPUT))
      continue;
    j_entry(o, m, i, &first);
  }
  nns__out_str(o, first ? "},\n  \"unknown_ops\": ["
                        : "\n  },\n  \"unknown_ops\": [");
  for (size_t k = 0; k < nns_model_unknown_op_count(m); k++) {
    const char *dom = "", *op = "";
    size_t count = 0;
    nns_model_unknown_op(m, k, &dom, &op, &count);
    nns__out_str(o, k ? ", " : "");
    nns__out_str(o, "{\"op_type\": ");
    nns__out_json_str(o, op);
    nns__out_str(o, ", \"domain\": ");
    nns__out_json_str(o, dom);
    nns__out_fmt(o, ", \"nodes\": %zu}", count);
  }
  nns__out_str(o, "],\n  \"warnings\": [");
  size_t nw = nns_model_warning_count(m);
  for (size_t k = 0; k < nw; k++) {
    nns__out_str(o, k ? ",\n    " : "\n    ");
    nns__out_json_str(o, model_warning(m, k));
  }
  nns__out_str(o, nw ? "\n  ]\n}\n" : "]\n}\n");
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
    put_dims(o, m, i, rank, false);
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
    write_json(out, m, o->model_path);
  else
    write_text(out, m);
  return NNS_OK;
}
