/*
 * test_registry.c - the operator table keeps its promises (issue 6, item
 * 9): every (domain, op, opset range) is unique and no two ranges of one op
 * overlap; every entry has a shape and a cost rule; attribute specs are
 * well formed and their defaults have the declared type; every op that
 * slides a window over space (it declares kernel_shape, strides or
 * dilations) has a receptive-field rule; entries marked as views cost
 * nothing; no entry claims an opset beyond NNS__OPSET_MAX (25, onnx 1.20).
 *
 * The checks are counted, and the run fails when it made none: an empty
 * table (a family left out of families.h, a broken iteration) must not
 * pass by checking nothing.
 */
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "ops/op.h"

static long n_checks;

/* One counted check; reports the entry it is about. */
#define EXPECT(cond, e, fmt, ...)                                              \
  do {                                                                         \
    n_checks++;                                                                \
    if (!(cond))                                                               \
      check_fail(__FILE__, __LINE__, "%s%s%s %d-%d: " fmt,                    \
                 (e)->domain[0] ? (e)->domain : "", (e)->domain[0] ? "::" : "", \
                 (e)->name, (e)->since, (e)->until, __VA_ARGS__);              \
  } while (0)

static const char *dom(const nns__op *e) {
  return e->domain[0] ? e->domain : "ai.onnx";
}

/* ==== Ranges ==== */

static void test_ranges_unique(void) {
  size_t n = nns__op_table_size();
  for (size_t i = 0; i < n; i++) {
    const nns__op *a = nns__op_table_at(i);
    EXPECT(a->domain && a->name && a->name[0], a, "%s", "has a name");
    EXPECT(a->since >= 1 && a->since <= a->until, a, "range of %s",
           dom(a));
    /* ai.onnx is versioned by the table's one opset constant; the other
     * domains have their own version lines. */
    if (!a->domain[0])
      EXPECT(a->until <= NNS__OPSET_MAX, a, "until %d > NNS__OPSET_MAX %d",
             a->until, NNS__OPSET_MAX);
    for (size_t j = i + 1; j < n; j++) {
      const nns__op *b = nns__op_table_at(j);
      if (strcmp(a->name, b->name) || strcmp(a->domain, b->domain))
        continue;
      EXPECT(a->until < b->since || b->until < a->since, a,
             "overlaps entry %d-%d", b->since, b->until);
    }
  }
}

/* NNS__OPSET_MAX is the table's newest opset: some entry reaches it, and a
 * model one opset newer gets that entry with the `newer` warning flag. */
static void test_opset_max_is_the_newest(void) {
  size_t n = nns__op_table_size();
  int newest = 0;
  for (size_t i = 0; i < n; i++) {
    const nns__op *e = nns__op_table_at(i);
    if (!e->domain[0] && e->until > newest)
      newest = e->until;
  }
  n_checks++;
  CHECK_EQ(newest, NNS__OPSET_MAX);
  bool newer;
  const nns__op *e = nns__op_find("", "Conv", NNS__OPSET_MAX + 1, &newer);
  n_checks++;
  CHECK(e && e->until == NNS__OPSET_MAX && newer);
}

/* The lookup finds each entry at both ends of its range, and nothing in a
 * gap between two entries of one op. */
static void test_lookup_finds_each_entry(void) {
  size_t n = nns__op_table_size();
  for (size_t i = 0; i < n; i++) {
    const nns__op *e = nns__op_table_at(i);
    bool newer;
    EXPECT(nns__op_find(e->domain, e->name, e->since, &newer) == e && !newer,
           e, "%s", "found at since");
    EXPECT(nns__op_find(e->domain, e->name, e->until, &newer) == e && !newer,
           e, "%s", "found at until");
  }
}

/* ==== Rules ==== */

static void test_every_entry_has_rules(void) {
  size_t n = nns__op_table_size();
  for (size_t i = 0; i < n; i++) {
    const nns__op *e = nns__op_table_at(i);
    EXPECT(e->shape != NULL, e, "%s", "has a shape rule");
    EXPECT(e->cost != NULL, e, "%s", "has a cost rule");
    EXPECT(!e->fold_on_types || e->fold, e, "%s",
           "fold_on_types without a fold rule");
    EXPECT(e->roles != NULL, e, "%s", "declares input roles");
    for (const char *r = e->roles ? e->roles : ""; *r; r++)
      EXPECT(strchr("awbuc", *r) != NULL, e, "role letter '%c'", *r);
  }
}

/* A view does no work: its cost rule is the view rule (all zero). */
static void test_views_cost_nothing(void) {
  size_t n = nns__op_table_size(), views = 0;
  for (size_t i = 0; i < n; i++) {
    const nns__op *e = nns__op_table_at(i);
    if (!e->view)
      continue;
    views++;
    EXPECT(e->cost == nns__cost_view, e, "%s",
           "a view's cost rule is nns__cost_view");
  }
  /* Reshape, Identity, Squeeze, ... are views: a table without any means
   * the flag got lost. */
  CHECK(views > 0);
}

static bool is_window_attr(const char *name) {
  return !strcmp(name, "kernel_shape") || !strcmp(name, "strides") ||
         !strcmp(name, "dilations");
}

static void test_spatial_ops_have_rf(void) {
  size_t n = nns__op_table_size(), spatial = 0;
  for (size_t i = 0; i < n; i++) {
    const nns__op *e = nns__op_table_at(i);
    bool window = false;
    for (const nns__attr_spec *a = e->attrs; a && a->name; a++)
      window |= is_window_attr(a->name);
    if (!window)
      continue;
    spatial++;
    EXPECT(e->rf != NULL, e, "%s",
           "slides a window (kernel_shape/strides/dilations) but has no "
           "receptive-field rule");
  }
  CHECK(spatial > 0);
}

/* ==== Attribute specs ==== */

static void test_attr_defaults_typecheck(void) {
  size_t n = nns__op_table_size();
  for (size_t i = 0; i < n; i++) {
    const nns__op *e = nns__op_table_at(i);
    for (const nns__attr_spec *a = e->attrs; a && a->name; a++) {
      EXPECT(a->type >= NNS__AT_FLOAT && a->type <= NNS__AT_TYPE_PROTOS, e,
             "attribute %s: type %d", a->name, a->type);
      EXPECT(!(a->required && a->has_default), e,
             "attribute %s is both required and defaulted", a->name);
      for (const nns__attr_spec *b = a + 1; b->name; b++)
        EXPECT(strcmp(a->name, b->name) != 0, e,
               "attribute %s declared twice", a->name);
      if (!a->has_default) {
        EXPECT(a->i == 0 && a->f == 0 && !a->s, e,
               "attribute %s has a value but no default", a->name);
        continue;
      }
      /* The default lives in the field of the declared type, and only
       * there (NNS__A_INT("alpha", 0.5) would truncate silently). */
      switch (a->type) {
      case NNS__AT_INT:
        EXPECT(a->f == 0 && !a->s, e, "INT attribute %s has a float or "
               "string default", a->name);
        break;
      case NNS__AT_FLOAT:
        EXPECT(a->i == 0 && !a->s, e, "FLOAT attribute %s has an int or "
               "string default", a->name);
        break;
      case NNS__AT_STRING:
        EXPECT(a->s != NULL && a->i == 0 && a->f == 0, e,
               "STRING attribute %s: default", a->name);
        break;
      default:
        EXPECT(false, e, "attribute %s: a default of type %d cannot be "
               "declared", a->name, a->type);
      }
    }
  }
}

/* ==== Shared rules ==== */

/* com.microsoft FusedConv is Conv with an activation: its shape and
 * receptive field are Conv's own rules, not copies. */
static void test_fused_conv_uses_conv_rules(void) {
  bool newer;
  const nns__op *conv = nns__op_find("", "Conv", NNS__OPSET_MAX, &newer);
  const nns__op *fused = nns__op_find("com.microsoft", "FusedConv", 1, &newer);
  CHECK(conv && fused);
  if (!conv || !fused)
    return;
  n_checks += 2;
  CHECK(fused->shape == conv->shape);
  CHECK(fused->rf == conv->rf);
}

static void test_made_checks(void) {
  printf("%ld registry checks over %zu entries\n", n_checks,
         nns__op_table_size());
  CHECK(n_checks > 0);
  /* Each entry gets at least its name, range, lookup and rule checks. */
  CHECK(n_checks >= 6 * (long)nns__op_table_size());
}

int main(void) {
  RUN(test_ranges_unique);
  RUN(test_opset_max_is_the_newest);
  RUN(test_lookup_finds_each_entry);
  RUN(test_every_entry_has_rules);
  RUN(test_views_cost_nothing);
  RUN(test_spatial_ops_have_rf);
  RUN(test_attr_defaults_typecheck);
  RUN(test_fused_conv_uses_conv_rules);
  RUN(test_made_checks);
  return check_finish();
}
