/*
 * names.c - the words of the analysis options and results, from the one
 * X-macro list of each in nnscan.h (NNS_PARAM_KIND_MAP, NNS_OPTIMIZER_MAP):
 * the reports, the CLI, the metadata reader and the Python package all
 * take them from here.
 */
#include "analyze.h"

const char *nns_param_kind_name(int kind) {
  switch (kind) {
#define KIND_CASE_(name, num, str)                                             \
  case num:                                                                    \
    return str;
    NNS_PARAM_KIND_MAP(KIND_CASE_)
#undef KIND_CASE_
  }
  return NULL;
}

const char *nns_optimizer_name(int optimizer) {
  switch (optimizer) {
#define OPTIMIZER_CASE_(name, num, str)                                        \
  case num:                                                                    \
    return str;
    NNS_OPTIMIZER_MAP(OPTIMIZER_CASE_)
#undef OPTIMIZER_CASE_
  }
  return NULL;
}
