#!/usr/bin/python3
"""Writes the seeds of fuzz_layers (layout: tests/fuzz/fuzz_layers.c):
thoplw's rows of a small CNN as nnscan.compat.thoplw hands them over, a
row with a control character and a comma in its name, and the extremes of
the counts. Run from this folder; the files are committed."""
import struct


def text(s):
    b = s.encode()
    return bytes([len(b)]) + b


def dims(d):
    if d is None:
        return struct.pack(">b", -1)
    return struct.pack(">b", len(d)) + b"".join(struct.pack(">q", x) for x in d)


def row(name, cls, din, dout, macs, params):
    return (text(name) + text(cls) + dims(din) + dims(dout)
            + struct.pack(">q", macs) + struct.pack(">q", params))


def seed(path, opt, rows):
    with open(path, "wb") as f:
        f.write(bytes([opt]) + b"".join(rows))


seed("thoplw_cnn", 1, [
    row("conv1", "Conv2d", (1, 3, 32, 32), (1, 8, 32, 32), 221184, 216),
    row("relu", "ReLU", (1, 8, 32, 32), (1, 8, 32, 32), 0, 0),
    row("fc", "Linear", (1, 8192), (1, 10), 81920, 81930),
    row("", "Net", (1, 3, 32, 32), (1, 10), 303104, 82146)])
seed("odd_names", 0, [
    row("a,\"b\"\x01\x7f", "C\tD", None, (1, 4), 1, 2),
    row("", "Net", (1, 4), None, 1, 2)])
seed("extremes", 0, [
    row("big", "X", (1,), (1,), 2**63 - 1, -2**63),
    row("neg", "X", (1, 0), (1, -1), -1, 0),
    row("", "Net", (1,), (1,), 2**63 - 1, 2**63 - 1)])
