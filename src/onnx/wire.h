/*
 * wire.h - a zero-copy, bounds-checked protobuf wire decoder.
 *
 * A reader walks one message: a slice [pos, end) of a buffer whose first
 * byte sits at file offset `origin`, so every error names a byte offset
 * from the start of the model file. Each message has a schema (nns__pbmsg)
 * that names its fields and the wire type each must have; nns__wire_next()
 * reads one whole field, checks it against the schema, and skips fields the
 * schema does not know. Nothing is copied: a length-delimited field is a
 * pointer and a length into the buffer.
 *
 * Error codes and the offset each reports:
 *   NNS_E_TRUNCATED  the data ends inside a field (its tag, varint or fixed
 *                    value, or a length that runs past the end of the whole
 *                    buffer); offset of the field's tag.
 *   NNS_E_LENGTH     a length runs past the end of the enclosing message
 *                    while the data itself goes on; offset of the tag.
 *   NNS_E_VARINT     a varint longer than 10 bytes or overflowing 64 bits;
 *                    offset of the varint's first byte.
 *   NNS_E_WIRETYPE   wire type 3/4 (groups), 6/7 (invalid), a wire type the
 *                    schema does not allow for a known field, or field
 *                    number 0; offset of the tag.
 *   NNS_E_DEPTH      entering a message deeper than max_depth; offset of
 *                    the tag of the field that holds it.
 */
#ifndef NNS_WIRE_H
#define NNS_WIRE_H

#include "../base/base.h"

/* ==== Schemas ==== */

/* What a schema allows for one field. */
typedef enum nns__pbkind {
  NNS__PB_UNKNOWN = 0, /* not in the schema: any valid wire type, skipped */
  NNS__PB_VARINT,      /* wire type 0 */
  NNS__PB_I64,         /* wire type 1 */
  NNS__PB_LEN,         /* wire type 2: string, bytes, message */
  NNS__PB_I32,         /* wire type 5 */
  NNS__PB_REP_VARINT,  /* repeated varint: 0, or 2 when packed */
  NNS__PB_REP_I32,     /* repeated fixed32: 5, or 2 when packed */
  NNS__PB_REP_I64      /* repeated fixed64: 1, or 2 when packed */
} nns__pbkind;

typedef struct nns__pbfield {
  const char *name; /* field name for messages; NULL for unknown fields */
  uint8_t kind;     /* nns__pbkind */
} nns__pbfield;

typedef struct nns__pbmsg {
  const char *name;            /* "NodeProto" */
  const nns__pbfield *fields;  /* indexed by field number */
  uint32_t n_fields;           /* highest known field number + 1 */
  /* For one-byte tags (fields 1-15), bit 2 * num + (wire type == LEN):
   * the schema allows a varint (or length-delimited) field num. What
   * nns__wire_next checks first; 0 (as a table made by hand leaves it)
   * sends every field to the general check. */
  uint32_t short_ok;
} nns__pbmsg;

/* ==== Readers and fields ==== */

typedef enum nns__wiretype {
  NNS__WT_VARINT = 0,
  NNS__WT_I64 = 1,
  NNS__WT_LEN = 2,
  NNS__WT_I32 = 5
} nns__wiretype;

typedef struct nns__wire {
  const uint8_t *buf;     /* the whole buffer (file) */
  size_t size;            /* bytes in buf */
  size_t pos;             /* next byte to read */
  size_t end;             /* end of the message being read */
  int64_t origin;         /* file offset of buf[0] */
  int depth;              /* nesting of this message; the root is 0 */
  int max_depth;          /* deepest message allowed */
  const nns__pbmsg *msg;  /* schema of the message being read */
  nns_error *err;         /* where errors go; may be NULL */
} nns__wire;

typedef struct nns__field {
  uint32_t num;           /* field number; 0 at the end of the message */
  uint8_t wt;             /* wire type as found */
  int64_t offset;         /* file offset of the tag */
  uint64_t u;             /* VARINT / I32 / I64 value */
  const uint8_t *data;    /* LEN payload */
  size_t len;             /* LEN payload length */
  size_t pos;             /* position of the payload in buf */
} nns__field;

/* A reader for the root message: all of buf. */
void nns__wire_init(nns__wire *w, const uint8_t *buf, size_t size,
                    int64_t origin, const nns__pbmsg *msg, int max_depth,
                    nns_error *err);

/* What nns__wire_next gives at the end of a message: field number 0 and
 * no value (the offset stays where the reader stopped). */
static inline void nns__field_end(nns__field *f) {
  f->num = 0;
  f->wt = 0;
  f->u = 0;
  f->data = NULL;
  f->len = 0;
  f->pos = 0;
}

/*
 * Reads the next field into f, checking its wire type against the schema.
 * At the end of the message returns NNS_OK with f->num == 0 (f->offset is
 * then left as it was).
 *
 * The common case is inline, since this is the hottest call of a load (a
 * 100k-node graph reads 1.4 million fields): the end of the message, or a
 * varint or length-delimited field with a tag of one or two bytes (field
 * numbers up to 2047) whose value or length takes one or two bytes and
 * whose wire type the schema allows. Anything else, errors included, goes
 * to nns__wire_next_full, which reads the field again from its start; the
 * inline path never fails, it only declines.
 */
nns_status nns__wire_next_full(nns__wire *w, nns__field *f);
/* One bit per wire type, indexed by nns__pbkind: what a field of that kind
 * may have. */
extern const uint8_t nns__wire_allowed[8];

static inline nns_status nns__wire_next(nns__wire *w, nns__field *f) {
  size_t i = w->pos, end = w->end;
  if (i >= end) {
    nns__field_end(f);
    return NNS_OK;
  }
  const uint8_t *p = w->buf + i;
  size_t left = end - i, head = 1;
  unsigned tag = p[0];
  if (tag < 0x80) {
    /* (tag & 5): a wire type other than varint (0) and length (2). */
    if ((tag & 5) || !(w->msg->short_ok >> ((tag >> 2 & ~1u) | (tag >> 1 & 1))
                       & 1))
      return nns__wire_next_full(w, f);
  } else {
    if (left < 2 || p[1] >= 0x80)
      return nns__wire_next_full(w, f);
    tag = (tag & 0x7f) | (unsigned)p[1] << 7;
    head = 2;
    unsigned wt2 = tag & 7, num2 = tag >> 3;
    if ((wt2 != NNS__WT_VARINT && wt2 != NNS__WT_LEN) ||
        (num2 < w->msg->n_fields &&
         !(nns__wire_allowed[w->msg->fields[num2].kind & 7] >> wt2 & 1)))
      return nns__wire_next_full(w, f);
  }
  unsigned wt = tag & 7, num = tag >> 3;
  if (left == head)
    return nns__wire_next_full(w, f);
  /* The value or length: one or two varint bytes. */
  uint64_t v = p[head];
  if (v < 0x80) {
    head += 1;
  } else {
    if (left - head < 2 || p[head + 1] >= 0x80)
      return nns__wire_next_full(w, f);
    v = (v & 0x7f) | (uint64_t)p[head + 1] << 7;
    head += 2;
  }
  f->num = num;
  f->wt = (uint8_t)wt;
  f->offset = w->origin + (int64_t)i;
  if (wt == NNS__WT_VARINT) {
    f->u = v;
    f->data = NULL;
    f->len = 0;
    f->pos = 0;
    w->pos = i + head;
    return NNS_OK;
  }
  if (v > left - head)
    return nns__wire_next_full(w, f); /* runs past the message: it says how */
  f->u = 0;
  f->pos = i + head;
  f->data = p + head;
  f->len = (size_t)v;
  w->pos = i + head + (size_t)v;
  return NNS_OK;
}

/* A reader for the message held in LEN field f (one level deeper).
 * Inline, as every node and attribute is entered; its error is not. */
nns_status nns__wire_too_deep(const nns__wire *w, const nns__field *f);
static inline nns_status nns__wire_enter(const nns__wire *w,
                                         const nns__field *f,
                                         const nns__pbmsg *msg,
                                         nns__wire *sub) {
  /* Filled first, so that no compiler sees it left unset should the
   * error path return NNS_OK (it never does). */
  *sub = *w;
  sub->pos = f->pos;
  sub->end = f->pos + f->len;
  sub->depth = w->depth + 1;
  sub->msg = msg;
  return w->depth + 1 > w->max_depth ? nns__wire_too_deep(w, f) : NNS_OK;
}

/* The schema's name for field f ("NodeProto.input", or "NodeProto field
 * 42"), written into buf. */
const char *nns__wire_fname(const nns__wire *w, const nns__field *f,
                            char *buf, size_t size);

/*
 * Fails with `code` at f's offset: "<Msg.field> at byte N: <message>".
 */
nns_status nns__wire_fail(const nns__wire *w, const nns__field *f,
                          nns_status code, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* ==== Packed payloads ==== */

/*
 * Reads one varint at *pos of p[0..len); `origin` is the file offset of
 * p[0], `what` names the field for messages. NNS_E_TRUNCATED / NNS_E_VARINT.
 */
nns_status nns__wire_varint(const uint8_t *p, size_t len, size_t *pos,
                            uint64_t *out, int64_t origin, const char *what,
                            nns_error *err);

/* Number of varints in a packed payload (counts terminal bytes); fails
 * when the last one is cut. */
nns_status nns__wire_count_varints(const nns__wire *w, const nns__field *f,
                                   size_t *count);

/* Element count of a repeated scalar field occurrence: 1 when unpacked, or
 * the number in its packed payload. elem is 4 or 8 for fixed types and 0
 * for varints. */
nns_status nns__wire_rep_count(const nns__wire *w, const nns__field *f,
                               int elem, size_t *count);

static inline uint32_t nns__le32(const uint8_t *p) {
  return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
         (uint32_t)p[3] << 24;
}
static inline uint64_t nns__le64(const uint8_t *p) {
  return (uint64_t)nns__le32(p) | (uint64_t)nns__le32(p + 4) << 32;
}

#endif
