/*
 * test_format_count.c - nns_format_count, every expected string written
 * out here by hand from thop's rule (utils.clever_format: the value over
 * 1e12, 1e9, 1e6 or 1e3 once strictly above it, "%.Nf" and the unit, else
 * the value and "B").
 */
#include <float.h>
#include <math.h>
#include <string.h>

#include "check.h"
#include "nnscan.h"

static void expect(double v, int digits, const char *want) {
  char buf[64];
  nns_error err;
  CHECK_EQ(
      nns_format_count(v, NNS_COUNT_STYLE_THOP, digits, buf, sizeof buf, &err),
      NNS_OK);
  if (strcmp(buf, want))
    check_fail(__FILE__, __LINE__, "%.17g with %d digits: \"%s\", not \"%s\"",
               v, digits, buf, want);
}

static void test_units(void) {
  expect(0, 2, "0.00B");
  expect(1, 2, "1.00B");
  expect(512, 2, "512.00B");
  /* Strictly above the scale: 1000 stays in B, 1001 is 1.001 K. */
  expect(1000, 2, "1000.00B");
  expect(1001, 2, "1.00K");
  expect(1e6, 2, "1000.00K");
  expect(11689512, 2, "11.69M");
  expect(1824010216, 2, "1.82G");
  expect(2e12, 2, "2.00T");
  /* Past T there is no unit: 5e15 is 5000 T. */
  expect(5e15, 2, "5000.00T");
}

static void test_digits(void) {
  expect(11699112, 3, "11.699M");
  expect(512, 3, "512.000B");
  expect(2.5e12, 1, "2.5T");
  expect(1824010216, 0, "2G");
  expect(7, 5, "7.00000B");
}

static void test_odd_values(void) {
  /* Negative counts never pass a scale; NaN is "nan" whatever its sign. */
  expect(-5000, 2, "-5000.00B");
  expect(-NAN, 2, "nanB");
  expect(NAN, 2, "nanB");
  expect(INFINITY, 2, "infT");
  expect(-INFINITY, 2, "-infB");
}

/* The text must fit: 11.69M with 2 decimals is 6 characters and its NUL. */
static void test_room(void) {
  char buf[7];
  CHECK_EQ(nns_format_count(11689512, NNS_COUNT_STYLE_THOP, 2, buf, sizeof buf,
                            NULL),
           NNS_OK);
  CHECK(strcmp(buf, "11.69M") == 0);
  nns_error err;
  CHECK_EQ(nns_format_count(11689512, NNS_COUNT_STYLE_THOP, 2, buf, 6, &err),
           NNS_E_LIMIT);
  CHECK_EQ(err.code, NNS_E_LIMIT);
  CHECK_EQ(buf[0], 0);
}

/* NNS_COUNT_SIZE_MAX holds the longest text: -DBL_MAX with every digit. */
static void test_size_max(void) {
  char buf[NNS_COUNT_SIZE_MAX];
  CHECK_EQ(nns_format_count(-DBL_MAX, NNS_COUNT_STYLE_THOP,
                            NNS_COUNT_DIGITS_MAX, buf, sizeof buf, NULL),
           NNS_OK);
  /* 309 integer digits, '-', '.', 20 decimals and 'B'. */
  CHECK_EQ(strlen(buf), 332);
  CHECK_EQ(buf[331], 'B');
  CHECK_EQ(nns_format_count(DBL_MAX, NNS_COUNT_STYLE_THOP, NNS_COUNT_DIGITS_MAX,
                            buf, sizeof buf, NULL),
           NNS_OK);
  CHECK_EQ(strlen(buf), 297 + 1 + 20 + 1); /* over 1e12: "...T" */
}

int main(void) {
  RUN(test_units);
  RUN(test_digits);
  RUN(test_odd_values);
  RUN(test_room);
  RUN(test_size_max);
  return check_finish();
}
