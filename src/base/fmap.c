/*
 * fmap.c - read-only file mapping. The model is decoded in place from the
 * mapping, so a 100 MB file with inline weights costs only the pages the
 * decoder touches.
 */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base.h"

nns_status nns__fmap_open(nns__fmap *fm, const char *path, nns_error *err) {
  memset(fm, 0, sizeof *fm);
  /* O_NONBLOCK: opening a FIFO (or a device) must not wait for a writer
   * before the regular-file check below refuses it. A regular file ignores
   * the flag, and the data is read through the mapping, never read(). */
  int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0)
    return nns__err(err, NNS_E_IO, -1, NULL, "cannot open '%s': %s", path,
                    strerror(errno));
  struct stat st;
  if (fstat(fd, &st) != 0) {
    int e = errno;
    close(fd);
    return nns__err(err, NNS_E_IO, -1, NULL, "cannot stat '%s': %s", path,
                    strerror(e));
  }
  if (!S_ISREG(st.st_mode)) {
    close(fd);
    return nns__err(err, NNS_E_IO, -1, NULL, "'%s' is not a regular file",
                    path);
  }
  if (st.st_size == 0) {
    close(fd);
    return NNS_OK; /* an empty file decodes as an empty message */
  }
  /* A small model is read whole anyway: prefault it in one go rather than
   * page by page. A large one (inline weights) maps lazily, so the weight
   * pages the decoder skips are never read. */
  int flags = MAP_PRIVATE;
#ifdef MAP_POPULATE
  if (st.st_size <= (off_t)8 << 20)
    flags |= MAP_POPULATE;
#endif
  void *p = mmap(NULL, (size_t)st.st_size, PROT_READ, flags, fd, 0);
  int e = errno;
  close(fd);
  if (p == MAP_FAILED)
    return nns__err(err, NNS_E_IO, -1, NULL, "cannot map '%s': %s", path,
                    strerror(e));
  fm->data = p;
  fm->size = (size_t)st.st_size;
  fm->mapped = true;
  return NNS_OK;
}

void nns__fmap_close(nns__fmap *fm) {
  if (fm->mapped && fm->data)
    munmap((void *)fm->data, fm->size);
  memset(fm, 0, sizeof *fm);
}
