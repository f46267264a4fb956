/*
 * cli.h - the nnscan command line: shared helpers of the subcommands. The
 * CLI uses only the public header; it has no analysis logic of its own.
 */
#ifndef NNS_CLI_H
#define NNS_CLI_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "nnscan.h"

/* Exit codes. EXIT_INCOMPLETE: `summary --strict` found something it could
 * not count (an op without a cost or shape rule, an unbounded loop). */
enum { EXIT_OK = 0, EXIT_FAIL = 1, EXIT_USAGE = 2, EXIT_INCOMPLETE = 3 };

/* Options shared by the subcommands that load and infer a model. */
typedef struct cli_model_opts {
  const char *path;
  /* --input NAME=DIMS; name and dims malloc'ed (the options live on the
   * stack of every command: 64 x 64 dims in place were 32 KB zeroed and
   * faulted in per run, used by few). */
  nns_input_shape inputs[64];
  size_t input_count;
  nns_input_value values[64];   /* --value NAME=V[,V...]; data malloc'ed */
  size_t value_count;
  int64_t batch;
  unsigned infer_flags;
  const char *format;  /* "text" or "json" */
  const char *output;  /* -o FILE, or NULL for stdout */
} cli_model_opts;

/* --input NAME=DIMS and --value NAME=V[,V...] into o (the strings
 * malloc'ed); false after saying on stderr what is wrong. */
bool cli_add_input(cli_model_opts *o, const char *arg);
bool cli_add_value(cli_model_opts *o, const char *arg);
/* Frees what parsing the options allocated. */
void cli_model_opts_free(cli_model_opts *o);
/* Loads and infers; prints the error and returns NULL on failure. */
nns_model *cli_load(const cli_model_opts *o);
/* Sets the process's heap up for reading a model once (heap.c): what is
 * freed stays in it, and it is advised as huge pages. Returns a block to
 * free at exit, or NULL. */
void *cli_heap_setup(void);
/* The same for one of several models (`table`): each --input and --value
 * applies only when the model has an input (or, for --input, an input
 * dim) of that name, and input_used[k] / value_used[k] are set for those
 * that did. */
nns_model *cli_load_some(const cli_model_opts *o, bool *input_used,
                         bool *value_used);
/* Prints a load/infer error as one line: "nnscan: FILE: message". */
void cli_print_error(const char *path, const nns_error *err);
/* Opens -o FILE or returns stdout; NULL (reported) on failure. A regular
 * file (or a new one) is written to a temporary file in its folder, which
 * cli_close_output renames over FILE: runs that write one FILE at once
 * leave one whole report, never a mix (docs/cli.md). */
FILE *cli_open_output(const char *path);
/* Flushes and closes what cli_open_output opened (stdout is flushed only),
 * and renames the temporary file to FILE. False when any write, the close
 * or the rename failed, after printing "nnscan: cannot write 'FILE':
 * <errno text>" and removing the temporary file: the caller exits 1. */
bool cli_close_output(FILE *f, const char *path);
/* Closes what cli_open_output opened without keeping it (the temporary
 * file is removed; FILE keeps its old contents). */
void cli_discard_output(FILE *f);
/* The nns_write_fn of the CLI's reports (user: the FILE *): as
 * nns_write_stdio, and it keeps the errno of a failed write for
 * cli_close_output's message. */
int cli_write(void *file, const char *data, size_t size);
/* How messages name an output: the path, or "<stdout>" for NULL or "-". */
const char *cli_output_name(const char *path);

/* Width of the terminal when stdout is one ($COLUMNS, else the tty's own
 * size), else 100. */
int cli_terminal_width(void);
/* The model's name for reports: the file's base name without ".onnx" (or
 * ".pt2"), written into buf. */
const char *cli_model_name(const char *path, char *buf, size_t size);
/* -h or --help. */
bool cli_is_help(const char *arg);
/* The user's hardware file (`file`, else $NNSCAN_HARDWARE_FILE) into
 * *list (NULL without one); false after printing why it cannot be read. */
bool cli_hardware_open(const char *file, nns_hardware_list **list);
/* Device `name` (the user's list first, then the library's table) into
 * *out, with --peak-flops (every dtype) and --bandwidth applied when > 0;
 * false after printing that no device has that name. */
bool cli_hardware_pick(const char *name, const nns_hardware_list *list,
                       double peak_flops, double bandwidth,
                       nns_hardware *out);
/* Parses a whole number >= min; false if s is not one. */
bool cli_parse_int(const char *s, long min, long *out);
/* The report format named `word` (nns_report_format_name) among the n
 * formats `allowed`: true with it in *out; false after saying on stderr
 * "nnscan CMD: --format is a, b or c, not 'word'", the allowed words in
 * their order. */
bool cli_pick_format(const char *cmd, const char *word,
                     const nns_report_format *allowed, size_t n,
                     nns_report_format *out);

/* ==== The option table (options.c) ====
 *
 * Every command and every option is one entry of a table: its names, what
 * its value looks like, which commands take it, how it is stored and its
 * help line. cli_parse walks argv against it for every command, and
 * cli_usage writes each command's help from it, so the two cannot drift;
 * the README's Usage block and docs/cli.md are written from that help
 * (tools/docs_tables.py, ctest docs_tables). */

/* The commands, one bit each: the set of commands an option belongs to. */
enum {
  CLI_SUMMARY = 1u << 0,
  CLI_TABLE = 1u << 1,
  CLI_SHAPES = 1u << 2,
  CLI_DIFF = 1u << 3,
  CLI_OPS = 1u << 4,
  CLI_HARDWARE = 1u << 5,
  CLI_VERSION = 1u << 6,
  /* The commands that load models (cli_model_opts). */
  CLI_MODELS = CLI_SUMMARY | CLI_TABLE | CLI_SHAPES | CLI_DIFF
};

/* Everything a command line can say, filled by cli_parse; each command
 * reads its own fields (the table says which options reach which). */
typedef struct cli_args {
  const struct cli_command *cmd; /* the command parsed for */
  cli_model_opts model;          /* --input, --value, --batch, --format,
                                    -o, --fallback */
  const char **files;            /* the words that are no option, in order */
  size_t file_count;             /* how many */
  nns_report_options report;     /* summary: --depth, --columns,
                                    --json-version, --width */
  nns_analyze_options analyze;   /* summary's analysis options */
  int numbers;                   /* --numbers: an nns_numbers */
  int wrap;                      /* --wrap: an nns_wrap */
  int optimizer;                 /* --optimizer: an nns_optimizer */
  int dtype;                     /* --dtype: nns_compute_dtype_name's
                                    number, -1 when not given */
  nns_parallel parallel;         /* summary: --parallel, --budget */
  bool columns_given;            /* --columns was given */
  bool parallel_given;           /* --parallel was given */
  bool rf;                       /* --rf */
  bool strict;                   /* --strict */
  const char *hardware;          /* --hardware NAME */
  const char *hardware_file;     /* --hardware-file FILE */
  double peak_flops;             /* --peak-flops (0: not given) */
  double bandwidth;              /* --bandwidth (0: not given) */
  const char *plot;              /* table --plot FILE.svg */
  char *budgets;                 /* diff: every --fail-if, joined by ", "
                                    (malloc'ed; NULL: none) */
  bool aten;                     /* ops --aten */
  bool json;                     /* hardware --json */
} cli_args;

/* A command: how `nnscan -h` lists it, its help, and what it takes. */
typedef struct cli_command {
  const char *name;      /* "summary" */
  unsigned bit;          /* CLI_SUMMARY */
  const char *operands;  /* "MODEL", "FILES...", "A B" or "" */
  const char *overview;  /* its line in `nnscan -h` */
  const char *about;     /* its help's text under the synopsis, or NULL */
  const nns_report_format *formats; /* what --format takes; [0] is the
                                       default */
  size_t format_count;   /* how many (0: no --format) */
  int max_operands;      /* how many operands at most (-1: any number) */
  const char *too_many;  /* what a word past them is told */
  int (*run)(int argc, char **argv); /* the command itself */
} cli_command;

/* Every command, in the order `nnscan -h` lists them; NULL name ends it. */
extern const cli_command cli_commands[];
/* The command with that bit. */
const cli_command *cli_command_of(unsigned bit);

/* Parses argv[1..] for the command with bit `cmd` into *a: -1 when it
 * parsed (the caller cli_args_free's *a when done); else the exit code,
 * with *a freed: EXIT_OK after -h printed the help on stdout, EXIT_USAGE
 * after an unknown option, a missing or bad value or a word too many
 * was said on stderr. */
int cli_parse(unsigned cmd, int argc, char **argv, cli_args *a);
/* Frees what cli_parse allocated. */
void cli_args_free(cli_args *a);
/* A command's help: the synopsis, its text and one entry per option. */
void cli_usage(const cli_command *cmd, FILE *f);
/* `nnscan -h`'s list of commands, written from cli_commands. */
void cli_overview(FILE *f);

/* Summary's values (summary_args.c): the words --columns takes (word k,
 * NULL past the last), and the parsers of --columns, --parallel and
 * --budget (false after saying why on stderr). */
const char *cli_column_word(int k);
bool cli_parse_columns(const char *list, unsigned *out);
bool cli_parse_parallel(const char *s, nns_parallel *p);
bool cli_parse_size(const char *s, int64_t *out);

int cmd_shapes(int argc, char **argv);
int cmd_ops(int argc, char **argv);
int cmd_diff(int argc, char **argv);
int cmd_summary(int argc, char **argv);
int cmd_table(int argc, char **argv);
int cmd_hardware(int argc, char **argv);
int cmd_version(int argc, char **argv);

#endif
