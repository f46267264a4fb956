"""Mixture-of-experts layers in a recording: which module holds the
experts, and k of E, for the library's params_active (docs/metrics.md,
"Experts").

k and E come from what ran: the router's top-k (a TopK node of the graph:
its k, and the size of the axis it picks from, E), and the module that
holds E experts near the router, either a ModuleList of E modules (one
module per expert) or a module whose own parameters all have E as their
leading dim, one of them at least 3-D (transformers' grouped experts,
`gate_up_proj` (E, 2I, H)); the router's own (E, H) weight is 2-D, so it is
never taken for the experts. Which tokens go to which expert is data and
is not needed: the library counts the experts' parameters at k/E. The rows
the top-k ran over are the tokens one call routes (what
weight_bytes_read's min(E, k * tokens) needs).

A TopK and E modules near it are not enough: a dense classifier with E
heads in a ModuleList that returns its top-k classes has both. They are
experts only when the router's indices select among them, read from the
graph's data flow forward of the TopK's indices (issue 47, item 2):

- a ModuleList's members are called per routed group: every member that
  ran takes in a value the indices reach (its tokens, gathered by the
  routing) that no other member takes in. Heads all fed the same input,
  or run before the top-k, are not experts.
- stacked experts (E-leading parameters) meet the routing: a node reads
  their weights (or a slice or view of them) together with a value the
  indices reach (the gather by expert id, each expert's or group's
  tokens), or a node of the experts module itself reads one (transformers
  hands the experts module the router's indices).
"""
import torch

# how far above the router's module the experts are looked for: the router
# is the MoE block itself or its child (`mlp.gate`), the experts a sibling
_LEVELS = 2


def _experts_in(module, n):
    """Dotted paths (relative to module) of the modules below it that hold
    n experts, outermost first."""
    found = []
    for path, m in module.named_modules():
        if isinstance(m, torch.nn.ModuleList):
            if len(m) == n and n > 1:
                found.append(path)
            continue
        own = list(m.parameters(recurse=False))
        if own and all(p.dim() >= 1 and p.shape[0] == n for p in own) and \
                any(p.dim() >= 3 for p in own):
            found.append(path)
    return found


def _join(a, b):
    return f"{a}.{b}" if a and b else a or b


def _under(name, path):
    return not path or name == path or name.startswith(path + ".")


def _block(nodes, at, path):
    """(first, end): the run of nodes around nodes[at] that the module at
    `path` ran (a module's call is contiguous in execution order): where
    its routing and its experts are, so that a model's every MoE layer is
    not read over the whole graph."""
    first, end = at, at + 1
    while first > 0 and _under(nodes[first - 1].scope, path):
        first -= 1
    while end < len(nodes) and _under(nodes[end].scope, path):
        end += 1
    return first, end


# The op types whose nodes annotate reads (every input: TopK's k), for
# tape.py (_hides)
READS = frozenset(("TopK",))


def _reached(nodes, start):
    """Values the data flow carries forward from `start` (nodes are in
    execution order, so one pass from the TopK's own node is enough)."""
    reach = {start}
    for node in nodes:
        if any(i in reach for i in node.inputs):
            reach.update(o for o in node.outputs if o)
    return reach


def _members_routed(nodes, path, reach):
    """Whether a ModuleList's members are called per routed group: each
    member that ran takes in a reached value no other member takes in."""
    made, enters = {}, {}
    prefix = path + "." if path else ""
    for node in nodes:
        if not node.scope.startswith(prefix):
            continue
        member = node.scope[len(prefix):].split(".", 1)[0]
        enters.setdefault(member, set()).update(
            i for i in node.inputs if i and made.get(i) != member)
        made.update((o, member) for o in node.outputs if o)
    if not enters:
        return False
    for member, values in enters.items():
        others = set().union(*(v for m, v in enters.items() if m != member))
        if not (values & reach) - others:
            return False
    return True


def _stacked_routed(nodes, inits, path, reach):
    """Whether stacked experts meet the routing: a node reads their weights
    (through views or constant slices) and a reached value, or a node of
    the experts module reads a reached value."""
    weights = {n for n in inits if _under(n, path)}
    for node in nodes:
        ins = [i for i in node.inputs if i]
        # (the model itself holding them says nothing: all runs inside it)
        if path and _under(node.scope, path) and any(i in reach for i in ins):
            return True
        if not any(i in weights for i in ins):
            continue
        if any(i in reach for i in ins if i not in weights):
            return True
        if all(i in weights or i in inits for i in ins):
            weights.update(o for o in node.outputs if o)
    return False


def _routed(nodes, inits, modules, path, reach):
    if isinstance(modules.get(path), torch.nn.ModuleList):
        return _members_routed(nodes, path, reach)
    return _stacked_routed(nodes, inits, path, reach)


def annotate(model, graph):
    """Fills graph.experts (experts module path -> (k, E, tokens)) from the
    graph's TopK nodes whose indices route among E experts of the model's
    modules."""
    modules = None  # made at the first TopK: most models have none
    for at, (op, _, ins, outs, attrs, domain, scope) in \
            enumerate(graph.nodes):
        if op != "TopK" or domain or len(ins) < 2 or len(outs) < 2 or \
                not outs[1]:
            continue
        if modules is None:
            modules = dict(model.named_modules())
        k_init = graph.inits.get(ins[1])
        dims = graph.values.get(ins[0], (None, ()))[1]
        if not k_init or not k_init[2] or not dims:
            continue
        k = int.from_bytes(bytes(k_init[2])[:8], "little", signed=True)
        n = int(dims[int(attrs.get("axis", -1)) % len(dims)])
        if not 0 < k < n:
            continue  # a sort, or a top-k of everything
        rows = 1
        for d in dims:
            rows *= int(d)
        rows //= n
        path = scope
        for _ in range(_LEVELS + 1):
            m = modules.get(path)
            hits = _experts_in(m, n) if m is not None else []
            if hits:
                first, end = _block(graph.nodes, at, path)
                block = graph.nodes[first:end]
                reach = _reached(graph.nodes[at + 1:end], outs[1])
                hits = [h for h in hits if _routed(
                    block, graph.inits, modules, _join(path, h), reach)]
            if hits:
                # the last top-k over E wins (DeepSeek picks groups first)
                graph.experts[_join(path, hits[0])] = (k, n, rows)
                break
            if not path:
                break
            path = path.rpartition(".")[0]
