/*
 * fuzz_layers.c - libFuzzer target for the two ways a caller's own
 * figures reach the layers tables: nns_report_layers (rows a binding
 * counted by another tool's conventions: names, classes, dims, MACs and
 * params straight from the user's model) and nns_format_count (any
 * double, width and digits). Any input must give a status, never a
 * crash, a read outside a buffer, a write past `size`, or a leak.
 *
 * Input layout (a short input reads as zeros past its end): one byte of
 * options (count style, numbers, which row sizes), then per row: a name
 * and a class (a length byte, then that many bytes, any values), two
 * ranks (a signed byte each, -2 to 6 used as given), their dims (8 bytes
 * each) and MACs and params (8 bytes each). The last row read is the
 * Total row. Then nns_format_count over each row's MACs read as a double.
 */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "nnscan.h"
#include "fuzz_report.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static volatile unsigned fuzz_kept;

#define MAX_ROWS 12
#define MAX_RANK 6

typedef struct reader {
  const uint8_t *p;
  size_t left;
} reader;

static uint8_t take_byte(reader *r) {
  if (!r->left)
    return 0;
  r->left--;
  return *r->p++;
}

static int64_t take_i64(reader *r) {
  uint64_t v = 0;
  for (int i = 0; i < 8; i++)
    v = v << 8 | take_byte(r);
  int64_t out;
  memcpy(&out, &v, sizeof out);
  return out;
}

/* A string of any bytes, NUL-terminated in buf (an inner NUL cuts it). */
static const char *take_text(reader *r, char *buf, size_t cap) {
  size_t n = take_byte(r) % cap;
  for (size_t i = 0; i < n; i++)
    buf[i] = (char)take_byte(r);
  buf[n] = '\0';
  return buf;
}

typedef struct row_store {
  char name[64], cls[64];
  int64_t in[MAX_RANK], out[MAX_RANK];
} row_store;

static void take_dims(reader *r, int *rank, int64_t *dims) {
  *rank = (int8_t)take_byte(r) % (MAX_RANK + 3) - 2; /* -2 (bad) to 6 */
  for (int i = 0; i < *rank; i++)
    dims[i] = take_i64(r);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  reader r = {data, size};
  nns_error err;
  uint8_t opt = take_byte(&r);
  nns_count_style style = (nns_count_style)(opt & 3); /* 2, 3: unknown */
  static row_store store[MAX_ROWS];
  nns_layers_row rows[MAX_ROWS];
  size_t n = 0;
  while (r.left && n < MAX_ROWS) {
    row_store *s = &store[n];
    nns_layers_row *row = &rows[n];
    memset(row, 0, sizeof *row);
    /* A row size below the first version's is refused, not read. */
    row->size = opt & 4 && n == 0 ? sizeof *row / 2 : sizeof *row;
    row->name = take_text(&r, s->name, sizeof s->name);
    row->class_name = take_text(&r, s->cls, sizeof s->cls);
    take_dims(&r, &row->input_rank, s->in);
    take_dims(&r, &row->output_rank, s->out);
    /* A positive rank without dims is refused too. */
    row->input_shape = opt & 8 && n == 1 ? NULL : s->in;
    row->output_shape = s->out;
    row->macs = take_i64(&r);
    row->params = take_i64(&r);
    n++;
  }
  if (!n)
    return 0;
  unsigned sum = 0;
  for (int f = NNS_FORMAT_LAYERS_TEXT; f <= NNS_FORMAT_LAYERS_JSON; f++)
    for (int k = NNS_NUMBERS_RAW; k <= NNS_NUMBERS_RATIO; k++) {
      nns_report_options ro = {.size = sizeof ro,
                               .format = (nns_report_format)f,
                               .numbers = (nns_numbers)k};
      (void)nns_report_layers(rows, n - 1, &rows[n - 1], style, &ro,
                              fuzz_sink, &sum, &err);
    }
  /* nns_format_count: any bits as a double (NaN, infinities, huge and
   * tiny), widths and digits in and out of range, buffers too small. */
  char buf[NNS_COUNT_SIZE_MAX];
  for (size_t i = 0; i < n; i++) {
    double v;
    memcpy(&v, &rows[i].macs, sizeof v);
    int width = (int)(rows[i].params & 0x7f) - 8;
    int digits = (int)(rows[i].params >> 8 & 0x3f) - 4;
    size_t cap = (size_t)(rows[i].params >> 16 & 0x1ff);
    if (cap > sizeof buf)
      cap = sizeof buf;
    if (nns_format_count(v, style, width, digits, buf, cap, &err) == NNS_OK)
      sum += (unsigned)strlen(buf);
  }
  fuzz_kept = sum; /* the sink's reads are not optimised away */
  return 0;
}
