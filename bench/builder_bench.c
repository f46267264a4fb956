/*
 * builder_bench.c - building a graph through nns_builder against loading
 * its ONNX file (bench/builder_vs_load.sh runs it).
 *
 *   builder_bench MODEL.onnx MODEL.desc RUNS [build|load|both]
 *
 * The description (tools/make_builder_desc.py) is read and split once,
 * untimed; each timed build replays it call by call and finishes the model
 * (what a binding does with a graph it recorded), each timed load is
 * nns_model_load_file. Both end with nns_model_free, also timed. Prints
 * the median and the minimum of each, in milliseconds.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "builddesc.h"
#include "bench_clock.h"
#include "nnscan.h"

static void report(const char *what, double *t, int runs, size_t nodes) {
  qsort(t, (size_t)runs, sizeof *t, cmp);
  printf("%-5s  nodes %zu  runs %d  median %.3f ms  min %.3f ms\n", what,
         nodes, runs, t[runs / 2], t[0]);
}

int main(int argc, char **argv) {
  if (argc < 4) {
    fprintf(stderr, "usage: builder_bench MODEL.onnx MODEL.desc RUNS "
                    "[build|load|both]\n");
    return 2;
  }
  int runs = atoi(argv[3]);
  const char *mode = argc > 4 ? argv[4] : "both";
  if (runs < 1)
    return 2;
  bdesc *d = bdesc_read(argv[2]);
  double *t = malloc((size_t)runs * sizeof *t);
  if (!d || !t) {
    fprintf(stderr, "builder_bench: cannot read %s\n", argv[2]);
    return 1;
  }
  nns_error err;
  size_t nodes = 0;
  if (strcmp(mode, "load") != 0) {
    for (int r = 0; r < runs; r++) {
      nns_model *m = NULL;
      double t0 = now_ms();
      if (bdesc_replay(d, &m, &err) != NNS_OK) {
        fprintf(stderr, "builder_bench: build: %s\n", err.message);
        return 1;
      }
      nodes = nns_model_node_count(m);
      nns_model_free(m);
      t[r] = now_ms() - t0;
    }
    report("build", t, runs, nodes);
  }
  if (strcmp(mode, "build") != 0) {
    for (int r = 0; r < runs; r++) {
      nns_model *m = NULL;
      double t0 = now_ms();
      if (nns_model_load_file(argv[1], NULL, &m, &err) != NNS_OK) {
        fprintf(stderr, "builder_bench: load: %s\n", err.message);
        return 1;
      }
      nodes = nns_model_node_count(m);
      nns_model_free(m);
      t[r] = now_ms() - t0;
    }
    report("load", t, runs, nodes);
  }
  bdesc_free(d);
  free(t);
  return 0;
}
