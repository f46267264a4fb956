/*
 * sniff.c - what a file that is not ONNX looks like. A text file, a
 * PyTorch checkpoint or a saved web page given as a model fails deep in
 * the protobuf decoder ("ModelProto.metadata_props at byte 0: wire type 4
 * (group end)"); the loader then says first that it is not an ONNX model
 * and what it looks like, and keeps the decoder's detail after.
 *
 * Only the first bytes are read (a magic number, or whether the start is
 * text), and only after decoding failed: a real model costs nothing.
 */
#include <string.h>

#include "load_int.h"

/* How many leading bytes tell text from binary: protobuf's field tags and
 * lengths are control bytes (0x08, 0x12, 0x1a...) within a few bytes. */
enum { SNIFF_TEXT_BYTES = 4096, SNIFF_ZIP_BYTES = 1 << 16 };

static bool starts(const uint8_t *d, size_t n, const char *magic,
                   size_t len) {
  return n >= len && memcmp(d, magic, len) == 0;
}

/* Case-insensitive search for an ASCII word in the first n bytes. */
static bool has_word(const uint8_t *d, size_t n, const char *w) {
  size_t len = strlen(w);
  for (size_t i = 0; i + len <= n; i++) {
    size_t k = 0;
    while (k < len && (d[i + k] | 0x20) == (uint8_t)(w[k] | 0x20))
      k++;
    if (k == len)
      return true;
  }
  return false;
}

/* Text: no control byte but tab, newline, carriage return, form feed
 * (bytes >= 0x80 are taken as UTF-8 text). */
static bool is_text(const uint8_t *d, size_t n) {
  for (size_t i = 0; i < n; i++)
    if ((d[i] < 0x20 && d[i] != '\t' && d[i] != '\n' && d[i] != '\r' &&
         d[i] != '\f') ||
        d[i] == 0x7f)
      return false;
  return true;
}

const char *nns__sniff_format(const uint8_t *d, size_t n) {
  if (!d || n == 0)
    return NULL; /* the decoder's own message says "empty" */
  size_t zip_n = n < SNIFF_ZIP_BYTES ? n : SNIFF_ZIP_BYTES;
  if (starts(d, n, "PK\x03\x04", 4))
    return has_word(d, zip_n, "data.pkl")
               ? "a PyTorch checkpoint, a zip archive from torch.save: "
                 "export the model with torch.onnx.export, or give the "
                 "module to nnscan.summary in Python"
               : "a zip archive";
  if (n >= 2 && d[0] == 0x80 && d[1] >= 2 && d[1] <= 5)
    return "a Python pickle, an older torch.save checkpoint?";
  if (starts(d, n, "\x89HDF\r\n\x1a\n", 8))
    return "an HDF5 file, a Keras .h5 model?";
  if (starts(d, n, "\x93NUMPY", 6))
    return "a NumPy array file (.npy)";
  if (starts(d, n, "\x1f\x8b", 2))
    return "gzip-compressed data: decompress it first";
  if (n >= 8 && memcmp(d + 4, "TFL3", 4) == 0)
    return "a TensorFlow Lite model";
  size_t tn = n < SNIFF_TEXT_BYTES ? n : SNIFF_TEXT_BYTES;
  if (!is_text(d, tn))
    return NULL;
  if (starts(d, n, "version https://git-lfs", 23))
    return "a Git LFS pointer: the model itself was never downloaded "
           "(git lfs pull)";
  size_t i = starts(d, n, "\xef\xbb\xbf", 3) ? 3 : 0; /* UTF-8 BOM */
  while (i < tn && (d[i] == ' ' || d[i] == '\t' || d[i] == '\n' ||
                    d[i] == '\r'))
    i++;
  if (i < tn && (d[i] == '{' || d[i] == '['))
    return "JSON text";
  if (i < tn && d[i] == '<')
    return has_word(d, tn, "<html") || has_word(d, tn, "<!doctype html")
               ? "an HTML page, a web page saved instead of the model?"
               : "XML text";
  if (has_word(d, tn, "ir_version") || has_word(d, tn, "graph {"))
    return "ONNX in protobuf text format, which nnscan does not read: "
           "save it in the binary format";
  return "text";
}
