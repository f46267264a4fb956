/*
 * builddesc.c - reading a builder description into memory and replaying it
 * through the nns_builder API (see builddesc.h; the format is documented
 * in tools/make_builder_desc.py).
 *
 * Reading does all the text work: every line becomes a call record whose
 * arguments are ready (names decoded, numbers parsed, bytes unhexed), as
 * a binding holds them. Replaying is then one switch and one builder call
 * per record, so bench/builder_bench.c times the builder and not a text
 * parser.
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "builddesc.h"

enum { MAX_RANK = 64 };

typedef enum bkind {
  BK_UNKNOWN, BK_NODE, BK_IR_VERSION, BK_PRODUCER, BK_OPSET, BK_META,
  BK_GRAPH_NAME, BK_INPUT, BK_OUTPUT, BK_VALUE_INFO, BK_INIT,
  BK_ATTR_TENSOR, BK_ATTR_TYPE, BK_ATTR_INT, BK_ATTR_FLOAT, BK_ATTR_STRING,
  BK_ATTR_INTS, BK_ATTR_FLOATS, BK_ATTR_STRINGS, BK_BEGIN_GRAPH,
  BK_END_GRAPH
} bkind;

/* One call with its arguments. Arrays point into the description's pools. */
typedef struct bcall {
  bkind kind;
  int lineno;
  const char *s[3];         /* names: see replay() per kind */
  int64_t i;                /* ir_version, opset version, attr value, type */
  double f;
  int dtype, rank;
  const int64_t *dims;      /* rank of them */
  const char *const *syms;  /* rank of them: NULL or a symbol name */
  const char *const *list;  /* node inputs, string attribute values */
  size_t n_list;
  const char *const *list2; /* node outputs */
  size_t n_list2;
  const int64_t *ints;      /* attr_ints (n_list of them) */
  const double *floats;     /* attr_floats (n_list of them) */
  const unsigned char *data; /* tensor bytes, string attribute (NULL: none) */
  size_t data_len;
} bcall;

struct bdesc {
  char *text;      /* the file, split and decoded in place */
  char **tok;      /* tokens of the line being read */
  bcall *calls;
  size_t n_calls;
  /* Pools, one slot per token at most: the records' arrays. */
  int64_t *ipool;
  double *fpool;
  const char **spool;
  size_t n_i, n_f, n_s;
};

/* Hex into bytes, in place (the text is at least twice as long), NUL
 * terminated; the byte count. */
static size_t unhex(char *s) {
  size_t len = strlen(s) / 2;
  for (size_t i = 0; i < len; i++) {
    char hex[3] = {s[2 * i], s[2 * i + 1], 0};
    s[i] = (char)strtol(hex, NULL, 16);
  }
  s[len] = 0;
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

/* The tokens of one line, consumed in order ("" past the end). */
typedef struct cursor {
  char *const *t;
  size_t n, at;
} cursor;

static char *next(cursor *c) { return c->at < c->n ? c->t[c->at++] : ""; }
static long long next_int(cursor *c) { return strtoll(next(c), NULL, 10); }

static const struct {
  const char *name;
  bkind kind;
} kinds[] = {
    {"node", BK_NODE},           {"ir_version", BK_IR_VERSION},
    {"producer", BK_PRODUCER},   {"opset", BK_OPSET},
    {"meta", BK_META},           {"graph_name", BK_GRAPH_NAME},
    {"input", BK_INPUT},         {"output", BK_OUTPUT},
    {"value_info", BK_VALUE_INFO}, {"init", BK_INIT},
    {"attr_tensor", BK_ATTR_TENSOR}, {"attr_type", BK_ATTR_TYPE},
    {"attr_int", BK_ATTR_INT},   {"attr_float", BK_ATTR_FLOAT},
    {"attr_string", BK_ATTR_STRING}, {"attr_ints", BK_ATTR_INTS},
    {"attr_floats", BK_ATTR_FLOATS}, {"attr_strings", BK_ATTR_STRINGS},
    {"begin_graph", BK_BEGIN_GRAPH}, {"end_graph", BK_END_GRAPH},
};

/* `n` names from the cursor into the string pool. */
static const char *const *take_names(bdesc *d, cursor *c, size_t n) {
  const char **out = d->spool + d->n_s;
  for (size_t k = 0; k < n && c->at < c->n; k++)
    d->spool[d->n_s++] = next(c);
  return out;
}

/* DTYPE RANK DIM...: "$name" a symbol, "?" unknown. */
static void take_dims(bdesc *d, cursor *c, bcall *b) {
  b->dtype = (int)next_int(c);
  b->rank = (int)next_int(c);
  int64_t *dims = d->ipool + d->n_i;
  const char **syms = d->spool + d->n_s;
  for (int k = 0; k < b->rank && k < MAX_RANK && c->at < c->n; k++) {
    const char *s = next(c);
    syms[k] = NULL;
    dims[k] = -1;
    if (s[0] == '$')
      syms[k] = s + 1;
    else if (s[0] != '?')
      dims[k] = strtoll(s, NULL, 10);
    d->n_i++;
    d->n_s++;
  }
  b->dims = dims;
  b->syms = syms;
}

/* The last field as bytes (NULL: "-", none). */
static void take_data(cursor *c, bcall *b) {
  char *hex = next(c);
  b->data_len = unhex(hex);
  b->data = b->data_len ? (const unsigned char *)hex : NULL;
}

static void parse(bdesc *d, cursor *c, bcall *b) {
  const char *cmd = next(c);
  b->kind = BK_UNKNOWN;
  b->s[0] = cmd;
  for (size_t k = 0; k < sizeof kinds / sizeof kinds[0]; k++)
    if (!strcmp(cmd, kinds[k].name))
      b->kind = kinds[k].kind;
  switch (b->kind) {
  case BK_NODE: /* op domain name NIN IN... NOUT OUT... */
    b->s[0] = next(c);
    b->s[1] = next(c);
    b->s[2] = next(c);
    b->n_list = (size_t)next_int(c);
    b->list = take_names(d, c, b->n_list);
    b->n_list2 = (size_t)next_int(c);
    b->list2 = take_names(d, c, b->n_list2);
    break;
  case BK_IR_VERSION:
    b->i = next_int(c);
    break;
  case BK_PRODUCER:
  case BK_META:
    b->s[0] = next(c);
    b->s[1] = next(c);
    break;
  case BK_OPSET:
    b->s[0] = next(c);
    b->i = next_int(c);
    break;
  case BK_GRAPH_NAME:
  case BK_END_GRAPH:
    b->s[0] = next(c);
    break;
  case BK_INPUT:
  case BK_OUTPUT:
  case BK_VALUE_INFO:
  case BK_INIT:
    b->s[0] = next(c);
    take_dims(d, c, b);
    if (b->kind == BK_INIT)
      take_data(c, b);
    break;
  case BK_ATTR_TENSOR:
  case BK_ATTR_TYPE:
    b->s[0] = next(c);
    b->i = next_int(c);
    take_dims(d, c, b);
    if (b->kind == BK_ATTR_TENSOR)
      take_data(c, b);
    break;
  case BK_ATTR_INT:
    b->s[0] = next(c);
    b->i = next_int(c);
    break;
  case BK_ATTR_FLOAT:
    b->s[0] = next(c);
    b->f = strtod(next(c), NULL);
    break;
  case BK_ATTR_STRING:
    b->s[0] = next(c);
    take_data(c, b);
    break;
  case BK_ATTR_INTS:
  case BK_ATTR_FLOATS: {
    b->s[0] = next(c);
    b->n_list = (size_t)next_int(c);
    int64_t *iv = d->ipool + d->n_i;
    double *fv = d->fpool + d->n_f;
    for (size_t k = 0; k < b->n_list && c->at < c->n; k++) {
      const char *v = next(c);
      if (b->kind == BK_ATTR_INTS)
        d->ipool[d->n_i++] = strtoll(v, NULL, 10);
      else
        d->fpool[d->n_f++] = strtod(v, NULL);
    }
    b->ints = iv;
    b->floats = fv;
    break;
  }
  case BK_ATTR_STRINGS: {
    b->s[0] = next(c);
    b->n_list = (size_t)next_int(c);
    const char **sv = d->spool + d->n_s;
    for (size_t k = 0; k < b->n_list && c->at < c->n; k++) {
      char *hex = next(c);
      unhex(hex);
      d->spool[d->n_s++] = hex;
    }
    b->list = sv;
    break;
  }
  case BK_BEGIN_GRAPH:
    b->s[0] = next(c);
    b->i = next_int(c);
    break;
  case BK_UNKNOWN:
    break;
  }
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
  /* At most one token per two bytes, one line per two bytes; every pool
   * slot is taken by a token of its own. */
  size_t max_tok = (size_t)size / 2 + 2;
  d->tok = malloc(max_tok * sizeof *d->tok);
  d->calls = calloc(max_tok, sizeof *d->calls);
  d->ipool = malloc(max_tok * sizeof *d->ipool);
  d->fpool = malloc(max_tok * sizeof *d->fpool);
  d->spool = malloc(max_tok * sizeof *d->spool);
  if (!d->tok || !d->calls || !d->ipool || !d->fpool || !d->spool) {
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
      size_t n = 0;
      for (char *s = strtok(line, " "); s; s = strtok(NULL, " ")) {
        decode(s);
        d->tok[n++] = s;
      }
      cursor c = {d->tok, n, 0};
      bcall *b = &d->calls[d->n_calls++];
      b->lineno = lineno;
      parse(d, &c, b);
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
  free(d->calls);
  free(d->ipool);
  free(d->fpool);
  free(d->spool);
  free(d);
}

/* ==== Replay ==== */

static nns_status replay(nns_builder *b, const bcall *c, nns_error *err) {
  switch (c->kind) {
  case BK_NODE:
    return nns_builder_add_node(b, c->s[0], c->s[1], c->s[2], NULL, c->list,
                                c->n_list, c->list2, c->n_list2, err);
  case BK_IR_VERSION:
    return nns_builder_set_ir_version(b, c->i, err);
  case BK_PRODUCER:
    return nns_builder_set_producer(b, c->s[0], c->s[1], err);
  case BK_OPSET:
    return nns_builder_add_opset(b, c->s[0], c->i, err);
  case BK_META:
    return nns_builder_add_metadata(b, c->s[0], c->s[1], err);
  case BK_GRAPH_NAME:
    return nns_builder_set_graph_name(b, c->s[0], err);
  case BK_INPUT:
    return nns_builder_add_input(b, c->s[0], c->dtype, c->rank, c->dims,
                                 c->syms, err);
  case BK_OUTPUT:
    return nns_builder_add_output(b, c->s[0], c->dtype, c->rank, c->dims,
                                  c->syms, err);
  case BK_VALUE_INFO:
    return nns_builder_add_value_info(b, c->s[0], c->dtype, c->rank,
                                      c->dims, c->syms, err);
  case BK_INIT:
    return nns_builder_add_initializer(b, c->s[0], c->dtype, c->rank,
                                       c->dims, c->data, c->data_len, err);
  case BK_ATTR_TENSOR:
    return nns_builder_attr_tensor(b, c->s[0], (nns_attr_type)c->i,
                                   c->dtype, c->rank, c->dims, c->data,
                                   c->data_len, err);
  case BK_ATTR_TYPE:
    return nns_builder_attr_type(b, c->s[0], (nns_attr_type)c->i, c->dtype,
                                 c->rank, c->dims, c->syms, err);
  case BK_ATTR_INT:
    return nns_builder_attr_int(b, c->s[0], c->i, err);
  case BK_ATTR_FLOAT:
    return nns_builder_attr_float(b, c->s[0], c->f, err);
  case BK_ATTR_STRING:
    return nns_builder_attr_string(b, c->s[0], (const char *)c->data,
                                   c->data_len, err);
  case BK_ATTR_INTS:
    return nns_builder_attr_ints(b, c->s[0], c->ints, c->n_list, err);
  case BK_ATTR_FLOATS:
    return nns_builder_attr_floats(b, c->s[0], c->floats, c->n_list, err);
  case BK_ATTR_STRINGS:
    return nns_builder_attr_strings(b, c->s[0], c->list, c->n_list, err);
  case BK_BEGIN_GRAPH:
    return nns_builder_begin_graph(b, c->s[0], (nns_attr_type)c->i, err);
  case BK_END_GRAPH:
    return nns_builder_end_graph(b, err);
  case BK_UNKNOWN:
    break;
  }
  if (err)
    snprintf(err->message, sizeof err->message, "unknown record '%s'",
             c->s[0]);
  return NNS_E_ARG;
}

nns_status bdesc_replay(const bdesc *d, nns_model **out, nns_error *err) {
  *out = NULL;
  nns_builder *b = NULL;
  nns_status st = nns_builder_new(&b, err);
  for (size_t i = 0; st == NNS_OK && i < d->n_calls; i++) {
    st = replay(b, &d->calls[i], err);
    if (st != NNS_OK && err) {
      char msg[sizeof err->message + 32];
      snprintf(msg, sizeof msg, "line %d: %s", d->calls[i].lineno,
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

/* ==== Packing (nns_builder_add_packed) ==== */

typedef struct pbuf {
  unsigned char *p;
  size_t n, cap;
  bool oom;
} pbuf;

static void put(pbuf *b, const void *data, size_t n) {
  if (b->oom)
    return;
  if (b->n + n > b->cap) {
    size_t cap = b->cap ? b->cap * 2 : 4096;
    while (cap < b->n + n)
      cap *= 2;
    unsigned char *p = realloc(b->p, cap);
    if (!p) {
      b->oom = true;
      return;
    }
    b->p = p;
    b->cap = cap;
  }
  memcpy(b->p + b->n, data, n);
  b->n += n;
}

static void put_u8(pbuf *b, unsigned v) {
  unsigned char c = (unsigned char)v;
  put(b, &c, 1);
}
static void put_i32(pbuf *b, int32_t v) { put(b, &v, sizeof v); }
static void put_u32(pbuf *b, uint32_t v) { put(b, &v, sizeof v); }
static void put_i64(pbuf *b, int64_t v) { put(b, &v, sizeof v); }
static void put_f64(pbuf *b, double v) { put(b, &v, sizeof v); }

static void put_str(pbuf *b, const char *s) {
  if (!s) {
    put_u32(b, UINT32_MAX);
    return;
  }
  put_u32(b, (uint32_t)strlen(s));
  put(b, s, strlen(s) + 1);
}

static void put_bytes(pbuf *b, const void *data, size_t n) {
  uint64_t len = data ? (uint64_t)n : UINT64_MAX;
  put(b, &len, sizeof len);
  if (data)
    put(b, data, n);
}

static void put_shape(pbuf *b, const bcall *c) {
  put_i32(b, c->rank);
  for (int k = 0; k < c->rank; k++)
    put_i64(b, c->dims[k]);
}

static void put_type(pbuf *b, const bcall *c) {
  put_shape(b, c);
  put_u8(b, c->syms && c->rank > 0);
  for (int k = 0; c->syms && k < c->rank; k++)
    put_str(b, c->syms[k]);
}

/* Tags of include/nnscan.h's packed layout. */
enum {
  PT_IR_VERSION = 1, PT_PRODUCER, PT_GRAPH_NAME, PT_OPSET, PT_METADATA,
  PT_INPUT, PT_OUTPUT, PT_VALUE_INFO, PT_INITIALIZER, PT_NODE, PT_ATTR_INT,
  PT_ATTR_FLOAT, PT_ATTR_STRING, PT_ATTR_INTS, PT_ATTR_FLOATS,
  PT_ATTR_STRINGS, PT_ATTR_TENSOR, PT_ATTR_TYPE, PT_BEGIN_GRAPH,
  PT_END_GRAPH
};

static void pack_call(pbuf *b, const bcall *c) {
  switch (c->kind) {
  case BK_NODE:
    put_u8(b, PT_NODE);
    put_str(b, c->s[0]);
    put_str(b, c->s[1]);
    put_str(b, c->s[2]);
    put_str(b, NULL); /* module path: from the node name, as replay() */
    put_u32(b, (uint32_t)c->n_list);
    for (size_t k = 0; k < c->n_list; k++)
      put_str(b, c->list[k]);
    put_u32(b, (uint32_t)c->n_list2);
    for (size_t k = 0; k < c->n_list2; k++)
      put_str(b, c->list2[k]);
    return;
  case BK_IR_VERSION:
    put_u8(b, PT_IR_VERSION);
    put_i64(b, c->i);
    return;
  case BK_PRODUCER:
  case BK_META:
    put_u8(b, c->kind == BK_PRODUCER ? PT_PRODUCER : PT_METADATA);
    put_str(b, c->s[0]);
    put_str(b, c->s[1]);
    return;
  case BK_OPSET:
    put_u8(b, PT_OPSET);
    put_str(b, c->s[0]);
    put_i64(b, c->i);
    return;
  case BK_GRAPH_NAME:
    put_u8(b, PT_GRAPH_NAME);
    put_str(b, c->s[0]);
    return;
  case BK_INPUT:
  case BK_OUTPUT:
  case BK_VALUE_INFO:
    put_u8(b, c->kind == BK_INPUT    ? PT_INPUT
              : c->kind == BK_OUTPUT ? PT_OUTPUT
                                     : PT_VALUE_INFO);
    put_str(b, c->s[0]);
    put_i32(b, c->dtype);
    put_type(b, c);
    return;
  case BK_INIT:
    put_u8(b, PT_INITIALIZER);
    put_str(b, c->s[0]);
    put_i32(b, c->dtype);
    put_shape(b, c);
    put_bytes(b, c->data, c->data_len);
    return;
  case BK_ATTR_TENSOR:
    put_u8(b, PT_ATTR_TENSOR);
    put_str(b, c->s[0]);
    put_i32(b, (int32_t)c->i);
    put_i32(b, c->dtype);
    put_shape(b, c);
    put_bytes(b, c->data, c->data_len);
    return;
  case BK_ATTR_TYPE:
    put_u8(b, PT_ATTR_TYPE);
    put_str(b, c->s[0]);
    put_i32(b, (int32_t)c->i);
    put_i32(b, c->dtype);
    put_type(b, c);
    return;
  case BK_ATTR_INT:
    put_u8(b, PT_ATTR_INT);
    put_str(b, c->s[0]);
    put_i64(b, c->i);
    return;
  case BK_ATTR_FLOAT:
    put_u8(b, PT_ATTR_FLOAT);
    put_str(b, c->s[0]);
    put_f64(b, c->f);
    return;
  case BK_ATTR_STRING:
    put_u8(b, PT_ATTR_STRING);
    put_str(b, c->s[0]);
    put_bytes(b, c->data ? c->data : (const unsigned char *)"",
              c->data_len);
    return;
  case BK_ATTR_INTS:
  case BK_ATTR_FLOATS:
  case BK_ATTR_STRINGS:
    put_u8(b, c->kind == BK_ATTR_INTS     ? PT_ATTR_INTS
              : c->kind == BK_ATTR_FLOATS ? PT_ATTR_FLOATS
                                          : PT_ATTR_STRINGS);
    put_str(b, c->s[0]);
    put_u32(b, (uint32_t)c->n_list);
    for (size_t k = 0; k < c->n_list; k++) {
      if (c->kind == BK_ATTR_INTS)
        put_i64(b, c->ints[k]);
      else if (c->kind == BK_ATTR_FLOATS)
        put_f64(b, c->floats[k]);
      else
        put_str(b, c->list[k]);
    }
    return;
  case BK_BEGIN_GRAPH:
    put_u8(b, PT_BEGIN_GRAPH);
    put_str(b, c->s[0]);
    put_i32(b, (int32_t)c->i);
    return;
  case BK_END_GRAPH:
    put_u8(b, PT_END_GRAPH);
    return;
  case BK_UNKNOWN:
    break;
  }
  b->oom = true; /* nothing to pack it as: refuse the description */
}

unsigned char *bdesc_pack(const bdesc *d, size_t *size) {
  pbuf b = {0};
  put(&b, "NNSP", 4);
  put_u32(&b, NNS_PACKED_VERSION);
  for (size_t i = 0; i < d->n_calls; i++)
    pack_call(&b, &d->calls[i]);
  if (b.oom) {
    free(b.p);
    return NULL;
  }
  *size = b.n;
  return b.p;
}
