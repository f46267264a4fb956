/*
 * layers_table.c - NNS_FORMAT_LAYERS_TEXT, _CSV, _MD: thoplw's per-module
 * table (docs/compat.md). Its rows are the modules the binding declared
 * (nns_model_module, in declaration order: PyTorch's named_modules), not the
 * layer tree of the other reports: a leaf module that ran no operator
 * (Dropout, Identity in eval) is a row here and no layer there. MACs and
 * params + frozen + buffers of a row are its layer's counts (0 for a module
 * that owns no node); shapes are those the binding recorded at the module's
 * boundary (nns_model_set_module_shapes), batch axis left out.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report_int.h"

enum { COLS = 6, CELL = 512 };

typedef struct row {
  char cell[COLS][CELL];
} row;

typedef struct by_path {
  const char *path;
  size_t layer;
} by_path;

static int cmp_path(const void *x, const void *y) {
  return strcmp(((const by_path *)x)->path, ((const by_path *)y)->path);
}

/* "64 x 112 x 112": the dims after the first, as thoplw prints them; "-"
 * when none was recorded. */
static void fmt_dims(char *buf, size_t size, const int64_t *d, int rank) {
  if (rank < 0) {
    snprintf(buf, size, "-");
    return;
  }
  size_t n = 0;
  buf[0] = '\0';
  for (int i = 1; i < rank && n < size; i++)
    n += (size_t)snprintf(buf + n, size - n, "%s%lld", i > 1 ? " x " : "",
                          (long long)d[i]);
}

/* thop's clever_format with "%.2f": a unit once the value is strictly
 * above 1e12, 1e9, 1e6, 1e3, else "B". */
static void fmt_thop(char *buf, size_t size, int64_t v) {
  static const struct {
    double scale;
    const char *unit;
  } units[] = {{1e12, "T"}, {1e9, "G"}, {1e6, "M"}, {1e3, "K"}};
  double x = (double)v;
  for (size_t i = 0; i < sizeof units / sizeof *units; i++)
    if (x > units[i].scale) {
      snprintf(buf, size, "%.2f%s", x / units[i].scale, units[i].unit);
      return;
    }
  snprintf(buf, size, "%.2fB", x);
}

static void fmt_value(char *buf, size_t size, int64_t v, int64_t total,
                      nns_numbers mode) {
  if (mode == NNS_NUMBERS_CLEVER)
    fmt_thop(buf, size, v);
  else if (mode == NNS_NUMBERS_RATIO)
    snprintf(buf, size, "%5.2f %%",
             total ? 100.0 * (double)v / (double)total : 0.0);
  else
    snprintf(buf, size, "%lld", (long long)v);
}

/* Whether `path` is `root` or below it. */
static bool under(const char *path, const char *root) {
  size_t n = strlen(root);
  return !strncmp(path, root, n) && (path[n] == '\0' || path[n] == '.');
}

static bool is_leaf(const nns_model *m, size_t i, const char *path) {
  size_t n = strlen(path);
  size_t count = nns_model_module_count(m);
  for (size_t j = 0; j < count; j++) {
    nns_module_info o = {.size = sizeof o};
    if (j != i && nns_model_module(m, j, &o) == NNS_OK && o.class_name &&
        !strncmp(o.path, path, n) && o.path[n] == '.')
      return false;
  }
  return true;
}

/* Whether a module above path (not path itself) has MACs given: its row
 * stands for the whole subtree. */
static bool inside_given(const nns_model *m, const char *path) {
  size_t count = nns_model_module_count(m);
  for (size_t j = 0; j < count; j++) {
    nns_module_info o = {.size = sizeof o};
    if (nns_model_module(m, j, &o) == NNS_OK && o.macs_given &&
        o.path[0] && strcmp(o.path, path) && under(path, o.path))
      return true;
  }
  return false;
}

static void put_csv_cell(nns__out *o, const char *s) {
  if (!strpbrk(s, ",\"")) {
    nns__out_str(o, s);
    return;
  }
  nns__out_str(o, "\"");
  for (; *s; s++)
    nns__out_str(o, *s == '"' ? "\"\"" : (char[2]){*s, 0});
  nns__out_str(o, "\"");
}

static void put_line(nns__out *o, const row *r, const int *w) {
  for (int k = 0; k < COLS; k++) {
    nns__out_str(o, k ? " | " : "| ");
    nns__out_str(o, r->cell[k]);
    nns__out_rep(o, " ", w[k] - nns__utf8_width(r->cell[k]));
  }
  nns__out_str(o, " |\n");
}

static void put_rule(nns__out *o, const int *w, char edge) {
  char e[2] = {edge, 0};
  for (int k = 0; k < COLS; k++) {
    nns__out_str(o, k ? e : (edge == '+' ? "+" : "|"));
    nns__out_rep(o, "-", w[k] + 2);
  }
  nns__out_str(o, edge == '+' ? "+\n" : "|\n");
}

nns_status nns__report_layers_table(const nns_analysis *a,
                                    const nns_report_options *opt,
                                    nns__out *out) {
  const nns_model *m = nns_analysis_model(a);
  size_t n_mod = nns_model_module_count(m);
  size_t n_layers = nns_analysis_layer_count(a);
  row *rows = malloc((n_mod + 2) * sizeof *rows);
  by_path *index = malloc((n_layers ? n_layers : 1) * sizeof *index);
  if (!rows || !index) {
    free(rows);
    free(index);
    return NNS_E_NOMEM;
  }
  for (size_t i = 0; i < n_layers; i++)
    index[i] = (by_path){nns__layer_of(a, i).path, i};
  qsort(index, n_layers, sizeof *index, cmp_path);

  nns_counts all = nns__total_counts_of(a);
  int64_t total_macs = all.macs;
  int64_t total_params =
      nns__sum_sat(nns__sum_sat(all.params, all.frozen), all.buffers);
  nns_numbers mode = opt->numbers;
  static const char *const head[COLS] = {"Name",         "Class", "Input shape",
                                         "Output shape", "MACs",  "Params"};
  size_t n = 0;
  for (int k = 0; k < COLS; k++)
    snprintf(rows[n].cell[k], CELL, "%s", head[k]);
  n++;
  /* The model's class: declared for path "", else the caller's name for
   * the root row, else the graph's. */
  const char *root_class =
      opt->model_name ? opt->model_name : nns__info_of(m).graph_name;
  char root_in[CELL] = "-", root_out[CELL] = "-";
  for (size_t i = 0; i < n_mod; i++) {
    nns_module_info d = {.size = sizeof d};
    if (nns_model_module(m, i, &d) != NNS_OK || !d.class_name)
      continue;
    if (!d.path[0]) {
      root_class = d.class_name;
      fmt_dims(root_in, CELL, d.input_shape, d.input_rank);
      fmt_dims(root_out, CELL, d.output_shape, d.output_rank);
      continue;
    }
    if (!d.call_count || (!d.macs_given && inside_given(m, d.path)) ||
        !(d.macs_given || is_leaf(m, i, d.path)))
      continue;
    by_path key = {d.path, 0};
    const by_path *hit =
        n_layers ? bsearch(&key, index, n_layers, sizeof *index, cmp_path)
                 : NULL;
    nns_counts c = {0};
    if (hit)
      c = nns__layer_counts_of(a, hit->layer);
    int64_t params = nns__sum_sat(nns__sum_sat(c.params, c.frozen), c.buffers);
    row *r = &rows[n++];
    nns__text_clean(r->cell[0], CELL, d.path);
    nns__text_clean(r->cell[1], CELL, d.class_name);
    fmt_dims(r->cell[2], CELL, d.input_shape, d.input_rank);
    fmt_dims(r->cell[3], CELL, d.output_shape, d.output_rank);
    fmt_value(r->cell[4], CELL, c.macs, total_macs, mode);
    fmt_value(r->cell[5], CELL, params, total_params, mode);
  }
  row *t = &rows[n++];
  snprintf(t->cell[0], CELL, "Total");
  nns__text_clean(t->cell[1], CELL, root_class);
  snprintf(t->cell[2], CELL, "%s", root_in);
  snprintf(t->cell[3], CELL, "%s", root_out);
  /* thoplw clever-formats the Total row in both clever and ratio. */
  fmt_value(t->cell[4], CELL, total_macs, 0,
            mode == NNS_NUMBERS_RAW ? mode : NNS_NUMBERS_CLEVER);
  fmt_value(t->cell[5], CELL, total_params, 0,
            mode == NNS_NUMBERS_RAW ? mode : NNS_NUMBERS_CLEVER);

  if (opt->format == NNS_FORMAT_LAYERS_CSV) {
    for (size_t i = 0; i < n; i++)
      for (int k = 0; k < COLS; k++) {
        put_csv_cell(out, rows[i].cell[k]);
        nns__out_str(out, k + 1 < COLS ? "," : "\n");
      }
  } else {
    int w[COLS] = {0};
    for (size_t i = 0; i < n; i++)
      for (int k = 0; k < COLS; k++) {
        int x = nns__utf8_width(rows[i].cell[k]);
        w[k] = x > w[k] ? x : w[k];
      }
    bool md = opt->format == NNS_FORMAT_LAYERS_MD;
    put_line(out, &rows[0], w);
    put_rule(out, w, md ? '|' : '+');
    for (size_t i = 1; i + 1 < n; i++)
      put_line(out, &rows[i], w);
    if (!md)
      put_rule(out, w, '+');
    put_line(out, &rows[n - 1], w);
  }
  free(rows);
  free(index);
  return NNS_OK;
}
