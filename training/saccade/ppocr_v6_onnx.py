"""Read PP-OCRv6 small's recogniser ONNX graph (RapidOCR 3.10's `PP-OCRv6_rec_small.onnx`) into the config and
state dict of LineEncoderV6 (line_encoder_v6.py), and its CTC dictionary from the model's metadata.

The graph (Paddle2ONNX) holds its weights as initializers and threads values through Identity nodes, which are
read through here. Walking the nodes in order, each layer is recognised by its shape in the graph: a
convolution (its bias the following Add of a constant; a following batch norm folded in), squeeze-excite (a
ReduceMean over the image, then two 1x1 convolutions), a residual (an Add of two computed values), a layer norm
(Mul and Add by per-channel constants after the decomposed mean and variance), a linear (MatMul by a constant,
then Add). Every shape is checked on the way; the parity test compares the result with onnxruntime.
"""
import numpy as np
import onnx
import torch
from onnx import numpy_helper

from .ppocr_onnx import run_with_outputs


class _Graph:
    def __init__(self, path):
        model = onnx.load(path)
        self.metadata = {p.key: p.value for p in model.metadata_props}
        self.consts = {t.name: numpy_helper.to_array(t) for t in model.graph.initializer}
        alias = {n.output[0]: n.input[0] for n in model.graph.node if n.op_type == "Identity"}

        def resolve(name):
            while name in alias:
                name = alias[name]
            return name

        self.nodes = []
        for n in model.graph.node:
            if n.op_type == "Identity":
                continue
            n.input[:] = [resolve(i) for i in n.input]
            self.nodes.append(n)
        self.consumers = {}
        for n in self.nodes:
            for i in n.input:
                self.consumers.setdefault(i, []).append(n)
        self.producer = {o: n for n in self.nodes for o in n.output}

    def attrs(self, node):
        return {a.name: onnx.helper.get_attribute_value(a) for a in node.attribute}

    def users(self, node):
        return self.consumers.get(node.output[0], [])

    def const(self, node):
        values = [self.consts[i] for i in node.input if i in self.consts]
        return values[0] if values else None


def _conv(g, n):
    """A Conv node -> its folded weight, bias, kernel, stride, group, and the node that ends it."""
    a = g.attrs(n)
    w = g.consts[n.input[1]]
    b = np.zeros(w.shape[0], np.float32)
    end = n
    users = g.users(n)
    if len(users) == 1 and users[0].op_type == "Add" and g.const(users[0]) is not None:
        b = g.const(users[0]).reshape(-1)
        end = users[0]
    elif len(users) == 1 and users[0].op_type == "BatchNormalization":
        bn = users[0]
        gamma, beta, mean, var = (g.consts[i] for i in bn.input[1:5])
        scale = gamma / np.sqrt(var + g.attrs(bn)["epsilon"])
        w, b = w * scale[:, None, None, None], (b - mean) * scale + beta
        end = bn
    pads = a.get("pads", [0, 0, 0, 0])
    if a.get("auto_pad", b"NOTSET") == b"SAME_UPPER":
        assert list(a["kernel_shape"]) == [2, 2] and list(a["strides"]) == [1, 1], "same padding only for the stem's 2x2"
    else:
        kh, kw = a["kernel_shape"]
        assert list(pads) == [kh // 2, kw // 2, kh // 2, kw // 2], f"unexpected padding {pads}"
    return {"w": w.astype(np.float32), "b": b.astype(np.float32), "kernel": list(a["kernel_shape"]),
            "stride": list(a["strides"]), "group": a["group"], "node": n, "end": end}


def _residual_after(g, conv):
    """Whether the conv's output (after its bias) is added to another computed value."""
    return any(u.op_type == "Add" and all(i not in g.consts for i in u.input) for u in g.users(conv["end"]))


def read_graph(path):
    """-> (config, state dict of float32 tensors, CTC charset with blank first and space last)."""
    g = _Graph(path)
    convs, norms, linears = [], [], []
    pooled_at, pool = None, None
    for n in g.nodes:
        if n.op_type == "Conv":
            convs.append(_conv(g, n))
        elif n.op_type == "AveragePool":
            pool, pooled_at = g.attrs(n)["kernel_shape"], len(convs)
        elif n.op_type == "MatMul" and g.const(n) is not None:
            bias = g.const(g.users(n)[0])
            linears.append((g.const(n).T, bias))
        elif n.op_type == "Mul":
            c = g.const(n)
            users = g.users(n)
            if c is not None and c.ndim == 1 and c.size > 1 and len(users) == 1 and users[0].op_type == "Add":
                norms.append((c, g.const(users[0])))
    state, config = {}, {}

    stem = convs[:5]
    for name, c in zip(("conv1", "conv2a", "conv2b", "conv3", "conv4"), stem):
        state[f"stem.{name}.weight"], state[f"stem.{name}.bias"] = c["w"], c["b"]
    assert [c["kernel"] for c in stem] == [[3, 3], [2, 2], [2, 2], [3, 3], [1, 1]], "stem layout"
    config["stem"] = {"mid": int(stem[0]["w"].shape[0]), "out": int(stem[4]["w"].shape[0])}

    backbone = convs[5:pooled_at]
    blocks, i = [], 0
    while i < len(backbone):
        dw = backbone[i]
        assert dw["group"] > 1 and dw["group"] == dw["w"].shape[0], "a block starts with its depthwise convolution"
        se = g.producer[backbone[i + 1]["node"].input[0]].op_type == "ReduceMean"
        fc1, fc2 = backbone[i + 3 if se else i + 1], backbone[i + 4 if se else i + 2]
        j = len(blocks)
        parts = [("dw", dw), ("fc1", fc1), ("fc2", fc2)] + ([("se.reduce", backbone[i + 1]), ("se.expand", backbone[i + 2])] if se else [])
        for name, c in parts:
            state[f"blocks.{j}.{name}.weight"], state[f"blocks.{j}.{name}.bias"] = c["w"], c["b"]
        residual = _residual_after(g, fc2)
        assert residual == (fc2["w"].shape[0] == dw["w"].shape[0]), "a residual exactly where the channels stay"
        blocks.append({"in": int(dw["w"].shape[0]), "hidden": int(fc1["w"].shape[0]), "out": int(fc2["w"].shape[0]),
                       "kernel": int(dw["kernel"][0]), "stride": [int(s) for s in dw["stride"]],
                       "se": int(backbone[i + 1]["w"].shape[0]) if se else 0, "residual": residual})
        i += 5 if se else 3
    config["blocks"] = blocks

    shortcut, neck_in, neck_dw = convs[pooled_at:]
    for name, c in (("neck_shortcut", shortcut), ("neck_in", neck_in), ("neck_dw", neck_dw)):
        state[f"{name}.weight"], state[f"{name}.bias"] = c["w"], c["b"]
    depth = (len(linears) - 1) // 4
    for d in range(depth):
        for name, (w, b) in zip(("attn.qkv", "attn.proj", "fc1", "fc2"), linears[4 * d:4 * d + 4]):
            state[f"mixer.{d}.{name}.weight"], state[f"mixer.{d}.{name}.bias"] = w, b
        for name, (w, b) in zip(("norm1", "norm2"), norms[2 * d:2 * d + 2]):
            state[f"mixer.{d}.{name}.weight"], state[f"mixer.{d}.{name}.bias"] = w, b
    state["neck_norm.weight"], state["neck_norm.bias"] = norms[2 * depth]
    state["ctc.weight"], state["ctc.bias"] = linears[-1]
    assert len(norms) == 2 * depth + 1, f"{len(norms)} layer norms for {depth} attention blocks"
    dim = int(neck_in["w"].shape[0])
    heads = next(g.consts[n.input[1]] for n in g.nodes if n.op_type == "Reshape" and n.input[1] in g.consts
                 and g.consts[n.input[1]].size == 5)[3]
    config["pool"] = [int(p) for p in pool]
    config["neck"] = {"dim": dim, "kernel": int(neck_dw["kernel"][1]), "depth": depth, "heads": int(heads),
                      "mlp_ratio": int(linears[2][0].shape[0] // dim)}
    config["num_classes"] = int(linears[-1][0].shape[0])
    charset = ["<blank>"] + g.metadata["character"].split("\n") + [" "]
    assert len(charset) == config["num_classes"], f"{len(charset)} characters for {config['num_classes']} classes"
    return config, {k: torch.from_numpy(np.array(v, dtype=np.float32)) for k, v in state.items()}, charset


def reference_outputs(path, pixels):
    """onnxruntime's own outputs of the original graph for pixels [B, 3, 48, W] (numpy): backbone [B, T, 384],
    neck [B, T, 120] and CTC probabilities [B, T, K]."""
    g = _Graph(path)
    pool = next(n for n in g.nodes if n.op_type == "AveragePool").output[0]
    head = [n for n in g.nodes if n.op_type == "MatMul"][-1]
    probs, backbone, neck = run_with_outputs(path, (pool, head.input[0]), pixels)
    return {"backbone": backbone[:, :, 0].transpose(0, 2, 1), "neck": neck, "probs": probs}
