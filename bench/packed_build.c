/*
 * packed_build.c - the library's build of one packed graph (a buffer
 * nnscan.graph.pack() made: bench/recording_profile.py --save-packed),
 * timed in a loop with no Python around it: nns_builder_new, one
 * nns_builder_add_packed, nns_builder_finish, then both freed (untimed).
 * Prints the median and the minimum in milliseconds. Under callgrind, RUNS
 * of 1 and of 6 give the instructions of five builds by difference.
 *
 *   cc -O2 -std=c11 -D_POSIX_C_SOURCE=200809L -Iinclude bench/packed_build.c \
 *       build/libnnscan.a -lz -lm -o build/packed_build
 *   build/packed_build DIR/llama3_8b.numbered.nnsp 60
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "bench_clock.h"
#include "nnscan.h"

int main(int argc, char **argv) {
  if (argc != 3 || atoi(argv[2]) < 1) {
    fprintf(stderr, "usage: packed_build FILE.nnsp RUNS\n");
    return 2;
  }
  FILE *f = fopen(argv[1], "rb");
  long size = -1;
  if (!f || fseek(f, 0, SEEK_END) || (size = ftell(f)) < 0 ||
      fseek(f, 0, SEEK_SET)) {
    fprintf(stderr, "cannot read %s\n", argv[1]);
    return 1;
  }
  unsigned char *buf = malloc((size_t)size + 1);
  if (!buf || fread(buf, 1, (size_t)size, f) != (size_t)size) {
    fprintf(stderr, "cannot read %s\n", argv[1]);
    return 1;
  }
  fclose(f);
  int runs = atoi(argv[2]);
  double *ms = malloc(sizeof *ms * (size_t)runs);
  if (!ms)
    return 1;
  for (int i = 0; i < runs; i++) {
    nns_builder *b = NULL;
    nns_model *m = NULL;
    nns_error err;
    double t = now_ms();
    if (nns_builder_new(&b, &err) ||
        nns_builder_add_packed(b, buf, (size_t)size, &err) ||
        nns_builder_finish(b, &m, &err)) {
      fprintf(stderr, "%s: %s\n", argv[1], err.message);
      return 1;
    }
    ms[i] = now_ms() - t;
    nns_builder_free(b);
    nns_model_free(m);
  }
  qsort(ms, (size_t)runs, sizeof *ms, cmp);
  printf("%s: %ld bytes, build median %.3f ms, min %.3f ms (%d runs)\n",
         argv[1], size, ms[runs / 2], ms[0], runs);
  free(ms);
  free(buf);
  return 0;
}
