/*
 * aten.h - PyTorch's operators (aten) as entries of the op table's second
 * front: each entry says what one aten call lowers to, in the ONNX-style
 * nodes whose entries in src/ops/ count them (or that it is an alias of
 * its input, or makes a constant). A front end (the torch.export reader,
 * src/pt2/) turns each call it reads into an nns__aten_call, with its
 * arguments by schema name, and asks nns__aten_lower to add the nodes
 * through the builder. No front end holds op knowledge of its own.
 *
 * The live recorder (python/nnscan) hands its aten calls to the same
 * table, so a .pt2 and a live recording count alike.
 */
#ifndef NNS_OPS_ATEN_H
#define NNS_OPS_ATEN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../../include/nnscan.h"

/* What an argument holds. */
typedef enum nns__aten_kind {
  NNS__AA_NONE = 0, /* None, or a kind nothing here reads */
  NNS__AA_TENSOR,   /* tensor: `tensor` */
  NNS__AA_TENSORS,  /* list of tensors: `tensors` (NULL entries: None) */
  NNS__AA_INT,      /* int or SymInt: `i`, or `sym` when symbolic */
  NNS__AA_INTS,     /* list of ints: `ints`, `syms[k]` when symbolic */
  NNS__AA_FLOAT,    /* float: `f` */
  NNS__AA_BOOL,     /* bool: `b` */
  NNS__AA_STRING,   /* string: `s` */
  NNS__AA_DTYPE     /* a ScalarType: `i` is its nns_dtype */
} nns__aten_kind;

typedef struct nns__aten_arg {
  const char *name;      /* the schema's argument name ("input", "dim") */
  uint8_t kind;          /* nns__aten_kind */
  bool b;                /* BOOL */
  int32_t n;             /* TENSORS, INTS: element count */
  int64_t i;             /* INT, DTYPE */
  double f;              /* FLOAT */
  const char *s;         /* STRING */
  const char *tensor;    /* TENSOR: the value's name */
  const char *sym;       /* INT: the symbol, or NULL when known */
  const char **tensors;  /* TENSORS */
  int64_t *ints;         /* INTS */
  const char **syms;     /* INTS: per element, the symbol or NULL */
} nns__aten_arg;

/* A tensor's dtype and sizes as the front end knows them: dims[k] < 0 is
 * symbolic, named syms[k] (NULL: anonymous). */
typedef struct nns__aten_meta {
  int32_t dtype;         /* nns_dtype; 0 unknown */
  int32_t rank;          /* -1 unknown */
  const int64_t *dims;
  const char *const *syms;
  /* The value is the real form, (..., 2) of the real dtype, of a complex
   * value of the program (view_as_complex's input, what a complex rule
   * wrote): the complex rules read it as pairs. */
  bool real_form;
  /* A 4-D value whose strides are channels-last as PyTorch's
   * suggest_memory_format reads them (what some composites branch on);
   * false when the front end does not know its strides. */
  bool channels_last;
} nns__aten_meta;

/* One call, as a front end hands it over, with the services it offers. */
typedef struct nns__aten_call {
  const char *op;            /* the base name: "conv2d", "add" ("add_" too) */
  const char *name;          /* the call's own name, for node names */
  const char *module_path;   /* dotted module path; "" for the root */
  int32_t n_args;
  const nns__aten_arg *args;
  int32_t n_outs;
  const char *const *outs;   /* output value names (NULL: unused) */
  nns_builder *b;
  nns_error *err;
  /* The front end's knowledge of value `name` (NULL: none). */
  const nns__aten_meta *(*meta)(void *fe, const char *name);
  /* Output `out` is input `src` under another name: no node. */
  nns_status (*alias)(void *fe, const char *out, const char *src);
  /* Complex output `out` is named by `src`, its real form: src (when the
   * front end does not know it yet) gets out's sizes with a trailing 2 and
   * the real dtype; src's meta is marked real_form. src NULL: undoes it. */
  nns_status (*real_form)(void *fe, const char *out, const char *src);
  /* Tensor argument `name`, when it is a complex constant from outside
   * that no call has read yet (a plain attribute), made a constant of its
   * real form now, as the recorder's rule brings it in before a complex
   * product reads it (under deferred numbering; NULL or nothing done
   * otherwise: it stays complex-typed). */
  nns_status (*bring_real)(void *fe, const char *name);
  /* A new name, unique in the graph (valid until the call returns). */
  const char *(*fresh)(void *fe);
  /* An int64 scalar value holding the size named `sym` (made from the
   * shape of an input that has it), or NULL when no input has it. Adds
   * nodes: never call it inside a kernel's run of nodes. */
  const char *(*symval)(void *fe, const char *sym);
  /* The recorder's numbering (an aten record after a packed `names`
   * record), NULL otherwise: the name the call's next node gets (of
   * op_type in domain), and the name value `name` has in the graph, a fresh one
   * numbered "vN" the first time it is `written` (an output of the node
   * being added). */
  const char *(*node_name)(void *fe, const char *op_type,
                           const char *domain);
  const char *(*numbered)(void *fe, const char *name, bool written);
  /* Under the recorder's numbering, where the front numbers a node's
   * reads as a whole (NULL otherwise): the node's inputs, told before
   * numbered names each one; false, the error in err, when it fails. */
  bool (*reading)(void *fe, const char *const *ins, size_t n);
  /* Whether the names node_name and numbered give are interned in the
   * builder's model's own table (nns__builder_add_node_interned). */
  bool names_interned;
  /* A new name for a constant, numbered "cN" at once under the
   * recorder's numbering; fresh's otherwise. */
  const char *(*fresh_const)(void *fe);
  /* A weight's 2-D transpose, folded into the matrix products that read
   * it (Gemm's transB), as the live recording folds t(W): fold_t marks
   * `out` as weight `w` transposed, with no node (NNS_OK), or answers
   * NNS_E_NOTFOUND (w is no weight); folded gives the weight value `name`
   * is such a transpose of, or NULL. Both NULL where the front does not
   * fold (the recorder's tape: Python folds before a call gets here). */
  nns_status (*fold_t)(void *fe, const char *out, const char *w);
  const char *(*folded)(void *fe, const char *name);
  /* Makes the Transpose of such a transpose `name` now (a product that
   * cannot read the weight with transB): its own name then holds it.
   * Adds a node: call it before a kernel's run of nodes. */
  nns_status (*unfold)(void *fe, const char *name);
  /* Main-graph nodes added so far (for kernels). */
  size_t *node_count;
  void *fe;
} nns__aten_call;

/* The ai.onnx opset of the nodes the table lowers to (Reduce* with their
 * axes as attributes, Split without num_outputs: up to opset 17, as the
 * recorder's own node forms), what a graph of them declares. */
enum { NNS__ATEN_OPSET = 17 };

/* What an entry does. */
typedef enum nns__aten_form {
  NNS__AF_UNARY = 1, /* one ONNX op on the first tensor argument */
  NNS__AF_BINARY,    /* one ONNX op on two arguments (a number becomes a
                        scalar constant of the other's dtype) */
  NNS__AF_ALIAS,     /* the output is its input (a view of the same data,
                        a same-dtype copy, detach, eval-mode dropout) */
  NNS__AF_CREATE,    /* makes a tensor from nothing: a constant */
  NNS__AF_RULE       /* a function of its own */
} nns__aten_form;

struct nns__aten_op;
typedef nns_status (*nns__aten_rule)(nns__aten_call *c,
                                     const struct nns__aten_op *op);

typedef struct nns__aten_op {
  const char *name;      /* aten base name */
  uint8_t form;          /* nns__aten_form */
  const char *onnx;      /* UNARY, BINARY: the op type; RULE: what it
                            lowers to, for `nnscan ops` */
  nns__aten_rule rule;   /* RULE */
  /* bit k: output k, which the rule may leave unwritten (a pooling's
   * indices, a loss's total weight, a dropout's mask): a recorder that
   * leaves the numbering to the library at the build (deferred names)
   * records such a call by its own rule, which makes such an output a
   * constant where a later op reads it, numbered there */
  uint8_t unwritten;
  /* the rule reads a constant from outside that is not the call's first
   * tensor argument where a node reads it, after the constants that
   * node's inputs make (the losses with a pos_weight, whose Sub(pos_weight,
   * 1) makes the 1 first); any other rule reads its tensor arguments
   * first: a recorder that leaves the numbering to the library numbers
   * such constants so (front.c) */
  bool reads_at_nodes;
  /* the tensor arguments the rule may leave unread, by schema name, space
   * separated: "NAME" one it reads the sizes of at most (a pooling
   * backward's input, a norm backward's saved statistics), "NAME/K" one
   * it reads only when output K is computed (a backward kernel's
   * output_mask: a convolution's input for the weight's gradient),
   * "NAME?ARG=V" one it reads only when the int argument ARG is V (a loss
   * backward's total weight, under a mean: reduction 1), "NAME?" one it
   * reads only for some values of the other arguments, none said. A
   * recorder that leaves the numbering to the library at the build names
   * a tensor where a node first reads it: it must not name one these
   * leave unread (docs/tape.md) */
  const char *unread;
  /* "MASK>SELF": the rule reads how many of SELF's elements tensor
   * argument MASK (broadcast to SELF) holds true, an INT "tracked_count"
   * past the schema's arguments that a recorder counts from the values
   * it tracks (masked_scatter); NULL for the rules that read no
   * contents */
  const char *counted;
} nns__aten_op;

/* A family's table: sorted by name, its entries unique over every
 * family (aten.c lists the families). */
typedef struct nns__aten_family {
  const nns__aten_op *ops;
  size_t count;
} nns__aten_family;

/* Family i, NULL past the last (for the table's self-test). */
const nns__aten_family *nns__aten_family_at(size_t i);

/* The entry for base name `op` ("relu_" finds "relu"), or NULL. */
const nns__aten_op *nns__aten_find(const char *op);
/* Lowers call c through its entry e (NNS_E_NOTFOUND from a rule that
 * cannot lower this instance: the front end then keeps it as an uncounted
 * node). */
nns_status nns__aten_lower(nns__aten_call *c, const nns__aten_op *e);

/* The tables, for listings: entry k of the families one after the other,
 * NULL past the end. */
const nns__aten_op *nns__aten_entry(size_t k);

/* How entry e takes a complex value in real form (aten_complex.c's one
 * list, which the recorder reads as _api.ATEN_COMPLEX): "makes" for an
 * op whose complex output is always in real form (view_as_complex,
 * polar, _fft_c2c, _fft_r2c), "reads" for the others whose lowering
 * takes one (view_as_real, mul, abs, _to_copy, the layout rules), "" for
 * the rest (and NULL). Static string. */
const char *nns__aten_complex_role(const nns__aten_op *e);

/* Gives value `name` of the graph being built the parameter kind `kind`
 * (a packed param_kind record: applied by nns_builder_finish). */
nns_status nns__aten_param_kind(nns_builder *b, const char *name, int kind,
                                nns_error *err);

#endif
