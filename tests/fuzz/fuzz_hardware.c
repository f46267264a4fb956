/*
 * fuzz_hardware.c - nns_hardware_list_open on hostile device files (issue
 * 47): the input is written to one temporary file (the loader takes a
 * path) and loaded; every device it yields is read back and its figures
 * checked against the range the loader promises. Seeded from
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
