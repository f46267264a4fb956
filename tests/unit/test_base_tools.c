/*
 * test_base_tools.c - the small shared tools of src/base: the typed vector
 * (vec.h), the interner, the pointer map's add, the pair map and the key
 * set (map.c), the arena's unaligned text and its zeroed memory (arena.c),
 * and the metadata text readers (text_read.c), against values written out
 * by hand here.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/vec.h"
#include "check.h"

static void test_vec_grows_and_keeps(void) {
  NNS__VEC(int64_t) v = {0};
  for (int64_t i = 0; i < 1000; i++)
    CHECK(nns__vec_push(&v, i * 3));
  CHECK_EQ(v.n, 1000);
  CHECK(v.cap >= 1000);
  int64_t sum = 0;
  for (size_t i = 0; i < v.n; i++)
    sum += v.v[i];
  CHECK_EQ(sum, 3 * 999 * 1000 / 2);
  CHECK(nns__vec_reserve(&v, 5000));
  CHECK(v.cap >= 5000);
  CHECK_EQ(v.v[999], 2997);
  nns__vec_free(&v);
  CHECK(v.v == NULL);
  CHECK_EQ(v.n, 0);
  CHECK_EQ(v.cap, 0);
  /* A reservation whose byte size overflows fails and leaves it alone. */
  CHECK(!nns__vec_reserve(&v, SIZE_MAX / 4));
  CHECK(v.v == NULL);
}

static void test_map2_pairs(void) {
  nns__map2 m = {0};
  uint32_t val = 0;
  CHECK(!nns__map2_get(&m, 1, 2, &val));
  /* (a, b) and (b, a) are different keys; a second add keeps the first. */
  CHECK_EQ(nns__map2_add(&m, 1, 2, 10), 1);
  CHECK_EQ(nns__map2_add(&m, 2, 1, 20), 1);
  CHECK_EQ(nns__map2_add(&m, 1, 2, 30), 0);
  CHECK(nns__map2_get(&m, 1, 2, &val));
  CHECK_EQ(val, 10);
  CHECK(nns__map2_get(&m, 2, 1, &val));
  CHECK_EQ(val, 20);
  /* Through several growths. */
  for (uint32_t i = 0; i < 5000; i++)
    CHECK_EQ(nns__map2_add(&m, 100 + i % 7, i, i * 2), 1);
  CHECK_EQ(m.count, 5002);
  for (uint32_t i = 0; i < 5000; i++) {
    CHECK(nns__map2_get(&m, 100 + i % 7, i, &val));
    CHECK_EQ(val, i * 2);
    CHECK(!nns__map2_get(&m, 101 + i % 7, i, &val));
  }
  nns__map2_free(&m);
  CHECK(!nns__map2_get(&m, 1, 2, &val));
}

static void test_set64(void) {
  nns__set64 s = {0};
  CHECK(nns__set64_reserve(&s, 100));
  CHECK(s.cap >= 202);
  /* 0 is a key like any other; a second add says it is there. */
  CHECK_EQ(nns__set64_add(&s, 0), 1);
  CHECK_EQ(nns__set64_add(&s, 0), 0);
  for (uint64_t i = 1; i <= 3000; i++)
    CHECK_EQ(nns__set64_add(&s, i << 32 | (i % 5)), 1);
  CHECK_EQ(s.count, 3001);
  for (uint64_t i = 1; i <= 3000; i++) {
    CHECK_EQ(nns__set64_add(&s, i << 32 | (i % 5)), 0);
    CHECK_EQ(nns__set64_add(&s, i << 32 | (i % 5 + 5)), 1);
  }
  CHECK_EQ(s.count, 6001);
  CHECK(s.count * 2 <= s.cap);
  nns__set64_free(&s);
  CHECK_EQ(s.cap, 0);
}

static nns__arena arena;
static nns__interner in;

static const char *get(const nns__map *m, const char *key) {
  return nns__map_get(m, nns__intern_cstr(&in, key));
}

static void test_json_strings(void) {
  nns__map m = {0};
  CHECK_EQ(nns__read_json_strings(
               " { \"layer1.0\" : \"BasicBlock\",\n\"\": \"ResNet\", "
               "\"a\\\"b\": \"x\\u00e9\\n\\/\" } ",
               &in, &m),
           1);
  CHECK_EQ(m.count, 3);
  CHECK_STR(get(&m, "layer1.0"), "BasicBlock");
  CHECK_STR(get(&m, ""), "ResNet");
  CHECK_STR(get(&m, "a\"b"), "x\xc3\xa9\n/"); /* U+00E9 in UTF-8 */
  nns__map_free(&m);
  CHECK_EQ(nns__read_json_strings("{}", &in, &m), 1);
  CHECK_EQ(m.count, 0);
  /* A repeated key is refused (one JSON reader, one rule: RFC 8259 leaves
   * its meaning open, so no reader picks a value). */
  CHECK_EQ(nns__read_json_strings("{\"k\":\"1\",\"k\":\"2\"}", &in, &m), 0);
  nns__map_free(&m);
  /* Not objects of strings. */
  static const char *bad[] = {"",           "{",          "[]",
                              "{\"a\":1}",  "{\"a\":\"b\"", "{\"a\" \"b\"}",
                              "{\"a\":\"b\",}", "{\"a\\u12g4\":\"b\"}",
                              "{\"a\":\"b\\"};
  for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
    CHECK_EQ(nns__read_json_strings(bad[i], &in, &m), 0);
    nns__map_free(&m);
  }
}

static void test_py_strings(void) {
  const char *out[4];
  CHECK_EQ(nns__read_py_strings("['', 'layer1', \"layer1.0\", 'it\\'s']",
                                &in, out, 4),
           4);
  CHECK_STR(out[0], "");
  CHECK_STR(out[1], "layer1");
  CHECK_STR(out[2], "layer1.0");
  CHECK_STR(out[3], "it's");
  /* Interned: the same string is the same pointer. */
  CHECK(out[1] == nns__intern_cstr(&in, "layer1"));
  CHECK_EQ(nns__read_py_strings(" []", &in, out, 4), 0);
  /* Only the first `max` entries are stored. */
  CHECK_EQ(nns__read_py_strings("['a', 'b', 'c']", &in, out, 2), 2);
  CHECK_STR(out[1], "b");
  static const char *bad[] = {"", "'a'", "[a]", "['a'", "['a', 3]"};
  for (size_t i = 0; i < sizeof bad / sizeof *bad; i++)
    CHECK_EQ(nns__read_py_strings(bad[i], &in, out, 4), -1);
}

/* Equal bytes give one pointer, through table growth; a string is told
 * apart from its prefixes and from strings that differ after a NUL. */
static void test_interning(void) {
  nns__arena a;
  nns__interner t;
  nns__arena_init(&a);
  nns__intern_init(&t, &a);
  const char *p[3000];
  char buf[64];
  for (int i = 0; i < 3000; i++) {
    snprintf(buf, sizeof buf, "/model/layers.%d/self_attn/MatMul_output_0", i);
    p[i] = nns__intern_cstr(&t, buf);
    CHECK(p[i] && strcmp(p[i], buf) == 0);
  }
  CHECK(t.cap > 256); /* grew from its first table */
  for (int i = 0; i < 3000; i++) {
    snprintf(buf, sizeof buf, "/model/layers.%d/self_attn/MatMul_output_0", i);
    CHECK(nns__intern_cstr(&t, buf) == p[i]);
    CHECK(nns__intern_find(&t, buf) == p[i]);
  }
  CHECK_EQ(t.count, 3000);
  const char *ab = nns__intern(&t, "ab\0c", 4);
  CHECK(ab != nns__intern(&t, "ab\0d", 4));
  CHECK(ab != nns__intern(&t, "ab", 2));
  CHECK(ab == nns__intern(&t, "ab\0c", 4));
  CHECK(nns__intern(&t, "", 0) == nns__intern_cstr(&t, ""));
  CHECK(nns__intern_find(&t, "never interned") == NULL);
  nns__intern_free(&t);
  nns__arena_free(&a);
}

/* nns__map_add inserts once, then hands back what is there. */
static void test_map_add(void) {
  nns__map m = {0};
  int x, y;
  void *old = &x;
  CHECK(nns__map_add(&m, "k", &x, &old));
  CHECK(old == NULL);
  CHECK(nns__map_add(&m, "k", &y, &old));
  CHECK(old == &x);
  CHECK(nns__map_get(&m, "k") == &x);
  CHECK_EQ(m.count, 1);
  nns__map_free(&m);
}

/* Text from nns__arena_bytes / _strndup is packed, and an aligned
 * allocation after it is still 16-byte aligned. */
static void test_arena_text(void) {
  nns__arena a;
  nns__arena_init(&a);
  char *s = nns__arena_strndup(&a, "abc", 3);
  char *t = nns__arena_strndup(&a, "de", 2);
  CHECK(s && t && t == s + 4);
  CHECK_STR(s, "abc");
  CHECK_STR(t, "de");
  unsigned char *b = nns__arena_bytes(&a, 5);
  CHECK(b == (unsigned char *)t + 3);
  CHECK(b[0] == 0 && b[4] == 0);
  void *q = nns__arena_alloc(&a, 8);
  CHECK(q && (uintptr_t)q % 16 == 0);
  /* Past the first chunk: a new one, and text still fits whole. */
  char *big = nns__arena_bytes(&a, 1 << 20);
  CHECK(big != NULL);
  big[(1 << 20) - 1] = 1;
  q = nns__arena_alloc(&a, 24);
  CHECK(q && (uintptr_t)q % 16 == 0);
  nns__arena_free(&a);
}

/* Arena memory is zero however it was used before: chunks below a huge
 * page come from malloc, which hands back what a freed arena dirtied, and
 * are zeroed a page at a time as they fill. Each round writes every byte
 * it gets (allocations that cross pages, text, a chunk's growth), frees
 * the arena, and checks that the next round's bytes are zero. */
static void test_arena_zero_after_reuse(void) {
  static const size_t sizes[] = {24, 4000, 5000, 100, 70000, 16, 300000, 8};
  for (int round = 0; round < 3; round++) {
    nns__arena a;
    nns__arena_init(&a);
    bool zero = true;
    for (int k = 0; k < 40; k++) {
      size_t n = sizes[k % 8];
      unsigned char *p = k % 3 ? nns__arena_alloc(&a, n)
                               : nns__arena_bytes(&a, n);
      CHECK(p != NULL);
      if (!p)
        break;
      for (size_t i = 0; i < n; i++) {
        zero = zero && p[i] == 0;
        p[i] = 0xA5;
      }
    }
    CHECK(zero);
    nns__arena_free(&a);
  }
}

int main(void) {
  nns__arena_init(&arena);
  nns__intern_init(&in, &arena);
  RUN(test_vec_grows_and_keeps);
  RUN(test_interning);
  RUN(test_map_add);
  RUN(test_arena_text);
  RUN(test_arena_zero_after_reuse);
  RUN(test_map2_pairs);
  RUN(test_set64);
  RUN(test_json_strings);
  RUN(test_py_strings);
  nns__intern_free(&in);
  nns__arena_free(&arena);
  return check_finish();
}
