/*
 * summary.c - `nnscan summary MODEL` (and `nnscan MODEL`): every layer's
 * parameters, FLOPs, MACs, memory accesses, receptive field and memory, as
 * a tree table, CSV, Markdown, JSON or an HTML page. Its options are
 * read by the option table (options.c); the analysis is
 * nns_model_analyze() and the rendering nns_report() of it.
 */
#include <stdlib.h>
#include <string.h>

#include "cli.h"

/* " Op x3 (1 no cost rule, 2 size unknown)" for each op kind that went
 * uncounted: an op with a cost rule can still go uncounted when a size is
 * unknown or its rule failed, and the report says why; so does this. */
static void say_uncounted(const nns_analysis *a, size_t nu) {
  for (size_t i = 0; i < nu; i++) {
    const char *dom = "", *op = "";
    size_t n = 0, no_rule = 0, no_size = 0, failed = 0;
    nns_analysis_uncounted_op(a, i, &dom, &op, &n);
    nns_analysis_uncounted_op_why(a, i, &no_rule, &no_size, &failed);
    char cd[256], co[256];
    nns_text_clean(cd, sizeof cd, dom);
    nns_text_clean(co, sizeof co, op);
    fprintf(stderr, "%s %s%s%s x%zu (", i ? "," : "", cd, *cd ? "." : "",
            co, n);
    const char *sep = "";
    if (no_rule)
      fprintf(stderr, "%s%zu no cost rule", sep, no_rule), sep = ", ";
    if (no_size)
      fprintf(stderr, "%s%zu size unknown", sep, no_size), sep = ", ";
    if (failed)
      fprintf(stderr, "%s%zu cost rule failed", sep, failed);
    fputc(')', stderr);
  }
}

/* Whether op dom.op is among the first nu uncounted ops. */
static bool is_uncounted(const nns_analysis *a, size_t nu, const char *dom,
                         const char *op) {
  for (size_t j = 0; j < nu; j++) {
    const char *d2 = "", *o2 = "";
    size_t n2 = 0;
    nns_analysis_uncounted_op(a, j, &d2, &o2, &n2);
    if (!strcmp(d2, dom) && !strcmp(o2, op))
      return true;
  }
  return false;
}

/* " Op x2 (no shape rule)" for each unknown op not said already (an
 * unknown op usually has no cost rule either: it is named once); true
 * when it said any, or `listed`. */
static bool say_unknown(const nns_analysis *a, size_t nu, bool listed) {
  for (size_t i = 0; i < nns_analysis_unknown_op_count(a); i++) {
    const char *dom = "", *op = "";
    size_t n = 0;
    nns_analysis_unknown_op(a, i, &dom, &op, &n);
    if (is_uncounted(a, nu, dom, op))
      continue;
    char cd[256], co[256];
    nns_text_clean(cd, sizeof cd, dom);
    nns_text_clean(co, sizeof co, op);
    fprintf(stderr, "%s %s%s%s x%zu (no shape rule)", listed ? "," : "", cd,
            *cd ? "." : "", co, n);
    listed = true;
  }
  return listed;
}

/* Says on stderr what a strict run could not count; true if anything. */
static bool incomplete(const nns_analysis *a, const char *path) {
  nns_counts all = {.size = sizeof all};
  nns_analysis_total_counts(a, &all);
  size_t nu = nns_analysis_uncounted_op_count(a);
  size_t nk = nns_analysis_unknown_op_count(a);
  bool bad = nu || nk || (all.flags & (NNS_COUNT_PARTIAL |
                                       NNS_COUNT_UNBOUNDED |
                                       NNS_COUNT_OVERFLOW));
  if (!bad)
    return false;
  char p[1024];
  nns_text_clean(p, sizeof p, path);
  fprintf(stderr, "nnscan: %s: --strict: counts are incomplete:", p);
  say_uncounted(a, nu);
  bool listed = say_unknown(a, nu, nu > 0);
  if (all.flags & NNS_COUNT_UNBOUNDED) {
    fprintf(stderr, "%s a loop with an unknown trip count",
            listed ? "," : "");
    listed = true;
  }
  if (all.flags & NNS_COUNT_OVERFLOW)
    fprintf(stderr, "%s counts saturated at 2^63-1", listed ? "," : "");
  fputc('\n', stderr);
  return true;
}

/* The rules between options, once all are read: a model, a format the
 * summary writes, the columns asked for (--rf and --hardware add theirs),
 * the width, --dtype and the device's figures only with --hardware,
 * --budget only with --parallel. False after saying what is wrong. */
static bool settle_options(cli_args *a) {
  cli_model_opts *o = &a->model;
  nns_report_options *ro = &a->report;
  ro->numbers = (nns_numbers)a->numbers;
  ro->wrap = (nns_wrap)a->wrap;
  a->analyze.optimizer = (nns_optimizer)a->optimizer;
  a->analyze.compute_dtype =
      a->dtype >= 0 ? nns_compute_dtype_name(a->dtype) : NULL;
  o->path = a->file_count ? a->files[0] : NULL;
  if (!o->path) {
    cli_usage(a->cmd, stderr);
    return false;
  }
  if (!cli_pick_format("summary", o->format, a->cmd->formats,
                       a->cmd->format_count, &ro->format))
    return false;
  if (!a->columns_given)
    ro->columns = NNS_COL_DEFAULT;
  if (a->rf)
    ro->columns |= NNS_COL_RF;
  if (a->hardware)
    ro->columns |= NNS_COL_BYTES | NNS_COL_ROOF;
  if (!ro->width)
    ro->width = o->output ? 100 : cli_terminal_width();
  if (!a->hardware && (a->analyze.compute_dtype || a->peak_flops != 0 ||
                       a->bandwidth != 0)) {
    fputs("nnscan summary: --dtype, --peak-flops and --bandwidth go with "
          "--hardware NAME\n", stderr);
    return false;
  }
  if (a->parallel.budget_bytes && !a->parallel_given) {
    fputs("nnscan summary: --budget goes with --parallel\n", stderr);
    return false;
  }
  return true;
}

/* The device of --hardware into *hw, which the analysis then runs the
 * roofline on (*list: the user's devices, which *hw may point into, freed
 * by the caller); false after saying why. */
static bool pick_hardware(cli_args *a, nns_hardware_list **list,
                          nns_hardware *hw) {
  if (!a->hardware)
    return true;
  if (!cli_hardware_open(a->hardware_file, list) ||
      !cli_hardware_pick(a->hardware, *list, a->peak_flops, a->bandwidth, hw))
    return false;
  a->analyze.hardware = hw;
  return true;
}

/* Loads the model into *m (freed by the caller) and analyses it, as one
 * rank of --parallel's job when given; NULL after saying why. */
static nns_analysis *analyse(const cli_args *a, nns_model **m) {
  *m = cli_load(&a->model);
  if (!*m)
    return NULL;
  nns_error err;
  nns_analysis *an = NULL;
  if ((a->parallel_given &&
       nns_model_set_parallel(*m, &a->parallel, &err) != NNS_OK) ||
      nns_model_analyze(*m, &a->analyze, &an, &err) != NNS_OK) {
    cli_print_error(a->model.path, &err);
    return NULL;
  }
  return an;
}

/* The report, to -o FILE or stdout; true when all of it was written. */
static bool write_report(const cli_args *a, const nns_analysis *an) {
  const char *path = a->model.path, *output = a->model.output;
  nns_report_options ro = a->report;
  char name[256];
  ro.model_name = cli_model_name(path, name, sizeof name);
  ro.model_path = path;
  FILE *out = cli_open_output(output);
  if (!out)
    return false;
  nns_error err;
  nns_status st = nns_report(an, &ro, cli_write, out, &err);
  /* NNS_E_IO is the writer's failure: cli_close_output names the file
   * and the reason. */
  if (st != NNS_OK && st != NNS_E_IO) {
    cli_print_error(path, &err);
    cli_discard_output(out);
    return false;
  }
  return cli_close_output(out, output) && st == NNS_OK;
}

int cmd_summary(int argc, char **argv) {
  cli_args a;
  int rc = cli_parse(CLI_SUMMARY, argc, argv, &a);
  if (rc >= 0)
    return rc;
  nns_hardware hw;
  nns_hardware_list *hw_list = NULL;
  nns_model *m = NULL;
  nns_analysis *an = NULL;
  rc = EXIT_USAGE;
  if (settle_options(&a)) {
    rc = EXIT_FAIL;
    if (pick_hardware(&a, &hw_list, &hw) && (an = analyse(&a, &m)) &&
        write_report(&a, an))
      rc = a.strict && incomplete(an, a.model.path) ? EXIT_INCOMPLETE
                                                    : EXIT_OK;
  }
  nns_analysis_free(an);
  nns_model_free(m);
  nns_hardware_list_free(hw_list);
  cli_args_free(&a);
  return rc;
}
