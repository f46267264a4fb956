"""torchscan 0.2's report contract: metric results with a status,
diagnostics with stable codes, and the error strict analysis raises.

A metric is `complete` (value known), `partial` (only a lower bound,
`known_value`, is known: some work was not counted) or `unavailable`.
"""
from typing import Any, Dict, List, Optional, TypedDict

__all__ = ["AnalysisReport", "Diagnostic", "IncompleteAnalysisError",
           "LayerReport", "MetricResult", "metric_result"]

STATUSES = ("complete", "partial", "unavailable")


class MetricResult(TypedDict):
    """One measurement: status, value, known_value, unit, scope, method."""
    status: str
    value: Optional[float]
    known_value: Optional[float]
    unit: str
    scope: str
    method: str


class Diagnostic(TypedDict, total=False):
    """Why a measurement is incomplete: code, severity, metric, message,
    and path or operator where one applies."""
    code: str
    severity: str
    metric: str
    message: str
    path: str
    operator: str


class LayerReport(TypedDict):
    """One module call: identity (path, call_index), display fields,
    input/output metadata, parameters, buffers and metrics."""
    path: str
    call_index: int
    name: str
    depth: int
    type: str
    input: Dict[str, Any]
    output: Dict[str, Any]
    parameters: Dict[str, Any]
    buffers: Dict[str, Any]
    metrics: Dict[str, MetricResult]


class AnalysisReport(TypedDict):
    """The whole analysis, JSON-serializable."""
    schema_version: int
    context: Dict[str, Any]
    inputs: Dict[str, Any]
    layers: List[LayerReport]
    operator_flops: Dict[str, Any]
    totals: Dict[str, MetricResult]
    diagnostics: List[Diagnostic]


def metric_result(*, status, unit, scope, method, value=None,
                  known_value=None):
    """A MetricResult whose fields agree with its status: a complete one
    needs `value` (and its known_value is that value), a partial one needs
    the lower bound `known_value` (its value is None), an unavailable one
    has neither."""
    if status not in STATUSES:
        raise ValueError("status must be 'complete', 'partial', or "
                         f"'unavailable', not {status!r}")
    if status == "complete":
        if value is None:
            raise ValueError("A complete metric requires a value.")
        known_value = value
    elif status == "partial":
        if known_value is None:
            raise ValueError("A partial metric requires a known_value "
                             "lower bound.")
        value = None
    else:
        value = known_value = None
    return {"status": status, "value": value, "known_value": known_value,
            "unit": unit, "scope": scope, "method": method}


class IncompleteAnalysisError(RuntimeError):
    """strict=True met a metric that is not complete; `.report` holds the
    whole report."""

    def __init__(self, report):
        self.report = report
        names = {k for k, r in report.get("totals", {}).items()
                 if r.get("status") != "complete"}
        names.update(d.get("metric", "") for d in report.get("diagnostics", []))
        names.discard("")
        super().__init__("Analysis is incomplete for: "
                         + (", ".join(sorted(names)) or "unknown metrics")
                         + ".")
