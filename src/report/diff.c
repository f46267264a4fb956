/*
 * diff.c - nns_diff_report: two "nnscan.summary" documents (v1 or v2)
 * compared. Each side is read into rows of metrics with their statuses
 * (v2 states them; for v1 they follow from its flags, as docs/json.md
 * defines them), layers are matched by module path and call index, deltas
 * are given only where both sides are complete and the runs are alike
 * (inputs, nnscan version, dtypes), and the budgets of --fail-if are
 * checked on the totals. Writes the "nnscan.diff" JSON and its HTML page
 * here; the text is diff_text.c's.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "diff_int.h"

const char *const nns__diff_metric_keys[NNS__M_COUNT] = {
#define NNS__METRIC_KEY_(name, bit, key, lower, member, mflags, text) key,
    NNS_METRIC_MAP(NNS__METRIC_KEY_)
#undef NNS__METRIC_KEY_
};

/* "params, buffers, ...": the metrics as a budget's error names them. */
#define METRIC_WORD_(name, bit, key, lower, member, mflags, text) ", " key
#define METRIC_WORDS (&(NNS_METRIC_MAP(METRIC_WORD_))[2])

const char *nns__diff_status_name(dstatus s) {
  return s == D_COMPLETE ? "complete" : s == D_PARTIAL ? "partial"
                                                       : "unavailable";
}

/* ==== Reading a side ==== */

/* One metric's count from `v` (the member `key` of `where`): a missing
 * one makes the metric unavailable (its deltas withheld, and a budget on
 * it too); one present but no count refuses the document, naming the side,
 * the row and the key, since reading it as anything would let a budget
 * pass on a number nobody wrote. */
static nns_status read_count(const nns__jval *v, const char *which,
                             const char *row, const char *key, dmetric *m,
                             nns_error *err) {
  switch (nns__json_count(v, &m->value)) {
  case NNS__JC_OK:
    return NNS_OK;
  case NNS__JC_MISSING:
    m->value = 0;
    m->status = D_UNAVAILABLE;
    return NNS_OK;
  case NNS__JC_BAD:
    break;
  }
  char what[96];
  return nns__err(err, NNS_E_ARG, -1, NULL,
                  "%s: %s \"%s\" is %s, not a count (a whole number from 0 "
                  "to 9223372036854775807)", which, row, key,
                  nns__json_describe(v, what, sizeof what));
}

/* A v1 row: the plain counts, partial where its flags (and the totals'
 * "saturated", for every row) say, by NNS_METRIC_MAP's rule
 * (nns_metrics_partial; docs/json.md). */
static nns_status row_v1(const nns__jval *v, drow *r, bool saturated,
                         const char *which, const char *row, nns_error *err) {
  const nns__jval *flags = nns__json_get(v, "flags");
  unsigned f = saturated ? NNS_COUNT_OVERFLOW : 0;
  for (int b = 0; nns_count_flag_name(b); b++)
    if (nns__json_bool_or(nns__json_get(flags, nns_count_flag_name(b)), false))
      f |= 1u << b;
  unsigned partial = nns_metrics_partial(f);
  /* Only symbols at 1 and nothing else: exact at that size. */
  bool at_one = (f & ~(unsigned)NNS_COUNT_SHARED) == NNS_COUNT_SYMBOLIC;
  for (int i = 0; i < NNS__M_COUNT; i++) {
    r->m[i].status = partial & (1u << i) ? D_PARTIAL : D_COMPLETE;
    r->m[i].at_one = r->m[i].status == D_PARTIAL && at_one;
    const nns__jval *c = nns__json_get(v, nns__diff_metric_keys[i]);
    if (!c && (nns_metric_flags(i) & NNS_METRIC_V1_GROWN)) {
      r->m[i].value = 0; /* v1 writes it only when it is not zero */
      continue;
    }
    nns_status st = read_count(c, which, row, nns__diff_metric_keys[i], &r->m[i],
                               err);
    if (st != NNS_OK)
      return st;
  }
  return NNS_OK;
}

/* Whether every diagnostic a v2 metric cites (ids into the document's
 * "diagnostics") is a symbolic dim taken as 1, and there is one. */
static bool only_symbols_at_one(const nns__jval *doc, const nns__jval *m) {
  const nns__jval *ids = nns__json_get(m, "diagnostics");
  const nns__jval *all = nns__json_get(doc, "diagnostics");
  if (!ids || ids->type != NNS__J_ARR || !ids->len || !all ||
      all->type != NNS__J_ARR)
    return false;
  for (size_t k = 0; k < ids->len; k++) {
    int64_t id = nns__json_int_or(ids->items[k], -1);
    const nns__jval *dg = NULL;
    for (size_t j = 0; j < all->len && !dg; j++)
      if (nns__json_int_or(nns__json_get(all->items[j], "id"), -2) == id)
        dg = all->items[j];
    if (!dg || strcmp(nns__json_str_or(nns__json_get(dg, "code"), ""),
                      "size.symbol_taken_as_1"))
      return false;
  }
  return true;
}

static nns_status row_v2(const nns__jval *doc, const nns__jval *v, drow *r,
                         const char *which, const char *row,
                         nns_error *err) {
  const nns__jval *ms = nns__json_get(v, "metrics");
  for (int i = 0; i < NNS__M_COUNT; i++) {
    const nns__jval *m = nns__json_get(ms, nns__diff_metric_keys[i]);
    const char *st = nns__json_str_or(nns__json_get(m, "status"), "unavailable");
    r->m[i].status = !strcmp(st, "complete") ? D_COMPLETE
                     : !strcmp(st, "partial") ? D_PARTIAL
                                              : D_UNAVAILABLE;
    r->m[i].at_one = r->m[i].status == D_PARTIAL &&
                     only_symbols_at_one(doc, m);
    r->m[i].value = 0;
    if (r->m[i].status == D_UNAVAILABLE)
      continue;
    const char *vkey = r->m[i].status == D_COMPLETE ? "value" : "known_value";
    char key[64];
    snprintf(key, sizeof key, "metrics.%s.%s", nns__diff_metric_keys[i], vkey);
    nns_status s = read_count(nns__json_get(m, vkey), which, row, key,
                              &r->m[i], err);
    if (s != NNS_OK)
      return s;
  }
  return NNS_OK;
}

static nns_status read_row(const dside *s, const nns__jval *v, drow *r,
                           bool saturated, const char *which, size_t index,
                           nns_error *err) {
  char row[48];
  if (index == (size_t)-1)
    snprintf(row, sizeof row, "totals");
  else
    snprintf(row, sizeof row, "layers[%zu]", index);
  r->path = nns__json_str_or(nns__json_get(v, "path"), "");
  r->call = nns__json_int_or(nns__json_get(v, "call"), 0);
  r->type = nns__json_str_or(nns__json_get(v, "type"), "");
  r->output = nns__json_get(v, "output");
  if (s->version == 1)
    return row_v1(v, r, saturated, which, row, err);
  return row_v2(s->doc, v, r, which, row, err);
}

static int cmp_rows(const drow *a, const drow *b) {
  int c = strcmp(a->path, b->path);
  return c ? c : (a->call > b->call) - (a->call < b->call);
}

/* qsort of row pointers (it takes no context, and the library may run
 * several diffs at once). */
static int cmp_sorted(const void *x, const void *y) {
  return cmp_rows(*(const drow *const *)x, *(const drow *const *)y);
}

static nns_status read_side(nns__arena *a, const char *text, size_t len,
                            const char *which, dside *s, nns_error *err) {
  nns__jval *doc = NULL;
  nns_error e;
  nns_status st = nns__json_parse(a, text, len, &doc, &e);
  if (st != NNS_OK)
    return nns__err(err, st, e.offset, NULL, "%s: %s", which, e.message);
  s->doc = doc;
  if (strcmp(nns__json_str_or(nns__json_get(doc, "schema"), ""),
             "nnscan.summary"))
    return nns__err(err, NNS_E_ARG, -1, NULL,
                    "%s is not an nnscan.summary document (its \"schema\")",
                    which);
  s->version = (int)nns__json_int_or(nns__json_get(doc, "schema_version"), 0);
  if (s->version != 1 && s->version != 2)
    return nns__err(err, NNS_E_ARG, -1, NULL,
                    "%s: nnscan.summary schema_version %d is not one this "
                    "nnscan reads (1 or 2)", which, s->version);
  const nns__jval *model = nns__json_get(doc, "model");
  s->name = nns__json_str_or(nns__json_get(model, "name"), "");
  s->path = nns__json_str_or(nns__json_get(model, "path"), NULL);
  s->nnscan_version = nns__json_str_or(nns__json_get(doc, "nnscan_version"), "");
  s->inputs = nns__json_get(doc, "inputs");
  s->param_dtypes = nns__json_get(doc, "params_by_dtype");
  const nns__jval *totals = nns__json_get(doc, "totals");
  const nns__jval *layers = nns__json_get(doc, "layers");
  if (!totals || totals->type != NNS__J_OBJ || !layers ||
      layers->type != NNS__J_ARR)
    return nns__err(err, NNS_E_ARG, -1, NULL,
                    "%s: no \"totals\" object or \"layers\" array", which);
  st = read_row(s, totals, &s->totals,
                nns__json_bool_or(nns__json_get(totals, "saturated"), false),
                which, (size_t)-1, err);
  if (st != NNS_OK)
    return st;
  s->totals.path = "";
  s->count = layers->len;
  s->rows = nns__arena_array(a, s->count ? s->count : 1, sizeof *s->rows);
  s->sorted = nns__arena_array(a, s->count ? s->count : 1, sizeof *s->sorted);
  if (!s->rows || !s->sorted)
    return nns__err(err, NNS_E_NOMEM, -1, NULL, "out of memory");
  for (size_t i = 0; i < s->count; i++) {
    if ((st = read_row(s, layers->items[i], &s->rows[i], false, which, i,
                       err)) != NNS_OK)
      return st;
    s->sorted[i] = &s->rows[i];
  }
  qsort(s->sorted, s->count, sizeof *s->sorted, cmp_sorted);
  return NNS_OK;
}

/* The row of `s` with r's path and call, or (size_t)-1. */
static size_t find_row(const dside *s, const drow *r) {
  size_t lo = 0, hi = s->count;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    int c = cmp_rows(s->sorted[mid], r);
    if (c == 0)
      return (size_t)(s->sorted[mid] - s->rows);
    if (c < 0)
      lo = mid + 1;
    else
      hi = mid;
  }
  return (size_t)-1;
}

/* ==== Comparing ==== */

/* Structural equality of two JSON values (inputs, dtypes, outputs); deep
 * documents compare unequal past 64 levels rather than recurse on. */
static bool jv_equal(const nns__jval *a, const nns__jval *b, int depth) {
  if (!a || !b)
    return a == b;
  if (a->type != b->type || depth > 64)
    return false;
  switch (a->type) {
  case NNS__J_NULL: return true;
  case NNS__J_BOOL: return a->b == b->b;
  case NNS__J_NUM:
    return a->is_int == b->is_int && (a->is_int ? a->i == b->i : a->d == b->d);
  case NNS__J_STR: return a->len == b->len && !memcmp(a->s, b->s, a->len);
  case NNS__J_ARR:
  case NNS__J_OBJ:
    if (a->len != b->len)
      return false;
    for (size_t i = 0; i < a->len; i++)
      if ((a->type == NNS__J_OBJ && strcmp(a->keys[i], b->keys[i])) ||
          !jv_equal(a->items[i], b->items[i], depth + 1))
        return false;
    return true;
  }
  return false;
}

/* The dtypes of the parameters, without their counts (a model that grew
 * keeps its dtypes). */
static bool same_dtypes(const nns__jval *a, const nns__jval *b) {
  if (!a || !b || a->type != NNS__J_ARR || b->type != NNS__J_ARR)
    return a == b;
  if (a->len != b->len)
    return false;
  for (size_t i = 0; i < a->len; i++)
    if (strcmp(nns__json_str_or(nns__json_get(a->items[i], "dtype"), ""),
               nns__json_str_or(nns__json_get(b->items[i], "dtype"), "")))
      return false;
  return true;
}

bool nns__diff_delta(const ddiff *d, const dmetric *b, const dmetric *a,
                     int64_t *delta) {
  /* A value counted with symbolic dims taken as 1 compares as summary
   * counts it: the runs are alike (same inputs, so the same symbols), and
   * both sides are at the same size. */
  if (!d->comparable || (b->status != D_COMPLETE && !b->at_one) ||
      (a->status != D_COMPLETE && !a->at_one))
    return false;
  return !__builtin_sub_overflow(a->value, b->value, delta);
}

bool nns__diff_changed(const ddiff *d, const size_t pair[2]) {
  const drow *b = &d->before.rows[pair[0]], *a = &d->after.rows[pair[1]];
  for (int i = 0; i < NNS__M_COUNT; i++)
    if (b->m[i].status != a->m[i].status || b->m[i].value != a->m[i].value)
      return true;
  return strcmp(b->type, a->type) || !jv_equal(b->output, a->output, 0);
}

static nns_status match(nns__arena *ar, ddiff *d, nns_error *err) {
  size_t nb = d->before.count, na = d->after.count;
  d->pairs = nns__arena_array(ar, nb + na ? nb + na : 1, sizeof *d->pairs);
  bool *used = calloc(nb ? nb : 1, 1);
  if (!d->pairs || !used) {
    free(used);
    return nns__err(err, NNS_E_NOMEM, -1, NULL, "out of memory");
  }
  for (size_t j = 0; j < na; j++) {
    size_t i = find_row(&d->before, &d->after.rows[j]);
    if (i != (size_t)-1 && used[i])
      i = (size_t)-1; /* a path listed twice: the second is new */
    if (i != (size_t)-1)
      used[i] = true;
    d->pairs[d->pair_count][0] = i;
    d->pairs[d->pair_count][1] = j;
    d->pair_count++;
    if (i == (size_t)-1)
      d->added++;
    else if (nns__diff_changed(d, d->pairs[d->pair_count - 1]))
      d->changed++;
    else
      d->unchanged++;
  }
  for (size_t i = 0; i < nb; i++)
    if (!used[i]) {
      d->pairs[d->pair_count][0] = i;
      d->pairs[d->pair_count][1] = (size_t)-1;
      d->pair_count++;
      d->removed++;
    }
  free(used);
  return NNS_OK;
}

/* ==== Budgets ==== */

static nns_status parse_budgets(nns__arena *ar, ddiff *d, const char *text,
                                nns_error *err) {
  size_t n = 0;
  for (const char *p = text; p && *p; p++)
    n += *p == ',' || *p == ';';
  d->budgets = nns__arena_array(ar, n + 1, sizeof *d->budgets);
  if (!d->budgets)
    return nns__err(err, NNS_E_NOMEM, -1, NULL, "out of memory");
  if (!text || !*text)
    return NNS_OK; /* no budgets */
  for (const char *p = text; p;) {
    size_t len = strcspn(p, ",;");
    const char *q = p, *end = p + len;
    p = *end ? end + 1 : NULL; /* a separator at the end: one more item */
    while (q < end && (*q == ' ' || *q == '\t'))
      q++;
    const char *e = end;
    while (e > q && (e[-1] == ' ' || e[-1] == '\t'))
      e--;
    if (q == e)
      /* An empty item is a budget lost (a stray comma, an empty
       * --fail-if): refused, so that no typo switches the gate off. */
      return nns__err(err, NNS_E_ARG, -1, NULL,
                      "budgets '%.200s': budget %zu is empty (budgets are "
                      "METRIC OP [+|-]N[%%], separated by ',' or ';')",
                      text, d->budget_count + 1);
    dbudget *b = &d->budgets[d->budget_count];
    memset(b, 0, sizeof *b);
    snprintf(b->text, sizeof b->text, "%.*s", (int)(e - q), q);
    /* The metric's name. */
    const char *w = q;
    while (w < e && ((*w >= 'a' && *w <= 'z') || *w == '_'))
      w++;
    b->metric = -1;
    for (int i = 0; i < NNS__M_COUNT; i++)
      if ((size_t)(w - q) == strlen(nns__diff_metric_keys[i]) &&
          !memcmp(q, nns__diff_metric_keys[i], (size_t)(w - q)))
        b->metric = i;
    while (w < e && *w == ' ')
      w++;
    size_t opl = w < e && (*w == '>' || *w == '<') ? (w + 1 < e && w[1] == '=' ? 2 : 1) : 0;
    memcpy(b->op, w, opl);
    w += opl;
    while (w < e && *w == ' ')
      w++;
    char num[48];
    size_t nl = (size_t)(e - w);
    char *stop = NULL;
    if (nl < sizeof num) {
      memcpy(num, w, nl);
      num[nl] = 0;
      b->limit = strtod(num, &stop);
      if (stop != num && *stop == '%') {
        b->percent = true;
        stop++;
      }
    }
    if (b->metric < 0 || !opl || nl >= sizeof num || !stop || stop == num ||
        *stop || !isfinite(b->limit))
      return nns__err(err, NNS_E_ARG, -1, NULL,
                      "budget '%s' is not METRIC OP [+|-]N[%%] (METRIC one of "
                      "%s; OP >, >=, < or <=)",
                      b->text, METRIC_WORDS);
    d->budget_count++;
  }
  return NNS_OK;
}

/* The delta in percent of the before side; NAN when before is 0 and the
 * delta not (an infinite relative change, which passes any limit). */
static double pct(int64_t before, int64_t delta) {
  if (before == 0)
    return delta == 0 ? 0.0 : delta > 0 ? INFINITY : -INFINITY;
  return (double)delta * 100.0 / (double)before;
}

static void check_budgets(ddiff *d) {
  for (size_t k = 0; k < d->budget_count; k++) {
    dbudget *b = &d->budgets[k];
    int64_t delta;
    const dmetric *mb = &d->before.totals.m[b->metric],
                  *ma = &d->after.totals.m[b->metric];
    if (!nns__diff_delta(d, mb, ma, &delta)) {
      b->state = 2;
      continue;
    }
    double x = b->percent ? pct(mb->value, delta) : (double)delta;
    bool hit = !strcmp(b->op, ">")    ? x > b->limit
                : !strcmp(b->op, ">=") ? x >= b->limit
                : !strcmp(b->op, "<")  ? x < b->limit
                                       : x <= b->limit;
    b->state = hit ? 1 : 0; /* the condition names a failure */
  }
}

/* Whether a delta the report gives compares values at symbols = 1. */
static bool delta_at_one(const ddiff *d, const dmetric *b, const dmetric *a) {
  int64_t delta;
  return (b->at_one || a->at_one) && nns__diff_delta(d, b, a, &delta);
}

/* Whether any delta the report gives compares values at symbols = 1. */
static bool any_at_one(const ddiff *d) {
  for (int i = 0; i < NNS__M_COUNT; i++)
    if (delta_at_one(d, &d->before.totals.m[i], &d->after.totals.m[i]))
      return true;
  for (size_t p = 0; p < d->pair_count; p++) {
    const size_t *pr = d->pairs[p];
    if (pr[0] == (size_t)-1 || pr[1] == (size_t)-1)
      continue;
    for (int i = 0; i < NNS__M_COUNT; i++)
      if (delta_at_one(d, &d->before.rows[pr[0]].m[i],
                       &d->after.rows[pr[1]].m[i]))
        return true;
  }
  return false;
}

/* The sentence that says the deltas are at symbols = 1, which symbols and
 * the option that fixes them, as summary's footer says it: "Symbolic dims
 * taken as 1 (as summary counts): batch; deltas marked * are at that
 * size. Fix them with: --input x=Nx3x8x8 (N: the size you run with), or
 * --input SYMBOL=N". */
static void symbols_note(ddiff *d) {
  d->symbols_at_one = any_at_one(d);
  if (!d->symbols_at_one)
    return;
  d->symbols = nns__json_get(d->after.doc, "symbols");
  d->sym_fix = nns__json_get(d->after.doc, "symbolic_inputs");
  char *p = d->sym_note, *end = d->sym_note + sizeof d->sym_note;
  p += snprintf(p, (size_t)(end - p),
                "Symbolic dims taken as 1 on both sides, as nnscan summary "
                "counts them:");
  for (size_t i = 0; d->symbols && d->symbols->type == NNS__J_ARR &&
                     i < d->symbols->len && p < end; i++)
    p += snprintf(p, (size_t)(end - p), "%s%s", i ? ", " : " ",
                  nns__json_str_or(d->symbols->items[i], "?"));
  if (p < end)
    p += snprintf(p, (size_t)(end - p),
                  "; values and deltas marked * hold at that size. Fix them "
                  "with:");
  size_t n = 0;
  for (size_t i = 0; d->sym_fix && d->sym_fix->type == NNS__J_ARR &&
                     i < d->sym_fix->len && p < end; i++, n++)
    p += snprintf(p, (size_t)(end - p), "%s%s", i ? ", " : " ",
                  nns__json_str_or(nns__json_get(d->sym_fix->items[i],
                                                 "option"), "?"));
  if (p < end)
    snprintf(p, (size_t)(end - p), "%s--input SYMBOL=N (N: the size you "
             "run with)", n ? ", or " : " ");
}

/* ==== The "nnscan.diff" document ==== */

static void put_metric(nns__jw *w, const char *key, size_t klen,
                       const dmetric *m) {
  nns__jw_obj(w, key, klen);
  nns__jw_str(w, NNS__JK("status"), nns__diff_status_name(m->status));
  if (m->status == D_COMPLETE)
    nns__jw_int(w, NNS__JK("value"), m->value);
  else if (m->status == D_PARTIAL)
    nns__jw_int(w, NNS__JK("known_value"), m->value);
  if (m->at_one)
    nns__jw_bool(w, NNS__JK("at_symbols_1"), true);
  nns__jw_end(w, NULL);
}

static void put_side(nns__jw *w, const char *key, size_t klen,
                     const dside *s) {
  nns__jw_obj(w, key, klen);
  nns__jw_str(w, NNS__JK("name"), s->name);
  nns__jw_str(w, NNS__JK("path"), s->path);
  nns__jw_str(w, NNS__JK("nnscan_version"), s->nnscan_version);
  nns__jw_int(w, NNS__JK("schema_version"), s->version);
  nns__jw_jval(w, NNS__JK("inputs"), s->inputs);
  nns__jw_arr(w, NNS__JK("param_dtypes"));
  for (size_t i = 0; s->param_dtypes && s->param_dtypes->type == NNS__J_ARR &&
                     i < s->param_dtypes->len; i++)
    nns__jw_str(w, NNS__JV, nns__json_str_or(nns__json_get(
                                s->param_dtypes->items[i], "dtype"), ""));
  nns__jw_end(w, NULL);
  nns__jw_end(w, NULL);
}

/* {"before": m, "after": m, "delta": n | null, "delta_pct": x | null} for
 * each metric of a pair of rows. */
static void put_pair_metrics(nns__jw *w, const ddiff *d, const drow *b,
                             const drow *a) {
  nns__jw_obj(w, NNS__JK("metrics"));
  for (int i = 0; i < NNS__M_COUNT; i++) {
    nns__jw_key(w, nns__diff_metric_keys[i]);
    nns__jw_obj(w, NNS__JV);
    put_metric(w, NNS__JK("before"), &b->m[i]);
    put_metric(w, NNS__JK("after"), &a->m[i]);
    int64_t delta;
    if (nns__diff_delta(d, &b->m[i], &a->m[i], &delta)) {
      nns__jw_int(w, NNS__JK("delta"), delta);
      nns__jw_double(w, NNS__JK("delta_pct"), pct(b->m[i].value, delta), 12,
                     false);
    } else {
      nns__jw_null(w, NNS__JK("delta"));
      nns__jw_null(w, NNS__JK("delta_pct"));
    }
    nns__jw_end(w, NULL);
  }
  nns__jw_end(w, NULL);
}

static void put_one_side_row(nns__jw *w, const drow *r) {
  nns__jw_obj(w, NNS__JV);
  nns__jw_str(w, NNS__JK("path"), r->path);
  nns__jw_int(w, NNS__JK("call"), r->call);
  nns__jw_str(w, NNS__JK("type"), r->type);
  nns__jw_jval(w, NNS__JK("output"), r->output);
  nns__jw_obj(w, NNS__JK("metrics"));
  for (int i = 0; i < NNS__M_COUNT; i++) {
    nns__jw_key(w, nns__diff_metric_keys[i]);
    put_metric(w, NNS__JV, &r->m[i]);
  }
  nns__jw_end(w, NULL);
  nns__jw_end(w, NULL);
}

static nns_status diff_json(const ddiff *d, nns__out *o) {
  nns__jw jw, *w = &jw;
  nns__jw_init(w, o);
  nns__jw_obj_brk(w, NNS__JV, "\n  ");
  nns__jw_str(w, NNS__JK("schema"), "nnscan.diff");
  nns__jw_int(w, NNS__JK("schema_version"), 1);
  nns__jw_str(w, NNS__JK("nnscan_version"), nns_version());
  put_side(w, NNS__JK("before"), &d->before);
  put_side(w, NNS__JK("after"), &d->after);
  nns__jw_bool(w, NNS__JK("comparable"), d->comparable);
  nns__jw_arr(w, NNS__JK("withheld_because"));
  for (int i = 0; d->why[i]; i++)
    nns__jw_str(w, NNS__JV, d->why[i]);
  nns__jw_end(w, NULL);
  /* Deltas of values counted at symbolic dims = 1: which, how to fix. */
  nns__jw_arr(w, NNS__JK("symbols_taken_as_1"));
  for (size_t i = 0; d->symbols_at_one && d->symbols &&
                     d->symbols->type == NNS__J_ARR && i < d->symbols->len; i++)
    nns__jw_str(w, NNS__JV, nns__json_str_or(d->symbols->items[i], "?"));
  nns__jw_end(w, NULL);
  nns__jw_arr(w, NNS__JK("symbols_fix"));
  for (size_t i = 0; d->symbols_at_one && d->sym_fix &&
                     d->sym_fix->type == NNS__J_ARR && i < d->sym_fix->len; i++)
    nns__jw_str(w, NNS__JV, nns__json_str_or(
                                nns__json_get(d->sym_fix->items[i], "option"),
                                "?"));
  nns__jw_end(w, NULL);
  if (d->symbols_at_one)
    nns__jw_str(w, NNS__JK("symbols_note"), d->sym_note);
  else
    nns__jw_null(w, NNS__JK("symbols_note"));
  nns__jw_obj(w, NNS__JK("totals"));
  put_pair_metrics(w, d, &d->before.totals, &d->after.totals);
  nns__jw_end(w, NULL);
  nns__jw_obj(w, NNS__JK("counts"));
  nns__jw_int(w, NNS__JK("added"), (int64_t)d->added);
  nns__jw_int(w, NNS__JK("removed"), (int64_t)d->removed);
  nns__jw_int(w, NNS__JK("changed"), (int64_t)d->changed);
  nns__jw_int(w, NNS__JK("unchanged"), (int64_t)d->unchanged);
  nns__jw_end(w, NULL);
  static const char *const kinds[] = {"added", "removed", "changed"};
  for (int k = 0; k < 3; k++) {
    nns__jw_key(w, kinds[k]);
    nns__jw_arr_brk(w, NNS__JV, "\n    ");
    for (size_t p = 0; p < d->pair_count; p++) {
      const size_t *pr = d->pairs[p];
      if (k == 0 && pr[0] == (size_t)-1) {
        put_one_side_row(w, &d->after.rows[pr[1]]);
      } else if (k == 1 && pr[1] == (size_t)-1) {
        put_one_side_row(w, &d->before.rows[pr[0]]);
      } else if (k == 2 && pr[0] != (size_t)-1 && pr[1] != (size_t)-1 &&
                 nns__diff_changed(d, pr)) {
        const drow *b = &d->before.rows[pr[0]], *a = &d->after.rows[pr[1]];
        nns__jw_obj(w, NNS__JV);
        nns__jw_str(w, NNS__JK("path"), a->path);
        nns__jw_int(w, NNS__JK("call"), a->call);
        nns__jw_str(w, NNS__JK("type_before"), b->type);
        nns__jw_str(w, NNS__JK("type_after"), a->type);
        nns__jw_jval(w, NNS__JK("output_before"), b->output);
        nns__jw_jval(w, NNS__JK("output_after"), a->output);
        put_pair_metrics(w, d, b, a);
        nns__jw_end(w, NULL);
      }
    }
    nns__jw_end(w, "\n  ");
  }
  nns__jw_arr_brk(w, NNS__JK("budgets"), "\n    ");
  static const char *const states[] = {"ok", "exceeded", "withheld"};
  for (size_t k = 0; k < d->budget_count; k++) {
    const dbudget *b = &d->budgets[k];
    nns__jw_obj(w, NNS__JV);
    nns__jw_str(w, NNS__JK("budget"), b->text);
    nns__jw_str(w, NNS__JK("metric"), nns__diff_metric_keys[b->metric]);
    nns__jw_str(w, NNS__JK("op"), b->op);
    nns__jw_double(w, NNS__JK("limit"), b->limit, 17, false);
    nns__jw_bool(w, NNS__JK("percent"), b->percent);
    nns__jw_str(w, NNS__JK("status"), states[b->state]);
    nns__jw_end(w, NULL);
  }
  nns__jw_end(w, "\n  ");
  nns__jw_end(w, "\n");
  nns__out_put(o, "\n", 1);
  return nns__jw_finish(w);
}

static nns_status diff_json_fn(const void *d, const nns_report_options *opt,
                               nns__out *o) {
  (void)opt;
  return diff_json(d, o);
}

/* ==== Entry point ==== */

nns_status nns_diff_report(const char *before, size_t before_size,
                           const char *after, size_t after_size,
                           const nns_diff_options *opts, nns_write_fn write,
                           void *user, nns_diff_result *result,
                           nns_error *err) {
  if (!before || !after || !write)
    return nns__report_err(err, NNS_E_ARG,
                           "nns_diff_report needs two documents and a write "
                           "callback");
  nns_diff_options o = {.size = sizeof o, .format = NNS_FORMAT_TEXT};
  if (opts) {
    if (opts->size < sizeof o)
      return nns__report_err(err, NNS_E_ARG,
                             "nns_diff_options.size is below the first "
                             "version's");
    o = *opts;
  }
  if (o.format != NNS_FORMAT_TEXT && o.format != NNS_FORMAT_JSON &&
      o.format != NNS_FORMAT_HTML)
    return nns__report_err(err, NNS_E_ARG,
                           "a diff is text, JSON or HTML");
  if (result && result->size < sizeof *result)
    return nns__report_err(err, NNS_E_ARG,
                           "nns_diff_result.size is below the first "
                           "version's");
  nns__arena ar;
  nns__arena_init(&ar);
  ddiff d;
  memset(&d, 0, sizeof d);
  nns_status st = read_side(&ar, before, before_size, "before", &d.before, err);
  if (st == NNS_OK)
    st = read_side(&ar, after, after_size, "after", &d.after, err);
  if (st == NNS_OK)
    st = parse_budgets(&ar, &d, o.budgets, err);
  if (st != NNS_OK) {
    nns__arena_free(&ar);
    return st;
  }
  int nwhy = 0;
  if (!jv_equal(d.before.inputs, d.after.inputs, 0))
    d.why[nwhy++] = "the inputs differ (names, dtypes or shapes)";
  if (strcmp(d.before.nnscan_version, d.after.nnscan_version))
    d.why[nwhy++] = "the nnscan versions differ";
  if (!same_dtypes(d.before.param_dtypes, d.after.param_dtypes))
    d.why[nwhy++] = "the parameter dtypes differ";
  d.comparable = nwhy == 0;
  st = match(&ar, &d, err);
  if (st != NNS_OK) {
    nns__arena_free(&ar);
    return st;
  }
  check_budgets(&d);
  symbols_note(&d);
  if (result) {
    size_t size = result->size;
    memset(result, 0, sizeof *result);
    result->size = size;
    result->comparable = d.comparable;
    result->added = d.added;
    result->removed = d.removed;
    result->changed = d.changed;
    result->unchanged = d.unchanged;
    result->budgets = (int)d.budget_count;
    for (size_t k = 0; k < d.budget_count; k++) {
      result->exceeded += d.budgets[k].state == 1;
      result->withheld += d.budgets[k].state == 2;
    }
  }
  nns__out *out = malloc(sizeof *out);
  if (!out) {
    nns__arena_free(&ar);
    return nns__report_err(err, NNS_E_NOMEM, "out of memory");
  }
  nns__out_init(out, write, user);
  if (o.format == NNS_FORMAT_JSON) {
    st = diff_json(&d, out);
  } else if (o.format == NNS_FORMAT_HTML) {
    char title[600];
    snprintf(title, sizeof title, "%s vs %s: nnscan diff", d.before.name,
             d.after.name);
    st = nns__html_of(out, "nnscan.diff", title, diff_json_fn, &d, NULL);
  } else {
    st = nns__diff_text(&d, out);
  }
  nns_status fst = nns__out_finish(out, err);
  free(out);
  nns__arena_free(&ar);
  if (st != NNS_OK)
    return nns__report_err(err, st, "out of memory");
  return fst;
}
