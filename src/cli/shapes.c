/*
 * shapes.c - `nnscan shapes MODEL`: every value's dtype and shape in graph
 * order, as a text table for people or as the JSON contract documented in
 * the README ("nnscan.shapes", version 1).
 */
#include <stdlib.h>
#include <string.h>

#include "cli.h"

static const char *kind_name(nns_type_kind k) {
  switch (k) {
  case NNS_KIND_SEQUENCE: return "sequence";
  case NNS_KIND_OPTIONAL: return "optional";
  case NNS_KIND_MAP: return "map";
  case NNS_KIND_SPARSE: return "sparse";
  default: return NULL;
  }
}

/* ==== JSON ==== */

static void json_value(FILE *f, const nns_model *m, size_t i) {
  nns_value_info v;
  nns_model_value(m, i, &v);
  fputs("{\"dtype\": ", f);
  if (v.dtype)
    json_str(f, nns_dtype_name(v.dtype));
  else
    fputs("null", f);
  fputs(", \"shape\": ", f);
  if (v.rank < 0) {
    fputs("null", f);
  } else {
    fputc('[', f);
    for (int d = 0; d < v.rank; d++) {
      nns_dim dim = nns_model_value_dim(m, i, d);
      if (d)
        fputs(", ", f);
      if (dim.value >= 0)
        json_int(f, dim.value);
      else
        json_str(f, dim.symbol);
    }
    fputc(']', f);
  }
  if (kind_name(v.kind)) {
    fputs(", \"kind\": ", f);
    json_str(f, kind_name(v.kind));
  }
  fputc('}', f);
}

static void json_entry(FILE *f, const nns_model *m, size_t i, bool *first) {
  nns_value_info v;
  nns_model_value(m, i, &v);
  fputs(*first ? "\n    " : ",\n    ", f);
  *first = false;
  json_str(f, v.name);
  fputs(": ", f);
  json_value(f, m, i);
}

static void write_json(FILE *f, const nns_model *m, const char *path) {
  nns_model_info info;
  nns_model_get_info(m, &info);
  fputs("{\n  \"schema\": \"nnscan.shapes\",\n  \"schema_version\": 1,\n", f);
  fputs("  \"nnscan_version\": ", f);
  json_str(f, nns_version());
  fputs(",\n  \"model\": {\"path\": ", f);
  json_str(f, path);
  fprintf(f, ", \"ir_version\": %lld, \"producer\": ", (long long)info.ir_version);
  json_str(f, info.producer_name);
  fputs(", \"producer_version\": ", f);
  json_str(f, info.producer_version);
  fputs(", \"graph\": ", f);
  json_str(f, info.graph_name);
  fprintf(f, ", \"nodes\": %zu, \"subgraph_nodes\": %zu},\n  \"opsets\": {",
          info.node_count, info.subgraph_node_count);
  for (size_t k = 0; k < nns_model_opset_count(m); k++) {
    const char *dom;
    int64_t ver;
    nns_model_opset(m, k, &dom, &ver);
    fputs(k ? ", " : "", f);
    json_str(f, dom);
    fprintf(f, ": %lld", (long long)ver);
  }
  fputs("},\n  \"inputs\": {", f);
  bool first = true;
  size_t n_in = nns_model_input_count(m), n_out = nns_model_output_count(m);
  for (size_t k = 0; k < n_in; k++)
    json_entry(f, m, nns_model_input(m, k), &first);
  fputs(first ? "},\n  \"outputs\": {" : "\n  },\n  \"outputs\": {", f);
  first = true;
  for (size_t k = 0; k < n_out; k++)
    if (nns_model_output(m, k) != (size_t)-1)
      json_entry(f, m, nns_model_output(m, k), &first);
  fputs(first ? "},\n  \"values\": {" : "\n  },\n  \"values\": {", f);
  first = true;
  for (size_t i = 0; i < nns_model_value_count(m); i++) {
    nns_value_info v;
    nns_model_value(m, i, &v);
    /* Graph inputs and outputs of the main graph are listed above. */
    if (v.graph_depth == 0 &&
        (v.role == NNS_ROLE_INPUT || v.role == NNS_ROLE_OUTPUT))
      continue;
    json_entry(f, m, i, &first);
  }
  fputs(first ? "},\n  \"unknown_ops\": [" : "\n  },\n  \"unknown_ops\": [", f);
  for (size_t k = 0; k < nns_model_unknown_op_count(m); k++) {
    const char *dom, *op;
    size_t count;
    nns_model_unknown_op(m, k, &dom, &op, &count);
    fputs(k ? ", " : "", f);
    fputs("{\"op_type\": ", f);
    json_str(f, op);
    fputs(", \"domain\": ", f);
    json_str(f, dom);
    fprintf(f, ", \"nodes\": %zu}", count);
  }
  fputs("],\n  \"warnings\": [", f);
  for (size_t k = 0; k < nns_model_warning_count(m); k++) {
    fputs(k ? ",\n    " : "\n    ", f);
    json_str(f, nns_model_warning(m, k));
  }
  fputs(nns_model_warning_count(m) ? "\n  ]\n}\n" : "]\n}\n", f);
}

/* ==== Text ==== */

static void text_shape(char *buf, size_t size, const nns_model *m, size_t i) {
  nns_value_info v;
  nns_model_value(m, i, &v);
  if (v.rank < 0) {
    snprintf(buf, size, "?");
    return;
  }
  size_t n = (size_t)snprintf(buf, size, "[");
  for (int d = 0; d < v.rank && n < size; d++) {
    nns_dim dim = nns_model_value_dim(m, i, d);
    if (dim.value >= 0)
      n += (size_t)snprintf(buf + n, size - n, "%s%lld", d ? ", " : "",
                            (long long)dim.value);
    else
      n += (size_t)snprintf(buf + n, size - n, "%s%s", d ? ", " : "",
                            dim.symbol ? dim.symbol : "?");
  }
  if (n < size)
    snprintf(buf + n, size - n, "]");
}

static void write_text(FILE *f, const nns_model *m) {
  static const char *roles[] = {"", "input", "output", "init"};
  size_t width = 4;
  for (size_t i = 0; i < nns_model_value_count(m); i++) {
    nns_value_info v;
    nns_model_value(m, i, &v);
    size_t w = strlen(v.name) + 2 * (size_t)v.graph_depth;
    if (w > width)
      width = w;
  }
  if (width > 60)
    width = 60;
  fprintf(f, "%-*s  %-6s  %-9s  %s\n", (int)width, "Name", "Role", "Dtype",
          "Shape");
  /* Names and symbols come from the model: cleaned, so that a hostile
   * name's escape sequences never reach the terminal. */
  char shape[1024], clean_shape[3 * sizeof shape], name[1024];
  for (size_t i = 0; i < nns_model_value_count(m); i++) {
    nns_value_info v;
    nns_model_value(m, i, &v);
    text_shape(shape, sizeof shape, m, i);
    nns_text_clean(clean_shape, sizeof clean_shape, shape);
    nns_text_clean(name, sizeof name, v.name);
    const char *kind = kind_name(v.kind);
    fprintf(f, "%*s%-*s  %-6s  %-9s  %s%s%s\n", 2 * v.graph_depth, "",
            (int)width - 2 * v.graph_depth, name,
            roles[v.role <= 3 ? v.role : 0],
            v.dtype ? nns_dtype_name(v.dtype) : "?", kind ? kind : "",
            kind ? " of " : "", clean_shape);
  }
  if (nns_model_unknown_op_count(m)) {
    fputs("\nOps without a shape rule (outputs unknown):", f);
    for (size_t k = 0; k < nns_model_unknown_op_count(m); k++) {
      const char *dom, *op;
      size_t count;
      nns_model_unknown_op(m, k, &dom, &op, &count);
      char cd[256], co[256];
      nns_text_clean(cd, sizeof cd, dom);
      nns_text_clean(co, sizeof co, op);
      fprintf(f, "%s %s%s%s x%zu", k ? "," : "", cd, *cd ? "." : "", co,
              count);
    }
    fputc('\n', f);
  }
  for (size_t k = 0; k < nns_model_warning_count(m); k++) {
    char w[2048];
    nns_text_clean(w, sizeof w, nns_model_warning(m, k));
    fprintf(f, "warning: %s\n", w);
  }
}

int cmd_shapes(int argc, char **argv) {
  cli_model_opts o = {.format = "text"};
  for (int i = 1; i < argc; i++) {
    int r = cli_parse_model_opt(&o, argc, argv, &i);
    if (r < 0)
      return EXIT_USAGE;
    if (r > 0)
      continue;
    if (argv[i][0] == '-' && argv[i][1]) {
      fprintf(stderr, "nnscan shapes: unknown option '%s'\n", argv[i]);
      return EXIT_USAGE;
    }
    if (o.path) {
      fprintf(stderr, "nnscan shapes: one model at a time\n");
      return EXIT_USAGE;
    }
    o.path = argv[i];
  }
  int rc = EXIT_USAGE;
  if (!o.path)
    fprintf(stderr, "usage: nnscan shapes MODEL [--input NAME=DIMS]... "
                    "[--value NAME=V[,V...]]... [--batch N] [--format text|json] [--fallback] [-o FILE]\n");
  else if (strcmp(o.format, "text") && strcmp(o.format, "json"))
    fprintf(stderr, "nnscan shapes: --format is text or json, not '%s'\n",
            o.format);
  else
    rc = EXIT_FAIL;
  nns_model *m = rc == EXIT_FAIL ? cli_load(&o) : NULL;
  if (m) {
    FILE *f = cli_open_output(o.output);
    if (f) {
      if (!strcmp(o.format, "json"))
        write_json(f, m, o.path);
      else
        write_text(f, m);
      if (cli_close_output(f, o.output))
        rc = EXIT_OK;
    }
    nns_model_free(m);
  }
  cli_model_opts_free(&o);
  return rc;
}
