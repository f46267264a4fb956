/*
 * inspect_table.c - nns_inspection_report() and _report_seed(): the
 * inspection's module tree as a text table (summary's layout: ├─ guides,
 * columns fitted to the width), CSV and Markdown, with calls, latency per
 * pass (inclusive and self), memory per pass and NaN/Inf columns; JSON is
 * in inspect_json.c, and so is the HTML page (NNS_FORMAT_HTML) around it.
 *
 * The cells, guides, CSV quoting and Markdown escaping are the helpers of
 * format.c that the summary table uses too.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report_int.h"

nns_status nns__inspect_json(const nns_inspection *in,
                             const nns_report_options *opt, nns__out *o);
nns_status nns__inspect_seed(const nns_inspection *in,
                             const nns_report_options *opt, nns__out *o);
nns_status nns__inspect_html(const nns_inspection *in,
                             const nns_report_options *opt, nns__out *o);

/* Paths longer than this are cut to their end ("…" first) in CSV and
 * Markdown: a 100k-deep chain would otherwise repeat every prefix, and
 * the output grow with the square of the depth. The index and parent
 * columns still say exactly where a row sits. */
enum { PATH_CELL_MAX = 200 };

void nns__inspect_path_cell(char *buf, size_t size, const char *path,
                            size_t len);

enum { K_LAYER, K_TYPE, K_CALLS, K_SHAPE, K_FWD, K_FWD_SELF, K_BWD,
       K_BWD_SELF, K_FWD_MEM, K_SAVED, K_BWD_MEM, K_FLOPS, K_MACS, K_RATE,
       K_ROOF, K_ROOF_PCT, K_SLOW, K_NAN, K_COUNT };

/* drop: in the text table, columns that give way to fit the width, in
 * this order (0: never; the footer names those that gave way, see
 * fit_columns); statics: shown only when a static count is known (CSV
 * always has them). */
static const struct {
  const char *title, *csv;
  bool numeric, statics;
  int drop;
} kcols[K_COUNT] = {
    [K_LAYER] = {"Layer", "name", false, false, 0},
    [K_TYPE] = {"Type", "type", false, false, 0},
    [K_CALLS] = {"Calls", "calls", true, false, 4},
    [K_SHAPE] = {"Output Shape", "output_shape", false, false, 8},
    [K_FWD] = {"Fwd time", "forward_ms", true, false, 0},
    [K_FWD_SELF] = {"Fwd self", "forward_self_ms", true, false, 1},
    [K_BWD] = {"Bwd time", "backward_ms", true, false, 0},
    [K_BWD_SELF] = {"Bwd self", "backward_self_ms", true, false, 2},
    [K_FWD_MEM] = {"Fwd mem", "forward_alloc_bytes", true, false, 9},
    /* shown only with a prediction (nns_inspect_module.saved_bytes): asked
     * for, so the last to give way */
    [K_SAVED] = {"Saved (pred.)", "predicted_saved_bytes", true, false, 12},
    [K_BWD_MEM] = {"Bwd mem", "backward_alloc_bytes", true, false, 5},
    [K_FLOPS] = {"FLOPs", "flops", true, true, 0}, /* static */
    [K_MACS] = {"MACs", "macs", true, true, 3},
    [K_RATE] = {"FLOP/s", "flops_per_s", true, true, 6},
    /* Shown only when a module has a roofline time (inspect_roofline.c). */
    [K_ROOF] = {"Roof", "roofline_ms", true, true, 10},
    [K_ROOF_PCT] = {"% roof", "roof_fraction", true, true, 11},
    /* Shown only when several ranks ran: the rank slowest in the
     * module's forward / in its backward ("1/0"; one number when they
     * are the same rank). */
    [K_SLOW] = {"Slowest rank", "slowest_rank", false, false, 7},
    [K_NAN] = {"NaN/Inf", "nonfinite", false, false, 0},
};

/* The text table's layout: each column's width, whether it is shown and
 * whether its title takes two lines ("Saved" over "(pred.)"). */
typedef struct layout {
  int w[K_COUNT];
  bool shown[K_COUNT], two[K_COUNT];
  int total; /* the table's width */
  int all;   /* the width that shows every column */
} layout;

/* "(1, 64, 56, 56)" for the first output of the module's first call, with
 * "+2" when it returned more; "-" when it never ran. */
static void shape_cell(char *buf, size_t size, const nns_inspection *in,
                       const nns_inspect_module_info *d) {
  size_t i = d->first_call;
  snprintf(buf, size, "-");
  /* The first call that returned a tensor (one that raised did not). */
  nns_inspect_call_info c = {.size = sizeof c};
  while (i != (size_t)-1) {
    c = nns__icall_of(in, i);
    bool has = false;
    for (size_t k = 0; k < c.tensor_count && !has; k++)
      has = nns__itensor_of(in, i, k).role == NNS_TENSOR_OUTPUT;
    if (has)
      break;
    i = c.next_same;
  }
  if (i == (size_t)-1)
    return;
  size_t outputs = 0, n = 0;
  for (size_t k = 0; k < c.tensor_count; k++) {
    nns_inspect_tensor_info t = nns__itensor_of(in, i, k);
    if (t.role != NNS_TENSOR_OUTPUT || outputs++)
      continue;
    n = (size_t)snprintf(buf, size, "(");
    for (int axis = 0; axis < t.rank && n < size; axis++)
      n += (size_t)snprintf(buf + n, size - n, "%s%lld", axis ? ", " : "",
                            (long long)t.dims[axis]);
    if (n < size)
      n += (size_t)snprintf(buf + n, size - n, ")");
  }
  if (outputs > 1 && n < size)
    snprintf(buf + n, size - n, " +%zu", outputs - 1);
}

/* path, cleaned (nns__text_clean: no control bytes, no invalid UTF-8),
 * or its last PATH_CELL_MAX bytes after a "…" when longer. */
void nns__inspect_path_cell(char *buf, size_t size, const char *path,
                            size_t len) {
  if (len <= PATH_CELL_MAX) {
    nns__text_clean(buf, size, path);
    return;
  }
  const char *tail = path + len - PATH_CELL_MAX;
  while (((unsigned char)*tail & 0xc0) == 0x80) /* to a character start */
    tail++;
  size_t n = (size_t)snprintf(buf, size, "\xe2\x80\xa6");
  if (n < size)
    nns__text_clean(buf + n, size - n, tail);
}

/* A time per pass on a human scale ("135 ms", "68.0 us", "412 ns", as
 * the other tables print times); raw: milliseconds to 3 places, with the
 * unit; CSV: milliseconds to 3 places, bare; "-" when it never ran, "0"
 * when it ran in no measurable time. */
static void ms_cell(char *buf, size_t size, const nns_inspection *in,
                    double total, bool ran, const nns_report_options *o,
                    bool csv) {
  double ms = nns__inspect_per_pass(in, total);
  if (!ran)
    snprintf(buf, size, "-");
  else if (csv)
    snprintf(buf, size, "%.3f", ms);
  else if (o->numbers == NNS_NUMBERS_RAW)
    snprintf(buf, size, "%.3f ms", ms);
  else if (!(ms > 0))
    snprintf(buf, size, "0");
  else
    nns__fmt_seconds(buf, size, ms / 1e3, false);
}

static void mem_cell(char *buf, size_t size, const nns_inspection *in,
                     int64_t total, int64_t root, const nns_report_options *o,
                     bool csv) {
  int64_t v = (int64_t)llround(nns__inspect_per_pass(in, (double)total));
  int64_t r = (int64_t)llround(nns__inspect_per_pass(in, (double)root));
  nns__fmt_number(buf, size, v, r, o->numbers, true, csv);
}

/* Static counts (one forward of the model); "-" when not known. */
static void static_cell(char *buf, size_t size, int64_t v, int64_t root,
                        const nns_report_options *o, bool csv) {
  if (v < 0)
    snprintf(buf, size, csv ? "" : "-");
  else
    nns__fmt_number(buf, size, v, root, o->numbers, false, csv);
}

/* Achieved FLOP/s: its static FLOPs (one forward of the model, which is
 * what a pass runs) over its forward time per pass. */
static void rate_cell(char *buf, size_t size, const nns_inspection *in,
                      const nns_inspect_module_info *d,
                      const nns_inspect_stats *s, bool csv) {
  double ms = nns__inspect_per_pass(in, s->fwd_inclusive_ms);
  if (d->flops < 0 || s->calls == 0 || !(ms > 0)) {
    snprintf(buf, size, csv ? "" : "-");
    return;
  }
  double rate = (double)d->flops / (ms / 1e3);
  if (csv) {
    snprintf(buf, size, "%.6g", rate);
    return;
  }
  nns__fmt_clever(buf, size, rate < 9e18 ? (int64_t)rate : INT64_MAX, false);
  size_t n = strlen(buf);
  snprintf(buf + n, size - n, "/s");
}

static void nan_cell(char *buf, size_t size, const nns_inspect_stats *s) {
  buf[0] = 0;
  size_t n = 0;
  if (s->fwd_role)
    n += (size_t)snprintf(buf, size, "fwd %s",
                          nns_nonfinite_role_name(s->fwd_role));
  if (s->bwd_role && n < size)
    snprintf(buf + n, size - n, "%sbwd %s", n ? ", " : "",
             nns_nonfinite_role_name(s->bwd_role));
  if (!buf[0])
    snprintf(buf, size, "-");
}

/* A row of the table: its module and the module's row. */
typedef struct table_row {
  size_t module;
  nns_inspect_module_info d;
} table_row;

/* The root's figures, which ratios are taken of. */
typedef struct root_facts {
  nns_inspect_module_info d;
  nns_inspect_stats s;
} root_facts;

static void cell(char *buf, size_t size, const nns_inspection *in,
                 const table_row *row, const nns_inspect_stats *s,
                 const root_facts *root, int k, const nns_report_options *o,
                 bool csv) {
  const nns_inspect_module_info *d = &row->d;
  bool ran = s->calls > 0, back = s->backward_calls > 0;
  switch (k) {
  case K_LAYER:
    nns__text_clean(buf, size,
                    row->module == 0
                        ? (o->model_name && *o->model_name ? o->model_name
                                                           : d->type)
                        : d->name);
    break;
  case K_TYPE: nns__text_clean(buf, size, d->type); break;
  case K_CALLS: snprintf(buf, size, "%lld", (long long)s->calls); break;
  case K_SHAPE: shape_cell(buf, size, in, d); break;
  case K_FWD: ms_cell(buf, size, in, s->fwd_inclusive_ms, ran, o, csv); break;
  case K_FWD_SELF: ms_cell(buf, size, in, s->fwd_self_ms, ran, o, csv); break;
  case K_BWD: ms_cell(buf, size, in, s->bwd_inclusive_ms, back, o, csv); break;
  case K_BWD_SELF: ms_cell(buf, size, in, s->bwd_self_ms, back, o, csv); break;
  case K_FWD_MEM:
    mem_cell(buf, size, in, s->fwd_alloc_bytes, root->s.fwd_alloc_bytes, o,
             csv);
    break;
  case K_SAVED: /* bytes, as Fwd mem beside it */
    if (d->saved_bytes < 0)
      snprintf(buf, size, csv ? "" : "-");
    else
      nns__fmt_number(buf, size, d->saved_bytes, root->d.saved_bytes,
                      o->numbers, true, csv);
    break;
  case K_BWD_MEM:
    mem_cell(buf, size, in, s->bwd_alloc_bytes, root->s.bwd_alloc_bytes, o,
             csv);
    break;
  case K_FLOPS: static_cell(buf, size, d->flops, root->d.flops, o, csv); break;
  case K_MACS: static_cell(buf, size, d->macs, root->d.macs, o, csv); break;
  case K_RATE: rate_cell(buf, size, in, d, s, csv); break;
  case K_ROOF:
    /* CSV keeps milliseconds in full; the table a human scale ("19.7 ns"). */
    if (d->roofline_ms > 0 && csv)
      snprintf(buf, size, "%.9g", d->roofline_ms);
    else if (d->roofline_ms > 0)
      nns__fmt_seconds(buf, size, d->roofline_ms / 1e3, false);
    else
      snprintf(buf, size, csv ? "" : "-");
    break;
  case K_ROOF_PCT: {
    double f = nns__inspect_roof_fraction(in, d, s);
    if (f < 0)
      snprintf(buf, size, csv ? "" : "-");
    else if (csv)
      snprintf(buf, size, "%.6g", f);
    else
      nns__inspect_pct(buf, size, f);
    break;
  }
  case K_SLOW:
    if (s->rank_fwd_slowest < 0)
      snprintf(buf, size, "-");
    else if (s->rank_bwd_slowest < 0 ||
             s->rank_bwd_slowest == s->rank_fwd_slowest)
      snprintf(buf, size, "%d", s->rank_fwd_slowest);
    else
      snprintf(buf, size, "%d/%d", s->rank_fwd_slowest, s->rank_bwd_slowest);
    break;
  default: nan_cell(buf, size, s); break;
  }
}

static void text_rule(nns__out *o, const char *ch, int w) {
  nns__out_rep(o, ch, w);
  nns__out_str(o, "\n");
}

/* The columns the width left out, named, and the width that shows them:
 * a column never goes silently. */
static void write_hidden(nns__out *o, const bool *show, const layout *l) {
  const bool *shown = l->shown;
  int hidden = 0;
  for (int k = 0; k < K_COUNT; k++)
    hidden += show[k] && !shown[k];
  if (!hidden)
    return;
  nns__out_fmt(o, "%d column%s hidden (", hidden, hidden == 1 ? "" : "s");
  for (int k = 0, n = 0; k < K_COUNT; k++)
    if (show[k] && !shown[k])
      nns__out_fmt(o, "%s%s", n++ ? ", " : "", kcols[k].title);
  nns__out_fmt(o, "): width=%d shows %s.\n", l->all,
               hidden == 1 ? "it" : "them");
}

/* text, its lines wrapped at spaces to `width` columns (a word longer
 * than that stays whole), the lines after the first of each indented 2:
 * the footer reads in the terminal the table was fitted to. */
static void put_wrapped(nns__out *o, const char *text, size_t len,
                        int width) {
  const char *p = text, *end = text + len;
  while (p < end) {
    const char *nl = memchr(p, '\n', (size_t)(end - p));
    const char *line_end = nl ? nl : end;
    int col = 0, indent = 0;
    while (p < line_end) {
      const char *sp = memchr(p, ' ', (size_t)(line_end - p));
      const char *w_end = sp ? sp : line_end;
      char word[1024];
      size_t n = (size_t)(w_end - p);
      int ww = (int)n; /* a longer word is on a line of its own anyway */
      if (n < sizeof word) {
        memcpy(word, p, n);
        word[n] = 0;
        ww = nns__utf8_width(word);
      }
      if (col > indent && col + 1 + ww > width) {
        nns__out_str(o, "\n  ");
        col = indent = 2;
      } else if (col > indent) {
        nns__out_str(o, " ");
        col++;
      }
      nns__out_put(o, p, n);
      col += ww;
      p = sp ? sp + 1 : line_end;
    }
    nns__out_str(o, "\n");
    p = line_end + (nl ? 1 : 0);
  }
}

static void footer_body(nns__out *o, const nns_inspection *in,
                        const bool *show, const layout *l,
                        const nns_report_options *opt) {
  char path[PATH_CELL_MAX * 2], type[256];
  int ranks = nns__inspect_ranks(in);
  nns__out_fmt(o, "Passes: %zu on %d rank%s; %zu module calls.\nTimes and "
                  "memory are per pass (inclusive: the module and all it "
                  "calls).\n",
               nns_inspection_batch_count(in), ranks, ranks == 1 ? "" : "s",
               nns_inspection_call_count(in));
  write_hidden(o, show, l);
  nns__inspect_ranks_text(o, in, opt);
  nns__inspect_roofline_footer(o, in);
  static const char *phase[2] = {"forward", "backward"};
  for (int b = 0; b < 2; b++) {
    nns_inspect_offender f = {.size = sizeof f};
    if (nns_inspection_first_nonfinite(in, b, &f, NULL) != NNS_OK ||
        !f.found)
      continue;
    nns_inspect_module_info d = nns__imodule_of(in, f.module);
    nns__inspect_path_cell(path, sizeof path, d.path, d.path_len);
    nns__text_clean(type, sizeof type, d.type);
    nns__out_fmt(o, "First NaN/Inf in the %s: %s (%s, rank %d, pass %lld, "
                    "%s).\n",
                 phase[b], *path ? path : "the model", type, f.rank,
                 (long long)f.pass,
                 f.role == NNS_NONFINITE_PRODUCER ? "produced it"
                                                  : "passed it on");
  }
}

/* Between two rules: passes, the columns the width hid, the roofline and
 * the first NaN/Inf, wrapped to `width`. */
static void write_footer(nns__out *o, const nns_inspection *in, int rule,
                         int width, const bool *show, const layout *l,
                         const nns_report_options *opt) {
  text_rule(o, "=", rule);
  nns__membuf mb = {0};
  nns__out *tmp = malloc(sizeof *tmp);
  if (!tmp) { /* out of memory: as it comes, unwrapped */
    footer_body(o, in, show, l, opt);
  } else {
    nns__out_init(tmp, nns__membuf_write, &mb);
    footer_body(tmp, in, show, l, opt);
    if (nns__out_finish(tmp, NULL) == NNS_OK && mb.data)
      put_wrapped(o, mb.data, mb.len, width);
    else
      footer_body(o, in, show, l, opt);
    free(tmp);
    free(mb.data);
  }
  text_rule(o, "=", rule);
}

/* A title's width on two lines, split at its first space (its width on
 * one where it has none). */
static int title_two_w(const char *t) {
  const char *sp = strchr(t, ' ');
  if (!sp)
    return nns__utf8_width(t);
  char first[64];
  snprintf(first, sizeof first, "%.*s", (int)(sp - t), t);
  int a = nns__utf8_width(first), b = nns__utf8_width(sp + 1);
  return a > b ? a : b;
}

static void drop_level(layout *l, int level, int width, int gap) {
  for (int k = 0; k < K_COUNT && l->total > width; k++)
    if (l->shown[k] && kcols[k].drop == level) {
      l->shown[k] = false;
      l->total -= l->w[k] + gap;
    }
}

static void cut_to(layout *l, int k, int floor_w, int width) {
  int cut = l->total - width, room = l->w[k] - floor_w;
  cut = cut > room ? room : cut;
  if (cut > 0) {
    l->w[k] -= cut;
    l->total -= cut;
  }
}

/* Fits the columns (cells' widths cw, titles aside; those in l->shown) to
 * `width` as torchinfo or rich would. The names keep their room (Layer up
 * to 40 columns, Type up to 20); titles wider than their cells take two
 * lines; then whole columns give way in their `drop` order - those nobody
 * asked for (1-9), Type cut to 11, the roofline's (10, 11), Layer cut to
 * `layer_floor`, and last "Saved (pred.)" (12); room left over goes back
 * to the names. The footer names every column that gave way. */
static void fit_columns(layout *l, const int *cw, int width, int layer_floor,
                        int gap) {
  static const int names[2] = {K_LAYER, K_TYPE};
  int nat[K_COUNT];
  l->total = 0;
  for (int k = 0; k < K_COUNT; k++) {
    int tw = nns__utf8_width(kcols[k].title);
    nat[k] = l->w[k] = cw[k] > tw ? cw[k] : tw;
    l->two[k] = false;
  }
  int cap[2] = {layer_floor > 40 ? layer_floor : 40, 20};
  for (int j = 0; j < 2; j++)
    if (l->w[names[j]] > cap[j])
      l->w[names[j]] = cap[j];
  for (int k = 0; k < K_COUNT; k++)
    l->total += l->shown[k] ? l->w[k] + (k ? gap : 0) : 0;
  for (int k = 0; k < K_COUNT && l->total > width; k++) {
    int two = title_two_w(kcols[k].title);
    two = cw[k] > two ? cw[k] : two;
    if (l->shown[k] && k != K_LAYER && two < l->w[k]) {
      l->total -= l->w[k] - two;
      l->w[k] = two;
      l->two[k] = true;
    }
  }
  l->all = l->total;
  for (int level = 1; level <= 9; level++)
    drop_level(l, level, width, gap);
  cut_to(l, K_TYPE, 11, width);
  drop_level(l, 10, width, gap);
  drop_level(l, 11, width, gap);
  cut_to(l, K_LAYER, layer_floor, width);
  drop_level(l, 12, width, gap);
  for (int j = 0; j < 2 && l->total < width; j++) {
    int more = nat[names[j]] - l->w[names[j]], room = width - l->total;
    more = more > room ? room : more;
    if (more > 0) {
      l->w[names[j]] += more;
      l->total += more;
    }
  }
  /* A title cut to two lines that now has room for one again. */
  for (int k = 0; k < K_COUNT; k++)
    if (l->shown[k] && l->two[k]) {
      int more = nat[k] - l->w[k];
      if (more <= width - l->total) {
        l->w[k] += more;
        l->total += more;
        l->two[k] = false;
      }
    }
}

/* Line `line` (0, 1) of a column's title: the whole title on line 0 when
 * it is on one line. */
static void title_line(char *buf, size_t size, int k, bool two, int line) {
  const char *t = kcols[k].title, *sp = two ? strchr(t, ' ') : NULL;
  if (!sp)
    snprintf(buf, size, "%s", line ? "" : t);
  else if (line)
    snprintf(buf, size, "%s", sp + 1);
  else
    snprintf(buf, size, "%.*s", (int)(sp - t), t);
}

static nns_status write_tables(const nns_inspection *in,
                               const nns_report_options *opt, nns__out *o) {
  size_t modules = nns_inspection_module_count(in);
  table_row *rows = malloc((modules + 1) * sizeof *rows);
  root_facts root;
  size_t *parent = malloc((modules + 1) * sizeof *parent);
  size_t *last = malloc((modules + 1) * sizeof *last);
  char **cells = NULL, **prefix = NULL;
  nns_status st = NNS_E_NOMEM;
  if (!rows || !parent || !last)
    goto done;
  /* One walk over the modules: the rows at or above the depth shown, in
   * preorder (the order added, which is parents first; preorder is what
   * the binding registers), each module's parent and last child for the
   * tree guides, and whether any static count, prediction or roofline
   * time is known. */
  int max_depth = nns__report_depth(opt);
  bool statics = false, predicted = false, roof = false;
  size_t nrows = 0;
  for (size_t m = 0; m < modules; m++) {
    nns_inspect_module_info d = nns__imodule_of(in, m);
    parent[m] = d.parent;
    last[m] = (size_t)-1;
    if (parent[m] != (size_t)-1)
      last[parent[m]] = m;
    statics = statics || d.flops >= 0 || d.macs >= 0;
    predicted = predicted || d.saved_bytes >= 0;
    roof = roof || d.roofline_ms > 0; /* nns__inspect_has_roofline */
    if (d.depth <= max_depth)
      rows[nrows++] = (table_row){.module = m, .d = d};
  }
  root.d = nns__imodule_of(in, 0);
  if (!nns__istats_of(in, 0, &root.s))
    goto done;
  cells = calloc(nrows * K_COUNT + 1, sizeof *cells);
  prefix = calloc(nrows + 1, sizeof *prefix);
  if (!cells || !prefix)
    goto done;
  bool csv = opt->format == NNS_FORMAT_CSV;
  char buf[512], path[PATH_CELL_MAX * 2];
  for (size_t r = 0; r < nrows; r++) {
    nns_inspect_stats s;
    if (!nns__istats_of(in, rows[r].module, &s))
      goto done;
    for (int k = 0; k < K_COUNT; k++) {
      cell(buf, sizeof buf, in, &rows[r], &s, &root, k, opt, csv);
      if (!(cells[r * K_COUNT + (size_t)k] = strdup(buf)))
        goto done;
    }
  }
  for (size_t r = 0; r < nrows; r++)
    if (!(prefix[r] = nns__tree_prefix(parent, last, rows[r].d.depth,
                                       rows[r].module)))
      goto done;
  st = NNS_OK;
  int ranks = nns__inspect_ranks(in);
  /* Static columns where a static count is known (CSV: always). */
  bool show[K_COUNT];
  for (int k = 0; k < K_COUNT; k++)
    show[k] = k == K_SAVED  ? predicted
              : k == K_SLOW ? ranks > 1
                            : (csv || statics || !kcols[k].statics) &&
                                  (roof || (k != K_ROOF && k != K_ROOF_PCT));
  if (csv) {
    nns__out_str(o, "path,depth");
    for (int k = 0; k < K_COUNT; k++) {
      if (!show[k])
        continue;
      nns__out_str(o, ",");
      nns__out_str(o, kcols[k].csv);
    }
    nns__out_str(o, ",index,parent\n");
    for (size_t r = 0; r < nrows; r++) {
      const nns_inspect_module_info *d = &rows[r].d;
      nns__inspect_path_cell(path, sizeof path, d->path, d->path_len);
      nns__csv_field(o, path);
      nns__out_fmt(o, ",%d", d->depth);
      for (int k = 0; k < K_COUNT; k++) {
        if (!show[k])
          continue;
        nns__out_str(o, ",");
        nns__csv_field(o, cells[r * K_COUNT + (size_t)k]);
      }
      nns__out_fmt(o, ",%zu,", rows[r].module);
      if (d->parent != (size_t)-1)
        nns__out_fmt(o, "%zu", d->parent);
      nns__out_str(o, "\n");
    }
  } else if (opt->format == NNS_FORMAT_MD) {
    nns__out_str(o, "|");
    for (int k = 0; k < K_COUNT; k++)
      if (show[k])
        nns__md_cell(o, kcols[k].title);
    nns__out_str(o, "\n|");
    for (int k = 0; k < K_COUNT; k++)
      if (show[k])
        nns__out_str(o, kcols[k].numeric ? "---:|" : "---|");
    nns__out_str(o, "\n");
    for (size_t r = 0; r < nrows; r++) {
      nns__out_str(o, "|");
      for (int k = 0; k < K_COUNT; k++) {
        if (!show[k])
          continue;
        const char *s = cells[r * K_COUNT + (size_t)k];
        /* Markdown drops leading spaces: the path shows the tree. */
        if (k == K_LAYER && rows[r].module != 0) {
          const nns_inspect_module_info *d = &rows[r].d;
          nns__inspect_path_cell(path, sizeof path, d->path, d->path_len);
          s = path;
        }
        nns__md_cell(o, s);
      }
      nns__out_str(o, "\n");
    }
  } else {
    int cw[K_COUNT]; /* the cells' widths, titles aside */
    const int gap = 2;
    for (int k = 0; k < K_COUNT; k++) {
      cw[k] = 0;
      for (size_t r = 0; show[k] && r < nrows; r++) {
        int c = nns__utf8_width(cells[r * K_COUNT + (size_t)k]) +
                (k == K_LAYER ? nns__utf8_width(prefix[r]) : 0);
        cw[k] = c > cw[k] ? c : cw[k];
      }
    }
    int width = opt->width > 0 ? opt->width : 100;
    /* Layer gives way only down to what keeps every row's guides whole
     * beside the first characters of its name (at most the width: a
     * chain deeper than the page cuts its guides). */
    int layer_floor = 15;
    for (size_t r = 0; r < nrows; r++) {
      int sw = nns__utf8_width(cells[r * K_COUNT + K_LAYER]);
      int need = nns__utf8_width(prefix[r]) + (sw < 4 ? sw : 4);
      need = need > width ? width : need;
      layer_floor = need > layer_floor ? need : layer_floor;
    }
    layout l;
    memcpy(l.shown, show, sizeof l.shown);
    fit_columns(&l, cw, width, layer_floor, gap);
    const int *w = l.w;
    int rule = l.total < 40 ? 40 : l.total;
    bool two = false;
    for (int k = 0; k < K_COUNT; k++)
      two = two || (l.shown[k] && l.two[k]);
    text_rule(o, "_", rule);
    for (int line = 0; line < (two ? 2 : 1); line++) {
      for (int k = 0; k < K_COUNT; k++) {
        if (!l.shown[k])
          continue;
        char t[64];
        title_line(t, sizeof t, k, l.two[k], line);
        nns__out_rep(o, " ", k ? gap : 0);
        nns__put_fit(o, t, w[k], kcols[k].numeric, NNS_WRAP_END);
      }
      nns__out_str(o, "\n");
    }
    text_rule(o, "=", rule);
    for (size_t r = 0; r < nrows; r++) {
      for (int k = 0; k < K_COUNT; k++) {
        if (!l.shown[k])
          continue;
        const char *s = cells[r * K_COUNT + (size_t)k];
        nns__out_rep(o, " ", k ? gap : 0);
        if (k == K_LAYER) {
          int pw = nns__utf8_width(prefix[r]);
          int room = w[0] - pw;
          if (room < 4 && pw + nns__utf8_width(s) > w[0]) {
            nns__put_fit(o, prefix[r], w[0] - 4, false, NNS_WRAP_START);
            room = 4;
          } else {
            nns__out_str(o, prefix[r]);
          }
          nns__put_fit(o, s, room, false, opt->wrap);
        } else {
          nns__put_fit(o, s, w[k], kcols[k].numeric, NNS_WRAP_END);
        }
      }
      nns__out_str(o, "\n");
    }
    write_footer(o, in, rule, width, show, &l, opt);
  }
done:
  if (cells)
    for (size_t i = 0; i < modules * K_COUNT && cells[i]; i++)
      free(cells[i]);
  if (prefix)
    for (size_t i = 0; prefix[i]; i++)
      free(prefix[i]);
  free(cells);
  free(prefix);
  free(rows);
  free(parent);
  free(last);
  return st;
}

typedef nns_status (*render_fn)(const nns_inspection *,
                                const nns_report_options *, nns__out *);

static nns_status render(const nns_inspection *insp,
                         const nns_report_options *opts, nns_write_fn write,
                         void *user, nns_error *err, bool seed) {
  if (!insp || !write)
    return nns__report_err(err, NNS_E_ARG,
                           "nns_inspection_report: an inspection and a "
                           "write callback are needed");
  nns_report_options o = {0};
  if (opts && nns__report_options(&o, opts) != NNS_OK)
    return nns__report_err(err, NNS_E_ARG,
                           "nns_report_options.size is below the first "
                           "version's");
  if ((unsigned)o.format > NNS_FORMAT_HTML ||
      (unsigned)o.numbers > NNS_NUMBERS_RATIO ||
      (unsigned)o.wrap > NNS_WRAP_END || o.max_depth < NNS_DEPTH_ALL)
    return nns__report_err(err, NNS_E_ARG,
                           "nns_inspection_report: format, numbers, wrap or "
                           "max_depth out of range");
  if (nns_inspection_module_count(insp) == 0)
    return nns__report_err(err, NNS_E_STATE,
                           "nns_inspection_report: no module was added");
  nns__out *out = malloc(sizeof *out);
  if (!out)
    return nns__report_err(err, NNS_E_NOMEM, "out of memory");
  nns__out_init(out, write, user);
  render_fn fn = seed                            ? nns__inspect_seed
                 : o.format == NNS_FORMAT_JSON ? nns__inspect_json
                 : o.format == NNS_FORMAT_HTML ? nns__inspect_html
                                               : write_tables;
  nns_status st = fn(insp, &o, out);
  nns_status st2 = nns__out_finish(out, err);
  free(out);
  if (st)
    return nns__report_err(err, st, "out of memory");
  return st2;
}

nns_status nns_inspection_report(const nns_inspection *insp,
                                 const nns_report_options *opts,
                                 nns_write_fn write, void *user,
                                 nns_error *err) {
  return render(insp, opts, write, user, err, false);
}

nns_status nns_inspection_report_seed(const nns_inspection *insp,
                                      const nns_report_options *opts,
                                      nns_write_fn write, void *user,
                                      nns_error *err) {
  return render(insp, opts, write, user, err, true);
}
