/*
 * train.c (report) - a recorded training step in the reports: the JSON
 * keys (per layer saved and checkpoint figures; totals saved, grad,
 * optimizer and peak bytes, the peak's moment and the checkpoint plan)
 * and the text footer's lines. Without a recorded step nothing here
 * writes anything: the reports keep the labelled estimate (json.c,
 * summary.c). docs/metrics.md, "Training step".
 */
#include <stdio.h>

#include "report_int.h"

void nns__json_train_layer(nns__jw *w, const nns_totals *t,
                           const nns_counts *c) {
  if (!t->train_step)
    return;
  nns__jw_int(w, NNS__JK("saved_bytes"), c->saved_bytes);
  nns__jw_int(w, NNS__JK("checkpoint_saves_bytes"), c->checkpoint_saves_bytes);
  nns__jw_int(w, NNS__JK("checkpoint_recompute_flops"),
              c->checkpoint_recompute_flops);
}

/* The totals' keys and the "training" object; false without a step (the
 * caller then writes the estimate). */
bool nns__json_train_totals(nns__jw *w, const nns_analysis *m) {
  nns_totals t = nns__totals_of(m);
  if (!t.train_step)
    return false;
  nns__jw_int(w, NNS__JK("saved_bytes"), t.train_saved_bytes);
  nns__jw_int(w, NNS__JK("grad_bytes"), t.train_grad_bytes);
  nns__jw_int(w, NNS__JK("optimizer_bytes"), t.train_optimizer_bytes);
  nns__jw_int(w, NNS__JK("train_peak_bytes"), t.train_peak_bytes);
  int master = 0;
  const char *on = NULL, *target = NULL, *loss = NULL;
  nns_analysis_train_info(m, &master, &on, &target, &loss);
  nns__jw_break(w, "\n    ");
  nns__jw_obj(w, NNS__JK("training"));
  nns__jw_bool(w, NNS__JK("estimate"), false);
  nns__jw_str(w, NNS__JK("optimizer"), nns_optimizer_name(t.optimizer));
  nns__jw_bool(w, NNS__JK("master_weights"), master != 0);
  nns__jw_str(w, NNS__JK("recorded_on"), on);
  nns__jw_str(w, NNS__JK("target"), target);
  nns__jw_str(w, NNS__JK("loss"), loss);
  const char *set = nns__train_forward_set(m);
  if (set) /* grown: only when the binding set something */
    nns__jw_str(w, NNS__JK("forward_set"), set);
  nns__jw_int(w, NNS__JK("param_bytes"), t.train_param_bytes);
  nns__jw_break(w, "\n      ");
  nns__jw_obj(w, NNS__JK("peak_at"));
  nns__jw_str(w, NNS__JK("phase"), nns_train_phase_name(t.train_peak_phase));
  nns__jw_str(w, NNS__JK("label"), t.train_peak_label);
  nns__jw_str(w, NNS__JK("module"), t.train_peak_path);
  nns__jw_end(w, NULL);
  if (t.checkpoint_budget_bytes > 0) {
    nns__jw_break(w, "\n      ");
    nns__jw_obj(w, NNS__JK("checkpoint"));
    nns__jw_int(w, NNS__JK("budget_bytes"), t.checkpoint_budget_bytes);
    nns__jw_bool(w, NNS__JK("fits"), t.checkpoint_fits != 0);
    nns__jw_int(w, NNS__JK("peak_bytes"), t.checkpoint_peak_bytes);
    nns__jw_int(w, NNS__JK("floor_bytes"), t.checkpoint_floor_bytes);
    nns__jw_arr(w, NNS__JK("modules"));
    size_t n = nns_analysis_checkpoint_count(m);
    for (size_t i = 0; i < n; i++) {
      size_t l = 0;
      nns_analysis_checkpoint(m, i, &l);
      nns__jw_str(w, NNS__JV, nns__layer_of(m, l).path);
    }
    nns__jw_end(w, NULL);
    nns__jw_end(w, NULL);
  }
  nns__jw_end(w, NULL);
  return true;
}

/* "backward node MmBackward0 in 'h.0.attn'" */
static void moment_text(char *buf, size_t size, const nns_totals *t) {
  const char *path = t->train_peak_path ? t->train_peak_path : "";
  const char *label = t->train_peak_label ? t->train_peak_label : "";
  if (t->train_peak_phase == NNS_TRAIN_BACKWARD)
    snprintf(buf, size, "backward node %s in '%s'", label, path);
  else if (t->train_peak_phase == NNS_TRAIN_OPTIMIZER)
    snprintf(buf, size, "the optimizer step");
  else if (!strcmp(label, "loss"))
    snprintf(buf, size, "the forward's end (the loss)");
  else
    snprintf(buf, size, "the forward, in '%s'", path);
}

/* The footer's training lines; false without a step (the caller then
 * writes the estimate's line). */
bool nns__text_train_footer(nns__out *o, const nns_analysis *m) {
  nns_totals t = nns__totals_of(m);
  if (!t.train_step)
    return false;
  char peak[32], saved[32], grad[32], opt[32], par[32], at[1200];
  nns__fmt_clever(peak, sizeof peak, t.train_peak_bytes, true);
  nns__fmt_clever(saved, sizeof saved, t.train_saved_bytes, true);
  nns__fmt_clever(grad, sizeof grad, t.train_grad_bytes, true);
  nns__fmt_clever(opt, sizeof opt, t.train_optimizer_bytes, true);
  nns__fmt_clever(par, sizeof par, t.train_param_bytes, true);
  moment_text(at, sizeof at, &t);
  int master = 0;
  const char *on = NULL, *target = NULL, *loss = NULL;
  nns_analysis_train_info(m, &master, &on, &target, &loss);
  nns__out_fmt(o,
               "Training step (%s%s, recorded on %s): peak %s at %s; "
               "params %s, saved for backward %s, gradients %s, optimizer "
               "state %s\n",
               nns_optimizer_name(t.optimizer),
               master ? ", fp32 master weights" : "", on ? on : "?", peak, at,
               par, saved, grad, opt);
  const char *set = nns__train_forward_set(m);
  if (set) {
    nns__out_str(o, "  the forward ran with ");
    nns__out_text(o, set);
    nns__out_str(o, ", set for training (passed in the inputs, another "
                    "value is kept)\n");
  }
  if (target && on && strcmp(target, on) != 0)
    nns__out_fmt(o,
                 "  what autograd saves follows the CPU kernels' graph "
                 "(recorded on %s), except dropout and attention, run as "
                 "%s runs them; other fused kernels there may save "
                 "otherwise\n",
                 on, target);
  if (t.checkpoint_budget_bytes > 0) {
    char budget[32], after[32];
    nns__fmt_clever(budget, sizeof budget, t.checkpoint_budget_bytes, true);
    nns__fmt_clever(after, sizeof after, t.checkpoint_peak_bytes, true);
    size_t n = nns_analysis_checkpoint_count(m);
    if (!n && t.checkpoint_fits)
      nns__out_fmt(o, "  fits in %s without checkpointing\n", budget);
    else if (!n && t.checkpoint_floor_bytes > t.checkpoint_budget_bytes) {
      char floor[32];
      nns__fmt_clever(floor, sizeof floor, t.checkpoint_floor_bytes, true);
      nns__out_fmt(o,
                   "  checkpointing cannot reach %s: with no layer's "
                   "activations kept the peak is still %s (parameters, "
                   "gradients, optimizer state and the step's "
                   "temporaries); nothing to checkpoint\n",
                   budget, floor);
    } else {
      nns__out_fmt(o, "  checkpoint %zu module%s to %s %s (peak %s): ", n,
                   n == 1 ? "" : "s",
                   t.checkpoint_fits ? "fit in" : "come closest to", budget,
                   after);
      for (size_t i = 0; i < n; i++) {
        size_t l = 0;
        nns_analysis_checkpoint(m, i, &l);
        nns__out_str(o, i ? ", " : "");
        nns__out_text(o, nns__layer_of(m, l).path);
      }
      nns__out_str(o, "\n");
    }
  }
  return true;
}
