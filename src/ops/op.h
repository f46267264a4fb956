/*
 * op.h - the operator table entry and the context its rules work through.
 *
 * An operator is one entry in the table of its family file (conv.c,
 * eltwise.c, ...). The entry says which opset versions it covers, what role
 * each input plays (activation, weight, bias, buffer, constant), which
 * inputs no gradient flows through, which attributes it takes with their
 * types and defaults, and its rules:
 *
 *   shape  - output dtypes and dims from input types, attributes and any
 *            known constant inputs;
 *   fold   - optional: the output values, when the inputs needed are known
 *            constants (the small kernels that resolve shape arithmetic);
 *   cost   - optional: FLOPs, MACs and memory accesses from the inferred
 *            shapes (NULL: the op is listed as not counted; a view's is
 *            all zero, see NNS__VIEW);
 *   rf     - optional: how a sliding window grows the receptive field
 *            (NULL: the inputs' fields are broadcast to the outputs).
 *
 * Nothing outside src/ops/ branches on an operator's name.
 */
#ifndef NNS_OP_H
#define NNS_OP_H

#include "../ir/ir.h"

/* ==== Attribute specs ==== */

typedef struct nns__attr_spec {
  const char *name;
  uint8_t type;      /* nns__attr_type */
  bool required;
  bool has_default;  /* i / f / s hold the default */
  int64_t i;
  double f;
  const char *s;
} nns__attr_spec;

#define NNS__A_INT(nm, def)                                                    \
  { .name = nm, .type = NNS__AT_INT, .has_default = true, .i = (def) }
#define NNS__A_FLOAT(nm, def)                                                  \
  { .name = nm, .type = NNS__AT_FLOAT, .has_default = true, .f = (def) }
#define NNS__A_STR(nm, def)                                                    \
  { .name = nm, .type = NNS__AT_STRING, .has_default = true, .s = (def) }
/* Attributes with no default: absent unless the node sets them. */
#define NNS__A_OPT(nm, ty) { .name = nm, .type = NNS__AT_##ty }
#define NNS__A_REQ(nm, ty) { .name = nm, .type = NNS__AT_##ty, .required = true }
#define NNS__A_END { .name = NULL }

/* ==== The entry ==== */

struct nns__ictx;
typedef nns_status (*nns__rule_fn)(struct nns__ictx *cx);

/*
 * What one node costs (docs/metrics.md). Counts are int64; arithmetic goes
 * through nns__cmul/nns__cadd, which saturate and set `overflow`.
 */
typedef struct nns__cost {
  int64_t flops;
  int64_t macs;
  int64_t dmas;
  bool symbolic;  /* a symbolic dim was evaluated as 1 */
  bool unbounded; /* a loop with an unknown trip count was counted once */
  bool partial;   /* a subgraph had nodes without a cost rule */
  bool overflow;  /* a count passed INT64_MAX (saturated) */
  /* An If: the branch counted (NNS__BRANCH_THEN or _ELSE; 0 for other
   * ops) and whether its condition was known (else it is the larger). */
  uint8_t branch;
  bool branch_known;
  bool branch_only; /* condition unknown, the other branch cannot run */
  /* Bytes moved (docs/metrics.md): set by the analysis for a node without
   * subgraphs (src/analyze/roofline.c); a control-flow rule carries its
   * bodies' like its FLOPs. */
  int64_t bytes;
  bool view; /* the rule took the view rule (nns__cost_view): the node
                moves nothing (Dropout in inference) */
  /* A fused attention op whose own mask (is_causal, a local window, a
   * mask input with known contents) leaves (query, key) pairs out: the
   * MACs and FLOPs of its two products those pairs would take
   * (macs - macs_unmasked, flops - flops_unmasked; nns__attn_cut). */
  int64_t macs_cut, flops_cut;
  /* its mask's contents are not known: the unmasked counts are dense, an
   * upper bound (NNS_COUNT_MASK_UNKNOWN) */
  bool mask_unknown;
  /* A static sentence saying what the rule left out or bounded when it
   * counts this node only approximately (a part it does not count, with
   * `partial` set; a size taken at its upper bound); NULL when exact. The
   * analysis warns with it, naming the node. */
  const char *approx;
} nns__cost;
enum { NNS__BRANCH_THEN = 1, NNS__BRANCH_ELSE = 2 };
typedef nns_status (*nns__cost_fn)(struct nns__ictx *cx, nns__cost *c);

/* Returned by a cost rule that cannot count this node (an input's rank or
 * a needed dim is unknown): the node is listed as uncounted. */
#define NNS__UNCOUNTED ((nns_status)-2)

/*
 * The receptive field of one value as the rules see it (docs/metrics.md,
 * "Receptive field"): the field reported for it and, for each of its
 * spatial axes, which dim of the value holds that axis. Sliding ops read
 * and write their spatial axes at dims 2.. (ONNX's layout); data movement
 * (Transpose, Reshape, ...) moves them to other dims. A new member (here
 * or in nns_rf) goes into rf_same (src/analyze/rf.c) too: equal fields
 * share one entry there.
 */
/*
 * A field that differs between positions of one axis, repeating every
 * `period` positions: windowed attention gives the positions of one
 * window the same pixels. Position i reads pixels
 * [stride*i + lo[i % period], stride*i + hi[i % period]]. Fields that are
 * the same everywhere (nearly all) need none: nns_rf's field and padding
 * say it (lo = -padding, hi = field - 1 - padding). With a period, they
 * say the widest field and where position 0's starts.
 */
enum { NNS__RF_PERIOD_MAX = 32 }; /* Swin V2's largest windows are 24 */
typedef struct nns__rf_per {
  int32_t period;
  int64_t lo[NNS__RF_PERIOD_MAX], hi[NNS__RF_PERIOD_MAX];
} nns__rf_per;

/* The periodic fields of one analysis, written once and shared by every
 * value that copies a field (nns__rf.per indexes them; 0 is none), so
 * that a field stays small to copy. Out of memory, a new periodic field
 * falls back on its envelope (src/ops/rf_period.c). */
typedef struct nns__rf_pool {
  nns__rf_per *items; /* items[0] is unused */
  uint32_t n;
  size_t cap;
} nns__rf_pool;

typedef struct nns__rf {
  nns_rf f;
  uint32_t per[NNS_RF_MAX_AXES]; /* periodic field of axis k, or 0 */
  int8_t dim[NNS_RF_MAX_AXES]; /* dim of the value holding spatial axis k */
  /*
   * Where axis k lies once a reshape has split or merged it, as in Swin's
   * window partition (H -> windows x positions in a window) or a flatten
   * of H and W into one token dim. `len` positions of the axis step the
   * index of dim[k] by `sub` (sub > 1: merged inside another axis); when
   * split into windows, the `win` positions within a window lie at
   * wdim[k], stepping it by `wsub`, and dim[k] holds the windows. len 0
   * and win 0: the axis has dim[k] to itself (what sliding ops expect).
   */
  int32_t len[NNS_RF_MAX_AXES], sub[NNS_RF_MAX_AXES];
  int32_t win[NNS_RF_MAX_AXES], wsub[NNS_RF_MAX_AXES];
  int8_t wdim[NNS_RF_MAX_AXES];
  /* Whole (f.whole) while keeping its spatial axes: every position has
   * seen every position (attention over all of them). Merged with a
   * finite field it stays whole, unlike a value whose axes are gone. */
  bool full;
} nns__rf;

/*
 * Receptive-field rule: from the field of the node's first activation
 * input to that of its outputs (dims as in output 0). Ops that move over
 * space (conv, pool, resize) grow the field; ops that move data (Transpose,
 * Reshape, Squeeze, ...) map the spatial axes to their new dims; ops that
 * work along axes (reductions, MatMul, normalisations, Softmax) say what
 * working along a spatial axis does: reduce it away (`whole`) or mix every
 * position into each (`global_context`). Ops without a rule broadcast:
 * element-wise ops and merges (Add, Mul, Concat) keep the union of their
 * activation inputs' fields (src/analyze/rf.c). A rule leaves `in`'s
 * global_context to the caller.
 */
typedef nns_status (*nns__rf_fn)(struct nns__ictx *cx, const nns__rf *in,
                                 nns__rf *out);

/* Returned by a receptive-field rule that does not apply to this node
 * (Concat other than a rotation): the node merges its inputs' fields like
 * an op without a rule. Not an error. */
#define NNS__RF_MERGE ((nns_status)-3)

/* Returned by a fold rule that cannot fold (an input is not constant, or
 * the result would be too large). Not an error. */
#define NNS__NOFOLD ((nns_status)-1)

/*
 * The newest ai.onnx opset the table has been written against: every entry
 * that is current at that opset ends here (`until`), so this is the one
 * place the number lives. Raising it means going through the ONNX
 * changelog for the new opset and giving each op that changed a new entry
 * (its old entry then ends one below); the registry test checks ranges.
 * Public as nns_opset_max(), which the Python package builds graphs at.
 */
#define NNS__OPSET_MAX 25

typedef struct nns__op {
  const char *domain;  /* "" for ai.onnx, "ai.onnx.ml", "com.microsoft" */
  const char *name;
  int since, until;    /* opset versions covered, inclusive */
  /*
   * One letter per input: 'a' activation, 'w' weight, 'b' bias, 'u' buffer
   * (running statistics), 'c' constant (shape, axes, indices, scalars).
   * The last letter repeats for variadic inputs.
   */
  const char *roles;
  const nns__attr_spec *attrs; /* NNS__A_END-terminated; NULL for none */
  nns__rule_fn shape;
  nns__rule_fn fold;   /* NULL when the op has no constant kernel */
  /* The driver runs `fold` only when every present input is a known
   * constant, unless this is set: folds that read input types or structure
   * rather than values (Shape, Size, SequenceLength, ...). */
  bool fold_on_types;
  nns__cost_fn cost;   /* NULL: the op is listed as not counted */
  nns__rf_fn rf;       /* NULL: broadcast the fields of the inputs */
  /* The rf rule follows axes that a reshape split into windows or merged
   * (nns__rf's len and win). Without it, such a field reaching the rule
   * is lost (whole): sliding ops need each axis in a dim of its own. */
  bool rf_parts;
  /* A view: no run-time work. Its output aliases its input (Reshape,
   * Identity, Squeeze) or is known without reading any data (Shape,
   * Constant, sequence bookkeeping); it costs nothing. Set through
   * NNS__VIEW, which also gives the entry its all-zero cost rule. */
  bool view;
  /* Runs as matrix products (tensor/matrix cores): the roofline gives it
   * the requested compute dtype's peak, tf32, fp8 and int8 included
   * (docs/metrics.md, "Bytes and the roofline"). */
  bool matrix;
  /* Reads of its first input only the elements its first output holds
   * (Gather's rows, Slice's window): its bytes count that input as the
   * output's size, not the whole table (docs/metrics.md). */
  bool picks;
  const void *ext;     /* custom ops: the user's callbacks */
  /*
   * Differentiability, one character per input like `roles` (the last
   * repeats): '1' where no gradient flows through the input into the
   * outputs although the input may be floating point (a Where condition,
   * a comparison's operands, the tensor a Shape reads). NULL: every input
   * whose role is 'a', 'w' or 'b' is differentiable. Inputs of role 'c'
   * or 'u' never are, and no gradient flows through an integer or bool
   * value whatever the op (a Cast to an integer type stops it).
   */
  const char *no_grad;

  /* The node holds its output's contents in an attribute (Constant): the
   * output is classified like an initializer (src/analyze/params.c). */
  bool holds_data;

  /* Weights stored packed, several to a byte (MatMulNBits' B, QMoE's
   * expert weights): bit k set when input k holds 8 / bits weights per
   * element, bits the node's attribute `packed_bits` (4 when the node
   * does not set it). The parameter count counts the weights, the bytes
   * stay the tensor's (src/analyze/params.c). */
  uint32_t packed_mask;
  const char *packed_bits;

  /* The op runs one of its subgraphs, picked by a condition (If): when the
   * condition is unknown its outputs merge the branches', so a size lost
   * in a branch is lost at the op (src/analyze/analyze.c). */
  bool branches;

  /* The part the op can play in attention, softmax(Q.K^T + mask).V
   * (NNS__ATTN_*): how src/analyze/masked.c finds the two products whose
   * (query, key) pairs a mask with known contents leaves out. */
  uint8_t attn;
} nns__op;

enum {
  NNS__ATTN_NONE = 0,
  NNS__ATTN_PRODUCT, /* a matrix product: Q.K^T before the softmax, P.V after */
  NNS__ATTN_SOFTMAX, /* the normalisation over keys */
  NNS__ATTN_BIAS,    /* adds an additive mask (-inf or very negative: left out) */
  NNS__ATTN_SELECT,  /* Where(cond, a, b): one of a, b the scores, the other a
                        very negative fill */
  NNS__ATTN_SCALE,   /* multiplies or divides the scores by a constant */
  NNS__ATTN_KEEP,    /* passes values on (reshape, cast, broadcast, dropout) */
  /* How a boolean mask is made, read where its contents are not known (a
   * mask too large to track): from known positions compared, joined. */
  NNS__ATTN_AND,           /* both allow */
  NNS__ATTN_OR,            /* either allows */
  NNS__ATTN_NOT,           /* allows where its input does not */
  NNS__ATTN_LESS,          /* a < b */
  NNS__ATTN_LESS_EQUAL,    /* a <= b */
  NNS__ATTN_GREATER,       /* a > b */
  NNS__ATTN_GREATER_EQUAL, /* a >= b */
  /* Keeps one side of a diagonal of its input's last two axes (Trilu:
   * key - query <= k, or >= k for the upper side), the rest zero: a
   * causal mask made of a filled tensor (PyTorch's math SDPA on meta:
   * ones(L, S).tril()), read from its diagonal. */
  NNS__ATTN_TRIANGLE,
  /* Every element the one value of its `value` attribute (ConstantOfShape:
   * the full(L, S, min) under an ONNX export's causal triangle), read
   * without folding its L x S elements. */
  NNS__ATTN_FILL
};

/* The role letter of input i of node n ('a' when the op is unknown or
 * declares no roles); the last letter repeats for variadic inputs. */
static inline char nns__input_role(const nns__node *n, int i) {
  const char *r = n->op ? n->op->roles : NULL;
  if (!r || !r[0] || i < 0)
    return 'a';
  size_t len = strlen(r);
  return r[(size_t)i < len ? (size_t)i : len - 1];
}

/* Marks an entry as a view (see `view`) and gives it the view cost rule. */
#define NNS__VIEW .view = true, .cost = nns__cost_view

/*
 * Entries are written positionally up to `fold` and by name after it:
 *   {"", "Conv", 1, 17, "awb", conv_attrs, conv_shape, NULL,
 *    .cost = conv_cost, .rf = conv_rf},
 */

/* ==== Registry (registry.c) ==== */

/* The entry for (domain, name) at opset `version`, or NULL. When version is
 * beyond every entry (a newer opset), the newest entry is returned and
 * *newer is set. */
const nns__op *nns__op_find(const char *domain, const char *name,
                            int64_t version, bool *newer);
/* A rule registered with nns_model_register_op for (domain, name), or NULL
 * (custom.c). Looked up before the built-in table. */
const nns__op *nns__custom_find(const nns_model *m, const char *domain,
                                const char *name);
size_t nns__op_table_size(void);
const nns__op *nns__op_table_at(size_t i);
/* The family (the src/ops/ file, "conv", "gemm", ...) of the first entry
 * for (domain, name), or NULL for an op the table does not have. The HTML
 * report colours layers by it. */
const char *nns__op_family(const char *domain, const char *name);

/* ==== The rule context ==== */

typedef struct nns__ictx {
  nns_model *m;
  nns__node *node;
  const nns__op *op;
  int64_t opset;       /* the node's domain version */
  nns_error *err;
  /* Set by nns__graph_infer's caller for function bodies: attributes of
   * the calling node that ref_attr_name refers to. */
  const nns__node *call;
  /* Subgraph inference hook, provided by the driver (src/infer). */
  nns_status (*infer_subgraph)(struct nns__ictx *cx, nns__graph *g,
                               const nns__type *in_types, int n_in_types);
  /* A subgraph that never runs (the branch a known condition does not
   * take): its nodes get their ops and order, nested bodies too, but no
   * shape rule runs, so every value it makes stays unknown and nothing
   * in it can fail. The analysis still finds its weights. */
  nns_status (*skip_subgraph)(struct nns__ictx *cx, nns__graph *g);
  /* Subgraph cost hook, provided by the analysis (src/analyze): the summed
   * cost of every node of g (already inferred). */
  nns_status (*cost_subgraph)(struct nns__ictx *cx, const nns__graph *g,
                              nns__cost *c);
  struct nns_analysis *analysis; /* the analysis running, for that hook */
  /* Receptive-field rules only: the field of each input (NULL where an
   * input carries none), for rules that combine two (attention). */
  const struct nns__rf *const *rf_in;
  int32_t n_rf_in;
  nns__rf_pool *rf_pool; /* periodic fields (rf_period.h) */
} nns__ictx;

/* -- errors -- */

/* Fails the node: the message names the node, its op and `fmt`. */
nns_status nns__fail(nns__ictx *cx, nns_status code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* A warning that names the node. */
void nns__node_warn(nns__ictx *cx, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* -- inputs -- */

int nns__n_in(const nns__ictx *cx);
/* NULL when input i is absent or omitted (""). */
nns__value *nns__in(const nns__ictx *cx, int i);
bool nns__has_in(const nns__ictx *cx, int i);
/* Type of input i; NULL when absent. */
const nns__type *nns__in_type(const nns__ictx *cx, int i);
int32_t nns__in_dtype(const nns__ictx *cx, int i);  /* 0 if unknown/absent */
int32_t nns__in_rank(const nns__ictx *cx, int i);   /* -1 if unknown/absent */
/* Dim `axis` of input i (axis may be negative); assumes a known rank. */
nns__dim nns__in_dim(const nns__ictx *cx, int i, int axis);
/* Known contents of input i (an initializer, a Constant or a folded value),
 * decoded on first use; NULL when unknown or larger than the fold limit. */
const nns__const *nns__in_const(nns__ictx *cx, int i);
/* Convenience for constant integer inputs (axes, pads, shapes): fills
 * *vals (arena) and *n; false when not a known constant or any element is
 * symbolic and allow_sym is false. */
bool nns__in_ints(nns__ictx *cx, int i, const nns__dim **vals, int64_t *n);
bool nns__in_known_ints(nns__ictx *cx, int i, const int64_t **vals,
                        int64_t *n);
/* Element count of input i if its shape is fully known, else -1. */
int64_t nns__in_numel(const nns__ictx *cx, int i);

/* -- attributes (defaults come from the entry's spec) -- */

/* The node's attribute, or NULL. Resolves ref_attr_name in function bodies. */
const nns__attr *nns__attr_get(const nns__ictx *cx, const char *name);
bool nns__attr_has(const nns__ictx *cx, const char *name);
/* Whether the op's entry at this opset declares attribute `name` (whether
 * or not the node sets it); false without an entry. By pointer first, as
 * the attribute reads: window and broadcast rules ask this per node. */
bool nns__spec_has(const nns__ictx *cx, const char *name);
int64_t nns__attr_int(const nns__ictx *cx, const char *name);
double nns__attr_float(const nns__ictx *cx, const char *name);
/* "" when absent with no default. */
const char *nns__attr_str(const nns__ictx *cx, const char *name);
/* Returns the count and sets *vals, or -1 (and *vals NULL) when absent. */
int32_t nns__attr_ints(const nns__ictx *cx, const char *name,
                       const int64_t **vals);
int32_t nns__attr_floats(const nns__ictx *cx, const char *name,
                         const double **vals);
/* Decoded contents of a TENSOR attribute (Constant's value): the tensor and
 * its constant, or NULL. */
const nns__tensor *nns__attr_tensor(const nns__ictx *cx, const char *name);

/* -- outputs -- */

int nns__n_out(const nns__ictx *cx);
bool nns__has_out(const nns__ictx *cx, int i);
/* Sets output i's dtype and rank and returns its dims to fill (arena),
 * each initialised to a fresh symbol. rank -1: unknown rank (returns NULL).
 * Returns NULL too when output i is absent. */
nns__dim *nns__out_shape(nns__ictx *cx, int i, int32_t dtype, int32_t rank);
/* The same for a rule that then sets every one of the `rank` dims itself:
 * no fresh symbol per dim only to be overwritten (each is an entry of the
 * model's symbol table, kept as long as the results). */
nns__dim *nns__out_dims(nns__ictx *cx, int i, int32_t dtype, int32_t rank);
/* Copies a type (dtype, kind, dims) to output i. */
void nns__out_type(nns__ictx *cx, int i, const nns__type *t);
/* Output i = input j's type, with dtype replaced when dtype != 0. */
void nns__out_like(nns__ictx *cx, int i, int j, int32_t dtype);
/* Sets only the dtype (rank unknown). */
void nns__out_dtype(nns__ictx *cx, int i, int32_t dtype);
/* Sets output i's kind (sequence, optional) after its shape is set. */
void nns__out_kind(nns__ictx *cx, int i, uint8_t kind, uint8_t elem_kind);

/* -- constants (fold rules) -- */

/* Maximum element count of a folded constant. */
#define NNS__FOLD_MAX 65536
/*
 * Most bytes of constants one inference run may materialise: initializers
 * decoded for their values and values folded (each at most NNS__FOLD_MAX
 * elements). Without a total, a small file amplifies: one 64K-element
 * ConstantOfShape feeding 4,000 Neg nodes folds 2 GB. Past the budget a
 * value that would be folded or decoded stays unknown (a warning says
 * where folding stopped); inference is shared by every command, so each
 * sees the same shapes. Shape arithmetic needs a few KB; the fixtures,
 * examples and benchmark models never come near. (64 MiB let a fuzzed
 * float16 variant of that file fold for 0.9 s.)
 */
#define NNS__FOLD_BUDGET ((int64_t)16 << 20)
/*
 * Values this small (shape arithmetic: a Shape, a Gather of one dim, the
 * Concat of a Reshape's target) fold past the budget too, so that one
 * large constant (Swin's attention masks: several MiB at 256x256) does
 * not leave every later shape unknown. Bounded by the node count: a 1 MB
 * file has well under 200,000 nodes, so at most ~200 MB.
 */
#define NNS__FOLD_SMALL ((int64_t)1 << 10)
/* Allocates the constant of output i, whose type must already be fully
 * known; NULL (fold nothing) when larger than NNS__FOLD_MAX or unknown. */
nns__const *nns__out_const(nns__ictx *cx, int i);

/* -- dims -- */

nns__dim nns__fresh(nns__ictx *cx);
/* Normalises a possibly negative axis for rank r; false if out of range. */
bool nns__axis(int64_t axis, int32_t rank, int32_t *out);
/* Same, failing the node with a message on a bad axis. */
nns_status nns__axis_or_fail(nns__ictx *cx, int64_t axis, int32_t rank,
                             int32_t *out, const char *what);
/* Multidirectional (numpy) broadcast of inputs [first, first+count) into
 * output i with the given dtype. Fails the node when two known dims differ
 * and neither is 1. */
nns_status nns__broadcast(nns__ictx *cx, int first, int count, int out,
                          int32_t dtype);
/* Broadcast of two shapes into *rank/dims (arena). */
nns_status nns__broadcast_shapes(nns__ictx *cx, int32_t ra, const nns__dim *a,
                                 int32_t rb, const nns__dim *b, int32_t *rank,
                                 nns__dim **dims);
/* Product of dims (symbolic when needed). */
nns__dim nns__dims_product(nns__ictx *cx, const nns__dim *d, int32_t n);
/* True when all of t's dims are known numbers. */
bool nns__type_static(const nns__type *t);
/* Arithmetic shorthands over cx->m. */
nns__dim nns__mul(nns__ictx *cx, nns__dim a, nns__dim b);
nns__dim nns__add(nns__ictx *cx, nns__dim a, nns__dim b);
nns__dim nns__sub(nns__ictx *cx, nns__dim a, nns__dim b);
nns__dim nns__div(nns__ictx *cx, nns__dim a, nns__dim b);

/* Arena allocation for rules. */
void *nns__alloc(nns__ictx *cx, size_t n);

/* ==== Cost helpers (cost.c) ==== */

/* Saturating arithmetic on counts; sets c->overflow past INT64_MAX. */
int64_t nns__cmul(nns__cost *c, int64_t a, int64_t b);
int64_t nns__cadd(nns__cost *c, int64_t a, int64_t b);
/* A dim's value for counting: known dims as they are; a symbol counts as 1
 * (a monomial as its coefficient), and sets c->symbolic. */
int64_t nns__dim_count(nns__cost *c, nns__dim d, const nns_model *m);
/* Element counts of input i / output i, symbols at 1; -1 when the rank is
 * unknown or the value absent. */
int64_t nns__in_count(nns__ictx *cx, nns__cost *c, int i);
int64_t nns__out_count(nns__ictx *cx, nns__cost *c, int i);
/* Shared cost rules (docs/metrics.md):
 *   element-wise with k FLOPs per output element: FLOPs k*numel(Y),
 *     MACs 0, DMAs sum(numel(inputs)) + numel(Y);
 *   views (Reshape, Identity, ...): all zero;
 *   data movement (Transpose, Concat, Gather, ...): DMAs inputs + outputs.
 * Each returns NNS__UNCOUNTED when a needed shape is unknown. */
nns_status nns__cost_eltwise(nns__ictx *cx, nns__cost *c, int64_t k);
nns_status nns__cost_view(nns__ictx *cx, nns__cost *c);
nns_status nns__cost_move(nns__ictx *cx, nns__cost *c);
/*
 * A node that does `flops` FLOPs and reads `reads` elements, then writes
 * every present output: FLOPs flops, MACs 0, DMAs reads + numel(outputs).
 * For ops whose extra inputs are arguments (axes, K, pads, Clip's bounds,
 * repeats) rather than data, or that read less than a whole input (Slice,
 * Gather). NNS__UNCOUNTED when flops or reads is negative (an unknown
 * count) or an output's rank is unknown.
 */
nns_status nns__cost_rw(nns__ictx *cx, nns__cost *c, int64_t flops,
                        int64_t reads);

/* The same for an op that reads its first input whole: FLOPs
 * fx*numel(X) + fy*numel(Y), DMAs numel(X) + numel(outputs) (reductions,
 * Softmax, Clip, CumSum, ArgMax). */
nns_status nns__cost_x(nns__ictx *cx, nns__cost *c, int64_t fx, int64_t fy);

/* Data movement that reads its first input whole and takes its other
 * inputs as arguments (Split, Expand, Tile, Pad, Trilu, OneHot's indices,
 * CastLike): FLOPs 0, DMAs numel(X) + numel(outputs). */
nns_status nns__cost_move_x(nns__ictx *cx, nns__cost *c);

/* ==== Family tables ==== */

/* Each family file defines one NNS__OP_END-terminated table. */
#define NNS__OP_END { .name = NULL }

#endif
