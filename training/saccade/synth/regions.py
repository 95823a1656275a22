"""One region crop, as the layout stage would cut it from a scanned page and hand it to the recogniser."""

import random

import numpy as np

from . import scan
from .formulas import make_formula
from .samples import Region
from .tables import make_table
from .text_blocks import layout_text, render_text
from .typeset import Ink, scaled

KIND_SHARES = {"text": 0.70, "table": 0.18, "formula": 0.12}
MAX_SIZE = {"text": (2000, 700), "table": (700, 900), "formula": (1000, 300)}  # width, height


def _margins(rng: random.Random, kind: str, line_height: int) -> tuple[int, int, int, int]:
    """Left, top, right, bottom margins around the ink, as a detector's boxes leave them."""
    if kind == "formula":
        return tuple(rng.randint(3, 24) for _ in range(4))
    if kind == "table":
        return tuple(rng.randint(2, 16) for _ in range(4))
    if rng.random() < 0.15:  # tight boxes that touch the glyphs
        return tuple(rng.randint(0, 2) for _ in range(4))
    side = max(2, line_height // 3)
    return rng.randint(2, side), rng.randint(1, max(2, side // 2)), rng.randint(2, side), rng.randint(1, max(2, side // 2))


def capture(ink: Ink, kind: str, rng: random.Random, nrng: np.random.Generator, look: str | None = None) -> Region:
    """Warp, crop and scan a rendered region."""
    look = look or scan.pick_look(rng)
    focus = [("", ink.focus)] if ink.focus else []
    coverage, words, chars = scan.warp(ink.coverage, ink.words + focus, ink.chars, rng,
                                       max_skew=1.0 if kind == "text" and len(ink.words) < 14 else 0.5, look=look)
    if focus:
        words, (_, bounds) = words[:-1], words[-1]
    else:
        bounds = scan.ink_bounds(coverage) or (0, 0, coverage.shape[1], coverage.shape[0])
    heights = sorted(b[3] - b[1] for _, b in words) or [bounds[3] - bounds[1]]
    left, top, right, bottom = _margins(rng, kind, heights[len(heights) // 2])
    # A detector boxes a dash or a dot as a line of text, not as its few pixels of ink.
    short = ink.em - (bounds[3] - bounds[1] + top + bottom)
    if short > 0:
        top, bottom = top + short // 2, bottom + short - short // 2
    cut, words, chars = scan.crop(coverage, words, chars,
                                  (bounds[0] - left, bounds[1] - top, bounds[2] + right, bounds[3] + bottom))
    max_w, max_h = MAX_SIZE[kind]
    factor = min(1.0, max_w / cut.shape[1], max_h / cut.shape[0])
    if factor < 1.0:
        smaller = scaled(Ink(cut, words, chars), factor)
        cut, words, chars = smaller.coverage, smaller.words, smaller.chars
    image = scan.degrade(scan.print_on_paper(cut, look, rng, nrng), look, rng, nrng)
    return Region(image=image, target="", kind=kind, words=words, chars=chars)


def generate_region(seed: int, kind: str | None = None, shares: dict[str, float] = KIND_SHARES) -> Region:
    """A region crop and its target; the same seed (and shares) always gives the same bytes."""
    rng = random.Random(seed)
    nrng = np.random.default_rng(seed)
    if kind is None:
        kind = rng.choices(list(shares), weights=list(shares.values()))[0]
    look = None
    if kind == "text":
        layout = layout_text(rng)
        ink, target = render_text(rng, layout)
        look = layout.look
    elif kind == "table":
        ink, target = make_table(rng)
    elif kind == "formula":
        ink, target = make_formula(rng)
    else:
        raise ValueError(f"unknown region kind {kind!r}")
    region = capture(ink, kind, rng, nrng, look)
    region.target = target
    if kind == "formula":
        region.words, region.chars = [], []
    return region
