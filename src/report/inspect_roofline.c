/*
 * inspect_roofline.c - measured against the roofline: an inspection whose
 * modules carry their static roofline time (nns_inspect_module.roofline_ms,
 * from an analysis that named a device) shows, per module, that time
 * beside the measured forward time and the fraction of the roof achieved
 * (roofline time / measured time per pass), and ranks the modules
 * furthest from their roof (docs/inspect.md, "Against the roofline").
 * The table, JSON and footer of inspect_table.c / inspect_json.c call
 * these.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report_int.h"

bool nns__inspect_has_roofline(const nns_inspection *in) {
  for (size_t m = 0; m < nns_inspection_module_count(in); m++)
    if (nns__imodule_of(in, m).roofline_ms > 0)
      return true;
  return false;
}

double nns__inspect_roof_fraction(const nns_inspection *in,
                                  const nns_inspect_module_info *d,
                                  const nns_inspect_stats *s) {
  double ms = nns__inspect_per_pass(in, s->fwd_inclusive_ms);
  if (!(d->roofline_ms > 0) || s->calls == 0 || !(ms > 0))
    return -1;
  return d->roofline_ms / ms;
}

const char *nns__inspect_hardware(const nns_inspection *in) {
  const char *key, *value;
  for (size_t i = nns_inspection_meta_count(in); i-- > 0;)
    if (nns_inspection_meta(in, i, &key, &value, NULL) == NNS_OK &&
        !strcmp(key, "hardware"))
      return value;
  return NULL;
}

/* Modules with a fraction, furthest from their roof first (ties: the one
 * that takes longer first, then preorder). */
typedef struct ranked {
  size_t module;
  double fraction, ms;
} ranked;

static int by_distance(const void *pa, const void *pb) {
  const ranked *a = pa, *b = pb;
  if (a->fraction != b->fraction)
    return a->fraction < b->fraction ? -1 : 1;
  if (a->ms != b->ms)
    return a->ms > b->ms ? -1 : 1;
  return a->module < b->module ? -1 : a->module > b->module;
}

size_t nns__inspect_roof_ranking(const nns_inspection *in, size_t *out,
                                 size_t max) {
  size_t modules = nns_inspection_module_count(in);
  ranked *r = malloc((modules + 1) * sizeof *r);
  if (!r)
    return 0;
  size_t n = 0;
  for (size_t m = 0; m < modules; m++) {
    nns_inspect_module_info d = nns__imodule_of(in, m);
    nns_inspect_stats s;
    if (!(d.roofline_ms > 0)) /* no fraction: spare the stats */
      continue;
    if (!nns__istats_of(in, m, &s))
      break; /* out of memory: the ranking so far */
    double f = nns__inspect_roof_fraction(in, &d, &s);
    if (f >= 0)
      r[n++] = (ranked){m, f, nns__inspect_per_pass(in, s.fwd_inclusive_ms)};
  }
  qsort(r, n, sizeof *r, by_distance);
  size_t k = n < max ? n : max;
  for (size_t i = 0; i < k; i++)
    out[i] = r[i].module;
  free(r);
  return k;
}

void nns__inspect_pct(char *buf, size_t size, double f) {
  double p = 100 * f;
  if (p > 0 && p < 0.01)
    snprintf(buf, size, "<0.01%%");
  else
    snprintf(buf, size, p >= 999.5 ? "%.0f%%" : "%.3g%%", p);
}

void nns__inspect_roofline_footer(nns__out *o, const nns_inspection *in) {
  if (!nns__inspect_has_roofline(in))
    return;
  const char *hw = nns__inspect_hardware(in);
  size_t top[5];
  size_t n = nns__inspect_roof_ranking(in, top, 5);
  nns__out_str(o, "Roofline");
  if (hw) {
    nns__out_str(o, " on ");
    nns__out_text(o, hw);
  }
  nns__out_str(o, ": Roof is the static lower bound of one forward "
                  "(docs/metrics.md), % roof that over the measured Fwd "
                  "time.\n");
  if (!n)
    return;
  nns__out_str(o, "Furthest from their roof:");
  char path[512];
  for (size_t i = 0; i < n; i++) {
    nns_inspect_module_info d = nns__imodule_of(in, top[i]);
    nns_inspect_stats s;
    if (!nns__istats_of(in, top[i], &s))
      break;
    nns__inspect_path_cell(path, sizeof path, d.path, d.path_len);
    double ms = nns__inspect_per_pass(in, s.fwd_inclusive_ms);
    char roof_t[32], fwd_t[32]; /* human units: "54.6 us of 145 us" */
    nns__fmt_seconds(roof_t, sizeof roof_t, d.roofline_ms / 1e3, false);
    nns__fmt_seconds(fwd_t, sizeof fwd_t, ms / 1e3, false);
    char pct[32];
    nns__inspect_pct(pct, sizeof pct, nns__inspect_roof_fraction(in, &d, &s));
    nns__out_fmt(o, "%s %s %s (%s of %s)", i ? "," : "",
                 *path ? path : "the model", pct, roof_t, fwd_t);
  }
  nns__out_str(o, ".\n");
}

void nns__inspect_roofline_json(nns__jw *w, const nns_inspection *in) {
  if (!nns__inspect_has_roofline(in))
    return;
  nns__jw_obj(w, NNS__JK("roofline"));
  nns__jw_str(w, NNS__JK("hardware"), nns__inspect_hardware(in));
  nns__jw_arr(w, NNS__JK("furthest"));
  size_t modules = nns_inspection_module_count(in);
  size_t *top = malloc((modules + 1) * sizeof *top);
  size_t n = top ? nns__inspect_roof_ranking(in, top, modules) : 0;
  for (size_t i = 0; i < n; i++)
    nns__jw_int(w, NNS__JV, (int64_t)top[i]);
  free(top);
  nns__jw_end(w, NULL);
  nns__jw_end(w, NULL);
}
