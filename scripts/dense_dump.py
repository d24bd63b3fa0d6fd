"""The dense dump format (../shared/hw/h100-sm90/README.md, `dense/`; `ptxfuzz sweep --dump`
writes it too), read with numpy: shared by scripts/approx-unit-fit, approx-unit-probe and
approx-tanh-fit. An xz stream; a JSON header line (`start`, `deltas`, ...); the first output
as a little-endian int64; then the differences between consecutive outputs."""
import json
import lzma

import numpy as np


def read(path):
    """(input bits, output bits) of one dense file, as int64 arrays."""
    raw = lzma.open(path).read()
    nl = raw.index(b"\n")
    h = json.loads(raw[:nl])
    body = raw[nl + 1:]
    dt = np.dtype({"int8": "<i1", "int16": "<i2", "int32": "<i4", "int64": "<i8"}[h["deltas"]])
    n = (len(body) - 8) // dt.itemsize
    first = np.frombuffer(body[:8], "<i8")[0]
    out = np.concatenate([[first], first + np.cumsum(np.frombuffer(body[8:8 + n * dt.itemsize], dt).astype(np.int64))])
    return h["start"] + np.arange(len(out), dtype=np.int64), out
