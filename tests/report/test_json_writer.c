/*
 * test_json_writer.c - the one JSON writer (src/base/json_writer.h):
 * separators placed by the writer, the layout breaks, escaping and UTF-8
 * repair, nesting deeper than its fixed stack. Expected text is written
 * out by hand (whole reports are pinned by the goldens).
 * whole reports).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "nnscan.h"
#include "report/report_int.h"

typedef struct sink {
  char *buf;
  size_t len;
} sink;

static int sink_write(void *user, const char *data, size_t size) {
  sink *s = user;
  char *p = realloc(s->buf, s->len + size + 1);
  if (!p)
    return 1;
  memcpy(p + s->len, data, size);
  s->len += size;
  p[s->len] = 0;
  s->buf = p;
  return 0;
}

static nns__out out;
static nns__jw jw;
static sink got;

static nns__jw *start(void) {
  free(got.buf);
  memset(&got, 0, sizeof got);
  nns__out_init(&out, sink_write, &got);
  nns__jw_init(&jw, &out);
  return &jw;
}

static const char *finish(void) {
  CHECK_EQ(nns__jw_finish(&jw), NNS_OK);
  CHECK_EQ(nns__out_finish(&out, NULL), NNS_OK);
  return got.buf ? got.buf : "";
}

static void test_separators(void) {
  nns__jw *w = start();
  nns__jw_obj(w, NNS__JV);
  nns__jw_int(w, NNS__JK("a"), 1);
  nns__jw_arr(w, NNS__JK("b"));
  nns__jw_int(w, NNS__JV, -9223372036854775807LL - 1);
  nns__jw_bool(w, NNS__JV, true);
  nns__jw_null(w, NNS__JV);
  nns__jw_arr(w, NNS__JV);
  nns__jw_end(w, NULL);
  nns__jw_obj(w, NNS__JV);
  nns__jw_end(w, NULL);
  nns__jw_end(w, NULL);
  nns__jw_str(w, NNS__JK("c"), NULL);
  nns__jw_double(w, NNS__JK("d"), 0.5, 9, false);
  nns__jw_double(w, NNS__JK("e"), 1.0 / 0.0, 9, false);
  nns__jw_double(w, NNS__JK("f"), 2.0, 3, true);
  nns__jw_key(w, "dyn\"key");
  nns__jw_int(w, NNS__JV, 7);
  nns__jw_end(w, NULL);
  CHECK_STR(finish(), "{\"a\": 1, \"b\": [-9223372036854775808, true, "
                      "null, [], {}], \"c\": null, \"d\": 0.5, \"e\": "
                      "null, \"f\": 2.000, \"dyn\\\"key\": 7}");
}

/* A container's break goes before each item, and before its close only
 * when it holds something; a one-shot break replaces the next space. */
static void test_breaks(void) {
  nns__jw *w = start();
  nns__jw_obj_brk(w, NNS__JV, "\n  ");
  nns__jw_arr_brk(w, NNS__JK("rows"), "\n    ");
  nns__jw_int(w, NNS__JV, 1);
  nns__jw_int(w, NNS__JV, 2);
  nns__jw_end(w, "\n  ");
  nns__jw_arr_brk(w, NNS__JK("none"), "\n    ");
  nns__jw_end(w, "\n  ");
  nns__jw_arr(w, NNS__JK("pts"));
  nns__jw_int(w, NNS__JV, 1);
  nns__jw_break(w, "\n   ");
  nns__jw_int(w, NNS__JV, 2);
  nns__jw_int(w, NNS__JV, 3);
  nns__jw_end(w, NULL);
  nns__jw_end(w, "\n");
  CHECK_STR(finish(), "{\n  \"rows\": [\n    1,\n    2\n  ],\n  \"none\": "
                      "[],\n  \"pts\": [1,\n   2, 3]\n}");
}

/* Quotes, backslashes and controls escaped; C1 controls (U+0085) and DEL
 * too; a byte that is not UTF-8 (0xff, a lone continuation, an overlong
 * 0xc0 0xaf, a surrogate 0xed 0xa0 0x80) becomes U+FFFD; valid multi-byte
 * text passes unchanged. */
static void test_escapes(void) {
  nns__jw *w = start();
  nns__jw_str(w, NNS__JV, "q\"\\\n\r\t\x01\x7f\xc2\x85|\xff|\x80|\xc0\xaf|"
                          "\xed\xa0\x80|é€😀");
  CHECK_STR(finish(), "\"q\\\"\\\\\\n\\r\\t\\u0001\\u007f\\u0085|\\ufffd|"
                      "\\ufffd|\\ufffd\\ufffd|\\ufffd\\ufffd\\ufffd|é€😀\"");
  /* A slice cut inside a sequence: the cut sequence is not UTF-8. */
  w = start();
  nns__jw_strn(w, NNS__JV, "ab\xe2\x82\xac", 4);
  CHECK_STR(finish(), "\"ab\\ufffd\\ufffd\"");
  /* An embedded NUL in a slice is escaped, not an end. */
  w = start();
  nns__jw_strn(w, NNS__JV, "a\0b", 3);
  CHECK_STR(finish(), "\"a\\u0000b\"");
}

/* 10,000 nested arrays: past the fixed stack, onto the heap, all closed. */
static void test_deep(void) {
  enum { N = 10000 };
  nns__jw *w = start();
  for (int i = 0; i < N; i++)
    nns__jw_arr(w, NNS__JV);
  CHECK_EQ(nns__jw_depth(w), N);
  nns__jw_int(w, NNS__JV, 1);
  for (int i = 0; i < N; i++)
    nns__jw_end(w, NULL);
  nns__jw_end(w, NULL); /* one too many: ignored */
  const char *s = finish();
  CHECK_EQ(strlen(s), 2 * N + 1);
  CHECK(s[0] == '[' && s[N - 1] == '[' && s[N] == '1' && s[N + 1] == ']' &&
        s[2 * N] == ']');
}

/* The operator table's JSON through the public call: its count, and a
 * callback that stops. */
static int stop_write(void *user, const char *data, size_t size) {
  (void)user, (void)data, (void)size;
  return 1;
}

static void test_op_table(void) {
  sink s = {0};
  CHECK_EQ(nns_op_table_json(sink_write, &s, NULL), NNS_OK);
  size_t rows = 0;
  for (const char *p = s.buf; (p = strstr(p, "\"op_type\": ")); p++)
    rows++;
  CHECK_EQ(rows, nns_op_count());
  CHECK(s.buf[0] == '[' && s.buf[s.len - 2] == ']');
  free(s.buf);
  nns_error e;
  CHECK_EQ(nns_op_table_json(stop_write, NULL, &e), NNS_E_IO);
  CHECK_EQ(nns_op_table_json(NULL, NULL, &e), NNS_E_ARG);
}

int main(void) {
  RUN(test_separators);
  RUN(test_breaks);
  RUN(test_escapes);
  RUN(test_deep);
  RUN(test_op_table);
  free(got.buf);
  return check_finish();
}
