/*
 * test_sym.c - symbolic dims: products and exact quotients cancel, equal
 * expressions are the same symbol, and names print unambiguously.
 */
#include "check.h"
#include "ir/ir.h"

static nns_model *m;

static nns__dim named(const char *s) {
  nns__dim d = {0, nns__sym_named(m, nns__intern_cstr(&m->strings, s))};
  return d;
}

static const char *str(nns__dim d) {
  static char buf[128];
  return nns__dim_str(m, d, buf, sizeof buf);
}

static void test_products_cancel(void) {
  nns__dim b = named("batch"), s = named("seq"), k = nns__dim_known(4096);
  nns__dim bs = nns__dim_mul(m, b, s);
  CHECK_STR(str(bs), "batch*seq");
  /* The same product twice is one symbol. */
  CHECK(nns__dim_eq(bs, nns__dim_mul(m, s, b)));
  /* batch*seq*4096 / (batch*4096) = seq: Reshape round trips. */
  nns__dim all = nns__dim_mul(m, bs, k);
  CHECK_STR(str(all), "4096*batch*seq");
  CHECK(nns__dim_eq(nns__dim_div(m, all, nns__dim_mul(m, b, k)), s));
  /* 4096*batch*seq / 32 = 128*batch*seq. */
  CHECK_STR(str(nns__dim_div(m, all, nns__dim_known(32))), "128*batch*seq");
  /* Known arithmetic stays exact. */
  CHECK_EQ(nns__dim_div(m, nns__dim_known(-7), nns__dim_known(2)).v, -4);
  CHECK_EQ(nns__dim_mod(m, nns__dim_known(-7), nns__dim_known(3)).v, 2);
}

static void test_sums_and_names(void) {
  nns__dim b = named("batch"), s = named("seq");
  nns__dim s1 = nns__dim_add(m, s, nns__dim_known(1));
  CHECK_STR(str(s1), "seq+1");
  /* The same sum twice is one symbol; x - x is 0. */
  CHECK(nns__dim_eq(s1, nns__dim_add(m, s, nns__dim_known(1))));
  CHECK_EQ(nns__dim_sub(m, s1, s1).v, 0);
  CHECK_EQ(nns__dim_sub(m, s1, s1).sym, 0);
  /* ceil(seq / 2) exported as (seq + 1) / 2 keeps its parentheses. */
  CHECK_STR(str(nns__dim_div(m, s1, nns__dim_known(2))), "(seq+1)/2");
  /* A sum as a factor of a product. */
  CHECK_STR(str(nns__dim_mul(m, b, s1)), "batch*(seq+1)");
  /* a - (b + 1) needs them; (a + 1) - b does not. */
  nns__dim b1 = nns__dim_add(m, b, nns__dim_known(1));
  CHECK_STR(str(nns__dim_sub(m, s, b1)), "seq-(batch+1)");
  CHECK_STR(str(nns__dim_sub(m, s1, b)), "seq+1-batch");
  /* Anonymous unknowns print as ? and stay distinct. */
  nns__dim u = {0, nns__sym_fresh(m)}, v = {0, nns__sym_fresh(m)};
  CHECK_STR(str(u), "?");
  CHECK(!nns__dim_eq(u, v));
}

int main(void) {
  m = nns__model_new();
  RUN(test_products_cancel);
  RUN(test_sums_and_names);
  nns__model_destroy(m);
  return check_finish();
}
