/*
 * ops_json.c - the operator table as JSON (nns_op_table_json): what
 * `nnscan ops --format json` prints, written through the one JSON writer
 * from the public nns_op_get(), as the CLI itself would.
 */
#include "report_int.h"

nns_status nns_op_table_json(nns_write_fn write, void *user, nns_error *err) {
  if (!write)
    return nns__report_err(err, NNS_E_ARG, "write callback is NULL");
  nns__out o;
  nns__out_init(&o, write, user);
  nns__jw jw, *w = &jw;
  nns__jw_init(w, &o);
  nns__jw_arr_brk(w, NNS__JV, "\n ");
  for (size_t i = 0; i < nns_op_count(); i++) {
    nns_op_info op = {.size = sizeof op};
    nns_op_get(i, &op);
    nns__jw_obj(w, NNS__JV);
    nns__jw_str(w, NNS__JK("domain"), op.domain);
    nns__jw_str(w, NNS__JK("op_type"), op.name);
    nns__jw_int(w, NNS__JK("since"), op.since_version);
    nns__jw_int(w, NNS__JK("until"), op.until_version);
    nns__jw_str(w, NNS__JK("roles"), op.roles);
    nns__jw_bool(w, NNS__JK("shape"), op.has_shape_rule);
    nns__jw_bool(w, NNS__JK("fold"), op.has_fold);
    nns__jw_bool(w, NNS__JK("cost"), op.has_cost_rule);
    nns__jw_bool(w, NNS__JK("rf"), op.has_rf_rule);
    nns__jw_end(w, NULL);
  }
  nns__out_put(&o, "\n", 1);
  nns__jw_end(w, NULL);
  nns__out_put(&o, "\n", 1);
  nns_status st = nns__jw_finish(w);
  nns_status out = nns__out_finish(&o, err);
  return st != NNS_OK ? nns__report_err(err, st, "out of memory") : out;
}
