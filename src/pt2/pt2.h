/*
 * pt2.h - the torch.export archive (.pt2) reader: the zip (zip.c), its
 * models/model.json read with the project's JSON reader, and the graph
 * handed to the builder through the aten table (src/ops/aten.c).
 */
#ifndef NNS_PT2_H
#define NNS_PT2_H

#include "../../include/nnscan.h"
#include "../base/base.h"

/* The largest models/model.json read (inflated or stored). */
#define NNS__PT2_MAX_JSON ((uint64_t)512 << 20)
/* The schema major version of model.json this reader knows
 * (torch/_export/serde/schema.py's SCHEMA_VERSION[0]). */
#define NNS__PT2_SCHEMA_MAJOR 8

/* Whether the bytes look like a zip archive (a .pt2 is one). */
bool nns__pt2_sniff(const void *data, size_t size);
/* Reads the archive in data[0..size) into a new model (*out, the caller's;
 * nothing in it points into data). Weights are never read: parameters and
 * buffers take their sizes from the graph's tensor metadata. */
nns_status nns__pt2_load(const void *data, size_t size, nns_model **out,
                         nns_error *err);

#endif
