/*
 * page_cost.c - what a fresh anonymous page costs at its first touch, in
 * huge pages and in 4 KB pages: maps MB megabytes (2 MB-aligned), advises
 * them MADV_HUGEPAGE or MADV_NOHUGEPAGE, writes a byte per 4 KB and prints
 * the milliseconds per MB. bench/page_cost.sh runs it back to back (warm)
 * and after idle seconds (cold); bench/README.md says why it matters.
 *
 *     page_cost MB huge|small
 */
#define _DEFAULT_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

enum { HUGE_PAGE = 2 << 20 };

static double now_ms(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec * 1e3 + (double)t.tv_nsec / 1e6;
}

int main(int argc, char **argv) {
  if (argc != 3 || atol(argv[1]) <= 0 ||
      (strcmp(argv[2], "huge") && strcmp(argv[2], "small"))) {
    fprintf(stderr, "usage: page_cost MB huge|small\n");
    return 2;
  }
  size_t mb = (size_t)atol(argv[1]), size = mb << 20;
  int huge = strcmp(argv[2], "huge") == 0;
  char *map = mmap(NULL, size + HUGE_PAGE, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (map == MAP_FAILED) {
    perror("page_cost: mmap");
    return 1;
  }
  /* Whole huge pages: the kernel only gives aligned 2 MB ranges one. */
  char *p = (char *)(((size_t)map + HUGE_PAGE - 1) &
                     ~(size_t)(HUGE_PAGE - 1));
  if (madvise(p, size, huge ? MADV_HUGEPAGE : MADV_NOHUGEPAGE) != 0)
    perror("page_cost: madvise (the figure is the kernel's default)");
  double start = now_ms();
  for (size_t i = 0; i < size; i += 4096)
    ((volatile char *)p)[i] = 1;
  double ms = now_ms() - start;
  printf("%zu MB %s pages: first touch %.1f ms, %.3f ms per MB\n", mb,
         huge ? "huge" : "4 KB", ms, ms / (double)mb);
  munmap(map, size + HUGE_PAGE);
  return 0;
}
