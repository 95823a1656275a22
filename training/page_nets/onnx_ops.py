"""Read a PaddleOCR / PaddleDetection ONNX graph (Paddle2ONNX, every weight a Constant node) into the engine's
convolutional-network ops (docs/model-format.md, "Page analysis networks").

The graphs are a few hundred nodes of a small vocabulary: convolutions with batch norms, learnable affines and
activations after them, squeeze-excite gates, nearest upsampling, concatenation, pooling. Each ONNX convolution
becomes one op that carries what follows it until the next real computation: a batch norm and constant adds and
scales before its activation are folded into its weights and bias (exact in real arithmetic), the activation is
named (hardswish, as Paddle2ONNX spells it, is the chain Add 3 / Clip 0 6 / Mul / Div 6), and a constant scale and
shift after a hardswish stay as the activation's second affine. Anything the reader does not recognise stops the
conversion with the node's name: a graph is converted whole or not at all.

Weights are stored in the layouts the engine computes with (NHWC activations):
- a k x k convolution: [out, k * k * in] in (ky, kx, c) order (im2col, then a matrix product);
- a depthwise one: [C, k * k];
- a 2 x 2, stride 2 transposed convolution: [(dy, dx, out), in] (a matrix product, then depth to space).
"""
import numpy as np
import onnx
from onnx import numpy_helper


class Graph:
    def __init__(self, path):
        model = onnx.load(path)
        self.model = model
        self.consts = {}
        for n in model.graph.node:
            if n.op_type == "Constant":
                value = next(a for a in n.attribute if a.name == "value")
                self.consts[n.output[0]] = numpy_helper.to_array(value.t)
        for t in model.graph.initializer:
            self.consts[t.name] = numpy_helper.to_array(t)
        self.nodes = [n for n in model.graph.node if n.op_type != "Constant"]
        self.producer = {o: n for n in self.nodes for o in n.output}
        self.consumers = {}
        for n in self.nodes:
            for i in n.input:
                self.consumers.setdefault(i, []).append(n)
        self.inputs = [i.name for i in model.graph.input if i.name not in self.consts]
        self.outputs = [o.name for o in model.graph.output]

    @staticmethod
    def attrs(node):
        values = {a.name: onnx.helper.get_attribute_value(a) for a in node.attribute}
        return {k: v.decode() if isinstance(v, bytes) else v for k, v in values.items()}

    def users(self, name):
        return self.consumers.get(name, [])

    def scalar(self, node):
        """The node's one scalar constant input, or None."""
        vals = [self.consts[i] for i in node.input if i in self.consts]
        return float(vals[0].reshape(-1)[0]) if len(vals) == 1 and vals[0].size == 1 else None

    def other_input(self, node, name):
        rest = [i for i in node.input if i != name]
        return rest[0] if len(rest) == 1 else None

    def metadata(self):
        return {p.key: p.value for p in self.model.metadata_props}


class ConversionError(Exception):
    pass


def _hardswish_end(g, name):
    """If `name` feeds exactly Paddle2ONNX's hardswish (x * clip(x + 3, 0, 6) / 6), the Div node ending it."""
    users = g.users(name)
    if len(users) != 2:
        return None
    add = next((u for u in users if u.op_type == "Add" and g.scalar(u) == 3.0), None)
    mul = next((u for u in users if u.op_type == "Mul" and u is not add), None)
    if add is None or mul is None:
        return None
    clips = g.users(add.output[0])
    if len(clips) != 1 or clips[0].op_type != "Clip":
        return None
    clip = clips[0]
    # Opset 11 passes the bounds as inputs, opset 9 as attributes.
    bounds = [float(g.consts[i].reshape(-1)[0]) for i in clip.input[1:3] if i in g.consts]
    lo, hi = bounds if len(bounds) == 2 else (g.attrs(clip).get("min"), g.attrs(clip).get("max"))
    if (lo, hi) != (0.0, 6.0) or clip.output[0] not in mul.input:
        return None
    divs = g.users(mul.output[0])
    if len(divs) != 1 or divs[0].op_type != "Div" or g.scalar(divs[0]) != 6.0:
        return None
    return divs[0], {add.name, clip.name, mul.name, divs[0].name}


class Converter:
    def __init__(self, g, prefix):
        self.g = g
        self.prefix = prefix
        self.ops = []
        self.weights = {}
        self.done = set()     # ONNX nodes already turned into ops
        self.value = {}       # ONNX tensor name -> our value name
        self.shape_only = set()

    def _name(self, onnx_name):
        return onnx_name.replace("/", "_")

    def _weight(self, op_index, key, array):
        name = f"{self.prefix}.{op_index}.{key}"
        self.weights[name] = np.ascontiguousarray(array, dtype=np.float32)
        return name

    def _src(self, onnx_name):
        if onnx_name not in self.value:
            raise ConversionError(f"{onnx_name} is used before it is computed")
        return self.value[onnx_name]

    def _sole_user(self, name):
        users = self.g.users(name)
        return users[0] if len(users) == 1 and users[0].name not in self.done else None

    def _absorb_tail(self, out, w, b, transposed):
        """Folds what follows a convolution into it: -> (last ONNX name, w, b, act, act_params, absorbed nodes)."""
        g = self.g
        act, params, absorbed = "none", [], set()
        scale2, shift2 = 1.0, 0.0
        while True:
            hs = _hardswish_end(g, out) if act == "none" else None
            if hs is not None:
                div, nodes = hs
                absorbed |= nodes
                act, out = "hardswish", div.output[0]
                continue
            nxt = self._sole_user(out)
            if nxt is None:
                break
            op = nxt.op_type
            axis_out = 1 if transposed else 0
            if op == "BatchNormalization" and act == "none":
                gamma, beta, mean, var = (g.consts[i] for i in nxt.input[1:5])
                s = gamma / np.sqrt(var + g.attrs(nxt)["epsilon"])
                w = w * (s.reshape(-1, 1, 1, 1) if axis_out == 0 else s.reshape(1, -1, 1, 1))
                b = (b - mean) * s + beta
            elif op in ("Add", "Mul") and any(i in g.consts for i in nxt.input):
                c = next(g.consts[i] for i in nxt.input if i in g.consts).astype(np.float64)
                if c.size != 1 and c.size != b.size:
                    break
                c = c.reshape(-1)
                if act == "none":
                    if op == "Add":
                        b = b + c
                    else:
                        w = w * (c.reshape(-1, 1, 1, 1) if axis_out == 0 or c.size == 1 else c.reshape(1, -1, 1, 1))
                        b = b * c
                elif act == "hardswish" and c.size == 1:
                    # A constant scale and shift after the activation: PaddleOCR's learnable affine.
                    if op == "Mul":
                        scale2, shift2 = scale2 * c[0], shift2 * c[0]
                    else:
                        shift2 = shift2 + c[0]
                else:
                    break
            elif op in ("Relu", "Sigmoid") and act == "none":
                act = op.lower()
            elif op == "HardSigmoid" and act == "none":
                a = g.attrs(nxt)
                act, params = "hardsigmoid", [float(a.get("alpha", 0.2)), float(a.get("beta", 0.5))]
            else:
                break
            absorbed.add(nxt.name)
            out = nxt.output[0]
        if act == "hardswish":
            params = [float(scale2), float(shift2)]
        return out, w, b, act, params, absorbed

    def conv(self, n):
        g = self.g
        a = g.attrs(n)
        w = g.consts[n.input[1]].astype(np.float64)
        b = g.consts[n.input[2]].astype(np.float64) if len(n.input) > 2 else np.zeros(w.shape[0])
        kh, kw = a["kernel_shape"]
        if a.get("dilations", [1, 1]) != [1, 1] or a.get("pads", [0] * 4) != [kh // 2, kw // 2] * 2:
            raise ConversionError(f"{n.name}: only 'same' padding without dilation is supported")
        groups = a.get("group", 1)
        cin = w.shape[1] * groups
        if groups not in (1, cin) or (groups == cin and w.shape[1] != 1):
            raise ConversionError(f"{n.name}: groups must be 1 or the channel count")
        out, w, b, act, params, absorbed = self._absorb_tail(n.output[0], w, b, transposed=False)
        # A Split of the output by channels (a detector head's classes and boxes): one convolution per part.
        parts = [(out, w, b, act, params, absorbed)]
        split = self._sole_user(out)
        if split is not None and split.op_type == "Split" and act == "none":
            sizes = [int(s) for s in g.consts[split.input[1]]] if len(split.input) > 1 else g.attrs(split)["split"]
            parts, start = [], 0
            for size, name in zip(sizes, split.output):
                p_out, p_w, p_b, p_act, p_params, p_abs = self._absorb_tail(name, w[start:start + size], b[start:start + size], False)
                parts.append((p_out, p_w, p_b, p_act, p_params, p_abs | {split.name}))
                start += size
        for p_out, p_w, p_b, p_act, p_params, p_abs in parts:
            i = len(self.ops)
            depthwise = groups > 1
            if depthwise:
                weight = p_w.reshape(p_w.shape[0], kh * kw)
            else:
                weight = p_w.transpose(0, 2, 3, 1).reshape(p_w.shape[0], kh * kw * cin)
            op = {"op": "conv", "in": self._src(n.input[0]), "out": self._name(p_out), "kernel": [kh, kw],
                  "stride": list(a.get("strides", [1, 1])), "depthwise": depthwise, "channels": int(p_w.shape[0]),
                  "weight": self._weight(i, "weight", weight), "bias": self._weight(i, "bias", p_b),
                  "act": p_act, "act_params": p_params}
            self.ops.append(op)
            self.value[p_out] = op["out"]
            self.done |= p_abs
        self.done.add(n.name)

    def conv_transpose(self, n):
        g = self.g
        a = g.attrs(n)
        w = g.consts[n.input[1]].astype(np.float64)   # [in, out, 2, 2]
        if a["kernel_shape"] != [2, 2] or a["strides"] != [2, 2] or a.get("group", 1) != 1 or any(a.get("pads", [0] * 4)):
            raise ConversionError(f"{n.name}: only a 2 x 2, stride 2 transposed convolution is supported")
        b = g.consts[n.input[2]].astype(np.float64) if len(n.input) > 2 else np.zeros(w.shape[1])
        out, w, b, act, params, absorbed = self._absorb_tail(n.output[0], w, b, transposed=True)
        i = len(self.ops)
        cout = w.shape[1]
        weight = w.transpose(2, 3, 1, 0).reshape(4 * cout, w.shape[0])  # rows (dy, dx, out)
        op = {"op": "conv_transpose", "in": self._src(n.input[0]), "out": self._name(out), "channels": int(cout),
              "weight": self._weight(i, "weight", weight), "bias": self._weight(i, "bias", np.tile(b, 4)),
              "act": act, "act_params": params}
        self.ops.append(op)
        self.value[out] = op["out"]
        self.done |= absorbed | {n.name}

    def emit(self, kind, n, inputs, **extra):
        op = {"op": kind, "in": inputs if len(inputs) > 1 or kind in ("concat", "add", "gate") else inputs[0],
              "out": self._name(n.output[0]), **extra}
        self.ops.append(op)
        self.value[n.output[0]] = op["out"]
        self.done.add(n.name)

    def run(self):
        g = self.g
        for name in g.inputs:
            self.value[name] = self._name(name)
        # Nodes computing shapes only (the classifier's flatten: Shape -> Cast -> Slice -> Concat -> Reshape's shape).
        for n in reversed(g.nodes):
            uses = [(u, list(u.input).index(o)) for o in n.output for u in g.users(o)]
            if uses and all(u.name in self.shape_only or (u.op_type == "Reshape" and k == 1) for u, k in uses):
                self.shape_only.add(n.name)
        for n in g.nodes:
            if n.name in self.done or n.name in self.shape_only:
                continue
            op = n.op_type
            if op == "Conv":
                self.conv(n)
            elif op == "ConvTranspose":
                self.conv_transpose(n)
            elif op == "GlobalAveragePool":
                self.emit("global_avg_pool", n, [self._src(n.input[0])])
            elif op == "MaxPool":
                a = g.attrs(n)
                if any(a.get("pads", [0] * 4)) or a["kernel_shape"] != a["strides"]:
                    raise ConversionError(f"{n.name}: only a non-overlapping max pool is supported")
                self.emit("max_pool", n, [self._src(n.input[0])], kernel=list(a["kernel_shape"]))
            elif op == "Resize":
                scales = g.consts[n.input[2]].reshape(-1) if len(n.input) > 2 else None
                a = g.attrs(n)
                if scales is None or a.get("mode") != "nearest" or scales[0] != 1 or scales[1] != 1 or scales[2] != scales[3] or scales[2] != int(scales[2]):
                    raise ConversionError(f"{n.name}: only nearest upsampling by a whole factor is supported")
                self.emit("upsample", n, [self._src(n.input[0])], scale=int(scales[2]))
            elif op == "Concat":
                if g.attrs(n)["axis"] != 1:
                    raise ConversionError(f"{n.name}: only a concatenation of channels is supported")
                self.emit("concat", n, [self._src(i) for i in n.input])
            elif op == "Mul" and not any(i in g.consts for i in n.input):
                # x * gate: a squeeze-excite gate ([1, 1, C]); x + x * gate folds into one op.
                x, gate = n.input
                if self._is_gate(x):
                    x, gate = gate, x
                users = g.users(n.output[0])
                residual = len(users) == 1 and users[0].op_type == "Add" and x in users[0].input
                if residual:
                    self.done.add(n.name)
                    self.emit("gate", users[0], [self._src(x), self._src(gate)], residual=True)
                else:
                    self.emit("gate", n, [self._src(x), self._src(gate)], residual=False)
            elif op == "Add" and not any(i in g.consts for i in n.input):
                self.emit("add", n, [self._src(i) for i in n.input])
            elif op == "Relu":
                self.emit("activation", n, [self._src(n.input[0])], act="relu", act_params=[])
            elif op in ("Reshape", "Flatten", "Squeeze", "Transpose"):
                # Layout-only nodes after a global pool or at a head's output: the engine's NHWC rows already are.
                self.value[n.output[0]] = self._src(n.input[0])
                self.done.add(n.name)
            elif op == "MatMul":
                w = g.consts[n.input[1]].astype(np.float64)   # [in, out]
                users = g.users(n.output[0])
                b = np.zeros(w.shape[1])
                out = n.output[0]
                if len(users) == 1 and users[0].op_type == "Add" and any(i in g.consts for i in users[0].input):
                    b = next(g.consts[i] for i in users[0].input if i in g.consts).astype(np.float64).reshape(-1)
                    self.done.add(users[0].name)
                    out = users[0].output[0]
                i = len(self.ops)
                op = {"op": "conv", "in": self._src(n.input[0]), "out": self._name(out), "kernel": [1, 1], "stride": [1, 1],
                      "depthwise": False, "channels": int(w.shape[1]), "weight": self._weight(i, "weight", w.T),
                      "bias": self._weight(i, "bias", b), "act": "none", "act_params": []}
                self.ops.append(op)
                self.value[out] = op["out"]
                self.done.add(n.name)
            elif op == "Softmax":
                # A classifier's last node: the engine returns its logits, the caller takes the softmax.
                self.value[n.output[0]] = self._src(n.input[0])
                self.done.add(n.name)
            else:
                raise ConversionError(f"{n.name}: ONNX op {op} is not supported")
        outputs = [self._src(o) for o in g.outputs]
        return self.ops, self.weights, outputs

    def _is_gate(self, name):
        p = self.g.producer.get(name)
        return p is not None and p.op_type in ("HardSigmoid", "Sigmoid")


def convert(path, prefix):
    """-> (ops, weights {name: float32 array}, output value names, ONNX metadata)."""
    g = Graph(path)
    ops, weights, outputs = Converter(g, prefix).run()
    return ops, weights, outputs, g.metadata()
