/*
 * html.c - the HTML report: one self-contained page (no file beside it,
 * nothing fetched) that shows a JSON document of nnscan's with a small
 * hand-written viewer (src/report/html/viewer.js and viewer.css, compiled
 * into the library as strings by CMake: html_assets.c in the build tree).
 *
 * The page is the document plus the viewer, so every number the page shows
 * is one of the document's: nns__html_page() wraps any JSON document of a
 * known kind ("nnscan.summary" from nns_report, "nnscan.table" from
 * nns_report_table, "nnscan.inspect" from nns_inspection_report,
 * "nnscan.diff" from nns_diff_report), and the viewer picks its adapter,
 * and so its view, by the kind.
 *
 * The document sits in a <script type="application/json"> block. JSON only
 * has '<' inside strings, where "\u003c" means the same, so writing every
 * '<' that way keeps "</script>" and "<!--" in a layer's name from ending
 * the block. A document larger than NNS__HTML_GZIP_FROM is gzipped and
 * base64-encoded instead (JSON of a 10,000-layer model is ~17 MB, ~10x
 * less compressed); the browser inflates it with DecompressionStream.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../base/base.h"
#include "report_int.h"

/* The viewer, from html_assets.c (generated at build time). */
extern const char nns__html_viewer_js[];
extern const char nns__html_viewer_css[];

/* ==== Documents in memory ==== */

int nns__membuf_write(void *user, const char *data, size_t size) {
  nns__membuf *b = user;
  char *p = size < SIZE_MAX - 1 - b->len
                ? nns__grow(b->data, &b->cap, b->len + size + 1, 1, 65536)
                : NULL;
  if (!p)
    return 1; /* the report then fails with NNS_E_IO; the caller sees
                 it as out of memory */
  b->data = p;
  memcpy(b->data + b->len, data, size);
  b->len += size;
  b->data[b->len] = 0;
  return 0;
}

/* ==== The page ==== */

/* Text content or an attribute value (short: a title), escaped for HTML
 * after nns__text_clean: a model's name may hold control bytes or bytes
 * that are not UTF-8, and the page must stay valid UTF-8 text. */
void nns__html_text(nns__out *o, const char *s) {
  char clean[2048];
  nns__text_clean(clean, sizeof clean, s ? s : "");
  for (const char *p = clean; *p; p++) {
    switch (*p) {
    case '&': nns__out_str(o, "&amp;"); break;
    case '<': nns__out_str(o, "&lt;"); break;
    case '>': nns__out_str(o, "&gt;"); break;
    case '"': nns__out_str(o, "&quot;"); break;
    default: nns__out_put(o, p, 1);
    }
  }
}

/* The JSON with every '<' as \u003c (see the top of the file). */
static void json_escaped(nns__out *o, const char *s, size_t n) {
  size_t start = 0;
  for (size_t i = 0; i < n; i++) {
    if (s[i] != '<')
      continue;
    nns__out_put(o, s + start, i - start);
    nns__out_str(o, "\\u003c");
    start = i + 1;
  }
  nns__out_put(o, s + start, n - start);
}

static void base64(nns__out *o, const unsigned char *p, size_t n) {
  static const char abc[] =
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  char line[76 + 1];
  size_t k = 0;
  for (size_t i = 0; i < n; i += 3) {
    uint32_t v = (uint32_t)p[i] << 16;
    if (i + 1 < n)
      v |= (uint32_t)p[i + 1] << 8;
    if (i + 2 < n)
      v |= p[i + 2];
    line[k++] = abc[v >> 18 & 63];
    line[k++] = abc[v >> 12 & 63];
    line[k++] = i + 1 < n ? abc[v >> 6 & 63] : '=';
    line[k++] = i + 2 < n ? abc[v & 63] : '=';
    if (k == 76) {
      line[k++] = '\n';
      nns__out_put(o, line, k);
      k = 0;
    }
  }
  nns__out_put(o, line, k);
}

/* The layer table's cells (report_int.h's NNS__CELL_MAP) for the summary
 * page, whose table takes its headers and units from here: a
 * <script type="application/json" id="nnscan-columns"> block of
 * [{"key", "title", "unit", "columns": [words], "number"}, ...]; "number"
 * (true or absent): a count of the layer's, its cell selected by a column
 * of `all`, that the page shows without code of its own. */
static void columns_block(nns__out *o) {
  nns__out_str(o, "<script type=\"application/json\" id=\"nnscan-columns\">"
                  "\n");
  nns__jw jw;
  nns__jw_init(&jw, o);
  nns__jw_arr(&jw, NNS__JV);
  for (int c = 0; c < NNS__CELL_COUNT; c++) {
    nns__jw_obj(&jw, NNS__JV);
    nns__jw_str(&jw, NNS__JK("key"), nns__cells[c].key);
    nns__jw_str(&jw, NNS__JK("title"), nns__cells[c].title);
    nns__jw_str(&jw, NNS__JK("unit"), nns__cells[c].unit);
    /* The column words that select it (none: always shown), for the
     * docs' list of columns (tools/docs_tables.py). */
    nns__jw_arr(&jw, NNS__JK("columns"));
    for (int bit = 0; nns_column_name(bit); bit++)
      if (nns__cells[c].cols & (1u << bit))
        nns__jw_str(&jw, NNS__JV, nns_column_name(bit));
    nns__jw_end(&jw, NULL);
    /* A count read from the layer's own "key" item (an N row) selected by
     * a column of `all`: the page, which shows `all`, needs no code of its
     * own for it. */
    bool in_all = false;
    for (int bit = 0; nns_column_name(bit); bit++)
      if ((nns__cells[c].cols & (1u << bit)) &&
          (nns_column_flags(bit) & NNS_COLUMN_IN_ALL))
        in_all = true;
    if (nns__cells[c].field && in_all)
      nns__jw_bool(&jw, NNS__JK("number"), true);
    nns__jw_end(&jw, NULL);
  }
  nns__jw_end(&jw, NULL);
  nns__jw_finish(&jw); /* no nesting past the fixed stack: never fails */
  nns__out_str(o, "\n</script>\n");
}

nns_status nns__html_page(nns__out *o, const nns__html_doc *d) {
  nns__out_str(o, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n"
                  "<meta charset=\"utf-8\">\n"
                  "<meta name=\"viewport\" content=\"width=device-width, "
                  "initial-scale=1\">\n"
                  /* Nothing may be fetched: the policy makes the browser
                   * refuse any request the page could make by mistake. */
                  "<meta http-equiv=\"Content-Security-Policy\" "
                  "content=\"default-src 'none'; style-src 'unsafe-inline'; "
                  "script-src 'unsafe-inline'; img-src data: blob:; "
                  "connect-src data: blob:\">\n"
                  "<meta name=\"generator\" content=\"nnscan ");
  nns__html_text(o, nns_version());
  nns__out_str(o, "\">\n<title>");
  nns__html_text(o, d->title);
  nns__out_str(o, "</title>\n<style>\n");
  nns__out_str(o, nns__html_viewer_css);
  nns__out_str(o, "</style>\n</head>\n<body>\n"
                  "<noscript>This report needs JavaScript to draw; its data "
                  "is the JSON document in the page source.</noscript>\n");
  if (d->figure && d->figure_len) {
    nns__out_str(o, "<template id=\"nnscan-figure\">\n");
    nns__out_put(o, d->figure, d->figure_len);
    nns__out_str(o, "</template>\n");
  }
  nns__out_str(o, "<script type=\"application/json\" id=\"nnscan-data\" "
                  "data-kind=\"");
  nns__html_text(o, d->kind);
  nns_status st = NNS_OK;
  if (d->json_len >= NNS__HTML_GZIP_FROM) {
    unsigned char *z = NULL;
    size_t zn = 0;
    st = nns__gzip((const unsigned char *)d->json, d->json_len, &z, &zn);
    if (st != NNS_OK)
      return st;
    nns__out_str(o, "\" data-encoding=\"gzip+base64\">\n");
    base64(o, z, zn);
    free(z);
  } else {
    nns__out_str(o, "\" data-encoding=\"json\">\n");
    json_escaped(o, d->json, d->json_len);
  }
  nns__out_str(o, "\n</script>\n");
  if (!strcmp(d->kind, "nnscan.summary"))
    columns_block(o);
  nns__out_str(o, "<script>\n");
  nns__out_str(o, nns__html_viewer_js);
  nns__out_str(o, "</script>\n</body>\n</html>\n");
  return st;
}

nns_status nns__html_of(nns__out *o, const char *kind, const char *title,
                        nns__json_fn json, const void *subject,
                        const nns_report_options *opt) {
  nns__membuf doc = {0};
  nns__out *tmp = malloc(sizeof *tmp);
  if (!tmp)
    return NNS_E_NOMEM;
  nns__out_init(tmp, nns__membuf_write, &doc);
  nns_status st = json(subject, opt, tmp);
  if (st == NNS_OK && nns__out_finish(tmp, NULL) != NNS_OK)
    st = NNS_E_NOMEM;
  free(tmp);
  if (st == NNS_OK) {
    nns__html_doc d = {.kind = kind, .title = title, .json = doc.data,
                       .json_len = doc.len};
    st = nns__html_page(o, &d);
  }
  free(doc.data);
  return st;
}

static nns_status summary_json(const void *a, const nns_report_options *opt,
                               nns__out *o) {
  return nns__report_json(a, opt, o);
}

nns_status nns__report_html(const nns_analysis *a,
                            const nns_report_options *opt, nns__out *o) {
  char title[512];
  snprintf(title, sizeof title, "%s: nnscan summary",
           nns__model_name(nns_analysis_model(a), opt));
  return nns__html_of(o, "nnscan.summary", title, summary_json, a, opt);
}
