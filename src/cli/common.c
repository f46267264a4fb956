/*
 * common.c - what the subcommands share: the values of --input and
 * --value, loading with error reporting, output files written
 * through a temporary and renamed into place, the nns_write_fn that
 * reports stream through, and the terminal's width.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"

static bool parse_i64(const char *s, int64_t *out) {
  char *end;
  errno = 0;
  long long v = strtoll(s, &end, 10);
  if (errno || end == s || *end || v < 0)
    return false;
  *out = v;
  return true;
}

/* "NAME=1x3x224x224" (or with commas). The name is what precedes the last
 * '=', so names containing '=' still work. */
bool cli_add_input(cli_model_opts *o, const char *arg) {
  const char *eq = strrchr(arg, '=');
  if (!eq || eq == arg) {
    fprintf(stderr, "nnscan: --input wants NAME=DIMS, got '%s'\n", arg);
    return false;
  }
  if (o->input_count == 64) {
    fprintf(stderr, "nnscan: at most 64 --input options\n");
    return false;
  }
  size_t k = o->input_count;
  for (size_t j = 0; j < k; j++)
    if (strlen(o->inputs[j].name) == (size_t)(eq - arg) &&
        !strncmp(o->inputs[j].name, arg, (size_t)(eq - arg))) {
      fprintf(stderr, "nnscan: --input %s is given twice\n",
              o->inputs[j].name);
      return false;
    }
  char *name = strndup(arg, (size_t)(eq - arg));
  int64_t *dims = malloc(64 * sizeof *dims);
  if (!name || !dims) {
    free(name);
    free(dims);
    fprintf(stderr, "nnscan: out of memory\n");
    return false;
  }
  size_t rank = 0;
  const char *p = eq + 1;
  while (*p) {
    char buf[32];
    size_t n = strcspn(p, "x,");
    if (n == 0 || n >= sizeof buf || rank == 64) {
      fprintf(stderr, "nnscan: --input %s: bad dims '%s'\n", name, eq + 1);
      free(name);
      free(dims);
      return false;
    }
    memcpy(buf, p, n);
    buf[n] = 0;
    if (!parse_i64(buf, &dims[rank])) {
      fprintf(stderr, "nnscan: --input %s: '%s' is not a dim\n", name, buf);
      free(name);
      free(dims);
      return false;
    }
    rank++;
    p += n;
    if (*p && !*++p) {
      fprintf(stderr, "nnscan: --input %s: bad dims '%s': it ends with a "
                      "separator\n", name, eq + 1);
      free(name);
      free(dims);
      return false;
    }
  }
  o->inputs[k].size = sizeof o->inputs[k];
  o->inputs[k].name = name;
  o->inputs[k].dims = dims;
  o->inputs[k].rank = rank;
  o->input_count++;
  return true;
}

/* "NAME=V[,V...]": whole numbers, negative ones too (true/false for a
 * boolean input). */
bool cli_add_value(cli_model_opts *o, const char *arg) {
  const char *eq = strrchr(arg, '=');
  if (!eq || eq == arg || !eq[1]) {
    fprintf(stderr, "nnscan: --value wants NAME=V[,V...], got '%s'\n", arg);
    return false;
  }
  if (o->value_count == 64) {
    fprintf(stderr, "nnscan: at most 64 --value options\n");
    return false;
  }
  size_t n = 1;
  for (const char *p = eq + 1; *p; p++)
    n += *p == ',';
  int64_t *data = malloc(n * sizeof *data);
  char *name = strndup(arg, (size_t)(eq - arg));
  if (!data || !name) {
    free(data);
    free(name);
    fprintf(stderr, "nnscan: out of memory\n");
    return false;
  }
  const char *p = eq + 1;
  for (size_t k = 0; k < n; k++) {
    size_t len = strcspn(p, ",");
    char buf[32];
    char *end = NULL;
    long long v = 0;
    bool ok = len > 0 && len < sizeof buf;
    if (ok) {
      memcpy(buf, p, len);
      buf[len] = 0;
      errno = 0;
      if (!strcmp(buf, "true") || !strcmp(buf, "false"))
        v = buf[0] == 't';
      else {
        v = strtoll(buf, &end, 10);
        ok = !errno && end != buf && !*end;
      }
    }
    if (!ok) {
      fprintf(stderr, "nnscan: --value %s: '%.*s' is not a whole number\n",
              name, (int)len, p);
      free(data);
      free(name);
      return false;
    }
    data[k] = v;
    p += len + (p[len] == ',');
  }
  o->values[o->value_count++] =
      (nns_input_value){.size = sizeof(nns_input_value), .name = name,
                        .data = data, .count = n};
  return true;
}

void cli_model_opts_free(cli_model_opts *o) {
  for (size_t k = 0; k < o->input_count; k++) {
    free((char *)o->inputs[k].name);
    free((int64_t *)o->inputs[k].dims);
  }
  for (size_t k = 0; k < o->value_count; k++) {
    free((char *)o->values[k].name);
    free((int64_t *)o->values[k].data);
  }
  o->input_count = o->value_count = 0;
}

void cli_print_error(const char *path, const nns_error *err) {
  /* The message names nodes and ops of the model: cleaned of escape
   * sequences, as is the path (a file name can hold them too). */
  char p[1024], msg[3 * sizeof err->message];
  nns_text_clean(p, sizeof p, path);
  nns_text_clean(msg, sizeof msg, err->message);
  fprintf(stderr, "nnscan: %s: %s", p, msg);
  if (err->offset >= 0 && !strstr(msg, "byte"))
    fprintf(stderr, " (at byte %lld)", (long long)err->offset);
  fprintf(stderr, " [%s]\n", nns_status_name(err->code));
}

/* Whether m has a graph input called name, or (dims) an input dim whose
 * symbol is name. */
static bool model_has(const nns_model *m, const char *name, bool dims) {
  for (size_t k = 0; k < nns_model_input_count(m); k++) {
    size_t v;
    nns_value_info vi = {.size = sizeof vi};
    if (nns_model_input(m, k, &v) != NNS_OK ||
        nns_model_value(m, v, &vi) != NNS_OK)
      continue;
    if (vi.name && !strcmp(vi.name, name))
      return true;
    for (int ax = 0; dims && ax < vi.rank; ax++) {
      nns_dim d = {.size = sizeof d};
      if (nns_model_value_dim(m, v, ax, &d) == NNS_OK && d.symbol &&
          !strcmp(d.symbol, name))
        return true;
    }
  }
  return false;
}

nns_model *cli_load_some(const cli_model_opts *o, bool *input_used,
                         bool *value_used) {
  nns_model *m = NULL;
  nns_error err;
  if (nns_model_load_file(o->path, NULL, &m, &err) != NNS_OK) {
    cli_print_error(o->path, &err);
    return NULL;
  }
  nns_input_shape inputs[64];
  nns_input_value values[64];
  size_t ni = 0, nv = 0;
  for (size_t k = 0; k < o->input_count; k++)
    if (!input_used || model_has(m, o->inputs[k].name, true)) {
      inputs[ni++] = o->inputs[k];
      if (input_used)
        input_used[k] = true;
    }
  for (size_t k = 0; k < o->value_count; k++)
    if (!value_used || model_has(m, o->values[k].name, false)) {
      values[nv++] = o->values[k];
      if (value_used)
        value_used[k] = true;
    }
  nns_infer_options io = {.size = sizeof io,
                          .flags = o->infer_flags,
                          .batch = o->batch,
                          .inputs = inputs,
                          .input_count = ni,
                          .values = values,
                          .value_count = nv};
  if (nns_model_infer(m, &io, &err) != NNS_OK) {
    cli_print_error(o->path, &err);
    nns_model_free(m);
    return NULL;
  }
  return m;
}

nns_model *cli_load(const cli_model_opts *o) {
  return cli_load_some(o, NULL, NULL);
}

/* The outputs open as temporary files, and the names they get when
 * closed (the CLI has at most two open at once: a table and its plot). */
static struct pending {
  FILE *f;
  char *tmp;    /* the temporary file, in the target's folder */
  char *target; /* what it is renamed to */
} pending[4];

static struct pending *pending_of(FILE *f) {
  for (size_t i = 0; f && i < sizeof pending / sizeof pending[0]; i++)
    if (pending[i].f == f)
      return &pending[i];
  return NULL;
}

/* A temporary file beside `target` (symbolic links followed, so the
 * rename replaces the file the link points to, not the link), opened for
 * writing with the mode a new file gets. NULL with errno set on failure;
 * *direct is set when the target is not a regular file (a device, a FIFO:
 * /dev/null, /dev/stdout), which is then written in place. */
static FILE *open_temporary(const char *path, struct pending *slot,
                            bool *direct) {
  *direct = false;
  struct stat st;
  char *target = NULL;
  if (stat(path, &st) == 0) {
    if (!S_ISREG(st.st_mode)) {
      *direct = true;
      return NULL;
    }
    target = realpath(path, NULL);
  } else if (errno == ENOENT) {
    target = strdup(path);
  }
  if (!target)
    return NULL;
  const char *slash = strrchr(target, '/');
  size_t dir = slash ? (size_t)(slash - target) + 1 : 0;
  size_t len = strlen(target);
  char *tmp = malloc(len + 16);
  if (!tmp) {
    free(target);
    errno = ENOMEM;
    return NULL;
  }
  /* ".NAME.XXXXXX" in the same folder: rename() within one file system
   * is atomic. NAME is cut to 200 bytes so that a name near NAME_MAX
   * (255) still gets one. */
  snprintf(tmp, len + 16, "%.*s.%.200s.XXXXXX", (int)dir, target,
           target + dir);
  int fd = mkstemp(tmp);
  FILE *f = NULL;
  if (fd >= 0) {
    mode_t mask = umask(0);
    umask(mask);
    /* mkstemp makes 0600; the report gets what fopen would have given it,
     * or the mode of the file it replaces. */
    mode_t mode = stat(target, &st) == 0 ? st.st_mode & 07777 : 0666 & ~mask;
    if (fchmod(fd, mode) != 0 || !(f = fdopen(fd, "w"))) {
      int e = errno;
      close(fd);
      unlink(tmp);
      errno = e;
    }
  }
  if (!f) {
    free(tmp);
    free(target);
    return NULL;
  }
  *slot = (struct pending){.f = f, .tmp = tmp, .target = target};
  return f;
}

/* Output buffers: reports run to megabytes, and a large buffer means a few
 * writes, not one per 4 KB. glibc ignores setvbuf's size when it is to
 * allocate the buffer itself (it takes the file's block size, 4 KB), so
 * the buffer is ours: one per stream open at once (stdout, a table and its
 * plot), in static storage that costs nothing until a report fills it.
 * stdout keeps its slot until exit, which flushes it. */
static struct stream_buffer {
  FILE *f;               /* the stream using it, or NULL */
  char buf[1 << 16];
} buffers[3];

/* Gives f a buffer (once for stdout); a stream finding none free keeps
 * stdio's. Set before the first output, as setvbuf requires. */
static void give_buffer(FILE *f) {
  struct stream_buffer *free_slot = NULL;
  for (size_t i = 0; i < sizeof buffers / sizeof buffers[0]; i++) {
    if (buffers[i].f == f)
      return;
    if (!buffers[i].f && !free_slot)
      free_slot = &buffers[i];
  }
  if (free_slot &&
      setvbuf(f, free_slot->buf, _IOFBF, sizeof free_slot->buf) == 0)
    free_slot->f = f;
}

/* f's buffer slot, looked up before f is closed (and then handed back
 * with `slot->f = NULL`); NULL for stdout, which keeps its slot. */
static struct stream_buffer *buffer_of(FILE *f) {
  for (size_t i = 0; f != stdout && i < sizeof buffers / sizeof buffers[0]; i++)
    if (buffers[i].f == f)
      return &buffers[i];
  return NULL;
}

FILE *cli_open_output(const char *path) {
  FILE *f = NULL;
  if (!path || !strcmp(path, "-")) {
    f = stdout;
  } else {
    struct pending *slot = pending_of(NULL);
    for (size_t i = 0; !slot && i < sizeof pending / sizeof pending[0]; i++)
      if (!pending[i].f)
        slot = &pending[i];
    bool direct = !slot;
    if (slot)
      f = open_temporary(path, slot, &direct);
    if (direct)
      f = fopen(path, "w");
  }
  if (!f) {
    char p[1024];
    nns_text_clean(p, sizeof p, path);
    fprintf(stderr, "nnscan: cannot write '%s': %s\n", p, strerror(errno));
    return NULL;
  }
  give_buffer(f);
  return f;
}

/* Forgets the pending output p (looked up before its FILE is closed); its temporary file is renamed to its
 * target when `keep`, else removed. False (errno set) if the rename
 * failed. */
static bool settle(struct pending *p, bool keep) {
  if (!p)
    return true;
  bool ok = true;
  if (keep && rename(p->tmp, p->target) != 0)
    ok = false;
  if (!keep || !ok) {
    int e = errno;
    unlink(p->tmp);
    errno = e;
  }
  free(p->tmp);
  free(p->target);
  *p = (struct pending){0};
  return ok;
}

void cli_discard_output(FILE *f) {
  if (!f || f == stdout) {
    if (f)
      fflush(f);
    return;
  }
  struct pending *p = pending_of(f);
  struct stream_buffer *b = buffer_of(f);
  fclose(f);
  if (b)
    b->f = NULL;
  settle(p, false);
}

/* errno of the first failed cli_write (the CLI writes one output at a
 * time, so one slot is enough). */
static int write_errno;

int cli_write(void *file, const char *data, size_t size) {
  if (fwrite(data, 1, size, (FILE *)file) == size)
    return 0;
  if (!write_errno)
    write_errno = errno ? errno : EIO;
  return -1;
}

bool cli_close_output(FILE *f, const char *path) {
  if (!f)
    return false;
  /* A write that failed earlier left the stream's error flag set; flushing
   * the rest then fails the same way (ENOSPC, EIO, EPIPE) and says why. */
  bool bad = ferror(f) != 0;
  int e = 0;
  struct pending *temp = pending_of(f);
  if (fflush(f) != 0) {
    bad = true;
    e = errno;
  }
  struct stream_buffer *buf = buffer_of(f);
  if (f != stdout && fclose(f) != 0) {
    bad = true;
    e = e ? e : errno;
  }
  if (buf)
    buf->f = NULL;
  if (!e && write_errno) {
    bad = true;
    e = write_errno;
  }
  /* The report replaces FILE only when all of it was written. */
  if (f != stdout && !settle(temp, !bad)) {
    bad = true;
    e = errno;
  }
  write_errno = 0;
  if (bad) {
    char p[1024];
    nns_text_clean(p, sizeof p, cli_output_name(path));
    fprintf(stderr, "nnscan: cannot write '%s': %s\n", p,
            e ? strerror(e) : "write error");
  }
  return !bad;
}

bool cli_pick_format(const char *cmd, const char *word,
                     const nns_report_format *allowed, size_t n,
                     nns_report_format *out) {
  for (size_t i = 0; i < n; i++)
    if (!strcmp(word, nns_report_format_name(allowed[i]))) {
      *out = allowed[i];
      return true;
    }
  fprintf(stderr, "nnscan %s: --format is ", cmd);
  for (size_t i = 0; i < n; i++)
    fprintf(stderr, "%s%s", !i ? "" : i + 1 < n ? ", " : " or ",
            nns_report_format_name(allowed[i]));
  fprintf(stderr, ", not '%s'\n", word);
  return false;
}

bool cli_is_help(const char *arg) {
  return !strcmp(arg, "-h") || !strcmp(arg, "--help");
}

const char *cli_output_name(const char *path) {
  return !path || !strcmp(path, "-") ? "<stdout>" : path;
}

bool cli_parse_int(const char *s, long min, long *out) {
  char *end;
  errno = 0;
  long v = strtol(s, &end, 10);
  if (errno || end == s || *end || v < min)
    return false;
  *out = v;
  return true;
}

int cli_terminal_width(void) {
  if (!isatty(STDOUT_FILENO))
    return 100;
  const char *env = getenv("COLUMNS");
  long w;
  if (env && cli_parse_int(env, 20, &w) && w < 10000)
    return (int)w;
  struct winsize ws;
  if (ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col >= 20)
    return ws.ws_col;
  return 100;
}

const char *cli_model_name(const char *path, char *buf, size_t size) {
  const char *base = strrchr(path, '/');
  base = base ? base + 1 : path;
  size_t n = strlen(base);
  if (n > 5 && !strcmp(base + n - 5, ".onnx"))
    n -= 5;
  else if (n > 4 && !strcmp(base + n - 4, ".pt2"))
    n -= 4;
  if (n >= size)
    n = size - 1;
  memcpy(buf, base, n);
  buf[n] = 0;
  return buf;
}
