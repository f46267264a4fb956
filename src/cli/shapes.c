/*
 * shapes.c - `nnscan shapes MODEL`: every value's dtype and shape in graph
 * order, as a text table for people or as the JSON contract documented in
 * docs/json.md ("nnscan.shapes", version 1). Both are library reports
 * (NNS_FORMAT_SHAPES_TEXT / _JSON): this file only parses the command.
 */
#include <stdlib.h>
#include <string.h>

#include "cli.h"

const char cli_shapes_usage[] =
    "usage: nnscan shapes MODEL [options]\n"
    "  --input NAME=DIMS      fix a graph input's shape, e.g. "
    "input=1x3x224x224\n"
    "                         (repeatable); NAME may be a dim's name: "
    "batch=8,\n"
    "                         audio_dim2=16000 (an unnamed dim is "
    "<input>_dim<axis>)\n"
    "  --value NAME=V[,V...]  a graph input's contents, for control flow "
    "and shape\n"
    "                         arithmetic: sr=16000 (repeatable)\n"
    "  --batch N              set the first dim of every graph input\n"
    "  --format text|json     output format (default text; json: "
    "docs/json.md)\n"
    "  --fallback             take declared shapes for outputs of unknown "
    "ops,\n"
    "                         and declared dims no rule can know (NonZero's "
    "count)\n"
    "  -o FILE                write to FILE instead of stdout\n";

int cmd_shapes(int argc, char **argv) {
  cli_model_opts o = {.format = "text"};
  for (int i = 1; i < argc; i++) {
    int r = cli_common_arg(&o, argc, argv, &i, cli_shapes_usage, NULL);
    if (r == CLI_ARG_HELP || r == CLI_ARG_BAD) {
      cli_model_opts_free(&o);
      return r == CLI_ARG_HELP ? EXIT_OK : EXIT_USAGE;
    }
    if (r == CLI_ARG_TAKEN)
      continue;
    if (argv[i][0] == '-' && argv[i][1]) {
      fprintf(stderr, "nnscan shapes: unknown option '%s'\n", argv[i]);
      cli_model_opts_free(&o);
      return EXIT_USAGE;
    }
    if (o.path) {
      fprintf(stderr, "nnscan shapes: one model at a time\n");
      cli_model_opts_free(&o);
      return EXIT_USAGE;
    }
    o.path = argv[i];
  }
  int rc = EXIT_USAGE;
  if (!o.path)
    fputs(cli_shapes_usage, stderr);
  else if (strcmp(o.format, "text") && strcmp(o.format, "json"))
    fprintf(stderr, "nnscan shapes: --format is text or json, not '%s'\n",
            o.format);
  else
    rc = EXIT_FAIL;
  nns_model *m = rc == EXIT_FAIL ? cli_load(&o) : NULL;
  if (m) {
    FILE *f = cli_open_output(o.output);
    if (f) {
      nns_report_options ro = {.size = sizeof ro,
                               .format = strcmp(o.format, "json")
                                             ? NNS_FORMAT_SHAPES_TEXT
                                             : NNS_FORMAT_SHAPES_JSON,
                               .model_path = o.path};
      nns_error err;
      nns_status st = nns_report_shapes(m, &ro, cli_write, f, &err);
      if (st != NNS_OK && st != NNS_E_IO) {
        cli_print_error(o.path, &err);
        cli_discard_output(f);
      } else if (cli_close_output(f, o.output) && st == NNS_OK) {
        rc = EXIT_OK;
      }
    }
    nns_model_free(m);
  }
  cli_model_opts_free(&o);
  return rc;
}
