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
  cli_args a;
  int rc = cli_parse(CLI_SHAPES, argc, argv, &a);
  if (rc >= 0)
    return rc;
  const cli_command *cmd = a.cmd;
  cli_model_opts *o = &a.model;
  o->path = a.file_count ? a.files[0] : NULL;
  nns_report_format format = NNS_FORMAT_TEXT;
  rc = EXIT_USAGE;
  if (!o->path)
    cli_usage(cmd, stderr);
  else if (cli_pick_format(cmd->name, o->format, cmd->formats,
                           cmd->format_count, &format))
    rc = EXIT_FAIL;
  nns_model *m = rc == EXIT_FAIL ? cli_load(o) : NULL;
  if (m) {
    FILE *f = cli_open_output(o->output);
    if (f) {
      nns_report_options ro = {.size = sizeof ro,
                               .format = format == NNS_FORMAT_JSON
                                             ? NNS_FORMAT_SHAPES_JSON
                                             : NNS_FORMAT_SHAPES_TEXT,
                               .model_path = o->path};
      nns_error err;
      nns_status st = nns_report_shapes(m, &ro, cli_write, f, &err);
      if (st != NNS_OK && st != NNS_E_IO) {
        cli_print_error(o->path, &err);
        cli_discard_output(f);
      } else if (cli_close_output(f, o->output) && st == NNS_OK) {
        rc = EXIT_OK;
      }
    }
    nns_model_free(m);
  }
  cli_args_free(&a);
  return rc;
}
