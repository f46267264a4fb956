/*
 * fmap.c - read-only file access: the model file's mapping (the model is
 * decoded in place from it, so a 100 MB file with inline weights costs only
 * the pages the decoder touches), and opening external data files without
 * leaving the model's folder.
 */
#define _GNU_SOURCE /* syscall() */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>
#if defined(__linux__) && defined(SYS_openat2)
#include <linux/openat2.h>
#endif

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
  else
    free((void *)fm->data);
  memset(fm, 0, sizeof *fm);
}

nns_status nns__fmap_copy(nns__fmap *fm, const void *data, size_t size) {
  memset(fm, 0, sizeof *fm);
  void *p = malloc(size ? size : 1);
  if (!p)
    return NNS_E_NOMEM;
  memcpy(p, data, size);
  fm->data = p;
  fm->size = size;
  return NNS_OK;
}

/* ==== External data: opening beneath a folder ==== */

/* Component by component, refusing every symbolic link (O_NOFOLLOW): the
 * fallback where openat2 is missing (or filtered by a seccomp policy). */
int nns__open_nofollow(int dirfd, const char *rel) {
  char *copy = strdup(rel);
  if (!copy)
    return -1;
  int cur = dirfd, fd = -1;
  char *save = NULL;
  char *part = strtok_r(copy, "/", &save);
  errno = ENOENT; /* a path of nothing but "." and "/" names no file */
  while (part) {
    char *next = strtok_r(NULL, "/", &save);
    while (next && strcmp(next, ".") == 0)
      next = strtok_r(NULL, "/", &save);
    if (strcmp(part, ".") == 0) {
      part = next;
      continue;
    }
    int flags = O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK |
                (next ? O_DIRECTORY : 0);
    int opened = openat(cur, part, flags);
    int e = errno;
    if (cur != dirfd)
      close(cur);
    errno = e;
    if (opened < 0 || !next) {
      fd = opened;
      cur = dirfd; /* nothing left open but `opened` */
      break;
    }
    cur = opened;
    part = next;
  }
  if (cur != dirfd)
    close(cur);
  free(copy);
  return fd;
}

int nns__open_beneath(const char *dir, const char *rel) {
  int dirfd = open(dir && *dir ? dir : ".",
                   O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dirfd < 0)
    return -1;
  int fd = -1;
#if defined(__linux__) && defined(SYS_openat2)
  struct open_how how;
  memset(&how, 0, sizeof how);
  how.flags = O_RDONLY | O_CLOEXEC | O_NONBLOCK;
  how.resolve = RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS;
  fd = (int)syscall(SYS_openat2, dirfd, rel, &how, sizeof how);
  if (fd < 0 && errno != ENOSYS && errno != EPERM) {
    int e = errno;
    close(dirfd);
    errno = e;
    return -1;
  }
#endif
  if (fd < 0)
    fd = nns__open_nofollow(dirfd, rel);
  int e = errno;
  close(dirfd);
  errno = e;
  return fd;
}
