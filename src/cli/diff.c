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

const char cli_diff_usage[] =
    "usage: nnscan diff A B [options]   (A, B: ONNX files or saved "
    "summary JSON)\n"
    "  --format text|json|html  output format (default text); html shows "
    "before and\n"
    "                         after side by side\n"
    "  --fail-if BUDGET       exit 4 when the totals' change passes it, e.g.\n"
    "                         'macs > +5%', 'params > +0', 'flops >= "
    "+1000000'\n"
    "                         (repeatable; exit 5 when a delta is withheld)\n"
    "  --input NAME=DIMS, --value NAME=V, --batch N, --fallback   as for "
    "summary,\n"
    "                         for the ONNX files\n"
    "  -o FILE                write to FILE instead of stdout\n";

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
  cli_model_opts o = {.format = nns_report_format_name(NNS_FORMAT_TEXT)};
  const char *files[2] = {NULL, NULL};
  size_t nfiles = 0, budgets_len = 1;
  int rc = EXIT_USAGE;
  buf sides[2] = {{0}, {0}};
  /* Every --fail-if joined with ", ": never longer than argv itself. */
  for (int i = 1; i < argc; i++)
    budgets_len += strlen(argv[i]) + 2;
  char *budgets = calloc(budgets_len, 1);
  if (!budgets) {
    fprintf(stderr, "nnscan: out of memory\n");
    return EXIT_FAIL;
  }
  for (int i = 1; i < argc; i++) {
    int r = cli_common_arg(&o, argc, argv, &i, cli_diff_usage, NULL);
    if (r == CLI_ARG_HELP)
      rc = EXIT_OK;
    if (r == CLI_ARG_HELP || r == CLI_ARG_BAD)
      goto done;
    if (r == CLI_ARG_TAKEN)
      continue;
    if (!strcmp(argv[i], "--fail-if")) {
      if (i + 1 >= argc) {
        fprintf(stderr, "nnscan diff: --fail-if needs a budget\n");
        goto done;
      }
      const char *b = argv[++i];
      if (!b[strspn(b, " \t")]) {
        fprintf(stderr, "nnscan diff: --fail-if '%s' is no budget (METRIC OP "
                        "[+|-]N[%%], e.g. 'macs > +5%%')\n", b);
        goto done;
      }
      if (*budgets)
        strcat(budgets, ", ");
      strcat(budgets, b);
    } else if (argv[i][0] == '-' && argv[i][1]) {
      fprintf(stderr, "nnscan diff: unknown option '%s'\n%s", argv[i],
              cli_diff_usage);
      goto done;
    } else if (nfiles < 2) {
      files[nfiles++] = argv[i];
    } else {
      fprintf(stderr, "nnscan diff: two files, A and B\n%s", cli_diff_usage);
      goto done;
    }
  }
  static const nns_report_format formats[] = {
      NNS_FORMAT_TEXT, NNS_FORMAT_JSON, NNS_FORMAT_HTML};
  nns_report_format format;
  if (!cli_pick_format("diff", o.format, formats,
                       sizeof formats / sizeof *formats, &format))
    goto done;
  if (nfiles != 2) {
    fprintf(stderr, "nnscan diff: two files, A and B\n%s", cli_diff_usage);
    goto done;
  }
  rc = EXIT_FAIL;
  if (!side(files[0], &o, &sides[0]) || !side(files[1], &o, &sides[1]))
    goto done;
  FILE *out = cli_open_output(o.output);
  if (!out)
    goto done;
  nns_diff_options dopt = {.size = sizeof dopt, .format = format,
                           .budgets = budgets};
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
  if (!cli_close_output(out, o.output) || st != NNS_OK)
    goto done;
  rc = res.exceeded ? EXIT_BUDGET : res.withheld ? EXIT_UNCHECKED : EXIT_OK;
done:
  free(sides[0].data);
  free(sides[1].data);
  free(budgets);
  cli_model_opts_free(&o);
  return rc;
}
