/*
 * names.c - the words of the report and inspection enums, from the one
 * X-macro list of each in nnscan.h (NNS_REPORT_FORMAT_MAP,
 * NNS_NUMBERS_MAP, NNS_WRAP_MAP, NNS_TENSOR_ROLE_MAP,
 * NNS_NONFINITE_ROLE_MAP): the renderers, the CLI's option parsing and the
 * Python package take them from here, never retyped.
 */
#include "nnscan.h"

/* One case of a name function's switch: entry `num` gives its word. */
#define NAME_CASE_(name, num, str)                                             \
  case num:                                                                    \
    return str;

/* fn(n): the word of entry n of list MAP, NULL for a number not in it. */
#define NAME_FN_(fn, MAP)                                                      \
  const char *fn(int n) {                                                      \
    switch (n) { MAP(NAME_CASE_) }                                             \
    return NULL;                                                               \
  }

NAME_FN_(nns_report_format_name, NNS_REPORT_FORMAT_MAP)
NAME_FN_(nns_numbers_name, NNS_NUMBERS_MAP)
NAME_FN_(nns_wrap_name, NNS_WRAP_MAP)
NAME_FN_(nns_tensor_role_name, NNS_TENSOR_ROLE_MAP)
NAME_FN_(nns_nonfinite_role_name, NNS_NONFINITE_ROLE_MAP)
