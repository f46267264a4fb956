/*
 * test_rf_reference.c - the model receptive field (nns_model_total_rf) of every
 * torchvision fixture export and of the hand-built residual, inception,
 * squeeze-excitation, channel-shuffle and channels-last graphs, against
 * what PyTorch measures by back-propagation (fixtures/rf_reference.json,
 * written by tools/rf_reference.py: the extent of the non-zero input
 * gradient of interior elements of the last spatial feature map of a
 * geometry-only model). Field, effective stride and effective padding
 * must be equal on both axes, in every opset and fold variant, and
 * global_context must say what the gradient with the gates kept says.
 * The test never runs PyTorch: it reads the committed JSON (one line per
 * model).
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "nnscan.h"

#define REFERENCE "fixtures/rf_reference.json"

typedef struct reference {
  char name[64];
  int64_t field[2], stride[2], padding[2];
  int global_context;
} reference;

static int models_checked, exports_checked;

/* The two integers of `"key": [a, b]` in line, false when absent. */
static bool pair(const char *line, const char *key, int64_t out[2]) {
  char pat[64];
  snprintf(pat, sizeof pat, "\"%s\": [", key);
  const char *p = strstr(line, pat);
  if (!p)
    return false;
  char *end;
  out[0] = strtoll(p + strlen(pat), &end, 10);
  if (*end != ',')
    return false;
  out[1] = strtoll(end + 1, &end, 10);
  return *end == ']';
}

/* A model line: `  "name": {"field": [..], ...}`. */
static bool parse(const char *line, reference *r) {
  const char *q = strchr(line, '"'), *e = q ? strchr(q + 1, '"') : NULL;
  if (!e || (size_t)(e - q - 1) >= sizeof r->name)
    return false;
  memcpy(r->name, q + 1, (size_t)(e - q - 1));
  r->name[e - q - 1] = 0;
  r->global_context = strstr(line, "\"global_context\": true") != NULL;
  return pair(line, "field", r->field) && pair(line, "stride", r->stride) &&
         pair(line, "padding", r->padding) &&
         strstr(line, "\"global_context\": ") != NULL;
}

/* Returns false when the file does not exist (an export that was skipped). */
static bool check_export(const char *path, const reference *r) {
  FILE *f = fopen(path, "rb");
  if (!f)
    return false;
  fclose(f);
  nns_model *m = NULL;
  nns_error err;
  if (nns_model_load_file(path, NULL, &m, &err) != NNS_OK ||
      nns_model_infer(m, NULL, &err) != NNS_OK ||
      nns_model_analyze(m, NULL, &err) != NNS_OK) {
    check_fail(__FILE__, __LINE__, "%s: %s", path, err.message);
    nns_model_free(m);
    return true;
  }
  nns_rf rf = {.size = sizeof rf};
  if (nns_model_total_rf(m, &rf) != NNS_OK)
    check_fail(__FILE__, __LINE__, "%s: nns_model_total_rf failed", path);
  bool same = rf.axes == 2 && !rf.whole &&
              rf.global_context == r->global_context;
  for (int k = 0; same && k < 2; k++)
    same = rf.field[k] == r->field[k] && rf.stride[k] == r->stride[k] &&
           rf.padding[k] == r->padding[k];
  if (!same)
    check_fail(__FILE__, __LINE__,
               "%s: rf %lldx%lld stride %lldx%lld padding %lldx%lld%s, "
               "PyTorch %lldx%lld stride %lldx%lld padding %lldx%lld%s",
               path, (long long)rf.field[0], (long long)rf.field[1],
               (long long)rf.stride[0], (long long)rf.stride[1],
               (long long)rf.padding[0], (long long)rf.padding[1],
               rf.global_context ? " +g" : "", (long long)r->field[0],
               (long long)r->field[1], (long long)r->stride[0],
               (long long)r->stride[1], (long long)r->padding[0],
               (long long)r->padding[1], r->global_context ? " +g" : "");
  if (getenv("NNS_TEST_VERBOSE"))
    printf("  %-48s %lld%s (PyTorch %lld%s)\n", path,
           (long long)rf.field[0], rf.global_context ? "+g" : "",
           (long long)r->field[0], r->global_context ? "+g" : "");
  nns_model_free(m);
  exports_checked++;
  return true;
}

static void check_model(const reference *r) {
  char path[256];
  if (strncmp(r->name, "analyze_", 8) == 0) {
    snprintf(path, sizeof path, "unit/models/%s.onnx", r->name);
    if (!check_export(path, r))
      check_fail(__FILE__, __LINE__, "%s: missing", path);
    models_checked++;
    return;
  }
  static const int opsets[] = {11, 13, 17};
  static const char *const variants[] = {"nofold", "fold"};
  int found = 0;
  for (int o = 0; o < 3; o++)
    for (int v = 0; v < 2; v++) {
      snprintf(path, sizeof path, "fixtures/models/%s_op%d_%s.onnx", r->name,
               opsets[o], variants[v]);
      found += check_export(path, r);
    }
  if (!found)
    check_fail(__FILE__, __LINE__, "%s: no export in fixtures/models",
               r->name);
  models_checked++;
}

static void test_rf_reference(void) {
  FILE *f = fopen(REFERENCE, "r");
  CHECK(f != NULL);
  if (!f)
    return;
  char line[4096];
  bool in_models = false;
  while (fgets(line, sizeof line, f)) {
    if (strstr(line, "\"models\": {")) {
      in_models = true;
      continue;
    }
    if (!in_models || line[0] != ' ' || line[1] != ' ' || line[2] != '"')
      continue;
    reference r;
    if (!parse(line, &r)) {
      check_fail(__FILE__, __LINE__, "cannot read: %s", line);
      continue;
    }
    check_model(&r);
  }
  fclose(f);
  /* Guard against a suite that passes by finding nothing: the five
   * hand-built graphs and the 17 torchvision models. */
  CHECK(models_checked >= 22);
  CHECK(exports_checked >= 5 + 17 * 5);
  printf("rf reference: %d models, %d exports\n", models_checked,
         exports_checked);
}

int main(void) {
  RUN(test_rf_reference);
  return check_finish();
}
