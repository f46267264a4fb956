"""thop's public API on nnscan: `from nnscan.compat import thop`;
`thop.profile(model, inputs=(x,))` -> (macs, params) and
`thop.clever_format`, by thop's conventions (see _profile.py and
docs/compat.md)."""
from . import utils
from ._profile import profile
from .utils import clever_format

__all__ = ["clever_format", "profile", "utils"]
