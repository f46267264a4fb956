/*
 * heap.c - the CLI's heap: a one-shot process that reads one model (or two)
 * and exits, set up before anything is read so that what it mallocs stays
 * in the heap and lies in huge pages. glibc only; elsewhere the defaults
 * stay. The library never does this (it changes the whole process): the
 * Python package's process reuses its own freed pages instead.
 */
#include <stdlib.h>
#if defined(__GLIBC__)
#include <malloc.h>
#include <stdint.h>
#include <sys/mman.h>
#include <unistd.h>
#endif

#include "cli.h"

/*
 * The analysis and the report of a large model malloc and free a few
 * megabytes per pass. glibc's defaults hand a freed block of that size
 * back to the kernel (munmap, or trimming the heap's top) and map fresh
 * pages for the next one, and every fresh page is a page fault: a
 * 100,000-node summary took 1,300 more faults (a tenth of its time on a
 * VM, where a fault is dear) than when the blocks stay in the heap for
 * the next pass to reuse. A one-shot process frees everything at exit,
 * so it keeps what it frees. glibc only; elsewhere the defaults stay.
 */
enum { MMAP_THRESHOLD = 32 << 20 }; /* glibc's largest */

static void keep_freed_memory(void) {
#if defined(__GLIBC__) && defined(M_MMAP_THRESHOLD) && defined(M_TRIM_THRESHOLD)
  mallopt(M_MMAP_THRESHOLD, MMAP_THRESHOLD);
  mallopt(M_TRIM_THRESHOLD, 256 << 20);
#endif
#if defined(__GLIBC__) && defined(M_ARENA_MAX)
  /* The library's own threads (docs/api.md, "Threads") malloc work arrays
   * too: from the one heap they reuse what the passes freed, where an
   * arena of their own would be fresh pages. */
  mallopt(M_ARENA_MAX, 1);
#endif
}

/*
 * The heap in huge pages, from before the model is read: the reader, the
 * library's arenas below 2 MB (src/base/arena.c), the analysis and the
 * report all malloc from it. Its top is grown once, before anything is
 * read, by as much as malloc takes from the heap (keep_freed_memory) and
 * advised as huge: address space only, each 2 MB faulted in the first
 * time it is touched. On a VM a 4 KB fault is dear: 13 us here
 * (bench/README.md, "Page faults"), against about 0.15 ms for a whole
 * huge page, so a huge page pays once a dozen of its 4 KB pages are used.
 * LLaMA-7B's .pt2 took 1,300 faults (20 of its 34 ms) in 4 KB pages. A
 * hint: nothing changes if the kernel declines it.
 */
enum { HUGE_PAGE = 2 << 20 };

/* Returns the block that keeps malloc off the heap's first, unaligned
 * 2 MB (freed by the caller at the end), or NULL. */
static void *heap_huge_pages(void) {
#if defined(__GLIBC__) && defined(MADV_HUGEPAGE)
  /* malloc carves the heap from its free top's start: the part of it
   * below the first huge-page boundary (4 KB pages) is taken by one block
   * never touched, so that what the passes malloc lies in huge pages. */
  char *probe = malloc(16);
  if (!probe)
    return NULL;
  uintptr_t at = (uintptr_t)probe;
  uintptr_t edge = (at + HUGE_PAGE - 1) & ~(uintptr_t)(HUGE_PAGE - 1);
  free(probe);
  void *pad = edge - at > 64 ? malloc(edge - at - 64) : NULL;
  /* A block larger than the heap's free top makes malloc grow the heap;
   * freed, it stays there as the top the passes carve from. */
  void *volatile top = malloc(MMAP_THRESHOLD - HUGE_PAGE); /* volatile: kept */
  free(top);
  char *end = sbrk(0);
  if (end != (char *)-1 && (uintptr_t)end > edge)
    madvise((void *)edge, (uintptr_t)end - edge, MADV_HUGEPAGE);
  return pad;
#else
  return NULL;
#endif
}

void *cli_heap_setup(void) {
  keep_freed_memory();
  return heap_huge_pages();
}
