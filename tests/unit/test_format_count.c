/*
 * test_format_count.c - nns_format_count, every expected string written
 * out here by hand from the two tools' rules: thop's utils.clever_format
 * (the value over 1e12, 1e9, 1e6 or 1e3 once strictly above it, "%.Nf"
 * and the unit, else the value and "B") and thoplw's (divided by 1000
 * while at least 1000, up to P; "%6.2f", a space and the unit or a space).
 */
#include <float.h>
#include <math.h>
#include <string.h>

#include "check.h"
#include "nnscan.h"

static void expect(nns_count_style style, double v, int width, int digits,
                   const char *want) {
  char buf[NNS_COUNT_SIZE_MAX];
  nns_error err;
  CHECK_EQ(nns_format_count(v, style, width, digits, buf, sizeof buf, &err),
           NNS_OK);
  if (strcmp(buf, want))
    check_fail(__FILE__, __LINE__, "%.17g (%d.%d): \"%s\", not \"%s\"", v,
               width, digits, buf, want);
}

static void thop(double v, int digits, const char *want) {
  expect(NNS_COUNT_STYLE_THOP, v, 0, digits, want);
}

static void thoplw(double v, const char *want) {
  expect(NNS_COUNT_STYLE_THOPLW, v, 6, 2, want);
}

static void test_thop_units(void) {
  thop(0, 2, "0.00B");
  thop(1, 2, "1.00B");
  thop(512, 2, "512.00B");
  /* Strictly above the scale: 1000 stays in B, 1001 is 1.001 K. */
  thop(1000, 2, "1000.00B");
  thop(1001, 2, "1.00K");
  thop(1e6, 2, "1000.00K");
  thop(11689512, 2, "11.69M");
  thop(1824010216, 2, "1.82G");
  thop(2e12, 2, "2.00T");
  /* Past T there is no unit: 5e15 is 5000 T. */
  thop(5e15, 2, "5000.00T");
}

static void test_thop_digits_and_width(void) {
  thop(11699112, 3, "11.699M");
  thop(512, 3, "512.000B");
  thop(2.5e12, 1, "2.5T");
  thop(1824010216, 0, "2G");
  thop(7, 5, "7.00000B");
  expect(NNS_COUNT_STYLE_THOP, 1824010216, 8, 2, "    1.82G");
}

static void test_thoplw_units(void) {
  thoplw(0, "  0.00  ");
  thoplw(999, "999.00  ");
  /* At least 1000: 1000 is 1 K, 999999 is 999.999 K (rounded: 1000.00). */
  thoplw(1000, "  1.00 K");
  thoplw(999999, "1000.00 K");
  thoplw(1824010216, "  1.82 G");
  thoplw(11689512, " 11.69 M");
  thoplw(2.5e15, "  2.50 P");
  /* Past P there is no unit: 3e18 is 3000 P. */
  thoplw(3e18, "3000.00 P");
  expect(NNS_COUNT_STYLE_THOPLW, 1824010216, 0, 3, "1.824 G");
}

static void test_odd_values(void) {
  /* Negative counts never pass a scale; NaN is "nan" whatever its sign. */
  thop(-5000, 2, "-5000.00B");
  thop(-NAN, 2, "nanB");
  thop(NAN, 2, "nanB");
  thop(INFINITY, 2, "infT");
  thop(-INFINITY, 2, "-infB");
  thoplw(-NAN, "   nan  ");
  thoplw(INFINITY, "   inf P");
}

/* The text must fit: 11.69M with 2 decimals is 6 characters and its NUL. */
static void test_room(void) {
  char buf[7];
  CHECK_EQ(nns_format_count(11689512, NNS_COUNT_STYLE_THOP, 0, 2, buf,
                            sizeof buf, NULL),
           NNS_OK);
  CHECK(strcmp(buf, "11.69M") == 0);
  nns_error err;
  CHECK_EQ(
      nns_format_count(11689512, NNS_COUNT_STYLE_THOP, 0, 2, buf, 6, &err),
      NNS_E_LIMIT);
  CHECK_EQ(err.code, NNS_E_LIMIT);
  CHECK_EQ(buf[0], 0);
}

/* NNS_COUNT_SIZE_MAX holds the longest text: -DBL_MAX with every digit. */
static void test_size_max(void) {
  char buf[NNS_COUNT_SIZE_MAX];
  for (int s = NNS_COUNT_STYLE_THOP; s <= NNS_COUNT_STYLE_THOPLW; s++) {
    CHECK_EQ(nns_format_count(-DBL_MAX, (nns_count_style)s,
                              NNS_COUNT_WIDTH_MAX, NNS_COUNT_DIGITS_MAX, buf,
                              sizeof buf, NULL),
             NNS_OK);
    /* 309 integer digits, '-', '.', 20 decimals, then "B" or "  ". */
    CHECK_EQ(strlen(buf), 331 + (s == NNS_COUNT_STYLE_THOP ? 1 : 2));
    CHECK_EQ(nns_format_count(DBL_MAX, (nns_count_style)s,
                              NNS_COUNT_WIDTH_MAX, NNS_COUNT_DIGITS_MAX, buf,
                              sizeof buf, NULL),
             NNS_OK);
  }
}

int main(void) {
  RUN(test_thop_units);
  RUN(test_thop_digits_and_width);
  RUN(test_thoplw_units);
  RUN(test_odd_values);
  RUN(test_room);
  RUN(test_size_max);
  return check_finish();
}
