/*
 * test_layers_table.c - NNS_FORMAT_LAYERS_TEXT, _CSV, _MD (thoplw's table)
 * and _JSON (its rows as data)
 * of a hand-built model, every expected line written out here by hand.
 *
 * The model: x [1,8] -> blk.fc1 (MatMul by w1 [8,4]: 1*8*4 = 32 MACs, 32
 * weights) -> blk.drop (a Dropout that runs no operator: no node) -> head
 * (MatMul by w2 [4,2]: 8 MACs, 8 weights). Declared as PyTorch's
 * named_modules would be: "" Net, blk Sequential, blk.fc1 Linear, blk.drop
 * Dropout, head Linear, unused Linear (never called).
 */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "nnscan.h"

static nns_model *two_matmuls(const char *root_class) {
  nns_builder *b = NULL;
  nns_model *m = NULL;
  nns_error err;
  if (nns_builder_new(&b, &err) != NNS_OK)
    return NULL;
  nns_builder_add_opset(b, "", 17, &err);
  int64_t x[2] = {1, 8}, w1[2] = {8, 4}, w2[2] = {4, 2};
  nns_builder_add_input(b, "x", NNS_DT_FLOAT, 2, x, NULL, &err);
  nns_builder_add_initializer(b, "w1", NNS_DT_FLOAT, 2, w1, NULL, 0, &err);
  nns_builder_add_initializer(b, "w2", NNS_DT_FLOAT, 2, w2, NULL, 0, &err);
  const char *i1[2] = {"x", "w1"}, *o1[1] = {"h1"};
  const char *i2[2] = {"h1", "w2"}, *o2[1] = {"y"};
  nns_builder_add_node(b, "MatMul", "", "mm1", "blk.fc1", i1, 2, o1, 1, &err);
  nns_builder_add_node(b, "MatMul", "", "mm2", "head", i2, 2, o2, 1, &err);
  nns_builder_add_output(b, "y", 0, -1, NULL, NULL, &err);
  if (nns_builder_finish(b, &m, &err) != NNS_OK ||
      nns_model_infer(m, NULL, &err) != NNS_OK) {
    nns_model_free(m);
    nns_builder_free(b);
    return NULL;
  }
  nns_builder_free(b);
  static const struct {
    const char *path, *cls;
    size_t calls;
    int64_t in, out;
  } mods[] = {{"", NULL, 1, 8, 2},           {"blk", "Sequential", 1, 8, 4},
              {"blk.fc1", "Linear", 1, 8, 4}, {"blk.drop", "Dropout", 1, 4, 4},
              {"head", "Linear", 1, 4, 2},    {"unused", "Linear", 0, 0, 0}};
  for (size_t i = 0; i < sizeof mods / sizeof *mods; i++) {
    int64_t in[2] = {1, mods[i].in}, out[2] = {1, mods[i].out};
    CHECK_EQ(nns_model_set_module(m, mods[i].path,
                                  mods[i].cls ? mods[i].cls : root_class,
                                  mods[i].calls, &err),
             NNS_OK);
    if (mods[i].calls)
      CHECK_EQ(nns_model_set_module_shapes(m, mods[i].path, in, 2, out, 2,
                                           &err),
               NNS_OK);
  }
  return m;
}


static void expect(const nns_analysis *a, nns_report_format f, nns_numbers n,
                   const char *want) {
  nns_report_options o = {.size = sizeof o, .format = f, .numbers = n};
  check_sink b = {0};
  nns_error err;
  CHECK_EQ(nns_report(a, &o, check_sink_write, &b, &err), NNS_OK);
  CHECK_STR(b.buf ? b.buf : "", want);
  free(b.buf);
}

#define RULE "+----------+---------+-------------+--------------+------+--------+\n"
#define HEAD "| Name     | Class   | Input shape | Output shape | MACs | Params |\n"

static void test_text_md_raw(void) {
  nns_model *m = two_matmuls("Net");
  nns_analysis *a = NULL;
  nns_error err;
  if (!m) {
    check_fail(__FILE__, __LINE__, "model failed");
    return;
  }
  CHECK_EQ(nns_model_analyze(m, NULL, &a, &err), NNS_OK);
  CHECK_EQ(nns_model_module_count(m), 6);
  expect(a, NNS_FORMAT_LAYERS_TEXT, NNS_NUMBERS_RAW,
         HEAD RULE
         "| blk.fc1  | Linear  | 8           | 4            | 32   | 32     |\n"
         "| blk.drop | Dropout | 4           | 4            | 0    | 0      |\n"
         "| head     | Linear  | 4           | 2            | 8    | 8      |\n"
         RULE
         "| Total    | Net     | 8           | 2            | 40   | 40     |\n");
  expect(a, NNS_FORMAT_LAYERS_MD, NNS_NUMBERS_RAW,
         HEAD
         "|----------|---------|-------------|--------------|------|--------|\n"
         "| blk.fc1  | Linear  | 8           | 4            | 32   | 32     |\n"
         "| blk.drop | Dropout | 4           | 4            | 0    | 0      |\n"
         "| head     | Linear  | 4           | 2            | 8    | 8      |\n"
         "| Total    | Net     | 8           | 2            | 40   | 40     |\n");
  /* 32 / 40 = 80 %; the Total row in thop's clever format. */
  expect(a, NNS_FORMAT_LAYERS_CSV, NNS_NUMBERS_RATIO,
         "Name,Class,Input shape,Output shape,MACs,Params\n"
         "blk.fc1,Linear,8,4,80.00 %,80.00 %\n"
         "blk.drop,Dropout,4,4, 0.00 %, 0.00 %\n"
         "head,Linear,4,2,20.00 %,20.00 %\n"
         "Total,Net,8,2,40.00B,40.00B\n");
  /* The same rows as data: cells as printed, numbers raw whatever
   * `numbers` asks. */
  const char *json =
      "{\"schema\": \"nnscan.layers\", \"schema_version\": 1, \"rows\": [\n"
      "  {\"name\": \"blk.fc1\", \"class\": \"Linear\", \"input\": \"8\", "
      "\"output\": \"4\", \"macs\": 32, \"params\": 32},\n"
      "  {\"name\": \"blk.drop\", \"class\": \"Dropout\", \"input\": \"4\", "
      "\"output\": \"4\", \"macs\": 0, \"params\": 0},\n"
      "  {\"name\": \"head\", \"class\": \"Linear\", \"input\": \"4\", "
      "\"output\": \"2\", \"macs\": 8, \"params\": 8}\n"
      "],\n\"total\": {\"name\": \"Total\", \"class\": \"Net\", "
      "\"input\": \"8\", \"output\": \"2\", \"macs\": 40, \"params\": 40}\n}\n";
  expect(a, NNS_FORMAT_LAYERS_JSON, NNS_NUMBERS_RAW, json);
  expect(a, NNS_FORMAT_LAYERS_JSON, NNS_NUMBERS_CLEVER, json);
  /* The module without nodes is no layer of the other reports. */
  for (size_t i = 0; i < nns_analysis_layer_count(a); i++) {
    nns_layer_info l = {.size = sizeof l};
    CHECK_EQ(nns_analysis_layer(a, i, &l), NNS_OK);
    CHECK(strcmp(l.path, "blk.drop") != 0);
  }
  nns_analysis_free(a);
  nns_model_free(m);
}

static void test_clever_and_given_macs(void) {
  nns_model *m = two_matmuls("Net,\"v2\"");
  nns_analysis *a = NULL;
  nns_error err;
  if (!m)
    return;
  /* thop's units start strictly above 1e3: 1000 stays "1000.00B". A
   * module with given MACs is a row even with children (blk: 1000 for
   * its subtree, whose rows go). */
  CHECK_EQ(nns_model_set_module_macs(m, "blk", 1000, &err), NNS_OK);
  CHECK_EQ(nns_model_analyze(m, NULL, &a, &err), NNS_OK);
  expect(a, NNS_FORMAT_LAYERS_CSV, NNS_NUMBERS_CLEVER,
         "Name,Class,Input shape,Output shape,MACs,Params\n"
         "blk,Sequential,8,4,1000.00B,32.00B\n"
         "head,Linear,4,2,8.00B,8.00B\n"
         "Total,\"Net,\"\"v2\"\"\",8,2,1.01K,40.00B\n");
  /* As data: the given MACs, and the class's quotes escaped as JSON's. */
  expect(a, NNS_FORMAT_LAYERS_JSON, NNS_NUMBERS_CLEVER,
         "{\"schema\": \"nnscan.layers\", \"schema_version\": 1, \"rows\": [\n"
         "  {\"name\": \"blk\", \"class\": \"Sequential\", \"input\": \"8\", "
         "\"output\": \"4\", \"macs\": 1000, \"params\": 32},\n"
         "  {\"name\": \"head\", \"class\": \"Linear\", \"input\": \"4\", "
         "\"output\": \"2\", \"macs\": 8, \"params\": 8}\n"
         "],\n\"total\": {\"name\": \"Total\", \"class\": \"Net,\\\"v2\\\"\", "
         "\"input\": \"8\", \"output\": \"2\", \"macs\": 1008, "
         "\"params\": 40}\n}\n");
  nns_analysis_free(a);
  nns_model_free(m);
}

static void test_declarations(void) {
  nns_model *m = two_matmuls("Net");
  nns_error err;
  if (!m)
    return;
  nns_module_info d = {.size = sizeof d};
  CHECK_EQ(nns_model_module(m, 3, &d), NNS_OK);
  CHECK_STR(d.path, "blk.drop");
  CHECK_STR(d.class_name, "Dropout");
  CHECK_EQ(d.input_rank, 2);
  CHECK_EQ(d.output_shape[1], 4);
  CHECK_EQ(nns_model_module(m, 5, &d), NNS_OK);
  CHECK_EQ(d.input_rank, -1); /* never given */
  /* A rank-0 shape prints no dims; -1 prints "-". */
  CHECK_EQ(nns_model_set_module_shapes(m, "head", NULL, 0, NULL, -1, &err),
           NNS_OK);
  CHECK_EQ(nns_model_module(m, 4, &d), NNS_OK);
  CHECK_EQ(d.input_rank, 0);
  CHECK_EQ(d.output_rank, -1);
  nns_model_free(m);
}

/* A caller's rows (nns_report_layers), thoplw's: a Conv2d 3 -> 8, 3x3 on
 * 10x10 (8*8*8 outputs of 27 MACs, + 8 for the bias: 1736; 216 weights +
 * 8 biases: 224) and a ReLU (0, 0) whose input was not recorded. */
static void layers_expect(const nns_layers_row *rows, size_t n,
                          const nns_layers_row *total, nns_report_format f,
                          nns_numbers num, const char *want) {
  nns_report_options o = {.size = sizeof o, .format = f, .numbers = num};
  check_sink b = {0};
  nns_error err;
  CHECK_EQ(nns_report_layers(rows, n, total, NNS_COUNT_STYLE_THOPLW, &o,
                             check_sink_write, &b, &err),
           NNS_OK);
  CHECK_STR(b.buf ? b.buf : "", want);
  free(b.buf);
}

static void test_caller_rows(void) {
  int64_t x[4] = {1, 3, 10, 10}, y[4] = {1, 8, 8, 8};
  nns_layers_row rows[2] = {{.size = sizeof rows[0],
                             .name = "0",
                             .class_name = "Conv2d",
                             .input_shape = x,
                             .input_rank = 4,
                             .output_shape = y,
                             .output_rank = 4,
                             .macs = 1736,
                             .params = 224},
                            {.size = sizeof rows[1],
                             .name = "1",
                             .class_name = "ReLU",
                             .input_rank = -1,
                             .output_shape = y,
                             .output_rank = 4}};
  nns_layers_row total = {.size = sizeof total,
                          .name = "ignored",
                          .class_name = "Net",
                          .input_shape = x,
                          .input_rank = 4,
                          .output_shape = y,
                          .output_rank = 4,
                          .macs = 1736,
                          .params = 224};
  layers_expect(
      rows, 2, &total, NNS_FORMAT_LAYERS_TEXT, NNS_NUMBERS_RAW,
      "| Name  | Class  | Input shape | Output shape | MACs | Params |\n"
      "+-------+--------+-------------+--------------+------+--------+\n"
      "| 0     | Conv2d | 3 x 10 x 10 | 8 x 8 x 8    | 1736 | 224    |\n"
      "| 1     | ReLU   | -           | 8 x 8 x 8    | 0    | 0      |\n"
      "+-------+--------+-------------+--------------+------+--------+\n"
      "| Total | Net    | 3 x 10 x 10 | 8 x 8 x 8    | 1736 | 224    |\n");
  /* thoplw's clever: "%6.2f", a space and the unit, or a space. */
  layers_expect(rows, 2, &total, NNS_FORMAT_LAYERS_CSV, NNS_NUMBERS_CLEVER,
                "Name,Class,Input shape,Output shape,MACs,Params\n"
                "0,Conv2d,3 x 10 x 10,8 x 8 x 8,  1.74 K,224.00  \n"
                "1,ReLU,-,8 x 8 x 8,  0.00  ,  0.00  \n"
                "Total,Net,3 x 10 x 10,8 x 8 x 8,  1.74 K,224.00  \n");
  /* Ratios of the Total row's counts; the Total row clever. */
  layers_expect(
      rows, 2, &total, NNS_FORMAT_LAYERS_MD, NNS_NUMBERS_RATIO,
      "| Name  | Class  | Input shape | Output shape | MACs     | Params   |\n"
      "|-------|--------|-------------|--------------|----------|----------|\n"
      "| 0     | Conv2d | 3 x 10 x 10 | 8 x 8 x 8    | 100.00 % | 100.00 % |\n"
      "| 1     | ReLU   | -           | 8 x 8 x 8    |  0.00 %  |  0.00 %  |\n"
      "| Total | Net    | 3 x 10 x 10 | 8 x 8 x 8    |   1.74 K | 224.00   |\n");
  layers_expect(
      rows, 2, &total, NNS_FORMAT_LAYERS_JSON, NNS_NUMBERS_RAW,
      "{\"schema\": \"nnscan.layers\", \"schema_version\": 1, \"rows\": [\n"
      "  {\"name\": \"0\", \"class\": \"Conv2d\", \"input\": \"3 x 10 x 10\", "
      "\"output\": \"8 x 8 x 8\", \"macs\": 1736, \"params\": 224},\n"
      "  {\"name\": \"1\", \"class\": \"ReLU\", \"input\": \"-\", "
      "\"output\": \"8 x 8 x 8\", \"macs\": 0, \"params\": 0}\n"
      "],\n\"total\": {\"name\": \"Total\", \"class\": \"Net\", "
      "\"input\": \"3 x 10 x 10\", \"output\": \"8 x 8 x 8\", \"macs\": 1736, "
      "\"params\": 224}\n}\n");
  /* No rows: the header, both rules and the Total row. */
  layers_expect(
      NULL, 0, &total, NNS_FORMAT_LAYERS_TEXT, NNS_NUMBERS_RAW,
      "| Name  | Class | Input shape | Output shape | MACs | Params |\n"
      "+-------+-------+-------------+--------------+------+--------+\n"
      "+-------+-------+-------------+--------------+------+--------+\n"
      "| Total | Net   | 3 x 10 x 10 | 8 x 8 x 8    | 1736 | 224    |\n");
}

int main(void) {
  RUN(test_text_md_raw);
  RUN(test_clever_and_given_macs);
  RUN(test_declarations);
  RUN(test_caller_rows);
  return check_finish();
}
