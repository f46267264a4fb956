/*
 * reads.h - the internal reads the reports make without a copy (by value,
 * no sized struct): src/report/ calls them for every layer and value it
 * prints. The first five are defined in src/analyze/api.c, which includes
 * this header, so the compiler checks each declaration against its
 * definition; the sixth is src/ir/api.c's, declared in ir.h too, and
 * api.c sees both declarations (through analyze.h), so the compiler checks
 * that they agree. report_int.h includes this instead of declaring them
 * again.
 */
#ifndef NNS_ANALYZE_READS_H
#define NNS_ANALYZE_READS_H

#include <stdbool.h>
#include <stddef.h>

#include "nnscan.h"

/* nns_analysis_value_dim by value, without the sized copy. */
nns_dim nns__analysis_value_dim(const nns_analysis *a, size_t i, int axis);
/* The rank nns_analysis_value gives value i (-1 for a bad index), without
 * the model's row that it reads too: the table reads the rank of every
 * layer's output. */
int nns__analysis_value_rank(const nns_analysis *a, size_t i);
/* Layer i's depth and parent ((size_t)-1 for none) as nns_analysis_layer
 * gives them, without the rest of its row; false for a bad index. The text
 * table reads them for every layer to draw its tree guides. */
bool nns__analysis_layer_tree(const nns_analysis *a, size_t i, int *depth,
                              size_t *parent);
/* The field nns_analysis_layer_rf copies out, in place (NULL for a bad
 * index): the text summary scans every layer's. */
const nns_rf *nns__analysis_layer_rf(const nns_analysis *a, size_t i);
/* Why node i (nns_model_node's index) is counted only approximately: the
 * sentence its cost rule gave (nns__cost.approx), or NULL when it is
 * exact or not counted. JSON's cost.approximate diagnostic. */
const char *nns__analysis_node_approx(const nns_analysis *a, size_t i);
/* The model's own inference's dim (src/ir/api.c; the shapes reports have
 * no analysis). */
nns_dim nns__value_dim(const nns_model *m, size_t i, int axis);

#endif
