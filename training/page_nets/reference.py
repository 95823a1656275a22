"""The engine's convolutional-network ops in numpy, over the stored weights: the reference that the converter
checks against onnxruntime, and that documents what each op computes (native/src/page/convnet.cc runs the same
ops on a backend). Activations are [H, W, C] float32 arrays."""
import numpy as np


def activate(x, act, params):
    if act == "none":
        return x
    if act == "relu":
        return np.maximum(x, 0)
    if act == "sigmoid":
        return 0.5 * (1 + np.tanh(0.5 * x))  # the logistic function without exp's overflow
    if act == "hardsigmoid":
        alpha, beta = params
        return np.clip(alpha * x + beta, 0, 1)
    if act == "hardswish":
        scale, shift = params
        return scale * (x * np.clip(x + 3, 0, 6) / 6) + shift
    raise ValueError(f"unknown activation {act}")


def _padded(x, kh, kw):
    return np.pad(x, ((kh // 2, kh // 2), (kw // 2, kw // 2), (0, 0)))


def conv(x, op, w, b):
    kh, kw = op["kernel"]
    sy, sx = op["stride"]
    H, W, C = x.shape
    Ho, Wo = (H + sy - 1) // sy, (W + sx - 1) // sx
    p = _padded(x, kh, kw)
    if op["depthwise"]:
        y = np.zeros((Ho, Wo, C), np.float32)
        for ky in range(kh):
            for kx in range(kw):
                y += p[ky:ky + sy * Ho:sy, kx:kx + sx * Wo:sx] * w[:, ky * kw + kx]
        y += b
    else:
        cols = np.concatenate([p[ky:ky + sy * Ho:sy, kx:kx + sx * Wo:sx] for ky in range(kh) for kx in range(kw)], axis=2)
        y = cols @ w.T + b
    return activate(y, op["act"], op["act_params"]).astype(np.float32)


def conv_transpose(x, op, w, b):
    H, W, _ = x.shape
    C = op["channels"]
    y = (x @ w.T + b).reshape(H, W, 2, 2, C).transpose(0, 2, 1, 3, 4).reshape(2 * H, 2 * W, C)
    return activate(y, op["act"], op["act_params"]).astype(np.float32)


def run(ops, weights, inputs):
    """inputs {name: [H, W, C]} -> every value computed, by name."""
    v = dict(inputs)
    for op in ops:
        kind, src = op["op"], op["in"]
        if kind == "conv":
            y = conv(v[src], op, weights[op["weight"]], weights[op["bias"]])
        elif kind == "conv_transpose":
            y = conv_transpose(v[src], op, weights[op["weight"]], weights[op["bias"]])
        elif kind == "global_avg_pool":
            y = v[src].mean(axis=(0, 1), keepdims=True)
        elif kind == "max_pool":
            kh, kw = op["kernel"]
            x = v[src]
            H, W, C = x.shape[0] // kh, x.shape[1] // kw, x.shape[2]
            y = x[:H * kh, :W * kw].reshape(H, kh, W, kw, C).max(axis=(1, 3))
        elif kind == "upsample":
            s = op["scale"]
            y = v[src].repeat(s, axis=0).repeat(s, axis=1)
        elif kind == "concat":
            y = np.concatenate([v[s] for s in src], axis=2)
        elif kind == "add":
            y = v[src[0]] + v[src[1]]
        elif kind == "gate":
            x, g = v[src[0]], v[src[1]]
            y = x * (g + 1) if op["residual"] else x * g
        elif kind == "activation":
            y = activate(v[src], op["act"], op["act_params"])
        else:
            raise ValueError(f"unknown op {kind}")
        v[op["out"]] = y.astype(np.float32)
    return v


def grey_input(grey, mean, std):
    """A grey image [H, W] uint8 as the network's input [H, W, 3]: every channel the same pixel, normalised with
    that channel's mean and std (the networks were trained on BGR colour images)."""
    x = grey.astype(np.float32)[:, :, None] / 255.0
    return ((x - np.asarray(mean, np.float32)) / np.asarray(std, np.float32)).astype(np.float32)
