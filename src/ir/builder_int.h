/*
 * builder_int.h - what a front end that reads into a builder needs of it
 * beyond the public calls: the packed reader (src/front/packed.c) checks
 * the builder's state, reaches its model and arena, hands over parameter
 * kinds and observed contents that finish applies, and keeps its own
 * state in a slot the builder frees. The builder knows nothing of its
 * front ends: the slot is opaque, with the front end's own free function.
 */
#ifndef NNS_IR_BUILDER_INT_H
#define NNS_IR_BUILDER_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "assemble.h" /* the limits every way in shares */

/* NNS_OK when the builder takes calls: NNS_E_ARG for NULL, NNS_E_STATE
 * after finish or after a packed call failed part-way. */
nns_status nns__builder_usable(const nns_builder *b, nns_error *err);
/* The model being described (NULL once handed over) and the
 * description's arena, freed with the builder. */
nns_model *nns__builder_model(nns_builder *b);
nns__arena *nns__builder_arena(nns_builder *b);
/* Whether a subgraph is open (nns_builder_begin_graph). */
bool nns__builder_in_subgraph(const nns_builder *b);
/* The main graph's nodes so far. */
size_t nns__builder_node_count(const nns_builder *b);
/* Where the main graph's nodes and value_info stand, and taking back
 * what was added to either since (the last nodes, their outputs no
 * longer defined; what they read and the initializers made for them
 * stay): a call lowered for its numbers alone (packed record 34). */
typedef struct nns__builder_mark {
  size_t nodes, value_info;
} nns__builder_mark;
nns__builder_mark nns__builder_marked(const nns_builder *b);
void nns__builder_take_back(nns_builder *b, nns__builder_mark m);
/* Room for about n more names in the model's strings and the main graph's
 * table of what defines each (a hint: the tables grow as they fill). */
void nns__builder_reserve_names(nns_builder *b, size_t n);
/* Marks the description incomplete: later calls fail with NNS_E_STATE. */
void nns__builder_break(nns_builder *b);
/* The main graph's inputs so far. */
size_t nns__builder_input_count(const nns_builder *b);
/* The main graph's inputs at `slots` (n indices, ascending) ordered by
 * `keys` (one each; stable), each taking one of those slots: inputs a
 * front numbered where it first read them (deferred numbering's "\5i"
 * marks), listed as it numbered them rather than as they were recorded.
 * NNS_E_ARG for a slot past the inputs or out of order; NNS_E_NOMEM. */
nns_status nns__builder_order_inputs(nns_builder *b, const size_t *slots,
                                     const uint64_t *keys, size_t n,
                                     nns_error *err);
/* A front end's state: NULL until set; free_front(front) runs when the
 * builder is freed, before its arena goes. */
void *nns__builder_front(const nns_builder *b);
void nns__builder_set_front(nns_builder *b, void *front,
                            void (*free_front)(void *));
/* Parameter kind `kind` (nns_param_kind) for main-graph value `name`,
 * applied by nns_builder_finish (which fails if no such value exists). */
nns_status nns__builder_param_kind(nns_builder *b, const char *name,
                                   int kind, nns_error *err);
/* Observed contents of main-graph value `name` (data NULL: the last
 * contents given, for a value of the same dtype and element count),
 * applied by nns_builder_finish. */
nns_status nns__builder_value_data(nns_builder *b, const char *name,
                                   int dtype, int rank, const int64_t *dims,
                                   const void *data, size_t len,
                                   nns_error *err);

/* The sizes main-graph value `name` was observed to take when the model
 * ran (rank >= 0, no size negative), kept by nns_builder_finish for
 * nns_model_shape_mismatches; a name the graph lacks is no error. */
nns_status nns__builder_observed_shape(nns_builder *b, const char *name,
                                       int rank, const int64_t *dims,
                                       nns_error *err);

/* Initializers added to the main graph from now on are laid out after
 * the first `count` added otherwise (in the order added), not at the
 * end; count < 0 ends it. (The packed aten records under the recorder's
 * numbering: a call's constants sit where its rule would have made
 * them.) */
void nns__builder_inits_after(nns_builder *b, int64_t count);
/* Initializers `names` (interned in the model's table), each laid out by
 * nns__builder_inits_after, take the places they hold among themselves in
 * the order given (at most 64; one added otherwise: left as is). */
void nns__builder_inits_in_order(nns_builder *b, const char *const *names,
                                 int n);
/* Initializers of the main graph named from[j] (interned in the model's
 * table, DEF_INIT) are named to[j] instead, all at once (a name one of
 * them gives up may be another's new one), their parameter kinds with
 * them; at most 16. NNS_E_ARG when one is no such initializer or a new
 * name is taken. (The recorder's numbering: a constant a call made,
 * numbered again where its node reads it.) */
nns_status nns__builder_rename_inits(nns_builder *b, const char *const *from,
                                    const char *const *to, int n,
                                    nns_error *err);
/* Each domain of a main-graph node gets an opset (version 1) where it has
 * none, and the opsets are ordered by domain (a recorder's numbering left
 * to the library: the packed records list the domains it knows). */
nns_status nns__builder_opsets_of_nodes(nns_builder *b, nns_error *err);

/* nns_builder_add_node for a front end whose node name, input and output
 * names are already interned in the model's own table (nns__builder_model's
 * strings; NULL or "" for no value): they are kept as they are, not
 * interned again (the recorder's numbering names every value and node in
 * that table as it lowers a call). */
nns_status nns__builder_add_node_interned(
    nns_builder *b, const char *op_type, const char *domain, const char *name,
    const char *module_path, const char *const *inputs, size_t input_count,
    const char *const *outputs, size_t output_count, nns_error *err);

#endif
