/*
 * json_reader.h - a JSON document read into a tree in an arena: what the
 * diff of two reports reads saved "nnscan.summary" documents with, and the
 * .pt2 reader a torch.export archive's model.json. Strict
 * RFC 8259 (no comments, no trailing commas), iterative (a deep document
 * cannot exhaust the C stack), every error with its byte offset. Numbers
 * keep their int64 value when they are integers that fit. Two rules bound
 * what a document may be, the same for every caller (the CLI, the C API
 * and Python, which reads saved reports through this reader):
 *  - an object with a key twice is refused ("duplicate key 'k' at byte
 *    N", N the second key's opening quote): RFC 8259 leaves it undefined;
 *  - nesting deeper than NNS__JSON_MAX_DEPTH arrays and objects is refused
 *    ("nesting deeper than 256 levels at byte N", N the bracket that goes
 *    too deep), so small input cannot take memory out of proportion.
 */
#ifndef NNS_BASE_JSON_READER_H
#define NNS_BASE_JSON_READER_H

#include "base.h"
#include "json_writer.h"

/* Arrays and objects nested deeper than this are refused. */
#define NNS__JSON_MAX_DEPTH 256
#define NNS__JSON_MAX_DEPTH_TEXT "256"
/* A longer document is refused (NNS_E_LIMIT): every length then fits the
 * tree's 32-bit `len`. */
#define NNS__JSON_MAX_BYTES ((size_t)UINT32_MAX - 1)

typedef enum nns__jtype {
  NNS__J_NULL,
  NNS__J_BOOL,
  NNS__J_NUM,
  NNS__J_STR,
  NNS__J_ARR,
  NNS__J_OBJ
} nns__jtype;

typedef struct nns__jval {
  /* 32 bytes: a model.json holds tens of thousands of values, and the
   * tree is most of what reading it touches. A field belongs to the
   * types its comment names; read it only after checking `type` (the
   * unions share their storage between types). */
  uint8_t type;             /* nns__jtype */
  bool b;                   /* BOOL */
  bool is_int;              /* NUM: an integer that fits int64 (i holds it) */
  uint32_t len;             /* STR: bytes; ARR, OBJ: items (a document is
                               at most NNS__JSON_MAX_BYTES) */
  union {
    int64_t i;                /* NUM */
    const char *s;            /* STR: unescaped, NUL-terminated (may hold
                                 NULs) */
    struct nns__jval **items; /* ARR: the items; OBJ: the members' values */
  };
  union {
    double d;                 /* NUM */
    const char **keys;        /* OBJ: the members' keys, unescaped */
  };
  const uint32_t *index;    /* OBJ of a parse, past 8 members: a hash set of
                               member index + 1 (nns__json_get), or NULL */
} nns__jval;

/* Parses text[0..len) into *out, allocated in `a` (freed with it), as
 * is a copy of the text that the tree's strings point into.
 * NNS_E_JSON with the byte offset in err for anything that is not one
 * JSON value; NNS_E_LIMIT for a document over NNS__JSON_MAX_BYTES;
 * NNS_E_NOMEM. */
nns_status nns__json_parse(nns__arena *a, const char *text, size_t len,
                           nns__jval **out, nns_error *err);

/* A member to read without keeping: `key` wherever it sits in an object
 * that is itself the value of a member named `parent` (any object when
 * parent is NULL). */
typedef struct nns__json_skip {
  const char *parent; /* the enclosing object's own key, or NULL */
  const char *key;    /* the member's key */
} nns__json_skip;

/* nns__json_parse for a document much of which the caller never reads: a
 * member that skip[0..n_skip) names and whose value is a string is
 * checked as any string is (the same errors at the same bytes) but not
 * copied; it reads as null. Any other value of such a member is kept. */
nns_status nns__json_parse_skip(nns__arena *a, const char *text, size_t len,
                                const nns__json_skip *skip, size_t n_skip,
                                nns__jval **out, nns_error *err);

/* Member `key` of an object, or NULL (not an object, or no such key). */
const nns__jval *nns__json_get(const nns__jval *obj, const char *key);
/* Typed reads with a fallback for a missing or mistyped value. */
const char *nns__json_str_or(const nns__jval *v, const char *fallback);
int64_t nns__json_int_or(const nns__jval *v, int64_t fallback);
bool nns__json_bool_or(const nns__jval *v, bool fallback);

/* How a count (params, MACs, bytes) reads: the one rule for every saved
 * document nnscan reads (the CLI's diff and Python's compare alike). */
typedef enum nns__jcount {
  NNS__JC_OK,      /* *out holds it */
  NNS__JC_MISSING, /* no value, or null */
  NNS__JC_BAD      /* present but no count: see nns__json_count */
} nns__jcount;

/* A count is a whole number from 0 to INT64_MAX: an integer, or a number
 * written with a fraction or exponent whose value is whole and at most
 * 2^53 (every such number a double holds exactly, so "3641344000.0", as
 * Python writes a float, reads as 3641344000). A string, a boolean, an
 * array, an object, a fraction, a negative number or one past INT64_MAX
 * is NNS__JC_BAD. */
nns__jcount nns__json_count(const nns__jval *v, int64_t *out);
/* v as a short phrase for an error message ("3.5", "the string \"12\"",
 * "an object"), in buf. */
const char *nns__json_describe(const nns__jval *v, char *buf, size_t size);

/* v written back through the JSON writer (numbers as they were read;
 * past 64 levels of nesting, null). */
void nns__jw_jval(nns__jw *w, const char *key, size_t klen,
                  const nns__jval *v);

#endif
