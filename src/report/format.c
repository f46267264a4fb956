/*
 * format.c - the pieces every report is made of: a buffered writer over the
 * caller's callback, JSON strings, and how numbers, shapes and per-axis
 * figures print. One place, so that the text table, CSV, Markdown and the
 * model table print a number the same way.
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../base/base.h"
#include "report_int.h"

/* ==== Buffered output ==== */

/* Sixty-four spaces: the text tables' padding is copied from here (the
 * table pads every cell, and filling a block per call was a tenth of the
 * text report). */
static const char spaces[64] =
    "                                                                ";

void nns__out_spaces(nns__out *o, int n) {
  /* A cell's padding, nearly always: all 64 bytes copied at a fixed size
   * (a few vector stores) where the buffer has room, n of them kept; the
   * rest is overwritten by what comes next, as only len bytes go out. */
  if (n > 0 && n <= (int)sizeof spaces && !o->failed &&
      sizeof o->buf - o->len >= sizeof spaces) {
    memcpy(o->buf + o->len, spaces, sizeof spaces);
    o->len += (size_t)n;
    return;
  }
  for (; n > (int)sizeof spaces; n -= (int)sizeof spaces)
    nns__out_put(o, spaces, sizeof spaces);
  if (n > 0)
    nns__out_put(o, spaces, (size_t)n);
}

void nns__out_rep(nns__out *o, const char *s, int n) {
  size_t len = strlen(s);
  if (len == 1 && s[0] == ' ') {
    nns__out_spaces(o, n);
    return;
  }
  if (len == 1 && n > 0) {
    /* Padding, a byte at a time, was most of the text table's writes:
     * a run goes out in blocks. */
    char run[64];
    memset(run, s[0], sizeof run);
    for (; n > (int)sizeof run; n -= (int)sizeof run)
      nns__out_put(o, run, sizeof run);
    nns__out_put(o, run, (size_t)n);
    return;
  }
  for (int i = 0; i < n; i++)
    nns__out_put(o, s, len);
}

/* The code point of the n-byte UTF-8 sequence at p (checked by
 * nns__utf8_len). */
static uint32_t utf8_code_point(const unsigned char *p, size_t n) {
  if (n == 1)
    return p[0];
  uint32_t cp = p[0] & (0x7f >> n);
  for (size_t i = 1; i < n; i++)
    cp = cp << 6 | (p[i] & 0x3f);
  return cp;
}

/* Unicode's format characters (general category Cf): invisible, and the
 * bidi ones reorder the text around them. */
static bool is_format_char(uint32_t cp) {
  static const uint32_t ranges[][2] = {
      {0x00ad, 0x00ad},   {0x0600, 0x0605},   {0x061c, 0x061c},
      {0x06dd, 0x06dd},   {0x070f, 0x070f},   {0x0890, 0x0891},
      {0x08e2, 0x08e2},   {0x180e, 0x180e},   {0x200b, 0x200f},
      {0x202a, 0x202e},   {0x2060, 0x2064},   {0x2066, 0x206f},
      {0xfeff, 0xfeff},   {0xfff9, 0xfffb},   {0x110bd, 0x110bd},
      {0x110cd, 0x110cd}, {0x13430, 0x1343f}, {0x1bca0, 0x1bca3},
      {0x1d173, 0x1d17a}, {0xe0001, 0xe0001}, {0xe0020, 0xe007f}};
  for (size_t i = 0; i < sizeof ranges / sizeof *ranges; i++)
    if (cp >= ranges[i][0] && cp <= ranges[i][1])
      return true;
  return false;
}

/* Columns a code point takes in a terminal: 0 for combining marks (they
 * sit on the character before) and format characters, 2 for East Asian
 * Wide and Fullwidth characters (CJK, Hangul, fullwidth forms, emoji),
 * 1 for the rest. */
int nns__cp_width(uint32_t cp) {
  static const uint32_t zero[][2] = {
      {0x0300, 0x036f}, {0x0483, 0x0489}, {0x0591, 0x05bd},
      {0x05bf, 0x05bf}, {0x05c1, 0x05c2}, {0x05c4, 0x05c5},
      {0x05c7, 0x05c7}, {0x0610, 0x061a}, {0x064b, 0x065f},
      {0x0670, 0x0670}, {0x06d6, 0x06dc}, {0x06df, 0x06e4},
      {0x06e7, 0x06e8}, {0x06ea, 0x06ed}, {0x0900, 0x0902},
      {0x093a, 0x093a}, {0x093c, 0x093c}, {0x0941, 0x0948},
      {0x094d, 0x094d}, {0x0951, 0x0957}, {0x0e31, 0x0e31},
      {0x0e34, 0x0e3a}, {0x0e47, 0x0e4e}, {0x1ab0, 0x1aff},
      {0x1dc0, 0x1dff}, {0x200b, 0x200f}, {0x202a, 0x202e},
      {0x2060, 0x206f}, {0x20d0, 0x20ff}, {0x302a, 0x302d},
      {0x3099, 0x309a}, {0xfe00, 0xfe0f}, {0xfe20, 0xfe2f},
      {0xfeff, 0xfeff}, {0xe0001, 0xe01ef}};
  static const uint32_t wide[][2] = {
      {0x1100, 0x115f},   {0x231a, 0x231b},   {0x2329, 0x232a},
      {0x23e9, 0x23ec},   {0x2614, 0x2615},   {0x2e80, 0x303e},
      {0x3041, 0x3247},   {0x3250, 0x4dbf},   {0x4e00, 0xa4cf},
      {0xa960, 0xa97f},   {0xac00, 0xd7a3},   {0xf900, 0xfaff},
      {0xfe10, 0xfe19},   {0xfe30, 0xfe6f},   {0xff00, 0xff60},
      {0xffe0, 0xffe6},   {0x16fe0, 0x16fe4}, {0x17000, 0x18cff},
      {0x1b000, 0x1b2ff}, {0x1f300, 0x1f64f}, {0x1f680, 0x1f6ff},
      {0x1f900, 0x1f9ff}, {0x20000, 0x2fffd}, {0x30000, 0x3fffd}};
  if (cp < 0x300)
    return cp == 0xad ? 0 : 1;
  for (size_t i = 0; i < sizeof zero / sizeof *zero; i++)
    if (cp >= zero[i][0] && cp <= zero[i][1])
      return 0;
  for (size_t i = 0; i < sizeof wide / sizeof *wide; i++)
    if (cp >= wide[i][0] && cp <= wide[i][1])
      return 2;
  return 1;
}

/* Columns of the UTF-8 character at p, and its length in *len (1 for a
 * byte that starts no character, counted as one column). */
static int char_width(const unsigned char *p, size_t *len) {
  if (*p < 0x80) {
    *len = 1;
    return 1;
  }
  size_t n = nns__utf8_len(p);
  if (n == 0) {
    *len = 1;
    return 1;
  }
  *len = n;
  return nns__cp_width(utf8_code_point(p, n));
}

size_t nns__text_clean_width(char *dst, size_t size, const char *src,
                             int *width) {
  char esc[16];     /* a format character, escaped */
  size_t columns = 0; /* display columns of what was written */
  if (!size) {
    *width = 0;
    return 0;
  }
  size_t len = 0;
  const unsigned char *p = (const unsigned char *)(src ? src : "");
  /* Eight printable ASCII bytes at a time while the string and dst hold
   * them (names are 10 to 60 bytes): a word has no byte below 0x20 and
   * none above 0x7e when neither of the two classic borrow tests sets a
   * high bit. The string's length bounds the reads. */
  size_t left = strlen((const char *)p);
  const uint64_t ones = 0x0101010101010101u, highs = 0x8080808080808080u;
  while (left >= 8 && len + 8 < size) {
    uint64_t x;
    memcpy(&x, p, 8);
    if (((x - ones * 0x20) & ~x & highs) || (((x + ones * 0x01) | x) & highs))
      break;
    memcpy(dst + len, p, 8);
    len += 8;
    p += 8;
    left -= 8;
    columns += 8;
  }
  while (*p) {
    /* Printable ASCII, nearly every byte of a report, is kept as is
     * without a call to the UTF-8 decoder. */
    if (*p >= 0x20 && *p < 0x7f) {
      if (len + 1 >= size)
        break;
      dst[len++] = (char)*p++;
      columns++;
      continue;
    }
    size_t n = nns__utf8_len(p);
    const char *put = (const char *)p;
    size_t put_len = n;
    if (n == 0) { /* not UTF-8: U+FFFD, as the JSON writer does */
      put = "\xef\xbf\xbd";
      put_len = 3;
      n = 1;
    } else if ((n == 1 && (*p < 0x20 || *p == 0x7f)) ||
               (n == 2 && p[0] == 0xc2 && p[1] < 0xa0)) {
      put = "?"; /* C0, DEL and C1 controls (ESC, CSI, newlines) */
      put_len = 1;
    } else if (is_format_char(utf8_code_point(p, n))) {
      /* A bidi or other format control (U+202E turns the rest of the line
       * around; U+200B is invisible) is shown, not obeyed: "\u202e". */
      uint32_t cp = utf8_code_point(p, n);
      snprintf(esc, sizeof esc, cp > 0xffff ? "\\U%08x" : "\\u%04x",
               (unsigned)cp);
      put = esc;
      put_len = strlen(esc);
      if (len + put_len >= size)
        break;
      memcpy(dst + len, put, put_len);
      len += put_len;
      columns += put_len; /* ASCII: one column a byte */
      p += n;
      continue;
    }
    if (len + put_len >= size)
      break; /* cut at a character boundary */
    memcpy(dst + len, put, put_len);
    size_t cl;
    columns += char_width((const unsigned char *)put, &cl);
    len += put_len;
    p += n;
  }
  dst[len] = 0;
  *width = (int)columns;
  return len;
}

size_t nns__text_clean(char *dst, size_t size, const char *src) {
  int width;
  return nns__text_clean_width(dst, size, src, &width);
}

size_t nns_text_clean(char *dst, size_t size, const char *src) {
  return dst ? nns__text_clean(dst, size, src) : 0;
}

size_t nns__out_text(nns__out *o, const char *s) {
  char buf[1024];
  size_t written = 0;
  const char *p = s ? s : "";
  /* Long strings in pieces; a piece never splits a UTF-8 sequence, since
   * the cut is at a lead byte. */
  while (*p) {
    size_t take = strlen(p);
    if (take > 256) {
      take = 256;
      while (take > 0 && ((unsigned char)p[take] & 0xc0) == 0x80)
        take--;
      if (take == 0)
        take = 256;
    }
    char piece[260];
    memcpy(piece, p, take);
    piece[take] = 0;
    size_t n = nns__text_clean(buf, sizeof buf, piece);
    nns__out_put(o, buf, n);
    written += n;
    p += take;
  }
  return written;
}

nns_status nns__report_err(nns_error *err, nns_status code, const char *msg) {
  if (err) {
    memset(err, 0, sizeof *err);
    err->code = code;
    err->offset = -1;
    snprintf(err->message, sizeof err->message, "%s", msg);
  }
  return code;
}

int nns_write_stdio(void *file, const char *data, size_t size) {
  if (!file)
    return -1;
  return fwrite(data, 1, size, (FILE *)file) == size ? 0 : -1;
}

/* ==== Numbers ==== */

/* The decimal digits of v, '-' first when negative, ending at `end` (a
 * buffer of at least 21 bytes before it); returns where they start. The
 * table prints a few numbers per row, and snprintf's "%lld" was a fifth of
 * a 100k-layer text report. */
static char *digits_of(char *end, int64_t v) {
  char *p = end;
  uint64_t u = v < 0 ? 0 - (uint64_t)v : (uint64_t)v;
  do {
    *--p = (char)('0' + u % 10);
    u /= 10;
  } while (u);
  if (v < 0)
    *--p = '-';
  return p;
}

/* Appends s (len bytes) at buf + n as snprintf(buf + n, size - n, "%s", s)
 * would: cut to fit with its NUL, nothing written once n >= size, and the
 * length it would have had returned, so that callers keep snprintf's
 * truncation exactly. */
static size_t put_cut(char *buf, size_t size, size_t n, const char *s,
                      size_t len) {
  if (n < size) {
    size_t room = size - n - 1, k = len < room ? len : room;
    memcpy(buf + n, s, k);
    buf[n + k] = 0;
  }
  return n + len;
}

void nns__fmt_int(char *buf, size_t size, int64_t v, bool group) {
  char digits[24], *end = digits + sizeof digits;
  const char *d = digits_of(end, v);
  if (!group) {
    put_cut(buf, size, 0, d, (size_t)(end - d));
    return;
  }
  char tmp[48];
  size_t n = 0;
  if (*d == '-')
    tmp[n++] = *d++;
  size_t len = (size_t)(end - d);
  for (size_t i = 0; i < len; i++) {
    if (i && (len - i) % 3 == 0)
      tmp[n++] = ',';
    tmp[n++] = d[i];
  }
  put_cut(buf, size, 0, tmp, n);
}

/* x with `decimals` digits after the point, rounded half away from zero
 * on its exact decimal value: the rule of JavaScript's toFixed, so that
 * the HTML page (src/report/html/viewer.js) and the text reports round a
 * value the same way (6.125 is "6.13" in both; printf's "%.2f" gives
 * "6.12", rounding a tie to even). printf writes the exact expansion;
 * 25 more digits than kept decide the rounding, since a double is never
 * within 1e-19 of a tie it is not equal to. */
void nns__fmt_fixed(char *buf, size_t size, double x, int decimals) {
  char t[400];
  if (!size)
    return;
  if (!isfinite(x) || fabs(x) >= 1e21 || decimals < 0 || decimals > 20) {
    snprintf(buf, size, "%.*f", decimals < 0 ? 0 : decimals, x);
    return;
  }
  snprintf(t, sizeof t, "%.*f", decimals + 25, x);
  char *dot = strchr(t, '.');
  if (!dot) {
    snprintf(buf, size, "%s", t);
    return;
  }
  bool up = dot[decimals + 1] >= '5';
  dot[decimals ? decimals + 1 : 0] = 0;
  size_t len = strlen(t);
  size_t first = t[0] == '-' ? 1 : 0;
  for (size_t i = len; up && i-- > first;) {
    if (t[i] == '.')
      continue;
    if (t[i] == '9') {
      t[i] = '0';
    } else {
      t[i]++;
      up = false;
    }
  }
  if (up) { /* carried past the first digit: 9.99 -> 10.00 */
    memmove(t + first + 1, t + first, len - first + 1);
    t[first] = '1';
  }
  snprintf(buf, size, "%s", t);
}

void nns__fmt_clever(char *buf, size_t size, int64_t v, bool bytes) {
  static const char *si[] = {"", "k", "M", "G", "T", "P", "E"};
  static const char *iec[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
  double base = bytes ? 1024.0 : 1000.0;
  double x = (double)v, mag = x < 0 ? -x : x;
  int u = 0;
  while (mag >= base && u < 6) {
    x /= base;
    mag /= base;
    u++;
  }
  /* Three significant digits; rounding can carry into the next unit
   * (999.7 k is 1.00 M). */
  if (u < 6 && u > 0 && mag >= 999.5) {
    x /= base;
    mag /= base;
    u++;
  }
  const char *unit = bytes ? iec[u] : si[u];
  if (u == 0)
    snprintf(buf, size, "%lld%s%s", (long long)v, bytes ? " " : "", unit);
  else {
    char num[64];
    nns__fmt_fixed(num, sizeof num, x, mag >= 99.95 ? 0 : mag >= 9.995 ? 1 : 2);
    snprintf(buf, size, "%s %s", num, unit);
  }
}

/* thop's unit: the first scale the value is strictly above, else "B". */
static double thop_unit(double v, const char **unit) {
  static const struct {
    double scale;
    const char *unit;
  } units[] = {{1e12, "T"}, {1e9, "G"}, {1e6, "M"}, {1e3, "K"}};
  for (size_t u = 0; u < sizeof units / sizeof *units; u++)
    if (v > units[u].scale) {
      *unit = units[u].unit;
      return v / units[u].scale;
    }
  *unit = "B";
  return v;
}

/* thoplw's unit: divided by 1000 while at least 1000, one division at a
 * time as its loop does (up to P), after a space; a space for none. */
static double thoplw_unit(double v, const char **unit) {
  static const char *const units[] = {"  ", " K", " M", " G", " T", " P"};
  size_t u = 0;
  while (v >= 1000 && u + 1 < sizeof units / sizeof *units) {
    v /= 1000;
    u++;
  }
  *unit = units[u];
  return v;
}

nns_status nns_format_count(double value, nns_count_style style, int width,
                            int digits, char *buf, size_t size,
                            nns_error *err) {
  if (buf && size)
    buf[0] = '\0';
  if (!buf || !size)
    return nns__report_err(err, NNS_E_ARG, "nns_format_count: no buffer");
  if (style != NNS_COUNT_STYLE_THOP && style != NNS_COUNT_STYLE_THOPLW)
    return nns__report_err(err, NNS_E_ARG, "nns_format_count: unknown style");
  if (width < 0 || width > NNS_COUNT_WIDTH_MAX || digits < 0 ||
      digits > NNS_COUNT_DIGITS_MAX)
    return nns__report_err(err, NNS_E_ARG,
                           "nns_format_count: width must be 0 to "
                           "NNS_COUNT_WIDTH_MAX (64), digits 0 to "
                           "NNS_COUNT_DIGITS_MAX (20)");
  if (isnan(value))
    value = fabs(value); /* printf may write a signed NaN "-nan" */
  const char *unit;
  double x = style == NNS_COUNT_STYLE_THOP ? thop_unit(value, &unit)
                                           : thoplw_unit(value, &unit);
  int n = snprintf(buf, size, "%*.*f%s", width, digits, x, unit);
  if (n < 0 || (size_t)n >= size) {
    buf[0] = '\0';
    return nns__report_err(err, NNS_E_LIMIT,
                           "nns_format_count: the buffer is too small");
  }
  return NNS_OK;
}

void nns__fmt_seconds(char *buf, size_t size, double s, bool raw) {
  if (raw) {
    snprintf(buf, size, "%.6g", s);
    return;
  }
  if (!(s > 0)) {
    snprintf(buf, size, "-");
    return;
  }
  static const struct {
    double scale;
    const char *unit;
  } units[] = {{1e-9, "ns"}, {1e-6, "us"}, {1e-3, "ms"}, {1, "s"}};
  size_t u = 0, n = sizeof units / sizeof units[0];
  while (u + 1 < n && s >= units[u + 1].scale)
    u++;
  /* Three significant digits kept ("30.0 us", as JavaScript's
   * toPrecision(3) on the page), a unit up where rounding reaches 1000. */
  double v = s / units[u].scale;
  int dec = v < 9.995 ? 2 : v < 99.95 ? 1 : 0;
  if (v >= 999.5 && u + 1 < n) {
    v /= 1000;
    u++;
    dec = 2;
  }
  nns__fmt_fixed(buf, size, v, dec);
  size_t len = strlen(buf);
  snprintf(buf + len, size - len, " %s", units[u].unit);
}

void nns__fmt_ratio(char *buf, size_t size, int64_t v, int64_t total) {
  if (total <= 0) {
    snprintf(buf, size, "-");
  } else {
    nns__fmt_fixed(buf, size, 100.0 * (double)v / (double)total, 2);
    size_t n = strlen(buf);
    snprintf(buf + n, size - n, "%%");
  }
}

void nns__fmt_number(char *buf, size_t size, int64_t v, int64_t total,
                     nns_numbers mode, bool bytes, bool csv) {
  switch (mode) {
  case NNS_NUMBERS_CLEVER: nns__fmt_clever(buf, size, v, bytes); break;
  case NNS_NUMBERS_RATIO: nns__fmt_ratio(buf, size, v, total); break;
  default: nns__fmt_int(buf, size, v, !csv); break;
  }
}

/* ==== Reading the model ==== */

nns_model_info nns__info_of(const nns_model *m) {
  nns_model_info x = {.size = sizeof x};
  if (nns_model_get_info(m, &x) != NNS_OK)
    x.producer_name = x.producer_version = x.domain = x.graph_name = "";
  return x;
}

nns_value_info nns__value_of(const nns_model *m, const nns_analysis *a,
                             size_t i) {
  nns_value_info x = {.size = sizeof x, .name = "", .rank = -1,
                      .producer = (size_t)-1};
  if (a)
    nns_analysis_value(a, i, &x);
  else
    nns_model_value(m, i, &x);
  return x;
}

nns_dim nns__dim_of(const nns_model *m, const nns_analysis *a, size_t i,
                    int axis) {
  return a ? nns__analysis_value_dim(a, i, axis) : nns__value_dim(m, i, axis);
}

size_t nns__input_of(const nns_model *m, size_t k) {
  size_t v = (size_t)-1;
  nns_model_input(m, k, &v);
  return v;
}

size_t nns__output_of(const nns_model *m, size_t k) {
  size_t v = (size_t)-1;
  nns_model_output(m, k, &v);
  return v;
}

nns_layer_info nns__layer_of(const nns_analysis *a, size_t i) {
  nns_layer_info x = {.size = sizeof x, .name = "", .path = "", .type = "",
                      .op_types = "", .parent = (size_t)-1,
                      .input_value = (size_t)-1, .output_value = (size_t)-1};
  nns_analysis_layer(a, i, &x);
  return x;
}

nns_counts nns__layer_counts_of(const nns_analysis *a, size_t i) {
  nns_counts x = {.size = sizeof x};
  nns_analysis_layer_counts(a, i, &x);
  return x;
}

nns_rf nns__layer_rf_of(const nns_analysis *a, size_t i) {
  nns_rf x = {.size = sizeof x};
  nns_analysis_layer_rf(a, i, &x);
  return x;
}

nns_totals nns__totals_of(const nns_analysis *a) {
  nns_totals x = {.size = sizeof x, .peak_node = ""};
  nns_analysis_totals(a, &x);
  return x;
}

nns_counts nns__total_counts_of(const nns_analysis *a) {
  nns_counts x = {.size = sizeof x};
  nns_analysis_total_counts(a, &x);
  return x;
}

nns_rf nns__total_rf_of(const nns_analysis *a) {
  nns_rf x = {.size = sizeof x};
  nns_analysis_total_rf(a, &x);
  return x;
}

const char *nns__warning_of(const nns_analysis *a, size_t i) {
  const char *w = "";
  nns_analysis_warning(a, i, &w);
  return w;
}

nns_status nns__report_options(nns_report_options *o,
                               const nns_report_options *given) {
  return NNS__GET(o, given, NNS__V1_REPORT_OPTIONS);
}

nns_status nns__counts_in(nns_counts *c, const nns_counts *given) {
  return NNS__GET(c, given, NNS__V1_COUNTS);
}

nns_status nns__rf_in(nns_rf *rf, const nns_rf *given) {
  return NNS__GET(rf, given, NNS__V1_RF);
}

const char *nns__kind_name(nns_type_kind k) {
  switch (k) {
  case NNS_KIND_SEQUENCE: return "sequence";
  case NNS_KIND_OPTIONAL: return "optional";
  case NNS_KIND_MAP: return "map";
  case NNS_KIND_SPARSE: return "sparse";
  default: return NULL;
  }
}

/* ==== Shapes and axes ==== */

void nns__fmt_shape(char *buf, size_t size, const nns_model *m,
                    const nns_analysis *a, size_t value) {
  nns__fmt_shape_named(buf, size, m, a, value, NULL, NULL);
}

void nns__fmt_shape_named(char *buf, size_t size, const nns_model *m,
                          const nns_analysis *a, size_t value,
                          nns__dim_name_fn name, void *ctx) {
  if (size == 0)
    return;
  buf[0] = 0;
  if (value == (size_t)-1 || value >= nns_model_value_count(m)) {
    snprintf(buf, size, "-");
    return;
  }
  nns_value_info v = nns__value_of(m, a, value);
  if (v.rank < 0) {
    snprintf(buf, size, "?");
    return;
  }
  /* By hand, not snprintf: a 100k-layer table prints 480k shapes, and
   * "%lld" per dim was a sixth of the whole text summary. put_cut keeps
   * snprintf's truncation. */
  size_t n = put_cut(buf, size, 0, "(", 1);
  for (int d = 0; d < v.rank && n < size; d++) {
    nns_dim dim = nns__dim_of(m, a, value, d);
    /* A known dim with room to spare (", " and 20 digits, and the NUL)
     * is written in place, without put_cut's checks and calls per
     * piece. */
    if (dim.value >= 0 && size - n > 24) {
      char digits[24], *end = digits + sizeof digits;
      const char *p = digits_of(end, dim.value);
      if (d) {
        buf[n++] = ',';
        buf[n++] = ' ';
      }
      while (p < end)
        buf[n++] = *p++;
      buf[n] = 0;
      continue;
    }
    if (d)
      n = put_cut(buf, size, n, ", ", 2);
    if (dim.value >= 0) {
      char digits[24], *end = digits + sizeof digits;
      const char *p = digits_of(end, dim.value);
      n = put_cut(buf, size, n, p, (size_t)(end - p));
    } else if (d == 0 && dim.symbol) {
      n = put_cut(buf, size, n, "-1", 2);
    } else {
      const char *sym = !dim.symbol ? "?"
                        : name      ? name(ctx, dim.symbol)
                                    : dim.symbol;
      n = put_cut(buf, size, n, sym, strlen(sym));
    }
  }
  if (n < size)
    put_cut(buf, size, n, ")", 1);
}

void nns__fmt_axes(char *buf, size_t size, const int64_t *v, int axes) {
  if (axes <= 0) {
    snprintf(buf, size, "-");
    return;
  }
  if (axes > NNS_RF_MAX_AXES)
    axes = NNS_RF_MAX_AXES;
  bool same = true;
  for (int a = 1; a < axes; a++)
    same = same && v[a] == v[0];
  if (same) {
    snprintf(buf, size, "%lld", (long long)v[0]);
    return;
  }
  size_t n = 0;
  for (int a = 0; a < axes && n < size; a++)
    n += (size_t)snprintf(buf + n, size - n, "%s%lld", a ? "x" : "",
                          (long long)v[a]);
}

void nns__fmt_rf(char *buf, size_t size, const nns_rf *rf) {
  if (rf->whole) {
    snprintf(buf, size, "whole");
    return;
  }
  nns__fmt_axes(buf, size, rf->field, rf->axes);
  size_t n = strlen(buf);
  if (rf->global_context && !rf->whole && rf->axes > 0 && n + 2 < size)
    snprintf(buf + n, size - n, "+g");
}

/* Display columns of s (nns__cp_width per character). */
int nns__utf8_width(const char *s) {
  int w = 0;
  size_t n;
  for (const unsigned char *p = (const unsigned char *)s; *p; p += n)
    w += char_width(p, &n);
  return w;
}

/* ==== Rows ==== */

int nns__report_depth(const nns_report_options *o) {
  if (o->max_depth > 0)
    return o->max_depth;
  if (o->max_depth == NNS_DEPTH_DEFAULT &&
      (o->format == NNS_FORMAT_TEXT || o->format == NNS_FORMAT_MD))
    return 2;
  return INT32_MAX;
}

void nns__fmt_flags(char *buf, size_t size, unsigned flags) {
  size_t n = 0;
  buf[0] = 0;
  /* A row's flags: every one but saturated, which the totals state. */
  for (int b = 0; nns_count_flag_name(b) && n < size; b++)
    if ((flags & (1u << b)) && (1u << b) != NNS_COUNT_OVERFLOW)
      n += (size_t)snprintf(buf + n, size - n, "%s%s", n ? "," : "",
                            nns_count_flag_name(b));
}

const char *nns__model_name(const nns_model *m, const nns_report_options *o) {
  if (o->model_name && *o->model_name)
    return o->model_name;
  nns_model_info info = nns__info_of(m);
  return info.graph_name && *info.graph_name ? info.graph_name : "model";
}

const char *nns__input_fix(const nns_model *m, const nns_analysis *a,
                           size_t k, char *buf, size_t size) {
  size_t v = nns__input_of(m, k);
  nns_value_info vi = nns__value_of(m, a, v);
  bool symbolic = false;
  size_t len = (size_t)snprintf(buf, size, "--input %s=", vi.name);
  for (int ax = 0; ax < vi.rank && len < size; ax++) {
    nns_dim d = nns__dim_of(m, a, v, ax);
    if (d.value < 0)
      symbolic = true;
    if (d.value >= 0)
      len += (size_t)snprintf(buf + len, size - len, "%s%lld", ax ? "x" : "",
                              (long long)d.value);
    else
      len += (size_t)snprintf(buf + len, size - len, "%sN", ax ? "x" : "");
  }
  return symbolic ? vi.name : NULL;
}

size_t nns__input_symbols(const nns_model *m, const nns_analysis *a,
                          const char **out, size_t max) {
  size_t n = 0;
  for (size_t k = 0; k < nns_model_input_count(m); k++) {
    size_t v = nns__input_of(m, k);
    nns_value_info vi = nns__value_of(m, a, v);
    for (int ax = 0; ax < vi.rank && n < max; ax++) {
      nns_dim d = nns__dim_of(m, a, v, ax);
      if (d.value >= 0 || !d.symbol)
        continue;
      bool dup = false;
      for (size_t s = 0; s < n && !dup; s++)
        dup = !strcmp(out[s], d.symbol);
      if (!dup)
        out[n++] = d.symbol;
    }
  }
  return n;
}

/* ==== Table cells ==== */

/* Writes s in exactly `w` columns: padded (left or right), or shortened to
 * w with a "…" where the wrap mode says. */
void nns__put_fit(nns__out *o, const char *s, int w, bool right,
                  nns_wrap wrap) {
  nns__put_fit_n(o, s, strlen(s), nns__utf8_width(s), w, right, wrap);
}

/* sw: the display columns of s (nns__utf8_width). A cut keeps whole
 * characters only, and a wide one that would pass the column is left
 * out, its column filled with a space. */
void nns__put_fit_n(nns__out *o, const char *s, size_t len, int sw, int w,
                    bool right, nns_wrap wrap) {
  if (sw <= w) {
    if (right)
      nns__out_spaces(o, w - sw);
    nns__out_put(o, s, len);
    if (!right)
      nns__out_spaces(o, w - sw);
    return;
  }
  if (w <= 0)
    return;
  /* Keep `head` columns from the start and `tail` from the end. */
  int keep = w - 1;
  int head = wrap == NNS_WRAP_START ? 0
             : wrap == NNS_WRAP_END ? keep
                                    : (keep + 1) / 2;
  int tail = keep - head;
  const unsigned char *u = (const unsigned char *)s;
  size_t p = 0, cl;
  int used = 0;
  while (p < len) {
    int cw = char_width(u + p, &cl);
    if (used + cw > head)
      break;
    used += cw;
    p += cl;
  }
  nns__out_put(o, s, p);
  nns__out_str(o, "…");
  /* The tail: whole characters back from the end, within `tail` columns
   * (a character starts at a byte that is not a continuation byte). */
  size_t q = len;
  int tail_used = 0;
  while (q > p) {
    size_t start = q - 1;
    while (start > p && (u[start] & 0xc0) == 0x80)
      start--;
    int cw = char_width(u + start, &cl);
    if (tail_used + cw > tail)
      break;
    tail_used += cw;
    q = start;
  }
  nns__out_put(o, s + q, len - q);
  nns__out_spaces(o, w - 1 - used - tail_used);
}

void nns__csv_field(nns__out *o, const char *s) {
  if (!strpbrk(s, ",\"\n\r") && s[0] != ' ') {
    nns__out_str(o, s);
    return;
  }
  nns__out_str(o, "\"");
  for (const char *p = s; *p; p++) {
    if (*p == '"')
      nns__out_put(o, "\"", 1); /* a quote is written twice */
    nns__out_put(o, p, 1);
  }
  nns__out_str(o, "\"");
}

/* Markdown's one escaping rule, for every Markdown table nnscan writes:
 * the cell separator and the backslash that would escape it are
 * backslash-escaped, as is a backtick (a code span would swallow the
 * cells after it) and every character GitHub's Markdown gives inline
 * meaning to: `*`, `_` and `~` (emphasis, strike-through), `[` and `]`
 * (links and images: "![x](u)"), `$` (math). The characters HTML gives
 * meaning to are written as entities, so a name like "x<!--" cannot open
 * a comment that hides every row after it in a rendered page; a line
 * break would end the row. NULL: the byte is written as it is. */
static const char *md_escape(char c) {
  switch (c) {
  case '|': return "\\|";
  case '\\': return "\\\\";
  case '`': return "\\`";
  case '*': return "\\*";
  case '_': return "\\_";
  case '~': return "\\~";
  case '[': return "\\[";
  case ']': return "\\]";
  case '$': return "\\$";
  case '<': return "&lt;";
  case '>': return "&gt;";
  case '&': return "&amp;";
  case '\n':
  case '\r': return " ";
  default: return NULL;
  }
}

void nns__md_text(nns__out *o, const char *s) {
  const char *run = s; /* bytes written as they are, not yet put */
  for (const char *p = s; *p; p++) {
    const char *esc = md_escape(*p);
    if (!esc)
      continue;
    nns__out_put(o, run, (size_t)(p - run));
    nns__out_str(o, esc);
    run = p + 1;
  }
  nns__out_str(o, run);
}

int nns__md_extra(const char *s) {
  int extra = 0;
  for (; *s; s++) {
    const char *esc = md_escape(*s);
    if (esc)
      extra += (int)strlen(esc) - 1;
  }
  return extra;
}

/* A user's name in a line of a report: cleaned of what a terminal would
 * act on, and in Markdown escaped by its one rule (footers and legends,
 * not only table cells, are rendered as Markdown). */
void nns__note_text(nns__out *o, const char *s, bool md) {
  if (!md) {
    nns__out_text(o, s);
    return;
  }
  char clean[1024];
  nns__text_clean(clean, sizeof clean, s ? s : "");
  nns__md_text(o, clean);
}

void nns__md_cell(nns__out *o, const char *s) {
  nns__out_str(o, " ");
  nns__md_text(o, s);
  nns__out_str(o, " |");
}

/* Tree guides of layer i: for each ancestor below the root, "│ " if it
 * has a later sibling and "  " if not, then "├─" or "└─" for the layer
 * itself. A hostile parent chain (a cycle) is cut at the layer's depth. */
size_t nns__tree_prefix_into(char *dst, const size_t *parent,
                             const size_t *last, int depth, size_t i,
                             int *width) {
  int levels = 0;
  for (size_t a = i; parent[a] != (size_t)-1 && levels < depth &&
                     levels < 256;
       a = parent[a])
    levels++;
  const char *tmp[256];
  int k = 0;
  for (size_t a = i; parent[a] != (size_t)-1 && k < levels; a = parent[a]) {
    bool is_last = last[parent[a]] == a;
    tmp[k++] = a == i ? (is_last ? "└─" : "├─") : (is_last ? "  " : "│ ");
  }
  size_t len = 0;
  for (int j = k - 1; j >= 0; j--) {
    size_t s = strlen(tmp[j]);
    memcpy(dst + len, tmp[j], s);
    len += s;
  }
  dst[len] = 0;
  *width = 2 * k; /* each level is 2 code points */
  return len;
}

char *nns__tree_prefix(const size_t *parent, const size_t *last, int depth,
                       size_t i) {
  char buf[NNS__TREE_PREFIX_MAX];
  int width;
  size_t len = nns__tree_prefix_into(buf, parent, last, depth, i, &width);
  char *p = malloc(len + 1);
  if (p)
    memcpy(p, buf, len + 1);
  return p;
}
