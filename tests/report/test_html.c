/*
 * test_html.c - the HTML report's C side, without a browser (the browser
 * checks are tests/html/test_html.py):
 *
 *  - the SVG scatter's labels: a crowded case (three exports of
 *    mobilenet_v2 on the very same point, efficientnet_b0 next to them,
 *    all at 3-5 M parameters, and ten more models piled on them) must give
 *    every model its label, no two label boxes intersecting and no label
 *    over a point, all inside the plot;
 *  - the page embeds its JSON so that names holding </script> and <!--
 *    cannot end the data block;
 *  - nns__html_page() wraps a document of any kind (the inspector's too);
 *  - gzip.c's output, inflated by the system's gzip (an independent
 *    decoder), gives back the input: empty, one byte, long runs, random
 *    bytes, and JSON-like text with matches at every distance.
 *
 * Label boxes are worked out from what the SVG says (x, y, the label's
 * length, a 12 px monospace font whose advance is 0.6 em), not from the
 * placement code's own arrays.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "nnscan.h"
#include "report/report_int.h"
#include "testmodel.h"

static int buf_write(void *user, const char *data, size_t size) {
  return nns__membuf_write(user, data, size);
}

/* ==== Labels ==== */

typedef struct rect {
  double x0, y0, x1, y1;
} rect;

static bool overlap(rect a, rect b) {
  return a.x0 < b.x1 && b.x0 < a.x1 && a.y0 < b.y1 && b.y0 < a.y1;
}

/* Reads attribute `name`="number" of the element starting at p. */
static double attr(const char *p, const char *name) {
  char key[32];
  snprintf(key, sizeof key, " %s=\"", name);
  const char *end = strchr(p, '>');
  const char *a = strstr(p, key);
  if (!a || (end && a > end))
    return -1e9;
  return atof(a + strlen(key));
}

static void test_plot_crowded(void) {
  static const char *files[] = {
      "fixtures/models/mobilenet_v2_op11_fold.onnx",
      "fixtures/models/mobilenet_v2_op13_fold.onnx",
      "fixtures/models/mobilenet_v2_op17_fold.onnx",
      "fixtures/models/efficientnet_b0_op17_fold.onnx"};
  enum { NF = 4, NX = 10, N = NF + NX };
  nns_counts counts[N];
  char names[N][64];
  memset(counts, 0, sizeof counts);
  nns_table *table = NULL;
  nns_error err;
  CHECK_EQ(nns_table_new(&table, &err), NNS_OK);
  for (int i = 0; i < NF; i++) {
    char path[512];
    snprintf(path, sizeof path, "%s/%s", check_dir(), files[i]);
    nns_model *m = tm_load_path(path, TM_INFER);
    nns_analysis *a = tm_analyze(m, NULL);
    if (!m) {
      nns_table_free(table);
      return;
    }
    const char *base = strrchr(files[i], '/') + 1;
    snprintf(names[i], sizeof names[i], "%.*s", (int)(strlen(base) - 5), base);
    counts[i].size = sizeof counts[i];
    nns_analysis_total_counts(a, &counts[i]);
    CHECK_EQ(nns_table_add(table, names[i], a, &err), NNS_OK);
    nns_analysis_free(a);
    nns_model_free(m);
    /* 3-5 M parameters, as the crowded case. */
    CHECK(counts[i].params > 3000000 && counts[i].params < 6000000);
  }
  /* Ten more within a few percent of mobilenet_v2. */
  for (int i = 0; i < NX; i++) {
    snprintf(names[NF + i], sizeof names[0], "variant_%d", i);
    counts[NF + i] = counts[0];
    counts[NF + i].params = counts[0].params + (int64_t)i * 40000;
    counts[NF + i].macs = counts[0].macs + (int64_t)i * 3000000;
    CHECK_EQ(nns_table_add_row(table, names[NF + i], &counts[NF + i], NULL,
                               &err), NNS_OK);
  }
  nns__membuf svg = {0};
  CHECK_EQ(nns_report_plot(table, buf_write, &svg, &err), NNS_OK);
  if (!svg.data) {
    nns_table_free(table);
    return;
  }
  rect label[N], dot[N];
  bool has_label[N] = {false}, has_dot[N] = {false};
  int leaders = 0;
  for (const char *p = svg.data; (p = strchr(p, '<')) != NULL; p++) {
    if (!strncmp(p, "<line class=\"leader\"", 20))
      leaders++;
    bool is_text = !strncmp(p, "<text data-i=", 13);
    bool is_dot = !strncmp(p, "<circle data-i=", 15);
    if (!is_text && !is_dot)
      continue;
    int i = (int)attr(p, "data-i");
    if (i < 0 || i >= N) {
      CHECK(!"data-i out of range");
      continue;
    }
    if (is_dot) {
      double cx = attr(p, "cx"), cy = attr(p, "cy"), r = attr(p, "r");
      dot[i] = (rect){cx - r, cy - r, cx + r, cy + r};
      has_dot[i] = true;
      continue;
    }
    /* The label's text runs to "</text>"; its box spans the font's
     * ascent above the baseline and 3.5 px below it. */
    const char *t0 = strchr(p, '>') + 1, *t1 = strstr(t0, "</text>");
    double x = attr(p, "x"), y = attr(p, "y");
    CHECK(strstr(p, "font-family=\"monospace\"") < t0);
    CHECK(attr(p, "font-size") == 12);
    CHECK((size_t)(t1 - t0) == strlen(names[i]));
    CHECK(!strncmp(t0, names[i], strlen(names[i])));
    label[i] = (rect){x, y - 12, x + 0.6 * 12 * (double)(t1 - t0), y + 3.5};
    has_label[i] = true;
  }
  for (int i = 0; i < N; i++) {
    CHECK(has_dot[i]);
    CHECK(has_label[i]);
  }
  /* Three identical points cannot all sit beside their point. */
  CHECK(leaders >= 2);
  for (int i = 0; i < N; i++) {
    if (!has_label[i])
      continue;
    /* Inside the plot frame (90..720 x 40..450, see table.c). */
    CHECK(label[i].x0 >= 90 && label[i].x1 <= 720 && label[i].y0 >= 40 &&
          label[i].y1 <= 450);
    for (int j = 0; j < N; j++) {
      if (j != i && has_label[j] && overlap(label[i], label[j])) {
        fprintf(stderr, "labels %s and %s overlap\n", names[i],
                names[j]);
        CHECK(!"two labels overlap");
      }
      if (has_dot[j] && overlap(label[i], dot[j])) {
        fprintf(stderr, "label %s covers point %s\n", names[i],
                names[j]);
        CHECK(!"a label covers a point");
      }
    }
  }
  /* Deterministic: the same rows draw the same picture. */
  nns__membuf again = {0};
  CHECK_EQ(nns_report_plot(table, buf_write, &again, &err), NNS_OK);
  CHECK(again.data && !strcmp(again.data, svg.data));
  free(again.data);
  free(svg.data);
  nns_table_free(table);
}

/* ==== The page ==== */

/* Occurrences of s in text. */
static int count(const char *text, const char *s) {
  int n = 0;
  for (const char *p = text; (p = strstr(p, s)) != NULL; p += strlen(s))
    n++;
  return n;
}

static void test_page_escapes(void) {
  char path[512];
  snprintf(path, sizeof path, "%s/report/tiny_resnet.onnx", check_dir());
  nns_model *m = tm_load_path(path, TM_INFER);
  nns_analysis *a = tm_analyze(m, NULL);
  if (!m)
    return;
  nns_report_options o = {.size = sizeof o, .format = NNS_FORMAT_HTML,
                          .model_name = "evil</script><!--<script>x"};
  nns__membuf page = {0};
  nns_error err;
  CHECK_EQ(nns_report(a, &o, buf_write, &page, &err), NNS_OK);
  nns_analysis_free(a);
  nns_model_free(m);
  if (!page.data)
    return;
  /* The data block, the column block and the viewer end with the only
   * three </script>s; the name is in the JSON with its '<' escaped, and in
   * the <title> as HTML text. */
  CHECK_EQ(count(page.data, "</script>"), 3);
  CHECK_EQ(count(page.data, "<!--"), 0);
  CHECK(strstr(page.data, "evil\\u003c/script>\\u003c!--\\u003cscript>x") !=
        NULL);
  CHECK(strstr(page.data, "<title>evil&lt;/script&gt;&lt;!--") != NULL);
  CHECK(strstr(page.data, "data-kind=\"nnscan.summary\" "
                          "data-encoding=\"json\"") != NULL);
  /* Offline by construction: no URL the browser would fetch. */
  CHECK_EQ(count(page.data, "src=\""), 0);
  CHECK_EQ(count(page.data, "href=\""), 0);
  CHECK_EQ(count(page.data, "@import"), 0);
  free(page.data);
}

static void test_page_any_kind(void) {
  static const char doc[] = "{\"schema\": \"nnscan.inspect\", \"x\": \"<b>\"}";
  nns__membuf page = {0};
  nns__out *o = malloc(sizeof *o);
  if (!o)
    return;
  nns__out_init(o, buf_write, &page);
  nns__html_doc d = {.kind = "nnscan.inspect", .title = "a & b",
                     .json = doc, .json_len = strlen(doc)};
  CHECK_EQ(nns__html_page(o, &d), NNS_OK);
  CHECK_EQ(nns__out_finish(o, NULL), NNS_OK);
  free(o);
  CHECK(page.data && strstr(page.data, "data-kind=\"nnscan.inspect\""));
  CHECK(page.data && strstr(page.data, "\"x\": \"\\u003cb>\"}"));
  CHECK(page.data && strstr(page.data, "<title>a &amp; b</title>"));
  free(page.data);
}

/* ==== gzip ==== */

/* Compresses in[0..n), inflates it with `gzip -dc` and compares. */
static void roundtrip(const unsigned char *in, size_t n) {
  unsigned char *z = NULL;
  size_t zn = 0;
  CHECK_EQ(nns__gzip(in, n, &z, &zn), NNS_OK);
  char path[] = "/tmp/nnscan-gzip-XXXXXX";
  int fd = mkstemp(path);
  CHECK(fd >= 0);
  if (fd < 0) {
    free(z);
    return;
  }
  FILE *f = fdopen(fd, "wb");
  CHECK(f && fwrite(z, 1, zn, f) == zn);
  if (f)
    fclose(f);
  free(z);
  char cmd[128];
  snprintf(cmd, sizeof cmd, "gzip -dc < %s", path);
  FILE *p = popen(cmd, "r");
  CHECK(p != NULL);
  if (!p) {
    remove(path);
    return;
  }
  unsigned char *out = malloc(n + 1);
  size_t got = 0, r;
  while (out && (r = fread(out + got, 1, n + 1 - got, p)) > 0 && got <= n)
    got += r;
  CHECK_EQ(pclose(p), 0); /* gzip checks the CRC and the length */
  CHECK_EQ(got, n);
  CHECK(out && (n == 0 || memcmp(out, in, n) == 0));
  free(out);
  remove(path);
}

static void test_gzip(void) {
  enum { N = 1 << 20 };
  unsigned char *b = calloc(N, 1);
  if (!b)
    return;
  roundtrip(b, 0);
  b[0] = 'a';
  roundtrip(b, 1);
  memset(b, 'x', 300000); /* matches of 258 at distance 1 */
  roundtrip(b, 300000);
  uint32_t seed = 12345; /* random bytes: literals, 9-bit codes */
  for (size_t i = 0; i < N; i++) {
    seed = seed * 1103515245u + 12345u;
    b[i] = (unsigned char)(seed >> 16);
  }
  roundtrip(b, 200000);
  /* JSON-like: keys repeated at every distance up to the window, numbers
   * changing. */
  size_t len = 0;
  for (int i = 0; len + 200 < N; i++)
    len += (size_t)snprintf((char *)b + len, N - len,
                            "{\"index\": %d, \"macs\": %d, \"path\": "
                            "\"layers.%d.mlp\"},\n",
                            i, i * 7919 % 100003, i / 3);
  roundtrip(b, len);
  free(b);
}

int main(void) {
  RUN(test_gzip);
  RUN(test_plot_crowded);
  RUN(test_page_escapes);
  RUN(test_page_any_kind);
  return check_finish();
}
