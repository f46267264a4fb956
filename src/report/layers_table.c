/*
 * layers_table.c - NNS_FORMAT_LAYERS_TEXT, _CSV, _MD: thoplw's per-module
 * table (docs/compat.md), and NNS_FORMAT_LAYERS_JSON, the same rows as
 * data for a binding (its cells, numbers raw).
 *
 * An analysis's table (nns_report) has a row per module the binding
 * declared (nns_model_module, in declaration order: PyTorch's
 * named_modules), not the layer tree of the other reports: a leaf module
 * that ran no operator (Dropout, Identity in eval) is a row here and no
 * layer there. MACs and params + frozen + buffers of a row are its layer's
 * counts (0 for a module that owns no node); shapes are those the binding
 * recorded at the module's boundary (nns_model_set_module_shapes), batch
 * axis left out. A caller's table (nns_report_layers) has the rows the
 * caller counted by another tool's conventions, laid out by the same code.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../base/base.h"
#include "report_int.h"

enum { COLS = 6, CELL = 4096 };

typedef struct row {
  char cell[COLS][CELL];
  int64_t macs, params; /* the MACs and Params cells' values, raw */
} row;

/* A path and what it indexes: a layer, or a declared module. */
typedef struct by_path {
  const char *path;
  size_t i;
} by_path;

static int cmp_path(const void *x, const void *y) {
  return strcmp(((const by_path *)x)->path, ((const by_path *)y)->path);
}

/* What the rows are read from: the layers and the declared modules (with
 * a class; those with given MACs apart), each sorted by path; or the
 * caller's rows. */
typedef struct tables {
  const nns_analysis *a;       /* NULL: the caller's rows */
  const nns_model *m;
  by_path *layers, *mods, *given;
  size_t n_layers, n_mods, n_given;
  const char *rows;            /* the caller's rows, `stride` bytes apart */
  size_t stride;
  const nns_layers_row *total; /* the caller's Total row */
  size_t n_end;                /* row_at's index of the Total row */
  int64_t total_macs, total_params; /* what the ratios are of */
  nns_numbers mode;
  nns_count_style clever;      /* the clever cells' style */
} tables;

static const by_path *find(const by_path *v, size_t n, const char *path) {
  by_path key = {path, 0};
  return n ? bsearch(&key, v, n, sizeof *v, cmp_path) : NULL;
}

/* Whether a declared module lies below `path`: the first path at or after
 * "path." in sorted order starts with it. */
static bool has_child(const tables *t, const char *path) {
  size_t n = strlen(path), lo = 0, hi = t->n_mods;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    const char *p = t->mods[mid].path;
    int c = strncmp(p, path, n);
    if (c < 0 || (c == 0 && (unsigned char)p[n] < '.'))
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo < t->n_mods && !strncmp(t->mods[lo].path, path, n) &&
         t->mods[lo].path[n] == '.';
}

/* Whether a module above `path` (not "", not path itself) has MACs given:
 * its row stands for its whole subtree. */
static bool inside_given(const tables *t, const char *path) {
  char buf[CELL];
  size_t n = strlen(path);
  if (!t->n_given || n >= sizeof buf)
    return false;
  memcpy(buf, path, n + 1);
  for (char *dot = strrchr(buf, '.'); dot; dot = strrchr(buf, '.')) {
    *dot = '\0';
    if (find(t->given, t->n_given, buf))
      return true;
  }
  return false;
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

static void fmt_value(char *buf, size_t size, int64_t v, int64_t total,
                      nns_numbers mode, nns_count_style clever) {
  /* thop's cells print as "%.2f", thoplw's as "%6.2f". */
  if (mode == NNS_NUMBERS_CLEVER)
    nns_format_count((double)v, clever,
                     clever == NNS_COUNT_STYLE_THOPLW ? 6 : 0, 2, buf, size,
                     NULL);
  else if (mode == NNS_NUMBERS_RATIO)
    snprintf(buf, size, "%5.2f %%",
             total ? 100.0 * (double)v / (double)total : 0.0);
  else
    snprintf(buf, size, "%lld", (long long)v);
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

/* A cell's columns: in Markdown, with what Markdown's one escaping rule
 * (nns__md_text) adds. */
static int cell_width(const char *s, bool md) {
  return nns__utf8_width(s) + (md ? nns__md_extra(s) : 0);
}

static void put_line(nns__out *o, const row *r, const int *w, bool md) {
  for (int k = 0; k < COLS; k++) {
    nns__out_str(o, k ? " | " : "| ");
    if (md)
      nns__md_text(o, r->cell[k]);
    else
      nns__out_str(o, r->cell[k]);
    nns__out_rep(o, " ", w[k] - cell_width(r->cell[k], md));
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

/* {"name": ..., "class": ..., "input": ..., "output": ..., "macs": ...,
 * "params": ...}: a row's cells, the numbers raw. */
static void put_json_row(nns__jw *w, const char *key, size_t klen,
                         const row *r) {
  static const struct {
    const char *key;
    size_t len;
  } keys[4] = {{NNS__JK("name")},
               {NNS__JK("class")},
               {NNS__JK("input")},
               {NNS__JK("output")}};
  nns__jw_obj(w, key, klen);
  for (int k = 0; k < 4; k++)
    nns__jw_str(w, keys[k].key, keys[k].len, r->cell[k]);
  nns__jw_int(w, NNS__JK("macs"), r->macs);
  nns__jw_int(w, NNS__JK("params"), r->params);
  nns__jw_end(w, NULL);
}

static bool row_at(const tables *t, const nns_report_options *opt, size_t *i,
                   row *r);

/* The "nnscan.layers" document: the table's rows, then its Total row. */
static nns_status put_json(nns__out *out, const tables *t,
                           const nns_report_options *opt, row *r) {
  nns__jw w;
  nns__jw_init(&w, out);
  nns__jw_obj(&w, NNS__JV);
  nns__jw_str(&w, NNS__JK("schema"), "nnscan.layers");
  nns__jw_int(&w, NNS__JK("schema_version"), 1);
  nns__jw_arr_brk(&w, NNS__JK("rows"), "\n  ");
  size_t i = (size_t)-1;
  row_at(t, opt, &i, r); /* the header */
  while (row_at(t, opt, &i, r) && i <= t->n_end)
    put_json_row(&w, NNS__JV, r);
  nns__jw_end(&w, "\n");
  nns__jw_break(&w, "\n");
  put_json_row(&w, NNS__JK("total"), r); /* row_at's last: the Total row */
  nns__jw_end(&w, "\n");
  nns__out_str(out, "\n");
  return nns__jw_finish(&w);
}

static void fmt_counts(row *r, const tables *t, int64_t macs, int64_t params,
                       bool total) {
  /* thoplw clever-formats the Total row in both clever and ratio. */
  nns_numbers mode = total && t->mode != NNS_NUMBERS_RAW ? NNS_NUMBERS_CLEVER
                                                         : t->mode;
  r->macs = macs;
  r->params = params;
  fmt_value(r->cell[4], CELL, macs, t->total_macs, mode, t->clever);
  fmt_value(r->cell[5], CELL, params, t->total_params, mode, t->clever);
}

/* A caller's row into r: its cells as the analysis's rows print theirs. */
static void given_row(const tables *t, const nns_layers_row *g, bool total,
                      row *r) {
  if (total)
    snprintf(r->cell[0], CELL, "Total");
  else
    nns__text_clean(r->cell[0], CELL, g->name);
  nns__text_clean(r->cell[1], CELL, g->class_name);
  fmt_dims(r->cell[2], CELL, g->input_shape, g->input_rank);
  fmt_dims(r->cell[3], CELL, g->output_shape, g->output_rank);
  fmt_counts(r, t, g->macs, g->params, total);
}

/* Row k of the table into r: 0 the header, then the shown modules, then
 * the Total row; false past the end. *next is where to look for row k+1. */
static bool row_at(const tables *t, const nns_report_options *opt, size_t *i,
                   row *r) {
  static const char *const head[COLS] = {"Name",         "Class", "Input shape",
                                         "Output shape", "MACs",  "Params"};
  size_t n_all = t->n_end;
  if (*i == (size_t)-1) {
    for (int k = 0; k < COLS; k++)
      snprintf(r->cell[k], CELL, "%s", head[k]);
    *i = 0;
    return true;
  }
  if (!t->a) {
    if (*i > n_all)
      return false;
    nns_layers_row g = {0};
    if (*i < n_all)
      nns__get_sized(&g, t->rows + *i * t->stride, sizeof g,
                     NNS__V1_LAYERS_ROW);
    given_row(t, *i < n_all ? &g : t->total, *i == n_all, r);
    ++*i;
    return true;
  }
  for (; *i < n_all; ++*i) {
    nns_module_info d = {.size = sizeof d};
    if (nns_model_module(t->m, *i, &d) != NNS_OK || !d.class_name ||
        !d.path[0] || !d.call_count ||
        (!d.macs_given && (inside_given(t, d.path) || has_child(t, d.path))))
      continue;
    const by_path *hit = find(t->layers, t->n_layers, d.path);
    nns_counts c = {0};
    if (hit)
      c = nns__layer_counts_of(t->a, hit->i);
    nns__text_clean(r->cell[0], CELL, d.path);
    nns__text_clean(r->cell[1], CELL, d.class_name);
    fmt_dims(r->cell[2], CELL, d.input_shape, d.input_rank);
    fmt_dims(r->cell[3], CELL, d.output_shape, d.output_rank);
    fmt_counts(r, t, c.macs,
               nns__sum_sat(nns__sum_sat(c.params, c.frozen), c.buffers),
               false);
    ++*i;
    return true;
  }
  if (*i > n_all)
    return false;
  ++*i;
  /* The model's class: declared for path "", else the caller's name for
   * the root row, else the graph's. */
  const by_path *root = find(t->mods, t->n_mods, "");
  nns_module_info d = {.size = sizeof d, .input_rank = -1, .output_rank = -1};
  if (root)
    nns_model_module(t->m, root->i, &d);
  snprintf(r->cell[0], CELL, "Total");
  nns__text_clean(r->cell[1], CELL,
                  d.class_name   ? d.class_name
                  : opt->model_name ? opt->model_name
                                    : nns__info_of(t->m).graph_name);
  fmt_dims(r->cell[2], CELL, d.input_shape, d.input_rank);
  fmt_dims(r->cell[3], CELL, d.output_shape, d.output_rank);
  fmt_counts(r, t, t->total_macs, t->total_params, true);
  return true;
}

static nns_status tables_make(tables *t, const nns_analysis *a,
                              const nns_report_options *opt) {
  memset(t, 0, sizeof *t);
  t->a = a;
  t->m = nns_analysis_model(a);
  nns_counts all = nns__total_counts_of(a);
  t->total_macs = all.macs;
  t->total_params =
      nns__sum_sat(nns__sum_sat(all.params, all.frozen), all.buffers);
  t->n_end = nns_model_module_count(t->m);
  t->mode = opt->numbers;
  t->clever = NNS_COUNT_STYLE_THOP;
  size_t nl = nns_analysis_layer_count(a), nm = nns_model_module_count(t->m);
  t->layers = malloc((nl ? nl : 1) * sizeof *t->layers);
  t->mods = malloc((nm ? nm : 1) * sizeof *t->mods);
  t->given = malloc((nm ? nm : 1) * sizeof *t->given);
  if (!t->layers || !t->mods || !t->given)
    return NNS_E_NOMEM;
  for (size_t i = 0; i < nl; i++)
    t->layers[t->n_layers++] = (by_path){nns__layer_of(a, i).path, i};
  for (size_t i = 0; i < nm; i++) {
    nns_module_info d = {.size = sizeof d};
    if (nns_model_module(t->m, i, &d) != NNS_OK)
      continue;
    if (d.class_name)
      t->mods[t->n_mods++] = (by_path){d.path, i};
    if (d.macs_given && d.path[0])
      t->given[t->n_given++] = (by_path){d.path, i};
  }
  qsort(t->layers, t->n_layers, sizeof *t->layers, cmp_path);
  qsort(t->mods, t->n_mods, sizeof *t->mods, cmp_path);
  qsort(t->given, t->n_given, sizeof *t->given, cmp_path);
  return NNS_OK;
}

static void tables_free(tables *t) {
  free(t->layers);
  free(t->mods);
  free(t->given);
}

/* Two passes over the rows, one to measure the columns and one to write
 * them, so that no row is kept. */
static nns_status write_rows(nns__out *out, const tables *t,
                             const nns_report_options *opt, row *r) {
  size_t i = (size_t)-1;
  if (opt->format == NNS_FORMAT_LAYERS_JSON)
    return put_json(out, t, opt, r);
  if (opt->format == NNS_FORMAT_LAYERS_CSV) {
    while (row_at(t, opt, &i, r))
      for (int k = 0; k < COLS; k++) {
        put_csv_cell(out, r->cell[k]);
        nns__out_str(out, k + 1 < COLS ? "," : "\n");
      }
    return NNS_OK;
  }
  int w[COLS] = {0};
  size_t n = 0;
  bool md = opt->format == NNS_FORMAT_LAYERS_MD;
  while (row_at(t, opt, &i, r) && ++n)
    for (int k = 0; k < COLS; k++) {
      int x = cell_width(r->cell[k], md);
      w[k] = x > w[k] ? x : w[k];
    }
  i = (size_t)-1;
  for (size_t k = 0; row_at(t, opt, &i, r); k++) {
    if (k == n - 1 && !md)
      put_rule(out, w, '+');
    put_line(out, r, w, md);
    if (k == 0)
      put_rule(out, w, md ? '|' : '+');
  }
  return NNS_OK;
}

nns_status nns__report_layers_table(const nns_analysis *a,
                                    const nns_report_options *opt,
                                    nns__out *out) {
  tables t;
  row *r = malloc(sizeof *r);
  nns_status st = r ? tables_make(&t, a, opt) : NNS_E_NOMEM;
  if (st == NNS_OK)
    st = write_rows(out, &t, opt, r);
  if (r)
    tables_free(&t);
  free(r);
  return st;
}

/* ==== A caller's rows ==== */

/* Copies caller row `given` into g (its fields up to its size) and checks
 * it: NNS_E_ARG with a message naming `which` ("row 3", "the Total row")
 * and what is wrong, else NNS_OK. Row 0's size is the rows' stride, so a
 * row 0 too small stops the walk before row 1 is read. */
static nns_status row_check(const nns_layers_row *given, nns_layers_row *g,
                            const char *which, nns_error *err) {
  static const char fn[] = "nns_report_layers";
  if (given->size < NNS__V1_LAYERS_ROW ||
      nns__get_sized(g, given, sizeof *g, NNS__V1_LAYERS_ROW) != NNS_OK)
    return nns__err(err, NNS_E_ARG, -1, NULL,
                    "%s: %s: size %zu is below the first version's (%zu)", fn,
                    which, given->size, (size_t)NNS__V1_LAYERS_ROW);
  if (g->input_rank < -1 || g->output_rank < -1)
    return nns__err(err, NNS_E_ARG, -1, NULL,
                    "%s: %s: rank %d is below -1 (none recorded)", fn, which,
                    g->input_rank < -1 ? g->input_rank : g->output_rank);
  if ((g->input_rank > 0 && !g->input_shape) ||
      (g->output_rank > 0 && !g->output_shape))
    return nns__err(err, NNS_E_ARG, -1, NULL,
                    "%s: %s: %s rank %d without its dims", fn, which,
                    g->input_rank > 0 && !g->input_shape ? "input" : "output",
                    g->input_rank > 0 && !g->input_shape ? g->input_rank
                                                         : g->output_rank);
  return NNS_OK;
}

nns_status nns_report_layers(const nns_layers_row *rows, size_t count,
                             const nns_layers_row *total,
                             nns_count_style clever,
                             const nns_report_options *opts,
                             nns_write_fn write, void *user, nns_error *err) {
  static const char fn[] = "nns_report_layers";
  nns_report_options o = {.size = sizeof o, .format = NNS_FORMAT_LAYERS_TEXT};
  if (!write || !total || (count && !rows))
    return nns__err(err, NNS_E_ARG, -1, NULL, "%s: %s is NULL", fn,
                    !write ? "write" : !total ? "total" : "rows (count > 0)");
  if (opts && nns__report_options(&o, opts) != NNS_OK)
    return nns__err(err, NNS_E_ARG, -1, NULL,
                    "%s: opts: size %zu is below the first version's", fn,
                    opts->size);
  if (o.format < NNS_FORMAT_LAYERS_TEXT || o.format > NNS_FORMAT_LAYERS_JSON)
    return nns__err(err, NNS_E_ARG, -1, NULL,
                    "%s: format %d is not a layers format (layers_text, "
                    "_csv, _md or _json)", fn, (int)o.format);
  if (!nns_numbers_name((int)o.numbers))
    return nns__err(err, NNS_E_ARG, -1, NULL,
                    "%s: numbers %d is not raw, clever or ratio", fn,
                    (int)o.numbers);
  if (!nns_count_style_name((int)clever))
    return nns__err(err, NNS_E_ARG, -1, NULL,
                    "%s: count style %d is neither thop nor thoplw", fn,
                    (int)clever);
  nns_layers_row tot = {0};
  nns_status st = row_check(total, &tot, "the Total row", err);
  if (st)
    return st;
  size_t stride = count ? rows->size : 0;
  for (size_t i = 0; i < count; i++) {
    const nns_layers_row *g =
        (const nns_layers_row *)((const char *)rows + i * stride);
    nns_layers_row c = {0};
    char which[32];
    snprintf(which, sizeof which, "row %zu", i);
    if ((st = row_check(g, &c, which, err)))
      return st;
  }
  tables t = {.rows = (const char *)rows,
              .stride = stride,
              .total = &tot,
              .n_end = count,
              .total_macs = tot.macs,
              .total_params = tot.params,
              .mode = o.numbers,
              .clever = clever};
  nns__out *out = malloc(sizeof *out);
  row *r = malloc(sizeof *r);
  st = out && r ? NNS_OK : NNS_E_NOMEM;
  if (st == NNS_OK) {
    nns__out_init(out, write, user);
    st = write_rows(out, &t, &o, r);
  }
  if (st == NNS_OK)
    st = nns__out_finish(out, err);
  else
    st = nns__report_err(err, st, "out of memory");
  free(out);
  free(r);
  return st;
}
