/*
 * front.h - what the two front ends of the aten table share: the
 * torch.export reader (src/pt2/) and the recorder's tape (aten records of
 * nns_builder_add_packed, read in src/front/packed.c). Each keeps, per value
 * name, the tensor metadata it was told, renames (aliases), makes fresh
 * names and the scalar of a symbolic size, and hands each call to
 * nns__aten_lower; a call the table has no entry for, or cannot lower,
 * stays a node of domain "pytorch.aten" with its outputs' sizes declared
 * (uncounted in the report). Neither front holds op knowledge: this is the
 * one piece of code that turns a call into an nns__aten_call.
 */
#ifndef NNS_FRONT_FRONT_H
#define NNS_FRONT_FRONT_H

#include "../base/base.h"
#include "../base/vec.h"
#include "../ops/aten.h"

/* What a front knows about one value. */
typedef struct nns__front_value {
  const char *name;        /* its interned name: the values map's key */
  nns__aten_meta meta;     /* dtype and sizes (rank -1: unknown) */
  void *user;              /* the front's own (pt2: the state it names) */
  const char *rename;      /* the name it has in the graph, or NULL */
  /* a complex value named by its real form (the real_form service): that
   * form's meta, what the table's rules read of it (under deferred
   * numbering, where a later call names it as the record does, not by
   * its real form) */
  const nns__aten_meta *real;
  /* under deferred numbering, the complex value (of `real`) this value
   * is the real form of: a record's complex tensor named so is read as
   * that value (pk_aten_tensor) */
  struct nns__front_value *as_complex;
  bool weight;             /* a parameter or buffer (its front says so) */
  /* A weight's 2-D transpose not made yet (docs/pt2.md, "A weight's
   * transpose"): the weight, and the call that transposed it (its name
   * and module path, which the Transpose gets when a call other than a
   * matrix product's right operand reads it). */
  const char *t_of, *t_call, *t_path;
} nns__front_value;

typedef struct nns__front {
  nns__arena *arena;       /* where values and names live (the caller's) */
  nns__interner *strings;  /* the caller's */
  nns__map values;         /* interned name -> nns__front_value* */
  nns__map symvals;        /* interned symbol -> value holding it */
  nns__map entries;        /* interned op -> its table entry (or none) */
  nns_builder *b;
  nns_error *err;
  const char *where;       /* what errors name first ("models/model.json") */
  const char *node;        /* the call being read, for messages */
  size_t nodes;            /* main-graph nodes added so far */
  uint64_t fresh;          /* names made */
  const char *fresh_stem;  /* fresh names: stem then a number */
  const char *inputs[64];  /* graph inputs (tensors), for symbols' sizes */
  int n_inputs;
  /* The recorder's numbering (packed `names` record), for the next call
   * only: its nodes are named "PATH/OP_N", its values "vN"/"cN" (nnscan.h,
   * packed record 30). */
  bool numbering;
  uint64_t number;         /* the last value number given */
  uint64_t node_number;    /* the number the next node gets */
  uint64_t inits_after;    /* where its constants are laid out */
  nns__map numbered;       /* a fresh name of the call -> "vN" once written */
  uint64_t placeholders;   /* fresh names made under the numbering */
  const char *call_prefix; /* numbered node names: "PREFIX/OP_N" */
  bool reads_at_nodes;     /* the call's entry's (nns__aten_op) */
  const char *outs[64];    /* the call's outputs, and the numbers they took */
  int n_outs;
  int64_t out_number[64];
  int32_t out_alias[64];    /* the argument an alias output names (-1) */
  const char *ops[256];    /* the op types of the call's nodes, in order */
  int n_ops;               /* (more than 256: counted, not kept) */
  uint64_t constants;      /* of the call's numbers, constants */
  const char *reads[64];   /* the call's tensor arguments, and the rank of */
  int32_t first_read[64];  /* each one's first read by its nodes (-1) */
  int64_t read_after[64];  /* and the numbers taken before it (-1) */
  /* Asking a call's plan (nns_aten_numbering): the constants made since
   * the last node, and the order in which the node being made reads them
   * and the call's arguments. A binding's rule reads a node's inputs in
   * order, making each constant where it reads it: read_after does not
   * count a constant the node reads after the argument. */
  bool planning;
  const char *made[16];
  int32_t made_seq[16];    /* the node's first read of made[j] (-1) */
  int n_made;              /* (more than 16: read_after left as is) */
  int32_t read_seq[64];    /* the node's first read of argument k (-1) */
  int32_t seq;             /* the node's reads so far */
  int n_reads, n_read;     /* (more than 64: counted, not kept) */
  bool lowered;            /* the last call was lowered by the table */
  size_t calls;            /* calls lowered or kept so far */
  const char *call_path;   /* the module path of the call being lowered */
  size_t pending_t;        /* values whose t_of is set */
  bool no_fold;            /* a pending transpose being made: no fold */
  /* The numbering left to the library (packed record 32, deferred_names;
   * docs/tape.md, "Numbers the library gives"): the recorder numbers only
   * what it makes itself, and each numbered call's values and nodes
   * shift the recorder's later numbers by as many as the call took. */
  bool deferred;
  nns__arena_vec shift_v, shift_n; /* nns__front_shift, thresholds rising */
  uint64_t taken_v, taken_n;       /* by the numbered calls so far */
  uint64_t call_v, call_n;         /* the recorder's counters at the call */
  bool call_numbered;              /* the call being read follows `names` */
  nns__map provisional;            /* "\3K.J" -> the name it was given */
  nns__arena_vec recorded; /* size_t: each of the recorder's entries' first
                              node, as the last packed form read them */
  /* the constants made since the last node, and the node's reads of them
   * and of the tensors it reads first, in order: a rule makes each where
   * its node reads it (nns__builder_inits_in_order) */
  const char *since[16], *node_reads[64];
  int n_since, n_node_reads;
  bool node_fresh;                 /* the node read a tensor first */
  /* A node reading a constant from outside first, then one its call made
   * since the last node: the rule numbers both where the node reads them,
   * so the outside ones take the numbers in `ahead` (in the order read)
   * and the made ones are named again, "renamed" for the whole call */
  uint64_t ahead[16];
  int n_ahead, at_ahead;
  const char *renamed_from[16], *renamed_to[16];
  int n_renamed;
} nns__front;

/* One numbered call's mark on the recorder's numbers: each number from
 * `from` on is `by` more (the calls before it included). */
typedef struct nns__front_shift {
  uint64_t from, by;
} nns__front_shift;

/* Sets up f over the caller's arena and interner (both outlive f). */
void nns__front_init(nns__front *f, nns__arena *arena,
                     nns__interner *strings, nns_builder *b, nns_error *err,
                     const char *where);
/* Frees f's maps (its values live in the arena). */
void nns__front_free(nns__front *f);

/* An error naming f->where and the call being read. */
nns_status nns__front_fail(nns__front *f, nns_status code, const char *fmt,
                           ...) __attribute__((format(printf, 3, 4)));

const char *nns__front_intern(nns__front *f, const char *s);
/* v's decimal digits at p, a NUL after them (21 bytes at most); their
 * count. */
size_t nns__front_decimal(char *p, uint64_t v);
/* Value `name`'s entry, or NULL. A name that is the entry's own interned
 * pointer (nns__front_value.name) is found by its pointer alone. */
nns__front_value *nns__front_value_of(nns__front *f, const char *name);
/* Value `name`'s entry (made when new, meta unknown); NULL out of memory. */
nns__front_value *nns__front_value_add(nns__front *f, const char *name);
/* The name value `name` has in the graph being built. */
const char *nns__front_resolve(nns__front *f, const char *name);
/* Output `out` is `src` under another name (the alias service). */
nns_status nns__front_alias(nns__front *f, const char *out, const char *src);

/* Numbers the next call as the recorder numbers its own: its values
 * after `values`, its nodes from `nodes`, its constants laid out after
 * the first `inits` initializers. */
void nns__front_number_next(nns__front *f, uint64_t values, uint64_t nodes,
                            uint64_t inits);

/* Under deferred numbering (f->deferred): the name a packed string
 * stands for. "\2" STEM N is the recorder's value STEM N, "\4" PATH_N its
 * node, both shifted by the numbered calls before them; "\3" K.J is the
 * J-th output of the recorder's K-th numbered call, once that call gave
 * it a name (else itself). Any other string is itself. NULL when out of
 * memory or a number does not parse. */
const char *nns__front_deferred_name(nns__front *f, const char *s);
/* The number at the end of s (after its stem of *stem bytes), parsed;
 * false when s does not end in digits or they reach past 10^15. */
bool nns__front_trailing_number(const char *s, size_t *stem, uint64_t *n);
/* The `names` record of a numbered call under deferred numbering: the
 * recorder's counters (its last value number, its next node number, its
 * initializers), shifted by the calls before. */
void nns__front_deferred_names(nns__front *f, uint64_t values,
                               uint64_t nodes, uint64_t inits);
/* After that call: what it took shifts the recorder's later numbers, and
 * its outputs' names are known (errors into err, which may be NULL). */
nns_status nns__front_deferred_done(nns__front *f, nns_error *err);
/* The call's first reads ("\5" KIND NAME) its nodes did not read: their
 * initializers, after the call's own. */
nns_status nns__front_deferred_unread(nns__front *f);

/* Lowers one call: op its base name ("add", "relu_"), name the call's name
 * (the node names it gives), path its module path. Through the table's
 * entry when it has one and can lower this instance, else one uncounted
 * node of domain pytorch.aten (when a tensor comes out). */
nns_status nns__front_call(nns__front *f, const char *op, const char *name,
                           const char *path, const nns__aten_arg *args,
                           int n_args, const char *const *outs, int n_outs);

#endif
