/*
 * test_train.c - a recorded training step (nns_model_set_train_step,
 * src/analyze/train.c): saved bytes per layer, optimizer state, the
 * step's peak and its moment, the checkpoint plan, all computed here by
 * hand from the facts given.
 *
 * The model: x[2,4] -> MatMul(w1[4,8]) in "a.fc" -> Relu in "a.act" ->
 * MatMul(w2[8,4]) in "b" -> y. Trainable float32 parameters: 32 + 32
 * elements, 256 bytes; the input 32 bytes.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/report_int.h"
#include "check.h"
#include "nnscan.h"
#include "testmodel.h"

static nns_error err;

static nns_model *model(void) {
  nns_builder *b = NULL;
  CHECK_EQ(nns_builder_new(&b, &err), NNS_OK);
  int64_t xd[] = {2, 4}, w1d[] = {4, 8}, w2d[] = {8, 4};
  CHECK_EQ(nns_builder_add_input(b, "x", NNS_DT_FLOAT, 2, xd, NULL, &err),
           NNS_OK);
  CHECK_EQ(nns_builder_add_initializer(b, "w1", NNS_DT_FLOAT, 2, w1d, NULL, 0,
                                       &err),
           NNS_OK);
  CHECK_EQ(nns_builder_add_initializer(b, "w2", NNS_DT_FLOAT, 2, w2d, NULL, 0,
                                       &err),
           NNS_OK);
  const char *in1[] = {"x", "w1"}, *out1[] = {"h"};
  const char *in2[] = {"h"}, *out2[] = {"r"};
  const char *in3[] = {"r", "w2"}, *out3[] = {"y"};
  CHECK_EQ(nns_builder_add_node(b, "MatMul", "", "fc", "a.fc", in1, 2, out1,
                                1, &err),
           NNS_OK);
  CHECK_EQ(nns_builder_add_node(b, "Relu", "", "act", "a.act", in2, 1, out2, 1,
                                &err),
           NNS_OK);
  CHECK_EQ(nns_builder_add_node(b, "MatMul", "", "fc2", "b", in3, 2, out3, 1,
                                &err),
           NNS_OK);
  CHECK_EQ(nns_builder_add_output(b, "y", 0, -1, NULL, NULL, &err), NNS_OK);
  nns_model *m = NULL;
  CHECK_EQ(nns_builder_finish(b, &m, &err), NNS_OK);
  nns_builder_free(b);
  CHECK_EQ(nns_model_set_param_kind(m, "w1", NNS_PARAM_TRAINABLE, &err),
           NNS_OK);
  CHECK_EQ(nns_model_set_param_kind(m, "w2", NNS_PARAM_TRAINABLE, &err),
           NNS_OK);
  static const char *const called[] = {"a", "a.fc", "a.act", "b"};
  for (int i = 0; i < 4; i++)
    CHECK_EQ(nns_model_set_module(m, called[i], "M", 1, &err), NNS_OK);
  return m;
}

static size_t layer(const nns_analysis *m, const char *path) {
  for (size_t i = 0; i < nns_analysis_layer_count(m); i++) {
    nns_layer_info l = {.size = sizeof l};
    nns_analysis_layer(m, i, &l);
    if (!strcmp(l.path, path))
      return i;
  }
  return (size_t)-1;
}

static nns_counts counts(const nns_analysis *m, const char *path) {
  nns_counts c = {.size = sizeof c};
  CHECK_EQ(nns_analysis_layer_counts(m, layer(m, path), &c), NNS_OK);
  return c;
}

/* Moments: 0 forward in a.fc, 1 forward in a.act, 2 loss, 3 backward
 * node "MmBackward0" in b, 4 backward "ReluBackward0" in a.act, 5 the
 * optimizer step. Events (bytes): h +64 (m0), r and a 48-byte storage
 * +112 (m1), h -64 (m1: Relu keeps its output only), y +32 (m2), grad_r
 * +64 (m3), grad_w2 +128 (m3), grad_h +64 (m4), r and the 48 bytes -112
 * (m4: freed once their node ran), grad_r -64 (m4), grad_w1 +128 (m4),
 * temp +100 (m5), temp -100 (m5). Saved: x (an
 * input, 32, live all step) by a.fc; r (64, made e1, freed e7) first by
 * a.act, also by b: region "" (a and b hold its savers); a storage made
 * and saved in a.act (48, made e1 too, freed e8) of region a.act. */
static void set_step(nns_model *m, int64_t budget) {
  static const int phase[] = {0, 0, 0, 1, 1, 2};
  static const char *const label[] = {"forward", "forward", "loss",
                                      "MmBackward0", "ReluBackward0",
                                      "optimizer step"};
  static const char *const path[] = {"a.fc", "a.act", "", "b", "a.act", ""};
  static const uint32_t at[] = {0, 1, 1, 2, 3, 3, 4, 4, 4, 4, 5, 5};
  static const int64_t by[] = {64, 112, -64, 32, 64, 128,
                               64, -112, -64, 128, 100, -100};
  static const char *const spath[] = {"a.fc", "a.act", "a.act"};
  static const char *const sregion[] = {"", "", "a.act"};
  static const int64_t sbytes[] = {32, 64, 48}, made[] = {-1, 1, 1},
                       freed[] = {-1, 7, 7};
  nns_train_step s = {.size = sizeof s,
                      .moment_count = 6,
                      .moment_phase = phase,
                      .moment_label = label,
                      .moment_path = path,
                      .event_count = 12,
                      .event_moment = at,
                      .event_bytes = by,
                      .saved_count = 3,
                      .saved_path = spath,
                      .saved_region = sregion,
                      .saved_bytes = sbytes,
                      .saved_made = made,
                      .saved_freed = freed,
                      .budget_bytes = budget,
                      .recorded_on = "meta",
                      .loss = "sum of outputs"};
  CHECK_EQ(nns_model_set_train_step(m, &s, &err), NNS_OK);
}

static nns_analysis *analyze(nns_model *m, nns_optimizer opt) {
  nns_analyze_options o = {.size = sizeof o, .optimizer = opt};
  nns_analysis *a = NULL;
  CHECK_EQ(nns_model_analyze(m, &o, &a, &err), NNS_OK);
  return a;
}

static void test_without_a_step_the_estimate_stays(void) {
  nns_model *m = model();
  nns_analysis *a = analyze(m, NNS_OPTIMIZER_ADAM);
  nns_totals t = {.size = sizeof t};
  CHECK_EQ(nns_analysis_totals(a, &t), NNS_OK);
  CHECK_EQ(t.train_step, 0);
  CHECK_EQ(t.train_optimizer_bytes, 512); /* the estimate: 2 x 256 */
  CHECK_EQ(counts(a, "").saved_bytes, 0);
  nns_analysis_free(a);
  nns_model_free(m);
}

static void test_sums_peak_and_optimizer(void) {
  nns_model *m = model();
  set_step(m, 0);
  nns_analysis *a = analyze(m, NNS_OPTIMIZER_ADAMW);
  nns_totals t = {.size = sizeof t};
  CHECK_EQ(nns_analysis_totals(a, &t), NNS_OK);
  CHECK_EQ(t.train_step, 1);
  CHECK_EQ(t.train_grad_bytes, 256);
  /* AdamW: two 256-byte tensors and two 4-byte step counts */
  CHECK_EQ(t.train_optimizer_bytes, 2 * 256 + 2 * 4);
  /* base: params 256 + optimizer 520 + input 32 = 808; running sum of
   * the events: 64 176 112 144 208 336 400 288 224 352 452 352: the peak
   * 452 at the optimizer step */
  CHECK_EQ(t.train_peak_bytes, 808 + 452);
  CHECK_EQ(t.train_total_bytes, t.train_peak_bytes);
  CHECK_EQ(t.train_peak_phase, NNS_TRAIN_OPTIMIZER);
  CHECK_STR(t.train_peak_label, "optimizer step");
  CHECK_EQ(t.train_saved_bytes, 32 + 64 + 48);
  /* per layer at the first saver, summed over subtrees */
  CHECK_EQ(counts(a, "a.fc").saved_bytes, 32);
  CHECK_EQ(counts(a, "a.act").saved_bytes, 112);
  CHECK_EQ(counts(a, "a").saved_bytes, 144);
  CHECK_EQ(counts(a, "b").saved_bytes, 0);
  CHECK_EQ(counts(a, "").saved_bytes, 144);
  /* at the peak (event 10) every saved storage made in the step is gone:
   * checkpointing frees nothing there */
  CHECK_EQ(counts(a, "a.act").checkpoint_saves_bytes, 0);
  CHECK_EQ(counts(a, "a").checkpoint_recompute_flops,
           counts(a, "a").flops);
  const char *on = NULL, *loss = NULL, *target = "x";
  CHECK_EQ(nns_analysis_train_info(a, NULL, &on, &target, &loss), NNS_OK);
  CHECK_STR(on, "meta");
  CHECK_STR(loss, "sum of outputs");
  CHECK(target == NULL);
  nns_analysis_free(a);
  nns_model_free(m);
}

/* Without the optimizer's temporaries the peak is in the backward, where
 * r and the a.act storage are still live: a checkpoint plan can act. */
static void test_checkpoint_plan(void) {
  nns_model *m = model();
  static const int phase[] = {0, 0, 1};
  static const char *const label[] = {"forward", "loss", "MmBackward0"};
  static const char *const path[] = {"a.act", "", "b"};
  static const uint32_t at[] = {0, 0, 1, 2, 2, 2};
  static const int64_t by[] = {64, 48, 32, 200, -64, -48};
  static const char *const spath[] = {"a.act", "a.act"};
  static const char *const sregion[] = {"", "a.act"};
  static const int64_t sbytes[] = {64, 48}, made[] = {0, 1},
                       freed[] = {4, 5};
  nns_train_step s = {.size = sizeof s,
                      .moment_count = 3,
                      .moment_phase = phase,
                      .moment_label = label,
                      .moment_path = path,
                      .event_count = 6,
                      .event_moment = at,
                      .event_bytes = by,
                      .saved_count = 2,
                      .saved_path = spath,
                      .saved_region = sregion,
                      .saved_bytes = sbytes,
                      .saved_made = made,
                      .saved_freed = freed,
                      .budget_bytes = 256 + 32 + 300,
                      .recorded_on = "meta",
                      .target = "cuda",
                      .loss = "loss="};
  CHECK_EQ(nns_model_set_train_step(m, &s, &err), NNS_OK);
  nns_analysis *a = analyze(m, NNS_OPTIMIZER_SGD);
  nns_totals t = {.size = sizeof t};
  CHECK_EQ(nns_analysis_totals(a, &t), NNS_OK);
  /* SGD keeps nothing: base 256 + 32; events 64 112 144 344 280 232 */
  CHECK_EQ(t.train_peak_bytes, 288 + 344);
  CHECK_EQ(t.train_peak_phase, NNS_TRAIN_BACKWARD);
  CHECK_STR(t.train_peak_label, "MmBackward0");
  CHECK_STR(t.train_peak_path, "b");
  /* at the peak both saved storages are live; only the one of region
   * a.act goes with a.act (and with a, which holds it) */
  CHECK_EQ(counts(a, "a.act").checkpoint_saves_bytes, 48);
  CHECK_EQ(counts(a, "a").checkpoint_saves_bytes, 48);
  CHECK_EQ(counts(a, "b").checkpoint_saves_bytes, 0);
  CHECK_EQ(counts(a, "").checkpoint_saves_bytes, 112);
  /* 632 > 588: one module is enough (632 - 48 = 584); a.act (Relu, few
   * FLOPs) frees more per recomputed FLOP than a (which holds a MatMul) */
  CHECK_EQ(nns_analysis_checkpoint_count(a), 1);
  size_t l = 0;
  CHECK_EQ(nns_analysis_checkpoint(a, 0, &l), NNS_OK);
  CHECK_EQ(l, layer(a, "a.act"));
  CHECK_EQ(t.checkpoint_peak_bytes, 632 - 48);
  CHECK_EQ(t.checkpoint_fits, 1);
  /* the reports say so */
  char *json = tm_summary_json(a);
  CHECK(json && strstr(json, "\"train_peak_bytes\": 632") != NULL);
  CHECK(json && strstr(json, "\"modules\": [\"a.act\"]") != NULL);
  CHECK(json && strstr(json, "\"checkpoint_saves_bytes\": 48") != NULL);
  free(json);
  nns__membuf text = {0};
  nns_report_options ro = {.size = sizeof ro, .format = NNS_FORMAT_TEXT};
  CHECK_EQ(nns_report(a, &ro, nns__membuf_write, &text, &err), NNS_OK);
  CHECK(text.data && strstr(text.data, "Saved") != NULL);
  CHECK(text.data &&
        strstr(text.data, "backward node MmBackward0 in 'b'") != NULL);
  CHECK(text.data &&
        strstr(text.data, "run as cuda runs them") != NULL);
  CHECK(text.data &&
        strstr(text.data, "checkpoint 1 module to fit in") != NULL);
  free(text.data);
  /* a new step replaces the old one; NULL clears it */
  CHECK_EQ(nns_model_set_train_step(m, NULL, &err), NNS_OK);
  nns_analysis *b = analyze(m, NNS_OPTIMIZER_SGD);
  CHECK_EQ(nns_analysis_totals(b, &t), NNS_OK);
  CHECK_EQ(t.train_step, 0);
  CHECK_EQ(nns_analysis_checkpoint_count(b), 0);
  /* the analysis made before keeps its step */
  CHECK_EQ(nns_analysis_checkpoint_count(a), 1);
  nns_analysis_free(b);
  nns_analysis_free(a);
  nns_model_free(m);
}

/* A budget under the optimizer step's peak: no saved activation is live
 * there, so no plan can reach it; the plan is empty and the reports say
 * why (issue 40, item 6). A budget the floor allows gets a plan. */
static void test_checkpoint_cannot_reach_the_budget(void) {
  nns_model *m = model();
  set_step(m, 1000);
  nns_analysis *a = analyze(m, NNS_OPTIMIZER_ADAMW);
  nns_totals t = {.size = sizeof t};
  CHECK_EQ(nns_analysis_totals(a, &t), NNS_OK);
  CHECK_EQ(t.train_peak_bytes, 808 + 452);
  /* without a.act's 48-byte storage (live at events 1 to 6) the running
   * sums are 64 128 64 96 160 288 352 288 224 352 452 352: the floor is
   * the optimizer step's 808 + 452 */
  CHECK_EQ(t.checkpoint_floor_bytes, 808 + 452);
  CHECK_EQ(nns_analysis_checkpoint_count(a), 0);
  CHECK_EQ(t.checkpoint_fits, 0);
  CHECK_EQ(t.checkpoint_peak_bytes, 808 + 452);
  char *json = tm_summary_json(a);
  CHECK(json && strstr(json, "\"modules\": []") != NULL);
  CHECK(json && strstr(json, "\"floor_bytes\": 1260") != NULL);
  free(json);
  nns__membuf text = {0};
  nns_report_options ro = {.size = sizeof ro, .format = NNS_FORMAT_TEXT};
  CHECK_EQ(nns_report(a, &ro, nns__membuf_write, &text, &err), NNS_OK);
  CHECK(text.data &&
        strstr(text.data, "checkpointing cannot reach 1000 B") != NULL);
  CHECK(text.data && strstr(text.data, "nothing to checkpoint") != NULL);
  free(text.data);
  nns_analysis_free(a);
  nns_model_free(m);
}

/* nns_train_step.forward_set (issue 41): what the binding set on the
 * recorded forward is said in text and JSON; a struct of the size before
 * it grew (and NULL) says nothing. */
static void test_forward_set(void) {
  nns_model *m = model();
  set_step(m, 0);
  nns_analysis *a = analyze(m, NNS_OPTIMIZER_ADAM);
  char *json = tm_summary_json(a);
  CHECK(json && strstr(json, "forward_set") == NULL);
  free(json);
  nns_analysis_free(a);
  static const int phase[] = {0};
  static const char *const label[] = {"forward"}, *const path[] = {""};
  nns_train_step s = {.size = sizeof s, .moment_count = 1,
                      .moment_phase = phase, .moment_label = label,
                      .moment_path = path, .recorded_on = "meta",
                      .loss = "loss=", .forward_set = "use_cache=False"};
  CHECK_EQ(nns_model_set_train_step(m, &s, &err), NNS_OK);
  a = analyze(m, NNS_OPTIMIZER_ADAM);
  json = tm_summary_json(a);
  CHECK(json && strstr(json, "\"forward_set\": \"use_cache=False\"") != NULL);
  free(json);
  nns__membuf text = {0};
  nns_report_options ro = {.size = sizeof ro, .format = NNS_FORMAT_TEXT};
  CHECK_EQ(nns_report(a, &ro, nns__membuf_write, &text, &err), NNS_OK);
  CHECK(text.data &&
        strstr(text.data, "the forward ran with use_cache=False") != NULL);
  free(text.data);
  nns_analysis_free(a);
  s.size = offsetof(nns_train_step, forward_set); /* a caller built before */
  CHECK_EQ(nns_model_set_train_step(m, &s, &err), NNS_OK);
  a = analyze(m, NNS_OPTIMIZER_ADAM);
  json = tm_summary_json(a);
  CHECK(json && strstr(json, "forward_set") == NULL);
  free(json);
  nns_analysis_free(a);
  nns_model_free(m);
}

int main(void) {
  test_without_a_step_the_estimate_stays();
  test_sums_peak_and_optimizer();
  test_checkpoint_plan();
  test_checkpoint_cannot_reach_the_budget();
  test_forward_set();
  return check_finish();
}
