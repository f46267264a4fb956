/*
 * builddesc.c - reading a builder description into memory and replaying it
 * through the nns_builder API (see builddesc.h; the format is documented
 * in tools/make_builder_desc.py).
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "builddesc.h"

typedef struct bline {
  size_t first, count; /* tokens */
  int lineno;
  /* init / attr_tensor / attr_string: the bytes of the last field, decoded
   * from hex at read time (NULL: none). */
  unsigned char *data;
  size_t data_len;
} bline;

struct bdesc {
  char *text;      /* the file, split and decoded in place */
  char **tok;
  size_t n_tok;
  bline *lines;
  size_t n_lines;
};

/* Hex into bytes, in place (the text is at least twice as long); the
 * byte count. */
static size_t unhex(char *s) {
  size_t len = strlen(s) / 2;
  for (size_t i = 0; i < len; i++) {
    char hex[3] = {s[2 * i], s[2 * i + 1], 0};
    s[i] = (char)strtol(hex, NULL, 16);
  }
  return len;
}

/* Decodes a percent-encoded field in place; "-" is the empty string. */
static void decode(char *s) {
  if (!strcmp(s, "-")) {
    s[0] = 0;
    return;
  }
  char *o = s;
  for (char *p = s; *p; p++) {
    if (*p == '%' && p[1] && p[2]) {
      char hex[3] = {p[1], p[2], 0};
      *o++ = (char)strtol(hex, NULL, 16);
      p += 2;
    } else {
      *o++ = *p;
    }
  }
  *o = 0;
}

bdesc *bdesc_read(const char *path) {
  FILE *f = fopen(path, "rb");
  if (!f)
    return NULL;
  bdesc *d = calloc(1, sizeof *d);
  long size = fseek(f, 0, SEEK_END) == 0 ? ftell(f) : -1;
  if (!d || size < 0 || fseek(f, 0, SEEK_SET) != 0 ||
      !(d->text = malloc((size_t)size + 1)) ||
      fread(d->text, 1, (size_t)size, f) != (size_t)size) {
    fclose(f);
    bdesc_free(d);
    return NULL;
  }
  fclose(f);
  d->text[size] = 0;
  /* At most one token per two bytes, one line per byte. */
  d->tok = malloc(((size_t)size / 2 + 2) * sizeof *d->tok);
  d->lines = malloc(((size_t)size + 2) * sizeof *d->lines);
  if (!d->tok || !d->lines) {
    bdesc_free(d);
    return NULL;
  }
  int lineno = 0;
  for (char *line = d->text; line && *line;) {
    char *nl = strchr(line, '\n');
    if (nl)
      *nl = 0;
    lineno++;
    if (line[0] && line[0] != '#') {
      bline *l = &d->lines[d->n_lines++];
      l->first = d->n_tok;
      l->lineno = lineno;
      for (char *s = strtok(line, " "); s; s = strtok(NULL, " ")) {
        decode(s);
        d->tok[d->n_tok++] = s;
      }
      l->count = d->n_tok - l->first;
      l->data = NULL;
      l->data_len = 0;
      const char *cmd = l->count ? d->tok[l->first] : "";
      if (l->count > 1 && (!strcmp(cmd, "init") ||
                           !strcmp(cmd, "attr_tensor") ||
                           !strcmp(cmd, "attr_string"))) {
        char *hex = d->tok[l->first + l->count - 1];
        l->data_len = unhex(hex);
        l->data = l->data_len ? (unsigned char *)hex : NULL;
      }
    }
    line = nl ? nl + 1 : NULL;
  }
  return d;
}

void bdesc_free(bdesc *d) {
  if (!d)
    return;
  free(d->text);
  free(d->tok);
  free(d->lines);
  free(d);
}

/* ==== Replay ==== */

typedef struct cursor {
  char *const *t;
  size_t n, at;
} cursor;

static const char *next(cursor *c) { return c->at < c->n ? c->t[c->at++] : ""; }
static long long next_int(cursor *c) { return strtoll(next(c), NULL, 10); }

/* Hex into bytes (malloc'ed, *n set); NULL for "" (no data). */
static unsigned char *hex_bytes(const char *s, size_t *n) {
  size_t len = strlen(s) / 2;
  *n = len;
  if (!len)
    return NULL;
  unsigned char *out = malloc(len + 1);
  for (size_t i = 0; out && i < len; i++) {
    char hex[3] = {s[2 * i], s[2 * i + 1], 0};
    out[i] = (unsigned char)strtol(hex, NULL, 16);
  }
  if (out)
    out[len] = 0;
  return out;
}

enum { MAX_RANK = 64, MAX_LIST = 4096 };

/* DTYPE RANK DIM...: "$name" a symbol, "?" unknown. */
static void dims(cursor *c, int *dtype, int *rank, int64_t *d,
                 const char **syms) {
  *dtype = (int)next_int(c);
  *rank = (int)next_int(c);
  for (int k = 0; k < *rank && k < MAX_RANK; k++) {
    const char *s = next(c);
    syms[k] = NULL;
    d[k] = -1;
    if (s[0] == '$')
      syms[k] = s + 1;
    else if (s[0] != '?')
      d[k] = strtoll(s, NULL, 10);
  }
}

static nns_status replay_line(nns_builder *b, cursor *c, const bline *l,
                              nns_error *err) {
  const char *cmd = next(c);
  int64_t dv[MAX_RANK];
  const char *syms[MAX_RANK];
  int dtype, rank;
  if (!strcmp(cmd, "ir_version"))
    return nns_builder_set_ir_version(b, next_int(c), err);
  if (!strcmp(cmd, "producer")) {
    const char *n = next(c);
    return nns_builder_set_producer(b, n, next(c), err);
  }
  if (!strcmp(cmd, "opset")) {
    const char *dom = next(c);
    return nns_builder_add_opset(b, dom, next_int(c), err);
  }
  if (!strcmp(cmd, "meta")) {
    const char *k = next(c);
    return nns_builder_add_metadata(b, k, next(c), err);
  }
  if (!strcmp(cmd, "graph_name"))
    return nns_builder_set_graph_name(b, next(c), err);
  if (!strcmp(cmd, "input") || !strcmp(cmd, "output") ||
      !strcmp(cmd, "value_info")) {
    const char *name = next(c);
    dims(c, &dtype, &rank, dv, syms);
    if (cmd[0] == 'i')
      return nns_builder_add_input(b, name, dtype, rank, dv, syms, err);
    if (cmd[0] == 'o')
      return nns_builder_add_output(b, name, dtype, rank, dv, syms, err);
    return nns_builder_add_value_info(b, name, dtype, rank, dv, syms, err);
  }
  if (!strcmp(cmd, "init") || !strcmp(cmd, "attr_tensor")) {
    bool init = cmd[0] == 'i';
    const char *name = next(c);
    int type = init ? 0 : (int)next_int(c);
    dims(c, &dtype, &rank, dv, syms);
    if (init)
      return nns_builder_add_initializer(b, name, dtype, rank, dv, l->data,
                                         l->data_len, err);
    return nns_builder_attr_tensor(b, name, (nns_attr_type)type, dtype, rank,
                                   dv, l->data, l->data_len, err);
  }
  if (!strcmp(cmd, "node")) {
    const char *op = next(c), *dom = next(c), *name = next(c);
    static const char *ins[MAX_LIST], *outs[MAX_LIST];
    size_t nin = (size_t)next_int(c);
    for (size_t k = 0; k < nin && k < MAX_LIST; k++)
      ins[k] = next(c);
    size_t nout = (size_t)next_int(c);
    for (size_t k = 0; k < nout && k < MAX_LIST; k++)
      outs[k] = next(c);
    return nns_builder_add_node(b, op, dom, name, NULL, ins, nin, outs, nout,
                                err);
  }
  if (!strcmp(cmd, "attr_int")) {
    const char *name = next(c);
    return nns_builder_attr_int(b, name, next_int(c), err);
  }
  if (!strcmp(cmd, "attr_float")) {
    const char *name = next(c);
    return nns_builder_attr_float(b, name, strtod(next(c), NULL), err);
  }
  if (!strcmp(cmd, "attr_string")) {
    const char *name = next(c);
    return nns_builder_attr_string(b, name, (const char *)l->data,
                                   l->data_len, err);
  }
  if (!strcmp(cmd, "attr_ints") || !strcmp(cmd, "attr_floats")) {
    const char *name = next(c);
    size_t n = (size_t)next_int(c);
    static int64_t iv[MAX_LIST];
    static double fv[MAX_LIST];
    for (size_t k = 0; k < n && k < MAX_LIST; k++) {
      const char *v = next(c);
      iv[k] = strtoll(v, NULL, 10);
      fv[k] = strtod(v, NULL);
    }
    return cmd[5] == 'i' ? nns_builder_attr_ints(b, name, iv, n, err)
                         : nns_builder_attr_floats(b, name, fv, n, err);
  }
  if (!strcmp(cmd, "attr_strings")) {
    const char *name = next(c);
    size_t n = (size_t)next_int(c);
    static char *sv[MAX_LIST];
    for (size_t k = 0; k < n && k < MAX_LIST; k++) {
      size_t len;
      sv[k] = (char *)hex_bytes(next(c), &len);
      if (!sv[k])
        sv[k] = calloc(1, 1);
    }
    nns_status st = nns_builder_attr_strings(b, name,
                                             (const char *const *)sv, n, err);
    for (size_t k = 0; k < n && k < MAX_LIST; k++)
      free(sv[k]);
    return st;
  }
  if (!strcmp(cmd, "begin_graph")) {
    const char *name = next(c);
    return nns_builder_begin_graph(b, name, (nns_attr_type)next_int(c), err);
  }
  if (!strcmp(cmd, "end_graph"))
    return nns_builder_end_graph(b, err);
  if (err)
    snprintf(err->message, sizeof err->message, "unknown record '%s'", cmd);
  return NNS_E_ARG;
}

nns_status bdesc_replay(const bdesc *d, nns_model **out, nns_error *err) {
  *out = NULL;
  nns_builder *b = NULL;
  nns_status st = nns_builder_new(&b, err);
  for (size_t i = 0; st == NNS_OK && i < d->n_lines; i++) {
    cursor c = {d->tok + d->lines[i].first, d->lines[i].count, 0};
    st = replay_line(b, &c, &d->lines[i], err);
    if (st != NNS_OK && err) {
      char msg[sizeof err->message + 32];
      snprintf(msg, sizeof msg, "line %d: %s", d->lines[i].lineno,
               err->message);
      memcpy(err->message, msg, sizeof err->message - 1);
      err->message[sizeof err->message - 1] = 0;
    }
  }
  if (st == NNS_OK)
    st = nns_builder_finish(b, out, err);
  nns_builder_free(b);
  return st;
}
