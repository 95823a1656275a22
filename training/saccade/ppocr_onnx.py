"""Read PP-OCRv4's recogniser ONNX graph into the line encoder's config and state dict (line_encoder.py).

The graph (Paddle2ONNX, opset 9) holds every weight as a Constant node. Walking it in order, each layer is
recognised by its shape in the graph: a convolution (with a following batch norm folded into it), a learnable
affine (Mul by a 1-element constant, then Add of one), a layer norm (the decomposed mean/variance, then Mul
and Add by per-channel constants), a linear (MatMul by a constant, then Add). Their order is the model's,
so they are handed to the reference's modules in that order, and every shape is checked on the way.
"""
import numpy as np
import onnx
import torch
from onnx import numpy_helper


class _Graph:
    def __init__(self, path):
        model = onnx.load(path)
        self.nodes = [n for n in model.graph.node if n.op_type != "Constant"]
        self.consts = {}
        for n in model.graph.node:
            if n.op_type == "Constant":
                value = next(a for a in n.attribute if a.name == "value")
                self.consts[n.output[0]] = numpy_helper.to_array(value.t)
        self.producer = {o: n for n in self.nodes for o in n.output}
        self.consumers = {}
        for n in self.nodes:
            for i in n.input:
                self.consumers.setdefault(i, []).append(n)

    def attrs(self, node):
        return {a.name: onnx.helper.get_attribute_value(a) for a in node.attribute}

    def const(self, node):
        """The node's one constant input (None when it has none)."""
        values = [self.consts[i] for i in node.input if i in self.consts]
        return values[0] if values else None

    def next_op(self, node):
        users = self.consumers.get(node.output[0], [])
        return users[0] if len(users) == 1 else None


def _fold_bn(graph, conv, weight, bias):
    bn = graph.next_op(conv)
    if bn is None or bn.op_type != "BatchNormalization":
        return weight, bias
    gamma, beta, mean, var = (graph.consts[i] for i in bn.input[1:5])
    scale = gamma / np.sqrt(var + graph.attrs(bn)["epsilon"])
    bias = (bias if bias is not None else 0.0) - mean
    return weight * scale[:, None, None, None], bias * scale + beta


def read_graph(path):
    """-> (config, state dict of float32 tensors) for LineEncoder."""
    g = _Graph(path)
    convs, affines, norms, linears, heads, eps = [], [], [], [], [], []
    pool = None
    for n in g.nodes:
        op = n.op_type
        if op == "Conv":
            a = g.attrs(n)
            w = g.consts[n.input[1]]
            b = g.consts[n.input[2]] if len(n.input) > 2 else None
            w, b = _fold_bn(g, n, w, b)
            source = g.producer.get(n.input[0])
            convs.append({"w": w, "b": np.zeros(w.shape[0], np.float32) if b is None else b,
                          "kernel": a["kernel_shape"], "stride": a["strides"], "group": a["group"],
                          "after": source.op_type if source is not None else "input", "pooled": pool is not None})
        elif op == "AveragePool":
            pool = g.attrs(n)["kernel_shape"]
        elif op == "Mul":
            c, nxt = g.const(n), g.next_op(n)
            source = g.producer.get(n.input[0])
            if c is None or nxt is None:
                continue
            if c.size == 1 and source is not None and source.op_type == "Squeeze":
                heads.append(c.item())  # the attention's query scale, head_dim ** -0.5
            elif c.size == 1 and nxt.op_type == "Add" and g.const(nxt) is not None:
                affines.append((c.reshape(1), g.const(nxt).reshape(1)))
            elif c.ndim == 1 and c.size > 1 and nxt.op_type == "Add":
                norms.append((c, g.const(nxt)))
        elif op == "Sqrt":
            eps.append(g.const(g.producer[n.input[0]]).item())
        elif op == "MatMul":
            c = g.const(n)
            if c is not None:
                nxt = g.next_op(n)
                linears.append((c.T, g.const(nxt)))
    # The reference's layer norms: 1e-5 in the mixer blocks, 1e-6 for the last.
    assert np.allclose(eps, [1e-5] * (len(eps) - 1) + [1e-6]), eps
    return _assemble(convs, affines, norms, linears, heads, pool)


def _assemble(convs, affines, norms, linears, heads, pool):
    state = {}
    stem, rest = convs[0], convs[1:]
    backbone = [c for c in rest if not c["pooled"]]
    neck = [c for c in rest if c["pooled"]]
    state["stem.weight"], state["stem.bias"] = stem["w"], stem["b"]
    blocks, i, k = [], 0, 0
    while i < len(backbone):
        dw = backbone[i]
        assert dw["group"] > 1, "a backbone block starts with its depthwise convolution"
        se = i + 1 < len(backbone) and backbone[i + 1]["after"] == "GlobalAveragePool"
        pw = backbone[i + 3 if se else i + 1]
        j = len(blocks)
        for part, c in (("dw", dw), ("pw", pw)):
            state[f"blocks.{j}.{part}.conv.weight"], state[f"blocks.{j}.{part}.conv.bias"] = c["w"], c["b"]
            (s1, b1), (s2, b2) = affines[k], affines[k + 1]
            k += 2
            state[f"blocks.{j}.{part}.lab.scale"], state[f"blocks.{j}.{part}.lab.bias"] = s1, b1
            state[f"blocks.{j}.{part}.act_lab.scale"], state[f"blocks.{j}.{part}.act_lab.bias"] = s2, b2
        if se:
            for name, c in (("reduce", backbone[i + 1]), ("expand", backbone[i + 2])):
                state[f"blocks.{j}.se.{name}.weight"], state[f"blocks.{j}.se.{name}.bias"] = c["w"], c["b"]
        blocks.append({"in": dw["w"].shape[0], "out": pw["w"].shape[0], "kernel": dw["kernel"][0],
                       "stride": dw["stride"], "se": se})
        i += 4 if se else 2
    assert k == len(affines), f"{len(affines) - k} affine layers left over"
    for name, c in zip(("neck_in", "neck_up", "neck_back", "neck_fuse", "neck_out"), neck, strict=True):
        state[f"{name}.conv.weight"], state[f"{name}.conv.bias"] = c["w"], c["b"]
    depth = (len(linears) - 1) // 4
    for d in range(depth):
        qkv, proj, fc1, fc2 = linears[4 * d:4 * d + 4]
        for name, (w, b) in (("attn.qkv", qkv), ("attn.proj", proj), ("fc1", fc1), ("fc2", fc2)):
            state[f"mixer.{d}.{name}.weight"], state[f"mixer.{d}.{name}.bias"] = w, b
        for name, (w, b) in (("norm1", norms[2 * d]), ("norm2", norms[2 * d + 1])):
            state[f"mixer.{d}.{name}.weight"], state[f"mixer.{d}.{name}.bias"] = w, b
    state["neck_norm.weight"], state["neck_norm.bias"] = norms[2 * depth]
    state["ctc.weight"], state["ctc.bias"] = linears[-1]
    dim = neck[1]["w"].shape[0]
    config = {
        "stem_channels": int(stem["w"].shape[0]),
        "blocks": [{**b, "in": int(b["in"]), "out": int(b["out"]), "kernel": int(b["kernel"]),
                    "stride": [int(s) for s in b["stride"]]} for b in blocks],
        "pool": [int(p) for p in pool],
        "neck": {"reduce": int(neck[0]["w"].shape[0]), "dim": int(dim), "depth": depth,
                 "heads": round(dim * heads[0] ** 2),
                 "mlp_ratio": int(linears[2][0].shape[0] // dim)},
        "num_classes": int(linears[-1][0].shape[0]),
    }
    return config, {k: torch.from_numpy(np.array(v, dtype=np.float32)) for k, v in state.items()}


def run_with_outputs(path, names, pixels):
    """onnxruntime on the original graph for pixels [B, 3, 48, W], returning its output and the named inner
    values too. For parity tests; nothing at run time reads ONNX."""
    import onnxruntime

    model = onnx.load(path)
    model.graph.output.extend([onnx.helper.make_tensor_value_info(name, onnx.TensorProto.FLOAT, None) for name in names])
    session = onnxruntime.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    return session.run(None, {session.get_inputs()[0].name: pixels})


def reference_outputs(path, pixels):
    """onnxruntime's own outputs of the original graph for pixels [B, 3, 48, W] (numpy): backbone [B, T, 480],
    neck [B, T, 120] and CTC probabilities [B, T, K]."""
    g = _Graph(path)
    pool = next(n for n in g.nodes if n.op_type == "AveragePool").output[0]
    head = [n for n in g.nodes if n.op_type == "MatMul"][-1]
    squeeze = g.producer[g.producer[head.input[0]].input[0]]
    probs, backbone, neck = run_with_outputs(path, (pool, squeeze.input[0]), pixels)
    return {"backbone": backbone[:, :, 0].transpose(0, 2, 1), "neck": neck[:, :, 0].transpose(0, 2, 1), "probs": probs}
