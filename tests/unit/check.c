/* check.c - the unit-test runner; see check.h. */
#include "check.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int passed, failed, current_failed;
static const char *current;

void check_fail(const char *file, int line, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  fprintf(stderr, "FAIL %s (%s:%d): ", current ? current : "?", file, line);
  vfprintf(stderr, fmt, ap);
  fputc('\n', stderr);
  va_end(ap);
  current_failed = 1;
}

void check_run(const char *name, void (*fn)(void)) {
  current = name;
  current_failed = 0;
  fn();
  if (current_failed)
    failed++;
  else
    passed++;
  current = NULL;
}

int check_finish(void) {
  printf("%d passed, %d failed\n", passed, failed);
  return failed ? 1 : 0;
}

const char *check_dir(void) {
  const char *d = getenv("NNS_TEST_DIR");
  return d ? d : ".";
}

int check_sink_write(void *user, const char *data, size_t size) {
  check_sink *s = user;
  char *p = realloc(s->buf, s->len + size + 1);
  if (!p)
    return 1;
  memcpy(p + s->len, data, size);
  s->len += size;
  p[s->len] = '\0';
  s->buf = p;
  return 0;
}
