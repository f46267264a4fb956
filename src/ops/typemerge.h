/*
 * typemerge.h - joining the types a value may take on different paths: the
 * two branches of an If, the iterations of a Loop or Scan, the elements of
 * a sequence. Shared by control.c (which defines it) and sequence.c, so
 * that "what do we know when it could be either" has one answer.
 */
#ifndef NNS_OPS_TYPEMERGE_H
#define NNS_OPS_TYPEMERGE_H

#include "op.h"

/*
 * *out = the most precise type both a and b conform to: the kind and dtype
 * they agree on (one unknown: the other's, as a valid model makes them
 * equal); equal ranks keep the dims that are equal and give a fresh symbol
 * where they differ; different or unknown ranks give an unknown rank.
 * out's dims are freshly allocated; out may be a or b.
 */
void nns__type_merge(nns__ictx *cx, const nns__type *a, const nns__type *b,
                     nns__type *out);

#endif
