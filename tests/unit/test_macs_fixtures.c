/*
 * test_macs_fixtures.c - MACs of every torchvision fixture export, through
 * the public analysis, against the count PyTorch itself makes
 * (<model>.costs.json, tools/make_costs.py: TorchDispatchMode over aten
 * matmul-like, normalisation and pooling ops, by METRICS.md's rules):
 *   - every *_nofold export (opsets 11, 13, 17): total MACs within 0.5 % of
 *     macs_dispatch_total, with nothing left uncounted;
 *   - every *_fold export (BatchNorm folded into the convolutions): MACs
 *     within 0.5 % of its nofold twin's MACs minus the MACs of the
 *     BatchNorms the exporter can fold (macs_bn_foldable).
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "nnscan.h"
#include "testmodel.h"

#define FIXTURES "fixtures/models"

static int nofold_checked, fold_checked;

/* The integer after "key": in a small JSON file, or -1. */
static int64_t json_int(const char *path, const char *key) {
  FILE *f = fopen(path, "r");
  if (!f)
    return -1;
  static char buf[1 << 20];
  size_t n = fread(buf, 1, sizeof buf - 1, f);
  fclose(f);
  buf[n] = 0;
  char pat[128];
  snprintf(pat, sizeof pat, "\"%s\":", key);
  const char *p = strstr(buf, pat);
  return p ? strtoll(p + strlen(pat), NULL, 10) : -1;
}

/* Analysed total MACs of an export, or -1 (with a failure recorded). */
static int64_t export_macs(const char *file) {
  char path[512];
  snprintf(path, sizeof path, FIXTURES "/%s", file);
  nns_model *m = NULL;
  nns_analysis *a = NULL;
  nns_error err;
  if (nns_model_load_file(path, NULL, &m, &err) != NNS_OK ||
      nns_model_infer(m, NULL, &err) != NNS_OK ||
      nns_model_analyze(m, NULL, &a, &err) != NNS_OK) {
    check_fail(__FILE__, __LINE__, "%s: %s", file, err.message);
    nns_analysis_free(a);
    nns_model_free(m);
    return -1;
  }
  tm_totals t = tm_totals_of(a);
  if (t.all.flags & (NNS_COUNT_PARTIAL | NNS_COUNT_UNBOUNDED))
    check_fail(__FILE__, __LINE__, "%s: totals are not complete (%zu op "
               "types uncounted)", file, nns_analysis_uncounted_op_count(a));
  nns_analysis_free(a);
  nns_model_free(m);
  return t.all.macs;
}

static void check_close(const char *what, int64_t got, int64_t want) {
  double d = (double)got - (double)want;
  if (d < 0)
    d = -d;
  if (want <= 0 || d > 0.005 * (double)want)
    check_fail(__FILE__, __LINE__, "%s: MACs %lld, expected %lld (%.3f %%)",
               what, (long long)got, (long long)want,
               want > 0 ? 100.0 * d / (double)want : 100.0);
  if (getenv("NNS_TEST_VERBOSE"))
    printf("  %-34s %14lld  expected %14lld  %+.4f %%\n", what,
           (long long)got, (long long)want,
           want > 0 ? 100.0 * ((double)got - (double)want) / (double)want
                    : 0.0);
}

static void check_model(const char *model) {
  char costs[512];
  snprintf(costs, sizeof costs, FIXTURES "/%s.costs.json", model);
  int64_t want = json_int(costs, "macs_dispatch_total");
  int64_t bn_foldable = json_int(costs, "macs_bn_foldable");
  CHECK(want > 0 && bn_foldable >= 0);
  static const int opsets[] = {11, 13, 17};
  for (size_t i = 0; i < 3; i++) {
    char nofold[256], fold[256];
    snprintf(nofold, sizeof nofold, "%s_op%d_nofold.onnx", model, opsets[i]);
    snprintf(fold, sizeof fold, "%s_op%d_fold.onnx", model, opsets[i]);
    int64_t unfolded = export_macs(nofold);
    if (unfolded < 0)
      continue;
    check_close(nofold, unfolded, want);
    nofold_checked++;
    int64_t folded = export_macs(fold);
    if (folded < 0)
      continue;
    check_close(fold, folded, unfolded - bn_foldable);
    fold_checked++;
  }
}

static void test_fixture_macs(void) {
  DIR *d = opendir(FIXTURES);
  CHECK(d != NULL);
  if (!d)
    return;
  struct dirent *e;
  char *models[64];
  size_t n = 0;
  while ((e = readdir(d)) && n < 64) {
    char *dot = strstr(e->d_name, ".costs.json");
    if (dot && dot[strlen(".costs.json")] == 0)
      models[n++] = strndup(e->d_name, (size_t)(dot - e->d_name));
  }
  closedir(d);
  for (size_t i = 0; i < n; i++) {
    check_model(models[i]);
    free(models[i]);
  }
  /* 15 models x 3 opsets: a suite that finds nothing must fail. */
  CHECK(nofold_checked >= 45);
  CHECK(fold_checked >= 45);
  printf("MACs vs PyTorch: %d nofold and %d fold exports within 0.5 %%\n",
         nofold_checked, fold_checked);
}

int main(void) {
  RUN(test_fixture_macs);
  return check_finish();
}
