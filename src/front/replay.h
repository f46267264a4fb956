/*
 * replay.h - the names of packed records read again (packed record 33,
 * replay; include/nnscan.h, docs/tape.md "Replayed layers, read again").
 * A layer the recorder replayed from the template of an earlier one packs
 * as that layer's records under other names: its own values, nodes,
 * numbered calls and outside constants numbered from other counters, its
 * module path another, its arguments other values. The packed reader
 * reads the earlier layer's bytes again and asks this for each name.
 */
#ifndef NNS_FRONT_REPLAY_H
#define NNS_FRONT_REPLAY_H

#include <stddef.h>
#include <stdint.h>

/* The four numbers a replay moves, in the record's order. */
enum { NNS__RP_VALUES, NNS__RP_NODES, NNS__RP_CALLS, NNS__RP_CONSTS,
       NNS__RP_KINDS };

typedef struct nns__replay {
  uint64_t from[NNS__RP_KINDS], count[NNS__RP_KINDS], to[NNS__RP_KINDS];
  uint64_t inits_from, inits_to;
  const char *path_from, *path_to; /* path_from not empty */
  size_t path_from_len, path_to_len;
  uint32_t n_args;
  const char **arg_from, **arg_to;
  size_t *arg_len; /* strlen(arg_from[k]) */
} nns__replay;

/* Bytes enough for any name nns__replay_name makes of a name of n bytes. */
static inline size_t nns__replay_room(const nns__replay *m, size_t n) {
  return n + m->path_to_len + 24; /* a longer path, a number of 20 digits */
}
/* The name s (n bytes, not empty) stands for under replay m: s itself
 * where nothing moves it, else written into buf (nns__replay_room bytes)
 * or one of m's `to` names. */
const char *nns__replay_name(const nns__replay *m, const char *s, size_t n,
                             char *buf);

#endif
