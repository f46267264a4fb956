/*
 * test_mfu.c - nns_mfu_compute and its reports (issue 48), every expected
 * figure worked out here by hand: MFU = model FLOPs / step time / peak,
 * the peak the named device's dense figure at the step's dtype; a peak of
 * another dtype and an MFU above 100 % refused with NNS_E_ARG; the
 * recompute of nns_step_flops_of named by node or by module.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "nnscan.h"

static nns_step_flops flops(int64_t model, int64_t recompute) {
  nns_step_flops f = {.size = sizeof f, .model_flops = model,
                      .model_flops_dense = model,
                      .recompute_flops = recompute,
                      .recompute_flops_dense = recompute,
                      .hardware_flops = model + recompute, .tokens = 4096};
  return f;
}

static void test_figures_by_hand(void) {
  /* 6e14 FLOPs in 2 s on a device of 1e15 FLOP/s bf16: 30 %. */
  nns_step_flops f = flops(600000000000000, 200000000000000);
  nns_hardware h = {.size = sizeof h, .name = "box"};
  h.peak_flops[NNS_COMPUTE_BF16] = 1e15;
  nns_mfu_options o = {.size = sizeof o, .hardware = &h, .step_dtype = "bf16"};
  nns_mfu m = {.size = sizeof m};
  nns_error err;
  CHECK_EQ(nns_mfu_compute(&f, 2.0, 8, -1, &o, &m, &err), NNS_OK);
  CHECK(fabs(m.mfu - 0.3) < 1e-12);
  CHECK(fabs(m.hfu - 0.4) < 1e-12);
  CHECK(fabs(m.tokens_per_s - 2048) < 1e-9);
  CHECK(fabs(m.samples_per_s - 4) < 1e-12);
  CHECK(fabs(m.model_flops_per_s - 3e14) < 1);
  CHECK_EQ(m.peak_dtype, NNS_COMPUTE_BF16);
  CHECK_STR(m.density, "dense");
  CHECK_STR(m.device, "box");
  /* the H100 SXM of the shipped table, bf16 dense */
  nns_hardware h100 = {.size = sizeof h100};
  CHECK_EQ(nns_hardware_find("h100-sxm", &h100, &err), NNS_OK);
  o.hardware = &h100;
  CHECK_EQ(nns_mfu_compute(&f, 2.0, 8, -1, &o, &m, &err), NNS_OK);
  CHECK(m.peak_flops == h100.peak_flops[NNS_COMPUTE_BF16]);
  CHECK(fabs(m.mfu - 3e14 / h100.peak_flops[NNS_COMPUTE_BF16]) < 1e-12);
}

static void test_refusals(void) {
  nns_step_flops f = flops(1000000000000, 0);
  nns_hardware h100 = {.size = sizeof h100};
  nns_error err;
  CHECK_EQ(nns_hardware_find("h100-sxm", &h100, &err), NNS_OK);
  nns_mfu_options o = {.size = sizeof o, .hardware = &h100,
                       .step_dtype = "bf16", .peak_dtype = "fp8"};
  nns_mfu m = {.size = sizeof m};
  CHECK_EQ(nns_mfu_compute(&f, 1.0, 0, -1, &o, &m, &err), NNS_E_ARG);
  CHECK(strstr(err.message, "fp8 peak cannot apply") != NULL);
  o.step_dtype = "fp32";
  o.peak_dtype = "tf32"; /* fp32 products on TF32 units: allowed */
  CHECK_EQ(nns_mfu_compute(&f, 1.0, 0, -1, &o, &m, &err), NNS_OK);
  o.peak_dtype = NULL;
  o.step_dtype = "bf17";
  CHECK_EQ(nns_mfu_compute(&f, 1.0, 0, -1, &o, &m, &err), NNS_E_ARG);
  o.step_dtype = "bf16";
  CHECK_EQ(nns_mfu_compute(&f, 0.0, 0, -1, &o, &m, &err), NNS_E_ARG);
  CHECK_EQ(nns_mfu_compute(&f, NAN, 0, -1, &o, &m, &err), NNS_E_ARG);
  /* 1e12 FLOPs in 1 ms on a 1e14 peak: 1000 % */
  o.hardware = NULL;
  o.peak_flops = 1e14;
  CHECK_EQ(nns_mfu_compute(&f, 1e-3, 0, -1, &o, &m, &err), NNS_E_ARG);
  CHECK(strstr(err.message, "MFU of 1000.0% is above 100%") != NULL);
  o.peak_flops = 0;
  CHECK_EQ(nns_mfu_compute(&f, 1.0, 0, -1, &o, &m, &err), NNS_E_ARG);
  CHECK(strstr(err.message, "no peak") != NULL);
}

static void test_reports(void) {
  nns_step_flops f = flops(600, 200);
  nns_mfu_options o = {.size = sizeof o, .step_dtype = "fp16",
                       .peak_flops = 1000};
  nns_mfu m = {.size = sizeof m};
  CHECK_EQ(nns_mfu_compute(&f, 2.0, 8, 16, &o, &m, NULL), NNS_OK);
  check_sink s = {0};
  CHECK_EQ(nns_mfu_json_line(7, 1, &f, &m, check_sink_write, &s, NULL),
           NNS_OK);
  CHECK(s.buf && strstr(s.buf, "\"schema\": \"nnscan.steps\"") &&
        strstr(s.buf, "\"step\": 7") && strstr(s.buf, "\"rank\": 1") &&
        strstr(s.buf, "\"mfu\": 0.3,") && strstr(s.buf, "\"hfu\": 0.4,") &&
        strstr(s.buf, "\"tokens_per_s\": 8,") &&
        strstr(s.buf, "\"dtype\": \"fp16\"") && s.buf[s.len - 1] == '\n' &&
        !memchr(s.buf, '\n', s.len - 1));
  free(s.buf);
  s = (check_sink){0};
  CHECK_EQ(nns_mfu_text_row(7, &m, 1, check_sink_write, &s, NULL), NNS_OK);
  CHECK(s.buf && strstr(s.buf, "  30.00%  40.00%  given fp16 dense"));
  free(s.buf);
  int64_t steps[2] = {2, 3};
  double t[2] = {0.5, 0.25}, mf[2] = {0.2, 0.3}, hf[2] = {0.25, 0.35};
  s = (check_sink){0};
  CHECK_EQ(nns_mfu_html(steps, t, mf, hf, 2, "a<b", check_sink_write, &s,
                        NULL), NNS_OK);
  CHECK(s.buf && strstr(s.buf, "a&lt;b") && !strstr(s.buf, "a<b"));
  free(s.buf);
}

/* x[2,4] -> MatMul(w1[4,8]) node "fc" in module "a" -> MatMul(w2[8,4])
 * node "fc2" in module "b": 2 x 2*4*8 = 128 FLOPs each. */
static nns_model *two_matmuls(void) {
  nns_builder *b = NULL;
  nns_error err;
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
  const char *in2[] = {"h", "w2"}, *out2[] = {"y"};
  CHECK_EQ(nns_builder_add_node(b, "MatMul", "", "fc", "a", in1, 2, out1, 1,
                                &err),
           NNS_OK);
  CHECK_EQ(nns_builder_add_node(b, "MatMul", "", "fc2", "b", in2, 2, out2, 1,
                                &err),
           NNS_OK);
  CHECK_EQ(nns_builder_add_output(b, "y", 0, -1, NULL, NULL, &err), NNS_OK);
  nns_model *m = NULL;
  CHECK_EQ(nns_builder_finish(b, &m, &err), NNS_OK);
  nns_builder_free(b);
  return m;
}

static int64_t recompute(const nns_analysis *a, const char *const *names,
                         size_t n) {
  nns_step_flops f = {.size = sizeof f};
  nns_error err;
  CHECK_EQ(nns_step_flops_of(a, a, names, n, &f, &err), NNS_OK);
  CHECK_EQ(f.hardware_flops, f.model_flops + f.recompute_flops);
  return f.recompute_flops;
}

static void test_recompute_by_node_or_module(void) {
  nns_model *m = two_matmuls();
  nns_analyze_options o = {.size = sizeof o};
  nns_analysis *a = NULL;
  nns_error err;
  CHECK_EQ(nns_model_analyze(m, &o, &a, &err), NNS_OK);
  const char *node[] = {"fc"}, *module[] = {"b"}, *both[] = {"fc", "a"};
  const char *all[] = {"fc", "b"}, *model[] = {""}, *none[] = {"c"};
  CHECK_EQ(recompute(a, node, 1), 128);   /* a node by its name */
  CHECK_EQ(recompute(a, module, 1), 128); /* a module's nodes */
  CHECK_EQ(recompute(a, both, 2), 128);   /* named twice: once */
  CHECK_EQ(recompute(a, all, 2), 256);
  CHECK_EQ(recompute(a, model, 1), 256);  /* the whole model */
  CHECK_EQ(recompute(a, none, 1), 0);
  CHECK_EQ(recompute(a, NULL, 0), 0);
  nns_analysis_free(a);
  nns_model_free(m);
}

int main(void) {
  RUN(test_figures_by_hand);
  RUN(test_recompute_by_node_or_module);
  RUN(test_refusals);
  RUN(test_reports);
  return check_finish();
}
