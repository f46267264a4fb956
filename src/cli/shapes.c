/*
 * shapes.c - `nnscan shapes MODEL`: every value's dtype and shape in graph
 * order, as a text table for people or as the JSON contract documented in
 * docs/json.md ("nnscan.shapes", version 1). Both are library reports
 * (NNS_FORMAT_SHAPES_TEXT / _JSON): this file only parses the command.
 */
#include <stdlib.h>
#include <string.h>

#include "cli.h"

int cmd_shapes(int argc, char **argv) {
  cli_model_opts o = {.format = "text"};
  for (int i = 1; i < argc; i++) {
    int r = cli_parse_model_opt(&o, argc, argv, &i);
    if (r < 0)
      return EXIT_USAGE;
    if (r > 0)
      continue;
    if (argv[i][0] == '-' && argv[i][1]) {
      fprintf(stderr, "nnscan shapes: unknown option '%s'\n", argv[i]);
      return EXIT_USAGE;
    }
    if (o.path) {
      fprintf(stderr, "nnscan shapes: one model at a time\n");
      return EXIT_USAGE;
    }
    o.path = argv[i];
  }
  int rc = EXIT_USAGE;
  if (!o.path)
    fprintf(stderr, "usage: nnscan shapes MODEL [--input NAME=DIMS]... "
                    "[--value NAME=V[,V...]]... [--batch N] [--format text|json] [--fallback] [-o FILE]\n");
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
      if (nns_report(m, &ro, cli_write, f, &err) == NNS_OK)
        rc = EXIT_OK;
      else
        cli_print_error(cli_output_name(o.output), &err);
      if (!cli_close_output(f, o.output))
        rc = EXIT_FAIL;
    }
    nns_model_free(m);
  }
  cli_model_opts_free(&o);
  return rc;
}
