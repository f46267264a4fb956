/*
 * summary_args.c - the values of summary's options that are more than a
 * word: the columns --columns takes (named by the library's column table,
 * nns_column_name), a --parallel mesh and a --budget size. The option
 * table (options.c) calls these; each says on stderr what is wrong.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

/* The words --columns takes, in the table's order (nns_column_name) with
 * "all" after the last column it stands for: word k, NULL past the last. */
const char *cli_column_word(int k) {
  for (int bit = 0; nns_column_name(bit); bit++) {
    unsigned fl = nns_column_flags(bit);
    if (!(fl & NNS_COLUMN_ASKED))
      continue;
    if (!k--)
      return nns_column_name(bit);
    if ((fl & NNS_COLUMN_IN_ALL) &&
        !(nns_column_flags(bit + 1) & NNS_COLUMN_IN_ALL) && !k--)
      return "all";
  }
  return NULL;
}

/* The bits of column word w (n bytes); 0 when it is none. */
static unsigned column_bits(const char *w, size_t n) {
  if (n == 3 && !strncmp(w, "all", 3))
    return NNS_COL_ALL;
  for (int bit = 0; nns_column_name(bit); bit++)
    if ((nns_column_flags(bit) & NNS_COLUMN_ASKED) &&
        strlen(nns_column_name(bit)) == n &&
        !strncmp(w, nns_column_name(bit), n))
      return 1u << bit;
  return 0;
}

bool cli_parse_columns(const char *list, unsigned *out) {
  unsigned set = 0;
  const char *p = list;
  while (*p) {
    size_t n = strcspn(p, ",");
    unsigned bits = column_bits(p, n);
    if (!bits) {
      fprintf(stderr, "nnscan summary: unknown column '%.*s' (", (int)n, p);
      for (int k = 0; cli_column_word(k); k++)
        fprintf(stderr, "%s%s", k ? ", " : "", cli_column_word(k));
      fputs(")\n", stderr);
      return false;
    }
    set |= bits;
    p += n;
    if (*p)
      p++;
  }
  *out = set;
  return true;
}

/* --parallel "fsdp=8,dp=2": false (said) unless every axis is dp or fsdp,
 * named once, with a size from 1 to 2^24 (nns_parallel's range). */
bool cli_parse_parallel(const char *s, nns_parallel *p) {
  const char *at = s;
  bool seen_dp = false, seen_fsdp = false;
  while (*at) {
    const char *eq = strchr(at, '=');
    const char *comma = strchr(at, ',');
    size_t n = eq && (!comma || eq < comma) ? (size_t)(eq - at) : 0;
    char *end = NULL;
    errno = 0;
    long long v = n ? strtoll(eq + 1, &end, 10) : 0;
    if (!n || end == eq + 1 || (*end && *end != ',')) {
      fprintf(stderr, "nnscan summary: --parallel wants AXIS=N pairs such "
                      "as fsdp=8,dp=2, got '%s'\n", s);
      return false;
    }
    bool dp = n == 2 && !strncmp(at, "dp", 2);
    bool fsdp = n == 4 && !strncmp(at, "fsdp", 4);
    if (!dp && !fsdp) {
      bool planned = (n == 2 && !strncmp(at, "tp", 2)) ||
                     (n == 2 && !strncmp(at, "ep", 2));
      fprintf(stderr, planned
                          ? "nnscan summary: --parallel takes dp and fsdp; "
                            "'%.*s' needs a plan of the model's modules: use "
                            "Python's summary(parallel=...)\n"
                          : "nnscan summary: --parallel: unknown axis '%.*s' "
                            "(dp, fsdp; tp and ep from Python)\n",
              (int)n, at);
      return false;
    }
    if (errno == ERANGE || v < 1 || v > (1LL << 24)) {
      fprintf(stderr, "nnscan summary: --parallel: %.*s=%.*s is out of "
                      "range (a size from 1 to %lld)\n", (int)n, at,
              (int)(end - eq - 1), eq + 1, 1LL << 24);
      return false;
    }
    if ((dp && seen_dp) || (fsdp && seen_fsdp)) {
      fprintf(stderr, "nnscan summary: --parallel names %.*s twice in '%s'\n",
              (int)n, at, s);
      return false;
    }
    seen_dp |= dp;
    seen_fsdp |= fsdp;
    if (dp)
      p->dp = v;
    else
      p->fsdp = v;
    at = *end ? end + 1 : end;
  }
  return true;
}

/* --budget "80GB", "16GiB" or bytes: false (said) otherwise. */
bool cli_parse_size(const char *s, int64_t *out) {
  char *end = NULL;
  double v = strtod(s, &end);
  if (end == s || v <= 0) {
    fprintf(stderr, "nnscan summary: --budget wants bytes or a size such as "
                    "80GB, got '%s'\n", s);
    return false;
  }
  static const char units[] = "KMGT";
  const char *u = *end ? strchr(units, end[0] & ~0x20) : NULL;
  double scale = 1;
  if (u) {
    bool bin = end[1] == 'i';
    for (const char *k = units; k <= u; k++)
      scale *= bin ? 1024 : 1000;
    end += 1 + bin;
  }
  if (*end == 'B' || *end == 'b')
    end++;
  if (*end || v * scale >= 9.2e18) {
    fprintf(stderr, "nnscan summary: --budget wants bytes or a size such as "
                    "80GB, got '%s'\n", s);
    return false;
  }
  *out = (int64_t)(v * scale);
  return true;
}
