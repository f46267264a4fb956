"""torchscan 0.2's compare_reports: two reports of the same schema, layer
calls matched by (path, call_index), deltas only between complete results."""
import copy

__all__ = ["ReportDiff", "compare_reports"]

ReportDiff = dict  # {"schema_version", "totals", "layers": {added, removed, changed}}

_SCHEMA = 1


def _status(before, after):
    if before is None or after is None:
        return "unavailable"
    states = {before.get("status"), after.get("status")}
    for s in ("unavailable", "partial"):
        if s in states:
            return s
    return "complete"


def _metric_diff(name, before, after):
    if before is not None and after is not None:
        for field in ("unit", "scope", "method"):
            if before.get(field) != after.get(field):
                raise ValueError(f"metric {name!r} has incompatible {field}: "
                                 f"{before.get(field)!r} != "
                                 f"{after.get(field)!r}")
    status = _status(before, after)
    delta = after["value"] - before["value"] if status == "complete" else None
    return {"status": status, "delta": delta,
            "before": copy.deepcopy(before), "after": copy.deepcopy(after)}


def _metrics_diff(before, after, changed_only):
    out = {}
    for name in sorted(set(before) | set(after)):
        b, a = before.get(name), after.get(name)
        if changed_only and b == a:
            continue
        out[name] = _metric_diff(name, b, a)
    return out


def _calls(report, side):
    calls = {}
    for layer in report.get("layers", []):
        key = (layer["path"], layer["call_index"])
        if key in calls:
            raise ValueError(f"{side} contains duplicate layer call {key!r}")
        calls[key] = layer
    return calls


def _snapshot(layer):
    return {"path": layer["path"], "call_index": layer["call_index"],
            "metrics": copy.deepcopy(layer.get("metrics", {}))}


def compare_reports(before, after):
    """The difference of two analysis reports (ReportDiff): every total's
    diff, and the layer calls added, removed, or changed (only the metrics
    that changed). Neither report is modified.

    Raises ValueError when the schema versions differ or are unknown, a
    metric's unit, scope or method differ, or a report repeats a layer
    call."""
    vb, va = before["schema_version"], after["schema_version"]
    if vb != va:
        raise ValueError(f"schema versions differ: {vb} != {va}")
    if vb != _SCHEMA:
        raise ValueError(f"unsupported schema version: {vb}")
    b, a = _calls(before, "before"), _calls(after, "after")
    changed = []
    for key in sorted(b.keys() & a.keys()):
        diff = _metrics_diff(b[key].get("metrics", {}),
                             a[key].get("metrics", {}), changed_only=True)
        if diff:
            changed.append({"path": key[0], "call_index": key[1],
                            "metrics": diff})
    return {
        "schema_version": vb,
        "totals": _metrics_diff(before.get("totals", {}),
                                after.get("totals", {}), changed_only=False),
        "layers": {
            "added": [_snapshot(a[k]) for k in sorted(a.keys() - b.keys())],
            "removed": [_snapshot(b[k]) for k in sorted(b.keys() - a.keys())],
            "changed": changed,
        },
    }
