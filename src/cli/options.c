/*
 * options.c - the command line's one table: every command (its operands,
 * its line in `nnscan -h`, its formats) and every option (its names, what
 * its value looks like, which commands take it, where it is stored and
 * its help line). One parser (cli_parse) walks argv against the table for
 * every command, and every command's help (cli_usage) is written from it:
 * an option the parser takes is an option the help lists. Choices named
 * by the library (optimizers, dtypes, number styles, columns) are read
 * from it, never retyped here.
 */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

/* ==== Commands ==== */

static const nns_report_format summary_formats[] = {
    NNS_FORMAT_TEXT, NNS_FORMAT_CSV, NNS_FORMAT_MD, NNS_FORMAT_JSON,
    NNS_FORMAT_HTML};
static const nns_report_format table_formats[] = {
    NNS_FORMAT_MD, NNS_FORMAT_CSV, NNS_FORMAT_TEXT, NNS_FORMAT_HTML};
static const nns_report_format text_json[] = {NNS_FORMAT_TEXT,
                                              NNS_FORMAT_JSON};
static const nns_report_format diff_formats[] = {
    NNS_FORMAT_TEXT, NNS_FORMAT_JSON, NNS_FORMAT_HTML};
static const nns_report_format ops_formats[] = {
    NNS_FORMAT_TEXT, NNS_FORMAT_MD, NNS_FORMAT_JSON};

#define FORMATS(list) list, sizeof list / sizeof list[0]

const cli_command cli_commands[] = {
    {"summary", CLI_SUMMARY, "MODEL",
     "parameters, FLOPs, MACs, memory accesses, receptive field and memory "
     "of every layer",
     "nnscan MODEL [options] is the same", FORMATS(summary_formats), 1,
     "one model at a time (see nnscan table)", cmd_summary},
    {"table", CLI_TABLE, "FILES...",
     "one row per model; --plot FILE.svg draws MACs against params", NULL,
     FORMATS(table_formats), -1, NULL, cmd_table},
    {"shapes", CLI_SHAPES, "MODEL",
     "dtype and shape of every value, in graph order", NULL,
     FORMATS(text_json), 1, "one model at a time", cmd_shapes},
    {"diff", CLI_DIFF, "A B",
     "what changed between two models or saved reports; --fail-if "
     "'macs > +5%' for CI",
     "A, B: ONNX files (or .pt2) or saved summary JSON",
     FORMATS(diff_formats), 2, "two files, A and B", cmd_diff},
    {"ops", CLI_OPS, "",
     "the operators nnscan knows, with opset ranges and rules",
     "every operator with its domain, opset range, input roles and rules "
     "(shape, fold, cost, rf); docs/ops.md is --format md",
     FORMATS(ops_formats), 0, NULL, cmd_ops},
    {"hardware", CLI_HARDWARE, "",
     "the devices summary --hardware knows (roofline)",
     "the devices summary --hardware NAME knows: peak dense FLOP/s per "
     "compute dtype and memory bandwidth, each with its datasheet",
     NULL, 0, 0, NULL, cmd_hardware},
    {"version", CLI_VERSION, "", "print the version",
     "nnscan --version is the same", NULL, 0, 0, NULL, cmd_version},
    {NULL, 0, NULL, NULL, NULL, NULL, 0, 0, NULL, NULL}};

const cli_command *cli_command_of(unsigned bit) {
  for (const cli_command *c = cli_commands; c->name; c++)
    if (c->bit == bit)
      return c;
  return NULL;
}

/* ==== Storing values ==== */

/* What one option, and the walk over argv, come to. */
enum { CLI_PARSE_OK, CLI_PARSE_HELP, CLI_PARSE_BAD };

/* Stores an option's value in *a (val is NULL for a flag); false after
 * saying on stderr what is wrong. */
typedef bool set_fn(cli_args *a, const char *val);

static bool set_input(cli_args *a, const char *v) {
  return cli_add_input(&a->model, v);
}
static bool set_value(cli_args *a, const char *v) {
  return cli_add_value(&a->model, v);
}
static bool set_batch(cli_args *a, const char *v) {
  long n;
  if (!cli_parse_int(v, 1, &n)) {
    fprintf(stderr, "nnscan: --batch wants a positive number, got '%s'\n", v);
    return false;
  }
  a->model.batch = n;
  return true;
}
static bool set_fallback(cli_args *a, const char *v) {
  (void)v;
  a->model.infer_flags |= NNS_INFER_FALLBACK_DECLARED;
  return true;
}
static bool set_depth(cli_args *a, const char *v) {
  long n;
  if (!strcmp(v, "all"))
    a->report.max_depth = NNS_DEPTH_ALL;
  else if (cli_parse_int(v, 1, &n) && n < 1000000)
    a->report.max_depth = (int)n;
  else {
    fprintf(stderr, "nnscan summary: --depth wants N >= 1 or 'all', got "
                    "'%s'\n", v);
    return false;
  }
  return true;
}
static bool set_columns(cli_args *a, const char *v) {
  return (a->columns_given = cli_parse_columns(v, &a->report.columns));
}
static bool set_json_version(cli_args *a, const char *v) {
  long n;
  if (!cli_parse_int(v, 1, &n) || n > 2) {
    fprintf(stderr, "nnscan summary: --json-version is 1 or 2, not '%s'\n",
            v);
    return false;
  }
  a->report.json_version = (int)n;
  return true;
}
static bool set_width(cli_args *a, const char *v) {
  long n;
  if (!cli_parse_int(v, 20, &n) || n > 100000) {
    fprintf(stderr, "nnscan summary: --width wants a number >= 20, got "
                    "'%s'\n", v);
    return false;
  }
  a->report.width = (int)n;
  return true;
}
static bool set_parallel(cli_args *a, const char *v) {
  return (a->parallel_given = cli_parse_parallel(v, &a->parallel));
}
static bool set_budget(cli_args *a, const char *v) {
  return cli_parse_size(v, &a->parallel.budget_bytes);
}
/* --peak-flops and --bandwidth: the range is the library's (one check
 * for every way in); here only that it is a number, and not 0, which
 * means "not given". */
static bool parse_rate(const char *opt, const char *v, double *out) {
  char *end;
  double d = strtod(v, &end);
  if (*end || end == v || d == 0) {
    fprintf(stderr, "nnscan summary: %s wants a number from 1e6 to 1e21 "
                    "(e.g. 2e12), got '%s'\n", opt, v);
    return false;
  }
  *out = d;
  return true;
}
static bool set_peak_flops(cli_args *a, const char *v) {
  return parse_rate("--peak-flops", v, &a->peak_flops);
}
static bool set_bandwidth(cli_args *a, const char *v) {
  return parse_rate("--bandwidth", v, &a->bandwidth);
}
/* Every --fail-if, joined with ", " (the library reads the list). */
static bool set_fail_if(cli_args *a, const char *v) {
  if (!v[strspn(v, " \t")]) {
    fprintf(stderr, "nnscan diff: --fail-if '%s' is no budget (METRIC OP "
                    "[+|-]N[%%], e.g. 'macs > +5%%')\n", v);
    return false;
  }
  size_t had = a->budgets ? strlen(a->budgets) : 0;
  char *p = realloc(a->budgets, had + strlen(v) + 3);
  if (!p) {
    fprintf(stderr, "nnscan: out of memory\n");
    return false;
  }
  a->budgets = p;
  snprintf(p + had, strlen(v) + 3, "%s%s", had ? ", " : "", v);
  return true;
}

/* ==== The options ==== */

typedef enum kind {
  FLAG,   /* no value */
  VALUE,  /* a value shaped as `metavar` says */
  CHOICE, /* one of the words `words` gives, which are its metavar */
  FORMAT, /* one of the command's formats, which are its metavar */
  HELP    /* -h, --help: prints the help */
} kind;

typedef struct option {
  const char *name;             /* "--depth", or NULL: a short name only */
  const char *short_name;       /* "-o", or NULL */
  kind kind;                    /* what follows it */
  const char *metavar;          /* VALUE: what the value looks like */
  const char *(*words)(int);    /* CHOICE: its words; VALUE: the list the
                                   help's "%s" stands for (NULL past the
                                   last); a FORMAT's "%s" is the command's
                                   default format */
  unsigned commands;            /* the CLI_* bits of the commands taking it */
  bool repeat;                  /* may be given again (the synopsis: ...) */
  size_t field;                 /* without `set`: the offset in cli_args
                                   of the bool a FLAG sets, the int a
                                   CHOICE stores its word's number in, or
                                   the const char * a VALUE keeps */
  set_fn *set;                  /* stores what it is given, checked */
  const char *help;             /* its help line (wrapped when written) */
} option;

#define AT(member) offsetof(cli_args, member)

/* In the order each command's help lists them. Rows of one option name
 * take disjoint sets of commands (their help differs by command). */
static const option options[] = {
    {"--format", NULL, FORMAT, NULL, NULL, CLI_SUMMARY, false,
     AT(model.format), NULL,
     "output format (default %s); html is one self-contained page "
     "(docs/html.md)"},
    {"--format", NULL, FORMAT, NULL, NULL, CLI_TABLE, false, AT(model.format),
     NULL,
     "output format (default %s); html is one page with the table and the "
     "scatter, interactive"},
    {"--format", NULL, FORMAT, NULL, NULL, CLI_SHAPES, false,
     AT(model.format), NULL,
     "output format (default %s; json: docs/json.md)"},
    {"--format", NULL, FORMAT, NULL, NULL, CLI_DIFF, false, AT(model.format),
     NULL,
     "output format (default %s); html shows before and after side by "
     "side"},
    {"--format", NULL, FORMAT, NULL, NULL, CLI_OPS, false, AT(model.format),
     NULL, "output format (default %s)"},
    {"--depth", NULL, VALUE, "N|all", NULL, CLI_SUMMARY, false, 0, set_depth,
     "deepest layer shown (default 2 for text and md, all for csv, json and "
     "html); deeper layers add into their ancestor"},
    {"--numbers", NULL, CHOICE, NULL, nns_numbers_name, CLI_SUMMARY, false,
     AT(numbers), NULL, "1824010216, 1.82 G, or % of the total"},
    {"--json-version", NULL, VALUE, "1|2", NULL, CLI_SUMMARY, false, 0,
     set_json_version,
     "the JSON contract's version (default 1; 2 gives every count a status "
     "and its diagnostics)"},
    {"--columns", NULL, VALUE, "LIST", cli_column_word, CLI_SUMMARY, false, 0,
     set_columns,
     "numeric columns, comma-separated: %s (default params; --hardware adds "
     "bytes and roof)"},
    {"--rf", NULL, FLAG, NULL, NULL, CLI_SUMMARY, false, AT(rf), NULL,
     "add the rf column (receptive field, stride, padding)"},
    {"--optimizer", NULL, CHOICE, NULL, nns_optimizer_name, CLI_SUMMARY,
     false, AT(optimizer), NULL, "for the training estimate (default adam)"},
    {"--parallel", NULL, VALUE, "AXIS=N[,AXIS=N]", NULL, CLI_SUMMARY, false, 0,
     set_parallel,
     "one rank of a data-parallel (dp) or fully-sharded (fsdp) job: its "
     "shards, peak and collectives (tensor and expert parallelism need a "
     "plan: Python's summary(parallel=...))"},
    {"--budget", NULL, VALUE, "SIZE", NULL, CLI_SUMMARY, false, 0, set_budget,
     "with --parallel: does a rank fit (\"80GB\", \"16GiB\" or bytes)"},
    {"--wrap", NULL, CHOICE, NULL, nns_wrap_name, CLI_SUMMARY, false,
     AT(wrap), NULL, "where long names are shortened (default middle)"},
    {"--width", NULL, VALUE, "N", NULL, CLI_SUMMARY, false, 0, set_width,
     "table width (default: the terminal's, else 100)"},
    {"--hardware", NULL, VALUE, "NAME", NULL, CLI_SUMMARY, false,
     AT(hardware), NULL,
     "roofline per layer: bytes, intensity, bound and time on a device "
     "(nnscan hardware lists them)"},
    {"--dtype", NULL, CHOICE, NULL, nns_compute_dtype_name, CLI_SUMMARY, false,
     AT(dtype), NULL,
     "the peak matrix ops run at (default the model's float dtype; tf32, "
     "fp8, int8 apply to matrix ops only)"},
    {"--peak-flops", NULL, VALUE, "F", NULL, CLI_SUMMARY, false, 0,
     set_peak_flops,
     "the device's FLOP/s, for every dtype (the cpu entry needs it and "
     "--bandwidth; others are overridden)"},
    {"--bandwidth", NULL, VALUE, "B", NULL, CLI_SUMMARY, false, 0,
     set_bandwidth, "the device's memory bandwidth in bytes/s"},
    {"--hardware-file", NULL, VALUE, "FILE", NULL, CLI_SUMMARY | CLI_HARDWARE,
     false, AT(hardware_file), NULL,
     "devices of your own, besides the library's ($NNSCAN_HARDWARE_FILE when "
     "not given; docs/roofline.md)"},
    {"--strict", NULL, FLAG, NULL, NULL, CLI_SUMMARY, false, AT(strict), NULL,
     "exit 3 if anything could not be counted"},
    {"--plot", NULL, VALUE, "FILE.svg", NULL, CLI_TABLE, false, AT(plot), NULL,
     "also draw MACs against parameters as SVG"},
    {"--fail-if", NULL, VALUE, "BUDGET", NULL, CLI_DIFF, true, 0, set_fail_if,
     "exit 4 when the totals' change passes it (5 when a delta is "
     "withheld), e.g. 'macs > +5%', 'params > +0', 'flops >= +1000000'"},
    {"--aten", NULL, FLAG, NULL, NULL, CLI_OPS, false, AT(aten), NULL,
     "PyTorch's operators (what a .pt2 may hold) and what each lowers to "
     "(text or md)"},
    {"--json", NULL, FLAG, NULL, NULL, CLI_HARDWARE, false, AT(json), NULL,
     "the devices as JSON, each figure with its source"},
    {"--input", NULL, VALUE, "NAME=DIMS", NULL,
     CLI_SUMMARY | CLI_SHAPES | CLI_DIFF, true, 0, set_input,
     "fix a graph input's shape (input=1x3x224x224); NAME may also be a "
     "dim's name: --input batch=8, --input audio_dim2=16000 (unnamed dims "
     "are called <input>_dim<axis>)"},
    {"--input", NULL, VALUE, "NAME=DIMS", NULL, CLI_TABLE, true, 0, set_input,
     "fix a graph input's shape or a named dim (batch=8, height=640) in "
     "every model that has it; symbolic dims left unfixed are taken as 1 "
     "and the row is marked *"},
    {"--value", NULL, VALUE, "NAME=V[,V...]", NULL, CLI_MODELS, true, 0,
     set_value,
     "a graph input's contents (scalars, small integer tensors): control "
     "flow (If) and shape arithmetic fold on it, e.g. --value sr=16000"},
    {"--batch", NULL, VALUE, "N", NULL, CLI_MODELS, false, 0, set_batch,
     "set the first dim of every graph input"},
    {"--fallback", NULL, FLAG, NULL, NULL, CLI_MODELS, false, 0, set_fallback,
     "take declared shapes for unknown ops' outputs and declared dims no "
     "rule can know (NonZero's count)"},
    {NULL, "-o", VALUE, "FILE", NULL, CLI_MODELS | CLI_OPS, false,
     AT(model.output), NULL, "write to FILE instead of stdout"},
    {"--help", "-h", HELP, NULL, NULL, ~0u, false, 0, NULL, "this help"},
};

enum { N_OPTIONS = sizeof options / sizeof options[0] };

static const char *metavar(const option *o, const cli_command *cmd,
                           char *buf, size_t size);

/* The row for word w in cmd; NULL when cmd takes no such option. */
static const option *find(const cli_command *cmd, const char *w) {
  for (size_t i = 0; i < N_OPTIONS; i++) {
    const option *o = &options[i];
    if ((o->commands & cmd->bit) &&
        ((o->name && !strcmp(w, o->name)) ||
         (o->short_name && !strcmp(w, o->short_name))))
      return o;
  }
  return NULL;
}

/* The number of word s among words(0), words(1), ...; -1 when none. */
static int pick(const char *s, const char *(*words)(int)) {
  for (int i = 0; words(i); i++)
    if (!strcmp(s, words(i)))
      return i;
  return -1;
}

/* "nnscan summary: --numbers is raw, clever or ratio, not 'x'". */
static void bad_choice(const cli_command *cmd, const char *opt,
                       const char *(*words)(int), const char *got) {
  fprintf(stderr, "nnscan %s: %s is ", cmd->name, opt);
  for (int j = 0; words(j); j++)
    fprintf(stderr, "%s%s", !j ? "" : words(j + 1) ? ", " : " or ", words(j));
  char c[256];
  nns_text_clean(c, sizeof c, got);
  fprintf(stderr, ", not '%s'\n", c);
}

/* Says that `word` is no option of cmd. */
static void unknown_option(const cli_command *cmd, const char *word) {
  char c[256];
  nns_text_clean(c, sizeof c, word);
  fprintf(stderr, "nnscan %s: unknown option '%s' (nnscan %s -h lists "
                  "them)\n", cmd->name, c, cmd->name);
}

/* An operand: kept, unless the command takes no more. */
static bool operand(cli_args *a, const char *w) {
  const cli_command *cmd = a->cmd;
  if (cmd->max_operands >= 0 && a->file_count >= (size_t)cmd->max_operands) {
    char c[256];
    nns_text_clean(c, sizeof c, w);
    if (cmd->too_many)
      fprintf(stderr, "nnscan %s: %s\n", cmd->name, cmd->too_many);
    else
      fprintf(stderr, "nnscan %s: unexpected argument '%s'\n", cmd->name, c);
    return false;
  }
  a->files[a->file_count++] = w;
  return true;
}

/* One option at argv[*i] (its value, if any, after it). */
static int one_option(cli_args *a, const option *o, int argc, char **argv,
                      int *i) {
  const char *val = NULL;
  int choice = -1;
  if (o->kind == HELP) {
    cli_usage(a->cmd, stdout);
    return CLI_PARSE_HELP;
  }
  if (o->kind != FLAG) {
    if (*i + 1 >= argc) {
      char mv[256];
      fprintf(stderr, "nnscan %s: %s needs a value (%s)\n", a->cmd->name,
              argv[*i], metavar(o, a->cmd, mv, sizeof mv));
      return CLI_PARSE_BAD;
    }
    val = argv[++*i];
  }
  if (o->kind == CHOICE && (choice = pick(val, o->words)) < 0) {
    bad_choice(a->cmd, argv[*i - 1], o->words, val);
    return CLI_PARSE_BAD;
  }
  if (o->set)
    return o->set(a, val) ? CLI_PARSE_OK : CLI_PARSE_BAD;
  if (o->kind == FLAG)
    *(bool *)((char *)a + o->field) = true;
  else if (o->kind == CHOICE)
    *(int *)((char *)a + o->field) = choice;
  else
    *(const char **)((char *)a + o->field) = val;
  return CLI_PARSE_OK;
}

static void args_init(cli_args *a, const cli_command *cmd) {
  *a = (cli_args){.cmd = cmd};
  a->model.format =
      cmd->format_count ? nns_report_format_name(cmd->formats[0]) : NULL;
  a->report = (nns_report_options){.size = sizeof a->report,
                                   .format = NNS_FORMAT_TEXT};
  a->analyze = (nns_analyze_options){.size = sizeof a->analyze};
  a->parallel = (nns_parallel){.size = sizeof a->parallel};
  a->optimizer = NNS_OPTIMIZER_ADAM; /* the help's "(default adam)" */
  a->dtype = -1;
}

/* The walk of cli_parse: CLI_PARSE_OK, _HELP or _BAD. */
static int walk(cli_args *a, int argc, char **argv) {
  for (int i = 1; i < argc; i++) {
    const char *w = argv[i];
    if (w[0] != '-' || !w[1]) {
      if (!operand(a, w))
        return CLI_PARSE_BAD;
      continue;
    }
    const option *o = find(a->cmd, w);
    if (!o) {
      unknown_option(a->cmd, w);
      return CLI_PARSE_BAD;
    }
    int r = one_option(a, o, argc, argv, &i);
    if (r != CLI_PARSE_OK)
      return r;
  }
  return CLI_PARSE_OK;
}

int cli_parse(unsigned cmd, int argc, char **argv, cli_args *a) {
  args_init(a, cli_command_of(cmd));
  a->files = calloc((size_t)argc + 1, sizeof *a->files);
  int r = CLI_PARSE_BAD;
  if (!a->files)
    fprintf(stderr, "nnscan: out of memory\n");
  else
    r = walk(a, argc, argv);
  if (r == CLI_PARSE_OK)
    return -1;
  cli_args_free(a);
  return r == CLI_PARSE_HELP ? EXIT_OK : EXIT_USAGE;
}

void cli_args_free(cli_args *a) {
  cli_model_opts_free(&a->model);
  free(a->files);
  free(a->budgets);
  a->files = NULL;
  a->budgets = NULL;
}

/* ==== Help ==== */

enum { WIDTH = 78, HELP_COLUMN = 25, OVERVIEW_COLUMN = 18 };

/* Writes the words of text (split at spaces; a quoted 'a > b' is one
 * word) from column *col, going on at column `indent` when a line would
 * pass WIDTH. */
static void wrap(FILE *f, int *col, int indent, const char *text) {
  while (*text) {
    size_t n = strcspn(text, " ");
    const char *quote = *text == '\'' ? strchr(text + 1, '\'') : NULL;
    if (quote)
      n = (size_t)(quote + 1 - text) + strcspn(quote + 1, " ");
    if (n) {
      if (*col > indent && *col + 1 + (int)n > WIDTH) {
        fprintf(f, "\n%*s", indent, "");
        *col = indent;
      } else if (*col > indent) {
        fputc(' ', f);
        (*col)++;
      }
      fwrite(text, 1, n, f);
      *col += (int)n;
    }
    text += n + (text[n] == ' ');
  }
}

/* A two-column entry's text, after its left column ended at col: from
 * column `column` when the left one ends `gap` or more before it, else
 * three spaces on; wrapped under `column`. The column it ends at. */
static int right_column(FILE *f, int col, int column, int gap,
                        const char *text) {
  if (col + gap <= column) {
    fprintf(f, "%*s", column - col, "");
    col = column;
  } else {
    fputs("  ", f); /* and wrap's one space */
    col += 2;
  }
  wrap(f, &col, column, text);
  return col;
}

/* words(0), words(1), ... joined by sep into buf. */
static const char *join(char *buf, size_t size, const char *(*words)(int),
                        const char *sep) {
  size_t at = 0;
  buf[0] = 0;
  for (int k = 0; words(k) && at < size; k++)
    at += (size_t)snprintf(buf + at, size - at, "%s%s", k ? sep : "",
                           words(k));
  return buf;
}

/* What an option's value looks like in cmd's help. */
static const char *metavar(const option *o, const cli_command *cmd,
                           char *buf, size_t size) {
  size_t at = 0;
  switch (o->kind) {
  case VALUE:
    return o->metavar;
  case CHOICE:
    return join(buf, size, o->words, "|");
  case FORMAT:
    buf[0] = 0;
    for (size_t k = 0; k < cmd->format_count && at < size; k++)
      at += (size_t)snprintf(buf + at, size - at, "%s%s", k ? "|" : "",
                             nns_report_format_name(cmd->formats[k]));
    return buf;
  default:
    return NULL;
  }
}

/* "--depth N|all", "-o FILE", "-h, --help". */
static void option_words(char *buf, size_t size, const option *o,
                         const cli_command *cmd) {
  char mv[256];
  const char *m = metavar(o, cmd, mv, sizeof mv);
  snprintf(buf, size, "%s%s%s%s%s", o->short_name ? o->short_name : "",
           o->short_name && o->name ? ", " : "", o->name ? o->name : "",
           m ? " " : "", m ? m : "");
}

/* "usage: nnscan ops [--format text|md|json] [--aten] [-o FILE]": every
 * option, when that fits on a line; else "usage: nnscan summary MODEL
 * [options]" (the list below says them; the README's and docs/cli.md's
 * synopses are made from it by tools/docs_tables.py). */
static void synopsis(const cli_command *cmd, FILE *f) {
  char line[WIDTH + 2];
  int at = snprintf(line, sizeof line, "usage: nnscan %s%s%s", cmd->name,
                    cmd->operands[0] ? " " : "", cmd->operands);
  int head = at;
  for (size_t i = 0; i < N_OPTIONS && at <= WIDTH; i++) {
    const option *o = &options[i];
    if (!(o->commands & cmd->bit) || o->kind == HELP)
      continue;
    char w[300];
    option_words(w, sizeof w, o, cmd);
    at += snprintf(line + at, sizeof line - (size_t)at, " [%s]%s", w,
                   o->repeat ? "..." : "");
  }
  if (at > WIDTH)
    snprintf(line + head, sizeof line - (size_t)head, " [options]");
  fprintf(f, "%s\n", line);
}

void cli_usage(const cli_command *cmd, FILE *f) {
  synopsis(cmd, f);
  if (cmd->about) {
    int col = 2;
    fputs("  ", f);
    wrap(f, &col, 2, cmd->about);
    fputc('\n', f);
  }
  for (size_t i = 0; i < N_OPTIONS; i++) {
    const option *o = &options[i];
    if (!(o->commands & cmd->bit))
      continue;
    char w[300], words[512], help[1024];
    option_words(w, sizeof w, o, cmd);
    /* help's one "%s" is the list of words, or the command's default
     * format */
    const char *text = o->help, *at = strstr(text, "%s");
    if (at && (o->kind == FORMAT || o->words)) {
      const char *fill = o->kind == FORMAT
                             ? nns_report_format_name(cmd->formats[0])
                             : join(words, sizeof words, o->words, ", ");
      snprintf(help, sizeof help, "%.*s%s%s", (int)(at - text), text, fill,
               at + 2);
      text = help;
    }
    int col = right_column(f, fprintf(f, "  %s", w), HELP_COLUMN, 2, text);
    if (o->repeat)
      wrap(f, &col, HELP_COLUMN, "(repeatable)");
    fputc('\n', f);
  }
}

void cli_overview(FILE *f) {
  fputs("commands:\n", f);
  for (const cli_command *c = cli_commands; c->name; c++) {
    int col = fprintf(f, "  %s%s%s", c->name, c->operands[0] ? " " : "",
                      c->operands);
    right_column(f, col, OVERVIEW_COLUMN, 3, c->overview);
    fputc('\n', f);
  }
}
