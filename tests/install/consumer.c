/* A program that uses an installed libnnscan, as a user would. */
#include <nnscan.h>
#include <stdio.h>
#include <string.h>

int main(int argc, char **argv) {
  if (strcmp(nns_version(), NNS_VERSION_STRING) != 0)
    return 1;
  nns_model *m = NULL;
  nns_error err;
  if (argc < 2 || nns_model_load_file(argv[1], NULL, &m, &err) != NNS_OK ||
      nns_model_infer(m, NULL, &err) != NNS_OK)
    return 1;
  size_t y = (size_t)-1;
  nns_dim d = {.size = sizeof d, .value = -1};
  if (nns_abi_version() != NNS_ABI_VERSION ||
      nns_model_output(m, 0, &y) != NNS_OK ||
      nns_model_value_dim(m, y, 1, &d) != NNS_OK)
    return 1;
  printf("%lld\n", (long long)d.value);
  nns_model_free(m);
  return d.value == 256 ? 0 : 1;
}
