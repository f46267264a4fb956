/*
 * summary.c - `nnscan summary MODEL` (and `nnscan MODEL`): every layer's
 * parameters, FLOPs, MACs, memory accesses, receptive field and memory, as
 * a tree table, CSV, Markdown, JSON or an HTML page. Parsing the options
 * is all it does: the analysis is nns_model_analyze() and the rendering
 * nns_report() of it.
 */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#if defined(__GLIBC__)
#include <malloc.h>
#include <stdint.h>
#include <sys/mman.h>
#include <unistd.h>
#endif

#include "cli.h"

/* The usage in three parts around the --columns and --optimizer lines,
 * whose words come from the library (nns_column_name, nns_optimizer_name). */
static const char usage_head[] =
    "usage: nnscan summary MODEL [options]   (or: nnscan MODEL [options])\n"
    "  --depth N|all          deepest layer shown (default 2 for text and "
    "md,\n"
    "                         all for csv, json and html); deeper layers "
    "add\n"
    "                         into their ancestor\n"
    "  --format text|csv|md|json|html   output format (default text); html "
    "is one\n"
    "                         self-contained page (docs/html.md)\n"
    "  --numbers raw|clever|ratio  1824010216, 1.82 G, or % of the total\n"
    "  --json-version 1|2     the JSON contract's version (default 1; 2 gives\n"
    "                         every count a status and its diagnostics)\n";
static const char usage_mid[] =
    "  --rf                   add the rf column (receptive field, stride, "
    "padding)\n"
    "  --input NAME=DIMS      fix a graph input's shape (repeatable); NAME may\n"
    "                         also be a dim's name: --input batch=8,\n"
    "                         --input audio_dim2=16000 (unnamed dims are\n"
    "                         called <input>_dim<axis>)\n"
    "  --value NAME=V[,V...]  a graph input's contents (scalars, small integer\n"
    "                         tensors): control flow (If) and shape\n"
    "                         arithmetic fold on it, e.g. --value sr=16000\n"
    "  --batch N              set the first dim of every graph input\n";
static const char usage_tail[] =
    "  --wrap start|middle|end    where long names are shortened (default "
    "middle)\n"
    "  --width N              table width (default: the terminal's, else "
    "100)\n"
    "  --hardware NAME        roofline per layer: bytes, intensity, bound "
    "and\n"
    "                         time on a device (nnscan hardware lists them)\n"
    "  --dtype fp32|tf32|bf16|fp16|fp8|int8   the peak matrix ops run at\n"
    "                         (default the model's float dtype; tf32, fp8, "
    "int8\n"
    "                         apply to matrix ops only)\n"
    "  --peak-flops F, --bandwidth B   the device's FLOP/s and bytes/s (the\n"
    "                         cpu entry needs both; others are overridden)\n"
    "  --hardware-file FILE   devices of your own (docs/roofline.md)\n"
    "  --strict               exit 3 if anything could not be counted\n"
    "  --fallback             take declared shapes for unknown ops' outputs\n"
    "                         and declared dims no rule can know (NonZero's "
    "count)\n"
    "  --parallel AXIS=N[,AXIS=N]  one rank of a data-parallel (dp) or\n"
    "                         fully-sharded (fsdp) job: its shards, peak and\n"
    "                         collectives (tensor and expert parallelism need\n"
    "                         a plan: Python's summary(parallel=...))\n"
    "  --budget SIZE          with --parallel: does a rank fit (\"80GB\")\n"
    "  -o FILE                write to FILE instead of stdout\n";

/* The words --columns takes, in the table's order (nns_column_name) with
 * "all" after the last column it stands for: word k, NULL past the last. */
static const char *column_word(int k) {
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

void cli_summary_usage(FILE *f) {
  fputs(usage_head, f);
  /* The words filled into lines of at most 75 columns. */
  static const char head[] = "  --columns LIST         numeric columns, "
                             "comma-separated:";
  fputs(head, f);
  int col = (int)sizeof head - 1;
  for (int k = 0; column_word(k); k++) {
    int len = (int)strlen(column_word(k)) + (column_word(k + 1) ? 1 : 0);
    if (col + 1 + len > 75) {
      fprintf(f, "\n%25s", "");
      col = 25;
    } else {
      fputc(' ', f);
      col++;
    }
    fprintf(f, "%s%s", column_word(k), column_word(k + 1) ? "," : "");
    col += len;
  }
  fputs("\n                         (default params; --hardware adds bytes "
        "and roof)\n", f);
  fputs(usage_mid, f);
  fputs("  --optimizer ", f);
  for (int k = 0; nns_optimizer_name(k); k++)
    fprintf(f, "%s%s", k ? "|" : "", nns_optimizer_name(k));
  fprintf(f, "   for the training estimate (default %s)\n",
          nns_optimizer_name(NNS_OPTIMIZER_ADAM));
  fputs(usage_tail, f);
}

/* --parallel "fsdp=8,dp=2": false (said) unless every axis is dp or fsdp,
 * named once, with a size from 1 to 2^24 (nns_parallel's range). */
static bool parse_parallel(const char *s, nns_parallel *p) {
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
static bool parse_size(const char *s, int64_t *out) {
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

/* The number in [0, count) whose word (name_of: one of nnscan.h's
 * nns_*_name functions, NULL past the last) is s; -1 when none. */
static int pick(const char *s, const char *(*name_of)(int), int count) {
  for (int i = 0; i < count && name_of(i); i++)
    if (!strcmp(s, name_of(i)))
      return i;
  return -1;
}

/* "nnscan summary: --numbers is raw, clever or ratio, not 'x'": the
 * choices pick() takes, in their words. */
static void bad_choice(const char *option, const char *(*name_of)(int),
                       int count, const char *got) {
  fprintf(stderr, "nnscan summary: %s is ", option);
  for (int j = 0; j < count && name_of(j); j++) {
    const char *sep = !j ? ""
                      : j + 1 < count && name_of(j + 1) ? ", "
                                                        : " or ";
    fprintf(stderr, "%s%s", sep, name_of(j));
  }
  fprintf(stderr, ", not '%s'\n", got);
}

static bool parse_columns(const char *list, unsigned *out) {
  unsigned set = 0;
  const char *p = list;
  while (*p) {
    size_t n = strcspn(p, ",");
    unsigned bits = column_bits(p, n);
    if (!bits) {
      fprintf(stderr, "nnscan summary: unknown column '%.*s' (", (int)n, p);
      for (int k = 0; column_word(k); k++)
        fprintf(stderr, "%s%s", k ? ", " : "", column_word(k));
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

/* Says on stderr what a strict run could not count; true if anything. */
static bool incomplete(const nns_analysis *a, const char *path) {
  nns_counts all = {.size = sizeof all};
  nns_analysis_total_counts(a, &all);
  size_t nu = nns_analysis_uncounted_op_count(a);
  size_t nk = nns_analysis_unknown_op_count(a);
  bool bad = nu || nk || (all.flags & (NNS_COUNT_PARTIAL |
                                       NNS_COUNT_UNBOUNDED |
                                       NNS_COUNT_OVERFLOW));
  if (!bad)
    return false;
  char p[1024];
  nns_text_clean(p, sizeof p, path);
  fprintf(stderr, "nnscan: %s: --strict: counts are incomplete:", p);
  for (size_t i = 0; i < nu; i++) {
    const char *dom = "", *op = "";
    size_t n = 0;
    nns_analysis_uncounted_op(a, i, &dom, &op, &n);
    char cd[256], co[256];
    nns_text_clean(cd, sizeof cd, dom);
    nns_text_clean(co, sizeof co, op);
    /* Say why, as the report does: an op with a cost rule can still go
     * uncounted when a size is unknown or its rule failed. */
    size_t no_rule = 0, no_size = 0, failed = 0;
    nns_analysis_uncounted_op_why(a, i, &no_rule, &no_size, &failed);
    fprintf(stderr, "%s %s%s%s x%zu (", i ? "," : "", cd, *cd ? "." : "",
            co, n);
    const char *sep = "";
    if (no_rule)
      fprintf(stderr, "%s%zu no cost rule", sep, no_rule), sep = ", ";
    if (no_size)
      fprintf(stderr, "%s%zu size unknown", sep, no_size), sep = ", ";
    if (failed)
      fprintf(stderr, "%s%zu cost rule failed", sep, failed);
    fputc(')', stderr);
  }
  bool listed = nu > 0;
  for (size_t i = 0; i < nk; i++) {
    const char *dom = "", *op = "";
    size_t n = 0;
    nns_analysis_unknown_op(a, i, &dom, &op, &n);
    /* An unknown op usually has no cost rule either: name it once. */
    bool dup = false;
    for (size_t j = 0; j < nu && !dup; j++) {
      const char *d2 = "", *o2 = "";
      size_t n2 = 0;
      nns_analysis_uncounted_op(a, j, &d2, &o2, &n2);
      dup = !strcmp(d2, dom) && !strcmp(o2, op);
    }
    if (dup)
      continue;
    char cd[256], co[256];
    nns_text_clean(cd, sizeof cd, dom);
    nns_text_clean(co, sizeof co, op);
    fprintf(stderr, "%s %s%s%s x%zu (no shape rule)", listed ? "," : "", cd,
            *cd ? "." : "", co, n);
    listed = true;
  }
  if (all.flags & NNS_COUNT_UNBOUNDED) {
    fprintf(stderr, "%s a loop with an unknown trip count",
            listed ? "," : "");
    listed = true;
  }
  if (all.flags & NNS_COUNT_OVERFLOW)
    fprintf(stderr, "%s counts saturated at 2^63-1", listed ? "," : "");
  fputc('\n', stderr);
  return true;
}

/*
 * The analysis and the report of a large model malloc and free a few
 * megabytes per pass. glibc's defaults hand a freed block of that size
 * back to the kernel (munmap, or trimming the heap's top) and map fresh
 * pages for the next one, and every fresh page is a page fault: a
 * 100,000-node summary took 1,300 more faults (a tenth of its time on a
 * VM, where a fault is dear) than when the blocks stay in the heap for
 * the next pass to reuse. A one-shot process frees everything at exit,
 * so it keeps what it frees. glibc only; elsewhere the defaults stay.
 */
enum { MMAP_THRESHOLD = 32 << 20 }; /* glibc's largest */

static void keep_freed_memory(void) {
#if defined(__GLIBC__) && defined(M_MMAP_THRESHOLD) && defined(M_TRIM_THRESHOLD)
  mallopt(M_MMAP_THRESHOLD, MMAP_THRESHOLD);
  mallopt(M_TRIM_THRESHOLD, 256 << 20);
#endif
#if defined(__GLIBC__) && defined(M_ARENA_MAX)
  /* The library's own threads (docs/api.md, "Threads") malloc work arrays
   * too: from the one heap they reuse what the passes freed, where an
   * arena of their own would be fresh pages. */
  mallopt(M_ARENA_MAX, 1);
#endif
}

/*
 * The heap of a large model's analysis and report, in huge pages: the
 * analysis and the report malloc about HEAP_PER_NODE bytes per node at
 * their peak, and a 100,000-node summary faulted them in 4 KB at a time
 * (3,230 page faults in all; with huge pages 700 to 1,100, as many as
 * the kernel has free, and 5% less time).
 * The heap's top is grown once by that much (up to the largest block
 * malloc takes from the heap, keep_freed_memory) and advised as huge; a
 * small model keeps 4 KB pages, where zeroing a 2 MB page would cost more
 * than the faults it saves. A hint: nothing changes if the kernel
 * declines it.
 */
enum { HEAP_PER_NODE = 160, HUGE_PAGE = 2 << 20 };

static void heap_huge_pages(const nns_model *m) {
#if defined(__GLIBC__) && defined(MADV_HUGEPAGE)
  size_t nodes = nns_model_node_count(m);
  size_t want = nodes > MMAP_THRESHOLD / HEAP_PER_NODE
                    ? MMAP_THRESHOLD - HUGE_PAGE
                    : nodes * HEAP_PER_NODE;
  if (want < 4 * (size_t)HUGE_PAGE)
    return;
  /* A block larger than the heap's free top makes malloc grow the heap;
   * freed, it stays there as the top the passes carve from. */
  char *old = sbrk(0);
  void *volatile top = malloc(want); /* volatile: kept */
  free(top);
  char *end = sbrk(0);
  uintptr_t from =
      ((uintptr_t)old + HUGE_PAGE - 1) & ~(uintptr_t)(HUGE_PAGE - 1);
  if (old != (char *)-1 && end != (char *)-1 && (uintptr_t)end > from)
    madvise((void *)from, (uintptr_t)end - from, MADV_HUGEPAGE);
#else
  (void)m;
#endif
}

int cmd_summary(int argc, char **argv) {
  /* An analysis's report formats; the others are of an inference or a
   * binding's tables. */
  static const nns_report_format formats[] = {
      NNS_FORMAT_TEXT, NNS_FORMAT_CSV, NNS_FORMAT_MD, NNS_FORMAT_JSON,
      NNS_FORMAT_HTML};
  const int all = INT_MAX;
  cli_model_opts o = {.format = nns_report_format_name(NNS_FORMAT_TEXT)};
  nns_report_options ro = {.size = sizeof ro, .format = NNS_FORMAT_TEXT};
  nns_analyze_options ao = {.size = sizeof ao,
                            .optimizer = NNS_OPTIMIZER_ADAM};
  bool strict = false, rf = false, have_columns = false;
  const char *hw_name = NULL, *hw_file = NULL;
  double peak_flops = 0, bandwidth = 0;
  nns_hardware hw;
  nns_hardware_list *hw_list = NULL;
  int width = 0;
  int rc = EXIT_USAGE;
  nns_parallel par = {.size = sizeof par};
  bool parallel = false;

  keep_freed_memory();
  for (int i = 1; i < argc; i++) {
    int r = cli_common_arg(&o, argc, argv, &i, NULL, cli_summary_usage);
    if (r == CLI_ARG_HELP)
      rc = EXIT_OK;
    if (r == CLI_ARG_HELP || r == CLI_ARG_BAD)
      goto done;
    if (r == CLI_ARG_TAKEN)
      continue;
    const char *a = argv[i];
    const char *val = i + 1 < argc ? argv[i + 1] : NULL;
    bool takes = !strcmp(a, "--depth") || !strcmp(a, "--numbers") ||
                 !strcmp(a, "--columns") || !strcmp(a, "--optimizer") ||
                 !strcmp(a, "--wrap") || !strcmp(a, "--width") ||
                 !strcmp(a, "--hardware") || !strcmp(a, "--dtype") ||
                 !strcmp(a, "--peak-flops") || !strcmp(a, "--bandwidth") ||
                 !strcmp(a, "--hardware-file") ||
                 !strcmp(a, "--json-version") || !strcmp(a, "--parallel") ||
                 !strcmp(a, "--budget");
    if (takes && !val) {
      fprintf(stderr, "nnscan summary: %s needs a value\n", a);
      goto done;
    }
    long v;
    int k;
    if (!strcmp(a, "--depth")) {
      if (!strcmp(val, "all"))
        ro.max_depth = NNS_DEPTH_ALL;
      else if (cli_parse_int(val, 1, &v) && v < 1000000)
        ro.max_depth = (int)v;
      else {
        fprintf(stderr, "nnscan summary: --depth wants N >= 1 or 'all', "
                        "got '%s'\n", val);
        goto done;
      }
    } else if (!strcmp(a, "--numbers")) {
      if ((k = pick(val, nns_numbers_name, all)) < 0) {
        bad_choice(a, nns_numbers_name, all, val);
        goto done;
      }
      ro.numbers = (nns_numbers)k;
    } else if (!strcmp(a, "--columns")) {
      if (!parse_columns(val, &ro.columns))
        goto done;
      have_columns = true;
    } else if (!strcmp(a, "--optimizer")) {
      if ((k = pick(val, nns_optimizer_name, all)) < 0) {
        bad_choice(a, nns_optimizer_name, all, val);
        goto done;
      }
      ao.optimizer = (nns_optimizer)k;
    } else if (!strcmp(a, "--wrap")) {
      if ((k = pick(val, nns_wrap_name, all)) < 0) {
        bad_choice(a, nns_wrap_name, all, val);
        goto done;
      }
      ro.wrap = (nns_wrap)k;
    } else if (!strcmp(a, "--json-version")) {
      if (!cli_parse_int(val, 1, &v) || v > 2) {
        fprintf(stderr, "nnscan summary: --json-version is 1 or 2, not "
                        "'%s'\n", val);
        goto done;
      }
      ro.json_version = (int)v;
    } else if (!strcmp(a, "--width")) {
      if (!cli_parse_int(val, 20, &v) || v > 100000) {
        fprintf(stderr, "nnscan summary: --width wants a number >= 20, got "
                        "'%s'\n", val);
        goto done;
      }
      width = (int)v;
    } else if (!strcmp(a, "--parallel")) {
      if (!parse_parallel(val, &par))
        goto done;
      parallel = true;
    } else if (!strcmp(a, "--budget")) {
      if (!parse_size(val, &par.budget_bytes))
        goto done;
    } else if (!strcmp(a, "--hardware")) {
      hw_name = val;
    } else if (!strcmp(a, "--hardware-file")) {
      hw_file = val;
    } else if (!strcmp(a, "--dtype")) {
      for (k = 0; nns_compute_dtype_name(k); k++)
        if (!strcmp(val, nns_compute_dtype_name(k)))
          break;
      if (!nns_compute_dtype_name(k)) {
        fprintf(stderr, "nnscan summary: --dtype is fp32, tf32, bf16, fp16, "
                        "fp8 or int8, not '%s'\n", val);
        goto done;
      }
      ao.compute_dtype = nns_compute_dtype_name(k);
    } else if (!strcmp(a, "--peak-flops") || !strcmp(a, "--bandwidth")) {
      char *end;
      double d = strtod(val, &end);
      /* The range is the library's (one check for every way in): here
       * only that it is a number, and not 0, which means "not given". */
      if (*end || end == val || d == 0) {
        fprintf(stderr, "nnscan summary: %s wants a number from 1e6 to 1e21 "
                        "(e.g. 2e12), got '%s'\n", a, val);
        goto done;
      }
      *(a[2] == 'p' ? &peak_flops : &bandwidth) = d;
    } else if (!strcmp(a, "--rf")) {
      rf = true;
      continue;
    } else if (!strcmp(a, "--strict")) {
      strict = true;
      continue;
    } else if (a[0] == '-' && a[1]) {
      fprintf(stderr, "nnscan summary: unknown option '%s'\n", a);
      goto done;
    } else {
      if (o.path) {
        fprintf(stderr, "nnscan summary: one model at a time (see nnscan "
                        "table)\n");
        goto done;
      }
      o.path = a;
      continue;
    }
    i++; /* the option's value */
  }
  if (!o.path) {
    cli_summary_usage(stderr);
    goto done;
  }
  if (!cli_pick_format("summary", o.format, formats,
                       sizeof formats / sizeof *formats, &ro.format))
    goto done;
  if (!have_columns)
    ro.columns = NNS_COL_DEFAULT;
  if (rf)
    ro.columns |= NNS_COL_RF;
  if (hw_name)
    ro.columns |= NNS_COL_BYTES | NNS_COL_ROOF;
  ro.width = width ? width : o.output ? 100 : cli_terminal_width();

  if (!hw_name && (ao.compute_dtype || peak_flops != 0 || bandwidth != 0)) {
    fputs("nnscan summary: --dtype, --peak-flops and --bandwidth go with "
          "--hardware NAME\n", stderr);
    goto done;
  }
  if (par.budget_bytes && !parallel) {
    fputs("nnscan summary: --budget goes with --parallel\n", stderr);
    goto done;
  }
  rc = EXIT_FAIL;
  if (hw_name) {
    if (!cli_hardware_open(hw_file, &hw_list) ||
        !cli_hardware_pick(hw_name, hw_list, peak_flops, bandwidth, &hw))
      goto done;
    ao.hardware = &hw;
  }
  nns_model *m = cli_load(&o);
  if (!m)
    goto done;
  heap_huge_pages(m);
  nns_error err;
  nns_analysis *an = NULL;
  if (parallel && nns_model_set_parallel(m, &par, &err) != NNS_OK) {
    cli_print_error(o.path, &err);
    nns_model_free(m);
    goto done;
  }
  if (nns_model_analyze(m, &ao, &an, &err) != NNS_OK) {
    cli_print_error(o.path, &err);
    nns_model_free(m);
    goto done;
  }
  char name[256];
  ro.model_name = cli_model_name(o.path, name, sizeof name);
  ro.model_path = o.path;
  FILE *out = cli_open_output(o.output);
  if (out) {
    nns_status st = nns_report(an, &ro, cli_write, out, &err);
    /* NNS_E_IO is the writer's failure: cli_close_output names the file
     * and the reason. */
    if (st != NNS_OK && st != NNS_E_IO) {
      cli_print_error(o.path, &err);
      cli_discard_output(out);
    } else if (cli_close_output(out, o.output) && st == NNS_OK) {
      rc = EXIT_OK;
    }
  }
  if (rc == EXIT_OK && strict && incomplete(an, o.path))
    rc = EXIT_INCOMPLETE;
  nns_analysis_free(an);
  nns_model_free(m);
done:
  nns_hardware_list_free(hw_list);
  cli_model_opts_free(&o);
  return rc;
}
