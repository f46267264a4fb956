/*
 * json_writer.h - the one streaming JSON writer. Every JSON document of
 * the library ("nnscan.summary", "nnscan.shapes", "nnscan.inspect", the
 * table and diff documents, the operator table) is written through it, so
 * separators, escaping and UTF-8 validation live in one place.
 *
 * As yyjson's yyjson_mut_obj_add_int(doc, obj, key, val), every call names
 * the key it writes (NNS__JK("key"), a literal pasted into `"key": ` at
 * compile time) or NNS__JV for an array item, and the writer puts the
 * comma before it itself:
 *
 *     nns__jw w;
 *     nns__jw_init(&w, out);
 *     nns__jw_obj(&w, NNS__JV);
 *     nns__jw_int(&w, NNS__JK("params"), 11689512);
 *     nns__jw_arr(&w, NNS__JK("shape"));
 *     nns__jw_int(&w, NNS__JV, 1);
 *     nns__jw_end(&w, NULL);
 *     nns__jw_end(&w, NULL);
 *     status = nns__jw_finish(&w);      // {"params": 11689512, "shape": [1]}
 *
 * Layout is the caller's to choose, since the documents are read by people
 * too: items are separated by ", " unless a break ("\n    ") was asked for
 * the container (every item on its own line) or for the next item only.
 */
#ifndef NNS_BASE_JSON_WRITER_H
#define NNS_BASE_JSON_WRITER_H

#include "out.h"

/* `"key": ` and its length, for a key that is a literal. */
#define NNS__JK(key) ("\"" key "\": "), (sizeof("\"" key "\": ") - 1)
/* No key: an array item, or the document itself. */
#define NNS__JV NULL, 0

typedef struct nns__jw_level {
  const char *brk; /* written before each item instead of " "; NULL: " " */
  size_t brk_len;
  bool empty;      /* nothing written in this container yet */
  bool array;      /* closes with ']' (else '}') */
} nns__jw_level;

/* A double as nns__jw_double last wrote it (see there). */
typedef struct nns__jw_dbl {
  uint64_t bits;         /* the double's bit pattern */
  int precision;
  bool fixed;            /* "%.*f" rather than "%.*g" */
  uint8_t len;           /* bytes of text; 0: the slot is empty */
  char text[30];
} nns__jw_dbl;

typedef struct nns__jw {
  nns__out *o;
  nns__jw_level *lv;     /* lv[0] is the document; lv[depth] is open */
  size_t depth, cap;
  const char *next_brk;  /* the break before the next item only */
  size_t next_brk_len;
  bool after_key;        /* nns__jw_key wrote a key: no separator next */
  bool nomem;            /* the container stack could not grow */
  nns__jw_level fixed[32]; /* the stack until it needs the heap */
  nns__jw_dbl dbl[8];    /* recent doubles (nns__jw_double) */
  size_t dbl_next;       /* the slot the next new one replaces */
} nns__jw;

void nns__jw_init(nns__jw *w, nns__out *o);
/* Releases the writer: NNS_E_NOMEM if a container could not be opened
 * (the document is then not valid JSON), else NNS_OK. Write errors stay
 * in the nns__out (nns__out_finish reports them). */
nns_status nns__jw_finish(nns__jw *w);

/* Before item `i` of the open container (0: the first). Inline: it runs
 * once per number of a 100k-node summary. */
__attribute__((always_inline)) static inline void
nns__jw_sep(nns__jw *w, const char *key, size_t klen) {
  if (w->after_key) {
    w->after_key = false;
  } else {
    nns__jw_level *l = &w->lv[w->depth];
    if (w->next_brk) {
      if (!l->empty)
        nns__out_put(w->o, ",", 1);
      nns__out_put(w->o, w->next_brk, w->next_brk_len);
      w->next_brk = NULL;
    } else if (l->brk) {
      if (!l->empty)
        nns__out_put(w->o, ",", 1);
      nns__out_put(w->o, l->brk, l->brk_len);
    } else if (!l->empty) {
      nns__out_put(w->o, ", ", 2);
    }
    l->empty = false;
  }
  if (key)
    nns__out_put(w->o, key, klen);
}

/* The next item goes on a line of its own: `ws` ("\n    ") instead of the
 * space after the comma. */
static inline void nns__jw_break(nns__jw *w, const char *ws) {
  w->next_brk = ws;
  w->next_brk_len = strlen(ws);
}

/* A key that is not a literal (a domain name, a value's name): escaped.
 * The next call writes its value with NNS__JV. */
void nns__jw_key(nns__jw *w, const char *key);

/* Opens an object or array; `brk` ("\n    ", or NULL) goes before each of
 * its items. Inline while the container stack has room; past it, the
 * stack grows in nns__jw_open_deep. */
void nns__jw_open_deep(nns__jw *w, const char *key, size_t klen,
                       const char *brk, bool array);
__attribute__((always_inline)) static inline void
nns__jw_open(nns__jw *w, const char *key, size_t klen, const char *brk,
             bool array) {
  if (w->depth + 1 >= w->cap) {
    nns__jw_open_deep(w, key, klen, brk, array);
    return;
  }
  nns__jw_sep(w, key, klen);
  nns__out_put(w->o, array ? "[" : "{", 1);
  nns__jw_level *l = &w->lv[++w->depth];
  l->brk = brk;
  l->brk_len = brk ? strlen(brk) : 0;
  l->empty = true;
  l->array = array;
}
static inline void nns__jw_obj_brk(nns__jw *w, const char *key, size_t klen,
                                   const char *brk) {
  nns__jw_open(w, key, klen, brk, false);
}
static inline void nns__jw_arr_brk(nns__jw *w, const char *key, size_t klen,
                                   const char *brk) {
  nns__jw_open(w, key, klen, brk, true);
}
static inline void nns__jw_obj(nns__jw *w, const char *key, size_t klen) {
  nns__jw_obj_brk(w, key, klen, NULL);
}
static inline void nns__jw_arr(nns__jw *w, const char *key, size_t klen) {
  nns__jw_arr_brk(w, key, klen, NULL);
}
/* Closes the open container, writing `brk` first when it holds anything
 * ("\n  ]" after a list of lines; NULL: nothing). */
void nns__jw_end(nns__jw *w, const char *brk);
/* How many containers are open (0: the document's top level). */
static inline size_t nns__jw_depth(const nns__jw *w) { return w->depth; }

__attribute__((always_inline)) static inline void
nns__jw_int(nns__jw *w, const char *key, size_t klen,
                               int64_t v) {
  nns__jw_sep(w, key, klen);
  nns__out_int(w->o, v);
}
__attribute__((always_inline)) static inline void
nns__jw_bool(nns__jw *w, const char *key, size_t klen,
                                bool v) {
  nns__jw_sep(w, key, klen);
  if (v)
    nns__out_put(w->o, "true", 4);
  else
    nns__out_put(w->o, "false", 5);
}
__attribute__((always_inline)) static inline void
nns__jw_null(nns__jw *w, const char *key, size_t klen) {
  nns__jw_sep(w, key, klen);
  nns__out_put(w->o, "null", 4);
}
/* A double with `precision` significant digits ("%.9g"), or that many
 * decimals when `fixed` ("%.6f"); null when NaN or infinite (JSON has
 * neither). */
void nns__jw_double(nns__jw *w, const char *key, size_t klen, double v,
                    int precision, bool fixed);
/* s as a JSON string (NULL: null); bytes that are not UTF-8 become
 * U+FFFD, control characters (C0, DEL, C1) are escaped. */
void nns__json_strn(nns__out *o, const char *s, size_t n);
static inline void nns__jw_str(nns__jw *w, const char *key, size_t klen,
                               const char *s) {
  nns__jw_sep(w, key, klen);
  if (s)
    nns__json_strn(w->o, s, strlen(s));
  else
    nns__out_put(w->o, "null", 4);
}
/* The first n bytes of s (no NUL needed). */
void nns__jw_strn(nns__jw *w, const char *key, size_t klen, const char *s,
                  size_t n);

/* The escaper itself, for a string written outside a document. */
void nns__json_str(nns__out *o, const char *s);
void nns__json_strn(nns__out *o, const char *s, size_t n);

#endif
