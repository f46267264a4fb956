/*
 * replay.c - the names of packed records read again (replay.h). Each name
 * moves as the recorder's replay moved it (python/nnscan/module_replay.py,
 * `_replay`'s name()): a number the template counted from its start is
 * counted from the replay's, a name under the template's module path is
 * under the replay's, an argument is the replay's own. Anything else (an
 * op, a schema name, a value made before the layer that is not one of its
 * arguments) is itself.
 */
#include "replay.h"

#include <string.h>

#include "front.h"

/* The decimal number at p (n digits, no leading zero but "0"; at most 18,
 * which no count of a graph reaches), or false. */
static bool number_at(const char *p, size_t n, uint64_t *v) {
  if (n == 0 || n > 18 || (n > 1 && p[0] == '0'))
    return false;
  uint64_t x = 0;
  for (size_t k = 0; k < n; k++) {
    if (p[k] < '0' || p[k] > '9')
      return false;
    x = x * 10 + (uint64_t)(p[k] - '0');
  }
  *v = x;
  return true;
}

/* Number n of kind k, moved where the replay counts it (false: not one
 * the template counted). Values and outside constants are numbered after
 * `from` (the counter's value before the first), nodes and calls from it
 * (the counter's next). */
static bool moved(const nns__replay *m, int k, uint64_t n, uint64_t *out) {
  bool after = k == NNS__RP_VALUES || k == NNS__RP_CONSTS;
  uint64_t from = m->from[k];
  bool in = after ? n > from && n - from <= m->count[k]
                  : n >= from && n - from < m->count[k];
  if (in)
    *out = m->to[k] + (n - from);
  return in;
}

/* The length of the digits that end s[0 .. n). */
static size_t trailing_digits(const char *s, size_t n) {
  size_t k = n;
  while (k > 0 && s[k - 1] >= '0' && s[k - 1] <= '9')
    k--;
  return n - k;
}

/* s (n bytes) under the replay's path: written at out with its length,
 * or 0 when it is not under path_from. */
static size_t under(const nns__replay *m, const char *s, size_t n,
                    char *out) {
  size_t lf = m->path_from_len;
  if (n < lf || memcmp(s, m->path_from, lf) != 0 ||
      (s[lf] != 0 && s[lf] != '.' && s[lf] != '/'))
    return 0;
  memcpy(out, m->path_to, m->path_to_len);
  memcpy(out + m->path_to_len, s + lf, n - lf + 1);
  return m->path_to_len + n - lf;
}

const char *nns__replay_name(const nns__replay *m, const char *s, size_t n,
                             char *buf) {
  for (uint32_t k = 0; k < m->n_args; k++)
    if (m->arg_len[k] == n && !memcmp(s, m->arg_from[k], n))
      return m->arg_to[k];
  size_t d;
  uint64_t v, w;
  switch (s[0]) {
  case 2: /* "\2" STEM N: the recorder's value */
    d = trailing_digits(s, n);
    if (d == n - 1 || !number_at(s + n - d, d, &v) ||
        !moved(m, NNS__RP_VALUES, v, &w))
      return s;
    memcpy(buf, s, n - d);
    nns__front_decimal(buf + n - d, w);
    return buf;
  case 3: { /* "\3" K.J: the J-th output of numbered call K */
    const char *dot = strchr(s + 1, '.');
    if (!dot || !number_at(s + 1, (size_t)(dot - s - 1), &v) ||
        !moved(m, NNS__RP_CALLS, v, &w))
      return s;
    buf[0] = 3;
    size_t at = 1 + nns__front_decimal(buf + 1, w);
    memcpy(buf + at, dot, strlen(dot) + 1);
    return buf;
  }
  case 4: { /* "\4" PATH_N: the recorder's node, under the layer's path */
    buf[0] = 4;
    size_t len = under(m, s + 1, n - 1, buf + 1);
    if (!len)
      return s;
    d = trailing_digits(buf + 1, len);
    if (d < len && buf[len - d] == '_' &&
        number_at(buf + 1 + len - d, d, &v) &&
        moved(m, NNS__RP_NODES, v, &w))
      nns__front_decimal(buf + 1 + len - d, w);
    return buf;
  }
  case 5: /* "\5c" K: a constant from outside; "\5" KIND NAME: a tensor */
    if (s[1] == 'c' && number_at(s + 2, n - 2, &v))
      return moved(m, NNS__RP_CONSTS, v, &w)
                 ? (buf[0] = 5, buf[1] = 'c', nns__front_decimal(buf + 2, w),
                    buf)
                 : s;
    if (!s[1])
      return s;
    buf[0] = 5;
    buf[1] = s[1];
    return under(m, s + 2, n - 2, buf + 2) ? buf : s;
  default: /* a module path, a parameter, a weight's t() */
    return under(m, s, n, buf) ? buf : s;
  }
}
