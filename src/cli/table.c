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

const char cli_table_usage[] =
    "usage: nnscan table FILES... [options]\n"
    "  --format md|csv|text|html  output format (default md); html is one "
    "page with\n"
    "                         the table and the scatter, interactive\n"
    "  --plot FILE.svg        also draw MACs against parameters as SVG\n"
    "  --input NAME=DIMS      fix a graph input's shape or a named dim "
    "(batch=8,\n"
    "                         height=640) in every model that has it; "
    "symbolic dims\n"
    "                         left unfixed are taken as 1 and the row is "
    "marked *\n"
    "  --value NAME=V[,V...]  a graph input's contents (control flow, shape "
    "arithmetic)\n"
    "  --batch N              set the first dim of every graph input\n"
    "  --fallback             take declared shapes for unknown ops' outputs\n"
    "                         and declared dims no rule can know (NonZero's "
    "count)\n"
    "  -o FILE                write the table to FILE instead of stdout\n";

int cmd_table(int argc, char **argv) {
  cli_model_opts o = {.format = nns_report_format_name(NNS_FORMAT_MD)};
  const char *plot = NULL;
  int rc = EXIT_USAGE;
  const char **files = calloc((size_t)argc + 1, sizeof *files);
  nns_table *rows = NULL;
  nns_table_new(&rows, NULL);
  char name[256];
  size_t nfiles = 0;
  if (!files || !rows) {
    fprintf(stderr, "nnscan: out of memory\n");
    rc = EXIT_FAIL;
    goto done;
  }
  for (int i = 1; i < argc; i++) {
    int r = cli_common_arg(&o, argc, argv, &i, cli_table_usage, NULL);
    if (r == CLI_ARG_HELP)
      rc = EXIT_OK;
    if (r == CLI_ARG_HELP || r == CLI_ARG_BAD)
      goto done;
    if (r == CLI_ARG_TAKEN)
      continue;
    if (!strcmp(argv[i], "--plot")) {
      if (i + 1 >= argc) {
        fprintf(stderr, "nnscan table: --plot needs a file name\n");
        goto done;
      }
      plot = argv[++i];
    } else if (argv[i][0] == '-' && argv[i][1]) {
      fprintf(stderr, "nnscan table: unknown option '%s'\n", argv[i]);
      goto done;
    } else {
      files[nfiles++] = argv[i];
    }
  }
  static const nns_report_format formats[] = {
      NNS_FORMAT_MD, NNS_FORMAT_CSV, NNS_FORMAT_TEXT, NNS_FORMAT_HTML};
  nns_report_options ro = {.size = sizeof ro};
  if (!cli_pick_format("table", o.format, formats,
                       sizeof formats / sizeof *formats, &ro.format))
    goto done;
  if (!nfiles) {
    fputs(cli_table_usage, stderr);
    goto done;
  }
  rc = EXIT_FAIL;
  bool input_used[64] = {false}, value_used[64] = {false};
  for (size_t k = 0; k < nfiles; k++) {
    o.path = files[k];
    nns_model *m = cli_load_some(&o, input_used, value_used);
    if (!m)
      goto done;
    nns_error err;
    nns_analysis *an = NULL;
    if (nns_model_analyze(m, NULL, &an, &err) != NNS_OK) {
      cli_print_error(o.path, &err);
      nns_model_free(m);
      goto done;
    }
    nns_status st = nns_table_add(
        rows, cli_model_name(files[k], name, sizeof name), an, &err);
    nns_analysis_free(an);
    nns_model_free(m);
    if (st != NNS_OK) {
      cli_print_error(o.path, &err);
      goto done;
    }
  }
  /* An option no model could take is a mistake (a typo in a name). */
  for (size_t k = 0; k < o.input_count + o.value_count; k++) {
    bool in = k < o.input_count;
    if (in ? input_used[k] : value_used[k - o.input_count])
      continue;
    char n[256];
    nns_text_clean(n, sizeof n,
                   in ? o.inputs[k].name : o.values[k - o.input_count].name);
    fprintf(stderr, "nnscan table: %s %s: no model has an input%s called "
                    "'%s'\n", in ? "--input" : "--value", n,
            in ? " or input dim" : "", n);
    rc = EXIT_USAGE;
    goto done;
  }
  nns_error err;
  FILE *out = cli_open_output(o.output);
  if (!out)
    goto done;
  nns_status st = nns_report_table(rows, &ro, cli_write, out, &err);
  if (st != NNS_OK && st != NNS_E_IO) {
    cli_print_error(cli_output_name(o.output), &err);
    cli_discard_output(out);
    goto done;
  }
  if (!cli_close_output(out, o.output) || st != NNS_OK)
    goto done;
  if (plot) {
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
  cli_model_opts_free(&o);
  free(files);
  nns_table_free(rows);
  return rc;
}
