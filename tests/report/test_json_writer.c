/*
 * test_json_writer.c - the one JSON writer (src/base/json_writer.h):
 * separators placed by the writer, the layout breaks, escaping and UTF-8
 * repair, nesting deeper than its fixed stack; and the JSON reader
 * (src/base/json_reader.h): what the writer wrote reads back, and bad
 * text fails with NNS_E_JSON at the right byte. Expected text is written
 * out by hand (whole reports are pinned by the goldens).
 * whole reports).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "nnscan.h"
#include "base/json_reader.h"
#include "report/report_int.h"


static nns__out out;
static nns__jw jw;
static check_sink got;

static nns__jw *start(void) {
  free(got.buf);
  memset(&got, 0, sizeof got);
  nns__out_init(&out, check_sink_write, &got);
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
  check_sink s = {0};
  CHECK_EQ(nns_op_table_json(check_sink_write, &s, NULL), NNS_OK);
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

/* The writer's escapes read back to the bytes written (U+FFFD where the
 * input was not UTF-8); integers exact to the int64 limits. */
static void test_read_back(void) {
  nns__jw *w = start();
  nns__jw_obj(w, NNS__JV);
  nns__jw_str(w, NNS__JK("s"), "q\"\\\n\x01é😀");
  nns__jw_int(w, NNS__JK("max"), INT64_MAX);
  nns__jw_int(w, NNS__JK("min"), INT64_MIN);
  nns__jw_double(w, NNS__JK("d"), -2.5e-3, 9, false);
  nns__jw_arr(w, NNS__JK("a"));
  nns__jw_bool(w, NNS__JV, false);
  nns__jw_null(w, NNS__JV);
  nns__jw_obj(w, NNS__JV);
  nns__jw_end(w, NULL);
  nns__jw_end(w, NULL);
  nns__jw_end(w, NULL);
  const char *text = finish();
  nns__arena a;
  nns__arena_init(&a);
  nns__jval *v = NULL;
  CHECK_EQ(nns__json_parse(&a, text, strlen(text), &v, NULL), NNS_OK);
  CHECK_STR(nns__json_str_or(nns__json_get(v, "s"), ""), "q\"\\\n\x01é😀");
  CHECK_EQ(nns__json_int_or(nns__json_get(v, "max"), 0), INT64_MAX);
  CHECK_EQ(nns__json_int_or(nns__json_get(v, "min"), 0), INT64_MIN);
  CHECK(nns__json_get(v, "d")->d == -2.5e-3 && !nns__json_get(v, "d")->is_int);
  const nns__jval *arr = nns__json_get(v, "a");
  CHECK(arr && arr->type == NNS__J_ARR && arr->len == 3);
  CHECK(arr->items[0]->type == NNS__J_BOOL && !arr->items[0]->b);
  CHECK(arr->items[1]->type == NNS__J_NULL);
  CHECK(arr->items[2]->type == NNS__J_OBJ && arr->items[2]->len == 0);
  CHECK(nns__json_get(v, "missing") == NULL);
  /* \u escapes, a surrogate pair, a lone surrogate (U+FFFD). */
  const char *esc = "[\"\\u00e9\\ud83d\\ude00\\ud800x\\/\"]";
  CHECK_EQ(nns__json_parse(&a, esc, strlen(esc), &v, NULL), NNS_OK);
  CHECK_STR(v->items[0]->s, "é😀\xef\xbf\xbdx/");
  nns__arena_free(&a);
}

/* Each error at its byte: (text, offset). */
static void test_read_errors(void) {
  static const struct {
    const char *text;
    int64_t offset;
  } bad[] = {{"", 0},          {"[1,]", 3},      {"{\"a\" 1}", 5},
             {"[1 2]", 3},     {"{\"a\":1,}", 7}, {"\"abc", 0},
             {"01", 1},        {"[1] x", 4},     {"[-]", 1},
             {"\"\\q\"", 1}, {"\"\x01\"", 1},  {"tru", 0},
             {"{1:2}", 1},     {"[", 1}};
  nns__arena a;
  nns__arena_init(&a);
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    nns__jval *v = NULL;
    nns_error e;
    CHECK_EQ(nns__json_parse(&a, bad[i].text, strlen(bad[i].text), &v, &e),
             NNS_E_JSON);
    if (e.offset != bad[i].offset)
      printf("  %s: offset %lld, expected %lld (%s)\n", bad[i].text,
             (long long)e.offset, (long long)bad[i].offset, e.message);
    CHECK_EQ(e.offset, bad[i].offset);
  }
  nns__arena_free(&a);
}

/* Nesting: 256 levels read; the 257th bracket is refused at its byte, and
 * 2 MiB of '[' fails there at once instead of growing a 2-MiB-deep stack. */
static void test_read_deep(void) {
  enum { N = NNS__JSON_MAX_DEPTH, BIG = 2 << 20 };
  char *text = malloc(BIG);
  CHECK(text != NULL);
  for (size_t i = 0; i < N; i++) {
    text[i] = '[';
    text[2 * N - 1 - i] = ']';
  }
  nns__arena a;
  nns__arena_init(&a);
  nns__jval *v = NULL;
  CHECK_EQ(nns__json_parse(&a, text, 2 * N, &v, NULL), NNS_OK);
  size_t depth = 1;
  while (v->len) {
    v = v->items[0];
    depth++;
  }
  CHECK_EQ(depth, N);
  memset(text, '[', BIG);
  nns_error e;
  CHECK_EQ(nns__json_parse(&a, text, BIG, &v, &e), NNS_E_JSON);
  CHECK_EQ(e.offset, N);
  CHECK_STR(e.message, "nesting deeper than 256 levels at byte 256");
  /* Objects count the same as arrays. */
  for (size_t i = 0; i <= N; i++)
    memcpy(text + 6 * i, "{\"k\": ", 6);
  CHECK_EQ(nns__json_parse(&a, text, 6 * (N + 1), &v, &e), NNS_E_JSON);
  CHECK_EQ(e.offset, 6 * N);
  nns__arena_free(&a);
  free(text);
}

/* A key twice in one object is refused at the second key's quote, with
 * the key named; the same key in different objects is fine, and a large
 * object (the hash set, not the scan) finds its duplicate just the same. */
static void test_read_duplicates(void) {
  nns__arena a;
  nns__arena_init(&a);
  nns__jval *v = NULL;
  nns_error e;
  const char *dup = "{\"macs\": 1, \"macs\": 2}";
  CHECK_EQ(nns__json_parse(&a, dup, strlen(dup), &v, &e), NNS_E_JSON);
  CHECK_EQ(e.offset, 12);
  CHECK_STR(e.message, "duplicate key \"macs\" at byte 12");
  const char *ok = "{\"a\": {\"a\": 1}, \"b\": [{\"a\": 2}, {\"a\": 3}]}";
  CHECK_EQ(nns__json_parse(&a, ok, strlen(ok), &v, NULL), NNS_OK);
  /* Keys that differ only after a NUL are different keys. */
  const char *nul = "{\"a\\u0000b\": 1, \"a\\u0000c\": 2, \"a\": 3}";
  CHECK_EQ(nns__json_parse(&a, nul, strlen(nul), &v, NULL), NNS_OK);
  const char *nul2 = "{\"a\\u0000b\": 1, \"a\\u0000b\": 2}";
  CHECK_EQ(nns__json_parse(&a, nul2, strlen(nul2), &v, &e), NNS_E_JSON);
  CHECK_EQ(e.offset, 16);
  /* 100,000 distinct keys, then the 500th again. */
  enum { K = 100000 };
  char *big = malloc((size_t)K * 16 + 64);
  CHECK(big != NULL);
  size_t n = 0;
  big[n++] = '{';
  for (int i = 0; i < K; i++)
    n += (size_t)sprintf(big + n, "%s\"k%d\":0", i ? "," : "", i);
  big[n] = '}';
  CHECK_EQ(nns__json_parse(&a, big, n + 1, &v, NULL), NNS_OK);
  CHECK_EQ(v->len, K);
  size_t at = n + 1;
  n += (size_t)sprintf(big + n, ",\"k500\":1}");
  CHECK_EQ(nns__json_parse(&a, big, n, &v, &e), NNS_E_JSON);
  CHECK_EQ(e.offset, (int64_t)at);
  free(big);
  nns__arena_free(&a);
}

/* The public check (nns_json_check) is the same reader: its rules, its
 * offsets. */
static void test_public_check(void) {
  nns_error e;
  const char *ok = "{\"a\": [1, 2.5, \"x\"]}";
  CHECK_EQ(nns_json_check(ok, strlen(ok), &e), NNS_OK);
  CHECK_EQ(nns_json_check("{\"a\": 1, \"a\": 2}", 16, &e), NNS_E_JSON);
  CHECK_EQ(e.offset, 9);
  CHECK(strstr(e.message, "duplicate key \"a\"") != NULL);
  char deep[300];
  memset(deep, '[', sizeof deep);
  CHECK_EQ(nns_json_check(deep, sizeof deep, &e), NNS_E_JSON);
  CHECK_EQ(e.offset, 256);
  CHECK_STR(e.message, "nesting deeper than 256 levels at byte 256");
  CHECK_EQ(nns_json_check("[1,]", 4, &e), NNS_E_JSON);
  CHECK_EQ(e.offset, 3);
  /* containers closed before any item was read (no item stack yet; the
   * sanitizer build checks the pointer arithmetic) */
  CHECK_EQ(nns_json_check("[]", 2, &e), NNS_OK);
  CHECK_EQ(nns_json_check("{\"a\": {}}", 9, &e), NNS_OK);
  CHECK_EQ(nns_json_check("[]1", 3, &e), NNS_E_JSON);
  CHECK_EQ(e.offset, 2);
  CHECK_EQ(nns_json_check("", 0, &e), NNS_E_JSON);
  CHECK_EQ(nns_json_check(NULL, 0, NULL), NNS_E_JSON);
  CHECK_EQ(nns_json_check(NULL, 3, &e), NNS_E_ARG);
}

/* Members read without being kept (the .pt2 reader's stack traces): a
 * skipped string reads as null, with the same errors at the same bytes as
 * a kept one; only a member under the named parent is skipped, a value
 * of another type is kept, and long strings with and without escapes
 * read the same through the fast scan. */
static void test_read_skip(void) {
  static const nns__json_skip skip[] = {{"metadata", "stack_trace"},
                                        {NULL, "junk"}};
  nns__arena a;
  nns__arena_init(&a);
  nns__jval *v = NULL;
  nns_error e;
  const char *doc =
      "{\"metadata\": {\"stack_trace\": \"File \\\"x.py\\\", line 1\\n  y\","
      " \"nn_module_stack\": \"a,b,c\"},"
      " \"other\": {\"stack_trace\": \"kept\", \"junk\": [1, 2]},"
      " \"junk\": \"gone\"}";
  CHECK_EQ(nns__json_parse_skip(&a, doc, strlen(doc), skip, 2, &v, NULL),
           NNS_OK);
  const nns__jval *md = nns__json_get(v, "metadata");
  CHECK(nns__json_get(md, "stack_trace") != NULL);
  CHECK_EQ(nns__json_get(md, "stack_trace")->type, NNS__J_NULL);
  CHECK_STR(nns__json_str_or(nns__json_get(md, "nn_module_stack"), ""),
            "a,b,c");
  const nns__jval *other = nns__json_get(v, "other");
  CHECK_STR(nns__json_str_or(nns__json_get(other, "stack_trace"), ""),
            "kept");
  CHECK_EQ(nns__json_get(other, "junk")->type, NNS__J_ARR);
  CHECK_EQ(nns__json_get(v, "junk")->type, NNS__J_NULL);
  /* errors inside a skipped string: as a kept one's */
  static const char *const bad[] = {
      "{\"junk\": \"ab\001\"}", "{\"junk\": \"ab\\q\"}",
      "{\"junk\": \"ab\\u12\"}", "{\"junk\": \"abc",
      "{\"junk\": \"a\\\"}", "{\"junk\": \"x\", \"junk\": \"y\"}"};
  for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
    nns_error kept;
    CHECK_EQ(nns__json_parse(&a, bad[i], strlen(bad[i]), &v, &kept),
             NNS_E_JSON);
    CHECK_EQ(nns__json_parse_skip(&a, bad[i], strlen(bad[i]), skip, 2, &v,
                                  &e),
             NNS_E_JSON);
    CHECK_EQ(e.offset, kept.offset);
    CHECK_STR(e.message, kept.message);
  }
  /* strings past the 8-byte scan's width, quotes and escapes at every
   * position of a word */
  char text[256], want[64];
  for (int at = 0; at < 20; at++) {
    int n = snprintf(text, sizeof text, "[\"%.*s\\n%.*s\", \"%.*s\u00e9\"]",
                     at, "abcdefghijklmnopqrstuvwxyz", 19 - at,
                     "ABCDEFGHIJKLMNOPQRSTUVWXYZ", at,
                     "0123456789012345678901234");
    CHECK_EQ(nns__json_parse(&a, text, (size_t)n, &v, NULL), NNS_OK);
    snprintf(want, sizeof want, "%.*s\n%.*s", at, "abcdefghijklmnopqrstuvwxyz",
             19 - at, "ABCDEFGHIJKLMNOPQRSTUVWXYZ");
    CHECK_STR(v->items[0]->s, want);
    snprintf(want, sizeof want, "%.*s\u00e9", at, "0123456789012345678901234");
    CHECK_STR(v->items[1]->s, want);
  }
  nns__arena_free(&a);
}

/* A value is 32 bytes (the tree of a 2.4 MB model.json holds about 100,000
 * of them), its types' fields sharing storage; each still reads back by
 * its own. A document past NNS__JSON_MAX_BYTES is refused before a byte
 * of it is read or copied. */
static void test_read_compact(void) {
  CHECK_EQ(sizeof(nns__jval), 32);
  nns__arena a;
  nns__arena_init(&a);
  nns__jval *v = NULL;
  const char *doc = "{\"n\": -7, \"x\": 0.5, \"s\": \"abc\", \"t\": true, "
                    "\"a\": [1, \"z\"], \"o\": {\"k\": null}}";
  CHECK_EQ(nns__json_parse(&a, doc, strlen(doc), &v, NULL), NNS_OK);
  const nns__jval *n = nns__json_get(v, "n"), *x = nns__json_get(v, "x");
  CHECK(n->type == NNS__J_NUM && n->is_int && n->i == -7 && n->d == -7.0);
  CHECK(x->type == NNS__J_NUM && !x->is_int && x->d == 0.5);
  const nns__jval *s = nns__json_get(v, "s");
  CHECK(s->type == NNS__J_STR && s->len == 3 && !strcmp(s->s, "abc"));
  CHECK(nns__json_get(v, "t")->b);
  const nns__jval *arr = nns__json_get(v, "a");
  CHECK(arr->type == NNS__J_ARR && arr->len == 2 &&
        arr->items[0]->i == 1 && !strcmp(arr->items[1]->s, "z"));
  const nns__jval *o = nns__json_get(v, "o");
  CHECK(o->type == NNS__J_OBJ && o->len == 1 && !strcmp(o->keys[0], "k") &&
        o->items[0]->type == NNS__J_NULL);
  /* typed reads of the wrong type fall back, whatever the union holds */
  CHECK_STR(nns__json_str_or(arr, "fallback"), "fallback");
  CHECK_EQ(nns__json_int_or(s, 42), 42);
  CHECK(nns__json_get(s, "abc") == NULL);
  nns_error e;
  CHECK_EQ(nns__json_parse(&a, doc, NNS__JSON_MAX_BYTES + 1, &v, &e),
           NNS_E_LIMIT);
  CHECK(strstr(e.message, "over the limit") != NULL);
  nns__arena_free(&a);
}

int main(void) {
  RUN(test_read_compact);
  RUN(test_public_check);
  RUN(test_read_skip);
  RUN(test_read_back);
  RUN(test_read_errors);
  RUN(test_read_deep);
  RUN(test_read_duplicates);
  RUN(test_separators);
  RUN(test_breaks);
  RUN(test_escapes);
  RUN(test_deep);
  RUN(test_op_table);
  free(got.buf);
  return check_finish();
}
