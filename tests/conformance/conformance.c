/*
 * conformance.c - shape inference against the ONNX backend test cases
 * (Debian's libonnx-testdata: 1.12 on the host, 1.20 in the sid chroot).
 *
 * For every case: load model.onnx, forget every declared shape except the
 * graph inputs' (value_info and graph output types), infer, and compare
 * each graph output's dtype and dims with the case's expected
 * test_data_set_0/output_N.pb. A case is
 *   full     every output's dtype and every dim known and right;
 *   partial  nothing wrong, something unknown;
 *   wrong    a known dtype or dim that differs;
 *   refused  the model does not load or inference fails on it.
 *
 * The run fails on any wrong or refused case, on a case listed in the
 * allowlist that is no longer full (the pass set can only grow), and on a
 * case whose inputs are all initializers or constants that is not full.
 * Cases whose outputs are sequences or optionals are not scored.
 *
 *   conformance [--update-allowlist] [--verbose] [--allowlist FILE]
 *               [--bind-ints] [--opset-from N --min-full PCT] [DATA_DIR]
 *
 * --bind-ints scores a case as a deployed model has it: every integer
 * graph input (Reduce axes, Resize sizes, Reshape shapes, TopK's K, ...)
 * is bound to its test_data_set_0/input_N.pb contents, as `--value` would
 * bind it. --opset-from N prints the share of full cases among those whose
 * ai.onnx opset is N or newer, and with --min-full fails below PCT.
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

typedef enum { FULL, PARTIAL, WRONG, REFUSED, UNSCORED } verdict;

/* ==== Tensors (TensorProto dims, data_type and integer contents) ==== */

static const nns__pbfield tensor_fields[] = {
    [1] = {"dims", NNS__PB_REP_VARINT},
    [2] = {"data_type", NNS__PB_VARINT},
    [5] = {"int32_data", NNS__PB_REP_VARINT},
    [7] = {"int64_data", NNS__PB_REP_VARINT},
    [9] = {"raw_data", NNS__PB_LEN}};
static const nns__pbmsg tensor_msg = {"TensorProto", tensor_fields, 10};

enum { MAX_VALS = 4096 };

typedef struct tensor {
  int dtype;
  int rank;
  int64_t dims[64];
  int64_t n_vals; /* integer contents read (-1: too many, or not integer) */
  int64_t vals[MAX_VALS];
} tensor;

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

/* Appends a varint field's value(s) (one, or a packed run) to out. */
static bool read_varints(const nns__field *f, int64_t *out, int64_t *n,
                         int64_t cap) {
  if (f->wt == NNS__WT_VARINT) {
    if (*n >= cap)
      return false;
    out[(*n)++] = (int64_t)f->u;
    return true;
  }
  size_t pos = 0;
  uint64_t v;
  while (pos < f->len) {
    if (*n >= cap || nns__wire_varint(f->data, f->len, &pos, &v, 0, "data",
                                      NULL) != NNS_OK)
      return false;
    out[(*n)++] = (int64_t)v;
  }
  return true;
}

/* Little-endian integer of `bytes` bytes, sign-extended when `sign`. */
static int64_t raw_int(const uint8_t *p, int bytes, bool sign) {
  uint64_t u = 0;
  for (int k = 0; k < bytes; k++)
    u |= (uint64_t)p[k] << (8 * k);
  if (sign && bytes < 8 && (u >> (8 * bytes - 1)) & 1)
    u |= ~(uint64_t)0 << (8 * bytes);
  return (int64_t)u;
}

/* Bytes per element of an integer dtype the binding takes, and whether it
 * is signed; 0 for any other dtype. */
static int int_bytes(int dtype, bool *sign) {
  *sign = true;
  switch (dtype) {
  case NNS_DT_INT8: return 1;
  case NNS_DT_INT16: return 2;
  case NNS_DT_INT32: return 4;
  case NNS_DT_INT64: return 8;
  case NNS_DT_UINT8: *sign = false; return 1;
  case NNS_DT_UINT16: *sign = false; return 2;
  case NNS_DT_UINT32: *sign = false; return 4;
  default: return 0;
  }
}

static bool read_tensor(const char *path, tensor *e) {
  uint8_t *data;
  size_t size;
  if (!read_file(path, &data, &size))
    return false;
  e->dtype = 0;
  e->rank = 0;
  e->n_vals = 0;
  nns__wire w;
  nns__field f;
  nns__wire_init(&w, data, size, 0, &tensor_msg, 64, NULL);
  bool ok = true, vals_ok = true;
  int64_t rank = 0;
  while (ok && nns__wire_next(&w, &f) == NNS_OK && f.num) {
    if (f.num == 2)
      e->dtype = (int)f.u;
    else if (f.num == 1)
      ok = read_varints(&f, e->dims, &rank, 64);
    else if (f.num == 5 || f.num == 7)
      vals_ok = vals_ok && read_varints(&f, e->vals, &e->n_vals, MAX_VALS);
    else if (f.num == 9) {
      bool sign;
      int b = int_bytes(e->dtype, &sign);
      if (!b || f.len % (size_t)b || f.len / (size_t)b > MAX_VALS) {
        vals_ok = false;
        continue;
      }
      for (size_t k = 0; k < f.len / (size_t)b; k++)
        e->vals[e->n_vals++] = raw_int(f.data + k * (size_t)b, b, sign);
    }
  }
  e->rank = (int)rank;
  /* int32_data holds int32s as int64 varints: sign from the low 32 bits */
  if (vals_ok && e->dtype == NNS_DT_INT32)
    for (int64_t k = 0; k < e->n_vals; k++)
      e->vals[k] = (int32_t)(uint32_t)e->vals[k];
  bool sign;
  if (!vals_ok || !int_bytes(e->dtype, &sign))
    e->n_vals = -1;
  free(data);
  return ok;
}

/* The default domain's opset the model imports (0 when none). */
static int64_t onnx_opset(const nns_model *m) {
  for (size_t i = 0; i < nns_model_opset_count(m); i++) {
    const char *dom;
    int64_t v;
    if (nns_model_opset(m, i, &dom, &v) == NNS_OK &&
        (!dom[0] || !strcmp(dom, "ai.onnx")))
      return v;
  }
  return 0;
}

/* ==== One case ==== */

/* Options of one run. */
typedef struct run_opts {
  bool bind_ints;  /* bind integer inputs to their test data */
} run_opts;

/* Binds every integer graph input that test_data_set_0 gives contents
 * for, as the CLI's --value does; the values live in *store. */
static nns_status bind_inputs(nns_model *m, const char *dir, tensor **store,
                              nns_input_value *vals, size_t *n_vals,
                              nns_error *err) {
  size_t n_in = nns_model_input_count(m);
  *n_vals = 0;
  for (size_t i = 0; i < n_in && *n_vals < 64; i++) {
    char p[8500];
    size_t vi;
    nns_value_info info;
    info.size = sizeof info;
    if (nns_model_input(m, i, &vi) != NNS_OK ||
        nns_model_value(m, vi, &info) != NNS_OK)
      continue;
    snprintf(p, sizeof p, "%s/test_data_set_0/input_%zu.pb", dir, i);
    tensor *t = malloc(sizeof *t);
    if (!t)
      return NNS_E_NOMEM;
    if (!read_tensor(p, t) || t->n_vals < 0) {
      free(t);
      continue;
    }
    store[*n_vals] = t;
    vals[*n_vals] = (nns_input_value){sizeof *vals, info.name, t->vals,
                                      (size_t)t->n_vals};
    (*n_vals)++;
  }
  (void)err;
  return NNS_OK;
}

static verdict score_case(const char *dir, const run_opts *ro, char *why,
                          size_t why_size, bool *all_const, int64_t *opset) {
  char path[8400];
  snprintf(path, sizeof path, "%s/model.onnx", dir);
  nns_model *m = NULL;
  nns_error err;
  *all_const = false;
  *opset = 0;
  why[0] = 0;
  if (nns_model_load_file(path, NULL, &m, &err) != NNS_OK) {
    snprintf(why, why_size, "load: %s", err.message);
    return REFUSED;
  }
  *opset = onnx_opset(m);
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
  tensor *store[64];
  nns_input_value vals[64];
  size_t n_vals = 0;
  nns_infer_options io;
  memset(&io, 0, sizeof io);
  io.size = sizeof io;
  if (ro->bind_ints &&
      bind_inputs(m, dir, store, vals, &n_vals, &err) == NNS_OK && n_vals) {
    io.values = vals;
    io.value_count = n_vals;
  }
  nns_status ist = nns_model_infer(m, &io, &err);
  for (size_t k = 0; k < n_vals; k++)
    free(store[k]);
  if (ist != NNS_OK) {
    snprintf(why, why_size, "infer: %s", err.message);
    nns_model_free(m);
    return REFUSED;
  }
  verdict v = FULL;
  for (int32_t i = 0; i < g->n_outputs && v != WRONG; i++) {
    static tensor e;
    char epath[8500];
    snprintf(epath, sizeof epath, "%s/test_data_set_0/output_%d.pb", dir, i);
    if (!read_tensor(epath, &e)) {
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
  run_opts ro = {false};
  int64_t opset_from = 0;
  double min_full = -1;
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--update-allowlist"))
      update = true;
    else if (!strcmp(argv[i], "--bind-ints"))
      ro.bind_ints = true;
    else if (!strcmp(argv[i], "--opset-from") && i + 1 < argc)
      opset_from = strtoll(argv[++i], NULL, 10);
    else if (!strcmp(argv[i], "--min-full") && i + 1 < argc)
      min_full = strtod(argv[++i], NULL);
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
  int counts[N_FOLDERS][5] = {{0}};
  int failures = 0, recent = 0, recent_full = 0;
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
      int64_t opset;
      verdict v = score_case(dir, &ro, why, sizeof why, &all_const, &opset);
      counts[fi][v]++;
      if (opset_from && opset >= opset_from && v != UNSCORED) {
        recent++;
        recent_full += v == FULL;
      }
      if (v == FULL)
        strlist_add(&passing, name);
      if (v == WRONG || v == REFUSED) {
        printf("%s %s: %s\n", v == WRONG ? "WRONG  " : "REFUSED", name, why);
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
  printf("\n%-18s %6s %8s %6s %8s %9s\n", "folder", "full", "partial",
         "wrong", "refused", "scorable");
  for (int fi = 0; fi < N_FOLDERS; fi++) {
    int s = counts[fi][FULL] + counts[fi][PARTIAL] + counts[fi][WRONG] +
            counts[fi][REFUSED];
    printf("%-18s %6d %8d %6d %8d %9d\n", FOLDERS[fi], counts[fi][FULL],
           counts[fi][PARTIAL], counts[fi][WRONG], counts[fi][REFUSED], s);
    full += counts[fi][FULL];
    scorable += s;
  }
  printf("conformance: %d of %d scorable cases full\n", full, scorable);
  if (opset_from) {
    double pct = recent ? 100.0 * recent_full / recent : 0;
    printf("opset %lld and newer: %d of %d scorable cases full (%.1f %%)\n",
           (long long)opset_from, recent_full, recent, pct);
    if (min_full >= 0 && pct < min_full) {
      printf("FAILED  below the required %.1f %% full\n", min_full);
      failures++;
    }
  }
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
