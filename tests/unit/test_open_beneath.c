/*
 * test_open_beneath.c - external data files are opened inside the model's
 * folder only (src/base/fmap.c): a regular file and a subfolder's file
 * open; a symbolic link that leaves the folder does not, neither through
 * openat2 (where the kernel has it) nor through the O_NOFOLLOW fallback;
 * a FIFO opens without blocking (the caller then sees it is not a regular
 * file). The folder is built in a temporary directory by the test itself.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/base.h"
#include "check.h"

static char root[256], model[300];

static void put(const char *path, const char *text) {
  FILE *f = fopen(path, "w");
  CHECK(f != NULL);
  if (f) {
    fputs(text, f);
    fclose(f);
  }
}

static void setup(void) {
  snprintf(root, sizeof root, "/tmp/nns_beneath_XXXXXX");
  CHECK(mkdtemp(root) != NULL);
  char p[400], q[400];
  snprintf(model, sizeof model, "%s/model", root);
  CHECK(mkdir(model, 0700) == 0);
  snprintf(p, sizeof p, "%s/model/sub", root);
  CHECK(mkdir(p, 0700) == 0);
  snprintf(p, sizeof p, "%s/secret.bin", root);
  put(p, "outside");
  snprintf(p, sizeof p, "%s/model/w.bin", root);
  put(p, "inside");
  snprintf(p, sizeof p, "%s/model/sub/v.bin", root);
  put(p, "deeper");
  snprintf(p, sizeof p, "%s/model/out.bin", root);
  CHECK(symlink("../secret.bin", p) == 0);
  snprintf(p, sizeof p, "%s/model/sub/up.bin", root);
  CHECK(symlink("../../secret.bin", p) == 0);
  snprintf(p, sizeof p, "%s/model/abs.bin", root);
  snprintf(q, sizeof q, "%s/secret.bin", root);
  CHECK(symlink(q, p) == 0);
  snprintf(p, sizeof p, "%s/model/fifo", root);
  CHECK(mkfifo(p, 0600) == 0);
}

static void teardown(void) {
  static const char *const files[] = {
      "model/fifo", "model/abs.bin", "model/sub/up.bin", "model/out.bin",
      "model/sub/v.bin", "model/w.bin", "secret.bin", "model/sub", "model"};
  char p[400];
  for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
    snprintf(p, sizeof p, "%s/%s", root, files[i]);
    remove(p);
  }
  rmdir(root);
}

/* Opens rel with both paths; returns how many opened (closing them). */
static int opens(const char *rel, int *err_beneath) {
  int n = 0;
  errno = 0;
  int fd = nns__open_beneath(model, rel);
  *err_beneath = fd < 0 ? errno : 0;
  if (fd >= 0) {
    n++;
    close(fd);
  }
  int dirfd = open(model, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  CHECK(dirfd >= 0);
  fd = nns__open_nofollow(dirfd, rel);
  if (fd >= 0) {
    n++;
    close(fd);
  }
  close(dirfd);
  return n;
}

static void test_inside_opens(void) {
  int e;
  CHECK_EQ(opens("w.bin", &e), 2);
  CHECK_EQ(opens("sub/v.bin", &e), 2);
  CHECK_EQ(opens("./sub/./v.bin", &e), 2);
}

static void test_links_out_refused(void) {
  int e;
  CHECK_EQ(opens("out.bin", &e), 0);
  CHECK(e == EXDEV || e == ELOOP);
  CHECK_EQ(opens("sub/up.bin", &e), 0);
  CHECK(e == EXDEV || e == ELOOP);
  CHECK_EQ(opens("abs.bin", &e), 0);
  CHECK(e == EXDEV || e == ELOOP);
  CHECK_EQ(opens("missing.bin", &e), 0);
  CHECK_EQ(e, ENOENT);
}

/* A FIFO opens at once (non-blocking), and is then seen for what it is. */
static void test_fifo_does_not_block(void) {
  int fd = nns__open_beneath(model, "fifo");
  CHECK(fd >= 0);
  if (fd >= 0) {
    struct stat st;
    CHECK(fstat(fd, &st) == 0 && S_ISFIFO(st.st_mode));
    close(fd);
  }
}

int main(void) {
  setup();
  RUN(test_inside_opens);
  RUN(test_links_out_refused);
  RUN(test_fifo_does_not_block);
  teardown();
  return check_finish();
}
