/*
 * zip.c - reads the central directory of a zip archive and the bytes of
 * one entry, for the torch.export reader (pt2.c). The format is PKWARE's
 * APPNOTE: an end-of-central-directory record at the end (zip64 adds a
 * locator and a larger record before it), a directory of fixed-size
 * records with variable names, and a local header before each entry's
 * data. Deflated entries go through zlib's raw inflate; nothing here
 * writes a decompressor of its own.
 */
#include "zip.h"

#include <stdlib.h>
#include <string.h>
#include <zlib.h>

enum {
  SIG_LOCAL = 0x04034b50,
  SIG_DIR = 0x02014b50,
  SIG_END = 0x06054b50,
  SIG_END64 = 0x06064b50,
  SIG_LOC64 = 0x07064b50,
  END_LEN = 22,
  LOC64_LEN = 20,
  END64_LEN = 56,
  DIR_LEN = 46,
  LOCAL_LEN = 30
};

static uint16_t u16(const uint8_t *p) {
  return (uint16_t)(p[0] | (p[1] << 8));
}
static uint32_t u32(const uint8_t *p) {
  return (uint32_t)p[0] | ((uint32_t)p[1] << 8) | ((uint32_t)p[2] << 16) |
         ((uint32_t)p[3] << 24);
}
static uint64_t u64(const uint8_t *p) {
  return (uint64_t)u32(p) | ((uint64_t)u32(p + 4) << 32);
}

bool nns__zip_sniff(const uint8_t *data, size_t size) {
  return data && size >= 4 &&
         (u32(data) == SIG_LOCAL || u32(data) == SIG_END);
}

/* Whether [off, off + len) lies inside the archive. */
static bool fits(const nns__zip *z, uint64_t off, uint64_t len) {
  return off <= z->size && len <= z->size - off;
}

nns_status nns__zip_open(nns__zip *z, const uint8_t *data, size_t size,
                         nns_error *err) {
  memset(z, 0, sizeof *z);
  z->data = data;
  z->size = size;
  if (size < END_LEN)
    return nns__err(err, NNS_E_MODEL, 0, NULL,
                    "not a zip archive: %zu bytes, too short for its end "
                    "record", size);
  /* The end record is the last thing but a comment of up to 65535 bytes. */
  size_t lo = size > END_LEN + 65535 ? size - END_LEN - 65535 : 0;
  size_t at = size - END_LEN + 1;
  bool found = false;
  while (at-- > lo)
    if (u32(data + at) == SIG_END) {
      found = true;
      break;
    }
  if (!found)
    return nns__err(err, NNS_E_MODEL, 0, NULL,
                    "not a zip archive: no end of central directory record");
  const uint8_t *e = data + at;
  z->count = u16(e + 10);
  z->cd_size = u32(e + 12);
  z->cd = u32(e + 16);
  if (u16(e + 10) == 0xFFFF || u32(e + 12) == 0xFFFFFFFFu ||
      u32(e + 16) == 0xFFFFFFFFu) {
    /* zip64: the locator sits just before the end record. */
    if (at < LOC64_LEN || u32(data + at - LOC64_LEN) != SIG_LOC64)
      return nns__err(err, NNS_E_MODEL, (int64_t)at, NULL,
                      "zip64 end record without its locator at byte %zu",
                      at);
    uint64_t off = u64(data + at - LOC64_LEN + 8);
    if (!fits(z, off, END64_LEN) || u32(data + off) != SIG_END64)
      return nns__err(err, NNS_E_MODEL, (int64_t)at, NULL,
                      "zip64 end record at byte %llu is missing or cut",
                      (unsigned long long)off);
    z->count = u64(data + off + 32);
    z->cd_size = u64(data + off + 40);
    z->cd = u64(data + off + 48);
  }
  if (!fits(z, z->cd, z->cd_size))
    return nns__err(err, NNS_E_TRUNCATED, (int64_t)at, NULL,
                    "zip central directory (%llu bytes at byte %llu) runs "
                    "past the end of the %zu-byte archive",
                    (unsigned long long)z->cd_size,
                    (unsigned long long)z->cd, size);
  /* Each record takes DIR_LEN bytes at least: a count beyond that is a
   * lie, refused before anyone loops over it. */
  if (z->count > z->cd_size / DIR_LEN)
    return nns__err(err, NNS_E_MODEL, (int64_t)at, NULL,
                    "zip directory claims %llu entries in %llu bytes",
                    (unsigned long long)z->count,
                    (unsigned long long)z->cd_size);
  return NNS_OK;
}

/* Applies a zip64 extra field (id 1) to the sizes and offset that read
 * 0xFFFFFFFF, in the order the format gives them. */
static nns_status zip64_extra(nns__zip_entry *e, const uint8_t *x,
                              size_t len, bool big_u, bool big_c, bool big_l,
                              nns_error *err) {
  while (len >= 4) {
    uint16_t id = u16(x), n = u16(x + 2);
    if ((size_t)n > len - 4)
      break;
    if (id == 1) {
      const uint8_t *p = x + 4;
      size_t left = n;
      uint64_t *want[3] = {big_u ? &e->usize : NULL,
                           big_c ? &e->csize : NULL,
                           big_l ? &e->local : NULL};
      for (int k = 0; k < 3; k++) {
        if (!want[k])
          continue;
        if (left < 8)
          return nns__err(err, NNS_E_MODEL, e->dir_offset, NULL,
                          "zip64 extra field of '%.*s' is cut short",
                          (int)(e->name_len > 200 ? 200 : e->name_len),
                          e->name);
        *want[k] = u64(p);
        p += 8;
        left -= 8;
      }
      return NNS_OK;
    }
    x += 4 + n;
    len -= 4 + (size_t)n;
  }
  if (big_u || big_c || big_l)
    return nns__err(err, NNS_E_MODEL, e->dir_offset, NULL,
                    "zip entry '%.*s' has 32-bit sizes of 0xFFFFFFFF "
                    "without a zip64 extra field",
                    (int)(e->name_len > 200 ? 200 : e->name_len), e->name);
  return NNS_OK;
}

nns_status nns__zip_next(const nns__zip *z, uint64_t *cursor,
                         nns__zip_entry *e, nns_error *err) {
  uint64_t off = z->cd + *cursor;
  uint64_t end = z->cd + z->cd_size;
  if (off > end || end - off < DIR_LEN)
    return nns__err(err, NNS_E_TRUNCATED, (int64_t)off, NULL,
                    "zip directory record at byte %llu is cut short",
                    (unsigned long long)off);
  const uint8_t *p = z->data + off;
  if (u32(p) != SIG_DIR)
    return nns__err(err, NNS_E_MODEL, (int64_t)off, NULL,
                    "no zip directory record at byte %llu",
                    (unsigned long long)off);
  size_t nlen = u16(p + 28), xlen = u16(p + 30), clen = u16(p + 32);
  if (end - off - DIR_LEN < nlen + xlen + clen)
    return nns__err(err, NNS_E_TRUNCATED, (int64_t)off, NULL,
                    "zip directory record at byte %llu runs past the "
                    "directory", (unsigned long long)off);
  memset(e, 0, sizeof *e);
  e->dir_offset = (int64_t)off;
  e->method = u16(p + 10);
  e->csize = u32(p + 20);
  e->usize = u32(p + 24);
  e->local = u32(p + 42);
  e->name = (const char *)p + DIR_LEN;
  e->name_len = nlen;
  nns_status st = zip64_extra(e, p + DIR_LEN + nlen, xlen,
                              u32(p + 24) == 0xFFFFFFFFu,
                              u32(p + 20) == 0xFFFFFFFFu,
                              u32(p + 42) == 0xFFFFFFFFu, err);
  if (st != NNS_OK)
    return st;
  *cursor += DIR_LEN + nlen + xlen + clen;
  return NNS_OK;
}

nns_status nns__zip_read(const nns__zip *z, const nns__zip_entry *e,
                         uint64_t limit, const uint8_t **out, size_t *len,
                         void **owned, nns_error *err) {
  int nl = (int)(e->name_len > 200 ? 200 : e->name_len);
  *out = NULL;
  *len = 0;
  *owned = NULL;
  if (e->usize > limit)
    return nns__err(err, NNS_E_LIMIT, e->dir_offset, NULL,
                    "zip entry '%.*s' unpacks to %llu bytes, over the "
                    "limit of %llu", nl, e->name,
                    (unsigned long long)e->usize,
                    (unsigned long long)limit);
  if (!fits(z, e->local, LOCAL_LEN) ||
      u32(z->data + e->local) != SIG_LOCAL)
    return nns__err(err, NNS_E_MODEL, e->dir_offset, NULL,
                    "zip entry '%.*s': no local header at byte %llu", nl,
                    e->name, (unsigned long long)e->local);
  const uint8_t *h = z->data + e->local;
  uint64_t start = e->local + LOCAL_LEN + u16(h + 26) + u16(h + 28);
  if (!fits(z, start, e->csize))
    return nns__err(err, NNS_E_TRUNCATED, (int64_t)e->local, NULL,
                    "zip entry '%.*s' (%llu bytes at byte %llu) runs past "
                    "the end of the archive", nl, e->name,
                    (unsigned long long)e->csize,
                    (unsigned long long)start);
  const uint8_t *src = z->data + start;
  if (e->method == 0) {
    if (e->csize != e->usize)
      return nns__err(err, NNS_E_MODEL, e->dir_offset, NULL,
                      "stored zip entry '%.*s' has %llu bytes packed but "
                      "%llu unpacked", nl, e->name,
                      (unsigned long long)e->csize,
                      (unsigned long long)e->usize);
    *out = src;
    *len = (size_t)e->usize;
    return NNS_OK;
  }
  if (e->method != 8)
    return nns__err(err, NNS_E_MODEL, e->dir_offset, NULL,
                    "zip entry '%.*s' uses compression method %u; only "
                    "stored (0) and deflated (8) are read", nl, e->name,
                    (unsigned)e->method);
  if (e->usize == 0) { /* nothing to inflate into, nothing to check */
    static const uint8_t empty[1];
    *out = empty;
    return NNS_OK;
  }
  uint8_t *buf = malloc((size_t)e->usize);
  if (!buf)
    return nns__err(err, NNS_E_NOMEM, -1, NULL, "out of memory");
  z_stream s;
  memset(&s, 0, sizeof s);
  if (inflateInit2(&s, -MAX_WBITS) != Z_OK) {
    free(buf);
    return nns__err(err, NNS_E_NOMEM, -1, NULL, "zlib inflateInit failed");
  }
  /* zlib counts in uInt: feed and drain in pieces below 4 GiB. */
  uint64_t in_left = e->csize, out_left = e->usize;
  const uint8_t *ip = src;
  uint8_t *op = buf;
  int rc = Z_OK;
  while (rc == Z_OK) {
    if (s.avail_in == 0 && in_left) {
      uInt n = in_left > (1u << 30) ? (1u << 30) : (uInt)in_left;
      s.next_in = (Bytef *)(uintptr_t)ip;
      s.avail_in = n;
      ip += n;
      in_left -= n;
    }
    if (s.avail_out == 0) {
      /* Room for one byte more than declared: an entry that inflates
       * past its declared size is caught, not trusted. */
      uInt n = out_left > (1u << 30) ? (1u << 30) : (uInt)out_left;
      if (n == 0)
        break;
      s.next_out = op;
      s.avail_out = n;
      op += n;
      out_left -= n;
    }
    rc = inflate(&s, Z_NO_FLUSH);
    if (rc == Z_BUF_ERROR && s.avail_in == 0 && in_left == 0)
      break;
    if (rc == Z_BUF_ERROR && s.avail_out == 0 && out_left)
      rc = Z_OK;
  }
  uint64_t made = (uint64_t)s.total_out;
  inflateEnd(&s);
  if (rc != Z_STREAM_END || made != e->usize) {
    free(buf);
    return nns__err(err, NNS_E_MODEL, e->dir_offset, NULL,
                    "zip entry '%.*s' does not inflate to its declared %llu "
                    "bytes (%s)", nl, e->name, (unsigned long long)e->usize,
                    rc == Z_DATA_ERROR ? "corrupt deflate data"
                    : rc == Z_STREAM_END ? "short"
                                         : "more data than declared, or cut");
  }
  *out = buf;
  *len = (size_t)e->usize;
  *owned = buf;
  return NNS_OK;
}
