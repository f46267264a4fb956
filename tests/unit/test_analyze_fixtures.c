/*
 * test_analyze_fixtures.c - parameters of the torchvision fixture models
 * against PyTorch's own records (tests/fixtures/models/<model>.ref.json,
 * written by tools/make_fixtures.py from the live modules):
 *
 *   - for every export without constant folding (*_nofold.onnx): total
 *     trainable parameters == total_params_used (the parameters the eval
 *     forward pass uses), total buffers == total_buffers_used (BatchNorm
 *     running statistics), and the params and buffers of every module at
 *     depth 1 and 2 == those of the layer with the same dotted path;
 *   - the constant-folded exports (BatchNorm folded into the convolutions,
 *     so PyTorch's parameter counts do not apply) load and analyse.
 *
 * Modules PyTorch never called (calls 0: googlenet's and inception_v3's
 * auxiliary heads in eval mode) are not in the graph and are skipped; a
 * module that ran but produced no node (Dropout in eval) must have 0.
 */
#include <dirent.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "nnscan.h"
#include "testmodel.h"

#define FIXTURES "fixtures/models"

static int models_checked, modules_checked, folded_checked;

static char *read_all(const char *path) {
  FILE *f = fopen(path, "rb");
  if (!f)
    return NULL;
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  char *s = malloc((size_t)n + 1);
  if (s && fread(s, 1, (size_t)n, f) != (size_t)n) {
    free(s);
    s = NULL;
  }
  if (s)
    s[n] = '\0';
  fclose(f);
  return s;
}

/* The number after "key": in s (ref.json is written by json.dump, one
 * module per line), or -1. */
static long long json_int(const char *s, const char *key) {
  char pat[64];
  snprintf(pat, sizeof pat, "\"%s\": ", key);
  const char *p = strstr(s, pat);
  return p ? strtoll(p + strlen(pat), NULL, 10) : -1;
}

static const tm_layer *find_layer(tm_layer *layers, size_t n,
                                        const char *path) {
  for (size_t i = 0; i < n; i++)
    if (strcmp(layers[i].path, path) == 0)
      return &layers[i];
  return NULL;
}

static void check_nofold(const char *file, const char *model) {
  char path[1024];
  snprintf(path, sizeof path, FIXTURES "/%s.ref.json", model);
  char *ref = read_all(path);
  CHECK(ref != NULL);
  if (!ref)
    return;
  snprintf(path, sizeof path, FIXTURES "/%s", file);
  nns_model *m = NULL;
  nns_analysis *a = NULL;
  nns_error err;
  nns_status st = nns_model_load_file(path, NULL, &m, &err);
  if (st == NNS_OK)
    st = nns_model_analyze(m, NULL, &a, &err);
  if (st != NNS_OK) {
    check_fail(__FILE__, __LINE__, "%s: %s", file, err.message);
    nns_analysis_free(a);
    nns_model_free(m);
    free(ref);
    return;
  }
  tm_totals t = tm_totals_of(a);
  long long want_p = json_int(ref, "total_params_used");
  long long want_b = json_int(ref, "total_buffers_used");
  if (t.all.params != want_p || t.all.buffers != want_b)
    check_fail(__FILE__, __LINE__,
               "%s: params %lld buffers %lld, PyTorch %lld and %lld", file,
               (long long)t.all.params, (long long)t.all.buffers, want_p,
               want_b);
  size_t nl = nns_analysis_layer_count(a);
  tm_layer *layers = calloc(nl + 1, sizeof *layers);
  for (size_t i = 0; i < nl; i++)
    layers[i] = tm_layer_at(a, i);
  int bad = 0;
  for (char *line = strstr(ref, "{\"name\": \""); line;
       line = strstr(line + 1, "{\"name\": \"")) {
    char *end = strchr(line, '\n');
    char name[512];
    const char *q = line + strlen("{\"name\": \"");
    size_t k = 0;
    while (q[k] && q[k] != '"' && k + 1 < sizeof name) {
      name[k] = q[k];
      k++;
    }
    name[k] = '\0';
    if (end)
      *end = '\0';
    long long depth = json_int(line, "depth"), calls = json_int(line, "calls");
    long long params = json_int(line, "params");
    long long buffers = json_int(line, "buffers");
    if (end)
      *end = '\n';
    if ((depth != 1 && depth != 2) || calls == 0)
      continue;
    const tm_layer *l = find_layer(layers, nl, name);
    long long got_p = l ? l->counts.params : 0;
    long long got_b = l ? l->counts.buffers : 0;
    if ((got_p != params || got_b != buffers) && bad++ < 5)
      check_fail(__FILE__, __LINE__,
                 "%s: module %s: params %lld buffers %lld, PyTorch %lld and "
                 "%lld%s", file, name, got_p, got_b, params, buffers,
                 l ? "" : " (no such layer)");
    modules_checked++;
  }
  models_checked++;
  free(layers);
  nns_analysis_free(a);
  nns_model_free(m);
  free(ref);
}

static void check_fold(const char *file) {
  char path[1024];
  snprintf(path, sizeof path, FIXTURES "/%s", file);
  nns_model *m = NULL;
  nns_analysis *a = NULL;
  nns_error err;
  nns_status st = nns_model_load_file(path, NULL, &m, &err);
  if (st == NNS_OK)
    st = nns_model_analyze(m, NULL, &a, &err);
  if (st != NNS_OK)
    check_fail(__FILE__, __LINE__, "%s: %s", file, err.message);
  else {
    tm_totals t = tm_totals_of(a);
    CHECK(t.all.params > 0);
    CHECK(nns_analysis_layer_count(a) > 1);
    folded_checked++;
  }
  nns_analysis_free(a);
  nns_model_free(m);
}

static void test_fixtures(void) {
  DIR *d = opendir(FIXTURES);
  CHECK(d != NULL);
  if (!d)
    return;
  struct dirent *e;
  while ((e = readdir(d))) {
    const char *n = e->d_name;
    size_t len = strlen(n);
    if (len < 6 || strcmp(n + len - 5, ".onnx") != 0)
      continue;
    if (strstr(n, "_nofold.onnx")) {
      char model[256];
      const char *op = strstr(n, "_op");
      snprintf(model, sizeof model, "%.*s", (int)(op ? op - n : 0), n);
      check_nofold(n, model);
    } else if (strstr(n, "_fold.onnx")) {
      check_fold(n);
    }
  }
  closedir(d);
  printf("  %d nofold models, %d modules at depth 1-2, %d folded models\n",
         models_checked, modules_checked, folded_checked);
  CHECK(models_checked >= 45);
  CHECK(folded_checked >= 45);
}

int main(void) {
  RUN(test_fixtures);
  return check_finish();
}
