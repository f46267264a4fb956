/*
 * test_load_halves.c - a graph of 12,000 nodes, whose second half the
 * loader decodes on a second thread (src/onnx/load_half.c) and links on
 * another (src/ir/assemble.c), while a third lists the nodes
 * (nns__model_listing): the model it makes, and the error it reports, are
 * those of one thread.
 *
 * The graph is a chain x -> n0 -> n1 -> ... (Relu, node i named n<i>,
 * output t<i>), each node with an INT attribute k<i> = i: three new names
 * a node, more than the interner's table was sized for (two), so both
 * threads use up their share of it and go on after the join. Expected
 * values are the ones the test wrote.
 */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "ir/ir.h"
#include "nnscan.h"
#include "pbenc.h"

enum { N = 12000, BODY = 20000 };

/* What node i is made of; `op` NULL: none (a broken node). */
typedef struct spec {
  const char *op;
  bool tensor_attr; /* also an attribute holding a tensor */
  bool external;    /* whose data is in an external file */
  bool graph_attr;  /* also an attribute holding a graph: BODY Identity
                       nodes, a chain from x */
  bool init_after;  /* an initializer w<i> follows it in the file */
  bool dangling;    /* its input is a name nothing defines */
} spec;

static spec plain(int i) {
  (void)i;
  return (spec){.op = "Relu"};
}

/* The fields in field-number order, as protobuf writers put them (the
 * nodes first, the graph's input and output last); with `input_first`,
 * the input before the nodes. */
static void build_as(pb *model, spec (*node)(int), bool input_first) {
  pb graph = {0};
  int64_t dims[] = {1, 4};
  if (input_first)
    pb_value_info(&graph, 11, "x", NNS_DT_FLOAT, 2, dims, NULL);
  char in[32] = "x", out[32], name[32], key[32];
  for (int i = 0; i < N; i++) {
    spec s = node(i);
    snprintf(out, sizeof out, "t%d", i);
    snprintf(name, sizeof name, "n%d", i);
    snprintf(key, sizeof key, "k%d", i);
    pb attrs = {0}, attr = {0};
    pb_str(&attr, 1, key);         /* AttributeProto.name */
    pb_int(&attr, 3, (uint64_t)i); /* .i */
    pb_int(&attr, 20, 2);          /* .type INT */
    pb_msg(&attrs, 5, &attr);
    if (s.tensor_attr) {
      pb tensor = {0};
      pb_int(&tensor, 1, 3);            /* TensorProto.dims [3] */
      pb_int(&tensor, 2, NNS_DT_FLOAT); /* .data_type */
      if (s.external) {
        pb entry = {0};
        pb_str(&entry, 1, "location"); /* StringStringEntryProto */
        pb_str(&entry, 2, "absent.bin");
        pb_msg(&tensor, 13, &entry); /* .external_data */
        pb_int(&tensor, 14, 1);      /* .data_location EXTERNAL */
      } else {
        float zeros[3] = {0};
        pb_bytes(&tensor, 9, zeros, sizeof zeros); /* .raw_data */
      }
      pb_str(&attr, 1, "table");
      pb_msg(&attr, 5, &tensor); /* .t */
      pb_int(&attr, 20, 4);      /* .type TENSOR */
      pb_msg(&attrs, 5, &attr);
    }
    if (s.graph_attr) {
      pb body = {0};
      char bin[32] = "x", bout[32];
      for (int k = 0; k < BODY; k++) {
        snprintf(bout, sizeof bout, "b%d", k);
        const char *bi[] = {bin}, *bo[] = {bout};
        pb_node(&body, "Identity", NULL, bi, 1, bo, 1, NULL);
        memcpy(bin, bout, sizeof bin);
      }
      pb_str(&body, 2, "body");
      pb_value_info(&body, 12, bin, NNS_DT_FLOAT, 2, dims, NULL);
      pb_str(&attr, 1, "body");
      pb_msg(&attr, 6, &body); /* .g */
      pb_int(&attr, 20, 5);    /* .type GRAPH */
      pb_msg(&attrs, 5, &attr);
    }
    const char *ins[] = {s.dangling ? "nowhere" : in}, *outs[] = {out};
    if (s.op) {
      pb_node(&graph, s.op, name, ins, 1, outs, 1, &attrs);
    } else { /* a NodeProto with no op_type */
      pb bad = {0};
      pb_str(&bad, 1, in);
      pb_str(&bad, 2, out);
      pb_str(&bad, 3, name);
      pb_raw(&bad, attrs.d, attrs.n);
      pb_free(&attrs);
      pb_msg(&graph, 1, &bad);
    }
    if (s.init_after) {
      pb tensor = {0};
      float one = 1;
      snprintf(key, sizeof key, "w%d", i);
      pb_int(&tensor, 1, 1);            /* TensorProto.dims [1] */
      pb_int(&tensor, 2, NNS_DT_FLOAT); /* .data_type */
      pb_str(&tensor, 8, key);          /* .name */
      pb_bytes(&tensor, 9, &one, sizeof one); /* .raw_data */
      pb_msg(&graph, 5, &tensor);       /* GraphProto.initializer */
    }
    memcpy(in, out, sizeof in);
  }
  if (!input_first)
    pb_value_info(&graph, 11, "x", NNS_DT_FLOAT, 2, dims, NULL);
  pb_value_info(&graph, 12, in, NNS_DT_FLOAT, 2, dims, NULL);
  pb_model(model, &graph, 13);
}

static void build(pb *model, spec (*node)(int)) {
  build_as(model, node, false);
}

/* The model build_as writes, loaded (a failure is a test failure); NULL
 * when it did not load. */
static nns_model *load_built(spec (*node)(int), bool input_first) {
  pb model = {0};
  build_as(&model, node, input_first);
  nns_model *m = NULL;
  nns_error e;
  CHECK_EQ(nns_model_load_memory(model.d, model.n, NULL, &m, &e), NNS_OK);
  pb_free(&model);
  return m;
}

/* Every node as the test wrote it, linked to the one before; node
 * `extra_at` has a second attribute (-1: none has). */
static void check_chain(const nns_model *m, int extra_at) {
  const nns__graph *g = m->graph;
  CHECK_EQ(g->n_nodes, N);
  char want[32];
  for (int i = 0; i < N && i < g->n_nodes; i++) {
    const nns__node *n = &g->nodes[i];
    snprintf(want, sizeof want, "n%d", i);
    if (strcmp(n->name, want) != 0) {
      CHECK_STR(n->name, want);
      return;
    }
    CHECK_EQ(n->index, (uint32_t)i);
    CHECK_STR(n->op_type, "Relu");
    CHECK_EQ(n->n_in, 1);
    CHECK_EQ(n->n_out, 1);
    snprintf(want, sizeof want, "t%d", i);
    CHECK_STR(n->out_names[0], want);
    /* One string, one pointer, whichever thread interned it. */
    CHECK(n->out_names[0] == nns__intern_find(&m->strings, want));
    CHECK(n->in[0] == (i ? g->nodes[i - 1].out[0] : g->inputs[0]));
    CHECK(n->out[0] && n->out[0]->producer == n);
    CHECK_EQ(n->n_attrs, i == extra_at ? 2 : 1);
    snprintf(want, sizeof want, "k%d", i);
    CHECK_STR(n->attrs[0].name, want);
    CHECK(n->attrs[0].name == nns__intern_find(&m->strings, want));
    CHECK_EQ(n->attrs[0].type, NNS__AT_INT);
    CHECK_EQ(n->attrs[0].i, i);
  }
}

static void check_list(const nns_model *m, int at);

static void test_halves_plain(void) {
  nns_model *m = load_built(plain, false);
  if (m) {
    check_chain(m, -1);
    check_list(m, -1);
    /* Strings: "" and the opset's, the graph's x, and three a node. */
    CHECK(m->strings.count >= 3 * (size_t)N + 2);
    nns_model_free(m);
  }
}

/* Node 9000, in the second half, holds a tensor (as a Constant does): the
 * second thread decodes it. */
static spec tensor_at_9000(int i) {
  return (spec){.op = "Relu", .tensor_attr = i == 9000};
}

/* The tensor at node 9000: its data in the file, or in `absent.bin`. */
static void check_table(const nns_model *m, bool external) {
  const nns__node *n = &m->graph->nodes[9000];
  CHECK_EQ(n->n_attrs, 2);
  if (n->n_attrs != 2)
    return;
  const nns__tensor *t = n->attrs[1].t;
  CHECK_STR(n->attrs[1].name, "table");
  CHECK_EQ(n->attrs[1].type, NNS__AT_TENSOR);
  CHECK(t && t->rank == 1 && t->dims[0] == 3);
  CHECK(t && t->storage == (external ? NNS__ST_EXTERNAL : NNS__ST_RAW));
  if (t && external)
    CHECK_STR(t->ext_location, "absent.bin");
}

/* The model `node` makes, loaded: the chain, and node 9000's tensor. */
static void expect_table(spec (*node)(int), bool external) {
  nns_model *m = load_built(node, false);
  if (m) {
    check_chain(m, 9000);
    check_table(m, external);
    nns_model_free(m);
  }
}

static void test_halves_tensor(void) { expect_table(tensor_at_9000, false); }

/* The tensor at node 9000 keeps its data in a file: the second thread
 * stops there (external files are the loading thread's to check), and
 * the loading thread decodes it and the rest. */
static spec external_at_9000(int i) {
  return (spec){.op = "Relu", .tensor_attr = i == 9000, .external = true};
}

static void test_halves_give_up(void) { expect_table(external_at_9000, true); }

/* Node 100, in the first half, holds a graph of 20,000 nodes: the loading
 * thread loads it while the second thread decodes its half, through the
 * shared table, which it may not grow for the graph's names (the other
 * thread probes it). */
static spec graph_at_100(int i) {
  return (spec){.op = "Relu", .graph_attr = i == 100};
}

/* The model's node list: the main graph's nodes in order, node `at`'s
 * BODY body nodes right after it (-1: none has a body). */
static void check_list(const nns_model *m, int at) {
  size_t want = (size_t)N + (at >= 0 ? BODY : 0);
  CHECK_EQ(nns_model_node_count(m), want);
  if (nns_model_node_count(m) != want)
    return;
  size_t k = 0;
  for (int i = 0; i < N; i++) {
    const nns__node *n = &m->graph->nodes[i];
    if (m->nodes[k] != n || n->list_index != k ||
        m->node_parent[k] != UINT32_MAX) {
      CHECK(m->nodes[k] == n);
      CHECK_EQ(n->list_index, (uint32_t)k);
      CHECK_EQ(m->node_parent[k], UINT32_MAX);
      return;
    }
    k++;
    if (i != at)
      continue;
    const nns__graph *body = n->attrs[1].g;
    for (int j = 0; j < BODY; j++, k++)
      if (m->nodes[k] != &body->nodes[j] ||
          m->node_parent[k] != n->list_index ||
          strcmp(m->node_parent_attr[k], "body") != 0) {
        CHECK(m->nodes[k] == &body->nodes[j]);
        CHECK_EQ(m->node_parent[k], n->list_index);
        CHECK_STR(m->node_parent_attr[k], "body");
        return;
      }
  }
  CHECK_EQ(k, want);
}

/* Node `at`'s body, loaded and linked: its first node reads the outer
 * graph's input, its last is its output. */
static void check_body(const nns_model *m, int at) {
  const nns__node *n = &m->graph->nodes[at];
  if (n->n_attrs != 2)
    return;
  const nns__graph *body = n->attrs[1].g;
  CHECK_EQ(n->attrs[1].type, NNS__AT_GRAPH);
  CHECK(body && body->n_nodes == BODY && body->parent == m->graph);
  if (body && body->n_nodes == BODY) {
    CHECK_STR(body->nodes[0].op_type, "Identity");
    CHECK(body->nodes[0].in[0] == m->graph->inputs[0]);
    CHECK_STR(body->nodes[BODY - 1].out_names[0], "b19999");
    CHECK(body->outputs[0] == body->nodes[BODY - 1].out[0]);
  }
}

/* The model `node` makes, loaded: the chain, the node list and node
 * `at`'s body. */
static void expect_body(spec (*node)(int), int at) {
  nns_model *m = load_built(node, false);
  if (m) {
    check_chain(m, at);
    check_list(m, at);
    check_body(m, at);
    nns_model_free(m);
  }
}

static void test_halves_subgraph(void) { expect_body(graph_at_100, 100); }

/* Node 9000, in the second half, holds the graph: the thread that links
 * that half stops before it, and the loading thread links it and on. */
static spec graph_at_9000(int i) {
  return (spec){.op = "Relu", .graph_attr = i == 9000};
}

static void test_halves_subgraph_late(void) {
  expect_body(graph_at_9000, 9000);
}

/* Initializers between the nodes: after node 3000 (first half: the
 * second thread is joined there, before the loading thread decodes it)
 * and after node 11000 (the second thread takes only the unbroken run of
 * nodes after it); and the graph's input before the nodes, where the
 * second thread is joined at once. */
static spec inits_between(int i) {
  return (spec){.op = "Relu", .init_after = i == 3000 || i == 11000};
}

static void test_halves_layout(void) {
  for (int input_first = 0; input_first < 2; input_first++) {
    nns_model *m = load_built(inits_between, input_first);
    if (m) {
      check_chain(m, -1);
      CHECK_EQ(m->graph->n_inits, 2);
      if (m->graph->n_inits == 2) {
        CHECK_STR(m->graph->inits[0]->name, "w3000");
        CHECK_STR(m->graph->inits[1]->name, "w11000");
      }
      nns_model_free(m);
    }
  }
}

/* Broken nodes: only at 10000 (second half), and at 2000 and 10000. The
 * error is the first in the file, as one thread reports it. */
static spec broken_10000(int i) {
  return (spec){.op = i == 10000 ? NULL : "Relu"};
}

static spec broken_2000_10000(int i) {
  return (spec){.op = i == 2000 || i == 10000 ? NULL : "Relu"};
}

/* The model `node` makes fails to load with `code`, and the message says
 * `what` of node `named` (the node the error names). */
static void expect_error(spec (*node)(int), nns_status code, const char *what,
                         const char *named) {
  pb model = {0};
  build(&model, node);
  nns_model *m = NULL;
  nns_error e;
  CHECK_EQ(nns_model_load_memory(model.d, model.n, NULL, &m, &e), code);
  CHECK(m == NULL);
  CHECK(strstr(e.message, what) != NULL);
  char quoted[64];
  snprintf(quoted, sizeof quoted, "node '%s'", named);
  CHECK(strstr(e.message, quoted) != NULL);
  CHECK_STR(e.node, named);
  nns_model_free(m);
  pb_free(&model);
}

static void test_halves_errors(void) {
  expect_error(broken_10000, NNS_E_MODEL, "has no op_type", "n10000");
  expect_error(broken_2000_10000, NNS_E_MODEL, "has no op_type", "n2000");
}

/* Inputs nothing defines: only at 10000 (linked on the second thread),
 * at 2000 and 10000, and at 11000 after a graph at 9000 (where that
 * thread stops, so the loading thread finds it). The error is the first
 * in the file. */
static spec dangling_10000(int i) {
  return (spec){.op = "Relu", .dangling = i == 10000};
}

static spec dangling_2000_10000(int i) {
  return (spec){.op = "Relu", .dangling = i == 2000 || i == 10000};
}

static spec graph_9000_dangling_11000(int i) {
  return (spec){.op = "Relu", .graph_attr = i == 9000, .dangling = i == 11000};
}

static void test_halves_dangling(void) {
  const char *what = "input 0 'nowhere' is not produced";
  expect_error(dangling_10000, NNS_E_DANGLING, what, "n10000");
  expect_error(dangling_2000_10000, NNS_E_DANGLING, what, "n2000");
  expect_error(graph_9000_dangling_11000, NNS_E_DANGLING, what, "n11000");
}

int main(void) {
  RUN(test_halves_plain);
  RUN(test_halves_tensor);
  RUN(test_halves_give_up);
  RUN(test_halves_subgraph);
  RUN(test_halves_layout);
  RUN(test_halves_errors);
  RUN(test_halves_subgraph_late);
  RUN(test_halves_dangling);
  return check_finish();
}
