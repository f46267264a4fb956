/*
 * load.c - nns_model_load_file / nns_model_load_memory: ModelProto,
 * opset imports, metadata and model-local functions, and the helpers the
 * other loader files share.
 *
 * A buffer with no bytes, or a ModelProto without a graph, is not a model:
 * both fail with NNS_E_MODEL ("no graph"), since there would be nothing to
 * analyse and an empty file is far more often a failed export than a
 * deliberate empty model.
 *
 * This is the top of the decoders' chain (load_int.h): it calls the graph
 * decoder, and hands it down to the node decoder as the loader's
 * decode_graph pointer for the graphs that attributes hold.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "load_int.h"
#include "../pt2/pt2.h"

/* ==== Opsets and metadata ==== */

static nns_status load_opset(nns__loader *L, const nns__wire *w,
                             const char **domain, int64_t *version) {
  nns__wire r = *w;
  nns__field f;
  nns_status st;
  *domain = L->A.empty;
  *version = 0;
  while ((st = nns__wire_next(&r, &f)) == NNS_OK && f.num) {
    if (f.num == NNS__F_OPSET_DOMAIN) {
      if ((st = nns__load_name(L, &f, domain)) != NNS_OK)
        return st;
      *domain = nns__load_domain(L, *domain);
    } else if (f.num == NNS__F_OPSET_VERSION) {
      *version = (int64_t)f.u;
    }
  }
  return st;
}

/* Arrays of opset imports: `count` found by the caller's first pass. */
static nns_status alloc_opsets(nns__loader *L, int32_t count,
                               const char ***domains, int64_t **versions) {
  *domains = nns__arena_array(L->arena, (size_t)count, sizeof(char *));
  *versions = nns__arena_array(L->arena, (size_t)count, sizeof(int64_t));
  return *domains && *versions ? NNS_OK : nns__load_nomem(L);
}

/* ==== Functions ==== */

/*
 * A model-local function. Its body is a graph of its own (no parent):
 * its inputs are fresh untyped values named by the formal inputs, its
 * outputs must be defined by its nodes. Body values are not in the model's
 * value list.
 */
static nns_status load_function(nns__loader *L, const nns__wire *w,
                                nns__function *fn) {
  nns_model *m = L->A.m;
  nns__graph *body = nns__asm_graph(&L->A, NULL, w->origin + (int64_t)w->pos);
  if (!body)
    return nns__load_nomem(L);
  fn->body = body;
  fn->name = fn->domain = L->A.empty;

  nns__wire r = *w, sub;
  nns__field f;
  nns_status st;
  int32_t *const counts[] = {
      [NNS__F_FN_INPUT] = &body->n_inputs,
      [NNS__F_FN_OUTPUT] = &body->n_outputs,
      [NNS__F_FN_ATTRIBUTE] = &fn->n_attr_names,
      [NNS__F_FN_ATTRIBUTE_PROTO] = &fn->n_attr_names,
      [NNS__F_FN_NODE] = &body->n_nodes,
      [NNS__F_FN_OPSET_IMPORT] = &fn->n_opsets,
  };
  while ((st = nns__wire_next(&r, &f)) == NNS_OK && f.num) {
    if (f.num == NNS__F_FN_NAME)
      st = nns__load_name(L, &f, &fn->name);
    else if (f.num == NNS__F_FN_DOMAIN)
      st = nns__load_name(L, &f, &fn->domain);
    if (st == NNS_OK)
      st = NNS__LOAD_COUNT_FIELD(&r, &f, counts);
    if (st != NNS_OK)
      return st;
  }
  if (st != NNS_OK)
    return st;
  body->name = fn->name;

  nns__arena *arena = &m->arena;
  body->inputs = nns__arena_array(arena, (size_t)body->n_inputs,
                                  sizeof(void *));
  body->outputs = nns__arena_array(arena, (size_t)body->n_outputs,
                                   sizeof(void *));
  body->nodes = nns__arena_array(arena, (size_t)body->n_nodes,
                                 sizeof *body->nodes);
  fn->attr_names = nns__arena_array(arena, (size_t)fn->n_attr_names,
                                    sizeof(char *));
  if (!body->inputs || !body->outputs || !body->nodes || !fn->attr_names ||
      (st = alloc_opsets(L, fn->n_opsets, &fn->opset_domains,
                         &fn->opset_versions)) != NNS_OK)
    return st != NNS_OK ? st : nns__load_nomem(L);

  int32_t kin = 0, kout = 0, ka = 0, kn = 0, ko = 0;
  r = *w;
  while ((st = nns__wire_next(&r, &f)) == NNS_OK && f.num) {
    const char *name;
    switch (f.num) {
    case NNS__F_FN_INPUT:
    case NNS__F_FN_OUTPUT:
      if ((st = nns__load_name(L, &f, &name)) != NNS_OK)
        return st;
      /* Formal parameters: inputs untyped, outputs by name. */
      st = f.num == NNS__F_FN_INPUT
               ? nns__asm_input(&L->A, body, name, NULL, &body->inputs[kin++])
               : nns__asm_output(&L->A, body, name, NULL,
                                 &body->outputs[kout++]);
      break;
    case NNS__F_FN_ATTRIBUTE:
      st = nns__load_name(L, &f, &fn->attr_names[ka++]);
      break;
    case NNS__F_FN_ATTRIBUTE_PROTO: { /* with a default: only its name */
      nns__field a;
      fn->attr_names[ka] = L->A.empty;
      if ((st = nns__wire_enter(&r, &f, &nns__pb_attr, &sub)) != NNS_OK)
        return st;
      while ((st = nns__wire_next(&sub, &a)) == NNS_OK && a.num)
        if (a.num == NNS__F_ATTR_NAME &&
            (st = nns__load_name(L, &a, &fn->attr_names[ka])) != NNS_OK)
          return st;
      ka++;
      break;
    }
    case NNS__F_FN_NODE:
      st = nns__load_node_field(L, &r, &f, body, kn++);
      break;
    case NNS__F_FN_OPSET_IMPORT:
      if ((st = nns__wire_enter(&r, &f, &nns__pb_opset, &sub)) == NNS_OK)
        st = load_opset(L, &sub, &fn->opset_domains[ko],
                        &fn->opset_versions[ko]);
      ko++;
      break;
    default:
      break;
    }
    if (st != NNS_OK)
      return st;
  }
  return st;
}

/* Resolves a function body's names with its own opset imports. */
static nns_status resolve_function(nns__loader *L, nns__function *fn) {
  L->A.in_function = true;
  L->A.n_opsets = fn->n_opsets;
  L->A.opset_domains = fn->opset_domains;
  L->A.opset_versions = fn->opset_versions;
  nns_status st = nns__asm_resolve(&L->A, fn->body, false);
  L->A.in_function = false;
  L->A.n_opsets = 0;
  return st;
}

/*
 * A dim of a main-graph input with neither a value nor a name gets the name
 * "<input>_dim<axis>" (audio_dim2), so that a user can see it and fix it
 * with --input audio_dim2=16000 (docs/metrics.md, Shapes and symbols).
 */
static nns_status name_input_dims(nns__loader *L, nns__graph *g) {
  char buf[320];
  for (int32_t i = 0; i < g->n_inputs; i++) {
    nns__value *v = g->inputs[i];
    if (!v || v->init || !v->declared)
      continue;
    for (int32_t k = 0; k < v->declared->rank; k++) {
      uint32_t sym = v->declared->dims[k].sym;
      snprintf(buf, sizeof buf, "%.256s_dim%d", v->name, (int)k);
      if (sym && !nns__sym_name_anonymous(L->A.m, sym, buf))
        return nns__load_nomem(L);
    }
  }
  return NNS_OK;
}

/* ==== ModelProto ==== */

static nns_status load_model(nns__loader *L) {
  nns_model *m = L->A.m;
  nns__wire w, r, sub;
  nns__wire_init(&w, m->data, m->size, 0, &nns__pb_model, L->max_depth,
                 L->A.err);
  if (m->size == 0)
    return nns__err(L->A.err, NNS_E_MODEL, 0, NULL,
                    "the model is empty (0 bytes): no graph");

  nns__field f, graph = {0};
  nns_status st;
  int32_t *const counts[] = {
      [NNS__F_MODEL_OPSET_IMPORT] = &m->n_opsets,
      [NNS__F_MODEL_METADATA_PROPS] = &m->n_meta,
      [NNS__F_MODEL_FUNCTIONS] = &m->n_functions,
  };
  r = w;
  while ((st = nns__wire_next(&r, &f)) == NNS_OK && f.num) {
    switch (f.num) {
    case NNS__F_MODEL_IR_VERSION:
      m->ir_version = (int64_t)f.u;
      break;
    case NNS__F_MODEL_PRODUCER_NAME:
      st = nns__load_text(L, &f, &m->producer_name);
      break;
    case NNS__F_MODEL_PRODUCER_VERSION:
      st = nns__load_text(L, &f, &m->producer_version);
      break;
    case NNS__F_MODEL_DOMAIN:
      st = nns__load_text(L, &f, &m->domain);
      break;
    case NNS__F_MODEL_MODEL_VERSION:
      m->model_version = (int64_t)f.u;
      break;
    case NNS__F_MODEL_DOC_STRING:
      st = nns__load_text(L, &f, &m->doc);
      break;
    case NNS__F_MODEL_GRAPH:
      if (graph.num)
        return nns__wire_fail(&r, &f, NNS_E_MODEL,
                              "a second graph (the first is at byte %lld)",
                              (long long)graph.offset);
      graph = f;
      break;
    default:
      break;
    }
    if (st == NNS_OK)
      st = NNS__LOAD_COUNT_FIELD(&r, &f, counts);
    if (st != NNS_OK)
      return st;
  }
  if (st != NNS_OK)
    return st;
  if (!graph.num)
    return nns__err(L->A.err, NNS_E_MODEL, 0, NULL,
                    "ModelProto has no graph: no graph");

  nns__arena *arena = &m->arena;
  m->meta_keys = nns__arena_array(arena, (size_t)m->n_meta, sizeof(char *));
  m->meta_values = nns__arena_array(arena, (size_t)m->n_meta, sizeof(char *));
  m->functions = nns__arena_array(arena, (size_t)m->n_functions,
                                  sizeof *m->functions);
  if (!m->meta_keys || !m->meta_values || !m->functions ||
      (st = alloc_opsets(L, m->n_opsets, &m->opset_domains,
                         &m->opset_versions)) != NNS_OK)
    return st != NNS_OK ? st : nns__load_nomem(L);

  int32_t ko = 0, km = 0, kf = 0;
  r = w;
  while ((st = nns__wire_next(&r, &f)) == NNS_OK && f.num) {
    if (f.num == NNS__F_MODEL_OPSET_IMPORT) {
      if ((st = nns__wire_enter(&r, &f, &nns__pb_opset, &sub)) == NNS_OK)
        st = load_opset(L, &sub, &m->opset_domains[ko],
                        &m->opset_versions[ko]);
      ko++;
    } else if (f.num == NNS__F_MODEL_METADATA_PROPS) {
      if ((st = nns__wire_enter(&r, &f, &nns__pb_entry, &sub)) == NNS_OK)
        st = nns__load_entry(L, &sub, &m->meta_keys[km],
                             &m->meta_values[km]);
      km++;
    } else if (f.num == NNS__F_MODEL_FUNCTIONS) {
      if ((st = nns__wire_enter(&r, &f, &nns__pb_function, &sub)) == NNS_OK) {
        L->A.in_function = true;
        st = load_function(L, &sub, &m->functions[kf++]);
        L->A.in_function = false;
      }
    }
    if (st != NNS_OK)
      return st;
  }
  if (st != NNS_OK)
    return st;

  nns__graph *g = nns__asm_graph(&L->A, NULL, (int64_t)graph.pos);
  if (!g)
    return nns__load_nomem(L);
  m->graph = g;
  if ((st = nns__wire_enter(&w, &graph, &nns__pb_graph, &sub)) != NNS_OK)
    return st;
  if ((st = nns__load_graph(L, &sub, g)) != NNS_OK ||
      (st = nns__asm_finish(&L->A, g)) != NNS_OK)
    return st;
  if ((st = name_input_dims(L, g)) != NNS_OK)
    return st;
  for (int32_t i = 0; i < m->n_functions; i++)
    if ((st = resolve_function(L, &m->functions[i])) != NNS_OK)
      return st;
  return NNS_OK;
}

/* ==== Entry points ==== */

static void clear_error(nns_error *err) {
  if (err) {
    memset(err, 0, sizeof *err);
    err->offset = -1;
  }
}

/* A model that failed to load and is clearly no protobuf: its message
 * says first that it is not an ONNX model and what it looks like, then
 * the decoder's detail (with its byte offset). */
static void not_onnx(const nns_model *m, nns_status st, nns_error *err) {
  if (!err || st == NNS_E_NOMEM || st == NNS_E_ARG)
    return;
  const char *what = nns__sniff_format(m->data, m->size);
  if (!what)
    return;
  char detail[sizeof err->message];
  memcpy(detail, err->message, sizeof detail);
  detail[sizeof detail - 1] = 0;
  size_t size = sizeof err->message;
  int head = snprintf(err->message, size,
                      "not an ONNX model: it looks like %s (decoding it as "
                      "ONNX: ", what);
  size_t at = head > 0 && (size_t)head < size ? (size_t)head : size - 1;
  /* The detail, cut to what fits before ")". */
  size_t room = size - at > 2 ? size - at - 2 : 0, len = strlen(detail);
  len = len < room ? len : room;
  memcpy(err->message + at, detail, len);
  memcpy(err->message + at + len, room ? ")" : "", room ? 2 : 1);
}

/* Decodes m->data into m; destroys m on failure. opts is the caller's,
 * already read in full (never NULL). */
static nns_status load(nns_model *m, const nns_load_options *opts,
                       nns_model **out, nns_error *err) {
  if (nns__pt2_sniff(m->data, m->size)) {
    /* A zip: a torch.export archive, told by its content, not its name.
     * The model it makes holds nothing of these bytes. */
    nns_status st = nns__pt2_load(m->data, m->size, out, err);
    nns__model_destroy(m);
    return st;
  }
  nns__loader L;
  memset(&L, 0, sizeof L);
  L.max_depth = opts->max_depth > 0 ? opts->max_depth : NNS__DEFAULT_DEPTH;
  L.decode_graph = nns__load_graph;
  if (L.max_depth > NNS__MAX_DEPTH)
    L.max_depth = NNS__MAX_DEPTH;
  L.arena = &m->arena;
  L.strings = &m->strings;
  nns_status st = nns__asm_begin(&L.A, m, err, "loading");
  if (st == NNS_OK) {
    m->producer_name = m->producer_version = m->domain = m->doc = L.A.empty;
    st = load_model(&L);
  }
  free(L.io);
  free(L.attrs);
  if (st != NNS_OK) {
    not_onnx(m, st, err);
    nns__model_destroy(m);
    return st;
  }
  if (L.external)
    nns__check_external(m);
  *out = m;
  return NNS_OK;
}

/* The folder part of path: "dir/model.onnx" -> "dir", "model.onnx" -> ".". */
static const char *dir_of(nns_model *m, const char *path) {
  const char *slash = strrchr(path, '/');
  if (!slash)
    return nns__arena_strndup(&m->arena, ".", 1);
  if (slash == path)
    return nns__arena_strndup(&m->arena, "/", 1);
  return nns__arena_strndup(&m->arena, path, (size_t)(slash - path));
}

static const char *dir_from(nns_model *m, const nns_load_options *opts,
                            const char *path) {
  if (opts->external_dir)
    return nns__arena_strndup(&m->arena, opts->external_dir,
                              strlen(opts->external_dir));
  return path ? dir_of(m, path) : nns__arena_strndup(&m->arena, ".", 1);
}

/* The caller's options (NULL: defaults) in full. */
static nns_status read_options(nns_load_options *o,
                               const nns_load_options *opts, nns_error *err) {
  memset(o, 0, sizeof *o);
  o->size = sizeof *o;
  if (opts && NNS__GET(o, opts, NNS__V1_LOAD_OPTIONS) != NNS_OK)
    return nns__err(err, NNS_E_ARG, -1, NULL,
                    "nns_load_options.size is %zu, below the first "
                    "version's %zu", opts->size,
                    (size_t)NNS__V1_LOAD_OPTIONS);
  if (o->max_depth < 0)
    return nns__err(err, NNS_E_ARG, -1, NULL, "max_depth %d is negative",
                    o->max_depth);
  return NNS_OK;
}

/* What both loads do once their arguments are checked: the options read
 * into *o and an empty model made in *m. */
static nns_status load_begin(const nns_load_options *opts,
                             nns_load_options *o, nns_model **m,
                             nns_error *err) {
  *m = NULL;
  nns_status st = read_options(o, opts, err);
  if (st != NNS_OK)
    return st;
  *m = nns__model_new();
  return *m ? NNS_OK
            : nns__err(err, NNS_E_NOMEM, -1, NULL, "out of memory");
}

/* And once m holds the bytes: its folder for external data (from path,
 * or NULL for a model in memory), then the load itself. */
static nns_status load_finish(nns_model *m, const nns_load_options *opts,
                              const char *path, nns_model **out,
                              nns_error *err) {
  if (!(m->dir = dir_from(m, opts, path))) {
    nns__model_destroy(m);
    return nns__err(err, NNS_E_NOMEM, -1, NULL, "out of memory");
  }
  return load(m, opts, out, err);
}

nns_status nns_model_load_file(const char *path, const nns_load_options *opts,
                               nns_model **out, nns_error *err) {
  clear_error(err);
  if (!out)
    return nns__err(err, NNS_E_ARG, -1, NULL, "out is NULL");
  *out = NULL;
  if (!path)
    return nns__err(err, NNS_E_ARG, -1, NULL, "path is NULL");
  nns_load_options o;
  nns_model *m;
  nns_status st = load_begin(opts, &o, &m, err);
  if (st != NNS_OK)
    return st;
  opts = &o;
  st = nns__fmap_open(&m->map, path, err);
  if (st != NNS_OK) {
    nns__model_destroy(m);
    return st;
  }
  m->data = m->map.data;
  m->size = m->map.size;
  return load_finish(m, opts, path, out, err);
}

nns_status nns_model_load_memory(const void *data, size_t size,
                                 const nns_load_options *opts,
                                 nns_model **out, nns_error *err) {
  clear_error(err);
  if (!out)
    return nns__err(err, NNS_E_ARG, -1, NULL, "out is NULL");
  *out = NULL;
  if (!data && size)
    return nns__err(err, NNS_E_ARG, -1, NULL, "data is NULL");
  nns_load_options o;
  nns_model *m;
  nns_status st = load_begin(opts, &o, &m, err);
  if (st != NNS_OK)
    return st;
  opts = &o;
  m->data = data;
  m->size = size;
  if ((o.flags & NNS_LOAD_COPY) && size) {
    /* The model's own copy, freed with it (nns__fmap_close). */
    if (nns__fmap_copy(&m->map, data, size) != NNS_OK) {
      nns__model_destroy(m);
      return nns__err(err, NNS_E_NOMEM, -1, NULL,
                      "out of memory copying the %zu-byte model", size);
    }
    m->data = m->map.data;
  }
  return load_finish(m, opts, NULL, out, err);
}
