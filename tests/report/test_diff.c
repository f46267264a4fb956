/*
 * test_diff.c - nns_diff_report on small documents written out here by
 * hand: deltas and percentages worked out in the comments, budgets on
 * each side of their limits, a version 1 side's statuses from its flags,
 * and budgets that do not parse. (Whole models: report/run.sh and
 * python/tests/test_contract.py.)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "nnscan.h"


/* A version 2 summary with one layer "fc" under the root, whose MACs are
 * `macs` (complete) and whose params are 50. */
static char *doc_v2(long long macs) {
  static const char fmt[] =
      "{\"schema\": \"nnscan.summary\", \"schema_version\": 2, "
      "\"nnscan_version\": \"t\", \"model\": {\"name\": \"m\"}, "
      "\"inputs\": [{\"name\": \"x\", \"dtype\": \"float32\", \"shape\": [1]}], "
      "\"params_by_dtype\": [{\"dtype\": \"float32\"}], "
      "\"totals\": {\"metrics\": {%s}}, \"layers\": ["
      "{\"path\": \"\", \"type\": \"M\", \"metrics\": {%s}}, "
      "{\"path\": \"fc\", \"type\": \"Gemm\", \"metrics\": {%s}}]}";
  char m[512];
  snprintf(m, sizeof m,
           "\"params\": {\"status\": \"complete\", \"value\": 50}, "
           "\"macs\": {\"status\": \"complete\", \"value\": %lld}",
           macs);
  size_t n = sizeof fmt + 3 * strlen(m);
  char *d = malloc(n);
  snprintf(d, n, fmt, m, m, m);
  return d;
}

static nns_status diff(const char *a, const char *b, nns_report_format f,
                       const char *budgets, nns_diff_result *r, check_sink *out,
                       nns_error *e) {
  nns_diff_options o = {.size = sizeof o, .format = f, .budgets = budgets};
  memset(out, 0, sizeof *out);
  r->size = sizeof *r;
  return nns_diff_report(a, strlen(a), b, strlen(b), &o, check_sink_write,
                         out, r, e);
}

/* 100 -> 110 MACs: +10, +10% of before; params unchanged. */
static void test_deltas_and_budgets(void) {
  char *a = doc_v2(100), *b = doc_v2(110);
  nns_diff_result r;
  check_sink s;
  nns_error e;
  CHECK_EQ(diff(a, b, NNS_FORMAT_JSON,
                "macs > +9.99%, macs > +10%, macs >= +10%, macs < -1%, "
                "params > +0; macs >= 10; macs > 10",
                &r, &s, &e), NNS_OK);
  CHECK(r.comparable);
  CHECK_EQ(r.changed, 2); /* the root and fc */
  CHECK_EQ(r.added + r.removed + r.unchanged, 0);
  CHECK_EQ(r.budgets, 7);
  /* exceeded: > 9.99%, >= 10%, >= 10; not: > 10%, < -1%, params, > 10 */
  CHECK_EQ(r.exceeded, 3);
  CHECK_EQ(r.withheld, 0);
  CHECK(strstr(s.buf, "\"macs\": {\"before\": {\"status\": \"complete\", "
                      "\"value\": 100}, \"after\": {\"status\": \"complete\", "
                      "\"value\": 110}, \"delta\": 10, \"delta_pct\": 10}"));
  free(s.buf);
  free(a);
  free(b);
}

/* From 0: any growth passes a percentage limit (an infinite change); no
 * growth passes none. */
static void test_from_zero(void) {
  char *a = doc_v2(0), *b = doc_v2(5);
  nns_diff_result r;
  check_sink s;
  CHECK_EQ(diff(a, b, NNS_FORMAT_TEXT, "macs > +1000%", &r, &s, NULL), NNS_OK);
  CHECK_EQ(r.exceeded, 1);
  free(s.buf);
  CHECK_EQ(diff(a, a, NNS_FORMAT_TEXT, "macs > +0%", &r, &s, NULL), NNS_OK);
  CHECK_EQ(r.exceeded, 0);
  CHECK_EQ(r.unchanged, 2);
  free(s.buf);
  free(a);
  free(b);
}

/* A version 1 side: its partial flag makes FLOPs, MACs and DMAs partial,
 * so the MAC budget is withheld while the params one is checked. */
static void test_v1_partial(void) {
  const char *v1 =
      "{\"schema\": \"nnscan.summary\", \"schema_version\": 1, "
      "\"nnscan_version\": \"t\", \"inputs\": [{\"name\": \"x\", \"dtype\": "
      "\"float32\", \"shape\": [1]}], \"params_by_dtype\": [{\"dtype\": "
      "\"float32\"}], \"totals\": {\"params\": 50, \"macs\": 100, "
      "\"flags\": {\"partial\": true}}, \"layers\": [{\"path\": \"\", "
      "\"type\": \"M\", \"params\": 50, \"macs\": 100, \"flags\": "
      "{\"partial\": true}}]}";
  char *b = doc_v2(100);
  nns_diff_result r;
  check_sink s;
  CHECK_EQ(diff(v1, b, NNS_FORMAT_TEXT, "macs > +0, params > +0", &r, &s,
                NULL), NNS_OK);
  CHECK_EQ(r.withheld, 1);
  CHECK_EQ(r.exceeded, 0);
  CHECK(strstr(s.buf, "≥ 100") != NULL);
  CHECK(strstr(s.buf, "withheld (a lower bound: not every node counted)") != NULL);
  free(s.buf);
  free(b);
}

/* Other inputs: nothing comparable, every budget withheld. */
static void test_runs_differ(void) {
  char *a = doc_v2(100), *b = doc_v2(100);
  char *shape = strstr(b, "[1]");
  shape[1] = '2';
  nns_diff_result r;
  check_sink s;
  CHECK_EQ(diff(a, b, NNS_FORMAT_JSON, "params > +0", &r, &s, NULL), NNS_OK);
  CHECK(!r.comparable);
  CHECK_EQ(r.withheld, 1);
  CHECK(strstr(s.buf, "\"withheld_because\": [\"the inputs differ") != NULL);
  free(s.buf);
  free(a);
  free(b);
}

static void test_bad_budgets(void) {
  static const char *const bad[] = {"macs", "macs >", "macs > 5x",
                                    "latency > 1", "macs = 5", "> 5",
                                    "macs > nan"};
  char *a = doc_v2(1);
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    nns_diff_result r;
    check_sink s;
    nns_error e;
    CHECK_EQ(diff(a, a, NNS_FORMAT_TEXT, bad[i], &r, &s, &e), NNS_E_ARG);
    CHECK(strstr(e.message, "budget") != NULL);
    free(s.buf);
  }
  free(a);
}

/* A version 2 summary whose MACs are partial for the diagnostic `code`
 * (id 3), known value `macs`, params 50 complete; batch a symbol. */
static char *doc_v2_partial(long long macs, const char *code) {
  static const char fmt[] =
      "{\"schema\": \"nnscan.summary\", \"schema_version\": 2, "
      "\"nnscan_version\": \"t\", \"model\": {\"name\": \"m\"}, "
      "\"inputs\": [{\"name\": \"x\", \"dtype\": \"float32\", "
      "\"shape\": [\"batch\", 8]}], "
      "\"params_by_dtype\": [{\"dtype\": \"float32\"}], "
      "\"symbols\": [\"batch\"], \"symbolic_inputs\": [{\"input\": "
      "\"x\", \"option\": \"--input x=Nx8\"}], "
      "\"diagnostics\": [{\"id\": 3, \"code\": \"%s\"}], "
      "\"totals\": {\"metrics\": {%s}}, \"layers\": ["
      "{\"path\": \"\", \"type\": \"M\", \"metrics\": {%s}}]}";
  char m[512];
  snprintf(m, sizeof m,
           "\"params\": {\"status\": \"complete\", \"value\": 50}, "
           "\"macs\": {\"status\": \"partial\", \"known_value\": %lld, "
           "\"diagnostics\": [3]}",
           macs);
  size_t n = sizeof fmt + 2 * strlen(m) + strlen(code);
  char *d = malloc(n);
  snprintf(d, n, fmt, code, m, m);
  return d;
}

/* MACs partial only because batch was taken as 1 (issue 41 item 5): 192
 * -> 204 is +12, +6.25%: 'macs > +5%' is exceeded, 'macs > +10%' not,
 * and the text names the symbol and the option. Partial for another
 * reason (a node not counted): still withheld. */
static void test_symbols_at_one(void) {
  char *a = doc_v2_partial(192, "size.symbol_taken_as_1");
  char *b = doc_v2_partial(204, "size.symbol_taken_as_1");
  nns_diff_result r;
  check_sink s;
  CHECK_EQ(diff(a, b, NNS_FORMAT_TEXT, "macs > +5%, macs > +10%", &r, &s,
                NULL), NNS_OK);
  CHECK_EQ(r.exceeded, 1);
  CHECK_EQ(r.withheld, 0);
  CHECK(strstr(s.buf, "+12 (+6.25%)*") != NULL);
  CHECK(strstr(s.buf, "taken as 1 on both sides, as nnscan summary counts "
                      "them: batch;") != NULL);
  CHECK(strstr(s.buf, "Fix them with: --input x=Nx8, or --input SYMBOL=N")
        != NULL);
  free(s.buf);
  CHECK_EQ(diff(a, b, NNS_FORMAT_JSON, "", &r, &s, NULL), NNS_OK);
  CHECK(strstr(s.buf, "\"symbols_taken_as_1\": [\"batch\"]") != NULL);
  CHECK(strstr(s.buf, "\"at_symbols_1\": true") != NULL);
  free(s.buf);
  free(b);
  b = doc_v2_partial(204, "cost.not_counted");
  CHECK_EQ(diff(a, b, NNS_FORMAT_TEXT, "macs > +5%", &r, &s, NULL), NNS_OK);
  CHECK_EQ(r.withheld, 1);
  CHECK_EQ(r.exceeded, 0);
  CHECK(strstr(s.buf, "withheld (a lower bound: not every node counted)")
        != NULL);
  CHECK(strstr(s.buf, "Symbolic dims") == NULL);
  CHECK(strstr(s.buf, "*") == NULL); /* no mark without its footnote */
  CHECK(strstr(s.buf, "≥ 192") != NULL);
  free(s.buf);
  free(a);
  free(b);
}

int main(void) {
  RUN(test_symbols_at_one);
  RUN(test_deltas_and_budgets);
  RUN(test_from_zero);
  RUN(test_v1_partial);
  RUN(test_runs_differ);
  RUN(test_bad_budgets);
  return check_finish();
}
