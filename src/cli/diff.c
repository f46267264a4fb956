/*
 * diff.c - `nnscan diff A B`: what changed between two models, or two runs
 * of one. A and B are ONNX files (analysed here into "nnscan.summary" v2
 * documents in memory) or saved summary JSON (v1 or v2); the comparison
 * itself is the library's nns_diff_report. --fail-if budgets make it a CI
 * gate: exit 4 when a budget is exceeded, 5 when one could not be checked
 * (docs/cli.md).
 */
#include <stdlib.h>
#include <string.h>

#include "cli.h"

enum { EXIT_BUDGET = 4, EXIT_UNCHECKED = 5 };

typedef struct buf {
  char *data;
  size_t len, cap;
} buf;

static int buf_write(void *user, const char *data, size_t size) {
  buf *b = user;
  if (b->len + size + 1 > b->cap) {
    size_t cap = b->cap ? b->cap : 65536;
    while (cap < b->len + size + 1)
      cap *= 2;
    char *p = realloc(b->data, cap);
    if (!p)
      return 1;
    b->data = p;
    b->cap = cap;
  }
  memcpy(b->data + b->len, data, size);
  b->len += size;
  b->data[b->len] = 0;
  return 0;
}

/* A saved document: the file starts with '{' after white space. */
static bool read_json_file(const char *path, buf *b, bool *is_json) {
  FILE *f = fopen(path, "rb");
  if (!f) {
    fprintf(stderr, "nnscan diff: cannot read '%s'\n", path);
    return false;
  }
  int c;
  while ((c = fgetc(f)) == ' ' || c == '\n' || c == '\r' || c == '\t')
    ;
  *is_json = c == '{';
  if (*is_json) {
    char chunk[65536];
    size_t n;
    rewind(f);
    while ((n = fread(chunk, 1, sizeof chunk, f)) > 0)
      if (buf_write(b, chunk, n)) {
        fprintf(stderr, "nnscan diff: out of memory reading '%s'\n", path);
        fclose(f);
        return false;
      }
  }
  fclose(f);
  return true;
}

/* The document of one side: the file itself, or its analysis as v2. */
static bool side(const char *path, cli_model_opts *o, buf *b) {
  bool is_json = false;
  if (!read_json_file(path, b, &is_json))
    return false;
  if (is_json)
    return true;
  o->path = path;
  nns_model *m = cli_load(o);
  if (!m)
    return false;
  nns_error err;
  char name[256];
  nns_report_options ro = {.size = sizeof ro, .format = NNS_FORMAT_JSON,
                           .max_depth = NNS_DEPTH_ALL, .json_version = 2,
                           .model_name = cli_model_name(path, name, sizeof name),
                           .model_path = path};
  nns_analysis *a = NULL;
  bool ok = nns_model_analyze(m, NULL, &a, &err) == NNS_OK &&
            nns_report(a, &ro, buf_write, b, &err) == NNS_OK;
  if (!ok)
    cli_print_error(path, &err);
  nns_analysis_free(a);
  nns_model_free(m);
  return ok;
}

int cmd_diff(int argc, char **argv) {
  cli_args a;
  int rc = cli_parse(CLI_DIFF, argc, argv, &a);
  if (rc >= 0)
    return rc;
  buf sides[2] = {{0}, {0}};
  nns_report_format format;
  rc = EXIT_USAGE;
  if (!cli_pick_format("diff", a.model.format, a.cmd->formats,
                       a.cmd->format_count, &format))
    goto done;
  if (a.file_count != 2) {
    fprintf(stderr, "nnscan diff: %s\n", a.cmd->too_many);
    cli_usage(a.cmd, stderr);
    goto done;
  }
  rc = EXIT_FAIL;
  if (!side(a.files[0], &a.model, &sides[0]) ||
      !side(a.files[1], &a.model, &sides[1]))
    goto done;
  FILE *out = cli_open_output(a.model.output);
  if (!out)
    goto done;
  nns_diff_options dopt = {.size = sizeof dopt, .format = format,
                           .budgets = a.budgets ? a.budgets : ""};
  nns_diff_result res = {.size = sizeof res};
  nns_error err;
  nns_status st = nns_diff_report(sides[0].data, sides[0].len, sides[1].data,
                                  sides[1].len, &dopt, cli_write, out, &res,
                                  &err);
  if (st != NNS_OK && st != NNS_E_IO) {
    fprintf(stderr, "nnscan diff: %s\n", err.message);
    cli_discard_output(out);
    rc = st == NNS_E_ARG && strstr(err.message, "budget") ? EXIT_USAGE
                                                          : EXIT_FAIL;
    goto done;
  }
  if (!cli_close_output(out, a.model.output) || st != NNS_OK)
    goto done;
  rc = res.exceeded ? EXIT_BUDGET : res.withheld ? EXIT_UNCHECKED : EXIT_OK;
done:
  free(sides[0].data);
  free(sides[1].data);
  cli_args_free(&a);
  return rc;
}
