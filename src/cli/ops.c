/*
 * ops.c - `nnscan ops`: the operator table, one line per entry.
 */
#include <string.h>

#include "cli.h"

int cmd_ops(int argc, char **argv) {
  bool json = argc >= 3 && !strcmp(argv[1], "--format") &&
              !strcmp(argv[2], "json");
  size_t n = nns_op_count();
  if (json)
    fputs("[", stdout);
  else
    printf("%-16s %-28s %-9s %s\n", "Domain", "Op", "Opsets", "Rules");
  for (size_t i = 0; i < n; i++) {
    nns_op_info op;
    nns_op_get(i, &op);
    if (json) {
      fputs(i ? ",\n {\"domain\": " : "\n {\"domain\": ", stdout);
      json_str(stdout, op.domain);
      fputs(", \"op_type\": ", stdout);
      json_str(stdout, op.name);
      printf(", \"since\": %d, \"until\": %d, \"shape\": %s, \"fold\": %s}",
             op.since_version, op.until_version,
             op.has_shape_rule ? "true" : "false",
             op.has_fold ? "true" : "false");
    } else {
      char range[32];
      snprintf(range, sizeof range, "%d-%d", op.since_version,
               op.until_version);
      printf("%-16s %-28s %-9s %s%s\n", op.domain[0] ? op.domain : "ai.onnx",
             op.name, range, op.has_shape_rule ? "shape" : "",
             op.has_fold ? " fold" : "");
    }
  }
  if (json)
    fputs("\n]\n", stdout);
  return EXIT_OK;
}
