/*
 * error.c - status names and messages from the one X-macro list, and the
 * helper every layer uses to fill an nns_error.
 */
#include <stdio.h>
#include <string.h>

#include "base.h"

const char *nns_status_name(nns_status status) {
  switch (status) {
#define NAME_CASE_(name, num, msg)                                             \
  case NNS_##name:                                                             \
    return "NNS_" #name;
    NNS_STATUS_MAP(NAME_CASE_)
#undef NAME_CASE_
  }
  return "NNS_E_UNKNOWN";
}

const char *nns_status_message(nns_status status) {
  switch (status) {
#define MSG_CASE_(name, num, msg)                                              \
  case NNS_##name:                                                             \
    return msg;
    NNS_STATUS_MAP(MSG_CASE_)
#undef MSG_CASE_
  }
  return "unknown status";
}

const char *nns_version(void) { return NNS_VERSION_STRING; }

int nns_abi_version(void) { return NNS_ABI_VERSION; }

/* Copies the fields after `size` that both sides have: min(have, full)
 * bytes in all. */
static void copy_fields(void *dst, const void *src, size_t have,
                        size_t full) {
  size_t n = have < full ? have : full;
  memcpy((char *)dst + sizeof(size_t), (const char *)src + sizeof(size_t),
         n - sizeof(size_t));
}

nns_status nns__put_sized(void *dst, const void *src, size_t full,
                          size_t v1) {
  if (!dst)
    return NNS_E_ARG;
  size_t have;
  memcpy(&have, dst, sizeof have);
  if (have < v1)
    return NNS_E_ARG;
  copy_fields(dst, src, have, full);
  return NNS_OK;
}

nns_status nns__get_sized(void *dst, const void *src, size_t full,
                          size_t v1) {
  memset(dst, 0, full);
  size_t have;
  memcpy(&have, src, sizeof have);
  if (have < v1)
    return NNS_E_ARG;
  copy_fields(dst, src, have, full);
  memcpy(dst, &full, sizeof full);
  return NNS_OK;
}

/* Removes every " at byte -N" from msg. The loader's messages say where
 * a thing sits in the file ("node 'x' (Conv) at byte 812"); a model built
 * in memory (nns_builder_*, the Python recorder) has no file, and its
 * things carry offset -1: their messages say nothing rather than "at byte
 * -1". One place, so no message needs its own case. */
void nns__drop_unknown_offsets(char *msg) {
  static const char pat[] = " at byte -";
  char *at;
  while ((at = strstr(msg, pat)) != NULL) {
    char *end = at + sizeof pat - 1;
    if (*end < '0' || *end > '9') {
      /* Not a number: leave it, and look further on. */
      msg = end;
      continue;
    }
    while (*end >= '0' && *end <= '9')
      end++;
    memmove(at, end, strlen(end) + 1);
    msg = at;
  }
}

nns_status nns__verr(nns_error *err, nns_status code, int64_t offset,
                     const char *node, const char *fmt, va_list ap) {
  if (!err)
    return code;
  err->code = code;
  err->offset = offset;
  snprintf(err->node, sizeof err->node, "%s", node ? node : "");
  vsnprintf(err->message, sizeof err->message, fmt, ap);
  nns__drop_unknown_offsets(err->message);
  return code;
}

nns_status nns__err(nns_error *err, nns_status code, int64_t offset,
                    const char *node, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  nns__verr(err, code, offset, node, fmt, ap);
  va_end(ap);
  return code;
}
