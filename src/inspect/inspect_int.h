/*
 * inspect_int.h - the inside of an nns_inspection: the module tree a
 * binding registered, every module call it recorded (copied out of the
 * batches), and what aggregation derives from them. Only src/inspect/
 * reads these structs; the report renderers (src/report/inspect_*.c) read
 * an inspection through nnscan.h's accessors ("Reading an inspection"),
 * as any other client does.
 */
#ifndef NNS_INSPECT_INT_H
#define NNS_INSPECT_INT_H

#include <stdbool.h>

#include "../base/base.h"

/* First published sizes of the inspection's sized structs (base.h's ABI
 * rule: the smallest `size` accepted; later fields go after these). */
#define NNS__V1_INSPECT_MODULE                                                 \
  NNS__SIZE_TO(nns_inspect_module, param_dtype_count)
#define NNS__V1_INSPECT_BATCH NNS__SIZE_TO(nns_inspect_batch, dim_count)
#define NNS__V1_INSPECT_STATS NNS__SIZE_TO(nns_inspect_stats, rank_bwd_ms)
#define NNS__V1_INSPECT_OFFENDER NNS__SIZE_TO(nns_inspect_offender, role)

/* A tensor as stored: dims live in the inspection's arena. */
typedef struct nns__itensor {
  nns_tensor_role role;
  int dtype;
  int rank;
  unsigned flags;          /* NNS_TENSOR_* */
  const int64_t *dims;
  const char *name;        /* NULL when not given */
  int64_t bytes;
  double min, max, mean, std, zero_fraction;
} nns__itensor;

/* A time span with the memory counters at its two ends. */
typedef struct nns__ispan {
  nns_inspect_event start, end;
  bool known;              /* both times known */
} nns__ispan;

typedef struct nns__icall {
  size_t module;
  size_t parent;           /* global call index, or (size_t)-1 */
  size_t batch;            /* index of the batch (pass) it came in */
  size_t next_same;        /* the module's next call, or (size_t)-1 */
  unsigned flags;          /* NNS_CALL_* */
  int64_t fwd_seq, bwd_seq;
  nns__ispan fwd, bwd_raw; /* as recorded */
  nns__itensor *tensors;
  size_t tensor_count;
  /* Derived by aggregation. */
  nns__ispan bwd;          /* widened to cover its child calls */
  double fwd_incl, fwd_self, bwd_incl, bwd_self;   /* ms; NaN unknown */
  int64_t fwd_alloc, fwd_self_alloc, bwd_alloc, bwd_self_alloc; /* -1 */
  unsigned nonfinite;      /* NNS_NONFINITE_* of its own tensors */
  bool born_inside;        /* its forward or a call inside it produced a
                              NaN/Inf (the forward's producer is in it) */
  nns_nonfinite_role fwd_role, bwd_role;
} nns__icall;

typedef struct nns__ibatch {
  int rank;
  int64_t pass;
  double wall_start;
  size_t first_call, call_count;
} nns__ibatch;

/* A module's forward and backward time on one rank (totals), for the
 * spread over ranks; a module's cells form a list. */
typedef struct nns__irankcell {
  int rank;
  int64_t calls;
  double fwd_ms, bwd_ms;
  size_t next;             /* the module's next cell, or (size_t)-1 */
} nns__irankcell;

typedef struct nns__imodule {
  const char *path, *name, *type; /* name: last path component */
  size_t path_len;         /* strlen(path): reports cut long paths */
  size_t parent;
  int depth;
  size_t first_child, next_sibling; /* (size_t)-1 when none */
  size_t last_child;       /* so adding a child is O(1); -1 when none */
  int64_t params, learnable_params, param_bytes, grad_bytes, flops, macs;
  double roofline_ms;      /* static roofline time, one forward; 0 unknown */
  int64_t saved_bytes; /* static prediction; -1 unknown */
  nns_inspect_dtype_bytes *dtypes; /* in the arena */
  size_t dtype_count, dtype_cap;
  size_t first_call;       /* its first call (shapes shown), or -1 */
  size_t last_call;        /* its latest call, or -1 */
  nns_inspect_stats stats; /* derived by aggregation; passes, ranks and
                              the spreads are filled when read
                              (nns_inspection_module_stats) */
  double first_nf;         /* when its first NaN/Inf was seen (abs. ms) */
  size_t rank_cells;       /* its first nns__irankcell, or (size_t)-1 */
} nns__imodule;

/* What nns_inspection_set_rank gave for one rank (ranks.c). */
typedef struct nns__irank {
  bool set;                /* given */
  int64_t comm_calls[NNS_COMM_KIND_COUNT], comm_bytes[NNS_COMM_KIND_COUNT];
  bool has_counts;
  nns_per_rank counts;     /* grow NULL */
  size_t mesh_count;
  const char **mesh_name;  /* in the arena */
  int64_t *mesh_size;      /* in the arena */
} nns__irank;

typedef struct nns__imeta {
  const char *key, *value;
} nns__imeta;

struct nns_inspection {
  nns__arena arena;        /* names, dims, tensors: freed at once */
  nns__imodule *modules;   /* malloc'ed, grown by doubling */
  size_t module_count, module_cap;
  nns__icall *calls;
  size_t call_count, call_cap;
  nns__ibatch *batches;
  size_t batch_count, batch_cap;
  nns__imeta *meta;
  size_t meta_count, meta_cap;
  nns__irankcell *cells;
  size_t cell_count, cell_cap;
  nns__map2 held;          /* (tensor, module) pairs counted
                              (nns_inspection_add_params) */
  double *rank_passes;     /* passes per rank, [0, rank_count) */
  int rank_count;          /* highest rank seen + 1 */
  nns__irank *rank_set;    /* nns_inspection_set_rank, [0, rank_set_cap) */
  size_t rank_set_cap;
  nns_inspect_offender first[2]; /* forward, backward */
};

/* Aggregation is eager: nns_inspection_add_batch derives everything of
 * its calls and folds them into the module totals before it returns, so
 * every reader (accessors, reports) only reads - any number of threads
 * may read an inspection no thread is adding to. */

/* NNS_E_ARG, with the message every read gives, for a missing argument
 * (out->size below v1 included) or an index past `count`; else NNS_OK. */
nns_status nns__inspect_bad_read(nns_error *err, const char *fn,
                                 const void *insp, const void *out,
                                 size_t out_size, size_t v1, size_t i,
                                 size_t count);

#endif
