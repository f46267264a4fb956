/*
 * backward.c - NNS_FORMAT_BACKWARD_TEXT: the table of a backward pass's
 * graph as a section under the forward model's text report. The rows are
 * summary.c's text table; this file holds what differs: the heading, and
 * an end without the forward footer (parameters, memory and receptive field
 * describe the forward model), keeping only what was not counted.
 */
#include "report_int.h"

void nns__backward_heading(nns__out *o) {
  nns__out_str(o, "Backward pass (gradients of every trainable parameter; "
                  "Output Shape: the last gradient a layer produces):\n");
}

void nns__backward_footer(nns__out *o, const nns_analysis *a, int width) {
  nns__out_rep(o, "=", width);
  nns__out_str(o, "\n");
  nns__text_notes(o, a);
}
