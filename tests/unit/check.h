/*
 * check.h - the unit-test runner: a test is a function; checks record a
 * failure with file, line and the values seen, and the run ends with the
 * line "N passed, N failed" that CTest and CI read.
 *
 *   static void test_x(void) { CHECK_EQ(1 + 1, 2); }
 *   int main(void) { RUN(test_x); return check_finish(); }
 */
#ifndef NNS_CHECK_H
#define NNS_CHECK_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

void check_fail(const char *file, int line, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
void check_run(const char *name, void (*fn)(void));
int check_finish(void);
/* The directory of the test sources (tests/), for fixture paths. */
const char *check_dir(void);

/* A report written into memory: pass check_sink_write and a zeroed
 * check_sink as an nns_write_fn and its user pointer; buf (NUL-terminated,
 * NULL when nothing came) is the caller's to free. */
typedef struct check_sink {
  char *buf;
  size_t len;
} check_sink;
int check_sink_write(void *user, const char *data, size_t size);

#define RUN(fn) check_run(#fn, fn)
#define CHECK(c)                                                               \
  do {                                                                         \
    if (!(c))                                                                  \
      check_fail(__FILE__, __LINE__, "CHECK(%s)", #c);                         \
  } while (0)
#define CHECK_EQ(a, b)                                                         \
  do {                                                                         \
    long long a_ = (long long)(a), b_ = (long long)(b);                        \
    if (a_ != b_)                                                              \
      check_fail(__FILE__, __LINE__, "%s == %s: %lld != %lld", #a, #b, a_,   \
                 b_);                                                          \
  } while (0)
#define CHECK_STR(a, b)                                                        \
  do {                                                                         \
    const char *a_ = (a), *b_ = (b);                                           \
    if (!a_ || !b_ || strcmp(a_, b_) != 0)                                     \
      check_fail(__FILE__, __LINE__, "%s == %s: \"%s\" != \"%s\"", #a, #b,   \
                 a_ ? a_ : "(null)", b_ ? b_ : "(null)");                      \
  } while (0)

#endif
