/*
 * bench_clock.h - what the C benchmarks in bench/ share: a monotonic clock
 * in milliseconds and the comparison qsort takes to order timings.
 */
#ifndef NNS_BENCH_CLOCK_H
#define NNS_BENCH_CLOCK_H

#include <time.h>

static inline double now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static inline int cmp(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

#endif
