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


def annotate(model, graph):
    """Fills graph.experts (experts module path -> (k, E, tokens)) from the
    graph's TopK nodes and the model's modules."""
    modules = None  # made at the first TopK: most models have none
    for op, _, ins, _, attrs, domain, scope in graph.nodes:
        if op != "TopK" or domain or len(ins) < 2:
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
                # the last top-k over E wins (DeepSeek picks groups first)
                graph.experts[_join(path, hits[0])] = (k, n, rows)
                break
            if not path:
                break
            path = path.rpartition(".")[0]
