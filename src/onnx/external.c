/*
 * external.c - a load-time look at the external data files a model names.
 * Weights are never read here; the check only says, once per file, when a
 * file is missing (common: people download model.onnx without its multi-GB
 * weights) or too short for the tensors that point into it. Both are
 * warnings: shapes and counts never need the weights.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "load_int.h"

enum { MAX_FILES = 64 }; /* distinct files examined; more are summarised */

typedef struct ext_file {
  const char *location;
  int64_t tensors;
  int64_t end;     /* furthest byte the tensors need */
} ext_file;

/* Bytes a tensor occupies in its file: its length, or numel x dtype size. */
static int64_t tensor_end(const nns__tensor *t) {
  int64_t len = t->ext_length;
  if (len < 0) {
    int bits = nns__dtype_bits(t->dtype);
    int64_t b;
    if (bits <= 0 || !nns__mul_i64(t->numel, bits, &b))
      return t->ext_offset;
    len = (b + 7) / 8;
  }
  int64_t end;
  return nns__add_i64(t->ext_offset, len, &end) ? end : INT64_MAX;
}

void nns__check_external(nns_model *m) {
  ext_file files[MAX_FILES];
  size_t n = 0, skipped = 0;
  for (size_t i = 0; i < m->n_values; i++) {
    const nns__tensor *t = m->values[i]->init;
    if (!t || t->storage != NNS__ST_EXTERNAL || !t->ext_location)
      continue;
    size_t k = 0;
    while (k < n && strcmp(files[k].location, t->ext_location) != 0)
      k++;
    if (k == n) {
      if (n == MAX_FILES) {
        skipped++;
        continue;
      }
      files[n++] = (ext_file){.location = t->ext_location};
    }
    files[k].tensors++;
    int64_t end = tensor_end(t);
    if (end > files[k].end)
      files[k].end = end;
  }
  for (size_t k = 0; k < n; k++) {
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", m->dir, files[k].location);
    /* Opened (not stat'ed by path) beneath the model's folder: a link
     * leaving it is neither followed nor measured, so the warning cannot
     * tell the size of a file outside. */
    struct stat st;
    int fd = nns__open_beneath(m->dir, files[k].location);
    int e = errno;
    bool seen = fd >= 0 && fstat(fd, &st) == 0;
    if (fd >= 0)
      close(fd);
    if (fd < 0 && (e == EXDEV || e == ELOOP))
      nns__warn(m, "external data file '%s' (%lld tensors) is a symbolic "
                "link out of the model's folder: not followed, its tensors "
                "are not read", path, (long long)files[k].tensors);
    else if (!seen)
      nns__warn(m, "external data file '%s' (%lld tensors) not found: "
                "weights are not read, shapes and counts do not need them",
                path, (long long)files[k].tensors);
    else if (!S_ISREG(st.st_mode))
      nns__warn(m, "external data file '%s' (%lld tensors) is not a "
                "regular file: its tensors are not read", path,
                (long long)files[k].tensors);
    else if ((int64_t)st.st_size < files[k].end)
      nns__warn(m, "external data file '%s' has %lld bytes but its %lld "
                "tensors reach byte %lld", path, (long long)st.st_size,
                (long long)files[k].tensors, (long long)files[k].end);
  }
  if (skipped)
    nns__warn(m, "%zu more tensors name further external files; those "
              "files were not checked", skipped);
}
