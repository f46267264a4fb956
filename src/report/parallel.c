/*
 * parallel.c (report) - one rank of a parallel plan in the reports: the
 * totals' "per_rank" object and each layer's, and the text footer's
 * "Per rank" lines. Without a plan (nns_model_set_parallel) nothing here
 * writes anything. docs/metrics.md, "Per rank".
 */
#include <stdio.h>

#include "report_int.h"

static void j_comm(nns__jw *w, const nns_per_rank *r) {
  nns__jw_int(w, NNS__JK("comm_bytes"), r->comm_bytes);
  nns__jw_obj(w, NNS__JK("comm"));
  for (int k = 0; k < NNS_COMM_KIND_COUNT; k++) {
    const char *name = nns_comm_kind_name(k);
    nns__jw_key(w, name);
    nns__jw_int(w, NNS__JV, r->comm[k]);
  }
  nns__jw_end(w, NULL);
}

void nns__json_per_rank_layer(nns__jw *w, const nns_analysis *a, size_t l) {
  nns_per_rank r = {.size = sizeof r};
  if (nns_analysis_layer_per_rank(a, l, &r) != NNS_OK || !r.world_size)
    return;
  nns__jw_obj(w, NNS__JK("per_rank"));
  nns__jw_int(w, NNS__JK("params"), r.params);
  nns__jw_int(w, NNS__JK("param_bytes"), r.param_bytes);
  nns__jw_int(w, NNS__JK("grad_bytes"), r.grad_bytes);
  nns__jw_int(w, NNS__JK("optimizer_bytes"), r.optimizer_bytes);
  j_comm(w, &r);
  nns__jw_end(w, NULL);
}

bool nns__json_per_rank(nns__jw *w, const nns_analysis *a) {
  nns_per_rank r = {.size = sizeof r};
  if (nns_analysis_per_rank(a, &r) != NNS_OK || !r.world_size)
    return false;
  nns__jw_break(w, "\n    ");
  nns__jw_obj(w, NNS__JK("per_rank"));
  nns__jw_int(w, NNS__JK("world_size"), r.world_size);
  nns__jw_obj(w, NNS__JK("mesh"));
  for (size_t i = 0; i < nns_analysis_mesh_count(a); i++) {
    const char *name = NULL;
    int64_t size = 0;
    nns_analysis_mesh(a, i, &name, &size);
    nns__jw_key(w, name);
    nns__jw_int(w, NNS__JV, size);
  }
  nns__jw_end(w, NULL);
  nns__jw_bool(w, NNS__JK("estimate"), r.estimate != 0);
  nns__jw_break(w, "\n      ");
  nns__jw_int(w, NNS__JK("params"), r.params);
  nns__jw_int(w, NNS__JK("param_bytes"), r.param_bytes);
  nns__jw_int(w, NNS__JK("grad_bytes"), r.grad_bytes);
  nns__jw_int(w, NNS__JK("optimizer_bytes"), r.optimizer_bytes);
  nns__jw_int(w, NNS__JK("saved_bytes"), r.saved_bytes);
  nns__jw_int(w, NNS__JK("train_peak_bytes"), r.train_peak_bytes);
  nns__jw_break(w, "\n      ");
  nns__jw_int(w, NNS__JK("flops"), r.flops);
  nns__jw_int(w, NNS__JK("macs"), r.macs);
  j_comm(w, &r);
  if (r.budget_bytes > 0) {
    nns__jw_break(w, "\n      ");
    nns__jw_obj(w, NNS__JK("budget"));
    nns__jw_int(w, NNS__JK("bytes"), r.budget_bytes);
    nns__jw_bool(w, NNS__JK("fits"), r.fits != 0);
    nns__jw_str(w, NNS__JK("grow"), r.grow);
    nns__jw_end(w, NULL);
  }
  nns__jw_end(w, NULL);
  return true;
}

void nns__text_per_rank(nns__out *o, const nns_analysis *a) {
  nns_per_rank r = {.size = sizeof r};
  if (nns_analysis_per_rank(a, &r) != NNS_OK || !r.world_size)
    return;
  char mesh[512] = "";
  size_t used = 0;
  for (size_t i = 0; i < nns_analysis_mesh_count(a) && used < sizeof mesh;
       i++) {
    const char *name = NULL;
    int64_t size = 0;
    nns_analysis_mesh(a, i, &name, &size);
    int n = snprintf(mesh + used, sizeof mesh - used, "%s%s=%lld",
                     i ? " x " : "", name, (long long)size);
    if (n < 0)
      break;
    used += (size_t)n;
  }
  char par[32], grad[32], opt[32], saved[32], peak[32], comm[32];
  nns__fmt_clever(par, sizeof par, r.param_bytes, true);
  nns__fmt_clever(grad, sizeof grad, r.grad_bytes, true);
  nns__fmt_clever(opt, sizeof opt, r.optimizer_bytes, true);
  nns__fmt_clever(saved, sizeof saved, r.saved_bytes, true);
  nns__fmt_clever(peak, sizeof peak, r.train_peak_bytes, true);
  nns__fmt_clever(comm, sizeof comm, r.comm_bytes, true);
  nns__out_fmt(o,
               "Per rank (%lld ranks: %s%s): peak %s; params %s, gradients "
               "%s, optimizer state %s, saved for backward %s\n",
               (long long)r.world_size, used ? mesh : "one rank",
               r.estimate ? ", estimate" : "", peak, par, grad, opt, saved);
  nns__out_fmt(o, "  per step it sends %s:", comm);
  for (int k = 0; k < NNS_COMM_KIND_COUNT; k++) {
    char b[32];
    nns__fmt_clever(b, sizeof b, r.comm[k], true);
    nns__out_fmt(o, "%s %s %s", k ? "," : "", nns_comm_kind_name(k), b);
  }
  nns__out_str(o, "\n");
  if (r.budget_bytes > 0) {
    char budget[32];
    nns__fmt_clever(budget, sizeof budget, r.budget_bytes, true);
    if (r.fits)
      nns__out_fmt(o, "  fits in %s per rank\n", budget);
    else
      nns__out_fmt(o, "  does not fit in %s per rank: grow %s\n", budget,
                   r.grow ? r.grow : "?");
  }
}
