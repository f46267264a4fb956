/*
 * mfu.c - the figures of measured training steps (src/analyze/mfu.c) as
 * the binding shows them: one line of the "nnscan.steps" JSON lines log
 * per step (docs/metrics.md, docs/steps.schema.json), one row of the
 * running table, and a page plotting MFU and step time over the steps
 * (inline SVG: no script, opens anywhere).
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "report_int.h"

/* ==== JSON lines ==== */

nns_status nns_mfu_json_line(int64_t step, int rank,
                             const nns_step_flops *flops, const nns_mfu *mfu,
                             nns_write_fn write, void *user, nns_error *err) {
  if (!write || !flops || !mfu || flops->size < sizeof *flops ||
      mfu->size < sizeof *mfu)
    return nns__report_err(err, NNS_E_ARG,
                           "nns_mfu_json_line: NULL argument or short struct");
  nns__out o;
  nns__out_init(&o, write, user);
  nns__jw jw, *w = &jw;
  nns__jw_init(w, &o);
  nns__jw_obj(w, NNS__JV);
  nns__jw_str(w, NNS__JK("schema"), "nnscan.steps");
  nns__jw_int(w, NNS__JK("schema_version"), 1);
  nns__jw_int(w, NNS__JK("step"), step);
  nns__jw_int(w, NNS__JK("rank"), rank);
  nns__jw_double(w, NNS__JK("step_s"), mfu->step_s, 9, false);
  nns__jw_int(w, NNS__JK("samples"), mfu->samples);
  nns__jw_int(w, NNS__JK("tokens"), mfu->tokens);
  nns__jw_double(w, NNS__JK("samples_per_s"), mfu->samples_per_s, 9, false);
  nns__jw_double(w, NNS__JK("tokens_per_s"), mfu->tokens_per_s, 9, false);
  nns__jw_int(w, NNS__JK("model_flops"), flops->model_flops);
  nns__jw_int(w, NNS__JK("model_flops_dense"), flops->model_flops_dense);
  nns__jw_int(w, NNS__JK("recompute_flops"), flops->recompute_flops);
  nns__jw_int(w, NNS__JK("recompute_flops_dense"),
              flops->recompute_flops_dense);
  nns__jw_int(w, NNS__JK("hardware_flops"), flops->hardware_flops);
  nns__jw_double(w, NNS__JK("tflops"), mfu->model_flops_per_s / 1e12, 9,
                 false);
  nns__jw_double(w, NNS__JK("mfu"), mfu->mfu, 9, false);
  nns__jw_double(w, NNS__JK("hfu"), mfu->hfu, 9, false);
  nns__jw_obj(w, NNS__JK("peak"));
  nns__jw_str(w, NNS__JK("device"), mfu->device);
  nns__jw_str(w, NNS__JK("dtype"), nns_compute_dtype_name(mfu->peak_dtype));
  nns__jw_str(w, NNS__JK("density"), mfu->density);
  nns__jw_double(w, NNS__JK("flops_per_s"), mfu->peak_flops, 9, false);
  nns__jw_end(w, NULL);
  nns__jw_bool(w, NNS__JK("complete"),
               (flops->flags & (NNS_COUNT_PARTIAL | NNS_COUNT_OVERFLOW)) == 0);
  nns__jw_end(w, NULL);
  nns__out_put(&o, "\n", 1);
  nns_status st = nns__jw_finish(w);
  nns_status out = nns__out_finish(&o, err);
  return st != NNS_OK ? nns__report_err(err, st, "out of memory") : out;
}

/* ==== The running table ==== */

nns_status nns_mfu_text_row(int64_t step, const nns_mfu *mfu, int header,
                            nns_write_fn write, void *user, nns_error *err) {
  if (!write || !mfu || mfu->size < sizeof *mfu)
    return nns__report_err(err, NNS_E_ARG,
                           "nns_mfu_text_row: NULL argument or short struct");
  nns__out o;
  nns__out_init(&o, write, user);
  if (header) {
    nns__out_fmt(&o, "%6s %10s %10s %12s %9s %7s %7s  %s\n", "step",
                 "time", "samples/s", "tokens/s", "TFLOP/s", "MFU", "HFU",
                 "peak");
    nns__out_rep(&o, "-", 80);
    nns__out_str(&o, "\n");
  }
  char t[32];
  nns__fmt_seconds(t, sizeof t, mfu->step_s, false);
  char sps[32] = "-", tps[32] = "-"; /* not known: "-" */
  if (mfu->samples_per_s > 0)
    snprintf(sps, sizeof sps, "%.4g", mfu->samples_per_s);
  if (mfu->tokens_per_s > 0)
    snprintf(tps, sizeof tps, "%.6g", mfu->tokens_per_s);
  char dev[64];
  nns__text_clean(dev, sizeof dev, mfu->device);
  nns__out_fmt(&o, "%6lld %10s %10s %12s %9.4g %6.2f%% %6.2f%%  "
               "%s %s %s, %.4g TFLOP/s\n",
               (long long)step, t, sps, tps,
               mfu->model_flops_per_s / 1e12, 100.0 * mfu->mfu,
               100.0 * mfu->hfu, dev,
               nns_compute_dtype_name(mfu->peak_dtype), mfu->density,
               mfu->peak_flops / 1e12);
  return nns__out_finish(&o, err);
}

/* ==== The page ==== */

enum { PLOT_W = 720, PLOT_H = 220, PAD_L = 64, PAD_B = 28, PAD_T = 12 };

/* One chart: ys (and ys2 dashed, may be NULL) over steps, y from 0 to the
 * largest value; `pct` shows the axis as percent, else milliseconds. */
static void chart(nns__out *o, const char *caption, const int64_t *steps,
                  const double *ys, const double *ys2, size_t n, bool pct) {
  double top = 0;
  for (size_t i = 0; i < n; i++) {
    if (isfinite(ys[i]) && ys[i] > top)
      top = ys[i];
    if (ys2 && isfinite(ys2[i]) && ys2[i] > top)
      top = ys2[i];
  }
  if (!(top > 0))
    top = 1;
  top *= 1.1;
  int64_t s0 = steps[0], s1 = steps[n - 1];
  double span = s1 > s0 ? (double)(s1 - s0) : 1;
  double w = PLOT_W - PAD_L - 8, h = PLOT_H - PAD_T - PAD_B;
  nns__out_str(o, "<figure><figcaption>");
  nns__out_str(o, caption);
  nns__out_fmt(o, "</figcaption>\n<svg xmlns=\"http://www.w3.org/2000/svg\" "
               "width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\">\n",
               PLOT_W, PLOT_H, PLOT_W, PLOT_H);
  nns__out_fmt(o, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" "
               "stroke=\"#888\"/>\n<line x1=\"%d\" y1=\"%d\" x2=\"%d\" "
               "y2=\"%d\" stroke=\"#888\"/>\n",
               PAD_L, PAD_T, PAD_L, PLOT_H - PAD_B, PAD_L, PLOT_H - PAD_B,
               PLOT_W - 8, PLOT_H - PAD_B);
  for (int k = 0; k <= 4; k++) {
    double v = top * k / 4, y = PAD_T + h - h * k / 4;
    nns__out_fmt(o, "<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\" "
                 "font-size=\"11\">%.3g%s</text>\n", PAD_L - 4, y + 4,
                 pct ? 100 * v : 1000 * v, pct ? "%" : " ms");
  }
  nns__out_fmt(o, "<text x=\"%d\" y=\"%d\" font-size=\"11\">step %lld"
               "</text><text x=\"%d\" y=\"%d\" text-anchor=\"end\" "
               "font-size=\"11\">step %lld</text>\n",
               PAD_L, PLOT_H - 8, (long long)s0, PLOT_W - 8, PLOT_H - 8,
               (long long)s1);
  for (int pass = 0; pass < (ys2 ? 2 : 1); pass++) {
    const double *v = pass ? ys2 : ys;
    nns__out_fmt(o, "<polyline fill=\"none\" stroke=\"%s\" "
                 "stroke-width=\"1.5\"%s points=\"",
                 pass ? "#c60" : "#06c",
                 pass ? " stroke-dasharray=\"4 3\"" : "");
    for (size_t i = 0; i < n; i++) {
      if (!isfinite(v[i]))
        continue;
      double x = PAD_L + w * (double)(steps[i] - s0) / span;
      double y = PAD_T + h - h * v[i] / top;
      nns__out_fmt(o, "%.1f,%.1f ", x, y);
    }
    nns__out_str(o, "\"/>\n");
  }
  nns__out_str(o, "</svg></figure>\n");
}

nns_status nns_mfu_html(const int64_t *steps, const double *step_s,
                        const double *mfu, const double *hfu, size_t n,
                        const char *title, nns_write_fn write, void *user,
                        nns_error *err) {
  if (!write || (n && (!steps || !step_s || !mfu)))
    return nns__report_err(err, NNS_E_ARG, "nns_mfu_html: NULL argument");
  nns__out o;
  nns__out_init(&o, write, user);
  nns__out_str(&o, "<!DOCTYPE html>\n<html lang=\"en\"><head>"
                   "<meta charset=\"utf-8\"><title>");
  nns__html_text(&o, title ? title : "training steps");
  nns__out_str(&o, " - nnscan</title>\n<style>body{font-family:sans-serif;"
                   "margin:1.5em}figure{margin:1em 0}figcaption{font-weight:"
                   "bold}</style></head><body>\n<h1>");
  nns__html_text(&o, title ? title : "training steps");
  nns__out_str(&o, "</h1>\n");
  if (n == 0) {
    nns__out_str(&o, "<p>No step was measured.</p>\n");
  } else {
    nns__out_fmt(&o, "<p>%zu measured steps (warm-up steps left out).</p>\n",
                 n);
    chart(&o, "MFU (solid) and HFU (dashed) per step", steps, mfu, hfu, n,
          true);
    chart(&o, "Step time", steps, step_s, NULL, n, false);
  }
  nns__out_str(&o, "</body></html>\n");
  return nns__out_finish(&o, err);
}
