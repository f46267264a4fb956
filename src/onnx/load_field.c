/*
 * load_field.c - the bottom of the ONNX decoder: a field read as an arena
 * text, a metadata entry, a repeated varint's elements, the error of a
 * count of repeated fields that overflows (the interned name and the
 * counts themselves are inline, in load_int.h). Every decoder file calls
 * these, and they call no decoder, so the decoders form a chain rather
 * than a circle.
 */
#include <string.h>

#include "load_int.h"

static size_t cut_at_nul(const nns__field *f) {
  const uint8_t *z = memchr(f->data, 0, f->len);
  return z ? (size_t)(z - f->data) : f->len;
}

nns_status nns__load_text(nns__loader *L, const nns__field *f,
                          const char **out) {
  *out = nns__arena_strndup(L->arena, (const char *)f->data,
                            cut_at_nul(f));
  return *out ? NNS_OK : nns__load_nomem(L);
}

const char *nns__load_domain(nns__loader *L, const char *domain) {
  return domain && strcmp(domain, "ai.onnx") == 0 ? L->A.empty : domain;
}

nns_status nns__load_count_fail(const nns__wire *w, const nns__field *f) {
  return nns__wire_fail(w, f, NNS_E_LIMIT, "more than %d elements",
                        INT32_MAX);
}

nns_status nns__load_entry(nns__loader *L, const nns__wire *w,
                           const char **key, const char **value) {
  nns__wire r = *w;
  nns__field f;
  nns_status st;
  *key = *value = "";
  while ((st = nns__wire_next(&r, &f)) == NNS_OK && f.num) {
    if (f.num == NNS__F_ENTRY_KEY)
      st = nns__load_text(L, &f, key);
    else if (f.num == NNS__F_ENTRY_VALUE)
      st = nns__load_text(L, &f, value);
    if (st != NNS_OK)
      return st;
  }
  return st;
}

nns_status nns__load_varints(nns__loader *L, const nns__wire *w,
                             const nns__field *f, int64_t *out, int32_t *k) {
  if (f->wt != NNS__WT_LEN) {
    out[(*k)++] = (int64_t)f->u;
    return NNS_OK;
  }
  char what[64];
  nns__wire_fname(w, f, what, sizeof what);
  for (size_t pos = 0; pos < f->len;) {
    uint64_t v;
    nns_status st = nns__wire_varint(f->data, f->len, &pos, &v,
                                     w->origin + (int64_t)f->pos, what,
                                     L->A.err);
    if (st != NNS_OK)
      return st;
    out[(*k)++] = (int64_t)v;
  }
  return NNS_OK;
}
