/*
 * zip.h - the part of the zip format a torch.export archive (.pt2) needs:
 * the central directory (zip64 too) and one entry's bytes, stored or
 * deflated (zlib's inflate). Everything is read from a buffer the caller
 * holds; every offset and length is checked against it, and an entry is
 * never inflated past the size its directory declares or past `limit`.
 */
#ifndef NNS_PT2_ZIP_H
#define NNS_PT2_ZIP_H

#include <stddef.h>
#include <stdint.h>

#include "../base/base.h"

/* Whether data starts like a zip archive (a local header or, for an empty
 * archive, the end record). */
bool nns__zip_sniff(const uint8_t *data, size_t size);

typedef struct nns__zip_entry {
  const char *name;   /* not NUL-terminated: name_len bytes in the archive */
  size_t name_len;
  uint16_t method;    /* 0 stored, 8 deflated */
  uint64_t csize;     /* compressed size */
  uint64_t usize;     /* uncompressed size */
  uint64_t local;     /* offset of its local header */
  int64_t dir_offset; /* offset of its central directory record */
} nns__zip_entry;

typedef struct nns__zip {
  const uint8_t *data;
  size_t size;
  uint64_t count;     /* entries */
  uint64_t cd;        /* central directory offset */
  uint64_t cd_size;
} nns__zip;

/* Reads the end records. NNS_E_MODEL for no zip or a broken directory. */
nns_status nns__zip_open(nns__zip *z, const uint8_t *data, size_t size,
                         nns_error *err);
/* Entry k in directory order, walking from *cursor (0 for the first; the
 * call advances it). NNS_E_TRUNCATED / NNS_E_MODEL for a bad record. */
nns_status nns__zip_next(const nns__zip *z, uint64_t *cursor,
                         nns__zip_entry *e, nns_error *err);
/* The bytes of e: stored ones in place (*out points into the archive,
 * *owned NULL), deflated ones inflated into a malloc'ed buffer (*owned,
 * the caller frees it). An entry whose size exceeds `limit` is refused
 * with NNS_E_LIMIT before anything is inflated. */
nns_status nns__zip_read(const nns__zip *z, const nns__zip_entry *e,
                         uint64_t limit, const uint8_t **out, size_t *len,
                         void **owned, nns_error *err);

#endif
