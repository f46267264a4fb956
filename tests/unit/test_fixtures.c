/*
 * test_fixtures.c - torchvision models exported by PyTorch (weights moved to
 * an external file that is not committed), checked against the output shape
 * PyTorch recorded for every module (the .expect files in tests/fixtures/models, written
 * by tools/fixture_expect.py from PyTorch's forward hooks), and required to
 * give every value a fully static shape.
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

static int files_checked, modules_checked;

/* Every value, initializers and intermediates alike, must be fully known. */
static void check_all_static(const nns_model *m, const char *file) {
  int bad = 0;
  for (size_t i = 0; i < nns_model_value_count(m); i++) {
    nns_value_info v = {.size = sizeof v};
    nns_model_value(m, i, &v);
    bool ok = v.dtype != 0 && v.rank >= 0;
    for (int d = 0; ok && d < v.rank; d++)
      ok = tm_dim(m, i, d).value >= 0;
    if (!ok && bad++ < 3)
      check_fail(__FILE__, __LINE__, "%s: value '%s' is not fully static",
                 file, v.name);
  }
}

static void check_expect(const nns_model *m, const char *file,
                         const char *expect_path) {
  FILE *f = fopen(expect_path, "r");
  CHECK(f != NULL);
  if (!f)
    return;
  char line[4096];
  while (fgets(line, sizeof line, f)) {
    if (line[0] == '#')
      continue;
    char *value = strtok(line, "\t\n");
    char *dims = strtok(NULL, "\t\n");
    char *module = strtok(NULL, "\t\n");
    if (!value || !dims)
      continue;
    size_t idx = tm_find(m, value);
    if (idx == (size_t)-1) {
      check_fail(__FILE__, __LINE__, "%s: no value '%s' (module %s)", file,
                 value, module ? module : "?");
      continue;
    }
    nns_value_info v = {.size = sizeof v};
    nns_model_value(m, idx, &v);
    int rank = 0;
    bool same = true;
    for (char *tok = strtok(dims, ","); tok; tok = strtok(NULL, ","), rank++)
      if (rank >= v.rank ||
          tm_dim(m, idx, rank).value != strtoll(tok, NULL, 10))
        same = false;
    if (!same || rank != v.rank)
      check_fail(__FILE__, __LINE__,
                 "%s: module %s output '%s' differs from PyTorch's shape",
                 file, module ? module : "?", value);
    modules_checked++;
  }
  fclose(f);
}

static void check_file(const char *onnx_name) {
  char path[1024], expect[1024];
  snprintf(path, sizeof path, FIXTURES "/%s", onnx_name);
  snprintf(expect, sizeof expect, "%.*s.expect", (int)(strlen(path) - 5),
           path);
  nns_model *m = NULL;
  nns_error err;
  if (nns_model_load_file(path, NULL, &m, &err) != NNS_OK) {
    check_fail(__FILE__, __LINE__, "%s: load: %s", onnx_name, err.message);
    return;
  }
  if (nns_model_infer(m, NULL, &err) != NNS_OK) {
    check_fail(__FILE__, __LINE__, "%s: infer: %s", onnx_name, err.message);
  } else {
    CHECK_EQ(nns_model_unknown_op_count(m), 0);
    check_all_static(m, onnx_name);
    check_expect(m, onnx_name, expect);
  }
  nns_model_free(m);
  files_checked++;
}

static int cmp_str(const void *a, const void *b) {
  return strcmp(*(char *const *)a, *(char *const *)b);
}

static void test_fixture_models(void) {
  DIR *d = opendir(FIXTURES);
  CHECK(d != NULL);
  if (!d)
    return;
  char *names[512];
  size_t n = 0;
  struct dirent *e;
  while ((e = readdir(d)) && n < 512) {
    size_t len = strlen(e->d_name);
    if (len > 5 && !strcmp(e->d_name + len - 5, ".onnx"))
      names[n++] = strdup(e->d_name);
  }
  closedir(d);
  qsort(names, n, sizeof *names, cmp_str);
  for (size_t i = 0; i < n; i++) {
    check_file(names[i]);
    free(names[i]);
  }
  /* Guard against a suite that passes by finding nothing. */
  CHECK(files_checked >= 60);
  CHECK(modules_checked >= 1000);
  printf("fixtures: %d exports, %d module shapes checked against PyTorch\n",
         files_checked, modules_checked);
}

int main(void) {
  RUN(test_fixture_models);
  return check_finish();
}
