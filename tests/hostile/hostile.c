/*
 * hostile.c - the helper of tests/hostile/run.sh, the regression tests of
 * hostile input (issue 6, item 10). Three jobs, one per subcommand:
 *
 *   hostile make DIR
 *       writes the attack models into DIR (generated at test time: the
 *       largest is close to 1 MB):
 *         fold_neg.onnx   one 65,536-element ConstantOfShape feeding 4,000
 *                         Neg nodes (each Neg would fold 64K elements),
 *                         the last one reshaped to its own folded Shape;
 *         fold_add.onnx   a chain of 8,000 Adds on a 65,536-element float
 *                         initializer;
 *         fold_30k.onnx   the same chain with 30,000 Adds (float16 data);
 *         names.onnx      control characters (ESC sequences, C1 CSI, CR,
 *                         BEL) and bytes that are not UTF-8 in every name a
 *                         report prints: graph, inputs, symbols, nodes
 *                         (module paths), op types, domains;
 *         ext_link.onnx   a Reshape whose target shape is external data in
 *                         "shape.bin", plus an unused tensor in "short.bin"
 *                         (run.sh makes those names symbolic links that
 *                         leave the model's folder).
 *   hostile run MAX_MB MAX_S CMD [ARGS...]
 *       runs CMD in a child, kills it after 4 x MAX_S seconds (a hang
 *       guard), and prints "rc=N rss_mb=M secs=S" from wait4()'s rusage.
 *       Exits 0 when the child stayed within MAX_MB of peak RSS and MAX_S
 *       seconds, 3 when not (the child's own exit status is in rc=).
 *   hostile scan FILE...
 *       exits 1 when a file holds a C0 control character other than
 *       newline, DEL, a C1 control (U+0080-U+009F) or bytes that are not
 *       UTF-8, naming the file and the byte offset.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "pbenc.h"

enum { FLOAT = 1, INT64 = 7, FLOAT16 = 10 };
enum { FOLD_ELEMS = 65536 };

/* ==== Models ==== */

static void write_file(const char *dir, const char *name, const pb *b) {
  char path[4096];
  snprintf(path, sizeof path, "%s/%s", dir, name);
  FILE *f = fopen(path, "wb");
  if (!f || fwrite(b->d, 1, b->n, f) != b->n || fclose(f) != 0) {
    fprintf(stderr, "hostile: cannot write %s: %s\n", path, strerror(errno));
    exit(1);
  }
}

/* A TensorProto: dims, dtype, name and raw bytes (NULL: none). */
static void tensor(pb *t, const char *name, int dtype, const int64_t *dims,
                   int rank, const void *raw, size_t raw_len) {
  for (int i = 0; i < rank; i++)
    pb_int(t, 1, (uint64_t)dims[i]);
  pb_int(t, 2, (uint64_t)dtype);
  pb_str(t, 8, name);
  if (raw)
    pb_bytes(t, 9, raw, raw_len);
}

/* An external-data TensorProto: data in `location`, from byte 0. */
static void ext_tensor(pb *t, const char *name, int dtype, const int64_t *dims,
                       int rank, const char *location) {
  tensor(t, name, dtype, dims, rank, NULL, 0);
  pb entry = {0};
  pb_str(&entry, 1, "location");
  pb_str(&entry, 2, location);
  pb_msg(t, 13, &entry);
  pb_int(t, 14, 1); /* data_location = EXTERNAL */
}

static void finish(const char *dir, const char *file, pb *graph, int opset) {
  pb model = {0};
  pb_model(&model, graph, opset);
  write_file(dir, file, &model);
  pb_free(&model);
}

/* ConstantOfShape([65536]) -> c; 4,000 x Neg(c). */
static void make_fold_neg(const char *dir) {
  pb g = {0}, t = {0}, attrs = {0}, attr = {0}, val = {0};
  pb_str(&g, 2, "fold_neg");
  int64_t one = 1, n = FOLD_ELEMS;
  tensor(&t, "shape", INT64, &one, 1, &n, sizeof n);
  pb_msg(&g, 5, &t);
  float v = 1.0f;
  tensor(&val, "value", FLOAT, &one, 1, &v, sizeof v);
  pb_str(&attr, 1, "value");
  pb_msg(&attr, 5, &val);
  pb_int(&attr, 20, 4); /* AttributeProto.type = TENSOR */
  pb_msg(&attrs, 5, &attr);
  const char *in[1] = {"shape"}, *out[1] = {"c"};
  pb_node(&g, "ConstantOfShape", "cos", in, 1, out, 1, &attrs);
  char name[32];
  for (int i = 0; i < 4000; i++) {
    snprintf(name, sizeof name, "n%d", i);
    const char *ni[1] = {"c"}, *no[1] = {name};
    pb_node(&g, "Neg", NULL, ni, 1, no, 1, NULL);
  }
  /* r = Reshape(last, Shape(last)): its dims are known only if the Shape
   * folds. Past the budget the 64K-element Negs no longer fold, but a
   * one-element Shape still does (NNS__FOLD_SMALL): every command must
   * show the same known dims. */
  const char *si[1] = {name}, *so[1] = {"s"}, *ri[2] = {name, "s"},
             *ro[1] = {"r"};
  pb_node(&g, "Shape", "shape_of_last", si, 1, so, 1, NULL);
  pb_node(&g, "Reshape", "reshape", ri, 2, ro, 1, NULL);
  pb_value_info(&g, 12, "r", -1, 0, NULL, NULL);
  finish(dir, "fold_neg.onnx", &g, 13);
}

/* The small values that fold past the budget (NNS__FOLD_SMALL), as many
 * as a file under 1 MB holds: a 56-element int64 initializer s (its fold
 * takes just under 1 KiB) read by `count` Neg nodes. */
static void make_fold_small(const char *dir, int count) {
  pb g = {0}, t = {0};
  pb_str(&g, 2, "fold_small");
  int64_t n = 56, vals[56];
  for (int i = 0; i < 56; i++)
    vals[i] = i;
  tensor(&t, "s", INT64, &n, 1, vals, sizeof vals);
  pb_msg(&g, 5, &t);
  char name[32];
  for (int i = 0; i < count; i++) {
    snprintf(name, sizeof name, "%x", i);
    const char *ni[1] = {"s"}, *no[1] = {name};
    pb_node(&g, "Neg", NULL, ni, 1, no, 1, NULL);
  }
  pb_value_info(&g, 12, name, -1, 0, NULL, NULL);
  finish(dir, "fold_small.onnx", &g, 13);
}

/* a0 = Add(w, w); a[i] = Add(a[i-1], w), `count` nodes in all. */
static void make_fold_add(const char *dir, const char *file, int count,
                          int dtype) {
  pb g = {0}, t = {0};
  pb_str(&g, 2, "fold_add");
  int64_t n = FOLD_ELEMS;
  size_t bytes = (size_t)FOLD_ELEMS * (dtype == FLOAT16 ? 2 : 4);
  unsigned char *raw = calloc(1, bytes);
  if (!raw)
    abort();
  tensor(&t, "w", dtype, &n, 1, raw, bytes);
  free(raw);
  pb_msg(&g, 5, &t);
  char prev[16] = "w", cur[16];
  for (int i = 0; i < count; i++) {
    snprintf(cur, sizeof cur, "%x", i); /* short names: a small file */
    const char *in[2] = {prev, "w"}, *out[1] = {cur};
    pb_node(&g, "Add", NULL, in, 2, out, 1, NULL);
    memcpy(prev, cur, sizeof prev);
  }
  pb_value_info(&g, 12, prev, -1, 0, NULL, NULL);
  finish(dir, file, &g, 13);
}

/* Every printed name carries control characters or invalid UTF-8. */
static void make_names(const char *dir) {
  pb g = {0}, t = {0}, attrs = {0};
  pb_str(&g, 2, "graph\x1b[31mRED\x07");
  const char *sym[4] = {"b\x1b]0;title\x07", NULL, NULL, NULL};
  int64_t xd[4] = {-1, 3, 8, 8}, wd[4] = {4, 3, 3, 3};
  pb_value_info(&g, 11, "in\x1b[2J\xff", FLOAT, 4, xd, sym);
  static float w[4 * 3 * 3 * 3];
  tensor(&t, "w\x1b[5m", FLOAT, wd, 4, w, sizeof w);
  pb_msg(&g, 5, &t);
  const char *cin[2] = {"in\x1b[2J\xff", "w\x1b[5m"}, *cout[1] = {"conv\r"};
  pb attr = {0};
  pb_str(&attr, 1, "pads");
  for (int i = 0; i < 4; i++)
    pb_int(&attr, 8, 1);
  pb_int(&attr, 20, 7); /* INTS */
  pb_msg(&attrs, 5, &attr);
  pb_node(&g, "Conv", "/blk\x1b[1m\xc2\x9b" "31m/conv\xfe/Conv", cin, 2, cout,
          1, &attrs);
  const char *rin[1] = {"conv\r"}, *rout[1] = {"relu\x7f"};
  pb_node(&g, "Relu", "/blk\x1b[1m\xc2\x9b" "31m/act\x0b/Relu", rin, 1, rout,
          1, NULL);
  /* An unknown op of an unknown domain: listed by name in every report. */
  pb evil = {0};
  pb_str(&evil, 1, "relu\x7f");
  pb_str(&evil, 2, "y\x1b[0m\x9b");
  pb_str(&evil, 3, "/evil\x1b[6n/op");
  pb_str(&evil, 4, "Evil\x1b[5mOp\xc0\xaf");
  pb_str(&evil, 7, "x.\x1b[7m");
  pb_msg(&g, 1, &evil);
  pb_value_info(&g, 12, "y\x1b[0m\x9b", -1, 0, NULL, NULL);
  pb model = {0}, op = {0}, op2 = {0};
  pb_int(&model, 1, 8);
  pb_str(&model, 2, "pbenc\x1b[31m");
  pb_msg(&model, 7, &g);
  pb_str(&op, 1, "");
  pb_int(&op, 2, 13);
  pb_msg(&model, 8, &op);
  pb_str(&op2, 1, "x.\x1b[7m");
  pb_int(&op2, 2, 1);
  pb_msg(&model, 8, &op2);
  write_file(dir, "names.onnx", &model);
  pb_free(&model);
}

/* Y = Reshape(X[16], shape) with shape (int64 [2]) in "shape.bin"; an
 * unused int64 [4] tensor in "short.bin". */
static void make_ext_link(const char *dir) {
  pb g = {0}, t = {0}, t2 = {0};
  pb_str(&g, 2, "ext_link");
  int64_t xd = 16, two = 2, four = 4;
  pb_value_info(&g, 11, "X", FLOAT, 1, &xd, NULL);
  ext_tensor(&t, "shape", INT64, &two, 1, "shape.bin");
  pb_msg(&g, 5, &t);
  ext_tensor(&t2, "unused", INT64, &four, 1, "short.bin");
  pb_msg(&g, 5, &t2);
  const char *in[2] = {"X", "shape"}, *out[1] = {"Y"};
  pb_node(&g, "Reshape", "reshape", in, 2, out, 1, NULL);
  pb_value_info(&g, 12, "Y", -1, 0, NULL, NULL);
  finish(dir, "ext_link.onnx", &g, 13);
}

/* ==== Running with limits ==== */

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int run(long max_mb, double max_s, char **argv) {
  double t0 = now();
  pid_t pid = fork();
  if (pid < 0) {
    perror("hostile: fork");
    return 2;
  }
  if (pid == 0) {
    execvp(argv[0], argv);
    perror("hostile: exec");
    _exit(127);
  }
  int status = 0;
  struct rusage ru;
  memset(&ru, 0, sizeof ru);
  bool killed = false;
  for (;;) {
    pid_t r = wait4(pid, &status, WNOHANG, &ru);
    if (r == pid)
      break;
    if (r < 0 && errno != EINTR) {
      perror("hostile: wait4");
      return 2;
    }
    if (!killed && now() - t0 > 4 * max_s) {
      kill(pid, SIGKILL); /* the hang guard */
      killed = true;
    }
    struct timespec nap = {0, 2000000};
    nanosleep(&nap, NULL);
  }
  double secs = now() - t0;
  long rss_mb = ru.ru_maxrss / 1024; /* KB on Linux */
  int rc = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  fprintf(stderr, "rc=%d rss_mb=%ld secs=%.2f%s\n", rc, rss_mb, secs,
         killed ? " (killed: hang guard)" : "");
  return rss_mb <= max_mb && secs <= max_s && !killed ? 0 : 3;
}

/* ==== Scanning output ==== */

static int scan(const char *path) {
  FILE *f = fopen(path, "rb");
  if (!f) {
    fprintf(stderr, "hostile: cannot read %s\n", path);
    return 1;
  }
  unsigned char *d = NULL;
  size_t n = 0, cap = 0;
  int c;
  while ((c = getc(f)) != EOF) {
    if (n == cap && !(d = realloc(d, cap = cap ? cap * 2 : 4096)))
      abort();
    d[n++] = (unsigned char)c;
  }
  fclose(f);
  int bad = 0;
  for (size_t i = 0; i < n && !bad;) {
    unsigned char b = d[i];
    size_t len = b < 0x80 ? 1 : b >= 0xf0 ? 4 : b >= 0xe0 ? 3 : b >= 0xc2 ? 2 : 0;
    if (len == 0 || b > 0xf4 || i + len > n) {
      fprintf(stderr, "%s: byte %zu: 0x%02x is not UTF-8\n", path, i, b);
      bad = 1;
      break;
    }
    for (size_t k = 1; k < len; k++)
      if ((d[i + k] & 0xc0) != 0x80) {
        fprintf(stderr, "%s: byte %zu: broken UTF-8 sequence\n", path, i);
        bad = 1;
      }
    if (bad)
      break;
    if ((len == 1 && ((b < 0x20 && b != '\n') || b == 0x7f)) ||
        (len == 2 && b == 0xc2 && d[i + 1] < 0xa0)) {
      fprintf(stderr, "%s: byte %zu: control character 0x%02x%s\n", path, i,
              len == 1 ? b : d[i + 1], len == 2 ? " (C1)" : "");
      bad = 1;
    }
    i += len;
  }
  free(d);
  return bad;
}

int main(int argc, char **argv) {
  if (argc >= 3 && !strcmp(argv[1], "make")) {
    const char *dir = argv[2];
    make_fold_neg(dir);
    make_fold_add(dir, "fold_add.onnx", 8000, FLOAT);
    make_fold_add(dir, "fold_30k.onnx", 30000, FLOAT16);
    make_fold_small(dir, 60000);
    make_names(dir);
    make_ext_link(dir);
    return 0;
  }
  if (argc >= 5 && !strcmp(argv[1], "run"))
    return run(atol(argv[2]), atof(argv[3]), argv + 4);
  if (argc >= 3 && !strcmp(argv[1], "scan")) {
    int bad = 0;
    for (int i = 2; i < argc; i++)
      bad |= scan(argv[i]);
    return bad;
  }
  fprintf(stderr, "usage: hostile make DIR | run MAX_MB MAX_S CMD... | "
                  "scan FILE...\n");
  return 2;
}
