"""thop's public API on nnscan: `from nnscan.compat import thop`;
`thop.profile(model, inputs=(x,))` -> (macs, params) and
`thop.clever_format` (and thop's older `profile_origin`), by thop's
conventions (see _profile.py and
docs/compat.md)."""
from . import utils
from ._profile import profile, profile_origin
from .utils import clever_format

__all__ = ["clever_format", "profile", "profile_origin", "utils"]
