"""torchscan 0.2's printed table of a report: Layer, Type, Output Shape,
Param #, Trainable (and the receptive-field columns), then the totals.
Layout only: every number is the report's."""
import copy

_HEADERS = ("Layer", "Type", "Output Shape", "Param #", "Trainable",
            "Receptive field", "Effective stride", "Effective padding")
_MAX_WIDTH = (27, 20, 25, 15, 9, 15, 16, 17)
_MARGIN = 4


def layer_name(name, depth):
    if depth == 0:
        return name
    if depth == 1:
        return "├─" + name
    return "|    " * (depth - 1) + "└─" + name


def shorten(text, width, mode="end", mark="[...]"):
    """`text` cut to `width` characters, the cut marked at the end or, in
    "mid" mode, before its last dotted part."""
    if len(text) <= width or mode is None:
        return text
    if mode == "end":
        return text[:width - len(mark)] + mark
    if mode == "mid":
        tail = mark + "." + text.rpartition(".")[2]
        return text[:width - len(tail)] + tail
    raise ValueError(f"wrap mode must be 'mid' or 'end', not {mode!r}")


def shape_text(meta):
    kind = meta.get("kind")
    if kind == "tensor":
        return str(tuple(meta["shape"]))
    if kind in ("tuple", "list"):
        inner = ", ".join(shape_text(m) for m in meta["items"])
        return f"({inner})" if kind == "tuple" else f"[{inner}]"
    if kind == "mapping":
        return "{" + ", ".join(shape_text(m["value"])
                               for m in meta["items"]) + "}"
    return str(kind)


def _known(result):
    if result is None:
        return None
    return result["value"] if result["status"] == "complete" \
        else result["known_value"]


def _cells(layer, widths, wrap_mode):
    p, b = layer["parameters"], layer["buffers"]
    held = int(p["trainable"]) + int(p["frozen"])
    limit = widths[0] + 3 if widths else 100
    cells = [shorten(layer_name(layer["name"], layer["depth"]), limit,
                     wrap_mode),
             layer["type"],
             shorten(shape_text(layer["output"]),
                     widths[2] if widths else 100, "end"),
             f"{held + int(b['elements']):,}",
             "-" if held == 0 else str(int(p["trainable"]) > 0)]
    for name in ("receptive_field", "effective_stride", "effective_padding"):
        v = _known(layer["metrics"].get(name))
        cells.append("?" if v is None else f"{v:.0f}")
    return cells


def _scaled(value):
    for scale, prefix in ((1e12, "T"), (1e9, "G"), (1e6, "M"), (1e3, "k")):
        if value // scale > 0:
            return value / scale, prefix
    return value, ""


def _total_line(label, result):
    v = _known(result)
    if v is None:
        return f"{label}: unavailable"
    x, prefix = _scaled(float(v))
    known = "" if result["status"] == "complete" else "known "
    return f"{label}: {known}{x:.2f} {prefix}{result['unit']}"


def format_report(report, wrap_mode="mid", receptive_field=False,
                  effective_rf_stats=False):
    ncols = 8 if receptive_field and effective_rf_stats else \
        6 if receptive_field else 5
    widths = [len(h) for h in _HEADERS]
    for layer in report["layers"]:
        widths = [max(w, len(c)) for w, c in
                  zip(widths, _cells(layer, None, wrap_mode))]
    widths = [min(w, m) for w, m in zip(widths, _MAX_WIDTH)][:ncols]
    gap = " " * _MARGIN
    total = sum(widths) + _MARGIN * (ncols - 1)

    def row(cells):
        return gap.join(f"{c:<{w}.{w}}" for c, w in zip(cells, widths))
    t = report["totals"]

    def value(name):
        return int(_known(t.get(name)) or 0)
    lines = ["_" * total, row(_HEADERS), "=" * total]
    lines += [row(_cells(layer, widths, wrap_mode))
              for layer in report["layers"]]
    size = (value("parameter_bytes") + value("buffer_bytes")) / 1024 ** 2
    lines += ["=" * total,
              f"Trainable params: {value('trainable_parameters'):,}",
              f"Non-trainable params: {value('frozen_parameters'):,}",
              f"Total params: {value('parameters'):,}",
              "-" * total,
              f"Model size (params + buffers): {size:.2f} Mb",
              "-" * total,
              _total_line("Module-formula forward FLOPs", t["module_flops"]),
              _total_line("Multiply-Accumulations", t["macs"]),
              _total_line("Direct memory accesses", t["dmas"])]
    if "operator_flops" in t:
        lines.append(_total_line("Operator forward FLOPs",
                                 t["operator_flops"]))
    if report["diagnostics"]:
        lines.append(f"Diagnostics: {len(report['diagnostics'])} "
                     "(inspect report['diagnostics'])")
    lines.append("_" * total)
    return "\n".join(lines)


def depth_view(report, max_depth):
    """The report with the layers down to `max_depth` only; torchscan's
    ValueError for a negative depth or one no layer has."""
    if max_depth < 0:
        raise ValueError("max_depth must be non-negative.")
    if report["layers"] and not any(layer["depth"] == max_depth
                                    for layer in report["layers"]):
        raise ValueError("The `max_depth` argument cannot be higher than "
                         "module depth.")
    view = copy.deepcopy(report)
    view["layers"] = [layer for layer in view["layers"]
                      if layer["depth"] <= max_depth]
    return view
