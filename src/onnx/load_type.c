/*
 * load_type.c - TypeProto and ValueInfoProto into nns__type: the declared
 * dtype, kind and dims of a graph's values and of a type attribute.
 *
 * A shape is decoded in one pass: its dims go to a buffer on the C stack
 * (at most NNS__MAX_RANK) and are copied into an arena array of the final
 * rank. The graph and node decoders call these; they call only the fields
 * layer (load_field.c).
 */
#include <string.h>

#include "load_int.h"

/* One pass: the dims go to a buffer on the C stack (at most
 * NNS__MAX_RANK), then into an arena array of the final rank. */
static nns_status load_shape(nns__loader *L, const nns__wire *w,
                             nns__type *t) {
  nns__wire r = *w, sub;
  nns__field f;
  nns_status st;
  nns__dim dims[NNS__MAX_RANK];
  int32_t n = 0;
  while ((st = nns__wire_next(&r, &f)) == NNS_OK && f.num) {
    if (f.num != NNS__F_SHAPE_DIM)
      continue;
    if (n == NNS__MAX_RANK)
      return nns__wire_fail(&r, &f, NNS_E_LIMIT, "more than %d dims",
                            NNS__MAX_RANK);
    if ((st = nns__wire_enter(&r, &f, &nns__pb_dim, &sub)) != NNS_OK)
      return st;
    /* dim_value and dim_param are a oneof: the last one set wins. A dim
     * with neither, a negative value or an empty name is an unknown of its
     * own. */
    nns__field d;
    int64_t value = -1;
    const char *param = NULL;
    while ((st = nns__wire_next(&sub, &d)) == NNS_OK && d.num) {
      if (d.num == NNS__F_DIM_DIM_VALUE) {
        value = (int64_t)d.u;
        param = NULL;
      } else if (d.num == NNS__F_DIM_DIM_PARAM) {
        if ((st = nns__load_name(L, &d, &param)) != NNS_OK)
          return st;
        value = -1;
      }
    }
    if (st != NNS_OK)
      return st;
    nns__dim *dim = &dims[n++];
    if (value >= 0) {
      *dim = nns__dim_known(value);
    } else {
      dim->v = 0;
      dim->sym = param && param[0] ? nns__sym_named(L->A.m, param)
                                   : nns__sym_fresh(L->A.m);
      if (!dim->sym)
        return nns__load_nomem(L);
    }
  }
  if (st != NNS_OK)
    return st;
  t->rank = n;
  t->dims = NULL;
  if (!n)
    return NNS_OK;
  t->dims = nns__arena_array(L->arena, (size_t)n, sizeof *t->dims);
  if (!t->dims)
    return nns__load_nomem(L);
  nns__dims_copy(t->dims, dims, n);
  return NNS_OK;
}

/* TypeProto.Tensor / TypeProto.SparseTensor. */
static nns_status load_tensor_type(nns__loader *L, const nns__wire *w,
                                   nns__type *t, uint8_t kind) {
  nns__wire r = *w, sub;
  nns__field f;
  nns_status st;
  t->kind = kind;
  while ((st = nns__wire_next(&r, &f)) == NNS_OK && f.num) {
    if (f.num == NNS__F_TT_ELEM_TYPE) {
      t->dtype = (int32_t)f.u;
    } else if (f.num == NNS__F_TT_SHAPE) {
      if ((st = nns__wire_enter(&r, &f, &nns__pb_shape, &sub)) != NNS_OK ||
          (st = load_shape(L, &sub, t)) != NNS_OK)
        return st;
    }
  }
  return st;
}

/* The element type of a sequence or optional, or a map's value type:
 * field `num` of the message w holds a TypeProto. */
static nns_status load_inner_type(nns__loader *L, const nns__wire *w,
                                  uint32_t num, nns__type *inner) {
  nns__wire r = *w, sub;
  nns__field f;
  nns_status st;
  while ((st = nns__wire_next(&r, &f)) == NNS_OK && f.num) {
    if (f.num != num)
      continue;
    if ((st = nns__wire_enter(&r, &f, &nns__pb_type, &sub)) != NNS_OK ||
        (st = nns__load_type(L, &sub, inner)) != NNS_OK)
      return st;
  }
  return st;
}

static void type_unknown(nns__type *t) {
  memset(t, 0, sizeof *t);
  t->rank = -1;
}

nns_status nns__load_type(nns__loader *L, const nns__wire *w, nns__type *t) {
  nns__wire r = *w, sub;
  nns__field f;
  nns_status st;
  type_unknown(t);
  while ((st = nns__wire_next(&r, &f)) == NNS_OK && f.num) {
    const nns__pbmsg *msg = NULL;
    switch (f.num) {
    case NNS__F_TYPE_TENSOR_TYPE:
    case NNS__F_TYPE_SPARSE_TENSOR_TYPE:
      msg = &nns__pb_type_tensor;
      break;
    case NNS__F_TYPE_SEQUENCE_TYPE:
      msg = &nns__pb_type_seq;
      break;
    case NNS__F_TYPE_OPTIONAL_TYPE:
      msg = &nns__pb_type_opt;
      break;
    case NNS__F_TYPE_MAP_TYPE:
      msg = &nns__pb_type_map;
      break;
    default:
      continue; /* denotation, opaque: no type nnscan can use */
    }
    if ((st = nns__wire_enter(&r, &f, msg, &sub)) != NNS_OK)
      return st;
    type_unknown(t); /* a oneof: the last member set wins */
    if (f.num == NNS__F_TYPE_TENSOR_TYPE ||
        f.num == NNS__F_TYPE_SPARSE_TENSOR_TYPE) {
      st = load_tensor_type(L, &sub, t,
                            f.num == NNS__F_TYPE_TENSOR_TYPE
                                ? NNS_KIND_TENSOR
                                : NNS_KIND_SPARSE);
    } else {
      /* Sequence and optional take the dtype and dims of their element;
       * a map keeps its key dtype, and the kind of its values. */
      nns__type inner;
      type_unknown(&inner);
      st = load_inner_type(L, &sub,
                           f.num == NNS__F_TYPE_MAP_TYPE
                               ? NNS__F_TMAP_VALUE_TYPE
                               : NNS__F_TELEM_ELEM_TYPE,
                           &inner);
      if (st == NNS_OK && f.num == NNS__F_TYPE_MAP_TYPE) {
        nns__field k;
        nns__wire kr = sub;
        while ((st = nns__wire_next(&kr, &k)) == NNS_OK && k.num)
          if (k.num == NNS__F_TMAP_KEY_TYPE)
            t->dtype = (int32_t)k.u;
        t->kind = NNS_KIND_MAP;
        t->elem_kind = inner.kind;
      } else if (st == NNS_OK) {
        *t = inner;
        t->elem_kind = inner.kind;
        t->kind = f.num == NNS__F_TYPE_SEQUENCE_TYPE ? NNS_KIND_SEQUENCE
                                                      : NNS_KIND_OPTIONAL;
      }
    }
    if (st != NNS_OK)
      return st;
  }
  return st;
}

nns_status nns__load_value_info(nns__loader *L, const nns__wire *w,
                                const char **name, nns__type **type) {
  nns__wire r = *w, sub;
  nns__field f;
  nns_status st;
  *name = L->A.empty;
  *type = NULL;
  while ((st = nns__wire_next(&r, &f)) == NNS_OK && f.num) {
    if (f.num == NNS__F_VI_NAME) {
      st = nns__load_name(L, &f, name);
    } else if (f.num == NNS__F_VI_TYPE) {
      if (!*type && !(*type = nns__arena_alloc(L->arena, sizeof **type)))
        return nns__load_nomem(L);
      if ((st = nns__wire_enter(&r, &f, &nns__pb_type, &sub)) == NNS_OK)
        st = nns__load_type(L, &sub, *type);
    }
    if (st != NNS_OK)
      return st;
  }
  return st;
}

nns_status nns__load_type_field(nns__loader *L, const nns__wire *w,
                                 const nns__field *f, nns__type **out) {
  nns__wire sub;
  nns__type *t = nns__arena_alloc(L->arena, sizeof *t);
  if (!t)
    return nns__load_nomem(L);
  *out = t;
  nns_status st = nns__wire_enter(w, f, &nns__pb_type, &sub);
  return st != NNS_OK ? st : nns__load_type(L, &sub, t);
}
