/*
 * text_read.c - the small text formats that model metadata holds: a JSON
 * object of strings (nnscan.module_types, nnscan.param_kinds; parsed by
 * the one JSON reader, json_reader.c) and a Python list literal of strings
 * (torch.export's pkg.torch.onnx.name_scopes and class_hierarchy). Strings
 * come back interned; malformed text is an answer (0 or -1), never a
 * crash, and reading stops at the text's NUL.
 */
#include "json_reader.h"
#include "vec.h"

typedef NNS__VEC(char) charvec;

/* ==== JSON ==== */

/* Parsed by the one JSON reader (json_reader.c); only the members are
 * interned here. */
int nns__read_json_strings(const char *text, nns__interner *in,
                           nns__map *map) {
  nns__arena tmp;
  nns__arena_init(&tmp);
  nns__jval *v = NULL;
  nns_status st = nns__json_parse(&tmp, text, strlen(text), &v, NULL);
  int r = st == NNS_E_NOMEM ? -1 : st == NNS_OK && v->type == NNS__J_OBJ;
  for (size_t i = 0; r == 1 && i < v->len; i++)
    if (v->items[i]->type != NNS__J_STR)
      r = 0;
  for (size_t i = 0; r == 1 && i < v->len; i++) {
    const char *k = nns__intern_cstr(in, v->keys[i]);
    const char *val = nns__intern(in, v->items[i]->s, v->items[i]->len);
    if (!k || !val || !nns__map_put(map, k, (void *)val))
      r = -1;
  }
  nns__arena_free(&tmp);
  return r;
}

/* ==== Python list literals ==== */

int nns__read_py_strings(const char *text, nns__interner *in,
                         const char **out, int max) {
  charvec buf = {0};
  const char *s = text;
  int n = 0;
  while (*s == ' ')
    s++;
  if (*s++ != '[')
    return -1;
  for (;;) {
    while (*s == ' ' || *s == ',')
      s++;
    if (*s == ']')
      break;
    char q = *s++;
    if (q != '\'' && q != '"') {
      n = -1;
      break;
    }
    buf.n = 0;
    for (; *s && *s != q; s++) {
      if (*s == '\\' && s[1])
        s++;
      if (!nns__vec_push(&buf, *s)) {
        n = -2;
        break;
      }
    }
    if (n < 0)
      break;
    if (*s++ != q) {
      n = -1;
      break;
    }
    const char *str = nns__intern(in, buf.v ? buf.v : "", buf.n);
    if (!str) {
      n = -2;
      break;
    }
    if (n < max)
      out[n++] = str;
  }
  nns__vec_free(&buf);
  return n;
}
