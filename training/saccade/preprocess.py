"""Image preprocessing exactly as docs/model-format.md ("Image preprocessing") specifies."""
import math

import numpy as np
import torch
import torch.nn.functional as F


def target_size(w, h, image_cfg):
    """(W, H) the image is resampled to: native aspect, multiples of `unit`, at most max_image_tokens cells."""
    unit, max_tokens, min_h = image_cfg["unit"], image_cfg["max_image_tokens"], image_cfg["min_height"]
    s = 1.0
    if h < min_h:
        s = min_h / h
    if (w * s) * (h * s) > max_tokens * unit * unit:
        s = math.sqrt(max_tokens * unit * unit / (w * h))
    W = max(unit, int(round(w * s / unit)) * unit)
    H = max(unit, int(round(h * s / unit)) * unit)
    while (W // unit) * (H // unit) > max_tokens:
        if W >= H:
            W -= unit
        else:
            H -= unit
    return W, H


def preprocess(image, image_cfg):
    """uint8 grayscale HxW -> normalised float32 tensor [H', W'] on the contract's grid."""
    image = np.asarray(image)
    if image.ndim == 3:
        image = image[..., :3].astype(np.float32) @ np.array([0.299, 0.587, 0.114], np.float32)
    h, w = image.shape
    W, H = target_size(w, h, image_cfg)
    x = torch.from_numpy(np.ascontiguousarray(image, dtype=np.float32))[None, None]
    if (H, W) != (h, w):
        x = F.interpolate(x, size=(H, W), mode="bilinear", align_corners=False)
    x = x[0, 0] / 255.0
    return (x - image_cfg["mean"]) / image_cfg["std"]


def patchify(pixels, patch_size):
    """[H, W] -> [Hp*Wp, P*P] row-major patches, and the patch grid (Hp, Wp)."""
    H, W = pixels.shape
    P = patch_size
    Hp, Wp = H // P, W // P
    patches = pixels.reshape(Hp, P, Wp, P).permute(0, 2, 1, 3).reshape(Hp * Wp, P * P)
    return patches, (Hp, Wp)
