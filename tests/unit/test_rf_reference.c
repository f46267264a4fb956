/*
 * test_rf_reference.c - the model receptive field (nns_analysis_total_rf) of every
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
#include "testmodel.h"

#define REFERENCE "fixtures/rf_reference.json"

typedef struct reference {
  char name[64];
  int64_t field[2], stride[2], padding[2];
  int global_context;
  bool whole; /* every position sees the whole input (no field) */
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
  r->whole = strstr(line, "\"whole\": true") != NULL;
  if (r->whole)
    return r->global_context;
  return pair(line, "field", r->field) && pair(line, "stride", r->stride) &&
         pair(line, "padding", r->padding) &&
         strstr(line, "\"global_context\": ") != NULL;
}

/* The export at `path` analysed, or NULL: *missing when the file does not
 * exist (an export that was skipped), else a failure is reported. */
static nns_analysis *analysed_export(const char *path, bool *missing) {
  FILE *f = fopen(path, "rb");
  *missing = !f;
  if (!f)
    return NULL;
  fclose(f);
  nns_model *m = NULL;
  nns_analysis *a = NULL;
  nns_error err;
  if (nns_model_load_file(path, NULL, &m, &err) != NNS_OK ||
      nns_model_infer(m, NULL, &err) != NNS_OK ||
      nns_model_analyze(m, NULL, &a, &err) != NNS_OK) {
    check_fail(__FILE__, __LINE__, "%s: %s", path, err.message);
    nns_analysis_free(a);
    nns_model_free(m);
    return NULL;
  }
  return a;
}

/* Returns false when the file does not exist (an export that was skipped). */
static bool check_export(const char *path, const reference *r) {
  bool missing;
  nns_analysis *m = analysed_export(path, &missing);
  if (!m)
    return !missing;
  nns_rf rf = {.size = sizeof rf};
  if (nns_analysis_total_rf(m, &rf) != NNS_OK)
    check_fail(__FILE__, __LINE__, "%s: nns_analysis_total_rf failed", path);
  bool same = rf.axes == 2 && rf.whole == r->whole &&
              rf.global_context == r->global_context;
  for (int k = 0; same && !r->whole && k < 2; k++)
    same = rf.field[k] == r->field[k] && rf.stride[k] == r->stride[k] &&
           rf.padding[k] == r->padding[k];
  if (!same && !r->whole)
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
  if (r->whole && !same)
    check_fail(__FILE__, __LINE__, "%s: rf %s, PyTorch: whole input", path,
               rf.whole ? "whole" : "finite");
  if (getenv("NNS_TEST_VERBOSE"))
    printf("  %-48s %lld%s (PyTorch %lld%s)\n", path,
           (long long)rf.field[0], rf.global_context ? "+g" : "",
           (long long)r->field[0], r->global_context ? "+g" : "");
  tm_release(m);
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
  /* Guard against a suite that passes by finding nothing: the six
   * hand-built graphs and the 18 torchvision models, six exports each. */
  CHECK(models_checked >= 24);
  CHECK(exports_checked >= 6 + 18 * 6);
  printf("rf reference: %d models, %d exports\n", models_checked,
         exports_checked);
}

/*
 * swin_t's stages, position by position (tools/rf_reference.py
 * --swin-extents): along each axis, the pixels that PyTorch's gradient
 * reaches from position i of a stage's output must be exactly the span
 * nnscan gives that position (nns_model_layer_rf_span), clipped to the
 * input. Windowed attention makes the span differ between positions of a
 * window, and the shifted windows and patch merging move it: nothing here
 * is the same from one position to the next. At 224x224 every map is a
 * whole number of windows; at 256x256 Swin pads each map to whole windows
 * (64 -> 70, ..., 8 -> 14) and crops after, and its last stage keeps two
 * shifted windows per axis.
 */
enum { SWIN_MAX_POS = 64 };

static size_t layer_at(const nns_analysis *m, const char *path) {
  for (size_t i = 0; i < nns_analysis_layer_count(m); i++) {
    nns_layer_info l = {.size = sizeof l};
    if (nns_analysis_layer(m, i, &l) == NNS_OK && !strcmp(l.path, path))
      return i;
  }
  return (size_t)-1;
}

/* One line: "features.1 AXIS N a0 b0 ... a(N-1) b(N-1)". */
static int check_swin_line(const nns_analysis *m, const char *path, int input,
                           const char *line) {
  char name[64];
  int axis, n, used;
  if (sscanf(line, "%63s %d %d%n", name, &axis, &n, &used) != 3 ||
      n < 1 || n > SWIN_MAX_POS || axis < 0 || axis > 1) {
    check_fail(__FILE__, __LINE__, "cannot read: %s", line);
    return 0;
  }
  size_t layer = layer_at(m, name);
  if (layer == (size_t)-1) {
    check_fail(__FILE__, __LINE__, "%s: no layer %s", path, name);
    return 0;
  }
  const char *p = line + used;
  int wrong = 0;
  for (int i = 0; i < n; i++) {
    char *end;
    long long a = strtoll(p, &end, 10), b = strtoll(end, &end, 10);
    if (end == p) {
      check_fail(__FILE__, __LINE__, "%s: %d of %d positions", name, i, n);
      return 0;
    }
    p = end;
    int64_t first = 0, last = 0;
    if (nns_analysis_layer_rf_span(m, layer, axis, i, &first, &last) !=
        NNS_OK) {
      check_fail(__FILE__, __LINE__, "%s %s: no span", path, name);
      return 0;
    }
    first = first < 0 ? 0 : first;
    last = last > input - 1 ? input - 1 : last;
    if ((first != a || last != b) && wrong++ < 3)
      check_fail(__FILE__, __LINE__,
                 "%s %s axis %d position %d: nnscan [%lld, %lld], PyTorch "
                 "[%lld, %lld]",
                 path, name, axis, i, (long long)first, (long long)last, a,
                 b);
  }
  return n;
}

/* Every line of `extents` against the export at `path`; the positions
 * checked, or -1 when the export is not there. */
static int check_swin_export(const char *path, const char *extents,
                             int input) {
  bool missing;
  nns_analysis *m = analysed_export(path, &missing);
  if (!m)
    return missing ? -1 : 0;
  int positions = 0;
  FILE *f = fopen(extents, "r");
  CHECK(f != NULL);
  char line[8192];
  while (f && fgets(line, sizeof line, f))
    if (line[0] != '#' && line[0] != '\n')
      positions += check_swin_line(m, path, input, line);
  if (f)
    fclose(f);
  tm_release(m);
  return positions;
}

static void test_swin_positions(void) {
  static const int opsets[] = {11, 13, 17};
  static const char *const variants[] = {"nofold", "fold"};
  int exports = 0, positions = 0;
  for (int o = 0; o < 3; o++)
    for (int v = 0; v < 2; v++) {
      char path[128];
      snprintf(path, sizeof path, "fixtures/models/swin_t_op%d_%s.onnx",
               opsets[o], variants[v]);
      int n = check_swin_export(path, "fixtures/rf_reference_swin.txt", 224);
      if (n >= 0) {
        exports++;
        positions += n;
      }
    }
  /* Six stage outputs, both axes, 56 + 28 + 28 + 14 + 14 + 7 positions. */
  CHECK(exports >= 5);
  CHECK_EQ(positions, exports * 2 * 147);
  /* At 256x256: 64 + 32 + 32 + 16 + 16 + 8 positions per axis. */
  int n256 = check_swin_export("fixtures/rf/swin_t_256_op17_fold.onnx",
                               "fixtures/rf/swin_t_256_extents.txt", 256);
  CHECK_EQ(n256, 2 * 168);
  printf("swin_t spans: %d exports at 224, %d positions; %d at 256\n",
         exports, positions, n256);
}

int main(void) {
  RUN(test_rf_reference);
  RUN(test_swin_positions);
  return check_finish();
}
