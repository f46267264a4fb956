/*
 * main.c - `nnscan`: dispatches to a subcommand. `nnscan MODEL ...` (a first
 * argument that is no command but names a file, or looks like a path) is
 * `nnscan summary MODEL ...`, so a mistyped model path is reported as a
 * missing file, not as an unknown command (docs/cli.md).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli.h"

static const char overview[] =
    "usage: nnscan <command> [options]\n"
    "       nnscan MODEL [options]    (same as nnscan summary MODEL)\n"
    "       nnscan <command> -h       (one command's options; also --help)\n"
    "       nnscan --version          (same as nnscan version)\n"
    "\n";
static const char exit_status[] =
    "exit status: 0 success, 1 the model could not be read, inferred or "
    "analysed\n"
    "(or an output could not be written), 2 usage error, 3 summary --strict "
    "found\n"
    "something it could not count, 4 diff --fail-if: a budget was exceeded, "
    "5 diff\n"
    "--fail-if: a budget could not be checked (a delta withheld)\n";

/* The full help: the overview, then every command's own help. */
static void usage(FILE *f) {
  fputs(overview, f);
  cli_overview(f);
  for (const cli_command *c = cli_commands; c->name; c++) {
    fputc('\n', f);
    cli_usage(c, f);
  }
  fputc('\n', f);
  fputs(exit_status, f);
}

/* A word that no command is, and no file: a path when it has a '/' or a
 * '.' (model.onnx, ./m, dir/m), else a mistyped command. */
static bool looks_like_path(const char *s) {
  return strchr(s, '/') || strchr(s, '.');
}

int cmd_version(int argc, char **argv) {
  cli_args a;
  int rc = cli_parse(CLI_VERSION, argc, argv, &a);
  if (rc >= 0)
    return rc;
  cli_args_free(&a);
  printf("nnscan %s\n", nns_version());
  return EXIT_OK;
}

/* Runs argv[0] as a command (argv[0] is the command's name, or
 * --version); -1 when it is none. */
static int run_command(int argc, char **argv) {
  if (!strcmp(argv[0], "--version"))
    return cmd_version(argc, argv);
  for (const cli_command *c = cli_commands; c->name; c++)
    if (!strcmp(argv[0], c->name))
      return c->run(argc, argv);
  return -1;
}

static int unknown(const char *what, const char *word, const char *tail) {
  char c[256];
  nns_text_clean(c, sizeof c, word);
  fprintf(stderr, "nnscan: %s '%s'%s\ncommands:", what, c, tail);
  const char *sep = " ";
  for (const cli_command *cmd = cli_commands; cmd->name; cmd++) {
    fprintf(stderr, "%s%s", sep, cmd->name);
    sep = ", ";
  }
  fputs("; nnscan -h for help\n", stderr);
  return EXIT_USAGE;
}

static int dispatch(int argc, char **argv) {
  if (argc < 2) {
    fputs(overview, stderr);
    cli_overview(stderr);
    return EXIT_USAGE;
  }
  const char *cmd = argv[1];
  if (!strcmp(cmd, "help") && argc > 2 && !cli_is_help(argv[2])) {
    /* `nnscan help table` is `nnscan table -h`. */
    static char help[] = "-h";
    char *sub[] = {argv[2], help, NULL};
    int rc = run_command(2, sub);
    return rc >= 0 ? rc : unknown("no command", argv[2], "");
  }
  if (cli_is_help(cmd) || !strcmp(cmd, "help")) {
    usage(stdout);
    return EXIT_OK;
  }
  int rc = run_command(argc - 1, argv + 1);
  if (rc >= 0)
    return rc;
  struct stat st;
  if (cmd[0] != '-' && (stat(cmd, &st) == 0 || looks_like_path(cmd)))
    return cmd_summary(argc, argv); /* argv[0] stands for "summary" */
  return cmd[0] == '-' ? unknown("unknown option", cmd, "")
                       : unknown("unknown command", cmd,
                                 " (and no file of that name)");
}

/* Anything printed straight to stdout (usage, version) is checked here too:
 * a failed write is exit 1, never a silent 0. The subcommands check their
 * own outputs (cli_close_output) and have reported already when they fail. */
int main(int argc, char **argv) {
  void *heap = cli_heap_setup();
  int rc = dispatch(argc, argv);
  free(heap);
  if (rc == EXIT_OK && !cli_close_output(stdout, NULL))
    rc = EXIT_FAIL;
  return rc;
}
