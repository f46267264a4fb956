/*
 * summary.c - nns_report(): the layer table of an analysed model as a text
 * tree (torchscan's layout, with ├─ └─ │ guides and a footer of totals), as
 * CSV and as Markdown; JSON is in json.c, the HTML page in html.c.
 *
 * All three tables are built the same way: pick the layers at or above the
 * chosen depth (a layer's counts already cover its subtree, so cutting the
 * tree is skipping rows), format every cell once into a grid of strings,
 * then lay the grid out for the format. Only the text table measures widths
 * and shortens names.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../base/base.h"
#include "../base/job.h"
#include "../base/vec.h"
#include "report_int.h"

/* ==== Columns ==== */

/* The cells of a row: report_int.h's NNS__CELL_MAP (names.c's nns__cells),
 * as C_LAYER, C_TYPE, ... here. */
enum col_id {
#define COL_ID_(id, title, key, cols, unit, right) C_##id = NNS__CELL_##id,
#define COL_NID_(id, title, key, cols, unit, right, field, low)                \
  C_##id = NNS__CELL_##id,
  NNS__CELL_MAP(COL_ID_, COL_NID_)
#undef COL_ID_
#undef COL_NID_
  C_COUNT = NNS__CELL_COUNT
};

/* ==== The grid ==== */

/* An Output Shape cell as the grid keeps it (cleaned), by what it is made
 * of: the rank and each dim's value and symbol. A graph has a handful of
 * shapes, so the last few are copied rather than formatted and cleaned
 * again. A symbol's short name (#k) is the same every time once given. */
enum { SHAPE_SLOTS = 8, SHAPE_DIMS = 8, SHAPE_TEXT = 128 };
typedef struct shape_slot {
  int rank;                        /* -1: the slot is empty */
  int64_t value[SHAPE_DIMS];       /* each dim's value (-1: symbolic) */
  const char *symbol[SHAPE_DIMS];  /* and its symbol */
  size_t len;                      /* bytes of text */
  int width;                       /* its width in columns */
  char text[SHAPE_TEXT];
} shape_slot;

typedef struct grid {
  size_t rows;          /* layers shown */
  size_t *layer;        /* layer index of each row */
  int ncols;            /* columns shown */
  enum col_id id[C_COUNT];
  /* rows x ncols strings, one after another (a malloc each was a sixth
   * of the page faults of a 100k-layer table), in two parts when the rows
   * were formatted in two halves: cell (r, c) starts at byte
   * off[r * ncols + c] of `text` followed by `text2` (cell()). */
  NNS__VEC(char) text, text2;
  size_t *off;          /* rows x ncols + 1: the last is the bytes of both */
  uint16_t *cell_width; /* text: each cell's width in columns */
  int width[C_COUNT];   /* widest cell of each column (Layer: with guides) */
  /* Text: the tree guides of each row's Layer cell, one after another in
   * `guides` as the cells are (a malloc each was a tenth of the text
   * report), row r's at guides.v[guide_off[r]], guide_width[r] columns. */
  NNS__VEC(char) guides;
  size_t *guide_off;
  int *guide_width;
  /* Text and Markdown: the long dim expressions shown as #1, #2, ... (in
   * order of first appearance), the model's own strings. */
  const char **alias;
  size_t n_alias, cap_alias;
  bool alias_oom;
} grid;

/* The rows from..to of a grid being filled: on the calling thread, or
 * for a large table the second half on a job of its own (grid_build).
 * Until grid_join, cell (r, c) starts at cells.v[g->off[r * ncols + c]]
 * of its part; each part writes only its own rows' entries of g's
 * arrays. */
typedef struct grid_part {
  grid *g;
  const nns_analysis *a;
  const nns_report_options *o;
  bool csv, text, want_rf;
  const char *root_name;
  nns_counts all;
  size_t from, to;
  NNS__VEC(char) cells;
  int width[C_COUNT];            /* widest cell of each column here */
  shape_slot shape[SHAPE_SLOTS]; /* recent Output Shape cells */
  size_t shape_next;             /* the slot the next new one takes */
  char alias_buf[32];
  /* The second half cannot number a long expression's #k before the first
   * half has numbered its own: it gives up at the first one, and the
   * calling thread fills those rows after its own. */
  bool second;
  bool gave_up;
  nns_status st;
} grid_part;

static const char *cell(const grid *g, size_t r, int c) {
  size_t at = g->off[r * (size_t)g->ncols + (size_t)c];
  return at < g->text.n ? g->text.v + at : g->text2.v + (at - g->text.n);
}

static const char *guide(const grid *g, size_t r) {
  return g->guides.v + g->guide_off[r];
}

/* Bytes of cell (r, c), its NUL not counted. */
static size_t cell_len(const grid *g, size_t r, int c) {
  size_t k = r * (size_t)g->ncols + (size_t)c;
  return g->off[k + 1] - g->off[k] - 1;
}

static void grid_free(grid *g) {
  nns__vec_free(&g->text);
  nns__vec_free(&g->text2);
  free(g->off);
  free(g->cell_width);
  nns__vec_free(&g->guides);
  free(g->guide_off);
  free(g->guide_width);
  free(g->layer);
  free(g->alias);
}

/* ==== Short names for long dim expressions ==== */

/*
 * A dim that shape arithmetic made from named dims prints as its
 * expression: paddle2onnx inputs named p2o.DynamicDimension.N through six
 * stride-2 convolutions give ((((((p2o.DynamicDimension.1+1)/2+1)/2...,
 * hundreds of characters per shape. In the text table and Markdown, an
 * expression (a name holding + - * / or %) longer than ALIAS_MIN
 * characters is printed as #k, k numbered by first appearance, and
 * dim_legend() lists each once under the table, written with the other
 * short names it contains. CSV and JSON keep the expressions.
 */
enum { ALIAS_MIN = 16 };

static bool long_expression(const char *sym) {
  return strlen(sym) > ALIAS_MIN && strpbrk(sym, "+-*/%") != NULL;
}

static const char *alias_name(void *ctx, const char *sym) {
  grid_part *p = ctx;
  grid *g = p->g;
  if (!long_expression(sym))
    return sym;
  if (p->second) {
    p->gave_up = true;
    return sym;
  }
  size_t k = 0;
  while (k < g->n_alias && strcmp(g->alias[k], sym) != 0)
    k++;
  if (k == g->n_alias) {
    const char **a =
        nns__grow(g->alias, &g->cap_alias, g->n_alias + 1, sizeof *a, 8);
    if (!a) {
      g->alias_oom = true;
      return sym;
    }
    g->alias = a;
    g->alias[g->n_alias++] = sym;
  }
  snprintf(p->alias_buf, sizeof p->alias_buf, "#%zu", k + 1);
  return p->alias_buf;
}

static bool name_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
         (c >= '0' && c <= '9') || c == '_' || c == '.' || c == '#';
}

/* Writes expression `e` with every other short name's expression that
 * stands whole in it (not inside a longer name) replaced by its #k,
 * longest first, so each legend line reads like one step of the
 * arithmetic: #2 = (#1+1)/2. */
static void legend_line(nns__out *o, const grid *g, size_t self, bool md) {
  const char *e = g->alias[self];
  size_t len = strlen(e);
  for (size_t i = 0; i < len;) {
    size_t best = (size_t)-1, best_len = 0;
    for (size_t k = 0; k < g->n_alias; k++) {
      size_t kl = strlen(g->alias[k]);
      if (k == self || kl <= best_len || kl > len - i ||
          memcmp(e + i, g->alias[k], kl) != 0)
        continue;
      if ((i > 0 && name_char(e[i - 1])) ||
          (i + kl < len && name_char(e[i + kl])))
        continue;
      best = k;
      best_len = kl;
    }
    if (best != (size_t)-1) {
      nns__out_fmt(o, "#%zu", best + 1);
      i += best_len;
    } else {
      char c[2] = {e[i], 0};
      nns__note_text(o, c, md);
      i++;
    }
  }
}

static void dim_legend(nns__out *o, const grid *g, const char *indent,
                       bool md) {
  for (size_t k = 0; k < g->n_alias; k++) {
    nns__out_fmt(o, "%s#%zu = ", indent, k + 1);
    legend_line(o, g, k, md);
    nns__out_str(o, "\n");
  }
}

/* A count cell: "≥ " in front when the count misses uncounted nodes. */
static void count_cell(char *buf, size_t size, int64_t v, int64_t total,
                       unsigned flags, const nns_report_options *o, bool csv,
                       bool bytes) {
  char num[64];
  nns__fmt_number(num, sizeof num, v, total, o->numbers, bytes, csv);
  /* CSV has a flags column; a "≥" would only stop a number parsing. */
  snprintf(buf, size, "%s%s", (flags & NNS_COUNT_PARTIAL) && !csv ? "≥ " : "",
           num);
}

/* The cell of an N row of NNS__CELL_MAP: its nns_counts field of k over
 * the total's, "≥ " in front where it says so. */
static void number_cell(char *buf, size_t size, const nns__cell_def *def,
                        const nns_counts *k, const nns_counts *all,
                        const nns_report_options *o, bool csv) {
  int64_t v, total;
  memcpy(&v, (const char *)k + (def->field - 1), sizeof v);
  memcpy(&total, (const char *)all + (def->field - 1), sizeof total);
  bool bytes = def->unit[0] == 'b';
  if (def->low && (k->flags & NNS_COUNT_PARTIAL) && !csv)
    count_cell(buf, size, v, total, k->flags, o, csv, bytes);
  else
    nns__fmt_number(buf, size, v, total, o->numbers, bytes, csv);
}

/* An unmasked count: "≥" as any count where a node was not counted, "≤"
 * where a mask whose contents are not known was counted dense (the real
 * figure is at most this one), "~" where both. */
static void unmasked_cell(char *buf, size_t size, int64_t v, int64_t total,
                          unsigned flags, const nns_report_options *o,
                          bool csv) {
  bool dense = (flags & NNS_COUNT_MASK_UNKNOWN) != 0;
  bool low = (flags & NNS_COUNT_PARTIAL) != 0;
  char num[64];
  nns__fmt_number(num, sizeof num, v, total, o->numbers, false, csv);
  snprintf(buf, size, "%s%s",
           csv ? "" : dense && low ? "~ " : dense ? "≤ " : low ? "≥ " : "",
           num);
}

static void rf_cell(char *buf, size_t size, const nns_rf *rf, enum col_id c) {
  c = c == C_RF_TS ? C_RF : c == C_STRIDE_TS ? C_STRIDE : c == C_PAD_TS ? C_PAD
                                                                        : c;
  if (rf->whole && c == C_RF) {
    snprintf(buf, size, "whole");
    return;
  }
  if (rf->axes <= 0 || rf->whole) {
    snprintf(buf, size, "-");
    return;
  }
  if (c == C_RF) {
    nns__fmt_rf(buf, size, rf);
    return;
  }
  nns__fmt_axes(buf, size, c == C_STRIDE ? rf->stride : rf->padding,
                rf->axes);
}

/* The slot of the Output Shape cell of value v when it is kept (*key
 * then says nothing), else NULL with *key filled for shape_keep; a shape
 * that cannot be kept has key->rank -1. */
static const shape_slot *shape_find(const grid_part *p, const nns_model *m,
                                    const nns_analysis *a, size_t v,
                                    shape_slot *key) {
  key->rank = -1;
  if (v == (size_t)-1 || v >= nns_model_value_count(m) ||
      (!p->second && p->g->alias_oom))
    return NULL;
  int rank = a ? nns__analysis_value_rank(a, v) : nns__value_of(m, a, v).rank;
  if (rank < 0 || rank > SHAPE_DIMS)
    return NULL;
  key->rank = rank;
  for (int d = 0; d < rank; d++) {
    nns_dim x = nns__dim_of(m, a, v, d);
    key->value[d] = x.value;
    key->symbol[d] = x.symbol;
  }
  for (size_t k = 0; k < SHAPE_SLOTS; k++) {
    const shape_slot *s = &p->shape[k];
    bool same = s->rank == key->rank;
    for (int d = 0; same && d < key->rank; d++)
      same = s->value[d] == key->value[d] && s->symbol[d] == key->symbol[d];
    if (same)
      return s;
  }
  return NULL;
}

/* Keeps the cleaned cell text[0..len) of the shape in *key. */
static void shape_keep(grid_part *p, const shape_slot *key, const char *text,
                       size_t len, int width) {
  if (key->rank < 0 || len >= SHAPE_TEXT || p->gave_up ||
      (!p->second && p->g->alias_oom))
    return;
  shape_slot *s = &p->shape[p->shape_next];
  *s = *key;
  memcpy(s->text, text, len);
  s->len = len;
  s->width = width;
  p->shape_next = (p->shape_next + 1) % SHAPE_SLOTS;
}

/* s into buf as snprintf(buf, size, "%s", s) puts it (cut to size - 1
 * bytes), without parsing a format per cell. */
static void copy_cut(char *buf, size_t size, const char *s) {
  size_t len = strlen(s);
  if (len >= size)
    len = size - 1;
  memcpy(buf, s, len);
  buf[len] = 0;
}

/* Tree guides: for each ancestor below the root, "│  " if it has a later
 * sibling and "   " if not, then "├─" or "└─" for the layer itself. Rows
 * cut by the depth are siblings of nothing shown, so "last child" is the
 * same in the cut tree and in the whole one. */
static nns_status grid_guides(grid *g, const size_t *parent,
                              const size_t *last, const int *depth) {
  g->guide_off = malloc((g->rows ? g->rows : 1) * sizeof *g->guide_off);
  g->guide_width = malloc((g->rows ? g->rows : 1) * sizeof *g->guide_width);
  if (!g->guide_off || !g->guide_width)
    return NNS_E_NOMEM;
  for (size_t r = 0; r < g->rows; r++) {
    size_t i = g->layer[r];
    if (!nns__vec_reserve(&g->guides, g->guides.n + NNS__TREE_PREFIX_MAX))
      return NNS_E_NOMEM;
    g->guide_off[r] = g->guides.n;
    g->guides.n += nns__tree_prefix_into(g->guides.v + g->guides.n, parent,
                                         last, depth[i], i,
                                         &g->guide_width[r]) + 1;
  }
  return NNS_OK;
}

/* The rows shown (layers at or above the depth) into g->layer, and with
 * `text` their tree guides. */
static nns_status grid_rows(grid *g, const nns_analysis *a, int maxd,
                            bool text) {
  size_t n = nns_analysis_layer_count(a);
  g->layer = malloc((n ? n : 1) * sizeof *g->layer);
  size_t *last = NULL, *parent = NULL;
  int *depth = NULL;
  if (text) {
    last = malloc((n ? n : 1) * sizeof *last);
    parent = malloc((n ? n : 1) * sizeof *parent);
    depth = malloc((n ? n : 1) * sizeof *depth);
  }
  nns_status st = NNS_OK;
  if (!g->layer || (text && (!last || !parent || !depth))) {
    st = NNS_E_NOMEM;
    goto done;
  }
  for (size_t i = 0; text && i < n; i++)
    last[i] = (size_t)-1;
  for (size_t i = 0; i < n; i++) {
    int d = 0;
    size_t up = (size_t)-1;
    nns__analysis_layer_tree(a, i, &d, &up);
    if (d <= maxd)
      g->layer[g->rows++] = i;
    if (!text)
      continue;
    parent[i] = up < n ? up : (size_t)-1;
    depth[i] = d;
    if (parent[i] != (size_t)-1)
      last[parent[i]] = i;
  }
  if (text)
    st = grid_guides(g, parent, last, depth);
done:
  free(last);
  free(parent);
  free(depth);
  return st;
}

/* Formats the cells of rows p->from..p->to (grid_part). */
static void grid_fill(void *arg) {
  grid_part *p = arg;
  grid *g = p->g;
  const nns_analysis *a = p->a;
  const nns_model *m = nns_analysis_model(a);
  const nns_report_options *o = p->o;
  bool csv = p->csv, text = p->text;
  for (size_t r = p->from; r < p->to && !p->gave_up; r++) {
    nns_layer_info l = nns__layer_of(a, g->layer[r]);
    nns_counts counts = nns__layer_counts_of(a, g->layer[r]);
    nns_rf rf = {.size = sizeof rf};
    if (p->want_rf)
      rf = nns__layer_rf_of(a, g->layer[r]);
    const nns_counts *k = &counts;
    for (int c = 0; c < g->ncols; c++) {
      char buf[512];
      const char *src = NULL; /* a name cleaned as it is, not copied */
      shape_slot key;         /* C_SHAPE: what the cell is made of */
      key.rank = -1; /* a cell made of no shape ("not called") keeps none */
      const shape_slot *kept = NULL;
      buf[0] = 0;
      const nns__cell_def *def = &nns__cells[g->id[c]];
      if (def->field) /* an N row of NNS__CELL_MAP: a count, read generically */
        number_cell(buf, sizeof buf, def, k, &p->all, o, csv);
      else
      switch (g->id[c]) {
      case C_LAYER:
        src = l.depth == 0 ? p->root_name : l.name ? l.name : "";
        break;
      case C_TYPE: src = l.type ? l.type : ""; break;
      case C_SHAPE:
        /* A module that never ran has no output; its params still count. */
        if (l.not_called) {
          snprintf(buf, sizeof buf, "not called");
          break;
        }
        kept = shape_find(p, m, a, l.output_value, &key);
        if (!kept)
          nns__fmt_shape_named(buf, sizeof buf, m, a, l.output_value,
                               csv ? NULL : alias_name, p);
        break;
      case C_FLOPS_UNMASKED:
        unmasked_cell(buf, sizeof buf, k->flops_unmasked,
                      p->all.flops_unmasked, k->flags, o, csv);
        break;
      case C_MACS_UNMASKED:
        unmasked_cell(buf, sizeof buf, k->macs_unmasked, p->all.macs_unmasked,
                      k->flags, o, csv);
        break;
      case C_RF:
      case C_STRIDE:
      case C_PAD:
      case C_RF_TS:
      case C_STRIDE_TS:
      case C_PAD_TS: rf_cell(buf, sizeof buf, &rf, g->id[c]); break;
      case C_PCT_PARAMS:
        nns__fmt_ratio(buf, sizeof buf, k->params, p->all.params);
        break;
      case C_PCT_MACS:
        nns__fmt_ratio(buf, sizeof buf, k->macs, p->all.macs);
        break;
      case C_INTENSITY:
        snprintf(buf, sizeof buf, csv ? "%.9g" : "%.1f", k->intensity);
        break;
      case C_BOUND:
        snprintf(buf, sizeof buf, "%s",
                 k->bound ? nns_bound_name(k->bound) : "-");
        break;
      case C_TIME:
        nns__fmt_seconds(buf, sizeof buf, k->time_s, csv);
        break;
      default: break;
      }
      /* A hostile name's control characters (an ESC sequence, a newline)
       * would reach the terminal or break the table's lines, in every
       * format. */
      size_t room = sizeof buf * 3; /* each byte at most U+FFFD */
      if (!nns__vec_reserve(&p->cells, p->cells.n + room)) {
        p->st = NNS_E_NOMEM;
        return;
      }
      /* A name is cut to the cell's 511 bytes as the copy into buf did. */
      if (src && strlen(src) >= sizeof buf)
        copy_cut(buf, sizeof buf, src), src = NULL;
      int cw;
      char *at = p->cells.v + p->cells.n;
      size_t len;
      if (kept) {
        memcpy(at, kept->text, kept->len);
        at[kept->len] = 0;
        len = kept->len;
        cw = kept->width;
      } else {
        len = nns__text_clean_width(at, room, src ? src : buf, &cw);
        if (g->id[c] == C_SHAPE)
          shape_keep(p, &key, at, len, cw);
      }
      g->off[r * (size_t)g->ncols + (size_t)c] = p->cells.n;
      p->cells.n += len + 1;
      if (text) /* at most 511: a cell is cut to 511 bytes, each one char */
        g->cell_width[r * (size_t)g->ncols + (size_t)c] = (uint16_t)cw;
      if (c == 0 && text)
        cw += g->guide_width[r];
      if (cw > p->width[c])
        p->width[c] = cw;
    }
  }
}

/* Tables of this many rows format their second half on a job of its own
 * (a 100k-node graph's 80k rows took 15 ms on one thread). */
enum { GRID_THREAD_MIN_ROWS = NNS__JOB_MIN_ITEMS };
/* Bytes a cell takes, NUL included, a generous guess: graph100k.onnx's
 * 326k cells average 8 (bench/gen_models.py). */
enum { CELL_BYTES = 16 };

/* Takes the second half's cells after the first's, or, when it gave up,
 * fills its rows after the first's on this thread. */
static nns_status grid_join(grid *g, grid_part *first, grid_part *second) {
  size_t rows = second->to;
  if (second->st != NNS_OK)
    return second->st;
  if (second->gave_up) {
    first->from = second->from;
    first->to = rows;
    grid_fill(first);
    return first->st;
  }
  size_t base = first->cells.n;
  for (size_t k = second->from * (size_t)g->ncols; k < rows * (size_t)g->ncols;
       k++)
    g->off[k] += base;
  for (int c = 0; c < g->ncols; c++)
    if (second->width[c] > first->width[c])
      first->width[c] = second->width[c];
  g->text2.v = second->cells.v;
  g->text2.n = second->cells.n;
  g->text2.cap = second->cells.cap;
  second->cells.v = NULL;
  return NNS_OK;
}

static nns_status grid_build(grid *g, const nns_analysis *a,
                             const nns_report_options *o, bool csv,
                             bool text) {
  const nns_model *m = nns_analysis_model(a);
  memset(g, 0, sizeof *g);
  unsigned want = o->columns ? o->columns : NNS_COL_DEFAULT;
  if (!nns__totals_of(a).hardware.name)
    want &= ~(unsigned)NNS_COL_ROOF; /* no device, no roofline */
  nns_counts all = nns__total_counts_of(a);
  /* The unmasked columns only where a mask left attention pairs out, or
   * where a mask not known was counted dense (marked "≤"). */
  bool masked = all.macs_unmasked != all.macs ||
                (all.flags & NNS_COUNT_MASK_UNKNOWN);
  if (nns__totals_of(a).train_step)
    want |= NNS_COL_SAVED;
  else
    want &= ~(unsigned)NNS_COL_SAVED;
  for (int c = 0; c < C_COUNT; c++)
    if ((!nns__cells[c].cols || (want & nns__cells[c].cols)) &&
        (masked || (c != C_FLOPS_UNMASKED && c != C_MACS_UNMASKED)))
      g->id[g->ncols++] = (enum col_id)c;

  nns_status st = grid_rows(g, a, nns__report_depth(o), text);
  if (st != NNS_OK)
    return st;
  g->off = calloc(g->rows * (size_t)g->ncols + 1, sizeof *g->off);
  if (text)
    g->cell_width = calloc(g->rows * (size_t)g->ncols + 1,
                           sizeof *g->cell_width);
  if (!g->off || (text && !g->cell_width))
    return NNS_E_NOMEM;

  grid_part first = {.g = g, .a = a, .o = o, .csv = csv, .text = text,
                     .root_name = nns__model_name(m, o), .all = all};
  /* read a row's field only for a column of it */
  for (int c = 0; c < g->ncols; c++)
    first.want_rf |=
        (unsigned)(g->id[c] - C_RF) <= (unsigned)(C_PAD_TS - C_RF);
  for (size_t k = 0; k < SHAPE_SLOTS; k++)
    first.shape[k].rank = -1;
  grid_part second = first;
  second.second = true;
  second.from = first.to = g->rows >= GRID_THREAD_MIN_ROWS ? g->rows / 2
                                                           : g->rows;
  second.to = g->rows;
  if (second.from == second.to) {
    grid_fill(&first);
    st = first.st;
  } else {
    /* Room for both halves' cells, taken here: a job's malloc would come
     * from an arena of its thread's own, away from the heap that a large
     * summary advises as huge pages (src/cli/summary.c), and grow by
     * copying. A guess; a half that needs more grows. */
    size_t guess = CELL_BYTES * (size_t)g->ncols;
    (void)nns__vec_reserve(&first.cells, first.to * guess);
    (void)nns__vec_reserve(&second.cells, (second.to - second.from) * guess);
    nns__job job;
    nns__job_start(&job, grid_fill, &second, true);
    grid_fill(&first);
    if (first.st == NNS_OK) {
      nns__job_finish(&job);
      st = grid_join(g, &first, &second);
    } else {
      nns__job_cancel(&job);
      st = first.st;
    }
    nns__vec_free(&second.cells);
  }
  g->text.v = first.cells.v;
  g->text.n = first.cells.n;
  g->text.cap = first.cells.cap;
  memcpy(g->width, first.width, sizeof g->width);
  if (st == NNS_OK)
    g->off[g->rows * (size_t)g->ncols] = g->text.n + g->text2.n;
  return st;
}

/* ==== Text ==== */

static void text_rule(nns__out *o, const char *ch, int w) {
  nns__out_rep(o, ch, w);
  nns__out_str(o, "\n");
}

/* "1,824,010,216 (1.82 G)"; with "≥ " in front when partial. */
static void total_str(char *buf, size_t size, int64_t v, bool bytes,
                      bool partial) {
  char raw[48], clever[48];
  nns__fmt_int(raw, sizeof raw, v, true);
  nns__fmt_clever(clever, sizeof clever, v, bytes);
  int n;
  if (v < 1000) /* the short form would say the same */
    n = snprintf(buf, size, "%s%s%s", partial ? "≥ " : "", raw,
                 bytes ? " bytes" : "");
  else if (bytes)
    n = snprintf(buf, size, "%s%s (%s bytes)", partial ? "≥ " : "", clever,
                 raw);
  else
    n = snprintf(buf, size, "%s%s (%s)", partial ? "≥ " : "", raw, clever);
  /* Callers size buf for the longest figure (2^63 with separators); a cut
   * one would still end in a NUL. The check keeps gcc's -O2
   * -Wformat-truncation quiet, which warns of unchecked snprintf cuts. */
  if (n < 0 && size)
    buf[0] = 0;
}

typedef nns_status (*op_list_fn)(const nns_analysis *, size_t,
                                 const char **, const char **, size_t *);

/* "Title: dom.Op x3, Op2 x1<tail>" for the uncounted or unknown ops;
 * nothing when there are none. */
static void put_op_list(nns__out *o, const nns_analysis *a, size_t n,
                        op_list_fn get, const char *title, const char *tail) {
  if (!n)
    return;
  nns__out_str(o, title);
  for (size_t i = 0; i < n; i++) {
    const char *dom = "", *op = "?";
    size_t cnt = 0;
    get(a, i, &dom, &op, &cnt);
    nns__out_str(o, i ? ", " : " ");
    if (dom && *dom) {
      nns__out_text(o, dom);
      nns__out_str(o, ".");
    }
    nns__out_text(o, op ? op : "?");
    nns__out_fmt(o, " x%zu", cnt);
  }
  nns__out_str(o, tail);
}

/* Op type i of the uncounted list, "domain.op xN" with N its nodes for
 * reason `why` (0 none, so nothing is written). */
static void uncounted_item(nns__out *o, const nns_analysis *a, size_t i,
                           int why, bool first, bool md) {
  const char *dom = "", *op = "?";
  size_t cnt = 0, k[3] = {0, 0, 0};
  nns_analysis_uncounted_op(a, i, &dom, &op, &cnt);
  nns_analysis_uncounted_op_why(a, i, &k[0], &k[1], &k[2]);
  nns__out_str(o, first ? " " : ", ");
  if (dom && *dom) {
    nns__note_text(o, dom, md);
    nns__out_str(o, ".");
  }
  nns__note_text(o, op ? op : "?", md);
  nns__out_fmt(o, " x%zu", k[why]);
}

/* Why op type i's no-size nodes have no size (nns_analysis_uncounted_op_lost),
 * as the title of their line. */
static void lost_title(nns__out *o, const nns_analysis *a, size_t node,
                       int how, bool md) {
  nns_node_info ni = {.size = sizeof ni};
  bool named = node != (size_t)-1 && nns_analysis_node(a, node, &ni) == NNS_OK;
  const char *name = named && ni.name[0] ? ni.name : named ? ni.op_type : "?";
  switch (how) {
  case NNS_SIZE_LOST_IF:
    nns__out_str(o, "Not counted (no size: If '");
    nns__note_text(o, name, md);
    nns__out_str(o, "' cannot tell which branch runs without the inputs' "
                    "real sizes, and its branches give outputs of different "
                    "ranks, so the shapes after it are unknown):");
    break;
  case NNS_SIZE_LOST_NEGATIVE:
    nns__out_str(o, "Not counted (symbolic dims taken as 1 make a size "
                    "negative, first at '");
    nns__note_text(o, name, md);
    nns__out_str(o, "'):");
    break;
  case NNS_SIZE_LOST_INPUT:
    nns__out_str(o, "Not counted (no size: a graph input of unknown rank, "
                    "read by '");
    nns__note_text(o, name, md);
    nns__out_str(o, "'):");
    break;
  default:
    nns__out_str(o, "Not counted (no size: the output shape of '");
    nns__note_text(o, name, md);
    if (named) {
      nns__out_str(o, "' (");
      nns__note_text(o, ni.op_type, md);
      nns__out_str(o, ")");
    } else {
      nns__out_str(o, "'");
    }
    nns__out_str(o, " is unknown, and so are the shapes after it):");
  }
}

/* The uncounted op types, by why (nns_analysis_uncounted_op_why): one line
 * per reason, each op type with its nodes for that reason. An op with a
 * cost rule is never listed as having none. Nodes without a usable size
 * are grouped by where their sizes were lost (nns_analysis_uncounted_op_lost:
 * an undecidable If, a size made negative by symbolic dims taken as 1, an
 * unknown shape), and the --input that gives real sizes is suggested when
 * graph inputs have symbolic dims. */
static bool uncounted_lines(nns__out *o, const nns_analysis *a, bool md) {
  const nns_model *m = nns_analysis_model(a);
  size_t n = nns_analysis_uncounted_op_count(a);
  bool open = false; /* a line is written and not yet ended */
  char opt[512];
  bool fixable = false;
  for (size_t q = 0; q < nns_model_input_count(m) && !fixable; q++)
    fixable = nns__input_fix(m, a, q, opt, sizeof opt) != NULL;
  for (int why = 0; why < 3; why++) {
    for (size_t i = 0; i < n; i++) {
      size_t k[3] = {0, 0, 0}, node = (size_t)-1;
      int how = NNS_SIZE_LOST_NONE;
      nns_analysis_uncounted_op_why(a, i, &k[0], &k[1], &k[2]);
      if (why == 1)
        nns_analysis_uncounted_op_lost(a, i, &node, &how);
      bool seen = false; /* an earlier op type began this line */
      for (size_t j = 0; j < i && !seen; j++) {
        size_t kj[3] = {0, 0, 0}, nj = (size_t)-1;
        int hj = NNS_SIZE_LOST_NONE;
        nns_analysis_uncounted_op_why(a, j, &kj[0], &kj[1], &kj[2]);
        if (why == 1)
          nns_analysis_uncounted_op_lost(a, j, &nj, &hj);
        seen = kj[why] && nj == node && hj == how;
      }
      if (!k[why] || seen)
        continue;
      nns__out_str(o, open ? "\n" : md ? "\n" : "");
      if (why == 0)
        nns__out_str(o, "Not counted (no cost rule):");
      else if (why == 2)
        nns__out_str(o, "Not counted (the cost rule failed; the "
                        "warnings below say why):");
      else
        lost_title(o, a, node, how, md);
      open = true;
      for (size_t j = i; j < n; j++) {
        size_t kj[3] = {0, 0, 0}, nj = (size_t)-1;
        int hj = NNS_SIZE_LOST_NONE;
        nns_analysis_uncounted_op_why(a, j, &kj[0], &kj[1], &kj[2]);
        if (why == 1)
          nns_analysis_uncounted_op_lost(a, j, &nj, &hj);
        if (kj[why] && nj == node && hj == how)
          uncounted_item(o, a, j, why, j == i, md);
      }
      if (why == 1 && fixable) {
        nns__out_str(o, "; give the inputs their real sizes:");
        for (size_t q = 0; q < nns_model_input_count(m); q++)
          if (nns__input_fix(m, a, q, opt, sizeof opt)) {
            nns__out_str(o, " ");
            nns__note_text(o, opt, md);
          }
        nns__out_str(o, " (N: the size you run with)");
      }
    }
  }
  if (open)
    nns__out_str(o, md ? "; counts marked ≥ are lower bounds.\n"
                       : "; totals marked ≥ are lower bounds.\n");
  /* A failed rule is explained only by its warning: the text footer shows
   * them here, since it prints no warnings otherwise. */
  bool failed = false;
  for (size_t i = 0; i < n && !failed; i++) {
    size_t k[3] = {0, 0, 0};
    nns_analysis_uncounted_op_why(a, i, &k[0], &k[1], &k[2]);
    failed = k[2] > 0;
  }
  for (size_t i = 0; failed && i < nns_analysis_warning_count(a); i++) {
    nns__out_str(o, md ? "\nwarning: " : "warning: ");
    nns__note_text(o, nns__warning_of(a, i), md);
    nns__out_str(o, "\n");
  }
  return failed;
}

nns_status nns_report_uncounted(const nns_analysis *analysis,
                                nns_write_fn write, void *user,
                                nns_error *err) {
  if (!analysis || !write)
    return nns__report_err(err, NNS_E_ARG,
                           "nns_report_uncounted: NULL analysis or write");
  nns__out o;
  nns__out_init(&o, write, user);
  uncounted_lines(&o, analysis, false);
  return nns__out_finish(&o, err);
}

/* Which symbols a count took as 1, the inputs they belong to and the
 * --input options that fix them. */
static void symbols_note(nns__out *o, const nns_analysis *a) {
  const nns_model *m = nns_analysis_model(a);
  nns__out_str(o, "Symbolic dims taken as 1:");
  const char *seen[16];
  int shown = (int)nns__input_symbols(m, a, seen, 16), inputs = 0;
  for (int k = 0; k < shown; k++) {
    nns__out_str(o, k ? ", " : " ");
    nns__out_text(o, seen[k]);
  }
  if (!shown) {
    nns__out_str(o, " dims the graph computes (no graph input has a "
                    "symbolic dim)\n");
    return;
  }
  char opt[512];
  for (size_t k = 0; k < nns_model_input_count(m); k++) {
    const char *name = nns__input_fix(m, a, k, opt, sizeof opt);
    if (!name)
      continue;
    nns__out_str(o, inputs++ ? ", " : " (input ");
    nns__out_text(o, name);
  }
  nns__out_str(o, ")\nFix them with:");
  for (size_t k = 0; k < nns_model_input_count(m); k++) {
    if (!nns__input_fix(m, a, k, opt, sizeof opt))
      continue;
    nns__out_str(o, " ");
    nns__out_text(o, opt);
  }
  nns__out_str(o, " (N: the size you run with), or --input SYMBOL=N\n");
}

/* Which branch each If's costs follow. */
/* A layer's field differs between positions (nns_rf.period). */
static bool fields_vary(const nns_analysis *a) {
  size_t n = nns_analysis_layer_count(a);
  for (size_t i = 0; i < n; i++) {
    const nns_rf *rf = nns__analysis_layer_rf(a, i);
    if (!rf || rf->whole)
      continue;
    for (int ax = 0; ax < rf->axes && ax < NNS_RF_MAX_AXES; ax++)
      if (rf->period[ax] > 1)
        return true;
  }
  return false;
}

/* An If whose condition is unknown but whose other branch cannot run with
 * these inputs: why, from the inference's warning (src/ops/control.c),
 * which the text report does not list otherwise. */
static void only_branch_note(nns__out *o, const nns_analysis *a,
                             const char *node, int then_branch) {
  const char *why = NULL;
  size_t len = strlen(node);
  for (size_t i = 0; i < nns_analysis_warning_count(a) && !why; i++) {
    const char *w = nns__warning_of(a, i);
    if (!strncmp(w, "If '", 4) && !strncmp(w + 4, node, len) &&
        !strncmp(w + 4 + len, "': condition unknown, and ", 26))
      why = w + 4 + len + 26;
  }
  nns__out_fmt(o, "': condition unknown; costs are %s's",
               then_branch ? "then_branch" : "else_branch");
  const char *end = why ? strstr(why, "; its outputs and costs are") : NULL;
  if (end) {
    char buf[600];
    snprintf(buf, sizeof buf, "%.*s", (int)(end - why), why);
    nns__out_str(o, ": ");
    nns__out_text(o, buf);
  } else {
    nns__out_str(o, ", the only branch that runs with these inputs");
  }
  nns__out_str(o, "; --value on the inputs it depends on folds it.\n");
}

static void branches_note(nns__out *o, const nns_analysis *a) {
  size_t n = nns_analysis_branch_count(a);
  for (size_t i = 0; i < n; i++) {
    const char *node;
    int then_branch, known;
    nns_analysis_branch(a, i, &node, &then_branch, &known);
    nns__out_str(o, "If '");
    nns__out_text(o, node);
    if (known == 1)
      nns__out_fmt(o, "': condition known; costs are %s's.\n",
                   then_branch ? "then_branch" : "else_branch");
    else if (known == 2)
      only_branch_note(o, a, node, then_branch);
    else
      nns__out_fmt(o, "': condition unknown; costs are the larger branch's "
                      "(%s); --value on the inputs it depends on folds "
                      "it.\n", then_branch ? "then_branch" : "else_branch");
  }
  if (n)
    nns__out_str(o, "Both branches' weights count as parameters.\n");
}

/*
 * Names the tensors one layer shares with another (tied: counted once, at
 * the first layer that reads them). Copies are not named: torch.onnx
 * stores parameters that merely hold equal values (resnet18's BatchNorm
 * ones and zeros) as one initializer and Identity copies; each copy is its
 * own parameter in PyTorch and here, so the file's smaller storage says
 * nothing about the model (JSON keeps it: params_unique).
 */
static void tied_note(nns__out *o, const nns_analysis *a) {
  enum { SHOWN = 3 };
  size_t n = nns_analysis_param_count(a), tied = 0;
  int64_t elements = 0;
  for (size_t i = 0; i < n; i++) {
    nns_param_info p = {.size = sizeof p};
    if (nns_analysis_param(a, i, &p) != NNS_OK || !p.shared)
      continue;
    elements = nns__sum_sat(elements, p.elements);
    if (tied++ >= SHOWN)
      continue;
    nns_layer_info l = {.size = sizeof l};
    const char *at = nns_analysis_layer(a, p.layer, &l) == NNS_OK && l.path &&
                             *l.path
                         ? l.path
                         : "the model";
    char num[64];
    total_str(num, sizeof num, p.elements, false, false);
    nns__out_str(o, tied == 1 ? "Tied (one tensor read by several layers, "
                                "counted once): "
                              : ", ");
    nns__out_text(o, p.name);
    nns__out_fmt(o, " (%s elements, counted at ", num);
    nns__out_text(o, at);
    nns__out_str(o, ")");
  }
  if (tied > SHOWN) {
    char num[64];
    total_str(num, sizeof num, elements, false, false);
    nns__out_fmt(o, " and %zu more (%zu tensors, %s elements in all)",
                 tied - SHOWN, tied, num);
  }
  if (tied)
    nns__out_str(o, "\n");
}

static bool same_rf(const nns_rf *a, const nns_rf *b) {
  if (a->whole || b->whole || a->axes != b->axes)
    return false;
  for (int k = 0; k < a->axes && k < NNS_RF_MAX_AXES; k++)
    if (a->field[k] != b->field[k] || a->stride[k] != b->stride[k] ||
        a->padding[k] != b->padding[k])
      return false;
  return true;
}

/*
 * The model's field is that of the last value with spatial axes; the rows
 * after it (a classifier head, the root) say whole. When the root row
 * disagrees with the footer, say which layer the footer's field is, or,
 * when no layer has a finite field, that it is the input's own (the
 * analysis warns where the axes were lost).
 */
static void rf_where(nns__out *o, const nns_analysis *a, const nns_rf *rf) {
  size_t n = nns_analysis_layer_count(a);
  if (!n)
    return;
  nns_rf root = nns__layer_rf_of(a, 0);
  if (same_rf(&root, rf))
    return;
  bool finite = false;
  for (size_t i = n; i-- > 0;) {
    nns_rf l = nns__layer_rf_of(a, i);
    finite |= !l.whole && l.axes > 0;
    if (!same_rf(&l, rf))
      continue;
    /* The outermost layer whose output has that field (layer4, not its
     * last conv). */
    nns_layer_info li = nns__layer_of(a, i);
    while (li.parent != (size_t)-1 && li.parent != 0) {
      nns_rf p = nns__layer_rf_of(a, li.parent);
      if (!same_rf(&p, rf))
        break;
      li = nns__layer_of(a, li.parent);
    }
    nns__out_str(o, ", at '");
    nns__out_text(o, li.path);
    nns__out_str(o, "' (later rows see the whole input)");
    return;
  }
  if (finite)
    return;
  /* The analysis's warning names the node (src/analyze/rf.c). */
  const char *why = NULL;
  for (size_t i = 0; i < nns_analysis_warning_count(a) && !why; i++) {
    const char *w = nns__warning_of(a, i);
    if (strncmp(w, "receptive field: ", 17) == 0)
      why = w + 17;
  }
  nns__out_str(o, ": the input's own; no layer keeps its spatial axes, so "
                  "every row says whole");
  if (why) {
    nns__out_str(o, " (");
    nns__out_text(o, why);
    nns__out_str(o, ")");
  }
}

/* The roofline's device and the model's time on it (docs/metrics.md). */
static void roofline_note(nns__out *o, const nns_totals *t,
                          const nns_counts *all) {
  const nns_hardware *h = &t->hardware;
  if (!h->name)
    return;
  char a[64], b[64], c[64];
  nns__fmt_clever(a, sizeof a, all->bytes, true);
  nns__out_fmt(o, "Bytes moved (each input read, each output written once; "
                  "views 0): %s, intensity %.1f FLOP/byte\n", a,
               all->intensity);
  nns__fmt_seconds(a, sizeof a, all->time_s, false);
  nns__fmt_seconds(b, sizeof b, all->memory_time_s, false);
  nns__fmt_seconds(c, sizeof c, all->compute_time_s, false);
  nns__out_str(o, "Roofline on ");
  nns__out_text(o, h->name);
  nns__out_fmt(o, ": %s (memory-bound nodes %s, compute-bound %s); "
                  "matrix ops at %s %.1f TFLOP/s, others at %s %.1f TFLOP/s, "
                  "memory %.3f TB/s",
               a, b, c, nns_compute_dtype_name(t->compute_dtype),
               h->peak_flops[t->compute_dtype] / 1e12,
               nns_compute_dtype_name(t->float_dtype),
               h->peak_flops[t->float_dtype] / 1e12, h->bandwidth / 1e12);
  nns__out_str(o, " (");
  nns__out_text(o, h->source ? h->source : "");
  nns__out_str(o, ")\n");
}

static void text_footer(nns__out *o, const nns_analysis *an, int width) {
  nns_totals t = nns__totals_of(an);
  nns_counts all = nns__total_counts_of(an);
  nns_rf rf = nns__total_rf_of(an);
  char a[128], b[128], c[128], d[128], e[128];
  text_rule(o, "=", width);
  total_str(a, sizeof a, all.params, false, false);
  nns__out_fmt(o, "Trainable params: %s\n", a);
  /* Non-trainable: buffers and frozen parameters, as torchscan says. */
  total_str(a, sizeof a, nns__sum_sat(all.buffers, all.frozen), false,
            false);
  nns__out_fmt(o, "Non-trainable params: %s\n", a);
  int64_t total =
      nns__sum_sat(nns__sum_sat(all.params, all.buffers), all.frozen);
  total_str(a, sizeof a, total, false, false);
  nns__out_fmt(o, "Total params: %s\n", a);
  if (all.params_active != nns__sum_sat(all.params, all.frozen)) {
    total_str(a, sizeof a, all.params_active, false, false);
    nns__out_fmt(o, "Active params (one token; experts at k of E): %s\n", a);
  }
  tied_note(o, an);
  nns__fmt_clever(a, sizeof a, all.param_bytes, true);
  nns__out_fmt(o, "Model size (params + buffers): %s", a);
  size_t nd = nns_analysis_param_dtype_count(an);
  for (size_t i = 0; i < nd; i++) {
    int dt;
    int64_t el, by;
    nns_analysis_param_dtype(an, i, &dt, &el, &by);
    nns__fmt_clever(b, sizeof b, by, true);
    nns__out_fmt(o, "%s%s %s", i ? ", " : " (", nns_dtype_name(dt), b);
  }
  nns__out_str(o, nd ? ")\n" : "\n");
  if (all.weight_bytes_read != all.param_bytes) {
    nns__fmt_clever(a, sizeof a, all.weight_bytes_read, true);
    nns__out_fmt(o, "Weight bytes read (experts the routed tokens reach): "
                    "%s\n", a);
  }
  if (t.kv_cache_bytes_read || t.kv_cache_bytes) {
    nns__fmt_clever(a, sizeof a, t.kv_cache_bytes_read, true);
    nns__fmt_clever(b, sizeof b, t.kv_cache_bytes_written, true);
    nns__fmt_clever(c, sizeof c, t.kv_cache_bytes, true);
    nns__out_fmt(o, "KV cache: read %s (past), written %s (new entries), "
                    "%s after the step\n", a, b, c);
  }
  text_rule(o, "-", width);
  nns__fmt_clever(a, sizeof a, all.activation_bytes, true);
  nns__out_fmt(o, "Activation memory (all node outputs): %s\n", a);
  nns__fmt_clever(a, sizeof a, t.peak_activation_bytes, true);
  if (t.peak_node && *t.peak_node) {
    nns__out_fmt(o, "Peak activation memory: %s, after node '", a);
    nns__out_text(o, t.peak_node);
    nns__out_str(o, "'\n");
  } else
    nns__out_fmt(o, "Peak activation memory: %s\n", a);
  nns__fmt_clever(a, sizeof a, t.train_total_bytes, true);
  nns__fmt_clever(b, sizeof b, t.train_param_bytes, true);
  nns__fmt_clever(c, sizeof c, t.train_grad_bytes, true);
  nns__fmt_clever(d, sizeof d, t.train_optimizer_bytes, true);
  nns__fmt_clever(e, sizeof e, t.train_activation_bytes, true);
  const char *optimizer = nns_optimizer_name(t.optimizer);
  if (!nns__text_train_footer(o, an))
    nns__out_fmt(o,
                 "Training estimate (%s): %s = params %s + gradients %s + "
                 "optimizer %s + activations %s\n",
                 optimizer ? optimizer : "?", a, b, c, d, e);
  nns__text_per_rank(o, an);
  text_rule(o, "-", width);
  bool partial = (all.flags & NNS_COUNT_PARTIAL) != 0;
  total_str(a, sizeof a, all.flops, false, partial);
  nns__out_fmt(o, "FLOPs: %s\n", a);
  total_str(a, sizeof a, all.macs, false, partial);
  nns__out_fmt(o, "MACs:  %s\n", a);
  bool dense = (all.flags & NNS_COUNT_MASK_UNKNOWN) != 0;
  if (all.macs_unmasked != all.macs || dense) {
    total_str(a, sizeof a, all.flops_unmasked, false, partial && !dense);
    total_str(b, sizeof b, all.macs_unmasked, false, partial && !dense);
    /* "≤": a mask not known counted dense; "~": and a node not counted */
    const char *mark = !dense ? "" : partial ? "~ " : "≤ ";
    nns__out_fmt(o, "Over the pairs attention masks allow: FLOPs %s%s, "
                    "MACs %s%s%s\n", mark, a, mark, b,
                 dense ? " (partial: an attention mask whose contents are not "
                         "known was counted dense; the warnings name it)"
                       : "");
  }
  if (t.tokens > 0) {
    total_str(a, sizeof a, t.tokens, false, false);
    nns__out_fmt(o, "Tokens: %s; FLOPs per token %.4g (masked %.4g)\n", a,
                 (double)all.flops / (double)t.tokens,
                 (double)all.flops_unmasked / (double)t.tokens);
  }
  total_str(a, sizeof a, all.dmas, false, partial);
  nns__out_fmt(o, "DMAs:  %s\n", a);
  if (rf.whole) {
    nns__out_str(o, "Receptive field: whole input (each position of the "
                    "last spatial map sees all of it)\n");
  } else if (rf.axes > 0) {
    nns__fmt_rf(a, sizeof a, &rf);
    nns__fmt_axes(b, sizeof b, rf.stride, rf.axes);
    nns__fmt_axes(c, sizeof c, rf.padding, rf.axes);
    nns__out_fmt(o, "Receptive field: %s (effective stride %s, padding %s%s)",
                 a, b, c,
                 rf.global_context && !rf.whole
                     ? "; +g: also sees global context"
                     : "");
    rf_where(o, an, &rf);
    nns__out_str(o, "\n");
  }
  if (fields_vary(an))
    nns__out_str(o, "Windowed attention: some fields differ between "
                    "positions; RF is the widest, Pad that of position 0 "
                    "(each position's: JSON rf.spans).\n");
  nns__out_str(o, "FLOPs count multiplies and adds separately; MACs count "
                  "fused multiply-adds; DMAs count elements read and "
                  "written.\n");
  roofline_note(o, &t, &all);
  if (all.flags & NNS_COUNT_SYMBOLIC)
    symbols_note(o, an);
  branches_note(o, an);
  if (all.flags & NNS_COUNT_UNBOUNDED)
    nns__out_str(o, "Loops with an unknown trip count were counted once.\n");
  if (all.flags & NNS_COUNT_OVERFLOW)
    nns__out_str(o, "Some counts passed 2^63-1 and were held there "
                    "(saturated): they are not exact.\n");
  nns__text_notes(o, an);
  text_rule(o, "=", width);
}

void nns__text_notes(nns__out *o, const nns_analysis *an) {
  /* Every warning, as the HTML page lists them (an external data file not
   * found, and that counts do not need it), unless a failed rule has
   * printed them already. */
  if (!uncounted_lines(o, an, false))
    for (size_t i = 0; i < nns_analysis_warning_count(an); i++) {
      nns__out_str(o, "Note: ");
      nns__out_text(o, nns__warning_of(an, i));
      nns__out_str(o, "\n");
    }
  put_op_list(o, an, nns_analysis_unknown_op_count(an), nns_analysis_unknown_op,
              "Unknown ops (no shape rule):", "\n");
}

static void write_text(nns__out *o, const nns_analysis *a, const grid *g,
                       const nns_report_options *opt) {
  if (opt->format == NNS_FORMAT_BACKWARD_TEXT)
    nns__backward_heading(o);
  int w[C_COUNT];
  const int gap = 2;
  for (int c = 0; c < g->ncols; c++) {
    w[c] = nns__utf8_width(nns__cells[g->id[c]].title);
    if (g->width[c] > w[c])
      w[c] = g->width[c];
  }
  /* A large scope's type is a summary of its ops, which can be long: the
   * Type column stays readable at 24 columns. */
  for (int c = 0; c < g->ncols; c++)
    if (g->id[c] == C_TYPE && w[c] > 24)
      w[c] = 24;
  /* Fit the width: the Type column gives way first (an op summary says
   * less than a name), then Layer, then Output Shape, each down to a
   * floor; a table still too wide overflows. */
  int width = opt->width > 0 ? opt->width : 100;
  int total = 0;
  for (int c = 0; c < g->ncols; c++)
    total += w[c] + (c ? gap : 0);
  int floor_w[3] = {10, 16, 12};
  static const int order[3] = {1, 0, 2};
  /* Layer gives way only down to what keeps every row's guides whole
   * beside the first characters of its name (at most the width itself:
   * a chain deeper than the page cuts its guides). */
  for (size_t r = 0; r < g->rows && g->ncols && g->id[0] == C_LAYER; r++) {
    int sw = g->cell_width[r * (size_t)g->ncols];
    int need = g->guide_width[r] + (sw < 4 ? sw : 4);
    if (need > width)
      need = width;
    if (need > floor_w[1])
      floor_w[1] = need;
  }
  for (int k = 0; k < 3 && total > width; k++) {
    int c = order[k];
    int cut = total - width;
    int room = w[c] - floor_w[k];
    if (room <= 0)
      continue;
    if (cut > room)
      cut = room;
    w[c] -= cut;
    total -= cut;
  }
  /* Rules span the table (which overflows only when even the shortened
   * columns do not fit). */
  int rule = total < 40 ? 40 : total;

  text_rule(o, "_", rule);
  for (int c = 0; c < g->ncols; c++) {
    if (c)
      nns__out_rep(o, " ", gap);
    nns__put_fit(o, nns__cells[g->id[c]].title, w[c],
                 nns__cells[g->id[c]].right, NNS_WRAP_END);
  }
  nns__out_str(o, "\n");
  text_rule(o, "=", rule);
  for (size_t r = 0; r < g->rows; r++) {
    int pad = 0; /* spaces owed before the next text */
    for (int c = 0; c < g->ncols; c++) {
      const char *s = cell(g, r, c);
      size_t len = cell_len(g, r, c);
      int sw = g->cell_width[r * (size_t)g->ncols + (size_t)c];
      int fit = w[c];
      if (c) {
        pad += gap;
      } else {
        /* Guides stay whole; the name gives way. */
        fit = w[0] - g->guide_width[r];
        if (fit < 4 && sw > fit) {
          nns__put_fit(o, guide(g, r), w[0] - 4, false, NNS_WRAP_START);
          fit = 4;
        } else {
          nns__out_str(o, guide(g, r));
        }
      }
      bool right = c && nns__cells[g->id[c]].right;
      if (sw > fit) {
        nns__out_spaces(o, pad);
        pad = 0;
        nns__put_fit_n(o, s, len, sw, fit, right,
                       c && (g->id[c] == C_SHAPE || g->id[c] == C_TYPE)
                           ? NNS_WRAP_END
                           : opt->wrap);
        continue;
      }
      /* A cell that fits, as nns__put_fit_n writes it, with its padding
       * and the gap after it joined into one run of spaces: a row took
       * seven runs for four columns. */
      if (right)
        pad += fit - sw;
      nns__out_spaces(o, pad);
      nns__out_put(o, s, len);
      pad = right ? 0 : fit - sw;
    }
    nns__out_spaces(o, pad);
    nns__out_str(o, "\n");
  }
  if (g->n_alias) {
    text_rule(o, "-", rule);
    nns__out_str(o, "Output Shape dims shown as #k (expressions longer than "
                    "16 characters):\n");
    dim_legend(o, g, "  ", false);
  }
  if (opt->format == NNS_FORMAT_BACKWARD_TEXT)
    nns__backward_footer(o, a, rule);
  else
    text_footer(o, a, rule);
}

/* ==== CSV ==== */

static void write_csv(nns__out *o, const nns_analysis *a, const grid *g) {
  nns__out_str(o, "path,depth");
  for (int c = 0; c < g->ncols; c++) {
    nns__out_str(o, ",");
    nns__out_str(o, nns__cells[g->id[c]].key);
  }
  nns__out_str(o, ",flags\n");
  for (size_t r = 0; r < g->rows; r++) {
    nns_layer_info l = nns__layer_of(a, g->layer[r]);
    char path[1024];
    nns__text_clean(path, sizeof path, l.path);
    nns__csv_field(o, path);
    nns__out_fmt(o, ",%d", l.depth);
    for (int c = 0; c < g->ncols; c++) {
      nns__out_str(o, ",");
      nns__csv_field(o, cell(g, r, c));
    }
    char flags[64];
    nns__fmt_flags(flags, sizeof flags,
                   nns__layer_counts_of(a, g->layer[r]).flags);
    nns__out_str(o, ",");
    nns__csv_field(o, flags);
    nns__out_str(o, "\n");
  }
}

/* ==== Markdown ==== */

static void write_md(nns__out *o, const nns_analysis *a, const grid *g) {
  nns__out_str(o, "|");
  for (int c = 0; c < g->ncols; c++)
    nns__md_cell(o, nns__cells[g->id[c]].title);
  nns__out_str(o, "\n|");
  for (int c = 0; c < g->ncols; c++)
    nns__out_str(o, nns__cells[g->id[c]].right ? "---:|" : "---|");
  nns__out_str(o, "\n");
  for (size_t r = 0; r < g->rows; r++) {
    nns_layer_info l = nns__layer_of(a, g->layer[r]);
    nns__out_str(o, "|");
    for (int c = 0; c < g->ncols; c++) {
      const char *s = cell(g, r, c);
      /* Markdown drops leading spaces, so the Layer column shows the
       * module path rather than an indented name. */
      char path[1024];
      if (g->id[c] == C_LAYER && l.depth > 0 && l.path && *l.path)
        s = (nns__text_clean(path, sizeof path, l.path), path);
      nns__md_cell(o, s);
    }
    nns__out_str(o, "\n");
  }
  if (g->n_alias) {
    nns__out_str(o, "\nOutput Shape dims shown as #k:\n\n");
    dim_legend(o, g, "- ", true);
  }
  uncounted_lines(o, a, true);
}

/* ==== Entry point ==== */

/* The caller's options in full and checked; NNS_E_ARG when they are not
 * options of this report kind (`shapes`: nns_report_shapes's). */
static nns_status options_in(nns_report_options *o,
                             const nns_report_options *opts, bool shapes,
                             nns_error *err) {
  memset(o, 0, sizeof *o);
  if (shapes)
    o->format = NNS_FORMAT_SHAPES_TEXT;
  if (opts && nns__report_options(o, opts) != NNS_OK)
    return nns__report_err(err, NNS_E_ARG,
                           "nns_report_options.size is below the first "
                           "version's");
  if ((unsigned)o->format > NNS_FORMAT_LAYERS_JSON ||
      (unsigned)o->numbers > NNS_NUMBERS_RATIO ||
      (unsigned)o->wrap > NNS_WRAP_END || o->max_depth < NNS_DEPTH_ALL ||
      (unsigned)o->json_version > 2)
    return nns__report_err(err, NNS_E_ARG, "invalid report options");
  bool is_shapes = o->format == NNS_FORMAT_SHAPES_JSON ||
                   o->format == NNS_FORMAT_SHAPES_TEXT;
  if (is_shapes != shapes)
    return nns__report_err(err, NNS_E_ARG,
                           shapes ? "nns_report_shapes writes the SHAPES "
                                    "formats only; the others are "
                                    "nns_report's, of an analysis"
                                  : "the SHAPES formats are "
                                    "nns_report_shapes's, of a model");
  return NNS_OK;
}

/* Runs one renderer into the caller's callback. */
static nns_status render(const nns_model *m, const nns_analysis *a,
                         const nns_report_options *o, nns_write_fn write,
                         void *user, nns_error *err) {
  nns__out *out = malloc(sizeof *out);
  if (!out)
    return nns__report_err(err, NNS_E_NOMEM, "out of memory");
  nns__out_init(out, write, user);
  nns_status st = NNS_OK;
  if (!a) {
    st = nns__report_shapes(m, o, out);
  } else if (o->format == NNS_FORMAT_JSON) {
    st = nns__report_json(a, o, out);
  } else if (o->format == NNS_FORMAT_HTML) {
    st = nns__report_html(a, o, out);
  } else if (o->format >= NNS_FORMAT_LAYERS_TEXT) {
    st = nns__report_layers_table(a, o, out);
  } else {
    grid g;
    bool csv = o->format == NNS_FORMAT_CSV;
    bool text = o->format == NNS_FORMAT_TEXT ||
                o->format == NNS_FORMAT_BACKWARD_TEXT;
    st = grid_build(&g, a, o, csv, text);
    if (st == NNS_OK) {
      if (text)
        write_text(out, a, &g, o);
      else if (csv)
        write_csv(out, a, &g);
      else
        write_md(out, a, &g);
    }
    grid_free(&g);
  }
  if (st == NNS_E_NOMEM)
    st = nns__report_err(err, NNS_E_NOMEM, "out of memory");
  else if (st == NNS_OK)
    st = nns__out_finish(out, err);
  free(out);
  return st;
}

nns_status nns_report(const nns_analysis *analysis,
                      const nns_report_options *opts, nns_write_fn write,
                      void *user, nns_error *err) {
  if (!analysis || !write)
    return nns__report_err(err, NNS_E_ARG,
                           "nns_report needs an analysis and a write "
                           "callback");
  nns_report_options o;
  nns_status st = options_in(&o, opts, false, err);
  if (st != NNS_OK)
    return st;
  return render(nns_analysis_model(analysis), analysis, &o, write, user, err);
}

nns_status nns_report_shapes(const nns_model *model,
                             const nns_report_options *opts,
                             nns_write_fn write, void *user, nns_error *err) {
  if (!model || !write)
    return nns__report_err(err, NNS_E_ARG,
                           "nns_report_shapes needs a model and a write "
                           "callback");
  nns_report_options o;
  nns_status st = options_in(&o, opts, true, err);
  if (st != NNS_OK)
    return st;
  if (!(nns_model_state(model) & NNS_STATE_INFERRED))
    return nns__report_err(err, NNS_E_STATE,
                           "the model's shapes have not been inferred: call "
                           "nns_model_infer() before nns_report_shapes()");
  return render(model, NULL, &o, write, user, err);
}
