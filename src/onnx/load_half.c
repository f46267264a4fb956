/*
 * load_half.c - the second half of a large graph's nodes, decoded on a
 * second thread while the loading thread decodes the first.
 *
 * Decoding a NodeProto touches only the node's own struct, the loader's
 * scratch stacks, an arena and the interner. The second thread gets a
 * loader of its own (scratch stacks, an arena, a view of the interner
 * that shares its table: base.h, nns__intern_share) and writes only the
 * nodes of its half. It stops at the first node it cannot decode alone
 * (an error; an attribute holding a graph, a sparse tensor or a type; a
 * tensor with external data; a warning; its share of the interner's table
 * used up: nns__loader.plain), and the
 * loading thread decodes that node and the ones after it as it would
 * have, so a model loads, or fails, exactly as on one thread. The loading
 * thread, when it uses up its own share, waits for the second thread and
 * goes on with the whole table.
 *
 * The half starts at a node the first pass marked (every NODE_MARK-th)
 * and runs to the last node without another graph field in between, so
 * that the loading thread, meeting the fields in file order, reaches the
 * half's first node only after everything before it, and everything after
 * it only after the half: the first failure in the file is still the one
 * reported.
 */
#include <stdlib.h>

#include "load_int.h"

#ifdef NNS_FUZZING
enum { NODE_MARK = 1 }; /* nodes between marked positions */
#else
enum { NODE_MARK = 1024 };
#endif
/* Fewer: one thread decodes them all. */
enum { PARALLEL_MIN_NODES = 2 * NNS__JOB_MIN_ITEMS };

void nns__node_marks_field(nns__node_marks *mk, size_t at, bool node) {
  if (!node) {
    mk->other = true;
    return;
  }
  if (mk->other) { /* a new run of node fields starts here */
    mk->run_start = mk->seen;
    mk->other = false;
  }
  if (mk->seen % NODE_MARK == 0 && !mk->failed) {
    size_t *p = nns__grow(mk->pos, &mk->cap_pos, mk->n_pos + 1, sizeof *p, 16);
    if (p) {
      mk->pos = p;
      mk->pos[mk->n_pos++] = at;
    } else {
      mk->failed = true; /* no second thread: nothing else changes */
    }
  }
  mk->seen++;
}

void nns__node_marks_free(nns__node_marks *mk) {
  free(mk->pos);
  mk->pos = NULL;
  mk->n_pos = mk->cap_pos = 0;
}

static void decode_half(void *arg) {
  nns__node_job *j = arg;
  nns__wire r = j->r;
  nns__field f;
  int32_t k = j->from;
  for (; k < j->to; k++)
    if (nns__wire_next(&r, &f) != NNS_OK || f.num != NNS__F_GRAPH_NODE ||
        nns__load_node_field(&j->L, &r, &f, j->g, k) != NNS_OK)
      break;
  j->done = k;
}

/* The loading thread has used up its share of the interner's table: it
 * waits for the second thread, which leaves it the whole table. */
static void unshare(void *j) { nns__nodes_join(j); }

void nns__nodes_start(nns__node_job *j, nns__loader *L, const nns__wire *w,
                      nns__graph *g, const nns__node_marks *mk,
                      size_t node_bytes) {
  memset(j, 0, sizeof *j);
  j->from = j->to = j->done = INT32_MAX;
  int32_t n = g->n_nodes;
  if (L->plain || L->A.in_function || g->parent || n < PARALLEL_MIN_NODES ||
      mk->failed || !L->strings->cap)
    return;
  /* The first mark past the middle, inside the last run of nodes. */
  int32_t from = n / 2 > mk->run_start ? n / 2 : mk->run_start;
  size_t m = ((size_t)from + NODE_MARK - 1) / NODE_MARK;
  if (m >= mk->n_pos)
    return;
  j->main = L;
  j->g = g;
  j->from = (int32_t)(m * NODE_MARK);
  j->to = n;
  j->L = *L;
  j->L.io = NULL;
  j->L.attrs = NULL;
  j->L.n_io = j->L.cap_io = j->L.n_attrs = j->L.cap_attrs = 0;
  j->L.A.err = &j->err;
  j->L.plain = true;
  nns__arena_init(&j->arena);
  /* Its share of what make_room reserves for the nodes' arrays, names
   * and values (about twice their messages' bytes): one chunk. */
  nns__arena_reserve(&j->arena, 2 * (node_bytes / (size_t)n) *
                                    (size_t)(j->to - j->from));
  j->L.arena = &j->arena;
  nns__intern_share(L->strings, &j->strings, &j->arena, unshare, j);
  j->L.strings = &j->strings;
  j->r = *w;
  j->r.pos = mk->pos[m];
  j->r.err = &j->err;
  j->started = true;
  nns__job_start(&j->job, decode_half, j, true);
}

int32_t nns__nodes_join(nns__node_job *j) {
  if (!j->started || j->joined)
    return j->done;
  nns__job_finish(&j->job);
  j->joined = true;
  nns__intern_unshare(j->main->strings, &j->strings);
  nns__arena_adopt(j->main->arena, &j->arena);
  free(j->L.io);
  free(j->L.attrs);
  /* The node it stopped at may be half written: the loading thread
   * decodes it again from nothing. */
  if (j->done < j->to)
    memset(&j->g->nodes[j->done], 0, sizeof j->g->nodes[j->done]);
  return j->done;
}
