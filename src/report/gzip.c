/*
 * gzip.c - a small gzip writer (RFC 1951 deflate with the fixed Huffman
 * code, RFC 1952 framing) for the HTML report, which embeds a large
 * model's JSON document compressed and lets the browser inflate it with
 * its built-in DecompressionStream.
 *
 * Why not zlib: libnnscan has no dependency beyond libc, and the report
 * needs only a compressor, not a fast or optimal one. JSON is made of a
 * few keys repeated thousands of times, which LZ77 matching alone shrinks
 * by an order of magnitude; the fixed Huffman code spares the code-length
 * tables a dynamic block would need. Matching is greedy over a hash chain
 * of bounded length, so the time is linear in the input.
 */
#include <stdlib.h>
#include <string.h>

#include "../base/base.h"
#include "report_int.h"

/* ==== Bit output ==== */

typedef struct bits {
  unsigned char *buf; /* compressed bytes */
  size_t len, cap;
  uint64_t acc;       /* pending bits, least significant first */
  int n;              /* number of pending bits */
  bool nomem;
} bits;

static void bits_byte(bits *b, unsigned char c) {
  unsigned char *p = nns__grow(b->buf, &b->cap, b->len + 1, 1, 4096);
  if (!p) {
    b->nomem = true;
    return;
  }
  b->buf = p;
  b->buf[b->len++] = c;
}

/* `n` bits of v, least significant first (deflate's order for extra bits
 * and headers). */
static void bits_put(bits *b, uint32_t v, int n) {
  b->acc |= (uint64_t)v << b->n;
  b->n += n;
  while (b->n >= 8) {
    bits_byte(b, (unsigned char)b->acc);
    b->acc >>= 8;
    b->n -= 8;
  }
}

/* A Huffman code of `n` bits, which deflate sends most significant first. */
static void bits_code(bits *b, uint32_t code, int n) {
  uint32_t r = 0;
  for (int i = 0; i < n; i++)
    r |= ((code >> i) & 1u) << (n - 1 - i);
  bits_put(b, r, n);
}

/* ==== The fixed Huffman code (RFC 1951, 3.2.6) ==== */

static void put_litlen(bits *b, unsigned v) {
  if (v < 144)
    bits_code(b, 0x30 + v, 8);
  else if (v < 256)
    bits_code(b, 0x190 + (v - 144), 9);
  else if (v < 280)
    bits_code(b, v - 256, 7);
  else
    bits_code(b, 0xc0 + (v - 280), 8);
}

static const uint16_t len_base[29] = {
    3,  4,  5,  6,  7,  8,  9,  10, 11,  13,  15,  17,  19,  23, 27,
    31, 35, 43, 51, 59, 67, 83, 99, 115, 131, 163, 195, 227, 258};
static const uint8_t len_extra[29] = {0, 0, 0, 0, 0, 0, 0, 0, 1, 1,
                                      1, 1, 2, 2, 2, 2, 3, 3, 3, 3,
                                      4, 4, 4, 4, 5, 5, 5, 5, 0};
static const uint16_t dist_base[30] = {
    1,   2,   3,   4,   5,   7,    9,    13,   17,   25,   33,   49,   65,
    97,  129, 193, 257, 385, 513,  769,  1025, 1537, 2049, 3073, 4097, 6145,
    8193, 12289, 16385, 24577};
static const uint8_t dist_extra[30] = {0, 0, 0, 0, 1, 1, 2, 2, 3, 3,
                                       4, 4, 5, 5, 6, 6, 7, 7, 8, 8,
                                       9, 9, 10, 10, 11, 11, 12, 12, 13, 13};

static void put_match(bits *b, unsigned len, unsigned dist) {
  int l = 28;
  while (len_base[l] > len)
    l--;
  put_litlen(b, 257 + (unsigned)l);
  bits_put(b, len - len_base[l], len_extra[l]);
  int d = 29;
  while (dist_base[d] > dist)
    d--;
  bits_code(b, (uint32_t)d, 5);
  bits_put(b, dist - dist_base[d], dist_extra[d]);
}

/* ==== LZ77 and framing ==== */

enum {
  WINDOW = 32768,     /* deflate's largest distance */
  MIN_MATCH = 3,
  MAX_MATCH = 258,
  HASH_BITS = 15,
  MAX_CHAIN = 24,     /* candidates tried per position: bounds the time */
  LONG_SKIP = 8       /* positions of a long match that enter the chains, at
                         each end */
};

static uint32_t crc32_of(const unsigned char *p, size_t n) {
  static uint32_t table[256];
  static bool ready;
  if (!ready) {
    for (uint32_t i = 0; i < 256; i++) {
      uint32_t c = i;
      for (int k = 0; k < 8; k++)
        c = c & 1 ? 0xedb88320u ^ (c >> 1) : c >> 1;
      table[i] = c;
    }
    ready = true;
  }
  uint32_t c = 0xffffffffu;
  for (size_t i = 0; i < n; i++)
    c = table[(c ^ p[i]) & 0xff] ^ (c >> 8);
  return c ^ 0xffffffffu;
}

static uint32_t hash3(const unsigned char *p) {
  uint32_t v = (uint32_t)p[0] << 16 | (uint32_t)p[1] << 8 | p[2];
  return (v * 2654435761u) >> (32 - HASH_BITS);
}

/* Length of the common prefix of a and b, at most limit: eight bytes at a
 * time where the byte order lets the first difference be found from the
 * low bits. */
static unsigned match_len(const unsigned char *a, const unsigned char *b,
                          size_t limit) {
  size_t len = 0;
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
  while (len + 8 <= limit) {
    uint64_t x, y;
    memcpy(&x, a + len, 8);
    memcpy(&y, b + len, 8);
    if (x != y)
      return (unsigned)(len + ((unsigned)__builtin_ctzll(x ^ y) >> 3));
    len += 8;
  }
#endif
  while (len < limit && a[len] == b[len])
    len++;
  return (unsigned)len;
}

nns_status nns__gzip(const unsigned char *in, size_t n, unsigned char **out,
                     size_t *out_len) {
  *out = NULL;
  *out_len = 0;
  bits b = {0};
  /* head[h]: last position + 1 with hash h; prev[p % WINDOW]: the one
   * before it with the same hash (0: none). */
  uint32_t *head = calloc((size_t)1 << HASH_BITS, sizeof *head);
  uint32_t *prev = calloc(WINDOW, sizeof *prev);
  if (!head || !prev || n >= UINT32_MAX) {
    free(head);
    free(prev);
    return NNS_E_NOMEM;
  }
  static const unsigned char header[10] = {0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0,
                                           0xff};
  for (int i = 0; i < 10; i++)
    bits_byte(&b, header[i]);
  bits_put(&b, 1, 1); /* BFINAL: one block */
  bits_put(&b, 1, 2); /* BTYPE 01: fixed Huffman */
  size_t i = 0;
  while (i < n) {
    unsigned best = 0, best_dist = 0;
    if (i + MIN_MATCH <= n) {
      uint32_t h = hash3(in + i);
      size_t limit = n - i < MAX_MATCH ? n - i : MAX_MATCH;
      uint32_t cand = head[h];
      for (int chain = 0; cand && chain < MAX_CHAIN; chain++) {
        size_t c = cand - 1;
        if (i - c > WINDOW - 1)
          break;
        /* A candidate that differs where the best match ends cannot
         * beat it. */
        unsigned len = best < limit && in[c + best] != in[i + best]
                           ? 0
                           : match_len(in + c, in + i, limit);
        if (len > best) {
          best = len;
          best_dist = (unsigned)(i - c);
          if (len == limit)
            break;
        }
        uint32_t next = prev[c % WINDOW];
        if (next == 0 || next - 1 >= c)
          break; /* the chain went out of the window and wrapped */
        cand = next;
      }
    }
    size_t step = best >= MIN_MATCH ? best : 1;
    if (best >= MIN_MATCH)
      put_match(&b, best, best_dist);
    else
      put_litlen(&b, in[i]);
    /* The positions passed enter the hash chains; inside a long match only
     * its first and last few do (JSON repeats long runs: inserting every
     * byte of them costs time and finds nothing better). */
    for (size_t k = i; k < i + step && k + MIN_MATCH <= n; k++) {
      if (step > 2 * LONG_SKIP && k == i + LONG_SKIP)
        k = i + step - LONG_SKIP;
      uint32_t h = hash3(in + k);
      prev[k % WINDOW] = head[h];
      head[h] = (uint32_t)k + 1;
    }
    i += step;
  }
  put_litlen(&b, 256); /* end of block */
  if (b.n)
    bits_put(&b, 0, 8 - b.n);
  uint32_t crc = crc32_of(in, n), size = (uint32_t)n;
  for (int k = 0; k < 4; k++)
    bits_byte(&b, (unsigned char)(crc >> (8 * k)));
  for (int k = 0; k < 4; k++)
    bits_byte(&b, (unsigned char)(size >> (8 * k)));
  free(head);
  free(prev);
  if (b.nomem) {
    free(b.buf);
    return NNS_E_NOMEM;
  }
  *out = b.buf;
  *out_len = b.len;
  return NNS_OK;
}
