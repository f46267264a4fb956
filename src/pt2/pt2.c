/*
 * pt2.c - reads a torch.export archive (torch.export.save's .pt2: a zip
 * whose <name>/models/model.json holds the exported program) into a model,
 * through the builder, with no Python and without reading a weight:
 *  - the graph signature says which placeholders are parameters (trainable
 *    or frozen), buffers and constants: initializers named by their module
 *    path ("layer1.0.conv1.weight"), sized from the tensor metadata;
 *  - user inputs become graph inputs, their symbolic sizes named as the
 *    archive names them ("s77"), which --input fixes like any symbol;
 *  - each aten call goes through the aten table (src/ops/aten.c); a call
 *    the table has no entry for, or cannot lower, stays a node of domain
 *    "pytorch.aten" with its outputs' sizes declared, and the report lists
 *    it as uncounted;
 *  - each node's nn_module_stack gives its module path and the modules'
 *    classes.
 * Hostile archives get a status and a message (zip.c checks the zip).
 */
#include "pt2.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../base/json_reader.h"
#include "../ir/builder_int.h"
#include "../ir/ir.h"
#include "../front/front.h"
#include "../ops/aten.h"
#include "vmap.h"
#include "zip.h"

/* ==== Values: metadata and names ==== */

/* A value: nns__front_value, whose `user` is the parameter or buffer
 * (pt2_state) it names, or NULL. */
typedef nns__front_value pt2_value;

typedef struct pt2 {
  nns__arena arena;        /* everything of one read */
  nns__interner strings;
  nns__map sym_ints;       /* interned sym-int name -> symbol (or NULL) */
  nns__map modules;        /* interned module path -> pt2_module* */
  nns__map module_keys;    /* interned nn_module_stack key -> path: one
                              per call ("relu", "relu@1") */
  nns__front f;            /* values, names, the calls' services */
  nns_builder *b;
  nns_error *err;
  const char *node;        /* node being read, for messages */
  struct pt2_state *states;/* parameters and buffers, newest first */
  const nns__jval *weights;/* model_weights_config.json's "config", or
                              NULL: fqn -> {path_name, ...} */
  nns__map stored;         /* interned path_name -> the first fqn stored
                              there (a tied weight's other names alias it) */
  const nns__jval *tensor_values; /* the graph's, by value name */
  nns__vmap vmap;          /* torch.vmap's trace (vmap.c) */
  const char *last_stack;  /* the last nn_module_stack module_of read */
  const char *last_path;   /* the path it gave */
  /* its modules in their first call (a key without "@N"), outermost
   * first, for the outputs of their first calls */
  struct pt2_module *firsts[32];
  int n_firsts;
  nns__aten_arg args[64];  /* a node's arguments: all zero between nodes */
  int args_used;           /* how many the node being read may have set */
} pt2;

/* A module the nodes name: its class, how many calls they show, and
 * the first output of the last node of its first call (what that call
 * gave: the layer's output, nns__scope_io). */
typedef struct pt2_module {
  const char *class_name;
  int64_t calls;
  const char *first_out;
} pt2_module;

/* A parameter or buffer the signature lists: registered by its module. */
typedef struct pt2_state {
  const char *fqn;
  const nns__aten_meta *meta;
  int kind;
  bool used;               /* some node reads it */
  struct pt2_state *next;
} pt2_state;

static nns_status fail(pt2 *p, nns_status code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static nns_status fail(pt2 *p, nns_status code, const char *fmt, ...) {
  char msg[400];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  if (p->node)
    return nns__err(p->err, code, -1, p->node, "models/model.json: node '%s': %s",
                    p->node, msg);
  return nns__err(p->err, code, -1, NULL, "models/model.json: %s", msg);
}

static const char *intern(pt2 *p, const char *s) {
  return s ? nns__intern_cstr(&p->strings, s) : NULL;
}

static pt2_value *value_of(pt2 *p, const char *name) {
  return nns__front_value_of(&p->f, name);
}

/* The name value `name` has in the graph being built. */
static const char *resolve(pt2 *p, const char *name) {
  return nns__front_resolve(&p->f, name);
}

/* ==== Tensor metadata ==== */

/* torch/_export/serde/schema.py's ScalarType numbers -> nns_dtype. */
static int32_t dtype_of(int64_t st) {
  switch (st) {
  case 1: return NNS_DT_UINT8;
  case 2: return NNS_DT_INT8;
  case 3: return NNS_DT_INT16;
  case 4: return NNS_DT_INT32;
  case 5: return NNS_DT_INT64;
  case 6: return NNS_DT_FLOAT16;
  case 7: return NNS_DT_FLOAT;
  case 8: return NNS_DT_DOUBLE;
  case 10: return NNS_DT_COMPLEX64;
  case 11: return NNS_DT_COMPLEX128;
  case 12: return NNS_DT_BOOL;
  case 13: return NNS_DT_BFLOAT16;
  case 28: return NNS_DT_UINT16;
  case 29: return NNS_DT_FLOAT8E4M3FN;
  case 30: return NNS_DT_FLOAT8E5M2;
  case 31: return NNS_DT_FLOAT8E4M3FNUZ;
  case 32: return NNS_DT_FLOAT8E5M2FNUZ;
  case 33: return NNS_DT_FLOAT8E8M0;
  case 34: return NNS_DT_UINT32;
  case 35: return NNS_DT_UINT64;
  default: return 0;
  }
}

/* A symbol's name from sympy's text: "Symbol('s77', positive=True)" ->
 * "s77"; a bare name is itself; an expression ("2*s0") keeps its text,
 * the same text naming the same size. */
static const char *sym_name(pt2 *p, const char *expr) {
  const char *q = strstr(expr, "Symbol('");
  if (q == expr) {
    q += 8;
    const char *e = strchr(q, '\'');
    if (e && e > q)
      return nns__intern(&p->strings, q, (size_t)(e - q));
  }
  return intern(p, expr);
}

/* A SymInt argument ({"as_int": n} or {"as_expr": ...} or a name of
 * sym_int_values): *v its value when known, else *sym its symbol. */
static void sym_int(pt2 *p, const nns__jval *j, int64_t *v,
                    const char **sym) {
  *v = -1;
  *sym = NULL;
  const nns__jval *x;
  if ((x = nns__json_get(j, "as_int")) && x->type == NNS__J_NUM &&
      x->is_int) {
    *v = x->i;
  } else if ((x = nns__json_get(j, "as_expr"))) {
    const char *s = nns__json_str_or(nns__json_get(x, "expr_str"), NULL);
    *sym = s ? sym_name(p, s) : intern(p, "?");
  } else if ((x = nns__json_get(j, "as_name")) && x->type == NNS__J_STR) {
    const char *k = nns__intern_find(&p->strings, x->s);
    const nns__jval *d = k ? nns__map_get(&p->sym_ints, k) : NULL;
    if (d)
      sym_int(p, d, v, sym);
    else
      *sym = intern(p, x->s);
  }
}

/* Whether 4-D strides t are channels-last as c10's
 * is_channels_last_strides_2d_s4 says (what suggest_memory_format reads):
 * dims visited C, W, H, N, each stride at least the last one times its
 * size, ambiguous cases (N111, a zero C stride) contiguous. A symbolic
 * stride of N (a dynamic batch) passes its one check; any other symbolic
 * stride: not known, false. */
static bool channels_last(pt2 *p, const nns__jval *t, const int64_t *dims) {
  const nns__jval *st = nns__json_get(t, "strides");
  if (!st || st->type != NNS__J_ARR || st->len != 4)
    return false;
  int64_t s[4];
  for (size_t k = 0; k < 4; k++) {
    const char *sym;
    sym_int(p, st->items[k], &s[k], &sym);
    if (s[k] < 0 && k != 0)
      return false;
  }
  if (s[1] == 0)
    return false;
  static const int order[] = {1, 3, 2, 0};
  int64_t min = 0;
  for (int j = 0; j < 4; j++) {
    int d = order[j];
    if (dims[d] == 0 || (d != 0 && dims[d] < 0))
      return false;
    if (d == 0)
      return !(s[0] >= 0 && s[0] < min) && min != s[1];
    if (s[d] < min)
      return false;
    min = s[d];
    if (dims[d] > 1)
      min *= dims[d];
  }
  return true;
}

static nns_status read_meta(pt2 *p, const char *name, const nns__jval *t,
                            nns__aten_meta *m) {
  const nns__jval *sizes = nns__json_get(t, "sizes");
  if (!sizes || sizes->type != NNS__J_ARR || sizes->len > 64)
    return fail(p, NNS_E_MODEL, "tensor '%s' has no sizes list", name);
  int64_t *dims = nns__arena_array(&p->arena, sizes->len + 1, sizeof *dims);
  const char **syms = nns__arena_array(&p->arena, sizes->len + 1,
                                       sizeof *syms);
  if (!dims || !syms)
    return fail(p, NNS_E_NOMEM, "out of memory");
  for (size_t k = 0; k < sizes->len; k++) {
    sym_int(p, sizes->items[k], &dims[k], &syms[k]);
    if (dims[k] < 0 && !syms[k])
      return fail(p, NNS_E_MODEL, "tensor '%s': size %zu is neither a "
                  "number nor an expression", name, k);
  }
  m->dtype = dtype_of(nns__json_int_or(nns__json_get(t, "dtype"), 0));
  m->rank = (int32_t)sizes->len;
  m->dims = dims;
  m->syms = syms;
  m->channels_last = m->rank == 4 && channels_last(p, t, dims);
  return NNS_OK;
}

static nns_status read_values(pt2 *p, const nns__jval *graph) {
  const nns__jval *tv = nns__json_get(graph, "tensor_values");
  if (!tv || tv->type != NNS__J_OBJ)
    return fail(p, NNS_E_MODEL, "graph has no tensor_values object");
  p->tensor_values = tv;
  const nns__jval *si = nns__json_get(graph, "sym_int_values");
  if (si && si->type == NNS__J_OBJ)
    for (size_t k = 0; k < si->len; k++) {
      const char *key = intern(p, si->keys[k]);
      if (!key || !nns__map_put(&p->sym_ints, key, si->items[k]))
        return fail(p, NNS_E_NOMEM, "out of memory");
    }
  if (!nns__map_reserve(&p->f.values, tv->len))
    return fail(p, NNS_E_NOMEM, "out of memory");
  for (size_t k = 0; k < tv->len; k++) {
    const char *key = intern(p, tv->keys[k]);
    pt2_value *v = key ? nns__front_value_add(&p->f, key) : NULL;
    if (!v)
      return fail(p, NNS_E_NOMEM, "out of memory");
    nns_status st = read_meta(p, key, tv->items[k], &v->meta);
    if (st != NNS_OK)
      return st;
  }
  return NNS_OK;
}

/* ==== Signature: inputs and outputs ==== */

/* {"as_tensor": {"name": n}} or {"name": n}: n, or NULL. */
static const char *tensor_name(const nns__jval *j) {
  const nns__jval *t = nns__json_get(j, "as_tensor");
  return nns__json_str_or(nns__json_get(t ? t : j, "name"), NULL);
}

static nns_status add_state(pt2 *p, const char *arg, const char *fqn,
                            int kind) {
  pt2_value *v = value_of(p, arg);
  if (!v)
    return fail(p, NNS_E_MODEL, "input '%s' has no tensor metadata", arg);
  for (int k = 0; k < v->meta.rank; k++)
    if (v->meta.dims[k] < 0)
      return fail(p, NNS_E_MODEL, "state tensor '%s' has a symbolic size",
                  fqn);
  pt2_state *t = nns__arena_alloc(&p->arena, sizeof *t);
  if (!t || !(t->fqn = intern(p, fqn)))
    return fail(p, NNS_E_NOMEM, "out of memory");
  t->meta = &v->meta;
  t->kind = kind;
  t->next = p->states;
  p->states = t;
  nns_status st = NNS_OK;
  if (strcmp(arg, fqn))
    st = nns__front_alias(&p->f, arg, fqn);
  pt2_value *w = value_of(p, fqn);
  if (w) {
    w->user = t;
    /* its 2-D transpose folds into the products that read it (front.h) */
    w->weight = kind != NNS_PARAM_CONSTANT;
  }
  return st;
}

/* A value a node reads: a parameter or buffer it names is used. */
static void mark_used(pt2 *p, const char *name) {
  pt2_value *v = value_of(p, name);
  if (v && v->user)
    ((pt2_state *)v->user)->used = true;
}

/* The initializers of the parameters, buffers and constants some node
 * reads: one no node reads is no value of the graph, as in a live
 * recording (a module's registered tensors still count: declare_modules). */
static nns_status add_states(pt2 *p) {
  for (pt2_state *t = p->states; t; t = t->next) {
    if (!t->used)
      continue;
    nns_status st = nns_builder_add_initializer(
        p->b, t->fqn, t->meta->dtype, t->meta->rank, t->meta->dims, NULL, 0,
        p->err);
    if (st == NNS_OK)
      st = nns__aten_param_kind(p->b, t->fqn, t->kind, p->err);
    if (st != NNS_OK)
      return st;
  }
  return NNS_OK;
}

/* A parameter no node reads (a head the forward skips: GoogLeNet's and
 * Inception's auxiliary classifiers in eval mode) is still one of the
 * model's, as sum(p.numel()) and the live recorder count it: a Shape node
 * in the parameter's own module reads it (the recorder's
 * _read_unused_params), in the signature's order. */
static nns_status read_unused_params(pt2 *p) {
  size_t n = 0;
  for (pt2_state *t = p->states; t; t = t->next)
    n += !t->used && (t->kind == NNS_PARAM_TRAINABLE ||
                      t->kind == NNS_PARAM_FROZEN);
  if (!n)
    return NNS_OK;
  pt2_state **order = nns__arena_alloc(&p->arena, n * sizeof *order);
  if (!order)
    return nns__err(p->err, NNS_E_NOMEM, -1, NULL, "out of memory");
  size_t k = n;
  for (pt2_state *t = p->states; t; t = t->next)
    if (!t->used && (t->kind == NNS_PARAM_TRAINABLE ||
                     t->kind == NNS_PARAM_FROZEN))
      order[--k] = t; /* the list is newest first */
  for (k = 0; k < n; k++) {
    pt2_state *t = order[k];
    const char *dot = strrchr(t->fqn, '.');
    const char *path = dot ? nns__intern(&p->strings, t->fqn,
                                         (size_t)(dot - t->fqn))
                           : intern(p, "");
    char name[64];
    snprintf(name, sizeof name, "_nns_unused_%zu", k);
    const char *out = intern(p, name);
    if (!path || !out)
      return nns__err(p->err, NNS_E_NOMEM, -1, NULL, "out of memory");
    nns_status st = nns_builder_add_node(p->b, "Shape", "", out, path,
                                         &t->fqn, 1, &out, 1, p->err);
    if (st != NNS_OK)
      return st;
    p->f.nodes++;
    t->used = true;
  }
  return NNS_OK;
}

/* Whether two JSON values are equal (numbers by value, objects member by
 * member in order, as the serializer writes tensor metadata). */
static bool json_equal(const nns__jval *a, const nns__jval *b) {
  if (!a || !b || a->type != b->type)
    return a == b;
  switch (a->type) {
  case NNS__J_NULL:
    return true;
  case NNS__J_BOOL:
    return a->b == b->b;
  case NNS__J_NUM:
    return a->is_int == b->is_int && (a->is_int ? a->i == b->i : a->d == b->d);
  case NNS__J_STR:
    return a->len == b->len && !memcmp(a->s, b->s, a->len);
  case NNS__J_ARR:
  case NNS__J_OBJ:
    if (a->len != b->len)
      return false;
    for (size_t k = 0; k < a->len; k++)
      if ((a->type == NNS__J_OBJ && strcmp(a->keys[k], b->keys[k])) ||
          !json_equal(a->items[k], b->items[k]))
        return false;
    return true;
  }
  return false;
}

/* Whether weights-config entries a and b can be one stored tensor: the
 * same sizes, strides and offset, on a device with storage. On the meta
 * device every tensor has the same (empty) storage, so the serializer
 * gives them all one path_name (a LLaMA exported on meta: "weight_0" for
 * all 291 parameters), which says nothing about ties. */
static bool same_storage(const nns__jval *a, const nns__jval *b) {
  const nns__jval *ma = nns__json_get(a, "tensor_meta"),
                  *mb = nns__json_get(b, "tensor_meta");
  const nns__jval *dev = nns__json_get(nns__json_get(ma, "device"), "type");
  if (!ma || !mb || (dev && dev->type == NNS__J_STR && !strcmp(dev->s, "meta")))
    return false;
  static const char *const keys[] = {"sizes", "strides", "storage_offset",
                                     "dtype", "device"};
  for (size_t k = 0; k < sizeof keys / sizeof keys[0]; k++)
    if (!json_equal(nns__json_get(ma, keys[k]), nns__json_get(mb, keys[k])))
      return false;
  return true;
}

/* A tied weight: torch.export lifts each of its names (GPT-2's
 * transformer.wte.weight and lm_head.weight) as a parameter of its own,
 * and the weights' config stores them once, under one path_name. *first
 * the name that came first for fqn's stored tensor (its other names read
 * it: one parameter, as sum(p.numel()) and the live recording count it),
 * or NULL for the first, when the archive says nothing, or when the two
 * cannot be one tensor (same_storage). */
static nns_status tied(pt2 *p, const char *fqn, const char **first) {
  *first = NULL;
  const nns__jval *w = nns__json_get(p->weights, fqn);
  const nns__jval *path = nns__json_get(w, "path_name");
  if (!path || path->type != NNS__J_STR)
    return NNS_OK;
  const char *key = intern(p, path->s);
  if (!key)
    return fail(p, NNS_E_NOMEM, "out of memory");
  const char *had = nns__map_get(&p->stored, key);
  if (had && strcmp(had, fqn)) {
    if (same_storage(nns__json_get(p->weights, had), w))
      *first = had;
    return NNS_OK;
  }
  if (!had && !nns__map_put(&p->stored, key, (void *)intern(p, fqn)))
    return fail(p, NNS_E_NOMEM, "out of memory");
  return NNS_OK;
}

static nns_status read_inputs(pt2 *p, const nns__jval *sig) {
  const nns__jval *specs = nns__json_get(sig, "input_specs");
  if (!specs || specs->type != NNS__J_ARR)
    return fail(p, NNS_E_MODEL, "signature has no input_specs list");
  for (size_t k = 0; k < specs->len; k++) {
    const nns__jval *s = specs->items[k], *x;
    nns_status st = NNS_OK;
    if ((x = nns__json_get(s, "parameter"))) {
      const char *arg = tensor_name(nns__json_get(x, "arg"));
      const char *fqn = nns__json_str_or(nns__json_get(x, "parameter_name"),
                                         arg);
      pt2_value *v = arg ? value_of(p, arg) : NULL;
      (void)v;
      if (!arg || !fqn)
        return fail(p, NNS_E_MODEL, "input spec %zu: a parameter without "
                    "its names", k);
      const char *first = NULL;
      if ((st = tied(p, fqn, &first)) != NNS_OK)
        return st;
      /* a parameter whose requires_grad is false (a frozen sinusoidal
       * table: Marian, Pegasus) is frozen, as the live recording says */
      const nns__jval *rg = nns__json_get(
          nns__json_get(p->tensor_values, arg), "requires_grad");
      int kind = rg && rg->type == NNS__J_BOOL && !rg->b
                     ? NNS_PARAM_FROZEN
                     : NNS_PARAM_TRAINABLE;
      st = first ? nns__front_alias(&p->f, arg, first)
                 : add_state(p, arg, fqn, kind);
    } else if ((x = nns__json_get(s, "buffer"))) {
      const char *arg = tensor_name(nns__json_get(x, "arg"));
      const char *fqn = nns__json_str_or(nns__json_get(x, "buffer_name"),
                                         arg);
      if (!arg || !fqn)
        return fail(p, NNS_E_MODEL, "input spec %zu: a buffer without its "
                    "names", k);
      st = add_state(p, arg, fqn, NNS_PARAM_BUFFER);
    } else if ((x = nns__json_get(s, "tensor_constant"))) {
      const char *arg = tensor_name(nns__json_get(x, "arg"));
      const char *fqn = nns__json_str_or(
          nns__json_get(x, "tensor_constant_name"), arg);
      if (!arg || !fqn)
        return fail(p, NNS_E_MODEL, "input spec %zu: a constant without "
                    "its names", k);
      st = add_state(p, arg, fqn, NNS_PARAM_CONSTANT);
    } else if ((x = nns__json_get(s, "user_input"))) {
      const char *arg = tensor_name(nns__json_get(x, "arg"));
      pt2_value *v = arg ? value_of(p, arg) : NULL;
      if (!v)
        continue; /* a number or other non-tensor input */
      int64_t dims[64];
      for (int d = 0; d < v->meta.rank; d++)
        dims[d] = v->meta.dims[d] < 0 ? -1 : v->meta.dims[d];
      st = nns_builder_add_input(p->b, arg, v->meta.dtype, v->meta.rank,
                                 dims, v->meta.syms, p->err);
      if (p->f.n_inputs < 64 &&
          !(p->f.inputs[p->f.n_inputs++] = intern(p, arg)))
        return fail(p, NNS_E_NOMEM, "out of memory");
    }
    if (st != NNS_OK)
      return st;
  }
  return NNS_OK;
}

static nns_status read_outputs(pt2 *p, const nns__jval *sig) {
  const nns__jval *specs = nns__json_get(sig, "output_specs");
  if (!specs || specs->type != NNS__J_ARR)
    return fail(p, NNS_E_MODEL, "signature has no output_specs list");
  for (size_t k = 0; k < specs->len; k++) {
    const nns__jval *x = nns__json_get(specs->items[k], "user_output");
    const char *name = x ? tensor_name(nns__json_get(x, "arg")) : NULL;
    if (!name)
      continue; /* a buffer mutation, a token, a number */
    mark_used(p, resolve(p, name));
    /* a weight's transpose nothing computed (front.h): as a weight
     * returned as it is, no output of the live recording either */
    const pt2_value *v = value_of(p, resolve(p, name));
    if (v && v->t_of)
      continue;
    nns_status st = nns_builder_add_output(p->b, resolve(p, name), 0, -1,
                                           NULL, NULL, p->err);
    if (st != NNS_OK)
      return st;
  }
  return NNS_OK;
}

/* ==== Nodes ==== */

/* The module path and class of a node's innermost module, from its
 * nn_module_stack ("key,path,class;key,path,class"), declared as
 * modules on the way. "" for the model itself. */
static nns_status module_of(pt2 *p, const nns__jval *meta,
                            const char **path) {
  *path = "";
  const char *s = nns__json_str_or(nns__json_get(meta, "nn_module_stack"),
                                   NULL);
  /* Consecutive nodes mostly sit in one module (two in three in a LLaMA):
   * a stack read again declares nothing new and gives the same path. */
  if (s && p->last_stack && !strcmp(s, p->last_stack)) {
    *path = p->last_path;
    return NNS_OK;
  }
  const char *stack = s;
  p->n_firsts = 0;
  while (s && *s) {
    const char *end = strchr(s, ';');
    size_t n = end ? (size_t)(end - s) : strlen(s);
    const char *c1 = memchr(s, ',', n);
    const char *c2 = NULL;
    for (const char *q = s + n; q > s; q--)
      if (q[-1] == ',') {
        c2 = q - 1;
        break;
      }
    if (c1 && c2 > c1) {
      const char *mod = nns__intern(&p->strings, c1 + 1, (size_t)(c2 - c1 - 1));
      const char *cls = c2 + 1;
      const char *dot = NULL;
      for (const char *q = cls; q < s + n; q++)
        if (*q == '.')
          dot = q;
      if (dot)
        cls = dot + 1;
      const char *cname = nns__intern(&p->strings, cls, (size_t)(s + n - cls));
      const char *key = nns__intern(&p->strings, s, (size_t)(c1 - s));
      if (!mod || !cname || !key)
        return fail(p, NNS_E_NOMEM, "out of memory");
      pt2_module *pm = nns__map_get(&p->modules, mod);
      if (!pm) {
        pm = nns__arena_alloc(&p->arena, sizeof *pm);
        if (!pm || !nns__map_put(&p->modules, mod, pm))
          return fail(p, NNS_E_NOMEM, "out of memory");
        pm->class_name = cname;
      }
      /* Each call of a module has a key of its own (torch.export adds
       * "@1", "@2" to the calls after the first). */
      void *old = NULL;
      if (!nns__map_add(&p->module_keys, key, (void *)mod, &old))
        return fail(p, NNS_E_NOMEM, "out of memory");
      if (!old)
        pm->calls++;
      if (!memchr(s, '@', (size_t)(c1 - s)) &&
          p->n_firsts < (int)(sizeof p->firsts / sizeof *p->firsts))
        p->firsts[p->n_firsts++] = pm;
      *path = mod;
    }
    s = end ? end + 1 : NULL;
  }
  p->last_stack = stack;
  p->last_path = *path;
  return NNS_OK;
}

/* One argument's JSON ({"as_tensor": ...}, {"as_ints": ...}) into a. */
static nns_status read_arg(pt2 *p, const nns__jval *j, nns__aten_arg *a) {
  const nns__jval *x;
  if (!j || j->type != NNS__J_OBJ || j->len < 1)
    return NNS_OK;
  const char *kind = j->keys[0];
  x = j->items[0];
  if (!strcmp(kind, "as_tensor")) {
    const char *n = nns__json_str_or(nns__json_get(x, "name"), NULL);
    if (n) {
      a->kind = NNS__AA_TENSOR;
      a->tensor = resolve(p, n);
      mark_used(p, a->tensor);
    }
  } else if (!strcmp(kind, "as_tensors") ||
             !strcmp(kind, "as_optional_tensors")) {
    if (x->type != NNS__J_ARR)
      return NNS_OK;
    a->kind = NNS__AA_TENSORS;
    a->n = (int32_t)x->len;
    a->tensors = nns__arena_array(&p->arena, x->len + 1, sizeof *a->tensors);
    if (!a->tensors)
      return fail(p, NNS_E_NOMEM, "out of memory");
    for (size_t k = 0; k < x->len; k++) {
      const char *n = tensor_name(x->items[k]);
      a->tensors[k] = n ? resolve(p, n) : NULL;
      if (a->tensors[k])
        mark_used(p, a->tensors[k]);
    }
  } else if (!strcmp(kind, "as_int") || !strcmp(kind, "as_sym_int")) {
    a->kind = NNS__AA_INT;
    if (x->type == NNS__J_NUM)
      a->i = x->i;
    else
      sym_int(p, x, &a->i, &a->sym);
  } else if (!strcmp(kind, "as_ints") || !strcmp(kind, "as_sym_ints")) {
    if (x->type != NNS__J_ARR)
      return NNS_OK;
    a->kind = NNS__AA_INTS;
    a->n = (int32_t)x->len;
    a->ints = nns__arena_array(&p->arena, x->len + 1, sizeof *a->ints);
    a->syms = nns__arena_array(&p->arena, x->len + 1, sizeof *a->syms);
    if (!a->ints || !a->syms)
      return fail(p, NNS_E_NOMEM, "out of memory");
    for (size_t k = 0; k < x->len; k++) {
      const nns__jval *e = x->items[k];
      if (e->type == NNS__J_NUM)
        a->ints[k] = e->i;
      else
        sym_int(p, e, &a->ints[k], &a->syms[k]);
    }
  } else if (!strcmp(kind, "as_float") && x->type == NNS__J_NUM) {
    a->kind = NNS__AA_FLOAT;
    a->f = x->d;
  } else if (!strcmp(kind, "as_float") && x->type == NNS__J_STR &&
             (!strcmp(x->s, "Infinity") || !strcmp(x->s, "-Infinity") ||
              !strcmp(x->s, "NaN"))) {
    /* JSON has no infinity: the serializer writes Python's float() words
     * (masked_fill(mask, -inf), a causal mask's fill) */
    a->kind = NNS__AA_FLOAT;
    a->f = x->s[0] == 'N' ? NAN : x->s[0] == '-' ? -INFINITY : INFINITY;
  } else if (!strcmp(kind, "as_bool") && x->type == NNS__J_BOOL) {
    a->kind = NNS__AA_BOOL;
    a->b = x->b;
  } else if (!strcmp(kind, "as_string") && x->type == NNS__J_STR) {
    a->kind = NNS__AA_STRING;
    a->s = x->s;
  } else if (!strcmp(kind, "as_scalar_type") && x->type == NNS__J_NUM) {
    a->kind = NNS__AA_DTYPE;
    a->i = dtype_of(x->i);
  }
  return NNS_OK;
}

/* The tensor outputs of a node, in order (NULL where one is not a
 * tensor). */
static int read_outs(pt2 *p, const nns__jval *outs, const char **names,
                     int cap) {
  int n = 0;
  for (size_t k = 0; outs && k < outs->len && n < cap; k++) {
    const nns__jval *o = outs->items[k], *ts;
    if ((ts = nns__json_get(o, "as_tensors")) && ts->type == NNS__J_ARR) {
      for (size_t j = 0; j < ts->len && n < cap; j++)
        names[n++] = intern(p, tensor_name(ts->items[j]));
    } else {
      names[n++] = intern(p, tensor_name(o));
    }
  }
  return n;
}

static nns_status read_node(pt2 *p, const nns__jval *nodes, size_t at) {
  const nns__jval *node = nodes->items[at];
  const char *target = nns__json_str_or(nns__json_get(node, "target"), "");
  p->node = p->f.node = nns__json_str_or(nns__json_get(node, "name"), target);
  const nns__jval *outs = nns__json_get(node, "outputs");
  const char *out_names[64];
  int n_outs = read_outs(p, outs && outs->type == NNS__J_ARR ? outs : NULL,
                         out_names, 64);
  bool any_tensor = false;
  for (int k = 0; k < n_outs; k++)
    any_tensor = any_tensor || out_names[k];
  static const char prefix[] = "torch.ops.aten.";
  if (strncmp(target, prefix, sizeof prefix - 1)) {
    /* Arithmetic on sizes (_operator.mul), asserts, higher-order ops: a
     * node with no tensor output changes no count (torch.vmap's entering
     * and leaving a level are kept track of: vmap.c). */
    if (!any_tensor) {
      nns_status st = nns__vmap_node(&p->vmap, &p->f, nodes, at, NULL, NULL,
                                     0);
      return st ? fail(p, st, "out of memory") : NNS_OK;
    }
  }
  const char *op = target;
  char base[96];
  static const char ops[] = "torch.ops.";
  if (!strncmp(target, prefix, sizeof prefix - 1)) {
    const char *s = target + sizeof prefix - 1, *dot = strchr(s, '.');
    size_t n = dot ? (size_t)(dot - s) : strlen(s);
    if (n >= sizeof base)
      n = sizeof base - 1;
    memcpy(base, s, n);
    base[n] = '\0';
    op = base;
  } else if (!strncmp(target, ops, sizeof ops - 1)) {
    /* another library's op, torch.ops.NS.OP.OVERLOAD: by PyTorch's own
     * qualified name, NS::OP ("transformers::grouped_mm_fallback") */
    const char *ns = target + sizeof ops - 1, *dot = strchr(ns, '.');
    const char *end = dot ? strchr(dot + 1, '.') : NULL;
    if (dot && end && (size_t)(end - ns) + 2 < sizeof base) {
      int n = snprintf(base, sizeof base, "%.*s::%.*s", (int)(dot - ns), ns,
                       (int)(end - dot - 1), dot + 1);
      if (n > 0 && (size_t)n < sizeof base)
        op = base;
    }
  }
  const nns__jval *meta = nns__json_get(node, "metadata");
  const char *path;
  nns_status st = module_of(p, meta, &path);
  if (st != NNS_OK)
    return st;
  const nns__jval *inputs = nns__json_get(node, "inputs");
  int n_args = inputs && inputs->type == NNS__J_ARR ? (int)inputs->len : 0;
  if (n_args > 64)
    return fail(p, NNS_E_LIMIT, "%d arguments", n_args);
  nns__aten_arg *args = p->args;
  p->args_used = n_args;
  for (int k = 0; k < n_args; k++) {
    args[k].name = nns__json_str_or(nns__json_get(inputs->items[k], "name"),
                                    "");
    if ((st = read_arg(p, nns__json_get(inputs->items[k], "arg"),
                       &args[k])) != NNS_OK)
      return st;
  }
  if (!any_tensor && n_outs == 0 && !strncmp(op, "_assert", 7))
    return NNS_OK;
  st = nns__vmap_node(&p->vmap, &p->f, nodes, at, args, &n_args, 64);
  p->args_used = n_args; /* the vmap's arguments appended */
  if (st)
    return fail(p, st, "out of memory");
  st = nns__front_call(&p->f, op, p->node, path, args, n_args, out_names,
                       n_outs);
  for (int k = 0; st == NNS_OK && n_outs > 0 && out_names[0] &&
                  k < p->n_firsts;
       k++)
    p->firsts[k]->first_out = out_names[0];
  return st;
}

/* ==== Module records (the builder's packed form) ==== */

typedef struct rec {
  unsigned char b[2048];
  size_t n;
  bool full;
} rec;

static void rec_bytes(rec *r, const void *d, size_t n) {
  if (r->full || n > sizeof r->b - r->n) {
    r->full = true;
    return;
  }
  memcpy(r->b + r->n, d, n);
  r->n += n;
}
static void rec_u32(rec *r, uint32_t v) { rec_bytes(r, &v, 4); }
static void rec_i64(rec *r, int64_t v) { rec_bytes(r, &v, 8); }
static void rec_str(rec *r, const char *s) {
  size_t n = strlen(s);
  rec_u32(r, (uint32_t)n);
  rec_bytes(r, s, n + 1);
}
static void rec_begin(rec *r, int tag) {
  uint32_t ver = NNS_PACKED_VERSION;
  unsigned char t = (unsigned char)tag;
  r->n = 0;
  r->full = false;
  rec_bytes(r, "NNSP", 4);
  rec_u32(r, ver);
  rec_bytes(r, &t, 1);
}

/* Module k's first call's output, by its name in the graph, for the
 * layer's output (nns__module_decl.first_out). */
static nns_status first_call(pt2 *p, size_t k) {
  const pt2_module *pm = p->modules.vals[k];
  nns_model *m = nns__builder_model(p->b);
  nns__module_decl *d = m ? nns__module_find(m, p->modules.keys[k]) : NULL;
  if (!d)
    return NNS_OK;
  const char *name = resolve(p, pm->first_out);
  if (name && !(d->first_out = nns__intern_cstr(&m->strings, name)))
    return fail(p, NNS_E_NOMEM, "out of memory");
  return NNS_OK;
}

/* The modules (path, class) the nodes named, then the parameters and
 * buffers each registers, as the live recorder declares them: a buffer no
 * node reads (BatchNorm's num_batches_tracked) still counts. */
static nns_status declare_modules(pt2 *p) {
  rec r;
  nns_status st;
  for (size_t k = 0; k < p->modules.cap; k++) {
    if (!p->modules.keys[k])
      continue;
    const pt2_module *pm = p->modules.vals[k];
    rec_begin(&r, NNS_PACKED_MODULE);
    rec_str(&r, p->modules.keys[k]);
    rec_str(&r, pm->class_name);
    rec_i64(&r, pm->calls > 0 ? pm->calls : 1);
    if (!r.full && (st = nns_builder_add_packed(p->b, r.b, r.n, p->err)))
      return st;
    /* A module called more than once shows its first call's output, as
     * the live recorder's does (its first call's shape); a single call's
     * layer output stays the last value leaving it. */
    if (pm->calls > 1 && pm->first_out && (st = first_call(p, k)))
      return st;
  }
  for (pt2_state *t = p->states; t; t = t->next) {
    if (t->kind == NNS_PARAM_CONSTANT)
      continue;
    const char *dot = strrchr(t->fqn, '.');
    const char *path = dot ? nns__intern(&p->strings, t->fqn,
                                         (size_t)(dot - t->fqn))
                           : intern(p, "");
    if (!path || !nns__map_get(&p->modules, path))
      continue;
    int bits = nns_dtype_bits(t->meta->dtype);
    if (bits <= 0)
      continue;
    rec_begin(&r, NNS_PACKED_MODULE_TENSOR);
    rec_str(&r, path);
    rec_str(&r, t->fqn);
    rec_u32(&r, (uint32_t)bits);
    rec_u32(&r, (uint32_t)t->meta->rank);
    for (int d = 0; d < t->meta->rank; d++)
      rec_i64(&r, t->meta->dims[d]);
    rec_u32(&r, (uint32_t)t->kind);
    if (!r.full && (st = nns_builder_add_packed(p->b, r.b, r.n, p->err)))
      return st;
  }
  return NNS_OK;
}

/* ==== The archive ==== */

/* The entry "<archive>/<want>" (or "<want>"); NNS_E_NOTFOUND without a
 * message when there is none. */
static nns_status find_entry(const nns__zip *z, const char *want,
                             nns__zip_entry *found, nns_error *err) {
  const size_t wl = strlen(want);
  uint64_t cursor = 0;
  for (uint64_t k = 0; k < z->count; k++) {
    nns__zip_entry e;
    nns_status st = nns__zip_next(z, &cursor, &e, err);
    if (st != NNS_OK)
      return st;
    if (e.name_len < wl || memcmp(e.name + e.name_len - wl, want, wl))
      continue;
    size_t pre = e.name_len - wl;
    /* "models/model.json" or "<one folder>/models/model.json" */
    if (pre == 0 || (e.name[pre - 1] == '/' &&
                     !memchr(e.name, '/', pre - 1))) {
      *found = e;
      return NNS_OK;
    }
  }
  return NNS_E_NOTFOUND;
}

/* The entry "<archive>/models/model.json" (or "models/model.json"). */
static nns_status find_model(const nns__zip *z, nns__zip_entry *found,
                             nns_error *err) {
  nns_status st = find_entry(z, "models/model.json", found, err);
  if (st != NNS_E_NOTFOUND)
    return st;
  return nns__err(err, NNS_E_NOTFOUND, -1, NULL,
                  "zip archive of %llu entries holds no models/model.json: "
                  "not a torch.export archive",
                  (unsigned long long)z->count);
}

/* The weights' config ("<archive>/data/weights/model_weights_config.json":
 * each parameter's stored tensor), for tied weights: p->weights, or NULL
 * when the archive has none. Read as model.json is (a size limit, a
 * status and a message for a bad one). */
static nns_status read_weights_config(pt2 *p, const nns__zip *z,
                                      void **owned) {
  nns__zip_entry e;
  nns_status st = find_entry(z, "data/weights/model_weights_config.json",
                             &e, p->err);
  if (st == NNS_E_NOTFOUND)
    return NNS_OK;
  const uint8_t *json = NULL;
  size_t len = 0;
  if (st == NNS_OK)
    st = nns__zip_read(z, &e, NNS__PT2_MAX_JSON, &json, &len, owned,
                       p->err);
  nns__jval *doc = NULL;
  if (st == NNS_OK)
    st = nns__json_parse(&p->arena, (const char *)json, len, &doc, p->err);
  if (st != NNS_OK) {
    char msg[sizeof p->err->message];
    snprintf(msg, sizeof msg, "data/weights/model_weights_config.json: "
             "%.440s", p->err->message);
    memcpy(p->err->message, msg, sizeof msg);
    return st;
  }
  const nns__jval *cfg = nns__json_get(doc, "config");
  p->weights = cfg && cfg->type == NNS__J_OBJ ? cfg : NULL;
  return NNS_OK;
}

static nns_status check_version(pt2 *p, const nns__jval *doc) {
  const nns__jval *v = nns__json_get(doc, "schema_version");
  const nns__jval *major = nns__json_get(v, "major");
  if (!major || major->type != NNS__J_NUM || !major->is_int)
    return fail(p, NNS_E_MODEL, "no schema_version.major: not an exported "
                "program of a known schema");
  if (major->i != NNS__PT2_SCHEMA_MAJOR)
    return fail(p, NNS_E_MODEL, "schema version %lld.%lld; this reader "
                "knows version %d.x", (long long)major->i,
                (long long)nns__json_int_or(nns__json_get(v, "minor"), 0),
                NNS__PT2_SCHEMA_MAJOR);
  return NNS_OK;
}

static nns_status read_program(pt2 *p, const nns__jval *doc) {
  nns_status st = check_version(p, doc);
  if (st != NNS_OK)
    return st;
  const nns__jval *gm = nns__json_get(doc, "graph_module");
  const nns__jval *graph = nns__json_get(gm, "graph");
  const nns__jval *sig = nns__json_get(gm, "signature");
  if (!graph || graph->type != NNS__J_OBJ || !sig)
    return fail(p, NNS_E_MODEL, "no graph_module.graph or its signature");
  const char *tv = nns__json_str_or(nns__json_get(doc, "torch_version"), "");
  if ((st = nns_builder_set_producer(p->b, "pytorch", tv, p->err)) ||
      (st = nns_builder_add_opset(p->b, "", NNS__ATEN_OPSET, p->err)) ||
      (st = nns_builder_add_opset(p->b, "com.microsoft", 1, p->err)) ||
      (st = nns_builder_add_opset(p->b, "pytorch.aten", 1, p->err)) ||
      (st = read_values(p, graph)) || (st = read_inputs(p, sig)))
    return st;
  const nns__jval *nodes = nns__json_get(graph, "nodes");
  if (!nodes || nodes->type != NNS__J_ARR)
    return fail(p, NNS_E_MODEL, "graph has no nodes list");
  for (size_t k = 0; k < nodes->len; k++) {
    st = read_node(p, nodes, k);
    /* What it set, cleared again: the next node starts from 64 zeroed
     * arguments without a 5.6 KB memset of its own. */
    memset(p->args, 0, (size_t)p->args_used * sizeof *p->args);
    p->args_used = 0;
    if (st != NNS_OK)
      return st;
  }
  p->node = p->f.node = NULL;
  if ((st = read_outputs(p, sig)) != NNS_OK ||
      (st = read_unused_params(p)) != NNS_OK)
    return st;
  if ((st = add_states(p)) != NNS_OK)
    return st;
  return declare_modules(p);
}

/* The node metadata nothing here reads, the larger part of model.json
 * (a stack trace per node): checked, never copied. */
static const nns__json_skip unread[] = {
    {"metadata", "stack_trace"},
    {"metadata", "torch_fn"},
    {"metadata", "source_fn_stack"},
    {"metadata", "from_node"},
};

bool nns__pt2_sniff(const void *data, size_t size) {
  return nns__zip_sniff(data, size);
}

nns_status nns__pt2_load(const void *data, size_t size, nns_model **out,
                         nns_error *err) {
  nns_error local;
  if (!err)
    err = &local;
  memset(err, 0, sizeof *err);
  err->offset = -1;
  *out = NULL;
  nns__zip z;
  nns__zip_entry e;
  nns_status st = nns__zip_open(&z, data, size, err);
  if (st == NNS_OK)
    st = find_model(&z, &e, err);
  const uint8_t *json = NULL;
  size_t len = 0;
  void *owned = NULL;
  if (st == NNS_OK)
    st = nns__zip_read(&z, &e, NNS__PT2_MAX_JSON, &json, &len, &owned, err);
  if (st != NNS_OK)
    return st;
  void *owned_cfg = NULL;
  pt2 p;
  memset(&p, 0, sizeof p);
  p.err = err;
  nns__arena_init(&p.arena);
  nns__intern_init(&p.strings, &p.arena);
  p.sym_ints.arena = p.modules.arena = p.module_keys.arena = &p.arena;
  p.vmap.levels.arena = &p.arena;
  p.stored.arena = &p.arena;
  /* The tree takes about four times the text (the stack traces skipped):
   * asked for at once, it comes on huge pages, a fault per 2 MB rather
   * than per 4 KB. A hint; the parse goes on without it. */
  nns__arena_reserve(&p.arena, len < SIZE_MAX / 4 ? 4 * len : len);
  nns__jval *doc = NULL;
  st = nns__json_parse_skip(&p.arena, (const char *)json, len, unread,
                            sizeof unread / sizeof *unread, &doc, err);
  if (st != NNS_OK) {
    char msg[sizeof err->message];
    snprintf(msg, sizeof msg, "models/model.json: %.480s", err->message);
    memcpy(err->message, msg, sizeof msg);
  } else if ((st = read_weights_config(&p, &z, &owned_cfg)) == NNS_OK &&
             (st = nns_builder_new(&p.b, err)) == NNS_OK) {
    nns__front_init(&p.f, &p.arena, &p.strings, p.b, err,
                    "models/model.json");
    st = read_program(&p, doc);
    if (st == NNS_OK)
      st = nns_builder_finish(p.b, out, err);
    /* The sizes the archive declares are those PyTorch computed: an op
     * nothing here counts still passes them on (as a live recording's
     * declared sizes do, inferred with NNS_INFER_FALLBACK_DECLARED). */
    if (st == NNS_OK)
      (*out)->load_infer_flags = NNS_INFER_FALLBACK_DECLARED;
    nns_builder_free(p.b);
  }
  nns__intern_free(&p.strings);
  nns__arena_free(&p.arena);
  free(owned);
  free(owned_cfg);
  return st;
}
