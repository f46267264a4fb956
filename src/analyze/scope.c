/*
 * scope.c - the module tree, rebuilt from node names.
 *
 * Exporters name a node after the module path that produced it:
 *
 *   PyTorch (torch.onnx, 1.13+)  /layer1/layer1.0/conv1/Conv
 *   HF optimum                   /model/layers.0/self_attn/q_proj/MatMul
 *   tf2onnx                      model/block1/conv/Conv2D
 *
 * The last component is the op; the others are scopes. PyTorch writes each
 * scope as the module's name from its last non-numeric atom on
 * (`layer1.0`, `downsample.0`, `block.0.0`), so a segment that repeats the
 * tail of the path so far only adds its new atoms: /layer2/layer2.0/
 * downsample/downsample.0 is module layer2.0.downsample.0. The tree has one
 * layer per dotted atom (`model.layers` is a layer even though a ModuleList
 * never runs), so a layer's depth is PyTorch's module depth. A module
 * called twice gets `relu_1` for its second call; in PyTorch exports that
 * folds back into `relu` when the parent already has a `relu` (unless the
 * model's metadata declares `relu_1` a module). Nodes without a scope
 * (`Identity_0`, `Conv_12`) hang from the root.
 *
 * The exporter behind torch.onnx.export in current PyTorch (torch.export)
 * names nodes flatly (node_Conv_0) and keeps the module path, and the
 * class of each module, in each node's metadata (meta.c decodes it). That
 * path wins over the node's name; an entry that does not extend the
 * previous path is taken as relative to it.
 *
 * A node with neither (no name, or a name without a path: paddle2onnx,
 * onnx optimizers, old exporters) that does run-time work is a layer of
 * its own under the root, named by its name, else by the weight it reads
 * without the last component (conv2d_12.w_0 gives conv2d_12; a dotted
 * prefix such as layer1.0.conv1 is a path), else OpType_N (N counting the
 * nodes of that op type named so, in node order). Nodes that read weights
 * with the same prefix share the layer. Nodes that do no work (views,
 * Constant, folded shape arithmetic) hang from the root.
 *
 * Module class names come from the model's metadata ("nnscan.module_types",
 * decoded by meta.c into a->meta before this pass) and from the nodes'
 * class hierarchies. A layer's `type` is the class's last dotted component
 * (BasicBlock); nns_analysis_layer_class gives it in full. The caller's
 * classes (nns_model_set_module, which the Python binding calls through
 * the builder's module records) win over both. A node made by the builder
 * with an explicit module path (nns__node.scope) takes that path as given.
 * This file only builds the tree: it reads decoded metadata, never a
 * metadata key or its text format.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../base/vec.h"
#include "analyze.h"

/* Longest op summary ("Conv+BatchNormalization+Relu") before "+...". */
#define SUMMARY_MAX 40

/* ==== The tree under construction ==== */

typedef struct blayer {
  const char *name;      /* atom(s) added to the parent's path, interned */
  const char *path;      /* dotted path, interned */
  uint32_t parent;
  uint32_t first_child, last_child, next_sibling; /* UINT32_MAX: none */
  int depth;
} blayer;

typedef struct builder {
  nns_model *m;
  NNS__VEC(blayer) layers; /* the tree, in the order layers are made */
  /* (interned atom, parent) -> child. The key is the pair itself rather
   * than an interned "parent-id/atom" string: a graph without module
   * paths makes one layer per node, and formatting and interning a key
   * for each lookup was a tenth of a 100k-node summary and a third of its
   * interned strings. */
  nns__map2 kids;
  nns__map by_scope; /* interned scope string -> (void *)(index + 1) */
  /* The last scope looked up and its layer: a module's nodes come one
   * after another, and each took an interning and a lookup. */
  const char *last_scope;
  size_t last_len;
  uint32_t last_layer;
  nns__map types;    /* interned path -> interned class name: the model's
                        metadata, the nodes' class hierarchies, the
                        caller's */
  bool pytorch;      /* producer is PyTorch: fold `x_N` into `x` */
  bool tensorflow;   /* producer is tf2onnx/keras2onnx: dots are no paths */
  nns__map op_names; /* interned op type -> OpType_N names given + 1 */
  NNS__VEC(char) buf; /* scratch for paths */
  size_t path_bytes; /* bytes of all layer paths so far (a budget) */
  bool truncated;    /* a limit below stopped the tree growing */
} builder;

/* Limits that keep hostile names (thousands of segments, megabyte atoms)
 * linear: deeper scopes, longer paths or more path bytes than this hang
 * from the deepest layer reached, with one warning. Real module trees are
 * a few dozen levels and a few hundred bytes deep. */
enum { MAX_DEPTH = 64, MAX_PATH = 4096, MAX_ATOMS = 64 };
#define MAX_PATH_BYTES ((size_t)64 << 20)

#define NONE UINT32_MAX

static bool reserve(builder *b, size_t need) {
  return nns__vec_reserve(&b->buf, need);
}

static uint32_t add_layer(builder *b, uint32_t parent, const char *name,
                          const char *path) {
  blayer l = {.name = name,
              .path = path,
              .parent = parent,
              .first_child = NONE,
              .last_child = NONE,
              .next_sibling = NONE,
              .depth = parent == NONE ? 0 : b->layers.v[parent].depth + 1};
  if (!nns__vec_push(&b->layers, l))
    return NONE;
  blayer *v = b->layers.v;
  uint32_t id = (uint32_t)(b->layers.n - 1);
  if (parent != NONE) {
    if (v[parent].last_child == NONE)
      v[parent].first_child = id;
    else
      v[v[parent].last_child].next_sibling = id;
    v[parent].last_child = id;
  }
  return id;
}

/* The child of `parent` named `name` (interned), or NONE. */
static uint32_t find_child(builder *b, uint32_t parent, const char *name) {
  uint32_t id;
  return nns__map2_get(&b->kids, (uintptr_t)name, parent, &id) ? id : NONE;
}

/* `relu_1` -> length of `relu`, or 0 when the atom has no _N suffix. */
static size_t call_suffix(const char *atom, size_t len) {
  size_t i = len;
  while (i > 0 && atom[i - 1] >= '0' && atom[i - 1] <= '9')
    i--;
  if (i == len || i < 2 || atom[i - 1] != '_')
    return 0;
  return i - 1;
}

/* The child `name` (interned; `len` bytes) of layer `parent`, created on
 * first sight; `parent` itself when a limit is reached; NONE when out of
 * memory. */
static uint32_t child_named(builder *b, uint32_t parent, const char *name,
                            size_t len) {
  uint32_t id = find_child(b, parent, name);
  if (id != NONE)
    return id;
  const char *pp = b->layers.v[parent].path;
  size_t pl = strlen(pp), full = pl + (pl > 0) + len;
  if (b->layers.v[parent].depth + 1 > MAX_DEPTH || full > MAX_PATH ||
      b->path_bytes + full > MAX_PATH_BYTES) {
    b->truncated = true;
    return parent;
  }
  /* A child of the root is its own path (a graph without module paths
   * makes one per node); others join the parent's path and the atom. */
  const char *path = name;
  if (pl) {
    if (!reserve(b, full + 16))
      return NONE;
    memcpy(b->buf.v, pp, pl);
    b->buf.v[pl] = '.';
    memcpy(b->buf.v + pl + 1, name, len);
    if (!(path = nns__intern(&b->m->strings, b->buf.v, full)))
      return NONE;
  }
  size_t base = b->pytorch ? call_suffix(name, len) : 0;
  if (base && !nns__map_get(&b->types, path)) {
    /* A second call of a module the parent already has. */
    const char *first = nns__intern(&b->m->strings, name, base);
    if (!first)
      return NONE;
    if ((id = find_child(b, parent, first)) != NONE)
      return id;
  }
  id = add_layer(b, parent, name, path);
  if (id == NONE || nns__map2_add(&b->kids, (uintptr_t)name, parent, id) < 0)
    return NONE;
  b->path_bytes += full;
  return id;
}

/* As child_named, for an atom not yet interned. */
static uint32_t child(builder *b, uint32_t parent, const char *atom,
                      size_t len) {
  const char *name = nns__intern(&b->m->strings, atom, len);
  return name ? child_named(b, parent, name, len) : NONE;
}

static bool is_numeric(const char *s, size_t n) {
  if (!n)
    return false;
  for (size_t i = 0; i < n; i++)
    if (s[i] < '0' || s[i] > '9')
      return false;
  return true;
}

typedef struct atom {
  const char *s;
  size_t n;
} atom;

/* Splits s[0..len) at '.' into at most max non-empty atoms. */
/* Splits s[0..len) at '.' into at most max non-empty atoms. */
static size_t split_atoms(const char *s, size_t len, atom *out, size_t max) {
  size_t n = 0, start = 0;
  for (size_t i = 0; i <= len; i++) {
    if (i < len && s[i] != '.')
      continue;
    if (i > start && n < max)
      out[n++] = (atom){s + start, i - start};
    start = i + 1;
  }
  return n;
}

/* A name segment that is one layer, dots included. Keras names a layer
 * that wraps a TensorFlow function after it (`tf.math.maximum_3`,
 * `tf.__operators__.add`), and its other layer names hold no dots: in a
 * TensorFlow export (tf2onnx, keras2onnx) a dot never separates modules,
 * and outside PyTorch exports a segment starting `tf.` is such a layer. */
static bool keep_dots(const builder *b, const char *seg, size_t len) {
  return b->tensorflow ||
         (!b->pytorch && len > 3 && memcmp(seg, "tf.", 3) == 0);
}

/* The layer for a node's scope string (its name without the op part). */
static uint32_t scope_layer(builder *b, const char *scope, size_t len) {
  uint32_t cur = 0;
  size_t start = 0;
  for (size_t i = 0; i <= len && cur != NONE; i++) {
    if (i < len && scope[i] != '/')
      continue;
    const char *seg = scope + start;
    size_t seg_len = i - start;
    start = i + 1;
    atom sa[MAX_ATOMS];
    size_t ns = keep_dots(b, seg, seg_len)
                    ? (seg_len ? (sa[0] = (atom){seg, seg_len}, 1) : 0)
                    : split_atoms(seg, seg_len, sa, MAX_ATOMS);
    if (!ns)
      continue;
    /* The tail of the path so far, from its last non-numeric atom on
     * (one layer per atom), in order: tail[0] is that atom. */
    uint32_t tail[MAX_ATOMS];
    size_t nt = 0;
    for (uint32_t l = cur; l != 0 && nt < MAX_ATOMS;
         l = b->layers.v[l].parent) {
      tail[nt++] = l;
      if (!is_numeric(b->layers.v[l].name, strlen(b->layers.v[l].name)))
        break;
    }
    size_t skip = 0;
    if (nt && ns > nt) {
      bool same = true;
      for (size_t t = 0; t < nt && same; t++) {
        const char *nm = b->layers.v[tail[nt - 1 - t]].name;
        same = strlen(nm) == sa[t].n && memcmp(nm, sa[t].s, sa[t].n) == 0;
      }
      if (same)
        skip = nt;
    }
    for (size_t t = skip; t < ns && cur != NONE; t++)
      cur = child(b, cur, sa[t].s, sa[t].n);
  }
  return cur;
}

static uint32_t path_layer(builder *b, const char *path);
static uint32_t meta_layer(builder *b, const nns__node *n, bool *found);
static uint32_t flat_layer(builder *b, const nns__node *n);

static uint32_t node_layer(builder *b, const nns__node *n) {
  if (n->scope)
    return path_layer(b, n->scope);
  bool found = false;
  uint32_t meta = meta_layer(b, n, &found);
  if (found)
    return meta;
  const char *name = n->name;
  const char *slash = strrchr(name, '/');
  if (!slash)
    return flat_layer(b, n);
  size_t len = (size_t)(slash - name);
  if (b->last_scope && len == b->last_len &&
      memcmp(name, b->last_scope, len) == 0)
    return b->last_layer;
  const char *scope = nns__intern(&b->m->strings, name, len);
  if (!scope)
    return NONE;
  void *hit = nns__map_get(&b->by_scope, scope);
  uint32_t l = hit ? (uint32_t)((uintptr_t)hit - 1) : scope_layer(b, name, len);
  if (!hit && l != NONE &&
      !nns__map_put(&b->by_scope, scope, (void *)(uintptr_t)(l + 1)))
    return NONE;
  if (l != NONE) {
    b->last_scope = scope;
    b->last_len = len;
    b->last_layer = l;
  }
  return l;
}

/* ==== Module paths from node metadata (torch.export) ==== */

/* The layer of dotted `path` from the root, one layer per atom, without
 * PyTorch's `_N` folding (these are real module paths). */
static uint32_t path_layer(builder *b, const char *path) {
  bool pytorch = b->pytorch;
  b->pytorch = false;
  atom at[MAX_ATOMS];
  size_t na = split_atoms(path, strlen(path), at, MAX_ATOMS);
  uint32_t cur = 0;
  for (size_t k = 0; k < na && cur != NONE; k++)
    cur = child(b, cur, at[k].s, at[k].n);
  b->pytorch = pytorch;
  return cur;
}

/* The layer from a node's module path in its metadata (*found set),
 * recording the classes of its modules; NONE when out of memory. */
static uint32_t meta_layer(builder *b, const nns__node *n, bool *found) {
  nns__node_scopes sc;
  int got = nns__meta_node_scopes(b->m, n, &sc);
  if (got <= 0)
    return got < 0 ? NONE : 0;
  const char *const *sv = sc.paths, *const *cv = sc.classes;
  int ns = sc.n_paths, nc = sc.n_classes;
  *found = true;
  /* The last entry is the op itself. */
  const char *path = nns__intern_cstr(&b->m->strings, "");
  uint32_t layer = 0;
  for (int i = 0; i + 1 < ns && path; i++) {
    const char *e = sv[i];
    size_t pl = strlen(path), el = strlen(e);
    if (pl + el + 1 > MAX_PATH) { /* hostile: keep the deepest layer */
      b->truncated = true;
      break;
    }
    bool extends = (el > pl && strncmp(e, path, pl) == 0 && e[pl] == '.') ||
                   strcmp(e, path) == 0;
    if (pl && !extends) {
      /* Relative to the path so far. */
      if (!reserve(b, pl + el + 2))
        return NONE;
      memcpy(b->buf.v, path, pl);
      b->buf.v[pl] = '.';
      memcpy(b->buf.v + pl + 1, e, el);
      e = nns__intern(&b->m->strings, b->buf.v, pl + el + (el ? 1 : 0));
    }
    if (!e)
      return NONE;
    path = e;
    layer = path_layer(b, path);
    if (layer == NONE)
      return NONE;
    const char *lpath = b->layers.v[layer].path;
    if (i < nc && cv[i][0] && !nns__map_get(&b->types, lpath) &&
        !nns__map_put(&b->types, lpath, (void *)cv[i]))
      return NONE;
  }
  return path ? layer : NONE;
}

/* ==== Nodes without a module path ==== */

/* True when n does run-time work: an op that is not a view (or one nnscan
 * does not know) whose outputs are not all folded. */
static bool does_work(const nns__node *n) {
  if (n->op && n->op->view)
    return false;
  for (int32_t k = 0; k < n->n_out; k++)
    if (n->out[k] && !n->out[k]->cval)
      return true;
  return n->n_out == 0;
}

/* The first floating-point stored tensor (initializer or Constant output)
 * n reads, or NULL. */
static const nns__value *weight_read(const nns__node *n) {
  for (int32_t k = 0; k < n->n_in; k++) {
    const nns__value *v = n->in[k];
    bool stored = v && (v->init || (v->producer && v->producer->op &&
                                     v->producer->op->holds_data));
    if (stored && nns__dtype_is_float(v->type.dtype))
      return v;
  }
  return NULL;
}

/* The root's child `name` (one atom), without PyTorch's `_N` folding:
 * Relu_1 is a node of its own, not a second call of a module Relu. */
static uint32_t root_child(builder *b, const char *name, size_t len,
                           bool interned) {
  bool pytorch = b->pytorch;
  b->pytorch = false;
  uint32_t l = interned ? child_named(b, 0, name, len)
                        : child(b, 0, name, len);
  b->pytorch = pytorch;
  return l;
}

static uint32_t flat_layer(builder *b, const nns__node *n) {
  if (!does_work(n))
    return 0;
  if (n->name[0]) /* one atom, even with dots; node names are interned */
    return root_child(b, n->name, strlen(n->name), true);
  const nns__value *w = weight_read(n);
  if (w) {
    /* conv2d_12.w_0 -> conv2d_12; a prefix with dots is a path. */
    const char *dot = strrchr(w->name, '.');
    size_t len = dot && dot != w->name ? (size_t)(dot - w->name)
                                       : strlen(w->name);
    const char *prefix = nns__intern(&b->m->strings, w->name, len);
    return prefix ? path_layer(b, prefix) : NONE;
  }
  uintptr_t k = (uintptr_t)nns__map_get(&b->op_names, n->op_type);
  if (!nns__map_put(&b->op_names, n->op_type, (void *)(k + 1)))
    return NONE;
  char name[160];
  int len = snprintf(name, sizeof name, "%.120s_%u", n->op_type,
                     (unsigned)k);
  return root_child(b, name, (size_t)len, false);
}

/* ==== Module class names ==== */

/* The model's module classes, as its metadata states them (a->meta). */
static bool model_module_types(builder *b, const nns__analysis *a) {
  const nns__map *t = &a->meta.module_types;
  for (size_t i = 0; i < t->cap; i++)
    if (t->keys[i] && !nns__map_put(&b->types, t->keys[i], t->vals[i]))
      return false;
  return true;
}

/* The caller's module classes (nns_model_set_module), over the model's. */
static bool caller_module_types(builder *b) {
  nns_model *m = b->m;
  for (size_t i = 0; i < m->modules.cap; i++) {
    const nns__module_decl *d = m->modules.vals[i];
    if (m->modules.keys[i] && d && d->class_name &&
        !nns__map_put(&b->types, m->modules.keys[i], (void *)d->class_name))
      return false;
  }
  return true;
}

/* ==== Build ==== */

static void builder_free(builder *b) {
  nns__vec_free(&b->layers);
  nns__vec_free(&b->buf);
  nns__map2_free(&b->kids);
  nns__map_free(&b->by_scope);
  nns__map_free(&b->op_names);
}

nns_status nns__scope_build(nns_model *m, nns__analysis *a, nns_error *err) {
  builder b;
  memset(&b, 0, sizeof b);
  b.m = m;
  b.types.arena = &a->arena;
  b.pytorch = m->producer_name && strcmp(m->producer_name, "pytorch") == 0;
  b.tensorflow = m->producer_name &&
                 (strcmp(m->producer_name, "tf2onnx") == 0 ||
                  strcmp(m->producer_name, "keras2onnx") == 0);
  nns_status st = NNS_OK;
  const nns__graph *g = m->graph;
  uint32_t *raw = malloc(((size_t)g->n_nodes + 1) * sizeof *raw);
  const char *root_path = nns__intern_cstr(&m->strings, "");
  /* At most a layer per node and the root: reserved at once, the vector
   * never grows by copying (its untouched tail costs no page). The child
   * index starts at half that: a graph without module paths (a layer per
   * node that works) grows it once at most, instead of rehashing through
   * a dozen doublings into fresh pages. */
  if (!raw || !root_path ||
      !nns__vec_reserve(&b.layers, (size_t)g->n_nodes + 1) ||
      !nns__map2_reserve(&b.kids, (size_t)g->n_nodes / 2) ||
      add_layer(&b, NONE, root_path, root_path) != 0)
    goto nomem;
  if (!model_module_types(&b, a))
    goto nomem;
  for (int32_t i = 0; i < g->n_nodes; i++) {
    raw[i] = node_layer(&b, &g->nodes[i]);
    if (raw[i] == NONE)
      goto nomem;
  }
  if (!caller_module_types(&b))
    goto nomem;
  if (b.truncated)
    nns__warn(m, "module tree: node names nest deeper than %d scopes or "
              "longer than %d bytes; those nodes hang from the deepest "
              "layer kept", MAX_DEPTH, MAX_PATH);
  /* Preorder, children in first-seen order. */
  a->n_layers = b.layers.n;
  a->layers = nns__arena_array(&a->arena, b.layers.n, sizeof *a->layers);
  uint32_t *pre = malloc(b.layers.n * sizeof *pre); /* build -> preorder */
  uint32_t *stack = malloc(b.layers.n * sizeof *stack);
  if (!a->layers || !pre || !stack) {
    free(pre);
    free(stack);
    goto nomem;
  }
  size_t top = 0, next = 0;
  stack[top++] = 0;
  while (top) {
    uint32_t id = stack[--top];
    pre[id] = (uint32_t)next++;
    /* Push children in reverse so the first child is visited first. */
    size_t mark = top;
    for (uint32_t c = b.layers.v[id].first_child; c != NONE;
         c = b.layers.v[c].next_sibling)
      stack[top++] = c;
    for (size_t lo = mark, hi = top; hi > lo + 1; lo++, hi--) {
      uint32_t t = stack[lo];
      stack[lo] = stack[hi - 1];
      stack[hi - 1] = t;
    }
  }
  for (size_t id = 0; id < b.layers.n; id++) {
    nns__alayer *l = &a->layers[pre[id]];
    const blayer *s = &b.layers.v[id];
    l->info.name = s->name;
    l->info.path = s->path;
    l->depth = s->depth;
    l->info.parent = s->parent == NONE ? NNS__NONE32 : pre[s->parent];
    l->info.input_value = NNS__NONE32;
    l->info.output_value = NNS__NONE32;
    /* The class as the model (or the caller) states it; the Type column
     * shows its last dotted component. */
    l->module_class = (const char *)nns__map_get(&b.types, s->path);
    if (l->module_class) {
      const char *dot = strrchr(l->module_class, '.');
      l->info.type = dot && dot[1] ? dot + 1 : l->module_class;
    }
    const nns__module_decl *decl = nns__map_get(&m->modules, s->path);
    l->info.call_count = decl ? decl->call_count : 0;
    l->info.not_called = decl && decl->call_count == 0;
    for (uint32_t c = s->first_child; c != NONE; c = b.layers.v[c].next_sibling)
      l->info.child_count++;
  }
  /* Subtree ends: a layer's subtree is [l, end). */
  for (size_t l = a->n_layers; l-- > 0;) {
    if (a->layers[l].end < l + 1)
      a->layers[l].end = (uint32_t)(l + 1);
    if (l > 0) {
      nns__alayer *p = &a->layers[nns__layer_up(a, l)];
      if (p->end < a->layers[l].end)
        p->end = a->layers[l].end;
    }
  }
  for (int32_t i = 0; i < g->n_nodes; i++) {
    a->nodes[i].layer = pre[raw[i]];
    a->layers[pre[raw[i]]].n_nodes_own++;
  }
  free(pre);
  free(stack);
  goto done;
nomem:
  st = nns__err(err, NNS_E_NOMEM, -1, NULL, "out of memory");
done:
  free(raw);
  builder_free(&b);
  return st;
}

/* ==== Finish: types, op lists, inputs and outputs ==== */

/* A layer's op types, as rows of a->optypes (the first row of each op
 * type name). Most layers have one (every layer of a graph without module
 * paths), so the first lives in the list itself and only a second one
 * mallocs: a malloc and a free per layer were a tenth of scope_finish on
 * a 100k-node graph. */
typedef struct type_list {
  uint32_t *v; /* &one, or malloc'ed */
  uint32_t n, cap;
  uint32_t one;
} type_list;

/* Up to this many types a list is searched in place; a longer one also
 * keeps its (layer, type) pairs in an nns__set64, O(1) however many types
 * a model has. A set of every layer's pairs was 10 MB of fresh pages on a
 * 100k-node graph, where most lists hold one or two types. */
enum { LIST_SCAN = 16 };

static int pair_add(nns__set64 *seen, uint32_t layer, uint32_t type) {
  return nns__set64_add(seen, (uint64_t)layer << 32 | type);
}

static bool list_push(type_list *t, uint32_t type) {
  if (t->cap == 0) {
    t->v = &t->one;
    t->cap = 1;
  } else if (t->n == t->cap) {
    /* Off the inline slot: a malloc'ed list of 4, then doubling. */
    bool inline_one = t->v == &t->one;
    size_t cap = inline_one ? 0 : t->cap;
    uint32_t *v = nns__grow(inline_one ? NULL : t->v, &cap, (size_t)t->n + 1,
                            sizeof *v, 4);
    if (!v || cap > UINT32_MAX)
      return false;
    if (inline_one)
      v[0] = t->one;
    t->v = v;
    t->cap = (uint32_t)cap;
  }
  t->v[t->n++] = type;
  return true;
}

/* Adds `type` to layer l's list t unless it is there: 1 added, 0 already
 * listed, -1 out of memory. */
static int list_add(type_list *t, nns__set64 *seen, uint32_t l,
                    uint32_t type) {
  if (t->n < LIST_SCAN) {
    for (uint32_t i = 0; i < t->n; i++)
      if (t->v[i] == type)
        return 0;
    if (!list_push(t, type))
      return -1;
    /* Long enough for the set: every type so far goes in. */
    for (uint32_t i = 0; t->n == LIST_SCAN && i < t->n; i++)
      if (pair_add(seen, l, t->v[i]) < 0)
        return -1;
    return 1;
  }
  int added = pair_add(seen, l, type);
  if (added > 0 && !list_push(t, type))
    return -1;
  return added;
}

static void list_free(type_list *t) {
  if (t->v != &t->one)
    free(t->v);
}

/* Joins a list with `sep`, stopping (with "+...") past `max` characters
 * when max > 0. */
static const char *join(nns__analysis *a, const type_list *t, const char *sep,
                        size_t max) {
  const nns__optype_row *row = a->optypes;
  /* Nothing to join: the list's one string (no copy per layer). */
  if (t->n == 0)
    return "";
  if (t->n == 1)
    return row[t->v[0]].op_type;
  size_t len = 1;
  for (uint32_t i = 0; i < t->n; i++)
    len += strlen(row[t->v[i]].op_type) + strlen(sep);
  char *s = nns__arena_alloc(&a->arena, len + 8);
  if (!s)
    return "";
  size_t k = 0;
  for (uint32_t i = 0; i < t->n; i++) {
    const char *name = row[t->v[i]].op_type;
    size_t n = strlen(name);
    if (max && i > 0 && k + strlen(sep) + n > max) {
      memcpy(s + k, "+...", 4);
      k += 4;
      break;
    }
    if (i) {
      memcpy(s + k, sep, strlen(sep));
      k += strlen(sep);
    }
    memcpy(s + k, name, n);
    k += n;
  }
  s[k] = '\0';
  return s;
}

/* Value that counts as an activation input of a layer: computed at run
 * time (not a parameter, not a folded constant). A parameter value is
 * tested first: a cost rule running beside nns__scope_io may fold an
 * initializer's constant (nns__in_const), never another value's. */
static bool is_activation(const nns__analysis *a, const nns__value *v) {
  return v && !a->is_param_value[v->index] && !v->cval &&
         (v->producer || v->is_graph_input);
}

/* The module of layer l when its first call's output is known: by the
 * shape a binding recorded (nns_model_set_module_shapes: PyTorch's own
 * first call) or by name (a .pt2 archive's first call); else NULL. */
static const nns__module_decl *first_output(const nns_model *m,
                                            const nns__analysis *a,
                                            size_t l) {
  const char *path = a->layers[l].info.path;
  const nns__module_decl *d =
      path && path[0] ? nns__map_get(&m->modules, path) : NULL;
  return d && (d->out_rank >= 0 || d->first_out) ? d : NULL;
}

/* Whether value v is what d's first call gave: the value of that name,
 * else the shape the binding recorded, exactly. */
static bool is_first_output(const nns__module_decl *d, const nns__value *v) {
  if (d && d->first_out)
    return v->name && !strcmp(v->name, d->first_out);
  if (!d || v->type.rank != d->out_rank)
    return false;
  for (int k = 0; k < d->out_rank; k++)
    if (v->type.dims[k].sym || v->type.dims[k].v != d->out_shape[k])
      return false;
  return true;
}

/* Value v, written at node position at, leaves layer l: it becomes the
 * layer's output when it is the last to leave so far, unless the layer's
 * output is already its module's first call's (the first value of the
 * shape PyTorch recorded for that call, which then wins over every
 * value of another shape and over later ones of the same shape). */
static void leaves(nns__analysis *a, const nns__module_decl *const *decl,
                   int64_t *out_pos, bool *first, size_t l,
                   const nns__value *v, int64_t at) {
  bool is_first = is_first_output(decl[l], v);
  if (first[l] ? !is_first || at >= out_pos[l]
               : !is_first && at < out_pos[l])
    return;
  out_pos[l] = at;
  first[l] = is_first;
  a->layers[l].info.output_value = v->index;
}

bool nns__scope_io(const nns_model *m, nns__analysis *a) {
  const nns__graph *g = m->graph;
  size_t nl = a->n_layers;
  int64_t *out_pos = malloc((nl + 1) * sizeof *out_pos); /* producer pos. */
  int64_t *last_pos = malloc((nl + 1) * sizeof *last_pos);
  uint32_t *pos = malloc(((size_t)g->n_nodes + 1) * sizeof *pos);
  const nns__module_decl **decl = malloc((nl + 1) * sizeof *decl);
  bool *first = calloc(nl + 1, sizeof *first);
  bool ok = out_pos && last_pos && pos && decl && first;
  if (!ok)
    goto done;
  for (size_t l = 0; l < nl; l++) {
    out_pos[l] = last_pos[l] = -1;
    decl[l] = first_output(m, a, l);
  }
  for (int32_t i = 0; i < g->n_nodes; i++)
    pos[a->order[i]->index] = (uint32_t)i;
  for (int32_t i = 0; i < g->n_nodes; i++) {
    const nns__node *n = a->order[i];
    uint32_t nl0 = a->nodes[n->index].layer;
    for (size_t l = nl0; l != (size_t)-1; l = nns__layer_up(a, l))
      last_pos[l] = i;
    /* Inputs: a layer's first activation input from outside it. */
    for (int32_t k = 0; k < n->n_in; k++) {
      const nns__value *v = n->in[k];
      if (!is_activation(a, v))
        continue;
      const nns__node *p = v->producer ? nns__top_node(v->producer) : NULL;
      if (p && p->graph != g)
        continue;
      size_t lp = p ? a->nodes[p->index].layer : (size_t)-1;
      for (size_t l = nl0; l != (size_t)-1; l = nns__layer_up(a, l)) {
        if (lp != (size_t)-1 && nns__layer_contains(a, (uint32_t)l,
                                                    (uint32_t)lp))
          break;
        if (a->layers[l].info.input_value == NNS__NONE32)
          a->layers[l].info.input_value = v->index;
      }
      /* Outputs: a value consumed outside the producer's layer is that
       * layer's output (the last such in node order, or the first of the
       * shape its module's first call gave: leaves()). */
      if (!p)
        continue;
      for (size_t l = lp; l != (size_t)-1; l = nns__layer_up(a, l)) {
        if (nns__layer_contains(a, (uint32_t)l, nl0))
          break;
        leaves(a, decl, out_pos, first, l, v, pos[p->index]);
      }
    }
  }
  /* Graph outputs leave every layer up to the root. */
  for (int32_t k = 0; k < g->n_outputs; k++) {
    const nns__value *v = g->outputs[k];
    if (!v || !v->producer || v->producer->graph != g)
      continue;
    const nns__node *p = v->producer;
    for (size_t l = a->nodes[p->index].layer; l != (size_t)-1;
         l = nns__layer_up(a, l))
      leaves(a, decl, out_pos, first, l, v, pos[p->index]);
  }
  /* Nothing leaves the layer (a dead end): its last node's output. */
  for (size_t l = 0; l < nl; l++) {
    nns__linfo *li = &a->layers[l].info;
    if (li->output_value != NNS__NONE32 || last_pos[l] < 0)
      continue;
    const nns__node *n = a->order[last_pos[l]];
    for (int32_t k = 0; k < n->n_out && li->output_value == NNS__NONE32; k++)
      if (n->out[k])
        li->output_value = n->out[k]->index;
  }
  /* The root is the model: its first input and first output. */
  if (nl) {
    for (int32_t k = 0; k < g->n_inputs; k++)
      if (g->inputs[k] && !g->inputs[k]->init) {
        a->layers[0].info.input_value = g->inputs[k]->index;
        break;
      }
    if (g->n_outputs && g->outputs[0])
      a->layers[0].info.output_value = g->outputs[0]->index;
  }
done:
  free(first);
  free(decl);
  free(out_pos);
  free(last_pos);
  free(pos);
  return ok;
}

/* Adds op type `optype` to the lists of layer l and its ancestors, up to
 * one that holds it already (it holds it for all of its own ancestors
 * too). False when out of memory. */
static bool climb_add(const nns__analysis *a, type_list *lists,
                      nns__set64 *seen, size_t l, uint32_t optype) {
  for (; l != (size_t)-1; l = nns__layer_up(a, l)) {
    int added = list_add(&lists[l], seen, (uint32_t)l, optype);
    if (added <= 0)
      return added == 0;
  }
  return true;
}

nns_status nns__scope_finish(nns_model *m, nns__analysis *a, nns_error *err) {
  const nns__graph *g = m->graph;
  size_t nl = a->n_layers;
  type_list *types = calloc(nl, sizeof *types);
  /* The op types that do run-time work: the layer's type summary leads
   * with them rather than with shape arithmetic (Shape, Gather on shapes,
   * Constant) and views (Identity, Reshape). */
  type_list *work = calloc(nl, sizeof *work);
  nns__set64 seen_work = {0};
  nns__set64 seen = {0};
  nns_status st = NNS_OK;
  if (!types || !work) {
    st = nns__err(err, NNS_E_NOMEM, -1, NULL, "out of memory");
    goto done;
  }
  for (int32_t i = 0; i < g->n_nodes; i++) {
    const nns__node *n = a->order[i];
    uint32_t nl0 = a->nodes[n->index].layer;
    uint32_t optype = a->nodes[n->index].optype;
    bool does_work = n->op && !n->op->view;
    bool all_folded = n->n_out > 0;
    for (int32_t k = 0; k < n->n_out; k++)
      if (n->out[k] && !n->out[k]->cval)
        all_folded = false;
    if (!climb_add(a, types, &seen, nl0, optype) ||
        (does_work && !all_folded &&
         !climb_add(a, work, &seen_work, nl0, optype))) {
      st = nns__err(err, NNS_E_NOMEM, -1, NULL, "out of memory");
      goto done;
    }
  }
  for (size_t l = 0; l < nl; l++) {
    nns__linfo *li = &a->layers[l].info;
    li->op_types = join(a, &types[l], ",", 0);
    /* A module class from the model wins; else the op type of a single-op
     * layer, else a summary of its op types. */
    if (li->type)
      ;
    else if (a->layers[l].counts.nodes == 1 && types[l].n == 1)
      li->type = a->optypes[types[l].v[0]].op_type;
    else
      li->type = join(a, work[l].n ? &work[l] : &types[l], "+", SUMMARY_MAX);
  }
done:
  for (size_t l = 0; types && l < nl; l++)
    list_free(&types[l]);
  for (size_t l = 0; work && l < nl; l++)
    list_free(&work[l]);
  free(types);
  free(work);
  nns__set64_free(&seen);
  nns__set64_free(&seen_work);
  return st;
}
