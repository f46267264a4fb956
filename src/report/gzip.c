/*
 * gzip.c - gzip (RFC 1952) of a buffer, through zlib, for the HTML report:
 * a large model's JSON document is embedded compressed and the browser
 * inflates it with its built-in DecompressionStream.
 *
 * zlib is in every Debian and is the reference implementation of deflate.
 * It replaced a hand-written encoder (fixed Huffman code only): the 100k-node
 * bench model's page went from 7.1 MB to 5.2 MB in the same time. The header has no name and a zero
 * time stamp, so a page depends only on its document and zlib's version.
 */
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <zlib.h>

#include "../base/base.h"
#include "report_int.h"

/* zlib's windowBits: 15 (a 32 KiB window) plus 16 asks for gzip framing. */
#define GZIP_WINDOW_BITS (15 + 16)

nns_status nns__gzip(const unsigned char *in, size_t n, unsigned char **out,
                     size_t *out_len) {
  *out = NULL;
  *out_len = 0;
  /* zlib counts in uInt; a document that large is refused, never cut. */
  if (n > (size_t)UINT_MAX / 2)
    return NNS_E_NOMEM;
  z_stream z = {0};
  if (deflateInit2(&z, Z_DEFAULT_COMPRESSION, Z_DEFLATED, GZIP_WINDOW_BITS, 8,
                   Z_DEFAULT_STRATEGY) != Z_OK)
    return NNS_E_NOMEM;
  uLong cap = deflateBound(&z, (uLong)n);
  unsigned char *buf = malloc(cap ? cap : 1);
  if (!buf) {
    deflateEnd(&z);
    return NNS_E_NOMEM;
  }
  z.next_in = (Bytef *)(uintptr_t)in; /* zlib's API is not const-correct */
  z.avail_in = (uInt)n;
  z.next_out = buf;
  z.avail_out = (uInt)cap;
  /* deflateBound guarantees one Z_FINISH call completes. */
  int rc = deflate(&z, Z_FINISH);
  size_t len = (size_t)z.total_out;
  deflateEnd(&z);
  if (rc != Z_STREAM_END) {
    free(buf);
    return NNS_E_NOMEM;
  }
  *out = buf;
  *out_len = len;
  return NNS_OK;
}
