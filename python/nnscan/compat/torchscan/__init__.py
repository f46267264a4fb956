"""torchscan 0.2's public API on nnscan: `import nnscan.compat.torchscan
as torchscan`.

crawl_module / summary (crawler.py), measure_flops (flops.py),
compare_reports (compare.py), and the report contract (report.py):
metric_result, IncompleteAnalysisError and the report types. torchscan's
internal `modules`, `process` and `utils` helpers are not part of it.
"""
from . import compare, crawler, flops, report
from .compare import ReportDiff, compare_reports
from .crawler import crawl_module, summary
from .flops import FlopReport, measure_flops
from .report import (AnalysisReport, Diagnostic, IncompleteAnalysisError,
                     LayerReport, MetricResult, metric_result)

__version__ = "0.2.0"

__all__ = ["AnalysisReport", "Diagnostic", "FlopReport",
           "IncompleteAnalysisError", "LayerReport", "MetricResult",
           "ReportDiff", "compare", "compare_reports", "crawl_module",
           "crawler", "flops", "measure_flops", "metric_result", "report",
           "summary"]
