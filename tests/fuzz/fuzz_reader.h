/*
 * fuzz_reader.h - how the call-sequence fuzz targets (fuzz_builder,
 * fuzz_inspect) read their input: one byte at a time, zeros past the end,
 * and integers drawn mostly small with the edges (-1, INT64_MIN/MAX, large
 * powers of two) often enough that overflow checks are reached.
 */
#ifndef NNS_FUZZ_READER_H
#define NNS_FUZZ_READER_H

#include <stddef.h>
#include <stdint.h>

typedef struct reader {
  const uint8_t *p; /* next byte */
  size_t n;         /* bytes left */
} reader;

static inline unsigned byte(reader *r) {
  if (!r->n)
    return 0;
  r->n--;
  return *r->p++;
}

static inline int64_t i64(reader *r) {
  unsigned k = byte(r);
  switch (k & 7) {
  case 0: return -1;
  case 1: return (int64_t)(k >> 3); /* small sizes, the usual */
  case 2: return (int64_t)((uint64_t)byte(r) << (byte(r) % 56));
  case 3: return INT64_MAX - (int64_t)byte(r);
  case 4: return INT64_MIN + (int64_t)byte(r);
  default: return (int64_t)((byte(r) << 8) | byte(r));
  }
}

#endif
