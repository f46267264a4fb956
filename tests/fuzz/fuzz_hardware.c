/*
 * fuzz_hardware.c - nns_hardware_list_open on hostile device files (issue
 * 47): the input is written to one temporary file (the loader takes a
 * path) and loaded; every device it yields is read back and its figures
 * checked against the range the loader promises, and its strings against
 * UTF-8 (checked here, apart from the loader). Seeded from
 * fuzz/seeds/fuzz_hardware (docs/roofline.md's example and variants).
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "nnscan.h"

static char path[64];
static int fd = -1;

/* Whether s is UTF-8 (RFC 3629: no overlong forms, no surrogates, nothing
 * past U+10FFFF), written here apart from the library's own check. */
static int utf8_ok(const char *s) {
  const unsigned char *p = (const unsigned char *)s;
  while (*p) {
    unsigned c = *p, n = c < 0x80 ? 0 : c >= 0xc2 && c <= 0xdf ? 1
                                 : c >= 0xe0 && c <= 0xef   ? 2
                                 : c >= 0xf0 && c <= 0xf4   ? 3
                                                            : 9;
    if (n == 9)
      return 0;
    unsigned cp = n ? c & (0x3f >> n) : c;
    for (unsigned k = 1; k <= n; k++) {
      if ((p[k] & 0xc0) != 0x80)
        return 0;
      cp = cp << 6 | (p[k] & 0x3f);
    }
    if ((n == 2 && (cp < 0x800 || (cp >= 0xd800 && cp <= 0xdfff))) ||
        (n == 3 && (cp < 0x10000 || cp > 0x10ffff)))
      return 0;
    p += n + 1;
  }
  return 1;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (fd < 0) {
    snprintf(path, sizeof path, "/tmp/fuzz_hardware.XXXXXX");
    fd = mkstemp(path);
    if (fd < 0)
      abort();
  }
  if (ftruncate(fd, 0) || pwrite(fd, data, size, 0) != (ssize_t)size)
    abort();
  nns_hardware_list *l = NULL;
  nns_error err;
  if (nns_hardware_list_open(path, &l, &err) != NNS_OK) {
    if (l || !memchr(err.message, 0, sizeof err.message))
      abort(); /* no list on error; the message is a C string */
    return 0;
  }
  for (size_t i = 0; i < nns_hardware_list_count(l); i++) {
    nns_hardware h = {.size = sizeof h};
    if (nns_hardware_list_get(l, i, &h) != NNS_OK || !h.name || !h.name[0])
      abort();
    /* A file is UTF-8 text (issue 47): what a binding decodes is too. */
    if (!utf8_ok(h.name) || (h.description && !utf8_ok(h.description)) ||
        (h.source && !utf8_ok(h.source)))
      abort();
    /* The loader's promise: finite figures from 1e6 to 1e21 (0: none). */
    if (!(h.bandwidth >= 1e6 && h.bandwidth <= 1e21))
      abort();
    for (int d = 0; d < NNS_COMPUTE_DTYPE_COUNT; d++)
      if (h.peak_flops[d] != 0 &&
          !(h.peak_flops[d] >= 1e6 && h.peak_flops[d] <= 1e21))
        abort();
    for (size_t j = 0; j < i; j++) {
      nns_hardware o = {.size = sizeof o};
      if (i < 64 && nns_hardware_list_get(l, j, &o) == NNS_OK &&
          !strcmp(o.name, h.name))
        abort(); /* names are unique */
    }
  }
  nns_hardware_list_free(l);
  return 0;
}
