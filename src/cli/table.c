/*
 * table.c - `nnscan table FILES...`: one row per model (Params, FLOPs,
 * MACs, DMAs, receptive field) as Markdown, CSV or an HTML page (with the
 * scatter, interactive), and with --plot an SVG scatter of MACs against
 * parameters. Each model is loaded, analysed and freed in turn; only its
 * row of the table (nns_table) is kept.
 */
#include <stdlib.h>
#include <string.h>

#include "cli.h"

int cmd_table(int argc, char **argv) {
  cli_args a;
  int rc = cli_parse(CLI_TABLE, argc, argv, &a);
  if (rc >= 0)
    return rc;
  cli_model_opts *o = &a.model;
  nns_table *rows = NULL;
  nns_report_options ro = {.size = sizeof ro};
  char name[256];
  rc = EXIT_USAGE;
  if (!cli_pick_format("table", o->format, a.cmd->formats,
                       a.cmd->format_count, &ro.format))
    goto done;
  if (!a.file_count) {
    cli_usage(a.cmd, stderr);
    goto done;
  }
  rc = EXIT_FAIL;
  if (nns_table_new(&rows, NULL) != NNS_OK) {
    fprintf(stderr, "nnscan: out of memory\n");
    goto done;
  }
  bool input_used[64] = {false}, value_used[64] = {false};
  for (size_t k = 0; k < a.file_count; k++) {
    o->path = a.files[k];
    nns_model *m = cli_load_some(o, input_used, value_used);
    if (!m)
      goto done;
    nns_error err;
    nns_analysis *an = NULL;
    if (nns_model_analyze(m, NULL, &an, &err) != NNS_OK) {
      cli_print_error(o->path, &err);
      nns_model_free(m);
      goto done;
    }
    nns_status st = nns_table_add(
        rows, cli_model_name(a.files[k], name, sizeof name), an, &err);
    nns_analysis_free(an);
    nns_model_free(m);
    if (st != NNS_OK) {
      cli_print_error(o->path, &err);
      goto done;
    }
  }
  /* An option no model could take is a mistake (a typo in a name). */
  for (size_t k = 0; k < o->input_count + o->value_count; k++) {
    bool in = k < o->input_count;
    if (in ? input_used[k] : value_used[k - o->input_count])
      continue;
    char n[256];
    nns_text_clean(n, sizeof n,
                   in ? o->inputs[k].name : o->values[k - o->input_count].name);
    fprintf(stderr, "nnscan table: %s %s: no model has an input%s called "
                    "'%s'\n", in ? "--input" : "--value", n,
            in ? " or input dim" : "", n);
    rc = EXIT_USAGE;
    goto done;
  }
  nns_error err;
  FILE *out = cli_open_output(o->output);
  if (!out)
    goto done;
  nns_status st = nns_report_table(rows, &ro, cli_write, out, &err);
  if (st != NNS_OK && st != NNS_E_IO) {
    cli_print_error(cli_output_name(o->output), &err);
    cli_discard_output(out);
    goto done;
  }
  if (!cli_close_output(out, o->output) || st != NNS_OK)
    goto done;
  if (a.plot) {
    const char *plot = a.plot;
    FILE *pf = cli_open_output(plot);
    if (!pf)
      goto done;
    st = nns_report_plot(rows, cli_write, pf, &err);
    if (st != NNS_OK && st != NNS_E_IO) {
      cli_print_error(plot, &err);
      cli_discard_output(pf);
      goto done;
    }
    if (!cli_close_output(pf, plot) || st != NNS_OK)
      goto done;
  }
  rc = EXIT_OK;
done:
  cli_args_free(&a);
  nns_table_free(rows);
  return rc;
}
