/*
 * deferred.c - the recorder's numbering given by the library (packed
 * record 32, deferred_names; docs/tape.md, "Numbers the library gives").
 *
 * The recorder names what it makes with two counters (values "vN", "cN",
 * "constN"; nodes "PATH/OP_N"), and a call the library lowers takes
 * numbers of both. Under deferred numbering the recorder does not ask
 * what each call takes: it counts only its own values and nodes, names
 * them "\2" STEM N and "\4" PATH_N, and names a numbered call's J-th
 * output "\3" K.J (its K-th numbered call). The library lowers the calls
 * in order and knows what each took, so each of the recorder's numbers
 * from the call's counters on is that many more: a number N of the
 * recorder is N plus what the numbered calls before it took, which is a
 * lookup in the calls' shifts (rising thresholds, so a bisection), exact
 * however late the name is read, once the calls before it are lowered.
 */
#include <string.h>

#include "../base/vec.h"
#include "front.h"

enum { MARK_VALUE = 2, MARK_OUTPUT = 3, MARK_NODE = 4, MARK_FRESH = 5 };

/* What the numbered calls with thresholds up to n took, together. */
static uint64_t shifted(const nns__arena_vec *shifts, uint64_t n) {
  const nns__front_shift *s = shifts->p;
  size_t lo = 0, hi = shifts->n; /* the first of those above n: lo */
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (s[mid].from <= n)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo ? s[lo - 1].by : 0;
}

bool nns__front_trailing_number(const char *s, size_t *stem, uint64_t *n) {
  size_t end = strlen(s), at = end;
  while (at > 0 && s[at - 1] >= '0' && s[at - 1] <= '9')
    at--;
  if (at == end || end - at > 15)
    return false;
  uint64_t v = 0;
  for (size_t k = at; k < end; k++)
    v = v * 10 + (uint64_t)(s[k] - '0');
  *stem = at;
  *n = v;
  return true;
}

const char *nns__front_deferred_name(nns__front *f, const char *s) {
  if (!s || !f->deferred || s[0] < MARK_VALUE || s[0] > MARK_FRESH)
    return s;
  if (s[0] == MARK_OUTPUT || s[0] == MARK_FRESH) {
    const char *k = nns__intern_find(f->strings, s);
    const char *name = k ? nns__map_get(&f->provisional, k) : NULL;
    return name ? name : s; /* its call's own output, being read */
  }
  size_t stem;
  uint64_t n;
  if (!nns__front_trailing_number(s + 1, &stem, &n) || stem > 400)
    return NULL;
  n += shifted(s[0] == MARK_VALUE ? &f->shift_v : &f->shift_n, n);
  char buf[440];
  memcpy(buf, s + 1, stem);
  nns__front_decimal(buf + stem, n);
  return nns__front_intern(f, buf);
}

static nns_status deferred_done(nns__front *f);

void nns__front_deferred_names(nns__front *f, uint64_t values,
                               uint64_t nodes, uint64_t inits) {
  f->call_v = values;
  f->call_n = nodes;
  f->call_numbered = true;
  nns__front_number_next(f, values + f->taken_v, nodes + f->taken_n, inits);
}

nns_status nns__front_deferred_done(nns__front *f, nns_error *err) {
  nns_error local;
  f->err = err ? err : &local; /* (the call's own is gone) */
  nns_status st = deferred_done(f);
  f->err = NULL;
  return st;
}

static nns_status deferred_done(nns__front *f) {
  f->call_numbered = false;
  nns_status st = nns__front_deferred_unread(f);
  if (st)
    return st;
  uint64_t took_v = f->number - (f->call_v + f->taken_v);
  uint64_t took_n = f->node_number - (f->call_n + f->taken_n);
  /* (the recorder's next value after the call is its last one plus 1) */
  nns__front_shift sv = {f->call_v + 1, f->taken_v + took_v};
  nns__front_shift sn = {f->call_n, f->taken_n + took_n};
  nns__front_shift *pv =
      took_v ? nns__arena_vec_push(f->arena, &f->shift_v, sizeof *pv) : &sv;
  nns__front_shift *pn =
      took_n ? nns__arena_vec_push(f->arena, &f->shift_n, sizeof *pn) : &sn;
  if (!pv || !pn)
    return nns__front_fail(f, NNS_E_NOMEM, "out of memory");
  *pv = sv;
  *pn = sn;
  f->taken_v += took_v;
  f->taken_n += took_n;
  /* an output that is an argument under another name reads as that
   * argument's name from here on (one written has its number already) */
  for (int k = 0; k < f->n_outs; k++) {
    if (!f->outs[k] || f->out_number[k] >= 0)
      continue;
    const char *to = nns__front_resolve(f, f->outs[k]);
    if (to && to[0] == '\1') /* a value of the call's, named as written */
      to = nns__map_get(&f->numbered, to);
    if (to && to != f->outs[k] &&
        !nns__map_put(&f->provisional, f->outs[k], (void *)to))
      return nns__front_fail(f, NNS_E_NOMEM, "out of memory");
    nns__front_value *v = nns__front_value_of(f, f->outs[k]), *w;
    if (to && v && v->real) { /* complex, named by its real form `to` */
      if (!(w = nns__front_value_add(f, to)))
        return nns__front_fail(f, NNS_E_NOMEM, "out of memory");
      w->as_complex = v;
    }
  }
  return NNS_OK;
}
