"""Turning ink coverage into what a scanner at 150-300 dpi returns: paper and ink tones, skew, uneven light,
bleed-through, photocopier and thermal-printer defects, blur, low resolution, binarisation, noise and JPEG.

Every effect has a probability and a strength range in EFFECTS, drawn per sample from the caller's
generators, so a seed fixes the result. Geometric effects move the word and character boxes with the ink.
"""

import random
from dataclasses import dataclass

import cv2
import numpy as np

Box = tuple[int, int, int, int]


@dataclass(frozen=True)
class Effect:
    probability: float
    low: float
    high: float

    def draw(self, rng: random.Random) -> float | None:
        """The strength for this sample, or None when the effect is off."""
        return rng.uniform(self.low, self.high) if rng.random() < self.probability else None


EFFECTS = {
    "skew_degrees": Effect(0.35, -1.2, 1.2),
    "aspect": Effect(0.3, 0.92, 1.08),  # horizontal and vertical scanner resolution differ
    "bleed_through": Effect(0.08, 0.04, 0.14),
    "uneven_light": Effect(0.25, 0.08, 0.3),
    "streaks": Effect(0.05, 1, 4),  # photocopier lines
    "speckle": Effect(0.12, 0.0002, 0.002),  # dust and toner specks per pixel
    "blur_sigma": Effect(0.4, 0.3, 1.1),
    "low_resolution": Effect(0.3, 0.5, 0.9),  # down-scale factor before scaling back up
    "binarise": Effect(0.08, 0.55, 0.8),  # cut between the darkest ink and the local paper tone
    "noise_sigma": Effect(0.5, 1.5, 9.0),
    "jpeg_quality": Effect(0.4, 25, 90),
}

LOOKS = {  # paper tone, ink tone ranges and share of samples
    # Born-digital PDFs rasterised for recognition: white paper, no scanner in the way; the light inks
    # stand for coloured text turned gray.
    "digital": ((255, 255), (0, 110), 0.2),
    "laser": ((228, 255), (0, 60), 0.42),
    "inkjet": ((215, 250), (20, 90), 0.15),
    "photocopy": ((190, 240), (0, 50), 0.1),
    "thermal": ((222, 248), (60, 125), 0.08),
    "aged": ((170, 220), (20, 80), 0.05),
}


def pick_look(rng: random.Random) -> str:
    names = list(LOOKS)
    return rng.choices(names, weights=[LOOKS[n][2] for n in names])[0]


def transform_boxes(items: list, matrix: np.ndarray) -> list:
    """Boxes after an affine map: the axis-aligned box around the four moved corners."""
    if not items:
        return []
    b = np.array([box for _, box in items], dtype=np.float64)
    xs = np.stack([b[:, 0], b[:, 2], b[:, 0], b[:, 2]], axis=1)
    ys = np.stack([b[:, 1], b[:, 1], b[:, 3], b[:, 3]], axis=1)
    tx = matrix[0, 0] * xs + matrix[0, 1] * ys + matrix[0, 2]
    ty = matrix[1, 0] * xs + matrix[1, 1] * ys + matrix[1, 2]
    x0, y0 = np.floor(tx.min(axis=1)).astype(int), np.floor(ty.min(axis=1)).astype(int)
    x1, y1 = np.ceil(tx.max(axis=1)).astype(int), np.ceil(ty.max(axis=1)).astype(int)
    return [(text, (int(a), int(c), int(e), int(g))) for (text, _), a, c, e, g in zip(items, x0, y0, x1, y1)]


def warp(coverage: np.ndarray, words: list, chars: list, rng: random.Random, max_skew: float = 1.0,
         look: str = "laser"):
    """Skew and anisotropic scale about the canvas centre; the canvas is padded so ink stays inside."""
    if look == "digital":
        return coverage, words, chars
    skew, aspect = EFFECTS["skew_degrees"].draw(rng), EFFECTS["aspect"].draw(rng)
    if skew is None and aspect is None:
        return coverage, words, chars
    h, w = coverage.shape
    matrix = cv2.getRotationMatrix2D((w / 2, h / 2), (skew or 0.0) * max_skew, 1.0)
    if aspect is not None:
        matrix[0] *= aspect
    out_w = int(np.ceil(w * (aspect or 1.0)))
    warped = cv2.warpAffine(coverage, matrix, (out_w, h), flags=cv2.INTER_LINEAR, borderValue=0)
    return warped, transform_boxes(words, matrix), transform_boxes(chars, matrix)


def ink_bounds(coverage: np.ndarray, threshold: int = 40) -> Box | None:
    rows = np.flatnonzero((coverage > threshold).any(axis=1))
    cols = np.flatnonzero((coverage > threshold).any(axis=0))
    if rows.size == 0:
        return None
    return int(cols[0]), int(rows[0]), int(cols[-1]) + 1, int(rows[-1]) + 1


def crop(coverage: np.ndarray, words: list, chars: list, box: Box):
    """Cut `box` (clipped to the canvas) and move boxes into its frame, clipping them to it."""
    h, w = coverage.shape
    x0, y0, x1, y1 = max(0, box[0]), max(0, box[1]), min(w, box[2]), min(h, box[3])
    cut = coverage[y0:y1, x0:x1]

    def inside(items: list) -> list:
        out = []
        for text, (a, b, c, d) in items:
            a, b, c, d = max(a - x0, 0), max(b - y0, 0), min(c - x0, x1 - x0), min(d - y0, y1 - y0)
            if c > a and d > b:
                out.append((text, (a, b, c, d)))
        return out

    return cut, inside(words), inside(chars)


def _smooth_field(nrng: np.random.Generator, shape: tuple[int, int], cells: int) -> np.ndarray:
    """Low-frequency random field in [0, 1]: light falloff, paper tone drift."""
    grid = nrng.random((cells, cells)).astype(np.float32)
    return cv2.resize(grid, (shape[1], shape[0]), interpolation=cv2.INTER_CUBIC).clip(0, 1)


def print_on_paper(coverage: np.ndarray, look: str, rng: random.Random, nrng: np.random.Generator) -> np.ndarray:
    """Gray image (float32, 0-255) of the coverage printed with the look's tones."""
    (paper_lo, paper_hi), (ink_lo, ink_hi), _ = LOOKS[look]
    paper = rng.uniform(paper_lo, paper_hi)
    ink = rng.uniform(ink_lo, ink_hi)
    shape = coverage.shape
    alpha = coverage.astype(np.float32) / 255.0
    if look == "thermal":
        # Thermal heads fade in bands along the paper feed and unevenly across the line.
        rows = np.linspace(0, rng.uniform(3, 12) * np.pi, shape[0], dtype=np.float32)[:, None]
        fade = 0.85 + 0.15 * np.sin(rows + rng.uniform(0, 6.3)) * _smooth_field(nrng, shape, 3)
        alpha *= fade
    elif look == "inkjet":
        alpha *= 1.0 - 0.25 * nrng.random(shape, dtype=np.float32) * (alpha > 0)
    page = np.full(shape, paper, dtype=np.float32)
    if look == "digital":
        return page - (page - ink) * alpha
    page -= 6.0 * _smooth_field(nrng, shape, 4)  # paper is never perfectly flat
    image = page - (page - ink) * alpha
    bleed = EFFECTS["bleed_through"].draw(rng)
    if bleed is not None:
        mirrored = cv2.flip(coverage, 1).astype(np.float32) / 255.0
        shift = rng.randrange(-shape[0] // 2, shape[0] // 2 + 1)
        mirrored = np.roll(cv2.GaussianBlur(mirrored, (0, 0), 1.5), shift, axis=0)
        image -= bleed * (paper - ink) * mirrored
    return image


def degrade(image: np.ndarray, look: str, rng: random.Random, nrng: np.random.Generator) -> np.ndarray:
    """Apply the scan effects to a float image; returns uint8. Digital pages get none of them."""
    if look == "digital":
        return np.clip(image, 0, 255).astype(np.uint8)
    h, w = image.shape
    light = EFFECTS["uneven_light"].draw(rng)
    if light is not None:
        image *= 1.0 - light * _smooth_field(nrng, (h, w), 3)
    streaks = EFFECTS["streaks"].draw(rng) if look in ("photocopy", "aged") else None
    if streaks is not None:
        for _ in range(int(streaks)):
            x = rng.randrange(w)
            image[:, x:x + rng.randint(1, 3)] *= rng.uniform(0.55, 0.9)
    speckle = EFFECTS["speckle"].draw(rng)
    if speckle is not None:
        dots = nrng.random((h, w)) < speckle
        image[dots] *= nrng.uniform(0.2, 0.7, size=int(dots.sum())).astype(np.float32)
    sigma = EFFECTS["blur_sigma"].draw(rng)
    if sigma is not None:
        image = cv2.GaussianBlur(image, (0, 0), sigma)
    factor = EFFECTS["low_resolution"].draw(rng)
    if factor is not None and min(h, w) * factor >= 8:
        small = cv2.resize(image, (max(1, round(w * factor)), max(1, round(h * factor))), interpolation=cv2.INTER_AREA)
        image = cv2.resize(small, (w, h), interpolation=rng.choice((cv2.INTER_LINEAR, cv2.INTER_CUBIC, cv2.INTER_NEAREST)))
    threshold = EFFECTS["binarise"].draw(rng)
    if threshold is not None:
        # Scanners threshold against the local paper tone, so shading and bleed-through stay white.
        background = cv2.GaussianBlur(cv2.dilate(image, np.ones((15, 15), np.uint8)), (0, 0), 8)
        relative = image / np.maximum(background, 1.0)
        darkest = float(relative.min())
        cut = darkest + threshold * (1.0 - darkest)
        image = np.where(relative < cut, rng.uniform(0, 40), rng.uniform(235, 255)).astype(np.float32)
    noise = EFFECTS["noise_sigma"].draw(rng)
    if noise is not None:
        image = image + nrng.normal(0.0, noise, size=(h, w)).astype(np.float32)
    out = np.clip(image, 0, 255).astype(np.uint8)
    quality = EFFECTS["jpeg_quality"].draw(rng)
    if quality is not None:
        ok, data = cv2.imencode(".jpg", out, [cv2.IMWRITE_JPEG_QUALITY, int(quality)])
        if ok:
            out = cv2.imdecode(data, cv2.IMREAD_GRAYSCALE)
    return out
