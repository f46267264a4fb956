/*
 * test_rf_period.c - fields that differ between positions (src/ops/
 * rf_period.c), each case worked out by hand: what windows, rolls, strided
 * slices, merges and their limits do to the pixels each position reads.
 */
#include <string.h>

#include "check.h"
#include "ops/rf_period.h"

/* One axis: field r, stride j, padding p (position i reads
 * [i*j - p, i*j - p + r - 1]). */
static nns__rf field(int64_t r, int64_t j, int64_t p) {
  nns__rf f;
  memset(&f, 0, sizeof f);
  f.f.axes = 1;
  f.f.field[0] = r;
  f.f.stride[0] = j;
  f.f.padding[0] = p;
  return f;
}

/* Position i of f reads [first, last]. */
static void check_reads(const nns__rf_pool *pool, const nns__rf *f,
                        int64_t i, int64_t first, int64_t last, int line) {
  int64_t lo, hi;
  nns__rf_offsets(pool, f, 0, i, &lo, &hi);
  int64_t at = f->f.stride[0] * i;
  if (at + lo != first || at + hi != last)
    check_fail(__FILE__, line, "position %lld reads [%lld, %lld], expected "
               "[%lld, %lld]", (long long)i, (long long)(at + lo),
               (long long)(at + hi), (long long)first, (long long)last);
}
#define READS(pool, f, i, a, b) check_reads(pool, f, i, a, b, __LINE__)

/* Windows of 4 over a 3x3 stem (token t reads t-1 .. t+1): window m reads
 * 4m-1 .. 4m+4 at each of its positions; period 4, widest 6, position 0's
 * padding 1. */
static void test_window(void) {
  nns__rf_pool pool = {0};
  nns__rf f = field(3, 1, 1);
  nns__rf_window(&pool, &f, 0, 4);
  CHECK_EQ(nns__rf_period(&pool, &f, 0), 4);
  CHECK_EQ(f.f.period[0], 4);
  CHECK_EQ(f.f.field[0], 6);
  CHECK_EQ(f.f.padding[0], 1);
  for (int64_t i = 0; i < 12; i++)
    READS(&pool, &f, i, 4 * (i / 4) - 1, 4 * (i / 4) + 4);
  /* Negative positions (padding): window -1 reads -5 .. 0. */
  READS(&pool, &f, -1, -5, 0);
  /* Rolled by 2 first (position i reads what i + 2 read), then windows:
   * position i reads window floor(i/4) of the rolled positions. */
  nns__rf g = field(3, 1, 1);
  nns__rf_translate(&pool, &g, 0, 2);
  READS(&pool, &g, 0, 1, 3);
  nns__rf_window(&pool, &g, 0, 4);
  READS(&pool, &g, 0, 1, 6);
  READS(&pool, &g, 3, 1, 6);
  READS(&pool, &g, 4, 5, 10);
  /* Back by 2: position i reads what the rolled i - 2 read. */
  nns__rf_translate(&pool, &g, 0, -2);
  READS(&pool, &g, 0, -3, 2);
  READS(&pool, &g, 1, -3, 2);
  READS(&pool, &g, 2, 1, 6);
  READS(&pool, &g, 5, 1, 6);
  READS(&pool, &g, 6, 5, 10);
  /* Merged with the unrolled windows, position by position. */
  nns__rf_unite_axis(&pool, &g, &f, 0);
  READS(&pool, &g, 1, -3, 4);
  READS(&pool, &g, 2, -1, 6);
  READS(&pool, &g, 4, 1, 8);
  nns__rf_pool_free(&pool);
}

/* A strided slice (patch merging's x[1::2]) of windows of 7 (period 7):
 * position i reads what 1 + 2i read, stride 2, period 7 / gcd(7, 2). */
static void test_resample(void) {
  nns__rf_pool pool = {0};
  nns__rf f = field(1, 1, 0);
  nns__rf_window(&pool, &f, 0, 7);
  nns__rf_resample(&pool, &f, 0, 1, 2);
  CHECK_EQ(f.f.stride[0], 2);
  CHECK_EQ(nns__rf_period(&pool, &f, 0), 7);
  READS(&pool, &f, 0, 0, 6);  /* position 1: window 0 */
  READS(&pool, &f, 2, 0, 6);  /* position 5: window 0 */
  READS(&pool, &f, 3, 7, 13); /* position 7: window 1 */
  READS(&pool, &f, 7, 14, 20); /* position 15: window 2 */
  /* A step that is a multiple of the period leaves one field. */
  nns__rf h = field(1, 1, 0);
  nns__rf_window(&pool, &h, 0, 7);
  nns__rf_resample(&pool, &h, 0, 3, 7);
  CHECK_EQ(nns__rf_period(&pool, &h, 0), 1);
  CHECK_EQ(h.f.field[0], 7);
  CHECK_EQ(h.f.stride[0], 7);
  CHECK_EQ(h.f.padding[0], 0);
  nns__rf_pool_free(&pool);
}

/* The limits: the envelope (never smaller than any position's field). */
static void test_limits(void) {
  nns__rf_pool pool = {0};
  /* A window of 40 would need a period over 32: a position reads at most
   * 39 positions either side, the envelope of every window it can be in. */
  nns__rf f = field(3, 2, 1);
  nns__rf_window(&pool, &f, 0, 40);
  CHECK_EQ(nns__rf_period(&pool, &f, 0), 1);
  CHECK_EQ(f.f.field[0], 3 + 2 * 39 * 2);
  CHECK_EQ(f.f.padding[0], 1 + 39 * 2);
  /* Merging fields of other strides: envelopes, the larger stride. Windows
   * of 4 over single pixels: position 4m + r reads [-r, 3 - r] around
   * itself, so the envelope is [-3, 3]; b reads [-2, 2]. */
  nns__rf a = field(1, 1, 0), b = field(5, 2, 2);
  nns__rf_window(&pool, &a, 0, 4);
  nns__rf_unite_axis(&pool, &a, &b, 0);
  CHECK_EQ(nns__rf_period(&pool, &a, 0), 1);
  CHECK_EQ(a.f.stride[0], 2);
  CHECK_EQ(a.f.padding[0], 3);
  CHECK_EQ(a.f.field[0], 7);
  /* Without a pool (or out of memory): that envelope, not a crash. */
  nns__rf c = field(1, 1, 0);
  nns__rf_window(NULL, &c, 0, 4);
  CHECK_EQ(nns__rf_period(NULL, &c, 0), 1);
  CHECK_EQ(c.f.field[0], 7);
  CHECK_EQ(c.f.padding[0], 3);
  nns__rf_envelope(&pool, &c);
  CHECK_EQ(c.f.field[0], 7);
  /* Saturation, not overflow. */
  nns__rf d = field(INT64_MAX, INT64_MAX, 0);
  nns__rf_window(&pool, &d, 0, 3);
  nns__rf_translate(&pool, &d, 0, INT64_MAX);
  nns__rf_resample(&pool, &d, 0, INT64_MIN, INT64_MAX);
  CHECK(d.f.field[0] > 0);
  nns__rf_pool_free(&pool);
}

int main(void) {
  RUN(test_window);
  RUN(test_resample);
  RUN(test_limits);
  return check_finish();
}
