/*
 * hardware.c - `nnscan hardware`: the devices the roofline knows (the
 * library's table, plus a user's file), as text or JSON; and the device
 * lookup `summary --hardware NAME` shares (cli_hardware_pick). The
 * figures come from the library (nns_hardware_*); nothing is typed here.
 */
#include <stdlib.h>
#include <string.h>

#include "cli.h"

/* The user's file: --hardware-file, else $NNSCAN_HARDWARE_FILE, else none. */
static const char *user_file(const char *given) {
  if (given)
    return given;
  const char *env = getenv("NNSCAN_HARDWARE_FILE");
  return env && env[0] ? env : NULL;
}

bool cli_hardware_open(const char *file, nns_hardware_list **list) {
  *list = NULL;
  file = user_file(file);
  if (!file)
    return true;
  nns_error err;
  if (nns_hardware_list_open(file, list, &err) != NNS_OK) {
    char m[600];
    nns_text_clean(m, sizeof m, err.message);
    fprintf(stderr, "nnscan: %s\n", m);
    return false;
  }
  return true;
}

bool cli_hardware_pick(const char *name, const nns_hardware_list *list,
                       double peak_flops, double bandwidth,
                       nns_hardware *out) {
  memset(out, 0, sizeof *out);
  out->size = sizeof *out;
  bool found = false;
  /* The user's own devices first: a file may redefine a shipped name. */
  for (size_t i = 0; i < nns_hardware_list_count(list) && !found; i++)
    if (nns_hardware_list_get(list, i, out) == NNS_OK &&
        !strcmp(out->name, name))
      found = true;
  if (!found) {
    nns_error err;
    if (nns_hardware_find(name, out, &err) != NNS_OK) {
      char c[200];
      nns_text_clean(c, sizeof c, name);
      fprintf(stderr, "nnscan summary: no hardware called '%s' (nnscan "
                      "hardware lists them)\n", c);
      return false;
    }
  }
  /* --peak-flops applies to every compute dtype, --bandwidth replaces the
   * device's: the `cpu` entry has neither. */
  if (peak_flops != 0)
    for (int d = 0; d < NNS_COMPUTE_DTYPE_COUNT; d++)
      out->peak_flops[d] = peak_flops;
  if (bandwidth != 0)
    out->bandwidth = bandwidth;
  return true;
}

static void text_row(FILE *f, const nns_hardware *h) {
  fprintf(f, "%-14s", h->name);
  for (int d = 0; d < NNS_COMPUTE_DTYPE_COUNT; d++) {
    if (h->peak_flops[d] > 0)
      fprintf(f, " %8.1f", h->peak_flops[d] / 1e12);
    else
      fprintf(f, " %8s", "-");
  }
  if (h->bandwidth > 0)
    fprintf(f, " %9.3f", h->bandwidth / 1e12);
  else
    fprintf(f, " %9s", "-");
  char d[200];
  nns_text_clean(d, sizeof d, h->description);
  fprintf(f, "  %s\n", d);
}

int cmd_hardware(int argc, char **argv) {
  cli_args a;
  int rc = cli_parse(CLI_HARDWARE, argc, argv, &a);
  if (rc >= 0)
    return rc;
  bool json = a.json;
  const char *file = a.hardware_file;
  cli_args_free(&a); /* file is argv's */
  nns_hardware_list *list;
  if (!cli_hardware_open(file, &list))
    return EXIT_FAIL;
  size_t n_user = nns_hardware_list_count(list), n = nns_hardware_count();
  if (json) {
    nns_error err;
    nns_status st = nns_hardware_json(list, cli_write, stdout, &err);
    nns_hardware_list_free(list);
    if (st != NNS_OK && st != NNS_E_IO) {
      fprintf(stderr, "nnscan hardware: %s\n", err.message);
      return EXIT_FAIL;
    }
    return EXIT_OK; /* a write error: main's cli_close_output says it */
  }
  /* One column per compute dtype, in text_row's order, named as the
   * library names them. */
  printf("%-14s", "name");
  for (int d = 0; d < NNS_COMPUTE_DTYPE_COUNT; d++)
    printf(" %8s", nns_compute_dtype_name(d));
  printf(" %9s  %s\n", "TB/s", "(peaks: dense TFLOP/s, TOP/s for int8)");
  for (size_t i = 0; i < n_user + n; i++) {
    nns_hardware h = {.size = sizeof h};
    nns_status st = i < n_user ? nns_hardware_list_get(list, i, &h)
                               : nns_hardware_get(i - n_user, &h);
    if (st != NNS_OK)
      continue;
    text_row(stdout, &h);
  }
  puts("cpu: give its figures with summary --peak-flops F --bandwidth B; "
       "sources: nnscan hardware --json");
  nns_hardware_list_free(list);
  return EXIT_OK;
}
