/*
 * front.c - the services a front end of the aten table offers a call
 * (metadata, aliases, fresh names, a symbolic size's scalar), and turning
 * one call into an nns__aten_call for nns__aten_lower, with the uncounted
 * node for a call nothing lowers. Shared by the torch.export reader
 * (src/pt2/pt2.c) and the recorder's tape (aten records, src/front/packed.c).
 */
#include "front.h"

#include <stdarg.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

#include "../ir/builder_int.h"
#include "../ir/ir.h"

void nns__front_init(nns__front *f, nns__arena *arena,
                     nns__interner *strings, nns_builder *b, nns_error *err,
                     const char *where) {
  memset(f, 0, sizeof *f);
  f->arena = arena;
  f->strings = strings;
  f->values.arena = f->symvals.arena = f->numbered.arena = arena;
  f->entries.arena = f->provisional.arena = arena;
  f->b = b;
  f->err = err;
  f->where = where;
  f->fresh_stem = "_nns_";
}

void nns__front_free(nns__front *f) {
  nns__map_free(&f->values); /* arena maps: nothing to free, said once */
  nns__map_free(&f->symvals);
  nns__map_free(&f->numbered);
  nns__map_free(&f->entries);
  nns__map_free(&f->provisional);
}

nns_status nns__front_fail(nns__front *f, nns_status code, const char *fmt,
                           ...) {
  char msg[400];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  if (f->node)
    return nns__err(f->err, code, -1, f->node, "%s: node '%s': %s", f->where,
                    f->node, msg);
  return nns__err(f->err, code, -1, NULL, "%s: %s", f->where, msg);
}

const char *nns__front_intern(nns__front *f, const char *s) {
  return s ? nns__intern_cstr(f->strings, s) : NULL;
}

nns__front_value *nns__front_value_of(nns__front *f, const char *name) {
  if (!name)
    return NULL;
  /* The map's keys are interned copies, so a pointer equal to one is that
   * name: the readers hand the calls interned names (a pointer probe),
   * where hashing the string again was a tenth of lowering a tape. */
  nns__front_value *v = nns__map_get(&f->values, name);
  if (v)
    return v;
  const char *k = nns__intern_find(f->strings, name);
  return k && k != name ? nns__map_get(&f->values, k) : NULL;
}

nns__front_value *nns__front_value_add(nns__front *f, const char *name) {
  /* a key's own pointer first, as nns__front_value_of, where deferred
   * numbering hands most names over interned (hashed once already); the
   * packed form's other names point into its bytes */
  nns__front_value *v =
      name && f->deferred ? nns__map_get(&f->values, name) : NULL;
  if (v)
    return v;
  const char *key = nns__front_intern(f, name);
  if (!key)
    return NULL;
  if (key != name && (v = nns__map_get(&f->values, key)))
    return v;
  v = nns__arena_alloc(f->arena, sizeof *v);
  if (!v || !nns__map_put(&f->values, key, v))
    return NULL;
  memset(v, 0, sizeof *v);
  v->name = key;
  v->meta.rank = -1;
  return v;
}

const char *nns__front_resolve(nns__front *f, const char *name) {
  for (int hops = 0; name && hops < 64; hops++) {
    nns__front_value *v = nns__front_value_of(f, name);
    if (!v || !v->rename)
      return name;
    name = v->rename;
  }
  return name;
}

/* ==== The services of nns__aten_call ==== */

static const nns__aten_meta *fe_meta(void *fe, const char *name) {
  nns__front_value *v = nns__front_value_of(fe, name);
  return !v ? NULL : v->real && v->rename ? v->real : &v->meta;
}

nns_status nns__front_alias(nns__front *f, const char *out, const char *src) {
  nns__front_value *v = nns__front_value_of(f, out);
  if (!v)
    return nns__front_fail(f, NNS_E_MODEL, "output '%s' has no tensor "
                           "metadata", out);
  v->rename = nns__front_intern(f, src);
  if (!v->rename)
    return nns__front_fail(f, NNS_E_NOMEM, "out of memory");
  /* The new name knows the sizes too (a parameter's module path). */
  if (!nns__front_value_of(f, v->rename)) {
    nns__aten_meta m = v->meta;
    nns__front_value *w = nns__front_value_add(f, v->rename);
    if (!w)
      return nns__front_fail(f, NNS_E_NOMEM, "out of memory");
    w->meta = m;
  }
  return NNS_OK;
}

static const char *fe_numbered(void *fe, const char *name, bool written);

static nns_status fe_alias(void *fe, const char *out, const char *src) {
  nns__front *f = fe;
  if (f->numbering) {
    if (src && !(src = fe_numbered(f, src, false)))
      return nns__front_fail(f, NNS_E_NOMEM, "out of memory");
    for (int k = 0; k < f->n_outs; k++) /* named by its input: no number */
      if (f->outs[k] && !f->out_number[k] && !strcmp(f->outs[k], out)) {
        f->out_number[k] = -1;
        for (int j = 0; src && j < f->n_reads && j < 64; j++)
          if (!strcmp(f->reads[j], src)) {
            f->out_alias[k] = j;
            break;
          }
      }
  }
  return nns__front_alias(f, out, src);
}

/* The real_form service (aten.h): complex `out` named by `src`, its real
 * form, (..., 2) of the real dtype, marked so; src NULL undoes it. */
static nns_status fe_real_form(void *fe, const char *out, const char *src) {
  nns__front *f = fe;
  nns__front_value *v = nns__front_value_of(f, out);
  if (!v)
    return nns__front_fail(f, NNS_E_MODEL, "output '%s' has no tensor "
                           "metadata", out);
  if (!src) { /* (a rule that declines after all: numbered as written) */
    for (int k = 0; f->numbering && k < f->n_outs; k++)
      if (f->outs[k] && f->out_number[k] < 0 && !strcmp(f->outs[k], out))
        f->out_number[k] = 0;
    v->rename = NULL;
    v->real = NULL;
    return NNS_OK;
  }
  const int32_t dt = v->meta.dtype == NNS_DT_COMPLEX64    ? NNS_DT_FLOAT
                     : v->meta.dtype == NNS_DT_COMPLEX128 ? NNS_DT_DOUBLE
                                                          : 0;
  if (!dt || v->meta.rank < 0 || v->meta.rank > 63)
    return NNS_E_NOTFOUND;
  /* Under numbering the output is named by src, no number of its own (as
   * an alias: view_as_complex's input, or the value its nodes write) */
  const char *placeholder = src[0] == '\1' ? src : NULL;
  if (f->numbering) {
    if (!(src = fe_numbered(f, src, false)))
      return nns__front_fail(f, NNS_E_NOMEM, "out of memory");
    for (int k = 0; k < f->n_outs; k++)
      if (f->outs[k] && !f->out_number[k] && !strcmp(f->outs[k], out))
        f->out_number[k] = -1;
  }
  const char *k = nns__front_intern(f, src);
  if (!k)
    return nns__front_fail(f, NNS_E_NOMEM, "out of memory");
  nns__aten_meta m = v->meta;
  int64_t *dims = nns__arena_array(f->arena, (size_t)m.rank + 1,
                                   sizeof *dims);
  const char **syms = nns__arena_array(f->arena, (size_t)m.rank + 1,
                                       sizeof *syms);
  nns__aten_meta *real = nns__arena_alloc(f->arena, sizeof *real);
  if (!dims || !syms || !real)
    return nns__front_fail(f, NNS_E_NOMEM, "out of memory");
  for (int32_t d = 0; d < m.rank; d++) {
    dims[d] = m.dims[d];
    syms[d] = m.syms ? m.syms[d] : NULL;
  }
  dims[m.rank] = 2;
  *real = (nns__aten_meta){.dtype = dt, .rank = m.rank + 1, .dims = dims,
                           .syms = syms, .real_form = true};
  nns__front_value *w = nns__front_value_of(f, k);
  if (!w) {
    if (!(w = nns__front_value_add(f, k)))
      return nns__front_fail(f, NNS_E_NOMEM, "out of memory");
    v = nns__front_value_of(f, out);
    w->meta = *real;
    w->meta.real_form = false; /* (below) */
  }
  /* The value src names is marked real form where a call's lowering reads
   * it by that name: a .pt2 archive's calls, and a fresh value of this
   * call's; a recording's later calls read the complex value by its own
   * name (v->real), where src (view_as_complex's real input) may be read
   * as the real tensor it also is */
  if (!f->deferred || placeholder)
    w->meta.real_form = true;
  v->real = real;
  v->rename = k;
  return NNS_OK;
}

/* (snprintf's format parsing was a tenth of a numbered call's lowering;
 * the digits two at a time, written where they go, halve a digit loop's
 * instructions: a deferred build names ten thousand values and nodes) */
size_t nns__front_decimal(char *p, uint64_t v) {
  static const char pairs[] = "00010203040506070809101112131415161718192021"
                              "22232425262728293031323334353637383940414243"
                              "44454647484950515253545556575859606162636465"
                              "66676869707172737475767778798081828384858687"
                              "888990919293949596979899";
  size_t n = 1;
  for (uint64_t t = v; t >= 10; t /= 10)
    n++;
  p[n] = 0;
  char *end = p + n;
  while (v >= 100) {
    const char *d = pairs + 2 * (v % 100);
    v /= 100;
    *--end = d[1];
    *--end = d[0];
  }
  if (v >= 10) {
    *--end = pairs[2 * v + 1];
    *--end = pairs[2 * v];
  } else {
    *--end = (char)('0' + v);
  }
  return n;
}

/* The stem's first 60 bytes and the next count: a name of the front's
 * own (a .pt2 call's intermediate value). */
static const char *fe_fresh(void *fe) {
  nns__front *f = fe;
  char buf[96];
  size_t n = strnlen(f->fresh_stem, 60);
  memcpy(buf, f->fresh_stem, n);
  nns__front_decimal(buf + n, ++f->fresh);
  return nns__front_intern(f, buf); /* lives as long as the front */
}

/* ---- The recorder's numbering ----
 * A tape record after a `names` record is named as the recorder names
 * what its own rules make (python/nnscan/graph.py): one counter numbers
 * every value ("vN", "cN"), another every node ("PATH/OP_N"). The
 * recorder names a constant when it makes it and any other value when a
 * node first writes it, so a fresh name here is a placeholder ("\1" and
 * a count: no graph name starts so) until a node writes it. */

/* "STEM N": stem one character, N the number */
static const char *stem_name(nns__front *f, char stem, uint64_t n) {
  char buf[24];
  buf[0] = stem;
  nns__front_decimal(buf + 1, n);
  return nns__front_intern(f, buf);
}

static const char *numbered_name(nns__front *f, char stem) {
  return stem_name(f, stem, ++f->number);
}

static const char *fe_fresh_numbered(void *fe) {
  nns__front *f = fe;
  const char *k = stem_name(f, '\1', ++f->placeholders);
  /* itself until written, then its number */
  if (!k || !nns__map_put(&f->numbered, k, (void *)k))
    return NULL;
  return k;
}

static const char *fe_fresh_const(void *fe) {
  nns__front *f = fe;
  f->constants++;
  const char *name = numbered_name(f, 'c');
  if (f->deferred && f->n_since < 16)
    f->since[f->n_since++] = name;
  if (f->planning && f->n_made <= 16) {
    if (f->n_made < 16)
      f->made_seq[f->n_made] = -1, f->made[f->n_made] = name;
    f->n_made++;
  }
  return name;
}

/* Planning: the node's read of `name`, in order (read_after). */
static void plan_read(nns__front *f, const char *name) {
  int32_t s = f->seq++;
  for (int j = 0; j < f->n_made && j < 16; j++)
    if (f->made_seq[j] < 0 && !strcmp(f->made[j], name))
      f->made_seq[j] = s;
}

/* Planning: the node is made. An argument it read first does not count
 * the constants it reads later, which its binding makes after that. */
static void plan_node(nns__front *f) {
  for (int k = 0; k < f->n_reads && k < 64; k++) {
    if (f->read_seq[k] < 0)
      continue;
    for (int j = 0; j < f->n_made && f->n_made <= 16; j++)
      if (f->made_seq[j] > f->read_seq[k])
        f->read_after[k]--;
    f->read_seq[k] = -1;
  }
  f->n_made = 0;
  f->seq = 0;
}

/* The interned copy of name, which is most often name itself (the calls
 * read interned names: pk_aten_tensor), tried by pointer in `map` first:
 * a string hashed again was a tenth of a deferred build. `*found` is
 * map's entry for it, or NULL. */
static const char *interned_in(nns__front *f, const nns__map *map,
                               const char *name, void **found) {
  if ((*found = nns__map_get(map, name)))
    return name;
  const char *k = nns__intern_find(f->strings, name);
  *found = k && k != name ? nns__map_get(map, k) : NULL;
  return k;
}

/* The call's j-th output, written first: numbered "vN". */
static const char *numbered_output(nns__front *f, int j) {
  f->out_number[j] = (int64_t)++f->number;
  const char *have = stem_name(f, 'v', f->number);
  return have && nns__map_put(&f->provisional, f->outs[j], (void *)have)
             ? have
             : NULL;
}

/* Under deferred numbering: an output of the call ("\3K.J"), named "vN"
 * when first written (deferred.c). */
static const char *deferred_output(nns__front *f, const char *name,
                                   bool written) {
  void *found;
  const char *k = name; /* an output first written: the call's, interned */
  for (int j = 0; written && j < f->n_outs; j++)
    if (f->outs[j] == k && !f->out_number[j])
      return numbered_output(f, j);
  k = interned_in(f, &f->provisional, name, &found);
  if (found || !written || !k)
    return found ? found : name;
  for (int j = 0; k != name && j < f->n_outs; j++) /* (name's: tried) */
    if (f->outs[j] == k && !f->out_number[j])
      return numbered_output(f, j);
  return name;
}

/* Whether the call's rule reads tensor `name` where its node reads it,
 * after the constants made for that node (nns__aten_op.reads_at_nodes:
 * any tensor argument but the first), not before its constants. */
static bool read_at_node(const nns__front *f, const char *name) {
  return f->reads_at_nodes &&
         !(f->n_reads && f->reads[0] && !strcmp(name, f->reads[0]));
}

/* Under deferred numbering: a tensor the call is the first to read
 * ("\5" KIND NAME: a parameter NAME of kind t, f, b or n (none), a
 * constant from outside, c, or a forward tensor a backward graph reads,
 * i), its initializer made where the call's nodes first read it, as the
 * recorder's rule makes it: among the node's first reads (fe_node_name
 * lays those in the order the node reads them), but a tensor from outside
 * the rule reads at its node; a constant numbered "constN" there, a
 * forward tensor "fwdN" and no initializer (the graph input the recorder
 * declares, after the nodes, under this name). "\5u" and one of those is
 * a tensor the call's entry leaves unread (nns__aten_op.unread): named so
 * only where `unread` allows it (a call nothing lowers, whose node reads
 * every tensor argument, as the recorder's rule for it names them). */
static const char *deferred_fresh_as(nns__front *f, const char *name,
                                     bool unread) {
  void *found;
  const char *k = interned_in(f, &f->provisional, name, &found);
  const char *have = found;
  nns__front_value *v = k ? nns__front_value_of(f, k) : NULL;
  if (have || !v || v->meta.rank < 0)
    return have ? have : name;
  const char *tail = name + 1; /* ["u"] KIND NAME */
  bool marked_unread = *tail == 'u';
  tail += marked_unread;
  char kind = *tail;
  if (!kind) /* "\5" or "\5u" and nothing: no kind, no name */
    return nns__err(f->err, NNS_E_ARG, -1, NULL,
                    "a tensor read first is named '\\5%s': no kind after "
                    "its mark",
                    name + 1),
           NULL;
  if (marked_unread && !unread)
    return nns__err(f->err, NNS_E_ARG, -1, NULL,
                    "the call reads tensor argument '%s', which its entry "
                    "says it leaves unread (nns__aten_op.unread)",
                    name + 1),
           NULL;
  bool outside = kind == 'c' || kind == 'i';
  if (outside) {
    char buf[32];
    size_t stem = kind == 'c' ? 5 : 3;
    memcpy(buf, kind == 'c' ? "const" : "fwd", stem);
    nns__front_decimal(buf + stem, f->at_ahead < f->n_ahead
                                       ? f->ahead[f->at_ahead++]
                                       : ++f->number);
    f->constants += kind == 'c';
    have = nns__front_intern(f, buf);
  } else {
    have = nns__front_intern(f, tail + 1);
  }
  if (!have || !nns__map_put(&f->provisional, k, (void *)have))
    return NULL;
  nns__front_value *w = nns__front_value_add(f, have);
  if (!w)
    return NULL;
  w->meta = v->meta;
  w->weight = kind == 't' || kind == 'f' || kind == 'b';
  if (kind == 'i')
    return have; /* an input: no initializer to lay out */
  bool late = outside && read_at_node(f, name);
  if (!late && f->n_node_reads < 64)
    f->node_reads[f->n_node_reads++] = have;
  f->node_fresh = f->node_fresh || !late;
  nns__builder_inits_after(f->b, (int64_t)f->inits_after);
  nns_status st = nns_builder_add_initializer(
      f->b, have, v->meta.dtype, v->meta.rank, v->meta.dims, NULL, 0, f->err);
  if (st == NNS_OK && kind == 'c')
    st = nns__builder_param_kind(f->b, have, NNS_PARAM_CONSTANT, f->err);
  return st == NNS_OK ? have : NULL;
}

static const char *deferred_fresh(nns__front *f, const char *name) {
  return deferred_fresh_as(f, name, false);
}

/* The bring_real service (aten.h): a complex constant from outside the
 * call reads first ("\5c" K) made its real form's initializer now,
 * (..., 2) of the real dtype and marked so, numbered here as the rule
 * numbers it. */
static nns_status fe_bring_real(void *fe, const char *name) {
  nns__front *f = fe;
  if (!name || name[0] != '\5' || name[1] != 'c')
    return NNS_OK;
  void *found;
  const char *k = interned_in(f, &f->provisional, name, &found);
  nns__front_value *v = k && !found ? nns__front_value_of(f, k) : NULL;
  const int32_t dt = !v                                  ? 0
                     : v->meta.dtype == NNS_DT_COMPLEX64  ? NNS_DT_FLOAT
                     : v->meta.dtype == NNS_DT_COMPLEX128 ? NNS_DT_DOUBLE
                                                          : 0;
  if (!dt || v->meta.rank < 0 || v->meta.rank > 63)
    return NNS_OK;
  int64_t *dims = nns__arena_array(f->arena, (size_t)v->meta.rank + 1,
                                   sizeof *dims);
  if (!dims)
    return nns__front_fail(f, NNS_E_NOMEM, "out of memory");
  for (int32_t d = 0; d < v->meta.rank; d++)
    dims[d] = v->meta.dims[d];
  dims[v->meta.rank] = 2;
  v->meta = (nns__aten_meta){.dtype = dt, .rank = v->meta.rank + 1,
                             .dims = dims, .real_form = true};
  if (deferred_fresh(f, name))
    return NNS_OK;
  return f->err && f->err->code ? f->err->code
                                : nns__front_fail(f, NNS_E_NOMEM,
                                                  "out of memory");
}

/* Those of the call's first reads its nodes did not read, made after
 * its own (a parameter a call takes and leaves), but those the recorder
 * marked as left unread ("\5u" K: nns__aten_op.unread), which it names
 * where a later call reads them. */
nns_status nns__front_deferred_unread(nns__front *f) {
  nns_status st = NNS_OK;
  for (int k = 0; k < f->n_reads && k < 64 && st == NNS_OK; k++)
    if (f->reads[k] && f->reads[k][0] == '\5' && f->reads[k][1] != 'u' &&
        !deferred_fresh(f, f->reads[k]))
      st = f->err && f->err->code ? f->err->code : NNS_E_NOMEM;
  nns__builder_inits_after(f->b, -1);
  return st;
}

/* Under deferred numbering: whether `name` is a tensor from outside
 * ("\5c" or "\5i" NAME) that deferred_fresh will number when read now. */
static bool outside_unread(nns__front *f, const char *name) {
  if (name[0] != '\5' || (name[1] != 'c' && name[1] != 'i'))
    return false;
  void *found;
  const char *k = interned_in(f, &f->provisional, name, &found);
  const nns__front_value *v = k && !found ? nns__front_value_of(f, k) : NULL;
  return v && v->meta.rank >= 0;
}

/* Under deferred numbering, a node's inputs before it reads them. The
 * rule reads a node's inputs in order, numbering a constant from outside
 * and making each constant of its own as it reads it (but where its
 * entry reads_at_nodes: read_at_node); the library made its constants
 * first. Where the node reads a constant from outside
 * before one its call made since the last node (view's Reshape(c, shape)
 * of a plain attribute c), those numbers are dealt again in the order
 * the node reads them: the outside ones' set ahead, the made ones named
 * anew (their initializers with them). False, the error in f->err, when
 * a renaming fails. */
static bool fe_reading(void *fe, const char *const *ins, size_t n) {
  nns__front *f = fe;
  enum { MAX = 16 };
  f->n_ahead = f->at_ahead = 0;
  if (!f->n_since)
    return true;
  const char *seen[MAX];
  bool outside[MAX];
  int m = 0, n_out = 0;
  bool late = false; /* a made one read after an outside one */
  for (size_t k = 0; k < n && m < MAX; k++) {
    const char *name = ins[k];
    for (int j = 0; name && j < f->n_renamed; j++)
      if (f->renamed_from[j] == name) {
        name = f->renamed_to[j];
        break;
      }
    bool out = name && outside_unread(f, name) && !read_at_node(f, name);
    bool made = false;
    for (int j = 0; name && !out && j < f->n_since; j++)
      made = made || f->since[j] == name;
    for (int j = 0; (out || made) && j < m; j++)
      if (seen[j] == name || (out && outside[j] && !strcmp(seen[j], name)))
        out = made = false; /* read again: numbered at the first read */
    if (!out && !made)
      continue;
    seen[m] = name;
    outside[m++] = out;
    n_out += out;
    late = late || (made && n_out);
  }
  int n_made = m - n_out;
  if (!late || f->n_renamed + n_made > MAX)
    return true;
  uint64_t pool[MAX], had[MAX];
  int p = 0;
  for (int j = 0; j < m; j++)
    if (!outside[j])
      pool[p++] = had[j] = strtoull(seen[j] + 1, NULL, 10); /* "cN" */
  for (int i = 1; i <= n_out; i++)
    pool[p++] = f->number + (uint64_t)i;
  for (int i = 1; i < p; i++) /* a few: sorted in place */
    for (int j = i; j > 0 && pool[j - 1] > pool[j]; j--) {
      uint64_t t = pool[j];
      pool[j] = pool[j - 1];
      pool[j - 1] = t;
    }
  const char *from[MAX], *to[MAX];
  int r = 0;
  for (int j = 0; j < m; j++) {
    if (outside[j]) {
      f->ahead[f->n_ahead++] = pool[j];
    } else if (pool[j] != had[j]) {
      from[r] = seen[j];
      if (!(to[r++] = stem_name(f, 'c', pool[j]))) {
        f->n_ahead = 0;
        return nns__err(f->err, NNS_E_NOMEM, -1, NULL, "out of memory"),
               false;
      }
    }
  }
  f->number += (uint64_t)n_out;
  if (r && nns__builder_rename_inits(f->b, from, to, r, f->err) != NNS_OK)
    return false;
  /* all at once, as the builder renames them: a name one renaming gives
   * may be one another gives up (c1 -> c2, c2 -> c3: a Slice's four
   * constants) */
  for (int j = 0; j < f->n_since; j++)
    for (int i = 0; i < r; i++)
      if (f->since[j] == from[i]) {
        f->since[j] = to[i];
        break;
      }
  int before = f->n_renamed; /* the renamings of the call's earlier nodes */
  for (int i = 0; i < r; i++) {
    /* (the lowering's later nodes read them by the names it made) */
    for (int j = 0; j < before; j++)
      if (f->renamed_to[j] == from[i]) {
        from[i] = f->renamed_from[j];
        break;
      }
    f->renamed_from[f->n_renamed] = from[i];
    f->renamed_to[f->n_renamed++] = to[i];
  }
  return true;
}

static const char *fe_numbered(void *fe, const char *name, bool written) {
  nns__front *f = fe;
  if (f->planning && !written)
    plan_read(f, name);
  if (name[0] == '\3' && f->deferred)
    return deferred_output(f, name, written);
  if (name[0] == '\5' && f->deferred)
    return deferred_fresh(f, name);
  for (int j = 0; j < f->n_renamed; j++)
    if (f->renamed_from[j] == name) {
      name = f->renamed_to[j];
      break;
    }
  for (int j = 0; !written && j < f->n_since; j++)
    if (f->since[j] == name && f->n_node_reads < 64)
      f->node_reads[f->n_node_reads++] = name;
  if (name[0] == '\1') {
    const char *k = nns__intern_find(f->strings, name);
    const char *have = k ? nns__map_get(&f->numbered, k) : NULL;
    if (!have || have != k || !written)
      return have ? have : name; /* not this call's: named dangling */
    have = numbered_name(f, 'v');
    return have && nns__map_put(&f->numbered, k, (void *)have) ? have : NULL;
  }
  for (int k = 0; written && k < f->n_outs; k++)
    if (f->outs[k] && !f->out_number[k] && !strcmp(f->outs[k], name))
      f->out_number[k] = (int64_t)++f->number;
  for (int k = 0; !written && k < f->n_reads && k < 64; k++)
    if (f->first_read[k] < 0 && !strcmp(f->reads[k], name)) {
      f->first_read[k] = f->n_read++;
      f->read_after[k] = (int64_t)f->number;
      f->read_seq[k] = f->seq - 1;
    }
  return name;
}

static const char *fe_node_name(void *fe, const char *op_type,
                                const char *domain) {
  nns__front *f = fe;
  if (f->planning)
    plan_node(f);
  if (f->node_fresh && f->n_node_reads > 1)
    nns__builder_inits_in_order(f->b, f->node_reads, f->n_node_reads);
  f->n_since = f->n_node_reads = 0;
  f->n_ahead = f->at_ahead = 0;
  f->node_fresh = false;
  /* the op types a plan reports (nns_aten_numbering); a build keeps none */
  if (f->planning && f->n_ops < 256) { /* "domain:op" outside ONNX's own */
    const char *op = op_type;
    char qualified[300];
    if (domain && *domain) {
      snprintf(qualified, sizeof qualified, "%.120s:%.160s", domain, op_type);
      op = qualified;
    }
    if (!(f->ops[f->n_ops] = nns__front_intern(f, op)))
      return NULL;
  }
  f->n_ops++;
  /* "PATH/OP_N", or "OP_N" at the root */
  const char *path = f->call_prefix && *f->call_prefix ? f->call_prefix
                                                        : NULL;
  size_t lp = path ? strlen(path) + 1 : 0, lo = strlen(op_type);
  size_t need = lp + lo + 22; /* "_", 20 digits at most, NUL */
  char buf[512];
  char *p = need <= sizeof buf ? buf : nns__arena_alloc(f->arena, need);
  if (!p)
    return NULL;
  if (path) {
    memcpy(p, path, lp - 1);
    p[lp - 1] = '/';
  }
  memcpy(p + lp, op_type, lo);
  p[lp + lo] = '_';
  nns__front_decimal(p + lp + lo + 1, f->node_number++);
  return nns__front_intern(f, p);
}

void nns__front_number_next(nns__front *f, uint64_t values, uint64_t nodes,
                            uint64_t inits) {
  f->numbering = true;
  f->number = values;
  f->node_number = nodes;
  f->inits_after = inits;
}

/* An int64 scalar holding input size `sym`: Gather(Shape(input), axis)
 * of the first graph input that has it, made once per symbol (at the
 * model's root: shape arithmetic, which counts nothing). With build
 * false, only whether an input has it (non-NULL: `sym` itself). */
static const char *input_size(nns__front *f, const char *key, bool build) {
  for (int i = 0; i < f->n_inputs; i++) {
    const nns__front_value *v = nns__front_value_of(f, f->inputs[i]);
    for (int k = 0; v && k < v->meta.rank; k++) {
      if (v->meta.dims[k] >= 0 || !v->meta.syms || !v->meta.syms[k] ||
          strcmp(v->meta.syms[k], key))
        continue;
      if (!build)
        return key;
      char shape[300], idx[300], out[300];
      snprintf(shape, sizeof shape, "_nns_shape_%.200s", f->inputs[i]);
      snprintf(idx, sizeof idx, "_nns_axis_%.200s_%d", f->inputs[i], k);
      snprintf(out, sizeof out, "_nns_size_%.200s", key);
      const char *in = f->inputs[i];
      const char *g[] = {shape, idx};
      int64_t axis = k;
      char key_s[320];
      snprintf(key_s, sizeof key_s, "%s#shape", f->inputs[i]);
      const char *made = nns__front_intern(f, key_s);
      if (!made)
        return NULL;
      if (!nns__map_get(&f->symvals, made)) {
        if (nns_builder_add_node(f->b, "Shape", "", shape, "", &in, 1,
                                 (const char *const[]){shape}, 1,
                                 f->err) != NNS_OK ||
            !nns__map_put(&f->symvals, made, (void *)made))
          return NULL;
        f->nodes++;
      }
      if (nns_builder_add_initializer(f->b, idx, NNS_DT_INT64, 0, NULL,
                                      &axis, sizeof axis, f->err) ||
          nns__aten_param_kind(f->b, idx, NNS_PARAM_CONSTANT, f->err) ||
          nns_builder_add_node(f->b, "Gather", "", out, "", g, 2,
                               (const char *const[]){out}, 1, f->err) ||
          nns_builder_attr_int(f->b, "axis", 0, f->err))
        return NULL;
      f->nodes++;
      return nns__front_intern(f, out);
    }
  }
  return NULL;
}

/* ---- Sizes an archive computes ----
 * A .pt2 names a size it computes by sympy's text of it
 * ("Mul(Integer(2), Symbol('s70', positive=True, integer=True),
 * Symbol('s72', positive=True, integer=True))"). Its scalar is made from
 * the symbols' by shape arithmetic: Symbol, Integer, Mul, Add, Max, Min,
 * FloorDiv and CleanDiv (Div: sizes are not negative), Mod and PythonMod.
 * Another form is not read (NULL). Read twice: once to check the whole
 * text (nothing made), then to make its nodes. */
typedef struct expr_rd {
  nns__front *f;
  const char *s;
  bool build;
  int depth;
} expr_rd;

static void expr_space(expr_rd *r) {
  while (*r->s == ' ')
    r->s++;
}

/* `op` over the scalars ins[0..n) into a fresh scalar (built), or a
 * non-NULL mark (checking). */
static const char *expr_node(expr_rd *r, const char *op,
                             const char *const *ins, size_t n) {
  if (!r->build)
    return "";
  const char *out = fe_fresh(r->f);
  if (!out || nns_builder_add_node(r->f->b, op, "", out, "", ins, n, &out, 1,
                                   r->f->err) != NNS_OK)
    return NULL;
  r->f->nodes++;
  return out;
}

static const char *expr_value(expr_rd *r);

/* Symbol('name', assumptions...) after "Symbol(". */
static const char *expr_symbol(expr_rd *r) {
  if (*r->s != '\'')
    return NULL;
  const char *name = ++r->s, *end = strchr(name, '\'');
  if (!end || end == name || end - name > 200)
    return NULL;
  char sym[256];
  memcpy(sym, name, (size_t)(end - name));
  sym[end - name] = 0;
  r->s = end + 1;
  while (*r->s && *r->s != ')' && *r->s != '(')
    r->s++; /* the assumptions: positive=True, integer=True */
  if (*r->s++ != ')')
    return NULL;
  const char *key = nns__front_intern(r->f, sym);
  if (!key)
    return NULL;
  if (!r->build)
    return input_size(r->f, key, false);
  const char *have = nns__map_get(&r->f->symvals, key);
  if (!have && (have = input_size(r->f, key, true)) &&
      !nns__map_put(&r->f->symvals, key, (void *)have))
    return NULL;
  return have;
}

/* Integer(n) after "Integer(". */
static const char *expr_integer(expr_rd *r) {
  char *end;
  long long v = strtoll(r->s, &end, 10);
  if (end == r->s || *end != ')')
    return NULL;
  r->s = end + 1;
  if (!r->build)
    return "";
  const char *out = fe_fresh(r->f);
  int64_t i = v;
  if (!out ||
      nns_builder_add_initializer(r->f->b, out, NNS_DT_INT64, 0, NULL, &i,
                                  sizeof i, r->f->err) != NNS_OK ||
      nns__aten_param_kind(r->f->b, out, NNS_PARAM_CONSTANT, r->f->err))
    return NULL;
  return out;
}

static const char *expr_value(expr_rd *r) {
  expr_space(r);
  const char *id = r->s;
  while ((*r->s >= 'A' && *r->s <= 'Z') || (*r->s >= 'a' && *r->s <= 'z'))
    r->s++;
  size_t len = (size_t)(r->s - id);
  if (!len || *r->s++ != '(' || ++r->depth > 32)
    return NULL;
  const char *out = NULL;
#define IS(word) (len == sizeof word - 1 && !strncmp(id, word, len))
  if (IS("Symbol")) {
    out = expr_symbol(r);
  } else if (IS("Integer")) {
    out = expr_integer(r);
  } else {
    const char *ins[8];
    size_t n = 0;
    for (;;) {
      if (n == 8 || !(ins[n++] = expr_value(r)))
        return NULL;
      expr_space(r);
      if (*r->s == ',') {
        r->s++;
        continue;
      }
      if (*r->s++ != ')')
        return NULL;
      break;
    }
    if (IS("Max") || IS("Min")) {
      out = expr_node(r, IS("Max") ? "Max" : "Min", ins, n);
    } else if (IS("Mul") || IS("Add")) {
      out = ins[0];
      for (size_t k = 1; out && k < n; k++)
        out = expr_node(r, IS("Mul") ? "Mul" : "Add",
                        (const char *const[]){out, ins[k]}, 2);
    } else if (n == 2 && (IS("FloorDiv") || IS("CleanDiv"))) {
      out = expr_node(r, "Div", ins, 2);
    } else if (n == 2 && (IS("Mod") || IS("PythonMod"))) {
      out = expr_node(r, "Mod", ins, 2);
    }
  }
#undef IS
  r->depth--;
  return out;
}

/* The scalar of a size an archive computes, or NULL (see above). */
static const char *expr_size(nns__front *f, const char *key) {
  expr_rd check = {.f = f, .s = key};
  const char *ok = expr_value(&check);
  expr_space(&check);
  if (!ok || *check.s)
    return NULL;
  expr_rd make = {.f = f, .s = key, .build = true};
  return expr_value(&make);
}

/* An int64 scalar holding size `sym`: an input's size, or one computed
 * from them; made once per size. */
static const char *fe_symval(void *fe, const char *sym) {
  nns__front *f = fe;
  const char *key = nns__front_intern(f, sym);
  const char *have = key ? nns__map_get(&f->symvals, key) : NULL;
  if (!key || have)
    return have;
  have = strchr(key, '(') ? expr_size(f, key) : input_size(f, key, true);
  if (have && !nns__map_put(&f->symvals, key, (void *)have))
    return NULL;
  return have;
}

/* ==== A weight's transpose ==== */

/* The fold_t service (aten.h): `out` is weight `w` transposed, made only
 * when something other than a matrix product's right operand reads it.
 * Only where the front marks weights (the .pt2 reader's parameters and
 * buffers, the packed reader's param_kind records) and outside the
 * recorder's numbering: the tape's t() of a weight comes as a record of
 * its own, unnumbered, before the numbered product that reads it
 * (docs/tape.md). */
static nns_status fe_fold_t(void *fe, const char *out, const char *w) {
  nns__front *f = fe;
  nns__front_value *wv = nns__front_value_of(f, w);
  nns__front_value *ov = nns__front_value_of(f, out);
  /* under deferred numbering the recorder sends a t() only where its rule
   * folds: a parameter's, also once changed in place (RWKV rescales its
   * weights at inference), which is no weight of the graph's any more */
  if (f->no_fold || f->numbering || !wv || !(wv->weight || f->deferred) ||
      !ov || ov->rename)
    return NNS_E_NOTFOUND;
  bool again = ov->t_of != NULL; /* the recorder's tape tells it per read */
  ov->t_of = nns__front_intern(f, w);
  ov->t_call = nns__front_intern(f, f->call_prefix);
  ov->t_path = nns__front_intern(f, f->call_path ? f->call_path : "");
  if (!ov->t_of || !ov->t_call || !ov->t_path)
    return nns__front_fail(f, NNS_E_NOMEM, "out of memory");
  f->pending_t += !again;
  return NNS_OK;
}

static const char *fe_folded(void *fe, const char *name) {
  nns__front_value *v = nns__front_value_of(fe, name);
  return v ? v->t_of : NULL;
}

/* Makes the Transpose of value `name` if it is a weight's 2-D transpose
 * not made yet (t_of): the unfold service, and a read by a call that
 * cannot fold it; nothing otherwise. */
static nns_status settle(nns__front *f, const char *name) {
  nns__front_value *v = f->pending_t ? nns__front_value_of(f, name) : NULL;
  if (!v || !v->t_of)
    return NNS_OK;
  const char *w = v->t_of;
  v->t_of = NULL;
  f->pending_t--;
  /* the t() call as it came, now made: a Transpose under its own name */
  nns__aten_arg self = {.name = "self", .kind = NNS__AA_TENSOR,
                        .tensor = w};
  const char *out = nns__front_intern(f, name);
  size_t calls = f->calls;
  const char *prefix = f->call_prefix, *path = f->call_path;
  f->no_fold = true;
  nns_status st = out ? nns__front_call(f, "t", v->t_call, v->t_path, &self,
                                        1, &out, 1)
                      : nns__front_fail(f, NNS_E_NOMEM, "out of memory");
  f->no_fold = false;
  f->calls = calls; /* the t() call was counted when it came */
  f->call_prefix = prefix;
  f->call_path = path;
  return st;
}

static nns_status fe_unfold(void *fe, const char *name) {
  return settle(fe, name);
}

/* The argument of `op` through which a matrix product reads a weight's
 * transpose with transB (its rule folds or unfolds it), or NULL. */
static const char *product_rhs(const char *op) {
  return !strcmp(op, "mm") || !strcmp(op, "addmm") ? "mat2"
         : !strcmp(op, "matmul")                   ? "other"
                                                   : NULL;
}

/* Before a call reads them: the pending transposes among its tensor
 * arguments made, but for a matrix product's right operand (product_rhs)
 * unless `all`. */
static nns_status settle_args(nns__front *f, const char *op,
                              const nns__aten_arg *args, int n_args,
                              bool all) {
  const char *rhs = all ? NULL : product_rhs(op);
  for (int k = 0; k < n_args && f->pending_t; k++) {
    const nns__aten_arg *a = &args[k];
    if (rhs && a->name && !strcmp(a->name, rhs))
      continue;
    int n = a->kind == NNS__AA_TENSOR ? 1
            : a->kind == NNS__AA_TENSORS ? a->n : 0;
    for (int j = 0; j < n; j++) {
      const char *t = a->kind == NNS__AA_TENSOR ? a->tensor : a->tensors[j];
      nns_status st = t ? settle(f, t) : NNS_OK;
      if (st != NNS_OK)
        return st;
    }
  }
  return NNS_OK;
}

/* ==== One call ==== */

/* Under deferred numbering, the tensors a call nothing lowers reads
 * first (roll(c, 1) of a constant c from outside, which the table
 * declines), named before its outputs, as the recorder names the call's
 * uncounted node (Builder.unmapped: each input, then the outputs). */
static nns_status name_first_reads(nns__front *f, const nns__aten_arg *args,
                                   int n_args) {
  for (int k = 0; k < n_args; k++) {
    int n = args[k].kind == NNS__AA_TENSOR    ? 1
            : args[k].kind == NNS__AA_TENSORS ? args[k].n
                                              : 0;
    for (int j = 0; j < n; j++) {
      const char *t = n == 1 && args[k].kind == NNS__AA_TENSOR
                          ? args[k].tensor
                          : args[k].tensors[j];
      if (t && t[0] == '\5' && !deferred_fresh_as(f, t, true)) {
        nns__builder_inits_after(f->b, -1);
        return f->err && f->err->code
                   ? f->err->code
                   : nns__front_fail(f, NNS_E_NOMEM, "out of memory");
      }
    }
  }
  nns__builder_inits_after(f->b, -1);
  return NNS_OK;
}

/* A call nothing lowers: a node of domain pytorch.aten over its tensor
 * arguments, its outputs' sizes declared (uncounted in the report). */
static nns_status unlowered(nns__front *f, const char *op, const char *name,
                            const char *path, const nns__aten_arg *args,
                            int n_args, const char *const *outs,
                            int n_outs) {
  const char *ins[256];
  size_t n_in = 0;
  for (int k = 0; k < n_args; k++) {
    if (args[k].kind == NNS__AA_TENSOR && n_in < 256)
      ins[n_in++] = args[k].tensor;
    for (int j = 0; args[k].kind == NNS__AA_TENSORS && j < args[k].n; j++)
      if (args[k].tensors[j] && n_in < 256)
        ins[n_in++] = args[k].tensors[j];
  }
  for (size_t k = 0; f->deferred && k < n_in; k++)
    if (ins[k] && ins[k][0] == '\5' &&
        !(ins[k] = deferred_fresh_as(f, ins[k], true)))
      return f->err && f->err->code
                 ? f->err->code
                 : nns__front_fail(f, NNS_E_NOMEM, "out of memory");
  const char *real[64] = {NULL};
  int n_real = 0;
  for (int k = 0; k < n_outs && n_real < 64; k++)
    real[n_real++] = outs[k] ? outs[k] : "";
  nns_status st = nns_builder_add_node(f->b, op, "pytorch.aten", name, path,
                                       ins, n_in, real, (size_t)n_real,
                                       f->err);
  if (st != NNS_OK)
    return st;
  f->nodes++;
  for (int k = 0; k < n_real && st == NNS_OK; k++) {
    nns__front_value *v = outs[k] ? nns__front_value_of(f, outs[k]) : NULL;
    if (!v || v->meta.rank < 0)
      continue;
    int64_t dims[64];
    for (int d = 0; d < v->meta.rank && d < 64; d++)
      dims[d] = v->meta.dims[d] < 0 ? -1 : v->meta.dims[d];
    st = nns_builder_add_value_info(f->b, outs[k], v->meta.dtype,
                                    v->meta.rank, dims, v->meta.syms, f->err);
  }
  return st;
}

/* The recorder's numbering of one call, set up: its outputs (and the
 * numbers they take), its tensor arguments (and their first reads), its
 * op types and constants, a fresh map of its placeholders. */
static void number_call(nns__front *f, const nns__aten_arg *args,
                        int n_args, const char *const *outs, int n_outs) {
  f->n_outs = n_outs < 64 ? n_outs : 64;
  for (int k = 0; k < f->n_outs; k++)
    f->outs[k] = outs[k];
  /* (only the call's outputs': nothing reads past n_outs) */
  memset(f->out_number, 0, (size_t)f->n_outs * sizeof *f->out_number);
  memset(f->out_alias, 0xff, (size_t)f->n_outs * sizeof *f->out_alias);
  f->n_ops = 0;
  f->constants = 0;
  f->n_reads = f->n_read = 0;
  f->n_made = f->seq = 0;
  f->n_since = f->n_node_reads = 0; /* (deferred numbering's, per node) */
  f->n_ahead = f->at_ahead = f->n_renamed = 0;
  f->node_fresh = false;
  for (int k = 0; k < n_args; k++) {
    const nns__aten_arg *a = &args[k];
    int n = a->kind == NNS__AA_TENSOR ? 1
            : a->kind == NNS__AA_TENSORS ? a->n : 0;
    for (int j = 0; j < n; j++) {
      const char *t = a->kind == NNS__AA_TENSOR ? a->tensor : a->tensors[j];
      if (!t)
        continue;
      if (f->n_reads < 64) {
        /* a weight's t() the call folds is read as the weight */
        const char *w = f->pending_t ? fe_folded(f, t) : NULL;
        f->reads[f->n_reads] = w ? w : t;
        f->first_read[f->n_reads] = -1;
        f->read_after[f->n_reads] = -1;
        f->read_seq[f->n_reads] = -1;
      }
      f->n_reads++;
    }
  }
  if (f->numbered.count) /* a new map: the old one's slots stay in the */
    f->numbered = (nns__map){.arena = f->arena}; /* arena */
}

/* The table's entry for op, NULL for none, found once per op name: a
 * model calls a few dozen ops thousands of times, and the table's bisection
 * compares op names a few dozen times a call. */
static const nns__aten_op *entry_of(nns__front *f, const char *op) {
  static const char none = 0; /* the cached answer "no entry" */
  const char *key = nns__front_intern(f, op);
  void *hit = key ? nns__map_get(&f->entries, key) : NULL;
  if (hit)
    return hit == &none ? NULL : hit;
  const nns__aten_op *e = nns__aten_find(op);
  if (key) /* out of memory: asked again next time */
    nns__map_put(&f->entries, key, e ? (void *)(uintptr_t)e
                                     : (void *)(uintptr_t)&none);
  return e;
}

nns_status nns__front_call(nns__front *f, const char *op, const char *name,
                           const char *path, const nns__aten_arg *args,
                           int n_args, const char *const *outs, int n_outs) {
  bool any_tensor = false;
  for (int k = 0; k < n_outs; k++)
    any_tensor = any_tensor || outs[k];
  bool numbering = f->numbering;
  nns_status st;
  if (f->pending_t && (st = settle_args(f, op, args, n_args, false)))
    return st;
  f->numbering = false; /* a names record numbers one call */
  f->calls++;
  f->lowered = false;
  if (numbering)
    number_call(f, args, n_args, outs, n_outs);
  f->call_prefix = name;
  f->call_path = path;
  const nns__aten_op *e = entry_of(f, op);
  f->reads_at_nodes = e && e->reads_at_nodes;
  if (e && (any_tensor || e->form == NNS__AF_ALIAS)) {
    nns_model *m = nns__builder_model(f->b);
    bool interned = m && f->strings == &m->strings;
    nns__aten_call c = {.op = op, .name = name, .module_path = path,
                        .n_args = n_args, .args = args, .n_outs = n_outs,
                        .outs = outs, .b = f->b,
                        .err = f->err, .meta = fe_meta, .alias = fe_alias,
                        .real_form = fe_real_form,
                        .bring_real = numbering && f->deferred ? fe_bring_real
                                                               : NULL,
                        .fresh = numbering ? fe_fresh_numbered : fe_fresh,
                        .fresh_const = numbering ? fe_fresh_const : fe_fresh,
                        .node_name = numbering ? fe_node_name : NULL,
                        .numbered = numbering ? fe_numbered : NULL,
                        .reading = numbering && f->deferred ? fe_reading
                                                            : NULL,
                        .names_interned = interned,
                        .symval = fe_symval,
                        .fold_t = numbering ? NULL : fe_fold_t,
                        .folded = fe_folded,
                        .unfold = numbering ? NULL : fe_unfold,
                        .node_count = &f->nodes, .fe = f};
    f->err->code = NNS_OK;
    f->numbering = numbering; /* for the alias service, during the call */
    if (numbering)
      nns__builder_inits_after(f->b, (int64_t)f->inits_after);
    st = nns__aten_lower(&c, e);
    nns__builder_inits_after(f->b, -1);
    f->numbering = false;
    if (st != NNS_E_NOTFOUND) {
      f->lowered = st == NNS_OK;
      return st;
    }
    /* a rule that declines adds nothing first (the table's contract) */
  }
  if (!any_tensor)
    return NNS_OK; /* no tensor comes out: nothing to count or name */
  /* the node below reads its tensors as they are: none may be pending */
  if (f->pending_t && (st = settle_args(f, op, args, n_args, true)))
    return st;
  if (numbering && !(name = fe_node_name(f, op, "pytorch.aten")))
    return nns__front_fail(f, NNS_E_NOMEM, "out of memory");
  if (f->deferred && (st = name_first_reads(f, args, n_args)))
    return st;
  const char *named[64];
  if (numbering && f->deferred) { /* its outputs numbered as written */
    for (int k = 0; k < n_outs && k < 64; k++) {
      named[k] = outs[k] ? deferred_output(f, outs[k], true) : NULL;
      nns__front_value *v = outs[k] ? nns__front_value_of(f, outs[k]) : NULL;
      nns__front_value *w = named[k] && named[k] != outs[k]
                                ? nns__front_value_add(f, named[k])
                                : NULL;
      if (outs[k] && !named[k])
        return nns__front_fail(f, NNS_E_NOMEM, "out of memory");
      if (v && w)
        w->meta = v->meta;
    }
    outs = named;
    n_outs = n_outs < 64 ? n_outs : 64;
  }
  return unlowered(f, op, name, path, args, n_args, outs, n_outs);
}

/* ==== The table's forms, for bindings ==== */

_Static_assert((int)NNS__AF_UNARY == (int)NNS_ATEN_UNARY &&
                   (int)NNS__AF_BINARY == (int)NNS_ATEN_BINARY &&
                   (int)NNS__AF_ALIAS == (int)NNS_ATEN_ALIAS &&
                   (int)NNS__AF_CREATE == (int)NNS_ATEN_CREATE &&
                   (int)NNS__AF_RULE == (int)NNS_ATEN_RULE,
               "aten forms: one numbering");
_Static_assert((int)NNS__AA_NONE == (int)NNS_ATEN_ARG_NONE &&
                   (int)NNS__AA_TENSOR == (int)NNS_ATEN_ARG_TENSOR &&
                   (int)NNS__AA_TENSORS == (int)NNS_ATEN_ARG_TENSORS &&
                   (int)NNS__AA_INT == (int)NNS_ATEN_ARG_INT &&
                   (int)NNS__AA_INTS == (int)NNS_ATEN_ARG_INTS &&
                   (int)NNS__AA_FLOAT == (int)NNS_ATEN_ARG_FLOAT &&
                   (int)NNS__AA_BOOL == (int)NNS_ATEN_ARG_BOOL &&
                   (int)NNS__AA_STRING == (int)NNS_ATEN_ARG_STRING &&
                   (int)NNS__AA_DTYPE == (int)NNS_ATEN_ARG_DTYPE,
               "aten argument kinds: one numbering");

int nns_aten_op_form(size_t i) {
  const nns__aten_op *e = nns__aten_entry(i);
  return e ? e->form : 0;
}

unsigned nns_aten_op_unwritten(size_t i) {
  const nns__aten_op *e = nns__aten_entry(i);
  return e ? e->unwritten : 0;
}

const char *nns_aten_op_unread(size_t i) {
  const nns__aten_op *e = nns__aten_entry(i);
  return e && e->unread ? e->unread : "";
}

const char *nns_aten_op_counted(size_t i) {
  const nns__aten_op *e = nns__aten_entry(i);
  return e && e->counted ? e->counted : "";
}

const char *nns_aten_op_complex(size_t i) {
  return nns__aten_complex_role(nns__aten_entry(i));
}

NNS__NAME_FN(nns_aten_arg_kind_name, NNS_ATEN_ARG_KIND_MAP)
NNS__NAME_FN(nns_aten_form_name, NNS_ATEN_FORM_MAP)
