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

/* Parses one shared option at argv[*i] (advancing *i past its value).
 * Returns 1 if consumed, 0 if not an option it knows, -1 on a usage error
 * (already reported). */
int cli_parse_model_opt(cli_model_opts *o, int argc, char **argv, int *i);
/* The start of every model command's option loop, at argv[*i]: -h or
 * --help prints the command's usage (`usage`, or usage_fn's) on stdout and
 * gives CLI_ARG_HELP; an option every command shares (cli_parse_model_opt)
 * is consumed (CLI_ARG_TAKEN) or was a usage error, already reported
 * (CLI_ARG_BAD); CLI_ARG_OWN: the command's own to parse. */
enum { CLI_ARG_OWN, CLI_ARG_TAKEN, CLI_ARG_HELP, CLI_ARG_BAD };
int cli_common_arg(cli_model_opts *o, int argc, char **argv, int *i,
                   const char *usage, void (*usage_fn)(FILE *));
/* Frees what parsing the options allocated. */
void cli_model_opts_free(cli_model_opts *o);
/* Loads and infers; prints the error and returns NULL on failure. */
nns_model *cli_load(const cli_model_opts *o);
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
/* Each command's usage (stdout for -h, stderr on a usage error); `nnscan
 * -h` prints them all. The summary's names the library's optimizers. */
void cli_summary_usage(FILE *f);
extern const char cli_table_usage[], cli_shapes_usage[], cli_ops_usage[],
    cli_hardware_usage[], cli_diff_usage[];
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

int cmd_shapes(int argc, char **argv);
int cmd_ops(int argc, char **argv);
int cmd_diff(int argc, char **argv);
int cmd_summary(int argc, char **argv);
int cmd_table(int argc, char **argv);
int cmd_hardware(int argc, char **argv);

#endif
