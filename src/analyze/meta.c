/*
 * meta.c - the model's and its nodes' metadata_props that nnscan reads,
 * decoded for the passes that use them: the module tree (scope.c) and
 * parameter classification (params.c). Decoding lives here so that those
 * passes see names and maps, never the keys and text formats of the
 * exporters.
 *
 * Model metadata, decoded once per analysis (nns__meta_read):
 *
 *   nnscan.module_types  a JSON object {"layer1.0": "BasicBlock", ...}:
 *                        dotted module path -> class ("" is the root),
 *                        which a file's writer may add;
 *   nnscan.param_kinds   a JSON object {"name": "buffer", ...}: value
 *                        name -> kind word (nns_param_kind_name).
 *
 * A malformed entry is ignored with a warning.
 *
 * Node metadata, decoded per node (nns__meta_node_scopes): the exporter
 * behind torch.onnx.export in current PyTorch (torch.export) names nodes
 * flatly (node_Conv_0) and keeps the module path in
 * pkg.torch.onnx.name_scopes, a Python list literal of the enclosing
 * modules' paths from the root ('') down, then the op's own name (['',
 * 'layer1', 'layer1.0', 'layer1.0.conv1', 'conv2d']), and
 * pkg.torch.onnx.class_hierarchy, the class of each (the last entry the
 * aten op). How those paths become layers is scope.c's.
 */
#include <string.h>

#include "analyze.h"

#define MODULE_TYPES_KEY "nnscan.module_types"
#define PARAM_KINDS_KEY "nnscan.param_kinds"
#define NAME_SCOPES_KEY "pkg.torch.onnx.name_scopes"
#define CLASSES_KEY "pkg.torch.onnx.class_hierarchy"

/* ==== Model metadata ==== */

/* Reads the model's metadata entry `key`, a JSON object of strings, into
 * map (interned key -> interned value); a malformed one is ignored with a
 * warning naming `what`. False when out of memory. */
static bool read_object(nns_model *m, const char *key, nns__map *map,
                        const char *what) {
  for (int32_t i = 0; i < m->n_meta; i++) {
    if (!m->meta_keys[i] || strcmp(m->meta_keys[i], key) != 0 ||
        !m->meta_values[i])
      continue;
    int r = nns__read_json_strings(m->meta_values[i], &m->strings, map);
    if (r == 0) {
      nns__warn(m, "metadata '%s' is not a JSON object of strings; %s "
                "ignored", key, what);
      nns__map_free(map); /* keeps its arena */
    }
    return r >= 0;
  }
  return true;
}

bool nns__meta_read(nns_model *m, nns__arena *arena, nns__meta *meta) {
  memset(meta, 0, sizeof *meta);
  meta->module_types.arena = arena;
  meta->param_kinds.arena = arena;
  return read_object(m, MODULE_TYPES_KEY, &meta->module_types,
                     "module types") &&
         read_object(m, PARAM_KINDS_KEY, &meta->param_kinds,
                     "parameter kinds");
}

int nns__meta_param_kind(const nns__meta *meta, const char *name) {
  const char *word = nns__map_get(&meta->param_kinds, name);
  if (!word)
    return -1;
  for (int i = 0; nns_param_kind_name(i); i++)
    if (!strcmp(word, nns_param_kind_name(i)))
      return i;
  return -1;
}

/* ==== Node metadata: torch.export's name_scopes and class_hierarchy ==== */

static const char *node_meta(const nns__node *n, const char *key) {
  for (int32_t i = 0; i < n->n_meta; i++)
    if (n->meta_keys[i] && strcmp(n->meta_keys[i], key) == 0)
      return n->meta_values[i];
  return NULL;
}

int nns__meta_node_scopes(nns_model *m, const nns__node *n,
                          nns__node_scopes *s) {
  const char *scopes = node_meta(n, NAME_SCOPES_KEY);
  if (!scopes)
    return 0;
  s->n_paths = nns__read_py_strings(scopes, &m->strings, s->paths,
                                    NNS__META_MAX_SCOPES);
  if (s->n_paths == -2)
    return -1;
  if (s->n_paths < 0) {
    nns__warn(m, "node '%s': metadata %s is not a list of strings; its "
              "name is used", n->name, NAME_SCOPES_KEY);
    return 0;
  }
  /* Classes are a bonus: a missing or malformed list gives none. */
  const char *classes = node_meta(n, CLASSES_KEY);
  int nc = classes ? nns__read_py_strings(classes, &m->strings, s->classes,
                                          NNS__META_MAX_SCOPES)
                   : -1;
  if (nc == -2)
    return -1;
  s->n_classes = nc < 0 ? 0 : nc;
  return 1;
}
