/*
 * table.c - comparing models: nns_report_table() prints one row per model
 * (the README's model table), nns_report_plot() draws MACs against
 * parameters as a hand-written SVG scatter plot, with no dependency.
 *
 * Both take totals, not models, so a caller can analyse a hundred models
 * one at a time and keep only a row for each.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report_int.h"

/* ==== Table ==== */

enum { T_MODEL, T_PARAMS, T_FLOPS, T_MACS, T_DMAS, T_RF, T_COLS };
static const char *t_title[T_COLS] = {"Model",    "Params (M)", "FLOPs (G)",
                                      "MACs (G)", "DMAs (G)",   "RF"};
static const char *t_csv[T_COLS] = {"model", "params", "flops",
                                    "macs",  "dmas",   "rf"};

/* A cell of the human table: millions or billions with two decimals. */
static void t_cell(char *buf, size_t size, const nns_table_row *r, int c,
                   bool csv) {
  const nns_totals *t = &r->totals;
  bool partial = (t->all.flags & NNS_COUNT_PARTIAL) != 0;
  int64_t v = 0;
  double scale = 1e9;
  switch (c) {
  case T_MODEL: nns__text_clean(buf, size, r->name); return;
  case T_RF:
    if (t->rf.axes > 0)
      nns__fmt_axes(buf, size, t->rf.field, t->rf.axes);
    else
      snprintf(buf, size, "-");
    return;
  case T_PARAMS:
    v = t->all.params;
    scale = 1e6;
    partial = false; /* parameters do not depend on cost rules */
    break;
  case T_FLOPS: v = t->all.flops; break;
  case T_MACS: v = t->all.macs; break;
  default: v = t->all.dmas; break;
  }
  if (csv)
    snprintf(buf, size, "%lld", (long long)v);
  else if (v > 0 && (double)v / scale < 0.005)
    /* Tiny models: two significant digits rather than "0.00". */
    snprintf(buf, size, "%s%.2g", partial ? "≥ " : "", (double)v / scale);
  else
    snprintf(buf, size, "%s%.2f", partial ? "≥ " : "", (double)v / scale);
}

nns_status nns_report_table(const nns_table_row *rows, size_t count,
                            const nns_report_options *opts,
                            nns_write_fn write, void *user, nns_error *err) {
  nns_report_format fmt = opts ? opts->format : NNS_FORMAT_MD;
  if ((!rows && count) || !write || fmt == NNS_FORMAT_JSON ||
      (unsigned)fmt > NNS_FORMAT_JSON)
    return nns__report_err(err, NNS_E_ARG,
                           "nns_report_table: rows, a write callback and "
                           "format text, md or csv are needed");
  nns__out *o = malloc(sizeof *o);
  if (!o)
    return nns__report_err(err, NNS_E_NOMEM, "out of memory");
  nns__out_init(o, write, user);
  char buf[512];
  if (fmt == NNS_FORMAT_CSV) {
    for (int c = 0; c < T_COLS; c++)
      nns__out_fmt(o, "%s%s", c ? "," : "", t_csv[c]);
    nns__out_str(o, ",complete\n");
    for (size_t i = 0; i < count; i++) {
      for (int c = 0; c < T_COLS; c++) {
        t_cell(buf, sizeof buf, &rows[i], c, true);
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
      unsigned f = rows[i].totals.all.flags;
      nns__out_str(o, f & (NNS_COUNT_PARTIAL | NNS_COUNT_UNBOUNDED)
                          ? ",false\n"
                          : ",true\n");
    }
  } else {
    /* Markdown; text is the same table with its columns padded, which is
     * also what Markdown looks best as in a terminal. */
    int w[T_COLS];
    for (int c = 0; c < T_COLS; c++) {
      w[c] = nns__utf8_width(t_title[c]);
      for (size_t i = 0; i < count; i++) {
        t_cell(buf, sizeof buf, &rows[i], c, false);
        int cw = nns__utf8_width(buf);
        w[c] = cw > w[c] ? cw : w[c];
      }
    }
    for (int c = 0; c < T_COLS; c++) {
      int pad = w[c] - nns__utf8_width(t_title[c]);
      nns__out_str(o, c ? " | " : "| ");
      if (c)
        nns__out_rep(o, " ", pad);
      nns__out_str(o, t_title[c]);
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
        t_cell(buf, sizeof buf, &rows[i], c, false);
        for (char *p = buf; *p; p++)
          if (*p == '|' || *p == '\n')
            *p = '/';
        int pad = w[c] - nns__utf8_width(buf);
        nns__out_str(o, c ? " | " : "| ");
        if (c)
          nns__out_rep(o, " ", pad);
        nns__out_str(o, buf);
        if (!c)
          nns__out_rep(o, " ", pad);
      }
      nns__out_str(o, " |\n");
    }
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
    a->hi = 1;
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

nns_status nns_report_plot(const nns_table_row *rows, size_t count,
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
    xs[i] = (double)rows[i].totals.all.params;
    ys[i] = (double)rows[i].totals.all.macs;
  }
  axis ax = {.pix0 = M_LEFT, .pix1 = SVG_W - M_RIGHT};
  axis ay = {.pix0 = SVG_H - M_BOTTOM, .pix1 = M_TOP};
  axis_fit(&ax, xs, count);
  axis_fit(&ay, ys, count);

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
  nns__out_str(o, "</desc>\n");
  nns__out_fmt(o, "<rect width=\"%d\" height=\"%d\" fill=\"white\"/>\n",
               SVG_W, SVG_H);
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
  for (size_t i = 0; i < count; i++) {
    if ((ax.log && xs[i] <= 0) || (ay.log && ys[i] <= 0))
      continue;
    double x = axis_pos(&ax, xs[i]), y = axis_pos(&ay, ys[i]);
    nns__out_fmt(o,
                 "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"4\" fill=\"#1f77b4\"/>\n",
                 x, y);
    /* Labels near the right edge go to the left of their point. */
    bool left = x > SVG_W - M_RIGHT - 120;
    nns__out_fmt(o, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"%s\">",
                 left ? x - 7 : x + 7, y - 6, left ? "end" : "start");
    svg_text(o, rows[i].name);
    nns__out_str(o, "</text>\n");
  }
  nns__out_str(o, "</svg>\n");
  nns_status st = nns__out_finish(o, err);
  free(o);
  free(xs);
  return st;
}
