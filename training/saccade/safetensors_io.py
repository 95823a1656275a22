"""Minimal safetensors reader/writer (the format: u64 LE header size, JSON header, raw LE tensor data).

Written here because the training machine has no safetensors package; the files are standard.
"""
import json
import struct

import numpy as np
import torch

_DTYPES = {torch.float16: "F16", torch.bfloat16: "BF16", torch.float32: "F32", torch.int64: "I64"}
_NUMPY = {"F16": np.float16, "F32": np.float32, "I64": np.int64}


def save_file(tensors, path, metadata=None):
    header, chunks, offset = {}, [], 0
    if metadata:
        header["__metadata__"] = metadata
    for name in sorted(tensors):
        t = tensors[name].detach().contiguous().cpu()
        if t.dtype == torch.bfloat16:
            data = t.view(torch.int16).numpy().astype("<i2").tobytes()
        else:
            data = t.numpy().astype(t.numpy().dtype.newbyteorder("<")).tobytes()
        header[name] = {"dtype": _DTYPES[t.dtype], "shape": list(t.shape),
                        "data_offsets": [offset, offset + len(data)]}
        chunks.append(data)
        offset += len(data)
    raw = json.dumps(header, separators=(",", ":")).encode()
    raw += b" " * (-len(raw) % 8)  # the data section starts 8-byte aligned
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(raw)))
        f.write(raw)
        for c in chunks:
            f.write(c)


def load_file(path):
    with open(path, "rb") as f:
        (n,) = struct.unpack("<Q", f.read(8))
        header = json.loads(f.read(n))
        data = f.read()
    out = {}
    for name, info in header.items():
        if name == "__metadata__":
            continue
        start, end = info["data_offsets"]
        buf = data[start:end]
        if info["dtype"] == "BF16":
            t = torch.from_numpy(np.frombuffer(buf, "<i2").copy()).view(torch.bfloat16)
        else:
            t = torch.from_numpy(np.frombuffer(buf, np.dtype(_NUMPY[info["dtype"]]).newbyteorder("<")).copy())
        out[name] = t.reshape(info["shape"])
    return out
