"""Every scan effect, at either end of its strength range and on every print look, must leave the words
legible where their boxes say they are: darker than the paper around them."""

import random

import numpy as np
import pytest

from saccade.synth import scan
from saccade.synth.fonts import covering_face
from saccade.synth.typeset import TextStyle, typeset


@pytest.fixture(scope="module")
def ink():
    rng = random.Random(3)
    text = "Invoice No. 4711 — Total: $1,234.56 (paid)"
    return typeset([[text]], TextStyle(covering_face(rng, text, "serif"), 26), pad=6)


@pytest.mark.parametrize("look", sorted(scan.LOOKS))
@pytest.mark.parametrize("effect", sorted(scan.EFFECTS))
@pytest.mark.parametrize("end", ("low", "high"))
def test_effect_keeps_words_legible(ink, look, effect, end, monkeypatch):
    spec = scan.EFFECTS[effect]
    strength = spec.low if end == "low" else spec.high
    for name in scan.EFFECTS:
        monkeypatch.setitem(scan.EFFECTS, name, scan.Effect(0.0, 0.0, 0.0))
    monkeypatch.setitem(scan.EFFECTS, effect, scan.Effect(1.0, strength, strength))
    rng, nrng = random.Random(1), np.random.default_rng(1)
    coverage, words, _ = scan.warp(ink.coverage, ink.words, ink.chars, rng)
    image = scan.degrade(scan.print_on_paper(coverage, look, rng, nrng), look, rng, nrng)
    assert image.dtype == np.uint8 and image.shape == coverage.shape
    paper = float(np.percentile(image, 90))
    for text, (x0, y0, x1, y1) in words:
        assert 0 <= x0 < x1 <= image.shape[1] and 0 <= y0 < y1 <= image.shape[0]
        assert float(image[y0:y1, x0:x1].min()) < paper - 30, (text, look, effect, end)


def test_transform_boxes_follows_the_ink():
    coverage = np.zeros((60, 200), np.uint8)
    coverage[20:30, 50:150] = 255
    import cv2
    matrix = cv2.getRotationMatrix2D((100, 30), 10, 1.0)
    moved = cv2.warpAffine(coverage, matrix, (200, 60))
    [(_, (x0, y0, x1, y1))] = scan.transform_boxes([("bar", (50, 20, 150, 30))], matrix)
    ys, xs = np.nonzero(moved > 128)
    assert x0 <= xs.min() and xs.max() < x1 and y0 <= ys.min() and ys.max() < y1
    assert (x1 - x0) < 110 and (y1 - y0) < 30  # tight, not the whole canvas
