/* testmodel.c - loading test models and checking them; see testmodel.h. */
#include "testmodel.h"
#include "report/report_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ==== Loading ==== */

nns_model *tm_load_path(const char *path, unsigned steps) {
  nns_model *m = NULL;
  nns_error err = {0};
  if (nns_model_load_file(path, NULL, &m, &err) != NNS_OK) {
    check_fail(__FILE__, __LINE__, "load %s: %s", path, err.message);
    return NULL;
  }
  if ((steps & TM_INFER) && nns_model_infer(m, NULL, &err) != NNS_OK) {
    check_fail(__FILE__, __LINE__, "infer %s: %s", path, err.message);
    nns_model_free(m);
    return NULL;
  }
  return m;
}

nns_analysis *tm_analyze(nns_model *m, const nns_analyze_options *opts) {
  nns_analysis *a = NULL;
  nns_error err = {0};
  if (!m)
    return NULL;
  if (nns_model_analyze(m, opts, &a, &err) != NNS_OK)
    check_fail(__FILE__, __LINE__, "analyze: %s", err.message);
  return a;
}

nns_analysis *tm_load_analysis(const char *path,
                               const nns_analyze_options *opts) {
  nns_model *m = tm_load_path(path, TM_LOAD_ONLY);
  nns_analysis *a = tm_analyze(m, opts);
  if (!a)
    nns_model_free(m);
  return a;
}

void tm_release(nns_analysis *a) {
  nns_model *m = (nns_model *)nns_analysis_model(a);
  nns_analysis_free(a);
  nns_model_free(m);
}

/* The path of unit model <family>_<name>. */
static void unit_path(char *buf, size_t size, const char *family,
                      const char *name) {
  snprintf(buf, size, "%s/unit/models/%s_%s.onnx", check_dir(), family, name);
}

nns_model *tm_load(const char *family, const char *name, unsigned steps) {
  char path[512];
  unit_path(path, sizeof path, family, name);
  return tm_load_path(path, steps);
}

nns_status tm_run(const char *family, const char *name, nns_model **out,
                  nns_error *err) {
  char path[512];
  nns_error own;
  if (!err)
    err = &own;
  unit_path(path, sizeof path, family, name);
  *out = NULL;
  if (nns_model_load_file(path, NULL, out, err) != NNS_OK) {
    check_fail(__FILE__, __LINE__, "load %s: %s", path, err->message);
    return NNS_E_IO;
  }
  return nns_model_infer(*out, NULL, err);
}

/* ==== Checking values ==== */

/* Checks dim k of value i against one token of a spec (see tm_expect). */
static void expect_dim(const char *file, int line, const char *name, int k,
                       nns_dim d, const char *tok) {
  char *end;
  long long want = strtoll(tok, &end, 10);
  if (*end == 0 && end != tok) {
    if (d.value != want)
      check_fail(file, line, "%s: dim %d is %lld (%s), want %lld", name, k,
                 (long long)d.value, d.symbol ? d.symbol : "?", want);
  } else if (d.value != -1) {
    check_fail(file, line, "%s: dim %d is %lld, want unknown %s", name, k,
               (long long)d.value, tok);
  } else if (strcmp(tok, "?") == 0) {
    /* Any unknown dim. */
  } else if (strcmp(tok, "_") == 0) {
    if (d.symbol)
      check_fail(file, line, "%s: dim %d is symbol %s, want no symbol", name,
                 k, d.symbol);
  } else if (!d.symbol || strcmp(d.symbol, tok) != 0) {
    check_fail(file, line, "%s: dim %d is symbol %s, want %s", name, k,
               d.symbol ? d.symbol : "(none)", tok);
  }
}

void tm_expect(const char *file, int line, nns_model *m, const char *name,
               int dtype, int kind, const char *spec) {
  size_t i = tm_find(m, name);
  if (i == (size_t)-1) {
    check_fail(file, line, "no value '%s'", name);
    return;
  }
  nns_value_info v = {.size = sizeof v};
  nns_model_value(m, i, &v);
  if (dtype != TM_ANY_DTYPE && (int)v.dtype != dtype)
    check_fail(file, line, "%s: dtype %d, want %d", name, (int)v.dtype,
               dtype);
  if (kind != TM_ANY_KIND && (int)v.kind != kind)
    check_fail(file, line, "%s: kind %d, want %d", name, (int)v.kind, kind);
  if (!spec) {
    if (v.rank != -1)
      check_fail(file, line, "%s: rank %d, want unknown", name, v.rank);
    return;
  }
  char buf[256];
  snprintf(buf, sizeof buf, "%s", spec);
  int k = 0;
  for (char *tok = strtok(buf, ","); tok; tok = strtok(NULL, ","), k++) {
    if (k >= v.rank) {
      check_fail(file, line, "%s: rank %d, want more (%s)", name, v.rank,
                 spec);
      return;
    }
    expect_dim(file, line, name, k, tm_dim(m, i, k), tok);
  }
  if (k != v.rank)
    check_fail(file, line, "%s: rank %d, want %d (%s)", name, v.rank, k,
               spec);
}

void tm_expect_fail(const char *file, int line, const char *family,
                    const char *name, nns_status code) {
  nns_model *m;
  nns_error err = {0};
  nns_status st = tm_run(family, name, &m, &err);
  if (st != code)
    check_fail(file, line, "%s: status %s, want %s (%s)", name,
               nns_status_name(st), nns_status_name(code),
               st != NNS_OK ? err.message : "");
  nns_model_free(m);
}

/* ==== Calling a node's rules ==== */

nns__node *tm_find_node(nns_model *m, const char *name) {
  for (int32_t i = 0; m && i < m->graph->n_nodes; i++)
    if (strcmp(m->graph->nodes[i].name, name) == 0)
      return &m->graph->nodes[i];
  return NULL;
}

nns__ictx tm_node_ctx(nns_model *m, nns__node *n, nns_error *err) {
  nns__ictx cx = {.m = m, .node = n, .op = n->op, .opset = n->opset,
                  .err = err};
  return cx;
}

nns_status tm_node_cost(nns_model *m, nns__node *n, nns__cost *c) {
  memset(c, 0, sizeof *c);
  if (!n)
    return NNS_E_NOTFOUND;
  if (!n->op || !n->op->cost)
    return TM_NO_RULE;
  nns_error err = {0};
  nns__ictx cx = tm_node_ctx(m, n, &err);
  return n->op->cost(&cx, c);
}

nns_status tm_node_rf(nns_model *m, nns__node *n, const nns_rf *in,
                      nns_rf *out) {
  if (!n)
    return NNS_E_NOTFOUND;
  if (!n->op || !n->op->rf)
    return TM_NO_RULE;
  nns_error err = {0};
  nns__ictx cx = tm_node_ctx(m, n, &err);
  /* The spatial axes of a plain NC... value: its trailing dims. */
  nns__rf rin, rout;
  memset(&rin, 0, sizeof rin);
  memset(&rout, 0, sizeof rout);
  rin.f = *in;
  int32_t rank = nns__in_rank(&cx, 0);
  for (int k = 0; k < in->axes && k < NNS_RF_MAX_AXES; k++)
    rin.dim[k] = (int8_t)(rank - in->axes + k);
  nns_status st = n->op->rf(&cx, &rin, &rout);
  *out = rout.f;
  return st;
}

void tm_expect_cost(const char *file, int line, nns_model *m,
                    const char *name, int64_t flops, int64_t macs,
                    int64_t dmas) {
  nns__cost c;
  nns_status st = tm_node_cost(m, tm_find_node(m, name), &c);
  if (st != NNS_OK) {
    check_fail(file, line, "%s: cost status %d", name, (int)st);
    return;
  }
  if (c.flops != flops || c.macs != macs || c.dmas != dmas)
    check_fail(file, line,
               "%s: flops %lld macs %lld dmas %lld, want %lld %lld %lld",
               name, (long long)c.flops, (long long)c.macs, (long long)c.dmas,
               (long long)flops, (long long)macs, (long long)dmas);
  if (c.symbolic || c.overflow || c.partial || c.unbounded)
    check_fail(file, line, "%s: unexpected flags", name);
}

/* ==== Reading results ==== */

tm_layer tm_layer_at(const nns_analysis *a, size_t i) {
  nns_layer_info l = {.size = sizeof l};
  tm_layer t = {.name = "", .path = "", .type = "", .op_types = "",
                .parent = (size_t)-1, .input_value = (size_t)-1,
                .output_value = (size_t)-1,
                .counts = {.size = sizeof t.counts},
                .rf = {.size = sizeof t.rf}};
  if (nns_analysis_layer(a, i, &l) != NNS_OK)
    return t;
  t.name = l.name;
  t.path = l.path;
  t.depth = l.depth;
  t.parent = l.parent;
  t.child_count = l.child_count;
  t.type = l.type;
  t.op_types = l.op_types;
  t.input_value = l.input_value;
  t.output_value = l.output_value;
  t.call_count = l.call_count;
  nns_analysis_layer_counts(a, i, &t.counts);
  nns_analysis_layer_rf(a, i, &t.rf);
  return t;
}

tm_totals tm_totals_of(const nns_analysis *a) {
  nns_totals x = {.size = sizeof x};
  tm_totals t = {.all = {.size = sizeof t.all}, .rf = {.size = sizeof t.rf},
                 .peak_node = ""};
  if (nns_analysis_totals(a, &x) != NNS_OK)
    return t;
  nns_analysis_total_counts(a, &t.all);
  nns_analysis_total_rf(a, &t.rf);
  t.params_unique = x.params_unique;
  t.param_bytes_unique = x.param_bytes_unique;
  t.constants = x.constants;
  t.peak_activation_bytes = x.peak_activation_bytes;
  t.peak_node = x.peak_node;
  t.input_bytes = x.input_bytes;
  t.optimizer = x.optimizer;
  t.train_param_bytes = x.train_param_bytes;
  t.train_grad_bytes = x.train_grad_bytes;
  t.train_optimizer_bytes = x.train_optimizer_bytes;
  t.train_activation_bytes = x.train_activation_bytes;
  t.train_total_bytes = x.train_total_bytes;
  return t;
}

size_t tm_find(const nns_model *m, const char *name) {
  size_t i = (size_t)-1;
  if (nns_model_find_value(m, name, &i) != NNS_OK)
    return (size_t)-1;
  return i;
}

nns_dim tm_dim(const nns_model *m, size_t i, int axis) {
  nns_dim d = {.size = sizeof d, .value = -1};
  nns_model_value_dim(m, i, axis, &d);
  return d;
}

const char *tm_warning(const nns_model *m, size_t i) {
  const char *w = "";
  nns_model_warning(m, i, &w);
  return w;
}

const char *tm_analysis_warning(const nns_analysis *a, size_t i) {
  const char *w = "";
  nns_analysis_warning(a, i, &w);
  return w;
}

nns_dim tm_ctx_in_dim(const nns_op_ctx *cx, size_t i, int axis) {
  nns_dim d = {.size = sizeof d, .value = -1};
  nns_op_ctx_input_dim(cx, i, axis, &d);
  return d;
}

nns_dim tm_ctx_out_dim(const nns_op_ctx *cx, size_t i, int axis) {
  nns_dim d = {.size = sizeof d, .value = -1};
  nns_op_ctx_output_dim(cx, i, axis, &d);
  return d;
}

size_t tm_input(const nns_model *m, size_t k) {
  size_t v = (size_t)-1;
  nns_model_input(m, k, &v);
  return v;
}

const char *tm_layer_class(const nns_analysis *a, size_t i) {
  const char *c = NULL;
  nns_analysis_layer_class(a, i, &c);
  return c;
}

char *tm_summary_json(const nns_analysis *a) {
  nns__membuf b = {0};
  nns_report_options o = {.size = sizeof o, .format = NNS_FORMAT_JSON,
                          .max_depth = NNS_DEPTH_ALL};
  nns_error err;
  if (nns_report(a, &o, nns__membuf_write, &b, &err) != NNS_OK) {
    check_fail(__FILE__, __LINE__, "report: %s", err.message);
    free(b.data);
    return NULL;
  }
  return b.data;
}

void tm_cut_warnings(char *json) {
  char *w = strstr(json, "  \"warnings\": [");
  char *end = w ? strstr(w, "],\n") : NULL;
  if (w && end)
    memmove(w, end + 3, strlen(end + 3) + 1);
}

void tm_expect_same_summary(nns_model *built, const char *onnx,
                            const char *what) {
  nns_model *loaded = tm_load_path(onnx, TM_INFER);
  if (built && loaded) {
    nns_analysis *built_an = tm_analyze(built, NULL);
    nns_analysis *loaded_an = tm_analyze(loaded, NULL);
    CHECK_EQ(nns_model_node_count(built), nns_model_node_count(loaded));
    char *a = built_an ? tm_summary_json(built_an) : NULL;
    char *b = loaded_an ? tm_summary_json(loaded_an) : NULL;
    if (a && b) {
      tm_cut_warnings(a);
      tm_cut_warnings(b);
      if (strcmp(a, b) != 0) {
        size_t i = 0;
        while (a[i] && a[i] == b[i])
          i++;
        size_t from = i > 200 ? i - 200 : 0;
        check_fail(__FILE__, __LINE__,
                   "%s: summaries differ at byte %zu:\nbuilt:  %.300s\n"
                   "loaded: %.300s", what, i, a + from, b + from);
      }
      CHECK(strlen(a) > 10000); /* a whole summary, not an empty one */
    }
    free(a);
    free(b);
    nns_analysis_free(built_an);
    nns_analysis_free(loaded_an);
  }
  nns_model_free(built);
  nns_model_free(loaded);
}
