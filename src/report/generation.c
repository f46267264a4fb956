/*
 * generation.c - the steps of a generation (nns_generation, nnscan.h;
 * docs/generation.md): the figures of a prefill and its decode steps, each
 * copied from its own analysis, the steps between recorded ones linear in
 * the past length, their sums per generated token, and the two renderings
 * of them: the steps' table (text) and the "nnscan.generation" document
 * (JSON, docs/generation.schema.json).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report_int.h"

/* The figures of a step, in the order of the table's and the document's
 * columns: X(member, JSON key, header, bytes, masked). */
#define NNS__GEN_FIGURES(X)                                                    \
  X(flops, "flops", "FLOPs", false, false)                                     \
  X(macs, "macs", "MACs", false, false)                                        \
  X(flops_unmasked, "flops_unmasked", "FLOPs (mask)", false, true)             \
  X(macs_unmasked, "macs_unmasked", "MACs (mask)", false, true)                \
  X(weight_bytes_read, "weight_bytes_read", "Weights", true, false)            \
  X(kv_cache_bytes_read, "kv_cache_bytes_read", "KV read", true, false)        \
  X(kv_cache_bytes_written, "kv_cache_bytes_written", "KV written", true,      \
    false)                                                                     \
  X(kv_cache_bytes, "kv_cache_bytes", "KV cache", true, false)

enum {
#define NNS__GEN_ENUM_(m, key, head, bytes, masked) GEN_##m,
  NNS__GEN_FIGURES(NNS__GEN_ENUM_)
#undef NNS__GEN_ENUM_
  GEN_FIGURES
};

static const struct {
  const char *key; /* as the JSON writer takes it: "\"flops\": " */
  size_t klen;
  const char *head;
  bool bytes, masked;
} figure[GEN_FIGURES] = {
#define NNS__GEN_ROW_(m, key, head, bytes, masked)                             \
  {NNS__JK(key), head, bytes, masked},
    NNS__GEN_FIGURES(NNS__GEN_ROW_)
#undef NNS__GEN_ROW_
};

typedef struct gen_step {
  bool given;          /* set by nns_generation_set_step */
  bool recorded;       /* given, or (after fill) false: interpolated */
  bool partial;        /* the masked counts are at most these */
  int64_t tokens, past;
  int64_t v[GEN_FIGURES];
} gen_step;

struct nns_generation {
  int64_t new_tokens, rows;
  gen_step *steps; /* new_tokens of them, step 0 the prefill */
};

nns_status nns_generation_create(int64_t new_tokens, int64_t rows,
                                 nns_generation **out, nns_error *err) {
  if (out)
    *out = NULL;
  if (!out || new_tokens < 1 || rows < 1 || new_tokens > INT32_MAX ||
      rows > INT32_MAX)
    return nns__report_err(err, NNS_E_ARG,
                           "nns_generation_create: NULL out, or new_tokens "
                           "or rows not between 1 and 2^31 - 1");
  nns_generation *g = calloc(1, sizeof *g);
  gen_step *s = calloc((size_t)new_tokens, sizeof *s);
  if (!g || !s) {
    free(g);
    free(s);
    return nns__report_err(err, NNS_E_NOMEM, "out of memory");
  }
  g->new_tokens = new_tokens;
  g->rows = rows;
  g->steps = s;
  *out = g;
  return NNS_OK;
}

void nns_generation_free(nns_generation *gen) {
  if (!gen)
    return;
  free(gen->steps);
  free(gen);
}

nns_status nns_generation_set_step(nns_generation *gen, int64_t step,
                                   const nns_analysis *analysis,
                                   int64_t tokens, int64_t past,
                                   nns_error *err) {
  if (!gen || !analysis || step < 0 || tokens < 0 || past < 0 ||
      (gen && step >= gen->new_tokens))
    return nns__report_err(err, NNS_E_ARG,
                           "nns_generation_set_step: NULL gen or analysis, "
                           "a step not below new_tokens, or a negative "
                           "step, tokens or past");
  nns_counts k = {.size = sizeof k};
  nns_totals t = {.size = sizeof t};
  nns_status st = nns_analysis_total_counts(analysis, &k);
  if (st == NNS_OK)
    st = nns_analysis_totals(analysis, &t);
  if (st != NNS_OK)
    return nns__report_err(err, st,
                           "nns_generation_set_step: the analysis has no "
                           "totals");
  gen_step *s = &gen->steps[step];
  memset(s, 0, sizeof *s);
  s->given = s->recorded = true;
  s->partial = (k.flags & NNS_COUNT_MASK_UNKNOWN) != 0;
  s->tokens = tokens;
  s->past = past;
  s->v[GEN_flops] = k.flops;
  s->v[GEN_macs] = k.macs;
  s->v[GEN_flops_unmasked] = k.flops_unmasked;
  s->v[GEN_macs_unmasked] = k.macs_unmasked;
  /* No experts: a call reads every weight. */
  s->v[GEN_weight_bytes_read] =
      k.weight_bytes_read ? k.weight_bytes_read : k.param_bytes;
  s->v[GEN_kv_cache_bytes_read] = t.kv_cache_bytes_read;
  s->v[GEN_kv_cache_bytes_written] = t.kv_cache_bytes_written;
  s->v[GEN_kv_cache_bytes] = t.kv_cache_bytes;
  return NNS_OK;
}

/* ==== The steps, filled ==== */

/* Every step: those given as they are, the others linear in the past
 * length between the nearest decode steps given on either side (rounded
 * to the nearest whole, a tie to even). NNS_E_STATE naming a step that is
 * neither. */
static nns_status fill(const nns_generation *g, gen_step *out,
                       nns_error *err) {
  int64_t n = g->new_tokens;
  for (int64_t i = 0; i < n; i++) {
    out[i] = g->steps[i];
    if (out[i].given)
      continue;
    int64_t lo = i - 1, hi = i + 1;
    while (lo >= 1 && !g->steps[lo].given)
      lo--;
    while (hi < n && !g->steps[hi].given)
      hi++;
    if (i == 0 || lo < 1 || hi >= n) {
      char msg[160];
      snprintf(msg, sizeof msg,
               "nns_generation_report: step %lld was not given and is not "
               "between two decode steps given",
               (long long)i);
      return nns__report_err(err, NNS_E_STATE, msg);
    }
    const gen_step *a = &g->steps[lo], *b = &g->steps[hi];
    /* The past grows by one per step, so the fraction of the past length
     * between the two is that of the steps. */
    double f = (double)(i - lo) / (double)(hi - lo);
    gen_step *s = &out[i];
    s->recorded = false;
    s->partial = a->partial || b->partial;
    s->tokens = a->tokens;
    s->past = a->past + (i - lo);
    for (int j = 0; j < GEN_FIGURES; j++)
      s->v[j] = (int64_t)nearbyint((double)a->v[j] +
                                   (double)(b->v[j] - a->v[j]) * f);
  }
  return NNS_OK;
}

/* The sums over every step per generated token, and the cache after the
 * last step. */
static void per_token(const nns_generation *g, const gen_step *s,
                      double *out) {
  double made = (double)(g->new_tokens * g->rows);
  for (int j = 0; j < GEN_FIGURES; j++) {
    int64_t sum = 0;
    for (int64_t i = 0; i < g->new_tokens; i++)
      sum = nns__sum_sat(sum, s[i].v[j]);
    out[j] = (double)sum / made;
  }
  out[GEN_kv_cache_bytes] = (double)s[g->new_tokens - 1].v[GEN_kv_cache_bytes];
}

/* ==== JSON ==== */

/* A per-token figure with the fewest significant digits (15 to 17) that
 * read back as the same double, and a point in it ("10176.0"), as
 * Python's repr writes a float. */
static void json_double(nns__jw *w, const char *key, size_t klen,
                        double v) {
  if (!isfinite(v)) {
    nns__jw_null(w, key, klen);
    return;
  }
  char buf[48];
  for (int p = 15; p <= 17; p++) {
    snprintf(buf, sizeof buf, "%.*g", p, v);
    if (strtod(buf, NULL) == v)
      break;
  }
  if (!strpbrk(buf, ".e"))
    strcat(buf, ".0");
  nns__jw_sep(w, key, klen);
  nns__out_put(w->o, buf, strlen(buf));
}

static void json_doc(nns__jw *w, const nns_generation *g, const gen_step *s,
                     const double *avg, bool dense) {
  nns__jw_obj(w, NNS__JV);
  nns__jw_str(w, NNS__JK("schema"), "nnscan.generation");
  nns__jw_int(w, NNS__JK("schema_version"), 1);
  nns__jw_int(w, NNS__JK("new_tokens"), g->new_tokens);
  nns__jw_int(w, NNS__JK("rows"), g->rows);
  nns__jw_int(w, NNS__JK("generated_tokens"), g->new_tokens * g->rows);
  nns__jw_arr(w, NNS__JK("steps"));
  for (int64_t i = 0; i < g->new_tokens; i++) {
    nns__jw_obj(w, NNS__JV);
    if (i == 0)
      nns__jw_str(w, NNS__JK("step"), "prefill");
    else
      nns__jw_int(w, NNS__JK("step"), i);
    nns__jw_int(w, NNS__JK("tokens"), s[i].tokens);
    nns__jw_int(w, NNS__JK("past"), s[i].past);
    nns__jw_bool(w, NNS__JK("recorded"), s[i].recorded);
    for (int j = 0; j < GEN_FIGURES; j++)
      nns__jw_int(w, figure[j].key, figure[j].klen, s[i].v[j]);
    if (s[i].partial)
      nns__jw_str(w, NNS__JK("unmasked_status"), "partial");
    nns__jw_end(w, NULL);
  }
  nns__jw_end(w, NULL);
  nns__jw_obj(w, NNS__JK("per_token"));
  for (int j = 0; j < GEN_FIGURES; j++) {
    if (j == GEN_kv_cache_bytes)
      nns__jw_int(w, figure[j].key, figure[j].klen,
                  s[g->new_tokens - 1].v[j]);
    else
      json_double(w, figure[j].key, figure[j].klen, avg[j]);
  }
  if (dense)
    nns__jw_str(w, NNS__JK("unmasked_status"), "partial");
  nns__jw_end(w, NULL);
  nns__jw_end(w, NULL);
}

/* ==== Text ==== */

enum { GEN_COLS = 3 + GEN_FIGURES, GEN_CELL = 48 };

/* A count or byte size as `numbers` says, "≤ " in front when `mark`. */
static void cell_number(char *buf, int64_t v, bool bytes, bool mark,
                        nns_numbers numbers) {
  char num[GEN_CELL - 4];
  if (numbers == NNS_NUMBERS_CLEVER)
    nns__fmt_clever(num, sizeof num, v, bytes);
  else
    nns__fmt_int(num, sizeof num, v, true);
  snprintf(buf, GEN_CELL, "%s%s", mark ? "≤ " : "", num);
}

/* The table's cells: the header, a row per step, the per-token row. */
static void text_cells(const nns_generation *g, const gen_step *s,
                       const double *avg, bool dense, nns_numbers numbers,
                       char (*cells)[GEN_COLS][GEN_CELL]) {
  static const char *lead[3] = {"Step", "Tokens", "Past"};
  bool raw = numbers == NNS_NUMBERS_RAW;
  for (int c = 0; c < GEN_COLS; c++) {
    if (c < 3)
      snprintf(cells[0][c], GEN_CELL, "%s", lead[c]);
    else
      snprintf(cells[0][c], GEN_CELL, "%s%s", figure[c - 3].head,
               raw && figure[c - 3].bytes ? " (B)" : "");
  }
  for (int64_t i = 0; i < g->new_tokens; i++) {
    char(*row)[GEN_CELL] = cells[i + 1];
    if (i == 0)
      snprintf(row[0], GEN_CELL, "prefill");
    else
      snprintf(row[0], GEN_CELL, "%lld%s", (long long)i,
               s[i].recorded ? "" : "*");
    nns__fmt_int(row[1], GEN_CELL, s[i].tokens, false);
    nns__fmt_int(row[2], GEN_CELL, s[i].past, false);
    for (int j = 0; j < GEN_FIGURES; j++)
      cell_number(row[3 + j], s[i].v[j], figure[j].bytes,
                  s[i].partial && figure[j].masked, numbers);
  }
  char(*last)[GEN_CELL] = cells[g->new_tokens + 1];
  snprintf(last[0], GEN_CELL, "per token");
  snprintf(last[1], GEN_CELL, "1");
  snprintf(last[2], GEN_CELL, "-");
  for (int j = 0; j < GEN_FIGURES; j++) {
    double x = avg[j] < 9.2e18 ? nearbyint(avg[j]) : 9.2e18;
    cell_number(last[3 + j], (int64_t)x, figure[j].bytes,
                dense && figure[j].masked, numbers);
  }
}

static void text_line(nns__out *o, char (*row)[GEN_CELL], const int *width) {
  for (int c = 0; c < GEN_COLS; c++) {
    int pad = width[c] - nns__utf8_width(row[c]);
    if (c) {
      nns__out_str(o, "  ");
      nns__out_spaces(o, pad);
    }
    nns__out_str(o, row[c]);
    if (!c)
      nns__out_spaces(o, pad);
  }
  nns__out_str(o, "\n");
}

static nns_status text_doc(nns__out *o, const nns_generation *g,
                           const gen_step *s, const double *avg, bool dense,
                           nns_numbers numbers, nns_error *err) {
  size_t lines = (size_t)g->new_tokens + 2;
  char(*cells)[GEN_COLS][GEN_CELL] = calloc(lines, sizeof *cells);
  if (!cells)
    return nns__report_err(err, NNS_E_NOMEM, "out of memory");
  text_cells(g, s, avg, dense, numbers, cells);
  int width[GEN_COLS] = {0}, total = 2 * (GEN_COLS - 1);
  for (size_t r = 0; r < lines; r++)
    for (int c = 0; c < GEN_COLS; c++) {
      int w = nns__utf8_width(cells[r][c]);
      width[c] = w > width[c] ? w : width[c];
    }
  for (int c = 0; c < GEN_COLS; c++)
    total += width[c];
  text_line(o, cells[0], width);
  nns__out_rep(o, "-", total);
  nns__out_str(o, "\n");
  bool between = false;
  for (size_t r = 1; r + 1 < lines; r++) {
    text_line(o, cells[r], width);
    between |= !s[r - 1].recorded;
  }
  nns__out_rep(o, "-", total);
  nns__out_str(o, "\n");
  text_line(o, cells[lines - 1], width);
  free(cells);
  if (dense)
    nns__out_str(o, "≤ masked counts not exact: an attention mask whose "
                    "contents were not known was counted dense (the "
                    "summary's warnings name it)\n");
  if (between)
    nns__out_str(o, "* between recorded steps: linear in the past length\n");
  nns__out_fmt(o,
               "per token: over the %lld tokens generated (%lld rows x %lld "
               "new tokens); KV cache after the last step\n",
               (long long)(g->new_tokens * g->rows), (long long)g->rows,
               (long long)g->new_tokens);
  return NNS_OK;
}

nns_status nns_generation_report(const nns_generation *gen,
                                 nns_report_format format,
                                 nns_numbers numbers, nns_write_fn write,
                                 void *user, nns_error *err) {
  if (!gen || !write ||
      (format != NNS_FORMAT_TEXT && format != NNS_FORMAT_JSON) ||
      (numbers != NNS_NUMBERS_RAW && numbers != NNS_NUMBERS_CLEVER))
    return nns__report_err(err, NNS_E_ARG,
                           "nns_generation_report: NULL gen or write, a "
                           "format other than text or json, or numbers "
                           "other than raw or clever");
  gen_step *s = calloc((size_t)gen->new_tokens, sizeof *s);
  if (!s)
    return nns__report_err(err, NNS_E_NOMEM, "out of memory");
  nns_status st = fill(gen, s, err);
  if (st != NNS_OK) {
    free(s);
    return st;
  }
  double avg[GEN_FIGURES];
  per_token(gen, s, avg);
  bool dense = false;
  for (int64_t i = 0; i < gen->new_tokens; i++)
    dense |= s[i].partial;
  nns__out o;
  nns__out_init(&o, write, user);
  if (format == NNS_FORMAT_JSON) {
    nns__jw jw;
    nns__jw_init(&jw, &o);
    json_doc(&jw, gen, s, avg, dense);
    nns__out_put(&o, "\n", 1);
    st = nns__jw_finish(&jw);
    if (st != NNS_OK)
      st = nns__report_err(err, st, "out of memory");
  } else {
    st = text_doc(&o, gen, s, avg, dense, numbers, err);
  }
  free(s);
  nns_status out = nns__out_finish(&o, err);
  return st != NNS_OK ? st : out;
}
