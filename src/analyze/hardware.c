/*
 * hardware.c - the devices the roofline knows (nns_hardware_*): one table,
 * like the op table, each entry with the datasheet its figures come from;
 * and devices of the user's own from a small text file
 * (nns_hardware_list_*; format in docs/roofline.md).
 *
 * Peaks are dense figures (a datasheet's "with sparsity" column halved
 * back, as its footnote says), in FLOP/s (OP/s for int8); fp32 is the
 * vector (non-tensor) figure, the others matrix/tensor figures.
 * Bandwidth is the memory bandwidth in bytes/s (10^9 per GB/s). A 0 peak:
 * the datasheet lists none (A100 has no fp8).
 */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../base/base.h"
#include "../base/out.h"
#include "analyze.h"

#define T 1e12
#define P 1e15

/* ==== The table ==== */

/* Peaks in the nns_compute_dtype order: fp32, tf32, bf16, fp16, fp8, int8. */
static const nns_hardware devices[] = {
    /* NVIDIA H100 Tensor Core GPU datasheet, "H100 SXM" column: FP32 67
     * TF; TF32 989, BF16 1,979, FP16 1,979, FP8 3,958 TF and INT8 3,958
     * TOPS "with sparsity" (halved here); 3.35 TB/s.
     * https://resources.nvidia.com/en-us-tensor-core/nvidia-tensor-core-gpu-datasheet */
    {sizeof(nns_hardware), "h100-sxm", "NVIDIA H100 SXM5 80 GB",
     "https://resources.nvidia.com/en-us-tensor-core/"
     "nvidia-tensor-core-gpu-datasheet",
     {67 * T, 494.5 * T, 989.5 * T, 989.5 * T, 1979 * T, 1979 * T},
     3.35 * T},
    /* The same datasheet, "H100 PCIe" column: FP32 51 TF; TF32 756, BF16
     * 1,513, FP16 1,513, FP8 3,026 TF, INT8 3,026 TOPS with sparsity;
     * 2 TB/s (2,000 GB/s). */
    {sizeof(nns_hardware), "h100-pcie", "NVIDIA H100 PCIe 80 GB",
     "https://resources.nvidia.com/en-us-tensor-core/"
     "nvidia-tensor-core-gpu-datasheet",
     {51 * T, 378 * T, 756.5 * T, 756.5 * T, 1513 * T, 1513 * T}, 2.0 * T},
    /* NVIDIA H200 datasheet, "H200 SXM" column: the H100 SXM's compute
     * (FP32 67 TF; TF32 989, BF16/FP16 1,979, FP8 3,958 TF, INT8 3,958
     * TOPS with sparsity), 141 GB HBM3e at 4.8 TB/s.
     * https://www.nvidia.com/en-us/data-center/h200/ */
    {sizeof(nns_hardware), "h200", "NVIDIA H200 SXM 141 GB",
     "https://www.nvidia.com/en-us/data-center/h200/",
     {67 * T, 494.5 * T, 989.5 * T, 989.5 * T, 1979 * T, 1979 * T},
     4.8 * T},
    /* NVIDIA HGX B200 specifications, per GPU: FP32 75 TF; TF32 2.2,
     * FP16/BF16 4.5, FP8 9 PF and INT8 9 POPS with sparsity; 180 GB
     * HBM3e at 7.7 TB/s.  https://www.nvidia.com/en-us/data-center/hgx/ */
    {sizeof(nns_hardware), "b200", "NVIDIA B200 (HGX B200) 180 GB",
     "https://www.nvidia.com/en-us/data-center/hgx/",
     {75 * T, 1.1 * P, 2.25 * P, 2.25 * P, 4.5 * P, 4.5 * P}, 7.7 * T},
    /* NVIDIA A100 Tensor Core GPU datasheet, "A100 80GB SXM": FP32 19.5
     * TF; TF32 156, BF16 312, FP16 312 TF, INT8 624 TOPS (dense; the
     * datasheet gives 312*, 624*, 1,248* with sparsity); no FP8;
     * 2,039 GB/s. */
    {sizeof(nns_hardware), "a100-sxm-80g", "NVIDIA A100 SXM4 80 GB",
     "https://www.nvidia.com/content/dam/en-zz/Solutions/Data-Center/a100/"
     "pdf/nvidia-a100-datasheet-us-nvidia-1758950-r4-web.pdf",
     {19.5 * T, 156 * T, 312 * T, 312 * T, 0, 624 * T}, 2.039 * T},
    /* The same datasheet, "A100 40GB PCIe": the same compute, 1,555 GB/s. */
    {sizeof(nns_hardware), "a100-pcie-40g", "NVIDIA A100 PCIe 40 GB",
     "https://www.nvidia.com/content/dam/en-zz/Solutions/Data-Center/a100/"
     "pdf/nvidia-a100-datasheet-us-nvidia-1758950-r4-web.pdf",
     {19.5 * T, 156 * T, 312 * T, 312 * T, 0, 624 * T}, 1.555 * T},
    /* NVIDIA L4 datasheet: FP32 30.3 TF; TF32 120, BF16 242, FP16 242,
     * FP8 485 TF, INT8 485 TOPS with sparsity; 300 GB/s. */
    {sizeof(nns_hardware), "l4", "NVIDIA L4 24 GB",
     "https://www.nvidia.com/en-us/data-center/l4/",
     {30.3 * T, 60 * T, 121 * T, 121 * T, 242.5 * T, 242.5 * T}, 0.3 * T},
    /* NVIDIA L40S datasheet: FP32 91.6 TF; TF32 183 | 366*, BF16 362.05 |
     * 733*, FP16 362.05 | 733*, FP8 733 | 1,466* TF, INT8 733 | 1,466*
     * TOPS (* with sparsity); 864 GB/s. */
    {sizeof(nns_hardware), "l40s", "NVIDIA L40S 48 GB",
     "https://www.nvidia.com/en-us/data-center/l40s/",
     {91.6 * T, 183 * T, 362.05 * T, 362.05 * T, 733 * T, 733 * T},
     0.864 * T},
    /* NVIDIA Ada GPU architecture whitepaper, appendix (GeForce RTX 4090):
     * FP32 82.6 TF; tensor TF32 82.6, BF16 and FP16 (FP32 accumulate, as
     * frameworks run them) 165.2, FP8 (FP32 accumulate) 330.3 TF, INT8
     * 660.6 TOPS, dense; 1,008 GB/s. */
    {sizeof(nns_hardware), "rtx-4090", "NVIDIA GeForce RTX 4090 24 GB",
     "https://images.nvidia.com/aem-dam/Solutions/geforce/ada/"
     "nvidia-ada-gpu-architecture.pdf",
     {82.6 * T, 82.6 * T, 165.2 * T, 165.2 * T, 330.3 * T, 660.6 * T},
     1.008 * T},
    /* AMD Instinct MI300X data sheet: peak FP32 vector 163.4 TF; TF32
     * 653.7, FP16 1,307.4, BF16 1,307.4, FP8 2,614.9 TF, INT8 2,614.9
     * TOPS (dense; the sparsity figures are twice these); 5.3 TB/s. */
    {sizeof(nns_hardware), "mi300x", "AMD Instinct MI300X 192 GB",
     "https://www.amd.com/content/dam/amd/en/documents/instinct-tech-docs/"
     "data-sheets/amd-instinct-mi300x-data-sheet.pdf",
     {163.4 * T, 653.7 * T, 1307.4 * T, 1307.4 * T, 2614.9 * T, 2614.9 * T},
     5.3 * T},
    /* A CPU: no datasheet fits every one; the user gives its figures. */
    {sizeof(nns_hardware), "cpu", "a CPU (figures given by the user)",
     "user", {0, 0, 0, 0, 0, 0}, 0},
};

#undef T
#undef P

enum { N_DEVICES = sizeof devices / sizeof devices[0] };

size_t nns_hardware_count(void) { return N_DEVICES; }

nns_status nns_hardware_get(size_t i, nns_hardware *out) {
  if (!out || i >= N_DEVICES)
    return NNS_E_ARG;
  return NNS__PUT(out, &devices[i], NNS__V1_HARDWARE);
}

nns_status nns_hardware_find(const char *name, nns_hardware *out,
                             nns_error *err) {
  if (!name || !out)
    return nns__err(err, NNS_E_ARG, -1, NULL, "name or out is NULL");
  for (size_t i = 0; i < N_DEVICES; i++)
    if (!strcmp(devices[i].name, name))
      return nns_hardware_get(i, out);
  return nns__err(err, NNS_E_NOTFOUND, -1, NULL,
                  "no hardware called '%.80s' (nnscan hardware lists them)",
                  name);
}

NNS__NAME_FN(nns_compute_dtype_name, NNS_COMPUTE_DTYPE_MAP)
NNS__NAME_FN(nns_bound_name, NNS_BOUND_MAP)

/* ==== Devices from a file ==== */

struct nns_hardware_list {
  size_t n, cap;
  nns_hardware *items;
  uint32_t *slots; /* a hash set of device index + 1, by name: linear */
  size_t scap;     /* its slots, a power of two, at most half full */
  char **strings; /* every string the items point to, to free */
  size_t n_strings, cap_strings;
};

void nns_hardware_list_free(nns_hardware_list *l) {
  if (!l)
    return;
  for (size_t i = 0; i < l->n_strings; i++)
    free(l->strings[i]);
  free(l->strings);
  free(l->items);
  free(l->slots);
  free(l);
}

size_t nns_hardware_list_count(const nns_hardware_list *l) {
  return l ? l->n : 0;
}

nns_status nns_hardware_list_get(const nns_hardware_list *l, size_t i,
                                 nns_hardware *out) {
  if (!l || !out || i >= l->n)
    return NNS_E_ARG;
  return NNS__PUT(out, &l->items[i], NNS__V1_HARDWARE);
}

/* A copy of s[0..n) kept by the list, or NULL when out of memory. */
static char *keep(nns_hardware_list *l, const char *s, size_t n) {
  char **grown = nns__grow(l->strings, &l->cap_strings, l->n_strings + 1,
                           sizeof *grown, 8);
  if (!grown)
    return NULL;
  l->strings = grown;
  char *c = malloc(n + 1);
  if (!c)
    return NULL;
  memcpy(c, s, n);
  c[n] = 0;
  l->strings[l->n_strings++] = c;
  return c;
}

/* s[0..n) without leading and trailing blanks. */
static void trim(const char **s, size_t *n) {
  while (*n && isspace((unsigned char)**s))
    (*s)++, (*n)--;
  while (*n && isspace((unsigned char)(*s)[*n - 1]))
    (*n)--;
}

bool nns__hw_figure_ok(double v) {
  return v >= NNS__HW_FIGURE_MIN && v <= NNS__HW_FIGURE_MAX;
}

/* A figure: 0 (a peak: none), or a number in the figures' range (1e12,
 * 67e12, 3.35e12). */
static bool parse_figure(const char *s, size_t n, bool zero_ok, double *out) {
  char buf[64];
  if (!n || n >= sizeof buf)
    return false;
  memcpy(buf, s, n);
  buf[n] = 0;
  char *end;
  errno = 0;
  double v = strtod(buf, &end);
  if (*end || !(nns__hw_figure_ok(v) || (zero_ok && v == 0)))
    return false;
  *out = v;
  return true;
}

/* Reads one `key = value` line into the current device. */
static nns_status list_line(nns_hardware_list *l, const char *key, size_t kn,
                            const char *val, size_t vn, const char *path,
                            int line, nns_error *err) {
  nns_hardware *h = &l->items[l->n - 1];
  if ((kn == 11 && !memcmp(key, "description", 11)) ||
      (kn == 6 && !memcmp(key, "source", 6))) {
    char *c = keep(l, val, vn);
    if (!c)
      return nns__err(err, NNS_E_NOMEM, -1, NULL, "out of memory");
    if (kn == 6)
      h->source = c;
    else
      h->description = c;
    return NNS_OK;
  }
  double *slot = NULL;
  if (kn == 9 && !memcmp(key, "bandwidth", 9))
    slot = &h->bandwidth;
  for (int d = 0; !slot && d < NNS_COMPUTE_DTYPE_COUNT; d++) {
    const char *dn = nns_compute_dtype_name(d);
    if (strlen(dn) == kn && !memcmp(key, dn, kn))
      slot = &h->peak_flops[d];
  }
  if (!slot)
    return nns__err(err, NNS_E_MODEL, -1, NULL,
                    "%.200s:%d: unknown key '%.*s' (bandwidth, fp32, tf32, "
                    "bf16, fp16, fp8, int8, description, source)",
                    path, line, (int)(kn > 40 ? 40 : kn), key);
  bool bw = slot == &h->bandwidth;
  if (!parse_figure(val, vn, !bw, slot))
    return nns__err(err, NNS_E_MODEL, -1, NULL,
                    "%.200s:%d: '%.*s' is not a number from "
                    NNS__HW_FIGURE_RANGE "%s (%s, e.g. 3.35e12)",
                    path, line, (int)(vn > 40 ? 40 : vn), val,
                    bw ? "" : ", or 0 for none", bw ? "bytes/s" : "FLOP/s");
  return NNS_OK;
}

static size_t name_hash(const char *s, size_t n) {
  uint64_t h = 1469598103934665603ull; /* FNV-1a */
  for (size_t i = 0; i < n; i++)
    h = (h ^ (unsigned char)s[i]) * 1099511628211ull;
  return (size_t)nns__hash_mix(h);
}

static void slot_put(nns_hardware_list *l, size_t i) {
  const char *name = l->items[i].name;
  size_t s = name_hash(name, strlen(name)) & (l->scap - 1);
  while (l->slots[s])
    s = (s + 1) & (l->scap - 1);
  l->slots[s] = (uint32_t)(i + 1);
}

/* Twice the room (at least 16 slots), every device put back. */
static bool rehash(nns_hardware_list *l) {
  size_t cap = l->scap ? 2 * l->scap : 16;
  uint32_t *slots = calloc(cap, sizeof *slots);
  if (!slots)
    return false;
  free(l->slots);
  l->slots = slots;
  l->scap = cap;
  for (size_t i = 0; i < l->n; i++)
    slot_put(l, i);
  return true;
}

/* A value without its comment: a `#` after a blank starts one (so a URL's
 * `#fragment` stays), as docs/roofline.md shows. */
static void strip_comment(const char *s, size_t *n) {
  for (size_t i = 1; i < *n; i++)
    if (s[i] == '#' && (s[i - 1] == ' ' || s[i - 1] == '\t')) {
      *n = i;
      return;
    }
}

/* Starts device `[name]`. */
static nns_status list_section(nns_hardware_list *l, const char *name,
                               size_t n, const char *path, int line,
                               nns_error *err) {
  if (!n)
    return nns__err(err, NNS_E_MODEL, -1, NULL, "%.200s:%d: empty [name]",
                    path, line);
  for (size_t i = 0; i < n; i++)
    if (!isalnum((unsigned char)name[i]) && !strchr("-_.", name[i]))
      return nns__err(err, NNS_E_MODEL, -1, NULL,
                      "%.200s:%d: a device name holds letters, digits and "
                      "- _ . only",
                      path, line);
  if (l->n >= UINT32_MAX / 4)
    return nns__err(err, NNS_E_LIMIT, -1, NULL, "%.200s:%d: too many devices",
                    path, line);
  size_t hash = name_hash(name, n);
  for (size_t s = hash & (l->scap - 1); l->scap && l->slots[s];
       s = (s + 1) & (l->scap - 1)) {
    const char *other = l->items[l->slots[s] - 1].name;
    if (strlen(other) == n && !memcmp(other, name, n))
      return nns__err(err, NNS_E_MODEL, -1, NULL,
                      "%.200s:%d: device '%.*s' defined twice", path, line,
                      (int)(n > 80 ? 80 : n), name);
  }
  if (2 * (l->n + 1) > l->scap && !rehash(l))
    return nns__err(err, NNS_E_NOMEM, -1, NULL, "out of memory");
  nns_hardware *grown =
      nns__grow(l->items, &l->cap, l->n + 1, sizeof *grown, 4);
  if (!grown)
    return nns__err(err, NNS_E_NOMEM, -1, NULL, "out of memory");
  l->items = grown;
  char *c = keep(l, name, n);
  if (!c)
    return nns__err(err, NNS_E_NOMEM, -1, NULL, "out of memory");
  l->items[l->n++] = (nns_hardware){
      .size = sizeof(nns_hardware), .name = c, .description = c,
      .source = "user"};
  slot_put(l, l->n - 1);
  return NNS_OK;
}

/* Offset of the first byte of data[0..n) that does not start a valid UTF-8
 * sequence, or n. A sequence cut by the end is read from a zeroed copy. */
static size_t not_utf8(const void *data, size_t n) {
  const unsigned char *p = data;
  size_t i = 0;
  while (i < n) {
    if (p[i] < 0x80) {
      i++;
      continue;
    }
    unsigned char tail[5] = {0};
    const unsigned char *at = p + i;
    if (n - i < 4) {
      memcpy(tail, at, n - i);
      at = tail;
    }
    size_t k = nns__utf8_len(at);
    if (!k)
      return i;
    i += k;
  }
  return n;
}

/* Every device needs a bandwidth and at least one peak. */
static nns_status list_check(const nns_hardware_list *l, const char *path,
                             nns_error *err) {
  if (!l->n)
    return nns__err(err, NNS_E_MODEL, -1, NULL,
                    "%.200s: no device (a [name] line starts one)", path);
  for (size_t i = 0; i < l->n; i++) {
    const nns_hardware *h = &l->items[i];
    bool peak = false;
    for (int d = 0; d < NNS_COMPUTE_DTYPE_COUNT; d++)
      peak = peak || h->peak_flops[d] > 0;
    if (!(h->bandwidth > 0) || !peak)
      return nns__err(err, NNS_E_MODEL, -1, NULL,
                      "%.200s: device '%.80s' needs a bandwidth and at "
                      "least one peak (fp32 = ..., bf16 = ...)",
                      path, h->name);
  }
  return NNS_OK;
}

nns_status nns_hardware_list_open(const char *path, nns_hardware_list **out,
                                  nns_error *err) {
  if (out)
    *out = NULL;
  if (!path || !out)
    return nns__err(err, NNS_E_ARG, -1, NULL, "path or out is NULL");
  nns__fmap f;
  nns_status st = nns__fmap_open(&f, path, err);
  if (st != NNS_OK)
    return st;
  if (f.size > (1u << 20)) {
    nns__fmap_close(&f);
    return nns__err(err, NNS_E_LIMIT, -1, NULL,
                    "%.200s: a hardware file is at most 1 MiB", path);
  }
  /* A device file is text: a NUL byte would cut a name or a figure short
   * where C strings read it (libFuzzer's fuzz_hardware found an empty name
   * made of NULs). */
  const char *nul = f.size ? memchr(f.data, 0, f.size) : NULL;
  if (nul) {
    size_t at = (size_t)(nul - (const char *)f.data);
    nns__fmap_close(&f);
    return nns__err(err, NNS_E_MODEL, (int64_t)at, NULL,
                    "%.200s: a NUL byte at byte %zu; a hardware file is text",
                    path, at);
  }
  /* Text is UTF-8: a Latin-1 description would reach a binding's strings
   * (Python's decode) as bytes it cannot read. */
  size_t bad = not_utf8(f.data, f.size);
  if (bad < f.size) {
    unsigned byte = ((const unsigned char *)f.data)[bad];
    nns__fmap_close(&f);
    return nns__err(err, NNS_E_MODEL, (int64_t)bad, NULL,
                    "%.200s: byte %zu (0x%02x) is not UTF-8; a hardware "
                    "file is UTF-8 text", path, bad, byte);
  }
  nns_hardware_list *l = calloc(1, sizeof *l);
  if (!l) {
    nns__fmap_close(&f);
    return nns__err(err, NNS_E_NOMEM, -1, NULL, "out of memory");
  }
  /* An empty file maps to no address: NULL + 0 is no pointer in C. */
  const char *p = (const char *)f.data, *end = f.size ? p + f.size : p;
  for (int line = 1; st == NNS_OK && p < end; line++) {
    const char *eol = memchr(p, '\n', (size_t)(end - p));
    if (!eol)
      eol = end;
    const char *s = p;
    size_t n = (size_t)(eol - p);
    p = eol + 1;
    trim(&s, &n);
    if (!n || s[0] == '#')
      continue;
    strip_comment(s, &n);
    trim(&s, &n);
    if (s[0] == '[') {
      if (s[n - 1] != ']') {
        st = nns__err(err, NNS_E_MODEL, -1, NULL,
                      "%.200s:%d: a section line is [name]", path, line);
        break;
      }
      const char *name = s + 1;
      size_t nn = n - 2;
      trim(&name, &nn);
      st = list_section(l, name, nn, path, line, err);
      continue;
    }
    const char *eq = memchr(s, '=', n);
    if (!eq || !l->n) {
      st = nns__err(err, NNS_E_MODEL, -1, NULL,
                    eq ? "%.200s:%d: a `key = value` line before any [name]"
                       : "%.200s:%d: expected `key = value`, [name] or # a "
                         "comment",
                    path, line);
      break;
    }
    const char *key = s, *val = eq + 1;
    size_t kn = (size_t)(eq - s), vn = n - kn - 1;
    trim(&key, &kn);
    trim(&val, &vn);
    st = list_line(l, key, kn, val, vn, path, line, err);
  }
  nns__fmap_close(&f);
  if (st == NNS_OK)
    st = list_check(l, path, err);
  if (st != NNS_OK) {
    nns_hardware_list_free(l);
    return st;
  }
  *out = l;
  return NNS_OK;
}
