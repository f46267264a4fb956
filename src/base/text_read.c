/*
 * text_read.c - the one reader of the small text formats that model
 * metadata holds: a JSON object of strings (nnscan.module_types,
 * nnscan.param_kinds) and a Python list literal of strings (torch.export's
 * pkg.torch.onnx.name_scopes and class_hierarchy). Strings come back
 * interned; malformed text is an answer (0 or -1), never a crash, and
 * reading stops at the text's NUL.
 */
#include "vec.h"

typedef NNS__VEC(char) charvec;

/* ==== JSON ==== */

static const char *skip_ws(const char *p) {
  while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r')
    p++;
  return p;
}

/* Steps over c at *p: true; false (and *p left, never past a NUL) when
 * another character is there. */
static bool eat(const char **p, char c) {
  if (**p != c)
    return false;
  (*p)++;
  return true;
}

/* Appends the UTF-8 form of BMP code point v (surrogates kept as they
 * are). */
static bool put_utf8(charvec *buf, unsigned v) {
  if (!nns__vec_reserve(buf, buf->n + 3))
    return false;
  char *o = buf->v + buf->n;
  if (v < 0x80) {
    o[0] = (char)v;
    buf->n += 1;
  } else if (v < 0x800) {
    o[0] = (char)(0xC0 | (v >> 6));
    o[1] = (char)(0x80 | (v & 0x3F));
    buf->n += 2;
  } else {
    o[0] = (char)(0xE0 | (v >> 12));
    o[1] = (char)(0x80 | ((v >> 6) & 0x3F));
    o[2] = (char)(0x80 | (v & 0x3F));
    buf->n += 3;
  }
  return true;
}

/* A JSON string at *p (after its opening quote), unescaped into buf and
 * interned; *p moves past the closing quote. 0: malformed; -1: out of
 * memory; 1: *out set. */
static int json_string(const char **p, nns__interner *in, charvec *buf,
                       const char **out) {
  const char *s = *p;
  buf->n = 0;
  for (;;) {
    char ch = *s++;
    if (ch == '\0')
      return 0;
    if (ch == '"')
      break;
    if (ch == '\\') {
      char e = *s++;
      switch (e) {
      case 'n': ch = '\n'; break;
      case 't': ch = '\t'; break;
      case 'r': ch = '\r'; break;
      case 'b': ch = '\b'; break;
      case 'f': ch = '\f'; break;
      case 'u': {
        unsigned v = 0;
        for (int k = 0; k < 4; k++) {
          char h = *s++;
          v <<= 4;
          if (h >= '0' && h <= '9') v |= (unsigned)(h - '0');
          else if (h >= 'a' && h <= 'f') v |= (unsigned)(h - 'a' + 10);
          else if (h >= 'A' && h <= 'F') v |= (unsigned)(h - 'A' + 10);
          else return 0;
        }
        if (!put_utf8(buf, v))
          return -1;
        continue;
      }
      case '\0': return 0;
      default: ch = e; break; /* \" \\ \/ */
      }
    }
    if (!nns__vec_push(buf, ch))
      return -1;
  }
  *p = s;
  *out = nns__intern(in, buf->v ? buf->v : "", buf->n);
  return *out ? 1 : -1;
}

int nns__read_json_strings(const char *text, nns__interner *in,
                           nns__map *map) {
  charvec buf = {0};
  const char *p = skip_ws(text);
  int r = eat(&p, '{');
  p = skip_ws(p);
  if (r && *p == '}')
    goto done;
  while (r == 1) {
    const char *k = NULL, *val = NULL;
    r = *p == '"' ? (p++, json_string(&p, in, &buf, &k)) : 0;
    p = skip_ws(p);
    if (r == 1)
      r = eat(&p, ':');
    p = skip_ws(p);
    if (r == 1)
      r = *p == '"' ? (p++, json_string(&p, in, &buf, &val)) : 0;
    if (r == 1 && !nns__map_put(map, k, (void *)val))
      r = -1;
    p = skip_ws(p);
    if (r == 1 && *p == '}')
      break;
    if (r == 1)
      r = eat(&p, ',');
    p = skip_ws(p);
  }
done:
  nns__vec_free(&buf);
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
