/*
 * main.c - `nnscan`: dispatches to a subcommand. `nnscan MODEL ...` (a first
 * argument that is no command but an existing file) is `nnscan summary
 * MODEL ...`.
 */
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "cli.h"

static void usage(FILE *f) {
  fprintf(f,
          "usage: nnscan <command> [options]\n"
          "       nnscan MODEL [options]    (same as nnscan summary MODEL)\n"
          "\n"
          "commands:\n"
          "  summary MODEL   parameters, FLOPs, MACs, memory accesses, "
          "receptive\n"
          "                  field and memory of every layer "
          "(nnscan summary -h)\n"
          "  table FILES...  one row per model; --plot FILE.svg draws MACs "
          "against params\n"
          "  shapes MODEL    dtype and shape of every value, in graph order\n"
          "  ops             the operators nnscan knows, with opset ranges "
          "and rules\n"
          "  version         print the version\n"
          "\n"
          "options of shapes:\n"
          "  --input NAME=DIMS   fix a graph input's shape, e.g. "
          "input=1x3x224x224 (repeatable); NAME may be a dim's\n"
          "                      name: batch=8, audio_dim2=16000 (an unnamed "
          "dim is <input>_dim<axis>)\n"
          "  --value NAME=V[,V...]  a graph input's contents, for control "
          "flow and shape\n"
          "                      arithmetic: sr=16000 (repeatable)\n"
          "  --batch N           set the first dim of every graph input\n"
          "  --format text|json  output format (default text)\n"
          "  --fallback          take declared shapes for outputs of "
          "unknown ops\n"
          "  -o FILE             write to FILE instead of stdout\n"
          "\n"
          "exit status: 0 success, 1 the model could not be read, "
          "inferred or analysed,\n"
          "2 usage error, 3 summary --strict found something it could not "
          "count\n");
}

static int dispatch(int argc, char **argv) {
  if (argc < 2) {
    usage(stderr);
    return EXIT_USAGE;
  }
  const char *cmd = argv[1];
  if (!strcmp(cmd, "-h") || !strcmp(cmd, "--help") || !strcmp(cmd, "help")) {
    usage(stdout);
    return EXIT_OK;
  }
  if (!strcmp(cmd, "version") || !strcmp(cmd, "--version")) {
    printf("nnscan %s\n", nns_version());
    return EXIT_OK;
  }
  if (!strcmp(cmd, "shapes"))
    return cmd_shapes(argc - 1, argv + 1);
  if (!strcmp(cmd, "ops"))
    return cmd_ops(argc - 1, argv + 1);
  if (!strcmp(cmd, "summary"))
    return cmd_summary(argc - 1, argv + 1);
  if (!strcmp(cmd, "table"))
    return cmd_table(argc - 1, argv + 1);
  struct stat st;
  if (stat(cmd, &st) == 0 && S_ISREG(st.st_mode))
    return cmd_summary(argc, argv); /* argv[0] stands for "summary" */
  fprintf(stderr, "nnscan: unknown command '%s'\n", cmd);
  usage(stderr);
  return EXIT_USAGE;
}

/* Anything printed straight to stdout (usage, version) is checked here too:
 * a failed write is exit 1, never a silent 0. The subcommands check their
 * own outputs (cli_close_output) and have reported already when they fail. */
int main(int argc, char **argv) {
  int rc = dispatch(argc, argv);
  if (rc == EXIT_OK && !cli_close_output(stdout, NULL))
    rc = EXIT_FAIL;
  return rc;
}
