"""thop's clever_format: the library's (nns_format_count), one place."""
from ...report import clever_format

__all__ = ["clever_format"]
