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

const char *nns_report_format_name(int format) {
  switch (format) {
    NNS_REPORT_FORMAT_MAP(NAME_CASE_)
  }
  return NULL;
}

const char *nns_numbers_name(int numbers) {
  switch (numbers) {
    NNS_NUMBERS_MAP(NAME_CASE_)
  }
  return NULL;
}

const char *nns_wrap_name(int wrap) {
  switch (wrap) {
    NNS_WRAP_MAP(NAME_CASE_)
  }
  return NULL;
}

const char *nns_tensor_role_name(int role) {
  switch (role) {
    NNS_TENSOR_ROLE_MAP(NAME_CASE_)
  }
  return NULL;
}

const char *nns_nonfinite_role_name(int role) {
  switch (role) {
    NNS_NONFINITE_ROLE_MAP(NAME_CASE_)
  }
  return NULL;
}
