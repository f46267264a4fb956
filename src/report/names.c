/*
 * names.c - the words of the report and inspection enums, from the one
 * X-macro list of each in nnscan.h (NNS_REPORT_FORMAT_MAP,
 * NNS_NUMBERS_MAP, NNS_WRAP_MAP, NNS_TENSOR_ROLE_MAP,
 * NNS_NONFINITE_ROLE_MAP, NNS_COUNT_STYLE_MAP): the renderers, the CLI's option parsing and the
 * Python package take them from here, never retyped.
 */
#include "../base/base.h"

NNS__NAME_FN(nns_report_format_name, NNS_REPORT_FORMAT_MAP)
NNS__NAME_FN(nns_numbers_name, NNS_NUMBERS_MAP)
NNS__NAME_FN(nns_wrap_name, NNS_WRAP_MAP)
NNS__NAME_FN(nns_tensor_role_name, NNS_TENSOR_ROLE_MAP)
NNS__NAME_FN(nns_nonfinite_role_name, NNS_NONFINITE_ROLE_MAP)
NNS__NAME_FN(nns_count_style_name, NNS_COUNT_STYLE_MAP)
