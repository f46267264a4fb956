/*
 * report_int.h - what the report renderers share: a buffered writer over the
 * caller's callback, number, shape and receptive-field formatting, and the
 * selection of the layer rows a report shows.
 *
 * The renderers read an analysis and an inspection only through the public
 * accessors of nnscan.h, as any other client of the library would: a
 * report cannot show a number the API does not give. The internal reads
 * of ../analyze/reads.h (declared there once, so the compiler checks them
 * against their definitions) give values a public accessor gives too,
 * each a field of one, without the rest of what that accessor does: a dim
 * by value without nns_analysis_value_dim's sized copy, a value's rank
 * without nns_analysis_value reading the model's value row as well, a
 * layer's depth and parent without its whole nns_analysis_layer row, its
 * nns_rf in place instead of copied out, a node's approximation sentence
 * (the JSON's cost.approximate diagnostic), and the model's own dim for
 * the shapes reports, which have no analysis.
 * The text summary makes these reads for every value or layer of a graph,
 * and that cost was measured: on bench/README.md's graph100k (callgrind,
 * `nnscan summary graph100k.onnx`), the rank read saved 1.4% of the
 * instructions (972.8M -> 958.8M Ir, commit 873d0f0) and the tree and rf
 * reads 1.1% more (-> 947.8M, c416871); the dim read is the same
 * by-value read for every dim printed. A public accessor per field would
 * give them to every client for one renderer's speed, so they stay here.
 */
#ifndef NNS_REPORT_INT_H
#define NNS_REPORT_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "nnscan.h"
#include "../analyze/reads.h"
#include "../base/json_writer.h"

/* ==== Reading the model ==== */

/* The public accessors as values: a failed read (bad index) gives the
 * zeroed row with rank -1, (size_t)-1 indexes and "" names. A report of an
 * analysis reads names and structure from its model (m) and every type,
 * count and warning from the analysis (a); the shapes reports pass a NULL
 * analysis and read the model's own inference. */
nns_model_info nns__info_of(const nns_model *m);
nns_value_info nns__value_of(const nns_model *m, const nns_analysis *a,
                             size_t i);
nns_dim nns__dim_of(const nns_model *m, const nns_analysis *a, size_t i,
                    int axis);
/* ... and the reads without a copy: ../analyze/reads.h. */
size_t nns__input_of(const nns_model *m, size_t k);
size_t nns__output_of(const nns_model *m, size_t k);
nns_layer_info nns__layer_of(const nns_analysis *a, size_t i);
nns_counts nns__layer_counts_of(const nns_analysis *a, size_t i);
nns_rf nns__layer_rf_of(const nns_analysis *a, size_t i);
nns_totals nns__totals_of(const nns_analysis *a);
/* nns_train_step.forward_set of the analysed step, or NULL (analyze/). */
const char *nns__train_forward_set(const nns_analysis *a);
nns_counts nns__total_counts_of(const nns_analysis *a);
nns_rf nns__total_rf_of(const nns_analysis *a);
const char *nns__warning_of(const nns_analysis *a, size_t i);
/* "sequence", "optional", "map", "sparse"; NULL for a tensor or unknown. */
const char *nns__kind_name(nns_type_kind k);

/* a + b, saturated at INT64_MAX (counts are never negative). */
static inline int64_t nns__sum_sat(int64_t a, int64_t b) {
  int64_t r;
  return __builtin_add_overflow(a, b, &r) ? INT64_MAX : r;
}

/* ==== Symbolic inputs ==== */

/* For the k-th graph input (nns_model_input) when it has a symbolic dim:
 * the option that fixes its shape, "--input audio=Nx1xN", into buf, and
 * its name as the result; NULL when every dim is known. */
const char *nns__input_fix(const nns_model *m, const nns_analysis *a,
                           size_t k, char *buf, size_t size);
/* The distinct symbols of the graph inputs' dims, in order, at most max
 * into out; returns how many. */
size_t nns__input_symbols(const nns_model *m, const nns_analysis *a,
                          const char **out, size_t max);

/* ==== Buffered output ==== */

/* nns__out, the buffered writer, and nns__jw, the JSON writer, are in
 * src/base/ (out.h, json_writer.h). */
/* `n` copies of the string s (a space, "─", ...). */
void nns__out_rep(nns__out *o, const char *s, int n);
/* n spaces (none when n <= 0). */
void nns__out_spaces(nns__out *o, int n);

/* ==== Formatting ==== */

/* Fills err (if not NULL) and returns code. */
nns_status nns__report_err(nns_error *err, nns_status code, const char *msg);

/* 1824010216, or 1,824,010,216 with `group`. */
void nns__fmt_int(char *buf, size_t size, int64_t v, bool group);
/* "1.82 G": three significant digits with k, M, G, T, P, E; values below
 * 1000 print whole. With `bytes`, IEC units of 1024: "44.6 MiB". */
/* x to `decimals` places, half away from zero on its exact decimal value
 * (JavaScript's toFixed: the HTML page rounds the same way). */
void nns__fmt_fixed(char *buf, size_t size, double x, int decimals);
void nns__fmt_clever(char *buf, size_t size, int64_t v, bool bytes);
/* "12.34%" of total; "-" when the total is 0. */
void nns__fmt_ratio(char *buf, size_t size, int64_t v, int64_t total);
/* A time in seconds: raw (CSV) "%.6g", else 3 significant digits with
 * ns, us, ms or s; "-" for 0. */
void nns__fmt_seconds(char *buf, size_t size, double s, bool raw);
/* A number as the options ask: raw (grouped unless `csv`), clever, ratio. */
void nns__fmt_number(char *buf, size_t size, int64_t v, int64_t total,
                     nns_numbers mode, bool bytes, bool csv);

/* A value's shape for the tables: "(-1, 64, 112, 112)". A symbolic leading
 * dim prints -1 (the batch, as torchscan prints it), other symbols by name,
 * an unknown dim "?", an unknown rank "?"; "-" when value is (size_t)-1. */
void nns__fmt_shape(char *buf, size_t size, const nns_model *m,
                    const nns_analysis *a, size_t value);
/* The same, each symbolic dim's name printed as name(ctx, symbol) says
 * (the text table's short names for long dim expressions). */
typedef const char *(*nns__dim_name_fn)(void *ctx, const char *symbol);
void nns__fmt_shape_named(char *buf, size_t size, const nns_model *m,
                          const nns_analysis *a, size_t value,
                          nns__dim_name_fn name, void *ctx);

/* Per-axis figures: "7" when every axis agrees, else "7x5". */
void nns__fmt_axes(char *buf, size_t size, const int64_t *v, int axes);
/* A field as the reports print it: its axes, then "+g" when it also
 * depends on global context ("851+g"). */
void nns__fmt_rf(char *buf, size_t size, const nns_rf *rf);

/*
 * Copies src (NULL: "") into dst as text safe for a terminal and for any
 * UTF-8 reader: C0 and C1 control characters and DEL become '?', bytes that
 * are not UTF-8 become U+FFFD. Cut at a character boundary to fit `size`
 * (NUL included). Returns the length written. The text, CSV and Markdown
 * reports pass every string that comes from the model through it (JSON
 * escapes instead).
 */
size_t nns__text_clean(char *dst, size_t size, const char *src);
/* The same, and the cleaned text's width in columns (one per code point)
 * in *width. */
size_t nns__text_clean_width(char *dst, size_t size, const char *src,
                             int *width);
/* Writes s cleaned as nns__text_clean does, whatever its length; returns
 * the bytes written. */
size_t nns__out_text(nns__out *o, const char *s);
/* Width of a UTF-8 string in terminal columns (one per code point). */
/* Terminal columns of a code point (0 combining or format, 2 East Asian
 * Wide/Fullwidth, else 1) and of a UTF-8 string. */
int nns__cp_width(uint32_t cp);
int nns__utf8_width(const char *s);

/* ==== Table cells (text, CSV, Markdown) ==== */

/* The cells of a layer row, in the text table's order, two kinds of row:
 *
 *   X(ID, "title", "key", cols, "unit", right): a cell summary.c's cell
 *     switch formats (its case C_ID);
 *   N(ID, "title", "key", cols, "unit", right, field, low): a number, the
 *     layer's nns_counts `field` (int64_t) over the total's, in the
 *     report's numbers style (as bytes when unit is "bytes"), "≥ " in
 *     front where `low` and the counts are NNS_COUNT_PARTIAL (not in CSV,
 *     which has a flags column). No case in summary.c; the HTML page reads
 *     it from the JSON layer's "key" item.
 *
 * "title": the text and Markdown header, and the HTML page's; "key": the
 * CSV header, the document's item the cell shows; cols: the NNS_COL_* bits
 * that select it (0: always shown); "unit": "count", "bytes", or "" for
 * the others; right: right-aligned. A new column of a per-layer count is
 * an N line here and its word in nnscan.h's NNS_COLUMN_MAP; the CLI,
 * Python, the page and the docs take the rest from these two
 * (CONTRIBUTING.md, Recipe 4). */
#define NNS__CELL_MAP(X, N)                                                    \
  X(LAYER, "Layer", "name", 0u, "", false)                                     \
  X(TYPE, "Type", "type", 0u, "", false)                                       \
  X(SHAPE, "Output Shape", "output_shape", 0u, "", false)                      \
  N(PARAMS, "Param #", "params", NNS_COL_PARAMS, "count", true, params, false) \
  N(BUFFERS, "Buffers", "buffers", NNS_COL_BUFFERS, "count", true, buffers,    \
    false)                                                                     \
  N(FLOPS, "FLOPs", "flops", NNS_COL_FLOPS, "count", true, flops, true)        \
  X(FLOPS_UNMASKED, "FLOPs (mask)", "flops_unmasked", NNS_COL_FLOPS, "count",  \
    true)                                                                      \
  N(MACS, "MACs", "macs", NNS_COL_MACS, "count", true, macs, true)             \
  X(MACS_UNMASKED, "MACs (mask)", "macs_unmasked", NNS_COL_MACS, "count",      \
    true)                                                                      \
  N(DMAS, "DMAs", "dmas", NNS_COL_DMAS, "count", true, dmas, true)             \
  X(RF, "RF", "rf", NNS_COL_RF, "", true)                                      \
  X(STRIDE, "Stride", "rf_stride", NNS_COL_RF, "", true)                       \
  X(PAD, "Pad", "rf_padding", NNS_COL_RF, "", true)                            \
  /* the same cells under torchscan's names (its summary()'s columns) */      \
  X(RF_TS, "Receptive field", "rf", NNS_COL_RF_FIELD | NNS_COL_RF_STATS, "",  \
    true)                                                                      \
  X(STRIDE_TS, "Effective stride", "rf_stride", NNS_COL_RF_STATS, "", true)    \
  X(PAD_TS, "Effective padding", "rf_padding", NNS_COL_RF_STATS, "", true)     \
  N(ACT, "Act. Mem", "activation_bytes", NNS_COL_ACT, "bytes", true,           \
    activation_bytes, false)                                                   \
  N(SAVED, "Saved", "saved_bytes", NNS_COL_SAVED, "bytes", true, saved_bytes,  \
    false)                                                                     \
  X(PCT_PARAMS, "% Params", "params_pct", NNS_COL_PCT, "", true)               \
  X(PCT_MACS, "% MACs", "macs_pct", NNS_COL_PCT, "", true)                     \
  N(BYTES, "Bytes", "bytes", NNS_COL_BYTES, "bytes", true, bytes, false)       \
  X(INTENSITY, "FLOP/B", "intensity", NNS_COL_ROOF, "", true)                  \
  X(BOUND, "Bound", "bound", NNS_COL_ROOF, "", false)                          \
  X(TIME, "Time", "time_s", NNS_COL_ROOF, "", true)

typedef enum nns__cell_id {
#define NNS__CELL_ENUM_(id, title, key, cols, unit, right) NNS__CELL_##id,
#define NNS__CELL_NENUM_(id, title, key, cols, unit, right, field, low)        \
  NNS__CELL_##id,
  NNS__CELL_MAP(NNS__CELL_ENUM_, NNS__CELL_NENUM_)
#undef NNS__CELL_ENUM_
#undef NNS__CELL_NENUM_
  NNS__CELL_COUNT
} nns__cell_id;

typedef struct nns__cell_def {
  const char *title;  /* text, Markdown and HTML header */
  const char *key;    /* CSV header, the document's item */
  unsigned cols;      /* NNS_COL_* bits that select it; 0 = always */
  const char *unit;   /* "count", "bytes" or "" */
  bool right;         /* right-aligned */
  /* N rows: the nns_counts member shown, as its offsetof + 1 (0: an X
   * row, formatted by summary.c's switch), and whether "≥ " marks a
   * partial count. */
  size_t field;
  bool low;
} nns__cell_def;

/* The cells, indexed by nns__cell_id (names.c). */
extern const nns__cell_def nns__cells[NNS__CELL_COUNT];


/* Writes s in exactly `w` columns: padded (left or right), or shortened to
 * w with a "…" where the wrap mode says. */
void nns__put_fit(nns__out *o, const char *s, int w, bool right,
                  nns_wrap wrap);
/* The same for s of `len` bytes and `sw` columns, known to the caller
 * (the text table measures its cells as it cleans them). */
void nns__put_fit_n(nns__out *o, const char *s, size_t len, int sw, int w,
                    bool right, nns_wrap wrap);
/* A CSV field, quoted when it must be. */
void nns__csv_field(nns__out *o, const char *s);
/* s escaped by Markdown's one rule (format.c): | \\ ` * _ ~ [ ] $ with a
 * backslash, < > & as entities, line breaks as spaces. */
void nns__md_text(nns__out *o, const char *s);
/* Columns nns__md_text adds to s (its escapes' length beyond one). */
int nns__md_extra(const char *s);
/* Text content or an attribute value for an HTML page: cleaned
 * (nns__text_clean; NULL as ""), then & < > " as entities. */
void nns__html_text(nns__out *o, const char *s);
/* s cleaned (nns__out_text), and when md also escaped by nns__md_text. */
void nns__note_text(nns__out *o, const char *s, bool md);
/* " s |", s escaped by nns__md_text. */
void nns__md_cell(nns__out *o, const char *s);
/* The text tree's guides ("│ └─") of row i, malloc'ed; NULL when out of
 * memory. parent[] and last[] (last child, or -1) cover every row. */
char *nns__tree_prefix(const size_t *parent, const size_t *last, int depth,
                       size_t i);
/* The same written into dst (room for NNS__TREE_PREFIX_MAX bytes: at most
 * 256 levels of 6 bytes, and the NUL); returns its length, and its width
 * in columns in *width. */
enum { NNS__TREE_PREFIX_MAX = 256 * 6 + 1 };
size_t nns__tree_prefix_into(char *dst, const size_t *parent,
                             const size_t *last, int depth, size_t i,
                             int *width);

/* ==== Layer rows ==== */

/* The depth a report shows: max_depth resolved against the format's
 * default; INT32_MAX for every depth. */
int nns__report_depth(const nns_report_options *o);

/* The flags of a count as words: "partial,symbolic" ("" if none). */
void nns__fmt_flags(char *buf, size_t size, unsigned flags);

/* The name of the model for the root row. */
const char *nns__model_name(const nns_model *m, const nns_report_options *o);

nns_status nns__report_json(const nns_analysis *a,
                            const nns_report_options *o, nns__out *out);
/* "path": ..., "ir_version", "producer", "producer_version", "graph",
 * "nodes", "subgraph_nodes": the model fields both JSON documents share. */
void nns__json_model_fields(nns__jw *w, const nns_model *m,
                            const char *path);
/* backward.c: NNS_FORMAT_BACKWARD_TEXT's heading, and its end (after the
 * rows): the closing rule and the not-counted lines (summary.c's
 * nns__text_notes). */
void nns__backward_heading(nns__out *o);
void nns__backward_footer(nns__out *o, const nns_analysis *a, int width);
/* summary.c: the text report's lines on what was not counted (no cost
 * rule, no size, failed rule) and the ops without a shape rule. */
void nns__text_notes(nns__out *o, const nns_analysis *a);

/* "opsets": {"domain": version, ...}, in both JSON documents. */
void nns__json_opsets(nns__jw *w, const nns_model *m);
/* The SHAPES formats (shapes.c). */
void nns__json_value_type(nns__jw *w, const nns_model *m,
                          const nns_analysis *a, size_t i,
                          const nns_value_info *v);
nns_status nns__report_shapes(const nns_model *m, const nns_report_options *o,
                              nns__out *out);
/* The caller's options in full (fields past its size zero); NNS_E_ARG when
 * its size is below the first version's. */
nns_status nns__report_options(nns_report_options *o,
                               const nns_report_options *given);
nns_status nns__counts_in(nns_counts *c, const nns_counts *given);
/* train.c: a recorded training step's JSON keys and text footer lines
 * (nothing without one; the totals and footer return false then). */
void nns__json_train_layer(nns__jw *w, const nns_totals *t,
                           const nns_counts *c);
bool nns__json_train_totals(nns__jw *w, const nns_analysis *a);
bool nns__text_train_footer(nns__out *o, const nns_analysis *a);
/* parallel.c: one rank of a parallel plan in the JSON (the totals'
 * object: false without a plan; a layer's) and the text footer. */
bool nns__json_per_rank(nns__jw *w, const nns_analysis *a);
void nns__json_per_rank_layer(nns__jw *w, const nns_analysis *a, size_t l);
void nns__text_per_rank(nns__out *o, const nns_analysis *a);
nns_status nns__rf_in(nns_rf *rf, const nns_rf *given);

/* ==== HTML (html.c, gzip.c) ==== */

/* A growing in-memory document: an nns_write_fn target. data is
 * NUL-terminated once anything was written; the caller frees it. */
typedef struct nns__membuf {
  char *data;
  size_t len, cap;
} nns__membuf;
int nns__membuf_write(void *user, const char *data, size_t size);

/* What an HTML page shows: a JSON document of one of nnscan's kinds. */
typedef struct nns__html_doc {
  const char *kind;    /* the document's "schema": "nnscan.summary",
                          "nnscan.table", "nnscan.inspect", "nnscan.diff" */
  const char *title;   /* the page's <title> */
  const char *json;    /* the document, UTF-8 JSON */
  size_t json_len;
  const char *figure;  /* optional markup the viewer shows as is (the
                          table's SVG scatter); NULL for none */
  size_t figure_len;
} nns__html_doc;

/* Documents from this size on (512 KiB) are embedded gzipped (base64). */
#define NNS__HTML_GZIP_FROM ((size_t)512 << 10)

/*
 * Writes the self-contained page that shows d: inline CSS, the document in
 * a <script type="application/json" id="nnscan-data" data-kind=KIND>
 * block, and the viewer script, which chooses its view by the kind. Any
 * report (the inspector's too) becomes a page by writing its JSON into an
 * nns__membuf and calling this. NNS_E_NOMEM if compression ran out of
 * memory; write errors stay in o (nns__out_finish reports them).
 */
nns_status nns__html_page(nns__out *o, const nns__html_doc *d);

/* A JSON document's writer: `subject` is what it reports on. */
typedef nns_status (*nns__json_fn)(const void *subject,
                                   const nns_report_options *opt,
                                   nns__out *o);

/* The page of the document `json` writes about `subject`, shown as `kind`
 * ("nnscan.summary", "nnscan.inspect"): the document goes through an
 * nns__membuf into nns__html_page(). NNS_E_NOMEM. */
nns_status nns__html_of(nns__out *o, const char *kind, const char *title,
                        nns__json_fn json, const void *subject,
                        const nns_report_options *opt);

/* The summary page of an analysis (nns_report, NNS_FORMAT_HTML). */
nns_status nns__report_html(const nns_analysis *a,
                            const nns_report_options *o, nns__out *out);
/* NNS_FORMAT_LAYERS_TEXT, _CSV, _MD: thoplw's table (layers_table.c). */
nns_status nns__report_layers_table(const nns_analysis *a,
                                    const nns_report_options *o,
                                    nns__out *out);

/* gzip (RFC 1952) of in[0..n) into a malloc'ed *out; NNS_E_NOMEM. */
nns_status nns__gzip(const unsigned char *in, size_t n, unsigned char **out,
                     size_t *out_len);

/* ==== Reading an inspection ==== */

/* inspect_read.c: the inspection's public accessors as values, which is
 * all the inspection renderers read (they never see its inside). Indexes
 * come from the inspection itself, so a read does not fail; if one did, it
 * would give the zeroed row with (size_t)-1 links and "" strings. */
nns_inspect_module_info nns__imodule_of(const nns_inspection *in, size_t m);
nns_inspect_call_info nns__icall_of(const nns_inspection *in, size_t i);
nns_inspect_tensor_info nns__itensor_of(const nns_inspection *in, size_t i,
                                        size_t k);
nns_inspect_batch_info nns__ibatch_of(const nns_inspection *in, size_t b);
/* Module m's stats in full (nns_inspection_module_stats); false only when
 * out of memory. */
bool nns__istats_of(const nns_inspection *in, size_t m, nns_inspect_stats *s);
/* A total over every pass, per pass (the reports' unit): 0 without one. */
double nns__inspect_per_pass(const nns_inspection *in, double total);
/* Ranks that ran a pass: the highest rank seen + 1. */
int nns__inspect_ranks(const nns_inspection *in);
/* inspect_ranks.c: the rank rows (docs/inspect.md, "Ranks"): written when
 * a binding set a rank (nns_inspection_set_rank) or several ranks ran. */
bool nns__inspect_has_rank_rows(const nns_inspection *in);
void nns__inspect_ranks_json(nns__jw *w, const nns_inspection *in);
void nns__inspect_ranks_text(nns__out *o, const nns_inspection *in,
                             const nns_report_options *opt);

/* inspect_roofline.c: an inspection measured against the roofline
 * (docs/inspect.md). The roof fraction of a module (its row d, its stats
 * s) is its roofline time over its measured forward time per pass, -1
 * when either is unknown; the ranking lists up to `max` modules, furthest
 * from their roof first. The footer and JSON parts write nothing when no
 * module has a roofline time. */
bool nns__inspect_has_roofline(const nns_inspection *in);
double nns__inspect_roof_fraction(const nns_inspection *in,
                                  const nns_inspect_module_info *d,
                                  const nns_inspect_stats *s);
const char *nns__inspect_hardware(const nns_inspection *in);
size_t nns__inspect_roof_ranking(const nns_inspection *in, size_t *out,
                                 size_t max);
void nns__inspect_roofline_footer(nns__out *o, const nns_inspection *in);
/* A fraction as a percentage for the text: "12.3%", "<0.01%" (never an
 * exponent). */
void nns__inspect_pct(char *buf, size_t size, double f);
void nns__inspect_roofline_json(nns__jw *w, const nns_inspection *in);
void nns__inspect_path_cell(char *buf, size_t size, const char *path,
                            size_t len);

#endif
