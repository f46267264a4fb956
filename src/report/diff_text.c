/*
 * diff_text.c - the diff of two reports as text for people (nns_diff_report
 * with NNS_FORMAT_TEXT): both runs, the totals before and after with their
 * deltas, the layers added, removed and changed, and the budgets.
 * Partial counts print as "≥ N", unavailable ones as "?", and a delta that
 * is withheld says why instead of a number.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "diff_int.h"

/* "1,234", "1,234*" (at symbolic dims = 1, when the footer says so:
 * `starred`), "≥ 1,234" or "?". */
static void fmt_metric(char *buf, size_t size, const dmetric *m,
                       bool starred) {
  char n[32];
  nns__fmt_int(n, sizeof n, m->value, true);
  if (m->status == D_COMPLETE)
    snprintf(buf, size, "%s", n);
  else if (m->at_one && starred)
    snprintf(buf, size, "%s*", n);
  else if (m->status == D_PARTIAL)
    snprintf(buf, size, "≥ %s", n);
  else
    snprintf(buf, size, "?");
}

/* "+1,234 (+5.00%)", or why there is no delta. */
static void fmt_delta(char *buf, size_t size, const ddiff *d,
                      const dmetric *b, const dmetric *a) {
  int64_t delta;
  if (!nns__diff_delta(d, b, a, &delta)) {
    snprintf(buf, size, "%s",
             !d->comparable ? "withheld (runs differ)"
             : b->status == D_UNAVAILABLE || a->status == D_UNAVAILABLE
                 ? "withheld (not counted on a side)"
                 : "withheld (a lower bound: not every node counted)");
    return;
  }
  char n[32];
  nns__fmt_int(n, sizeof n, delta < 0 ? -delta : delta, true);
  const char *sign = delta < 0 ? "-" : delta > 0 ? "+" : "";
  const char *star = a->at_one || b->at_one ? "*" : "";
  if (b->value == 0)
    snprintf(buf, size, "%s%s%s", sign, n, star);
  else
    snprintf(buf, size, "%s%s (%+.2f%%)%s", sign, n,
             (double)delta * 100.0 / (double)b->value, star);
}

static void put_run(nns__out *o, const char *label, const dside *s) {
  nns__out_str(o, label);
  nns__out_text(o, s->name);
  if (s->path) {
    nns__out_str(o, " (");
    nns__out_text(o, s->path);
    nns__out_str(o, ")");
  }
  nns__out_str(o, ", nnscan ");
  nns__out_text(o, s->nnscan_version);
  nns__out_fmt(o, ", summary v%d\n      inputs:", s->version);
  for (size_t i = 0; s->inputs && s->inputs->type == NNS__J_ARR &&
                     i < s->inputs->len; i++) {
    const nns__jval *v = s->inputs->items[i];
    nns__out_str(o, i ? ", " : " ");
    nns__out_text(o, nns__json_str_or(nns__json_get(v, "name"), "?"));
    nns__out_str(o, " ");
    nns__out_text(o, nns__json_str_or(nns__json_get(v, "dtype"), "?"));
    const nns__jval *shape = nns__json_get(v, "shape");
    nns__out_str(o, "[");
    for (size_t k = 0; shape && shape->type == NNS__J_ARR && k < shape->len;
         k++) {
      const nns__jval *dim = shape->items[k];
      if (k)
        nns__out_str(o, ",");
      if (dim->type == NNS__J_NUM && dim->is_int)
        nns__out_int(o, dim->i);
      else
        nns__out_text(o, dim->type == NNS__J_STR ? dim->s : "?");
    }
    nns__out_str(o, "]");
  }
  nns__out_str(o, "\n      parameter dtypes:");
  for (size_t i = 0; s->param_dtypes && s->param_dtypes->type == NNS__J_ARR &&
                     i < s->param_dtypes->len; i++) {
    nns__out_str(o, i ? ", " : " ");
    nns__out_text(o, nns__json_str_or(
                         nns__json_get(s->param_dtypes->items[i], "dtype"),
                         "?"));
  }
  nns__out_str(o, "\n");
}

static void put_metric_line(nns__out *o, const ddiff *d, const char *key,
                            const dmetric *b, const dmetric *a) {
  char sb[48], sa[48], sd[64];
  fmt_metric(sb, sizeof sb, b, d->symbols_at_one);
  fmt_metric(sa, sizeof sa, a, d->symbols_at_one);
  fmt_delta(sd, sizeof sd, d, b, a);
  /* Padded by columns, not bytes: "≥" is three bytes wide in UTF-8. */
  nns__out_str(o, "  ");
  nns__put_fit(o, key, 17, false, NNS_WRAP_END);
  nns__out_str(o, " ");
  nns__put_fit(o, sb, 20, true, NNS_WRAP_END);
  nns__out_str(o, " ");
  nns__put_fit(o, sa, 20, true, NNS_WRAP_END);
  nns__out_str(o, "  ");
  nns__out_str(o, sd);
  nns__out_str(o, "\n");
}

nns_status nns__diff_text(const ddiff *d, nns__out *o) {
  nns__out_str(o, "nnscan diff\n");
  put_run(o, "  before: ", &d->before);
  put_run(o, "  after:  ", &d->after);
  for (int i = 0; d->why[i]; i++) {
    nns__out_str(o, i ? "; " : "  deltas withheld: ");
    nns__out_str(o, d->why[i]);
    if (!d->why[i + 1])
      nns__out_str(o, "\n");
  }
  char head[160];
  snprintf(head, sizeof head, "\n  %-17s %20s %20s  %s\n", "Totals", "before",
           "after", "delta");
  nns__out_str(o, head);
  for (int i = 0; i < NNS__M_COUNT; i++)
    put_metric_line(o, d, nns__diff_metric_keys[i], &d->before.totals.m[i],
                    &d->after.totals.m[i]);
  nns__out_fmt(o, "\nLayers: %zu changed, %zu added, %zu removed, %zu "
                  "unchanged\n",
               d->changed, d->added, d->removed, d->unchanged);
  for (size_t p = 0; p < d->pair_count; p++) {
    const size_t *pr = d->pairs[p];
    bool added = pr[0] == (size_t)-1, removed = pr[1] == (size_t)-1;
    if (!added && !removed && !nns__diff_changed(d, pr))
      continue;
    const drow *r = added ? &d->after.rows[pr[1]] : &d->before.rows[pr[0]];
    nns__out_str(o, added ? "  + " : removed ? "  - " : "  ~ ");
    nns__out_text(o, *r->path ? r->path : "(model)");
    if (r->call)
      nns__out_fmt(o, " #%lld", (long long)r->call);
    nns__out_str(o, " (");
    nns__out_text(o, r->type);
    nns__out_str(o, ")\n");
    if (added || removed) {
      continue;
    }
    const drow *b = &d->before.rows[pr[0]], *a = &d->after.rows[pr[1]];
    if (strcmp(b->type, a->type)) {
      nns__out_str(o, "      type ");
      nns__out_text(o, b->type);
      nns__out_str(o, " -> ");
      nns__out_text(o, a->type);
      nns__out_str(o, "\n");
    }
    for (int i = 0; i < NNS__M_COUNT; i++)
      if (b->m[i].status != a->m[i].status || b->m[i].value != a->m[i].value) {
        nns__out_str(o, "  ");
        put_metric_line(o, d, nns__diff_metric_keys[i], &b->m[i], &a->m[i]);
      }
  }
  if (d->symbols_at_one) {
    nns__out_str(o, "\n* ");
    nns__out_str(o, d->sym_note);
    nns__out_str(o, "\n");
  }
  if (d->budget_count)
    nns__out_str(o, "\nBudgets:\n");
  for (size_t k = 0; k < d->budget_count; k++) {
    const dbudget *b = &d->budgets[k];
    static const char *const states[] = {"ok", "EXCEEDED",
                                         "WITHHELD (no delta to check)"};
    char sd[64];
    fmt_delta(sd, sizeof sd, d, &d->before.totals.m[b->metric],
              &d->after.totals.m[b->metric]);
    nns__out_str(o, "  ");
    nns__out_str(o, b->text);
    nns__out_str(o, ": ");
    nns__out_str(o, states[b->state]);
    if (b->state != 2) {
      nns__out_str(o, " (");
      nns__out_str(o, sd);
      nns__out_str(o, ")");
    }
    nns__out_str(o, "\n");
  }
  return NNS_OK;
}
