/*
 * builddesc.h - builder descriptions (tools/make_builder_desc.py writes
 * them; the format is documented there): read into memory once, then
 * replayed through the nns_builder API. Shared by tests/unit/test_builder.c
 * and bench/builder_bench.c, which times the replay alone.
 */
#ifndef NNS_BUILDDESC_H
#define NNS_BUILDDESC_H

#include "nnscan.h"

typedef struct bdesc bdesc;

/* Reads and splits the description at `path` (fields decoded); NULL when
 * it cannot be read. */
bdesc *bdesc_read(const char *path);
void bdesc_free(bdesc *d);
/* Makes the model the description describes; on failure err names the
 * line and what the builder said. */
nns_status bdesc_replay(const bdesc *d, nns_model **out, nns_error *err);
/* The same calls as one nns_builder_add_packed buffer (malloc'd, *size
 * bytes); NULL when out of memory or a record cannot be packed. */
unsigned char *bdesc_pack(const bdesc *d, size_t *size);

#endif
