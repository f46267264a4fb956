/*
 * test_models.c - loads every model.onnx of the ONNX backend test data
 * (Debian's libonnx-testdata) and expects each to load: they are all valid.
 * Skipped with a message when the data is not installed.
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "check.h"
#include "nnscan.h"

#define TESTDATA "/usr/share/libonnx-testdata/data"

static int n_models, n_failed;

/* Loads every model.onnx under dir, recursively. */
static void walk(const char *dir, int depth) {
  DIR *d = opendir(dir);
  if (!d || depth > 8) {
    if (d)
      closedir(d);
    return;
  }
  struct dirent *ent;
  while ((ent = readdir(d)) != NULL) {
    if (ent->d_name[0] == '.')
      continue;
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", dir, ent->d_name);
    struct stat st;
    if (stat(path, &st) != 0)
      continue;
    if (S_ISDIR(st.st_mode)) {
      walk(path, depth + 1);
    } else if (strcmp(ent->d_name, "model.onnx") == 0) {
      nns_model *m = NULL;
      nns_error e;
      nns_status s = nns_model_load_file(path, NULL, &m, &e);
      n_models++;
      if (s != NNS_OK) {
        n_failed++;
        check_fail(__FILE__, __LINE__, "%s: %s: %s", path,
                   nns_status_name(s), e.message);
      }
      nns_model_free(m);
    }
  }
  closedir(d);
}

static void test_all_models(void) {
  struct stat st;
  if (stat(TESTDATA, &st) != 0) {
    printf("skipped: %s is not installed (apt-get install "
           "libonnx-testdata)\n", TESTDATA);
    return;
  }
  struct timespec t0, t1;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  walk(TESTDATA, 0);
  clock_gettime(CLOCK_MONOTONIC, &t1);
  double ms = (double)(t1.tv_sec - t0.tv_sec) * 1e3 +
              (double)(t1.tv_nsec - t0.tv_nsec) / 1e6;
  printf("loaded %d models (%d failed) in %.1f ms\n", n_models, n_failed, ms);
  CHECK(n_models > 0);
}

int main(void) {
  RUN(test_all_models);
  return check_finish();
}
