/*
 * table.c - comparing models: nns_report_table() prints one row per model
 * (the README's model table; as HTML, a page with the table and the plot,
 * interactive), nns_report_plot() draws MACs against parameters as a
 * hand-written SVG scatter plot, with no dependency, its labels placed so
 * that none overlaps another or a point.
 *
 * Both take a table (nns_table) of rows copied from analysed models, so a
 * caller can analyse a hundred models one at a time and keep only a row for
 * each.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../base/base.h"
#include "report_int.h"

/* ==== The rows ==== */

typedef struct table_row {
  char *name;
  nns_counts all;
  nns_rf rf;
  /* The symbolic dims its counts took as 1 ("batch, height, width"), or
   * NULL when they depend on none. */
  char *assumed;
} table_row;

struct nns_table {
  table_row *rows;
  size_t count, cap;
};

nns_status nns_table_new(nns_table **out, nns_error *err) {
  if (!out)
    return nns__report_err(err, NNS_E_ARG, "nns_table_new: out is NULL");
  *out = calloc(1, sizeof **out);
  return *out ? NNS_OK : nns__report_err(err, NNS_E_NOMEM, "out of memory");
}

void nns_table_free(nns_table *t) {
  if (!t)
    return;
  for (size_t i = 0; i < t->count; i++) {
    free(t->rows[i].name);
    free(t->rows[i].assumed);
  }
  free(t->rows);
  free(t);
}

size_t nns_table_row_count(const nns_table *t) { return t ? t->count : 0; }

/* Appends r (its name copied). */
static nns_status push_row(nns_table *t, table_row r, const char *name,
                           nns_error *err) {
  table_row *rows = nns__grow(t->rows, &t->cap, t->count + 1, sizeof *rows, 8);
  if (!rows)
    return nns__report_err(err, NNS_E_NOMEM, "out of memory");
  t->rows = rows;
  size_t len = strlen(name);
  if (!(r.name = malloc(len + 1))) {
    free(r.assumed);
    return nns__report_err(err, NNS_E_NOMEM, "out of memory");
  }
  memcpy(r.name, name, len + 1);
  t->rows[t->count++] = r;
  return NNS_OK;
}

/* The symbols a model's counts took as 1, comma-separated (malloc'ed); a
 * model whose graph inputs have none but that still computed a symbolic
 * dim says so. */
static char *assumed_symbols(const nns_analysis *a) {
  const nns_model *m = nns_analysis_model(a);
  const char *seen[16];
  size_t n = nns__input_symbols(m, a, seen, 16), len = 1;
  for (size_t k = 0; k < n; k++)
    len += strlen(seen[k]) + 2;
  static const char computed[] = "dims the graph computes";
  char *s = malloc(n ? len : sizeof computed);
  if (!s)
    return NULL;
  if (!n) {
    memcpy(s, computed, sizeof computed);
    return s;
  }
  size_t at = 0;
  for (size_t k = 0; k < n; k++)
    at += (size_t)snprintf(s + at, len - at, "%s%s", k ? ", " : "",
                           seen[k]);
  return s;
}

nns_status nns_table_add(nns_table *t, const char *name,
                         const nns_analysis *a, nns_error *err) {
  if (!t || !name || !a)
    return nns__report_err(err, NNS_E_ARG,
                           "nns_table_add needs a table, a name and an "
                           "analysis");
  table_row r = {.all = {.size = sizeof r.all}, .rf = {.size = sizeof r.rf}};
  if (nns_analysis_total_counts(a, &r.all) != NNS_OK ||
      nns_analysis_total_rf(a, &r.rf) != NNS_OK)
    return nns__report_err(err, NNS_E_ARG, "nns_table_add: bad analysis");
  if ((r.all.flags & NNS_COUNT_SYMBOLIC) && !(r.assumed = assumed_symbols(a)))
    return nns__report_err(err, NNS_E_NOMEM, "out of memory");
  return push_row(t, r, name, err);
}

nns_status nns_table_add_row(nns_table *t, const char *name,
                             const nns_counts *counts, const nns_rf *rf,
                             nns_error *err) {
  if (!t || !name || !counts)
    return nns__report_err(err, NNS_E_ARG,
                           "nns_table_add_row needs a table, a name and "
                           "counts");
  table_row r;
  memset(&r, 0, sizeof r);
  if (nns__counts_in(&r.all, counts) != NNS_OK ||
      (rf && nns__rf_in(&r.rf, rf) != NNS_OK))
    return nns__report_err(err, NNS_E_ARG,
                           "nns_table_add_row: a struct size is below the "
                           "first version's");
  return push_row(t, r, name, err);
}

/* ==== Table ==== */

enum { T_MODEL, T_PARAMS, T_FLOPS, T_MACS, T_DMAS, T_RF, T_COLS };
static const char *t_title[T_COLS] = {"Model", "Params", "FLOPs",
                                      "MACs",  "DMAs",   "RF"};
static const char *t_csv[T_COLS] = {"model", "params", "flops",
                                    "macs",  "dmas",   "rf"};

/* The mark of a row whose counts took symbolic dims as 1, and its note. */
#define ASSUMED_MARK " *"

static int64_t t_value(const table_row *r, int c) {
  return c == T_PARAMS ? r->all.params
         : c == T_FLOPS ? r->all.flops
         : c == T_MACS  ? r->all.macs
                        : r->all.dmas;
}

/*
 * Each numeric column has its own unit (1, k, M, G, T: powers of 1000),
 * named in its title: the largest that keeps the column's largest value at
 * 1 or more, then smaller ones while that value stays below a million and
 * the smallest non-zero value would print as less than 0.01. A column of
 * CNNs reads "FLOPs (G)", one tiny model "FLOPs (k)", and no cell is
 * "0.00" or "7.8e-05".
 */
typedef struct t_unit {
  double scale;
  const char *prefix; /* "" for plain counts */
} t_unit;

static t_unit column_unit(const table_row *rows, size_t count, int c) {
  static const t_unit units[] = {
      {1, ""}, {1e3, "k"}, {1e6, "M"}, {1e9, "G"}, {1e12, "T"}};
  double mx = 0, mn = INFINITY;
  for (size_t i = 0; i < count; i++) {
    double v = (double)t_value(&rows[i], c);
    mx = v > mx ? v : mx;
    if (v > 0 && v < mn)
      mn = v;
  }
  int u = 4;
  while (u > 0 && mx < units[u].scale)
    u--;
  while (u > 0 && mn < INFINITY && mn / units[u].scale < 0.01 &&
         mx / units[u - 1].scale < 1e6)
    u--;
  return units[u];
}

/* The column's title with its unit: "FLOPs (G)"; plain counts "Params". */
static void t_title_of(char *buf, size_t size, int c, const t_unit *u) {
  if (c == T_MODEL || c == T_RF || !*u->prefix)
    snprintf(buf, size, "%s", t_title[c]);
  else
    snprintf(buf, size, "%s (%s)", t_title[c], u->prefix);
}

/* A cell: the name (marked when its counts took a symbol as 1), the count
 * in its column's unit with two decimals (plain counts whole; a value too
 * small for two decimals gets two significant digits, never an exponent),
 * or the receptive field. CSV cells are raw. */
static void t_cell(char *buf, size_t size, const table_row *r, int c,
                   const t_unit *u, bool csv) {
  bool partial = (r->all.flags & NNS_COUNT_PARTIAL) != 0;
  switch (c) {
  case T_MODEL: {
    size_t n = nns__text_clean(buf, size, r->name);
    if (!csv && r->assumed && n + sizeof ASSUMED_MARK <= size)
      memcpy(buf + n, ASSUMED_MARK, sizeof ASSUMED_MARK);
    return;
  }
  case T_RF:
    if (r->rf.axes > 0 || r->rf.whole)
      nns__fmt_rf(buf, size, &r->rf);
    else
      snprintf(buf, size, "-");
    return;
  case T_PARAMS:
    partial = false; /* parameters do not depend on cost rules */
    break;
  default:
    break;
  }
  int64_t v = t_value(r, c);
  const char *ge = partial ? "≥ " : "";
  double x = (double)v / u->scale;
  if (csv) {
    snprintf(buf, size, "%lld", (long long)v);
  } else if (u->scale == 1) {
    snprintf(buf, size, "%s%lld", ge, (long long)v);
  } else if (v > 0 && x < 1) {
    /* At least two significant digits: 0.11, 0.0069. */
    int dec = 1 - (int)floor(log10(x));
    dec = dec < 2 ? 2 : dec > 15 ? 15 : dec;
    snprintf(buf, size, "%s%.*f", ge, dec, x);
  } else {
    snprintf(buf, size, "%s%.2f", ge, x);
  }
}

/* Below the human table: what the marked rows assumed. */
static void t_notes(nns__out *o, const table_row *rows, size_t count,
                    bool md) {
  bool any = false;
  for (size_t i = 0; i < count; i++) {
    if (!rows[i].assumed)
      continue;
    nns__out_str(o, any ? "; " : md ? "\n\\* Symbolic dims taken as 1 "
                                      "(counts at that size): "
                                    : "\n* Symbolic dims taken as 1 (counts "
                                      "at that size): ");
    nns__note_text(o, rows[i].name, md);
    nns__out_str(o, ": ");
    nns__note_text(o, rows[i].assumed, md);
    any = true;
  }
  if (any)
    nns__out_str(o, ". Fix them with --input NAME=N (a dim's name or "
                    "an input's whole shape) or --batch N.\n");
}

/* ==== HTML: the table and the scatter, interactive ==== */

/* The page's document, "nnscan.table" (docs/html.md): one object per
 * model with its raw totals. */
static void table_json(nns__out *o, const table_row *rows, size_t count) {
  nns__jw jw, *w = &jw;
  nns__jw_init(w, o);
  nns__jw_obj(w, NNS__JV);
  nns__jw_str(w, NNS__JK("schema"), "nnscan.table");
  nns__jw_int(w, NNS__JK("schema_version"), 1);
  nns__jw_str(w, NNS__JK("nnscan_version"), nns_version());
  nns__jw_break(w, "\n ");
  nns__jw_arr_brk(w, NNS__JK("models"), "\n  ");
  for (size_t i = 0; i < count; i++) {
    const table_row *t = &rows[i];
    nns__jw_obj(w, NNS__JV);
    nns__jw_str(w, NNS__JK("name"), t->name ? t->name : "");
    nns__jw_int(w, NNS__JK("params"), t->all.params);
    nns__jw_int(w, NNS__JK("buffers"), t->all.buffers);
    nns__jw_int(w, NNS__JK("flops"), t->all.flops);
    nns__jw_int(w, NNS__JK("macs"), t->all.macs);
    nns__jw_int(w, NNS__JK("dmas"), t->all.dmas);
    nns__jw_bool(w, NNS__JK("complete"),
                 !(t->all.flags & (NNS_COUNT_PARTIAL | NNS_COUNT_UNBOUNDED)));
    /* The symbolic dims the counts took as 1 ("batch, height"), or null. */
    nns__jw_str(w, NNS__JK("symbols_at_1"), t->assumed);
    if (t->rf.whole) {
      nns__jw_null(w, NNS__JK("rf"));
      nns__jw_bool(w, NNS__JK("rf_global_context"), true);
      nns__jw_bool(w, NNS__JK("rf_whole"), true);
    } else if (t->rf.axes > 0 && t->rf.axes <= NNS_RF_MAX_AXES) {
      nns__jw_arr(w, NNS__JK("rf"));
      for (int a = 0; a < t->rf.axes; a++)
        nns__jw_int(w, NNS__JV, t->rf.field[a]);
      nns__jw_end(w, NULL);
      nns__jw_bool(w, NNS__JK("rf_global_context"), t->rf.global_context);
    } else {
      nns__jw_null(w, NNS__JK("rf"));
      nns__jw_bool(w, NNS__JK("rf_global_context"), false);
    }
    nns__jw_end(w, NULL);
  }
  nns__out_put(o, "\n", 1);
  nns__jw_end(w, NULL);
  nns__jw_end(w, NULL);
  nns__out_put(o, "\n", 1);
  nns__jw_finish(w);
}

static nns_status plot_rows(const table_row *rows, size_t count,
                            nns_write_fn write, void *user, nns_error *err);

static nns_status table_html(const table_row *rows, size_t count,
                             nns__out *o) {
  nns__membuf doc = {0}, plot = {0};
  nns__out *tmp = malloc(sizeof *tmp);
  if (!tmp)
    return NNS_E_NOMEM;
  nns__out_init(tmp, nns__membuf_write, &doc);
  table_json(tmp, rows, count);
  nns_status st = nns__out_finish(tmp, NULL) == NNS_OK ? NNS_OK : NNS_E_NOMEM;
  free(tmp);
  if (st == NNS_OK &&
      plot_rows(rows, count, nns__membuf_write, &plot, NULL) != NNS_OK)
    st = NNS_E_NOMEM;
  if (st == NNS_OK) {
    /* Inline SVG in HTML takes no XML declaration. */
    const char *svg = plot.data;
    if (!strncmp(svg, "<?xml", 5) && strchr(svg, '\n'))
      svg = strchr(svg, '\n') + 1;
    nns__html_doc d = {.kind = "nnscan.table", .title = "nnscan: model table",
                       .json = doc.data, .json_len = doc.len, .figure = svg,
                       .figure_len = plot.len - (size_t)(svg - plot.data)};
    st = nns__html_page(o, &d);
  }
  free(doc.data);
  free(plot.data);
  return st;
}

nns_status nns_report_table(const nns_table *table,
                            const nns_report_options *opts,
                            nns_write_fn write, void *user, nns_error *err) {
  nns_report_options ro = {.format = NNS_FORMAT_MD};
  if (opts && nns__report_options(&ro, opts) != NNS_OK)
    return nns__report_err(err, NNS_E_ARG,
                           "nns_report_options.size is below the first "
                           "version's");
  nns_report_format fmt = ro.format;
  if (!table || !write || fmt == NNS_FORMAT_JSON ||
      (unsigned)fmt > NNS_FORMAT_HTML)
    return nns__report_err(err, NNS_E_ARG,
                           "nns_report_table: a table, a write callback and "
                           "format text, md, csv or html are needed");
  const table_row *rows = table->rows;
  size_t count = table->count;
  if (fmt == NNS_FORMAT_HTML) {
    nns__out *h = malloc(sizeof *h);
    if (!h)
      return nns__report_err(err, NNS_E_NOMEM, "out of memory");
    nns__out_init(h, write, user);
    nns_status st = table_html(rows, count, h);
    if (st == NNS_OK)
      st = nns__out_finish(h, err);
    else
      st = nns__report_err(err, st, "out of memory");
    free(h);
    return st;
  }
  nns__out *o = malloc(sizeof *o);
  if (!o)
    return nns__report_err(err, NNS_E_NOMEM, "out of memory");
  nns__out_init(o, write, user);
  char buf[512];
  t_unit units[T_COLS];
  for (int c = 0; c < T_COLS; c++)
    units[c] = c == T_MODEL || c == T_RF ? (t_unit){1, ""}
                                         : column_unit(rows, count, c);
  if (fmt == NNS_FORMAT_CSV) {
    for (int c = 0; c < T_COLS; c++)
      nns__out_fmt(o, "%s%s", c ? "," : "", t_csv[c]);
    nns__out_str(o, ",complete,symbols_at_1\n");
    for (size_t i = 0; i < count; i++) {
      for (int c = 0; c < T_COLS + 2; c++) {
        /* After the counts: complete, then the symbols taken as 1. */
        unsigned f = rows[i].all.flags;
        if (c == T_COLS)
          snprintf(buf, sizeof buf, "%s",
                   f & (NNS_COUNT_PARTIAL | NNS_COUNT_UNBOUNDED) ? "false"
                                                                 : "true");
        else if (c == T_COLS + 1)
          nns__text_clean(buf, sizeof buf,
                          rows[i].assumed ? rows[i].assumed : "");
        else
          t_cell(buf, sizeof buf, &rows[i], c, &units[c], true);
        if (c)
          nns__out_str(o, ",");
        if (strpbrk(buf, ",\"\n\r")) {
          nns__out_str(o, "\"");
          for (const char *p = buf; *p; p++) {
            if (*p == '"')
              nns__out_str(o, "\"");
            nns__out_put(o, p, 1);
          }
          nns__out_str(o, "\"");
        } else {
          nns__out_str(o, buf);
        }
      }
      nns__out_str(o, "\n");
    }
  } else {
    /* Markdown; text is the same table with its columns padded, which is
     * also what Markdown looks best as in a terminal. */
    int w[T_COLS];
    char titles[T_COLS][32];
    for (int c = 0; c < T_COLS; c++) {
      t_title_of(titles[c], sizeof titles[c], c, &units[c]);
      w[c] = nns__utf8_width(titles[c]);
      for (size_t i = 0; i < count; i++) {
        t_cell(buf, sizeof buf, &rows[i], c, &units[c], false);
        int cw = nns__utf8_width(buf) + nns__md_extra(buf);
        w[c] = cw > w[c] ? cw : w[c];
      }
    }
    for (int c = 0; c < T_COLS; c++) {
      int pad = w[c] - nns__utf8_width(titles[c]);
      nns__out_str(o, c ? " | " : "| ");
      if (c)
        nns__out_rep(o, " ", pad);
      nns__out_str(o, titles[c]);
      if (!c)
        nns__out_rep(o, " ", pad);
    }
    nns__out_str(o, " |\n");
    for (int c = 0; c < T_COLS; c++) {
      nns__out_str(o, "|");
      nns__out_rep(o, "-", w[c] + (c ? 1 : 2));
      if (c)
        nns__out_str(o, ":");
    }
    nns__out_str(o, "|\n");
    for (size_t i = 0; i < count; i++) {
      for (int c = 0; c < T_COLS; c++) {
        t_cell(buf, sizeof buf, &rows[i], c, &units[c], false);
        int pad = w[c] - nns__utf8_width(buf) - nns__md_extra(buf);
        nns__out_str(o, c ? " | " : "| ");
        if (c)
          nns__out_rep(o, " ", pad);
        nns__md_text(o, buf); /* Markdown's one escaping rule */
        if (!c)
          nns__out_rep(o, " ", pad);
      }
      nns__out_str(o, " |\n");
    }
    t_notes(o, rows, count, fmt == NNS_FORMAT_MD);
  }
  nns_status st = nns__out_finish(o, err);
  free(o);
  return st;
}

/* ==== SVG plot ==== */

enum { SVG_W = 760, SVG_H = 520, M_LEFT = 90, M_RIGHT = 40, M_TOP = 40,
       M_BOTTOM = 70 };

typedef struct axis {
  bool log;     /* logarithmic */
  double lo, hi; /* domain (log: powers of ten) */
  int pix0, pix1; /* screen range */
} axis;

/* Log when the positive values span more than a decade; the domain then
 * runs over whole decades. Linear axes start at 0 and end at a round
 * number. */
static void axis_fit(axis *a, const double *v, size_t n) {
  double mn = INFINITY, mx = 0;
  for (size_t i = 0; i < n; i++) {
    if (v[i] > 0 && v[i] < mn)
      mn = v[i];
    if (v[i] > mx)
      mx = v[i];
  }
  a->log = mx > 0 && mn < INFINITY && mx / mn > 10.0;
  if (a->log) {
    a->lo = pow(10, floor(log10(mn)));
    a->hi = pow(10, ceil(log10(mx)));
    if (a->hi <= a->lo)
      a->hi = a->lo * 10;
    return;
  }
  a->lo = 0;
  if (mx <= 0) {
    a->hi = 5;
    return;
  }
  double step = pow(10, floor(log10(mx)));
  a->hi = ceil(mx * 1.05 / step) * step;
}

static double axis_pos(const axis *a, double v) {
  double t = a->log ? (log10(v) - log10(a->lo)) / (log10(a->hi) - log10(a->lo))
                    : (v - a->lo) / (a->hi - a->lo);
  return a->pix0 + t * (a->pix1 - a->pix0);
}

/* Tick values: each decade (log) or about five round steps (linear). */
static int axis_ticks(const axis *a, double *t, int max) {
  int n = 0;
  if (a->log) {
    for (double v = a->lo; v <= a->hi * 1.0001 && n < max; v *= 10)
      t[n++] = v;
    return n;
  }
  double raw = (a->hi - a->lo) / 5, mag = pow(10, floor(log10(raw)));
  double step = raw / mag >= 5 ? 5 * mag : raw / mag >= 2 ? 2 * mag : mag;
  if (step < 1)
    step = 1; /* counts are whole: no "0.2" ticks that print as 0 */
  for (double v = a->lo; v <= a->hi * 1.0001 && n < max; v += step)
    t[n++] = v;
  return n;
}

/* Text content escaped for XML; bytes that are not UTF-8 become '?'. */
static void svg_text(nns__out *o, const char *s) {
  for (const unsigned char *p = (const unsigned char *)(s ? s : ""); *p;) {
    size_t n = nns__utf8_len(p);
    if (n == 0 || (n == 1 && *p < 0x20)) {
      nns__out_str(o, "?");
      p++;
      continue;
    }
    switch (*p) {
    case '&': nns__out_str(o, "&amp;"); break;
    case '<': nns__out_str(o, "&lt;"); break;
    case '>': nns__out_str(o, "&gt;"); break;
    case '"': nns__out_str(o, "&quot;"); break;
    default: nns__out_put(o, (const char *)p, n);
    }
    p += n;
  }
}

static void svg_axis(nns__out *o, const axis *a, bool horizontal,
                     const char *title) {
  double ticks[64];
  int n = axis_ticks(a, ticks, 64);
  char label[48];
  for (int i = 0; i < n; i++) {
    double p = axis_pos(a, ticks[i]);
    nns__fmt_clever(label, sizeof label, (int64_t)llround(ticks[i]), false);
    /* Round ticks read better without their zeros: "1 M", not "1.00 M". */
    char *dot = strchr(label, '.');
    if (dot && (!strncmp(dot, ".00 ", 4) || !strncmp(dot, ".0 ", 3)))
      memmove(dot, strchr(dot, ' '), strlen(strchr(dot, ' ')) + 1);
    if (horizontal) {
      nns__out_fmt(o,
                   "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" "
                   "stroke=\"#ddd\"/>\n",
                   p, M_TOP, p, SVG_H - M_BOTTOM);
      nns__out_fmt(o,
                   "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">%s"
                   "</text>\n",
                   p, SVG_H - M_BOTTOM + 18, label);
    } else {
      nns__out_fmt(o,
                   "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" "
                   "stroke=\"#ddd\"/>\n",
                   M_LEFT, p, SVG_W - M_RIGHT, p);
      nns__out_fmt(o,
                   "<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\">%s</text>\n",
                   M_LEFT - 8, p + 4, label);
    }
  }
  if (horizontal)
    nns__out_fmt(o,
                 "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\" "
                 "font-size=\"14\">%s%s</text>\n",
                 (M_LEFT + SVG_W - M_RIGHT) / 2, SVG_H - 20, title,
                 a->log ? " (log scale)" : "");
  else
    nns__out_fmt(o,
                 "<text x=\"20\" y=\"%d\" text-anchor=\"middle\" "
                 "font-size=\"14\" transform=\"rotate(-90 20 %d)\">%s%s"
                 "</text>\n",
                 (M_TOP + SVG_H - M_BOTTOM) / 2,
                 (M_TOP + SVG_H - M_BOTTOM) / 2, title,
                 a->log ? " (log scale)" : "");
}

/* ==== Label placement ==== */

/*
 * Every label is placed so that it overlaps no other label and no point,
 * and stays inside the plot: labels are placed one by one, the points with
 * the most close neighbours first (they have the least room), each at the
 * first free spot among candidates tried in a fixed order - beside its
 * point (right, left, above, below, the diagonals), then on rings of
 * growing radius around it. A label away from its point gets a leader
 * line. Everything is deterministic: same rows, same picture.
 *
 * Labels are set in a monospace font at 12 px, whose advance is 0.6 em
 * (7.2 px) in the common monospace fonts, so their boxes are known here
 * without measuring text.
 */
enum { LABEL_PX = 12, POINT_R = 4, RINGS = 24, RING_STEP = 12, ANGLES = 24 };
#define LABEL_ADVANCE (0.6 * LABEL_PX)
#define LABEL_H (LABEL_PX + 3.0)

typedef struct box {
  double x0, y0, x1, y1;
} box;

static bool box_hit(const box *a, const box *b) {
  return a->x0 < b->x1 && b->x0 < a->x1 && a->y0 < b->y1 && b->y0 < a->y1;
}

/* A label box of width w whose anchor corner sits at (x, y) in direction
 * (dx, dy): dx < 0 puts the box left of x, dx == 0 centres it. */
static box label_box(double x, double y, double w, int dx, int dy) {
  box b;
  b.x0 = dx > 0 ? x : dx < 0 ? x - w : x - w / 2;
  b.x1 = b.x0 + w;
  b.y0 = dy > 0 ? y : dy < 0 ? y - LABEL_H : y - LABEL_H / 2;
  b.y1 = b.y0 + LABEL_H;
  return b;
}

/* Where the points and their labels go. */
typedef struct layout {
  size_t n;       /* points drawn (models not left off a log axis) */
  size_t *order;  /* their rows, in placing order */
  double *px, *py; /* each row's point, in pixels */
  box *placed;    /* each row's label box, where has[] */
  bool *has;      /* the label found room */
} layout;

static void layout_free(layout *l) {
  free(l->order);
  free(l->px);
  free(l->placed);
  free(l->has);
}

static bool place_labels(layout *l, const table_row *rows, size_t count,
                         const axis *ax, const axis *ay, const double *xs,
                         const double *ys) {
  size_t cap = count ? count : 1;
  l->px = malloc(cap * 2 * sizeof *l->px);
  l->order = malloc(cap * sizeof *l->order);
  l->placed = malloc(cap * sizeof *l->placed);
  l->has = calloc(cap, sizeof *l->has);
  int *crowd = calloc(cap, sizeof *crowd);
  if (!l->px || !l->order || !crowd || !l->placed || !l->has) {
    free(crowd);
    return false;
  }
  double *px = l->px, *py = l->py = l->px + cap;
  size_t *order = l->order;
  box *placed = l->placed;
  bool *has = l->has;
  size_t n = 0;
  for (size_t i = 0; i < count; i++) {
    if ((ax->log && xs[i] <= 0) || (ay->log && ys[i] <= 0))
      continue;
    px[i] = axis_pos(ax, xs[i]);
    py[i] = axis_pos(ay, ys[i]);
    order[n++] = i;
  }
  for (size_t a = 0; a < n; a++)
    for (size_t b = 0; b < n; b++)
      if (a != b && fabs(px[order[a]] - px[order[b]]) < 80 &&
          fabs(py[order[a]] - py[order[b]]) < 40)
        crowd[order[a]]++;
  /* Insertion sort: stable, so ties keep the rows' order. */
  for (size_t a = 1; a < n; a++) {
    size_t v = order[a], b = a;
    while (b > 0 && crowd[order[b - 1]] < crowd[v]) {
      order[b] = order[b - 1];
      b--;
    }
    order[b] = v;
  }
  box frame = {M_LEFT + 2, M_TOP + 2, SVG_W - M_RIGHT - 2,
               SVG_H - M_BOTTOM - 2};
  static const int near[8][2] = {{1, 0},  {-1, 0}, {0, -1}, {0, 1},
                                 {1, -1}, {-1, -1}, {1, 1}, {-1, 1}};
  for (size_t k = 0; k < n; k++) {
    size_t i = order[k];
    double w = LABEL_ADVANCE *
               (nns__utf8_width(rows[i].name ? rows[i].name : "") +
                (rows[i].assumed ? (int)sizeof ASSUMED_MARK - 1 : 0));
    bool found = false;
    box b = {0, 0, 0, 0};
    for (int ring = 0; ring <= RINGS && !found; ring++) {
      int tries = ring == 0 ? 8 : ANGLES;
      for (int t = 0; t < tries && !found; t++) {
        double cx, cy;
        int dx, dy;
        if (ring == 0) {
          dx = near[t][0];
          dy = near[t][1];
          cx = px[i] + dx * (POINT_R + 3);
          cy = py[i] + dy * (POINT_R + 3);
        } else {
          double r = POINT_R + 3 + ring * RING_STEP;
          double ang = 2 * M_PI * t / ANGLES;
          cx = px[i] + r * cos(ang);
          cy = py[i] - r * sin(ang);
          dx = cos(ang) > 0.3 ? 1 : cos(ang) < -0.3 ? -1 : 0;
          dy = sin(ang) > 0.3 ? -1 : sin(ang) < -0.3 ? 1 : 0;
        }
        b = label_box(cx, cy, w, dx, dy);
        if (b.x0 < frame.x0 || b.x1 > frame.x1 || b.y0 < frame.y0 ||
            b.y1 > frame.y1)
          continue;
        bool clash = false;
        for (size_t q = 0; q < k && !clash; q++)
          clash = has[order[q]] && box_hit(&b, &placed[order[q]]);
        for (size_t q = 0; q < n && !clash; q++) {
          size_t j = order[q];
          box dot = {px[j] - POINT_R - 2, py[j] - POINT_R - 2,
                     px[j] + POINT_R + 2, py[j] + POINT_R + 2};
          clash = box_hit(&b, &dot);
        }
        found = !clash;
      }
    }
    if (found) {
      placed[i] = b;
      has[i] = true;
    }
  }
  l->n = n;
  free(crowd);
  return true;
}

static void draw_labels(nns__out *o, const table_row *rows, size_t count,
                        const layout *l) {
  const double *px = l->px, *py = l->py;
  const box *placed = l->placed;
  const bool *has = l->has;
  const size_t *order = l->order;
  size_t n = l->n;
  /* Leader lines first, so that points and labels are drawn over them. */
  for (size_t k = 0; k < n; k++) {
    size_t i = order[k];
    if (!has[i])
      continue;
    const box *b = &placed[i];
    double nx = px[i] < b->x0 ? b->x0 : px[i] > b->x1 ? b->x1 : px[i];
    double ny = py[i] < b->y0 ? b->y0 : py[i] > b->y1 ? b->y1 : py[i];
    if (hypot(nx - px[i], ny - py[i]) > POINT_R + 6)
      nns__out_fmt(o,
                   "<line class=\"leader\" data-i=\"%zu\" x1=\"%.1f\" "
                   "y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#8a94a3\" "
                   "stroke-width=\"0.8\"/>\n",
                   i, px[i], py[i], nx, ny);
  }
  for (size_t k = 0; k < n; k++) {
    size_t i = order[k];
    nns__out_fmt(o,
                 "<circle data-i=\"%zu\" cx=\"%.1f\" cy=\"%.1f\" r=\"%d\" "
                 "fill=\"#1f77b4\"/>\n",
                 i, px[i], py[i], POINT_R);
  }
  for (size_t i = 0; i < count; i++) {
    if (!has[i])
      continue;
    /* The baseline sits 3 px above the box's bottom (descenders). */
    nns__out_fmt(o,
                 "<text data-i=\"%zu\" x=\"%.1f\" y=\"%.1f\" "
                 "font-family=\"monospace\" font-size=\"%d\">",
                 i, placed[i].x0, placed[i].y1 - 3.5, LABEL_PX);
    svg_text(o, rows[i].name);
    if (rows[i].assumed)
      nns__out_str(o, ASSUMED_MARK);
    nns__out_str(o, "</text>\n");
  }
}

static nns_status plot_rows(const table_row *rows, size_t count,
                            nns_write_fn write, void *user, nns_error *err) {
  if ((!rows && count) || !write)
    return nns__report_err(err, NNS_E_ARG,
                           "nns_report_plot needs rows and a write callback");
  double *xs = calloc((count ? count : 1) * 2, sizeof *xs);
  nns__out *o = malloc(sizeof *o);
  if (!xs || !o) {
    free(xs);
    free(o);
    return nns__report_err(err, NNS_E_NOMEM, "out of memory");
  }
  double *ys = xs + (count ? count : 1);
  for (size_t i = 0; i < count; i++) {
    xs[i] = (double)rows[i].all.params;
    ys[i] = (double)rows[i].all.macs;
  }
  axis ax = {.pix0 = M_LEFT, .pix1 = SVG_W - M_RIGHT};
  axis ay = {.pix0 = SVG_H - M_BOTTOM, .pix1 = M_TOP};
  axis_fit(&ax, xs, count);
  axis_fit(&ay, ys, count);

  layout lay = {0};
  if (!place_labels(&lay, rows, count, &ax, &ay, xs, ys)) {
    layout_free(&lay);
    free(o);
    free(xs);
    return nns__report_err(err, NNS_E_NOMEM, "out of memory");
  }
  nns__out_init(o, write, user);
  nns__out_fmt(o,
               "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
               "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" "
               "height=\"%d\" viewBox=\"0 0 %d %d\" font-family=\"sans-serif\" "
               "font-size=\"12\">\n",
               SVG_W, SVG_H, SVG_W, SVG_H);
  nns__out_str(o, "<title>MACs against parameters</title>\n<desc>");
  nns__out_fmt(o, "%zu models, drawn by nnscan %s.", count, nns_version());
  bool any_left = false;
  for (size_t i = 0; i < count; i++)
    if ((ax.log && xs[i] <= 0) || (ay.log && ys[i] <= 0)) {
      nns__out_str(o, any_left ? ", " : " Left off (zero on a log axis): ");
      svg_text(o, rows[i].name);
      any_left = true;
    }
  bool any_unplaced = false;
  for (size_t k = 0; k < lay.n; k++)
    if (!lay.has[lay.order[k]]) {
      nns__out_str(o, any_unplaced ? ", " : " No room for the labels of: ");
      svg_text(o, rows[lay.order[k]].name);
      any_unplaced = true;
    }
  bool any_assumed = false;
  for (size_t i = 0; i < count; i++)
    if (rows[i].assumed) {
      nns__out_str(o, any_assumed ? "; " : " Symbolic dims taken as 1: ");
      svg_text(o, rows[i].name);
      nns__out_str(o, ": ");
      svg_text(o, rows[i].assumed);
      any_assumed = true;
    }
  nns__out_str(o, "</desc>\n");
  nns__out_fmt(o, "<rect width=\"%d\" height=\"%d\" fill=\"white\"/>\n",
               SVG_W, SVG_H);
  if (any_assumed)
    nns__out_fmt(o,
                 "<text class=\"note\" x=\"8\" y=\"%d\" font-size=\"11\">* "
                 "symbolic dims taken as 1 (counts at that size; --input "
                 "fixes them)</text>\n",
                 SVG_H - 6);
  nns__out_fmt(o,
               "<text x=\"%d\" y=\"24\" text-anchor=\"middle\" "
               "font-size=\"16\">MACs against parameters</text>\n",
               SVG_W / 2);
  svg_axis(o, &ax, true, "Parameters");
  svg_axis(o, &ay, false, "MACs");
  nns__out_fmt(o,
               "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" "
               "fill=\"none\" stroke=\"#333\"/>\n",
               M_LEFT, M_TOP, SVG_W - M_LEFT - M_RIGHT,
               SVG_H - M_TOP - M_BOTTOM);
  draw_labels(o, rows, count, &lay);
  nns__out_str(o, "</svg>\n");
  nns_status st = nns__out_finish(o, err);
  layout_free(&lay);
  free(o);
  free(xs);
  return st;
}

nns_status nns_report_plot(const nns_table *table, nns_write_fn write,
                           void *user, nns_error *err) {
  if (!table || !write)
    return nns__report_err(err, NNS_E_ARG,
                           "nns_report_plot needs a table and a write "
                           "callback");
  return plot_rows(table->rows, table->count, write, user, err);
}
