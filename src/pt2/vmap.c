/*
 * vmap.c - torch.vmap's trace in a torch.export archive (vmap.h).
 *
 * Between _add_batch_dim(x, in_dim, level) and _remove_batch_dim(y, level,
 * batch_size, out_dim) an archive sizes every value per example (its
 * "logical" sizes); vmap runs the ops on the whole batch. The region is
 * lowered on the batch: each level's batch dim a leading axis, the deepest
 * level last, the example's dims after them, so that element-wise ops
 * broadcast over the levels as vmap's batching rules do (transformers'
 * mask functions over batch, head, query and key; Mamba's scan). A rule
 * that reads the archive's per-example sizes to build a shape would be
 * wrong on the batch, so a region is lowered only when all of its nodes
 * are element-wise ops, casts, views or one-element constants; any other
 * region is left as it was (its vmap calls uncounted, the totals partial).
 */
#include "vmap.h"

#include <string.h>

#include "../ops/aten.h"

static const char PRE[] = "torch._functorch.predispatch.";
static const char ATEN[] = "torch.ops.aten.";

static const char *target_of(const nns__jval *node) {
  return nns__json_str_or(nns__json_get(node, "target"), "");
}

static bool is_call(const char *target, const char *name) {
  return !strncmp(target, PRE, sizeof PRE - 1) &&
         !strcmp(target + sizeof PRE - 1, name);
}

/* The node's i-th input argument ({"name", "arg"}), or NULL. */
static const nns__jval *input(const nns__jval *node, size_t i) {
  const nns__jval *in = nns__json_get(node, "inputs");
  if (!in || in->type != NNS__J_ARR || i >= in->len)
    return NULL;
  return nns__json_get(in->items[i], "arg");
}

static const char *tensor_of(const nns__jval *arg) {
  const nns__jval *t = nns__json_get(arg, "as_tensor");
  return t ? nns__json_str_or(nns__json_get(t, "name"), NULL) : NULL;
}

static int64_t int_of(const nns__jval *arg, int64_t none) {
  const nns__jval *i = nns__json_get(arg, "as_int");
  return i && i->type == NNS__J_NUM && i->is_int ? i->i : none;
}

/* Calls fn(ctx, name) for each tensor name of a node's inputs or outputs
 * (a list of {"as_tensor"} / {"as_tensors"} / {"name", "arg"} items). */
static void each_tensor(const nns__jval *list, bool args,
                        void (*fn)(void *, const char *), void *ctx) {
  for (size_t i = 0; list && list->type == NNS__J_ARR && i < list->len; i++) {
    const nns__jval *a = args ? nns__json_get(list->items[i], "arg")
                              : list->items[i];
    const char *one = tensor_of(a);
    if (one) {
      fn(ctx, one);
      continue;
    }
    const nns__jval *ts = nns__json_get(a, "as_tensors");
    if (!ts)
      ts = nns__json_get(a, "as_optional_tensors");
    for (size_t j = 0; ts && ts->type == NNS__J_ARR && j < ts->len; j++) {
      const nns__jval *t = nns__json_get(ts->items[j], "as_tensor");
      const char *n = nns__json_str_or(
          nns__json_get(t ? t : ts->items[j], "name"), NULL);
      if (n)
        fn(ctx, n);
    }
  }
}

static void append(nns__aten_arg *args, int *n_args, int cap,
                   nns__aten_arg a) {
  if (*n_args < cap)
    args[(*n_args)++] = a;
}

/* ---- The state of a value in a region ----
 * Bits 0..29: the levels a value is batched at that are still entered
 * (its leading axes, on the batch); SHORT: its physical sizes are smaller
 * than the archive's (it left a level of batch size > 1 it was not
 * batched at: vmap's result is that level's expand, a broadcast here).
 * A value with neither is exactly the archive's sizes: any op may read
 * it. A value with no state is outside every region. */
enum { MAX_LEVEL = 30, SHORT = 1 << 30 };

typedef struct state {
  nns__vmap *v;
  nns__front *f;
  nns__map *map;    /* value -> state */
  uint32_t in;      /* the inputs' states, or-ed */
  bool out_of_memory;
} state;

static uint32_t state_of(state *s, const char *name) {
  const char *key = name ? nns__intern_find(s->f->strings, name) : NULL;
  return key ? (uint32_t)(uintptr_t)nns__map_get(s->map, key) : 0;
}

static void or_input(void *ctx, const char *name) {
  state *s = ctx;
  s->in |= state_of(s, name);
}

typedef struct out_ctx {
  state *s;
  uint32_t st;
  bool outputs, one_element;
} out_ctx;

static void see_output(void *ctx, const char *name) {
  out_ctx *o = ctx;
  o->outputs = true;
  const nns__front_value *v = nns__front_value_of(o->s->f, name);
  int64_t n = v && v->meta.rank >= 0 ? 1 : -1;
  for (int d = 0; v && d < v->meta.rank && n >= 0; d++)
    n = v->meta.dims[d] < 0 ? -1 : n * v->meta.dims[d];
  o->one_element = o->one_element && n == 1;
}

static void set_output(void *ctx, const char *name) {
  out_ctx *o = ctx;
  const char *key = nns__front_intern(o->s->f, name);
  if (!key || !nns__map_put(o->s->map, key, (void *)(uintptr_t)o->st))
    o->s->out_of_memory = true;
}

/* An element-wise entry of the table (unary, binary), a view, a cast, or
 * (one_element) a constant of one element: exact on batched values. */
static bool elementwise(const char *t, bool one_element) {
  static const char *const casts[] = {"to", "_to_copy", "type_as", "where",
                                      "masked_fill", "clone"};
  if (strncmp(t, ATEN, sizeof ATEN - 1))
    return false;
  char base[96];
  const char *b = t + sizeof ATEN - 1, *dot = strchr(b, '.');
  size_t n = dot ? (size_t)(dot - b) : strlen(b);
  if (n >= sizeof base)
    return false;
  memcpy(base, b, n);
  base[n] = 0;
  const nns__aten_op *e = nns__aten_find(base);
  if (!e)
    return false;
  if (e->form == NNS__AF_UNARY || e->form == NNS__AF_BINARY ||
      e->form == NNS__AF_ALIAS)
    return true;
  if (e->form == NNS__AF_CREATE)
    return one_element;
  for (size_t i = 0; i < sizeof casts / sizeof *casts; i++)
    if (!strcmp(base, casts[i]))
      return true;
  return false;
}

/* One node of a region: its outputs' states; false when the region cannot
 * be lowered on the batch at this node. With args, appends what the vmap
 * entries read. `nesting`: the levels entered at the node. */
static bool step(state *s, const nns__jval *node, int nesting, int depth,
                 nns__aten_arg *args, int *n_args, int cap) {
  const char *t = target_of(node);
  s->in = 0;
  each_tensor(nns__json_get(node, "inputs"), true, or_input, s);
  out_ctx o = {.s = s, .one_element = true};
  each_tensor(nns__json_get(node, "outputs"), false, see_output, &o);
  if (is_call(t, "_add_batch_dim")) {
    int64_t level = int_of(input(node, 2), -1);
    if (s->in || level < 1 || level > depth || level > MAX_LEVEL)
      return false; /* a batched value batched again: not here */
    if (args)
      append(args, n_args, cap,
             (nns__aten_arg){.name = "depth", .kind = NNS__AA_INT,
                             .i = depth});
    o.st = 1u << (level - 1);
  } else if (is_call(t, "_remove_batch_dim")) {
    int64_t level = int_of(input(node, 1), -1),
            size = int_of(input(node, 2), -1), /* -1: a symbol */
            out_dim = int_of(input(node, 3), -1);
    if (level != nesting || out_dim != 0)
      return false; /* not the innermost level, or moved elsewhere */
    uint32_t bit = 1u << (level - 1), all = (1u << depth) - 1;
    bool final = nesting == 1;
    if (args) {
      append(args, n_args, cap,
             (nns__aten_arg){.name = "final", .kind = NNS__AA_BOOL,
                             .b = final});
      append(args, n_args, cap,
             (nns__aten_arg){.name = "full", .kind = NNS__AA_BOOL,
                             .b = (s->in & (all | SHORT)) == all});
    }
    o.st = final ? 0 : (s->in & ~bit) |
                           (!(s->in & bit) && size != 1 ? SHORT : 0);
  } else if (!strncmp(t, PRE, sizeof PRE - 1) || !o.outputs) {
    return true; /* vmap's bookkeeping, asserts: nothing made */
  } else if (elementwise(t, o.one_element)) {
    o.st = s->in;
  } else if (s->in) {
    return false; /* an op that reads sizes, on a batched value */
  }
  if (o.st || !args)
    each_tensor(nns__json_get(node, "outputs"), false, set_output, &o);
  return !s->out_of_memory;
}

/* The deepest level of the region opened at nodes[k], or 0 when it is
 * not lowered: its nodes run through step() on a map of their own. */
static int region_depth(nns__front *f, const nns__jval *nodes, size_t k) {
  int nest = 0, depth = 0;
  for (size_t j = k; j < nodes->len && depth >= 0; j++) {
    const nns__jval *node = nodes->items[j];
    const char *t = target_of(node);
    if (is_call(t, "_vmap_increment_nesting") && ++nest > MAX_LEVEL)
      return 0;
    if (is_call(t, "_vmap_decrement_nesting") && --nest == 0)
      break;
    int64_t level = is_call(t, "_add_batch_dim")
                        ? int_of(input(node, 2), -1) : 0;
    if (level > depth)
      depth = level <= MAX_LEVEL ? (int)level : -1;
  }
  if (nest != 0 || depth <= 0)
    return 0;
  nns__map scratch = {0};
  state s = {.f = f, .map = &scratch};
  nest = 0;
  bool ok = true;
  for (size_t j = k; ok && j < nodes->len; j++) {
    const nns__jval *node = nodes->items[j];
    const char *t = target_of(node);
    if (is_call(t, "_vmap_increment_nesting")) {
      nest++;
    } else if (is_call(t, "_vmap_decrement_nesting")) {
      if (--nest == 0)
        break;
    } else {
      ok = step(&s, node, nest, depth, NULL, NULL, 0);
    }
  }
  nns__map_free(&scratch);
  return ok ? depth : 0;
}

nns_status nns__vmap_node(nns__vmap *v, nns__front *f,
                          const nns__jval *nodes, size_t k,
                          nns__aten_arg *args, int *n_args, int cap) {
  const nns__jval *node = nodes->items[k];
  const char *t = target_of(node);
  if (is_call(t, "_vmap_increment_nesting")) {
    if (v->nesting++ == 0)
      v->depth = region_depth(f, nodes, k);
    return NNS_OK;
  }
  if (is_call(t, "_vmap_decrement_nesting")) {
    if (v->nesting > 0)
      v->nesting--;
    return NNS_OK;
  }
  if (v->nesting == 0 || v->depth <= 0)
    return NNS_OK; /* outside any region, or a region left unlowered */
  state s = {.v = v, .f = f, .map = &v->levels};
  step(&s, node, v->nesting, v->depth, args, n_args, cap);
  return s.out_of_memory ? NNS_E_NOMEM : NNS_OK;
}
