/*
 * names.c - the words of the report and inspection enums, from the one
 * X-macro list of each in nnscan.h (NNS_REPORT_FORMAT_MAP,
 * NNS_NUMBERS_MAP, NNS_WRAP_MAP, NNS_TENSOR_ROLE_MAP,
 * NNS_NONFINITE_ROLE_MAP, NNS_COUNT_STYLE_MAP, NNS_COUNT_FLAG_MAP,
 * NNS_METRIC_MAP, NNS_COLUMN_MAP): the
 * renderers, the CLI's option parsing and the Python package take them
 * from here, never retyped.
 */
#include "../base/base.h"
#include "report_int.h"

NNS__NAME_FN(nns_report_format_name, NNS_REPORT_FORMAT_MAP)
NNS__NAME_FN(nns_numbers_name, NNS_NUMBERS_MAP)
NNS__NAME_FN(nns_wrap_name, NNS_WRAP_MAP)
NNS__NAME_FN(nns_tensor_role_name, NNS_TENSOR_ROLE_MAP)
NNS__NAME_FN(nns_nonfinite_role_name, NNS_NONFINITE_ROLE_MAP)
NNS__NAME_FN(nns_count_style_name, NNS_COUNT_STYLE_MAP)
NNS__NAME_FN(nns_count_flag_name, NNS_COUNT_FLAG_MAP)

const char *nns_metric_name(int metric) {
  switch (metric) {
#define NNS__METRIC_WORD_(name, num, key, lower, member, mflags, text)         \
  case num: return key;
    NNS_METRIC_MAP(NNS__METRIC_WORD_)
#undef NNS__METRIC_WORD_
  }
  return NULL;
}

const char *nns_metric_description(int metric) {
  switch (metric) {
#define NNS__METRIC_TEXT_(name, num, key, lower, member, mflags, text)         \
  case num: return text;
    NNS_METRIC_MAP(NNS__METRIC_TEXT_)
#undef NNS__METRIC_TEXT_
  }
  return NULL;
}

unsigned nns_metric_flags(int metric) {
  switch (metric) {
#define NNS__METRIC_FLAGS_(name, num, key, lower, member, mflags, text)        \
  case num: return mflags;
    NNS_METRIC_MAP(NNS__METRIC_FLAGS_)
#undef NNS__METRIC_FLAGS_
  }
  return 0;
}

/* A metric is an int64_t of nns_counts (the JSON writers and the sums read
 * it so), and one added after version 1's first eight is grown there
 * (its documents, and the schema's required keys, stay as they were). */
#define NNS__METRIC_CHECK_(name, num, key, lower, member, mflags, text)        \
  _Static_assert(_Generic(((nns_counts *)0)->member, int64_t: 1, default: 0), \
                 "metric " #name ": nns_counts." #member " is not int64_t"); \
  _Static_assert(num < 8 || ((mflags) & NNS_METRIC_V1_GROWN),                  \
                 "metric " #name ": a new metric is NNS_METRIC_V1_GROWN");
NNS_METRIC_MAP(NNS__METRIC_CHECK_)
#undef NNS__METRIC_CHECK_

unsigned nns_metrics_partial(unsigned count_flags) {
  unsigned partial = 0;
#define NNS__METRIC_PARTIAL_(name, num, key, lower, member, mflags, text)      \
  if (count_flags & (lower))                                                   \
    partial |= 1u << num;
  NNS_METRIC_MAP(NNS__METRIC_PARTIAL_)
#undef NNS__METRIC_PARTIAL_
  return partial;
}

const char *nns_column_name(int bit) {
  switch (bit) {
#define NNS__COLUMN_WORD_(name, num, word, flags)                              \
  case num: return word;
    NNS_COLUMN_MAP(NNS__COLUMN_WORD_)
#undef NNS__COLUMN_WORD_
  }
  return NULL;
}

unsigned nns_column_flags(int bit) {
  switch (bit) {
#define NNS__COLUMN_FLAGS_(name, num, word, flags)                             \
  case num: return flags;
    NNS_COLUMN_MAP(NNS__COLUMN_FLAGS_)
#undef NNS__COLUMN_FLAGS_
  }
  return 0;
}

const nns__cell_def nns__cells[NNS__CELL_COUNT] = {
#define NNS__CELL_DEF_(id, title, key, cols, unit, right)                      \
  [NNS__CELL_##id] = {title, key, cols, unit, right, 0, false},
#define NNS__CELL_NDEF_(id, title, key, cols, unit, right, field, low)         \
  [NNS__CELL_##id] = {title, key, cols, unit, right,                           \
                      offsetof(nns_counts, field) + 1, low},
    NNS__CELL_MAP(NNS__CELL_DEF_, NNS__CELL_NDEF_)
#undef NNS__CELL_DEF_
#undef NNS__CELL_NDEF_
};

/* An N cell's field is read as an int64_t (summary.c's number_cell). */
#define NNS__CELL_IGNORE_(id, title, key, cols, unit, right)
#define NNS__CELL_INT64_(id, title, key, cols, unit, right, field, low)        \
  _Static_assert(_Generic(((nns_counts *)0)->field, int64_t: 1, default: 0),  \
                 "cell " #id ": nns_counts." #field " is not an int64_t");
NNS__CELL_MAP(NNS__CELL_IGNORE_, NNS__CELL_INT64_)
#undef NNS__CELL_IGNORE_
#undef NNS__CELL_INT64_
