/*
 * test_report.c - the report's building blocks (number, shape and per-axis
 * formatting, the buffered writer) and nns_report()'s errors: bad
 * arguments, a model not analysed, a write callback that stops. Expected
 * strings are worked out by hand in the comments. Rendering whole models
 * is pinned by the golden files of run.sh.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "nnscan.h"
#include "report/report_int.h"
#include "testmodel.h"

static void test_int(void) {
  char b[64];
  nns__fmt_int(b, sizeof b, 1824010216, false);
  CHECK_STR(b, "1824010216");
  nns__fmt_int(b, sizeof b, 1824010216, true);
  CHECK_STR(b, "1,824,010,216");
  nns__fmt_int(b, sizeof b, 999, true);
  CHECK_STR(b, "999");
  nns__fmt_int(b, sizeof b, 1000, true);
  CHECK_STR(b, "1,000");
  nns__fmt_int(b, sizeof b, 0, true);
  CHECK_STR(b, "0");
  nns__fmt_int(b, sizeof b, -1234567, true);
  CHECK_STR(b, "-1,234,567");
  nns__fmt_int(b, sizeof b, INT64_MAX, true);
  CHECK_STR(b, "9,223,372,036,854,775,807");
  /* A buffer too small is cut, never overrun. */
  char small[4];
  nns__fmt_int(small, sizeof small, 123456, true);
  CHECK_STR(small, "123");
}

static void test_clever(void) {
  char b[64];
  /* 1824010216 / 1e9 = 1.824 -> three significant digits: 1.82 G. */
  nns__fmt_clever(b, sizeof b, 1824010216, false);
  CHECK_STR(b, "1.82 G");
  nns__fmt_clever(b, sizeof b, 11689512, false); /* 11.69 M -> 11.7 M */
  CHECK_STR(b, "11.7 M");
  nns__fmt_clever(b, sizeof b, 138357544, false); /* 138.4 M -> 138 M */
  CHECK_STR(b, "138 M");
  nns__fmt_clever(b, sizeof b, 999, false);
  CHECK_STR(b, "999");
  nns__fmt_clever(b, sizeof b, 1000, false);
  CHECK_STR(b, "1.00 k");
  /* 999,999 is 999.999 k, which rounds to 1000 k: written 1.00 M. */
  nns__fmt_clever(b, sizeof b, 999999, false);
  CHECK_STR(b, "1.00 M");
  nns__fmt_clever(b, sizeof b, 0, false);
  CHECK_STR(b, "0");
  nns__fmt_clever(b, sizeof b, INT64_MAX, false); /* 9.22e18 = 9.22 E */
  CHECK_STR(b, "9.22 E");
  /* Bytes in units of 1024: 1536 = 1.5 KiB; 46,758,048 / 2^20 = 44.59. */
  nns__fmt_clever(b, sizeof b, 1023, true);
  CHECK_STR(b, "1023 B");
  nns__fmt_clever(b, sizeof b, 1536, true);
  CHECK_STR(b, "1.50 KiB");
  nns__fmt_clever(b, sizeof b, 46758048, true);
  CHECK_STR(b, "44.6 MiB");
  /* resnet18's peak, exactly 6.125 MiB: half away from zero, as the HTML
   * page's toFixed(2) writes it (printf's "%.2f" gave 6.12). */
  nns__fmt_clever(b, sizeof b, 6422528, true);
  CHECK_STR(b, "6.13 MiB");
  /* 1.005 is 1.00499999999999989... as a double: it rounds down, as
   * toFixed does; 0.125 and -0.125 are ties, away from zero. */
  nns__fmt_fixed(b, sizeof b, 1.005, 2);
  CHECK_STR(b, "1.00");
  nns__fmt_fixed(b, sizeof b, 0.125, 2);
  CHECK_STR(b, "0.13");
  nns__fmt_fixed(b, sizeof b, -0.125, 2);
  CHECK_STR(b, "-0.13");
  nns__fmt_fixed(b, sizeof b, 9.995, 2); /* 9.99499999999999957... */
  CHECK_STR(b, "9.99");
  nns__fmt_fixed(b, sizeof b, 99.5, 0);
  CHECK_STR(b, "100");
  nns__fmt_fixed(b, sizeof b, 2.5, 0);
  CHECK_STR(b, "3");
  nns__fmt_fixed(b, sizeof b, 9.96, 1);
  CHECK_STR(b, "10.0");
  nns__fmt_fixed(b, sizeof b, 12.25, 1);
  CHECK_STR(b, "12.3");
}

static void test_ratio_and_axes(void) {
  char b[64];
  nns__fmt_ratio(b, sizeof b, 1, 8); /* 12.5 % */
  CHECK_STR(b, "12.50%");
  nns__fmt_ratio(b, sizeof b, 5, 0);
  CHECK_STR(b, "-");
  nns__fmt_number(b, sizeof b, 1234, 0, NNS_NUMBERS_RAW, false, true);
  CHECK_STR(b, "1234"); /* CSV: no grouping */
  nns__fmt_number(b, sizeof b, 1234, 0, NNS_NUMBERS_RAW, false, false);
  CHECK_STR(b, "1,234");
  int64_t same[3] = {7, 7, 7}, diff[3] = {7, 5, 3};
  nns__fmt_axes(b, sizeof b, same, 2);
  CHECK_STR(b, "7");
  nns__fmt_axes(b, sizeof b, diff, 2);
  CHECK_STR(b, "7x5");
  nns__fmt_axes(b, sizeof b, diff, 3);
  CHECK_STR(b, "7x5x3");
  nns__fmt_axes(b, sizeof b, diff, 0);
  CHECK_STR(b, "-");
  nns__fmt_axes(b, sizeof b, diff, 99); /* hostile: clamped to 3 axes */
  CHECK_STR(b, "7x5x3");
  nns__fmt_flags(b, sizeof b, NNS_COUNT_PARTIAL | NNS_COUNT_SHARED);
  CHECK_STR(b, "partial,shared");
  CHECK_EQ(nns__utf8_width("├─ab…"), 5);
}

/* ==== Writer ==== */

typedef struct sink {
  char buf[32768];
  size_t len;
  int calls;
  int stop_after; /* fail on this call (1-based); 0 never */
} sink;

static int sink_write(void *user, const char *data, size_t size) {
  sink *s = user;
  s->calls++;
  if (s->stop_after && s->calls >= s->stop_after)
    return 1;
  if (s->len + size < sizeof s->buf) {
    memcpy(s->buf + s->len, data, size);
    s->len += size;
    s->buf[s->len] = 0;
  }
  return 0;
}

/* Markdown's one rule: a layer named "x<!--" cannot open an HTML comment
 * (it hid every row after it in a rendered page); "|", "\" and "`" are
 * backslash-escaped, "<", ">", "&" written as entities. */
static void test_md_escaping(void) {
  static sink s;
  memset(&s, 0, sizeof s);
  static nns__out o;
  nns__out_init(&o, sink_write, &s);
  nns__md_cell(&o, "x<!--");
  nns__md_cell(&o, "a|b\\c`d`<e>&f\ng");
  nns__md_cell(&o, "plain.name_1");
  /* Issue 47: GitHub's inline syntax too: emphasis, strike-through,
   * links and images, math. */
  nns__md_cell(&o, "*b* _i_ ~~s~~ [l](u) ![m](u) $x$");
  CHECK_EQ(nns__out_finish(&o, NULL), NNS_OK);
  CHECK_STR(s.buf, " x&lt;!-- |"
                   " a\\|b\\\\c\\`d\\`&lt;e&gt;&amp;f g |"
                   " plain.name\\_1 |"
                   " \\*b\\* \\_i\\_ \\~\\~s\\~\\~ \\[l\\](u) !\\[m\\](u)"
                   " \\$x\\$ |");
  /* the columns the escapes add: one per backslash, 3 to 4 per entity */
  CHECK_EQ(nns__md_extra("a_b*c"), 2);
  CHECK_EQ(nns__md_extra("<&>"), 3 + 4 + 3);
  CHECK_EQ(nns__md_extra("plain"), 0);
}

/* Bidi and other format controls (Unicode Cf) pass the text cleaner
 * escaped and visible, one column a character of the escape, so that no
 * text, CSV or Markdown report is reordered or hides a character. */
static void test_format_chars_escaped(void) {
  char b[128];
  int w = -1;
  /* U+202E RIGHT-TO-LEFT OVERRIDE, U+2066 LEFT-TO-RIGHT ISOLATE, U+200B
   * ZERO WIDTH SPACE, U+061C ARABIC LETTER MARK, U+E0041 TAG LATIN
   * CAPITAL A; é (U+00E9) is printable and stays. */
  nns__text_clean_width(b, sizeof b,
                        "a\xe2\x80\xae" "b\xe2\x81\xa6" "c\xe2\x80\x8b"
                        "d\xd8\x9c" "e\xf3\xa0\x81\x81" "\xc3\xa9",
                        &w);
  CHECK_STR(b, "a\\u202eb\\u2066c\\u200bd\\u061ce\\U000e0041\xc3\xa9");
  CHECK_EQ(w, 5 + 4 * 6 + 10 + 1);
  /* cut at a whole escape, never inside one */
  nns__text_clean_width(b, 5, "a\xe2\x80\xae", &w);
  CHECK_STR(b, "a");
  CHECK_EQ(w, 1);
}

/* Widths are display columns: a CJK character takes 2 (the tables
 * misaligned by one column a character), a combining mark 0; a cut keeps
 * whole characters and fills a wide one's half column with a space. */
static void test_display_width(void) {
  /* 注意力 (3 wide), e + U+0301 COMBINING ACUTE (1), ｘ FULLWIDTH X (2) */
  CHECK_EQ(nns__utf8_width("\xe6\xb3\xa8\xe6\x84\x8f\xe5\x8a\x9b"), 6);
  CHECK_EQ(nns__utf8_width("e\xcc\x81"), 1);
  CHECK_EQ(nns__utf8_width("\xef\xbd\x98"), 2);
  CHECK_EQ(nns__utf8_width("├─ab…"), 5);
  char b[64];
  int w = -1;
  nns__text_clean_width(b, sizeof b, "a\xe6\xb3\xa8" "e\xcc\x81", &w);
  CHECK_EQ(w, 4);
  static sink s;
  memset(&s, 0, sizeof s);
  static nns__out o;
  nns__out_init(&o, sink_write, &s);
  /* 注意力层 in 8 columns: fits exactly */
  nns__put_fit(&o, "\xe6\xb3\xa8\xe6\x84\x8f\xe5\x8a\x9b\xe5\xb1\x82", 8,
               false, NNS_WRAP_END);
  nns__out_str(&o, "|");
  /* in 6, cut at the end: 注意 (4) + … (1) + a space for the half of 力 */
  nns__put_fit(&o, "\xe6\xb3\xa8\xe6\x84\x8f\xe5\x8a\x9b\xe5\xb1\x82", 6,
               false, NNS_WRAP_END);
  nns__out_str(&o, "|");
  /* in 5, cut in the middle: 注 (2) … (1) 层 (2) */
  nns__put_fit(&o, "\xe6\xb3\xa8\xe6\x84\x8f\xe5\x8a\x9b\xe5\xb1\x82", 5,
               false, NNS_WRAP_MIDDLE);
  nns__out_str(&o, "|");
  /* padding counts columns: 注a in 5 is 注a + 2 spaces */
  nns__put_fit(&o, "\xe6\xb3\xa8" "a", 5, false, NNS_WRAP_END);
  nns__out_str(&o, "|");
  CHECK_EQ(nns__out_finish(&o, NULL), NNS_OK);
  CHECK_STR(s.buf, "\xe6\xb3\xa8\xe6\x84\x8f\xe5\x8a\x9b\xe5\xb1\x82|"
                   "\xe6\xb3\xa8\xe6\x84\x8f\xe2\x80\xa6 |"
                   "\xe6\xb3\xa8\xe2\x80\xa6\xe5\xb1\x82|"
                   "\xe6\xb3\xa8" "a  |");
}

static void test_writer(void) {
  static sink s;
  memset(&s, 0, sizeof s);
  static nns__out o;
  nns__out_init(&o, sink_write, &s);
  nns__out_str(&o, "a");
  nns__out_fmt(&o, "%d-%s", 42, "b");
  nns__out_rep(&o, "─", 2);
  nns__json_str(&o, "q\"\\\n\x01\xff");
  CHECK_EQ(s.calls, 0); /* buffered */
  CHECK_EQ(nns__out_finish(&o, NULL), NNS_OK);
  CHECK_EQ(s.calls, 1);
  CHECK_STR(s.buf, "a42-b──\"q\\\"\\\\\\n\\u0001\\ufffd\"");
  /* More than a buffer's worth goes out in several calls, intact. */
  memset(&s, 0, sizeof s);
  nns__out_init(&o, sink_write, &s);
  for (int i = 0; i < 3000; i++)
    nns__out_str(&o, "0123456789");
  CHECK_EQ(nns__out_finish(&o, NULL), NNS_OK);
  CHECK_EQ(s.len, 30000);
  CHECK(s.calls >= 3);
  /* A callback that stops: NNS_E_IO, and nothing more is written. */
  memset(&s, 0, sizeof s);
  s.stop_after = 1;
  nns__out_init(&o, sink_write, &s);
  for (int i = 0; i < 3000; i++)
    nns__out_str(&o, "0123456789");
  nns_error err;
  CHECK_EQ(nns__out_finish(&o, &err), NNS_E_IO);
  CHECK_EQ(err.code, NNS_E_IO);
  CHECK_EQ(s.calls, 1);
}

/* nns__out_int writes what printf("%lld") writes. */
static void check_out_int(int64_t v) {
  static sink s;
  static nns__out o;
  char want[32];
  memset(&s, 0, sizeof s);
  nns__out_init(&o, sink_write, &s);
  nns__out_int(&o, v);
  CHECK_EQ(nns__out_finish(&o, NULL), NNS_OK);
  snprintf(want, sizeof want, "%lld", (long long)v);
  CHECK_STR(s.buf, want);
}

/* The edges of each digit pair, both signs and both limits, then a spread
 * of magnitudes. */
static void test_out_int(void) {
  static const int64_t edge[] = {0, 1, 9, 10, 11, 99, 100, 101, 999, 1000,
                                 1001, 123456789, INT64_MAX};
  for (size_t i = 0; i < sizeof edge / sizeof *edge; i++) {
    check_out_int(edge[i]);
    check_out_int(-edge[i]);
  }
  check_out_int(INT64_MIN);
  uint64_t x = 88172645463325252ULL; /* xorshift: every length, both signs */
  for (int i = 0; i < 2000; i++) {
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    check_out_int((int64_t)(x >> (i % 64)));
  }
}

/* ==== nns_report() errors ==== */

static void test_report_errors(void) {
  static sink s;
  memset(&s, 0, sizeof s);
  nns_error err;
  CHECK_EQ(nns_report(NULL, NULL, sink_write, &s, &err), NNS_E_ARG);
  CHECK_EQ(err.code, NNS_E_ARG);

  char path[1024];
  snprintf(path, sizeof path, "%s/report/tiny_resnet.onnx", check_dir());
  nns_model *m = tm_load_path(path, TM_INFER);
  nns_analysis *a = NULL;
  if (!m)
    return;
  /* No analysis: nothing to report. */
  CHECK_EQ(nns_report(NULL, NULL, sink_write, &s, &err), NNS_E_ARG);
  CHECK(strstr(err.message, "analysis") != NULL);
  CHECK_EQ(s.calls, 0);
  CHECK_EQ(nns_model_analyze(m, NULL, &a, &err), NNS_OK);
  CHECK_EQ(nns_report(a, NULL, NULL, NULL, &err), NNS_E_ARG);
  nns_report_options bad = {.size = sizeof bad, .format = (nns_report_format)99};
  CHECK_EQ(nns_report(a, &bad, sink_write, &s, &err), NNS_E_ARG);
  bad = (nns_report_options){.max_depth = -5};
  CHECK_EQ(nns_report(a, &bad, sink_write, &s, &err), NNS_E_ARG);
  /* Every format, through a callback that stops at once: NNS_E_IO. */
  for (int f = NNS_FORMAT_TEXT; f <= NNS_FORMAT_JSON; f++) {
    memset(&s, 0, sizeof s);
    s.stop_after = 1;
    nns_report_options o = {.size = sizeof o, .format = (nns_report_format)f,
                            .columns = NNS_COL_ALL};
    CHECK_EQ(nns_report(a, &o, sink_write, &s, &err), NNS_E_IO);
  }
  /* And in full: the text starts with its rule and names the model. */
  memset(&s, 0, sizeof s);
  nns_report_options o = {.size = sizeof o, .model_name = "tiny_resnet", .width = 80};
  CHECK_EQ(nns_report(a, &o, sink_write, &s, &err), NNS_OK);
  CHECK(s.buf[0] == '_');
  CHECK(strstr(s.buf, "\ntiny_resnet ") != NULL);
  CHECK(strstr(s.buf, "├─") != NULL && strstr(s.buf, "└─") != NULL);
  nns_analysis_free(a);
  nns_model_free(m);
}

static void test_table_errors(void) {
  static sink s;
  memset(&s, 0, sizeof s);
  nns_error err;
  nns_report_options json = {.size = sizeof json, .format = NNS_FORMAT_JSON};
  CHECK_EQ(nns_report_table(NULL, NULL, sink_write, &s, &err), NNS_E_ARG);
  nns_table *t = NULL;
  CHECK_EQ(nns_table_new(&t, &err), NNS_OK);
  /* No model at all is still a valid (empty) table and plot. */
  CHECK_EQ(nns_report_table(t, NULL, sink_write, &s, &err), NNS_OK);
  CHECK_EQ(nns_report_plot(t, sink_write, &s, &err), NNS_OK);
  nns_model *m = tm_load_path("report/tiny_resnet.onnx", TM_LOAD_ONLY);
  nns_analysis *a = NULL;
  if (m) {
    /* No analysis, no row. */
    CHECK_EQ(nns_table_add(t, "a<&>", NULL, &err), NNS_E_ARG);
    CHECK_EQ(nns_model_analyze(m, NULL, &a, &err), NNS_OK);
    CHECK_EQ(nns_table_add(t, "a<&>", a, &err), NNS_OK);
    nns_analysis_free(a);
    nns_model_free(m); /* the row is a copy */
  }
  CHECK_EQ(nns_table_row_count(t), 1);
  CHECK_EQ(nns_report_table(t, &json, sink_write, &s, &err), NNS_E_ARG);
  CHECK_EQ(nns_report_plot(t, NULL, NULL, &err), NNS_E_ARG);
  memset(&s, 0, sizeof s);
  CHECK_EQ(nns_report_plot(t, sink_write, &s, &err), NNS_OK);
  CHECK(strstr(s.buf, ">a&lt;&amp;&gt;</text>") != NULL); /* escaped label */
  nns_table_free(t);
}

/* The "nnscan.shapes" document is a library report, byte for byte the
 * CLI's golden file (tests/cli/tiny_cnn.shapes.json). */
static void test_shapes_report(void) {
  nns_model *m = tm_load_path("cli/tiny_cnn.onnx", TM_INFER);
  FILE *f = fopen("cli/tiny_cnn.shapes.json", "rb");
  static char golden[32768];
  size_t n = f ? fread(golden, 1, sizeof golden - 1, f) : 0;
  if (f)
    fclose(f);
  golden[n] = 0;
  if (!m || !n) {
    check_fail(__FILE__, __LINE__, "tiny_cnn model or golden missing");
    nns_model_free(m);
    return;
  }
  static sink s;
  memset(&s, 0, sizeof s);
  nns_error err;
  nns_report_options o = {.size = sizeof o, .format = NNS_FORMAT_SHAPES_JSON,
                          .model_path = "tiny_cnn.onnx"};
  CHECK_EQ(nns_report_shapes(m, &o, sink_write, &s, &err), NNS_OK);
  CHECK_STR(s.buf, golden);
  /* The text table needs no analysis either. */
  memset(&s, 0, sizeof s);
  o.format = NNS_FORMAT_SHAPES_TEXT;
  CHECK_EQ(nns_report_shapes(m, &o, sink_write, &s, &err), NNS_OK);
  CHECK(strstr(s.buf, "Name") == s.buf);
  CHECK(strstr(s.buf, "[batch, 256]") != NULL);
  nns_model_free(m);
}

/* The input `name` [1, 2, H, 8], H named `h` (NULL: 8), and once, the
 * convolutions' weight "w" [2, 2, 3, 3]. */
static void add_input_2x8(nns_builder *b, const char *name, const char *h) {
  nns_error err;
  int64_t d[] = {1, 2, h ? -1 : 8, 8};
  const char *sym[] = {NULL, NULL, h, NULL};
  CHECK_EQ(nns_builder_add_input(b, name, NNS_DT_FLOAT, 4, d, sym, &err),
           NNS_OK);
  if (strcmp(name, "x") != 0)
    return;
  int64_t wd[] = {2, 2, 3, 3};
  CHECK_EQ(nns_builder_add_initializer(b, "w", NNS_DT_FLOAT, 4, wd, NULL, 0,
                                       &err),
           NNS_OK);
}

/* A new builder (opset 13) with input "x" (1x2x8x8) and its weight "w". */
static nns_builder *builder_with_x(void) {
  nns_error err;
  nns_builder *b = NULL;
  CHECK_EQ(nns_builder_new(&b, &err), NNS_OK);
  nns_builder_add_opset(b, "", 13, &err);
  add_input_2x8(b, "x", NULL);
  return b;
}

/* A 3x3 stride-2 pad-1 Conv of `in` by "w" into `out`: H -> (H+1)/2. */
static void add_conv_s2(nns_builder *b, const char *name, const char *in,
                        const char *out) {
  nns_error err;
  int64_t k[] = {3, 3}, st[] = {2, 2}, pads[] = {1, 1, 1, 1};
  const char *ins[] = {in, "w"}, *outs[] = {out};
  CHECK_EQ(nns_builder_add_node(b, "Conv", "", name, NULL, ins, 2, outs, 1,
                                &err),
           NNS_OK);
  nns_builder_attr_ints(b, "kernel_shape", k, 2, &err);
  nns_builder_attr_ints(b, "strides", st, 2, &err);
  nns_builder_attr_ints(b, "pads", pads, 4, &err);
}

/* Ends b with output `out` (any type), frees it and analyses the model:
 * the analysis, and the model in *m (both NULL on a failure, which is a
 * test failure). */
static nns_analysis *finish_analysed(nns_builder *b, const char *out,
                                     nns_model **m) {
  nns_error err;
  nns_analysis *a = NULL;
  *m = NULL;
  CHECK_EQ(nns_builder_add_output(b, out, 0, -1, NULL, NULL, &err), NNS_OK);
  CHECK_EQ(nns_builder_finish(b, m, &err), NNS_OK);
  nns_builder_free(b);
  if (*m)
    CHECK_EQ(nns_model_analyze(*m, NULL, &a, &err), NNS_OK);
  return a;
}

/* Six 3x3 stride-2 convolutions (pad 1) on an input whose H is named
 * p2o.DynamicDimension.1, as paddle2onnx names dims: each output H is
 * ceil(H/2), which nnscan writes (H+1)/2, so the sixth is six nested
 * quotients. The text table shows each long expression as #k and the
 * legend writes each step once: (p2o.DynamicDimension.1+1)/2, then
 * (#2+1)/2, ... ; no line carries the whole nest. */
static void test_long_dims_get_short_names(void) {
  nns_error err;
  nns_builder *b = NULL;
  CHECK_EQ(nns_builder_new(&b, &err), NNS_OK);
  if (!b)
    return;
  nns_builder_add_opset(b, "", 13, &err);
  add_input_2x8(b, "x", "p2o.DynamicDimension.1");
  char prev[16] = "x", out[16], name[16];
  for (int i = 0; i < 6; i++) {
    snprintf(out, sizeof out, "c%d", i);
    snprintf(name, sizeof name, "/conv%d/Conv", i);
    add_conv_s2(b, name, prev, out);
    memcpy(prev, out, sizeof prev);
  }
  nns_model *m;
  nns_analysis *a = finish_analysed(b, prev, &m);
  if (!a) {
    nns_model_free(m);
    return;
  }
  static sink s;
  memset(&s, 0, sizeof s);
  nns_report_options o = {.size = sizeof o, .width = 100};
  CHECK_EQ(nns_report(a, &o, sink_write, &s, &err), NNS_OK);
  /* W: 8 -> 4 -> 2 -> 1 -> 1 ...; H: the named chain. */
  CHECK(strstr(s.buf, "conv0 ") != NULL);
  /* Numbered by first appearance: the root row (the last output) first. */
  CHECK(strstr(s.buf, "(1, 2, #1, 1)") != NULL);
  CHECK(strstr(s.buf, "(1, 2, #2, 4)") != NULL);
  CHECK(strstr(s.buf, "  #1 = (#6+1)/2\n") != NULL);
  CHECK(strstr(s.buf, "  #2 = (p2o.DynamicDimension.1+1)/2\n") != NULL);
  CHECK(strstr(s.buf, "  #3 = (#2+1)/2\n") != NULL);
  CHECK(strstr(s.buf, "  #6 = (#5+1)/2\n") != NULL);
  CHECK(strstr(s.buf, "#7") == NULL);
  for (const char *l = s.buf; *l;) {
    const char *e = strchr(l, '\n');
    size_t len = e ? (size_t)(e - l) : strlen(l);
    CHECK(len < 120);
    l += len + (e != NULL);
  }
  /* CSV keeps the expressions whole (for machines). */
  memset(&s, 0, sizeof s);
  o.format = NNS_FORMAT_CSV;
  CHECK_EQ(nns_report(a, &o, sink_write, &s, &err), NNS_OK);
  CHECK(strstr(s.buf, "#1") == NULL);
  CHECK(strstr(s.buf, "((p2o.DynamicDimension.1+1)/2+1)/2") != NULL);
  nns_analysis_free(a);
  nns_model_free(m);
}

/* A sink into a memory stream (open_memstream), for tables too long for
 * `sink`. */
static int stream_write(void *user, const char *data, size_t size) {
  return fwrite(data, 1, size, user) == size ? 0 : 1;
}

/* Columns of a line of UTF-8 text: its bytes that start a character (the
 * table's guides and rules are one column each). */
static size_t columns(const char *l, size_t len) {
  size_t n = 0;
  for (size_t i = 0; i < len; i++)
    n += ((unsigned char)l[i] & 0xC0) != 0x80;
  return n;
}

/* The text table of a chain of 6,000 Relus on x [1, 2, 8, 8] (6,001 rows
 * with the root), which summary.c formats in two halves at once
 * (GRID_THREAD_MIN_ROWS): node 5,000 (row 5,001, second half) is named
 * `long_name`; with `convs`, nodes 2,989 and 3,005 are instead "a0", a
 * 3x3 stride-2 pad-1 Conv of y [1, 2, S, 8], and "late", the same Conv of
 * a0's output. The caller frees the text. */
static const char *long_name =
    "a_layer_name_long_enough_to_set_the_width_of_the_layer_column";

static char *long_table(bool convs) {
  nns_error err;
  nns_builder *b = builder_with_x();
  add_input_2x8(b, "y", "p2o.DynamicDimension.1");
  char prev[32] = "x", out[32], name[80];
  for (int i = 0; i < 6000; i++) {
    const char *conv_in = !convs      ? NULL
                          : i == 2989 ? "y"
                          : i == 3005 ? "c_a0"
                                      : NULL;
    if (conv_in) {
      snprintf(out, sizeof out, "c_%s", i == 2989 ? "a0" : "late");
      add_conv_s2(b, out + 2, conv_in, out);
      continue;
    }
    snprintf(out, sizeof out, "r%d", i);
    if (i == 5000)
      snprintf(name, sizeof name, "%s", long_name);
    else
      snprintf(name, sizeof name, "relu%d", i);
    const char *in[] = {prev}, *o[] = {out};
    CHECK_EQ(nns_builder_add_node(b, "Relu", "", name, NULL, in, 1, o, 1,
                                  &err),
             NNS_OK);
    memcpy(prev, out, sizeof prev);
  }
  nns_model *m;
  nns_analysis *a = finish_analysed(b, prev, &m);
  if (!a) {
    nns_model_free(m);
    return NULL;
  }
  CHECK_EQ(nns_analysis_layer_count(a), 6001);
  char *text = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&text, &len);
  CHECK(f != NULL);
  nns_report_options o = {.size = sizeof o, .width = 400};
  if (f) {
    CHECK_EQ(nns_report(a, &o, stream_write, f, &err), NNS_OK);
    fclose(f);
  }
  nns_analysis_free(a);
  nns_model_free(m);
  return text;
}

/* The two halves of a long table read as one: the rows in order, and
 * every column as wide as its widest cell, here in the second half (the
 * long name): every line of the table, rules included, is as wide as the
 * first. */
static void test_long_table_widths(void) {
  char *text = long_table(false);
  CHECK(text && strstr(text, long_name));
  size_t width = 0, lines = 0;
  const char *after = text;
  /* rule, header, rule, the root's row and the nodes', and the rule above
   * the totals */
  for (const char *l = text; l && *l && strncmp(l, "Trainable", 9) != 0;) {
    const char *e = strchr(l, '\n');
    size_t len = e ? (size_t)(e - l) : strlen(l);
    if (!width)
      width = columns(l, len);
    CHECK_EQ(columns(l, len), width);
    if (lines >= 4 && lines < 4 + 6000) { /* node j's row, in order */
      char row[32];
      size_t j = lines - 4;
      snprintf(row, sizeof row, "─relu%zu ", j);
      const char *at = strstr(after, j == 5000 ? long_name : row);
      CHECK(at != NULL && at < e);
      after = at ? at : after;
    }
    lines++;
    l += len + (e != NULL);
  }
  CHECK(width > strlen(long_name));
  CHECK_EQ(lines, 3 + 6001 + 1);
  free(text);
}

/* Short names of long dims are numbered by first appearance over the
 * whole table: a0 (row 2,990, near the end of the first half) has
 * H = (S+1)/2, so #1; late (row 3,006, near the start of the second, so
 * met first by a half that numbered its own) has H = ((S+1)/2+1)/2, #2,
 * written (#1+1)/2. */
static void test_long_table_short_names(void) {
  char *text = long_table(true);
  const char *a0 = text ? strstr(text, "─a0 ") : NULL;
  const char *late = a0 ? strstr(a0, "─late ") : NULL;
  CHECK(a0 && late);
  CHECK(a0 && strstr(a0, "(1, 2, #1, 4)") < strchr(a0, '\n'));
  CHECK(late && strstr(late, "(1, 2, #2, 2)") < strchr(late, '\n'));
  CHECK(text && strstr(text, "  #1 = (p2o.DynamicDimension.1+1)/2\n"));
  CHECK(text && strstr(text, "  #2 = (#1+1)/2\n"));
  CHECK(text && !strstr(text, "#3"));
  free(text);
}

/* Short names deep in a tree (an nn.Sequential inside a module, as
 * torch.onnx names its nodes /0/mlp/0/Relu): the Layer column is as wide
 * as the root's name, and every row below the root keeps its whole tree
 * prefix at widths 80, 100 and 160; the guides used to be cut ("…│ ├─0")
 * whenever fewer than 4 columns were left for the name. */
static void test_short_names_keep_guides(void) {
  static const char *nodes[] = {"/0/mlp/0/Relu", "/0/mlp/1/Relu",
                                "/0/mlp/2/Relu", "/0/ln/Relu",
                                "/1/mlp/0/Relu", "/1/ln/Relu"};
  /* The Layer column: 7 wide ("│ │ ├─0"), then the gap, then Type. */
  static const char *want[] = {
      "m0       R", "├─0      R", "│ ├─mlp  R",
      "│ │ ├─0  R", "│ │ ├─1  R", "│ │ └─2  R",
      "│ └─ln   R", "└─1      R", "  ├─mlp  R",
      "  │ └─0  R", "  └─ln   R"};
  for (int wi = 0; wi < 3; wi++) {
    nns_error err;
    nns_builder *b = builder_with_x();
    char prev[32] = "x", out[32];
    for (size_t i = 0; i < sizeof nodes / sizeof *nodes; i++) {
      snprintf(out, sizeof out, "r%zu", i);
      const char *in[] = {prev}, *o[] = {out};
      CHECK_EQ(nns_builder_add_node(b, "Relu", "", nodes[i], NULL, in, 1, o,
                                    1, &err),
               NNS_OK);
      memcpy(prev, out, sizeof prev);
    }
    nns_model *m;
    nns_analysis *a = finish_analysed(b, prev, &m);
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    CHECK(f != NULL && a != NULL);
    static const int widths[3] = {80, 100, 160};
    nns_report_options o = {.size = sizeof o, .width = widths[wi],
                            .max_depth = NNS_DEPTH_ALL, .model_name = "m0"};
    if (f && a) {
      CHECK_EQ(nns_report(a, &o, stream_write, f, &err), NNS_OK);
    }
    if (f)
      fclose(f);
    /* rule, header, rule, then the rows */
    const char *l = text;
    for (int skip = 0; l && skip < 3; skip++)
      l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL;
    for (size_t r = 0; l && r < sizeof want / sizeof *want; r++) {
      size_t n = strlen(want[r]);
      if (strncmp(l, want[r], n) != 0) {
        fprintf(stderr, "width %d row %zu: want '%s', got '%.*s'\n",
                widths[wi], r, want[r], (int)n, l);
        CHECK(0);
      }
      l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL;
    }
    CHECK(l && strncmp(l, "====", 4) == 0);
    free(text);
    nns_analysis_free(a);
    nns_model_free(m);
  }
}

/* A module that never ran between two that did, all of one output shape,
 * after enough other shapes that the table's kept Output Shape cells wrap
 * around: the rows after it show their shape, not "not called" (a cell of
 * no shape was once kept under the previous row's shape: CLIP's text
 * encoder layers read "not called" after its ModuleList). */
static void test_not_called_keeps_no_shape(void) {
  nns_error err;
  nns_builder *b = NULL;
  CHECK_EQ(nns_builder_new(&b, &err), NNS_OK);
  nns_builder_add_opset(b, "", 13, &err);
  /* m1..m7: seven shapes of their own, then enc (1, 9, 4), enc.layers
   * (never called), enc.layers.0 and enc.layers.1 (1, 9, 4) */
  char in[16], out[16], node[48];
  for (int k = 1; k <= 8; k++) {
    int64_t d[] = {1, k == 8 ? 9 : k, 4};
    snprintf(in, sizeof in, "i%d", k);
    CHECK_EQ(nns_builder_add_input(b, in, NNS_DT_FLOAT, 3, d, NULL, &err),
             NNS_OK);
    snprintf(out, sizeof out, "o%d", k);
    if (k < 8)
      snprintf(node, sizeof node, "/m%d/Relu", k);
    else
      snprintf(node, sizeof node, "/enc/Relu");
    const char *ins[] = {in}, *outs[] = {out};
    CHECK_EQ(nns_builder_add_node(b, "Relu", "", node, NULL, ins, 1, outs, 1,
                                  &err),
             NNS_OK);
    CHECK_EQ(nns_builder_add_output(b, out, 0, -1, NULL, NULL, &err), NNS_OK);
  }
  static const char *const deep[][3] = {
      {"/enc/layers/0/Relu", "o8", "p0"}, {"/enc/layers/1/Relu", "p0", "p1"}};
  for (size_t k = 0; k < 2; k++) {
    const char *ins[] = {deep[k][1]}, *outs[] = {deep[k][2]};
    CHECK_EQ(nns_builder_add_node(b, "Relu", "", deep[k][0], NULL, ins, 1,
                                  outs, 1, &err),
             NNS_OK);
  }
  CHECK_EQ(nns_builder_add_output(b, "p1", 0, -1, NULL, NULL, &err), NNS_OK);
  nns_model *m = NULL;
  CHECK_EQ(nns_builder_finish(b, &m, &err), NNS_OK);
  nns_builder_free(b);
  static const char *const called[] = {"m1", "m2", "m3", "m4",
                                       "m5", "m6", "m7", "enc",
                                       "enc.layers.0", "enc.layers.1"};
  for (size_t k = 0; k < sizeof called / sizeof *called; k++)
    CHECK_EQ(nns_model_set_module(m, called[k], "Block", 1, &err), NNS_OK);
  CHECK_EQ(nns_model_set_module(m, "enc.layers", "ModuleList", 0, &err),
           NNS_OK);
  nns_analysis *a = NULL;
  CHECK_EQ(nns_model_analyze(m, NULL, &a, &err), NNS_OK);
  char *text = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&text, &len);
  nns_report_options opt = {.size = sizeof opt, .width = 100,
                            .max_depth = NNS_DEPTH_ALL};
  CHECK(f != NULL && a != NULL);
  if (f && a) {
    CHECK_EQ(nns_report(a, &opt, stream_write, f, &err), NNS_OK);
  }
  if (f)
    fclose(f);
  /* exactly one "not called", on the ModuleList's row */
  const char *nc = text ? strstr(text, "not called") : NULL;
  CHECK(nc != NULL && !strstr(nc + 1, "not called"));
  const char *row = nc;
  while (row && row > text && row[-1] != '\n')
    row--;
  CHECK(row && strstr(row, "ModuleList") && strstr(row, "ModuleList") < nc);
  for (const char *line = text; line && *line;) {
    const char *end = strchr(line, '\n');
    size_t n = end ? (size_t)(end - line) : strlen(line);
    bool block = false;
    for (size_t i = 0; i + 5 <= n && !block; i++)
      block = strncmp(line + i, "Block", 5) == 0;
    if (block && !memchr(line, '(', n)) {
      fprintf(stderr, "row without a shape: %.*s\n", (int)n, line);
      CHECK(0);
    }
    line = end ? end + 1 : NULL;
  }
  free(text);
  nns_analysis_free(a);
  nns_model_free(m);
}

/* A module the binding declared with no calls (googlenet's aux heads in
 * eval) says so in every format: "not called" for its output shape in
 * text, CSV and Markdown, "called": false in JSON; one that ran shows its
 * shape and no such key. */
static void test_not_called(void) {
  nns_error err;
  nns_builder *b = builder_with_x();
  const char *in[] = {"x"}, *o[] = {"y"};
  CHECK_EQ(nns_builder_add_node(b, "Relu", "", "/fc/Relu", NULL, in, 1, o, 1,
                                &err),
           NNS_OK);
  const char *in2[] = {"y"}, *o2[] = {"z"};
  CHECK_EQ(nns_builder_add_node(b, "Relu", "", "/aux/Relu", NULL, in2, 1, o2,
                                1, &err),
           NNS_OK);
  nns_model *m = NULL;
  CHECK_EQ(nns_builder_add_output(b, "z", 0, -1, NULL, NULL, &err), NNS_OK);
  CHECK_EQ(nns_builder_finish(b, &m, &err), NNS_OK);
  nns_builder_free(b);
  CHECK_EQ(nns_model_set_module(m, "fc", "Linear", 1, &err), NNS_OK);
  CHECK_EQ(nns_model_set_module(m, "aux", "Linear", 0, &err), NNS_OK);
  nns_analysis *a = NULL;
  CHECK_EQ(nns_model_analyze(m, NULL, &a, &err), NNS_OK);
  static const struct {
    nns_report_format format;
    const char *fc, *aux;
  } want[] = {
      {NNS_FORMAT_TEXT, "├─fc   Linear  (1, 2, 8, 8)", "└─aux  Linear  not called"},
      {NNS_FORMAT_CSV, "fc,Linear,\"(1, 2, 8, 8)\"", "aux,Linear,not called"},
      {NNS_FORMAT_MD, "| fc | Linear | (1, 2, 8, 8) |",
       "| aux | Linear | not called |"},
  };
  for (size_t k = 0; a && k < sizeof want / sizeof *want; k++) {
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    nns_report_options opt = {.size = sizeof opt, .format = want[k].format,
                              .width = 100};
    CHECK_EQ(nns_report(a, &opt, stream_write, f, &err), NNS_OK);
    fclose(f);
    if (!strstr(text, want[k].fc) || !strstr(text, want[k].aux)) {
      fprintf(stderr, "format %d:\n%s\n", (int)want[k].format, text);
      CHECK(0);
    }
    free(text);
  }
  char *json = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&json, &len);
  nns_report_options opt = {.size = sizeof opt, .format = NNS_FORMAT_JSON,
                            .json_version = 2};
  CHECK_EQ(nns_report(a, &opt, stream_write, f, &err), NNS_OK);
  fclose(f);
  const char *aux = json ? strstr(json, "\"path\": \"aux\"") : NULL;
  const char *fc = json ? strstr(json, "\"path\": \"fc\"") : NULL;
  const char *called = json ? strstr(json, "\"called\": false") : NULL;
  CHECK(aux && fc && called && called > aux && fc < aux);
  /* twice: in "layers" and again in "tree" (aux's info), never for fc */
  int seen = 0;
  for (const char *q = called; q; q = strstr(q + 1, "\"called\": false"))
    seen++;
  CHECK_EQ(seen, 2);
  free(json);
  /* version 1, which the HTML page reads: the same key on aux alone */
  json = NULL;
  f = open_memstream(&json, &len);
  opt.json_version = 0;
  CHECK_EQ(nns_report(a, &opt, stream_write, f, &err), NNS_OK);
  fclose(f);
  seen = 0;
  for (const char *q = json ? strstr(json, "\"called\": false") : NULL; q;
       q = strstr(q + 1, "\"called\": false"))
    seen++;
  CHECK_EQ(seen, 2);
  free(json);
  nns_analysis_free(a);
  nns_model_free(m);
}

/* The JSON report of a, version v (1 or 2), as a string to free. */
static char *json_of(const nns_analysis *a, int v) {
  nns_error err;
  char *json = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&json, &len);
  nns_report_options opt = {.size = sizeof opt, .format = NNS_FORMAT_JSON,
                            .json_version = v};
  CHECK_EQ(nns_report(a, &opt, stream_write, f, &err), NNS_OK);
  fclose(f);
  return json;
}

/* Version 1 writes the metrics in their places (docs/json.md, "The
 * metrics"): its first counts before "nodes" and "flags", frozen (grown
 * since) after them and only when not zero; version 2 states every one.
 * One 3x3 stride-2 Conv, 2 -> 2 channels, on 1x2x8x8: weight 2*2*3*3 = 36
 * elements (144 bytes), output 1x2x4x4 = 32 elements (128 bytes), 32 * 18
 * = 576 MACs. */
static void test_v1_metric_places(void) {
  for (int frozen = 0; frozen < 2; frozen++) {
    nns_error err;
    nns_builder *b = builder_with_x();
    add_conv_s2(b, "conv", "x", "y");
    nns_model *m = NULL;
    CHECK_EQ(nns_builder_add_output(b, "y", 0, -1, NULL, NULL, &err), NNS_OK);
    CHECK_EQ(nns_builder_finish(b, &m, &err), NNS_OK);
    nns_builder_free(b);
    if (!m)
      return;
    if (frozen)
      CHECK_EQ(nns_model_set_param_kind(m, "w", NNS_PARAM_FROZEN, &err),
               NNS_OK);
    nns_analysis *a = NULL;
    CHECK_EQ(nns_model_analyze(m, NULL, &a, &err), NNS_OK);
    char *v1 = a ? json_of(a, 1) : NULL, *v2 = a ? json_of(a, 2) : NULL;
    const char *first = frozen
        ? "\"params\": 0, \"buffers\": 0, \"param_bytes\": 144, \"flops\": "
        : "\"params\": 36, \"buffers\": 0, \"param_bytes\": 144, \"flops\": ";
    const char *tail = frozen
        ? "\"activation_bytes\": 128, \"nodes\": 1, \"flags\": {\"partial\": "
          "false, \"symbolic\": false, \"shared\": false, \"unbounded\": "
          "false}, \"frozen\": 36, \"macs_unmasked\": 576"
        : "\"activation_bytes\": 128, \"nodes\": 1, \"flags\": {\"partial\": "
          "false, \"symbolic\": false, \"shared\": false, \"unbounded\": "
          "false}, \"macs_unmasked\": 576";
    const char *at = v1 ? strstr(v1, first) : NULL;
    CHECK(at && strstr(at, "\"macs\": 576, \"dmas\": "));
    CHECK(at && strstr(at, tail));
    CHECK(v1 && !strstr(v1, "\"frozen\": ") == !frozen);
    CHECK(v2 && strstr(v2, frozen
        ? "\"frozen\": {\"status\": \"complete\", \"value\": 36}"
        : "\"frozen\": {\"status\": \"complete\", \"value\": 0}"));
    if (!(at && strstr(at, tail)))
      fprintf(stderr, "%s\n", v1 ? v1 : "(no JSON)");
    free(v1);
    free(v2);
    nns_analysis_free(a);
    nns_model_free(m);
  }
}

/* A Relu whose size is unknown (unit/models/analyze_no_size.onnx) is not
 * listed as having no cost rule; the footer says the sizes were unknown and
 * gives the --input options for the symbolic inputs. */
static void test_uncounted_reason_in_footer(void) {
  nns_model *m = tm_load_path("unit/models/analyze_no_size.onnx", TM_INFER);
  nns_analysis *a = tm_analyze(m, NULL);
  if (!m)
    return;
  static sink s;
  memset(&s, 0, sizeof s);
  nns_error err;
  nns_report_options o = {.size = sizeof o};
  CHECK_EQ(nns_report(a, &o, sink_write, &s, &err), NNS_OK);
  CHECK(strstr(s.buf, "no cost rule") == NULL);
  /* The Reshape's target shape is a graph input's contents: unknown. */
  CHECK(strstr(s.buf, "Not counted (no size: the output shape of "
                      "'/view/Reshape' (Reshape) is unknown, and so are the "
                      "shapes after it): Relu x1; give the inputs their real "
                      "sizes: --input x=1xN --input s=N") != NULL);
  nns_analysis_free(a);
  nns_model_free(m);
}

/* Node index of the node called `name`, or (size_t)-1. */
static size_t node_named(const nns_model *m, const char *name) {
  for (size_t i = 0; i < nns_model_node_count(m); i++) {
    nns_node_info ni = {.size = sizeof ni};
    if (nns_model_node(m, i, &ni) == NNS_OK && !strcmp(ni.name, name))
      return i;
  }
  return (size_t)-1;
}

/* Silero VAD v5's mechanism (unit/models/analyze_no_size_if.onnx): an If
 * on Shape(x)[1] == 1 squeezes the axis or not; with that dim symbolic the
 * condition is unknown and the branches give ranks 1 and 2, so the Relu
 * after it has no shape. The footer names the If and why, never "no cost
 * rule"; the real size decides the If and the Relu counts (5 elements:
 * 5 FLOPs, by hand). */
static void test_uncounted_lost_at_if(void) {
  nns_model *m = tm_load_path("unit/models/analyze_no_size_if.onnx", TM_INFER);
  nns_analysis *a = tm_analyze(m, NULL);
  if (!m)
    return;
  CHECK_EQ(nns_analysis_uncounted_op_count(a), 1);
  size_t node = 0;
  int how = -1;
  CHECK_EQ(nns_analysis_uncounted_op_lost(a, 0, &node, &how), NNS_OK);
  CHECK_EQ(how, NNS_SIZE_LOST_IF);
  CHECK_EQ(node, node_named(m, "/dec/If"));
  CHECK_EQ(nns_analysis_uncounted_op_lost(a, 1, &node, &how), NNS_E_ARG);
  static sink s;
  memset(&s, 0, sizeof s);
  nns_error err;
  nns_report_options o = {.size = sizeof o};
  CHECK_EQ(nns_report(a, &o, sink_write, &s, &err), NNS_OK);
  CHECK(strstr(s.buf, "no cost rule") == NULL);
  CHECK(strstr(s.buf, "Not counted (no size: If '/dec/If' cannot tell "
                      "which branch runs without the inputs' real sizes, "
                      "and its branches give outputs of different ranks, so "
                      "the shapes after it are unknown): Relu x1; give the "
                      "inputs their real sizes: --input x=1xN") != NULL);
  int64_t dims[2] = {1, 5};
  nns_input_shape in = {.size = sizeof in, .name = "x", .dims = dims,
                        .rank = 2};
  nns_infer_options io = {.size = sizeof io, .inputs = &in, .input_count = 1};
  CHECK_EQ(nns_model_infer(m, &io, &err), NNS_OK);
  nns_analysis_free(a);
  CHECK_EQ(nns_model_analyze(m, NULL, &a, &err), NNS_OK);
  CHECK_EQ(nns_analysis_uncounted_op_count(a), 0);
  nns_counts k = {.size = sizeof k};
  CHECK_EQ(nns_analysis_node_counts(a, node_named(m, "/act/Relu"), &k), NNS_OK);
  CHECK_EQ(k.flops, 5);
  nns_analysis_free(a);
  nns_model_free(m);
}

int main(void) {
  RUN(test_not_called);
  RUN(test_not_called_keeps_no_shape);
  RUN(test_v1_metric_places);
  RUN(test_short_names_keep_guides);
  RUN(test_long_dims_get_short_names);
  RUN(test_long_table_widths);
  RUN(test_long_table_short_names);
  RUN(test_uncounted_reason_in_footer);
  RUN(test_uncounted_lost_at_if);
  RUN(test_shapes_report);
  RUN(test_int);
  RUN(test_clever);
  RUN(test_ratio_and_axes);
  RUN(test_writer);
  RUN(test_display_width);
  RUN(test_md_escaping);
  RUN(test_format_chars_escaped);
  RUN(test_out_int);
  RUN(test_report_errors);
  RUN(test_table_errors);
  return check_finish();
}
