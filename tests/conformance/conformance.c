/*
 * conformance.c - shape inference against the ONNX backend test cases
 * (Debian's libonnx-testdata).
 *
 * For every case: load model.onnx, forget every declared shape except the
 * graph inputs' (value_info and graph output types), infer, and compare
 * each graph output's dtype and dims with the case's expected
 * test_data_set_0/output_N.pb. A case is
 *   full     every output's dtype and every dim known and right;
 *   partial  nothing wrong, something unknown;
 *   wrong    a known dtype or dim that differs, or an inference error.
 *
 * The run fails on any wrong case, on a case listed in the allowlist that
 * is no longer full (the pass set can only grow), and on a case whose
 * inputs are all initializers or constants that is not full. Cases whose
 * outputs are sequences or optionals are not scored.
 *
 *   conformance [--update-allowlist] [--verbose] [DATA_DIR]
 *
 * With NNS_REQUIRE_TESTDATA=1 a missing data folder is a failure, not a
 * skip (CI installs the package).
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ir/ir.h"
#include "nnscan.h"
#include "onnx/wire.h"

#define SKIP_CODE 77

static const char *const FOLDERS[] = {"node", "pytorch-converted",
                                      "pytorch-operator", "simple"};
enum { N_FOLDERS = sizeof FOLDERS / sizeof FOLDERS[0] };

typedef enum { FULL, PARTIAL, WRONG, UNSCORED } verdict;

/* ==== Expected outputs (TensorProto dims and data_type) ==== */

static const nns__pbfield tensor_fields[] = {
    [1] = {"dims", NNS__PB_REP_VARINT}, [2] = {"data_type", NNS__PB_VARINT}};
static const nns__pbmsg tensor_msg = {"TensorProto", tensor_fields, 3};

typedef struct expected {
  int dtype;
  int rank;
  int64_t dims[64];
} expected;

static bool read_file(const char *path, uint8_t **data, size_t *size) {
  FILE *f = fopen(path, "rb");
  if (!f)
    return false;
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  *data = malloc(n > 0 ? (size_t)n : 1);
  *size = *data && n >= 0 ? fread(*data, 1, (size_t)n, f) : 0;
  fclose(f);
  return *data && (long)*size == n;
}

static bool read_expected(const char *path, expected *e) {
  uint8_t *data;
  size_t size;
  if (!read_file(path, &data, &size))
    return false;
  memset(e, 0, sizeof *e);
  nns__wire w;
  nns__field f;
  nns__wire_init(&w, data, size, 0, &tensor_msg, 64, NULL);
  bool ok = true;
  while (ok && nns__wire_next(&w, &f) == NNS_OK && f.num) {
    if (f.num == 2)
      e->dtype = (int)f.u;
    if (f.num != 1)
      continue;
    if (f.wt == NNS__WT_VARINT) {
      ok = e->rank < 64;
      if (ok)
        e->dims[e->rank++] = (int64_t)f.u;
    } else {
      size_t pos = 0;
      uint64_t v;
      while (ok && pos < f.len) {
        ok = e->rank < 64 &&
             nns__wire_varint(f.data, f.len, &pos, &v, 0, "dims", NULL) ==
                 NNS_OK;
        if (ok)
          e->dims[e->rank++] = (int64_t)v;
      }
    }
  }
  free(data);
  return ok;
}

/* ==== One case ==== */

static verdict score_case(const char *dir, char *why, size_t why_size,
                          bool *all_const) {
  char path[8400];
  snprintf(path, sizeof path, "%s/model.onnx", dir);
  nns_model *m = NULL;
  nns_error err;
  *all_const = false;
  why[0] = 0;
  if (nns_model_load_file(path, NULL, &m, &err) != NNS_OK) {
    snprintf(why, why_size, "load: %s", err.message);
    return WRONG;
  }
  nns__graph *g = m->graph;
  for (int32_t i = 0; i < g->n_outputs; i++) {
    const nns__type *d = g->outputs[i]->declared;
    if (d && d->kind != NNS_KIND_TENSOR) {
      nns_model_free(m);
      return UNSCORED;
    }
  }
  int declared_dtype[256] = {0};
  for (int32_t i = 0; i < g->n_outputs && i < 256; i++)
    if (g->outputs[i]->declared)
      declared_dtype[i] = g->outputs[i]->declared->dtype;
  /* Strip declarations: only graph inputs keep theirs. */
  for (size_t i = 0; i < m->n_values; i++)
    if (!m->values[i]->is_graph_input)
      m->values[i]->declared = NULL;
  *all_const = nns_model_input_count(m) == 0;
  if (nns_model_infer(m, NULL, &err) != NNS_OK) {
    snprintf(why, why_size, "infer: %s", err.message);
    nns_model_free(m);
    return WRONG;
  }
  verdict v = FULL;
  for (int32_t i = 0; i < g->n_outputs && v != WRONG; i++) {
    expected e;
    char epath[8500];
    snprintf(epath, sizeof epath, "%s/test_data_set_0/output_%d.pb", dir, i);
    if (!read_expected(epath, &e)) {
      nns_model_free(m);
      return UNSCORED;
    }
    if (e.dtype == NNS_DT_UINT16 && i < 256 &&
        declared_dtype[i] == NNS_DT_BFLOAT16)
      e.dtype = NNS_DT_BFLOAT16;
    const nns__value *val = g->outputs[i];
    const nns__type *t = &val->type;
    if (t->dtype && t->dtype != e.dtype) {
      snprintf(why, why_size, "output '%s': dtype %s, expected %s", val->name,
               nns_dtype_name(t->dtype), nns_dtype_name(e.dtype));
      v = WRONG;
    } else if (t->rank >= 0 && t->rank != e.rank) {
      snprintf(why, why_size, "output '%s': rank %d, expected %d", val->name,
               t->rank, e.rank);
      v = WRONG;
    } else if (t->rank >= 0) {
      for (int k = 0; k < e.rank && v != WRONG; k++) {
        if (!t->dims[k].sym && t->dims[k].v != e.dims[k]) {
          snprintf(why, why_size, "output '%s': dim %d is %lld, expected %lld",
                   val->name, k, (long long)t->dims[k].v,
                   (long long)e.dims[k]);
          v = WRONG;
        } else if (t->dims[k].sym && v == FULL) {
          snprintf(why, why_size, "output '%s': dim %d unknown", val->name, k);
          v = PARTIAL;
        }
      }
    }
    if (v == FULL && (!t->dtype || t->rank < 0)) {
      snprintf(why, why_size, "output '%s': %s unknown", val->name,
               !t->dtype ? "dtype" : "rank");
      v = PARTIAL;
    }
  }
  nns_model_free(m);
  return v;
}

/* ==== Allowlist ==== */

typedef struct strlist {
  char **items;
  size_t n, cap;
} strlist;

static void strlist_add(strlist *l, const char *s) {
  if (l->n == l->cap) {
    l->cap = l->cap ? l->cap * 2 : 256;
    l->items = realloc(l->items, l->cap * sizeof *l->items);
  }
  l->items[l->n++] = strdup(s);
}

static bool strlist_has(const strlist *l, const char *s) {
  for (size_t i = 0; i < l->n; i++)
    if (!strcmp(l->items[i], s))
      return true;
  return false;
}

static int cmp_str(const void *a, const void *b) {
  return strcmp(*(char *const *)a, *(char *const *)b);
}

static void load_allowlist(const char *path, strlist *l) {
  FILE *f = fopen(path, "r");
  char line[512];
  while (f && fgets(line, sizeof line, f)) {
    line[strcspn(line, "\r\n")] = 0;
    if (line[0] && line[0] != '#')
      strlist_add(l, line);
  }
  if (f)
    fclose(f);
}

/* ==== Main ==== */

int main(int argc, char **argv) {
  const char *data = "/usr/share/libonnx-testdata/data";
  const char *allow_path = "conformance/allowlist.txt";
  bool update = false, verbose = false;
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--update-allowlist"))
      update = true;
    else if (!strcmp(argv[i], "--verbose"))
      verbose = true;
    else if (!strcmp(argv[i], "--allowlist") && i + 1 < argc)
      allow_path = argv[++i];
    else
      data = argv[i];
  }
  DIR *probe = opendir(data);
  if (!probe) {
    const char *req = getenv("NNS_REQUIRE_TESTDATA");
    printf("conformance: no test data at %s (install libonnx-testdata)\n",
           data);
    return req && *req == '1' ? 1 : SKIP_CODE;
  }
  closedir(probe);
  strlist allow = {0}, passing = {0};
  load_allowlist(allow_path, &allow);
  int counts[N_FOLDERS][4] = {{0}};
  int failures = 0;
  for (int fi = 0; fi < N_FOLDERS; fi++) {
    char folder[4096];
    snprintf(folder, sizeof folder, "%s/%s", data, FOLDERS[fi]);
    DIR *d = opendir(folder);
    if (!d)
      continue;
    strlist cases = {0};
    struct dirent *ent;
    while ((ent = readdir(d)))
      if (ent->d_name[0] != '.')
        strlist_add(&cases, ent->d_name);
    closedir(d);
    qsort(cases.items, cases.n, sizeof *cases.items, cmp_str);
    for (size_t c = 0; c < cases.n; c++) {
      char dir[8192], name[1024], why[1024];
      snprintf(dir, sizeof dir, "%s/%s", folder, cases.items[c]);
      snprintf(name, sizeof name, "%s/%s", FOLDERS[fi], cases.items[c]);
      char probe_path[8300];
      snprintf(probe_path, sizeof probe_path, "%s/model.onnx", dir);
      FILE *pf = fopen(probe_path, "rb");
      if (!pf)
        continue;
      fclose(pf);
      bool all_const;
      verdict v = score_case(dir, why, sizeof why, &all_const);
      counts[fi][v]++;
      if (v == FULL)
        strlist_add(&passing, name);
      if (v == WRONG) {
        printf("WRONG   %s: %s\n", name, why);
        failures++;
      } else if (v == PARTIAL && strlist_has(&allow, name)) {
        printf("REGRESS %s (in the allowlist): %s\n", name, why);
        failures++;
      } else if (v == PARTIAL && all_const) {
        printf("PARTIAL %s has only constant inputs: %s\n", name, why);
        failures++;
      } else if (v == PARTIAL && verbose) {
        printf("partial %s: %s\n", name, why);
      } else if (v == FULL && !strlist_has(&allow, name) && !update) {
        printf("new     %s is now full: add it to the allowlist "
               "(--update-allowlist)\n", name);
      }
      free(cases.items[c]);
    }
    free(cases.items);
  }
  int full = 0, scorable = 0;
  printf("\n%-18s %6s %8s %6s %9s\n", "folder", "full", "partial", "wrong",
         "scorable");
  for (int fi = 0; fi < N_FOLDERS; fi++) {
    int s = counts[fi][FULL] + counts[fi][PARTIAL] + counts[fi][WRONG];
    printf("%-18s %6d %8d %6d %9d\n", FOLDERS[fi], counts[fi][FULL],
           counts[fi][PARTIAL], counts[fi][WRONG], s);
    full += counts[fi][FULL];
    scorable += s;
  }
  printf("conformance: %d of %d scorable cases full\n", full, scorable);
  if (update && failures == 0) {
    FILE *f = fopen(allow_path, "w");
    if (f) {
      fprintf(f, "# ONNX backend cases whose outputs nnscan infers fully.\n"
                 "# The set can only grow: tests/conformance checks it.\n");
      for (size_t i = 0; i < passing.n; i++)
        fprintf(f, "%s\n", passing.items[i]);
      fclose(f);
      printf("allowlist: wrote %zu cases to %s\n", passing.n, allow_path);
    }
  }
  printf("%d passed, %d failed, %d skipped\n", full, failures,
         scorable - full - failures);
  for (size_t i = 0; i < allow.n; i++)
    free(allow.items[i]);
  for (size_t i = 0; i < passing.n; i++)
    free(passing.items[i]);
  free(allow.items);
  free(passing.items);
  return failures ? 1 : 0;
}
