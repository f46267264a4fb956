"""Drop-in modules for the tools nnscan replaces, one per peer.

`nnscan.compat.torchscan` (torchscan 0.2's API), `nnscan.compat.thop`
(thop's profile / clever_format) and `nnscan.compat.thoplw` (thoplw's
profile / clever_format): switching is one import line. Each keeps its
peer's call signatures, return shapes and counting conventions (which
modules count, BatchNorm MACs, what "params" holds); the counts themselves
come from the library's analysis of the recorded graph, and where a peer's
convention gives another number than nnscan's own rule, the convention is
written once, in that peer's module, and docs/compat.md says what native
nnscan reports instead and why.
"""
