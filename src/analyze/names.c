/*
 * names.c - the words of the analysis options and results, from the one
 * X-macro list of each in nnscan.h (NNS_PARAM_KIND_MAP, NNS_OPTIMIZER_MAP):
 * the reports, the CLI, the metadata reader and the Python package all
 * take them from here.
 */
#include "analyze.h"

NNS__NAME_FN(nns_param_kind_name, NNS_PARAM_KIND_MAP)
NNS__NAME_FN(nns_optimizer_name, NNS_OPTIMIZER_MAP)
