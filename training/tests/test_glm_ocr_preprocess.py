"""docs/glm-ocr.md's image processor (section 4), written out from the document alone and checked against
Pillow and the committed goldens, so the C++ port has an executable statement to follow. Needs only numpy
and Pillow (runs on CI's Debian python3)."""
import json
import math
import os

import numpy as np
from PIL import Image

GOLDEN = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "native", "test", "golden",
                      "glm_ocr")
MEAN = np.array([0.48145466, 0.4578275, 0.40821073], np.float32)
STD = np.array([0.26862954, 0.26130258, 0.27577711], np.float32)


def smart_resize(height, width, min_pixels, max_pixels, factor=28, frames=2):
    if height < factor or width < factor:
        scale = max(factor / height, factor / width)
        height, width = int(height * scale), int(width * scale)
    h, w = round(height / factor) * factor, round(width / factor) * factor  # ties to even
    if frames * h * w > max_pixels:
        beta = math.sqrt(frames * height * width / max_pixels)
        h = max(factor, math.floor(height / beta / factor) * factor)
        w = max(factor, math.floor(width / beta / factor) * factor)
    elif frames * h * w < min_pixels:
        beta = math.sqrt(min_pixels / (frames * height * width))
        h, w = math.ceil(height * beta / factor) * factor, math.ceil(width * beta / factor) * factor
    return h, w


def _bicubic(x):
    a, x = -0.5, abs(x)
    if x < 1:
        return ((a + 2) * x - (a + 3)) * x * x + 1
    return (((x - 5) * x + 8) * x - 4) * a if x < 2 else 0.0


def _resample_axis(img, out_size, axis):
    """One pass of Pillow's 8-bit resampling along axis (0 rows, 1 columns) of a uint8 [h, w, c]."""
    in_size = img.shape[axis]
    scale = in_size / out_size
    fs = max(scale, 1.0)
    support = 2.0 * fs
    src = np.moveaxis(img, axis, 0).astype(np.int64)
    out = np.empty((out_size,) + src.shape[1:], np.uint8)
    for o in range(out_size):
        center = (o + 0.5) * scale
        xmin = max(0, int(center - support + 0.5))
        n = min(in_size, int(center + support + 0.5)) - xmin
        w = [_bicubic((k + xmin - center + 0.5) / fs) for k in range(n)]
        total = sum(w)
        fixed = [int(v / total * (1 << 22) + (0.5 if v >= 0 else -0.5)) for v in w]
        acc = (1 << 21) + sum(src[xmin + k] * fixed[k] for k in range(n))
        out[o] = np.clip(acc >> 22, 0, 255)
    return np.moveaxis(out, 0, axis)


def pillow_bicubic(img, h, w):
    if img.shape[1] != w:
        img = _resample_axis(img, w, 1)
    if img.shape[0] != h:
        img = _resample_axis(img, h, 0)
    return img


def patchify(u8):
    r = (u8.astype(np.float64) * (1 / 255)).astype(np.float32)
    p = ((r - MEAN) / STD).transpose(2, 0, 1)  # [3, h, w]
    gh, gw = p.shape[1] // 14, p.shape[2] // 14
    blocks = p.reshape(3, gh // 2, 2, 14, gw // 2, 2, 14).transpose(1, 4, 2, 5, 0, 3, 6)
    both = np.broadcast_to(blocks[:, :, :, :, :, None], blocks.shape[:5] + (2, 14, 14))
    return both.reshape(gh * gw, 3 * 2 * 14 * 14)


def _golden():
    with open(os.path.join(GOLDEN, "index.json")) as f:
        index = json.load(f)
    with open(os.path.join(GOLDEN, index["model_dir"], "preprocessor_config.json")) as f:
        size = json.load(f)["size"]

    def load(entry):
        dtype = {"uint8": np.uint8, "float32": "<f4"}[entry["dtype"]]
        return np.fromfile(os.path.join(GOLDEN, entry["file"]), dtype).reshape(entry["shape"])

    return index["cases"], size, load


def test_smart_resize_as_documented_gives_the_golden_grids():
    cases, size, _ = _golden()
    for name, case in cases.items():
        h, w = case["image"]["shape"][:2]
        got = smart_resize(h, w, size["shortest_edge"], size["longest_edge"])
        assert [1, got[0] // 14, got[1] // 14] == case["image_grid_thw"], name
    # The real limits (12544, 9633792 over two frames), values from transformers' smart_resize: an A4 page
    # at 200 dpi, 70 / 28 = 2.5 and 98 / 28 = 3.5 rounding to even, and an image under min_pixels.
    assert smart_resize(2339, 1654, 12544, 9633792) == (2352, 1652)
    assert smart_resize(70, 98, 12544, 9633792) == (56, 112)
    assert smart_resize(42, 70, 12544, 9633792) == (84, 112)


def test_pillow_bicubic_as_documented_equals_pillow():
    rng = np.random.RandomState(0)
    for (h, w), (oh, ow) in [((20, 30), (56, 84)), ((180, 240), (84, 112)), ((42, 70), (56, 56)),
                             ((37, 53), (37, 28)), ((9, 200), (28, 616))]:
        img = rng.randint(0, 256, (h, w, 3)).astype(np.uint8)
        want = np.asarray(Image.fromarray(img).resize((ow, oh), Image.BICUBIC))
        assert np.array_equal(pillow_bicubic(img, oh, ow), want), (h, w, oh, ow)


def test_resize_and_patches_as_documented_give_the_golden_pixel_values():
    cases, _, load = _golden()
    for name, case in cases.items():
        resized = load(case["resized"])
        assert np.array_equal(pillow_bicubic(load(case["image"]), *resized.shape[:2]), resized), name
        assert np.array_equal(patchify(resized), load(case["pixel_values"])), name
